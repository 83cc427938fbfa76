"""Simple alternatives a plan is measured against: rent only, buy only, one GPU type.

Each baseline is the same scenario with fewer choices, solved by the same
engine under the same demand and budgets, so "saving against rent only"
means what finance expects: what the mix saves compared with renting
everything. A baseline that cannot meet the demand (say, buy only under a
small capex budget) is reported as having no plan, never as a zero cost.
"""

from __future__ import annotations

from dataclasses import replace

from optimizer.domain import OfferOption, Scenario
from optimizer.results import PairEstimate, Plan, SolverSettings

RENT_ONLY = "rent only"
BUY_ONLY = "buy only"
BEST_SINGLE_GPU = "best single GPU type"
BASELINE_NAMES = (RENT_ONLY, BUY_ONLY, BEST_SINGLE_GPU)


def rent_only(scenario: Scenario) -> Scenario:
    """No purchases: on-demand, spot and reserved offers only."""
    return replace(
        scenario,
        name=f"{scenario.name} ({RENT_ONLY})",
        allow_buy=False,
        offers=tuple(o for o in scenario.offers if o.option is not OfferOption.BUY),
    )


def buy_only(scenario: Scenario) -> Scenario:
    """Owned GPUs only: no on-demand, spot or reserved offers."""
    return replace(
        scenario,
        name=f"{scenario.name} ({BUY_ONLY})",
        allow_rent=False,
        offers=tuple(o for o in scenario.offers if o.option is OfferOption.BUY),
    )


def single_gpu(scenario: Scenario, gpu: str) -> Scenario:
    """Every GPU type but ``gpu`` excluded, as ``exclude_gpus`` would do: what exists
    (sheet Fleet) stays, so types with Fleet rows keep their GPUs but no offers."""
    others = tuple(g.name for g in scenario.gpus if g.name != gpu)
    kept = {gpu} | {r.gpu for r in scenario.fleet}
    return replace(
        scenario,
        name=f"{scenario.name} (only {gpu})",
        gpus=tuple(g for g in scenario.gpus if g.name in kept),
        offers=tuple(o for o in scenario.offers if o.gpu == gpu),
        measurements=tuple(m for m in scenario.measurements if m.gpu in kept),
        excluded_gpus=(*scenario.excluded_gpus, *others),
    )


def _cheapest(plans: list[Plan]) -> Plan | None:
    feasible = [p for p in plans if p.status.has_plan and p.total_cost is not None]
    return min(feasible, key=lambda p: p.total_cost or 0.0, default=None)


def solve_baselines(scenario: Scenario, settings: SolverSettings) -> dict[str, Plan]:
    """The three baselines' plans, keyed by :data:`BASELINE_NAMES`.

    "best single GPU type" solves once per GPU type and keeps the cheapest
    feasible plan; when no single type can carry every workload it is the
    first type's plan, with every type's reasons in its diagnostics.
    """
    # Baseline totals reach the Summary as savings, so they are checked like any plan.
    from optimizer.check.verify import solve_and_verify
    from optimizer.estimate.pairs import estimate_pairs

    # Pair estimates depend on GPUs, workloads and assumptions, not on offers: compute once.
    estimates = estimate_pairs(scenario)
    result = {
        RENT_ONLY: solve_and_verify(rent_only(scenario), settings, estimates),
        BUY_ONLY: solve_and_verify(buy_only(scenario), settings, estimates),
    }
    single = {g.name: single_gpu(scenario, g.name) for g in scenario.gpus}
    singles = [
        solve_and_verify(only, settings, _only(estimates, {g.name for g in only.gpus}))
        for only in single.values()
    ]
    best = _cheapest(singles)
    if best is None and singles:
        reasons = tuple(
            f"only {name}: {d}"
            for name, p in zip(single, singles, strict=True)
            for d in p.diagnostics
        )
        best = replace(singles[0], diagnostics=reasons)
    if best is not None:
        result[BEST_SINGLE_GPU] = best
    return result


def _only(estimates: tuple[PairEstimate, ...], gpus: set[str]) -> tuple[PairEstimate, ...]:
    return tuple(e for e in estimates if e.gpu in gpus)
