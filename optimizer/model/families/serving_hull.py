"""Constraint family ``serving_hull``: the convex hull of each serving month's replica covers.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables (and the
``realtime_demand`` rows it tightens); adds continuous ``hull`` variables and
the family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`.
Golden LP text: ``tests/model/golden/serving_hull.lp``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pulp

from optimizer.model.built import BuiltModel, Terms
from optimizer.model.families.realtime_demand import serving_months

# Most minimal covers one workload-month may have for its hull to be built;
# above it that month keeps only the ``realtime_demand`` rows (still exact).
COVER_LIMIT = 500
Cover = tuple[int, ...]


def _is_cover(capacity: float, count: int, target: float, fewest: int) -> bool:
    return count >= fewest and capacity >= target


def _first_covering(c: float, capacity: float, count: int, target: float, fewest: int) -> int:
    """The fewest units of capacity ``c`` that make ``(capacity, count)`` a cover."""
    n = max(0, fewest - count, math.floor((target - capacity) / c) - 1)
    while not _is_cover(capacity + n * c, count + n, target, fewest):
        n += 1
    return n


def rows_are_the_hull(caps: tuple[float, ...], need: float, fewest: int) -> bool:
    """Whether ``{R >= 0: sum caps * R >= need, sum R >= fewest}`` has only whole vertices.

    Then the ``realtime_demand`` rows alone are the hull and one more adds
    nothing. Its vertices lie on one axis (``max(need / c, fewest)``) or on two,
    where both rows hold with equality.
    """

    def whole(x: float) -> bool:
        return abs(x - round(x)) <= 1e-9 * max(1.0, abs(x))

    if not all(whole(max(need / c, fewest)) for c in caps):
        return False
    for a, ca in enumerate(caps):
        for cb in caps[a + 1 :]:
            x = (need - cb * fewest) / (ca - cb)
            if 0 < x < fewest and not whole(x):
                return False
    return True


@lru_cache(maxsize=4096)
def minimal_covers(
    caps: tuple[float, ...], need: float, fewest: int, limit: int = COVER_LIMIT
) -> tuple[Cover, ...] | None:
    """Every minimal ``n`` in ``Z^J_+`` with ``sum caps * n >= need`` and ``sum n >= fewest``.

    ``caps`` are distinct and positive, largest first. A cover is minimal when
    taking away any one unit leaves no cover. Sorted by capacity, largest
    first, a minimal cover is exactly a sequence of units that becomes a cover
    at its last unit (taking away a larger unit leaves less than taking away
    the last one), so the recursion over the options, each either taking the
    units that first cover or fewer and moving on, yields each minimal cover
    once and never a dead branch. None when there are more than ``limit``.
    A relative 1e-9 of slack on ``need`` can only add covers (a looser hull).
    """
    target = need - 1e-9 * max(1.0, need)
    covers: list[Cover] = []
    counts = [0] * len(caps)

    def walk(j: int, capacity: float, count: int) -> bool:
        c = caps[j]
        first = _first_covering(c, capacity, count, target, fewest)
        counts[j] = first
        covers.append(tuple(counts))
        if len(covers) > limit:
            return False
        if j + 1 < len(caps):
            for n in range(first - 1, -1, -1):
                counts[j] = n
                if not walk(j + 1, capacity + n * c, count + n):
                    return False
        counts[j] = 0
        return True

    if need <= 0 or not caps or not walk(0, 0.0, 0):
        return None
    return tuple(covers)


def _mix_below(others: np.ndarray, q: np.ndarray) -> np.ndarray | None:
    """Weights ``lam >= 0`` summing to 1 with ``lam @ others <= q``, or None if none found.

    Phase one of a dense simplex (Dantzig's rule, a bounded number of pivots): maximise ``sum lam`` with
    ``lam @ others <= q`` and ``sum lam <= 1``; the slacks are a first basis.
    """
    rows, cols = others.shape[1] + 1, others.shape[0]
    tab = np.zeros((rows + 1, cols + rows + 1))
    tab[:-2, :cols] = others.T
    tab[-2, :cols] = 1.0
    tab[:rows, cols : cols + rows] = np.eye(rows)
    tab[:-2, -1] = q
    tab[-2, -1] = 1.0
    tab[-1, :cols] = -1.0
    basis = list(range(cols, cols + rows))
    for _ in range(50 * rows):
        entering = np.flatnonzero(tab[-1, :-1] < -1e-9)
        if entering.size == 0:
            break
        e = int(entering[np.argmin(tab[-1, entering])])
        col = tab[:rows, e]
        ok = np.flatnonzero(col > 1e-9)
        ratios = tab[ok, -1] / col[ok]
        best = ok[ratios <= ratios.min() + 1e-12]
        r = int(min(best, key=lambda i: basis[i]))
        tab[r] /= tab[r, e]
        others_rows = np.arange(rows + 1) != r
        tab[others_rows] -= np.outer(tab[others_rows, e], tab[r])
        basis[r] = e
    else:
        return None
    lam = np.zeros(cols)
    for i, b in enumerate(basis):
        if b < cols:
            lam[b] = max(0.0, tab[i, -1])
    return lam if lam.sum() > 0 else None


@lru_cache(maxsize=4096)
def extreme_covers(covers: tuple[Cover, ...]) -> tuple[Cover, ...]:
    """The covers that are vertices of ``conv(covers) + R^J_+`` (the others add nothing).

    Cover ``q`` is left out when some convex combination of the others is at or
    below it in every option (a small LP, :func:`_mix_below`). The weights are
    checked again here (to 1e-9 of a replica), so a cover is dropped only on a
    combination that holds, never on a solver's say-so.
    """
    if len(covers) <= 2:
        return covers
    points = np.array(covers, dtype=float)
    kept = []
    for r, q in enumerate(covers):
        # Only covers using no option q leaves out can be part of the mix.
        within = np.all((points == 0) | (points[r] > 0), axis=1)
        within[r] = False
        others = points[within]
        lam = _mix_below(others, points[r]) if len(others) else None
        below = (
            lam is not None
            and abs(lam.sum() - 1.0) <= 1e-9
            and bool(np.all(lam @ others / lam.sum() <= points[r] + 1e-9))
        )
        if not below:
            kept.append(q)
    return tuple(kept)


def define_serving_hull_constraints(built: BuiltModel) -> None:
    """For each serving workload and month, replicas of each capacity cover a convex
    combination of the month's minimal covers.

    Options (GPU type, width) whose capacity capped at ``D'`` is the same count
    as one class: ``R_c`` = their replicas in all places (places change costs
    and room, not a replica's throughput). The integer set
    ``S = {R >= 0 whole: sum_c c R_c >= D', sum_c R_c >= fewest}`` is upward
    closed, so its hull is the hull of its minimal covers ``q`` plus the
    nonnegative orthant:

    ``serving_hull_w{w}_t{t}``: ``sum_q hull[w,t,q] = 1``
    ``serving_hull_w{w}_t{t}_c{c}``: ``R_c - sum_q n[q,c] * hull[w,t,q] >= 0``

    with ``hull`` continuous in [0, 1] (``hull_w{w}_t{t}_q{q}``). Exact: every
    whole R in S is at or above one minimal cover, so no integer plan is lost;
    the relaxation can no longer pay for fractions of replicas that no whole
    plan could use. Months with the same ``D'`` and classes share one
    enumeration (:func:`minimal_covers`, cached). Left out where the
    ``realtime_demand`` rows are the hull already (:func:`rows_are_the_hull`:
    one class, or only whole vertices), more than
    :data:`COVER_LIMIT` covers, or in elastic models (the demand may be short).
    """
    if built.elastic:
        return
    for i, t, need, fewest, reps in serving_months(built):
        classes: dict[float, Terms] = {}
        for var, cap in reps:
            classes.setdefault(min(need, cap), []).append((var, 1.0))
        order = sorted(classes, reverse=True)
        if len(order) < 2 or order[-1] <= 0 or rows_are_the_hull(tuple(order), need, fewest):
            continue
        covers = minimal_covers(tuple(order), need, fewest, COVER_LIMIT)
        if covers is None:
            continue
        covers = extreme_covers(covers)
        lams = [
            built.problem.add_variable(f"hull_w{i}_t{t}_q{q}", lowBound=0, upBound=1)
            for q in range(len(covers))
        ]
        built.add_row(
            "serving_hull",
            (f"w{i}", f"t{t}"),
            [(lam, 1.0) for lam in lams],
            pulp.LpConstraintEQ,
            1.0,
        )
        for j, c in enumerate(order):
            terms = classes[c] + [
                (lam, -float(n[j])) for lam, n in zip(lams, covers, strict=True) if n[j]
            ]
            built.add_row(
                "serving_hull", (f"w{i}", f"t{t}", f"c{j}"), terms, pulp.LpConstraintGE, 0.0
            )
