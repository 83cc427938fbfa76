"""How many GPUs one run holds at once (model v2 §C), shared by the estimate, model and checker.

A copy of a job needs ``copy_width`` GPUs (its memory). A deadline may need
several copies at once (data parallel): ``copies_per_gang`` of them form the
gang. A gang on spot capacity stalls whenever any of its servers is
reclaimed, so each paid spot hour yields ``spot_yield`` hours of work.
"""

from __future__ import annotations

import math

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


def late_on_spot(
    run_gpu_hours: float,
    gang_width: int,
    deadline_hours: float | None,
    spot_efficiency: float,
    max_per_node: int,
) -> bool:
    """Whether a run on spot misses its deadline: ``R > deadline × n × spot_yield(n)``.

    The gang width counts useful hours (model v2 §C); on spot only the yield's
    share of each wall-clock hour is useful, so a run of ``R`` GPU-hours on
    ``n`` GPUs takes ``R / (n × yield)`` hours. Such a run does not go on spot:
    it would finish after its deadline (docs/methodology.md §2.12).
    """
    if deadline_hours is None or run_gpu_hours <= 0:
        return False
    useful_per_hour = gang_width * spot_yield(spot_efficiency, gang_width, max_per_node)
    return run_gpu_hours > deadline_hours * useful_per_hour * (1 + _NOISE)


def spot_slot_width(copy_width: int, copies: int, max_per_node: int, cap: int) -> int | None:
    """GPUs of a *run slot* of a deadline gang on a spot offer capped at ``cap`` GPUs,
    or None where model v2 §C's copy-width slots hold as written.

    Elsewhere a run may be spread over all the slots of its copy width (it only
    finishes sooner); on spot that keeps the gang's yield only inside the
    ``ceil(n / max_per_node)`` servers the gang already spans. Where the whole
    offer fits in those servers (``cap <= servers × max_per_node``) any spread
    does, and §C's rule stands. Otherwise the gang's runs take run slots: groups
    of its copy width's slots, each holding one run at a time, of the narrowest
    width from the gang's ``n`` up to the widest multiple of ``copy_width`` in
    its servers whose run slots cover the most of ``cap`` (wider than ``n``
    only where ``n`` leaves GPUs idle). A gang of one copy never spreads (None).
    """
    if copies < 2:
        return None
    gang = copy_width * copies
    reach = whole_ceiling(gang / max_per_node) * max_per_node
    if cap <= reach:
        return None
    best, covered = gang, (cap // gang) * gang
    for width in range(gang + copy_width, reach - reach % copy_width + 1, copy_width):
        if (cap // width) * width > covered:
            best, covered = width, (cap // width) * width
    return best
