"""Checks a workbook file is a sane xlsx archive before any parser touches it.

openpyxl parses XML through defusedxml, but python-calamine has its own
parser, so the archive is checked here once for both: it must be a zip with
the xlsx members, not decompress to more than ``MAX_TOTAL_BYTES``, hold no
member with an absurd compression ratio (a zip bomb), and contain no XML that
declares a DOCTYPE or ENTITY (an entity bomb; Excel never writes one).

Every member is decompressed in chunks (never whole in memory) with Python's
zipfile, which stops at the declared size and checks the CRC, so a member
whose header lies about its size is caught too. The same pass notes whether
any worksheet holds formulas or error cells, so the reader only pays for the
slower openpyxl pass when the file needs it.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from optimizer.errors import InputError, Problem
from optimizer.inputs.files import unreadable_reason

MAX_TOTAL_BYTES = 500 * 1024 * 1024
MAX_RATIO = 200
RATIO_CHECKED_FROM_BYTES = 10 * 1024 * 1024
REQUIRED_MEMBERS = ("[Content_Types].xml", "xl/workbook.xml")

_CHUNK = 1 << 20
_OVERLAP = 64  # bytes kept from the previous chunk so a marker split across chunks is seen
_DTD = re.compile(rb"<!\s*(?:DOCTYPE|ENTITY)", re.IGNORECASE)
# Plain substring searches (fast) for the tags; the regexes only confirm a hit.
_FORMULA_TAGS = (b"<f>", b"<f ", b"<f/", b":f>", b":f ")
_ERROR_TAGS = (b't="e"', b"t='e'")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# Encrypted .xlsx files and old .xls files are OLE compound documents, not zips.
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


@dataclass(frozen=True)
class ArchiveFacts:
    """What the safety scan learnt about a workbook that the reader can use."""

    has_formulas: bool  # some worksheet holds a formula (<f> element)
    has_error_cells: bool  # some worksheet holds an Excel error value (t="e")


def _fail(path: Path, message: str, expected: str | None = None) -> InputError:
    return InputError(Problem(file=str(path), message=message, expected=expected))


def check_xlsx_file(path: Path) -> ArchiveFacts:
    """Raise InputError unless ``path`` is a readable, sane xlsx archive."""
    if (why := unreadable_reason(path)) is not None:
        raise _fail(path, why)
    if path.stat().st_size == 0:
        raise _fail(path, "the file is empty", "an Excel workbook (.xlsx)")
    with path.open("rb") as stream:
        magic = stream.read(len(_OLE_MAGIC))
    if magic == _OLE_MAGIC:
        raise _fail(
            path,
            "is a password-protected workbook or an old-style .xls file",
            "an .xlsx file without a password (File > Save As > Excel Workbook)",
        )
    if not zipfile.is_zipfile(path):
        raise _fail(
            path,
            "is not an Excel workbook (not a zip archive)",
            "an .xlsx file saved by Excel or LibreOffice",
        )
    try:
        with zipfile.ZipFile(path) as archive:
            return _check_archive(path, archive)
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        OSError,
        EOFError,
        NotImplementedError,  # a compression method zipfile does not know
        RuntimeError,  # an encrypted member
        zlib.error,  # corrupt deflate data
    ) as exc:
        raise _fail(
            path,
            f"the workbook archive is damaged ({exc})",
            "an .xlsx file saved by Excel or LibreOffice",
        ) from exc


def _check_archive(path: Path, archive: zipfile.ZipFile) -> ArchiveFacts:
    members = archive.infolist()
    names = {m.filename for m in members}
    missing = [name for name in REQUIRED_MEMBERS if name not in names]
    if missing:
        raise _fail(
            path,
            f"is a zip archive but not an Excel workbook (no {', '.join(missing)})",
            "an .xlsx file saved by Excel or LibreOffice",
        )
    total = sum(m.file_size for m in members)
    if total > MAX_TOTAL_BYTES:
        raise _fail(
            path,
            f"the workbook would unpack to {total / 2**20:,.0f} MB",
            f"at most {MAX_TOTAL_BYTES // 2**20} MB",
        )
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > RATIO_CHECKED_FROM_BYTES and ratio > MAX_RATIO:
            raise _fail(
                path,
                f"member {member.filename} is compressed {ratio:,.0f}:1 (a zip bomb?)",
                f"at most {MAX_RATIO}:1",
            )
    has_formulas = has_errors = False
    for member in members:
        if member.is_dir() or not member.filename.endswith((".xml", ".rels", ".vml")):
            continue
        is_sheet = member.filename.startswith("xl/worksheets/")
        found = _scan_member(path, archive, member, is_sheet)
        has_formulas = has_formulas or found.has_formulas
        has_errors = has_errors or found.has_error_cells
    return ArchiveFacts(has_formulas=has_formulas, has_error_cells=has_errors)


def _scan_member(
    path: Path, archive: zipfile.ZipFile, member: zipfile.ZipInfo, is_sheet: bool
) -> ArchiveFacts:
    has_formulas = has_errors = False
    tail = b""
    with archive.open(member) as stream:
        first = True
        while chunk := stream.read(_CHUNK):
            if first and chunk.startswith(_UTF16_BOMS):
                # The DOCTYPE scan reads bytes as ASCII-compatible; Excel writes UTF-8.
                raise _fail(
                    path,
                    f"member {member.filename} is not UTF-8 XML",
                    "a workbook saved by Excel or LibreOffice",
                )
            first = False
            window = tail + chunk
            if b"<!" in window and _DTD.search(window):
                raise _fail(
                    path,
                    f"member {member.filename} declares a DOCTYPE or ENTITY (an XML entity bomb?)",
                    "a workbook saved by Excel or LibreOffice",
                )
            if is_sheet:
                has_formulas = has_formulas or any(tag in window for tag in _FORMULA_TAGS)
                has_errors = has_errors or any(tag in window for tag in _ERROR_TAGS)
            tail = window[-_OVERLAP:]
    return ArchiveFacts(has_formulas=has_formulas, has_error_cells=has_errors)
