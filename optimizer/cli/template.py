"""``gpumix template``: writes the empty input workbook, never over an existing one
unless ``--force``.
"""

from __future__ import annotations

import argparse

from optimizer.cli.common import output_path, write_output
from optimizer.errors import InputError, Problem, terminal_text


def run_template_command(args: argparse.Namespace) -> int:
    from optimizer.inputs.template import write_template

    output = output_path(args.output)
    if output.exists() and not args.force:
        raise InputError(
            Problem(
                file=str(output),
                message="usage: the file exists; gpumix template never replaces a workbook"
                " (give a new name, or --force to replace it)",
            )
        )
    write_output(write_template, output)
    print(terminal_text(f"wrote {args.output}"))
    return 0
