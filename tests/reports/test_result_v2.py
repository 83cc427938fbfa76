"""Model v2 in the result workbook and the JSON: places, widths, replicas, load, slots.

Hand-built plans (``tests.fake_plans``) pin the layout; a real solve, checked
by the independent checker, shows that every new cell equals the plan's own
figure exactly.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import openpyxl
import pytest
from openpyxl.worksheet.worksheet import Worksheet

from optimizer.domain import Scenario
from optimizer.reports.assignments_sheet import assignment_headers
from optimizer.reports.places_sheet import NO_PLACES, PLACES_HEADERS, slots_text
from optimizer.reports.report_json import run_to_json
from optimizer.reports.result_shared import place_label
from optimizer.reports.result_workbook import write_result_workbook
from optimizer.results import AssignmentRow, PlaceRow, Plan, RunResult
from tests.builders import gpu, l40s, offer, scenario, workload
from tests.fake_plans import (
    CHAT_LOAD,
    CHAT_REPLICAS,
    CHAT_TPS,
    fake_plan,
    fake_run,
    infeasible_plan,
)

EVIL = '=HYPERLINK("http://x","y")'
# XlsxWriter stores a number with 16 significant digits (Excel keeps 15), so
# a float read back equals the plan's to the last digit the file holds.
DIGITS = 1e-15


def same(value: object) -> object:
    """``value`` to the digits a workbook keeps: ints and text exactly, floats to 1e-15."""
    return pytest.approx(value, rel=DIGITS, abs=0) if isinstance(value, float) else value


REPLICAS_LABEL = "{}: replicas (most in a month)"
GPUS_LABEL = "{}: GPUs its replicas hold (most in a month)"
LOAD_LABEL = "{}: peak load (% of serving capacity)"


def _write(tmp_path: Path, run: RunResult, name: str = "results.xlsx") -> Path:
    path = tmp_path / name
    write_result_workbook(path, run)
    return path


def _row_by_label(ws: Worksheet, label: str) -> list[object]:
    for row in ws.iter_rows(values_only=True):
        if row[0] == label:
            return list(row[1:])
    raise AssertionError(f"no row labelled {label!r} in {ws.title}")


def _places_rows(ws: Worksheet) -> tuple[tuple[object, ...], list[tuple[object, ...]]]:
    """The header and data rows of a Places sheet (data: until the first row without a place)."""
    rows = list(ws.iter_rows(max_col=len(PLACES_HEADERS), values_only=True))
    data = []
    for r in rows[1:]:
        if r[1] is None:  # no place: a note, or the end of the table
            break
        data.append(r)
    return rows[0], data


def _assignment_cells(a: AssignmentRow) -> tuple[object, ...]:
    """Columns A–I of an Assignments row, as the plan has them."""
    values = (
        a.workload,
        a.gpu,
        place_label(a.place),
        a.offer,
        a.month,
        a.copy_width,
        a.width,
        a.replicas,
        a.load,
    )
    return tuple(same(v) for v in values)


def _expected_place_row(p: PlaceRow) -> tuple[object, ...]:
    text = slots_text(p.slots) or None
    in_slots = sum(k * n for k, n in p.slots.items())
    return (p.gpu, place_label(p.place), p.offer, p.month, p.size, p.pinned, p.free, in_slots, text)


# --- hand-built plan ------------------------------------------------------


def test_slots_read_as_count_times_gpus_widest_first() -> None:
    assert slots_text({3: 1, 16: 2}) == "2 × 16 GPUs, 1 × 3 GPUs"
    assert slots_text({1: 3}) == "3 × 1 GPU"
    assert slots_text({}) == "" and slots_text({4: 0}) == ""


def test_assignments_show_place_offer_widths_replicas_and_load(tmp_path: Path) -> None:
    plan = fake_plan()
    path = _write(tmp_path, fake_run(plan))
    ws = openpyxl.load_workbook(path, data_only=True)["base Assignments"]
    header = next(ws.iter_rows(max_row=1, values_only=True))
    assert header == assignment_headers("USD")
    assert header[2:9] == (
        "Place",
        "Offer",
        "Month",
        "Copy width (GPUs one copy needs)",
        "Width (GPUs held at once)",
        "Replicas (serving)",
        "Serving load (% of capacity)",
    )
    rows = list(ws.iter_rows(min_row=2, max_row=1 + len(plan.assignments), values_only=True))
    for a, row in zip(plan.assignments, rows, strict=True):
        assert row[:9] == _assignment_cells(a)  # exactly the plan's figures
        assert row[9] == same(a.gpu_hours)
    chat, lora = rows[0], rows[-1]
    assert chat[2:9] == ("house", None, 1, 1, 1, CHAT_REPLICAS, same(CHAT_LOAD))
    assert lora[2:9] == ("on-demand", "Acme Cloud", 2, 2, 2, None, None)
    assert ws["I2"].number_format == "0.0%"


def test_places_sheet_lists_every_finite_place_and_month(tmp_path: Path) -> None:
    plan = fake_plan()
    path = _write(tmp_path, fake_run(plan))
    wb = openpyxl.load_workbook(path, data_only=True)
    assert wb.sheetnames.index("base Places") == wb.sheetnames.index("base Fleet") + 1
    header, rows = _places_rows(wb["base Places"])
    assert header == PLACES_HEADERS
    assert rows == [_expected_place_row(p) for p in plan.places]
    assert rows[0] == ("H100", "house", None, 1, 2, 2, 0, 0, None)
    assert rows[3] == ("L40S", "on-demand", "Acme Cloud", 1, 4, 0, 4, 2, "1 × 2 GPUs")
    formulas = openpyxl.load_workbook(path)["base Places"]
    assert formulas["G2"].value == "=E2-F2"  # free = size - pinned, live
    assert set(formulas.tables) == {"Places_1"}
    assert formulas.tables["Places_1"].ref == f"A1:I{1 + len(plan.places)}"
    assert formulas.freeze_panes == "D2"


def test_a_plan_without_finite_places_says_so(tmp_path: Path) -> None:
    plan = replace(fake_plan(), places=())
    wb = openpyxl.load_workbook(_write(tmp_path, fake_run(plan, infeasible_plan("c"))))
    assert wb["base Places"]["A2"].value == NO_PLACES
    assert str(wb["c Places"]["A2"].value).startswith("No plan: status infeasible")


def test_summary_says_how_many_replicas_serve_and_at_what_load(tmp_path: Path) -> None:
    a, b = fake_plan("a"), fake_plan("b", scale=2.0)
    ws = openpyxl.load_workbook(
        _write(tmp_path, fake_run(a, b, infeasible_plan("c"))), data_only=True
    )["Summary"]
    assert _row_by_label(ws, REPLICAS_LABEL.format("chat-8b")) == [CHAT_REPLICAS] * 2 + [None]
    assert _row_by_label(ws, GPUS_LABEL.format("chat-8b")) == [CHAT_REPLICAS] * 2 + [None]
    assert _row_by_label(ws, LOAD_LABEL.format("chat-8b")) == [same(CHAT_LOAD)] * 2 + [None]
    target = _row_by_label(ws, "Target load (% of serving capacity; the plan stays at or below it)")
    assert target == [0.8, 0.8, 0.8]
    assert all(r[0] != REPLICAS_LABEL.format("lora-7b") for r in ws.iter_rows(values_only=True))


def test_options_list_each_serving_width_with_its_capacity_latency_and_reason(
    tmp_path: Path,
) -> None:
    plan = fake_plan()
    ws = openpyxl.load_workbook(_write(tmp_path, fake_run(plan)), data_only=True)["base Options"]
    rows = [r for r in ws.iter_rows(min_row=2, max_row=7, values_only=True)]
    # The pairs the plan uses first, then the rest in the estimator's order, folded away.
    assert [(r[0], r[1], r[5]) for r in rows] == [
        ("chat-8b", "H100", 1),
        ("lora-7b", "L40S", 2),
        ("chat-8b", "H100", 2),
        ("chat-8b", "L40S", 1),
        ("chat-8b", "L40S", 2),
        ("lora-7b", "H100", 1),
    ]
    assert [r[14] for r in rows] == ["✔", "✔", None, None, None, None]
    folded = [ws.row_dimensions[r].hidden for r in range(2, 8)]
    assert folded == [False, False, True, True, True, True]
    assert {ws.row_dimensions[r].outline_level for r in range(4, 8)} == {1}
    h100 = plan.options[0]
    one, two = rows[0], rows[2]
    rows = [rows[0], rows[2], rows[3], rows[4]]  # chat-8b's four widths, as the checks below read
    assert one[2] == "yes" and not one[3] and one[7] == same(CHAT_TPS) and one[8] == 6.25
    assert one[14] == "✔" and one[12] is not None  # the width the plan serves at, priced
    assert two[2] == "no" and two[3] == h100.widths[1].reason
    assert two[7] == same(h100.widths[1].tokens_per_second_per_replica) and two[8] == 3.4
    assert two[12] is None and two[14] is None  # out: neither priced nor chosen
    assert str(rows[2][3]).startswith("batch-1 decode takes 20.5 ms")
    assert rows[3][7] == 900.5 and rows[3][8] == 12.5


def test_offer_names_from_users_stay_text(tmp_path: Path) -> None:
    plan = fake_plan(provider=EVIL)
    wb = openpyxl.load_workbook(_write(tmp_path, fake_run(plan)))
    found = []
    for title in ("base Assignments", "base Places"):
        for row in wb[title].iter_rows():
            for cell in row:
                if cell.value == EVIL:
                    assert cell.data_type == "s" and cell.quotePrefix, (title, cell.coordinate)
                    found.append(title)
    assert set(found) == {"base Assignments", "base Places"}


# --- a real solve ---------------------------------------------------------


def v2_fleet() -> Scenario:
    """Serving with at least 2 replicas, a recurring deadline job in slots, batch on spot."""
    return scenario(
        [
            gpu("H100"),
            l40s(),
        ],
        [
            offer("H100", "buy", 25_000.0, provider="Rack Vendor"),
            offer("H100", "reserved", 1.2, term_months=6, provider="Cloud R"),
            offer("H100", "on_demand", 3.15),
            offer("L40S", "on_demand", 1.5, provider="Cloud L"),
            offer("L40S", "spot", 0.6),
        ],
        [
            workload(
                "chat-8b",
                "realtime_inference",
                params_b=8,
                tokens_per_second=6000.0,
                latency_ms=50.0,
                min_replicas=2,
            ),
            workload(
                "ft-13b",
                "fine_tuning",
                params_b=13,
                tokens=1e10,
                runs_per_month=4,
                deadline_hours=200.0,
                end_month=6,
            ),
            workload("batch-8b", "batch_inference", params_b=8, tokens=2e10, interruptible=True),
        ],
        name="v2",
        horizon_months=12,
    )


@pytest.fixture(scope="module")
def real_plan() -> Plan:
    from tests.checked import solve_checked

    plan = solve_checked(v2_fleet())
    assert plan.status.has_plan
    return plan


def test_a_real_plan_shows_its_places_widths_replicas_and_load(
    tmp_path: Path, real_plan: Plan
) -> None:
    plan = real_plan
    # The scenario is built so every v2 figure shows: replicas, a gang wider than its copy, slots.
    assert any(a.replicas for a in plan.assignments)
    assert any(a.width > a.copy_width for a in plan.assignments)
    assert any(p.slots for p in plan.places)
    path = _write(tmp_path, fake_run(plan, with_baselines=False))
    wb = openpyxl.load_workbook(path, data_only=True)
    rows = list(
        wb["v2 Assignments"].iter_rows(
            min_row=2, max_row=1 + len(plan.assignments), values_only=True
        )
    )
    for a, row in zip(plan.assignments, rows, strict=True):
        assert row[:9] == _assignment_cells(a)
    _, places = _places_rows(wb["v2 Places"])
    assert places == [_expected_place_row(p) for p in plan.places]
    serving = {a.workload for a in plan.assignments if a.replicas is not None}
    for w in serving:
        per_month: dict[int, int] = {}
        held: dict[int, int] = {}
        for a in plan.assignments:
            if a.workload == w and a.replicas is not None:
                per_month[a.month] = per_month.get(a.month, 0) + a.replicas
                held[a.month] = held.get(a.month, 0) + a.replicas * a.width
        loads = [a.load for a in plan.assignments if a.workload == w and a.load is not None]
        assert _row_by_label(wb["Summary"], REPLICAS_LABEL.format(w)) == [max(per_month.values())]
        assert _row_by_label(wb["Summary"], GPUS_LABEL.format(w)) == [max(held.values())]
        assert _row_by_label(wb["Summary"], LOAD_LABEL.format(w)) == [same(max(loads))]
        assert min(per_month.values()) >= 2  # min_replicas
        assert 0 < max(loads) <= plan.scenario.assumptions.target_load + 1e-9
    widths = sum(len(o.widths) or 1 for o in plan.options)
    options = list(wb["v2 Options"].iter_rows(min_row=2, max_row=1 + widths, values_only=True))
    assert all(r[0] is not None for r in options)
    assert wb["v2 Options"].cell(row=widths + 2, column=1).value is None


def test_a_real_plans_json_carries_places_and_widths(real_plan: Plan) -> None:
    plan = real_plan
    d = json.loads(run_to_json(fake_run(plan, with_baselines=False)))["scenarios"][0]
    assert [
        (r["gpu"], r["month"], r["place"], r["offer"], r["size"], r["pinned"], r["free"])
        for r in d["places"]
    ] == [(p.gpu, p.month, p.place, p.offer, p.size, p.pinned, p.free) for p in plan.places]
    assert [{int(k): v for k, v in r["slots"].items()} for r in d["places"]] == [
        p.slots for p in plan.places
    ]
    for row, a in zip(d["assignments"], plan.assignments, strict=True):
        assert (row["place"], row["offer"], row["copy_width"], row["width"], row["load"]) == (
            a.place,
            a.offer,
            a.copy_width,
            a.width,
            a.load,
        )
    realtime = [o for o in plan.options if o.widths]
    assert realtime
    for pair in realtime:
        rows = [o for o in d["options"] if (o["workload"], o["gpu"]) == (pair.workload, pair.gpu)]
        assert [r["gpus_per_replica"] for r in rows] == [w.width for w in pair.widths]
        assert [r["tokens_per_second_per_replica"] for r in rows] == [
            w.tokens_per_second_per_replica for w in pair.widths
        ]
