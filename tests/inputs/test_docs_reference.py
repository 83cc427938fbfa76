"""docs/workbook.md is generated from schema.py and must say what the schema says."""

from __future__ import annotations

from pathlib import Path

import pytest

from optimizer.inputs import docs_reference, schema
from optimizer.inputs.docs_reference import (
    SCENARIO_FILE_KEYS,
    allowed_text,
    default_text,
    render_workbook_reference,
    type_text,
)
from optimizer.inputs.rows import SPECS
from optimizer.inputs.schema import bound_text
from tests.paths import ROOT

DOCS = ROOT / "docs" / "workbook.md"


def test_docs_workbook_md_is_up_to_date() -> None:
    assert DOCS.read_text(encoding="utf-8") == render_workbook_reference(), (
        "docs/workbook.md is stale: regenerate it with `.venv/bin/python -m optimizer.inputs.docs_reference`"
    )


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start:] if end == -1 else text[start:end]


@pytest.mark.parametrize("sheet", schema.INPUT_SHEETS, ids=lambda s: s.name)
def test_every_column_has_a_row_with_its_facts(sheet: schema.Sheet) -> None:
    section = _section(render_workbook_reference(), f"Sheet `{sheet.name}`")
    rows = {line.split(" | ")[0].removeprefix("| "): line for line in section.splitlines()}
    for column in sheet.columns:
        line = rows[f"`{column.name}`"]
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        assert cells == [
            f"`{column.name}`",
            column.unit or "",
            type_text(column),
            "yes" if column.required else "no",
            default_text(column),
            allowed_text(column),
            column.description,
        ]


def test_every_assumption_key_has_default_unit_and_source() -> None:
    section = _section(render_workbook_reference(), "Sheet `Assumptions`")
    for key in schema.ASSUMPTIONS:
        assert f"| `{key.key}` | " in section
        line = next(x for x in section.splitlines() if x.startswith(f"| `{key.key}` |"))
        assert key.unit in line and key.source in line
    assert "| `maintenance_per_year` | 0.05 (5 %) |" in section
    assert "| `credit_residual_value` | blank |" in section
    assert "| `residual_value` | market |" in section


def test_scenario_file_keys_are_the_contracts() -> None:
    section = _section(render_workbook_reference(), "Scenario files")
    keys = [k for k, _, _ in SCENARIO_FILE_KEYS]
    assert keys == [
        "workbook",
        "scenarios",
        "name",
        "base",
        "horizon_months",
        "budget",
        "power_cap_kw",
        "allow_buy",
        "allow_rent",
        "assumptions",
        "prices",
        "exclude_gpus",
        "workloads",
        "add_workloads",
        "demand",
        "fleet",
        "futures",
        "decide_by_month",
        "max_regret",
        "max_regret_share",
    ]
    for key in keys:
        assert f"| `{key}` |" in section


@pytest.mark.parametrize(
    ("sheet", "column", "default"),
    [
        (schema.GPUS, "nvlink", "FALSE"),
        (schema.GPUS, "max_per_node", "8"),
        (schema.GPUS, "gpu", "—"),
        (schema.GPUS, "tdp_w", "blank = not given"),
        (schema.SCENARIOS, "allow_buy", "TRUE"),
        (schema.SCENARIOS, "budget_total", "no limit"),
        (schema.WORKLOADS, "precision", "bf16"),
    ],
)
def test_defaults_are_stated_as_users_read_them(
    sheet: schema.Sheet, column: str, default: str
) -> None:
    assert default_text(sheet.column(column)) == default


def test_types_state_their_bounds() -> None:
    assert type_text(schema.GPUS.column("vram_gb")) == "number > 0, at most 100,000"
    assert type_text(schema.GPUS.column("max_per_node")) == "whole number ≥ 1, at most 1,024"
    assert type_text(schema.PRICES.column("price")) == "number ≥ 0, at most 1,000,000,000"
    assert type_text(schema.WORKLOADS.column("tokens")) == "number > 0, at most 1e+18"
    assert allowed_text(schema.PRICES.column("gpu")) == "a name from sheet GPUs"


def test_table_cells_cannot_break_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    odd = schema.Column("odd", schema.ColumnType.TEXT, "a | b\nc")
    sheet = schema.Sheet("GPUs", "x", (odd,))
    monkeypatch.setattr(schema, "INPUT_SHEETS", (sheet,))
    line = next(x for x in render_workbook_reference().splitlines() if x.startswith("| `odd`"))
    assert line.endswith("| a \\| b c |")


def test_main_writes_the_page(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "workbook.md"
    assert docs_reference.main([str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render_workbook_reference()


def test_scenario_file_keys_match_what_the_scenario_file_reader_accepts() -> None:
    from optimizer.inputs.scenario_file.models import FileModel, ScenarioModel

    documented = [k for k, _, _ in SCENARIO_FILE_KEYS]
    assert documented == [*FileModel.model_fields, *ScenarioModel.model_fields]


def test_every_column_states_the_upper_bound_the_reader_enforces() -> None:
    for sheet in schema.INPUT_SHEETS:
        for column in sheet.columns:
            upper = SPECS[sheet.name][column.name].upper
            assert (upper is not None) == ("at most" in type_text(column)), column.name
            if upper is not None:
                assert f"at most {bound_text(upper)}" in type_text(column)
    text = DOCS.read_text(encoding="utf-8")
    # The reader refuses max_regret_share 1.5 ("must be at most 1"), in a sheet and a file.
    assert "| `max_regret_share` | fraction | fraction ≥ 0, at most 1 |" in text
    assert "| `max_regret_share` | fraction ≥ 0, at most 1 |" in text
