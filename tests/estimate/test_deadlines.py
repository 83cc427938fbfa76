"""Deadline gangs (model v2 §C): a pair is out when no place of its type holds the gang.

The gang is ``n = k × ceil(run GPU-hours / (k × deadline_hours))`` GPUs at once
in one place. H100 SXM 80 GB, 989 TFLOPS; default Assumptions.
"""

from __future__ import annotations

from typing import Any

import pytest

from optimizer.domain import ExistingGpus, FleetKind, Measurement, Offer, Workload
from optimizer.estimate.pairs import estimate_pair
from optimizer.results import PairEstimate
from tests.builders import gpu, measured, offer, scenario, workload

H100 = gpu("H100")
# 7B LoRA on 1 × H100 (32 layers of 4,096, 4,096-token sequences): (4 × 7e9 + 12 × 32 ×
# 4,096 × 4,096) × 1e9 / (989e12 × 0.4 × 0.9) / 3,600 = 26.8716 GPU-hours.
LORA_HOURS = (2.8e10 + 12 * 32 * 4096 * 4096) * 1e9 / (989e12 * 0.4 * 0.9) / 3600
LORA = {"params_b": 7, "tokens": 1e9, "layers": 32, "hidden_size": 4096}


def _one(
    w: Workload, offers: list[Offer], measurements: list[Measurement] | None = None
) -> PairEstimate:
    return estimate_pair(scenario([H100], offers, [w], measurements), w, H100)


def _job(**kw: Any) -> Workload:
    # Measured: 12 GPUs a copy, 1,000 GPU-hours; at 48 h: ceil(1,000 / (12 × 48) = 1.74) = 2
    # copies, a gang of 24 × H100.
    return workload("pre", "pretraining", params_b=70, tokens=1e12, deadline_hours=48, **kw)


JOB_MEASURED = [measured("pre", "H100", gpus_per_replica=12, gpu_hours=1000.0)]
CAPPED = [
    offer("H100", "buy", 25_000.0, max_units=8, row=2),
    offer("H100", "on_demand", 3.0, max_units=16, row=5),
    offer("H100", "reserved", 2.0, term_months=12, max_units=20, row=7),
    offer("H100", "spot", 1.5, row=9),  # uncapped, but only for interruptible work
]


def test_a_deadline_gang_wider_than_every_place_is_ruled_out_with_numbers() -> None:
    est = _one(_job(), CAPPED, JOB_MEASURED)
    assert not est.allowed
    assert est.reason == (
        "a run of 1,000.0 GPU-hours needs 24 × H100 at once to finish within 48 h"
        " (2 copies of 12 GPUs); the largest place is reserved row 7 with max_units 20"
    )
    assert est.gpus_per_replica == 12 and est.gpu_hours is None


def test_the_house_may_be_the_largest_place() -> None:
    offers = [
        offer("H100", "buy", 25_000.0, max_units=10, row=2),
        offer("H100", "buy", 24_000.0, 2, max_units=12, row=3),
        offer("H100", "on_demand", 3.0, max_units=16, row=5),
    ]
    # The house may grow to 10 + 12 = 22 GPUs, still short of 24.
    est = _one(_job(), offers, JOB_MEASURED)
    assert est.reason.endswith(
        "the largest place is the house, whose buy offers allow 22 GPUs in all"
    )


@pytest.mark.parametrize(
    ("extra", "interruptible"),
    [
        (offer("H100", "spot", 1.5, row=9), True),  # uncapped spot, interruptible work
        (offer("H100", "on_demand", 3.0, 2, row=10), False),  # uncapped on-demand
        (offer("H100", "reserved", 2.0, 2, term_months=12, row=11), False),  # uncapped reserved
        (offer("H100", "reserved", 2.0, 2, term_months=12, max_units=24, row=11), False),
        (offer("H100", "on_demand", 3.0, 2, max_units=24, row=10), False),
        (offer("H100", "buy", 25_000.0, 2, row=3), False),  # the house may grow without a cap
        (offer("H100", "buy", 25_000.0, 2, max_units=16, row=3), False),  # house: 8 + 16 = 24
    ],
)
def test_one_place_that_holds_the_gang_keeps_the_pair(extra: Any, interruptible: bool) -> None:
    offers = [o for o in CAPPED if o.option.value != "spot"] + [extra]
    est = _one(_job(interruptible=interruptible), offers, JOB_MEASURED)
    assert est.allowed and est.gpu_hours == 1000.0


def test_uncapped_spot_holds_only_interruptible_work() -> None:
    assert not _one(_job(), CAPPED, JOB_MEASURED).allowed
    assert _one(_job(interruptible=True), CAPPED, JOB_MEASURED).allowed


def test_a_type_without_a_place_for_the_workload_stays_allowed() -> None:
    # No offers at all, or only spot for work that is not interruptible: the model just
    # cannot use the type (as for any pair without offers).
    assert _one(_job(), [], JOB_MEASURED).allowed
    assert _one(_job(), [offer("H100", "spot", 1.5, max_units=4)], JOB_MEASURED).allowed


def test_without_a_deadline_the_places_are_not_looked_at() -> None:
    job = workload("pre", "pretraining", params_b=70, tokens=1e12)
    assert _one(job, CAPPED, JOB_MEASURED).allowed


def test_one_off_training_gang_of_one_gpu_copies() -> None:
    # 26.8716 GPU-hours within 2 h: ceil(13.44) = 14 copies of 1 GPU; on-demand holds 8.
    job = workload("lora", "lora", deadline_hours=2, **LORA)
    est = _one(job, [offer("H100", "on_demand", 3.0, max_units=8, row=4)])
    assert not est.allowed
    assert est.reason == (
        f"a run of {LORA_HOURS:,.1f} GPU-hours needs 14 × H100 at once to finish within 2 h"
        " (14 copies of 1 GPU); the largest place is on_demand row 4 with max_units 8"
    )
    # Within 3.5 h: ceil(7.68) = 8 copies, which on-demand holds.
    job3 = workload("lora", "lora", deadline_hours=3.5, **LORA)
    assert _one(job3, [offer("H100", "on_demand", 3.0, max_units=8, row=4)]).allowed


def test_recurring_runs_size_the_gang_by_one_run() -> None:
    # runs_per_month = 4: tokens and gpu_hours are per run (26.8716 GPU-hours), not per month
    # (107.5): within 3.5 h a gang of 8 fits 8 GPUs; within 3 h ceil(8.96) = 9 does not.
    cap8 = [offer("H100", "reserved", 2.0, term_months=12, max_units=8, row=6)]
    run35 = workload("lora", "lora", runs_per_month=4, deadline_hours=3.5, **LORA)
    est = _one(run35, cap8)
    assert est.allowed and est.gpu_hours == pytest.approx(LORA_HOURS)
    run3 = workload("lora", "lora", runs_per_month=4, deadline_hours=3, **LORA)
    assert _one(run3, cap8).reason.startswith(
        f"a run of {LORA_HOURS:,.1f} GPU-hours needs 9 × H100 at once to finish within 3 h"
    )
    # A measured gpu_hours is per run too: 16 GPU-hours within 3 h = 6 copies.
    rec = workload("lora", "lora", params_b=7, tokens=1e9, runs_per_month=4, deadline_hours=3)
    assert _one(rec, cap8, [measured("lora", "H100", gpu_hours=16.0)]).allowed


def test_batch_inference_gang_by_a_months_tokens() -> None:
    # 2 × 8e9 × 1e10 / (989e12 × 0.5) / 3,600 = 89.877 GPU-hours a month (one run).
    # Within 10 h: ceil(8.99) = 9 copies > 8 on-demand GPUs; within 12 h: ceil(7.49) = 8.
    od8 = [offer("H100", "on_demand", 3.0, max_units=8, row=3)]
    slow = workload("batch", "batch_inference", params_b=8, tokens=1e10, deadline_hours=12)
    assert _one(slow, od8).allowed
    fast = workload("batch", "batch_inference", params_b=8, tokens=1e10, deadline_hours=10)
    est = _one(fast, od8)
    assert not est.allowed
    assert est.reason == (
        "a run of 89.9 GPU-hours needs 9 × H100 at once to finish within 10 h"
        " (9 copies of 1 GPU); the largest place is on_demand row 3 with max_units 8"
    )


def test_a_copy_wider_than_every_place_needs_no_second_copy_to_be_out() -> None:
    # 12 GPUs a copy, 100 GPU-hours within 48 h: one copy, still wider than 8 GPUs anywhere.
    offers = [offer("H100", "on_demand", 3.0, max_units=8, provider="Lambda")]
    est = _one(_job(), offers, [measured("pre", "H100", gpus_per_replica=12, gpu_hours=100.0)])
    assert est.reason == (
        "a run of 100.0 GPU-hours needs 12 × H100 at once to finish within 48 h"
        " (one copy of 12 GPUs); the largest place is on_demand offer H100|on_demand|1 (Lambda)"
        " with max_units 8"
    )


def test_one_copy_wider_than_every_place_is_ruled_out_without_a_deadline() -> None:
    # A 24-GPU copy fits no capped place (the largest, reserved row 7, holds 20).
    w = workload("pre", "pretraining", params_b=70, tokens=1e12)
    wide = [measured("pre", "H100", gpus_per_replica=24, gpu_hours=1000.0)]
    est = _one(w, CAPPED, wide)
    assert not est.allowed
    assert est.reason == (
        "one copy needs 24 × H100 at once; the largest place is reserved row 7 with max_units 20"
    )
    # At 20 GPUs a copy the reservation holds it.
    fits = [measured("pre", "H100", gpus_per_replica=20, gpu_hours=1000.0)]
    assert _one(w, CAPPED, fits).allowed


def _fleet(*rows: tuple[str, int, int | None]) -> tuple[ExistingGpus, ...]:
    """Fleet rows of H100: (kind, count, months_left)."""
    return tuple(
        ExistingGpus(
            f"H100|fleet|{i}",
            "H100",
            count,
            FleetKind(kind),
            2.0,
            months_left=left,
            label=f"Fleet row {i + 1}",
        )
        for i, (kind, count, left) in enumerate(rows, start=1)
    )


def _with_fleet(offers: list[Offer], fleet: tuple[ExistingGpus, ...]) -> PairEstimate:
    w = _job()
    s = scenario([H100], offers, [w], JOB_MEASURED, fleet=fleet)
    return estimate_pair(s, w, H100)


def test_owned_fleet_gpus_are_in_the_house_a_gang_may_use() -> None:
    # 16 owned + a buy offer for 8 more: the house holds the 24-GPU gang.
    offers = [offer("H100", "buy", 25_000.0, max_units=8, row=2)]
    assert _with_fleet(offers, _fleet(("owned", 16, None))).allowed
    # And without any buy offer: 24 existing GPUs hold it.
    assert _with_fleet([], _fleet(("owned", 24, None))).allowed


def test_an_existing_reservation_is_a_place_of_its_own() -> None:
    assert _with_fleet([], _fleet(("reserved", 24, 6))).allowed
    # The reservation and the house are two places: 12 + 12 do not hold 24 at once.
    est = _with_fleet([], _fleet(("owned", 12, None), ("reserved", 12, 6)))
    assert not est.allowed
    assert est.reason.endswith(
        "the largest place is the house, with its 12 existing GPUs and no buy offer"
    )


def test_the_house_counts_existing_and_bought_gpus_in_the_reason() -> None:
    offers = [offer("H100", "buy", 25_000.0, max_units=4, row=2)]
    est = _with_fleet(offers, _fleet(("owned", 16, None)))
    assert not est.allowed
    assert est.reason.endswith(
        "the largest place is the house, with 16 existing GPUs and buy offers allowing 4 more"
    )


def test_only_places_that_can_hold_gpus_in_the_window_count() -> None:
    """The audit's case: reservations whose term does not fit the horizon, and an offer
    available after the window, were counted, so the pair stayed allowed with no place
    the model could use (which made its demand rows empty)."""
    w = _job()  # a 24-GPU gang; months 1-2 of a 2-month horizon
    offers = [
        offer("H100", "on_demand", 3.0, max_units=16, row=5),
        offer("H100", "reserved", 2.0, term_months=12, row=7),  # no 12-month term fits
        offer("H100", "on_demand", 3.5, 2, available_from=3, row=8),  # after the horizon
    ]
    s = scenario([H100], offers, [w], JOB_MEASURED, horizon_months=2)
    est = estimate_pair(s, w, H100)
    assert not est.allowed
    assert est.reason.endswith("the largest place is on_demand row 5 with max_units 16")
    # With a horizon the reservation fits in, it holds the gang.
    longer = scenario([H100], offers, [w], JOB_MEASURED, horizon_months=12)
    assert estimate_pair(longer, w, H100).allowed


def test_an_existing_reservation_that_ends_before_the_window_is_no_place() -> None:
    late = _job(start_month=4, end_month=6)
    s = scenario([H100], [], [late], JOB_MEASURED, fleet=_fleet(("reserved", 24, 3)))
    assert estimate_pair(s, late, H100).allowed  # no place at all: the model says no plan
    s = scenario(
        [H100],
        [offer("H100", "on_demand", 3.0, max_units=16, row=5)],
        [late],
        JOB_MEASURED,
        fleet=_fleet(("reserved", 24, 3)),
    )
    assert estimate_pair(s, late, H100).reason.endswith(
        "the largest place is on_demand row 5 with max_units 16"
    )
