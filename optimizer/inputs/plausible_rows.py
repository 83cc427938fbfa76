"""Warnings for GPU and workload figures that are allowed but no real one has.

The new user's slips that validated "OK" (issue 33 item 12): a
``growth_per_month`` of 4 where 0.04 was meant (demand ×5 a month) and a
``vram_gb`` of 80000 (typed in MB). Like ``plausible`` does for Assumptions,
each such cell gets one warning naming the file, sheet and cell, the value
and what it implies; gpumix plans with it as given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from pathlib import Path

from optimizer.domain import Gpu, Kind, Workload
from optimizer.inputs.cells import SheetRow

# A year's growth past this many times today's demand is not a plan, it is a typo.
MAX_PLAUSIBLE_YEAR_GROWTH = 10.0
# The largest figures of GPUs made or announced (2026): AMD MI450X 432 GB of HBM4,
# NVIDIA Rubin about 22 TB/s and 1,800 W; dense FP16 about 2,500 TFLOPS (B300).
# Twice as much is far beyond any; a figure typed in the wrong unit is 1,000 times.
_GPU_CHECKS: Mapping[str, tuple[Callable[[float], bool], str]] = {
    "vram_gb": (
        lambda v: v > 1_000,
        "more memory than any GPU made (the largest hold 432 GB); is it in MB?",
    ),
    "fp16_tflops": (
        lambda v: v > 10_000,
        "more than any GPU computes (about 2,500 dense FP16 TFLOPS at most); "
        "is it a sparse or FP4 figure, or in GFLOPS?",
    ),
    "memory_bandwidth_gbs": (
        lambda v: v > 50_000,
        "more bandwidth than any GPU has (about 22,000 GB/s at most); is it in MB/s?",
    ),
    "tdp_w": (
        lambda v: v > 5_000 or v < 10,
        "unlike any GPU's board power (75 to 1,800 W); is it in kW or mW?",
    ),
}


def _place(where: SheetRow, column: str) -> str:
    cell = where.cell(column)
    return f"{Path(where.file).name}, sheet {where.sheet}" + (f", cell {cell}" if cell else "")


def _warning(place: str, column: str, value: float, why: str) -> str:
    return (
        f"warning: {place}: {column} is {value:,g}, {why}; "
        "gpumix plans with it as given, check it is not a typo"
    )


def implausible_gpus(
    gpus: Iterable[Gpu],
    rows: Mapping[str, SheetRow],
    warned: AbstractSet[tuple[str, str]] = frozenset(),
) -> list[str]:
    """One warning per GPU figure no GPU made has, naming its cell; none for the
    (GPU, column) cells in ``warned`` (the GPU catalogue's warning already names them)."""
    found = []
    for gpu in gpus:
        where = rows.get(gpu.name)
        if where is None:
            continue
        for column, (implausible, why) in _GPU_CHECKS.items():
            value = getattr(gpu, column)
            if (gpu.name, column) in warned:
                continue
            if value is not None and implausible(float(value)):
                found.append(_warning(_place(where, column), column, value, why))
    return found


def growth_warning(place: str, growth: float) -> str | None:
    """A warning for a growth rate that multiplies demand more than tenfold a year, or None."""
    year = (1.0 + growth) ** 12
    if year <= MAX_PLAUSIBLE_YEAR_GROWTH:
        return None
    return _warning(
        place,
        "growth_per_month",
        growth,
        f"which multiplies demand by {year:,.4g} in a year (×{1 + growth:g} a month; "
        "fractions are plain numbers: 0.04 is 4 % a month)",
    )


def implausible_workloads(workloads: Iterable[Workload], rows: Mapping[str, SheetRow]) -> list[str]:
    """One warning per workload whose growth multiplies demand more than tenfold a year."""
    found = []
    for w in workloads:
        where = rows.get(w.name)
        if where is None or w.kind not in (Kind.REALTIME_INFERENCE, Kind.BATCH_INFERENCE):
            continue
        warning = growth_warning(_place(where, "growth_per_month"), w.growth_per_month)
        if warning is not None:
            found.append(warning)
    return found
