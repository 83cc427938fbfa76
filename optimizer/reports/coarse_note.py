"""The Summary's note on coarse planning (``--coarse-after``, issue 30).

Takes the plans of a run; hands on one note per plan whose layouts were
tied per quarter (:attr:`SolverInfo.coarse_after`): from which month, and
what the plan costs against the monthly plan where that was also solved and
proven (:attr:`SolverInfo.monthly_cost`), or that no comparison was made.
"""

from __future__ import annotations

from collections.abc import Sequence

from optimizer.currency import money_text
from optimizer.results import Plan


def coarse_note(plan: Plan) -> str | None:
    """One plan's note, or None when its layouts were planned month by month."""
    info = plan.solver
    if info is None or info.coarse_after is None:
        return None
    text = (
        f"Scenario '{plan.name}': layouts (GPUs owned and reserved, replicas, slots, servers) "
        f"are fixed per quarter after month {info.coarse_after} (--coarse-after / "
        "coarse_after_month); "
    )
    if plan.total_cost is None:
        return text + "no plan."
    if info.monthly_cost is None:
        return text + (
            "the monthly plan was not solved to a proven optimum here (tried only below 4,000"
            " integers, in a quarter of the time left), so no comparison was made."
        )
    # The monthly optimum is of what the search minimised: with change_cost > 0
    # (methodology 2.16) the cost plus the charge per move, so compare that.
    extra = (plan.objective or plan.total_cost) - info.monthly_cost
    if plan.scenario.assumptions.change_cost > 0:
        text += "compared by cost plus change_cost per move (what both searches minimised): "
    if round(extra, 2) == 0:
        monthly = money_text(info.monthly_cost, plan.currency)
        return text + f"this plan costs the same as the monthly plan ({monthly})."
    return text + (
        f"this plan costs {money_text(extra, plan.currency)} more than the monthly plan "
        f"({money_text(info.monthly_cost, plan.currency)})."
    )


def coarse_notes(plans: Sequence[Plan]) -> list[str]:
    """The notes of every coarse plan, in the plans' order."""
    return [note for note in map(coarse_note, plans) if note is not None]
