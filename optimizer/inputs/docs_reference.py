"""The reference text of every sheet, column and assumption, made from ``schema.py``.

``docs/workbook.md`` and the template's README sheet both use these phrases,
so the page users read, the workbook they fill in and the reader's checks all
say the same thing. ``python -m optimizer.inputs.docs_reference`` rewrites
``docs/workbook.md``; a test fails when the file is stale.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from optimizer.inputs import schema
from optimizer.inputs.schema import AssumptionKey, Column, ColumnType, Sheet, bound_text

DOCS_PATH = Path(__file__).resolve().parents[2] / "docs" / "workbook.md"
REGENERATE = "python -m optimizer.inputs.docs_reference"


def type_text(column: Column) -> str:
    """The column's type with its bounds, without the unit (docs list the unit apart)."""
    if column.type is ColumnType.INTEGER:
        text = "whole number"
    elif column.type is ColumnType.NUMBER:
        text = "fraction" if column.fraction else "number"
    else:
        return column.type.value
    text += column.lower_text
    # The same upper bound the reader enforces (cells.FieldSpec.of_column).
    if column.maximum is not None:
        text += f", at most {bound_text(column.maximum)}"
    elif column.at_most_one:
        text += ", at most 1"
    return text


# The keys of a scenario file (workbook.md, "Scenario files"), in the
# contract's order: key, what it holds, meaning.
SCENARIO_FILE_KEYS: tuple[tuple[str, str, str], ...] = (
    ("workbook", "path", "The input workbook, relative to the scenario file. Top level, once."),
    (
        "scenarios",
        "list",
        "The scenarios of this file, each a mapping with the keys below. Top level.",
    ),
    ("name", "text", "The scenario's name; unique."),
    (
        "base",
        "text",
        "A scenario of the workbook to start from; default: its first, or the defaults.",
    ),
    ("horizon_months", type_text(schema.SCENARIOS.column("horizon_months")), "Planning horizon."),
    (
        "budget",
        "mapping",
        "Any of `total`, `capex`, `monthly` (USD), as the Scenarios sheet's budget columns.",
    ),
    (
        "power_cap_kw",
        type_text(schema.SCENARIOS.column("power_cap_kw")) + " (kW)",
        "Owned GPUs' draw including PUE.",
    ),
    ("allow_buy", "true/false", "Buying is allowed."),
    ("allow_rent", "true/false", "On-demand, spot and reserved are allowed."),
    ("assumptions", "mapping", "Assumptions keys and values; override the base's values."),
    (
        "prices",
        "list",
        "Each `{gpu, option, multiply}` or `{gpu, option, price}`: changes every offer of that GPU type and option.",
    ),
    ("exclude_gpus", "list of names", "GPU types left out (their rows of sheet Fleet stay)."),
    (
        "workloads",
        "list of names",
        "Workloads of the workbook this scenario plans; omit for the base's set.",
    ),
    ("add_workloads", "list", "Extra workloads, each with the Workloads sheet's columns as keys."),
    (
        "demand",
        "list",
        "Each `{workload, month, value}` as a row of sheet Demand; replaces the sheet's row for that workload and month.",
    ),
    (
        "fleet",
        "list",
        "Each `{gpu, count, kind, price, months_left, age_months}` as a row of sheet Fleet; replaces every sheet row of the same gpu and kind (count 0 removes them) and adds the others.",
    ),
    (
        "futures",
        "list",
        "Each `{name, probability, demand_factor, growth_per_month, demand_factors, growth, prices}`: a future, as the rows of sheet Futures (`demand_factors` and `growth` map a workload to its factor or growth; `prices` entries are `{gpu, option, multiply}`, gpu and option optional). Replaces the base's futures with their decide_by_month and regret bounds; `[]` removes them; omit to keep the base's.",
    ),
    (
        "decide_by_month",
        type_text(schema.FUTURES.column("decide_by_month")),
        "As sheet Futures' column; with the base's futures, replaces theirs. An error without any futures.",
    ),
    (
        "max_regret",
        type_text(schema.FUTURES.column("max_regret")) + " (USD)",
        "As sheet Futures' column; null removes the base's bound. An error without any futures.",
    ),
    (
        "max_regret_share",
        type_text(schema.FUTURES.column("max_regret_share")),
        "As sheet Futures' column; null removes the base's bound. An error without any futures.",
    ),
)


def default_text(column: Column) -> str:
    """What a blank cell in this column means, as the docs state it."""
    if column.default_text is not None:
        return column.default_text
    if column.default is None:
        return "—" if column.required else "blank = not given"
    if isinstance(column.default, bool):
        return "TRUE" if column.default else "FALSE"
    return f"{column.default:g}" if isinstance(column.default, float) else str(column.default)


def allowed_text(column: Column) -> str:
    """The values a cell may hold, when the column limits them to a list."""
    if column.allowed:
        return ", ".join(column.allowed)
    if column.type is ColumnType.BOOL:
        return "TRUE, FALSE"
    if column.type is ColumnType.NAME_LIST and column.references:
        return f"names from sheet {column.references}, separated by commas"
    if column.references:
        return f"a name from sheet {column.references}"
    return ""


def assumption_default_text(key: AssumptionKey) -> str:
    if key.default is None:
        return "blank"
    if isinstance(key.default, bool):
        return "TRUE" if key.default else "FALSE"
    if isinstance(key.default, str):
        return key.default
    if key.fraction:
        return f"{key.default:g} ({key.default * 100:g} %)"
    return f"{key.default:g}"


def column_note(column: Column) -> str:
    """The header's cell comment: everything a user needs to fill in the column."""
    lines = [column.description]
    if column.unit:
        lines.append(f"Unit: {column.unit}" + (" (0.05 is 5 %)" if column.fraction else ""))
    lines.append("Required" if column.required else f"Optional; default: {default_text(column)}")
    lines.append(f"Type: {type_text(column)}")
    allowed = allowed_text(column)
    if allowed:
        lines.append(f"Allowed: {allowed}")
    return "\n".join(lines)


def _cell(text: str) -> str:
    # A pipe would end the table cell; a newline would end the row.
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _sheet_section(sheet: Sheet) -> list[str]:
    presence = "Optional sheet." if sheet.optional_sheet else "Required sheet."
    lines = [f"## Sheet `{sheet.name}`", "", f"{sheet.description} {presence}"]
    if sheet.closed:
        lines.append("A column that is neither listed here nor an `Assumptions` key is an error.")
    else:
        lines.append("Other columns are ignored.")
    lines.append("")
    lines += _table(
        ("column", "unit", "type", "required", "default", "allowed values", "meaning"),
        (
            (
                f"`{c.name}`",
                c.unit or "",
                type_text(c),
                "yes" if c.required else "no",
                default_text(c),
                allowed_text(c),
                c.description,
            )
            for c in sheet.columns
        ),
    )
    return [*lines, ""]


def _assumption_bound(key: AssumptionKey) -> str:
    """The largest value the reader accepts for ``key`` (cells.FieldSpec.of_assumption)."""
    if key.maximum is not None:
        return bound_text(key.maximum)
    if key.below_one:
        return "less than 1"
    return "1" if key.at_most_one else ""


def _assumptions_section() -> list[str]:
    lines = [
        f"## Sheet `{schema.ASSUMPTIONS_SHEET_NAME}`",
        "",
        "Columns `key` and `value` (required), `source` (optional). Optional sheet: a key "
        "not given keeps its default. A key not listed here is an error. Fractions are "
        "stored as Excel stores a percent cell: 0.05 is 5 %. Shares ("
        + ", ".join(f"`{a.key}`" for a in schema.ASSUMPTIONS if a.at_most_one)
        + ") are at most 1; "
        + ", ".join(f"`{a.key}`" for a in schema.ASSUMPTIONS if a.below_one)
        + " is less than 1 (in [0, 1)).",
        "",
    ]
    lines += _table(
        ("key", "default", "unit", "at most", "source"),
        (
            (f"`{a.key}`", assumption_default_text(a), a.unit, _assumption_bound(a), a.source)
            for a in schema.ASSUMPTIONS
        ),
    )
    lines += [
        "",
        "**Currency.** `currency` is the label every money figure carries; every price, "
        "budget and money assumption of the workbook is read in it, and nothing is "
        "converted. Units written `USD` above (and in headers such as `price (USD)`) mean "
        "the workbook's currency. Results show USD as before (`$1,234.50`, Excel format "
        "`$#,##0.00`); any other currency is its label, a space, then the number with comma "
        "thousands and a point for decimals (`EUR 1,234.50`, `€ 1,234.50`), in Excel a "
        'number format with the label quoted (`"EUR "#,##0.00;"EUR "-#,##0.00`), so cells '
        "stay numbers. "
        "Headers name the label: `Total cost (EUR)`. It is set in this sheet only (a "
        "Scenarios column or a scenario file key is an error), and `gpumix compare` refuses "
        "inputs in different currencies. A label that starts with `=`, `+`, `-` or `@` is "
        "refused (a chart title would read it as a formula). Where the currency is not USD "
        "and a money key with a USD default (`electricity_per_kwh`) is left blank, each "
        "plan's diagnostics name the key and the default used.",
    ]
    return [*lines, ""]


def _scenario_file_section() -> list[str]:
    lines = [
        "## Scenario files (`scenarios/*.yaml`)",
        "",
        "Unknown keys are errors naming the key, the file and the line. Precedence, lowest "
        "first: built-in defaults, the `Assumptions` sheet, the scenario's row in `Scenarios` "
        "(non-blank cells only), a scenario file.",
        "",
    ]
    lines += _table(
        ("key", "type", "meaning"), ((f"`{k}`", t, m) for k, t, m in SCENARIO_FILE_KEYS)
    )
    return [*lines, ""]


def render_workbook_reference() -> str:
    """The whole of ``docs/workbook.md``."""
    lines = [
        "# Workbook reference",
        "",
        f"<!-- Generated from optimizer/inputs/schema.py by `{REGENERATE}`; do not edit by hand. -->",
        "",
        "The input workbook has one sheet per table below. The header is the first row; a "
        "header matches a column when, ignoring case, surrounding spaces and any text in "
        "parentheses, it equals the column's name (`price (USD)` is `price`). Columns may "
        "come in any order; a blank cell means its default, or no limit. An extra column is "
        "ignored, but a header close to a column the sheet lacks (`min replicas`, "
        "`max unit (GPUs)`) is a warning naming its cell, since its values would be "
        "silently left out. `gpumix template "
        "OUT.xlsx` writes an empty workbook with these headers and drop-down lists.",
        "",
        "**Where a GPUs cell's value comes from**, first that applies: the value typed; "
        "else, when the row's `gpu` is a name of the GPU catalogue "
        "(`optimizer/inputs/gpu_catalogue.yaml`; `gpumix gpus` lists it, `gpumix gpus NAME` "
        "shows an entry's sources), the catalogue's figure: a vendor datasheet, a cloud "
        "instance page or, for `mfu_training`, a published whole-job figure or the "
        "generation's, each with its document and date; else the column's default below "
        "(`mfu_training`: the Assumptions value). Names match after ignoring case, spaces, "
        "dashes and a leading NVIDIA or AMD (`nvidia a100-sxm4-80gb` is `A100 SXM 80GB`), "
        "never by guessing; the catalogue holds no prices and no figure without a public "
        "source. A typed value more than twice or less than half the catalogue's is used but "
        "warned about, naming both. The result's Audit (table GPU figures from the catalogue), "
        "its Options notes and the JSON's `catalogue_figures` say which figures came from it.",
        "",
    ]
    for sheet in schema.INPUT_SHEETS:
        lines += _sheet_section(sheet)
    lines += _assumptions_section()
    lines += _scenario_file_section()
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite ``docs/workbook.md`` (or the path given) from the schema."""
    args = sys.argv[1:] if argv is None else list(argv)
    path = Path(args[0]) if args else DOCS_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_workbook_reference(), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
