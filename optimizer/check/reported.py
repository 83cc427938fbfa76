"""Rules on what a plan reports: its money, fleet, options, assignments and offer use.

Takes the recomputed ``CheckReport`` (money) or the scenario, ``Decisions`` and
estimates, and the plan's own rows; hands on violation lines wherever a
reported number disagrees with the recomputed one, and the rows a plan should
show (``expected_fleet``, ``expected_assignments``, from ``type_month_costs``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from optimizer.check.capacity import _work_per_gpu
from optimizer.check.money import (
    _bought_per_gpu,
    _offers_by_id,
    _rented_per_gpu,
    _reserved_per_gpu,
    active_reservations,
    owned_stock,
)
from optimizer.check.tolerances import (
    HALF_CENT,
    HOURS_ABS_TOL,
    HOURS_REL_TOL,
    _h,
    _usd,
    hours_close,
    money_close,
)
from optimizer.domain import CostCategory, Kind, OfferOption, Scenario
from optimizer.results import AssignmentRow, Decisions, FleetRow, OfferUse, PairEstimate, Plan

if TYPE_CHECKING:
    # Only for the annotation: rules.py, which defines CheckReport, imports this module.
    from optimizer.check.rules import CheckReport


def reported_money_violations(report: CheckReport, plan: Plan) -> list[str]:
    """The plan's own totals, categories and cash flow against the recomputed ones."""
    found: list[str] = []
    for label, reported, expected in (
        ("total_cost", plan.total_cost, report.total_cost),
        ("cash_out", plan.cash_out, report.cash_out),
        ("residual_credit", plan.residual_credit, report.residual_credit),
    ):
        if reported is None:
            found.append(f"reported {label} is missing; recomputed {_usd(expected)}")
        elif not money_close(reported, expected):
            found.append(f"reported {label} {_usd(reported)} but recomputed {_usd(expected)}")
    if plan.residual_credit_discounted is not None and not money_close(
        plan.residual_credit_discounted, report.residual_credit_discounted
    ):
        found.append(
            f"reported residual_credit_discounted {_usd(plan.residual_credit_discounted)} "
            f"but recomputed {_usd(report.residual_credit_discounted)}"
        )
    for c in CostCategory:
        reported_cost = plan.costs.get(c, 0.0)
        if not money_close(reported_cost, report.costs[c]):
            found.append(
                f"reported costs[{c.value}] {_usd(reported_cost)} but recomputed {_usd(report.costs[c])}"
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
                    f"reported cash_flow month {row.month} {c.value} {_usd(amount)} "
                    f"but recomputed {_usd(expected_month[c])}"
                )
    for t, amounts in sorted(report.cash_flow.items()):
        if t not in months_seen and any(abs(v) > HALF_CENT for v in amounts.values()):
            found.append(
                f"reported cash_flow lacks month {t} ({_usd(sum(amounts.values()))} spent)"
            )
    return found


def expected_fleet(scenario: Scenario, decisions: Decisions) -> dict[tuple[str, int], FleetRow]:
    """The fleet row every GPU type and month should show, from the decisions."""
    h = scenario.assumptions.hours_per_month
    stock = owned_stock(scenario, decisions)
    bought = _bought_per_gpu(scenario, decisions)
    reserved = _reserved_per_gpu(scenario, active_reservations(scenario, decisions))
    on_demand = _rented_per_gpu(scenario, decisions, OfferOption.ON_DEMAND)
    spot = _rented_per_gpu(scenario, decisions, OfferOption.SPOT)
    rows: dict[tuple[str, int], FleetRow] = {}
    for g in scenario.gpus:
        for t in scenario.months:
            key = (g.name, t)
            owned = stock.get(key, 0.0)
            used = decisions.owned_hours.get(key, 0.0)
            rows[key] = FleetRow(
                gpu=g.name,
                month=t,
                bought=round(bought.get(key, 0.0)),
                owned=round(owned),
                reserved=round(reserved.get(key, 0.0)),
                rented_hours=on_demand.get(key, 0.0),
                spot_hours=spot.get(key, 0.0),
                owned_utilization=used / (h * owned) if owned > 0 else None,
            )
    return rows


def _fleet_row_is_empty(row: FleetRow) -> bool:
    return (
        row.bought == 0
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
        for name in ("bought", "owned", "reserved"):
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


def type_month_costs(
    scenario: Scenario, decisions: Decisions
) -> tuple[dict[tuple[str, int], float], dict[tuple[str, int], float]]:
    """Undiscounted cost of each GPU type and month, for sharing among workloads.

    The methodology's rule (section 2.5): energy, maintenance, on-demand and
    reserved cash of that month, plus each purchase's net capital cost (price
    minus the credited book value) spread evenly over the months from the
    purchase to the horizon; spot cash is kept apart. Returns (non-spot, spot).
    """
    a = scenario.assumptions
    h, t_end = a.hours_per_month, scenario.horizon_months
    offers = _offers_by_id(scenario)
    credit = a.credit_residual_value
    paid: dict[tuple[str, int], float] = defaultdict(float)
    spot: dict[tuple[str, int], float] = defaultdict(float)
    for (offer_id, month), count in decisions.purchases.items():
        offer = offers.get(offer_id)
        if offer is None or not 1 <= month <= t_end:
            continue
        age = t_end - month + 1
        book = max(0.0, 1.0 - age / a.depreciation_months) if credit else 0.0
        spread = offer.price * count * (1.0 - book) / age
        for t in range(month, t_end + 1):
            paid[offer.gpu, t] += spread + a.maintenance_per_year / 12.0 * offer.price * count
    for (offer_id, t), active in active_reservations(scenario, decisions).items():
        paid[offers[offer_id].gpu, t] += offers[offer_id].price * h * active
    for (offer_id, t), hours in decisions.rented_hours.items():
        offer = offers.get(offer_id)
        if offer is None:
            continue
        (spot if offer.option is OfferOption.SPOT else paid)[offer.gpu, t] += offer.price * hours
    stock = owned_stock(scenario, decisions)
    for g in scenario.gpus:
        per_hour = (g.tdp_w or 0.0) / 1000.0 * a.pue * a.electricity_per_kwh
        for t in scenario.months:
            owned = stock.get((g.name, t), 0.0)
            if owned:
                used = decisions.owned_hours.get((g.name, t), 0.0)
                paid[g.name, t] += per_hour * (used + a.idle_power_fraction * (h * owned - used))
    return paid, spot


def expected_assignments(
    scenario: Scenario, decisions: Decisions, estimates: Sequence[PairEstimate]
) -> dict[tuple[str, str, int], AssignmentRow]:
    """The assignment row of every workload, type and month with work, from the decisions.

    A workload's cost on a type in a month is that type-month's non-spot cost
    times its share of the non-spot GPU-hours, plus the spot cost times its
    share of the spot hours (methodology, section 2.5). ``tokens`` is left
    None: it is a display figure the checker does not recompute.
    """
    pairs = {(e.workload, e.gpu): e for e in estimates}
    kinds = {w.name: w.kind for w in scenario.workloads}
    paid, spot_cost = type_month_costs(scenario, decisions)
    hours_of, spot_of = _work_per_gpu(decisions)
    rows: dict[tuple[str, str, int], AssignmentRow] = {}
    for key, work in decisions.work.items():
        name, g, t = key
        cost = 0.0
        if hours_of.get((g, t), 0.0) > 0:
            cost += paid.get((g, t), 0.0) * work.hours / hours_of[g, t]
        if spot_of.get((g, t), 0.0) > 0:
            cost += spot_cost.get((g, t), 0.0) * work.spot_hours / spot_of[g, t]
        estimate = pairs.get((name, g))
        realtime = kinds.get(name) is Kind.REALTIME_INFERENCE
        rows[key] = AssignmentRow(
            workload=name,
            gpu=g,
            month=t,
            gpus_per_replica=(estimate.gpus_per_replica if estimate else None) or 1,
            replicas=decisions.replicas.get(key, 0) if realtime else None,
            gpu_hours=work.hours + work.spot_hours,
            cost=cost,
            spot_hours=work.spot_hours,
        )
    return rows


def assignment_violations(
    scenario: Scenario,
    decisions: Decisions,
    estimates: Sequence[PairEstimate],
    assignments: Sequence[AssignmentRow],
) -> list[str]:
    """Each assignment row against the decisions: hours, replicas, replica size and cost share."""
    found: list[str] = []
    expected = expected_assignments(scenario, decisions, estimates)
    seen: set[tuple[str, str, int]] = set()
    for row in assignments:
        key = (row.workload, row.gpu, row.month)
        where = f"assignments: {row.workload} on {row.gpu} month {row.month}"
        if key in seen:
            found.append(f"{where} reported twice")
            continue
        seen.add(key)
        want = expected.get(key)
        if want is None:
            found.append(f"{where} has no work in the decisions")
            continue
        for name in ("gpu_hours", "spot_hours"):
            got_h, exp_h = getattr(row, name), getattr(want, name)
            if not hours_close(got_h, exp_h):
                found.append(f"{where} {name} {_h(got_h)} but the decisions give {_h(exp_h)}")
        for name in ("replicas", "gpus_per_replica"):
            if getattr(row, name) != getattr(want, name):
                found.append(
                    f"{where} {name} {getattr(row, name)} but the decisions give {getattr(want, name)}"
                )
        if not money_close(row.cost, want.cost):
            found.append(
                f"{where} cost {_usd(row.cost)} but its share of the type's cost is {_usd(want.cost)}"
            )
    for key, want in sorted(expected.items()):
        if key not in seen and (want.gpu_hours > HOURS_ABS_TOL or want.replicas):
            found.append(
                f"assignments: no row for {key[0]} on {key[1]} month {key[2]}, which has work"
            )
    return found


def offer_use_violations(
    scenario: Scenario, decisions: Decisions, offer_use: Sequence[OfferUse]
) -> list[str]:
    """Each offer's reported use: GPUs bought, GPU-months reserved or paid hours, and its cash."""
    found: list[str] = []
    offers = _offers_by_id(scenario)
    h = scenario.assumptions.hours_per_month
    units: dict[str, float] = defaultdict(float)
    for (offer_id, _), count in decisions.purchases.items():
        units[offer_id] += count
    for (offer_id, _), count in decisions.reservations.items():
        if offer_id in offers:  # GPU-months: every month of the term is paid
            units[offer_id] += count * (offers[offer_id].term_months or 0)
    for (offer_id, _), hours in decisions.rented_hours.items():
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
                f"offer use: {use.offer_id} cost {_usd(use.cost)} but the decisions give {_usd(cash)}"
            )
    return found
