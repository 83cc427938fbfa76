"""Stage 5, check: the independent checker, and plans that are solved then checked.

``rules`` takes a ``results.Plan`` and its scenario and recomputes every cost
and rule from the plan's decisions and the inputs alone: it never imports the
model, the solver or PuLP. Its rules sit one family to a module beside it
(``place_capacity``, ``slot_hours``, ``free_hours``, ``deadline_slots``,
``serving``, ``training_demand``, ``recurring_demand``, ``decisions``,
``limits``), over shared figures (``capacity``, ``demand``, ``money``,
``tolerances``); ``reported`` and ``assignments`` check what the plan says. ``verify`` solves and checks (a plan the checker rejects
carries no money or decisions to any writer); ``baselines`` solves the
rent-only, buy-only and best-single-type comparisons the same way.
"""
