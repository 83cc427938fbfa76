"""Futures in scenario files (issue 19): ``futures:``, ``decide_by_month``, ``max_regret*``.

The workbook is ``tests.conftest.valid_sheets()``: scenario ``us`` (24 months,
every workload and GPU type) and ``eu`` (12 months, lora-7b and chat-8b, L40S
left out, no buying). Bad inputs go through ``gpumix validate``: exit 2, the
exact message naming file, line and value, and both files unchanged.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from optimizer.cli import main
from optimizer.domain import OfferOption
from optimizer.domain.futures import Futures, FutureSpec, PriceFactor
from optimizer.inputs.load import load_input
from tests.conftest import sha256

GROWTH_BET = """\
workbook: input.xlsx
scenarios:
  - name: growth-bet
    base: us
    decide_by_month: 3
    max_regret_share: 0.05
    futures:
      - {name: low, probability: 0.25, demand_factor: 0.7}
      - {name: expected, probability: 0.5}
      - name: high
        probability: 0.25
        growth_per_month: 0.08
        demand_factors: {chat-8b: 2.0}
        growth: {chat-8b: 0.1}
        prices: [{gpu: H100, option: on_demand, multiply: 1.2}, {option: spot, multiply: 1.5}]
"""

EXPECTED = Futures(
    (
        FutureSpec("low", 0.25, demand_factor=0.7),
        FutureSpec("expected", 0.5),
        FutureSpec(
            "high",
            0.25,
            workload_demand_factors=(("chat-8b", 2.0),),
            growth_per_month=0.08,
            workload_growth=(("chat-8b", 0.1),),
            price_factors=(
                PriceFactor(1.2, "H100", OfferOption.ON_DEMAND),
                PriceFactor(1.5, None, OfferOption.SPOT),
            ),
        ),
    ),
    decide_by_month=3,
    max_regret_share=0.05,
)


def _write(folder: Path, text: str, name: str = "f.yaml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def test_a_futures_block_parses_into_the_exact_futures(
    tmp_path: Path, write_workbook: Callable[..., Path]
) -> None:
    write_workbook()
    (scenario,) = load_input(_write(tmp_path, GROWTH_BET)).scenarios
    assert scenario.futures == EXPECTED


def test_a_scenario_without_futures_has_none_and_an_empty_list_is_none_too(
    tmp_path: Path, write_workbook: Callable[..., Path]
) -> None:
    write_workbook()
    text = "workbook: input.xlsx\nscenarios:\n  - name: a\n  - name: b\n    futures: []\n"
    a, b = load_input(_write(tmp_path, text)).scenarios
    assert (a.futures, b.futures) == (None, None)


def test_a_third_each_sums_to_one_and_a_regret_bound_in_money_is_kept(
    tmp_path: Path, write_workbook: Callable[..., Path]
) -> None:
    write_workbook()
    third = 1 / 3
    text = (
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    max_regret: 25000\n    futures:\n"
        f"      - {{name: x, probability: {third!r}}}\n"
        f"      - {{name: y, probability: {third!r}, demand_factors: {{batch-8b: 0}}}}\n"
        f"      - {{name: z, probability: {third!r}, prices: [{{gpu: L40S, multiply: 2}}]}}\n"
    )
    (a,) = load_input(_write(tmp_path, text)).scenarios
    assert a.futures == Futures(
        (
            FutureSpec("x", third),
            FutureSpec("y", third, workload_demand_factors=(("batch-8b", 0.0),)),
            FutureSpec("z", third, price_factors=(PriceFactor(2.0, "L40S", None),)),
        ),
        max_regret=25000.0,
    )


BAD: list[tuple[str, str, list[str]]] = [
    (
        "probabilities do not sum to 1",
        "    futures:\n      - {name: low, probability: 0.3}\n      - {name: high, probability: 0.6}\n",
        [
            "f.yaml, line 5: scenario 'a', futures: the probabilities of its futures "
            "(low 0.3, high 0.6) sum to 0.9, not 1; expected probabilities that sum to 1"
        ],
    ),
    (
        "a future's name twice",
        "    futures:\n      - {name: low, probability: 0.5}\n      - {name: Low, probability: 0.5}\n",
        [
            "f.yaml, line 6: scenario 'a', future 'Low', name: a second future of this name in "
            "the scenario (first on line 5) (found 'Low'); expected a name used once per scenario"
        ],
    ),
    (
        "an unknown key in a future",
        "    futures:\n      - {name: low, probability: 1, demand: 2}\n",
        [
            "f.yaml, line 5: unknown key 'demand' in scenario 'a', futures entry 1; did you mean 'demand_factor'?; "
            "expected one "
            "of name, probability, demand_factor, growth_per_month, demand_factors, growth, prices"
        ],
    ),
    (
        "an unknown key in a price factor",
        "    futures:\n      - name: low\n        probability: 1\n"
        "        prices: [{gpu: H100, times: 2}]\n",
        [
            "f.yaml, line 7: scenario 'a', futures entry 1, prices entry 1: key 'multiply' is "
            "missing",
            "f.yaml, line 7: unknown key 'times' in scenario 'a', futures entry 1, prices "
            "entry 1; expected one of gpu, option, multiply",
        ],
    ),
    (
        "probability 0",
        "    futures:\n      - {name: low, probability: 0}\n",
        [
            "f.yaml, line 5: scenario 'a', futures entry 1, probability: must be more than 0 "
            "(found 0)"
        ],
    ),
    (
        "probability above 1",
        "    futures:\n      - {name: low, probability: 1.5}\n",
        [
            "f.yaml, line 5: scenario 'a', futures entry 1, probability: must be at most 1 "
            "(found 1.5)"
        ],
    ),
    (
        "an unknown option",
        "    futures:\n      - {name: low, probability: 1, prices: [{option: lease, multiply: 2}]}\n",
        [
            "f.yaml, line 5: scenario 'a', futures entry 1, prices entry 1, option: must be one "
            "of buy, on_demand, spot, reserved (found 'lease')"
        ],
    ),
    (
        "a training workload's demand",
        "    futures:\n      - {name: low, probability: 1, growth: {lora-7b: 0.1}}\n",
        [
            "f.yaml, line 5: scenario 'a', future 'low', growth.lora-7b: 'lora-7b' is lora: the "
            "demand of a training job does not scale in a future (demand factors and growth are "
            "for realtime_inference and batch_inference workloads) (found 'lora-7b'); expected a "
            "realtime_inference or batch_inference workload"
        ],
    ),
    (
        "an unknown workload",
        "    futures:\n      - name: low\n        probability: 1\n"
        "        demand_factors:\n          chat-9b: 2\n",
        [
            "f.yaml, line 8: scenario 'a', future 'low', demand_factors.chat-9b: no workload "
            "'chat-9b' in the workbook; did you mean 'chat-8b'? (found 'chat-9b'); expected a "
            "name from sheet Workloads (or added by the scenario)"
        ],
    ),
    (
        "a workload the scenario does not plan",
        "    base: eu\n    futures:\n      - {name: low, probability: 1, demand_factors: {batch-8b: 2}}\n",
        [
            "f.yaml, line 6: scenario 'a', future 'low', demand_factors.batch-8b: scenario 'a' "
            "does not plan workload 'batch-8b' (its workloads: lora-7b, chat-8b) (found "
            "'batch-8b'); expected a workload scenario 'a' plans"
        ],
    ),
    (
        "a GPU type the scenario leaves out",
        "    base: eu\n    futures:\n      - {name: low, probability: 1, prices: [{gpu: L40S, multiply: 2}]}\n",
        [
            "f.yaml, line 6: scenario 'a', future 'low', prices entry 1, gpu: scenario 'a' leaves "
            "out GPU type 'L40S' (exclude_gpus) (found 'L40S'); expected a GPU type scenario 'a' "
            "keeps"
        ],
    ),
    (
        "an unknown GPU type",
        "    futures:\n      - {name: low, probability: 1, prices: [{gpu: H200, multiply: 2}]}\n",
        [
            "f.yaml, line 5: scenario 'a', future 'low', prices entry 1, gpu: no GPU type 'H200' "
            "in the workbook; did you mean 'H100'? (found 'H200'); expected a name from sheet GPUs"
        ],
    ),
    (
        "a factor that changes no price",
        "    base: eu\n    futures:\n"
        "      - {name: low, probability: 1, prices: [{gpu: H100, option: buy, multiply: 2}]}\n",
        [
            "f.yaml, line 6: scenario 'a', future 'low', prices entry 1, multiply: scenario 'a' "
            "has no H100 buy offer, so this factor of future 'low' would change no price (found "
            "2.0); expected a factor for a GPU type and option the scenario offers (sheet Prices)"
        ],
    ),
    (
        "a second factor for the same offers",
        "    futures:\n      - name: low\n        probability: 1\n        prices:\n"
        "          - {option: spot, multiply: 2}\n          - {option: spot, multiply: 3}\n",
        [
            "f.yaml, line 9: scenario 'a', future 'low', prices entry 2: a second price factor "
            "for spot offers in this future (first on line 8)"
        ],
    ),
    (
        "decide_by_month past the horizon",
        "    base: eu\n    decide_by_month: 13\n    futures:\n      - {name: low, probability: 1}\n",
        [
            "f.yaml, line 5: scenario 'a', decide_by_month: month 13 is past the 12-month horizon "
            "of scenario 'a' (horizon_months from Scenarios sheet, row 3) (found 13); expected a "
            "month from 1 to 12"
        ],
    ),
    (
        "decide_by_month without futures",
        "    decide_by_month: 2\n",
        [
            "f.yaml, line 4: scenario 'a', decide_by_month: is given, but scenario 'a' has no "
            "futures (give futures: in the scenario, or rows for its base 'us' in sheet Futures) "
            "(found 2); expected futures for the scenario, or no decide_by_month"
        ],
    ),
    (
        "a regret bound beside futures: []",
        "    max_regret_share: 0.1\n    futures: []\n",
        [
            "f.yaml, line 4: scenario 'a', max_regret_share: is given, but futures: [] removes "
            "this scenario's futures (found 0.1); expected no max_regret_share without futures"
        ],
    ),
    (
        "futures: null",
        "    futures:\n",
        ["f.yaml, line 4: scenario 'a', futures: may not be empty (null)"],
    ),
    (
        "21 futures (issue 33: 1,000 validated, then ran minutes and planned nothing)",
        "    futures:\n"
        + "".join(f"      - {{name: f{k}, probability: {1 / 21!r}}}\n" for k in range(21)),
        [
            "f.yaml, line 5: scenario 'a', futures: 21 futures; gpumix plans "
            "at most 20 per scenario (each is a whole plan, solved alone and again in the "
            "shared model); expected at most 20 futures"
        ],
    ),
    (
        "decide_by_month 0",
        "    decide_by_month: 0\n    futures: [{name: x, probability: 1}]\n",
        ["f.yaml, line 4: scenario 'a', decide_by_month: must be at least 1 (found 0)"],
    ),
]


@pytest.mark.parametrize(
    ("entry", "expected"), [(e, x) for _, e, x in BAD], ids=[b[0] for b in BAD]
)
def test_bad_futures_in_a_scenario_file_are_reported_exactly(
    tmp_path: Path,
    write_workbook: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    entry: str,
    expected: list[str],
) -> None:
    workbook = write_workbook()
    path = _write(tmp_path, "workbook: input.xlsx\nscenarios:\n  - name: a\n" + entry)
    before = (sha256(path), sha256(workbook))
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    count = f"{len(expected)} problem{'s' if len(expected) > 1 else ''}"
    assert err == f"{count} in the input:\n" + "".join(f"  - {line}\n" for line in expected)
    assert (sha256(path), sha256(workbook)) == before


def test_the_readme_states_the_cap_on_futures() -> None:
    import re

    from optimizer.domain.futures import MAX_FUTURES
    from tests.paths import ROOT

    readme = re.sub(r"\s+", " ", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert f"a scenario at most {MAX_FUTURES} futures" in readme
