"""Every process pool gpumix starts: spawned workers that end with their parent.

:func:`spawn_pool` is the one place a pool is made (the solve's extras, sweep,
alternatives, futures). Workers are spawned, never forked: a child forked
from a parent that has already run a HiGHS solve hangs, and spawned children
start clean. Each worker watches the process that started it and ends as soon
as that process is gone: a pool's workers otherwise outlive a parent killed
with SIGKILL (``timeout``, a CI cancel), solving on at full CPU and holding
the resource tracker open (an outside audit: a killed ``gpumix futures`` left
two workers running for 9 minutes).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

# How often a worker looks whether the process that started it is still there.
PARENT_WATCH_SECONDS = 0.5


def spawn_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes, each ending when this process ends."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=start_worker,
        initargs=(os.getpid(),),
    )


def start_worker(parent: int) -> None:
    """Pool initializer: die with the parent; a Ctrl-C stops the worker's solves, keeping
    their best plans (:mod:`optimizer.solve.interrupt`), instead of raising in them."""
    from optimizer.solve.interrupt import install_in_worker

    install_in_worker()
    die_with_parent(parent)


def die_with_parent(parent: int) -> None:
    """Pool initializer: end this worker as soon as ``parent`` is gone.

    A daemon thread in each worker watches its parent process id and ends the
    worker when it changes (the worker was handed to init or a subreaper).
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="gpumix-parent-watch", daemon=True).start()
