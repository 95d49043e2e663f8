"""quant_matmul golden against onnxruntime's com.microsoft.MatMulIntegerToFloat (CPU provider).

What onnxruntime's CPU kernel implements (contrib_ops/cpu/quantization/dynamic_quantize_matmul.cc, and its MLAS
output processor qpostprocessor.cpp): a uint8 with b uint8 or int8, or a int8 with b int8; a_zero_point per
tensor only; a_scale per tensor, or per row as [..., M, 1] (applied afterwards, see below); b_scale and
b_zero_point per tensor or per column; bias [N] float32; float32 output. float16 scales and output run through
the float32 kernel with casts that onnxruntime inserts around it (exact widening, one rounding at the end).

Where its order of operations is this package's, the results must be equal bit for bit:
    per-tensor a_scale: multiplier float32(a_scale * b_scale) (per column when b_scale is), then
    float32(acc) * multiplier, then + bias, each one float32 operation.

Per-row a_scale (no bias): onnxruntime computes r2 = fl(fl(x * s_b) * s_a), this package r1 = fl(x * fl(s_a *
s_b)), with x = float32(acc) the same in both. Bound: let P = x * s_a * s_b exactly, u = 2^-24 and U the ulp of
max(|r1|, |r2|) (all values normal, no overflow). Each result is P times one relative rounding error of at most
u / (1 + u) (of the inner product), plus the final rounding of at most half its own ulp <= U / 2. So
|r1 - r2| <= 2 |P| u / (1 + u) + U. Both results lie in [2^E, 2^(E+1)) scaled by at most one rounding, so
|P| < 2^(E+1) (1 + 2^-25) with U = 2^(E-23), which makes the first term < 2U: |r1 - r2| < 3U. Two floats of the
same binade differ by a multiple of U, so |r1 - r2| <= 2U. (If they straddle a power of two, |P| is within a few
ulps of it, the first term is < U + tiny and the difference, a multiple of U / 2, is at most 1.5U.) Hence
    |r1 - r2| <= 2 ulp(max(|r1|, |r2|)),
and a fixed case below reaches 2 ulps exactly, so the bound is tight. With a bias onnxruntime also multiplies
the bias by a_scale ((x * s_b + bias) * s_a), a different definition: not compared.

On x86 CPUs without VNNI, MLAS's u8 x s8 kernel saturates pairs of products to int16; for u8 x s8 the tests keep
b in [-64, 63], where pair sums fit in int16 and every kernel is exact (as the QLinearMatMul tests do).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_quant_ops.golden.quant_matmul import quant_matmul
from quant_matmul_oracles import assert_same_floats, run_ort_matmul_integer_to_float

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ORT_TYPES = [(np.uint8, np.uint8), (np.uint8, np.int8), (np.int8, np.int8)]


def _rng(draw):
    return np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))


def _ints(draw, dtype, shape, lo=None, hi=None):
    info = np.iinfo(dtype)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    rng = _rng(draw)
    if draw(st.booleans()):
        return rng.integers(lo, hi + 1, shape).astype(dtype)
    return rng.choice(np.array([lo, hi], np.int64), shape).astype(dtype)


def _b_range(ta, tb):
    return (-64, 63) if (ta, tb) == (np.uint8, np.int8) else (None, None)


def _scales(draw, shape, dtype=np.float32):
    rng = _rng(draw)
    return np.asarray(np.exp2(rng.uniform(-12, 2, shape)) * rng.choice([-1.0, 1.0], shape)).astype(dtype)


def _problem(draw):
    ta, tb = draw(st.sampled_from(ORT_TYPES))
    m, k, n = draw(st.integers(1, 9)), draw(st.integers(1, 64)), draw(st.integers(1, 9))
    batch = draw(st.sampled_from([(), (2,), (3,)]))
    b_batched = bool(batch) and draw(st.booleans())
    a = _ints(draw, ta, batch + (m, k))
    b = _ints(draw, tb, (batch if b_batched else ()) + (k, n), *_b_range(ta, tb))
    return ta, tb, m, n, batch, b_batched, a, b


@st.composite
def per_tensor_a_cases(draw):
    ta, tb, m, n, batch, b_batched, a, b = _problem(draw)
    scale_type = draw(st.sampled_from([np.float32, np.float16]))
    a_scale = _scales(draw, draw(st.sampled_from([(), (1,)])), scale_type)
    b_layout = draw(st.sampled_from(["tensor", "column"]))
    b_param_shape = () if b_layout == "tensor" else ((batch + (1, n)) if b_batched else (n,))
    b_scale = _scales(draw, b_param_shape, scale_type)
    a_zp = None if draw(st.booleans()) else _ints(draw, ta, draw(st.sampled_from([(), (1,)])))
    b_zp = None if draw(st.booleans()) else _ints(draw, tb, b_param_shape, *_b_range(ta, tb))
    bias = None
    if draw(st.booleans()):
        bias = (_rng(draw).standard_normal(n) * 100).astype(scale_type)
    return a, a_scale, a_zp, b, b_scale, b_zp, bias


@SETTINGS
@given(per_tensor_a_cases())
def test_equals_onnxruntime_bit_for_bit_with_a_per_tensor_a_scale(case):
    a, a_scale, a_zp, b, b_scale, b_zp, bias = case
    expected = run_ort_matmul_integer_to_float(a, b, a_scale, b_scale, a_zp, b_zp, bias)
    y = quant_matmul(a, a_scale, a_zp, b, b_scale, b_zp, bias=bias, out_dtype=a_scale.dtype)
    assert_same_floats(y, expected)


def test_equals_onnxruntime_on_a_larger_per_channel_problem():
    # several BLAS slices of K on our side, MLAS's blocking on onnxruntime's
    rng = np.random.default_rng(5)
    for ta, tb in ORT_TYPES:
        lo, hi = _b_range(ta, tb)
        lo = np.iinfo(tb).min if lo is None else lo
        hi = np.iinfo(tb).max if hi is None else hi
        a = rng.integers(np.iinfo(ta).min, np.iinfo(ta).max + 1, (37, 1500)).astype(ta)
        b = rng.integers(lo, hi + 1, (1500, 45)).astype(tb)
        a_scale = np.float32(0.0173)
        b_scale = rng.uniform(1e-4, 1e-2, 45).astype(np.float32)
        a_zp = ta(np.iinfo(ta).max // 3)
        b_zp = rng.integers(lo, hi + 1, 45).astype(tb)
        bias = rng.standard_normal(45).astype(np.float32)
        expected = run_ort_matmul_integer_to_float(a, b, np.asarray(a_scale), b_scale, np.asarray(a_zp), b_zp, bias)
        assert_same_floats(quant_matmul(a, a_scale, a_zp, b, b_scale, b_zp, bias=bias), expected)


@pytest.mark.parametrize("k", [33025, 33026, 50000])
def test_int32_wrap_around_equals_onnxruntime(k):
    # u8 x u8 at the extremes: 255 * 255 * K passes 2^31 - 1 at K = 33,026; both wrap modulo 2^32
    a = np.full((2, k), 255, np.uint8)
    a[1, ::2] = 0
    b = np.full((k, 3), 255, np.uint8)
    b[::3, 1] = 0
    expected = run_ort_matmul_integer_to_float(a, b, np.asarray(np.float32(1.0)), np.asarray(np.float32(1.0)))
    assert_same_floats(quant_matmul(a, np.float32(1.0), None, b, np.float32(1.0), None), expected)
    if k > 33025:
        assert expected[0, 0] < 0  # the wrap really happened


# ---------------------------------------------------------------------------------------------------------------
# per-row a_scale: onnxruntime scales afterwards; the documented 2-ulp bound, and a case that reaches it

def _ulp_distance_in_units_of_the_larger(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    larger = np.maximum(np.abs(x), np.abs(y)).astype(np.float32)
    return np.abs(x.astype(np.float64) - y.astype(np.float64)) / np.spacing(larger).astype(np.float64)


@st.composite
def per_row_a_cases(draw):
    ta, tb, m, n, batch, b_batched, a, b = _problem(draw)
    a_scale = _scales(draw, batch + (m, 1))
    b_param_shape = () if draw(st.booleans()) else ((batch + (1, n)) if b_batched else (n,))
    b_scale = _scales(draw, b_param_shape)
    a_zp = None if draw(st.booleans()) else _ints(draw, ta, ())
    b_zp = None if draw(st.booleans()) else _ints(draw, tb, b_param_shape, *_b_range(ta, tb))
    return a, a_scale, a_zp, b, b_scale, b_zp


@SETTINGS
@given(per_row_a_cases())
def test_per_row_a_scale_is_within_two_ulps_of_onnxruntime(case):
    a, a_scale, a_zp, b, b_scale, b_zp = case
    expected = run_ort_matmul_integer_to_float(a, b, a_scale, b_scale, a_zp, b_zp)
    y = quant_matmul(a, a_scale, a_zp, b, b_scale, b_zp)
    assert y.shape == expected.shape and y.dtype == expected.dtype
    tiny = np.abs(y) < np.finfo(np.float32).tiny  # the bound is for normal results (zeros agree exactly)
    np.testing.assert_array_equal(y[tiny], expected[tiny])
    assert _ulp_distance_in_units_of_the_larger(y, expected)[~tiny].max(initial=0) <= 2


def test_per_row_a_scale_bound_is_reached():
    # Found by a random search: acc = 23 and these two scales put the two orders 2 ulps apart.
    a = np.array([[23]], np.uint8)
    b = np.array([[1]], np.int8)
    a_scale = np.array([[1054162793]], np.uint32).view(np.float32)  # per row, [M, 1]
    b_scale = np.array(1002786900, np.uint32).view(np.float32)
    expected = run_ort_matmul_integer_to_float(a, b, a_scale, b_scale)
    y = quant_matmul(a, a_scale, None, b, b_scale, None)
    f = np.float32
    assert y[0, 0] == f(23) * (a_scale[0, 0] * b_scale)  # this package's order
    assert expected[0, 0] == (f(23) * b_scale) * a_scale[0, 0]  # onnxruntime's order
    assert _ulp_distance_in_units_of_the_larger(y, expected)[0, 0] == 2
