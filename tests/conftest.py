"""Fixtures for the input tests: small valid workbooks written in tmp_path.

``valid_sheets()`` is a complete, valid input (every sheet, headers with
units in parentheses as the template writes them); tests change one cell
with ``set_cell`` and write it with ``write_workbook``.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from optimizer.inputs.cells import normalize_header
from tests.written_workbooks import record_writers

# Before any test module imports a writer: remember every workbook the suite writes.
record_writers()

Sheets = dict[str, list[list[Any]]]

_VALID: Sheets = {
    "GPUs": [
        [
            "gpu",
            "vram_gb (GB)",
            "fp16_tflops (TFLOPS)",
            "memory_bandwidth_gbs (GB/s)",
            "tdp_w (W)",
            "nvlink",
            "max_per_node (GPUs)",
            "mfu_training (fraction)",
        ],
        ["H100", 80, 989, 3350, 700, True, 8, None],
        ["L40S", 48, 362, 864, 350, False, 8, 0.35],
    ],
    "Prices": [
        [
            "gpu",
            "option",
            "Price (USD per GPU-hour)",
            "term_months (months)",
            "max_units (GPUs)",
            "available_from (month)",
            "provider",
            "source",
        ],
        ["H100", "buy", 25000, None, None, None, "Vendor", "guide 2026"],
        ["H100", "on_demand", 3.15, None, None, None, "Cloud A", "guide 2026"],
        ["H100", "on_demand", 2.99, None, 16, 2, "Cloud B", "quote"],
        ["H100", "reserved", 2.2, 12, None, None, "Cloud A", "quote"],
        ["L40S", "spot", 0.6, None, None, None, "Cloud C", None],
    ],
    "Workloads": [
        [
            "workload",
            "kind",
            "params_b (billion parameters)",
            "precision",
            "tokens",
            "tokens_per_second (tokens/s)",
            "latency_ms (ms)",
            "context_tokens",
            "start_month",
            "end_month",
            "interruptible",
            "vram_gb (GB)",
        ],
        ["lora-7b", "lora", 7, "bf16", 1e9, None, None, None, 1, 3, False, None],
        ["chat-8b", "realtime_inference", 8, None, None, 500, 50, 8192, None, None, None, None],
        ["batch-8b", "batch_inference", 8, "fp8", 2e10, None, None, None, 2, None, True, None],
    ],
    "Throughput": [
        ["workload", "gpu", "gpus_per_replica", "gpu_hours", "tokens_per_second_per_replica"],
        ["lora-7b", "H100", 1, 40, None],
        ["chat-8b", "L40S", 1, None, 900],
    ],
    "Scenarios": [
        [
            "scenario",
            "horizon_months (months)",
            "budget_total (USD)",
            "allow_buy",
            "workloads",
            "exclude_gpus",
            "electricity_per_kwh",
        ],
        ["us", 24, None, None, None, None, None],
        ["eu", 12, 500000, False, "lora-7b, chat-8b", "L40S", 0.25],
    ],
    "Assumptions": [
        ["key", "value", "source"],
        ["electricity_per_kwh", 0.08, "EIA industrial 2024"],
        ["pue", 1.2, None],
    ],
}


def valid_sheets() -> Sheets:
    """A fresh copy of the valid input, safe to change."""
    return copy.deepcopy(_VALID)


def write_sheets(path: Path, sheets: Sheets) -> Path:
    """Write ``sheets`` (name → rows, header first) as a workbook at ``path``."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        ws = book.create_sheet(name)
        for row in rows:
            ws.append(row)
    book.save(path)
    return path


def set_cell(sheets: Sheets, sheet: str, row: int, column: str, value: object) -> Sheets:
    """Set the cell of Excel row ``row`` under the header named ``column`` (adding the column if absent)."""
    rows = sheets[sheet]
    names = [normalize_header(h) for h in rows[0]]
    if column in names:
        index = names.index(column)
    else:
        rows[0].append(column)
        index = len(rows[0]) - 1
    while len(rows) < row:
        rows.append([])
    target = rows[row - 1]
    target.extend([None] * (index + 1 - len(target)))
    target[index] = value
    return sheets


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def write_workbook(tmp_path: Path) -> Callable[..., Path]:
    """``write_workbook(sheets, name="input.xlsx")`` → the path of a workbook in tmp_path."""

    def write(sheets: Sheets | None = None, name: str = "input.xlsx") -> Path:
        return write_sheets(tmp_path / name, valid_sheets() if sheets is None else sheets)

    return write


@pytest.fixture
def alternative_solves(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The problems the alternatives' solves hand to ``run_solver``, in order (counted)."""
    import optimizer.solve.alternative as alternative

    solves: list[object] = []
    real = alternative.run_solver

    def counted(*args: Any, **kwargs: Any) -> Any:
        solves.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(alternative, "run_solver", counted)
    return solves
