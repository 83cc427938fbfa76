"""The independent checker: recompute a plan's money and test every constraint.

A wrong number in a result is the worst failure gpumix can have, so nothing
here trusts the model. :func:`check_plan` reads the scenario and the plan's
:class:`~optimizer.results.Decisions` only (never PuLP, never the model or
solve modules), recomputes every cost term of model.md from them, checks every
constraint of model.md, and then compares what it found with the numbers the
plan reports (total, categories, cash flow per month, fleet rows, options).
Every disagreement becomes one line of ``CheckReport.violations`` that names
the item, the value found and the value expected.

Tolerances: hours and work agree to a relative 1e-6 (solvers round), money to
half a cent (what finance sees).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from optimizer.domain import CostCategory, Kind, Offer, OfferOption, Scenario, Workload
from optimizer.results import AssignmentRow, Decisions, FleetRow, OfferUse, PairEstimate, Plan

HALF_CENT = 0.005
HOURS_REL_TOL = 1e-6
# Below one hour the relative tolerance would be meaninglessly small; a
# millionth of an hour is far below anything a plan reports.
HOURS_ABS_TOL = 1e-6
INTEGER_TOL = 1e-6

OPERATING = (
    CostCategory.ENERGY,
    CostCategory.MAINTENANCE,
    CostCategory.ON_DEMAND,
    CostCategory.SPOT,
    CostCategory.RESERVED,
)


@dataclass(frozen=True)
class CheckReport:
    """What the checker recomputed, and everything it found wrong.

    ``total_cost`` is the objective (discounted costs minus the discounted
    residual credit), ``cash_out`` undiscounted cash before credit,
    ``residual_credit`` the undiscounted book value credited; ``costs`` holds
    each category's discounted total and ``cash_flow`` the undiscounted cash
    of each month 1..T by category. An empty ``violations`` means the plan
    is feasible and every number it reports is right.
    """

    total_cost: float
    cash_out: float
    residual_credit: float
    costs: dict[CostCategory, float]
    cash_flow: dict[int, dict[CostCategory, float]]
    violations: list[str]
    residual_credit_discounted: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.violations


def check_plan(
    scenario: Scenario, plan: Plan, estimates: Sequence[PairEstimate] | None = None
) -> CheckReport:
    """Recompute ``plan``'s costs from its decisions and check every constraint.

    ``estimates`` default to ``optimizer.estimate.pairs.estimate_pairs(scenario)``;
    the plan's ``options`` must equal them.
    """
    if estimates is None:
        # Imported here: the estimator is another stage; the checker only needs
        # its output, and tests may hand estimates in directly.
        from optimizer.estimate.pairs import estimate_pairs

        estimates = estimate_pairs(scenario)
    violations: list[str] = []
    if plan.scenario != scenario:
        violations.append(f"plan is for scenario {plan.scenario.name!r}, not the one checked")
    violations += options_violations(estimates, plan.options)
    decisions = plan.decisions
    if decisions is None:
        violations.append(f"plan has no decisions to check (status {plan.status.value})")
        return CheckReport(0.0, 0.0, 0.0, {c: 0.0 for c in CostCategory}, {}, violations)

    not_numbers = non_finite_violations(decisions)
    if not_numbers:
        # Nothing can be recomputed from a NaN or an infinity: report them alone.
        return CheckReport(
            0.0, 0.0, 0.0, {c: 0.0 for c in CostCategory}, {}, violations + not_numbers
        )
    violations += decision_violations(scenario, decisions, estimates)
    cash = cash_flow_of(scenario, decisions)
    credit = residual_credit_of(scenario, decisions)
    costs = discounted_costs(scenario, cash)
    credit_discounted = credit * discount_factor(
        scenario.assumptions.discount_rate, scenario.horizon_months
    )
    total_cost = sum(costs.values()) - credit_discounted
    cash_out = sum(sum(month.values()) for month in cash.values())
    recomputed = CheckReport(
        total_cost=total_cost,
        cash_out=cash_out,
        residual_credit=credit,
        costs=costs,
        cash_flow=cash,
        violations=[],
        residual_credit_discounted=credit_discounted,
    )
    return replace(
        recomputed,
        violations=[
            *violations,
            *budget_violations(scenario, cash),
            *reported_money_violations(recomputed, plan),
            *fleet_violations(scenario, decisions, plan.fleet),
            *assignment_violations(scenario, decisions, estimates, plan.assignments),
            *offer_use_violations(scenario, decisions, plan.offer_use),
        ],
    )


# ---------------------------------------------------------------- tolerances


def _hours_tol(reference: float) -> float:
    return max(HOURS_ABS_TOL, HOURS_REL_TOL * abs(reference))


def hours_close(found: float, expected: float) -> bool:
    return abs(found - expected) <= _hours_tol(max(abs(found), abs(expected)))


def hours_exceed(value: float, limit: float) -> bool:
    """``value > limit`` by more than the hours tolerance."""
    return value > limit + _hours_tol(limit)


def money_close(found: float, expected: float) -> bool:
    return abs(found - expected) <= HALF_CENT


def _is_integer(value: float) -> bool:
    return abs(value - round(value)) <= INTEGER_TOL


def _usd(value: float) -> str:
    return f"${value:,.2f}"


def _h(value: float) -> str:
    return f"{value:,.6g}"


# ---------------------------------------------------------------- stock


def discount_factor(rate: float, month: int) -> float:
    """model.md: every cash item of month ``t`` is worth ``(1 + r) ** (-(t - 1) / 12)``."""
    return float((1.0 + rate) ** (-(month - 1) / 12.0))


def _offers_by_id(scenario: Scenario) -> dict[str, Offer]:
    return {o.offer_id: o for o in scenario.offers}


def owned_stock(scenario: Scenario, decisions: Decisions) -> dict[tuple[str, int], float]:
    """GPUs of each type owned in each month: every purchase so far (owned GPUs stay)."""
    offers = _offers_by_id(scenario)
    stock: dict[tuple[str, int], float] = defaultdict(float)
    for (offer_id, month), count in decisions.purchases.items():
        offer = offers.get(offer_id)
        if offer is None:
            continue
        for t in range(max(month, 1), scenario.horizon_months + 1):
            stock[offer.gpu, t] += count
    return stock


def active_reservations(scenario: Scenario, decisions: Decisions) -> dict[tuple[str, int], float]:
    """Reserved GPUs of each offer active in each month 1..T (``start .. start + term - 1``)."""
    offers = _offers_by_id(scenario)
    active: dict[tuple[str, int], float] = defaultdict(float)
    for (offer_id, start), count in decisions.reservations.items():
        offer = offers.get(offer_id)
        if offer is None or offer.term_months is None:
            continue
        for t in range(start, start + offer.term_months):
            if 1 <= t <= scenario.horizon_months:
                active[offer_id, t] += count
    return active


def _reserved_per_gpu(
    scenario: Scenario, active: Mapping[tuple[str, int], float]
) -> dict[tuple[str, int], float]:
    offers = _offers_by_id(scenario)
    per_gpu: dict[tuple[str, int], float] = defaultdict(float)
    for (offer_id, t), count in active.items():
        per_gpu[offers[offer_id].gpu, t] += count
    return per_gpu


def _rented_per_gpu(
    scenario: Scenario, decisions: Decisions, option: OfferOption
) -> dict[tuple[str, int], float]:
    offers = _offers_by_id(scenario)
    per_gpu: dict[tuple[str, int], float] = defaultdict(float)
    for (offer_id, t), hours in decisions.rented_hours.items():
        offer = offers.get(offer_id)
        if offer is not None and offer.option is option:
            per_gpu[offer.gpu, t] += hours
    return per_gpu


def _bought_per_gpu(scenario: Scenario, decisions: Decisions) -> dict[tuple[str, int], float]:
    offers = _offers_by_id(scenario)
    per_gpu: dict[tuple[str, int], float] = defaultdict(float)
    for (offer_id, t), count in decisions.purchases.items():
        offer = offers.get(offer_id)
        if offer is not None:
            per_gpu[offer.gpu, t] += count
    return per_gpu


# ---------------------------------------------------------------- money


def cash_flow_of(scenario: Scenario, decisions: Decisions) -> dict[int, dict[CostCategory, float]]:
    """Undiscounted cash of every month 1..T by category, from the decisions alone.

    Purchases are paid at the start of their month; owned GPUs draw power all
    month (used hours at TDP, idle hours ``H * owned - used`` at
    ``idle_power_fraction``, both times PUE) and pay maintenance from their
    purchase month to T; on-demand and spot pay price × paid hours; a
    reservation pays price × H in every month of its term, used or not.
    Items naming an offer or GPU the scenario lacks are left out here (they
    are violations, reported by :func:`decision_violations`).
    """
    a = scenario.assumptions
    h = a.hours_per_month
    offers = _offers_by_id(scenario)
    gpus = {g.name: g for g in scenario.gpus}
    cash: dict[int, dict[CostCategory, float]] = {
        t: {c: 0.0 for c in CostCategory} for t in scenario.months
    }

    for (offer_id, month), count in decisions.purchases.items():
        offer = offers.get(offer_id)
        if offer is None or month not in cash:
            continue
        cash[month][CostCategory.PURCHASE] += offer.price * count
        for t in range(month, scenario.horizon_months + 1):
            cash[t][CostCategory.MAINTENANCE] += a.maintenance_per_year / 12.0 * offer.price * count

    stock = owned_stock(scenario, decisions)
    for t in scenario.months:
        for g in gpus.values():
            owned = stock.get((g.name, t), 0.0)
            used = decisions.owned_hours.get((g.name, t), 0.0)
            if owned == 0 and used == 0:
                continue
            idle = h * owned - used
            kwh = (used + a.idle_power_fraction * idle) * (g.tdp_w or 0.0) / 1000.0 * a.pue
            cash[t][CostCategory.ENERGY] += kwh * a.electricity_per_kwh

    for (offer_id, month), hours in decisions.rented_hours.items():
        offer = offers.get(offer_id)
        if offer is None or month not in cash:
            continue
        if offer.option is OfferOption.ON_DEMAND:
            cash[month][CostCategory.ON_DEMAND] += offer.price * hours
        elif offer.option is OfferOption.SPOT:
            cash[month][CostCategory.SPOT] += offer.price * hours

    for (offer_id, t), active in active_reservations(scenario, decisions).items():
        cash[t][CostCategory.RESERVED] += offers[offer_id].price * h * active
    return cash


def residual_credit_of(scenario: Scenario, decisions: Decisions) -> float:
    """Undiscounted book value of owned GPUs at the horizon (0 unless credited).

    A GPU bought in month ``t`` is ``T - t + 1`` months old at the end and is
    worth ``price * max(0, 1 - age / depreciation_months)``.
    """
    a = scenario.assumptions
    if not a.credit_residual_value:
        return 0.0
    offers = _offers_by_id(scenario)
    credit = 0.0
    for (offer_id, month), count in decisions.purchases.items():
        offer = offers.get(offer_id)
        if offer is None or not 1 <= month <= scenario.horizon_months:
            continue
        age = scenario.horizon_months - month + 1
        credit += offer.price * count * max(0.0, 1.0 - age / a.depreciation_months)
    return credit


def discounted_costs(
    scenario: Scenario, cash: Mapping[int, Mapping[CostCategory, float]]
) -> dict[CostCategory, float]:
    """Each category's total over the horizon, every month discounted."""
    rate = scenario.assumptions.discount_rate
    costs = {c: 0.0 for c in CostCategory}
    for t, amounts in cash.items():
        factor = discount_factor(rate, t)
        for c, amount in amounts.items():
            costs[c] += amount * factor
    return costs


# ---------------------------------------------------------------- constraints


def decision_violations(
    scenario: Scenario, decisions: Decisions, estimates: Sequence[PairEstimate]
) -> list[str]:
    """Every constraint of model.md that does not involve money."""
    return [
        *key_violations(scenario, decisions),
        *integrality_violations(decisions),
        *offer_violations(scenario, decisions),
        *capacity_violations(scenario, decisions),
        *spot_violations(scenario, decisions),
        *demand_violations(scenario, decisions, estimates),
        *power_violations(scenario, decisions),
    ]


def key_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """Only offers, GPU types, workloads and months of this scenario, each of the right kind.

    Because excluded types, ``allow_buy = FALSE`` and ``allow_rent = FALSE``
    remove offers from the scenario, this is also where those switches are
    honoured.
    """
    found: list[str] = []
    offers = _offers_by_id(scenario)
    gpus = {g.name for g in scenario.gpus}
    workloads = {w.name for w in scenario.workloads}
    months = scenario.months

    def offer_key(table: str, offer_id: str, month: int, options: tuple[OfferOption, ...]) -> None:
        offer = offers.get(offer_id)
        if offer is None:
            found.append(f"{table}: offer {offer_id!r} is not an offer of this scenario")
        elif offer.option not in options:
            found.append(
                f"{table}: offer {offer_id!r} is a {offer.option.value} offer, "
                f"not {' or '.join(o.value for o in options)}"
            )
        if month not in months:
            found.append(f"{table}: offer {offer_id!r} in month {month}, outside 1..{len(months)}")

    for offer_id, month in decisions.purchases:
        offer_key("purchases", offer_id, month, (OfferOption.BUY,))
    for offer_id, month in decisions.reservations:
        offer_key("reservations", offer_id, month, (OfferOption.RESERVED,))
    for offer_id, month in decisions.rented_hours:
        offer_key("rented hours", offer_id, month, (OfferOption.ON_DEMAND, OfferOption.SPOT))
    for table, keys in (
        ("owned hours", decisions.owned_hours),
        ("reserved hours", decisions.reserved_hours),
    ):
        for gpu, month in keys:
            if gpu not in gpus:
                found.append(f"{table}: GPU type {gpu!r} is not in this scenario")
            if month not in months:
                found.append(f"{table}: {gpu} in month {month}, outside 1..{len(months)}")
    for table, wkeys in (("work", decisions.work), ("replicas", decisions.replicas)):
        for workload, gpu, month in wkeys:
            if workload not in workloads:
                found.append(f"{table}: workload {workload!r} is not planned in this scenario")
            if gpu not in gpus:
                found.append(f"{table}: GPU type {gpu!r} is not in this scenario")
            if month not in months:
                found.append(
                    f"{table}: {workload} on {gpu} in month {month}, outside 1..{len(months)}"
                )
    for workload, gpu in decisions.picks.items():
        if workload not in workloads:
            found.append(f"picks: workload {workload!r} is not planned in this scenario")
        if gpu not in gpus:
            found.append(f"picks: {workload} picks GPU type {gpu!r}, not in this scenario")
    return found


def non_finite_violations(decisions: Decisions) -> list[str]:
    """Every decision is a finite number (a NaN would make every comparison pass or fail silently)."""
    tables: tuple[tuple[str, Mapping[Any, float]], ...] = (
        ("purchases", decisions.purchases),
        ("reservations", decisions.reservations),
        ("rented hours", decisions.rented_hours),
        ("owned hours", decisions.owned_hours),
        ("reserved hours", decisions.reserved_hours),
        ("replicas", decisions.replicas),
    )
    found = [
        f"{table}: {key} is {value!r}, not a finite number"
        for table, values in tables
        for key, value in values.items()
        if not math.isfinite(value)
    ]
    for key, work in decisions.work.items():
        for name, value in (("hours", work.hours), ("spot hours", work.spot_hours)):
            if not math.isfinite(value):
                found.append(f"work: {key} {name} is {value!r}, not a finite number")
    return found


def integrality_violations(decisions: Decisions) -> list[str]:
    """Purchases, reservations and replicas are whole numbers; nothing is negative."""
    found: list[str] = []
    integer_tables: tuple[tuple[str, Mapping[Any, float]], ...] = (
        ("purchases", decisions.purchases),
        ("reservations", decisions.reservations),
        ("replicas", decisions.replicas),
    )
    for table, values in integer_tables:
        for key, value in values.items():
            if not _is_integer(value):
                found.append(f"{table}: {key} is {value!r}, not a whole number")
            if value < 0:
                found.append(f"{table}: {key} is negative ({value!r})")
    hour_tables: tuple[tuple[str, Mapping[Any, float]], ...] = (
        ("rented hours", decisions.rented_hours),
        ("owned hours", decisions.owned_hours),
        ("reserved hours", decisions.reserved_hours),
    )
    for table, values in hour_tables:
        for key, value in values.items():
            if value < -HOURS_ABS_TOL or not math.isfinite(value):
                found.append(f"{table}: {key} is {value!r}, must be a number >= 0")
    for key, work in decisions.work.items():
        for name, value in (("hours", work.hours), ("spot hours", work.spot_hours)):
            if value < -HOURS_ABS_TOL or not math.isfinite(value):
                found.append(f"work: {key} {name} is {value!r}, must be a number >= 0")
    return found


def offer_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """Accounting rule 7 (``max_units``), ``available_from``, reservations inside the horizon."""
    found: list[str] = []
    offers = _offers_by_id(scenario)
    h = scenario.assumptions.hours_per_month
    t_end = scenario.horizon_months

    bought: dict[str, float] = defaultdict(float)
    for (offer_id, month), count in decisions.purchases.items():
        offer = offers.get(offer_id)
        if offer is None or count == 0:
            continue
        bought[offer_id] += count
        if month < offer.available_from:
            found.append(
                f"purchases: {count} GPUs of {offer_id} bought in month {month}, "
                f"before it is available (month {offer.available_from})"
            )
    for offer_id, total in bought.items():
        cap = offers[offer_id].max_units
        if cap is not None and total > cap + INTEGER_TOL:
            found.append(
                f"purchases: {total:g} GPUs of {offer_id} bought, more than max_units {cap}"
            )

    for (offer_id, start), count in decisions.reservations.items():
        offer = offers.get(offer_id)
        if offer is None or count == 0:
            continue
        if offer.term_months is None:
            found.append(f"reservations: {offer_id} has no term_months")
            continue
        end = start + offer.term_months - 1
        if end > t_end:
            found.append(
                f"reservations: {count} GPUs of {offer_id} from month {start} end in month {end}, "
                f"past the horizon (month {t_end})"
            )
        if start < offer.available_from:
            found.append(
                f"reservations: {count} GPUs of {offer_id} start in month {start}, "
                f"before it is available (month {offer.available_from})"
            )
    for (offer_id, t), active in sorted(active_reservations(scenario, decisions).items()):
        cap = offers[offer_id].max_units
        if cap is not None and active > cap + INTEGER_TOL:
            found.append(
                f"reservations: {active:g} GPUs of {offer_id} active in month {t}, "
                f"more than max_units {cap}"
            )

    for (offer_id, month), hours in decisions.rented_hours.items():
        offer = offers.get(offer_id)
        if offer is None or hours <= HOURS_ABS_TOL:
            continue
        if month < offer.available_from:
            found.append(
                f"rented hours: {_h(hours)} h of {offer_id} in month {month}, "
                f"before it is available (month {offer.available_from})"
            )
        if offer.max_units is not None and hours_exceed(hours, offer.max_units * h):
            found.append(
                f"rented hours: {_h(hours)} h of {offer_id} in month {month}, more than "
                f"max_units {offer.max_units} × {_h(h)} h = {_h(offer.max_units * h)} h"
            )
    return found


def _work_per_gpu(
    decisions: Decisions,
) -> tuple[dict[tuple[str, int], float], dict[tuple[str, int], float]]:
    hours: dict[tuple[str, int], float] = defaultdict(float)
    spot: dict[tuple[str, int], float] = defaultdict(float)
    for (_, gpu, t), work in decisions.work.items():
        hours[gpu, t] += work.hours
        spot[gpu, t] += work.spot_hours
    return hours, spot


def capacity_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """Pooled hours per type and month (accounting rule 5).

    Owned use ≤ ``max_utilization * H * owned``; reserved use ≤ ``H * active
    reservations``; the workloads' hours of a type equal its owned, reserved
    and on-demand hours; their spot hours equal the type's paid spot hours.
    """
    found: list[str] = []
    a = scenario.assumptions
    h = a.hours_per_month
    stock = owned_stock(scenario, decisions)
    reserved = _reserved_per_gpu(scenario, active_reservations(scenario, decisions))
    on_demand = _rented_per_gpu(scenario, decisions, OfferOption.ON_DEMAND)
    spot_paid = _rented_per_gpu(scenario, decisions, OfferOption.SPOT)
    work_hours, work_spot = _work_per_gpu(decisions)
    for g in scenario.gpus:
        for t in scenario.months:
            key = (g.name, t)
            owned = stock.get(key, 0.0)
            used_own = decisions.owned_hours.get(key, 0.0)
            used_res = decisions.reserved_hours.get(key, 0.0)
            limit_own = a.max_utilization * h * owned
            if hours_exceed(used_own, limit_own):
                found.append(
                    f"capacity: {g.name} month {t} uses {_h(used_own)} owned hours, more than "
                    f"max_utilization {a.max_utilization:g} × {_h(h)} h × {owned:g} owned = {_h(limit_own)} h"
                )
            limit_res = h * reserved.get(key, 0.0)
            if hours_exceed(used_res, limit_res):
                found.append(
                    f"capacity: {g.name} month {t} uses {_h(used_res)} reserved hours, more than "
                    f"{_h(h)} h × {reserved.get(key, 0.0):g} active reservations = {_h(limit_res)} h"
                )
            supplied = used_own + used_res + on_demand.get(key, 0.0)
            if not hours_close(work_hours.get(key, 0.0), supplied):
                found.append(
                    f"capacity: {g.name} month {t}: workloads use {_h(work_hours.get(key, 0.0))} h but "
                    f"owned {_h(used_own)} + reserved {_h(used_res)} + on-demand "
                    f"{_h(on_demand.get(key, 0.0))} = {_h(supplied)} h"
                )
            if not hours_close(work_spot.get(key, 0.0), spot_paid.get(key, 0.0)):
                found.append(
                    f"capacity: {g.name} month {t}: workloads use {_h(work_spot.get(key, 0.0))} spot "
                    f"hours but {_h(spot_paid.get(key, 0.0))} spot hours are paid"
                )
    return found


def spot_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """Spot capacity serves only interruptible workloads, and never realtime ones."""
    found: list[str] = []
    workloads = {w.name: w for w in scenario.workloads}
    for (name, gpu, t), work in sorted(decisions.work.items()):
        w = workloads.get(name)
        if w is None or work.spot_hours <= HOURS_ABS_TOL:
            continue
        if w.kind is Kind.REALTIME_INFERENCE:
            found.append(
                f"spot: realtime workload {name} uses {_h(work.spot_hours)} spot hours on {gpu} in month {t}"
            )
        elif not w.interruptible:
            found.append(
                f"spot: {name} is not interruptible but uses {_h(work.spot_hours)} spot hours "
                f"on {gpu} in month {t}"
            )
    return found


def demand_violations(
    scenario: Scenario, decisions: Decisions, estimates: Sequence[PairEstimate]
) -> list[str]:
    """Every workload's work is done, inside its window, on allowed pairs only."""
    found: list[str] = []
    pairs = {(e.workload, e.gpu): e for e in estimates}
    gpu_names = [g.name for g in scenario.gpus]
    eff = scenario.assumptions.spot_efficiency
    for w in scenario.workloads:
        window = w.window(scenario.horizon_months)
        used_pairs = {
            (gpu, t)
            for (name, gpu, t), work in decisions.work.items()
            if name == w.name and (work.hours > HOURS_ABS_TOL or work.spot_hours > HOURS_ABS_TOL)
        }
        used_pairs |= {
            (gpu, t) for (name, gpu, t), n in decisions.replicas.items() if name == w.name and n > 0
        }
        for gpu, t in sorted(used_pairs):
            estimate = pairs.get((w.name, gpu))
            if estimate is None or not estimate.allowed:
                why = "no estimate" if estimate is None else estimate.reason
                found.append(
                    f"demand: {w.name} runs on {gpu} in month {t}, a pair not allowed ({why})"
                )
            if t not in window:
                found.append(
                    f"demand: {w.name} runs on {gpu} in month {t}, outside its window "
                    f"{window.start}..{window.stop - 1}"
                )
        if w.kind.is_training:
            found += _training_demand(w, window, decisions, pairs, eff)
        elif w.kind is Kind.BATCH_INFERENCE:
            found += _batch_demand(w, window, gpu_names, decisions, pairs, eff)
        else:
            found += _realtime_demand(
                w, window, gpu_names, decisions, pairs, scenario.assumptions.hours_per_month
            )
    kinds = {w.name: w.kind for w in scenario.workloads}
    for name in decisions.picks:
        if name in kinds and not kinds[name].is_training:
            found.append(
                f"picks: {name} is {kinds[name].value}, only training jobs pick one GPU type"
            )
    for (name, gpu, t), n in sorted(decisions.replicas.items()):
        if name in kinds and kinds[name] is not Kind.REALTIME_INFERENCE and n != 0:
            found.append(
                f"replicas: {name} is {kinds[name].value}, only realtime work has replicas "
                f"({n} on {gpu} in month {t})"
            )
    return found


def _work_done(work_hours: float, spot_hours: float, spot_efficiency: float) -> float:
    """Work of paid hours: a spot hour yields ``spot_efficiency`` hours of work."""
    return work_hours + spot_efficiency * spot_hours


def _training_demand(
    w: Workload,
    window: range,
    decisions: Decisions,
    pairs: Mapping[tuple[str, str], PairEstimate],
    eff: float,
) -> list[str]:
    """One picked type, and the job's whole GPU-hours on it inside its window."""
    picked = decisions.picks.get(w.name)
    if picked is None:
        return [f"demand: training job {w.name} has no picked GPU type"]
    found: list[str] = []
    for (name, gpu, t), work in sorted(decisions.work.items()):
        if (
            name == w.name
            and gpu != picked
            and (work.hours > HOURS_ABS_TOL or work.spot_hours > HOURS_ABS_TOL)
        ):
            found.append(
                f"demand: training job {w.name} picked {picked} but runs on {gpu} in month {t}"
            )
    estimate = pairs.get((w.name, picked))
    if estimate is None or not estimate.allowed or estimate.gpu_hours is None:
        return [*found, f"demand: training job {w.name} picked {picked}, a pair not allowed"]
    done = sum(
        _work_done(work.hours, work.spot_hours, eff)
        for (name, gpu, t), work in decisions.work.items()
        if name == w.name and gpu == picked and t in window
    )
    if not hours_close(done, estimate.gpu_hours):
        found.append(
            f"demand: training job {w.name} gets {_h(done)} GPU-hours of work on {picked} in months "
            f"{window.start}..{window.stop - 1}, needs exactly {_h(estimate.gpu_hours)}"
        )
    return found


def _batch_demand(
    w: Workload,
    window: range,
    gpu_names: Iterable[str],
    decisions: Decisions,
    pairs: Mapping[tuple[str, str], PairEstimate],
    eff: float,
) -> list[str]:
    """Every month of the window: ``sum_g work / gh_g >= 1`` (types may mix)."""
    found: list[str] = []
    for t in window:
        share = 0.0
        for gpu in gpu_names:
            work = decisions.work.get((w.name, gpu, t))
            estimate = pairs.get((w.name, gpu))
            if work is None or estimate is None or not estimate.allowed or not estimate.gpu_hours:
                continue
            share += _work_done(work.hours, work.spot_hours, eff) / estimate.gpu_hours
        if share < 1.0 - HOURS_REL_TOL:
            found.append(
                f"demand: batch job {w.name} in month {t} gets {share:.6%} of its monthly work"
            )
    return found


def _realtime_demand(
    w: Workload,
    window: range,
    gpu_names: Iterable[str],
    decisions: Decisions,
    pairs: Mapping[tuple[str, str], PairEstimate],
    h: float,
) -> list[str]:
    """Every month of the window, enough replicas; each type's hours = replicas × k × H."""
    found: list[str] = []
    demand = w.tokens_per_second or 0.0
    for t in window:
        served = 0.0
        for gpu in gpu_names:
            replicas = decisions.replicas.get((w.name, gpu, t), 0)
            work = decisions.work.get((w.name, gpu, t))
            hours = work.hours if work is not None else 0.0
            estimate = pairs.get((w.name, gpu))
            if estimate is None or not estimate.allowed:
                continue
            k = estimate.gpus_per_replica or 1
            served += (estimate.tokens_per_second_per_replica or 0.0) * replicas
            if not hours_close(hours, replicas * k * h):
                found.append(
                    f"demand: realtime {w.name} on {gpu} in month {t} uses {_h(hours)} h, but "
                    f"{replicas} replicas × {k} GPUs × {_h(h)} h = {_h(replicas * k * h)} h"
                )
        if served < demand * (1.0 - HOURS_REL_TOL):
            found.append(
                f"demand: realtime {w.name} in month {t} serves {served:,.6g} tokens/s, "
                f"needs {demand:,.6g}"
            )
    return found


def power_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """Owned GPUs' ``tdp_w * pue`` summed ≤ ``power_cap_kw * 1000`` in every month."""
    found: list[str] = []
    stock = owned_stock(scenario, decisions)
    gpus = {g.name: g for g in scenario.gpus}
    for (gpu, _), owned in stock.items():
        if owned > 0 and gpus[gpu].tdp_w is None:
            found.append(f"power: {owned:g} {gpu} owned but the type has no tdp_w, energy unknown")
            break
    if scenario.power_cap_kw is None:
        return found
    limit_w = scenario.power_cap_kw * 1000.0
    for t in scenario.months:
        draw_w = sum(
            stock.get((g.name, t), 0.0) * (g.tdp_w or 0.0) * scenario.assumptions.pue
            for g in scenario.gpus
        )
        if draw_w > limit_w * (1 + 1e-9) + 1e-9:
            found.append(
                f"power: owned GPUs draw {draw_w / 1000:,.6g} kW incl. PUE in month {t}, "
                f"more than power_cap_kw {scenario.power_cap_kw:g}"
            )
    return found


def budget_violations(
    scenario: Scenario, cash: Mapping[int, Mapping[CostCategory, float]]
) -> list[str]:
    """Capex, each month's operating spend and all cash, undiscounted, before credit."""
    found: list[str] = []
    capex = sum(m[CostCategory.PURCHASE] for m in cash.values())
    if scenario.budget_capex is not None and capex > scenario.budget_capex + HALF_CENT:
        found.append(
            f"budget: purchases {_usd(capex)} exceed budget_capex {_usd(scenario.budget_capex)}"
        )
    if scenario.budget_monthly is not None:
        for t, amounts in sorted(cash.items()):
            opex = sum(amounts[c] for c in OPERATING)
            if opex > scenario.budget_monthly + HALF_CENT:
                found.append(
                    f"budget: operating spend {_usd(opex)} in month {t} exceeds budget_monthly "
                    f"{_usd(scenario.budget_monthly)}"
                )
    total = sum(sum(m.values()) for m in cash.values())
    if scenario.budget_total is not None and total > scenario.budget_total + HALF_CENT:
        found.append(
            f"budget: all cash {_usd(total)} exceeds budget_total {_usd(scenario.budget_total)}"
        )
    return found


# ---------------------------------------------------------------- what the plan reports


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
