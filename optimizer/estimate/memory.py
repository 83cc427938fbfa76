"""Memory: what a workload needs and how many GPUs hold it.

Takes a ``domain.Workload`` (its ``vram_gb``, or ``params_b``, precision and
context) and the scenario's ``Assumptions``; hands on a :class:`MemoryNeed`
(GB and the sum in words) and GPUs per replica to ``serving`` and ``pairs``.
model.md, "Per workload × GPU type"; the fixed factors below are written down
in ``docs/methodology.md``. GB are 10⁹ bytes, KiB 1,024 bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from optimizer.domain import Assumptions, Gpu, Kind, Precision, Workload

GB = 1e9
KIB = 1024.0

# KV cache per token grows with layers × KV width, which grows more slowly than
# the parameter count. (params_b / 8) ** 0.42 lands on both published points:
# Llama-3-8B 0.125 MiB (by definition) and 70B 128 KiB × 8.75 ** 0.42 ≈ 0.31 MiB.
KV_SIZE_EXPONENT = 0.42
# KV cache is kept at 16 bits whatever the weights' precision; fp32 models keep it at 32.
KV_BYTES_FP32_FACTOR = 2.0
# Fixed engineering estimates for training memory (not Assumptions keys):
# LoRA/QLoRA train about 0.3 % of the parameters (rank-8 adapters on every
# linear layer), each carrying the full training state (weights, gradient,
# Adam moments) of training_state_bytes_per_param.
LORA_TRAINABLE_SHARE = 0.003
# Activations with gradient checkpointing at a micro-batch of one sequence,
# per parameter of the model (≈ 0.4 GB for a 7B model). Small next to the
# model state; it keeps a 70B QLoRA inside one 48 GB GPU, as the QLoRA paper did.
ACTIVATION_BYTES_PER_PARAM = 0.06


@dataclass(frozen=True)
class MemoryNeed:
    """How much memory a workload needs and what it is made of.

    ``total_gb`` decides GPUs per replica. For inference it holds the model
    with one sequence's KV cache; more sequences fill the rest of the
    replica. ``detail`` is the sum in words, for reasons.
    """

    total_gb: float
    detail: str


def weights_gb(params_b: float, precision: Precision, a: Assumptions) -> float:
    """The model's weights: 7B at bf16 = 7 × 2 = 14 GB."""
    return params_b * a.bytes_per_param(precision)


def kv_bytes_per_token(params_b: float, precision: Precision, a: Assumptions) -> float:
    """KV cache bytes per token of context, scaled from the 8B figure."""
    bytes_8b = a.kv_kib_per_token_8b * KIB
    factor = KV_BYTES_FP32_FACTOR if precision is Precision.FP32 else 1.0
    return bytes_8b * (params_b / 8.0) ** KV_SIZE_EXPONENT * factor


def memory_need(workload: Workload, a: Assumptions) -> MemoryNeed | None:
    """Memory need of a workload (GB): its ``vram_gb`` when given, else the estimate.

    None when neither ``vram_gb`` nor ``params_b`` is given.
    """
    if workload.vram_gb is not None:
        return MemoryNeed(
            workload.vram_gb, f"the workload needs {workload.vram_gb:,.1f} GB (its vram_gb)"
        )
    params_b = workload.params_b
    if params_b is None:
        return None
    kind = workload.kind
    if kind.is_inference:
        weights = weights_gb(params_b, workload.precision, a)
        kv = kv_bytes_per_token(params_b, workload.precision, a) * workload.context_tokens / GB
        total = weights * (1.0 + a.inference_overhead) + kv
        detail = (
            f"{params_b:g}B at {workload.precision.value} needs {total:,.1f} GB (weights"
            f" {weights:,.1f} GB × {1 + a.inference_overhead:g} + {kv:,.1f} GB KV cache"
            f" for one {workload.context_tokens:,}-token sequence)"
        )
        return MemoryNeed(total, detail)
    activations = params_b * ACTIVATION_BYTES_PER_PARAM
    if kind in (Kind.LORA, Kind.QLORA):
        precision = Precision.INT4 if kind is Kind.QLORA else workload.precision
        frozen = weights_gb(params_b, precision, a)
        adapters = params_b * LORA_TRAINABLE_SHARE * a.training_state_bytes_per_param
        total = frozen + adapters + activations
        detail = (
            f"{params_b:g}B {kind.value} needs {total:,.1f} GB (frozen weights {frozen:,.1f} GB at"
            f" {precision.value} + adapters {adapters:,.1f} GB + activations {activations:,.1f} GB)"
        )
        return MemoryNeed(total, detail)
    state = params_b * a.training_state_bytes_per_param
    total = state + activations
    detail = (
        f"{params_b:g}B {kind.value} needs {total:,.1f} GB (training state {state:,.1f} GB"
        f" + activations {activations:,.1f} GB)"
    )
    return MemoryNeed(total, detail)


def usable_gb(gpu: Gpu, a: Assumptions) -> float:
    """Memory one GPU offers a workload (vLLM's memory fraction of VRAM)."""
    return gpu.vram_gb * a.usable_vram_fraction


def gpus_for_memory(memory_gb: float, gpu: Gpu, a: Assumptions) -> int:
    """Fewest GPUs whose usable memory holds ``memory_gb``."""
    # Round before ceil so that 144.0000000001 from float noise does not add a GPU.
    return max(1, math.ceil(round(memory_gb / usable_gb(gpu, a), 9)))
