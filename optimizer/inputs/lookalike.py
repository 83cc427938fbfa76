"""Names that look alike but are different names: ``H100`` and ``H\\u200b100``.

A zero-width character, or a Cyrillic or Greek letter drawn like a Latin one
(``Н100`` with a Cyrillic En), makes a second name that every sheet and chart
prints exactly like the first: the results then show two rows that look the
same. Such names are allowed (a name is any text) but each gets a warning
naming both places. Two names look alike when their skeletons are equal:
NFKC (compatibility forms: a full-width ``Ｈ``), without format characters
(zero-width spaces and joiners, direction marks), with the letters of
``_LATIN_TWINS`` read as their Latin twins. PyPI holds no well-kept library of
Unicode's confusables for this; the twins below are the letters of those
scripts that Unicode's confusables.txt maps to a Latin letter and that a
keyboard layout types.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path

from optimizer.inputs.cells import column_letter
from optimizer.inputs.tables import SheetTable

_LATIN_TWINS = str.maketrans(
    {
        # Cyrillic capitals and small letters
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
        "С": "C", "Т": "T", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ү": "Y", "Ԛ": "Q",
        "Ԝ": "W", "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x",
        "ѕ": "s", "і": "i", "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w",
        # Greek capitals and small letters
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
        "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ν": "v",
    }
)  # fmt: skip


def skeleton(name: str) -> str:
    """What ``name`` looks like: equal skeletons print alike."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return text.translate(_LATIN_TWINS)


def _unusual(name: str) -> str:
    """The characters of ``name`` that are not plain ASCII, named: ``U+200B ZERO WIDTH SPACE``."""
    found = dict.fromkeys(c for c in name if not c.isascii())
    return ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in found)


def lookalike_warnings(kind: str, names: Iterable[tuple[str, str]]) -> list[str]:
    """One warning per name that looks like an earlier, different one.

    ``names``: (name, where it is given: ``input.xlsx, sheet GPUs, cell A3``), in
    reading order; the same name given twice is not a look-alike.
    """
    first: dict[str, tuple[str, str]] = {}
    warnings = []
    for name, place in names:
        earlier = first.setdefault(skeleton(name), (name, place))
        if earlier[0] == name:
            continue
        seen, seen_place = earlier
        odd = _unusual(name) or _unusual(seen)
        warnings.append(
            f"warning: {place}: {kind} {name!a} looks like {kind} {seen!a} "
            f"({seen_place}) but is a different name ({odd}); the results would show two "
            "that look the same (retype one if they are meant to be one)"
        )
    return warnings


# The columns that name things, by sheet: a name there is defined (or, for
# futures, combines rows), so two that look alike make two things.
NAME_COLUMNS: dict[str, tuple[str, str]] = {
    "GPUs": ("gpu", "GPU type"),
    "Workloads": ("workload", "workload"),
    "Scenarios": ("scenario", "scenario"),
    "Futures": ("future", "future"),
}


def lookalikes_in_table(file: str, table: SheetTable) -> list[str]:
    """The look-alike names of the sheet's name column (``NAME_COLUMNS``), with their cells."""
    named = NAME_COLUMNS.get(table.name)
    if named is None or named[0] not in table.columns:
        return []
    column, kind = named
    index = table.columns[column]
    letter = column_letter(index)
    sheet = f"{Path(file).name}, sheet {table.name}"
    names = []
    for row, values in table.rows:
        raw = values[index] if index < len(values) else None
        if isinstance(raw, str) and raw.strip():
            names.append((raw.strip(), f"{sheet}, cell {letter}{row}"))
    return lookalike_warnings(kind, names)


def lookalikes_in_file(kind: str, names: Sequence[str], place: str) -> list[str]:
    """The same for names a scenario file lists in one place (``eu.yaml, line 12``)."""
    return lookalike_warnings(kind, ((n, place) for n in names))
