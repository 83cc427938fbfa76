"""A workload's architecture: given on its row, or estimated from ``params_b`` (model v2 §G).

Takes a ``domain.Workload`` and the ``Assumptions``; hands on the parameters
one token uses, layers and hidden size (for the attention FLOPs and the
tensor-parallel all-reduces), KV-cache bytes per token and the request shape
to ``training``, ``memory`` and ``serving``. Every value that was not on the
row is named in :func:`assumed_values`, so the results say what was assumed.
"""

from __future__ import annotations

import math

from optimizer.domain import Assumptions, Kind, Precision, Workload
from optimizer.estimate.not_allowed import _needed

KIB = 1024.0
# Dense transformers keep hidden ≈ 128 × layers (Llama 2 7B 4096/32, 13B
# 5120/40, Llama 3.1 405B 16384/126) and hold ≈ 12 × layers × hidden²
# parameters (Kaplan et al. 2020, eq. 2.1); together they give layers and
# hidden from the parameter count: 7B → 33 layers of 4,224.
HIDDEN_PER_LAYER = 128.0
PARAMS_PER_LAYER_HIDDEN_SQUARED = 12.0
HIDDEN_ROUNDING = 128  # hidden sizes are multiples of 128 in every published model above
# The head width of every Llama, Mistral and Qwen model.
DEFAULT_HEAD_DIM = 128
# KV cache per token grows with layers × KV width, which grows more slowly than
# the parameter count. (params_b / 8) ** 0.42 lands on both published points:
# Llama-3-8B 0.125 MiB (by definition) and 70B 128 KiB × 8.75 ** 0.42 ≈ 0.31 MiB.
KV_SIZE_EXPONENT = 0.42
# KV cache is kept at 16 bits whatever the weights' precision; fp32 models keep it at 32.
KV_BYTES = 2.0
KV_BYTES_FP32 = 4.0
# A typical chat request (model v2 §G): Azure's conversation trace, published with
# Splitwise (Patel et al., ISCA 2024) as AzureLLMInferenceTrace_conv.csv in
# github.com/Azure/AzurePublicDataset, has a median prompt of 1,020 tokens and a
# median output of 129 over its 19,366 requests, so 1,024 and 128 (model v2's
# guess of 256 outputs was twice the published median).
DEFAULT_PROMPT_TOKENS = 1024
DEFAULT_OUTPUT_TOKENS = 128
KV_ASSUMED = "KV cache assumed GQA with 8 KV heads (scaled from Llama-3-8B's 128 KiB per token)"


def active_params(workload: Workload) -> float:
    """Parameters one token uses (not billions): ``active_params_b``, else ``params_b``."""
    if workload.active_params_b is not None:
        return workload.active_params_b * 1e9
    return _needed(workload.params_b, "params_b") * 1e9


def layers(workload: Workload) -> int:
    """``layers``, else from the hidden size or the active parameters (12 × L × h², h = 128 L)."""
    if workload.layers is not None:
        return workload.layers
    n = active_params(workload)
    if workload.hidden_size is not None:
        return max(1, round(n / (PARAMS_PER_LAYER_HIDDEN_SQUARED * workload.hidden_size**2)))
    return max(1, round((n / (PARAMS_PER_LAYER_HIDDEN_SQUARED * HIDDEN_PER_LAYER**2)) ** (1 / 3)))


def hidden_size(workload: Workload) -> int:
    """``hidden_size``, else ``sqrt(N / (12 × layers))`` rounded to a multiple of 128."""
    if workload.hidden_size is not None:
        return workload.hidden_size
    width = math.sqrt(
        active_params(workload) / (PARAMS_PER_LAYER_HIDDEN_SQUARED * layers(workload))
    )
    return max(HIDDEN_ROUNDING, round(width / HIDDEN_ROUNDING) * HIDDEN_ROUNDING)


def head_dim(workload: Workload) -> int:
    """``head_dim``, else ``hidden_size / heads`` when both are given, else 128."""
    if workload.head_dim is not None:
        return workload.head_dim
    if workload.hidden_size is not None and workload.heads is not None:
        return max(1, workload.hidden_size // workload.heads)
    return DEFAULT_HEAD_DIM


def kv_from_architecture(workload: Workload) -> bool:
    """The KV cache comes from the architecture when layers and kv_heads are given."""
    return workload.layers is not None and workload.kv_heads is not None


def kv_bytes_per_token(workload: Workload, a: Assumptions) -> float:
    """KV-cache bytes per token of context.

    Known architecture: ``2 × layers × kv_heads × head_dim × bytes`` (K and V
    per layer; Llama-3-8B 2 × 32 × 8 × 128 × 2 = 128 KiB). Otherwise v1's rule,
    scaled from ``kv_kib_per_token_8b`` by ``(params_b / 8) ** 0.42``, which
    assumes grouped-query attention with 8 KV heads.
    """
    size = KV_BYTES_FP32 if workload.precision is Precision.FP32 else KV_BYTES
    if kv_from_architecture(workload):
        assert workload.layers is not None and workload.kv_heads is not None
        return 2.0 * workload.layers * workload.kv_heads * head_dim(workload) * size
    params_b = _needed(workload.params_b, "params_b")
    return a.kv_kib_per_token_8b * KIB * (params_b / 8.0) ** KV_SIZE_EXPONENT * size / KV_BYTES


def request_shape(workload: Workload) -> tuple[int, int] | None:
    """A realtime request's (prompt, output) tokens; None when v1's context_tokens holds.

    v1's reading (all of ``context_tokens`` is cache, no prefill counted)
    holds where both are blank and ``context_tokens`` is given.
    """
    if (
        workload.prompt_tokens is None
        and workload.output_tokens is None
        and workload.context_tokens is not None
    ):
        return None
    prompt = workload.prompt_tokens if workload.prompt_tokens is not None else DEFAULT_PROMPT_TOKENS
    output = workload.output_tokens if workload.output_tokens is not None else DEFAULT_OUTPUT_TOKENS
    return prompt, output


def held_tokens(workload: Workload) -> float:
    """Tokens of cache a sequence holds on average: ``prompt + output / 2`` (or ``context_tokens``)."""
    shape = request_shape(workload)
    if shape is None:
        assert workload.context_tokens is not None
        return float(workload.context_tokens)
    return shape[0] + shape[1] / 2.0


def longest_sequence(workload: Workload) -> int:
    """Tokens of cache the longest sequence holds: ``prompt + output`` (or ``context_tokens``)."""
    shape = request_shape(workload)
    if shape is None:
        assert workload.context_tokens is not None
        return workload.context_tokens
    return shape[0] + shape[1]


def assumed_values(workload: Workload) -> tuple[str, ...]:
    """What the estimate assumed for this workload, in words (empty: nothing assumed).

    Training uses layers and hidden size (attention FLOPs); realtime serving
    uses layers (all-reduces), the KV cache and the request shape. Nothing is
    said where there is no size to estimate from (the pair is out for that).
    """
    if workload.params_b is None and workload.active_params_b is None:
        return ()
    notes = []
    realtime = workload.kind is Kind.REALTIME_INFERENCE
    if (workload.kind.is_training or realtime) and workload.layers is None:
        notes.append(f"layers estimated from params_b ({layers(workload)})")
    if workload.kind.is_training and workload.hidden_size is None:
        notes.append(f"hidden_size estimated from params_b ({hidden_size(workload):,})")
    if realtime:
        if not kv_from_architecture(workload):
            notes.append(KV_ASSUMED)
        elif workload.head_dim is None and (workload.hidden_size is None or workload.heads is None):
            notes.append(f"head_dim assumed {head_dim(workload)}")
        shape = request_shape(workload)
        if shape is None:
            notes.append("all of context_tokens held as cache (v1's reading; no prefill counted)")
        elif workload.prompt_tokens is None or workload.output_tokens is None:
            notes.append(f"request assumed {shape[0]:,} prompt + {shape[1]:,} output tokens")
    return tuple(notes)
