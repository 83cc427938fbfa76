"""Deadlines: can any place of a GPU type hold a run's gang at once? (model v2 §C)

Takes the ``domain.Scenario``, a training or ``batch_inference`` workload (a
deadline makes its gang several copies wide), a GPU type, the copy width ``k`` and the GPU-hours of one
run; hands on to ``pairs`` why the pair is ruled out (in numbers), or None.
A gang of ``n = k × copies_per_gang`` GPUs runs wholly in one place:

- an on-demand or spot offer without ``max_units`` holds any gang; one with
  ``max_units`` holds ``max_units`` GPUs (spot only for interruptible work);
- a reserved offer holds ``max_units`` GPUs, any number when uncapped;
- the house holds the type's owned ``Fleet`` GPUs and what its buy offers
  may buy in all (the sum of their ``max_units``; any number when one of
  them is uncapped);
- an existing reservation (``Fleet``) holds its ``count`` GPUs.

Only places that can hold GPUs in some month of the workload's window count:
an offer from its ``available_from``, a reservation whose whole term fits in
the horizon (as the model's starts do), an existing reservation while it
runs. A type without any place for the workload stays allowed: the model
simply cannot use it, as for any pair without offers (a demand row it leaves
empty makes the scenario infeasible, and the diagnosis says which).
"""

from __future__ import annotations

from optimizer.domain import FleetKind, Gpu, Offer, OfferOption, Scenario, Workload
from optimizer.estimate.gangs import copies_per_gang


def _places(scenario: Scenario, workload: Workload, gpu: Gpu) -> list[tuple[str, int | None]]:
    """Every place of ``gpu`` the workload may use: (description, GPUs it holds or None)."""
    places: list[tuple[str, int | None]] = []
    window = workload.window(scenario.horizon_months)
    usable = [o for o in scenario.offers_of(gpu.name) if _holds_in(o, window, scenario)]
    buys = [o for o in usable if o.option is OfferOption.BUY]
    # Owned Fleet rows are in the house from month 1; an existing reservation is
    # a reserved place of its own (model v2 §E).
    owned = [r for r in scenario.fleet if r.gpu == gpu.name and r.kind is FleetKind.OWNED]
    if buys or owned:
        caps = [o.max_units for o in buys]
        bought = None if any(c is None for c in caps) else sum(c for c in caps if c is not None)
        existing = sum(r.count for r in owned)
        house = None if bought is None else existing + bought
        if not owned:
            where = f"the house, whose buy offers allow {bought} GPUs in all"
        elif not buys:
            where = f"the house, with its {existing} existing GPUs and no buy offer"
        else:
            where = (
                f"the house, with {existing} existing GPUs and buy offers allowing {bought} more"
            )
        places.append((where, house))
    for o in usable:
        if o.option is OfferOption.BUY:
            continue
        if o.option is OfferOption.SPOT and not workload.interruptible:
            continue
        places.append((f"{_offer_name(o)} with max_units {o.max_units}", o.max_units))
    for r in scenario.fleet:
        running = r.months_left is None or r.months_left >= window.start
        if r.gpu == gpu.name and r.kind is FleetKind.RESERVED and running:
            places.append(
                (f"the existing reservation {r.label or r.source_id} of {r.count} GPUs", r.count)
            )
    return places


def _holds_in(o: Offer, window: range, scenario: Scenario) -> bool:
    """Whether ``o`` can hold GPUs in some month of ``window`` (the model's own rule)."""
    first, last = window.start, window.stop - 1
    if o.option is not OfferOption.RESERVED:
        return o.available_from <= last
    term = o.term_months or 0
    # The earliest start whose term reaches the window; the whole term must fit.
    start = max(o.available_from, first - term + 1)
    return start <= min(last, scenario.horizon_months - term + 1)


def _offer_name(o: Offer) -> str:
    name = f"{o.option.value} row {o.row}" if o.row else f"{o.option.value} offer {o.offer_id}"
    return f"{name} ({o.provider})" if o.provider else name


def gang_reason(
    scenario: Scenario, workload: Workload, gpu: Gpu, k: int, run_gpu_hours: float
) -> str | None:
    """Why no place of ``gpu`` can hold a run's gang, or None when one can.

    Without a deadline the gang is one copy. None when the type has no place
    for the workload at all.
    """
    deadline = workload.deadline_hours
    copies = copies_per_gang(run_gpu_hours, k, deadline)
    gang = k * copies
    places = _places(scenario, workload, gpu)
    if not places or any(size is None or size >= gang for _, size in places):
        return None
    largest, _ = max(places, key=lambda p: p[1] or 0)
    if deadline is None:
        return f"one copy needs {k} × {gpu.name} at once; the largest place is {largest}"
    of_k = f"{k} GPU" if k == 1 else f"{k} GPUs"
    what = f"{copies} copies of {of_k}" if copies > 1 else f"one copy of {of_k}"
    return (
        f"a run of {run_gpu_hours:,.1f} GPU-hours needs {gang} × {gpu.name} at once to finish"
        f" within {deadline:g} h ({what}); the largest place is {largest}"
    )
