"""What planning for several futures produced (issue 19): the writers take only this.

:class:`FuturesResult` holds the shared plan's outcome in every future (a
plain, checked :class:`~optimizer.results.Plan` of that future's scenario),
each future planned alone (wait and see), and the plan made for the expected
future alone, its shared decisions kept and the rest re-planned in each
future. The figures finance reads are derived here, once:

* expected cost: the probability-weighted total cost of the shared plan;
* regret of a future: its shared plan's cost minus the cost of the plan
  made for it alone;
* EVPI (expected value of perfect information): expected cost minus the
  probability-weighted cost of the plans made alone, what knowing the future
  in advance would be worth;
* VSS (value of the stochastic solution): the expected cost of deciding now
  as if the expected future were sure, minus the expected cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from optimizer.domain import Scenario
from optimizer.futures import Futures, FutureSpec
from optimizer.results import Decisions, Plan, SolverInfo, SolveStatus


class SharedAction(StrEnum):
    """What a shared decision does."""

    BUY = "buy"
    SELL = "sell"
    RESERVE = "reserve"
    BUY_SERVERS = "buy servers"
    SELL_SERVERS = "sell servers"


@dataclass(frozen=True)
class SharedDecision:
    """One decision every future shares: ``count`` GPUs (or servers) at the start of ``month``.

    ``source`` is the offer id (a Fleet row's id for existing GPUs sold), or the
    GPU type for servers.
    """

    month: int
    action: SharedAction
    source: str
    gpu: str
    count: int


def shared_decisions(
    scenario: Scenario, decisions: Decisions, decide_by_month: int
) -> tuple[SharedDecision, ...]:
    """The decisions of months 1..``decide_by_month`` (nonzero ones), by month then kind."""
    gpu_of = {o.offer_id: o.gpu for o in scenario.all_offers}
    rows: list[SharedDecision] = []
    for action, table in (
        (SharedAction.BUY, decisions.purchases),
        (SharedAction.SELL, decisions.sales),
        (SharedAction.RESERVE, decisions.reservations),
    ):
        for (source, month), count in table.items():
            if month <= decide_by_month and count:
                rows.append(SharedDecision(month, action, source, gpu_of[source], count))
    for action, table in (
        (SharedAction.BUY_SERVERS, decisions.server_purchases),
        (SharedAction.SELL_SERVERS, decisions.server_sales),
    ):
        for (gpu, month), count in table.items():
            if month <= decide_by_month and count:
                rows.append(SharedDecision(month, action, gpu, gpu, count))
    order = list(SharedAction)
    return tuple(sorted(rows, key=lambda r: (r.month, order.index(r.action), r.source)))


@dataclass(frozen=True)
class FutureOutcome:
    """One future: the shared plan in it, the plan made for it alone, and the
    expected-future plan's shared decisions re-planned in it."""

    spec: FutureSpec
    plan: Plan  # the shared plan's operation in this future (checked)
    alone: Plan | None = None  # this future planned on its own (checked)
    # The expected-future plan's shared decisions kept, the rest re-planned in
    # this future; None when not computed, a plan without a plan when infeasible.
    expected_future_plan: Plan | None = None

    @property
    def probability(self) -> float:
        return self.spec.probability

    @property
    def regret(self) -> float | None:
        """How much more the shared plan costs here than the plan made for this future."""
        if self.plan.total_cost is None or self.alone is None or self.alone.total_cost is None:
            return None
        return self.plan.total_cost - self.alone.total_cost


def _expected(values: list[tuple[float, float | None]]) -> float | None:
    if any(v is None for _, v in values):
        return None
    return sum(p * v for p, v in values if v is not None)


@dataclass(frozen=True)
class FuturesResult:
    """A scenario planned for its futures at once: the writers' only input."""

    scenario: Scenario  # as written, with its futures
    futures: Futures
    status: SolveStatus  # of the shared (two-stage) solve
    gap: float | None  # proven relative gap of the expected cost
    bound: float | None  # proven lower bound on the expected cost, when known
    outcomes: tuple[FutureOutcome, ...]  # in the futures' order
    shared: tuple[SharedDecision, ...]  # months 1..decide_by_month
    expected_future: Plan | None = None  # the plan made for the expected future alone
    solver: SolverInfo | None = None  # of the two-stage solve (its build and solve seconds)
    diagnostics: tuple[str, ...] = ()
    # Wall seconds of each step as it ran (the expected future alone, its
    # re-plans, the two-stage build and solve, what was left of each future
    # alone) and the total, in order.
    seconds: tuple[tuple[str, float], ...] = ()

    @property
    def currency(self) -> str:
        return self.scenario.assumptions.currency

    @property
    def expected_cost(self) -> float | None:
        """Probability-weighted total cost of the shared plan."""
        if not self.status.has_plan:
            return None
        return _expected([(o.probability, o.plan.total_cost) for o in self.outcomes])

    @property
    def wait_and_see(self) -> float | None:
        """Probability-weighted cost of the plans made for each future alone."""
        return _expected(
            [(o.probability, o.alone.total_cost if o.alone else None) for o in self.outcomes]
        )

    @property
    def evpi(self) -> float | None:
        """Expected value of perfect information: expected cost minus wait and see."""
        cost, alone = self.expected_cost, self.wait_and_see
        return None if cost is None or alone is None else cost - alone

    @property
    def expected_future_cost(self) -> float | None:
        """Expected cost of deciding now as if the expected future were sure (EEV)."""
        return _expected(
            [
                (
                    o.probability,
                    o.expected_future_plan.total_cost if o.expected_future_plan else None,
                )
                for o in self.outcomes
            ]
        )

    @property
    def vss(self) -> float | None:
        """Value of the stochastic solution: EEV minus the expected cost."""
        cost, eev = self.expected_cost, self.expected_future_cost
        return None if cost is None or eev is None else eev - cost
