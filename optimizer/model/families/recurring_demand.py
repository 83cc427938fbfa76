"""Constraint family ``recurring_demand``: recurring runs and batch inference, every month.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/recurring_demand.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.domain import Kind
from optimizer.model.built import ELASTIC_DEMAND, BuiltModel, Terms, _pairs_of


def define_recurring_demand_constraints(built: BuiltModel) -> None:
    """Every month of the window does its runs (batch inference: one run a month).

    ``recurring_demand_w{w}_t{t}``:
        sum_{g, p of g} y[p] * work[w,g,p,t] / R[w,g] / runs_per_month[w] >= f[w,t]

    ``R[w,g]`` is the GPU-hours of one run on ``g`` (batch without
    ``runs_per_month``: of one month's tokens) and ``y[p]`` the useful share of
    a paid hour (see ``training_demand``). The month's runs may be split over
    types and places in any shares: the rate is an average (model v2 §C).
    Elastic (``demand``): ``short[w,t]`` (share of the month's runs) is added to
    the left, weighted 1 per month. ``f[w,t]`` is 1, except for batch work whose
    demand changes (model v2 §E): the month's demand over the base, so a month
    is that much more work: each run is larger (§C: a deadline gang is counted
    per month, ``PairFigures.copies_in``), and its useful share on spot follows
    that month's gang.
    """
    s = built.scenario
    a = s.assumptions
    wpos = built.workload_pos
    for w in s.workloads:
        if w.kind is Kind.REALTIME_INFERENCE or w.one_off_training:
            continue
        i = wpos[w.name]
        gpus = _pairs_of(built, w)
        runs = w.runs_per_month if w.runs_per_month is not None else 1.0
        for t in w.window(s.horizon_months):
            terms: Terms = []
            for g in gpus:
                fig = built.figures[(w.name, g)]
                spot = fig.spot_yield_in(s.gpu(g), a, t)
                for p in built.places.get(g, []):
                    if (var := built.work.get((w.name, g, p.key, t))) is not None:
                        y = spot if p.is_spot else 1.0
                        terms.append((var, y / fig.run_gpu_hours / runs))
            factor = w.demand_factor(t) if w.kind is Kind.BATCH_INFERENCE else 1.0
            short = built.add_shortfall(ELASTIC_DEMAND, ("batch", i, t), 1.0 / max(factor, 1e-9))
            if short is not None:
                terms.append((short, 1.0))
            built.add_row(
                "recurring_demand", (f"w{i}", f"t{t}"), terms, pulp.LpConstraintGE, factor
            )
