"""QLinearMatMul's vector decode path (tiling key 1, op_kernel/aqo_qmm_vector_decode.h): a short a (M <= 6) against a
uint8 b stored [..., K, N] runs on the vector cores alone, b read once. The plan takes it exactly where it applies,
its results are byte-for-byte the golden's on every SoC (every operand type, parameter layout and zero-point case,
batches, the exactness limits of its float32 panels and int32 sums), and its GM traffic is what its design says: b
and y once per group of columns, a once per group, the per-column parameters of the group."""
from __future__ import annotations

import importlib
import random

import numpy as np
import pytest

from ascend_quant_ops import emulator, tiling
from ascend_quant_ops.golden import qlinear_matmul as golden
from ascend_quant_ops.perf import traffic as dm

eq = importlib.import_module("ascend_quant_ops.emulator.qlinear_matmul")

SOCS = ["ascend910b", "ascend310p", "ascend910_95"]
VECTOR_DECODE = 1


def _key(soc, a_shape, b_shape, at="uint8", bt="uint8", **kw):
    return tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype=at, b_dtype=bt, **kw).tiling["tiling_key"]


@pytest.mark.parametrize("soc", SOCS)
def test_the_plan_takes_the_vector_path_exactly_where_it_applies(soc):
    assert _key(soc, (1, 256), (256, 96)) == VECTOR_DECODE
    assert _key(soc, (3, 256), (256, 96), at="int8") == VECTOR_DECODE
    assert _key(soc, (2, 1, 64), (2, 64, 64)) == VECTOR_DECODE          # batches too
    assert _key(soc, (6, 256), (256, 96)) == VECTOR_DECODE
    # 7 rows: the cube path is faster (on 310p the cube decode path, key 2, for every 8-bit pair it takes)
    assert _key(soc, (7, 256), (256, 96)) == (2 if soc == "ascend310p" else 0)
    # an int8 b: the split SoCs' cube takes it as it is; 310p's Matmul API would copy it through UB row by row
    assert _key(soc, (1, 256), (256, 96), bt="int8") == (VECTOR_DECODE if soc == "ascend310p" else 0)
    # b stored [N, K]: the cube reads it so (on 310p the cube decode path's own pipeline)
    assert _key(soc, (1, 256), (256, 96), b_trans=True) == (2 if soc == "ascend310p" else 0)
    assert _key(soc, (1, 33025 // 32 * 32), (33025 // 32 * 32, 64)) == VECTOR_DECODE
    assert _key(soc, (1, 33056), (33056, 64)) == 0                      # K > 33025: int32 sums could wrap
    # Without DataCopyPad the panels are whole 32-byte blocks: N and K multiples of 32.
    expect = 0 if soc == "ascend310p" else VECTOR_DECODE
    assert _key(soc, (1, 256), (256, 100)) == expect
    assert _key(soc, (1, 250), (250, 96)) == expect
    p = tiling.plan_qlinear_matmul((1, 4096), (4096, 4096), soc=soc, a_dtype="uint8", b_dtype="uint8")
    t = p.tiling
    assert p.explanation["mode"] == "vector_decode" and t["mapB"] == 0 and t["sharedPrep"] == 0
    # One decode matrix on a split SoC: K in slices, so that each worker's columns make long DMA bursts; their
    # partial sums in the workspace. 310p's 8 cores have 512 columns each without.
    if soc == "ascend310p":
        assert t["vdSlices"] == 1 and t["workspace_bytes"] == 0
    else:
        workers = t["usedCores"] * t["workersPerCore"]
        assert t["vdSlices"] > 1 and workers % t["vdSlices"] == 0
        assert 4096 * t["vdSlices"] // workers >= 512
        assert t["workspace_bytes"] == t["vdSlices"] * 4096 * 4


@pytest.mark.parametrize("soc", SOCS)
def test_the_explanation_names_the_vector_cores_the_launch_starts(soc):
    # the explanation counts AI cores (each running workersPerCore vector workers); its note gives the vector cores,
    # which must be the blockDim the emulator's launch ran with (the host's QLinearMatMulBlockDim)
    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, (1, 4096)).astype(np.uint8)
    b = rng.integers(0, 256, (4096, 256)).astype(np.uint8)
    p = tiling.plan_qlinear_matmul(a.shape, b.shape, soc=soc, a_dtype="uint8", b_dtype="uint8")
    assert p.tiling["tiling_key"] == VECTOR_DECODE
    eq.qlinear_matmul(a, np.float32(1), np.uint8(3), b, np.float32(1), np.uint8(3), np.float32(64), np.uint8(0),
                      soc=soc)
    block_dim = emulator.last_run_trace()["block_dim"]
    notes = [n for n in p.explanation["notes"] if "vector workers" in n]
    if soc == "ascend310p":
        assert not notes and block_dim == p.explanation["used_cores"]
    else:
        assert notes == [f"the cores above are AI cores, each running 2 vector workers: {block_dim} vector cores in "
                         "all (the launch's blockDim)"]
        assert block_dim == 2 * p.explanation["used_cores"]


def _operands(rng, a_shape, b_shape, at, a_param, b_param, zps, batched=False, bt="uint8"):
    def rand(dtype, shape):
        info = np.iinfo(np.dtype(dtype))
        return rng.integers(info.min, int(info.max) + 1, size=shape).astype(dtype)

    m, n = a_shape[-2], b_shape[-1]
    a_vec = a_shape[:-1] + (1,) if batched else (m,)    # [..., M, 1]: per row of every matrix
    b_vec = b_shape[:-2] + (1, n) if batched else (n,)  # [..., 1, N]: per column of every matrix
    a_s = rng.uniform(0.01, 0.02, a_vec if a_param == "row" else ()).astype(np.float32)
    b_s = rng.uniform(0.01, 0.02, b_vec if b_param == "column" else ()).astype(np.float32)
    a_z = rand(at, a_vec if a_param == "row" else ())
    b_z = rand(bt, b_vec if b_param == "column" else ())
    if zps in ("0", "b0"):
        b_z = np.zeros_like(b_z)
    if zps == "0":
        a_z = np.zeros_like(a_z)
    return rand(at, a_shape), a_s, a_z, rand(bt, b_shape), b_s, b_z


def _check(soc, args, y_scale=0.7, y_zp=3, y_dtype=np.int8):
    full = args + (np.float32(y_scale), y_dtype(y_zp))
    y = eq.qlinear_matmul(*full, soc=soc)
    np.testing.assert_array_equal(y, golden.qlinear_matmul(*full))
    return eq.last_run_stats()


# (a shape, b shape): 310p needs N and K multiples of 32 for the path (else the cube path runs: still exact).
SHAPES = [((1, 256), (256, 96)), ((3, 300), (300, 200)), ((2, 1000), (1000, 130)), ((1, 64), (64, 8)),
          ((6, 200), (200, 70))]


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("at", ["int8", "uint8"])
@pytest.mark.parametrize("params", [("tensor", "tensor"), ("row", "column"), ("tensor", "column"), ("row", "tensor")])
@pytest.mark.parametrize("zps", ["random", "b0", "0"])
def test_bit_exact_on_every_soc_type_and_zero_point_case(soc, at, params, zps):
    rng = np.random.default_rng(11)
    for a_shape, b_shape in SHAPES:
        if soc == "ascend310p":
            a_shape = a_shape[:-1] + (-(-a_shape[-1] // 32) * 32,)
            b_shape = (a_shape[-1], -(-b_shape[-1] // 32) * 32)
        assert _key(soc, a_shape, b_shape, at=at) == VECTOR_DECODE
        _check(soc, _operands(rng, a_shape, b_shape, at, *params, zps))


@pytest.mark.parametrize("at", ["int8", "uint8"])
@pytest.mark.parametrize("params", [("tensor", "tensor"), ("row", "column")])
@pytest.mark.parametrize("zps", ["random", "b0", "0"])
def test_bit_exact_with_an_int8_b_on_310p(at, params, zps):
    # the extremes of int8 b (-128 and 127) against a - a_zp at +-255 included
    rng = np.random.default_rng(17)
    for a_shape, b_shape in [((1, 256), (256, 96)), ((3, 320), (320, 224)), ((6, 1024), (1024, 160))]:
        assert _key("ascend310p", a_shape, b_shape, at=at, bt="int8") == VECTOR_DECODE
        a, a_s, a_z, b, b_s, b_z = _operands(rng, a_shape, b_shape, at, *params, zps, bt="int8")
        b[0, :] = -128
        b[1, :] = 127
        if zps == "random":
            a[..., :2] = np.iinfo(a.dtype).max
            a_z = np.full_like(a_z, np.iinfo(a.dtype).min)
        _check("ascend310p", (a, a_s, a_z, b, b_s, b_z), y_scale=64.0)


@pytest.mark.parametrize("soc", SOCS)
def test_bit_exact_with_batches_and_uint8_y(soc):
    rng = np.random.default_rng(5)
    # a batch of a against a batch of b (per-row / per-column parameters batched), and a broadcast a.
    args = _operands(rng, (2, 3, 64), (2, 64, 96), "uint8", "row", "column", "random", batched=True)
    assert _key(soc, (2, 3, 64), (2, 64, 96), a_param="row", b_param="column", a_param_batched=True,
                b_param_batched=True) == VECTOR_DECODE
    _check(soc, args, y_zp=128, y_dtype=np.uint8)
    args = _operands(rng, (1, 64), (3, 64, 64), "int8", "tensor", "column", "random")
    _check(soc, args)
    # Many groups of one panel each (K <= the panel rows): the fetch cursor cuts groups ahead of the one being summed.
    args = _operands(rng, (100, 1, 64), (100, 64, 32), "uint8", "tensor", "column", "random")
    assert _key(soc, (100, 1, 64), (100, 64, 32), b_param="column") == VECTOR_DECODE
    _check(soc, args)


@pytest.mark.parametrize("soc", ["ascend910b", "ascend910_95"])
def test_six_rows_in_k_slices(soc):
    # M = 6 with K slices: the fewest panel rows the slices' sums fit through (4 per row of a).
    rng = np.random.default_rng(9)
    a_shape, b_shape = (6, 4800), (4800, 1024)
    t = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype="int8", b_dtype="uint8", b_param="column").tiling
    assert t["tiling_key"] == VECTOR_DECODE and t["vdSlices"] > 1 and t["vdPanelK"] >= 24
    _check(soc, _operands(rng, a_shape, b_shape, "int8", "tensor", "column", "random"))


def _panel_rows(rows, kp, pad, staggered=False):
    """The panels (their rows, in order) of `rows` rows of K, as the path documents them: from the end, with
    DataCopyPad, short panels of 5, 8, 12, 18, ... rows (each half as long again) while below kp rows, on a staggered
    (odd) worker one more of kp // 2 rows before them, then kp rows each, the first panel the rest."""
    short, r = [], 5
    while pad and r < kp and len(short) < 12:
        short.append(r)
        r += (r + 1) // 2
    if staggered and short:
        short.append(kp // 2)
    panels = []
    for p in short:  # from the end
        if rows <= 0:
            break
        panels.append(min(p, rows))
        rows -= p
    while rows > 0:
        panels.append(min(kp, rows))
        rows -= kp
    # the first panel is the rest: whole kp-row panels counted from the short ones
    return panels[::-1]


def _panel_count(rows, kp, pad, staggered=False):
    return len(_panel_rows(rows, kp, pad, staggered))


@pytest.mark.parametrize("soc", ["ascend910b", "ascend910_95"])
def test_odd_workers_panels_lie_half_a_panel_off_the_even_ones(soc):
    # Each worker's DMAs of b (read off the emulator's trace: the reads within b's GM buffer) are the documented
    # panels of its K slice: an odd worker has one more short panel, so its full panels start kp // 2 rows off an
    # even worker's (their per-burst set-ups do not all fall at once). The results stay the golden's.
    rng = np.random.default_rng(5)
    a_shape, b_shape = (1, 4096), (4096, 4096)
    t = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype="uint8", b_dtype="uint8",
                                   b_param="column").tiling
    assert t["tiling_key"] == VECTOR_DECODE and t["vdSlices"] > 1
    kp, rows = t["vdPanelK"], 4096 // t["vdSlices"]
    _check(soc, _operands(rng, a_shape, b_shape, "uint8", "tensor", "column", "random"))
    trace = emulator.last_run_trace()
    (b_buf,) = [g for g in trace["gm_buffers"] if g["name"] == "b"]
    full_starts = {False: set(), True: set()}  # K rows (mod kp) where a worker's full panels start
    for core in trace["cores"]:
        reads = [e["gm"][0] for e in core["events"] if e.get("pipe") == "MTE2" and e.get("gm")
                 and b_buf["addr"] <= e["gm"][0]["addr"] < b_buf["addr"] + b_buf["bytes"]]
        odd = core["core"] % 2 == 1
        layout = _panel_rows(rows, kp, True, staggered=odd)
        assert reads and [r["blocks"] for r in reads] == layout * (len(reads) // len(layout)), core["core"]
        for r in reads:
            if r["blocks"] == kp:
                full_starts[odd].add((r["addr"] - b_buf["addr"]) // 4096 % rows % kp)
    (even_start,) = full_starts[False]
    assert full_starts[True] == {(even_start + kp // 2) % kp}


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("b_param", ["tensor", "column"])
def test_a_in_chunks_and_short_last_panels(soc, b_param):
    # a comes a chunk of whole panels at a time (vdAChunkK rows): several chunks with a partial last one where UB is
    # short (six rows of a, a long K), one chunk of a K slice in a decode step. b's zero-point term is subtracted as
    # soon as the last chunk is in, before the flushes add the products. The last panels of a worker's rows are
    # short, so a panel's values of a start anywhere in its chunk (its pattern from the block holding the first).
    rng = np.random.default_rng(31)
    pad = tiling.soc_table()[soc]["has_data_copy_pad"]
    chunks_seen = set()
    for a_shape, b_shape in (((2, 6, 3008), (2, 3008, 64)), ((1, 4096), (4096, 1024))):
        t = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype="uint8", b_dtype="uint8",
                                       b_param=b_param).tiling
        assert t["tiling_key"] == VECTOR_DECODE and t["vdAChunkK"] % t["vdPanelK"] == 0
        panels = _panel_count(-(-a_shape[-1] // t["vdSlices"]), t["vdPanelK"], pad)
        chunks = -(-panels // (t["vdAChunkK"] // t["vdPanelK"]))
        # short last panels with DataCopyPad (whole ones without)
        assert (panels > -(-a_shape[-1] // t["vdSlices"] // t["vdPanelK"])) == pad
        chunks_seen.add(chunks > 1)
        _check(soc, _operands(rng, a_shape, b_shape, "uint8", "tensor", b_param, "random"), y_scale=40.0)
    assert chunks_seen == {True, False} or (soc == "ascend910_95" and chunks_seen == {True})


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("zps", ["random", "b0", "0"])
@pytest.mark.parametrize("b_param", ["tensor", "column"])
def test_wide_groups_of_few_panel_rows(soc, zps, b_param):
    # Few workers, so that a group is wider than a float32 row's repeat stride (2040 columns: one MulAddDst per panel
    # row, its 64-column pieces the iterations, a 32-column tail) with a panel of rows not a multiple of 8 (a's
    # pattern rows a whole Brcb repeat apart); a narrower group of few rows in the row form, its 32-column tail in one
    # column-form instruction; and K slices of wide column ranges. b's zero point is subtracted once
    # a group (zb * sum(a - a_zp)); per tensor, per column, or 0.
    rng = np.random.default_rng(21)
    cases = [((1, 256), (256, 4160), 1), ((2, 1, 64), (2, 64, 4160), 1), ((1, 1024), (1024, 2080), 2),
             ((3, 224), (224, 4128), 1), ((1, 256), (256, 2752), 1),
             ((1, 256), (256, 5472), 1)]  # a wide group, then one of 16 columns: more panel rows than pieces
    wide = tail = False
    for a_shape, b_shape, cores in cases:
        t = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype="uint8", b_dtype="uint8",
                                       b_param=b_param, core_num=cores).tiling
        assert t["tiling_key"] == VECTOR_DECODE
        wide = wide or (t["cStride"] > 2040 and t["vdPanelK"] % 8 != 0)
        # A row-form group within the repeat stride: its 32-column tail goes in one column-form instruction.
        g = t["cStride"]
        tail = tail or (g <= 2040 and g % 64 == 32 and t["vdPanelK"] + 1 < g // 64)
        args = _operands(rng, a_shape, b_shape, "uint8", "tensor", b_param, zps)
        full = args + (np.float32(0.7), np.int8(3))
        y = eq.qlinear_matmul(*full, soc=soc, core_num=cores)
        np.testing.assert_array_equal(y, golden.qlinear_matmul(*full))
    # 310p's panels are whole 32-row blocks without DataCopyPad: its groups stay narrow.
    assert wide == tail == (soc != "ascend310p")


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("b_param", ["tensor", "column"])
def test_b_zero_point_when_the_last_flush_falls_on_the_groups_end(soc, b_param):
    # 256 panels exactly (panels of 128 rows and, with DataCopyPad, the short last ones; a batch: no K slices): the
    # float32 sums are flushed at the 256th panel, so the group ends with nothing left to flush, b's zero-point term
    # subtracted long before (once a's last chunk was in). A row more (a block of rows without DataCopyPad): a 257th
    # panel, flushed at the group's end. (An even worker's panels; a staggered odd worker has one more.)
    rng = np.random.default_rng(17)
    pad = tiling.soc_table()[soc]["has_data_copy_pad"]
    step = 1 if pad else 32
    k = max(k for k in range(29984, 33024, step) if _panel_count(k, 128, pad) == 256)
    for k in (k, k + step):
        a_shape, b_shape = (2, 1, k), (2, k, 32)
        t = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype="uint8", b_dtype="uint8",
                                       b_param=b_param).tiling
        assert t["tiling_key"] == VECTOR_DECODE and t["vdSlices"] == 1 and t["vdPanelK"] == 128
        args = _operands(rng, a_shape, b_shape, "uint8", "tensor", b_param, "random")
        _check(soc, args, y_scale=900.0, y_zp=0)


@pytest.mark.parametrize("soc", SOCS)
def test_exact_at_the_limits_of_the_panels_and_the_int32_sums(soc):
    # Every product at its extreme, (0 - 255) * (255 - 0) or 255 * 255: a panel of 128 rows sums to 8323200 < 2^24,
    # and K = 33024 rows sum to about +-2^31 (K <= 33025: no wrap). y = acc / 2^24 keeps y in range.
    for k in (128, 33024):
        for a_val, a_zp, b_val, b_zp in ((0, 255, 255, 0), (255, 0, 255, 0), (255, 0, 0, 255)):
            a = np.full((1, k), a_val, np.uint8)
            b = np.full((k, 32), b_val, np.uint8)
            b[::7] = 128  # not every product extreme: the sums are not all the same
            args = (a, np.float32(2.0 ** -12), np.uint8(a_zp), b, np.float32(2.0 ** -12), np.uint8(b_zp))
            assert _key(soc, (1, k), (k, 32)) == VECTOR_DECODE
            _check(soc, args, y_scale=1.0, y_zp=0)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("params", [("tensor", "tensor"), ("tensor", "column")])  # M = 1: a per-row a is per tensor
def test_traffic_is_the_model_and_near_the_minimum(soc, params):
    rng = np.random.default_rng(3)
    a_shape, b_shape = (1, 1024), (1024, 2048)
    args = _operands(rng, a_shape, b_shape, "uint8", *params, "random")
    stats = _check(soc, args)
    t = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype="uint8", b_dtype="uint8", a_param=params[0],
                                   b_param=params[1]).tiling
    pad = not tiling.soc_table()[soc]["has_data_copy_pad"]
    measured = sum(c["gm_read_bytes"] + c["gm_write_bytes"] for c in stats["run"]["cores"])
    assert measured == dm.qmm_vector_decode_traffic(t, pad)
    # The minimum: a, b and y once (the per-column parameters add 5 bytes a column); every worker reads all of a
    # (64 workers x 1 KiB on ascend910_95: 3% of b here, 1.6% at K = N = 4096); on split SoCs the K slices' partial
    # sums go through the workspace (written and read: 8 bytes per slice and column, at most one slice per 256 rows
    # of K: 3.1% of b).
    minimum = 1024 + 1024 * 2048 + 2048 + (5 * 2048 if params[1] == "column" else 0)
    assert t["vdSlices"] <= max(1, 1024 // 256)
    assert measured <= minimum + 8 * 2048 * t["vdSlices"] + 64 * 1024


@pytest.mark.parametrize("soc", SOCS)
def test_the_explanation_holds_the_invariants(soc):
    # Every used core has work, the units are covered once, UB buffers fit, every y byte is written by one core, the
    # slices' partial sums inside the workspace; over random decode shapes (batches, K slices, narrow and wide N).
    rng = random.Random(f"vector-decode-{soc}")
    spec = tiling.soc_table()[soc]
    seen = set()
    for _ in range(60):
        m, k, n = rng.randint(1, 6), rng.choice([32, 96, 4096, rng.randint(1, 3000)]), rng.randint(1, 5000)
        if soc == "ascend310p":
            k, n = -(-k // 32) * 32, -(-n // 32) * 32
        a_shape, b_shape = rng.choice([((m, k), (k, n)), ((2, m, k), (2, k, n)), ((m, k), (3, k, n))])
        kw = dict(a_param=rng.choice(["tensor", "row"]), b_param=rng.choice(["tensor", "column"]),
                  core_num=rng.choice([None, 1, 3]))
        p = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype="uint8", b_dtype="uint8", **kw)
        t, e = p.tiling, p.explanation
        assert t["tiling_key"] == VECTOR_DECODE
        seen.add(t["vdSlices"] > 1)
        # The slices' sums (M rows of a group, int32) are read through a panel buffer of b: it holds them.
        assert t["vdSlices"] == 1 or t["ubVdB"] >= m * t["cStride"] * 4, (a_shape, b_shape)
        batch = int(np.prod(np.broadcast_shapes(a_shape[:-2], b_shape[:-2])))
        tensors = {"a": int(np.prod(a_shape)), "b": int(np.prod(b_shape)), "y": batch * m * n}
        if t["vdSlices"] > 1:
            tensors["workspace"] = t["vdSlices"] * m * n * 4
        problems = tiling.verify_explanation(e, soc_spec_=spec, expected_work=t["unitCount"],
                                             ub_limit=spec["ub_bytes"], expected_tensors=tensors)
        assert problems == [], (a_shape, b_shape, kw, problems[:3])
    assert seen == ({False} if soc == "ascend310p" else {False, True})


def _edge_scales(acc: np.ndarray):
    """Per-column b scales that put columns of y on a rounding edge: float32(acc) * b_scale (the golden's arithmetic
    with a_scale = y_scale = 1) rounds to 100 while the next float32 above acc (even columns) or below it (odd
    columns) would round differently, so an error of the kernel's sums that moves float32(acc) changes y. Returns the
    scales and how many columns got an edge (a float32 scale between the two thresholds does not always exist)."""
    scales = np.empty(acc.shape, np.float32)
    edges = 0

    def y(f, s):
        return np.rint(np.float32(f * s))

    for j, v in enumerate(acc):
        fe = np.float32(v)
        up = j % 2 == 0
        other = np.nextafter(fe, np.float32(np.inf) if up else np.float32(-np.inf))
        s = np.float32(100.5 / float(fe))
        want = (100, 101) if up else (101, 100)
        for _ in range(64):
            if (y(fe, s), y(other, s)) == want:
                edges += 1
                break
            # up: raise s while neither rounds up yet; down: lower s while both still round up (and vice versa).
            rising = y(other, s) <= 100 if up else y(fe, s) <= 100
            s = np.nextafter(s, np.float32(np.inf) if rising else np.float32(-np.inf))
        scales[j] = s
    return scales, edges


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("k", [4096, 33024])
def test_sums_exact_to_the_last_bit_of_float32_acc(soc, k):
    # Large sums (acc about 2^28 / 2^31): columns sit on a rounding edge of y, so a sum off by one unit of
    # float32(acc) shows (a kernel summing panels in float32 beyond 2^24 did).
    rng = np.random.default_rng(k)
    n = 64
    a = np.full((1, k), 255, np.uint8)
    b = rng.integers(200, 256, (k, n)).astype(np.uint8)
    acc = a.astype(np.int64) @ b.astype(np.int64)
    assert _key(soc, (1, k), (k, n), b_param="column") == VECTOR_DECODE
    scales, edges = _edge_scales(acc[0])
    assert edges >= n // 4
    _check(soc, (a, np.float32(1.0), np.uint8(0), b, scales, np.zeros(n, np.uint8)), y_scale=1.0, y_zp=0)
