"""QLinearMatMul's cube GEMM path on ascend310p (tiling key 3, op_kernel/aqo_qmm_cube_gemm_310p.h): a of more rows
than the decode paths take against an int8 b, or a uint8 b with a uint8 a, stored [K, N] or transposed [N, K], on the
AI cores' own cube pipeline: b turned (or gathered) once a panel and kept in L1, a streamed past it in slabs gathered
into L0A's order. The plan takes it exactly where it applies, its results are byte-for-byte the golden's (every cube
type pair, b layout, y type, parameter layout and zero-point case; partial slabs and row blocks, K in steps with a
short last one, narrow panels, several panels a core walked in both directions, K beyond what L1 holds in
passes whose int32 sums meet in the workspace), and its GM traffic is what its design says."""
from __future__ import annotations

import importlib

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


def test_the_plan_takes_the_cube_gemm_path_exactly_where_it_applies():
    assert _key((4096, 4096), (4096, 4096)) == CUBE_GEMM
    assert _key((17, 256), (256, 96)) == CUBE_GEMM                          # beyond the decode paths' 16 rows
    assert _key((16, 256), (256, 96)) == CUBE_DECODE
    assert _key((100, 256), (256, 96), at="uint8") == CUBE_GEMM
    assert _key((100, 256), (256, 96), at="uint8", bt="uint8") == CUBE_GEMM
    assert _key((100, 256), (256, 96), at="int8", bt="uint8") == CUBE       # the cube has no int8 x uint8
    assert _key((100, 256), (256, 96), b_trans=True) == CUBE_GEMM           # b stored [N, K] too
    assert _key((2, 100, 256), (256, 96)) == CUBE_GEMM                      # a's matrices against one b: one a
    assert _key((2, 100, 256), (1, 256, 96)) == CUBE_GEMM
    assert _key((2, 100, 256), (2, 256, 96)) == CUBE                        # a batch of b
    # per-row parameters shared by a's matrices ([M]): each matrix reads the same rows, one taller a cannot
    assert _key((2, 100, 256), (256, 96), a_param="row", a_param_batched=False) == CUBE
    assert _key((2, 100, 256), (256, 96), a_param="row", a_param_batched=True) == CUBE_GEMM
    assert _key((100, 250), (250, 96)) == CUBE                              # whole 32-byte blocks only
    assert _key((100, 256), (256, 100)) == CUBE
    assert _key((100, 4096), (4096, 96)) == CUBE_GEMM                       # K: what L1 holds in one pass
    assert _key((100, 4128), (4128, 96)) == CUBE_GEMM                       # beyond, passes
    # K at most where every int32 value of the passes' sums stays below 2^31 (255 x 255 x K, whole 32-byte blocks)
    assert 255 * 255 * 33024 < 2**31 <= 255 * 255 * 33056
    for at, bt in PAIRS:
        assert _key((100, 33024), (33024, 96), at=at, bt=bt) == CUBE_GEMM
        assert _key((100, 33056), (33056, 96), at=at, bt=bt) == CUBE
    for soc in ("ascend910b", "ascend910_95"):
        assert _key((4096, 4096), (4096, 4096), soc=soc) == CUBE


def test_the_split_and_the_buffers():
    p = _plan((4096, 4096), (4096, 4096))
    t = p.tiling
    # 8 AI cores, 512 columns each in panels of 128 (a panel of 4096 rows, 512 KiB, beside two 64-row slabs in L1)
    assert (t["usedCores"], t["unitCount"], t["cgPanel"], t["cgSlab"], t["cgKStep"]) == (8, 128, 128, 64, 256)
    # where a's row sums come from the cube, L0B also holds a K step of the ones column: 2 x 224 x 128 + 224 x 16
    assert t["cgKStepRa"] == 224 and 2 * 224 * 128 + 224 * 16 <= 65536 < 2 * 256 * 128 + 256 * 16
    assert t["cgChunkK"] * t["cgPanel"] == 32768 and t["workspace_bytes"] == 0
    assert t["k"] * t["cgPanel"] + 2 * t["cgSlab"] * t["k"] <= 1 << 20
    e = p.explanation
    assert e["mode"] == "cube_gemm" and e["used_cores"] == 8
    assert sum(b["bytes"] * b["slots"] for b in e["ub"]) <= tiling.soc_table()[SOC]["ub_bytes"]
    # panels evened out over a core's columns (160 columns a core: two panels of at most 96); fewer 32-column units
    # than cores
    assert _plan((100, 256), (256, 1280)).tiling["cgPanel"] == 96
    assert _plan((100, 256), (256, 320)).tiling["cgPanel"] == 64
    t = _plan((100, 256), (256, 64)).tiling
    assert t["usedCores"] == 2 and t["cgPanel"] == 64 and t["cgKStep"] == t["cgKStepRa"] == 256  # the narrowest


def test_the_epilogue_takes_half_a_slab_a_chunk_where_b_has_one_scale():
    # The per-element multiplier and its y_scale divisor are read only with b's per-column scales; otherwise each is
    # one block, and the room goes to the epilogue's chunks: 4096^3 takes a 64-row slab's C in two chunks (35 rows at
    # most, evened to 32 + 32), where the patterns of 26 rows each left it three.
    t = _plan((4096, 4096), (4096, 4096)).tiling
    assert t["ubPattern"] == 32 and t["rowsPerChunk"] == 35
    assert -(-t["cgSlab"] // t["rowsPerChunk"]) == 2
    for a_param in ("tensor", "row"):
        t = _plan((4096, 4096), (4096, 4096), a_param=a_param, b_param="column").tiling
        assert t["ubPattern"] == t["rowsPerChunk"] * t["cStride"] * 4
    # The work region: three read slots of a piece (8 rows x K) and the gathered row block (16 rows x K), or four
    # chunks of b;
    # the C region: a slab's fractals, one chunk's rows, b's column sums' row, a's row sums (a slab's rows x 16 int32).
    t = _plan((4096, 4096), (4096, 4096)).tiling
    assert t["ubCgWork"] == max(3 * 8 * 4096 + 16 * 4096, 4 * t["cgChunkK"] * t["cgPanel"])
    assert t["ubCgC"] == (t["cgSlab"] + t["rowsPerChunk"]) * t["cgPanel"] * 4 + t["cgPanel"] * 4 + t["cgSlab"] * 64


def test_b_of_2_31_bytes_or_more_takes_the_cube_paths_not_the_matmul_api():
    # The Matmul API offsets an int8 b [K, N] with a 32-bit int (refused from 2^31 bytes on); the cube paths offset
    # every GM access in 64 bits, so a larger b (an lm_head, say) goes to them, and only the API path refuses it.
    k, n = 16384, 131104
    assert k * n >= 2**31
    assert _key((17, k), (k, n)) == CUBE_GEMM
    assert _key((17, k), (k, n), b_trans=True) == CUBE_GEMM
    assert _key((16, k), (k, n)) == CUBE_DECODE
    p = _plan((17, k), (k, n))
    assert p.tiling["workspace_bytes"] == 8 * 17 * p.tiling["cStride"] * 4  # four passes: M rows a core
    for a_shape, b_shape in [((17, 40000), (40000, 65536)),      # K beyond the GEMM path's: the API path
                             ((17, k), (k, n + 1))]:              # N not of whole blocks: the API path
        with pytest.raises(tiling.ConstraintError, match="32-bit B offset"):
            _plan(a_shape, b_shape)


@pytest.mark.parametrize("k, passes, kpart", [(4096, 1, 4096), (4128, 2, 2304), (6144, 2, 3072), (8000, 2, 4096),
                                              (8192, 2, 4096), (11008, 3, 3840), (12288, 3, 4096), (33024, 9, 3840)])
def test_longer_k_goes_in_passes_of_what_l1_holds(k, passes, kpart):
    # L1 (1 MiB) holds the panel (K x 128) and two slabs (64 x K) up to K = 4096; beyond, K goes in passes of even
    # length (whole 256-value chunks but the last), the panel and the slabs keep their size, and the int32 sums of the
    # panel a core is on (M rows of cStride) wait in its part of the workspace between the passes: the same rows for
    # each of its panels (512 columns a core here: four)
    t = _plan((4096, k), (k, 4096)).tiling
    assert (t["tiling_key"], t["cgPanel"], t["cgSlab"], t["cgKPart"]) == (CUBE_GEMM, 128, 64, kpart)
    assert -(-k // kpart) == passes and kpart * 128 + 2 * 64 * kpart <= 1 << 20
    assert kpart == k or kpart % 256 == 0
    assert t["workspace_bytes"] == (0 if passes == 1 else 8 * 4096 * t["cStride"] * 4)
    # K steps as long as an L0A half holds of a slab and an L0B half of the panel (32 KiB each)
    assert (t["cgKStep"], t["cgKStepRa"]) == (256, 224)


_operands = qmm_cube_operands.operands
_transposed = qmm_cube_operands.transposed


def _check(args, y_scale, y_zp=3, y_dtype=np.int8):
    full = tuple(args) + (np.float32(y_scale), y_dtype(y_zp))
    y = eq.qlinear_matmul(*full, soc=SOC)
    np.testing.assert_array_equal(y, golden.qlinear_matmul(*full))
    assert eq.last_run_stats()["plan"]["tiling_key"] == CUBE_GEMM
    return eq.last_run_stats()


PAIRS = [("int8", "int8"), ("uint8", "int8"), ("uint8", "uint8")]
# (a shape, b shape): a partial last slab and row block with K in one step; K in whole steps and a short last step
# (2976: the short step in the gathered row block's second half of K), narrow panels; 130 rows (three slabs with the
# ones row's), two panels a core.
SHAPES = [((100, 288), (288, 96)), ((70, 2976), (2976, 160)), ((130, 512), (512, 2048))]


@pytest.mark.parametrize("b_trans", [False, True], ids=["b[K,N]", "b[N,K]"])
@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("params", [("tensor", "tensor"), ("row", "column"), ("tensor", "column"), ("row", "tensor")])
@pytest.mark.parametrize("zps", ["random", "a0", "b0", "0"])
def test_bit_exact_for_every_type_pair_and_zero_point_case(pair, params, zps, b_trans):
    rng = np.random.default_rng(abs(hash((pair, params, zps))) % 2**32)
    for a_shape, b_shape in SHAPES:
        args = _operands(rng, a_shape, b_shape, *pair, *params, zps)
        _check(_transposed(args) if b_trans else args, y_scale=40.0)


@pytest.mark.parametrize("b_trans", [False, True], ids=["b[K,N]", "b[N,K]"])
@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("k", [4096, 33024], ids=["one_pass", "nine_passes"])
def test_bit_exact_at_the_operands_extremes_with_a_uint8_y(pair, b_trans, k):
    # a - a_zp and b - b_zp at their largest magnitudes all along K: the int32 sums reach 255 x 255 x K (at the
    # longest K, 33024 in nine passes, still below 2^31: the emulator refuses an int32 vector result that leaves
    # int32), y uint8
    at, bt = pair
    lo = lambda dt: np.iinfo(np.dtype(dt)).min  # noqa: E731
    hi = lambda dt: np.iinfo(np.dtype(dt)).max  # noqa: E731
    m, n = 20, 64
    a = np.full((m, k), hi(at), np.dtype(at))
    a[1::2] = lo(at)
    b = np.full((k, n), lo(bt), np.dtype(bt))
    b[:, 1::2] = hi(bt)
    zero_points = [(lo(at) if at == "uint8" else 0, hi(bt) if bt == "uint8" else 0), (lo(at), hi(bt)),
                   (hi(at), lo(bt))]
    for za, zb in zero_points:
        args = (a, np.float32(1e-3), np.dtype(at).type(za), b, np.float32(1e-3), np.dtype(bt).type(zb))
        _check(_transposed(args) if b_trans else args, y_scale=9.0 * k / 4096, y_zp=128, y_dtype=np.uint8)


@pytest.mark.parametrize("b_trans", [False, True], ids=["b[K,N]", "b[N,K]"])
@pytest.mark.parametrize("zps", ["random", "a0", "b0", "0"])
@pytest.mark.parametrize("k", [4608, 8000, 8192])
def test_bit_exact_beyond_k_4096(k, zps, b_trans):
    # two passes (4608: 2304 + 2304 with a short last K step; 8000: 4096 + 3904, the last pass shorter, so the ones
    # row and the per-tensor row terms are made again for it); 288 columns over 8 cores: one core's 64 columns a
    # whole panel, the others' 32 a 64-column panel of which the workspace and the sums' Add take 32 columns a row
    rng = np.random.default_rng(k + len(zps))
    args = _operands(rng, (70, k), (k, 288), "uint8", "uint8", "tensor", "column", zps)
    _check(_transposed(args) if b_trans else args, y_scale=400.0)
    args = _operands(rng, (40, k), (k, 256), "int8", "int8", "row", "tensor", zps)
    _check(_transposed(args) if b_trans else args, y_scale=400.0)


@pytest.mark.parametrize("b_trans", [False, True], ids=["b[K,N]", "b[N,K]"])
@pytest.mark.parametrize("zps", ["random", "a0", "b0"])
def test_bit_exact_in_three_passes(zps, b_trans):
    # 11008 (LLaMA's MLP width): 3840 + 3840 + 3328, the middle pass reads the sums and writes them again; several
    # slabs and two panels a core; 1280 columns: panels of 96 and 64 (a narrower last panel)
    rng = np.random.default_rng(len(zps) + 2 * b_trans)
    args = _operands(rng, (150, 11008), (11008, 2048), "int8", "int8", "row", "column", zps)
    stats = _check(_transposed(args) if b_trans else args, y_scale=4000.0)
    assert _plan((150, 11008), (11008, 2048), b_trans=b_trans).tiling["cgKPart"] == 3840
    assert stats["plan"]["workspace_bytes"] > 0
    args = _operands(rng, (70, 11008), (11008, 1280), "uint8", "uint8", "tensor", "column", zps)
    _check(_transposed(args) if b_trans else args, y_scale=4000.0)


@pytest.mark.parametrize("b_trans", [False, True], ids=["b[K,N]", "b[N,K]"])
def test_row_sums_from_the_cube_at_k_4096_keep_whole_panels(b_trans):
    # b's zero points not 0: a's row sums from a second Mmad against L0B's ones, K steps of 224 (18 and a short one of
    # 64); a core's 128 columns stay one panel, so a is read once a core
    rng = np.random.default_rng(19)
    m, k, n = 40, 4096, 1024
    args = _operands(rng, (m, k), (k, n), "uint8", "uint8", "tensor", "column", "random")
    stats = _check(_transposed(args) if b_trans else args, y_scale=900.0)
    t = _plan((m, k), (k, n), "uint8", "uint8", b_param="column", b_trans=b_trans).tiling
    assert (t["cgPanel"], t["cgKStepRa"], t["usedCores"]) == (128, 224, 8) and k % 224 == 64
    a_reads = sum(c["gm_read_bytes"] for c in stats["run"]["cores"]) - k * n - 4 * n - n
    assert 8 * m * k <= a_reads < 8 * m * k + 8 * 4096


@pytest.mark.parametrize("b_trans", [False, True], ids=["b[K,N]", "b[N,K]"])
@pytest.mark.parametrize("zps", ["random", "b0"])
def test_a_batch_against_one_b_is_one_taller_a(zps, b_trans):
    # [2, 3, 30, K] x [1, K, N]: 180 rows of a in one launch of the cube GEMM path (per-row parameters laid out with
    # a's batch dims are one vector of its rows), the same y as the golden's batched product
    rng = np.random.default_rng(11)
    a, a_s, a_z, b, b_s, b_z = _operands(rng, (180, 512), (512, 160), "uint8", "int8", "row", "column", zps)
    args = (a.reshape(2, 3, 30, 512), a_s.reshape(2, 3, 30, 1), a_z.reshape(2, 3, 30, 1), b.reshape(1, 512, 160),
            b_s, b_z)
    if b_trans:
        args = args[:3] + (np.ascontiguousarray(b.T).T.reshape(1, 512, 160),) + args[4:]
    _check(args, y_scale=40.0)
    p = _plan((2, 3, 30, 512), (1, 512, 160), "uint8", "int8", a_param="row", b_param="column", a_param_batched=True,
              b_trans=b_trans)
    assert p.tiling["m"] == 180 and p.tiling["batch"] == 1
    assert any("6 matrices against one b" in note for note in p.explanation["notes"])


def test_a_batch_stays_a_batch_where_one_taller_a_would_not_do():
    # per-row parameters shared by the matrices ([M, 1]): the emulator lays them out as the CANN adapter does (one
    # vector for every matrix), so the batch runs on the Matmul API as on the device
    rng = np.random.default_rng(12)
    a, a_s, a_z, b, b_s, b_z = _operands(rng, (40, 256), (256, 96), "uint8", "int8", "row", "tensor", "random")
    a3 = np.stack([a, a[::-1].copy(), a])
    full = (a3, a_s.reshape(40, 1), a_z.reshape(40, 1), b, b_s, b_z, np.float32(40.0), np.int8(3))
    np.testing.assert_array_equal(eq.qlinear_matmul(*full, soc=SOC), golden.qlinear_matmul(*full))
    assert eq.last_run_stats()["plan"]["tiling_key"] == CUBE
    # past the kernels' broadcast batch rank the request keeps its refusal
    with pytest.raises(tiling.ConstraintError, match="broadcast batch dimensions"):
        _plan((2,) + (1,) * 7 + (3, 20, 256), (256, 96))
    # a flattened request its path refuses (a smaller UB) is planned as it came
    p = _plan((3, 6, 6144), (6144, 64), b_param="column", b_trans=True, ub_size=131072)
    assert p.tiling["tiling_key"] == CUBE and p.tiling["batch"] == 3


def test_many_slabs_and_panels_walked_both_ways():
    # 8 cores x 2 panels of 128 columns, 6 slabs: the second panel walks the slabs from the last
    rng = np.random.default_rng(7)
    for zps in ("0", "random"):
        _check(_operands(rng, (380, 512), (512, 2048), "int8", "int8", "row", "column", zps), y_scale=30.0)


@pytest.mark.parametrize("b_param", ["column", "tensor"])
@pytest.mark.parametrize("zps", ["random", "b0"])
def test_per_row_parameters_of_all_rows_at_once_or_slab_by_slab(b_param, zps):
    # a's per-row scales and zero points (per-token activations): all M rows read once a launch where UB holds them
    # without an extra epilogue chunk a slab (300 rows), else a slab's at a time (2000 rows, b's scales per column);
    # either way each slab's row terms (0 - za', K za' - RA) come from one Brcb of its za' and two vector instructions,
    # and a chunk's per-row x per-column multiplier from one Brcb and one Mul per 64 columns
    rng = np.random.default_rng(11 + len(zps))
    for (a_shape, b_shape), all_rows in ((((300, 512), (512, 2048)), True), (((2000, 512), (512, 512)), False)):
        t = _plan(a_shape, b_shape, "uint8", "int8", a_param="row", b_param=b_param).tiling
        assert t["tiling_key"] == CUBE_GEMM
        if b_param == "column":
            assert (t["ubRowF32"] // 4 >= a_shape[0] and t["ubRowI32"] // 4 >= a_shape[0]) == all_rows
        _check(_operands(rng, a_shape, b_shape, "uint8", "int8", "row", b_param, zps), y_scale=40.0)


def test_the_zero_point_terms_stay_in_int32_vectors_at_every_accepted_k():
    # 255 x 255 x K < 2^31 up to the path's K limit: the correction and the passes' sums never need the scalar unit's
    # wrapping path here (the decode path's tests cover it)
    for at, bt in PAIRS:
        t = _plan((40, 33024), (33024, 64), at, bt).tiling
        assert t["tiling_key"] == CUBE_GEMM and t["vectorCorrection"] == 1


@pytest.mark.parametrize("b_trans", [False, True], ids=["b[K,N]", "b[N,K]"])
@pytest.mark.parametrize("params", [("tensor", "tensor"), ("row", "column")])
@pytest.mark.parametrize("zps", ["0", "random", "b0", "a0"])
def test_traffic_is_the_model_to_the_byte(params, zps, b_trans):
    rng = np.random.default_rng(43)
    a_shape, b_shape = (150, 512), (512, 2048)
    args = _operands(rng, a_shape, b_shape, "int8", "int8", *params, zps)
    stats = _check(_transposed(args) if b_trans else args, y_scale=20.0)
    t = _plan(a_shape, b_shape, a_param=params[0], b_param=params[1], b_trans=b_trans).tiling
    measured = sum(c["gm_read_bytes"] + c["gm_write_bytes"] for c in stats["run"]["cores"])
    assert measured == dm.qmm_cube_gemm_traffic(t, *dm.qmm_effective_zero_points(t, args[2], args[5]))
    # b and y once; a once per panel of each core: two panels of 128 columns here, whether or not a's row sums are
    # needed (they come from L0B's ones, not from a panel's columns)
    m, k, n = 150, 512, 2048
    panels = 2
    assert measured >= m * k + k * n + m * n
    assert measured <= 8 * panels * m * k + k * n + m * n + 16 * n + 8 * m * panels * 16


@pytest.mark.parametrize("zps", ["0", "random"])
def test_traffic_in_passes_is_the_model_to_the_byte(zps):
    # three passes: each panel's int32 sums written twice and read twice (M rows of its columns, 4 bytes each)
    rng = np.random.default_rng(44)
    a_shape, b_shape = (100, 8448), (8448, 1280)
    args = _operands(rng, a_shape, b_shape, "uint8", "int8", "row", "column", zps)
    stats = _check(args, y_scale=2000.0)
    t = _plan(a_shape, b_shape, "uint8", "int8", a_param="row", b_param="column").tiling
    assert -(-t["k"] // t["cgKPart"]) == 3
    measured = sum(c["gm_read_bytes"] + c["gm_write_bytes"] for c in stats["run"]["cores"])
    assert measured == dm.qmm_cube_gemm_traffic(t, *dm.qmm_effective_zero_points(t, args[2], args[5]))
    assert measured >= 100 * 8448 + 8448 * 1280 + 100 * 1280 + 2 * 2 * 100 * 1280 * 4


def test_the_explanation_holds_the_invariants():
    p = _plan((300, 512), (512, 2080))
    assert tiling.verify_explanation(p.explanation) == []
    p = _plan((300, 8448), (8448, 2080))  # passes: each core's part of the workspace
    assert tiling.verify_explanation(p.explanation) == []
    assert p.tiling["workspace_bytes"] > 0 and any("3 passes" in note for note in p.explanation["notes"])
    e = p.explanation
    covered = sorted((w["begin"], w["end"]) for w in e["work"])
    assert covered[0][0] == 0 and covered[-1][1] == 2080 // 32
    assert all(a[1] == b[0] for a, b in zip(covered, covered[1:]))


@pytest.mark.parametrize("variant", [dict(ub_copy_pipe="mte3"), dict(divide="perturbed"),
                                     dict(modeless_rounding="toward_zero"), dict(vector_subnormals="flushed"),
                                     dict(saturation_inf="inf", saturation_nan="nan")])
def test_under_every_run_variant(variant):
    # Every y stays the golden's whichever pipe a UB -> UB copy takes (the path has none left: C's int32 rows come from
    # Or gathers on V; the variant stays so that one added later is held to both pipes). The epilogue's division is
    # the cube path's: under perturbed division it meets the same criteria (integer y within 1 of the golden's, as
    # the cube path's run-variant tests).
    rng = np.random.default_rng(47)
    with emulator.run_options(**variant):
        for a_shape, b_shape, pair in [((70, 320), (320, 2080), ("int8", "int8")),
                                       ((130, 2976), (2976, 96), ("uint8", "uint8")),
                                       ((60, 8448), (8448, 96), ("uint8", "int8"))]:  # three passes
            a, _, a_z, b, _, b_z = _operands(rng, a_shape, b_shape, *pair, "row", "column", "random")
            a_s = np.full(a_shape[0], 0.25, np.float32)
            b_s = np.full(b_shape[1], 0.5, np.float32)
            full = (a, a_s, a_z, b, b_s, b_z, np.float32(2 ** int(np.log2(a_shape[1] * 8))), np.int8(3))
            y, g = eq.qlinear_matmul(*full, soc=SOC), golden.qlinear_matmul(*full)
            assert eq.last_run_stats()["plan"]["tiling_key"] == CUBE_GEMM
            qmm_cube_operands.assert_y_under_variant(y, g, variant)


@pytest.mark.parametrize("m,zps", [(150, "0"), (150, "random"), (64, "a0"), (200, "b0")])
def test_a_panel_after_the_first_reads_one_slab_fewer(m, zps):
    # Three panels of 128 columns a core; the panels alternate their direction over M, so each panel after a core's
    # first starts with the slab the panel before ended with, still in its L1 slab buffer, and does not read it again.
    # Bit-exact against the golden; each core's reads of a (off the emulator's trace: the DMAs within a's GM buffer)
    # are all of a for every panel but those kept slabs, and the GM traffic is the model's to the byte. M = 150 and
    # 200: a partial last slab (with a's zero point, "random" and "b0", slabs of 48 rows and the ones row); M = 64
    # with a's zero point 0 ("a0"): one slab, so a panel after a core's first reads no a at all.
    rng = np.random.default_rng(45 + m)
    k, n = 512, 3072
    args = _operands(rng, (m, k), (k, n), "int8", "int8", "tensor", "tensor", zps)
    stats = _check(args, y_scale=20.0)
    trace = emulator.last_run_trace()
    t = _plan((m, k), (k, n)).tiling
    assert t["tiling_key"] == CUBE_GEMM and t["cgPanel"] == 128 and t["cgKPart"] == k
    za, zb = dm.qmm_effective_zero_points(t, args[2], args[5])
    measured = sum(c["gm_read_bytes"] + c["gm_write_bytes"] for c in stats["run"]["cores"])
    assert measured == dm.qmm_cube_gemm_traffic(t, za, zb)
    rows_a = 48 if np.any(za != 0) else 64
    slabs = -(-m // rows_a)
    kept = {0: min(rows_a, m), 1: m - (slabs - 1) * rows_a}  # the last slab of a reverse panel, of a forward one
    panels = n // t["usedCores"] // 128
    assert panels == 3
    expect = (panels * m - kept[0] - kept[1]) * k            # panel 1 keeps a forward panel's, panel 2 a reverse one's
    (a_buf,) = [g for g in trace["gm_buffers"] if g["name"] == "a"]
    for core in trace["cores"]:
        a_bytes = sum(r["bytes"] * r.get("blocks", 1) for e in core["events"]
                      if e.get("pipe") == "MTE2" and e.get("gm")
                      for r in e["gm"] if a_buf["addr"] <= r["addr"] < a_buf["addr"] + a_buf["bytes"])
        assert a_bytes == expect, core["core"]
