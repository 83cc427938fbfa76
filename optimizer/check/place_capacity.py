"""Rule family ``place_capacity`` (model v2 §A–§C): a finite place holds its replicas and slots.

Takes a ``Scenario`` and the plan's ``Decisions``; hands on a violation line for
every finite place and month where the GPUs pinned by replicas and the GPUs set
aside in slots add up to more than the place holds.
"""

from __future__ import annotations

from optimizer.check.capacity import derived_hours, finite_place_sizes, place_name
from optimizer.check.tolerances import INTEGER_TOL
from optimizer.domain import Scenario
from optimizer.results import Decisions


def place_capacity_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """``pinned[p,t] + sum_k k × slots[p,k,t] <= N[p,t]`` for every finite place ``p`` and month ``t``.

    ``pinned = sum width × replicas`` in ``p``; ``N`` is the owned GPUs (house),
    the active reserved GPUs (reserved offer) or ``max_units`` (capped rental).
    """
    found: list[str] = []
    derived = derived_hours(scenario, decisions)
    for (gpu, place, t), size in sorted(finite_place_sizes(scenario, decisions).items()):
        pinned = derived.pinned.get((gpu, place, t), 0.0)
        in_slots = derived.slot_gpus(gpu, place, t)
        if pinned + in_slots > size + INTEGER_TOL:
            slots = derived.slots.get((gpu, place, t), {})
            parts = " + ".join(f"{n:g}×{k}" for k, n in sorted(slots.items()) if n) or "0"
            found.append(
                f"place_capacity: {place_name(gpu, place)} month {t}: {pinned:g} pinned "
                f"+ {in_slots:g} in slots ({parts}) = {pinned + in_slots:g} GPUs, more than "
                f"the {size:g} it holds"
            )
    return found
