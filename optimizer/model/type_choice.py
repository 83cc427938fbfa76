"""Each workload's cheapest GPU type by price alone, and every column of a GPU type.

The plan-first phase (:mod:`optimizer.solve.plan_first`) needs a first plan
on models too large for the aggregated model's root ((20, 50, 60): 100,000
and more integers, whose LP relaxation alone takes 30-47 s). Most of their
GPU types are no workload's best: the full model restricted to the types
that are some workload's cheapest is a small model, and every plan of it is
a plan of the full model at the same cost (the other types' columns are only
fixed at 0). Which type is a workload's cheapest is judged from prices and
the pair estimates, without an LP:

* training and batch work: the pair's GPU-hours times the type's cheapest
  hourly price;
* realtime serving: the type's cheapest hourly price times the GPUs of a
  replica over the tokens per second it serves, at its cheapest width;

where a type's hourly price is the least of its offers': on-demand and
reserved at their price, a purchase (server share, maintenance and rack space
included) spread over ``depreciation_months`` of ``max_utilization`` hours
plus its power, spot at its price over
``spot_efficiency`` (spot only where the type has nothing else). Types with
GPUs in the Fleet are always kept: their GPUs exist whatever the plan.
"""

from __future__ import annotations

import math
from collections import defaultdict

import pulp

from optimizer.domain import Gpu, Offer, OfferOption, Scenario
from optimizer.model.built import BuiltModel
from optimizer.model.costs import colocation_per_month, energy_cost_per_hour, maintenance_per_month
from optimizer.results import PairEstimate


def hourly_price(offer: Offer, gpu: Gpu, scenario: Scenario) -> float:
    """What one GPU-hour of ``offer`` costs: a purchase (with its server share) and its
    maintenance and rack space spread over the hours it works in ``depreciation_months``,
    plus its power (the model's own cost terms, :mod:`optimizer.model.costs`)."""
    a = scenario.assumptions
    if offer.option is OfferOption.BUY:
        months = a.depreciation_months
        worked = months * a.hours_per_month * a.max_utilization
        upfront = offer.price + gpu.node_price / max(gpu.max_per_node, 1)
        upkeep = maintenance_per_month(offer, a) + colocation_per_month(gpu.tdp_w or 0.0, a)
        return (upfront + upkeep * months) / worked + energy_cost_per_hour(gpu, a)
    if offer.option is OfferOption.SPOT:
        return offer.price / a.spot_efficiency
    return offer.price


def type_prices(built: BuiltModel) -> dict[str, float]:
    """Each GPU type's cheapest hourly price among the Prices offers the model uses (spot
    last). Fleet rows are left out: what exists is no price for what must be added."""
    gpus = {g.name: g for g in built.scenario.gpus}
    market = {o.offer_id for o in built.scenario.offers}
    firm: dict[str, float] = {}
    spot: dict[str, float] = {}
    for offer in built.offers:
        if offer.gpu not in gpus or offer.offer_id not in market:
            continue
        price = hourly_price(offer, gpus[offer.gpu], built.scenario)
        into = spot if offer.option is OfferOption.SPOT else firm
        into[offer.gpu] = min(into.get(offer.gpu, math.inf), price)
    return {g: firm.get(g, spot.get(g, math.inf)) for g in set(firm) | set(spot)}


def work_cost(pair: PairEstimate, price: float) -> float:
    """The cost of the pair's work at ``price`` a GPU-hour (inf: no figure to judge by)."""
    if pair.gpu_hours:
        return pair.gpu_hours * price
    costs = [
        price * width.width / width.tokens_per_second_per_replica
        for width in pair.serving_widths()
        if width.tokens_per_second_per_replica
    ]
    return min(costs, default=math.inf)


def cheapest_types(built: BuiltModel, per_workload: int = 1) -> tuple[str, ...]:
    """Every workload's ``per_workload`` cheapest GPU types, and the types with Fleet rows,
    in the scenario's order."""
    prices = type_prices(built)
    by_workload: dict[str, list[tuple[float, int, str]]] = defaultdict(list)
    order = {g.name: i for i, g in enumerate(built.scenario.gpus)}
    for (workload, gpu), pair in built.estimates.items():
        if gpu in prices and pair.allowed:
            by_workload[workload].append((work_cost(pair, prices[gpu]), order[gpu], gpu))
    kept = {gpu for costs in by_workload.values() for _c, _i, gpu in sorted(costs)[:per_workload]}
    kept |= {row.gpu for row in built.scenario.fleet}
    return tuple(g.name for g in built.scenario.gpus if g.name in kept)


def columns_of_types(built: BuiltModel) -> dict[str, list[pulp.LpVariable]]:
    """Every column that belongs to one GPU type (by its name, an offer's or a Fleet row's)."""
    gpu_of = {o.offer_id: o.gpu for o in built.scenario.all_offers}
    found: dict[str, list[pulp.LpVariable]] = defaultdict(list)
    by_offer = (built.buy, built.reserve, built.owned, built.sell, built.active, built.rent)
    for family in by_offer:
        for (offer, _t), var in family.items():
            found[gpu_of[offer]].append(var)
    for by_gpu in (built.servers, built.server_buy, built.server_sell):
        for (gpu, _t), var in by_gpu.items():
            found[gpu].append(var)
    for work_key, var in built.work.items():
        found[work_key[1]].append(var)
    for rep_key, var in built.replicas.items():
        found[rep_key[1]].append(var)
    for move_key, var in built.moves.items():
        found[move_key[1]].append(var)
    for slot_key, var in built.slots.items():
        found[slot_key[0]].append(var)
    for run_key, var in built.runs_in.items():
        found[run_key[1]].append(var)
    for slots_key, by_width in built.run_slots.items():
        found[slots_key[1]].extend(by_width.values())
    for (_w, gpu), var in built.pick.items():
        found[gpu].append(var)
    return dict(found)
