"""The Summary's first page: what to do, payback, binding limits, and the saving chart."""

from __future__ import annotations

import zipfile
from dataclasses import replace
from pathlib import Path

import openpyxl
import pytest

from optimizer.check.baselines import RENT_ONLY
from optimizer.domain import CostCategory
from optimizer.reports.at_a_glance import (
    _months,
    binding_limits,
    payback_month,
    payback_text,
    recommendation,
)
from optimizer.reports.result_workbook import write_result_workbook
from optimizer.results import CashFlowMonth, FleetRow, Plan, ShadowPrice, SolveStatus
from tests.fake_plans import fake_plan, fake_run, infeasible_plan

C = CostCategory


@pytest.mark.parametrize(
    ("months", "text"),
    [
        ([4], "month 4"),
        (list(range(1, 16)), "months 1–15"),
        ([16, 4], "months 4 and 16"),
        ([1, 7, 13], "months 1, 7 and 13"),
    ],
)
def test_months_read_as_a_person_writes_them(months: list[int], text: str) -> None:
    assert _months(months) == text


def _with_fleet(plan: Plan, rows: list[FleetRow]) -> Plan:
    return replace(plan, fleet=tuple(rows))


def test_the_recommendation_says_what_to_buy_reserve_and_rent() -> None:
    plan = _with_fleet(
        fake_plan(),
        [
            FleetRow("RTX 4090", 4, 9, 9, 0, 0.0, 0.0, 1.0),
            FleetRow("RTX 4090", 16, 5, 14, 0, 0.0, 0.0, 1.0),
            *(FleetRow("A100 80GB", m, 0, 0, 32 if m < 5 else 30, 0.0, 0.0, None) for m in (1, 2)),
            *(FleetRow("A100 80GB", m, 0, 0, 30, 0.0, 0.0, None) for m in range(5, 13)),
            FleetRow("L40S", 3, 0, 0, 0, 5_026.6, 88.2, None),
        ],
    )
    assert recommendation(plan) == (
        "Buy 14 RTX 4090 in months 4 and 16; reserve up to 32 A100 80GB for months 1, 2, 5, "
        "6, 7, 8, 9, 10, 11 and 12; rent the rest (5,027 GPU-hours of L40S on demand, "
        "88 GPU-hours of L40S on spot)."
    )
    renting = _with_fleet(fake_plan(), [FleetRow("L40S", 1, 0, 0, 0, 730.0, 0.0, None)])
    assert recommendation(renting) == "Rent everything (730 GPU-hours of L40S on demand)."
    short = replace(
        infeasible_plan(),
        diagnostics=(
            "no plan meets every requirement:",
            "power cap short by 10.1 kW",
            "capex budget short by $5,000.00",
        ),
    )
    # Page 1 holds the reasons whole, never "requirement:" here and its reason elsewhere.
    assert recommendation(short) == (
        "No plan (infeasible): no plan meets every requirement: power cap short by 10.1 kW; "
        "capex budget short by $5,000.00"
    )


def test_a_plan_stopped_before_its_proof_says_so_first_on_page_one() -> None:
    """The total beside it is this plan's; the cheapest may cost up to the gap less."""
    renting = _with_fleet(fake_plan(), [FleetRow("L40S", 1, 0, 0, 0, 730.0, 0.0, None)])
    stopped = replace(renting, status=SolveStatus.TIME_LIMIT, gap=0.046874)
    assert recommendation(stopped) == (
        "Not proven cheapest (the search stopped; the cheapest plan costs at most 4.69% less): "
        "rent everything (730 GPU-hours of L40S on demand)."
    )
    assert recommendation(replace(stopped, gap=0.00004)).startswith(
        "Not proven cheapest (the search stopped; the cheapest plan costs at most 0.01% less): "
    )
    assert recommendation(replace(stopped, gap=None)) == (
        "Not proven cheapest (the search stopped before it had a bound): "
        "rent everything (730 GPU-hours of L40S on demand)."
    )
    # A proven plan (the gap within --gap) is said as it is.
    assert recommendation(replace(renting, gap=0.0001)) == (
        "Rent everything (730 GPU-hours of L40S on demand)."
    )


def test_the_recommendation_says_every_capital_event_sales_and_servers_too() -> None:
    """A plan that bought 4 H100, sold 1 in month 2 and 1 in month 4 and bought a server
    was summed up as "Buy 4 H100 in month 1; rent the rest": finance missed three events."""
    base = fake_plan()
    assert base.decisions is not None
    decisions = replace(
        base.decisions,
        purchases={("H100|buy|1", 1): 4},
        sales={("H100|buy|1", 2): 1, ("H100|buy|1", 4): 1},
        server_purchases={("H100", 1): 1},
    )
    plan = replace(
        _with_fleet(
            base,
            [
                FleetRow("H100", 1, 4, 4, 0, 0.0, 0.0, 1.0, servers=1),
                FleetRow("H100", 2, 0, 3, 0, 0.0, 0.0, 1.0, sold=1, servers=1),
                FleetRow("H100", 4, 0, 2, 0, 0.0, 0.0, 1.0, sold=1, servers=1),
                FleetRow("L40S", 3, 0, 0, 0, 100.0, 0.0, None),
            ],
        ),
        decisions=decisions,
    )
    assert recommendation(plan) == (
        "Buy 4 H100 in month 1; sell 1 H100 in month 2 and 1 in month 4; "
        "buy 1 server for H100 in month 1; rent the rest (100 GPU-hours of L40S on demand)."
    )
    more = replace(
        plan,
        decisions=replace(
            decisions,
            sales={("H100|buy|1", 2): 2, ("H100|buy|1", 3): 1, ("H100|buy|1", 5): 1},
            server_purchases={("H100", 1): 2, ("H100", 3): 1},
            server_sales={("H100", 5): 1},
        ),
    )
    assert recommendation(more) == (
        "Buy 4 H100 in month 1; sell 2 H100 in month 2, 1 in month 3 and 1 in month 5; "
        "buy 2 servers for H100 in month 1 and 1 in month 3; sell 1 server of H100 in month 5; "
        "rent the rest (100 GPU-hours of L40S on demand)."
    )


def _cash(plan: Plan, per_month: list[dict[CostCategory, float]]) -> Plan:
    return replace(
        plan,
        cash_flow=tuple(CashFlowMonth(m, amounts) for m, amounts in enumerate(per_month, 1)),
    )


def test_payback_is_the_month_from_which_buying_stays_at_or_below_renting() -> None:
    # Buying: 100 up front, then 10 a month: 110, 120, 130, 140 paid so far.
    # Renting: 40 a month: 40, 80, 120, 160. From month 4 on buying is never dearer.
    bought = _cash(fake_plan(), [{C.PURCHASE: 100.0, C.ENERGY: 10.0}, *[{C.ENERGY: 10.0}] * 3])
    rented = _cash(fake_plan(), [{C.ON_DEMAND: 40.0}] * 4)
    assert payback_month(bought, rented) == 4
    assert payback_text(bought, rented) == "month 4"
    # Dearer again in month 4 (a second purchase): paid back only if it stays so.
    again = _cash(
        fake_plan(),
        [{C.PURCHASE: 100.0}, {C.ENERGY: 10.0}, {C.ENERGY: 10.0}, {C.PURCHASE: 100.0}],
    )
    assert payback_month(again, rented) is None
    assert payback_text(again, rented) == "not within the horizon"
    assert payback_text(rented, rented) == "buys nothing"


def test_binding_limits_dearest_first_or_none() -> None:
    plan = fake_plan()
    assert binding_limits(replace(plan, shadow_prices=())) == "none"
    limited = replace(
        plan,
        shadow_prices=(
            ShadowPrice("power_cap", None, 0.5, "kW"),
            ShadowPrice("budget_monthly", 3, 1.25, "USD"),
        ),
    )
    assert binding_limits(limited) == (
        "budget_monthly (month 3): $1.25 per USD; power_cap: $0.50 per kW"
    )


def _summary_rows(path: Path) -> dict[str, list[object]]:
    wb = openpyxl.load_workbook(path)
    return {str(r[0].value): [c for c in r[1:]] for r in wb["Summary"].iter_rows() if r[0].value}


def test_the_first_page_links_to_the_figures_below_and_charts_the_saving(
    tmp_path: Path,
) -> None:
    run = fake_run(fake_plan("base"))
    path = tmp_path / "r.xlsx"
    write_result_workbook(path, run)
    rows = _summary_rows(path)
    total = rows["Total cost (USD, after residual credit; as below)"][0]
    objective = rows["Total cost (USD, after residual credit; the objective)"][0]
    assert total.value == f"={objective.coordinate}"  # a link, not a second copy
    saving = rows["Saving against rent only (USD)"][0]
    below = rows["rent only: saving (USD)"][0]
    assert saving.value == f"={below.coordinate}"
    assert rows["What to do"][0].value == recommendation(run.plans[0])
    cached = openpyxl.load_workbook(path, data_only=True)["Summary"]
    plan, rent_only = run.plans[0], run.baselines["base"][RENT_ONLY]
    assert cached[saving.coordinate].value == pytest.approx(
        (rent_only.total_cost or 0) - (plan.total_cost or 0), abs=0.005
    )
    # The chart's data: rent only's cash paid so far minus the plan's, month by month.
    assert "Cumulative cash by month, saved so far against rent only (USD, undiscounted)" in rows
    with zipfile.ZipFile(path) as z:
        xml = " ".join(z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart"))
    assert "Cash saved so far against renting everything" in xml
    last_plan = sum(m.total for m in plan.cash_flow)
    last_rent = sum(m.total for m in rent_only.cash_flow)
    values = [
        cached.cell(row=r, column=2).value
        for r in range(1, cached.max_row + 1)
        if cached.cell(row=r, column=1).value == plan.scenario.horizon_months
    ]
    # The month column appears in the three blocks: plan, rent only, saved so far.
    assert values[0] == pytest.approx(last_plan, abs=0.005)
    assert values[1] == pytest.approx(last_rent, abs=0.005)
    assert values[2] == pytest.approx(last_rent - last_plan, abs=0.005)
    # The line's last step counts the residual credit (issue 33: it ended at cash alone,
    # "not paid back", beside a saving on the same page): it ends on page 1's saving.
    credited = [
        cached.cell(row=r, column=2).value
        for r in range(1, cached.max_row + 1)
        if cached.cell(row=r, column=1).value == "+ credit"
    ]
    credit = plan.residual_credit or 0.0
    assert credit > 0
    assert credited[0] == pytest.approx(last_plan - credit, abs=0.005)
    assert credited[1] == pytest.approx(last_rent - (rent_only.residual_credit or 0.0), abs=0.005)
    assert credited[2] == pytest.approx(credited[1] - credited[0], abs=0.005)
    assert "last step: the residual credit of GPUs still owned" in xml


def test_the_charts_last_step_is_page_ones_saving_to_the_cent(tmp_path: Path) -> None:
    """A real plan that buys, and its real rent-only baseline: the line ends on the saving."""
    from optimizer.analysis.extras import solve_with_extras
    from optimizer.results import RunResult, SolverSettings
    from tests.builders import gpu, offer, scenario, workload

    s = scenario(
        [gpu("H100")],
        [offer("H100", "buy", 25_000.0), offer("H100", "on_demand", 3.0)],
        [workload("chat", "realtime_inference", params_b=8, tokens_per_second=2000.0)],
        horizon_months=12,
    )
    settings = SolverSettings(solver="highs")
    plans, baselines = solve_with_extras([s], settings, quiet=True, jobs=1)
    (plan,) = plans
    rent_only = baselines[s.name][RENT_ONLY]
    assert plan.residual_credit and plan.total_cost is not None
    assert rent_only.total_cost is not None
    run = RunResult(tuple(plans), (), "2026-12-07T00:00:00Z", "0", settings, baselines)
    path = tmp_path / "r.xlsx"
    write_result_workbook(path, run)
    cached = openpyxl.load_workbook(path, data_only=True)["Summary"]
    credited = [
        cached.cell(row=r, column=2).value
        for r in range(1, cached.max_row + 1)
        if cached.cell(row=r, column=1).value == "+ credit"
    ]
    saving = rent_only.total_cost - plan.total_cost  # undiscounted: cash less credit
    assert saving > 0
    assert credited[2] == pytest.approx(saving, abs=0.005)
    rows = {str(r[0].value): r[1].value for r in cached.iter_rows() if r[0].value}
    assert rows["Saving against rent only (USD)"] == pytest.approx(credited[2], abs=0.005)


def test_the_printed_summary_stops_before_the_charts_data(tmp_path: Path) -> None:
    path = tmp_path / "r.xlsx"
    write_result_workbook(path, fake_run(fake_plan("base")))
    sheet = openpyxl.load_workbook(path)["Summary"]
    data = next(
        r[0].row
        for r in sheet.iter_rows()
        if str(r[0].value).startswith("Cumulative cash by month, this plan")
    )
    assert sheet.print_area == f"'Summary'!$A$1:$B${data - 2}"
    # Page 1 is the at-a-glance block and its chart; the details start on page 2.
    assert [b.id for b in sheet.row_breaks.brk] == [
        next(r[0].row for r in sheet.iter_rows() if r[0].value == "Status") - 1
    ]


def _with_a_server(plan: Plan, node_price: float) -> Plan:
    """``plan`` buying one server for its H100s in month 1 at ``node_price``."""
    gpus = tuple(
        replace(g, node_price=node_price) if g.name == "H100" else g for g in plan.scenario.gpus
    )
    assert plan.decisions is not None
    first, *rest = plan.cash_flow
    return replace(
        plan,
        scenario=replace(plan.scenario, gpus=gpus),
        decisions=replace(plan.decisions, server_purchases={("H100", 1): 1}),
        cash_flow=(
            CashFlowMonth(1, {**first.amounts, CostCategory.NODE: node_price}),
            *rest,
        ),
    )


def test_capex_on_page_one_is_what_budget_capex_counts_gpus_and_servers(tmp_path: Path) -> None:
    """Issue 35: "Capex: GPUs bought $266,000" left out $90,000 of servers."""
    from optimizer.domain import OfferOption

    plan = _with_a_server(fake_plan("base"), 9_000.0)
    path = tmp_path / "r.xlsx"
    write_result_workbook(path, fake_run(plan))
    capex = _summary_rows(path)["Capex: GPUs and servers bought (USD, undiscounted)"][0].value
    # From the decisions: every purchase at its offer's price, every server at its type's
    # node price (budget_capex's sum, model.md "Budgets").
    prices = {o.offer_id: o.price for o in plan.scenario.offers if o.option is OfferOption.BUY}
    assert plan.decisions is not None
    bought = sum(units * prices[offer] for (offer, _t), units in plan.decisions.purchases.items())
    servers = sum(
        n * plan.scenario.gpu(g).node_price
        for (g, _t), n in plan.decisions.server_purchases.items()
    )
    assert bought > 0 and servers == 9_000.0
    assert capex == pytest.approx(bought + servers, abs=0.005)


def test_payback_beyond_the_horizon_says_why_buying_is_still_cheapest() -> None:
    """Issue 35: page 1 advised buying and said buying does not pay back, without saying
    that the GPUs' worth at the horizon is what makes it the cheapest plan."""
    bought = _cash(fake_plan(), [{C.PURCHASE: 100.0}, {C.ENERGY: 10.0}, {C.ENERGY: 10.0}])
    rented = _cash(fake_plan(), [{C.ON_DEMAND: 40.0}] * 3)
    # Cash: 100, 110, 120 against 40, 80, 120: level in month 3, so paid back then.
    bought = replace(bought, residual_credit=60.0, total_cost=60.0)
    rented = replace(rented, residual_credit=0.0, total_cost=120.0)
    assert payback_month(bought, rented) == 3
    dearer = _cash(bought, [{C.PURCHASE: 100.0}, {C.ENERGY: 20.0}, {C.ENERGY: 20.0}])
    assert payback_month(dearer, rented) is None
    assert payback_text(dearer, rented) == (
        "not within the horizon in cash; cheaper all the same, counting the $60.00 the GPUs "
        "still owned are worth at month 3"
    )
    # Dearer in all: no such claim.
    assert payback_text(replace(dearer, total_cost=130.0), rented) == "not within the horizon"


LONG = (
    "Sell the 8 A100 80GB already owned in month 1; pay the 8 H100 already reserved for "
    "months 1–12; buy 7 B200 in month 1 and 2 in month 9; buy 2 servers for B200 in month 1 "
    "and 1 in month 9; reserve up to 16 A100 80GB for months 1–15; reserve 4 H100 for "
    "months 13–24; buy 6 RTX 4090 in months 3, 7 and 11; sell 2 RTX 4090 in month 20; "
    "reserve up to 8 L40S for months 4–24; rent the rest (79,856 GPU-hours of A100 80GB on "
    "demand, 12,000 on spot, 5,027 GPU-hours of H100 on demand, 88,463 on spot)."
)


def test_a_long_what_to_do_leaves_the_chart_whole_on_page_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33.13: 17 lines of "What to do" pushed the cash chart across the page break."""
    import optimizer.reports.page_one as page_one
    import optimizer.reports.summary_sheet as summary
    from optimizer.reports.page_fit import PRINTABLE_PT, chart_end
    from optimizer.reports.sheet_grid import LINE_HEIGHT, fitted_heights, fitted_widths

    monkeypatch.setattr(page_one, "recommendation", lambda plan: LONG)
    run = fake_run(fake_plan("base"))
    sheet = summary._summary_sheet(run)
    (page_break,) = sheet.page_breaks
    (chart,) = sheet.charts
    widths = fitted_widths(sheet)
    # chart_end counts whole 20 px rows from the anchor: the chart ends above that row.
    assert chart_end(chart, widths)[0] <= page_break  # the whole chart before the break
    heights = fitted_heights(sheet, widths)
    page_one = sum(heights.get(r, LINE_HEIGHT) for r in range(page_break))
    assert page_one <= PRINTABLE_PT[1]  # one page at scale 1 (one column: not scaled)
    said = sheet.cells[(2, 1)].value
    assert isinstance(said, str) and said != LONG
    assert said.startswith("Sell the 8 A100 80GB already owned in month 1; pay the 8 H100")
    assert said.endswith("more: 'What to do, in full', top of page 2")
    # Nothing is lost: the whole sentence opens page 2.
    assert sheet.cells[(page_break, 0)].value == "What to do, in full"
    assert sheet.cells[(page_break, 1)].value == LONG
    # And the cut is made at whole clauses, the rest counted.
    kept = said.split("; … and ")[0].split("; ")
    more = int(said.split("; … and ")[1].split(" ")[0])
    assert len(kept) + more == len(LONG.rstrip(".").split("; "))
    assert LONG.startswith("; ".join(kept))


def test_a_what_to_do_that_fits_is_said_whole() -> None:
    from optimizer.reports.page_one import lines_of, shortened

    short = "Buy 13 RTX 4090 in month 4; rent the rest."
    assert shortened(short, 3, 36, "below") == short
    assert lines_of("x" * 41, 36) == 1 and lines_of("x" * 42, 36) == 2


def test_a_rent_only_baseline_out_of_time_says_so_on_page_one_and_in_its_cell() -> None:
    from optimizer.reports.baseline_note import baseline_missing_text
    from optimizer.results import SolveStatus

    bought = _cash(fake_plan(), [{C.PURCHASE: 100.0, C.ENERGY: 10.0}, *[{C.ENERGY: 10.0}] * 3])
    unsolved = Plan.without_plan(
        bought.scenario,
        SolveStatus.ERROR,
        (),
        ("baseline not solved: the time budget was spent",),
        None,
    )
    assert payback_text(bought, unsolved) == "rent-only plan not solved in the time given"
    assert payback_text(bought, None) == "no rent-only plan to compare"
    assert baseline_missing_text(unsolved) == "not solved: the time budget was spent"
    infeasible = Plan.without_plan(bought.scenario, SolveStatus.INFEASIBLE, (), ("no plan",), None)
    assert baseline_missing_text(infeasible) == "no plan (infeasible)"
