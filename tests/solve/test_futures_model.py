"""The two-stage model: futures' models must have the same shared decisions, and
offers are pruned as dominated only when one offer dominates them in every future."""

from __future__ import annotations

from dataclasses import replace

import pytest

from optimizer.errors import SolveError
from optimizer.model.costs import dominated_offers, jointly_dominated_offers
from optimizer.solve.futures_model import build_two_stage, joint_dominated
from tests.builders import offer
from tests.futures_cases import case_with_futures


def test_an_offer_is_left_out_only_when_dominated_in_every_future() -> None:
    cheap, dear = offer("G", "buy", 100.0), offer("G", "buy", 200.0, n=2)
    assert dominated_offers([cheap, dear]) == {"G|buy|2"}
    # In a second future the order flips: neither dominates the other in both.
    flipped = [replace(cheap, price=300.0), dear]
    assert jointly_dominated_offers([[cheap, dear], flipped]) == frozenset()
    # Both futures agree: the dearer one goes.
    assert jointly_dominated_offers([[cheap, dear], [cheap, replace(dear, price=250.0)]]) == {
        "G|buy|2"
    }


def test_futures_whose_models_share_other_decisions_are_refused() -> None:
    """A future whose workloads end earlier has fewer purchases to share: an internal error,
    never a decision silently fixed to 0."""
    s, estimates = case_with_futures("resale", 1)
    shorter = replace(
        s, workloads=tuple(replace(w, end_month=1, start_month=1) for w in s.workloads)
    )
    dominated = joint_dominated([s, shorter])
    with pytest.raises(SolveError, match="has other shared decisions than"):
        build_two_stage(
            [("a", 0.5, s, estimates), ("b", 0.5, shorter, estimates)], s.horizon_months, dominated
        )


def test_the_linked_variables_are_the_levels_and_sales_of_the_shared_months() -> None:
    s, estimates = case_with_futures("resale", 1)
    two = build_two_stage([("a", 0.5, s, estimates), ("b", 0.5, s, estimates)], 1, frozenset())
    assert two.linked
    assert all(name.split("_")[0] in ("owned", "sell", "active", "servers") for name in two.linked)
    assert all(name.endswith("_t1") for name in two.linked)
    links = [c.name for c in two.problem.constraints() if c.name.startswith("link_")]
    assert links == [f"link_f1_{name}" for name in two.linked]


def test_regret_is_bounded_against_an_alone_plan_not_proven_optimal() -> None:
    """Its cost is at least the true optimum: the cap never turns away a plan that truly
    meets the bound, and the diagnostics say it may be loose."""
    from optimizer.check.verify import solve_futures_and_verify
    from optimizer.results import SolveStatus
    from optimizer.solve.futures import _regret_caps
    from tests.futures_cases import EXACT, fixed

    s, estimates = case_with_futures("services", 0)
    assert s.futures is not None
    result = solve_futures_and_verify(s, EXACT, fixed(estimates), workers=1)
    alone = [o.alone for o in result.outcomes if o.alone is not None]
    alone[1] = replace(alone[1], status=SolveStatus.TIME_LIMIT, gap=0.02)
    futures = [
        (f.name, f.probability, o.plan.scenario, estimates)
        for f, o in zip(s.futures.futures, result.outcomes, strict=True)
    ]
    two = build_two_stage(futures, s.futures.decide_by_month, frozenset())
    notes = _regret_caps(two, replace(s.futures, max_regret=10.0), alone)
    assert notes == [
        "future 'f1' alone was not proven optimal (gap 2.000%): its regret is bounded "
        "against its best plan found, which costs at least the true optimum, so the bound "
        "may be loose by up to that gap"
    ]
    caps = {c.name: -c.constant for c in two.problem.constraints() if c.name.startswith("regret")}
    assert caps == {"regret_f0_cap": 700.0 + 10.005, "regret_f1_cap": 1000.0 + 10.005}
