"""Plans first (issue 30): first plan, plan after fix-and-optimize, final plan, bound and gap.

Run: ``.venv/bin/python benchmarks/bench_planfirst.py [--time-limit 60]
[--solver auto] [--cases company,s6-8-36-1,...] [--cold]``. ``--cold`` skips
the plan-first phase (the engine as on main: the same solve without a
first plan). Per case it prints the first plan's cost, seconds and source,
the cost after fix-and-optimize and its seconds, the final plan, the proven
bound and gap, the seconds until the best plan was within 1 % of the best
plan known (``BEST_KNOWN``) and until the proven gap reached 1 %, the
whole solve's seconds, and HiGHS's branch-and-bound nodes and simplex
iterations in the full solve (counts that load does not change; in a race,
HiGHS's side). Cases: ``company`` (``benchmarks/company.xlsx``, made by
``make_company.py``) and ``sG-W-T-seed`` (``synthetic_scenario``). Targets
(idle 2-core machine): company and (6, 8, 36) a plan within 1 % in 15 s and
proven within 1 % in 60 s; (10, 20, 36) proven within 1 % in 60 s;
(20, 50, 60) a plan within 5 % in 60 s.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_solve import Trace  # noqa: E402
from benchmarks.synthetic import synthetic_scenario  # noqa: E402
from optimizer.domain import Scenario  # noqa: E402
from optimizer.estimate.pairs import estimate_pairs  # noqa: E402
from optimizer.inputs.load import load_input  # noqa: E402
from optimizer.results import SolverSettings  # noqa: E402
from optimizer.solve import adapters, plan_first, race, solver  # noqa: E402
from optimizer.solve.plan_first import FirstPlan  # noqa: E402

CASES = (
    "company",
    "s6-8-36-1",
    "s6-8-36-2",
    "s10-20-36-1",
    "s10-20-36-2",
    "s10-20-36-3",
    "s20-50-60-1",
    "s20-50-60-2",
    "s20-50-60-3",
)
# The cheapest plan known of each case (proven optimal where marked in
# docs/performance.md, "Plans first"), for "within 1 % of the best known".
BEST_KNOWN = {
    "company": 251_269.43,  # proven optimal
    "s6-8-36-1": 24_787.94,  # proven optimal
    "s6-8-36-2": 196_724.45,  # proven optimal (the race, idle, 34.8 s)
    "s10-20-36-1": 189_618.75,  # proven within 0.02 %
    "s10-20-36-2": 154_028.00,  # proven optimal (the race, idle, --time-limit 300: 150.3 s)
    "s10-20-36-3": 387_390.80,  # proven optimal
    # Each workload's cheapest GPU type, widened to the two cheapest, beside HiGHS, idle,
    # --time-limit 60 (fifth session; the cheapest type alone: 495,969.75); the race
    # alone, --time-limit 600, had reached 655,337.15 (bound 370,070.58).
    "s20-50-60-1": 414_669.57,
    "s20-50-60-2": 802_261.58,  # beside HiGHS, fourth session; proven within 5.39 %
    # The cheapest type's own search, --time-limit 60, sixth session (this machine gets
    # further in the same seconds; fifth session: 2,673,012.84); proven within 26.45 %.
    "s20-50-60-3": 2_322_529.12,
}
HEADER = (
    f"{'case':<12} {'first plan':>12} {'s':>5} {'source':<22} {'after FO':>12} {'s':>5} "
    f"{'final plan':>12} {'bound':>12} {'gap':>7} {'<=1% s':>6} {'gap1% s':>7} {'total s':>7} "
    f"{'nodes':>6} {'iters':>7}"
)


def scenario_of(case: str) -> Scenario:
    if case == "company":
        return load_input(ROOT / "benchmarks" / "company.xlsx").scenarios[0]
    g, w, t, seed = (int(x) for x in case[1:].split("-"))
    return synthetic_scenario(g, w, t, seed)


class Counts:
    """HiGHS's nodes and simplex iterations of the last full solve (read where its outcome is)."""

    def __init__(self) -> None:
        self.nodes = self.iterations = 0
        self._real = adapters.highs_outcome

    def __enter__(self) -> Counts:
        def outcome(highs: Any, has_integers: bool) -> adapters.HighsOutcome:
            info = highs.getInfo()
            self.nodes, self.iterations = info.mip_node_count, info.simplex_iteration_count
            return self._real(highs, has_integers)

        adapters.highs_outcome = outcome  # type: ignore[assignment]
        race.highs_outcome = outcome  # type: ignore[assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        adapters.highs_outcome = self._real  # type: ignore[assignment]
        race.highs_outcome = self._real  # type: ignore[assignment]


def _money(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}"


def bench(case: str, settings: SolverSettings) -> str:
    scenario = scenario_of(case)
    estimates = estimate_pairs(scenario)
    firsts: list[FirstPlan | None] = []
    phase_plans: list[tuple[float, float]] = []  # (seconds from the start, cost) of each
    real = plan_first.plan_first

    def spy(*args: Any, **kw: Any) -> FirstPlan | None:
        objective = args[0].problem.objective
        hand_on = kw.get("on_plan")

        def on_plan(values: dict[str, float]) -> None:
            cost = objective.constant + sum(c * values[v.name] for v, c in objective.items())
            phase_plans.append((time.perf_counter() - started, cost))
            if hand_on is not None:
                hand_on(values)

        found = real(*args, **{**kw, "on_plan": on_plan})
        firsts.append(found)
        return found

    solver.plan_first = spy  # type: ignore[assignment]
    started = time.perf_counter()
    try:
        with Trace() as trace, Counts() as counts:
            plan = solver.solve_scenario(scenario, settings, estimates)
    finally:
        solver.plan_first = real  # type: ignore[assignment]
    total = time.perf_counter() - started
    first = firsts[0] if firsts else None
    best = BEST_KNOWN.get(case, math.nan)
    # Both count from the solve's start: the phase's plans as it found them, the race's reports.
    hits = [at for at, cost in phase_plans if cost <= best * 1.01]
    hits += [at for at, cost, _b in trace.points if cost <= best * 1.01]
    within = min(hits) if hits else None
    proven_1 = trace.time_to(0.01)
    info = plan.solver
    if proven_1 is None and plan.gap is not None and plan.gap <= 0.01 and info is not None:
        proven_1 = total  # proven inside the first progress report
    proven_at = proven_1
    gap = "-" if plan.gap is None else f"{plan.gap:.2%}"
    bound = None if info is None else info.bound
    return (
        f"{case:<12} {_money(first.cost if first else None):>12} "
        f"{(first.seconds if first else 0.0):5.1f} {(first.source if first else '-')[:22]:<22} "
        f"{_money(first.improved if first else None):>12} "
        f"{(first.improve_seconds if first else 0.0):5.1f} {_money(plan.total_cost):>12} "
        f"{_money(bound):>12} {gap:>7} {'-' if within is None else f'{within:.1f}':>6} "
        f"{'-' if proven_at is None else f'{proven_at:.1f}':>7} {total:7.1f} "
        f"{counts.nodes:6d} {counts.iterations:7d}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--solver", default="auto")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--cold", action="store_true", help="skip the plan-first phase")
    args = parser.parse_args()
    if args.cold:
        plan_first.MIN_INTEGERS = 10**12
    settings = SolverSettings(solver=args.solver, time_limit=args.time_limit, progress=True)
    print(f"solver {args.solver}, time limit {args.time_limit:g} s, plan first: {not args.cold}")
    print(HEADER, flush=True)
    for case in args.cases.split(","):
        print(bench(case, settings), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
