"""Serving: capacity and latency of one realtime replica (the decode roofline).

Takes a ``domain.Workload``, a ``domain.Gpu``, the GPUs per replica ``k`` and
the ``Assumptions``; hands on a :class:`Decode` (step time per batch) and the
largest batch a latency target allows to ``pairs``, which turns them into
tokens per second per replica.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from optimizer.domain import Assumptions, Gpu, Workload
from optimizer.estimate.memory import GB, kv_bytes_per_token, weights_gb
from optimizer.estimate.not_allowed import _needed, _NotAllowed
from optimizer.estimate.training import INFERENCE_FLOPS_PER_PARAM_TOKEN, scaling_efficiency


@dataclass(frozen=True)
class Decode:
    """What the decode roofline needs for one replica (its k GPUs already counted)."""

    weight_bytes: float
    sequence_kv_bytes: float
    params: float  # parameters, not billions
    bandwidth: float  # bytes/s of the whole replica, after bandwidth_efficiency
    flops: float  # FLOP/s of the whole replica, after mfu_inference
    scaling: float

    def step_seconds(self, batch: int) -> float:
        """One decode step (one token for each of ``batch`` sequences)."""
        read = (self.weight_bytes + batch * self.sequence_kv_bytes) / self.bandwidth
        compute = INFERENCE_FLOPS_PER_PARAM_TOKEN * self.params * batch / self.flops
        return max(read, compute) / self.scaling


def decode_model(workload: Workload, gpu: Gpu, k: int, a: Assumptions) -> Decode:
    params_b = _needed(workload.params_b, "params_b")
    if gpu.memory_bandwidth_gbs is None:
        raise _NotAllowed(
            f"{gpu.name} has no memory_bandwidth_gbs: a realtime estimate needs it"
            " (or a measured tokens_per_second_per_replica)"
        )
    return Decode(
        weight_bytes=weights_gb(params_b, workload.precision, a) * GB,
        sequence_kv_bytes=kv_bytes_per_token(params_b, workload.precision, a)
        * workload.context_tokens,
        params=params_b * 1e9,
        bandwidth=k * gpu.memory_bandwidth_gbs * GB * a.bandwidth_efficiency,
        flops=k * gpu.fp16_tflops * 1e12 * a.mfu_inference,
        scaling=scaling_efficiency(k, gpu, a),
    )


def largest_batch(decode: Decode, memory_batch: int, latency_ms: float | None) -> int:
    """Largest batch ≤ ``memory_batch`` whose step stays within ``latency_ms``.

    The step time grows with the batch, so the bound is solved in closed form
    and then nudged by one where floating point lands on the wrong side.
    Returns 0 when even one sequence is too slow.
    """
    if latency_ms is None:
        return memory_batch
    limit = latency_ms / 1000.0 * decode.scaling
    by_bandwidth = (limit * decode.bandwidth - decode.weight_bytes) / decode.sequence_kv_bytes
    by_compute = limit * decode.flops / (INFERENCE_FLOPS_PER_PARAM_TOKEN * decode.params)
    batch = max(0, min(memory_batch, math.floor(min(by_bandwidth, by_compute))))
    while batch > 0 and decode.step_seconds(batch) * 1000.0 > latency_ms:
        batch -= 1
    while batch < memory_batch and decode.step_seconds(batch + 1) * 1000.0 <= latency_ms:
        batch += 1
    return batch
