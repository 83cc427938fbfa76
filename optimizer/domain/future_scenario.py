"""A future's plain scenario: the scenario with the future's figures changed (issue 19).

Takes a :class:`~optimizer.domain.frozen.Scenario` and one
:class:`~optimizer.domain.futures.FutureSpec`; hands on the plain scenario that
future is, which the model, the solver and the independent checker treat like
any other.
"""

from __future__ import annotations

from dataclasses import replace

from optimizer.domain.choices import Kind, OfferOption
from optimizer.domain.frozen import Offer, Scenario, Workload
from optimizer.domain.futures import FutureSpec, future_name


def _scaled_workload(w: Workload, spec: FutureSpec) -> Workload:
    if w.kind.is_training:
        return w
    factor = spec.demand_factor * dict(spec.workload_demand_factors).get(w.name, 1.0)
    growth = dict(spec.workload_growth).get(w.name, spec.growth_per_month)
    return replace(
        w,
        demand_multiplier=w.demand_multiplier * factor,
        growth_per_month=w.growth_per_month if growth is None else growth,
    )


def _priced_offer(o: Offer, spec: FutureSpec) -> Offer:
    price = o.price
    for p in spec.price_factors:
        if p.applies_to(o.gpu, o.option):
            price *= p.factor
    return o if price == o.price else replace(o, price=price)


def _listed_price(gpu: str, price: float, spec: FutureSpec) -> float:
    for p in spec.price_factors:
        if p.applies_to(gpu, OfferOption.BUY):
            price *= p.factor
    return price


def future_scenario(base: Scenario, spec: FutureSpec) -> Scenario:
    """The scenario ``base`` becomes in future ``spec`` (named :func:`future_name`).

    Offers keep their ids, so a decision in one future names the same offer
    in every other. The Fleet's rows (what is owned or already reserved) are
    not repriced: their prices are facts, not forecasts. Futures plan by cost
    alone (``change_cost`` 0): expected cost, regret, EVPI and VSS compare
    costs, and a charge per move is no cost (methodology 2.16).
    """
    return replace(
        base,
        assumptions=replace(base.assumptions, change_cost=0.0),
        name=future_name(base.name, spec.name),
        workloads=tuple(_scaled_workload(w, spec) for w in base.workloads),
        offers=tuple(_priced_offer(o, spec) for o in base.offers),
        listed_buy_prices=tuple((g, _listed_price(g, p, spec)) for g, p in base.listed_buy_prices),
        futures=None,
    )


def scaled_kinds() -> tuple[Kind, ...]:
    """The workload kinds a demand factor or growth applies to."""
    return (Kind.REALTIME_INFERENCE, Kind.BATCH_INFERENCE)
