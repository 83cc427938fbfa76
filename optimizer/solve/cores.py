"""How many cores this process may use (the CPU affinity, not the machine's count).

A container or ``taskset`` may give a process fewer cores than the machine
has; ``auto`` races two solvers only when two are really there.
"""

from __future__ import annotations

import os


def usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1
