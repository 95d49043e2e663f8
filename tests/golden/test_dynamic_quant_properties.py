"""DynamicQuant golden against an independent reference, element by element.

The reference below shares no code with the golden: it works on Python numbers, does every float32 step as
an exact rational (fractions.Fraction) rounded once to float32 by its own round-to-nearest-even, rounds int8
with Python's round() (half to even), finds float8 codes by searching the type's value grid (ties to the even
code), and HiF8 codes with the bit-layout encoder of test_hifloat8. Non-finite values follow Python's IEEE
float arithmetic. The rules it implements are the documented ones (golden/dynamic_quant.py docstring).
"""
import bisect
import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from ascend_quant_ops.golden.dynamic_quant import dynamic_quant
from test_hifloat8 import hif8_encode

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
# spec values (ATB's dmax table) and OPSNN's asymmetric ranges, written out here on purpose: the test checks the table
DMAX = {"int8": 127, "hifloat8": 32768, "float8_e4m3fn": 448, "float8_e5m2": 57344}
QMIN = {"int8": -128, "hifloat8": -32768, "float8_e4m3fn": -448, "float8_e5m2": -57344}
DSTS = list(DMAX)

# ---- float32 arithmetic on exact rationals ----------------------------------------------------------------

_TWO = Fraction(2)


def f32(exact: Fraction, zero_sign: float = 1.0) -> float:
    """exact rounded to the nearest float32 (ties to even), as a Python float; +-inf on overflow."""
    if exact == 0:
        return math.copysign(0.0, zero_sign)
    negative = exact < 0
    a = -exact if negative else exact
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if a < _TWO ** e:
        e -= 1  # now 2^e <= a < 2^(e+1)
    quantum = _TWO ** (max(e, -126) - 23)  # 24-bit significand; fixed 2^-149 steps below 2^-126
    r = round(a / quantum) * quantum  # round() on a Fraction: half to even
    if r >= _TWO ** 128:
        r = math.inf
    elif r == 0:
        return math.copysign(0.0, -1.0 if negative else 1.0)
    return -float(r) if negative else float(r)


def finite(*xs):
    return all(math.isfinite(x) for x in xs)


def mul(a, b):
    if not finite(a, b):
        return a * b
    return f32(Fraction(a) * Fraction(b), math.copysign(1, a) * math.copysign(1, b))


def div(a, b):
    assert b != 0, "the reference never divides by a zero scale"
    if not finite(a, b):
        return a / b
    return f32(Fraction(a) / Fraction(b), math.copysign(1, a) * math.copysign(1, b))


def add(a, b):
    if not finite(a, b) or (a == 0 and b == 0):
        return a + b  # IEEE: -0 + -0 = -0, x + (-x) = +0
    return f32(Fraction(a) + Fraction(b))


def sub(a, b):
    return add(a, -b)


# ---- conversion of one float32 value to the output type ----------------------------------------------------

def _float8_grid(dtype):
    values = np.arange(256, dtype=np.uint8).view(dtype).astype(np.float64)
    grid = sorted((Fraction(float(v)), c) for c, v in enumerate(values) if np.isfinite(v) and v >= 0
                  and not (v == 0 and c != 0))
    return [v for v, _ in grid], [c for _, c in grid]


FLOAT8_GRIDS = {"float8_e4m3fn": _float8_grid(ml_dtypes.float8_e4m3fn),
                "float8_e5m2": _float8_grid(ml_dtypes.float8_e5m2)}
NAN = "NaN"


def convert(q: float, dst: str):
    """Reference code (int8 value, or 8-bit code for the float types; NAN for a NaN float result)."""
    dmax = DMAX[dst]
    if dst == "int8":
        if math.isnan(q):
            return 0
        if math.isinf(q):
            return dmax if q > 0 else QMIN[dst]
        return min(max(round(Fraction(q)), QMIN[dst]), dmax)
    if math.isnan(q):
        return NAN
    q = min(max(q, -dmax), dmax)  # clip first (keeps the sign of zero)
    if dst == "hifloat8":
        return hif8_encode(q)
    values, codes_ = FLOAT8_GRIDS[dst]
    a = abs(Fraction(q))
    i = bisect.bisect_left(values, a)
    if values[i] == a:
        code = codes_[i]
    else:
        lo, hi = i - 1, i
        d_lo, d_hi = a - values[lo], values[hi] - a
        code = codes_[lo] if d_lo < d_hi or (d_lo == d_hi and codes_[lo] % 2 == 0) else codes_[hi]
    return code | (0x80 if math.copysign(1, q) < 0 else 0)


# ---- the reference operator ---------------------------------------------------------------------------------

def reference_row(xs, ss, dst, asymmetric):
    """One row: (codes, scale, offset) by the documented rules."""
    v = [mul(x, s) for x, s in zip(xs, ss)]
    has_nan = any(math.isnan(t) for t in v)
    qmax = float(DMAX[dst])
    offset = None
    if asymmetric:
        if has_nan:
            scale = offset = math.nan
        elif not v:
            scale = 0.0
        else:
            hi, lo = max(v), min(v)
            scale = div(sub(hi, lo), float(DMAX[dst] - QMIN[dst]))
            if scale != 0:
                offset = sub(qmax, div(hi, scale))
    else:
        if has_nan:
            scale = math.nan
        else:
            m = max((abs(t) for t in v), default=0.0)
            scale = div(m, qmax)
    if scale == 0:
        return [0] * len(v), 0.0, (0.0 if asymmetric else None)
    if asymmetric:
        q = [add(div(t, scale), offset) for t in v]
    else:
        q = [div(t, scale) for t in v]
    return [convert(t, dst) for t in q], scale, offset


def label(x, smooth):
    """hypothesis events, so that --hypothesis-show-statistics shows what the examples covered."""
    values = x.astype(np.float64)
    if not np.isfinite(values).all() or (smooth is not None and not np.isfinite(smooth.astype(np.float64)).all()):
        event("non-finite input")
    if values.size and (values.reshape(-1, x.shape[-1]) == 0).all(axis=1).any():
        event("zero row")
    if smooth is not None:
        event("smooth scales")
    event(f"x {x.dtype.name}, rank {x.ndim}")


def check_against_reference(x, smooth, dst, asymmetric, *, in_hypothesis=True):
    if in_hypothesis:
        label(x, smooth)
    out = dynamic_quant(x, smooth, dst_type=dst, asymmetric=asymmetric)
    y, scale = out[0], out[1]
    H = x.shape[-1]
    rows = x.astype(np.float64).reshape(-1, H)
    ss = [1.0] * H if smooth is None else smooth.astype(np.float64).tolist()
    y_rows = y.reshape(-1, H)
    y_codes = y_rows.astype(np.int64) if dst == "int8" else y_rows.view(np.uint8).astype(np.int64)
    scale_rows, offset_rows = scale.reshape(-1), (out[2].reshape(-1) if asymmetric else None)
    for r in range(rows.shape[0]):
        want_codes, want_scale, want_offset = reference_row(rows[r].tolist(), ss, dst, asymmetric)
        ctx = (r, rows[r].tolist(), ss, dst, asymmetric)
        same_float(scale_rows[r], want_scale, ("scale",) + ctx)
        if asymmetric:
            same_float(offset_rows[r], want_offset, ("offset",) + ctx)
        for j, (g, w) in enumerate(zip(y_codes[r].tolist(), want_codes)):
            if w == NAN:
                # a NaN output is the positive NaN of the type (hifloat8 has one NaN code, 0x80)
                decoded = np.array([g], np.uint8).view(y.dtype).astype(np.float32)[0]
                assert np.isnan(decoded) and (g < 0x80 or dst == "hifloat8"), ("y", j, g) + ctx
            else:
                assert g == w, ("y", j, hex(g), hex(w) if isinstance(w, int) else w) + ctx


def same_float(got, want, ctx):
    got = float(got)
    if math.isnan(want):
        assert math.isnan(got), ctx
    else:
        # bit equality, including the sign of zero
        assert got == want and math.copysign(1, got) == math.copysign(1, want), (got, want) + ctx


# ---- input generation -----------------------------------------------------------------------------------------

def representable(values, dtype):
    arr = np.array(values, np.float64)
    with np.errstate(over="ignore"):
        return np.array_equal(arr.astype(dtype).astype(np.float64), arr)


def _tie_points(dst):
    """q values exactly halfway between two neighbouring outputs of dst, within [-dmax, dmax]."""
    if dst == "int8":
        return [j + 0.5 for j in range(-127, 126)]  # inside [-127, 127]: the maximum stays the maximum
    if dst == "hifloat8":
        from test_hifloat8 import _POSITIVE_VALUES as grid
    else:
        grid = FLOAT8_GRIDS[dst][0]
    mids = [float((a + b) / 2) for a, b in zip(grid, grid[1:]) if b <= DMAX[dst]]
    return mids + [-m for m in mids]


TIES = {d: _tie_points(d) for d in DSTS}


@st.composite
def cases(draw, dst=None, asymmetric=None):
    xdtype = draw(st.sampled_from([F16, BF16]))
    dst = dst or draw(st.sampled_from(DSTS))
    asymmetric = draw(st.booleans()) if asymmetric is None else asymmetric
    rank = draw(st.integers(2, 4))
    # leading dims: mostly 1-3; a 0 (an empty tensor) now and then
    lead = draw(st.lists(st.sampled_from([1, 2, 3] * 5 + [0]), min_size=rank - 1, max_size=rank - 1))
    H = draw(st.integers(1, 20))
    rows = int(np.prod(lead))
    use_smooth = draw(st.booleans())
    mode = draw(st.sampled_from(["bits", "normal", "ties"]))

    if mode == "bits":
        # any bit pattern: all magnitudes, subnormals, signed zeros; NaN and Inf only in some examples
        keep_nonfinite = draw(st.booleans())

        def any_bits(n):
            raw = np.array(draw(st.lists(st.integers(0, 0xFFFF), min_size=n, max_size=n)), np.uint16)
            vals = raw.view(xdtype).astype(np.float64)
            if not keep_nonfinite:
                vals[~np.isfinite(vals)] = 0.0
            return vals
        x = any_bits(rows * H).reshape(rows, H)
        smooth = any_bits(H) if use_smooth else None
    elif mode == "normal":
        x = np.array(draw(st.lists(st.floats(-300, 300, width=16), min_size=rows * H, max_size=rows * H)),
                     np.float64).reshape(rows, H)
        smooth = np.array(draw(st.lists(st.floats(0.25, 4, width=16), min_size=H, max_size=H))) \
            if use_smooth else None
    else:
        # q lands exactly on ties: the row maximum is dmax * 2^k so that scale = 2^k exactly, and every
        # other v = tie * 2^k; with smooth scales 2^e, x = v / 2^e.
        k = draw(st.sampled_from([k for k in range(-6, 1) if representable([DMAX[dst] * 2.0 ** k * 4], xdtype)]))
        ties = [t for t in TIES[dst] if representable([t * 2.0 ** k * 4, t * 2.0 ** k / 4], xdtype)]
        assert ties, dst
        x = np.array(draw(st.lists(st.sampled_from(ties), min_size=rows * H, max_size=rows * H)),
                     np.float64).reshape(rows, H) * 2.0 ** k
        if rows:
            x[:, draw(st.integers(0, H - 1))] = DMAX[dst] * 2.0 ** k
        smooth = None
        if use_smooth:
            smooth = 2.0 ** np.array(draw(st.lists(st.integers(-2, 2), min_size=H, max_size=H)), np.float64)
            x = x / smooth
    # zero rows and rows with a single non-zero element
    for r in range(rows):
        kind = draw(st.sampled_from(["keep", "keep", "keep", "zero", "single"]))
        if kind == "zero":
            x[r] = 0.0
        elif kind == "single":
            keep = draw(st.integers(0, H - 1))
            x[r, np.arange(H) != keep] = 0.0
    x_arr = x.astype(xdtype).reshape(tuple(lead) + (H,))
    assert mode != "ties" or np.array_equal(x_arr.astype(np.float64).reshape(rows, H), x)
    smooth_arr = None if smooth is None else smooth.astype(xdtype)
    return x_arr, smooth_arr, dst, asymmetric


SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("dst", DSTS)
@settings(max_examples=80, **SETTINGS)
@given(data=st.data())
def test_symmetric_matches_reference(dst, data):
    x, smooth, dst, asymmetric = data.draw(cases(dst=dst, asymmetric=False))
    check_against_reference(x, smooth, dst, asymmetric)


@pytest.mark.parametrize("dst", DSTS)
@settings(max_examples=50, **SETTINGS)
@given(data=st.data())
def test_asymmetric_matches_reference(dst, data):
    x, smooth, dst, asymmetric = data.draw(cases(dst=dst, asymmetric=True))
    check_against_reference(x, smooth, dst, asymmetric)


@pytest.mark.parametrize("dst", DSTS)
def test_ties_strategy_really_produces_ties(dst):
    """Guard against a vacuous ties mode: with scale 2^k, every non-maximum element is a tie."""
    ties = [t for t in TIES[dst] if representable([t * 2.0 ** -3], F16)]
    assert len(ties) > 20
    x = (np.array([DMAX[dst]] + ties[:5] + ties[-5:], np.float64) * 2.0 ** -3)[None]
    x16 = x.astype(np.float16)
    assert np.array_equal(x16.astype(np.float64), x)
    y, scale = dynamic_quant(x16, dst_type=dst)
    assert scale[0] == 2.0 ** -3
    check_against_reference(x16, None, dst, False, in_hypothesis=False)


def test_reference_float32_rounding_agrees_with_numpy_on_easy_cases():
    """The reference's own float32 rounding, checked on products / quotients numpy computes exactly."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal(500).astype(np.float32)
    b = rng.standard_normal(500).astype(np.float32)
    for x, y in zip(a.tolist(), b.tolist()):
        assert mul(x, y) == float(np.float32(x) * np.float32(y))
        assert div(x, y) == float(np.float32(x) / np.float32(y))
        assert add(x, y) == float(np.float32(x) + np.float32(y))
    assert f32(Fraction(2) ** -150) == 0.0 and f32(Fraction(3, 2) * Fraction(2) ** -149) == 2.0 ** -148
    assert f32(Fraction(2) ** 128) == math.inf
