"""The model builder: variables only where they can be nonzero, safe LP names,
cost coefficients from hand arithmetic, and one golden LP file per family.

Regenerate the golden files after a deliberate change with
``GPUMIX_UPDATE_GOLDEN=1 .venv/bin/pytest tests/model/test_model.py`` and review
the diff: it shows exactly which rows changed.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import re
from dataclasses import replace
from pathlib import Path

import pulp
import pytest

import optimizer.model.costs
from optimizer.domain import Assumptions, Offer, Scenario
from optimizer.errors import SolveError
from optimizer.model.bounds import most_useful
from optimizer.model.build import FAMILIES, build_model
from optimizer.model.built import BuiltModel
from optimizer.model.costs import dominated_offers
from optimizer.results import EstimateSource, PairEstimate
from tests.builders import BARE, gpu, measured, offer, scenario, with_assumptions, workload
from tests.checked import solve_checked

GOLDEN = Path(__file__).parent / "golden"
H = 730.0


def est(
    w: str, g: str, *, hours: float | None = None, k: int = 1, tps: float | None = None
) -> PairEstimate:
    """An allowed pair with hand-set figures."""
    return PairEstimate(
        w, g, True, "", 10.0, k, hours, tps, None if tps is None else 20.0, EstimateSource.MEASURED
    )


def tiny() -> tuple[Scenario, list[PairEstimate]]:
    """Every family in three months: two types, every offer kind, every workload kind."""
    s = scenario(
        [
            gpu("H100", node_price=40_000.0, node_power_w=1_200.0),
            gpu("L40S", vram_gb=48.0, tdp_w=350.0, nvlink=False),
        ],
        [
            offer("H100", "buy", 25_000.0, max_units=4),
            offer("H100", "on_demand", 3.0, max_units=2),
            offer("H100", "reserved", 2.0, term_months=2, max_units=3),
            offer("L40S", "buy", 8_000.0, available_from=2),
            offer("L40S", "spot", 0.5),
            offer("L40S", "on_demand", 1.5),
        ],
        [
            workload(
                "train",
                "fine_tuning",
                params_b=8,
                tokens=1e9,
                interruptible=True,
                end_month=2,
                deadline_hours=200.0,  # 500 GPU-h on H100 at 2 GPUs a copy: 2 copies at once
            ),
            workload("batch", "batch_inference", params_b=8, tokens=1e9, start_month=2),
            workload("chat", "realtime_inference", params_b=8, tokens_per_second=900.0),
        ],
        assumptions=Assumptions(discount_rate=0.1, colocation_per_kw_month=184.0, change_cost=5.0),
        horizon_months=3,
        budget_capex=60_000.0,
        budget_monthly=9_000.0,
        budget_total=100_000.0,
        power_cap_kw=5.0,
    )
    estimates = [
        est("train", "H100", hours=500.0, k=2),
        est("train", "L40S", hours=1500.0),
        est("batch", "H100", hours=200.0),
        est("batch", "L40S", hours=600.0),
        est("chat", "H100", k=1, tps=1000.0),
        est("chat", "L40S", k=2, tps=400.0),
    ]
    return s, estimates


def lp_rows(built: BuiltModel, tmp_path: Path) -> dict[str, list[str]]:
    """The LP text of every row, grouped by family (PuLP's own LP writer)."""
    path = tmp_path / "model.lp"
    built.problem.writeLP(str(path))
    text = path.read_text()
    body = text.split("Subject To\n", 1)[1].split("\nBounds", 1)[0]
    rows: list[str] = []
    for line in body.splitlines():
        if re.match(r"^[a-z_0-9]+:", line):
            rows.append(line)
        elif rows and line.strip():
            rows[-1] += "\n" + line
    by_family: dict[str, list[str]] = {f: [] for f in FAMILIES}
    for row in rows:
        name = row.split(":", 1)[0]
        family = max((f for f in FAMILIES if name.startswith(f + "_")), key=len)
        by_family[family].append(row)
    return by_family


def test_every_family_has_a_golden_file_and_matches_it(tmp_path: Path) -> None:
    s, estimates = tiny()
    by_family = lp_rows(build_model(s, estimates, serving_hull=True), tmp_path)
    if os.environ.get("GPUMIX_UPDATE_GOLDEN"):
        for family, rows in by_family.items():
            (GOLDEN / f"{family}.lp").write_text("\n".join(rows) + "\n")
    stale = {p.stem for p in GOLDEN.glob("*.lp")} - set(FAMILIES)
    assert not stale, f"golden files for families that no longer exist: {sorted(stale)}"
    for family in FAMILIES:
        golden = GOLDEN / f"{family}.lp"
        assert golden.exists(), f"constraint family {family} has no golden file {golden.name}"
        assert by_family[family], f"the tiny scenario has no {family} rows"
        assert "\n".join(by_family[family]) + "\n" == golden.read_text(), family


def test_every_family_has_its_module_function_and_golden_file() -> None:
    """Adding a name to FAMILIES lists everything the new family still lacks."""
    missing: list[str] = []
    for family in FAMILIES:
        module = f"optimizer.model.families.{family}"
        function = f"define_{family}_constraints"
        if importlib.util.find_spec(module) is None:
            missing.append(f"module optimizer/model/families/{family}.py")
        elif not callable(getattr(importlib.import_module(module), function, None)):
            missing.append(f"{function} in optimizer/model/families/{family}.py")
        if not (GOLDEN / f"{family}.lp").exists():
            missing.append(f"golden file tests/model/golden/{family}.lp")
    assert missing == [], "\n".join(missing)


def test_cost_coefficients_do_not_import_pulp() -> None:
    """``costs`` is shared with plan assembly and break-even, which need no solver."""
    tree = ast.parse(Path(optimizer.model.costs.__file__).read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any(name.split(".")[0] in ("pulp", "highspy") for name in imported), imported


def test_build_is_pure_and_deterministic(tmp_path: Path) -> None:
    s, estimates = tiny()
    first = lp_rows(build_model(s, estimates), tmp_path)
    second = lp_rows(build_model(s, estimates), tmp_path)
    assert first == second


def test_lp_names_never_come_from_user_text() -> None:
    # "A-1" and "A 1" would both become "A_1" in PuLP.
    s = scenario(
        [gpu("A-1"), gpu("A 1")],
        [offer("A-1", "on_demand", 1.0), offer("A 1", "on_demand", 1.0)],
        [
            workload("job [x]", "batch_inference", tokens=1.0),
            workload("job->x", "batch_inference", tokens=1.0),
        ],
        assumptions=BARE,
        horizon_months=2,
    )
    estimates = [est(w, g, hours=10.0) for w in ("job [x]", "job->x") for g in ("A-1", "A 1")]
    built = build_model(s, estimates)
    names = [c.name for c in built.problem.constraints()] + [
        v.name for v in built.problem.variables()
    ]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[a-z0-9_]+", n) for n in names), names
    assert set(built.row_names.values()) == {c.name for c in built.problem.constraints()}
    assert built.row_names[("recurring_demand", "w1", "t2")] == "recurring_demand_w1_t2"


def test_variables_exist_only_where_they_can_be_nonzero() -> None:
    s, estimates = tiny()
    built = build_model(s, estimates)
    # Spot only for interruptible training and batch work, on the type with a spot
    # offer, and only where a run finishes by its deadline there (methodology 2.12):
    # train's 8-copy gang on L40S would take R / (8 × 0.85) > 200 h, so none here ...
    spot = {(w, g, t) for (w, g, key, t) in built.work if key == "L40S|spot|1"}
    assert spot == set()
    # ... and at 470 h (4 copies: 1,500 / (4 × 0.85) = 441 h) it may run there.
    late = next(w for w in s.workloads if w.name == "train")
    relaxed = replace(
        s,
        workloads=tuple(replace(w, deadline_hours=470.0) if w is late else w for w in s.workloads),
    )
    built_relaxed = build_model(relaxed, estimates)
    spot = {(w, g, t) for (w, g, key, t) in built_relaxed.work if key == "L40S|spot|1"}
    assert spot == {("train", "L40S", 1), ("train", "L40S", 2)}
    # Work only inside windows: batch from month 2, training to month 2.
    assert {t for (w, _g, _p, t) in built.work if w == "batch"} == {2, 3}
    assert {t for (w, _g, _p, t) in built.work if w == "train"} == {1, 2}
    # A gang never goes where it cannot fit: the 4-GPU training gang on H100
    # (2 copies of 2) fits the house (4 GPUs at most) but not the on-demand
    # offer capped at 2 GPUs or the reservation capped at 3.
    assert {key for (w, g, key, _t) in built.work if (w, g) == ("train", "H100")} == {"house"}
    # Slots exist only for widths that need them, in finite places.
    assert {(g, key, k) for (g, key, k, _t) in built.slots} == {
        ("H100", "house", 2),
        ("L40S", "house", 1),  # the 8-copy 1-GPU deadline gang on L40S
    }
    # The only binaries of the deadline rule: where a gang of 2+ copies may run in a finite place.
    assert {(w, g, key) for (w, g, key, _t) in built.runs_in} == {
        ("train", "H100", "house"),
        ("train", "L40S", "house"),
    }
    # Serving never on spot; replicas only at their widths.
    assert {key for (_w, _g, key, _k, _t) in built.replicas} >= {"house", "H100|on_demand|1"}
    assert not any(key.endswith("spot|1") for (_w, _g, key, _k, _t) in built.replicas)
    assert {(g, k) for (_w, g, _key, k, _t) in built.replicas} == {("H100", 1), ("L40S", 2)}
    # Nothing before available_from; reservations end inside the horizon.
    assert min(t for (oid, t) in built.buy if oid == "L40S|buy|1") == 2
    assert set(built.reserve) == {("H100|reserved|1", 1), ("H100|reserved|1", 2)}
    # Realtime work is whole replicas, never spot; training picks are binary.
    assert all(v.cat == "Integer" for v in built.replicas.values())
    assert all(v.upBound == 1 and v.cat == "Integer" for v in built.pick.values())
    # On-demand caps are bounds: 2 GPUs × 730 h.
    assert built.rent[("H100|on_demand|1", 1)].upBound == 2 * H


def test_purchase_coefficient_by_hand() -> None:
    a = replace(
        Assumptions(),
        discount_rate=0.12,
        maintenance_per_year=0.06,
        electricity_per_kwh=0.2,
        pue=1.5,
        idle_power_fraction=0.1,
        depreciation_months=24.0,
        credit_residual_value=True,
    )
    s = scenario(
        [gpu("H100")],
        [offer("H100", "buy", 24_000.0)],
        [workload("batch", "batch_inference", tokens=1.0)],
        assumptions=a,
        horizon_months=3,
    )
    built = build_model(s, [est("batch", "H100", hours=100.0)])
    df = [1.12 ** (-(t - 1) / 12) for t in (1, 2, 3)]
    # Bought in month 2: price at df(2); upkeep $120 and idle energy
    # 0.7 kW × 1.5 × $0.2 × 0.1 × 730 h in months 2..3; 2 months old at the
    # end of month 3, so 1 - 2/24 of the price credited at df(3).
    running = 0.06 / 12 * 24_000 + 0.7 * 1.5 * 0.2 * 0.1 * H
    expected = 24_000 * df[1] + running * (df[1] + df[2]) - 24_000 * (1 - 2 / 24) * df[2]
    buy = built.buy[("H100|buy|1", 2)]
    assert built.problem.objective[buy] == pytest.approx(expected, rel=1e-12)
    # An hour of house work adds the other 90 % of the draw.
    use = built.work[("batch", "H100", "house", 3)]
    assert built.problem.objective[use] == pytest.approx(0.7 * 1.5 * 0.2 * 0.9 * df[2], rel=1e-12)


def test_dominated_offers_are_left_out() -> None:
    offers = [
        offer("H100", "on_demand", 3.0),
        offer("H100", "on_demand", 3.5, n=2),  # dearer, uncapped rival exists
        offer("H100", "on_demand", 2.0, n=3, max_units=1),  # capped: a real choice
        offer("H100", "reserved", 2.0, n=1, term_months=12),
        offer("H100", "reserved", 2.0, n=2, term_months=24),  # other term: a real choice
        offer("H100", "buy", 25_000.0, n=1, available_from=3),
        offer("H100", "buy", 26_000.0, n=2),  # earlier: a real choice
    ]
    assert dominated_offers(offers) == frozenset({"H100|on_demand|2"})
    same = [offer("H100", "buy", 25_000.0), offer("H100", "buy", 25_000.0, n=2)]
    assert dominated_offers(same) == frozenset({"H100|buy|2"})


def test_a_row_name_used_twice_is_an_error() -> None:
    s, estimates = tiny()
    built = build_model(s, estimates)
    with pytest.raises(SolveError, match="used twice"):
        built.add_row("power", ("cap", "t1"), [], pulp.LpConstraintLE, 1.0)


def test_stock_levels_are_the_integers_and_carry_the_offer_caps() -> None:
    s, estimates = tiny()
    built = build_model(s, estimates)
    # Purchases and reservation starts are continuous; the levels are whole.
    assert all(v.cat == "Continuous" for v in [*built.buy.values(), *built.reserve.values()])
    assert all(v.cat == "Integer" for v in [*built.owned.values(), *built.active.values()])
    # max_units: 4 H100 bought over the horizon, 3 reserved active in any month.
    assert {v.upBound for (oid, _t), v in built.owned.items() if oid == "H100|buy|1"} == {4}
    assert {v.upBound for v in built.active.values()} == {3}
    # Uncapped: bounded by the GPUs the house can use at once (model/bounds.py).
    useful = most_useful(built).gpus["L40S"]
    assert {v.upBound for (oid, _t), v in built.owned.items() if oid == "L40S|buy|1"} == {useful}
    # A level for every month from the offer's first: L40S from month 2;
    # the 2-month reservations starting in months 1 and 2 cover months 1-3.
    assert sorted(t for (oid, t) in built.owned if oid == "L40S|buy|1") == [2, 3]
    assert sorted(t for (_oid, t) in built.active) == [1, 2, 3]
    # Market value (the default): GPUs can be sold from the month after the
    # offer's first, and the cap holds what is bought over the horizon.
    assert sorted(t for (oid, t) in built.sell if oid == "L40S|buy|1") == [3]
    assert "stock_bought_o0" in built.family_rows["stock"]


def test_book_value_keeps_every_gpu_bought() -> None:
    s, estimates = tiny()
    built = build_model(with_assumptions(s, residual_value="book"), estimates)
    assert not built.sell
    assert not any(name.startswith("stock_bought") for name in built.family_rows["stock"])


def _one_and_a_half_gpus(*offers: Offer) -> Scenario:
    """1.5 GPUs' worth of batch work a month for 3 months (1,095 h at 730 h a month)."""
    return scenario(
        [gpu("H100")],
        list(offers),
        [workload("batch", "batch_inference", tokens=1.0)],
        [measured("batch", "H100", gpus_per_replica=1, gpu_hours=1.5 * H)],
        assumptions=BARE,
        horizon_months=3,
    )


@pytest.mark.parametrize(
    ("offers", "total", "bought", "reserved"),
    [
        # Whole GPUs only: 2 bought at $1,000, not the LP's 1.5.
        ((offer("H100", "buy", 1_000.0), offer("H100", "on_demand", 10.0)), 2_000.0, 2, 0),
        # Capped at 1: 1 bought, 365 h a month rented at $10 for 3 months.
        (
            (offer("H100", "buy", 1_000.0, max_units=1), offer("H100", "on_demand", 10.0)),
            1_000.0 + 365 * 3 * 10.0,
            1,
            0,
        ),
        # Reserved for the whole horizon at $1/h: 2 GPUs × 730 h × 3 months.
        (
            (
                offer("H100", "reserved", 1.0, term_months=3),
                offer("H100", "on_demand", 10.0),
            ),
            2 * 730 * 3 * 1.0,
            0,
            2,
        ),
        # Reserved capped at 1: 1 reserved, the other half rented.
        (
            (
                offer("H100", "reserved", 1.0, term_months=3, max_units=1),
                offer("H100", "on_demand", 10.0),
            ),
            730 * 3 * 1.0 + 365 * 3 * 10.0,
            0,
            1,
        ),
    ],
)
def test_whole_levels_give_whole_purchases_and_reservations_within_caps(
    offers: tuple[Offer, ...], total: float, bought: int, reserved: int
) -> None:
    plan = solve_checked(_one_and_a_half_gpus(*offers))
    assert plan.total_cost == pytest.approx(total, abs=0.005)
    d = plan.decisions
    assert d is not None
    assert sum(d.purchases.values()) == bought
    assert sum(d.reservations.values()) == reserved


def test_a_spent_time_limit_stops_the_build_between_steps() -> None:
    import time

    from optimizer.model.build import BuildTimeLimit

    s, estimates = tiny()
    with pytest.raises(BuildTimeLimit) as stopped:
        build_model(s, estimates, deadline=time.perf_counter() - 1.0)
    assert stopped.value.step == "variables"  # nothing was built
    assert build_model(s, estimates, deadline=time.perf_counter() + 60.0).problem.variables()


def test_levels_are_bounded_by_what_one_place_can_use() -> None:
    s, estimates = tiny()
    most = most_useful(build_model(s, estimates))
    # L40S, month 2 (the busiest): chat needs ceil(900 / 0.8 / 400) = 3 replicas
    # of 2 GPUs (6); the training job's 1,500 GPU-h fill ceil(1500 / (0.95 x 730))
    # = 3 one-GPU slots, plus its 8 deadline copies (1500 / 200 h, rounded up): 11;
    # batch's 600 GPU-h a month need ceil(600 / 693.5) = 1 GPU. 6 + 11 + 1 = 18.
    assert most.gpus["L40S"] == 18
    assert most.slots[("L40S", 1)] == 11


def test_change_cost_zero_builds_exactly_the_cheapest_plan_model(tmp_path: Path) -> None:
    """change_cost 0 adds nothing; above 0 only the move columns, their rows and their cost."""
    s, estimates = tiny()
    off = build_model(with_assumptions(s, change_cost=0.0), estimates)
    on = build_model(s, estimates)
    assert not off.moves and not off.family_rows["moves"]
    names_off = {v.name for v in off.problem.variables()}
    names_on = {v.name for v in on.problem.variables()}
    assert names_on - names_off == {v.name for v in on.moves.values()}
    assert names_off <= names_on
    rows_on = {str(c) for c in on.problem.constraints() if not c.name.startswith("moves_")}
    assert rows_on == {str(c) for c in off.problem.constraints()}
    # chat serves months 1-3: a move column per replica kind into months 2 and 3,
    # charged change_cost undiscounted (it is no money paid).
    assert {t for (_w, _g, _p, _k, t) in on.moves} == {2, 3}
    assert {on.problem.objective[v] for v in on.moves.values()} == {5.0}
    # The alternatives cap the plan's cost, which the charge is no part of.
    assert not build_model(s, estimates, charge_moves=False).moves
    for var in names_off:
        a = off.problem.variablesDict()[var]
        b = on.problem.variablesDict()[var]
        assert off.problem.objective.get(a, 0.0) == on.problem.objective.get(b, 0.0), var
