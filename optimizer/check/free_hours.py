"""Rule family ``free_hours`` (model v2 §C): width-1 work fits what is left outside every slot.

Takes a ``Scenario``, the plan's ``Decisions`` and the pair estimates; hands on a
violation line for every finite place and month whose width-1 work without
deadline slots needs more hours than its free GPUs outside the slots can give.
"""

from __future__ import annotations

from collections.abc import Sequence

from optimizer.check.capacity import (
    derived_hours,
    finite_place_sizes,
    offers_by_id,
    place_kind,
    place_name,
    place_utilization,
)
from optimizer.check.demand import FREE_CLASS, class_work, gangs
from optimizer.check.tolerances import _h, hours_exceed
from optimizer.domain import Scenario
from optimizer.results import Decisions, PairEstimate


def free_hours_violations(
    scenario: Scenario, decisions: Decisions, estimates: Sequence[PairEstimate]
) -> list[str]:
    """Per finite place ``p`` and month ``t``:
    ``sum work[w,p,t] over w with k_wg = 1, m_wg = 1 <= u_p × H × (N − pinned − sum_k k × slots[p,k,t])``.

    Where pinned GPUs and slots already exceed ``N`` (a ``place_capacity``
    violation) the free GPUs count as 0, so that rule alone reports it.
    """
    found: list[str] = []
    a = scenario.assumptions
    offers = offers_by_id(scenario)
    derived = derived_hours(scenario, decisions)
    work = class_work(scenario, decisions, gangs(scenario, estimates))
    for (gpu, place, t), size in sorted(finite_place_sizes(scenario, decisions).items()):
        hours = work.get((gpu, place, t), {}).get(FREE_CLASS, 0.0)
        if hours == 0.0:
            continue
        u = place_utilization(a, place_kind(offers, gpu, place) or "")
        pinned = derived.pinned.get((gpu, place, t), 0.0)
        in_slots = derived.slot_gpus(gpu, place, t)
        free = max(0.0, size - pinned - in_slots)
        limit = u * a.hours_per_month * free
        if hours_exceed(hours, limit):
            found.append(
                f"free_hours: {place_name(gpu, place)} month {t}: {_h(hours)} h of "
                f"width-1 work, more than u {u:g} × {_h(a.hours_per_month)} h × ({size:g} GPUs "
                f"− {pinned:g} pinned − {in_slots:g} in slots) = {_h(limit)} h"
            )
    return found
