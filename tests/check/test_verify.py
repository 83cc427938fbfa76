"""A plan the independent checker rejects never reaches a writer."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

import optimizer.check.rules
from optimizer.check.verify import solve_and_verify
from optimizer.cli import main
from optimizer.domain import Scenario
from optimizer.results import SolverSettings, SolveStatus
from tests.builders import BARE, gpu, measured, offer, scenario, workload


def _scenario() -> Scenario:
    return scenario(
        [gpu("H100")],
        [offer("H100", "on_demand", 3.15)],
        [workload("job", "lora", params_b=7, tokens=1e8, end_month=1)],
        [measured("job", "H100", gpu_hours=10)],
        BARE,
        horizon_months=1,
    )


@dataclass
class _Rejecting:
    violations: list[str] = field(default_factory=lambda: ["total_cost differs by $1.00"])


def test_a_plan_the_checker_accepts_is_returned_as_solved() -> None:
    plan = solve_and_verify(_scenario(), SolverSettings())
    assert plan.status is SolveStatus.OPTIMAL
    assert plan.total_cost == pytest.approx(31.50, abs=0.005)  # 10 h × $3.15


def test_a_rejected_plan_becomes_an_error_with_no_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(optimizer.check.rules, "check_plan", lambda *a, **k: _Rejecting())
    plan = solve_and_verify(_scenario(), SolverSettings())
    assert plan.status is SolveStatus.ERROR
    assert (plan.total_cost, plan.cash_out, plan.residual_credit, plan.gap) == (None,) * 4
    assert plan.costs == {} and plan.cash_flow == () and plan.fleet == ()
    assert plan.assignments == () and plan.decisions is None
    assert "total_cost differs by $1.00" in plan.diagnostics
    assert any("internal check failed" in d for d in plan.diagnostics)


def test_cli_exits_1_when_the_checker_rejects_a_plan(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    monkeypatch.setattr(optimizer.check.rules, "check_plan", lambda *a, **k: _Rejecting())
    code = main(
        ["solve", "--scenario", "tight-capex", "--json", "--output", str(tmp_path / "r.xlsx")]
    )
    (entry,) = json.loads(capsys.readouterr().out)["scenarios"]
    assert code == 1
    assert entry["status"] == "error"
    assert entry["total_cost"] is None
    assert entry["cash_flow"] == [] and entry["fleet"] == []
