"""Names of the result workbook's sheets.

Excel refuses a sheet name longer than 31 characters, holding any of
``[ ] : * ? / \\``, starting or ending with an apostrophe, or equal (ignoring
case) to another sheet's name. Result sheets must also never take the name of
an input sheet (``--in-place`` writes them into the input workbook) nor of
the fixed ``Summary`` and ``Audit`` sheets.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from optimizer.inputs.schema import INPUT_SHEET_NAMES
from optimizer.reports.cell_text import cell_text

MAX_SHEET_NAME = 31
SUMMARY = "Summary"
AUDIT = "Audit"
COMPARISON = "Comparison"
RESERVED_NAMES: frozenset[str] = frozenset({*INPUT_SHEET_NAMES, SUMMARY, AUDIT})

_FORBIDDEN = re.compile(r"[\[\]:*?/\\]")
_CONTROL = re.compile(
    r"[\x00-\x1f\x7f]"
)  # dropped, as optimizer.reports.cell_text drops them in cells

# The per-scenario sheets, in the order they are written.
SCENARIO_SHEET_KINDS = ("Cash flow", "Fleet", "Places", "Assignments", "Options")


def clean_sheet_text(text: str) -> str:
    """``text`` with what Excel forbids in a sheet name replaced by spaces, trimmed."""
    cleaned = _FORBIDDEN.sub(" ", _CONTROL.sub("", cell_text(text)))
    cleaned = re.sub(r"\s+", " ", cleaned).strip().strip("'").strip()
    return cleaned


def excel_length(text: str) -> int:
    """Length as Excel counts it: UTF-16 code units (a character beyond U+FFFF counts 2)."""
    return len(text.encode("utf-16-le")) // 2


def cut(text: str, units: int) -> str:
    """The longest start of ``text`` at most ``units`` UTF-16 code units long."""
    out = []
    used = 0
    for char in text:
        used += excel_length(char)
        if used > units:
            break
        out.append(char)
    return "".join(out)


class SheetNamer:
    """Hands out sheet names that are valid and unique within one workbook.

    ``taken`` are names already in use (compared ignoring case), e.g. the
    fixed sheets or, when writing into an input workbook, its sheets.
    """

    def __init__(self, taken: Iterable[str] = RESERVED_NAMES) -> None:
        self._taken: set[str] = {name.casefold() for name in taken}

    def reserve(self, name: str) -> str:
        """Mark a fixed name (``Summary``) as used and return it unchanged."""
        self._taken.add(name.casefold())
        return name

    def scenario_sheet(self, scenario: str, kind: str) -> str:
        """``"<scenario> <kind>"``, shortened in the scenario part so ``kind`` stays readable."""
        base = clean_sheet_text(scenario) or "scenario"
        suffix = f" {kind}"
        return self._unique(base, suffix)

    def name(self, wanted: str) -> str:
        """A valid, unused name as close to ``wanted`` as possible."""
        return self._unique(clean_sheet_text(wanted) or "Sheet", "")

    def _unique(self, base: str, suffix: str) -> str:
        for n in range(1, 10_000):
            marker = "" if n == 1 else f" ({n})"
            room = MAX_SHEET_NAME - excel_length(suffix) - excel_length(marker)
            candidate = (cut(base, room).rstrip() + marker + suffix).strip()
            if candidate.casefold() not in self._taken:
                self._taken.add(candidate.casefold())
                return candidate
        raise RuntimeError(f"no free sheet name for {base!r}")  # unreachable in practice


@dataclass(frozen=True)
class ResultSheetNames:
    summary: str
    audit: str
    scenarios: dict[str, dict[str, str]]  # scenario -> kind ("Cash flow", ...) -> sheet name


def result_sheet_names(scenarios: Iterable[str], taken: Iterable[str] = ()) -> ResultSheetNames:
    """Names of every result sheet; ``taken`` are sheets already in the workbook (in place)."""
    namer = SheetNamer([*INPUT_SHEET_NAMES, *taken])
    summary, audit = namer.name(SUMMARY), namer.name(AUDIT)
    return ResultSheetNames(
        summary,
        audit,
        {
            scenario: {kind: namer.scenario_sheet(scenario, kind) for kind in SCENARIO_SHEET_KINDS}
            for scenario in scenarios
        },
    )


def scenario_sheet_names(scenarios: Iterable[str]) -> dict[str, dict[str, str]]:
    """For each scenario name, its sheets' names: ``{scenario: {kind: sheet}}``."""
    return result_sheet_names(scenarios).scenarios
