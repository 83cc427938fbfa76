"""The ``gpumix`` command line: the only place that orchestrates the stages.

read → check → estimate → build → solve → report → write. Each stage lives in
its own module and hands a typed object to the next; this module parses
arguments, calls them in order, prints, and maps errors to exit codes:
0 every scenario solved, 1 some scenario has no plan, 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from optimizer import __version__
from optimizer.errors import GpumixError, InputError


class _Parser(argparse.ArgumentParser):
    """argparse that raises InputError (exit 2, message on stderr) instead of exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError(f"usage: {message} (see 'gpumix {self.prog.split()[-1]} --help')")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gpumix", description="Plan the cheapest GPU fleet for AI workloads.")
    parser.add_argument("--version", action="version", version=f"gpumix {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    solve = sub.add_parser("solve", help="solve every scenario of a workbook or scenario file")
    solve.add_argument("input", nargs="?", type=Path, help="workbook (.xlsx) or scenario file (.yaml); default: the bundled example")
    solve.add_argument("--scenario", action="append", default=[], metavar="NAME", help="solve only this scenario (repeatable)")
    solve.add_argument("--output", type=Path, metavar="OUT.xlsx", help="result workbook (default: <input name>-results.xlsx here)")
    solve.add_argument("--json", action="store_true", help="print one JSON object with every result on standard output")
    solve.add_argument("--quiet", action="store_true", help="print nothing but errors")
    solve.add_argument("--solver", choices=["highs", "cbc"], default="highs")
    solve.add_argument("--time-limit", type=float, metavar="SECONDS", help="stop each solve after this long and report the proven gap")
    solve.add_argument("--gap", type=float, metavar="FRACTION", default=1e-6, help="relative MIP gap accepted as optimal (default 1e-6)")
    solve.add_argument("--in-place", action="store_true", help="write the result sheets into the input workbook (nothing else is changed)")

    compare = sub.add_parser("compare", help="solve scenarios and lay them side by side")
    compare.add_argument("inputs", nargs="+", type=Path, metavar="INPUT")
    compare.add_argument("--output", type=Path, metavar="OUT.xlsx")

    template = sub.add_parser("template", help="write an empty input workbook with drop-down lists")
    template.add_argument("output", type=Path, metavar="OUT.xlsx")

    validate = sub.add_parser("validate", help="check inputs (every scenario, after overrides) and print every problem")
    validate.add_argument("input", nargs="?", type=Path)

    breakeven = sub.add_parser("breakeven", help="rent-versus-buy break-even per GPU type")
    breakeven.add_argument("input", nargs="?", type=Path)
    breakeven.add_argument("--scenario", metavar="NAME")
    breakeven.add_argument("--utilization", type=float, default=0.6, metavar="FRACTION")
    breakeven.add_argument("--output", type=Path, metavar="OUT.xlsx")

    sweep = sub.add_parser("sweep", help="solve many variants of a scenario and show where the plan changes")
    sweep.add_argument("input", type=Path)
    sweep.add_argument("--vary", action="append", required=True, metavar="KEY=START:STOP:POINTS")
    sweep.add_argument("--scenario", metavar="NAME")
    sweep.add_argument("--output", type=Path, metavar="OUT.xlsx")
    sweep.add_argument("--jobs", type=int, default=None, metavar="N")
    sweep.add_argument("--scheduler", metavar="ADDRESS", help="run the variants on a Dask cluster")
    sweep.add_argument("--quiet", action="store_true")
    return parser


def _cmd_validate(args: argparse.Namespace) -> int:
    from optimizer.inputs import load_input

    loaded = load_input(args.input)
    names = ", ".join(s.name for s in loaded.scenarios)
    print(
        f"{loaded.files[0].name}: OK — {loaded.gpu_count} GPU types, {loaded.offer_count} offers, "
        f"{loaded.workload_count} workloads, {len(loaded.scenarios)} scenarios ({names})"
    )
    return 0


def _cmd_template(args: argparse.Namespace) -> int:
    from optimizer.template import write_template

    write_template(args.output)
    print(f"wrote {args.output}")
    return 0


_COMMANDS = {
    "validate": _cmd_validate,
    "template": _cmd_template,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run gpumix; returns the exit code (the console script exits with it)."""
    try:
        args = _build_parser().parse_args(argv)
        return _COMMANDS[args.command](args)
    except InputError as exc:
        print(exc.render(), file=sys.stderr)
        return exc.exit_code
    except GpumixError as exc:
        print(f"gpumix: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("gpumix: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
