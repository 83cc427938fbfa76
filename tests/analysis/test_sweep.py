"""Sweeps: parsing --vary, building variants, running them, and finding flips.

Most tests run on ``hand_solve``: the cheapest plan of a one-GPU rent-versus-
buy scenario worked out by arithmetic, so the sweep machinery is tested apart
from the solver. One H100 type, bought at $25,000 or rented on demand; one
batch workload needing exactly one GPU's month (730 GPU-hours, measured) in
every month. With ``builders.BARE`` assumptions owning costs the purchase
alone, so buying pays exactly when ``on-demand price × 730 × months > buy
price``. Tests marked ``real solve`` run the same sweeps through the solver.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from openpyxl.utils import get_column_letter

from optimizer.analysis.executors import InlineExecutor, open_executor, run_in_order
from optimizer.analysis.sweep import describe_flips, run_sweep
from optimizer.analysis.sweep_outcomes import Regime
from optimizer.analysis.sweep_params import SpecKind, SweepMode, parse_vary, variants
from optimizer.analysis.sweep_workbook import write_sweep_workbook
from optimizer.domain import CostCategory, OfferOption, Scenario
from optimizer.errors import InputError
from optimizer.results import CashFlowMonth, FleetRow, Plan, SolverSettings, SolveStatus
from tests.builders import BARE, gpu, measured, offer, scenario, workload

BUY_PRICE = 25_000.0
MONTHS = 12
HOURS = 730.0
SETTINGS = SolverSettings(threads=1)


def rent_vs_buy(od_price: float = 3.0, months: int = MONTHS, **kw: object) -> Scenario:
    return scenario(
        [gpu("H100")],
        [offer("H100", "buy", BUY_PRICE), offer("H100", "on_demand", od_price)],
        [workload("batch", "batch_inference", params_b=8.0, tokens=1e9)],
        [measured("batch", "H100", gpu_hours=HOURS)],
        assumptions=BARE,
        horizon_months=months,
        name="rent-vs-buy",
        **kw,
    )


def break_even_price(months: int = MONTHS) -> float:
    """Buy price / hours used: the on-demand price above which buying pays."""
    return BUY_PRICE / (HOURS * months)


def hand_solve(s: Scenario, settings: SolverSettings) -> Plan:
    """The cheapest plan of a ``rent_vs_buy`` scenario, by arithmetic.

    Module-level, so that it pickles by reference into spawned workers.
    """
    buy = s.offers_of("H100", OfferOption.BUY)
    rent = s.offers_of("H100", OfferOption.ON_DEMAND)
    buy_cost = buy[0].price if buy else None
    if buy_cost is not None and s.budget_capex is not None and buy_cost > s.budget_capex:
        buy_cost = None
    rent_cost = rent[0].price * HOURS * s.horizon_months if rent else None
    if buy_cost is None and rent_cost is None:
        return _plan(s, None, ())
    buying = rent_cost is None or (buy_cost is not None and buy_cost < rent_cost)
    fleet = tuple(
        FleetRow(
            gpu="H100",
            month=m,
            bought=1 if buying and m == 1 else 0,
            owned=1 if buying else 0,
            reserved=0,
            rented_hours=0.0 if buying else HOURS,
            spot_hours=0.0,
            owned_utilization=1.0 if buying else None,
        )
        for m in s.months
    )
    return _plan(s, buy_cost if buying else rent_cost, fleet, buying)


def _plan(
    s: Scenario, total: float | None, fleet: tuple[FleetRow, ...], buying: bool = False
) -> Plan:
    costs = {c: 0.0 for c in CostCategory} if total is not None else {}
    if total is not None:
        costs[CostCategory.PURCHASE if buying else CostCategory.ON_DEMAND] = total
    return Plan(
        scenario=s,
        status=SolveStatus.OPTIMAL if total is not None else SolveStatus.INFEASIBLE,
        gap=0.0 if total is not None else None,
        total_cost=total,
        cash_out=total,
        residual_credit=0.0 if total is not None else None,
        costs=costs,
        cash_flow=tuple(CashFlowMonth(m, {}) for m in s.months) if total is not None else (),
        fleet=fleet,
        assignments=(),
        options=(),
        diagnostics=() if total is not None else ("nothing fits the capex budget",),
        decisions=None,
    )


# --------------------------------------------------------------------------- parse_vary


def test_parse_assumption_range_includes_both_ends() -> None:
    spec = parse_vary("electricity_per_kwh=0.10:0.30:5")
    assert spec.kind is SpecKind.ASSUMPTION
    assert spec.key == "electricity_per_kwh"
    assert spec.values == (0.1, 0.15, 0.2, 0.25, 0.3)


def test_parse_one_point_is_start_alone() -> None:
    assert parse_vary("pue=1.5:9:1").values == (1.5,)


def test_parse_horizon_takes_whole_months_without_repeats() -> None:
    assert parse_vary("horizon_months=12:36:4").values == (12, 20, 28, 36)
    assert parse_vary("horizon_months=12:13:4").values == (12, 13)


def test_parse_price_keys_name_gpu_and_option() -> None:
    spec = parse_vary("price:RTX 4090:on_demand=0.4:0.8:3")
    assert (spec.kind, spec.gpu, spec.option) == (SpecKind.PRICE, "RTX 4090", OfferOption.ON_DEMAND)
    assert spec.key == "price:RTX 4090:on_demand"
    factor = parse_vary("price_factor:H100:buy=0.5:1:2")
    assert (factor.kind, factor.values) == (SpecKind.PRICE_FACTOR, (0.5, 1.0))


def test_parse_budget_and_power_keys() -> None:
    assert parse_vary("budget_capex=0:100000:3").values == (0.0, 50_000.0, 100_000.0)
    assert parse_vary("power_cap_kw=10:20:2").kind is SpecKind.LIMIT


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("electricity=0.1:0.2:3", "unknown key 'electricity'"),
        ("electricity_per_kwh 0.1:0.2:3", "no KEY="),
        ("pue=1.2:x:3", "STOP 'x' is not a number"),
        ("pue=nan:2:3", "START 'nan' is not a finite number"),
        ("pue=1.2:1.5", "three parts"),
        ("pue=1.2:1.5:0", "POINTS is 0"),
        ("pue=1.2:1.5:two", "POINTS 'two' is not a whole number"),
        ("pue=1.2:1.5:1000000000", "POINTS is 1,000,000,000; expected at most 1,000 points"),
        ("price:H100:rent=1:2:3", "unknown option 'rent'"),
        ("price:H100=1:2:3", "needs a GPU type and an option"),
        ("max_utilization=0.5:1.2:3", "max_utilization cannot be 1.2"),
        ("price:H100:buy=-1:2:2", "cannot be -1"),
        ("horizon_months=6.5:12:2", "whole months"),
        ("credit_residual_value=0:0.5:2", "cannot be 0.5"),
    ],
)
def test_parse_errors_name_the_argument_and_the_problem(text: str, says: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_vary(text)
    message = str(caught.value)
    assert f"--vary {text!r}" in message
    assert says in message
    assert "expected" in message


def test_parse_checks_gpu_and_option_against_the_scenario() -> None:
    base = rent_vs_buy()
    with pytest.raises(InputError, match=r"has no GPU type 'B200'.*expected one of H100"):
        parse_vary("price:B200:on_demand=1:2:2", base)
    with pytest.raises(InputError, match=r"has no spot offer for H100.*buy, on_demand"):
        parse_vary("price:H100:spot=1:2:2", base)


# --------------------------------------------------------------------------- variants


def test_a_sweep_beyond_ten_thousand_variants_is_refused_before_any_is_built() -> None:
    base = rent_vs_buy()
    grid = [parse_vary("pue=1.1:1.5:101", base), parse_vary("electricity_per_kwh=0.1:0.3:100")]
    with pytest.raises(InputError) as caught:
        variants(base, grid)
    assert str(caught.value).endswith(
        "the sweep has 10,100 variants; gpumix solves at most 10,000 in one sweep; expected "
        "fewer points per --vary, or fewer --vary in a grid"
    )
    assert len(variants(base, grid[:1])) == 101  # one way: within the limit


def test_one_way_variants_change_only_the_parameter_and_note_the_sweep() -> None:
    base = rent_vs_buy()
    spec = parse_vary("electricity_per_kwh=0.1:0.3:3")
    made = variants(base, [spec])
    assert [v.scenario.assumptions.electricity_per_kwh for v in made] == [0.1, 0.2, 0.3]
    assert [v.setting for v in made] == [(("electricity_per_kwh", x),) for x in (0.1, 0.2, 0.3)]
    first = made[0].scenario
    assert first.assumption_sources["electricity_per_kwh"].startswith("sweep")
    assert replace(first, name=base.name, assumptions=base.assumptions) == base


def test_price_replaces_every_offer_of_that_gpu_and_option_only() -> None:
    base = rent_vs_buy()
    base = replace(base, offers=(*base.offers, offer("H100", "on_demand", 3.5, n=2)))
    made = variants(base, [parse_vary("price:H100:on_demand=2:2:1")])
    prices = {o.offer_id: o.price for o in made[0].scenario.offers}
    assert prices == {"H100|buy|1": BUY_PRICE, "H100|on_demand|1": 2.0, "H100|on_demand|2": 2.0}


def test_price_factor_multiplies_each_offer() -> None:
    base = rent_vs_buy(od_price=3.0)
    base = replace(base, offers=(*base.offers, offer("H100", "on_demand", 4.0, n=2)))
    made = variants(base, [parse_vary("price_factor:H100:on_demand=0.5:0.5:1")])
    assert sorted(o.price for o in made[0].scenario.offers_of("H100", OfferOption.ON_DEMAND)) == [
        1.5,
        2.0,
    ]


def test_two_specs_make_the_full_grid_last_fastest() -> None:
    made = variants(rent_vs_buy(), [parse_vary("pue=1.1:1.3:3"), parse_vary("budget_capex=0:1:2")])
    assert [v.setting for v in made] == [
        (("pue", p), ("budget_capex", b)) for p in (1.1, 1.2, 1.3) for b in (0.0, 1.0)
    ]
    assert (made[5].scenario.assumptions.pue, made[5].scenario.budget_capex) == (1.3, 1.0)


def test_several_specs_make_a_tornado_around_the_base() -> None:
    specs = [
        parse_vary("pue=1.1:1.5:2"),
        parse_vary("goodput=0.8:0.9:3"),
        parse_vary("horizon_months=6:24:2"),
    ]
    base = rent_vs_buy()
    made = variants(base, specs)
    assert len(made) == 1 + 2 + 3 + 2
    assert made[0].setting == () and made[0].scenario == base
    horizon = [v for v in made if v.setting and v.setting[0][0] == "horizon_months"]
    assert [v.scenario.horizon_months for v in horizon] == [6, 24]
    assert all(v.scenario.assumptions.pue == base.assumptions.pue for v in horizon)


def test_variants_refuse_a_key_twice_and_a_horizon_shorter_than_a_window() -> None:
    base = rent_vs_buy()
    with pytest.raises(InputError, match="varied twice"):
        variants(base, [parse_vary("pue=1:2:2"), parse_vary("pue=1:3:2")])
    late = replace(base, workloads=(replace(base.workloads[0], end_month=12),))
    with pytest.raises(InputError, match="windows past month 6"):
        variants(late, [parse_vary("horizon_months=6:12:2")])


# --------------------------------------------------------------------------- run_sweep and flips


def _od_sweep(points: int = 9) -> list:
    return [parse_vary(f"price:H100:on_demand=1:5:{points}")]


def test_one_way_sweep_reports_each_variant_in_order() -> None:
    result = run_sweep(
        rent_vs_buy(), _od_sweep(), SETTINGS, jobs=1, solve=hand_solve, refine_steps=0
    )
    assert result.mode is SweepMode.ONE_WAY
    assert [o.value("price:H100:on_demand") for o in result.outcomes] == [
        1 + 0.5 * i for i in range(9)
    ]
    cheap, dear = result.outcomes[0].summary, result.outcomes[-1].summary
    assert cheap.total_cost == pytest.approx(1.0 * HOURS * MONTHS)
    assert cheap.fleet.rented_hours == (("H100", HOURS * MONTHS),) and cheap.fleet.bought == ()
    assert dear.total_cost == BUY_PRICE and dear.fleet.bought == (("H100", 1),)
    assert dear.costs[CostCategory.PURCHASE] == BUY_PRICE


def test_flip_is_refined_to_the_analytic_break_even() -> None:
    result = run_sweep(
        rent_vs_buy(), _od_sweep(), SETTINGS, jobs=1, solve=hand_solve, refine_steps=6
    )
    (flip,) = result.flips
    assert flip.refined
    assert flip.precision == pytest.approx(0.5 / 2**6 / 2)
    assert abs(flip.point - break_even_price()) <= flip.precision
    assert flip.low < break_even_price() < flip.high


def test_unrefined_flip_is_the_grid_bracket() -> None:
    result = run_sweep(
        rent_vs_buy(), _od_sweep(), SETTINGS, jobs=1, solve=hand_solve, refine_steps=0
    )
    (flip,) = result.flips
    assert (flip.low, flip.high, flip.refined) == (2.5, 3.0, False)
    (sentence,) = describe_flips(result)
    assert sentence == (
        "buying H100 stops paying when its on-demand price falls below a value between "
        "$2.50/h and $3.00/h: there the plan switches from renting H100 on demand to buying 1 H100"
    )


def test_flip_sentence_states_the_refined_point_and_its_precision() -> None:
    result = run_sweep(rent_vs_buy(), _od_sweep(), SETTINGS, jobs=1, solve=hand_solve)
    (sentence,) = describe_flips(result)
    assert sentence == (
        "buying H100 stops paying when its on-demand price falls below $2.855/h (± $0.004/h): "
        "between $2.852/h and $2.859/h the plan switches from renting H100 on demand to buying 1 H100"
    )


def test_a_sweep_without_flips_says_the_plan_holds() -> None:
    result = run_sweep(
        rent_vs_buy(),
        [parse_vary("price:H100:on_demand=4:5:3")],
        SETTINGS,
        jobs=1,
        solve=hand_solve,
    )
    assert result.flips == ()
    assert describe_flips(result) == ["the plan is the same at every point: buying 1 H100"]


def test_flip_into_infeasibility_is_described() -> None:
    base = rent_vs_buy(budget_capex=30_000.0)
    base = replace(base, offers=base.offers_of("H100", OfferOption.BUY))
    result = run_sweep(
        base, [parse_vary("budget_capex=0:50000:3")], SETTINGS, jobs=1, solve=hand_solve
    )
    (flip,) = result.flips
    assert not flip.before.status.has_plan
    assert abs(flip.point - BUY_PRICE) <= flip.precision
    assert describe_flips(result) == [
        "between budget_capex $24,609 and $25,000 the plan switches from no plan (infeasible) "
        "to buying 1 H100 (flip at $24,805 ± $195)"
    ]


def test_two_way_grid_finds_flips_along_each_axis() -> None:
    specs = [parse_vary("price:H100:on_demand=2:4:3"), parse_vary("horizon_months=6:12:2")]
    result = run_sweep(rent_vs_buy(), specs, SETTINGS, jobs=1, solve=hand_solve)
    assert result.mode is SweepMode.GRID and len(result.outcomes) == 6
    # Break-even: 25,000 / (730 × 12) = 2.85 and / (730 × 6) = 5.71: at 12 months
    # buying pays from $3/h on; at 6 months never in this range.
    bought = {
        (o.value(specs[0].key), o.value(specs[1].key)): bool(o.summary.fleet.bought)
        for o in result.outcomes
    }
    assert [k for k, v in bought.items() if v] == [(3.0, 12.0), (4.0, 12.0)]
    along_price = [f for f in result.flips if f.key == specs[0].key]
    along_horizon = [f for f in result.flips if f.key == specs[1].key]
    assert [(f.low, f.high, f.fixed) for f in along_price] == [
        (2.0, 3.0, (("horizon_months", 12.0),))
    ]
    assert sorted(f.fixed for f in along_horizon) == [
        ((specs[0].key, 3.0),),
        ((specs[0].key, 4.0),),
    ]
    assert not any(f.refined for f in result.flips)
    sentences = describe_flips(result)
    assert sentences[0] == (
        "with horizon_months 12, buying H100 stops paying when its on-demand price falls below "
        "a value between $2.00/h and $3.00/h: there the plan switches from renting H100 on demand to buying 1 H100"
    )
    assert sentences[1].startswith("with the H100 on-demand price $3.00/h, buying H100 stops")


def test_local_process_pool_gives_the_in_process_answers() -> None:
    specs = _od_sweep(points=5)
    inline = run_sweep(rent_vs_buy(), specs, SETTINGS, jobs=1, solve=hand_solve, refine_steps=2)
    pooled = run_sweep(rent_vs_buy(), specs, SETTINGS, jobs=2, solve=hand_solve, refine_steps=2)
    assert pooled.outcomes == inline.outcomes
    assert pooled.flips == inline.flips


def test_progress_bar_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    run_sweep(
        rent_vs_buy(),
        _od_sweep(points=4),
        SETTINGS,
        jobs=1,
        solve=hand_solve,
        progress=True,
        refine_steps=0,
    )
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "sweep [" in captured.err and "4/4" in captured.err


def test_workers_solve_with_one_thread() -> None:
    seen: list[SolverSettings] = []

    def spy(s: Scenario, settings: SolverSettings) -> Plan:
        seen.append(settings)
        return hand_solve(s, settings)

    run_sweep(
        rent_vs_buy(),
        _od_sweep(points=2),
        SolverSettings(threads=4, progress=True),
        jobs=1,
        solve=spy,
    )
    assert seen and all(s.threads == 1 and not s.progress for s in seen)


# --------------------------------------------------------------------------- real solve


def test_real_solve_flips_at_the_analytic_break_even() -> None:
    result = run_sweep(rent_vs_buy(), _od_sweep(), SETTINGS, jobs=1)
    (flip,) = result.flips
    assert flip.before.rented == ("H100",) and flip.before.bought == ()
    assert flip.after.bought == (("H100", 1),) and flip.after.rented == ()
    assert abs(flip.point - break_even_price()) <= flip.precision
    assert flip.precision < 0.005


# --------------------------------------------------------------------------- sweep workbook


def _read(path: Path) -> openpyxl.Workbook:
    return openpyxl.load_workbook(path)


def _rows(sheet: Any) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in sheet.iter_rows(values_only=True)]


def test_one_way_workbook_holds_every_variant_as_numbers(tmp_path: Path) -> None:
    result = run_sweep(rent_vs_buy(), _od_sweep(points=3), SETTINGS, jobs=1, solve=hand_solve)
    path = tmp_path / "sweep.xlsx"
    write_sweep_workbook(path, result)
    book = _read(path)
    assert book.sheetnames == ["Summary", "Variants"]
    rows = _rows(book["Variants"])
    header = rows[0]
    assert header[:4] == (
        "variant",
        "price:H100:on_demand (USD per GPU-hour)",
        "status",
        "total cost (USD)",
    )
    col = {title: i for i, title in enumerate(header)}
    assert [r[1] for r in rows[1:]] == [1.0, 3.0, 5.0]
    assert [r[col["total cost (USD)"]] for r in rows[1:]] == [HOURS * MONTHS, BUY_PRICE, BUY_PRICE]
    assert [r[col["H100 bought (GPUs)"]] for r in rows[1:]] == [0, 1, 1]
    assert rows[1][col["H100 on-demand (GPU-hours)"]] == HOURS * MONTHS
    assert rows[1][col["on_demand (USD)"]] == HOURS * MONTHS
    assert [r[col["fleet"]] for r in rows[1:]] == [
        "renting H100 on demand",
        "buying 1 H100",
        "buying 1 H100",
    ]
    summary = [c for row in _rows(book["Summary"]) for c in row if isinstance(c, str)]
    assert describe_flips(result)[0] in summary


def test_one_way_summary_prints_on_one_page_with_cost_and_mix_charts_marking_flips(
    tmp_path: Path,
) -> None:
    import zipfile

    result = run_sweep(rent_vs_buy(), _od_sweep(points=3), SETTINGS, jobs=1, solve=hand_solve)
    path = tmp_path / "sweep.xlsx"
    write_sweep_workbook(path, result)
    book = _read(path)
    summary = book["Summary"]
    assert summary.page_setup.orientation == "landscape"
    assert summary.sheet_properties.pageSetUpPr.fitToPage
    # One page wide and one tall (1 is the file format's default, so it may be left out).
    fit = (summary.page_setup.fitToWidth or 1, summary.page_setup.fitToHeight)
    assert fit in ((1, 1), (1, None))
    assert book["Variants"].page_setup.fitToHeight == 0  # as tall as it takes
    assert book["Variants"].print_title_rows == "$1:$1"
    with zipfile.ZipFile(path) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/")]
    (cost,) = [c for c in charts if "Total cost against the varied parameter" in c]
    (mix,) = [c for c in charts if "The chosen mix against the varied parameter" in c]
    assert "<c:scatterChart>" in cost and "<c:scatterChart>" in mix
    # The series: the parameter's column (B) against total cost (D) of the Variants sheet.
    assert "Variants!$B$2:$B$4" in cost and "Variants!$D$2:$D$4" in cost
    # The mix: H100 bought (GPUs), and its on-demand hours on a second axis.
    header = _rows(book["Variants"])[0]
    for title in ("H100 bought (GPUs)", "H100 on-demand (GPU-hours)"):
        letter = get_column_letter(header.index(title) + 1)
        assert f"Variants!${letter}$2:${letter}$4" in mix, title
    assert mix.count("<c:valAx>") == 4  # x and y for GPUs (left), x and y for hours (right)
    # The flip: a dashed vertical line at its point on both charts, its ends on the Summary.
    (flip,) = result.flips
    assert "plan changes" in cost and "plan changes" in mix
    ends = [(r[3], r[4]) for r in _rows(summary)[1:3]] + [(r[5], r[6]) for r in _rows(summary)[1:3]]
    totals = [o.summary.total_cost for o in result.outcomes]
    assert ends == [
        (flip.point, min(totals)),
        (flip.point, max(totals)),
        (flip.point, 0.0),
        (flip.point, 1.0),  # the most GPUs any variant buys or reserves
    ]


def test_tornado_workbook_has_a_bar_chart_of_each_parameters_swing(tmp_path: Path) -> None:
    specs = [
        parse_vary("price:H100:on_demand=2:4:3"),
        parse_vary("price:H100:buy=20000:30000:2"),
        parse_vary("horizon_months=6:12:2"),
    ]
    result = run_sweep(rent_vs_buy(od_price=3.0), specs, SETTINGS, jobs=1, solve=hand_solve)
    assert result.mode is SweepMode.TORNADO
    path = tmp_path / "tornado.xlsx"
    write_sweep_workbook(path, result)
    book = _read(path)
    assert "Tornado" in book.sheetnames and "Heat map" not in book.sheetnames
    sheet = book["Tornado"]
    rows = _rows(sheet)[1:4]
    by_key = {r[0]: r for r in rows}
    # Base: $3/h over 12 months → buy at $25,000. On-demand $2/h → rent 8,760 h = $17,520.
    assert by_key["price:H100:on_demand"][1:6] == (2.0, 4.0, 17_520.0, BUY_PRICE, BUY_PRICE)
    assert by_key["price:H100:on_demand"][6:8] == (17_520.0 - BUY_PRICE, 0.0)
    # Horizon 6 months: rent 4,380 h at $3 = $13,140.
    assert by_key["horizon_months"][3] == 13_140.0
    # The widest swing is written last, so that it is drawn on top.
    assert rows[-1][0] == "horizon_months"
    (chart,) = sheet._charts
    assert chart.tagname == "barChart" and len(chart.series) == 2
    variants_rows = _rows(book["Variants"])
    assert len(variants_rows) == 1 + 1 + 3 + 2 + 2
    # The tornado's base row shows the base value of every parameter.
    assert variants_rows[1][1:4] == (3.0, BUY_PRICE, MONTHS)


def test_two_way_workbook_has_a_colour_scaled_heat_map(tmp_path: Path) -> None:
    specs = [parse_vary("price:H100:on_demand=2:4:3"), parse_vary("horizon_months=6:12:2")]
    result = run_sweep(rent_vs_buy(), specs, SETTINGS, jobs=1, solve=hand_solve)
    path = tmp_path / "grid.xlsx"
    write_sweep_workbook(path, result)
    sheet = _read(path)["Heat map"]
    rows = _rows(sheet)
    assert rows[1][1:3] == (6.0, 12.0)
    assert [r[0] for r in rows[2:5]] == [2.0, 3.0, 4.0]
    assert rows[2][1:3] == (2.0 * HOURS * 6, 2.0 * HOURS * 12)
    assert rows[4][1:3] == (4.0 * HOURS * 6, BUY_PRICE)
    (rules,) = [r for cf in sheet.conditional_formatting for r in cf.rules]
    assert rules.type == "colorScale"
    assert str(next(iter(sheet.conditional_formatting)).sqref) == "B3:C5"


def test_workbook_leaves_variants_without_a_plan_blank_and_user_text_inert(tmp_path: Path) -> None:
    base = replace(rent_vs_buy(), name='=HYPERLINK("x")')
    base = replace(base, offers=base.offers_of("H100", OfferOption.BUY))
    result = run_sweep(
        base,
        [parse_vary("budget_capex=0:50000:2")],
        SETTINGS,
        jobs=1,
        solve=hand_solve,
        refine_steps=0,
    )
    path = tmp_path / "blank.xlsx"
    write_sweep_workbook(path, result)
    book = _read(path)
    rows = _rows(book["Variants"])
    col = {title: i for i, title in enumerate(rows[0])}
    infeasible = rows[1]
    assert infeasible[col["status"]] == "infeasible"
    assert infeasible[col["total cost (USD)"]] is None and infeasible[col["purchase (USD)"]] is None
    assert infeasible[col["fleet"]].startswith("no plan (infeasible): nothing fits")
    cell = book["Summary"]["B2"]
    assert cell.value == '=HYPERLINK("x")' and cell.data_type == "s" and cell.quotePrefix


def test_regime_groups_gpu_types_by_option() -> None:
    regime = Regime(
        SolveStatus.OPTIMAL,
        bought=(("H100", 2), ("RTX 4090", 9)),
        reserved=(("A100", 4),),
        rented=("A100", "H100"),
        spot=("A100",),
    )
    assert regime.describe() == (
        "buying 2 H100 and 9 RTX 4090; reserving 4 A100; "
        "renting A100 and H100 on demand; renting A100 on spot"
    )
    assert Regime(SolveStatus.OPTIMAL).describe() == "no GPUs"
    assert Regime(SolveStatus.INFEASIBLE).describe() == "no plan (infeasible)"


# --------------------------------------------------------------------------- executors


def _fails_on_three(x: int) -> int:
    if x == 3:
        raise ValueError("three")
    return x * 10


def test_run_in_order_keeps_input_order_and_reraises_a_task_error() -> None:
    with open_executor(jobs=1) as executor:
        assert isinstance(executor, InlineExecutor)
        assert run_in_order(executor, _fails_on_three, [(1,), (2,), (4,)]) == [10, 20, 40]
        with pytest.raises(ValueError, match="three"):
            run_in_order(executor, _fails_on_three, [(1,), (3,)])


def test_open_executor_refuses_zero_jobs_and_never_starts_more_workers_than_tasks() -> None:
    with pytest.raises(ValueError, match="at least 1"), open_executor(jobs=0):
        pass
    with open_executor(jobs=4, tasks=1) as executor:
        assert isinstance(executor, InlineExecutor)


def test_a_change_between_large_plans_names_only_what_differs() -> None:
    before = Regime(
        SolveStatus.OPTIMAL,
        bought=(("RTX 4090", 9),),
        reserved=(("A100", 1),),
        rented=("A100", "H100"),
        spot=("A100",),
    )
    after = replace(before, reserved=(("A100", 32),), rented=("A100",), bought=())
    assert before.change_to(after) == (
        "the plan changes: stops buying RTX 4090 (9 before); reserves 32 A100 instead of 1; "
        "stops renting H100 on demand"
    )
    small = Regime(SolveStatus.OPTIMAL, rented=("H100",))
    assert small.change_to(Regime(SolveStatus.OPTIMAL, bought=(("H100", 8),))) == (
        "the plan switches from renting H100 on demand to buying 8 H100"
    )


def test_dropping_a_reservation_reads_as_stops_reserving() -> None:
    before = Regime(
        SolveStatus.OPTIMAL,
        bought=(("RTX 4090", 9),),
        reserved=(("A100", 1),),
        rented=("A100", "H100"),
    )
    after = replace(before, reserved=(), rented=("A100", "H100", "L4"))
    assert before.change_to(after) == (
        "the plan changes: stops reserving A100 (1 before); starts renting L4 on demand"
    )


def test_a_eur_sweep_labels_its_money_eur_and_keeps_the_numbers(tmp_path: Path) -> None:
    base = rent_vs_buy()
    eur = replace(base, assumptions=replace(base.assumptions, currency="EUR"))
    result = run_sweep(eur, _od_sweep(), SETTINGS, jobs=1, solve=hand_solve)
    (sentence,) = describe_flips(result)
    assert sentence == (
        "buying H100 stops paying when its on-demand price falls below EUR 2.855/h "
        "(± EUR 0.004/h): between EUR 2.852/h and EUR 2.859/h the plan switches from renting "
        "H100 on demand to buying 1 H100"
    )
    path = tmp_path / "sweep.xlsx"
    write_sweep_workbook(path, result)
    book = _read(path)
    header = _rows(book["Variants"])[0]
    assert header[1] == "price:H100:on_demand (EUR per GPU-hour)"
    assert header[3] == "total cost (EUR)"
    texts = [c for sheet in book for row in _rows(sheet) for c in row if isinstance(c, str)]
    assert not any("USD" in t or "$" in t for t in texts)


def test_a_sweep_where_no_variant_was_planned_in_time_still_writes_its_workbook(
    tmp_path: Path,
) -> None:
    """Under a short --time-limit every variant can end without a plan; the mix chart
    then had no series and the writer failed (exit 3, nothing written)."""

    def out_of_time(s: Scenario, settings: SolverSettings) -> Plan:
        why = ("HiGHS found no plan within the 1 s time limit",)
        return Plan.without_plan(s, SolveStatus.ERROR, (), why, None)

    result = run_sweep(rent_vs_buy(), _od_sweep(points=3), SETTINGS, jobs=1, solve=out_of_time)
    path = tmp_path / "none.xlsx"
    write_sweep_workbook(path, result)
    rows = _rows(_read(path)["Variants"])
    assert [r[rows[0].index("status")] for r in rows[1:]] == ["error"] * 3


def test_the_time_budget_is_shared_between_the_grid_and_each_refining_round() -> None:
    from optimizer.solve.budget import Budget

    limits: list[float | None] = []

    def spy(s: Scenario, settings: SolverSettings) -> Plan:
        limits.append(settings.time_limit)
        return hand_solve(s, settings)

    budget = Budget(100.0, time.monotonic() + 100.0)
    run_sweep(rent_vs_buy(), _od_sweep(points=4), SETTINGS, jobs=1, solve=spy, budget=budget)
    grid, rounds = limits[:4], limits[4:]
    # The grid: 60 % of the budget, in four waves of one (one worker).
    assert all(g is not None and 14.0 < g <= 15.0 for g in grid), grid
    # Each bisection round (one flip: one point) an equal part of what is left: the
    # solves here take no time, so what is left stays 100 s.
    expected = [100.0 / n for n in (6, 5, 4, 3, 2, 1)]
    assert len(rounds) == 6, rounds
    assert all(abs((r or 0.0) - e) < 0.1 for r, e in zip(rounds, expected, strict=True)), rounds


def test_a_change_of_plan_beside_plans_stopped_early_is_not_reported_as_a_flip() -> None:
    """Issue 35 item 4: under a time limit a sweep listed 46 contradictory "plan
    changes", differences smaller than the plans' gaps."""

    def stopped(s: Scenario, settings: SolverSettings) -> Plan:
        return replace(hand_solve(s, settings), status=SolveStatus.TIME_LIMIT, gap=0.05)

    result = run_sweep(rent_vs_buy(), _od_sweep(), SETTINGS, jobs=1, solve=stopped)
    assert result.flips == () and len(result.unproven) == 1
    assert describe_flips(result) == [
        "1 change of plan between points whose plans were stopped early (9 of 9 points, gaps "
        "up to 5.00%) not reported: a difference inside the plans' gaps is not proven; raise "
        "--time-limit to settle them"
    ]
    proven = run_sweep(rent_vs_buy(), _od_sweep(), SETTINGS, jobs=1, solve=hand_solve)
    assert len(proven.flips) == 1 and proven.unproven == ()
