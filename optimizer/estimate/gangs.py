"""How many GPUs one run holds at once (model v2 §C), shared by the estimate, model and checker.

A copy of a job needs ``copy_width`` GPUs (its memory). A deadline may need
several copies at once (data parallel): ``copies_per_gang`` of them form the
gang. A gang on spot capacity stalls whenever any of its servers is
reclaimed, so each paid spot hour yields ``spot_yield`` hours of work.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Ceilings ignore floating-point noise: 3.0000000001 copies are 3.
_NOISE = 1e-9


def whole_ceiling(x: float) -> int:
    """``ceil(x)`` that ignores floating-point noise, and never below 0."""
    return max(0, math.ceil(x - _NOISE))


def copies_per_gang(run_gpu_hours: float, copy_width: int, deadline_hours: float | None) -> int:
    """Copies that must run at once so one run finishes within ``deadline_hours``.

    ``k * ceil(R / (k * deadline))`` GPUs make the gang (model v2 §C); without
    a deadline one copy is enough.
    """
    if deadline_hours is None or run_gpu_hours <= 0:
        return 1
    return max(1, whole_ceiling(run_gpu_hours / (copy_width * deadline_hours)))


def spot_yield(spot_efficiency: float, gang_width: int, max_per_node: int) -> float:
    """Useful hours per paid spot hour: ``spot_efficiency ** ceil(gang_width / max_per_node)``."""
    return float(spot_efficiency ** whole_ceiling(gang_width / max_per_node))


@dataclass(frozen=True)
class SpotRun:
    """One run of a gang as the spot rules see it (docs/methodology.md §2.12)."""

    run_gpu_hours: float  # this month's run
    copy_width: int
    gang_width: int
    deadline_hours: float | None
    spot_efficiency: float
    max_per_node: int

    @property
    def servers(self) -> int:
        """Servers the gang spans: ``ceil(n / max_per_node)``."""
        return whole_ceiling(self.gang_width / self.max_per_node)

    @property
    def spot_yield(self) -> float:
        """Useful hours per paid spot hour inside the gang's servers."""
        return float(self.spot_efficiency**self.servers)

    def widest(self, cap: int | None = None) -> int:
        """Most GPUs a run may hold at the gang's yield: its servers' GPUs (and at most
        ``cap``), down to a multiple of the copy width."""
        widest = self.servers * self.max_per_node
        if cap is not None:
            widest = min(widest, cap)
        return widest - widest % self.copy_width

    def widths(self, cap: int | None = None) -> range:
        """GPUs the run may hold at once on spot, in steps of the copy width.

        On spot a run keeps the gang's yield (``spot_yield`` of its
        ``ceil(n / max_per_node)`` servers) only inside those servers, and an
        offer with ``max_units`` holds at most ``cap``: that bounds the widest. A
        run of ``R`` GPU-hours on ``w`` GPUs does ``w × yield`` useful GPU-hours an
        hour, so with a deadline the narrowest is the first multiple of the copy
        width, at least the gang's, with ``R <= deadline × w × yield``. Empty: no
        run finishes in time there, so the work stays off that offer.
        """
        k = self.copy_width
        narrowest = self.gang_width
        if self.deadline_hours is not None and self.run_gpu_hours > 0:
            per_gpu = self.deadline_hours * self.spot_yield
            in_time = whole_ceiling(self.run_gpu_hours / (k * per_gpu))
            narrowest = k * max(self.gang_width // k, in_time)
        return range(narrowest, self.widest(cap) + 1, k)

    def run_slot_widths(self, cap: int | None) -> range | None:
        """Widths of the *run slots* its runs take on a spot offer capped at ``cap``, or
        None where model v2 §C's copy-width slots hold as written.

        Elsewhere a run may be spread over all the slots of its copy width (it only
        finishes sooner). On spot a spread keeps the gang's yield only inside its
        servers, and a run needs ``widths().start`` GPUs at once to finish in time.
        Where that is more than one copy and either the offer is larger than the
        gang's servers or the run needs more copies at once than the gang has, the
        runs take run slots: groups of the copy width's slots, each holding one run
        at a time, of any width in ``widths`` (the plan picks how many of each).
        Otherwise (one copy, or an offer inside the gang's servers whose slots the
        gang's copies may share in turn) §C stands. An uncapped offer gives every
        run servers of its own (None).
        """
        if self.deadline_hours is None or cap is None:
            return None
        widths = self.widths(cap)
        if not widths or widths.start < 2 * self.copy_width:
            return None
        servers_gpus = self.servers * self.max_per_node
        return widths if cap > servers_gpus or widths.start > self.gang_width else None


def least_run_slot_gpus(paid_hours: float, widths: range, hours_per_month: float) -> int:
    """GPUs the fewest run slots of ``widths`` take to hold ``paid_hours`` in a month.

    Each run slot works the whole month (a spot offer is paid by the hour), so
    they need ``X >= paid_hours / hours_per_month`` GPUs in all, and ``X`` GPUs
    split into run slots of widths ``a..b`` (steps of the copy width) exactly
    when some count ``c`` of them has ``c × a <= X <= c × b``.
    """
    if paid_hours <= 0:
        return 0
    step, a, b = widths.step, widths.start, widths[-1]
    total = step * whole_ceiling(paid_hours / (hours_per_month * step))
    while True:
        slots = -(-total // b)  # fewest run slots that hold ``total`` GPUs
        if slots * a <= total:
            return total
        total += step
