"""The built model: the PuLP problem and typed maps from our keys to its variables.

Takes a ``domain.Scenario``, its usable ``results.PairEstimate`` rows and the offers
the model uses (``build.build_model`` fills it in); hands on :class:`BuiltModel`
with its term helpers and :meth:`BuiltModel.add_row` (rows named
``<family>_<positions>``, checked for collisions), the ``Key`` and ``Terms`` types,
the elastic group names, and the small helpers the families share (``_merge``,
``_pairs_of``, ``_ceil``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import pulp

from optimizer.domain import Offer, Scenario, Workload
from optimizer.errors import SolveError
from optimizer.estimate.gangs import whole_ceiling
from optimizer.model.costs import existing_servers_of
from optimizer.model.places import PairFigures, Place
from optimizer.results import PairEstimate

# Groups of elastic slack (see optimizer.solve.diagnose): "limits" relaxes budgets
# and the power cap, "demand" relaxes every demand row.
ELASTIC_LIMITS = "limits"
ELASTIC_DEMAND = "demand"

Key = tuple[object, ...]
Terms = list[tuple[pulp.LpVariable, float]]


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
    # market residual value only: GPUs of a buy offer sold at the start of a month
    sell: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    # model v2 §E: servers of a type owned (integer level), bought and sold, by (gpu, month)
    servers: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    server_buy: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    server_sell: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    last_server_month: dict[str, int] = field(default_factory=dict)  # per GPU type
    active: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)  # reserved levels
    last_buy_month: dict[str, int] = field(default_factory=dict)  # per buy offer
    # on-demand and spot offers: paid hours = work there + width * H * replicas there
    rent: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    # training and batch: paid GPU-hours of (workload, gpu, place, month)
    work: dict[tuple[str, str, str, int], pulp.LpVariable] = field(default_factory=dict)
    # realtime: whole replicas of (workload, gpu, place, width, month)
    replicas: dict[tuple[str, str, str, int, int], pulp.LpVariable] = field(default_factory=dict)
    # finite places: slots of (gpu, place, copy width, month)
    slots: dict[tuple[str, str, int, int], pulp.LpVariable] = field(default_factory=dict)
    # deadline gangs of m >= 2 copies: 1 when (workload, gpu, place, month) runs there
    runs_in: dict[tuple[str, str, str, int], pulp.LpVariable] = field(default_factory=dict)
    # Run slots of a deadline gang on a capped spot offer (methodology 2.12): per
    # (workload, gpu, place, month), the count of run slots of each width.
    run_slots: dict[tuple[str, str, str, int], dict[int, pulp.LpVariable]] = field(
        default_factory=dict
    )
    pick: dict[tuple[str, str], pulp.LpVariable] = field(default_factory=dict)
    # change_cost > 0 only (methodology 2.16): replicas of (workload, gpu, place, width)
    # taken down at the start of a month while the workload still serves in it
    moves: dict[tuple[str, str, str, int, int], pulp.LpVariable] = field(default_factory=dict)
    shortfalls: dict[Key, pulp.LpVariable] = field(default_factory=dict)
    shortfall_weights: dict[Key, float] = field(default_factory=dict)
    row_names: dict[Key, str] = field(default_factory=dict)
    family_rows: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    lp_row_names: set[str] = field(default_factory=set)
    elastic: frozenset[str] = frozenset()
    zero: pulp.LpVariable | None = None  # see nothing()
    # Bound stock levels by what one place of this scenario can use (model/bounds.py).
    # Off in the futures' models: a shared level may hold what only another future uses.
    bound_levels_by_use: bool = True
    # Methodology 2.16: the moves family where change_cost > 0 (off for the alternatives).
    charge_moves: bool = True
    buy_offers_of: dict[str, list[Offer]] = field(default_factory=lambda: defaultdict(list))
    reserved_offers_of: dict[str, list[Offer]] = field(default_factory=lambda: defaultdict(list))
    places: dict[str, list[Place]] = field(default_factory=dict)  # per GPU type
    figures: dict[tuple[str, str], PairFigures] = field(default_factory=dict)  # training, batch
    # The same variables indexed by (gpu, place, month), for the per-place rows.
    replicas_at: dict[tuple[str, str, int], list[tuple[pulp.LpVariable, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    slots_at: dict[tuple[str, str, int], list[tuple[pulp.LpVariable, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    work_at: dict[tuple[str, str, int], dict[str, pulp.LpVariable]] = field(
        default_factory=lambda: defaultdict(dict)
    )
    # ... and by (workload, gpu): (place, month, variable), for the demand rows.
    work_of: dict[tuple[str, str], list[tuple[str, int, pulp.LpVariable]]] = field(
        default_factory=lambda: defaultdict(list)
    )

    # Positions used in LP names.
    @property
    def gpu_pos(self) -> dict[str, int]:
        return {g.name: i for i, g in enumerate(self.scenario.gpus)}

    @property
    def workload_pos(self) -> dict[str, int]:
        return {w.name: i for i, w in enumerate(self.scenario.workloads)}

    @property
    def offer_pos(self) -> dict[str, int]:
        """Prices offers first, then the Fleet rows (model v2 §E)."""
        return {o.offer_id: i for i, o in enumerate(self.scenario.all_offers)}

    def existing_count(self, source_id: str) -> int:
        """GPUs of a Fleet row at the start of month 1 (0 for a Prices offer)."""
        row = self.scenario.existing(source_id)
        return 0 if row is None else row.count

    def existing_servers(self, gpu: str) -> int:
        """Servers that come with a type's owned Fleet rows: ``ceil(count / max_per_node)`` each."""
        return existing_servers_of(self.scenario, gpu)

    # Expressions as term lists (for bulk construction).
    def owned_terms(self, offer: Offer, month: int, coef: float = 1.0) -> Terms:
        """GPUs of ``offer`` owned in ``month``.

        After the type's last useful month the stock is sold at market value
        (``residual_value`` market: selling then beats holding, as the resale
        value only falls and holding costs money) or kept at its last level.
        """
        last = self.last_buy_month.get(offer.offer_id)
        if last is None or month < offer.available_from:
            return []
        if month > last and self.scenario.assumptions.sells:
            return []
        return [(self.owned[(offer.offer_id, min(month, last))], coef)]

    def own_terms(self, gpu: str, month: int, coef: float = 1.0) -> Terms:
        """GPUs of type ``gpu`` owned in ``month``: every purchase so far."""
        return [
            vc for o in self.buy_offers_of.get(gpu, ()) for vc in self.owned_terms(o, month, coef)
        ]

    def server_terms(self, gpu: str, month: int, coef: float = 1.0) -> Terms:
        """Servers of type ``gpu`` owned in ``month`` (as :meth:`owned_terms` for GPUs)."""
        last = self.last_server_month.get(gpu)
        if last is None or (month > last and self.scenario.assumptions.sells):
            return []
        var = self.servers.get((gpu, min(month, last)))
        return [] if var is None else [(var, coef)]

    def active_terms(self, offer: Offer, month: int, coef: float = 1.0) -> Terms:
        """Reserved GPUs of ``offer`` active in ``month``."""
        var = self.active.get((offer.offer_id, month))
        return [] if var is None else [(var, coef)]

    def place(self, gpu: str, key: str) -> Place:
        return next(p for p in self.places[gpu] if p.key == key)

    def spot_cap(self, place: Place) -> int | None:
        """A capped spot offer's ``max_units`` (None for every other place)."""
        return place.most_gpus if place.is_spot else None

    def run_slot_widths(self, workload: str, place: Place, month: int) -> range | None:
        """Widths of the run slots ``workload`` takes in ``place`` (capped spot only), or None."""
        cap = self.spot_cap(place)
        if cap is None:
            return None
        s = self.scenario
        w = next(x for x in s.workloads if x.name == workload)
        fig = self.figures[(workload, place.gpu)]
        return fig.spot_run_in(w, s.gpu(place.gpu), s.assumptions, month).run_slot_widths(cap)

    def work_class(self, workload: str, place: Place, month: int) -> int | None:
        """Slot class of ``workload``'s work in finite ``place`` (None: the free GPUs).

        Its copy width where it takes run slots there (they come out of that
        width's slots); otherwise ``PairFigures.slot_width_in``.
        """
        if (workload, place.gpu, place.key, month) in self.run_slots:
            return self.figures[(workload, place.gpu)].copy_width
        return self.figures[(workload, place.gpu)].slot_width_in(month)

    def run_slot_terms(self, place: Place, k: int, month: int, coef: float) -> Terms:
        """``coef × GPUs`` of every run slot of class ``k`` in ``place`` and ``month``."""
        return [
            (var, coef * width)
            for (w, g, key, t), by_width in self.run_slots.items()
            if (g, key, t) == (place.gpu, place.key, month) and self.figures[(w, g)].copy_width == k
            for width, var in by_width.items()
        ]

    def size_terms(self, place: Place, month: int, coef: float = 1.0) -> tuple[Terms, float]:
        """GPUs ``place`` holds in ``month``: variable terms and a constant (capped rental)."""
        if place.is_house:
            return self.own_terms(place.gpu, month, coef), 0.0
        assert place.offer is not None  # every place but the house has its offer
        if place.is_reserved:
            return self.active_terms(place.offer, month, coef), 0.0
        return [], coef * float(place.offer.max_units or 0)

    def pinned_terms(self, place: Place, month: int, coef: float = 1.0) -> Terms:
        """GPUs pinned by serving replicas in ``place`` in ``month``: sum width * replicas."""
        return [(v, coef * k) for v, k in self.replicas_at.get((place.gpu, place.key, month), ())]

    def slot_terms(self, place: Place, month: int, coef: float = 1.0) -> Terms:
        """GPUs set aside in slots of ``place`` in ``month``: sum width * slots."""
        return [(v, coef * k) for v, k in self.slots_at.get((place.gpu, place.key, month), ())]

    def place_work(self, place: Place, month: int) -> dict[str, pulp.LpVariable]:
        """Work variables of every workload in ``place`` in ``month``, by workload."""
        return self.work_at.get((place.gpu, place.key, month), {})

    def add_row(
        self, family: str, key: Key, terms: Terms, sense: int, rhs: float
    ) -> pulp.LpConstraint:
        """Add one row named ``<family>_<positions>`` and record its name."""
        name = "_".join([family, *(str(part) for part in key)])
        full_key = (family, *key)
        if name in self.lp_row_names or full_key in self.row_names:
            raise SolveError(f"internal error: LP row name {name!r} used twice")
        self.lp_row_names.add(name)
        if not terms and _violated_by_zero(sense, rhs):
            # Nothing can meet it (no place holds the work, say): solvers drop a row
            # without variables and would report a plan that skips it. A variable
            # fixed at 0 keeps the row, so the model is infeasible and diagnosed.
            terms = [(self.nothing(), 1.0)]
        row = pulp.LpConstraint(pulp.LpAffineExpression(terms), sense, name, rhs)
        self.problem.addConstraint(row)
        self.row_names[full_key] = name
        self.family_rows[family].append(name)
        return row

    def nothing(self) -> pulp.LpVariable:
        """A variable fixed at 0, for rows no decision can meet (one per model)."""
        if self.zero is None:
            self.zero = self.problem.add_variable("nothing", lowBound=0, upBound=0)
        return self.zero

    def add_shortfall(self, group: str, key: Key, weight: float) -> pulp.LpVariable | None:
        """An elastic slack for ``key`` when ``group`` is relaxed, else None."""
        if group not in self.elastic:
            return None
        name = "short_" + "_".join(str(p) for p in key)
        var = self.problem.add_variable(name, lowBound=0)
        self.shortfalls[key] = var
        self.shortfall_weights[key] = weight
        return var


def _violated_by_zero(sense: int, rhs: float) -> bool:
    """Whether ``0 sense rhs`` fails: a row without variables that no plan meets."""
    if sense == pulp.LpConstraintGE:
        return rhs > 0
    if sense == pulp.LpConstraintLE:
        return rhs < 0
    return rhs != 0


def _merge(terms: Iterable[tuple[pulp.LpVariable, float]]) -> Terms:
    """Sum coefficients of repeated variables (keeps expressions small and LP text stable)."""
    merged: dict[str, tuple[pulp.LpVariable, float]] = {}
    for var, coef in terms:
        if var.name in merged:
            merged[var.name] = (var, merged[var.name][1] + coef)
        else:
            merged[var.name] = (var, coef)
    return [vc for vc in merged.values() if vc[1] != 0.0]


def _ceil(x: float) -> int:
    """Ceiling that ignores floating-point noise (3.0000000001 is 3)."""
    return whole_ceiling(x)


def _pairs_of(built: BuiltModel, w: Workload) -> list[str]:
    """GPU types ``w`` may run on, in sheet order."""
    return [g.name for g in built.scenario.gpus if (w.name, g.name) in built.estimates]


def house_used_terms(built: BuiltModel, gpu: str, month: int, coef: float = 1.0) -> Terms:
    """Hours the owned GPUs of ``gpu`` work in ``month``: H per pinned GPU plus house work.

    A pinned GPU counts as used for all H hours (model v2 §B): it serves
    around the clock, whatever ``max_utilization`` says of other work.
    """
    if not built.places.get(gpu) or not built.places[gpu][0].is_house:
        return []
    house = built.places[gpu][0]
    H = built.scenario.assumptions.hours_per_month
    terms = built.pinned_terms(house, month, coef * H)
    terms += [(var, coef) for var in built.place_work(house, month).values()]
    return terms
