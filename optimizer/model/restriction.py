"""Whether one built model is another with more limits: the same columns and objective, every
row of the other and perhaps more, bounds no wider.

Scenarios of one workbook often differ only where a baseline cannot see it:
a capex budget adds one row to the rent-only model, a power price that
touches only owned GPUs leaves it as it was. When model ``smaller`` is model
``larger`` with rows added or bounds tightened, every plan of ``smaller`` is
a plan of ``larger`` at the same cost, so ``larger``'s optimum, if it is a
plan of ``smaller`` at all, is ``smaller``'s optimum too, and ``larger``'s
proven bound bounds ``smaller``. The comparison is exact (names, kinds,
coefficients and bounds to the last bit): anything else is "not a restriction".
"""

from __future__ import annotations

from dataclasses import dataclass

import pulp

Terms = tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class ModelShape:
    """A built model as data: columns (kind and bounds), objective, and rows by name."""

    columns: dict[str, tuple[str, float | None, float | None]]
    objective: tuple[float, Terms]  # constant, then (column, coefficient) by name
    rows: dict[str, tuple[int, float, Terms]]  # sense, constant, terms by column name


def model_shape(problem: pulp.LpProblem) -> ModelShape:
    """The shape of ``problem`` (its variables, objective and constraints as PuLP holds them)."""
    columns = {v.name: (v.cat, v.lowBound, v.upBound) for v in problem.variables()}
    objective = problem.objective
    return ModelShape(
        columns,
        (float(objective.constant), _terms(objective)),
        {row.name: (row.sense, float(row.constant), _terms(row)) for row in problem.constraints()},
    )


def restricts(smaller: ModelShape, larger: ModelShape) -> bool:
    """Whether every plan of ``smaller`` is a plan of ``larger`` at the same cost."""
    if smaller.objective != larger.objective or smaller.columns.keys() != larger.columns.keys():
        return False
    for name, (kind, low, up) in smaller.columns.items():
        other_kind, other_low, other_up = larger.columns[name]
        if kind != other_kind or not _within(low, up, other_low, other_up):
            return False
    return all(smaller.rows.get(name) == row for name, row in larger.rows.items())


def _terms(expression: pulp.LpAffineExpression) -> Terms:
    return tuple(sorted((v.name, float(c)) for v, c in expression.items()))


def _within(
    low: float | None, up: float | None, outer_low: float | None, outer_up: float | None
) -> bool:
    """[low, up] inside [outer_low, outer_up] (None: unbounded on that side)."""
    low_ok = outer_low is None or (low is not None and low >= outer_low)
    up_ok = outer_up is None or (up is not None and up <= outer_up)
    return low_ok and up_ok
