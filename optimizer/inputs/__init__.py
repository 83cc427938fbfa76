"""Stage 1, inputs: workbook and scenario files in, frozen ``domain.Scenario`` objects out.

Takes an ``.xlsx`` workbook (read safely: archive, entity-bomb and formula-cache
checks in ``xlsx_safety``) and any YAML scenario files; every sheet's columns
are declared once in ``schema``, which also drives the template, the example
workbook and ``docs/workbook.md``. ``load.load_input`` hands on a
``domain.LoadedInput`` of resolved scenarios, or raises ``errors.InputError``
with every problem located by file, sheet, row, column and value.
"""
