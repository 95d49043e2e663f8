"""HiFloat8 (arXiv 2409.16626, docs/references.md#hifloat8) from its bit layout, checked against en_dtypes and the golden.

The layout, written out here independently of en_dtypes:

    bit 7       sign
    then a dot (prefix) code that says how many exponent bits follow:
      0000   denormal: the remaining 3 bits M give 2^(M - 23), M = 1..7 (M = 0: zero, or NaN when signed)
      0001   exponent 0, no exponent bits, 3 mantissa bits
      001    |exponent| = 1: 1 exponent bit (its sign), 3 mantissa bits
      01     |exponent| 2..3: 2 exponent bits, 3 mantissa bits
      10     |exponent| 4..7: 3 exponent bits, 2 mantissa bits
      11     |exponent| 8..15: 4 exponent bits, 1 mantissa bit
    An exponent field is sign-magnitude: its first bit is the exponent's sign, the rest are the magnitude
    without its leading 1 (which the dot code implies). value = 2^exponent * (1 + mantissa / 2^width).
    Special codes: 0x80 NaN, 0x6F +Inf, 0xEF -Inf (0x6F would otherwise be 1.5 * 2^15).

Rounding from float32: to the nearest representable value, ties away from zero; |x| >= 40960 (the midpoint
between the largest finite value 32768 and the 49152 that 0x6F would hold) gives Inf.
"""
from fractions import Fraction
import bisect
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

en_dtypes = pytest.importorskip("en_dtypes")
HIF8 = np.dtype(en_dtypes.hifloat8)

NAN_CODE, POS_INF_CODE, NEG_INF_CODE = 0x80, 0x6F, 0xEF

# (dot code, dot length, exponent field width, mantissa width)
_DOTS = [(0b0001, 4, 0, 3), (0b001, 3, 1, 3), (0b01, 2, 2, 3), (0b10, 2, 3, 2), (0b11, 2, 4, 1)]


def hif8_decode(code: int):
    """Value of an 8-bit HiF8 code from the layout above: a Fraction, or a float for NaN / +-Inf."""
    if code == NAN_CODE:
        return math.nan
    if code == POS_INF_CODE:
        return math.inf
    if code == NEG_INF_CODE:
        return -math.inf
    sign = -1 if code & 0x80 else 1
    body = code & 0x7F  # 7 bits after the sign
    if body >> 3 == 0:  # dot 0000: denormal or zero
        m = body & 0x7
        return Fraction(0) if m == 0 else sign * Fraction(2) ** (m - 23)
    for dot, dot_len, exp_width, man_width in _DOTS:
        if body >> (7 - dot_len) == dot:
            rest = body & ((1 << (7 - dot_len)) - 1)
            mantissa = rest & ((1 << man_width) - 1)
            exp_field = rest >> man_width
            if exp_width == 0:
                exponent = 0
            else:
                exp_negative = exp_field >> (exp_width - 1)
                magnitude = (1 << (exp_width - 1)) | (exp_field & ((1 << (exp_width - 1)) - 1))
                exponent = -magnitude if exp_negative else magnitude
            return sign * Fraction(2) ** exponent * (1 + Fraction(mantissa, 1 << man_width))
    raise AssertionError(f"code {code:#04x} matches no dot code")


# Every finite non-negative value with its code, ascending: the grid that rounding picks from.
_POSITIVE = sorted((hif8_decode(c), c) for c in range(0x80) if c != POS_INF_CODE)
_POSITIVE_VALUES = [v for v, _ in _POSITIVE]
MAX_FINITE = _POSITIVE_VALUES[-1]
INF_THRESHOLD = Fraction(40960)


def hif8_encode(value) -> int:
    """Code of float `value` (exact binary value) rounded to nearest HiF8, ties away from zero."""
    if math.isnan(value):
        return NAN_CODE
    sign_bit = 0x80 if math.copysign(1.0, value) < 0 and value != 0 else 0
    if math.isinf(value):
        return POS_INF_CODE | sign_bit
    a = abs(Fraction(value))
    if a >= INF_THRESHOLD:
        return POS_INF_CODE | sign_bit
    if a >= MAX_FINITE:
        return 0x6E | sign_bit
    i = bisect.bisect_right(_POSITIVE_VALUES, a)  # _POSITIVE_VALUES[i-1] <= a < _POSITIVE_VALUES[i]
    lo, hi = _POSITIVE[i - 1], _POSITIVE[i]
    below, above = a - lo[0], hi[0] - a
    value_code = hi[1] if above <= below else lo[1]  # a tie goes up: away from zero
    return 0 if value_code == 0 else value_code | sign_bit


# Hand table: (float value, code, kind, derivation from the layout). kind: "exact" (the code holds the
# value), "tie" (the value is the midpoint of two neighbouring codes), "other" (overflow, NaN, near-ties).
HAND_TABLE = [
    (0.0, 0x00, "exact", "zero"),
    (1.0, 0x08, "exact", "0 0001 000: exponent 0, mantissa 0"),
    (-1.0, 0x88, "exact", "sign 1, then 0001 000"),
    (1.875, 0x0F, "exact", "0 0001 111: 1 + 7/8"),
    (2.0, 0x10, "exact", "0 001 0 000: exponent +1"),
    (0.5, 0x18, "exact", "0 001 1 000: exponent -1"),
    (4.0, 0x20, "exact", "0 01 0 0 000: exponent +2 (magnitude 1|0)"),
    (8.0, 0x28, "exact", "0 01 0 1 000: exponent +3"),
    (0.25, 0x30, "exact", "0 01 1 0 000: exponent -2"),
    (16.0, 0x40, "exact", "0 10 0 00 00: exponent +4, 2 mantissa bits"),
    (28.0, 0x43, "exact", "0 10 0 00 11: 16 * (1 + 3/4)"),
    (256.0, 0x60, "exact", "0 11 0 000 0: exponent +8, 1 mantissa bit"),
    (384.0, 0x61, "exact", "0 11 0 000 1: 256 * 1.5"),
    (32768.0, 0x6E, "exact", "0 11 0 111 0: exponent +15, the largest finite value"),
    (-32768.0, 0xEE, "exact", "sign 1, then 11 0 111 0"),
    (2.0 ** -8, 0x70, "exact", "0 11 1 000 0: exponent -8"),
    (2.0 ** -15, 0x7E, "exact", "0 11 1 111 0: exponent -15, the smallest normal"),
    (1.5 * 2.0 ** -15, 0x7F, "exact", "0 11 1 111 1"),
    # denormals 0 0000 MMM = 2^(M-23)
    (2.0 ** -22, 0x01, "exact", "0 0000 001: the smallest value, 2^(1-23)"),
    (2.0 ** -21, 0x02, "exact", "0 0000 010"),
    (2.0 ** -20, 0x03, "exact", "0 0000 011"),
    (2.0 ** -19, 0x04, "exact", "0 0000 100"),
    (2.0 ** -18, 0x05, "exact", "0 0000 101"),
    (2.0 ** -17, 0x06, "exact", "0 0000 110"),
    (2.0 ** -16, 0x07, "exact", "0 0000 111: 2^(7-23)"),
    (-(2.0 ** -22), 0x81, "exact", "sign 1, then 0000 001"),
    # ties, away from zero, at each mantissa width (round-to-even would choose the other neighbour)
    (1.0625, 0x09, "tie", "between 1.0 (0x08) and 1.125 (0x09), step 1/8: away -> 1.125 (even would give 1.0)"),
    (-1.0625, 0x89, "tie", "the same tie, negative: away -> -1.125"),
    (1.1875, 0x0A, "tie", "between 1.125 and 1.25: away -> 1.25 (0x0A), also the even choice"),
    (2.125, 0x11, "tie", "between 2.0 (0x10) and 2.25 (0x11), step 1/4: away -> 2.25"),
    (18.0, 0x41, "tie", "between 16 (0x40) and 20 (0x41), 2 mantissa bits, step 4: away -> 20"),
    (320.0, 0x61, "tie", "between 256 (0x60) and 384 (0x61), 1 mantissa bit, step 128: away -> 384"),
    (15.5, 0x40, "tie", "between 15 (0x2F) and 16 (0x40), across a dot-code boundary: away -> 16"),
    (1.5 * 2.0 ** -22, 0x02, "tie", "between denormals 2^-22 and 2^-21: away -> 2^-21"),
    (2.0 ** -23, 0x01, "tie", "between 0 and 2^-22: away -> 2^-22 (the smallest value)"),
    (0.99 * 2.0 ** -23, 0x00, "other", "just below that tie: 0"),
    (1.5 * 2.0 ** -16, 0x7E, "tie", "between the largest denormal 2^-16 (0x07) and the smallest normal 2^-15"),
    (-0.0, 0x00, "other", "HiF8 has no -0 (0x80 is NaN): -0 encodes as 0"),
    (-(2.0 ** -24), 0x00, "other", "a negative value that rounds to zero is 0, not 0x80"),
    # overflow
    (40959.0, 0x6E, "other", "below 40960 = (32768 + 49152) / 2: rounds to 32768"),
    (40960.0, 0x6F, "other", "the tie with the Inf code's value 49152: away -> +Inf"),
    (-40960.0, 0xEF, "other", "-Inf"),
    (65504.0, 0x6F, "other", "far above: +Inf"),
    (math.inf, 0x6F, "other", "+Inf"),
    (-math.inf, 0xEF, "other", "-Inf"),
    (math.nan, 0x80, "other", "NaN"),
]


def test_decoder_matches_the_documented_specials():
    assert hif8_decode(0x00) == 0
    assert math.isnan(hif8_decode(0x80))
    assert hif8_decode(0x6F) == math.inf and hif8_decode(0xEF) == -math.inf
    assert MAX_FINITE == 32768
    assert _POSITIVE_VALUES[1] == Fraction(2) ** -22
    # 0x00 and 0x80 aside, the 254 other codes are 126 distinct magnitudes, each with both signs,
    # plus +-Inf: every code is used once.
    assert len(set(_POSITIVE_VALUES)) == len(_POSITIVE_VALUES) == 127


@pytest.mark.parametrize("value,code,kind,why", HAND_TABLE)
def test_hand_table_is_consistent_with_the_layout(value, code, kind, why):
    assert hif8_encode(value) == code, why
    decoded = hif8_decode(code)
    if kind == "exact":
        assert decoded == Fraction(value), why
    elif kind == "tie":
        # value is the midpoint of the chosen code and its neighbour towards zero, and the chosen one is
        # the farther from zero
        a = abs(Fraction(value))
        i = _POSITIVE_VALUES.index(abs(decoded))
        assert _POSITIVE_VALUES[i - 1] < a < _POSITIVE_VALUES[i], why
        assert a - _POSITIVE_VALUES[i - 1] == _POSITIVE_VALUES[i] - a, why


@pytest.mark.parametrize("value,code,kind,why", HAND_TABLE)
def test_en_dtypes_encodes_the_hand_table(value, code, kind, why):
    got = int(np.array([value], np.float32).astype(HIF8).view(np.uint8)[0])
    assert got == code, f"{value!r}: en_dtypes gives {got:#04x}, expected {code:#04x} ({why})"


def test_en_dtypes_decodes_every_code_as_the_layout_says():
    decoded = np.arange(256, dtype=np.uint8).view(HIF8).astype(np.float64)
    for code in range(256):
        want = hif8_decode(code)
        if isinstance(want, float) and math.isnan(want):
            assert np.isnan(decoded[code]), hex(code)
        else:
            assert decoded[code] == want, (hex(code), decoded[code], want)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=1, max_size=64))
def test_en_dtypes_rounds_random_float32_like_the_layout(values):
    x = np.array(values, np.float32)
    got = x.astype(HIF8).view(np.uint8)
    for v, g in zip(x.tolist(), got.tolist()):
        assert g == hif8_encode(v), (v, hex(g), hex(hif8_encode(v)))


def test_en_dtypes_rounds_every_midpoint_away_from_zero():
    """All midpoints between neighbouring finite values, and their float32 neighbours, both signs."""
    mids = [(a + b) / 2 for a, b in zip(_POSITIVE_VALUES, _POSITIVE_VALUES[1:])]
    x = np.array([float(m) for m in mids], np.float32)
    assert all(Fraction(float(v)) == m for v, m in zip(x, mids))  # every midpoint is a float32
    x = np.concatenate([x, np.nextafter(x, 0), np.nextafter(x, np.inf)])
    x = np.concatenate([x, -x])
    got = x.astype(HIF8).view(np.uint8)
    want = np.array([hif8_encode(v) for v in x.tolist()], np.uint8)
    np.testing.assert_array_equal(got, want)


# --- the golden's hifloat8 path against the same table ---------------------------------------------------


def test_golden_hifloat8_reproduces_the_hand_table():
    """Rows whose maximum is 1, so scale = 1 / 32768 = 2^-15 exactly and x / scale = x * 2^15 exactly.

    x is bfloat16 (8 significant bits, wide exponent) so that every table value times 2^-15 is exact.
    Values above 32768 cannot arise from x / scale (|x| <= max); they are covered by the clipping test.
    """
    import ml_dtypes
    from ascend_quant_ops.golden.dynamic_quant import dynamic_quant

    entries = [(v, c) for v, c, kind, _ in HAND_TABLE if kind in ("exact", "tie") and abs(v) <= 32768]
    assert len(entries) > 30
    q = np.array([v for v, _ in entries], np.float64)
    x = np.stack([np.full(len(q), 0.0), q * 2.0 ** -15])
    x[0, 0] = 1.0
    x[1, 0] = 1.0  # replaces the table's 0.0 entry (row 0 covers zeros)
    x = x.astype(ml_dtypes.bfloat16)
    assert np.array_equal(x.astype(np.float64)[1, 1:], q[1:] * 2.0 ** -15), "table value not exact in bf16"
    y, scale = dynamic_quant(x, dst_type="hifloat8")
    assert y.dtype == HIF8
    np.testing.assert_array_equal(scale, np.float32(2.0 ** -15))
    codes = y.view(np.uint8)
    want = [0x6E] + [c for _, c in entries[1:]]  # element 0 is the maximum 1.0 -> 32768
    np.testing.assert_array_equal(codes[1], np.array(want, np.uint8))
    assert codes[0, 0] == 0x6E and not codes[0, 1:].any()


def test_golden_hifloat8_clips_instead_of_overflowing():
    """32768 is a power of two, so m / 32768 is exact and |v / scale| <= 32768, unless the scale is a
    float32 denormal that lost bits. Build one: x = 220 * 2^-70, smooth = 200 * 2^-79 (both bfloat16), so
    v = 44000 * 2^-149 (a float32 denormal), scale = v / 32768 = 1.34 * 2^-149 rounds to 2^-149 and
    q = v / scale = 44000 >= 40960: Inf without the clip, 0x6E (32768) with it."""
    import ml_dtypes
    from ascend_quant_ops.golden.dynamic_quant import dynamic_quant

    x = np.array([[220 * 2.0 ** -70, -220 * 2.0 ** -70, 0.0]], ml_dtypes.bfloat16)
    smooth = np.array([200 * 2.0 ** -79] * 3, ml_dtypes.bfloat16)
    assert x.astype(np.float64)[0, 0] * smooth.astype(np.float64)[0] == 44000 * 2.0 ** -149
    y, scale = dynamic_quant(x, smooth, dst_type="hifloat8")
    assert scale[0] == np.float32(2.0 ** -149)
    np.testing.assert_array_equal(y.view(np.uint8), [[0x6E, 0xEE, 0x00]])


def test_golden_hifloat8_nan_and_inf_codes():
    from ascend_quant_ops.golden.dynamic_quant import dynamic_quant

    x = np.array([[np.nan, 1.0, 0.0], [np.inf, 1.0, -2.0], [-np.inf, np.inf, 0.0]], np.float16)
    y, scale = dynamic_quant(x, dst_type="hifloat8")
    codes = y.view(np.uint8)
    assert np.isnan(scale[0]) and scale[1] == np.inf and scale[2] == np.inf
    np.testing.assert_array_equal(codes[0], [NAN_CODE] * 3)  # anything / NaN = NaN
    np.testing.assert_array_equal(codes[1], [NAN_CODE, 0x00, 0x00])  # Inf/Inf = NaN, finite/Inf = +-0
    np.testing.assert_array_equal(codes[2], [NAN_CODE, NAN_CODE, 0x00])
