"""The expected future, and a future re-planned with given shared decisions (issue 19).

:func:`expected_future` is the :class:`~optimizer.domain.futures.FutureSpec` whose
every figure is the probability-weighted mean of the futures' figures:

* demand: per realtime or batch workload, ``sum_f p_f * demand_factor_f *
  workload_factor_f(w)`` (one ``workload_demand_factors`` entry per
  workload, ``demand_factor`` 1);
* growth: per such workload, ``sum_f p_f * growth_f(w)``, where
  ``growth_f(w)`` is what future ``f`` sets (its ``workload_growth`` entry,
  else its ``growth_per_month``, else the workload's own growth);
* prices: per GPU type and option of the scenario's offers (and buying, for
  the listed prices), ``sum_f p_f * (product of f's factors that apply)``, one
  :class:`~optimizer.domain.futures.PriceFactor` each.

It is the mean of each input, not the mean demand path: with different
growth rates the mean of ``(1 + g_f) ** t`` is not ``(1 + mean g) ** t``.

:func:`fixed_levels` turns a plan's decisions into the stock levels and sales
of months ``1..D`` that a future's model is then held to.
"""

from __future__ import annotations

from optimizer.domain import OfferOption, Scenario
from optimizer.domain.future_scenario import scaled_kinds
from optimizer.domain.futures import Futures, FutureSpec, PriceFactor
from optimizer.model.built import BuiltModel
from optimizer.model.costs import existing_servers_of, reservation_months
from optimizer.results import Decisions

EXPECTED = "expected future"


def _growth(spec: FutureSpec, workload: str, own: float) -> float:
    given = dict(spec.workload_growth).get(workload, spec.growth_per_month)
    return own if given is None else given


def _price_factor(spec: FutureSpec, gpu: str, option: OfferOption) -> float:
    factor = 1.0
    for p in spec.price_factors:
        if p.applies_to(gpu, option):
            factor *= p.factor
    return factor


def expected_future(scenario: Scenario, futures: Futures) -> FutureSpec:
    """The future whose every figure is the probability-weighted mean of the futures'."""
    specs = futures.futures
    factors: list[tuple[str, float]] = []
    growth: list[tuple[str, float]] = []
    for w in scenario.workloads:
        if w.kind not in scaled_kinds():
            continue
        factors.append(
            (
                w.name,
                sum(
                    f.probability
                    * f.demand_factor
                    * dict(f.workload_demand_factors).get(w.name, 1.0)
                    for f in specs
                ),
            )
        )
        growth.append(
            (w.name, sum(f.probability * _growth(f, w.name, w.growth_per_month) for f in specs))
        )
    pairs = {(o.gpu, o.option) for o in scenario.offers}
    pairs |= {(g, OfferOption.BUY) for g, _ in scenario.listed_buy_prices}
    prices = tuple(
        PriceFactor(sum(f.probability * _price_factor(f, g, opt) for f in specs), g, opt)
        for g, opt in sorted(pairs, key=lambda p: (p[0], p[1].value))
    )
    return FutureSpec(
        name=EXPECTED,
        probability=1.0,
        workload_demand_factors=tuple(factors),
        workload_growth=tuple(growth),
        price_factors=prices,
    )


def fixed_levels(built: BuiltModel, decisions: Decisions, D: int) -> dict[str, float]:
    """The levels and sales of months ``<= D`` in ``built`` that ``decisions`` lead to, by name.

    Levels from month 1: an owned Fleet row's count (or 0) plus purchases
    minus sales so far; reserved GPUs of starts whose term covers the month;
    servers as GPUs, from the type's existing servers.
    """
    s = built.scenario
    values: dict[str, float] = {}
    for (oid, t), var in built.owned.items():
        if t <= D:
            level = built.existing_count(oid)
            for m in range(1, t + 1):
                level += decisions.purchases.get((oid, m), 0) - decisions.sales.get((oid, m), 0)
            values[var.name] = float(level)
    for (oid, t), var in built.sell.items():
        if t <= D:
            values[var.name] = float(decisions.sales.get((oid, t), 0))
    offers = {o.offer_id: o for o in s.all_offers}
    for (oid, t), var in built.active.items():
        if t <= D:
            values[var.name] = float(
                sum(
                    n
                    for (rid, start), n in decisions.reservations.items()
                    if rid == oid and t in reservation_months(offers[oid], start)
                )
            )
    for (g, t), var in built.servers.items():
        if t <= D:
            level = existing_servers_of(s, g)
            for m in range(1, t + 1):
                level += decisions.server_purchases.get((g, m), 0)
                level -= decisions.server_sales.get((g, m), 0)
            values[var.name] = float(level)
    for (g, t), var in built.server_sell.items():
        if t <= D:
            values[var.name] = float(decisions.server_sales.get((g, t), 0))
    return values
