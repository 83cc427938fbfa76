"""Rules on the decisions themselves: keys, finite numbers, whole numbers, offer limits.

Takes a ``Scenario`` and the plan's ``Decisions``; hands on violation lines for
items naming offers, types, workloads or months the scenario lacks, NaNs and
infinities, fractional or negative counts, and each offer's ``max_units``,
``available_from`` and reservation terms.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from optimizer.check.money import _offers_by_id, active_reservations
from optimizer.check.tolerances import HOURS_ABS_TOL, INTEGER_TOL, _h, _is_integer, hours_exceed
from optimizer.domain import OfferOption, Scenario
from optimizer.results import Decisions


def key_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """Only offers, GPU types, workloads and months of this scenario, each of the right kind.

    Because excluded types, ``allow_buy = FALSE`` and ``allow_rent = FALSE``
    remove offers from the scenario, this is also where those switches are
    honoured.
    """
    found: list[str] = []
    offers = _offers_by_id(scenario)
    gpus = {g.name for g in scenario.gpus}
    workloads = {w.name for w in scenario.workloads}
    months = scenario.months

    def offer_key(table: str, offer_id: str, month: int, options: tuple[OfferOption, ...]) -> None:
        offer = offers.get(offer_id)
        if offer is None:
            found.append(f"{table}: offer {offer_id!r} is not an offer of this scenario")
        elif offer.option not in options:
            found.append(
                f"{table}: offer {offer_id!r} is a {offer.option.value} offer, "
                f"not {' or '.join(o.value for o in options)}"
            )
        if month not in months:
            found.append(f"{table}: offer {offer_id!r} in month {month}, outside 1..{len(months)}")

    for offer_id, month in decisions.purchases:
        offer_key("purchases", offer_id, month, (OfferOption.BUY,))
    for offer_id, month in decisions.reservations:
        offer_key("reservations", offer_id, month, (OfferOption.RESERVED,))
    for offer_id, month in decisions.rented_hours:
        offer_key("rented hours", offer_id, month, (OfferOption.ON_DEMAND, OfferOption.SPOT))
    for table, keys in (
        ("owned hours", decisions.owned_hours),
        ("reserved hours", decisions.reserved_hours),
    ):
        for gpu, month in keys:
            if gpu not in gpus:
                found.append(f"{table}: GPU type {gpu!r} is not in this scenario")
            if month not in months:
                found.append(f"{table}: {gpu} in month {month}, outside 1..{len(months)}")
    for table, wkeys in (("work", decisions.work), ("replicas", decisions.replicas)):
        for workload, gpu, month in wkeys:
            if workload not in workloads:
                found.append(f"{table}: workload {workload!r} is not planned in this scenario")
            if gpu not in gpus:
                found.append(f"{table}: GPU type {gpu!r} is not in this scenario")
            if month not in months:
                found.append(
                    f"{table}: {workload} on {gpu} in month {month}, outside 1..{len(months)}"
                )
    for workload, gpu in decisions.picks.items():
        if workload not in workloads:
            found.append(f"picks: workload {workload!r} is not planned in this scenario")
        if gpu not in gpus:
            found.append(f"picks: {workload} picks GPU type {gpu!r}, not in this scenario")
    return found


def non_finite_violations(decisions: Decisions) -> list[str]:
    """Every decision is a finite number (a NaN would make every comparison pass or fail silently)."""
    tables: tuple[tuple[str, Mapping[Any, float]], ...] = (
        ("purchases", decisions.purchases),
        ("reservations", decisions.reservations),
        ("rented hours", decisions.rented_hours),
        ("owned hours", decisions.owned_hours),
        ("reserved hours", decisions.reserved_hours),
        ("replicas", decisions.replicas),
    )
    found = [
        f"{table}: {key} is {value!r}, not a finite number"
        for table, values in tables
        for key, value in values.items()
        if not math.isfinite(value)
    ]
    for key, work in decisions.work.items():
        for name, value in (("hours", work.hours), ("spot hours", work.spot_hours)):
            if not math.isfinite(value):
                found.append(f"work: {key} {name} is {value!r}, not a finite number")
    return found


def integrality_violations(decisions: Decisions) -> list[str]:
    """Purchases, reservations and replicas are whole numbers; nothing is negative."""
    found: list[str] = []
    integer_tables: tuple[tuple[str, Mapping[Any, float]], ...] = (
        ("purchases", decisions.purchases),
        ("reservations", decisions.reservations),
        ("replicas", decisions.replicas),
    )
    for table, values in integer_tables:
        for key, value in values.items():
            if not _is_integer(value):
                found.append(f"{table}: {key} is {value!r}, not a whole number")
            if value < 0:
                found.append(f"{table}: {key} is negative ({value!r})")
    hour_tables: tuple[tuple[str, Mapping[Any, float]], ...] = (
        ("rented hours", decisions.rented_hours),
        ("owned hours", decisions.owned_hours),
        ("reserved hours", decisions.reserved_hours),
    )
    for table, values in hour_tables:
        for key, value in values.items():
            if value < -HOURS_ABS_TOL or not math.isfinite(value):
                found.append(f"{table}: {key} is {value!r}, must be a number >= 0")
    for key, work in decisions.work.items():
        for name, value in (("hours", work.hours), ("spot hours", work.spot_hours)):
            if value < -HOURS_ABS_TOL or not math.isfinite(value):
                found.append(f"work: {key} {name} is {value!r}, must be a number >= 0")
    return found


def offer_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """Accounting rule 7 (``max_units``), ``available_from``, reservations inside the horizon."""
    found: list[str] = []
    offers = _offers_by_id(scenario)
    h = scenario.assumptions.hours_per_month
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

    for (offer_id, start), count in decisions.reservations.items():
        offer = offers.get(offer_id)
        if offer is None or count == 0:
            continue
        if offer.term_months is None:
            found.append(f"reservations: {offer_id} has no term_months")
            continue
        end = start + offer.term_months - 1
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

    for (offer_id, month), hours in decisions.rented_hours.items():
        offer = offers.get(offer_id)
        if offer is None or hours <= HOURS_ABS_TOL:
            continue
        if month < offer.available_from:
            found.append(
                f"rented hours: {_h(hours)} h of {offer_id} in month {month}, "
                f"before it is available (month {offer.available_from})"
            )
        if offer.max_units is not None and hours_exceed(hours, offer.max_units * h):
            found.append(
                f"rented hours: {_h(hours)} h of {offer_id} in month {month}, more than "
                f"max_units {offer.max_units} × {_h(h)} h = {_h(offer.max_units * h)} h"
            )
    return found
