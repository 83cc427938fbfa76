"""Cell values and their places: a raw value (a cell, or a YAML value) becomes a typed one.

Takes a raw value and the ``FieldSpec`` made from a column declaration of
``optimizer.inputs.schema``; hands on the typed value, or a ``BadValue`` saying
why not. ``Where`` (with ``SheetRow``, a sheet's row) builds the ``Problem``
that points at the value, so every later step reports the same way.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, time, timedelta
from typing import Any, Protocol

from optimizer.currency import CURRENCY_MAX_CHARS, FORMULA_STARTS
from optimizer.errors import Problem
from optimizer.inputs.schema import AssumptionKey, Column, ColumnType, bound_text

# ---------------------------------------------------------------- values


@dataclass(frozen=True)
class FieldSpec:
    """How one field's raw value (a cell, or a YAML value) becomes a typed value."""

    name: str
    type: ColumnType
    expected: str
    required: bool = False
    minimum: float | None = None
    maximum: float | None = None
    positive: bool = False
    at_most_one: bool = False
    below_one: bool = False  # in [0, 1): 1 itself is refused
    allowed: tuple[str, ...] = ()
    label_chars: int = 0  # > 0: a short label (currency) of at most this many printable characters

    @property
    def bounded_expected(self) -> str:
        """``expected`` with the bound gpumix plans up to (messages leave it out: it is far)."""
        if self.maximum is None:
            return self.expected
        return f"{self.expected}; at most {bound_text(self.maximum)}"

    @classmethod
    def of_column(cls, column: Column) -> FieldSpec:
        return cls(
            name=column.name,
            type=column.type,
            expected=column.expected,
            required=column.required,
            minimum=column.minimum,
            maximum=column.maximum,
            positive=column.positive,
            at_most_one=column.at_most_one,
            allowed=column.allowed,
        )

    @property
    def upper(self) -> float | None:
        """The largest value accepted, or None; 1 for a share, or a rate below 1 (1 refused)."""
        if self.at_most_one or self.below_one:
            return 1.0 if self.maximum is None else min(self.maximum, 1.0)
        return self.maximum

    @classmethod
    def of_assumption(cls, key: AssumptionKey) -> FieldSpec:
        if key.label:
            return cls(
                name=key.key,
                type=ColumnType.TEXT,
                expected=LABEL_EXPECTED,
                label_chars=CURRENCY_MAX_CHARS,
            )
        if key.column_type is ColumnType.BOOL:
            return cls(name=key.key, type=ColumnType.BOOL, expected="TRUE or FALSE")
        if key.column_type is ColumnType.CHOICE:
            expected = "one of " + ", ".join(key.allowed)
            return cls(name=key.key, type=ColumnType.CHOICE, expected=expected, allowed=key.allowed)
        expected = "a number > 0" if key.positive else "a number ≥ 0"
        if key.at_most_one:
            expected += ", at most 1"
        if key.below_one:
            expected += ", less than 1"
        expected += f" ({key.unit})"
        return cls(
            name=key.key,
            type=ColumnType.NUMBER,
            expected=expected,
            minimum=0.0,
            maximum=key.maximum,
            positive=key.positive,
            at_most_one=key.at_most_one,
            below_one=key.below_one,
        )


@dataclass(frozen=True)
class UnreadableCell:
    """A cell whose value cannot be used: a formula never calculated, an Excel error."""

    reason: str
    shown: str  # what the cell shows or holds, for the message


class BadValue(Exception):
    """Internal: a raw value does not fit its field; ``message`` says how."""

    def __init__(self, message: str, expected: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.expected = expected


_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0"})


def is_blank(raw: object) -> bool:
    return raw is None or raw == "" or (isinstance(raw, str) and raw.isspace())


def shown(raw: object) -> object:
    """A raw value as a message should show it (dates as ISO text, not reprs)."""
    if isinstance(raw, UnreadableCell):
        return raw.shown
    if isinstance(raw, date | time):
        return raw.isoformat()
    if isinstance(raw, timedelta):
        return str(raw)
    return raw


def closest(name: str, known: Iterable[str]) -> str | None:
    """The known name close to ``name``, or None.

    Case is ignored, and the letter O counts as the digit 0 (``H1OO``).
    """

    def plain(text: str) -> str:
        return text.lower().replace("o", "0")

    by_plain = {plain(k): k for k in known}
    close = difflib.get_close_matches(plain(name), list(by_plain), n=1, cutoff=0.6)
    return by_plain[close[0]] if close else None


def suggestion(name: str, known: Iterable[str]) -> str:
    """``; did you mean 'H100'?`` when a known name is close (``closest``), else ''."""
    match = closest(name, known)
    return f"; did you mean {match!r}?" if match is not None else ""


def normalize_name(raw: object) -> str:
    """A header or key as a comparison sees it: ``Min-Replicas [n]`` → ``min_replicas``.

    Case, surrounding spaces, units in parentheses or brackets are dropped;
    runs of spaces and hyphens become one underscore.
    """
    text = re.sub(r"\([^)]*\)|\[[^\]]*\]", "", _text(raw)).strip().lower()
    return re.sub(r"[\s\-]+", "_", text)


def closest_name(name: str, known: Iterable[str]) -> str | None:
    """``closest`` after ``normalize_name`` on both sides: ``min replicas`` → ``min_replicas``."""
    by_normal = {normalize_name(k): k for k in known}
    normal = normalize_name(name)
    match = normal if normal in by_normal else closest(normal, by_normal)
    return None if match is None else by_normal[match]


def name_suggestion(name: str, known: Iterable[str]) -> str:
    """``suggestion`` by ``closest_name``: ``pue (ratio)`` → ``; did you mean 'pue'?``."""
    match = closest_name(name, known)
    return f"; did you mean {match!r}?" if match is not None else ""


def _number(raw: object) -> float:
    if raw.__class__ is float:  # the common case, first: most cells are plain numbers
        value = raw
        if not math.isfinite(value):
            raise BadValue("not a finite number")
        return value
    if isinstance(raw, bool):
        raise BadValue("TRUE/FALSE is not a number")
    if isinstance(raw, date | time | timedelta):
        raise BadValue("is a date or time, not a number")
    if isinstance(raw, int | float):
        value = float(raw)
    elif isinstance(raw, str) and _PLAIN_NUMBER.fullmatch(raw.strip()):
        value = float(raw.strip())
    else:
        raise BadValue("not a number")
    if not math.isfinite(value):
        raise BadValue("not a finite number")
    return value


def _bool(raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, int | float) and raw in (0, 1):
        return bool(raw)
    if isinstance(raw, str):
        text = raw.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    raise BadValue("not TRUE or FALSE")


def _text(raw: object) -> str:
    if isinstance(raw, bool):
        return "TRUE" if raw else "FALSE"
    if isinstance(raw, float) and raw.is_integer():
        return str(int(raw))
    if isinstance(raw, date | time):
        return raw.isoformat()
    return str(raw).strip()


LABEL_EXPECTED = (
    f"1 to {CURRENCY_MAX_CHARS} printable characters, not starting with = + - @"
    " (a code such as EUR or a symbol such as €)"
)


def _label(spec: FieldSpec, raw: object) -> str:
    """A currency label: trimmed, 1 to ``label_chars`` printable characters.

    Spaces alone are an error, not a blank: someone typed something (a cell of
    plain spaces is read as blank by calamine; no-break spaces arrive). A label
    starting like a formula is refused because chart titles carry it.
    """
    text = _text(raw)
    if not text:
        raise BadValue("is empty or only spaces")
    if len(text) > spec.label_chars:
        raise BadValue(f"is {len(text)} characters long, more than {spec.label_chars}")
    unprintable = next((c for c in text if not c.isprintable()), None)
    if unprintable is not None:
        raise BadValue(f"has a character that cannot be printed (U+{ord(unprintable):04X})")
    if text.startswith(FORMULA_STARTS):
        raise BadValue(f"begins with {text[0]}, which a workbook would read as a formula")
    return text


def coerce(spec: FieldSpec, raw: object) -> object:
    """The typed value of ``raw`` for ``spec``; None when blank. Raises BadValue."""
    if raw is None or raw == "":
        return None
    if spec.label_chars and not isinstance(raw, UnreadableCell):
        return _label(spec, raw)
    kind = spec.type
    if kind is ColumnType.TEXT and raw.__class__ is str:
        text = raw.strip()
        return text or None
    if isinstance(raw, UnreadableCell):
        raise BadValue(raw.reason)
    if is_blank(raw):
        return None
    if kind is ColumnType.TEXT:
        return _text(raw)
    if kind is ColumnType.BOOL:
        return _bool(raw)
    if kind is ColumnType.CHOICE:
        text = _text(raw).lower()
        if text not in spec.allowed:
            raise BadValue(f"unknown {spec.name}{suggestion(text, spec.allowed)}")
        return text
    if kind is ColumnType.NAME_LIST:
        if isinstance(raw, list | tuple):
            return tuple(_text(item) for item in raw if not is_blank(item))
        names = tuple(part.strip() for part in _text(raw).split(",") if part.strip())
        if not names:
            # "," is not blank (the default "all" would be a guess) and names nothing.
            raise BadValue("names nothing, only commas")
        return names
    value = _number(raw)
    if kind is ColumnType.INTEGER and not value.is_integer():
        raise BadValue("not a whole number")
    if spec.positive and value <= 0:
        raise BadValue("must be more than 0")
    if spec.minimum is not None and value < spec.minimum:
        raise BadValue(f"must be at least {spec.minimum:g}")
    if spec.maximum is not None and value > spec.maximum:
        raise BadValue(f"must be at most {bound_text(spec.maximum)}, the largest gpumix plans")
    if spec.at_most_one and value > 1:
        raise BadValue("must be at most 1 (fractions are plain numbers: 0.05 is 5 %)")
    if spec.below_one and value >= 1:
        raise BadValue("must be less than 1 (fractions are plain numbers: 0.05 is 5 %)")
    return int(value) if kind is ColumnType.INTEGER else value


def normalize_header(raw: object) -> str:
    """``Price (USD per GPU-hour)`` → ``price``: lower case, no parentheses, trimmed."""
    return re.sub(r"\([^)]*\)", "", _text(raw)).strip().lower()


# ---------------------------------------------------------------- locations


class Where(Protocol):
    """Where a record came from; builds Problems that point at it."""

    @property
    def label(self) -> str: ...

    def at(
        self, column: str, message: str, value: object = None, expected: str | None = None
    ) -> Problem: ...

    def whole(self, message: str) -> Problem: ...


def column_letter(index: int) -> str:
    """Excel's column letters for a 0-based column index (0 → A, 26 → AA)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


@dataclass(frozen=True)
class SheetRow:
    """A row of a sheet: file, sheet, Excel row number and where each column is."""

    file: str
    sheet: str
    row: int
    columns: Mapping[str, int]  # column name → 0-based index

    @property
    def label(self) -> str:
        return f"sheet {self.sheet}, row {self.row}"

    def cell(self, column: str) -> str | None:
        index = self.columns.get(column)
        return None if index is None else f"{column_letter(index)}{self.row}"

    def at(
        self, column: str, message: str, value: object = None, expected: str | None = None
    ) -> Problem:
        return Problem(
            file=self.file,
            message=message,
            sheet=self.sheet,
            row=self.row,
            column=column,
            cell=self.cell(column),
            value=value,
            expected=expected,
            about=column,
        )

    def whole(self, message: str) -> Problem:
        return Problem(file=self.file, message=message, sheet=self.sheet, row=self.row)


def coerce_fields(
    specs: Mapping[str, FieldSpec], raw: Mapping[str, object], where: Where
) -> tuple[dict[str, Any], list[Problem]]:
    """Every given field coerced (blanks left out), and a Problem per bad or missing one."""
    values: dict[str, Any] = {}
    problems: list[Problem] = []
    for name, spec in specs.items():
        cell = raw.get(name)
        try:
            value = coerce(spec, cell)
        except BadValue as bad:
            problems.append(where.at(name, bad.message, shown(cell), bad.expected or spec.expected))
            continue
        if value is None:
            if spec.required:
                problems.append(where.at(name, "is blank", None, spec.expected))
        else:
            values[name] = value
    return values, problems


def beyond(found: Sequence[Problem], more: Sequence[Problem]) -> list[Problem]:
    """``more``'s problems on columns ``found`` has not already reported.

    A record builder sees a bad cell as missing (``tokens`` of -1 is left out
    of the typed values), so without this the cell would be reported twice:
    once as bad, once as blank.
    """
    reported = {p.about for p in found}
    return [p for p in more if p.about is None or p.about not in reported]
