"""Constraint family ``training_demand``: each training job completes on the one GPU type it picks.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/training_demand.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.model.built import ELASTIC_DEMAND, BuiltModel, Terms, _pairs_of


def define_training_demand_constraints(built: BuiltModel) -> None:
    """Each training job completes on the one GPU type it picks.

    ``training_demand_w{w}_g{g}``:
        sum_{t in window} (work[w,g,t] + spot_efficiency * spot[w,g,t]) = gh[w,g] * pick[w,g]
    ``training_demand_w{w}``:  sum_g pick[w,g] = 1

    Elastic (``demand``): ``short[w,g]`` GPU-hours are added to the left of
    the first row, weighted 1 per whole job.
    """
    s = built.scenario
    e = s.assumptions.spot_efficiency
    wpos, gpos = built.workload_pos, built.gpu_pos
    for w in s.workloads:
        if not w.kind.is_training:
            continue
        i = wpos[w.name]
        picks: Terms = []
        for g in _pairs_of(built, w):
            gh = built.estimates[(w.name, g)].gpu_hours or 0.0
            terms: Terms = []
            for t in w.window(s.horizon_months):
                terms += built.work_terms(w, g, t)
                if (sv := built.spot_work.get((w.name, g, t))) is not None:
                    terms.append((sv, e))
            pick = built.pick[(w.name, g)]
            terms.append((pick, -gh))
            short = built.add_shortfall(ELASTIC_DEMAND, ("training", i, gpos[g]), 1.0 / gh)
            if short is not None:
                terms.append((short, 1.0))
            built.add_row(
                "training_demand", (f"w{i}", f"g{gpos[g]}"), terms, pulp.LpConstraintEQ, 0.0
            )
            picks.append((pick, 1.0))
        built.add_row("training_demand", (f"w{i}",), picks, pulp.LpConstraintEQ, 1.0)
