"""The shape of a scenario file: closed pydantic models of its YAML.

Takes the loaded YAML (``yaml.safe_load``) of the whole file or of one
``scenarios`` entry; hands on the validated model, or pydantic's
``ValidationError``. Every model is closed (``extra="forbid"``): an unknown
key is a typo that would be silently ignored. ``_MODELS`` says which model
holds the keys at each path, for the "unknown key" message.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from optimizer.inputs.schema import (
    MAX_BUDGET,
    MAX_FACTOR,
    MAX_GPUS,
    MAX_GROWTH_PER_MONTH,
    MAX_MONTHS,
    MAX_POWER_KW,
    MAX_PRICE,
    MAX_TOKENS,
)

# ---------------------------------------------------------------- models


def _name(value: object) -> object:
    # A GPU called 4090 is written `4090` in YAML, which loads as an int.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(int(value)) if float(value).is_integer() else str(value)
    return value


def _whole(value: object) -> object:
    # 24.0 is a whole number, as in a workbook cell; True is not a number.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool):
        raise ValueError("TRUE/FALSE is not a number")
    return value


def _not_bool(value: object) -> object:
    if isinstance(value, bool):
        raise ValueError("TRUE/FALSE is not a number")
    return value


_YAML_1_1_FLOAT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)[eE][+-]?\d+")


def _amount(value: object) -> object:
    # YAML 1.1 reads 4e10 (no dot) as text; a workbook cell and add_workloads take it.
    if isinstance(value, str) and _YAML_1_1_FLOAT.fullmatch(value.strip()):
        return float(value)
    return _not_bool(value)


Name = Annotated[str, BeforeValidator(_name), Field(strict=True, min_length=1)]
Months = Annotated[int, BeforeValidator(_whole), Field(strict=True, ge=1, le=MAX_MONTHS)]
Horizon = Months
# Each number at most the schema's bound for the same column (issue 33).
Usd = Annotated[
    float, BeforeValidator(_amount), Field(strict=True, ge=0, le=MAX_BUDGET, allow_inf_nan=False)
]  # a budget or a regret bound
Price = Annotated[
    float, BeforeValidator(_amount), Field(strict=True, ge=0, le=MAX_PRICE, allow_inf_nan=False)
]
PowerKw = Annotated[
    float,
    BeforeValidator(_amount),
    Field(strict=True, ge=0, le=MAX_POWER_KW, allow_inf_nan=False),
]
Amount = Annotated[
    float, BeforeValidator(_amount), Field(strict=True, ge=0, le=MAX_TOKENS, allow_inf_nan=False)
]
Switch = Annotated[bool, Field(strict=True)]


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BudgetModel(_Closed):
    total: Usd | None = None
    capex: Usd | None = None
    monthly: Usd | None = None


class PriceModel(_Closed):
    gpu: Name
    option: Literal["buy", "on_demand", "spot", "reserved"]
    multiply: Multiplier | None = None
    price: Price | None = None

    @model_validator(mode="after")
    def _one_of(self) -> PriceModel:
        if (self.multiply is None) == (self.price is None):
            raise ValueError("give exactly one of multiply or price")
        return self


class DemandModel(_Closed):
    """A row of sheet Demand (model v2 §E)."""

    workload: Name
    month: Months
    value: Amount


Count = Annotated[int, BeforeValidator(_whole), Field(strict=True, ge=0, le=MAX_GPUS)]
Age = Annotated[int, BeforeValidator(_whole), Field(strict=True, ge=0, le=MAX_MONTHS)]


class FleetModel(_Closed):
    """A row of sheet Fleet (model v2 §E)."""

    gpu: Name
    count: Count
    kind: Literal["owned", "reserved"]
    price: Price
    months_left: Months | None = None
    age_months: Age | None = None


Factor = Annotated[
    float,
    BeforeValidator(_amount),
    Field(strict=True, gt=0, le=MAX_FACTOR, allow_inf_nan=False),
]
Multiplier = Annotated[
    float, BeforeValidator(_amount), Field(strict=True, ge=0, le=MAX_FACTOR, allow_inf_nan=False)
]
Share = Annotated[
    float, BeforeValidator(_not_bool), Field(strict=True, ge=0, le=1, allow_inf_nan=False)
]
# A growth rate is a fraction ≥ 0 (1 doubles demand every month), at most the schema's bound.
Growth = Annotated[
    float,
    BeforeValidator(_amount),
    Field(strict=True, ge=0, le=MAX_GROWTH_PER_MONTH, allow_inf_nan=False),
]
Probability = Annotated[
    float, BeforeValidator(_not_bool), Field(strict=True, gt=0, le=1, allow_inf_nan=False)
]


class FuturePriceModel(_Closed):
    """A future's price factor: every offer of ``gpu`` (absent: every type) and ``option``
    (absent: every option) costs ``multiply`` times as much (issue 19)."""

    gpu: Name | None = None
    option: Literal["buy", "on_demand", "spot", "reserved"] | None = None
    multiply: Factor


class FutureModel(_Closed):
    """A ``futures`` entry: one future and what it changes (issue 19)."""

    name: Name
    probability: Probability
    demand_factor: Multiplier | None = None  # every realtime and batch workload
    growth_per_month: Growth | None = None  # every realtime and batch workload
    demand_factors: dict[Name, Multiplier] = Field(default_factory=dict)  # per workload, on top
    growth: dict[Name, Growth] = Field(default_factory=dict)  # per workload
    prices: list[FuturePriceModel] = Field(default_factory=list)


class ScenarioModel(_Closed):
    name: Name
    base: Name | None = None
    horizon_months: Horizon | None = None
    budget: BudgetModel | None = None
    power_cap_kw: PowerKw | None = None
    allow_buy: Switch | None = None
    allow_rent: Switch | None = None
    assumptions: dict[str, Any] = Field(default_factory=dict)
    prices: list[PriceModel] = Field(default_factory=list)
    exclude_gpus: list[Name] | None = None
    workloads: list[Name] | None = None
    add_workloads: list[dict[str, Any]] = Field(default_factory=list)
    demand: list[DemandModel] = Field(default_factory=list)
    fleet: list[FleetModel] = Field(default_factory=list)
    futures: list[FutureModel] | None = None  # given: replaces the base's ([] removes them)
    decide_by_month: Months | None = None
    max_regret: Usd | None = None  # null: no bound (removes the base's)
    max_regret_share: Share | None = None

    @field_validator(
        "name",
        "futures",
        "decide_by_month",
        "horizon_months",
        "allow_buy",
        "allow_rent",
        "base",
        "exclude_gpus",
        "workloads",
        mode="before",
    )
    @classmethod
    def _not_null(cls, value: object) -> object:
        # Only a limit (budget, power cap) can be removed with null; these cannot.
        if value is None:
            raise ValueError("may not be empty (null)")
        return value


class FileModel(_Closed):
    workbook: Name
    scenarios: list[Any] = Field(min_length=1)


# The most entries each list (or mapping) of a scenario file may hold, wherever it
# sits (README, Limits): checked on the YAML's nodes, before any entry is read, so
# a file of 90,000 fleet: rows is refused at once (issue 33 item 4).
LIST_CAPS: dict[str, int] = {
    "scenarios": 1_000,
    "assumptions": 1_000,
    "prices": 1_000,
    "exclude_gpus": 10_000,
    "workloads": 10_000,
    "add_workloads": 1_000,
    "demand": 100_000,
    "fleet": 10_000,
    "futures": 10_000,
    "demand_factors": 10_000,
    "growth": 10_000,
}

_MODELS: dict[tuple[str, ...], type[BaseModel]] = {
    (): FileModel,
    ("scenarios",): ScenarioModel,
    ("scenarios", "budget"): BudgetModel,
    ("scenarios", "prices"): PriceModel,
    ("scenarios", "demand"): DemandModel,
    ("scenarios", "fleet"): FleetModel,
    ("scenarios", "futures"): FutureModel,
    ("scenarios", "futures", "prices"): FuturePriceModel,
}
