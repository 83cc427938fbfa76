"""``gpumix sweep``: one scenario solved over a grid of changed inputs (``--vary``),
the plans' flips said in words and written to the sweep workbook.
"""

from __future__ import annotations

import argparse

from optimizer.cli.common import (
    check_jobs,
    default_output,
    one_scenario,
    output_path,
    solver_settings,
    write_output,
)
from optimizer.errors import terminal_text
from optimizer.solve.budget import command_budget


def run_sweep_command(args: argparse.Namespace) -> int:
    from optimizer.analysis.sweep import describe_flips, run_sweep
    from optimizer.analysis.sweep_params import parse_vary
    from optimizer.analysis.sweep_workbook import write_sweep_workbook

    specs = [parse_vary(text) for text in args.vary]
    check_jobs(args.jobs)
    base = one_scenario(args.input, args.scenario)
    written = output_path(args.output or default_output(args.input, "sweep"), base.source_files)
    settings = solver_settings(args, progress=False, threads=1)
    result = run_sweep(
        base,
        specs,
        settings,
        jobs=args.jobs,
        scheduler=args.scheduler,
        progress=not args.quiet,
        budget=command_budget(args.time_limit),
    )
    write_output(write_sweep_workbook, written, result)
    for sentence in describe_flips(result):
        print(terminal_text(sentence))
    print(terminal_text(f"wrote {written}"))
    return 0
