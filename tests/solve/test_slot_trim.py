"""A plan never reports more slots than its work needs (``optimizer.solve.slot_trim``).

Slots cost nothing in the model, so a solver may leave spare ones; the Places
sheet would then say GPUs are set aside that nothing uses. The layout audit's
case: four 700-GPU-hour runs a month in gangs of 2 copies × 2 GPUs, 2 GPUs a
server, spot capped at 6 GPUs. Its spot work needs one run slot of 4 GPUs: 2
slots of width 2, although the offer holds 3.
"""

from __future__ import annotations

import pulp

from optimizer.estimate.pairs import estimate_pairs
from optimizer.model.build import build_model
from optimizer.results import SolverSettings
from optimizer.solve.assemble import read_decisions
from optimizer.solve.solver import run_solver
from tests.test_deployable import _capped_spot_runs

SPOT_SLOTS = ("G", "G|spot|1", 2, 1)


def test_spare_slots_the_solver_left_are_not_reported() -> None:
    s = _capped_spot_runs(max_per_node=2)
    built = build_model(s, estimate_pairs(s))
    run_solver(built.problem, SolverSettings(solver="highs"))
    slots = built.slots[SPOT_SLOTS]
    slots.setInitialValue(3)  # a third slot: allowed, costs nothing, holds nothing
    assert pulp.value(slots) == 3
    assert read_decisions(built).slots == {SPOT_SLOTS: 2}


def test_slots_the_work_needs_are_kept() -> None:
    # With 8 GPUs a server all four runs go on spot: 3,294 paid hours need all 3 slots.
    s = _capped_spot_runs(max_per_node=8)
    built = build_model(s, estimate_pairs(s))
    run_solver(built.problem, SolverSettings(solver="highs"))
    assert read_decisions(built).slots == {SPOT_SLOTS: 3}


def test_spare_run_slots_the_solver_left_are_not_reported() -> None:
    """Issue 35: 9 run slots of 2 spot GPUs (18 GPUs "set aside in slots") for 97-143
    GPU-hours a month. Here the spot offer holds 12 GPUs and the four runs' 3,875.43
    paid hours need 8 GPUs in run slots of 4 (two of them: 6 GPUs cannot be split into
    run slots of 4), so 4 slots of width 2, not the 6 that 3 run slots would hold."""
    from dataclasses import replace

    from tests.checked import solve_checked

    s = _capped_spot_runs(max_per_node=2)
    s = replace(s, offers=(replace(s.offers[0], max_units=12), *s.offers[1:]))
    built = build_model(s, estimate_pairs(s))
    run_solver(built.problem, SolverSettings(solver="highs"))
    (runs,) = built.run_slots.values()
    assert list(runs) == [4]
    assert pulp.value(built.work[("job", "G", "G|spot|1", 1)]) > 3 * 730  # all on spot
    runs[4].setInitialValue(3)  # a third run slot: allowed, costs nothing, holds nothing
    built.slots[SPOT_SLOTS].setInitialValue(6)
    assert read_decisions(built).slots == {SPOT_SLOTS: 4}
    plan = solve_checked(s)  # the checker takes the trimmed slots
    assert [p.slots for p in plan.places if p.slots] == [{2: 4}]
