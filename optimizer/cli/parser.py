"""The ``gpumix`` argument parser: every command, its arguments and their help texts.

Takes nothing but the version and hands ``optimizer.cli`` a parser whose
usage errors raise :class:`UsageError` (exit 2, naming the command) instead of exiting.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from optimizer import __version__
from optimizer.errors import UsageError
from optimizer.inputs.schema import MAX_MONTHS
from optimizer.results import SOLVERS


class _Parser(argparse.ArgumentParser):
    """argparse that raises UsageError (exit 2, ``gpumix <command>: usage: ...`` on stderr)
    instead of exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(self.prog, f"usage: {message} (see '{self.prog} --help')")

    def parse_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def]
        """As argparse's, but an argument no command knows names the command it follows."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = getattr(parsed, "command", None)
            prog = f"{self.prog} {command}" if command else self.prog
            raise UsageError(
                prog,
                f"usage: unrecognized arguments: {' '.join(extras)} (see '{prog} --help')",
            )
        return parsed


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gpumix", description="Plan the cheapest GPU fleet for AI workloads.")
    parser.add_argument("--version", action="version", version=f"gpumix {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    solve = sub.add_parser("solve", help="solve every scenario of a workbook or scenario file")
    solve.add_argument(
        "input",
        nargs="?",
        type=Path,
        help="workbook (.xlsx) or scenario file (.yaml); default: the bundled example",
    )
    solve.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="NAME",
        help="solve only this scenario (repeatable)",
    )
    solve.add_argument(
        "--output",
        type=Path,
        metavar="OUT.xlsx",
        help="result workbook (default: <input name>-results.xlsx here)",
    )
    solve.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object with every result on standard output",
    )
    solve.add_argument("--quiet", action="store_true", help="print nothing but errors")
    _add_solver_flags(solve)
    solve.add_argument(
        "--in-place",
        action="store_true",
        help="write the result sheets into the input workbook (nothing else is changed)",
    )
    solve.add_argument(
        "--coarse-after",
        type=_coarse_month,
        metavar="MONTHS",
        help="plan layouts (GPUs owned and reserved, replicas, slots) per quarter after this"
        " month, for fewer changes (Assumptions key coarse_after_month; may cost more)",
    )
    solve.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="worker processes for the baselines and shadow prices, and for the plans of"
        " solvers other than auto (default: one per CPU; 1: everything in this process)",
    )

    compare = sub.add_parser("compare", help="solve scenarios and lay them side by side")
    compare.add_argument(
        "inputs",
        nargs="+",
        type=Path,
        metavar="INPUT",
        help="workbooks (.xlsx) or scenario files (.yaml); every scenario of each is compared",
    )
    compare.add_argument(
        "--output",
        type=Path,
        metavar="OUT.xlsx",
        help="comparison workbook (default: <first input name>-comparison.xlsx here)",
    )
    compare.add_argument("--jobs", type=int, metavar="N", help="scenarios solved at once")
    _add_solver_flags(compare)

    alternatives = sub.add_parser(
        "alternatives",
        help="plans within a slack of the cheapest that push another goal (less capital, ...)",
    )
    alternatives.add_argument(
        "input",
        type=Path,
        help="workbook (.xlsx) or scenario file (.yaml)",
    )
    alternatives.add_argument(
        "--scenario", metavar="NAME", help="the scenario (default: the input's first)"
    )
    alternatives.add_argument(
        "--slack",
        type=str,
        default="0.02",
        metavar="FRACTION",
        help="how much dearer than the cheapest plan an alternative may be "
        "(default 0.02, i.e. 2 %%)",
    )
    alternatives.add_argument(
        "--goal",
        action="append",
        default=[],
        metavar="GOAL",
        help="least_capex, least_rent, fewest_types, fewest_gpus, most_owned or least_power "
        "(repeatable; default: all six)",
    )
    _add_output_flags(alternatives, "alternatives")
    alternatives.add_argument(
        "--jobs", type=int, metavar="N", help="goals solved at once (default: one per CPU)"
    )
    _add_solver_flags(alternatives, AUTO_BY_GOAL)

    futures = sub.add_parser(
        "futures",
        help="one purchase plan for all of a scenario's futures (expected cost, regret, EVPI, VSS)",
    )
    futures.add_argument("input", type=Path, help="workbook (.xlsx) or scenario file (.yaml)")
    futures.add_argument(
        "--scenario", metavar="NAME", help="the scenario (default: the input's first with futures)"
    )
    _add_output_flags(futures, "futures")
    _add_solver_flags(futures, AUTO_FUTURES, LIMIT_FUTURES)

    template = sub.add_parser("template", help="write an empty input workbook with drop-down lists")
    template.add_argument("output", type=Path, metavar="OUT.xlsx", help="the workbook to write")
    template.add_argument(
        "--force", action="store_true", help="replace OUT.xlsx if it exists (default: refuse)"
    )

    gpus = sub.add_parser("gpus", help="list the GPU catalogue, or one type's figures and sources")
    gpus.add_argument("name", nargs="?", metavar="NAME", help="one GPU type (e.g. H100)")
    gpus.add_argument("--json", action="store_true", help="print JSON instead of a table")

    validate = sub.add_parser(
        "validate", help="check inputs (every scenario, after overrides) and print every problem"
    )
    validate.add_argument(
        "input",
        nargs="?",
        type=Path,
        help="workbook (.xlsx) or scenario file (.yaml); default: the bundled example",
    )

    breakeven = sub.add_parser(
        "breakeven", help="rent-versus-buy break-even per GPU type and rental option"
    )
    breakeven.add_argument(
        "input",
        nargs="?",
        type=Path,
        help="workbook (.xlsx) or scenario file (.yaml); default: the bundled example",
    )
    breakeven.add_argument(
        "--scenario", metavar="NAME", help="the scenario whose prices and assumptions are used"
    )
    breakeven.add_argument(
        "--utilization",
        type=float,
        default=0.6,
        metavar="FRACTION",
        help="share of hours a bought GPU works (default 0.6, i.e. 60 %%)",
    )
    breakeven.add_argument(
        "--months",
        type=int,
        metavar="N",
        help="months to look for the break-even in (default: the scenario's horizon)",
    )
    breakeven.add_argument(
        "--output", type=Path, metavar="OUT.xlsx", help="also write the table as a workbook"
    )

    sweep = sub.add_parser(
        "sweep", help="solve many variants of a scenario and show where the plan changes"
    )
    sweep.add_argument("input", type=Path, help="workbook (.xlsx) or scenario file (.yaml)")
    sweep.add_argument(
        "--vary",
        action="append",
        required=True,
        metavar="KEY=START:STOP:POINTS",
        help="a parameter and its grid (repeat once for a two-way sweep)",
    )
    sweep.add_argument("--scenario", metavar="NAME", help="the scenario to vary")
    sweep.add_argument(
        "--output",
        type=Path,
        metavar="OUT.xlsx",
        help="sweep workbook (default: <input name>-sweep.xlsx here)",
    )
    sweep.add_argument("--jobs", type=int, default=None, metavar="N", help="variants at once")
    sweep.add_argument("--scheduler", metavar="ADDRESS", help="run the variants on a Dask cluster")
    sweep.add_argument("--quiet", action="store_true", help="print nothing but errors")
    _add_solver_flags(sweep)
    return parser


# What ``--solver auto`` does, by command (the commands that solve side by side
# give each solve one core, so they do not race).
AUTO_RACE = "HiGHS and SCIP race when two cores are free, else HiGHS"
AUTO_BY_GOAL = "for each goal's two solves the solver measured faster for that goal, HiGHS or SCIP"
AUTO_FUTURES = "HiGHS, each step on one core, the two-stage solve from the re-plans"
# What --time-limit bounds, per command (an outside audit read "each solve" as the command).
# What --time-limit bounds: the same for every command (an outside audit read "each
# solve" as the command, and a sweep told 60 s ran 38 minutes).
LIMIT_WHOLE = (
    "the whole command's time, from start to written result: plans first, then baselines and "
    "shadow prices, sweep variants side by side, or goals in turn, in what is left; every "
    "result stopped by it (or by Ctrl-C) reports its proven gap. Without it plans are proven, "
    "and solve's baselines and shadow prices together take at most as long as the plans did"
)
LIMIT_FUTURES = (
    "the whole command's time, from start to written workbook (reading and writing "
    "included): each step before the shared plan gets at most a quarter of it, the shared "
    "plan what is left, and a plan stopped by it reports its proven gap"
)


def _coarse_month(text: str) -> int:
    """``--coarse-after``: a whole month, 0 or more."""
    try:
        month = int(text)
    except ValueError:
        month = -1
    if not 0 <= month <= MAX_MONTHS:
        raise argparse.ArgumentTypeError(
            f"expected a whole month from 0 to {MAX_MONTHS:,}, got {text!r}"
        )
    return month


def _add_solver_flags(
    command: argparse.ArgumentParser, auto: str = AUTO_RACE, limit: str = LIMIT_WHOLE
) -> None:
    """--solver, --time-limit and --gap: the same for every command that solves."""
    command.add_argument(
        "--solver",
        choices=SOLVERS,
        default="auto",
        help=f"MILP solver (default auto: {auto}; cbc is PuLP's bundled CBC; gurobi, "
        "cplex, xpress and copt need the vendor's package and licence)",
    )
    command.add_argument(
        "--time-limit",
        type=float,
        metavar="SECONDS",
        help=limit,
    )
    command.add_argument(
        "--gap",
        type=float,
        metavar="FRACTION",
        default=0.0,
        help="relative MIP gap accepted as optimal (default 0: the plan is proven the "
        "cheapest to within half a cent)",
    )


def _add_output_flags(parser: argparse.ArgumentParser, kind: str) -> None:
    """``--output`` (the ``kind`` workbook), ``--json`` and ``--quiet``."""
    parser.add_argument(
        "--output",
        type=Path,
        metavar="OUT.xlsx",
        help=f"{kind} workbook (default: <input name>-{kind}.xlsx here)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object on standard output"
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
