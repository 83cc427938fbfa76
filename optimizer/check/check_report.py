"""What the independent checker hands on: the money it recomputed and every violation found.

Apart from ``rules`` (which fills it) so that ``reported``, which compares a
plan's own figures with it, needs no import of ``rules`` back.
"""

from __future__ import annotations

from dataclasses import dataclass

from optimizer.domain import CostCategory


@dataclass(frozen=True)
class CheckReport:
    """What the checker recomputed, and everything it found wrong.

    ``total_cost`` is the objective (discounted costs minus the discounted
    residual credit), ``cash_out`` undiscounted cash before credit,
    ``residual_credit`` the undiscounted value credited (market or book); ``costs`` holds
    each category's discounted total and ``cash_flow`` the undiscounted cash
    of each month 1..T by category. An empty ``violations`` means the plan
    is feasible and every number it reports is right.
    """

    total_cost: float
    cash_out: float
    residual_credit: float
    costs: dict[CostCategory, float]
    cash_flow: dict[int, dict[CostCategory, float]]
    violations: list[str]
    residual_credit_discounted: float = 0.0
    # methodology 2.16: serving replicas moved, and what the search minimised
    # (total_cost + change_cost × moves; total_cost where change_cost is 0)
    moves: int = 0
    objective: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.violations
