"""``gpumix compare``'s column names: a scenario name two inputs share is qualified
with its input's file, as much of its path as tells the inputs apart."""

from __future__ import annotations

from pathlib import Path

from optimizer.cli.compare import column_names


def test_names_no_other_input_uses_stay_as_they_are() -> None:
    assert column_names([(Path("a.xlsx"), ["us", "eu"]), (Path("b.yaml"), ["asia"])]) == [
        {"us": "us", "eu": "eu"},
        {"asia": "asia"},
    ]


def test_a_shared_name_is_qualified_with_the_file_stem_and_only_that_name() -> None:
    assert column_names(
        [(Path("odd/minimal.xlsx"), ["base", "eu"]), (Path("headers.xlsx"), ["Base"])]
    ) == [{"base": "minimal: base", "eu": "eu"}, {"Base": "headers: Base"}]


def test_clashing_stems_take_more_of_the_path() -> None:
    assert column_names(
        [
            (Path("q1/quote.xlsx"), ["base"]),
            (Path("q2/quote.xlsx"), ["base"]),
            (Path("other.xlsx"), ["us"]),
        ]
    ) == [{"base": "q1/quote: base"}, {"base": "q2/quote: base"}, {"us": "us"}]


def test_the_same_file_twice_is_told_apart_by_its_place() -> None:
    assert column_names([(Path("a.xlsx"), ["base"]), (Path("a.xlsx"), ["base"])]) == [
        {"base": "a #1: base"},
        {"base": "a #2: base"},
    ]


def test_a_qualified_name_that_meets_a_scenario_of_that_name_is_still_unique() -> None:
    assert column_names([(Path("a.xlsx"), ["base"]), (Path("b.xlsx"), ["base", "a: base"])]) == [
        {"base": "a: base (input 1)"},
        {"base": "b: base", "a: base": "a: base (input 2)"},
    ]
