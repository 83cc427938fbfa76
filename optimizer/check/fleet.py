"""What exists before month 1 (model v2 §E), from the scenario's Fleet rows alone.

Takes a ``Scenario`` (its ``fleet``) and, for the rules, the plan's
``Decisions``; hands on each row as the offer the rest of the checker reads
(an owned row is a source of owned GPUs, a reservation a reserved offer whose
term is its months left inside the horizon),
the stock and servers that are there in month 1, their book value, and the
violations of the rules of existing GPUs: never
bought, and an existing reservation always active for the months it has left.
Written apart from the model's own reading of the rows.
"""

from __future__ import annotations

import math
from collections import defaultdict

from optimizer.domain import FleetKind, Offer, OfferOption, ResidualValue, Scenario
from optimizer.results import Decisions


def fleet_offers(scenario: Scenario) -> dict[str, Offer]:
    """Each Fleet row by its id, as an offer: owned rows are bought from no one."""
    offers: dict[str, Offer] = {}
    for row in scenario.fleet:
        reserved = row.kind is FleetKind.RESERVED
        offers[row.source_id] = Offer(
            offer_id=row.source_id,
            gpu=row.gpu,
            option=OfferOption.RESERVED if reserved else OfferOption.BUY,
            price=row.price,
            # Only months inside the horizon are planned and paid; the rest is owed after.
            term_months=min(row.months_left or 0, scenario.horizon_months) if reserved else None,
            max_units=row.count,
            provider=row.label or None,
        )
    return offers


def existing_gpus(scenario: Scenario) -> dict[tuple[str, int], float]:
    """(owned Fleet row, 1) -> its GPUs: the stock each row starts month 1 with."""
    return {
        (row.source_id, 1): float(row.count)
        for row in scenario.fleet
        if row.kind is FleetKind.OWNED
    }


def servers_of_row(scenario: Scenario, source_id: str) -> int:
    """Servers an owned Fleet row comes with: ``ceil(count / max_per_node)`` (0 without servers)."""
    row = scenario.existing(source_id)
    if row is None or row.kind is not FleetKind.OWNED:
        return 0
    gpu = next((g for g in scenario.gpus if g.name == row.gpu), None)
    if gpu is None or not gpu.has_servers:
        return 0
    return math.ceil(row.count / gpu.max_per_node)


def existing_servers(scenario: Scenario) -> dict[tuple[str, int], float]:
    """(type, 1) -> the servers its owned Fleet rows come with."""
    servers: dict[tuple[str, int], float] = defaultdict(float)
    for row in scenario.fleet:
        if n := servers_of_row(scenario, row.source_id):
            servers[row.gpu, 1] += n
    return dict(servers)


def age_share(scenario: Scenario, age: int) -> float:
    """Straight-line book value left at ``age`` months (``book``)."""
    return max(0.0, 1.0 - age / scenario.assumptions.depreciation_months)


def existing_book_credit(scenario: Scenario) -> dict[str, float]:
    """``book`` only: each owned row's GPUs and servers at book value in month T, by
    source id (GPUs) and by type (servers); they are ``age_months + T`` months old."""
    return _book_values(scenario, scenario.horizon_months)


def existing_book_start(scenario: Scenario) -> dict[str, float]:
    """``book`` only: the same at the start of month 1, ``age_months`` old: what the cost
    shares count using them at, less their book value at T (the methodology, 2.5)."""
    return _book_values(scenario, 0)


def _book_values(scenario: Scenario, months_on: int) -> dict[str, float]:
    """Owned rows' GPUs (by source id) and servers (by type) at book value when
    ``age_months + months_on`` old; empty unless ``residual_value`` is book."""
    if scenario.assumptions.residual_rule is not ResidualValue.BOOK:
        return {}
    gpus = {g.name: g for g in scenario.gpus}
    value: dict[str, float] = defaultdict(float)
    for row in scenario.fleet:
        if row.kind is not FleetKind.OWNED:
            continue
        share = age_share(scenario, row.age_months + months_on)
        value[row.source_id] += row.price * row.count * share
        value[row.gpu] += gpus[row.gpu].node_price * servers_of_row(scenario, row.source_id) * share
    return dict(value)


def fleet_rule_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """GPUs that exist are never bought, and an existing reservation is held: exactly its
    count, started in month 1 (it runs for its months left, paid whether used or not)."""
    found: list[str] = []
    rows = {row.source_id: row for row in scenario.fleet}
    for (source_id, month), count in decisions.purchases.items():
        if source_id in rows and count:
            found.append(
                f"purchases: {count:g} GPUs of {source_id} bought in month {month}, but it is "
                f"{rows[source_id].label or 'a Fleet row'}: GPUs that exist are not bought"
            )
    for row in scenario.fleet:
        if row.kind is not FleetKind.RESERVED:
            continue
        held = {t: n for (oid, t), n in decisions.reservations.items() if oid == row.source_id}
        if held != {1: row.count}:
            shown = ", ".join(f"{n:g} from month {t}" for t, n in sorted(held.items())) or "none"
            found.append(
                f"reservations: the existing reservation {row.source_id} "
                f"({row.label or 'sheet Fleet'}) holds {row.count} GPUs from month 1 for "
                f"{row.months_left} months; the plan has {shown}"
            )
    return found
