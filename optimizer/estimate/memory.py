"""Memory: what a workload needs and how many GPUs hold it.

Takes a ``domain.Workload`` (its ``vram_gb``, or ``params_b``, precision,
architecture and request shape) and the scenario's ``Assumptions``; hands on a
:class:`MemoryNeed` (GB and the sum in words) and GPUs per replica to
``serving``, ``widths`` and ``pairs``. model.md, "Per workload × GPU type", as
model v2 §G changes it; the fixed factors below are written down in
``docs/methodology.md``. GB are 10⁹ bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from optimizer.domain import Assumptions, Gpu, Kind, Precision, Workload
from optimizer.estimate.architecture import kv_bytes_per_token, longest_sequence

GB = 1e9
# Fixed engineering estimates for training memory (not Assumptions keys):
# LoRA/QLoRA train about 0.3 % of the parameters (rank-8 adapters on every
# linear layer), each carrying the full training state (weights, gradient,
# Adam moments) of training_state_bytes_per_param.
LORA_TRAINABLE_SHARE = 0.003
# Activations with gradient checkpointing at a micro-batch of one sequence,
# per parameter of the model (≈ 4 GB for a 70B model): it keeps a 65B QLoRA
# inside one 48 GB GPU, as the QLoRA paper did.
ACTIVATION_BYTES_PER_PARAM = 0.06
# Activations and runtime never take less than this (model v2 §G): torchtune
# measured Llama-2-7B fine-tuning peaks of 17.18 GB (LoRA) and 8.57 GB (QLoRA;
# 9.29 GB in the README's first version) on one RTX 4090, 3.4 and 4.7 GB above
# weights and adapters.
TRAINING_FLOOR_GB = 4.5
# QLoRA's NF4 weights with double-quantized block scales: 4.127 bits a parameter
# (Dettmers et al. 2023, §3).
NF4_BYTES_PER_PARAM = 0.52


@dataclass(frozen=True)
class MemoryNeed:
    """How much memory a workload needs and what it is made of.

    ``total_gb`` is what one replica holds in all (shared across its GPUs);
    ``per_gpu_gb`` is the serving runtime on every GPU of the replica. For inference ``total_gb`` holds the model with one sequence's
    KV cache; more sequences fill the rest of the replica. ``detail`` is the
    sum in words, for reasons.
    """

    total_gb: float
    detail: str
    per_gpu_gb: float = 0.0

    def room_gb(self, gpu: Gpu, a: Assumptions) -> float:
        """What one GPU holds of ``total_gb``: its usable memory, less the runtime where it
        does not fit in the rest of the card.

        vLLM's memory fraction (``usable_vram_fraction``) holds weights, cache and
        activations; the CUDA context and runtime sit in the remainder (10 % of an 80 GB
        card is 8 GB). On a small card the runtime takes more than the remainder: a 70B
        int8 model fits one 80 GB GPU, as published, an 8B bf16 model one 24 GB GPU.
        """
        return min(usable_gb(gpu, a), gpu.vram_gb - self.per_gpu_gb)

    def spare_gb(self, k: int, gpu: Gpu, a: Assumptions) -> float:
        """Memory ``k`` GPUs have left once the need is held (negative: it does not fit)."""
        return k * self.room_gb(gpu, a) - self.total_gb


def weights_gb(params_b: float, precision: Precision, a: Assumptions) -> float:
    """The model's weights: 7B at bf16 = 7 × 2 = 14 GB."""
    return params_b * a.bytes_per_param(precision)


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
        return _inference_need(workload, params_b, a)
    activations = max(TRAINING_FLOOR_GB, params_b * ACTIVATION_BYTES_PER_PARAM)
    state_bytes = (
        workload.training_state_bytes_per_param
        if workload.training_state_bytes_per_param is not None
        else a.training_state_bytes_per_param
    )
    if kind in (Kind.LORA, Kind.QLORA):
        if kind is Kind.QLORA:
            frozen, held_as = params_b * NF4_BYTES_PER_PARAM, "NF4"
        else:
            frozen, held_as = weights_gb(params_b, workload.precision, a), workload.precision.value
        adapters = params_b * LORA_TRAINABLE_SHARE * state_bytes
        total = frozen + adapters + activations
        detail = (
            f"{params_b:g}B {kind.value} needs {total:,.1f} GB (frozen weights {frozen:,.1f} GB at"
            f" {held_as} + adapters {adapters:,.1f} GB + activations and runtime"
            f" {activations:,.1f} GB)"
        )
        return MemoryNeed(total, detail)
    state = params_b * state_bytes
    total = state + activations
    detail = (
        f"{params_b:g}B {kind.value} needs {total:,.1f} GB (training state {state:,.1f} GB"
        f" + activations and runtime {activations:,.1f} GB)"
    )
    return MemoryNeed(total, detail)


def _inference_need(workload: Workload, params_b: float, a: Assumptions) -> MemoryNeed:
    """Weights and one longest sequence's KV cache, plus ``runtime_overhead_gb`` on each GPU."""
    weights = weights_gb(params_b, workload.precision, a)
    tokens = longest_sequence(workload)
    kv = kv_bytes_per_token(workload, a) * tokens / GB
    total = weights + kv
    detail = (
        f"{params_b:g}B at {workload.precision.value} needs {total:,.1f} GB (weights"
        f" {weights:,.1f} GB + {kv:,.1f} GB KV cache for one {tokens:,}-token sequence)"
        f" + {a.runtime_overhead_gb:g} GB runtime per GPU"
    )
    return MemoryNeed(total, detail, a.runtime_overhead_gb)


def usable_gb(gpu: Gpu, a: Assumptions) -> float:
    """Memory one GPU offers a workload (vLLM's memory fraction of VRAM)."""
    return gpu.vram_gb * a.usable_vram_fraction


def gpus_for_memory(need: MemoryNeed, gpu: Gpu, a: Assumptions) -> int:
    """Fewest GPUs whose room (:meth:`MemoryNeed.room_gb`) holds the need.

    A GPU that does not even hold the runtime gets a count beyond any server,
    so the pair is ruled out with the numbers.
    """
    room = need.room_gb(gpu, a)
    if room <= 0:
        return gpu.max_per_node + 1
    # Round before ceil so that 144.0000000001 from float noise does not add a GPU.
    return max(1, math.ceil(round(need.total_gb / room, 9)))
