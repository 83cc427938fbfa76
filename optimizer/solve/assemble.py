"""Plan assembly: from a solved model to a complete ``results.Plan``.

Takes the solved :class:`~optimizer.model.built.BuiltModel`, its
:class:`~optimizer.solve.adapters.SolverRun` and ``results.SolverInfo``; hands on
the plan: its ``Decisions`` (rounded variable values), its money
(:func:`money_of`, with the cost formulas of ``optimizer.model.costs``), fleet,
assignments with their share of the cost, offer use and diagnostics.
"""

from __future__ import annotations

from collections import defaultdict

import pulp

from optimizer.currency import money_text
from optimizer.domain import Kind, Offer, OfferOption, Scenario
from optimizer.estimate.gangs import copies_per_gang, spot_yield
from optimizer.model.built import BuiltModel
from optimizer.results import (
    HOUSE,
    AssignmentRow,
    CashFlowMonth,
    Decisions,
    FleetRow,
    OfferUse,
    PairEstimate,
    PlaceRow,
    Plan,
    SolverInfo,
    SolverSettings,
    SolveStatus,
)
from optimizer.solve.adapters import PROOF_TOLERANCE_USD, SolverRun
from optimizer.solve.moves import plan_moves
from optimizer.solve.plan_money import (
    Money,
    existing_values,
    money_of,
    offer_stock,
    type_month_costs,
)
from optimizer.solve.slot_trim import fewest_slots
from optimizer.solve.spot_caveats import spot_caveats
from optimizer.solve.usage import Usage

# Hours within this of zero are solver noise (HiGHS's feasibility tolerance is 1e-7).
HOURS_NOISE = 1e-6


def _value(var: pulp.LpVariable) -> float:
    v = var.varValue
    return 0.0 if v is None else float(v)


def _whole(var: pulp.LpVariable) -> int:
    return round(_value(var))


def _hours(var: pulp.LpVariable) -> float:
    v = _value(var)
    return 0.0 if abs(v) < HOURS_NOISE else max(v, 0.0)


def read_decisions(built: BuiltModel) -> Decisions:
    """The plan's decisions from the variable values: integers to int, noise to 0.

    Only nonzero entries are kept (a missing key means zero). Slots are kept
    only where work of their width runs in that place and month (an empty
    slot sets nothing aside that matters), and no more of them than that work
    needs (``slot_trim``).
    """
    purchases = {k: n for k, v in built.buy.items() if (n := _whole(v))}
    sales = {k: n for k, v in built.sell.items() if (n := _whole(v))}
    server_purchases = {k: n for k, v in built.server_buy.items() if (n := _whole(v))}
    server_sales = {k: n for k, v in built.server_sell.items() if (n := _whole(v))}
    T = built.scenario.horizon_months
    if built.scenario.assumptions.sells:
        # What is left after the type's last useful month is sold in the month after.
        for oid, last in built.last_buy_month.items():
            if last < T and (n := _whole(built.owned[(oid, last)])):
                sales[(oid, last + 1)] = n
        for g, last in built.last_server_month.items():
            if last < T and (n := _whole(built.servers[(g, last)])):
                server_sales[(g, last + 1)] = n
    reservations = {k: n for k, v in built.reserve.items() if (n := _whole(v))}
    replicas = {k: n for k, v in built.replicas.items() if (n := _whole(v))}
    work = {k: h for k, v in built.work.items() if (h := _hours(v))}
    widths_used = {
        (g, key, built.work_class(w, built.place(g, key), t), t) for (w, g, key, t) in work
    }
    slots = {k: n for k, v in built.slots.items() if (n := _whole(v)) and k in widths_used}
    slots = fewest_slots(built, work, slots)
    picks = {w: g for (w, g), v in built.pick.items() if _whole(v) == 1}
    return Decisions(
        purchases=purchases,
        sales=sales,
        server_purchases=server_purchases,
        server_sales=server_sales,
        reservations=reservations,
        replicas=replicas,
        work=work,
        slots=slots,
        picks=picks,
    )


def _plan_from_solution(
    built: BuiltModel,
    run: SolverRun,
    options: tuple[PairEstimate, ...],
    info: SolverInfo,
    settings: SolverSettings,
) -> Plan:
    s = built.scenario
    d = read_decisions(built)
    money = money_of(s, d)
    diagnostics: list[str] = []
    # HiGHS's gap is (plan - bound) / plan: no plan can cost less than the bound.
    # With change_cost > 0 both are of what was minimised: cost plus the charge
    # per move (methodology 2.16), which the words say.
    currency = s.assumptions.currency
    what = searched_for(s)
    floor = (
        f"; {no_plan_below(s)} {money_text(run.bound, currency)}" if run.bound is not None else ""
    )
    if run.status is SolveStatus.TIME_LIMIT:
        gap_text = f"{run.gap:.3%}" if run.gap is not None else "unknown"
        diagnostics.append(f"{run.message}: proven gap {gap_text} of the plan's {what}{floor}")
    elif (
        run.gap is not None
        and money.total_cost is not None
        and run.gap * abs(money.total_cost) > PROOF_TOLERANCE_USD
    ):
        diagnostics.append(
            f"optimal within the gap tolerance {settings.gap:g}: proven gap {run.gap:.4%} "
            f"of the plan's {what}{floor}"
        )
    diagnostics += owed_after_horizon(s)
    diagnostics += spot_caveats(s, d)
    assignments, idle = _assignments(s, d, money, built.estimates)
    if idle > 0.005:
        diagnostics.append(
            f"{money_text(idle, currency)} of idle capacity is not allocated to any workload"
        )
    return Plan(
        scenario=s,
        status=run.status,
        gap=0.0 if run.status is SolveStatus.OPTIMAL else run.gap,
        total_cost=money.total_cost,
        cash_out=money.cash_out,
        residual_credit=money.residual_credit,
        costs=money.costs,
        cash_flow=tuple(CashFlowMonth(t, money.cash[t]) for t in s.months),
        fleet=_fleet(s, d, money),
        places=place_rows(s, d, money),
        assignments=assignments,
        options=options,
        diagnostics=tuple(diagnostics),
        decisions=d,
        solver=info,
        offer_use=_offer_use(s, d, money.usage),
        residual_credit_discounted=money.residual_credit_discounted,
        existing_value=sum(v for part in existing_values(s) for v in part.values()),
        moves=plan_moves(s, d),
    )


def searched_for(s: Scenario) -> str:
    """What the search minimised, in words: the cost, or with ``change_cost`` its charge too."""
    a = s.assumptions
    if a.change_cost <= 0:
        return "cost"
    return f"cost plus {money_text(a.change_cost, a.currency)} a move (change_cost)"


def no_plan_below(s: Scenario) -> str:
    """The words before a proven bound: what no plan can go below."""
    if s.assumptions.change_cost <= 0:
        return "no plan can cost less than"
    return f"no plan's {searched_for(s)} is below"


def owed_after_horizon(s: Scenario) -> list[str]:
    """A line for each existing reservation that runs past the horizon (model v2 §E):
    the plan pays its months inside the horizon; the rest is owed all the same."""
    H = s.assumptions.hours_per_month
    T = s.horizon_months
    currency = s.assumptions.currency
    lines = []
    for r in s.fleet:
        owed = r.owed_after(T, H)
        if owed > 0 and r.months_left is not None:
            lines.append(
                f"the existing reservation {r.label or r.source_id} ({r.count} {r.gpu} at "
                f"{money_text(r.price, currency)} per GPU-hour) has {r.months_left - T} months "
                f"left after month {T}: {money_text(owed, currency)} still owed after the "
                "horizon, not in this plan's cost"
            )
    return lines


def _fleet(s: Scenario, d: Decisions, money: Money) -> tuple[FleetRow, ...]:
    H = s.assumptions.hours_per_month
    offers = {o.offer_id: o for o in s.all_offers}
    existing: dict[tuple[str, int], int] = defaultdict(int)  # Fleet rows still owned
    for (oid, t), n in offer_stock(s, d).items():
        if s.existing(oid) is not None:
            existing[(offers[oid].gpu, t)] += n
    use = money.usage
    bought: dict[tuple[str, int], int] = defaultdict(int)
    for (oid, t), n in d.purchases.items():
        bought[(offers[oid].gpu, t)] += n
    sold: dict[tuple[str, int], int] = defaultdict(int)
    for (oid, t), n in d.sales.items():
        sold[(offers[oid].gpu, t)] += n
    reserved: dict[tuple[str, int], int] = defaultdict(int)
    for (oid, t), n in money.active_reserved.items():
        reserved[(offers[oid].gpu, t)] += n
    rented: dict[tuple[str, int], float] = defaultdict(float)
    spot: dict[tuple[str, int], float] = defaultdict(float)
    for (oid, t), hours in use.rented_hours.items():
        o = offers[oid]
        (spot if o.option is OfferOption.SPOT else rented)[(o.gpu, t)] += hours
    rows = []
    for g in s.gpus:
        for t in s.months:
            key = (g.name, t)
            n = money.owned.get(key, 0)
            used = use.house_hours.get(key, 0.0)
            rows.append(
                FleetRow(
                    gpu=g.name,
                    month=t,
                    bought=bought.get(key, 0),
                    owned=n,
                    existing=existing.get(key, 0),
                    sold=sold.get(key, 0),
                    servers=money.servers.get(key, 0),
                    reserved=reserved.get(key, 0),
                    rented_hours=rented.get(key, 0.0),
                    spot_hours=spot.get(key, 0.0),
                    owned_utilization=used / (H * n) if n else None,
                )
            )
    return tuple(rows)


def offer_label(offer: Offer, s: Scenario) -> str:
    """How results name an offer: its provider, else ``<gpu> <option> row <n>`` (model v2 §F).

    A provider with two offers of one type and option (reservations of two
    terms, say) names each with its row, ``marketplace (row 15)``: a place or
    assignment row must say which offer, and so which term and price, it uses.
    """
    if not offer.provider:
        return f"{offer.gpu} {offer.option.value} row {offer.row}"
    twins = sum(
        o.gpu == offer.gpu and o.option is offer.option and o.provider == offer.provider
        for o in s.all_offers
    )
    if twins < 2:
        return offer.provider
    return (
        f"{offer.provider} (row {offer.row})"
        if offer.row
        else f"{offer.provider} ({offer.offer_id})"
    )


def place_rows(s: Scenario, d: Decisions, money: Money) -> tuple[PlaceRow, ...]:
    """Every finite place in every month it holds GPUs (capped rental: months it is used)."""
    use = money.usage
    slots: dict[tuple[str, str, int], dict[int, int]] = defaultdict(dict)
    for (gpu, key, width, t), n in d.slots.items():
        slots[(gpu, key, t)][width] = n
    rows: list[PlaceRow] = []
    for g in s.gpus:
        sizes: list[tuple[str, Offer | None, dict[int, int]]] = []
        if any(o.gpu == g.name and o.option is OfferOption.BUY for o in s.all_offers):
            sizes.append((HOUSE, None, {t: money.owned.get((g.name, t), 0) for t in s.months}))
        for o in (o for o in s.all_offers if o.gpu == g.name):
            if o.option is OfferOption.RESERVED:
                size = {t: money.active_reserved.get((o.offer_id, t), 0) for t in s.months}
                sizes.append((o.offer_id, o, size))
            elif o.option is not OfferOption.BUY and o.max_units is not None:
                used = {
                    t
                    for t in s.months
                    if (g.name, o.offer_id, t) in use.pinned
                    or (g.name, o.offer_id, t) in use.work_hours
                    or (g.name, o.offer_id, t) in use.slot_gpus
                }
                sizes.append((o.offer_id, o, {t: o.max_units for t in used}))
        for key, offer, size in sizes:
            for t in s.months:
                n = size.get(t, 0)
                if n <= 0:
                    continue
                pinned = use.pinned.get((g.name, key, t), 0)
                rows.append(
                    PlaceRow(
                        gpu=g.name,
                        month=t,
                        place=HOUSE if offer is None else offer.option.value,
                        offer=None if offer is None else offer_label(offer, s),
                        size=n,
                        pinned=pinned,
                        free=n - pinned,
                        slots=dict(sorted(slots.get((g.name, key, t), {}).items())),
                    )
                )
    return tuple(rows)


def _assignments(
    s: Scenario,
    d: Decisions,
    money: Money,
    estimates: dict[tuple[str, str], PairEstimate],
) -> tuple[tuple[AssignmentRow, ...], float]:
    """One row per workload, GPU type, month and place (and width for serving).

    Each row's cost is its share of the type-month's cost by paid GPU-hours
    (spot hours share the spot cost). Returns the rows and the cost of
    type-months with no work at all (idle capacity, reported as a diagnostic).
    """
    a = s.assumptions
    H = a.hours_per_month
    offers = {o.offer_id: o for o in s.all_offers}
    paid, spot_cost = type_month_costs(s, d, money)
    # (workload, gpu, place, width, month) -> (paid hours, replicas); width 0 for gang work
    entries: dict[tuple[str, str, str, int, int], tuple[float, int | None]] = {}
    for (w, g, key, width, t), count in d.replicas.items():
        entries[(w, g, key, width, t)] = (count * width * H, count)
    for (w, g, key, t), hours in d.work.items():
        entries[(w, g, key, 0, t)] = (hours, None)
    hours_of: dict[tuple[str, int], float] = defaultdict(float)
    spot_of: dict[tuple[str, int], float] = defaultdict(float)
    for (_w, g, key, _k, t), (hours, _n) in entries.items():
        is_spot = key in offers and offers[key].option is OfferOption.SPOT
        (spot_of if is_spot else hours_of)[(g, t)] += hours
    capacity: dict[tuple[str, int], float] = defaultdict(float)  # realtime tokens/s
    caps = {
        (e.workload, e.gpu, sw.width): sw.tokens_per_second_per_replica or 0.0
        for e in estimates.values()
        for sw in e.serving_widths()
    }
    for (w, g, _key, width, t), count in d.replicas.items():
        capacity[(w, t)] += count * caps.get((w, g, width), 0.0)
    workloads = {w.name: w for w in s.workloads}
    order = {w.name: i for i, w in enumerate(s.workloads)}
    gorder = {g.name: i for i, g in enumerate(s.gpus)}
    porder = {o.offer_id: i + 1 for i, o in enumerate(s.all_offers)}
    rows = []
    for (w, g, key, width, t), (hours, n) in sorted(
        entries.items(),
        key=lambda kv: (
            order[kv[0][0]],
            kv[0][4],
            gorder[kv[0][1]],
            porder.get(kv[0][2], 0),
            kv[0][3],
        ),
    ):
        offer = offers.get(key)
        is_spot = offer is not None and offer.option is OfferOption.SPOT
        pool, pool_hours = (spot_cost, spot_of) if is_spot else (paid, hours_of)
        cost = pool.get((g, t), 0.0) * hours / pool_hours[(g, t)] if pool_hours[(g, t)] else 0.0
        est = estimates[(w, g)]
        workload = workloads[w]
        tokens: float | None = None
        load: float | None = None
        if n is not None:  # serving
            copy_width = gang = width
            total = capacity[(w, t)]
            demand = workload.demand_in(t)
            load = demand / total if total > 0 else None
            if total > 0:
                tokens = demand * 3600.0 * H * n * caps.get((w, g, width), 0.0) / total
        else:
            fig_k = est.gpus_per_replica or 1
            copy_width = fig_k
            run = est.gpu_hours or 0.0
            if workload.kind is Kind.BATCH_INFERENCE:
                run *= workload.demand_factor(t)  # the month's run sets its gang (v2 §C)
            copies = copies_per_gang(run, fig_k, workload.deadline_hours)
            gang = fig_k * copies
            useful = hours * (
                spot_yield(a.spot_efficiency, gang, s.gpu(g).max_per_node) if is_spot else 1.0
            )
            if workload.tokens and est.gpu_hours:
                tokens = workload.tokens * useful / est.gpu_hours
        rows.append(
            AssignmentRow(
                workload=w,
                gpu=g,
                month=t,
                gpus_per_replica=copy_width,
                replicas=n,
                gpu_hours=hours,
                cost=cost,
                spot_hours=hours if is_spot else 0.0,
                tokens=tokens,
                place=HOUSE if offer is None else offer.option.value,
                offer=None if offer is None else offer_label(offer, s),
                copy_width=copy_width,
                width=gang,
                load=load,
            )
        )
    idle = sum(c for key, c in paid.items() if hours_of.get(key, 0.0) <= 0)
    idle += sum(c for key, c in spot_cost.items() if spot_of.get(key, 0.0) <= 0)
    return tuple(rows), idle


def _offer_use(s: Scenario, d: Decisions, use: Usage) -> tuple[OfferUse, ...]:
    units: dict[str, float] = defaultdict(float)
    for (oid, _t), n in d.purchases.items():
        units[oid] += n
    for (oid, _t), n in d.reservations.items():
        units[oid] += n * _term(s, oid)
    for (oid, _t), hours in use.rented_hours.items():
        units[oid] += hours
    H = s.assumptions.hours_per_month
    rows = []
    # An existing reservation is an offer in use; owned Fleet rows are bought from none.
    for o in (*s.offers, *(o for o in s.fleet_offers if o.option is OfferOption.RESERVED)):
        u = units.get(o.offer_id, 0.0)
        cost = o.price * u * (H if o.option is OfferOption.RESERVED else 1.0)
        rows.append(OfferUse(o.offer_id, o.gpu, o.option, o.price, u, cost))
    return tuple(rows)


def _term(s: Scenario, offer_id: str) -> int:
    offer: Offer = next(o for o in s.all_offers if o.offer_id == offer_id)
    return offer.term_months or 0
