"""Text from users, made safe to put in a spreadsheet cell.

Names of workloads, GPUs, scenarios, providers and price sources come from
the input workbook and travel to finance inside the result workbook. A name
such as ``=HYPERLINK("http://x","y")`` must show as that text and never run:

* writers put it in a *string* cell (XlsxWriter ``write_string``, openpyxl
  ``data_type = "s"``), so no reader evaluates it; and
* the cell carries Excel's *quote prefix* (the hidden apostrophe a user gets
  by typing ``'=...``), so that editing the cell in Excel or LibreOffice and
  pressing Enter keeps it text instead of turning it into a formula.

Characters that XML 1.0 forbids (control characters other than tab, line feed
and carriage return) would make the file unreadable, so they are dropped. A
carriage return becomes a line feed: XlsxWriter stores it as the escape
``_x000D_``, which Excel decodes but other readers (openpyxl, pandas) show
literally, and a line break is all it ever meant in a name.
"""

from __future__ import annotations

import re

# Characters a spreadsheet treats as the start of a formula (OWASP CSV injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

# XML 1.0 allows #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
_ILLEGAL_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")

# Excel's limit on the characters of one cell.
MAX_CELL_CHARS = 32767


def cell_text(value: object) -> str:
    """The text to store for a user-supplied value: printable, at most one cell long."""
    text = "" if value is None else str(value)
    text = _ILLEGAL_XML.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    return text[:MAX_CELL_CHARS]


def looks_like_formula(text: str) -> bool:
    """True when a spreadsheet would read this text as a formula if typed in."""
    return text.startswith(FORMULA_STARTS)
