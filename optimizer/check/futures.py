"""Check a plan for several futures (issue 19) from the plans' decisions alone.

Takes a :class:`~optimizer.results.futures.FuturesResult`; hands on every
violation found (empty: the result may be reported). Each future's plan is
checked by :func:`~optimizer.check.rules.check_plan` against the future's
scenario, made here from the scenario as written and the future's spec
(never taken from the plan). On top, across the futures:

* the probabilities sum to 1;
* every shared decision (months ``1..decide_by_month``: purchases, sales,
  reservation starts, server purchases and sales) is the same in every
  future's plan;
* the expected cost equals the probability-weighted sum of the plans'
  checked total costs, to the cent;
* with ``max_regret`` / ``max_regret_share``, each future's checked cost is
  at most its alone plan's checked cost plus the bound (to the cent).
* each re-plan of the expected future's decisions (what the VSS is made of)
  keeps the expected future's plan's decisions of months ``1..decide_by_month``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from optimizer.check.rules import check_plan
from optimizer.currency import money_text
from optimizer.domain import Scenario
from optimizer.domain.future_scenario import future_scenario
from optimizer.domain.futures import PROBABILITY_TOLERANCE
from optimizer.results import PairEstimate, Plan
from optimizer.results.futures import FuturesResult, SharedDecision, shared_decisions

CENT = 0.01
Estimator = Callable[[Scenario], Sequence[PairEstimate]]


def _words(d: SharedDecision) -> str:
    return f"{d.action.value} {d.count} of {d.source} in month {d.month}"


def _differences(a: tuple[SharedDecision, ...], b: tuple[SharedDecision, ...]) -> str:
    only_a = [x for x in a if x not in b]
    only_b = [x for x in b if x not in a]
    parts = [f"only in the first: {', '.join(map(_words, only_a))}"] if only_a else []
    if only_b:
        parts.append(f"only in this one: {', '.join(map(_words, only_b))}")
    return "; ".join(parts)


def _checked_cost(
    result: FuturesResult, k: int, plan: Plan, label: str, estimator: Estimator | None
) -> tuple[float, list[str]]:
    spec = result.outcomes[k].spec
    scenario = future_scenario(result.scenario, spec)
    report = check_plan(scenario, plan, None if estimator is None else estimator(scenario))
    found = [f"future {spec.name!r} ({label}): {v}" for v in report.violations]
    if plan.total_cost is not None and abs(plan.total_cost - report.total_cost) > CENT:
        currency = result.currency
        found.append(
            f"future {spec.name!r} ({label}): reported total cost "
            f"{money_text(plan.total_cost, currency)} but the checker computes "
            f"{money_text(report.total_cost, currency)}"
        )
    return report.total_cost, found


def check_futures(result: FuturesResult, estimator: Estimator | None = None) -> list[str]:
    """Every violation of the futures' plans, alone and together (empty: all good).

    ``estimator`` gives a future's estimates (default: the estimator's own).
    """
    found: list[str] = []
    futures = result.futures
    total = sum(f.probability for f in futures.futures)
    if abs(total - 1.0) > PROBABILITY_TOLERANCE:
        found.append(f"the futures' probabilities sum to {total:g}, not 1")
    if not result.status.has_plan:
        return found
    D = futures.decide_by_month
    costs: list[float] = []
    first: tuple[SharedDecision, ...] | None = None
    for k, outcome in enumerate(result.outcomes):
        plan = outcome.plan
        name = outcome.spec.name
        if plan.decisions is None:
            found.append(f"future {name!r} has no plan although the result has one")
            return found
        cost, wrong = _checked_cost(result, k, plan, "shared plan", estimator)
        found += wrong
        costs.append(cost)
        shared = shared_decisions(result.scenario, plan.decisions, D)
        if first is None:
            first = shared
        elif shared != first:
            found.append(
                f"future {name!r} does not share the decisions of months 1..{D} with "
                f"future {result.outcomes[0].spec.name!r}: {_differences(first, shared)}"
            )
    expected = sum(o.probability * c for o, c in zip(result.outcomes, costs, strict=True))
    reported = result.expected_cost
    if reported is not None and abs(reported - expected) > CENT:
        found.append(
            f"expected cost {money_text(reported, result.currency)} is not the "
            f"probability-weighted sum of the plans' checked costs "
            f"{money_text(expected, result.currency)}"
        )
    found += _regret_violations(result, costs, estimator)
    found += _replan_violations(result)
    return found


def _replan_violations(result: FuturesResult) -> list[str]:
    expected = result.expected_future
    if expected is None or expected.decisions is None:
        return []
    D = result.futures.decide_by_month
    kept = shared_decisions(result.scenario, expected.decisions, D)
    found: list[str] = []
    for outcome in result.outcomes:
        replan = outcome.expected_future_plan
        if replan is None or replan.decisions is None:
            continue
        shared = shared_decisions(result.scenario, replan.decisions, D)
        if shared != kept:
            found.append(
                f"future {outcome.spec.name!r}: the plan deciding as if the expected future "
                f"were sure does not keep that future's decisions of months 1..{D}: "
                f"{_differences(kept, shared)}"
            )
    return found


def _regret_violations(
    result: FuturesResult, costs: list[float], estimator: Estimator | None
) -> list[str]:
    futures = result.futures
    if futures.max_regret is None and futures.max_regret_share is None:
        return []
    found: list[str] = []
    for k, outcome in enumerate(result.outcomes):
        alone = outcome.alone
        name = outcome.spec.name
        if alone is None or alone.decisions is None:
            continue  # no plan of its own: no bound (the result's diagnostics say so)
        alone_cost, wrong = _checked_cost(result, k, alone, "alone", estimator)
        found += wrong
        bounds = []
        if futures.max_regret is not None:
            bounds.append(futures.max_regret)
        if futures.max_regret_share is not None:
            bounds.append(futures.max_regret_share * abs(alone_cost))
        regret = costs[k] - alone_cost
        if regret > min(bounds) + CENT:
            currency = result.currency
            found.append(
                f"future {name!r}: regret {money_text(regret, currency)} is above the bound "
                f"{money_text(min(bounds), currency)}"
            )
    return found
