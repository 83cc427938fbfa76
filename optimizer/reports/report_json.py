"""The ``--json`` output: one object holding every scenario's result.

The shape is the public contract (``shared/spec/workbook.md``, ``--json``).
Costs are not rounded. JSON has no NaN or infinity, so a non-finite number
becomes ``null`` rather than text that a strict parser would reject.
"""

from __future__ import annotations

import json
import math

from optimizer.domain import CostCategory, Scenario
from optimizer.reports.result_shared import option_gpu_hours, width_allowed
from optimizer.results import (
    AssignmentRow,
    FleetRow,
    PairEstimate,
    PlaceRow,
    Plan,
    RunResult,
)


def _number(value: float | int | None) -> float | int | None:
    """``value`` itself when it is a finite number, else None (JSON ``null``)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return value if math.isfinite(value) else None


def _fleet_row(row: FleetRow) -> dict[str, object]:
    return {
        "gpu": row.gpu,
        "month": row.month,
        "existing": row.existing,
        "bought": row.bought,
        "sold": row.sold,
        "owned": row.owned,
        "servers": row.servers,
        "reserved": row.reserved,
        "rented_hours": _number(row.rented_hours),
        "spot_hours": _number(row.spot_hours),
        "owned_utilization": _number(row.owned_utilization),
    }


def assignment_json(row: AssignmentRow) -> dict[str, object]:
    return {
        "workload": row.workload,
        "gpu": row.gpu,
        "month": row.month,
        "gpus_per_replica": row.gpus_per_replica,
        "replicas": row.replicas,
        "gpu_hours": _number(row.gpu_hours),
        "cost": _number(row.cost),
        "place": row.place,
        "offer": row.offer,
        "copy_width": row.copy_width,
        "width": row.width,
        "load": _number(row.load),
    }


def place_json(row: PlaceRow) -> dict[str, object]:
    return {
        "gpu": row.gpu,
        "month": row.month,
        "place": row.place,
        "offer": row.offer,
        "size": row.size,
        "pinned": row.pinned,
        "free": row.free,
        # JSON object keys are text: copy width "16" -> slots of 16 GPUs.
        "slots": {str(width): n for width, n in sorted(row.slots.items())},
    }


def _option_rows(row: PairEstimate, scenario: Scenario) -> list[dict[str, object]]:
    """One row per serving width of a realtime pair that has widths, else one row for the pair.

    ``gpu_hours``: training, the whole job; batch and recurring runs, per month.
    """
    base: dict[str, object] = {
        "workload": row.workload,
        "gpu": row.gpu,
        "allowed": row.allowed,
        "reason": row.reason,
        "memory_gb": _number(row.memory_gb),
        "gpus_per_replica": row.gpus_per_replica,
        "gpu_hours": _number(option_gpu_hours(scenario, row)),
        "tokens_per_second_per_replica": _number(row.tokens_per_second_per_replica),
        "latency_ms": _number(row.latency_ms),
        "source": row.source.value,
        # The Options sheet's last column, word for word: what was given, measured or
        # estimated, and which architecture values the estimate assumed (model v2 §G).
        "estimates_note": row.basis,
    }
    if not row.widths:
        return [base]
    rows = []
    for w in row.widths:
        allowed, reason = width_allowed(row, w)
        rows.append(
            {
                **base,
                "allowed": allowed,
                "reason": reason,
                "gpus_per_replica": w.width,
                "tokens_per_second_per_replica": _number(w.tokens_per_second_per_replica),
                "latency_ms": _number(w.latency_ms),
            }
        )
    return rows


def plan_to_dict(plan: Plan) -> dict[str, object]:
    """One scenario's entry of ``{"scenarios": [...]}``, as the contract names it."""
    has_plan = plan.status.has_plan
    return {
        "scenario": plan.name,
        "currency": plan.currency,  # the label of every money figure below (model v2 §E)
        "status": plan.status.value,
        "total_cost": _number(plan.total_cost),
        "cash_out": _number(plan.cash_out),
        "residual_credit": _number(plan.residual_credit),
        "gap": _number(plan.gap),
        # Every category is listed (0 when unused) so scripts need no key checks.
        "costs": {c.value: _number(plan.costs.get(c, 0.0)) for c in CostCategory}
        if has_plan
        else {},
        "cash_flow": [
            {"month": m.month, **{c.value: _number(m.amounts.get(c, 0.0)) for c in CostCategory}}
            for m in plan.cash_flow
        ],
        "fleet": [_fleet_row(r) for r in plan.fleet],
        "places": [place_json(r) for r in plan.places],
        "assignments": [assignment_json(r) for r in plan.assignments],
        "options": [row for r in plan.options for row in _option_rows(r, plan.scenario)],
        "diagnostics": list(plan.diagnostics),
        "shadow_prices": [
            {
                "constraint": s.constraint,
                "month": s.month,
                "saving_per_unit": _number(s.saving_per_unit),
                "unit": s.unit,
            }
            for s in plan.shadow_prices
        ],
        # issue 31, added after the contract's keys: GPUs cells left blank and filled from the GPU catalogue
        "catalogue_figures": [
            {
                "gpu": f.gpu,
                "column": f.column,
                "value": f.value,
                "entry": f.entry,
                "source": f.source,
                "note": f.note,
            }
            for f in plan.scenario.catalogue_figures
        ],
        # issue 35 item 10 (methodology 2.16), after the contract's keys: the charge per
        # move of a serving replica, the moves per workload, and what the search
        # minimised (total_cost + change_cost x moves; every money figure is without it)
        "change_cost": plan.scenario.assumptions.change_cost,
        "moves": dict(sorted((plan.moves or {}).items())) if has_plan else {},
        "objective": _number(plan.objective),
    }


def run_to_dict(run: RunResult) -> dict[str, object]:
    return {"scenarios": [plan_to_dict(p) for p in run.plans]}


def run_to_json(run: RunResult) -> str:
    """The whole run as one JSON document; ``allow_nan=False`` proves no NaN slipped through."""
    return json.dumps(run_to_dict(run), indent=2, ensure_ascii=False, allow_nan=False)
