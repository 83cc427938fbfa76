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
from optimizer.check.demand import FREE_CLASS, class_work, gangs, run_slots
from optimizer.check.tolerances import INTEGER_TOL, _h, hours_exceed
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

    On a capped spot offer larger than a deadline gang's servers (or where a
    run needs more copies at once there than its gang has), the gang's work
    runs in run slots of its own (``run_slots``: the fewest GPUs in run slots
    of the widths a run may take that hold its hours, one run each at a
    time); they come out of its copy width's slots, and the class's other
    work fits what is left.
    """
    found: list[str] = []
    a = scenario.assumptions
    H = a.hours_per_month
    offers = offers_by_id(scenario)
    derived = derived_hours(scenario, decisions)
    pair_gangs = gangs(scenario, estimates)
    work = class_work(scenario, decisions, pair_gangs)
    own = run_slots(scenario, decisions, pair_gangs)
    for gpu, place, t in sorted(finite_place_sizes(scenario, decisions)):
        kind = place_kind(offers, gpu, place)
        u = place_utilization(a, kind or "")
        slots = derived.slots.get((gpu, place, t), {})
        for k, hours in sorted(work.get((gpu, place, t), {}).items()):
            if k == FREE_CLASS:
                continue
            have = k * slots.get(k, 0.0)  # GPUs in the class's slots
            runs = own.get((gpu, place, t, k), [])
            set_aside = sum(r.gpus for r in runs)
            if set_aside > have + INTEGER_TOL:
                needs = " and ".join(
                    f"{r.workload} {r.gpus} GPUs in run slots of {_widths(r.widths)} GPUs "
                    f"({_h(r.hours)} h, one run each at a time)"
                    for r in runs
                )
                found.append(
                    f"slot_hours: {place_name(gpu, place)} month {t} class {k}: run slots "
                    f"of their own ({needs}) need {set_aside:g} GPUs, more than the "
                    f"{slots.get(k, 0.0):g} slots of width {k} hold ({have:g})"
                )
                continue
            rest = hours - sum(r.hours for r in runs)
            limit = u * H * (have - set_aside)
            if hours_exceed(rest, limit):
                gpus = f"{k} × {slots.get(k, 0.0):g} slots"
                if runs:
                    gpus = f"({gpus} − {set_aside:g} GPUs in run slots)"
                found.append(
                    f"slot_hours: {place_name(gpu, place)} month {t} class {k}: "
                    f"{_h(rest)} h of work, more than u {u:g} × {_h(H)} h × {gpus} = {_h(limit)} h"
                )
    return found


def _widths(widths: range) -> str:
    """``4`` or ``3 to 4`` (in steps of 2: ``4 to 8 by 2``)."""
    if len(widths) == 1:
        return str(widths.start)
    step = f" by {widths.step}" if widths.step > 1 else ""
    return f"{widths.start} to {widths[-1]}{step}"
