"""The comparison workbook and terminal table: one column per scenario, numbers to the cent."""

from __future__ import annotations

import zipfile
from dataclasses import replace
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from optimizer.domain import CostCategory
from optimizer.reports.compare import comparison_table, write_comparison
from optimizer.results import SolveStatus
from tests.fake_plans import OD_PRICE, fake_plan, infeasible_plan

CENT = 0.005


def _read(path: Path) -> pd.DataFrame:
    frame = pd.read_excel(path, sheet_name="Comparison", engine="calamine", index_col=0)
    return frame


def test_numbers_read_back_with_pandas(tmp_path: Path) -> None:
    a, b, c = fake_plan("a"), fake_plan("b", scale=2.0), infeasible_plan("c")
    path = tmp_path / "comparison.xlsx"
    write_comparison(path, [a, b, c])
    frame = _read(path)
    assert list(frame.columns) == ["a", "b", "c"]
    assert list(frame.loc["Status"]) == ["optimal", "optimal", "infeasible"]
    assert list(frame.loc["Horizon (months)"]) == [3, 3, 3]
    assert list(frame.loc["Discount rate (per year)"]) == [0.0, 0.0, 0.0]
    why = frame.loc["Why no plan"]
    assert pd.isna(why["a"]) and why["c"] == "; ".join(c.diagnostics) and why["c"]
    total = frame.loc["Total cost (USD, cash; the objective)"]
    assert total["a"] == pytest.approx(a.total_cost, abs=CENT)
    assert total["b"] == pytest.approx(b.total_cost, abs=CENT)
    assert pd.isna(total["c"])
    on_demand = frame.loc["On-demand rent (USD, cash)"]
    assert on_demand["b"] == pytest.approx(b.costs[CostCategory.ON_DEMAND], abs=CENT)
    assert frame.loc["H100: GPUs bought"]["a"] == 2
    assert frame.loc["L40S: on-demand paid GPU-hours"]["b"] == pytest.approx(601.5)
    assert a.total_cost is not None and b.total_cost is not None
    delta = frame.loc["Δ Total cost (USD, cash; the objective)"]
    assert pd.isna(delta["a"]) and pd.isna(delta["c"])
    # b rents twice the L40S hours: 300.75 more hours at $1.55.
    assert delta["b"] == pytest.approx(300.75 * OD_PRICE, abs=CENT)
    assert delta["b"] == pytest.approx(b.total_cost - a.total_cost, abs=CENT)
    credit = frame.loc["Δ Residual credit (USD, undiscounted; positive = more credit, cheaper)"]
    assert credit["b"] == pytest.approx(0.0, abs=CENT)


def test_present_values_are_labelled_as_such(tmp_path: Path) -> None:
    a = fake_plan("a")
    discounted = replace(a.scenario, assumptions=replace(a.scenario.assumptions, discount_rate=0.1))
    b = replace(fake_plan("b"), scenario=discounted)
    path = tmp_path / "comparison.xlsx"
    write_comparison(path, [a, b])
    frame = _read(path)
    assert list(frame.loc["Discount rate (per year)"]) == [0.0, 0.1]
    label = "Total cost (USD, present value at each scenario's discount rate; the objective)"
    assert frame.loc[label]["a"] == pytest.approx(a.total_cost, abs=CENT)
    assert "Purchase (capex) (USD, present value at each scenario's discount rate)" in frame.index
    assert "Cash out (USD, undiscounted)" in frame.index


def test_differences_are_live_formulas_and_there_is_a_chart(tmp_path: Path) -> None:
    path = tmp_path / "comparison.xlsx"
    write_comparison(path, [fake_plan("a"), fake_plan("b", scale=2.0)])
    ws = openpyxl.load_workbook(path)["Comparison"]
    formulas = [
        c.value
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith("=")
    ]
    assert "=C5-B5" in formulas  # total cost, below status, horizon and discount rate
    with zipfile.ZipFile(path) as z:
        assert any(n.startswith("xl/charts/chart") for n in z.namelist())


def test_terminal_table_lines_up_and_shows_cents() -> None:
    a, b = fake_plan("a"), fake_plan("bee", scale=2.0)
    text = comparison_table([a, b, infeasible_plan("c")])
    lines = text.splitlines()
    assert lines[0].split() == ["Scenario", "a", "bee", "c"]
    assert len({len(line) for line in lines if "$" in line}) == 1  # money columns line up
    total = next(line for line in lines if line.startswith("Total cost"))
    assert f"${a.total_cost:,.2f}" in total and total.endswith("—")
    delta = next(line for line in lines if line.startswith("Δ total"))
    assert f"${300.75 * OD_PRICE:,.2f}" in delta


def test_plans_stopped_by_the_time_limit_show_their_gaps_and_bounds(tmp_path: Path) -> None:
    """An outside audit's case: four plans stopped by the time limit showed differences of
    up to $19,935.62 and no gap, although the base plan was valid in every other scenario;
    a reader took them for what the scenarios cost. Each gap and proven bound now shows,
    with a note that a difference inside the gaps is not proven."""
    a = fake_plan("a")
    assert a.total_cost is not None and a.solver is not None
    stopped = replace(
        fake_plan("b", scale=2.0),
        status=SolveStatus.TIME_LIMIT,
        gap=0.107,
        solver=replace(a.solver, bound=1000.0),
    )
    text = comparison_table([a, stopped])
    gap = next(line for line in text.splitlines() if line.startswith("Proven gap"))
    assert gap.split()[-2:] == ["0.0%", "10.7%"]
    bound = next(line for line in text.splitlines() if line.startswith("No plan can cost less"))
    assert f"${a.total_cost:,.2f}" in bound and bound.endswith("$1,000.00")
    assert text.splitlines()[-1].startswith(
        "Note: some plans were stopped by the time limit: a difference smaller than their "
        "gaps is not proven"
    )
    path = tmp_path / "comparison.xlsx"
    write_comparison(path, [a, stopped])
    frame = _read(path)
    assert list(frame.loc["Proven gap (0 %: the cheapest plan)"]) == pytest.approx([0.0, 0.107])
    assert frame.loc["No plan can cost less than (USD, proven)"]["b"] == pytest.approx(1000.0)
    # Proven plans alone show neither row.
    assert "Proven gap" not in comparison_table([a, fake_plan("c")])
