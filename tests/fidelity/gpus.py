"""The GPUs the published figures were measured on, at their datasheet figures.

MFU is each type's default from the bundled example (A100 0.50, H100 0.40);
the H800 is an H100 with a narrower NVLink, the same 989 dense BF16 TFLOPS.
"""

from __future__ import annotations

from tests.builders import gpu

A100_80 = gpu(
    "A100 80GB", vram_gb=80.0, fp16_tflops=312.0, memory_bandwidth_gbs=2039.0, mfu_training=0.5
)
A100_40 = gpu(
    "A100 40GB", vram_gb=40.0, fp16_tflops=312.0, memory_bandwidth_gbs=1555.0, mfu_training=0.5
)
H100 = gpu("H100", fp16_tflops=989.0, mfu_training=0.4, fp8=True)
H800 = gpu("H800", fp16_tflops=989.0, mfu_training=0.4, fp8=True)
RTX4090 = gpu(
    "RTX 4090", vram_gb=24.0, fp16_tflops=165.0, memory_bandwidth_gbs=1008.0, nvlink=False
)
