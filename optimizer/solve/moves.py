"""The moves of a plan's serving replicas (methodology 2.16), from its decisions.

Takes the scenario and the plan's ``Decisions``; hands on, per realtime
workload, the replicas taken down at the start of a month while the workload
still serves in it: ``sum over (type, place, width) of max(0, rep[t-1] -
rep[t])`` over months ``t - 1`` and ``t`` of its window. What the model's
``moves`` rows count where ``change_cost`` > 0; counted for every plan, so
the Summary can say how often a plan moves its replicas at any key value.
"""

from __future__ import annotations

from collections import defaultdict

from optimizer.domain import Scenario
from optimizer.results import Decisions


def plan_moves(scenario: Scenario, decisions: Decisions) -> dict[str, int]:
    """Per realtime workload with at least one move, how many (see the module)."""
    window = {w.name: w.window(scenario.horizon_months) for w in scenario.workloads}
    found: dict[str, int] = defaultdict(int)
    for (w, g, place, k, t), n in decisions.replicas.items():
        if t + 1 in window[w]:
            stopped = n - decisions.replicas.get((w, g, place, k, t + 1), 0)
            if stopped > 0:
                found[w] += stopped
    return dict(found)
