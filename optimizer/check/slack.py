"""The checker's rule for a near-optimal alternative: its cost is within the slack.

Given the optimum's and the alternative's checked totals (each recomputed by
:func:`optimizer.check.rules.check_plan` from the plan's decisions, never taken
from the solver), the alternative may cost at most ``(1 + slack)`` times the
optimum, plus half a cent (what finance sees).
"""

from __future__ import annotations

from optimizer.check.tolerances import HALF_CENT
from optimizer.currency import USD, money_text


def slack_violations(
    alternative_total: float, optimum_total: float, slack: float, currency: str = USD
) -> list[str]:
    """One line when ``alternative_total`` exceeds ``(1 + slack) * optimum_total`` (+ half a cent)."""
    limit = (1.0 + slack) * optimum_total
    if alternative_total <= limit + HALF_CENT:
        return []
    return [
        f"slack: the alternative's total cost {money_text(alternative_total, currency)} exceeds "
        f"(1 + {slack:g}) x the optimum's {money_text(optimum_total, currency)} = "
        f"{money_text(limit, currency)}"
    ]
