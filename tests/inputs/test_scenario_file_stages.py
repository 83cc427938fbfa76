"""A scenario file's problems come in one validate run, not in stages.

Each problem of an entry is reported beside the others, with the words it has
when it is the only one; a check that depends on a key with a problem of its
own is skipped, so no problem follows from another.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from optimizer.cli import main
from tests.conftest import sha256

H900 = "no GPU type 'H900' in the workbook; did you mean 'H100'? (found 'H900'); expected a name from sheet GPUs"
LORA = (
    "'lora-7b' is lora: demand over time is for realtime_inference and batch_inference "
    "workloads (found 'lora-7b'); expected a realtime_inference or batch_inference workload"
)


def _no_futures(scenario: str) -> str:
    return (
        f"is given, but scenario {scenario!r} has no futures (give futures: in the scenario, "
        "or rows for its base 'us' in sheet Futures) (found 2); expected futures for the "
        "scenario, or no decide_by_month"
    )


@pytest.fixture
def validate(
    tmp_path: Path, write_workbook: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> Callable[[str], list[str]]:
    """``validate(text)``: the problems one validate run prints for a scenario file of
    ``text`` (one line each) over the valid workbook; neither file changes."""

    def run(text: str) -> list[str]:
        workbook = write_workbook()
        path = tmp_path / "s.yaml"
        path.write_text("workbook: input.xlsx\nscenarios:\n" + textwrap.dedent(text))
        before = (sha256(path), sha256(workbook))
        code = main(["validate", str(path)])
        out, err = capsys.readouterr()
        assert (code, out) == (2, "")
        assert (sha256(path), sha256(workbook)) == before
        head, *lines = err.splitlines()
        assert head == f"{len(lines)} problem{'s' if len(lines) > 1 else ''} in the input:"
        return [line.removeprefix("  - ") for line in lines]

    return run


def test_every_part_of_an_entry_is_checked_beside_a_bad_assumption(
    validate: Callable[[str], list[str]],
) -> None:
    text = """\
          - name: m5
            assumptions: {pue: high}
            prices:
              - {gpu: H900, option: on_demand, multiply: 0.8}
            fleet:
              - {gpu: H900, count: 1, kind: reserved, price: 2, months_left: 3}
            demand:
              - {workload: lora-7b, month: 1, value: 10}
            decide_by_month: 2
        """
    assert validate(text) == [
        "s.yaml, line 4: scenario 'm5', assumptions.pue: not a number (found 'high'); "
        "expected a number > 0 (ratio)",
        f"s.yaml, line 8: scenario 'm5', fleet entry 1, gpu: {H900}",
        f"s.yaml, line 6: scenario 'm5', prices entry 1, gpu: {H900}",
        f"s.yaml, line 10: scenario 'm5', demand entry 1, workload: {LORA}",
        f"s.yaml, line 11: scenario 'm5', decide_by_month: {_no_futures('m5')}",
    ]


def test_a_bad_target_load_hides_neither_demand_nor_futures(
    validate: Callable[[str], list[str]],
) -> None:
    text = """\
          - name: m2
            assumptions: {target_load: 0}
            demand:
              - {workload: lora-7b, month: 1, value: 10}
            decide_by_month: 2
        """
    assert validate(text) == [
        "s.yaml, line 4: scenario 'm2', assumptions.target_load: must be more than 0 (found 0); "
        "expected a number > 0, at most 1 (fraction of rated throughput)",
        f"s.yaml, line 6: scenario 'm2', demand entry 1, workload: {LORA}",
        f"s.yaml, line 7: scenario 'm2', decide_by_month: {_no_futures('m2')}",
    ]


def test_a_fleet_row_with_problems_still_has_its_gpu_checked(
    validate: Callable[[str], list[str]],
) -> None:
    text = """\
          - name: y7
            base: us
            assumptions: {currency: EUR, target_load: 0}
            fleet:
              - {gpu: H100, count: 2, kind: owned, price: 20000, months_left: 3}
              - {gpu: H900, count: 1, kind: reserved, price: 2}
            demand:
              - {workload: chat-8b, month: 99, value: 10}
              - {workload: lora-7b, month: 1, value: 10}
            decide_by_month: 2
        """
    assert validate(text) == [
        "s.yaml, line 5: scenario 'y7', assumptions.currency: currency is set in sheet "
        "Assumptions only, never per scenario: all prices of a workbook share it (found 'EUR'); "
        "expected blank: set it once in sheet Assumptions",
        "s.yaml, line 5: scenario 'y7', assumptions.target_load: must be more than 0 (found 0); "
        "expected a number > 0, at most 1 (fraction of rated throughput)",
        "s.yaml, line 7: scenario 'y7', fleet entry 1, months_left: is only for reserved rows, "
        "not owned (owned GPUs stay until sold) (found 3); expected blank",
        "s.yaml, line 8: scenario 'y7', fleet entry 2, months_left: is blank; a reserved row "
        "needs the months of its term still to pay; expected a whole number ≥ 1 (months)",
        f"s.yaml, line 8: scenario 'y7', fleet entry 2, gpu: {H900}",
        f"s.yaml, line 11: scenario 'y7', demand entry 2, workload: {LORA}",
        f"s.yaml, line 12: scenario 'y7', decide_by_month: {_no_futures('y7')}",
    ]


def test_price_entries_are_checked_one_by_one(validate: Callable[[str], list[str]]) -> None:
    text = """\
          - name: y2
            horizon_months: "six"
            power_cap_kw: -3
            allow_buy: maybe
            exclude_gpus: H100
            assumptions: {pue: high, max_utilization: 1.5}
            prices:
              - {gpu: H900, option: on_demand, multiply: 0.8}
              - {gpu: H100, option: lease, price: 5}
              - {gpu: H100, option: buy, price: -5, multiply: 2}
        """
    assert validate(text) == [
        "s.yaml, line 4: scenario 'y2', horizon_months: must be a whole number (found 'six')",
        "s.yaml, line 5: scenario 'y2', power_cap_kw: must be at least 0 (found -3)",
        "s.yaml, line 6: scenario 'y2', allow_buy: must be true or false (found 'maybe')",
        "s.yaml, line 11: scenario 'y2', prices entry 2, option: must be one of buy, on_demand, "
        "spot, reserved (found 'lease')",
        "s.yaml, line 12: scenario 'y2', prices entry 3, price: must be at least 0 (found -5)",
        "s.yaml, line 7: scenario 'y2', exclude_gpus: must be a list, e.g. [a, b] (found 'H100')",
        "s.yaml, line 12: scenario 'y2', prices entry 3: give exactly one of multiply or price",
        "s.yaml, line 8: scenario 'y2', assumptions.pue: not a number (found 'high'); "
        "expected a number > 0 (ratio)",
        "s.yaml, line 8: scenario 'y2', assumptions.max_utilization: must be at most 1 "
        "(fractions are plain numbers: 0.05 is 5 %) (found 1.5); expected a number > 0, "
        "at most 1 (fraction of hours)",
        f"s.yaml, line 10: scenario 'y2', prices entry 1, gpu: {H900}",
    ]


def test_an_unknown_key_in_a_future_hides_none_of_the_futures_problems(
    validate: Callable[[str], list[str]],
) -> None:
    text = """\
          - name: f1
            base: us
            futures:
              - {name: low, probability: 0.5, demand_factor: 0.5, foo: 1}
              - {name: high, probability: 0.6, demand_factors: {chat-8b: 2, nope: 3}}
            decide_by_month: 99
        """
    assert validate(text) == [
        "s.yaml, line 6: unknown key 'foo' in scenario 'f1', futures entry 1; expected one of "
        "name, probability, demand_factor, growth_per_month, demand_factors, growth, prices",
        "s.yaml, line 6: scenario 'f1', futures: the probabilities of its futures "
        "(low 0.5, high 0.6) sum to 1.1, not 1; expected probabilities that sum to 1",
        "s.yaml, line 8: scenario 'f1', decide_by_month: month 99 is past the 24-month horizon "
        "of scenario 'f1' (horizon_months from Scenarios sheet, row 2) (found 99); "
        "expected a month from 1 to 24",
        "s.yaml, line 7: scenario 'f1', future 'high', demand_factors.nope: no workload 'nope' "
        "in the workbook (found 'nope'); expected a name from sheet Workloads (or added by the "
        "scenario)",
    ]


HORIZON = """\
      - name: h
        horizon_months: {horizon}
        add_workloads:
          - {{workload: chat-2b, kind: realtime_inference, params_b: 2,
             tokens_per_second: 100, latency_ms: 50, start_month: 1, end_month: 30}}
        demand:
          - {{workload: batch-8b, month: 1, value: 5}}
          - {{workload: lora-7b, month: 1, value: 10}}
        futures:
          - {{name: low, probability: 0.5, demand_factor: 0.5}}
          - {{name: high, probability: 0.5, demand_factor: 2}}
        decide_by_month: 30
    """


def test_a_bad_horizon_dropped_brings_no_problem_of_the_base_horizon(
    validate: Callable[[str], list[str]],
) -> None:
    # The base's horizon (24 months) is no stand-in: the window, decide_by_month and
    # the demand row's window ("months 2 to ...") are checked once the horizon is sound.
    text = HORIZON.format(horizon='"six"')
    assert validate(text) == [
        "s.yaml, line 4: scenario 'h', horizon_months: must be a whole number (found 'six')",
        f"s.yaml, line 10: scenario 'h', demand entry 2, workload: {LORA}",
    ]


def test_with_its_horizon_sound_the_same_entry_has_the_horizon_problems(
    validate: Callable[[str], list[str]],
) -> None:
    assert validate(HORIZON.format(horizon=6)) == [
        "s.yaml, line 9: scenario 'h', demand entry 1, month: outside the window of 'batch-8b' "
        "(months 2 to 6) (found 1); expected a month from 2 to 6",
        f"s.yaml, line 10: scenario 'h', demand entry 2, workload: {LORA}",
        "s.yaml, line 14: scenario 'h', decide_by_month: month 30 is past the 6-month horizon "
        "of scenario 'h' (horizon_months from s.yaml, line 4) (found 30); expected a month "
        "from 1 to 6",
        "s.yaml, line 7: scenario 'h', add_workloads entry 1, end_month: scenario 'h': the "
        "window ends in month 30, past its 6-month horizon (horizon_months from s.yaml, "
        "line 4) (found 30); expected a month from 1 to 6",
    ]


def test_checks_that_need_a_key_with_a_problem_are_skipped(
    validate: Callable[[str], list[str]],
) -> None:
    # With the base's values in their place, the futures would name workloads 'e' does
    # not plan and a GPU type it leaves out, 'g' and 'k' would have decide_by_month
    # without futures or probabilities that do not sum to 1, and 'f' nothing checked.
    text = """\
        - name: e
          base: eu
          exclude_gpus: L40S
          workloads: chat-8b
          allow_buy: maybe
          add_workloads:
            - {workload: new-1, kind: realtime_inference, params_b: -2,
               tokens_per_second: 100, latency_ms: 50}
          demand:
            - {workload: new-1, month: 3, value: 1}
          futures:
            - {name: low, probability: 0.5, demand_factors: {batch-8b: 2, new-1: 2},
               prices: [{gpu: L40S, option: spot, multiply: 2}]}
            - {name: high, probability: 0.5, growth: {lora-7b: 0.1}}
          decide_by_month: 3
        - name: f
          base: nope
          demand:
            - {workload: lora-7b, month: 1, value: 1}
        - name: g
          futures: 5
          decide_by_month: 3
        - name: k
          futures:
            - {name: a, probability: 2}
            - {name: b, probability: 0.5}
          decide_by_month: 3
        """
    assert validate(text) == [
        "s.yaml, line 7: scenario 'e', allow_buy: must be true or false (found 'maybe')",
        "s.yaml, line 5: scenario 'e', exclude_gpus: must be a list, e.g. [a, b] (found 'L40S')",
        "s.yaml, line 6: scenario 'e', workloads: must be a list, e.g. [a, b] (found 'chat-8b')",
        "s.yaml, line 9: scenario 'e', add_workloads entry 1, params_b: must be more than 0 "
        "(found -2); expected a number > 0 (billion parameters)",
        "s.yaml, line 23: scenario 'g', futures: must be a list, e.g. [a, b] (found 5)",
        "s.yaml, line 27: scenario 'k', futures entry 1, probability: must be at most 1 (found 2)",
        "s.yaml, line 19: scenario 'f', base: no scenario 'nope' in the workbook (found 'nope'); "
        "expected one of us, eu",
        f"s.yaml, line 21: scenario 'f', demand entry 1, workload: {LORA}",
    ]


def test_only_the_name_of_an_added_workload_with_problems_is_spared(
    validate: Callable[[str], list[str]],
) -> None:
    # new-1 is not added (its params_b is bad): naming it is no problem of its own;
    # the other unknown names still are.
    text = """\
        - name: e
          workloads: [chat-8b, new-1, nope1]
          add_workloads:
            - {workload: new-1, kind: realtime_inference, params_b: -2,
               tokens_per_second: 100, latency_ms: 50}
          demand:
            - {workload: new-1, month: 3, value: 1}
            - {workload: nope2, month: 3, value: 1}
          futures:
            - {name: low, probability: 0.5, demand_factors: {new-1: 2, nope3: 2}}
            - {name: high, probability: 0.5}
        """
    assert validate(text) == [
        "s.yaml, line 6: scenario 'e', add_workloads entry 1, params_b: must be more than 0 "
        "(found -2); expected a number > 0 (billion parameters)",
        "s.yaml, line 4: scenario 'e', workloads: no workload 'nope1' in the workbook "
        "(found 'nope1'); expected a name from sheet Workloads",
        "s.yaml, line 10: scenario 'e', demand entry 2, workload: unknown workload "
        "(found 'nope2'); expected a workload of sheet Workloads (or added by the scenario)",
        "s.yaml, line 12: scenario 'e', future 'low', demand_factors.nope3: no workload "
        "'nope3' in the workbook (found 'nope3'); expected a name from sheet Workloads "
        "(or added by the scenario)",
    ]


def test_added_workloads_with_problems_still_have_their_window_and_deadline_checked(
    validate: Callable[[str], list[str]],
) -> None:
    # Entry 2 lacks its tokens, entry 3 has a bad precision: the deadline of one and
    # the window of the other are still checked. Entry 1's unknown key may be any
    # column mistyped: nothing more of it is checked.
    text = """\
        - name: a
          base: us
          add_workloads:
            - {workload: c70, kind: realtime_inference, params_b: 70, end_mnth: 99}
            - workload: b1
              kind: batch_inference
              params_b: 8
              runs_per_month: 2
              deadline_hours: 900
            - {workload: l1, kind: lora, params_b: 7, tokens: 1e8, end_month: 99,
               precision: bf17}
        """
    assert validate(text) == [
        "s.yaml, line 6: scenario 'a', add_workloads entry 1, end_mnth: unknown key; "
        "did you mean 'end_month'?; expected a column of the Workloads sheet",
        "s.yaml, line 6: scenario 'a', add_workloads entry 1, tokens_per_second: is blank; "
        "a realtime_inference workload needs its demand; expected a number > 0 (tokens/s)",
        "s.yaml, line 7: scenario 'a', add_workloads entry 2, tokens: is blank; a "
        "batch_inference workload needs the tokens of one run; expected a number > 0 (tokens)",
        "s.yaml, line 13: scenario 'a', add_workloads entry 3, precision: unknown precision; "
        "did you mean 'bf16'? (found 'bf17'); expected one of fp32, bf16, fp16, fp8, int8, "
        "int4",
        "s.yaml, line 12: scenario 'a', add_workloads entry 3, end_month: scenario 'a': the "
        "window ends in month 99, past its 24-month horizon (horizon_months from Scenarios "
        "sheet, row 2) (found 99); expected a month from 1 to 24",
        "s.yaml, line 11: scenario 'a', add_workloads entry 2, deadline_hours: scenario 'a': "
        "longer than a month's 693.5 working hours (max_utilization 0.95 × hours_per_month "
        "730); a recurring run (runs_per_month given) must fit inside a month (found 900.0); "
        "expected a number > 0, at most 693.5 (hours)",
    ]
