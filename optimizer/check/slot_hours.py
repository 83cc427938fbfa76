"""Rule family ``slot_hours`` (model v2 §C): gang work fits the slots set aside for it.

Takes a ``Scenario``, the plan's ``Decisions`` and the pair estimates; hands on a
violation line for every finite place, month and slot class whose work needs
more hours than its slots can give.
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


def slot_hours_violations(
    scenario: Scenario, decisions: Decisions, estimates: Sequence[PairEstimate]
) -> list[str]:
    """Per finite place ``p``, month ``t`` and class ``k``:
    ``sum work[w,p,t] over w of class k <= u_p × H × k × slots[p,k,t]``.

    Class ``k >= 2`` holds every workload of copy width ``k`` on the type;
    class 1 holds width-1 work whose deadline needs ``copies_per_gang >= 2``
    copies at once. ``u_p`` is ``max_utilization`` in the house and reserved
    places, 1 on rental offers.
    """
    found: list[str] = []
    a = scenario.assumptions
    offers = offers_by_id(scenario)
    derived = derived_hours(scenario, decisions)
    work = class_work(decisions, gangs(scenario, estimates))
    for gpu, place, t in sorted(finite_place_sizes(scenario, decisions)):
        kind = place_kind(offers, gpu, place)
        u = place_utilization(a, kind or "")
        slots = derived.slots.get((gpu, place, t), {})
        for k, hours in sorted(work.get((gpu, place, t), {}).items()):
            if k == FREE_CLASS:
                continue
            limit = u * a.hours_per_month * k * slots.get(k, 0.0)
            if hours_exceed(hours, limit):
                found.append(
                    f"slot_hours: {place_name(gpu, place)} month {t} class {k}: "
                    f"{_h(hours)} h of work, more than u {u:g} × {_h(a.hours_per_month)} h × {k} "
                    f"× {slots.get(k, 0.0):g} slots = {_h(limit)} h"
                )
    return found
