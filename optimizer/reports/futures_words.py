"""Futures in words (issue 19): what a future changes, and each shared decision.

Takes a :class:`~optimizer.futures.FutureSpec` or a
:class:`~optimizer.futures_result.SharedDecision` and the scenario; hands on
one short sentence for the workbook, the JSON and the terminal.
"""

from __future__ import annotations

from optimizer.domain import Scenario
from optimizer.futures import FutureSpec, PriceFactor
from optimizer.futures_result import SharedAction, SharedDecision


def _factor(value: float) -> str:
    return f"×{value:g}"


def _share(value: float) -> str:
    return f"{value * 100:.4g} %"


def _price_words(p: PriceFactor) -> str:
    what = " ".join(
        part for part in (p.gpu or "", p.option.price_words if p.option is not None else "") if part
    )
    return f"{what + ' ' if what else 'all '}prices {_factor(p.factor)}"


def describe_future(spec: FutureSpec) -> str:
    """``"demand ×1.5; chat-8b demand ×2; growth 8 %/month; H100 on-demand prices ×1.2"``."""
    parts: list[str] = []
    if spec.demand_factor != 1.0:
        parts.append(f"demand {_factor(spec.demand_factor)}")
    parts += [f"{w} demand {_factor(f)}" for w, f in spec.workload_demand_factors if f != 1.0]
    if spec.growth_per_month is not None:
        parts.append(f"growth {_share(spec.growth_per_month)} a month")
    parts += [f"{w} growth {_share(g)} a month" for w, g in spec.workload_growth]
    parts += [_price_words(p) for p in spec.price_factors if p.factor != 1.0]
    return "; ".join(parts) if parts else "as the scenario is written (no change)"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def describe_shared(decision: SharedDecision, scenario: Scenario) -> str:
    """``"buy 8 H100"``, ``"reserve 4 H100 for 12 months"``, ``"sell 2 A100 already owned"``."""
    count, gpu = decision.count, decision.gpu
    if decision.action is SharedAction.BUY_SERVERS:
        return f"buy {_plural(count, 'server')} for {gpu}"
    if decision.action is SharedAction.SELL_SERVERS:
        return f"sell {_plural(count, 'server')} of {gpu}"
    offer = next((o for o in scenario.all_offers if o.offer_id == decision.source), None)
    existing = scenario.existing(decision.source) is not None
    if decision.action is SharedAction.RESERVE:
        term = offer.term_months if offer is not None else None
        return f"reserve {count} {gpu}" + (f" for {_plural(term, 'month')}" if term else "")
    if decision.action is SharedAction.SELL:
        return f"sell {count} {gpu}" + (" already owned" if existing else "")
    return f"buy {count} {gpu}"
