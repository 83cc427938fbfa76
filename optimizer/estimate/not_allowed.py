"""The refusal an estimate raises when a pair cannot run.

Takes nothing from the other estimate modules; hands ``_NotAllowed`` (and
``_needed``, which raises it for a missing input) to ``training``, ``serving``
and ``pairs``, where ``pairs.estimate_pair`` turns it into a pair's reason.
"""

from __future__ import annotations


class _NotAllowed(Exception):
    """Internal: the pair cannot run; the message says why, in numbers.

    ``latency_ms`` carries the batch-1 decode latency when it was computed
    (a pair ruled out by its latency target still reports it).
    """

    def __init__(self, reason: str, latency_ms: float | None = None) -> None:
        super().__init__(reason)
        self.latency_ms = latency_ms


def _needed(value: float | None, name: str) -> float:
    if value is None:
        raise _NotAllowed(
            f"{name} is missing: the speed estimate needs it (or a measured Throughput row)"
        )
    return value
