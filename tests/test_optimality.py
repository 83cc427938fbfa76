"""The solver's plan is the cheapest under model v2 (§A–§D): compared, to the cent,
with a brute-force enumeration that does not use the model.

Each case family below builds tiny scenarios (1–2 GPU types, 1–2 months of 100
hours, 1–3 workloads, a few offers) around v2 rules, with hand-made
``PairEstimate`` rows (serving widths set by hand): (a) ``serving``: replicas
per place and width with headroom and ``min_replicas`` >= 2; (b) ``gangs``:
2-GPU gangs and 1-GPU work in a capped on-demand offer and the house; (c)
``deadline``: a deadline gang of 2 copies, reserved offers of 2 or 4 GPUs;
(d) ``spot``: recurring runs over 2 months on spot with the gang's yield;
``spot_gangs``: deadline gangs on a capped spot offer, in run slots of their own
where the offer is larger than the gang's servers; ``spot_spread``: deadline runs
late at their gang's width that spread inside its server on spot;
``pick``: a one-off job picking one of two types beside a service;
``shared``: replicas, slots and free GPUs in one capped offer and the house;
``services``: two services on two types. ``tests.brute_force`` and
``tests.brute_force_search`` enumerate every integer decision (purchases per
buy offer and month, reservations per reserved offer and start, replicas per
workload, type, place, width and month, slots per type, finite place, copy
width and month, the type of each one-off training job) and complete each with
the cheapest continuous work, from ``V2_DESIGN_DRAFT.md`` and the v1 cost
formulas alone (no import of ``optimizer.model``, ``solve``, ``check`` or
``estimate``).

Why the enumeration is exhaustive. Every price is >= 0 and buying or
reserving a GPU costs > 0 net (residual credit is < the price: a GPU is at
least a month old at the horizon). Take any optimal plan and, without raising
its cost or breaking a rule (every step below only loosens place capacity,
slot and free hours, the capex budget and the power cap):

1. Trim each service's replicas in each month to a minimal set: dropping any
   one replica, or giving it a narrower allowed width of its type in its
   place, breaks capacity-with-headroom or ``min_replicas``. Either move saves
   rent or house energy (reserved GPUs cost nothing extra) and only frees
   GPUs, and each lowers the replicas or their GPUs, so trimming ends. In a
   minimal set with more than ``min_replicas`` replicas, dropping one of width
   ``k`` falls short, so ``(n_k - 1) * cap_k < D'`` (``D' = tokens/s /
   target_load``): ``n_k <= max(min_replicas, ceil(D' / cap_k))``. Only
   minimal sets are enumerated, placed in every way over the places that can
   host them.
2. Trim training and batch work that does more than its runs (hours cost >= 0;
   fewer hours only loosen rules 2–4). Then one place and month holds at most
   ``runs * R / y`` paid hours of a job (``y`` the spot yield there).
3. Lower every slot count to the fewest that hold its class's hours (at least
   ``m`` where a deadline gang runs). Slots cost nothing; fewer slots loosen
   place capacity and the free GPUs. So a slot count is at most
   ``max(m, ceil(h / (u * H * k)))`` with ``h`` from step 2.
4. Drop GPUs while the places still fit. A house or reserved place needs, in a
   month, ``pinned + sum k * slots + ceil(free work / (u * H))`` GPUs, at most
   the sum of the bounds of steps 1–3 over its workloads (``most_needed``).
   Owned stock only grows, so a GPU of the last purchase can go unless some
   later month needs every owned GPU: the owned level never exceeds the most a
   month needs, which bounds the sum of purchases. A reservation starting in
   ``s`` can go unless some month of its term needs every active GPU: each
   start reserves at most the most a month of its term needs.

Existing GPUs (model v2 §E, ``existing``): an owned Fleet row starts month 1
with its GPUs and its level only falls. Without market value nothing is sold,
so its level is fixed and the house bound grows to it. Under market value a
level above the most any month needs is never cheaper: selling that GPU in the
first month it is surplus earns at least what a later sale or the horizon
credit earns (the used price only falls) and saves its running cost. An
existing reservation has one choice: its GPUs from month 1.

Given every integer, the rest is continuous and needs no LP: one workload per
slot class and type (asserted), so no two workloads share a capacity; every
place and month offers a job paid hours at a constant discounted price up to
a capacity (its slots' hours, the free GPUs' hours, or no limit on an uncapped
offer), each doing ``y / R`` runs an hour. A recurring job's month, and a
one-off job's whole window on its picked type, is one covering row over these
segments: a fractional knapsack, solved exactly by taking segments in order of
cost per run. Months only interact through stock and one-off jobs, so each
month's options are found once per set of place sizes and only the cheapest
option per capacity offered to one-off jobs is kept. The enumeration is a
superset of the model's choices (it keeps dominated offers, purchases after
the last useful month, and so on), which can only make it cheaper.

Each case asserts: the solver is optimal and its total equals the enumerated
minimum within half a cent; the solver's decisions keep every rule and cost
their total by the enumeration's own arithmetic (``evaluate``); the
enumeration's plan does too; and the independent checker accepts the solver's
plan.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, replace

import pytest

import optimizer.model.build
from optimizer.domain import Assumptions, ExistingGpus, FleetKind, Kind, Scenario
from optimizer.results import (
    HOUSE,
    Decisions,
    EstimateSource,
    PairEstimate,
    Plan,
    ServingWidth,
    SolverSettings,
)
from optimizer.solve.solver import solve_scenario
from tests.brute_force import evaluate, instance
from tests.brute_force_search import Cheapest, assert_same_minimum, cheapest
from tests.builders import gpu, offer, scenario, workload

CENT = 0.005
H = 100.0
EXACT = SolverSettings(gap=0.0)
CASES_PER_FAMILY = 12


@dataclass(frozen=True)
class Case:
    name: str
    scenario: Scenario
    estimates: tuple[PairEstimate, ...]


def assumptions(rng: random.Random, **kw: object) -> Assumptions:
    base: dict[str, object] = dict(
        hours_per_month=H,
        electricity_per_kwh=rng.choice([0.0, 0.1]),
        pue=1.0,
        idle_power_fraction=rng.choice([0.0, 0.1]),
        maintenance_per_year=rng.choice([0.0, 0.12]),
        depreciation_months=12.0,
        residual_value=rng.choice(["market", "book", "none"]),
        resale_fraction=rng.choice([0.5, 0.9]),
        resale_decline_per_year=rng.choice([0.0, 0.3]),
        discount_rate=rng.choice([0.0, 0.0, 0.1]),
        max_utilization=rng.choice([1.0, 0.9]),
        spot_efficiency=0.85,
    )
    base.update(kw)
    return Assumptions(**base)  # type: ignore[arg-type]


def job_estimate(w: str, g: str, k: int, hours: float) -> PairEstimate:
    """A training or batch pair: ``k`` GPUs a copy, ``hours`` GPU-hours a run."""
    return PairEstimate(w, g, True, "", 10.0, k, hours, None, None, EstimateSource.MEASURED)


def serving_estimate(w: str, g: str, widths: dict[int, float]) -> PairEstimate:
    """A realtime pair with hand-set capacity (tokens/s) per allowed width."""
    rows = tuple(ServingWidth(k, True, "", cap, 20.0) for k, cap in sorted(widths.items()))
    k0, cap0 = rows[0].width, rows[0].tokens_per_second_per_replica
    return PairEstimate(w, g, True, "", 10.0, k0, None, cap0, 20.0, EstimateSource.MEASURED, rows)


# ---------------------------------------------------------------- case families


def chat_and_job(s: Scenario, job: str, k: int, hours: float) -> Case:
    """A case of ``s`` whose "chat" serves 400 (1 GPU) or 900 tokens/s (2 GPUs) a
    replica and whose ``job`` needs ``k`` GPUs a copy and ``hours`` GPU-hours a run."""
    estimates = (
        serving_estimate("chat", "G", {1: 400.0, 2: 900.0}),
        job_estimate(job, "G", k, hours),
    )
    return Case("", s, estimates)


def serving_replicas(rng: random.Random) -> Case:
    """(a) A service with headroom and ``min_replicas >= 2`` over a house, a reserved
    offer and an uncapped on-demand offer, choosing replica counts per place and width."""
    node = rng.choice([2, 4])
    months = rng.choice([1, 2, 2])
    term = rng.choice([1, months])
    widths = {1: rng.choice([400.0, 500.0]), 2: rng.choice([900.0, 1100.0])}
    if node == 4:
        widths[4] = rng.choice([1700.0, 2300.0])
    s = scenario(
        [gpu("G", tdp_w=1000.0, max_per_node=node)],
        [
            offer("G", "buy", rng.choice([300.0, 900.0, 2000.0])),
            offer(
                "G",
                "reserved",
                rng.choice([0.8, 1.2]),
                term_months=term,
                max_units=rng.choice([None, 2, 3]),
            ),
            offer("G", "on_demand", rng.choice([0.9, 1.5])),
        ],
        [
            workload(
                "chat",
                "realtime_inference",
                tokens_per_second=rng.choice([0.0, 300.0, 800.0, 1200.0]),
                min_replicas=rng.choice([2, 3]),
            )
        ],
        assumptions=assumptions(rng, target_load=rng.choice([0.8, 1.0])),
        horizon_months=months,
        power_cap_kw=rng.choice([None, None, 2.0]),  # 1 kW a GPU: two owned at most
    )
    return Case("", s, (serving_estimate("chat", "G", widths),))


def gangs_and_singles(rng: random.Random) -> Case:
    """(b) Gangs of 2 GPUs a copy and 1-GPU work share a capped on-demand offer
    (max_units 3) and the house: slots and free GPUs."""
    months = rng.choice([1, 2])
    offers = [
        offer("G", "buy", rng.choice([200.0, 600.0])),
        offer(
            "G",
            "on_demand",
            rng.choice([1.0, 2.0]),
            max_units=3,
            available_from=rng.choice([1, 1, months]),
        ),
    ]
    if rng.random() < 0.4:
        offers.append(offer("G", "on_demand", 3.0, n=2))
    if rng.random() < 0.3:
        offers.append(offer("G", "buy", 150.0, n=2, max_units=1))
    s = scenario(
        [gpu("G", tdp_w=1000.0, max_per_node=rng.choice([2, 8]))],
        offers,
        [
            workload("gang", "fine_tuning", runs_per_month=rng.choice([1.0, 1.5])),
            workload("single", "batch_inference", end_month=rng.choice([1, months])),
        ],
        assumptions=assumptions(rng),
        horizon_months=months,
    )
    return Case(
        "",
        s,
        (
            job_estimate("gang", "G", 2, rng.choice([60.0, 150.0, 250.0])),
            job_estimate("single", "G", 1, rng.choice([50.0, 120.0, 200.0])),
        ),
    )


def deadline_gangs(rng: random.Random) -> Case:
    """(c) A job whose deadline needs 2 copies at once, with a reserved offer of
    max_units 2 or 4 and an uncapped on-demand offer (and sometimes 1-GPU work)."""
    months = rng.choice([1, 2])
    k = rng.choice([1, 2])
    recurring = rng.random() < 0.5
    # m = ceil(R / (k * deadline)) = 2 in every case
    if recurring:
        run, deadline = (150.0, 90.0) if k == 1 else (300.0, 90.0)
    else:
        run, deadline = (300.0, 200.0) if k == 1 else (600.0, 200.0)
    offers = [
        offer(
            "G",
            "reserved",
            rng.choice([0.6, 1.0]),
            term_months=1,
            max_units=rng.choice([2, 4]),
            available_from=rng.choice([1, 1, months]),
        ),
    ]
    if rng.random() < 0.8:  # else the gang must fit the reservation, or nothing runs it
        offers.append(offer("G", "on_demand", rng.choice([1.5, 2.5])))
    if rng.random() < 0.3:
        offers.append(offer("G", "buy", 250.0, max_units=4))
    workloads = [
        workload(
            "job",
            "lora",
            deadline_hours=deadline,
            runs_per_month=1.0 if recurring else None,
        )
    ]
    estimates = [job_estimate("job", "G", k, run)]
    if rng.random() < 0.5:
        workloads.append(workload("single", "batch_inference"))
        estimates.append(job_estimate("single", "G", 1, rng.choice([60.0, 150.0])))
    s = scenario(
        [gpu("G", tdp_w=1000.0, max_per_node=8)],
        offers,
        workloads,
        assumptions=assumptions(rng),
        horizon_months=months,
    )
    return Case("", s, tuple(estimates))


def recurring_on_spot(rng: random.Random) -> Case:
    """(d) Recurring runs over 2 months, interruptible: spot yields
    ``spot_efficiency ** ceil(gang / max_per_node)`` per paid hour."""
    # (copy width, copies at once, GPUs a server): spot yields eff ** ceil(k * m / node)
    k, copies, node = rng.choice([(1, 1, 2), (4, 1, 2), (2, 2, 2), (4, 2, 2), (2, 2, 4), (4, 2, 4)])
    run = rng.choice([40.0, 90.0])
    # m = 2 either way; at 1.5 × a run still finishes in time on spot where the yield is
    # above 2/3 (R <= D × n × yield), at 1 × never (methodology 2.12: no spot then).
    deadline = None if copies == 1 else run / (2 * k) * rng.choice([1.0, 1.5, 1.5])
    kind = rng.choice(["pretraining", "batch_inference"])
    offers = [
        offer("G", "spot", rng.choice([0.4, 0.8]), max_units=rng.choice([None, 4])),
        offer("G", "on_demand", 1.5),
    ]
    if rng.random() < 0.5:
        offers.append(offer("G", "buy", rng.choice([300.0, 800.0])))
    s = scenario(
        [gpu("G", tdp_w=1000.0, max_per_node=node)],
        offers,
        [
            workload(
                "runs",
                kind,
                runs_per_month=rng.choice([1.0, 2.5]),
                deadline_hours=deadline,
                interruptible=True,
                tokens=1.0,
                # model v2 §E: a batch month's work grows (each run larger, its gang per month)
                growth_per_month=rng.choice([0.0, 0.5]) if kind == "batch_inference" else 0.0,
            )
        ],
        assumptions=assumptions(rng, spot_efficiency=rng.choice([0.5, 0.85])),
        horizon_months=2,
    )
    return Case("", s, (job_estimate("runs", "G", k, run),))


def spot_gangs(rng: random.Random) -> Case:
    """Deadline gangs of ``m`` copies on a capped spot offer. Where the offer is larger
    than the servers a gang spans, a run may not spread over the copy width's slots (it
    would span more servers and yield less): its runs take run slots of their own, from
    the gang's width up to its servers' GPUs; where the offer fits in those servers, the
    copy-width slots stand. The month's runs need most of the offer's hours, so the rule decides
    how much goes on spot."""
    # (copy width, copies at once, GPUs a server, max_units of the spot offer)
    k, copies, node, cap = rng.choice(
        [(1, 2, 2, 3), (1, 2, 2, 5), (1, 3, 2, 5), (1, 3, 4, 5), (2, 2, 2, 6), (2, 2, 4, 6),
         (1, 2, 4, 6), (1, 3, 4, 4), (1, 2, 4, 4), (2, 2, 4, 4)]
    )  # fmt: skip
    gang = k * copies
    run = rng.choice([60.0, 100.0])
    # m copies exactly (ceil(m / 1.45) = m), in time on spot over up to 2 servers
    # (1.45 > 1 / 0.85²).
    deadline = run / gang * 1.45
    spot_yield = 0.85 ** math.ceil(gang / node)
    runs = rng.choice([0.7, 0.95]) * H * cap * spot_yield / run
    return _runs_on_capped_spot(rng, k, run, runs, deadline, node, cap, (0.4, gang + k))


def spot_spread(rng: random.Random) -> Case:
    """Deadline runs that are late on spot at their gang's width but finish in time spread
    over more GPUs of the gang's own server, at the same yield (methodology 2.12): a run
    of 40 GPU-hours, copies of 1 GPU, deadline 44 h (a gang of 1; 47.1 h on one spot GPU,
    23.5 h on two) or 22 h (a gang of 2; 23.5 h on two, 15.7 h on three). On a capped
    offer the runs take run slots of any width from the narrowest in time to the server's
    GPUs and the cap; with 2 GPUs a server the 22-hour runs stay off spot."""
    deadline, node, cap = rng.choice(
        [(44.0, 2, None), (44.0, 4, None), (22.0, 4, None), (22.0, 2, None), (44.0, 4, 3),
         (44.0, 4, 6), (44.0, 4, 10), (22.0, 4, 3), (22.0, 4, 4), (22.0, 4, 10), (44.0, 2, 2),
         (22.0, 2, 4)]
    )  # fmt: skip
    run = 40.0
    runs = rng.choice([0.4, 0.9]) * H * (cap or 4) * 0.85 / run
    return _runs_on_capped_spot(rng, 1, run, runs, deadline, node, cap, (0.3, 2))


def _runs_on_capped_spot(
    rng: random.Random,
    k: int,
    run: float,
    runs: float,
    deadline: float,
    node: int,
    cap: int | None,
    reserved: tuple[float, int],
) -> Case:
    """One interruptible deadline workload of ``runs`` runs a month on type G (``node``
    GPUs a server): spot (``max_units`` ``cap``), on demand, and with chance
    ``reserved[0]`` a 1-month reservation of at most ``reserved[1]`` GPUs."""
    offers = [
        offer("G", "spot", rng.choice([0.3, 0.6]), max_units=cap),
        offer("G", "on_demand", 1.5),
    ]
    if rng.random() < reserved[0]:
        offers.append(offer("G", "reserved", 0.9, term_months=1, max_units=reserved[1]))
    s = scenario(
        [gpu("G", tdp_w=1000.0, max_per_node=node)],
        offers,
        [
            workload(
                "runs",
                rng.choice(["lora", "batch_inference"]),
                runs_per_month=round(runs, 3),
                deadline_hours=deadline,
                interruptible=True,
                tokens=1.0,
            )
        ],
        assumptions=assumptions(rng),
        horizon_months=rng.choice([1, 2]),
    )
    return Case("", s, (job_estimate("runs", "G", k, run),))


def growing_gang(rng: random.Random) -> Case:
    """(e) A batch run with a deadline that grows from month 1 to month 2, so its gang
    widens (model v2 §C: ``n_wgt`` per month): a capped offer that holds month 1's
    gang may be too small for month 2's."""
    k = rng.choice([1, 2])
    run = rng.choice([60.0, 100.0])
    deadline = run / (2 * k)  # m = 2 in month 1; 3 or 4 in month 2
    factor = rng.choice([1.5, 2.0])
    by_sheet = rng.random() < 0.4  # sheet Demand sets month 2 instead of growth
    interruptible = rng.random() < 0.5
    offers = [
        offer(
            "G", "on_demand", rng.choice([0.5, 1.0]), max_units=rng.choice([2 * k, 3 * k, 4 * k])
        ),
        offer("G", "on_demand", 3.0, n=2),
    ]
    if interruptible:
        offers.append(offer("G", "spot", 0.4, max_units=rng.choice([None, 3 * k])))
    if rng.random() < 0.4:
        offers.append(offer("G", "buy", rng.choice([150.0, 400.0])))
    s = scenario(
        [gpu("G", tdp_w=1000.0, max_per_node=rng.choice([2, 4]))],
        offers,
        [
            workload(
                "grow",
                "batch_inference",
                runs_per_month=rng.choice([None, 1.0, 2.0]),
                deadline_hours=deadline,
                interruptible=interruptible,
                tokens=1.0,
                growth_per_month=0.0 if by_sheet else factor - 1.0,
                demand_by_month=((2, factor),) if by_sheet else (),
            )
        ],
        assumptions=assumptions(rng, spot_efficiency=rng.choice([0.5, 0.85])),
        horizon_months=2,
    )
    return Case("", s, (job_estimate("grow", "G", k, run),))


def one_off_pick(rng: random.Random) -> Case:
    """One-off training picks one of two types and may spread over two months,
    beside a service pinning GPUs of the house it would share."""
    k = rng.choice([1, 2])
    start, end = rng.choice([(1, 2), (1, 2), (1, 1), (2, 2)])
    s = scenario(
        [gpu("A", tdp_w=700.0, max_per_node=4), gpu("B", tdp_w=300.0, max_per_node=4)],
        [
            offer("A", "buy", rng.choice([200.0, 500.0])),
            offer("A", "on_demand", 2.0, max_units=rng.choice([2, 4])),
            offer("B", "reserved", rng.choice([0.5, 0.9]), term_months=1, max_units=2),
            offer("B", "on_demand", rng.choice([1.2, 3.0])),
        ],
        [
            workload(
                "train",
                "lora",
                deadline_hours=rng.choice([None, 150.0]),
                start_month=start,
                end_month=end,
            ),
            workload(
                "chat",
                "realtime_inference",
                tokens_per_second=rng.choice([400.0, 900.0]),
                min_replicas=rng.choice([1, 2]),
            ),
        ],
        assumptions=assumptions(rng),
        horizon_months=2,
        budget_capex=rng.choice([None, None, 800.0]),
    )
    return Case(
        "",
        s,
        (
            job_estimate("train", "A", k, rng.choice([120.0, 250.0])),
            job_estimate("train", "B", k, rng.choice([200.0, 400.0])),
            serving_estimate("chat", "A", {1: 600.0, 2: 1300.0}),
            serving_estimate("chat", "B", {1: 300.0}),
        ),
    )


def replicas_slots_and_free(rng: random.Random) -> Case:
    """Replicas pin GPUs that gang slots and 1-GPU work also want, in a capped
    on-demand offer (max_units 4) and the house."""
    offers = [
        offer("G", "buy", rng.choice([250.0, 700.0])),
        offer("G", "on_demand", rng.choice([0.8, 1.6]), max_units=4),
    ]
    if rng.random() < 0.5:
        offers.append(offer("G", "on_demand", 3.0, n=2))
    s = scenario(
        [gpu("G", tdp_w=1000.0, max_per_node=4)],
        offers,
        [
            workload(
                "chat",
                "realtime_inference",
                tokens_per_second=rng.choice([300.0, 700.0]),
                min_replicas=rng.choice([1, 2]),
            ),
            workload("gang", "pretraining", runs_per_month=1.0),
            workload("single", "batch_inference"),
        ],
        assumptions=assumptions(rng),
        horizon_months=1,
    )
    return Case(
        "",
        s,
        (
            serving_estimate("chat", "G", {1: 400.0, 2: 900.0}),
            job_estimate("gang", "G", 2, rng.choice([100.0, 180.0])),
            job_estimate("single", "G", 1, rng.choice([60.0, 150.0])),
        ),
    )


def two_services(rng: random.Random) -> Case:
    """Two services on two types share a house and a capped on-demand offer."""
    s = scenario(
        [gpu("A", tdp_w=700.0, max_per_node=2), gpu("B", tdp_w=300.0, max_per_node=2)],
        [
            offer("A", "buy", rng.choice([150.0, 400.0]), max_units=rng.choice([None, 3])),
            offer("A", "on_demand", rng.choice([1.0, 2.0]), max_units=2),
            offer("B", "reserved", rng.choice([0.5, 1.0]), term_months=1),
            offer("B", "on_demand", 2.5),
        ],
        [
            workload(
                "chat",
                "realtime_inference",
                tokens_per_second=rng.choice([300.0, 800.0]),
                min_replicas=rng.choice([1, 2]),
            ),
            workload(
                "code",
                "realtime_inference",
                tokens_per_second=rng.choice([200.0, 600.0]),
                min_replicas=rng.choice([1, 2]),
                start_month=rng.choice([1, 2]),
                # model v2 §E: demand that grows, or a month given outright
                growth_per_month=rng.choice([0.0, 0.0, 0.8]),
                demand_by_month=rng.choice([(), (), ((2, 900.0),)]),
            ),
        ],
        assumptions=assumptions(rng),
        horizon_months=2,
    )
    return Case(
        "",
        s,
        (
            serving_estimate("chat", "A", {1: 500.0, 2: 1100.0}),
            serving_estimate("chat", "B", {1: 250.0, 2: 600.0}),
            serving_estimate("code", "A", {2: rng.choice([700.0, 1000.0])}),
            serving_estimate("code", "B", {1: 300.0}),
        ),
    )


def resale(rng: random.Random) -> Case:
    """Model v2 §E: a service that ends early and 1-GPU work that comes late, over
    owned GPUs that can be sold at market value (or kept, under book or none)."""
    offers = [
        offer("G", "buy", rng.choice([300.0, 800.0]), max_units=rng.choice([None, 3])),
        offer("G", "on_demand", rng.choice([1.0, 2.0])),
    ]
    if rng.random() < 0.4:
        offers.append(offer("G", "buy", 350.0, n=2, available_from=2))
    s = scenario(
        [
            gpu(
                "G",
                tdp_w=1000.0,
                max_per_node=rng.choice([2, 4]),
                # model v2 §E: servers that cost, draw, or both
                node_price=rng.choice([0.0, 150.0, 400.0]),
                node_power_w=rng.choice([0.0, 500.0]),
            )
        ],
        offers,
        [
            workload(
                "chat",
                "realtime_inference",
                tokens_per_second=rng.choice([300.0, 700.0]),
                min_replicas=2,
                end_month=rng.choice([1, 2]),
                growth_per_month=rng.choice([0.0, 1.0]),
            ),
            workload("late", "batch_inference", start_month=rng.choice([2, 3])),
        ],
        assumptions=assumptions(
            rng,
            residual_value=rng.choice(["market", "market", "book"]),
            resale_fraction=rng.choice([0.6, 0.9]),
            colocation_per_kw_month=rng.choice([0.0, 20.0]),
        ),
        horizon_months=3,
        power_cap_kw=rng.choice([None, None, 2.0]),
    )
    return chat_and_job(s, "late", 1, rng.choice([60.0, 150.0]))


def existing(rng: random.Random) -> Case:
    """Model v2 §E: GPUs the company owns before month 1 (kept, sold, or joined by
    bought ones, in their servers) and an existing reservation that may run past the
    horizon; sometimes the type has no buy offer (its market price is then the mean
    of its Fleet prices)."""
    offers = [offer("G", "on_demand", rng.choice([1.0, 3.0]))]
    if rng.random() < 0.7:
        offers.append(offer("G", "buy", rng.choice([300.0, 800.0])))
    fleet = [
        ExistingGpus(
            "G|fleet|1",
            "G",
            rng.choice([1, 2, 3]),
            FleetKind.OWNED,
            rng.choice([200.0, 600.0]),
            age_months=rng.choice([0, 6]),
        )
    ]
    if rng.random() < 0.5:
        fleet.append(
            ExistingGpus(
                "G|fleet|2",
                "G",
                rng.choice([1, 2]),
                FleetKind.RESERVED,
                rng.choice([0.5, 2.0]),
                months_left=rng.choice([2, 5]),
            )
        )
    s = scenario(
        [
            gpu(
                "G",
                tdp_w=1000.0,
                max_per_node=2,
                node_price=rng.choice([0.0, 0.0, 150.0]),
                node_power_w=rng.choice([0.0, 300.0]),
            )
        ],
        offers,
        [
            workload(
                "chat",
                "realtime_inference",
                tokens_per_second=rng.choice([300.0, 700.0]),
                end_month=rng.choice([1, 2, 3]),
            ),
            workload("late", "batch_inference", start_month=rng.choice([2, 3])),
        ],
        assumptions=assumptions(
            rng,
            residual_value=rng.choice(["market", "market", "book", "none"]),
            colocation_per_kw_month=rng.choice([0.0, 20.0]),
        ),
        horizon_months=3,
        fleet=tuple(fleet),
    )
    return chat_and_job(s, "late", 1, rng.choice([60.0, 150.0]))


def existing_only(rng: random.Random) -> Case:
    """Model v2 §E: the GPUs the company already has must carry the work. The type
    has no offer, or only offers too small for a 2-GPU gang (a buy offer capped at
    one GPU, an on-demand offer capped at one), so every gang and replica runs on
    the owned Fleet GPUs or an existing reservation, and with none wide enough
    the scenario has no plan."""
    offers = rng.choice(
        [
            [],
            [],
            [offer("G", "buy", 500.0, max_units=1)],
            [offer("G", "on_demand", 2.0, max_units=1)],
            [offer("G", "buy", 500.0, max_units=rng.choice([0, 1])), offer("G", "on_demand", 2.0)],
        ]
    )
    fleet = [ExistingGpus("G|fleet|1", "G", rng.choice([1, 2, 3]), FleetKind.OWNED, 400.0)]
    if rng.random() < 0.5:
        fleet.append(
            ExistingGpus(
                "G|fleet|2", "G", 2, FleetKind.RESERVED, 1.5, months_left=rng.choice([1, 3])
            )
        )
    s = scenario(
        [gpu("G", tdp_w=1000.0, max_per_node=2)],
        offers,
        [
            workload("chat", "realtime_inference", tokens_per_second=rng.choice([300.0, 700.0])),
            workload("tune", "batch_inference"),
        ],
        assumptions=assumptions(rng, residual_value=rng.choice(["market", "none"])),
        horizon_months=2,
        fleet=tuple(fleet),
    )
    return chat_and_job(s, "tune", 2, rng.choice([40.0, 120.0]))


def no_place(rng: random.Random) -> Case:
    """Pairs allowed by their estimates whose places cannot hold one unit in some
    month: an offer capped below the 2-GPU replica and gang, a reservation whose term
    does not fit the horizon, an offer that arrives after month 1. The demand rows of
    such a month have no variable at all: the model must find no plan there (it used
    to drop those rows and return a plan serving nothing), as the enumeration does, and
    use the one adequate place where there is one."""
    small = rng.choice(
        [
            [offer("G", "on_demand", 2.0, max_units=1)],
            [offer("G", "reserved", 1.0, term_months=3)],
            [offer("G", "on_demand", 2.0, available_from=3)],
            [offer("G", "buy", 500.0, max_units=1)],
        ]
    )
    adequate = rng.choice(
        [
            [],
            [offer("G", "on_demand", 2.5, 2)],
            [offer("G", "on_demand", 2.5, 2, available_from=2)],  # month 1 has none
            [offer("G", "reserved", 1.2, 2, term_months=2)],
        ]
    )
    s = scenario(
        [gpu("G", tdp_w=1000.0, max_per_node=2)],
        small + adequate,
        [
            workload("chat", "realtime_inference", tokens_per_second=rng.choice([300.0, 700.0])),
            workload("tune", "batch_inference"),
        ],
        assumptions=assumptions(rng),
        horizon_months=2,
    )
    estimates = (
        serving_estimate("chat", "G", {2: 900.0}),
        job_estimate("tune", "G", 2, rng.choice([40.0, 120.0])),
    )
    return Case("", s, estimates)


FAMILIES: dict[str, Callable[[random.Random], Case]] = {
    "serving": serving_replicas,
    "gangs": gangs_and_singles,
    "deadline": deadline_gangs,
    "spot": recurring_on_spot,
    "spot_gangs": spot_gangs,
    "spot_spread": spot_spread,
    "growing": growing_gang,
    "pick": one_off_pick,
    "shared": replicas_slots_and_free,
    "services": two_services,
    "resale": resale,
    "existing": existing,
    "existing_only": existing_only,
    "no_place": no_place,
}


def cases(family: str) -> list[Case]:
    made = []
    for i in range(CASES_PER_FAMILY):
        case = FAMILIES[family](random.Random(f"{family}-{i}"))
        name = f"{family}-{i}"
        made.append(replace(case, name=name, scenario=replace(case.scenario, name=name)))
    return made


ALL = [case for family in FAMILIES for case in cases(family)]
IDS = [case.name for case in ALL]


@functools.cache
@functools.cache
def solved(name: str, solver: str = "auto") -> Plan:
    case = next(c for c in ALL if c.name == name)
    return solve_scenario(case.scenario, replace(EXACT, solver=solver), estimates=case.estimates)


@functools.cache
def enumerated(name: str) -> Cheapest | None:
    case = next(c for c in ALL if c.name == name)
    return cheapest(case.scenario, case.estimates)


# ---------------------------------------------------------------- the tests


def test_the_cases_cover_every_new_rule() -> None:
    """A guard against an enumeration that tests nothing: the optima use every v2 choice."""
    found = {c.name: enumerated(c.name) for c in ALL}
    plans = [(c, b.decisions) for c in ALL if (b := found[c.name]) is not None]
    offers = {o.offer_id: o for c in ALL for o in c.scenario.all_offers}

    def option(key: str) -> str:
        return "house" if key == HOUSE else offers[key].option.value

    assert any(b is None for b in found.values())  # some scenario is infeasible
    assert max(b.stock_choices for b in found.values() if b is not None) > 200
    assert any(d.purchases for _, d in plans) and any(d.reservations for _, d in plans)
    # Model v2 §E: some optimum sells GPUs before the horizon; demand grows somewhere.
    assert any(t <= c.scenario.horizon_months for c, d in plans for (_o, t) in d.sales)
    growing = [
        (c, d)
        for c, d in plans
        if any(w.growth_per_month or w.demand_by_month for w in c.scenario.workloads)
    ]
    assert len(growing) >= 10
    # ... some optimum buys servers, and some sells them again.
    assert any(d.server_purchases for _c, d in plans)
    assert any(d.server_sales for _c, d in plans)
    # ... and some optimum sells GPUs it had before month 1, another keeps them to the
    # horizon, and one holds an existing reservation that runs past it.
    fleet_sales = [(c, d) for c, d in plans if any("fleet" in o for (o, _t) in d.sales)]
    assert any(t < c.scenario.horizon_months for c, d in fleet_sales for (_o, t) in d.sales)
    assert any(
        c.scenario.fleet and not d.sales and c.scenario.assumptions.residual_value != "market"
        for c, d in plans
    )
    assert any(r.months_left == 5 for c, _d in plans for r in c.scenario.fleet)
    # ... and some optimum serves a growing service with more replicas later.
    assert any(
        sum(n for (w, _g, _p, _k, t), n in d.replicas.items() if w == "code" and t == 2)
        > sum(n for (w, _g, _p, _k, t), n in d.replicas.items() if w == "code" and t == 1)
        > 0
        for _c, d in growing
    )
    served = {(option(key), k) for _, d in plans for (_w, _g, key, k, _t) in d.replicas}
    assert {("house", 1), ("reserved", 1), ("reserved", 2), ("on_demand", 1)} <= served
    assert {option(key) for _, d in plans for (_g, key, _k, _t) in d.slots} == {
        "house",
        "reserved",
        "on_demand",
        "spot",
    }
    gangs = [instance(c.scenario, c.estimates).jobs for c, _ in plans]
    assert any(
        jobs[w, g].copies >= 2 and option(key) == "reserved"
        for (c, d), jobs in zip(plans, gangs, strict=True)
        for (w, g, key, _t) in d.work
    )
    assert any(
        jobs[w, g].spot_yield < c.scenario.assumptions.spot_efficiency and option(key) == "spot"
        for (c, d), jobs in zip(plans, gangs, strict=True)
        for (w, g, key, _t) in d.work
    )
    assert {g for _, d in plans for g in d.picks.values()} == {"A", "B", "G"}

    # ... and a batch run whose month-2 run is larger needs a wider gang then: some
    # optimum uses a capped offer in month 1 that month 2's gang no longer fits.
    def outgrown(c: Case, d: Decisions, jobs: dict) -> bool:
        own = {o.offer_id: o for o in c.scenario.all_offers}
        for w, g, key, t in d.work:
            job, cap = jobs[w, g], getattr(own.get(key), "max_units", None)
            later = job.in_month(2)
            grew = later.copies > job.copies and (w, g, key, 2) not in d.work
            if t == 1 and grew and cap is not None and cap < later.copy_width * later.copies:
                return True
        return False

    assert any(outgrown(c, d, jobs) for (c, d), jobs in zip(plans, gangs, strict=True))


@pytest.mark.parametrize("solver", ["auto", "highs", "scip"])
@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_solver_total_equals_the_enumerated_minimum(case: Case, solver: str) -> None:
    assert_same_minimum(solved(case.name, solver), enumerated(case.name))


SERVING = [c for c in ALL if any(w.kind is Kind.REALTIME_INFERENCE for w in c.scenario.workloads)]


@pytest.mark.parametrize("case", SERVING, ids=[c.name for c in SERVING])
def test_the_serving_hull_loses_no_plan(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the serving pattern hull built (on by default or not), HiGHS finds the enumerated minimum."""
    monkeypatch.setattr(optimizer.model.build, "SERVING_HULL", True)
    plan = solve_scenario(case.scenario, replace(EXACT, solver="highs"), estimates=case.estimates)
    assert_same_minimum(plan, enumerated(case.name))


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_solver_plan_keeps_every_rule_by_hand(case: Case) -> None:
    """The solver's decisions, priced and checked with the enumeration's own arithmetic."""
    plan = solved(case.name)
    if plan.decisions is None:
        return
    cost, broken = evaluate(instance(case.scenario, case.estimates), plan.decisions)
    assert broken == []
    assert plan.total_cost == pytest.approx(cost, abs=CENT)


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_enumerated_plan_keeps_every_rule_and_costs_what_it_says(case: Case) -> None:
    best = enumerated(case.name)
    if best is None:
        return
    cost, broken = evaluate(instance(case.scenario, case.estimates), best.decisions)
    assert broken == []
    assert cost == pytest.approx(best.total_cost, abs=CENT)


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_solver_plan_passes_the_checker(case: Case) -> None:
    from optimizer.check.rules import check_plan

    plan = solved(case.name)
    if plan.decisions is None:
        return
    report = check_plan(case.scenario, plan, list(case.estimates))
    assert report.violations == []
    assert report.total_cost == pytest.approx(plan.total_cost, abs=CENT)
