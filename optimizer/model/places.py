"""Places (model v2 §A) and the per-pair figures the v2 rules need, free of PuLP.

Takes a scenario's offers and ``results.PairEstimate`` rows; hands on
:class:`Place` (the house of a GPU type, or one reserved, on-demand or spot
offer) with its size limit and working share, and :class:`PairFigures` (copy
width, GPU-hours of one run, copies per gang, spot yield, runs a month). The
model builds its variables and rows from these; plan assembly reads places
back through the same names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from optimizer.domain import Assumptions, Gpu, Kind, Offer, OfferOption, Workload
from optimizer.estimate.gangs import SpotRun, copies_per_gang, spot_yield
from optimizer.results import HOUSE, PairEstimate


@dataclass(frozen=True)
class Place:
    """Where a replica or a gang of GPU type ``gpu`` runs wholly (model v2 §A).

    ``key`` is :data:`~optimizer.results.HOUSE` or the offer id; ``lp`` is the
    short name used in LP names (``h`` or ``o<position>``).
    """

    gpu: str
    key: str
    offer: Offer | None
    lp: str
    # Most GPUs the place can ever hold (None: no limit). For the house, the
    # sum of its buy offers' max_units.
    most_gpus: int | None

    @property
    def is_house(self) -> bool:
        return self.offer is None

    @property
    def is_reserved(self) -> bool:
        return self.offer is not None and self.offer.option is OfferOption.RESERVED

    @property
    def is_rental(self) -> bool:
        return self.offer is not None and self.offer.option in (
            OfferOption.ON_DEMAND,
            OfferOption.SPOT,
        )

    @property
    def is_spot(self) -> bool:
        return self.offer is not None and self.offer.option is OfferOption.SPOT

    @property
    def finite(self) -> bool:
        """House, reserved offers and capped rental offers: the §B and §C rules hold here."""
        return not self.is_rental or (self.offer is not None and self.offer.max_units is not None)

    def utilization(self, a: Assumptions) -> float:
        """Share of a month's hours one GPU of the place can work (§A)."""
        return 1.0 if self.is_rental else a.max_utilization

    def holds(self, gpus: int) -> bool:
        return self.most_gpus is None or gpus <= self.most_gpus


def places_of(gpu: str, offers: Sequence[Offer], positions: dict[str, int]) -> list[Place]:
    """The places of ``gpu`` among ``offers``: the house (if it can be bought), then each offer."""
    buys = [o for o in offers if o.gpu == gpu and o.option is OfferOption.BUY]
    places: list[Place] = []
    if buys:
        caps = [o.max_units for o in buys]
        most = None if any(c is None for c in caps) else sum(c or 0 for c in caps)
        places.append(Place(gpu, HOUSE, None, "h", most))
    for o in offers:
        if o.gpu == gpu and o.option is not OfferOption.BUY:
            places.append(Place(gpu, o.offer_id, o, f"o{positions[o.offer_id]}", o.max_units))
    return places


@dataclass(frozen=True)
class PairFigures:
    """What the v2 rules need of one training or batch workload on one GPU type."""

    copy_width: int  # GPUs one copy of the model needs (k)
    run_gpu_hours: float  # one run (one-off training: the whole job; batch: a month), base month
    copies: int  # copies that run at once (m) in the base month; > 1 only for a deadline
    runs_per_month: float  # recurring work; 0 for a one-off training job
    # Copies by month where a deadline gang's run grows or shrinks with the
    # month's demand (batch, model v2 §C "computed per month"): month -> m.
    copies_by_month: tuple[tuple[int, int], ...] = ()

    def copies_in(self, month: int) -> int:
        """Copies of one run at once in ``month`` (its deadline against that month's run)."""
        for t, m in self.copies_by_month:
            if t == month:
                return m
        return self.copies

    def gang_width_in(self, month: int) -> int:
        return self.copy_width * self.copies_in(month)

    def slot_width_in(self, month: int) -> int | None:
        """The slot class its work belongs to in a finite place (None: the width-1 free GPUs).

        Width-1 work whose deadline needs several copies at once holds slots of its own.
        """
        if self.copy_width >= 2 or self.copies_in(month) >= 2:
            return self.copy_width
        return None

    def spot_yield_in(self, gpu: Gpu, a: Assumptions, month: int) -> float:
        return spot_yield(a.spot_efficiency, self.gang_width_in(month), gpu.max_per_node)

    def run_in(self, workload: Workload, month: int) -> float:
        """GPU-hours of one run in ``month`` (a batch run follows the month's demand)."""
        if workload.kind is Kind.BATCH_INFERENCE:
            return self.run_gpu_hours * workload.demand_factor(month)
        return self.run_gpu_hours

    def spot_run_in(self, workload: Workload, gpu: Gpu, a: Assumptions, month: int) -> SpotRun:
        """A run of ``month`` as the spot rules see it (``gangs.SpotRun``)."""
        return SpotRun(
            self.run_in(workload, month),
            self.copy_width,
            self.gang_width_in(month),
            workload.deadline_hours,
            a.spot_efficiency,
            gpu.max_per_node,
        )


def pair_figures(workload: Workload, estimate: PairEstimate, horizon_months: int) -> PairFigures:
    k = estimate.gpus_per_replica or 1
    run = estimate.gpu_hours or 0.0
    if workload.one_off_training:
        runs = 0.0
    else:
        runs = workload.runs_per_month if workload.runs_per_month is not None else 1.0
    base = copies_per_gang(run, k, workload.deadline_hours)
    by_month: tuple[tuple[int, int], ...] = ()
    if workload.kind is Kind.BATCH_INFERENCE and workload.deadline_hours is not None:
        # A run's size follows the month's demand, and so does its gang (§C, §E).
        by_month = tuple(
            (t, m)
            for t in workload.window(horizon_months)
            if (m := copies_per_gang(run * workload.demand_factor(t), k, workload.deadline_hours))
            != base
        )
    return PairFigures(
        copy_width=k, run_gpu_hours=run, copies=base, runs_per_month=runs, copies_by_month=by_month
    )
