"""What ``gpumix compare`` checks of its inputs before any solve, and its column names.

Its columns are scenarios from several inputs side by side: a name that more
than one input uses is qualified with its input's file (``minimal: base``),
and their money must be in one currency. Inputs are named as the user typed
them.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePath

from optimizer.cli.common import (
    default_output,
    output_path,
    plan_line,
    solver_settings,
    write_output,
)
from optimizer.cli.scenarios import solve_all
from optimizer.currency import one_currency
from optimizer.errors import InputError, Problem, terminal_text
from optimizer.results import Plan
from optimizer.solve.budget import command_budget


def column_names(inputs: Sequence[tuple[Path, Sequence[str]]]) -> list[dict[str, str]]:
    """For each input (its path as typed, its scenario names): name → the name compare shows.

    A name no other input uses stays as it is. A name that two inputs use
    (ignoring case) becomes ``"<input>: <name>"``, where ``<input>`` is the
    file's stem (``minimal``), or as much more of its path as tells those
    inputs apart (``odd/minimal``); the same file given twice is told apart
    by its place on the command line (``minimal #2``).
    """
    holders = Counter(key for _, names in inputs for key in {n.casefold() for n in names})
    clashing = {key for key, count in holders.items() if count > 1}
    qualified = [
        i for i, (_, names) in enumerate(inputs) if any(n.casefold() in clashing for n in names)
    ]
    labels = _labels([(i + 1, inputs[i][0]) for i in qualified])
    label_of = dict(zip(qualified, labels, strict=True))
    shown = [
        {n: f"{label_of[i]}: {n}" if n.casefold() in clashing else n for n in names}
        for i, (_, names) in enumerate(inputs)
    ]
    # A scenario may already be called "minimal: base": then its input's place decides.
    seen: Counter[str] = Counter(v.casefold() for names in shown for v in names.values())
    for i, names in enumerate(shown):
        for n, v in names.items():
            if seen[v.casefold()] > 1:
                names[n] = f"{v} (input {i + 1})"
    return shown


def _labels(paths: Sequence[tuple[int, Path]]) -> list[str]:
    """The shortest ends of the paths (without the suffix) that tell them apart; each path
    comes with its place on the command line, which tells the same path given twice apart."""
    parts = [PurePath(p).with_suffix("").parts for _, p in paths]
    longest = max((len(p) for p in parts), default=0)
    for depth in range(1, longest + 1):
        labels = ["/".join(p[-depth:]) for p in parts]
        if len({label.casefold() for label in labels}) == len(labels):
            return labels
    full = ["/".join(p) for p in parts]
    counts = Counter(label.casefold() for label in full)
    return [
        f"{label} #{place}" if counts[label.casefold()] > 1 else label
        for (place, _), label in zip(paths, full, strict=True)
    ]


def check_one_currency(inputs: Sequence[tuple[Path, str]]) -> None:
    """Before any solve: figures in two currencies side by side would mislead (nothing is
    converted), so every input must share the first one's currency (model v2 §E)."""
    if not inputs:
        return
    first, currency = inputs[0]
    problems = [
        Problem(
            file=str(path),
            message=f"usage: its money is in {other} but {first} is in {currency}; "
            "compare needs one currency (gpumix converts nothing): set the same "
            "Assumptions currency in every workbook",
            file_as_typed=True,
        )
        for path, other in inputs[1:]
        if other != currency
    ]
    if problems:
        raise InputError(problems)


def run_compare_command(args: argparse.Namespace) -> int:
    from optimizer.inputs.load import load_input
    from optimizer.reports.compare import comparison_table, write_comparison

    loaded = [load_input(path) for path in args.inputs]  # every input checked before any solve
    check_one_currency(
        [
            (path, one_currency(s.assumptions.currency for s in item.scenarios))
            for path, item in zip(args.inputs, loaded, strict=True)
        ]
    )
    inputs = [f for item in loaded for f in item.files]
    written = output_path(args.output or default_output(args.inputs[0], "comparison"), inputs)
    settings = solver_settings(args, progress=False)
    names = column_names(
        [
            (path, [s.name for s in item.scenarios])
            for path, item in zip(args.inputs, loaded, strict=True)
        ]
    )
    plans: list[Plan] = []
    budget = command_budget(args.time_limit)
    count = sum(len(item.scenarios) for item in loaded)
    for item, shown in zip(loaded, names, strict=True):
        scenarios = [replace(s, name=shown[s.name]) for s in item.scenarios]
        # Each input's scenarios get their part of what is left of the budget.
        share = len(scenarios) / (count - len(plans))
        solved = solve_all(
            scenarios,
            settings,
            quiet=False,
            jobs=args.jobs,
            budget=budget.until(budget.share(share) or 0.0) if budget.seconds else None,
        )
        plans.extend(solved)
    write_output(write_comparison, written, plans)
    print(terminal_text(comparison_table(plans)))
    for plan in plans:
        if not plan.status.has_plan:
            print(terminal_text(plan_line(plan)))  # why there is no plan, in words
    print(terminal_text(f"wrote {written}"))
    return 0 if all(p.status.has_plan for p in plans) else 1
