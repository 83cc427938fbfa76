"""``gpumix futures``: one purchase plan that holds across a scenario's futures (issue 19).

Picks the scenario (``--scenario``, else the input's first that has futures),
runs :func:`optimizer.check.verify.solve_futures_and_verify`, writes the futures
workbook and prints what to decide now and each future's cost and regret (or
the JSON). The shared command-line helpers live in ``optimizer.cli.common``.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from optimizer.errors import InputError, Problem, terminal_text

if TYPE_CHECKING:
    from optimizer.domain import Scenario
    from optimizer.results import SolverSettings
    from optimizer.results.futures import FuturesResult

# Seconds kept back from --time-limit for writing the workbook: a future's
# result sheets took 0.15 s to write (3 futures, 0.46 s, on a loaded 2-core
# machine); twice that, and never more than a fifth of the budget.
WRITE_SECONDS = 0.5
WRITE_SECONDS_PER_FUTURE = 0.3


def futures_settings(settings: SolverSettings, futures: int) -> SolverSettings:
    """``settings`` whose time limit is what is left of the command's --time-limit
    (:func:`optimizer.solve.budget.command_budget`: counted from the command's start)
    once the writing of ``futures`` futures' sheets is kept back (issue 34: the limit
    bounds the command, not the solves)."""
    from optimizer.solve.budget import command_budget

    if settings.time_limit is None:
        return settings
    write = min(WRITE_SECONDS + WRITE_SECONDS_PER_FUTURE * futures, settings.time_limit / 5)
    return command_budget(settings.time_limit, write).settings(settings)


def _scenario_with_futures(path: Path | None, name: str | None) -> Scenario:
    """The named scenario (which must have futures), else the input's first that has some."""
    from optimizer.inputs.load import load_input

    loaded = load_input(path, [name] if name else [])
    chosen = [s for s in loaded.scenarios if s.futures is not None]
    if chosen:
        return chosen[0]
    where = str(path) if path is not None else "the bundled example"
    what = f"scenario {name!r} has no" if name else "no scenario of this input has"
    raise InputError(
        Problem(
            file=where,
            message=f"{what} futures: add rows to sheet Futures, or a futures: list to the "
            "scenario in a scenario file",
        )
    )


def run_futures_command(args: argparse.Namespace) -> int:
    from optimizer import __version__
    from optimizer.analysis.extras import say
    from optimizer.check.verify import solve_futures_and_verify
    from optimizer.cli.common import default_output, output_path, solver_settings, write_output
    from optimizer.reports.futures_workbook import futures_json, write_futures_workbook
    from optimizer.results import RunResult

    quiet = args.quiet or args.json
    scenario = _scenario_with_futures(args.input, args.scenario)
    written = output_path(
        args.output or default_output(args.input, "futures"), scenario.source_files
    )
    futures = scenario.futures
    assert futures is not None
    asked = solver_settings(args, progress=False)
    settings = futures_settings(asked, len(futures.futures))
    say(quiet, f"planning {scenario.name} for {len(futures.futures)} futures ...")
    started = datetime.now(UTC).isoformat()
    result = solve_futures_and_verify(scenario, settings)
    run = RunResult(
        tuple(o.plan for o in result.outcomes),
        scenario.source_files,
        started,
        __version__,
        asked,
    )
    write_output(write_futures_workbook, written, result, run)
    if args.json:
        print(futures_json(result))
    elif not args.quiet:
        for line in futures_lines(result):
            print(terminal_text(line))
        print(terminal_text(f"wrote {written}"))
    return 0 if result.status.has_plan else 1


def futures_lines(result: FuturesResult) -> list[str]:
    """What the terminal shows: the expected cost, what to decide now, each future, EVPI, VSS."""
    from optimizer.currency import money_text
    from optimizer.reports.futures_words import (
        UNPROVEN_NOTE,
        bounded_words,
        describe_shared,
        plan_proof_words,
    )

    currency = result.currency

    def money(value: float | None) -> str:
        # To the cent, and never "-$0.00" for a difference of two equal costs.
        return "not known" if value is None else money_text(round(value, 2) + 0.0, currency)

    name = result.scenario.name
    if result.expected_cost is None:
        why = "; ".join(result.diagnostics) or "no plan"
        return [f"{name}: {result.status.value} — {why}"]
    gap = f", proven gap {result.gap:.3%}" if result.gap else ""
    lines = [
        f"{name}: {result.status.value}, expected total cost {money(result.expected_cost)}"
        f" over {len(result.outcomes)} futures{gap}"
    ]
    d = result.futures.decide_by_month
    now = "; ".join(
        f"{describe_shared(s, result.scenario)} (month {s.month})" for s in result.shared
    )
    lines.append(f"  decide now (to month {d}): {now or 'nothing to buy, sell or reserve'}")
    for o in result.outcomes:
        proof = plan_proof_words(o.alone)
        lines.append(
            f"  {o.spec.name} ({o.probability:.0%}): {money(o.plan.total_cost)}, "
            f"regret {bounded_words(o.regret_bounds, money)} against "
            f"{money(o.alone.total_cost if o.alone else None)} planned alone"
            + (f" ({proof})" if proof else "")
        )
    lines.append(
        f"  EVPI {bounded_words(result.evpi_bounds, money)} (knowing the future now); "
        f"VSS {bounded_words(result.vss_bounds, money)} (planning for every future, not just "
        "the expected one)"
    )
    if not result.proven:
        lines.append(f"  note: {UNPROVEN_NOTE}")
    return [*lines, *(f"  note: {d}" for d in result.diagnostics)]
