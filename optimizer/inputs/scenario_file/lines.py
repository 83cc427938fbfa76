"""Where things are in a scenario file, and its problems located by line.

Takes the node tree of ``yaml.compose`` (whose marks hold the lines) and,
for the shape checks, pydantic's ``ValidationError``; hands on the line of a
key or value, the line of each key of a mapping, ``YamlWhere`` (a place in
the file that builds located ``Problem``s), and ``Problem``s in the
words of a scenario file: YAML aliases and duplicate keys, unknown or missing
keys, values of the wrong kind.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from optimizer.errors import Problem
from optimizer.inputs.cells import suggestion
from optimizer.inputs.scenario_file.models import _MODELS, LIST_CAPS, ScenarioModel
from optimizer.inputs.schema import ASSUMPTION_KEYS, bound_text

# ---------------------------------------------------------------- places


@dataclass(frozen=True)
class YamlWhere:
    """A place in a scenario file: its line, and the line of each key's value."""

    file: str
    line: int
    context: str  # e.g. "scenario 'eu', add_workloads entry 1"
    key_lines: Mapping[str, int] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{Path(self.file).name}, line {self.line}"

    def at(
        self, column: str, message: str, value: object = None, expected: str | None = None
    ) -> Problem:
        return Problem(
            file=self.file,
            row=self.key_lines.get(column, self.line),
            message=f"{self.context}, {column}: {message}",
            value=value,
            expected=expected,
            about=column,
        )

    def whole(self, message: str) -> Problem:
        return Problem(file=self.file, row=self.line, message=f"{self.context}: {message}")


def _entry_wheres(node: Node | None, key: str, file: str, label: str) -> Iterator[YamlWhere]:
    """Where each entry of the list under ``key`` is: ``<label>, <key> entry <n>`` and its line."""
    _, list_node = _child(node, key) if node is not None else (None, None)
    index = 0
    while True:
        entry_node = _child(list_node, index)[1] if list_node is not None else None
        line = entry_node.start_mark.line + 1 if entry_node is not None else 1
        yield YamlWhere(file, line, f"{label}, {key} entry {index + 1}", _key_lines(entry_node))
        index += 1


# ---------------------------------------------------------------- nodes


def _child(node: Node, part: object) -> tuple[Node | None, Node | None]:
    """(key node, value node) of ``part`` inside ``node``, or (None, None)."""
    if isinstance(node, MappingNode):
        for key, value in node.value:
            if isinstance(key, ScalarNode) and key.value == str(part):
                return key, value
    if isinstance(node, SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        return None, node.value[part]
    return None, None


def _line_at(root: Node, loc: Sequence[object], key: bool = False) -> int:
    """Line (1-based) of the node at ``loc``; with ``key``, of the last key itself."""
    node, line = root, root.start_mark.line + 1
    for part in loc:
        key_node, value_node = _child(node, part)
        if value_node is None:
            continue  # pydantic's own loc parts (union tags) have no node
        node = value_node
        line = (key_node if key and key_node is not None else value_node).start_mark.line + 1
    return line


def _key_lines(node: Node | None) -> dict[str, int]:
    if not isinstance(node, MappingNode):
        return {}
    return {str(k.value): v.start_mark.line + 1 for k, v in node.value if isinstance(k, ScalarNode)}


def _structure_problems(file: str, root: Node) -> list[Problem]:
    """Aliases (&a/*a: a YAML bomb's tool), duplicate keys (YAML keeps the last, silently)
    and lists longer than their cap (``LIST_CAPS``: not read further)."""
    problems: list[Problem] = []
    seen: set[int] = set()
    stack: list[tuple[Node, str]] = [(root, "")]
    while stack:
        node, key = stack.pop()
        if id(node) in seen:
            problems.append(
                Problem(
                    file=file,
                    row=node.start_mark.line + 1,
                    message="anchors and aliases (&name, *name) are not supported; write the values out",
                )
            )
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode | SequenceNode) and len(node.value) > LIST_CAPS.get(
            key, len(node.value)
        ):
            problems.append(_too_long(file, node, key))
            continue
        if isinstance(node, MappingNode):
            keys: dict[str, int] = {}
            for k, v in node.value:
                text = str(k.value)
                if text in keys:
                    problems.append(
                        Problem(
                            file=file,
                            row=k.start_mark.line + 1,
                            message=f"key {text!r} appears twice (first on line {keys[text]})",
                        )
                    )
                keys.setdefault(text, k.start_mark.line + 1)
                stack.extend(((k, ""), (v, text)))
        elif isinstance(node, SequenceNode):
            stack.extend((item, "") for item in node.value)
    return problems


def _too_long(file: str, node: Node, key: str) -> Problem:
    return Problem(
        file=file,
        row=node.start_mark.line + 1,
        message=f"{key} has {len(node.value):,} entries, more than a scenario file may hold",
        expected=f"at most {LIST_CAPS[key]:,} (README, Limits)",
    )


# ---------------------------------------------------------------- problems


# What each kind of pydantic error means, in the words of a scenario file.
_PLAIN: dict[str, str] = {
    "dict_type": "must be a mapping (key: value, ...)",
    "model_type": "must be a mapping (key: value, ...)",
    "model_attributes_type": "must be a mapping (key: value, ...)",
    "list_type": "must be a list, e.g. [a, b]",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "finite_number": "must be a finite number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "string_type": "must be text",
}
_EXAMPLES: dict[str, str] = {
    "budget": "e.g. {total: 900000, capex: 300000, monthly: 30000}",
}


def _plain_message(err: Mapping[str, Any], field: str) -> str:
    kind = str(err["type"])
    ctx = err.get("ctx") or {}
    if kind in _PLAIN:
        example = _EXAMPLES.get(field)
        if example and _PLAIN[kind].startswith("must be a mapping"):
            return f"must be a mapping, {example}"
        return _PLAIN[kind]
    if kind in ("too_short", "string_too_short"):
        return (
            "may not be empty" if isinstance(err.get("input"), str) else "needs at least one entry"
        )
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        words = {
            "greater_than_equal": ("ge", "must be at least"),
            "greater_than": ("gt", "must be more than"),
            "less_than_equal": ("le", "must be at most"),
            "less_than": ("lt", "must be less than"),
        }[kind]
        limit = ctx.get(words[0])
        if kind == "less_than_equal" and isinstance(limit, int | float) and limit > 1:
            # The schema's bound on every number (issue 33), as the workbook states it.
            return f"must be at most {bound_text(limit)}, the largest gpumix plans"
        return f"{words[1]} {limit}"
    if kind == "literal_error":
        return "must be one of " + str(ctx.get("expected", "")).replace("'", "").replace(
            " or ", ", "
        )
    # Our own validators' messages are already plain.
    return str(err["msg"]).removeprefix("Value error, ").replace("Input should be", "must be")


def _shown_loc(parts: Sequence[object]) -> str:
    """``prices.0.multiply`` as ``prices entry 1, multiply``."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, int):
            out[-1:] = [f"{out[-1]} entry {part + 1}" if out else f"entry {part + 1}"]
        else:
            out.append(str(part))
    return ", ".join(out)


def _shown_path(label: str | None, inner: Sequence[object], loc: Sequence[object]) -> str:
    """``loc`` for a reader: the scenario's label and the path inside it, when labelled."""
    if label is None:
        return _shown_loc(loc)
    return ", ".join(p for p in (label, _shown_loc(inner)) if p)


def _pydantic_problems(
    file: str,
    root: Node,
    error: ValidationError,
    prefix: tuple[object, ...] = (),
    label: str | None = None,
) -> list[Problem]:
    """Problems for pydantic's errors, located by line; ``label`` names the scenario at ``prefix``."""
    problems = []
    for err in error.errors():
        loc = (*prefix, *err["loc"])
        inner = tuple(err["loc"])
        path = _shown_path(label, inner, loc) or "the file"
        container = _shown_path(label, inner[:-1], loc[:-1])  # where the last key sits
        if err["type"] == "extra_forbidden":
            key = str(loc[-1])
            model = _MODELS.get(tuple(str(p) for p in loc[:-1] if not isinstance(p, int)))
            allowed = list(model.model_fields) if model else []
            # An assumption written beside the scenario's own keys belongs one level down.
            misplaced = model is ScenarioModel and key in ASSUMPTION_KEYS
            hint = (
                f"; {key} is an assumption: put it under 'assumptions:' in the scenario"
                if misplaced
                else suggestion(key, allowed)
            )
            problems.append(
                Problem(
                    file=file,
                    row=_line_at(root, loc, key=True),
                    message=f"unknown key {key!r} in {container or 'the file'}{hint}",
                    expected=("one of " + ", ".join(allowed)) if allowed else None,
                )
            )
        elif err["type"] == "missing":
            missing = f"key {str(loc[-1])!r} is missing"
            problems.append(
                Problem(
                    file=file,
                    row=_line_at(root, loc[:-1]),
                    message=f"{container}: {missing}" if container else missing,
                )
            )
        else:
            field = next((str(p) for p in reversed(loc) if not isinstance(p, int)), "")
            value = err.get("input")
            problems.append(
                Problem(
                    file=file,
                    row=_line_at(root, loc),
                    message=f"{path}: {_plain_message(err, field)}",
                    value=value if isinstance(value, str | int | float | bool) else None,
                )
            )
    return problems
