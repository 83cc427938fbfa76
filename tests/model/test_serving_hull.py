"""The serving pattern hull: its covers are exactly the minimal ones, and the cap skips.

That no integer plan is lost is proven by the enumeration tests
(``tests/test_optimality.py``, ``tests/test_deployable.py``), which build with it.
"""

from __future__ import annotations

import itertools

import pytest

from optimizer.model.build import build_model
from optimizer.model.families import serving_hull
from optimizer.model.families.serving_hull import (
    extreme_covers,
    minimal_covers,
    rows_are_the_hull,
)
from tests.model.test_model import tiny


def brute_force_minimal(caps: tuple[float, ...], need: float, fewest: int) -> set[tuple[int, ...]]:
    """Every minimal cover, by trying each point of a box that holds them all."""
    top = fewest + int(need // min(caps)) + 1

    def covers(n: tuple[int, ...]) -> bool:
        return sum(n) >= fewest and sum(c * x for c, x in zip(caps, n, strict=True)) >= need

    found = set()
    for n in itertools.product(range(top + 1), repeat=len(caps)):
        if covers(n) and not any(
            covers((*n[:j], n[j] - 1, *n[j + 1 :])) for j in range(len(caps)) if n[j]
        ):
            found.add(n)
    return found


@pytest.mark.parametrize(
    ("caps", "need", "fewest"),
    [
        ((10.0, 7.0, 3.0), 20.0, 2),
        ((10.0, 7.0, 3.0), 20.0, 4),
        ((9.5, 6.0, 2.5, 1.0), 17.0, 1),
        ((5.0, 4.0), 4.5, 3),
        ((1000.0, 400.0), 1000.0, 2),
    ],
)
def test_the_generator_returns_exactly_the_minimal_covers(
    caps: tuple[float, ...], need: float, fewest: int
) -> None:
    covers = minimal_covers(caps, need, fewest, 10_000)
    assert covers is not None
    assert len(covers) == len(set(covers))
    assert set(covers) == brute_force_minimal(caps, need, fewest)


def test_more_covers_than_the_limit_give_none() -> None:
    covers = minimal_covers((10.0, 7.0, 3.0), 20.0, 2, 10_000)
    assert covers is not None and len(covers) == 8
    assert minimal_covers((10.0, 7.0, 3.0), 20.0, 2, 8) == covers
    assert minimal_covers((10.0, 7.0, 3.0), 20.0, 2, 7) is None


def test_only_covers_below_no_mix_of_the_others_are_kept() -> None:
    # (1, 2, 0) is above (2,0,0)/2 + (0,3,0)/2 = (1, 1.5, 0); (1, 1, 1) above
    # (2,0,0)/2 + (0,2,2)/2; (0, 1, 5) above (0,2,2)/2 + (0,0,7)/2 + ... each
    # dropped cover is some mix of the four kept.
    covers = minimal_covers((10.0, 7.0, 3.0), 20.0, 2, 100)
    assert covers is not None
    assert extreme_covers(covers) == ((2, 0, 0), (0, 3, 0), (0, 2, 2), (0, 0, 7))


def test_the_tiny_model_has_the_hull_and_the_cap_the_switch_or_elastic_leave_it_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s, estimates = tiny()
    built = build_model(s, estimates, serving_hull=True)
    assert built.family_rows["serving_hull"]
    assert any(v.name.startswith("hull_") for v in built.problem.variables())
    assert not build_model(s, estimates, serving_hull=False).family_rows.get("serving_hull")
    assert not build_model(s, estimates).family_rows.get("serving_hull")  # off by default
    elastic = build_model(s, estimates, elastic=("demand",), serving_hull=True)
    assert not elastic.family_rows.get("serving_hull")
    monkeypatch.setattr(serving_hull, "COVER_LIMIT", 1)
    minimal_covers.cache_clear()
    try:
        assert not build_model(s, estimates, serving_hull=True).family_rows.get("serving_hull")
    finally:
        minimal_covers.cache_clear()


def test_no_hull_where_the_rows_already_have_only_whole_vertices() -> None:
    # 10 R1 + 5 R2 >= 20, R1 + R2 >= 3: vertices (3, 0), (0, 4), (1, 2), all whole.
    assert rows_are_the_hull((10.0, 5.0), 20.0, 3)
    # 10 R1 + 7 R2 + 3 R3 >= 20, sum >= 2: (0, 20/7, 0) is a vertex.
    assert not rows_are_the_hull((10.0, 7.0, 3.0), 20.0, 2)
    # ... and brute force agrees: the hull's vertices are then the LP's.
    covers = minimal_covers((10.0, 5.0), 20.0, 3, 100)
    assert covers is not None and extreme_covers(covers) == ((3, 0), (1, 2), (0, 4))
