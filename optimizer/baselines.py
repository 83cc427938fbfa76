"""Simple alternatives a plan is measured against: rent only, buy only, one GPU type.

Each baseline is the same scenario with fewer choices, solved by the same
engine, so "saving vs rent only" means what finance expects: what the mix
saves compared with renting everything under the same demand and budgets.
"""

from __future__ import annotations

RENT_ONLY = "rent only"
BUY_ONLY = "buy only"
BEST_SINGLE_GPU = "best single GPU type"
BASELINE_NAMES = (RENT_ONLY, BUY_ONLY, BEST_SINGLE_GPU)
