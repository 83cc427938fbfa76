"""The Summary's note on serving moves and ``change_cost`` (methodology 2.16).

Takes the plans of a run; hands on one note per plan whose serving replicas
move (a replica taken down while its workload still serves the next month),
or that was solved with ``change_cost`` > 0: how many moves, and what the
charge does (weighed in the search only; no money figure includes it). Read
from the plan alone: no extra solve.
"""

from __future__ import annotations

from collections.abc import Sequence

from optimizer.currency import money_text
from optimizer.results import Plan


def moves_note(plan: Plan) -> str | None:
    """One plan's note, or None when it has no plan, or no moves and no charge."""
    if plan.total_cost is None or plan.moves is None:
        return None
    charge = plan.scenario.assumptions.change_cost
    n = plan.move_count
    if n == 0 and charge <= 0:
        return None
    each = ", ".join(f"{w} {k}" for w, k in sorted(plan.moves.items()))
    moved = f"its serving replicas move {n} times ({each})" if n else "no serving replica moves"
    text = f"Scenario '{plan.name}': {moved}"
    if charge <= 0:
        return text + (
            " (a replica taken down while its workload still serves the next month); moves"
            " often only choose between plans of the same cost. Assumptions change_cost"
            " (money per move, e.g. 1) keeps replicas in place; the costs shown stay the"
            " plan's real cost (methodology 2.16)."
        )
    return text + (
        f"; change_cost {money_text(charge, plan.currency)} a move was weighed in the search"
        " and is in no cost shown here; the plan's status and gap are of its cost plus"
        f" {money_text(charge * n, plan.currency)} for its moves (methodology 2.16)."
    )


def moves_notes(plans: Sequence[Plan]) -> list[str]:
    """The notes of every plan that has one, in the plans' order."""
    return [note for note in map(moves_note, plans) if note is not None]
