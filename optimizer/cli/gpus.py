"""``gpumix gpus [NAME] [--json]``: the GPU catalogue, or one entry with its sources (issue 31).

Like ``sky show-gpus``: a table of every type the catalogue knows, or for one
name every figure with the document and date it comes from, and the columns
the catalogue leaves blank (a GPUs row must give those). An unknown name
exits 2 with the closest names.
"""

from __future__ import annotations

import argparse
import json

from optimizer.errors import Problem, UsageError, terminal_text
from optimizer.inputs.catalogue import FILLABLE, Catalogue, Entry, catalogue, did_you_mean
from optimizer.inputs.schema import GPUS

# The table's columns: the figure, its short header.
_TABLE = (
    ("vram_gb", "VRAM GB"),
    ("fp16_tflops", "FP16 TFLOPS"),
    ("memory_bandwidth_gbs", "GB/s"),
    ("tdp_w", "TDP W"),
    ("nvlink", "NVLink"),
    ("max_per_node", "Per server"),
    ("fp8", "FP8"),
    ("mfu_training", "Train MFU"),
)


def _shown(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _table(entries: tuple[Entry, ...]) -> str:
    head = ["GPU", *(h for _, h in _TABLE), "Also matches"]
    rows = [
        [
            e.name,
            *(_shown(f.value if (f := e.figures.get(c)) else None) for c, _ in _TABLE),
            ", ".join(e.aliases),
        ]
        for e in entries
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head) - 1)]
    lines = [
        "  ".join(
            [
                *(
                    cell.rjust(w) if i else cell.ljust(w)
                    for i, (cell, w) in enumerate(zip(r, widths, strict=False))
                ),
                r[-1],
            ]
        ).rstrip()
        for r in [head, *rows]
    ]
    return "\n".join(
        [
            *lines,
            "",
            "FP16 TFLOPS are dense (datasheets print twice as much with sparsity); '-': no public "
            "figure, the GPUs row gives it, else the column's default (docs/workbook.md). "
            "`gpumix gpus NAME` shows an entry's sources. "
            "A GPUs row naming a type (any name above, case, spaces and dashes aside) fills its "
            "blank cells from here; typed values win. No prices: they differ by provider and week.",
        ]
    )


def _entry_text(entry: Entry) -> str:
    lines = [entry.name]
    if entry.aliases:
        lines.append(f"  also matches: {', '.join(entry.aliases)}")
    for column in FILLABLE:
        unit = GPUS.column(column).unit
        figure = entry.figures.get(column)
        if figure is None:
            lines.append(f"  {column}: - (no public figure: the GPUs row gives it, or its default)")
            continue
        shown = _shown(figure.value) + (f" {unit}" if unit and unit != "fraction" else "")
        lines.append(f"  {column}: {shown}  [{figure.cited}]")
    lines.append("  node_price: - (never: prices differ by provider and week)")
    return "\n".join(lines)


def _entry_json(entry: Entry) -> dict[str, object]:
    return {
        "name": entry.name,
        "aliases": list(entry.aliases),
        "figures": {
            column: {"value": f.value, "source": f.source, "note": f.note}
            for column, f in entry.figures.items()
        },
    }


def _find(cat: Catalogue, name: str) -> Entry:
    entry = cat.find(name)
    if entry is not None:
        return entry
    close = cat.suggestions(name)
    hint = (
        did_you_mean(close)
        if close
        else f"; did you mean one of its {len(cat.entries)} types: "
        + ", ".join(e.name for e in cat.entries)
        + "?"
    )
    raise UsageError(
        "gpumix gpus", Problem(file="", message=f"{name!r} is not in the GPU catalogue{hint}")
    )


def run_gpus_command(args: argparse.Namespace) -> int:
    cat = catalogue()
    entries = (_find(cat, args.name),) if args.name is not None else cat.entries
    if args.json:
        print(json.dumps({"gpus": [_entry_json(e) for e in entries]}, indent=2, ensure_ascii=False))
    elif args.name is not None:
        print(terminal_text(_entry_text(entries[0])))
    else:
        print(terminal_text(_table(entries)))
    return 0
