"""``gpumix validate``: reads the input, says what it holds (and its futures and
warnings), solves nothing.
"""

from __future__ import annotations

import argparse

from optimizer.cli.common import count_text, input_warnings
from optimizer.errors import terminal_text
from optimizer.inputs.futures.notes import futures_summary


def run_validate_command(args: argparse.Namespace) -> int:
    from optimizer.inputs.load import load_input

    loaded = load_input(args.input)
    names = ", ".join(s.name for s in loaded.scenarios)
    counts = ", ".join(
        count_text(n, word)
        for n, word in (
            (loaded.gpu_count, "GPU type"),
            (loaded.offer_count, "offer"),
            (loaded.workload_count, "workload"),
            (len(loaded.scenarios), "scenario"),
        )
    )
    print(terminal_text(f"{loaded.files[0].name}: OK — {counts} ({names})"))
    for summary in filter(None, map(futures_summary, loaded.scenarios)):
        print(terminal_text(summary))
    for warning in input_warnings(loaded.scenarios):
        print(terminal_text(warning))
    return 0
