"""How long reading and checking a big workbook takes: a 50,000-row Prices sheet.

Run: .venv/bin/python benchmarks/bench_read.py [ROWS]
Writes the workbook to a temporary folder (XlsxWriter, constant memory), then
times ``load_input`` (safety scan, calamine read, every check, resolution).
Target: under 2 s for 50,000 rows on the project machine. Prints wall and CPU
time: on a busy shared machine the wall time includes waiting for a core.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import xlsxwriter

from optimizer.inputs.load import load_input

GPUS = [f"GPU-{i}" for i in range(50)]
OPTIONS = ("on_demand", "spot", "reserved", "buy")


def write_big_workbook(path: Path, rows: int) -> None:
    book = xlsxwriter.Workbook(str(path), {"constant_memory": True})
    gpus = book.add_worksheet("GPUs")
    gpus.write_row(
        0,
        0,
        [
            "gpu",
            "vram_gb (GB)",
            "fp16_tflops (TFLOPS)",
            "memory_bandwidth_gbs (GB/s)",
            "tdp_w (W)",
            "nvlink",
        ],
    )
    for i, name in enumerate(GPUS, start=1):
        gpus.write_row(i, 0, [name, 80, 989, 3350, 700, True])
    prices = book.add_worksheet("Prices")
    prices.write_row(
        0,
        0,
        [
            "gpu",
            "option",
            "price (USD)",
            "term_months (months)",
            "max_units (GPUs)",
            "provider",
            "source",
        ],
    )
    for r in range(1, rows + 1):
        option = OPTIONS[r % len(OPTIONS)]
        price = 25000.0 + r if option == "buy" else 1.0 + (r % 300) / 100
        term = 12 if option == "reserved" else None
        prices.write_row(
            r,
            0,
            [GPUS[r % len(GPUS)], option, price, term, r % 64, f"provider {r % 17}", "benchmark"],
        )
    workloads = book.add_worksheet("Workloads")
    workloads.write_row(
        0, 0, ["workload", "kind", "params_b", "tokens", "tokens_per_second", "latency_ms"]
    )
    workloads.write_row(1, 0, ["lora-7b", "lora", 7, 1e9, None, None])
    workloads.write_row(2, 0, ["chat-8b", "realtime_inference", 8, None, 500, 50])
    book.close()


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.xlsx"
        started = time.perf_counter()
        write_big_workbook(path, rows)
        written = time.perf_counter() - started
        times, cpu = [], []
        for _ in range(3):
            started, started_cpu = time.perf_counter(), time.process_time()
            loaded = load_input(path)
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
        print(
            f"wrote {rows:,} Prices rows ({path.stat().st_size / 2**20:.1f} MB) in {written:.2f} s"
        )
        print(
            f"load_input: wall best {min(times):.2f} s, worst {max(times):.2f} s; "
            f"CPU best {min(cpu):.2f} s (3 runs; {loaded.offer_count:,} offers)"
        )
        # On a shared machine wall time includes waiting for a core; CPU time does not.


if __name__ == "__main__":
    main()
