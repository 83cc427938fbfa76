"""The ``Audit`` sheet: what a result was computed from, so finance can trace it.

Inputs' SHA-256, gpumix and solver versions, the time of the run, each
solve's size and time, every assumption with its value and source, and every
GPU, offer and workload as the solver saw them (after scenario overrides).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path

from optimizer.currency import unit_in
from optimizer.inputs.schema import ASSUMPTION_KEYS
from optimizer.reports.audit_inputs import (
    INT,
    M,
    N,
    P,
    T,
    W,
    catalogue_table,
    fleet_table,
    gpu_table,
    offer_table,
    workload_table,
)
from optimizer.reports.page_fit import fit_one_page_when_legible
from optimizer.reports.sheet_grid import (
    TEXT_STYLES,
    SheetModel,
    Style,
    Table,
)
from optimizer.reports.sheet_names import AUDIT
from optimizer.results import RunResult

# ---------------------------------------------------------------------------
# Audit


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class _Blocks:
    """Stacks titled tables down one sheet, each an Excel table."""

    def __init__(self, sheet: SheetModel) -> None:
        self.sheet = sheet
        self.row = 0
        self.printed_last_col = 0  # the widest block that is not folded

    def block(
        self,
        title: str,
        table_name: str,
        headers: Sequence[str],
        rows: Sequence[Sequence[tuple[object, Style]]],
        fold: bool = False,
    ) -> None:
        """``fold``: the table (header and rows) is folded away under its title: kept, not printed."""
        s = self.sheet
        s.text(self.row, 0, title, Style.SECTION)
        head = self.row + 1
        s.header(head, 0, headers)
        for i, cells in enumerate(rows):
            for j, (value, style) in enumerate(cells):
                _put(s, head + 1 + i, j, value, style)
        if rows:
            s.tables.append(Table(table_name, head, 0, head + len(rows), len(headers) - 1))
        else:
            s.text(head + 1, 0, "none", Style.NOTE)
        if fold and rows:
            s.folded_rows.append((head, head + len(rows)))
            s.text(
                head + len(rows) + 1,
                0,
                f"{len(rows)} rows folded away: click + at the left (or Data › Show detail) "
                "to show them.",
                Style.NOTE,
            )
            self.row = head + len(rows) + 3
        else:
            self.printed_last_col = max(self.printed_last_col, len(headers) - 1)
            self.row = head + max(len(rows), 1) + 2


def _put(sheet: SheetModel, row: int, col: int, value: object, style: Style) -> None:
    if isinstance(value, bool):
        sheet.flag(row, col, value)
    elif style in TEXT_STYLES:
        if value is not None:
            sheet.text(row, col, value, style)
    elif value is None or isinstance(value, int | float):
        sheet.number(row, col, value, style)
    else:
        sheet.text(row, col, value, Style.TEXT)


def audit_sheet(run: RunResult) -> SheetModel:
    # Printed last, on one page while legible: the run, the files, the solves and the
    # scenarios' settings; the long tables of inputs as the solver saw them are folded.
    currency = run.currency
    sheet = SheetModel(AUDIT, freeze=(0, 1))
    blocks = _Blocks(sheet)
    solvers = sorted({f"{p.solver.name} {p.solver.version}" for p in run.plans if p.solver})
    blocks.block(
        "Run",
        "Audit_run",
        ["Item", "Value"],
        [
            [("Time of the run (UTC)", T), (run.started_at, T)],
            [("gpumix version", T), (run.gpumix_version, T)],
            [("Solver asked for", T), (run.settings.solver, T)],
            [("Solver used (name and version)", T), (", ".join(solvers) or "none", T)],
            [
                ("Time limit per solve (s)", T),
                (run.settings.time_limit, N) if run.settings.time_limit else ("none", T),
            ],
            # Shown as text: 1e-06 would read as 0.00 in any number format.
            [("Relative gap accepted as optimal", T), (f"{run.settings.gap:g}", T)],
        ],
    )
    file_rows = []
    for path in run.input_files:
        if path.is_file():
            file_rows.append([(str(path), T), (file_sha256(path), T), (path.stat().st_size, INT)])
        else:
            file_rows.append([(str(path), T), ("file not found when writing", T), (None, INT)])
    blocks.block("Input files", "Audit_files", ["File", "SHA-256", "Size (bytes)"], file_rows)
    blocks.block(
        "Solves",
        "Audit_solves",
        [
            "Scenario",
            "Status",
            "Proven gap (%)",
            "Solver",
            "Solver version",
            "Solve time (s)",
            "Build time (s)",
            "Variables",
            "Constraints",
            "Integer variables",
        ],
        [
            [
                (p.name, T),
                (p.status.value, T),
                (p.gap, P),
                (p.solver.name if p.solver else None, T),
                (p.solver.version if p.solver else None, T),
                (p.solver.seconds if p.solver else None, N),
                (p.solver.build_seconds if p.solver else None, N),
                (p.solver.variables if p.solver else None, INT),
                (p.solver.constraints if p.solver else None, INT),
                (p.solver.integers if p.solver else None, INT),
            ]
            for p in run.plans
        ],
    )
    assumption_rows = []
    for p in run.plans:
        a = p.scenario.assumptions
        for f in fields(a):
            key = ASSUMPTION_KEYS.get(f.name)
            value = getattr(a, f.name)
            unit = unit_in(key.unit, a.currency) if key else ""
            source = p.scenario.assumption_sources.get(f.name) or (
                f"default: {key.source}" if key else "default"
            )
            style = Style.PERCENT if key is not None and key.fraction else Style.NUMBER
            assumption_rows.append(
                [(p.name, T), (f.name, T), (value, style), (unit, T), (source, W)]
            )
    blocks.block(
        "Assumptions used",
        "Audit_assumptions",
        ["Scenario", "Key", "Value", "Unit", "Source"],
        assumption_rows,
        fold=True,
    )
    blocks.block(
        "Scenario settings",
        "Audit_scenarios",
        [
            "Scenario",
            "Horizon (months)",
            f"Budget total ({currency})",
            f"Budget capex ({currency})",
            f"Budget monthly ({currency})",
            "Power cap (kW)",
            "Allow buy",
            "Allow rent",
            "Excluded GPUs",
            "Source files",
        ],
        [
            [
                (p.name, T),
                (p.scenario.horizon_months, INT),
                (p.scenario.budget_total, M),
                (p.scenario.budget_capex, M),
                (p.scenario.budget_monthly, M),
                (p.scenario.power_cap_kw, N),
                (p.scenario.allow_buy, Style.BOOL),
                (p.scenario.allow_rent, Style.BOOL),
                (", ".join(p.scenario.excluded_gpus), T),
                (", ".join(str(f) for f in p.scenario.source_files), T),
            ]
            for p in run.plans
        ],
    )
    # GPUs, offers and workloads as the solver saw them: long, so folded (kept, not printed).
    for table in (gpu_table(run.plans), offer_table(run.plans, currency)):
        blocks.block(table.title, table.name, table.headers, table.rows, fold=True)
    catalogued = catalogue_table(run.plans)
    if catalogued.rows:
        blocks.block(
            catalogued.title, catalogued.name, catalogued.headers, catalogued.rows, fold=True
        )
    fleet = fleet_table(run.plans, currency)
    if fleet.rows:  # shown unfolded: what a reservation owes after the horizon matters
        blocks.block(fleet.title, fleet.name, fleet.headers, fleet.rows)
    table = workload_table(run.plans)
    blocks.block(table.title, table.name, table.headers, table.rows, fold=True)
    sheet.print_columns = (0, blocks.printed_last_col)
    # The item or scenario, then values as wide as a SHA-256, then narrow columns.
    sheet.widths.update({0: 28, 1: 66})
    sheet.widths.update({c: 13 for c in range(2, blocks.printed_last_col + 1)})
    fit_one_page_when_legible(sheet)
    return sheet
