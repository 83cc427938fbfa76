"""The bundled example's result, compare and sweep workbooks, and how they print.

Used by ``tests/reports/test_printed.py`` and by ``docs/make_printed.py``
(which regenerates ``docs/printed.md`` and its PNGs), so that both look at
the same three workbooks made by the same commands.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from optimizer.cli import main
from tests.paths import EXAMPLE_WORKBOOK, ROOT

SCENARIOS = ROOT / "scenarios"
# What each workbook is, and the gpumix arguments that write it (the output path follows).
COMMANDS: dict[str, list[str]] = {
    "result": ["solve", str(EXAMPLE_WORKBOOK), "--quiet"],
    # The example's two scenario files: small-team's solves take seconds where the
    # workbook's own scenarios take tens of seconds each.
    "compare": ["compare", str(SCENARIOS / "small-team.yaml"), str(SCENARIOS / "rent-only.yaml")],
    "sweep": [
        "sweep",
        str(SCENARIOS / "small-team.yaml"),
        "--vary",
        "price_factor:A100 80GB:reserved=0.5:1.5:5",
        "--quiet",
    ],
}


def write_example_workbooks(folder: Path) -> dict[str, Path]:
    """Run the three commands; returns each workbook's path by its kind."""
    paths = {}
    for kind, args in COMMANDS.items():
        path = folder / f"example-{kind}.xlsx"
        code = main([*args, "--output", str(path)])
        if code != 0:
            raise RuntimeError(f"gpumix {' '.join(args)} exited with {code}")
        paths[kind] = path
    return paths


def page_sheet(page: str) -> str:
    """The sheet a page belongs to, from its footer ("<sheet>   Page 3 of 12")."""
    found = re.findall(r"^\s*(\S.*?)\s{2,}Page \d+ of \d+\s*$", page, re.MULTILINE)
    return found[-1].strip() if found else ""


def pages_per_sheet(pages: Sequence[str]) -> list[tuple[str, int]]:
    """(sheet, pages) in print order."""
    counts: list[tuple[str, int]] = []
    for page in pages:
        sheet = page_sheet(page)
        if counts and counts[-1][0] == sheet:
            counts[-1] = (sheet, counts[-1][1] + 1)
        else:
            counts.append((sheet, 1))
    return counts


def page_table(printed: dict[str, Sequence[str]]) -> str:
    """The Markdown table docs/printed.md holds: pages per sheet of each workbook."""
    lines = ["| workbook | pages | pages per sheet, in print order |", "|---|---|---|"]
    for kind, pages in printed.items():
        sheets = ", ".join(f"{sheet} {n}" for sheet, n in pages_per_sheet(pages))
        lines.append(f"| {kind} | {len(pages)} | {sheets} |")
    return "\n".join(lines)
