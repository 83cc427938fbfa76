"""Serving: capacity and latency of one realtime replica (model v2 §G).

Takes a ``domain.Workload``, a ``domain.Gpu``, the GPUs per replica ``k`` and
the ``Assumptions``; hands on a :class:`Decode` (step time per batch, prefill
time per request) and the largest batch a latency target allows to
``widths``, which turns them into tokens per second per replica.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from optimizer.domain import Assumptions, Gpu, Workload
from optimizer.estimate.architecture import (
    active_params,
    held_tokens,
    kv_bytes_per_token,
    layers,
    request_shape,
)
from optimizer.estimate.memory import GB, weights_gb
from optimizer.estimate.not_allowed import _needed, _NotAllowed
from optimizer.estimate.training import INFERENCE_FLOPS_PER_PARAM_TOKEN

# Tensor parallelism all-reduces twice per layer per decode step (after
# attention and after the MLP; Megatron-LM, Shoeybi et al. 2019).
ALLREDUCES_PER_LAYER = 2


@dataclass(frozen=True)
class Decode:
    """What the serving estimate needs for one replica (its k GPUs already counted)."""

    weight_seconds: float  # reading the weights once, at the format's bandwidth share
    sequence_kv_bytes: float  # cache one sequence holds on average
    kv_bandwidth: float  # bytes/s of the whole replica reading KV cache
    params: float  # active parameters, not billions
    flops: float  # FLOP/s of the whole replica, after mfu_inference
    allreduce_seconds: float  # tensor-parallel all-reduces of one step (0 on one GPU)
    prefill_seconds: float  # one request's prompt (0 in v1's reading)
    output_tokens: float  # tokens a request generates (prefill is spread over them)

    def step_seconds(self, batch: int) -> float:
        """One decode step (one token for each of ``batch`` sequences).

        ``max(weights / (k bw eff_precision) + batch kv / (k bw eff), 2 N batch /
        (k peak mfu_inference)) + all-reduces``: memory-bound at small batches,
        compute-bound at large ones.
        """
        read = self.weight_seconds + batch * self.sequence_kv_bytes / self.kv_bandwidth
        compute = INFERENCE_FLOPS_PER_PARAM_TOKEN * self.params * batch / self.flops
        return max(read, compute) + self.allreduce_seconds

    def tokens_per_second(self, batch: int) -> float:
        """Generated tokens/s at ``batch``: each token costs ``step / batch`` plus its share of prefill."""
        per_token = self.step_seconds(batch) / batch + self.prefill_seconds / self.output_tokens
        return 1.0 / per_token


def decode_model(workload: Workload, gpu: Gpu, k: int, a: Assumptions) -> Decode:
    """The replica of ``k`` GPUs serving ``workload`` (no ``s(k)``: model v2 §G)."""
    params_b = _needed(workload.params_b, "params_b")
    if gpu.memory_bandwidth_gbs is None:
        raise _NotAllowed(
            f"{gpu.name} has no memory_bandwidth_gbs: a realtime estimate needs it"
            " (or a measured tokens_per_second_per_replica)"
        )
    bandwidth = k * gpu.memory_bandwidth_gbs * GB
    weight_bytes = weights_gb(params_b, workload.precision, a) * GB
    flops = k * gpu.fp16_tflops * 1e12 * a.mfu_inference
    n = active_params(workload)
    shape = request_shape(workload)
    prompt, output = shape if shape is not None else (0, 1)
    allreduce = ALLREDUCES_PER_LAYER * layers(workload) * a.allreduce_latency_us * 1e-6
    return Decode(
        weight_seconds=weight_bytes
        / (bandwidth * a.weight_bandwidth_efficiency(workload.precision)),
        sequence_kv_bytes=kv_bytes_per_token(workload, a) * held_tokens(workload),
        kv_bandwidth=bandwidth * a.bandwidth_efficiency,
        params=n,
        flops=flops,
        allreduce_seconds=allreduce if k > 1 else 0.0,
        prefill_seconds=INFERENCE_FLOPS_PER_PARAM_TOKEN * n * prompt / flops,
        output_tokens=float(output),
    )


def largest_batch(decode: Decode, memory_batch: int, latency_ms: float | None) -> int:
    """Largest batch ≤ ``memory_batch`` whose step stays within ``latency_ms``.

    The step time grows with the batch, so the bound is solved in closed form
    and then nudged by one where floating point lands on the wrong side.
    Returns 0 when even one sequence is too slow.
    """
    if latency_ms is None:
        return memory_batch
    limit = latency_ms / 1000.0 - decode.allreduce_seconds
    by_bandwidth = (limit - decode.weight_seconds) * decode.kv_bandwidth / decode.sequence_kv_bytes
    by_compute = limit * decode.flops / (INFERENCE_FLOPS_PER_PARAM_TOKEN * decode.params)
    batch = max(0, min(memory_batch, math.floor(min(by_bandwidth, by_compute))))
    while batch > 0 and decode.step_seconds(batch) * 1000.0 > latency_ms:
        batch -= 1
    while batch < memory_batch and decode.step_seconds(batch + 1) * 1000.0 <= latency_ms:
        batch += 1
    return batch
