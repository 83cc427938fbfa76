"""The enumeration itself: every integer decision within its bound, each completed greedily.

See ``tests/test_optimality.py`` for why the bounds hold and why the greedy
completion is exact; ``tests.brute_force`` has the figures and the money.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from optimizer.domain import FleetKind, Kind, OfferOption, Scenario
from optimizer.results import HOUSE, Decisions, PairEstimate, Plan, SolveStatus
from tests.brute_force import (
    Instance,
    Job,
    Place,
    active,
    all_offers,
    ceil,
    discount,
    existing_servers,
    fewest_run_slot_gpus,
    hour_price,
    instance,
    levels,
    may_run,
    most_needed,
    most_paid_hours,
    most_run_slot_hours,
    moves_of,
    server_cost,
    size_of,
    stock_cost,
    utilization,
    work_factor,
)


class TooBig(Exception):
    """The enumeration would take too long: make the instance smaller."""


MAX_STOCK_CHOICES = 20_000


@dataclass(frozen=True)
class Segment:
    """Paid hours of one job in one place and month at one price, up to a capacity."""

    job: Job
    place: Place
    month: int
    cost: float  # discounted USD per paid hour
    hours: float  # most paid hours (math.inf uncapped)
    units: float  # runs (one-off: whole jobs) done per paid hour

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.job.workload.name, self.job.gpu, self.place.key, self.month)


def fill(segments: Sequence[Segment], need: float) -> tuple[float, dict] | None:
    """Cheapest paid hours doing ``need`` runs: fractional knapsack by cost per run."""
    cost, work = 0.0, {}
    for seg in sorted(segments, key=lambda x: x.cost / x.units):
        if need <= 1e-12:
            break
        hours = min(need / seg.units, seg.hours)
        if hours > 0:
            work[seg.key] = work.get(seg.key, 0.0) + hours
            cost += hours * seg.cost
            need -= hours * seg.units
    if need > 1e-9:
        return None
    return cost, work


@dataclass
class MonthOption:
    """One month's replicas and slots, its fixed and recurring cost, what one-off jobs may use."""

    cost: float
    replicas: dict = field(default_factory=dict)
    slots: dict = field(default_factory=dict)
    work: dict = field(default_factory=dict)
    one_off: list[Segment] = field(default_factory=list)


def compositions(n: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every way to write ``n`` as an ordered sum of ``parts`` counts >= 0."""
    if parts == 0:
        if n == 0:
            yield ()
        return
    for first in range(n + 1):
        for rest in compositions(n - first, parts - 1):
            yield (first, *rest)


def replica_layouts(inst: Instance, t: int, size: dict) -> list[dict]:
    """Every placement of a minimal replica set of each service active in ``t``."""
    s = inst.s
    layouts: list[dict] = [{}]
    for w in s.workloads:
        if w.kind is not Kind.REALTIME_INFERENCE or not active(s, w, t):
            continue
        mine: list[dict] = []
        for counts in inst.minimal[w.name, t]:
            parts = []
            for (g, k), n in sorted(counts.items()):
                hosts = [
                    p
                    for p in inst.places[g]
                    if may_run(p, w)
                    and (size_of(s, p, t, size) is None or size_of(s, p, t, size) >= k)
                ]
                parts.append(
                    [
                        {
                            (w.name, g, p.key, k, t): c
                            for p, c in zip(hosts, split, strict=True)
                            if c
                        }
                        for split in compositions(n, len(hosts))
                    ]
                )
            mine += [
                {k: v for d in combo for k, v in d.items()} for combo in itertools.product(*parts)
            ]
        layouts = [{**a, **b} for a in layouts for b in mine]
    return layouts


def month_options(inst: Instance, t: int, size: dict) -> list[MonthOption]:
    """Every feasible choice of replicas and slots in ``t`` given the places' sizes."""
    s = inst.s
    H = s.assumptions.hours_per_month
    df = discount(s, t)
    jobs = [j.in_month(t) for j in inst.jobs.values() if active(s, j.workload, t)]
    finite = [p for ps in inst.places.values() for p in ps if p.finite]
    found: list[MonthOption] = []
    for layout in replica_layouts(inst, t, size):
        pinned = {(p.gpu, p.key): 0 for p in finite}
        cost = 0.0
        for (_w, g, key, k, _t), n in layout.items():
            p = next(x for x in inst.places[g] if x.key == key)
            if p.finite:
                pinned[g, key] += k * n
            cost += k * H * n * hour_price(s, p) * df
        if any(pinned[p.gpu, p.key] > (size_of(s, p, t, size) or 0) for p in finite):
            continue
        # Slots: per finite place and class of a job that may run there, up to the
        # fewest that hold its most hours (at least m for a deadline gang).
        slot_keys, ranges = [], []
        for p in finite:
            room = (size_of(s, p, t, size) or 0) - pinned[p.gpu, p.key]
            for j in jobs:
                if j.gpu != p.gpu or j.slot_class_at(p) is None:
                    continue
                if not may_run(p, j.workload, j, t):
                    continue
                k = j.copy_width
                most = max(
                    j.copies if j.copies >= 2 else 0,
                    math.ceil(most_paid_hours(inst, j, p) / (utilization(s, p) * H * k) - 1e-9),
                )
                if (widths := j.run_slots(p)) is not None:  # run slots out of these slots
                    paid = most_paid_hours(inst, j, p)
                    most = fewest_run_slot_gpus(paid, widths, utilization(s, p) * H) // k
                slot_keys.append((p, j))
                ranges.append(range(min(most, room // k) + 1))
        for counts in itertools.product(*ranges):
            held = {(p.gpu, p.key): 0 for p in finite}
            for (p, j), n in zip(slot_keys, counts, strict=True):
                held[p.gpu, p.key] += j.copy_width * n
            if any(
                pinned[p.gpu, p.key] + held[p.gpu, p.key] > (size_of(s, p, t, size) or 0)
                for p in finite
            ):
                continue
            slots = {
                (p.gpu, p.key, j.copy_width, t): n
                for (p, j), n in zip(slot_keys, counts, strict=True)
            }
            option = _complete_month(inst, t, size, jobs, pinned, held, slots)
            if option is not None:
                option.cost += cost
                option.replicas = layout
                found.append(option)
    return found


def _complete_month(inst, t, size, jobs, pinned, held, slots) -> MonthOption | None:
    """Segments of each job in ``t``; recurring jobs filled here, one-off ones handed on."""
    s = inst.s
    H = s.assumptions.hours_per_month
    df = discount(s, t)
    option = MonthOption(0.0, slots={k: n for k, n in slots.items() if n})
    for w in {j.workload.name: j.workload for j in jobs}.values():
        segments = []
        for j in jobs:
            if j.workload.name != w.name:
                continue
            for p in inst.places[j.gpu]:
                n = size_of(s, p, t, size)
                if not may_run(p, w, j, t) or (p.rental and n == 0):
                    continue
                if n is None:
                    hours = math.inf  # an uncapped offer hosts any gang
                elif (widths := j.run_slots(p)) is not None:
                    # Run slots out of its copy width's slots, one run each at a time.
                    have = slots.get((p.gpu, p.key, j.copy_width, t), 0)
                    hours = most_run_slot_hours(have * j.copy_width, widths, utilization(s, p) * H)
                elif j.slot_class is None:
                    hours = utilization(s, p) * H * (n - pinned[p.gpu, p.key] - held[p.gpu, p.key])
                else:
                    have = slots.get((p.gpu, p.key, j.copy_width, t), 0)
                    hours = 0.0 if have < j.copies else utilization(s, p) * H * j.copy_width * have
                if hours > 0:
                    y = j.spot_yield if p.spot else 1.0
                    segments.append(Segment(j, p, t, hour_price(s, p) * df, hours, y / j.run_hours))
        if w.one_off_training:
            option.one_off += segments
            continue
        runs = w.runs_per_month if w.runs_per_month is not None else 1.0
        filled = fill(segments, runs * work_factor(w, t))
        if filled is None:
            return None
        option.cost += filled[0]
        option.work.update(filled[1])
    return option


# ---------------------------------------------------------------- stock


def _purchase_choices(inst: Instance, g: str) -> list[tuple[dict, dict]]:
    """(purchases, sales) of ``g``: every path of stock levels, one per buy offer.

    A level is at most the most GPUs the house can need in any month (more
    only adds cost), and the levels of all offers together too. Without
    market value a level never falls (nothing is sold), as in v1.
    """
    s = inst.s
    house = next((p for p in inst.places[g] if p.key == HOUSE), None)
    if house is None:
        return [({}, {})]
    most = max(most_needed(inst, house, t) for t in s.months)
    sells = s.assumptions.residual_rule.value == "market"
    per_offer = []
    for r in s.fleet:  # owned Fleet rows: start at count, never rise; fall only when sold
        if r.gpu != g or r.kind is not FleetKind.OWNED:
            continue
        paths = []
        top = min(r.count, most) if sells else r.count
        for path in itertools.product(range(top + 1), repeat=len(s.months)):
            if any(b > a for a, b in itertools.pairwise(path)):
                continue
            if not sells and any(x != r.count for x in path):
                continue
            sold, before = {}, r.count
            for t, level in zip(s.months, path, strict=True):
                if level < before:
                    sold[(r.source_id, t)] = before - level
                before = level
            paths.append((dict(zip(s.months, path, strict=True)), {}, sold))
        per_offer.append(paths)
    # Without market value existing GPUs are kept whatever the need: the bound grows.
    forced = (
        0 if sells else sum(r.count for r in s.fleet if r.gpu == g and r.kind is FleetKind.OWNED)
    )
    most = max(most, forced)
    for o in s.offers_of(g, OfferOption.BUY):
        months = [t for t in s.months if t >= o.available_from]
        paths = []
        for path in itertools.product(range(most + 1), repeat=len(months)):
            if not sells and any(b < a for a, b in itertools.pairwise(path)):
                continue
            buys, sold, before = {}, {}, 0
            for t, level in zip(months, path, strict=True):
                if level > before:
                    buys[(o.offer_id, t)] = level - before
                elif level < before:
                    sold[(o.offer_id, t)] = before - level
                before = level
            if o.max_units is None or sum(buys.values()) <= o.max_units:
                paths.append((dict(zip(months, path, strict=True)), buys, sold))
        per_offer.append(paths)
    found = []
    for combo in itertools.product(*per_offer):
        if all(sum(p[0].get(t, 0) for p in combo) <= most for t in s.months):
            found.append(
                (
                    {k: n for p in combo for k, n in p[1].items()},
                    {k: n for p in combo for k, n in p[2].items()},
                )
            )
    return found


def _reservation_choices(inst: Instance, p: Place) -> list[dict]:
    """Starts of one reserved offer: each at most what the place can need during its term."""
    s = inst.s
    o = p.offer
    assert o is not None
    if (row := s.existing(o.offer_id)) is not None:
        return [{(o.offer_id, 1): row.count}]  # an existing reservation is held
    term = o.term_months or 1
    starts = [t for t in s.months if t >= o.available_from and t + term - 1 <= s.horizon_months]
    ranges = []
    for start in starts:
        most = max(most_needed(inst, p, t) for t in range(start, start + term))
        ranges.append(range((most if o.max_units is None else min(most, o.max_units)) + 1))
    found = []
    for counts in itertools.product(*ranges):
        v = {(o.offer_id, st): n for st, n in zip(starts, counts, strict=True) if n}
        busy = [sum(n for (_, st), n in v.items() if st <= t < st + term) for t in s.months]
        if o.max_units is None or max(busy, default=0) <= o.max_units:
            found.append(v)
    return found


@dataclass(frozen=True)
class Cheapest:
    total_cost: float
    decisions: Decisions
    stock_choices: int


def cheapest(s: Scenario, estimates: Sequence[PairEstimate]) -> Cheapest | None:
    """The cheapest plan over every integer choice within the bounds, or None (infeasible)."""
    best: tuple[float, Candidate] | None = None
    choices = 0
    for total, c in candidates(s, estimates):
        choices += 1
        if c is not None and (best is None or total < best[0] - 1e-9):
            best = (total, c)
    return None if best is None else Cheapest(best[0], best[1].decisions(), choices)


def assert_same_minimum(plan: Plan, best: Cheapest | None) -> None:
    """The solver's plan is optimal at the enumerated minimum (within half a cent), or
    both find no plan."""
    if best is None:
        assert plan.status is SolveStatus.INFEASIBLE, plan.diagnostics
        return
    assert plan.status is SolveStatus.OPTIMAL, plan.diagnostics
    assert plan.total_cost is not None
    assert abs(plan.total_cost - best.total_cost) <= 0.005, (
        plan.total_cost,
        best.total_cost,
        plan.decisions,
        best.decisions,
    )


@dataclass(frozen=True)
class Candidate:
    """One choice of stock (purchases, reservations, sales, servers) completed cheapest."""

    buys: dict
    reserved: dict
    sold: dict
    flex: Decisions
    server_purchases: dict
    server_sales: dict

    def decisions(self) -> Decisions:
        d = self.flex
        return Decisions(
            self.buys,
            self.reserved,
            d.replicas,
            d.work,
            d.slots,
            d.picks,
            sales=self.sold,
            server_purchases=self.server_purchases,
            server_sales=self.server_sales,
        )


def candidates(
    s: Scenario, estimates: Sequence[PairEstimate], bounds: Scenario | None = None
) -> Iterator[tuple[float, Candidate | None]]:
    """Every integer stock choice within the bounds with its cheapest total (None: infeasible).

    ``bounds`` (default ``s``) is the scenario whose needs bound the stock
    levels: the same GPUs and offers as ``s`` with at least its demand (the
    futures' tests enumerate every future over the largest one's choices).
    """
    inst = instance(s, estimates)
    if any(
        w.kind is not Kind.REALTIME_INFERENCE
        and any(active(s, w, t) for t in s.months)
        and not any(name == w.name for name, _ in inst.jobs)
        for w in s.workloads
    ):
        # Work no GPU type may run: every workload is served, so no plan (services
        # with no replica set come out infeasible month by month below).
        yield math.inf, None
        return
    limits = inst if bounds is None else instance(bounds, estimates)
    offers = all_offers(s)
    sets = [_purchase_choices(limits, g.name) for g in s.gpus]
    sets += [
        _reservation_choices(limits, p)
        for ps in limits.places.values()
        for p in ps
        if p.offer is not None and p.offer.option is OfferOption.RESERVED
    ]
    if math.prod(len(x) for x in sets) > MAX_STOCK_CHOICES:
        raise TooBig(math.prod(len(x) for x in sets))
    finite = [p for ps in inst.places.values() for p in ps if p.finite]
    options_cache: dict[tuple, list[MonthOption]] = {}
    flex_cache: dict[tuple, tuple[float, Decisions] | None] = {}
    for combo in itertools.product(*sets):
        buys = {k: v for d in combo[: len(s.gpus)] for k, v in d[0].items()}
        sold = {k: v for d in combo[: len(s.gpus)] for k, v in d[1].items()}
        reserved = {k: v for d in combo[len(s.gpus) :] for k, v in d.items()}
        capex = sum(offers[oid].price * n for (oid, _), n in buys.items())
        if s.budget_capex is not None and capex > s.budget_capex + 0.005:
            yield math.inf, None
            continue
        size = levels(s, buys, reserved, sold)
        racked = _cheapest_servers(s, size)
        if racked is None:
            yield math.inf, None  # no servers fit the power cap
            continue
        sizes = tuple(tuple(size_of(s, p, t, size) for p in finite) for t in s.months)
        if sizes not in flex_cache:
            per_month = []
            for t, key in zip(s.months, sizes, strict=True):
                if (t, key) not in options_cache:
                    options_cache[t, key] = month_options(inst, t, size)
                per_month.append(options_cache[t, key])
            flex_cache[sizes] = _cheapest_flex(inst, per_month)
        flex = flex_cache[sizes]
        if flex is None:
            yield math.inf, None
            continue
        total = stock_cost(s, buys, reserved, sold) + flex[0] + racked[0]
        yield total, Candidate(buys, reserved, sold, flex[1], racked[1], racked[2])


def _cheapest_servers(s: Scenario, size: dict) -> tuple[float, dict, dict] | None:
    """The cheapest servers for the owned GPUs ``size`` that keep the power cap, or None.

    Each month holds at least ``ceil(owned / max_per_node)`` servers and never
    more than the most any later month needs (a server kept past that only
    costs); without market value the level never falls. Every such path of
    every type with servers is tried against the cap in every month.
    """
    a = s.assumptions
    options: list[list[tuple[str, dict[int, int]]]] = []
    for g in s.gpus:
        if not (g.node_price or g.node_power_w):
            continue
        need = [ceil(size[f"{HOUSE}:{g.name}", t] / g.max_per_node) for t in s.months]
        if a.residual_rule.value != "market":  # servers that exist are kept
            need = [max(n, existing_servers(s, g.name)) for n in need]
        ranges = [range(need[i], max(need[i:]) + 1) for i in range(len(need))]
        paths = [
            dict(zip(s.months, p, strict=True))
            for p in itertools.product(*ranges)
            if a.residual_rule.value == "market" or all(x <= y for x, y in itertools.pairwise(p))
        ]
        options.append([(g.name, p) for p in paths])
    best: tuple[float, dict, dict] | None = None
    for combo in itertools.product(*options):
        paths = dict(combo)
        if s.power_cap_kw is not None and any(
            sum(
                (
                    (c.tdp_w or 0.0) * size[f"{HOUSE}:{c.name}", t]
                    + c.node_power_w * paths.get(c.name, {}).get(t, 0)
                )
                * a.pue
                for c in s.gpus
            )
            > s.power_cap_kw * 1000 * (1 + 1e-9)
            for t in s.months
        ):
            continue
        cost = sum(server_cost(s, g, p) for g, p in paths.items())
        if best is None or cost < best[0] - 1e-9:
            bought, dropped = {}, {}
            for g, p in paths.items():
                before = existing_servers(s, g)
                for t in s.months:
                    if p[t] > before:
                        bought[(g, t)] = p[t] - before
                    elif p[t] < before:
                        dropped[(g, t)] = before - p[t]
                    before = p[t]
            best = (cost, bought, dropped)
    return best


def _cheapest_flex(
    inst: Instance, per_month: list[list[MonthOption]]
) -> tuple[float, Decisions] | None:
    """Cheapest replicas, slots, picks and work given the places' sizes in every month.

    Months are independent except through one-off training jobs (their one
    covering row spans the window): a month without their segments keeps only
    its cheapest option; others keep the cheapest option per capacity offered.
    """
    s = inst.s
    if s.assumptions.change_cost > 0:
        return _cheapest_flex_with_moves(inst, per_month)
    one_offs = [w for w in s.workloads if w.one_off_training]
    kept: list[list[MonthOption]] = []
    for options in per_month:
        if not options:
            return None
        by_offer: dict[tuple, MonthOption] = {}
        for o in options:
            sig = tuple(sorted((seg.key, seg.hours) for seg in o.one_off))
            if sig not in by_offer or o.cost < by_offer[sig].cost:
                by_offer[sig] = o
        kept.append(list(by_offer.values()))
    picks = list(
        itertools.product(*[[g for (w2, g) in inst.jobs if w2 == w.name] for w in one_offs])
    )
    best: tuple[float, Decisions] | None = None
    for chosen in itertools.product(*kept):
        fixed = sum(o.cost for o in chosen)
        if best is not None and fixed >= best[0]:
            continue
        for pick in picks:
            total, work = fixed, {}
            for w, g in zip(one_offs, pick, strict=True):
                segments = [
                    seg
                    for o in chosen
                    for seg in o.one_off
                    if seg.job.workload.name == w.name and seg.job.gpu == g
                ]
                filled = fill(segments, 1.0)
                if filled is None:
                    break
                total += filled[0]
                work.update(filled[1])
            else:
                if best is None or total < best[0] - 1e-9:
                    d = Decisions(
                        replicas={k: v for o in chosen for k, v in o.replicas.items()},
                        work={**{k: v for o in chosen for k, v in o.work.items()}, **work},
                        slots={k: v for o in chosen for k, v in o.slots.items()},
                        picks={w.name: g for w, g in zip(one_offs, pick, strict=True)},
                    )
                    best = (total, d)
    return best


def _cheapest_flex_with_moves(
    inst: Instance, per_month: list[list[MonthOption]]
) -> tuple[float, Decisions] | None:
    """As :func:`_cheapest_flex` where each move costs ``change_cost`` (methodology 2.16).

    Months are tied by the moves between their replica layouts: the cheapest
    cost plus charge by dynamic programming over the months, one state per
    layout (its cheapest option). The total is the objective, not the money.
    One-off training jobs are not enumerated here.
    """
    s = inst.s
    assert not any(w.one_off_training for w in s.workloads), "one-off jobs with change_cost"
    charge = s.assumptions.change_cost
    best: dict[tuple, tuple[float, list[MonthOption]]] = {(): (0.0, [])}
    for options in per_month:
        if not options:
            return None
        layouts: dict[tuple, MonthOption] = {}
        for o in options:
            sig = tuple(sorted(o.replicas.items()))
            if sig not in layouts or o.cost < layouts[sig].cost:
                layouts[sig] = o
        step: dict[tuple, tuple[float, list[MonthOption]]] = {}
        for sig, o in layouts.items():
            for total, path in best.values():
                before = path[-1].replicas if path else {}
                # Moves into this month only: those out of it are counted with the next.
                moved = moves_of(s, {**before, **o.replicas}) - moves_of(s, o.replicas)
                value = total + o.cost + charge * moved
                if sig not in step or value < step[sig][0] - 1e-9:
                    step[sig] = (value, [*path, o])
        best = step
    value, path = min(best.values(), key=lambda item: item[0])
    d = Decisions(
        replicas={k: v for o in path for k, v in o.replicas.items()},
        work={k: v for o in path for k, v in o.work.items()},
        slots={k: v for o in path for k, v in o.slots.items()},
    )
    return value, d
