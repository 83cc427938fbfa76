"""A future is the scenario with its figures changed (optimizer.domain.future_scenario)."""

from __future__ import annotations

import pytest

from optimizer.domain import OfferOption, Scenario
from optimizer.domain.future_scenario import future_scenario
from optimizer.domain.futures import FutureSpec, PriceFactor, future_name
from tests.builders import gpu, offer, scenario, workload


def _base() -> Scenario:
    return scenario(
        gpus=[gpu("H100"), gpu("A100")],
        offers=[
            offer("H100", "buy", 30000.0),
            offer("H100", "on_demand", 3.0),
            offer("A100", "on_demand", 2.0),
        ],
        workloads=[
            workload("chat", "realtime_inference", params_b=8, tokens_per_second=1000.0),
            workload("docs", "batch_inference", params_b=8, tokens=1e9, growth_per_month=0.1),
            workload("tune", "lora", params_b=8, tokens=1e8),
        ],
        horizon_months=6,
    )


def test_a_demand_factor_scales_every_month_of_realtime_and_batch_but_never_training() -> None:
    base = _base()
    spec = FutureSpec("high", 0.5, demand_factor=2.0, workload_demand_factors=(("docs", 1.5),))
    high = future_scenario(base, spec)
    chat, docs, tune = high.workloads
    assert chat.demand_in(4) == pytest.approx(2000.0)
    assert docs.demand_in(3) == pytest.approx(1e9 * 1.1**2 * 3.0)
    assert docs.demand_factor(3) == pytest.approx(1.1**2 * 3.0)
    assert tune == base.workloads[2]
    assert high.name == future_name(base.name, "high") and high.futures is None


def test_growth_is_replaced_for_every_scaled_workload_and_per_workload_growth_wins() -> None:
    spec = FutureSpec("fast", 1.0, growth_per_month=0.2, workload_growth=(("chat", 0.5),))
    chat, docs, _ = future_scenario(_base(), spec).workloads
    assert chat.demand_in(3) == pytest.approx(1000.0 * 1.5**2)
    assert docs.demand_factor(3) == pytest.approx(1.2**2)


def test_price_factors_multiply_in_order_and_keep_offer_ids() -> None:
    base = _base()
    spec = FutureSpec(
        "dear",
        1.0,
        price_factors=(
            PriceFactor(1.5, option=OfferOption.ON_DEMAND),
            PriceFactor(2.0, gpu="H100", option=OfferOption.ON_DEMAND),
        ),
    )
    dear = future_scenario(base, spec)
    assert [o.offer_id for o in dear.offers] == [o.offer_id for o in base.offers]
    assert [o.price for o in dear.offers] == pytest.approx([30000.0, 9.0, 3.0])
    assert FutureSpec("same", 1.0).changes_nothing and not spec.changes_nothing
