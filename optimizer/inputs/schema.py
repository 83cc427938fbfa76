"""The input workbook's columns, declared once.

The reader's checks, the template workbook and ``docs/workbook.md`` are all
made from these declarations, so they cannot drift apart. Names follow
``../shared/spec/workbook.md`` (the public contract) exactly.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from optimizer.currency import CURRENCY_MAX_CHARS, USD
from optimizer.domain import Assumptions, Kind, OfferOption, Precision


class ColumnType(StrEnum):
    TEXT = "text"
    NUMBER = "number"
    INTEGER = "integer"
    BOOL = "TRUE/FALSE"
    CHOICE = "choice"
    NAME_LIST = "comma-separated names"


# The largest scenario gpumix plans, in workloads × GPU types × months: the
# model has variables for each, so this bounds memory and build time (the
# (20, 50, 60) benchmark, 60,000, builds in about 2 s). A scenario beyond it is
# refused by validate, before anything is built.
MAX_WORKLOAD_TYPE_MONTHS = 500_000

# One bound on every number gpumix reads (issue 33): each is far above any real
# figure, and far enough below a float's range that every product the model
# forms (a price × hours × GPUs × months, a demand × its growth) stays finite
# and inside what HiGHS and SCIP accept as a coefficient (they read 1e20 as
# infinite). A value above its bound is refused, naming the cell and the bound.
MAX_PRICE = 1e9  # USD per GPU, per server or per GPU-hour
MAX_BUDGET = 1e13  # USD over a horizon, or in a month
MAX_GPUS = 1_000_000  # GPUs of a cap, of a Fleet row, of a replica; replicas
MAX_MONTHS = 1_200  # any month, term, age or horizon: 100 years
HOURS_IN_LEAP_YEAR = 366 * 24  # hours_per_month: a month cannot hold more than a year
MAX_PER_NODE = 1_024  # GPUs in one server
MAX_VRAM_GB = 100_000  # memory of one GPU (the largest made has 288 GB)
MAX_REPLICA_VRAM_GB = 1_000_000  # memory one replica needs
MAX_TFLOPS = 1_000_000
MAX_BANDWIDTH_GBS = 1_000_000
MAX_WATTS = 1_000_000  # a GPU's or a server's draw
MAX_POWER_KW = 1e9
MAX_PARAMS_B = 100_000  # billion parameters: 100 trillion
MAX_TOKENS = 1e18  # tokens of a job, a run or a month (Llama 3 trained on 1.5e13)
MAX_TOKEN_RATE = 1e12  # tokens/s
MAX_LATENCY_MS = 1e7
MAX_SEQUENCE_TOKENS = 1e9  # tokens of a prompt, an output, a context or a sequence
MAX_ARCHITECTURE = 10_000_000  # layers, widths, heads
MAX_BYTES_PER_PARAM = 1_000
MAX_RUNS_PER_MONTH = 1_000_000
MAX_DEADLINE_HOURS = 1_000_000
MAX_GPU_HOURS = 1e12
MAX_GROWTH_PER_MONTH = 10.0  # demand × 11 a month (a percent typed as a number is caught)
MAX_FACTOR = 1_000.0  # a future's price or demand factor
MAX_SLACK = 10.0  # alternatives --slack: plans up to 11 times the cheapest
# Demand may grow at most this many times over a workload's window (growth
# compounded): beyond it the demand of the last months leaves any plannable range.
MAX_DEMAND_GROWTH = 1e12


def bound_text(value: float) -> str:
    """A bound as messages and docs state it: ``1,000,000`` or ``1e+18``."""
    return f"{value:,.0f}" if value == int(value) and abs(value) < 1e16 else f"{value:g}"


@dataclass(frozen=True)
class Column:
    """One column of an input sheet.

    ``minimum`` is inclusive unless ``positive`` is set (then the value must be
    strictly greater than ``minimum``, which is 0). ``default`` is what a blank
    cell means; ``None`` means "not given" (no limit, or the field's rule).
    """

    name: str
    type: ColumnType
    description: str
    unit: str | None = None
    required: bool = False
    default: object = None
    default_text: str | None = None  # how the docs state the default when it is a rule
    allowed: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None  # inclusive; a limit of what gpumix plans (README, Limits)
    positive: bool = False
    fraction: bool = False  # stored as Excel stores a percent cell: 0.05 is 5 %
    uncapped: bool = False  # a fraction that may exceed 1 (a growth rate): no "at most 1"
    references: str | None = None  # "GPUs", "Workloads": the sheet whose names it must use

    @property
    def header(self) -> str:
        """The header the template writes: name plus unit in parentheses."""
        return f"{self.name} ({self.unit})" if self.unit else self.name

    @property
    def at_most_one(self) -> bool:
        """A share (MFU, a probability): more than 1 is impossible; a growth rate is uncapped."""
        return self.fraction and not self.uncapped

    @property
    def lower_text(self) -> str:
        """The lower bound as messages and docs state it: `` > 0``, `` ≥ 1`` or ''."""
        if self.positive:
            return " > 0"
        return "" if self.minimum is None else f" ≥ {self.minimum:g}"

    @property
    def expected(self) -> str:
        """What a valid value looks like, for error messages and docs."""
        if self.type is ColumnType.CHOICE:
            return "one of " + ", ".join(self.allowed)
        if self.type is ColumnType.BOOL:
            return "TRUE or FALSE"
        if self.type is ColumnType.NAME_LIST:
            return "names separated by commas"
        if self.type is ColumnType.TEXT:
            return "text"
        kind = (
            "a whole number" if self.type is ColumnType.INTEGER else "a number"
        ) + self.lower_text
        if self.unit:
            kind += f" ({self.unit})"
        if self.at_most_one:
            kind += ", at most 1"
        return kind


@dataclass(frozen=True)
class Sheet:
    name: str
    description: str
    columns: tuple[Column, ...]
    optional_sheet: bool = False
    closed: bool = False  # unknown columns are errors (only Scenarios)

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    @property
    def required_columns(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.required)


_KINDS = tuple(k.value for k in Kind)
_PRECISIONS = tuple(p.value for p in Precision)
_OPTIONS = tuple(o.value for o in OfferOption)

GPUS = Sheet(
    "GPUs",
    "One row per GPU type. A name the GPU catalogue knows (`gpumix gpus` lists it: H100,"
    " A100 80GB, L40S, L4, MI300X ...) fills the row's blank cells with its datasheet"
    " figures, each with its source in the results; a typed value always wins.",
    (
        Column(
            "gpu",
            ColumnType.TEXT,
            "Name used everywhere else (e.g. H100); unique. The drop-down offers the GPU catalogue's names; any other name is allowed.",
            required=True,
        ),
        Column(
            "vram_gb",
            ColumnType.NUMBER,
            "Memory per GPU.",
            unit="GB",
            required=True,
            minimum=0,
            positive=True,
            maximum=MAX_VRAM_GB,
        ),
        Column(
            "fp16_tflops",
            ColumnType.NUMBER,
            "Dense FP16/BF16 peak.",
            unit="TFLOPS",
            required=True,
            minimum=0,
            positive=True,
            maximum=MAX_TFLOPS,
        ),
        Column(
            "memory_bandwidth_gbs",
            ColumnType.NUMBER,
            "Peak memory bandwidth; needed to estimate serving.",
            unit="GB/s",
            minimum=0,
            positive=True,
            maximum=MAX_BANDWIDTH_GBS,
        ),
        Column(
            "tdp_w",
            ColumnType.NUMBER,
            "Board power; needed where the type can be bought.",
            unit="W",
            minimum=0,
            positive=True,
            maximum=MAX_WATTS,
        ),
        Column("nvlink", ColumnType.BOOL, "Fast GPU-to-GPU link inside a server.", default=False),
        Column(
            "max_per_node",
            ColumnType.INTEGER,
            "GPUs one server holds.",
            unit="GPUs",
            default=8,
            minimum=1,
            maximum=MAX_PER_NODE,
        ),
        Column(
            "node_price",
            ColumnType.NUMBER,
            "USD per server of max_per_node GPUs (chassis, CPUs, memory, network), bought with owned GPUs; 0 = servers are not planned.",
            unit="USD",
            default=0.0,
            minimum=0,
            maximum=MAX_PRICE,
        ),
        Column(
            "node_power_w",
            ColumnType.NUMBER,
            "A server's own draw beyond its GPUs, all month.",
            unit="W",
            default=0.0,
            minimum=0,
            maximum=MAX_WATTS,
        ),
        Column(
            "mfu_training",
            ColumnType.NUMBER,
            "This type's training MFU, a whole-job figure; blank = the Assumptions value. Published: A100 ≈ 0.50 (MosaicML 45–64 %), H100/H200/B200 ≈ 0.40 (Llama 3: 38–43 % on 16K H100s), PCIe cards ≈ 0.35.",
            unit="fraction",
            minimum=0,
            positive=True,
            fraction=True,
            default_text="Assumptions.mfu_training",
        ),
        Column(
            "fp8",
            ColumnType.BOOL,
            "The type computes in FP8 (H100, H200, B200, L40S, RTX 4090 do; A100 does not): fp8 training runs at Assumptions.fp8_training_speedup.",
            default=False,
        ),
    ),
)

PRICES = Sheet(
    "Prices",
    "One row per offer. Several offers of one option for one GPU type (providers, terms) are separate choices.",
    (
        Column("gpu", ColumnType.TEXT, "A GPUs.gpu.", required=True, references="GPUs"),
        Column("option", ColumnType.CHOICE, "How the GPU is had.", required=True, allowed=_OPTIONS),
        Column(
            "price",
            ColumnType.NUMBER,
            "USD per GPU for buy; USD per GPU-hour otherwise.",
            unit="USD",
            required=True,
            minimum=0,
            maximum=MAX_PRICE,
        ),
        Column(
            "term_months",
            ColumnType.INTEGER,
            "Commitment length; reserved only, required there.",
            unit="months",
            minimum=1,
            maximum=MAX_MONTHS,
        ),
        Column(
            "max_units",
            ColumnType.INTEGER,
            "Cap: buy = GPUs over the horizon; reserved = active GPUs each month; on_demand/spot = GPUs' worth of hours each month.",
            unit="GPUs",
            minimum=0,
            default_text="no cap",
            maximum=MAX_GPUS,
        ),
        Column(
            "available_from",
            ColumnType.INTEGER,
            "First month it can be had.",
            unit="month",
            default=1,
            minimum=1,
            maximum=MAX_MONTHS,
        ),
        Column("provider", ColumnType.TEXT, "Who sells it."),
        Column("source", ColumnType.TEXT, "Where the price came from, and when; shown in results."),
    ),
)

WORKLOADS = Sheet(
    "Workloads",
    "One row per workload.",
    (
        Column("workload", ColumnType.TEXT, "Name; unique.", required=True),
        Column("kind", ColumnType.CHOICE, "What the workload does.", required=True, allowed=_KINDS),
        Column(
            "params_b",
            ColumnType.NUMBER,
            "Model size.",
            unit="billion parameters",
            minimum=0,
            positive=True,
            maximum=MAX_PARAMS_B,
        ),
        Column(
            "precision",
            ColumnType.CHOICE,
            "Precision of the weights.",
            default="bf16",
            allowed=_PRECISIONS,
        ),
        Column(
            "tokens",
            ColumnType.NUMBER,
            "Training kinds: tokens of the whole job; batch_inference: tokens per month; with runs_per_month: tokens per run.",
            unit="tokens",
            minimum=0,
            positive=True,
            maximum=MAX_TOKENS,
        ),
        Column(
            "tokens_per_second",
            ColumnType.NUMBER,
            "realtime_inference: sustained demand (generated tokens).",
            unit="tokens/s",
            minimum=0,
            positive=True,
            maximum=MAX_TOKEN_RATE,
        ),
        Column(
            "latency_ms",
            ColumnType.NUMBER,
            "realtime_inference: most ms per generated token.",
            unit="ms",
            minimum=0,
            positive=True,
            default_text="none",
            maximum=MAX_LATENCY_MS,
        ),
        Column(
            "context_tokens",
            ColumnType.INTEGER,
            "realtime_inference: tokens held in cache per sequence (v1's reading, used when prompt_tokens and output_tokens are both blank).",
            unit="tokens",
            minimum=1,
            default_text="none: prompt_tokens + output_tokens / 2",
            maximum=MAX_SEQUENCE_TOKENS,
        ),
        Column(
            "start_month",
            ColumnType.INTEGER,
            "First month of the window the work must happen in.",
            unit="month",
            default=1,
            minimum=1,
            maximum=MAX_MONTHS,
        ),
        Column(
            "end_month",
            ColumnType.INTEGER,
            "Last month of the window.",
            unit="month",
            minimum=1,
            default_text="the horizon",
            maximum=MAX_MONTHS,
        ),
        Column(
            "interruptible",
            ColumnType.BOOL,
            "May run on spot capacity (never realtime).",
            default=False,
        ),
        Column(
            "vram_gb",
            ColumnType.NUMBER,
            "Replaces the memory estimate.",
            unit="GB",
            minimum=0,
            positive=True,
            default_text="none",
            maximum=MAX_REPLICA_VRAM_GB,
        ),
        Column(
            "min_replicas",
            ColumnType.INTEGER,
            "realtime_inference: fewest replicas in every month of the window, also when demand is 0; 2 or more keeps serving up when one replica fails.",
            unit="replicas",
            default=1,
            minimum=1,
            maximum=MAX_GPUS,
        ),
        Column(
            "growth_per_month",
            ColumnType.NUMBER,
            "realtime_inference and batch_inference: demand grows by this fraction a month, compounded from start_month (0.03 is 3 %; 1 doubles it every month, and more is allowed); sheet Demand may give a month's demand instead.",
            unit="fraction per month",
            default=0.0,
            minimum=0,
            fraction=True,
            uncapped=True,
            maximum=MAX_GROWTH_PER_MONTH,
        ),
        Column(
            "runs_per_month",
            ColumnType.NUMBER,
            "Training kinds and batch_inference: recurring runs a month, an average rate (runs may be split over GPU types); tokens and a measured gpu_hours are then per run.",
            unit="runs",
            minimum=0,
            positive=True,
            default_text="none: training is one job over its window, batch_inference one run a month",
            maximum=MAX_RUNS_PER_MONTH,
        ),
        Column(
            "deadline_hours",
            ColumnType.NUMBER,
            "Training kinds and batch_inference: wall-clock hours one run may take; sets how many GPUs a run holds at once.",
            unit="hours",
            minimum=0,
            positive=True,
            default_text="none",
            maximum=MAX_DEADLINE_HOURS,
        ),
        Column(
            "training_state_bytes_per_param",
            ColumnType.NUMBER,
            "Training kinds: bytes of training state per trained parameter (8 for bf16-AdamW recipes).",
            unit="bytes",
            minimum=0,
            positive=True,
            default_text="Assumptions.training_state_bytes_per_param",
            maximum=MAX_BYTES_PER_PARAM,
        ),
        Column(
            "seq_len",
            ColumnType.INTEGER,
            "Training kinds: tokens per training sequence (the attention FLOPs grow with it).",
            unit="tokens",
            default=4096,
            minimum=1,
            maximum=MAX_SEQUENCE_TOKENS,
        ),
        Column(
            "active_params_b",
            ColumnType.NUMBER,
            "Mixture-of-experts: parameters used per token (compute uses them, memory params_b); at most params_b.",
            unit="billion parameters",
            minimum=0,
            positive=True,
            default_text="params_b",
            maximum=MAX_PARAMS_B,
        ),
        Column(
            "layers",
            ColumnType.INTEGER,
            "Architecture: Transformer layers.",
            unit="layers",
            minimum=1,
            default_text="estimated from params_b",
            maximum=MAX_ARCHITECTURE,
        ),
        Column(
            "hidden_size",
            ColumnType.INTEGER,
            "Architecture: Model (embedding) width.",
            unit="values",
            minimum=1,
            default_text="estimated from params_b",
            maximum=MAX_ARCHITECTURE,
        ),
        Column(
            "heads",
            ColumnType.INTEGER,
            "Architecture: Attention heads.",
            unit="heads",
            minimum=1,
            default_text="estimated from params_b",
            maximum=MAX_ARCHITECTURE,
        ),
        Column(
            "kv_heads",
            ColumnType.INTEGER,
            "Architecture: Key/value heads (grouped-query attention); must divide heads.",
            unit="heads",
            minimum=1,
            default_text="estimated from params_b",
            maximum=MAX_ARCHITECTURE,
        ),
        Column(
            "head_dim",
            ColumnType.INTEGER,
            "Architecture: Width of one attention head.",
            unit="values",
            minimum=1,
            default_text="estimated from params_b",
            maximum=MAX_ARCHITECTURE,
        ),
        Column(
            "prompt_tokens",
            ColumnType.INTEGER,
            "realtime_inference: tokens of a request's prompt.",
            unit="tokens",
            minimum=1,
            default_text="1024 (median prompt of Azure's conversation trace: 1,020)",
            maximum=MAX_SEQUENCE_TOKENS,
        ),
        Column(
            "output_tokens",
            ColumnType.INTEGER,
            "realtime_inference: tokens a request generates.",
            unit="tokens",
            minimum=1,
            default_text="128 (median output of Azure's conversation trace: 129)",
            maximum=MAX_SEQUENCE_TOKENS,
        ),
    ),
)

THROUGHPUT = Sheet(
    "Throughput",
    "Optional measured figures; a measured figure is final and replaces the estimate for that pair.",
    (
        Column(
            "workload",
            ColumnType.TEXT,
            "A Workloads.workload.",
            required=True,
            references="Workloads",
        ),
        Column("gpu", ColumnType.TEXT, "A GPUs.gpu.", required=True, references="GPUs"),
        Column(
            "gpus_per_replica",
            ColumnType.INTEGER,
            "GPUs one replica (or the job's model copy) needs; blank = the memory estimate. realtime_inference: a divisor of the type's max_per_node (a replica runs in one server).",
            unit="GPUs",
            minimum=1,
            maximum=MAX_GPUS,
        ),
        Column(
            "gpu_hours",
            ColumnType.NUMBER,
            "Training kinds: GPU-hours of the whole job, all GPUs counted; batch_inference: GPU-hours per month; with runs_per_month: GPU-hours per run.",
            unit="GPU-hours",
            minimum=0,
            positive=True,
            maximum=MAX_GPU_HOURS,
        ),
        Column(
            "tokens_per_second_per_replica",
            ColumnType.NUMBER,
            "realtime_inference: one replica's throughput at the workload's latency target.",
            unit="tokens/s",
            minimum=0,
            positive=True,
            maximum=MAX_TOKEN_RATE,
        ),
    ),
    optional_sheet=True,
)

DEMAND = Sheet(
    "Demand",
    "Optional: a month's demand of a realtime_inference or batch_inference workload, replacing growth_per_month for that month (model v2 §E).",
    (
        Column(
            "workload",
            ColumnType.TEXT,
            "A realtime_inference or batch_inference Workloads.workload.",
            required=True,
            references="Workloads",
        ),
        Column(
            "month",
            ColumnType.INTEGER,
            "A month of the workload's window (1 = the first month planned); months past a scenario's horizon are ignored.",
            unit="month",
            required=True,
            minimum=1,
            maximum=MAX_MONTHS,
        ),
        Column(
            "value",
            ColumnType.NUMBER,
            "That month's demand: tokens/s (realtime_inference), or tokens per run, or per month without runs_per_month (batch_inference).",
            unit="tokens/s or tokens",
            required=True,
            minimum=0,
            maximum=MAX_TOKENS,
        ),
    ),
    optional_sheet=True,
)

FLEET_KINDS: tuple[str, ...] = ("owned", "reserved")

FLEET = Sheet(
    "Fleet",
    "Optional: GPUs the company already owns or has reserved before month 1 (model v2 §E). Owned rows join the house with their servers (no purchase) and may be sold; a reserved row is paid for every month left inside the horizon. exclude_gpus, allow_buy and allow_rent never remove these rows.",
    (
        Column("gpu", ColumnType.TEXT, "A GPUs.gpu.", required=True, references="GPUs"),
        Column(
            "count",
            ColumnType.INTEGER,
            "GPUs of this row (0 leaves the row out: a scenario file may remove rows so).",
            unit="GPUs",
            required=True,
            minimum=0,
            maximum=MAX_GPUS,
        ),
        Column(
            "kind",
            ColumnType.CHOICE,
            "owned: in the company's racks; reserved: a signed reservation at a provider.",
            required=True,
            allowed=FLEET_KINDS,
        ),
        Column(
            "price",
            ColumnType.NUMBER,
            "owned: USD one GPU cost (maintenance and book value follow it); reserved: USD per GPU-hour of the reservation.",
            unit="USD",
            required=True,
            minimum=0,
            maximum=MAX_PRICE,
        ),
        Column(
            "months_left",
            ColumnType.INTEGER,
            "reserved only, required there: months of the term still to pay, from month 1.",
            unit="months",
            minimum=1,
            maximum=MAX_MONTHS,
        ),
        Column(
            "age_months",
            ColumnType.INTEGER,
            "owned only: the GPUs' age at month 1 (book value by age).",
            unit="months",
            default=0,
            minimum=0,
            maximum=MAX_MONTHS,
        ),
    ),
    optional_sheet=True,
)

SCENARIOS = Sheet(
    "Scenarios",
    "One row per scenario. Any Assumptions key but currency may also be a column; it overrides that key for the scenario.",
    (
        Column("scenario", ColumnType.TEXT, "Name; unique.", required=True),
        Column(
            "horizon_months",
            ColumnType.INTEGER,
            "Planning horizon. The model grows with every month: a horizon of hundreds of months plans slowly.",
            unit="months",
            default=36,
            minimum=1,
            maximum=MAX_MONTHS,
        ),
        Column(
            "budget_total",
            ColumnType.NUMBER,
            "All cash over the horizon, purchases included, undiscounted, before residual credit.",
            unit="USD",
            minimum=0,
            default_text="no limit",
            maximum=MAX_BUDGET,
        ),
        Column(
            "budget_capex",
            ColumnType.NUMBER,
            "All purchases over the horizon.",
            unit="USD",
            minimum=0,
            default_text="no limit",
            maximum=MAX_BUDGET,
        ),
        Column(
            "budget_monthly",
            ColumnType.NUMBER,
            "Operating spend (everything but purchases) in each month.",
            unit="USD",
            minimum=0,
            default_text="no limit",
            maximum=MAX_BUDGET,
        ),
        Column(
            "power_cap_kw",
            ColumnType.NUMBER,
            "Owned GPUs' draw including PUE.",
            unit="kW",
            minimum=0,
            default_text="no limit",
            maximum=MAX_POWER_KW,
        ),
        Column("allow_buy", ColumnType.BOOL, "Buying is allowed.", default=True),
        Column(
            "allow_rent", ColumnType.BOOL, "On-demand, spot and reserved are allowed.", default=True
        ),
        Column(
            "workloads",
            ColumnType.NAME_LIST,
            "The workloads this scenario plans.",
            references="Workloads",
            default_text="all",
        ),
        Column(
            "exclude_gpus",
            ColumnType.NAME_LIST,
            "GPU types left out.",
            references="GPUs",
            default_text="none",
        ),
    ),
    optional_sheet=True,
    closed=True,
)


FUTURES = Sheet(
    "Futures",
    "Optional (issue 19): futures a scenario is planned for at once, one change per row; a future's rows combine, and a future that changes nothing (the expected one) is one row with its name and probability. A scenario's probabilities sum to 1 (within 1e-6). Purchases, sales and reservation starts up to decide_by_month are shared by every future (gpumix futures plans them; gpumix solve plans the scenario as written). A value given on several rows of one future (or, for decide_by_month and the regret bounds, of one scenario) must be the same on each. A workload or GPU type named must be one the scenario plans or keeps, and a price factor must change some offer of it.",
    (
        Column(
            "scenario",
            ColumnType.TEXT,
            "A Scenarios.scenario.",
            required=True,
            references="Scenarios",
        ),
        Column("future", ColumnType.TEXT, "The future's name; its rows combine.", required=True),
        Column(
            "probability",
            ColumnType.NUMBER,
            "How likely the future is; on at least one of its rows. A scenario's futures sum to 1 (a third: =1/3).",
            unit="fraction",
            minimum=0,
            positive=True,
            fraction=True,
            default_text="another row of the future gives it",
        ),
        Column(
            "decide_by_month",
            ColumnType.INTEGER,
            "Per scenario: purchases, sales and reservation starts up to this month are decided once for every future; later ones each future decides for itself. At most the horizon.",
            unit="month",
            default=1,
            minimum=1,
            maximum=MAX_MONTHS,
        ),
        Column(
            "max_regret",
            ColumnType.NUMBER,
            "Per scenario: in every future, the shared plan may cost at most this much more than that future's own cheapest plan.",
            unit="USD",
            minimum=0,
            default_text="no bound",
            maximum=MAX_BUDGET,
        ),
        Column(
            "max_regret_share",
            ColumnType.NUMBER,
            "Per scenario: the same bound as a share of that future's own cheapest plan (0.05 is 5 %).",
            unit="fraction",
            minimum=0,
            fraction=True,
            default_text="no bound",
        ),
        Column(
            "workload",
            ColumnType.TEXT,
            "The realtime_inference or batch_inference workload this row's demand_factor and growth_per_month change (a training job's demand does not scale).",
            references="Workloads",
            default_text="every realtime_inference and batch_inference workload",
        ),
        Column(
            "demand_factor",
            ColumnType.NUMBER,
            "Multiplies every month's demand (sheet Demand's rows too); a workload's factor comes on top of the factor for every workload.",
            unit="factor",
            default=1.0,
            minimum=0,
            maximum=MAX_FACTOR,
        ),
        Column(
            "growth_per_month",
            ColumnType.NUMBER,
            "Replaces the demand growth (Workloads.growth_per_month); a workload's growth wins over the growth for every workload.",
            unit="fraction per month",
            minimum=0,
            fraction=True,
            uncapped=True,
            default_text="the workload's own",
            maximum=MAX_GROWTH_PER_MONTH,
        ),
        Column(
            "gpu",
            ColumnType.TEXT,
            "The GPU type whose prices this row's price_factor multiplies.",
            references="GPUs",
            default_text="every type",
        ),
        Column(
            "option",
            ColumnType.CHOICE,
            "The option whose prices this row's price_factor multiplies.",
            allowed=_OPTIONS,
            default_text="every option",
        ),
        Column(
            "price_factor",
            ColumnType.NUMBER,
            "Multiplies the price of every offer of gpu and option in this future (sheet Fleet's rows are facts and keep theirs).",
            unit="factor",
            minimum=0,
            positive=True,
            default_text="none",
            maximum=MAX_FACTOR,
        ),
    ),
    optional_sheet=True,
)


@dataclass(frozen=True)
class AssumptionKey:
    key: str
    default: float | bool | str | None  # None: blank, another key decides (see its source)
    unit: str
    source: str
    fraction: bool = False
    positive: bool = False  # must be > 0 (else ≥ 0)
    at_most_one: bool = False  # a share that cannot exceed 100 %
    below_one: bool = False  # a rate that must stay under 100 % (resale decline): in [0, 1)
    allowed: tuple[str, ...] = ()  # a word key: the words it takes
    boolean: bool = False  # TRUE/FALSE even where the default is blank
    label: bool = False  # short free text (currency): 1 to CURRENCY_MAX_CHARS printable characters
    sheet_only: bool = False  # the Assumptions sheet only: a scenario may not set it
    maximum: float | None = None  # inclusive: the bound every number has (a share's is 1)

    @property
    def column_type(self) -> ColumnType:
        """How a value of this key is read: a label, a word, TRUE/FALSE or a number."""
        if self.label:
            return ColumnType.TEXT
        if self.allowed:
            return ColumnType.CHOICE
        if self.boolean or isinstance(self.default, bool):
            return ColumnType.BOOL
        return ColumnType.NUMBER


ASSUMPTIONS: tuple[AssumptionKey, ...] = (
    AssumptionKey(
        "hours_per_month",
        730.0,
        "hours",
        "8,760 hours a year / 12",
        positive=True,
        maximum=HOURS_IN_LEAP_YEAR,
    ),
    AssumptionKey(
        "electricity_per_kwh", 0.10, "USD per kWh", "GPU buying guide: $0.10/kWh", maximum=1_000.0
    ),
    AssumptionKey(
        "pue",
        1.3,
        "ratio",
        "cooling overhead; the guide's $0.02/h cooling on a 700 W card ≈ PUE 1.29",
        positive=True,
        maximum=10.0,
    ),
    AssumptionKey(
        "idle_power_fraction",
        0.10,
        "fraction of TDP",
        "assumption: an idle owned GPU draws 10 % of TDP",
        fraction=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "maintenance_per_year",
        0.05,
        "fraction of purchase price per year",
        "assumption; vendor support runs 8–20 %",
        fraction=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "depreciation_months",
        36.0,
        "months",
        "the guide's 3-year view",
        positive=True,
        maximum=MAX_MONTHS,
    ),
    AssumptionKey(
        "credit_residual_value",
        None,
        "TRUE/FALSE",
        "v1's key, kept: TRUE = residual_value book, FALSE = none; blank = residual_value decides",
        boolean=True,
    ),
    AssumptionKey(
        "residual_value",
        "market",
        "market, book or none",
        "what owned GPUs and servers are credited at the horizon: market = resale value"
        " in month T + 1 (model v2 §E)",
        allowed=("market", "book", "none"),
    ),
    AssumptionKey(
        "colocation_per_kw_month",
        0.0,
        "USD per kW a month",
        "a rented rack for owned GPUs and servers, per kW of their power before PUE (about $184: the domain brief)",
        maximum=1_000_000.0,
    ),
    AssumptionKey(
        "resale_fraction",
        0.7,
        "fraction of the new price",
        "used H100 sell at 67–72 % of new (SpotWire, 2026), A100 at 50–60 % (methodology 2.3)",
        fraction=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "resale_decline_per_year",
        0.3,
        "fraction per year",
        "H100 used prices fall 22–23 % a year (SpotWire, 2026); 30 %: a new architecture every 2 years",
        fraction=True,
        below_one=True,
    ),
    AssumptionKey(
        "discount_rate",
        0.0,
        "fraction per year",
        "0 = undiscounted; 0.10 for a present-value view",
        fraction=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "max_utilization",
        0.95,
        "fraction of hours",
        "assumption: share of hours an owned GPU can work",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "usable_vram_fraction",
        0.90,
        "fraction of VRAM",
        "vLLM's default gpu_memory_utilization",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "mfu_training",
        0.40,
        "fraction of peak",
        "Llama 3 on H100: 38–43 % MFU",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "mfu_inference",
        0.50,
        "fraction of peak",
        "compute-bound share of peak when serving (assumption)",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "goodput",
        0.90,
        "fraction of time",
        "Llama 3: > 90 % effective training time",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "bandwidth_efficiency",
        0.70,
        "fraction of peak bandwidth",
        "achieved memory-bandwidth utilisation (MBU) on HBM",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "nvlink_scaling_per_doubling",
        0.95,
        "fraction per doubling",
        "NVLink: 2 GPUs 0.95, 4 ≈ 0.90, 8 ≈ 0.86; batch inference only since model v2 (training on NVLink counts no loss, serving its all-reduces)",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "pcie_scaling_per_doubling",
        0.70,
        "fraction per doubling",
        "PCIe without peer-to-peer: 2 GPUs 0.70, 4 ≈ 0.49, 8 ≈ 0.34; training and batch inference (serving counts its all-reduces)",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "spot_efficiency",
        0.85,
        "fraction of a paid hour",
        "useful share of a paid spot hour (checkpoint and restart losses)",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "bytes_per_param_fp32",
        4.0,
        "bytes",
        "4 bytes per parameter",
        positive=True,
        maximum=MAX_BYTES_PER_PARAM,
    ),
    AssumptionKey(
        "bytes_per_param_bf16",
        2.0,
        "bytes",
        "2 bytes per parameter",
        positive=True,
        maximum=MAX_BYTES_PER_PARAM,
    ),
    AssumptionKey(
        "bytes_per_param_fp16",
        2.0,
        "bytes",
        "2 bytes per parameter",
        positive=True,
        maximum=MAX_BYTES_PER_PARAM,
    ),
    AssumptionKey(
        "bytes_per_param_fp8",
        1.0,
        "bytes",
        "1 byte per parameter",
        positive=True,
        maximum=MAX_BYTES_PER_PARAM,
    ),
    AssumptionKey(
        "bytes_per_param_int8",
        1.0,
        "bytes",
        "1 byte per parameter",
        positive=True,
        maximum=MAX_BYTES_PER_PARAM,
    ),
    AssumptionKey(
        "bytes_per_param_int4",
        0.5,
        "bytes",
        "0.5 bytes per parameter (GPTQ/AWQ ≈ 0.53, NF4 ≈ 0.52)",
        positive=True,
        maximum=MAX_BYTES_PER_PARAM,
    ),
    AssumptionKey(
        "training_state_bytes_per_param",
        16.0,
        "bytes",
        "mixed-precision Adam: weights, gradients, optimizer state (ZeRO paper)",
        positive=True,
        maximum=MAX_BYTES_PER_PARAM,
    ),
    AssumptionKey(
        "inference_overhead",
        0.20,
        "fraction of weights",
        "accepted, not used since model v2: runtime_overhead_gb replaces it",
        fraction=True,
        maximum=100.0,
    ),
    AssumptionKey(
        "kv_kib_per_token_8b",
        128.0,
        "KiB per token",
        "KV cache of Llama-3-8B at bf16 ≈ 0.125 MiB per token",
        positive=True,
        maximum=1_000_000.0,
    ),
    AssumptionKey(
        "target_load",
        0.8,
        "fraction of rated throughput",
        "serving replicas run at most at 80 % of rated throughput, leaving headroom for bursts (assumption)",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "fp8_training_speedup",
        1.2,
        "ratio",
        "FP8 over BF16 training on H100, measured 1.1–1.35× (not the datasheet's 2×); used where GPUs.fp8 is TRUE",
        positive=True,
        maximum=100.0,
    ),
    AssumptionKey(
        "allreduce_latency_us",
        25.0,
        "µs per all-reduce",
        "tensor-parallel decode: two all-reduces per layer; gpt-fast's Llama-2 tensor-parallel runs on 8 × A100",
        maximum=1e9,
    ),
    AssumptionKey(
        "runtime_overhead_gb",
        2.5,
        "GB per GPU",
        "CUDA context, workspace and activations of the serving engine (brief: 1–3 GB workspace + ~1 GB runtime)",
        maximum=MAX_VRAM_GB,
    ),
    AssumptionKey(
        "bandwidth_efficiency_fp32",
        None,
        "fraction of peak bandwidth",
        "blank = bandwidth_efficiency (MBU on HBM)",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "bandwidth_efficiency_bf16",
        None,
        "fraction of peak bandwidth",
        "blank = bandwidth_efficiency; gpt-fast Llama-2-7B bf16 batch-1 decode on A100: 1,397 GB/s of 2,039 (0.69)",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "bandwidth_efficiency_fp16",
        None,
        "fraction of peak bandwidth",
        "blank = bandwidth_efficiency: the same bytes read as bf16",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "bandwidth_efficiency_fp8",
        None,
        "fraction of peak bandwidth",
        "blank = bandwidth_efficiency: FP8 weights read at the full rate",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "bandwidth_efficiency_int8",
        0.53,
        "fraction of peak bandwidth",
        "weight-only int8, measured: gpt-fast batch-1 decode on A100 reads Llama-2-7B at 0.51 and Llama-2-70B at 0.65 of peak",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "bandwidth_efficiency_int4",
        0.38,
        "fraction of peak bandwidth",
        "weight-only int4, measured: gpt-fast batch-1 decode on A100 (G=32) reads Llama-2-7B at 0.33 and Llama-2-70B at 0.43 of peak (0.5 bytes/param)",
        fraction=True,
        positive=True,
        at_most_one=True,
    ),
    AssumptionKey(
        "coarse_after_month",
        None,
        "month",
        "blank = a layout every month; a month M (whole months, 0 = from the start) plans layouts"
        " (GPUs owned and reserved, replicas, slots, servers) per quarter after month M, for fewer"
        " changes; work, rent and purchases stay monthly, and the plan may cost more than the monthly one",
        maximum=MAX_MONTHS,
    ),
    AssumptionKey(
        "change_cost",
        0.0,
        "USD per move",
        "0 = off: the cheapest plan; above 0, each move of a serving replica (taken down while"
        " its workload still serves the next month: another place, type or width) is charged this"
        " in the search only, never in the plan's cost (methodology 2.16)",
        maximum=1_000_000.0,
    ),
    AssumptionKey(
        "currency",
        USD,
        f"1–{CURRENCY_MAX_CHARS} printable characters",
        "the label every money figure carries (EUR, €, CHF); every price of the workbook is in it"
        " and nothing is converted (model v2 §E); Assumptions sheet only, not per scenario",
        label=True,
        sheet_only=True,
    ),
)

ASSUMPTION_KEYS: dict[str, AssumptionKey] = {a.key: a for a in ASSUMPTIONS}

# Keys a scenario may not override (currency: one workbook, one currency).
SHEET_ONLY_KEYS: tuple[str, ...] = tuple(a.key for a in ASSUMPTIONS if a.sheet_only)
SHEET_ONLY_EXPECTED = "blank: set it once in sheet Assumptions"


def sheet_only_message(key: str) -> str:
    """Why a scenario may not set ``key``."""
    return f"{key} is set in sheet Assumptions only, never per scenario: all prices of a workbook share it"


# Keys that say the same thing in two ways: one place may give one of them.
RESIDUAL_KEYS = ("credit_residual_value", "residual_value")
RESIDUAL_KEYS_CLASH = (
    "credit_residual_value (v1) and residual_value say the same thing: give one"
    " (credit_residual_value TRUE = residual_value book, FALSE = none)"
)


def both_residual_keys(given: Iterable[str]) -> bool:
    """True when one place gives both of :data:`RESIDUAL_KEYS`."""
    return set(RESIDUAL_KEYS) <= set(given)


INPUT_SHEETS: tuple[Sheet, ...] = (
    GPUS,
    PRICES,
    FLEET,
    WORKLOADS,
    THROUGHPUT,
    DEMAND,
    SCENARIOS,
    FUTURES,
)
ASSUMPTIONS_SHEET_NAME = "Assumptions"
IMPLICIT_SCENARIO = "base"  # the one scenario of a workbook without a Scenarios sheet
# Sheet names that a result sheet may never take.
INPUT_SHEET_NAMES: frozenset[str] = frozenset(
    [s.name for s in INPUT_SHEETS] + [ASSUMPTIONS_SHEET_NAME, "README"]
)


def default_assumptions() -> Assumptions:
    return Assumptions()


def _check_in_step() -> None:
    # Fail at import if the declaration and the dataclass drift apart.
    declared = {a.key: a.default for a in ASSUMPTIONS}
    defaults = Assumptions().__dict__
    if declared != defaults:
        raise RuntimeError(
            f"schema.ASSUMPTIONS and domain.Assumptions differ: {declared} vs {defaults}"
        )


def _check_bounded() -> None:
    # Fail at import if a number could be read without a bound (issue 33: 1e308 crashed solves).
    numbers = (ColumnType.NUMBER, ColumnType.INTEGER)
    unbounded = [
        f"{sheet.name}.{c.name}"
        for sheet in INPUT_SHEETS
        for c in sheet.columns
        if c.type in numbers and c.maximum is None and not c.at_most_one
    ]
    unbounded += [
        f"Assumptions.{a.key}"
        for a in ASSUMPTIONS
        if a.column_type is ColumnType.NUMBER
        and a.maximum is None
        and not (a.at_most_one or a.below_one)
    ]
    if unbounded:
        raise RuntimeError(f"numbers read without a bound: {', '.join(unbounded)}")


_check_in_step()
_check_bounded()
