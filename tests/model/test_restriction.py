"""Whether one model is another with more limits (baselines shared between scenarios)."""

from __future__ import annotations

from dataclasses import replace

import pulp
import pytest

from optimizer.check.baselines import baseline_variants
from optimizer.inputs.load import load_input
from optimizer.model.build import build_model
from optimizer.model.restriction import ModelShape, model_shape, restricts


def _model(
    cost: float = 3.0, need: float = 4.0, cap: float | None = None, upper: float = 10.0
) -> ModelShape:
    problem = pulp.LpProblem("m", pulp.LpMinimize)
    x = problem.add_variable("x", 0, upper, cat="Integer")
    y = problem.add_variable("y", 0)
    problem += cost * x + 2.0 * y + 1.5
    problem += x + y >= need, "demand"
    if cap is not None:
        problem += 5.0 * x <= cap, "budget"
    return model_shape(problem)


def test_a_model_restricts_itself_and_a_copy() -> None:
    assert restricts(_model(), _model())


def test_an_added_row_restricts_one_way_only() -> None:
    assert restricts(_model(cap=30.0), _model())
    assert not restricts(_model(), _model(cap=30.0))


def test_a_tighter_bound_restricts_one_way_only() -> None:
    assert restricts(_model(upper=5.0), _model())
    assert not restricts(_model(), _model(upper=5.0))


@pytest.mark.parametrize(
    "other",
    [
        _model(cost=3.5),  # another objective: its optimum means nothing here
        _model(need=5.0),  # a row changed
        _model(cap=30.0, need=5.0),
    ],
)
def test_a_changed_coefficient_or_objective_is_no_restriction(other: ModelShape) -> None:
    assert not restricts(other, _model())
    assert not restricts(_model(), other)


def test_other_columns_are_no_restriction() -> None:
    problem = pulp.LpProblem("m", pulp.LpMinimize)
    x = problem.add_variable("x", 0, 10, cat="Integer")
    z = problem.add_variable("z", 0)
    problem += 3.0 * x + 0.0 * z + 1.5
    problem += x >= 4.0, "demand"
    assert not restricts(model_shape(problem), _model())


def test_the_examples_rent_only_models_europe_equal_and_tight_capex_one_row_more() -> None:
    scenarios = {s.name: s for s in load_input(None).scenarios}

    def rent_only(name: str) -> ModelShape:
        variant = baseline_variants(scenarios[name])[0]
        return model_shape(build_model(variant.scenario, variant.estimates).problem)

    us, europe, tight = rent_only("us-baseline"), rent_only("europe"), rent_only("tight-capex")
    assert restricts(europe, us) and restricts(us, europe)
    assert restricts(tight, us) and not restricts(us, tight)
    assert set(tight.rows) - set(us.rows) == {"budgets_capex"}
    # Buy only: europe's prices for power change the objective.
    buy = [replace(baseline_variants(scenarios[n])[1]) for n in ("us-baseline", "europe")]
    shapes = [model_shape(build_model(v.scenario, v.estimates).problem) for v in buy]
    assert not restricts(shapes[1], shapes[0]) and not restricts(shapes[0], shapes[1])
