"""Constraint family ``pool_balance``: GPU-hours pooled per type and month meet the work.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/pool_balance.lp``.
"""

from __future__ import annotations

from collections import defaultdict

import pulp

from optimizer.domain import OfferOption
from optimizer.model.built import BuiltModel, Terms, _pairs_of


def define_pool_balance_constraints(built: BuiltModel) -> None:
    """GPU-hours are pooled per type and month (accounting rule 5).

    ``pool_balance_g{g}_t{t}``:
        sum_w work[w,g,t] - use_own[g,t] - use_res[g,t] - sum_{on-demand o} rent[o,t] = 0
        (realtime work is ``replicas * k * H``)
    ``pool_balance_spot_g{g}_t{t}``:
        sum_w spot[w,g,t] - sum_{spot o} rent[o,t] = 0

    Rented hours are capped by variable bounds ``rent[o,t] <= max_units * H``.
    """
    s = built.scenario
    gpos = built.gpu_pos
    work: dict[tuple[str, int], Terms] = defaultdict(list)
    spot: dict[tuple[str, int], Terms] = defaultdict(list)
    for w in s.workloads:
        for g in _pairs_of(built, w):
            for t in w.window(s.horizon_months):
                work[(g, t)] += built.work_terms(w, g, t)
                if (sv := built.spot_work.get((w.name, g, t))) is not None:
                    spot[(g, t)].append((sv, 1.0))
    option = {o.offer_id: o for o in built.offers}
    for (oid, t), var in built.rent.items():
        o = option[oid]
        (spot if o.option is OfferOption.SPOT else work)[(o.gpu, t)].append((var, -1.0))
    for key, var in built.use_own.items():
        work[key].append((var, -1.0))
    for key, var in built.use_res.items():
        work[key].append((var, -1.0))
    for gpu in s.gpus:
        j = gpos[gpu.name]
        for t in s.months:
            if work.get((gpu.name, t)):
                built.add_row(
                    "pool_balance",
                    (f"g{j}", f"t{t}"),
                    work[(gpu.name, t)],
                    pulp.LpConstraintEQ,
                    0.0,
                )
            if spot.get((gpu.name, t)):
                built.add_row(
                    "pool_balance",
                    ("spot", f"g{j}", f"t{t}"),
                    spot[(gpu.name, t)],
                    pulp.LpConstraintEQ,
                    0.0,
                )
