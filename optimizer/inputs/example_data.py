"""The bundled example's rows, as plain data.

``workbooks/make_workbooks.py`` writes them with
:func:`optimizer.inputs.template.write_template` into ``workbooks/example.xlsx``.
Figures come from the GPU buying guide (a 2026 article, German,
``shared/domain/000_46be721448ad83fa.txt``) and from the domain brief's
datasheet figures and discount ranges; each price row names its source.

The example is kept small on purpose (7 GPU types, 19 offers, 5 workloads,
36 months) so that every scenario solves in a second or two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Row = Mapping[str, object]

GUIDE = "GPU buying guide (cost per TFLOP), 2026"
RESERVED_SOURCE = (
    "derived from the domain brief's reserved discounts (1 year 17–41 %, 3 years 38–65 % off "
    "on-demand), 2026"
)
SPOT_SOURCE = (
    "derived from the domain brief's spot discounts (60–90 % off on-demand), 2026: 60 % off"
)

# VRAM and FP16 TFLOPS are the guide's; memory bandwidth and the L4's TDP and
# TFLOPS (the guide gives none) are datasheet figures from the domain brief.
# mfu_training per type, each with its source (model v2 §G): 0.40 for
# H100/H200/B200 (Llama 3 on 16K H100s: 38–43 %, Dubey et al. 2024 §3.3.4;
# MosaicML H100: 36–46 %), 0.50 for A100 (MosaicML A100: 45–64 %; six of
# the seven LLaMA and Llama 2 A100 runs land within 11 % of it), 0.35 for the
# PCIe cards (the domain brief's default; no published whole-job figure).
# fp8: the Hopper, Blackwell and Ada types compute in FP8, the A100 does not.
GPUS: tuple[Row, ...] = (
    {
        "gpu": "B200",
        "vram_gb": 192,
        "fp16_tflops": 2500,
        "memory_bandwidth_gbs": 8000,
        "tdp_w": 1000,
        "nvlink": True,
        "max_per_node": 8,
        "mfu_training": 0.40,
        "fp8": True,
    },
    {
        "gpu": "H200",
        "vram_gb": 141,
        "fp16_tflops": 1000,
        "memory_bandwidth_gbs": 4800,
        "tdp_w": 700,
        "nvlink": True,
        "max_per_node": 8,
        "mfu_training": 0.40,
        "fp8": True,
    },
    {
        "gpu": "H100",
        "vram_gb": 80,
        "fp16_tflops": 1000,
        "memory_bandwidth_gbs": 3350,
        "tdp_w": 700,
        "nvlink": True,
        "max_per_node": 8,
        "mfu_training": 0.40,
        "fp8": True,
    },
    {
        "gpu": "A100 80GB",
        "vram_gb": 80,
        "fp16_tflops": 312,
        "memory_bandwidth_gbs": 2039,
        "tdp_w": 300,
        "nvlink": True,
        "max_per_node": 8,
        "mfu_training": 0.50,
        "fp8": False,
    },
    {
        "gpu": "L40S",
        "vram_gb": 48,
        "fp16_tflops": 366,
        "memory_bandwidth_gbs": 864,
        "tdp_w": 350,
        "nvlink": False,
        "max_per_node": 8,
        "mfu_training": 0.35,
        "fp8": True,
    },
    {
        "gpu": "RTX 4090",
        "vram_gb": 24,
        "fp16_tflops": 330,
        "memory_bandwidth_gbs": 1008,
        "tdp_w": 450,
        "nvlink": False,
        "max_per_node": 8,
        "mfu_training": 0.35,
        "fp8": True,
    },
    {
        "gpu": "L4",
        "vram_gb": 24,
        "fp16_tflops": 121,
        "memory_bandwidth_gbs": 300,
        "tdp_w": 72,
        "nvlink": False,
        "max_per_node": 8,
        "mfu_training": 0.35,
        "fp8": True,
    },
)


def _on_demand(gpu: str, price: float, note: str = "") -> Row:
    return {
        "gpu": gpu,
        "option": "on_demand",
        "price": price,
        "provider": "marketplace",
        "source": GUIDE + note,
    }


def _buy(gpu: str, price: float, note: str = "", **extra: object) -> Row:
    return {
        "gpu": gpu,
        "option": "buy",
        "price": price,
        "provider": "vendor",
        "source": GUIDE + note,
        **extra,
    }


PRICES: tuple[Row, ...] = (
    _on_demand("B200", 4.70),
    _on_demand("H200", 3.80),
    _on_demand("H100", 3.15),
    _on_demand("A100 80GB", 0.72),
    _on_demand("L40S", 1.50),
    _on_demand("RTX 4090", 0.60),
    _on_demand("L4", 0.60, ": 0.30–1.00 $/h, a mid value"),
    # The guide: B200 supply stays limited until 2027, so the buy offer opens
    # in month 4 and is capped at two 8-GPU servers.
    _buy(
        "B200",
        47_500,
        ": 45,000–50,000 $, mid-range; supply limited until 2027",
        available_from=4,
        max_units=16,
    ),
    _buy("H200", 35_000, ": 30,000–40,000 $, mid-range"),
    _buy("H100", 25_000),
    _buy("A100 80GB", 15_000, ": used"),
    _buy("L40S", 8_000),
    _buy("RTX 4090", 1_600),
    # Reserved: 30 % off for 12 months, 50 % off for 36 months (the brief's ranges).
    {
        "gpu": "H100",
        "option": "reserved",
        "price": 2.20,
        "term_months": 12,
        "provider": "marketplace",
        "source": RESERVED_SOURCE + ": 30 % off",
    },
    {
        "gpu": "H100",
        "option": "reserved",
        "price": 1.58,
        "term_months": 36,
        "provider": "marketplace",
        "source": RESERVED_SOURCE + ": 50 % off",
    },
    {
        "gpu": "A100 80GB",
        "option": "reserved",
        "price": 0.50,
        "term_months": 12,
        "provider": "marketplace",
        "source": RESERVED_SOURCE + ": 30 % off",
    },
    {
        "gpu": "H100",
        "option": "spot",
        "price": 1.26,
        "provider": "marketplace",
        "source": SPOT_SOURCE,
    },
    {
        "gpu": "A100 80GB",
        "option": "spot",
        "price": 0.29,
        "provider": "marketplace",
        "source": SPOT_SOURCE,
    },
    {
        "gpu": "RTX 4090",
        "option": "spot",
        "price": 0.24,
        "provider": "marketplace",
        "source": SPOT_SOURCE,
    },
)

# The guide's cases. pretrain-70b: 6 × 70e9 × 200e9 ≈ 8.4e22 FLOPs, about
# 65,000 H100-hours before scaling losses: a real job for ~20 GPUs over the
# nine-month window, not an absurd one.
WORKLOADS: tuple[Row, ...] = (
    {
        "workload": "lora-7b",
        "kind": "lora",
        "params_b": 7,
        "precision": "bf16",
        "tokens": 100_000_000,
        "start_month": 1,
        "end_month": 3,
    },
    {
        "workload": "ft-13b",
        "kind": "fine_tuning",
        "params_b": 13,
        "precision": "bf16",
        "tokens": 2_000_000_000,
        "start_month": 3,
        "end_month": 6,
    },
    {
        "workload": "pretrain-70b",
        "kind": "pretraining",
        "params_b": 70,
        "precision": "bf16",
        "tokens": 200_000_000_000,
        "start_month": 4,
        "end_month": 12,
    },
    # 100 B tokens a month (≈ 38,000 tokens/s on average): enough steady work
    # that owning cheap cards pays, the guide's "> 500 hours a month" rule.
    {
        "workload": "batch-13b",
        "kind": "batch_inference",
        "params_b": 13,
        "precision": "bf16",
        "tokens": 100_000_000_000,
        "interruptible": True,
    },
    {
        "workload": "chat-8b",
        "kind": "realtime_inference",
        "params_b": 8,
        "precision": "bf16",
        "tokens_per_second": 1_500,
        "latency_ms": 50,
        # A typical chat request (the defaults, written out); the architecture is
        # Llama-3-8B's (its config.json), so the KV cache is computed, not assumed.
        "prompt_tokens": 1024,
        "output_tokens": 128,
        "layers": 32,
        "hidden_size": 4096,
        "heads": 32,
        "kv_heads": 8,
        "head_dim": 128,
        # Two replicas at least: serving stays up when one fails.
        "min_replicas": 2,
    },
    # A weekly adapter refresh (about 4.3 runs a month, 100 M tokens each) that
    # must finish overnight: a run longer than 4 hours on one GPU needs several
    # copies at once (model v2 §C).
    {
        "workload": "weekly-lora",
        "kind": "lora",
        "params_b": 7,
        "precision": "bf16",
        "tokens": 100_000_000,
        "runs_per_month": 4.3,
        "deadline_hours": 4,
    },
)

# The guide's 10-hour 7B LoRA run on an RTX 4090, as a measured figure.
THROUGHPUT: tuple[Row, ...] = ({"workload": "lora-7b", "gpu": "RTX 4090", "gpu_hours": 10},)

# electricity_per_kwh is an Assumptions key used as a Scenarios column: the
# guide's "much of Europe > 0.25 $/kWh". At the guide's prices renting wins
# for most of the work and the baseline buys about $14,000 of RTX 4090s for
# batch-13b, so the capex cap is set below that to bind.
SCENARIOS: tuple[Row, ...] = (
    {"scenario": "us-baseline", "horizon_months": 36},
    {"scenario": "europe", "horizon_months": 36, "electricity_per_kwh": 0.25},
    {"scenario": "tight-capex", "horizon_months": 36, "budget_capex": 10_000},
)

EXAMPLE_ROWS: Mapping[str, Sequence[Row]] = {
    "GPUs": GPUS,
    "Prices": PRICES,
    "Workloads": WORKLOADS,
    "Throughput": THROUGHPUT,
    "Scenarios": SCENARIOS,
}
