"""A scenario's ``Options`` sheet: every workload × GPU pair the estimator looked at.

Takes one :class:`Plan` (its options, assignments and scenario offers) and
hands on a :class:`SheetModel` with each pair's fit, estimates, what was
estimated or assumed, and, for the allowed ones, the cost of a unit of work at
the cheapest hourly offer. A
realtime pair gets one row per serving width (model v2 §D), each with its
own capacity, latency and reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from optimizer.check.demand import gang_of
from optimizer.domain import Kind, Offer, OfferOption, Scenario
from optimizer.estimate.gangs import whole_ceiling
from optimizer.reports.result_shared import OPTION_GPU_HOURS, option_gpu_hours, width_allowed
from optimizer.reports.sheet_grid import SheetModel, Style, Table, a1, finite_or_none
from optimizer.results import PairEstimate, Plan


@dataclass(frozen=True)
class _UnitCost:
    offer: Offer
    formula: str
    value: float
    unit: str


def cheapest_hourly_offer(
    scenario: Scenario, gpu: str, spot_ok: bool, gang_width: int = 1
) -> Offer | None:
    """The on-demand or reserved offer (spot too when the work may be interrupted)
    that can hold ``gang_width`` GPUs at once and costs least per useful hour.

    Only offers the plan could take: available within the horizon, a reservation
    whose whole term fits in it (model.md, Reservations), and, as a gang runs
    wholly in one place (model v2 §A, §C), an uncapped offer or one whose
    ``max_units`` reaches the gang (a realtime replica: its width). A paid spot
    hour yields :func:`spot_hour_yield` useful hours.
    """
    allowed = {OfferOption.ON_DEMAND, OfferOption.RESERVED} | (
        {OfferOption.SPOT} if spot_ok else set()
    )
    T = scenario.horizon_months
    offers = [
        o
        for o in scenario.offers
        if o.gpu == gpu
        and o.option in allowed
        and o.available_from + (o.term_months or 1) - 1 <= T
        and (o.max_units is None or o.max_units >= gang_width)
    ]
    spot = spot_hour_yield(scenario, gpu, gang_width)[0]
    return min(
        offers,
        key=lambda o: o.price / (spot if o.option is OfferOption.SPOT else 1.0),
        default=None,
    )


def spot_hour_yield(scenario: Scenario, gpu: str, gang_width: int) -> tuple[float, int]:
    """Useful hours a paid spot hour of a gang yields, and the servers it spans:
    ``spot_efficiency ^ ceil(gang_width / max_per_node)`` (model v2 §C)."""
    servers = whole_ceiling(gang_width / scenario.gpu(gpu).max_per_node)
    return scenario.assumptions.spot_efficiency**servers, servers


def catalogue_notes(scenario: Scenario) -> list[str]:
    """The blank GPUs cells the GPU catalogue filled (issue 31): a heading, then one short line
    per GPU type and source, so that the notes stay within the printed page."""
    lines: dict[tuple[str, str, str], list[str]] = {}
    for f in scenario.catalogue_figures:
        shown = ("TRUE" if f.value else "FALSE") if isinstance(f.value, bool) else f"{f.value:g}"
        lines.setdefault((f.gpu, f.entry, f.source), []).append(f"{shown} {f.column}")
    if not lines:
        return []
    return [
        "Blank cells of sheet GPUs filled from the GPU catalogue (the Audit's catalogue table "
        "says how each figure was read):",
        *(
            f"  {gpu} (catalogue: {entry}): {', '.join(figures)} [{source}]"
            for (gpu, entry, source), figures in lines.items()
        ),
    ]


def _offer_label(offer: Offer) -> str:
    """``reserved, 12 months (Cloud A)``: option, term, provider (or the offer id)."""
    term = f", {offer.term_months} months" if offer.option is OfferOption.RESERVED else ""
    return f"{offer.option.value}{term} ({offer.provider or offer.offer_id})"


def _unit_cost(
    plan: Plan,
    row: int,
    pair: PairEstimate,
    gph: float | None,
    tps: float | None,
    k: int | None,
) -> _UnitCost | None:
    """Cost of one unit of work at the cheapest hourly offer that can hold the gang (a
    realtime replica), as a live formula on this row.

    ``gph`` is the row's GPU-hours (a month's for batch and recurring runs); a
    paid spot hour yields ``spot_efficiency ^ ceil(gang width / max_per_node)``
    hours of work (model v2 §C).
    """
    currency = plan.currency
    w = next((w for w in plan.scenario.workloads if w.name == pair.workload), None)
    if w is None:
        return None
    price_cell = a1(row, 10)
    if w.kind is Kind.REALTIME_INFERENCE:
        if not tps or not k or finite_or_none(tps) is None:
            return None
        offer = cheapest_hourly_offer(plan.scenario, pair.gpu, False, k)
        if offer is None:
            return None
        return _UnitCost(
            offer,
            f"={a1(row, 5)}*{price_cell}/({a1(row, 7)}*3600)*1000000",
            k * offer.price / (tps * 3600) * 1e6,
            f"{currency} per million tokens",
        )
    gang = gang_of(w, pair)
    if gph is None or finite_or_none(gph) is None or gang is None:
        return None
    offer = cheapest_hourly_offer(plan.scenario, pair.gpu, w.interruptible, gang.width)
    if offer is None:
        return None
    unit = f"{currency} per job" if w.one_off_training else f"{currency} per month"
    if offer.option is OfferOption.SPOT:
        eff = plan.scenario.assumptions.spot_efficiency
        useful, servers = spot_hour_yield(plan.scenario, pair.gpu, gang.width)
        return _UnitCost(
            offer,
            f"={a1(row, 6)}/{eff!r}^{servers}*{price_cell}",
            gph / useful * offer.price,
            unit,
        )
    return _UnitCost(offer, f"={a1(row, 6)}*{price_cell}", gph * offer.price, unit)


@dataclass(frozen=True)
class _OptionLine:
    """One row of the sheet: a pair, or one serving width of a realtime pair."""

    pair: PairEstimate
    allowed: bool
    reason: str
    gpus_per_replica: int | None
    tokens_per_second: float | None
    latency_ms: float | None
    width: int | None  # the serving width this row is about (None: the whole pair)


def option_lines(plan: Plan) -> list[_OptionLine]:
    """Every pair, a realtime pair with widths as one line per serving width (model v2 §D)."""
    lines = []
    for o in plan.options:
        if not o.widths:
            lines.append(
                _OptionLine(
                    o,
                    o.allowed,
                    o.reason,
                    o.gpus_per_replica,
                    o.tokens_per_second_per_replica,
                    o.latency_ms,
                    None,
                )
            )
            continue
        for w in o.widths:
            allowed, reason = width_allowed(o, w)
            lines.append(
                _OptionLine(
                    o,
                    allowed,
                    reason,
                    w.width,
                    w.tokens_per_second_per_replica,
                    w.latency_ms,
                    w.width,
                )
            )
    return lines


def _is_chosen(
    line: _OptionLine, chosen: set[tuple[str, str]], served: set[tuple[str, str, int]]
) -> bool:
    """Whether the plan runs this pair (a realtime line: at this serving width)."""
    o = line.pair
    if line.width is not None:
        return (o.workload, o.gpu, line.width) in served
    return (o.workload, o.gpu) in chosen


def _options_sheet(plan: Plan, name: str, index: int) -> SheetModel:
    currency = plan.currency
    sheet = SheetModel(name, freeze=(1, 2), pages_wide=2)  # 16 columns: two pages stay legible
    sheet.header(
        0,
        0,
        [
            "Workload",
            "GPU",
            "Allowed",
            "Why not",
            "Memory need (GB)",
            "GPUs per replica (realtime: the serving width)",
            OPTION_GPU_HOURS,
            "Tokens/s per replica",
            "Batch-1 latency (ms per token)",
            "Source",
            f"Hourly price ({currency} per GPU-hour; the offer least per useful hour)",
            "Offer least per useful hour",
            f"Cost per unit of work ({currency})",
            "Unit of work",
            "Chosen",
            "Estimated figures and assumed values",
        ],
    )
    if not plan.options:
        sheet.text(1, 0, "No workload × GPU pair was estimated.", Style.NOTE)
        return sheet
    chosen = {(a.workload, a.gpu) for a in plan.assignments if a.gpu_hours > 0}
    served = {
        (a.workload, a.gpu, a.width) for a in plan.assignments if a.replicas and a.gpu_hours > 0
    }
    # The pairs the plan uses come first; the rest are folded away under "+"
    # (kept in the table, not printed), so a workbook with 50 workloads stays readable.
    lines = sorted(option_lines(plan), key=lambda line: not _is_chosen(line, chosen, served))
    used = sum(1 for line in lines if _is_chosen(line, chosen, served))
    if 0 < used < len(lines):
        sheet.folded_rows = [(used + 1, len(lines))]
    for i, line in enumerate(lines):
        r = i + 1
        o = line.pair
        sheet.text(r, 0, o.workload)
        sheet.text(r, 1, o.gpu)
        sheet.text(r, 2, "yes" if line.allowed else "no")
        sheet.text(r, 3, line.reason, Style.WRAP)
        sheet.number(r, 4, o.memory_gb, Style.NUMBER)
        sheet.number(r, 5, line.gpus_per_replica, Style.INTEGER)
        hours = option_gpu_hours(plan.scenario, o)
        sheet.number(r, 6, hours, Style.HOURS)
        sheet.number(r, 7, line.tokens_per_second, Style.NUMBER)
        sheet.number(r, 8, line.latency_ms, Style.NUMBER)
        sheet.text(r, 9, o.source.value)
        unit_cost = (
            _unit_cost(plan, r, o, hours, line.tokens_per_second, line.gpus_per_replica)
            if line.allowed
            else None
        )
        if unit_cost is not None:
            sheet.number(r, 10, unit_cost.offer.price, Style.MONEY)
            sheet.text(r, 11, _offer_label(unit_cost.offer))
            sheet.formula(r, 12, unit_cost.formula, unit_cost.value, Style.MONEY_FORMULA)
            sheet.text(r, 13, unit_cost.unit)
        if _is_chosen(line, chosen, served):
            sheet.text(r, 14, "✔", Style.MARK)
        sheet.text(r, 15, o.basis, Style.WRAP)
    sheet.tables.append(Table(f"Options_{index}", 0, 0, len(lines), 15))
    for i, note in enumerate(
        (
            "Cost per unit of work = GPU-hours (realtime: GPUs per replica ÷ tokens/s) × the "
            "hourly price of the offer, among those that can hold the gang at once (a realtime "
            "replica: its GPUs; a capped offer holds up to its max_units), that costs least "
            "per useful hour. GPU-hours: a "
            "one-off training job's whole job, a month's work (runs_per_month runs) for batch "
            "and recurring runs, at the base month's demand.",
            "A reserved price assumes its whole term is used; a paid spot hour yields "
            "spot_efficiency ^ ceil(gang GPUs ÷ max_per_node) hours of work. ✔ = the plan runs "
            "the workload on that GPU (realtime: at that serving width).",
            "Realtime: one row per serving width (GPUs per replica) looked at, each with its "
            "own capacity and latency; a width is out when it misses the latency target, "
            "cannot hold the model, or serves no more than narrower replicas on as many GPUs.",
            "The last column says which figures were estimated (not measured or given) and "
            "which architecture values the estimate assumed (docs/methodology.md §1).",
            *catalogue_notes(plan.scenario),
            *(
                (
                    f"The {used} pairs the plan uses come first; the other {len(lines) - used} "
                    "are folded away: click + at the left of the row below the table (or "
                    "Data › Show detail) to show them.",
                )
                if sheet.folded_rows
                else ()
            ),
        )
    ):
        sheet.text(len(lines) + 2 + i, 0, note, Style.NOTE)
    sheet.widths[3] = 48
    sheet.widths[15] = 60
    return sheet
