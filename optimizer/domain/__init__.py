"""The typed, frozen inputs every stage reads: what the reader hands on and nothing else.

Takes nothing from any stage (it imports none); hands on the choices
(``choices``: offer options, workload kinds, ...), the frozen inputs
(``frozen``: GPUs, offers, workloads, assumptions, one :class:`Scenario` per
scenario to solve), a scenario's futures (``futures``) and the plain scenario a
future is (``future_scenario``). The names of ``choices`` and ``frozen`` are
re-exported here, so that ``from optimizer.domain import Scenario`` reads as the
hand-off it is; the modules inside import one another, never this package.
"""

from optimizer.domain.choices import (
    CostCategory,
    FleetKind,
    Kind,
    OfferOption,
    Precision,
    ResidualValue,
)
from optimizer.domain.frozen import (
    Assumptions,
    CatalogueFigure,
    ExistingGpus,
    Gpu,
    LoadedInput,
    Measurement,
    Offer,
    Scenario,
    Workload,
    cite,
)

__all__ = [
    "Assumptions",
    "CatalogueFigure",
    "CostCategory",
    "ExistingGpus",
    "FleetKind",
    "Gpu",
    "Kind",
    "LoadedInput",
    "Measurement",
    "Offer",
    "OfferOption",
    "Precision",
    "ResidualValue",
    "Scenario",
    "Workload",
    "cite",
]
