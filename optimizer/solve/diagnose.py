"""No bare failures: say why a scenario has no plan, in numbers and in words.

Two stages:

* :func:`unplannable_workloads`, before any solve: a workload with no
  allowed GPU type, no offer for its allowed types, or no offer available
  inside its window cannot be planned. One line per GPU type gives the
  estimator's reason or what is missing.
* :func:`explain_infeasible`, after HiGHS proved the MILP infeasible: an
  elastic re-solve (optimizer.model.build, ``elastic=``) puts penalised slack on
  the rows that can be short and minimises the weighted shortfall. First
  only budgets and the power cap may give (so a shortfall is blamed on a
  limit whenever money or power would fix it); if that is still infeasible,
  demand may give too, weighted 1000 times more than limits. Each nonzero
  slack becomes one sentence ("capex budget short by $5,000", "chat-70b
  short of 1,200 tokens/s in months 4–6"), with the offer caps that bind
  for a short workload ("because L40S on_demand offers are capped at 16").

Slack keys (``BuiltModel.shortfalls``): ``("training", w, g)`` GPU-hours,
``("batch", w, t)`` share of the month's work, ``("realtime", w, t)``
tokens/s, ``("budget", "capex"|"total")`` and ``("budget", "monthly", t)``
USD, ``("power",)`` watts; ``w``, ``g`` are positions in the scenario.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

import pulp

from optimizer.currency import money_text
from optimizer.domain import ExistingGpus, FleetKind, Kind, Offer, OfferOption, Scenario, Workload
from optimizer.model.build import build_model
from optimizer.model.built import ELASTIC_DEMAND, ELASTIC_LIMITS, BuiltModel
from optimizer.model.costs import spot_allowed, usable_estimate
from optimizer.results import PairEstimate, SolveStatus

# Slack below this is solver noise: USD, watts, tokens/s, GPU-hours or shares.
SHORT_NOISE = 1e-6


def unplannable_workloads(scenario: Scenario, estimates: Sequence[PairEstimate]) -> list[str]:
    """One line per GPU type for each workload that no offer can serve (empty: all plannable)."""
    pairs = {(e.workload, e.gpu): e for e in estimates}
    lines: list[str] = []
    for w in scenario.workloads:
        reasons: list[str] = []
        plannable = False
        for g in scenario.gpus:
            est = pairs.get((w.name, g.name))
            if est is None:
                reasons.append(f"{w.name} on {g.name}: not estimated")
                continue
            if not usable_estimate(est, w):
                reasons.append(f"{w.name} on {g.name}: {est.reason or 'not allowed'}")
                continue
            why_not = _offer_problem(scenario, w, g.name)
            if why_not:
                reasons.append(f"{w.name} on {g.name}: {why_not}")
            else:
                plannable = True
        if not plannable:
            if not scenario.gpus:
                reasons.append(f"{w.name}: the scenario has no GPU types")
            lines.append(f"{w.name} cannot be planned: no GPU type can run it")
            lines += [f"  {r}" for r in reasons]
    return lines


def _offer_problem(scenario: Scenario, w: Workload, gpu: str) -> str:
    """Why no offer of ``gpu`` can serve ``w`` inside its window ('' when one can)."""
    offers = scenario.offers_of(gpu)
    # What the company already has runs work too, with no offer at all (model v2 §E).
    existing = [r for r in scenario.fleet if r.gpu == gpu]
    window = w.window(scenario.horizon_months)
    T = scenario.horizon_months
    if not offers and not existing:
        return "no offer for this GPU type in this scenario"
    if any(_existing_serves(r, window, T) for r in existing):
        return ""
    usable = [o for o in offers if _serves(o, w, window, T)]
    if usable:
        return ""
    details = ", ".join(
        [_why_offer_cannot(o, w, window, T) for o in offers]
        + [_why_existing_cannot(r, T) for r in existing]
    )
    return f"no offer can serve months {window.start}–{window.stop - 1} ({details})"


def _existing_serves(r: ExistingGpus, window: range, T: int) -> bool:
    """Owned GPUs are there from month 1; an existing reservation runs months 1 to its end."""
    if r.count <= 0:
        return False
    if r.kind is FleetKind.OWNED:
        return True
    return min(r.months_left or 0, T) >= window.start


def _why_existing_cannot(r: ExistingGpus, T: int) -> str:
    name = r.label or r.source_id
    if r.count <= 0:
        return f"{name} has count 0"
    return f"{name}'s reservation ends in month {min(r.months_left or 0, T)}"


def _serves(o: Offer, w: Workload, window: range, T: int) -> bool:
    last = window.stop - 1
    if o.max_units == 0:
        return False
    if o.option is OfferOption.BUY or o.option is OfferOption.ON_DEMAND:
        return o.available_from <= last
    if o.option is OfferOption.SPOT:
        return spot_allowed(w) and o.available_from <= last
    term = o.term_months or 0
    # Some start s >= available_from with s + term - 1 <= T overlapping the window.
    latest_start = min(T - term + 1, last)
    return latest_start >= o.available_from and latest_start + term - 1 >= window.start


def _why_offer_cannot(o: Offer, w: Workload, window: range, T: int) -> str:
    name = o.offer_id
    if o.max_units == 0:
        return f"{name} has max_units 0"
    if o.option is OfferOption.SPOT and not spot_allowed(w):
        why = (
            "realtime work never runs on spot"
            if w.kind is Kind.REALTIME_INFERENCE
            else ("the workload is not interruptible")
        )
        return f"{name} is spot and {why}"
    if o.option is OfferOption.RESERVED and (o.term_months or 0) > T - o.available_from + 1:
        return (
            f"{name}'s {o.term_months}-month term from month {o.available_from} "
            f"does not end inside the {T}-month horizon"
        )
    return f"{name} is available only from month {o.available_from}"


# --------------------------------------------------------------------------
# Elastic re-solve
# --------------------------------------------------------------------------


def explain_infeasible(
    scenario: Scenario,
    estimates: Sequence[PairEstimate],
    solve: Callable[[BuiltModel], SolveStatus],
) -> list[str]:
    """What is short, where and by how much, when the MILP has no feasible plan.

    ``solve`` solves a built model in place and returns its status (it is
    ``optimizer.solve.solver.run_solver`` with the run's settings).
    """
    for groups in ((ELASTIC_LIMITS,), (ELASTIC_LIMITS, ELASTIC_DEMAND)):
        built = build_model(scenario, estimates, elastic=groups)
        if not built.shortfalls:
            continue
        status = solve(built)
        if status.has_plan:
            lines = _shortfall_lines(built)
            if lines:
                return ["no plan meets every requirement:", *lines]
    return [
        "no plan meets every requirement, and relaxing the budgets, the power cap and "
        "the demand did not find the cause (please report this scenario)"
    ]


def _money(x: float, currency: str) -> str:
    return money_text(x, currency, 0 if abs(x - round(x)) < 0.005 else 2)


def _number(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:,.3g}"


def months_text(months: Sequence[int]) -> str:
    """'month 4' or 'months 4–6' or 'months 2, 4–6'."""
    ordered = sorted(months)
    spans: list[tuple[int, int]] = []
    for m in ordered:
        if spans and m == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], m)
        else:
            spans.append((m, m))
    text = ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in spans)
    return f"month {text}" if len(ordered) == 1 else f"months {text}"


def _value(var: pulp.LpVariable) -> float:
    return float(var.varValue or 0.0)


def _shortfall_lines(built: BuiltModel) -> list[str]:
    s = built.scenario
    short: dict[tuple[object, ...], float] = {
        key: _value(v) for key, v in built.shortfalls.items() if _value(v) > SHORT_NOISE
    }
    lines: list[str] = []

    for budget in ("capex", "total"):
        if ("budget", budget) in short:
            lines.append(
                f"{budget} budget short by {_money(short[('budget', budget)], s.assumptions.currency)}"
            )
    monthly = {int(str(key[2])): v for key, v in short.items() if key[:2] == ("budget", "monthly")}
    if monthly:
        top = max(monthly.values())
        same = top - min(monthly.values()) < 0.005
        amount = _money(top, s.assumptions.currency)
        amount = amount if same else f"up to {amount}"
        lines.append(f"monthly budget short by {amount} in {months_text(list(monthly))}")
    if ("power",) in short:
        lines.append(f"power cap short by {short[('power',)] / 1000.0:,.1f} kW")

    by_workload: dict[int, dict[int, float]] = defaultdict(dict)
    for slack, v in short.items():
        if slack[0] in ("batch", "realtime"):
            by_workload[int(str(slack[1]))][int(str(slack[2]))] = v
    for w_pos, per_month in sorted(by_workload.items()):
        w = s.workloads[w_pos]
        top = max(per_month.values())
        up_to = "" if top - min(per_month.values()) <= 1e-6 * max(1.0, top) else "up to "
        if w.kind is Kind.REALTIME_INFERENCE:
            text = (
                f"{w.name} short of {up_to}{_number(top)} tokens/s of serving capacity"
                f" (demand / target_load {s.assumptions.target_load:.0%})"
                f" in {months_text(list(per_month))}"
            )
        else:
            what = "monthly runs" if w.runs_per_month is not None else "monthly tokens"
            text = f"{w.name} short of {up_to}{top:.1%} of its {what} in {months_text(list(per_month))}"
        lines.append(text + _binding_caps(built, w, per_month))
    lacking: dict[int, dict[int, float]] = defaultdict(dict)
    for slack, v in short.items():
        if slack[0] == "replicas":
            lacking[int(str(slack[1]))][int(str(slack[2]))] = v
    for w_pos, per_month in sorted(lacking.items()):
        w = s.workloads[w_pos]
        top = round(max(per_month.values()))
        lines.append(
            f"{w.name} short of {'up to ' if len(set(per_month.values())) > 1 else ''}"
            f"{top:,} of its {w.min_replicas:,} replicas (min_replicas)"
            f" in {months_text(list(per_month))}" + _binding_caps(built, w, per_month)
        )
    for slack, v in short.items():
        if slack[0] != "training":
            continue
        w = s.workloads[int(str(slack[1]))]
        g = s.gpus[int(str(slack[2]))]
        if _value(built.pick[(w.name, g.name)]) < 0.5:
            continue
        need = built.estimates[(w.name, g.name)].gpu_hours or 0.0
        window = w.window(s.horizon_months)
        lines.append(
            f"{w.name} short of {_number(v)} of its {_number(need)} GPU-hours on {g.name} "
            f"in {months_text(list(window))}" + _binding_caps(built, w, window)
        )
    return lines


def _binding_caps(built: BuiltModel, w: Workload, months: Iterable[int]) -> str:
    """' because X offers are capped at N' for the caps the short workload runs into."""
    s = built.scenario
    H = s.assumptions.hours_per_month
    T = s.horizon_months
    capped: dict[tuple[str, OfferOption], int] = defaultdict(int)
    late: list[str] = []
    window = w.window(T)
    for o in built.offers:
        if (w.name, o.gpu) not in built.estimates:
            continue
        if o.option is OfferOption.SPOT and not spot_allowed(w):
            continue
        if o.available_from > window.start:
            late.append(f"{o.gpu} {o.option.value} from month {o.available_from}")
        if o.max_units is None:
            continue
        if _at_cap(built, o, H):
            capped[(o.gpu, o.option)] += o.max_units
    parts = [
        f"{gpu} {option.value} offers are capped at {cap:,} GPU{'' if cap == 1 else 's'}"
        + ("" if option in (OfferOption.BUY, OfferOption.RESERVED) else " at any moment")
        for (gpu, option), cap in capped.items()
    ]
    if late:
        parts.append("available only " + ", ".join(late))
    held = _months_with_variables(built, w)
    empty = [t for t in months if t not in held]
    if empty:
        unit = "replica" if w.kind is Kind.REALTIME_INFERENCE else "gang"
        when = "in its months" if not held else f"in {months_text(empty)}"
        parts.append(
            f"no place of its GPU types can hold one whole {unit} {when} "
            "(each is smaller, not there then, or on spot too slow for its deadline)"
        )
    return (" because " + " and ".join(parts)) if parts else ""


def _months_with_variables(built: BuiltModel, w: Workload) -> set[int]:
    """Months in which the model has some work or replica of ``w`` (a place holds one unit)."""
    months = {
        t for (name, _g), items in built.work_of.items() if name == w.name for _p, t, _v in items
    }
    return months | {int(str(key[4])) for key in built.replicas if key[0] == w.name}


def _at_cap(built: BuiltModel, o: Offer, H: float) -> bool:
    cap = float(o.max_units or 0)
    tol = 1e-6 * max(1.0, cap)
    if o.option is OfferOption.BUY:
        total = sum(_value(v) for (oid, _t), v in built.buy.items() if oid == o.offer_id)
        return total >= cap - tol
    if o.option is OfferOption.RESERVED:
        return (
            any(
                sum(_value(v) for v, _c in built.active_terms(o, t)) >= cap - tol
                for t in built.scenario.months
            )
            if cap > 0
            else True
        )
    return (
        any(
            _value(v) >= cap * H - tol * H
            for (oid, _t), v in built.rent.items()
            if oid == o.offer_id
        )
        if cap > 0
        else True
    )
