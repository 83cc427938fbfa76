"""``--solver auto`` on small models: HiGHS alone, the scenarios side by side.

Takes the scenarios of one run; hands on whether every one builds a model
below :data:`SMALL_INTEGERS` whole-number variables. On such models HiGHS
alone proves the optimum in seconds, and what makes the whole command slow
is that the race keeps both cores on one scenario at a time: the bundled
example's three scenarios, whole ``gpumix solve`` on an idle machine, took
21.4-21.7 s with the race and 13.4-13.7 s with ``--solver highs`` (each plan
on one core, side by side, its baselines and shadow prices starting as soon
as it is known). So ``auto`` runs small scenarios as ``highs`` does, and
keeps the race for larger ones, where SCIP's root bound and the plan-first
phase pay (docs/performance.md, "Which solver").
"""

from __future__ import annotations

from collections.abc import Sequence

import pulp

from optimizer.domain import Scenario
from optimizer.solve.plan_first import MIN_INTEGERS

# Below the size where the plan-first phase starts: the example has 2,969.
SMALL_INTEGERS = MIN_INTEGERS
# Building a model to count its integers takes 0.07 s on the example; a
# scenario past this many workloads × GPU types × months is not built for it
# (the example: 1,512; (10, 20, 36): 7,200).
CELLS_WORTH_COUNTING = 3_000


def all_small(scenarios: Sequence[Scenario]) -> bool:
    """Whether every scenario's model has fewer than :data:`SMALL_INTEGERS` integers."""
    from optimizer.estimate.pairs import estimate_pairs
    from optimizer.model.build import build_model

    for scenario in scenarios:
        cells = len(scenario.workloads) * len(scenario.gpus) * scenario.horizon_months
        if cells > CELLS_WORTH_COUNTING:
            return False
        built = build_model(scenario, tuple(estimate_pairs(scenario)))
        integers = sum(1 for v in built.problem.variables() if v.cat == pulp.LpInteger)
        if integers >= SMALL_INTEGERS:
            return False
    return True
