"""The cheapest plan of a tiny model-v2 scenario by enumeration, without the model.

Nothing here imports ``optimizer.model``, ``optimizer.solve``, ``optimizer.check``
or ``optimizer.estimate``: every figure (copies per gang, spot yield, places,
costs) is recomputed from the scenario, the hand-made ``PairEstimate`` rows and
the rules of ``V2_DESIGN_DRAFT.md`` (model v2 §A–§D). ``tests/test_optimality.py``
explains why the enumeration is exhaustive; this module states each bound where
it is computed.

:func:`cheapest` enumerates every integer decision (stock, replicas, slots,
picks) within its bound and completes each with the cheapest continuous work;
:func:`evaluate` prices any :class:`~optimizer.results.Decisions` with the same
arithmetic and lists the rules it breaks (used on the enumeration's own plan
and on the solver's).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from optimizer.domain import FleetKind, Kind, Offer, OfferOption, Scenario, Workload
from optimizer.results import HOUSE, Decisions, PairEstimate

NOISE = 1e-9


def ceil(x: float) -> int:
    """``ceil`` that ignores floating-point noise (2.0000000001 is 2), never below 0."""
    return max(0, math.ceil(x - NOISE))


def discount(s: Scenario, t: int) -> float:
    return float((1.0 + s.assumptions.discount_rate) ** (-(t - 1) / 12.0))


def fleet_offers(s: Scenario) -> dict[str, Offer]:
    """Sheet Fleet by hand (model v2 §E): an owned row is a source never bought from, a
    reservation a reserved offer held from month 1 for its months inside the horizon."""
    found = {}
    for r in s.fleet:
        reserved = r.kind is FleetKind.RESERVED
        found[r.source_id] = Offer(
            r.source_id,
            r.gpu,
            OfferOption.RESERVED if reserved else OfferOption.BUY,
            r.price,
            term_months=min(r.months_left or 0, s.horizon_months) if reserved else None,
            max_units=r.count,
        )
    return found


def all_offers(s: Scenario) -> dict[str, Offer]:
    return {**{o.offer_id: o for o in s.offers}, **fleet_offers(s)}


def existing_gpus(s: Scenario) -> dict[str, int]:
    """Owned Fleet rows: GPUs at the start of month 1."""
    return {r.source_id: r.count for r in s.fleet if r.kind is FleetKind.OWNED}


def existing_servers(s: Scenario, gpu: str) -> int:
    g = s.gpu(gpu)
    if not (g.node_price or g.node_power_w):
        return 0
    return sum(
        math.ceil(r.count / g.max_per_node)
        for r in s.fleet
        if r.gpu == gpu and r.kind is FleetKind.OWNED
    )


def book_share(s: Scenario, age: int) -> float:
    return max(0.0, 1 - age / s.assumptions.depreciation_months)


@dataclass(frozen=True)
class Place:
    """The house of a type, or one reserved, on-demand or spot offer (v2 §A)."""

    gpu: str
    key: str  # HOUSE or the offer id
    offer: Offer | None

    @property
    def rental(self) -> bool:
        return self.offer is not None and self.offer.option in (
            OfferOption.ON_DEMAND,
            OfferOption.SPOT,
        )

    @property
    def spot(self) -> bool:
        return self.offer is not None and self.offer.option is OfferOption.SPOT

    @property
    def finite(self) -> bool:
        return not self.rental or (self.offer is not None and self.offer.max_units is not None)


@dataclass(frozen=True)
class Job:
    """A training or batch workload on one GPU type: copy width, run, gang, class."""

    workload: Workload
    gpu: str
    copy_width: int  # k
    run_hours: float  # R: GPU-hours of one run (one-off training: the whole job)
    copies: int  # m: copies at once (deadline)
    spot_yield: float  # useful hours per paid spot hour
    runs: float  # runs a month (recurring, batch); 1 whole job for one-off training
    # (month, copies, spot yield) where a batch month's run needs another gang
    # than the base month's (its deadline against that month's run, v2 §C).
    by_month: tuple[tuple[int, int, float], ...] = ()
    per_node: int = 1  # GPUs a server of its type
    month: int | None = None  # set by ``in_month``: the month whose run it is

    def in_month(self, t: int) -> Job:
        """The job as it runs in month ``t`` (its gang of that month)."""
        for month, copies, y in self.by_month:
            if month == t:
                return replace(self, copies=copies, spot_yield=y, by_month=(), month=t)
        return replace(self, by_month=(), month=t)

    @property
    def slot_class(self) -> int | None:
        """Copy width of the slots it works in; None: the width-1 free GPUs."""
        return self.copy_width if self.copy_width >= 2 or self.copies >= 2 else None

    def spot_widths(self, p: Place) -> range:
        """GPUs a run of its month (``in_month``) may hold at once on spot offer ``p``: at
        the gang's yield a run keeps only inside the gang's servers (and the cap); with a
        deadline from the first width, in steps of the copy width and at least the gang's,
        whose run finishes in time: R <= D × width × yield (methodology 2.12)."""
        assert self.month is not None, "a job's spot widths are those of one month"
        k, gang = self.copy_width, self.copy_width * self.copies
        top = ceil(gang / self.per_node) * self.per_node
        if p.offer is not None and p.offer.max_units is not None:
            top = min(top, p.offer.max_units)
        top -= top % k
        low = gang
        deadline = self.workload.deadline_hours
        if deadline is not None:
            run = self.run_hours * work_factor(self.workload, self.month)
            low = k * max(self.copies, ceil(run / (k * deadline * self.spot_yield)))
        return range(low, top + 1, k)

    def late(self, p: Place) -> bool:
        """No run of its month finishes in time on spot offer ``p``: it may not work there."""
        return p.spot and not self.spot_widths(p)

    def run_slots(self, p: Place) -> range | None:
        """Widths of the run slots (each one run at a time, set aside from its copy width's
        slots) it takes on capped spot offer ``p``: where a run needs two copies or more
        at once there and the cap is larger than its gang's servers or the run needs more
        copies than its gang. None where the copy-width slots hold (§C as written)."""
        if not p.spot or p.offer is None or p.offer.max_units is None:
            return None
        if self.workload.deadline_hours is None:
            return None
        widths = self.spot_widths(p)
        gang = self.copy_width * self.copies
        if not widths or widths.start < 2 * self.copy_width:
            return None
        servers_gpus = ceil(gang / self.per_node) * self.per_node
        if p.offer.max_units > servers_gpus or widths.start > gang:
            return widths
        return None

    def slot_class_at(self, p: Place) -> int | None:
        """Slot class of its work at ``p``: its copy width when it takes run slots there."""
        return self.copy_width if self.run_slots(p) is not None else self.slot_class


def fewest_run_slot_gpus(hours: float, widths: range, H: float) -> int:
    """Least GPUs in run slots of ``widths`` that give ``hours`` in a month, by counting:
    X GPUs split into c run slots of widths a..b exactly when c × a <= X <= c × b."""
    if hours <= NOISE:
        return 0
    x = widths.step * ceil(hours / (H * widths.step))
    while not any(c * widths.start <= x <= c * widths[-1] for c in range(1, x + 1)):
        x += widths.step
    return x


def most_run_slot_hours(gpus: int, widths: range, H: float) -> float:
    """Most hours run slots of ``widths`` inside ``gpus`` GPUs give in a month."""
    best = 0
    for x in range(0, gpus + 1, widths.step):
        if any(c * widths.start <= x <= c * widths[-1] for c in range(1, x + 1)):
            best = x
    return H * best


@dataclass(frozen=True)
class Width:
    gpu: str
    width: int
    capacity: float  # tokens/s of one replica


@dataclass
class Instance:
    """Everything the enumeration needs, computed from the scenario and estimates."""

    s: Scenario
    places: dict[str, list[Place]]
    jobs: dict[tuple[str, str], Job]  # (workload, gpu)
    widths: dict[str, list[Width]]  # realtime workload -> allowed widths on every type
    # (realtime workload, month) -> its minimal replica sets that month
    minimal: dict[tuple[str, int], list[dict[tuple[str, int], int]]] = field(default_factory=dict)


def enumerable(s: Scenario) -> bool:
    """Whether the enumeration takes ``s``: it does not take total or monthly cash budgets."""
    return s.budget_total is None and s.budget_monthly is None


def instance(s: Scenario, estimates: Sequence[PairEstimate]) -> Instance:
    assert enumerable(s), "cash budgets are not enumerated"
    places: dict[str, list[Place]] = {}
    every = all_offers(s)
    for g in s.gpus:
        mine = [o for o in every.values() if o.gpu == g.name]
        owned = any(o.option is OfferOption.BUY for o in mine)
        found = [Place(g.name, HOUSE, None)] if owned else []
        found += [Place(g.name, o.offer_id, o) for o in mine if o.option is not OfferOption.BUY]
        places[g.name] = found
    jobs: dict[tuple[str, str], Job] = {}
    widths: dict[str, list[Width]] = defaultdict(list)
    by_name = {w.name: w for w in s.workloads}
    for e in estimates:
        w = by_name[e.workload]
        if not e.allowed:
            continue
        if w.kind is Kind.REALTIME_INFERENCE:
            widths[w.name] += [
                Width(e.gpu, x.width, x.tokens_per_second_per_replica or 0.0)
                for x in e.widths
                if x.allowed
            ]
            continue
        k, run = e.gpus_per_replica or 1, e.gpu_hours or 0.0
        per_node = s.gpu(e.gpu).max_per_node
        copies, yield_ = gang_of_run(s, w, k, run, per_node)
        # A batch run's size follows its month's demand, and so does its gang.
        by_month = tuple(
            (t, *month_gang)
            for t in w.window(s.horizon_months)
            if (month_gang := gang_of_run(s, w, k, run * work_factor(w, t), per_node))[0] != copies
        )
        runs = 1.0 if w.runs_per_month is None else w.runs_per_month
        # A bound for trimming: the busiest month's runs (model v2 §E).
        runs *= max((work_factor(w, t) for t in w.window(s.horizon_months)), default=1.0)
        jobs[w.name, e.gpu] = Job(w, e.gpu, k, run, copies, yield_, runs, by_month, per_node)
    # One workload per slot class and type (every month): then no two workloads
    # share a capacity and each covering constraint can be filled greedily on its own.
    for g in s.gpus:
        for t in s.months:
            for p in places[g.name]:
                classes = [j.in_month(t).slot_class_at(p) for j in jobs.values() if j.gpu == g.name]
                assert len(classes) == len(set(classes)), "two workloads share a slot class"
    inst = Instance(s, places, jobs, dict(widths))
    for w in s.workloads:
        if w.kind is Kind.REALTIME_INFERENCE:
            for t in w.window(s.horizon_months):
                inst.minimal[w.name, t] = (
                    minimal_replica_sets(s, w, t, inst.widths.get(w.name, []))
                    if s.assumptions.change_cost <= 0
                    else kept_replica_sets(s, w, t, inst.widths.get(w.name, []))
                )
    return inst


def gang_of_run(s: Scenario, w: Workload, k: int, run: float, per_node: int) -> tuple[int, float]:
    """Copies at once (``ceil(R / (k * deadline))``) and the gang's spot yield, by hand."""
    copies = 1 if w.deadline_hours is None else max(1, ceil(run / (k * w.deadline_hours)))
    return copies, s.assumptions.spot_efficiency ** ceil(k * copies / per_node)


def month_demand(w: Workload, t: int) -> float:
    """Model v2 §E by hand: sheet Demand's value, else base × (1 + growth) ^ (t − start),
    times the workload's demand multiplier (a future's demand factor)."""
    given = dict(w.demand_by_month)
    if t in given:
        return given[t] * w.demand_multiplier
    base = w.tokens_per_second if w.kind is Kind.REALTIME_INFERENCE else w.tokens
    return (base or 0.0) * (1 + w.growth_per_month) ** (t - w.start_month) * w.demand_multiplier


def work_factor(w: Workload, t: int) -> float:
    """A batch month's work over its base month's; 1 for training."""
    if w.kind is not Kind.BATCH_INFERENCE:
        return 1.0
    if t in dict(w.demand_by_month):
        return month_demand(w, t) / (w.tokens or 1.0)
    return (1 + w.growth_per_month) ** (t - w.start_month) * w.demand_multiplier


# ---------------------------------------------------------------- realtime


def demand_with_headroom(s: Scenario, w: Workload, t: int) -> float:
    return month_demand(w, t) / s.assumptions.target_load


def serves(
    s: Scenario, w: Workload, t: int, counts: dict[tuple[str, int], int], caps: dict
) -> bool:
    served = sum(caps[key] * n for key, n in counts.items())
    need = demand_with_headroom(s, w, t)
    return served >= need * (1 - NOISE) and sum(counts.values()) >= w.min_replicas


def minimal_replica_sets(
    s: Scenario, w: Workload, t: int, widths: list[Width]
) -> list[dict[tuple[str, int], int]]:
    """Replica counts per (type, width) that serve ``w`` and stop serving it when
    any one replica goes or takes a narrower width of its type.

    Removing a replica, or narrowing it in its place, never costs more (a
    rented one saves rent, a pinned house GPU its energy) and only frees GPUs,
    so some optimum uses such a minimal set. In a minimal set with more than
    ``min_replicas`` replicas, dropping one of width ``k`` falls short, so
    ``(n_k - 1) * cap_k < D'``: ``n_k <= max(min_replicas, ceil(D' / cap_k))``,
    the range enumerated here.
    """
    need = demand_with_headroom(s, w, t)
    caps = {(x.gpu, x.width): x.capacity for x in widths}
    keys = sorted(caps)
    ranges = [range(max(w.min_replicas, ceil(need / caps[key])) + 1) for key in keys]
    found = []
    for counts in itertools.product(*ranges):
        v = {key: n for key, n in zip(keys, counts, strict=True) if n}
        if not serves(s, w, t, v, caps):
            continue
        if any(serves(s, w, t, {**v, key: v[key] - 1}, caps) for key in v):
            continue  # a replica can go
        narrower = [
            (key, (key[0], k))
            for key in v
            for k in sorted({x for g, x in caps if g == key[0] and x < key[1]})
        ]
        if any(
            serves(s, w, t, {**v, key: v[key] - 1, to: v.get(to, 0) + 1}, caps)
            for key, to in narrower
        ):
            continue  # a replica can be narrower
        found.append(v)
    return found


def kept_replica_sets(
    s: Scenario, w: Workload, t: int, widths: list[Width]
) -> list[dict[tuple[str, int], int]]:
    """Replica counts per (type, width) that serve ``w`` in ``t``, where moves are charged.

    With ``change_cost`` > 0 a replica the month does not need may be kept to
    avoid a move, and a wider one may stay rather than be narrowed. Some optimum
    still holds, per (type, place, width) ``K``, ``L_t[K] <= M_t[K] + L_{t-1}[K]``
    for a cover ``M_t`` that loses its cover when any replica goes (keep ``M_t``
    and, of the rest, only replicas that also ran in ``t - 1``: no dearer, no more
    moves into ``t``, none more into ``t + 1``). Such an ``M_t`` has at most
    ``max(min_replicas, ceil(D' / cap))`` replicas of a (type, width), so the
    replicas of a (type, width) in ``t`` are at most the sum of that bound over
    the window's months up to ``t``: every cover within it is enumerated.
    """
    caps = {(x.gpu, x.width): x.capacity for x in widths}
    keys = sorted(caps)
    months = [m for m in w.window(s.horizon_months) if m <= t]
    most = {
        key: sum(
            max(w.min_replicas, ceil(demand_with_headroom(s, w, m) / caps[key])) for m in months
        )
        for key in keys
    }
    found = []
    for counts in itertools.product(*[range(most[key] + 1) for key in keys]):
        v = {key: n for key, n in zip(keys, counts, strict=True) if n}
        if serves(s, w, t, v, caps):
            found.append(v)
    return found


def moves_of(s: Scenario, replicas: dict) -> int:
    """Replicas of a (workload, type, place, width) running in ``t - 1`` and not in
    ``t``, both months in the workload's window (methodology 2.16), by hand."""
    by_name = {w.name: w for w in s.workloads}
    moved = 0
    for (w, g, key, k, t), n in replicas.items():
        if t + 1 in by_name[w].window(s.horizon_months):
            moved += max(0, n - replicas.get((w, g, key, k, t + 1), 0))
    return moved


# ---------------------------------------------------------------- money


def hour_price(s: Scenario, p: Place) -> float:
    """Undiscounted USD per used GPU-hour in ``p``: house energy above idle, rent; reserved 0."""
    a = s.assumptions
    if p.offer is None:
        return (
            (s.gpu(p.gpu).tdp_w or 0.0)
            / 1000
            * a.pue
            * a.electricity_per_kwh
            * (1 - a.idle_power_fraction)
        )
    return p.offer.price if p.rental else 0.0


def utilization(s: Scenario, p: Place) -> float:
    return 1.0 if p.rental else s.assumptions.max_utilization


def resale(s: Scenario, gpu: str, t: int) -> float:
    """Model v2 §E by hand: a used GPU sold at the start of month ``t``."""
    a = s.assumptions
    prices = [o.price for o in s.offers if o.gpu == gpu and o.option is OfferOption.BUY]
    rows = [r for r in s.fleet if r.gpu == gpu and r.kind is FleetKind.OWNED]
    if prices:
        new = min(prices)
    elif gpu in dict(s.listed_buy_prices):
        new = dict(s.listed_buy_prices)[gpu]
    else:  # the count-weighted mean price of its owned Fleet rows
        new = sum(r.price * r.count for r in rows) / sum(r.count for r in rows)
    return a.resale_fraction * new * (1 - a.resale_decline_per_year) ** ((t - 1) / 12)


def owned_levels(s: Scenario, purchases: dict, sales: dict) -> dict[tuple[str, int], int]:
    """GPUs of each source held in each month: existing plus bought so far minus sold so far."""
    level: dict[tuple[str, int], int] = defaultdict(int)
    for sid, n in existing_gpus(s).items():
        for t in s.months:
            level[sid, t] += n
    for moves, sign in ((purchases, 1), (sales, -1)):
        for (oid, m), n in moves.items():
            for t in range(m, s.horizon_months + 1):
                level[oid, t] += sign * n
    return level


def stock_cost(
    s: Scenario, purchases: dict, reservations: dict, sales: dict | None = None
) -> float:
    """Discounted purchases, maintenance, idle energy, reservations, minus sales and credit."""
    a = s.assumptions
    H, T = a.hours_per_month, s.horizon_months
    offers = all_offers(s)
    sales = sales or {}
    cost = 0.0
    if a.residual_rule.value == "book":  # owned Fleet rows: age_months + T old at the end
        for r in s.fleet:
            if r.kind is FleetKind.OWNED:
                cost -= r.price * r.count * book_share(s, r.age_months + T) * discount(s, T)
    for (oid, m), n in purchases.items():
        o = offers[oid]
        cost += o.price * n * discount(s, m)
        if a.residual_rule.value == "book":
            left = max(0.0, 1 - (T - m + 1) / a.depreciation_months)
            cost -= o.price * n * left * discount(s, T)
    for (oid, m), n in sales.items():
        cost -= resale(s, offers[oid].gpu, m) * n * discount(s, m)
    for (oid, t), n in owned_levels(s, purchases, sales).items():
        o = offers[oid]
        kw = (s.gpu(o.gpu).tdp_w or 0.0) / 1000
        idle = kw * a.pue * a.electricity_per_kwh * a.idle_power_fraction * H
        rack = kw * a.colocation_per_kw_month
        cost += (a.maintenance_per_year / 12 * o.price + idle + rack) * n * discount(s, t)
        if t == T and a.residual_rule.value == "market":
            cost -= resale(s, o.gpu, T + 1) * n * discount(s, T)
    for (oid, start), n in reservations.items():
        o = offers[oid]
        cost += sum(
            o.price * H * n * discount(s, t) for t in range(start, start + (o.term_months or 1))
        )
    return cost


def server_cost(s: Scenario, gpu: str, path: dict[int, int]) -> float:
    """Model v2 §E by hand: one type's servers at ``path[t]`` in month t (0 when absent)."""
    a = s.assumptions
    T = s.horizon_months
    g = s.gpu(gpu)
    kw = g.node_power_w / 1000
    running = (
        a.maintenance_per_year / 12 * g.node_price
        + kw * a.pue * a.hours_per_month * a.electricity_per_kwh
        + kw * a.colocation_per_kw_month
    )

    def node_value(t: int) -> float:
        return a.resale_fraction * g.node_price * (1 - a.resale_decline_per_year) ** ((t - 1) / 12)

    cost, before = 0.0, existing_servers(s, gpu)
    if a.residual_rule.value == "book":  # servers of owned Fleet rows, as old as their GPUs
        for r in s.fleet:
            if r.gpu == gpu and r.kind is FleetKind.OWNED and before:
                n = math.ceil(r.count / g.max_per_node)
                cost -= g.node_price * n * book_share(s, r.age_months + T) * discount(s, T)
    for t in s.months:
        level = path.get(t, 0)
        if level > before:
            cost += g.node_price * (level - before) * discount(s, t)
            if a.residual_rule.value == "book":
                left = max(0.0, 1 - (T - t + 1) / a.depreciation_months)
                cost -= g.node_price * (level - before) * left * discount(s, T)
        elif level < before:
            cost -= node_value(t) * (before - level) * discount(s, t)
        cost += running * level * discount(s, t)
        before = level
    if a.residual_rule.value == "market":
        cost -= node_value(T + 1) * before * discount(s, T)
    return cost


def server_path(s: Scenario, d: Decisions, gpu: str) -> dict[int, int]:
    """Servers of ``gpu`` owned each month, from a plan's server decisions."""
    path, level = {}, existing_servers(s, gpu)
    for t in s.months:
        level += d.server_purchases.get((gpu, t), 0) - d.server_sales.get((gpu, t), 0)
        path[t] = level
    return path


def levels(
    s: Scenario, purchases: dict, reservations: dict, sales: dict | None = None
) -> dict[tuple[str, int], int]:
    """GPUs each finite place holds, per (place key, month): owned, active reserved, max_units."""
    offers = all_offers(s)
    size: dict[tuple[str, int], int] = defaultdict(int)
    for (oid, t), n in owned_levels(s, purchases, sales or {}).items():
        size[f"{HOUSE}:{offers[oid].gpu}", t] += n
    for (oid, start), n in reservations.items():
        for t in range(start, start + (offers[oid].term_months or 1)):
            size[oid, t] += n
    return size


def size_of(s: Scenario, p: Place, t: int, size: dict) -> int | None:
    """GPUs ``p`` holds in ``t``; None when uncapped; 0 when closed."""
    if p.offer is None:
        return size[f"{HOUSE}:{p.gpu}", t]
    if p.offer.option is OfferOption.RESERVED:
        return size[p.key, t]
    if t < p.offer.available_from:
        return 0
    return p.offer.max_units


def active(s: Scenario, w: Workload, t: int) -> bool:
    return t in w.window(s.horizon_months)


def may_run(p: Place, w: Workload, j: Job | None = None, t: int | None = None) -> bool:
    """Spot hosts only interruptible training and batch work, never serves, and takes
    no run that would finish after its deadline there (``j``'s run in month ``t``)."""
    if not p.spot:
        return True
    late = j is not None and t is not None and j.in_month(t).late(p)
    return w.interruptible and w.kind is not Kind.REALTIME_INFERENCE and not late


def most_paid_hours(inst: Instance, j: Job, p: Place) -> float:
    """Paid hours of ``j`` in one place and month of a plan that does no more than it must."""
    y = j.spot_yield if p.spot else 1.0
    return j.runs * j.run_hours / y


def gpus_held(inst: Instance, j: Job, p: Place) -> int:
    """Most GPUs ``j`` makes a finite place set aside in a month, in a trimmed plan.

    Fewest slots that hold its hours (at least ``m`` when a deadline gang runs
    there), or the free GPUs its width-1 hours fill.
    """
    H = inst.s.assumptions.hours_per_month
    u = utilization(inst.s, p)
    h = most_paid_hours(inst, j, p)
    if j.slot_class is None:
        return ceil(h / (u * H))
    if (widths := j.run_slots(p)) is not None:
        return max(widths.start, fewest_run_slot_gpus(h, widths, u * H))
    deadline = j.copies if j.copies >= 2 else 0
    return j.copy_width * max(deadline, ceil(h / (u * H * j.copy_width)))


def most_needed(inst: Instance, p: Place, t: int) -> int:
    """Most GPUs the house or a reserved place can need in ``t`` in a trimmed plan."""
    s = inst.s
    n = 0
    for w in s.workloads:
        if not active(s, w, t):
            continue
        if w.kind is Kind.REALTIME_INFERENCE:
            n += max(
                (
                    sum(k * c for (g, k), c in v.items() if g == p.gpu)
                    for v in inst.minimal[w.name, t]
                ),
                default=0,
            )
        elif (j := inst.jobs.get((w.name, p.gpu))) is not None and may_run(p, w, j, t):
            n += gpus_held(inst, j.in_month(t), p)
    return n


# ---------------------------------------------------------------- any plan


def evaluate(inst: Instance, d: Decisions) -> tuple[float, list[str]]:
    """The discounted total cost of ``d`` and every v2 rule it breaks, by hand."""
    s = inst.s
    a = s.assumptions
    H, T = a.hours_per_month, s.horizon_months
    offers = all_offers(s)
    by_name = {w.name: w for w in s.workloads}
    place = {(p.gpu, p.key): p for ps in inst.places.values() for p in ps}
    bad: list[str] = []
    for r in s.fleet:
        held = {m: n for (oid, m), n in d.reservations.items() if oid == r.source_id}
        if r.kind is FleetKind.RESERVED and held != {1: r.count}:
            bad.append(f"existing reservation {r.source_id} held as {held}")
    for (oid, m), n in d.purchases.items():
        o = offers.get(oid)
        if (
            oid in fleet_offers(s)
            or o is None
            or o.option is not OfferOption.BUY
            or not o.available_from <= m <= T
        ):
            bad.append(f"purchase {oid} in {m}")
        if n != int(n) or n < 0:
            bad.append(f"purchase of {n} GPUs")
    for (oid, start), n in d.reservations.items():
        o = offers.get(oid)
        if n != int(n) or n < 0:
            bad.append(f"reservation of {n} GPUs")
        if o is None or o.option is not OfferOption.RESERVED:
            bad.append(f"reservation {oid}")
        elif start < o.available_from or start + (o.term_months or 1) - 1 > T:
            bad.append(f"reservation {oid} from {start}")
    for o in s.offers:
        bought = sum(n for (oid, _), n in d.purchases.items() if oid == o.offer_id)
        if o.option is OfferOption.BUY and o.max_units is not None and bought > o.max_units:
            bad.append(f"{o.offer_id}: {bought} bought")
        if o.option is OfferOption.RESERVED and o.max_units is not None:
            for t in s.months:  # a reserved offer's cap holds for the GPUs active at once
                held = sum(
                    n
                    for (oid, start), n in d.reservations.items()
                    if oid == o.offer_id and start <= t < start + (o.term_months or 1)
                )
                if held > o.max_units:
                    bad.append(f"{o.offer_id}: {held} reserved in {t}")
    if d.sales and a.residual_rule.value != "market":
        bad.append("sold without market residual value")
    if any(n < 0 for n in owned_levels(s, d.purchases, d.sales).values()):
        bad.append("sold more than owned")
    size = levels(s, d.purchases, d.reservations, d.sales)
    cost = stock_cost(s, d.purchases, d.reservations, d.sales)
    servers = {g.name: server_path(s, d, g.name) for g in s.gpus}
    for g in s.gpus:
        if not (g.node_price or g.node_power_w):
            if any(servers[g.name].values()):
                bad.append(f"servers of {g.name}, a type without servers")
            continue
        cost += server_cost(s, g.name, servers[g.name])
        for t in s.months:
            if servers[g.name][t] * g.max_per_node < size[f"{HOUSE}:{g.name}", t]:
                bad.append(f"{g.name} in {t}: too few servers")
    if d.server_sales and a.residual_rule.value != "market":
        bad.append("servers sold without market residual value")
    if s.budget_capex is not None:
        capex = sum(offers[oid].price * n for (oid, _), n in d.purchases.items())
        if capex > s.budget_capex + 0.005:
            bad.append(f"capex {capex}")
    if s.power_cap_kw is not None:
        for t in s.months:
            watts = sum(
                (
                    (c.tdp_w or 0.0) * size[f"{HOUSE}:{c.name}", t]
                    + c.node_power_w * servers[c.name][t]
                )
                * a.pue
                for c in s.gpus
            )
            if watts > s.power_cap_kw * 1000 * (1 + NOISE):
                bad.append(f"power {watts} W in month {t}")

    for key, n in [*d.replicas.items(), *d.slots.items()]:
        if n != int(n) or n < 0:
            bad.append(f"{key}: {n} is not a whole count")
    pinned: dict[tuple[str, str, int], int] = defaultdict(int)
    served: dict[tuple[str, int], dict[tuple[str, int], int]] = defaultdict(dict)
    for (w, g, key, k, t), n in d.replicas.items():
        p = place.get((g, key))
        allowed = {(x.gpu, x.width) for x in inst.widths.get(w, [])}
        if p is None or not may_run(p, by_name[w]) or (g, k) not in allowed:
            bad.append(f"replica {w} {g} {key} {k}")
            continue
        if not active(s, by_name[w], t) or size_of(s, p, t, size) == 0:
            bad.append(f"replica {w} {g} {key} in {t}")
        pinned[g, key, t] += k * n
        served[w, t][g, k] = served[w, t].get((g, k), 0) + n
        cost += k * H * n * hour_price(s, p) * discount(s, t)
    for w in s.workloads:
        if w.kind is Kind.REALTIME_INFERENCE:
            caps = {(x.gpu, x.width): x.capacity for x in inst.widths.get(w.name, [])}
            for t in w.window(T):
                if not serves(s, w, t, served[w.name, t], caps):
                    bad.append(f"{w.name} under-served in {t}: {served[w.name, t]}")

    class_hours: dict[tuple[str, str, int | None, int], float] = defaultdict(float)
    runs_set_aside: dict[tuple[str, str, int | None, int], int] = defaultdict(int)
    deadline_gangs: list[tuple[str, str, str, int, int, int]] = []
    useful: dict[tuple[str, str, int], float] = defaultdict(float)
    for (w, g, key, t), h in d.work.items():
        p, j = place.get((g, key)), inst.jobs.get((w, g))
        j = None if j is None else j.in_month(t)
        if (
            p is None
            or j is None
            or not may_run(p, j.workload, j, t)
            or not active(s, j.workload, t)
        ):
            bad.append(f"work {w} {g} {key} in {t}")
            continue
        if p.rental and t < (p.offer.available_from if p.offer else 1):
            bad.append(f"work {w} on {key} before it is offered")
        if p.finite and (widths := j.run_slots(p)) is not None:
            # Run slots of its own, one run each at a time, out of its copy width's slots.
            aside = fewest_run_slot_gpus(h, widths, utilization(s, p) * H)
            runs_set_aside[g, key, j.copy_width, t] += aside
        elif p.finite:
            class_hours[g, key, j.slot_class, t] += h
            if j.copies >= 2 and h > NOISE:
                deadline_gangs.append((w, g, key, j.copy_width, t, j.copies))
        useful[w, g, t] += h * (j.spot_yield if p.spot else 1.0) / j.run_hours
        cost += h * hour_price(s, p) * discount(s, t)
    for w, g, key, k, t, m in deadline_gangs:
        if d.slots.get((g, key, k, t), 0) - runs_set_aside[g, key, k, t] / k < m:
            bad.append(f"deadline gang of {w} in {key} {t} without {m} slots")
    for (g, key, k, t), gpus in runs_set_aside.items():
        if k is None or gpus > k * d.slots.get((g, key, k, t), 0):
            bad.append(f"{key} in {t}: run slots of {gpus} GPUs beyond class {k}'s slots")
    for ps in inst.places.values():
        for p in ps:
            if not p.finite:
                continue
            for t in s.months:
                n = size_of(s, p, t, size) or 0
                room = utilization(s, p) * H
                held = sum(
                    k * c
                    for (g, key, k, m), c in d.slots.items()
                    if (g, key, m) == (p.gpu, p.key, t)
                )
                if pinned[p.gpu, p.key, t] + held > n:
                    bad.append(
                        f"{p.key} in {t}: {pinned[p.gpu, p.key, t]} pinned + {held} in slots > {n}"
                    )
                free = room * (n - pinned[p.gpu, p.key, t] - held)
                for (g, key, k, m), h in class_hours.items():
                    if (g, key, m) != (p.gpu, p.key, t):
                        continue
                    aside = runs_set_aside[g, key, k, t]
                    top = free if k is None else room * (k * d.slots.get((g, key, k, t), 0) - aside)
                    if h > top * (1 + 1e-6) + 1e-6:
                        bad.append(f"{key} in {t}: {h} h of class {k} > {top}")
    for w in s.workloads:
        if w.kind is Kind.REALTIME_INFERENCE:
            continue
        if w.one_off_training:
            pick = d.picks.get(w.name)
            for g in s.gpus:
                done = sum(useful[w.name, g.name, t] for t in s.months)
                want = 1.0 if g.name == pick else 0.0
                if abs(done - want) > 1e-6:
                    bad.append(f"{w.name} does {done} of its job on {g.name} (pick {pick})")
            continue
        for t in w.window(T):
            runs = sum(useful[w.name, g.name, t] for g in s.gpus)
            want = w.runs_per_month if w.runs_per_month is not None else 1.0
            want *= work_factor(w, t)
            if runs < want * (1 - 1e-6):
                bad.append(f"{w.name} does {runs} runs in {t}, needs {want}")
    return cost, bad
