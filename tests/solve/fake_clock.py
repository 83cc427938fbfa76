"""A clock the tests set by hand, in place of a module's ``time``: each sub-solve "runs"
until the time it is given, so a phase's deadlines can be checked without a solver."""

from __future__ import annotations

from types import ModuleType, SimpleNamespace

import pytest


def fake_clock(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType, now: float = 1000.0
) -> list[float]:
    """Replace ``module.time`` by a clock reading ``clock[0]``; the list to move it with."""
    clock = [now]
    monkeypatch.setattr(module, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    return clock
