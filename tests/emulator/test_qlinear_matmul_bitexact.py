"""QLinearMatMul: the AscendC kernel (op_kernel/aqo_qlinear_matmul.cpp) run in the CPU emulator equals the golden
bit for bit on the integer paths, on every SoC.

Covered: all eight int8/uint8 (a, b, y) combinations x per-tensor / per-row / per-column parameters x batch
broadcasting, with M, N, K that are multiples of no tile size; K large enough to wrap int32 (checked against an
exact int64 reference of our own, and asserted to actually wrap); the ONNX backend node cases and the
onnxruntime unit-test vectors; K = 0 and empty outputs; the refusals (float8, per-column y parameters).
Shapes are small (each emulated run well under a second) except the one large-K case per SoC.
"""
from __future__ import annotations

import importlib
import itertools
import json
import pathlib
import zlib

import numpy as np
import pytest

from ascend_quant_ops import tiling
from ascend_quant_ops.errors import ConstraintError, DTypeError
from ascend_quant_ops.perf import traffic as dm

emu = importlib.import_module("ascend_quant_ops.emulator.qlinear_matmul")
from ascend_quant_ops.golden.qlinear_matmul import qlinear_matmul as golden  # noqa: E402

SOCS = ("ascend910b", "ascend310p", "ascend910_95")
INT_TYPES = (np.int8, np.uint8)
DATA = pathlib.Path(__file__).resolve().parents[1] / "data"


def _rand(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, size=shape, dtype=np.int64).astype(dtype)


def _params(rng, kind, dtype, length, batch=()):
    """(scale, zero_point) per tensor (numpy scalars) or along `length` (with optional batch dims)."""
    if kind == "tensor":
        return np.float32(rng.uniform(0.005, 0.05)), dtype(_rand(rng, dtype, ()))
    shape = batch + (length,)
    return rng.uniform(0.005, 0.05, size=shape).astype(np.float32), _rand(rng, dtype, shape)


def _case(rng, at, bt, yt, a_kind, b_kind, a_shape, b_shape):
    m, k = a_shape[-2:]
    n = b_shape[-1]
    a = _rand(rng, at, a_shape)
    b = _rand(rng, bt, b_shape)
    a_s, a_z = _params(rng, a_kind, at, m)
    if a_kind == "row":  # [..., M, 1] form for batched a, [M] for 2-D a
        if len(a_shape) > 2:
            a_s = rng.uniform(0.005, 0.05, size=a_shape[:-1] + (1,)).astype(np.float32)
            a_z = _rand(rng, at, a_shape[:-1] + (1,))
    b_s, b_z = _params(rng, b_kind, bt, n)
    # y_scale from the spread of the exact accumulator, so that outputs spread over the output range.
    a_zb = np.broadcast_to(np.asarray(a_z, np.int64).reshape(np.shape(a_z) + (1,) * (np.ndim(a_z) == 1)),
                           a_shape[:-1] + (1,)) if a_kind == "row" else np.int64(a_z)
    acc = (a.astype(np.int64) - a_zb) @ (b.astype(np.int64) - np.asarray(b_z, np.int64))
    spread = float(np.max(np.abs(acc))) or 1.0
    y_s = np.float32(float(np.median(a_s)) * float(np.median(b_s)) * spread / 100)
    info = np.iinfo(yt)
    y_z = yt((int(info.min) + int(info.max) + 1) // 2 + int(rng.integers(-20, 21)))  # near the middle
    return a, a_s, a_z, b, b_s, b_z, y_s, y_z


TYPE_COMBOS = list(itertools.product(INT_TYPES, INT_TYPES, INT_TYPES))
KINDS = [("tensor", "tensor"), ("row", "tensor"), ("tensor", "column"), ("row", "column")]


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("at,bt,yt", TYPE_COMBOS, ids=lambda t: np.dtype(t).name)
def test_all_type_combinations_and_param_kinds(soc, at, bt, yt):
    rng = np.random.default_rng(zlib.crc32(f"{soc} {np.dtype(at).name} {np.dtype(bt).name} {np.dtype(yt).name}".encode()))
    for a_kind, b_kind in KINDS:
        args = _case(rng, at, bt, yt, a_kind, b_kind, (37, 70), (70, 45))
        y = emu.qlinear_matmul(*args, soc=soc)
        g = golden(*args)
        assert y.dtype == g.dtype and y.shape == g.shape
        np.testing.assert_array_equal(y, g, err_msg=f"{soc} {a_kind}/{b_kind}")
        # The outputs are not all saturated (the comparison means something).
        assert len(np.unique(y)) > 20


# ---- one strip of a prepared per worker -------------------------------------------------------------------------
# A decode step on a split SoC whose per-worker copies of the prepared strip (ones row, uint8 mapping) stay small
# against b prepares per worker (no SyncAll), as every 310p launch does; with one y matrix of one strip each worker
# decides from its own columns' b zero points whether it needs a's row sums (split SoCs: after its cube request).
# The b zero points below make those decisions differ between workers: zero except in the last columns, zero except
# at the first or the last column of one worker's range (an off-by-one range misses it), all zero, random.

def _worker_edge_columns(t):
    """The first and last column of a worker's range in the middle of the launch (the kernel's split)."""
    ranges = [u for _, (u,) in dm.qmm_worker_units(t) if len(u)]  # one range a worker: no rounds at one strip
    u = ranges[len(ranges) // 2]
    return u.start * t["baseN"], min(u.stop * t["baseN"], t["n"]) - 1


PRIVATE_CASES = [  # soc, (m, k, n), a_param: per-row a zero points with 2 rows; K above the preparation chunk (4096)
    ("ascend910b", (1, 300, 4500), "tensor"), ("ascend910_95", (1, 300, 4500), "tensor"),
    ("ascend910b", (2, 300, 7000), "row"), ("ascend910_95", (2, 300, 7000), "row"),
    ("ascend910b", (1, 4200, 3500), "tensor"), ("ascend310p", (1, 300, 4500), "row"),
]


@pytest.mark.parametrize("soc,mkn,a_kind", PRIVATE_CASES, ids=[f"{c[0]}-{'x'.join(map(str, c[1]))}-{c[2]}"
                                                                for c in PRIVATE_CASES])
@pytest.mark.parametrize("at", INT_TYPES, ids=lambda t: np.dtype(t).name)
def test_one_strip_prepared_per_worker(soc, mkn, a_kind, at):
    m, k, n = mkn
    rng = np.random.default_rng(zlib.crc32(f"private prep {soc} {mkn} {a_kind} {np.dtype(at).name}".encode()))
    p = tiling.plan_qlinear_matmul((m, k), (k, n), soc=soc, a_dtype=np.dtype(at).name, b_dtype="int8",
                                   y_dtype="int8", a_param=a_kind, b_param="column")
    t = p.tiling
    assert t["sharedPrep"] == 0 and t["unitCount"] == t["nBlocks"] and t["usedCores"] > 1
    if tiling.soc_table()[soc]["split_architecture"]:
        assert p.explanation["mode"] == "mix_cube_vector"
        assert any("prepares its own copy" in note for note in p.explanation["notes"])
    first, last = _worker_edge_columns(t)
    for zb_case in ("last", "first of a range", "last of a range", "zero", "random"):
        a, a_s, a_z, b, b_s, b_z, y_s, y_z = _case(rng, at, np.int8, np.int8, a_kind, "column", (m, k), (k, n))
        if zb_case != "random":
            b_z = np.zeros(n, np.int8)
            b_z[{"last": slice(n - 3, n), "first of a range": slice(first, first + 1),
                 "last of a range": slice(last, last + 1), "zero": slice(0, 0)}[zb_case]] = 7
            # y_scale from the spread of the exact accumulator with these zero points (as _case does)
            za = np.asarray(a_z, np.int64).reshape(-1, 1) if a_kind == "row" else np.int64(a_z)
            acc = (a.astype(np.int64) - za) @ (b.astype(np.int64) - b_z.astype(np.int64))
            y_s = np.float32(float(np.median(a_s)) * float(np.median(b_s)) * float(np.max(np.abs(acc)) or 1) / 100)
        args = (a, a_s, a_z, b, b_s, b_z, y_s, y_z)
        y = emu.qlinear_matmul(*args, soc=soc)
        np.testing.assert_array_equal(y, golden(*args), err_msg=f"{soc} {a_kind} zb {zb_case}")
        assert len(np.unique(y)) > 20


@pytest.mark.parametrize("soc", ["ascend910b", "ascend910_95"])
@pytest.mark.parametrize("mkn", [(2, 4096, 512), (3, 4096, 16), (5, 4096, 16), (3, 1100, 16)],
                         ids=lambda c: "x".join(map(str, c)))
def test_row_sums_of_long_rows_fit_their_buffer(soc, mkn):
    """A row of a in one preparation step (K <= 4096) has its sum by one ReduceSum, which on split SoCs stores one
    float per 256-byte repeat from its row-term slot on: the last row's reach past the strip's slots, which the row
    terms' buffer holds (the emulator refuses a write outside it; these few-row strips failed before)."""
    m, k, n = mkn
    rng = np.random.default_rng(zlib.crc32(f"row sums {soc} {mkn}".encode()))
    t = tiling.plan_qlinear_matmul((m, k), (k, n), soc=soc, a_dtype="uint8", b_dtype="int8", y_dtype="uint8").tiling
    sums_bytes = -(-t["kPad"] // 64) * 4  # one float per 256-byte repeat of the row
    spill = max(0, -(-(sums_bytes - 64) // 32) * 32)
    assert k <= 1024 or spill > 0
    assert t["ubRowTerms"] == t["raStripBytes"] + spill
    a, a_s, a_z, b, b_s, b_z, y_s, y_z = _case(rng, np.uint8, np.int8, np.uint8, "tensor", "tensor", (m, k), (k, n))
    b_z = np.int8(-5)
    args = (a, a_s, a_z, b, b_s, b_z, y_s, y_z)
    np.testing.assert_array_equal(emu.qlinear_matmul(*args, soc=soc), golden(*args))


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("a_shape,b_shape", [
    ((2, 1, 19, 33), (3, 33, 50)),      # a's batch 1 broadcast against b's 3, and b lacks the leading dim
    ((4, 19, 33), (33, 50)),            # 2-D b shared by every batch of a
    ((19, 33), (2, 3, 33, 50)),         # 2-D a shared
    ((1, 3, 130, 33), (2, 1, 33, 290)), # both broadcast; M and N above one tile (tiles 128 x 256)
])
def test_batch_broadcasting(soc, a_shape, b_shape):
    rng = np.random.default_rng(7)
    for a_kind, b_kind in (("row", "column"), ("tensor", "tensor")):
        args = _case(rng, np.uint8, np.int8, np.uint8, a_kind, b_kind, a_shape, b_shape)
        y = emu.qlinear_matmul(*args, soc=soc)
        g = golden(*args)
        assert y.shape == np.broadcast_shapes(a_shape[:-2], b_shape[:-2]) + (a_shape[-2], b_shape[-1])
        np.testing.assert_array_equal(y, g)


@pytest.mark.parametrize("soc", SOCS)
def test_batched_per_row_and_per_column_parameters(soc):
    # Per-row parameters with a's batch dims [B, M, 1], per-column ones with b's [B, 1, N].
    rng = np.random.default_rng(11)
    a = _rand(rng, np.int8, (3, 21, 40))
    b = _rand(rng, np.uint8, (3, 40, 35))
    a_s = rng.uniform(0.01, 0.02, (3, 21, 1)).astype(np.float32)
    a_z = _rand(rng, np.int8, (3, 21, 1))
    b_s = rng.uniform(0.01, 0.02, (3, 1, 35)).astype(np.float32)
    b_z = _rand(rng, np.uint8, (3, 1, 35))
    args = (a, a_s, a_z, b, b_s, b_z, np.float32(0.05), np.int8(-5))
    np.testing.assert_array_equal(emu.qlinear_matmul(*args, soc=soc), golden(*args))


def _exact_reference(a, a_z, b, b_z, mult, y_z, y_dtype):
    """Our own exact path: int64 products, wrap to int32, then the documented float32 requantization."""
    acc = (a.astype(np.int64) - a_z.astype(np.int64)) @ (b.astype(np.int64) - b_z.astype(np.int64))
    wrapped = ((acc + 2**31) % 2**32 - 2**31).astype(np.int32)
    v = wrapped.astype(np.float32) * mult
    info = np.iinfo(y_dtype)
    return np.clip(np.rint(v) + np.float32(y_z), info.min, info.max).astype(y_dtype), acc


@pytest.mark.parametrize("soc", SOCS)
def test_large_k_wraps_int32_exactly(soc):
    # u8 x u8 with zero points 0: sum of 255 * 255 over K >= 33,026 leaves int32
    # (docs/references.md#decision-qlinearmatmul). Per-column b parameters and non-zero a zero points also exercise
    # the wrap-around zero-point correction.
    rng = np.random.default_rng(5)
    m, k, n = 3, 40000, 5
    a = rng.integers(230, 256, (m, k)).astype(np.uint8)
    b = rng.integers(230, 256, (k, n)).astype(np.uint8)
    for a_z, b_z in ((np.uint8(0), np.zeros(n, np.uint8)), (np.uint8(3), rng.integers(0, 9, n).astype(np.uint8))):
        a_s, b_s, y_s = np.float32(2.0**-10), np.full(n, 2.0**-10, np.float32), np.float32(2.0**5)
        y_z = np.uint8(128)
        args = (a, a_s, a_z, b, b_s, b_z, y_s, y_z)
        y = emu.qlinear_matmul(*args, soc=soc)
        mult = (a_s * b_s) / y_s
        ref, acc = _exact_reference(a, np.full((m, 1), a_z), b, b_z[None, :], mult, y_z, np.uint8)
        assert (np.abs(acc) >= 2**31).any(), "the case must actually wrap"
        np.testing.assert_array_equal(y, ref)
        np.testing.assert_array_equal(y, golden(*args))
    # Per-row a and per-column b zero points far from 0: every term of the zero-point correction leaves int32.
    a_z = rng.integers(0, 256, (m,)).astype(np.uint8)
    b_z = rng.integers(0, 256, (n,)).astype(np.uint8)
    a_s = np.full(m, 2.0**-10, np.float32)
    b_s = np.full(n, 2.0**-10, np.float32)
    y_s = np.float32(2.0**5)
    args = (a, a_s, a_z, b, b_s, b_z, y_s, np.uint8(128))
    y = emu.qlinear_matmul(*args, soc=soc)
    ref, acc = _exact_reference(a, a_z[:, None], b, b_z[None, :], (a_s[:, None] * b_s[None, :]) / y_s,
                                np.uint8(128), np.uint8)
    np.testing.assert_array_equal(y, ref)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("m,k,n,at,bt", [
    (2, 24, 152064, np.uint8, np.int8),    # N of a vocabulary: b's row stride past 16 bits
    (2, 65600, 24, np.int8, np.int8),      # K past 16 bits: a's row stride (and the ones row of the column sums)
])
def test_rows_longer_than_16_bit_strides(soc, m, k, n, at, bt):
    # The GM -> L1 copy of the Matmul API takes a row stride in a 16-bit field unless the config asks for the
    # intrinsic check (the kernel's does); the emulator refuses a wrapping stride, so these runs prove the kernel's
    # config and its results.
    rng = np.random.default_rng(11)
    args = _case(rng, at, bt, np.int8, "row", "column", (m, k), (k, n))
    p = tiling.plan_qlinear_matmul((m, k), (k, n), soc=soc, a_dtype=np.dtype(at).name, b_dtype=np.dtype(bt).name,
                                   a_param="row", b_param="column")
    assert max(p.tiling["k"], p.tiling["n"]) > 65535  # planned, not refused
    np.testing.assert_array_equal(emu.qlinear_matmul(*args, soc=soc), golden(*args))


def _onnx_backend_cases():
    import onnx.backend.test.case.node as node_cases
    import onnx.backend.test.case.node.qlinearmatmul  # noqa: F401  (records its cases on import)

    return [c for c in node_cases._NodeTestCases
            if c.name.startswith("test_qlinearmatmul_") and not c.name.endswith("_expanded")]


@pytest.mark.parametrize("soc", SOCS)
def test_onnx_backend_node_cases(soc):
    cases = _onnx_backend_cases()
    assert len(cases) == 8
    for case in cases:
        (inputs, outputs), = case.data_sets
        y = emu.qlinear_matmul(*inputs, soc=soc)
        assert y.dtype == outputs[0].dtype and y.shape == outputs[0].shape, case.name
        np.testing.assert_array_equal(y, outputs[0], err_msg=case.name)


def _array(spec):
    return np.array(spec["values"], dtype=np.dtype(spec["dtype"])).reshape(spec["shape"])


@pytest.mark.parametrize("soc", SOCS)
def test_onnxruntime_unit_test_vectors(soc):
    doc = json.loads((DATA / "ort_qlinearmatmul_cases.json").read_text())
    ran = 0
    for case in doc["cases"]:
        inputs = [_array(case["inputs"][name]) for name in
                  ("a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point")]
        expected = _array(case["output"])
        if np.size(inputs[6]) != 1:
            continue  # per-row / per-column y parameters: not a kernel feature (refusal tested below)
        y = emu.qlinear_matmul(*inputs, soc=soc)
        np.testing.assert_array_equal(y, expected, err_msg=case["name"])
        ran += 1
    assert ran >= 8


@pytest.mark.parametrize("soc", SOCS)
def test_k_zero_gives_the_output_zero_point(soc):
    a = np.zeros((4, 0), np.uint8)
    b = np.zeros((0, 6), np.int8)
    y = emu.qlinear_matmul(a, np.float32(0.1), np.uint8(3), b, np.float32(0.2), np.int8(1), np.float32(0.3),
                           np.int8(-7), soc=soc)
    np.testing.assert_array_equal(y, np.full((4, 6), -7, np.int8))


@pytest.mark.parametrize("soc", SOCS)
def test_empty_output(soc):
    a = np.zeros((0, 5), np.int8)
    b = np.ones((5, 6), np.int8)
    y = emu.qlinear_matmul(a, np.float32(1), np.int8(0), b, np.float32(1), np.int8(0), np.float32(1), np.int8(0),
                           soc=soc)
    assert y.shape == (0, 6) and y.dtype == np.int8


def test_one_dimensional_operands_follow_numpy_matmul():
    rng = np.random.default_rng(3)
    a = _rand(rng, np.uint8, (50,))
    b = _rand(rng, np.int8, (50, 7))
    args = (a, np.float32(0.02), np.uint8(100), b, np.float32(0.03), np.int8(2), np.float32(0.4), np.uint8(9))
    y = emu.qlinear_matmul(*args, soc="ascend310p")
    assert y.shape == (7,)
    np.testing.assert_array_equal(y, golden(*args))


def test_float8_is_refused_where_the_soc_has_no_float8():
    import ml_dtypes

    a = np.zeros((2, 3), ml_dtypes.float8_e4m3fn)
    b = np.zeros((3, 4), ml_dtypes.float8_e4m3fn)
    z = ml_dtypes.float8_e4m3fn(0)
    for soc in ("ascend910b", "ascend310p"):
        with pytest.raises(DTypeError) as e:
            emu.qlinear_matmul(a, np.float32(1), z, b, np.float32(1), z, np.float32(1), np.int8(0), soc=soc)
        assert soc in str(e.value) and "float8" in str(e.value)


def _float8_tolerance_check(y, g):
    """The documented tolerance of float8 operands: one unit of y (integer y: |delta| <= 1, the CANN criterion
    for integer outputs, docs/references.md#precision-criteria; float8 y: the same or an adjacent code), NaN
    exactly where the golden has NaN.
    Why: the device's cube accumulates float8 products in float32 in its own order; the golden sums in float64
    and the emulated cube sums exactly, rounding once. So on the device a sum lying within float32 rounding of a
    rounding boundary of y may land one unit away. The emulator itself must be exact in at least 99% of the
    elements (it is in these cases: the only difference from the golden would be the float64 summation order)."""
    if np.issubdtype(y.dtype, np.integer):
        d = np.abs(y.astype(np.int64) - g.astype(np.int64))
        assert d.max() <= 1
        assert (d == 0).mean() >= 0.99
        return
    yf, gf = y.astype(np.float32), g.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(yf), np.isnan(gf))
    ok = ~np.isnan(gf)
    codes_y = y.view(np.uint8)[ok].astype(np.int64)
    codes_g = g.view(np.uint8)[ok].astype(np.int64)
    same_sign = np.signbit(yf[ok]) == np.signbit(gf[ok])
    assert (same_sign & (np.abs(codes_y - codes_g) <= 1) | (yf[ok] == gf[ok])).all()
    assert (yf[ok] == gf[ok]).mean() >= 0.99


@pytest.mark.parametrize("a_name,b_name", [("float8_e4m3fn", "float8_e4m3fn"), ("float8_e4m3fn", "float8_e5m2"),
                                           ("float8_e5m2", "float8_e4m3fn"), ("float8_e5m2", "float8_e5m2")])
@pytest.mark.parametrize("y_name", ["int8", "uint8", "float8_e4m3fn", "float8_e5m2"])
def test_float8_operands_on_910_95_within_tolerance(a_name, b_name, y_name):
    import ml_dtypes

    at, bt = getattr(ml_dtypes, a_name), getattr(ml_dtypes, b_name)
    yt = np.dtype(y_name).type if y_name in ("int8", "uint8") else getattr(ml_dtypes, y_name)
    rng = np.random.default_rng(len(a_name) * 7 + len(b_name) * 3 + len(y_name))
    a = (rng.standard_normal((2, 23, 70)) * 3).astype(at)
    b = (rng.standard_normal((70, 41)) * 3).astype(bt)
    # +-Inf inputs (e5m2) propagate as IEEE says (NaN inputs are refused: test_float8_nan_operands_are_refused).
    if b_name == "float8_e5m2":
        b[7, 2] = np.inf
    a_s = rng.uniform(0.5, 1.0, (23,)).astype(np.float32)
    b_s = rng.uniform(0.5, 1.0, (41,)).astype(np.float32)
    y_s = np.float32(0.7 if y_name in ("int8", "uint8") else 0.05)
    y_z = yt(3) if y_name in ("int8", "uint8") else yt(0)
    args = (a, a_s, np.zeros(23, at), b, b_s, np.zeros(41, bt), y_s, y_z)
    y = emu.qlinear_matmul(*args, soc="ascend910_95")
    g = golden(*args)
    assert y.dtype == g.dtype and y.shape == g.shape
    _float8_tolerance_check(y, g)
    assert len(np.unique(y.view(np.uint8))) > 20  # not all saturated


@pytest.mark.parametrize("operand", ["a", "b"])
def test_float8_nan_operands_are_refused(operand):
    # The AscendC Mmad page: the cube should not be given NaN inputs (an execution error may result). The SoC's rules
    # refuse a NaN float8 operand before the kernel (backend="emulator", as the npu backend); the emulated cube
    # refuses one that reaches it; the CPU backend computes the golden's NaN.
    import ml_dtypes
    from ascend_quant_ops import api

    f8 = ml_dtypes.float8_e4m3fn
    a = np.full((3, 40), 0.5, f8)
    b = np.full((40, 5), 0.25, f8)
    (a if operand == "a" else b)[1, 2] = np.nan
    args = (a, np.float32(1), f8(0), b, np.float32(1), f8(0), np.float32(0.1), f8(0))
    with pytest.raises(ConstraintError) as e:
        api.qlinear_matmul(*args, soc="ascend910_95", backend="emulator")
    for part in ("ascend910_95", f"'{operand}'", "without NaN", "Mmad", "NaN at index (1, 2)",
                 "backend='cpu' without soc="):
        assert part in str(e.value), (part, str(e.value))
    # (the emulated cube's own refusal: the Matmul API fault kernel float8_nan_operand)
    assert np.isnan(api.qlinear_matmul(*args, backend="cpu").astype(np.float32)).any()


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2"])
def test_float8_nan_check_reads_numpy_and_torch_operands_by_their_bits(name):
    # The npu backend hands the check torch tensors: every NaN code of the format is found there as in numpy (by the
    # bytes, no float conversion), and finite codes, +-Inf (e5m2) and other operand types pass.
    import ml_dtypes
    import torch
    from ascend_quant_ops import _plan_check

    codes = np.arange(256, dtype=np.uint8)
    values = codes.view(getattr(ml_dtypes, name)).reshape(16, 16)
    nan = np.isnan(values.astype(np.float32))
    assert nan.sum() == (2 if name == "float8_e4m3fn" else 6)
    for data in (values, torch.from_numpy(codes.copy()).view(getattr(torch, name)).reshape(16, 16)):
        with pytest.raises(ConstraintError, match=r"NaN at index \(7, 13\)|NaN at index \(7, 15\)"):
            _plan_check.float8_operands_without_nan("qlinear_matmul", [("b", data)], "ascend910_95")
        finite = data[~nan] if isinstance(data, np.ndarray) else data[torch.from_numpy(~nan)]
        _plan_check.float8_operands_without_nan("qlinear_matmul", [("b", finite)], "ascend910_95")
    _plan_check.float8_operands_without_nan("qlinear_matmul", [("a", np.full(4, 255, np.uint8))], "ascend910_95")


def test_per_column_output_parameters_are_refused():
    a = np.zeros((2, 3), np.int8)
    b = np.zeros((3, 4), np.int8)
    with pytest.raises(ConstraintError) as e:
        emu.qlinear_matmul(a, np.float32(1), np.int8(0), b, np.float32(1), np.int8(0), np.ones(4, np.float32),
                           np.zeros(4, np.int8), soc="ascend910b")
    assert e.value.argument == "y_scale"


def test_unknown_soc_is_a_constraint_error():
    a = np.zeros((2, 3), np.int8)
    b = np.zeros((3, 4), np.int8)
    with pytest.raises(ConstraintError) as e:
        emu.qlinear_matmul(a, np.float32(1), np.int8(0), b, np.float32(1), np.int8(0), np.float32(1), np.int8(0),
                           soc="ascend999")
    assert e.value.argument == "soc"


@pytest.mark.parametrize("soc", ("ascend910b", "ascend310p"))
def test_core_count_override_changes_nothing_but_the_split(soc):
    rng = np.random.default_rng(9)
    args = _case(rng, np.int8, np.uint8, np.int8, "row", "column", (2, 150, 64), (64, 300))
    g = golden(*args)
    for cores in (1, 3):
        np.testing.assert_array_equal(emu.qlinear_matmul(*args, soc=soc, core_num=cores), g)
        stats = emu.last_run_stats()
        assert stats["plan"]["used_cores"] <= cores


@pytest.mark.parametrize("y_name", ["float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("at,bt", [(np.uint8, np.int8), (np.int8, np.uint8)])
def test_float8_output_on_910_95(y_name, at, bt):
    # Integer operands, float8 y (ascend910_95 only): saturate to +-max, round to nearest even, exactly as the
    # golden. y_scale is chosen so that some outputs saturate and most do not.
    import ml_dtypes

    yt = getattr(ml_dtypes, y_name)
    rng = np.random.default_rng(21)
    a, b = _rand(rng, at, (3, 29, 61)), _rand(rng, bt, (61, 37))
    a_s = rng.uniform(0.01, 0.02, (29,)).astype(np.float32)
    b_s = rng.uniform(0.01, 0.02, (37,)).astype(np.float32)
    largest = float(ml_dtypes.finfo(yt).max)
    y_s = np.float32(0.02 * 0.02 * 61 * 60 * 128 / largest / 4)
    args = (a, a_s, _rand(rng, at, (29,)), b, b_s, _rand(rng, bt, (37,)), y_s, yt(0))
    y = emu.qlinear_matmul(*args, soc="ascend910_95")
    g = golden(*args)
    assert y.dtype == g.dtype == yt
    np.testing.assert_array_equal(y.view(np.uint8), g.view(np.uint8))
    assert (np.abs(g.astype(np.float32)) == largest).any() and len(np.unique(g.view(np.uint8))) > 50
    with pytest.raises(DTypeError):  # no float8 on the other SoCs (SoC table)
        emu.qlinear_matmul(*args, soc="ascend910b")


@pytest.mark.parametrize("soc", SOCS)
def test_ties_round_half_to_even_then_add_the_zero_point(soc):
    # mult = 1 * 1 / 2: every odd acc lands exactly on .5 (docs/references.md#onnxruntime-qlinearmatmul: acc/2 = 0.5,
    # 1.5, 2.5, 3.5 with y_zp 1 gives [1, 3, 3, 5] under round-then-add; adding first, or rounding half away from
    # zero, gives other values).
    a = np.array([[1, 3, 5, 7, -1, -3, -5, -7]], np.int8).T  # [8, 1]
    b = np.array([[1]], np.int8)
    y = emu.qlinear_matmul(a, np.float32(1), np.int8(0), b, np.float32(1), np.int8(0), np.float32(2), np.int8(1),
                           soc=soc)
    np.testing.assert_array_equal(y[:, 0], np.array([1, 3, 3, 5, 1, -1, -1, -3], np.int8))
    # The same on a full tile of random odd accumulators.
    rng = np.random.default_rng(13)
    a = _rand(rng, np.int8, (40, 33))
    b = _rand(rng, np.int8, (33, 50))
    args = (a, np.float32(1), np.int8(0), b, np.float32(1), np.int8(0), np.float32(2.0**9), np.int8(1))
    y = emu.qlinear_matmul(*args, soc=soc)
    np.testing.assert_array_equal(y, golden(*args))


# ---- ascend310p (no DataCopyPad): y rows that end in a partial 32-byte block ----------------------------------------
# A row segment of y whose width is not a multiple of 32 bytes is written as its whole blocks plus the one block ending
# at the segment's end (it rewrites 32 - width % 32 of the core's own bytes): DMA only, never a scalar GM store, whose
# data-cache flush could write back bytes another core is writing. The plan picks baseN so that every such segment
# is at least 32 bytes wide; only when none exists (N < 32, or N / 32 divisible by every block width / 32, e.g.
# N = 26885) does the op run on one core, which stores those bytes with the scalar unit. The emulator fails when two
# cores write the same GM byte, so a back-off block reaching into another core's bytes is caught too.

def _expected_y_writes(t, m, n, batch):
    """Per core (DMA bytes of y, rewritten bytes, scalar-stored bytes), from the block geometry (stripM rows x baseN
    columns, N fastest) and the kernel's split of the blocks over the workers (310p: one worker per core), not from
    the plan's explanation."""
    cores, count = t["usedCores"], t["unitCount"]
    assert t["workersPerCore"] == 1 and count == batch * t["strips"] * t["nBlocks"]
    q, r = divmod(count, cores)
    out = []
    for core in range(cores):
        begin = core * q + min(core, r)
        dma = rewrite = scalar = 0
        for unit in range(begin, begin + q + (1 if core < r else 0)):
            strip, nb = unit // t["nBlocks"] % t["strips"], unit % t["nBlocks"]
            rows = min(t["stripM"], m - strip * t["stripM"])
            cols = min(t["baseN"], n - nb * t["baseN"])
            part = cols % 32
            if part and cols >= 32:
                dma += rows * (cols + 32 - part)
                rewrite += rows * (32 - part)
            else:
                dma += rows * (cols - part)
                scalar += rows * part
        out.append((dma, rewrite, scalar))
    return out


# (batch of a, M, K, N): M and K odd; N = 33, 40, 63, 70, 99 (one N block), 270 and 300 (several), 17 and 26885 (one
# core). The back-off block starts 1, 8, 31, 6, 3, 14 and 12 bytes into the row's last whole block: the scalar unit's
# move into place in words of 4 bytes, whole or with 1, 2 or 3 bytes over.
PARTIAL_ROW_CASES = [((), 301, 45, 33), ((2,), 75, 29, 40), ((), 301, 45, 63), ((), 301, 45, 70),
                     ((2,), 20, 29, 99), ((), 301, 45, 270),
                     ((3,), 37, 23, 270), ((), 301, 45, 300), ((), 1, 45, 300), ((), 301, 45, 17), ((), 3, 5, 26885)]


@pytest.mark.parametrize("batch,m,k,n", PARTIAL_ROW_CASES,
                         ids=[f"{'x'.join(map(str, c[0] + (c[1], c[2], c[3])))}" for c in PARTIAL_ROW_CASES])
def test_310p_rows_ending_in_a_partial_block_are_written_by_dma_only(batch, m, k, n):
    rng = np.random.default_rng(zlib.crc32(f"partial {batch} {m} {k} {n}".encode()))
    a_shape, b_shape = batch + (m, k), (k, n)
    single = n < 32 or n == 26885
    # Bit-exact with random zero points and every parameter granularity, uint8 and int8 operands.
    for (at, bt, yt), (a_kind, b_kind) in zip([(np.uint8, np.int8, np.uint8), (np.int8, np.uint8, np.int8),
                                               (np.int8, np.int8, np.int8), (np.uint8, np.uint8, np.uint8)], KINDS):
        args = _case(rng, at, bt, yt, a_kind, b_kind, a_shape, b_shape)
        np.testing.assert_array_equal(emu.qlinear_matmul(*args, soc="ascend310p"), golden(*args),
                                      err_msg=f"{a_kind}/{b_kind}")
        run = emu.last_run_stats()["run"]
        scalar_writes = sum(c["gm_scalar_writes"] for c in run["cores"])
        if single:
            assert len(run["cores"]) == 1 and scalar_writes > 0
        else:
            assert len(run["cores"]) > 1 and scalar_writes == 0  # several cores, no scalar GM store
    # Accounting: int8 operands with zero zero points write only C (the cube) and y, so per core the DMA bytes
    # written beyond the cube's C are y's bytes plus the back-off rewrites.
    a, b = _rand(rng, np.int8, a_shape), _rand(rng, np.int8, b_shape)
    args = (a, np.float32(0.01), np.int8(0), b, np.float32(0.02), np.int8(0), np.float32(0.05), np.int8(-3))
    y = emu.qlinear_matmul(*args, soc="ascend310p")
    np.testing.assert_array_equal(y, golden(*args))
    assert len(np.unique(y)) > 20
    stats = emu.last_run_stats()
    t = tiling.plan_qlinear_matmul(a_shape, b_shape, soc="ascend310p").tiling
    nbatch = int(np.prod(batch, dtype=np.int64))
    want = _expected_y_writes(t, m, n, nbatch)
    cores = stats["run"]["cores"]
    assert len(cores) == t["usedCores"] and (len(cores) == 1) == single
    got = [(c["gm_write_bytes"] - mm["c_bytes"], c["gm_scalar_writes"]) for c, mm in zip(cores, stats["matmul"])]
    assert got == [(dma, scalar) for dma, _, scalar in want]
    assert sum(d - r + s for d, r, s in want) == nbatch * m * n  # every y byte once, plus the rewrites
    if single:
        assert sum(s for _, _, s in want) == nbatch * m * (n % t["baseN"] % 32 or n % 32)
    else:
        assert sum(r for _, r, _ in want) > 0 and all(s == 0 for _, _, s in want)
        assert n % t["baseN"] == 0 or n % t["baseN"] >= 32
