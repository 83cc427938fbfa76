"""One time budget for a whole command: ``--time-limit S`` from start to written result.

A user who types ``--time-limit 60`` means "answer within a minute", not
"give each of the command's many solves a minute" (issue 34: a sweep of four
variants ran 38 minutes). A :class:`Budget` is made once, when the command
starts (:func:`command_budget`), and each part of the command takes its
time from it: ``share(f)`` is a fraction of what is left, ``left()`` what is
left, both in seconds, after setting aside :func:`write_reserve` for writing
the result. Clocks are ``time.monotonic()``, which on one machine is the
same in every process, so a pool worker can read the same deadline.
Without a limit every figure is None (no limit) and nothing is set aside.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from optimizer.results import SolverSettings

# What a solve needs at the least to build its model and find a first plan on
# the example; a part handed less is not started (it says so instead).
LEAST_SOLVE_S = 0.5
# Writing a result workbook: about 1 s on the example, 2-3 s at (10, 20, 36).
WRITE_RESERVE_S = 3.0
WRITE_RESERVE_SHARE = 0.1

_command_started = time.monotonic()


def mark_command_start() -> None:
    """Note when the command began (``cli.main`` calls it before reading anything)."""
    global _command_started
    _command_started = time.monotonic()


@dataclass(frozen=True)
class Budget:
    """The time a command may still spend: a deadline on ``time.monotonic()``'s clock."""

    seconds: float | None  # the whole budget as given; None: no limit
    deadline: float | None  # time.monotonic() at which the result must be written

    def left(self) -> float | None:
        """Seconds until the work must stop (the writing reserve excluded); None: no limit."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())

    def share(self, fraction: float) -> float | None:
        """``fraction`` of what is left, in seconds; None: no limit."""
        left = self.left()
        return None if left is None else left * fraction

    def spent(self) -> bool:
        """Whether too little is left to start another solve."""
        left = self.left()
        return left is not None and left < LEAST_SOLVE_S

    def settings(self, settings: SolverSettings, fraction: float = 1.0) -> SolverSettings:
        """``settings`` with a time limit of ``fraction`` of what is left (unchanged without one)."""
        share = self.share(fraction)
        if share is None:
            return settings
        return replace(settings, time_limit=max(LEAST_SOLVE_S, share))

    def until(self, seconds: float) -> Budget:
        """A budget that ends ``seconds`` from now, or with this one if that is sooner."""
        end = time.monotonic() + seconds
        deadline = end if self.deadline is None else min(end, self.deadline)
        return Budget(self.seconds, deadline)


def write_reserve(seconds: float) -> float:
    """Seconds set aside at the end of a budget to write the result."""
    return min(WRITE_RESERVE_S, WRITE_RESERVE_SHARE * seconds)


def command_budget(seconds: float | None, reserve: float | None = None) -> Budget:
    """The budget of the command that started at :func:`mark_command_start`; ``reserve``
    (default :func:`write_reserve`) is kept back at its end for writing the result."""
    if seconds is None:
        return Budget(None, None)
    kept = write_reserve(seconds) if reserve is None else reserve
    return Budget(seconds, _command_started + seconds - kept)


NO_LIMIT = Budget(None, None)
