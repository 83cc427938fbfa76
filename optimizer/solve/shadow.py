"""What one more unit of a binding budget or cap would save, by re-solving.

Plans are integer (whole GPUs), so an LP dual would price a budget at zero
until it buys a whole GPU, then jump. Instead each binding limit is raised by
a step that can change an integer plan (one GPU's price for a money budget,
one GPU's draw for the power cap, one GPU for an offer's ``max_units``), the
scenario is solved again, and ``saving_per_unit = (total before − total
after) / step``. ``unit`` states the step.

A limit binds when the plan leaves less than one step of it unused (a
capex budget with $10,000 left cannot buy a $25,000 GPU). Limits that bind
but whose step saves nothing are not reported: they do not hold the plan
back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from optimizer.currency import money_text
from optimizer.domain import CostCategory, Offer, OfferOption, Scenario
from optimizer.results import PairEstimate, Plan, ShadowPrice, SolverSettings
from optimizer.solve.solver import solve_scenario
from optimizer.solve.usage import usage_of

SolveFn = Callable[[Scenario, SolverSettings], Plan]

# A saving below a cent is solver noise, not a reason to raise a budget.
_CENT = 0.01
# Hours or GPUs within this of a cap count as at the cap.
_AT_CAP = 1e-6


@dataclass(frozen=True)
class RaisedLimit:
    """A binding limit and the scenario with that limit raised by one step."""

    constraint: str
    month: int | None
    step: float
    unit: str
    raised: Scenario


def shadow_prices(
    scenario: Scenario,
    plan: Plan,
    settings: SolverSettings,
    solve: SolveFn = solve_scenario,
) -> tuple[ShadowPrice, ...]:
    """The saving from one more unit of every budget or cap that binds in ``plan``.

    One re-solve per binding limit (``solve`` is a parameter so that tests
    can check each plan). A plan without a solution has no binding limits.
    """
    if not plan.status.has_plan or plan.total_cost is None:
        return ()
    limits = binding_limits(scenario, plan)
    return prices_from(plan, limits, [solve(limit.raised, settings) for limit in limits])


def solve_raised(
    limit: RaisedLimit,
    settings: SolverSettings,
    estimates: tuple[PairEstimate, ...],
    start: dict[str, float] | None = None,
) -> Plan:
    """The plan of ``limit.raised`` (module-level, so that a spawned worker can run it).

    ``start`` is the plan's own variable values: raising a limit keeps that
    plan feasible, so the solver starts from it (HiGHS; others ignore it).
    Raising a budget or cap changes no pair estimate, so the plan's are reused.
    """
    return solve_scenario(limit.raised, settings, estimates, start=start)


def prices_from(
    plan: Plan, limits: Sequence[RaisedLimit], relaxed: Sequence[Plan]
) -> tuple[ShadowPrice, ...]:
    """The shadow prices of ``plan`` from each raised limit's plan (same order as ``limits``)."""
    if plan.total_cost is None:
        return ()
    prices = []
    for limit, raised in zip(limits, relaxed, strict=True):
        if not raised.status.has_plan or raised.total_cost is None:
            continue
        saving = plan.total_cost - raised.total_cost
        if saving > _CENT:
            prices.append(
                ShadowPrice(limit.constraint, limit.month, saving / limit.step, limit.unit)
            )
    return tuple(prices)


def binding_limits(scenario: Scenario, plan: Plan) -> list[RaisedLimit]:
    """Every budget and cap the plan leaves less than one step of, each raised by that step."""
    return [
        *_capex(scenario, plan),
        *_total(scenario, plan),
        *_monthly(scenario, plan),
        *_power(scenario, plan),
        *_max_units(scenario, plan),
    ]


def _dearest(offers: tuple[Offer, ...], option: OfferOption | None = None) -> Offer | None:
    """The most expensive buy offer (``option`` None) or rent offer of an option."""
    if option is None:
        pool = [o for o in offers if o.option is OfferOption.BUY]
    else:
        pool = [o for o in offers if o.option is option]
    return max(pool, key=lambda o: o.price, default=None)


def _dearest_gpu_month(s: Scenario) -> tuple[float, str] | None:
    """One GPU-month of the dearest rent (on-demand, reserved or spot): a step of monthly money."""
    hours = s.assumptions.hours_per_month
    rents = [o for o in s.offers if o.option.is_rent and o.price > 0]
    if not rents:
        return None
    dearest = max(rents, key=lambda o: o.price)
    return dearest.price * hours, f"one {dearest.gpu} GPU-month {dearest.option.value}"


def _purchases(plan: Plan) -> float:
    return sum(m.amounts.get(CostCategory.PURCHASE, 0.0) for m in plan.cash_flow)


def _capex(s: Scenario, plan: Plan) -> Iterator[RaisedLimit]:
    dearest = _dearest(s.offers)
    if s.budget_capex is None or dearest is None or dearest.price <= 0:
        return
    step = dearest.price
    if s.budget_capex - _purchases(plan) < step:
        unit = (
            f"{s.assumptions.currency} of budget_capex (step {money_text(step, s.assumptions.currency, 0)},"
            f" one {dearest.gpu} at its purchase price)"
        )
        yield RaisedLimit(
            "budget_capex", None, step, unit, replace(s, budget_capex=s.budget_capex + step)
        )


def _total(s: Scenario, plan: Plan) -> Iterator[RaisedLimit]:
    if s.budget_total is None or plan.cash_out is None:
        return
    dearest = _dearest(s.offers)
    if dearest is not None and dearest.price > 0:
        step, what = dearest.price, f"one {dearest.gpu} at its purchase price"
    else:
        month = _dearest_gpu_month(s)
        if month is None:
            return
        step, what = month
    if s.budget_total - plan.cash_out < step:
        currency = s.assumptions.currency
        unit = f"{currency} of budget_total (step {money_text(step, currency, 0)}, {what})"
        yield RaisedLimit(
            "budget_total", None, step, unit, replace(s, budget_total=s.budget_total + step)
        )


def _monthly(s: Scenario, plan: Plan) -> Iterator[RaisedLimit]:
    """The monthly budget is one number for every month, so it is raised in every month
    at once; ``unit`` names the months where it binds."""
    month_step = _dearest_gpu_month(s)
    if s.budget_monthly is None or month_step is None:
        return
    step, what = month_step
    binding = [m.month for m in plan.cash_flow if s.budget_monthly - m.opex < step]
    if binding:
        months = ", ".join(str(m) for m in binding)
        currency = s.assumptions.currency
        unit = (
            f"{currency} of budget_monthly, raised in every month"
            f" (step {money_text(step, currency, 0)} a month, "
            f"{what}); binds in month{'s' if len(binding) > 1 else ''} {months}"
        )
        yield RaisedLimit(
            "budget_monthly", None, step, unit, replace(s, budget_monthly=s.budget_monthly + step)
        )


def _power(s: Scenario, plan: Plan) -> Iterator[RaisedLimit]:
    if s.power_cap_kw is None:
        return
    pue = s.assumptions.pue
    draw_kw = {g.name: (g.tdp_w or 0.0) * pue / 1000 for g in s.gpus}
    buyable = [g for g in draw_kw if s.offers_of(g, OfferOption.BUY) and draw_kw[g] > 0]
    if not buyable:
        return
    biggest = max(buyable, key=lambda g: draw_kw[g])
    step = draw_kw[biggest]
    peak: dict[int, float] = {}
    for row in plan.fleet:
        peak[row.month] = peak.get(row.month, 0.0) + row.owned * draw_kw.get(row.gpu, 0.0)
    if s.power_cap_kw - max(peak.values(), default=0.0) < step:
        unit = f"kW of power_cap_kw (step {step:.3g} kW, one {biggest} at TDP × PUE)"
        yield RaisedLimit(
            "power_cap_kw", None, step, unit, replace(s, power_cap_kw=s.power_cap_kw + step)
        )


def _max_units(s: Scenario, plan: Plan) -> Iterator[RaisedLimit]:
    """Offers used up to their ``max_units`` (accounting rule 7), each raised by one GPU."""
    d = plan.decisions
    if d is None:
        return
    hours = s.assumptions.hours_per_month
    rented = usage_of(s, d).rented_hours
    for offer in s.offers:
        if offer.max_units is None:
            continue
        if offer.option is OfferOption.BUY:
            used = float(sum(n for (oid, _), n in d.purchases.items() if oid == offer.offer_id))
            cap, what = float(offer.max_units), "GPUs bought over the horizon"
        elif offer.option is OfferOption.RESERVED:
            used = max(_reserved_active(s, plan, offer).values(), default=0.0)
            cap, what = float(offer.max_units), "reserved GPUs active in a month"
        else:
            used = max((h for (oid, _), h in rented.items() if oid == offer.offer_id), default=0.0)
            cap, what = offer.max_units * hours, "GPUs' worth of hours a month"
        if cap - used <= _AT_CAP * max(1.0, cap):
            raised = replace(
                s,
                offers=tuple(
                    replace(o, max_units=offer.max_units + 1) if o.offer_id == offer.offer_id else o
                    for o in s.offers
                ),
            )
            unit = f"GPU of max_units of offer {offer.offer_id} ({what}; step 1 GPU)"
            yield RaisedLimit(f"max_units {offer.offer_id}", None, 1.0, unit, raised)


def _reserved_active(s: Scenario, plan: Plan, offer: Offer) -> dict[int, float]:
    """Reserved GPUs of one offer active in each month: a reservation starting in month
    ``start`` runs ``term_months`` months."""
    assert plan.decisions is not None  # checked by the caller
    term = offer.term_months or 1
    active: dict[int, float] = {}
    for (oid, start), n in plan.decisions.reservations.items():
        if oid != offer.offer_id:
            continue
        for month in range(start, min(start + term, s.horizon_months + 1)):
            active[month] = active.get(month, 0.0) + n
    return active
