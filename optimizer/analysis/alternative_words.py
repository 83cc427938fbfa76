"""What an alternative changes against the optimum, in one sentence finance can read.

"buys 16 H100 instead of 8; reserves up to 0 A100 at once instead of 32:
+1.4 % cost (+USD 2,300), capex +USD 200,000, opex -USD 118,000". Figures
come from :mod:`optimizer.analysis.goal_values` (recomputed from the plans).
"""

from __future__ import annotations

from optimizer.analysis.goal_values import TypeFleet, capex_of, fleet_summary
from optimizer.results import Plan


def opex_of(plan: Plan) -> float:
    """Undiscounted cash out over the horizon that is not a purchase (before any credit)."""
    return (plan.cash_out or 0.0) - capex_of(plan)


def _usd(amount: float, currency: str = "USD") -> str:
    sign = "+" if amount > 0 else "−" if amount < 0 else "±"
    return f"{sign}{currency} {abs(amount):,.0f}"


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
    share = (total - best) / best if best else 0.0
    money = (
        f"{share:+.1%} cost ({_usd(total - best)}), capex "
        f"{_usd(capex_of(alternative) - capex_of(optimum))}, opex "
        f"{_usd(opex_of(alternative) - opex_of(optimum))}"
    ).replace("-", "−")
    if not changes:
        return f"same GPUs as the optimum: {money}"
    return "; ".join(changes) + ": " + money
