"""The oneDNN "MatMul Tutorial: Quantization" flow (docs/references.md#onednn-matmul-quantization) with a float
output, through the goldens of dynamic_quant and quant_matmul.

The tutorial multiplies A (M=10 x K=30, uniform in [-2, 1.4]) by B (K x N=20, uniform in [-1, 1]) in float32,
then again with A quantized at run time to uint8 with a zero point (asymmetric) and B to int8 without one
(symmetric), the integer product corrected for A's zero point and scaled by scale_A * scale_B; it passes when
the result is within a relative L2 error of 3e-2 of the float32 product. Here C is the float32 output of
quant_matmul itself (the tutorial's optional requantization of C to uint8 is QLinearMatMul's business).

A is quantized per row with dynamic_quant(dst_type="uint8", asymmetric=True): uint8 y with an integer uint8
zero point per row, the form quant_matmul's a_zero_point takes (dynamic_quant's int8 asymmetric mode has a
float offset instead, which an integer matmul cannot use). dynamic_quant takes float16 / bfloat16, so A goes
through float16 first; the reference is the float32 product of the original matrices. B is quantized by the
symmetric int8 mode of dynamic_quant, per tensor (one row holding all of B, as the tutorial does) or per column
(rows of B^T, passed back as the transposed view, as serving code stores weights).
"""
from __future__ import annotations

import numpy as np
import pytest

from ascend_quant_ops.errors import DTypeError
from ascend_quant_ops.golden.dynamic_quant import dynamic_quant
from ascend_quant_ops.golden.quant_matmul import quant_matmul

M, N, K = 10, 20, 30
THRESHOLD = 3e-2


def _matrices(seed):
    rng = np.random.default_rng(seed)
    A = rng.uniform(-2.0, 1.4, (M, K)).astype(np.float32)
    B = rng.uniform(-1.0, 1.0, (K, N)).astype(np.float32)
    return A, B, A @ B


def _quantize_b(B, layout):
    if layout == "tensor":
        y, scale = dynamic_quant(B.reshape(1, K * N).astype(np.float16))
        return y.reshape(K, N), scale.reshape(())
    y_t, scale = dynamic_quant(np.ascontiguousarray(B.T).astype(np.float16))  # one row per column of B
    return y_t.T, scale


def _relative_l2(reference, c):
    return float(np.linalg.norm((reference - c).astype(np.float64)) / np.linalg.norm(reference.astype(np.float64)))


def test_asymmetric_uint8_quantization_gives_what_quant_matmul_takes():
    A, _, _ = _matrices(0)
    a, a_scale, a_zero_point = dynamic_quant(A.astype(np.float16), dst_type="uint8", asymmetric=True)
    assert a.dtype == np.uint8 and a.shape == (M, K)
    assert a_scale.dtype == np.float32 and a_scale.shape == (M,)
    assert a_zero_point.dtype == np.uint8 and a_zero_point.shape == (M,)
    # rows span [-2, 1.4]: the zero point sits where 0 falls, about 2 / 3.4 of the way up the 255 steps
    assert (np.abs(a_zero_point.astype(int) - 150) <= 15).all()
    with pytest.raises(DTypeError, match="asymmetric"):  # uint8 without a zero point is refused
        dynamic_quant(A.astype(np.float16), dst_type="uint8")


@pytest.mark.parametrize("b_layout", ["tensor", "column"])
@pytest.mark.parametrize("seed", range(5))
def test_the_quantized_product_is_within_the_tutorial_threshold(seed, b_layout):
    A, B, C = _matrices(seed)
    a, a_scale, a_zero_point = dynamic_quant(A.astype(np.float16), dst_type="uint8", asymmetric=True)
    b, b_scale = _quantize_b(B, b_layout)
    c = quant_matmul(a, a_scale, a_zero_point, b, b_scale, None, out_dtype="float32")
    assert c.dtype == np.float32 and c.shape == (M, N)
    error = _relative_l2(C, c)
    assert error <= THRESHOLD, error
    assert error <= 1e-2  # in fact well inside it: no requantization of C


@pytest.mark.parametrize("wrong", ["midpoint 128", "none", "off by one"])
def test_the_threshold_catches_a_wrong_zero_point(wrong):
    # The check has teeth: the u8 midpoint instead of each row's zero point, no zero point at all, or every
    # zero point one too high (a systematic shift of one quantization step) push the error past the threshold.
    A, B, C = _matrices(0)
    a, a_scale, a_zero_point = dynamic_quant(A.astype(np.float16), dst_type="uint8", asymmetric=True)
    b, b_scale = _quantize_b(B, "column")
    bad = {"midpoint 128": np.uint8(128), "none": None,
           "off by one": (a_zero_point.astype(np.int16) + 1).clip(0, 255).astype(np.uint8)}[wrong]
    error = _relative_l2(C, quant_matmul(a, a_scale, bad, b, b_scale, None))
    if wrong == "off by one":
        # one step of A's grid per element, summed over K = 30 terms: about 2x the honest error, still below
        # 3e-2; the tutorial's threshold is loose, so the control uses the tighter 1e-2 bound of the test above
        assert error > 1e-2, error
    else:
        assert error > THRESHOLD, error
