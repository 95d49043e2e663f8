"""QLinearMatMul GM traffic: what a run moves (emulator.last_run_stats(): every DMA byte and every Matmul API call of
every vector worker) is exactly what the kernel's traffic model says for the plan's tiling and the zero points
(ascend_quant_ops.perf.traffic: qmm_traffic_model), and the zero-point sums are skipped where their zero points are 0:
the row sums of A' (times b's zero points) when b_zp == 0, the column sums of B' (times a's) when a_zp == 0
(after the uint8 -> int8 mapping: a uint8 zero point of 128 is 0), and with mapped uint8 a the column sums come
with the product (a ones row before the mapped rows) instead of reading b again. Results stay bit-exact against the
golden."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from ascend_quant_ops import tiling
from ascend_quant_ops.perf import traffic as dm
from ascend_quant_ops.golden import qlinear_matmul as golden

eq = importlib.import_module("ascend_quant_ops.emulator.qlinear_matmul")

SOCS = ["ascend910b", "ascend310p", "ascend910_95"]


def _run(soc, a_shape, b_shape, at, bt, a_param, b_param, a_zp, b_zp, seed=0):
    rng = np.random.default_rng(seed)

    def rand(dtype, shape):
        info = np.iinfo(np.dtype(dtype))
        return rng.integers(info.min, int(info.max) + 1, size=shape).astype(dtype)

    m, n = a_shape[-2], b_shape[-1]
    a, b = rand(at, a_shape), rand(bt, b_shape)
    a_s = rng.uniform(0.01, 0.02, (m,) if a_param == "row" else ()).astype(np.float32)
    b_s = rng.uniform(0.01, 0.02, (n,) if b_param == "column" else ()).astype(np.float32)
    a_z = np.asarray(a_zp, dtype=at)
    b_z = np.asarray(b_zp, dtype=bt)
    args = (a, a_s, a_z, b, b_s, b_z, np.float32(0.5), np.int8(3))
    y = eq.qlinear_matmul(*args, soc=soc)
    np.testing.assert_array_equal(y, golden.qlinear_matmul(*args))
    stats = eq.last_run_stats()
    t = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype=at, b_dtype=bt, y_dtype="int8",
                                   a_param=a_param, b_param=b_param).tiling
    return t, stats, a_z, b_z


def _check_model(soc, t, stats, a_z, b_z):
    pad = not tiling.soc_table()[soc]["has_data_copy_pad"]
    za, zb = dm.qmm_effective_zero_points(t, a_z, b_z)
    total, cube = dm.qmm_traffic_model(t, za, zb, pad)
    measured = sum(c["gm_read_bytes"] + c["gm_write_bytes"] for c in stats["run"]["cores"])
    got = [{k: c[k] for k in ("calls", "a_bytes", "b_bytes", "c_bytes")} for c in stats["matmul"]]
    assert got == cube
    assert measured == total
    return cube


# (a shape, b shape, a dtype, b dtype, a_param, b_param): shapes whose rows are whole 32-byte blocks, so that the
# model's 310p padding of the uint8 mapping's reads is exact too (near the end of a / b that mapping reads its last
# partial block with the scalar unit). y rows ending in a partial block on 310p: test_310p_partial_y_rows below.
SHAPES = [((200, 320), (320, 160), "int8", "int8", "tensor", "tensor"),
          ((200, 320), (320, 160), "uint8", "int8", "tensor", "column"),
          ((2, 100, 64), (64, 96), "uint8", "uint8", "row", "column"),
          ((3, 64, 96), (96, 256), "int8", "uint8", "row", "tensor")]


def _zero_points(case, which, rng):
    """which: 'random' (non-zero), 'a0' (a's effective zero points 0), 'b0', '0' (both)."""
    a_shape, b_shape, at, bt, ap, bp = case
    m, n = a_shape[-2], b_shape[-1]

    def zp(dtype, shape, zero):
        if zero:
            return np.full(shape, 128 if dtype == "uint8" else 0)  # uint8 is mapped: v - 128, zero point - 128
        return rng.integers(1, 100, size=shape)

    a_zp = zp(at, (m,) if ap == "row" else (), which in ("a0", "0"))
    b_zp = zp(bt, (n,) if bp == "column" else (), which in ("b0", "0"))
    return a_zp, b_zp


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("case", SHAPES, ids=lambda c: f"{c[2]}x{c[3]}-{c[4]}-{c[5]}")
@pytest.mark.parametrize("which", ["random", "a0", "b0", "0"])
def test_traffic_is_the_model_and_zero_zero_points_skip_their_sums(soc, case, which):
    rng = np.random.default_rng(7)
    a_shape, b_shape, at, bt, ap, bp = case
    a_zp, b_zp = _zero_points(case, which, rng)
    t, stats, a_z, b_z = _run(soc, a_shape, b_shape, at, bt, ap, bp, a_zp, b_zp)
    cube = _check_model(soc, t, stats, a_z, b_z)
    k = t["k"]
    calls = sum(c["calls"] for c in cube)
    tiles = t["tileCount"]
    # Model-independent counts: every tile has one product (rows x K of a, K x cols of b); a row-sum call reads
    # K bytes of ones as B, a column-sum call K bytes of ones as A.
    mm = stats["matmul"]
    product_a = sum(min(t["baseM"], t["m"] - (i // t["tilesN"] % t["tilesM"]) * t["baseM"]) * k for i in range(tiles))
    product_b = sum(min(t["baseN"], t["n"] - (i % t["tilesN"]) * t["baseN"]) * k for i in range(tiles))
    if which == "0":
        assert calls == tiles  # the product only
        assert sum(c["a_bytes"] for c in mm) == product_a
        assert sum(c["b_bytes"] for c in mm) == product_b
    if which == "a0":
        # no column sums: B is read once per tile for the product, plus a ones column of k bytes per row-sum call
        assert sum(c["b_bytes"] for c in mm) == product_b + (calls - tiles) * k
    if which == "b0":
        # no row sums; every tile's column sums cost K bytes of ones as A (a ones row folded into the product for
        # mapped uint8 a, a [1, K] x [K, cols] call otherwise)
        assert sum(c["a_bytes"] for c in mm) == product_a + tiles * k
        assert calls == (tiles if t["mapA"] else 2 * tiles)
    if t["mapA"]:
        # mapped a: the column sums never read b again (only row-sum calls read B: K bytes of ones each)
        assert sum(c["b_bytes"] for c in mm) == product_b + (calls - tiles) * k
    if which == "random":
        assert calls > tiles


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("at", ["int8", "uint8"])
def test_sums_only_on_tiles_whose_zero_points_are_not_zero(soc, at):
    # Per-column b zero points non-zero only in the first 32 columns: only the tiles covering them compute row sums;
    # per-row a zero points non-zero (after the mapping) only in row 5: only the tiles of its M-block compute column
    # sums, folded into the product for uint8 a.
    m, k, n = 256, 128, 512
    a_zp = np.full(m, 128 if at == "uint8" else 0, np.int64)
    a_zp[5] = 9
    b_zp = np.zeros(n, np.int64)
    b_zp[:32] = -4
    t, stats, a_z, b_z = _run(soc, (m, k), (k, n), at, "int8", "row", "column", a_zp, b_zp, seed=3)
    cube = _check_model(soc, t, stats, a_z, b_z)
    calls = sum(c["calls"] for c in cube)
    tiles = t["tileCount"]
    row_tiles = t["tilesM"]  # tiles whose columns include 0..31 (N-block 0): one per M-block
    col_tiles = t["tilesN"]  # tiles whose rows include row 5 (M-block 0): one per N-block
    # the first N-block's tiles never share rows with an earlier tile of their worker: one row-sum call each
    assert calls == tiles + row_tiles + (0 if at == "uint8" else col_tiles)
    assert sum(c["a_bytes"] for c in stats["matmul"]) == (m * t["tilesN"] + col_tiles + row_tiles * t["baseM"]) * k


# ascend310p with N not a multiple of 32 (int8 operands: no mapping reads): a y row segment ending in a partial block
# is DMA'd as its whole blocks plus the block ending at its end (the model counts the 32 - width % 32 rewritten
# bytes), on several cores and with no scalar GM store; N < 32 and N = 26885 (no tile width leaves a last N-tile of
# >= 32 bytes) run on one core, whose scalar stores of the last width % 32 bytes per row are not DMA (not in the model).
@pytest.mark.parametrize("n", [33, 70, 270, 300, 17, 26885])
@pytest.mark.parametrize("which", ["random", "0"])
def test_310p_partial_y_rows(n, which):
    m, k = (3, 5) if n == 26885 else (301, 45)
    rng = np.random.default_rng(n)
    a_zp = rng.integers(1, 100, m) if which == "random" else np.zeros(m, np.int64)
    b_zp = rng.integers(1, 100, n) if which == "random" else np.zeros(n, np.int64)
    t, stats, a_z, b_z = _run("ascend310p", (m, k), (k, n), "int8", "int8", "row", "column", a_zp, b_zp)
    _check_model("ascend310p", t, stats, a_z, b_z)
    single = n in (17, 26885)
    cores = stats["run"]["cores"]
    assert (len(cores) == 1) == single
    assert sum(c["gm_scalar_writes"] for c in cores) == (m * (n % t["baseN"]) if single else 0)
    # The model's y term: the rewritten bytes are DMA writes (one row of the last N-tile rewrites 32 - width % 32).
    za, zb = dm.qmm_effective_zero_points(t, a_z, b_z)
    last = n - (t["tilesN"] - 1) * t["baseN"]
    rewritten = m * (32 - last % 32) if last % 32 and last >= 32 else 0
    scalar = m * last if last < 32 else 0
    assert not single or (rewritten == 0 and scalar == m * (n % 32))
    assert single or (rewritten > 0 and scalar == 0)
    with_y_exact = dm.qmm_traffic_model(t, za, zb, False)[0]  # as if y moved exactly once (DataCopyPad)
    assert dm.qmm_traffic_model(t, za, zb, True)[0] == with_y_exact + rewritten - scalar
