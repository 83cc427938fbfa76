"""The result workbook: sheet names, every number to the cent, safe text, tables and charts."""

from __future__ import annotations

import hashlib
import math
import zipfile
from dataclasses import replace
from pathlib import Path

import openpyxl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from optimizer.domain import CostCategory
from optimizer.inputs.schema import INPUT_SHEET_NAMES
from optimizer.reports.cell_text import cell_text
from optimizer.reports.result_workbook import write_result_workbook
from optimizer.reports.sheet_names import (
    MAX_SHEET_NAME,
    SheetNamer,
    clean_sheet_text,
    excel_length,
    scenario_sheet_names,
)
from optimizer.results import Plan, RunResult, SolveStatus
from tests.builders import offer
from tests.fake_plans import OD_PRICE, fake_plan, fake_run, infeasible_plan

CENT = 0.005
TOTAL = len(CostCategory) + 1  # the Cash flow's Total column, 0-based
EVIL = '=HYPERLINK("http://x","y")'


def _write(tmp_path: Path, run: RunResult, name: str = "results.xlsx") -> Path:
    path = tmp_path / name
    write_result_workbook(path, run)
    return path


def _values(path: Path) -> openpyxl.Workbook:
    return openpyxl.load_workbook(path, data_only=True)


def _row_by_label(ws: Worksheet, label: str) -> list[object]:
    for row in ws.iter_rows(values_only=True):
        if row[0] == label:
            return list(row[1:])
    raise AssertionError(f"no row labelled {label!r} in {ws.title}")


# --- sheet names ----------------------------------------------------------


def test_sheet_names_are_cleaned_short_unique_and_never_an_input_sheet() -> None:
    long = "x" * 40
    names = scenario_sheet_names(
        ["a/b:c*?[d]\\e", long, long + "y", "GPUs", "README", "Base", "base"]
    )
    all_names = [n for kinds in names.values() for n in kinds.values()]
    assert len({n.casefold() for n in all_names}) == len(all_names)
    for n in all_names:
        assert len(n) <= MAX_SHEET_NAME
        assert not set(n) & set("[]:*?/\\")
        assert n not in INPUT_SHEET_NAMES and n.casefold() not in {"summary", "audit"}
    assert names["a/b:c*?[d]\\e"]["Cash flow"] == "a b c d e Cash flow"
    # Long names keep the kind readable and still differ from each other.
    assert names[long]["Options"].endswith(" Options")
    assert names[long]["Options"] != names[long + "y"]["Options"]
    assert names["Base"]["Fleet"] == "Base Fleet" and names["base"]["Fleet"] == "base (2) Fleet"


def test_namer_never_hands_out_a_reserved_name() -> None:
    namer = SheetNamer()
    assert namer.name("summary") == "summary (2)"
    assert namer.name("GPUs") == "GPUs (2)"
    assert namer.name("Comparison") == "Comparison"
    assert clean_sheet_text("'quoted'") == "quoted"


def test_workbook_sheets_in_order(tmp_path: Path) -> None:
    wb = _values(_write(tmp_path, fake_run(fake_plan("base"), infeasible_plan("tight"))))
    assert wb.sheetnames == [
        "Summary",
        "base Cash flow",
        "base Fleet",
        "base Places",
        "base Assignments",
        "base Options",
        "tight Cash flow",
        "tight Fleet",
        "tight Places",
        "tight Assignments",
        "tight Options",
        "Audit",
    ]
    # Finance prints the visible sheets; the engineering detail is kept, hidden, not printed.
    hidden = [ws.title for ws in wb.worksheets if ws.sheet_state == "hidden"]
    assert hidden == [
        "base Places",
        "base Assignments",
        "base Options",
        "tight Places",
        "tight Assignments",
        "tight Options",
    ]


# --- numbers to the cent --------------------------------------------------


def test_summary_holds_the_plans_numbers(tmp_path: Path) -> None:
    a, b = fake_plan("a"), fake_plan("b", scale=2.0)
    run = fake_run(a, b, infeasible_plan("c"))
    ws = _values(_write(tmp_path, run))["Summary"]
    assert _row_by_label(ws, "Status") == ["optimal", "optimal", "infeasible"]
    totals = _row_by_label(ws, "Total cost (USD, after residual credit; the objective)")
    assert totals[:2] == [
        pytest.approx(a.total_cost, abs=CENT),
        pytest.approx(b.total_cost, abs=CENT),
    ]
    assert totals[2] is None  # no plan: blank, never 0
    cash = _row_by_label(ws, "Cash out (USD, undiscounted, purchases included, before credit)")
    assert cash[0] == pytest.approx(a.cash_out, abs=CENT)
    net = _row_by_label(ws, "Net undiscounted cost (USD) = cash out + sales − residual credit")
    assert a.cash_out is not None and a.residual_credit is not None
    assert net[0] == pytest.approx(a.cash_out - a.residual_credit, abs=CENT)
    assert _row_by_label(ws, "On-demand rent")[1] == pytest.approx(
        b.costs[CostCategory.ON_DEMAND], abs=CENT
    )
    assert _row_by_label(ws, "Purchase (capex)")[0] == pytest.approx(50_000.0, abs=CENT)
    assert _row_by_label(ws, "L40S: on-demand hours (paid GPU-hours)")[:2] == [
        pytest.approx(300.75),
        pytest.approx(601.5),
    ]
    assert _row_by_label(ws, "H100: GPUs bought")[0] == 2
    assert _row_by_label(ws, "budget_capex: USD saved per one more USD of capex")[
        0
    ] == pytest.approx(0.1234)
    assert (
        _row_by_label(ws, "Diagnostic 1")[2] == "budget_total 1,000 USD is below the cheapest plan"
    )


def test_summary_savings_against_baselines(tmp_path: Path) -> None:
    plan = fake_plan()
    run = fake_run(plan)
    ws = _values(_write(tmp_path, run))["Summary"]
    rent = run.baselines[plan.name]["rent only"]
    assert rent.total_cost is not None and plan.total_cost is not None
    assert _row_by_label(ws, "rent only: total cost (USD)")[0] == pytest.approx(
        rent.total_cost, abs=CENT
    )
    assert _row_by_label(ws, "rent only: saving (USD)")[0] == pytest.approx(12_345.67, abs=CENT)
    assert _row_by_label(ws, "rent only: saving (% of the alternative)")[0] == pytest.approx(
        12_345.67 / rent.total_cost
    )
    assert _row_by_label(ws, "best single GPU type: saving (USD)")[0] == pytest.approx(
        1_000.01, abs=CENT
    )
    assert _row_by_label(ws, "buy only: total cost (USD)")[0] == "no plan (infeasible)"
    assert _row_by_label(ws, "buy only: saving (USD)")[0] is None
    assert _row_by_label(ws, "best single GPU type: note")[0] == "only H100"
    assert all(r[0] != "rent only: note" for r in ws.iter_rows(values_only=True))


def test_a_saving_against_a_baseline_below_zero_stays_positive(tmp_path: Path) -> None:
    # A baseline whose residual credit outweighs its costs has a negative total; the
    # share is of its size, so a plan that saves money shows a positive percentage.
    plan = replace(fake_plan(), total_cost=-2_000.0)
    run = fake_run(plan)
    rent = replace(run.baselines[plan.name]["rent only"], total_cost=-1_500.0)
    run = replace(run, baselines={plan.name: {**run.baselines[plan.name], "rent only": rent}})
    ws = _values(_write(tmp_path, run))["Summary"]
    assert _row_by_label(ws, "rent only: saving (USD)")[0] == pytest.approx(500.0, abs=CENT)
    assert _row_by_label(ws, "rent only: saving (% of the alternative)")[0] == pytest.approx(
        500.0 / 1_500.0
    )


def _rent_note(tmp_path: Path, plan: Plan, status: SolveStatus, gap: float) -> list[object]:
    """The Summary's "rent only: note" row, with the rent-only baseline at ``status`` and ``gap``."""
    run = fake_run(plan)
    rent = replace(run.baselines[plan.name]["rent only"], status=status, gap=gap)
    run = replace(run, baselines={plan.name: {**run.baselines[plan.name], "rent only": rent}})
    ws = _values(_write(tmp_path, run))["Summary"]
    assert _row_by_label(ws, "rent only: saving (USD)")[0] == pytest.approx(12_345.67, abs=CENT)
    return _row_by_label(ws, "rent only: note")


def test_a_baseline_stopped_by_the_time_limit_says_its_saving_is_a_bound(tmp_path: Path) -> None:
    note = _rent_note(tmp_path, fake_plan(), SolveStatus.TIME_LIMIT, 0.031)
    assert note == ["time limit, gap 3.1%: saving at most this"]


def test_a_saving_against_a_plan_stopped_early_reads_at_least(tmp_path: Path) -> None:
    plan = replace(fake_plan(), status=SolveStatus.TIME_LIMIT, gap=0.052)
    assert _rent_note(tmp_path, plan, SolveStatus.OPTIMAL, 0.0) == [
        "this plan stopped early (gap 5.2%): the cheapest plan saves at least this"
    ]


def test_a_saving_where_plan_and_baseline_stopped_early_is_not_proven(tmp_path: Path) -> None:
    plan = replace(fake_plan(), status=SolveStatus.TIME_LIMIT, gap=0.052)
    assert _rent_note(tmp_path, plan, SolveStatus.TIME_LIMIT, 0.031) == [
        "time limit, gap 3.1%, and this plan's gap 5.2%: the saving is not proven either way"
    ]


def test_cash_flow_cells_and_live_totals(tmp_path: Path) -> None:
    plan = fake_plan()
    path = _write(tmp_path, fake_run(plan))
    ws = _values(path)["base Cash flow"]
    rows = list(ws.iter_rows(values_only=True))
    assert rows[0][0] == "Month" and rows[0][-1] == "Total (USD)"
    for month, row in zip(plan.cash_flow, rows[1:4], strict=True):
        assert row[0] == month.month
        for j, category in enumerate(CostCategory):
            assert row[j + 1] == pytest.approx(month.amounts[category], abs=CENT)
        assert row[TOTAL] == pytest.approx(month.total, abs=CENT)
    assert rows[4][0] == "Total"
    assert rows[4][TOTAL] == pytest.approx(plan.cash_out, abs=CENT)  # nothing sold
    assert rows[4][4] == pytest.approx(plan.costs[CostCategory.ON_DEMAND], abs=CENT)
    formulas = openpyxl.load_workbook(path)["base Cash flow"]
    total, last = get_column_letter(TOTAL + 1), get_column_letter(TOTAL)
    assert formulas[f"{total}2"].value == f"=SUM(B2:{last}2)"
    assert formulas["B5"].value == "=SUM(B2:B4)"
    # Formulas look different from the solver's values.
    assert formulas[f"{total}2"].font.color.rgb != formulas[f"{last}2"].font.color.rgb
    assert formulas["B2"].number_format == "$#,##0.00"


def test_fleet_assignments_and_options(tmp_path: Path) -> None:
    plan = fake_plan()
    wb = _values(_write(tmp_path, fake_run(plan)))
    header = [c.value for c in wb["base Fleet"][1]]
    col = {name: header.index(name) for name in header if name}
    fleet = list(wb["base Fleet"].iter_rows(min_row=2, max_col=len(col), values_only=True))
    l40s_month2 = next(r for r in fleet if r[0] == "L40S" and r[1] == 2)
    assert l40s_month2[col["On-demand (paid GPU-hours)"]] == pytest.approx(200.25)
    assert l40s_month2[col["Owned utilisation (%)"]] is None
    h100_month1 = next(r for r in fleet if r[0] == "H100" and r[1] == 1)
    counts = ("Bought (GPUs)", "Sold (GPUs)", "Owned (GPUs)", "Servers", "Reserved active (GPUs)")
    assert tuple(h100_month1[col[c]] for c in counts) == (2, 0, 2, 0, 0)
    assert h100_month1[col["Owned utilisation (%)"]] == pytest.approx(1.0)
    utilisation = get_column_letter(col["Owned utilisation (%)"] + 1)
    assert wb["base Fleet"][f"{utilisation}2"].number_format == "0.0%"

    rows = list(wb["base Assignments"].iter_rows(min_row=2, values_only=True))
    for a, row in zip(plan.assignments, rows, strict=False):
        assert (row[0], row[1], row[4]) == (a.workload, a.gpu, a.month)
        assert row[11] == pytest.approx(a.cost, abs=CENT)
        if a.tokens:
            assert row[13] == pytest.approx(a.cost / a.tokens * 1e6, abs=CENT)
        else:
            assert row[13] is None
    total = rows[len(plan.assignments)]
    assert total[0] == "Total" and total[11] == pytest.approx(
        sum(a.cost for a in plan.assignments), abs=CENT
    )
    below = [rows[len(plan.assignments) + i] for i in range(1, 5)]
    assert [r[0] for r in below] == [
        "Cash out of the plan (USD, the Cash flow total)",
        "Sales (USD, cash in, negative)",
        "Residual credit (USD, value credited at the horizon)",
        "Not assigned to any workload (USD, idle capacity)",
    ]
    assert below[2][11] == pytest.approx(plan.residual_credit, abs=CENT)
    assert below[3][11] == pytest.approx(0.0, abs=CENT)  # all assigned

    opts = list(wb["base Options"].iter_rows(min_row=2, values_only=True))
    # (workload, GPU, GPUs per replica): a realtime pair has a row per serving width.
    by_pair = {(r[0], r[1], r[5]): r for r in opts if r[1]}
    assert by_pair[("chat-8b", "H100", 1)][14] == "✔"
    assert by_pair[("chat-8b", "L40S", 2)][2] == "no" and "latency" in str(
        by_pair[("chat-8b", "L40S", 2)][3]
    )
    lora = by_pair[("lora-7b", "L40S", 2)]
    assert lora[14] == "✔" and lora[10] == pytest.approx(OD_PRICE)
    assert lora[12] == pytest.approx(300.75 * OD_PRICE, abs=CENT) and lora[13] == "USD per job"
    # Realtime: GPUs per replica × price / (tokens/s × 3600) per million tokens.
    chat = by_pair[("chat-8b", "H100", 1)]
    assert chat[12] == pytest.approx(1 * 3.15 / (2_345.6789 * 3600) * 1e6, abs=CENT)
    assert by_pair[("lora-7b", "H100", 1)][14] is None


def test_options_say_what_was_estimated_and_assumed(tmp_path: Path) -> None:
    # Each line of a pair carries the pair's basis (model v2 §G), a realtime pair on
    # every serving width.
    plan = fake_plan()
    basis = "estimated: memory need, GPU-hours; assumed: layers estimated from params_b (33)"
    options = tuple(
        replace(o, basis=basis if o.workload == "lora-7b" else "given: GPU-hours (measured)")
        for o in plan.options
    )
    wb = _values(_write(tmp_path, fake_run(replace(plan, options=options))))
    ws = wb["base Options"]
    assert ws.cell(row=1, column=16).value == "Estimated figures and assumed values"
    rows = [r for r in ws.iter_rows(min_row=2, values_only=True) if r[1]]
    assert {r[15] for r in rows if r[0] == "lora-7b"} == {basis}
    assert {r[15] for r in rows if r[0] != "lora-7b"} == {"given: GPU-hours (measured)"}


def test_options_price_only_offers_the_plan_could_take(tmp_path: Path) -> None:
    # A 36-month reservation cannot fit a 3-month horizon, and an offer from
    # month 4 comes too late: the cheapest usable hourly price of the H100 is
    # a 2-month reservation at $2.20 (the on-demand price is $3.15).
    plan = fake_plan()
    late = [
        offer("H100", "reserved", 1.58, 1, term_months=36, provider="Long Cloud"),
        offer("H100", "on_demand", 1.00, 2, available_from=4, provider="Later Cloud"),
        offer("H100", "reserved", 2.20, 2, term_months=2, provider="Short Cloud"),
    ]
    scenario = replace(plan.scenario, offers=(*plan.scenario.offers, *late))
    wb = _values(_write(tmp_path, fake_run(replace(plan, scenario=scenario))))
    rows = {
        (r[0], r[1], r[5]): r for r in wb["base Options"].iter_rows(min_row=2, values_only=True)
    }
    chat = rows[("chat-8b", "H100", 1)]
    assert chat[10] == pytest.approx(2.20) and chat[11] == "reserved, 2 months (Short Cloud)"
    assert chat[12] == pytest.approx(1 * 2.20 / (2_345.6789 * 3600) * 1e6, abs=CENT)


def test_audit_lists_files_assumptions_and_offers(tmp_path: Path) -> None:
    source_file = tmp_path / "inputs.xlsx"
    source_file.write_bytes(b"not really a workbook")
    run = replace(fake_run(fake_plan()), input_files=(source_file, tmp_path / "gone.yaml"))
    ws = _values(_write(tmp_path, run))["Audit"]
    cells = [row for row in ws.iter_rows(values_only=True)]
    flat = [v for row in cells for v in row if v is not None]
    assert hashlib.sha256(b"not really a workbook").hexdigest() in flat
    assert "file not found when writing" in flat
    assert "0.1.0" in flat and "2026-12-02T16:00:00Z" in flat and "HiGHS 1.16.0" in flat
    electricity = next(r for r in cells if r[1] == "electricity_per_kwh")
    assert (
        electricity[2] == pytest.approx(0.10)
        and electricity[4] == "Assumptions sheet: utility bill 2026"
    )
    pue = next(r for r in cells if r[1] == "pue")
    assert str(pue[4]).startswith("default: ")
    buy = next(r for r in cells if r[1] == "H100|buy|1")
    assert buy[4] == 25_000.0 and buy[9] == "Acme Cloud" and buy[10] == "vendor quote 2026-11"


# --- safety ---------------------------------------------------------------


def test_user_text_that_looks_like_a_formula_stays_text(tmp_path: Path) -> None:
    plan = fake_plan(EVIL, chat=EVIL, source=EVIL, provider="@SUM(1)")
    path = _write(tmp_path, fake_run(plan))
    wb = openpyxl.load_workbook(path)  # formulas, not values: text must not be a formula
    seen = 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and (EVIL in cell.value or "@SUM(1)" in cell.value):
                    assert cell.data_type == "s", (ws.title, cell.coordinate)
                    assert cell.quotePrefix, (ws.title, cell.coordinate)
                    seen += 1
    assert seen >= 6  # summary header, assignments, options, audit offers, providers, sources
    assert wb["Summary"]["B1"].value == EVIL


def test_non_finite_numbers_are_written_blank(tmp_path: Path) -> None:
    plan = fake_plan()
    bad = replace(
        plan,
        gap=math.nan,
        total_cost=math.inf,
        fleet=tuple(replace(f, rented_hours=math.nan) for f in plan.fleet),
        options=tuple(replace(o, latency_ms=math.inf) for o in plan.options),
    )
    path = _write(tmp_path, fake_run(bad, with_baselines=False))
    wb = _values(path)
    for ws in wb.worksheets:
        for row in ws.iter_rows(values_only=True):
            for v in row:
                assert not (isinstance(v, float) and not math.isfinite(v))
    assert _row_by_label(wb["Summary"], "Proven gap (%)")[0] is None
    header = [c.value for c in wb["base Fleet"][1]]
    on_demand = get_column_letter(header.index("On-demand (paid GPU-hours)") + 1)
    assert wb["base Fleet"][f"{on_demand}2"].value is None


def test_tables_charts_and_frozen_headers(tmp_path: Path) -> None:
    path = _write(tmp_path, fake_run(fake_plan()))
    wb = openpyxl.load_workbook(path)
    assert set(wb["base Cash flow"].tables) == {"CashFlow_1"}
    assert wb["base Cash flow"].tables["CashFlow_1"].ref == f"A1:{get_column_letter(TOTAL + 1)}4"
    assert set(wb["base Options"].tables) == {"Options_1"}
    assert {"Audit_assumptions", "Audit_offers", "Audit_gpus"} <= set(wb["Audit"].tables)
    assert wb["Summary"].freeze_panes == "B2"
    total = next(
        r
        for r in wb["Summary"].iter_rows()
        if str(r[0].value) == "Total cost (USD, after residual credit; the objective)"
    )
    row = total[0].row  # the names follow the rows wherever the layout puts them
    assert wb.defined_names["TotalCost"].attr_text == f"'Summary'!$B${row}:$B${row}"
    assert wb.defined_names["CashOut"].attr_text == f"'Summary'!$B${row + 1}:$B${row + 1}"
    assert wb["base Cash flow"].freeze_panes == "B2"
    with zipfile.ZipFile(path) as z:
        charts = [n for n in z.namelist() if n.startswith("xl/charts/chart")]
        xml = " ".join(z.read(n).decode() for n in charts)
    # Cash saved against rent only (Summary); monthly cash by category and cumulative cash
    # against the baselines (Cash flow); GPUs by type and place (Fleet).
    assert len(charts) == 4
    assert '<c:grouping val="stacked"/>' in xml
    assert "Monthly cash: running costs (left), purchases (right)" in xml
    assert "GPUs in use by type and place" in xml
    with zipfile.ZipFile(path) as z:
        texts = [z.read(n).decode() for n in charts]
    (cumulative,) = [t for t in texts if "this plan against each simple alternative" in t]
    # This plan, rent only and the best single type; "buy only" has no plan in fake_run.
    assert cumulative.count("<c:ser>") == 3
    # Purchases on a second axis (a line), so one month's GPUs do not flatten the columns.
    (cash,) = [t for t in texts if "running costs (left)" in t]
    assert "<c:barChart>" in cash and "<c:lineChart>" in cash
    assert cash.count("<c:valAx>") == 2 and "USD a month, purchases" in cash
    assert "Cash saved so far against renting everything" in xml
    widths = wb["base Options"].column_dimensions
    assert widths["D"].width >= 40  # the reasons column is readable


def test_a_scenario_without_a_plan_gets_sheets_that_say_so(tmp_path: Path) -> None:
    wb = _values(_write(tmp_path, fake_run(infeasible_plan("tight"))))
    assert str(wb["tight Cash flow"]["A2"].value).startswith("No plan: status infeasible")
    assert _row_by_label(wb["Summary"], "Status") == ["infeasible"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=45), min_size=1, max_size=6, unique=True))
def test_any_scenario_names_give_valid_distinct_sheet_names(scenarios: list[str]) -> None:
    names = [n for kinds in scenario_sheet_names(scenarios).values() for n in kinds.values()]
    assert len({n.casefold() for n in names}) == len(names)
    reserved = {r.casefold() for r in (*INPUT_SHEET_NAMES, "Summary", "Audit")}
    for n in names:
        assert 0 < excel_length(n) <= MAX_SHEET_NAME
        assert not set(n) & set("[]:*?/\\\ufffe\uffff")
        assert not n.startswith("'") and not n.endswith("'")
        assert n.casefold() not in reserved


def test_characters_beyond_the_basic_plane_count_twice_in_sheet_names() -> None:
    name = scenario_sheet_names(["0" * 14 + "\U00010000" * 3])["0" * 14 + "\U00010000" * 3]
    assert excel_length(name["Assignments"]) <= MAX_SHEET_NAME
    assert name["Assignments"].endswith(" Assignments")
    assert scenario_sheet_names(["\ufffe"])["\ufffe"]["Fleet"] == "scenario Fleet"


def test_control_characters_are_dropped_and_long_text_is_capped() -> None:
    assert cell_text("H100\x00\x07 SXM\tok\n") == "H100 SXM\tok\n"
    assert len(cell_text("x" * 40_000)) == 32_767
    assert cell_text(None) == ""


def test_names_with_control_characters_still_write(tmp_path: Path) -> None:
    plan = fake_plan("bad\x01name", chat="chat\x0b8b")
    wb = _values(_write(tmp_path, fake_run(plan)))
    assert wb["Summary"]["B1"].value == "badname"
    assert "badname Cash flow" in wb.sheetnames


def test_assignments_reconcile_with_cash_out(tmp_path: Path) -> None:
    plan = fake_plan()
    idle = plan.assignments[0]
    partly = replace(plan, assignments=plan.assignments[1:])  # month 1 of the chat: not assigned
    wb = _values(_write(tmp_path, fake_run(partly)))
    rows = {r[0]: r for r in wb["base Assignments"].iter_rows(values_only=True) if r[0]}
    assert rows["Cash out of the plan (USD, the Cash flow total)"][11] == pytest.approx(
        plan.cash_out, abs=CENT
    )
    unassigned = rows["Not assigned to any workload (USD, idle capacity)"][11]
    assert unassigned == pytest.approx(idle.cost, abs=CENT)


def test_unassigned_cost_is_net_of_the_residual_credit(tmp_path: Path) -> None:
    # The bundled us-baseline buys GPUs (book value credited at the horizon): the
    # sheet's unassigned figure is the plan's idle cost, net of that credit. With the
    # v2 §G estimates the 13 RTX 4090 it buys are busy whenever owned: no idle cost,
    # and no idle note (test_solve checks the note's wording where there is one).
    from optimizer.inputs.load import bundled_example, load_input
    from tests.checked import solve_checked

    # solve_checked: the independent checker has recomputed cash out and credit.
    (scenario,) = load_input(bundled_example(), ["us-baseline"]).scenarios
    plan = solve_checked(scenario)
    assert plan.cash_out is not None and plan.residual_credit is not None
    assert plan.residual_credit > 1.0
    wb = _values(_write(tmp_path, fake_run(plan, with_baselines=False)))
    rows = {r[0]: r for r in wb["us-baseline Assignments"].iter_rows(values_only=True) if r[0]}
    credit = rows["Residual credit (USD, value credited at the horizon)"][11]
    assert credit == pytest.approx(plan.residual_credit, abs=CENT)
    unassigned = rows["Not assigned to any workload (USD, idle capacity)"][11]
    assert unassigned == pytest.approx(0.0, abs=CENT)
    assert [d for d in plan.diagnostics if "idle capacity" in d] == []
    assert sum(a.cost for a in plan.assignments) + unassigned == pytest.approx(
        plan.cash_out - plan.residual_credit, abs=CENT
    )


@settings(max_examples=15, deadline=None)
@given(
    scenario=st.text(min_size=1, max_size=40),
    workload=st.text(min_size=1, max_size=40),
)
def test_any_user_names_write_and_read_back_as_text(
    tmp_path_factory: pytest.TempPathFactory, scenario: str, workload: str
) -> None:
    plan = fake_plan(scenario, chat=workload)
    path = tmp_path_factory.mktemp("names") / "results.xlsx"
    write_result_workbook(path, fake_run(plan))
    wb = openpyxl.load_workbook(path)
    # A name that is nothing but control characters becomes an empty text cell.
    assert (wb["Summary"]["B1"].value or "") == cell_text(scenario)
    options = next(ws for ws in wb.worksheets if ws.title.endswith(" Options"))
    assert (options["A2"].value or "") == cell_text(workload)
    assert options["A2"].value is None or options["A2"].data_type == "s"


def test_cash_flow_holds_the_cumulative_cash_of_the_plan_and_each_baseline(tmp_path: Path) -> None:
    plan = fake_plan("base")
    run = fake_run(plan)
    rows = list(_values(_write(tmp_path, run))["base Cash flow"].iter_rows(values_only=True))
    head = next(i for i, r in enumerate(rows) if i > 0 and r[0] == "Month")
    assert rows[head - 1][0] == (
        "Cumulative cash by month (USD, undiscounted): this plan and each simple alternative"
    )
    # "buy only" has no plan in fake_run: it gets no column (and no line).
    assert rows[head][:5] == ("Month", "this plan", "rent only", "best single GPU type", None)
    baselines = run.baselines["base"]
    paid = {name: 0.0 for name in ("plan", "rent only", "best single GPU type")}
    for t, month in enumerate(plan.cash_flow):
        paid["plan"] += month.total
        for name in ("rent only", "best single GPU type"):
            paid[name] += baselines[name].cash_flow[t].total
        assert rows[head + 1 + t][:4] == (
            month.month,
            pytest.approx(paid["plan"], abs=CENT),
            pytest.approx(paid["rent only"], abs=CENT),
            pytest.approx(paid["best single GPU type"], abs=CENT),
        )
