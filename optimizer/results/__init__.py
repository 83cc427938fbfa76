"""Typed results: what the estimator and the solver hand to checkers and writers.

Writers and the command line read only these objects; none of them ever sees
a PuLP object. All money is in the scenario's currency (USD by default),
never converted and never rounded here.

Takes nothing from any stage (it imports only ``domain`` and ``currency``); hands on the estimates, decisions, plans and run results defined
here, and a futures run's :class:`~optimizer.results.futures.FuturesResult`
(``futures``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from optimizer.currency import USD, one_currency
from optimizer.domain import CostCategory, OfferOption, Scenario


class SolveStatus(StrEnum):
    """Status of one scenario's solve (``status`` in the JSON)."""

    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    TIME_LIMIT = "time_limit"  # a plan exists; ``gap`` says how far from proven optimal
    ERROR = "error"

    @property
    def has_plan(self) -> bool:
        return self in (SolveStatus.OPTIMAL, SolveStatus.TIME_LIMIT)


class EstimateSource(StrEnum):
    MEASURED = "measured"
    ESTIMATED = "estimated"


HOUSE = "house"  # the place of a type's owned GPUs; every other place is named by its offer id


@dataclass(frozen=True)
class ServingWidth:
    """One serving width (GPUs per replica) of a realtime pair (model v2 §D).

    ``allowed`` is false with ``reason`` in numbers when the width misses the
    latency target, does not hold the model, or is dominated by a narrower one.
    """

    width: int
    allowed: bool
    reason: str
    tokens_per_second_per_replica: float | None
    latency_ms: float | None


@dataclass(frozen=True)
class PairEstimate:
    """What one workload needs on one GPU type (an ``options`` row of the JSON).

    ``gpu_hours``: training kinds, GPU-hours of the whole job (all GPUs
    counted); batch inference, GPU-hours per month; realtime, None.
    ``tokens_per_second_per_replica`` and ``latency_ms`` (batch-1 decode
    step, ms per token) are for realtime only. ``source`` is ``measured``
    when a Throughput row gave the speed. When ``allowed`` is false,
    ``reason`` says why in numbers.
    """

    workload: str
    gpu: str
    allowed: bool
    reason: str
    memory_gb: float | None
    gpus_per_replica: int | None
    gpu_hours: float | None
    tokens_per_second_per_replica: float | None
    latency_ms: float | None
    source: EstimateSource
    # Realtime: every serving width looked at, narrowest first (model v2 §D). The
    # pair's own figures are those of its narrowest allowed width.
    widths: tuple[ServingWidth, ...] = ()
    # Which figures were estimated or measured and which architecture values were
    # assumed (model v2 §G), in words: "estimated: memory need, GPU-hours; assumed: …".
    basis: str = ""

    def serving_widths(self) -> tuple[ServingWidth, ...]:
        """The widths a realtime replica of this pair may use (none when the pair is out).

        Without a width list (a pair estimated before widths were looked at),
        the pair's own width and capacity are the only choice.
        """
        if not self.allowed:
            return ()
        if self.widths:
            return tuple(w for w in self.widths if w.allowed)
        if self.gpus_per_replica and self.tokens_per_second_per_replica:
            only = ServingWidth(
                self.gpus_per_replica, True, "", self.tokens_per_second_per_replica, self.latency_ms
            )
            return (only,)
        return ()


@dataclass(frozen=True)
class Decisions:
    """A plan's decisions, in terms of the inputs only (not LP variables).

    The independent checker (``optimizer.check``) recomputes every cost and
    checks every rule from these and the scenario. Keys use offer ids
    (``Offer.offer_id``), GPU names, workload names and months 1..T. A place
    is :data:`HOUSE` (a type's owned GPUs) or the id of a reserved, on-demand
    or spot offer (model v2 §A). Rented hours, pinned GPUs and house hours are
    derived from these, never stored beside them.
    """

    # (buy offer, month) -> GPUs bought at the start of the month
    purchases: dict[tuple[str, int], int] = field(default_factory=dict)
    # (reserved offer, start month) -> GPUs reserved for the offer's term
    reservations: dict[tuple[str, int], int] = field(default_factory=dict)
    # realtime (workload, gpu, place, width, month) -> whole replicas
    replicas: dict[tuple[str, str, str, int, int], int] = field(default_factory=dict)
    # training and batch (workload, gpu, place, month) -> paid GPU-hours in that place
    work: dict[tuple[str, str, str, int], float] = field(default_factory=dict)
    # (gpu, finite place, copy width, month) -> slots of that width set aside for the month
    slots: dict[tuple[str, str, int, int], int] = field(default_factory=dict)
    # one-off training workload -> the GPU type it runs on
    picks: dict[str, str] = field(default_factory=dict)
    # (buy offer, month) -> GPUs of that offer sold at the start of the month
    # (model v2 §E; only where residual_value is market)
    sales: dict[tuple[str, int], int] = field(default_factory=dict)
    # (gpu, month) -> servers bought / sold at the start of the month (model v2 §E;
    # only for types with a node_price or node_power_w)
    server_purchases: dict[tuple[str, int], int] = field(default_factory=dict)
    server_sales: dict[tuple[str, int], int] = field(default_factory=dict)


@dataclass(frozen=True)
class CashFlowMonth:
    """Undiscounted cash of one month, by category (USD)."""

    month: int
    amounts: dict[CostCategory, float]

    @property
    def total(self) -> float:
        """Net cash of the month: sales (negative) included."""
        return sum(self.amounts.values())

    @property
    def opex(self) -> float:
        """Operating cash: everything but purchases and sales (what budget_monthly limits)."""
        capital = (CostCategory.PURCHASE, CostCategory.SALES)
        return sum(v for c, v in self.amounts.items() if c not in capital)


@dataclass(frozen=True)
class FleetRow:
    """One GPU type in one month (a ``fleet`` row of the JSON)."""

    gpu: str
    month: int
    bought: int
    owned: int  # existing + bought - sold so far
    reserved: int  # reserved GPUs active that month
    rented_hours: float  # paid on-demand hours
    spot_hours: float  # paid spot hours
    owned_utilization: float | None  # used owned hours / (H × owned); None when nothing is owned
    sold: int = 0  # GPUs sold at the start of the month (model v2 §E)
    servers: int = 0  # servers owned that month (model v2 §E)
    existing: int = 0  # GPUs of sheet Fleet still owned that month (model v2 §E)


@dataclass(frozen=True)
class PlaceRow:
    """One finite place in one month (a ``places`` row of the JSON, model v2 §F).

    ``place`` is ``house``, ``reserved``, ``on_demand`` or ``spot``; ``offer``
    names the offer (None for the house). ``pinned`` GPUs hold serving
    replicas for the whole month, ``slots`` maps a copy width to the slots of
    that width set aside, and ``free`` GPUs are the rest after pinned ones.
    """

    gpu: str
    month: int
    place: str
    offer: str | None
    size: int
    pinned: int
    free: int
    slots: dict[int, int]


@dataclass(frozen=True)
class AssignmentRow:
    """Where one workload runs in one month (an ``assignments`` row of the JSON)."""

    workload: str
    gpu: str
    month: int
    gpus_per_replica: int
    replicas: int | None  # realtime only
    gpu_hours: float  # paid GPU-hours (spot included)
    cost: float  # the workload's share of that type's cost that month, by GPU-hours
    spot_hours: float = 0.0
    tokens: float | None = None  # tokens processed that month, where known (for cost per million)
    place: str = HOUSE  # house, reserved, on_demand or spot (model v2 §F)
    offer: str | None = None  # None in the house; the provider, else "<gpu> <option> row <n>"
    copy_width: int = 1  # GPUs one copy of the model needs
    width: int = 1  # GPUs the work holds at once: replica width, or gang width
    load: float | None = None  # serving: demand / capacity of all its replicas that month


@dataclass(frozen=True)
class OfferUse:
    """How much of one offer a plan uses, for the Options and Fleet sheets."""

    offer_id: str
    gpu: str
    option: OfferOption
    price: float
    units: float  # buy: GPUs bought; reserved: GPU-months reserved; rent/spot: paid hours
    cost: float  # undiscounted cash spent on this offer (purchase only for buy)


@dataclass(frozen=True)
class ShadowPrice:
    """What one more unit of a binding budget or cap would save."""

    constraint: str
    month: int | None
    saving_per_unit: float
    unit: str


# The solvers --solver names. "auto" races HiGHS and SCIP when two cores are
# free, else HiGHS; the commercial ones run through PuLP when installed.
COMMERCIAL = ("gurobi", "cplex", "xpress", "copt")
SOLVERS = ("auto", "highs", "scip", "cbc", *COMMERCIAL)


@dataclass(frozen=True)
class SolverSettings:
    solver: str = "auto"  # one of SOLVERS
    time_limit: float | None = None  # seconds; None = no limit
    # Relative MIP gap at which a plan counts as optimal; on top of it a plan
    # is always optimal once proven to half a cent (solve.adapters.PROOF_TOLERANCE_USD).
    gap: float = 0.0
    threads: int | None = None
    progress: bool = False  # print elapsed time, best plan and gap while solving
    currency: str = USD  # the best plan's label in progress lines: the scenario's currency


@dataclass(frozen=True)
class SolverInfo:
    name: str
    version: str
    seconds: float
    build_seconds: float = 0.0
    variables: int = 0
    constraints: int = 0
    integers: int = 0
    bound: float | None = None  # proven lower bound on any plan's cost (HiGHS), when known
    # Issue 30, --coarse-after: layouts tied per quarter after this month (None: monthly),
    # and the monthly plan's proven cost when it was also solved (None: not compared).
    coarse_after: int | None = None
    monthly_cost: float | None = None


@dataclass(frozen=True)
class Plan:
    """One scenario's result.

    ``total_cost`` is the objective: every cost, discounted where
    ``discount_rate`` > 0, minus the (discounted) residual credit.
    ``cash_out`` is undiscounted cash over the horizon, purchases included,
    before any credit; ``residual_credit`` is the undiscounted value (market or book)
    credited. ``costs`` holds each category's discounted total;
    ``cash_flow`` holds undiscounted cash per month. When ``status`` has no
    plan, the money fields are None and ``diagnostics`` say why.
    """

    scenario: Scenario
    status: SolveStatus
    gap: float | None
    total_cost: float | None
    cash_out: float | None
    residual_credit: float | None
    costs: dict[CostCategory, float]
    cash_flow: tuple[CashFlowMonth, ...]
    fleet: tuple[FleetRow, ...]
    assignments: tuple[AssignmentRow, ...]
    options: tuple[PairEstimate, ...]
    diagnostics: tuple[str, ...]
    decisions: Decisions | None
    solver: SolverInfo | None = None
    places: tuple[PlaceRow, ...] = ()
    offer_use: tuple[OfferUse, ...] = ()
    shadow_prices: tuple[ShadowPrice, ...] = ()
    residual_credit_discounted: float | None = None
    # model v2 §E: what the GPUs and servers of sheet Fleet are worth at month 1
    # (market or book), the capital their cost shares carry
    existing_value: float | None = None
    # Issue 35 item 10 (methodology 2.16): per realtime workload, its serving replicas
    # taken down while it still serves the next month (workloads with none left
    # out); None where no plan counted them
    moves: dict[str, int] | None = None

    @property
    def name(self) -> str:
        return self.scenario.name

    @property
    def move_count(self) -> int:
        """Every move of the plan (methodology 2.16); 0 where none was counted."""
        return sum((self.moves or {}).values())

    @property
    def objective(self) -> float | None:
        """What the search minimised: ``total_cost`` plus ``change_cost`` per move.

        The same as ``total_cost`` where ``change_cost`` is 0 (the default). The
        charge is no money paid: every money figure is ``total_cost``'s.
        """
        if self.total_cost is None:
            return None
        return self.total_cost + self.scenario.assumptions.change_cost * self.move_count

    @property
    def currency(self) -> str:
        """The label of this plan's money (Assumptions ``currency``)."""
        return self.scenario.assumptions.currency

    @classmethod
    def without_plan(
        cls,
        scenario: Scenario,
        status: SolveStatus,
        options: tuple[PairEstimate, ...],
        diagnostics: Sequence[str],
        solver: SolverInfo | None = None,
    ) -> Plan:
        """A result with no plan: only the status, the options looked at and why.

        Every money, fleet and decision field is empty, so no writer can show a
        number for it.
        """
        return cls(
            scenario=scenario,
            status=status,
            gap=None,
            total_cost=None,
            cash_out=None,
            residual_credit=None,
            costs={},
            cash_flow=(),
            fleet=(),
            assignments=(),
            options=options,
            diagnostics=tuple(diagnostics),
            decisions=None,
            solver=solver,
        )


@dataclass(frozen=True)
class RunResult:
    """Everything one ``gpumix solve`` produced: what the writers take."""

    plans: tuple[Plan, ...]
    input_files: tuple[Path, ...]
    started_at: str  # ISO 8601, UTC
    gpumix_version: str
    settings: SolverSettings
    baselines: dict[str, dict[str, Plan]] = field(
        default_factory=dict
    )  # scenario -> baseline name -> plan

    @property
    def currency(self) -> str:
        """The one currency of every plan (a workbook has one: model v2 §E)."""
        return one_currency(p.currency for p in self.plans)
