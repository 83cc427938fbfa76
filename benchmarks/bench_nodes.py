"""The example's proofs in counts that do not depend on the machine's load: nodes and iterations.

Run: ``.venv/bin/python benchmarks/bench_nodes.py [--seeds 0,1,2,3] [--scip]
[--from-optimum]``.

Builds each scenario of the bundled example, writes it as MPS and proves it
optimal with HiGHS on one thread with gpumix's options (half-cent absolute
gap, no restart, neither feasibility jump nor the root reduced-cost
heuristic), once per random seed (``random_seed``). One HiGHS thread is
deterministic: the branch-and-bound nodes and simplex iterations of a run are
the same on an idle machine and a loaded one, so two versions of the model
can be compared while other work shares the cores (the seconds are printed
too, and do depend on the load). ``--scip`` also proves each one with SCIP
(``randomization/randomseedshift``; nodes and LP iterations).
``--from-optimum`` hands HiGHS the optimum as its first plan before the
proof: what is left is the bound's work, without the luck of finding the
plan early. Every run's total is checked against the expected one to the
cent.

Seeds matter: on these models one seed's path can take ten times the nodes
of another's (docs/performance.md, "Proving the example faster").
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import highspy

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from optimizer.estimate.pairs import estimate_pairs  # noqa: E402
from optimizer.inputs.load import load_input  # noqa: E402
from optimizer.model.build import build_model  # noqa: E402

# The proven optima of the bundled example (docs/performance.md).
EXPECTED = {"us-baseline": 161812.08, "europe": 184016.50, "tight-capex": 178446.21}


def highs_proof(mps: Path, seed: int, start: list[float] | None) -> tuple[float, float, int, int]:
    """(seconds, optimum, nodes, simplex iterations) of one HiGHS proof."""
    h = highspy.Highs()
    for name, value in (
        ("output_flag", False),
        ("threads", 1),
        ("mip_abs_gap", 0.005),
        ("mip_rel_gap", 0.0),
        ("mip_allow_restart", False),
        ("mip_heuristic_run_feasibility_jump", False),
        ("mip_heuristic_run_root_reduced_cost", False),
        ("random_seed", seed),
    ):
        h.setOptionValue(name, value)
    h.readModel(str(mps))
    if start is not None:
        plan = highspy.HighsSolution()
        plan.col_value = start
        plan.value_valid = True
        h.setSolution(plan)
    began = time.perf_counter()
    h.run()
    info = h.getInfo()
    return (
        time.perf_counter() - began,
        info.objective_function_value,
        info.mip_node_count,
        info.simplex_iteration_count,
    )


def optimum_of(mps: Path) -> list[float]:
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("mip_abs_gap", 0.005)
    h.readModel(str(mps))
    h.run()
    return list(h.getSolution().col_value)


def scip_proof(mps: Path, seed: int) -> tuple[float, float, int, int]:
    """(seconds, optimum, nodes, LP iterations) of one SCIP proof."""
    from pyscipopt import Model

    m = Model()
    m.hideOutput()
    m.readProblem(str(mps))
    m.setParam("limits/absgap", 0.005)
    m.setParam("limits/gap", 0.0)
    m.setParam("randomization/randomseedshift", seed)
    began = time.perf_counter()
    m.optimize()
    return time.perf_counter() - began, m.getObjVal(), m.getNNodes(), m.getNLPIterations()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2,3")
    parser.add_argument("--scip", action="store_true")
    parser.add_argument("--from-optimum", action="store_true")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    totals: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for scenario in load_input(None).scenarios:
            mps = Path(folder) / f"{scenario.name}.mps"
            build_model(scenario, estimate_pairs(scenario)).problem.writeMPS(str(mps))
            start = optimum_of(mps) if args.from_optimum else None
            runs = [("HiGHS", partial(highs_proof, mps, start=start))]
            if args.scip:
                runs.append(("SCIP", partial(scip_proof, mps)))
            for solver, prove in runs:
                for seed in seeds:
                    seconds, cost, nodes, iterations = prove(seed=seed)
                    expected = EXPECTED.get(scenario.name)
                    ok = expected is None or round(cost, 2) == expected
                    print(
                        f"{scenario.name:<12} {solver:<5} seed {seed}: {seconds:6.2f} s, "
                        f"{nodes:5d} nodes, {iterations:6d} iterations, ${cost:,.2f}"
                        + ("" if ok else f" (expected ${expected:,.2f})"),
                        flush=True,
                    )
                    total = totals.setdefault(solver, [0.0, 0.0, 0.0])
                    total[0] += seconds
                    total[1] += nodes
                    total[2] += iterations
    for solver, (all_seconds, all_nodes, all_iterations) in totals.items():
        print(
            f"{solver} all runs: {all_seconds:.1f} s, {int(all_nodes)} nodes, "
            f"{int(all_iterations)} iterations"
        )


if __name__ == "__main__":
    main()
