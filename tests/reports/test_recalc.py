"""Recalculated by LibreOffice, every formula still gives the solver's numbers.

All workbooks (result workbooks from real solves and from hand-built plans,
and a comparison) go through ONE soffice call. A sentinel workbook whose
formula ``=1+1`` carries a wrong cached value (0) proves that LibreOffice
really recalculated rather than kept the cached values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

import openpyxl
import pandas as pd
import pytest
import xlsxwriter

from optimizer.check.baselines import solve_baselines
from optimizer.currency import money_format
from optimizer.domain import CostCategory, Scenario
from optimizer.reports.compare import write_comparison
from optimizer.reports.in_place import write_in_place
from optimizer.reports.report_json import plan_to_dict
from optimizer.reports.result_workbook import write_result_workbook
from optimizer.reports.sheet_names import scenario_sheet_names
from optimizer.results import Plan, RunResult, SolverSettings
from tests.builders import gpu, l40s, offer, scenario, with_assumptions, workload
from tests.checked import solve_checked
from tests.fake_plans import fake_plan, fake_run, infeasible_plan
from tests.libreoffice import recalculate

pytestmark = pytest.mark.libreoffice

CENT = 0.005
EVIL = '=HYPERLINK("http://x","y")'
ERROR_VALUES = ("#VALUE!", "#REF!", "#NAME?", "#DIV/0!", "#N/A", "#NUM!", "#NULL!", "Err:")


def mixed_fleet() -> Scenario:
    """Realtime, LoRA and interruptible batch work; buy, on-demand, reserved and spot offers."""
    return scenario(
        [
            gpu("H100"),
            l40s(),
        ],
        [
            offer("H100", "buy", 25_000.0, source=EVIL, provider="@SUM(1)"),
            offer("H100", "on_demand", 3.15, source="guide 2025"),
            offer("H100", "reserved", 2.2, term_months=6, source="1-year quote"),
            offer("L40S", "on_demand", 1.5),
            offer("L40S", "spot", 0.6),
        ],
        [
            workload(
                EVIL, "realtime_inference", params_b=8, tokens_per_second=2000.0, latency_ms=50.0
            ),
            workload("lora-7b", "lora", params_b=7, tokens=2e9, end_month=6),
            workload("batch-8b", "batch_inference", params_b=8, tokens=2e10, interruptible=True),
        ],
        name="base",
        horizon_months=12,
    )


@dataclass(frozen=True)
class Recalculated:
    """One workbook as written (formulas, cached values) and after LibreOffice."""

    written: Path
    recalculated: Path
    run: RunResult | None


def _in_currency(plan: Plan, currency: str) -> Plan:
    return replace(plan, scenario=with_assumptions(plan.scenario, currency=currency))


@pytest.fixture(scope="module")
def books(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Recalculated]:
    folder = tmp_path_factory.mktemp("written")
    base = solve_checked(mixed_fleet())
    pv = solve_checked(
        with_assumptions(replace(mixed_fleet(), name="present value 10%"), discount_rate=0.10)
    )
    assert base.status.has_plan and pv.status.has_plan
    real = RunResult(
        plans=(base, pv),
        input_files=(),
        started_at="2026-12-02T17:00:00Z",
        gpumix_version="0.1.0",
        settings=SolverSettings(),
        baselines={base.name: solve_baselines(base.scenario, SolverSettings())},
    )
    fake = fake_run(
        fake_plan("base"), fake_plan(EVIL, chat=EVIL, scale=2.0), infeasible_plan("tight")
    )
    # A currency label with a quote: the cells' number format escapes it (model v2 §E).
    labelled = fake_run(
        *(_in_currency(p, 'R"€') for p in (fake_plan("base"), infeasible_plan("tight")))
    )
    runs: dict[str, RunResult | None] = {
        "real.xlsx": real,
        "fake.xlsx": fake,
        "comparison.xlsx": None,
        "currency.xlsx": labelled,
    }
    write_result_workbook(folder / "real.xlsx", real)
    write_result_workbook(folder / "currency.xlsx", labelled)
    write_result_workbook(folder / "fake.xlsx", fake)
    write_comparison(folder / "comparison.xlsx", [base, pv, infeasible_plan("tight")])
    inplace = folder / "inplace.xlsx"
    user = xlsxwriter.Workbook(str(inplace))
    prices = user.add_worksheet("Prices")
    prices.write_row(0, 0, ["gpu", "price"])
    prices.write_row(1, 0, ["H100", 25_000])
    prices.write_formula(2, 1, "=B2*0.9", None, 22_500)
    prices.write_formula(3, 1, '="H"&"100"', None, "H100")
    user.close()
    write_in_place(inplace, fake)
    runs["inplace.xlsx"] = fake
    sentinel = folder / "sentinel.xlsx"
    workbook = xlsxwriter.Workbook(str(sentinel))
    workbook.add_worksheet("S").write_formula(0, 0, "=1+1", None, 0)
    workbook.close()
    names = [*runs, "sentinel.xlsx"]
    out = recalculate([folder / n for n in names], tmp_path_factory.mktemp("recalculated"))
    return {n: Recalculated(folder / n, o, runs.get(n)) for n, o in zip(names, out, strict=True)}


def test_libreoffice_really_recalculated(books: dict[str, Recalculated]) -> None:
    assert (
        openpyxl.load_workbook(books["sentinel.xlsx"].written, data_only=True)["S"]["A1"].value == 0
    )
    assert (
        openpyxl.load_workbook(books["sentinel.xlsx"].recalculated, data_only=True)["S"]["A1"].value
        == 2
    )


@pytest.mark.parametrize(
    "name", ["real.xlsx", "fake.xlsx", "comparison.xlsx", "inplace.xlsx", "currency.xlsx"]
)
def test_every_formula_recalculates_to_its_cached_value(
    books: dict[str, Recalculated], name: str
) -> None:
    book = books[name]
    formulas = openpyxl.load_workbook(book.written)
    cached = openpyxl.load_workbook(book.written, data_only=True)
    after = openpyxl.load_workbook(book.recalculated, data_only=True)
    assert after.sheetnames == formulas.sheetnames
    checked = 0
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type != "f":
                    continue
                was = cached[ws.title][cell.coordinate].value
                now = after[ws.title][cell.coordinate].value
                if isinstance(was, str):  # a text result ("H" & "100")
                    assert now == was, (ws.title, cell.coordinate, was, now)
                    checked += 1
                    continue
                assert isinstance(now, int | float), (ws.title, cell.coordinate, cell.value, now)
                assert math.isclose(now, was, rel_tol=1e-9, abs_tol=1e-6), (
                    ws.title,
                    cell.coordinate,
                    was,
                    now,
                )
                checked += 1
    assert checked >= (2 if name == "inplace.xlsx" else 6)  # the user's 2, or ours


@pytest.mark.parametrize(
    "name", ["real.xlsx", "fake.xlsx", "comparison.xlsx", "inplace.xlsx", "currency.xlsx"]
)
def test_no_cell_holds_an_error_value(books: dict[str, Recalculated], name: str) -> None:
    after = openpyxl.load_workbook(books[name].recalculated, data_only=True)
    for ws in after.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                assert cell.data_type != "e", (ws.title, cell.coordinate, cell.value)
                if isinstance(cell.value, str):
                    assert not cell.value.startswith(ERROR_VALUES), (
                        ws.title,
                        cell.coordinate,
                        cell.value,
                    )
                if isinstance(cell.value, float):
                    assert math.isfinite(cell.value)


def test_live_totals_equal_the_solvers_numbers(books: dict[str, Recalculated]) -> None:
    book = books["real.xlsx"]
    assert book.run is not None
    after = openpyxl.load_workbook(book.recalculated, data_only=True)
    names = scenario_sheet_names(p.name for p in book.run.plans)
    for plan in book.run.plans:
        assert (
            plan.cash_out is not None
            and plan.residual_credit is not None
            and plan.total_cost is not None
        )
        rows = list(after[names[plan.name]["Cash flow"]].iter_rows(values_only=True))
        total_row = rows[1 + len(plan.cash_flow)]
        assert total_row[0] == "Total"
        total_col = len(CostCategory) + 1
        sales = sum(m.amounts.get(CostCategory.SALES, 0.0) for m in plan.cash_flow)
        assert total_row[total_col] == pytest.approx(plan.cash_out + sales, abs=CENT)
        for j, category in enumerate(CostCategory):
            undiscounted = sum(m.amounts.get(category, 0.0) for m in plan.cash_flow)
            assert total_row[j + 1] == pytest.approx(undiscounted, abs=CENT)
        net = next(r for r in rows if r[0] == "Net cash after credit (USD, undiscounted)")
        assert net[total_col] == pytest.approx(
            plan.cash_out + sales - plan.residual_credit, abs=CENT
        )
    summary = {r[0]: r[1:] for r in after["Summary"].iter_rows(values_only=True) if r[0]}
    check = summary["Total cost = categories − credit (USD; check against total cost)"]
    for j, plan in enumerate(book.run.plans):
        assert check[j] == pytest.approx(plan.total_cost, abs=CENT)
    base = book.run.plans[0]
    rent = book.run.baselines[base.name]["rent only"]
    assert rent.total_cost is not None and base.total_cost is not None
    assert summary["rent only: saving (USD)"][0] == pytest.approx(
        rent.total_cost - base.total_cost, abs=CENT
    )


def _frame(path: Path, sheet: str) -> pd.DataFrame:
    return pd.read_excel(path, sheet_name=sheet, engine="calamine")


def test_pandas_reads_the_json_numbers_after_recalculation(books: dict[str, Recalculated]) -> None:
    book = books["real.xlsx"]
    assert book.run is not None
    names = scenario_sheet_names(p.name for p in book.run.plans)
    for plan in book.run.plans:
        expected = plan_to_dict(plan)
        cash_flow = cast(list[dict[str, Any]], expected["cash_flow"])
        fleet_rows = cast(list[dict[str, Any]], expected["fleet"])
        assignment_rows = cast(list[dict[str, Any]], expected["assignments"])
        sheets = names[plan.name]
        flow = _frame(book.recalculated, sheets["Cash flow"]).iloc[: len(plan.cash_flow)]
        for month, (_, row) in zip(cash_flow, flow.iterrows(), strict=True):
            assert row.iloc[0] == month["month"]
            for j, category in enumerate(CostCategory):
                assert row.iloc[j + 1] == pytest.approx(month[category.value], abs=CENT)
        fleet = _frame(book.recalculated, sheets["Fleet"])
        used = {
            f["gpu"]
            for f in fleet_rows
            if f["bought"] or f["owned"] or f["reserved"] or f["rented_hours"] or f["spot_hours"]
        }
        assert used and set(fleet["GPU"].dropna()) >= used
        for f in fleet_rows:
            if f["gpu"] not in used:
                continue
            row = fleet[(fleet["GPU"] == f["gpu"]) & (fleet["Month"] == f["month"])].iloc[0]
            assert row["Bought (GPUs)"] == f["bought"] and row["Owned (GPUs)"] == f["owned"]
            assert row["Sold (GPUs)"] == f["sold"]
            assert row["Reserved active (GPUs)"] == f["reserved"]
            assert row["On-demand (paid GPU-hours)"] == pytest.approx(f["rented_hours"], abs=1e-6)
            assert row["Spot (paid GPU-hours)"] == pytest.approx(f["spot_hours"], abs=1e-6)
        assignments = _frame(book.recalculated, sheets["Assignments"]).iloc[: len(plan.assignments)]
        assert assignments["Workload"].tolist() == [a["workload"] for a in assignment_rows]
        assert assignments["Cost share (USD)"].tolist() == pytest.approx(
            [a["cost"] for a in assignment_rows], abs=CENT
        )
        # Model v2: where, on how many GPUs at once, and the serving load.
        assert assignments["Width (GPUs held at once)"].tolist() == [
            a["width"] for a in assignment_rows
        ]
        assert assignments["Copy width (GPUs one copy needs)"].tolist() == [
            a["copy_width"] for a in assignment_rows
        ]
        assert assignments["Place"].tolist() == [
            a["place"].replace("_", "-") for a in assignment_rows
        ]
        places = _frame(book.recalculated, sheets["Places"]).iloc[: len(plan.places)]
        place_rows = cast(list[dict[str, Any]], expected["places"])
        assert places["Size (GPUs)"].tolist() == [p["size"] for p in place_rows]
        assert places["Pinned by serving replicas (GPUs)"].tolist() == [
            p["pinned"] for p in place_rows
        ]
        # Free is a live formula: LibreOffice's result equals the plan's figure.
        assert places["Free = size − pinned (GPUs)"].tolist() == [p["free"] for p in place_rows]
        loads = assignments["Serving load (% of capacity)"].tolist()
        for load, assignment in zip(loads, assignment_rows, strict=True):
            if assignment["load"] is None:
                assert math.isnan(load)
            else:
                assert load == pytest.approx(assignment["load"], rel=1e-15)


def test_formula_like_user_text_is_still_text_after_recalculation(
    books: dict[str, Recalculated],
) -> None:
    for name in ("real.xlsx", "fake.xlsx"):
        after = openpyxl.load_workbook(books[name].recalculated)  # formulas, not values
        found = [
            (ws.title, cell.coordinate)
            for ws in after.worksheets
            for row in ws.iter_rows()
            for cell in row
            if cell.value == EVIL
        ]
        assert found, name
        for title, coordinate in found:
            assert after[title][coordinate].data_type == "s", (name, title, coordinate)


def test_money_cells_keep_the_currency_label_after_recalculation(
    books: dict[str, Recalculated],
) -> None:
    before = openpyxl.load_workbook(books["currency.xlsx"].written)["Summary"]
    after = openpyxl.load_workbook(books["currency.xlsx"].recalculated, data_only=True)["Summary"]
    money = [
        c.coordinate
        for row in before.iter_rows()
        for c in row
        if c.number_format == money_format('R"€') and isinstance(c.value, int | float | str)
    ]
    assert len(money) > 10
    for coordinate in money:
        assert "€" in after[coordinate].number_format, (coordinate, after[coordinate].number_format)
