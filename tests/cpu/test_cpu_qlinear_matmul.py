"""The CPU QLinearMatMul (ascend_quant_ops.cpu.qlinear_matmul, an int8 GEMM) against independent references.

The golden's own suites run on the fast path in test_golden_suites_qlinear_matmul.py (small shapes). Here: shapes
that reach every part of the kernel (tiles of 6 rows and their tails, 64-column panels and partial ones, K not a
multiple of 4, several chunks of K, rows and columns split over threads, batches folded into rows or not), every
int8 / uint8 combination with zero points at the ends of their ranges (where the mapping to unsigned x signed
and the zero-point sums matter), every parameter layout; references: the golden, onnxruntime, an exact int64
implementation, and the int32 wrap-around at K >= 33,026 against all three.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ascend_quant_ops import _native, cpu
from ascend_quant_ops.cpu import qlinear_matmul as cpu_qmm
from ascend_quant_ops.errors import ConstraintError
from ascend_quant_ops.golden import qlinear_matmul as golden

ISAS = cpu.isa_levels()
INT_TYPES = (np.int8, np.uint8)


def ints(rng, dtype, shape, extremes=False, lo=None, hi=None):
    info = np.iinfo(dtype)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    if extremes:
        return rng.choice(np.array([lo, hi], np.int64), shape).astype(dtype)
    return rng.integers(lo, hi + 1, shape).astype(dtype)


def zero_point(rng, dtype, shape):
    """Zero points where the kernel's mapped zero points vanish or are extreme, else random."""
    info = np.iinfo(dtype)
    choice = rng.integers(0, 4)
    if choice == 0:
        return np.zeros(shape, dtype)
    if choice == 1:  # the value that maps to 0 (-128 -> unsigned 0, 128 -> signed 0)
        return np.full(shape, info.min if dtype == np.int8 else 128, dtype)
    if choice == 2:
        return ints(rng, dtype, shape, extremes=True)
    return ints(rng, dtype, shape)


def scales(rng, shape):
    return np.exp2(rng.uniform(-10, 1, shape)).astype(np.float32)


def problem(rng, m, k, n, ta, tb, ty, *, a_param="tensor", b_param="column", y_param="tensor", batch_a=(),
            batch_b=(), extremes=False):
    a = ints(rng, ta, batch_a + (m, k), extremes)
    b = ints(rng, tb, batch_b + (k, n), extremes)
    a_shape = {"tensor": (), "row": (m,), "row-batched": batch_a + (m, 1)}[a_param]
    b_shape = {"tensor": (), "column": (n,), "column-batched": batch_b + (1, n)}[b_param]
    out_batch = np.broadcast_shapes(batch_a, batch_b)
    y_shape = {"tensor": (), "row": (m, 1), "column": (n,), "element": out_batch + (m, n)}[y_param]
    y_scale = np.exp2(rng.uniform(-2, 8, y_shape)).astype(np.float32) * np.float32(max(1, k) ** 0.5)
    return (a, scales(rng, a_shape), zero_point(rng, ta, a_shape), b, scales(rng, b_shape),
            zero_point(rng, tb, b_shape), y_scale.astype(np.float32), ints(rng, ty, y_shape))


def check(args, isas=ISAS):
    want = golden.qlinear_matmul(*args)
    for isa in isas:
        got = cpu_qmm.qlinear_matmul(*args, isa=isa)
        assert got.dtype == want.dtype and got.shape == want.shape, isa
        np.testing.assert_array_equal(got, want, err_msg=isa)
    return want


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 40), k=st.integers(0, 300), n=st.integers(1, 200),
       types=st.sampled_from([(ta, tb, ty) for ta in INT_TYPES for tb in INT_TYPES for ty in INT_TYPES]),
       a_param=st.sampled_from(["tensor", "row", "row-batched"]),
       b_param=st.sampled_from(["tensor", "column", "column-batched"]),
       y_param=st.sampled_from(["tensor", "row", "column", "element"]),
       batches=st.sampled_from([((), ()), ((3,), ()), ((), (2,)), ((2, 1), (3,)), ((2,), (2,))]),
       extremes=st.booleans())
def test_equals_the_golden(seed, m, k, n, types, a_param, b_param, y_param, batches, extremes):
    rng = np.random.default_rng(seed)
    args = problem(rng, m, k, n, *types, a_param=a_param, b_param=b_param, y_param=y_param, batch_a=batches[0],
                   batch_b=batches[1], extremes=extremes)
    check(args)


@pytest.mark.parametrize("shape", [(1, 1000, 4100), (3, 999, 2050), (7, 1203, 700), (13, 517, 130),
                                   (500, 64, 10), (61, 77, 65), (6, 4, 64), (1, 3, 1)])
@pytest.mark.parametrize("types", [(np.uint8, np.int8, np.uint8), (np.uint8, np.uint8, np.uint8),
                                   (np.int8, np.int8, np.int8), (np.int8, np.uint8, np.int8)])
def test_kernel_structure_shapes(shape, types):
    """Several chunks of K (long K with wide N), partial panels, tails of 1..5 rows, few columns and many rows
    (rows split over threads), K not a multiple of 4."""
    rng = np.random.default_rng(sum(shape))
    check(problem(rng, *shape, *types, a_param="row", y_param="column", extremes=True))
    check(problem(rng, *shape, *types, a_param="tensor", b_param="tensor"))


@pytest.mark.parametrize("shape", [(37, 801, 333), (150, 300, 200), (20, 3001, 2100), (3, 1001, 700),
                                   (70, 64, 4100)])
def test_every_thread_count_and_isa_level(shape):
    """The kernel called directly with 1 .. 7 threads at every ISA level: one task with many rows (B packed with
    all of K), few rows with several chunks of K, the direct path, tasks split by rows and by columns."""
    m, k, n = shape
    rng = np.random.default_rng(m + k + n)
    a = ints(rng, np.uint8, (m, k))
    b = ints(rng, np.uint8, (k, n))
    za = ints(rng, np.uint8, (m,))
    zb = ints(rng, np.uint8, (n,))
    a_scale, b_scale = scales(rng, (m,)), scales(rng, (n,))
    want = golden.qlinear_matmul(a, a_scale, za, b, b_scale, zb, np.float32(0.5), np.uint8(17))
    mult = ((a_scale[:, None] * b_scale[None, :]) / np.float32(0.5))[None]  # the golden's order
    for isa in range(len(ISAS)):
        for threads in (1, 2, 3, 7):
            y = np.empty((1, m, n), np.uint8)
            _native.cpu_qlinear_matmul(a[None], False, b[None], False, za.astype(np.int32)[None],
                                       zb.astype(np.int32)[None], mult, np.full((1, 1, 1), 17, np.int32),
                                       np.zeros((1, 6), np.int64), y, 0, 255, isa, threads)
            np.testing.assert_array_equal(y[0], want, err_msg=f"{ISAS[isa]}, {threads} threads")


ORT_TYPES = [(np.uint8, np.uint8, np.uint8), (np.uint8, np.int8, np.uint8), (np.int8, np.int8, np.int8)]


@pytest.mark.parametrize("shape", [(1, 4096, 300), (16, 777, 513), (130, 256, 100)])
@pytest.mark.parametrize("types", ORT_TYPES)
def test_equals_onnxruntime(ort_qlinear_matmul, shape, types):
    """onnxruntime's CPU kernel on the combinations it implements (a and y per tensor, b per tensor or per
    column). b of u8 x s8 stays in [-64, 63]: on x86 without VNNI onnxruntime adds pairs of products with int16
    saturation there, and only then is it exact."""
    rng = np.random.default_rng(shape[1])
    ta, tb, ty = types
    m, k, n = shape
    for b_param in ("tensor", "column"):
        args = list(problem(rng, m, k, n, ta, tb, ty, b_param=b_param))
        if (ta, tb) == (np.uint8, np.int8):
            args[3] = ints(rng, np.int8, (k, n), lo=-64, hi=63)
        args[6] = np.asarray(args[6])
        want = ort_qlinear_matmul(*args)
        np.testing.assert_array_equal(check(args), want)


@pytest.mark.parametrize("k", [33026, 33027, 65537])
@pytest.mark.parametrize("types", [(np.uint8, np.uint8), (np.uint8, np.int8), (np.int8, np.int8), (np.int8, np.uint8)])
def test_int32_wraparound(exact_qlinear_matmul, ort_qlinear_matmul, k, types):
    """|sum| beyond 2^31 from K = 33,026 on (255 * 255 per term): the int32 result wraps exactly as the golden's,
    the exact int64 reference's and onnxruntime's (where it implements the types). No K split is needed: the
    kernel adds modulo 2^32 throughout (the file comment of python/csrc/cpu_qlinear_matmul.cpp)."""
    ta, tb = types
    a_info, b_info = np.iinfo(ta), np.iinfo(tb)
    rng = np.random.default_rng(k)
    a = np.full((3, k), a_info.max, ta)
    a[1] = ints(rng, ta, k, extremes=True)
    a[2, ::7] = a_info.min
    b = np.full((k, 70), b_info.min, tb)
    b[:, 1] = ints(rng, tb, k, extremes=True)
    b[::3, 2] = b_info.max
    za, zb = np.array(a_info.min, ta), np.array(b_info.max, tb)
    exact_sums = (a.astype(np.int64) - int(za)) @ (b.astype(np.int64) - int(zb))
    assert np.abs(exact_sums).max() >= 2 ** 31, "the case must overflow int32"
    ty = ta
    args = (a, np.float32(2.0 ** -20), za, b, np.float32(1.0), zb, np.float32(1.0), np.array(3, ty))
    want = check(args)
    np.testing.assert_array_equal(want, exact_qlinear_matmul(*args))
    if (ta, tb, ty) in ORT_TYPES:
        np.testing.assert_array_equal(want, ort_qlinear_matmul(*args))


LAYOUTS = {
    "fortran b": lambda a, b: (a, np.asfortranarray(b)),
    "strided a": lambda a, b: (np.repeat(a, 2, axis=-1)[..., ::2], b),
    "transposed views": lambda a, b: (np.ascontiguousarray(a.T).T, np.ascontiguousarray(b.T).T),
    "negative strides": lambda a, b: (a[::-1].copy()[::-1], b[:, ::-1].copy()[:, ::-1]),
    "read-only": lambda a, b: (np.lib.stride_tricks.as_strided(a, writeable=False),
                               np.lib.stride_tricks.as_strided(b, writeable=False)),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_memory_layouts(layout):
    rng = np.random.default_rng(9)
    args = list(problem(rng, 19, 70, 90, np.uint8, np.int8, np.uint8, a_param="row"))
    args[0], args[3] = LAYOUTS[layout](args[0], args[3])
    check(args)


def test_big_endian_scales():
    rng = np.random.default_rng(10)
    args = list(problem(rng, 9, 33, 40, np.int8, np.int8, np.int8))
    for i in (1, 4, 6):
        args[i] = np.asarray(args[i]).astype(np.asarray(args[i]).dtype.newbyteorder(">"))
    check(args)


@pytest.mark.parametrize("y_param", ["row", "element"])
def test_batches_that_cannot_fold_into_rows(y_param):
    """b without a batch but a y parameter that varies by batch entry and row: one product per batch entry."""
    rng = np.random.default_rng(4)
    args = problem(rng, 20, 50, 70, np.uint8, np.uint8, np.int8, a_param="row-batched", y_param=y_param,
                   batch_a=(2, 3))
    check(args)


def test_vectors_and_empty_shapes():
    rng = np.random.default_rng(8)
    a = ints(rng, np.uint8, (30,))
    b = ints(rng, np.int8, (30,))
    check((a, np.float32(0.1), np.uint8(3), b, np.float32(0.2), np.int8(-2), np.float32(0.5), np.uint8(7)))
    for a_shape, b_shape in (((0, 5), (5, 4)), ((3, 5), (5, 0)), ((2, 0, 5), (5, 3)), ((3, 0), (0, 4))):
        args = (np.ones(a_shape, np.int8), np.float32(1), np.int8(0), np.ones(b_shape, np.int8), np.float32(1),
                np.int8(0), np.float32(1), np.int8(5))
        check(args)


def test_float8_runs_on_the_golden():
    import ml_dtypes

    a = np.arange(12, dtype=np.float32).reshape(3, 4).astype(ml_dtypes.float8_e4m3fn)
    b = np.ones((4, 2), np.int8)
    args = (a, np.float32(1), np.zeros((), ml_dtypes.float8_e4m3fn), b, np.float32(1), np.int8(0), np.float32(1),
            np.int8(0))
    check(args)


def test_same_errors_as_the_golden():
    ok = (np.ones((2, 3), np.uint8), np.float32(1), np.uint8(0), np.ones((3, 4), np.int8), np.float32(1),
          np.int8(0), np.float32(1), np.uint8(0))
    bad = [
        {0: np.ones((2, 3), np.int16)},
        {3: np.ones((4, 4), np.int8)},
        {2: np.int8(0)},
        {1: np.float32(0)},
        {4: np.ones(3, np.float32), 5: np.zeros(3, np.int8)},
        {6: np.float32(1e-45)},
    ]
    for change in bad:
        args = [change.get(i, v) for i, v in enumerate(ok)]
        with pytest.raises(Exception) as want:
            golden.qlinear_matmul(*args)
        with pytest.raises(type(want.value)) as got:
            cpu_qmm.qlinear_matmul(*args)
        assert str(got.value) == str(want.value)


def test_unknown_isa_is_refused():
    args = (np.ones((2, 3), np.uint8), np.float32(1), np.uint8(0), np.ones((3, 4), np.int8), np.float32(1),
            np.int8(0), np.float32(1), np.uint8(0))
    with pytest.raises(ConstraintError, match="isa"):
        cpu_qmm.qlinear_matmul(*args, isa="sse1")


def test_without_the_kernel_the_golden_runs(monkeypatch):
    monkeypatch.setattr(cpu_qmm, "kernel", lambda name: None)
    check(problem(np.random.default_rng(2), 5, 9, 7, np.uint8, np.int8, np.uint8))
