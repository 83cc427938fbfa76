"""Sweep throughput: variants solved per second with 1 and with 2 processes.

    .venv/bin/python benchmarks/bench_sweep.py [--points N] [--vary KEY=START:STOP]

Solves the bundled example's first scenario (``load_input(None)``) over a
one-way sweep, without bisection, so every run solves the same variants. One
process solves in this process; two processes are a spawn pool, start-up
included (that is what a user waits for). Target: two processes ≥ 1.8× one.
On a machine whose cores are busy with other work the figure says more about
the machine than about the code: run it on an idle one. "Workers busy on
average" (solve seconds / wall seconds) separates the two: near 2.0 means the
pool kept both workers solving, and a low speed-up then comes from solves
that each ran slower (cores shared with other processes).
"""

from __future__ import annotations

import argparse
import os
import time

from optimizer.analysis.sweep import run_sweep
from optimizer.analysis.sweep_params import parse_vary
from optimizer.inputs.load import load_input
from optimizer.results import SolverSettings


def _throughput(points: int, vary: str, jobs: int) -> tuple[float, float, list[float]]:
    base = load_input(None).scenarios[0]
    specs = [parse_vary(f"{vary}:{points}", base)]
    started = time.perf_counter()
    result = run_sweep(base, specs, SolverSettings(threads=1), jobs=jobs, refine_steps=0)
    seconds = time.perf_counter() - started
    solved = sum(1 for o in result.outcomes if o.summary.status.has_plan)
    if solved != points:
        raise SystemExit(f"only {solved} of {points} variants solved")
    return points / seconds, seconds, [o.summary.seconds for o in result.outcomes]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=8)
    parser.add_argument("--vary", default="electricity_per_kwh=0.05:0.40")
    args = parser.parse_args()
    print(f"bundled example, {args.points} variants of {args.vary}, {os.cpu_count()} CPUs")
    rates = {}
    for jobs in (1, 2):
        rate, seconds, solves = _throughput(args.points, args.vary, jobs)
        rates[jobs] = rate
        print(
            f"  {jobs} process{'es' if jobs > 1 else ''}: {rate:.3f} variants/s ({seconds:.1f} s; "
            f"solves {sum(solves):.1f} s in all, {min(solves):.1f}–{max(solves):.1f} s each; "
            f"{sum(solves) / seconds:.2f} workers busy on average)"
        )
    print(f"  speed-up with 2: {rates[2] / rates[1]:.2f}× (target ≥ 1.8×)")


if __name__ == "__main__":
    main()
