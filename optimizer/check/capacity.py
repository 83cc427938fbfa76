"""Stock and places (model v2 §A): what each place of a GPU type holds in each month.

Takes a ``Scenario`` and the plan's ``Decisions``; hands on the owned stock and
active reservations, each place's kind, size and label, and the figures derived
from the decisions alone (:func:`derived_hours`): paid rental hours, GPUs
pinned by replicas, work hours and slots per place, and the house's used
hours. Nothing here finds a violation; the rule modules read these figures.

A place of type ``g`` is :data:`~optimizer.results.HOUSE` (the owned GPUs of
``g``) or the id of a reserved, on-demand or spot offer of ``g``. The house,
reserved offers and rental offers with ``max_units`` are finite places of size
``N[p,t]``; an uncapped rental offer has no size.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from optimizer.check.fleet import existing_gpus, fleet_offers
from optimizer.domain import Assumptions, Offer, OfferOption, Scenario
from optimizer.results import HOUSE, Decisions

RENTAL = (OfferOption.ON_DEMAND, OfferOption.SPOT)


def offers_by_id(scenario: Scenario) -> dict[str, Offer]:
    """The Prices offers and the Fleet rows (model v2 §E), by the ids decisions use."""
    return {**{o.offer_id: o for o in scenario.offers}, **fleet_offers(scenario)}


def source_stock(scenario: Scenario, decisions: Decisions) -> dict[tuple[str, int], float]:
    """GPUs of each source owned in each month 1..T: what an owned Fleet row starts with,
    plus bought so far, minus sold so far.

    A level can come out negative (more sold than bought): a violation that
    :func:`optimizer.check.decisions.sale_violations` reports.
    """
    bought = existing_gpus(scenario)
    for key, n in decisions.purchases.items():
        bought[key] = bought.get(key, 0.0) + n
    return running_levels(scenario.horizon_months, bought, decisions.sales)


def spread_over_units(
    levels: Mapping[tuple[str, int], float],
    net: Mapping[str, float],
    gpu_of: Mapping[str, str],
    paid: dict[tuple[str, int], float],
) -> None:
    """Each key's ``net`` cost over the unit-months it holds: month ``t`` takes
    ``level[key,t] / sum of its levels`` of it, on the key's GPU type.
    A negative level (reported by the stock rules) takes nothing."""
    totals: dict[str, float] = defaultdict(float)
    for (key, _t), level in levels.items():
        totals[key] += max(level, 0.0)
    for (key, t), level in levels.items():
        if key in gpu_of and level > 0:
            paid[gpu_of[key], t] += net.get(key, 0.0) * level / totals[key]


def running_levels(
    horizon: int, bought: Mapping[tuple[str, int], float], sold: Mapping[tuple[str, int], float]
) -> dict[tuple[str, int], float]:
    """Units of each key held in each month 1..``horizon``: bought so far minus sold so far."""
    stock: dict[tuple[str, int], float] = defaultdict(float)
    moves = [(k, float(n)) for k, n in bought.items()]
    moves += [(k, -float(n)) for k, n in sold.items()]
    for (key, month), count in moves:
        for t in range(max(month, 1), horizon + 1):
            stock[key, t] += count
    return stock


def owned_stock(scenario: Scenario, decisions: Decisions) -> dict[tuple[str, int], float]:
    """GPUs of each type owned in each month: the stock of each of its buy offers."""
    offers = offers_by_id(scenario)
    stock: dict[tuple[str, int], float] = defaultdict(float)
    for (offer_id, t), count in source_stock(scenario, decisions).items():
        offer = offers.get(offer_id)
        if offer is not None:
            stock[offer.gpu, t] += count
    return stock


def active_reservations(scenario: Scenario, decisions: Decisions) -> dict[tuple[str, int], float]:
    """Reserved GPUs of each offer active in each month 1..T (``start .. start + term - 1``)."""
    offers = offers_by_id(scenario)
    active: dict[tuple[str, int], float] = defaultdict(float)
    for (offer_id, start), count in decisions.reservations.items():
        offer = offers.get(offer_id)
        if offer is None or offer.term_months is None:
            continue
        for t in range(start, start + offer.term_months):
            if 1 <= t <= scenario.horizon_months:
                active[offer_id, t] += count
    return active


def reserved_per_gpu(
    scenario: Scenario, active: Mapping[tuple[str, int], float]
) -> dict[tuple[str, int], float]:
    offers = offers_by_id(scenario)
    per_gpu: dict[tuple[str, int], float] = defaultdict(float)
    for (offer_id, t), count in active.items():
        per_gpu[offers[offer_id].gpu, t] += count
    return per_gpu


def bought_per_gpu(
    scenario: Scenario, moves: Mapping[tuple[str, int], int]
) -> dict[tuple[str, int], float]:
    """GPUs of each type bought (or sold) in each month, from per-offer purchases (or sales)."""
    offers = offers_by_id(scenario)
    per_gpu: dict[tuple[str, int], float] = defaultdict(float)
    for (offer_id, t), count in moves.items():
        offer = offers.get(offer_id)
        if offer is not None:
            per_gpu[offer.gpu, t] += count
    return per_gpu


def place_kind(offers: Mapping[str, Offer], gpu: str, place: str) -> str | None:
    """``house``, ``reserved``, ``on_demand`` or ``spot``; None when ``place`` is no place of ``gpu``.

    A buy offer, an offer of another type and an unknown id are no places.
    """
    if place == HOUSE:
        return HOUSE
    offer = offers.get(place)
    if offer is None or offer.gpu != gpu or offer.option is OfferOption.BUY:
        return None
    return offer.option.value


def is_finite(offers: Mapping[str, Offer], gpu: str, place: str) -> bool:
    """The house, a reserved offer, or a rental offer with ``max_units`` (of ``gpu``)."""
    kind = place_kind(offers, gpu, place)
    if kind is None:
        return False
    return kind in (HOUSE, OfferOption.RESERVED.value) or offers[place].max_units is not None


def place_utilization(a: Assumptions, kind: str) -> float:
    """``u_p``: ``max_utilization`` for the house and reserved places, 1 for rental offers."""
    return a.max_utilization if kind in (HOUSE, OfferOption.RESERVED.value) else 1.0


def place_name(gpu: str, place: str) -> str:
    """How violation lines name a place: ``"<gpu> house"`` or the offer id (``"H100|reserved|1"``)."""
    return f"{gpu} house" if place == HOUSE else place


def offer_label(offer: Offer | None, offers: dict[str, Offer]) -> str | None:
    """How results name a place's offer: its provider, else ``"<gpu> <option> row <n>"``;
    a provider's offers of one type and option each with its row where there are two."""
    if offer is None:
        return None
    if not offer.provider:
        return f"{offer.gpu} {offer.option.value} row {offer.row}"
    same = [
        o
        for o in offers.values()
        if (o.gpu, o.option, o.provider) == (offer.gpu, offer.option, offer.provider)
    ]
    if len(same) == 1:
        return offer.provider
    return (
        f"{offer.provider} (row {offer.row})"
        if offer.row
        else f"{offer.provider} ({offer.offer_id})"
    )


def finite_place_sizes(
    scenario: Scenario, decisions: Decisions
) -> dict[tuple[str, str, int], float]:
    """``N[p,t]`` of every finite place of every type and month 1..T.

    The house holds the type's owned GPUs, a reserved offer its active
    reservations, a capped rental offer ``max_units`` from its
    ``available_from`` month (0 before: the offer is no place yet).
    """
    stock = owned_stock(scenario, decisions)
    active = active_reservations(scenario, decisions)
    sizes: dict[tuple[str, str, int], float] = {}
    for t in scenario.months:
        for g in scenario.gpus:
            sizes[g.name, HOUSE, t] = stock.get((g.name, t), 0.0)
        for o in offers_by_id(scenario).values():
            if o.option is OfferOption.RESERVED:
                sizes[o.gpu, o.offer_id, t] = active.get((o.offer_id, t), 0.0)
            elif o.option in RENTAL and o.max_units is not None:
                sizes[o.gpu, o.offer_id, t] = float(o.max_units) if t >= o.available_from else 0.0
    return sizes


@dataclass(frozen=True)
class DerivedHours:
    """Figures derived from a plan's decisions, never stored beside them (model v2 §A–§B).

    ``paid``: paid hours of each on-demand or spot offer and month, its work
    plus ``width × H × replicas`` on it. ``pinned``: GPUs of each (type, place,
    month) held by replicas, ``sum width × replicas``. ``work``: paid work hours
    of each (type, place, month). ``slots``: (type, place, month) -> copy width
    -> slots. ``house_used``: (type, month) -> ``H × pinned house GPUs + house
    work hours``, the hours that draw power at TDP.
    """

    paid: dict[tuple[str, int], float]
    pinned: dict[tuple[str, str, int], float]
    work: dict[tuple[str, str, int], float]
    slots: dict[tuple[str, str, int], dict[int, float]]
    house_used: dict[tuple[str, int], float]

    def slot_gpus(self, gpu: str, place: str, month: int) -> float:
        """``sum_k k × slots[p,k,t]``: GPUs set aside for gangs."""
        return sum(k * n for k, n in self.slots.get((gpu, place, month), {}).items())


def derived_hours(scenario: Scenario, decisions: Decisions) -> DerivedHours:
    """Paid rental hours, pinned GPUs, work, slots and house hours of a plan, from its decisions."""
    h = scenario.assumptions.hours_per_month
    offers = offers_by_id(scenario)
    paid: dict[tuple[str, int], float] = defaultdict(float)
    pinned: dict[tuple[str, str, int], float] = defaultdict(float)
    work: dict[tuple[str, str, int], float] = defaultdict(float)
    slots: dict[tuple[str, str, int], dict[int, float]] = defaultdict(dict)
    house_used: dict[tuple[str, int], float] = defaultdict(float)

    def is_rental(place: str) -> bool:
        return place in offers and offers[place].option in RENTAL

    for (_, gpu, place, width, t), count in decisions.replicas.items():
        pinned[gpu, place, t] += width * count
        if is_rental(place):
            paid[place, t] += width * h * count
        if place == HOUSE:
            house_used[gpu, t] += width * h * count
    for (_, gpu, place, t), hours in decisions.work.items():
        work[gpu, place, t] += hours
        if is_rental(place):
            paid[place, t] += hours
        if place == HOUSE:
            house_used[gpu, t] += hours
    for (gpu, place, k, t), count in decisions.slots.items():
        slots[gpu, place, t][k] = slots[gpu, place, t].get(k, 0.0) + count
    return DerivedHours(dict(paid), dict(pinned), dict(work), dict(slots), dict(house_used))


def rented_per_gpu(
    scenario: Scenario, derived: DerivedHours, option: OfferOption
) -> dict[tuple[str, int], float]:
    """Paid hours of each type and month on its offers of ``option`` (on-demand or spot)."""
    offers = offers_by_id(scenario)
    per_gpu: dict[tuple[str, int], float] = defaultdict(float)
    for (offer_id, t), hours in derived.paid.items():
        offer = offers[offer_id]
        if offer.option is option:
            per_gpu[offer.gpu, t] += hours
    return per_gpu
