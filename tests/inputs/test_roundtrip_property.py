"""Property: random valid rows of every sheet, written into a workbook, read back as the same typed objects.

The workbook is written by ``optimizer.inputs.template.write_template`` (the same
file users fill in: headers with units, styled empty rows, a README sheet),
so the test also proves the template and the reader agree on every column.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer.domain import Gpu, Kind, Measurement, Offer, OfferOption, Precision, Workload
from optimizer.inputs.reader import read_workbook
from optimizer.inputs.schema import (
    ASSUMPTION_KEYS,
    ASSUMPTIONS,
    RESIDUAL_KEYS,
    ColumnType,
    both_residual_keys,
)
from optimizer.inputs.template import write_template

# Names and texts as users type them: no surrounding spaces (the reader trims), no commas in names.
_NAME = (
    st.text(alphabet="ABCDEFGHXYZabcxyz0123456789-_. ", min_size=1, max_size=10)
    .map(str.strip)
    .filter(bool)
)
_TEXT = (
    st.text(alphabet="abcXYZ019 .,;:()$€%=+-@'\"", min_size=1, max_size=20)
    .map(str.strip)
    .filter(bool)
)
# Excel keeps 15 significant digits: values with at most 11 are written and read back exactly.
# Up to 100,000: the smallest bound the reader puts on these numbers (vram_gb, params_b).
_POSITIVE = st.integers(1, 10**7).map(lambda i: i / 100)
_NON_NEGATIVE = st.integers(0, 10**7).map(lambda i: i / 100)
_FRACTION = st.integers(1, 1000).map(lambda i: i / 1000)
_MONTH = st.integers(1, 36)


def _optional(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


@st.composite
def _gpus(draw: st.DrawFn) -> list[Gpu]:
    names = draw(st.lists(_NAME, min_size=1, max_size=4, unique_by=str.lower))
    return [
        Gpu(
            name=name,
            vram_gb=draw(_POSITIVE),
            fp16_tflops=draw(_POSITIVE),
            memory_bandwidth_gbs=draw(_optional(_POSITIVE)),
            tdp_w=draw(_POSITIVE),  # always given: any type may have a buy offer
            nvlink=draw(st.booleans()),
            max_per_node=draw(st.integers(1, 16)),
            mfu_training=draw(_optional(_FRACTION)),
        )
        for name in names
    ]


@st.composite
def _offers(draw: st.DrawFn, gpus: list[Gpu]) -> list[Offer]:
    offers = []
    counts: dict[tuple[str, OfferOption], int] = {}
    for row in range(2, 2 + draw(st.integers(0, 8))):
        gpu = draw(st.sampled_from(gpus)).name
        option = draw(st.sampled_from(list(OfferOption)))
        n = counts[(gpu, option)] = counts.get((gpu, option), 0) + 1
        offers.append(
            Offer(
                offer_id=f"{gpu}|{option.value}|{n}",
                gpu=gpu,
                option=option,
                price=draw(_NON_NEGATIVE),
                term_months=draw(st.integers(1, 36)) if option is OfferOption.RESERVED else None,
                max_units=draw(_optional(st.integers(0, 1000))),
                available_from=draw(_MONTH),
                provider=draw(_optional(_TEXT)),
                source=draw(_optional(_TEXT)),
                row=row,
            )
        )
    return offers


@st.composite
def _workloads(draw: st.DrawFn) -> list[Workload]:
    names = draw(st.lists(_NAME, min_size=0, max_size=4, unique_by=str.lower))
    workloads = []
    for name in names:
        kind = draw(st.sampled_from(list(Kind)))
        realtime = kind is Kind.REALTIME_INFERENCE
        start = draw(_MONTH)
        workloads.append(
            Workload(
                name=name,
                kind=kind,
                params_b=draw(_POSITIVE),  # given, so no measured figures are needed
                precision=draw(st.sampled_from(list(Precision))),
                tokens=None if realtime else draw(_POSITIVE),
                tokens_per_second=draw(_POSITIVE) if realtime else None,
                latency_ms=draw(_optional(_POSITIVE)),
                context_tokens=draw(st.integers(1, 200_000)),
                start_month=start,
                end_month=draw(_optional(st.integers(start, 36))),
                interruptible=False if realtime else draw(st.booleans()),
                vram_gb=draw(_optional(_POSITIVE)),
                min_replicas=draw(st.integers(1, 64)) if realtime else 1,
                runs_per_month=None if realtime else draw(_optional(_POSITIVE)),
                deadline_hours=None if realtime else draw(_optional(_POSITIVE)),
            )
        )
    return workloads


@st.composite
def _measurements(draw: st.DrawFn, workloads: list[Workload], gpus: list[Gpu]) -> list[Measurement]:
    pairs = [(w, g) for w in workloads for g in gpus]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=5)) if pairs else []
    return [
        Measurement(
            workload=w.name,
            gpu=g.name,
            # A realtime replica's width divides max_per_node (model v2 §B, §D).
            gpus_per_replica=draw(
                _optional(
                    st.sampled_from(
                        [d for d in range(1, g.max_per_node + 1) if g.max_per_node % d == 0]
                    )
                    if w.kind is Kind.REALTIME_INFERENCE
                    else st.integers(1, 64)
                )
            ),
            gpu_hours=None if w.kind is Kind.REALTIME_INFERENCE else draw(_optional(_POSITIVE)),
            tokens_per_second_per_replica=draw(_optional(_POSITIVE))
            if w.kind is Kind.REALTIME_INFERENCE
            else None,
        )
        for w, g in chosen
    ]


@st.composite
def _scenarios(draw: st.DrawFn, workloads: list[Workload], gpus: list[Gpu]) -> list[dict[str, Any]]:
    """Scenarios rows: only the cells given (blank cells are left out), as typed values."""
    names = draw(st.lists(_NAME, max_size=3, unique_by=str.lower))
    # Every window must fit the scenario's horizon (windows end by month 36).
    optional: list[tuple[str, st.SearchStrategy[Any]]] = [
        ("horizon_months", st.integers(36, 120)),
        ("budget_total", _NON_NEGATIVE),
        ("budget_capex", _NON_NEGATIVE),
        ("budget_monthly", _NON_NEGATIVE),
        ("power_cap_kw", _NON_NEGATIVE),
        ("allow_buy", st.booleans()),
        ("allow_rent", st.booleans()),
        ("exclude_gpus", _names_of([g.name for g in gpus])),
        ("mfu_training", _FRACTION),
        ("credit_residual_value", st.booleans()),
    ]
    if workloads:
        optional.append(("workloads", _names_of([w.name for w in workloads])))
    rows = []
    for name in names:
        cells: dict[str, Any] = {"scenario": name}
        for key, strategy in optional:
            if draw(st.booleans()):
                cells[key] = draw(strategy)
        rows.append(cells)
    return rows


def _names_of(names: list[str]) -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(st.sampled_from(names), min_size=1, unique=True).map(tuple)


@st.composite
def _assumptions(draw: st.DrawFn) -> list[dict[str, Any]]:
    keys = draw(
        st.lists(st.sampled_from([a.key for a in ASSUMPTIONS]), unique=True, max_size=6).filter(
            lambda ks: not both_residual_keys(ks)  # one place gives one of the two
        )
    )
    rows = []
    for key in keys:
        declared = ASSUMPTION_KEYS[key]
        if declared.column_type is ColumnType.BOOL:
            value: Any = draw(st.booleans())
        elif declared.column_type is ColumnType.CHOICE:
            value = draw(st.sampled_from(declared.allowed))
        elif declared.label:  # currency: a short label, read back as text
            value = draw(st.sampled_from(["EUR", "€", "CHF", "R$", "ABCDEFGH"]))
        elif declared.at_most_one or declared.fraction:
            value = draw(_FRACTION)
        else:  # up to the key's bound (pue at most 10)
            most = int((declared.maximum or 1e5) * 100)
            value = draw(st.integers(1, min(most, 10**7)).map(lambda i: i / 100))
        rows.append({"key": key, "value": value, "source": draw(_optional(_TEXT))})
    return rows


Inputs = tuple[
    list[Gpu],
    list[Offer],
    list[Workload],
    list[Measurement],
    list[dict[str, Any]],
    list[dict[str, Any]],
]


@st.composite
def _inputs(draw: st.DrawFn) -> Inputs:
    gpus = draw(_gpus())
    workloads = draw(_workloads())
    return (
        gpus,
        draw(_offers(gpus)),
        workloads,
        draw(_measurements(workloads, gpus)),
        draw(_scenarios(workloads, gpus)),
        draw(_assumptions()),
    )


def _row(obj: object, rename: dict[str, str], skip: tuple[str, ...] = ()) -> dict[str, object]:
    """An object's fields as a template row (enums as their text, None left blank)."""
    row: dict[str, object] = {}
    for key, value in obj.__dict__.items():
        if key in skip:
            continue
        row[rename.get(key, key)] = value.value if hasattr(value, "value") else value
    return row


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_inputs())
def test_written_rows_read_back_as_the_same_objects(inputs: Inputs) -> None:
    gpus, offers, workloads, measurements, scenarios, assumptions = inputs
    rows = {
        "GPUs": [_row(g, {"name": "gpu"}) for g in gpus],
        "Prices": [_row(o, {}, skip=("offer_id", "row")) for o in offers],
        "Workloads": [_row(w, {"name": "workload"}) for w in workloads],
        "Throughput": [_row(m, {}) for m in measurements],
        "Scenarios": scenarios,
        "Assumptions": assumptions,
    }
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "random.xlsx"
        write_template(path, rows)
        data = read_workbook(path)
    assert data.gpus == tuple(gpus)
    assert data.offers == tuple(offers)
    assert data.workloads == tuple(workloads)
    assert data.measurements == tuple(measurements)
    assert [
        {"scenario": s.name, **s.settings, **s.assumptions} for s in data.scenarios
    ] == scenarios
    # The template writes every key (its default and source unless given);
    # of the two residual keys, the one not given is left blank.
    given_rows = {r["key"]: r for r in assumptions}
    blank = {k for k in RESIDUAL_KEYS if set(RESIDUAL_KEYS) & set(given_rows)} - set(given_rows)
    expected = [
        (a.key, given_rows[a.key]["value"], given_rows[a.key]["source"])
        if a.key in given_rows
        else (a.key, None if a.key in blank else a.default, a.source)
        for a in ASSUMPTIONS
    ]
    assert [(r.key, r.value, r.source) for r in data.assumptions] == expected
