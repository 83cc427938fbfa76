"""gpumix's estimates against published figures (model v2 §G): each stays in its band.

A row outside ±15 % must say why (``Published.why``); at least 80 % of the main
table is within ±15 % and none is more than 2× off without a reason. The
held-out figures are checked by the same rules, on their own.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from optimizer.domain import Gpu
from optimizer.inputs.catalogue import catalogue
from tests.fidelity.figures import FIGURES
from tests.fidelity.held_out import HELD_OUT
from tests.fidelity.published import WITHIN, Published, estimate, ratio, within
from tests.fidelity.table import markdown_table

ALL = FIGURES + HELD_OUT
DOC = Path(__file__).parents[2] / "docs" / "methodology.md"


@pytest.mark.parametrize("row", ALL, ids=[f"{r.figure.value}: {r.name}" for r in ALL])
def test_each_estimate_stays_in_its_band(row: Published) -> None:
    low, high = row.band
    assert low <= ratio(row) <= high, (
        f"{row.name}: estimate {estimate(row):,.2f} vs published {row.published:,.2f}"
        f" ({ratio(row):.3f}), band {row.band}"
    )


@pytest.mark.parametrize("row", ALL, ids=[r.name for r in ALL])
def test_a_band_wider_than_15_percent_says_why(row: Published) -> None:
    assert (row.band == WITHIN) == (row.why == ""), row.name
    # A row no longer outside ±15 % keeps no stale reason (and no stale band).
    assert within(row) == (row.band == WITHIN), f"{row.name}: {ratio(row):.3f}"


def test_the_table_has_25_cited_figures_and_80_percent_within_15_percent() -> None:
    assert len(FIGURES) >= 25
    assert all(r.source.startswith("https://") for r in ALL)
    share = sum(within(r) for r in FIGURES) / len(FIGURES)
    assert share >= 0.80, f"{share:.0%} within ±15 %"
    assert (sum(within(r) for r in FIGURES), len(FIGURES)) == (25, 30)


def test_held_out_figures_are_reported_as_they_are() -> None:
    # Checked independently: 6 of 14 within ±15 % (docs/methodology.md §1.7 says which
    # are not, and why). A change that moves this count must update the page. (5 until
    # the TensorRT-LLM 2 × A100 row was read per GPU, as the page's later revision labels it.)
    assert (sum(within(r) for r in HELD_OUT), len(HELD_OUT)) == (6, 14)


def test_none_is_more_than_twice_off_without_a_reason() -> None:
    far = [r for r in ALL if not 0.5 <= ratio(r) <= 2.0]
    assert all(r.why for r in far)
    assert [r.name for r in far] == [
        "Llama-2-7B KV cache, architecture blank",
        "Llama 3.1 8B, 15T tokens",
    ]


def test_held_out_figures_are_not_in_the_main_table() -> None:
    assert not {(r.name, r.source) for r in HELD_OUT} & {(r.name, r.source) for r in FIGURES}


def test_the_methodology_shows_both_tables_as_they_are() -> None:
    doc = DOC.read_text(encoding="utf-8")
    assert markdown_table(FIGURES) in doc
    assert markdown_table(HELD_OUT) in doc


def _from_the_catalogue(row: Published) -> Published:
    """The row with its GPU as a user typing only the name gets it (issue 31); a type the
    catalogue does not know (H800) keeps the row's figures."""
    entry = catalogue().find(row.gpu.name)
    if entry is None:
        return row
    figures = {column: f.value for column, f in entry.figures.items()}
    return replace(row, gpu=Gpu(name=row.gpu.name, **figures))


@pytest.mark.parametrize("row", ALL, ids=[r.name for r in ALL])
def test_each_estimate_stays_in_its_band_from_the_gpu_name_alone(row: Published) -> None:
    """Issue 31's done-when: the published figures land within their bands when the GPUs
    row gives only the name and the GPU catalogue fills the rest."""
    named = _from_the_catalogue(row)
    low, high = row.band
    assert low <= ratio(named) <= high, (
        f"{row.name} on {named.gpu}: estimate {estimate(named):,.2f} vs published "
        f"{row.published:,.2f} ({ratio(named):.3f}), band {row.band}"
    )


def test_the_fidelity_gpus_are_catalogue_names() -> None:
    """Every GPU of the table but the H800 is found by the name the table gives it, so the
    test above does test the catalogue."""
    names = {r.gpu.name for r in ALL}
    assert {n for n in names if catalogue().find(n) is None} == {"H800"}
