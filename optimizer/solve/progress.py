"""Progress of a long solve, printed to stderr.

Takes HiGHS's MIP-interrupt and improving-solution callbacks (best plan so far
and proven gap); hands on at most one line a second on stderr, none in the
first second. Used by ``optimizer.solve.adapters`` when ``settings.progress``.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any

PROGRESS_AFTER_S = 1.0


class _Progress:
    """Prints elapsed time, best plan so far and proven gap to stderr, at most once a second.

    Fed by HiGHS's MIP-interrupt and improving-solution callbacks (through
    PuLP's ``callbackTuple``); silent for the first second so quick solves
    print nothing. HiGHS calls back between nodes and cut rounds, so during
    a long root-node phase a line may come later than once a second.
    """

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.last = 0.0

    def __call__(self, _kind: Any, _message: str, data_out: Any, _data_in: Any, _user: Any) -> None:
        now = time.perf_counter() - self.started
        if now < PROGRESS_AFTER_S or now - self.last < 1.0:
            return
        self.last = now
        best = data_out.mip_primal_bound
        gap = data_out.mip_gap
        best_text = f"${best:,.2f}" if math.isfinite(best) and abs(best) < 1e30 else "none yet"
        gap_text = f"{gap:.3%}" if math.isfinite(gap) and gap < 1e30 else "unknown"
        print(
            f"gpumix: {now:6.1f} s  best plan {best_text}  proven gap {gap_text}",
            file=sys.stderr,
            flush=True,
        )
