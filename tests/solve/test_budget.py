"""The command's time budget (optimizer/solve/budget.py): what each part of a command gets."""

from __future__ import annotations

import time

import pytest

import optimizer.solve.budget as budget_module
from optimizer.results import SolverSettings
from optimizer.solve.adapters import seconds_text
from optimizer.solve.budget import LEAST_SOLVE_S, NO_LIMIT, Budget, command_budget, write_reserve


def test_without_a_limit_nothing_is_limited() -> None:
    settings = SolverSettings(time_limit=None)
    assert NO_LIMIT.left() is None and NO_LIMIT.share(0.5) is None and not NO_LIMIT.spent()
    assert NO_LIMIT.settings(settings) is settings
    assert command_budget(None) == NO_LIMIT


def test_the_command_budget_counts_from_the_start_and_keeps_a_writing_reserve(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert write_reserve(60.0) == 3.0 and write_reserve(20.0) == 2.0
    monkeypatch.setattr(budget_module, "_command_started", time.monotonic() - 5.0)
    left = command_budget(20.0).left()
    assert left is not None and 12.9 < left <= 13.0  # 20 - 5 spent - 2 to write


def test_shares_are_of_what_is_left_and_never_below_the_least_solve() -> None:
    budget = Budget(100.0, time.monotonic() + 40.0)
    share = budget.share(0.25)
    assert share is not None and 9.9 < share <= 10.0
    limited = budget.settings(SolverSettings(time_limit=100.0), 0.5)
    assert limited.time_limit is not None and 19.9 < limited.time_limit <= 20.0
    spent = Budget(100.0, time.monotonic() - 1.0)
    assert spent.spent() and spent.settings(SolverSettings()).time_limit == LEAST_SOLVE_S


def test_until_ends_at_the_sooner_of_the_two() -> None:
    budget = Budget(100.0, time.monotonic() + 40.0)
    assert 9.9 < (budget.until(10.0).left() or 0.0) <= 10.0
    assert 39.9 < (budget.until(60.0).left() or 0.0) <= 40.0
    assert 9.9 < (NO_LIMIT.until(10.0).left() or 0.0) <= 10.0


def test_a_share_of_the_budget_reads_as_people_write_seconds() -> None:
    """A plan's share of a 30 s budget was shown as "the 19.3938 s time limit"."""
    assert [seconds_text(s) for s in (60.0, 19.3938, 0.01, 300.0)] == ["60", "19.4", "0.01", "300"]
