"""``gpumix breakeven``: for one scenario, the month each GPU's purchase pays back
against renting it (a table, and a workbook with ``--output``).
"""

from __future__ import annotations

import argparse

from optimizer.cli.common import one_scenario, output_path, write_output
from optimizer.errors import InputError, Problem, terminal_text


def run_breakeven_command(args: argparse.Namespace) -> int:
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
    scenario = one_scenario(args.input, args.scenario)
    if args.output:
        output_path(args.output, scenario.source_files)
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
        write_output(write_breakeven_workbook, args.output, rows, scenario)
    print(terminal_text(format_breakeven_table(rows, scenario)))
    if args.output:
        print(terminal_text(f"wrote {args.output}"))
    return 0
