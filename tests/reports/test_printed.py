"""The result workbook as finance prints it: LibreOffice's PDF, read back page by page."""

from __future__ import annotations

import re

import pytest

from optimizer.reports.result_workbook import write_result_workbook
from tests.fake_plans import fake_plan, fake_run
from tests.libreoffice import printed_pages

pytestmark = pytest.mark.libreoffice


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = tmp_path_factory.mktemp("printed")
    path = folder / "results.xlsx"
    write_result_workbook(path, fake_run(fake_plan("base")))
    return printed_pages(path, folder / "pdf")


def _sheet(page: str) -> str:
    """The sheet a page belongs to, from its footer ("<sheet>   Page 3 of 12")."""
    found = re.findall(r"^\s*(.+?)\s{2,}Page \d+ of \d+\s*$", page, re.MULTILINE)
    return found[-1].strip() if found else ""


def test_page_one_tells_finance_what_to_do_and_what_it_saves(pages: list[str]) -> None:
    first = pages[0]
    assert _sheet(first) == "Summary"
    for text in (
        "At a glance",
        "What to do",
        "Saving against rent only (USD)",
        "Buying pays back against rent only from",
        "Limits that hold the plan back",
        "Cash saved so far against renting everything",  # the chart's title
    ):
        assert text in first, text
    # The details start on page 2, and the chart's data table is not printed.
    assert "Status" not in first and "Status" in pages[1]
    assert not any("Cumulative cash by month" in page for page in pages)


def test_options_print_only_the_pairs_the_plan_uses(pages: list[str]) -> None:
    options = [page for page in pages if _sheet(page) == "base Options"]
    assert options  # two pages wide, the workload and GPU columns repeated on each
    for page in options:
        rows = re.findall(r"^\s*(chat-8b|lora-7b)\s+(H100|L40S)\s", page, re.MULTILINE)
        # chat-8b on H100 (width 1) and lora-7b on L40S; the other 4 lines stay folded.
        assert rows == [("chat-8b", "H100"), ("lora-7b", "L40S")]
        assert "The 2 pairs the plan uses come first; the other 4 are folded away" in page


def test_every_page_says_which_sheet_it_is_and_the_summary_fits_in_three(
    pages: list[str],
) -> None:
    sheets = [_sheet(page) for page in pages]
    assert all(sheets), [i + 1 for i, s in enumerate(sheets) if not s]
    assert sheets[0] == "Summary" and sheets.count("Summary") <= 3
