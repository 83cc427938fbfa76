"""The typed records of one row: a GPU type, an offer, a workload, a measurement.

Takes a row's coerced values (``coerce_fields``, or the columns of a sheet)
and its ``Where``; hands on the ``optimizer.domain`` object, after the checks
of what the row's kind needs, with a ``Problem`` for each thing missing.
Shared by the workbook's sheets and the scenario file's ``add_workloads``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from optimizer.domain import Gpu, Kind, Measurement, Offer, OfferOption, Precision, Workload
from optimizer.errors import Problem
from optimizer.inputs.cells import FieldSpec, Where
from optimizer.inputs.schema import (
    ASSUMPTION_KEYS,
    DEMAND,
    FLEET,
    FUTURES,
    GPUS,
    PRICES,
    SCENARIOS,
    THROUGHPUT,
    WORKLOADS,
)

# ---------------------------------------------------------------- records

SPECS: dict[str, dict[str, FieldSpec]] = {
    sheet.name: {c.name: FieldSpec.of_column(c) for c in sheet.columns}
    for sheet in (GPUS, PRICES, FLEET, WORKLOADS, THROUGHPUT, DEMAND, SCENARIOS, FUTURES)
}
ASSUMPTION_SPECS: dict[str, FieldSpec] = {
    k: FieldSpec.of_assumption(a) for k, a in ASSUMPTION_KEYS.items()
}
SCENARIO_FIELDS: tuple[str, ...] = tuple(c.name for c in SCENARIOS.columns if c.name != "scenario")


def _name_problem(name: str, where: Where, column: str) -> list[Problem]:
    # Scenarios list names separated by commas, so a comma inside a name could never be referenced.
    if "," in name:
        return [where.at(column, "a name may not contain a comma", name, "a name without commas")]
    return []


def build_gpu(values: Mapping[str, Any], where: Where) -> tuple[Gpu | None, list[Problem]]:
    problems = _name_problem(values["gpu"], where, "gpu") if "gpu" in values else []
    if problems or not {"gpu", "vram_gb", "fp16_tflops"} <= values.keys():
        return None, problems
    rest = {k: v for k, v in values.items() if k != "gpu"}
    return Gpu(name=values["gpu"], **rest), []


def build_offer(
    values: Mapping[str, Any], where: Where, offer_id: str = "", row: int = 0
) -> tuple[Offer | None, list[Problem]]:
    """An offer, with ``offer_id`` and ``row`` as given (``offer_id()`` makes the ids)."""
    problems: list[Problem] = []
    option = values.get("option")
    if option == OfferOption.RESERVED.value and "term_months" not in values:
        problems.append(
            where.at(
                "term_months",
                "is blank; a reserved offer needs its term",
                None,
                "a whole number ≥ 1 (months)",
            )
        )
    if option is not None and option != OfferOption.RESERVED.value and "term_months" in values:
        problems.append(
            where.at(
                "term_months",
                f"is only for reserved offers, not {option}",
                values["term_months"],
                "blank",
            )
        )
    if problems or "gpu" not in values or option is None or "price" not in values:
        return None, problems
    return (
        Offer(
            offer_id=offer_id,
            gpu=values["gpu"],
            option=_OPTIONS[option],
            price=values["price"],
            term_months=values.get("term_months"),
            max_units=values.get("max_units"),
            available_from=values.get("available_from", 1),
            provider=values.get("provider"),
            source=values.get("source"),
            row=row,
        ),
        [],
    )


_OPTIONS = {o.value: o for o in OfferOption}


def build_workload(
    values: Mapping[str, Any], where: Where
) -> tuple[Workload | None, list[Problem]]:
    """A workload, after the checks of what its kind needs."""
    problems = _name_problem(values["workload"], where, "workload") if "workload" in values else []
    kind = Kind(values["kind"]) if "kind" in values else None
    if kind is not None:
        if kind is Kind.REALTIME_INFERENCE:
            if "tokens_per_second" not in values:
                problems.append(
                    where.at(
                        "tokens_per_second",
                        "is blank; a realtime_inference workload needs its demand",
                        None,
                        "a number > 0 (tokens/s)",
                    )
                )
            if values.get("interruptible") is True:
                problems.append(
                    where.at(
                        "interruptible",
                        "a realtime_inference workload cannot be interruptible (it never runs on spot)",
                        True,
                        "FALSE or blank",
                    )
                )
            problems.extend(
                where.at(
                    name,
                    "is only for training and batch_inference workloads, not realtime_inference",
                    values[name],
                    "blank",
                )
                for name in ("runs_per_month", "deadline_hours")
                if name in values
            )
        else:
            if kind.is_training and values.get("growth_per_month", 0.0) != 0.0:
                problems.append(
                    where.at(
                        "growth_per_month",
                        f"is only for realtime_inference and batch_inference workloads, not {kind.value}",
                        values["growth_per_month"],
                        "blank or 0",
                    )
                )
            if values.get("min_replicas", 1) != 1:
                problems.append(
                    where.at(
                        "min_replicas",
                        f"is only for realtime_inference workloads, not {kind.value}",
                        values["min_replicas"],
                        "blank",
                    )
                )
            if "tokens" not in values:
                if "runs_per_month" in values:
                    need = "the tokens of one run"
                elif kind is Kind.BATCH_INFERENCE:
                    need = "tokens per month"
                else:
                    need = "the tokens of the whole job"
                problems.append(
                    where.at(
                        "tokens",
                        f"is blank; a {kind.value} workload needs {need}",
                        None,
                        "a number > 0 (tokens)",
                    )
                )
    problems.extend(_architecture_problems(values, where))
    start, end = values.get("start_month", 1), values.get("end_month")
    if end is not None and start > end:
        problems.append(
            where.at(
                "end_month",
                f"the window runs backwards: start_month {start} is after end_month {end}",
                end,
                f"a month ≥ {start}",
            )
        )
    if problems or kind is None or "workload" not in values:
        return None, problems
    rest = {k: v for k, v in values.items() if k not in ("workload", "kind", "precision")}
    precision = Precision(values.get("precision", Precision.BF16.value))
    return Workload(name=values["workload"], kind=kind, precision=precision, **rest), []


def _architecture_problems(values: Mapping[str, Any], where: Where) -> list[Problem]:
    """Architecture values that cannot describe one model (model v2 §G).

    A head count implied by ``hidden_size / head_dim`` is not a rule (Gemma-7B
    has 16 heads of 256 on a 3,072 hidden size), so only these two are checked.
    """
    problems = []
    params, active = values.get("params_b"), values.get("active_params_b")
    if params is not None and active is not None and active > params:
        problems.append(
            where.at(
                "active_params_b",
                f"a model cannot use more parameters per token than params_b {params:g}",
                active,
                f"a number > 0, at most {params:g} (billion parameters)",
            )
        )
    heads, kv_heads = values.get("heads"), values.get("kv_heads")
    if heads is not None and kv_heads is not None and heads % kv_heads != 0:
        problems.append(
            where.at(
                "kv_heads",
                f"does not divide heads {heads} (each KV head serves a whole group of heads)",
                kv_heads,
                f"a divisor of {heads}",
            )
        )
    return problems


def build_measurement(
    values: Mapping[str, Any], where: Where
) -> tuple[Measurement | None, list[Problem]]:
    if not {"workload", "gpu"} <= values.keys():
        return None, []
    rest = {k: v for k, v in values.items() if k not in ("workload", "gpu")}
    return Measurement(workload=values["workload"], gpu=values["gpu"], **rest), []


def offer_id(gpu: str, option: str, counts: dict[tuple[str, str], int]) -> str:
    """``gpu|option|n``, n counting that GPU's offers of that option from 1 in sheet order.

    ``counts`` carries the numbering from one row to the next.
    """
    n = counts[(gpu, option)] = counts.get((gpu, option), 0) + 1
    return f"{gpu}|{option}|{n}"
