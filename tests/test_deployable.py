"""The six undeployable plans of issue 13, each now impossible (model v2 §A–§D).

v1 pooled GPU-hours per type and month, so each of these plans was "optimal"
and passed the checker. Every test here solves through the independent
checker (``tests.checked.solve_checked``) and then asserts the physical
layout from the plan's decisions: the failure it guards against would pass a
v1 checker, and each assertion fails on the v1 plan described in its docstring.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

import pytest

from optimizer.check.rules import check_plan
from optimizer.domain import Scenario
from optimizer.results import HOUSE, Decisions, Plan, SolveStatus
from tests.builders import BARE, gpu, measured, offer, scenario, workload
from tests.checked import solve_checked

H = 730.0


def _decisions(plan: Plan) -> Decisions:
    assert plan.status is SolveStatus.OPTIMAL
    assert plan.decisions is not None
    return plan.decisions


def _place_sizes(plan: Plan) -> dict[tuple[str, str, int], int]:
    """GPUs each finite place holds in each month, from the decisions alone."""
    s, d = plan.scenario, _decisions(plan)
    offers = {o.offer_id: o for o in s.offers}
    sizes: dict[tuple[str, str, int], int] = defaultdict(int)
    for (oid, month), n in d.purchases.items():
        for t in range(month, s.horizon_months + 1):
            sizes[(offers[oid].gpu, HOUSE, t)] += n
    for (oid, start), n in d.reservations.items():
        for t in range(start, start + (offers[oid].term_months or 0)):
            sizes[(offers[oid].gpu, oid, t)] += n
    return sizes


def _assert_every_gang_fits_its_place(plan: Plan, widths: dict[str, int]) -> None:
    """Work of a gang of ``widths[w]`` GPUs never sits in an owned or reserved place smaller than that."""
    sizes = _place_sizes(plan)
    for (w, g, key, t), hours in _decisions(plan).work.items():
        if hours > 0 and (g, key, t) in sizes:
            assert sizes[(g, key, t)] >= widths[w], (w, key, t, sizes[(g, key, t)])


def _jobs_on_cheap_capacity(option: str) -> Scenario:
    """A cheap finite place (one reserved or bought H100) beside expensive on-demand H100s."""
    cheap = (
        offer("H100", "reserved", 0.5, term_months=1, max_units=1)
        if option == "reserved"
        else offer("H100", "buy", 100.0, max_units=1)
    )
    return scenario(
        [gpu("H100")],
        [cheap, offer("H100", "on_demand", 9.0)],
        [
            workload("ft-2gpu", "fine_tuning", params_b=8, tokens=1e9),
            workload("lora-3gpu", "lora", params_b=70, tokens=1e9),
            workload("embed", "batch_inference", params_b=1, tokens=1e9),
        ],
        [
            measured("ft-2gpu", "H100", gpus_per_replica=2, gpu_hours=343.0),
            measured("lora-3gpu", "H100", gpus_per_replica=3, gpu_hours=118.5),
            measured("embed", "H100", gpu_hours=200.0),
        ],
        assumptions=BARE,
        horizon_months=1,
    )


@pytest.mark.parametrize("option", ["reserved", "buy"])
def test_multi_gpu_jobs_never_ride_on_one_cheap_gpu(option: str) -> None:
    """v1 put a 2-GPU fine-tune and a 3-GPU LoRA on ONE reserved (or bought) H100:
    697 of its 730 hours, so the hours "fit". Now each gang needs a slot of
    its width, which one GPU cannot give; the single GPU does the 1-GPU job."""
    plan = solve_checked(_jobs_on_cheap_capacity(option))
    d = _decisions(plan)
    _assert_every_gang_fits_its_place(plan, {"ft-2gpu": 2, "lora-3gpu": 3, "embed": 1})
    on_demand = "H100|on_demand|1"
    assert d.work[("ft-2gpu", "H100", on_demand, 1)] == pytest.approx(343.0)
    assert d.work[("lora-3gpu", "H100", on_demand, 1)] == pytest.approx(118.5)
    cheap = HOUSE if option == "buy" else "H100|reserved|1"
    assert d.work[("embed", "H100", cheap, 1)] == pytest.approx(200.0)
    # Cost to the cent: the gangs rented at $9/h, the 1-GPU job on the cheap GPU.
    cheap_cost = 0.5 * H if option == "reserved" else 100.0
    assert plan.total_cost == pytest.approx(9.0 * (343.0 + 118.5) + cheap_cost, abs=0.005)


def _serving(**kw: object) -> Scenario:
    return scenario(
        [gpu("H200", vram_gb=141.0, memory_bandwidth_gbs=4800.0)],
        [
            offer("H200", "buy", 1_000.0, max_units=1),  # one cheap owned GPU
            offer("H200", "on_demand", 5.0),
        ],
        [workload("chat-70b", "realtime_inference", params_b=70, tokens_per_second=1500.0, **kw)],
        [measured("chat-70b", "H200", gpus_per_replica=2, tokens_per_second_per_replica=1812.0)],
        assumptions=BARE,
        horizon_months=1,
    )


def test_a_replica_is_never_half_owned_half_rented() -> None:
    """v1 filled a 2 × H200 tensor-parallel replica with one owned and one rented
    GPU. A replica now runs wholly in one place: with one H200 owned at most,
    the 2-wide replica is rented whole."""
    plan = solve_checked(_serving())
    d = _decisions(plan)
    sizes = _place_sizes(plan)
    for (_w, g, key, width, t), n in d.replicas.items():
        if key == HOUSE:
            assert width * n <= sizes[(g, HOUSE, t)]
    assert d.replicas == {("chat-70b", "H200", "H200|on_demand|1", 2, 1): 2}


def test_serving_runs_at_or_below_target_load_with_min_replicas() -> None:
    """v1 served 1,500 tokens/s with ONE replica rated 1,812 (83 % busy, no
    headroom left for a burst, and no spare replica). At target_load 0.8 one
    replica may carry 1,449.6 tokens/s, so two are needed; min_replicas 3
    asks for a third."""
    plan = solve_checked(_serving(min_replicas=3))
    d = _decisions(plan)
    assert sum(d.replicas.values()) == 3
    loads = [a.load for a in plan.assignments if a.workload == "chat-70b"]
    assert loads and all(x == pytest.approx(1500.0 / (3 * 1812.0)) for x in loads)
    plan = solve_checked(_serving())
    assert sum(_decisions(plan).replicas.values()) == 2
    assert max(a.load or 0.0 for a in plan.assignments) <= 0.8


def test_no_rented_hours_top_up_an_owned_replica() -> None:
    """v1 ran owned serving GPUs at the 95 % cap and bought the other 5 % as
    rented hours. A replica in the house pins its GPUs for the whole month:
    the plan rents no on-demand hours for a workload served in the house."""
    s = scenario(
        [gpu("H100")],
        [offer("H100", "buy", 100.0), offer("H100", "on_demand", 3.0)],
        [workload("chat", "realtime_inference", params_b=8, tokens_per_second=500.0)],
        [measured("chat", "H100", gpus_per_replica=1, tokens_per_second_per_replica=1000.0)],
        assumptions=replace(BARE, max_utilization=0.95),
        horizon_months=2,
    )
    plan = solve_checked(s)
    d = _decisions(plan)
    assert d.replicas == {("chat", "H100", HOUSE, 1, 1): 1, ("chat", "H100", HOUSE, 1, 2): 1}
    assert not d.work
    assert all(f.rented_hours == 0 for f in plan.fleet)
    assert all(f.owned_utilization == pytest.approx(1.0) for f in plan.fleet if f.owned)


def test_recurring_runs_happen_every_month_not_at_the_end() -> None:
    """v1 had no recurring runs: a weekly fine-tune typed as one job over 24
    months was done entirely in the last months, on a GPU bought late for its
    residual credit. With runs_per_month every month does its runs."""
    s = scenario(
        [gpu("H100")],
        [offer("H100", "on_demand", 2.0)],
        [workload("weekly-ft", "lora", params_b=8, tokens=1e8, runs_per_month=4.3)],
        [measured("weekly-ft", "H100", gpu_hours=10.0)],
        assumptions=BARE,
        horizon_months=6,
    )
    plan = solve_checked(s)
    d = _decisions(plan)
    per_month = defaultdict(float)
    for (_w, _g, _key, t), hours in d.work.items():
        per_month[t] += hours
    assert per_month == {t: pytest.approx(43.0) for t in range(1, 7)}
    assert plan.total_cost == pytest.approx(6 * 43.0 * 2.0, abs=0.005)


def test_a_deadline_sets_the_gang_and_its_slots() -> None:
    """A nightly 48-GPU-hour job that must finish in 12 hours needs 4 one-GPU
    copies at once: in the house (cheap, owned) it holds 4 slots, so the
    house must own at least 4 GPUs; v1 would have run it on 1 GPU."""
    s = scenario(
        [gpu("H100")],
        [offer("H100", "buy", 100.0), offer("H100", "on_demand", 50.0)],
        [
            workload(
                "nightly",
                "batch_inference",
                params_b=8,
                tokens=1e9,
                runs_per_month=1,
                deadline_hours=12.0,
            )
        ],
        [measured("nightly", "H100", gpu_hours=48.0)],
        assumptions=BARE,
        horizon_months=1,
    )
    plan = solve_checked(s)
    d = _decisions(plan)
    assert d.purchases == {("H100|buy|1", 1): 4}
    assert d.slots == {("H100", HOUSE, 1, 1): 4}
    assert d.work == {("nightly", "H100", HOUSE, 1): pytest.approx(48.0)}
    (row,) = plan.assignments
    assert (row.copy_width, row.width, row.place) == (1, 4, "house")


def test_two_offers_of_one_provider_are_told_apart_in_places_and_assignments() -> None:
    """The audit's case: two reservations from "prov" (1-month term at $1.00, capped at
    2; 2-month term at $0.90, capped at 1) both named "prov", so a plan holding 2 + 1
    GPUs could not be read back: which term holds 2? Each now carries its Prices row."""
    s = scenario(
        [gpu("G", max_per_node=8)],
        [
            offer("G", "reserved", 1.00, 1, term_months=1, max_units=2, provider="prov", row=2),
            offer("G", "reserved", 0.90, 2, term_months=2, max_units=1, provider="prov", row=3),
            offer("G", "on_demand", 3.00, provider="cloudA", row=4),
        ],
        [workload("svc", "realtime_inference", tokens_per_second=240.0)],
        [measured("svc", "G", gpus_per_replica=1, tokens_per_second_per_replica=100.0)],
        assumptions=BARE,
        horizon_months=2,
    )
    plan = solve_checked(s)
    # 240 / 0.8 = 300 tokens/s: 3 replicas a month, 2 x $1.00 + 1 x $0.90 an hour.
    assert plan.total_cost == pytest.approx(2 * (2 * 1.00 + 0.90) * 730, abs=0.005)
    places = {(p.offer, p.month): p.size for p in plan.places}
    assert places == {
        ("prov (row 2)", 1): 2,
        ("prov (row 2)", 2): 2,
        ("prov (row 3)", 1): 1,
        ("prov (row 3)", 2): 1,
    }
    replicas = {(a.offer, a.month): a.replicas for a in plan.assignments}
    assert replicas == places
    # A provider's only offer of a type and option keeps its plain name.
    one = replace(s, offers=s.offers[1:])
    assert {p.offer for p in solve_checked(one).places} == {"prov"}


def _spot_job(max_per_node: int = 2, **kw: object) -> Scenario:
    return scenario(
        [gpu("G", max_per_node=max_per_node)],
        [offer("G", "spot", 1.00), offer("G", "on_demand", 3.00, 2)],
        [workload("job", "batch_inference", params_b=7, tokens=1e9, interruptible=True, **kw)],
        [measured("job", "G", gpus_per_replica=1, gpu_hours=100.0)],
        assumptions=BARE,
        horizon_months=1,
    )


def test_a_deadline_run_goes_on_spot_only_where_it_finishes_in_time() -> None:
    """The layout audit's case: a 100-GPU-hour run with a 100-hour deadline is a gang of
    one GPU; on spot it does 0.85 useful hours an hour and would take 117.6 h. With one
    GPU a server it may not spread at that yield, so it runs on demand ($300); with a
    200-hour deadline (117.6 h <= 200 h) spot takes it. With two GPUs a server it spreads
    over both at the same yield (58.8 h): spot, at the same paid hours (a later audit)."""
    late = solve_checked(_spot_job(max_per_node=1, runs_per_month=1, deadline_hours=100.0))
    assert late.total_cost == pytest.approx(100 * 3.00, abs=0.005)
    assert {a.place for a in late.assignments} == {"on_demand"}
    in_time = solve_checked(_spot_job(max_per_node=1, runs_per_month=1, deadline_hours=200.0))
    assert in_time.total_cost == pytest.approx(100 / 0.85, abs=0.005)
    assert {a.place for a in in_time.assignments} == {"spot"}
    spread = solve_checked(_spot_job(max_per_node=2, runs_per_month=1, deadline_hours=100.0))
    assert spread.total_cost == pytest.approx(100 / 0.85, abs=0.005)
    assert {a.place for a in spread.assignments} == {"spot"}
    # The checker refuses the spot plan where the deadline is 100 hours on 1-GPU servers.
    tight = _spot_job(max_per_node=1, runs_per_month=1, deadline_hours=100.0)
    report = check_plan(tight, replace(in_time, scenario=tight))
    assert (
        "work: 117.647 h of job on G in G|spot|1 month 1: deadline work on spot: a run of 100 "
        "GPU-hours on the 1 spot GPUs its gang's 1 server hold takes 117.647 h, past its "
        "100 h deadline"
    ) in report.violations


def test_a_one_off_job_on_several_spot_servers_at_once_says_so() -> None:
    """The layout audit's case: the whole job must be done in month 1, so its 2,352.9
    paid spot hours run on more GPUs than one 2-GPU server at once. The contract counts
    its data-parallel copies as separate gangs (true for elastic training); in lock-step
    each reclaimed server would stall them all, and the diagnostics say so."""
    wide = scenario(
        [gpu("G", max_per_node=2)],
        [offer("G", "spot", 1.00), offer("G", "on_demand", 3.00, 2)],
        [workload("train", "fine_tuning", params_b=1, tokens=1e9, interruptible=True)],
        [measured("train", "G", gpus_per_replica=1, gpu_hours=2_000.0)],
        assumptions=BARE,
        horizon_months=1,
    )
    # 2,000 / 0.85 = 2,352.9 paid hours in 730: more than the 1,460 of one 2-GPU server.
    assert (
        "train runs on spot on more than one server at once in month 1; if it trains in "
        "lock-step, each reclaimed server stalls them all and it yields less than planned "
        "(methodology 2.12, one-off jobs on several spot servers)"
    ) in solve_checked(wide).diagnostics


def _capped_spot_runs(max_per_node: int) -> Scenario:
    """The layout audit's case: four runs a month of 700 GPU-hours, copies of 2 GPUs,
    300-hour deadline, so gangs of 2 copies (4 GPUs); spot $0.50 capped at 6 GPUs,
    on demand $5.00."""
    return scenario(
        [gpu("G", max_per_node=max_per_node)],
        [offer("G", "spot", 0.50, max_units=6), offer("G", "on_demand", 5.00, 2)],
        [
            workload(
                "job",
                "batch_inference",
                params_b=7,
                tokens=1e9,
                runs_per_month=4,
                deadline_hours=300.0,
                interruptible=True,
            )
        ],
        [measured("job", "G", gpus_per_replica=2, gpu_hours=700.0)],
        assumptions=BARE,
        horizon_months=1,
    )


def test_deadline_gangs_on_a_capped_spot_offer_hold_slots_of_their_own() -> None:
    """With 2 GPUs a server a gang of 4 spans 2 servers (yield 0.85² = 0.7225; a run takes
    242.2 h). v2's copy-width slots put all 4 runs in three 2-GPU slots (3,875.43 paid
    spot hours, $1,937.72), as if a run could spread over all 6 GPUs; but 6 GPUs are 3
    servers (yield 0.85³), and one 4-GPU gang at a time needs 969 hours in a 730-hour
    month. Now each run holds a run slot of 4 GPUs of its own (two of the 2-GPU slots),
    one run at a time: 2,920 paid spot hours (2,109.7 useful); the other 690.3
    GPU-hours run on demand."""
    s = _capped_spot_runs(max_per_node=2)
    plan = solve_checked(s)
    spot = 4 * H
    on_demand = 4 * 700.0 - spot * 0.85**2
    assert plan.total_cost == pytest.approx(spot * 0.50 + on_demand * 5.00, abs=0.005)
    d = _decisions(plan)
    # A run slot of 4 is 2 slots of width 2; a third would cost nothing and hold nothing,
    # and the plan never reports more slots than its work needs (solve/slot_trim.py).
    assert d.slots == {("G", "G|spot|1", 2, 1): 2}
    assert [p.slots for p in plan.places] == [{2: 2}]
    assert {(a.place, a.width) for a in plan.assignments} == {("spot", 4), ("on_demand", 4)}
    # The copy-width plan, all on spot in three 2-GPU slots, is refused.
    spread = replace(
        d,
        work={("job", "G", "G|spot|1", 1): 4 * 700.0 / 0.85**2},
        slots={("G", "G|spot|1", 2, 1): 3},
    )
    report = check_plan(s, replace(plan, decisions=spread))
    assert (
        "slot_hours: G|spot|1 month 1 class 2: run slots of their own (job 8 GPUs in run "
        "slots of 4 GPUs (3,875.43 h, one run each at a time)) need 8 GPUs, more than the 3 "
        "slots of width 2 hold (6)"
    ) in report.violations


def test_a_spot_gang_spreads_within_its_own_servers() -> None:
    """With 8 GPUs a server the whole offer fits in the gang's one server: a run may spread
    over all 6 GPUs at the same yield (0.85; 161.8 h a run, 4 runs in 647 h), so v2's
    copy-width slots stand and every run goes on spot: 2,800 / 0.85 paid hours."""
    plan = solve_checked(_capped_spot_runs(max_per_node=8))
    assert plan.total_cost == pytest.approx(4 * 700.0 / 0.85 * 0.50, abs=0.005)
    assert _decisions(plan).slots == {("G", "G|spot|1", 2, 1): 3}


def test_a_run_slot_and_a_spreading_gang_share_a_spot_offer() -> None:
    """Two deadline jobs of 1-GPU copies on one spot offer of 8 GPUs, 4 a server, yield
    0.95 a server: ``a`` (gang of 2, one server) needs a run slot of 2 of its own; ``b``
    (gang of 7, two servers, which hold the whole offer) may spread but needs 7 slots at
    once. 2 + 7 > 8, so one of them runs on demand ($3): ``a`` on spot saves more
    (105.26 paid spot hours instead of 300 on demand) than ``b`` (110.80). The copy-width
    rule alone put both on spot ($216.07), where a's runs would span b's servers."""
    jobs = [
        workload(name, "batch_inference", params_b=1, tokens=1e9, runs_per_month=1,
                 deadline_hours=deadline, interruptible=True)
        for name, deadline in (("a", 60.0), ("b", 16.0))
    ]  # fmt: skip
    s = scenario(
        [gpu("G", max_per_node=4)],
        [offer("G", "spot", 1.00, max_units=8), offer("G", "on_demand", 3.00, 2)],
        jobs,
        [measured(name, "G", gpus_per_replica=1, gpu_hours=100.0) for name in ("a", "b")],
        assumptions=replace(BARE, spot_efficiency=0.95),
        horizon_months=1,
    )
    plan = solve_checked(s)
    assert plan.total_cost == pytest.approx(100 / 0.95 + 100 * 3.00, abs=0.005)
    assert {(a.workload, a.place) for a in plan.assignments} == {("a", "spot"), ("b", "on_demand")}
