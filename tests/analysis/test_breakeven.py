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
    BreakevenRow,
    breakeven_rows,
    cumulative_costs,
    format_breakeven_table,
)
from optimizer.analysis.breakeven_workbook import write_breakeven_workbook
from optimizer.domain import Assumptions
from tests.builders import gpu, offer, scenario

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "workbooks" / "example.xlsx"

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
    row, spot = breakeven_rows(s, 0.6)
    assert (row.option, row.rent_per_hour, row.buy_price) == ("on-demand", 2.40, 24_000)
    assert row.breakeven_hours == pytest.approx(10_000)
    assert (spot.option, spot.rent_per_hour) == ("spot", 1.00)


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


def test_cumulative_rent_and_owned_net_of_resale_by_month() -> None:
    # Defaults: PUE 1.3, 0.10 USD/kWh, idle 10 %, maintenance 5 %/yr, resale market
    # 0.7 falling 30 % a year. At 60 % use:
    # rent 3.15 × 730 × 0.6 = 1,379.70 a month;
    # own: energy 0.7 × 1.3 × 0.10 = 0.091/h × 730 × (0.6 + 0.4 × 0.1 = 0.64) = 42.5152
    #      + maintenance 25,000 × 0.05 / 12 = 104.16667 → 146.68187 a month.
    # Month 12: rent 16,556.40; paid 25,000 + 12 × 146.68187 = 26,760.18, less resale
    # at the start of month 13: 0.7 × 25,000 × 0.7 = 12,250 → 14,510.18.
    s = scenario(
        [gpu("H100")], [offer("H100", "on_demand", 3.15), offer("H100", "buy", 25_000)], []
    )
    (row,) = breakeven_rows(s, 0.6)
    series = cumulative_costs(row)
    assert len(series) == 36
    month, rent, owned = series[11]
    assert month == 12
    assert rent == pytest.approx(16_556.40, abs=0.005)
    assert owned == pytest.approx(14_510.18, abs=0.005)


def test_terminal_table_has_units_and_the_guide_figures() -> None:
    s = _guide_scenario()
    text = format_breakeven_table(breakeven_rows(s, 0.6), s)
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
    for figure in ("on-demand", "3.15", "25,000", "7,937", "10.9", "18.1", "1.04", "0.0032"):
        assert figure in h100.split()
    assert "resale (market)" in text and "not within 36 months" in text


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
    assert table.cell(1, 2).value == "rental option"
    h100 = names.index("H100") + 2
    assert table.cell(h100, 2).value == "on-demand"
    assert table.cell(h100, 3).value == pytest.approx(3.15)
    assert table.cell(h100, 5).value == pytest.approx(25_000 / 3.15)
    assert table.cell(h100, 8).value == pytest.approx(rows[2].full_cost_months)
    assert table.cell(h100, 10).value == rows[2].paid_off_month
    assert table.cell(h100, 16).value == pytest.approx(1.04159, abs=1e-5)
    # The scenario name looks like a formula: it stays text.
    scenario_cell = table.cell(len(GUIDE) + 3, 2)
    assert scenario_cell.data_type == "s" and scenario_cell.value == "=cmd"
    assert scenario_cell.quotePrefix

    sheet = book["H100 rent vs buy"]
    assert sheet.max_row == 1 + 36
    assert sheet.cell(13, 1).value == 12
    # 3.15 × 730 × 0.6 × 12 = 16,556.40; no formula anywhere.
    assert sheet.cell(13, 5).value == pytest.approx(16_556.40)
    assert all(c.data_type != "f" for ws in book for line in ws.iter_rows() for c in line)

    with zipfile.ZipFile(path) as archive:
        charts = [n for n in archive.namelist() if n.startswith("xl/charts/chart")]
    assert len(charts) == len(GUIDE)


# ------------------------------------------------ full cost, by hand, per option kind

# One 1 kW GPU "X" bought at 10,000; PUE 1.0, 0.10 a kWh, no idle draw, maintenance
# 12 % a year (100 a month), 730 hours a month, resale none unless a test sets it.
# At full use: energy 1 kW × 0.10 × 730 = 73 a month, running 173 a month.
HAND = dict(
    electricity_per_kwh=0.10,
    pue=1.0,
    idle_power_fraction=0.0,
    maintenance_per_year=0.12,
    residual_value="none",
)


def _hand(
    *rentals: object,
    utilization: float = 1.0,
    months: int | None = None,
    node: dict[str, float] | None = None,
    **assumed: object,
) -> tuple[BreakevenRow, ...]:
    a = Assumptions(**{**HAND, **assumed})  # type: ignore[arg-type]
    x = gpu("X", tdp_w=1000.0, **(node or {}))
    offers = [offer("X", "buy", 10_000), *rentals]
    return breakeven_rows(scenario([x], offers, [], assumptions=a), utilization, months)  # type: ignore[list-item]


def test_with_every_extra_zero_full_cost_is_the_guides_7937_hours() -> None:
    # No energy, maintenance, server, colocation or resale: buying pays off after
    # 25,000 / 3.15 = 7,936.51 rented hours, 10.87 months at 24/7 (18.12 at 60 %).
    zero = Assumptions(electricity_per_kwh=0.0, maintenance_per_year=0.0, residual_value="none")
    s = scenario(
        [gpu("H100")],
        [offer("H100", "on_demand", 3.15), offer("H100", "buy", 25_000)],
        [],
        assumptions=zero,
    )
    for utilization, months in ((1.0, 10.87), (0.6, 18.12)):
        (row,) = breakeven_rows(s, utilization)
        assert row.breakeven_hours == pytest.approx(25_000 / 3.15, rel=1e-12)
        assert row.full_cost_hours == pytest.approx(25_000 / 3.15, rel=1e-12)
        assert round(row.full_cost_hours or 0) == 7_937
        assert row.full_cost_months == pytest.approx(months, abs=0.005)
        assert row.later_months == pytest.approx(0.0, abs=1e-9)
    assert row.paid_off_month == 19
    assert "7,937" in format_breakeven_table([row]).splitlines()[2].split()


def test_on_demand_with_energy_and_maintenance_by_hand() -> None:
    # Rent 2.00 × 730 = 1,460 a month against 10,000 + 173 a month:
    # 10,000 / (1,460 − 173) = 7.7700 months, × 730 = 5,672.11 GPU-hours; the rule
    # says 10,000 / 2.00 / 730 = 6.8493 months, 0.9207 sooner. Month 8 is the first
    # whole month: 11,384 owned against 11,680 rent (month 7: 11,211 against 10,220).
    (row,) = _hand(offer("X", "on_demand", 2.00))
    assert row.option == "on-demand"
    assert row.owned is not None and row.owned.running_per_month == pytest.approx(173.0)
    assert row.full_cost_months == pytest.approx(7.770008, abs=1e-6)
    assert row.full_cost_hours == pytest.approx(5_672.11, abs=0.005)
    assert row.later_months == pytest.approx(0.920693, abs=1e-6)
    assert row.paid_off_month == 8
    assert row.months_without_resale == row.full_cost_months


def test_reserved_term_is_paid_every_hour_by_hand() -> None:
    # Reserved 12 months at 1.50: 1.50 × 730 = 1,095 a month whatever the use. At 50 %
    # use the owned GPU burns 36.50 of energy + 100 maintenance = 136.50 a month:
    # 10,000 / (1,095 − 136.50) = 10.4330 months, 7,616.07 GPU-hours paid; the rule:
    # 10,000 / 1.50 = 6,666.67 hours = 9.1324 months (at 24/7 and at 50 % alike).
    (row,) = _hand(offer("X", "reserved", 1.50, term_months=12), utilization=0.5)
    assert row.option == "reserved 12 mo"
    assert row.rent_per_month == pytest.approx(1_095.0)
    assert row.months_24_7 == row.months_at_utilization == pytest.approx(9.132420, abs=1e-6)
    assert row.full_cost_months == pytest.approx(10.432968, abs=1e-6)
    assert row.full_cost_hours == pytest.approx(7_616.07, abs=0.005)
    assert row.paid_off_month == 11


def test_every_reserved_offer_is_its_own_row_between_on_demand_and_spot() -> None:
    rows = _hand(
        offer("X", "spot", 0.90),
        offer("X", "reserved", 1.50, 1, term_months=12),
        offer("X", "on_demand", 2.00),
        offer("X", "reserved", 1.20, 2, term_months=36),
    )
    assert [r.option for r in rows] == ["on-demand", "reserved 12 mo", "reserved 36 mo", "spot"]


def test_spot_pays_the_hours_used_over_spot_efficiency_by_hand() -> None:
    # Spot 1.00 at 50 % use, spot efficiency 0.8: 365 / 0.8 = 456.25 hours paid a month.
    # 10,000 / (456.25 − 136.50) = 31.2744 months, 14,268.96 GPU-hours paid.
    (row,) = _hand(offer("X", "spot", 1.00), utilization=0.5, spot_efficiency=0.8)
    assert row.option == "spot"
    assert row.rent_hours_per_month == pytest.approx(456.25)
    assert row.months_at_utilization == pytest.approx(21.917808, abs=1e-6)
    assert row.full_cost_months == pytest.approx(31.274433, abs=1e-6)
    assert row.full_cost_hours == pytest.approx(14_268.96, abs=0.005)
    assert row.paid_off_month == 32


def test_server_share_by_hand() -> None:
    # Servers of 8 at 8,000 drawing 800 W: 1,000 of capex per GPU; per GPU a month
    # maintenance 8,000 × 0.12 / 12 / 8 = 10 and energy 0.8 kW × 730 × 0.10 / 8 = 7.30.
    # 11,000 / (1,460 − 190.30) = 8.6635 months, 6,324.33 GPU-hours.
    (row,) = _hand(
        offer("X", "on_demand", 2.00), node={"node_price": 8_000.0, "node_power_w": 800.0}
    )
    assert row.owned is not None
    assert (row.owned.upfront, row.owned.server_upkeep_per_month) == pytest.approx((11_000, 17.3))
    assert row.full_cost_months == pytest.approx(8.663464, abs=1e-6)
    assert row.full_cost_hours == pytest.approx(6_324.33, abs=0.005)
    assert row.paid_off_month == 9


def test_colocation_by_hand() -> None:
    # 150 per kW a month: the 1 kW GPU pays 150, before PUE.
    # 10,000 / (1,460 − 323) = 8.7951 months, 6,420.40 GPU-hours.
    (row,) = _hand(offer("X", "on_demand", 2.00), colocation_per_kw_month=150.0)
    assert row.owned is not None and row.owned.colocation_per_month == pytest.approx(150.0)
    assert row.full_cost_hours == pytest.approx(6_420.40, abs=0.005)
    # With the server: its 100 W share adds 15 of rack space (and 17.30 of upkeep):
    # 11,000 / (1,460 − 355.30) = 9.9575 months, 7,268.94 GPU-hours.
    node = {"node_price": 8_000.0, "node_power_w": 800.0}
    (row,) = _hand(offer("X", "on_demand", 2.00), node=node, colocation_per_kw_month=150.0)
    assert row.owned is not None and row.owned.running_per_month == pytest.approx(355.30)
    assert row.full_cost_months == pytest.approx(9.957455, abs=1e-6)
    assert row.full_cost_hours == pytest.approx(7_268.94, abs=0.005)


def test_market_resale_by_hand() -> None:
    # Resale 0.5 of the price, no decline: 5,000 back whenever it is sold, so
    # 5,000 / (1,460 − 173) = 3.8850 months, 2,836.05 GPU-hours.
    (row,) = _hand(
        offer("X", "on_demand", 2.00),
        residual_value="market",
        resale_fraction=0.5,
        resale_decline_per_year=0.0,
    )
    assert row.full_cost_hours == pytest.approx(2_836.05, abs=0.005)
    assert row.months_without_resale == pytest.approx(7.770008, abs=1e-6)
    # Falling 30 % a year: sold after m months it fetches 5,000 × 0.7 ^ (m / 12)
    # (4,439.52 after 4, 4,308.87 after 5, 3,500 after 12). Owned less rent:
    # month 4: 10,000 + 692 − 4,439.52 − 5,840 = 412.48; month 5: −744.51; the line
    # between them meets 0 at 4 + 412.48 / 1,156.99 = 4.3565 months, 3,180.25 h.
    (row,) = _hand(
        offer("X", "on_demand", 2.00),
        residual_value="market",
        resale_fraction=0.5,
        resale_decline_per_year=0.3,
    )
    assert row.owned is not None
    assert row.owned.resale[0] == pytest.approx(5_000.0)
    assert row.owned.resale[4] == pytest.approx(4_439.52, abs=0.005)
    assert row.owned.resale[12] == pytest.approx(3_500.0)
    assert row.full_cost_months == pytest.approx(4.356512, abs=1e-6)
    assert row.full_cost_hours == pytest.approx(3_180.25, abs=0.005)
    assert row.paid_off_month == 5


def test_book_resale_by_hand_and_never_within_the_horizon() -> None:
    # Book over 36 months: after m months worth 10,000 × (1 − m / 36). Rent 0.50 × 730
    # = 365 a month: owned less rent = m × (173 + 277.78 − 365) = 85.78 m > 0 up to
    # month 36, then 10,000 + 173 m − 365 m: 0 at 10,000 / 192 = 52.0833 months.
    rent = offer("X", "on_demand", 0.50)
    (row,) = _hand(rent, residual_value="book")
    assert row.owned is not None and row.owned.resale[9] == pytest.approx(7_500.0)
    assert row.full_cost_months == math.inf and row.paid_off_month is None
    assert row.full_cost_hours is None and row.later_months is None
    (row,) = _hand(rent, residual_value="book", months=60)
    assert row.full_cost_months == pytest.approx(52.083333, abs=1e-6)
    assert row.full_cost_hours == pytest.approx(38_020.83, abs=0.005)
    assert row.paid_off_month == 53
    # At 2.00 straight-line depreciation (277.78) + 173 is below the rent from the
    # first month: buying pays off at once.
    (row,) = _hand(offer("X", "on_demand", 2.00), residual_value="book")
    assert (row.full_cost_months, row.paid_off_month) == (0.0, 1)


def test_buying_never_pays_off_when_running_costs_exceed_the_rent() -> None:
    s = _guide_scenario(Assumptions(electricity_per_kwh=10.0, pue=1.29, maintenance_per_year=0.0))
    h100 = _row(breakeven_rows(s, 0.6), "H100")
    assert h100.full_cost_months == math.inf
    assert h100.months_at_utilization == pytest.approx(18.12, abs=0.01)  # the guide's rule
    assert "never" in format_breakeven_table([h100])


def test_the_examples_h100_figures_in_the_methodology() -> None:
    # docs/methodology.md §3 works these out by hand.
    from optimizer.inputs.load import load_input

    s = load_input(EXAMPLE).scenarios[0]
    rows = {r.option: r for r in breakeven_rows(s, 0.6) if r.gpu == "H100"}
    assert list(rows) == ["on-demand", "reserved 12 mo", "reserved 36 mo", "spot"]
    on_demand = rows["on-demand"]
    assert on_demand.months_at_utilization == pytest.approx(18.12, abs=0.005)
    assert on_demand.months_without_resale == pytest.approx(20.28, abs=0.005)
    assert on_demand.full_cost_months == pytest.approx(9.61, abs=0.005)
    assert on_demand.paid_off_month == 10
    assert rows["spot"].full_cost_months == math.inf
    owned = on_demand.owned
    assert owned is not None and on_demand.rent_per_month is not None
    gap9 = owned.net(9) - 9 * on_demand.rent_per_month
    gap10 = 10 * on_demand.rent_per_month - owned.net(10)
    doc = " ".join((ROOT / "docs" / "methodology.md").read_text(encoding="utf-8").split())
    assert on_demand.later_months is not None
    for stated in (
        f"net ${owned.net(9):,.2f} against rent 9 × 1,379.70 = ${9 * 1379.70:,.2f}: ${gap9:,.2f}",
        f"net ${owned.net(10):,.2f} against rent ${10 * 1379.70:,.2f}: ${gap10:,.2f} cheaper",
        f"= {on_demand.full_cost_months:.1f} months, {on_demand.full_cost_hours:,.0f} rented",
        f"off {-on_demand.later_months:.1f} months sooner",
        f"= {on_demand.months_without_resale:.1f} months, "
        f"{on_demand.months_without_resale - on_demand.months_at_utilization:.1f} months later",
    ):
        assert stated in doc
    for option in ("reserved 12 mo", "reserved 36 mo"):
        r = rows[option]
        figures = (r.months_at_utilization, r.full_cost_months, r.months_without_resale)
        assert (
            f"{option} at ${r.rent_per_hour:.2f}, {' / '.join(f'{v:.1f}' for v in figures)}" in doc
        )


def test_the_chart_lines_cross_where_the_table_says_for_every_option(tmp_path: Path) -> None:
    from optimizer.inputs.load import load_input

    s = load_input(EXAMPLE).scenarios[0]
    rows = breakeven_rows(s, 0.6)
    path = tmp_path / "breakeven.xlsx"
    write_breakeven_workbook(path, rows, s)
    book = openpyxl.load_workbook(path)
    table = book["Break-even"]
    checked = 0
    for r, row in enumerate(rows, start=2):
        assert (table.cell(r, 1).value, table.cell(r, 2).value) == (row.gpu, row.option or "—")
        if row.owned is None or row.rent_per_hour is None:
            continue
        sheet = book[f"{row.gpu} rent vs buy"]
        titles = [c.value for c in sheet[1]]
        rent_col = next(
            i for i, t in enumerate(titles) if str(t).startswith(f"rent, {row.option},")
        )
        owned_col = titles.index("owned, net of resale (USD)")
        lines = list(sheet.iter_rows(min_row=2, values_only=True))
        crossed = [line[0] for line in lines if line[owned_col] <= line[rent_col]]
        in_table = table.cell(r, 10).value
        if crossed:
            assert in_table == crossed[0] == row.paid_off_month
            assert crossed[0] - 1 <= row.full_cost_months <= crossed[0]  # type: ignore[operator]
        else:
            assert in_table == "never" and row.full_cost_months == math.inf
        checked += 1
    assert checked == 12
    with zipfile.ZipFile(path) as archive:
        charts = [n for n in archive.namelist() if n.startswith("xl/charts/chart")]
    assert len(charts) == 6


def test_table_and_workbook_label_money_in_the_workbooks_currency(tmp_path: Path) -> None:
    usd_scenario = _guide_scenario()
    s = replace(usd_scenario, assumptions=replace(usd_scenario.assumptions, currency="EUR"))
    rows = breakeven_rows(s, 0.6)
    eur, usd = format_breakeven_table(rows, s), format_breakeven_table(rows, usd_scenario)
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
    assert "rent (EUR/GPU-hour)" in texts
    assert not any("USD" in t or "$" in t for t in texts)
