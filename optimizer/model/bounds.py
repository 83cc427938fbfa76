"""Upper bounds on the integer levels: the most GPUs of a type one place can put to use.

Takes a :class:`~optimizer.model.built.BuiltModel` holding its places, figures
and estimates (no variables yet); hands on, per GPU type, the most GPUs one
of its places can use at once in any month, and per type and width the most
slots (:func:`most_useful`). The variables module bounds the owned and
reserved levels and the slots by them.

Why the bounds lose no plan worth having (the optimum is unchanged):

* In one place and month, GPUs are used by pinned replicas, slots and
  width-1 work. Replicas are bounded per width (``replicas_enough``); a
  minimal plan holds no more slots of width ``k`` than ``ceil(M / (u H k))``
  for the most work ``M`` its workloads can need that month, plus the copies
  a deadline gang needs; width-1 work needs ``ceil(M / (u H))`` GPUs.
  Summing these per workload and taking the largest month gives ``U``.
* Owned levels: cut every month's level down to ``min(level, U)``. Every
  month still holds what it uses, the path stays whole (and never falls where
  nothing can be sold), and each GPU left out was a layer of the stock that
  cost its price, running costs and less resale than its price
  (``resale_fraction <= 1`` of the lowest buy price, discounting only
  lowers later money): no plan gets cheaper, nor more capital, power or
  rent, with GPUs it never uses.
* Reserved levels are sums of fixed-length terms, so a month may need more
  active GPUs than it uses to cover its neighbours. In a plan where no term
  can be dropped, every term has a month where coverage is exactly what is
  used; the terms over a month split into those whose such month is on or
  before it (all cover the latest of those months: at most ``U``) and those
  after (at most ``U`` likewise): ``2 U`` bounds the level.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from optimizer.domain import Kind, Workload
from optimizer.model.built import BuiltModel, _ceil
from optimizer.results import ServingWidth


@dataclass(frozen=True)
class Useful:
    """Most GPUs (per type) and slots (per type and width) one place can use at once."""

    gpus: dict[str, int]
    slots: dict[tuple[str, int], int]


def most_useful(built: BuiltModel) -> Useful:
    """Per GPU type, the most of its GPUs one place can use at once in any month.

    Also, per type and slot width, the most slots of that width one place can use.
    """
    s = built.scenario
    a = s.assumptions
    H = a.hours_per_month
    u = a.max_utilization  # the house and reserved places (the levels bounded)
    by_name = {w.name: w for w in s.workloads}
    gpus: dict[tuple[str, int], int] = defaultdict(int)
    slots: dict[tuple[str, int, int], int] = defaultdict(int)
    for (w_name, g), est in built.estimates.items():
        w = by_name[w_name]
        widths = est.serving_widths()
        for t in w.window(s.horizon_months):
            if w.kind is Kind.REALTIME_INFERENCE:
                gpus[(g, t)] += sum(
                    width.width * replicas_enough(w, width, a.target_load, t) for width in widths
                )
                continue
            fig = built.figures[(w_name, g)]
            runs = 1.0 if w.one_off_training else fig.runs_per_month
            if w.kind is Kind.BATCH_INFERENCE:
                runs *= w.demand_factor(t)
            work = runs * fig.run_gpu_hours  # the month's most work in one place
            k = fig.slot_width_in(t) or 1
            need = _ceil(work / (u * H * k)) if u > 0 else 0
            if fig.slot_width_in(t) is not None:
                need += fig.copies_in(t)  # a deadline gang's copies
                slots[(g, k, t)] += need
            gpus[(g, t)] += k * need
    most_gpus: dict[str, int] = {}
    for (g, _t), n in gpus.items():
        most_gpus[g] = max(most_gpus.get(g, 0), n)
    most_slots: dict[tuple[str, int], int] = {}
    for (g, k, _t), n in slots.items():
        most_slots[(g, k)] = max(most_slots.get((g, k), 0), n)
    return Useful(most_gpus, most_slots)


def replicas_enough(w: Workload, width: ServingWidth, target_load: float, month: int) -> int:
    """Replicas of one width that alone meet the month's demand with headroom: more only add cost."""
    need = w.demand_in(month) / target_load
    alone = _ceil(need / (width.tokens_per_second_per_replica or 1.0))
    return max(w.min_replicas, alone)
