"""The futures workbook and JSON show the figures FuturesResult derives, to the cent.

The plans here are real, checked plans of a tiny scenario's futures; which
plan sits in which role does not matter to the writer, so the test puts the
dearer plans where a two-stage solve would put them (shared ≥ alone).
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import openpyxl
import pytest

from optimizer import __version__
from optimizer.domain import OfferOption, Scenario
from optimizer.domain.future_scenario import future_scenario
from optimizer.domain.futures import Futures, FutureSpec, PriceFactor
from optimizer.reports.futures_words import describe_future, describe_shared
from optimizer.reports.futures_workbook import SHEET, futures_json, write_futures_workbook
from optimizer.results import Decisions, RunResult, SolverSettings, SolveStatus
from optimizer.results.futures import (
    FutureOutcome,
    FuturesResult,
    SharedAction,
    SharedDecision,
    shared_decisions,
)
from tests.builders import gpu, offer, scenario, workload
from tests.checked import solve_checked

CENT = 0.005
LOW = FutureSpec("low", 0.25, demand_factor=0.5)
MID = FutureSpec("expected", 0.5)
HIGH = FutureSpec(
    "high",
    0.25,
    demand_factor=2.0,
    price_factors=(PriceFactor(1.2, "H100", OfferOption.ON_DEMAND),),
)


def _base() -> Scenario:
    return scenario(
        [gpu("H100")],
        [offer("H100", "buy", 25_000.0), offer("H100", "on_demand", 3.0)],
        [workload("chat", "realtime_inference", params_b=8, tokens_per_second=2000.0)],
        horizon_months=6,
        futures=Futures((LOW, MID, HIGH)),
    )


@pytest.fixture(scope="module")
def result() -> FuturesResult:
    return small_result()


def small_result() -> FuturesResult:
    """Three futures of a tiny scenario, with real checked plans in every role."""
    base = _base()
    futures = {s.name: future_scenario(base, s) for s in (LOW, MID, HIGH)}
    alone = {name: solve_checked(f) for name, f in futures.items()}
    # Stand-ins with the right names and a higher cost than each future's own
    # optimum, as a shared plan has: the same future renting only.
    rent_only = {
        name: solve_checked(replace(f, offers=f.offers[1:], allow_buy=False))
        for name, f in futures.items()
    }
    outcomes = tuple(
        FutureOutcome(spec, rent_only[spec.name], alone[spec.name], rent_only[spec.name])
        for spec in (LOW, MID, HIGH)
    )
    shared = (SharedDecision(1, SharedAction.BUY, "H100|buy|1", "H100", 3),)
    return FuturesResult(
        scenario=base,
        futures=Futures((LOW, MID, HIGH)),
        status=SolveStatus.OPTIMAL,
        gap=0.0,
        bound=None,
        outcomes=outcomes,
        shared=shared,
    )


def test_the_derived_figures_follow_their_definitions(result: FuturesResult) -> None:
    costs = [o.plan.total_cost or 0.0 for o in result.outcomes]
    alone = [o.alone.total_cost or 0.0 for o in result.outcomes if o.alone]
    assert result.expected_cost == pytest.approx(0.25 * costs[0] + 0.5 * costs[1] + 0.25 * costs[2])
    assert result.wait_and_see == pytest.approx(0.25 * alone[0] + 0.5 * alone[1] + 0.25 * alone[2])
    assert result.evpi == pytest.approx((result.expected_cost or 0) - (result.wait_and_see or 0))
    assert result.evpi is not None and result.evpi > 0
    assert result.vss == pytest.approx(
        (result.expected_future_cost or 0) - (result.expected_cost or 0)
    )
    assert result.outcomes[0].regret == pytest.approx(costs[0] - alone[0])


def written(result: FuturesResult, tmp_path: Path) -> Path:
    """The futures workbook of ``result``, written as the command writes it."""
    path = tmp_path / "futures.xlsx"
    run = RunResult(
        tuple(o.plan for o in result.outcomes),
        (),
        datetime.now(UTC).isoformat(),
        __version__,
        SolverSettings(),
    )
    write_futures_workbook(path, result, run)
    return path


def test_the_workbook_shows_each_figure_and_the_plans_of_every_future(
    result: FuturesResult, tmp_path: Path
) -> None:
    path = written(result, tmp_path)
    book = openpyxl.load_workbook(path)
    assert book.sheetnames[0] == SHEET
    assert "Summary" in book.sheetnames
    cached = openpyxl.load_workbook(path, data_only=True)[SHEET]
    labels = {str(r[0].value): [c.value for c in r[1:]] for r in cached.iter_rows() if r[0].value}
    expected = labels["Expected total cost of the shared plan (USD)"][0]
    assert expected == pytest.approx(result.expected_cost, abs=CENT)
    evpi = labels["EVPI: what knowing the future now would save (USD)"][0]
    assert evpi == pytest.approx(result.evpi, abs=CENT)
    vss = labels["VSS: what planning for every future saves (USD)"][0]
    assert vss == pytest.approx(result.vss, abs=CENT)
    assert labels["Probability"][:4] == pytest.approx([0.25, 0.5, 0.25, 1.0])
    assert labels["buy 3 H100"][:3] == [1, 3, "H100|buy|1"]
    regret = labels["Regret: shared plan minus planned alone (USD)"]
    assert regret[:3] == pytest.approx([o.regret for o in result.outcomes], abs=CENT)
    assert regret[3] == pytest.approx(result.evpi, abs=CENT)
    formulas = book[SHEET]
    assert any(str(c.value).startswith("=SUMPRODUCT(") for row in formulas.iter_rows() for c in row)


def test_the_json_carries_the_headline_figures_and_every_future(result: FuturesResult) -> None:
    data = json.loads(futures_json(result))
    assert data["expected_cost"] == pytest.approx(result.expected_cost)
    assert data["evpi"] == pytest.approx(result.evpi)
    assert data["vss"] == pytest.approx(result.vss)
    assert [f["future"] for f in data["futures"]] == ["low", "expected", "high"]
    assert data["futures"][2]["changes"] == "demand ×2; H100 on-demand prices ×1.2"
    assert data["shared"] == [
        {
            "month": 1,
            "action": "buy",
            "gpu": "H100",
            "source": "H100|buy|1",
            "count": 3,
            "words": "buy 3 H100",
        }
    ]
    assert data["futures"][2]["plan"]["scenario"] == "test / high"


def test_words_for_futures_and_shared_decisions() -> None:
    spec = FutureSpec(
        "x",
        1.0,
        demand_factor=0.7,
        workload_demand_factors=(("chat", 2.0),),
        growth_per_month=0.08,
        price_factors=(PriceFactor(1.5, option=OfferOption.SPOT), PriceFactor(0.9)),
    )
    assert describe_future(spec) == (
        "demand ×0.7; chat demand ×2; growth 8 % a month; spot prices ×1.5; all prices ×0.9"
    )
    assert describe_future(FutureSpec("same", 1.0)) == "as the scenario is written (no change)"
    base = scenario(
        [gpu("H100")],
        [offer("H100", "reserved", 2.0, term_months=12)],
        [workload("chat", "realtime_inference", params_b=8, tokens_per_second=2000.0)],
    )
    reserve = SharedDecision(1, SharedAction.RESERVE, "H100|reserved|1", "H100", 4)
    assert describe_shared(reserve, base) == "reserve 4 H100 for 12 months"
    servers = SharedDecision(1, SharedAction.BUY_SERVERS, "H100", "H100", 1)
    assert describe_shared(servers, base) == "buy 1 server for H100"


def test_shared_decisions_are_the_nonzero_ones_up_to_the_month_in_order() -> None:
    base = _base()
    decisions = Decisions(
        purchases={("H100|buy|1", 1): 2, ("H100|buy|1", 2): 1, ("H100|buy|1", 3): 0},
        sales={("H100|buy|1", 2): 1},
        server_purchases={("H100", 1): 1},
    )
    rows = shared_decisions(base, decisions, 2)
    assert [(r.month, r.action, r.count) for r in rows] == [
        (1, SharedAction.BUY, 2),
        (1, SharedAction.BUY_SERVERS, 1),
        (2, SharedAction.BUY, 1),
        (2, SharedAction.SELL, 1),
    ]


def test_the_notes_say_what_was_checked_and_give_a_regret_bound_in_the_currency(
    result: FuturesResult,
) -> None:
    from optimizer.reports.futures_workbook import _notes

    capped = replace(result, futures=replace(result.futures, max_regret=400.0))
    notes = _notes(capped)
    assert notes[0] == (
        "Solved: optimal, proven gap 0.00%. Every future's plan was checked by the independent "
        "checker, and so was the sharing of every decision up to month 1."
    )
    assert "Regret bounded by $400.00 in every future." in notes
    # No shared plan (an outside audit's case: a regret bound no plan meets).
    none = replace(capped, status=SolveStatus.INFEASIBLE, gap=None, outcomes=(), shared=())
    assert _notes(none)[0] == (
        "Solved: infeasible. There is no shared plan, so nothing was checked; the notes below "
        "say why."
    )


def test_a_reservation_of_sheet_fleet_is_not_a_shared_decision() -> None:
    """Issue 35: ``futures`` listed the 8 H100 already reserved as "reserve 8 H100"."""
    from optimizer.domain import ExistingGpus, FleetKind

    held = ExistingGpus(
        "H100|fleet|1", "H100", 8, FleetKind.RESERVED, 2.0, months_left=12, label="Fleet row 2"
    )
    base = replace(_base(), fleet=(held,))
    decisions = Decisions(
        purchases={("H100|buy|1", 1): 2},
        reservations={("H100|fleet|1", 1): 8},
    )
    rows = shared_decisions(base, decisions, 2)
    assert [(r.action, r.source, r.count) for r in rows] == [(SharedAction.BUY, "H100|buy|1", 2)]
