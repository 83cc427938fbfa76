"""Constraint family ``deadline_slots``: a deadline gang holds all its copies at once.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/deadline_slots.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.domain import Kind
from optimizer.model.built import BuiltModel


def define_deadline_slots_constraints(built: BuiltModel) -> None:
    """Work of a gang of ``m >= 2`` copies in a finite place needs ``m`` slots there.

    ``deadline_slots_w{w}_g{g}_p{p}_t{t}`` (model v2 §C):
        work[w,g,p,t] - M * runs_in[w,g,p,t] <= 0
    ``deadline_slots_slots_w{w}_g{g}_p{p}_t{t}``:
        m * runs_in[w,g,p,t] - slots[g,p,k,t] + sum (r / k) * run_slots[.,g,p,t] <= 0

    (the run slots of other gangs of the class on a capped spot offer are theirs
    alone, ``slot_hours``).

    ``runs_in`` is binary (the only one of the deadline rules), and ``M`` the
    paid hours of the month's whole need in that place (one-off: the job;
    recurring: the month's runs), so no plan that does not overshoot its need
    is cut off. A gang of one copy needs no binary: ``slot_hours`` already
    asks for a slot wherever its work runs; nor does a gang in run slots.
    """
    s = built.scenario
    a = s.assumptions
    wpos, gpos = built.workload_pos, built.gpu_pos
    by_name = {w.name: w for w in s.workloads}
    for (w_name, g, key, t), switch in built.runs_in.items():
        place = built.place(g, key)
        fig = built.figures[(w_name, g)]
        w = by_name[w_name]
        runs = 1.0 if w.one_off_training else fig.runs_per_month
        if w.kind is Kind.BATCH_INFERENCE:
            runs *= w.demand_factor(t)  # model v2 §E: the month's demand
        yield_ = fig.spot_yield_in(s.gpu(g), a, t) if place.is_spot else 1.0
        most = runs * fig.run_gpu_hours / yield_
        pos = (f"w{wpos[w_name]}", f"g{gpos[g]}", f"p{place.lp}", f"t{t}")
        work = built.work[(w_name, g, key, t)]
        built.add_row(
            "deadline_slots", pos, [(work, 1.0), (switch, -most)], pulp.LpConstraintLE, 0.0
        )
        slots = built.slots[(g, key, fig.copy_width, t)]
        # Run slots of other gangs in the class (capped spot) are theirs alone.
        theirs = built.run_slot_terms(place, fig.copy_width, t, 1.0 / fig.copy_width)
        built.add_row(
            "deadline_slots",
            ("slots", *pos),
            [(switch, float(fig.copies_in(t))), (slots, -1.0), *theirs],
            pulp.LpConstraintLE,
            0.0,
        )
