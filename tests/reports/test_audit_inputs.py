"""The Audit's input tables show the model v2 §G inputs as the solver saw them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import openpyxl
from openpyxl.worksheet.worksheet import Worksheet

from optimizer.reports.result_workbook import write_result_workbook
from tests.fake_plans import fake_plan, fake_run


def _table(ws: Worksheet, name: str) -> list[dict[str, object]]:
    """The rows of one Excel table of the sheet, each keyed by its header."""
    rows = [[c.value for c in row] for row in ws[ws.tables[name].ref]]
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def test_the_audit_shows_fp8_architecture_and_request_shape(tmp_path: Path) -> None:
    plan = fake_plan()
    sc = plan.scenario
    gpus = tuple(replace(g, fp8=g.name == "H100") for g in sc.gpus)
    chat, lora = sc.workloads
    chat = replace(chat, layers=32, kv_heads=8, heads=32, prompt_tokens=2048, output_tokens=64)
    lora = replace(lora, seq_len=8192, active_params_b=3.5, training_state_bytes_per_param=8.0)
    plan = replace(plan, scenario=replace(sc, gpus=gpus, workloads=(chat, lora)))
    path = tmp_path / "results.xlsx"
    write_result_workbook(path, fake_run(plan))
    audit = openpyxl.load_workbook(path)["Audit"]

    fp8 = {r["GPU"]: r["FP8 (computes in FP8)"] for r in _table(audit, "Audit_gpus")}
    assert fp8 == {"H100": True, "L40S": False}
    rows = {r["Workload"]: r for r in _table(audit, "Audit_workloads")}
    c, t = rows["chat-8b"], rows["lora-7b"]
    assert (c["Layers (blank: estimated)"], c["KV heads (blank: estimated)"]) == (32, 8)
    assert c["Attention heads (blank: estimated)"] == 32
    assert c["Hidden size (blank: estimated)"] is None  # left blank: estimated
    assert c["Prompt tokens (realtime; blank: 1,024)"] == 2048
    assert c["Output tokens (realtime; blank: 128)"] == 64
    assert c["Training sequence (tokens; training kinds)"] is None  # not used in serving
    assert t["Training sequence (tokens; training kinds)"] == 8192
    assert t["Active parameters (billions; blank: all)"] == 3.5
    assert t["Training state (bytes per parameter; blank: Assumptions)"] == 8.0
    assert t["Prompt tokens (realtime; blank: 1,024)"] is None
