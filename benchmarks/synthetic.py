"""Random but reproducible scenarios for benchmarks: G GPU types, W workloads, T months.

``synthetic_scenario(gpus, workloads, months, seed)`` always returns the
same :class:`Scenario` for the same arguments. GPU types are drawn around
the catalog of the domain brief (VRAM 24–192 GB, 120–2,500 TFLOPS); each
has a buy, an on-demand and a 12-month reserved offer, some a spot offer
and some capped or late offers; workloads mix training, batch and realtime
kinds with random windows. Speeds come from the estimator, as in a real run.
"""

from __future__ import annotations

import random

from optimizer.domain import Assumptions, Gpu, Kind, Offer, OfferOption, Scenario, Workload

# (vram_gb, fp16_tflops, bandwidth_gbs, tdp_w, nvlink, buy USD, on-demand USD/h)
_ARCHETYPES = (
    (192, 2500, 8000, 1000, True, 47_500, 4.70),
    (141, 1000, 4800, 700, True, 35_000, 3.80),
    (80, 1000, 3350, 700, True, 25_000, 3.15),
    (80, 312, 2039, 300, True, 15_000, 0.72),
    (48, 366, 864, 350, False, 8_000, 1.50),
    (24, 330, 1008, 450, False, 1_600, 0.60),
    (24, 121, 300, 72, False, 2_500, 0.45),
)


def synthetic_scenario(gpus: int, workloads: int, months: int, seed: int = 0) -> Scenario:
    """A scenario of ``gpus`` types, ``workloads`` workloads and ``months`` months."""
    rng = random.Random(seed)
    gpu_rows: list[Gpu] = []
    offers: list[Offer] = []
    for i in range(gpus):
        vram, tflops, bw, tdp, nvlink, buy, od = _ARCHETYPES[i % len(_ARCHETYPES)]
        jitter = rng.uniform(0.85, 1.15)
        name = f"G{i:02d}"
        gpu_rows.append(
            Gpu(
                name=name,
                vram_gb=float(vram),
                fp16_tflops=tflops * jitter,
                memory_bandwidth_gbs=float(bw),
                tdp_w=float(tdp),
                nvlink=nvlink,
            )
        )

        def add(option: OfferOption, price: float, gpu: str = name, **kw: object) -> None:
            n = 1 + sum(1 for o in offers if o.gpu == gpu and o.option is option)
            offers.append(
                Offer(
                    offer_id=f"{gpu}|{option.value}|{n}",
                    gpu=gpu,
                    option=option,
                    price=round(price, 2),
                    **kw,  # type: ignore[arg-type]
                )
            )

        add(
            OfferOption.BUY,
            buy * rng.uniform(0.9, 1.1),
            available_from=rng.choice([1, 1, 1, min(4, months)]),
            max_units=rng.choice([None, None, 16, 64]),
        )
        add(OfferOption.ON_DEMAND, od * rng.uniform(0.9, 1.2), max_units=rng.choice([None, 32]))
        if months >= 12:
            add(OfferOption.RESERVED, od * rng.uniform(0.55, 0.75), term_months=12)
        if rng.random() < 0.6:
            add(OfferOption.SPOT, od * rng.uniform(0.3, 0.5), max_units=rng.choice([None, 16]))

    kinds = (
        Kind.REALTIME_INFERENCE,
        Kind.BATCH_INFERENCE,
        Kind.FINE_TUNING,
        Kind.LORA,
        Kind.PRETRAINING,
    )
    work: list[Workload] = []
    for j in range(workloads):
        kind = kinds[j % len(kinds)]
        params = rng.choice([1.0, 3.0, 7.0, 8.0, 13.0, 34.0, 70.0])
        start = rng.randint(1, max(1, months // 2))
        end = rng.randint(start, months) if kind.is_training else months
        if kind is Kind.REALTIME_INFERENCE:
            w = Workload(
                name=f"serve-{j:02d}",
                kind=kind,
                params_b=params,
                tokens_per_second=rng.choice([500.0, 2_000.0, 8_000.0, 20_000.0]),
                latency_ms=rng.choice([None, 50.0, 100.0]),
                start_month=start,
            )
        elif kind is Kind.BATCH_INFERENCE:
            w = Workload(
                name=f"batch-{j:02d}",
                kind=kind,
                params_b=params,
                tokens=rng.choice([1e9, 1e10, 5e10]),
                start_month=start,
                interruptible=rng.random() < 0.5,
            )
        else:
            w = Workload(
                name=f"train-{j:02d}",
                kind=kind,
                params_b=min(params, 13.0) if kind is Kind.PRETRAINING else params,
                tokens=rng.choice([1e9, 1e10, 5e10]) * (20 if kind is Kind.PRETRAINING else 1),
                start_month=start,
                end_month=end,
                interruptible=rng.random() < 0.5,
            )
        work.append(w)

    return Scenario(
        name=f"synthetic-{gpus}x{workloads}x{months}-s{seed}",
        horizon_months=months,
        gpus=tuple(gpu_rows),
        offers=tuple(offers),
        workloads=tuple(work),
        assumptions=Assumptions(discount_rate=0.08),
        budget_monthly=None,
        power_cap_kw=None,
    )
