"""What a plan reaches on each goal, and its fleet in a few figures, recomputed from the plan.

Takes a solved :class:`~optimizer.results.Plan` (its decisions, fleet, cash
flow and assignments: never the model), so the figures the alternatives
report do not depend on the expressions the model minimised. The goals are
defined in :mod:`optimizer.model.goal_names`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from optimizer.domain import CostCategory
from optimizer.model.goal_names import Goal
from optimizer.results import Plan

PROVIDER_CATEGORIES = (CostCategory.ON_DEMAND, CostCategory.SPOT, CostCategory.RESERVED)


def capex_of(plan: Plan) -> float:
    """Purchases over the horizon, undiscounted: GPUs x price + servers x node_price."""
    d = plan.decisions
    if d is None:
        return 0.0
    s = plan.scenario
    price = {o.offer_id: o.price for o in s.offers}
    gpus = sum(n * price[oid] for (oid, _t), n in d.purchases.items())
    return gpus + sum(n * s.gpu(g).node_price for (g, _t), n in d.server_purchases.items())


def rent_of(plan: Plan) -> float:
    """Cash paid to providers, undiscounted: on-demand, spot and reserved."""
    return sum(m.amounts.get(c, 0.0) for m in plan.cash_flow for c in PROVIDER_CATEGORIES)


def _by_month(plan: Plan, value: dict[str, float]) -> dict[int, float]:
    """Sum over GPU types of ``value[kind]``-weighted fleet figures, per month."""
    H = plan.scenario.assumptions.hours_per_month
    totals: dict[int, float] = defaultdict(float)
    for row in plan.fleet:
        rented = (row.rented_hours + row.spot_hours) / H
        totals[row.month] += (
            value["owned"] * row.owned + value["reserved"] * row.reserved + value["rented"] * rented
        )
    return totals


def peak_gpus(plan: Plan) -> float:
    """The most GPUs held in any month: owned + reserved + rented paid hours / hours_per_month."""
    held = _by_month(plan, {"owned": 1.0, "reserved": 1.0, "rented": 1.0})
    return max(held.values(), default=0.0)


def peak_power_kw(plan: Plan) -> float:
    """The largest owned draw in any month (kW): (tdp_w x owned + node_power_w x servers) x pue."""
    s = plan.scenario
    draw: dict[int, float] = defaultdict(float)
    for row in plan.fleet:
        g = s.gpu(row.gpu)
        watts = (g.tdp_w or 0.0) * row.owned + g.node_power_w * row.servers
        draw[row.month] += watts * s.assumptions.pue / 1000.0
    return max(draw.values(), default=0.0)


def hours_not_owned(plan: Plan) -> float:
    """GPU-hours paid for outside the house: rented and spot hours + reserved GPUs x H."""
    H = plan.scenario.assumptions.hours_per_month
    return sum(_by_month(plan, {"owned": 0.0, "reserved": H, "rented": H}).values())


def owned_share(plan: Plan) -> float | None:
    """Share of the GPU-hours held that are owned (None when the plan holds none)."""
    H = plan.scenario.assumptions.hours_per_month
    owned = sum(row.owned for row in plan.fleet) * H
    total = owned + hours_not_owned(plan)
    return owned / total if total > 0 else None


def types_used(plan: Plan) -> int:
    """GPU types that serve or run any work in any month."""
    return len({a.gpu for a in plan.assignments if a.gpu_hours > 0})


def goal_value(plan: Plan, goal: Goal) -> float | None:
    """The value ``plan`` reaches on ``goal`` (None when there is no plan)."""
    if not plan.status.has_plan:
        return None
    figures = {
        Goal.LEAST_CAPEX: capex_of,
        Goal.LEAST_RENT: rent_of,
        Goal.FEWEST_TYPES: types_used,
        Goal.FEWEST_GPUS: peak_gpus,
        Goal.MOST_OWNED: hours_not_owned,
        Goal.LEAST_POWER: peak_power_kw,
    }
    return float(figures[goal](plan))


@dataclass(frozen=True)
class TypeFleet:
    """One GPU type in a plan: bought in all, the most owned and reserved at once, rented hours."""

    gpu: str
    bought: int
    peak_owned: int
    peak_reserved: int
    rented_hours: float  # on-demand and spot paid GPU-hours over the horizon

    @property
    def empty(self) -> bool:
        return not (self.bought or self.peak_owned or self.peak_reserved or self.rented_hours)


def fleet_summary(plan: Plan) -> tuple[TypeFleet, ...]:
    """Per GPU type, in sheet order, the types the plan holds or rents at all."""
    rows = []
    for g in plan.scenario.gpus:
        mine = [r for r in plan.fleet if r.gpu == g.name]
        summary = TypeFleet(
            gpu=g.name,
            bought=sum(r.bought for r in mine),
            peak_owned=max((r.owned for r in mine), default=0),
            peak_reserved=max((r.reserved for r in mine), default=0),
            rented_hours=sum(r.rented_hours + r.spot_hours for r in mine),
        )
        if not summary.empty:
            rows.append(summary)
    return tuple(rows)
