"""Exact matrix products on BLAS, for the QLinearMatMul golden.

numpy's integer matmul does not use BLAS and is about 1500x slower than a float32 GEMM (measured on a
2-core x86 machine, 1024^3). A float32
GEMM is exact, though, as long as every partial sum it forms is an integer of magnitude <= 2^24: then no
addition or fused multiply-add ever rounds, whatever order the BLAS library sums in. With operands bounded by
|a| <= amax and |b| <= bmax, a slice of k columns of K keeps every partial sum within k * amax * bmax, so K is cut
into slices of floor(2^24 / (amax * bmax)) columns (at least 258 for 8-bit differences, whose magnitude is at
most 255), each slice is one float32 GEMM, and the slices are added in float64 (exact below 2^53).
"""
from __future__ import annotations

import numpy as np

#: Largest magnitude up to which every integer is a float32 value.
FLOAT32_EXACT_INTEGER_LIMIT = 1 << 24
#: Largest magnitude up to which every integer is a float64 value.
FLOAT64_EXACT_INTEGER_LIMIT = 1 << 53


def exact_integer_matmul(a: np.ndarray, b: np.ndarray, bound_a: int, bound_b: int) -> np.ndarray:
    """The exact product of two float32 arrays holding integers, by numpy.matmul rules.

    a: float32 [..., M, K], b: float32 [..., K, N]; every |a| <= bound_a and |b| <= bound_b, both integers.
    Returns float32 when the whole product fits in one exact GEMM (|result| <= 2^24), else float64; the values
    are the exact integer sums either way (not yet wrapped to any integer width).
    """
    k = a.shape[-1]
    largest_product = int(bound_a) * int(bound_b)
    if largest_product == 0 or k == 0:
        shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
        return np.zeros(shape, np.float32)
    slice_len = FLOAT32_EXACT_INTEGER_LIMIT // largest_product
    if slice_len < 1:
        raise ValueError(f"operand bounds {bound_a} x {bound_b} exceed what a float32 GEMM can sum exactly")
    if slice_len >= k:
        return np.matmul(a, b)
    slices = (k + slice_len - 1) // slice_len
    if slices * FLOAT32_EXACT_INTEGER_LIMIT > FLOAT64_EXACT_INTEGER_LIMIT:
        raise ValueError(f"K = {k} is too long for exact float64 accumulation of float32 slices")
    total = None
    for start in range(0, k, slice_len):
        part = np.matmul(a[..., start:start + slice_len], b[..., start:start + slice_len, :])
        if total is None:
            total = part.astype(np.float64)
        else:
            total += part
    return total


def wrap_to_int32(exact: np.ndarray) -> np.ndarray:
    """Integers held exactly in a float array, reduced modulo 2^32 into [-2^31, 2^31) (two's complement int32).

    Returned as float64 holding the wrapped values (exact), so that the caller's float32(acc) conversion is the
    same correctly rounded int32 -> float32 conversion ORT performs.
    """
    if exact.size == 0 or float(np.max(np.abs(exact))) < 2.0 ** 31:
        return exact
    as_int = exact.astype(np.int64)
    wrapped = ((as_int + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)
    return wrapped.astype(np.float64)


def zero_point_matmul(a: np.ndarray, a_zero_point: np.ndarray, b: np.ndarray, b_zero_point: np.ndarray) -> np.ndarray:
    """float32(acc), acc = sum over k of (a - a_zero_point) * (b - b_zero_point), exact, wrapped to int32.

    a [..., M, K], b [..., K, N]: 8-bit integer arrays; the zero points are of their dtypes and broadcast against
    them in matmul coordinates (per tensor, per row of a, per column of b). The int32 -> float32 conversion is
    the correctly rounded one (round to nearest even); it is exact while |acc| <= 2^24.
    """
    a_diff = _difference_as_float32(a, a_zero_point)
    b_diff = _difference_as_float32(b, b_zero_point)
    exact = exact_integer_matmul(a_diff, b_diff, _difference_bound(a, a_zero_point),
                                 _difference_bound(b, b_zero_point))
    if exact.dtype == np.float32:  # one exact GEMM: |acc| <= 2^24, nothing to wrap, already float32(acc)
        return exact
    return wrap_to_int32(exact).astype(np.float32)


def _difference_as_float32(x: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
    """x - zero_point as float32 (exact: |x - zp| <= 255); a plain widening when the zero point is 0."""
    diff = x.astype(np.float32)
    if zero_point.any():
        diff -= zero_point.astype(np.float32)
    return diff


def _difference_bound(x: np.ndarray, zero_point: np.ndarray) -> int:
    """An upper bound of |x - zero_point| from the extremes alone (cheap: no temporary array)."""
    if x.size == 0:
        return 0
    lo, hi = int(x.min()), int(x.max())
    zp_lo, zp_hi = int(zero_point.min()), int(zero_point.max())
    return max(hi - zp_lo, zp_hi - lo, 0)
