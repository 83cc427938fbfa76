"""Properties every optimal plan must have, on small random scenarios.

Each would fail for a model that is not truly minimising the documented
cost: a looser budget or a cheaper offer can only help, and money is linear
in prices. Every solve goes through the independent checker, so every plan
found here is also checked constraint by constraint.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from optimizer.check.rules import check_plan
from optimizer.domain import CostCategory, OfferOption, Scenario
from optimizer.results import Plan, SolverSettings, SolveStatus
from tests.checked import solve_checked
from tests.random_scenarios import random_scenario

CENT = 0.005
EXACT = SolverSettings(gap=0.0)
SEEDS = st.integers(min_value=0, max_value=100_000)
FEW = settings(max_examples=25, deadline=None)


def total(plan: Plan) -> float:
    assert plan.total_cost is not None
    return plan.total_cost


def without_budgets(s: Scenario) -> Scenario:
    return replace(s, budget_total=None, budget_capex=None, budget_monthly=None)


def with_budget(s: Scenario, budget: str, usd: float) -> Scenario:
    if budget == "budget_total":
        return replace(s, budget_total=usd)
    if budget == "budget_capex":
        return replace(s, budget_capex=usd)
    assert budget == "budget_monthly"
    return replace(s, budget_monthly=usd)


@FEW
@given(seed=SEEDS)
def test_every_plan_passes_the_checker(seed: int) -> None:
    plan = solve_checked(random_scenario(seed), EXACT)
    assert plan.status in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE), plan.diagnostics


@FEW
@given(seed=SEEDS, jobs=st.integers(min_value=1, max_value=3))
def test_every_larger_plan_passes_the_checker(seed: int, jobs: int) -> None:
    """Several jobs sharing pools over up to 8 months, monthly budgets: still checked clean."""
    plan = solve_checked(random_scenario(seed, longest_horizon=8, extra_jobs=jobs), EXACT)
    assert plan.status in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE), plan.diagnostics


@FEW
@given(
    seed=SEEDS,
    budget=st.sampled_from(["budget_total", "budget_capex", "budget_monthly"]),
    tight=st.sampled_from([0.0, 0.5, 0.8, 0.95]),
    loose=st.sampled_from([1.0, 1.1, 2.0]),
)
def test_more_budget_never_costs_more(seed: int, budget: str, tight: float, loose: float) -> None:
    s = without_budgets(random_scenario(seed))
    free = solve_checked(s, EXACT)
    if not free.status.has_plan:
        return
    # Budgets near what the unconstrained plan spends, so that they bind.
    spent = {
        # What each budget limits: sales (cash in) never count against one.
        "budget_total": free.cash_out or 0.0,
        "budget_capex": sum(
            m.amounts.get(CostCategory.PURCHASE, 0.0) + m.amounts.get(CostCategory.NODE, 0.0)
            for m in free.cash_flow
        ),
        "budget_monthly": max((m.opex for m in free.cash_flow), default=0.0),
    }[budget]
    tighter = solve_checked(with_budget(s, budget, spent * tight), EXACT)
    looser = solve_checked(with_budget(s, budget, spent * loose), EXACT)
    # The unconstrained plan meets any budget at least what it spends.
    assert looser.status is SolveStatus.OPTIMAL, looser.diagnostics
    assert total(looser) == pytest.approx(total(free), abs=CENT)
    if tighter.status.has_plan:
        assert total(looser) <= total(tighter) + CENT


@FEW
@given(
    seed=SEEDS,
    which=st.integers(min_value=0, max_value=20),
    factor=st.sampled_from([0.0, 0.5, 0.9]),
)
@example(seed=152, which=14, factor=0.0)
def test_a_lower_price_never_raises_the_total(seed: int, which: int, factor: float) -> None:
    s = random_scenario(seed)
    if not s.offers:
        return
    cut = s.offers[which % len(s.offers)]
    if cut.option is OfferOption.BUY and s.assumptions.sells:
        # At market value a used GPU sells for a share of its type's lowest buy
        # price (model v2 §E): a cheaper buy offer also lowers what every GPU of
        # that type already planned sells for, so the total may rise (seed 152:
        # $803.16 -> $922.64, the residual credit gone with a free offer). At
        # book value each GPU's credit is a share of its own price only.
        s = replace(
            s,
            assumptions=replace(s.assumptions, residual_value="book", credit_residual_value=None),
        )
    before = solve_checked(s, EXACT)
    cheaper = replace(
        s, offers=tuple(replace(o, price=o.price * factor) if o is cut else o for o in s.offers)
    )
    after = solve_checked(cheaper, EXACT)
    if before.status.has_plan:
        # The old plan is still feasible (budgets only get easier) and costs no more.
        assert after.status is SolveStatus.OPTIMAL, after.diagnostics
        assert total(after) <= total(before) + CENT


@FEW
@given(seed=SEEDS, k=st.sampled_from([0.5, 2.0, 3.0]))
def test_scaling_every_price_scales_the_total(seed: int, k: float) -> None:
    s = random_scenario(seed)

    def scaled(x: float | None) -> float | None:
        return None if x is None else x * k

    # Budgets are money too: they scale with the prices, or feasibility would change.
    s_k = replace(
        s,
        offers=tuple(replace(o, price=o.price * k) for o in s.offers),
        assumptions=replace(
            s.assumptions, electricity_per_kwh=s.assumptions.electricity_per_kwh * k
        ),
        budget_total=scaled(s.budget_total),
        budget_capex=scaled(s.budget_capex),
        budget_monthly=scaled(s.budget_monthly),
    )
    base, times_k = solve_checked(s, EXACT), solve_checked(s_k, EXACT)
    assert base.status is times_k.status
    if base.status.has_plan:
        assert total(times_k) == pytest.approx(k * total(base), rel=1e-6, abs=1e-6)
        assert times_k.cash_out == pytest.approx(k * (base.cash_out or 0.0), rel=1e-6, abs=1e-6)


MUTATIONS = [
    "less work",
    "one more GPU bought",
    "a reservation dropped",
    "an extra rented hour",
    "another type picked",
    "one replica fewer",
    "total off by a cent",
    "fleet owned off by one",
]


def corrupted(plan: Plan, mutation: str) -> Plan | None:
    """The plan with one thing wrong, or None when the plan has nothing to corrupt that way."""
    d = plan.decisions
    assert d is not None
    s = plan.scenario
    if mutation == "less work":
        busy = sorted(k for k, hours in d.work.items() if hours > 1e-3)
        if not busy:
            return None
        first_work = busy[0]
        work = {**d.work, first_work: d.work[first_work] * 0.9}
        return replace(plan, decisions=replace(d, work=work))
    if mutation == "one more GPU bought":
        buys = [o for o in s.offers if o.option.value == "buy" and o.price > 0]
        if not buys:
            return None
        key = (buys[0].offer_id, buys[0].available_from)
        return replace(
            plan, decisions=replace(d, purchases={**d.purchases, key: d.purchases.get(key, 0) + 1})
        )
    if mutation == "a reservation dropped":
        held = sorted(k for k, n in d.reservations.items() if n > 0)
        if not held:
            return None
        return replace(
            plan,
            decisions=replace(
                d, reservations={**d.reservations, held[0]: d.reservations[held[0]] - 1}
            ),
        )
    if mutation == "an extra rented hour":
        rental = {o.offer_id for o in s.offers if o.option.value in ("on_demand", "spot")}
        rented = sorted(k for k in d.work if k[2] in rental)
        if not rented:
            return None
        key = rented[0]
        return replace(plan, decisions=replace(d, work={**d.work, key: d.work[key] + 1.0}))
    if mutation == "another type picked":
        if not d.picks:
            return None
        name, picked = next(iter(d.picks.items()))
        others = [g.name for g in s.gpus if g.name != picked]
        if not others:
            return None
        return replace(plan, decisions=replace(d, picks={**d.picks, name: others[0]}))
    if mutation == "one replica fewer":
        serving = sorted(k for k, n in d.replicas.items() if n > 0)
        if not serving:
            return None
        return replace(
            plan,
            decisions=replace(d, replicas={**d.replicas, serving[0]: d.replicas[serving[0]] - 1}),
        )
    if mutation == "total off by a cent":
        return replace(plan, total_cost=total(plan) + 0.01)
    assert mutation == "fleet owned off by one"
    first = plan.fleet[0]
    return replace(plan, fleet=(replace(first, owned=first.owned + 1), *plan.fleet[1:]))


@FEW
@given(seed=SEEDS, mutation=st.sampled_from(MUTATIONS))
def test_a_corrupted_plan_is_always_rejected(seed: int, mutation: str) -> None:
    """The checker is not a rubber stamp: one thing wrong in a solved plan is always caught."""
    s = random_scenario(seed)
    plan = solve_checked(s, EXACT)
    if not plan.status.has_plan:
        return
    bad = corrupted(plan, mutation)
    if bad is not None:
        assert check_plan(s, bad).violations, mutation
