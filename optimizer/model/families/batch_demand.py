"""Constraint family ``batch_demand``: batch inference meets its monthly tokens.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/batch_demand.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.domain import Kind
from optimizer.model.built import ELASTIC_DEMAND, BuiltModel, Terms, _pairs_of


def define_batch_demand_constraints(built: BuiltModel) -> None:
    """Batch inference processes its monthly tokens in every month of its window.

    ``batch_demand_w{w}_t{t}``:
        sum_g (work[w,g,t] + spot_efficiency * spot[w,g,t]) / gh[w,g] >= 1

    Elastic (``demand``): ``short[w,t]`` (share of the month's tokens) is
    added to the left, weighted 1 per month.
    """
    s = built.scenario
    e = s.assumptions.spot_efficiency
    wpos = built.workload_pos
    for w in s.workloads:
        if w.kind is not Kind.BATCH_INFERENCE:
            continue
        i = wpos[w.name]
        gpus = _pairs_of(built, w)
        for t in w.window(s.horizon_months):
            terms: Terms = []
            for g in gpus:
                inv = 1.0 / (built.estimates[(w.name, g)].gpu_hours or 1.0)
                terms += built.work_terms(w, g, t, inv)
                if (sv := built.spot_work.get((w.name, g, t))) is not None:
                    terms.append((sv, e * inv))
            short = built.add_shortfall(ELASTIC_DEMAND, ("batch", i, t), 1.0)
            if short is not None:
                terms.append((short, 1.0))
            built.add_row("batch_demand", (f"w{i}", f"t{t}"), terms, pulp.LpConstraintGE, 1.0)
