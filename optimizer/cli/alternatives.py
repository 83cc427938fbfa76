"""``gpumix alternatives``: plans within a slack of the cheapest that push another goal.

Parses ``--slack`` and ``--goal`` (usage errors exit 2), runs
:func:`optimizer.analysis.alternatives.run_alternatives`, writes the workbook
and prints one line per alternative (or the JSON). The shared command-line
helpers live in ``optimizer.cli.common``.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from optimizer.errors import InputError, Problem, terminal_text
from optimizer.inputs.schema import MAX_SLACK
from optimizer.model.goal_names import Goal

if TYPE_CHECKING:
    from optimizer.analysis.alternatives import Alternative, AlternativesResult


def _slack(text: str) -> float:
    """``--slack``: a number >= 0 (a fraction: 0.02 is 2 %)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and 0 <= value <= MAX_SLACK):
        raise InputError(
            Problem(
                file="",
                message=f"usage: --slack must be a number ≥ 0, at most {MAX_SLACK:g} "
                "(a fraction of the optimum: 0.02 is 2 %)",
                value=text,
            )
        )
    return value


def _goals(names: Sequence[str]) -> list[Goal]:
    """``--goal`` (repeatable): each one of the six; none given means all six, in their order."""
    allowed = [g.value for g in Goal]
    wrong = [name for name in names if name not in allowed]
    if wrong:
        raise InputError(
            [
                Problem(
                    file="",
                    message=f"usage: --goal must be one of {', '.join(allowed)}",
                    value=name,
                )
                for name in wrong
            ]
        )
    return [Goal(name) for name in dict.fromkeys(names)] or list(Goal)


def run_alternatives_command(args: argparse.Namespace) -> int:
    from optimizer.analysis.alternatives import run_alternatives
    from optimizer.analysis.alternatives_workbook import (
        alternatives_json,
        write_alternatives_workbook,
    )
    from optimizer.analysis.extras import say
    from optimizer.cli.common import (
        check_jobs,
        count_text,
        default_output,
        one_scenario,
        output_path,
        plan_line,
        solver_settings,
        write_output,
    )
    from optimizer.solve.budget import command_budget

    slack = _slack(args.slack)
    goals = _goals(args.goal)
    check_jobs(args.jobs)
    quiet = args.quiet or args.json
    scenario = one_scenario(args.input, args.scenario)
    written = output_path(
        args.output or default_output(args.input, "alternatives"), scenario.source_files
    )
    settings = solver_settings(args, progress=False)
    say(quiet, f"solving {scenario.name} and {count_text(len(goals), 'alternative')} ...")
    budget = command_budget(args.time_limit)
    result = run_alternatives(scenario, settings, goals, slack, jobs=args.jobs, budget=budget)
    write_output(write_alternatives_workbook, written, result)
    if args.json:
        print(alternatives_json(result))
    elif not args.quiet:
        print(terminal_text(plan_line(result.optimum)))
        for line in _alternative_lines(result):
            print(terminal_text(line))
        print(terminal_text(f"wrote {written}"))
    plans = [result.optimum, *(a.plan for a in result.alternatives)]
    if args.quiet and not args.json:
        # Quiet drops the summary, not the reason for exit 1 (issue 33 item 10).
        failed = [plan_line(result.optimum)] if not result.optimum.status.has_plan else []
        failed += [
            f"{result.optimum.name}, {a.goal.value}: {a.plan.status.value} — "
            + "; ".join(a.plan.diagnostics)
            for a in result.alternatives
            if not a.plan.status.has_plan
        ]
        for line in failed:
            print(terminal_text(line), file=sys.stderr)
    return 0 if all(p.status.has_plan for p in plans) else 1


def _alternative_lines(result: AlternativesResult) -> list[str]:
    """One line per alternative: its goal's value against the optimum's, then what changed."""
    from optimizer.analysis.alternative_words import describe_change
    from optimizer.currency import money_text, unit_in
    from optimizer.model.goal_names import GOALS

    lines = [*result.diagnostics]
    for alt in result.alternatives:
        info = GOALS[alt.goal]
        if alt.goal_value is None:
            lines.append(
                f"  {alt.goal.value}: {alt.plan.status.value} — {'; '.join(alt.plan.diagnostics)}"
            )
            continue
        before = result.optimum_goal_values.get(alt.goal) or 0.0
        lines.append(
            f"  {alt.goal.value}: {alt.goal_value:,.6g} {unit_in(info.unit, alt.plan.currency)} (optimum {before:,.6g}), "
            f"total {money_text(alt.plan.total_cost or 0.0, alt.plan.currency)} — "
            f"{describe_change(result.optimum, alt.plan)}" + _goal_gap(alt)
        )
    return lines


def _goal_gap(alt: Alternative) -> str:
    """Where the goal's value is read, whether it is only a bound (issue 35 item 3: a 100 %
    gap was shown in the workbook alone, and a far better plan lay inside the slack)."""
    from optimizer.results import SolveStatus

    if alt.goal_status is SolveStatus.OPTIMAL:
        return ""
    gap = "unknown" if alt.goal_gap is None else f"{alt.goal_gap:.2%}"
    return (
        f" [goal not proven best ({alt.goal_status.value}, gap {gap}): "
        "a better value may exist within the slack]"
    )
