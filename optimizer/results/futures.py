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

Each is a difference of plans' costs, exact only when both plans are proven
optimal. A plan stopped by the time limit costs at least its proven bound and
at most what it costs, so each figure then lies in a :class:`Bounded` range
(issue 33: regrets and EVPIs of −$12,427.10 were read as facts when the plans
made alone were stopped by the limit). None of the three is ever below 0 for
proven plans: the shared plan in a future is a plan of that future, and the
expected future's decisions re-planned are a plan of the two-stage problem.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from optimizer.domain import Scenario
from optimizer.domain.futures import Futures, FutureSpec
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
            # A reservation of sheet Fleet was made before month 1 (its count is
            # fixed): no decision of the plan's (issue 35: listed as a new one).
            made_before = action is SharedAction.RESERVE and scenario.existing(source) is not None
            if month <= decide_by_month and count and not made_before:
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


# Half a cent: two costs closer than this are the same figure (the solver's proof tolerance).
SAME_CENT = 0.005


def proven_floor(plan: Plan | None) -> float | None:
    """The proven lower bound on the cost of any plan of ``plan``'s scenario.

    A plan proven optimal (to the solver's tolerance) is its own floor; one
    stopped early has its solver's bound, when the solver gave one.
    """
    if plan is None or plan.total_cost is None:
        return None
    if plan.status is SolveStatus.OPTIMAL:
        return plan.total_cost
    bound = plan.solver.bound if plan.solver is not None else None
    if bound is None or not math.isfinite(bound):
        return None
    return min(bound, plan.total_cost)


def proven(plan: Plan | None) -> bool:
    """The plan is proven optimal: figures computed from its cost are exact."""
    return plan is not None and plan.status is SolveStatus.OPTIMAL


@dataclass(frozen=True)
class Bounded:
    """A figure computed from plans' costs, and the range its true value is proven to lie in.

    ``value`` is the difference of the plans found; ``low`` and ``high`` are
    proven bounds (None: no bound known on that side). When every plan is
    proven, ``low == high == value``.
    """

    value: float
    low: float | None
    high: float | None

    @property
    def exact(self) -> bool:
        return self.low is not None and self.high is not None and self.high - self.low < SAME_CENT


def _range(value: float, low: float | None, high: float | None) -> Bounded:
    """``value`` with bounds, never below 0 (the figures are never negative when proven)."""
    low = 0.0 if low is None else max(0.0, low)
    if high is not None:
        high = max(high, low)
    if high is not None and high - low < SAME_CENT:
        return Bounded(max(0.0, value), low, high)
    return Bounded(value, low, high)


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

    @property
    def regret_bounds(self) -> Bounded | None:
        """The regret's proven range: the plan made alone may cost more than the
        future's optimum (not below its floor), and the regret is never below 0
        (the shared plan here is a plan of this future)."""
        regret = self.regret
        if regret is None or self.plan.total_cost is None:
            return None
        floor = proven_floor(self.alone)
        # The shared plan's cost here is exact: it is this future's cost of that plan.
        high = None if floor is None else self.plan.total_cost - floor
        if proven(self.alone):
            return _range(regret, regret, regret)
        return _range(regret, regret, high)


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

    @property
    def expected_floor(self) -> float | None:
        """Proven lower bound on any shared plan's expected cost (the plan's own when proven)."""
        if self.expected_cost is None:
            return None
        if self.status is SolveStatus.OPTIMAL:
            return self.expected_cost
        if self.bound is None or not math.isfinite(self.bound):
            return None
        return min(self.bound, self.expected_cost)

    def _floors(self, plans: list[Plan | None]) -> float | None:
        return _expected(
            [(o.probability, proven_floor(p)) for o, p in zip(self.outcomes, plans, strict=True)]
        )

    @property
    def evpi_bounds(self) -> Bounded | None:
        """EVPI's proven range: the best shared plan costs at least ``expected_floor``
        and the futures' own optima at most the plans found alone (low); the shared
        plan found costs what it costs, the optima at least their floors (high)."""
        evpi, floor = self.evpi, self.expected_floor
        if evpi is None or self.expected_cost is None:
            return None
        alone_floor = self._floors([o.alone for o in self.outcomes])
        wait_and_see = self.wait_and_see or 0.0
        low = None if floor is None else floor - wait_and_see
        high = None if alone_floor is None else self.expected_cost - alone_floor
        return _range(evpi, low, high)

    @property
    def vss_bounds(self) -> Bounded | None:
        """VSS's proven range: the expected future's decisions re-planned cost at least
        their floors (low) and at most the plans found; the best shared plan at least
        ``expected_floor`` (high)."""
        vss, floor = self.vss, self.expected_floor
        if vss is None or self.expected_cost is None:
            return None
        replans = [o.expected_future_plan for o in self.outcomes]
        replan_floor = self._floors(replans)
        low = None if replan_floor is None else replan_floor - self.expected_cost
        high = None if floor is None else (self.expected_future_cost or 0.0) - floor
        return _range(vss, low, high)

    @property
    def proven(self) -> bool:
        """Every plan behind the figures is proven optimal: the figures are exact."""
        plans = [p for o in self.outcomes for p in (o.plan, o.alone, o.expected_future_plan)]
        return self.status is SolveStatus.OPTIMAL and all(p is None or proven(p) for p in plans)
