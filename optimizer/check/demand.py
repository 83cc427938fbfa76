"""Demand rules: the model's training_demand, batch_demand and realtime_demand.

Takes a ``Scenario``, the plan's ``Decisions`` and the pair estimates; hands on
violation lines for work outside a workload's window or on a pair not allowed,
training jobs without their exact GPU-hours on one picked type, batch months
short of their work, realtime months short of replicas, and picks or replicas
given to the wrong kind of workload.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from optimizer.check.tolerances import HOURS_ABS_TOL, HOURS_REL_TOL, _h, hours_close
from optimizer.domain import Kind, Scenario, Workload
from optimizer.results import Decisions, PairEstimate


def demand_violations(
    scenario: Scenario, decisions: Decisions, estimates: Sequence[PairEstimate]
) -> list[str]:
    """Every workload's work is done, inside its window, on allowed pairs only."""
    found: list[str] = []
    pairs = {(e.workload, e.gpu): e for e in estimates}
    gpu_names = [g.name for g in scenario.gpus]
    eff = scenario.assumptions.spot_efficiency
    for w in scenario.workloads:
        window = w.window(scenario.horizon_months)
        used_pairs = {
            (gpu, t)
            for (name, gpu, t), work in decisions.work.items()
            if name == w.name and (work.hours > HOURS_ABS_TOL or work.spot_hours > HOURS_ABS_TOL)
        }
        used_pairs |= {
            (gpu, t) for (name, gpu, t), n in decisions.replicas.items() if name == w.name and n > 0
        }
        for gpu, t in sorted(used_pairs):
            estimate = pairs.get((w.name, gpu))
            if estimate is None or not estimate.allowed:
                why = "no estimate" if estimate is None else estimate.reason
                found.append(
                    f"demand: {w.name} runs on {gpu} in month {t}, a pair not allowed ({why})"
                )
            if t not in window:
                found.append(
                    f"demand: {w.name} runs on {gpu} in month {t}, outside its window "
                    f"{window.start}..{window.stop - 1}"
                )
        if w.kind.is_training:
            found += _training_demand(w, window, decisions, pairs, eff)
        elif w.kind is Kind.BATCH_INFERENCE:
            found += _batch_demand(w, window, gpu_names, decisions, pairs, eff)
        else:
            found += _realtime_demand(
                w, window, gpu_names, decisions, pairs, scenario.assumptions.hours_per_month
            )
    kinds = {w.name: w.kind for w in scenario.workloads}
    for name in decisions.picks:
        if name in kinds and not kinds[name].is_training:
            found.append(
                f"picks: {name} is {kinds[name].value}, only training jobs pick one GPU type"
            )
    for (name, gpu, t), n in sorted(decisions.replicas.items()):
        if name in kinds and kinds[name] is not Kind.REALTIME_INFERENCE and n != 0:
            found.append(
                f"replicas: {name} is {kinds[name].value}, only realtime work has replicas "
                f"({n} on {gpu} in month {t})"
            )
    return found


def _work_done(work_hours: float, spot_hours: float, spot_efficiency: float) -> float:
    """Work of paid hours: a spot hour yields ``spot_efficiency`` hours of work."""
    return work_hours + spot_efficiency * spot_hours


def _training_demand(
    w: Workload,
    window: range,
    decisions: Decisions,
    pairs: Mapping[tuple[str, str], PairEstimate],
    eff: float,
) -> list[str]:
    """One picked type, and the job's whole GPU-hours on it inside its window."""
    picked = decisions.picks.get(w.name)
    if picked is None:
        return [f"demand: training job {w.name} has no picked GPU type"]
    found: list[str] = []
    for (name, gpu, t), work in sorted(decisions.work.items()):
        if (
            name == w.name
            and gpu != picked
            and (work.hours > HOURS_ABS_TOL or work.spot_hours > HOURS_ABS_TOL)
        ):
            found.append(
                f"demand: training job {w.name} picked {picked} but runs on {gpu} in month {t}"
            )
    estimate = pairs.get((w.name, picked))
    if estimate is None or not estimate.allowed or estimate.gpu_hours is None:
        return [*found, f"demand: training job {w.name} picked {picked}, a pair not allowed"]
    done = sum(
        _work_done(work.hours, work.spot_hours, eff)
        for (name, gpu, t), work in decisions.work.items()
        if name == w.name and gpu == picked and t in window
    )
    if not hours_close(done, estimate.gpu_hours):
        found.append(
            f"demand: training job {w.name} gets {_h(done)} GPU-hours of work on {picked} in months "
            f"{window.start}..{window.stop - 1}, needs exactly {_h(estimate.gpu_hours)}"
        )
    return found


def _batch_demand(
    w: Workload,
    window: range,
    gpu_names: Iterable[str],
    decisions: Decisions,
    pairs: Mapping[tuple[str, str], PairEstimate],
    eff: float,
) -> list[str]:
    """Every month of the window: ``sum_g work / gh_g >= 1`` (types may mix)."""
    found: list[str] = []
    for t in window:
        share = 0.0
        for gpu in gpu_names:
            work = decisions.work.get((w.name, gpu, t))
            estimate = pairs.get((w.name, gpu))
            if work is None or estimate is None or not estimate.allowed or not estimate.gpu_hours:
                continue
            share += _work_done(work.hours, work.spot_hours, eff) / estimate.gpu_hours
        if share < 1.0 - HOURS_REL_TOL:
            found.append(
                f"demand: batch job {w.name} in month {t} gets {share:.6%} of its monthly work"
            )
    return found


def _realtime_demand(
    w: Workload,
    window: range,
    gpu_names: Iterable[str],
    decisions: Decisions,
    pairs: Mapping[tuple[str, str], PairEstimate],
    h: float,
) -> list[str]:
    """Every month of the window, enough replicas; each type's hours = replicas × k × H."""
    found: list[str] = []
    demand = w.tokens_per_second or 0.0
    for t in window:
        served = 0.0
        for gpu in gpu_names:
            replicas = decisions.replicas.get((w.name, gpu, t), 0)
            work = decisions.work.get((w.name, gpu, t))
            hours = work.hours if work is not None else 0.0
            estimate = pairs.get((w.name, gpu))
            if estimate is None or not estimate.allowed:
                continue
            k = estimate.gpus_per_replica or 1
            served += (estimate.tokens_per_second_per_replica or 0.0) * replicas
            if not hours_close(hours, replicas * k * h):
                found.append(
                    f"demand: realtime {w.name} on {gpu} in month {t} uses {_h(hours)} h, but "
                    f"{replicas} replicas × {k} GPUs × {_h(h)} h = {_h(replicas * k * h)} h"
                )
        if served < demand * (1.0 - HOURS_REL_TOL):
            found.append(
                f"demand: realtime {w.name} in month {t} serves {served:,.6g} tokens/s, "
                f"needs {demand:,.6g}"
            )
    return found
