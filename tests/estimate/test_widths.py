"""Serving widths of realtime pairs (model v2 §D) against figures worked by hand.

``_by_hand`` writes v1's decode roofline out again, independently of
``optimizer.estimate.serving``: memory batch = 1 + floor(spare / KV of one
sequence), batch-1 step, and the largest batch within the latency target found
by counting down (no closed form). H100 SXM 80 GB, 989 TFLOPS, 3,350 GB/s,
NVLink; L4 24 GB, 121 TFLOPS, 300 GB/s, PCIe; default Assumptions.
"""

from __future__ import annotations

import math

import pytest

from optimizer.domain import Gpu, Measurement, Workload
from optimizer.estimate.pairs import estimate_pair
from optimizer.estimate.widths import candidate_widths
from optimizer.results import EstimateSource, PairEstimate
from tests.builders import gpu, measured, scenario, workload

H100 = gpu("H100")
L4 = gpu("L4", vram_gb=24.0, fp16_tflops=121.0, memory_bandwidth_gbs=300.0, nvlink=False)
REL = 1e-9


def _one(w: Workload, g: Gpu, measurements: list[Measurement] | None = None) -> PairEstimate:
    return estimate_pair(scenario([g], [], [w], measurements), w, g)


def _chat(params_b: float, latency_ms: float | None = None) -> Workload:
    return workload(
        "chat", "realtime_inference", params_b=params_b, tokens_per_second=1, latency_ms=latency_ms
    )


def _by_hand(
    params_b: float,
    k: int,
    latency_ms: float | None,
    *,
    vram: float = 80.0,
    bandwidth_gbs: float = 3350.0,
    tflops: float = 989.0,
    per_doubling: float = 0.95,
) -> tuple[float | None, float]:
    """(tokens/s per replica or None when batch 1 misses the target, batch-1 ms) at width k."""
    weights = params_b * 2e9  # bf16
    kv = 131_072 * (params_b / 8) ** 0.42 * 4096  # one 4,096-token sequence
    need = weights * 1.2 + kv
    scaling = per_doubling ** math.log2(k)
    bandwidth = k * bandwidth_gbs * 1e9 * 0.7  # bandwidth_efficiency
    flops = k * tflops * 1e12 * 0.5  # mfu_inference

    def step(b: int) -> float:
        return max((weights + b * kv) / bandwidth, 2 * params_b * 1e9 * b / flops) / scaling

    step1_ms = step(1) * 1000
    if latency_ms is not None and step1_ms > latency_ms:
        return None, step1_ms
    b = 1 + math.floor((k * vram * 0.9e9 - need) / kv)  # usable_vram_fraction 0.9
    while latency_ms is not None and step(b) * 1000 > latency_ms:
        b -= 1
    return b / step(b), step1_ms


def _figures(est: PairEstimate) -> list[tuple[int, bool, float | None, float | None]]:
    return [(w.width, w.allowed, w.tokens_per_second_per_replica, w.latency_ms) for w in est.widths]


def _assert_close(est: PairEstimate, expected: dict[int, tuple[float | None, float]]) -> None:
    assert [w.width for w in est.widths] == list(expected)
    for w in est.widths:
        cap, ms = expected[w.width]
        assert w.latency_ms == pytest.approx(ms, rel=REL)
        if cap is None:
            assert w.tokens_per_second_per_replica is None
        else:
            assert w.tokens_per_second_per_replica == pytest.approx(cap, rel=REL)


def test_candidate_widths_are_the_divisors_of_max_per_node_from_k_min() -> None:
    assert candidate_widths(1, 8) == (1, 2, 4, 8)
    assert candidate_widths(3, 8) == (4, 8)
    assert candidate_widths(3, 6) == (3, 6)
    assert candidate_widths(2, 6) == (2, 3, 6)
    assert candidate_widths(8, 8) == (8,)
    assert candidate_widths(9, 8) == ()


def test_widths_of_an_8b_chat_on_h100_each_by_hand() -> None:
    # 8B at 20 ms: k_min = 1, so widths 1, 2, 4 and 8. Width 1: 57 sequences (the latency
    # bound), 2,868 tokens/s; each wider width holds more sequences per GPU.
    est = _one(_chat(8, 20), H100)
    expected = {k: _by_hand(8, k, 20) for k in (1, 2, 4, 8)}
    _assert_close(est, expected)
    assert expected[1][0] == pytest.approx(57 / (46_601_641_984 / 2.345e12), rel=REL)
    # The pair keeps v1's figures from its narrowest allowed width.
    assert est.allowed and est.gpus_per_replica == 1
    assert est.tokens_per_second_per_replica == pytest.approx(expected[1][0], rel=REL)
    assert est.latency_ms == pytest.approx(expected[1][1], rel=REL)
    # 8 × H100 serves 28,468 tokens/s, no more than 2 replicas of 4 × H100 (2 × 14,275).
    cap4, cap8 = expected[4][0], expected[8][0]
    assert cap4 is not None and cap8 is not None and cap8 <= 2 * cap4
    assert [w.allowed for w in est.widths] == [True, True, True, False]
    assert est.widths[3].reason == (
        f"8 × H100 serves {cap8:,.0f} tokens/s, no more than 2 replicas of 4 × H100"
        f" ({2 * cap4:,.0f})"
    )
    assert [w.width for w in est.serving_widths()] == [1, 2, 4]


def test_widths_start_at_the_smallest_divisor_that_holds_the_model() -> None:
    # 70B bf16 needs 169.3 GB: k_min = ceil(169.3 / 72) = 3, so widths 4 and 8 on an 8-GPU
    # server; no target: 8 × H100 (8,965 tokens/s) beats 2 replicas of 4 (2 × 2,911).
    est = _one(_chat(70), H100)
    expected = {4: _by_hand(70, 4, None), 8: _by_hand(70, 8, None)}
    _assert_close(est, expected)
    assert [w.allowed for w in est.widths] == [True, True]
    assert est.gpus_per_replica == 4
    # On a 6-GPU server the divisors from 3 are 3 and 6.
    six = _one(_chat(70), gpu("H100", max_per_node=6))
    _assert_close(six, {3: _by_hand(70, 3, None), 6: _by_hand(70, 6, None)})
    assert six.gpus_per_replica == 3


def test_70b_at_10_ms_is_served_on_one_whole_server_of_h100() -> None:
    # The regression: 70B at 10 ms/token was refused on every type although
    # 8 × H100 in one server meets it.
    # width 4: (140e9 + 1.3351e9) / (4 × 2,345e9) / 0.95² = 16.70 ms > 10 ms: out;
    # width 8: (140e9 + 1.3351e9) / (8 × 2,345e9) / 0.95³ = 8.787 ms ≤ 10 ms: allowed.
    est = _one(_chat(70, 10), H100)
    expected = {4: _by_hand(70, 4, 10), 8: _by_hand(70, 8, 10)}
    assert expected[4][0] is None and expected[8][0] is not None
    _assert_close(est, expected)
    assert est.widths[0].reason == (
        "batch-1 decode takes 16.7 ms per token on 4 × H100, above the 10 ms target"
    )
    assert est.allowed and est.reason == ""
    assert est.gpus_per_replica == 8
    assert est.latency_ms == pytest.approx(8.787, abs=1e-3)
    assert est.tokens_per_second_per_replica == pytest.approx(expected[8][0], rel=REL)
    assert [w.width for w in est.serving_widths()] == [8]


def test_a_pair_is_ruled_out_only_when_one_whole_server_misses_the_target() -> None:
    # 70B at 5 ms: even 8 × H100 takes 8.787 ms.
    est = _one(_chat(70, 5), H100)
    _, ms8 = _by_hand(70, 8, 5)
    assert not est.allowed
    assert est.reason == (
        "batch-1 decode takes 8.8 ms per token even on 8 × H100 (one server), above the 5 ms target"
    )
    assert est.gpus_per_replica == 8
    assert est.latency_ms == pytest.approx(ms8, rel=REL)
    assert est.tokens_per_second_per_replica is None
    assert [w.allowed for w in est.widths] == [False, False]
    assert est.serving_widths() == ()
    # 8B on L4 at 20 ms: 1, 2, 4 and 8 × L4 all miss it (8: 16.537e9 / 1,680e9 / 0.343).
    l4 = _one(_chat(8, 20), L4)
    assert not l4.allowed and l4.gpus_per_replica == 8
    assert l4.reason == (
        "batch-1 decode takes 28.7 ms per token even on 8 × L4 (one server), above the 20 ms target"
    )
    assert l4.latency_ms == pytest.approx((16e9 + 536_870_912) / 1680e9 / 0.343 * 1000, rel=REL)


def test_a_model_wider_than_one_server_stays_ruled_out_as_in_v1() -> None:
    est = _one(_chat(405, 10), H100)
    assert not est.allowed and est.gpus_per_replica == 14 and est.widths == ()
    assert est.reason.endswith("one server of 8 × H100 holds 576.0 GB usable (90% of 80 GB each)")


def test_a_measured_gpus_per_replica_fixes_the_width() -> None:
    # 70B at 10 ms measured on 4 × H100: 16.7 ms misses the target, and 8 is not looked at.
    chat = _chat(70, 10)
    est = _one(chat, H100, [measured("chat", "H100", gpus_per_replica=4)])
    assert not est.allowed
    assert (
        est.reason == "batch-1 decode takes 16.7 ms per token on 4 × H100, above the 10 ms target"
    )
    assert [w.width for w in est.widths] == [4]
    assert est.gpus_per_replica == 4
    # Measured on 8 × H100: the one width, estimated capacity.
    eight = _one(chat, H100, [measured("chat", "H100", gpus_per_replica=8)])
    _assert_close(eight, {8: _by_hand(70, 8, 10)})
    assert eight.allowed and eight.gpus_per_replica == 8
    assert eight.source is EstimateSource.ESTIMATED
    # 8B measured on 2 × H100: width 1 would be allowed, but only 2 is looked at.
    two = _one(_chat(8, 20), H100, [measured("chat", "H100", gpus_per_replica=2)])
    _assert_close(two, {2: _by_hand(8, 2, 20)})
    assert two.gpus_per_replica == 2


def test_measured_width_and_capacity_are_final() -> None:
    est = _one(
        _chat(70, 5),
        H100,
        [measured("chat", "H100", gpus_per_replica=2, tokens_per_second_per_replica=700.0)],
    )
    assert est.allowed and est.source is EstimateSource.MEASURED
    assert _figures(est) == [(2, True, 700.0, None)]
    assert (est.gpus_per_replica, est.tokens_per_second_per_replica) == (2, 700.0)


def test_measured_capacity_alone_was_taken_at_the_narrowest_width() -> None:
    # 70B: k_min = 3, so the narrowest width is 4; that width would miss 10 ms
    # as an estimate, but a measured capacity skips the latency check.
    est = _one(_chat(70, 10), H100, [measured("chat", "H100", tokens_per_second_per_replica=900.0)])
    assert est.allowed and est.source is EstimateSource.MEASURED
    assert _figures(est) == [(4, True, 900.0, None)]
    assert (est.gpus_per_replica, est.tokens_per_second_per_replica, est.latency_ms) == (
        4,
        900.0,
        None,
    )
    # 8B (k_min = 1): width 1 only.
    small = _one(_chat(8), H100, [measured("chat", "H100", tokens_per_second_per_replica=3e3)])
    assert _figures(small) == [(1, True, 3e3, None)]


def test_a_wider_width_is_left_out_only_when_narrower_replicas_serve_as_much() -> None:
    # 8B on L4 (PCIe, 0.7 per doubling), no target: 1 × L4 holds 4 sequences (46 tokens/s),
    # 2 × L4 44 (326 tokens/s, more than 2 × 46: kept); 4 × L4 serves 619 ≤ 2 × 326 and
    # 8 × L4 972 ≤ 4 × 326: both left out, naming the narrowest width that serves as much.
    l4: dict[str, float] = dict(vram=24.0, bandwidth_gbs=300.0, tflops=121.0, per_doubling=0.7)
    est = _one(_chat(8), L4)
    expected = {k: _by_hand(8, k, None, **l4) for k in (1, 2, 4, 8)}
    _assert_close(est, expected)
    caps = {k: c or 0.0 for k, (c, _) in expected.items()}
    assert caps[4] <= 2 * caps[2] and caps[8] <= 4 * caps[2] and caps[2] > 2 * caps[1]
    assert [w.allowed for w in est.widths] == [True, True, False, False]
    assert est.widths[2].reason == (
        f"4 × L4 serves {caps[4]:,.0f} tokens/s, no more than 2 replicas of 2 × L4"
        f" ({2 * caps[2]:,.0f})"
    )
    assert (
        est.widths[2].reason
        == "4 × L4 serves 619 tokens/s, no more than 2 replicas of 2 × L4 (653)"
    )
    assert est.widths[3].reason.startswith(
        "8 × L4 serves 972 tokens/s, no more than 4 replicas of 2 × L4"
    )
    # A dominated width keeps its figures for the results.
    assert est.widths[3].tokens_per_second_per_replica == pytest.approx(caps[8], rel=REL)


def test_a_width_that_misses_the_target_dominates_nothing() -> None:
    # 8B on L4 at 50 ms: 1 and 2 × L4 miss it (78.7, 56.2 ms); 4 × L4 is allowed (162 tokens/s)
    # and 8 × L4 (468 > 2 × 162) is kept beside it.
    l4: dict[str, float] = dict(vram=24.0, bandwidth_gbs=300.0, tflops=121.0, per_doubling=0.7)
    est = _one(_chat(8, 50), L4)
    expected = {k: _by_hand(8, k, 50, **l4) for k in (1, 2, 4, 8)}
    _assert_close(est, expected)
    assert [w.allowed for w in est.widths] == [False, False, True, True]
    assert est.gpus_per_replica == 4
    assert [w.width for w in est.serving_widths()] == [4, 8]


def test_training_and_batch_pairs_list_no_widths() -> None:
    est = _one(workload("lora", "lora", params_b=7, tokens=1e9), H100)
    assert est.widths == ()
