"""The checker on hand-built plans: money against hand arithmetic, and every
reported number that disagrees with the decisions rejected with a message that
names the item. ``consistent_plan`` (also used by other test files) builds a
plan whose reported figures match its decisions, so that only a broken rule can
be found wrong; ``test_check_rules`` and ``test_check_places`` break rules.

No solver runs here: plans are written out by hand, so a failure points at the
checker alone.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import optimizer.check.rules
from optimizer.check.assignments import expected_assignments
from optimizer.check.check_report import CheckReport
from optimizer.check.money import fleet_value_at_start
from optimizer.check.reported import expected_fleet, expected_places
from optimizer.check.rules import check_plan
from optimizer.domain import Assumptions, CostCategory, OfferOption, Scenario
from optimizer.results import (
    HOUSE,
    AssignmentRow,
    CashFlowMonth,
    Decisions,
    EstimateSource,
    FleetRow,
    OfferUse,
    PairEstimate,
    PlaceRow,
    Plan,
    ServingWidth,
    SolveStatus,
)
from tests.builders import gpu, offer, scenario, with_assumptions, workload

C = CostCategory
H = 730.0


def width(k: int, tps: float, allowed: bool = True) -> ServingWidth:
    """One serving width of a realtime pair, with its capacity."""
    return ServingWidth(k, allowed, "" if allowed else "dominated (test)", tps, None)


def pair(
    w: str,
    g: str,
    gpu_hours: float | None = None,
    k: int = 1,
    tps: float | None = None,
    allowed: bool = True,
    widths: tuple[ServingWidth, ...] = (),
) -> PairEstimate:
    return PairEstimate(
        workload=w,
        gpu=g,
        allowed=allowed,
        reason="" if allowed else "does not fit (test)",
        memory_gb=10.0,
        gpus_per_replica=k,
        gpu_hours=gpu_hours,
        tokens_per_second_per_replica=tps,
        latency_ms=None,
        source=EstimateSource.MEASURED,
        widths=widths,
    )


def plan_reporting(
    s: Scenario,
    decisions: Decisions,
    estimates: list[PairEstimate],
    *,
    total_cost: float,
    cash_out: float,
    residual_credit: float,
    costs: dict[CostCategory, float],
    cash_flow: dict[int, dict[CostCategory, float]],
    fleet: list[FleetRow],
    assignments: list[AssignmentRow] | None = None,
    places: list[PlaceRow] | None = None,
) -> Plan:
    return Plan(
        scenario=s,
        status=SolveStatus.OPTIMAL,
        gap=0.0,
        total_cost=total_cost,
        cash_out=cash_out,
        residual_credit=residual_credit,
        costs=costs,
        cash_flow=tuple(CashFlowMonth(t, amounts) for t, amounts in sorted(cash_flow.items())),
        fleet=tuple(fleet),
        assignments=tuple(assignments or ()),
        options=tuple(estimates),
        diagnostics=(),
        decisions=decisions,
        places=tuple(places or ()),
    )


def consistent_plan(s: Scenario, decisions: Decisions, estimates: list[PairEstimate]) -> Plan:
    """A plan reporting exactly what the checker recomputes (money, and fleet, places and
    assignment rows from its ``expected_*`` functions), so that only a broken rule (not a
    reported number) can be found wrong."""
    blank = plan_reporting(
        s,
        decisions,
        estimates,
        total_cost=0.0,
        cash_out=0.0,
        residual_credit=0.0,
        costs={},
        cash_flow={},
        fleet=[],
    )
    r = check_plan(s, blank, estimates)
    return replace(
        plan_reporting(
            s,
            decisions,
            estimates,
            total_cost=r.total_cost,
            cash_out=r.cash_out,
            residual_credit=r.residual_credit,
            costs=r.costs,
            cash_flow=r.cash_flow,
            fleet=list(expected_fleet(s, decisions).values()),
            assignments=list(expected_assignments(s, decisions, estimates).values()),
            places=list(expected_places(s, decisions).values()),
        ),
        residual_credit_discounted=r.residual_credit_discounted,
        existing_value=fleet_value_at_start(s),
    )


def violations_of(s: Scenario, decisions: Decisions, estimates: list[PairEstimate]) -> list[str]:
    return check_plan(s, consistent_plan(s, decisions, estimates), estimates).violations


def assert_rejected(violations: list[str], *fragments: str) -> None:
    """Some violation mentions every fragment: the message names the item."""
    assert any(all(f in v for f in fragments) for v in violations), violations


# ---------------------------------------------------------------- one hand-computed plan
#
# H100 (700 W), defaults: H = 730, PUE 1.3, $0.10/kWh, idle 10 %, maintenance
# 5 %/year, depreciation 36 months, residual credited, max_utilization 0.95.
# A batch job needs 1,000 GPU-hours a month for 3 months and may use spot.
# Copy width 1 and no deadline: its work uses each place's free hours.
#   month 1: 1,000 on-demand hours (uncapped offer).
#   month 2: buy one H100 ($25,000) and reserve one for 2 months ($2/h);
#            600 house hours + 400 on-demand hours (the reservation idles).
#   month 3: 500 house + 330 reserved + 200 paid spot hours (× 0.85 = 170).

BATCH = [pair("batch", "H100", gpu_hours=1000.0)]
KW_FACTOR = 0.7 * 1.3 * 0.10  # $ per house hour at full power: 0.091
OD, RES, SPOT = "H100|on_demand|1", "H100|reserved|1", "H100|spot|1"
RES_LABEL, SPOT_LABEL = "H100 reserved row 4", "H100 spot row 5"  # no provider: the sheet row


def money_scenario(**kw: Any) -> Scenario:
    # The hand figures below credit v1's book value (model v2 §E keeps it as ``book``).
    kw.setdefault("assumptions", Assumptions(residual_value="book"))
    return scenario(
        [gpu("H100")],
        [
            offer("H100", "buy", 25000.0),
            offer("H100", "on_demand", 3.15, provider="Acme Cloud"),
            offer("H100", "reserved", 2.0, term_months=2, row=4),
            offer("H100", "spot", 1.0, row=5),
        ],
        [workload("batch", "batch_inference", tokens=1e9, interruptible=True)],
        horizon_months=3,
        **kw,
    )


MONEY_DECISIONS = Decisions(
    purchases={("H100|buy|1", 2): 1},
    reservations={(RES, 2): 1},
    work={
        ("batch", "H100", OD, 1): 1000.0,
        ("batch", "H100", HOUSE, 2): 600.0,
        ("batch", "H100", OD, 2): 400.0,
        ("batch", "H100", HOUSE, 3): 500.0,
        ("batch", "H100", RES, 3): 330.0,
        ("batch", "H100", SPOT, 3): 200.0,
    },
)

MAINTENANCE = 0.05 / 12 * 25000  # 104.1666...
HAND_CASH = {
    1: {
        C.PURCHASE: 0.0,
        C.ENERGY: 0.0,
        C.MAINTENANCE: 0.0,
        C.ON_DEMAND: 3150.0,
        C.SPOT: 0.0,
        C.RESERVED: 0.0,
        C.NODE: 0.0,
        C.COLOCATION: 0.0,
        C.SALES: 0.0,
    },
    2: {
        C.PURCHASE: 25000.0,
        C.ENERGY: (600 + 0.1 * 130) * KW_FACTOR,  # 55.783
        C.MAINTENANCE: MAINTENANCE,
        C.ON_DEMAND: 1260.0,
        C.SPOT: 0.0,
        C.RESERVED: 1460.0,
        C.NODE: 0.0,
        C.COLOCATION: 0.0,
        C.SALES: 0.0,
    },
    3: {
        C.PURCHASE: 0.0,
        C.ENERGY: (500 + 0.1 * 230) * KW_FACTOR,  # 47.593
        C.MAINTENANCE: MAINTENANCE,
        C.ON_DEMAND: 0.0,
        C.SPOT: 200.0,
        C.RESERVED: 1460.0,
        C.NODE: 0.0,
        C.COLOCATION: 0.0,
        C.SALES: 0.0,
    },
}
HAND_CREDIT = 25000 * (1 - 2 / 36)  # bought in month 2 of 3: two months old


def _fleet(t: int, owned: int, od: float, spot: float, used: float) -> FleetRow:
    return FleetRow(
        "H100",
        t,
        bought=1 if t == 2 else 0,
        owned=owned,
        reserved=owned,
        rented_hours=od,
        spot_hours=spot,
        owned_utilization=used / (730 * owned) if owned else None,
    )


HAND_FLEET = [_fleet(1, 0, 1000.0, 0.0, 0.0), _fleet(2, 1, 400.0, 0.0, 600.0)]
HAND_FLEET.append(_fleet(3, 1, 0.0, 200.0, 500.0))
# One owned and one reserved H100 in months 2 and 3, nothing pinned, no slots.
HAND_PLACES = [
    PlaceRow("H100", t, kind, label, size=1, pinned=0, free=1, slots={})
    for t in (2, 3)
    for kind, label in ((HOUSE, None), ("reserved", RES_LABEL))
]

# Each month's non-spot cost of the type is shared by the non-spot rows by
# GPU-hours; spot cost by the spot rows. The purchase counts at its net capital
# cost, 25,000 × (1 − 34/36) = 1,388.89, spread over months 2 and 3
# (methodology 2.5); so the rows add up to cash_out − credit.
NET_CAPITAL_A_MONTH = 25000 * (2 / 36) / 2  # 694.44
MONTH_2 = NET_CAPITAL_A_MONTH + MAINTENANCE + 1460.0 + 1260.0 + 613 * KW_FACTOR  # 3,574.39
MONTH_3 = NET_CAPITAL_A_MONTH + MAINTENANCE + 1460.0 + 523 * KW_FACTOR  # 2,306.20


def _row(t: int, kind: str, label: str | None, hours: float, cost: float) -> AssignmentRow:
    return AssignmentRow(
        "batch",
        "H100",
        t,
        gpus_per_replica=1,
        replicas=None,
        gpu_hours=hours,
        cost=cost,
        spot_hours=hours if kind == "spot" else 0.0,
        place=kind,
        offer=label,
        copy_width=1,
        width=1,
    )


HAND_ASSIGNMENTS = [
    _row(1, "on_demand", "Acme Cloud", 1000.0, 3150.0),
    _row(2, HOUSE, None, 600.0, MONTH_2 * 600 / 1000),
    _row(2, "on_demand", "Acme Cloud", 400.0, MONTH_2 * 400 / 1000),
    _row(3, HOUSE, None, 500.0, MONTH_3 * 500 / 830),
    _row(3, "reserved", RES_LABEL, 330.0, MONTH_3 * 330 / 830),
    _row(3, "spot", SPOT_LABEL, 200.0, 200.0),
]


def hand_plan(s: Scenario, discount: list[float]) -> Plan:
    costs = {c: sum(HAND_CASH[t][c] * discount[t - 1] for t in (1, 2, 3)) for c in CostCategory}
    return plan_reporting(
        s,
        MONEY_DECISIONS,
        BATCH,
        total_cost=sum(costs.values()) - HAND_CREDIT * discount[2],
        cash_out=sum(sum(m.values()) for m in HAND_CASH.values()),
        residual_credit=HAND_CREDIT,
        costs=costs,
        cash_flow=HAND_CASH,
        fleet=HAND_FLEET,
        assignments=HAND_ASSIGNMENTS,
        places=HAND_PLACES,
    )


def test_hand_plan_money_to_the_cent() -> None:
    s = money_scenario()
    report = check_plan(s, hand_plan(s, [1.0, 1.0, 1.0]), BATCH)
    assert report.violations == []
    assert report.cash_out == pytest.approx(3150.00 + 27879.949667 + 1811.759667, abs=0.005)
    assert report.residual_credit == pytest.approx(23611.11, abs=0.005)
    assert report.total_cost == pytest.approx(32841.709333 - 23611.111111, abs=0.005)
    assert report.cash_flow[2][C.ENERGY] == pytest.approx(55.78, abs=0.005)
    assert report.cash_flow[3][C.ENERGY] == pytest.approx(47.59, abs=0.005)
    assert report.costs[C.MAINTENANCE] == pytest.approx(208.33, abs=0.005)
    assert report.costs[C.RESERVED] == pytest.approx(2920.00, abs=0.005)


def test_hand_plan_discounted_at_ten_percent() -> None:
    s = with_assumptions(money_scenario(), discount_rate=0.10)
    discount = [1.0, 1.1 ** (-1 / 12), 1.1 ** (-2 / 12)]
    report = check_plan(s, hand_plan(s, discount), BATCH)
    assert report.violations == []
    # Cash and credit stay undiscounted; the objective discounts month t by 1.1^-(t-1)/12
    # and the credit as month T.
    assert report.cash_out == pytest.approx(32841.71, abs=0.005)
    assert report.residual_credit == pytest.approx(23611.11, abs=0.005)
    expected = (
        3150.0
        + 27879.949667 * 1.1 ** (-1 / 12)
        + 1811.759667 * 1.1 ** (-2 / 12)
        - 23611.111111 * 1.1 ** (-2 / 12)
    )
    assert report.total_cost == pytest.approx(expected, abs=0.005)
    assert report.residual_credit_discounted == pytest.approx(
        23611.111111 * 1.1 ** (-2 / 12), abs=0.005
    )


def test_undiscounted_plan_is_rejected_when_rate_is_ten_percent() -> None:
    s = with_assumptions(money_scenario(), discount_rate=0.10)
    violations = check_plan(s, hand_plan(s, [1.0, 1.0, 1.0]), BATCH).violations
    assert_rejected(violations, "reported total_cost")
    assert_rejected(violations, "reported costs[purchase]")


def test_report_is_frozen() -> None:
    s = money_scenario()
    report = check_plan(s, hand_plan(s, [1.0, 1.0, 1.0]), BATCH)
    assert isinstance(report, CheckReport) and report.ok
    with pytest.raises(AttributeError):
        report.total_cost = 0.0  # type: ignore[misc]


def test_the_hand_plan_breaks_nothing() -> None:
    assert violations_of(money_scenario(), MONEY_DECISIONS, BATCH) == []


# ---------------------------------------------------------------- reported numbers off


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"total_cost": 1.0}, "reported total_cost"),
        ({"cash_out": 1.0}, "reported cash_out"),
        ({"residual_credit": -1.0}, "reported residual_credit"),
    ],
)
def test_totals_off_by_a_dollar_are_rejected(change: dict[str, float], fragment: str) -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])
    field, delta = next(iter(change.items()))
    bad = replace(good, **{field: getattr(good, field) + delta})
    violations = check_plan(s, bad, BATCH).violations
    assert_rejected(violations, fragment, "but recomputed")
    assert len(violations) == 1


def test_totals_off_by_a_third_of_a_cent_pass() -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])
    assert good.total_cost is not None
    assert check_plan(s, replace(good, total_cost=good.total_cost + 0.003), BATCH).ok


def test_category_and_month_off_by_a_dollar_are_rejected() -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])
    costs = dict(good.costs)
    costs[C.ENERGY] += 1.0
    assert_rejected(check_plan(s, replace(good, costs=costs), BATCH).violations, "costs[energy]")
    month2 = dict(good.cash_flow[1].amounts)
    month2[C.RESERVED] -= 1.0
    flows = (good.cash_flow[0], CashFlowMonth(2, month2), good.cash_flow[2])
    assert_rejected(
        check_plan(s, replace(good, cash_flow=flows), BATCH).violations,
        "cash_flow month 2 reserved",
    )
    missing = (good.cash_flow[0], good.cash_flow[2])
    assert_rejected(
        check_plan(s, replace(good, cash_flow=missing), BATCH).violations,
        "lacks month 2",
    )


def test_wrong_fleet_rows_are_rejected() -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])

    def with_row(i: int, **change: Any) -> list[str]:
        rows = list(good.fleet)
        rows[i] = replace(rows[i], **change)
        return check_plan(s, replace(good, fleet=tuple(rows)), BATCH).violations

    assert_rejected(with_row(2, owned=2), "H100 month 3 owned 2")
    assert_rejected(with_row(1, owned_utilization=0.9), "month 2 owned_utilization")
    assert_rejected(with_row(0, rented_hours=999.0), "month 1 rented_hours")
    assert_rejected(with_row(2, spot_hours=170.0), "month 3 spot_hours 170")
    assert_rejected(
        check_plan(s, replace(good, fleet=good.fleet[:2]), BATCH).violations,
        "no row for H100 month 3",
    )


def test_wrong_place_rows_are_rejected() -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])

    def with_row(i: int, **change: Any) -> list[str]:
        rows = list(good.places)
        rows[i] = replace(rows[i], **change)
        return check_plan(s, replace(good, places=tuple(rows)), BATCH).violations

    assert_rejected(with_row(0, size=2), "places: H100 house month 2 size 2", "give 1")
    assert_rejected(with_row(1, free=0), f"places: H100 reserved {RES_LABEL} month 2 free 0")
    assert_rejected(with_row(2, slots={2: 1}), "month 3 slots {2: 1}")
    assert_rejected(with_row(3, offer="Lambda"), "reserved Lambda month 3 is not a finite place")
    assert_rejected(
        check_plan(s, replace(good, places=good.places[1:]), BATCH).violations,
        "places: no row for H100 house month 2",
    )
    # An empty place may be shown: the house in month 1 holds nothing.
    empty = PlaceRow("H100", 1, HOUSE, None, size=0, pinned=0, free=0, slots={})
    assert check_plan(s, replace(good, places=(*good.places, empty)), BATCH).ok


def test_assignment_costs_add_up_to_cash_out_minus_credit() -> None:
    assert sum(r.cost for r in HAND_ASSIGNMENTS) == pytest.approx(9230.60, abs=0.005)
    assert pytest.approx(3574.39, abs=0.005) == MONTH_2
    assert pytest.approx(2506.20, abs=0.005) == MONTH_3 + 200.0


def test_wrong_assignment_rows_are_rejected() -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])

    def with_row(i: int, **change: Any) -> list[str]:
        rows = list(good.assignments)
        rows[i] = replace(rows[i], **change)
        return check_plan(s, replace(good, assignments=tuple(rows)), BATCH).violations

    assert_rejected(
        with_row(1, cost=good.assignments[1].cost + 1.0),
        "assignments: batch on H100 month 2 in house cost $2,145.64",
    )
    assert_rejected(with_row(5, gpu_hours=170.0), "month 3 in spot H100 spot row 5 gpu_hours 170")
    assert_rejected(with_row(3, copy_width=2), "month 3 in house copy_width 2")
    assert_rejected(with_row(4, load=0.5), "load 0.5 but the decisions give None")
    moved = with_row(4, offer="Lambda")  # reported under an offer that is not its place
    assert_rejected(moved, "month 3 in reserved Lambda has no work in the decisions")
    assert_rejected(moved, f"no row for batch on H100 month 3 in reserved {RES_LABEL}")


def test_wrong_offer_use_is_rejected() -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])
    use = (
        OfferUse("H100|buy|1", "H100", OfferOption.BUY, 25000.0, units=1, cost=25000.0),
        OfferUse(RES, "H100", OfferOption.RESERVED, 2.0, units=2, cost=2920.0),
        OfferUse(OD, "H100", OfferOption.ON_DEMAND, 3.15, units=1400.0, cost=4410.0),
        OfferUse(SPOT, "H100", OfferOption.SPOT, 1.0, units=200.0, cost=200.0),
    )
    assert check_plan(s, replace(good, offer_use=use), BATCH).ok
    wrong = (*use[:2], replace(use[2], cost=4400.0), use[3])
    assert_rejected(
        check_plan(s, replace(good, offer_use=wrong), BATCH).violations,
        "offer use: H100|on_demand|1 cost $4,400.00",
    )


def test_options_must_equal_the_estimates() -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])
    other = [pair("batch", "H100", gpu_hours=900.0)]
    assert_rejected(check_plan(s, good, other).violations, "options: batch on H100")
    assert_rejected(
        check_plan(s, replace(good, options=()), BATCH).violations,
        "missing from the plan's options",
    )


def test_plan_without_decisions_is_rejected() -> None:
    s = money_scenario()
    report = check_plan(s, replace(hand_plan(s, [1.0, 1.0, 1.0]), decisions=None), BATCH)
    assert_rejected(report.violations, "no decisions")


def test_not_a_number_is_rejected_without_crashing() -> None:
    s = money_scenario()
    work = {**MONEY_DECISIONS.work, ("batch", "H100", HOUSE, 2): float("nan")}
    bad = check_plan(
        s, replace(hand_plan(s, [1.0] * 3), decisions=replace(MONEY_DECISIONS, work=work)), BATCH
    )
    assert_rejected(bad.violations, "work", "nan, not a finite number")
    d = replace(MONEY_DECISIONS, purchases={("H100|buy|1", 2): float("inf")})  # type: ignore[dict-item]
    bad = check_plan(s, replace(hand_plan(s, [1.0] * 3), decisions=d), BATCH)
    assert_rejected(bad.violations, "purchases", "inf, not a finite number")


def test_checker_is_independent_of_the_model() -> None:
    """The checker recomputes from inputs and decisions: it never imports PuLP, the model or the solver.

    Every module of ``optimizer/check`` is read, except ``verify`` and
    ``baselines``, which solve on purpose.
    """
    folder = Path(optimizer.check.rules.__file__).parent
    modules = sorted(p for p in folder.glob("*.py") if p.stem not in ("verify", "baselines"))
    assert {p.stem for p in modules} >= {
        "rules",
        "money",
        "capacity",
        "demand",
        "reported",
        "place_capacity",
        "slot_hours",
        "free_hours",
        "deadline_slots",
        "serving",
        "training_demand",
        "recurring_demand",
    }
    for path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        imported |= {
            f"{node.module}.{alias.name}"  # "from optimizer import model" is optimizer.model
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module is not None
            for alias in node.names
        }
        assert not any(
            name == banned or name.startswith(banned + ".")
            for name in imported
            for banned in ("pulp", "highspy", "optimizer.model", "optimizer.solve")
        ), (path.name, imported)
