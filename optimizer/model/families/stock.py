"""Constraint family ``stock``: purchases and reservation starts move the integer stock levels.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/stock.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.model.built import BuiltModel, Terms


def define_stock_constraints(built: BuiltModel) -> None:
    """Purchases and reservation starts move the integer stock levels.

    ``stock_owned_o{o}_t{t}``:
        owned[o,t] - owned[o,t-1] - buy[o,t] + sell[o,t] = 0
        (an owned Fleet row ``o``: no purchases, and ``= count`` in month 1)
    ``stock_bought_o{o}`` (only where GPUs can be sold and the offer is capped):
        sum_t buy[o,t] <= max_units
    ``stock_reserved_o{o}_t{t}``:
        active[o,t] - active[o,t-1] - reserve[o,t] + reserve[o,t-term] = 0

    A level missing for a month is zero (before an offer's first month, or
    when no reservation covers it). Whole levels in every month make every
    purchase and start whole, so these rows keep the model exact while the
    solver branches on levels. ``max_units`` of buy and reserved offers
    (accounting rule 7) are the levels' upper bounds; on-demand and spot caps
    are bounds on ``rent[o,t]``.
    """
    opos = built.offer_pos
    for (oid, t), level in built.owned.items():
        terms: Terms = [(level, 1.0)]
        if (bought := built.buy.get((oid, t))) is not None:
            terms.append((bought, -1.0))
        if (before := built.owned.get((oid, t - 1))) is not None:
            terms.append((before, -1.0))
        if (sold := built.sell.get((oid, t))) is not None:
            terms.append((sold, 1.0))
        # An owned Fleet row starts month 1 with its GPUs (model v2 §E).
        start = float(built.existing_count(oid)) if t == 1 else 0.0
        built.add_row(
            "stock", ("owned", f"o{opos[oid]}", f"t{t}"), terms, pulp.LpConstraintEQ, start
        )
    if built.sell:
        # Selling lets the level fall, so its bound no longer caps what is bought
        # over the horizon (accounting rule 7).
        for o in built.offers:
            bought = [(v, 1.0) for (oid, _t), v in built.buy.items() if oid == o.offer_id]
            if o.max_units is not None and bought:
                built.add_row(
                    "stock",
                    ("bought", f"o{opos[o.offer_id]}"),
                    bought,
                    pulp.LpConstraintLE,
                    o.max_units,
                )
    term = {o.offer_id: o.term_months or 0 for o in built.offers}
    for (oid, t), level in built.active.items():  # made by offer, then month
        terms = [(level, 1.0)]
        if (before := built.active.get((oid, t - 1))) is not None:
            terms.append((before, -1.0))
        if (started := built.reserve.get((oid, t))) is not None:
            terms.append((started, -1.0))
        if (ended := built.reserve.get((oid, t - term[oid]))) is not None:
            terms.append((ended, 1.0))
        built.add_row(
            "stock", ("reserved", f"o{opos[oid]}", f"t{t}"), terms, pulp.LpConstraintEQ, 0.0
        )
