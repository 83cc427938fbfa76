"""Speed of training and batch inference: GPU-hours from FLOPs.

Takes a ``domain.Workload`` (``params_b`` or ``active_params_b``, ``tokens``,
``seq_len``, architecture), a ``domain.Gpu``, the GPUs per replica ``k`` and
the ``Assumptions``; hands on GPU-hours (the whole training job, or a month of
batch inference) to ``pairs``, and the inference FLOPs per token to ``serving``.
"""

from __future__ import annotations

import math

from optimizer.domain import Assumptions, Gpu, Kind, Precision, Workload
from optimizer.estimate.architecture import active_params, hidden_size, layers
from optimizer.estimate.not_allowed import _needed

SECONDS_PER_HOUR = 3600.0

# Training FLOPs per parameter per token: forward + backward (model.md).
TRAINING_FLOPS_PER_PARAM_TOKEN: dict[Kind, float] = {
    Kind.PRETRAINING: 6.0,
    Kind.FINE_TUNING: 6.0,
    Kind.LORA: 4.0,
    Kind.QLORA: 4.0,
}
# Inference: one multiply-add per parameter per token.
INFERENCE_FLOPS_PER_PARAM_TOKEN = 2.0
# Attention score and value products, forward and backward, per layer, hidden
# unit and token of sequence (model v2 §G).
ATTENTION_FLOPS_FACTOR = 12.0


def scaling_efficiency(k: int, gpu: Gpu, a: Assumptions) -> float:
    """Share of k GPUs' speed a replica gets: per_doubling ** log2(k) (v1; batch inference)."""
    per_doubling = a.nvlink_scaling_per_doubling if gpu.nvlink else a.pcie_scaling_per_doubling
    return float(per_doubling ** math.log2(k))


def training_scaling(k: int, gpu: Gpu, a: Assumptions) -> float:
    """Training's share of k GPUs' speed (model v2 §G).

    1 on NVLink types: a published MFU is already a whole-job figure measured
    at scale (Llama 3: 38–43 % on 16K H100s). Types without NVLink keep
    ``pcie_scaling_per_doubling ** log2(k)``.
    """
    if gpu.nvlink:
        return 1.0
    return float(a.pcie_scaling_per_doubling ** math.log2(k))


def mfu_training(gpu: Gpu, a: Assumptions) -> float:
    return gpu.mfu_training if gpu.mfu_training is not None else a.mfu_training


def fp8_speedup(workload: Workload, gpu: Gpu, a: Assumptions) -> float:
    """``fp8_training_speedup`` for fp8 training on a type that computes in FP8, else 1."""
    if workload.precision is Precision.FP8 and gpu.fp8:
        return a.fp8_training_speedup
    return 1.0


def training_flops_per_token(workload: Workload) -> float:
    """``c × N_active + 12 × layers × hidden × seq_len`` FLOPs per trained token.

    ``c`` = 6 (forward + backward) for pretraining and full fine-tuning, 4 for
    LoRA/QLoRA (no weight gradients); the attention term (Chinchilla, Hoffmann
    et al. 2022, appendix F) is +27 % for an 8B model at 8K tokens.
    """
    c = TRAINING_FLOPS_PER_PARAM_TOKEN[workload.kind]
    attention = ATTENTION_FLOPS_FACTOR * layers(workload) * hidden_size(workload) * workload.seq_len
    return c * active_params(workload) + attention


def training_gpu_hours(workload: Workload, gpu: Gpu, k: int, a: Assumptions) -> float:
    """GPU-hours of the whole training job, all GPUs counted (model v2 §G).

    ``tokens × flops_per_token / (3600 × peak × mfu_training × goodput × fp8
    × scaling)``.
    """
    tokens = _needed(workload.tokens, "tokens")
    flops = training_flops_per_token(workload) * tokens
    rate = (
        gpu.fp16_tflops
        * 1e12
        * mfu_training(gpu, a)
        * a.goodput
        * fp8_speedup(workload, gpu, a)
        * training_scaling(k, gpu, a)
    )
    return flops / (rate * SECONDS_PER_HOUR)


def batch_gpu_hours_per_month(workload: Workload, gpu: Gpu, k: int, a: Assumptions) -> float:
    """GPU-hours a month of batch inference, compute-bound at mfu_inference (N_active counted)."""
    tokens = _needed(workload.tokens, "tokens")
    flops = INFERENCE_FLOPS_PER_PARAM_TOKEN * active_params(workload) * tokens
    rate = gpu.fp16_tflops * 1e12 * a.mfu_inference * scaling_efficiency(k, gpu, a)
    return flops / (rate * SECONDS_PER_HOUR)
