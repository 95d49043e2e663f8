"""quant_matmul golden against the independent float64 reference (quant_matmul_oracles.reference_quant_matmul).

Every case compares bit patterns (any NaN equals any NaN): exact integer sums wrapped to int32, then the
documented float32 steps. hypothesis draws every operand type pair, out_dtype, parameter layout and spelling
(per tensor, per row as [M], [..., M, 1] or a.shape[:-1], per column as [N] or [..., 1, N], batch-shaped
parameters), zero points present or None, float32 / float16 / bfloat16 scales and bias, 1-D operands,
broadcasting batches, strided a and transposed-view b; a second strategy adds zero, NaN, infinite and huge
scales and biases. Fixed cases cover the int32 wrap-around, K = 0, empty outputs and the serving layouts.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_quant_ops.golden.quant_matmul import quant_matmul
from quant_matmul_oracles import assert_same_floats, reference_quant_matmul, wrap_int32
from test_qlinear_matmul_properties import _batch_pair  # broadcasting batch shapes of a and b

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

INT_TYPES = (np.uint8, np.int8)
FLOAT_TYPES = (np.float32, np.float16, ml_dtypes.bfloat16)
OUT_SPELLINGS = {"float32": ("float32", np.float32, "fp32"), "float16": ("float16", np.float16, "half"),
                 "bfloat16": ("bfloat16", ml_dtypes.bfloat16, "bf16")}


def _rng(draw):
    return np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))


def _ints(draw, dtype, shape):
    info = np.iinfo(dtype)
    rng = _rng(draw)
    if draw(st.booleans()):
        return rng.integers(info.min, info.max + 1, shape).astype(dtype)
    return rng.choice(np.array([info.min, info.max], np.int64), shape).astype(dtype)  # extremes


def _scales(draw, shape, dtype, specials):
    rng = _rng(draw)
    values = np.exp2(rng.uniform(-12, 2, shape)) * rng.choice([-1.0, 1.0], shape)
    if specials:
        pool = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e30, 3e38, 2.0 ** -140], np.float64)
        mask = rng.random(shape) < 0.3
        values = np.where(mask, rng.choice(pool, shape), values)
    return np.asarray(values).astype(dtype)


def _bias(draw, shape, dtype, specials):
    rng = _rng(draw)
    values = rng.standard_normal(shape) * np.exp2(rng.uniform(-4, 12, shape))
    if specials:
        pool = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 3e38, -3e38], np.float64)
        values = np.where(rng.random(shape) < 0.3, rng.choice(pool, shape), values)
    return np.asarray(values).astype(dtype)


def _param_batch(draw, batch):
    """The batch part of a parameter: a suffix of the tensor's batch, each dimension kept or 1."""
    kept = tuple(d if draw(st.booleans()) else 1 for d in batch)
    return kept[draw(st.integers(0, len(kept))):]


def _per_tensor(draw, make):
    canonical = make((1, 1))
    return canonical, canonical.reshape(draw(st.sampled_from([(), (1,), (1, 1)])))


def _row_param(draw, make, a_vector, batch_a, m):
    """(canonical [..., M, 1] array, the spelling handed to the golden) of a per-tensor or per-row parameter."""
    if a_vector or draw(st.booleans()):
        return _per_tensor(draw, make)
    pb = _param_batch(draw, batch_a)
    canonical = make(pb + (m, 1))
    spellings = [pb + (m, 1)]
    if all(d == 1 for d in pb):
        spellings += [(m,), (1, m, 1)]
    if m > 1:  # a.shape[:-1]-like; for M = 1 the [..., M, 1] reading of the same shape takes precedence
        spellings.append(pb + (m,))
    return canonical, canonical.reshape(draw(st.sampled_from(spellings)))


def _column_param(draw, make, b_vector, batch, n):
    """(canonical [..., 1, N] array, spelling) of a per-tensor or per-column parameter."""
    if b_vector or draw(st.booleans()):
        return _per_tensor(draw, make)
    pb = _param_batch(draw, batch)
    canonical = make(pb + (1, n))
    spellings = [pb + (1, n)]
    if all(d == 1 for d in pb):
        spellings += [(n,), (1, n)]
    return canonical, canonical.reshape(draw(st.sampled_from(spellings)))


@st.composite
def cases(draw, specials=False):
    ta, tb = draw(st.sampled_from(INT_TYPES)), draw(st.sampled_from(INT_TYPES))
    a_vector = draw(st.booleans()) and draw(st.booleans())
    b_vector = draw(st.booleans()) and draw(st.booleans())
    m, k, n = draw(st.integers(0, 6)), draw(st.integers(0, 40)), draw(st.integers(0, 6))
    batch_a, batch_b = _batch_pair(draw)
    batch_a, batch_b = (() if a_vector else batch_a), (() if b_vector else batch_b)
    a = _ints(draw, ta, (k,) if a_vector else batch_a + (m, k))
    b = _ints(draw, tb, (k,) if b_vector else batch_b + (k, n))
    if draw(st.booleans()) and a.ndim:  # strided a: every other element of a doubled last axis
        a = np.repeat(a, 2, axis=-1)[..., ::2]
    if draw(st.booleans()) and b.ndim >= 2:  # b as the transposed view of an [..., N, K] weight
        b = np.ascontiguousarray(np.swapaxes(b, -1, -2)).swapaxes(-1, -2)
    out_batch = np.broadcast_shapes(batch_a, batch_b)

    scale_types = [draw(st.sampled_from(FLOAT_TYPES)) for _ in range(3)]
    a_scale = _row_param(draw, lambda s: _scales(draw, s, scale_types[0], specials), a_vector, batch_a, m)
    b_scale = _column_param(draw, lambda s: _scales(draw, s, scale_types[1], specials), b_vector, batch_b, n)
    a_zp = (np.zeros((1, 1), ta), None) if draw(st.booleans()) else \
        _row_param(draw, lambda s: _ints(draw, ta, s), a_vector, batch_a, m)
    b_zp = (np.zeros((1, 1), tb), None) if draw(st.booleans()) else \
        _column_param(draw, lambda s: _ints(draw, tb, s), b_vector, batch_b, n)
    bias = (None, None) if draw(st.booleans()) else \
        _column_param(draw, lambda s: _bias(draw, s, scale_types[2], specials), b_vector, out_batch, n)
    out = draw(st.sampled_from(sorted(OUT_SPELLINGS)))
    spelling = draw(st.sampled_from(OUT_SPELLINGS[out]))
    golden_args = (a, a_scale[1], a_zp[1], b, b_scale[1], b_zp[1])
    reference_args = (a, a_scale[0], a_zp[0], b, b_scale[0], b_zp[0], bias[0], out)
    return golden_args, dict(bias=bias[1], out_dtype=spelling), reference_args


def _check(case):
    golden_args, golden_kwargs, reference_args = case
    y = quant_matmul(*golden_args, **golden_kwargs)
    assert_same_floats(y, reference_quant_matmul(*reference_args))


@SETTINGS
@given(cases())
def test_matches_the_independent_reference(case):
    _check(case)


@SETTINGS
@given(cases(specials=True))
def test_matches_the_reference_with_zero_nan_infinite_and_huge_parameters(case):
    _check(case)


# ---------------------------------------------------------------------------------------------------------------
# fixed cases

def _run_both(a, a_scale, a_zp, b, b_scale, b_zp, bias=None, out="float32"):
    y = quant_matmul(a, a_scale, a_zp, b, b_scale, b_zp, bias=bias, out_dtype=out)
    canon = lambda p, fill: np.zeros((1, 1), fill) if p is None else np.asarray(p)  # noqa: E731
    expected = reference_quant_matmul(a, np.asarray(a_scale), canon(a_zp, a.dtype), b, np.asarray(b_scale),
                                      canon(b_zp, b.dtype), bias, out)
    assert_same_floats(y, expected)
    return y


@pytest.mark.parametrize("k, wraps", [(33025, False), (33026, True), (70001, True)])
def test_int32_wrap_around_at_the_documented_k(k, wraps):
    # (255 - 0) * (255 - 0) * K exceeds 2^31 - 1 from K = 33,026 on; the sum is reduced modulo 2^32.
    a = np.full((2, k), 255, np.uint8)
    a[1, :] = 0
    b = np.full((k, 3), 255, np.uint8)
    exact = 255 * 255 * k
    expected_acc = int(wrap_int32(np.int64(exact)))
    assert (expected_acc != exact) == wraps
    y = _run_both(a, np.float32(1.0), np.uint8(0), b, np.float32(1.0), None)
    assert y[0, 0] == np.float32(expected_acc)
    assert y[1, 0] == 0


def test_int32_wrap_around_with_zero_points_u8_x_s8():
    # a - 0 = 255 and b - 127 = -255: the same magnitude, negative, wraps to a positive int32
    k = 40000
    a = np.full((1, k), 255, np.uint8)
    b = np.full((k, 2), -128, np.int8)
    y = _run_both(a, np.float32(1.0), np.uint8(0), b, np.float32(1.0), np.int8(127))
    assert y[0, 0] == np.float32(int(wrap_int32(np.int64(-255 * 255 * k))))
    assert y[0, 0] > 0


def test_k_zero_gives_zero_times_scale_plus_bias():
    a = np.zeros((3, 0), np.int8)
    b = np.zeros((0, 2), np.int8)
    bias = np.array([1.5, -2.0], np.float32)
    y = _run_both(a, np.float32(0.5), None, b, np.array([1.0, np.inf], np.float32), None, bias)
    np.testing.assert_array_equal(y[:, 0], 1.5)
    assert np.isnan(y[:, 1]).all()  # 0 * Inf = NaN, as IEEE arithmetic says


@pytest.mark.parametrize("a_shape, b_shape, out_shape", [
    ((0, 4), (4, 3), (0, 3)), ((2, 4), (4, 0), (2, 0)), ((0, 2, 4), (4, 3), (0, 2, 3)), ((4,), (4,), ()),
    ((4,), (2, 4, 3), (2, 3)), ((2, 5, 4), (4,), (2, 5))])
def test_output_shapes_follow_numpy_matmul(a_shape, b_shape, out_shape):
    a = np.ones(a_shape, np.uint8)
    b = np.ones(b_shape, np.int8)
    y = quant_matmul(a, np.float32(2.0), None, b, np.float32(0.5), None, out_dtype="float16")
    assert y.shape == out_shape == np.matmul(a.astype(np.int32), b.astype(np.int32)).shape
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y, np.full(out_shape, a_shape[-1], np.float16))


def test_zero_scales_give_the_bias_and_negative_zero_survives_without_bias():
    a = np.array([[3, 0]], np.int8)
    b = np.array([[1], [1]], np.int8)
    y = _run_both(a, np.array([0.0], np.float32), None, b, np.float32(1.0), None, bias=np.float32(-7.25))
    assert y[0, 0] == np.float32(-7.25)
    zero = _run_both(np.zeros((1, 2), np.int8), np.float32(-1.0), None, b, np.float32(1.0), None)
    assert zero[0, 0] == 0 and np.signbit(zero[0, 0])  # 0 * -1 = -0, no + 0.0 when there is no bias
    plus_zero = _run_both(np.zeros((1, 2), np.int8), np.float32(-1.0), None, b, np.float32(1.0), None,
                          bias=np.float32(0.0))
    assert not np.signbit(plus_zero[0, 0])  # -0 + +0 = +0


def test_overflow_to_infinity_in_float16_and_float32():
    a = np.full((1, 5), 127, np.int8)
    b = np.full((5, 1), 127, np.int8)  # acc = 80645, beyond float16's 65504 (+ half a step)
    assert _run_both(a, np.float32(1.0), None, b, np.float32(1.0), None, out="float16")[0, 0] == np.inf
    assert _run_both(a[:, :4], np.float32(1.0), None, b[:4], np.float32(1.0), None, out="float16")[0, 0] == 64512
    assert _run_both(a, np.float32(-1e36), None, b, np.float32(1e2), None)[0, 0] == -np.inf  # s = -1e38, v -inf
    big = _run_both(a, np.float32(1e19), None, b, np.float32(1e19), None, out="bfloat16")  # s = inf
    assert big[0, 0] == np.inf


def test_serving_layouts_give_the_same_result():
    # W8A8 as serving code calls it: activations [B, S, K] with per-token scales [B, S] (or [B, S, 1]), weights
    # stored as [N, K] and passed as their transposed view, per-channel float16 / bfloat16 weight scales.
    rng = np.random.default_rng(3)
    B, S, K, N = 2, 3, 64, 5
    a = rng.integers(-128, 128, (B, S, K)).astype(np.int8)
    weight = rng.integers(-128, 128, (N, K)).astype(np.int8)
    token_scale = rng.uniform(0.001, 0.02, (B, S)).astype(np.float32)
    channel_scale = rng.uniform(0.001, 0.02, N).astype(ml_dtypes.bfloat16)
    expected = reference_quant_matmul(a, token_scale[..., None], np.zeros((1, 1), np.int8), weight.T,
                                      channel_scale, np.zeros((1, 1), np.int8), None, "bfloat16")
    for scale in (token_scale, token_scale[..., None]):
        y = quant_matmul(a, scale, None, weight.T, channel_scale, None, out_dtype="bfloat16")
        assert_same_floats(y, expected)
    # the same per-token scales flattened with the activations: [B * S, K] and [B * S]
    flat = quant_matmul(a.reshape(B * S, K), token_scale.reshape(-1), None, weight.T, channel_scale,
                        out_dtype="bfloat16")
    assert_same_floats(flat.reshape(B, S, N), expected)
    # decode step, S = 1: [B, 1, K] with scales [B, 1]
    y1 = quant_matmul(a[:, :1], token_scale[:, :1], None, weight.T, channel_scale, out_dtype="bfloat16")
    assert_same_floats(y1, expected[:, :1])


def test_the_zero_point_decomposition_is_the_difference_product():
    # Independent of the reference: sum(a*b) - z_a*sum_k(b) - z_b*sum_k(a) + K*z_a*z_b, in Python integers.
    rng = np.random.default_rng(11)
    a = rng.integers(0, 256, (4, 9)).astype(np.uint8)
    b = rng.integers(-128, 128, (9, 3)).astype(np.int8)
    za = rng.integers(0, 256, 4).astype(np.uint8)
    zb = rng.integers(-128, 128, 3).astype(np.int8)
    y = quant_matmul(a, np.float32(1.0), za, b, np.float32(1.0), zb)
    for m in range(4):
        for n in range(3):
            ai = [int(v) for v in a[m]]
            bi = [int(b[kk, n]) for kk in range(9)]
            acc = (sum(x * y_ for x, y_ in zip(ai, bi)) - int(za[m]) * sum(bi) - int(zb[n]) * sum(ai)
                   + 9 * int(za[m]) * int(zb[n]))
            assert y[m, n] == np.float32(acc)
