"""Scenario files: overrides applied on top of the workbook, every problem with its line."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest

from optimizer.cli import main
from optimizer.domain import Kind, OfferOption, Precision
from optimizer.errors import InputError
from optimizer.inputs.load import load_input
from optimizer.inputs.scenario_file.read import read_scenario_file
from tests.conftest import set_cell, sha256, valid_sheets

GOOD = """\
workbook: input.xlsx
scenarios:
  - name: eu-power
    base: eu
    horizon_months: 10
    budget: {total: null, capex: 300000}
    power_cap_kw: 50
    allow_buy: true
    assumptions: {electricity_per_kwh: 0.3, goodput: 0.85}
    prices:
      - {gpu: H100, option: on_demand, multiply: 0.5}
      - {gpu: H100, option: buy, price: 20000}
    exclude_gpus: []
    workloads: [lora-7b]
    add_workloads:
      - {workload: chat-70b, kind: realtime_inference, params_b: 70,
         precision: int4, tokens_per_second: 2000, latency_ms: 40}
  - name: plain
"""


def _write(folder: Path, text: str, name: str = "eu.yaml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def test_overrides_are_applied_in_order(
    tmp_path: Path, write_workbook: Callable[..., Path]
) -> None:
    workbook = write_workbook()
    path = _write(tmp_path, GOOD)
    loaded = load_input(path)
    assert loaded.files == (path, workbook)
    eu, plain = loaded.scenarios
    assert (eu.name, eu.horizon_months, eu.budget_total, eu.budget_capex, eu.power_cap_kw) == (
        "eu-power",
        10,
        None,
        300000.0,
        50.0,
    )
    # allow_buy is back on; the base's exclusion of L40S is replaced by [].
    assert (eu.allow_buy, eu.allow_rent, eu.excluded_gpus) == (True, True, ())
    assert [g.name for g in eu.gpus] == ["H100", "L40S"]
    assert {o.offer_id: o.price for o in eu.offers} == {
        "H100|buy|1": 20000.0,
        "H100|on_demand|1": 3.15 * 0.5,
        "H100|on_demand|2": 2.99 * 0.5,
        "H100|reserved|1": 2.2,
        "L40S|spot|1": 0.6,
    }
    assert eu.offers[1].source == "guide 2026; × 0.5 by eu.yaml, line 11"
    assert eu.offers[0].source == "guide 2026; replaced by 20000 by eu.yaml, line 12"
    assert [w.name for w in eu.workloads] == ["lora-7b", "chat-70b"]
    added = eu.workloads[1]
    assert (
        added.kind,
        added.precision,
        added.params_b,
        added.tokens_per_second,
        added.latency_ms,
    ) == (Kind.REALTIME_INFERENCE, Precision.INT4, 70.0, 2000.0, 40.0)
    assert eu.assumptions.electricity_per_kwh == 0.3
    assert eu.assumption_sources["electricity_per_kwh"] == "eu.yaml, line 9"
    assert eu.assumption_sources["goodput"] == "eu.yaml, line 9"
    assert eu.assumption_sources["pue"] == "Assumptions sheet: no source given"
    assert eu.assumption_sources["mfu_training"].startswith("default: ")
    assert eu.source_files == (path, workbook)
    # "plain" has no base: the workbook's first scenario ("us"), unchanged.
    assert (plain.horizon_months, plain.allow_buy, plain.assumptions.electricity_per_kwh) == (
        24,
        True,
        0.08,
    )
    assert (
        plain.assumption_sources["electricity_per_kwh"] == "Assumptions sheet: EIA industrial 2024"
    )
    assert [w.name for w in plain.workloads] == ["lora-7b", "chat-8b", "batch-8b"]
    assert loaded.workload_count == 4


def test_base_settings_carry_over(tmp_path: Path, write_workbook: Callable[..., Path]) -> None:
    write_workbook()
    loaded = load_input(
        _write(tmp_path, "workbook: input.xlsx\nscenarios:\n  - {name: x, base: eu}\n")
    )
    (x,) = loaded.scenarios
    assert (x.horizon_months, x.budget_total, x.allow_buy, x.excluded_gpus) == (
        12,
        500000.0,
        False,
        ("L40S",),
    )
    assert all(o.option.is_rent for o in x.offers)
    assert x.assumption_sources["electricity_per_kwh"] == "Scenarios sheet, row 3"


def test_read_scenario_file_shape(tmp_path: Path) -> None:
    parsed = read_scenario_file(_write(tmp_path, GOOD))
    assert parsed.workbook == tmp_path / "input.xlsx"
    first = parsed.scenarios[0]
    assert first.settings["budget_total"] is None
    assert first.settings["budget_capex"] == 300000.0
    assert "budget_monthly" not in first.settings
    assert [(c.gpu, c.option, c.multiply, c.price) for c in first.prices] == [
        ("H100", OfferOption.ON_DEMAND, 0.5, None),
        ("H100", OfferOption.BUY, None, 20000.0),
    ]


# (id, YAML, fragments stderr must contain)
BAD: list[tuple[str, str, list[str]]] = [
    (
        "unknown top key",
        "workbook: input.xlsx\nworkbok: x\nscenarios: [{name: a}]\n",
        ["eu.yaml, line 2", "unknown key 'workbok'"],
    ),
    (
        "unknown scenario key",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    horizon: 12\n",
        [
            "eu.yaml, line 4",
            "unknown key 'horizon' in scenario 'a'",
            "did you mean 'horizon_months'",
        ],
    ),
    (
        "assumption beside the scenario's keys",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    electricity_per_kwh: 0.3\n",
        [
            "eu.yaml, line 4",
            "unknown key 'electricity_per_kwh' in scenario 'a'; electricity_per_kwh is an "
            "assumption: put it under 'assumptions:' in the scenario",
        ],
    ),
    (
        "unknown budget key",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    budget:\n      totl: 5\n",
        [
            "eu.yaml, line 5",
            "unknown key 'totl' in scenario 'a', budget",
            "one of total, capex, monthly",
        ],
    ),
    (
        "unknown price key",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    prices:\n      - {gpu: H100, option: buy, factor: 2}\n",
        ["eu.yaml, line 5", "unknown key 'factor'"],
    ),
    (
        "unknown assumption",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    assumptions:\n      pue: 1.2\n      puee: 1.3\n",
        ["eu.yaml, line 6", "assumptions.puee: unknown assumption key", "did you mean 'pue'"],
    ),
    (
        "assumption out of range",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    assumptions: {goodput: 1.5}\n",
        ["eu.yaml, line 4", "assumptions.goodput: must be at most 1", "1.5"],
    ),
    (
        "wrong type",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    horizon_months: soon\n",
        ["eu.yaml, line 4", "scenario 'a', horizon_months: must be a whole number", "'soon'"],
    ),
    (
        "budget as a number",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    budget: 5000\n",
        [
            "eu.yaml, line 4",
            "scenario 'a', budget: must be a mapping, e.g. {total: 900000, capex: 300000, "
            "monthly: 30000} (found 5000)",
        ],
    ),
    (
        "empty workbook path",
        'workbook: ""\nscenarios:\n  - name: a\n',
        ["eu.yaml, line 1", "workbook: may not be empty"],
    ),
    (
        "unknown price option",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    prices:\n      - {gpu: H100, option: bye, multiply: 2}\n",
        [
            "eu.yaml, line 5",
            "scenario 'a', prices entry 1, option: must be one of buy, on_demand, spot, reserved",
        ],
    ),
    (
        "negative price factor",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    prices:\n      - {gpu: H100, option: buy, multiply: -2}\n",
        ["eu.yaml, line 5", "scenario 'a', prices entry 1, multiply: must be at least 0"],
    ),
    (
        "workloads not a list",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    workloads: chat-8b\n",
        ["eu.yaml, line 4", "scenario 'a', workloads: must be a list, e.g. [a, b]"],
    ),
    (
        "scenario without a name",
        "workbook: input.xlsx\nscenarios:\n  - horizon_months: 3\n",
        ["eu.yaml, line 3", "scenario 1: key 'name' is missing"],
    ),
    (
        "null horizon",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    horizon_months: null\n",
        ["eu.yaml, line 4", "may not be empty"],
    ),
    (
        "duplicate key",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    power_cap_kw: 5\n    power_cap_kw: 6\n",
        ["eu.yaml, line 5", "key 'power_cap_kw' appears twice (first on line 4)"],
    ),
    (
        "alias",
        "workbook: input.xlsx\nscenarios:\n  - &a {name: a}\n  - *a\n",
        ["eu.yaml, line", "anchors and aliases"],
    ),
    (
        "not YAML",
        "workbook: input.xlsx\nscenarios: [name: a\n",
        ["eu.yaml, line", "is not valid YAML"],
    ),
    (
        "price naming no offer",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    prices:\n      - {gpu: L40S, option: buy, price: 9000}\n",
        ["eu.yaml, line 5", "the workbook has no buy offer for L40S"],
    ),
    (
        "price for unknown gpu",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    prices:\n      - {gpu: H1OO, option: buy, multiply: 2}\n",
        ["eu.yaml, line 5", "no GPU type 'H1OO'", "did you mean 'H100'"],
    ),
    (
        "price and multiply",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    prices:\n      - {gpu: H100, option: buy, multiply: 2, price: 3}\n",
        ["eu.yaml, line 5", "give exactly one of multiply or price"],
    ),
    (
        "unknown base",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    base: asia\n",
        ["eu.yaml, line 4", "no scenario 'asia' in the workbook", "one of us, eu"],
    ),
    (
        "unknown workload",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    workloads: [lora-7b, chat-9b]\n",
        ["eu.yaml, line 4", "no workload 'chat-9b'", "did you mean 'chat-8b'"],
    ),
    (
        "unknown excluded gpu",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    exclude_gpus: [A100]\n",
        ["eu.yaml, line 4", "no GPU type 'A100'"],
    ),
    (
        "bad added workload",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    add_workloads:\n      - workload: w\n        kind: lora\n        params_b: big\n",
        [
            "eu.yaml, line 7",
            "add_workloads entry 1, params_b: not a number",
            "'big'",
            "a number > 0 (billion parameters)",
        ],
    ),
    (
        "added workload missing tokens",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    add_workloads:\n      - {workload: w, kind: pretraining, params_b: 1}\n",
        ["eu.yaml, line 5", "tokens: is blank; a pretraining workload needs"],
    ),
    (
        "added workload with bad tokens",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    add_workloads:\n      - {workload: w, kind: pretraining, params_b: 1, tokens: -5}\n",
        ["1 problem", "eu.yaml, line 5", "tokens: must be more than 0"],
    ),
    (
        "added workload unknown key",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    add_workloads:\n      - {workload: w, kind: lora, params_b: 1, tokens: 5, tokenz: 5}\n",
        ["eu.yaml, line 5", "tokenz: unknown key", "did you mean 'tokens'"],
    ),
    (
        "added workload clash",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    add_workloads:\n      - {workload: lora-7b, kind: lora, params_b: 1, tokens: 5}\n",
        ["eu.yaml, line 5", "already in the workbook (sheet Workloads, row 2)"],
    ),
    (
        "added realtime interruptible",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    add_workloads:\n      - {workload: w, kind: realtime_inference, params_b: 1, tokens_per_second: 5, interruptible: yes}\n",
        ["eu.yaml, line 5", "cannot be interruptible"],
    ),
    (
        "nested value in an added workload",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    add_workloads:\n"
        "      - {workload: [w], kind: lora, params_b: 1, tokens: 5}\n",
        ["eu.yaml, line 5", "workload: must be a single value"],
    ),
    (
        "nested too deeply",
        "workbook: input.xlsx\nscenarios: " + "[" * 20000 + "\n",
        ["eu.yaml", "nested too deeply"],
    ),
    (
        "window past the new horizon",
        "workbook: input.xlsx\nscenarios:\n  - name: short\n    horizon_months: 2\n",
        [
            "sheet Workloads, cell J2",
            "scenario 'short'",
            "2-month horizon (horizon_months from eu.yaml, line 4)",
        ],
    ),
    (
        "added workload past horizon",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    add_workloads:\n      - {workload: w, kind: lora, params_b: 1, tokens: 5, end_month: 40}\n",
        ["eu.yaml, line 5", "scenario 'a'", "ends in month 40", "24-month horizon"],
    ),
    (
        "duplicate scenario",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n  - name: A\n",
        ["eu.yaml, line 4", "scenario name used twice (first on line 3)"],
    ),
    (
        "duplicate scenario that has a problem of its own",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n  - name: a\n    horizon_months: soon\n",
        [
            "2 problems",
            "eu.yaml, line 4: scenario 'a': scenario name used twice (first on line 3)",
            "eu.yaml, line 5: scenario 'a', horizon_months: must be a whole number",
        ],
    ),
    (
        "references checked beside other problems of the entry",
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    horizon_months: soon\n"
        "    exclude_gpus: [Z80]\n    workloads: [lora-7b, nope]\n"
        "    prices:\n      - {gpu: H999, option: buy, price: 3}\n",
        [
            "4 problems",
            "line 4: scenario 'a', horizon_months: must be a whole number",
            "line 5: scenario 'a', exclude_gpus: no GPU type 'Z80' in the workbook",
            "line 6: scenario 'a', workloads: no workload 'nope' in the workbook",
            "line 8: scenario 'a', prices entry 1, gpu: no GPU type 'H999' in the workbook",
        ],
    ),
    ("no scenarios", "workbook: input.xlsx\nscenarios: []\n", ["eu.yaml, line 2", "scenarios"]),
    (
        "missing workbook key",
        "scenarios: [{name: a}]\n",
        ["eu.yaml, line 1", "key 'workbook' is missing"],
    ),
    (
        "workbook not found",
        "workbook: ../nowhere.xlsx\nscenarios: [{name: a}]\n",
        ["eu.yaml, line 1", "workbook ", "nowhere.xlsx not found"],
    ),
    (
        "workbook is not xlsx",
        "workbook: other.yaml\nscenarios: [{name: a}]\n",
        ["eu.yaml, line 1", "workbook other.yaml is not an .xlsx workbook"],
    ),
    ("not a mapping", "- just\n- a list\n", ["eu.yaml, line 1", "must be a mapping"]),
    ("empty document", "# nothing\n", ["eu.yaml", "holds no YAML document"]),
]


@pytest.mark.parametrize(
    ("text", "fragments"), [(t, f) for _, t, f in BAD], ids=[b[0] for b in BAD]
)
def test_bad_scenario_file(
    tmp_path: Path,
    write_workbook: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    text: str,
    fragments: list[str],
) -> None:
    workbook = write_workbook()
    path = _write(tmp_path, text)
    before = (sha256(path), sha256(workbook))
    code = main(["validate", str(path)])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert (sha256(path), sha256(workbook)) == before
    for fragment in fragments:
        assert fragment in err, f"{fragment!r} not in:\n{err}"


def test_problems_in_several_scenarios_are_reported_together(
    tmp_path: Path, write_workbook: Callable[..., Path]
) -> None:
    write_workbook()
    text = "workbook: input.xlsx\nscenarios:\n  - name: a\n    budgt: 1\n  - name: b\n    assumptions: {pue: -1}\n"
    with pytest.raises(InputError) as caught:
        load_input(_write(tmp_path, text))
    assert [p.row for p in caught.value.problems] == [4, 6]


def test_validate_prints_the_summary_for_a_scenario_file(
    tmp_path: Path, write_workbook: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    write_workbook()
    code = main(["validate", str(_write(tmp_path, GOOD))])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert (
        out == "eu.yaml: OK — 2 GPU types, 5 offers, 4 workloads, 2 scenarios (eu-power, plain)\n"
    )


def test_yml_suffix_and_scenario_selection(
    tmp_path: Path, write_workbook: Callable[..., Path]
) -> None:
    write_workbook()
    loaded = load_input(_write(tmp_path, GOOD, "eu.yml"), ["plain"])
    assert [s.name for s in loaded.scenarios] == ["plain"]


def test_problems_in_the_file_and_the_workbook_are_reported_together(
    tmp_path: Path, write_workbook: Callable[..., Path]
) -> None:
    write_workbook(set_cell(valid_sheets(), "Prices", 3, "price", "cheap"))
    text = "workbook: input.xlsx\nscenarios:\n  - name: a\n    budgt: 1\n  - name: b\n"
    with pytest.raises(InputError) as caught:
        load_input(_write(tmp_path, text))
    assert [(Path(p.file).name, p.row, p.cell) for p in caught.value.problems] == [
        ("eu.yaml", 4, None),
        ("input.xlsx", 3, "C3"),
    ]


def test_a_base_with_problems_of_its_own_is_not_reported_again(
    tmp_path: Path, write_workbook: Callable[..., Path]
) -> None:
    write_workbook(set_cell(valid_sheets(), "Scenarios", 3, "budget_total", "lots"))
    with pytest.raises(InputError) as caught:
        load_input(_write(tmp_path, "workbook: input.xlsx\nscenarios:\n  - {name: x, base: eu}\n"))
    assert [(p.sheet, p.cell, p.value) for p in caught.value.problems] == [
        ("Scenarios", "C3", "lots")
    ]


def test_residual_value_set_later_replaces_the_v1_key_set_earlier(
    tmp_path: Path, write_workbook: Callable[..., Path]
) -> None:
    sheets = valid_sheets()
    sheets["Assumptions"].append(["credit_residual_value", False, "finance: no credit"])
    write_workbook(sheets)
    path = _write(
        tmp_path,
        """\
        workbook: input.xlsx
        scenarios:
          - name: market
            assumptions: {residual_value: market}
          - name: kept
        """,
    )
    market, kept = load_input(path).scenarios
    assert market.assumptions.residual_rule.value == "market"
    assert market.assumption_sources["residual_value"] == "eu.yaml, line 4"
    assert kept.assumptions.residual_rule.value == "none"


def test_the_v1_key_set_later_shows_as_the_rule_it_means_in_the_audit(
    tmp_path: Path, write_workbook: Callable[..., Path]
) -> None:
    # The sheet says market; the scenario file says v1's TRUE (book). The plan
    # credits book value, and the Audit sheet must not say "market".
    sheets = valid_sheets()
    sheets["Assumptions"].append(["residual_value", "market", "finance: resale"])
    write_workbook(sheets)
    path = _write(
        tmp_path,
        """\
        workbook: input.xlsx
        scenarios:
          - name: book
            assumptions: {credit_residual_value: true}
          - name: none
            assumptions: {credit_residual_value: false}
          - name: kept
        """,
    )
    book, none, kept = load_input(path).scenarios
    assert (book.assumptions.residual_value, none.assumptions.residual_value) == ("book", "none")
    assert book.assumption_sources["residual_value"] == (
        "eu.yaml, line 4 (credit_residual_value TRUE)"
    )
    assert kept.assumptions.residual_value == "market"
    assert kept.assumption_sources["residual_value"] == "Assumptions sheet: finance: resale"
    out = tmp_path / "out.xlsx"
    assert main(["solve", str(path), "--scenario", "book", "--output", str(out), "--quiet"]) == 0
    audit = openpyxl.load_workbook(out, read_only=True)["Audit"]
    rows = {r[1]: r for r in audit.iter_rows(values_only=True) if r[0] == "book"}
    assert rows["residual_value"][2:5:2] == ("book", "eu.yaml, line 4 (credit_residual_value TRUE)")


def test_both_residual_keys_in_one_scenario_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], write_workbook: Callable[..., Path]
) -> None:
    write_workbook()
    path = _write(
        tmp_path,
        """\
        workbook: input.xlsx
        scenarios:
          - name: both
            assumptions: {residual_value: book, credit_residual_value: true}
        """,
    )
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err.splitlines()[1] == (
        "  - eu.yaml, line 4: scenario 'both', assumptions.residual_value: "
        "credit_residual_value (v1) and residual_value say the same thing: give one "
        "(credit_residual_value TRUE = residual_value book, FALSE = none) (found 'book'); "
        "expected one of the two keys"
    )
