"""Futures figures from plans the time limit stopped are bounds, never facts (issue 33).

An outside audit ran ``gpumix futures scenarios/futures.yaml --time-limit 30``
and read "regret $-12,427.10" and "EVPI $-3,106.78" with exit 0: the plans
made for each future alone had been stopped by their share of the budget and
cost more than the shared plan in that future. Here such a stopped plan is
injected (deterministic, unlike a race against the clock): a real, checked,
dearer plan of the future (renting only), marked as stopped with a proven
bound $100 under the future's true optimum.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import openpyxl
import pytest

from optimizer.cli.futures import futures_lines
from optimizer.domain.future_scenario import future_scenario
from optimizer.reports.futures_workbook import SHEET, futures_json
from optimizer.results import Plan, SolveStatus
from optimizer.results.futures import FutureOutcome, FuturesResult
from tests.checked import solve_checked
from tests.reports.test_futures_workbook import HIGH, LOW, MID, _base, written

SLACK = 100.0  # the stopped plan's proven bound lies this far under the true optimum


def _stopped(plan: Plan, bound: float) -> Plan:
    assert plan.total_cost is not None and plan.solver is not None
    gap = (plan.total_cost - bound) / plan.total_cost
    return replace(
        plan, status=SolveStatus.TIME_LIMIT, gap=gap, solver=replace(plan.solver, bound=bound)
    )


@pytest.fixture(scope="module")
def stopped() -> FuturesResult:
    """Shared plan = each future's optimum; 'high' alone = a dearer plan the limit stopped."""
    base = _base()
    futures = {s.name: future_scenario(base, s) for s in (LOW, MID, HIGH)}
    best = {name: solve_checked(f) for name, f in futures.items()}
    high = futures["high"]
    dear = solve_checked(replace(high, offers=high.offers[1:], allow_buy=False))
    optimum = best["high"].total_cost
    assert optimum is not None and dear.total_cost is not None
    assert dear.total_cost > optimum + 1.0  # else the case shows nothing
    alone = {**best, "high": _stopped(replace(dear, scenario=high), optimum - SLACK)}
    outcomes = tuple(
        FutureOutcome(spec, best[spec.name], alone[spec.name], best[spec.name])
        for spec in (LOW, MID, HIGH)
    )
    return FuturesResult(
        scenario=base,
        futures=base.futures,  # type: ignore[arg-type]
        status=SolveStatus.OPTIMAL,
        gap=0.0,
        bound=None,
        outcomes=outcomes,
        shared=(),
    )


def _independent(result: FuturesResult) -> dict[str, float]:
    """The proven ranges worked out by hand from the plans' costs."""
    high = result.outcomes[2]
    cost = {o.spec.name: o.plan.total_cost or 0.0 for o in result.outcomes}
    # 'high' alone: its optimum lies in [cost - SLACK, cost] (the shared plan is the optimum).
    return {
        "regret_high": SLACK,  # shared cost minus the stopped plan's bound
        "evpi_high": 0.25 * SLACK,  # low and mid regrets are 0: the shared plan is their optimum
        "old_regret": cost["high"] - (high.alone.total_cost or 0.0),  # type: ignore[union-attr]
    }


def test_a_stopped_plan_made_alone_gives_a_regret_range_never_a_negative_fact(
    stopped: FuturesResult,
) -> None:
    want = _independent(stopped)
    high = stopped.outcomes[2]
    assert want["old_regret"] < -1.0  # what the old report printed as the regret
    bounds = high.regret_bounds
    assert bounds is not None and not bounds.exact
    assert bounds.low == 0.0
    assert bounds.high == pytest.approx(want["regret_high"], abs=0.005)
    evpi = stopped.evpi_bounds
    assert evpi is not None and not evpi.exact
    assert evpi.low == 0.0
    assert evpi.high == pytest.approx(want["evpi_high"], abs=0.005)
    assert not stopped.proven
    # The proven futures' regrets stay exact.
    exact = stopped.outcomes[0].regret_bounds
    assert exact is not None and exact.exact and exact.value == pytest.approx(0.0, abs=0.005)


def test_the_terminal_says_at_least_and_at_most_and_how_far_the_plan_is_proven(
    stopped: FuturesResult,
) -> None:
    text = "\n".join(futures_lines(stopped))
    high = stopped.outcomes[2]
    gap = high.alone.gap  # type: ignore[union-attr]
    assert "regret at least $0.00, at most $100.00 (not proven) against" in text
    assert f"(stopped by the time limit, proven gap {gap:.2%})" in text
    assert "EVPI at least $0.00, at most $25.00 (not proven)" in text
    assert "-$" not in text and "$-" not in text
    assert "regret, EVPI and VSS are proven only within the ranges shown" in text


def test_the_workbook_and_json_show_the_ranges_and_the_gaps(
    stopped: FuturesResult, tmp_path: Path
) -> None:
    path = written(stopped, tmp_path)
    sheet = openpyxl.load_workbook(path, data_only=True)[SHEET]
    labels = {str(r[0].value): [c.value for c in r[1:]] for r in sheet.iter_rows() if r[0].value}
    assert "Regret: shared plan minus planned alone (USD)" not in labels
    assert labels["Regret: proven at least (USD)"][:4] == pytest.approx([0, 0, 0, 0], abs=0.005)
    assert labels["Regret: proven at most (USD)"][:4] == pytest.approx(
        [0, 0, SLACK, 0.25 * SLACK], abs=0.005
    )
    gap = stopped.outcomes[2].alone.gap  # type: ignore[union-attr]
    assert labels["How far the plan made alone is proven"][:3] == [
        "optimal",
        "optimal",
        f"stopped by the time limit, proven gap {gap:.2%}",
    ]
    evpi = labels["EVPI: what knowing the future now would save (USD)"][0]
    assert evpi == "at least $0.00, at most $25.00 (not proven)"
    numbers = [c for row in labels.values() for c in row if isinstance(c, int | float)]
    assert min(numbers) >= 0.0
    data = json.loads(futures_json(stopped))
    assert data["proven"] is False
    assert data["evpi"] is None  # not proven: no figure read as a fact
    assert data["futures"][2]["regret"] is None
    assert data["futures"][0]["regret"] == pytest.approx(0.0, abs=0.005)
    assert data["evpi_at_least"] == 0.0
    assert data["evpi_at_most"] == pytest.approx(0.25 * SLACK, abs=0.005)
    high = data["futures"][2]
    assert high["alone_status"] == "time_limit"
    assert high["regret_at_least"] == 0.0
    assert high["regret_at_most"] == pytest.approx(SLACK, abs=0.005)
