"""Regenerate docs/printed.md and docs/printed/*.png: the bundled example's workbooks as printed.

Writes the result, compare and sweep workbooks with the commands in
``tests/printed_example.py``, prints them to PDF with LibreOffice (its own
throw-away profile) and turns the pages worth seeing into PNGs with
poppler's ``pdftoppm -r 60``. ``tests/reports/test_printed.py`` fails when
the page counts recorded here are stale. Run from the repository:

    .venv/bin/python docs/make_printed.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.libreoffice import printed_pages_of  # noqa: E402
from tests.printed_example import COMMANDS, page_sheet, page_table, write_example_workbooks  # noqa: E402

OUT = ROOT / "docs" / "printed"
# (workbook, sheet whose first printed page is shown, PNG name, caption)
SHOWN = (
    ("result", "Summary", "result-1-summary", "Result workbook, page 1: the Summary at a glance"),
    (
        "result",
        "us-baseline Cash flow",
        "result-cash-flow",
        "Result workbook: a scenario's cash flow, with its two charts",
    ),
    (
        "result",
        "us-baseline Fleet",
        "result-fleet",
        "Result workbook: a scenario's GPUs in use by type and place",
    ),
    ("compare", "Comparison", "compare-1", "Compare workbook, page 1"),
    ("sweep", "Summary", "sweep-1-summary", "Sweep workbook, page 1: the answer and two charts"),
)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gpumix-printed-") as tmp:
        folder = Path(tmp)
        paths = write_example_workbooks(folder)
        pages = printed_pages_of(list(paths.values()), folder / "pdf")
        printed = {kind: pages[path] for kind, path in paths.items()}
        OUT.mkdir(exist_ok=True)
        figures = []
        for kind, sheet, name, caption in SHOWN:
            number = 1 + [page_sheet(p) for p in printed[kind]].index(sheet)
            pdf = folder / "pdf" / f"{paths[kind].stem}.pdf"
            subprocess.run(
                [
                    *("pdftoppm", "-png", "-r", "60", "-singlefile"),
                    *("-f", str(number), "-l", str(number), str(pdf), str(OUT / name)),
                ],
                check=True,
            )
            figures.append(f"### {caption}\n\n![{caption}](printed/{name}.png)\n")
    commands = "\n".join(
        "gpumix " + " ".join(repr(a) if " " in a else a for a in args if a != "--quiet")
        for args in COMMANDS.values()
    ).replace(str(ROOT) + "/", "")
    text = f"""# The workbooks as finance prints them

The bundled example's three workbooks, printed to PDF by LibreOffice (as
Excel would print the whole workbook) and shown here at 60 dpi. They were
written by:

```sh
{commands}
```

What prints: the Summary (page 1 at a glance, then the details), each
scenario's Cash flow (the monthly table with the monthly and cumulative
cash charts, one portrait page) and Fleet (GPUs in use per month by type
and place, and its chart), then the Audit (the run, the files, the solves
and the scenarios' settings; the long tables of inputs are folded). Each
scenario's Places, Assignments and Options sheets are engineering detail:
they are in the workbook, whole, but hidden (right-click a sheet tab ›
Unhide) and not printed.

{page_table(printed)}

Regenerate this page with `.venv/bin/python docs/make_printed.py` (it needs
LibreOffice and poppler); `tests/reports/test_printed.py` fails when the
table above is stale.

{chr(10).join(figures)}"""
    (ROOT / "docs" / "printed.md").write_text(text, encoding="utf-8")
    print(f"wrote docs/printed.md and {len(SHOWN)} PNGs in docs/printed/")


if __name__ == "__main__":
    main()
