"""Progress of a long solve, printed to stderr.

Takes the best plan so far and the proven bound, from HiGHS's MIP-interrupt
and improving-solution callbacks or SCIP's events (or both, in a race); hands
on at most one line a second on stderr, none in the first second. Used by
``optimizer.solve.adapters``, ``scip`` and ``race`` when ``settings.progress``.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from typing import Any

from optimizer.currency import money_text

PROGRESS_AFTER_S = 1.0


def finite(value: float) -> bool:
    """Whether a solver's figure is a number (HiGHS says 1e30 or inf, SCIP 1e20, for none)."""
    return math.isfinite(value) and abs(value) < 1e19


class ProgressLine:
    """Prints elapsed time, best plan so far and proven gap to stderr, at most once a second.

    Silent for the first second so quick solves print nothing. Solvers
    report between nodes and cut rounds, so during a long root-node phase a
    line may come later than once a second. Safe to call from two solver
    threads at once.
    """

    def __init__(self, currency: str) -> None:
        self.currency = currency
        self.started = time.perf_counter()
        self.last = 0.0
        self._lock = threading.Lock()

    def report(self, plan: float, bound: float) -> bool:
        """Print a line if one is due; never asks the solver to stop (returns False)."""
        now = time.perf_counter() - self.started
        with self._lock:
            if now < PROGRESS_AFTER_S or now - self.last < 1.0:
                return False
            self.last = now
        has_plan = finite(plan)
        best_text = money_text(plan, self.currency) if has_plan else "none yet"
        gap_text = "unknown"
        if has_plan and finite(bound):
            gap_text = f"{max(0.0, plan - bound) / max(abs(plan), 1e-9):.3%}"
        print(
            f"gpumix: {now:6.1f} s  best plan {best_text}  proven gap {gap_text}",
            file=sys.stderr,
            flush=True,
        )
        return False


class HighsPlans:
    """The cost of HiGHS's best plan, recomputed from the columns of each plan it reports.

    HiGHS 1.16, given a first plan, reports plan costs from its presolved
    model, and they can be wrong: s20-50-60-1's first plan, which costs
    $495,969.75, came back as $494,225.88 in every callback and in its final
    objective. The columns its improving-plan callback hands over are the
    original model's, so their cost is exact. Until :meth:`watch` has the
    model, HiGHS's own figure stands.
    """

    def __init__(self) -> None:
        self.costs: Any = None
        self.offset = 0.0
        self.best = math.inf

    def watch(self, highs: Any) -> None:
        import numpy as np

        lp = highs.getLp()
        self.costs = np.asarray(lp.col_cost_, dtype=float)
        self.offset = float(lp.offset_)

    def plan(self, improving: bool, data_out: Any) -> float:
        """The best plan's cost after this callback (``improving``: it hands a new plan)."""
        if self.costs is None:
            return float(data_out.mip_primal_bound)
        if improving:
            import numpy as np

            columns = np.asarray(data_out.mip_solution, dtype=float)
            if columns.shape == self.costs.shape:
                self.best = min(self.best, self.offset + float(self.costs @ columns))
        return self.best


class _Progress:
    """HiGHS's callback (through PuLP's ``callbackTuple``) feeding a :class:`ProgressLine`."""

    def __init__(self, currency: str, plans: HighsPlans | None = None) -> None:
        self.line = ProgressLine(currency)
        self.plans = plans

    def __call__(self, kind: Any, _message: str, data_out: Any, _data_in: Any, _user: Any) -> None:
        import highspy

        improving = kind == highspy.cb.HighsCallbackType.kCallbackMipImprovingSolution
        plan = data_out.mip_primal_bound
        if self.plans is not None:
            plan = self.plans.plan(improving, data_out)
        self.line.report(plan, data_out.mip_dual_bound)
