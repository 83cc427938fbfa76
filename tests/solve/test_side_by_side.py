"""The futures solve's pool: urgent steps first, arguments made when a step starts, a limit."""

from __future__ import annotations

import operator
import time
from concurrent.futures import Future
from typing import Any

import pytest

from optimizer.solve.side_by_side import SideBySide


def test_one_worker_runs_each_step_when_submitted() -> None:
    made: list[str] = []
    with SideBySide(1) as steps:
        first = steps.submit(operator.add, lambda: made.append("first") or (2, 3))
        assert first.done() and first.result() == 5
        second = steps.submit(operator.mul, lambda: made.append("second") or (2, 3), urgent=True)
        assert second.result() == 6
    assert made == ["first", "second"]


def test_urgent_steps_are_taken_before_steps_queued_earlier() -> None:
    """Both workers busy: of the queued steps, the urgent one starts first."""
    made: list[str] = []

    def args(name: str, *values: Any) -> Any:
        return lambda: made.append(name) or values

    with SideBySide(2) as steps:
        busy = [steps.submit(time.sleep, args(f"busy{i}", 0.5)) for i in range(2)]
        later = steps.submit(operator.add, args("later", 1, 1))
        urgent = steps.submit(operator.add, args("urgent", 2, 2), urgent=True)
        assert (urgent.result(), later.result()) == (4, 2)
        assert all(b.result() is None for b in busy)
    assert made == ["busy0", "busy1", "urgent", "later"]


def test_a_lowered_limit_starts_a_step_only_when_the_one_before_it_is_done() -> None:
    seen: list[bool] = []
    first: list[Future[Any]] = []
    with SideBySide(2) as steps:
        steps.set_limit(1)
        first.append(steps.submit(time.sleep, lambda: (0.2,)))
        second = steps.submit(operator.add, lambda: seen.append(first[0].done()) or (1, 2))
        assert second.result() == 3
    assert seen == [True]


def test_a_step_that_fails_hands_its_error_to_whoever_waits_for_it() -> None:
    with SideBySide(2) as steps:
        bad = steps.submit(int, lambda: ("not a number",))
        good = steps.submit(operator.add, lambda: (1, 1))
        with pytest.raises(ValueError, match="not a number"):
            bad.result()
        assert good.result() == 2
    with SideBySide(1) as steps, pytest.raises(ValueError, match="not a number"):
        steps.submit(int, lambda: ("not a number",)).result()
