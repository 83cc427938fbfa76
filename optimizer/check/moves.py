"""Rule on what a plan reports: its serving moves and the objective they make (methodology 2.16).

Takes the scenario, the plan's ``Decisions`` and the plan; hands on the moves
recomputed per realtime workload (:func:`moves_by_workload`), the objective the
search minimised (:func:`objective_of`: the recomputed cost plus
``change_cost`` per move) and a violation line where the plan's reported moves
differ. A move: a serving replica of (type, place, width) that runs in month
``t - 1`` and not in month ``t``, both in its workload's window.
"""

from __future__ import annotations

from collections import Counter

from optimizer.domain import Kind, Scenario
from optimizer.results import Decisions, Plan


def moves_by_workload(scenario: Scenario, decisions: Decisions) -> dict[str, int]:
    """Replicas taken down between two months of each realtime workload's window."""
    layouts: dict[tuple[str, int], Counter[tuple[str, str, int]]] = {}
    for (name, g, place, k, t), n in decisions.replicas.items():
        layouts.setdefault((name, t), Counter())[(g, place, k)] += n
    found: dict[str, int] = {}
    for w in scenario.workloads:
        if w.kind is not Kind.REALTIME_INFERENCE:
            continue
        moved = 0
        months = w.window(scenario.horizon_months)
        for t in months[1:]:
            # Counter subtraction keeps positive counts only: what ran and stopped.
            gone = layouts.get((w.name, t - 1), Counter()) - layouts.get((w.name, t), Counter())
            moved += sum(gone.values())
        if moved:
            found[w.name] = moved
    return found


def objective_of(scenario: Scenario, total_cost: float, moves: dict[str, int]) -> float:
    """What the search minimised: the cost plus ``change_cost`` per move (undiscounted)."""
    return total_cost + scenario.assumptions.change_cost * sum(moves.values())


def moves_violations(scenario: Scenario, decisions: Decisions, plan: Plan) -> list[str]:
    """The plan's reported moves against the recomputed ones (a miss matters where charged)."""
    expected = moves_by_workload(scenario, decisions)
    reported = plan.moves
    if reported is None:
        if scenario.assumptions.change_cost > 0:
            return [f"reported moves are missing; recomputed {sum(expected.values())}"]
        return []
    found = []
    for w in sorted(set(expected) | set(reported)):
        if reported.get(w, 0) != expected.get(w, 0):
            found.append(
                f"moves of {w}: reported {reported.get(w, 0)} but recomputed {expected.get(w, 0)}"
            )
    return found
