"""Solves side by side in spawned workers, urgent ones first, at most ``limit`` at once.

:class:`SideBySide` is one process pool for every step of a multi-solve run
(the futures solve): a step is submitted with a function and a callable
giving its arguments, which is called only when a worker takes the step, so
that a time limit handed to the step counts what is left *then*, not when it
was queued. Urgent steps (those a later step waits for) jump the queue.
``limit`` may be lowered while the caller solves something itself in this
process, so that the machine's cores are not oversubscribed.

Workers are spawned, never forked (a child forked after a HiGHS solve in the
parent hangs), end with their parent (:mod:`optimizer.solve.spawn_pool`), and get data, never PuLP objects. With one worker every step
runs in this process as soon as it is submitted.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from functools import partial
from types import TracebackType
from typing import Any

from optimizer.solve.spawn_pool import spawn_pool

Arguments = Callable[[], tuple[Any, ...]]


class SideBySide:
    """A spawn pool of ``workers`` processes with a priority queue in front of it."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self._limit = self.workers
        self._lock = threading.RLock()
        self._order = itertools.count()
        self._queue: list[tuple[int, int, Callable[..., Any], Arguments, Future[Any]]] = []
        self._running = 0
        self._pool: ProcessPoolExecutor | None = None
        if self.workers > 1:
            self._pool = spawn_pool(self.workers)

    def __enter__(self) -> SideBySide:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def submit(
        self, fn: Callable[..., Any], arguments: Arguments, urgent: bool = False
    ) -> Future[Any]:
        """``fn(*arguments())`` on a worker when one is free; urgent steps go first."""
        outer: Future[Any] = Future()
        if self._pool is None:
            try:
                outer.set_result(fn(*arguments()))
            except BaseException as error:  # handed to whoever waits for the step
                outer.set_exception(error)
            return outer
        with self._lock:
            heapq.heappush(
                self._queue, (0 if urgent else 1, next(self._order), fn, arguments, outer)
            )
            self._dispatch()
        return outer

    def set_limit(self, limit: int) -> None:
        """At most ``limit`` steps at once from now on (steps already running go on)."""
        with self._lock:
            self._limit = max(1, min(limit, self.workers))
            if self._pool is not None:
                self._dispatch()

    def close(self) -> None:
        """Drop the steps not started, wait for the running ones, stop the workers."""
        with self._lock:
            dropped, self._queue = self._queue, []
        for *_, outer in dropped:
            outer.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def _dispatch(self) -> None:
        # Called with the lock held (RLock: a step that finishes at once calls back in).
        assert self._pool is not None
        while self._queue and self._running < self._limit:
            _, _, fn, arguments, outer = heapq.heappop(self._queue)
            try:
                args = arguments()
            except BaseException as error:
                outer.set_exception(error)
                continue
            self._running += 1
            inner = self._pool.submit(fn, *args)
            inner.add_done_callback(partial(self._finished, outer))

    def _finished(self, outer: Future[Any], inner: Future[Any]) -> None:
        # The step's result first, then the next step: whoever waits for this
        # one sees it done before any later step's arguments are made.
        if inner.cancelled():
            outer.cancel()
        elif (error := inner.exception()) is not None:
            outer.set_exception(error)
        else:
            outer.set_result(inner.result())
        with self._lock:
            self._running -= 1
            if self._pool is not None:
                self._dispatch()
