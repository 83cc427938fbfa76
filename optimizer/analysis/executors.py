"""Where sweep solves run: in this process, a local pool of processes, or a Dask cluster.

Every choice is a standard :class:`concurrent.futures.Executor`, so the sweep
code submits work the same way whichever runs it. Local pools are
:func:`~optimizer.solve.spawn_pool.spawn_pool`'s: spawned, and ending with
their parent.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, as_completed
from contextlib import contextmanager
from typing import Any, TextIO, TypeVar

from optimizer.errors import InputError, Problem
from optimizer.solve.spawn_pool import spawn_pool

T = TypeVar("T")


class InlineExecutor(Executor):
    """Runs each task at once in the calling process (one job: no pool to start)."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed to the caller through the future, as pools do
            future.set_exception(exc)
        return future


@contextmanager
def open_executor(
    jobs: int | None = None, scheduler: str | None = None, tasks: int | None = None
) -> Iterator[Executor]:
    """The executor a sweep runs on, closed on exit.

    ``scheduler`` (a Dask scheduler address) wins over ``jobs``. Otherwise
    ``jobs == 1`` runs in this process and any other value starts a spawn
    pool of ``jobs`` processes (None: one per CPU), never more than ``tasks``
    when the number of tasks is known.
    """
    if scheduler is not None:
        with _dask_executor(scheduler) as executor:
            yield executor
        return
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    workers = jobs if jobs is not None else (multiprocessing.cpu_count() or 1)
    if tasks is not None:
        workers = max(1, min(workers, tasks))
    if workers == 1:
        yield InlineExecutor()
        return
    pool = spawn_pool(workers)
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def _dask_executor(scheduler: str) -> Iterator[Executor]:
    # Imported here: Dask is an optional dependency (the "cluster" extra).
    try:
        from distributed import Client
    except ImportError as exc:
        raise InputError("usage: --scheduler needs Dask: pip install 'gpumix[cluster]'") from exc
    try:
        client = Client(scheduler)
    except (OSError, ValueError) as exc:  # unreachable, timed out, or not an address
        raise InputError(
            Problem(
                file="command line",
                message=f"usage: cannot reach the Dask scheduler at {scheduler!r}: {exc}",
                expected="the address of a running scheduler, e.g. tcp://10.0.0.5:8786",
            )
        ) from exc
    with client:
        # pure=False: two variants may be equal; each is still its own task.
        yield client.get_executor(pure=False)


class ProgressBar:
    """A one-line text bar on a stream (standard error by default)."""

    def __init__(
        self, total: int, label: str = "sweep", width: int = 30, stream: TextIO | None = None
    ):
        self.total = total
        self.label = label
        self.width = width
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0

    def advance(self) -> None:
        self.done += 1
        filled = self.width * self.done // self.total if self.total else self.width
        bar = "#" * filled + "-" * (self.width - filled)
        end = "\n" if self.done >= self.total else ""
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total}{end}")
        self.stream.flush()

    def finish(self) -> None:
        """End the line when the work stopped before the bar filled (e.g. bisection converged)."""
        if self.done < self.total:
            self.stream.write("\n")
            self.stream.flush()


def run_in_order(
    executor: Executor,
    fn: Callable[..., T],
    argument_tuples: Sequence[tuple[Any, ...]],
    progress: ProgressBar | None = None,
) -> list[T]:
    """``fn(*args)`` for every tuple, run on ``executor``; results in input order.

    Tasks finish in any order; the bar advances as each one does. The first
    task that raised re-raises here, after the others are cancelled.
    """
    futures = [executor.submit(fn, *args) for args in argument_tuples]
    position = {id(f): i for i, f in enumerate(futures)}
    results: list[Any] = [None] * len(futures)
    try:
        for future in as_completed(futures):
            results[position[id(future)]] = future.result()
            if progress is not None:
                progress.advance()
    except BaseException:
        for future in futures:
            future.cancel()
        raise
    return results
