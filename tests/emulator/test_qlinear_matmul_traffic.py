"""QLinearMatMul GM traffic: what a run moves (emulator.last_run_stats(): every DMA byte and every Matmul API call of
every vector worker) is exactly what the kernel's traffic model says for the plan's tiling and the zero points
(ascend_quant_ops.perf.traffic: qmm_traffic_model), and the zero-point terms are skipped when their zero points are
all 0: the row sums of A' (times b's zero points) when b_zp == 0, the column sums of B' (times a's) when a_zp == 0
(after the uint8 <-> int8 mapping: a mapped uint8 zero point of 128 is 0); the column sums come with the product (a
ones row before each strip of A) instead of reading b again, the row sums from the vector unit while it reads A.
Results stay bit-exact against the golden."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from ascend_quant_ops import tiling
from ascend_quant_ops.perf import traffic as dm
from ascend_quant_ops.golden import qlinear_matmul as golden

eq = importlib.import_module("ascend_quant_ops.emulator.qlinear_matmul")

SOCS = ["ascend910b", "ascend310p", "ascend910_95"]


def _run(soc, a_shape, b_shape, at, bt, a_param, b_param, a_zp, b_zp, seed=0, core_num=None, batched=False):
    """batched: a's per-row parameters laid out with its batch dims ([..., M, 1]), else one [M] vector."""
    rng = np.random.default_rng(seed)

    def rand(dtype, shape):
        info = np.iinfo(np.dtype(dtype))
        return rng.integers(info.min, int(info.max) + 1, size=shape).astype(dtype)

    m, n = a_shape[-2], b_shape[-1]
    a, b = rand(at, a_shape), rand(bt, b_shape)
    a_s = rng.uniform(0.01, 0.02, (m,) if a_param == "row" else ()).astype(np.float32)
    if batched:
        a_s = np.broadcast_to(a_s.reshape(m, 1), a_shape[:-2] + (m, 1)).copy()
        a_zp = np.broadcast_to(np.asarray(a_zp).reshape(m, 1), a_shape[:-2] + (m, 1)).copy()
    b_s = rng.uniform(0.01, 0.02, (n,) if b_param == "column" else ()).astype(np.float32)
    a_z = np.asarray(a_zp, dtype=at)
    b_z = np.asarray(b_zp, dtype=bt)
    args = (a, a_s, a_z, b, b_s, b_z, np.float32(0.5), np.int8(3))
    y = eq.qlinear_matmul(*args, soc=soc, core_num=core_num)
    np.testing.assert_array_equal(y, golden.qlinear_matmul(*args))
    stats = eq.last_run_stats()
    # The plan the emulator backend launched: per-row / per-column parameters of shape [M] / [N] are one vector for
    # every batch matrix (as the CANN adapter lays them out), a's laid out with its batch dims are batched.
    t = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype=at, b_dtype=bt, y_dtype="int8",
                                   a_param=a_param, b_param=b_param, a_param_batched=batched,
                                   core_num=core_num).tiling
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
# (batches of a and b: a's matrices against one b take the cube GEMM path on ascend310p, as one taller a, without the
# Matmul API)
SHAPES = [((2, 100, 320), (2, 320, 160), "int8", "int8", "tensor", "tensor"),
          ((2, 100, 320), (2, 320, 160), "uint8", "int8", "tensor", "column"),
          ((2, 100, 64), (2, 64, 96), "uint8", "uint8", "row", "column"),
          ((3, 64, 96), (96, 256), "int8", "uint8", "row", "tensor")]


def _effective_zero(soc, a_shape, b_shape, at, bt):
    """The zero point values that are 0 for the cube's operands: the mapping's shift (a mapped uint8's 128)."""
    t = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype=at, b_dtype=bt).tiling
    return t["zpShiftA"], t["zpShiftB"]


def _zero_points(soc, case, which, rng):
    """which: 'random' (non-zero), 'a0' (a's effective zero points 0), 'b0', '0' (both)."""
    a_shape, b_shape, at, bt, ap, bp = case
    m, n = a_shape[-2], b_shape[-1]
    zero_a, zero_b = _effective_zero(soc, a_shape, b_shape, at, bt)

    def zp(shape, zero, value):
        return np.full(shape, value) if zero else rng.integers(1, 100, size=shape)

    a_zp = zp((m,) if ap == "row" else (), which in ("a0", "0"), zero_a)
    b_zp = zp((n,) if bp == "column" else (), which in ("b0", "0"), zero_b)
    return a_zp, b_zp


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("case", SHAPES, ids=lambda c: f"{c[2]}x{c[3]}-{c[4]}-{c[5]}")
@pytest.mark.parametrize("which", ["random", "a0", "b0", "0"])
def test_traffic_is_the_model_and_zero_zero_points_skip_their_sums(soc, case, which):
    rng = np.random.default_rng(7)
    a_shape, b_shape, at, bt, ap, bp = case
    a_zp, b_zp = _zero_points(soc, case, which, rng)
    t, stats, a_z, b_z = _run(soc, a_shape, b_shape, at, bt, ap, bp, a_zp, b_zp)
    cube = _check_model(soc, t, stats, a_z, b_z)
    k, m, n = t["k"], t["m"], t["n"]
    batch = t["batch"]
    mm = stats["matmul"]
    za, zb = dm.qmm_effective_zero_points(t, a_z, b_z)
    ones_row = bool(np.any(za != 0))
    # Model-independent: B is read once per strip of A (each cube call reads its blocks' columns once, the blocks of
    # a strip cover N once); C holds the product, plus the column sums as row 0 of every strip when some effective a
    # zero point is not 0 (a ones row before the strip: the column sums never read b again); the row sums cost the
    # cube nothing (the vector unit sums them while it reads A).
    assert sum(c["b_bytes"] for c in mm) == batch * t["strips"] * n * k
    assert sum(c["c_bytes"] for c in mm) == 4 * batch * n * (m + (t["strips"] if ones_row else 0))
    strips_read = batch * m + (batch * t["strips"] if ones_row else 0)
    assert sum(c["a_bytes"] for c in mm) >= strips_read * k
    assert sum(c["calls"] for c in cube) == sum(1 for w, u in dm.qmm_worker_units(t)
                                                for _ in dm.qmm_worker_calls(t, w, u))


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("which", ["random", "0"])
def test_traffic_is_the_model_with_per_row_parameters_of_every_matrix(soc, which):
    # a's per-row parameters laid out with its batch dims ([2, 100, 1]): each matrix reads its own rows (on ascend310p
    # its two matrices against one b are one taller a, the cube GEMM path's)
    case = ((2, 100, 64), (64, 96), "uint8", "uint8", "row", "column")
    a_zp, b_zp = _zero_points(soc, case, which, np.random.default_rng(8))
    t, stats, a_z, b_z = _run(soc, *case, a_zp, b_zp, batched=True)
    if soc != "ascend310p":
        _check_model(soc, t, stats, a_z, b_z)
        return
    assert (t["tiling_key"], t["m"], t["batch"]) == (3, 200, 1)
    measured = sum(c["gm_read_bytes"] + c["gm_write_bytes"] for c in stats["run"]["cores"])
    assert measured == dm.qmm_cube_gemm_traffic(t, *dm.qmm_effective_zero_points(t, a_z, b_z))


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("at", ["int8", "uint8"])
def test_one_non_zero_zero_point_enables_its_term_at_the_cost_of_a_ones_row(soc, at):
    # Per-column b zero points non-zero only in the first 32 columns, per-row a zero points non-zero (after the
    # mapping) only in row 5: the kernel decides per launch, so every strip gets its ones row (the column sums in C
    # row 0) and the row sums; the cube makes the same calls as with all zero points 0, and reads one more row per
    # strip.
    m, k, n = 256, 128, 500  # (N not a multiple of 32: the cube path on ascend310p too, not its cube GEMM path)
    zero_a = np.full(m, _effective_zero(soc, (m, k), (k, n), at, "int8")[0], np.int64)
    a_zp = zero_a.copy()
    a_zp[5] = 9
    b_zp = np.zeros(n, np.int64)
    b_zp[:32] = -4
    t, stats, a_z, b_z = _run(soc, (m, k), (k, n), at, "int8", "row", "column", a_zp, b_zp, seed=3)
    cube = _check_model(soc, t, stats, a_z, b_z)
    t0, stats0, a_z0, b_z0 = _run(soc, (m, k), (k, n), at, "int8", "row", "column", zero_a, np.zeros(n, np.int64),
                                  seed=3)
    cube0 = _check_model(soc, t0, stats0, a_z0, b_z0)
    assert [c["calls"] for c in cube] == [c["calls"] for c in cube0]
    assert sum(c["c_bytes"] for c in cube) == sum(c["c_bytes"] for c in cube0) + 4 * t["strips"] * n
    assert sum(c["b_bytes"] for c in cube) == sum(c["b_bytes"] for c in cube0)


# ascend310p with N not a multiple of 32 (int8 operands: no mapping reads): a y row segment ending in a partial block
# is DMA'd as its whole blocks plus the block ending at its end (the model counts the 32 - width % 32 rewritten
# bytes), on several cores and with no scalar GM store; N < 32 and N = 26885 (no block width leaves a last N block of
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
    last = n - (t["nBlocks"] - 1) * t["baseN"]  # the last N block's width
    assert sum(c["gm_scalar_writes"] for c in cores) == (m * last if single else 0)
    assert (0 < last < 32) if single else (last % 32 == 0 or last >= 32)


# One strip of a prepared per worker (every 310p launch; a split SoC's decode step whose per-worker copies are small):
# with one y matrix, each worker reads only its own columns' b zero points and skips a's row sums, their row terms
# and its columns' zero points when they are all 0. The model follows each worker's decision; a launch whose b zero
# points are non-zero in one column moves less than one whose b zero points are all non-zero.
@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("at", ["int8", "uint8"])
def test_workers_preparing_for_themselves_decide_from_their_own_columns(soc, at):
    m, k, n = 1, 300, 4500
    plan = tiling.plan_qlinear_matmul((m, k), (k, n), soc=soc, a_dtype=at, b_dtype="int8", b_param="column").tiling
    assert plan["sharedPrep"] == 0 and plan["unitCount"] == plan["nBlocks"] and plan["usedCores"] > 1
    zero_a = _effective_zero(soc, (m, k), (k, n), at, "int8")[0]
    one = np.zeros(n, np.int64)
    one[n // 2] = 5
    moved = {}
    for name, a_zp, b_zp in (("random", 9 + zero_a, np.arange(n) % 50 + 1), ("one column", 9 + zero_a, one),
                             ("zero", 9 + zero_a, np.zeros(n, np.int64)), ("a0", zero_a, one)):
        t, stats, a_z, b_z = _run(soc, (m, k), (k, n), at, "int8", "tensor", "column", a_zp, b_zp, seed=5)
        _check_model(soc, t, stats, a_z, b_z)
        moved[name] = sum(c["gm_read_bytes"] + c["gm_write_bytes"] for c in stats["run"]["cores"])
    assert moved["zero"] < moved["one column"] < moved["random"]


# ascend310p rounds: where b and the cores' strips of a pass half of the L2, each core takes whole strip rows first
# (the cores' i-th strips together), b's columns range by range, each core starting a range at its own block, then an
# even share of the blocks after the rounds. The run is bit-exact and every y byte is written (the runner poisons y);
# each core's Matmul calls, and the A / B / C bytes they read, are those of the model's segments (two calls per range
# a strip row, where the core's starting block is not the range's first). Cases: one whole round and a tail shared by
# both cores; a tail of two strip rows over three cores; no tail; uint8 a (a strip prepared per call whose strip changes) with
# per-row a parameters and N not a multiple of 32.
# (N not a multiple of 32: int8 x int8 with whole blocks takes the cube GEMM path on ascend310p, without the Matmul API)
ROUND_CASES = [  # (m, k, n), core_num, a dtype, a_param
    ((300, 2048, 4088), 2, "int8", "tensor"),
    ((520, 2048, 4088), 3, "int8", "tensor"),
    ((381, 2048, 4152), 3, "int8", "tensor"),
    ((300, 2048, 4100), 2, "uint8", "row"),
]


@pytest.mark.parametrize("mkn,core_num,at,a_param", ROUND_CASES,
                         ids=[f"{'x'.join(map(str, c[0]))}-{c[1]}cores-{c[2]}-{c[3]}" for c in ROUND_CASES])
@pytest.mark.parametrize("which", ["random", "0"])
def test_310p_rounds(mkn, core_num, at, a_param, which):
    m, k, n = mkn
    rng = np.random.default_rng(11)
    info = np.iinfo(np.dtype(at))
    a_zp = rng.integers(info.min, int(info.max) + 1, size=(m,) if a_param == "row" else ()) if which == "random" \
        else np.zeros((m,) if a_param == "row" else (), np.int64)
    b_zp = rng.integers(-128, 128, size=n) if which == "random" else np.zeros(n, np.int64)
    t, stats, a_z, b_z = _run("ascend310p", (m, k), (k, n), at, "int8", a_param, "column", a_zp, b_zp,
                              core_num=core_num)
    assert t["roundRanges"] >= 2 and t["usedCores"] == core_num
    cube = _check_model("ascend310p", t, stats, a_z, b_z)
    # Model-independent: B is read once per strip (the ranges and their two parts cover each strip row's columns
    # once), every core has a whole strip row of the rounds, and a core's calls never span two ranges.
    assert sum(c["b_bytes"] for c in cube) == t["strips"] * n * k
    rounds = t["strips"] // core_num
    per_range = -(-t["nBlocks"] // t["roundRanges"])
    assert all(c["calls"] >= rounds * t["roundRanges"] for c in cube)
    assert all(c["b_bytes"] <= c["calls"] * per_range * t["baseN"] * k for c in cube)
