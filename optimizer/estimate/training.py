"""Speed of training and batch inference: GPU-hours from FLOPs.

Takes a ``domain.Workload`` (``params_b``, ``tokens``), a ``domain.Gpu``, the
GPUs per replica ``k`` and the ``Assumptions``; hands on GPU-hours (the whole
training job, or a month of batch inference) to ``pairs``, and the scaling
efficiency and inference FLOPs per token to ``serving``.
"""

from __future__ import annotations

import math

from optimizer.domain import Assumptions, Gpu, Kind, Workload
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


def scaling_efficiency(k: int, gpu: Gpu, a: Assumptions) -> float:
    """Share of k GPUs' speed a replica gets: per_doubling ** log2(k)."""
    per_doubling = a.nvlink_scaling_per_doubling if gpu.nvlink else a.pcie_scaling_per_doubling
    return float(per_doubling ** math.log2(k))


def mfu_training(gpu: Gpu, a: Assumptions) -> float:
    return gpu.mfu_training if gpu.mfu_training is not None else a.mfu_training


def training_gpu_hours(workload: Workload, gpu: Gpu, k: int, a: Assumptions) -> float:
    """GPU-hours of the whole training job, all GPUs counted."""
    params_b, tokens = _needed(workload.params_b, "params_b"), _needed(workload.tokens, "tokens")
    flops = TRAINING_FLOPS_PER_PARAM_TOKEN[workload.kind] * params_b * 1e9 * tokens
    rate = gpu.fp16_tflops * 1e12 * mfu_training(gpu, a) * a.goodput * scaling_efficiency(k, gpu, a)
    return flops / (rate * SECONDS_PER_HOUR)


def batch_gpu_hours_per_month(workload: Workload, gpu: Gpu, k: int, a: Assumptions) -> float:
    """GPU-hours a month of batch inference, compute-bound at mfu_inference."""
    params_b, tokens = _needed(workload.params_b, "params_b"), _needed(workload.tokens, "tokens")
    flops = INFERENCE_FLOPS_PER_PARAM_TOKEN * params_b * 1e9 * tokens
    rate = gpu.fp16_tflops * 1e12 * a.mfu_inference * scaling_efficiency(k, gpu, a)
    return flops / (rate * SECONDS_PER_HOUR)
