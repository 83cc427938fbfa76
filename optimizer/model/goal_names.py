"""The goals a near-optimal alternative may push (``gpumix alternatives``), as data.

PuLP-free, so that the command line, the reports and the analysis can name and
describe the goals without the model. The expression each goal minimises is
built in :mod:`optimizer.model.goals`; the value a plan reaches is recomputed
from the plan in :mod:`optimizer.analysis.goal_values`. Every goal is
minimised; ``most_owned`` minimises the GPU-hours not owned (see its
definition) rather than maximising owned hours, which surplus work could
inflate.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Goal(StrEnum):
    """A second goal pushed within the cost slack (``--goal``)."""

    LEAST_CAPEX = "least_capex"
    LEAST_RENT = "least_rent"
    FEWEST_TYPES = "fewest_types"
    FEWEST_GPUS = "fewest_gpus"
    MOST_OWNED = "most_owned"
    LEAST_POWER = "least_power"


@dataclass(frozen=True)
class GoalInfo:
    """How a goal is shown: a short label, the unit of its value, its definition in words."""

    label: str
    unit: str
    definition: str
    whole: bool  # its value is a whole number in every plan (types)


GOALS: dict[Goal, GoalInfo] = {
    Goal.LEAST_CAPEX: GoalInfo(
        "Least capital",
        "USD",
        "purchases over the horizon, undiscounted: GPUs bought x price + servers bought "
        "x node_price (what budget_capex limits)",
        False,
    ),
    Goal.LEAST_RENT: GoalInfo(
        "Least rent",
        "USD",
        "cash paid to providers over the horizon, undiscounted: on-demand and spot paid "
        "hours x price + reserved GPUs x price x hours_per_month for every month of "
        "their term",
        False,
    ),
    Goal.FEWEST_TYPES: GoalInfo(
        "Fewest GPU types",
        "types",
        "GPU types that serve or run any work in any month",
        True,
    ),
    Goal.FEWEST_GPUS: GoalInfo(
        "Fewest GPUs",
        "GPUs",
        "the most GPUs held in any month: owned + reserved active + rented GPU-equivalents "
        "(on-demand and spot paid hours / hours_per_month)",
        False,
    ),
    Goal.MOST_OWNED: GoalInfo(
        "Most owned",
        "GPU-hours not owned",
        "the fewest GPU-hours paid for outside the company's own GPUs: on-demand and spot "
        "paid hours + reserved GPUs x hours_per_month for every month they are active",
        False,
    ),
    Goal.LEAST_POWER: GoalInfo(
        "Least power",
        "kW",
        "the largest owned draw in any month, in kW: (tdp_w x GPUs owned + node_power_w "
        "x servers owned) x pue / 1000 (what power_cap_kw limits)",
        False,
    ),
}
