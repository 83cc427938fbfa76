"""What a plan's decisions use, place by place: derived, never stored beside them.

Takes a scenario and its ``results.Decisions``; hands on :class:`Usage`: paid
hours of each rental offer, hours the owned GPUs of each type work, and the
GPUs pinned by replicas or set aside in slots in each place. Plan assembly
prices and reports from it; the independent checker keeps its own copy of
these sums on purpose.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from optimizer.domain import OfferOption, Scenario
from optimizer.results import HOUSE, Decisions

PlaceMonth = tuple[str, str, int]  # (gpu, place, month)


@dataclass(frozen=True)
class Usage:
    rented_hours: dict[tuple[str, int], float]  # (on-demand or spot offer, month) -> paid hours
    house_hours: dict[tuple[str, int], float]  # (gpu, month) -> hours owned GPUs work
    pinned: dict[PlaceMonth, int]  # GPUs held by serving replicas
    slot_gpus: dict[PlaceMonth, int]  # GPUs set aside in slots
    work_hours: dict[PlaceMonth, float]  # training and batch hours


def usage_of(scenario: Scenario, d: Decisions) -> Usage:
    H = scenario.assumptions.hours_per_month
    rental = {
        o.offer_id for o in scenario.offers if o.option in (OfferOption.ON_DEMAND, OfferOption.SPOT)
    }
    rented: dict[tuple[str, int], float] = defaultdict(float)
    house: dict[tuple[str, int], float] = defaultdict(float)
    pinned: dict[PlaceMonth, int] = defaultdict(int)
    slot_gpus: dict[PlaceMonth, int] = defaultdict(int)
    work: dict[PlaceMonth, float] = defaultdict(float)
    for (_w, g, key, width, t), n in d.replicas.items():
        pinned[(g, key, t)] += width * n
        if key == HOUSE:
            house[(g, t)] += width * n * H
        elif key in rental:
            rented[(key, t)] += width * n * H
    for (_w, g, key, t), hours in d.work.items():
        work[(g, key, t)] += hours
        if key == HOUSE:
            house[(g, t)] += hours
        elif key in rental:
            rented[(key, t)] += hours
    for (g, key, width, t), n in d.slots.items():
        slot_gpus[(g, key, t)] += width * n
    return Usage(dict(rented), dict(house), dict(pinned), dict(slot_gpus), dict(work))
