"""What ``gpumix compare`` checks of its inputs before any solve.

Its columns are scenarios from several inputs side by side: their names must
differ, and their money must be in one currency.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from optimizer.errors import InputError, Problem


def check_unique_names(inputs: Sequence[tuple[Path, Sequence[str]]]) -> None:
    """Before any solve: the comparison's columns are scenario names, so no two may clash."""
    first: dict[str, Path] = {}
    problems = []
    for path, names in inputs:
        for name in names:
            earlier = first.get(name.lower())
            if earlier is None:
                first[name.lower()] = path
                continue
            problems.append(
                Problem(
                    file=str(path),
                    message=f"usage: scenario {name!r} is also in {earlier}; rename one so the "
                    "comparison's columns can be told apart",
                )
            )
    if problems:
        raise InputError(problems)


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
        )
        for path, other in inputs[1:]
        if other != currency
    ]
    if problems:
        raise InputError(problems)
