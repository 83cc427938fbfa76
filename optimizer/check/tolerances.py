"""Tolerances and number formatting shared by every rule of the checker.

Takes plain floats; hands on the tolerance constants, the comparisons
``hours_close`` / ``hours_exceed`` / ``money_close`` / ``_is_integer``, and the
``_h`` formatter the violation messages use (money: ``optimizer.currency``).
Hours and work agree to a relative 1e-6 (solvers round), money to half a cent (what finance sees).
"""

from __future__ import annotations

HALF_CENT = 0.005
HOURS_REL_TOL = 1e-6
# Below one hour the relative tolerance would be meaninglessly small; a
# millionth of an hour is far below anything a plan reports.
HOURS_ABS_TOL = 1e-6
INTEGER_TOL = 1e-6


def _hours_tol(reference: float) -> float:
    return max(HOURS_ABS_TOL, HOURS_REL_TOL * abs(reference))


def hours_close(found: float, expected: float) -> bool:
    return abs(found - expected) <= _hours_tol(max(abs(found), abs(expected)))


def hours_exceed(value: float, limit: float) -> bool:
    """``value > limit`` by more than the hours tolerance."""
    return value > limit + _hours_tol(limit)


def money_close(found: float, expected: float) -> bool:
    return abs(found - expected) <= HALF_CENT


def _is_integer(value: float) -> bool:
    return abs(value - round(value)) <= INTEGER_TOL


def _h(value: float) -> str:
    return f"{value:,.6g}"
