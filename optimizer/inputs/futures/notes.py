"""What ``gpumix validate`` and ``gpumix solve`` say about a scenario's futures (issue 19).

``validate`` prints one line per scenario with futures (how many, their
names, the month up to which decisions are shared, the regret bounds).
``solve`` plans such a scenario as written, for its own figures alone, and
says so in the plan's diagnostics: one purchase plan for every future is
what ``gpumix futures`` makes.
"""

from __future__ import annotations

from optimizer.currency import money_text
from optimizer.domain import Scenario


def _futures(scenario: Scenario) -> str:
    futures = scenario.futures
    n = len(futures.futures) if futures is not None else 0
    names = ", ".join(futures.names) if futures is not None else ""
    return f"{n} future{'' if n == 1 else 's'} ({names})"


def futures_summary(scenario: Scenario) -> str | None:
    """``growth-bet: 3 futures (low, expected, high), shared decisions to month 3``, or None."""
    futures = scenario.futures
    if futures is None or not futures.futures:
        return None
    text = (
        f"{scenario.name}: {_futures(scenario)}, shared decisions to month "
        f"{futures.decide_by_month}"
    )
    bounds = []
    if futures.max_regret is not None:
        bounds.append(money_text(futures.max_regret, scenario.assumptions.currency))
    if futures.max_regret_share is not None:
        bounds.append(f"{futures.max_regret_share * 100:g} % of that future's own cheapest plan")
    if bounds:
        text += f", regret at most {' and '.join(bounds)} in each future"
    return text


def futures_notes(scenario: Scenario) -> list[str]:
    """The diagnostic of a plan ``solve`` made for a scenario with futures (none without)."""
    if scenario.futures is None or not scenario.futures.futures:
        return []
    return [
        f"This scenario has {_futures(scenario)}; `gpumix futures` plans one purchase "
        "for all of them."
    ]
