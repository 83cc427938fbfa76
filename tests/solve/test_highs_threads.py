"""HiGHS's one thread pool per process: solves asking for different thread counts in turn.

After a race (HiGHS on one thread in a thread of its own) and a solve that
leaves the count to HiGHS, a one-thread solve in the same process came back
"Not Set" ("the scheduler has already been initialized to use 2 threads"):
a long-lived process (a notebook, the test suite) running ``alternatives``
and then the futures hit it.
"""

from __future__ import annotations

from optimizer.check.verify import solve_and_verify
from optimizer.domain.future_scenario import future_scenario
from optimizer.results import SolverSettings, SolveStatus
from tests.futures_cases import case_with_futures


def test_solves_with_any_thread_count_in_turn_all_solve() -> None:
    s, estimates = case_with_futures("services", 0)
    assert s.futures is not None
    scenario = future_scenario(s, s.futures.futures[0])
    statuses = [
        solve_and_verify(scenario, SolverSettings(solver=solver, threads=threads), estimates).status
        for solver, threads in (("auto", None), ("highs", None), ("highs", 1), ("highs", 2))
    ]
    assert statuses == [SolveStatus.OPTIMAL] * 4
