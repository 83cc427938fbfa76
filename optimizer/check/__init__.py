"""Stage 5, check: the independent checker, and plans that are solved then checked.

``rules`` takes a ``results.Plan`` and its scenario and recomputes every cost
and constraint from the plan's decisions and the inputs alone: it never imports
the model or PuLP. Its rules sit one family to a module beside it
(``tolerances``, ``money``, ``decisions``, ``capacity``, ``demand``, ``limits``,
``reported``). ``verify`` solves and checks (a plan the checker rejects
carries no money or decisions to any writer); ``baselines`` solves the
rent-only, buy-only and best-single-type comparisons the same way.
"""
