"""docs/methodology.md stays in step with the code it explains."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from optimizer.domain import Gpu, Kind, Workload
from optimizer.estimate import architecture, memory, training
from optimizer.estimate import pairs as estimate
from optimizer.inputs import schema
from optimizer.inputs.docs_reference import assumption_default_text
from optimizer.inputs.example_data import GPUS as EXAMPLE_GPUS
from optimizer.results import PairEstimate

DOC = (Path(__file__).parent.parent / "docs" / "methodology.md").read_text(encoding="utf-8")


def _assumption_rows() -> list[str]:
    section = DOC.split("## 4. Every assumption", 1)[1]
    return [line for line in section.splitlines() if line.startswith("| `")]


def test_assumption_table_lists_every_key_with_its_default_unit_and_source() -> None:
    expected = [
        f"| `{a.key}` | {assumption_default_text(a)} | {a.unit} | {a.source} |"
        for a in schema.ASSUMPTIONS
    ]
    assert _assumption_rows() == expected


@pytest.mark.parametrize(
    "stated",
    [
        f"(params_b / 8) ^ {architecture.KV_SIZE_EXPONENT:g}",
        f"adapters    = {memory.LORA_TRAINABLE_SHARE:g} × N",
        f"activations = max({memory.TRAINING_FLOOR_GB:g} GB, {memory.ACTIVATION_BYTES_PER_PARAM:g}"
        " bytes × N)",
        f"(NF4, {memory.NF4_BYTES_PER_PARAM:g} bytes × N, for QLoRA)",
        f"`{training.ATTENTION_FLOPS_FACTOR:g} × layers × hidden_size × seq_len`",
        f"`prompt_tokens` ({architecture.DEFAULT_PROMPT_TOKENS:,} by default) plus\n"
        f"`output_tokens` ({architecture.DEFAULT_OUTPUT_TOKENS:,})",
        f"`hidden ≈ {architecture.HIDDEN_PER_LAYER:g} × layers`",
        f"`c` = {training.TRAINING_FLOPS_PER_PARAM_TOKEN[Kind.PRETRAINING]:g}",
        f"and {training.TRAINING_FLOPS_PER_PARAM_TOKEN[Kind.LORA]:g} for\nLoRA and QLoRA",
    ],
)
def test_fixed_engineering_figures_match_the_estimator(stated: str) -> None:
    assert stated in DOC


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_worked_examples_match_the_estimator() -> None:
    from tests.builders import gpu, scenario, workload

    h100 = gpu("H100")
    rtx = gpu(
        "RTX 4090", vram_gb=24.0, fp16_tflops=330.0, memory_bandwidth_gbs=1008.0, nvlink=False
    )
    # The example's RTX 4090, as §1.3 says: MFU 0.35 for training (PCIe cards).
    (rtx_example,) = (g for g in EXAMPLE_GPUS if g["gpu"] == "RTX 4090")
    rtx_training = replace(rtx, mfu_training=float(rtx_example["mfu_training"]))
    l4 = gpu("L4", vram_gb=24.0, fp16_tflops=121.0, memory_bandwidth_gbs=300.0, nvlink=False)

    def one(w: Workload, g: Gpu) -> PairEstimate:
        return estimate.estimate_pair(scenario([g], [], [w]), w, g)

    llama3_8b = dict(params_b=8, layers=32, hidden_size=4096, heads=32, kv_heads=8)
    lora = workload("lora", "lora", params_b=7, tokens=1e9)
    qlora = workload("qlora", "qlora", params_b=7, tokens=1e9)
    qlora65 = workload("qlora", "qlora", params_b=65, tokens=1e9)
    chat = workload("chat", "realtime_inference", tokens_per_second=1, latency_ms=50, **llama3_8b)
    fast = workload("chat", "realtime_inference", tokens_per_second=1, latency_ms=20, **llama3_8b)
    tight = workload("chat", "realtime_inference", tokens_per_second=1, latency_ms=10, **llama3_8b)
    big = workload("big", "realtime_inference", params_b=405, tokens_per_second=1)
    doc = _flat(DOC)
    stated = [
        f"needs 14 + 0.34 + 4.5 = {one(lora, rtx).memory_gb:.2f} GB",
        f"QLoRA 3.64 + 0.34 + 4.5 = {one(qlora, rtx).memory_gb:.2f} GB",
        f"QLoRA 33.8 + 3.12 + 4.5 = {one(qlora65, rtx).memory_gb:.2f} GB",
        f"3,600) = {one(lora, h100).gpu_hours:.2f} GPU-hours; on one RTX 4090 (330 TFLOPS,"
        f" MFU {rtx_training.mfu_training:.2f} as the example sets for PCIe cards) the same"
        f" numerator over (330 × 10¹² × {rtx_training.mfu_training:.2f} × 0.90 × 3,600) gives"
        f" {one(lora, rtx_training).gpu_hours:.2f}.",
        f"= {one(chat, h100).latency_ms:.2f} ms (6.82 ms",
        f"33.1 / 128) ms = {one(chat, h100).tokens_per_second_per_replica:,.0f} tokens/s",
        f"216 sequences, {one(fast, h100).tokens_per_second_per_replica:,.0f} tokens/s",
        f'"{one(big, h100).reason}"',
        f'"{one(tight, l4).reason}"',
        f"a 50 ms target on {one(chat, l4).gpus_per_replica} × L4,"
        f" {one(chat, l4).latency_ms:.1f} ms",
    ]
    for text in stated:
        assert text in doc


def test_fidelity_ratios_are_those_of_the_printed_figures() -> None:
    # A reader checks 2.79 / 3.04 = 0.92 against the page, not against unrounded figures.
    section = DOC.split("### 1.7", 1)[1].split("\n### ", 1)[0]
    rows = [
        line.split(" | ")
        for line in section.splitlines()
        if line.startswith("| ") and " | http" in line
    ]
    assert len(rows) >= 30
    for cells in rows:
        published, estimated = (float(c.replace(",", "")) for c in cells[1:3])
        assert f"{estimated / published:.2f}" == cells[3], cells[0]
