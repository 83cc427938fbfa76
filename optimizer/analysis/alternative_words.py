"""What an alternative changes against the optimum, in one sentence finance can read.

"buys 16 H100 instead of 8; reserves up to 0 A100 at once instead of 32:
+1.4 % cost (+$2,300), capex +$200,000, opex −$118,000" (in the plan's currency). Figures
come from :mod:`optimizer.analysis.goal_values` (recomputed from the plans).
"""

from __future__ import annotations

from optimizer.analysis.goal_values import TypeFleet, capex_of, fleet_summary
from optimizer.currency import money_text
from optimizer.results import Plan


def opex_of(plan: Plan) -> float:
    """Undiscounted cash out over the horizon that is not a purchase (before any credit)."""
    return (plan.cash_out or 0.0) - capex_of(plan)


def _signed(amount: float, currency: str) -> str:
    """``+$2,300`` or ``−EUR 118,000``: a difference, whole units, in the plan's currency."""
    sign = "+" if amount > 0 else "−" if amount < 0 else "±"
    return sign + money_text(abs(amount), currency, decimals=0)


def _changes(base: dict[str, TypeFleet], other: dict[str, TypeFleet]) -> list[str]:
    empty = TypeFleet("", 0, 0, 0, 0.0)
    out: list[str] = []
    for gpu in dict.fromkeys([*base, *other]):
        a, b = base.get(gpu, empty), other.get(gpu, empty)
        if a.bought != b.bought:
            out.append(f"buys {b.bought:,} {gpu} instead of {a.bought:,}")
        if a.peak_reserved != b.peak_reserved:
            out.append(
                f"reserves up to {b.peak_reserved:,} {gpu} at once instead of {a.peak_reserved:,}"
            )
        if round(a.rented_hours) != round(b.rented_hours):
            out.append(
                f"rents {b.rented_hours:,.0f} {gpu} GPU-hours instead of {a.rented_hours:,.0f}"
            )
    return out


def describe_change(optimum: Plan, alternative: Plan) -> str:
    """One sentence: the fleet changes, then the cost, capex and opex differences."""
    if not alternative.status.has_plan or not optimum.status.has_plan:
        return "no plan"
    base = {t.gpu: t for t in fleet_summary(optimum)}
    other = {t.gpu: t for t in fleet_summary(alternative)}
    changes = _changes(base, other)
    total, best = alternative.total_cost or 0.0, optimum.total_cost or 0.0
    share = (total - best) / abs(best) if best else 0.0  # of its size: a dearer plan is "+"
    currency = optimum.currency
    money = (
        f"{share:+.1%} cost ({_signed(total - best, currency)}), capex "
        f"{_signed(capex_of(alternative) - capex_of(optimum), currency)}, opex "
        f"{_signed(opex_of(alternative) - opex_of(optimum), currency)}"
    ).replace("-", "−")
    if not changes:
        return f"same GPUs as the optimum: {money}"
    return "; ".join(changes) + ": " + money
