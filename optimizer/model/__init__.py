"""Stage 3, model: the planning MILP as a pure function of a scenario and its estimates.

Takes a ``domain.Scenario`` and its ``results.PairEstimate`` rows; hands on a
``built.BuiltModel`` (the PuLP problem and typed maps from our keys to its
variables) from ``build.build_model``. One module ``families/<family>.py`` with a
``define_<family>_constraints`` function per constraint family, each with a golden
LP file in ``tests/model/golden/``; PuLP-free cost coefficients in ``costs``.
Nothing here solves.
"""
