"""What ``change_cost`` (methodology 2.16) does to cost and to the number of moves.

Run: ``.venv/bin/python benchmarks/bench_change_cost.py [--charges 0,1,10,100,1000]
[--solver highs] [--time-limit S] [--company-time-limit S] [--no-company]
[--no-example] [--nodes]``.

For the bundled example (``workbooks/example.xlsx``, every scenario) and
``benchmarks/company.xlsx``, and each charge (in the workbook's currency per
move), it solves every scenario with ``change_cost`` set to it and prints a
table: the status, the real total cost (the plan's money, no charge in it),
its difference from the plan at charge 0, the serving moves (per workload where
any), what was minimised (cost + charge × moves), the proven gap of that, and
the place changes of training and batch work (months whose set of (type,
place) differs from the month before's; not charged, counted for
comparison). Counts and costs, not seconds: wall times depend on load.
``--nodes`` instead proves each example scenario's model at each charge with
HiGHS on one thread (``bench_nodes.highs_proof``, seed 0: deterministic
under load) and prints its columns, rows, nodes and simplex iterations.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from optimizer.domain import Kind, Scenario  # noqa: E402
from optimizer.inputs.load import load_input  # noqa: E402
from optimizer.results import Plan, SolverSettings  # noqa: E402
from optimizer.solve.solver import solve_scenario  # noqa: E402

HEADER = (
    f"{'scenario':<26} {'charge':>7} {'status':<10} {'real cost':>14} {'vs 0':>11} "
    f"{'moves':>5} {'objective':>14} {'gap':>8} {'gang chg':>8}  moves by workload"
)


def gang_place_changes(scenario: Scenario, plan: Plan) -> int:
    """Months in which a training or batch workload's set of (type, place) is not the last month's."""
    if plan.decisions is None:
        return 0
    places: dict[tuple[str, int], set[tuple[str, str]]] = defaultdict(set)
    for (w, g, p, t), hours in plan.decisions.work.items():
        if hours > 0:
            places[(w, t)].add((g, p))
    changes = 0
    for w in scenario.workloads:
        if w.kind is Kind.REALTIME_INFERENCE:
            continue
        months = w.window(scenario.horizon_months)
        for t in months[1:]:
            before, now = places.get((w.name, t - 1)), places.get((w.name, t))
            if before and now and before != now:
                changes += 1
    return changes


def row(name: str, charge: float, plan: Plan, base: Plan | None, scenario: Scenario) -> str:
    cost = plan.total_cost
    money = "-" if cost is None else f"{cost:,.2f}"
    diff = (
        "-"
        if cost is None or base is None or base.total_cost is None
        else f"{cost - base.total_cost:+,.2f}"
    )
    objective = "-" if plan.objective is None else f"{plan.objective:,.2f}"
    gap = "-" if plan.gap is None else f"{plan.gap:.3%}"
    by = ", ".join(f"{w} {n}" for w, n in sorted((plan.moves or {}).items()))
    return (
        f"{name[:26]:<26} {charge:>7g} {plan.status.value:<10} {money:>14} {diff:>11} "
        f"{plan.move_count:>5} {objective:>14} {gap:>8} {gang_place_changes(scenario, plan):>8}  {by}"
    )


def bench(path: Path, charges: list[float], settings: SolverSettings) -> list[str]:
    loaded = load_input(path)
    lines = []
    for scenario in loaded.scenarios:
        base: Plan | None = None
        for charge in charges:
            s = replace(scenario, assumptions=replace(scenario.assumptions, change_cost=charge))
            plan = solve_scenario(s, replace(settings, currency=s.assumptions.currency))
            if charge == 0:
                base = plan
            line = row(f"{path.stem}:{scenario.name}", charge, plan, base, s)
            print(line, flush=True)
            lines.append(line)
    return lines


def proofs(charges: list[float]) -> None:
    """The example's models at each charge: size, HiGHS nodes and iterations (one thread)."""
    import tempfile

    from benchmarks.bench_nodes import highs_proof
    from optimizer.estimate.pairs import estimate_pairs
    from optimizer.model.build import build_model

    print(
        f"{'scenario':<14} {'charge':>7} {'columns':>8} {'rows':>7} {'nodes':>7} {'iterations':>10} {'objective':>14}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for scenario in load_input(ROOT / "workbooks" / "example.xlsx").scenarios:
            estimates = estimate_pairs(scenario)
            for charge in charges:
                a = replace(scenario.assumptions, change_cost=charge)
                problem = build_model(replace(scenario, assumptions=a), estimates).problem
                mps = Path(folder) / f"{scenario.name}-{charge:g}.mps"
                problem.writeMPS(str(mps))
                _s, objective, nodes, iterations = highs_proof(mps, seed=0, start=None)
                print(
                    f"{scenario.name:<14} {charge:>7g} {len(problem.variables()):>8} "
                    f"{len(problem.constraints()):>7} {nodes:>7} {iterations:>10} {objective:>14,.2f}",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--charges", default="0,1,10,100,1000")
    parser.add_argument("--solver", default="auto")
    parser.add_argument("--time-limit", type=float, default=None, help="per example solve")
    parser.add_argument("--company-time-limit", type=float, default=120.0)
    parser.add_argument("--no-company", action="store_true")
    parser.add_argument("--no-example", action="store_true")
    parser.add_argument("--nodes", action="store_true")
    args = parser.parse_args()
    charges = [float(c) for c in args.charges.split(",")]
    if args.nodes:
        proofs(charges)
        return
    print(HEADER, flush=True)
    if not args.no_example:
        bench(
            ROOT / "workbooks" / "example.xlsx",
            charges,
            SolverSettings(solver=args.solver, time_limit=args.time_limit),
        )
    if not args.no_company:
        bench(
            ROOT / "benchmarks" / "company.xlsx",
            charges,
            SolverSettings(solver=args.solver, time_limit=args.company_time_limit),
        )


if __name__ == "__main__":
    main()
