"""quant_matmul's kernel (op_kernel/aqo_quant_matmul.cpp: QLinearMatMul's cube stage with a float epilogue) in the
emulator, bit for bit against the golden (golden/quant_matmul.py, the definition): every SoC x (a, b) types x
parameter layouts (scales and zero points chosen independently, absent zero points, biases) x the SoC's output types
x numpy broadcasting x b contiguous or a transposed view; int32 wrap-around; b as a transposed view of an [N, K]
weight (read transposed by the kernel, no host copy) for every N tail of a C block; 3-D activations with per-token
scales; K = 0 and empty outputs; and the SoC's refusals."""
from __future__ import annotations

import zlib

import ml_dtypes
import numpy as np
import pytest

from ascend_quant_ops import api, tiling
from ascend_quant_ops.emulator import _stats
from ascend_quant_ops.errors import DTypeError
from ascend_quant_ops.golden import quant_matmul as golden

SOCS = ("ascend910b", "ascend310p", "ascend910_95")
TYPES = [(np.int8, np.int8), (np.uint8, np.int8), (np.int8, np.uint8), (np.uint8, np.uint8)]
# (a scale, a zero point, b scale, b zero point, bias): "t" per tensor, "v" per row / column, None absent
LAYOUTS = [("t", None, "t", None, None), ("v", None, "v", None, "v"), ("t", "t", "v", "t", "t"),
           ("v", "v", "t", None, "v"), ("t", "v", "v", "v", None), ("v", "t", "v", "v", "t")]
# (a shape without [M, K], b shape without [K, N]): numpy.matmul broadcasting
BATCHES = [((), ()), ((2,), ()), ((), (3,)), ((2, 1), (3,)), ((2,), (2,))]


def out_dtypes(soc):
    return tiling.soc_table()[soc]["quant_matmul"]["out_dtypes"]


def _ints(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, int(info.max) + 1, size=shape).astype(dtype)


def _case(rng, at, bt, layout, a_batch, b_batch, m, k, n, out, b_trans=False):
    sa, za, sb, zb, bias = layout
    a = _ints(rng, at, a_batch + (m, k))
    # b_trans: b a transposed view of [..., N, K] storage (the kernel reads it so)
    b = _ints(rng, bt, b_batch + (n, k)).swapaxes(-1, -2) if b_trans else _ints(rng, bt, b_batch + (k, n))
    a_s = rng.uniform(0.005, 0.02, a_batch + (m, 1) if sa == "v" else ()).astype(np.float32)
    b_s = rng.uniform(0.005, 0.02, b_batch + (1, n) if sb == "v" else ()).astype(np.float32)
    a_z = None if za is None else _ints(rng, at, a_batch + (m, 1) if za == "v" else ())
    b_z = None if zb is None else _ints(rng, bt, b_batch + (1, n) if zb == "v" else ())
    c = None if bias is None else rng.uniform(-4, 4, (n,) if bias == "v" else ()).astype(np.float32)
    return (a, a_s, a_z, b, b_s, b_z), dict(bias=c, out_dtype=out)


def _same_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got).view(np.uint8), np.asarray(want).view(np.uint8))


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("at,bt", TYPES, ids=lambda t: np.dtype(t).name)
def test_matrix_of_types_layouts_outputs_and_broadcasting(soc, at, bt):
    rng = np.random.default_rng(zlib.crc32(f"{soc} {np.dtype(at)} {np.dtype(bt)}".encode()))
    runs = transposed = 0
    for i, layout in enumerate(LAYOUTS):
        for out in out_dtypes(soc):
            a_batch, b_batch = BATCHES[(i + runs) % len(BATCHES)]
            m, k, n = (int(x) for x in rng.integers(1, 70, 3))
            # every other run b is a transposed view, with N % 16 in 1..7 past 16: a C block whose width ends inside
            # a fractal row (310p writes such blocks back past their width; the write-order path reads B too)
            b_trans = runs % 2 == 1
            if b_trans:
                n = 16 * int(rng.integers(1, 4)) + int(rng.integers(1, 8))
            args, kw = _case(rng, at, bt, layout, a_batch, b_batch, m, k, n, out, b_trans)
            want = golden.quant_matmul(*args[:3], np.ascontiguousarray(args[3]), *args[4:], **kw)
            got = api.quant_matmul(*args, **kw, soc=soc, backend="emulator")
            # the kernel reads b transposed unless the view is C-contiguous too (K = 1)
            read_transposed = _stats.last_run_stats()["plan"]["b_trans"]
            assert read_transposed is (b_trans and not args[3].flags.c_contiguous)
            _same_bits(got, want)
            runs += 1
            transposed += read_transposed
    assert runs == len(LAYOUTS) * len(out_dtypes(soc)) and transposed >= runs // 2 - 1


@pytest.mark.parametrize("soc", SOCS)
def test_int32_wraps_like_the_definition(soc):
    # 255 x 255 x K past 2^31: the exact sum wraps modulo 2^32 (K beyond the vector correction's bound too)
    k = 33_100
    a = np.full((2, k), 255, np.uint8)
    b = np.full((k, 3), 255, np.uint8)
    a[1, ::7] = 3
    args = (a, np.float32(1.0), np.uint8(0), b, np.float32(1.0), np.uint8(0))
    want = golden.quant_matmul(*args)
    exact = a.astype(np.int64) @ b.astype(np.int64)
    assert (exact > 2**31 - 1).any()  # the case really wraps
    _same_bits(api.quant_matmul(*args, soc=soc, backend="emulator"), want)


@pytest.mark.parametrize("soc", SOCS)
def test_transposed_weight_view_is_read_transposed_without_a_copy(soc):
    rng = np.random.default_rng(7)
    w = _ints(rng, np.int8, (45, 70))        # [N, K], the Linear layout
    x = _ints(rng, np.int8, (2, 5, 70))      # [B, S, K] activations
    xs = rng.uniform(0.01, 0.02, (2, 5)).astype(np.float32)  # per token, [B, S]
    ws = rng.uniform(0.01, 0.02, 45).astype(np.float16)      # float16 weight scales (widened exactly)
    out = out_dtypes(soc)[-1]
    want = golden.quant_matmul(x, xs, None, w.T, ws, out_dtype=out)
    _same_bits(api.quant_matmul(x, xs, None, w.T, ws, out_dtype=out, soc=soc, backend="emulator"), want)
    assert _stats.last_run_stats()["plan"]["b_trans"] is True
    # a uint8 weight (mapped to int8 by the kernel) the same way
    wu = _ints(rng, np.uint8, (45, 70))
    args = (x, xs, np.int8(3), wu.T, ws, np.uint8(128))
    _same_bits(api.quant_matmul(*args, soc=soc, backend="emulator"), golden.quant_matmul(*args))


# N of the transposed-b regression: N % 16 in 1..7 past 16 (17, 20, 33: a C block's width ends inside a fractal row,
# which 310p's C write-back overshoots), narrower than 32 bytes of C (1, 7) and whole 32-byte C rows (40).
TRANSPOSED_N = (1, 7, 17, 20, 33, 40)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("at", [np.int8, np.uint8], ids=lambda t: np.dtype(t).name)
def test_transposed_b_every_n_tail(soc, at):
    # b a transposed view of an [N, K] weight, bit for bit against the golden on the same b stored contiguous [K, N].
    rng = np.random.default_rng(zlib.crc32(f"transposed {soc} {np.dtype(at)}".encode()))
    out = out_dtypes(soc)[-1]
    for n in TRANSPOSED_N:
        for m in (1, 10):
            for k in (32, 96):
                a = _ints(rng, at, (m, k))
                w = _ints(rng, np.int8, (n, k))
                a_s = rng.uniform(0.005, 0.02, (m, 1)).astype(np.float32)
                w_s = rng.uniform(0.005, 0.02, (n,)).astype(np.float32)
                a_z = np.uint8(128) if at == np.uint8 else None
                want = golden.quant_matmul(a, a_s, a_z, np.ascontiguousarray(w.T), w_s, out_dtype=out)
                got = api.quant_matmul(a, a_s, a_z, w.T, w_s, out_dtype=out, soc=soc, backend="emulator")
                # N = 1: the view [K, 1] is C-contiguous as well, read as stored [K, N]
                assert _stats.last_run_stats()["plan"]["b_trans"] is (n > 1)
                _same_bits(got, want)


@pytest.mark.parametrize("soc", SOCS)
def test_k_zero_and_empty_outputs(soc):
    rng = np.random.default_rng(3)
    a = np.zeros((4, 0), np.int8)
    b = np.zeros((0, 6), np.int8)
    bias = rng.uniform(-1, 1, 6).astype(np.float32)
    args = (a, np.float32(0.5), None, b, np.float32(0.25), None)
    _same_bits(api.quant_matmul(*args, bias=bias, soc=soc, backend="emulator"),
               golden.quant_matmul(*args, bias=bias))
    a = np.zeros((0, 16), np.int8)
    b = _ints(rng, np.int8, (16, 6))
    y = api.quant_matmul(a, np.float32(0.5), None, b, np.float32(0.25), soc=soc, backend="emulator")
    assert y.shape == (0, 6) and y.dtype == np.float32


def test_310p_refuses_the_outputs_its_kernel_does_not_write():
    rng = np.random.default_rng(1)
    a, b = _ints(rng, np.int8, (3, 8)), _ints(rng, np.int8, (8, 4))
    for out in ("float16", "bfloat16"):
        with pytest.raises(DTypeError) as info:
            api.quant_matmul(a, np.float32(1), None, b, np.float32(1), out_dtype=out, soc="ascend310p",
                             backend="emulator")
        assert info.value.argument == "out_dtype" and info.value.soc == "ascend310p"
    # the plan refuses the same (one rule, the SoC table's)
    with pytest.raises(DTypeError):
        tiling.plan_quant_matmul((3, 8), (8, 4), soc="ascend310p", out_dtype=ml_dtypes.bfloat16)


@pytest.mark.parametrize("soc", SOCS)
def test_plan_explanation_invariants(soc):
    rng = np.random.default_rng(zlib.crc32(soc.encode()))
    spec = tiling.soc_table()[soc]
    for _ in range(40):
        m, k, n = (int(x) for x in rng.integers(1, 600, 3))
        p = tiling.plan_quant_matmul((2, m, k), (k, n), soc=soc, a_dtype="uint8", out_dtype=out_dtypes(soc)[-1],
                                     a_scale="row", b_scale="column", a_zero_point="row", bias="column",
                                     a_param_batched=True, b_trans=bool(rng.integers(0, 2)))
        t, e = p.tiling, p.explanation
        assert t["unitCount"] == 2 * -(-m // t["stripM"]) * -(-n // t["baseN"])
        assert tiling.verify_explanation(e, expected_work=t["unitCount"], core_limit=spec["qlinear_matmul_cores"],
                                         ub_limit=spec["ub_bytes"]) == []


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("m,k,n,transposed", [(2, 64, 152_064, False), (3, 73_728, 40, False),
                                              (2, 48, 152_064, True), (2, 73_728, 24, True)],
                         ids=["n152064", "k73728", "n152064-wT", "k73728-wT"])
def test_serving_sizes_past_the_16_bit_strides(soc, m, k, n, transposed):
    # vocabulary projections (N = 152064) and long K (73728), small M: row strides of 65536 and more in the cube's
    # GM -> L1 copies (the Matmul API copies such rows one by one) and in the kernel's own DMAs
    rng = np.random.default_rng(zlib.crc32(f"{soc} {m} {k} {n} {transposed}".encode()))
    a = _ints(rng, np.int8, (m, k))
    w = _ints(rng, np.int8, (n, k) if transposed else (k, n))
    b = w.T if transposed else w
    a_s = rng.uniform(0.01, 0.02, (m,)).astype(np.float32)
    b_s = rng.uniform(0.001, 0.002, (n,)).astype(np.float32)
    args = (a, a_s, np.int8(3), b, b_s, None)
    _same_bits(api.quant_matmul(*args, soc=soc, backend="emulator"), golden.quant_matmul(*args))
    assert _stats.last_run_stats()["plan"]["b_trans"] is transposed
