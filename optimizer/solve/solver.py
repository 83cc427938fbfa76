"""Solve one scenario: estimates → model → HiGHS (or CBC) → a complete :class:`Plan`.

The only public entry point is :func:`solve_scenario`. Solver statuses become
:class:`SolveStatus` in :func:`_solve_status` and nowhere else. Every money
figure of the plan is computed from its :class:`Decisions` (rounded variable
values) with the cost formulas of ``optimizer.model.build``, so the plan, its cash
flow and the independent checker agree to the cent.
"""

from __future__ import annotations

import math
import os
import re
import sys
import tempfile
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pulp

from optimizer.domain import CostCategory, Kind, Offer, OfferOption, Scenario
from optimizer.model.build import (
    BuiltModel,
    build_model,
    discount_factor,
    energy_cost_per_hour,
    maintenance_per_month,
    reservation_months,
    residual_fraction,
)
from optimizer.results import (
    AssignmentRow,
    CashFlowMonth,
    Decisions,
    FleetRow,
    OfferUse,
    PairEstimate,
    Plan,
    SolverInfo,
    SolverSettings,
    SolveStatus,
    WorkHours,
)
from optimizer.solve import diagnose

# Hours within this of zero are solver noise (HiGHS's feasibility tolerance is 1e-7).
HOURS_NOISE = 1e-6
# A plan counts as proven cheapest when no plan can be cheaper by more than
# half a cent (the solver's absolute gap); --gap adds a relative tolerance.
PROOF_TOLERANCE_USD = 0.005
PROGRESS_AFTER_S = 1.0


@dataclass(frozen=True)
class SolverRun:
    """What one solver run gave, in our terms (no PuLP object)."""

    status: SolveStatus
    gap: float | None  # proven relative gap of the incumbent; None when unknown
    seconds: float
    name: str
    version: str
    message: str = ""  # why, when the status is ERROR or a limit stopped the run
    bound: float | None = None  # proven lower bound on the cost of any plan (HiGHS)


def solve_scenario(
    scenario: Scenario,
    settings: SolverSettings,
    estimates: Sequence[PairEstimate] | None = None,
) -> Plan:
    """The cheapest plan for ``scenario``, or why there is none (never raises for infeasibility)."""
    if estimates is None:
        from optimizer.estimate.pairs import estimate_pairs

        estimates = estimate_pairs(scenario)
    options = tuple(estimates)

    unplannable = diagnose.unplannable_workloads(scenario, options)
    if unplannable:
        return Plan.without_plan(scenario, SolveStatus.INFEASIBLE, options, unplannable, None)

    started = time.perf_counter()
    built = build_model(scenario, options)
    build_seconds = time.perf_counter() - started
    run = run_solver(built.problem, settings)
    info = _solver_info(built, run, build_seconds)

    if run.status is SolveStatus.INFEASIBLE:
        # The elastic re-solves minimise weighted shortfall, not dollars: their
        # progress lines ("best plan $268.50") would read as a plan's cost.
        quiet = replace(settings, progress=False)
        explained = diagnose.explain_infeasible(
            scenario, options, lambda model: run_solver(model.problem, quiet).status
        )
        return Plan.without_plan(scenario, SolveStatus.INFEASIBLE, options, explained, info)
    if not run.status.has_plan:
        return Plan.without_plan(scenario, SolveStatus.ERROR, options, (run.message,), info)
    return _plan_from_solution(built, run, options, info, settings)


# --------------------------------------------------------------------------
# Running the solver
# --------------------------------------------------------------------------

_banner_silenced = False


def _silence_highs_banner() -> None:
    """HiGHS prints its banner on file descriptor 1 when the first Highs object is made.

    Standard output carries ``--json`` and ``--quiet`` promises silence, so
    make that first object with fd 1 pointed at the null device; later
    objects print nothing.
    """
    global _banner_silenced
    if _banner_silenced:
        return
    import highspy

    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
    _banner_silenced = True


_scheduler_threads: int | None = None


def _use_threads(threads: int | None) -> None:
    """HiGHS keeps one global thread pool per process, sized by the first solve.

    A later solve asking for a different ``threads`` fails ("global scheduler
    has already been initialized"), so rebuild the pool when the number
    changes. Solves in one process run one at a time, so no solve is using
    the pool when it is rebuilt.
    """
    global _scheduler_threads
    if threads is None or threads == _scheduler_threads:
        return
    import highspy

    highspy.Highs.resetGlobalScheduler(True)
    _scheduler_threads = threads


class _Progress:
    """Prints elapsed time, best plan so far and proven gap to stderr, at most once a second.

    Fed by HiGHS's MIP-interrupt and improving-solution callbacks (through
    PuLP's ``callbackTuple``); silent for the first second so quick solves
    print nothing. HiGHS calls back between nodes and cut rounds, so during
    a long root-node phase a line may come later than once a second.
    """

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.last = 0.0

    def __call__(self, _kind: Any, _message: str, data_out: Any, _data_in: Any, _user: Any) -> None:
        now = time.perf_counter() - self.started
        if now < PROGRESS_AFTER_S or now - self.last < 1.0:
            return
        self.last = now
        best = data_out.mip_primal_bound
        gap = data_out.mip_gap
        best_text = f"${best:,.2f}" if math.isfinite(best) and abs(best) < 1e30 else "none yet"
        gap_text = f"{gap:.3%}" if math.isfinite(gap) and gap < 1e30 else "unknown"
        print(
            f"gpumix: {now:6.1f} s  best plan {best_text}  proven gap {gap_text}",
            file=sys.stderr,
            flush=True,
        )


def _run_cbc(problem: pulp.LpProblem, settings: SolverSettings, started: float) -> SolverRun:
    """CBC through PuLP; the proven bound is read from CBC's log, which PuLP does not return."""
    with tempfile.TemporaryDirectory(prefix="gpumix-cbc-") as folder:
        log = Path(folder) / "cbc.log"
        # PuLP 3.3 warns that PULP_CBC_CMD (the CBC bundled with PuLP) goes away
        # in 4.0; it is still the CBC every install has, so silence that notice.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "PULP_CBC_CMD", DeprecationWarning)
            cbc = pulp.PULP_CBC_CMD(
                msg=False,
                timeLimit=settings.time_limit,
                gapRel=settings.gap,
                gapAbs=PROOF_TOLERANCE_USD,
                threads=settings.threads,
                logPath=str(log),
            )
        problem.solve(cbc)
        log_text = log.read_text(errors="replace") if log.exists() else ""
    seconds = time.perf_counter() - started
    status = _solve_status(None, problem.status, problem.sol_status, None)
    gap: float | None = None
    bound: float | None = None
    if status.has_plan:
        objective = pulp.value(problem.objective)
        bound = cbc_lower_bound(log_text, objective, status)
        if bound is not None and objective:
            # HiGHS's convention (plan - bound) / plan, so both solvers report alike.
            gap = max(0.0, (objective - bound) / abs(objective))
        elif status is SolveStatus.OPTIMAL:
            gap = 0.0
    return SolverRun(
        status=status,
        gap=gap,
        seconds=seconds,
        name="CBC",
        version=_cbc_version(),
        message=_message(status, "CBC", settings),
        bound=bound,
    )


_CBC_BOUND = re.compile(r"^Lower bound:\s*(\S+)", re.MULTILINE)


def cbc_lower_bound(log_text: str, objective: float | None, status: SolveStatus) -> float | None:
    """The proven lower bound in CBC's log ("Lower bound: ..."), or None when it says none.

    CBC prints the line only when the search stopped short of proof (gap
    tolerance or time limit); a run that proved its plan optimal prints no
    bound, and then the bound is the plan's own cost.
    """
    found = _CBC_BOUND.findall(log_text)
    if found:
        try:
            return float(found[-1])
        except ValueError:
            return None
    if status is SolveStatus.OPTIMAL and "Result - Optimal solution found" in log_text:
        return objective
    return None


def run_solver(problem: pulp.LpProblem, settings: SolverSettings) -> SolverRun:
    """Solve ``problem`` in place with the solver ``settings`` name; map the outcome."""
    started = time.perf_counter()
    if not problem.variables():
        # Nothing to decide (no workload needs anything): the empty plan is optimal.
        return SolverRun(SolveStatus.OPTIMAL, 0.0, 0.0, settings.solver, "-")
    if settings.solver == "cbc":
        return _run_cbc(problem, settings, started)
    if settings.solver != "highs":
        raise ValueError(f"unknown solver {settings.solver!r} (use 'highs' or 'cbc')")

    _silence_highs_banner()
    import highspy

    _use_threads(settings.threads)

    extra: dict[str, Any] = {}
    if settings.progress:
        kinds = highspy.cb.HighsCallbackType
        extra["callbackTuple"] = (_Progress(), None)
        extra["callbacksToActivate"] = [
            kinds.kCallbackMipInterrupt,
            kinds.kCallbackMipImprovingSolution,
        ]
    # Two root-node heuristics and restarts are switched off. Each is a
    # search setting only: the model, and so every optimal value, is
    # unchanged. On the bundled example feasibility jump and the root
    # reduced-cost heuristic spent 0.5-1.5 s a scenario finding nothing the
    # search did not find anyway (three scenarios: 4.6 -> 1.8 s of solving),
    # and a restart after root fixing redoes the root's work (europe 1.5 ->
    # 1.2 s). On the synthetic benchmarks the proven gap after 20 s is the
    # same within run-to-run noise at (10, 20, 36), and at (20, 50, 60)
    # feasibility jump's first plans led the search astray (gap 88-90 %
    # instead of 20-32 % on seeds 2 and 3).
    solver = pulp.HiGHS(
        msg=False,
        gapRel=settings.gap,
        gapAbs=PROOF_TOLERANCE_USD,
        timeLimit=settings.time_limit,
        threads=settings.threads,
        mip_allow_restart=False,
        mip_heuristic_run_feasibility_jump=False,
        mip_heuristic_run_root_reduced_cost=False,
        **extra,
    )
    problem.solve(solver)
    seconds = time.perf_counter() - started
    highs = problem.solverModel
    model_status = highs.getModelStatus()
    hinfo = highs.getInfo()
    has_incumbent = int(hinfo.primal_solution_status) == 2  # kSolutionStatusFeasible
    status = _solve_status(model_status, None, None, has_incumbent)
    gap: float | None = None
    if status is SolveStatus.OPTIMAL:
        gap = float(hinfo.mip_gap) if _has_integers(problem) else 0.0
    elif status is SolveStatus.TIME_LIMIT:
        gap = float(hinfo.mip_gap) if math.isfinite(hinfo.mip_gap) else None
    return SolverRun(
        status=status,
        gap=gap,
        seconds=seconds,
        name="HiGHS",
        version=highs.version(),
        message=_message(status, "HiGHS", settings, highs.modelStatusToString(model_status)),
        bound=float(hinfo.mip_dual_bound) if math.isfinite(hinfo.mip_dual_bound) else None,
    )


def _solve_status(
    highs_status: Any | None,
    pulp_status: int | None,
    pulp_solution_status: int | None,
    has_incumbent: bool | None,
) -> SolveStatus:
    """The one place solver statuses become :class:`SolveStatus`.

    HiGHS: its own ``HighsModelStatus`` (PuLP 3.3.2 calls a run stopped by
    the time limit "Optimal"). A time, iteration or solution limit or an
    interrupt with an incumbent is TIME_LIMIT; without one, ERROR. CBC
    (through PuLP): PuLP's status and solution status.
    """
    if highs_status is not None:
        import highspy

        ms = highspy.HighsModelStatus
        if highs_status == ms.kOptimal:
            return SolveStatus.OPTIMAL
        if highs_status in (ms.kInfeasible, ms.kUnboundedOrInfeasible):
            # Every cost is >= 0 but the residual credit, which is below the
            # price it comes from, so the model is never unbounded.
            return SolveStatus.INFEASIBLE
        if highs_status in (ms.kTimeLimit, ms.kIterationLimit, ms.kSolutionLimit, ms.kInterrupt):
            return SolveStatus.TIME_LIMIT if has_incumbent else SolveStatus.ERROR
        return SolveStatus.ERROR
    if pulp_status == pulp.LpStatusOptimal:
        if pulp_solution_status == pulp.LpSolutionOptimal:
            return SolveStatus.OPTIMAL
        if pulp_solution_status == pulp.LpSolutionIntegerFeasible:
            return SolveStatus.TIME_LIMIT
        return SolveStatus.ERROR
    if pulp_status == pulp.LpStatusInfeasible:
        return SolveStatus.INFEASIBLE
    return SolveStatus.ERROR


def _message(status: SolveStatus, name: str, settings: SolverSettings, raw: str = "") -> str:
    limit = f"{settings.time_limit:g} s" if settings.time_limit is not None else "no"
    if status is SolveStatus.ERROR:
        if "limit" in raw.lower():
            return (
                f"{name} found no plan within the {limit} time limit; "
                "raise --time-limit or simplify the scenario"
            )
        return f"{name} failed to solve the model (status: {raw or 'not solved'})"
    if status is SolveStatus.TIME_LIMIT:
        return f"{name} stopped at the {limit} time limit before proving the plan optimal"
    return ""


def _has_integers(problem: pulp.LpProblem) -> bool:
    return any(v.cat == pulp.LpInteger for v in problem.variables())


def _cbc_version() -> str:
    return f"bundled with PuLP {pulp.__version__}"


def _solver_info(built: BuiltModel, run: SolverRun, build_seconds: float) -> SolverInfo:
    variables = built.problem.variables()
    return SolverInfo(
        name=run.name,
        version=run.version,
        seconds=run.seconds,
        build_seconds=build_seconds,
        variables=len(variables),
        constraints=built.problem.numConstraints(),
        integers=sum(1 for v in variables if v.cat == pulp.LpInteger),
        bound=run.bound,
    )


# --------------------------------------------------------------------------
# From variable values to a plan
# --------------------------------------------------------------------------


def _value(var: pulp.LpVariable) -> float:
    v = var.varValue
    return 0.0 if v is None else float(v)


def _whole(var: pulp.LpVariable) -> int:
    return round(_value(var))


def _hours(var: pulp.LpVariable) -> float:
    v = _value(var)
    return 0.0 if abs(v) < HOURS_NOISE else max(v, 0.0)


def read_decisions(built: BuiltModel) -> Decisions:
    """The plan's decisions from the variable values: integers to int, noise to 0.

    Only nonzero entries are kept (a missing key means zero). Realtime work
    is ``replicas * k * H`` hours, exactly.
    """
    s = built.scenario
    H = s.assumptions.hours_per_month
    purchases = {k: n for k, v in built.buy.items() if (n := _whole(v))}
    reservations = {k: n for k, v in built.reserve.items() if (n := _whole(v))}
    rented = {k: h for k, v in built.rent.items() if (h := _hours(v))}
    owned = {k: h for k, v in built.use_own.items() if (h := _hours(v))}
    reserved = {k: h for k, v in built.use_res.items() if (h := _hours(v))}
    work: dict[tuple[str, str, int], WorkHours] = {}
    for key, v in built.work.items():
        hours = _hours(v)
        spot_var = built.spot_work.get(key)
        spot = _hours(spot_var) if spot_var is not None else 0.0
        if hours or spot:
            work[key] = WorkHours(hours=hours, spot_hours=spot)
    replicas: dict[tuple[str, str, int], int] = {}
    for (w, g, t), v in built.replicas.items():
        n = _whole(v)
        if n:
            replicas[(w, g, t)] = n
            k = built.estimates[(w, g)].gpus_per_replica or 0
            work[(w, g, t)] = WorkHours(hours=n * k * H)
    picks: dict[str, str] = {}
    for (w, g), v in built.pick.items():
        if _whole(v) == 1:
            picks[w] = g
    return Decisions(
        purchases=purchases,
        reservations=reservations,
        rented_hours=rented,
        owned_hours=owned,
        reserved_hours=reserved,
        work=work,
        replicas=replicas,
        picks=picks,
    )


@dataclass(frozen=True)
class Money:
    """A plan's money, from its decisions (USD)."""

    cash: dict[int, dict[CostCategory, float]]  # undiscounted, months 1..T
    costs: dict[CostCategory, float]  # discounted totals
    residual_credit: float  # undiscounted
    residual_credit_discounted: float
    owned: dict[tuple[str, int], int]
    active_reserved: dict[tuple[str, int], int]  # (offer id, month)

    @property
    def total_cost(self) -> float:
        return sum(self.costs.values()) - self.residual_credit_discounted

    @property
    def cash_out(self) -> float:
        return sum(sum(m.values()) for m in self.cash.values())


def money_of(scenario: Scenario, d: Decisions) -> Money:
    """Every cost of model.md, from the decisions, with the model's own coefficients."""
    a = scenario.assumptions
    T = scenario.horizon_months
    H = a.hours_per_month
    offers = {o.offer_id: o for o in scenario.offers}
    cash = {t: dict.fromkeys(CostCategory, 0.0) for t in scenario.months}
    owned: dict[tuple[str, int], int] = defaultdict(int)
    credit = 0.0
    for (oid, s), n in d.purchases.items():
        o = offers[oid]
        cash[s][CostCategory.PURCHASE] += o.price * n
        credit += o.price * residual_fraction(a, T, s) * n
        for t in range(s, T + 1):
            owned[(o.gpu, t)] += n
            cash[t][CostCategory.MAINTENANCE] += maintenance_per_month(o, a) * n
    active: dict[tuple[str, int], int] = defaultdict(int)
    for (oid, s), n in d.reservations.items():
        o = offers[oid]
        for t in reservation_months(o, s):
            active[(oid, t)] += n
            cash[t][CostCategory.RESERVED] += o.price * H * n
    for (oid, t), hours in d.rented_hours.items():
        o = offers[oid]
        category = CostCategory.SPOT if o.option is OfferOption.SPOT else CostCategory.ON_DEMAND
        cash[t][category] += o.price * hours
    for g in scenario.gpus:
        ce = energy_cost_per_hour(g, a)
        for t in scenario.months:
            n = owned.get((g.name, t), 0)
            if n and ce:
                used = d.owned_hours.get((g.name, t), 0.0)
                idle = H * n - used
                cash[t][CostCategory.ENERGY] += ce * (a.idle_power_fraction * idle + used)
    costs = dict.fromkeys(CostCategory, 0.0)
    for t, amounts in cash.items():
        df = discount_factor(a, t)
        for c, amount in amounts.items():
            costs[c] += amount * df
    return Money(
        cash=cash,
        costs=costs,
        residual_credit=credit,
        residual_credit_discounted=credit * discount_factor(a, T),
        owned=dict(owned),
        active_reserved=dict(active),
    )


def _plan_from_solution(
    built: BuiltModel,
    run: SolverRun,
    options: tuple[PairEstimate, ...],
    info: SolverInfo,
    settings: SolverSettings,
) -> Plan:
    s = built.scenario
    d = read_decisions(built)
    money = money_of(s, d)
    diagnostics: list[str] = []
    # HiGHS's gap is (plan - bound) / plan: no plan can cost less than the bound.
    floor = f"; no plan can cost less than ${run.bound:,.2f}" if run.bound is not None else ""
    if run.status is SolveStatus.TIME_LIMIT:
        gap_text = f"{run.gap:.3%}" if run.gap is not None else "unknown"
        diagnostics.append(f"{run.message}: proven gap {gap_text} of the plan's cost{floor}")
    elif (
        run.gap is not None
        and money.total_cost is not None
        and run.gap * abs(money.total_cost) > PROOF_TOLERANCE_USD
    ):
        diagnostics.append(
            f"optimal within the gap tolerance {settings.gap:g}: proven gap {run.gap:.4%} "
            f"of the plan's cost{floor}"
        )
    assignments, idle = _assignments(s, d, money, built.estimates)
    if idle > 0.005:
        diagnostics.append(f"${idle:,.2f} of idle capacity is not allocated to any workload")
    return Plan(
        scenario=s,
        status=run.status,
        gap=0.0 if run.status is SolveStatus.OPTIMAL else run.gap,
        total_cost=money.total_cost,
        cash_out=money.cash_out,
        residual_credit=money.residual_credit,
        costs=money.costs,
        cash_flow=tuple(CashFlowMonth(t, money.cash[t]) for t in s.months),
        fleet=_fleet(s, d, money),
        assignments=assignments,
        options=options,
        diagnostics=tuple(diagnostics),
        decisions=d,
        solver=info,
        offer_use=_offer_use(s, d),
        residual_credit_discounted=money.residual_credit_discounted,
    )


def _fleet(s: Scenario, d: Decisions, money: Money) -> tuple[FleetRow, ...]:
    H = s.assumptions.hours_per_month
    offers = {o.offer_id: o for o in s.offers}
    bought: dict[tuple[str, int], int] = defaultdict(int)
    for (oid, t), n in d.purchases.items():
        bought[(offers[oid].gpu, t)] += n
    reserved: dict[tuple[str, int], int] = defaultdict(int)
    for (oid, t), n in money.active_reserved.items():
        reserved[(offers[oid].gpu, t)] += n
    rented: dict[tuple[str, int], float] = defaultdict(float)
    spot: dict[tuple[str, int], float] = defaultdict(float)
    for (oid, t), hours in d.rented_hours.items():
        o = offers[oid]
        (spot if o.option is OfferOption.SPOT else rented)[(o.gpu, t)] += hours
    rows = []
    for g in s.gpus:
        for t in s.months:
            key = (g.name, t)
            n = money.owned.get(key, 0)
            rows.append(
                FleetRow(
                    gpu=g.name,
                    month=t,
                    bought=bought.get(key, 0),
                    owned=n,
                    reserved=reserved.get(key, 0),
                    rented_hours=rented.get(key, 0.0),
                    spot_hours=spot.get(key, 0.0),
                    owned_utilization=d.owned_hours.get(key, 0.0) / (H * n) if n else None,
                )
            )
    return tuple(rows)


def _type_month_costs(
    s: Scenario, d: Decisions, money: Money
) -> tuple[dict[tuple[str, int], float], dict[tuple[str, int], float]]:
    """Undiscounted cost of each GPU type and month: (non-spot cost, spot cost).

    Non-spot: energy, maintenance, on-demand and reserved cash of that month,
    plus each purchase's net capital cost (price minus the credited book
    value) spread evenly over the months from purchase to the horizon.
    """
    a = s.assumptions
    T = s.horizon_months
    H = a.hours_per_month
    offers = {o.offer_id: o for o in s.offers}
    paid: dict[tuple[str, int], float] = defaultdict(float)
    spot: dict[tuple[str, int], float] = defaultdict(float)
    for (oid, t0), n in d.purchases.items():
        o = offers[oid]
        net = o.price * (1.0 - residual_fraction(a, T, t0)) * n
        per_month = net / (T - t0 + 1)
        for t in range(t0, T + 1):
            paid[(o.gpu, t)] += per_month + maintenance_per_month(o, a) * n
    for (oid, t), n in money.active_reserved.items():
        o = offers[oid]
        paid[(o.gpu, t)] += o.price * H * n
    for (oid, t), hours in d.rented_hours.items():
        o = offers[oid]
        (spot if o.option is OfferOption.SPOT else paid)[(o.gpu, t)] += o.price * hours
    for g in s.gpus:
        ce = energy_cost_per_hour(g, a)
        for t in s.months:
            n = money.owned.get((g.name, t), 0)
            if n and ce:
                used = d.owned_hours.get((g.name, t), 0.0)
                paid[(g.name, t)] += ce * (a.idle_power_fraction * (H * n - used) + used)
    return paid, spot


def _assignments(
    s: Scenario,
    d: Decisions,
    money: Money,
    estimates: dict[tuple[str, str], PairEstimate],
) -> tuple[tuple[AssignmentRow, ...], float]:
    """One row per workload × GPU × month with hours; cost shared by GPU-hours.

    Returns the rows and the cost of type-months with no work at all (idle
    capacity, reported as a diagnostic).
    """
    a = s.assumptions
    H = a.hours_per_month
    e = a.spot_efficiency
    paid, spot_cost = _type_month_costs(s, d, money)
    hours_of: dict[tuple[str, int], float] = defaultdict(float)
    spot_of: dict[tuple[str, int], float] = defaultdict(float)
    for (_w, g, t), wh in d.work.items():
        hours_of[(g, t)] += wh.hours
        spot_of[(g, t)] += wh.spot_hours
    served: dict[tuple[str, int], float] = defaultdict(float)  # realtime tokens/s capacity
    for (w, g, t), n in d.replicas.items():
        served[(w, t)] += n * (estimates[(w, g)].tokens_per_second_per_replica or 0.0)
    kinds = {w.name: w for w in s.workloads}
    rows = []
    order = {w.name: i for i, w in enumerate(s.workloads)}
    gorder = {g.name: i for i, g in enumerate(s.gpus)}
    for (w, g, t), wh in sorted(
        d.work.items(), key=lambda kv: (order[kv[0][0]], kv[0][2], gorder[kv[0][1]])
    ):
        cost = 0.0
        if hours_of[(g, t)] > 0:
            cost += paid.get((g, t), 0.0) * wh.hours / hours_of[(g, t)]
        if spot_of[(g, t)] > 0:
            cost += spot_cost.get((g, t), 0.0) * wh.spot_hours / spot_of[(g, t)]
        est = estimates[(w, g)]
        workload = kinds[w]
        tokens: float | None = None
        replicas = d.replicas.get((w, g, t)) if workload.kind is Kind.REALTIME_INFERENCE else None
        if workload.kind is Kind.REALTIME_INFERENCE:
            if replicas and served[(w, t)] > 0 and workload.tokens_per_second:
                share = replicas * (est.tokens_per_second_per_replica or 0.0) / served[(w, t)]
                tokens = workload.tokens_per_second * 3600.0 * H * share
        elif workload.tokens and est.gpu_hours:
            tokens = workload.tokens * (wh.hours + e * wh.spot_hours) / est.gpu_hours
        rows.append(
            AssignmentRow(
                workload=w,
                gpu=g,
                month=t,
                gpus_per_replica=est.gpus_per_replica or 1,
                replicas=replicas if workload.kind is Kind.REALTIME_INFERENCE else None,
                gpu_hours=wh.hours + wh.spot_hours,
                cost=cost,
                spot_hours=wh.spot_hours,
                tokens=tokens,
            )
        )
    idle = sum(c for key, c in paid.items() if hours_of.get(key, 0.0) <= 0)
    idle += sum(c for key, c in spot_cost.items() if spot_of.get(key, 0.0) <= 0)
    return tuple(rows), idle


def _offer_use(s: Scenario, d: Decisions) -> tuple[OfferUse, ...]:
    units: dict[str, float] = defaultdict(float)
    for (oid, _t), n in d.purchases.items():
        units[oid] += n
    for (oid, _t), n in d.reservations.items():
        units[oid] += n * _term(s, oid)
    for (oid, _t), hours in d.rented_hours.items():
        units[oid] += hours
    H = s.assumptions.hours_per_month
    rows = []
    for o in s.offers:
        u = units.get(o.offer_id, 0.0)
        cost = o.price * u * (H if o.option is OfferOption.RESERVED else 1.0)
        rows.append(OfferUse(o.offer_id, o.gpu, o.option, o.price, u, cost))
    return tuple(rows)


def _term(s: Scenario, offer_id: str) -> int:
    offer: Offer = next(o for o in s.offers if o.offer_id == offer_id)
    return offer.term_months or 0


# Re-exported for diagnose's elastic solve (typed callable it receives).
ElasticSolve = Callable[[BuiltModel], SolveStatus]
