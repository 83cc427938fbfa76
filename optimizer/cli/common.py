"""The helpers every ``gpumix`` subcommand shares: solver settings from the options,
outputs checked before any solving and written atomically, a plan's line, the
input warnings, one scenario loaded.

Imports no subcommand (each subcommand module imports this one), so that
``optimizer.cli`` and its subcommands form no circle.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from xlsxwriter.exceptions import XlsxWriterException

from optimizer.currency import money_text
from optimizer.domain import Scenario
from optimizer.errors import InputError, Problem, WriteError
from optimizer.inputs.price_warnings import scenario_warnings
from optimizer.reports.safe_files import output_problems, write_atomically
from optimizer.results import Plan, SolverSettings


def solver_settings(
    args: argparse.Namespace, *, progress: bool, threads: int | None = None
) -> SolverSettings:
    problems = []
    time_limit = getattr(args, "time_limit", None)
    gap = getattr(args, "gap", 0.0)
    if time_limit is not None and not time_limit > 0:
        problems.append(
            Problem(
                file="",
                message="usage: --time-limit must be a number of seconds > 0",
                value=time_limit,
            )
        )
    if not 0 <= gap < 1:
        problems.append(
            Problem(
                file="",
                message="usage: --gap must be a fraction from 0 to below 1 (0.01 is 1 %)",
                value=gap,
            )
        )
    solver = getattr(args, "solver", "auto")
    from optimizer.solve.commercial import missing_solver

    missing = missing_solver(solver)
    if missing is not None:
        problems.append(Problem(file="", message=missing, value=solver))
    if problems:
        raise InputError(problems)
    return SolverSettings(
        solver=solver,
        time_limit=time_limit,
        gap=gap,
        threads=threads,
        progress=progress,
    )


def check_jobs(jobs: int | None) -> None:
    if jobs is not None and jobs < 1:
        raise InputError(
            Problem(file="", message="usage: --jobs must be a whole number ≥ 1", value=jobs)
        )


def output_path(path: Path, inputs: Sequence[Path] = (), *, in_place_hint: bool = False) -> Path:
    """Check before any solving that ``path`` can take a new workbook and is no input file.

    ``in_place_hint``: the command has ``--in-place`` (only ``solve``), so say so.
    """
    try:
        return _checked_output(path, inputs, in_place_hint=in_place_hint)
    except OSError as exc:  # a name too long, a folder we may not enter, ...
        raise InputError(
            Problem(file=str(path), message=f"usage: the output cannot be written: {exc.strerror}")
        ) from exc


def _checked_output(path: Path, inputs: Sequence[Path], *, in_place_hint: bool) -> Path:
    problems = []
    resolved = path.resolve()
    if path.is_dir():
        problems.append("the output is a folder; give a file name ending in .xlsx")
    elif path.suffix.lower() != ".xlsx":
        problems.append("the output must be an .xlsx workbook")
    elif resolved.parent.exists() and not resolved.parent.is_dir():
        problems.append(f"{resolved.parent} is a file, not a folder")
    elif not resolved.parent.is_dir():
        problems.append(f"the folder {resolved.parent} does not exist")
    elif any(resolved == Path(i).resolve() for i in inputs):
        hint = (
            " (use --in-place to add result sheets to the input workbook)" if in_place_hint else ""
        )
        problems.append(
            f"the output would overwrite an input file; gpumix never changes its inputs{hint}"
        )
    else:
        problems += output_problems(path, inputs)
    if problems:
        # As typed: "." or "/" has no file name to show.
        raise InputError(
            [Problem(file=str(path), message=f"usage: {m}", file_as_typed=True) for m in problems]
        )
    return path


def write_output(writer: Callable[..., None], path: Path, *args: object) -> None:
    """Run a writer through a temporary file renamed over ``path``; a failure is exit 3.

    The previous file at ``path`` survives any failure or interruption.
    """
    try:
        write_atomically(path, lambda temporary: writer(temporary, *args))
    except (OSError, XlsxWriterException) as exc:
        cause = exc.__cause__ or exc
        # The OS names the temporary file; the user only needs to know why.
        reason = cause.strerror if isinstance(cause, OSError) and cause.strerror else cause
        raise WriteError(
            f"cannot write {path}: {reason} (is it open in another program, or the folder read-only?)"
        ) from exc


def default_output(input_path: Path | None, suffix: str) -> Path:
    stem = input_path.stem if input_path is not None else "example"
    return Path.cwd() / f"{stem}-{suffix}.xlsx"


def plan_line(plan: Plan) -> str:
    if plan.total_cost is None:
        # Every reason, each on its own line: the first line says what is wrong,
        # the indented ones why (the same list the JSON and the workbook hold).
        head = f"{plan.name}: {plan.status.value}"
        if not plan.diagnostics:
            return head
        first, *rest = plan.diagnostics
        return "\n".join([f"{head} — {first}", *(f"  - {reason}" for reason in rest)])
    currency = plan.currency
    line = f"{plan.name}: {plan.status.value}, total cost {money_text(plan.total_cost, currency)}"
    if plan.cash_out is not None:
        line += f" (cash out {money_text(plan.cash_out, currency)}"
        if plan.residual_credit:
            line += f", residual credit {money_text(plan.residual_credit, currency)}"
        line += ")"
    if plan.gap:
        line += f", proven gap {plan.gap:.3%}"
    return line


def count_text(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def input_warnings(scenarios: Sequence[Scenario]) -> list[str]:
    """Every scenario's input warnings, each once (an offer is in every scenario that keeps it)."""
    return list(dict.fromkeys(w for s in scenarios for w in scenario_warnings(s)))


def one_scenario(path: Path | None, name: str | None) -> Scenario:
    from optimizer.inputs.load import load_input

    return load_input(path, [name] if name else []).scenarios[0]
