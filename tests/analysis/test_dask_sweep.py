"""The same sweep on a local Dask cluster gives the local process pool's answers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from optimizer.analysis.sweep import SweepResult, run_sweep
from optimizer.analysis.sweep_params import parse_vary
from optimizer.errors import InputError
from tests.analysis.test_sweep import SETTINGS, break_even_price, rent_vs_buy

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def scheduler_address() -> Iterator[str]:
    # No dashboard: its port may be taken by another process on a shared machine,
    # and the warning saying so would fail the test (warnings are errors).
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        yield cluster.scheduler_address


def _sweep(jobs: int | None = None, scheduler: str | None = None) -> SweepResult:
    specs = [parse_vary("price:H100:on_demand=1:5:5")]
    return run_sweep(rent_vs_buy(), specs, SETTINGS, jobs=jobs, scheduler=scheduler, refine_steps=4)


def test_dask_cluster_gives_the_local_pool_answers(scheduler_address: str) -> None:
    on_dask = _sweep(scheduler=scheduler_address)
    local = _sweep(jobs=2)
    assert [o.setting for o in on_dask.outcomes] == [o.setting for o in local.outcomes]
    assert [o.summary.regime for o in on_dask.outcomes] == [
        o.summary.regime for o in local.outcomes
    ]
    assert [o.summary.total_cost for o in on_dask.outcomes] == pytest.approx(
        [o.summary.total_cost for o in local.outcomes]
    )
    assert on_dask.flips == local.flips
    (flip,) = on_dask.flips
    assert abs(flip.point - break_even_price()) <= flip.precision


def test_unreachable_scheduler_is_a_usage_error() -> None:
    with pytest.raises(InputError, match="cannot reach the Dask scheduler at 'not a scheduler'"):
        _sweep(scheduler="not a scheduler")
