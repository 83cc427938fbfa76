"""What a fidelity row is and how its estimate is had (model v2 §G).

A :class:`Published` figure names the workload and GPU it was measured on, as
gpumix inputs, with its source; :func:`estimate` runs the same estimator the
planner runs on it. The ratio is estimate / published; a row's band says how
far the ratio may stray (±15 % unless ``why`` explains a wider band).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from optimizer.domain import Assumptions, Gpu, Workload
from optimizer.estimate.architecture import kv_bytes_per_token
from optimizer.estimate.memory import memory_need
from optimizer.estimate.pairs import estimate_pair
from optimizer.estimate.training import training_gpu_hours
from tests.builders import measured, scenario

A = Assumptions()
WITHIN = (0.85, 1.15)  # ±15 %


class Figure(StrEnum):
    TRAINING_GPU_HOURS = "training GPU-hours"
    PEAK_MEMORY_GB = "fine-tuning peak memory (GB)"
    DECODE_MS = "batch-1 decode (ms per token)"
    THROUGHPUT = "serving throughput (tokens/s)"
    KV_KIB = "KV cache (KiB per token)"


@dataclass(frozen=True)
class Published:
    """One published figure, the inputs that describe it, and its source."""

    name: str
    figure: Figure
    published: float
    source: str
    workload: Workload
    gpu: Gpu
    width: int = 1  # GPUs the figure was measured on (training: any; the job's MFU is whole-job)
    band: tuple[float, float] = WITHIN
    why: str = ""  # why the estimate may leave ±15 % (required for a wider band)


def estimate(row: Published) -> float:
    """gpumix's estimate of the figure, from the row's inputs and the default Assumptions."""
    w, g = row.workload, row.gpu
    if row.figure is Figure.TRAINING_GPU_HOURS:
        return training_gpu_hours(w, g, row.width, A)
    if row.figure is Figure.PEAK_MEMORY_GB:
        need = memory_need(w, A)
        assert need is not None
        return need.total_gb
    if row.figure is Figure.KV_KIB:
        return kv_bytes_per_token(w, A) / 1024
    pair = estimate_pair(
        scenario([g], [], [w], [measured(w.name, g.name, gpus_per_replica=row.width)]), w, g
    )
    assert pair.allowed, pair.reason
    if row.figure is Figure.DECODE_MS:
        assert pair.latency_ms is not None
        return pair.latency_ms
    assert pair.tokens_per_second_per_replica is not None
    return pair.tokens_per_second_per_replica


def ratio(row: Published) -> float:
    return estimate(row) / row.published


def within(row: Published, band: tuple[float, float] = WITHIN) -> bool:
    low, high = band
    return low <= ratio(row) <= high
