"""What a sweep keeps of each variant's plan, and the plan's regime.

Takes a ``results.Plan`` (in the worker that solved it); hands on a small
:class:`PlanSummary` (status, costs, a :class:`FleetSignature`), its
:class:`Regime` (what is bought, reserved and rented: a change of regime is a
flip) and a :class:`VariantOutcome` per variant to ``sweep_search`` and ``sweep``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from optimizer.analysis.sweep_params import Setting
from optimizer.domain import CostCategory, Scenario
from optimizer.results import Plan, SolverSettings, SolveStatus

SolveFn = Callable[[Scenario, SolverSettings], Plan]

# Hours and dollars below this are rounding noise of the solver, not a choice.
_NOISE = 1e-6


@dataclass(frozen=True)
class FleetSignature:
    """What a plan chose, per GPU type, in a few numbers (all over the horizon).

    Each tuple is sorted by GPU name and holds only the types with a non-zero
    figure: GPUs bought, the most reserved GPUs active in any month, paid
    on-demand hours, paid spot hours.
    """

    bought: tuple[tuple[str, int], ...] = ()
    reserved: tuple[tuple[str, int], ...] = ()
    rented_hours: tuple[tuple[str, float], ...] = ()
    spot_hours: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Regime:
    """The shape of a plan, without hours: two plans with one regime are the
    same decision (what to buy, what to reserve, what to rent), at most
    differently sized rentals. A change of regime is a flip."""

    status: SolveStatus
    bought: tuple[tuple[str, int], ...] = ()
    reserved: tuple[tuple[str, int], ...] = ()
    rented: tuple[str, ...] = ()
    spot: tuple[str, ...] = ()

    def describe(self) -> str:
        if not self.status.has_plan:
            return f"no plan ({self.status.value})"
        # One clause per option, types grouped: "buying 9 RTX 4090 and 2 H100; renting
        # H100 on demand" reads unambiguously where a flat list of types would not.
        parts = []
        if self.bought:
            parts.append("buying " + _and([f"{n} {g}" for g, n in self.bought]))
        if self.reserved:
            parts.append("reserving " + _and([f"{n} {g}" for g, n in self.reserved]))
        if self.rented:
            parts.append("renting " + _and(list(self.rented)) + " on demand")
        if self.spot:
            parts.append("renting " + _and(list(self.spot)) + " on spot")
        return "; ".join(parts) if parts else "no GPUs"

    def change_to(self, other: Regime) -> str:
        """How the plan changes from this regime to ``other``, in words.

        Two short plans read best in full ("from renting H100 on demand to
        buying 1 H100"); for larger ones only what differs is said, since the
        unchanged part would bury the change.
        """
        before, after = self.describe(), other.describe()
        if not (self.status.has_plan and other.status.has_plan) or (
            ";" not in before and ";" not in after
        ):
            return f"the plan switches from {before} to {after}"
        return "the plan changes: " + "; ".join(self._differences(other))

    def _differences(self, other: Regime) -> list[str]:
        changes = []
        for verb, gerund, mine, theirs in (
            ("buy", "buying", dict(self.bought), dict(other.bought)),
            ("reserve", "reserving", dict(self.reserved), dict(other.reserved)),
        ):
            for gpu in sorted(set(mine) | set(theirs)):
                was, now = mine.get(gpu, 0), theirs.get(gpu, 0)
                if was == now:
                    continue
                if not was:
                    changes.append(f"starts to {verb} {now} {gpu}")
                elif not now:
                    changes.append(f"stops {gerund} {gpu} ({was} before)")
                else:
                    changes.append(f"{verb}s {now} {gpu} instead of {was}")
        for how, mine_set, theirs_set in (
            ("on demand", set(self.rented), set(other.rented)),
            ("on spot", set(self.spot), set(other.spot)),
        ):
            changes += [f"starts renting {g} {how}" for g in sorted(theirs_set - mine_set)]
            changes += [f"stops renting {g} {how}" for g in sorted(mine_set - theirs_set)]
        return changes


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@dataclass(frozen=True)
class PlanSummary:
    """The part of a plan a sweep keeps: small enough to ship back from a worker."""

    status: SolveStatus
    total_cost: float | None
    cash_out: float | None
    costs: dict[CostCategory, float]
    fleet: FleetSignature
    diagnostics: tuple[str, ...] = ()
    # Wall time of the worker's solve (estimate, build, solve); not part of the answer.
    seconds: float = field(default=0.0, compare=False)
    gap: float | None = field(default=None, compare=False)  # proven gap of a plan stopped early

    @property
    def regime(self) -> Regime:
        if not self.status.has_plan:
            return Regime(self.status)
        return Regime(
            status=SolveStatus.OPTIMAL,  # a time-limited plan is still the same fleet
            bought=self.fleet.bought,
            reserved=self.fleet.reserved,
            rented=tuple(g for g, _ in self.fleet.rented_hours),
            spot=tuple(g for g, _ in self.fleet.spot_hours),
        )


@dataclass(frozen=True)
class VariantOutcome:
    index: int
    setting: Setting
    summary: PlanSummary

    def value(self, key: str) -> float | None:
        return dict(self.setting).get(key)


def summarize_plan(plan: Plan) -> PlanSummary:
    """The few numbers of a plan a sweep keeps (the Plan itself stays in the worker)."""
    bought: dict[str, int] = {}
    reserved: dict[str, int] = {}
    rented: dict[str, float] = {}
    spot: dict[str, float] = {}
    for row in plan.fleet:
        bought[row.gpu] = bought.get(row.gpu, 0) + row.bought
        reserved[row.gpu] = max(reserved.get(row.gpu, 0), row.reserved)
        rented[row.gpu] = rented.get(row.gpu, 0.0) + row.rented_hours
        spot[row.gpu] = spot.get(row.gpu, 0.0) + row.spot_hours
    fleet = FleetSignature(
        bought=tuple(sorted((g, n) for g, n in bought.items() if n > 0)),
        reserved=tuple(sorted((g, n) for g, n in reserved.items() if n > 0)),
        rented_hours=tuple(sorted((g, h) for g, h in rented.items() if h > _NOISE)),
        spot_hours=tuple(sorted((g, h) for g, h in spot.items() if h > _NOISE)),
    )
    return PlanSummary(
        status=plan.status,
        total_cost=plan.total_cost,
        cash_out=plan.cash_out,
        costs=dict(plan.costs),
        fleet=fleet,
        diagnostics=plan.diagnostics[:3] if not plan.status.has_plan else (),
        gap=plan.gap,
    )


def solve_summary(solve: SolveFn, scenario: Scenario, settings: SolverSettings) -> PlanSummary:
    """What a worker runs: one full solve, summarised before it travels back."""
    started = time.perf_counter()
    plan = solve(scenario, settings)
    return replace(summarize_plan(plan), seconds=time.perf_counter() - started)
