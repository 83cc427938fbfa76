"""What each workload needs on each GPU type, computed before the solve.

model.md, "Per workload × GPU type": memory need, GPUs per replica, scaling
efficiency, and the work rate (training GPU-hours of the whole job, batch
GPU-hours per month, or a realtime replica's tokens per second). A measured
``Throughput`` row is final and replaces the estimate. Every choice the
contract leaves open is written down in ``docs/methodology.md``; the fixed
engineering estimates in ``memory`` and ``training`` are the only factors that
are not Assumptions keys. The figures come from ``memory``, ``training`` and
``serving``; this module puts them together per pair, allowed or why not.

Units: GB are 10⁹ bytes (as datasheets count VRAM), KiB are 1,024 bytes,
``params_b`` is billions of parameters, times are seconds unless named ``_ms``.
"""

from __future__ import annotations

import math

from optimizer.domain import Assumptions, Gpu, Kind, Measurement, Scenario, Workload
from optimizer.estimate.memory import GB, MemoryNeed, gpus_for_memory, memory_need, usable_gb
from optimizer.estimate.not_allowed import _NotAllowed
from optimizer.estimate.serving import decode_model, largest_batch
from optimizer.estimate.training import batch_gpu_hours_per_month, training_gpu_hours
from optimizer.results import EstimateSource, PairEstimate


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
