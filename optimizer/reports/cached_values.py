"""Put back the cached results of formulas that openpyxl dropped on save.

openpyxl writes every formula cell as ``<c r="C4"><f>SUM(C2:C3)</f><v /></c>``:
the formula survives, its last computed value does not. A reader that does
not recalculate (pandas, gpumix's own reader with ``data_only``) then sees an
empty cell. After ``--in-place`` has saved, this copies each formula's cached
value (and its type: number, text, TRUE/FALSE, error) from the original file
into the saved one, sheet by sheet, matched by sheet name and cell address and
only where the formula text is unchanged. A cell it cannot match keeps what
openpyxl wrote (Excel recalculates it on opening, as openpyxl asks it to).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from xml.sax.saxutils import escape

from defusedxml import ElementTree

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PACKAGE_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
# A formula cell as openpyxl writes it, with an empty value.
_EMPTY_FORMULA_CELL = re.compile(
    r'<c r="(?P<ref>[A-Z]+[0-9]+)"(?P<attrs>[^>]*)>'
    r"(?P<formula><f(?:\s[^>]*)?>(?P<text>.*?)</f>)<v\s*/></c>",
    re.DOTALL,
)

Cached = tuple[str | None, str, str | None]  # (type attribute, value, formula; None: shared)


def _sheet_parts(archive: zipfile.ZipFile) -> dict[str, str]:
    """Sheet name -> worksheet part path, from workbook.xml and its relationships."""
    workbook = ElementTree.fromstring(archive.read("xl/workbook.xml"))
    rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    targets = {r.get("Id"): r.get("Target", "") for r in rels.iter(_PACKAGE_REL + "Relationship")}
    parts = {}
    for sheet in workbook.iter(_MAIN + "sheet"):
        target = targets.get(sheet.get(_REL + "id"), "")
        path = target.lstrip("/") if target.startswith("/") else str(PurePosixPath("xl") / target)
        parts[sheet.get("name", "")] = path
    return parts


def _cached_values(xml: bytes) -> dict[str, Cached]:
    values: dict[str, Cached] = {}
    for cell in ElementTree.fromstring(xml).iter(_MAIN + "c"):
        formula, value = cell.find(_MAIN + "f"), cell.find(_MAIN + "v")
        if formula is None or value is None or value.text is None:
            continue
        # A shared formula's dependents hold no text; openpyxl writes each one out in full.
        text = None if formula.get("t") == "shared" and not formula.text else formula.text or ""
        values[cell.get("r", "")] = (cell.get("t"), value.text, text)
    return values


def _restore(xml: str, cached: dict[str, Cached]) -> str:
    def put_back(match: re.Match[str]) -> str:
        found = cached.get(match["ref"])
        attrs = match["attrs"]
        if found is None or " t=" in attrs:
            return match[0]
        kind, value, formula = found
        # Only the same formula gets the old result back.
        if formula is not None and match["text"] not in (escape(formula), formula):
            return match[0]
        typed = f' t="{kind}"' if kind in ("str", "b", "e") else ""
        return f'<c r="{match["ref"]}"{attrs}{typed}>{match["formula"]}<v>{escape(value)}</v></c>'

    return _EMPTY_FORMULA_CELL.sub(put_back, xml)


def restore_cached_values(original: Path, saved: Path, sheets: Iterable[str]) -> None:
    """Rewrite ``saved`` so the named sheets' formulas carry ``original``'s cached values."""
    with zipfile.ZipFile(original) as before:
        old_parts = _sheet_parts(before)
        cached = {
            name: _cached_values(before.read(old_parts[name]))
            for name in sheets
            if name in old_parts and old_parts[name] in before.namelist()
        }
    if not any(cached.values()):
        return
    with zipfile.ZipFile(saved) as after:
        new_parts = _sheet_parts(after)
        members = [(info, after.read(info.filename)) for info in after.infolist()]
    changed = {
        new_parts[name]: values for name, values in cached.items() if values and name in new_parts
    }
    rewritten = saved.with_name(saved.name + ".restoring")
    with zipfile.ZipFile(rewritten, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in members:
            if info.filename in changed:
                data = _restore(data.decode("utf-8"), changed[info.filename]).encode("utf-8")
            out.writestr(info, data)
    rewritten.replace(saved)
