"""The oneDNN "MatMul Tutorial: Quantization" check (docs/references.md#onednn-matmul-quantization), run through dynamic_quant + qlinear_matmul.

The tutorial multiplies A (M=10 x K=30, uniform in [-2, 1.4]) by B (K x N=20, uniform in [-1, 1]) in float32,
then again with A quantized to u8 with a zero point, B to s8 without one, and C to u8 with a scale and zero point
found from its range (max_int = 254, min_int = 1: the range shrunk by one at each end); it passes when the
dequantized C is within a relative L2 error of 3e-2 of the float32 C.

Here the quantization of A and B is ours and finer than the tutorial's (it uses one scale per matrix):
  A per row with DynamicQuant's asymmetric mode (int8 y, float scale and offset with A ~ scale * (y - offset)),
    moved to u8 as the tutorial's A: y + 128, zero point round(offset) + 128;
  B per column with symmetric DynamicQuant of B^T (int8, zero point 0, as the tutorial's B);
  C from the float32 result's range with the tutorial's formulas.
"""
from __future__ import annotations

import numpy as np
import pytest

from ascend_quant_ops.golden.dynamic_quant import dynamic_quant
from ascend_quant_ops.golden.qlinear_matmul import qlinear_matmul

M, N, K = 10, 20, 30
THRESHOLD = 3e-2


def _c_quantization(c: np.ndarray):
    """The tutorial's compute_q10n_params for a uint8 matrix."""
    max_int, min_int = np.float32(255 - 1), np.float32(0 + 1)
    max_val, min_val = np.float32(c.max()), np.float32(c.min())
    scale = (max_val - min_val) / (max_int - min_int)
    zero_point = int(max_int - max_val / scale)  # C's (int32_t) cast truncates toward zero
    return np.float32(scale), zero_point


def _relative_l2(reference: np.ndarray, y: np.ndarray, scale: np.float32, zero_point: int) -> float:
    dequantized = scale * (y.astype(np.float32) - np.float32(zero_point))
    return float(np.linalg.norm((reference - dequantized).astype(np.float64)) /
                 np.linalg.norm(reference.astype(np.float64)))


def _quantized_matmul(A: np.ndarray, B: np.ndarray, c_scale: np.float32, c_zero_point: int, *,
                      use_a_zero_point: bool = True):
    a_q, a_scale, a_offset = dynamic_quant(A.astype(np.float16), asymmetric=True)
    a_u8 = (a_q.astype(np.int16) + 128).astype(np.uint8)
    a_zero_point = (np.rint(a_offset).astype(np.int16) + 128).astype(np.uint8)
    if not use_a_zero_point:
        a_zero_point = np.full_like(a_zero_point, 128)
    b_q_t, b_scale = dynamic_quant(np.ascontiguousarray(B.T).astype(np.float16))
    b_s8 = b_q_t.T  # [K, N], a transposed (non-contiguous) view
    return qlinear_matmul(a_u8, a_scale, a_zero_point, b_s8, b_scale, np.zeros(N, np.int8),
                          np.asarray(c_scale), np.asarray(np.uint8(c_zero_point)))


@pytest.mark.parametrize("seed", range(5))
def test_dynamic_quantization_matches_f32_within_the_tutorial_threshold(seed):
    rng = np.random.default_rng(seed)
    A = rng.uniform(-2.0, 1.4, (M, K)).astype(np.float32)
    B = rng.uniform(-1.0, 1.0, (K, N)).astype(np.float32)
    C = A @ B  # the float32 reference

    c_scale, c_zero_point = _c_quantization(C)
    assert 0 <= c_zero_point <= 255
    y = _quantized_matmul(A, B, c_scale, c_zero_point)
    assert y.dtype == np.uint8 and y.shape == (M, N)
    error = _relative_l2(C, y, c_scale, c_zero_point)
    assert error <= THRESHOLD, error


def test_the_threshold_catches_a_dropped_zero_point():
    # The check has teeth: forgetting A's zero points (using 128, the u8 midpoint) breaks it.
    rng = np.random.default_rng(0)
    A = rng.uniform(-2.0, 1.4, (M, K)).astype(np.float32)
    B = rng.uniform(-1.0, 1.0, (K, N)).astype(np.float32)
    C = A @ B
    c_scale, c_zero_point = _c_quantization(C)
    y = _quantized_matmul(A, B, c_scale, c_zero_point, use_a_zero_point=False)
    assert _relative_l2(C, y, c_scale, c_zero_point) > THRESHOLD
