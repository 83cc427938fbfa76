"""Rules on the decisions themselves: keys and places, finite and whole numbers, stock and offers.

Takes a ``Scenario``, the plan's ``Decisions`` and the pair estimates; hands on
violation lines for items naming offers, types, workloads, places, widths or
months the scenario lacks or forbids (model v2 §A–§D), NaNs and infinities,
fractional or negative counts, and the stock family: each buy offer's
``max_units``, ``available_from``, reservation terms and active reservations.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from optimizer.check.capacity import (
    active_reservations,
    is_finite,
    offers_by_id,
    place_kind,
    source_stock,
)
from optimizer.check.demand import gang_of, spot_place, spot_run
from optimizer.check.tolerances import HOURS_ABS_TOL, INTEGER_TOL, _h, _is_integer
from optimizer.domain import Kind, OfferOption, Scenario, Workload
from optimizer.results import Decisions, PairEstimate


def key_violations(
    scenario: Scenario, decisions: Decisions, estimates: Sequence[PairEstimate]
) -> list[str]:
    """Only offers, types, workloads, places, widths and months of this scenario, each of the right kind.

    Purchases name buy offers, reservations reserved offers. A place is the
    house or a reserved, on-demand or spot offer of the item's own type (never
    a buy offer), usable from the offer's ``available_from``. Replicas: realtime
    workloads, never on spot, at an allowed serving width of the pair that
    divides ``max_per_node`` (so the replicas pack into servers), inside the
    window. Work: training and batch workloads on allowed pairs inside the
    window; on spot only when interruptible. Slots: finite places only, width
    ≥ 1. Picks: one-off training jobs. Because excluded types, ``allow_buy`` and
    ``allow_rent`` remove offers from the scenario, this is also where those
    switches are honoured.
    """
    found: list[str] = []
    offers = offers_by_id(scenario)
    gpus = {g.name for g in scenario.gpus}
    servers = {g.name: g.max_per_node for g in scenario.gpus}
    workloads = {w.name: w for w in scenario.workloads}
    pairs = {(e.workload, e.gpu): e for e in estimates}
    months = scenario.months

    def offer_key(table: str, offer_id: str, month: int, option: OfferOption) -> None:
        offer = offers.get(offer_id)
        if offer is None:
            found.append(f"{table}: offer {offer_id!r} is not an offer of this scenario")
        elif offer.option is not option:
            found.append(
                f"{table}: offer {offer_id!r} is a {offer.option.value} offer, not {option.value}"
            )
        if month not in months:
            found.append(f"{table}: offer {offer_id!r} in month {month}, outside 1..{len(months)}")

    for offer_id, month in decisions.purchases:
        offer_key("purchases", offer_id, month, OfferOption.BUY)
    for offer_id, month in decisions.sales:
        offer_key("sales", offer_id, month, OfferOption.BUY)
    for offer_id, month in decisions.reservations:
        offer_key("reservations", offer_id, month, OfferOption.RESERVED)

    def place_key(table: str, who: str, gpu: str, place: str, month: int, used: bool) -> str | None:
        """Names, month and place of one item; returns the place's kind when it is one.

        ``available_from`` is checked only where the item is used (not 0).
        """
        if gpu not in gpus:
            found.append(f"{table}: GPU type {gpu!r} is not in this scenario")
            return None
        if month not in months:
            found.append(f"{table}: {who} on {gpu} in month {month}, outside 1..{len(months)}")
        kind = place_kind(offers, gpu, place)
        if kind is None:
            offer = offers.get(place)
            why = (
                "not an offer of this scenario"
                if offer is None
                else f"a {offer.option.value} offer of {offer.gpu}"
            )
            found.append(f"{table}: {who} on {gpu} in place {place!r}, {why}: not a place of {gpu}")
        elif used and place in offers and month < offers[place].available_from:
            found.append(
                f"{table}: {who} on {gpu} in {place} in month {month}, before it is available "
                f"(month {offers[place].available_from})"
            )
        return kind

    def workload_key(table: str, name: str, gpu: str, month: int, used: bool) -> Workload | None:
        """The workload exists; where the item is used, ``month`` is inside its window.

        Returns the workload when the item is used (its other rules apply), else None.
        """
        w = workloads.get(name)
        if w is None:
            found.append(f"{table}: workload {name!r} is not planned in this scenario")
            return None
        if not used:
            return None
        window = w.window(scenario.horizon_months)
        if month not in window:
            found.append(
                f"{table}: {name} runs on {gpu} in month {month}, outside its window "
                f"{window.start}..{window.stop - 1}"
            )
        return w

    for (name, gpu, place, width, month), n in sorted(decisions.replicas.items()):
        kind = place_key("replicas", name, gpu, place, month, used=n != 0)
        w = workload_key("replicas", name, gpu, month, used=n != 0)
        if w is None:
            continue
        where = f"{n:g} replicas of {name} on {gpu} in {place} month {month}"
        if w.kind is not Kind.REALTIME_INFERENCE:
            found.append(
                f"replicas: {where}: {name} is {w.kind.value}, only realtime work has replicas"
            )
            continue
        if kind == OfferOption.SPOT.value:
            found.append(f"replicas: {where}: spot never serves")
        estimate = pairs.get((name, gpu))
        allowed = [s.width for s in estimate.serving_widths()] if estimate else []
        if estimate is None or not estimate.allowed:
            why = "no estimate" if estimate is None else estimate.reason
            found.append(f"replicas: {where}: a pair not allowed ({why})")
        elif width not in allowed:
            found.append(
                f"replicas: {where}: width {width} is not an allowed serving width of the pair "
                f"({', '.join(map(str, allowed)) or 'none'})"
            )
        per_node = servers.get(gpu)
        if per_node is not None and (width < 1 or per_node % width):
            # model v2 §B: widths divide max_per_node, so a place's replicas pack into servers.
            found.append(
                f"replicas: {where}: width {width} does not divide max_per_node {per_node} "
                f"of {gpu}; its replicas cannot pack into {gpu}'s servers"
            )

    for (name, gpu, place, month), hours in sorted(decisions.work.items()):
        used = hours > HOURS_ABS_TOL
        kind = place_key("work", name, gpu, place, month, used)
        w = workload_key("work", name, gpu, month, used)
        if w is None:
            continue
        where = f"{_h(hours)} h of {name} on {gpu} in {place} month {month}"
        if w.kind is Kind.REALTIME_INFERENCE:
            found.append(f"work: {where}: realtime work runs as replicas, not work hours")
            continue
        if kind == OfferOption.SPOT.value and not w.interruptible:
            found.append(f"work: {where}: spot, but {name} is not interruptible")
        estimate = pairs.get((name, gpu))
        if estimate is None or not estimate.allowed:
            why = "no estimate" if estimate is None else estimate.reason
            found.append(f"work: {where}: a pair not allowed ({why})")
        elif kind == OfferOption.SPOT.value and used:
            found += _late_on_spot(scenario, w, estimate, gpu, place, month, where)

    for (gpu, place, width, month), n in sorted(decisions.slots.items()):
        kind = place_key("slots", f"{n:g} slots of width {width}", gpu, place, month, n != 0)
        if kind is not None and not is_finite(offers, gpu, place):
            found.append(
                f"slots: {gpu} in {place} month {month}: an uncapped offer has no slots "
                "(slots are for the house, reserved offers and offers with max_units)"
            )
        if not _is_integer(width) or width < 1:
            found.append(
                f"slots: {gpu} in {place} month {month}: width {width!r} is not a whole number >= 1"
            )

    for name, gpu in sorted(decisions.picks.items()):
        w = workloads.get(name)
        if w is None:
            found.append(f"picks: workload {name!r} is not planned in this scenario")
        elif not w.one_off_training:
            found.append(
                f"picks: {name} is {w.kind.value}"
                f"{' with runs_per_month' if w.recurring else ''}; only one-off training jobs "
                "pick one GPU type"
            )
        if gpu not in gpus:
            found.append(f"picks: {name} picks GPU type {gpu!r}, not in this scenario")
    return found


def _late_on_spot(
    scenario: Scenario,
    w: Workload,
    estimate: PairEstimate,
    gpu: str,
    place: str,
    month: int,
    where: str,
) -> list[str]:
    """Deadline work on spot whose run would finish late (docs/methodology.md §2.12).

    A run of ``R`` GPU-hours on ``w`` spot GPUs does ``w × yield`` useful
    GPU-hours an hour, so it takes ``R / (w × yield)`` hours; it may spread
    past its gang's ``n`` GPUs at the same yield only inside the gang's servers
    (and the offer's ``max_units``).
    """
    gang = gang_of(w, estimate, month)
    if w.deadline_hours is None or gang is None:
        return []
    _, cap = spot_place(scenario, place)
    spot = spot_run(scenario, w, gang, gpu, month)
    if spot.widths(cap):
        return []
    widest = spot.widest(cap)
    if widest < gang.width:
        return [f"work: {where}: the offer holds {cap} GPUs, fewer than the gang's {gang.width}"]
    servers = spot.servers
    inside = f"its gang's {servers} server{'s' if servers > 1 else ''}"
    if cap is not None and cap < servers * spot.max_per_node:
        inside += f" and the offer's {cap} GPUs"
    hours = spot.run_gpu_hours / (widest * spot.spot_yield)
    return [
        f"work: {where}: deadline work on spot: a run of {_h(spot.run_gpu_hours)} GPU-hours "
        f"on the {widest} spot GPUs {inside} hold takes {_h(hours)} h, past its "
        f"{w.deadline_hours:g} h deadline"
    ]


def _tables(decisions: Decisions) -> tuple[tuple[str, Mapping[Any, float]], ...]:
    return (
        ("purchases", decisions.purchases),
        ("sales", decisions.sales),
        ("server_purchases", decisions.server_purchases),
        ("server_sales", decisions.server_sales),
        ("reservations", decisions.reservations),
        ("replicas", decisions.replicas),
        ("slots", decisions.slots),
        ("work", decisions.work),
    )


def _sale_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """Model v2 §E: GPUs are sold only under ``residual_value`` market, and only GPUs owned.

    The stock of each buy offer (bought so far minus sold so far) never falls below 0.
    """
    sold = {k: n for k, n in decisions.sales.items() if n}
    if not sold:
        return []
    if not scenario.assumptions.sells:
        rule = scenario.assumptions.residual_rule.value
        return [f"sales: GPUs sold while residual_value is {rule} (selling needs market)"]
    found = []
    short: dict[str, tuple[int, float]] = {}  # offer -> first month its stock is negative
    for (offer_id, t), level in sorted(source_stock(scenario, decisions).items()):
        if level < -INTEGER_TOL and offer_id not in short:
            short[offer_id] = (t, level)
    for offer_id, (t, level) in short.items():
        found.append(f"sales: {-level:g} more GPUs of {offer_id} sold than bought by month {t}")
    return found


def non_finite_violations(decisions: Decisions) -> list[str]:
    """Every decision is a finite number (a NaN would make every comparison pass or fail silently)."""
    return [
        f"{table}: {key} is {value!r}, not a finite number"
        for table, values in _tables(decisions)
        for key, value in values.items()
        if not math.isfinite(value)
    ]


def integrality_violations(decisions: Decisions) -> list[str]:
    """Purchases, reservations, replicas and slots are whole numbers; nothing is negative."""
    found: list[str] = []
    for table, values in _tables(decisions):
        for key, value in values.items():
            if table == "work":
                if value < -HOURS_ABS_TOL:
                    found.append(f"work: {key} is {value!r}, must be a number >= 0")
                continue
            if not _is_integer(value):
                found.append(f"{table}: {key} is {value!r}, not a whole number")
            if value < 0:
                found.append(f"{table}: {key} is negative ({value!r})")
    return found


def offer_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """The stock family: accounting rule 7 (``max_units``), ``available_from``, reservation terms.

    ``sum_t purchases[o,t] <= max_units``; purchases and reservations start at or
    after ``available_from``; a reservation ends by month T; active reserved GPUs
    of an offer ``<= max_units`` every month. (A rental offer's ``max_units`` is
    its size as a place: ``place_capacity``, ``slot_hours`` and ``free_hours``.)
    """
    found: list[str] = []
    offers = offers_by_id(scenario)
    t_end = scenario.horizon_months

    bought: dict[str, float] = defaultdict(float)
    for (offer_id, month), count in decisions.purchases.items():
        offer = offers.get(offer_id)
        if offer is None or count == 0:
            continue
        bought[offer_id] += count
        if month < offer.available_from:
            found.append(
                f"purchases: {count} GPUs of {offer_id} bought in month {month}, "
                f"before it is available (month {offer.available_from})"
            )
    for offer_id, total in bought.items():
        cap = offers[offer_id].max_units
        if cap is not None and total > cap + INTEGER_TOL:
            found.append(
                f"purchases: {total:g} GPUs of {offer_id} bought, more than max_units {cap}"
            )

    found += _sale_violations(scenario, decisions)

    for (offer_id, start), count in decisions.reservations.items():
        offer = offers.get(offer_id)
        if offer is None or count == 0:
            continue
        if offer.term_months is None:
            found.append(f"reservations: {offer_id} has no term_months")
            continue
        end = start + offer.term_months - 1
        if scenario.existing(offer_id) is not None:
            continue  # an existing reservation may run past T: fleet_rule_violations
        if end > t_end:
            found.append(
                f"reservations: {count} GPUs of {offer_id} from month {start} end in month {end}, "
                f"past the horizon (month {t_end})"
            )
        if start < offer.available_from:
            found.append(
                f"reservations: {count} GPUs of {offer_id} start in month {start}, "
                f"before it is available (month {offer.available_from})"
            )
    for (offer_id, t), active in sorted(active_reservations(scenario, decisions).items()):
        cap = offers[offer_id].max_units
        if cap is not None and active > cap + INTEGER_TOL:
            found.append(
                f"reservations: {active:g} GPUs of {offer_id} active in month {t}, "
                f"more than max_units {cap}"
            )
    return found
