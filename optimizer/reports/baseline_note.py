"""The Summary's note beside a saving against a baseline: which GPU type the single-type
baseline kept, and whether the saving is only a bound (a plan or a baseline stopped early)."""

from __future__ import annotations

from optimizer.check.baselines import BEST_SINGLE_GPU
from optimizer.results import Plan, SolveStatus


def baseline_missing_text(baseline: Plan) -> str:
    """What a baseline cell says when there is no plan: "no plan (infeasible)", or why it
    was not solved ("not solved: the time budget was spent", "... stopped by the user")."""
    for note in baseline.diagnostics:
        _part, sep, why = note.partition(" not solved: ")
        if sep and baseline.status is SolveStatus.ERROR:
            return f"not solved: {why}"
    return f"no plan ({baseline.status.value})"


def baseline_note(name: str, baseline: Plan | None, plan: Plan | None = None) -> str:
    """Which GPU type the single-type baseline kept, and whether the saving is only a bound.

    A baseline stopped early costs at most its figure, so the saving may be
    smaller; a plan stopped early costs at most its figure, so the cheapest
    plan saves at least as much; both stopped early: neither way is proven.
    """
    if baseline is None or not baseline.status.has_plan:
        return ""
    parts = []
    if name == BEST_SINGLE_GPU and len(baseline.scenario.gpus) == 1:
        parts.append(f"only {baseline.scenario.gpus[0].name}")
    gap = f", gap {baseline.gap:.1%}" if baseline.gap is not None else ""
    plan_early = plan is not None and plan.status is SolveStatus.TIME_LIMIT
    plan_gap = "unknown" if plan is None or plan.gap is None else f"{plan.gap:.1%}"
    if baseline.status is SolveStatus.TIME_LIMIT and plan_early:
        parts.append(
            f"time limit{gap}, and this plan's gap {plan_gap}: the saving is not proven either way"
        )
    elif baseline.status is SolveStatus.TIME_LIMIT:
        parts.append(f"time limit{gap}: saving at most this")
    elif plan_early:
        parts.append(
            f"this plan stopped early (gap {plan_gap}): the cheapest plan saves at least this"
        )
    return "; ".join(parts)
