"""What each workload needs on each GPU type, computed before the solve.

model.md, "Per workload × GPU type": memory need, GPUs per replica, scaling
efficiency, and the work rate (training GPU-hours of the whole job or of one
run, batch GPU-hours per month or per run, or a realtime replica's tokens per
second). A measured ``Throughput`` row is final and replaces the estimate.
Every choice the contract leaves open is written down in
``docs/methodology.md``; the fixed engineering estimates in ``memory`` and
``training`` are the only factors that are not Assumptions keys. The figures
come from ``memory``, ``training``, ``serving`` and ``widths`` (a realtime
pair's serving widths, model v2 §D); ``deadlines`` rules out a pair whose
deadline gang no place can hold (model v2 §C). This module puts them together
per pair, allowed or why not.

Units: GB are 10⁹ bytes (as datasheets count VRAM), KiB are 1,024 bytes,
``params_b`` is billions of parameters, times are seconds unless named ``_ms``.
"""

from __future__ import annotations

from dataclasses import replace

from optimizer.domain import Assumptions, Gpu, Kind, Measurement, Scenario, Workload
from optimizer.estimate.architecture import assumed_values
from optimizer.estimate.deadlines import gang_reason
from optimizer.estimate.memory import MemoryNeed, gpus_for_memory, memory_need, usable_gb
from optimizer.estimate.not_allowed import _NotAllowed
from optimizer.estimate.training import batch_gpu_hours_per_month, training_gpu_hours
from optimizer.estimate.widths import (
    candidate_widths,
    estimated_widths,
    none_fast_enough,
    width_figures,
)
from optimizer.results import EstimateSource, PairEstimate, ServingWidth


def estimate_pairs(scenario: Scenario) -> tuple[PairEstimate, ...]:
    """Every workload × GPU type of the scenario: workloads in order, GPUs in order."""
    return tuple(estimate_pair(scenario, w, g) for w in scenario.workloads for g in scenario.gpus)


def estimate_pair(scenario: Scenario, workload: Workload, gpu: Gpu) -> PairEstimate:
    """What ``workload`` needs on ``gpu``: allowed or why not, in numbers, and on what basis."""
    pair = _estimate_pair(scenario, workload, gpu)
    measured = scenario.measurement(workload.name, gpu.name)
    return replace(pair, basis=basis(workload, measured))


def basis(workload: Workload, measured: Measurement | None) -> str:
    """Which figures of a pair were given, measured or estimated, and what was assumed.

    ``"estimated: memory need, GPU-hours; assumed: layers estimated from params_b (33)"``.
    """
    speed = _measured_speed(workload, measured)
    k_measured = measured is not None and measured.gpus_per_replica is not None
    realtime = workload.kind is Kind.REALTIME_INFERENCE
    speed_name = "capacity and batch-1 latency" if realtime else "GPU-hours"
    given, estimated = [], []
    if workload.vram_gb is not None:
        given.append("memory need (vram_gb)")
    elif not k_measured:
        estimated.append("memory need")
    if k_measured:
        given.append("GPUs per replica (measured)")
    if speed is not None:
        given.append(f"{speed_name} (measured)")
    else:
        estimated.append(speed_name)
    parts = []
    if given:
        parts.append("given: " + ", ".join(given))
    if estimated:
        parts.append("estimated: " + ", ".join(estimated))
        # Architecture values feed the speed estimate (and a realtime memory need's KV cache).
        uses_architecture = speed is None or (realtime and "memory need" in estimated)
        assumed = assumed_values(workload) if uses_architecture else ()
        if assumed:
            parts.append("assumed: " + "; ".join(assumed))
    return "; ".join(parts)


def _estimate_pair(scenario: Scenario, workload: Workload, gpu: Gpu) -> PairEstimate:
    a = scenario.assumptions
    measured = scenario.measurement(workload.name, gpu.name)
    speed = _measured_speed(workload, measured)
    source = EstimateSource.ESTIMATED if speed is None else EstimateSource.MEASURED
    measured_k = measured.gpus_per_replica if measured is not None else None
    memory = memory_need(workload, a)
    k = measured_k
    try:
        if k is None:
            k = gpus_for_memory(_known(memory), gpu, a)
        if workload.kind.is_inference and k > gpu.max_per_node:
            raise _NotAllowed(_server_reason(memory, k, gpu, a, measured=measured_k is not None))
        if (
            workload.kind is Kind.REALTIME_INFERENCE
            and measured_k is not None
            and gpu.max_per_node % measured_k
        ):
            # model v2 §B, §D: a measured serving width divides the server (the reader
            # refuses such a Throughput row; a scenario built in code meets this
            # instead). A memory estimate k_min need not: the allowed widths are the
            # divisors of max_per_node at least k_min (4 for k_min 3 on 8-GPU servers).
            raise _NotAllowed(
                f"the measured replica of {k} GPUs does not divide one server of "
                f"{gpu.max_per_node} × {gpu.name}, so its replicas would not pack into servers"
            )
        if workload.kind is Kind.REALTIME_INFERENCE:
            return _realtime(workload, gpu, k, memory, speed, measured_k is not None, a, source)
        hours = speed
        if hours is None:
            if workload.kind.is_training:
                hours = training_gpu_hours(workload, gpu, k, a)
            else:
                hours = batch_gpu_hours_per_month(workload, gpu, k, a)
        # One run: the whole one-off job, one of runs_per_month, or a month of batch.
        too_wide = gang_reason(scenario, workload, gpu, k, hours)
        if too_wide is not None:
            raise _NotAllowed(too_wide)
        return _pair(workload, gpu, memory, k, hours, None, None, source)
    except _NotAllowed as why:
        return _ruled_out(workload, gpu, memory, k, str(why), why.latency_ms, source)


def _realtime(
    workload: Workload,
    gpu: Gpu,
    k: int,
    memory: MemoryNeed | None,
    speed: float | None,
    fixed: bool,
    a: Assumptions,
    source: EstimateSource,
) -> PairEstimate:
    """A realtime pair from its serving widths (model v2 §D), narrowest allowed first.

    ``k`` is the measured ``gpus_per_replica`` when ``fixed``, else the memory
    estimate's ``k_min``. A measured capacity is final: it was taken at the
    measured width, or else at the narrowest width, and skips the latency check.
    """
    if speed is not None:
        width = k if fixed else candidate_widths(k, gpu.max_per_node)[0]
        only = ServingWidth(width, True, "", speed, None)
        return _pair(workload, gpu, memory, width, None, speed, None, source, (only,))
    need = _known(memory)
    if fixed:
        if need.spare_gb(k, gpu, a) < 0:
            replica_gb = k * need.room_gb(gpu, a)
            raise _NotAllowed(
                f"{need.detail}; the measured {k} × {gpu.name} hold {replica_gb:,.1f} GB usable"
            )
        widths: tuple[ServingWidth, ...] = (width_figures(workload, gpu, k, need, a),)
    else:
        widths = estimated_widths(workload, gpu, k, need, a)
    chosen = next((w for w in widths if w.allowed), None)
    if chosen is None:
        # Dominance needs an allowed narrower width: here every width missed the target.
        widest = widths[-1]
        why = widest.reason if fixed else none_fast_enough(widest, gpu, workload.latency_ms)
        return _ruled_out(
            workload, gpu, memory, widest.width, why, widest.latency_ms, source, widths
        )
    return _pair(
        workload,
        gpu,
        memory,
        chosen.width,
        None,
        chosen.tokens_per_second_per_replica,
        chosen.latency_ms,
        source,
        widths,
    )


def _pair(
    workload: Workload,
    gpu: Gpu,
    memory: MemoryNeed | None,
    k: int | None,
    gpu_hours: float | None,
    tokens_per_second: float | None,
    latency_ms: float | None,
    source: EstimateSource,
    widths: tuple[ServingWidth, ...] = (),
) -> PairEstimate:
    return PairEstimate(
        workload=workload.name,
        gpu=gpu.name,
        allowed=True,
        reason="",
        memory_gb=_memory_gb(memory, k),
        gpus_per_replica=k,
        gpu_hours=gpu_hours,
        tokens_per_second_per_replica=tokens_per_second,
        latency_ms=latency_ms,
        source=source,
        widths=widths,
    )


def _ruled_out(
    workload: Workload,
    gpu: Gpu,
    memory: MemoryNeed | None,
    k: int | None,
    reason: str,
    latency_ms: float | None,
    source: EstimateSource,
    widths: tuple[ServingWidth, ...] = (),
) -> PairEstimate:
    """A pair that cannot run: no speed, and why in numbers."""
    allowed = _pair(workload, gpu, memory, k, None, None, latency_ms, source, widths)
    return replace(allowed, allowed=False, reason=reason)


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


def _memory_gb(memory: MemoryNeed | None, k: int | None) -> float | None:
    """The replica's whole need: shared memory plus the runtime on each of its ``k`` GPUs."""
    if memory is None:
        return None
    return memory.total_gb + (k or 1) * memory.per_gpu_gb


def _known(memory: MemoryNeed | None) -> MemoryNeed:
    if memory is None:
        raise _NotAllowed(
            "params_b is missing: the memory estimate needs it (or vram_gb, or a measured gpus_per_replica)"
        )
    return memory
