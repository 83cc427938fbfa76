"""Build the planning MILP of ``model.md`` from a scenario and its pair estimates.

:func:`build_model` is pure: it reads a :class:`Scenario` and the estimates and
returns a :class:`BuiltModel` (the PuLP problem plus typed maps from our keys
to its variables). Nothing here solves; ``optimizer.solve.solver`` does.

Design (what makes it small and tight):

* Variables exist only where they can be nonzero: allowed pairs, months in the
  workload's window, offers from ``available_from``, reservations that start
  on or after ``available_from`` and end inside the horizon, spot only for
  interruptible non-realtime work, and capacity only in months where some
  workload can use that GPU type. Purchases stop after a type's last useful
  month and reservations must overlap a useful month (either would only
  add cost); offers of a type no workload can use are left out.
* Realtime rows are tightened without changing any integer solution:
  coefficients capped at the demand, a fewest-replicas row, and a bound of
  the replicas one type would need alone (see
  :func:`define_realtime_demand_constraints`).
* The integers are stock levels, not month-by-month changes: ``owned[o,t]``
  (GPUs bought from offer ``o`` so far) and ``active[o,t]`` (reserved GPUs of
  ``o`` active in month ``t``). Purchases and reservation starts are
  continuous, tied to the levels by one ``stock`` row each month; whole levels
  in every month force whole purchases and starts (their differences), so no
  integer plan is gained or lost. Branching on a level ("own at least 3 from
  month 12 on") cuts the search far deeper than branching on one month's
  purchase. The levels also keep rows short (one term per offer instead of
  one per past month) and turn ``max_units`` of buy and reserved offers into
  variable bounds.
* GPU-hours are pooled per type and month (accounting rule 5): work variables
  per workload meet source variables (owned, reserved, each rented offer) in
  one balance row per type and month. Realtime hours are
  ``replicas * k * H``, substituted directly.
* Every cost is a precomputed coefficient (discounting included), so the
  objective is one expression built in bulk.
* An offer dominated by an uncapped offer of the same GPU type and option
  (price no higher, available no later, same term) is left out: anything it
  could do the dominating offer does at no higher cost, and it removes
  symmetric choices from the search.
* Training jobs may spread their work over the months of their window; the
  per-month linking ``h + e*s <= gh*pick`` is implied by the job's total row
  and nonnegativity, so it is not added.

LP names are built from the family and integer positions (``gpus``,
``workloads``, ``offers`` order of the scenario), never from user text, and
are checked for collisions.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import pulp

from optimizer.domain import Assumptions, Gpu, Kind, Offer, OfferOption, Scenario, Workload
from optimizer.errors import InputError, Problem, SolveError
from optimizer.results import PairEstimate

# Constraint families, in the order rows are added. Each has a
# ``define_<family>_constraints`` function and a golden LP file
# ``tests/golden/<family>.lp``.
FAMILIES: tuple[str, ...] = (
    "training_demand",
    "batch_demand",
    "realtime_demand",
    "owned_capacity",
    "reserved_capacity",
    "pool_balance",
    "stock",
    "budgets",
    "power",
)

# Groups of elastic slack (see optimizer.solve.diagnose): "limits" relaxes budgets
# and the power cap, "demand" relaxes every demand row.
ELASTIC_LIMITS = "limits"
ELASTIC_DEMAND = "demand"

Key = tuple[object, ...]
Terms = list[tuple[pulp.LpVariable, float]]


# --------------------------------------------------------------------------
# Cost coefficients: shared with optimizer.solve.solver, which computes the money of
# a plan from its decisions with exactly these formulas.
# --------------------------------------------------------------------------


def discount_factor(a: Assumptions, month: int) -> float:
    """``(1 + discount_rate) ** (-(t - 1) / 12)``: month 1 is not discounted."""
    return float((1.0 + a.discount_rate) ** (-(month - 1) / 12.0))


def energy_cost_per_hour(gpu: Gpu, a: Assumptions) -> float:
    """USD per powered GPU-hour of an owned GPU at full draw (TDP × PUE × price)."""
    return (gpu.tdp_w or 0.0) / 1000.0 * a.pue * a.electricity_per_kwh


def maintenance_per_month(offer: Offer, a: Assumptions) -> float:
    """USD per owned GPU per month bought from ``offer``."""
    return a.maintenance_per_year / 12.0 * offer.price


def residual_fraction(a: Assumptions, horizon: int, month: int) -> float:
    """Share of the price credited at the horizon for a GPU bought in ``month``."""
    if not a.credit_residual_value:
        return 0.0
    age = horizon - month + 1
    return max(0.0, 1.0 - age / a.depreciation_months)


def reservation_months(offer: Offer, start: int) -> range:
    """Months a reservation of ``offer`` starting in ``start`` is active (and paid)."""
    return range(start, start + (offer.term_months or 0))


def usable_estimate(est: PairEstimate, workload: Workload) -> bool:
    """An allowed pair with the figures its kind needs (the model cannot use it otherwise)."""
    if not est.allowed:
        return False
    if workload.kind is Kind.REALTIME_INFERENCE:
        return bool(
            est.gpus_per_replica
            and est.gpus_per_replica > 0
            and est.tokens_per_second_per_replica
            and est.tokens_per_second_per_replica > 0
        )
    return bool(est.gpu_hours and est.gpu_hours > 0)


def spot_allowed(workload: Workload) -> bool:
    """Spot capacity serves interruptible work only, and never realtime serving."""
    return workload.interruptible and workload.kind is not Kind.REALTIME_INFERENCE


def dominated_offers(offers: Sequence[Offer]) -> frozenset[str]:
    """Offer ids that an uncapped offer of the same type and option makes redundant.

    ``b`` is dominated by ``a`` when ``a`` is uncapped, costs no more, is
    available no later and (reserved) has the same term; ties go to the offer
    listed first. Leaving ``b`` out cannot raise the optimum: every unit of
    ``b`` can be replaced by a unit of ``a`` at no higher cost, budget use or
    power draw.
    """
    dropped: set[str] = set()
    for i, b in enumerate(offers):
        for j, a in enumerate(offers):
            if i == j or a.offer_id in dropped:
                continue
            same = a.gpu == b.gpu and a.option is b.option and a.term_months == b.term_months
            if not same or a.max_units is not None:
                continue
            no_worse = a.price <= b.price and a.available_from <= b.available_from
            strictly = a.price < b.price or a.available_from < b.available_from or j < i
            if no_worse and strictly:
                dropped.add(b.offer_id)
                break
    return frozenset(dropped)


# --------------------------------------------------------------------------
# The built model
# --------------------------------------------------------------------------


@dataclass
class BuiltModel:
    """The PuLP problem and typed maps from our keys to its variables.

    Keys use names from the inputs: offer ids, GPU names, workload names and
    months. ``row_names`` maps each row's key ``(family, *positions)`` to its
    LP name; ``family_rows`` lists the LP names of each family.
    ``shortfalls`` holds elastic slack variables (empty unless built elastic),
    keyed ``(kind, ...)`` as documented in :mod:`optimizer.solve.diagnose`.
    """

    problem: pulp.LpProblem
    scenario: Scenario
    estimates: dict[tuple[str, str], PairEstimate]  # usable pairs only
    offers: tuple[Offer, ...]  # offers the model uses (dominated ones left out)
    buy: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    reserve: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    owned: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)  # stock levels
    active: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)  # reserved levels
    last_buy_month: dict[str, int] = field(default_factory=dict)  # per buy offer
    rent: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)  # on-demand, spot
    use_own: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    use_res: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    work: dict[tuple[str, str, int], pulp.LpVariable] = field(default_factory=dict)  # non-realtime
    spot_work: dict[tuple[str, str, int], pulp.LpVariable] = field(default_factory=dict)
    replicas: dict[tuple[str, str, int], pulp.LpVariable] = field(default_factory=dict)
    pick: dict[tuple[str, str], pulp.LpVariable] = field(default_factory=dict)
    shortfalls: dict[Key, pulp.LpVariable] = field(default_factory=dict)
    shortfall_weights: dict[Key, float] = field(default_factory=dict)
    row_names: dict[Key, str] = field(default_factory=dict)
    family_rows: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    lp_row_names: set[str] = field(default_factory=set)
    elastic: frozenset[str] = frozenset()
    buy_offers_of: dict[str, list[Offer]] = field(default_factory=lambda: defaultdict(list))
    reserved_offers_of: dict[str, list[Offer]] = field(default_factory=lambda: defaultdict(list))

    # Positions used in LP names.
    @property
    def gpu_pos(self) -> dict[str, int]:
        return {g.name: i for i, g in enumerate(self.scenario.gpus)}

    @property
    def workload_pos(self) -> dict[str, int]:
        return {w.name: i for i, w in enumerate(self.scenario.workloads)}

    @property
    def offer_pos(self) -> dict[str, int]:
        return {o.offer_id: i for i, o in enumerate(self.scenario.offers)}

    # Expressions as term lists (for bulk construction).
    def owned_terms(self, offer: Offer, month: int, coef: float = 1.0) -> Terms:
        """GPUs bought from ``offer`` up to ``month`` (its last level once purchases stop)."""
        last = self.last_buy_month.get(offer.offer_id)
        if last is None or month < offer.available_from:
            return []
        return [(self.owned[(offer.offer_id, min(month, last))], coef)]

    def own_terms(self, gpu: str, month: int, coef: float = 1.0) -> Terms:
        """GPUs of type ``gpu`` owned in ``month``: every purchase so far."""
        return [
            vc for o in self.buy_offers_of.get(gpu, ()) for vc in self.owned_terms(o, month, coef)
        ]

    def active_terms(self, offer: Offer, month: int, coef: float = 1.0) -> Terms:
        """Reserved GPUs of ``offer`` active in ``month``."""
        var = self.active.get((offer.offer_id, month))
        return [] if var is None else [(var, coef)]

    def work_terms(self, w: Workload, gpu: str, month: int, coef: float = 1.0) -> Terms:
        """Non-spot paid GPU-hours of ``w`` on ``gpu`` in ``month``."""
        if w.kind is Kind.REALTIME_INFERENCE:
            var = self.replicas.get((w.name, gpu, month))
            if var is None:
                return []
            k = self.estimates[(w.name, gpu)].gpus_per_replica or 0
            return [(var, coef * k * self.scenario.assumptions.hours_per_month)]
        hv = self.work.get((w.name, gpu, month))
        return [] if hv is None else [(hv, coef)]

    def add_row(
        self, family: str, key: Key, terms: Terms, sense: int, rhs: float
    ) -> pulp.LpConstraint:
        """Add one row named ``<family>_<positions>`` and record its name."""
        name = "_".join([family, *(str(part) for part in key)])
        full_key = (family, *key)
        if name in self.lp_row_names or full_key in self.row_names:
            raise SolveError(f"internal error: LP row name {name!r} used twice")
        self.lp_row_names.add(name)
        row = pulp.LpConstraint(pulp.LpAffineExpression(terms), sense, name, rhs)
        self.problem.addConstraint(row)
        self.row_names[full_key] = name
        self.family_rows[family].append(name)
        return row

    def add_shortfall(self, group: str, key: Key, weight: float) -> pulp.LpVariable | None:
        """An elastic slack for ``key`` when ``group`` is relaxed, else None."""
        if group not in self.elastic:
            return None
        name = "short_" + "_".join(str(p) for p in key)
        var = self.problem.add_variable(name, lowBound=0)
        self.shortfalls[key] = var
        self.shortfall_weights[key] = weight
        return var


def _merge(terms: Iterable[tuple[pulp.LpVariable, float]]) -> Terms:
    """Sum coefficients of repeated variables (keeps expressions small and LP text stable)."""
    merged: dict[str, tuple[pulp.LpVariable, float]] = {}
    for var, coef in terms:
        if var.name in merged:
            merged[var.name] = (var, merged[var.name][1] + coef)
        else:
            merged[var.name] = (var, coef)
    return [vc for vc in merged.values() if vc[1] != 0.0]


def _check_inputs(scenario: Scenario, offers: Sequence[Offer]) -> None:
    """Things the model cannot price, which input checks should already have caught."""
    problems = []
    for o in offers:
        gpu = scenario.gpu(o.gpu)
        needs_tdp = (
            scenario.assumptions.electricity_per_kwh > 0 or scenario.power_cap_kw is not None
        )
        if o.option is OfferOption.BUY and gpu.tdp_w is None and needs_tdp:
            problems.append(
                Problem(file="", sheet="GPUs", message=f"{gpu.name} can be bought but has no tdp_w")
            )
        if o.option is OfferOption.RESERVED and not o.term_months:
            problems.append(
                Problem(
                    file="",
                    sheet="Prices",
                    message=f"reserved offer {o.offer_id} has no term_months",
                )
            )
    if problems:
        raise InputError(problems)


def build_model(
    scenario: Scenario,
    estimates: Sequence[PairEstimate],
    *,
    elastic: Iterable[str] = (),
) -> BuiltModel:
    """The MILP of ``model.md`` for ``scenario`` (pure: solves nothing).

    ``elastic`` (used by :mod:`optimizer.solve.diagnose` only) adds penalised slack
    to the rows of the named groups and makes the objective the weighted
    total slack instead of the cost.
    """
    T = scenario.horizon_months
    workloads = {w.name: w for w in scenario.workloads}
    usable = {
        (e.workload, e.gpu): e
        for e in estimates
        if e.workload in workloads
        and e.gpu in {g.name for g in scenario.gpus}
        and usable_estimate(e, workloads[e.workload])
    }
    # Months in which some workload can use each type (all work / spot work).
    active: dict[str, set[int]] = defaultdict(set)
    spot_active: dict[str, set[int]] = defaultdict(set)
    for w_name, g_name in usable:
        w = workloads[w_name]
        months = set(w.window(T))
        active[g_name] |= months
        if spot_allowed(w):
            spot_active[g_name] |= months

    dropped = dominated_offers(scenario.offers)
    offers = tuple(o for o in scenario.offers if o.offer_id not in dropped and active.get(o.gpu))
    _check_inputs(scenario, offers)

    built = BuiltModel(
        problem=pulp.LpProblem(f"gpumix_{_safe(scenario.name)}", pulp.LpMinimize),
        scenario=scenario,
        estimates=usable,
        offers=offers,
        elastic=frozenset(elastic),
    )
    for o in offers:
        if o.option is OfferOption.BUY:
            built.buy_offers_of[o.gpu].append(o)
        elif o.option is OfferOption.RESERVED:
            built.reserved_offers_of[o.gpu].append(o)
    _define_variables(built, active, spot_active)
    define_training_demand_constraints(built)
    define_batch_demand_constraints(built)
    define_realtime_demand_constraints(built)
    define_owned_capacity_constraints(built)
    define_reserved_capacity_constraints(built)
    define_pool_balance_constraints(built)
    define_stock_constraints(built)
    define_budgets_constraints(built)
    define_power_constraints(built)
    if built.elastic:
        built.problem.setObjective(
            pulp.LpAffineExpression(
                [(var, built.shortfall_weights[key]) for key, var in built.shortfalls.items()]
            )
        )
    else:
        built.problem.setObjective(pulp.LpAffineExpression(_merge(objective_terms(built))))
    return built


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text)[:40] or "scenario"


def _define_variables(
    built: BuiltModel, active: dict[str, set[int]], spot_active: dict[str, set[int]]
) -> None:
    s = built.scenario
    T = s.horizon_months
    H = s.assumptions.hours_per_month
    prob = built.problem
    gpos, wpos, opos = built.gpu_pos, built.workload_pos, built.offer_pos
    last_active = {g: max(months) for g, months in active.items() if months}

    for o in built.offers:
        i = opos[o.offer_id]
        months = active[o.gpu]
        if o.option is OfferOption.BUY:
            # Buying after the type's last useful month only adds cost. The
            # stock level is the integer; max_units bounds it (accounting rule 7).
            for t in range(o.available_from, last_active[o.gpu] + 1):
                built.buy[(o.offer_id, t)] = prob.add_variable(
                    f"buy_o{i}_t{t}", lowBound=0, upBound=o.max_units
                )
                built.owned[(o.offer_id, t)] = prob.add_variable(
                    f"owned_o{i}_t{t}", lowBound=0, upBound=o.max_units, cat=pulp.LpInteger
                )
                built.last_buy_month[o.offer_id] = t
        elif o.option is OfferOption.RESERVED:
            term = o.term_months or 0
            for start in range(o.available_from, T - term + 2):
                if not any(m in months for m in reservation_months(o, start)):
                    continue
                built.reserve[(o.offer_id, start)] = prob.add_variable(
                    f"reserve_o{i}_s{start}", lowBound=0, upBound=o.max_units
                )
                for t in reservation_months(o, start):
                    if (o.offer_id, t) not in built.active:
                        built.active[(o.offer_id, t)] = prob.add_variable(
                            f"active_o{i}_t{t}", lowBound=0, upBound=o.max_units, cat=pulp.LpInteger
                        )
        else:
            use_months = spot_active[o.gpu] if o.option is OfferOption.SPOT else months
            cap = None if o.max_units is None else o.max_units * H  # accounting rule 7
            for t in sorted(use_months):
                if t >= o.available_from:
                    built.rent[(o.offer_id, t)] = prob.add_variable(
                        f"rent_o{i}_t{t}", lowBound=0, upBound=cap
                    )

    for g in s.gpus:
        j = gpos[g.name]
        for t in sorted(active.get(g.name, ())):
            if built.own_terms(g.name, t):
                built.use_own[(g.name, t)] = prob.add_variable(f"use_own_g{j}_t{t}", lowBound=0)
            if any(built.active_terms(o, t) for o in built.reserved_offers_of.get(g.name, ())):
                built.use_res[(g.name, t)] = prob.add_variable(f"use_res_g{j}_t{t}", lowBound=0)

    option = {o.offer_id: o for o in built.offers}
    spot_gpus = {
        option[oid].gpu for oid, _t in built.rent if option[oid].option is OfferOption.SPOT
    }
    for (w_name, g_name), _est in sorted(
        built.estimates.items(), key=lambda kv: (wpos[kv[0][0]], gpos[kv[0][1]])
    ):
        w = next(x for x in s.workloads if x.name == w_name)
        i, j = wpos[w_name], gpos[g_name]
        has_spot = spot_allowed(w) and g_name in spot_gpus
        for t in w.window(T):
            if w.kind is Kind.REALTIME_INFERENCE:
                built.replicas[(w_name, g_name, t)] = prob.add_variable(
                    f"replicas_w{i}_g{j}_t{t}",
                    lowBound=0,
                    upBound=_replicas_enough(w, _est),
                    cat=pulp.LpInteger,
                )
            else:
                built.work[(w_name, g_name, t)] = prob.add_variable(
                    f"work_w{i}_g{j}_t{t}", lowBound=0
                )
                if has_spot:
                    built.spot_work[(w_name, g_name, t)] = prob.add_variable(
                        f"spot_w{i}_g{j}_t{t}", lowBound=0
                    )
        if w.kind.is_training:
            built.pick[(w_name, g_name)] = prob.add_variable(
                f"pick_w{i}_g{j}", lowBound=0, upBound=1, cat=pulp.LpInteger
            )


def _replicas_enough(w: Workload, est: PairEstimate) -> int:
    """Replicas of one type that alone meet the demand: more only add hours and cost."""
    return _ceil((w.tokens_per_second or 0.0) / (est.tokens_per_second_per_replica or 1.0))


def _ceil(x: float) -> int:
    """Ceiling that ignores floating-point noise (3.0000000001 is 3)."""
    return max(0, math.ceil(x - 1e-9))


def _pairs_of(built: BuiltModel, w: Workload) -> list[str]:
    """GPU types ``w`` may run on, in sheet order."""
    return [g.name for g in built.scenario.gpus if (w.name, g.name) in built.estimates]


# --------------------------------------------------------------------------
# Constraint families
# --------------------------------------------------------------------------


def define_training_demand_constraints(built: BuiltModel) -> None:
    """Each training job completes on the one GPU type it picks.

    ``training_demand_w{w}_g{g}``:
        sum_{t in window} (work[w,g,t] + spot_efficiency * spot[w,g,t]) = gh[w,g] * pick[w,g]
    ``training_demand_w{w}``:  sum_g pick[w,g] = 1

    Elastic (``demand``): ``short[w,g]`` GPU-hours are added to the left of
    the first row, weighted 1 per whole job.
    """
    s = built.scenario
    e = s.assumptions.spot_efficiency
    wpos, gpos = built.workload_pos, built.gpu_pos
    for w in s.workloads:
        if not w.kind.is_training:
            continue
        i = wpos[w.name]
        picks: Terms = []
        for g in _pairs_of(built, w):
            gh = built.estimates[(w.name, g)].gpu_hours or 0.0
            terms: Terms = []
            for t in w.window(s.horizon_months):
                terms += built.work_terms(w, g, t)
                if (sv := built.spot_work.get((w.name, g, t))) is not None:
                    terms.append((sv, e))
            pick = built.pick[(w.name, g)]
            terms.append((pick, -gh))
            short = built.add_shortfall(ELASTIC_DEMAND, ("training", i, gpos[g]), 1.0 / gh)
            if short is not None:
                terms.append((short, 1.0))
            built.add_row(
                "training_demand", (f"w{i}", f"g{gpos[g]}"), terms, pulp.LpConstraintEQ, 0.0
            )
            picks.append((pick, 1.0))
        built.add_row("training_demand", (f"w{i}",), picks, pulp.LpConstraintEQ, 1.0)


def define_batch_demand_constraints(built: BuiltModel) -> None:
    """Batch inference processes its monthly tokens in every month of its window.

    ``batch_demand_w{w}_t{t}``:
        sum_g (work[w,g,t] + spot_efficiency * spot[w,g,t]) / gh[w,g] >= 1

    Elastic (``demand``): ``short[w,t]`` (share of the month's tokens) is
    added to the left, weighted 1 per month.
    """
    s = built.scenario
    e = s.assumptions.spot_efficiency
    wpos = built.workload_pos
    for w in s.workloads:
        if w.kind is not Kind.BATCH_INFERENCE:
            continue
        i = wpos[w.name]
        gpus = _pairs_of(built, w)
        for t in w.window(s.horizon_months):
            terms: Terms = []
            for g in gpus:
                inv = 1.0 / (built.estimates[(w.name, g)].gpu_hours or 1.0)
                terms += built.work_terms(w, g, t, inv)
                if (sv := built.spot_work.get((w.name, g, t))) is not None:
                    terms.append((sv, e * inv))
            short = built.add_shortfall(ELASTIC_DEMAND, ("batch", i, t), 1.0)
            if short is not None:
                terms.append((short, 1.0))
            built.add_row("batch_demand", (f"w{i}", f"t{t}"), terms, pulp.LpConstraintGE, 1.0)


def define_realtime_demand_constraints(built: BuiltModel) -> None:
    """Realtime serving meets its sustained tokens/s in every month of its window.

    ``realtime_demand_w{w}_t{t}``:
        sum_g min(cap[w,g], tokens_per_second[w]) * replicas[w,g,t] >= tokens_per_second[w]

    Capping a coefficient at the demand changes no integer solution (one
    such replica alone meets the demand) but stops the LP relaxation from
    paying for a sliver of a big replica.

    ``realtime_demand_replicas_w{w}_t{t}`` (a valid cut that tightens the LP
    relaxation, which would otherwise pay for a fraction of a replica):
        sum_g replicas[w,g,t] >= ceil(tokens_per_second[w] / max_g cap[w,g])
    and ``replicas[w,g,t] <= ceil(tokens_per_second[w] / cap[w,g])`` as a
    bound (more replicas of one type than meet the demand alone only add cost).

    Its GPU-hours are ``replicas * k[w,g] * H`` (in ``pool_balance``).
    Elastic (``demand``): ``short[w,t]`` tokens/s, weighted 1 per month of
    full demand.
    """
    s = built.scenario
    wpos = built.workload_pos
    for w in s.workloads:
        if w.kind is not Kind.REALTIME_INFERENCE:
            continue
        i = wpos[w.name]
        need = w.tokens_per_second or 0.0
        best = max(
            (built.estimates[(w.name, g)].tokens_per_second_per_replica or 0.0)
            for g in _pairs_of(built, w)
        )
        fewest = _ceil(need / best)
        for t in w.window(s.horizon_months):
            terms: Terms = [
                (
                    built.replicas[(w.name, g, t)],
                    min(need, built.estimates[(w.name, g)].tokens_per_second_per_replica or 0.0),
                )
                for g in _pairs_of(built, w)
            ]
            short = built.add_shortfall(ELASTIC_DEMAND, ("realtime", i, t), 1.0 / max(need, 1e-9))
            if short is not None:
                terms.append((short, 1.0))
            built.add_row("realtime_demand", (f"w{i}", f"t{t}"), terms, pulp.LpConstraintGE, need)
            if short is None and fewest >= 1:
                built.add_row(
                    "realtime_demand",
                    ("replicas", f"w{i}", f"t{t}"),
                    [(v, 1.0) for v, _cap in terms],
                    pulp.LpConstraintGE,
                    fewest,
                )


def define_owned_capacity_constraints(built: BuiltModel) -> None:
    """Owned GPUs work at most ``max_utilization`` of their hours.

    ``owned_capacity_g{g}_t{t}``:
        use_own[g,t] - max_utilization * H * sum_{o of g, s <= t} buy[o,s] <= 0
    """
    a = built.scenario.assumptions
    gpos = built.gpu_pos
    cap = a.max_utilization * a.hours_per_month
    for (g, t), var in built.use_own.items():
        terms = [(var, 1.0), *built.own_terms(g, t, -cap)]
        built.add_row("owned_capacity", (f"g{gpos[g]}", f"t{t}"), terms, pulp.LpConstraintLE, 0.0)


def define_reserved_capacity_constraints(built: BuiltModel) -> None:
    """Reserved use is at most the hours of the reservations active that month.

    ``reserved_capacity_g{g}_t{t}``:
        use_res[g,t] - H * sum_{reserved o of g} active[o,t] <= 0,
        active[o,t] = sum_{s <= t <= s + term - 1} reserve[o,s]
    """
    a = built.scenario.assumptions
    gpos = built.gpu_pos
    for (g, t), var in built.use_res.items():
        terms: Terms = [(var, 1.0)]
        for o in built.reserved_offers_of.get(g, ()):
            terms += built.active_terms(o, t, -a.hours_per_month)
        built.add_row(
            "reserved_capacity", (f"g{gpos[g]}", f"t{t}"), terms, pulp.LpConstraintLE, 0.0
        )


def define_pool_balance_constraints(built: BuiltModel) -> None:
    """GPU-hours are pooled per type and month (accounting rule 5).

    ``pool_balance_g{g}_t{t}``:
        sum_w work[w,g,t] - use_own[g,t] - use_res[g,t] - sum_{on-demand o} rent[o,t] = 0
        (realtime work is ``replicas * k * H``)
    ``pool_balance_spot_g{g}_t{t}``:
        sum_w spot[w,g,t] - sum_{spot o} rent[o,t] = 0

    Rented hours are capped by variable bounds ``rent[o,t] <= max_units * H``.
    """
    s = built.scenario
    gpos = built.gpu_pos
    work: dict[tuple[str, int], Terms] = defaultdict(list)
    spot: dict[tuple[str, int], Terms] = defaultdict(list)
    for w in s.workloads:
        for g in _pairs_of(built, w):
            for t in w.window(s.horizon_months):
                work[(g, t)] += built.work_terms(w, g, t)
                if (sv := built.spot_work.get((w.name, g, t))) is not None:
                    spot[(g, t)].append((sv, 1.0))
    option = {o.offer_id: o for o in built.offers}
    for (oid, t), var in built.rent.items():
        o = option[oid]
        (spot if o.option is OfferOption.SPOT else work)[(o.gpu, t)].append((var, -1.0))
    for key, var in built.use_own.items():
        work[key].append((var, -1.0))
    for key, var in built.use_res.items():
        work[key].append((var, -1.0))
    for gpu in s.gpus:
        j = gpos[gpu.name]
        for t in s.months:
            if work.get((gpu.name, t)):
                built.add_row(
                    "pool_balance",
                    (f"g{j}", f"t{t}"),
                    work[(gpu.name, t)],
                    pulp.LpConstraintEQ,
                    0.0,
                )
            if spot.get((gpu.name, t)):
                built.add_row(
                    "pool_balance",
                    ("spot", f"g{j}", f"t{t}"),
                    spot[(gpu.name, t)],
                    pulp.LpConstraintEQ,
                    0.0,
                )


def define_stock_constraints(built: BuiltModel) -> None:
    """Purchases and reservation starts move the integer stock levels.

    ``stock_owned_o{o}_t{t}``:
        owned[o,t] - owned[o,t-1] - buy[o,t] = 0
    ``stock_reserved_o{o}_t{t}``:
        active[o,t] - active[o,t-1] - reserve[o,t] + reserve[o,t-term] = 0

    A level missing for a month is zero (before an offer's first month, or
    when no reservation covers it). Whole levels in every month make every
    purchase and start whole, so these rows keep the model exact while the
    solver branches on levels. ``max_units`` of buy and reserved offers
    (accounting rule 7) are the levels' upper bounds; on-demand and spot caps
    are bounds on ``rent[o,t]``.
    """
    opos = built.offer_pos
    for (oid, t), level in built.owned.items():
        terms: Terms = [(level, 1.0), (built.buy[(oid, t)], -1.0)]
        if (before := built.owned.get((oid, t - 1))) is not None:
            terms.append((before, -1.0))
        built.add_row("stock", ("owned", f"o{opos[oid]}", f"t{t}"), terms, pulp.LpConstraintEQ, 0.0)
    term = {o.offer_id: o.term_months or 0 for o in built.offers}
    for (oid, t), level in built.active.items():  # made by offer, then month
        terms = [(level, 1.0)]
        if (before := built.active.get((oid, t - 1))) is not None:
            terms.append((before, -1.0))
        if (started := built.reserve.get((oid, t))) is not None:
            terms.append((started, -1.0))
        if (ended := built.reserve.get((oid, t - term[oid]))) is not None:
            terms.append((ended, 1.0))
        built.add_row(
            "stock", ("reserved", f"o{opos[oid]}", f"t{t}"), terms, pulp.LpConstraintEQ, 0.0
        )


def opex_terms(built: BuiltModel, month: int) -> Terms:
    """Undiscounted operating cash of ``month``: energy, maintenance, rent, spot, reserved."""
    s = built.scenario
    a = s.assumptions
    H = a.hours_per_month
    terms: Terms = []
    for g in s.gpus:
        ce = energy_cost_per_hour(g, a)
        if ce:
            # energy = ce * (idle * (H * own - used) + used)
            terms += built.own_terms(g.name, month, ce * a.idle_power_fraction * H)
            if (uv := built.use_own.get((g.name, month))) is not None:
                terms.append((uv, ce * (1.0 - a.idle_power_fraction)))
    for o in built.offers:
        if o.option is OfferOption.BUY:
            if m := maintenance_per_month(o, a):
                terms += built.owned_terms(o, month, m)
        elif o.option is OfferOption.RESERVED:
            terms += built.active_terms(o, month, o.price * H)
        elif (v := built.rent.get((o.offer_id, month))) is not None:
            terms.append((v, o.price))
    return terms


def define_budgets_constraints(built: BuiltModel) -> None:
    """Budgets, undiscounted (model.md, Budgets); each only when given.

    ``budgets_capex``:       sum_o price[o] * owned[o,T] <= budget_capex
    ``budgets_monthly_t{t}``: opex[t] <= budget_monthly for every month
    ``budgets_total``:       capex + sum_t opex[t] <= budget_total

    ``opex[t]`` is energy + maintenance + on-demand + spot + reserved cash of
    month ``t`` (see :func:`opex_terms`). Elastic (``limits``): ``short`` USD
    on the right, weighted per budget.
    """
    s = built.scenario
    capex: Terms = [
        vc for o in built.offers for vc in built.owned_terms(o, s.horizon_months, o.price)
    ]

    def limit(key: str, terms: Terms, rhs: float, month: int | None = None) -> None:
        short_key: Key = ("budget", key) if month is None else ("budget", key, month)
        short = built.add_shortfall(ELASTIC_LIMITS, short_key, 1.0 / max(rhs, 1.0))
        if short is not None:
            terms = [*terms, (short, -1.0)]
        row_key = (key,) if month is None else (key, f"t{month}")
        built.add_row("budgets", row_key, _merge(terms), pulp.LpConstraintLE, rhs)

    if s.budget_capex is not None:
        limit("capex", capex, s.budget_capex)
    monthly = (
        {t: opex_terms(built, t) for t in s.months}
        if (s.budget_monthly is not None or s.budget_total is not None)
        else {}
    )
    if s.budget_monthly is not None:
        for t in s.months:
            if monthly[t]:
                limit("monthly", monthly[t], s.budget_monthly, t)
    if s.budget_total is not None:
        limit("total", [*capex, *(vc for t in s.months for vc in monthly[t])], s.budget_total)


def define_power_constraints(built: BuiltModel) -> None:
    """Owned GPUs' draw with PUE fits the power cap.

    ``power_cap``: sum_g tdp_w[g] * pue * own[g,T] <= power_cap_kw * 1000

    Owned stock never falls, so the last month is the binding one.
    Elastic (``limits``): ``short`` watts on the right.
    """
    s = built.scenario
    if s.power_cap_kw is None:
        return
    a = s.assumptions
    terms: Terms = []
    for g in s.gpus:
        terms += built.own_terms(g.name, s.horizon_months, (g.tdp_w or 0.0) * a.pue)
    rhs = s.power_cap_kw * 1000.0
    short = built.add_shortfall(ELASTIC_LIMITS, ("power",), 1.0 / max(rhs, 1.0))
    if short is not None:
        terms.append((short, -1.0))
    built.add_row("power", ("cap",), _merge(terms), pulp.LpConstraintLE, rhs)


# --------------------------------------------------------------------------
# Objective
# --------------------------------------------------------------------------


def objective_terms(built: BuiltModel) -> Terms:
    """Discounted cost of the plan (model.md, Objective), one coefficient per variable.

    buy[o,s]:     price*df(s) + sum_{t=s..T} (maintenance + ce*idle*H) * df(t)
                  - price * residual_fraction(s) * df(T)
    use_own[g,t]: ce * (1 - idle) * df(t)        (energy of used hours)
    rent[o,t]:    price * df(t)
    reserve[o,s]: price * H * sum_{t in term} df(t)
    """
    s = built.scenario
    a = s.assumptions
    T = s.horizon_months
    H = a.hours_per_month
    df = [0.0] + [discount_factor(a, t) for t in s.months]
    tail = [0.0] * (T + 2)  # tail[t] = sum_{tau=t..T} df(tau)
    for t in range(T, 0, -1):
        tail[t] = tail[t + 1] + df[t]
    offers = {o.offer_id: o for o in built.offers}
    terms: Terms = []
    for (oid, t), v in built.buy.items():
        o = offers[oid]
        gpu = s.gpu(o.gpu)
        running = (
            maintenance_per_month(o, a) + energy_cost_per_hour(gpu, a) * a.idle_power_fraction * H
        )
        coef = o.price * df[t] + running * tail[t] - o.price * residual_fraction(a, T, t) * df[T]
        terms.append((v, coef))
    for (g, t), v in built.use_own.items():
        terms.append((v, energy_cost_per_hour(s.gpu(g), a) * (1.0 - a.idle_power_fraction) * df[t]))
    for (oid, t), v in built.rent.items():
        terms.append((v, offers[oid].price * df[t]))
    for (oid, start), v in built.reserve.items():
        o = offers[oid]
        terms.append((v, o.price * H * sum(df[t] for t in reservation_months(o, start))))
    return terms
