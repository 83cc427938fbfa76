"""Stage 4, solve: run a solver on the built model and hand back a typed ``results.Plan``.

Takes a ``domain.Scenario`` and ``results.SolverSettings``; maps the solver's
status to ``results.SolveStatus`` in one place, turns the solution into
``results.Decisions`` and money, explains infeasibility by elastic re-solves
(``diagnose``) and prices binding limits (``shadow``). ``import pulp`` lives
only here and in ``optimizer.model``.
"""
