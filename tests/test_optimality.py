"""The solver's plan is the cheapest: compared, to the cent, with a brute-force
enumeration that does not use the model.

For small random scenarios (``tests.random_scenarios``) every integer decision
is enumerated within bounds that provably contain an optimum:

* owned GPUs of a type never exceed ``ceil(D / (max_utilization * H))`` and
  GPUs of one reservation never exceed ``ceil(D / H)``, where ``D`` is the most
  GPU-hours that type could be asked for in one month. Prices are positive, so
  in any optimal plan trimmed of over-delivered work, the last GPU bought (or a
  reservation) whose hours are not needed could be dropped at a saving: each
  one that remains is needed in some month, which gives the bounds.
* realtime replicas of a type never exceed ``ceil(tokens_per_second / cap)``:
  fewer replicas never cost more.

Given the integer decisions, the rest is continuous and cheap to solve
exactly without an LP: every source of GPU-hours of a type and month (owned at
its marginal energy cost, reserved at zero, each on-demand and spot offer at
its price, discounted) has a constant cost per hour up to its capacity, so a
type-month's cost is convex in the hours drawn. The realtime service's fixed
hours take the cheapest non-spot hours first; the one flexible job (training
on its picked type over its window, or batch in each month across types) then
has a single covering constraint over the remaining segments, which the
greedy choice by cost per unit of work solves exactly (fractional knapsack).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import pytest

from optimizer.check.money import discount_factor
from optimizer.check.rules import check_plan
from optimizer.domain import Kind, Offer, OfferOption, Scenario, Workload
from optimizer.estimate.pairs import estimate_pairs
from optimizer.results import Decisions, PairEstimate, SolverSettings, SolveStatus, WorkHours
from tests.check.test_check import consistent_plan
from tests.checked import solve_checked
from tests.random_scenarios import random_scenario

CENT = 0.005
# Enumerations larger than this are left out to keep the suite fast.
MAX_COMBINATIONS = 8000
CASES = 60
EXACT = SolverSettings(gap=0.0)


class TooBig(Exception):
    """The enumeration of this scenario would take too long for the suite."""


@dataclass(frozen=True)
class Source:
    """GPU-hours of one type and month at one constant price."""

    name: str  # "own", "res" or an offer id
    option: OfferOption | None  # None for owned and reserved hours
    cost: float  # discounted USD per paid hour
    cash: float  # undiscounted USD per paid hour
    capacity: float  # paid hours; math.inf when uncapped
    work_per_hour: float  # 1, or spot_efficiency for spot


@dataclass(frozen=True)
class Enumerated:
    total_cost: float
    decisions: Decisions
    combinations: int


@dataclass(frozen=True)
class IntegerChoice:
    purchases: dict[tuple[str, int], int]
    reservations: dict[tuple[str, int], int]
    pick: str | None
    replicas: dict[tuple[str, int], int]  # (gpu, month) of the realtime service


def cheapest_by_enumeration(s: Scenario, estimates: Sequence[PairEstimate]) -> Enumerated | None:
    """The cheapest plan over every integer choice, or None when none is feasible."""
    assert s.budget_monthly is None, "the greedy completion does not handle monthly budgets"
    pairs = {
        (e.workload, e.gpu): e
        for e in estimates
        if e.allowed and (e.gpu_hours or e.tokens_per_second_per_replica)
    }
    flexible = [w for w in s.workloads if w.kind is not Kind.REALTIME_INFERENCE]
    realtime = [w for w in s.workloads if w.kind is Kind.REALTIME_INFERENCE]
    assert len(flexible) == 1 and len(realtime) <= 1
    job, service = flexible[0], (realtime[0] if realtime else None)
    choices = list(_integer_choices(s, pairs, job, service))
    best: tuple[float, Decisions] | None = None
    for choice in choices:
        completed = _complete(s, pairs, job, service, choice)
        if completed is not None and (best is None or completed[0] < best[0]):
            best = completed
    if best is None:
        return None
    return Enumerated(best[0], best[1], len(choices))


# ---------------------------------------------------------------- integer choices


def _most_hours_a_month(
    s: Scenario,
    pairs: Mapping[tuple[str, str], PairEstimate],
    job: Workload,
    service: Workload | None,
) -> dict[str, float]:
    h = s.assumptions.hours_per_month
    most: dict[str, float] = {}
    for g in s.gpus:
        per_month = []
        for t in s.months:
            hours = 0.0
            e = pairs.get((job.name, g.name))
            if e is not None and t in job.window(s.horizon_months):
                hours += e.gpu_hours or 0.0
            if service is not None and t in service.window(s.horizon_months):
                r = pairs.get((service.name, g.name))
                if r is not None:
                    hours += _replica_bound(service, r) * (r.gpus_per_replica or 1) * h
            per_month.append(hours)
        most[g.name] = max(per_month)
    return most


def _replica_bound(service: Workload, e: PairEstimate) -> int:
    return math.ceil((service.tokens_per_second or 0.0) / (e.tokens_per_second_per_replica or 1.0))


def _vectors(slots: Sequence[tuple[str, int]], most: int) -> Iterator[dict[tuple[str, int], int]]:
    """Every way to put 0..most units in total into the slots."""
    for counts in itertools.product(range(most + 1), repeat=len(slots)):
        if sum(counts) <= most:
            yield {slot: n for slot, n in zip(slots, counts, strict=True) if n}


def _purchase_options(s: Scenario, gpu: str, most_owned: int) -> list[dict[tuple[str, int], int]]:
    buys = s.offers_of(gpu, OfferOption.BUY)
    slots = [(o.offer_id, t) for o in buys for t in s.months if t >= o.available_from]
    found = []
    for v in _vectors(slots, most_owned):
        if all(
            o.max_units is None
            or sum(n for (oid, _), n in v.items() if oid == o.offer_id) <= o.max_units
            for o in buys
        ):
            found.append(v)
    return found


def _reservation_options(s: Scenario, o: Offer, most: int) -> list[dict[tuple[str, int], int]]:
    term = o.term_months or 1
    starts = [t for t in s.months if t >= o.available_from and t + term - 1 <= s.horizon_months]
    found = []
    for counts in itertools.product(range(most + 1), repeat=len(starts)):
        v = {(o.offer_id, st): n for st, n in zip(starts, counts, strict=True) if n}
        active = [sum(n for (_, st), n in v.items() if st <= t < st + term) for t in s.months]
        if o.max_units is None or max(active, default=0) <= o.max_units:
            found.append(v)
    return found


def _replica_options(
    s: Scenario, pairs: Mapping[tuple[str, str], PairEstimate], service: Workload | None, t: int
) -> list[dict[tuple[str, int], int]]:
    if service is None or t not in service.window(s.horizon_months):
        return [{}]
    usable = [
        (g.name, pairs[service.name, g.name]) for g in s.gpus if (service.name, g.name) in pairs
    ]
    found = []
    for counts in itertools.product(*(range(_replica_bound(service, e) + 1) for _, e in usable)):
        served = sum(
            n * (e.tokens_per_second_per_replica or 0.0)
            for n, (_, e) in zip(counts, usable, strict=True)
        )
        if served >= (service.tokens_per_second or 0.0):
            found.append({(g, t): n for n, (g, _) in zip(counts, usable, strict=True) if n})
    return found


def _integer_choices(
    s: Scenario,
    pairs: Mapping[tuple[str, str], PairEstimate],
    job: Workload,
    service: Workload | None,
) -> Iterator[IntegerChoice]:
    a = s.assumptions
    h = a.hours_per_month
    most = _most_hours_a_month(s, pairs, job, service)
    purchase_sets = [
        _purchase_options(s, g.name, math.ceil(most[g.name] / (a.max_utilization * h)))
        for g in s.gpus
    ]
    reservation_sets = [
        _reservation_options(s, o, math.ceil(most[o.gpu] / h))
        for o in s.offers
        if o.option is OfferOption.RESERVED
    ]
    picks: list[str | None] = (
        [g.name for g in s.gpus if (job.name, g.name) in pairs] if job.kind.is_training else [None]
    )
    replica_sets = [_replica_options(s, pairs, service, t) for t in s.months]
    size = (
        math.prod(len(x) for x in purchase_sets)
        * math.prod(len(x) for x in reservation_sets)
        * len(picks)
        * math.prod(len(x) for x in replica_sets)
    )
    if size > MAX_COMBINATIONS:
        raise TooBig(size)
    for purchases in itertools.product(*purchase_sets):
        for reservations in itertools.product(*reservation_sets):
            for pick in picks:
                for replicas in itertools.product(*replica_sets):
                    yield IntegerChoice(
                        purchases={k: v for d in purchases for k, v in d.items()},
                        reservations={k: v for d in reservations for k, v in d.items()},
                        pick=pick,
                        replicas={k: v for d in replicas for k, v in d.items()},
                    )


# ---------------------------------------------------------------- continuous completion


def _complete(
    s: Scenario,
    pairs: Mapping[tuple[str, str], PairEstimate],
    job: Workload,
    service: Workload | None,
    choice: IntegerChoice,
) -> tuple[float, Decisions] | None:
    """The cheapest plan with these integer decisions: its cost and decisions, or None."""
    a = s.assumptions
    h, t_end = a.hours_per_month, s.horizon_months
    offers = {o.offer_id: o for o in s.offers}
    df = {t: discount_factor(a.discount_rate, t) for t in s.months}

    owned: dict[tuple[str, int], int] = defaultdict(int)
    reserved: dict[tuple[str, int], int] = defaultdict(int)
    cost = cash = capex = 0.0
    for (oid, m), n in choice.purchases.items():
        o = offers[oid]
        capex += o.price * n
        cost += o.price * n * df[m]
        if a.credit_residual_value:
            cost -= o.price * n * max(0.0, 1 - (t_end - m + 1) / a.depreciation_months) * df[t_end]
        for t in range(m, t_end + 1):
            owned[o.gpu, t] += n
            cost += a.maintenance_per_year / 12 * o.price * n * df[t]
            cash += a.maintenance_per_year / 12 * o.price * n
    cash += capex
    for (oid, start), n in choice.reservations.items():
        o = offers[oid]
        for t in range(start, start + (o.term_months or 1)):
            reserved[o.gpu, t] += n
            cost += o.price * h * n * df[t]
            cash += o.price * h * n
    if s.budget_capex is not None and capex > s.budget_capex + CENT:
        return None
    if s.power_cap_kw is not None:
        draw_w = sum(owned[c.name, t_end] * (c.tdp_w or 0.0) * a.pue for c in s.gpus)
        if draw_w > s.power_cap_kw * 1000 + 1e-9:
            return None

    sources: dict[tuple[str, int], list[Source]] = {}
    for card in s.gpus:
        power = (card.tdp_w or 0.0) / 1000 * a.pue * a.electricity_per_kwh
        for t in s.months:
            idle = a.idle_power_fraction * h * owned[card.name, t] * power
            cost += idle * df[t]
            cash += idle
            marginal = (1 - a.idle_power_fraction) * power
            found = [
                Source(
                    "own",
                    None,
                    marginal * df[t],
                    marginal,
                    a.max_utilization * h * owned[card.name, t],
                    1.0,
                ),
                Source("res", None, 0.0, 0.0, h * reserved[card.name, t], 1.0),
            ]
            for o in s.offers_of(card.name):
                if o.option in (OfferOption.ON_DEMAND, OfferOption.SPOT) and t >= o.available_from:
                    cap = math.inf if o.max_units is None else o.max_units * h
                    eff = a.spot_efficiency if o.option is OfferOption.SPOT else 1.0
                    found.append(Source(o.offer_id, o.option, o.price * df[t], o.price, cap, eff))
            sources[card.name, t] = sorted(found, key=lambda x: x.cost)

    used: dict[tuple[str, int, str], float] = defaultdict(float)
    work: dict[tuple[str, str, int], list[float]] = defaultdict(lambda: [0.0, 0.0])

    def remaining(g: str, t: int, src: Source) -> float:
        return src.capacity - used[g, t, src.name]

    def draw(w: str, g: str, t: int, src: Source, hours: float) -> None:
        used[g, t, src.name] += hours
        work[w, g, t][1 if src.option is OfferOption.SPOT else 0] += hours

    # Realtime hours are fixed by the replicas: the cheapest non-spot hours first.
    if service is not None:
        for (g, t), n in choice.replicas.items():
            need = n * (pairs[service.name, g].gpus_per_replica or 1) * h
            for src in sources[g, t]:
                if need <= 0:
                    break
                if src.option is OfferOption.SPOT:
                    continue
                take = min(need, remaining(g, t, src))
                if take > 0:
                    draw(service.name, g, t, src, take)
                    need -= take
            if need > 1e-9:
                return None

    # The flexible job: one covering constraint, filled by cost per unit of work.
    covers: list[tuple[list[tuple[str, int]], str | None]]
    if job.kind.is_training:
        assert choice.pick is not None
        covers = [([(choice.pick, t) for t in job.window(t_end)], choice.pick)]
    else:
        covers = [
            ([(g.name, t) for g in s.gpus if (job.name, g.name) in pairs], None)
            for t in job.window(t_end)
        ]
    for cells, _ in covers:
        segments = []
        for g, t in cells:
            gh = pairs[job.name, g].gpu_hours or 0.0
            for src in sources[g, t]:
                if src.option is OfferOption.SPOT and not job.interruptible:
                    continue
                units_per_hour = src.work_per_hour / gh  # training: gh / gh = 1 job
                segments.append((src.cost / units_per_hour, g, t, src, units_per_hour))
        need = 1.0  # one whole job (training) or one month's work (batch)
        for _, g, t, src, units_per_hour in sorted(segments, key=lambda x: x[0]):
            if need <= 1e-12:
                break
            hours = min(need / units_per_hour, remaining(g, t, src))
            if hours > 0:
                draw(job.name, g, t, src, hours)
                need -= hours * units_per_hour
        if need > 1e-9:
            return None

    for (g, t, name), hours in used.items():
        src = next(x for x in sources[g, t] if x.name == name)
        cost += hours * src.cost
        cash += hours * src.cash
    if s.budget_total is not None and cash > s.budget_total + CENT:
        return None
    decisions = Decisions(
        purchases=dict(choice.purchases),
        reservations=dict(choice.reservations),
        rented_hours={(name, t): hrs for (_, t, name), hrs in used.items() if name in offers},
        owned_hours={(g, t): hrs for (g, t, name), hrs in used.items() if name == "own"},
        reserved_hours={(g, t): hrs for (g, t, name), hrs in used.items() if name == "res"},
        work={key: WorkHours(hours=v[0], spot_hours=v[1]) for key, v in work.items()},
        replicas={(service.name, g, t): n for (g, t), n in choice.replicas.items()}
        if service
        else {},
        picks={job.name: choice.pick} if choice.pick is not None else {},
    )
    return cost, decisions


# ---------------------------------------------------------------- the tests


def enumerable_cases(count: int) -> list[tuple[Scenario, Enumerated | None]]:
    """The first ``count`` seeds whose enumeration is small enough."""
    cases: list[tuple[Scenario, Enumerated | None]] = []
    seed = 0
    while len(cases) < count:
        s = random_scenario(seed)
        seed += 1
        try:
            cases.append((s, cheapest_by_enumeration(s, estimate_pairs(s))))
        except TooBig:
            continue
    return cases


CASES_FOUND = enumerable_cases(CASES)


def test_the_cases_cover_every_kind_of_choice() -> None:
    """A guard against an enumeration that tests nothing: the cases mix every decision."""
    plans = [e.decisions for _, e in CASES_FOUND if e is not None]
    assert sum(e is None for _, e in CASES_FOUND) >= 1  # some scenario is infeasible
    assert any(d.purchases for d in plans)
    assert any(d.reservations for d in plans)
    assert any(any(w.spot_hours > 0 for w in d.work.values()) for d in plans)
    assert any(d.replicas for d in plans)
    assert any(d.picks for d in plans)
    assert max(e.combinations for _, e in CASES_FOUND if e is not None) > 50


@pytest.mark.parametrize(("s", "best"), CASES_FOUND, ids=[s.name for s, _ in CASES_FOUND])
def test_enumerated_plan_passes_the_checker(s: Scenario, best: Enumerated | None) -> None:
    """The enumeration's own plan is feasible and costs what it says (two independent sums)."""
    if best is None:
        return
    estimates = list(estimate_pairs(s))
    report = check_plan(s, consistent_plan(s, best.decisions, estimates), estimates)
    assert report.violations == []
    assert report.total_cost == pytest.approx(best.total_cost, abs=CENT)


@pytest.mark.parametrize(("s", "best"), CASES_FOUND, ids=[s.name for s, _ in CASES_FOUND])
def test_solver_total_equals_the_enumerated_minimum(s: Scenario, best: Enumerated | None) -> None:
    plan = solve_checked(s, EXACT)
    if best is None:
        assert plan.status is SolveStatus.INFEASIBLE, plan.diagnostics
        return
    assert plan.status is SolveStatus.OPTIMAL, plan.diagnostics
    assert plan.total_cost == pytest.approx(best.total_cost, abs=CENT)
