"""What a plan tells finance at a glance: what to do, when buying pays back, what holds it.

Takes a :class:`Plan` (and its rent-only baseline); hands on plain text and
numbers for the top of the Summary sheet: the recommendation in one sentence
("Buy 14 RTX 4090 in month 1; reserve up to 32 A100 80GB for months 1–36;
rent the rest on demand", led by what becomes of sheet Fleet: "sell the 8 A100
80GB already owned in month 1"; every capital event is said, the plan's own
GPUs sold again and the servers bought and sold too: "sell 1 H100 in month 2
and 1 in month 4; buy 1 server for H100 in month 1"), the month from which buying has paid for itself
against renting everything, the limits that bind, and cumulative cash by
month. Every figure comes from the plan's fleet, cash flow and shadow prices.
"""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import accumulate

from optimizer.currency import money_text
from optimizer.domain import CostCategory, FleetKind
from optimizer.results import Plan, SolveStatus


def recommendation(plan: Plan) -> str:
    """The plan in one sentence: purchases, reservations, then what is rented."""
    if not plan.status.has_plan:
        # Why, in full, in the one cell page 1 shows (never split from its reasons).
        why = "see the diagnostics below"
        if plan.diagnostics:
            first, *rest = plan.diagnostics
            why = f"{first} {'; '.join(rest)}".strip()
        return f"No plan ({plan.status.value}): {why}"
    clauses = [
        *_existing(plan),
        *_purchases(plan),
        *_sales(plan),
        *_servers(plan),
        *_reservations(plan),
    ]
    rented = _rented(plan)
    if rented and clauses:
        clauses.append(f"rent the rest ({rented})")
    elif rented:
        clauses.append(f"rent everything ({rented})")
    text = "; ".join(clauses) + "." if clauses else "nothing to buy, reserve or rent."
    unproven = _unproven(plan)
    return unproven + text if unproven else text[0].upper() + text[1:]


def _unproven(plan: Plan) -> str:
    """What page 1 says first of a plan whose search stopped before its proof (a time limit,
    Ctrl-C): the total beside it is this plan's, and the cheapest may cost less."""
    if plan.status is not SolveStatus.TIME_LIMIT:
        return ""
    if plan.gap is None:
        return "Not proven cheapest (the search stopped before it had a bound): "
    # Rounded up to a hundredth of a percent, so that "at most" stays true (0.004 %: 0.01%).
    at_most = math.ceil(max(plan.gap, 0.0) * 10_000 - 1e-9) / 100
    return (
        "Not proven cheapest (the search stopped; the cheapest plan costs at most "
        f"{at_most:.2f}% less): "
    )


def _months(months: list[int]) -> str:
    """'month 4', 'months 4–12', or 'months 1, 7 and 13'."""
    months = sorted(set(months))
    if len(months) == 1:
        return f"month {months[0]}"
    if months == list(range(months[0], months[-1] + 1)):
        return f"months {months[0]}–{months[-1]}"
    return "months " + ", ".join(str(m) for m in months[:-1]) + f" and {months[-1]}"


def _per_gpu_month(plan: Plan, field: str) -> dict[str, dict[int, int]]:
    """GPU type → month → the fleet's whole ``field`` (bought, reserved), where nonzero."""
    found: dict[str, dict[int, int]] = defaultdict(dict)
    for row in plan.fleet:
        if getattr(row, field):
            found[row.gpu][row.month] = round(getattr(row, field))
    return found


def _purchases(plan: Plan) -> list[str]:
    return [
        f"buy {sum(by_month.values()):,} {gpu} in {_months(list(by_month))}"
        for gpu, by_month in _per_gpu_month(plan, "bought").items()
    ]


def _counts_by_month(by_month: dict[int, int]) -> str:
    """'in month 2', '1 in month 2 and 1 in month 4' after the first count is said."""
    items = sorted(by_month.items())
    each = [f"{n:,} in month {t}" for t, n in items]
    each[0] = f"in month {items[0][0]}"
    if len(each) == 1:
        return each[0]
    return ", ".join(each[:-1]) + f" and {each[-1]}"


def _sales(plan: Plan) -> list[str]:
    """GPUs bought in the plan and sold again (sheet Fleet's are said by :func:`_existing`):
    'sell 1 H100 in month 2 and 1 in month 4'."""
    if plan.decisions is None:
        return []
    gpu_of = {o.offer_id: o.gpu for o in plan.scenario.all_offers}
    existing = {r.source_id for r in plan.scenario.fleet}
    sold: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for (oid, t), n in plan.decisions.sales.items():
        if n and oid not in existing and oid in gpu_of:
            sold[gpu_of[oid]][t] += n
    return [_sentence("sell", gpu, "", by_month) for gpu, by_month in sold.items()]


def _servers(plan: Plan) -> list[str]:
    """Servers bought and sold: 'buy 1 server for H100 in month 1'."""
    if plan.decisions is None:
        return []
    clauses = []
    for verb, of, moves in (
        ("buy", "for", plan.decisions.server_purchases),
        ("sell", "of", plan.decisions.server_sales),
    ):
        by_gpu: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        for (gpu, t), n in moves.items():
            if n:
                by_gpu[gpu][t] += n
        clauses += [_sentence(verb, gpu, of, by_month) for gpu, by_month in by_gpu.items()]
    return clauses


def _sentence(verb: str, gpu: str, server_word: str, by_month: dict[int, int]) -> str:
    """'sell 1 H100 in month 2 and 1 in month 4'; with ``server_word`` ('for', 'of'),
    'buy 2 servers for H100 in month 1'."""
    first = by_month[min(by_month)]
    if server_word:
        noun = "server" if first == 1 else "servers"
        what = f"{first:,} {noun} {server_word} {gpu}"
    else:
        what = f"{first:,} {gpu}"
    return f"{verb} {what} {_counts_by_month(by_month)}"


def _reservations(plan: Plan) -> list[str]:
    """New reservations only: an existing one (sheet Fleet) is said by :func:`_existing`."""
    held: dict[tuple[str, int], int] = defaultdict(int)
    for r in plan.scenario.fleet:
        if r.kind is FleetKind.RESERVED:
            for t in range(1, min(r.months_left or 0, plan.scenario.horizon_months) + 1):
                held[(r.gpu, t)] += r.count
    clauses = []
    for gpu, by_month in _per_gpu_month(plan, "reserved").items():
        new = {t: n - held[(gpu, t)] for t, n in by_month.items() if n > held[(gpu, t)]}
        if not new:
            continue
        most, least = max(new.values()), min(new.values())
        count = f"{most:,}" if most == least else f"up to {most:,}"
        clauses.append(f"reserve {count} {gpu} for {_months(list(new))}")
    return clauses


def _existing(plan: Plan) -> list[str]:
    """What becomes of sheet Fleet: the GPUs owned are kept or sold, reservations paid."""
    s = plan.scenario
    sales = plan.decisions.sales if plan.decisions else {}
    clauses = []
    owned: dict[str, int] = defaultdict(int)
    sold: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for r in s.fleet:
        if r.kind is FleetKind.OWNED:
            owned[r.gpu] += r.count
            for (oid, t), n in sales.items():
                if oid == r.source_id:
                    sold[r.gpu][t] += n
    for gpu, count in owned.items():
        by_month = sold.get(gpu)
        if not by_month:
            clauses.append(f"keep the {count:,} {gpu} already owned")
            continue
        total = sum(by_month.values())
        which = f"the {count:,}" if total == count else f"{total:,} of the {count:,}"
        each = ", ".join(f"{n:,} in month {t}" for t, n in sorted(by_month.items()))
        when = f"in month {next(iter(by_month))}" if len(by_month) == 1 else f"({each})"
        clauses.append(f"sell {which} {gpu} already owned {when}")
    for r in s.fleet:
        if r.kind is FleetKind.RESERVED:
            months = min(r.months_left or 0, s.horizon_months)
            clauses.append(
                f"pay the {r.count:,} {r.gpu} already reserved for {_months(list(range(1, months + 1)))}"
            )
    return clauses


def _rented(plan: Plan) -> str:
    """'5,027 GPU-hours of A100 80GB on demand, 88,463 on spot', or '' when nothing is rented."""
    on_demand: dict[str, float] = defaultdict(float)
    spot: dict[str, float] = defaultdict(float)
    for row in plan.fleet:
        on_demand[row.gpu] += row.rented_hours
        spot[row.gpu] += row.spot_hours
    parts = [
        f"{hours:,.0f} GPU-hours of {gpu} {how}"
        for how, hours_of in (("on demand", on_demand), ("on spot", spot))
        for gpu, hours in hours_of.items()
        if hours >= 0.5
    ]
    return ", ".join(parts)


def cumulative_cash(plan: Plan) -> list[float] | None:
    """Undiscounted cash paid up to the end of each month, or None without a plan."""
    if not plan.status.has_plan:
        return None
    return list(accumulate(m.total for m in plan.cash_flow))


# What budget_capex limits: GPUs bought and the servers bought for them (issue 35:
# page 1 left out $90,000 of servers the budget counted).
CAPEX = (CostCategory.PURCHASE, CostCategory.NODE)


def capex(plan: Plan) -> float | None:
    """Undiscounted purchases over the horizon: GPUs and servers, as ``budget_capex`` counts."""
    if not plan.status.has_plan:
        return None
    return sum(m.amounts.get(c, 0.0) for m in plan.cash_flow for c in CAPEX)


def payback_month(plan: Plan, rent_only: Plan | None) -> int | None:
    """The first month from which the plan's cumulative cash stays at or below renting everything.

    None when the plan buys nothing, when there is no rent-only plan to
    compare with, or when buying has not paid back by the end of the horizon.
    """
    mine = cumulative_cash(plan)
    theirs = cumulative_cash(rent_only) if rent_only is not None else None
    if mine is None or theirs is None or not capex(plan):
        return None
    payback = None
    for month, (a, b) in enumerate(zip(mine, theirs, strict=False), start=1):
        # The month it first stays at or below renting to the end of the horizon.
        behind = a > b + 0.005
        payback = None if behind else (payback or month)
    return payback


def payback_text(plan: Plan, rent_only: Plan | None) -> str:
    if not plan.status.has_plan:
        return ""
    if not capex(plan):
        return "buys nothing"
    if rent_only is None or not rent_only.status.has_plan:
        if rent_only is not None and any(" not solved: " in d for d in rent_only.diagnostics):
            return "rent-only plan not solved in the time given"
        return "no rent-only plan to compare"
    month = payback_month(plan, rent_only)
    if month is not None:
        return f"month {month}"
    cheaper = (
        plan.total_cost is not None
        and rent_only.total_cost is not None
        and plan.total_cost < rent_only.total_cost
    )
    if cheaper and plan.residual_credit:
        # The cash alone says "do not buy"; the credit is why buying is still cheapest.
        worth = money_text(plan.residual_credit, plan.currency)
        return (
            "not within the horizon in cash; cheaper all the same, counting the "
            f"{worth} the GPUs still owned are worth at month {plan.scenario.horizon_months}"
        )
    return "not within the horizon"


def binding_limits(plan: Plan) -> str:
    """The limits whose next unit would save money, dearest first; 'none' when none binds."""
    if not plan.status.has_plan:
        return ""
    ranked = sorted(plan.shadow_prices, key=lambda s: -s.saving_per_unit)
    if not ranked:
        return "none"
    return "; ".join(
        f"{s.constraint}{f' (month {s.month})' if s.month is not None else ''}: "
        f"{money_text(s.saving_per_unit, plan.currency)} per {s.unit}"
        for s in ranked
    )
