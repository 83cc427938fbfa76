"""What each workload needs of each GPU type (model v2 §B–§D), from the pair estimates.

Takes a ``Scenario`` and the pair estimates; hands on, per training or batch
pair, its :class:`Gang` (copy width ``k_wg``, run GPU-hours ``R_wg``, copies
per gang ``m_wg`` and gang width ``n_wg``) and its work class in a finite
place; per realtime pair and allowed width, a replica's capacity; and the
useful hours a paid hour yields in a place (spot hours at ``spot_yield``).
Nothing here finds a violation; the rule modules read these figures.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from optimizer.check.capacity import offers_by_id
from optimizer.domain import Kind, OfferOption, Scenario, Workload
from optimizer.estimate.gangs import SpotRun, copies_per_gang, least_run_slot_gpus, spot_yield
from optimizer.results import Decisions, PairEstimate

# Work class of width-1 work without deadline slots (it uses a place's free GPUs).
FREE_CLASS = 0


@dataclass(frozen=True)
class Gang:
    """How one run of a training or batch workload holds GPUs of one type (model v2 §C).

    ``copy_width`` GPUs make one copy, ``copies`` copies run at once (more
    than one only where a deadline needs them), ``run_gpu_hours`` is a run's
    work: the whole job (one-off training), one run (``runs_per_month``
    given), or one month (batch without it).
    """

    copy_width: int
    run_gpu_hours: float
    copies: int

    @property
    def width(self) -> int:
        """Gang width ``n_wg = k_wg × m_wg``."""
        return self.copy_width * self.copies

    @property
    def work_class(self) -> int:
        """Slot class in a finite place: ``k`` for ``k >= 2``, 1 for a deadline's 1-GPU copies, else 0.

        Class 0 (:data:`FREE_CLASS`) is width-1 work without deadline slots.
        """
        if self.copy_width >= 2:
            return self.copy_width
        return 1 if self.copies >= 2 else FREE_CLASS


def gang_of(
    workload: Workload, estimate: PairEstimate | None, month: int | None = None
) -> Gang | None:
    """The pair's gang (in ``month``); None when the pair is not allowed or has no GPU-hours.

    A batch run's size follows the month's demand (model v2 §E), and the
    copies its deadline needs are counted against that month's run (§C:
    "computed per month"); ``run_gpu_hours`` stays the base month's run.
    """
    if estimate is None or not estimate.allowed or estimate.gpu_hours is None:
        return None
    k = estimate.gpus_per_replica or 1
    run = estimate.gpu_hours
    this_run = run
    if month is not None and workload.kind is Kind.BATCH_INFERENCE:
        this_run = run * workload.demand_factor(month)
    return Gang(k, run, copies_per_gang(this_run, k, workload.deadline_hours))


def gangs(
    scenario: Scenario, estimates: Sequence[PairEstimate]
) -> dict[tuple[str, str, int], Gang]:
    """Every allowed training and batch pair's gang in each month of its window,
    keyed (workload, gpu, month)."""
    workloads = {w.name: w for w in scenario.workloads}
    found: dict[tuple[str, str, int], Gang] = {}
    for e in estimates:
        w = workloads.get(e.workload)
        if w is None or w.kind is Kind.REALTIME_INFERENCE:
            continue
        for t in w.window(scenario.horizon_months):
            gang = gang_of(w, e, t)
            if gang is not None:
                found[e.workload, e.gpu, t] = gang
    return found


def useful_per_paid(scenario: Scenario, gpu: str, place: str, gang: Gang) -> float:
    """Useful hours one paid hour yields: ``spot_yield(spot_efficiency, n_wg, max_per_node)``
    on a spot offer, 1 anywhere else."""
    offer = offers_by_id(scenario).get(place)
    if offer is None or offer.option is not OfferOption.SPOT:
        return 1.0
    per_node = next((g.max_per_node for g in scenario.gpus if g.name == gpu), 1)
    return spot_yield(scenario.assumptions.spot_efficiency, gang.width, per_node)


def serving_capacity(estimates: Sequence[PairEstimate]) -> dict[tuple[str, str, int], float]:
    """Tokens/s of one replica per (workload, gpu, width), allowed widths only."""
    return {
        (e.workload, e.gpu, w.width): w.tokens_per_second_per_replica or 0.0
        for e in estimates
        for w in e.serving_widths()
    }


def month_run(workload: Workload, gang: Gang, month: int) -> float:
    """GPU-hours of one run in ``month``: a batch run follows the month's demand (v2 §E)."""
    if workload.kind is Kind.BATCH_INFERENCE:
        return gang.run_gpu_hours * workload.demand_factor(month)
    return gang.run_gpu_hours


def spot_place(scenario: Scenario, place: str) -> tuple[bool, int | None]:
    """Whether ``place`` is a spot offer, and its ``max_units`` (None: uncapped)."""
    offer = offers_by_id(scenario).get(place)
    if offer is None or offer.option is not OfferOption.SPOT:
        return False, None
    return True, offer.max_units


def spot_run(scenario: Scenario, workload: Workload, gang: Gang, gpu: str, month: int) -> SpotRun:
    """The gang's run of ``month`` as the spot rules see it (``gangs.SpotRun``)."""
    return SpotRun(
        month_run(workload, gang, month),
        gang.copy_width,
        gang.width,
        workload.deadline_hours,
        scenario.assumptions.spot_efficiency,
        scenario.gpu(gpu).max_per_node,
    )


def run_slot_widths_at(
    scenario: Scenario, workload: Workload, gang: Gang, gpu: str, place: str, month: int
) -> range | None:
    """Widths of the run slots the gang's runs take in ``place`` (a capped spot offer), or
    None where its copy width's slots hold (``SpotRun.run_slot_widths``)."""
    is_spot, cap = spot_place(scenario, place)
    if not is_spot:
        return None
    return spot_run(scenario, workload, gang, gpu, month).run_slot_widths(cap)


@dataclass(frozen=True)
class RunSlots:
    """Run slots a deadline gang's work needs on a capped spot offer (methodology 2.12)."""

    workload: str
    widths: range  # the widths a run slot may have
    gpus: int  # GPUs the fewest run slots that hold its hours take (``least_run_slot_gpus``)
    hours: float


def run_slots(
    scenario: Scenario, decisions: Decisions, pair_gangs: Mapping[tuple[str, str, int], Gang]
) -> dict[tuple[str, str, int, int], list[RunSlots]]:
    """Per (type, place, month, copy width), the run slots its gangs need there."""
    workloads = {w.name: w for w in scenario.workloads}
    H = scenario.assumptions.hours_per_month
    found: dict[tuple[str, str, int, int], list[RunSlots]] = defaultdict(list)
    for (name, gpu, place, t), hours in sorted(decisions.work.items()):
        gang = pair_gangs.get((name, gpu, t))
        w = workloads.get(name)
        if gang is None or w is None:
            continue
        widths = run_slot_widths_at(scenario, w, gang, gpu, place, t)
        if widths is not None:
            gpus = least_run_slot_gpus(hours, widths, H)
            found[gpu, place, t, gang.copy_width].append(RunSlots(name, widths, gpus, hours))
    return found


def class_work(
    scenario: Scenario, decisions: Decisions, pair_gangs: Mapping[tuple[str, str, int], Gang]
) -> dict[tuple[str, str, int], dict[int, float]]:
    """Paid work hours of each (type, place, month) by work class (see :attr:`Gang.work_class`;
    work in run slots counts in its copy width's class, whose slots hold them).

    Work of a pair without a gang (not allowed) is left out: the key rules report it.
    """
    workloads = {w.name: w for w in scenario.workloads}
    found: dict[tuple[str, str, int], dict[int, float]] = defaultdict(dict)
    for (name, gpu, place, t), hours in decisions.work.items():
        gang = pair_gangs.get((name, gpu, t))
        w = workloads.get(name)
        if gang is None or w is None:
            continue
        k = gang.work_class
        if run_slot_widths_at(scenario, w, gang, gpu, place, t) is not None:
            k = gang.copy_width
        by_class = found[gpu, place, t]
        by_class[k] = by_class.get(k, 0.0) + hours
    return found
