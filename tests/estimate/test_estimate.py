"""The estimator against figures worked by hand (model.md, "Per workload × GPU type").

GPUs are the brief's datasheet figures: H100 SXM 80 GB, 989 TFLOPS, 3,350 GB/s,
NVLink; RTX 4090 24 GB, 330 TFLOPS, 1,008 GB/s, PCIe; L4 24 GB, 121 TFLOPS,
300 GB/s; L40S 48 GB, 362 TFLOPS, 864 GB/s. Assumptions are the defaults.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optimizer.domain import Assumptions, Precision
from optimizer.estimate.memory import kv_bytes_per_token, memory_need, weights_gb
from optimizer.estimate.pairs import estimate_pair, estimate_pairs
from optimizer.estimate.serving import decode_model, largest_batch
from optimizer.estimate.training import scaling_efficiency
from optimizer.results import EstimateSource
from tests.builders import gpu, measured, scenario, workload

A = Assumptions()
H100 = gpu("H100")
RTX4090 = gpu(
    "RTX 4090",
    vram_gb=24.0,
    fp16_tflops=330.0,
    memory_bandwidth_gbs=1008.0,
    tdp_w=450.0,
    nvlink=False,
)
L4 = gpu(
    "L4", vram_gb=24.0, fp16_tflops=121.0, memory_bandwidth_gbs=300.0, tdp_w=72.0, nvlink=False
)
L40S = gpu(
    "L40S", vram_gb=48.0, fp16_tflops=362.0, memory_bandwidth_gbs=864.0, tdp_w=350.0, nvlink=False
)

KV_8B = 128 * 1024  # bytes per token, kv_kib_per_token_8b
KV_8B_SEQUENCE_GB = KV_8B * 4096 / 1e9  # 536,870,912 bytes = 0.536870912 GB


def _one(w, g, measurements=None, **kw):
    return estimate_pair(scenario([g], [], [w], measurements, **kw), w, g)


# ---------------------------------------------------------------- memory


def test_weights_of_a_7b_model_at_bf16_are_14_gb() -> None:
    # 7e9 parameters × 2 bytes = 14e9 bytes = 14 GB; int4: 7 × 0.5 = 3.5 GB
    assert weights_gb(7, Precision.BF16, A) == pytest.approx(14.0)
    assert weights_gb(7, Precision.INT4, A) == pytest.approx(3.5)


def test_kv_cache_per_token_lands_on_both_published_points() -> None:
    # 8B: 128 KiB = 0.125 MiB by definition.
    assert kv_bytes_per_token(8, Precision.BF16, A) == pytest.approx(131_072)
    # 70B: 131,072 × (70 / 8) ** 0.42 = 131,072 × 2.4868 ≈ 325,950 bytes ≈ 0.311 MiB; brief ≈ 0.31 MiB.
    assert kv_bytes_per_token(70, Precision.BF16, A) / 2**20 == pytest.approx(0.31, rel=0.01)
    # KV stays at 16 bits for int4 weights, and doubles for fp32 weights.
    assert kv_bytes_per_token(8, Precision.INT4, A) == pytest.approx(131_072)
    assert kv_bytes_per_token(8, Precision.FP32, A) == pytest.approx(262_144)


def test_realtime_memory_is_weights_with_overhead_plus_one_sequence() -> None:
    # 8B bf16: 16 GB × 1.2 + 131,072 × 4,096 bytes = 19.2 + 0.536870912 = 19.736870912 GB
    need = memory_need(workload("chat", "realtime_inference", params_b=8, tokens_per_second=100), A)
    assert need is not None
    assert need.total_gb == pytest.approx(19.736870912)


def test_a_7b_lora_needs_14_to_20_gb_and_fits_one_rtx_4090() -> None:
    # frozen 7 × 2 = 14 GB + adapters 7 × 0.003 × 16 = 0.336 GB + activations 7 × 0.06 = 0.42 GB
    # = 14.756 GB; one RTX 4090 offers 24 × 0.9 = 21.6 GB.
    lora = workload("lora-7b", "lora", params_b=7, tokens=1e8)
    est = _one(lora, RTX4090)
    assert est.memory_gb == pytest.approx(14.756)
    assert 14.0 <= est.memory_gb <= 20.0
    assert est.allowed and est.gpus_per_replica == 1


def test_a_70b_qlora_fits_one_48_gb_gpu() -> None:
    # int4 70 × 0.5 = 35 GB + adapters 70 × 0.048 = 3.36 GB + activations 70 × 0.06 = 4.2 GB
    # = 42.56 GB ≤ 48 × 0.9 = 43.2 GB (the QLoRA paper's result).
    est = _one(workload("qlora-70b", "qlora", params_b=70, tokens=1e8), L40S)
    assert est.memory_gb == pytest.approx(42.56)
    assert est.allowed and est.gpus_per_replica == 1


def test_70b_pretraining_spans_16_h100() -> None:
    # state 70 × 16 = 1,120 GB + activations 70 × 0.06 = 4.2 GB = 1,124.2 GB;
    # 1,124.2 / (80 × 0.9 = 72) = 15.61 → 16 GPUs, more than one server: training may span.
    est = _one(workload("pre-70b", "pretraining", params_b=70, tokens=1e12), H100)
    assert est.memory_gb == pytest.approx(1124.2)
    assert est.allowed and est.gpus_per_replica == 16


def test_workload_vram_gb_replaces_the_memory_estimate() -> None:
    # 100 GB / 72 GB usable per H100 = 1.39 → 2 GPUs (the estimate would say 1 for 7B LoRA)
    est = _one(workload("lora", "lora", params_b=7, tokens=1e8, vram_gb=100.0), H100)
    assert est.memory_gb == 100.0
    assert est.gpus_per_replica == 2


# ---------------------------------------------------------------- scaling


@pytest.mark.parametrize(
    ("k", "nvlink", "expected"),
    [
        (1, True, 1.0),
        (2, True, 0.95),
        (4, True, 0.9025),  # 0.95²
        (8, True, 0.857375),  # 0.95³
        (2, False, 0.70),
        (4, False, 0.49),  # 0.7²
        (8, False, 0.343),  # 0.7³
    ],
)
def test_scaling_per_doubling(k: int, nvlink: bool, expected: float) -> None:
    assert scaling_efficiency(k, gpu(nvlink=nvlink), A) == pytest.approx(expected)


# ---------------------------------------------------------------- work rates


def test_training_gpu_hours_of_a_lora_job() -> None:
    # 4 × 7e9 × 1e9 tokens = 2.8e19 FLOPs; 989e12 × 0.40 MFU × 0.90 goodput = 356.04e12 FLOP/s;
    # 2.8e19 / 356.04e12 / 3,600 = 21.8452 GPU-hours on one H100.
    est = _one(workload("lora", "lora", params_b=7, tokens=1e9), H100)
    assert est.gpu_hours == pytest.approx(21.8452, abs=1e-4)
    assert est.source is EstimateSource.ESTIMATED


def test_training_gpu_hours_use_the_gpus_own_mfu_and_scaling() -> None:
    # 6 × 70e9 × 1e12 = 4.2e23 FLOPs on 16 H100 at MFU 0.5 (the GPU's own value):
    # 989e12 × 0.5 × 0.9 × 0.95⁴ (0.81450625) = 362.4960e12 FLOP/s;
    # 4.2e23 / 362.4960e12 / 3,600 = 321,842.6 GPU-hours.
    h100 = gpu("H100", mfu_training=0.5)
    est = _one(workload("pre-70b", "pretraining", params_b=70, tokens=1e12), h100)
    assert est.gpus_per_replica == 16
    assert est.gpu_hours == pytest.approx(4.2e23 / (989e12 * 0.5 * 0.9 * 0.81450625) / 3600)
    assert est.gpu_hours == pytest.approx(321_842.6, abs=0.1)


def test_batch_inference_gpu_hours_per_month() -> None:
    # 2 × 8e9 × 1e10 tokens = 1.6e20 FLOPs a month; 989e12 × 0.5 MFU = 494.5e12 FLOP/s;
    # 1.6e20 / 494.5e12 / 3,600 = 89.877 GPU-hours a month.
    est = _one(workload("batch", "batch_inference", params_b=8, tokens=1e10), H100)
    assert est.gpus_per_replica == 1
    assert est.gpu_hours == pytest.approx(89.877, abs=1e-3)


# ---------------------------------------------------------------- realtime


def test_batch_one_decode_step_of_8b_on_h100() -> None:
    # context 1: (16e9 + 131,072) bytes / (3,350e9 × 0.7 = 2,345e9 B/s) = 6.823 ms
    short = workload(
        "chat", "realtime_inference", params_b=8, tokens_per_second=100, context_tokens=1
    )
    assert _one(short, H100).latency_ms == pytest.approx(6.823, abs=1e-3)
    # context 4,096: (16e9 + 536,870,912) / 2,345e9 = 7.0520 ms
    full = workload("chat", "realtime_inference", params_b=8, tokens_per_second=100)
    assert _one(full, H100).latency_ms == pytest.approx(7.0520, abs=1e-4)


def test_batch_limited_by_memory() -> None:
    # Usable 72 GB; the model with one sequence needs 19.736870912 GB; each more sequence
    # 0.536870912 GB: 1 + floor((72 − 19.736870912) / 0.536870912 = 97.35) = 98 sequences.
    # step(98) = (16e9 + 98 × 536,870,912) / 2,345e9 = 68,613,349,376 / 2.345e12 = 29.2594 ms,
    # within 50 ms; capacity = 98 / 0.0292594 = 3,349.35 tokens/s.
    chat = workload("chat", "realtime_inference", params_b=8, tokens_per_second=100, latency_ms=50)
    est = _one(chat, H100)
    assert est.allowed
    assert est.tokens_per_second_per_replica == pytest.approx(98 / (68_613_349_376 / 2.345e12))
    assert est.tokens_per_second_per_replica == pytest.approx(3349.35, abs=0.01)


def test_no_latency_target_leaves_memory_as_the_only_limit() -> None:
    # Same 98 sequences as above: a loose target changes nothing.
    chat = workload("chat", "realtime_inference", params_b=8, tokens_per_second=100)
    assert _one(chat, H100).tokens_per_second_per_replica == pytest.approx(3349.35, abs=0.01)


def test_batch_limited_by_latency() -> None:
    # 20 ms: b ≤ (0.020 × 2,345e9 − 16e9) / 536,870,912 = 30.9e9 / 536,870,912 = 57.56 → 57.
    # step(57) = (16e9 + 57 × 536,870,912) / 2,345e9 = 46,601,641,984 / 2.345e12 = 19.87277 ms;
    # capacity = 57 / 0.01987277 = 2,868.25 tokens/s.
    chat = workload("chat", "realtime_inference", params_b=8, tokens_per_second=100, latency_ms=20)
    est = _one(chat, H100)
    assert est.tokens_per_second_per_replica == pytest.approx(57 / (46_601_641_984 / 2.345e12))
    assert est.tokens_per_second_per_replica == pytest.approx(2868.25, abs=0.01)


def test_decode_above_the_latency_target_is_not_allowed_with_numbers() -> None:
    # (16e9 + 536,870,912) / (300e9 × 0.7 = 210e9 B/s) = 78.747 ms > 50 ms on one L4. A measured
    # gpus_per_replica of 1 fixes the width (model v2 §D), so no wider replica is looked at.
    chat = workload("chat", "realtime_inference", params_b=8, tokens_per_second=100, latency_ms=50)
    est = _one(chat, L4, [measured("chat", "L4", gpus_per_replica=1)])
    assert not est.allowed
    assert est.reason == "batch-1 decode takes 78.7 ms per token on 1 × L4, above the 50 ms target"
    # The results' latency_ms column still shows step(1), the number the reason quotes.
    assert est.latency_ms == pytest.approx((16e9 + 536_870_912) / 210e9 * 1000.0)
    # Left to choose, the planner serves it on 4 × L4: 16.537e9 / (4 × 210e9) / 0.49 = 40.18 ms.
    wide = _one(chat, L4)
    assert wide.allowed and wide.gpus_per_replica == 4
    assert wide.latency_ms == pytest.approx((16e9 + 536_870_912) / 840e9 / 0.49 * 1000.0)


def test_405b_at_bf16_does_not_fit_one_server_of_h100() -> None:
    # weights 405 × 2 = 810 GB × 1.2 = 972 GB + KV 131,072 × (405/8)^0.42 (5.198) × 4,096 = 2.79 GB
    # = 974.8 GB; one server holds 8 × 80 × 0.9 = 576 GB.
    big = workload("chat-405b", "realtime_inference", params_b=405, tokens_per_second=100)
    est = _one(big, H100)
    assert not est.allowed
    assert est.gpus_per_replica == 14  # 974.8 / 72 = 13.54 → 14 > 8
    assert est.reason.startswith("405B at bf16 needs 974.8 GB (weights 810.0 GB × 1.2 + 2.8 GB")
    assert est.reason.endswith("one server of 8 × H100 holds 576.0 GB usable (90% of 80 GB each)")


def test_realtime_without_bandwidth_is_not_allowed() -> None:
    no_bw = gpu("X", memory_bandwidth_gbs=None)
    est = _one(workload("chat", "realtime_inference", params_b=8, tokens_per_second=100), no_bw)
    assert not est.allowed
    assert "no memory_bandwidth_gbs" in est.reason


def test_missing_params_b_is_not_allowed_when_an_estimate_is_needed() -> None:
    est = _one(workload("job", "lora", tokens=1e9), H100)
    assert not est.allowed
    assert est.reason.startswith("params_b is missing")
    # With the memory given, the speed estimate still needs params_b.
    est = _one(workload("job", "lora", tokens=1e9, vram_gb=20.0), H100)
    assert not est.allowed
    assert est.reason.startswith("params_b is missing")


# ---------------------------------------------------------------- measured rows


def test_measured_gpu_hours_are_final() -> None:
    job = workload("lora", "lora", params_b=7, tokens=1e9)
    est = _one(job, H100, [measured("lora", "H100", gpu_hours=1234.0)])
    assert est.gpu_hours == 1234.0
    assert est.source is EstimateSource.MEASURED


def test_measured_gpu_hours_need_no_params_when_memory_is_measured() -> None:
    job = workload("lora", "lora", tokens=1e9)
    est = _one(job, H100, [measured("lora", "H100", gpus_per_replica=2, gpu_hours=50.0)])
    assert est.allowed and est.gpus_per_replica == 2 and est.gpu_hours == 50.0
    assert est.memory_gb is None


def test_measured_gpus_per_replica_keeps_the_speed_estimated() -> None:
    # Same LoRA job as above on 2 H100: 21.8452 / 0.95 = 22.9950 GPU-hours.
    job = workload("lora", "lora", params_b=7, tokens=1e9)
    est = _one(job, H100, [measured("lora", "H100", gpus_per_replica=2)])
    assert est.gpus_per_replica == 2
    assert est.source is EstimateSource.ESTIMATED
    assert est.gpu_hours == pytest.approx(22.9950, abs=1e-4)


def test_measured_realtime_throughput_skips_the_latency_check() -> None:
    # The L4 estimate fails the 50 ms target (78.7 ms); the measured figure is final.
    chat = workload("chat", "realtime_inference", params_b=8, tokens_per_second=100, latency_ms=50)
    est = _one(chat, L4, [measured("chat", "L4", tokens_per_second_per_replica=900.0)])
    assert est.allowed
    assert est.tokens_per_second_per_replica == 900.0
    assert est.source is EstimateSource.MEASURED


def test_measured_inference_replica_must_fit_one_server() -> None:
    chat = workload("chat", "realtime_inference", params_b=8, tokens_per_second=100)
    est = _one(
        chat,
        H100,
        [measured("chat", "H100", gpus_per_replica=16, tokens_per_second_per_replica=9e3)],
    )
    assert not est.allowed
    assert "needs 16 GPUs" in est.reason and "8 × H100" in est.reason


def test_measured_replica_too_small_for_one_sequence_is_not_allowed() -> None:
    # 70B bf16 needs 140 × 1.2 + 1.34 = 169.3 GB; a measured single H100 holds 72 GB.
    chat = workload("chat", "realtime_inference", params_b=70, tokens_per_second=100)
    est = _one(chat, H100, [measured("chat", "H100", gpus_per_replica=1)])
    assert not est.allowed
    assert est.reason.endswith("the measured 1 × H100 hold 72.0 GB usable")


# ---------------------------------------------------------------- all pairs


def test_estimate_pairs_covers_every_workload_and_gpu_in_order() -> None:
    w1 = workload("a", "lora", params_b=7, tokens=1e9)
    w2 = workload("b", "batch_inference", params_b=8, tokens=1e9)
    s = scenario([H100, RTX4090], [], [w1, w2])
    pairs = [(e.workload, e.gpu) for e in estimate_pairs(s)]
    assert pairs == [("a", "H100"), ("a", "RTX 4090"), ("b", "H100"), ("b", "RTX 4090")]


def test_multi_gpu_realtime_replica_uses_scaled_bandwidth() -> None:
    # 70B bf16: 168 GB + 325,951 × 4,096 B (1.3351 GB) = 169.335 GB → ceil(169.335 / 72) = 3 H100
    # (a measured width of 3 is taken as it is; left to choose, widths divide max_per_node);
    # step(1) = (140e9 + 1.3351e9) / (3 × 2,345e9) = 20.0903 ms, / 0.95 ** log2(3) (0.92192)
    # = 21.792 ms.
    chat = workload("chat", "realtime_inference", params_b=70, tokens_per_second=100)
    est = _one(chat, H100, [measured("chat", "H100", gpus_per_replica=3)])
    assert est.gpus_per_replica == 3
    kv = 131_072 * (70 / 8) ** 0.42 * 4096
    expected_ms = (140e9 + kv) / (3 * 2345e9) / 0.95 ** math.log2(3) * 1000
    assert est.latency_ms == pytest.approx(expected_ms)
    assert est.latency_ms == pytest.approx(21.792, abs=1e-3)
    # Unmeasured, its narrowest width is 4 (the smallest divisor of 8 that is ≥ 3).
    assert _one(chat, H100).gpus_per_replica == 4


@settings(max_examples=60, deadline=None)
@given(
    params_b=st.floats(0.5, 120),
    latency_ms=st.floats(1, 200),
    context=st.integers(1, 32_768),
    k=st.integers(1, 8),
    memory_batch=st.integers(1, 5_000),
)
def test_largest_batch_is_the_largest_within_memory_and_latency(
    params_b: float, latency_ms: float, context: int, k: int, memory_batch: int
) -> None:
    # The closed form plus nudging must land exactly on the boundary: b* meets the target
    # (or is 0), and b* + 1 either breaks the target or does not fit memory.
    chat = workload(
        "c", "realtime_inference", params_b=params_b, tokens_per_second=1, context_tokens=context
    )
    decode = decode_model(chat, H100, k, A)
    b = largest_batch(decode, memory_batch, latency_ms)
    assert 0 <= b <= memory_batch
    if b > 0:
        assert decode.step_seconds(b) * 1000 <= latency_ms
    assert b == memory_batch or decode.step_seconds(b + 1) * 1000 > latency_ms


def test_measured_batch_gpu_hours_per_month_are_final() -> None:
    job = workload("batch", "batch_inference", params_b=8, tokens=1e10)
    est = _one(job, H100, [measured("batch", "H100", gpu_hours=42.0)])
    assert est.gpu_hours == 42.0 and est.source is EstimateSource.MEASURED


def test_batch_inference_must_fit_one_server_but_training_may_span() -> None:
    # 405B bf16 batch: 974.8 GB / (48 × 0.9 = 43.2) = 22.6 → 23 L40S > 8 per server: not allowed.
    # 405B LoRA: 810 + 19.44 + 24.3 = 853.74 GB → ceil(853.74 / 43.2 = 19.76) = 20 L40S: allowed.
    batch = workload("batch", "batch_inference", params_b=405, tokens=1e9)
    est = _one(batch, L40S)
    assert not est.allowed and est.gpus_per_replica == 23
    assert est.reason.endswith("one server of 8 × L40S holds 345.6 GB usable (90% of 48 GB each)")
    lora = _one(workload("lora", "lora", params_b=405, tokens=1e9), L40S)
    assert lora.allowed and lora.gpus_per_replica == 20
    assert lora.memory_gb == pytest.approx(853.74)
