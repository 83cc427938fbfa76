"""Plans built by hand, with numbers that agree with each other, for writer tests.

The writers must not depend on the solver, so their tests start from these.
Every amount is chosen with cents (and a third of a dollar in the residual
credit) so that a writer that rounds, drops a category or mixes up months
shows up in a comparison to the cent.

The base plan (model v2): 3 months, 730 h a month. Two H100 are bought in
month 1 at $25,000.00 and hold two 1-GPU replicas of a realtime chat all
month (both pinned: the house is full, 100 % used); a LoRA job whose copy
needs 2 L40S runs in a 2-GPU slot of an on-demand L40S offer capped at 4
GPUs at once, in months 1 and 2.
"""

from __future__ import annotations

from dataclasses import replace

from optimizer.domain import Assumptions, CostCategory, Scenario
from optimizer.results import (
    AssignmentRow,
    CashFlowMonth,
    Decisions,
    EstimateSource,
    FleetRow,
    OfferUse,
    PairEstimate,
    PlaceRow,
    Plan,
    RunResult,
    ServingWidth,
    ShadowPrice,
    SolverInfo,
    SolverSettings,
    SolveStatus,
)
from tests.builders import gpu, offer, scenario, workload

C = CostCategory
HOURS = 730.0
BUY_PRICE = 25_000.00
OD_PRICE = 1.55  # L40S on demand, USD per GPU-hour
OD_HOURS = (100.5, 200.25, 0.0)
OD_CAP = 4  # the L40S on-demand offer's max_units: a finite place of 4 GPUs
CHAT_DEMAND = 1_000.0  # tokens/s
CHAT_TPS = 2_345.6789  # tokens/s of one 1-GPU H100 replica
CHAT_REPLICAS = 2
CHAT_LOAD = CHAT_DEMAND / (CHAT_REPLICAS * CHAT_TPS)
LORA_WIDTH = 2  # L40S GPUs one copy of the LoRA job needs
ENERGY = (1_194.37, 1_199.11, 1_180.02)
MAINTENANCE = (208.33, 208.33, 208.34)
# Book value of 2 × $25,000 after 3 of 36 months: 50,000 × 33/36.
RESIDUAL = 50_000.0 * 33.0 / 36.0


def fake_scenario(
    name: str = "base",
    *,
    chat: str = "chat-8b",
    source: str = "vendor quote 2026-11",
    provider: str = "Acme Cloud",
) -> Scenario:
    return scenario(
        [gpu("H100"), gpu("L40S", vram_gb=48.0, fp16_tflops=362.0, nvlink=False, tdp_w=350.0)],
        [
            offer("H100", "buy", BUY_PRICE, source=source, provider=provider),
            offer("H100", "on_demand", 3.15, source="guide 2025"),
            offer(
                "L40S",
                "on_demand",
                OD_PRICE,
                source="guide 2025",
                provider=provider,
                max_units=OD_CAP,
            ),
        ],
        [
            workload(
                chat,
                "realtime_inference",
                params_b=8.0,
                tokens_per_second=CHAT_DEMAND,
                min_replicas=CHAT_REPLICAS,
            ),
            workload("lora-7b", "lora", params_b=7.0, tokens=1e9),
        ],
        # Book value: RESIDUAL below is 33/36 of the price (v1's rule, kept as ``book``).
        assumptions=Assumptions(maintenance_per_year=0.05, residual_value="book"),
        name=name,
        horizon_months=3,
        assumption_sources={"electricity_per_kwh": "Assumptions sheet: utility bill 2026"},
    )


def _cash_flow() -> tuple[CashFlowMonth, ...]:
    months = []
    for i in range(3):
        months.append(
            CashFlowMonth(
                month=i + 1,
                amounts={
                    C.PURCHASE: 2 * BUY_PRICE if i == 0 else 0.0,
                    C.ENERGY: ENERGY[i],
                    C.MAINTENANCE: MAINTENANCE[i],
                    C.ON_DEMAND: round(OD_HOURS[i] * OD_PRICE, 10),
                    C.SPOT: 0.0,
                    C.RESERVED: 0.0,
                    C.NODE: 0.0,
                    C.COLOCATION: 0.0,
                    C.SALES: 0.0,
                },
            )
        )
    return tuple(months)


def fake_plan(
    name: str = "base",
    *,
    chat: str = "chat-8b",
    source: str = "vendor quote 2026-11",
    provider: str = "Acme Cloud",
    scale: float = 1.0,
) -> Plan:
    """A consistent optimal plan; ``scale`` multiplies rented hours (for a second scenario)."""
    sc = fake_scenario(name, chat=chat, source=source, provider=provider)
    od_hours = tuple(h * scale for h in OD_HOURS)
    flow = _cash_flow()
    if scale != 1.0:
        flow = tuple(
            CashFlowMonth(m.month, {**m.amounts, C.ON_DEMAND: od_hours[m.month - 1] * OD_PRICE})
            for m in flow
        )
    costs = {c: sum(m.amounts[c] for m in flow) for c in C}
    cash_out = sum(m.total for m in flow)
    used = CHAT_REPLICAS * HOURS  # pinned replicas hold their GPUs all month
    lora_months = [m for m in (1, 2, 3) if od_hours[m - 1] > 0]
    lora_offer = "L40S|on_demand|1"
    fleet = tuple(
        [
            FleetRow("H100", m, 2 if m == 1 else 0, 2, 0, 0.0, 0.0, used / (2 * HOURS))
            for m in (1, 2, 3)
        ]
        + [FleetRow("L40S", m, 0, 0, 0, od_hours[m - 1], 0.0, None) for m in (1, 2, 3)]
    )
    places = tuple(
        [PlaceRow("H100", m, "house", None, 2, CHAT_REPLICAS, 0, {}) for m in (1, 2, 3)]
        + [
            PlaceRow("L40S", m, "on_demand", provider, OD_CAP, 0, OD_CAP, {LORA_WIDTH: 1})
            for m in lora_months
        ]
    )
    decisions = Decisions(
        purchases={("H100|buy|1", 1): 2},
        replicas={(chat, "H100", "house", 1, m): CHAT_REPLICAS for m in (1, 2, 3)},
        work={("lora-7b", "L40S", lora_offer, m): od_hours[m - 1] for m in lora_months},
        slots={("L40S", lora_offer, LORA_WIDTH, m): 1 for m in lora_months},
        picks={"lora-7b": "L40S"},
    )
    # Cost shares carry a purchase net of its credited book value, spread over
    # the months it is owned (methodology 2.5), as the solver computes them.
    net_purchase = sum(m.amounts[C.PURCHASE] for m in flow) - RESIDUAL
    owned_month = [net_purchase / 3 + ENERGY[i] + MAINTENANCE[i] for i in range(3)]
    assignments = tuple(
        [
            AssignmentRow(
                chat,
                "H100",
                m,
                1,
                CHAT_REPLICAS,
                used,
                owned_month[m - 1],
                tokens=CHAT_DEMAND * 3600 * HOURS,
                place="house",
                offer=None,
                copy_width=1,
                width=1,
                load=CHAT_LOAD,
            )
            for m in (1, 2, 3)
        ]
        + [
            AssignmentRow(
                "lora-7b",
                "L40S",
                m,
                LORA_WIDTH,
                None,
                od_hours[m - 1],
                od_hours[m - 1] * OD_PRICE,
                place="on_demand",
                offer=provider,
                copy_width=LORA_WIDTH,
                width=LORA_WIDTH,
            )
            for m in lora_months
        ]
    )
    l40s_latency = "needs 19.2 GB per replica at 8 ms; latency 12.5 ms > 10 ms"
    options = (
        PairEstimate(
            chat,
            "H100",
            True,
            "",
            19.2,
            1,
            None,
            CHAT_TPS,
            6.25,
            EstimateSource.ESTIMATED,
            widths=(
                ServingWidth(1, True, "", CHAT_TPS, 6.25),
                ServingWidth(
                    2,
                    False,
                    "2 × H100 serves 4,400 tokens/s, no more than 2 replicas of 1 × H100 (4,691)",
                    4_400.0,
                    3.4,
                ),
            ),
        ),
        PairEstimate(
            chat,
            "L40S",
            False,
            l40s_latency,
            19.2,
            2,
            None,
            900.5,
            12.5,
            EstimateSource.ESTIMATED,
            widths=(
                ServingWidth(
                    1,
                    False,
                    "batch-1 decode takes 20.5 ms per token on 1 × L40S, above the 10 ms target",
                    480.25,
                    20.5,
                ),
                ServingWidth(2, False, l40s_latency, 900.5, 12.5),
            ),
        ),
        PairEstimate(
            "lora-7b", "H100", True, "", 60.0, 1, 120.5, None, None, EstimateSource.MEASURED
        ),
        PairEstimate(
            "lora-7b",
            "L40S",
            True,
            "",
            60.0,
            LORA_WIDTH,
            sum(od_hours),
            None,
            None,
            EstimateSource.ESTIMATED,
        ),
    )
    return Plan(
        scenario=sc,
        status=SolveStatus.OPTIMAL,
        gap=0.0,
        total_cost=cash_out - RESIDUAL,
        cash_out=cash_out,
        residual_credit=RESIDUAL,
        costs=costs,
        cash_flow=flow,
        fleet=fleet,
        places=places,
        assignments=assignments,
        options=options,
        diagnostics=("budget_monthly is not set: no monthly limit",),
        decisions=decisions,
        solver=SolverInfo(
            name="HiGHS",
            version="1.16.0",
            seconds=0.42,
            build_seconds=0.05,
            variables=120,
            constraints=80,
            integers=12,
        ),
        offer_use=(
            OfferUse("H100|buy|1", "H100", sc.offers[0].option, BUY_PRICE, 2, 2 * BUY_PRICE),
            OfferUse(
                "L40S|on_demand|1",
                "L40S",
                sc.offers[2].option,
                OD_PRICE,
                sum(od_hours),
                sum(od_hours) * OD_PRICE,
            ),
        ),
        shadow_prices=(ShadowPrice("budget_capex", None, 0.1234, "USD of capex"),),
        residual_credit_discounted=RESIDUAL,
    )


def infeasible_plan(name: str = "tight") -> Plan:
    return Plan.without_plan(
        fake_scenario(name),
        SolveStatus.INFEASIBLE,
        (),
        ("budget_total 1,000 USD is below the cheapest plan",),
    )


def baseline_plans(plan: Plan) -> dict[str, Plan]:
    """Three baselines, each dearer than ``plan`` by a known amount (one has no plan)."""
    assert plan.total_cost is not None
    rent = replace(plan, total_cost=plan.total_cost + 12_345.67)
    only_h100 = replace(plan.scenario, gpus=plan.scenario.gpus[:1])
    single = replace(plan, scenario=only_h100, total_cost=plan.total_cost + 1_000.01)
    buy = replace(infeasible_plan(plan.name))
    return {"rent only": rent, "buy only": buy, "best single GPU type": single}


def fake_run(*plans: Plan, with_baselines: bool = True) -> RunResult:
    plans = plans or (fake_plan(),)
    return RunResult(
        plans=tuple(plans),
        input_files=(),
        started_at="2026-12-02T16:00:00Z",
        gpumix_version="0.1.0",
        settings=SolverSettings(),
        baselines={p.name: baseline_plans(p) for p in plans if p.total_cost is not None}
        if with_baselines
        else {},
    )
