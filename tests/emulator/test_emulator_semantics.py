"""Semantics of the emulated AscendC API against independent references (numpy, ml_dtypes, en_dtypes).

Every check runs a small correct kernel (op_kernel/emulator/tests/emu_test_kernels.cpp) through the emulator's
launcher, or the emulator's rounding routine directly, and compares bit patterns with a reference computed here
without the emulator.
"""
from __future__ import annotations

import numpy as np
import pytest

from ascend_quant_ops.errors import EmulatorError

import ascend_quant_ops_testing as _native  # the demo kernels' module (tests/emulator/conftest.py)
import ml_dtypes

NONE, RINT, FLOOR, CEIL, ROUND, TRUNC, ODD = range(7)
CMP_LT, CMP_GT, CMP_EQ, CMP_LE, CMP_GE, CMP_NE = range(6)
RNG = np.random.default_rng(20261121)


def cast(x: np.ndarray, dst: str, mode: int, soc: str, deq_scale: float | None = None) -> bytes:
    src = {np.dtype(np.float32): "float32", np.dtype(np.float16): "float16", np.dtype(np.int32): "int32",
           np.dtype(np.int8): "int8", np.dtype(ml_dtypes.bfloat16): "bfloat16"}[x.dtype]
    return _native.emulator_demo_cast(x.tobytes(), src, dst, mode, soc, deq_scale or 1.0, deq_scale is not None)


def half_ties_and_neighbours(n: int = 2000) -> np.ndarray:
    """float32 values exactly between two consecutive float16 values, plus random ones, across the range."""
    h = RNG.integers(0, 0x7BFF, n).astype(np.uint16).view(np.float16)
    lo = h.astype(np.float64)
    hi = np.nextafter(h, np.float16(np.inf)).astype(np.float64)
    ties = ((lo + hi) / 2).astype(np.float32)  # exact: float32 has 13 more bits than float16
    rand = (RNG.standard_normal(n) * 10.0 ** RNG.integers(-6, 5, n)).astype(np.float32)
    vals = np.concatenate([ties, -ties, rand, np.float32([0.0, -0.0, 65504, 65519.99, 65520, 1e-8, -1e-8, 7e4])])
    return vals.astype(np.float32)


def ref_directed_half(x: np.ndarray, mode: int) -> np.ndarray:
    """float32 -> float16 in a directed / odd mode, from numpy's nearest-even result and np.nextafter."""
    x64 = x.astype(np.float64)
    with np.errstate(over="ignore"):
        near = x.astype(np.float16)
    out = near.copy()
    up = np.nextafter(near, np.float16(np.inf))
    down = np.nextafter(near, np.float16(-np.inf))
    above = near.astype(np.float64) > x64  # nearest is above x: the other neighbour is below
    below = near.astype(np.float64) < x64
    if mode == FLOOR:
        out = np.where(above, down, near)
    elif mode == CEIL:
        out = np.where(below, up, near)
    elif mode == TRUNC:
        toward_zero_needed = (above & (x64 > 0)) | (below & (x64 < 0))
        out = np.where(toward_zero_needed, np.where(x64 > 0, down, up), near)
    elif mode == ROUND:
        # Ties go away from zero; non-ties as nearest.
        other = np.where(above, down, up)
        tie = np.abs(near.astype(np.float64) - x64) == np.abs(other.astype(np.float64) - x64)
        away = np.where(np.abs(near.astype(np.float64)) >= np.abs(other.astype(np.float64)), near, other)
        out = np.where(tie & (above | below), away, near)
    elif mode == ODD:
        other = np.where(above, down, up)
        inexact = above | below
        odd_near = (near.view(np.uint16) & 1) == 1
        out = np.where(inexact & ~odd_near, other, near)
    return out


# ---------------------------------------------------------------------------------------------------------------
# Rounding routine against numpy / ml_dtypes / en_dtypes
# ---------------------------------------------------------------------------------------------------------------
def test_float16_nearest_even_matches_numpy():
    x = half_ties_and_neighbours()
    got = np.array(_native.emulator_encode_float("float16", x.astype(np.float64).tolist()), dtype=np.uint16)
    with np.errstate(over="ignore"):
        want = x.astype(np.float16).view(np.uint16)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fmt,mltype", [("bfloat16", "bfloat16"), ("float8_e4m3fn", "float8_e4m3fn"),
                                        ("float8_e5m2", "float8_e5m2")])
def test_ml_dtypes_formats_match(fmt, mltype):
    t = getattr(ml_dtypes, mltype)
    codes = np.arange(256 if fmt != "bfloat16" else 65536, dtype=np.uint16 if fmt == "bfloat16" else np.uint8)
    table = codes.view(t).astype(np.float32)
    finite = table[np.isfinite(table)].astype(np.float64)
    finite = np.unique(finite)
    mids = ((finite[:-1] + finite[1:]) / 2).astype(np.float32)  # exact ties in float32 for these formats
    rand = (RNG.standard_normal(3000) * 10.0 ** RNG.integers(-8, 6, 3000)).astype(np.float32)
    x = np.concatenate([mids, rand, np.float32([np.inf, -np.inf])])
    got = np.array(_native.emulator_encode_float(fmt, x.astype(np.float64).tolist()), dtype=np.uint32)
    want = x.astype(t)
    want_f = want.astype(np.float64)
    got_f = np.array(_native.emulator_decode_float(fmt, got.tolist()))
    both_nan = np.isnan(got_f) & np.isnan(want_f)
    assert np.all(both_nan | (got_f == want_f)), x[~(both_nan | (got_f == want_f))][:10]
    # Signs of zeros agree too.
    assert np.all(np.signbit(got_f[~both_nan]) == np.signbit(want_f[~both_nan]))


def test_hifloat8_matches_en_dtypes():
    import en_dtypes as en
    codes = np.arange(256, dtype=np.uint8)
    decoded = np.array(_native.emulator_decode_float("hifloat8", codes.tolist()))
    ref = codes.view(en.hifloat8).astype(np.float64)
    np.testing.assert_array_equal(np.isnan(decoded), np.isnan(ref))
    np.testing.assert_array_equal(decoded[~np.isnan(ref)], ref[~np.isnan(ref)])
    finite = np.unique(ref[np.isfinite(ref)])
    mids = ((finite[:-1] + finite[1:]) / 2).astype(np.float32)
    rand = (RNG.standard_normal(5000) * 2.0 ** RNG.integers(-24, 17, 5000)).astype(np.float32)
    x = np.concatenate([mids, rand, np.float32([40960, 40959.996, -40960, 1e6, np.inf])])
    got = np.array(_native.emulator_encode_float("hifloat8", x.astype(np.float64).tolist(), "nearest_away"))
    want = x.astype(en.hifloat8).view(np.uint8)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode,name", [(FLOOR, "down"), (CEIL, "up"), (TRUNC, "toward_zero"),
                                       (ROUND, "nearest_away"), (ODD, "odd")])
def test_float16_directed_modes(mode, name):
    x = half_ties_and_neighbours()
    x = x[np.abs(x) < 65504]
    got = np.array(_native.emulator_encode_float("float16", x.astype(np.float64).tolist(), name), dtype=np.uint16)
    want = ref_directed_half(x, mode).view(np.uint16)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fmt", ["float16", "bfloat16", "float8_e5m2", "float8_e4m3fn"])
@pytest.mark.parametrize("name", ["down", "up", "toward_zero", "nearest_away"])
def test_directed_rounding_against_the_value_grid(fmt, name):
    """Directed rounding of every format against its value grid, built from ml_dtypes / numpy decoding."""
    t = np.float16 if fmt == "float16" else getattr(ml_dtypes, fmt)
    bits = 16 if fmt in ("float16", "bfloat16") else 8
    codes = np.arange(1 << (bits - 1), dtype=np.uint16 if bits == 16 else np.uint8)
    with np.errstate(invalid="ignore"):
        grid = codes.view(t).astype(np.float64)
    grid = np.unique(grid[np.isfinite(grid)])  # non-negative finite values, ascending
    mids = (grid[:-1] + grid[1:]) / 2
    rand = np.abs(RNG.standard_normal(2000)) * grid[-1] / 4
    mags = np.concatenate([mids, rand, grid[1:50]])
    mags = mags[mags < grid[-1]]
    x = np.concatenate([mags, -mags])
    i = np.searchsorted(grid, np.abs(x), side="left")
    exact = grid[np.minimum(i, grid.size - 1)] == np.abs(x)
    lo = np.where(exact, np.abs(x), grid[np.maximum(i - 1, 0)])
    hi = np.where(exact, np.abs(x), grid[np.minimum(i, grid.size - 1)])
    neg = x < 0
    if name == "toward_zero":
        mag = lo
    elif name == "down":
        mag = np.where(neg, hi, lo)
    elif name == "up":
        mag = np.where(neg, lo, hi)
    else:  # nearest, ties away from zero
        mag = np.where(np.abs(x) - lo < hi - np.abs(x), lo, hi)
    want = np.where(neg, -mag, mag)
    got_codes = _native.emulator_encode_float(fmt, x.tolist(), name)
    got = np.array(_native.emulator_decode_float(fmt, got_codes))
    np.testing.assert_array_equal(got, want)


def test_saturating_encode():
    got = _native.emulator_encode_float("float16", [1e6, -np.inf, np.nan], "nearest_even", True, True)
    assert got == [0x7BFF, 0xFBFF, 0x0000]
    got = _native.emulator_encode_float("float8_e4m3fn", [500.0, -1e9, np.nan], "nearest_even", True, False)
    assert got[0] == 0x7E and got[1] == 0xFE and (got[2] & 0x7F) == 0x7F


# ---------------------------------------------------------------------------------------------------------------
# Cast on the emulated vector unit
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p"])
@pytest.mark.parametrize("mode", [RINT, FLOOR, CEIL, ROUND, TRUNC])
def test_cast_float_to_int32_modes_with_ties(mode, soc):
    x = np.concatenate([np.arange(-40, 40) + 0.5, RNG.uniform(-1e6, 1e6, 300), [-0.5, 0.5, 2.5, -2.5, 0.0]])
    x = x.astype(np.float32)
    got = np.frombuffer(cast(x, "int32", mode, soc), dtype=np.int32)
    x64 = x.astype(np.float64)
    want = {RINT: np.rint(x64), FLOOR: np.floor(x64), CEIL: np.ceil(x64), TRUNC: np.trunc(x64),
            ROUND: np.sign(x64) * np.floor(np.abs(x64) + 0.5)}[mode].astype(np.int32)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode", [NONE, RINT, FLOOR, CEIL, ROUND, TRUNC, ODD])
def test_cast_float_to_half_all_modes_on_910b(mode):
    x = half_ties_and_neighbours()
    x = x[np.abs(x) < 65504]
    got = np.frombuffer(cast(x, "float16", mode, "ascend910b"), dtype=np.uint16)
    want = (x.astype(np.float16) if mode in (NONE, RINT) else ref_directed_half(x, mode)).view(np.uint16)
    np.testing.assert_array_equal(got, want)


def test_cast_float_to_half_on_310p_only_none_and_odd():
    x = half_ties_and_neighbours()[:64]
    x = x[np.abs(x) < 65504]
    np.frombuffer(cast(x, "float16", NONE, "ascend310p"), dtype=np.uint16)
    for mode in (RINT, FLOOR, CEIL, ROUND, TRUNC):
        with pytest.raises(EmulatorError, match="not accepted on ascend310p"):
            cast(x, "float16", mode, "ascend310p")


@pytest.mark.parametrize("mode", [NONE, RINT, FLOOR, CEIL, ROUND, TRUNC])
def test_cast_half_to_int8(mode):
    x = np.concatenate([np.arange(-128, 128, dtype=np.float32) / 2.0, [127.0, -128.0, 126.5, -127.5]]).astype(np.float16)
    got = np.frombuffer(cast(x, "int8", mode, "ascend910b"), dtype=np.int8)
    x64 = x.astype(np.float64)
    want = {NONE: np.rint(x64), RINT: np.rint(x64), FLOOR: np.floor(x64), CEIL: np.ceil(x64), TRUNC: np.trunc(x64),
            ROUND: np.sign(x64) * np.floor(np.abs(x64) + 0.5)}[mode].astype(np.int8)
    np.testing.assert_array_equal(got, want)


def test_cast_int32_to_float_rounds_large_values_by_mode():
    x = np.array([2**24 + 1, 2**24 + 3, -(2**24 + 1), 2**31 - 1, 7, -7] * 6, dtype=np.int32)
    rne = np.frombuffer(cast(x, "float32", NONE, "ascend910b"), dtype=np.float32)
    np.testing.assert_array_equal(rne, x.astype(np.float32))  # numpy int32 -> float32 is round to nearest even
    trunc = np.frombuffer(cast(x, "float32", TRUNC, "ascend910b"), dtype=np.float32)
    assert trunc[0] == 2**24 and trunc[1] == 2**24 + 2 and trunc[2] == -(2**24)
    away = np.frombuffer(cast(x, "float32", ROUND, "ascend910b"), dtype=np.float32)
    assert away[0] == 2**24 + 2 and away[1] == 2**24 + 4 and away[2] == -(2**24 + 2)
    with pytest.raises(EmulatorError, match="not accepted on ascend310p"):
        cast(x, "float32", TRUNC, "ascend310p")


def test_cast_int32_to_half_is_a_deq_conversion():
    x = np.arange(-64, 64, dtype=np.int32)
    got = np.frombuffer(cast(x, "float16", NONE, "ascend910b", deq_scale=0.5), dtype=np.float16)
    np.testing.assert_array_equal(got, (x * 0.5).astype(np.float16))
    with pytest.raises(EmulatorError, match="SetDeqScale"):
        cast(x, "float16", NONE, "ascend910b")
    # The deq conversion has no rounding mode (every RoundMode is the same instruction): 3 x 0.333251953125 =
    # 0.999755859375 lies halfway between the float16 neighbours 0.99951171875 and 1.0; the requested FLOOR / CEIL
    # are ignored and the result rounds as CAST_NONE does (to nearest even: 1.0).
    three = np.int32([3] * 32)
    for mode in (NONE, FLOOR, CEIL):
        got = np.frombuffer(cast(three, "float16", mode, "ascend910b", deq_scale=0.333251953125), dtype=np.float16)
        np.testing.assert_array_equal(got, np.float16(1.0))


def test_cast_bfloat16_both_ways_on_910b():
    x = (RNG.standard_normal(512) * 100).astype(np.float32)
    got = np.frombuffer(cast(x, "bfloat16", RINT, "ascend910b"), dtype=ml_dtypes.bfloat16)
    np.testing.assert_array_equal(got.view(np.uint16), x.astype(ml_dtypes.bfloat16).view(np.uint16))
    back = np.frombuffer(cast(got.copy(), "float32", NONE, "ascend910b"), dtype=np.float32)
    np.testing.assert_array_equal(back, got.astype(np.float32))


def test_cast_float8_on_910_95_rounds_in_range_and_leaves_the_rest_undefined():
    """Within the type's range (values that round to +-max included) the conversion is the golden's, rounded to
    nearest even. NaN, Inf and values that round beyond +-max give what the 950's saturation control bits say
    (NaN -> 0 and +-max in the default saturation mode, NaN / Inf otherwise): the element is left undefined, so the
    demo kernel's copy of it to GM fails."""
    x = np.float32([0.1, -3.3, 448, 460, -464, 1e-3, 0.0, -0.0] * 4)  # -464: a tie, to even (448)
    got = np.frombuffer(cast(x, "float8_e4m3fn", RINT, "ascend910_95"), dtype=np.uint8)
    np.testing.assert_array_equal(got, x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8))
    y = np.float32([1e4, -5e4, 57344, 60000, 0.5, -2.0, 3.0, 7.0] * 4)
    got = np.frombuffer(cast(y, "float8_e5m2", RINT, "ascend910_95"), dtype=np.uint8)
    np.testing.assert_array_equal(got, y.astype(ml_dtypes.float8_e5m2).view(np.uint8))
    for name, bad in [("float8_e4m3fn", 480.0), ("float8_e4m3fn", -1e9), ("float8_e4m3fn", np.inf),
                      ("float8_e4m3fn", np.nan), ("float8_e5m2", 61440.0), ("float8_e5m2", -np.inf),
                      ("float8_e5m2", np.nan)]:
        z = np.float32([1.0] * 31 + [bad])
        with pytest.raises(EmulatorError, match="never written"):
            cast(z, name, RINT, "ascend910_95")
    with pytest.raises(EmulatorError, match="not available on ascend910b"):
        cast(x, "float8_e4m3fn", RINT, "ascend910b")


def test_cast_hifloat8_ties_away_on_910_95_and_leaves_overflow_undefined():
    import en_dtypes as en
    x = np.concatenate([(RNG.standard_normal(200) * 100).astype(np.float32), np.float32([32768, -32768, 2.5, 3.5])])
    got = np.frombuffer(cast(x, "hifloat8", ROUND, "ascend910_95"), dtype=np.uint8)
    want = x.astype(en.hifloat8).view(np.uint8)
    np.testing.assert_array_equal(got, want)
    for bad in (1e6, -1e6, np.inf, np.nan):
        z = np.float32([1.0] * 31 + [bad])
        with pytest.raises(EmulatorError, match="never written"):
            cast(z, "hifloat8", ROUND, "ascend910_95")
    with pytest.raises(EmulatorError, match="CAST_RINT is not accepted"):
        cast(x, "hifloat8", RINT, "ascend910_95")


def test_310p_saturation_mode_reads_inf_as_max_and_nan_as_zero():
    x = np.float16([np.inf, -np.inf, np.nan, 1.5] * 8)
    got = np.frombuffer(cast(x, "float32", NONE, "ascend310p"), dtype=np.float32)
    np.testing.assert_array_equal(got[:4], np.float32([65504, -65504, 0, 1.5]))
    ieee = np.frombuffer(cast(x, "float32", NONE, "ascend910b"), dtype=np.float32)
    assert np.isinf(ieee[0]) and np.isnan(ieee[2])
    big = np.float32([1e6, -1e6, 3.0, 0.0] * 8)
    got = np.frombuffer(cast(big, "float16", NONE, "ascend310p"), dtype=np.float16)
    np.testing.assert_array_equal(got[:4], np.float16([65504, -65504, 3, 0]))


# ---------------------------------------------------------------------------------------------------------------
# Arithmetic, reductions, Compare / Select
# ---------------------------------------------------------------------------------------------------------------
def elementwise(x0, x1, mode, scalar=0.0, soc="ascend910b"):
    dtype = {np.dtype(np.float32): "float32", np.dtype(np.float16): "float16", np.dtype(np.int32): "int32"}[x0.dtype]
    out = _native.emulator_demo_elementwise(x0.tobytes(), x1.tobytes(), dtype, mode, scalar, soc)
    return np.frombuffer(out, dtype=x0.dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_binary_arithmetic_is_ieee(dtype):
    a = (RNG.standard_normal(256) * 50).astype(dtype)
    b = (RNG.standard_normal(256) * 3).astype(dtype)
    b[:4] = 0  # Add / Sub / Mul with zeros; Div by zero is refused (test_division_by_zero_is_refused)
    a[0] = 0
    bd = b.copy()
    bd[:4] = np.array([np.inf, -np.inf, 1e-3, -2.5], dtype)  # divisors away from 0: +-0 quotients, large ones
    with np.errstate(all="ignore"):
        for mode, b, ref in [(0, b, a + b), (1, b, a - b), (2, b, a * b), (3, bd, a / bd)]:
            got = elementwise(a, b, mode)
            ref = ref.astype(dtype)
            # NaN payloads are not modelled (one canonical NaN); every other result is bit-exact.
            np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
            ok = ~np.isnan(ref)
            np.testing.assert_array_equal(got[ok].view(np.uint8), ref[ok].view(np.uint8), err_msg=str(mode))
    b = bd
    np.testing.assert_array_equal(elementwise(a[16:], b[16:], 4), np.maximum(a[16:], b[16:]))
    np.testing.assert_array_equal(elementwise(a[16:], b[16:], 5), np.minimum(a[16:], b[16:]))


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p"])
@pytest.mark.parametrize("divisor", [0.0, -0.0])
def test_division_by_zero_is_refused(divisor, soc):
    # vdiv by zero: the result is unknown and the instruction raises an exception (CCE intrinsic documentation), on
    # every SoC (ascend310p's saturation mode documents saturated results, not a division by zero)
    a = np.float32(np.arange(64) + 1)
    b = np.ones(64, np.float32)
    b[17] = divisor
    with pytest.raises(EmulatorError, match="element 17 of the divisor is 0"):
        elementwise(a, b, 3, soc=soc)


def test_scalar_ops_and_abs_and_duplicate():
    a = (RNG.standard_normal(64) * 7).astype(np.float32)
    z = np.zeros_like(a)
    s = np.float32(1.25)
    np.testing.assert_array_equal(elementwise(a, z, 10, 1.25), a + s)
    np.testing.assert_array_equal(elementwise(a, z, 11, 1.25), a * s)
    np.testing.assert_array_equal(elementwise(a, z, 12, 1.25), np.maximum(a, s))
    np.testing.assert_array_equal(elementwise(a, z, 13, 1.25), np.minimum(a, s))
    np.testing.assert_array_equal(elementwise(a, z, 20), np.abs(a))
    np.testing.assert_array_equal(elementwise(a, z, 21, 1.25), np.full_like(a, s))
    # The scalar is converted to the operand type first: 1.0001 as float16 is 1.0.
    h = np.float16([3.0] * 16)
    np.testing.assert_array_equal(elementwise(h, h, 11, 1.0001), h)


def test_int32_overflow_is_refused():
    a = np.full(8, 2**31 - 1, dtype=np.int32)
    np.testing.assert_array_equal(elementwise(a, np.full(8, -5, np.int32), 0), a - 5)
    with pytest.raises(EmulatorError, match="out of the range of int32"):
        elementwise(a, np.ones(8, np.int32), 0)


def reduce(x, mode, soc="ascend910b"):
    dtype = {np.dtype(np.float32): "float32", np.dtype(np.float16): "float16"}[x.dtype]
    return np.frombuffer(_native.emulator_demo_reduce(x.tobytes(), dtype, mode, soc), dtype=x.dtype)


@pytest.mark.parametrize("n", [1, 7, 64, 1000])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_reduce_max_min(n, dtype):
    x = (RNG.standard_normal(n) * 100).astype(dtype)
    assert reduce(x, 0)[0] == x.max()
    assert reduce(x, 1)[0] == x.min()
    # Padding elements beyond n (zeros) must not take part: all-negative input.
    neg = -np.abs(x) - 1
    assert reduce(neg.astype(dtype), 0)[0] == neg.astype(dtype).max()


def test_reduce_max_index():
    x = RNG.permutation(200).astype(np.float32)
    out = reduce(x, 3)
    assert out[0] == 199 and out[1:2].view(np.uint32)[0] == int(np.argmax(x))
    x[5] = 199  # a tie: which index the hardware reports is not documented
    with pytest.raises(EmulatorError, match="more than once"):
        reduce(x, 3)


def test_reduce_sum_when_order_independent():
    x = RNG.integers(-1000, 1000, 500).astype(np.float32)  # exact in every order
    assert reduce(x, 2)[0] == x.astype(np.float64).sum()
    zeros = np.float32([0.0, -0.0] * 10)
    assert reduce(zeros, 2)[0] == 0
    assert np.isnan(reduce(np.float32([1, np.nan, 2, 3]), 2)[0])
    assert np.isnan(reduce(np.float32([np.inf, -np.inf]), 2)[0])


@pytest.mark.parametrize("mode,op", [(CMP_LT, np.less), (CMP_GT, np.greater), (CMP_EQ, np.equal),
                                     (CMP_LE, np.less_equal), (CMP_GE, np.greater_equal), (CMP_NE, np.not_equal)])
def test_compare_scalar_and_select(mode, op):
    x = np.concatenate([RNG.integers(-3, 4, 120).astype(np.float32), np.float32([np.nan, np.inf, -np.inf, 0, 1, 2, -1, 3])])
    got = np.frombuffer(_native.emulator_demo_compare_select(x.tobytes(), mode, 1.0, -99.0, "ascend910b"),
                        dtype=np.float32)
    with np.errstate(invalid="ignore"):
        want = np.where(op(x, np.float32(1.0)), x, np.float32(-99.0))
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


# ---------------------------------------------------------------------------------------------------------------
# Data movement
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rows,cols,gap,left,right", [(3, 5, 0, 0, 3), (4, 5, 2, 8, 3), (2, 13, 1, 0, 3),
                                                      (5, 1, 7, 0, 7)])
def test_datacopypad_padding_layout(rows, cols, gap, left, right):
    x = (np.arange(rows * (cols + gap)) + 1).astype(np.float32)
    out = np.frombuffer(_native.emulator_demo_datacopypad(x.tobytes(), rows, cols, gap, left, right, -7.5,
                                                          "ascend910b"), dtype=np.float32)
    row_ub = left + cols + right
    ub = out[: rows * row_ub].reshape(rows, row_ub)
    data = x.reshape(rows, cols + gap)[:, :cols]
    np.testing.assert_array_equal(ub[:, :left], -7.5)
    np.testing.assert_array_equal(ub[:, left:left + cols], data)
    np.testing.assert_array_equal(ub[:, left + cols:], -7.5)
    np.testing.assert_array_equal(out[rows * row_ub:].reshape(rows, cols), data)
    stats = _native.emulator_last_run_stats()["cores"][0]
    assert stats["gm_read_bytes"] == rows * cols * 4
    assert stats["gm_write_bytes"] == rows * row_ub * 4 + rows * cols * 4
    assert stats["dma_gm_to_ub"] == 1 and stats["dma_ub_to_gm"] == 2


def test_datacopypad_of_zero_bytes_writes_nothing():
    """DataCopyPad with blockLen 0 is a no-operation (documented for Atlas A2 / A3 and 950): its padding is not
    written either, so the demo kernel's copy of the padded rows to GM reads UB nothing wrote."""
    x = np.arange(16, dtype=np.float32)
    with pytest.raises(EmulatorError, match="never written"):
        _native.emulator_demo_datacopypad(x.tobytes(), 2, 0, 0, 8, 0, -7.5, "ascend910b")


@pytest.mark.parametrize("block_dim", [1, 3])
def test_double_buffered_pipeline(block_dim):
    tile, tiles = 64, 10
    x = RNG.standard_normal(tile * tiles).astype(np.float32)
    y = np.frombuffer(_native.emulator_demo_double_buffer(x.tobytes(), tile, 1.5, -0.25, block_dim, "ascend310p"),
                      dtype=np.float32)
    np.testing.assert_array_equal(y, x * np.float32(1.5) + np.float32(-0.25))
    stats = _native.emulator_last_run_stats()
    assert stats["completed"] and stats["block_dim"] == block_dim
    per_core = -(-tiles // block_dim)
    counts = [max(0, min(tiles, per_core * (b + 1)) - per_core * b) for b in range(block_dim)]
    for core, n in zip(stats["cores"], counts):
        assert core["dma_gm_to_ub"] == n and core["dma_ub_to_gm"] == n
        assert core["gm_read_bytes"] == n * tile * 4 and core["gm_write_bytes"] == n * tile * 4
        assert core["peak_ub_bytes"] == 2 * 2 * tile * 4
        assert core["vector_ops"] == 2 * n
        # The UB map the kernel built: two double-buffered queues, back to back from address 0.
        ub = [(b["offset"], b["bytes"], b["num"], b["kind"]) for b in core["ub_buffers"]]
        assert ub == [(0, 2 * tile * 4, 2, "queue"), (2 * tile * 4, 2 * tile * 4, 2, "queue")]
        assert all(b["site"].split(":")[0].endswith("emu_test_kernels.cpp") for b in core["ub_buffers"])
    assert sum(c["gm_read_bytes"] for c in stats["cores"]) == x.nbytes


# ---------------------------------------------------------------------------------------------------------------
# The Cast table, transcribed here from the CANN 8.1.RC1 dav_c220 / dav_m200 vconv implementations independently of
# the C++ table
# ---------------------------------------------------------------------------------------------------------------
_ALL_MODES = {NONE, RINT, FLOOR, CEIL, ROUND, TRUNC, ODD}
CAST_TABLE = {
    # (src, dst): (modes on ascend310p, modes on ascend910b)
    ("float32", "float16"): ({NONE, ODD}, _ALL_MODES),
    ("float16", "int8"): ({NONE, FLOOR, CEIL, ROUND, TRUNC}, {RINT, FLOOR, CEIL, ROUND, TRUNC, NONE}),
    ("float32", "int32"): ({RINT, FLOOR, CEIL, ROUND, TRUNC}, {RINT, FLOOR, CEIL, ROUND, TRUNC}),
    ("float16", "float32"): ({NONE}, {NONE}),
    ("int8", "float16"): ({NONE}, {NONE}),
    ("int32", "float32"): ({NONE}, _ALL_MODES - {ODD}),
    ("int32", "float16"): (_ALL_MODES, _ALL_MODES),  # deq conversion: the mode is ignored
    ("bfloat16", "float32"): (set(), {NONE}),
}
_SAMPLE = {"float32": np.float32([1.0, -2.0] * 16), "float16": np.float16([1.0, -2.0] * 16),
           "int32": np.int32([1, -2] * 16), "int8": np.int8([1, -2] * 16),
           "bfloat16": np.float32([1.0, -2.0] * 16).astype(ml_dtypes.bfloat16)}


@pytest.mark.parametrize("soc_index,soc", [(0, "ascend310p"), (1, "ascend910b")])
@pytest.mark.parametrize("pair", sorted(CAST_TABLE))
def test_cast_accepts_the_documented_round_modes(pair, soc_index, soc):
    src, dst = pair
    accepted = CAST_TABLE[pair][soc_index]
    x = _SAMPLE[src]
    for mode in sorted(_ALL_MODES):
        deq = 1.0 if pair == ("int32", "float16") else None
        if mode in accepted:
            out = cast(x, dst, mode, soc, deq_scale=deq)
            assert len(out) == x.size * {"float16": 2, "float32": 4, "int32": 4, "int8": 1}[dst]
        else:
            # bfloat16 on ascend310p is refused already when it is copied in.
            with pytest.raises(EmulatorError, match="Cast|bfloat16 does not exist"):
                cast(x, dst, mode, soc, deq_scale=deq)


# ------------------------------------------------------------------------------------------------- SyncAll
# ascend310p has only the software SyncAll (test_emulator_faults checks that the hardware one is refused there).
_SYNC_ALL_FORMS = [(soc, hw) for soc in ("ascend910b", "ascend310p", "ascend910_95") for hw in (False, True)
                   if not (hw and soc == "ascend310p")]


@pytest.mark.parametrize("soc,hardware", _SYNC_ALL_FORMS)
@pytest.mark.parametrize("cores", [1, 2, 5, 8])
def test_sync_all_lets_cores_exchange_data(cores, soc, hardware):
    # Each core writes i + 1, then (after a SyncAll) sums every core's value, then (after another) core 0 adds the
    # sums: cores * (cores * (cores + 1) / 2). The blocks run under the launcher's baton, so the barrier is real.
    y = np.frombuffer(_native.emulator_demo_sync_all(cores, hardware, soc), np.float32)
    per_core = cores * (cores + 1) / 2
    for i in range(cores):
        np.testing.assert_array_equal(y[8 * i:8 * i + 8], i + 1)
        np.testing.assert_array_equal(y[128 + 8 * i:136 + 8 * i], per_core)
    np.testing.assert_array_equal(y[120:128], cores * per_core)
    trace = _native.emulator_last_run_trace()
    assert [sum(e["kind"] == "sync_all" for e in c["events"]) for c in trace["cores"]] == [2] * cores
    if not hardware:  # the software form's counters in GM: two arrivals per core
        counters = np.frombuffer(y[256:].tobytes(), np.int32).reshape(cores, 8)[:, 0]
        np.testing.assert_array_equal(counters, 2)
