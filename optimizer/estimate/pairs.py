"""What each workload needs on each GPU type, computed before the solve.

model.md, "Per workload × GPU type": memory need, GPUs per replica, scaling
efficiency, and the work rate (training GPU-hours of the whole job, batch
GPU-hours per month, or a realtime replica's tokens per second). A measured
``Throughput`` row is final and replaces the estimate. Every choice the
contract leaves open is written down in ``docs/methodology.md``; the fixed
engineering estimates below are the only factors that are not Assumptions keys.

Units: GB are 10⁹ bytes (as datasheets count VRAM), KiB are 1,024 bytes,
``params_b`` is billions of parameters, times are seconds unless named ``_ms``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from optimizer.domain import Assumptions, Gpu, Kind, Measurement, Precision, Scenario, Workload
from optimizer.results import EstimateSource, PairEstimate

GB = 1e9
KIB = 1024.0
SECONDS_PER_HOUR = 3600.0

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
# Training FLOPs per parameter per token: forward + backward (model.md).
TRAINING_FLOPS_PER_PARAM_TOKEN: dict[Kind, float] = {
    Kind.PRETRAINING: 6.0,
    Kind.FINE_TUNING: 6.0,
    Kind.LORA: 4.0,
    Kind.QLORA: 4.0,
}
# Inference: one multiply-add per parameter per token.
INFERENCE_FLOPS_PER_PARAM_TOKEN = 2.0


class _NotAllowed(Exception):
    """Internal: the pair cannot run; the message says why, in numbers.

    ``latency_ms`` carries the batch-1 decode latency when it was computed
    (a pair ruled out by its latency target still reports it).
    """

    def __init__(self, reason: str, latency_ms: float | None = None) -> None:
        super().__init__(reason)
        self.latency_ms = latency_ms


@dataclass(frozen=True)
class MemoryNeed:
    """How much memory a workload needs and what it is made of.

    ``total_gb`` decides GPUs per replica. For inference it holds the model
    with one sequence's KV cache; more sequences fill the rest of the
    replica. ``detail`` is the sum in words, for reasons.
    """

    total_gb: float
    detail: str


# ---------------------------------------------------------------- memory


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


# ---------------------------------------------------------------- speed


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


# ---------------------------------------------------------------- pairs


def estimate_pairs(scenario: Scenario) -> tuple[PairEstimate, ...]:
    """Every workload × GPU type of the scenario: workloads in order, GPUs in order."""
    return tuple(estimate_pair(scenario, w, g) for w in scenario.workloads for g in scenario.gpus)


def estimate_pair(scenario: Scenario, workload: Workload, gpu: Gpu) -> PairEstimate:
    """What ``workload`` needs on ``gpu``: allowed or why not, in numbers."""
    a = scenario.assumptions
    measured = scenario.measurement(workload.name, gpu.name)
    speed = _measured_speed(workload, measured)
    source = EstimateSource.ESTIMATED if speed is None else EstimateSource.MEASURED
    measured_k = measured.gpus_per_replica if measured is not None else None
    memory = memory_need(workload, a)
    k = measured_k
    try:
        if k is None:
            k = gpus_for_memory(_known(memory).total_gb, gpu, a)
        if workload.kind.is_inference and k > gpu.max_per_node:
            raise _NotAllowed(_server_reason(memory, k, gpu, a, measured=measured_k is not None))
        if workload.kind is Kind.REALTIME_INFERENCE:
            if speed is None:
                return _realtime_estimate(workload, gpu, k, _known(memory), a)
            # Measured at the workload's latency target: final, no latency check.
            return _allowed(workload, gpu, memory, k, None, speed, None, source)
        hours = speed
        if hours is None:
            if workload.kind.is_training:
                hours = training_gpu_hours(workload, gpu, k, a)
            else:
                hours = batch_gpu_hours_per_month(workload, gpu, k, a)
        return _allowed(workload, gpu, memory, k, hours, None, None, source)
    except _NotAllowed as why:
        return PairEstimate(
            workload=workload.name,
            gpu=gpu.name,
            allowed=False,
            reason=str(why),
            memory_gb=memory.total_gb if memory is not None else None,
            gpus_per_replica=k,
            gpu_hours=None,
            tokens_per_second_per_replica=None,
            latency_ms=why.latency_ms,
            source=source,
        )


def _realtime_estimate(
    workload: Workload, gpu: Gpu, k: int, memory: MemoryNeed, a: Assumptions
) -> PairEstimate:
    """Decode roofline: capacity at the largest batch memory and latency allow."""
    decode = decode_model(workload, gpu, k, a)
    replica_gb = k * usable_gb(gpu, a)
    if replica_gb < memory.total_gb:
        # Only a measured gpus_per_replica can be too small for one sequence.
        raise _NotAllowed(
            f"{memory.detail}; the measured {k} × {gpu.name} hold {replica_gb:,.1f} GB usable"
        )
    spare_sequences = (replica_gb - memory.total_gb) * GB / decode.sequence_kv_bytes
    memory_batch = 1 + math.floor(round(spare_sequences, 9))
    step1_ms = decode.step_seconds(1) * 1000.0
    target = workload.latency_ms
    if target is not None and step1_ms > target:
        raise _NotAllowed(
            f"batch-1 decode takes {step1_ms:,.1f} ms per token on {k} × {gpu.name},"
            f" above the {target:g} ms target",
            latency_ms=step1_ms,
        )
    batch = largest_batch(decode, memory_batch, target)
    capacity = batch / decode.step_seconds(batch)
    return _allowed(workload, gpu, memory, k, None, capacity, step1_ms, EstimateSource.ESTIMATED)


def _allowed(
    workload: Workload,
    gpu: Gpu,
    memory: MemoryNeed | None,
    k: int,
    gpu_hours: float | None,
    tokens_per_second: float | None,
    latency_ms: float | None,
    source: EstimateSource,
) -> PairEstimate:
    return PairEstimate(
        workload=workload.name,
        gpu=gpu.name,
        allowed=True,
        reason="",
        memory_gb=memory.total_gb if memory is not None else None,
        gpus_per_replica=k,
        gpu_hours=gpu_hours,
        tokens_per_second_per_replica=tokens_per_second,
        latency_ms=latency_ms,
        source=source,
    )


def _measured_speed(workload: Workload, measured: Measurement | None) -> float | None:
    """The measured speed that applies to this workload's kind, if any."""
    if measured is None:
        return None
    if workload.kind is Kind.REALTIME_INFERENCE:
        return measured.tokens_per_second_per_replica
    return measured.gpu_hours


def _server_reason(
    memory: MemoryNeed | None, k: int, gpu: Gpu, a: Assumptions, *, measured: bool
) -> str:
    server = f"one server of {gpu.max_per_node} × {gpu.name}"
    if measured or memory is None:
        return f"the measured replica needs {k} GPUs; {server} is the most an inference replica may span"
    server_gb = gpu.max_per_node * usable_gb(gpu, a)
    return (
        f"{memory.detail}; {server} holds {server_gb:,.1f} GB usable"
        f" ({a.usable_vram_fraction:.0%} of {gpu.vram_gb:g} GB each)"
    )


def _known(memory: MemoryNeed | None) -> MemoryNeed:
    if memory is None:
        raise _NotAllowed(
            "params_b is missing: the memory estimate needs it (or vram_gb, or a measured gpus_per_replica)"
        )
    return memory


def _needed(value: float | None, name: str) -> float:
    if value is None:
        raise _NotAllowed(
            f"{name} is missing: the speed estimate needs it (or a measured Throughput row)"
        )
    return value
