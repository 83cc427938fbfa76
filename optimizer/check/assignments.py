"""The ``assignments`` rows a plan reports (model v2 §F): where each workload runs, and its cost.

Takes a ``Scenario``, the plan's ``Decisions`` and the pair estimates; hands on
each type-month's cost (``type_month_costs``), the rows a plan should show
(``expected_assignments``, the definition the plan assembly must match) and a
violation line wherever a reported row disagrees with them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from optimizer.check.capacity import (
    active_reservations,
    derived_hours,
    offer_label,
    offers_by_id,
    owned_stock,
    place_kind,
    source_stock,
    spread_over_units,
)
from optimizer.check.demand import gangs, serving_capacity
from optimizer.check.fleet import existing_book_credit, existing_book_start, existing_gpus
from optimizer.check.money import market_value
from optimizer.check.servers import server_type_month_costs
from optimizer.check.tolerances import (
    HOURS_ABS_TOL,
    HOURS_REL_TOL,
    _h,
    hours_close,
    money_close,
)
from optimizer.currency import money_text
from optimizer.domain import OfferOption, ResidualValue, Scenario
from optimizer.results import AssignmentRow, Decisions, PairEstimate

# workload, gpu, month, place kind, offer label, width
AssignmentKey = tuple[str, str, int, str, str | None, int]
SPOT = OfferOption.SPOT.value


def _market_capital(
    scenario: Scenario, decisions: Decisions, paid: dict[tuple[str, int], float]
) -> None:
    """Under ``residual_value`` market: each buy offer's net capital cost (purchases
    minus sales minus the market credit at the horizon) spread over its GPU-months,
    month ``t`` taking its share of the offer's GPUs owned; maintenance as owned."""
    a = scenario.assumptions
    t_end = scenario.horizon_months
    offers = offers_by_id(scenario)
    stock = source_stock(scenario, decisions)
    net: dict[str, float] = defaultdict(float)
    for (offer_id, _month), count in decisions.purchases.items():
        if offer_id in offers:
            net[offer_id] += offers[offer_id].price * count
    for (offer_id, month), count in decisions.sales.items():
        if offer_id in offers:
            net[offer_id] -= market_value(scenario, offers[offer_id].gpu, month) * count
    for (offer_id, t), level in stock.items():
        if t == t_end and offer_id in offers:
            net[offer_id] -= market_value(scenario, offers[offer_id].gpu, t_end + 1) * level
    for (source_id, _month), gpus_there in existing_gpus(scenario).items():
        # Using a GPU one has forgoes selling it in month 1: that is its capital.
        net[source_id] += market_value(scenario, offers[source_id].gpu, 1) * gpus_there
    spread_over_units(stock, net, {o: offers[o].gpu for o, _t in stock if o in offers}, paid)
    for (offer_id, t), level in stock.items():
        offer = offers.get(offer_id)
        if offer is not None and level > 0:
            paid[offer.gpu, t] += a.maintenance_per_year / 12.0 * offer.price * level


def type_month_costs(
    scenario: Scenario, decisions: Decisions
) -> tuple[dict[tuple[str, int], float], dict[tuple[str, int], float]]:
    """Undiscounted cost of each GPU type and month, for sharing among workloads.

    The methodology's rule (section 2.5): energy, maintenance, on-demand and
    reserved cash of that month, plus each purchase's net capital cost (price
    minus the credited book value) spread evenly over the months from the
    purchase to the horizon (under ``residual_value`` market: see
    :func:`_market_capital`); spot cash is kept apart. Returns (non-spot, spot).
    """
    a = scenario.assumptions
    h, t_end = a.hours_per_month, scenario.horizon_months
    offers = offers_by_id(scenario)
    credit = a.residual_rule is ResidualValue.BOOK
    derived = derived_hours(scenario, decisions)
    paid: dict[tuple[str, int], float] = defaultdict(float)
    spot: dict[tuple[str, int], float] = defaultdict(float)
    if a.sells:
        _market_capital(scenario, decisions, paid)
    for (offer_id, month), count in decisions.purchases.items():
        offer = offers.get(offer_id)
        if offer is None or not 1 <= month <= t_end or a.sells:
            continue
        age = t_end - month + 1
        book = max(0.0, 1.0 - age / a.depreciation_months) if credit else 0.0
        spread = offer.price * count * (1.0 - book) / age
        for t in range(month, t_end + 1):
            paid[offer.gpu, t] += spread + a.maintenance_per_year / 12.0 * offer.price * count
    if not a.sells:  # owned Fleet rows, never sold: value at month 1 less value at T
        start, end = existing_book_start(scenario), existing_book_credit(scenario)
        for (source_id, _month), held in existing_gpus(scenario).items():
            offer = offers[source_id]
            spread = (start.get(source_id, 0.0) - end.get(source_id, 0.0)) / t_end
            for t in scenario.months:
                paid[offer.gpu, t] += spread + a.maintenance_per_year / 12.0 * offer.price * held
    for (offer_id, t), active in active_reservations(scenario, decisions).items():
        paid[offers[offer_id].gpu, t] += offers[offer_id].price * h * active
    for (offer_id, t), hours in derived.paid.items():
        offer = offers[offer_id]
        (spot if offer.option is OfferOption.SPOT else paid)[offer.gpu, t] += offer.price * hours
    stock = owned_stock(scenario, decisions)
    for g in scenario.gpus:
        per_hour = (g.tdp_w or 0.0) / 1000.0 * a.pue * a.electricity_per_kwh
        rack = (g.tdp_w or 0.0) / 1000.0 * a.colocation_per_kw_month
        for t in scenario.months:
            owned = stock.get((g.name, t), 0.0)
            if owned:
                used = derived.house_used.get((g.name, t), 0.0)
                paid[g.name, t] += per_hour * (used + a.idle_power_fraction * (h * owned - used))
                paid[g.name, t] += rack * owned
    server_type_month_costs(scenario, decisions, paid)
    return paid, spot


def expected_assignments(
    scenario: Scenario, decisions: Decisions, estimates: Sequence[PairEstimate]
) -> dict[AssignmentKey, AssignmentRow]:
    """The assignment row of every workload, type, month, place and offer (and serving width).

    ``gpu_hours`` are paid hours: work, or ``width × H × replicas``.
    ``copy_width`` is ``k_wg`` (training, batch) or the replica width
    (serving, one replica being one copy); ``width`` the gang width ``n_wg`` or
    the replica width; ``gpus_per_replica`` = ``copy_width``. ``load`` (serving)
    is ``tokens_per_second`` over the capacity of all the workload's replicas
    that month. A row's cost is its type-month's non-spot cost times its share
    of the type-month's non-spot GPU-hours, or the spot cost times its share
    of the spot hours (methodology, section 2.5). ``tokens`` is left None: a
    display figure the checker does not recompute. Offers of one type, kind and
    label share a row.
    """
    h = scenario.assumptions.hours_per_month
    offers = offers_by_id(scenario)
    workloads = {w.name: w for w in scenario.workloads}
    pairs = {(e.workload, e.gpu): e for e in estimates}
    pair_gangs = gangs(scenario, estimates)
    capacity = serving_capacity(estimates)
    served: dict[tuple[str, int], float] = defaultdict(float)
    for (name, gpu, _, width, t), n in decisions.replicas.items():
        served[name, t] += capacity.get((name, gpu, width), 0.0) * n

    rows: dict[AssignmentKey, AssignmentRow] = {}

    def add(row: AssignmentRow) -> None:
        key = _key(row)
        rows[key] = _merged(rows[key], row) if key in rows else row

    for (name, gpu, place, width, t), n in decisions.replicas.items():
        kind = place_kind(offers, gpu, place)
        w = workloads.get(name)
        if kind is None or w is None:
            continue
        demand = w.demand_in(t)
        cap = served.get((name, t), 0.0)
        hours = width * h * n
        add(
            AssignmentRow(
                workload=name,
                gpu=gpu,
                month=t,
                gpus_per_replica=width,
                replicas=round(n),
                gpu_hours=hours,
                cost=0.0,
                spot_hours=hours if kind == SPOT else 0.0,
                place=kind,
                offer=offer_label(offers.get(place), offers),
                copy_width=width,
                width=width,
                load=demand / cap if cap > 0 else None,
            )
        )
    for (name, gpu, place, t), hours in decisions.work.items():
        kind = place_kind(offers, gpu, place)
        if kind is None or name not in workloads:
            continue
        gang = pair_gangs.get((name, gpu, t))
        estimate = pairs.get((name, gpu))
        k = gang.copy_width if gang else (estimate.gpus_per_replica if estimate else None) or 1
        add(
            AssignmentRow(
                workload=name,
                gpu=gpu,
                month=t,
                gpus_per_replica=k,
                replicas=None,
                gpu_hours=hours,
                cost=0.0,
                spot_hours=hours if kind == SPOT else 0.0,
                place=kind,
                offer=offer_label(offers.get(place), offers),
                copy_width=k,
                width=gang.width if gang else k,
                load=None,
            )
        )

    paid, spot_cost = type_month_costs(scenario, decisions)
    hours_of: dict[tuple[str, int], float] = defaultdict(float)
    spot_of: dict[tuple[str, int], float] = defaultdict(float)
    for row in rows.values():
        (spot_of if row.place == SPOT else hours_of)[row.gpu, row.month] += row.gpu_hours
    for key, row in rows.items():
        g, t = row.gpu, row.month
        if row.place == SPOT:
            share = (
                spot_cost.get((g, t), 0.0) * row.gpu_hours / spot_of[g, t]
                if spot_of[g, t] > 0
                else 0.0
            )
        else:
            share = (
                paid.get((g, t), 0.0) * row.gpu_hours / hours_of[g, t]
                if hours_of[g, t] > 0
                else 0.0
            )
        rows[key] = replace(row, cost=share)
    return rows


def _key(row: AssignmentRow) -> AssignmentKey:
    return (row.workload, row.gpu, row.month, row.place, row.offer, row.width)


def _merged(old: AssignmentRow, row: AssignmentRow) -> AssignmentRow:
    """Two rows under one key (offers of one kind sharing a label) as one: hours, cost, replicas add up."""
    return replace(
        old,
        gpu_hours=old.gpu_hours + row.gpu_hours,
        spot_hours=old.spot_hours + row.spot_hours,
        cost=old.cost + row.cost,
        replicas=None if old.replicas is None else old.replicas + (row.replicas or 0),
    )


def _where(key: AssignmentKey, realtime: bool) -> str:
    name, gpu, t, kind, label, width = key
    offer = f" {label}" if label else ""
    return f"{name} on {gpu} month {t} in {kind}{offer}" + (f" width {width}" if realtime else "")


def assignment_violations(
    scenario: Scenario,
    decisions: Decisions,
    estimates: Sequence[PairEstimate],
    assignments: Sequence[AssignmentRow],
) -> list[str]:
    """Each assignment row against the decisions: hours, replicas, widths, load and cost share."""
    currency = scenario.assumptions.currency
    found: list[str] = []
    expected = expected_assignments(scenario, decisions, estimates)
    reported: dict[AssignmentKey, AssignmentRow] = {}
    for row in assignments:
        key = _key(row)
        where = "assignments: " + _where(key, row.replicas is not None)
        want = expected.get(key)
        if want is None:
            found.append(f"{where} has no work in the decisions")
            continue
        for name in ("gpus_per_replica", "copy_width"):
            if getattr(row, name) != getattr(want, name):
                found.append(
                    f"{where} {name} {getattr(row, name)} but the decisions give {getattr(want, name)}"
                )
        got_l, exp_l = row.load, want.load
        if (got_l is None) != (exp_l is None) or (
            got_l is not None
            and exp_l is not None
            and abs(got_l - exp_l) > HOURS_REL_TOL * max(1.0, exp_l)
        ):
            found.append(f"{where} load {got_l} but the decisions give {exp_l}")
        reported[key] = _merged(reported[key], row) if key in reported else row
    # Rows under one key (offers sharing a label) are compared by their sums.
    for key, row in reported.items():
        where = "assignments: " + _where(key, row.replicas is not None)
        want = expected[key]
        for name in ("gpu_hours", "spot_hours"):
            got_h, exp_h = getattr(row, name), getattr(want, name)
            if not hours_close(got_h, exp_h):
                found.append(f"{where} {name} {_h(got_h)} but the decisions give {_h(exp_h)}")
        if row.replicas != want.replicas:
            found.append(f"{where} replicas {row.replicas} but the decisions give {want.replicas}")
        if not money_close(row.cost, want.cost):
            found.append(
                f"{where} cost {money_text(row.cost, currency)} but its share of the type's cost is {money_text(want.cost, currency)}"
            )
    for key, want in sorted(expected.items(), key=lambda kv: str(kv[0])):
        if key not in reported and (want.gpu_hours > HOURS_ABS_TOL or want.replicas):
            found.append(
                f"assignments: no row for {_where(key, want.replicas is not None)}, which has work"
            )
    return found
