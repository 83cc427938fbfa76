"""A write interrupted by SIGTERM leaves the old file and no temporary file (issue 33.5).

An outside check sent SIGTERM to gpumix at 24 moments of a write: 6 left
hidden ``.gpumix-XXXXXXXX.xlsx.part`` files beside the output. Here a real
SIGTERM arrives while the writer is half way through (the writer says so and
waits: the timing is the test's, not the machine's).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.paths import ROOT

WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from optimizer.reports.safe_files import write_atomically

    def half_written(temporary: Path) -> None:
        temporary.write_bytes(b"half a workbook")
        print("writing", flush=True)
        time.sleep(60)  # SIGTERM comes now

    write_atomically(Path(sys.argv[1]), half_written)
    """
)


@pytest.mark.parametrize("existing", [False, True], ids=["new output", "replaced output"])
def test_sigterm_during_a_write_leaves_no_part_file_and_the_old_output(
    tmp_path: Path, existing: bool
) -> None:
    output = tmp_path / "out" / "result.xlsx"
    output.parent.mkdir()
    if existing:
        output.write_bytes(b"the previous result")
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(output)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "writing\n"
    assert [p.name for p in output.parent.iterdir() if p.name.endswith(".part")] != []
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 128 + signal.SIGTERM, err
    assert err == ""  # no traceback: the exit code says what happened
    assert sorted(os.listdir(output.parent)) == (["result.xlsx"] if existing else [])
    if existing:
        assert output.read_bytes() == b"the previous result"


def test_a_write_outside_the_main_thread_and_the_handler_before_it_are_kept(
    tmp_path: Path,
) -> None:
    import threading

    from optimizer.reports.safe_files import write_atomically

    before = signal.getsignal(signal.SIGTERM)
    write_atomically(tmp_path / "a.xlsx", lambda p: p.write_bytes(b"a"))
    assert signal.getsignal(signal.SIGTERM) is before
    worker = threading.Thread(
        target=write_atomically, args=(tmp_path / "b.xlsx", lambda p: p.write_bytes(b"b"))
    )
    worker.start()
    worker.join()
    assert sorted(os.listdir(tmp_path)) == ["a.xlsx", "b.xlsx"]
