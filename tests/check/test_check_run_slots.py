"""The checker on run slots (methodology 2.12, "Deadline gangs on a capped spot offer").

H100, 4 GPUs a server, spot $1/h capped at 8 GPUs, spot_efficiency 0.95. Two
batch jobs of one 100-GPU-hour run a month, copies of 1 GPU:
- ``a``, deadline 60 h: a gang of 2 (ceil(100 / 60)) in one server. The 8 GPUs
  are more than that server, so its runs take run slots of their own: of
  widths 2 to 4, 2 covers the 8 GPUs (4 run slots) and is the narrowest. Its
  100 / 0.95 = 105.263 paid hours need one run slot of 2 GPUs.
- ``b``, deadline 24 h: a gang of 5 (ceil(100 / 24)) over two servers (yield
  0.95² = 0.9025, a run takes 22.2 h). The 8 GPUs fit in those two servers, so
  its runs may spread over every slot of width 1 (model v2 §C as written): it
  needs 5 slots of width 1, beside ``a``'s run slot, for 110.803 paid hours.
Both are class 1 (width-1 deadline slots).
"""

from __future__ import annotations

from optimizer.domain import Assumptions, Scenario
from optimizer.results import Decisions
from tests.builders import gpu, offer, scenario, workload
from tests.check.test_check import assert_rejected, pair, violations_of

SPOT = "H100|spot|1"
ESTIMATES = [pair("a", "H100", gpu_hours=100.0), pair("b", "H100", gpu_hours=100.0)]
A_PAID, B_PAID = 100.0 / 0.95, 100.0 / 0.95**2


def two_jobs() -> Scenario:
    return scenario(
        [gpu("H100", max_per_node=4)],
        [offer("H100", "spot", 1.0, max_units=8), offer("H100", "on_demand", 3.0)],
        [
            workload(
                name,
                "batch_inference",
                tokens=1e9,
                runs_per_month=1.0,
                deadline_hours=deadline,
                interruptible=True,
            )
            for name, deadline in (("a", 60.0), ("b", 24.0))
        ],
        assumptions=Assumptions(credit_residual_value=False, spot_efficiency=0.95),
        horizon_months=1,
    )


def plan(slots: int, b_paid: float = B_PAID) -> Decisions:
    return Decisions(
        work={("a", "H100", SPOT, 1): A_PAID, ("b", "H100", SPOT, 1): b_paid},
        slots={("H100", SPOT, 1, 1): slots},
    )


def test_a_run_slot_beside_a_spreading_gang_lays_out() -> None:
    # 2 GPUs in a's run slot + 5 slots for b = 7 slots of width 1.
    assert violations_of(two_jobs(), plan(7), ESTIMATES) == []


def test_the_spreading_gang_does_not_count_the_run_slot_as_its_own() -> None:
    # 6 slots: a's run slot takes 2, so b has 4 at once, not the 5 its gang needs.
    violations = violations_of(two_jobs(), plan(6), ESTIMATES)
    assert violations == [
        f"deadline_slots: b works 110.803 h in {SPOT} month 1, but its gang of 5 copies × 1 "
        "GPUs needs 5 slots of width 1 there beside other gangs' run slots of 2 GPUs; the "
        "place has 4"
    ]


def test_the_rest_of_the_class_fits_what_the_run_slots_leave() -> None:
    # 3,700 paid hours of b (more runs than needed is allowed) against 730 × (7 − 2).
    violations = violations_of(two_jobs(), plan(7, b_paid=3700.0), ESTIMATES)
    assert_rejected(
        violations,
        f"slot_hours: {SPOT} month 1 class 1: 3,700 h of work, more than u 1 × 730 h × "
        "(1 × 7 slots − 2 GPUs in run slots) = 3,650 h",
    )
