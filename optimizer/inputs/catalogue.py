"""The GPU catalogue (issue 31): datasheet figures by GPU name, each with its source.

The figures live in ``gpu_catalogue.yaml`` beside this module (data, not
code). :func:`catalogue` reads and checks it once; :func:`catalogue_problems`
is the check, kept apart so that a test can hand it a damaged file. A name
matches an entry after :func:`normalise` (case, spaces, dashes, underscores
and a leading vendor name fall away), and only exactly: no fuzzy guessing,
though :func:`suggestions` offers close names for an error message.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from optimizer.domain import CatalogueFigure
from optimizer.inputs.schema import GPUS, ColumnType

CATALOGUE_FILE = "gpu_catalogue.yaml"
_VENDORS = ("nvidia", "amd")
# The columns an entry may fill: every GPUs column but the name and the server
# price (no prices: they differ by provider and week).
FILLABLE = tuple(c.name for c in GPUS.columns if c.name not in ("gpu", "node_price"))
# What a figure of each column can plausibly be, in the sheet's units: a figure
# outside is a unit slip (VRAM in MB, TFLOPS with sparsity, a percent typed as 40).
PLAUSIBLE: Mapping[str, tuple[float, float]] = {
    "vram_gb": (4, 1024),
    "fp16_tflops": (5, 10_000),
    "memory_bandwidth_gbs": (100, 30_000),
    "tdp_w": (20, 3_000),
    "max_per_node": (1, 72),
    "node_power_w": (0, 20_000),
    "mfu_training": (0.1, 0.8),
}
_YEAR = re.compile(r"\b(19|20)\d\d\b")


class CatalogueError(Exception):
    """The catalogue file is damaged or breaks a rule; a test finds it, not a user's run."""


@dataclass(frozen=True)
class Entry:
    name: str
    aliases: tuple[str, ...]
    figures: Mapping[str, CatalogueFigure]  # by column; ``gpu`` is the entry's name


@dataclass(frozen=True)
class Catalogue:
    entries: tuple[Entry, ...]
    by_key: Mapping[str, Entry]  # every normalised name and alias

    def find(self, name: str) -> Entry | None:
        """The entry ``name`` means, matched exactly after :func:`normalise`."""
        return self.by_key.get(normalise(name))

    def suggestions(self, name: str, n: int = 4) -> list[str]:
        """Entry names close to ``name``, for "did you mean" (never used to match):
        first those containing it ("A100": the four A100s), then similar ones."""
        key = normalise(name)
        containing = [k for k in self.by_key if key and key in k]
        close = difflib.get_close_matches(key, list(self.by_key), n=n * 3, cutoff=0.6)
        names = list(dict.fromkeys(self.by_key[k].name for k in (*containing, *close)))
        return names[:n]


def normalise(name: str) -> str:
    """``NVIDIA A100-SXM4-80GB`` → ``a100sxm480gb``: case, spaces, dashes, underscores
    and a leading vendor name removed."""
    key = re.sub(r"[\s\-_]+", "", name.strip().lower())
    for vendor in _VENDORS:
        if key.startswith(vendor) and len(key) > len(vendor):
            return key[len(vendor) :]
    return key


def did_you_mean(names: list[str]) -> str:
    """``; did you mean 'H100 SXM' or 'H200'?`` (empty when there is nothing close)."""
    if not names:
        return ""
    quoted = [repr(n) for n in names]
    listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return f"; did you mean {listed}?"


def _figure_problems(where: str, column: str, raw: Any, sources: Mapping[str, Any]) -> list[str]:
    if not isinstance(raw, dict) or set(raw) - {"value", "source", "note"}:
        return [f"{where}: {column} must be {{value, source, note}}, not {raw!r}"]
    value, source = raw.get("value"), raw.get("source")
    problems = []
    if source not in sources:
        problems.append(f"{where}: {column} cites source {source!r}, which is not in sources")
    kind = GPUS.column(column).type
    if kind is ColumnType.BOOL:
        if not isinstance(value, bool):
            problems.append(f"{where}: {column} must be true or false, not {value!r}")
    elif kind is ColumnType.INTEGER and (isinstance(value, bool) or not isinstance(value, int)):
        problems.append(f"{where}: {column} must be a whole number, not {value!r}")
    elif isinstance(value, bool) or not isinstance(value, int | float):
        problems.append(f"{where}: {column} must be a number, not {value!r}")
    elif column in PLAUSIBLE and not PLAUSIBLE[column][0] <= value <= PLAUSIBLE[column][1]:
        low, high = PLAUSIBLE[column]
        problems.append(
            f"{where}: {column} {value!r} is outside {low:g}–{high:g}"
            f"{f' {GPUS.column(column).unit}' if GPUS.column(column).unit else ''}"
        )
    if not isinstance(raw.get("note", ""), str):
        problems.append(f"{where}: {column}'s note must be text")
    return problems


def catalogue_problems(data: Any) -> list[str]:
    """Every way ``data`` (the parsed YAML) breaks the catalogue's rules; [] when sound."""
    if not isinstance(data, dict) or set(data) != {"sources", "gpus"}:
        return ["the catalogue must be a mapping with exactly the keys sources and gpus"]
    sources, gpus = data["sources"], data["gpus"]
    problems = []
    if not isinstance(sources, dict) or not sources:
        return ["sources must map a key to a document and its date"]
    for key, text in sources.items():
        if not isinstance(text, str) or not _YEAR.search(text):
            problems.append(f"source {key!r} must name a document and its year, not {text!r}")
    if not isinstance(gpus, list) or not gpus:
        return [*problems, "gpus must be a list of entries"]
    seen: dict[str, str] = {}
    cited: set[str] = set()
    for i, entry in enumerate(gpus, start=1):
        where = f"entry {i}"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            problems.append(f"{where}: needs a name")
            continue
        name = entry["name"]
        where = f"entry {i} ({name})"
        aliases = entry.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            problems.append(f"{where}: aliases must be a list of names")
            aliases = []
        for alias in (name, *aliases):
            key = normalise(alias)
            if not key:
                problems.append(f"{where}: the name {alias!r} is empty once normalised")
            elif key in seen:
                problems.append(f"{where}: {alias!r} is also a name of {seen[key]!r}")
            else:
                seen[key] = name
        for column, raw in entry.items():
            if column in ("name", "aliases"):
                continue
            if column not in FILLABLE:
                problems.append(
                    f"{where}: {column} is not a GPUs column the catalogue fills"
                    " (never node_price: no prices)"
                )
                continue
            problems.extend(_figure_problems(where, column, raw, sources))
            if isinstance(raw, dict):
                cited.add(str(raw.get("source")))
        if not {"vram_gb"} & set(entry):
            problems.append(f"{where}: has no vram_gb")
    problems.extend(f"source {key!r} is cited by no figure" for key in set(sources) - cited)
    return problems


def build_catalogue(data: Any) -> Catalogue:
    """The checked catalogue of parsed YAML; CatalogueError lists every problem."""
    problems = catalogue_problems(data)
    if problems:
        raise CatalogueError("the GPU catalogue is unsound:\n" + "\n".join(problems))
    sources = data["sources"]
    entries = tuple(
        Entry(
            name=e["name"],
            aliases=tuple(e.get("aliases", ())),
            figures={
                column: CatalogueFigure(
                    e["name"],
                    column,
                    raw["value"],
                    e["name"],
                    sources[raw["source"]],
                    raw.get("note", ""),
                )
                for column, raw in e.items()
                if column in FILLABLE
            },
        )
        for e in data["gpus"]
    )
    by_key = {normalise(a): e for e in entries for a in (e.name, *e.aliases)}
    return Catalogue(entries, by_key)


@cache
def catalogue() -> Catalogue:
    """The shipped catalogue, read and checked once."""
    text = resources.files("optimizer.inputs").joinpath(CATALOGUE_FILE).read_text("utf-8")
    # libyaml's safe loader where PyYAML has it: the same data, about 6x faster (31 -> 5 ms),
    # paid by every process that estimates, workers included.
    return build_catalogue(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
