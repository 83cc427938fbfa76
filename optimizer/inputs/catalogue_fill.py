"""Filling a GPUs row's blank cells from the GPU catalogue (issue 31).

A row whose name the catalogue knows gets every blank column the catalogue
has a figure for; a typed value always wins, but one more than twice or less
than half the catalogue's figure is warned about with both values (VRAM typed
in MB, TFLOPS typed with sparsity). A required cell still blank after that
keeps its located "is blank" error, which now says why the catalogue could
not fill it, with "did you mean" for a name it does not know.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from optimizer.domain import CatalogueFigure
from optimizer.errors import Problem
from optimizer.inputs.catalogue import Entry, catalogue, did_you_mean
from optimizer.inputs.cells import SheetRow
from optimizer.inputs.schema import GPUS

# A typed figure this many times the catalogue's (or this share of it) is warned about.
CONTRADICTION_RATIO = 2.0
# The figures a unit slip garbles; GPUs per server is the user's platform to choose (1 is fine).
CHECKED = ("vram_gb", "fp16_tflops", "memory_bandwidth_gbs", "tdp_w", "mfu_training")


@dataclass
class CatalogueFills:
    """What filling the rows of one GPUs sheet found: the figures used and the warnings."""

    figures: list[CatalogueFigure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    named_rows: int = 0
    lacking: set[str] = field(default_factory=set)  # required columns some named row lacks
    warned: set[tuple[str, str]] = field(default_factory=set)  # (GPU, column) warned about

    def covers(self, problem: Problem) -> bool:
        """Whether ``problem`` is a required GPUs column missing from the sheet that the
        catalogue filled for every named row (a sheet of names only plans)."""
        return (
            self.named_rows > 0
            and problem.sheet is not None
            and problem.row == 1
            and problem.message.startswith(f"required column {problem.column} is missing")
            and problem.column in {c.name for c in GPUS.required_columns}
            and problem.column not in self.lacking
        )

    def fill(
        self, where: SheetRow, typed: dict[str, Any], found: list[Problem]
    ) -> tuple[dict[str, Any], list[Problem]]:
        """The row's values with blanks filled, and its problems less the blanks filled."""
        name = typed.get("gpu")
        if not isinstance(name, str):
            return typed, found
        self.named_rows += 1
        entry = catalogue().find(name)
        required = {c.name for c in GPUS.required_columns}
        self.lacking |= required - set(typed) - set(entry.figures if entry else ())
        if entry is None:
            return typed, [_unknown_name(p, name) for p in found]
        contradictions = _contradictions(where, typed, entry)
        self.warnings.extend(text for _column, text in contradictions)
        self.warned |= {(name, column) for column, _text in contradictions}
        filled = dict(typed)
        for column, figure in entry.figures.items():
            if column not in typed:
                filled[column] = figure.value
                self.figures.append(replace(figure, gpu=name))
        kept = [_no_figure(p, name, entry) if _blank(p) else p for p in found]
        return filled, [p for p in kept if not (_blank(p) and p.about in filled)]


def _blank(problem: Problem) -> bool:
    return problem.message == "is blank"


def _unknown_name(problem: Problem, name: str) -> Problem:
    """A blank required cell of a type the catalogue does not know: say so, and what is close."""
    if not _blank(problem):
        return problem
    close = did_you_mean(catalogue().suggestions(name))
    return replace(
        problem,
        message=f"is blank, and the GPU catalogue has no type {name!r} to fill it "
        f"(gpumix gpus lists them){close}",
    )


def _no_figure(problem: Problem, name: str, entry: Entry) -> Problem:
    """A blank required cell the catalogue's entry has no published figure for."""
    if problem.about in entry.figures:
        return problem
    return replace(
        problem,
        message=f"is blank, and the GPU catalogue's {entry.name} (for {name!r}) has no "
        "published figure for it",
    )


def _contradictions(where: SheetRow, typed: dict[str, Any], entry: Entry) -> list[tuple[str, str]]:
    """Typed figures more than CONTRADICTION_RATIO away from the catalogue's, both named
    (column, warning)."""
    warnings = []
    for column, figure in entry.figures.items():
        value = typed.get(column)
        if column not in CHECKED or value is None or isinstance(figure.value, bool):
            continue
        if value <= 0 or figure.value <= 0:
            continue
        ratio = max(value / figure.value, figure.value / value)
        if ratio > CONTRADICTION_RATIO:
            unit = GPUS.column(column).unit
            cell = where.cell(column)
            warnings.append(
                (
                    column,
                    f"warning: {Path(where.file).name}, sheet {where.sheet}, "
                    f"{f'cell {cell}' if cell else f'row {where.row}'}, column {column}: "
                    f"{value:g} against the GPU catalogue's {figure.value:g}"
                    f"{f' {unit}' if unit else ''} for {entry.name} ({figure.cited}), "
                    f"{ratio:,.1f} times apart; the typed value is used: check its unit "
                    "(MB for GB? TFLOPS with sparsity?)",
                )
            )
    return warnings
