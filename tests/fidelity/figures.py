"""The fidelity table: published figures gpumix's estimates are checked against.

Each row is a figure someone published for a real model on a real GPU, with
the inputs a user would type for it and the source. These rows were used while
choosing the v2 estimator's defaults; ``held_out.py`` keeps the figures that
were not. ``docs/methodology.md`` §1.7 shows this table with each ratio.
"""

from __future__ import annotations

from typing import Any

from optimizer.domain import Gpu, Workload
from tests.builders import workload
from tests.fidelity.gpus import A100_40, A100_80, H100, H800
from tests.fidelity.published import Figure, Published

LLAMA_PAPER = "https://arxiv.org/abs/2302.13971 (LLaMA, Table 15: GPU-hours on A100-80GB)"
LLAMA2_CARD = (
    "https://github.com/meta-llama/llama/blob/main/MODEL_CARD.md (Time (GPU hours) on A100-80GB;"
    " the same figures as arXiv 2307.09288, Table 2)"
)
LLAMA3_CARD = (
    "https://github.com/meta-llama/llama3/blob/main/MODEL_CARD.md (pretraining GPU hours,"
    " H100-80GB)"
)
LLAMA31_CARD = (
    "https://github.com/meta-llama/llama-models/blob/main/models/llama3_1/MODEL_CARD.md"
    " (training GPU hours, H100-80GB)"
)
# The 3.1 card gives ~15T tokens for every size; 15.6T for 405B is the paper's figure.
LLAMA31_405B_SOURCE = (
    f"{LLAMA31_CARD}; 15.6T tokens: https://arxiv.org/abs/2407.21783 (The Llama 3 Herd of"
    " Models, §1)"
)
DEEPSEEK_V3 = (
    "https://arxiv.org/abs/2412.19437 (DeepSeek-V3, Table 1: pre-training 2,664K of 2,788K"
    " H800 GPU hours)"
)
MPT_7B = (
    "https://huggingface.co/mosaicml/mpt-7b (Training Configuration: 440 A100-40GBs for about"
    " 9.5 days)"
)
GPT_FAST = (
    "https://github.com/pytorch-labs/gpt-fast/blob/0f925b5d4ce457b89a7ca6c9ce50f42bf2576945"
    "/README.md#benchmarks (A100-80GB power-limited to 330 W, batch 1, 5-token prompt)"
)
TRT_LLM = (
    "https://github.com/NVIDIA/TensorRT-LLM/blob/138f96d45f90b9667426f7c47297d8c06bafac73"
    "/docs/source/performance.md (A100 FP16, output tokens/s per GPU: revision 77d24b5 labels"
    " the same table so)"
)
# main's README no longer has this table; QLoRA read 9.29 GB from 2024-03-22 until this
# revision (2024-04-18) gave 8.57 GB, the table's last figure before it changed setup.
TORCHTUNE = (
    "https://github.com/pytorch/torchtune/blob/20747cd87ba803d514d5d3d57e90fcfb059ecf56/README.md"
    " (peak memory per GPU, Llama2-7B on 1 x RTX 4090)"
)
LLAMA3_8B_CONFIG = "https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json"
LLAMA3_70B_CONFIG = "https://huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json"
LLAMA2_7B_CONFIG = "https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json"

# Architectures from the models' config.json files (layers, hidden size, heads, KV heads).
LLAMA_7B: dict[str, Any] = dict(params_b=6.74, layers=32, hidden_size=4096, heads=32, kv_heads=32)
LLAMA_13B: dict[str, Any] = dict(params_b=13.0, layers=40, hidden_size=5120, heads=40, kv_heads=40)
LLAMA_33B: dict[str, Any] = dict(params_b=32.5, layers=60, hidden_size=6656, heads=52, kv_heads=52)
LLAMA_65B: dict[str, Any] = dict(params_b=65.2, layers=80, hidden_size=8192, heads=64, kv_heads=64)
LLAMA2_70B: dict[str, Any] = dict(params_b=69.0, layers=80, hidden_size=8192, heads=64, kv_heads=8)
LLAMA3_8B: dict[str, Any] = dict(params_b=8.03, layers=32, hidden_size=4096, heads=32, kv_heads=8)
LLAMA3_70B: dict[str, Any] = dict(params_b=70.6, layers=80, hidden_size=8192, heads=64, kv_heads=8)
LLAMA31_405B: dict[str, Any] = dict(
    params_b=405.0, layers=126, hidden_size=16384, heads=128, kv_heads=8
)
GPT_J_6B: dict[str, Any] = dict(
    params_b=6.05, layers=28, hidden_size=4096, heads=16, kv_heads=16, head_dim=256
)


def pretraining(tokens: float, seq_len: int, **arch: Any) -> Workload:
    return workload("pretraining", "pretraining", tokens=tokens, seq_len=seq_len, **arch)


def chat(prompt: int, output: int, **arch: Any) -> Workload:
    return workload(
        "chat",
        "realtime_inference",
        tokens_per_second=1,
        prompt_tokens=prompt,
        output_tokens=output,
        **arch,
    )


def trained(
    name: str, hours: float, source: str, gpu: Gpu, tokens: float, seq_len: int, **kw: Any
) -> Published:
    """Training GPU-hours of a whole pretraining run."""
    band = {k: kw.pop(k) for k in ("band", "why") if k in kw}
    return Published(
        name,
        Figure.TRAINING_GPU_HOURS,
        hours,
        source,
        pretraining(tokens, seq_len, **kw),
        gpu,
        **band,
    )


def decoded(name: str, tokens_per_second: float, width: int, **kw: Any) -> Published:
    """gpt-fast's batch-1 decode on A100-80GB: a 5-token prompt, 200 new tokens (its default)."""
    band = {k: kw.pop(k) for k in ("band", "why") if k in kw}
    w = chat(5, 200, **kw)
    return Published(
        name, Figure.DECODE_MS, 1000 / tokens_per_second, GPT_FAST, w, A100_80, width, **band
    )


def served(name: str, tokens_per_second: float, prompt: int, output: int, **kw: Any) -> Published:
    """TensorRT-LLM's fp16 throughput on A100 at full load (no latency target)."""
    band = {k: kw.pop(k) for k in ("band", "why", "width") if k in kw}
    w = chat(prompt, output, precision="fp16", **kw)
    return Published(name, Figure.THROUGHPUT, tokens_per_second, TRT_LLM, w, A100_80, **band)


def fine_tuned(name: str, kind: str, peak_gb: float, source: str, **kw: Any) -> Published:
    """Peak memory of a LoRA or QLoRA fine-tune (the GPU does not enter the estimate)."""
    band = {k: kw.pop(k) for k in ("band", "why") if k in kw}
    w = workload(kind, kind, tokens=1e6, **kw)
    return Published(name, Figure.PEAK_MEMORY_GB, peak_gb, source, w, A100_80, **band)


T = Figure.TRAINING_GPU_HOURS
LLAMA3_8B_WHY = (
    "Meta's 8B GPU-hours imply about 20 % MFU: a small model on a 16K-GPU cluster is bound by "
    "communication, not compute. Set mfu_training (or a measured gpu_hours) for small models "
    "trained at very large scale."
)
PREFILL_WHY = (
    "2,048-token prompts: TensorRT-LLM prefills batches of long prompts at about 65 % of peak "
    "(its first-token latency, 133 ms for 2,048 tokens), gpumix at mfu_inference 50 %."
)
MHA_WHY = (
    "Without kv_heads gpumix assumes grouped-query attention with 8 KV heads; Llama 2 7B has "
    "full multi-head attention (32 KV heads), 4 × the cache. Fill layers and kv_heads."
)
LLAMA_13B_WHY = (
    "The 13B run reached about 61 % MFU on A100, above the 50 % default; the other LLaMA and "
    "Llama 2 runs land within 11 %."
)
PREFILL = {"band": (0.6, 0.85), "why": PREFILL_WHY}
DEEPSEEK_V3_ARCH: dict[str, Any] = dict(
    params_b=671, active_params_b=37, layers=61, hidden_size=7168, precision="fp8"
)
MPT_7B_ARCH: dict[str, Any] = dict(params_b=6.7, layers=32, hidden_size=4096)

FIGURES: tuple[Published, ...] = (
    # ---- training GPU-hours (whole job, every GPU counted)
    trained("LLaMA 7B, 1.0T tokens", 82_432, LLAMA_PAPER, A100_80, 1.0e12, 2048, **LLAMA_7B),
    trained(
        "LLaMA 13B, 1.0T tokens",
        135_168,
        LLAMA_PAPER,
        A100_80,
        1.0e12,
        2048,
        band=(0.85, 1.25),
        why=LLAMA_13B_WHY,
        **LLAMA_13B,
    ),
    trained("LLaMA 33B, 1.4T tokens", 530_432, LLAMA_PAPER, A100_80, 1.4e12, 2048, **LLAMA_33B),
    trained("LLaMA 65B, 1.4T tokens", 1_022_362, LLAMA_PAPER, A100_80, 1.4e12, 2048, **LLAMA_65B),
    trained("Llama 2 7B, 2T tokens", 184_320, LLAMA2_CARD, A100_80, 2e12, 4096, **LLAMA_7B),
    trained("Llama 2 13B, 2T tokens", 368_640, LLAMA2_CARD, A100_80, 2e12, 4096, **LLAMA_13B),
    trained("Llama 2 70B, 2T tokens", 1_720_320, LLAMA2_CARD, A100_80, 2e12, 4096, **LLAMA2_70B),
    trained(
        "Llama 3 8B, 15T tokens",
        1_300_000,
        LLAMA3_CARD,
        H100,
        15e12,
        8192,
        band=(0.5, 0.6),
        why=LLAMA3_8B_WHY,
        **LLAMA3_8B,
    ),
    trained("Llama 3 70B, 15T tokens", 6_400_000, LLAMA3_CARD, H100, 15e12, 8192, **LLAMA3_70B),
    trained(
        "Llama 3.1 405B, 15.6T tokens",
        30_840_000,
        LLAMA31_405B_SOURCE,
        H100,
        15.6e12,
        8192,
        **LLAMA31_405B,
    ),
    trained(
        "DeepSeek-V3 (671B, 37B active, FP8), 14.8T tokens",
        2_664_000,
        DEEPSEEK_V3,
        H800,
        14.8e12,
        4096,
        **DEEPSEEK_V3_ARCH,
    ),
    trained("MPT-7B, 1T tokens", 440 * 9.5 * 24, MPT_7B, A100_40, 1e12, 2048, **MPT_7B_ARCH),
    # ---- fine-tuning peak memory
    fine_tuned("QLoRA Llama-2-7B, one RTX 4090", "qlora", 8.57, TORCHTUNE, **LLAMA_7B),
    fine_tuned("LoRA Llama-2-7B, one RTX 4090", "lora", 17.18, TORCHTUNE, **LLAMA_7B),
    # ---- batch-1 decode: 1,000 / tokens per second
    decoded("Llama-2-7B bf16, 1 × A100", 104.9, 1, **LLAMA_7B),
    decoded("Llama-2-7B int8, 1 × A100", 155.58, 1, precision="int8", **LLAMA_7B),
    decoded("Llama-2-7B int4, 1 × A100", 196.80, 1, precision="int4", **LLAMA_7B),
    decoded("Llama-2-7B bf16, 2 × A100", 168.84, 2, **LLAMA_7B),
    decoded("Llama-2-7B bf16, 4 × A100", 254.02, 4, **LLAMA_7B),
    decoded("Llama-2-7B bf16, 8 × A100", 328.43, 8, **LLAMA_7B),
    decoded("Llama-2-70B bf16, 2 × A100", 21.32, 2, **LLAMA2_70B),
    decoded("Llama-2-70B bf16, 4 × A100", 38.01, 4, **LLAMA2_70B),
    decoded("Llama-2-70B bf16, 8 × A100", 62.50, 8, **LLAMA2_70B),
    # ---- serving throughput at full load (no latency target), output tokens/s
    served("LLaMA 7B fp16, 128 in / 128 out, 1 × A100", 5_586, 128, 128, **LLAMA_7B),
    served("LLaMA 7B fp16, 128 in / 2,048 out, 1 × A100", 1_928, 128, 2048, **LLAMA_7B),
    served("LLaMA 7B fp16, 2,048 in / 128 out, 1 × A100", 591, 2048, 128, **PREFILL, **LLAMA_7B),
    served("GPT-J 6B fp16, 128 in / 128 out, 1 × A100", 6_374, 128, 128, **GPT_J_6B),
    served("GPT-J 6B fp16, 2,048 in / 128 out, 1 × A100", 670, 2048, 128, **PREFILL, **GPT_J_6B),
    # ---- KV cache per token when the architecture is left blank (v1's rule, labelled)
    Published(
        "Llama-3-70B KV cache, architecture blank",
        Figure.KV_KIB,
        320,
        LLAMA3_70B_CONFIG,
        chat(1024, 128, params_b=70.6),
        A100_80,
    ),
    Published(
        "Llama-2-7B KV cache, architecture blank",
        Figure.KV_KIB,
        512,
        LLAMA2_7B_CONFIG,
        chat(1024, 128, params_b=6.74),
        A100_80,
        band=(0.2, 0.3),
        why=MHA_WHY,
    ),
)
