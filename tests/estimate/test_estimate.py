"""The estimator against figures worked by hand (model.md, "Per workload × GPU type", as
model v2 §G changes it).

GPUs are the brief's datasheet figures: H100 SXM 80 GB, 989 TFLOPS, 3,350 GB/s,
NVLink; RTX 4090 24 GB, 330 TFLOPS, 1,008 GB/s, PCIe; L4 24 GB, 121 TFLOPS,
300 GB/s; L40S 48 GB, 362 TFLOPS, 864 GB/s. Assumptions are the defaults.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optimizer.domain import Assumptions, Precision
from optimizer.estimate.architecture import kv_bytes_per_token
from optimizer.estimate.memory import memory_need, weights_gb
from optimizer.estimate.pairs import estimate_pair, estimate_pairs
from optimizer.estimate.serving import decode_model, largest_batch
from optimizer.estimate.training import scaling_efficiency, training_scaling
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

KV_8B = 128 * 1024  # bytes per token: 2 × 32 layers × 8 KV heads × 128 × 2 bytes
# Llama-3-8B as its config.json gives it; the chat request is the default 1,024 + 128 tokens.
LLAMA3_8B = {"params_b": 8, "layers": 32, "hidden_size": 4096, "heads": 32, "kv_heads": 8}
HELD = 1024 + 128 / 2  # tokens of cache an average sequence holds
BW_H100 = 3350e9 * 0.7  # bytes/s read at bandwidth_efficiency
PEAK_H100 = 989e12 * 0.5  # FLOP/s at mfu_inference


def _chat(**kw):
    return workload("chat", "realtime_inference", tokens_per_second=100, **{**LLAMA3_8B, **kw})


def _one(w, g, measurements=None, **kw):
    return estimate_pair(scenario([g], [], [w], measurements, **kw), w, g)


# ---------------------------------------------------------------- memory


def test_weights_of_a_7b_model_at_bf16_are_14_gb() -> None:
    # 7e9 parameters × 2 bytes = 14e9 bytes = 14 GB; int4: 7 × 0.5 = 3.5 GB
    assert weights_gb(7, Precision.BF16, A) == pytest.approx(14.0)
    assert weights_gb(7, Precision.INT4, A) == pytest.approx(3.5)


def test_kv_cache_per_token_from_the_architecture() -> None:
    # 2 × layers × kv_heads × head_dim × 2 bytes: Llama-3-8B 2 × 32 × 8 × 128 × 2 = 131,072
    # (0.125 MiB); Llama-3-70B 2 × 80 × 8 × 128 × 2 = 327,680 (0.3125 MiB); Llama-2-7B (full
    # multi-head, 32 KV heads) 524,288; Gemma-7B 2 × 28 × 16 × 256 × 2 = 458,752 (head_dim given).
    assert kv_bytes_per_token(_chat(), A) == 131_072
    assert kv_bytes_per_token(_chat(params_b=70, layers=80, hidden_size=8192, heads=64), A) == (
        327_680
    )
    assert kv_bytes_per_token(_chat(params_b=7, kv_heads=32), A) == 524_288
    gemma = _chat(params_b=8.5, layers=28, hidden_size=3072, heads=16, kv_heads=16, head_dim=256)
    assert kv_bytes_per_token(gemma, A) == 458_752
    # head_dim blank: hidden_size / heads = 4,096 / 32 = 128; fp32 weights keep 32-bit KV.
    assert kv_bytes_per_token(_chat(precision=Precision.FP32), A) == 262_144


def test_kv_cache_without_architecture_keeps_v1s_scaled_rule() -> None:
    # 8B: 128 KiB = 0.125 MiB by definition.
    bare = workload("chat", "realtime_inference", params_b=8, tokens_per_second=100)
    assert kv_bytes_per_token(bare, A) == pytest.approx(131_072)
    # 70B: 131,072 × (70 / 8) ** 0.42 = 131,072 × 2.4868 ≈ 325,950 bytes ≈ 0.311 MiB; brief ≈ 0.31 MiB.
    big = workload("chat", "realtime_inference", params_b=70, tokens_per_second=100)
    assert kv_bytes_per_token(big, A) / 2**20 == pytest.approx(0.31, rel=0.01)
    # KV stays at 16 bits for int4 weights, and doubles for fp32 weights.
    int4 = workload("c", "realtime_inference", params_b=8, precision="int4", tokens_per_second=1)
    assert kv_bytes_per_token(int4, A) == pytest.approx(131_072)
    fp32 = workload("c", "realtime_inference", params_b=8, precision="fp32", tokens_per_second=1)
    assert kv_bytes_per_token(fp32, A) == pytest.approx(262_144)
    # Only layers and kv_heads together make the architecture known.
    assert kv_bytes_per_token(_chat(kv_heads=None, params_b=70), A) == pytest.approx(
        kv_bytes_per_token(big, A)
    )


def test_realtime_memory_is_weights_plus_one_whole_request_plus_runtime_per_gpu() -> None:
    # 8B bf16: 16 GB + 131,072 × (1,024 + 128) bytes = 16 + 0.150994944 GB shared, and
    # runtime_overhead_gb 2.5 on each GPU (no longer 20 % of the weights).
    need = memory_need(_chat(), A)
    assert need is not None
    assert (need.total_gb, need.per_gpu_gb) == (pytest.approx(16.150994944), 2.5)
    assert _one(_chat(), H100).memory_gb == pytest.approx(18.650994944)
    # v1's reading: context_tokens given and no request shape: all 4,096 tokens are cache.
    v1 = memory_need(_chat(context_tokens=4096), A)
    assert v1 is not None and v1.total_gb == pytest.approx(16 + 131_072 * 4096 / 1e9)


def test_a_70b_int8_model_fits_one_80_gb_gpu() -> None:
    # 70 GB weights + 327,680 × 1,152 B (0.3775 GB) = 70.38 GB ≤ 80 × 0.9 = 72 GB; the runtime
    # (2.5 GB) sits in the other 8 GB. v1's 20 % on the weights (84 GB) needed two GPUs.
    chat70 = _chat(params_b=70, layers=80, hidden_size=8192, heads=64, precision=Precision.INT8)
    est = _one(chat70, H100)
    assert est.allowed and est.gpus_per_replica == 1
    # On a 24 GB card the runtime does not fit in the last 2.4 GB: 24 − 2.5 = 21.5 GB hold the
    # model. 8B bf16 with one request, 16.15 GB, fits; 21.5B int8, 21.65 GB, does not.
    assert _one(_chat(), RTX4090).gpus_per_replica == 1
    assert _one(_chat(params_b=21.5, precision=Precision.INT8), RTX4090).gpus_per_replica == 2


def test_a_7b_lora_needs_14_to_20_gb_and_fits_one_rtx_4090() -> None:
    # frozen 7 × 2 = 14 GB + adapters 7 × 0.003 × 16 = 0.336 GB + activations and runtime
    # max(4.5 GB floor, 7 × 0.06 = 0.42 GB) = 4.5 GB = 18.836 GB; one RTX 4090 offers 21.6 GB.
    lora = workload("lora-7b", "lora", params_b=7, tokens=1e8)
    est = _one(lora, RTX4090)
    assert est.memory_gb == pytest.approx(18.836)
    assert est.allowed and est.gpus_per_replica == 1


def test_a_7b_qlora_holds_nf4_weights_and_the_floor() -> None:
    # NF4 7 × 0.52 = 3.64 GB + adapters 0.336 GB + 4.5 GB = 8.476 GB (torchtune measured 8.57 GB
    # for Llama-2-7B): more than an 8 GB card's 7.2 GB usable.
    est = _one(workload("q", "qlora", params_b=7, tokens=1e8), gpu("8GB", vram_gb=8.0))
    assert est.memory_gb == pytest.approx(8.476)
    assert est.gpus_per_replica == 2


def test_a_65b_qlora_fits_one_48_gb_gpu() -> None:
    # NF4 65 × 0.52 = 33.8 GB + adapters 65 × 0.048 = 3.12 GB + max(4.5, 65 × 0.06 = 3.9) = 4.5
    # GB = 41.42 GB ≤ 48 × 0.9 = 43.2 GB (the QLoRA paper's result).
    est = _one(workload("qlora-65b", "qlora", params_b=65, tokens=1e8), L40S)
    assert est.memory_gb == pytest.approx(41.42)
    assert est.allowed and est.gpus_per_replica == 1


def test_training_state_bytes_per_param_may_be_set_per_workload() -> None:
    # bf16 AdamW: 8 bytes/param. 7B full fine-tune: 7 × 8 = 56 GB + 4.5 GB = 60.5 GB.
    ft = workload("ft", "fine_tuning", params_b=7, tokens=1e8, training_state_bytes_per_param=8.0)
    assert _one(ft, H100).memory_gb == pytest.approx(60.5)
    # Blank: the Assumptions value, 16: 112 + 4.5 = 116.5 GB.
    assert _one(workload("ft", "fine_tuning", params_b=7, tokens=1e8), H100).memory_gb == (
        pytest.approx(116.5)
    )


def test_70b_pretraining_spans_16_h100() -> None:
    # state 70 × 16 = 1,120 GB + activations max(4.5, 70 × 0.06 = 4.2) = 4.5 GB = 1,124.5 GB;
    # 1,124.5 / (80 × 0.9 = 72) = 15.62 → 16 GPUs, more than one server: training may span.
    est = _one(workload("pre-70b", "pretraining", params_b=70, tokens=1e12), H100)
    assert est.memory_gb == pytest.approx(1124.5)
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


@pytest.mark.parametrize(
    ("k", "nvlink", "expected"),
    [(1, True, 1.0), (8, True, 1.0), (64, True, 1.0), (2, False, 0.70), (8, False, 0.343)],
)
def test_training_scales_without_loss_on_nvlink(k: int, nvlink: bool, expected: float) -> None:
    # model v2 §G: a published MFU is a whole-job figure; PCIe types keep 0.7 ** log2(k).
    assert training_scaling(k, gpu(nvlink=nvlink), A) == pytest.approx(expected)


# ---------------------------------------------------------------- work rates


LORA_7B = {"params_b": 7, "tokens": 1e9, "layers": 32, "hidden_size": 4096}


def test_training_gpu_hours_of_a_lora_job() -> None:
    # (4 × 7e9 + 12 × 32 × 4,096 × 4,096 = 6.4425e9 attention) × 1e9 tokens = 3.44425e19
    # FLOPs; 989e12 × 0.40 MFU × 0.90 goodput = 356.04e12 FLOP/s → 26.8716 GPU-hours on one H100.
    est = _one(workload("lora", "lora", **LORA_7B), H100)
    assert est.gpu_hours == pytest.approx(26.8716, abs=1e-4)
    assert est.source is EstimateSource.ESTIMATED
    # seq_len 8,192 doubles the attention term: (2.8e10 + 1.2885e10) × 1e9 → 31.8979 GPU-hours.
    long = _one(workload("lora", "lora", seq_len=8192, **LORA_7B), H100)
    assert long.gpu_hours == pytest.approx(31.8979, abs=1e-4)


def test_training_layers_and_hidden_size_are_estimated_from_params_b() -> None:
    # 7B: layers = round((7e9 / (12 × 128²)) ** (1/3) = 32.89) = 33; hidden = sqrt(7e9 / (12 ×
    # 33)) = 4,204.5 → 4,224 (a multiple of 128). Attention 12 × 33 × 4,224 × 4,096 = 6.8514e9.
    est = _one(workload("lora", "lora", params_b=7, tokens=1e9), H100)
    assert est.gpu_hours == pytest.approx(
        (2.8e10 + 12 * 33 * 4224 * 4096) / 356.04e12 / 3.6e3 * 1e9
    )
    assert est.basis == (
        "estimated: memory need, GPU-hours; assumed: layers estimated from params_b (33);"
        " hidden_size estimated from params_b (4,224)"
    )


def test_training_gpu_hours_use_the_gpus_own_mfu_without_scaling_loss() -> None:
    # 70B at 80 layers of 8,192: (6 × 70e9 + 12 × 80 × 8,192 × 4,096 = 3.2212e10) × 1e12 =
    # 4.52212e23 FLOPs on 16 H100 at MFU 0.5 (the GPU's own value) and no scaling loss:
    # 989e12 × 0.5 × 0.9 = 445.05e12 FLOP/s → 282,248.1 GPU-hours.
    h100 = gpu("H100", mfu_training=0.5)
    pre = workload("pre", "pretraining", params_b=70, tokens=1e12, layers=80, hidden_size=8192)
    est = _one(pre, h100)
    assert est.gpus_per_replica == 16
    assert est.gpu_hours == pytest.approx(
        (4.2e11 + 12 * 80 * 8192 * 4096) * 1e12 / 445.05e12 / 3600
    )
    assert est.gpu_hours == pytest.approx(282_248.1, abs=0.1)


def test_mixture_of_experts_computes_with_active_parameters() -> None:
    # 671B total, 37B active: compute 6 × 37e9 (+ attention at 61 layers of 7,168), memory 671B.
    moe = workload(
        "moe",
        "pretraining",
        params_b=671,
        active_params_b=37,
        tokens=1e12,
        layers=61,
        hidden_size=7168,
    )
    est = _one(moe, H100)
    flops = (6 * 37e9 + 12 * 61 * 7168 * 4096) * 1e12
    assert est.gpu_hours == pytest.approx(flops / 356.04e12 / 3600)
    assert est.memory_gb == pytest.approx(671 * 16 + 671 * 0.06)


def test_fp8_training_is_faster_only_where_the_type_computes_in_fp8() -> None:
    # fp8 precision on an fp8 H100: / fp8_training_speedup 1.2; on a type without FP8: no change.
    job = workload("pre", "pretraining", precision="fp8", **LORA_7B)
    bf16 = _one(workload("pre", "pretraining", **LORA_7B), H100).gpu_hours
    assert bf16 is not None
    assert _one(job, gpu("H100", fp8=True)).gpu_hours == pytest.approx(bf16 / 1.2)
    assert _one(job, H100).gpu_hours == pytest.approx(bf16)


def test_batch_inference_gpu_hours_per_month() -> None:
    # 2 × 8e9 × 1e10 tokens = 1.6e20 FLOPs a month; 989e12 × 0.5 MFU = 494.5e12 FLOP/s;
    # 1.6e20 / 494.5e12 / 3,600 = 89.877 GPU-hours a month.
    est = _one(workload("batch", "batch_inference", params_b=8, tokens=1e10), H100)
    assert est.gpus_per_replica == 1
    assert est.gpu_hours == pytest.approx(89.877, abs=1e-3)


# ---------------------------------------------------------------- realtime


def test_batch_one_decode_step_of_8b_on_h100() -> None:
    # context 1 (v1's reading): (16e9 + 131,072) bytes / (3,350e9 × 0.7 = 2,345e9 B/s) = 6.823 ms
    short = _chat(context_tokens=1)
    assert _one(short, H100).latency_ms == pytest.approx(6.823, abs=1e-3)
    # A default request holds 1,024 + 128 / 2 = 1,088 tokens on average:
    # (16e9 + 131,072 × 1,088) / 2,345e9 = 6.88384 ms.
    assert _one(_chat(), H100).latency_ms == pytest.approx(6.88384, abs=1e-5)


def test_int8_and_int4_weights_are_read_at_their_measured_bandwidth_share() -> None:
    # Weights at bandwidth_efficiency_int8 0.53 (8 GB) and _int4 0.38 (4 GB); the KV cache at 0.70.
    kv = 131_072 * HELD / BW_H100
    int8 = _one(_chat(precision=Precision.INT8), H100).latency_ms
    int4 = _one(_chat(precision=Precision.INT4), H100).latency_ms
    assert int8 == pytest.approx((8e9 / (3350e9 * 0.53) + kv) * 1000)
    assert int4 == pytest.approx((4e9 / (3350e9 * 0.38) + kv) * 1000)


# 8B on one H100, default request: the replica holds 80 × 0.9 = 72 GB; the model with one
# whole request 16.150994944 GB; each more average sequence 131,072 × 1,088 = 0.142606336 GB:
# 1 + floor(55.849005056 / 0.142606336 = 391.63) = 392 sequences. Prefill of one 1,024-token
# prompt: 2 × 8e9 × 1,024 / 494.5e12 = 33.132 ms, spread over 128 generated tokens.
SEQ = 131_072 * 1088
PREFILL = 2 * 8e9 * 1024 / PEAK_H100


def _capacity(batch: int, step: float) -> float:
    return 1 / (step / batch + PREFILL / 128)


def test_batch_limited_by_memory() -> None:
    # step(392) = max((16e9 + 392 × 142,606,336) / 2,345e9 = 30.6617 ms, 2 × 8e9 × 392 / 494.5e12
    # = 12.684 ms) = 30.6617 ms, within 50 ms; per token 30.6617 / 392 + 33.132 / 128 ms:
    # 2,966.8 tokens/s (prefill is most of it).
    est = _one(_chat(latency_ms=50), H100)
    assert est.allowed
    step = (16e9 + 392 * SEQ) / BW_H100
    assert est.tokens_per_second_per_replica == pytest.approx(_capacity(392, step))
    assert est.tokens_per_second_per_replica == pytest.approx(2966.8, abs=0.1)


def test_no_latency_target_leaves_memory_as_the_only_limit() -> None:
    # Same 392 sequences as above: a loose target changes nothing.
    assert _one(_chat(), H100).tokens_per_second_per_replica == pytest.approx(2966.8, abs=0.1)


def test_batch_limited_by_latency() -> None:
    # 20 ms: b ≤ (0.020 − 16e9 / 2,345e9) × 2,345e9 / 142,606,336 = 216.68 → 216.
    # step(216) = (16e9 + 216 × 142,606,336) / 2,345e9 = 19.95862 ms; 2,847.0 tokens/s.
    est = _one(_chat(latency_ms=20), H100)
    step = (16e9 + 216 * SEQ) / BW_H100
    assert est.tokens_per_second_per_replica == pytest.approx(_capacity(216, step))
    assert est.tokens_per_second_per_replica == pytest.approx(2847.0, abs=0.1)


def test_v1s_reading_counts_no_prefill() -> None:
    # context_tokens 4,096 and no request shape: 1 + floor((72 − 16.536870912) / 0.536870912
    # = 103.31) = 104 sequences; step(104) = (16e9 + 104 × 536,870,912) / 2,345e9 = 30.6334 ms;
    # 104 / 0.0306334 = 3,395.0 tokens/s, decode only.
    est = _one(_chat(context_tokens=4096), H100)
    step = (16e9 + 104 * 536_870_912) / BW_H100
    assert est.tokens_per_second_per_replica == pytest.approx(104 / step)
    assert est.tokens_per_second_per_replica == pytest.approx(3395.0, abs=0.1)


def test_decode_above_the_latency_target_is_not_allowed_with_numbers() -> None:
    # (16e9 + 142,606,336) / (300e9 × 0.7 = 210e9 B/s) = 76.870 ms > 50 ms on one L4. A measured
    # gpus_per_replica of 1 fixes the width (model v2 §D), so no wider replica is looked at.
    chat = _chat(latency_ms=50)
    est = _one(chat, L4, [measured("chat", "L4", gpus_per_replica=1)])
    assert not est.allowed
    assert est.reason == "batch-1 decode takes 76.9 ms per token on 1 × L4, above the 50 ms target"
    # The results' latency_ms column still shows step(1), the number the reason quotes.
    assert est.latency_ms == pytest.approx((16e9 + SEQ) / 210e9 * 1000.0)
    # Left to choose, the planner serves it on 2 × L4: 16.143e9 / (2 × 210e9) = 38.435 ms plus
    # 2 all-reduces × 32 layers × 25 µs = 1.6 ms: 40.035 ms (no s(k) on serving).
    wide = _one(chat, L4)
    assert wide.allowed and wide.gpus_per_replica == 2
    assert wide.latency_ms == pytest.approx((16e9 + SEQ) / 420e9 * 1000.0 + 1.6)


def test_405b_at_bf16_does_not_fit_one_server_of_h100() -> None:
    # weights 405 × 2 = 810 GB + KV 131,072 × (405/8)^0.42 (5.198) × 1,152 = 0.78 GB = 810.8 GB;
    # one server holds 8 × 80 × 0.9 = 576 GB.
    big = workload("chat-405b", "realtime_inference", params_b=405, tokens_per_second=100)
    est = _one(big, H100)
    assert not est.allowed
    assert est.gpus_per_replica == 12  # 810.8 / 72 = 11.26 → 12 > 8
    assert est.reason.startswith(
        "405B at bf16 needs 810.8 GB (weights 810.0 GB + 0.8 GB KV cache for one 1,152-token"
        " sequence) + 2.5 GB runtime per GPU;"
    )
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
    # Same LoRA job as above on 2 H100: 26.8716 GPU-hours, no scaling loss on NVLink; on 2
    # RTX 4090 (PCIe) at 330 TFLOPS: 3.44425e19 / (330e12 × 0.36 × 0.7) / 3,600 = 115.047.
    job = workload("lora", "lora", **LORA_7B)
    est = _one(job, H100, [measured("lora", "H100", gpus_per_replica=2)])
    assert est.gpus_per_replica == 2
    assert est.source is EstimateSource.ESTIMATED
    assert est.gpu_hours == pytest.approx(26.8716, abs=1e-4)
    pcie = _one(job, RTX4090, [measured("lora", "RTX 4090", gpus_per_replica=2)])
    assert pcie.gpu_hours == pytest.approx(115.047, abs=1e-3)
    assert pcie.basis == "given: GPUs per replica (measured); estimated: GPU-hours"


def test_measured_realtime_throughput_skips_the_latency_check() -> None:
    # The L4 estimate fails the 50 ms target (76.9 ms); the measured figure is final.
    chat = _chat(latency_ms=50)
    est = _one(chat, L4, [measured("chat", "L4", tokens_per_second_per_replica=900.0)])
    assert est.allowed
    assert est.tokens_per_second_per_replica == 900.0
    assert est.source is EstimateSource.MEASURED
    assert est.basis == (
        "given: capacity and batch-1 latency (measured); estimated: memory need; assumed:"
        " request assumed 1,024 prompt + 128 output tokens"
    )


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


def test_multi_gpu_realtime_replica_reads_in_parallel_and_pays_all_reduces() -> None:
    # 70B bf16, 80 layers: 140 GB + 327,680 × 1,152 B (0.3775 GB) = 140.38 GB → ceil(140.38 /
    # 72) = 2 H100, a measured width of 3 (on 6-GPU servers, which it divides) is taken as it
    # is; step(1) = (140e9 + 327,680 × 1,088) / (3 × 2,345e9) = 19.9512 ms + 2 × 80 × 25 µs
    # = 4 ms: 23.9512 ms (no s(k) on serving).
    chat = _chat(params_b=70, layers=80, hidden_size=8192, heads=64)
    six = gpu("H100", max_per_node=6)
    est = _one(chat, six, [measured("chat", "H100", gpus_per_replica=3)])
    assert est.gpus_per_replica == 3
    expected_ms = (140e9 + 327_680 * 1088) / (3 * BW_H100) * 1000 + 4.0
    assert est.latency_ms == pytest.approx(expected_ms)
    assert est.latency_ms == pytest.approx(23.9512, abs=1e-4)
    # Unmeasured, its narrowest width is 2 (the smallest divisor of 8 that holds it).
    assert _one(chat, H100).gpus_per_replica == 2


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
        "c", "realtime_inference", params_b=params_b, tokens_per_second=1, prompt_tokens=context
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
    # 405B bf16 batch: 810.9 GB / (48 × 0.9 = 43.2) = 18.8 → 19 L40S > 8 per server: not allowed.
    # 405B LoRA: 810 + 19.44 + 24.3 = 853.74 GB → ceil(853.74 / 43.2 = 19.76) = 20 L40S: allowed.
    batch = workload("batch", "batch_inference", params_b=405, tokens=1e9)
    est = _one(batch, L40S)
    assert not est.allowed and est.gpus_per_replica == 19
    assert est.reason.endswith("one server of 8 × L40S holds 345.6 GB usable (90% of 48 GB each)")
    lora = _one(workload("lora", "lora", params_b=405, tokens=1e9), L40S)
    assert lora.allowed and lora.gpus_per_replica == 20
    assert lora.memory_gb == pytest.approx(853.74)


def test_float_formats_read_weights_at_bandwidth_efficiency_unless_set() -> None:
    from optimizer.domain import Assumptions, Precision

    a = Assumptions(bandwidth_efficiency=0.6)
    assert a.weight_bandwidth_efficiency(Precision.BF16) == 0.6
    assert a.weight_bandwidth_efficiency(Precision.FP8) == 0.6
    assert a.weight_bandwidth_efficiency(Precision.INT8) == 0.53  # weight-only: measured apart
    assert (
        Assumptions(bandwidth_efficiency_bf16=0.65).weight_bandwidth_efficiency(Precision.BF16)
        == 0.65
    )
