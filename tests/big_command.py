"""Run a gpumix command on a model large enough to be searching: ``python -m tests.big_command``.

The input file named on the command line is not read: every load returns
``benchmarks.synthetic.synthetic_scenario(GPUS, WORKLOADS, MONTHS, SEED)``
(env ``GPUMIX_BIG``, default ``10,20,36,1``; no solver proves it within a
minute). Used by tests that send real signals to a real process
(``tests/solve/test_interrupt.py``) or time a whole command.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import optimizer.inputs.load
from benchmarks.synthetic import synthetic_scenario
from optimizer.cli import main
from optimizer.domain import LoadedInput


def big_input(path: Path | None, _names: Sequence[str] = ()) -> LoadedInput:
    gpus, workloads, months, seed = (
        int(x) for x in os.environ.get("GPUMIX_BIG", "10,20,36,1").split(",")
    )
    scenario = synthetic_scenario(gpus, workloads, months, seed)
    files = (path,) if path is not None else ()
    return LoadedInput(scenarios=(scenario,), files=files)


def force_beside_phase() -> None:
    """Env ``GPUMIX_BESIDE=1``: every model counts as above ``MAX_INTEGERS``, so that a
    (10, 20, 36) model runs HiGHS beside the plan-first phase (``optimizer.solve.beside_phase``)."""
    import optimizer.solve.plan_first
    import optimizer.solve.solver

    optimizer.solve.plan_first.MAX_INTEGERS = 0
    optimizer.solve.solver.MAX_INTEGERS = 0  # type: ignore[misc]


if __name__ == "__main__":
    optimizer.inputs.load.load_input = big_input  # type: ignore[assignment]
    if os.environ.get("GPUMIX_BESIDE") == "1":
        force_beside_phase()
    sys.exit(main(sys.argv[1:]))
