"""Every pool gpumix starts ends with its parent (issue 33.11).

``gpumix futures`` killed with SIGKILL (a ``timeout`` around it) left its two
spawned workers and their resource tracker solving for 9 minutes, handed to
init; the solve's pool already ended with its parent. Each command that
starts a pool runs here in its own process group on the bundled example
(busy for longer than the test waits), is killed with SIGKILL once its
workers are up, and the group must be empty within a few seconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.paths import EXAMPLE_WORKBOOK, ROOT

COMMANDS = {
    "solve extras": ["solve", str(EXAMPLE_WORKBOOK), "--jobs", "2"],
    "sweep": ["sweep", str(EXAMPLE_WORKBOOK), "--vary", "hours_per_month=600:730:4", "--jobs", "2"],
    "alternatives": ["alternatives", str(EXAMPLE_WORKBOOK), "--jobs", "2"],
    "futures": ["futures", str(ROOT / "scenarios" / "futures.yaml")],
}
# The parent, the resource tracker and at least one worker.
STARTED = 3
# A worker looks for its parent every 0.5 s; a loaded machine may be slow to end it.
GONE_WITHIN = 15.0


def _members(group: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getpgid(int(entry)) == group:
                    found.append(int(entry))
            except ProcessLookupError:
                pass
    return found


@pytest.mark.parametrize("argv", COMMANDS.values(), ids=COMMANDS.keys())
def test_no_worker_outlives_its_killed_parent(tmp_path: Path, argv: list[str]) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "optimizer.cli", *argv, "--quiet"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: every child is found by it
    )
    group = process.pid
    try:
        deadline = time.monotonic() + 120
        while len(_members(group)) < STARTED and time.monotonic() < deadline:
            assert process.poll() is None, "the command ended before its pool started"
            time.sleep(0.1)
        assert len(_members(group)) >= STARTED, "the pool never started"
        time.sleep(1.0)  # the workers at work, past their start-up
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        deadline = time.monotonic() + GONE_WITHIN
        while _members(group) and time.monotonic() < deadline:
            time.sleep(0.2)
        survivors = _members(group)
    finally:
        for pid in _members(group):  # clean up before failing
            os.kill(pid, signal.SIGKILL)
    assert survivors == []
