"""The Audit's input tables: every GPU, offer and workload as the solver saw them.

One function per table, each the title, table name, headers and rows the
Audit stacks (folded away: kept, not printed). A blank cell is a value left
blank in the inputs; the estimate's default or estimate applies, and each
pair's Options row says which values were assumed (model v2 §G).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from optimizer.domain import FleetKind, Kind, Offer, OfferOption, Workload
from optimizer.reports.sheet_grid import Style
from optimizer.results import Plan

Cells = Sequence[tuple[object, Style]]

# The Audit's cell styles, short. Text wraps inside set widths (T, W), so the
# printed blocks fit one page across.
T, W, N, INT, M, P, B = (
    Style.WRAP,
    Style.WRAP,
    Style.NUMBER,
    Style.INTEGER,
    Style.MONEY,
    Style.PERCENT,
    Style.BOOL,
)


@dataclass(frozen=True)
class InputTable:
    title: str
    name: str
    headers: Sequence[str]
    rows: Sequence[Cells]


def gpu_table(plans: Sequence[Plan]) -> InputTable:
    return InputTable(
        "GPUs",
        "Audit_gpus",
        [
            "Scenario",
            "GPU",
            "VRAM (GB)",
            "FP16 (TFLOPS)",
            "Memory bandwidth (GB/s)",
            "TDP (W)",
            "NVLink",
            "GPUs per server",
            "Training MFU (%)",
            "FP8 (computes in FP8)",
        ],
        [
            [
                (p.name, T),
                (g.name, T),
                (g.vram_gb, N),
                (g.fp16_tflops, N),
                (g.memory_bandwidth_gbs, N),
                (g.tdp_w, N),
                (g.nvlink, B),
                (g.max_per_node, INT),
                (g.mfu_training, P),
                (g.fp8, B),
            ]
            for p in plans
            for g in p.scenario.gpus
        ],
    )


def catalogue_table(plans: Sequence[Plan]) -> InputTable:
    """Every GPUs cell left blank and filled from the GPU catalogue, with its source (issue 31)."""
    return InputTable(
        "GPU figures from the catalogue (cells left blank in sheet GPUs)",
        "Audit_gpu_catalogue",
        ["Scenario", "GPU", "Catalogue entry", "Column", "Value", "Source (document, date; how)"],
        [
            [
                (p.name, T),
                (f.gpu, T),
                (f.entry, T),
                (f.column, T),
                (f.value, B if isinstance(f.value, bool) else N),
                (f.cited, W),
            ]
            for p in plans
            for f in p.scenario.catalogue_figures
        ],
    )


def _price_unit(offer: Offer, currency: str) -> str:
    return f"{currency} per GPU" if offer.option is OfferOption.BUY else f"{currency} per GPU-hour"


def offer_table(plans: Sequence[Plan], currency: str) -> InputTable:
    return InputTable(
        "Offers (after scenario overrides)",
        "Audit_offers",
        [
            "Scenario",
            "Offer",
            "GPU",
            "Option",
            f"Price ({currency})",
            "Price unit",
            "Term (months)",
            "Max units",
            "Available from (month)",
            "Provider",
            "Source",
            "Prices row",
        ],
        [
            [
                (p.name, T),
                (o.offer_id, T),
                (o.gpu, T),
                (o.option.value, T),
                (o.price, M),
                (_price_unit(o, currency), T),
                (o.term_months, INT),
                (o.max_units, INT),
                (o.available_from, INT),
                (o.provider, T),
                (o.source, W),
                (o.row or None, INT),
            ]
            for p in plans
            for o in p.scenario.offers
        ],
    )


# The model v2 §G columns, as the Workloads sheet names them: blank = estimated or default.
_ARCHITECTURE_HEADERS = (
    "Active parameters (billions; blank: all)",
    "Layers (blank: estimated)",
    "Hidden size (blank: estimated)",
    "Attention heads (blank: estimated)",
    "KV heads (blank: estimated)",
    "Head dim (blank: estimated)",
    "Training sequence (tokens; training kinds)",
    "Training state (bytes per parameter; blank: Assumptions)",
    "Prompt tokens (realtime; blank: 1,024)",
    "Output tokens (realtime; blank: 128)",
)


def _architecture(w: Workload) -> list[tuple[object, Style]]:
    realtime = w.kind is Kind.REALTIME_INFERENCE
    return [
        (w.active_params_b, N),
        (w.layers, INT),
        (w.hidden_size, INT),
        (w.heads, INT),
        (w.kv_heads, INT),
        (w.head_dim, INT),
        # seq_len has a default, so it is shown only where it is used.
        (w.seq_len if w.kind.is_training else None, INT),
        (w.training_state_bytes_per_param, N),
        (w.prompt_tokens if realtime else None, INT),
        (w.output_tokens if realtime else None, INT),
    ]


def fleet_table(plans: Sequence[Plan], currency: str) -> InputTable:
    """Sheet Fleet after scenario files (model v2 §E), with what a reservation still owes
    after the horizon; no rows when no scenario has a Fleet row."""
    return InputTable(
        "Existing fleet (sheet Fleet, after scenario files)",
        "Audit_fleet",
        [
            "Scenario",
            "Row",
            "Id in the plan",
            "GPU",
            "Kind",
            "GPUs",
            f"Price ({currency})",
            "Price unit",
            "Months left (reserved)",
            "Age at month 1 (owned)",
            f"Still owed after the horizon ({currency})",
        ],
        [
            [
                (p.name, T),
                (r.label, T),
                (r.source_id, T),
                (r.gpu, T),
                (r.kind.value, T),
                (r.count, INT),
                (r.price, M),
                (
                    f"{currency} per GPU-hour"
                    if r.kind is FleetKind.RESERVED
                    else f"{currency} per GPU",
                    T,
                ),
                (r.months_left, INT),
                (r.age_months if r.kind is FleetKind.OWNED else None, INT),
                (
                    r.owed_after(p.scenario.horizon_months, p.scenario.assumptions.hours_per_month),
                    M,
                ),
            ]
            for p in plans
            for r in p.scenario.fleet
        ],
    )


def workload_table(plans: Sequence[Plan]) -> InputTable:
    return InputTable(
        "Workloads",
        "Audit_workloads",
        [
            "Scenario",
            "Workload",
            "Kind",
            "Parameters (billions)",
            "Precision",
            "Tokens (training: job; batch: per month)",
            "Demand (tokens/s)",
            "Latency target (ms/token)",
            "Start month",
            "End month",
            "Interruptible",
            "Min replicas (realtime)",
            "Runs per month (blank: one job; batch: one run a month)",
            "Deadline (wall-clock hours per run)",
            *_ARCHITECTURE_HEADERS,
        ],
        [
            [
                (p.name, T),
                (w.name, T),
                (w.kind.value, T),
                (w.params_b, N),
                (w.precision.value, T),
                (w.tokens, INT),
                (w.tokens_per_second, N),
                (w.latency_ms, N),
                (w.start_month, INT),
                (w.end_month if w.end_month is not None else p.scenario.horizon_months, INT),
                (w.interruptible, B),
                (w.min_replicas if w.kind is Kind.REALTIME_INFERENCE else None, INT),
                (w.runs_per_month, N),
                (w.deadline_hours, N),
                *_architecture(w),
            ]
            for p in plans
            for w in p.scenario.workloads
        ],
    )
