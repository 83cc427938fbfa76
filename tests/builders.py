"""Small scenarios built directly as typed objects, for tests of later stages.

Tests of the estimator, model, solver, checker and writers use these rather
than workbooks, so a failure points at the stage under test.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from optimizer.domain import (
    Assumptions,
    Gpu,
    Kind,
    Measurement,
    Offer,
    OfferOption,
    Precision,
    Scenario,
    Workload,
)

# Assumptions with every running cost and credit switched off, so that hand
# arithmetic from the guide holds exactly.
BARE = Assumptions(
    electricity_per_kwh=0.0,
    maintenance_per_year=0.0,
    credit_residual_value=False,
    max_utilization=1.0,
    idle_power_fraction=0.0,
)


def gpu(name: str = "H100", **kw: Any) -> Gpu:
    base: dict[str, Any] = dict(
        vram_gb=80.0, fp16_tflops=989.0, memory_bandwidth_gbs=3350.0, tdp_w=700.0, nvlink=True
    )
    base.update(kw)
    return Gpu(name=name, **base)


def l40s(**kw: Any) -> Gpu:
    """An L40S as the buying guide lists it (48 GB, 362 TFLOPS, 864 GB/s, 350 W, PCIe)."""
    base: dict[str, Any] = dict(
        vram_gb=48.0, fp16_tflops=362.0, memory_bandwidth_gbs=864.0, tdp_w=350.0, nvlink=False
    )
    base.update(kw)
    return gpu("L40S", **base)


def offer(gpu_name: str, option: str, price: float, n: int = 1, **kw: Any) -> Offer:
    opt = OfferOption(option)
    return Offer(
        offer_id=f"{gpu_name}|{opt.value}|{n}", gpu=gpu_name, option=opt, price=price, **kw
    )


def workload(name: str, kind: str, **kw: Any) -> Workload:
    if "precision" in kw and isinstance(kw["precision"], str):
        kw["precision"] = Precision(kw["precision"])
    return Workload(name=name, kind=Kind(kind), **kw)


def measured(workload_name: str, gpu_name: str, **kw: Any) -> Measurement:
    return Measurement(workload=workload_name, gpu=gpu_name, **kw)


def scenario(
    gpus: list[Gpu],
    offers: list[Offer],
    workloads: list[Workload],
    measurements: list[Measurement] | None = None,
    assumptions: Assumptions | None = None,
    **kw: Any,
) -> Scenario:
    return Scenario(
        name=kw.pop("name", "test"),
        gpus=tuple(gpus),
        offers=tuple(offers),
        workloads=tuple(workloads),
        measurements=tuple(measurements or ()),
        assumptions=assumptions or Assumptions(),
        **kw,
    )


def with_assumptions(s: Scenario, **kw: Any) -> Scenario:
    return replace(s, assumptions=replace(s.assumptions, **kw))
