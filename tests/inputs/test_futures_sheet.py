"""Sheet ``Futures`` (issue 19), a scenario file's futures on top of it, and what
``validate`` and ``solve`` say about them.

The workbook is ``tests.conftest.valid_sheets()`` with a Futures sheet: scenario
``us`` (24 months, every workload and GPU type) and ``eu`` (12 months, lora-7b
and chat-8b, L40S left out, no buying).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from optimizer.cli import main
from optimizer.domain.futures import Futures, FutureSpec
from optimizer.errors import InputError
from optimizer.inputs.load import load_input
from tests.conftest import sha256, valid_sheets, write_sheets
from tests.inputs.test_futures_file import EXPECTED

HEADER = [
    "scenario",
    "future",
    "probability (fraction)",
    "decide_by_month (month)",
    "max_regret (USD)",
    "max_regret_share (fraction)",
    "workload",
    "demand_factor (factor)",
    "growth_per_month (fraction per month)",
    "gpu",
    "option",
    "price_factor (factor)",
]
_ = None
# The growth-bet futures of the scenario file test, as rows: one change per row.
GROWTH_BET = [
    ["us", "low", 0.25, 3, _, 0.05, _, 0.7, _, _, _, _],
    ["us", "expected", 0.5, _, _, _, _, _, _, _, _, _],
    ["us", "high", 0.25, _, _, _, _, _, 0.08, _, _, _],
    ["us", "high", _, 3, _, _, "chat-8b", 2.0, 0.1, "H100", "on_demand", 1.2],
    ["us", "high", _, _, _, 0.05, _, _, _, _, "spot", 1.5],
]


def _workbook(folder: Path, rows: list[list[object]]) -> Path:
    sheets = valid_sheets()
    sheets["Futures"] = [HEADER, *rows]
    return write_sheets(folder / "input.xlsx", sheets)


def test_rows_combine_into_the_exact_futures_of_their_scenario(tmp_path: Path) -> None:
    us, eu = load_input(_workbook(tmp_path, GROWTH_BET)).scenarios
    assert us.futures == EXPECTED
    assert eu.futures is None


def test_a_third_each_from_a_workbook_sums_to_one(tmp_path: Path) -> None:
    third = 0.333333333333333  # what Excel keeps of =1/3: 15 significant digits
    rows = [["eu", name, third, _, 50000, _, _, _, _, _, _, _] for name in ("a", "b", "c")]
    us, eu = load_input(_workbook(tmp_path, rows)).scenarios
    assert us.futures is None
    assert eu.futures == Futures(
        (FutureSpec("a", third), FutureSpec("b", third), FutureSpec("c", third)),
        max_regret=50000.0,
    )


def test_without_sheet_scenarios_the_one_scenario_is_named_base(tmp_path: Path) -> None:
    sheets = valid_sheets()
    del sheets["Scenarios"]
    sheets["Futures"] = [HEADER, ["base", "x", 1, _, _, _, _, 2, _, _, _, _]]
    (only,) = load_input(write_sheets(tmp_path / "input.xlsx", sheets)).scenarios
    assert only.futures == Futures((FutureSpec("x", 1.0, demand_factor=2.0),))


def _one(row: list[object]) -> list[list[object]]:
    """``row`` for scenario us, beside a future that makes the probabilities sum to 1."""
    return [row, ["us", "rest", 0.5, _, _, _, _, _, _, _, _, _]]


BAD: list[tuple[str, list[list[object]], str]] = [
    (
        "21 futures (issue 33: 1,000 validated, then ran minutes and planned nothing)",
        [["us", f"f{k}", 0.05, _, _, _, _, _, _, _, _, _] for k in range(21)],
        "cell B22, column future: scenario 'us' has 21 futures; gpumix plans at most 20 per "
        "scenario (each is a whole plan, solved alone and again in the shared model) "
        "(found 'f20'); expected at most 20 futures",
    ),
    (
        "unknown scenario",
        [["asia", "x", 1, _, _, _, _, _, _, _, _, _]],
        "cell A2, column scenario: not a name in sheet Scenarios (found 'asia')"
        "; expected a name from sheet Scenarios",
    ),
    (
        "unknown workload",
        _one(["us", "x", 0.5, _, _, _, "chat-9b", 2, _, _, _, _]),
        "cell G2, column workload: not a name in sheet Workloads; did you mean 'chat-8b'? "
        "(found 'chat-9b'); expected a name from sheet Workloads",
    ),
    (
        "training workload",
        _one(["us", "x", 0.5, _, _, _, "lora-7b", _, 0.1, _, _, _]),
        "cell G2, column workload: 'lora-7b' is lora: the demand of a training job does not "
        "scale in a future (demand factors and growth are for realtime_inference and "
        "batch_inference workloads) (found 'lora-7b'); expected a realtime_inference or "
        "batch_inference workload",
    ),
    (
        "workload without a factor or growth",
        _one(["us", "x", 0.5, _, _, _, "chat-8b", _, _, _, _, _]),
        "cell G2, column workload: is given, but demand_factor and growth_per_month are blank "
        "on this row (workload says whose demand they change) (found 'chat-8b'); expected a "
        "demand_factor or growth_per_month on the row, or a blank workload",
    ),
    (
        "unknown GPU type",
        _one(["us", "x", 0.5, _, _, _, _, _, _, "H200", _, 2]),
        "cell J2, column gpu: not a name in sheet GPUs; did you mean 'H100'? (found 'H200'); "
        "expected a name from sheet GPUs",
    ),
    (
        "gpu without a price factor",
        _one(["us", "x", 0.5, _, _, _, _, _, _, "H100", _, _]),
        "cell L2, column price_factor: is blank, but the row gives a gpu or option (they say "
        "whose prices price_factor multiplies); expected a number > 0 (factor), or a blank "
        "gpu and option",
    ),
    (
        "unknown option",
        _one(["us", "x", 0.5, _, _, _, _, _, _, _, "lease", 2]),
        "cell K2, column option: unknown option (found 'lease'); expected one of buy, "
        "on_demand, spot, reserved",
    ),
    (
        "probability 0",
        [["us", "x", 0, _, _, _, _, _, _, _, _, _]],
        "cell C2, column probability: must be more than 0 (found 0.0); expected a number > 0 "
        "(fraction), at most 1",
    ),
    (
        "probability above 1",
        [["us", "x", 1.2, _, _, _, _, _, _, _, _, _]],
        "cell C2, column probability: must be at most 1 (fractions are plain numbers: 0.05 is "
        "5 %) (found 1.2); expected a number > 0 (fraction), at most 1",
    ),
    (
        "negative demand factor",
        _one(["us", "x", 0.5, _, _, _, _, -1, _, _, _, _]),
        "cell H2, column demand_factor: must be at least 0 (found -1.0); expected a number ≥ 0 "
        "(factor)",
    ),
    (
        "no probability on any row of a future",
        _one(["us", "x", _, _, _, _, _, 2, _, _, _, _]),
        "cell C2, column probability: is blank on every row of future 'x' (scenario 'us'); "
        "give it on one; expected a number > 0 (fraction), at most 1",
    ),
    (
        "two probabilities for one future",
        [
            ["us", "x", 0.5, _, _, _, _, _, _, _, _, _],
            ["us", "x", 0.4, _, _, _, _, 2, _, _, _, _],
            ["us", "y", 0.5, _, _, _, _, _, _, _, _, _],
        ],
        "cell C3, column probability: future 'x' of scenario 'us' has probability 0.5 in row "
        "2; the rows that give it must agree (found 0.4); expected 0.5, or blank",
    ),
    (
        "two decide_by_month for one scenario",
        [
            ["us", "x", 0.5, 2, _, _, _, _, _, _, _, _],
            ["us", "y", 0.5, 3, _, _, _, _, _, _, _, _],
        ],
        "cell D3, column decide_by_month: scenario 'us' has decide_by_month 2 in row 2; the "
        "rows that give it must agree (found 3); expected 2, or blank",
    ),
    (
        "two price factors for the same offers",
        [
            ["us", "x", 0.5, _, _, _, _, _, _, "H100", _, 2],
            ["us", "x", _, _, _, _, _, _, _, "H100", _, 3],
            ["us", "y", 0.5, _, _, _, _, _, _, _, _, _],
        ],
        "cell L3, column price_factor: future 'x' of scenario 'us' has price_factor 2 for "
        "H100 offers in row 2; the rows that give it must agree (found 3.0); expected 2, or blank",
    ),
    (
        "a future's name in two spellings",
        [
            ["us", "high", 0.5, _, _, _, _, _, _, _, _, _],
            ["us", "High", _, _, _, _, _, 2, _, _, _, _],
            ["us", "low", 0.5, _, _, _, _, _, _, _, _, _],
        ],
        "cell B3, column future: differs from future 'high' (row 2) only in case; a future's "
        "rows spell its name the same way (found 'High'); expected 'high', or another name",
    ),
    (
        "probabilities that do not sum to 1",
        [
            ["us", "low", 0.25, _, _, _, _, 0.7, _, _, _, _],
            ["us", "expected", 0.5, _, _, _, _, _, _, _, _, _],
            ["us", "high", 0.2, _, _, _, _, _, 0.08, _, _, _],
        ],
        "column probability: scenario 'us': the probabilities of its futures (low 0.25, "
        "expected 0.5, high 0.2) sum to 0.95, not 1; expected probabilities that sum to 1 (a "
        "third: =1/3, not 0.33)",
    ),
    (
        "decide_by_month past the horizon",
        [["eu", "x", 1, 13, _, _, _, _, _, _, _, _]],
        "cell D2, column decide_by_month: month 13 is past the 12-month horizon of scenario "
        "'eu' (horizon_months from Scenarios sheet, row 3) (found 13); expected a month from 1 "
        "to 12",
    ),
    (
        "a workload the scenario does not plan",
        [["eu", "x", 1, _, _, _, "batch-8b", 2, _, _, _, _]],
        "cell G2, column workload: scenario 'eu' does not plan workload 'batch-8b' (its "
        "workloads: lora-7b, chat-8b) (found 'batch-8b'); expected a workload scenario 'eu' "
        "plans",
    ),
    (
        "a GPU type the scenario leaves out",
        [["eu", "x", 1, _, _, _, _, _, _, "L40S", _, 2]],
        "cell J2, column gpu: scenario 'eu' leaves out GPU type 'L40S' (exclude_gpus) (found "
        "'L40S'); expected a GPU type scenario 'eu' keeps",
    ),
    (
        "a factor that changes no price",
        [["eu", "x", 1, _, _, _, _, _, _, _, "buy", 2]],
        "cell L2, column price_factor: scenario 'eu' has no buy offer, so this factor of "
        "future 'x' would change no price (found 2.0); expected a factor for a GPU type and "
        "option the scenario offers (sheet Prices)",
    ),
]


@pytest.mark.parametrize(("rows", "problem"), [(r, p) for _, r, p in BAD], ids=[b[0] for b in BAD])
def test_bad_futures_rows_are_reported_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rows: list[list[object]], problem: str
) -> None:
    path = _workbook(tmp_path, rows)
    before = sha256(path)
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"1 problem in the input:\n  - input.xlsx, sheet Futures, {problem}\n"
    assert sha256(path) == before


# ---------------------------------------------------------------- scenario files on top

ON_TOP = """\
workbook: input.xlsx
scenarios:
  - {name: kept, base: us}
  - name: settings
    base: us
    decide_by_month: 2
    max_regret: 1000
    max_regret_share: null
  - {name: removed, base: us, futures: []}
  - name: replaced
    base: us
    futures: [{name: only, probability: 1, demand_factor: 1.5}]
  - {name: none, base: eu}
"""


def test_a_scenario_file_keeps_replaces_or_removes_its_bases_futures(tmp_path: Path) -> None:
    _workbook(tmp_path, GROWTH_BET)
    path = tmp_path / "on-top.yaml"
    path.write_text(ON_TOP)
    kept, settings, removed, replaced, none = load_input(path).scenarios
    assert kept.futures == EXPECTED
    assert settings.futures == Futures(EXPECTED.futures, decide_by_month=2, max_regret=1000.0)
    assert removed.futures is None
    # futures: replaces the base's, with their decide_by_month and regret bounds.
    assert replaced.futures == Futures((FutureSpec("only", 1.0, demand_factor=1.5),))
    assert none.futures is None


def test_a_base_futures_row_the_file_scenario_cannot_use_names_the_row_and_the_scenario(
    tmp_path: Path,
) -> None:
    workbook = _workbook(tmp_path, GROWTH_BET)
    path = tmp_path / "narrow.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            workbook: input.xlsx
            scenarios:
              - {name: narrow, base: us, workloads: [batch-8b], horizon_months: 2}
            """
        )
    )
    before = (sha256(path), sha256(workbook))
    with pytest.raises(InputError) as caught:
        load_input(path)
    assert [str(p) for p in caught.value.problems] == [
        "input.xlsx, sheet Futures, cell D2, column decide_by_month: month 3 is past the "
        "2-month horizon of scenario 'narrow' (horizon_months from narrow.yaml, line 3) "
        "(found 3); expected a month from 1 to 2",
        "input.xlsx, sheet Futures, cell G5, column workload: scenario 'narrow' does not plan "
        "workload 'chat-8b' (its workloads: batch-8b) (found 'chat-8b'); expected a "
        "workload scenario 'narrow' plans",
    ]
    assert (sha256(path), sha256(workbook)) == before


# ---------------------------------------------------------------- validate and solve


def test_validate_says_which_scenarios_have_futures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _workbook(tmp_path, [*GROWTH_BET, ["eu", "only", 1, _, 2500, _, _, _, _, _, _, _]])
    assert main(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.splitlines()[1:] == [
        "us: 3 futures (low, expected, high), shared decisions to month 3, regret at most 5 % "
        "of that future's own cheapest plan in each future",
        "eu: 1 future (only), shared decisions to month 1, regret at most $2,500.00 in each future",
    ]


def test_solve_plans_a_scenario_with_futures_as_written_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _workbook(tmp_path, [["eu", "only", 1, _, _, _, _, 2, _, _, _, _]])
    monkeypatch.chdir(tmp_path)  # the result workbook goes "here", not into the checkout
    code = main(["solve", str(path), "--scenario", "eu", "--json", "--quiet"])
    (eu,) = json.loads(capsys.readouterr().out)["scenarios"]
    assert code == 0
    assert (tmp_path / "input-results.xlsx").is_file()
    assert (
        "This scenario has 1 future (only); `gpumix futures` plans one purchase for all of them."
        in eu["diagnostics"]
    )
