"""How long planning for three futures takes on the bundled example (issue 19).

Run: ``.venv/bin/python benchmarks/bench_futures.py [--solvers auto,highs]
[--time-limit S] [--decide-by 1]``.

The example's first scenario (us-baseline) with three futures: low (demand
factor 0.7, probability 0.25), expected (1.0, 0.5) and high (1.5, 0.25),
decisions of month 1 shared. Per solver it prints the seconds of each step
(each future alone, the expected future and its re-plans, building and
solving the two-stage model, the total), the two-stage status and proven gap,
the expected cost, EVPI and VSS. Target (issue 19): proven optimal in under
15 s in total on a 2-core machine.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from optimizer.check.verify import solve_futures_and_verify  # noqa: E402
from optimizer.domain import Scenario  # noqa: E402
from optimizer.domain.futures import Futures, FutureSpec  # noqa: E402
from optimizer.inputs.load import load_input  # noqa: E402
from optimizer.results import SolverSettings  # noqa: E402

TARGET_SECONDS = 15.0


def example_with_futures(decide_by: int) -> Scenario:
    base = load_input(None).scenarios[0]
    futures = Futures(
        (
            FutureSpec("low", 0.25, demand_factor=0.7),
            FutureSpec("expected", 0.5),
            FutureSpec("high", 0.25, demand_factor=1.5),
        ),
        decide_by_month=decide_by,
    )
    return replace(base, futures=futures)


def _money(x: float | None) -> str:
    return "-" if x is None else f"{x:,.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solvers", default="auto,highs")
    parser.add_argument("--time-limit", type=float, default=None)
    parser.add_argument("--decide-by", type=int, default=1)
    args = parser.parse_args(argv)
    scenario = example_with_futures(args.decide_by)
    print(f"{scenario.name}: futures low/expected/high, decide by month {args.decide_by}")
    for solver in args.solvers.split(","):
        settings = SolverSettings(solver=solver, time_limit=args.time_limit)
        result = solve_futures_and_verify(scenario, settings)
        print(f"\nsolver {solver}: {result.status.value}, gap {result.gap}")
        for step, seconds in result.seconds:
            print(f"  {step:<44} {seconds:8.2f} s")
        for o in result.outcomes:
            alone = o.alone.solver.seconds if o.alone and o.alone.solver else None
            print(
                f"  {o.spec.name:<10} shared plan {_money(o.plan.total_cost):>14}  "
                f"alone {_money(o.alone.total_cost if o.alone else None):>14} "
                f"({alone if alone is None else round(alone, 2)} s solving)  regret "
                f"{_money(o.regret)}"
            )
        print(
            f"  expected cost {_money(result.expected_cost)}  EVPI {_money(result.evpi)}  "
            f"VSS {_money(result.vss)}  two-stage model: {result.solver}"
        )
        total = dict(result.seconds).get("total", 0.0)
        verdict = "meets" if total < TARGET_SECONDS else "misses"
        print(f"  total {total:.1f} s {verdict} the {TARGET_SECONDS:g} s target")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
