"""Rules on what a plan reports: its money, fleet, places, options and offer use.

Takes the recomputed ``CheckReport`` (money) or the scenario and ``Decisions``,
and the plan's own rows; hands on violation lines wherever a reported number
disagrees with the recomputed one, and the rows a plan should show
(``expected_fleet``, ``expected_places``): the definition the plan assembly
must match. Assignments are checked in ``assignments``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from optimizer.check.capacity import (
    active_reservations,
    bought_per_gpu,
    derived_hours,
    finite_place_sizes,
    offer_label,
    offers_by_id,
    owned_stock,
    place_kind,
    rented_per_gpu,
    reserved_per_gpu,
    source_stock,
)
from optimizer.check.check_report import CheckReport
from optimizer.check.money import fleet_value_at_start
from optimizer.check.servers import server_levels
from optimizer.check.tolerances import (
    HALF_CENT,
    HOURS_ABS_TOL,
    HOURS_REL_TOL,
    _h,
    hours_close,
    money_close,
)
from optimizer.currency import money_text
from optimizer.domain import CostCategory, OfferOption, Scenario
from optimizer.results import HOUSE, Decisions, FleetRow, OfferUse, PairEstimate, PlaceRow, Plan


def reported_money_violations(report: CheckReport, plan: Plan) -> list[str]:
    """The plan's own totals, categories and cash flow against the recomputed ones."""
    currency = plan.currency
    found: list[str] = []
    for label, reported, expected in (
        ("total_cost", plan.total_cost, report.total_cost),
        ("cash_out", plan.cash_out, report.cash_out),
        ("residual_credit", plan.residual_credit, report.residual_credit),
    ):
        if reported is None:
            found.append(
                f"reported {label} is missing; recomputed {money_text(expected, currency)}"
            )
        elif not money_close(reported, expected):
            found.append(
                f"reported {label} {money_text(reported, currency)} but recomputed {money_text(expected, currency)}"
            )
    if plan.residual_credit_discounted is not None and not money_close(
        plan.residual_credit_discounted, report.residual_credit_discounted
    ):
        found.append(
            f"reported residual_credit_discounted {money_text(plan.residual_credit_discounted, currency)} "
            f"but recomputed {money_text(report.residual_credit_discounted, currency)}"
        )
    fleet_value = fleet_value_at_start(plan.scenario)
    if not money_close(plan.existing_value or 0.0, fleet_value):
        found.append(
            f"reported existing_value {money_text(plan.existing_value or 0.0, currency)} but recomputed "
            f"{money_text(fleet_value, currency)}"
        )
    for c in CostCategory:
        reported_cost = plan.costs.get(c, 0.0)
        if not money_close(reported_cost, report.costs[c]):
            found.append(
                f"reported costs[{c.value}] {money_text(reported_cost, currency)} but recomputed {money_text(report.costs[c], currency)}"
            )
    unknown = set(plan.costs) - set(CostCategory)
    if unknown:
        found.append(f"reported costs has unknown categories {sorted(map(str, unknown))}")

    months_seen: set[int] = set()
    for row in plan.cash_flow:
        if row.month in months_seen:
            found.append(f"reported cash_flow has month {row.month} twice")
            continue
        months_seen.add(row.month)
        expected_month = report.cash_flow.get(row.month)
        if expected_month is None:
            found.append(f"reported cash_flow has month {row.month}, outside the horizon")
            continue
        for c in CostCategory:
            amount = row.amounts.get(c, 0.0)
            if not money_close(amount, expected_month[c]):
                found.append(
                    f"reported cash_flow month {row.month} {c.value} {money_text(amount, currency)} "
                    f"but recomputed {money_text(expected_month[c], currency)}"
                )
    for t, amounts in sorted(report.cash_flow.items()):
        if t not in months_seen and any(abs(v) > HALF_CENT for v in amounts.values()):
            found.append(
                f"reported cash_flow lacks month {t} ({money_text(sum(amounts.values()), currency)} spent)"
            )
    return found


def expected_fleet(scenario: Scenario, decisions: Decisions) -> dict[tuple[str, int], FleetRow]:
    """The fleet row every GPU type and month should show, from the decisions.

    ``owned``, ``bought`` and ``reserved`` (active) GPUs; ``rented_hours`` and
    ``spot_hours`` are paid on-demand and spot hours (work plus ``width × H ×
    replicas``); ``owned_utilization`` is the house's used hours (``H × pinned +
    work``) over ``H × owned``, None when nothing is owned.
    """
    h = scenario.assumptions.hours_per_month
    stock = owned_stock(scenario, decisions)
    bought = bought_per_gpu(scenario, decisions.purchases)
    sold = bought_per_gpu(scenario, decisions.sales)
    servers = server_levels(scenario, decisions)
    reserved = reserved_per_gpu(scenario, active_reservations(scenario, decisions))
    derived = derived_hours(scenario, decisions)
    on_demand = rented_per_gpu(scenario, derived, OfferOption.ON_DEMAND)
    spot = rented_per_gpu(scenario, derived, OfferOption.SPOT)
    existing: dict[tuple[str, int], float] = defaultdict(float)  # Fleet rows still owned
    for (source_id, t), level in source_stock(scenario, decisions).items():
        if (row := scenario.existing(source_id)) is not None:
            existing[row.gpu, t] += level
    rows: dict[tuple[str, int], FleetRow] = {}
    for g in scenario.gpus:
        for t in scenario.months:
            key = (g.name, t)
            owned = stock.get(key, 0.0)
            used = derived.house_used.get(key, 0.0)
            rows[key] = FleetRow(
                gpu=g.name,
                month=t,
                bought=round(bought.get(key, 0.0)),
                owned=round(owned),
                existing=round(existing.get(key, 0.0)),
                sold=round(sold.get(key, 0.0)),
                servers=round(servers.get(key, 0.0)),
                reserved=round(reserved.get(key, 0.0)),
                rented_hours=on_demand.get(key, 0.0),
                spot_hours=spot.get(key, 0.0),
                owned_utilization=used / (h * owned) if owned > 0 else None,
            )
    return rows


def _fleet_row_is_empty(row: FleetRow) -> bool:
    return (
        row.bought == 0
        and row.sold == 0
        and row.servers == 0
        and row.owned == 0
        and row.reserved == 0
        and row.rented_hours <= HOURS_ABS_TOL
        and row.spot_hours <= HOURS_ABS_TOL
    )


def fleet_violations(
    scenario: Scenario, decisions: Decisions, fleet: Sequence[FleetRow]
) -> list[str]:
    """Each reported fleet row against the decisions; a row may be left out only when empty."""
    found: list[str] = []
    expected = expected_fleet(scenario, decisions)
    seen: set[tuple[str, int]] = set()
    for row in fleet:
        key = (row.gpu, row.month)
        if key in seen:
            found.append(f"fleet: {row.gpu} month {row.month} reported twice")
            continue
        seen.add(key)
        want = expected.get(key)
        if want is None:
            found.append(
                f"fleet: row for {row.gpu} month {row.month} is not a type and month of this scenario"
            )
            continue
        where = f"fleet: {row.gpu} month {row.month}"
        for name in ("bought", "sold", "owned", "existing", "reserved", "servers"):
            got, exp = getattr(row, name), getattr(want, name)
            if got != exp:
                found.append(f"{where} {name} {got} but the decisions give {exp}")
        for name in ("rented_hours", "spot_hours"):
            got, exp = getattr(row, name), getattr(want, name)
            if not hours_close(got, exp):
                found.append(f"{where} {name} {_h(got)} but the decisions give {_h(exp)}")
        got_u, exp_u = row.owned_utilization, want.owned_utilization
        if (got_u is None) != (exp_u is None) or (
            got_u is not None and exp_u is not None and abs(got_u - exp_u) > HOURS_REL_TOL
        ):
            found.append(f"{where} owned_utilization {got_u} but the decisions give {exp_u}")
    for key, want in sorted(expected.items()):
        if key not in seen and not _fleet_row_is_empty(want):
            found.append(f"fleet: no row for {key[0]} month {key[1]}, which has GPUs or hours")
    return found


PlaceKey = tuple[str, int, str, str | None]  # gpu, month, place kind, offer label


def _merged_places(old: PlaceRow, row: PlaceRow) -> PlaceRow:
    """Two places under one key (offers of one kind sharing a label) as one row: figures add up."""
    slots = dict(old.slots)
    for k, n in row.slots.items():
        slots[k] = slots.get(k, 0) + n
    return replace(
        old,
        size=old.size + row.size,
        pinned=old.pinned + row.pinned,
        free=old.free + row.free,
        slots=slots,
    )


def _all_places(
    scenario: Scenario, decisions: Decisions
) -> dict[PlaceKey, tuple[PlaceRow, PlaceRow | None]]:
    """Every finite place and month as a row: (all of it, the part the plan must show).

    The house and a reserved offer must show every month they hold GPUs; any
    finite place must show a month with replicas, slots or work in it; a
    capped rental offer unused in a month may be left out or shown. Offers of
    one type and kind with the same label share a key: their figures add up,
    over all of them and over those that must show.
    """
    offers = offers_by_id(scenario)
    derived = derived_hours(scenario, decisions)
    rows: dict[PlaceKey, tuple[PlaceRow, PlaceRow | None]] = {}
    for (gpu, place, t), size in sorted(finite_place_sizes(scenario, decisions).items()):
        kind = place_kind(offers, gpu, place) or place
        label = offer_label(offers.get(place), offers)
        pinned = derived.pinned.get((gpu, place, t), 0.0)
        slots = {k: round(n) for k, n in derived.slots.get((gpu, place, t), {}).items() if n}
        used = bool(pinned or slots or derived.work.get((gpu, place, t), 0.0) > HOURS_ABS_TOL)
        shown = used or (size > 0 and kind in (HOUSE, OfferOption.RESERVED.value))
        row = PlaceRow(gpu, t, kind, label, round(size), round(pinned), round(size - pinned), slots)
        key = (gpu, t, kind, label)
        every, needed = rows.get(key, (None, None))
        if shown:
            needed = row if needed is None else _merged_places(needed, row)
        rows[key] = (row if every is None else _merged_places(every, row), needed)
    return rows


def expected_places(scenario: Scenario, decisions: Decisions) -> dict[PlaceKey, PlaceRow]:
    """The ``places`` rows a plan should show, keyed (gpu, month, place kind, offer label):
    the house and reserved offers in every month they hold GPUs, and every finite
    place (capped rental offers too) in a month with replicas, slots or work in it.

    ``size`` is ``N[p,t]``, ``pinned = sum width × replicas``, ``free = size −
    pinned``, ``slots`` maps a copy width to its slots (zeros left out).
    """
    return {
        key: needed
        for key, (_, needed) in _all_places(scenario, decisions).items()
        if needed is not None
    }


def place_violations(
    scenario: Scenario, decisions: Decisions, places: Sequence[PlaceRow]
) -> list[str]:
    """Each reported place row against the decisions; a row may be left out only when
    :func:`expected_places` does not list it. Rows under one key (offers sharing a
    label) are compared by their sums: those of the places that must show, or of all."""
    found: list[str] = []
    every = _all_places(scenario, decisions)
    reported: dict[PlaceKey, PlaceRow] = {}
    for row in places:
        key = (row.gpu, row.month, row.place, row.offer)
        if key not in every:
            found.append(f"places: {_place_where(key)} is not a finite place of this scenario")
            continue
        row = replace(row, slots={k: n for k, n in row.slots.items() if n})
        reported[key] = _merged_places(reported[key], row) if key in reported else row
    fields = ("size", "pinned", "free", "slots")
    for key, row in reported.items():
        whole, needed = every[key]
        candidates = [c for c in (needed, whole) if c is not None]
        if any(all(getattr(row, f) == getattr(c, f) for f in fields) for c in candidates):
            continue
        want = candidates[0]
        where = "places: " + _place_where(key)
        for name in fields:
            if getattr(row, name) != getattr(want, name):
                found.append(
                    f"{where} {name} {getattr(row, name)} but the decisions give {getattr(want, name)}"
                )
    for key, (_, needed) in sorted(every.items(), key=lambda kv: str(kv[0])):
        if needed is not None and key not in reported:
            found.append(f"places: no row for {_place_where(key)}, which holds GPUs or work")
    return found


def _place_where(key: PlaceKey) -> str:
    gpu, t, kind, label = key
    return f"{gpu} {kind}{f' {label}' if label else ''} month {t}"


def options_violations(
    estimates: Sequence[PairEstimate], options: Sequence[PairEstimate]
) -> list[str]:
    """The plan's options are exactly the estimates the checker works from."""
    found: list[str] = []
    want = {(e.workload, e.gpu): e for e in estimates}
    got: dict[tuple[str, str], PairEstimate] = {}
    for o in options:
        key = (o.workload, o.gpu)
        if key in got:
            found.append(f"options: {o.workload} on {o.gpu} listed twice")
        got[key] = o
    for key in sorted(want.keys() | got.keys()):
        if key not in got:
            found.append(f"options: {key[0]} on {key[1]} missing from the plan's options")
        elif key not in want:
            found.append(f"options: {key[0]} on {key[1]} is not a pair the estimator looked at")
        elif got[key] != want[key]:
            found.append(
                f"options: {key[0]} on {key[1]} is {got[key]} but the estimate is {want[key]}"
            )
    return found


def offer_use_violations(
    scenario: Scenario, decisions: Decisions, offer_use: Sequence[OfferUse]
) -> list[str]:
    """Each offer's reported use: GPUs bought, GPU-months reserved or paid hours, and its cash.

    Paid hours of a rental offer are its work plus ``width × H × replicas`` on it.
    """
    currency = scenario.assumptions.currency
    found: list[str] = []
    offers = offers_by_id(scenario)
    h = scenario.assumptions.hours_per_month
    units: dict[str, float] = defaultdict(float)
    for (offer_id, _), count in decisions.purchases.items():
        units[offer_id] += count
    for (offer_id, _), count in decisions.reservations.items():
        if offer_id in offers:  # GPU-months: every month of the term is paid
            units[offer_id] += count * (offers[offer_id].term_months or 0)
    for (offer_id, _), hours in derived_hours(scenario, decisions).paid.items():
        units[offer_id] += hours
    for use in offer_use:
        offer = offers.get(use.offer_id)
        if offer is None:
            found.append(f"offer use: {use.offer_id!r} is not an offer of this scenario")
            continue
        want = units.get(use.offer_id, 0.0)
        cash = offer.price * want * (h if offer.option is OfferOption.RESERVED else 1.0)
        if not hours_close(use.units, want):
            found.append(
                f"offer use: {use.offer_id} units {_h(use.units)} but the decisions give {_h(want)}"
            )
        if not money_close(use.cost, cash):
            found.append(
                f"offer use: {use.offer_id} cost {money_text(use.cost, currency)} but the decisions give {money_text(cash, currency)}"
            )
    return found
