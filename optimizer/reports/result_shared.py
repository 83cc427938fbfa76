"""What the result sheets share: category labels, the GPU types in use, the no-plan note.

Takes :class:`Plan` objects and hands on labels and small facts about them
(which GPU types some plan uses, whether money is a present value) to the
sheet modules of ``optimizer.reports`` and to ``compare``.
"""

from __future__ import annotations

from collections.abc import Iterable

from optimizer.domain import CostCategory, Scenario
from optimizer.reports.sheet_grid import SheetModel, Style
from optimizer.results import PairEstimate, Plan, ServingWidth

CATEGORY_LABELS: dict[CostCategory, str] = {
    CostCategory.PURCHASE: "Purchase (capex)",
    CostCategory.ENERGY: "Energy",
    CostCategory.MAINTENANCE: "Maintenance",
    CostCategory.ON_DEMAND: "On-demand rent",
    CostCategory.SPOT: "Spot rent",
    CostCategory.RESERVED: "Reserved",
    CostCategory.NODE: "Servers (capex)",
    CostCategory.COLOCATION: "Colocation",
    CostCategory.SALES: "Sales (cash in)",
}


# How the sheets name a place kind (the JSON keeps ``on_demand``).
PLACE_LABELS: dict[str, str] = {
    "house": "house",
    "reserved": "reserved",
    "on_demand": "on-demand",
    "spot": "spot",
}


def place_label(place: str) -> str:
    """A place kind as the sheets show it: ``on-demand`` for ``on_demand``."""
    return PLACE_LABELS.get(place, place)


def used_gpu_names(plans: Iterable[Plan]) -> list[str]:
    """GPU types some plan buys, sells, reserves or rents, in the order the plans list them.

    Types no plan touches are left out of the sheets (the JSON keeps them):
    rows of zeros only hide the numbers that matter.
    """
    names: list[str] = []
    for plan in plans:
        for row in plan.fleet:
            busy = (
                row.bought
                or row.owned
                or row.sold
                or row.reserved
                or row.rented_hours
                or row.spot_hours
            )
            if busy and row.gpu not in names:
                names.append(row.gpu)
    return names


# The Options sheet's header and the JSON's meaning of an options row's ``gpu_hours``.
OPTION_GPU_HOURS = (
    "GPU-hours (training: whole job; recurring and batch: per month, at the base month)"
)


def option_gpu_hours(scenario: Scenario, pair: PairEstimate) -> float | None:
    """An options row's GPU-hours (workbook.md ``options``): a one-off training job's
    whole job, a month's work for batch and recurring runs.

    A pair's estimate is one run where ``runs_per_month`` is given; the month does
    ``runs_per_month`` of them. With growth or sheet Demand the month is the base
    month (the workload's ``tokens``), as the estimate is.
    """
    hours = pair.gpu_hours
    w = next((w for w in scenario.workloads if w.name == pair.workload), None)
    if hours is None or w is None or w.runs_per_month is None:
        return hours
    return hours * w.runs_per_month


def width_allowed(pair: PairEstimate, width: ServingWidth) -> tuple[bool, str]:
    """Whether a serving width may be used, and why not: the width's own reason, else the pair's."""
    allowed = pair.allowed and width.allowed
    return allowed, "" if allowed else (width.reason or pair.reason)


def the_objective(plans: Iterable[Plan]) -> str:
    """What a total cost is to the search: "the objective", or, where some plan weighed
    change_cost (methodology 2.16), the objective less that charge (no money is paid)."""
    if any(p.scenario.assumptions.change_cost > 0 for p in plans):
        return "the objective less change_cost × moves"
    return "the objective"


def any_discounted(plans: Iterable[Plan]) -> bool:
    """Some plan's money is a present value (its scenario has a discount rate)."""
    return any(p.scenario.assumptions.discount_rate > 0 for p in plans)


def _no_plan_note(sheet: SheetModel, plan: Plan, row: int) -> None:
    sheet.text(
        row,
        0,
        f"No plan: status {plan.status.value}. The Summary sheet lists the reasons.",
        Style.NOTE,
    )
