"""The Summary's note on ``--coarse-after``: from which month, and the cost against the monthly plan.

The monthly plan's cost is recomputed independently (a separate monthly
solve of the same scenario); the coarse plan passes the checker.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from optimizer.check.rules import check_plan
from optimizer.domain import Scenario
from optimizer.reports.coarse_note import coarse_note
from optimizer.reports.summary_sheet import _summary_sheet
from optimizer.results import Plan, RunResult, SolverSettings, SolveStatus
from optimizer.solve import plan_first as pf
from optimizer.solve.solver import solve_scenario
from tests.random_scenarios import random_scenario

HIGHS = SolverSettings(solver="highs", threads=1)
CENT = 0.005
HEAD = (
    "Scenario '{name}': layouts (GPUs owned and reserved, replicas, slots, servers) are fixed per"
    " quarter after month {month} (--coarse-after / coarse_after_month); "
)


def _scenario(month: float = 0.0) -> Scenario:
    s = random_scenario(5, longest_horizon=6, extra_jobs=2)
    return replace(s, assumptions=replace(s.assumptions, coarse_after_month=month))


def _notes(plan: Plan) -> list[str]:
    """The Summary's coarse notes, each put back together from the lines it is wrapped into
    (notes wrap to the printed width), without the spaces a wrap may add or take."""
    run = RunResult(plans=(plan,), input_files=(), started_at="", gpumix_version="", settings=HIGHS)
    cells = _summary_sheet(run).cells
    lines = [str(c.value) for (_r, col), c in sorted(cells.items()) if col == 0 and c.value]
    notes: list[str] = []
    for i, line in enumerate(lines):
        if line.startswith("Scenario '") and "layouts" in line:
            parts = [line]
            while not parts[-1].endswith(".") and i + len(parts) < len(lines):
                parts.append(lines[i + len(parts)])
            notes.append("".join(parts).replace(" ", ""))
    return notes


def _bare(text: str) -> list[str]:
    return [text.replace(" ", "")]


def test_the_summary_gives_the_coarse_plan_cost_against_the_monthly_plan() -> None:
    s = _scenario()
    coarse = solve_scenario(s, HIGHS)
    monthly = solve_scenario(
        replace(s, assumptions=replace(s.assumptions, coarse_after_month=None)), HIGHS
    )
    assert coarse.status is SolveStatus.OPTIMAL and monthly.status is SolveStatus.OPTIMAL
    assert coarse.total_cost is not None and monthly.total_cost is not None
    assert check_plan(s, coarse, None).violations == []
    assert coarse.solver is not None and coarse.solver.coarse_after == 0
    assert coarse.solver.monthly_cost == pytest.approx(monthly.total_cost, abs=CENT)
    extra = coarse.total_cost - monthly.total_cost
    assert extra >= -CENT, "a tied plan never beats the monthly optimum"
    expected = HEAD.format(name=s.name, month=0) + (
        f"this plan costs ${extra:,.2f} more than the monthly plan (${monthly.total_cost:,.2f})."
    )
    assert coarse_note(coarse) == expected
    assert _notes(coarse) == _bare(expected)
    assert coarse_note(monthly) is None and _notes(monthly) == []


def test_without_the_monthly_plan_the_summary_says_no_comparison_was_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pf, "MIN_INTEGERS", 0)  # as if the model were too large to solve twice
    s = _scenario()
    coarse = solve_scenario(s, HIGHS)
    assert coarse.solver is not None and coarse.solver.monthly_cost is None
    expected = HEAD.format(name=s.name, month=0) + (
        "the monthly plan was not solved to a proven optimum here (tried only below 4,000"
        " integers, in a quarter of the time left), so no comparison was made."
    )
    assert _notes(coarse) == _bare(expected)


def test_with_nothing_tied_the_summary_says_the_same_cost() -> None:
    s = _scenario(12.0)  # a horizon of at most 6 months: no quarter after month 12
    coarse = solve_scenario(s, HIGHS)
    assert coarse.total_cost is not None and coarse.solver is not None
    assert coarse.solver.monthly_cost == pytest.approx(coarse.total_cost, abs=CENT)
    expected = HEAD.format(name=s.name, month=12) + (
        f"this plan costs the same as the monthly plan (${coarse.total_cost:,.2f})."
    )
    assert _notes(coarse) == _bare(expected)
