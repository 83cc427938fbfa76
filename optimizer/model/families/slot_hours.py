"""Constraint family ``slot_hours``: gang work of each copy width fits the slots set aside for it.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/slot_hours.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.model.built import BuiltModel, Terms


def define_slot_hours_constraints(built: BuiltModel) -> None:
    """Work of copy width ``k`` in a finite place is time-shared across its slots.

    ``slot_hours_g{g}_p{p}_k{k}_t{t}`` (model v2 §C):
        sum_{w: k_w = k} work[w,g,p,t] - u_p * H * k * slots[g,p,k,t] <= 0

    A slot of width ``k`` holds ``k`` whole GPUs of the place for the month,
    so a gang of that width can always be laid out in it (a wrap-around
    schedule exists within a class). Width-1 slots exist only for work whose
    deadline needs several 1-GPU copies at once, and hold only that work.
    ``u_p`` is ``max_utilization`` in the house and reserved places, 1 on
    rental offers.

    On a capped spot offer larger than the servers a deadline gang spans, a run
    spread over all its class's slots would span more servers and yield less
    (methodology 2.12); there, and where a run needs more copies at once on spot
    than its gang has, the gang's work runs in whole *run slots* of ``r`` GPUs
    for each width ``r`` a run may take (``gangs.run_slot_widths``), one run per
    run slot at a time, set aside from its copy width's slots for it alone:

    ``slot_hours_run_w{w}_g{g}_p{p}_t{t}``:
        work[w,g,p,t] - sum_r u_p * H * r * run_slots[w,g,p,r,t] <= 0

    and the class's other work uses the rest of its slots (the ``+`` term below
    also keeps the run slots within them):

        ... + u_p * H * sum r * run_slots[.,g,p,t] - u_p * H * k * slots[g,p,k,t] <= 0
    """
    a = built.scenario.assumptions
    H = a.hours_per_month
    gpos = built.gpu_pos
    for (g, key, k, t), slots in built.slots.items():
        place = built.place(g, key)
        room = place.utilization(a) * H
        terms: Terms = [
            (var, 1.0)
            for w_name, var in built.place_work(place, t).items()
            if built.work_class(w_name, place, t) == k
            and (w_name, g, key, t) not in built.run_slots
        ]
        terms += built.run_slot_terms(place, k, t, room)
        terms.append((slots, -room * k))
        built.add_row(
            "slot_hours",
            (f"g{gpos[g]}", f"p{place.lp}", f"k{k}", f"t{t}"),
            terms,
            pulp.LpConstraintLE,
            0.0,
        )
    wpos = built.workload_pos
    for (w_name, g, key, t), by_width in built.run_slots.items():
        place = built.place(g, key)
        room = place.utilization(a) * H
        built.add_row(
            "slot_hours",
            ("run", f"w{wpos[w_name]}", f"g{gpos[g]}", f"p{place.lp}", f"t{t}"),
            [(built.work[(w_name, g, key, t)], 1.0)]
            + [(var, -room * r) for r, var in by_width.items()],
            pulp.LpConstraintLE,
            0.0,
        )
