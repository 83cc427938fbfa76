"""Rent-versus-buy break-even per GPU type and rental option (``gpumix breakeven``).

The guide's rule of thumb (price / hourly rent) beside the month buying pays
off with everything the planner charges an owned GPU: energy, maintenance,
its share of a server, rack space and what it fetches when sold. One row per
GPU type and rental option (on-demand, each reserved offer with its term,
spot). Every cost comes from ``optimizer.model.costs``, the model's own
coefficients; ``docs/methodology.md`` §3 states every formula with a worked
example.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from optimizer.domain import Assumptions, Gpu, Offer, OfferOption, ResidualValue, Scenario
from optimizer.model.costs import (
    colocation_per_month,
    energy_cost_per_hour,
    maintenance_per_month,
    node_resale_value,
    resale_value,
    residual_fraction,
    server_running_per_month,
)

MONTHS_PER_YEAR = 12
# The money label of every figure here; the one place to change it.
CURRENCY = "USD"  # when no scenario says otherwise


@dataclass(frozen=True)
class OwnedGpu:
    """One bought GPU with its share of a server, priced as the planner prices it.

    Bought at the start of month 1; ``resale[m]`` is what it and its server
    share fetch when sold at the start of month ``m + 1`` (after ``m`` months
    of use), under the scenario's ``residual_value``.
    """

    price: float  # the cheapest buy offer
    server_share: float  # node_price / max_per_node
    energy_per_month: float  # GPU draw at the utilisation, idle hours at idle_power_fraction
    maintenance_per_month: float  # maintenance_per_year / 12 × price
    server_upkeep_per_month: float  # share of the server's maintenance, own draw and rack space
    colocation_per_month: float  # rack space for the GPU's TDP
    resale: tuple[float, ...]  # months 0..horizon

    @property
    def upfront(self) -> float:
        return self.price + self.server_share

    @property
    def running_per_month(self) -> float:
        return (
            self.energy_per_month
            + self.maintenance_per_month
            + self.server_upkeep_per_month
            + self.colocation_per_month
        )

    def paid(self, month: int) -> float:
        """Cash paid by the end of ``month``: the purchase, then each month's running cost."""
        return self.upfront + self.running_per_month * month

    def net(self, month: int) -> float:
        """Cash paid by the end of ``month`` less what selling it then fetches."""
        return self.paid(month) - self.resale[month]


def owned_gpu(
    scenario: Scenario, gpu: Gpu, buy: Offer, utilization: float, months: int
) -> OwnedGpu:
    """``gpu`` bought from ``buy`` and worked at ``utilization``, over ``months`` months."""
    a = scenario.assumptions
    per_node = max(gpu.max_per_node, 1)
    powered = utilization + (1.0 - utilization) * a.idle_power_fraction
    return OwnedGpu(
        price=buy.price,
        server_share=gpu.node_price / per_node,
        energy_per_month=energy_cost_per_hour(gpu, a) * a.hours_per_month * powered,
        maintenance_per_month=maintenance_per_month(buy, a),
        server_upkeep_per_month=server_running_per_month(gpu, a) / per_node,
        colocation_per_month=colocation_per_month(gpu.tdp_w or 0.0, a),
        resale=tuple(_resale(scenario, gpu, buy, m) for m in range(months + 1)),
    )


def _resale(scenario: Scenario, gpu: Gpu, buy: Offer, used: int) -> float:
    """What one GPU and its server share fetch after ``used`` months (the planner's credit)."""
    a = scenario.assumptions
    share = gpu.node_price / max(gpu.max_per_node, 1)
    rule = a.residual_rule
    if rule is ResidualValue.MARKET:
        month = used + 1  # sold at the start of the next month, as at the horizon (T + 1)
        node = node_resale_value(scenario, gpu, month) / max(gpu.max_per_node, 1)
        return resale_value(scenario, gpu.name, month) + node
    if rule is ResidualValue.BOOK:
        # A purchase of month 1 is ``used`` months old at the end of month ``used``.
        return (buy.price + share) * residual_fraction(a, used, 1)
    return 0.0


@dataclass(frozen=True)
class RentalOption:
    """One way to rent a GPU type: the cheapest on-demand or spot offer, or a reserved offer."""

    offer: Offer

    @property
    def label(self) -> str:
        o = self.offer
        if o.option is OfferOption.RESERVED:
            return f"reserved {o.term_months} mo"
        return "on-demand" if o.option is OfferOption.ON_DEMAND else "spot"

    def hours_per_month(self, utilization: float, a: Assumptions) -> float:
        """Hours paid a month for one GPU's work at ``utilization``.

        On-demand: the hours used. Spot: those / ``spot_efficiency`` (an hour of
        spot yields that share of an hour of work). Reserved: every hour of
        every month of the term, used or not, as the planner charges it.
        """
        option = self.offer.option
        if option is OfferOption.RESERVED:
            return a.hours_per_month
        used = a.hours_per_month * utilization
        return used / a.spot_efficiency if option is OfferOption.SPOT else used


def rental_options(scenario: Scenario, gpu: str) -> tuple[RentalOption, ...]:
    """On-demand (cheapest), every reserved offer in sheet order, spot (cheapest)."""
    found: list[RentalOption] = []
    on_demand = _cheapest(scenario.offers_of(gpu, OfferOption.ON_DEMAND))
    if on_demand is not None:
        found.append(RentalOption(on_demand))
    found += (RentalOption(o) for o in scenario.offers_of(gpu, OfferOption.RESERVED))
    spot = _cheapest(scenario.offers_of(gpu, OfferOption.SPOT))
    if spot is not None:
        found.append(RentalOption(spot))
    return tuple(found)


@dataclass(frozen=True)
class BreakevenRow:
    """One GPU type against one rental option (money in the workbook's currency; None where an
    input is missing, math.inf where buying never pays off within ``horizon_months``).

    The guide's rule: ``breakeven_hours`` = buy / rent, in months at 24/7 and
    at the hours this option pays a month at ``utilization``. Full cost:
    ``full_cost_months`` is where cumulative owned cost net of resale meets
    cumulative rent (between whole months the lines are straight),
    ``paid_off_month`` the first whole month it is no higher (where the
    chart's lines cross), ``later_months`` how much later than the rule.
    """

    gpu: str
    option: str | None  # None: the type has no rental offer
    fp16_tflops: float
    utilization: float
    depreciation_months: float
    horizon_months: int
    rent_per_hour: float | None
    rent_hours_per_month: float | None
    buy_price: float | None
    owned: OwnedGpu | None
    breakeven_hours: float | None
    months_24_7: float | None
    months_at_utilization: float | None
    full_cost_months: float | None
    full_cost_hours: float | None
    paid_off_month: int | None  # None also where it never pays off
    later_months: float | None
    # The full-cost months with resale left out (what the extras alone do).
    months_without_resale: float | None
    owned_cost_per_hour: float | None
    cost_per_tflop_hour: float | None
    yearly_power_cost: float | None

    @property
    def rent_per_month(self) -> float | None:
        if self.rent_per_hour is None or self.rent_hours_per_month is None:
            return None
        return self.rent_per_hour * self.rent_hours_per_month


def _cheapest(offers: Sequence[Offer]) -> Offer | None:
    return min(offers, key=lambda o: o.price) if offers else None


def owned_cost_per_hour(scenario: Scenario, gpu: Gpu, buy: Offer) -> float:
    """Per GPU-hour of an owned GPU worked every hour of ``depreciation_months``:
    (price and server share + running costs over the period) / hours in the period."""
    a = scenario.assumptions
    owned = owned_gpu(scenario, gpu, buy, 1.0, 0)
    hours = a.depreciation_months * a.hours_per_month
    return (owned.upfront + owned.running_per_month * a.depreciation_months) / hours


def yearly_power_cost(gpu: Gpu, utilization: float, a: Assumptions) -> float | None:
    """Electricity a year at ``utilization``: kW × 8,760 h × utilisation × price per kWh × PUE."""
    if gpu.tdp_w is None:
        return None
    return energy_cost_per_hour(gpu, a) * MONTHS_PER_YEAR * a.hours_per_month * utilization


def crossing(owned: OwnedGpu, rent_per_month: float, months: int) -> tuple[float, int] | None:
    """(months, first whole month) where owned net of resale first costs no more than rent.

    Month ``m`` compares ``owned.net(m)`` with ``rent_per_month × m`` for
    m = 1..``months``; between whole months both lines are straight. None
    when renting stays cheaper every month.
    """

    def gap(m: int) -> float:
        return owned.net(m) - rent_per_month * m

    before = gap(0)
    for m in range(1, months + 1):
        now = gap(m)
        if now <= 0:
            if before <= 0:
                return float(m - 1), m
            return m - 1 + before / (before - now), m
        before = now
    return None


def breakeven_row(
    scenario: Scenario,
    gpu: Gpu,
    option: RentalOption | None,
    utilization: float,
    months: int,
) -> BreakevenRow:
    a = scenario.assumptions
    buy = _cheapest(scenario.offers_of(gpu.name, OfferOption.BUY))
    rent = None if option is None else option.offer.price
    paid_hours = None if option is None else option.hours_per_month(utilization, a)
    owned = None if buy is None else owned_gpu(scenario, gpu, buy, utilization, months)
    hours = at_use = full = full_hours = later = bare = None
    first: int | None = None
    if rent and buy is not None and owned is not None and paid_hours:
        hours = buy.price / rent
        at_use = hours / paid_hours
        found = crossing(owned, rent * paid_hours, months)
        if found is None:
            full = math.inf
        else:
            full, first = found
            full_hours = full * paid_hours
            later = full - at_use
        kept = crossing(replace(owned, resale=(0.0,) * (months + 1)), rent * paid_hours, months)
        bare = math.inf if kept is None else kept[0]
    return BreakevenRow(
        gpu=gpu.name,
        option=None if option is None else option.label,
        fp16_tflops=gpu.fp16_tflops,
        utilization=utilization,
        depreciation_months=a.depreciation_months,
        horizon_months=months,
        rent_per_hour=rent,
        rent_hours_per_month=paid_hours,
        buy_price=None if buy is None else buy.price,
        owned=owned,
        breakeven_hours=hours,
        months_24_7=None if hours is None else hours / a.hours_per_month,
        months_at_utilization=at_use,
        full_cost_months=full,
        full_cost_hours=full_hours,
        paid_off_month=first,
        later_months=later,
        months_without_resale=bare,
        owned_cost_per_hour=None if buy is None else owned_cost_per_hour(scenario, gpu, buy),
        cost_per_tflop_hour=None if rent is None else rent / gpu.fp16_tflops,
        yearly_power_cost=yearly_power_cost(gpu, utilization, a),
    )


def breakeven_rows(
    scenario: Scenario, utilization: float, months: int | None = None
) -> tuple[BreakevenRow, ...]:
    """One row per GPU type and rental option, in sheet order; a type that can only
    be bought has one row without an option, a type with neither none.

    ``utilization`` is a fraction (0.6 is 60 %; the command line checks it
    lies in (0, 1]); ``months`` the horizon searched (the scenario's by default).
    """
    horizon = scenario.horizon_months if months is None else months
    rows: list[BreakevenRow] = []
    for gpu in scenario.gpus:
        options = rental_options(scenario, gpu.name)
        if options:
            rows += (breakeven_row(scenario, gpu, o, utilization, horizon) for o in options)
        elif scenario.offers_of(gpu.name, OfferOption.BUY):
            rows.append(breakeven_row(scenario, gpu, None, utilization, horizon))
    return tuple(rows)


def cumulative_costs(row: BreakevenRow) -> list[tuple[int, float, float]]:
    """(month, rent so far, owned so far net of resale) for one GPU, months 1..horizon.

    The lines of the row's chart; empty when the row has no rent or no buy offer.
    """
    rent_month = row.rent_per_month
    if rent_month is None or row.owned is None:
        return []
    owned = row.owned
    return [(m, rent_month * m, owned.net(m)) for m in range(1, row.horizon_months + 1)]


# ---------------------------------------------------------------- terminal


def money_unit(currency: str, per: str = "") -> str:
    """The money label of a column: ``USD`` or ``EUR/h`` (the workbook's currency)."""
    return f"{currency}/{per}" if per else currency


def _fmt(value: float | None, spec: str) -> str:
    if value is None:
        return "—"
    return "never" if math.isinf(value) else format(value, spec)


def extras_note(scenario: Scenario, horizon: int) -> str:
    """What the full-cost columns count, in one line."""
    a = scenario.assumptions
    return (
        "full cost = price, server share, energy, maintenance, colocation, "
        f"less resale ({a.residual_rule.value}); never = not within {horizon} months; "
        "reserved is paid every hour of its term"
    )


def format_breakeven_table(rows: Sequence[BreakevenRow], scenario: Scenario | None = None) -> str:
    """The rows as a fixed-width table for the terminal, units (money in the scenario's
    currency) in the headers."""
    currency = scenario.assumptions.currency if scenario is not None else CURRENCY
    if not rows:
        return "No GPU type has a rental or a buy offer: nothing to compare."
    pct = f"{rows[0].utilization:.0%}"
    months = f"{rows[0].depreciation_months:g}"
    header = (
        "GPU",
        "option",
        f"rent ({money_unit(currency, 'h')})",
        f"buy ({money_unit(currency)})",
        "rule: break-even (GPU-h)",
        "rule: months at 24/7",
        f"rule: months at {pct}",
        f"full cost: months at {pct}",
        "full cost: paid (GPU-h)",
        "later than rule (months)",
        f"no resale: months at {pct}",
        f"owned over {months} mo ({money_unit(currency, 'GPU-h')})",
        f"rent ({money_unit(currency, 'TFLOP-h')})",
        f"power at {pct} ({money_unit(currency, 'yr')})",
    )
    body = [
        (
            r.gpu,
            r.option or "—",
            _fmt(r.rent_per_hour, ",.2f"),
            _fmt(r.buy_price, ",.0f"),
            _fmt(r.breakeven_hours, ",.0f"),
            _fmt(r.months_24_7, ",.1f"),
            _fmt(r.months_at_utilization, ",.1f"),
            _fmt(r.full_cost_months, ",.1f"),
            _fmt(r.full_cost_hours, ",.0f"),
            _fmt(r.later_months, "+,.1f"),
            _fmt(r.months_without_resale, ",.1f"),
            _fmt(r.owned_cost_per_hour, ",.2f"),
            _fmt(r.cost_per_tflop_hour, ".4f"),
            _fmt(r.yearly_power_cost, ",.0f"),
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in (header, *body)) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        first = (c.ljust(w) for c, w in zip(cells[:2], widths[:2], strict=True))
        rest = (c.rjust(w) for c, w in zip(cells[2:], widths[2:], strict=True))
        return "  ".join((*first, *rest)).rstrip()

    lines = [line(header), line(["-" * w for w in widths]), *(line(b) for b in body)]
    if scenario is not None:
        lines.append(extras_note(scenario, rows[0].horizon_months))
    return "\n".join(lines)
