"""The fewest slots a solved plan needs: what the Places sheet says is set aside.

Slots cost nothing in the model, so a solver may leave more of them than the
work needs (an outside audit saw 15 GPUs "set aside in slots" on a spot offer
where one 3-GPU job ran). Takes the built model with its solved values and
the plan's work and slots; hands on the slots lowered, per place, month and
class, to the fewest the model's own rules ask for (``slot_hours``,
``deadline_slots``), with each gang's run slots on capped spot counted as
the fewest that hold its work (``least_run_slot_gpus``, as the checker
counts them), not as many as the solver left. Fewer slots only free GPUs, so the plan keeps every rule
and its cost; the independent checker checks the result like any plan.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from optimizer.estimate.gangs import least_run_slot_gpus, whole_ceiling
from optimizer.model.built import BuiltModel


def fewest_slots(
    built: BuiltModel,
    work: Mapping[tuple[str, str, str, int], float],
    slots: Mapping[tuple[str, str, int, int], int],
) -> dict[tuple[str, str, int, int], int]:
    """``slots`` with each count lowered to the fewest its class's work needs (never raised)."""
    a = built.scenario.assumptions
    # Work by place and month, so each slot count looks only at its own.
    by_place: dict[tuple[str, str, int], list[tuple[str, float]]] = defaultdict(list)
    for (w, g, key, t), hours in work.items():
        by_place[(g, key, t)].append((w, hours))
    trimmed: dict[tuple[str, str, int, int], int] = {}
    for (g, key, k, t), count in slots.items():
        place = built.place(g, key)
        room = place.utilization(a) * a.hours_per_month
        rest = 0.0  # work of the class outside run slots
        in_runs = 0  # GPUs of the class's run slots (capped spot)
        copies = 0  # most copies a deadline gang of the class runs at once
        for w, hours in by_place.get((g, key, t), ()):
            if built.work_class(w, place, t) != k:
                continue
            if (runs := built.run_slots.get((w, g, key, t))) is not None:
                # Run slots cost nothing either: the solver's may be spare (an outside
                # audit: 9 run slots of 2 spot GPUs for 97-143 GPU-hours a month). The
                # fewest that hold the work, as the checker counts them, never more.
                widths = built.run_slot_widths(w, place, t)
                solved = sum(r * round(var.value() or 0.0) for r, var in runs.items())
                fewest = solved if widths is None else least_run_slot_gpus(hours, widths, room)
                in_runs += min(solved, fewest)
                continue
            rest += hours
            if (w, g, key, t) in built.runs_in:
                copies = max(copies, built.figures[(w, g)].copies_in(t))
        need = max(
            whole_ceiling((rest / room + in_runs) / k) if room > 0 else count,
            copies + in_runs // k,
        )
        if (fewest := min(count, need)) > 0:
            trimmed[(g, key, k, t)] = fewest
    return trimmed
