"""The model's variables, only where they can be nonzero.

Takes a :class:`~optimizer.model.built.BuiltModel` holding its offers, places
and pair figures (no variables yet) and the months in which some workload can
use each GPU type; hands it back with the stock levels (``buy``, ``owned``,
``reserve``, ``active``), the work of each workload in each place (``work``,
``replicas``), the slots of finite places, deadline switches (``runs_in``),
rented hours (``rent``), ``pick``, and the serving moves (``moves``, only
where ``change_cost`` > 0). Why each exists where it does: see
``optimizer.model.build``.
"""

from __future__ import annotations

import pulp

from optimizer.domain import Kind, OfferOption
from optimizer.model.bounds import Useful, most_useful, replicas_enough
from optimizer.model.built import BuiltModel
from optimizer.model.costs import reservation_months, spot_allowed
from optimizer.model.places import Place


def _define_variables(built: BuiltModel, active: dict[str, set[int]]) -> None:
    most = most_useful(built)
    if not built.bound_levels_by_use:
        most = Useful({}, most.slots)  # slots are each future's own: still bounded
    _define_stock(built, active, most)
    _define_servers(built)
    _define_work(built)
    _define_slots(built, most)
    _define_rent(built)
    _define_moves(built)


def _at_most(cap: int | None, useful: int | None) -> int | None:
    """The tighter of an offer's ``max_units`` and what its GPUs can be used for."""
    if useful is None:
        return cap
    return useful if cap is None else min(cap, useful)


def _define_stock(built: BuiltModel, active: dict[str, set[int]], most: Useful) -> None:
    """Stock levels, bounded by ``max_units`` and by what one place can use (``bounds``)."""
    s = built.scenario
    T = s.horizon_months
    prob = built.problem
    opos = built.offer_pos
    last_active = {g: max(months) for g, months in active.items() if months}
    for o in built.offers:
        i = opos[o.offer_id]
        months = active[o.gpu]
        if o.option is OfferOption.BUY and (count := built.existing_count(o.offer_id)):
            # An owned Fleet row: never bought, its level starts at count and only
            # falls (sold). Kept to the type's last useful month (at least month 1:
            # a type nothing can use is sold, or kept at a cost, from the start).
            last = max(last_active.get(o.gpu, 0), 1)
            for t in range(1, last + 1):
                built.owned[(o.offer_id, t)] = prob.add_variable(
                    f"owned_o{i}_t{t}", lowBound=0, upBound=count, cat=pulp.LpInteger
                )
                if s.assumptions.sells:
                    built.sell[(o.offer_id, t)] = prob.add_variable(
                        f"sell_o{i}_t{t}", lowBound=0, upBound=count
                    )
            built.last_buy_month[o.offer_id] = last
        elif o.option is OfferOption.BUY:
            # Buying after the type's last useful month only adds cost. The
            # stock level is the integer; max_units bounds it (accounting rule 7),
            # and so do the GPUs the house can use (``bounds``).
            level_most = _at_most(o.max_units, most.gpus.get(o.gpu))
            for t in range(o.available_from, last_active[o.gpu] + 1):
                built.buy[(o.offer_id, t)] = prob.add_variable(
                    f"buy_o{i}_t{t}", lowBound=0, upBound=o.max_units
                )
                built.owned[(o.offer_id, t)] = prob.add_variable(
                    f"owned_o{i}_t{t}", lowBound=0, upBound=level_most, cat=pulp.LpInteger
                )
                if s.assumptions.sells and t > o.available_from:
                    # Whole because the levels are; sold at the start of the month.
                    built.sell[(o.offer_id, t)] = prob.add_variable(
                        f"sell_o{i}_t{t}", lowBound=0, upBound=o.max_units
                    )
                built.last_buy_month[o.offer_id] = t
        elif o.option is OfferOption.RESERVED and (count := built.existing_count(o.offer_id)):
            # An existing reservation (sheet Fleet): started before month 1, paid for
            # its months left inside the horizon, whether used or not.
            built.reserve[(o.offer_id, 1)] = prob.add_variable(
                f"reserve_o{i}_s1", lowBound=count, upBound=count
            )
            for t in reservation_months(o, 1):
                built.active[(o.offer_id, t)] = prob.add_variable(
                    f"active_o{i}_t{t}", lowBound=0, upBound=count, cat=pulp.LpInteger
                )
        elif o.option is OfferOption.RESERVED:
            term = o.term_months or 0
            useful = most.gpus.get(o.gpu)
            level_most = _at_most(o.max_units, None if useful is None else 2 * useful)
            for start in range(o.available_from, T - term + 2):
                if not any(m in months for m in reservation_months(o, start)):
                    continue
                built.reserve[(o.offer_id, start)] = prob.add_variable(
                    f"reserve_o{i}_s{start}", lowBound=0, upBound=o.max_units
                )
                for t in reservation_months(o, start):
                    if (o.offer_id, t) not in built.active:
                        built.active[(o.offer_id, t)] = prob.add_variable(
                            f"active_o{i}_t{t}", lowBound=0, upBound=level_most, cat=pulp.LpInteger
                        )


def _define_servers(built: BuiltModel) -> None:
    """Servers of each type whose servers cost or draw, in every month GPUs can be owned."""
    s = built.scenario
    gpos = built.gpu_pos
    gpu_of = {o.offer_id: o.gpu for o in built.offers}
    owned_months: dict[str, set[int]] = {}
    for oid, t in built.owned:
        owned_months.setdefault(gpu_of[oid], set()).add(t)
    for g in s.gpus:
        months = sorted(owned_months.get(g.name, ()))
        if not g.has_servers or not months:
            continue
        j = gpos[g.name]
        existing = built.existing_servers(g.name)  # come with Fleet rows in month 1
        for t in range(months[0], months[-1] + 1):
            built.servers[(g.name, t)] = built.problem.add_variable(
                f"servers_g{j}_t{t}", lowBound=0, cat=pulp.LpInteger
            )
            built.server_buy[(g.name, t)] = built.problem.add_variable(
                f"server_buy_g{j}_t{t}", lowBound=0
            )
            if s.assumptions.sells and (t > months[0] or existing):
                built.server_sell[(g.name, t)] = built.problem.add_variable(
                    f"server_sell_g{j}_t{t}", lowBound=0
                )
        built.last_server_month[g.name] = months[-1]


def place_open(built: BuiltModel, place: Place, month: int) -> bool:
    """The place can hold GPUs in ``month`` (bought, reserved, or offered by then)."""
    if place.is_house:
        return bool(built.own_terms(place.gpu, month))
    assert place.offer is not None
    if place.is_reserved:
        return bool(built.active_terms(place.offer, month))
    return month >= place.offer.available_from


def _define_work(built: BuiltModel) -> None:
    s = built.scenario
    prob = built.problem
    gpos, wpos = built.gpu_pos, built.workload_pos
    by_name = {w.name: w for w in s.workloads}
    for w_name, g_name in sorted(built.estimates, key=lambda p: (wpos[p[0]], gpos[p[1]])):
        w = by_name[w_name]
        i, j = wpos[w_name], gpos[g_name]
        est = built.estimates[(w_name, g_name)]
        places = built.places.get(g_name, [])
        if w.kind is Kind.REALTIME_INFERENCE:
            for t in w.window(s.horizon_months):
                for p in places:
                    if p.is_spot or not place_open(built, p, t):
                        continue  # spot never serves
                    for width in est.serving_widths():
                        if not p.holds(width.width):
                            continue
                        var = prob.add_variable(
                            f"rep_w{i}_g{j}_p{p.lp}_k{width.width}_t{t}",
                            lowBound=0,
                            upBound=replicas_enough(w, width, s.assumptions.target_load, t),
                            cat=pulp.LpInteger,
                        )
                        built.replicas[(w_name, g_name, p.key, width.width, t)] = var
                        built.replicas_at[(g_name, p.key, t)].append((var, width.width))
            continue
        fig = built.figures[(w_name, g_name)]
        for t in w.window(s.horizon_months):
            for p in places:
                if (p.is_spot and not spot_allowed(w)) or not place_open(built, p, t):
                    continue
                spot_run = fig.spot_run_in(w, s.gpu(g_name), s.assumptions, t)
                if p.is_spot and not spot_run.widths(built.spot_cap(p)):
                    continue  # its run would finish after the deadline (methodology 2.12)
                if p.finite and not p.holds(fig.gang_width_in(t)):
                    continue  # the gang never fits this place
                var = prob.add_variable(f"work_w{i}_g{j}_p{p.lp}_t{t}", lowBound=0)
                built.work[(w_name, g_name, p.key, t)] = var
                built.work_at[(g_name, p.key, t)][w_name] = var
                built.work_of[(w_name, g_name)].append((p.key, t, var))
                run_widths = built.run_slot_widths(w_name, p, t)
                if run_widths is not None:
                    # Run slots out of its copy width's slots (methodology 2.12), of
                    # each width the run may take; one of them holds a whole run, so
                    # no switch is needed.
                    assert p.most_gpus is not None  # a capped spot offer
                    built.run_slots[(w_name, g_name, p.key, t)] = {
                        r: prob.add_variable(
                            f"run_slots_w{i}_g{j}_p{p.lp}_r{r}_t{t}",
                            lowBound=0,
                            upBound=p.most_gpus // r,
                            cat=pulp.LpInteger,
                        )
                        for r in run_widths
                    }
                elif p.finite and fig.copies_in(t) >= 2:
                    built.runs_in[(w_name, g_name, p.key, t)] = prob.add_variable(
                        f"runs_in_w{i}_g{j}_p{p.lp}_t{t}", cat=pulp.LpBinary
                    )
        if w.one_off_training:
            built.pick[(w_name, g_name)] = prob.add_variable(
                f"pick_w{i}_g{j}", lowBound=0, upBound=1, cat=pulp.LpInteger
            )


def _define_slots(built: BuiltModel, most: Useful) -> None:
    """Slots of each copy width used in a finite place and month (model v2 §C).

    At most the place's size over the width, and the slots of that width one
    place of the type can use (``bounds``).
    """
    gpos = built.gpu_pos
    for (g_name, key, t), work in sorted(
        built.work_at.items(), key=lambda kv: (gpos[kv[0][0]], kv[0][1], kv[0][2])
    ):
        place = built.place(g_name, key)
        if not place.finite:
            continue
        widths = sorted(
            {k for w_name in work if (k := built.work_class(w_name, place, t)) is not None}
        )
        for k in widths:
            size = None if place.most_gpus is None else place.most_gpus // k
            # Run slots may need more of a spot offer's slots than ``bounds`` counts.
            useful = None if place.is_spot else most.slots.get((g_name, k))
            var = built.problem.add_variable(
                f"slots_g{gpos[g_name]}_p{place.lp}_k{k}_t{t}",
                lowBound=0,
                upBound=_at_most(size, useful),
                cat=pulp.LpInteger,
            )
            built.slots[(g_name, key, k, t)] = var
            built.slots_at[(g_name, key, t)].append((var, k))


def _define_rent(built: BuiltModel) -> None:
    """Paid hours of each rental offer in each month something can run there."""
    H = built.scenario.assumptions.hours_per_month
    opos = built.offer_pos
    used = {(key, t) for (_g, key, t) in built.work_at} | {
        (key, t) for (_g, key, t) in built.replicas_at
    }
    for o in built.offers:
        if o.option not in (OfferOption.ON_DEMAND, OfferOption.SPOT):
            continue
        cap = None if o.max_units is None else o.max_units * H
        for t in built.scenario.months:
            if (o.offer_id, t) in used:
                built.rent[(o.offer_id, t)] = built.problem.add_variable(
                    f"rent_o{opos[o.offer_id]}_t{t}", lowBound=0, upBound=cap
                )


def _define_moves(built: BuiltModel) -> None:
    """Replicas of each (workload, type, place, width) taken down at the start of a month.

    Only where ``change_cost`` > 0 (methodology 2.16): with 0 the model is
    exactly the cheapest-plan model. One continuous column per replica kind
    that serves in month ``t - 1`` of the workload's window when ``t`` is in
    it too; the ``moves`` rows hold it at or above the replicas that stop, and
    its cost keeps it there.
    """
    s = built.scenario
    if s.assumptions.change_cost <= 0 or not built.charge_moves:
        return
    gpos, wpos = built.gpu_pos, built.workload_pos
    window = {w.name: w.window(s.horizon_months) for w in s.workloads}
    for (w, g, key, k, t), _var in built.replicas.items():
        if t + 1 not in window[w]:
            continue
        lp = built.place(g, key).lp
        built.moves[(w, g, key, k, t + 1)] = built.problem.add_variable(
            f"move_w{wpos[w]}_g{gpos[g]}_p{lp}_k{k}_t{t + 1}", lowBound=0
        )
