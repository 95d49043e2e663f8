"""The CPU QLinearMatMul with b as the transposed view of an [..., N, K] weight (the Linear layout, `w.T`).

The int8 GEMM reads that storage in place at every instruction-set level: up to 4 rows as dot products of rows of
the storage, more rows through panels packed by 16 x 16 transposes of 32-bit quadruples (blocks of 64 bytes of
K). Checked here: bit-equality with the golden at N and K around the block and panel sizes (64 columns, 16
quadruples, K not a multiple of 4), every kernel path (direct, few rows with chunks of K, many rows, K split over
threads), int8 and uint8 b with zero points, batched b; and that no copy of the weight is made: the array the
kernel receives shares the weight's memory with its transposed strides (numpy API, the public API, the torch op),
no numpy allocation on the way reaches the weight's size, and the kernel itself, which used to refuse a b whose
N is not contiguous, takes the view. quant_matmul on the cpu backend runs the golden, which reads any strides: its
operands hold the weight's memory too (numpy and the torch op).
"""
import tracemalloc

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st

import ascend_quant_ops as aqo
from ascend_quant_ops import _native, cpu, torch_ops
from ascend_quant_ops.cpu import qlinear_matmul as cpu_qmm
from ascend_quant_ops.golden import qlinear_matmul as golden

ISAS = cpu.isa_levels()
INT_TYPES = (np.int8, np.uint8)


def ints(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape).astype(dtype)


def transposed(w):
    """The transposed view of w [..., N, K] (C-contiguous): b [..., K, N], K with unit stride."""
    w = np.ascontiguousarray(w)
    b = np.swapaxes(w, -1, -2)
    assert b.shape[-2] < 2 or b.strides[-2] == 1
    return b


def problem(rng, m, k, n, ta, tb, ty, batch_a=(), batch_b=()):
    """Operands with b [..., K, N] the transposed view of a fresh weight [..., N, K]; zero points away from 0 so
    that the row and column sums enter."""
    a = ints(rng, ta, batch_a + (m, k))
    weight = ints(rng, tb, batch_b + (n, k))
    b_scale = np.exp2(rng.uniform(-10, 1, (n,))).astype(np.float32)
    zb = ints(rng, tb, (n,))
    y_scale = np.float32(2.0 ** rng.uniform(-2, 8) * max(1, k) ** 0.5)
    return (a, np.float32(0.01), np.asarray(ints(rng, ta, ())), transposed(weight), b_scale, zb, y_scale,
            np.asarray(ints(rng, ty, ()))), weight


def check(args, isas=ISAS):
    want = golden.qlinear_matmul(*args)
    # an independent check of the golden on this layout: the same product with b as a contiguous [K, N] copy
    contiguous = list(args)
    contiguous[3] = np.ascontiguousarray(args[3])
    np.testing.assert_array_equal(golden.qlinear_matmul(*contiguous), want)
    for isa in isas:
        got = cpu_qmm.qlinear_matmul(*args, isa=isa)
        assert got.dtype == want.dtype and got.shape == want.shape, isa
        np.testing.assert_array_equal(got, want, err_msg=isa)


# (M, K, N): 1..4 rows (direct dot products), 5..64 (packed chunks of K), more (packed panels with all of K);
# K around one 64-byte block (16 quadruples) and not a multiple of 4; N around the 64-column panel and its
# 16-column groups
SHAPES = [(1, 1, 1), (1, 64, 64), (2, 63, 17), (3, 65, 130), (4, 129, 65), (1, 3, 200), (4, 1000, 63),
          (5, 64, 16), (6, 127, 64), (13, 66, 15), (40, 300, 129), (64, 17, 1), (65, 64, 64), (130, 131, 70),
          (200, 4, 3)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("types", [(np.uint8, np.int8, np.uint8), (np.int8, np.uint8, np.int8),
                                   (np.uint8, np.uint8, np.uint8), (np.int8, np.int8, np.int8)])
def test_transposed_b_equals_the_golden(shape, types):
    rng = np.random.default_rng(sum(shape))
    args, _ = problem(rng, *shape, *types)
    check(args)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 80), k=st.integers(0, 300), n=st.integers(1, 200),
       types=st.sampled_from([(ta, tb, ty) for ta in INT_TYPES for tb in INT_TYPES for ty in INT_TYPES]),
       batches=st.sampled_from([((), ()), ((3,), ()), ((), (2,)), ((2, 1), (3,)), ((2,), (2,))]))
def test_random_transposed_b_equals_the_golden(seed, m, k, n, types, batches):
    rng = np.random.default_rng(seed)
    args, _ = problem(rng, m, k, n, *types, batch_a=batches[0], batch_b=batches[1])
    check(args)


@pytest.mark.parametrize("batches", [((), (3,)), ((2, 1), (3,)), ((2,), (2,)), ((3,), ())])
@pytest.mark.parametrize("m", [1, 7, 70])
def test_batched_transposed_b(batches, m):
    rng = np.random.default_rng(m)
    args, _ = problem(rng, m, 77, 90, np.uint8, np.int8, np.uint8, batch_a=batches[0], batch_b=batches[1])
    check(args)


@pytest.mark.parametrize("shape", [(1, 3001, 2100), (4, 2049, 700), (20, 3001, 2100), (150, 300, 200),
                                   (3, 1001, 700)])
@pytest.mark.parametrize("b_signed", [True, False])
def test_every_thread_count_and_isa_level(shape, b_signed):
    """The kernel called directly with a transposed b and 1 .. 7 threads at every level: K split over threads for
    few rows (direct and packed), chunks of K, many rows split by rows and columns."""
    m, k, n = shape
    rng = np.random.default_rng(m + k + n)
    tb = np.int8 if b_signed else np.uint8
    a = ints(rng, np.uint8, (m, k))
    weight = ints(rng, tb, (n, k))
    b = transposed(weight)
    za, zb = ints(rng, np.uint8, (m,)), ints(rng, tb, (n,))
    a_scale, b_scale = np.exp2(rng.uniform(-10, 1, (m,))).astype(np.float32), np.exp2(
        rng.uniform(-10, 1, (n,))).astype(np.float32)
    want = golden.qlinear_matmul(a, a_scale, za, np.ascontiguousarray(b), b_scale, zb, np.float32(0.5), np.uint8(17))
    mult = ((a_scale[:, None] * b_scale[None, :]) / np.float32(0.5))[None]  # the golden's order
    for isa in range(len(ISAS)):
        for threads in (1, 2, 3, 7):
            y = np.empty((1, m, n), np.uint8)
            _native.cpu_qlinear_matmul(a[None], False, b[None].view(np.uint8), b_signed, za.astype(np.int32)[None],
                                       zb.astype(np.int32)[None], mult, np.full((1, 1, 1), 17, np.int32),
                                       np.zeros((1, 6), np.int64), y, 0, 255, isa, threads)
            np.testing.assert_array_equal(y[0], want, err_msg=f"{ISAS[isa]}, {threads} threads")


def test_the_kernel_refuses_b_with_neither_axis_contiguous():
    b = np.zeros((8, 8, 2), np.uint8)[..., 0]  # strides (16, 2): neither K nor N contiguous
    with pytest.raises(ValueError, match="b's N or K"):
        _native.cpu_qlinear_matmul(np.zeros((1, 3, 8), np.uint8), False, b[None], True, np.zeros((1, 1), np.int32),
                                   np.zeros((1, 1), np.int32), np.ones((1, 1, 1), np.float32),
                                   np.zeros((1, 1, 1), np.int32), np.zeros((1, 6), np.int64),
                                   np.empty((1, 3, 8), np.uint8), 0, 255)
    # ... and the Python side copies such a b (bit-equal results)
    rng = np.random.default_rng(5)
    args, _ = problem(rng, 5, 40, 30, np.uint8, np.int8, np.uint8)
    args = list(args)
    args[3] = np.repeat(np.ascontiguousarray(args[3]), 2, axis=1)[:, ::2]
    check(args)


# ------------------------------------------------------------------------------------------------ no copy

N_BIG, K_BIG = 1024, 2048  # a 2 MiB weight


@pytest.fixture
def kernel_spy(monkeypatch):
    """Records the b array every call of the compiled kernel receives."""
    seen = []
    original = _native.cpu_qlinear_matmul

    def spy(a, a_signed, b, *rest):
        seen.append(b)
        return original(a, a_signed, b, *rest)

    monkeypatch.setattr(_native, "cpu_qlinear_matmul", spy)
    return seen


def _serving_args(m, rng):
    weight = ints(rng, np.int8, (N_BIG, K_BIG))
    a = ints(rng, np.uint8, (m, K_BIG))
    return (a, np.float32(0.02), np.uint8(128), weight.T, np.full(N_BIG, 0.001, np.float32), np.zeros(N_BIG, np.int8),
            np.float32(0.5), np.uint8(128)), weight


def _peak_numpy_bytes(fn):
    """The peak of numpy's (and Python's) allocations during fn(), after a first call (lazy imports, caches)."""
    fn()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("m", [1, 4, 37, 300])
def test_the_weight_is_not_copied(kernel_spy, m):
    rng = np.random.default_rng(m)
    args, weight = _serving_args(m, rng)
    want = golden.qlinear_matmul(*args)
    got = {}
    for name, call in (("cpu module", lambda: cpu_qmm.qlinear_matmul(*args)),
                       ("api", lambda: aqo.qlinear_matmul(*args, backend="cpu"))):
        kernel_spy.clear()
        peak = _peak_numpy_bytes(lambda: got.__setitem__(name, call()))
        np.testing.assert_array_equal(got[name], want, err_msg=name)
        assert kernel_spy and all(np.shares_memory(b, weight) and b.strides[-2:] == (1, K_BIG)
                                  for b in kernel_spy), name  # the storage itself, on every call
        # every numpy allocation of the call (validation, parameters, y) together stays far below the weight
        assert peak < weight.nbytes // 4, (name, peak)


def test_the_peak_memory_bound_sees_a_copy():
    # the measurement above would see a copy of the weight: the same call with b given as a contiguous copy
    # made inside the measured function peaks at least at the weight's size
    rng = np.random.default_rng(1)
    args, weight = _serving_args(4, rng)
    peak = _peak_numpy_bytes(lambda: cpu_qmm.qlinear_matmul(*args[:3], np.ascontiguousarray(args[3]), *args[4:]))
    assert peak >= weight.nbytes


def test_the_torch_op_passes_the_weight_storage(kernel_spy):
    rng = np.random.default_rng(2)
    args, weight = _serving_args(3, rng)
    want = golden.qlinear_matmul(*args)
    weight_t = torch.from_numpy(weight)
    t = torch_ops.from_numpy
    y = torch_ops.qlinear_matmul(t(args[0]), t(np.asarray(args[1])), t(np.asarray(args[2])), weight_t.t(),
                                 t(args[4]), t(np.asarray(args[5])), t(np.asarray(args[6])), t(np.asarray(args[7])))
    np.testing.assert_array_equal(torch_ops.to_numpy(y), want)
    (b,) = kernel_spy
    assert np.shares_memory(b, weight_t.numpy()) and b.strides[-2:] == (1, K_BIG)
    kernel_spy.clear()
    y = torch.ops.ascend_quant_ops.qlinear_matmul(t(args[0]), t(np.asarray(args[1])), t(np.asarray(args[2])),
                                                  weight_t.t(), t(args[4]), t(np.asarray(args[5])),
                                                  t(np.asarray(args[6])), t(np.asarray(args[7])))
    np.testing.assert_array_equal(torch_ops.to_numpy(y), want)
    (b,) = kernel_spy
    assert np.shares_memory(b, weight_t.numpy()) and b.strides[-2:] == (1, K_BIG)


# ------------------------------------------------------------------------------------------------ quant_matmul

@pytest.mark.parametrize("m, k, n", [(1, 65, 17), (5, 64, 64), (70, 129, 130)])
@pytest.mark.parametrize("tb", INT_TYPES)
def test_quant_matmul_takes_the_weight_view_as_is(monkeypatch, m, k, n, tb):
    """quant_matmul on the cpu backend (the golden, which reads any strides): the operands it computes on hold the
    weight's own memory, from numpy and from the torch op, and the result is the golden's on a contiguous b."""
    from ascend_quant_ops import _backend_cpu
    from ascend_quant_ops.golden import quant_matmul as golden_qm

    seen = []
    original = _backend_cpu.quant_matmul
    monkeypatch.setattr(_backend_cpu, "quant_matmul", lambda o: seen.append(o.b) or original(o))
    rng = np.random.default_rng(m + k + n)
    a = ints(rng, np.int8, (m, k))
    weight = ints(rng, tb, (n, k))
    a_scale = np.exp2(rng.uniform(-8, 0, (m,))).astype(np.float32)
    b_scale = np.exp2(rng.uniform(-8, 0, (n,))).astype(np.float32)
    zb = ints(rng, tb, (n,))
    want = golden_qm.quant_matmul(a, a_scale, None, np.ascontiguousarray(weight.T), b_scale, zb, out_dtype="float32")
    got = aqo.quant_matmul(a, a_scale, None, weight.T, b_scale, zb, out_dtype="float32", backend="cpu")
    np.testing.assert_array_equal(got, want)
    t = torch_ops.from_numpy
    weight_t = torch.from_numpy(weight)
    got = torch.ops.ascend_quant_ops.quant_matmul(t(a), t(a_scale), None, weight_t.t(), t(b_scale), t(zb),
                                                  out_dtype=torch.float32)
    np.testing.assert_array_equal(torch_ops.to_numpy(got), want)
    assert len(seen) == 2 and all(np.shares_memory(b, weight) for b in seen)
