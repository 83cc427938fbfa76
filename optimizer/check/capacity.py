"""Capacity rules: the model's owned_capacity, reserved_capacity and pool_balance, and spot.

Takes a ``Scenario`` and the plan's ``Decisions``; hands on violation lines for
owned and reserved hours over capacity, workloads' hours that do not match the
hours supplied, and spot hours used by workloads that may not use them, plus
``_work_per_gpu`` (workloads' hours per type and month) for the reporting rules.
"""

from __future__ import annotations

from collections import defaultdict

from optimizer.check.money import (
    _rented_per_gpu,
    _reserved_per_gpu,
    active_reservations,
    owned_stock,
)
from optimizer.check.tolerances import HOURS_ABS_TOL, _h, hours_close, hours_exceed
from optimizer.domain import Kind, OfferOption, Scenario
from optimizer.results import Decisions


def _work_per_gpu(
    decisions: Decisions,
) -> tuple[dict[tuple[str, int], float], dict[tuple[str, int], float]]:
    hours: dict[tuple[str, int], float] = defaultdict(float)
    spot: dict[tuple[str, int], float] = defaultdict(float)
    for (_, gpu, t), work in decisions.work.items():
        hours[gpu, t] += work.hours
        spot[gpu, t] += work.spot_hours
    return hours, spot


def capacity_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """Pooled hours per type and month (accounting rule 5).

    Owned use ≤ ``max_utilization * H * owned``; reserved use ≤ ``H * active
    reservations``; the workloads' hours of a type equal its owned, reserved
    and on-demand hours; their spot hours equal the type's paid spot hours.
    """
    found: list[str] = []
    a = scenario.assumptions
    h = a.hours_per_month
    stock = owned_stock(scenario, decisions)
    reserved = _reserved_per_gpu(scenario, active_reservations(scenario, decisions))
    on_demand = _rented_per_gpu(scenario, decisions, OfferOption.ON_DEMAND)
    spot_paid = _rented_per_gpu(scenario, decisions, OfferOption.SPOT)
    work_hours, work_spot = _work_per_gpu(decisions)
    for g in scenario.gpus:
        for t in scenario.months:
            key = (g.name, t)
            owned = stock.get(key, 0.0)
            used_own = decisions.owned_hours.get(key, 0.0)
            used_res = decisions.reserved_hours.get(key, 0.0)
            limit_own = a.max_utilization * h * owned
            if hours_exceed(used_own, limit_own):
                found.append(
                    f"capacity: {g.name} month {t} uses {_h(used_own)} owned hours, more than "
                    f"max_utilization {a.max_utilization:g} × {_h(h)} h × {owned:g} owned = {_h(limit_own)} h"
                )
            limit_res = h * reserved.get(key, 0.0)
            if hours_exceed(used_res, limit_res):
                found.append(
                    f"capacity: {g.name} month {t} uses {_h(used_res)} reserved hours, more than "
                    f"{_h(h)} h × {reserved.get(key, 0.0):g} active reservations = {_h(limit_res)} h"
                )
            supplied = used_own + used_res + on_demand.get(key, 0.0)
            if not hours_close(work_hours.get(key, 0.0), supplied):
                found.append(
                    f"capacity: {g.name} month {t}: workloads use {_h(work_hours.get(key, 0.0))} h but "
                    f"owned {_h(used_own)} + reserved {_h(used_res)} + on-demand "
                    f"{_h(on_demand.get(key, 0.0))} = {_h(supplied)} h"
                )
            if not hours_close(work_spot.get(key, 0.0), spot_paid.get(key, 0.0)):
                found.append(
                    f"capacity: {g.name} month {t}: workloads use {_h(work_spot.get(key, 0.0))} spot "
                    f"hours but {_h(spot_paid.get(key, 0.0))} spot hours are paid"
                )
    return found


def spot_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """Spot capacity serves only interruptible workloads, and never realtime ones."""
    found: list[str] = []
    workloads = {w.name: w for w in scenario.workloads}
    for (name, gpu, t), work in sorted(decisions.work.items()):
        w = workloads.get(name)
        if w is None or work.spot_hours <= HOURS_ABS_TOL:
            continue
        if w.kind is Kind.REALTIME_INFERENCE:
            found.append(
                f"spot: realtime workload {name} uses {_h(work.spot_hours)} spot hours on {gpu} in month {t}"
            )
        elif not w.interruptible:
            found.append(
                f"spot: {name} is not interruptible but uses {_h(work.spot_hours)} spot hours "
                f"on {gpu} in month {t}"
            )
    return found
