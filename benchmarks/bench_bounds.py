"""The LP relaxation's bound and HiGHS's bound after the root node, with and without a formulation.

Run: ``.venv/bin/python benchmarks/bench_bounds.py [--hull on|off|both]
[--seeds 1,2,3] [--size 10,20,36] [--no-example]``.

For each synthetic seed of the size, and the bundled example's scenarios,
it builds the model (``--hull``: with the serving pattern hull, without it,
or both), writes it as MPS and reads it into HiGHS (one thread): the LP
relaxation's optimum, then the MIP's dual bound after one node
(``mip_max_nodes`` 1: the root with its cuts). No plan is searched for.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import highspy

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.synthetic import synthetic_scenario  # noqa: E402
from optimizer.domain import Scenario  # noqa: E402
from optimizer.estimate.pairs import estimate_pairs  # noqa: E402
from optimizer.inputs.load import load_input  # noqa: E402
from optimizer.model.build import build_model  # noqa: E402


def bound(mps: Path, *, relax: bool) -> tuple[float, float]:
    """(bound, seconds): the LP optimum when ``relax``, else the dual bound after the root."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.readModel(str(mps))
    n = h.getNumCol()
    if relax:
        h.changeColsIntegrality(n, list(range(n)), [highspy.HighsVarType.kContinuous] * n)
    else:
        h.setOptionValue("mip_max_nodes", 1)
    started = time.perf_counter()
    h.run()
    seconds = time.perf_counter() - started
    info = h.getInfo()
    return (info.objective_function_value if relax else info.mip_dual_bound), seconds


def line(case: str, scenario: Scenario, hull: bool) -> str:
    estimates = estimate_pairs(scenario)
    started = time.perf_counter()
    built = build_model(scenario, estimates, serving_hull=hull)
    build_s = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as folder:
        mps = Path(folder) / "model.mps"
        built.problem.writeMPS(str(mps))
        lp, lp_s = bound(mps, relax=True)
        root, root_s = bound(mps, relax=False)
    return (
        f"{case:<24} {'on' if hull else 'off':<4} {build_s:7.2f} "
        f"{len(built.problem.variables()):>7} {len(built.problem.constraints()):>7} "
        f"{lp:>12,.0f} {lp_s:6.1f} {root:>12,.0f} {root_s:6.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hull", choices=("on", "off", "both"), default="both")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--size", default="10,20,36", help="G,W,T of the synthetic scenarios")
    parser.add_argument("--no-example", action="store_true", help="skip the bundled example")
    args = parser.parse_args()
    hulls = {"on": (True,), "off": (False,), "both": (False, True)}[args.hull]
    g, w, t = (int(x) for x in args.size.split(","))
    cases = [
        (f"synthetic ({g},{w},{t}) s{seed}", synthetic_scenario(g, w, t, seed))
        for seed in (int(x) for x in args.seeds.split(","))
    ]
    if not args.no_example:
        cases += [(f"example:{s.name}"[:24], s) for s in load_input(None).scenarios]
    print(
        f"{'case':<24} {'hull':<4} {'build':>7} {'vars':>7} {'rows':>7} "
        f"{'LP bound':>12} {'s':>6} {'root bound':>12} {'s':>6}"
    )
    for case, scenario in cases:
        for hull in hulls:
            print(line(case, scenario, hull), flush=True)


if __name__ == "__main__":
    main()
