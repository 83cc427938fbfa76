"""The ``gpumix`` command line: the only place that orchestrates the stages.

Takes the command line; hands on an exit code, what it prints and the files it
writes: 0 every scenario solved, 1 some scenario has no plan, 2 bad input or
usage. This module holds :func:`main` (the ``gpumix`` entry point and
``python -m optimizer``): it parses the arguments (``parser``), runs one
subcommand, one module each (``solve``, ``validate``, ``template``, ``compare``,
``breakeven``, ``sweep``, ``alternatives``, ``futures``, ``gpus``), and maps
errors to exit codes. The helpers the subcommands share live in ``common``,
which imports no subcommand; ``scenarios`` solves scenarios side by side.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
from collections.abc import Sequence

from optimizer.cli.alternatives import run_alternatives_command
from optimizer.cli.breakeven import run_breakeven_command
from optimizer.cli.compare import run_compare_command
from optimizer.cli.futures import run_futures_command
from optimizer.cli.gpus import run_gpus_command
from optimizer.cli.parser import _build_parser
from optimizer.cli.solve import run_solve_command
from optimizer.cli.sweep import run_sweep_command
from optimizer.cli.template import run_template_command
from optimizer.cli.validate import run_validate_command
from optimizer.errors import (
    GpumixError,
    InputError,
    WriteError,
    naming_the_command,
    terminal_text,
)
from optimizer.solve.budget import mark_command_start
from optimizer.solve.interrupt import keeping_work_on_interrupt

_COMMANDS = {
    "solve": run_solve_command,
    "compare": run_compare_command,
    "validate": run_validate_command,
    "template": run_template_command,
    "breakeven": run_breakeven_command,
    "sweep": run_sweep_command,
    "alternatives": run_alternatives_command,
    "futures": run_futures_command,
    "gpus": run_gpus_command,
}


# Commands whose first Ctrl-C stops the searches and writes what was found.
_SEARCHING = frozenset({"solve", "compare", "sweep", "alternatives", "futures"})


def main(argv: Sequence[str] | None = None) -> int:
    """Run gpumix; returns the exit code (the console script exits with it)."""
    command = "gpumix"  # what names a bad command-line argument
    mark_command_start()  # --time-limit counts from here: reading and writing included
    try:
        args = _build_parser().parse_args(argv)
        command = f"gpumix {args.command}"
        if args.command in _SEARCHING:
            with keeping_work_on_interrupt():
                code = _COMMANDS[args.command](args)
        else:
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
    except BrokenPipeError as exc:
        if not _stdout_closed():
            # A pipe inside gpumix broke (a worker process that could not start):
            # no reader went away, so it is no silent 141 (issue 33.7).
            print(
                f"gpumix: a pipe to a worker process broke ({exc.strerror or exc}): a worker "
                "could not start or ended early (can this user read gpumix's installation?)",
                file=sys.stderr,
            )
            return GpumixError.exit_code
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


def _stdout_closed() -> bool:
    """Standard output is a pipe or socket whose reader has gone (poll reports an error)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(event & (select.POLLERR | select.POLLHUP) for _, event in poller.poll(0))
    except (OSError, ValueError, AttributeError):  # no file behind stdout (a test's capture)
        return False


def _quiet_stdout() -> None:
    """Point stdout at nothing, so that the interpreter's last flush fails no more."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
