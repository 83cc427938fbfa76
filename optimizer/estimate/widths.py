"""Serving widths: the GPUs per replica a realtime pair may use (model v2 §D).

Takes a realtime ``domain.Workload``, a ``domain.Gpu``, its memory need and the
``Assumptions``; hands on one ``results.ServingWidth`` per width looked at to
``pairs``. The widths are the divisors of ``max_per_node`` that hold the model
(tensor parallelism splits attention heads evenly). Each width has its own
capacity (tokens/s at the largest batch memory and the latency target allow,
prefill included, ``serving``'s estimate) and batch-1 latency; a width that misses the
target is left out, and so is a width ``m × k`` that serves no more than ``m``
replicas of an allowed width ``k`` on the same GPUs (no optimum is lost).
"""

from __future__ import annotations

import math
from dataclasses import replace

from optimizer.domain import Assumptions, Gpu, Workload
from optimizer.estimate.memory import GB, MemoryNeed
from optimizer.estimate.serving import decode_model, largest_batch
from optimizer.results import ServingWidth


def candidate_widths(k_min: int, max_per_node: int) -> tuple[int, ...]:
    """Divisors of ``max_per_node`` that are at least ``k_min``, narrowest first."""
    return tuple(d for d in range(max(1, k_min), max_per_node + 1) if max_per_node % d == 0)


def width_figures(
    workload: Workload, gpu: Gpu, k: int, memory: MemoryNeed, a: Assumptions
) -> ServingWidth:
    """Capacity and batch-1 latency of a replica of ``k`` GPUs (``k`` must hold the model).

    Not allowed, with the numbers, when batch-1 decode misses ``latency_ms``;
    its capacity is then None and its latency the batch-1 step.
    """
    decode = decode_model(workload, gpu, k, a)
    # The need holds one longest sequence; the rest of the replica holds
    # average sequences (prompt + output / 2 of cache each).
    spare_sequences = memory.spare_gb(k, gpu, a) * GB / decode.sequence_kv_bytes
    memory_batch = 1 + math.floor(round(spare_sequences, 9))
    step1_ms = decode.step_seconds(1) * 1000.0
    target = workload.latency_ms
    if target is not None and step1_ms > target:
        reason = (
            f"batch-1 decode takes {step1_ms:,.1f} ms per token on {k} × {gpu.name},"
            f" above the {target:g} ms target"
        )
        return ServingWidth(k, False, reason, None, step1_ms)
    batch = largest_batch(decode, memory_batch, target)
    return ServingWidth(k, True, "", decode.tokens_per_second(batch), step1_ms)


def without_dominated(widths: tuple[ServingWidth, ...], gpu_name: str) -> tuple[ServingWidth, ...]:
    """Leave out each width ``m × k`` with ``cap_mk <= m × cap_k`` for a narrower allowed ``k``.

    ``widths`` are narrowest first. Comparing with the widths kept is enough:
    dominance carries over (``j | k | mk`` and ``cap_k <= (k / j) cap_j``).
    The reason names the narrowest width that dominates.
    """
    kept: list[ServingWidth] = []
    out: list[ServingWidth] = []
    for w in widths:
        if w.allowed and w.tokens_per_second_per_replica is not None:
            cap = w.tokens_per_second_per_replica
            for narrow in kept:
                narrow_cap = narrow.tokens_per_second_per_replica or 0.0
                m = w.width // narrow.width
                if w.width % narrow.width == 0 and cap <= m * narrow_cap:
                    reason = (
                        f"{w.width} × {gpu_name} serves {cap:,.0f} tokens/s, no more than"
                        f" {m} replicas of {narrow.width} × {gpu_name} ({m * narrow_cap:,.0f})"
                    )
                    w = replace(w, allowed=False, reason=reason)
                    break
            else:
                kept.append(w)
        out.append(w)
    return tuple(out)


def estimated_widths(
    workload: Workload, gpu: Gpu, k_min: int, memory: MemoryNeed, a: Assumptions
) -> tuple[ServingWidth, ...]:
    """Every width from ``k_min`` up to one server, with the dominated ones left out."""
    widths = tuple(
        width_figures(workload, gpu, k, memory, a)
        for k in candidate_widths(k_min, gpu.max_per_node)
    )
    return without_dominated(widths, gpu.name)


def none_fast_enough(widest: ServingWidth, gpu: Gpu, target: float | None) -> str:
    """Why a pair is out when even its widest width (one server) misses the latency target."""
    return (
        f"batch-1 decode takes {widest.latency_ms or 0.0:,.1f} ms per token even on"
        f" {widest.width} × {gpu.name} (one server), above the {target:g} ms target"
    )
