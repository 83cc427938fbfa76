"""The exceptions gpumix raises.

    GpumixError                 base of everything gpumix raises on purpose
    ├── InputError              bad input or usage: nothing is solved (exit code 2)
    ├── SolveError              the solver could not run or returned nonsense (exit code 1)
    └── WriteError              the plan was made but its results could not be written (exit code 3)

An ``InputError`` carries every :class:`Problem` found, so that a user fixes
all of them in one pass instead of one per run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, and where it is.

    ``row`` is the spreadsheet row number as Excel shows it (the header is row
    1) or the line number of a scenario file; ``cell`` is an A1 reference when
    one applies. ``about`` names the input field the problem is about (a
    column, or a key of a scenario file entry), so that one bad field is not
    reported twice; it is not shown.
    """

    file: str
    message: str
    sheet: str | None = None
    row: int | None = None
    column: str | None = None
    cell: str | None = None
    value: object = None
    expected: str | None = None
    about: str | None = field(default=None, compare=False, repr=False)
    # The file as the user typed it (folders too), where the message names other
    # inputs as typed (compare); else its name alone.
    file_as_typed: bool = field(default=False, compare=False, repr=False)

    def __str__(self) -> str:
        shown = self.file if self.file_as_typed else Path(self.file).name
        where = [shown if self.file else "<input>"]
        if self.sheet:
            where.append(f"sheet {self.sheet}")
        if self.cell:
            where.append(f"cell {self.cell}")
        elif self.row is not None:
            where.append(f"row {self.row}" if self.sheet else f"line {self.row}")
        if self.column:
            where.append(f"column {self.column}")
        text = ", ".join(where) + ": " + self.message
        if self.value is not None and self.value != "":
            text += f" (found {self.value!r})"
        if self.expected:
            text += f"; expected {self.expected}"
        return text


# C0 and C1 control characters except tab and line feed: what a terminal would
# act on (escape sequences can move the cursor, retitle the window, hide text).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_text(text: str) -> str:
    """Text safe to print: control characters from user input shown as ``\\xNN``."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class GpumixError(Exception):
    """Base of every error gpumix raises on purpose."""

    exit_code = 1


class InputError(GpumixError):
    """The input (workbook, scenario file, command line) is wrong; nothing was solved."""

    exit_code = 2

    def __init__(self, problems: list[Problem] | Problem | str, notes: Sequence[str] = ()) -> None:
        if isinstance(problems, str):
            problems = [Problem(file="", message=problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        # Warnings found on the way ("did you mean min_replicas?"): an error beside them
        # must not hide them, as they may explain it (issue 35 item 7).
        self.notes: tuple[str, ...] = tuple(notes)
        super().__init__(self.render())

    def render(self) -> str:
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''} in the input:"
        lines = [head, *(f"  - {p}" for p in self.problems), *self.notes]
        return terminal_text("\n".join(lines))


class UsageError(InputError):
    """Bad command-line arguments: each line names the command (``gpumix solve: usage: ...``),
    as a command-line tool's usage errors do, not an input file."""

    def __init__(self, command: str, problems: list[Problem] | Problem | str) -> None:
        self.command = command
        super().__init__(problems)

    def render(self) -> str:
        named = (replace(p, file=self.command, file_as_typed=True) for p in self.problems)
        return terminal_text("\n".join(str(p) for p in named))


# Where a problem with the command line says it is: nowhere, or "command line" (--vary).
_COMMAND_LINE_FILES = ("", "command line")


def naming_the_command(error: InputError, command: str) -> InputError:
    """``error`` with its command-line problems named by ``command`` (``gpumix solve``):
    a usage error when every problem is one, else those lines name it instead of
    ``<input>``."""
    if isinstance(error, UsageError):
        return error
    ours = [p.file in _COMMAND_LINE_FILES and p.sheet is None for p in error.problems]
    if not any(ours):
        return error
    if all(ours):
        return UsageError(command, error.problems)
    return InputError(
        [
            replace(p, file=command, file_as_typed=True) if mine else p
            for p, mine in zip(error.problems, ours, strict=True)
        ],
        error.notes,
    )


class SolveError(GpumixError):
    """The solver failed to run, or returned a plan that cannot be trusted."""

    exit_code = 1


class WriteError(GpumixError):
    """The results could not be written; the message names the file and why."""

    exit_code = 3
