"""Ctrl-C keeps the work: the first press stops every search, the second aborts.

Why a handler of our own: Python turns SIGINT into KeyboardInterrupt in the
main thread only, between bytecodes. While a solver searches, the main
thread is inside the solver (``--solver highs``/``scip``) or waiting for the
race's threads, which search on after the main thread has given up; and
SCIP, left to itself, catches SIGINT for its own search only. So Ctrl-C
did nothing for minutes. Instead the first SIGINT sets one process-wide
stop event; every solver callback reads it (:func:`stop_requested`) and
stops its search as a time limit would, so the plan found so far is
checked and written, "stopped by the user". A second SIGINT ends the
process at once with exit 130.

SIGINT from a terminal reaches the whole process group, so pool workers
install the same handler (:func:`install_in_worker`): their solves stop and
hand back their best plans instead of raising KeyboardInterrupt.
Loops of our own (fix-and-optimize, sweeps) take ``should_stop=stop_requested``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

ABORT_EXIT_CODE = 130  # 128 + SIGINT, what a shell reports for Ctrl-C
STOPPED_BY_USER = "stopped by the user (Ctrl-C)"

_stop = threading.Event()


def stop_requested() -> bool:
    """Whether the user asked the searches to stop (a first Ctrl-C)."""
    return _stop.is_set()


def request_stop() -> None:
    """Stop every search as a first Ctrl-C would (tests; an embedding program)."""
    _stop.set()


def _on_sigint(_signum: int, _frame: Any) -> None:
    if _stop.is_set():
        os.write(2, b"\ngpumix: interrupted\n")
        os._exit(ABORT_EXIT_CODE)  # at once: no cleanup waits on a searching solver
    _stop.set()
    # os.write: a print could land inside another print of this thread.
    os.write(
        2,
        b"\ngpumix: stopping - checking and writing the best plans found so far"
        b" (Ctrl-C again to abort)\n",
    )
    # A `kill -INT` reaches this process only: hand the stop to the pool's workers.
    import multiprocessing

    for child in multiprocessing.active_children():
        if child.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(child.pid, signal.SIGINT)


def _on_sigint_in_worker(_signum: int, _frame: Any) -> None:
    # Never exits: the parent does, and its workers follow it (die_with_parent).
    _stop.set()


@contextmanager
def keeping_work_on_interrupt() -> Iterator[None]:
    """Within: a first Ctrl-C stops the searches, a second ends the process (exit 130).

    Only the main thread may set a signal handler; elsewhere this does nothing.
    The event is cleared on entry and on exit, so one command's stop does not
    reach the next (tests run many commands in one process).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _stop.clear()
    previous = signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        _stop.clear()


def install_in_worker() -> None:
    """Pool initializer's part: a worker's Ctrl-C stops its searches, silently.

    The parent says what happens; on a second Ctrl-C the parent ends, and its
    workers with it.
    """
    signal.signal(signal.SIGINT, _on_sigint_in_worker)
