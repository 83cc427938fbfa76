"""Tiny scenarios with futures for the futures tests, and their enumerated optimum.

The cases are ``tests/test_optimality.py``'s families (hand-made estimates,
1–3 months) without servers, with two or three futures that scale demand and
prices. :func:`enumerated_two_stage` is the true minimum of the expected cost
over shared first-stage choices, by ``tests.brute_force_search`` alone (no
model, no solver): every future's plans are enumerated over the stock choices
the largest future can need (a trimmed two-stage plan never holds more: a GPU
no month of any future needs can go from every future at once), grouped by
their decisions of months ``1..D``, and the best group wins.

Servers are left out: the enumeration completes each GPU path with its
cheapest servers, which in a two-stage plan may differ between futures in the
shared months.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

from optimizer.domain import OfferOption, Scenario
from optimizer.domain.future_scenario import future_scenario
from optimizer.domain.futures import Futures, FutureSpec, PriceFactor
from optimizer.results import PairEstimate, SolverSettings
from optimizer.results.futures import FuturesResult
from tests.brute_force_search import Candidate, candidates
from tests.test_optimality import FAMILIES, Case

EXACT = SolverSettings(gap=0.0, solver="highs", threads=1)
CENT = 0.01
# Families whose plans change over the months (stock to share or not).
FUTURE_FAMILIES = ("serving", "gangs", "spot", "services", "resale", "existing")


def without_servers(s: Scenario) -> Scenario:
    return replace(s, gpus=tuple(replace(g, node_price=0.0, node_power_w=0.0) for g in s.gpus))


def random_futures(rng: random.Random, s: Scenario) -> tuple[FutureSpec, ...]:
    """Two or three futures: demand factors, and sometimes a price factor on buying."""
    probabilities = rng.choice([(0.5, 0.5), (0.3, 0.7), (0.25, 0.5, 0.25)])
    gpus = [g.name for g in s.gpus]
    specs = []
    for i, p in enumerate(probabilities):
        prices: tuple[PriceFactor, ...] = ()
        if rng.random() < 0.4:
            prices = (PriceFactor(rng.choice([0.7, 1.3]), rng.choice(gpus), OfferOption.BUY),)
        specs.append(
            FutureSpec(
                f"f{i}",
                p,
                demand_factor=rng.choice([0.5, 1.0, 1.5]),
                price_factors=prices,
            )
        )
    return tuple(specs)


def case_with_futures(family: str, seed: int) -> tuple[Scenario, tuple[PairEstimate, ...]]:
    """A family's case without servers, with random futures and ``decide_by_month``."""
    rng = random.Random(f"futures-{family}-{seed}")
    case: Case = FAMILIES[family](rng)
    s = without_servers(case.scenario)
    D = rng.randint(1, s.horizon_months)
    return replace(s, futures=Futures(random_futures(rng, s), decide_by_month=D)), case.estimates


def fixed(estimates: Sequence[PairEstimate]) -> Callable[[Scenario], tuple[PairEstimate, ...]]:
    """The estimator of hand-made cases: the same rows for every future."""
    rows = tuple(estimates)
    return lambda _scenario: rows


def _shared_key(c: Candidate, D: int) -> frozenset:
    return frozenset(
        (kind, key, n)
        for kind, table in (("buy", c.buys), ("sell", c.sold), ("reserve", c.reserved))
        for key, n in table.items()
        if key[1] <= D and n
    )


def enumerated_two_stage(s: Scenario, estimates: Sequence[PairEstimate]) -> float | None:
    """The least expected cost over shared choices of months 1..D (None: no plan)."""
    futures = s.futures
    assert futures is not None
    D = futures.decide_by_month
    largest = max(f.demand_factor for f in futures.futures)
    bounds = future_scenario(s, FutureSpec("largest", 1.0, demand_factor=largest))
    best_by_key: list[dict[frozenset, float]] = []
    for spec in futures.futures:
        found: dict[frozenset, float] = {}
        for total, c in candidates(future_scenario(s, spec), estimates, bounds):
            if c is None:
                continue
            key = _shared_key(c, D)
            if total < found.get(key, float("inf")):
                found[key] = total
        best_by_key.append(found)
    keys = set.intersection(*(set(found) for found in best_by_key))
    if not keys:
        return None
    return min(
        sum(f.probability * found[k] for f, found in zip(futures.futures, best_by_key, strict=True))
        for k in keys
    )


def plan_costs(result: FuturesResult) -> list[float]:
    costs = [o.plan.total_cost for o in result.outcomes]
    assert all(c is not None for c in costs)
    return [c for c in costs if c is not None]
