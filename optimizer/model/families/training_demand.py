"""Constraint family ``training_demand``: each one-off training job completes on the one GPU type it picks.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/training_demand.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.model.built import ELASTIC_DEMAND, BuiltModel, Terms, _pairs_of


def define_training_demand_constraints(built: BuiltModel) -> None:
    """Each one-off training job (no ``runs_per_month``) completes on the one type it picks.

    ``training_demand_w{w}_g{g}``:
        sum_{p of g, t in window} y[p] * work[w,g,p,t] = R[w,g] * pick[w,g]
    ``training_demand_w{w}``:  sum_g pick[w,g] = 1

    ``y[p]`` is 1, or on spot ``spot_efficiency ** ceil(gang / max_per_node)``
    (a gang stalls when any of its servers is reclaimed). Work may move between
    places from month to month (model v2 §A). Elastic (``demand``):
    ``short[w,g]`` GPU-hours are added to the left of the first row, weighted 1
    per whole job.
    """
    s = built.scenario
    a = s.assumptions
    wpos, gpos = built.workload_pos, built.gpu_pos
    for w in s.workloads:
        if not w.one_off_training:
            continue
        i = wpos[w.name]
        picks: Terms = []
        for g in _pairs_of(built, w):
            fig = built.figures[(w.name, g)]
            spot_places = {p.key for p in built.places.get(g, []) if p.is_spot}
            terms: Terms = [
                (var, fig.spot_yield_in(s.gpu(g), a, t) if key in spot_places else 1.0)
                for key, t, var in built.work_of.get((w.name, g), [])
            ]
            pick = built.pick[(w.name, g)]
            terms.append((pick, -fig.run_gpu_hours))
            short = built.add_shortfall(
                ELASTIC_DEMAND, ("training", i, gpos[g]), 1.0 / fig.run_gpu_hours
            )
            if short is not None:
                terms.append((short, 1.0))
            built.add_row(
                "training_demand", (f"w{i}", f"g{gpos[g]}"), terms, pulp.LpConstraintEQ, 0.0
            )
            picks.append((pick, 1.0))
        built.add_row("training_demand", (f"w{i}",), picks, pulp.LpConstraintEQ, 1.0)
