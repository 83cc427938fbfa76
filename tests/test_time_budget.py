"""``--time-limit S`` bounds the whole command (issue 34), on a model no solver proves
within minutes (synthetic (10, 20, 36) seed 1, ``tests/big_command.py``).

Before: ``solve --time-limit 20`` on it took 144 s (every baseline and shadow price
got its own 20 s). Measured from starting the process to its end, so the Python
start-up (about 1 s idle, 3 s with five helpers on two cores) counts too.
MARGIN_S covers that start-up, the solvers overrunning their own time limits
(measured loaded: the race asked to stop after 8.2 s ended 3.8 s late, inside
root LPs and cuts, where neither solver calls back) and the exit; the budget
itself sets aside ``write_reserve`` (2 s of 20) for writing the workbook. The
command's own span, from ``main`` to written result, held 20 s within 0.7 s in
those runs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.slow

LIMIT_S = 20.0
MARGIN_S = 12.0


def _run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    for name in ("big.xlsx", "big2.xlsx"):
        (tmp_path / name).touch()  # named, never read
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "tests.big_command", *args, "--time-limit", f"{LIMIT_S:g}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done, time.monotonic() - began


# A plan stopped by the limit shows its proven gap; none found says so and why.
STOPPED = re.compile(
    r"synthetic-10x20x36-s1: (time_limit, total cost \$[\d,.]+ .*, proven gap [\d.]+%"
    r"|error — HiGHS and SCIP found no plan within the [\d.]+ s time limit; raise --time-limit)"
)


@pytest.mark.parametrize(
    "args",
    [
        ("solve", "big.xlsx"),
        ("compare", "big.xlsx", "big2.xlsx"),
        ("sweep", "big.xlsx", "--vary", "price_factor:G00:buy=0.8:1.2:3"),
        ("alternatives", "big.xlsx"),
    ],
    ids=lambda a: a[0],
)
def test_the_whole_command_ends_within_its_time_limit_and_writes_what_it_has(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    done, took = _run(tmp_path, *args)
    assert took < LIMIT_S + MARGIN_S, (took, done.stderr[-2000:])
    assert done.returncode in (0, 1), done.stderr  # 1: some part has no plan, as the README says
    assert re.search(r"^wrote .*\.xlsx$", done.stdout, re.MULTILINE), done.stdout
    if args[0] in ("solve", "alternatives"):
        assert STOPPED.search(done.stdout), done.stdout
