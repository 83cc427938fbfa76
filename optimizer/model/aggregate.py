"""The aggregated model: layout integers tied in blocks of months (issue 30).

Takes a built model (:class:`~optimizer.model.built.BuiltModel`) and a block
rule; hands on its layout integers (:func:`layout_integers`: the integer
columns with their GPU type, month and the key they share across months),
the pairs of columns a block ties together (:func:`tie_pairs`), and
:func:`tie_blocks`, which adds those ties to the model as equality rows.

What is tied: owned and reserved levels, serving replicas, slots, deadline
switches, run slots and servers. Work, rent, purchases and sales stay per
month, and every month's demand and capacity rows stay. So the tied model is
the full model with more rows: every plan of it is a plan of the full model
at the same cost (a restriction), and one layout serves each block's peak
month. A column that exists in some months of a block and not in others is
tied to the block's other months where it exists (never to a missing one).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import pulp

from optimizer.model.built import BuiltModel

# The measured rule (docs/performance.md, "Plans first"): months 1-12 one by
# one, later months in quarters.
MONTHLY_UNTIL = 12
BLOCK_MONTHS = 3


@dataclass(frozen=True)
class LayoutInteger:
    """One integer column: its name, GPU type, month (None for a pick) and cross-month key."""

    name: str
    gpu: str
    month: int | None
    key: tuple[object, ...]  # the same for one decision in every month (None month: unique)


def month_block(month: int, monthly_until: int = MONTHLY_UNTIL, size: int = BLOCK_MONTHS) -> int:
    """The first month of ``month``'s block: itself up to ``monthly_until``, then blocks of ``size``."""
    if month <= monthly_until:
        return month
    return monthly_until + 1 + (month - monthly_until - 1) // size * size


def layout_integers(built: BuiltModel) -> list[LayoutInteger]:
    """Every integer column of ``built`` (levels, replicas, slots, switches, servers, picks)."""
    gpu_of = {o.offer_id: o.gpu for o in built.offers}
    found: list[LayoutInteger] = []
    for (offer, t), var in built.owned.items():
        found.append(LayoutInteger(var.name, gpu_of[offer], t, ("owned", offer)))
    for (offer, t), var in built.active.items():
        found.append(LayoutInteger(var.name, gpu_of[offer], t, ("active", offer)))
    for (w, g, p, k, t), var in built.replicas.items():
        found.append(LayoutInteger(var.name, g, t, ("rep", w, g, p, k)))
    for (g, p, k, t), var in built.slots.items():
        found.append(LayoutInteger(var.name, g, t, ("slots", g, p, k)))
    for (w, g, p, t), var in built.runs_in.items():
        found.append(LayoutInteger(var.name, g, t, ("runs_in", w, g, p)))
    for (w, g, p, t), by_width in built.run_slots.items():
        for r, var in by_width.items():
            found.append(LayoutInteger(var.name, g, t, ("run_slots", w, g, p, r)))
    for (g, t), var in built.servers.items():
        found.append(LayoutInteger(var.name, g, t, ("servers", g)))
    for (w, g), var in built.pick.items():
        found.append(LayoutInteger(var.name, g, None, ("pick", w, g)))
    return found


def tie_pairs(
    built: BuiltModel, monthly_until: int = MONTHLY_UNTIL, size: int = BLOCK_MONTHS
) -> list[tuple[str, str]]:
    """(first, other) column names the blocks tie equal: each block's columns to its first."""
    blocks: dict[tuple[object, ...], dict[int, list[tuple[int, str]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for col in layout_integers(built):
        if col.month is None or col.month <= monthly_until:
            continue
        block = month_block(col.month, monthly_until, size)
        blocks[col.key][block].append((col.month, col.name))
    pairs: list[tuple[str, str]] = []
    for by_block in blocks.values():
        for members in by_block.values():
            members.sort()
            first = members[0][1]
            pairs.extend((first, name) for _t, name in members[1:])
    return pairs


def tie_blocks(
    built: BuiltModel, monthly_until: int = MONTHLY_UNTIL, size: int = BLOCK_MONTHS
) -> int:
    """Add the block ties to ``built``'s problem as rows ``first - other = 0``; how many.

    The model then plans one layout per block after ``monthly_until``
    (``--coarse-after``; the tests' check that an aggregated plan is a plan).
    """
    variables = built.problem.variablesDict()
    pairs = tie_pairs(built, monthly_until, size)
    for n, (first, other) in enumerate(pairs):
        row = pulp.LpAffineExpression([(variables[first], 1.0), (variables[other], -1.0)])
        built.problem.addConstraint(pulp.LpConstraint(row, pulp.LpConstraintEQ, f"tie_{n}", 0.0))
    return len(pairs)
