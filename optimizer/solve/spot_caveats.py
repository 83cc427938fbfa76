"""Where a plan's spot work may not run as planned: lines for the plan's diagnostics.

Takes the ``domain.Scenario`` and the plan's ``results.Decisions``; hands on
a line for each workload whose spot work meets a limit of the spot model
(docs/methodology.md §2.12, "One-off jobs on several spot servers"): the
plan's cost is right for the model, but an engineer should know before
relying on its schedule.

A one-off job whose spot work in a month needs more than one server at once
yields less than one gang's share if it trains in lock-step. (Deadline work
never meets a limit here: a run that would finish late at the spot yield does
not go on spot, and on a capped spot offer a gang keeps its whole width.)
"""

from __future__ import annotations

from collections import defaultdict

from optimizer.domain import OfferOption, Scenario
from optimizer.results import Decisions
from optimizer.solve.diagnose import months_text

HOURS_NOISE = 1e-6


def spot_caveats(s: Scenario, d: Decisions) -> list[str]:
    """A line for each one-off job whose spot work in a month needs several servers."""
    spot = {o.offer_id for o in s.all_offers if o.option is OfferOption.SPOT}
    hours: dict[tuple[str, str, int], float] = defaultdict(float)
    for (name, g, place, t), paid in d.work.items():
        if place in spot:
            hours[(name, g, t)] += paid
    H = s.assumptions.hours_per_month
    lines = []
    for w in s.workloads:
        if w.one_off_training and w.deadline_hours is None:
            wide = sorted(
                t
                for (name, g, t), paid in hours.items()
                if name == w.name and paid > H * s.gpu(g).max_per_node + HOURS_NOISE
            )
            if wide:
                lines.append(
                    f"{w.name} runs on spot on more than one server at once in {months_text(wide)}; "
                    "if it trains in lock-step, each reclaimed server stalls them all and it "
                    "yields less than planned (methodology 2.12, one-off jobs on several spot "
                    "servers)"
                )
    return lines
