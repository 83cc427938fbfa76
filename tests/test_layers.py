"""The package layout cannot rot: imports point down the pipeline, PuLP stays in two packages.

The stages, lowest first: inputs → estimate → model → solve → check → reports
→ analysis, with ``cli`` (one module per subcommand) on top. ``domain``, ``results``,
``errors`` and ``currency`` are the typed hand-offs every stage shares; they import no stage. A module may import
its own package, a lower stage, or the shared modules, never a higher stage.
The graph is read from the source (``ast``), so a lazy import inside a
function counts as much as one at the top; it has no circle (two modules that
import each other are one module cut in two, or a name living in the wrong one).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.paths import ROOT

PACKAGE = ROOT / "optimizer"
STAGES = ("inputs", "estimate", "model", "solve", "check", "reports", "analysis", "cli")
SHARED = frozenset({"domain", "results", "errors", "currency", "__init__"})
# Modules at the top of optimizer/, beside the packages (issue 32: twelve there
# hid which stage each belonged to).
MAX_TOP_MODULES = 8
# Modules that are declared data (column declarations, the example's rows), not logic.
DECLARED_DATA = frozenset({"optimizer.inputs.schema", "optimizer.inputs.example_data"})
MAX_LINES = 500


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path) -> set[str]:
    """Every module (or module attribute) ``path`` imports, as dotted names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def _package(part: str) -> str:
    """The stage a top-level name stands for: ``__main__`` (``python -m optimizer``)
    is part of ``cli``."""
    return "cli" if part == "__main__" else part


def _stage(module: str) -> str | None:
    """The stage a module of ours belongs to; None for the shared modules (and ``__version__``)."""
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "optimizer":
        return None
    stage = _package(parts[1])
    return stage if stage in STAGES else None


def test_every_module_belongs_to_a_stage_or_is_shared() -> None:
    stray = [
        name
        for name in _modules()
        if name != "optimizer" and _package(name.split(".")[1]) not in {*STAGES, *SHARED}
    ]
    assert stray == []


def test_imports_point_down_the_pipeline() -> None:
    upward: list[str] = []
    for name, path in _modules().items():
        own = _stage(name)
        own_rank = -1 if own is None else STAGES.index(own)
        for imported in _imports(path):
            if not imported.startswith("optimizer."):
                continue
            target = _stage(imported)
            if target is None or target == own:
                continue
            if STAGES.index(target) > own_rank:
                upward.append(f"{name} imports {imported} ({own or 'shared'} → {target})")
    assert upward == [], "\n".join(sorted(upward))


@pytest.mark.parametrize("library", ["pulp", "highspy"])
def test_solver_libraries_only_in_model_and_solve(library: str) -> None:
    outside = [
        name
        for name, path in _modules().items()
        if _stage(name) not in ("model", "solve")
        and any(i == library or i.startswith(library + ".") for i in _imports(path))
    ]
    assert outside == []


def test_the_checker_never_imports_the_model_or_the_solver() -> None:
    """Only ``verify`` and ``baselines`` solve; the rules recompute from inputs and decisions."""
    banned = ("optimizer.model", "optimizer.solve", "pulp", "highspy")
    leaks = [
        f"{name} imports {imported}"
        for name, path in _modules().items()
        if name.startswith("optimizer.check")
        and name not in ("optimizer.check.verify", "optimizer.check.baselines")
        for imported in _imports(path)
        if any(imported == b or imported.startswith(b + ".") for b in banned)
    ]
    assert leaks == []


def test_no_module_is_longer_than_a_reader_can_hold() -> None:
    long = {
        name: n
        for name, path in _modules().items()
        if name not in DECLARED_DATA
        and (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_the_check_sees_a_violation() -> None:
    """The graph walk finds a real upward import (so the layering test can fail)."""
    source = "from optimizer.reports.result_workbook import write_result_workbook\n"
    tree = ast.parse(source)
    names = {
        f"{n.module}.{a.name}"
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom)
        for a in n.names
    }
    assert _stage(next(iter(names))) == "reports"
    assert STAGES.index("reports") > STAGES.index("model")


def _import_graph() -> dict[str, set[str]]:
    """Each module of ours → the modules of ours it imports (``from a.b import c``
    counts as ``a.b.c`` when that is a module, else as ``a.b``)."""
    modules = _modules()

    def module_of(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    return {
        name: {
            m
            for imported in _imports(path)
            if imported.startswith("optimizer")
            and (m := module_of(imported)) is not None
            and m != name
        }
        for name, path in modules.items()
    }


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every circle of ``graph``: its strongly connected parts of two or more
    modules (Tarjan), each sorted, each named once."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_the_import_graph_has_no_circle() -> None:
    circles = _circles(_import_graph())
    assert circles == [], "modules that import each other:\n" + "\n".join(
        " ↔ ".join(c) for c in circles
    )


def test_the_circle_search_finds_a_circle() -> None:
    """So that the test above can fail: a circle through three modules, and one of two."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"f"}, "f": {"e"}}
    assert _circles(graph) == [["a", "b", "c"], ["e", "f"]]


def test_the_graph_sees_a_lazy_import_and_a_package() -> None:
    """``optimizer.cli`` imports its subcommands; one of them lazily imports the checker."""
    graph = _import_graph()
    assert "optimizer.cli.solve" in graph["optimizer.cli"]
    assert "optimizer.check.verify" in graph["optimizer.cli.futures"]  # inside a function


def test_few_modules_sit_at_the_top_of_the_package() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, top
