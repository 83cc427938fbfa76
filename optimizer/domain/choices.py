"""The closed lists of choices a workbook offers (offer options, workload kinds, precisions,
residual values, cost categories, fleet kinds): the enumerations every frozen input and the futures use.

Apart from the inputs (``frozen``) so that the futures' types (``futures``), which
``Scenario`` holds, can name an offer option without importing ``Scenario`` back.
"""

from __future__ import annotations

from enum import StrEnum


class OfferOption(StrEnum):
    """How a GPU is had (``Prices.option``)."""

    BUY = "buy"
    ON_DEMAND = "on_demand"
    SPOT = "spot"
    RESERVED = "reserved"

    @property
    def is_rent(self) -> bool:
        """On-demand, spot and reserved are all removed by ``allow_rent = FALSE``."""
        return self is not OfferOption.BUY

    @property
    def price_words(self) -> str:
        """The option as a price is named in sentences: "purchase", "on-demand", ..."""
        return "purchase" if self is OfferOption.BUY else self.value.replace("_", "-")


class Kind(StrEnum):
    """What a workload does (``Workloads.kind``)."""

    PRETRAINING = "pretraining"
    FINE_TUNING = "fine_tuning"
    LORA = "lora"
    QLORA = "qlora"
    BATCH_INFERENCE = "batch_inference"
    REALTIME_INFERENCE = "realtime_inference"

    @property
    def is_training(self) -> bool:
        """A job with a fixed amount of work, done once, on one GPU type."""
        return self in (Kind.PRETRAINING, Kind.FINE_TUNING, Kind.LORA, Kind.QLORA)

    @property
    def is_inference(self) -> bool:
        return not self.is_training


class Precision(StrEnum):
    """Precision of a workload's weights (``Workloads.precision``)."""

    FP32 = "fp32"
    BF16 = "bf16"
    FP16 = "fp16"
    FP8 = "fp8"
    INT8 = "int8"
    INT4 = "int4"


class ResidualValue(StrEnum):
    """What owned GPUs and servers are credited at the horizon (``residual_value``)."""

    MARKET = "market"  # resale value in month T + 1
    BOOK = "book"  # straight-line by age over depreciation_months (v1)
    NONE = "none"


class CostCategory(StrEnum):
    """The cost categories of a plan, in the order results show them."""

    PURCHASE = "purchase"
    ENERGY = "energy"
    MAINTENANCE = "maintenance"
    ON_DEMAND = "on_demand"
    SPOT = "spot"
    RESERVED = "reserved"
    NODE = "node"  # servers bought for owned GPUs (model v2 §E)
    COLOCATION = "colocation"  # rack space for owned IT power
    SALES = "sales"  # cash in (negative): GPUs and servers sold (model v2 §E)


class FleetKind(StrEnum):
    """What a row of sheet ``Fleet`` is (model v2 §E)."""

    OWNED = "owned"
    RESERVED = "reserved"
