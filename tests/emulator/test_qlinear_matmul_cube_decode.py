"""QLinearMatMul's cube decode path on ascend310p (tiling key 2, op_kernel/aqo_qmm_cube_decode_310p.h): a short a
(7 to 16 rows, or fewer where the vector decode path does not apply) against an int8 b, or a uint8 b with a uint8 a,
stored [K, N] or transposed [N, K], on the AI cores' own cube pipeline: b turned by TransDataTo5HD (or, transposed,
gathered into L0B's layout) and fed to the cube from L1. The plan takes it exactly where it applies, its results are
byte-for-byte the golden's (every cube type pair, b layout, y type, parameter layout and zero-point case; a in several
K pieces, several column groups a core, narrow last groups, the ones row in a second row block), and its GM traffic is
what its design says."""
from __future__ import annotations

import importlib
import random

import numpy as np
import pytest

from ascend_quant_ops import emulator, tiling
from ascend_quant_ops.golden import qlinear_matmul as golden
from ascend_quant_ops.perf import traffic as dm

import qmm_cube_operands

eq = importlib.import_module("ascend_quant_ops.emulator.qlinear_matmul")

SOC = "ascend310p"
CUBE, VECTOR_DECODE, CUBE_DECODE, CUBE_GEMM = 0, 1, 2, 3


def _plan(a_shape, b_shape, at="int8", bt="int8", soc=SOC, **kw):
    return tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype=at, b_dtype=bt, **kw)


def _key(*args, **kw):
    return _plan(*args, **kw).tiling["tiling_key"]


def test_the_plan_takes_the_cube_decode_path_exactly_where_it_applies():
    assert _key((16, 4096), (4096, 4096)) == CUBE_DECODE
    assert _key((7, 256), (256, 96)) == CUBE_DECODE
    assert _key((7, 256), (256, 96), at="uint8") == CUBE_DECODE
    assert _key((7, 256), (256, 96), at="uint8", bt="uint8") == CUBE_DECODE
    assert _key((7, 256), (256, 96), at="int8", bt="uint8") == CUBE        # the cube has no int8 x uint8
    assert _key((6, 256), (256, 96)) == VECTOR_DECODE                       # up to 6 rows: the vector path
    assert _key((1, 33056), (33056, 64)) == CUBE_DECODE                     # ... but for its K limit
    assert _key((17, 256), (256, 96)) == CUBE_GEMM                          # 17 rows: the cube GEMM path
    assert _key((8, 256), (256, 96), b_trans=True) == CUBE_DECODE           # b stored [N, K] too
    assert _key((1, 256), (256, 96), b_trans=True) == CUBE_DECODE           # (the vector path reads [K, N] only)
    assert _key((1, 256), (256, 96), "uint8", "uint8", b_trans=True) == CUBE_DECODE
    assert _key((2, 8, 256), (256, 96)) == CUBE_DECODE                      # a's matrices against one b: 16 rows
    assert _key((3, 8, 256), (256, 96)) == CUBE_GEMM                        # ... 24 rows
    assert _key((2, 8, 256), (2, 256, 96)) == CUBE                          # a batch of b
    assert _key((8, 250), (250, 96)) == CUBE                                # whole 32-byte blocks only
    assert _key((8, 256), (256, 100)) == CUBE
    # the cube's int32 sums stay in int32: K x |a| x |b| < 2^31
    assert _key((8, 32 * 1024), (32 * 1024, 64), at="uint8", bt="uint8") == CUBE_DECODE
    assert _key((8, 33056), (33056, 64), at="uint8", bt="uint8") == CUBE
    # a whole in L1 (1 MiB) beside two chunks of b
    assert _key((8, 60000 // 32 * 32), (60000 // 32 * 32, 64)) == CUBE_DECODE
    assert _key((8, 63 * 1024), (63 * 1024, 64)) == CUBE
    for soc in ("ascend910b", "ascend910_95"):
        assert _key((16, 4096), (4096, 4096), soc=soc) == CUBE


def test_the_split_and_the_buffers():
    t = _plan((16, 4096), (4096, 4096)).tiling
    # 8 AI cores, 512 columns each in one group; a with its ones row in two row blocks, in pieces that fill L0A
    assert (t["usedCores"], t["unitCount"], t["cdGroup"], t["cdRowsA"], t["cdPieceK"]) == (8, 128, 512, 32, 2048)
    assert t["cdChunkK"] * t["cdGroup"] == 32768 and t["workspace_bytes"] == 0
    e = _plan((16, 4096), (4096, 4096)).explanation
    assert e["mode"] == "cube_decode" and e["used_cores"] == 8
    assert sum(b["bytes"] * b["slots"] for b in e["ub"]) <= tiling.soc_table()[SOC]["ub_bytes"]
    # wide rows of b: groups of at most an L0B half's 1024 columns
    t = _plan((8, 256), (256, 16384)).tiling
    assert t["cdGroup"] == 1024 and t["cdRowsA"] == 16 and t["cdPieceK"] == 256
    # fewer 32-column units than cores
    t = _plan((8, 256), (256, 64)).tiling
    assert t["usedCores"] == 2 and t["cdGroup"] == 32


def _slot0_past_a(t, b_trans=False):
    """Whether the work region reaches past a's staging and fractals and the other chunk slots by a chunk: the kernel
    then reads b's first chunk there (aqo_qmm_layout.h CdEarlySlot0), without waiting for a's gather."""
    chunk = t["cdChunkK"] * (16 if b_trans else t["cdGroup"])
    a = 2 * ((t["cdRowsA"] * t["cdPieceK"] + 31) // 32 * 32)
    return t["ubCdWork"] >= max(a, 4 * chunk) + chunk


def test_b_first_chunk_slot_past_a_where_ub_has_the_room():
    # 16 x 4096 x 4096: a's staging and fractals (2 x 32 rows x 2048) then a 32 KiB chunk, 4 KiB more than the rest
    # of the region needs, with the epilogue's rows per step unchanged
    t = _plan((16, 4096), (4096, 4096)).tiling
    assert t["ubCdWork"] == 2 * 32 * 2048 + 32768 and _slot0_past_a(t) and t["rowsPerChunk"] == 11
    assert _slot0_past_a(_plan((9, 4096), (4096, 32768), b_trans=True).tiling, b_trans=True)
    # 65536 columns: the epilogue's buffers leave no room; the first chunk waits for a's gather and copy to L1
    t = _plan((8, 256), (256, 65536)).tiling
    assert t["tiling_key"] == CUBE_DECODE and not _slot0_past_a(t)
    args = _operands(np.random.default_rng(5), (8, 256), (256, 65536), "int8", "int8", "tensor", "tensor", "random")
    _check(args, 40.0)


_operands = qmm_cube_operands.operands
_transposed = qmm_cube_operands.transposed


def _check(args, y_scale, y_zp=3, y_dtype=np.int8):
    full = tuple(args) + (np.float32(y_scale), y_dtype(y_zp))
    y = eq.qlinear_matmul(*full, soc=SOC)
    np.testing.assert_array_equal(y, golden.qlinear_matmul(*full))
    return eq.last_run_stats()


PAIRS = [("int8", "int8"), ("uint8", "int8"), ("uint8", "uint8")]
# (a shape, b shape): 16 rows (the ones row in a second row block), 7 rows, a narrow last group on some cores.
SHAPES = [((16, 256), (256, 96)), ((7, 320), (320, 2080)), ((12, 96), (96, 64))]


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("params", [("tensor", "tensor"), ("row", "column"), ("tensor", "column"), ("row", "tensor")])
@pytest.mark.parametrize("zps", ["random", "a0", "b0", "0"])
@pytest.mark.parametrize("b_trans", [False, True], ids=["b", "b_trans"])
def test_bit_exact_for_every_type_pair_and_zero_point_case(pair, params, zps, b_trans):
    rng = np.random.default_rng(23)
    for a_shape, b_shape in SHAPES:
        p = _plan(a_shape, b_shape, *pair, a_param=params[0], b_param=params[1], b_trans=b_trans)
        assert p.tiling["tiling_key"] == CUBE_DECODE and p.tiling["bTrans"] == int(b_trans)
        args = _operands(rng, a_shape, b_shape, *pair, *params, zps)
        _check(_transposed(args) if b_trans else args, y_scale=a_shape[-1] * 0.02)


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("b_trans", [False, True], ids=["b", "b_trans"])
def test_bit_exact_at_the_operands_extremes_with_a_uint8_y(pair, b_trans):
    # a - a_zp and b - b_zp at their largest magnitudes: the zero-point terms at their bounds
    rng = np.random.default_rng(29)
    a, a_s, a_z, b, b_s, b_z = _operands(rng, (9, 512), (512, 256), *pair, "row", "column", "random")
    ai, bi = np.iinfo(a.dtype), np.iinfo(b.dtype)
    a[:, :] = ai.max
    a[1] = ai.min
    b[:, :] = bi.min
    b[:, 1] = bi.max
    a_z[:] = ai.min
    b_z[:] = bi.max
    args = (a, a_s, a_z, b, b_s, b_z)
    _check(_transposed(args) if b_trans else args, y_scale=900.0, y_zp=128, y_dtype=np.uint8)


@pytest.mark.parametrize("zps", ["random", "0"])
@pytest.mark.parametrize("b_trans", [False, True], ids=["b", "b_trans"])
def test_a_in_k_pieces_and_several_groups_a_core(zps, b_trans):
    rng = np.random.default_rng(31)
    fix = _transposed if b_trans else (lambda x: x)
    # 16 rows with a ones row: pieces of 2048 (three here); without a's zero point one row block, pieces of 4096
    p = _plan((16, 4160), (4160, 512), b_trans=b_trans)
    assert p.tiling["cdPieceK"] == 2048
    _check(fix(_operands(rng, (16, 4160), (4160, 512), "int8", "int8", "tensor", "tensor", zps)), y_scale=60.0)
    # 15 rows, one row block: pieces of 4096; a transposed b's chunks of 2048 K values, the last ones shorter
    p = _plan((15, 8256), (8256, 64), b_trans=b_trans)
    assert p.tiling["cdPieceK"] == 4096 and p.tiling["cdRowsA"] == 16
    _check(fix(_operands(rng, (15, 8256), (8256, 64), "uint8", "int8", "row", "tensor", zps)), y_scale=100.0)
    # several groups on every core (514 units over 8 cores: 2080 or 2048 columns in groups of 704), the last narrower
    p = _plan((7, 128), (128, 16448), "uint8", "int8", b_trans=b_trans)
    assert p.tiling["tiling_key"] == CUBE_DECODE and p.tiling["cdGroup"] == 704
    _check(fix(_operands(rng, (7, 128), (128, 16448), "uint8", "int8", "row", "column", zps)), y_scale=2.0)


def test_wrapping_zero_point_terms_beyond_the_int32_vector_bound():
    # uint8 x uint8 with K x 255 x 255 x 4 >= 2^31: the correction goes through the scalar unit's wrapping arithmetic
    rng = np.random.default_rng(37)
    p = _plan((8, 9216), (9216, 64), "uint8", "uint8", a_param="row", b_param="column")
    assert p.tiling["tiling_key"] == CUBE_DECODE and p.tiling["vectorCorrection"] == 0
    _check(_operands(rng, (8, 9216), (9216, 64), "uint8", "uint8", "row", "column", "random"), y_scale=3000.0)


@pytest.mark.parametrize("params", [("tensor", "tensor"), ("row", "column"), ("row", "tensor"), ("tensor", "column")])
@pytest.mark.parametrize("m", [8, 16])
@pytest.mark.parametrize("zps", ["random", "a0", "b0", "0"])
@pytest.mark.parametrize("b_trans", [False, True], ids=["b", "b_trans"])
def test_traffic_is_the_model_and_near_the_minimum(params, m, zps, b_trans):
    rng = np.random.default_rng(41)
    a_shape, b_shape = (m, 1024), (1024, 2048)
    args = _operands(rng, a_shape, b_shape, "int8", "int8", *params, zps)
    stats = _check(_transposed(args) if b_trans else args, y_scale=20.0)
    t = _plan(a_shape, b_shape, a_param=params[0], b_param=params[1], b_trans=b_trans).tiling
    measured = sum(c["gm_read_bytes"] + c["gm_write_bytes"] for c in stats["run"]["cores"])
    assert measured == dm.qmm_cube_decode_traffic(t, *dm.qmm_effective_zero_points(t, args[2], args[5]))
    # b and y once; every core reads all of a (8 x 16 KiB here, 6% of b; 3% at K = N = 4096)
    minimum = m * 1024 + 1024 * 2048 + m * 2048 + (5 * 2048 if params[1] == "column" else 0) + 5 * m
    assert measured <= minimum + 8 * m * 1024 + 2048


def test_the_explanation_holds_the_invariants():
    # Every used core has work, the units are covered once, the UB buffers fit, every y byte is written by one core.
    rng = random.Random("cube-decode")
    spec = tiling.soc_table()[SOC]
    seen = set()
    for _ in range(40):
        m, k, n = rng.randint(7, 16), 32 * rng.randint(1, 200), 32 * rng.randint(1, 700)
        kw = dict(a_param=rng.choice(["tensor", "row"]), b_param=rng.choice(["tensor", "column"]),
                  core_num=rng.choice([None, 1, 3, 5]))
        p = _plan((m, k), (k, n), rng.choice(["int8", "uint8"]), "int8", b_trans=rng.choice([False, True]), **kw)
        t, e = p.tiling, p.explanation
        assert t["tiling_key"] == CUBE_DECODE
        seen.add(t["cdRowsA"])
        problems = tiling.verify_explanation(e, soc_spec_=spec, expected_work=t["unitCount"],
                                             ub_limit=spec["ub_bytes"],
                                             expected_tensors={"a": m * k, "b": k * n, "y": m * n})
        assert problems == [], ((m, k, n), kw, problems[:3])
    assert seen == {16, 32}


@pytest.mark.parametrize("variant", [dict(ub_copy_pipe="mte3"), dict(divide="perturbed"),
                                     dict(modeless_rounding="toward_zero"), dict(vector_subnormals="flushed"),
                                     dict(saturation_inf="inf", saturation_nan="nan")])
def test_exact_under_every_run_variant(variant):
    # C's int32 rows come from UB -> UB copies, whose pipe the documentation leaves open (V or MTE3): the kernel orders
    # them for both, and every y stays the golden's. The epilogue's division and conversions are the cube path's:
    # under perturbed division it meets the same criteria (integer y within 1 of the golden's; even with power-of-two
    # scales a y can land on the other side of a tie there, as on the cube path).
    rng = np.random.default_rng(43)
    with emulator.run_options(**variant):
        for a_shape, b_shape, pair in [((16, 320), (320, 2080), ("int8", "int8")),
                                       ((9, 4160), (4160, 96), ("uint8", "uint8"))]:
            a, _, a_z, b, _, b_z = _operands(rng, a_shape, b_shape, *pair, "row", "column", "random")
            a_s = np.full(a_shape[0], 0.25, np.float32)
            b_s = np.full(b_shape[1], 0.5, np.float32)
            for args in ((a, a_s, a_z, b, b_s, b_z), _transposed((a, a_s, a_z, b, b_s, b_z))):
                full = tuple(args) + (np.float32(2 ** int(np.log2(a_shape[1] * 8))), np.int8(3))
                y, g = eq.qlinear_matmul(*full, soc=SOC), golden.qlinear_matmul(*full)
                qmm_cube_operands.assert_y_under_variant(y, g, variant)
