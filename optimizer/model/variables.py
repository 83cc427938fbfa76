"""The model's variables, only where they can be nonzero.

Takes a :class:`~optimizer.model.built.BuiltModel` holding its offers (no
variables yet) and the months in which some workload can use each GPU type (all
work / spot work); hands it back with ``buy``, ``owned``, ``reserve``, ``active``,
``rent``, ``use_own``, ``use_res``, ``work``, ``spot_work``, ``replicas`` and
``pick`` filled in. Why each exists where it does: see ``optimizer.model.build``.
"""

from __future__ import annotations

import pulp

from optimizer.domain import Kind, OfferOption, Workload
from optimizer.model.built import BuiltModel, _ceil
from optimizer.model.costs import reservation_months, spot_allowed
from optimizer.results import PairEstimate


def _define_variables(
    built: BuiltModel, active: dict[str, set[int]], spot_active: dict[str, set[int]]
) -> None:
    s = built.scenario
    T = s.horizon_months
    H = s.assumptions.hours_per_month
    prob = built.problem
    gpos, wpos, opos = built.gpu_pos, built.workload_pos, built.offer_pos
    last_active = {g: max(months) for g, months in active.items() if months}

    for o in built.offers:
        i = opos[o.offer_id]
        months = active[o.gpu]
        if o.option is OfferOption.BUY:
            # Buying after the type's last useful month only adds cost. The
            # stock level is the integer; max_units bounds it (accounting rule 7).
            for t in range(o.available_from, last_active[o.gpu] + 1):
                built.buy[(o.offer_id, t)] = prob.add_variable(
                    f"buy_o{i}_t{t}", lowBound=0, upBound=o.max_units
                )
                built.owned[(o.offer_id, t)] = prob.add_variable(
                    f"owned_o{i}_t{t}", lowBound=0, upBound=o.max_units, cat=pulp.LpInteger
                )
                built.last_buy_month[o.offer_id] = t
        elif o.option is OfferOption.RESERVED:
            term = o.term_months or 0
            for start in range(o.available_from, T - term + 2):
                if not any(m in months for m in reservation_months(o, start)):
                    continue
                built.reserve[(o.offer_id, start)] = prob.add_variable(
                    f"reserve_o{i}_s{start}", lowBound=0, upBound=o.max_units
                )
                for t in reservation_months(o, start):
                    if (o.offer_id, t) not in built.active:
                        built.active[(o.offer_id, t)] = prob.add_variable(
                            f"active_o{i}_t{t}", lowBound=0, upBound=o.max_units, cat=pulp.LpInteger
                        )
        else:
            use_months = spot_active[o.gpu] if o.option is OfferOption.SPOT else months
            cap = None if o.max_units is None else o.max_units * H  # accounting rule 7
            for t in sorted(use_months):
                if t >= o.available_from:
                    built.rent[(o.offer_id, t)] = prob.add_variable(
                        f"rent_o{i}_t{t}", lowBound=0, upBound=cap
                    )

    for g in s.gpus:
        j = gpos[g.name]
        for t in sorted(active.get(g.name, ())):
            if built.own_terms(g.name, t):
                built.use_own[(g.name, t)] = prob.add_variable(f"use_own_g{j}_t{t}", lowBound=0)
            if any(built.active_terms(o, t) for o in built.reserved_offers_of.get(g.name, ())):
                built.use_res[(g.name, t)] = prob.add_variable(f"use_res_g{j}_t{t}", lowBound=0)

    option = {o.offer_id: o for o in built.offers}
    spot_gpus = {
        option[oid].gpu for oid, _t in built.rent if option[oid].option is OfferOption.SPOT
    }
    for (w_name, g_name), _est in sorted(
        built.estimates.items(), key=lambda kv: (wpos[kv[0][0]], gpos[kv[0][1]])
    ):
        w = next(x for x in s.workloads if x.name == w_name)
        i, j = wpos[w_name], gpos[g_name]
        has_spot = spot_allowed(w) and g_name in spot_gpus
        for t in w.window(T):
            if w.kind is Kind.REALTIME_INFERENCE:
                built.replicas[(w_name, g_name, t)] = prob.add_variable(
                    f"replicas_w{i}_g{j}_t{t}",
                    lowBound=0,
                    upBound=_replicas_enough(w, _est),
                    cat=pulp.LpInteger,
                )
            else:
                built.work[(w_name, g_name, t)] = prob.add_variable(
                    f"work_w{i}_g{j}_t{t}", lowBound=0
                )
                if has_spot:
                    built.spot_work[(w_name, g_name, t)] = prob.add_variable(
                        f"spot_w{i}_g{j}_t{t}", lowBound=0
                    )
        if w.kind.is_training:
            built.pick[(w_name, g_name)] = prob.add_variable(
                f"pick_w{i}_g{j}", lowBound=0, upBound=1, cat=pulp.LpInteger
            )


def _replicas_enough(w: Workload, est: PairEstimate) -> int:
    """Replicas of one type that alone meet the demand: more only add hours and cost."""
    return _ceil((w.tokens_per_second or 0.0) / (est.tokens_per_second_per_replica or 1.0))
