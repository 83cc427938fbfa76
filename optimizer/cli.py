"""The ``gpumix`` command line: the only place that orchestrates the stages.

read → check → estimate → build → solve → report → write. Each stage lives in
its own module and hands a typed object to the next; this module parses
arguments (the parser is built in ``optimizer.cli_parser``), calls them in
order, prints, and maps errors to exit codes:
0 every scenario solved, 1 some scenario has no plan, 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from xlsxwriter.exceptions import XlsxWriterException

from optimizer import __version__
from optimizer.analysis.extras import say as _say
from optimizer.analysis.extras import solve_plan, solve_with_extras
from optimizer.cli_compare import check_one_currency, column_names
from optimizer.cli_parser import _build_parser
from optimizer.currency import money_text, one_currency
from optimizer.domain import Scenario
from optimizer.errors import (
    GpumixError,
    InputError,
    Problem,
    WriteError,
    naming_the_command,
    terminal_text,
)
from optimizer.inputs.futures_notes import futures_summary
from optimizer.inputs.price_warnings import scenario_warnings
from optimizer.reports.safe_files import output_problems, write_atomically
from optimizer.results import Plan, RunResult, SolverSettings
from optimizer.solve.cores import usable_cores


def _solver_settings(
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


def _check_jobs(jobs: int | None) -> None:
    if jobs is not None and jobs < 1:
        raise InputError(
            Problem(file="", message="usage: --jobs must be a whole number ≥ 1", value=jobs)
        )


def _output_path(path: Path, inputs: Sequence[Path] = (), *, in_place_hint: bool = False) -> Path:
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


def _write(writer: Callable[..., None], path: Path, *args: object) -> None:
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


def _default_output(input_path: Path | None, suffix: str) -> Path:
    stem = input_path.stem if input_path is not None else "example"
    return Path.cwd() / f"{stem}-{suffix}.xlsx"


def _scenario_job(scenario: Scenario, settings: SolverSettings, quiet: bool) -> Plan:
    """One scenario's checked plan with its warnings. Module-level so a spawn worker can run it."""
    return solve_plan(scenario, settings, quiet)[0]


def _solve_all(
    scenarios: Sequence[Scenario],
    settings: SolverSettings,
    *,
    quiet: bool,
    jobs: int | None,
) -> list[Plan]:
    """Every scenario's plan, side by side in worker processes when cores allow.

    Scenarios are independent. ``auto`` races two solvers on two cores, so
    by default each worker gets two cores: on a 2-core machine the scenarios
    run one after another, each solve racing HiGHS and SCIP. Other solvers
    get one core per worker. Workers are spawned; the solver's own progress
    lines are kept for a single process, where they cannot interleave.
    (``solve`` adds baselines and shadow prices: ``optimizer.analysis.extras``.)
    """
    from optimizer.analysis.executors import open_executor, run_in_order

    cores = usable_cores()
    cores_per_solve = 2 if settings.solver == "auto" else 1
    workers = jobs if jobs is not None else max(1, cores // cores_per_solve)
    workers = max(1, min(workers, len(scenarios)))
    if workers > 1:
        settings = replace(settings, progress=False, threads=max(1, cores // workers))
        _say(quiet, f"solving {len(scenarios)} scenarios in {workers} processes ...")
    tasks = [(s, settings, quiet) for s in scenarios]
    with open_executor(jobs=workers, tasks=len(tasks)) as executor:
        return run_in_order(executor, _scenario_job, tasks)


def _cmd_solve(args: argparse.Namespace) -> int:
    from optimizer.inputs.load import load_input

    loaded = load_input(args.input, args.scenario)
    quiet = args.quiet or args.json
    if args.in_place and (args.input is None or args.input.suffix.lower() != ".xlsx"):
        raise InputError(
            "usage: --in-place needs an input workbook (.xlsx) given on the command line"
        )
    if args.in_place and args.output is not None:
        raise InputError("usage: --in-place and --output exclude each other")
    _check_jobs(args.jobs)
    if args.in_place:
        from optimizer.reports.in_place import refuse_unless_safe

        refuse_unless_safe(args.input)  # before solving, not after
    else:
        written = _output_path(
            args.output or _default_output(args.input, "results"), loaded.files, in_place_hint=True
        )
    settings = _solver_settings(args, progress=not quiet)
    scenarios = _coarse(loaded.scenarios, args.coarse_after)
    plans, baselines = solve_with_extras(scenarios, settings, quiet=quiet, jobs=args.jobs)
    run = RunResult(
        plans=tuple(plans),
        input_files=loaded.files,
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        gpumix_version=__version__,
        settings=settings,
        baselines=baselines,
    )
    if args.in_place:
        from optimizer.reports.in_place import write_in_place

        write_in_place(args.input, run)
        written = args.input
    else:
        from optimizer.reports.result_workbook import write_result_workbook

        _write(write_result_workbook, written, run)
    if args.json:
        from optimizer.reports.report_json import run_to_json

        print(run_to_json(run))
    elif not args.quiet:
        for plan in plans:
            print(terminal_text(_plan_line(plan)))
        print(terminal_text(f"wrote {written}"))
    return 0 if all(p.status.has_plan for p in plans) else 1


def _coarse(scenarios: Sequence[Scenario], month: int | None) -> list[Scenario]:
    """``--coarse-after MONTH``: every scenario's ``coarse_after_month``, its source the option."""
    if month is None:
        return list(scenarios)
    return [
        replace(
            s,
            assumptions=replace(s.assumptions, coarse_after_month=float(month)),
            assumption_sources={**s.assumption_sources, "coarse_after_month": "--coarse-after"},
        )
        for s in scenarios
    ]


def _plan_line(plan: Plan) -> str:
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


def _cmd_compare(args: argparse.Namespace) -> int:
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
    written = _output_path(args.output or _default_output(args.inputs[0], "comparison"), inputs)
    settings = _solver_settings(args, progress=False)
    names = column_names(
        [
            (path, [s.name for s in item.scenarios])
            for path, item in zip(args.inputs, loaded, strict=True)
        ]
    )
    plans: list[Plan] = []
    for item, shown in zip(loaded, names, strict=True):
        scenarios = [replace(s, name=shown[s.name]) for s in item.scenarios]
        solved = _solve_all(scenarios, settings, quiet=False, jobs=args.jobs)
        plans.extend(solved)
    _write(write_comparison, written, plans)
    print(terminal_text(comparison_table(plans)))
    for plan in plans:
        if not plan.status.has_plan:
            print(terminal_text(_plan_line(plan)))  # why there is no plan, in words
    print(terminal_text(f"wrote {written}"))
    return 0 if all(p.status.has_plan for p in plans) else 1


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _cmd_validate(args: argparse.Namespace) -> int:
    from optimizer.inputs.load import load_input

    loaded = load_input(args.input)
    names = ", ".join(s.name for s in loaded.scenarios)
    counts = ", ".join(
        _count(n, word)
        for n, word in (
            (loaded.gpu_count, "GPU type"),
            (loaded.offer_count, "offer"),
            (loaded.workload_count, "workload"),
            (len(loaded.scenarios), "scenario"),
        )
    )
    print(terminal_text(f"{loaded.files[0].name}: OK — {counts} ({names})"))
    for summary in filter(None, map(futures_summary, loaded.scenarios)):
        print(terminal_text(summary))
    # The same offer is in every scenario that keeps it: say each warning once.
    warnings = dict.fromkeys(w for s in loaded.scenarios for w in scenario_warnings(s))
    for warning in warnings:
        print(terminal_text(warning))
    return 0


def _cmd_template(args: argparse.Namespace) -> int:
    from optimizer.inputs.template import write_template

    output = _output_path(args.output)
    if output.exists() and not args.force:
        raise InputError(
            Problem(
                file=str(output),
                message="usage: the file exists; gpumix template never replaces a workbook"
                " (give a new name, or --force to replace it)",
            )
        )
    _write(write_template, output)
    print(terminal_text(f"wrote {args.output}"))
    return 0


def _one_scenario(path: Path | None, name: str | None) -> Scenario:
    from optimizer.inputs.load import load_input

    return load_input(path, [name] if name else []).scenarios[0]


def _cmd_breakeven(args: argparse.Namespace) -> int:
    from optimizer.analysis.breakeven import breakeven_rows, format_breakeven_table
    from optimizer.analysis.breakeven_workbook import write_breakeven_workbook

    if not 0 < args.utilization <= 1:
        raise InputError(
            Problem(
                file="",
                message="usage: --utilization must be a fraction above 0 and at most 1 (0.6 is 60 %)",
                value=args.utilization,
            )
        )
    scenario = _one_scenario(args.input, args.scenario)
    if args.output:
        _output_path(args.output, scenario.source_files)
    if args.months is not None and args.months < 1:
        raise InputError(
            Problem(
                file="",
                message="usage: --months must be a whole number of at least 1",
                value=args.months,
            )
        )
    rows = breakeven_rows(scenario, args.utilization, args.months)
    # The workbook first: output cut short by a closed pipe must not lose it.
    if args.output:
        _write(write_breakeven_workbook, args.output, rows, scenario)
    print(terminal_text(format_breakeven_table(rows, scenario)))
    if args.output:
        print(terminal_text(f"wrote {args.output}"))
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from optimizer.analysis.sweep import describe_flips, run_sweep
    from optimizer.analysis.sweep_params import parse_vary
    from optimizer.analysis.sweep_workbook import write_sweep_workbook

    specs = [parse_vary(text) for text in args.vary]
    _check_jobs(args.jobs)
    base = _one_scenario(args.input, args.scenario)
    written = _output_path(args.output or _default_output(args.input, "sweep"), base.source_files)
    settings = _solver_settings(args, progress=False, threads=1)
    result = run_sweep(
        base, specs, settings, jobs=args.jobs, scheduler=args.scheduler, progress=not args.quiet
    )
    _write(write_sweep_workbook, written, result)
    for sentence in describe_flips(result):
        print(terminal_text(sentence))
    print(terminal_text(f"wrote {written}"))
    return 0


def _cmd_alternatives(args: argparse.Namespace) -> int:
    # Its own module (optimizer.cli_alternatives), which uses this one's helpers.
    from optimizer.cli_alternatives import run_alternatives_command

    return run_alternatives_command(args)


def _cmd_futures(args: argparse.Namespace) -> int:
    from optimizer.cli_futures import run_futures_command

    return run_futures_command(args)


_COMMANDS = {
    "solve": _cmd_solve,
    "compare": _cmd_compare,
    "validate": _cmd_validate,
    "template": _cmd_template,
    "breakeven": _cmd_breakeven,
    "sweep": _cmd_sweep,
    "alternatives": _cmd_alternatives,
    "futures": _cmd_futures,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run gpumix; returns the exit code (the console script exits with it)."""
    command = "gpumix"  # what names a bad command-line argument
    try:
        args = _build_parser().parse_args(argv)
        command = f"gpumix {args.command}"
        code = _COMMANDS[args.command](args)
        sys.stdout.flush()  # a closed pipe shows here, inside this try, not at exit
        return code
    except InputError as exc:
        print(naming_the_command(exc, command).render(), file=sys.stderr)
        return exc.exit_code
    except GpumixError as exc:
        print(terminal_text(f"gpumix: {exc}"), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("gpumix: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Whoever read our output stopped (``gpumix solve --json | head``). Files
        # are written before anything is printed, so nothing is lost; point
        # stdout at nothing so that the interpreter's last flush fails no more.
        _quiet_stdout()
        return 141  # 128 + SIGPIPE, what a shell reports for a program cut off this way
    except OSError as exc:
        if exc.filename is None:
            # Printing the report failed (a full disk, /dev/full): results not written.
            _quiet_stdout()
            print(f"gpumix: cannot write standard output: {exc.strerror or exc}", file=sys.stderr)
            return WriteError.exit_code
        # A file gpumix had to read or look at (result files are written through
        # _write, which names its own failures).
        print(terminal_text(f"gpumix: {exc.filename}: {exc.strerror or exc}"), file=sys.stderr)
        return InputError.exit_code


def _quiet_stdout() -> None:
    """Point stdout at nothing, so that the interpreter's last flush fails no more."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
