"""Constraint family ``moves``: serving replicas taken down while their workload still serves.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row` (none
unless ``change_cost`` > 0, methodology 2.16). Golden LP text:
``tests/model/golden/moves.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.model.built import BuiltModel, Terms


def define_moves_constraints(built: BuiltModel) -> None:
    """Moves of a serving replica kind into month ``t``: at least the replicas that stop.

    ``moves_w{w}_g{g}_p{p}_k{k}_t{t}``, for each replica kind (workload,
    type, place, width) with replicas possible in month ``t - 1`` and ``t`` in
    the workload's window:
        move[w,g,p,k,t] - rep[w,g,p,k,t-1] + rep[w,g,p,k,t] >= 0

    With ``move >= 0`` and a positive cost, ``move`` is ``max(0, rep[t-1] -
    rep[t])`` at an optimum: replicas added where the workload already runs
    (growth) are no move; a replica taken down (its traffic goes to another
    place, type or width, or demand fell) is one.
    """
    gpos, wpos = built.gpu_pos, built.workload_pos
    for (w, g, key, k, t), move in built.moves.items():
        terms: Terms = [(move, 1.0), (built.replicas[(w, g, key, k, t - 1)], -1.0)]
        now = built.replicas.get((w, g, key, k, t))
        if now is not None:
            terms.append((now, 1.0))
        lp = built.place(g, key).lp
        built.add_row(
            "moves",
            (f"w{wpos[w]}", f"g{gpos[g]}", f"p{lp}", f"k{k}", f"t{t}"),
            terms,
            pulp.LpConstraintGE,
            0.0,
        )
