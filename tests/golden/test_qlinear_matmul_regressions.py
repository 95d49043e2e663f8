"""QLinearMatMul golden: the points where references disagree (docs/references.md#reference-behaviours) and the edge cases the module defines.

Expected values are worked out by hand in the comments; where onnxruntime implements the case it is run too.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ascend_quant_ops.golden.qlinear_matmul import qlinear_matmul

f32 = np.float32


def _arrays(*values):
    return tuple(np.asarray(v) for v in values)


def test_odd_zero_point_ties_round_before_adding_the_zero_point(ort_qlinear_matmul):
    # acc = 1, 3, 5, 7 and mult = 1 * 1 / 2 = 0.5: v = 0.5, 1.5, 2.5, 3.5 -> rint 0, 2, 2, 4 -> + 1 = 1, 3, 3, 5.
    # Adding the zero point first (onnx.reference) would give rint(1.5, 2.5, 3.5, 4.5) = 2, 2, 4, 4.
    args = _arrays(np.array([[1], [3], [5], [7]], np.uint8), f32(1), np.uint8(0), np.array([[1]], np.uint8),
                   f32(1), np.uint8(0), f32(2), np.uint8(1))
    np.testing.assert_array_equal(qlinear_matmul(*args).ravel(), [1, 3, 3, 5])
    np.testing.assert_array_equal(ort_qlinear_matmul(*args).ravel(), [1, 3, 3, 5])


def test_accumulator_is_rounded_to_float32_before_scaling(ort_qlinear_matmul):
    # acc = 258 * 255 * 255 + 13 * 59 = 2^24 + 1; float32(acc) = 2^24 (ties to even), times 2^-25 = 0.5 -> 0.
    # A float64 product (onnx.reference) gives 0.50000003 -> 1. K = 259 also crosses the golden's BLAS slice
    # of 258 columns.
    a = np.array([[255] * 258 + [13]], np.uint8)
    b = np.array([[255] * 258 + [59]], np.uint8).T
    assert (a.astype(np.int64) @ b.astype(np.int64)).item() == 2 ** 24 + 1
    args = _arrays(a, f32(2.0 ** -25), np.uint8(0), b, f32(1), np.uint8(0), f32(1), np.uint8(0))
    np.testing.assert_array_equal(qlinear_matmul(*args), [[0]])
    np.testing.assert_array_equal(ort_qlinear_matmul(*args), [[0]])


def test_multiplier_is_float32_product_then_quotient(ort_qlinear_matmul):
    # a_scale = b_scale = 1 + 2^-12: the exact product 1 + 2^-11 + 2^-24 is a float32 tie and rounds (to even)
    # to 1 + 2^-11; y_scale = 2 + 2^-10, so mult = 0.5 exactly: acc 1 -> rint(0.5) = 0, acc 5 -> rint(2.5) = 2.
    # A float64 multiplier is 0.5 * (1 + ~2^-24): acc 1 -> 1 (float64 v), acc 5 -> v = 2.5 + 0.625 ulp, which
    # is 3 even after rounding v to float32.
    s = f32(1 + 2.0 ** -12)
    y_scale = f32(2 + 2.0 ** -10)
    assert f32(s * s) / y_scale == f32(0.5)
    assert np.rint(float(s) * float(s) / float(y_scale)) == 1
    assert np.rint(f32(5 * (float(s) * float(s) / float(y_scale)))) == 3
    args = _arrays(np.array([[1], [5]], np.uint8), s, np.uint8(0), np.array([[1]], np.uint8), s, np.uint8(0),
                   y_scale, np.uint8(0))
    np.testing.assert_array_equal(qlinear_matmul(*args), [[0], [2]])
    np.testing.assert_array_equal(ort_qlinear_matmul(*args), [[0], [2]])


@pytest.mark.parametrize("a_scale,b_scale,y_scale,a,b,y,y_float64_multiplier", [
    (0.16454636, 0.0055241417, 0.4059831, 103, 245, 57, 56),
    (0.01685994, 0.07432266, 0.68832785, 218, 223, 88, 89),
    (0.023402907, 0.043883983, 0.6730696, 168, 197, 51, 50),
])
def test_multiplier_product_is_rounded_to_float32(ort_qlinear_matmul, a_scale, b_scale, y_scale, a, b, y,
                                                  y_float64_multiplier):
    # Scales for which float32(float32(a_scale * b_scale) / y_scale) and the float64 multiplier rounded once to
    # float32 differ by one ulp, and an acc = a * b (K = 1, zero points 0) whose rint lands on different sides.
    sa, sb, sy = f32(a_scale), f32(b_scale), f32(y_scale)
    m32 = f32(sa * sb) / sy
    m64 = f32(float(sa) * float(sb) / float(sy))
    assert m32 != m64
    assert np.rint(f32(a * b) * m32) == y and np.rint(f32(a * b) * m64) == y_float64_multiplier
    args = _arrays(np.array([[a]], np.uint8), sa, np.uint8(0), np.array([[b]], np.uint8), sb, np.uint8(0), sy,
                   np.uint8(0))
    np.testing.assert_array_equal(ort_qlinear_matmul(*args), [[y]])
    np.testing.assert_array_equal(qlinear_matmul(*args), [[y]])


def test_k_zero_gives_the_output_zero_point():
    # K = 0: the sum over K is empty, acc = 0, y = 0 + y_zp (onnxruntime returns uninitialised memory here).
    y = qlinear_matmul(*_arrays(np.zeros((3, 0), np.uint8), f32(0.1), np.uint8(3), np.zeros((0, 4), np.int8),
                                f32(0.2), np.int8(0), f32(0.3), np.int8(-7)))
    assert y.dtype == np.int8 and y.shape == (3, 4)
    np.testing.assert_array_equal(y, np.full((3, 4), -7, np.int8))
    # per-column y zero point, batch of 2
    y = qlinear_matmul(*_arrays(np.zeros((2, 3, 0), np.int8), f32(1), np.int8(0), np.zeros((0, 2), np.int8),
                                f32(1), np.int8(0), np.array([1, 1], f32), np.array([5, 250], np.uint8)))
    np.testing.assert_array_equal(y, np.broadcast_to(np.array([5, 250], np.uint8), (2, 3, 2)))


@pytest.mark.parametrize("a_shape,b_shape,out_shape", [
    ((0, 5), (5, 3), (0, 3)),
    ((4, 5), (5, 0), (4, 0)),
    ((0, 4, 5), (5, 3), (0, 4, 3)),
    ((2, 1, 4, 5), (3, 5, 0), (2, 3, 4, 0)),
    ((5,), (5, 0), (0,)),
])
def test_empty_outputs(a_shape, b_shape, out_shape):
    y = qlinear_matmul(*_arrays(np.ones(a_shape, np.uint8), f32(1), np.uint8(0), np.ones(b_shape, np.uint8),
                                f32(1), np.uint8(0), f32(1), np.uint8(0)))
    assert y.shape == out_shape and y.dtype == np.uint8


def test_vector_operands_follow_numpy_matmul():
    # a [K] . b [K] -> scalar; a [K] @ b [K, N] -> [N]; a [M, K] @ b [K] -> [M].
    a = np.array([1, 2, 3], np.int8)
    b = np.array([4, 5, 6], np.int8)
    one, zero = f32(1), np.int8(0)
    y = qlinear_matmul(*_arrays(a, one, zero, b, one, zero, one, zero))
    assert y.shape == () and y == 32
    bm = np.array([[1, 0], [0, 1], [1, 1]], np.int8)  # columns sum a[0] + a[2] = 4 and a[1] + a[2] = 5
    np.testing.assert_array_equal(qlinear_matmul(*_arrays(a, one, zero, bm, one, zero, one, zero)), [4, 5])
    am = np.array([[1, 1, 1], [0, 0, 2]], np.int8)  # 15 and 12
    np.testing.assert_array_equal(qlinear_matmul(*_arrays(am, one, zero, b, one, zero, one, zero)), [15, 12])


def test_per_row_a_parameters_apply_to_rows_not_columns():
    # M = K = 2, so [M] and [K] have the same length: a per-row scale must scale rows (onnx.reference applies a
    # 1-D per-row scale along K, docs/references.md#onnx-reference-qlinearmatmul). a = I, b = [[10, 20], [30, 40]]: acc = b, row 0 scaled by 1, row 1 by 2.
    a = np.eye(2, dtype=np.uint8)
    b = np.array([[10, 20], [30, 40]], np.uint8)
    for a_scale, a_zp in ((np.array([1, 2], f32), np.array([0, 0], np.uint8)),
                          (np.array([[1], [2]], f32), np.array([[0], [0]], np.uint8))):
        y = qlinear_matmul(*_arrays(a, a_scale, a_zp, b, f32(1), np.uint8(0), f32(1), np.uint8(0)))
        np.testing.assert_array_equal(y, [[10, 20], [60, 80]])


def test_batch_shaped_parameters():
    # b [2, K=1, N=2] with b_scale [2, 1, 2]: each batch and column its own scale.
    a = np.array([[[3]]], np.uint8)  # [1, 1, 1] broadcasts over b's batch
    b = np.array([[[1, 2]], [[3, 4]]], np.uint8)
    b_scale = np.array([[[1, 2]], [[3, 4]]], f32)
    y = qlinear_matmul(*_arrays(a, f32(1), np.uint8(0), b, b_scale, np.zeros((2, 1, 2), np.uint8), f32(1),
                                np.uint8(0)))
    np.testing.assert_array_equal(y, [[[3, 12]], [[27, 48]]])
    # a [2, M=2, K=1] with a_scale [2, 2, 1]
    a = np.array([[[1], [1]], [[1], [1]]], np.uint8)
    a_scale = np.array([[[1], [2]], [[3], [4]]], f32)
    y = qlinear_matmul(*_arrays(a, a_scale, np.zeros((2, 2, 1), np.uint8), np.array([[5]], np.uint8), f32(1),
                                np.uint8(0), f32(1), np.uint8(0)))
    np.testing.assert_array_equal(y, [[[5], [10]], [[15], [20]]])


def test_saturation_and_negative_scales():
    a = np.array([[200, 0]], np.uint8)
    b = np.array([[1], [1]], np.uint8)
    # acc = 200, mult = 1: int8 saturates to 127; with a negative a_scale: -200 -> -128; uint8 with zp 100 and
    # mult -1: -200 + 100 -> 0.
    one = f32(1)
    assert qlinear_matmul(*_arrays(a, one, np.uint8(0), b, one, np.uint8(0), one, np.int8(0)))[0, 0] == 127
    assert qlinear_matmul(*_arrays(a, f32(-1), np.uint8(0), b, one, np.uint8(0), one, np.int8(0)))[0, 0] == -128
    assert qlinear_matmul(*_arrays(a, one, np.uint8(0), b, one, np.uint8(0), f32(-1), np.uint8(100)))[0, 0] == 0


def test_underflowing_multiplier_gives_the_zero_point():
    # 1e-30 * 1e-30 underflows float32 to 0: mult = 0, y = y_zp (as onnxruntime computes it).
    args = _arrays(np.array([[255]], np.uint8), f32(1e-30), np.uint8(0), np.array([[255]], np.uint8), f32(1e-30),
                   np.uint8(0), f32(1), np.uint8(9))
    np.testing.assert_array_equal(qlinear_matmul(*args), [[9]])


@pytest.mark.parametrize("scale_type,a_value,b_value,expected", [
    # float16(0.1) = 0.0999755859375: acc 5 -> 0.49988 -> 0 (float32(0.1) would give 0.50000001 -> 1)
    (np.float16, 5, 1, 0),
    # bfloat16(0.1) = 0.10009765625: acc 1034 -> 103.501 -> 104 (float32(0.1) would give 103.4 -> 103)
    (ml_dtypes.bfloat16, 22, 47, 104),
])
def test_half_precision_scales_are_widened_exactly(scale_type, a_value, b_value, expected):
    one = np.asarray(scale_type(1))
    args = _arrays(np.array([[a_value]], np.uint8), scale_type(0.1), np.uint8(0), np.array([[b_value]], np.uint8),
                   one, np.uint8(0), one, np.uint8(0))
    np.testing.assert_array_equal(qlinear_matmul(*args), [[expected]])


def test_strided_and_non_contiguous_inputs_equal_contiguous_ones():
    rng = np.random.default_rng(3)
    big_a = rng.integers(0, 256, (6, 40)).astype(np.uint8)
    big_b = rng.integers(-128, 128, (30, 12)).astype(np.int8)
    a = big_a[::2, ::2]            # [3, 20], strides in both axes
    b = big_b[::-1][:20, ::3].T.T  # [20, 4], reversed rows, every third column
    scale = np.linspace(0.01, 0.02, 4).astype(f32)[::-1]  # negative stride
    zp = np.array([1, -2, 3, -4, 9, 9], np.int8)[:4]
    args = (a, np.asarray(f32(0.05)), np.asarray(np.uint8(100)), b, scale, zp, np.asarray(f32(0.7)),
            np.asarray(np.uint8(128)))
    contiguous = tuple(np.ascontiguousarray(x) for x in args)
    assert not a.flags.c_contiguous and not b.flags.c_contiguous
    np.testing.assert_array_equal(qlinear_matmul(*args), qlinear_matmul(*contiguous))
    # and the value itself, by exact integer arithmetic
    acc = (a.astype(np.int64) - 100) @ (b.astype(np.int64) - zp.astype(np.int64))
    mult = (f32(0.05) * scale) / f32(0.7)
    expected = np.clip(np.rint(acc.astype(f32) * mult) + 128, 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(qlinear_matmul(*args), expected)


# ---------------------------------------------------------------------------------------------------------------
# float8 specifics (hand-computed; the property tests compare with DequantizeLinear -> MatMul -> QuantizeLinear)

def test_float8_output_saturates_instead_of_overflowing():
    # e4m3fn has no Inf: a plain cast of 1000 gives NaN; saturate=1 gives 448. acc = 1000 (int path).
    a = np.array([[250, 250, 250, 250]], np.uint8)
    b = np.ones((4, 1), np.uint8)
    e4m3 = ml_dtypes.float8_e4m3fn
    y = qlinear_matmul(*_arrays(a, f32(1), np.uint8(0), b, f32(1), np.uint8(0), f32(1), e4m3(0)))
    assert y.dtype == e4m3 and float(y[0, 0]) == 448.0
    y = qlinear_matmul(*_arrays(a, f32(-1), np.uint8(0), b, f32(1), np.uint8(0), f32(1),
                                ml_dtypes.float8_e5m2(0)))
    assert float(y[0, 0]) == -1024.0  # representable in e5m2, no saturation needed


def test_float8_rounds_to_nearest_even():
    # 17 lies halfway between the e4m3fn neighbours 16 and 18: ties to even mantissa -> 16; 19 -> 20.
    a = np.array([[17], [19]], np.uint8)
    b = np.ones((1, 1), np.uint8)
    y = qlinear_matmul(*_arrays(a, f32(1), np.uint8(0), b, f32(1), np.uint8(0), f32(1),
                                ml_dtypes.float8_e4m3fn(0)))
    np.testing.assert_array_equal(y.astype(f32).ravel(), [16, 20])


def test_float8_inputs_with_nan_and_inf():
    e5m2 = ml_dtypes.float8_e5m2
    a = np.array([[np.inf, 1.0], [np.nan, 1.0], [np.inf, 0.0]], e5m2)
    b = np.array([[1.0], [2.0]], e5m2)
    b_zero = np.array([[0.0], [2.0]], e5m2)
    zero = e5m2(0)
    # float8 output: Inf saturates to the largest finite value (57344), NaN stays NaN
    y = qlinear_matmul(*_arrays(a, f32(1), zero, b, f32(1), zero, f32(1), zero)).astype(f32).ravel()
    assert y[0] == 57344 and np.isnan(y[1]) and y[2] == 57344
    # Inf * 0 = NaN inside the sum: b column [0, 2], a row [Inf, 0] -> Inf*0 + 0*2 = NaN
    y = qlinear_matmul(*_arrays(a, f32(1), zero, b_zero, f32(1), zero, f32(1), zero)).astype(f32).ravel()
    assert np.isnan(y[0]) and np.isnan(y[1]) and np.isnan(y[2])
    # integer output: +Inf saturates to 127, NaN becomes 0 before the zero point: y = y_zp = 5
    y = qlinear_matmul(*_arrays(a, f32(1), zero, b, f32(1), zero, f32(1), np.int8(5))).ravel()
    np.testing.assert_array_equal(y, [127, 5, 127])


def test_float8_times_integer_operand_keeps_the_integer_zero_point():
    # a uint8 with zp 10, b e4m3fn: acc = (12 - 10) * 1.5 + (10 - 10) * 3 = 3 -> y_scale 0.5 -> 6 (e4m3fn).
    a = np.array([[12, 10]], np.uint8)
    b = np.array([[1.5], [3.0]], ml_dtypes.float8_e4m3fn)
    y = qlinear_matmul(*_arrays(a, f32(1), np.uint8(10), b, f32(1), ml_dtypes.float8_e4m3fn(0), f32(0.5),
                                ml_dtypes.float8_e4m3fn(0)))
    assert float(y[0, 0]) == 6.0


# ---------------------------------------------------------------------------------------------------------------
# the exact BLAS formulation (golden/_exact_gemm.py)

def test_wrap_to_int32_is_twos_complement():
    from ascend_quant_ops.golden._exact_gemm import wrap_to_int32

    values = np.array([2 ** 31 - 1, 2 ** 31, -2 ** 31, -2 ** 31 - 1, 2 ** 32 + 5, -(2 ** 32) - 5, 0], np.float64)
    expected = [2 ** 31 - 1, -2 ** 31, -2 ** 31, 2 ** 31 - 1, 5, -5, 0]
    np.testing.assert_array_equal(wrap_to_int32(values), expected)


def test_sliced_k_with_batch_broadcasting(exact_qlinear_matmul):
    # K = 600 at the largest magnitudes (|a - a_zp| = |b - b_zp| = 255) takes three 258-column slices; the
    # batch dimensions broadcast ([2, 1] against [3]) through every slice.
    rng = np.random.default_rng(11)
    a = rng.choice(np.array([0, 255], np.uint8), (2, 1, 3, 600))
    b = rng.choice(np.array([-128, 127], np.int8), (3, 600, 2))
    a_scale = np.array([[[[0.5], [0.25], [1.0]]], [[[2.0], [1.0], [0.5]]]], f32)  # [2, 1, 3, 1] per row
    a_zp = np.array([[[[255], [0], [255]]], [[[0], [255], [0]]]], np.uint8)
    b_zp = np.array([[[127, -128]], [[-128, 127]], [[127, 127]]], np.int8)  # [3, 1, 2] per column
    args = (a, a_scale, a_zp, b, np.ones((3, 1, 2), f32) * f32(0.01), b_zp, np.asarray(f32(4000.0)),
            np.asarray(np.int8(-3)))
    y = qlinear_matmul(*args)
    assert y.shape == (2, 3, 3, 2)
    assert len(np.unique(y)) > 10 and (np.abs(y.astype(int)) < 127).mean() > 0.5  # not just saturation
    np.testing.assert_array_equal(y, exact_qlinear_matmul(*args))


def test_float16_scales_are_multiplied_in_float32(ort_qlinear_matmul):
    s = np.float16(1 + 2.0 ** -10)
    y_scale = np.array(0x300E, np.uint16).view(np.float16)
    # a_scale = b_scale = float16(1 + 2^-10): their product 1 + 2^-9 + 2^-20 is exact in float32 but rounds to
    # 1 + 2^-9 in float16 (onnx.reference computes with float16 scales in float16, docs/references.md#onnx-reference-qlinearmatmul). With
    # y_scale = float16 0x300E = 0.126708984375 and acc = 16: the float32 multiplier gives v = 126.52 -> 127;
    # a multiplier computed in float16, float16(float16(a_scale * b_scale) / y_scale) = 7.90625, gives exactly
    # 126.5 -> 126.
    assert float(np.float16(np.float16(s * s) / y_scale)) * 16 == 126.5
    assert float(y_scale) == 0.126708984375
    args = _arrays(np.array([[4]], np.uint8), s, np.uint8(0), np.array([[4]], np.uint8), s, np.uint8(0), y_scale,
                   np.uint8(0))
    np.testing.assert_array_equal(qlinear_matmul(*args), [[127]])
    np.testing.assert_array_equal(ort_qlinear_matmul(*args), [[127]])
