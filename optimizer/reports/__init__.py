"""Stage 6, reports: results out, from ``results.RunResult`` and ``results.Plan`` only.

The result workbook (one module per sheet where they are large), its grid
and injection-safe cell text, the JSON report, ``compare`` and ``in_place``
(result sheets written back into a user's workbook). Writers never see a
PuLP object or a cell of the input.
"""
