"""Which solver proves a large model, cold or from the plan-first phase's plan, one thread each.

Run: ``.venv/bin/python benchmarks/bench_proof.py --case s10-20-36-1
[--solvers scip-cold,scip,highs] [--time-limit 57]``.

Builds the case (as ``bench_planfirst.py`` names them), runs the plan-first
phase once with its shares at ``--time-limit 60`` (18 s + 15 s; kept in
``/tmp/gpumix-start-<case>.pkl`` for later runs), then solves the full model
with each solver on one thread: ``scip`` and ``highs`` from the phase's plan,
``scip-cold`` and ``highs-cold`` without it. Prints each run's status, proven
gap (of its own plan) and bound. This is the measurement behind running the
phase beside SCIP in the race (docs/performance.md, "The phase beside SCIP").
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_planfirst import scenario_of  # noqa: E402
from optimizer.estimate.pairs import estimate_pairs  # noqa: E402
from optimizer.model.build import build_model  # noqa: E402
from optimizer.results import SolverSettings  # noqa: E402
from optimizer.solve import plan_first  # noqa: E402
from optimizer.solve.solver import run_solver  # noqa: E402


def phase_plan(case: str) -> tuple[dict[str, float], float]:
    cache = Path(f"/tmp/gpumix-start-{case}.pkl")
    if cache.exists():
        with cache.open("rb") as f:
            found: tuple[dict[str, float], float] = pickle.load(f)
        return found
    scenario = scenario_of(case)
    built = build_model(scenario, tuple(estimate_pairs(scenario)))
    settings = SolverSettings(threads=1, solver="highs", progress=False)
    started = time.perf_counter()
    first = plan_first.plan_first(built, settings, budget=(18.0, 15.0))
    assert first is not None and first.values is not None and first.best is not None
    print(f"phase: {first.best:,.2f} in {time.perf_counter() - started:.1f} s", flush=True)
    with cache.open("wb") as f:
        pickle.dump((first.values, first.best), f)
    return first.values, first.best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--case", default="s10-20-36-1")
    parser.add_argument("--solvers", default="scip-cold,scip,highs")
    parser.add_argument("--time-limit", type=float, default=57.0)
    args = parser.parse_args()
    values, cost = phase_plan(args.case)
    print(f"{args.case}: the phase's plan {cost:,.2f}")
    scenario = scenario_of(args.case)
    estimates = tuple(estimate_pairs(scenario))
    for name in args.solvers.split(","):
        solver = name.removesuffix("-cold")
        built = build_model(scenario, estimates)
        settings = SolverSettings(
            threads=1, solver=solver, progress=False, time_limit=args.time_limit
        )
        started = time.perf_counter()
        start = None if name.endswith("-cold") else values
        run = run_solver(built.problem, settings, start=start)
        gap = "-" if run.gap is None else f"{run.gap:.3%}"
        bound = "-" if run.bound is None else f"{run.bound:,.2f}"
        print(
            f"{name:<11} {time.perf_counter() - started:5.1f} s  {run.status.value:<10} "
            f"gap {gap:>8}  bound {bound}",
            flush=True,
        )


if __name__ == "__main__":
    main()
