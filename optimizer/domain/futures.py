"""Futures (issue 19): one scenario planned for several uncertain futures at once.

A future is the scenario with a few figures changed: demand (one factor for
every realtime and batch workload, and factors per workload on top), demand
growth (for every such workload, or per workload), and prices (factors per
GPU type and option). Inputs (sheet ``Futures``, a scenario file's
``futures:``) are parsed and validated into these types once;
:func:`~optimizer.domain.future_scenario.future_scenario` turns the scenario
and one future into the plain :class:`~optimizer.domain.Scenario` that future
is, so that the model, the solver and the independent checker treat each
future like any scenario. Apart from ``frozen`` (whose ``Scenario`` holds a
``Futures``), they import only ``choices``.

``decide_by_month``: every purchase, sale and reservation start up to and
including that month is shared by all futures (decided now, before knowing
which future comes); later ones each future decides for itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from optimizer.domain.choices import OfferOption

# Probabilities must sum to 1 within this (a workbook's 1/3 + 1/3 + 1/3).
PROBABILITY_TOLERANCE = 1e-6


@dataclass(frozen=True)
class PriceFactor:
    """Multiply the price of every offer of ``gpu`` (None: every type) and ``option``
    (None: every option) by ``factor``."""

    factor: float
    gpu: str | None = None
    option: OfferOption | None = None

    def applies_to(self, gpu: str, option: OfferOption) -> bool:
        return (self.gpu is None or self.gpu == gpu) and (
            self.option is None or self.option is option
        )


@dataclass(frozen=True)
class FutureSpec:
    """One future: its name, probability and what it changes in the scenario.

    Demand factors multiply every month's demand (tokens/s for realtime,
    tokens for batch, rows of sheet Demand included); training is never
    scaled. ``growth_per_month`` replaces the growth of every realtime and
    batch workload; ``workload_growth`` replaces the named workloads' (and
    wins over ``growth_per_month``). Price factors multiply, in order.
    """

    name: str
    probability: float
    demand_factor: float = 1.0
    workload_demand_factors: tuple[tuple[str, float], ...] = ()  # on top of demand_factor
    growth_per_month: float | None = None
    workload_growth: tuple[tuple[str, float], ...] = ()
    price_factors: tuple[PriceFactor, ...] = ()

    @property
    def changes_nothing(self) -> bool:
        return (
            self.demand_factor == 1.0
            and all(f == 1.0 for _, f in self.workload_demand_factors)
            and self.growth_per_month is None
            and not self.workload_growth
            and all(p.factor == 1.0 for p in self.price_factors)
        )


# Futures per scenario gpumix plans (issue 33: 1,000 futures validated, then ran
# 138.6 s and wrote 5,000 sheets with nothing planned). Each future is a whole
# plan solved alone, re-planned, and copied into the two-stage model, so the
# work grows with their number; 20 is far above the handful a decision needs.
MAX_FUTURES = 20


def too_many_futures(count: int, scenario: str | None = None) -> str | None:
    """Why ``count`` futures are too many (for ``scenario``, when the place does not
    name it already); None when they are not."""
    if count <= MAX_FUTURES:
        return None
    whose = f"scenario {scenario!r} has " if scenario is not None else ""
    return (
        f"{whose}{count:,} futures; gpumix plans at most {MAX_FUTURES} per "
        "scenario (each is a whole plan, solved alone and again in the shared model)"
    )


@dataclass(frozen=True)
class Futures:
    """A scenario's futures and the rules that tie them together.

    ``max_regret`` (money, the scenario's currency) and ``max_regret_share``
    (a fraction of that future's own optimum) bound, for every future, how
    much more the shared plan may cost in that future than the plan made for
    it alone; None: no bound.
    """

    futures: tuple[FutureSpec, ...]
    decide_by_month: int = 1
    max_regret: float | None = None
    max_regret_share: float | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.futures)


def future_name(scenario: str, future: str) -> str:
    """The name of a future's plan: ``"<scenario> / <future>"``."""
    return f"{scenario} / {future}"
