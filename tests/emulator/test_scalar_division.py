"""The kernels' scalar float division (DivideF32 in op_kernel/aqo_kernel_common.h) is IEEE float32 division,
correctly rounded to nearest even with gradual underflow, computed with integer arithmetic so that the bit-exact
paths that divide on the scalar unit (the requantization multiplier, DynamicQuant's scalar rows) do not rest on the
scalar unit's own float division, whose rounding no document states. Reference: numpy's float32 division (IEEE).
The helpers beside it (F32IsZero, F32PositiveBelow, F32TimesPow2, F32Sub, F32Less) are the same for DynamicQuant's
decisions on values that may be subnormal: integer arithmetic, so that they hold whether or not the scalar unit keeps
subnormals. The emulator runs the kernels' scalar code natively, keeping them; here the helpers also run with the
host's float operations flushing subnormal operands and results (x86 DAZ / FTZ), beside the native operations they
replace, which then go wrong on subnormals."""
import numpy as np
import pytest

import ascend_quant_ops_testing as _testing  # built by tests/emulator/conftest.py where missing


def _divide(a, b):
    a = np.ascontiguousarray(a, dtype=np.float32)
    b = np.ascontiguousarray(b, dtype=np.float32)
    return np.frombuffer(_testing.scalar_divide_f32(a.tobytes(), b.tobytes()), dtype=np.float32)


def _same(got, want):
    """Bitwise equality, any NaN matching any NaN."""
    both_nan = np.isnan(got) & np.isnan(want)
    return both_nan | (got.view(np.uint32) == want.view(np.uint32))


def _random_floats(rng, n, lo_exp, hi_exp):
    """Floats of random sign, significand and (binary) exponent in [lo_exp, hi_exp], subnormals included."""
    bits = rng.integers(0, 1 << 23, n, dtype=np.uint64)
    exp = rng.integers(lo_exp, hi_exp + 1, n)
    sign = rng.integers(0, 2, n, dtype=np.uint64) << 31
    field = np.clip(exp + 127, 0, 254).astype(np.uint64)
    return (sign | (field << 23) | bits).astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("lo_exp,hi_exp,b_lo,b_hi", [(-126, 127, -126, 127), (-149, -100, -126, 127),
                                                     (-20, 20, -126, 127), (100, 127, -126, 127),
                                                     (-149, 127, -149, -120), (-149, -120, -149, -120)])
def test_random_operands_match_ieee_division(lo_exp, hi_exp, b_lo, b_hi):
    # (the testing binding's native fallback flushes subnormals, as a scalar unit might: only NaN results use it)
    rng = np.random.default_rng([lo_exp + 200, hi_exp + 200, b_lo + 200])
    a = _random_floats(rng, 200_000, lo_exp, hi_exp)
    b = _random_floats(rng, 200_000, b_lo, b_hi)
    with np.errstate(all="ignore"):
        want = a / b
    got = _divide(a, b)
    bad = ~_same(got, want)
    assert not bad.any(), list(zip(a[bad][:5], b[bad][:5], got[bad][:5], want[bad][:5]))


def test_results_at_the_rounding_boundaries():
    # quotients within an ulp of a tie: b = a / (x + half an ulp) around simple significands, in every range
    # (normal, the subnormal range, the overflow edge), and the exact ties of small integers
    rng = np.random.default_rng(7)
    a = _random_floats(rng, 100_000, -30, 30)
    x = _random_floats(rng, 100_000, -140, 127)
    with np.errstate(all="ignore"):
        b = (a.astype(np.float64) / (np.abs(x).astype(np.float64) * (1 + 2.0 ** -24))).astype(np.float32)
        want = a / b
    got = _divide(a, b)
    bad = ~_same(got, want)
    assert not bad.any(), list(zip(a[bad][:5], b[bad][:5], got[bad][:5], want[bad][:5]))
    # exact subnormal quotients whose rounding bit is set and whose lower bits decide (k x 2^-149 / 2^j): a rounding
    # that looked only at the rounding bit and the remainder would round the wrong way
    k = np.arange(1, 4097, dtype=np.uint32)
    sub = k.view(np.float32)
    for j in range(1, 12):
        den = np.full_like(sub, 2.0 ** j)
        assert _same(_divide(sub, den), sub / den).all(), j
    ints = np.arange(1, 4097, dtype=np.float32)
    for d in (2.0, 3.0, 10.0, 127.0, 255.0, 2.0 ** 20):
        den = np.full_like(ints, d)
        assert _same(_divide(ints, den), ints / den).all(), d


def test_the_edges_of_the_float_range():
    tiny, big = np.float32(2.0 ** -149), np.float32(3.4028235e38)
    smallest_normal = np.float32(2.0 ** -126)
    cases = [
        (tiny, np.float32(2.0)),        # half the smallest subnormal: a tie, to even (0)
        (np.float32(3 * 2.0 ** -149), np.float32(2.0)),  # 1.5 units: a tie, to even (2 units)
        (smallest_normal, np.float32(1.0 + 2.0 ** -23)),  # just below the normal range: rounds up into it
        (big, np.float32(0.5)),          # overflow to Inf
        (big, np.float32(1.0 - 2.0 ** -24)),  # just above the largest float: rounds to Inf or the largest
        (tiny, big),                     # underflow to 0
        (np.float32(-1.0), np.float32(3.0)),
        (np.float32(1.0), tiny),         # beyond the range: Inf
        (np.float32(0.0), np.float32(5.0)), (np.float32(-0.0), np.float32(5.0)),
        (np.float32(5.0), np.float32(0.0)), (np.float32(5.0), np.float32(-0.0)),
        (np.float32(0.0), np.float32(0.0)),
        (np.float32(np.inf), np.float32(2.0)), (np.float32(2.0), np.float32(-np.inf)),
        (np.float32(np.inf), np.float32(np.inf)), (np.float32(np.nan), np.float32(1.0)),
        (np.float32(1.0), np.float32(np.nan)),
        (np.float32(0.0), tiny), (np.float32(-0.0), -tiny),   # 0 / subnormal: 0 (a flushing unit: 0 / 0 = NaN)
        (tiny, np.float32(0.0)), (tiny, np.float32(np.inf)),   # subnormal / 0: Inf; subnormal / Inf: 0
        (np.float32(np.inf), tiny), (-tiny, np.float32(-0.0)),
    ]
    a = np.array([c[0] for c in cases], np.float32)
    b = np.array([c[1] for c in cases], np.float32)
    with np.errstate(all="ignore"):
        want = a / b
    got = _divide(a, b)
    assert _same(got, want).all(), [(x, y, g, w) for x, y, g, w in zip(a, b, got, want) if not _same(g, w)]


FLUSH = [False] + ([True] if _testing.scalar_can_flush() else [])  # the host flushing subnormals as a scalar unit might


@pytest.mark.parametrize("flush", FLUSH, ids=lambda f: "flushing" if f else "keeping")
def test_bit_helpers_for_values_that_may_be_subnormal(flush):
    # DynamicQuant's tiny rows (bfloat16 maxima below 2^-64) decide on the scalar unit whether a row is tiny or zero
    # and lift its scale by 2^64 with these integer helpers, so a scalar unit that flushed subnormal operands in its
    # comparisons or multiplies decides the same: run with the host's float operations flushing subnormals too (x86
    # DAZ / FTZ), the native forms beside them showing that the flush is on. Reference: numpy's IEEE comparisons and
    # exact products.
    rng = np.random.default_rng(11)
    v = np.concatenate([_random_floats(rng, 100_000, -149, -100), _random_floats(rng, 100_000, -126, 127),
                        np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0 ** -149, 2.0 ** -64, -(2.0 ** -140)],
                                 np.float32)]).astype(np.float32)
    limit = np.float32(2.0 ** -64)
    zero, below, times, native_below, native_times = _testing.scalar_bit_helpers(v.tobytes(), float(limit), 64, flush)
    zero = np.frombuffer(zero, np.uint8).astype(bool)
    below = np.frombuffer(below, np.uint8).astype(bool)
    times = np.frombuffer(times, np.float32)
    np.testing.assert_array_equal(zero, v == 0)
    with np.errstate(invalid="ignore"):
        want_below = (v > 0) & (v < limit)
    np.testing.assert_array_equal(below, want_below)
    subnormal = (v != 0) & (np.abs(v) < np.float32(2.0 ** -126))
    assert below[subnormal & (v > 0)].all() and not zero[subnormal].any()
    with np.errstate(over="ignore", invalid="ignore"):
        want = (v.astype(np.float64) * 2.0 ** 64).astype(np.float32)  # exact in float64, one rounding at most
    assert _same(times, want).all()
    # the lifted subnormals are normal floats: exact, the significand kept
    lifted = times[subnormal]
    assert (np.abs(lifted) >= np.float32(2.0 ** -126)).all()
    np.testing.assert_array_equal(lifted.astype(np.float64), v[subnormal].astype(np.float64) * 2.0 ** 64)
    # the native forms: right while the host keeps subnormals, wrong on them while it flushes
    native_below = np.frombuffer(native_below, np.uint8).astype(bool)
    native_times = np.frombuffer(native_times, np.float32)
    assert (native_below[subnormal] == want_below[subnormal]).all() != flush
    assert _same(native_times[subnormal], want[subnormal]).all() != flush


@pytest.mark.parametrize("flush", FLUSH, ids=lambda f: "flushing" if f else "keeping")
@pytest.mark.parametrize("lo_exp,hi_exp", [(-149, -100), (-149, 127), (-30, 30), (-130, -120)])
def test_subtraction_and_order_match_ieee(lo_exp, hi_exp, flush):
    # DynamicQuant's scalar fallback of an asymmetric row (a range below 2^-64) takes max - min and orders its values
    # with these (integer arithmetic: a scalar unit that flushed subnormal operands gives the same; run with the host
    # flushing too). Reference: numpy's IEEE float32 subtraction and comparison; exact cancellations, equal operands,
    # zeros of both signs, Inf and NaN.
    rng = np.random.default_rng([lo_exp + 200, hi_exp + 200])
    a = _random_floats(rng, 200_000, lo_exp, hi_exp)
    b = _random_floats(rng, 200_000, lo_exp, hi_exp)
    b[:2000] = a[:2000]                                   # x - x = +0
    b[2000:4000] = -a[2000:4000]                          # x + x
    b[4000:6000] = np.nextafter(a[4000:6000], np.float32(np.inf))  # cancellation to one ulp
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0 ** -149, -(2.0 ** -149), 2.0 ** -126],
                        np.float32)
    a = np.concatenate([a, np.repeat(specials, len(specials))]).astype(np.float32)
    b = np.concatenate([b, np.tile(specials, len(specials))]).astype(np.float32)
    diff, less, native_diff, _ = _testing.scalar_sub_less_f32(a.tobytes(), b.tobytes(), flush)
    diff = np.frombuffer(diff, np.float32)
    less = np.frombuffer(less, np.uint8).astype(bool)
    with np.errstate(all="ignore"):
        want = a - b
    bad = ~_same(diff, want)
    assert not bad.any(), (a[bad][:5], b[bad][:5], diff[bad][:5], want[bad][:5])
    ordered = ~(np.isnan(a) | np.isnan(b))
    np.testing.assert_array_equal(less[ordered], (a < b)[ordered])
    # the native subtraction: IEEE's while the host keeps subnormals, not on them while it flushes
    subnormal = ((a != 0) & (np.abs(a) < np.float32(2.0 ** -126))) | ((b != 0) & (np.abs(b) < np.float32(2.0 ** -126)))
    assert _same(np.frombuffer(native_diff, np.float32)[subnormal], want[subnormal]).all() != flush
