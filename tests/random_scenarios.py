"""Small random scenarios for the optimality and property tests.

Every speed comes from a measured Throughput row, so the estimates are exact
and the instances stay tiny: 1–3 GPU types, 1–3 months of 100 hours, one
training or batch job and sometimes a realtime service. Prices are positive
(the enumeration's bounds rely on that: an unneeded GPU always costs money).
"""

from __future__ import annotations

import random

from optimizer.domain import Assumptions, Gpu, Measurement, Offer, Scenario, Workload
from tests.builders import gpu, measured, offer, scenario, workload

HOURS_PER_MONTH = 100.0


def random_scenario(seed: int, *, longest_horizon: int = 3, extra_jobs: int = 0) -> Scenario:
    """One reproducible random scenario; the same arguments always give the same one.

    The defaults keep it small enough to enumerate (one flexible job, no
    monthly budget). ``extra_jobs`` adds that many training or batch jobs and
    sometimes a monthly budget: too big to enumerate, but fine for the checker.
    """
    rng = random.Random(seed)
    horizon = rng.randint(1, longest_horizon)
    discount_rate = rng.choice([0.0, 0.0, 0.10])
    assumptions = Assumptions(
        hours_per_month=HOURS_PER_MONTH,
        electricity_per_kwh=rng.choice([0.0, 0.10, 0.25]),
        pue=rng.choice([1.0, 1.3]),
        idle_power_fraction=rng.choice([0.0, 0.10]),
        maintenance_per_year=rng.choice([0.0, 0.06]),
        # 2 months: GPUs older than that are worth nothing at the horizon.
        depreciation_months=rng.choice([2.0, 12.0, 36.0]),
        residual_value=rng.choice(["market", "book", "none"]),
        resale_fraction=rng.choice([0.5, 0.9]),
        resale_decline_per_year=rng.choice([0.0, 0.3]),
        discount_rate=discount_rate,
        max_utilization=rng.choice([1.0, 0.8]),
        spot_efficiency=rng.choice([0.85, 0.5]),
    )
    gpus: list[Gpu] = []
    offers: list[Offer] = []
    for i in range(rng.randint(1, 3)):
        name = f"G{i}"
        gpus.append(gpu(name, tdp_w=rng.choice([300.0, 700.0, 1000.0])))
        offers += _random_offers(rng, name, horizon)
    workloads, measurements = _random_workloads(rng, [g.name for g in gpus], horizon)
    budgets: dict[str, float] = {}
    if rng.random() < 0.2:
        budgets["budget_capex"] = rng.choice([0.0, 1000.0, 2500.0])
    if rng.random() < 0.2:
        budgets["power_cap_kw"] = rng.choice([0.5, 1.5, 3.0])
    if rng.random() < 0.2 and discount_rate == 0.0:
        # The enumeration checks the total budget on the cheapest completion's
        # cash, which is the cheapest cash only when nothing is discounted.
        budgets["budget_total"] = rng.choice([500.0, 1500.0, 4000.0])
    for i in range(extra_jobs):
        more, more_measured = _random_job(rng, f"job{i}", [g.name for g in gpus], horizon)
        workloads.append(more)
        measurements += more_measured
    if extra_jobs and rng.random() < 0.3:
        budgets["budget_monthly"] = rng.choice([100.0, 300.0, 800.0])
    return scenario(
        gpus,
        offers,
        workloads,
        measurements,
        assumptions,
        name=f"random-{seed}",
        horizon_months=horizon,
        **budgets,
    )


def _random_offers(rng: random.Random, name: str, horizon: int) -> list[Offer]:
    found: list[Offer] = []
    if rng.random() < 0.6:
        found.append(
            offer(
                name,
                "buy",
                rng.choice([400.0, 900.0, 1500.0, 2500.0]),
                available_from=rng.choice([1, 1, min(2, horizon)]),
                max_units=rng.choice([None, None, 1]),
            )
        )
        if rng.random() < 0.2:
            found.append(offer(name, "buy", rng.choice([600.0, 1200.0]), n=2, max_units=1))
    if rng.random() < 0.8:
        found.append(
            offer(
                name,
                "on_demand",
                rng.choice([1.0, 2.5, 4.0, 6.0]),
                max_units=rng.choice([None, None, None, 1]),
                available_from=rng.choice([1, 1, 1, min(2, horizon)]),
            )
        )
        if rng.random() < 0.2:
            found.append(offer(name, "on_demand", rng.choice([3.0, 5.0]), n=2, max_units=1))
    if rng.random() < 0.4:
        found.append(offer(name, "spot", rng.choice([0.5, 1.5]), max_units=rng.choice([None, 1])))
    if rng.random() < 0.5:
        term = rng.randint(1, horizon)
        found.append(
            offer(
                name,
                "reserved",
                rng.choice([0.8, 2.0, 3.0]),
                term_months=term,
                available_from=rng.randint(1, horizon - term + 1),
                max_units=rng.choice([None, None, 1]),
            )
        )
        if rng.random() < 0.2:
            found.append(
                offer(name, "reserved", rng.choice([1.0, 2.5]), n=2, term_months=1, max_units=1)
            )
    return found


def _window(rng: random.Random, horizon: int) -> tuple[int, int]:
    start = rng.randint(1, horizon)
    return start, rng.randint(start, horizon)


def _random_workloads(
    rng: random.Random, gpu_names: list[str], horizon: int
) -> tuple[list[Workload], list[Measurement]]:
    workloads: list[Workload] = []
    measurements: list[Measurement] = []
    start, end = _window(rng, horizon)
    interruptible = rng.random() < 0.5
    if rng.random() < 0.5:
        workloads.append(
            workload(
                "train",
                "lora",
                tokens=1e6,
                vram_gb=10.0,
                start_month=start,
                end_month=end,
                interruptible=interruptible,
            )
        )
        for g in gpu_names:
            hours = rng.choice([30.0, 60.0, 150.0, 220.0])
            measurements.append(measured("train", g, gpus_per_replica=1, gpu_hours=hours))
    else:
        workloads.append(
            workload(
                "batch",
                "batch_inference",
                tokens=1e6,
                vram_gb=10.0,
                start_month=start,
                end_month=end,
                interruptible=interruptible,
            )
        )
        for g in gpu_names:
            # Nine GPUs per replica do not fit one 8-GPU server: the pair is ruled out.
            k = 9 if rng.random() < 0.2 else 1
            hours = rng.choice([20.0, 50.0, 90.0, 130.0])
            measurements.append(measured("batch", g, gpus_per_replica=k, gpu_hours=hours))
    if rng.random() < 0.5:
        start, end = _window(rng, horizon)
        workloads.append(
            workload(
                "chat",
                "realtime_inference",
                tokens_per_second=rng.choice([500.0, 1200.0, 2000.0]),
                vram_gb=10.0,
                start_month=start,
                end_month=end,
            )
        )
        for g in gpu_names:
            k = rng.choice([1, 1, 2, 9])
            tps = rng.choice([400.0, 700.0, 1500.0])
            measurements.append(
                measured("chat", g, gpus_per_replica=k, tokens_per_second_per_replica=tps)
            )
    return workloads, measurements


def _random_job(
    rng: random.Random, name: str, gpu_names: list[str], horizon: int
) -> tuple[Workload, list[Measurement]]:
    start, end = _window(rng, horizon)
    kind = rng.choice(["lora", "pretraining", "batch_inference"])
    job = workload(
        name,
        kind,
        tokens=1e6,
        vram_gb=10.0,
        start_month=start,
        end_month=end,
        interruptible=rng.random() < 0.5,
    )
    hours = [rng.choice([20.0, 60.0, 150.0]) for _ in gpu_names]
    return job, [
        measured(name, g, gpus_per_replica=1, gpu_hours=h)
        for g, h in zip(gpu_names, hours, strict=True)
    ]
