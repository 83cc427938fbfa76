"""The checker counts a deadline gang per month (model v2 §C: ``n_wgt`` "computed per
month, since growth changes a run's size").

A batch job, one run a month of 60 GPU-hours in month 1, growing 50 % a month,
deadline 42 h, copy width 1: month 1's run needs ceil(60 / 42) = 2 copies at
once, month 2's run (90 GPU-hours) ceil(90 / 42) = 3. H100 on a spot offer
capped at 8 GPUs ($1/h) and on demand (uncapped, $3/h); 4 GPUs a server. On
spot each run still finishes in time (methodology 2.12): 60 / (2 × 0.85) =
35.3 h, 90 / (3 × 0.85) = 35.3 h, or 41.5 h at 0.85² over two servers.
"""

from __future__ import annotations

from optimizer.domain import Assumptions, Scenario
from optimizer.results import Decisions
from tests.builders import gpu, offer, scenario, workload
from tests.check.test_check import assert_rejected, pair, violations_of

SPOT, OD = "H100|spot|1", "H100|on_demand|1"
ESTIMATES = [pair("grow", "H100", gpu_hours=60.0)]


def growing(max_per_node: int = 4) -> Scenario:
    return scenario(
        [gpu("H100", max_per_node=max_per_node)],
        [offer("H100", "spot", 1.0, max_units=8), offer("H100", "on_demand", 3.0)],
        [
            workload(
                "grow",
                "batch_inference",
                tokens=1e9,
                growth_per_month=0.5,
                deadline_hours=42.0,
                interruptible=True,
            )
        ],
        assumptions=Assumptions(credit_residual_value=False, spot_efficiency=0.85),
        horizon_months=2,
    )


def plan(month_2_slots: int, month_2_hours: float) -> Decisions:
    """Month 1's gang of 2 in two slots of width 1; month 2's slots of width 1."""
    return Decisions(
        work={("grow", "H100", SPOT, 1): 60.0 / 0.85, ("grow", "H100", SPOT, 2): month_2_hours},
        slots={("H100", SPOT, 1, 1): 2, ("H100", SPOT, 1, 2): month_2_slots},
    )


def test_month_2s_larger_run_needs_a_run_slot_of_its_own() -> None:
    # Month 2's gang of 3 fits one server of 4: 90 useful hours at 0.85. The offer's 8
    # GPUs are more than that server, so a run may not spread over all the width-1
    # slots (it would span more servers and yield less): it takes run slots of its
    # own, of 3 or 4 GPUs inside the server (methodology 2.12), one run at a time.
    assert violations_of(growing(), plan(3, 90.0 / 0.85), ESTIMATES) == []
    violations = violations_of(growing(), plan(2, 90.0 / 0.85), ESTIMATES)
    assert violations == [
        f"slot_hours: {SPOT} month 2 class 1: run slots of their own (grow 3 GPUs in run "
        "slots of 3 to 4 GPUs (105.882 h, one run each at a time)) need 3 GPUs, more than "
        "the 2 slots of width 1 hold (2)"
    ]


def test_run_slots_hold_one_run_at_a_time() -> None:
    # 3,000 paid hours need 3,000 / 730 = 4.1 GPUs all month: 5 GPUs cannot be split
    # into run slots of 3 or 4, 6 can (two of 3).
    assert violations_of(growing(), plan(6, 3000.0), ESTIMATES) == []
    violations = violations_of(growing(), plan(5, 3000.0), ESTIMATES)
    assert_rejected(violations, "slot_hours", "grow 6 GPUs in run slots", "the 5 slots")


def test_the_spot_yield_follows_the_months_gang() -> None:
    # With 2 GPUs a server month 1's gang of 2 fits one server (0.85) but month 2's
    # gang of 3 spans two (0.85²): 90 / 0.85 paid hours do 85 % of the month's work.
    violations = violations_of(growing(max_per_node=2), plan(4, 90.0 / 0.85), ESTIMATES)
    assert_rejected(
        violations,
        "recurring_demand: batch job grow in month 2 does 1.275 runs (85.0000% of its work), needs 1.5",
    )
    assert violations_of(growing(max_per_node=2), plan(4, 90.0 / 0.85**2), ESTIMATES) == []
