"""Where the chosen fleet flips: found along the sweep's points, narrowed by bisection.

Takes the sweep's :class:`VariantOutcome` list and its specs; hands on each
:class:`Flip` (a bracket of the parameter where the regime changes) to
``sweep``. :func:`refine_flips` narrows one-way and tornado brackets with
solves it asks of the caller's ``solve_points``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from optimizer.analysis.sweep_outcomes import PlanSummary, Regime, VariantOutcome
from optimizer.analysis.sweep_params import Setting, SweepMode, VarySpec
from optimizer.results import SolveStatus


@dataclass(frozen=True)
class Flip:
    """Where the regime changes as parameter ``key`` rises from ``low`` to ``high``.

    ``refined`` says the bracket was narrowed by bisection after the grid;
    ``fixed`` holds the other parameter's value in a two-way grid.
    """

    key: str
    low: float
    high: float
    before: Regime
    after: Regime
    refined: bool = False
    fixed: Setting = ()
    # Both neighbours' plans proven: a change between plans stopped early (time
    # limit) can be the searches' artefact, not the parameter's (issue 35 item 4).
    proven: bool = True

    @property
    def point(self) -> float:
        return (self.low + self.high) / 2

    @property
    def precision(self) -> float:
        """Half the bracket: the flip point is ``point ± precision``."""
        return (self.high - self.low) / 2


def find_flips(
    outcomes: Sequence[VariantOutcome], specs: Sequence[VarySpec], mode: SweepMode
) -> list[Flip]:
    """Every pair of neighbouring points (by value) whose regimes differ.

    One-way and tornado: along each parameter, others at the base. Grid:
    along each parameter, for every value of the other parameters.
    """
    flips: list[Flip] = []
    for spec in specs:
        others = [s.key for s in specs if s.key != spec.key]
        lines: dict[Setting, list[VariantOutcome]] = {}
        for outcome in outcomes:
            if outcome.value(spec.key) is None:
                continue  # the tornado's base, or another parameter's points
            fixed = (
                tuple((k, v) for k, v in outcome.setting if k in others)
                if mode is SweepMode.GRID
                else ()
            )
            lines.setdefault(fixed, []).append(outcome)
        for fixed, line in lines.items():
            flips += _flips_along(
                spec.key, sorted(line, key=lambda o: o.value(spec.key) or 0.0), fixed
            )
    return flips


def _flips_along(key: str, line: Sequence[VariantOutcome], fixed: Setting) -> list[Flip]:
    flips = []
    for lo, hi in pairwise(line):
        if lo.summary.regime != hi.summary.regime:
            low, high = lo.value(key), hi.value(key)
            assert low is not None and high is not None  # every outcome on the line sets key
            proven = SolveStatus.TIME_LIMIT not in (lo.summary.status, hi.summary.status)
            flips.append(
                Flip(
                    key,
                    low,
                    high,
                    lo.summary.regime,
                    hi.summary.regime,
                    fixed=fixed,
                    proven=proven,
                )
            )
    return flips


def refine_flips(
    flips: Iterable[Flip],
    specs: Sequence[VarySpec],
    solve_points: Callable[[Sequence[tuple[str, float]]], list[PlanSummary]],
    steps: int,
) -> list[Flip]:
    """Narrow each flip by bisection: ``steps`` rounds, every bracket halved per round.

    A midpoint with the regime of neither end holds two flips; both halves
    are then kept and refined. Whole-number parameters stop at adjacent
    integers.
    """
    by_key = {s.key: s for s in specs}
    open_flips = list(flips)
    for _ in range(steps):
        splittable = [f for f in open_flips if _midpoint(f, by_key[f.key]) is not None]
        if not splittable:
            break
        points = [(f.key, _midpoint(f, by_key[f.key]) or 0.0) for f in splittable]
        summaries = solve_points(points)
        refined: dict[int, list[Flip]] = {}
        for f, (_, mid), summary in zip(splittable, points, summaries, strict=True):
            regime = summary.regime
            halves = []
            if regime != f.before:
                halves.append(replace(f, high=mid, after=regime, refined=True))
            if regime != f.after:
                halves.append(replace(f, low=mid, before=regime, refined=True))
            refined[id(f)] = halves
        open_flips = [g for f in open_flips for g in refined.get(id(f), [f])]
    return open_flips


def _midpoint(flip: Flip, spec: VarySpec) -> float | None:
    if spec.is_integer or spec.is_bool:
        if flip.high - flip.low <= 1:
            return None
        return float(math.floor(flip.point))
    return flip.point
