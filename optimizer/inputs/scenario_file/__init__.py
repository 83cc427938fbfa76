"""A scenario file (YAML): overrides of the workbook's scenarios, every problem with its line.

Takes the file's text; hands on a ``ScenarioFile`` of typed entries (``read``)
whose shape the closed pydantic models check (``models``), with the line of each
node (``lines``), an entry's problems that do not need the workbook (``sound``)
and its references to the workbook checked once that is read (``refs``).
"""
