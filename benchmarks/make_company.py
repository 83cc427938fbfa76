"""Write ``benchmarks/company.xlsx``: a company-sized 36-month workbook (issue 30's targets).

Run: ``.venv/bin/python benchmarks/make_company.py``. The bundled example's
catalogue and prices (the domain brief's figures) with what a company's
workbook has on top: 7 GPU types, 22 offers (caps on purchases and spot,
12-month reservations of H200 and L40S besides H100's and A100's), 8
workloads (two new: a 70B chat service from month 7 growing 3 % a month, a
34B fine-tune in months 14-20; chat-8b grows 2 % a month), and an existing
fleet (8 owned A100s, a year old; 8 reserved H100s with 10 months left).
One scenario, 36 months, electricity $0.15/kWh. ``gpumix validate`` accepts it.
"""

from __future__ import annotations

import sys
from copy import deepcopy
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from optimizer.inputs.example_data import EXAMPLE_ROWS  # noqa: E402
from optimizer.inputs.template import Rows, write_template  # noqa: E402

HERE = Path(__file__).resolve().parent
COMPANY = HERE / "company.xlsx"
DERIVED = "derived from the domain brief's discounts, 2026"


def company_rows() -> Rows:
    rows = {sheet: [dict(r) for r in found] for sheet, found in deepcopy(EXAMPLE_ROWS).items()}
    for offer in rows["Prices"]:
        if (offer["gpu"], offer["option"]) == ("H100", "buy"):
            offer["max_units"] = 32
        if (offer["gpu"], offer["option"]) == ("A100 80GB", "spot"):
            offer["max_units"] = 16
    rows["Prices"] += [
        {
            "gpu": "H200",
            "option": "reserved",
            "price": 2.66,
            "term_months": 12,
            "max_units": 16,
            "provider": "marketplace",
            "source": DERIVED,
        },
        {
            "gpu": "L40S",
            "option": "reserved",
            "price": 1.05,
            "term_months": 12,
            "provider": "marketplace",
            "source": DERIVED,
        },
        {
            "gpu": "L40S",
            "option": "spot",
            "price": 0.6,
            "max_units": 24,
            "provider": "marketplace",
            "source": DERIVED,
        },
    ]
    for workload in rows["Workloads"]:
        if workload["workload"] == "chat-8b":
            workload["growth_per_month"] = 0.02
    rows["Workloads"] += [
        {
            "workload": "chat-70b",
            "kind": "realtime_inference",
            "params_b": 70,
            "precision": "bf16",
            "tokens_per_second": 600,
            "latency_ms": 100,
            "prompt_tokens": 1024,
            "output_tokens": 256,
            "layers": 80,
            "hidden_size": 8192,
            "heads": 64,
            "kv_heads": 8,
            "head_dim": 128,
            "start_month": 7,
            "growth_per_month": 0.03,
        },
        {
            "workload": "ft-34b",
            "kind": "fine_tuning",
            "params_b": 34,
            "precision": "bf16",
            "tokens": 5_000_000_000,
            "start_month": 14,
            "end_month": 20,
        },
    ]
    rows["Fleet"] = [
        {"gpu": "A100 80GB", "count": 8, "kind": "owned", "price": 15000, "age_months": 12},
        {"gpu": "H100", "count": 8, "kind": "reserved", "price": 2.2, "months_left": 10},
    ]
    rows["Scenarios"] = [
        {"scenario": "company", "horizon_months": 36, "electricity_per_kwh": 0.15},
    ]
    return rows


def main() -> int:
    write_template(COMPANY, company_rows())
    print(f"wrote {COMPANY}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
