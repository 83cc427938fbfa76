"""Regenerate the bundled workbooks: ``template.xlsx`` and ``example.xlsx``.

Run from anywhere: ``.venv/bin/python workbooks/make_workbooks.py``. Both files
come from ``optimizer.inputs.schema`` (headers, lists, README) and the example's rows
from ``optimizer.inputs.example_data``; ``tests/test_bundled_files.py`` fails when the
files in this folder no longer match what this script writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from optimizer.inputs.example_data import EXAMPLE_ROWS
from optimizer.inputs.template import Rows, write_template

HERE = Path(__file__).resolve().parent

# File name → the rows written into it (None: the empty template).
BUNDLED: dict[str, Rows | None] = {
    "template.xlsx": None,
    "example.xlsx": EXAMPLE_ROWS,
}


def write_all(folder: Path) -> list[Path]:
    """Write every bundled workbook into ``folder``; returns the paths written."""
    written = []
    for name, rows in BUNDLED.items():
        path = folder / name
        write_template(path, rows)
        written.append(path)
    return written


def main() -> int:
    for path in write_all(HERE):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
