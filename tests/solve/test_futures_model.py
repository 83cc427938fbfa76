"""The two-stage model: futures' models must have the same shared decisions, and
offers are pruned as dominated only when one offer dominates them in every future."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pulp
import pytest

from optimizer.domain.future_scenario import future_scenario
from optimizer.errors import SolveError
from optimizer.model.build import build_model
from optimizer.model.built import BuiltModel
from optimizer.model.costs import dominated_offers, jointly_dominated_offers
from optimizer.solve.futures_model import (
    build_future,
    build_replan,
    build_two_stage,
    fix_shared,
    joint_dominated,
    linked_values,
)
from optimizer.solve.solver import run_solver
from tests.builders import offer
from tests.futures_cases import CENT, EXACT, FUTURE_FAMILIES, case_with_futures, fixed


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


def _optimum(built: BuiltModel) -> float | None:
    run = run_solver(built.problem, EXACT)
    return float(pulp.value(built.problem.objective)) if run.status.has_plan else None


def _above_use(plain: BuiltModel, values: dict[str, float], D: int) -> dict[str, float]:
    """``values`` with every bounded level of months <= D two GPUs above its bound by use."""
    bumped = dict(values)
    for table in (plain.owned, plain.active):
        for (oid, t), var in table.items():
            if t <= D and var.upBound is not None and not plain.existing_count(oid):
                bumped[var.name] = float(var.upBound + 2)
    return bumped


def _given(values: dict[str, float]) -> Callable[[BuiltModel], dict[str, float]]:
    return lambda _built: values


def _raised(plain: BuiltModel, bounded: BuiltModel, D: int) -> bool:
    """Some level after month D has a higher bound in ``bounded`` than by use alone."""
    return any(
        (var.upBound or 0) > (table[key].upBound or 0)
        for table, other in ((plain.owned, bounded.owned), (plain.active, bounded.active))
        for key, var in other.items()
        if key[1] > D
    )


def test_a_replan_bounded_by_use_costs_what_the_unbounded_replan_costs() -> None:
    """Shared decisions fixed in a future: each future's optimal ones, and the same with
    every level above what the future can use. The re-plan with the levels after month D
    bounded by use (raised where the fixed levels need it) has the unbounded re-plan's
    optimum, or is infeasible with it."""
    raised = 0
    for family, seed in itertools.product(FUTURE_FAMILIES, range(3)):
        s, estimates = case_with_futures(family, seed)
        assert s.futures is not None
        D = s.futures.decide_by_month
        scenarios = [future_scenario(s, f) for f in s.futures.futures]
        dominated = joint_dominated(scenarios)
        for source in scenarios:
            alone = build_future(source, estimates, dominated)
            if _optimum(alone) is None:
                continue
            optimal = linked_values(alone, D)
            for target in scenarios:
                plain = build_model(target, estimates, dominated=dominated)
                for values in (optimal, _above_use(plain, optimal, D)):
                    free = build_future(target, estimates, dominated)
                    fix_shared(free, D, values, "a test")
                    bounded = build_replan(target, estimates, dominated, D, _given(values))
                    expected, got = _optimum(free), _optimum(bounded)
                    assert (got is None) == (expected is None)
                    if expected is not None and got is not None:
                        assert got == pytest.approx(expected, abs=CENT)
                        raised += values is not optimal and _raised(plain, bounded, D)
    assert raised, "no re-plan with levels above what the future can use was feasible"


def test_the_two_stage_solve_is_highs_with_its_own_search_options(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``auto`` with a first plan: HiGHS alone, with ``TWO_STAGE_HIGHS``; the re-plans and
    the futures alone keep gpumix's usual options (they solve elsewhere)."""
    from optimizer.check.verify import solve_futures_and_verify
    from optimizer.solve import futures

    seen: list[tuple[str, Any, bool]] = []
    real = futures.run_solver

    def recording(problem: pulp.LpProblem, settings: Any, **kwargs: Any) -> Any:
        seen.append((settings.solver, kwargs.get("highs_options"), bool(kwargs.get("start"))))
        return real(problem, settings, **kwargs)

    monkeypatch.setattr(futures, "run_solver", recording)
    s, estimates = case_with_futures("services", 0)
    auto = replace(EXACT, solver="auto", threads=None)
    result = solve_futures_and_verify(s, auto, fixed(estimates), workers=1)
    assert result.status.value == "optimal"
    assert seen == [("highs", futures.TWO_STAGE_HIGHS, True)]
