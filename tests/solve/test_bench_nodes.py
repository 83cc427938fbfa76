"""benchmarks/bench_nodes.py: its proofs are deterministic counts, and it reports the optimum."""

from __future__ import annotations

from pathlib import Path

import pulp

from benchmarks.bench_nodes import highs_proof, optimum_of, scip_proof


def _knapsack(folder: Path) -> Path:
    """A small MIP with a known optimum (-9 at x = 2, y = 1) written as MPS."""
    prob = pulp.LpProblem("knapsack", pulp.LpMinimize)
    x = prob.add_variable("x", 0, 4, cat=pulp.LpInteger)
    y = prob.add_variable("y", 0, 4, cat=pulp.LpInteger)
    prob += -3 * x - 3 * y
    prob += 2 * x + 3 * y <= 7.5
    prob += x <= 2.5
    mps = folder / "knapsack.mps"
    prob.writeMPS(str(mps))
    return mps


def test_one_highs_thread_gives_the_same_counts_every_time(tmp_path: Path) -> None:
    mps = _knapsack(tmp_path)
    first = highs_proof(mps, seed=1, start=None)
    again = highs_proof(mps, seed=1, start=None)
    assert round(first[1], 6) == -9.0
    assert first[2:] == again[2:]  # nodes and simplex iterations


def test_from_the_optimum_and_with_scip_the_optimum_is_the_same(tmp_path: Path) -> None:
    mps = _knapsack(tmp_path)
    start = optimum_of(mps)
    assert round(highs_proof(mps, seed=0, start=start)[1], 6) == -9.0
    assert round(scip_proof(mps, seed=0)[1], 6) == -9.0
