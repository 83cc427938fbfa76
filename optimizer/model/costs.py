"""Cost coefficients and small rules of the model, free of PuLP.

Takes ``domain`` assumptions, GPUs, offers and workloads and ``results.PairEstimate``
rows; hands on plain numbers and yes/no rules: discounting, energy, maintenance,
residual value, reservation months, which pairs the model can use, where spot is
allowed and which offers are dominated. The model prices its variables with these
formulas and plan assembly (``optimizer.solve.assemble``) computes a plan's money
from its decisions with exactly the same ones. Must not import PuLP.
"""

from __future__ import annotations

from collections.abc import Sequence

from optimizer.domain import (
    Assumptions,
    ExistingGpus,
    FleetKind,
    Gpu,
    Kind,
    Offer,
    ResidualValue,
    Scenario,
    Workload,
)
from optimizer.results import PairEstimate


def discount_factor(a: Assumptions, month: int) -> float:
    """``(1 + discount_rate) ** (-(t - 1) / 12)``: month 1 is not discounted."""
    return float((1.0 + a.discount_rate) ** (-(month - 1) / 12.0))


def energy_cost_per_hour(gpu: Gpu, a: Assumptions) -> float:
    """USD per powered GPU-hour of an owned GPU at full draw (TDP × PUE × price)."""
    return (gpu.tdp_w or 0.0) / 1000.0 * a.pue * a.electricity_per_kwh


def maintenance_per_month(offer: Offer, a: Assumptions) -> float:
    """USD per owned GPU per month bought from ``offer``."""
    return a.maintenance_per_year / 12.0 * offer.price


def owned_running_per_month(gpu: Gpu, offer: Offer, a: Assumptions) -> float:
    """USD a month an owned GPU costs whether it works or not: maintenance on its price,
    idle power (with PUE) all month, and the rack space for its TDP."""
    return (
        maintenance_per_month(offer, a)
        + energy_cost_per_hour(gpu, a) * a.idle_power_fraction * a.hours_per_month
        + colocation_per_month(gpu.tdp_w or 0.0, a)
    )


def residual_fraction(a: Assumptions, horizon: int, month: int) -> float:
    """Share of the price credited at book value for a GPU bought in ``month`` (``book`` only)."""
    if a.residual_rule is not ResidualValue.BOOK:
        return 0.0
    age = horizon - month + 1
    return max(0.0, 1.0 - age / a.depreciation_months)


def existing_residual_fraction(a: Assumptions, horizon: int, row: ExistingGpus) -> float:
    """Share of an owned Fleet row's price credited at book value: it is
    ``age_months + T`` months old at the end (``book`` only)."""
    if a.residual_rule is not ResidualValue.BOOK:
        return 0.0
    return max(0.0, 1.0 - (row.age_months + horizon) / a.depreciation_months)


def existing_servers_of(scenario: Scenario, gpu: str) -> int:
    """Servers that come with the owned Fleet rows of ``gpu`` (model v2 §E): each row's
    ``ceil(count / max_per_node)``; none where the type has no servers."""
    g = scenario.gpu(gpu)
    if not g.has_servers:
        return 0
    return sum(
        -(-r.count // g.max_per_node)
        for r in scenario.fleet
        if r.gpu == gpu and r.kind is FleetKind.OWNED
    )


def existing_server_credit(scenario: Scenario, row: ExistingGpus) -> float:
    """Book value at the horizon of the servers that came with an owned Fleet row: as old
    as its GPUs, priced at ``node_price`` (``book`` only; 0 without servers)."""
    gpu = scenario.gpu(row.gpu)
    if not gpu.has_servers or row.kind is not FleetKind.OWNED:
        return 0.0
    servers = -(-row.count // gpu.max_per_node)
    return (
        gpu.node_price
        * servers
        * existing_residual_fraction(scenario.assumptions, scenario.horizon_months, row)
    )


def resale_value(scenario: Scenario, gpu: str, month: int) -> float:
    """What one used ``gpu`` fetches when sold at the start of ``month`` (model v2 §E).

    ``resale_fraction * reference_price * (1 - resale_decline_per_year) ** ((t - 1) / 12)``;
    month ``T + 1`` is the market credit at the horizon.
    """
    return _used_price(scenario.assumptions, scenario.reference_price(gpu) or 0.0, month)


def node_resale_value(scenario: Scenario, gpu: Gpu, month: int) -> float:
    """A server sold with its last GPUs: ``resale_fraction`` of ``node_price`` on the same curve."""
    return _used_price(scenario.assumptions, gpu.node_price, month)


def _used_price(a: Assumptions, new_price: float, month: int) -> float:
    """The market curve of used hardware: a share of the new price, falling each year."""
    decline = (1.0 - a.resale_decline_per_year) ** ((month - 1) / 12.0)
    return float(a.resale_fraction * new_price * decline)


def server_running_per_month(gpu: Gpu, a: Assumptions) -> float:
    """USD a month per owned server: maintenance on its price, its own draw all month
    (with PUE) and the rack space for that draw (model v2 §E)."""
    maintenance = a.maintenance_per_year / 12.0 * gpu.node_price
    energy = gpu.node_power_w / 1000.0 * a.pue * a.hours_per_month * a.electricity_per_kwh
    return maintenance + energy + colocation_per_month(gpu.node_power_w, a)


def colocation_per_month(watts: float, a: Assumptions) -> float:
    """USD a month of rack space for ``watts`` of owned IT power (before PUE)."""
    return watts / 1000.0 * a.colocation_per_kw_month


def reservation_months(offer: Offer, start: int) -> range:
    """Months a reservation of ``offer`` starting in ``start`` is active (and paid)."""
    return range(start, start + (offer.term_months or 0))


def usable_estimate(est: PairEstimate, workload: Workload) -> bool:
    """An allowed pair with the figures its kind needs (the model cannot use it otherwise)."""
    if not est.allowed:
        return False
    if workload.kind is Kind.REALTIME_INFERENCE:
        return bool(
            est.gpus_per_replica
            and est.gpus_per_replica > 0
            and est.tokens_per_second_per_replica
            and est.tokens_per_second_per_replica > 0
        )
    return bool(est.gpu_hours and est.gpu_hours > 0)


def spot_allowed(workload: Workload) -> bool:
    """Spot capacity serves interruptible work only, and never realtime serving."""
    return workload.interruptible and workload.kind is not Kind.REALTIME_INFERENCE


def dominated_offers(offers: Sequence[Offer]) -> frozenset[str]:
    """Offer ids that an uncapped offer of the same type and option makes redundant.

    ``b`` is dominated by ``a`` when ``a`` is uncapped, costs no more, is
    available no later and (reserved) has the same term; ties go to the offer
    listed first. Leaving ``b`` out cannot raise the optimum: every unit of
    ``b`` can be replaced by a unit of ``a`` at no higher cost, budget use or
    power draw.
    """
    return jointly_dominated_offers((offers,))


def jointly_dominated_offers(offer_lists: Sequence[Sequence[Offer]]) -> frozenset[str]:
    """Offer ids dominated (as in :func:`dominated_offers`) by the same offer in every list.

    The lists are one scenario's offers in several futures (the same ids in
    the same order, prices differing): ``b`` is left out only when one offer
    ``a`` dominates it in every future, so a shared purchase of ``b`` can be
    replaced by one of ``a`` in all futures at once.
    """
    first = offer_lists[0]
    dropped: set[str] = set()
    for i, b in enumerate(first):
        for j, a in enumerate(first):
            if i == j or a.offer_id in dropped:
                continue
            if all(_dominates(o[j], o[i], j < i) for o in offer_lists):
                dropped.add(b.offer_id)
                break
    return frozenset(dropped)


def _dominates(a: Offer, b: Offer, a_first: bool) -> bool:
    same = a.gpu == b.gpu and a.option is b.option and a.term_months == b.term_months
    if not same or a.max_units is not None:
        return False
    no_worse = a.price <= b.price and a.available_from <= b.available_from
    strictly = a.price < b.price or a.available_from < b.available_from or a_first
    return no_worse and strictly
