"""End-to-end: the command line as a user runs it, on real files."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from optimizer.check.rules import check_plan
from optimizer.cli import main
from optimizer.inputs.load import load_input
from optimizer.results import SolverSettings
from optimizer.solve.solver import solve_scenario
from tests.reports.test_report_json import ASSIGNMENT_KEYS, SCENARIO_KEYS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "workbooks" / "example.xlsx"
SCENARIO_FILES = sorted((ROOT / "scenarios").glob("*.yaml"))

# The contract's fields (shadow_prices is ours, from issue 5).
CONTRACT_KEYS = set(SCENARIO_KEYS) - {"shadow_prices"}
CATEGORIES = {
    "purchase",
    "energy",
    "maintenance",
    "on_demand",
    "spot",
    "reserved",
    "node",
    "colocation",
    "sales",
}


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def example_variant(tmp_path: Path, name: str, overrides: str) -> Path:
    """A scenario file with one scenario on top of the example's us-baseline."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        f"workbook: {EXAMPLE}\nscenarios:\n  - name: {name}\n    base: us-baseline\n{overrides}"
    )
    return path


@pytest.fixture(scope="module")
def example_json(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("solve") / "out.xlsx"
    import contextlib
    import io

    buffer = io.StringIO()
    before = sha(EXAMPLE)
    with contextlib.redirect_stdout(buffer):
        code = main(["solve", str(EXAMPLE), "--json", "--output", str(out)])
    assert code == 0
    assert sha(EXAMPLE) == before, "solve changed its input workbook"
    assert out.exists()
    return {"json": json.loads(buffer.getvalue()), "out": out}


def test_the_examples_proven_totals_to_the_cent(example_json: dict) -> None:
    """The bundled example's optima, proven (gap 0) and laid out by hand by an outside
    audit: any change to the model or the costs that moves them must be explained."""
    totals = {s["scenario"]: s["total_cost"] for s in example_json["json"]["scenarios"]}
    assert totals == pytest.approx(
        {"us-baseline": 161_812.08, "europe": 184_016.50, "tight-capex": 178_446.21}, abs=0.005
    )


def test_json_has_the_contract_fields_for_every_scenario(example_json: dict) -> None:
    scenarios = example_json["json"]["scenarios"]
    names = [s.name for s in load_input(EXAMPLE).scenarios]
    assert [s["scenario"] for s in scenarios] == names
    for entry in scenarios:
        assert set(entry) >= CONTRACT_KEYS
        assert entry["status"] == "optimal"
        assert entry["gap"] == 0
        assert set(entry["costs"]) == CATEGORIES
        fleet_keys = {
            "gpu",
            "month",
            "bought",
            "sold",
            "owned",
            "reserved",
            "rented_hours",
            "spot_hours",
            "owned_utilization",
        }
        assert entry["fleet"] and all(fleet_keys <= set(row) for row in entry["fleet"])
        assert entry["assignments"] and all(set(r) >= ASSIGNMENT_KEYS for r in entry["assignments"])
        place_keys = {"gpu", "month", "place", "offer", "size", "pinned", "free", "slots"}
        assert all(set(r) == place_keys for r in entry["places"])
        assert all(r["pinned"] + r["free"] == r["size"] for r in entry["places"])
        assert {r["place"] for r in entry["assignments"]} <= {
            "house",
            "reserved",
            "on_demand",
            "spot",
        }
        option_keys = {
            "workload",
            "gpu",
            "allowed",
            "reason",
            "memory_gb",
            "gpus_per_replica",
            "gpu_hours",
            "tokens_per_second_per_replica",
            "latency_ms",
            "source",
            "estimates_note",
        }
        assert entry["options"] and all(option_keys <= set(r) for r in entry["options"])
        # Every estimated pair says so in words, as the Options sheet's last column does.
        estimated = [r for r in entry["options"] if r["source"] == "estimated"]
        assert estimated and all("estimated: " in r["estimates_note"] for r in estimated)
        # Realtime pairs: one row per serving width, the width in gpus_per_replica.
        chat = [r for r in entry["options"] if r["workload"] == "chat-8b"]
        pairs = {(r["workload"], r["gpu"]) for r in chat}
        assert len(chat) > len(pairs)
        for w, g in pairs:
            widths = [r["gpus_per_replica"] for r in chat if (r["workload"], r["gpu"]) == (w, g)]
            assert widths == sorted(set(widths))


def test_json_money_matches_an_independent_recomputation(example_json: dict) -> None:
    # The checker recomputes cost from the inputs and the plan's decisions only.
    by_name = {s["scenario"]: s for s in example_json["json"]["scenarios"]}
    for scenario in load_input(EXAMPLE).scenarios:
        plan = solve_scenario(scenario, SolverSettings())
        report = check_plan(scenario, plan)
        assert report.violations == []
        entry = by_name[scenario.name]
        assert math.isclose(entry["total_cost"], report.total_cost, abs_tol=0.005)
        assert math.isclose(entry["cash_out"], report.cash_out, abs_tol=0.005)
        assert math.isclose(entry["residual_credit"], report.residual_credit, abs_tol=0.005)
        for category, amount in report.costs.items():
            assert math.isclose(entry["costs"][category.value], amount, abs_tol=0.005)
        # The monthly cash flow sums to cash out, to the cent.
        cash = sum(v for row in entry["cash_flow"] for k, v in row.items() if k != "month")
        assert math.isclose(cash, report.cash_out, abs_tol=0.005)


def test_result_workbook_has_the_contract_sheets(example_json: dict) -> None:
    book = openpyxl.load_workbook(example_json["out"], read_only=True)
    names = book.sheetnames
    assert (names[0], names[-1]) == ("Summary", "Audit")  # finance first, the Audit last
    for scenario in load_input(EXAMPLE).scenarios:
        for suffix in ("Cash flow", "Fleet", "Places", "Assignments", "Options"):
            assert any(n.endswith(suffix) and n.startswith(scenario.name[:10]) for n in names), (
                suffix,
                names,
            )
    assert all(len(n) <= 31 for n in names)


def test_solve_without_input_solves_the_bundled_example_into_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["solve", "--quiet", "--scenario", "us-baseline"]) == 0
    assert (tmp_path / "example-results.xlsx").exists()
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.name)
def test_every_bundled_scenario_file_solves(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["solve", str(path), "--json", "--output", str(tmp_path / "r.xlsx")])
    result = json.loads(capsys.readouterr().out)
    assert code == 0, result
    assert all(s["status"] == "optimal" for s in result["scenarios"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", str(EXAMPLE), "--scenario", "nowhere"], "nowhere"),
        (["solve", str(EXAMPLE), "--gap", "2"], "--gap"),
        (["solve", str(EXAMPLE), "--time-limit", "0"], "--time-limit"),
        (["solve", str(EXAMPLE), "--solver", "gurobi"], "gurobi"),
        (["solve", "missing.xlsx"], "missing.xlsx"),
        (["solve", str(EXAMPLE), "--jobs", "0"], "--jobs"),
        (["solve", str(EXAMPLE), "--coarse-after", "-1"], "--coarse-after"),
        (["solve", str(EXAMPLE), "--coarse-after", "2.5"], "a whole month from 0 to 1,200"),
        (["breakeven", str(EXAMPLE), "--utilization", "1.5"], "--utilization"),
        (["breakeven", str(EXAMPLE), "--months", "0"], "--months"),
    ],
)
def test_bad_usage_exits_2_with_the_reason_on_stderr_only(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err
    assert "Traceback" not in captured.err


def test_in_place_needs_a_workbook(capsys: pytest.CaptureFixture[str]) -> None:
    assert SCENARIO_FILES, "the project ships scenario files"
    assert main(["solve", str(SCENARIO_FILES[0]), "--in-place"]) == 2
    assert "--in-place needs an input workbook" in capsys.readouterr().err


def test_infeasible_scenario_exits_1_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario_file = example_variant(tmp_path, "broke", "    budget: {total: 1000}\n")
    code = main(["solve", str(scenario_file), "--json", "--output", str(tmp_path / "r.xlsx")])
    result = json.loads(capsys.readouterr().out)
    assert code == 1
    (entry,) = result["scenarios"]
    assert entry["status"] == "infeasible"
    assert entry["total_cost"] is None
    assert any("budget" in d for d in entry["diagnostics"]), entry["diagnostics"]


def test_validate_prints_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "GPU types" in out and "scenarios" in out


def test_breakeven_reproduces_the_guides_h100_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["breakeven", str(EXAMPLE), "--utilization", "0.6"]) == 0
    out = capsys.readouterr().out
    assert "H100" in out
    assert "7,937" in out or "7937" in out
    h100 = [line.split()[1:3] for line in out.splitlines() if line.startswith("H100")]
    assert h100 == [["on-demand", "3.15"], ["reserved", "12"], ["reserved", "36"], ["spot", "1.26"]]
    assert "not within 36 months" in out
    assert main(["breakeven", str(EXAMPLE), "--months", "60"]) == 0
    assert "not within 60 months" in capsys.readouterr().out


def test_quiet_prints_nothing_at_all_in_a_fresh_process(tmp_path: Path) -> None:
    # In a new process HiGHS prints a banner when its first object is made;
    # --quiet promises silence on both streams, so run the real console entry.
    import subprocess
    import sys

    done = subprocess.run(
        # ``python -m optimizer`` is the console script's twin (optimizer/__main__.py).
        [sys.executable, "-m", "optimizer", "solve", "--quiet", "--scenario", "tight-capex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert done.stderr == ""
    assert (tmp_path / "example-results.xlsx").exists()


@pytest.mark.parametrize("command", ["template", "solve"])
def test_a_closed_output_pipe_ends_quietly_after_the_workbook_is_written(
    tmp_path: Path, command: str
) -> None:
    # ``gpumix solve --json | head`` closes the pipe early: no traceback, and
    # the result workbook is already written.
    import subprocess
    import sys

    out = tmp_path / "out.xlsx"
    args = (
        ["template", str(out)]
        if command == "template"
        else ["solve", "--json", "--scenario", "tight-capex", "--output", str(out)]
    )
    with subprocess.Popen(
        [sys.executable, "-m", "optimizer.cli", *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # the reader is gone before anything is printed
        err = process.stderr.read().decode()
        code = process.wait(timeout=600)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert code == 141
    assert out.exists()


def test_validate_and_solve_warn_about_a_zero_price(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    overrides = "    prices:\n      - {gpu: L4, option: on_demand, price: 0}\n"
    scenario_file = example_variant(tmp_path, "free-l4", overrides)
    assert main(["validate", str(scenario_file)]) == 0
    out = capsys.readouterr().out
    assert "warning: L4 on_demand offer, Prices row" in out
    assert "has price 0" in out
    code = main(["solve", str(scenario_file), "--json", "--output", str(tmp_path / "r.xlsx")])
    (entry,) = json.loads(capsys.readouterr().out)["scenarios"]
    assert code == 0
    assert any("L4 on_demand offer" in d and "price 0" in d for d in entry["diagnostics"])


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("{tmp}/no/such/folder/out.xlsx", "does not exist"),
        ("{tmp}/out.csv", "must be an .xlsx workbook"),
        ("{tmp}", "{tmp}: usage: the output is a folder; give a file name ending in .xlsx"),
        (".", "  - .: usage: the output is a folder; give a file name ending in .xlsx"),
        ("/", "  - /: usage: the output is a folder; give a file name ending in .xlsx"),
        ("{example}", "would overwrite an input file"),
    ],
)
def test_an_output_that_cannot_be_written_is_refused_before_solving(
    output: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sha(EXAMPLE)
    target = output.format(tmp=tmp_path, example=EXAMPLE)
    assert main(["solve", str(EXAMPLE), "--output", target]) == 2
    captured = capsys.readouterr()
    assert message.format(tmp=tmp_path) in captured.err
    assert "solving" not in captured.err  # refused before any solve started
    assert captured.out == ""
    assert sha(EXAMPLE) == before


@pytest.mark.parametrize(
    ("command", "hint"), [("solve", True), ("compare", False), ("sweep", False)]
)
def test_overwriting_the_input_mentions_in_place_only_where_it_exists(
    command: str, hint: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sha(EXAMPLE)
    args = [command, str(EXAMPLE), "--output", str(EXAMPLE)]
    if command == "sweep":
        args += ["--vary", "pue=1.1:1.3:2"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "would overwrite an input file; gpumix never changes its inputs" in err
    assert ("--in-place" in err) is hint
    assert sha(EXAMPLE) == before


def test_a_folder_as_input_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(tmp_path)]) == 2
    assert "this is a folder, not a file" in capsys.readouterr().err


def test_template_into_a_missing_folder_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["template", str(tmp_path / "missing" / "t.xlsx")]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "Traceback" not in err


def test_a_write_that_fails_late_is_a_clear_error_without_traceback(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import optimizer.inputs.template

    def locked(path: Path, *args: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(optimizer.inputs.template, "write_template", locked)
    assert main(["template", str(tmp_path / "t.xlsx")]) == 3  # results not written
    err = capsys.readouterr().err
    assert f"cannot write {tmp_path / 't.xlsx'}: Permission denied (" in err
    assert "Traceback" not in err and ".part" not in err
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind


def test_compare_qualifies_clashing_scenario_names_with_their_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two workbooks without a Scenarios sheet each have one scenario, base: compare
    refused them ("scenario 'base' is also in odd/minimal.xlsx; rename one")."""
    from tests.conftest import valid_sheets, write_sheets

    sheets = valid_sheets()
    del sheets["Scenarios"]
    (tmp_path / "odd").mkdir()
    first = write_sheets(tmp_path / "odd" / "minimal.xlsx", sheets)
    second = write_sheets(tmp_path / "headers.xlsx", sheets)
    out = tmp_path / "c.xlsx"
    code = main(["compare", str(first), str(second), "--output", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    lines = captured.out.splitlines()
    assert re.split(r"\s{2,}", lines[0]) == ["Scenario", "minimal: base", "headers: base"]
    assert "Δ total vs minimal: base" in captured.out
    assert "solving minimal: base ..." in captured.err
    frame = pd.read_excel(out, sheet_name="Comparison", index_col=0, engine="calamine")
    assert list(frame.columns) == ["minimal: base", "headers: base"]


def test_compare_says_why_a_scenario_has_no_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    short = example_variant(tmp_path, "short", "    budget: {capex: 1000}\n    allow_rent: false\n")
    cheap = example_variant(tmp_path, "cheap", "    horizon_months: 12\n")
    out = tmp_path / "c.xlsx"
    assert main(["compare", str(cheap), str(short), "--output", str(out)]) == 1
    printed = capsys.readouterr().out
    lines = printed.splitlines()
    first = next(i for i, x in enumerate(lines) if x.startswith("short: infeasible — "))
    assert lines[first] == "short: infeasible — no plan meets every requirement:"
    assert lines[first + 1].startswith("  - capex budget short by $")
    frame = pd.read_excel(out, sheet_name="Comparison", index_col=0, engine="calamine")
    assert "capex budget short by $" in frame.loc["Why no plan"]["short"]
    assert list(frame.loc["Horizon (months)"]) == [12, 36]


@pytest.mark.parametrize(
    ("args", "err"),
    [
        (
            ["solve", "--solver", "nope"],
            "gpumix solve: usage: argument --solver: invalid choice: 'nope' (choose from "
            "'auto', 'highs', 'scip', 'cbc', 'gurobi', 'cplex', 'xpress', 'copt') "
            "(see 'gpumix solve --help')\n",
        ),
        (
            ["compare"],
            "gpumix compare: usage: the following arguments are required: INPUT "
            "(see 'gpumix compare --help')\n",
        ),
        (
            ["validate", "a.xlsx", "--frob"],
            "gpumix validate: usage: unrecognized arguments: --frob "
            "(see 'gpumix validate --help')\n",
        ),
        (
            ["solve", str(EXAMPLE), "--gap", "2", "--time-limit", "-1"],
            "gpumix solve: usage: --time-limit must be a number of seconds > 0 (found -1.0)\n"
            "gpumix solve: usage: --gap must be a fraction from 0 to below 1 (0.01 is 1 %) "
            "(found 2.0)\n",
        ),
    ],
    ids=["argparse choice", "argparse missing", "argparse unknown", "checked by gpumix"],
)
def test_bad_command_line_arguments_name_the_command(
    args: list[str], err: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """They were reported as "1 problem in the input: - <input>: usage: ...", as if a
    file were wrong."""
    assert main(args) == 2
    assert capsys.readouterr() == ("", err)


@pytest.mark.parametrize("command", ["compare", "sweep"])
def test_solver_flags_are_checked_by_every_command_that_solves(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [command, str(EXAMPLE), "--gap", "2", "--time-limit", "-1"]
    if command == "sweep":
        args += ["--vary", "pue=1.1:1.3:2"]
    assert main([*args, "--output", str(tmp_path / "o.xlsx")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "usage: --time-limit must be a number of seconds > 0" in captured.err
    assert "usage: --gap must be a fraction from 0 to below 1" in captured.err
    assert not (tmp_path / "o.xlsx").exists()


def test_compare_solves_with_the_solver_asked_for(
    tmp_path: Path, write_workbook: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "c.xlsx"
    assert main(["compare", str(write_workbook()), "--solver", "cbc", "--output", str(out)]) == 0
    assert "us" in capsys.readouterr().out
    frame = pd.read_excel(out, sheet_name="Comparison", index_col=0, engine="calamine")
    assert list(frame.loc["Status"]) == ["optimal", "optimal"]


def test_an_interrupted_write_leaves_the_previous_workbook_whole(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The writer dies half-way (Ctrl-C); the previous result must survive byte for byte.
    import optimizer.inputs.template

    out = tmp_path / "t.xlsx"
    assert main(["template", str(out)]) == 0
    before = out.read_bytes()

    def half_then_interrupted(path: Path, *args: object) -> None:
        path.write_bytes(b"PK\x03\x04 half a zip")
        raise KeyboardInterrupt

    monkeypatch.setattr(optimizer.inputs.template, "write_template", half_then_interrupted)
    assert main(["template", str(out), "--force"]) == 130
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.xlsx"]


def test_template_never_replaces_a_workbook_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mine.xlsx"
    out.write_bytes(b"a filled-in workbook")
    assert main(["template", str(out)]) == 2
    err = capsys.readouterr().err
    assert "the file exists; gpumix template never replaces a workbook" in err
    assert "--force" in err
    assert out.read_bytes() == b"a filled-in workbook"
    assert main(["template", str(out), "--force"]) == 0
    assert out.read_bytes()[:2] == b"PK"


def test_an_output_that_is_a_link_is_refused_and_its_target_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim.conf"
    victim.write_text("keep me")
    link = tmp_path / "x-results.xlsx"
    link.symlink_to(victim)
    assert main(["template", str(link), "--force"]) == 2
    err = capsys.readouterr().err
    assert f"the output is a link (to {victim})" in err
    assert victim.read_text() == "keep me" and link.is_symlink()


def test_an_output_hard_linked_to_the_input_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workbook = tmp_path / "fleet.xlsx"
    assert main(["template", str(workbook)]) == 0
    before = workbook.read_bytes()
    twin = tmp_path / "twin.xlsx"
    os.link(workbook, twin)
    assert main(["solve", str(workbook), "--output", str(twin)]) == 2
    assert f"the output is the same file as the input {workbook}" in capsys.readouterr().err
    assert workbook.read_bytes() == before


def test_a_replaced_workbook_keeps_its_mode(tmp_path: Path) -> None:
    out = tmp_path / "t.xlsx"
    assert main(["template", str(out)]) == 0
    out.chmod(0o640)
    assert main(["template", str(out), "--force"]) == 0
    assert out.stat().st_mode & 0o777 == 0o640


def test_a_name_too_long_is_one_line_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    long_input = tmp_path / ("a" * 300 + ".xlsx")
    assert main(["validate", str(long_input)]) == 2
    err = capsys.readouterr().err
    assert f"{long_input.name}: cannot be read: File name too long" in err
    assert "Traceback" not in err
    # Only the default output name is too long: refused before any solve.
    workbook = tmp_path / ("b" * 245 + ".xlsx")
    assert main(["template", str(workbook)]) == 0
    monkeypatch.chdir(tmp_path)
    assert main(["solve", str(workbook), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "usage: the output cannot be written: File name too long" in err
    assert "Traceback" not in err


def test_a_report_that_cannot_be_printed_exits_3_without_a_traceback() -> None:
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "optimizer.cli",
                "validate",
                str(ROOT / "workbooks" / "example.xlsx"),
            ],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == 3
    assert done.stderr == "gpumix: cannot write standard output: No space left on device\n"


def test_names_are_printed_without_their_terminal_escape_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Excel cannot hold an escape character; a scenario file can ("\\e" in YAML).
    from tests.conftest import valid_sheets, write_sheets

    write_sheets(tmp_path / "fleet.xlsx", valid_sheets())
    scenarios = tmp_path / "evil.yaml"
    scenarios.write_text(
        'workbook: fleet.xlsx\nscenarios:\n  - name: "evil\\e]0;owned\\a\\e[2J"\n',
        encoding="utf-8",
    )
    assert main(["validate", str(scenarios)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "evil\\x1b]0;owned\\x07\\x1b[2J" in out


def test_a_file_name_that_is_not_utf8_is_read() -> None:
    """Such a name (Latin-1 on an old share) was reported "not found"."""
    import shutil
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        name = os.path.join(os.fsencode(folder), b"flotte-\xe9t\xe9.xlsx")
        shutil.copyfile(ROOT / "workbooks" / "example.xlsx", name)
        done = subprocess.run(
            [sys.executable, "-m", "optimizer.cli", "validate", name],
            capture_output=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert b": OK \xe2\x80\x94 7 GPU types" in done.stdout


def test_an_output_inside_a_file_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An output whose folder is a file was reported as a missing folder."""
    blocker = tmp_path / "results"
    blocker.write_text("a file where a folder should be")
    assert main(["template", str(blocker / "t.xlsx")]) == 2
    assert f"{blocker} is a file, not a folder" in capsys.readouterr().err


def test_the_terminal_gives_every_reason_a_scenario_has_no_plan_on_its_own_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It printed "no plan meets every requirement:; power cap short by ..." and cut at three."""
    short = example_variant(tmp_path, "short", "    power_cap_kw: 2\n    allow_rent: false\n")
    assert main(["solve", str(short), "--output", str(tmp_path / "s.xlsx")]) == 1
    lines = capsys.readouterr().out.splitlines()
    first = lines.index("short: infeasible — no plan meets every requirement:")
    reasons = [x for x in lines[first + 1 :] if x.startswith("  - ")]
    assert reasons and all(":;" not in x for x in lines)
    assert reasons[0].startswith("  - power cap short by ") and reasons[0].endswith(" kW")
    assert main(["solve", str(short), "--output", str(tmp_path / "j.xlsx"), "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    diagnostics = document["scenarios"][0]["diagnostics"]
    assert [f"  - {d}" for d in diagnostics[1:]] == reasons  # all of them, as the JSON has


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("solve", "the whole command's time, from start to written result: plans first"),
        ("compare", "the whole command's time, from start to written result: plans first"),
        ("sweep", "the whole command's time, from start to written result: plans first"),
        ("alternatives", "the whole command's time, from start to written result: plans first"),
        (
            "futures",
            "the whole command's time, from start to written workbook (reading and writing "
            "included): each step before the shared plan gets at most a quarter",
        ),
    ],
)
def test_time_limit_help_says_what_it_bounds_for_each_command(
    command: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """An outside audit read "stop each solve" as a bound on the whole command: now it is,
    for every command."""
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert says in text


def test_a_broken_pipe_inside_gpumix_is_an_error_not_a_closed_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 33.7: a spawn pool whose children could not start raised BrokenPipeError,
    and gpumix exited 141 in silence, as if its reader had gone."""
    import optimizer.cli as cli

    def broken(args: object) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setitem(cli._COMMANDS, "validate", broken)
    assert main(["validate"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "gpumix: a pipe to a worker process broke (Broken pipe): a worker could not start or "
        "ended early (can this user read gpumix's installation?)\n"
    )
