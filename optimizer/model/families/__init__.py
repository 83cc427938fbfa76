"""The model's constraint families, one module each, named by the family.

Each module ``<family>.py`` takes a :class:`~optimizer.model.built.BuiltModel`
with its variables and adds its rows in ``define_<family>_constraints``;
``optimizer.model.build.FAMILIES`` lists them in the order they are added, and
each has a golden LP file ``tests/model/golden/<family>.lp``.
"""
