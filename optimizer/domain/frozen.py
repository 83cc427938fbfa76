"""Typed, validated inputs: what the reader produces and every later stage reads.

Everything here is frozen. The reader (``optimizer.inputs.reader``) builds these from a
workbook, ``optimizer.inputs.scenario_file.read`` from YAML, and ``optimizer.inputs.resolve``
combines them into one :class:`Scenario` per scenario to solve. Later stages
(estimate, model, solve, check, writers) see only these objects, never cells.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from optimizer.domain.choices import FleetKind, Kind, OfferOption, Precision, ResidualValue

if TYPE_CHECKING:
    from optimizer.domain.futures import Futures


@dataclass(frozen=True)
class Gpu:
    """One row of sheet ``GPUs``."""

    name: str
    vram_gb: float
    fp16_tflops: float
    memory_bandwidth_gbs: float | None = None
    tdp_w: float | None = None
    nvlink: bool = False
    max_per_node: int = 8
    node_price: float = 0.0  # USD per server of max_per_node GPUs (model v2 §E)
    node_power_w: float = 0.0  # a server's draw beyond its GPUs

    @property
    def has_servers(self) -> bool:
        """Owned GPUs of this type are planned in whole servers (a server costs or draws)."""
        return self.node_price > 0 or self.node_power_w > 0

    mfu_training: float | None = None  # None: the scenario's Assumptions value
    fp8: bool = False  # computes in FP8 (model v2 §G): H100, H200, B200, L40S, RTX 4090 do


def cite(source: str, note: str) -> str:
    """A catalogue figure's source as results print it: document and date, then how it was read."""
    return f"{source}: {note}" if note else source


@dataclass(frozen=True)
class CatalogueFigure:
    """A GPUs cell left blank and filled from the GPU catalogue (issue 31), with its source."""

    gpu: str  # the type's name as the GPUs sheet gives it
    column: str  # the GPUs column filled
    value: float | int | bool
    entry: str  # the catalogue entry the name matched
    source: str  # the document and its date
    note: str = ""  # how the figure was worked out of the document's, when it was

    @property
    def cited(self) -> str:
        return cite(self.source, self.note)


@dataclass(frozen=True)
class Offer:
    """One row of sheet ``Prices`` (after any scenario price override).

    ``offer_id`` is unique within a scenario and stable across runs of the same
    workbook: ``"<gpu>|<option>|<n>"`` with ``n`` counting that GPU's offers of
    that option from 1 in sheet order. ``row`` is the sheet row (0 for an offer
    that did not come from a sheet).
    """

    offer_id: str
    gpu: str
    option: OfferOption
    price: float  # USD per GPU for buy; USD per GPU-hour otherwise
    term_months: int | None = None  # reserved only (required there)
    max_units: int | None = None  # None: no cap (accounting rule 7)
    available_from: int = 1
    provider: str | None = None
    source: str | None = None
    row: int = 0


@dataclass(frozen=True)
class ExistingGpus:
    """One row of sheet ``Fleet`` (or a scenario file's ``fleet:``): GPUs that exist before month 1.

    ``source_id`` is ``"<gpu>|fleet|<n>"``, ``n`` counting that type's rows from 1
    in order (sheet rows first, then a scenario file's additions); it keys the
    row's stock (owned) or its reservation (reserved) in a plan's decisions, as
    an offer id keys an offer's. ``label`` is how results name the row
    (``"Fleet row 4"``).
    """

    source_id: str
    gpu: str
    count: int
    kind: FleetKind
    price: float  # owned: USD one GPU cost (maintenance basis); reserved: USD per GPU-hour
    months_left: int | None = None  # reserved only: months still to pay, from month 1
    age_months: int = 0  # owned only: age at month 1
    label: str = ""

    def as_offer(self, horizon_months: int) -> Offer:
        """The row as the model and plan assembly see it: an owned row is a buy source
        (never bought: its stock starts at ``count``), a reservation a reserved offer
        started in month 1 whose term is the months left inside the horizon."""
        reserved = self.kind is FleetKind.RESERVED
        return Offer(
            offer_id=self.source_id,
            gpu=self.gpu,
            option=OfferOption.RESERVED if reserved else OfferOption.BUY,
            price=self.price,
            term_months=min(self.months_left or 0, horizon_months) if reserved else None,
            max_units=self.count,
            provider=self.label,
        )

    def owed_after(self, horizon_months: int, hours_per_month: float) -> float:
        """Reserved: USD still owed for months past the horizon (0 for owned rows)."""
        if self.kind is not FleetKind.RESERVED or self.months_left is None:
            return 0.0
        beyond = max(0, self.months_left - horizon_months)
        return self.price * hours_per_month * self.count * beyond


@dataclass(frozen=True)
class Workload:
    """One row of sheet ``Workloads`` (or an ``add_workloads`` entry)."""

    name: str
    kind: Kind
    params_b: float | None = None
    precision: Precision = Precision.BF16
    tokens: float | None = None  # training: whole job; batch_inference: per month
    tokens_per_second: float | None = None  # realtime: sustained demand
    latency_ms: float | None = None  # realtime: most ms per generated token
    # realtime: tokens held in cache per sequence, v1's reading; None: from the request shape
    context_tokens: int | None = None
    start_month: int = 1
    end_month: int | None = None  # None: the scenario's horizon
    interruptible: bool = False
    vram_gb: float | None = None  # replaces the memory estimate
    # model v2 §E: demand over time (realtime and batch only)
    growth_per_month: float = 0.0  # compounded from start_month
    demand_by_month: tuple[tuple[int, float], ...] = ()  # sheet Demand: (month, value)
    # model v2 §B-§C: serving availability, recurring runs, deadlines
    min_replicas: int = 1  # realtime: fewest replicas in every month of the window
    runs_per_month: float | None = None  # training kinds, batch: recurring runs a month (average)
    deadline_hours: float | None = None  # training kinds, batch: wall-clock hours one run may take
    # model v2 §G: training state, architecture and request shape. A blank
    # architecture value is estimated from params_b (the results say which).
    training_state_bytes_per_param: float | None = None  # None: the Assumptions value
    seq_len: int = 4096  # training kinds: tokens per training sequence
    active_params_b: float | None = None  # mixture-of-experts: parameters used per token
    layers: int | None = None
    hidden_size: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    prompt_tokens: int | None = None  # realtime: a request's prompt (None: 1024)
    output_tokens: int | None = None  # realtime: a request's generated tokens (None: 128)
    # A future's demand factor (issue 19): every month's demand, however given, times this.
    demand_multiplier: float = 1.0

    @property
    def recurring(self) -> bool:
        """Recurring work (runs_per_month given): every month of the window does its runs."""
        return self.runs_per_month is not None

    @property
    def one_off_training(self) -> bool:
        """A training job done once over its window, on one GPU type (v1's rule)."""
        return self.kind.is_training and self.runs_per_month is None

    @property
    def base_demand(self) -> float | None:
        """The demand ``growth_per_month`` starts from: tokens/s (realtime), tokens (batch)."""
        return self.tokens_per_second if self.kind is Kind.REALTIME_INFERENCE else self.tokens

    @property
    def demand_changes(self) -> bool:
        """Demand differs from the base figure (growth, rows of sheet Demand, a future's factor)."""
        return (
            self.growth_per_month > 0 or bool(self.demand_by_month) or self.demand_multiplier != 1.0
        )

    def demand_in(self, month: int) -> float:
        """Demand in ``month`` (model v2 §E): the Demand sheet's value where it gives one,
        else ``base * (1 + growth_per_month) ** (month - start_month)``; tokens/s for
        realtime, tokens per run or per month for batch."""
        given = dict(self.demand_by_month)
        if month in given:
            return given[month] * self.demand_multiplier
        return (
            (self.base_demand or 0.0)
            * (1.0 + self.growth_per_month) ** (month - self.start_month)
            * self.demand_multiplier
        )

    def demand_factor(self, month: int) -> float:
        """Batch: the month's work over the base month's (measured GPU-hours scale with it).

        Growth alone needs no base; a Demand row needs ``tokens`` (checked on input).
        """
        given = dict(self.demand_by_month)
        if month in given:
            base = self.base_demand
            return (given[month] / base if base else 1.0) * self.demand_multiplier
        growth = float((1.0 + self.growth_per_month) ** (month - self.start_month))
        return growth * self.demand_multiplier

    def window(self, horizon_months: int) -> range:
        """Months (1-based, inclusive) in which this workload's work happens."""
        end = self.end_month if self.end_month is not None else horizon_months
        return range(self.start_month, end + 1)


@dataclass(frozen=True)
class Measurement:
    """One row of sheet ``Throughput``: measured figures that replace estimates."""

    workload: str
    gpu: str
    gpus_per_replica: int | None = None
    gpu_hours: float | None = None  # training: whole job; batch: per month
    tokens_per_second_per_replica: float | None = None  # realtime


@dataclass(frozen=True)
class Assumptions:
    """Every key of sheet ``Assumptions``, with the contract's defaults.

    Fractions are stored as Excel stores a percent cell (0.05 is 5 %).
    ``optimizer.inputs.schema.ASSUMPTIONS`` declares the same keys with units and
    sources; a test keeps the two in step.
    """

    hours_per_month: float = 730.0
    electricity_per_kwh: float = 0.10
    pue: float = 1.3
    idle_power_fraction: float = 0.10
    maintenance_per_year: float = 0.05
    depreciation_months: float = 36.0
    credit_residual_value: bool | None = None  # v1's key: TRUE = book, FALSE = none
    colocation_per_kw_month: float = 0.0  # model v2 §E: USD per kW of owned IT power
    residual_value: str = "market"  # market, book or none (model v2 §E)
    resale_fraction: float = 0.7
    resale_decline_per_year: float = 0.3
    discount_rate: float = 0.0
    max_utilization: float = 0.95
    usable_vram_fraction: float = 0.90
    mfu_training: float = 0.40
    mfu_inference: float = 0.50
    goodput: float = 0.90
    bandwidth_efficiency: float = 0.70
    nvlink_scaling_per_doubling: float = 0.95
    pcie_scaling_per_doubling: float = 0.70
    spot_efficiency: float = 0.85
    bytes_per_param_fp32: float = 4.0
    bytes_per_param_bf16: float = 2.0
    bytes_per_param_fp16: float = 2.0
    bytes_per_param_fp8: float = 1.0
    bytes_per_param_int8: float = 1.0
    bytes_per_param_int4: float = 0.5
    training_state_bytes_per_param: float = 16.0
    inference_overhead: float = 0.20  # accepted, unused since model v2 §G
    kv_kib_per_token_8b: float = 128.0
    target_load: float = 0.8  # model v2 §B: serving capacity >= demand / target_load
    # model v2 §G
    fp8_training_speedup: float = 1.2
    allreduce_latency_us: float = 25.0
    runtime_overhead_gb: float = 2.5
    bandwidth_efficiency_fp32: float | None = None  # None: bandwidth_efficiency
    bandwidth_efficiency_bf16: float | None = None  # None: bandwidth_efficiency
    bandwidth_efficiency_fp16: float | None = None  # None: bandwidth_efficiency
    bandwidth_efficiency_fp8: float | None = None  # None: bandwidth_efficiency
    bandwidth_efficiency_int8: float = 0.53
    bandwidth_efficiency_int4: float = 0.38
    # Issue 30: layouts fixed per quarter after this month (None: every month).
    coarse_after_month: float | None = None
    # Issue 35 item 10: charged per move of a serving replica in the search only (0: off).
    change_cost: float = 0.0
    currency: str = "USD"  # model v2 §E: the label of every money figure; nothing converted

    @property
    def residual_rule(self) -> ResidualValue:
        """What is credited at the horizon: v1's key where given, else ``residual_value``."""
        if self.credit_residual_value is not None:
            return ResidualValue.BOOK if self.credit_residual_value else ResidualValue.NONE
        return ResidualValue(self.residual_value)

    @property
    def sells(self) -> bool:
        """Owned GPUs may be sold (model v2 §E): only when the horizon credits market value."""
        return self.residual_rule is ResidualValue.MARKET

    def bytes_per_param(self, precision: Precision) -> float:
        value: float = getattr(self, f"bytes_per_param_{precision.value}")
        return value

    def weight_bandwidth_efficiency(self, precision: Precision) -> float:
        """Achieved share of peak bandwidth reading weights stored at ``precision``
        (16- and 8-bit float formats: ``bandwidth_efficiency`` unless set on their own)."""
        value: float | None = getattr(self, f"bandwidth_efficiency_{precision.value}")
        return self.bandwidth_efficiency if value is None else value


@dataclass(frozen=True)
class Scenario:
    """Everything one solve needs, after every override has been applied.

    ``gpus`` and ``offers`` are already filtered: excluded GPU types are gone,
    buy offers are gone when ``allow_buy`` is false, and on-demand, spot and
    reserved offers are gone when ``allow_rent`` is false. ``workloads`` are
    the ones this scenario plans. ``assumption_sources`` says, for every
    assumption key, where its value came from (``"default: <source>"``,
    ``"Assumptions sheet: <source>"``, ``"Scenarios sheet"``,
    ``"<file>.yaml"``).
    """

    name: str
    horizon_months: int = 36
    budget_total: float | None = None
    budget_capex: float | None = None
    budget_monthly: float | None = None
    power_cap_kw: float | None = None
    allow_buy: bool = True
    allow_rent: bool = True
    gpus: tuple[Gpu, ...] = ()
    offers: tuple[Offer, ...] = ()
    workloads: tuple[Workload, ...] = ()
    measurements: tuple[Measurement, ...] = ()
    assumptions: Assumptions = field(default_factory=Assumptions)
    assumption_sources: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    excluded_gpus: tuple[str, ...] = ()
    source_files: tuple[Path, ...] = ()
    # Warnings about the input files (e.g. a sheet named almost like an optional one).
    input_warnings: tuple[str, ...] = field(default=(), compare=False)
    # Lowest buy price of each type after price overrides, before allow_buy removed
    # any offer (model v2 §E): what a used GPU's market value is a share of.
    listed_buy_prices: tuple[tuple[str, float], ...] = ()
    # model v2 §E: what exists before month 1 (sheet Fleet, a scenario file's fleet:)
    fleet: tuple[ExistingGpus, ...] = ()
    # issue 19: futures this scenario is planned for at once (sheet Futures, futures:)
    futures: Futures | None = None
    # issue 31: the GPUs cells filled from the GPU catalogue, each with its source
    catalogue_figures: tuple[CatalogueFigure, ...] = field(default=(), compare=False)

    @property
    def fleet_offers(self) -> tuple[Offer, ...]:
        """Each Fleet row as an offer (:meth:`ExistingGpus.as_offer`), in row order."""
        return tuple(r.as_offer(self.horizon_months) for r in self.fleet)

    @property
    def all_offers(self) -> tuple[Offer, ...]:
        """The Prices offers, then the Fleet rows as offers: every id a plan's decisions use."""
        return self.offers + self.fleet_offers

    def existing(self, source_id: str) -> ExistingGpus | None:
        """The Fleet row with ``source_id``, or None for an offer of sheet Prices."""
        return next((r for r in self.fleet if r.source_id == source_id), None)

    def gpu(self, name: str) -> Gpu:
        for gpu in self.gpus:
            if gpu.name == name:
                return gpu
        raise KeyError(name)

    def offers_of(self, gpu: str, option: OfferOption | None = None) -> tuple[Offer, ...]:
        return tuple(
            o for o in self.offers if o.gpu == gpu and (option is None or o.option is option)
        )

    def reference_price(self, gpu: str) -> float | None:
        """The new price a used ``gpu`` is valued against: its lowest buy price (model v2 §E).

        The scenario's own buy offers where it has any (a sweep may have changed
        them), else the price listed before ``allow_buy`` removed them, else the
        count-weighted mean price of its owned Fleet rows.
        """
        prices = [o.price for o in self.offers if o.gpu == gpu and o.option is OfferOption.BUY]
        if prices:
            return min(prices)
        listed = dict(self.listed_buy_prices).get(gpu)
        if listed is not None:
            return listed
        # No buy offer at all: the count-weighted mean of its owned Fleet rows' prices.
        owned = [r for r in self.fleet if r.gpu == gpu and r.kind is FleetKind.OWNED]
        count = sum(r.count for r in owned)
        return sum(r.price * r.count for r in owned) / count if count else None

    def measurement(self, workload: str, gpu: str) -> Measurement | None:
        for m in self.measurements:
            if m.workload == workload and m.gpu == gpu:
                return m
        return None

    @property
    def months(self) -> range:
        return range(1, self.horizon_months + 1)


@dataclass(frozen=True)
class LoadedInput:
    """What ``optimizer.inputs.load.load_input`` returns: the scenarios to solve and their files."""

    scenarios: tuple[Scenario, ...]
    files: tuple[Path, ...]  # the workbook and any scenario files, as read
    gpu_count: int = 0
    offer_count: int = 0
    workload_count: int = 0
