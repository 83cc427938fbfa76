"""The checker on model v2's rules (§A–§D): places, pinned replicas, slots, deadlines,
serving with headroom and recurring runs.

One consistent plan is built by hand and its money and rows computed by hand;
each other test corrupts it so that exactly one rule family fails, and asserts
that every violation names that family.

The plan: 2 months, H = 730, max_utilization 0.9, no residual credit, H100 at
700 W (energy $0.091 per GPU-hour at TDP, 10 % when idle). Eight H100 bought
in month 1 ($20,000 each) form the house; 4 reserved for 2 months ($2/h) form
the ``Lambda`` place; a spot offer capped at 8 GPUs ($1/h) is a finite place;
on-demand ($3/h) is uncapped.
- chat (realtime, 1,000 tokens/s, target_load 0.8 → 1,250 needed, min_replicas
  2). Widths 1, 2, 4 serve 300, 700, 1,300 tokens/s; 8 is dominated. Month 1:
  one width-2 replica in the house + two width-1 replicas on Lambda (1,300);
  month 2: two width-2 replicas in the house (1,400).
- ft (one-off fine-tuning, 2,000 GPU-hours, copy width 2, deadline 500 h →
  2 copies a gang): 1,000 h in the house each month, in 2 slots of width 2.
- weekly (LoRA, 4 runs a month of 100 GPU-hours, copy width 1, deadline 30 h →
  4 copies of 1 GPU, interruptible): month 1 on spot in 4 slots of width 1,
  400 / 0.85 paid hours; month 2 400 on-demand hours.
- batch (300 GPU-hours a month, width 1, no deadline): month 1 in the house's
  free GPUs (8 − 2 pinned − 4 in slots = 2), month 2 on Lambda (4 free).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest

from optimizer.check.assignments import expected_assignments
from optimizer.check.reported import expected_places
from optimizer.check.rules import check_plan
from optimizer.domain import Assumptions, CostCategory, Scenario
from optimizer.results import HOUSE, Decisions, PlaceRow
from tests.builders import gpu, offer, scenario, workload
from tests.check.test_check import H, assert_rejected, consistent_plan, pair, violations_of, width

C = CostCategory
BUY, RES, OD, SPOT = "H100|buy|1", "H100|reserved|1", "H100|on_demand|1", "H100|spot|1"
A100_OD = "A100|on_demand|1"
KW = 0.7 * 1.3 * 0.10  # $ per house GPU-hour at TDP


def places_scenario(chat_tps: float = 1000.0, max_per_node: int = 8) -> Scenario:
    return scenario(
        [gpu("H100", max_per_node=max_per_node), gpu("A100", tdp_w=400.0)],
        [
            offer("H100", "buy", 20000.0),
            offer("H100", "reserved", 2.0, term_months=2, provider="Lambda"),
            offer("H100", "on_demand", 3.0, provider="Acme"),
            offer("H100", "spot", 1.0, max_units=8, row=7),
            offer("A100", "on_demand", 2.0, provider="Acme"),
        ],
        [
            workload("chat", "realtime_inference", tokens_per_second=chat_tps, min_replicas=2),
            workload("ft", "fine_tuning", tokens=1e9, deadline_hours=500.0),
            workload(
                "weekly",
                "lora",
                tokens=1e7,
                runs_per_month=4.0,
                deadline_hours=30.0,
                interruptible=True,
            ),
            workload("batch", "batch_inference", tokens=1e9),
        ],
        assumptions=Assumptions(max_utilization=0.9, credit_residual_value=False),
        horizon_months=2,
    )


CHAT_WIDTHS = (width(1, 300.0), width(2, 700.0), width(4, 1300.0), width(8, 2000.0, allowed=False))
ESTIMATES = [
    pair("chat", "H100", k=1, tps=300.0, widths=CHAT_WIDTHS),
    pair("chat", "A100", allowed=False),
    pair("ft", "H100", gpu_hours=2000.0, k=2),
    pair("ft", "A100", gpu_hours=2500.0, k=2),
    pair("weekly", "H100", gpu_hours=100.0),
    pair("weekly", "A100", allowed=False),
    pair("batch", "H100", gpu_hours=300.0),
    pair("batch", "A100", allowed=False),
]
SPOT_PAID = 400.0 / 0.85  # 470.59 paid hours: 4 runs of 100 useful hours at spot_efficiency 0.85

PLAN = Decisions(
    purchases={(BUY, 1): 8},
    reservations={(RES, 1): 4},
    replicas={
        ("chat", "H100", HOUSE, 2, 1): 1,
        ("chat", "H100", RES, 1, 1): 2,
        ("chat", "H100", HOUSE, 2, 2): 2,
    },
    work={
        ("ft", "H100", HOUSE, 1): 1000.0,
        ("ft", "H100", HOUSE, 2): 1000.0,
        ("weekly", "H100", SPOT, 1): SPOT_PAID,
        ("weekly", "H100", OD, 2): 400.0,
        ("batch", "H100", HOUSE, 1): 300.0,
        ("batch", "H100", RES, 2): 300.0,
    },
    slots={
        ("H100", HOUSE, 2, 1): 2,
        ("H100", HOUSE, 2, 2): 2,
        ("H100", SPOT, 1, 1): 4,
    },
    picks={"ft": "H100"},
)


def changed(
    replicas: Mapping[tuple[str, str, str, int, int], int | None] | None = None,
    work: Mapping[tuple[str, str, str, int], float | None] | None = None,
    slots: Mapping[tuple[str, str, int, int], int | None] | None = None,
) -> Decisions:
    """The plan with some items set (None removes one)."""

    def merged(base: Mapping[Any, Any], change: Mapping[Any, Any] | None) -> dict[Any, Any]:
        out = {**base, **(change or {})}
        return {k: v for k, v in out.items() if v is not None}

    return replace(
        PLAN,
        replicas=merged(PLAN.replicas, replicas),
        work=merged(PLAN.work, work),
        slots=merged(PLAN.slots, slots),
    )


def only(family: str, violations: list[str], *fragments: str) -> None:
    """Every violation is of ``family``, and one names all the fragments."""
    assert violations, f"no {family} violation"
    assert all(v.startswith(family + ":") for v in violations), violations
    assert_rejected(violations, family, *fragments)


# ---------------------------------------------------------------- the consistent plan


def test_the_plan_breaks_nothing() -> None:
    assert violations_of(places_scenario(), PLAN, ESTIMATES) == []


def test_money_to_the_cent() -> None:
    """House energy counts pinned GPUs for all H hours; rented replicas pay width × H."""
    s = places_scenario()
    report = check_plan(s, consistent_plan(s, PLAN, ESTIMATES), ESTIMATES)
    assert report.ok
    maintenance = 0.05 / 12 * 160000  # 666.67
    # Month 1: used = 730 × 2 pinned + 1,000 ft + 300 batch = 2,760 of 8 × 730 = 5,840.
    energy_1 = (2760 + 0.1 * (5840 - 2760)) * KW  # 279.19
    # Month 2: used = 730 × 4 pinned + 1,000 ft = 3,920.
    energy_2 = (3920 + 0.1 * (5840 - 3920)) * KW  # 374.19
    assert energy_1 == pytest.approx(279.19, abs=0.005)
    assert report.cash_flow[1] == pytest.approx(
        {
            C.PURCHASE: 160000.0,
            C.ENERGY: energy_1,
            C.MAINTENANCE: maintenance,
            C.ON_DEMAND: 0.0,
            C.SPOT: 470.59,
            C.RESERVED: 2.0 * 730 * 4,
            C.NODE: 0.0,
            C.COLOCATION: 0.0,
            C.SALES: 0.0,
        },
        abs=0.005,
    )
    assert report.cash_flow[2][C.ENERGY] == pytest.approx(374.19, abs=0.005)
    assert report.cash_flow[2][C.ON_DEMAND] == pytest.approx(1200.00, abs=0.005)
    total = 160000 + 2 * maintenance + 2 * 5840 + 470.588235 + 1200 + energy_1 + energy_2
    assert report.total_cost == pytest.approx(175337.30, abs=0.005)
    assert report.total_cost == pytest.approx(total, abs=0.005)
    assert report.cash_out == pytest.approx(total, abs=0.005)


SPOT_LABEL = "H100 spot row 7"
HAND_PLACES = [
    PlaceRow("H100", 1, HOUSE, None, size=8, pinned=2, free=6, slots={2: 2}),
    PlaceRow("H100", 1, "reserved", "Lambda", size=4, pinned=2, free=2, slots={}),
    PlaceRow("H100", 1, "spot", SPOT_LABEL, size=8, pinned=0, free=8, slots={1: 4}),
    PlaceRow("H100", 2, HOUSE, None, size=8, pinned=4, free=4, slots={2: 2}),
    PlaceRow("H100", 2, "reserved", "Lambda", size=4, pinned=0, free=4, slots={}),
]


def test_place_rows_by_hand() -> None:
    """The house and Lambda every month they hold GPUs; the capped spot offer in the
    month it is used (unused in month 2, it may be shown or left out)."""
    s = places_scenario()
    assert sorted(expected_places(s, PLAN).values(), key=repr) == sorted(HAND_PLACES, key=repr)
    plan = replace(consistent_plan(s, PLAN, ESTIMATES), places=tuple(HAND_PLACES))
    assert check_plan(s, plan, ESTIMATES).ok
    unused = PlaceRow("H100", 2, "spot", SPOT_LABEL, size=8, pinned=0, free=8, slots={})
    assert check_plan(s, replace(plan, places=(*HAND_PLACES, unused)), ESTIMATES).ok
    wrong = replace(unused, size=4, free=4)
    assert_rejected(
        check_plan(s, replace(plan, places=(*HAND_PLACES, wrong)), ESTIMATES).violations,
        f"places: H100 spot {SPOT_LABEL} month 2 size 4 but the decisions give 8",
    )


def test_two_offers_of_one_provider_are_two_rows_each_checked_alone() -> None:
    """Two Lambda reservations (one provider, two offers) used to share the label "Lambda"
    and could only be compared by their sums; each is now named with its Prices row (or
    id), so the checker holds each row to its own offer, and a plan that swaps them is
    refused."""
    s = places_scenario()
    second = offer("H100", "reserved", 2.5, n=2, term_months=1, provider="Lambda")
    s = replace(s, offers=(*s.offers, second))
    d = replace(
        PLAN,
        reservations={**PLAN.reservations, ("H100|reserved|2", 2): 2},
        work={**PLAN.work, ("batch", "H100", "H100|reserved|2", 2): 100.0},
    )
    plan = consistent_plan(s, d, ESTIMATES)
    assert check_plan(s, plan, ESTIMATES).ok
    month_2 = {p.offer: p for p in plan.places if p.place == "reserved" and p.month == 2}
    first, other = "Lambda (H100|reserved|1)", "Lambda (H100|reserved|2)"
    assert {k: (p.size, p.free) for k, p in month_2.items()} == {first: (4, 4), other: (2, 2)}
    swapped = [p for p in plan.places if p not in month_2.values()]
    swapped += [replace(month_2[first], offer=other), replace(month_2[other], offer=first)]
    assert not check_plan(s, replace(plan, places=tuple(swapped)), ESTIMATES).ok
    rows = {r.offer: r for r in plan.assignments if r.workload == "batch" and r.month == 2}
    assert rows[other].gpu_hours == pytest.approx(100.0)
    assert rows[first].gpu_hours == pytest.approx(300.0)


def test_assignment_rows_by_hand() -> None:
    rows = expected_assignments(places_scenario(), PLAN, ESTIMATES)
    # Month 1, H100 non-spot cost: capital 160,000 over 2 months (no credit),
    # maintenance, the reservation and house energy, shared by 4,220 GPU-hours:
    # 1,460 chat house + 1,460 chat Lambda + 1,000 ft + 300 batch.
    month_1 = 80000 + 0.05 / 12 * 160000 + 5840 + 3068 * KW
    chat = rows["chat", "H100", 1, HOUSE, None, 2]
    assert (chat.replicas, chat.gpu_hours, chat.gpus_per_replica, chat.width) == (1, H * 2, 2, 2)
    assert chat.load == pytest.approx(1000 / 1300)
    assert chat.cost == pytest.approx(month_1 * 1460 / 4220, abs=0.005)
    lambda_row = rows["chat", "H100", 1, "reserved", "Lambda", 1]
    assert (lambda_row.replicas, lambda_row.gpu_hours, lambda_row.width) == (2, 2 * H, 1)
    ft = rows["ft", "H100", 1, HOUSE, None, 4]
    assert (ft.copy_width, ft.width, ft.gpus_per_replica, ft.replicas) == (2, 4, 2, None)
    assert ft.cost == pytest.approx(month_1 * 1000 / 4220, abs=0.005)
    weekly = rows["weekly", "H100", 1, "spot", "H100 spot row 7", 4]
    assert (weekly.copy_width, weekly.width) == (1, 4)
    assert weekly.spot_hours == weekly.gpu_hours == pytest.approx(SPOT_PAID)
    assert weekly.cost == pytest.approx(470.59, abs=0.005)
    assert rows["weekly", "H100", 2, "on_demand", "Acme", 4].cost == pytest.approx(
        (1200 + 80000 + 0.05 / 12 * 160000 + 5840 + 4112 * KW) * 400 / (2920 + 1000 + 300 + 400),
        abs=0.005,
    )
    assert rows["chat", "H100", 2, HOUSE, None, 2].load == pytest.approx(1000 / 1400)


# ---------------------------------------------------------------- one rule broken at a time


def test_slots_beyond_a_place_are_rejected() -> None:
    # Month 2: 4 pinned + 3 slots × 2 GPUs = 10 GPUs in a house of 8.
    violations = violations_of(
        places_scenario(), changed(slots={("H100", HOUSE, 2, 2): 3}), ESTIMATES
    )
    only(
        "place_capacity", violations, "H100 house month 2", "4 pinned + 6 in slots", "10 GPUs", "8"
    )


def test_a_slot_class_over_its_hours_is_rejected() -> None:
    # 4 spot slots of width 1 give 1 × 730 × 1 × 4 = 2,920 paid hours.
    violations = violations_of(
        places_scenario(), changed(work={("weekly", "H100", SPOT, 1): 3000.0}), ESTIMATES
    )
    only("slot_hours", violations, f"{SPOT} month 1 class 1", "3,000 h", "= 2,920 h")


def test_a_wide_slot_class_over_its_hours_is_rejected() -> None:
    # A second width-2 job without a deadline, ft2 (1,700 GPU-hours), shares class 2
    # with ft in month 1: 1,000 + 1,700 = 2,700 h, but 2 slots × 2 GPUs × 0.9 × 730 h
    # give 2,628 h.
    s = replace(
        places_scenario(),
        workloads=(*places_scenario().workloads, workload("ft2", "fine_tuning", tokens=1e9)),
    )
    estimates = [
        *ESTIMATES,
        pair("ft2", "H100", gpu_hours=1700.0, k=2),
        pair("ft2", "A100", allowed=False),
    ]
    d = changed(work={("ft2", "H100", HOUSE, 1): 1700.0})
    d = replace(d, picks={**d.picks, "ft2": "H100"})
    violations = violations_of(s, d, estimates)
    only(
        "slot_hours", violations, "H100 house month 1 class 2", "2,700 h", "× 2 × 2 slots = 2,628 h"
    )


def test_width_one_work_over_the_free_hours_is_rejected() -> None:
    # Month 1 house: 8 − 2 pinned − 4 in slots = 2 free GPUs, 0.9 × 730 × 2 = 1,314 h.
    violations = violations_of(
        places_scenario(), changed(work={("batch", "H100", HOUSE, 1): 1400.0}), ESTIMATES
    )
    only(
        "free_hours",
        violations,
        "H100 house month 1",
        "1,400 h",
        "(8 GPUs − 2 pinned − 4 in slots) = 1,314 h",
    )


@pytest.mark.parametrize(
    ("place", "replica_width", "fragment"),
    [
        (SPOT, 1, "spot never serves"),
        (A100_OD, 1, f"place {A100_OD!r}, a on_demand offer of A100: not a place of H100"),
        (BUY, 1, f"place {BUY!r}, a buy offer of H100: not a place of H100"),
        (OD, 8, "width 8 is not an allowed serving width of the pair (1, 2, 4)"),
        (OD, 3, "width 3 is not an allowed serving width"),
    ],
)
def test_a_replica_out_of_place_is_rejected(place: str, replica_width: int, fragment: str) -> None:
    # One of month 1's width-1 Lambda replicas moves to another place; a replica at a
    # width not allowed (a split the estimate ruled out, or none it looked at) is added.
    change = {("chat", "H100", place, replica_width, 1): 1}
    if replica_width == 1:
        change["chat", "H100", RES, 1, 1] = 1
    violations = violations_of(places_scenario(), changed(replicas=change), ESTIMATES)
    only("replicas", violations, fragment)


def test_capacity_below_demand_over_target_load_is_rejected() -> None:
    # Month 2: one width-2 and one width-1 replica serve 1,000 tokens/s, the demand
    # itself, but target_load 0.8 asks for 1,250.
    change = {("chat", "H100", HOUSE, 2, 2): 1, ("chat", "H100", HOUSE, 1, 2): 1}
    violations = violations_of(places_scenario(), changed(replicas=change), ESTIMATES)
    only("serving", violations, "chat month 2 has 1,000 tokens/s", "target_load 0.8 = 1,250")


def test_fewer_than_min_replicas_is_rejected() -> None:
    # Month 2: one width-4 replica serves 1,300 tokens/s, enough, but min_replicas is 2.
    change = {("chat", "H100", HOUSE, 2, 2): None, ("chat", "H100", HOUSE, 4, 2): 1}
    violations = violations_of(places_scenario(), changed(replicas=change), ESTIMATES)
    only("serving", violations, "chat month 2 has 1 replicas, fewer than min_replicas 2")


def test_min_replicas_hold_in_a_month_without_demand() -> None:
    s = places_scenario(chat_tps=0.0)
    assert violations_of(s, PLAN, ESTIMATES) == []
    violations = violations_of(
        s, changed(replicas={("chat", "H100", HOUSE, 2, 2): None}), ESTIMATES
    )
    only("serving", violations, "chat month 2 has 0 replicas", "min_replicas 2 (demand 0 tokens/s)")


@pytest.mark.parametrize(
    ("slot", "fragment"),
    [
        (("H100", HOUSE, 2, 2), "ft works 1,000 h in H100 house month 2"),
        (("H100", SPOT, 1, 1), f"weekly works 470.588 h in {SPOT} month 1"),
    ],
)
def test_a_deadline_gang_without_its_slots_is_rejected(
    slot: tuple[str, str, int, int], fragment: str
) -> None:
    # One slot fewer than the gang's copies; the hours would still fit.
    copies = PLAN.slots[slot]
    violations = violations_of(places_scenario(), changed(slots={slot: copies - 1}), ESTIMATES)
    only("deadline_slots", violations, fragment, f"needs {copies} slots", f"has {copies - 1}")


def test_recurring_work_short_in_one_month_is_rejected() -> None:
    violations = violations_of(
        places_scenario(), changed(work={("weekly", "H100", OD, 2): 350.0}), ESTIMATES
    )
    only(
        "recurring_demand",
        violations,
        "recurring training job weekly in month 2 does 3.5 runs",
        "needs 4",
    )


def test_spot_yield_counts_the_servers_of_a_gang() -> None:
    # With 2 GPUs a server, weekly's gang of 4 spans 2 servers: a paid spot hour
    # yields 0.85² useful hours, so month 1 does 4 × 0.85 = 3.4 runs; and each run
    # takes 100 / (4 × 0.85²) = 34.6 h there, past its 30 h deadline (methodology 2.12).
    violations = violations_of(places_scenario(max_per_node=2), PLAN, ESTIMATES)
    assert len(violations) == 2, violations
    assert_rejected(violations, "recurring_demand", "weekly in month 1 does 3.4 runs")
    assert_rejected(
        violations, "work:", "deadline work on spot", "takes 34.6021 h, past its 30 h deadline"
    )


def test_a_one_off_job_split_across_two_types_is_rejected() -> None:
    change = {("ft", "H100", HOUSE, 2): None, ("ft", "A100", A100_OD, 2): 1000.0}
    violations = violations_of(places_scenario(), changed(work=change), ESTIMATES)
    only(
        "training_demand", violations, "picked H100 but runs on A100 (A100|on_demand|1) in month 2"
    )
    only(
        "training_demand", violations, "gets 1,000 GPU-hours of work on H100", "needs exactly 2,000"
    )


@pytest.mark.parametrize(
    ("slot", "fragment"),
    [
        (("H100", OD, 2, 1), "an uncapped offer has no slots"),
        (("H100", A100_OD, 2, 1), "not a place of H100"),
        (("H100", SPOT, 0, 2), "width 0 is not a whole number >= 1"),
    ],
)
def test_slots_only_in_finite_places(slot: tuple[str, str, int, int], fragment: str) -> None:
    only("slots", violations_of(places_scenario(), changed(slots={slot: 1}), ESTIMATES), fragment)


def test_a_replica_width_that_does_not_divide_max_per_node_is_rejected() -> None:
    # A pair estimate that allows width 3 (as a measured gpus_per_replica once did):
    # month 2's two width-2 house replicas become one of width 3 and one of width 1 —
    # 4 GPUs pinned as before, 1,300 tokens/s — but three-GPU replicas do not pack into
    # 8-GPU servers (two servers hold four of them, not five).
    widths = (*CHAT_WIDTHS, width(3, 1000.0))
    estimates = [pair("chat", "H100", k=1, tps=300.0, widths=widths), *ESTIMATES[1:]]
    assert violations_of(places_scenario(), PLAN, estimates) == []
    change = {
        ("chat", "H100", HOUSE, 2, 2): None,
        ("chat", "H100", HOUSE, 3, 2): 1,
        ("chat", "H100", HOUSE, 1, 2): 1,
    }
    violations = violations_of(places_scenario(), changed(replicas=change), estimates)
    assert violations == [
        "replicas: 1 replicas of chat on H100 in house month 2: width 3 does not divide "
        "max_per_node 8 of H100; its replicas cannot pack into H100's servers"
    ]
