from __future__ import annotations

from datetime import date

from optimizer.inputs.price_warnings import price_warnings
from tests.builders import gpu, offer, scenario, workload

TODAY = date(2026, 12, 2)


def _scenario(*offers: object) -> object:
    return scenario(
        [gpu("H100")], list(offers), [workload("w", "batch_inference", params_b=7, tokens=1e9)]
    )


def test_zero_price_is_named_with_its_row() -> None:
    s = _scenario(offer("H100", "on_demand", 0.0, row=7))
    assert price_warnings(s, TODAY) == [
        "warning: H100 on_demand offer, Prices row 7 has price 0 — the planner treats it as free; "
        "leave the row out if the price is unknown"
    ]


def test_source_two_years_old_is_stale_and_last_year_is_not() -> None:
    stale = offer("H100", "buy", 25_000.0, source="vendor quote, March 2024", row=3)
    fresh = offer("H100", "on_demand", 3.15, source="GPU buying guide, 2025", row=4)
    undated = offer("H100", "spot", 1.2, n=1, source="marketplace", row=5)
    warnings = price_warnings(_scenario(stale, fresh, undated), TODAY)
    assert len(warnings) == 1
    assert "H100 buy offer, Prices row 3 has a price sourced in 2024" in warnings[0]


def test_the_newest_year_named_counts() -> None:
    # "2019 list price, checked 2026" was checked this year: not stale.
    o = offer("H100", "buy", 25_000.0, source="2019 list price, checked 2026")
    assert price_warnings(_scenario(o), TODAY) == []


def test_an_offer_available_only_after_the_horizon_is_named() -> None:
    late = offer("H100", "on_demand", 3.15, available_from=99, row=9)
    s = _scenario(late, offer("H100", "buy", 25_000.0, available_from=36, row=3))
    assert price_warnings(s, TODAY) == [
        "warning: H100 on_demand offer, Prices row 9 is available from month 99, after the "
        "36-month horizon of scenario 'test', which therefore never uses it"
    ]
