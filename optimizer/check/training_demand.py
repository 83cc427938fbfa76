"""Rule family ``training_demand`` (model v2 §C, v1's rule): a one-off job on one type.

Takes a ``Scenario``, the plan's ``Decisions`` and the pair estimates; hands on
violation lines for a one-off training job without a picked type, with work on
another type, on a pair not allowed, or whose useful hours over its window are
not exactly its GPU-hours.
"""

from __future__ import annotations

from collections.abc import Sequence

from optimizer.check.demand import gang_of, useful_per_paid
from optimizer.check.tolerances import HOURS_ABS_TOL, _h, hours_close
from optimizer.domain import Scenario
from optimizer.results import Decisions, PairEstimate


def training_demand_violations(
    scenario: Scenario, decisions: Decisions, estimates: Sequence[PairEstimate]
) -> list[str]:
    """One-off training ``w`` (``runs_per_month`` blank), picked type ``g``:
    ``sum_{p, t in window} useful(work[w,g,p,t]) = R_wg`` and no work on other types.

    ``useful = paid × spot_yield(spot_efficiency, n_wg, max_per_node)`` on a
    spot offer, ``paid`` elsewhere.
    """
    found: list[str] = []
    pairs = {(e.workload, e.gpu): e for e in estimates}
    for w in scenario.workloads:
        if not w.one_off_training:
            continue
        window = w.window(scenario.horizon_months)
        span = f"months {window.start}..{window.stop - 1}"
        picked = decisions.picks.get(w.name)
        if picked is None:
            found.append(f"training_demand: training job {w.name} has no picked GPU type")
            continue
        for (name, gpu, place, t), hours in sorted(decisions.work.items()):
            if name == w.name and gpu != picked and hours > HOURS_ABS_TOL:
                found.append(
                    f"training_demand: training job {w.name} picked {picked} but runs on {gpu} "
                    f"({place}) in month {t}"
                )
        gang = gang_of(w, pairs.get((w.name, picked)))
        if gang is None:
            found.append(
                f"training_demand: training job {w.name} picked {picked}, a pair not allowed"
            )
            continue
        done = sum(
            hours * useful_per_paid(scenario, gpu, place, gang)
            for (name, gpu, place, t), hours in decisions.work.items()
            if name == w.name and gpu == picked and t in window
        )
        if not hours_close(done, gang.run_gpu_hours):
            found.append(
                f"training_demand: training job {w.name} gets {_h(done)} GPU-hours of work on "
                f"{picked} in {span}, needs exactly {_h(gang.run_gpu_hours)}"
            )
    return found
