"""How long the model takes to build and solve, at three sizes and on the bundled example.

Run: ``.venv/bin/python benchmarks/bench_solve.py [--time-limit S] [--gap F] [--seeds 1,2,3]``.

For each synthetic size (G GPU types, W workloads, T months) it prints the
estimate, build and solve seconds, the total, the model's size, the proven
gap HiGHS reached, the best plan's cost and the proven lower bound; then the bundled example end to end (read,
estimate, build, solve) when ``workbooks/example.xlsx`` and
``optimizer.inputs.load`` exist. Targets on a 2-core machine: (10, 20, 36)
proven within 0.1 % in under 20 s; building under 20 % of the total at
(10, 20, 36) and (20, 50, 60).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.synthetic import synthetic_scenario  # noqa: E402
from optimizer.domain import Scenario  # noqa: E402
from optimizer.estimate.pairs import estimate_pairs  # noqa: E402
from optimizer.results import Plan, SolverSettings  # noqa: E402
from optimizer.solve.solver import solve_scenario  # noqa: E402

SIZES = ((6, 5, 12), (10, 20, 36), (20, 50, 60))
HEADER = (
    f"{'case':<24} {'status':<10} {'estimate':>8} {'build':>7} {'solve':>7} {'total':>7} "
    f"{'build%':>6} {'vars':>7} {'rows':>7} {'ints':>6} {'gap':>8} {'best plan':>12} {'bound':>12}"
)


def _line(case: str, plan: Plan, estimate_s: float, total_s: float) -> str:
    info = plan.solver
    build = info.build_seconds if info else 0.0
    solve = info.seconds if info else 0.0
    gap = "-" if plan.gap is None else f"{plan.gap:.4%}"
    best = "-" if plan.total_cost is None else f"{plan.total_cost:,.0f}"
    # The proven bound after a time limit is steadier from run to run than the
    # best plan found, so it is the fairer figure to compare formulations by.
    bound = "-" if info is None or info.bound is None else f"{info.bound:,.0f}"
    share = build / total_s if total_s > 0 else 0.0
    return (
        f"{case:<24} {plan.status.value:<10} {estimate_s:8.2f} {build:7.2f} {solve:7.2f} "
        f"{total_s:7.2f} {share:6.1%} {info.variables if info else 0:7d} "
        f"{info.constraints if info else 0:7d} {info.integers if info else 0:6d} {gap:>8} "
        f"{best:>12} {bound:>12}"
    )


def bench(scenario: Scenario, case: str, settings: SolverSettings) -> str:
    started = time.perf_counter()
    estimates = estimate_pairs(scenario)
    estimate_s = time.perf_counter() - started
    plan = solve_scenario(scenario, settings, estimates)
    return _line(case, plan, estimate_s, time.perf_counter() - started)


def bench_example(settings: SolverSettings) -> list[str]:
    workbook = ROOT / "workbooks" / "example.xlsx"
    try:
        from optimizer.inputs.load import load_input  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return ["example: optimizer.inputs.load is not there yet; skipped"]
    if not workbook.exists():
        return ["example: workbooks/example.xlsx is not there yet; skipped"]
    started = time.perf_counter()
    loaded = load_input(workbook)
    read_s = time.perf_counter() - started
    lines = [f"example workbook read in {read_s:.2f} s"]
    for scenario in loaded.scenarios:
        lines.append(bench(scenario, f"example:{scenario.name}"[:24], settings))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--gap", type=float, default=1e-3)
    parser.add_argument(
        "--seeds",
        default="1",
        help="synthetic scenarios to draw, e.g. '1,2,3' (a MIP's gap after a time limit "
        "varies from instance to instance, so one seed says little)",
    )
    parser.add_argument("--sizes", default="all", help="'all' or e.g. '10,20,36'")
    args = parser.parse_args()
    settings = SolverSettings(time_limit=args.time_limit, gap=args.gap)
    sizes = SIZES if args.sizes == "all" else (tuple(int(x) for x in args.sizes.split(",")),)
    seeds = [int(x) for x in args.seeds.split(",")]
    print(f"HiGHS, gap {args.gap:g}, time limit {args.time_limit:g} s, seeds {args.seeds}")
    print(HEADER)
    for g, w, t in sizes:
        for seed in seeds:
            scenario = synthetic_scenario(g, w, t, seed=seed)
            print(bench(scenario, f"synthetic ({g},{w},{t}) s{seed}", settings), flush=True)
    for line in bench_example(settings):
        print(line, flush=True)


if __name__ == "__main__":
    main()
