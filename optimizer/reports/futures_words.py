"""Futures in words (issue 19): what a future changes, and each shared decision.

Takes a :class:`~optimizer.domain.futures.FutureSpec` or a
:class:`~optimizer.results.futures.SharedDecision` and the scenario; hands on
one short sentence for the workbook, the JSON and the terminal.
"""

from __future__ import annotations

from collections.abc import Callable

from optimizer.domain import Scenario
from optimizer.domain.futures import FutureSpec, PriceFactor
from optimizer.results import Plan, SolveStatus
from optimizer.results.futures import Bounded, SharedAction, SharedDecision


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


UNPROVEN_NOTE = (
    "some plans were stopped by the time limit: regret, EVPI and VSS are proven only "
    "within the ranges shown (raise --time-limit to narrow them)"
)


def bounded_words(figure: Bounded | None, money: Callable[[float], str]) -> str:
    """``"$40.00"`` when proven, else ``"at least $0.00, at most $1,210.50"`` (never a
    negative figure read as a fact: the range's floor is 0 at worst)."""
    if figure is None:
        return "not known"
    if figure.exact:
        return money(figure.value)
    low = f"at least {money(figure.low)}" if figure.low is not None else ""
    high = f"at most {money(figure.high)}" if figure.high is not None else ""
    return ", ".join(part for part in (low, high) if part) + " (not proven)"


def plan_proof_words(plan: Plan | None) -> str:
    """How far a plan is proven: ``""`` when optimal, else ``"stopped by the time limit, proven gap 6.40 %"``."""
    if plan is None or plan.status is SolveStatus.OPTIMAL:
        return ""
    if plan.status is not SolveStatus.TIME_LIMIT:
        return plan.status.value
    gap = "gap not known" if plan.gap is None else f"proven gap {plan.gap:.2%}"
    return f"stopped by the time limit, {gap}"
