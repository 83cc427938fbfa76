"""Break-even figures against the GPU buying guide's worked numbers."""

from __future__ import annotations

import math
import zipfile
from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import openpyxl
import pytest

from optimizer.analysis.breakeven import (
    breakeven_rows,
    cumulative_costs,
    format_breakeven_table,
    write_breakeven_workbook,
)
from optimizer.domain import Assumptions
from tests.builders import gpu, offer, scenario

# The guide's table: VRAM GB, FP16 TFLOPS, rent USD/h, buy USD, TDP W.
GUIDE = {
    "B200": (192, 2500, 4.70, 45_000, 1000),
    "H200": (141, 1000, 3.80, 35_000, 700),
    "H100": (80, 1000, 3.15, 25_000, 700),
    "A100": (80, 312, 0.72, 15_000, 300),
    "L40S": (48, 366, 1.50, 8_000, 350),
    "RTX 4090": (24, 330, 0.60, 1_600, 450),
}
# The guide's power: $0.10/kWh; cooling $0.02/h on a 700 W card ≈ PUE 1.29; no maintenance.
GUIDE_ASSUMPTIONS = Assumptions(electricity_per_kwh=0.10, pue=1.29, maintenance_per_year=0.0)


def _guide_scenario(assumptions: Assumptions = GUIDE_ASSUMPTIONS, **kw):
    gpus = [gpu(n, vram_gb=v, fp16_tflops=f, tdp_w=w) for n, (v, f, _, _, w) in GUIDE.items()]
    offers = []
    for n, (_, _, rent, buy, _) in GUIDE.items():
        offers += [offer(n, "on_demand", rent), offer(n, "buy", buy)]
    return scenario(gpus, offers, [], assumptions=assumptions, **kw)


def _row(rows, name):
    return next(r for r in rows if r.gpu == name)


def test_h100_break_even_hours_and_months() -> None:
    # 25,000 / 3.15 = 7,936.51 hours; / 730 = 10.87 months at 24/7 (≈ 11);
    # / (730 × 0.6 = 438) = 18.12 months at 60 % (≈ 18).
    h100 = _row(breakeven_rows(_guide_scenario(), 0.6), "H100")
    assert h100.breakeven_hours == pytest.approx(7936.51, abs=0.01)
    assert h100.months_24_7 == pytest.approx(10.87, abs=0.01)
    assert h100.months_at_utilization == pytest.approx(18.12, abs=0.01)


def test_h100_owned_cost_per_hour_over_three_years() -> None:
    # 25,000 / (36 × 730 = 26,280 h) = 0.95129 + power and cooling 0.7 kW × 1.29 × 0.10 = 0.0903
    # = 1.04159 USD per GPU-hour (the guide: 0.95 + 0.07 + 0.02 ≈ 1.05).
    h100 = _row(breakeven_rows(_guide_scenario(), 0.6), "H100")
    assert h100.owned_cost_per_hour == pytest.approx(1.04159, abs=1e-5)


def test_owned_cost_per_hour_counts_maintenance() -> None:
    # + 25,000 × 0.05 / 12 × 36 = 3,750 USD over the period, / 26,280 h = 0.14269
    # → 1.04159 + 0.14269 = 1.18429.
    s = _guide_scenario(Assumptions(electricity_per_kwh=0.10, pue=1.29, maintenance_per_year=0.05))
    assert _row(breakeven_rows(s, 0.6), "H100").owned_cost_per_hour == pytest.approx(
        1.18429, abs=1e-5
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("RTX 4090", 0.0018),  # 0.60 / 330 = 0.001818
        ("B200", 0.0019),  # 4.70 / 2,500 = 0.00188
        ("A100", 0.0023),  # 0.72 / 312 = 0.002308
        ("H100", 0.0032),  # 3.15 / 1,000 = 0.00315
        ("H200", 0.0038),  # 3.80 / 1,000 = 0.0038
        ("L40S", 0.0041),  # 1.50 / 366 = 0.004098
    ],
)
def test_cost_per_tflop_hour_matches_the_guide(name: str, expected: float) -> None:
    row = _row(breakeven_rows(_guide_scenario(), 0.6), name)
    rent, tflops = GUIDE[name][2], GUIDE[name][1]
    assert row.cost_per_tflop_hour == pytest.approx(rent / tflops)
    # The guide rounds half up to four decimals (0.00315 → 0.0032).
    assert row.cost_per_tflop_hour is not None
    rounded = Decimal(repr(row.cost_per_tflop_hour)).quantize(Decimal("0.0001"), ROUND_HALF_UP)
    assert rounded == Decimal(repr(expected))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("B200", 525.60),  # 1.0 kW × 8,760 h × 0.6 × 0.10 = 525.60 (guide ≈ 526)
        ("H100", 367.92),  # 0.7 × 8,760 × 0.6 × 0.10 (guide ≈ 368)
        ("RTX 4090", 236.52),  # 0.45 × 5,256 × 0.10 (guide ≈ 237)
        ("L40S", 183.96),  # 0.35 × 525.6 (guide ≈ 184)
        ("A100", 157.68),  # 0.30 × 525.6 (guide ≈ 158)
    ],
)
def test_yearly_power_at_60_percent_matches_the_guide(name: str, expected: float) -> None:
    s = _guide_scenario(Assumptions(electricity_per_kwh=0.10, pue=1.0))
    assert _row(breakeven_rows(s, 0.6), name).yearly_power_cost == pytest.approx(
        expected, abs=0.005
    )


def test_yearly_power_includes_pue() -> None:
    # 0.7 × 8,760 × 0.6 × 0.10 × 1.3 = 478.296
    s = _guide_scenario(Assumptions(electricity_per_kwh=0.10, pue=1.3))
    assert _row(breakeven_rows(s, 0.6), "H100").yearly_power_cost == pytest.approx(
        478.296, abs=0.005
    )


def test_cheapest_offer_of_each_option_is_used() -> None:
    # 24,000 / 2.40 = 10,000 hours
    s = scenario(
        [gpu("H100")],
        [
            offer("H100", "on_demand", 3.15, 1),
            offer("H100", "on_demand", 2.40, 2),
            offer("H100", "buy", 25_000, 1),
            offer("H100", "buy", 24_000, 2),
            offer("H100", "spot", 1.00),
        ],
        [],
    )
    (row,) = breakeven_rows(s, 0.6)
    assert (row.rent_per_hour, row.buy_price) == (2.40, 24_000)
    assert row.breakeven_hours == pytest.approx(10_000)


def test_rent_only_types_get_cost_per_tflop_only_and_types_without_offers_no_row() -> None:
    s = scenario(
        [gpu("L4", fp16_tflops=121.0), gpu("Spare")],
        [offer("L4", "on_demand", 0.80)],
        [],
    )
    (row,) = breakeven_rows(s, 0.6)
    assert row.gpu == "L4"
    assert row.cost_per_tflop_hour == pytest.approx(0.80 / 121.0)
    assert row.breakeven_hours is None and row.owned_cost_per_hour is None
    assert row.months_24_7 is None and row.months_at_utilization is None


def test_cumulative_rent_and_buy_by_month() -> None:
    # Defaults: PUE 1.3, 0.10 USD/kWh, idle 10 %, maintenance 5 %/yr. At 60 % use:
    # rent 3.15 × 730 × 0.6 = 1,379.70 a month;
    # own: energy 0.7 × 1.3 × 0.10 = 0.091/h × 730 × (0.6 + 0.4 × 0.1 = 0.64) = 42.5152
    #      + maintenance 25,000 × 0.05 / 12 = 104.16667 → 146.68187 a month.
    # Month 12: rent 16,556.40; buy 25,000 + 12 × 146.68187 = 26,760.18.
    s = scenario(
        [gpu("H100")], [offer("H100", "on_demand", 3.15), offer("H100", "buy", 25_000)], []
    )
    (row,) = breakeven_rows(s, 0.6)
    series = cumulative_costs(row, s)
    assert len(series) == 36
    month, rent, buy = series[11]
    assert month == 12
    assert rent == pytest.approx(16_556.40, abs=0.005)
    assert buy == pytest.approx(26_760.18, abs=0.005)


def test_terminal_table_has_units_and_the_guide_figures() -> None:
    text = format_breakeven_table(breakeven_rows(_guide_scenario(), 0.6), "USD")
    header = text.splitlines()[0]
    for unit in (
        "rent (USD/h)",
        "buy (USD)",
        "(GPU-h)",
        "months at 60%",
        "over 36 mo (USD/GPU-h)",
        "(USD/TFLOP-h)",
        "(USD/yr)",
    ):
        assert unit in header
    h100 = next(line for line in text.splitlines() if line.startswith("H100"))
    for figure in ("3.15", "25,000", "7,937", "10.9", "18.1", "1.04", "0.0032"):
        assert figure in h100.split()


def test_workbook_holds_values_a_sheet_and_a_chart_per_type(tmp_path: Path) -> None:
    s = _guide_scenario(name="=cmd")
    rows = breakeven_rows(s, 0.6)
    path = tmp_path / "breakeven.xlsx"
    write_breakeven_workbook(path, rows, s)

    book = openpyxl.load_workbook(path)
    assert book.sheetnames[0] == "Break-even"
    assert len(book.sheetnames) == 1 + len(GUIDE)
    table = book["Break-even"]
    names = [table.cell(r, 1).value for r in range(2, 2 + len(GUIDE))]
    assert names == list(GUIDE)
    h100 = names.index("H100") + 2
    assert table.cell(h100, 2).value == pytest.approx(3.15)
    assert table.cell(h100, 4).value == pytest.approx(25_000 / 3.15)
    assert table.cell(h100, 7).value == pytest.approx(rows[2].months_with_running)
    assert table.cell(h100, 8).value == pytest.approx(1.04159, abs=1e-5)
    # The scenario name looks like a formula: it stays text.
    scenario_cell = table.cell(len(GUIDE) + 3, 2)
    assert scenario_cell.data_type == "s" and scenario_cell.value == "=cmd"
    assert scenario_cell.quotePrefix

    sheet = book["H100 rent vs buy"]
    assert sheet.max_row == 1 + 36
    assert sheet.cell(13, 1).value == 12
    # 3.15 × 730 × 0.6 × 12 = 16,556.40; no formula anywhere.
    assert sheet.cell(13, 2).value == pytest.approx(16_556.40)
    assert all(c.data_type != "f" for ws in book for line in ws.iter_rows() for c in line)

    with zipfile.ZipFile(path) as archive:
        charts = [n for n in archive.namelist() if n.startswith("xl/charts/chart")]
    assert len(charts) == len(GUIDE)


def test_with_running_costs_buying_pays_off_where_the_chart_lines_cross() -> None:
    # Guide scenario at 60 %: rent 3.15 × 438 h = 1,379.70 a month; owning costs
    # 0.7 kW × 1.29 × 0.10 × 730 × (0.6 + 0.4 × idle 0.1) = 42.19 of energy a month,
    # no maintenance: 25,000 / (1,379.70 − 42.19) = 18.69 months (18.12 without).
    s = _guide_scenario()
    h100 = _row(breakeven_rows(s, 0.6), "H100")
    energy = 0.7 * 1.29 * 0.10 * 730 * (0.6 + 0.4 * s.assumptions.idle_power_fraction)
    assert h100.months_with_running == pytest.approx(25_000 / (3.15 * 438 - energy), rel=1e-9)
    # The table and the chart agree: the first month the bought GPU costs no more.
    crossing = next(m for m, rent, buy in cumulative_costs(h100, s) if buy <= rent)
    assert crossing == math.ceil(h100.months_with_running)


def test_buying_never_pays_off_when_running_costs_exceed_the_rent() -> None:
    s = _guide_scenario(Assumptions(electricity_per_kwh=10.0, pue=1.29, maintenance_per_year=0.0))
    h100 = _row(breakeven_rows(s, 0.6), "H100")
    assert h100.months_with_running == math.inf
    assert h100.months_at_utilization == pytest.approx(18.12, abs=0.01)  # the guide's rule
    assert "never" in format_breakeven_table([h100], "USD")


def test_table_and_workbook_label_money_in_the_workbooks_currency(tmp_path: Path) -> None:
    s = _guide_scenario(assumptions=replace(GUIDE_ASSUMPTIONS, currency="EUR"))
    rows = breakeven_rows(s, 0.6)
    eur, usd = format_breakeven_table(rows, "EUR"), format_breakeven_table(rows, "USD")
    assert eur == usd.replace("USD", "EUR")  # the same figures: nothing converted
    assert "rent (EUR/h)" in eur.splitlines()[0]
    path = tmp_path / "breakeven.xlsx"
    write_breakeven_workbook(path, rows, s)
    texts = [
        c.value
        for sheet in openpyxl.load_workbook(path)
        for row in sheet.iter_rows()
        for c in row
        if isinstance(c.value, str)
    ]
    assert "rent, cheapest on-demand (EUR per GPU-hour)" in texts
    assert not any("USD" in t or "$" in t for t in texts)
