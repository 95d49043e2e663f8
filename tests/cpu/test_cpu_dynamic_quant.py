"""The fused CPU DynamicQuant (ascend_quant_ops.cpu.dynamic_quant) against the golden, byte for byte.

The golden's own suites run on the fast path in test_golden_suites_dynamic_quant.py (short rows, independent
references). Here: rows long enough for every vector-loop shape (full vectors, tails, the 64-element unrolled
loops), any bit pattern, every dst type, both modes, smooth scales, every ISA level; multi-threaded calls;
memory layouts; the float environment; the torch op's kernel.
"""
import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ascend_quant_ops import _native, cpu
from ascend_quant_ops.cpu import dynamic_quant as cpu_dq
from ascend_quant_ops.errors import ConstraintError, DTypeError
from ascend_quant_ops.golden import dynamic_quant as golden

DSTS = ["int8", "float8_e4m3fn", "float8_e5m2", "hifloat8"]
SRCS = [np.float16, ml_dtypes.bfloat16]
ISAS = cpu.isa_levels()


def assert_same(got, want):
    """Same dtypes, shapes and bytes; float32 scale / offset compare bit for bit except that any NaN equals any
    NaN (the golden's NaN payload and sign come from numpy's reduction order, which no rule fixes)."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        if w.dtype == np.float32:
            g_bits = np.where(np.isnan(g), np.float32(np.nan), g).view(np.uint32)
            w_bits = np.where(np.isnan(w), np.float32(np.nan), w).view(np.uint32)
            np.testing.assert_array_equal(g_bits, w_bits)
        else:
            np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))


def random_x(rng, shape, src, kind):
    if kind == "bits":  # every bit pattern: subnormals, signed zeros, NaN, Inf
        return rng.integers(0, 1 << 16, shape, dtype=np.uint16).view(src)
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 4)).astype(src)
    if kind == "special" and x.size:
        flat = x.reshape(-1)
        picks = rng.integers(0, flat.size, 1 + flat.size // 50)
        flat[picks] = rng.choice(np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30], np.float32), picks.size)
        if x.shape[-1]:
            x.reshape(-1, x.shape[-1])[0] = 0  # a zero row
    return x


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(1, 5), h=st.integers(1, 300),
       src=st.sampled_from(SRCS), kind=st.sampled_from(["bits", "normal", "special"]),
       smooth=st.booleans(), dst=st.sampled_from(DSTS), asymmetric=st.booleans(), isa=st.sampled_from(ISAS))
def test_equals_the_golden_on_any_row(seed, rows, h, src, kind, smooth, dst, asymmetric, isa):
    rng = np.random.default_rng(seed)
    x = random_x(rng, (rows, h), src, kind)
    s = random_x(rng, (h,), src, "normal" if kind == "normal" else kind) if smooth else None
    want = golden.dynamic_quant(x, s, dst_type=dst, asymmetric=asymmetric)
    assert_same(cpu_dq.dynamic_quant(x, s, dst_type=dst, asymmetric=asymmetric, isa=isa), want)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dst", DSTS)
@pytest.mark.parametrize("src", SRCS)
def test_every_row_length_up_to_130(isa, dst, src):
    """Each vector loop shape once: lengths around 16, 32 and 64 (tails, full vectors, unrolled loops)."""
    rng = np.random.default_rng(7)
    for h in range(1, 131):
        x = random_x(rng, (2, h), src, "special")
        for asymmetric in (False, True):
            want = golden.dynamic_quant(x, dst_type=dst, asymmetric=asymmetric)
            assert_same(cpu_dq.dynamic_quant(x, dst_type=dst, asymmetric=asymmetric, isa=isa), want)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("smooth", [False, True])
@pytest.mark.parametrize("src", SRCS)
def test_large_inputs_run_on_several_threads_and_equal_the_golden(isa, smooth, src):
    rng = np.random.default_rng(11)
    x = random_x(rng, (700, 1031), src, "special")  # above the kernel's threading threshold
    s = random_x(rng, (1031,), src, "normal") if smooth else None
    for dst in DSTS:
        want = golden.dynamic_quant(x, s, dst_type=dst)
        assert_same(cpu_dq.dynamic_quant(x, s, dst_type=dst, isa=isa), want)


def test_thread_counts_give_the_same_bytes():
    rng = np.random.default_rng(12)
    x = random_x(rng, (513, 777), np.float16, "special").view(np.uint16)
    results = []
    for threads in (1, 2, 3, 8):
        y = np.empty(x.shape, np.uint8)
        scale = np.empty(x.shape[0], np.float32)
        _native.cpu_dynamic_quant(x, None, 0, 0, False, 127.0, -128.0, y, scale, None, -1, threads)
        results.append((y, scale))
    for y, scale in results[1:]:
        np.testing.assert_array_equal(y, results[0][0])
        np.testing.assert_array_equal(scale.view(np.uint32), results[0][1].view(np.uint32))


LAYOUTS = {
    "strided rows": lambda x: x[::2],
    "strided columns": lambda x: x[:, ::3],
    "transposed": lambda x: x.T,
    "negative strides": lambda x: x[::-1, ::-1],
    "rank 4": lambda x: x.reshape(2, 3, -1, x.shape[-1]),
    "big-endian": lambda x: x.astype(x.dtype.newbyteorder(">")),
    "read-only": lambda x: np.lib.stride_tricks.as_strided(x, writeable=False),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("src", SRCS)
def test_memory_layouts(layout, src):
    rng = np.random.default_rng(13)
    base = random_x(rng, (36, 48), src, "special")
    if layout == "big-endian" and src is not np.float16:
        pytest.skip("ml_dtypes' bfloat16 has no big-endian form (astype gives a raw-bytes dtype)")
    x = LAYOUTS[layout](base)
    smooth = random_x(rng, (x.shape[-1],), src, "normal")
    for dst in DSTS:
        for s in (None, smooth):
            for isa in ISAS:
                want = golden.dynamic_quant(x, s, dst_type=dst, asymmetric=True)
                assert_same(cpu_dq.dynamic_quant(x, s, dst_type=dst, asymmetric=True, isa=isa), want)


@pytest.mark.parametrize("shape", [(0, 5), (3, 0), (2, 0, 4), (1, 1)])
def test_empty_and_degenerate_shapes(shape):
    x = np.ones(shape, np.float16)
    for asymmetric in (False, True):
        for dst in DSTS:
            want = golden.dynamic_quant(x, dst_type=dst, asymmetric=asymmetric)
            assert_same(cpu_dq.dynamic_quant(x, dst_type=dst, asymmetric=asymmetric), want)


def test_same_errors_as_the_golden():
    cases = [
        (np.ones(4, np.float16), {}),
        (np.ones((2, 4), np.float32), {}),
        (np.ones((2, 4), np.float16), {"smooth_scales": np.ones(3, np.float16)}),
        (np.ones((2, 4), np.float16), {"dst_type": "int4"}),
        (np.ones((2, 4), np.float16), {"asymmetric": 1}),
        ([[1.0, 2.0]], {}),
    ]
    for x, kwargs in cases:
        with pytest.raises((ConstraintError, DTypeError)) as want:
            golden.dynamic_quant(x, **kwargs)
        with pytest.raises(type(want.value)) as got:
            cpu_dq.dynamic_quant(x, **kwargs)
        assert str(got.value) == str(want.value)


def test_unknown_isa_is_refused():
    with pytest.raises(ConstraintError, match="isa"):
        cpu_dq.dynamic_quant(np.ones((1, 4), np.float16), isa="avx9000")


def test_without_the_kernel_the_golden_runs(monkeypatch):
    """An older compiled core without cpu_dynamic_quant: the same results from the golden."""
    monkeypatch.setattr(cpu_dq, "kernel", lambda name: None)
    x = random_x(np.random.default_rng(3), (4, 40), np.float16, "special")
    assert_same(cpu_dq.dynamic_quant(x, dst_type="hifloat8"), golden.dynamic_quant(x, dst_type="hifloat8"))


def test_ieee_arithmetic_under_a_flush_to_zero_caller():
    """torch.set_flush_denormal(True) sets FTZ / DAZ for the calling thread (and threads it starts later); the
    kernel computes in IEEE arithmetic anyway and gives the caller its mode back. The inputs make float32
    denormals: v = 44000 * 2^-149 from normal bfloat16 x and smooth scales (the golden's denormal-scale example),
    and bfloat16 x that are float32 denormals themselves, whose scales are denormal too."""
    torch = pytest.importorskip("torch")
    product_case = (np.array([[220 * 2.0 ** -70, -220 * 2.0 ** -70, 0.0]], ml_dtypes.bfloat16),
                    np.array([200 * 2.0 ** -79] * 3, ml_dtypes.bfloat16))
    denormal_case = (np.array([[3 * 2.0 ** -133, 2.0 ** -133, -(2.0 ** -130)]], ml_dtypes.bfloat16), None)
    cases = [product_case, denormal_case]
    want = [{dst: golden.dynamic_quant(x, s, dst_type=dst) for dst in DSTS} for x, s in cases]  # FTZ not yet set
    assert want[0]["hifloat8"][1][0] == np.float32(2.0 ** -149)
    assert 0 < want[1]["int8"][1][0] < np.finfo(np.float32).tiny and want[1]["int8"][0].all()
    if not torch.set_flush_denormal(True):
        pytest.skip("this CPU has no flush-to-zero mode")
    try:
        tiny = np.array([2.0 ** -140], np.float32)
        assert (tiny * np.float32(1.0))[0] == 0  # the caller's mode flushes denormals ...
        flushed = golden.dynamic_quant(*denormal_case, dst_type="int8")  # ... and numpy's results with it
        assert flushed[1].view(np.uint32)[0] != want[1]["int8"][1].view(np.uint32)[0]  # (DAZ: compare bits)
        for (x, s), expected in zip(cases, want):
            for dst in DSTS:
                for isa in ISAS:
                    assert_same(cpu_dq.dynamic_quant(x, s, dst_type=dst, isa=isa), expected[dst])
        assert (tiny * np.float32(1.0))[0] == 0  # ... and still does after the calls
    finally:
        torch.set_flush_denormal(False)


# ------------------------------------------------------------------------------------------ torch op's kernel
@pytest.mark.parametrize("asymmetric", [False, True])
@pytest.mark.parametrize("dst", DSTS)
@pytest.mark.parametrize("src", ["float16", "bfloat16"])
def test_torch_ops_equal_the_golden(src, dst, asymmetric):
    """The torch ops on CPU tensors (their kernel is the cpu backend) against the golden on the same bits."""
    torch = pytest.importorskip("torch")
    from ascend_quant_ops import _convert, torch_ops  # noqa: F401  (registers the ops)

    rng = np.random.default_rng(21)
    x_np = random_x(rng, (3, 5, 70), ml_dtypes.bfloat16 if src == "bfloat16" else np.float16, "special")
    s_np = random_x(rng, (70,), x_np.dtype.type, "normal")
    x_t = _convert.numpy_to_torch(x_np).transpose(0, 1).contiguous().transpose(0, 1)  # non-contiguous
    s_t = _convert.numpy_to_torch(s_np)
    dst_t = None if dst == "int8" else (torch.uint8 if dst == "hifloat8" else getattr(torch, dst))  # uint8: HiF8
    ops = torch.ops.ascend_quant_ops
    op = ops.dynamic_quant_asymmetric if asymmetric else ops.dynamic_quant
    out = op(x_t, s_t, dst_type=dst_t)
    want = golden.dynamic_quant(x_np, s_np, dst_type=dst, asymmetric=asymmetric)
    got = tuple(_convert.torch_to_numpy(t, op="t", argument="out") for t in out)
    assert_same((got[0].view(want[0].dtype),) + got[1:], want)


def test_scale_nan_rows_are_nan_whatever_the_payload():
    """The NaN rule is about values: a row with a NaN has a NaN scale (the payload is not specified)."""
    x = np.array([[np.nan, 1.0], [1.0, -np.nan]], np.float16)
    y, scale = cpu_dq.dynamic_quant(x)
    assert np.isnan(scale).all() and not y.any()
    assert math.isnan(float(golden.dynamic_quant(x)[1][1]))
