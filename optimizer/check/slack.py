"""The checker's rule for a near-optimal alternative: its cost is within the slack.

Given the optimum's and the alternative's checked totals (each recomputed by
:func:`optimizer.check.rules.check_plan` from the plan's decisions, never taken
from the solver), the alternative may cost at most the optimum's total plus
``slack`` times its size, ``optimum + slack × |optimum|``
(for a positive total ``(1 + slack) × optimum``; a plan whose residual credit
outweighs its costs has a negative total, and the limit still lies above it),
plus half a cent (what finance sees).
"""

from __future__ import annotations

from optimizer.check.tolerances import HALF_CENT
from optimizer.currency import USD, money_text


def slack_violations(
    alternative_total: float, optimum_total: float, slack: float, currency: str = USD
) -> list[str]:
    """One line when ``alternative_total`` exceeds ``optimum + slack × |optimum|`` (+ half a cent)."""
    limit = optimum_total + slack * abs(optimum_total)
    if alternative_total <= limit + HALF_CENT:
        return []
    return [
        f"slack: the alternative's total cost {money_text(alternative_total, currency)} exceeds "
        f"the limit {money_text(limit, currency)}, the optimum's "
        f"{money_text(optimum_total, currency)} plus {slack:.2%} of its size"
    ]
