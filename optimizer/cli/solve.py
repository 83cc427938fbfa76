"""``gpumix solve``: every scenario's cheapest plan, checked, written to the result
workbook (or added to the input with ``--in-place``), one line per plan or the JSON.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from optimizer import __version__
from optimizer.analysis.extras import solve_with_extras
from optimizer.cli.common import (
    check_jobs,
    default_output,
    input_warnings,
    output_path,
    plan_line,
    solver_settings,
    write_output,
)
from optimizer.domain import Scenario
from optimizer.errors import InputError, terminal_text
from optimizer.results import RunResult
from optimizer.solve.budget import command_budget


def run_solve_command(args: argparse.Namespace) -> int:
    from optimizer.inputs.load import load_input

    loaded = load_input(args.input, args.scenario)
    quiet = args.quiet or args.json
    if args.in_place and (args.input is None or args.input.suffix.lower() != ".xlsx"):
        raise InputError(
            "usage: --in-place needs an input workbook (.xlsx) given on the command line"
        )
    if args.in_place and args.output is not None:
        raise InputError("usage: --in-place and --output exclude each other")
    check_jobs(args.jobs)
    if args.in_place:
        from optimizer.reports.in_place import refuse_unless_safe

        refuse_unless_safe(args.input)  # before solving, not after
    else:
        written = output_path(
            args.output or default_output(args.input, "results"), loaded.files, in_place_hint=True
        )
    if not quiet:  # as validate says them, before the wait (issue 35 item 7)
        for warning in input_warnings(loaded.scenarios):
            print(terminal_text(warning), file=sys.stderr)
    settings = solver_settings(args, progress=not quiet)
    plans, baselines = solve_with_extras(
        coarse(loaded.scenarios, args.coarse_after),
        settings,
        quiet=quiet,
        jobs=args.jobs,
        budget=command_budget(args.time_limit),
    )
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

        write_output(write_result_workbook, written, run)
    if args.json:
        from optimizer.reports.report_json import run_to_json

        print(run_to_json(run))
    elif not args.quiet:
        for plan in plans:
            print(terminal_text(plan_line(plan)))
        print(terminal_text(f"wrote {written}"))
    return 0 if all(p.status.has_plan for p in plans) else 1


def coarse(scenarios: Sequence[Scenario], month: int | None) -> list[Scenario]:
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
