"""Every scenario's plan, side by side in worker processes, each within its share of the budget.

``gpumix compare``'s solving (``solve`` adds baselines and shadow prices:
``optimizer.analysis.extras``). The jobs are module-level, so that a spawned
worker can run them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from optimizer.analysis.extras import say, solve_plan
from optimizer.domain import Scenario
from optimizer.results import Plan, SolverSettings
from optimizer.solve.budget import Budget
from optimizer.solve.cores import usable_cores


def _scenario_job(scenario: Scenario, settings: SolverSettings, quiet: bool) -> Plan:
    """One scenario's checked plan with its warnings. Module-level so a spawn worker can run it."""
    return solve_plan(scenario, settings, quiet)[0]


def solve_all(
    scenarios: Sequence[Scenario],
    settings: SolverSettings,
    *,
    quiet: bool,
    jobs: int | None,
    budget: Budget | None = None,
) -> list[Plan]:
    """Every scenario's plan, side by side in worker processes when cores allow.

    ``budget`` (the command's ``--time-limit``) is shared out: each wave of
    scenarios (one per worker) an equal part of it, each scenario taking its
    limit when it starts (:func:`_scenario_job_before`).

    Scenarios are independent. ``auto`` races two solvers on two cores, so
    by default each worker gets two cores: on a 2-core machine the scenarios
    run one after another, each solve racing HiGHS and SCIP. Other solvers
    get one core per worker. Workers are spawned; the solver's own progress
    lines are kept for a single process, where they cannot interleave.
    (``solve`` adds baselines and shadow prices: ``optimizer.analysis.extras``.)
    """
    from optimizer.analysis.executors import open_executor, run_in_order

    cores = usable_cores()
    cores_per_solve = 2 if settings.solver == "auto" else 1
    workers = jobs if jobs is not None else max(1, cores // cores_per_solve)
    workers = max(1, min(workers, len(scenarios)))
    if workers > 1:
        settings = replace(settings, progress=False, threads=max(1, cores // workers))
        say(quiet, f"solving {len(scenarios)} scenarios in {workers} processes ...")
    if budget is None or budget.deadline is None:
        tasks = [(s, settings, quiet) for s in scenarios]
        with open_executor(jobs=workers, tasks=len(tasks)) as executor:
            return run_in_order(executor, _scenario_job, tasks)
    waves = -(-len(scenarios) // workers)
    timed = [
        (budget.deadline, waves - i // workers, s, settings, quiet) for i, s in enumerate(scenarios)
    ]
    with open_executor(jobs=workers, tasks=len(timed)) as executor:
        return run_in_order(executor, _scenario_job_before, timed)


def _scenario_job_before(
    deadline: float, parts: int, scenario: Scenario, settings: SolverSettings, quiet: bool
) -> Plan:
    """One scenario's plan within ``1/parts`` of what is left until ``deadline`` (a
    ``time.monotonic()`` value, the same in every worker): it takes its share when it starts."""
    from optimizer.solve.budget import Budget

    return _scenario_job(scenario, Budget(None, deadline).settings(settings, 1 / parts), quiet)
