"""Rule family ``deadline_slots`` (model v2 §C): a deadline gang runs only with all its copies.

Takes a ``Scenario``, the plan's ``Decisions`` and the pair estimates; hands on a
violation line for every deadline workload that works in a finite place in a
month with fewer slots of its copy width than copies in its gang (less the run
slots other gangs of its class hold on a capped spot offer; a gang in run slots
of its own is checked by ``slot_hours``).
"""

from __future__ import annotations

from collections.abc import Sequence

from optimizer.check.capacity import derived_hours, is_finite, offers_by_id, place_name
from optimizer.check.demand import gangs, run_slot_widths_at, run_slots
from optimizer.check.tolerances import HOURS_ABS_TOL, INTEGER_TOL, _h
from optimizer.domain import Scenario
from optimizer.results import Decisions, PairEstimate


def deadline_slots_violations(
    scenario: Scenario, decisions: Decisions, estimates: Sequence[PairEstimate]
) -> list[str]:
    """``work[w,p,t] > 0 => slots[p,k_wg,t] >= m_wg`` in every finite place, where ``m_wg >= 2``.

    ``m_wgt = copies_per_gang(R_wgt, k_wg, deadline_hours)`` (a batch run's size follows
    its month's demand). Where ``m_wg = 1``
    and ``k_wg >= 2``, ``slot_hours`` already needs a slot for any work.
    """
    found: list[str] = []
    offers = offers_by_id(scenario)
    derived = derived_hours(scenario, decisions)
    pair_gangs = gangs(scenario, estimates)
    own = run_slots(scenario, decisions, pair_gangs)
    workloads = {w.name: w for w in scenario.workloads}
    for (name, gpu, place, t), hours in sorted(decisions.work.items()):
        gang = pair_gangs.get((name, gpu, t))
        if gang is None or gang.copies < 2 or hours <= HOURS_ABS_TOL:
            continue
        if not is_finite(offers, gpu, place):
            continue
        if run_slot_widths_at(scenario, workloads[name], gang, gpu, place, t) is not None:
            continue  # in run slots of its own: ``slot_hours`` checks them
        k = gang.copy_width
        theirs = sum(r.gpus for r in own.get((gpu, place, t, k), []))
        have = derived.slots.get((gpu, place, t), {}).get(k, 0.0) - theirs / k
        if have < gang.copies - INTEGER_TOL:
            beside = f" beside other gangs' run slots of {theirs:g} GPUs" if theirs else ""
            found.append(
                f"deadline_slots: {name} works {_h(hours)} h in {place_name(gpu, place)} "
                f"month {t}, but its gang of {gang.copies} copies × {k} GPUs needs "
                f"{gang.copies} slots of width {k} there{beside}; the place has {have:g}"
            )
    return found
