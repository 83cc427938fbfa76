"""Serving widths of realtime pairs (model v2 §D) against figures worked by hand.

``_by_hand`` writes the serving estimate (model v2 §G) out again, independently
of ``optimizer.estimate.serving``: memory batch = 1 + floor(spare / KV of one
average sequence), batch-1 step, and the largest batch within the latency
target found by counting down (no closed form). Models have 8 KV heads of 128
and the default request (1,024 prompt + 128 output tokens). H100 SXM 80 GB,
989 TFLOPS, 3,350 GB/s, NVLink; L4 24 GB, 121 TFLOPS, 300 GB/s, PCIe; default
Assumptions.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from optimizer.domain import Gpu, Measurement, Workload
from optimizer.estimate.pairs import estimate_pair
from optimizer.estimate.widths import candidate_widths
from optimizer.results import EstimateSource, PairEstimate
from tests.builders import gpu, measured, scenario, workload

H100 = gpu("H100")
L4 = gpu("L4", vram_gb=24.0, fp16_tflops=121.0, memory_bandwidth_gbs=300.0, nvlink=False)
REL = 1e-9
# Layers of the Llama-like models used here (Llama 3.2 1B, 3 8B, 3 70B, 3.1 405B).
LAYERS = {1: 16, 8: 32, 70: 80, 405: 126}


def _one(w: Workload, g: Gpu, measurements: list[Measurement] | None = None) -> PairEstimate:
    return estimate_pair(scenario([g], [], [w], measurements), w, g)


def _chat(params_b: float, latency_ms: float | None = None) -> Workload:
    return workload(
        "chat",
        "realtime_inference",
        params_b=params_b,
        tokens_per_second=1,
        latency_ms=latency_ms,
        layers=LAYERS[int(params_b)],
        kv_heads=8,
        head_dim=128,
    )


def _by_hand(
    params_b: float,
    k: int,
    latency_ms: float | None,
    *,
    vram: float = 80.0,
    bandwidth_gbs: float = 3350.0,
    tflops: float = 989.0,
) -> tuple[float | None, float]:
    """(tokens/s per replica or None when batch 1 misses the target, batch-1 ms) at width k."""
    layers = LAYERS[int(params_b)]
    weights = params_b * 2e9  # bf16
    kv_token = 2 * layers * 8 * 128 * 2
    kv = kv_token * (1024 + 128 / 2)  # an average sequence
    need = weights + kv_token * (1024 + 128)  # the model with one whole request
    room = min(vram * 0.9, vram - 2.5) * 1e9  # usable_vram_fraction; runtime_overhead_gb
    bandwidth = k * bandwidth_gbs * 1e9 * 0.7  # bandwidth_efficiency (bf16 and KV alike)
    flops = k * tflops * 1e12 * 0.5  # mfu_inference
    all_reduces = 2 * layers * 25e-6 if k > 1 else 0.0  # allreduce_latency_us
    prefill = 2 * params_b * 1e9 * 1024 / flops

    def step(b: int) -> float:
        return max((weights + b * kv) / bandwidth, 2 * params_b * 1e9 * b / flops) + all_reduces

    step1_ms = step(1) * 1000
    if latency_ms is not None and step1_ms > latency_ms:
        return None, step1_ms
    b = 1 + math.floor((k * room - need) / kv)
    while latency_ms is not None and step(b) * 1000 > latency_ms:
        b -= 1
    return 1 / (step(b) / b + prefill / 128), step1_ms


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
    # 8B at 20 ms: k_min = 1, so widths 1, 2, 4 and 8. Width 1: 216 sequences (the latency
    # bound), 2,847 tokens/s; each wider width holds more sequences per GPU, and none is
    # dominated: 2 × H100 serves 5,882 tokens/s, more than 2 replicas of 1.
    est = _one(_chat(8, 20), H100)
    expected = {k: _by_hand(8, k, 20) for k in (1, 2, 4, 8)}
    _assert_close(est, expected)
    assert expected[1][0] == pytest.approx(2846.9885, abs=1e-4)
    # The pair keeps the figures of its narrowest allowed width.
    assert est.allowed and est.gpus_per_replica == 1
    assert est.tokens_per_second_per_replica == pytest.approx(expected[1][0], rel=REL)
    assert est.latency_ms == pytest.approx(expected[1][1], rel=REL)
    assert [w.allowed for w in est.widths] == [True, True, True, True]
    assert [w.width for w in est.serving_widths()] == [1, 2, 4, 8]


def test_widths_start_at_the_smallest_divisor_that_holds_the_model() -> None:
    # 70B bf16 needs 140 + 0.42 GB: k_min = ceil(140.42 / 72) = 2, so widths 2, 4 and 8 on an
    # 8-GPU server; no target: each wider width serves more than replicas of the narrower.
    est = _one(_chat(70), H100)
    expected = {k: _by_hand(70, k, None) for k in (2, 4, 8)}
    _assert_close(est, expected)
    assert [w.allowed for w in est.widths] == [True, True, True]
    assert est.gpus_per_replica == 2
    # On a 6-GPU server the divisors from 2 are 2, 3 and 6.
    six = _one(_chat(70), gpu("H100", max_per_node=6))
    _assert_close(six, {k: _by_hand(70, k, None) for k in (2, 3, 6)})
    assert six.gpus_per_replica == 2


def test_70b_at_12_ms_is_served_on_one_whole_server_of_h100() -> None:
    # The v2 §D regression: 70B at a tight target was refused on every type although
    # 8 × H100 in one server meets it.
    # width 4: (140e9 + 327,680 × 1,088) / (4 × 2,345e9) + 2 × 80 × 25 µs = 18.96 ms > 12 ms;
    # width 8: (140e9 + 356,515,840) / (8 × 2,345e9) + 4 ms = 11.482 ms ≤ 12 ms: allowed.
    est = _one(_chat(70, 12), H100)
    expected = {k: _by_hand(70, k, 12) for k in (2, 4, 8)}
    assert expected[4][0] is None and expected[8][0] is not None
    _assert_close(est, expected)
    assert est.widths[1].reason == (
        "batch-1 decode takes 19.0 ms per token on 4 × H100, above the 12 ms target"
    )
    assert est.allowed and est.reason == ""
    assert est.gpus_per_replica == 8
    assert est.latency_ms == pytest.approx(11.482, abs=1e-3)
    assert est.tokens_per_second_per_replica == pytest.approx(expected[8][0], rel=REL)
    assert [w.width for w in est.serving_widths()] == [8]


def test_a_pair_is_ruled_out_only_when_one_whole_server_misses_the_target() -> None:
    # 70B at 5 ms: even 8 × H100 takes 11.482 ms.
    est = _one(_chat(70, 5), H100)
    _, ms8 = _by_hand(70, 8, 5)
    assert not est.allowed
    assert est.reason == (
        "batch-1 decode takes 11.5 ms per token even on 8 × H100 (one server), above the 5 ms"
        " target"
    )
    assert est.gpus_per_replica == 8
    assert est.latency_ms == pytest.approx(ms8, rel=REL)
    assert est.tokens_per_second_per_replica is None
    assert [w.allowed for w in est.widths] == [False, False, False]
    assert est.serving_widths() == ()
    # 8B on L4 at 10 ms: 1, 2, 4 and 8 × L4 all miss it (8: 16.143e9 / 1,680e9 + 1.6 ms).
    l4 = _one(_chat(8, 10), L4)
    assert not l4.allowed and l4.gpus_per_replica == 8
    assert l4.reason == (
        "batch-1 decode takes 11.2 ms per token even on 8 × L4 (one server), above the 10 ms target"
    )
    assert l4.latency_ms == pytest.approx(((16e9 + 4096 * 32 * 1088) / 1680e9 + 0.0016) * 1000)


def test_a_model_wider_than_one_server_stays_ruled_out_as_in_v1() -> None:
    # 405B: 810 GB + 516,096 × 1,152 B = 810.59 GB / 72 = 11.26 → 12 GPUs > 8.
    est = _one(_chat(405, 10), H100)
    assert not est.allowed and est.gpus_per_replica == 12 and est.widths == ()
    assert est.reason.endswith("one server of 8 × H100 holds 576.0 GB usable (90% of 80 GB each)")


def test_a_measured_gpus_per_replica_fixes_the_width() -> None:
    # 70B at 12 ms measured on 4 × H100: 19.0 ms misses the target, and 8 is not looked at.
    chat = _chat(70, 12)
    est = _one(chat, H100, [measured("chat", "H100", gpus_per_replica=4)])
    assert not est.allowed
    assert (
        est.reason == "batch-1 decode takes 19.0 ms per token on 4 × H100, above the 12 ms target"
    )
    assert [w.width for w in est.widths] == [4]
    assert est.gpus_per_replica == 4
    # Measured on 8 × H100: the one width, estimated capacity.
    eight = _one(chat, H100, [measured("chat", "H100", gpus_per_replica=8)])
    _assert_close(eight, {8: _by_hand(70, 8, 12)})
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
    # 70B: k_min = 2, the narrowest width; that width would miss 12 ms
    # as an estimate, but a measured capacity skips the latency check.
    est = _one(_chat(70, 12), H100, [measured("chat", "H100", tokens_per_second_per_replica=900.0)])
    assert est.allowed and est.source is EstimateSource.MEASURED
    assert _figures(est) == [(2, True, 900.0, None)]
    assert (est.gpus_per_replica, est.tokens_per_second_per_replica, est.latency_ms) == (
        2,
        900.0,
        None,
    )
    # 8B (k_min = 1): width 1 only.
    small = _one(_chat(8), H100, [measured("chat", "H100", tokens_per_second_per_replica=3e3)])
    assert _figures(small) == [(1, True, 3e3, None)]


def test_a_measured_width_that_does_not_divide_the_server_is_ruled_out() -> None:
    # Three-GPU replicas do not pack into 8-GPU servers (model v2 §B); the reader
    # refuses such a Throughput row, a scenario built in code is ruled out here.
    est = _one(
        _chat(8, 50),
        H100,
        [measured("chat", "H100", gpus_per_replica=3, tokens_per_second_per_replica=1000.0)],
    )
    assert not est.allowed
    assert est.reason == (
        "the measured replica of 3 GPUs does not divide one server of 8 × H100, "
        "so its replicas would not pack into servers"
    )


def test_a_wider_width_is_left_out_only_when_narrower_replicas_serve_as_much() -> None:
    # 1B on H100, no target: 1 × H100 holds 981 sequences (15,715 tokens/s); 2 × H100 1,991
    # but pays 2 × 16 × 25 µs of all-reduces a step: 31,253 ≤ 2 × 15,715; 4 and 8 × H100
    # likewise. All three are left out, naming the narrowest width that serves as much.
    est = _one(_chat(1), H100)
    expected = {k: _by_hand(1, k, None) for k in (1, 2, 4, 8)}
    _assert_close(est, expected)
    caps = {k: c or 0.0 for k, (c, _) in expected.items()}
    assert caps[2] <= 2 * caps[1] and caps[4] <= 4 * caps[1] and caps[8] <= 8 * caps[1]
    assert [w.allowed for w in est.widths] == [True, False, False, False]
    assert est.widths[1].reason == (
        f"2 × H100 serves {caps[2]:,.0f} tokens/s, no more than 2 replicas of 1 × H100"
        f" ({2 * caps[1]:,.0f})"
    )
    assert (
        est.widths[1].reason
        == "2 × H100 serves 31,253 tokens/s, no more than 2 replicas of 1 × H100 (31,431)"
    )
    assert est.widths[3].reason.startswith(
        "8 × H100 serves 125,661 tokens/s, no more than 8 replicas of 1 × H100"
    )
    # A dominated width keeps its figures for the results.
    assert est.widths[3].tokens_per_second_per_replica == pytest.approx(caps[8], rel=REL)


def test_a_width_that_misses_the_target_dominates_nothing() -> None:
    # 8B on L4 at 30 ms: 1 and 2 × L4 miss it (76.9, 40.0 ms); 4 × L4 is allowed (931
    # tokens/s) and 8 × L4 (2,503 > 2 × 931) is kept beside it.
    l4: dict[str, float] = dict(vram=24.0, bandwidth_gbs=300.0, tflops=121.0)
    est = _one(_chat(8, 30), L4)
    expected = {k: _by_hand(8, k, 30, **l4) for k in (1, 2, 4, 8)}
    _assert_close(est, expected)
    assert [w.allowed for w in est.widths] == [False, False, True, True]
    assert est.gpus_per_replica == 4
    assert [w.width for w in est.serving_widths()] == [4, 8]


def test_training_and_batch_pairs_list_no_widths() -> None:
    est = _one(workload("lora", "lora", params_b=7, tokens=1e9), H100)
    assert est.widths == ()


def test_a_memory_estimate_that_does_not_divide_the_server_serves_at_the_next_divisor() -> None:
    # 150 GB on 80 GB GPUs (72 GB usable) needs k_min = 3; the allowed widths are the
    # divisors of 8 at least 3 (model v2 §D). An outside audit found these ruled out
    # as if 3 had been measured.
    big = replace(_chat(70), vram_gb=150.0)
    timed = _one(big, H100, [measured("chat", "H100", tokens_per_second_per_replica=100.0)])
    assert timed.allowed, timed.reason
    # A measured capacity without a width was taken at the smallest allowed width.
    assert _figures(timed) == [(4, True, 100.0, None)]
    assert timed.gpus_per_replica == 4
    estimated = _one(big, H100)
    assert estimated.allowed, estimated.reason
    assert [w.width for w in estimated.widths] == [4, 8]
    assert estimated.gpus_per_replica == 4
