"""QLinearMatMul plan (op_host/tiling_core/qlinear_matmul_plan.*): explanation invariants on random shapes per SoC,
the kernel allocating exactly the plan's UB buffers (checked in the emulator), and the plan's own refusals."""
from __future__ import annotations

import importlib
import random
import zlib

import numpy as np
import pytest

from ascend_quant_ops import tiling
from ascend_quant_ops.errors import ConstraintError

SOCS = ("ascend910b", "ascend310p", "ascend910_95")


def _random_case(rng: random.Random):
    m, k, n = rng.randint(1, 700), rng.randint(0, 3000), rng.randint(1, 900)
    batch_a = [rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 2))]
    batch_b = [d if rng.random() < 0.6 else 1 for d in batch_a][rng.randint(0, len(batch_a)):] if batch_a else []
    if rng.random() < 0.3:
        batch_a, batch_b = batch_b, batch_a
    return (tuple(batch_a) + (m, k), tuple(batch_b) + (k, n), rng.choice(["int8", "uint8"]),
            rng.choice(["int8", "uint8"]), rng.choice(["int8", "uint8"]), rng.choice(["tensor", "row"]),
            rng.choice(["tensor", "column"]))


@pytest.mark.parametrize("soc", SOCS)
def test_explanation_invariants_on_random_shapes(soc):
    rng = random.Random(zlib.crc32(soc.encode()))  # deterministic (str hashes are salted per process)
    spec = tiling.soc_table()[soc]
    for _ in range(150):
        a_shape, b_shape, at, bt, yt, ap, bp = _random_case(rng)
        p = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype=at, b_dtype=bt, y_dtype=yt, a_param=ap,
                                       b_param=bp)
        t, e = p.tiling, p.explanation
        batch = int(np.prod(np.broadcast_shapes(a_shape[:-2], b_shape[:-2])))
        m, k, n = a_shape[-2], a_shape[-1], b_shape[-1]
        assert t["unitCount"] == batch * -(-m // t["stripM"]) * -(-n // t["baseN"])
        problems = tiling.verify_explanation(e, expected_work=t["unitCount"], core_limit=spec["qlinear_matmul_cores"],
                                             ub_limit=spec["ub_bytes"],
                                             expected_tensors={"a": int(np.prod(a_shape)), "b": int(np.prod(b_shape)),
                                                               "y": batch * m * n})
        assert problems == [], (a_shape, b_shape, problems[:5])
        # Blocks are whole cube fractals (16) in M and N (32-byte rows of y without DataCopyPad); the strip leaves
        # room for the ones row; the workspace regions are 32-byte aligned, in order, the workers' C areas last.
        step = 16 if spec["has_data_copy_pad"] else 32
        assert t["baseM"] % 16 == 0 and t["baseN"] % step == 0 and t["stripM"] + t["onesRow"] <= t["baseM"]
        offsets = [t[f] for f in ("wsPrepAOffset", "wsPrepBOffset", "wsRaOffset", "wsCOffset")]
        assert offsets == sorted(offsets) and all(o % 32 == 0 for o in offsets)
        assert t["workspace_bytes"] == t["wsCOffset"] + t["usedCores"] * t["workersPerCore"] * t["wsCPerWorker"]
        # uint8 operands are mapped to int8 on every SoC (the cube path the Matmul API offers); 310p maps b per core.
        assert t["mapA"] == (at == "uint8") and t["mapB"] == (bt == "uint8")
        # Prepared operands: per worker on 310p; on split SoCs shared (SyncAll), except one strip of a whose copies,
        # one per worker, stay within 1/32 of b's bytes (b mapped: always shared).
        copies = t["usedCores"] * t["workersPerCore"] * t["prepAStripBytes"]
        private = (t["mapB"] == 0 and t["aMatrices"] * t["strips"] == 1 and copies * 32 <= t["bMatrices"] * k * n)
        assert t["sharedPrep"] == (1 if spec["split_architecture"] and not private else 0)
        if not t["sharedPrep"] and t["mapA"] + t["onesRow"]:
            assert t["wsPrepBOffset"] - t["wsPrepAOffset"] >= t["usedCores"] * t["workersPerCore"] * t["prepAStripBytes"]


@pytest.mark.parametrize("soc", SOCS)
def test_kernel_allocates_exactly_the_planned_ub(soc):
    emu = importlib.import_module("ascend_quant_ops.emulator.qlinear_matmul")
    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, (3, 50, 77)).astype(np.uint8)
    b = rng.integers(-128, 128, (77, 90)).astype(np.int8)
    emu.qlinear_matmul(a, np.float32(0.1), np.uint8(9), b, np.full(90, 0.1, np.float32), np.zeros(90, np.int8),
                       np.float32(2.0), np.uint8(0), soc=soc)
    run = emu.last_run_stats()["run"]
    p = tiling.plan_qlinear_matmul(a.shape, b.shape, soc=soc, a_dtype="uint8", b_dtype="int8", y_dtype="uint8",
                                   b_param="column")
    # Every planned buffer, the Matmul API's UB staging on ascend310p included (taken at REGIST_MATMUL_OBJ).
    planned = sum(buf["bytes"] * buf["slots"] for buf in p.explanation["ub"])
    assert max(c["peak_ub_bytes"] for c in run["cores"]) == planned
    assert any(buf["name"] == "matmul_local_workspace" for buf in p.explanation["ub"]) == (soc == "ascend310p")


def test_a_device_reporting_more_ub_than_the_build_keeps_the_api_addresses_free():
    # The APIs' addresses are the build's: the Matmul client's message block at the end of 910b's 192 KiB
    # (TOTAL_UB_SIZE), 310p's scratch at 248 KiB. A device reporting 256 KiB (ub_size) gets plans below them, and the
    # emulator, checking both, runs them clean.
    rng = np.random.default_rng(5)
    golden = importlib.import_module("ascend_quant_ops.golden.qlinear_matmul")
    emu = importlib.import_module("ascend_quant_ops.emulator.qlinear_matmul")
    a = rng.integers(0, 256, (128, 64), dtype=np.uint8)
    b = rng.integers(-128, 128, (64, 2048), dtype=np.int8)
    args = (a, np.float32(0.05), np.uint8(7), b, rng.uniform(0.01, 0.1, 2048).astype(np.float32),
            np.zeros(2048, np.int8), np.float32(3.0), np.uint8(1))
    p = tiling.plan_qlinear_matmul(a.shape, b.shape, soc="ascend910b", a_dtype="uint8", b_dtype="int8",
                                   y_dtype="uint8", b_param="column", ub_size=262144)
    assert sum(buf["bytes"] * buf["slots"] for buf in p.explanation["ub"]) <= 196608 - 128
    y = emu.qlinear_matmul(*args, soc="ascend910b", ub_size=262144)
    np.testing.assert_array_equal(y, golden.qlinear_matmul(*args))
    # ascend310p's cube GEMM path with per-row a (Brcb: the scratch at 248 KiB) and a device reporting less UB
    a_rows = rng.uniform(0.01, 0.1, 300).astype(np.float32)
    a_zp = rng.integers(0, 256, 300, dtype=np.uint8)
    a = rng.integers(0, 256, (300, 512), dtype=np.uint8)
    b = rng.integers(-128, 128, (512, 2048), dtype=np.int8)
    args = (a, a_rows, a_zp, b, rng.uniform(0.01, 0.1, 2048).astype(np.float32), np.zeros(2048, np.int8),
            np.float32(40.0), np.uint8(3))
    y = emu.qlinear_matmul(*args, soc="ascend310p", ub_size=253952)
    np.testing.assert_array_equal(y, golden.qlinear_matmul(*args))


def test_ub_too_small_for_the_epilogue_is_refused():
    with pytest.raises(ConstraintError) as e:
        tiling.plan_qlinear_matmul((64, 64), (64, 64), soc="ascend310p", ub_size=16384)
    assert e.value.argument == "ub_size" and e.value.soc == "ascend310p"
    # half of a smaller UB goes to the Matmul API's local workspace, the rest to the epilogue
    t = tiling.plan_qlinear_matmul((64, 64), (64, 64), soc="ascend310p", ub_size=65536).tiling
    assert t["ubMatmulWs"] <= 32768


def test_batch_rank_beyond_the_kernel_tiling_is_refused():
    with pytest.raises(ConstraintError) as e:
        tiling.plan_qlinear_matmul((1,) * 9 + (4, 8), (8, 4), soc="ascend910b")
    assert "batch" in e.value.constraint


def test_integer_cube_k_stays_within_the_int32_accumulator():
    # Integer Mmad only saturates: K int8 x int8 products (|p| <= 2^14) stay in int32 up to K = 131071, on every SoC
    # and for both matrix operators; float8 operands (float32 accumulation) and the vector decode are not limited so.
    for soc in ("ascend910b", "ascend310p", "ascend910_95"):
        tiling.plan_qlinear_matmul((4, 131071), (131071, 16), soc=soc)
        with pytest.raises(ConstraintError) as e:
            tiling.plan_qlinear_matmul((4, 131072), (131072, 16), soc=soc, a_dtype="uint8")
        msg = str(e.value)
        for part in (soc, "'a'", "int32 accumulator", "<= 131071", "131072", "CPU backend (without soc=)"):
            assert part in msg, (part, msg)
        with pytest.raises(ConstraintError, match="int32 accumulator"):
            tiling.plan_quant_matmul((4, 131072), (131072, 16), soc=soc)
    tiling.plan_qlinear_matmul((4, 140000), (140000, 16), soc="ascend910_95", a_dtype="float8_e4m3fn",
                               b_dtype="float8_e4m3fn", y_dtype="float8_e4m3fn")


def test_workspace_beyond_32_bits_is_planned():
    # uint8 b mapped once into the shared workspace: K x N bytes, past 4 GiB: the tiling's offsets are 64-bit, so the
    # plan refuses nothing the kernel can address.
    k = 131071  # the integer cube's K at most
    p = tiling.plan_qlinear_matmul((4, k), (k, 40_000), soc="ascend910b", b_dtype="uint8")
    t = p.tiling
    assert t["prepBBytes"] >= k * 40_000 > 2**32 and t["wsCOffset"] > 2**32
    # Only a workspace past the 2^48-byte limit of any tensor is refused: a and b of about 2^48 bytes, both mapped.
    with pytest.raises(ConstraintError) as e:
        tiling.plan_qlinear_matmul((2**31 - 1, k), (k, 65536), soc="ascend910b", b_dtype="uint8",
                                   a_dtype="uint8")
    assert "workspace" in e.value.constraint and e.value.limit == "<= 2^48"


def test_small_problems_spread_over_cores():
    p = tiling.plan_qlinear_matmul((4, 64), (64, 4096), soc="ascend910b")
    t = p.tiling
    # Narrow blocks rather than idle cores: nearly every vector worker has one block (the width balances the
    # slowest worker's columns against per-block overhead).
    assert t["usedCores"] >= 20 and t["unitCount"] <= t["usedCores"] * t["workersPerCore"]
    assert p.explanation["balance_unit"] == t["workersPerCore"] == 2


# ---- ascend310p (no DataCopyPad): the tile width leaves no y row segment narrower than a 32-byte block ----------
def _dma_only_width_exists(n, max_bn):
    """Whether some block width 32 j (up to max_bn) leaves every y row segment of a 1-byte y >= 32 bytes or whole
    blocks: N a multiple of 32, or N mod 32 j = 0 or >= 32 (only the last block of a row can be partial)."""
    if n % 32 == 0:
        return True
    return any(n % w == 0 or n % w >= 32 for w in range(32, max_bn + 1, 32) if w <= -(-n // 32) * 32 or n >= 32)


def _y_ranges(e):
    return [g for g in e["gm"] if g["tensor"] == "y"]


@pytest.mark.parametrize("m,batch", [(16, ()), (301, ()), (37, (3,)), (1, ())])
def test_310p_base_n_leaves_no_segment_narrower_than_a_block(m, batch):
    spec = tiling.soc_table()["ascend310p"]
    ns = list(range(1, 600)) + [26885, 26880 + 31, 26917, 53770, 840 * 32 * 3 + 1, 1000, 4097]
    if m == 301:
        ns = ns[::7] + ns[-7:]  # fewer: every plan lists every row's write range
    rows = int(np.prod(batch, dtype=np.int64)) * m
    for n in ns:
        a_shape, b_shape = batch + (m, 45), (45, n)
        p = tiling.plan_qlinear_matmul(a_shape, b_shape, soc="ascend310p")
        t, e = p.tiling, p.explanation
        what = (a_shape, b_shape, t["baseN"], t["usedCores"])
        assert t["baseN"] % 32 == 0, what
        last = n % t["baseN"]
        if t["usedCores"] == 1 and any("ONE core" in note for note in e["notes"]):
            # One core: only when no width (32 to 256, the widest the plan allows) leaves segments >= 32 bytes.
            assert n < 32 or not _dma_only_width_exists(n, 256), what
            assert 0 < last < 32 and all(g["rewrite_bytes"] == 0 for g in _y_ranges(e)), what
            assert sum(g["scalar_bytes"] * g["count"] for g in _y_ranges(e)) == rows * last, what
        else:
            assert last == 0 or last >= 32, what
            assert all(g["scalar_bytes"] == 0 for g in _y_ranges(e)), what
            # A row of the last N block rewrites 32 - last % 32 of its own bytes (whole blocks ending at its end).
            # (a range with count > 1 stands for that many rows' segments)
            rewrites = [(g["rewrite_bytes"], g["count"]) for g in _y_ranges(e) if g["rewrite_bytes"]]
            assert sum(c for _, c in rewrites) == (rows if n % 32 else 0), what
            assert all(r == 32 - last % 32 for r, _ in rewrites), what
            assert t["usedCores"] == min(8, t["unitCount"]), what
        # no spare block: the back-off block is moved into place over the row's own last whole block
        assert t["ubYOut"] == t["rowsPerChunk"] * t["cStride"], what
        problems = tiling.verify_explanation(e, soc_spec_=spec, expected_work=t["unitCount"],
                                             ub_limit=spec["ub_bytes"])
        assert problems == [], (what, problems[:3])


def test_310p_single_core_fallback_at_26885_columns():
    # N = 26885 = 32 * 840 + 5: 840 is divisible by every block width / 32 from 1 to 8 (840 = lcm(1..8)), so every
    # width leaves a last N block of 5 bytes: the op runs on one core, the only writer of y.
    p = tiling.plan_qlinear_matmul((64, 128), (128, 26885), soc="ascend310p")
    t, e = p.tiling, p.explanation
    assert t["usedCores"] == 1 and e["used_cores"] == 1 and 26885 % t["baseN"] == 5
    assert {g["core"] for g in e["gm"]} == {0}
    # Every row of y, whole (the one core writes all of it): 26880 bytes by DMA, the last 5 by the scalar unit.
    assert {(g["end"] - g["begin"], g["scalar_bytes"]) for g in _y_ranges(e)} == {(26885, 5)}
    assert sum(g["count"] for g in _y_ranges(e)) == 64
    assert any("ONE core" in note and "26885" in note for note in e["notes"])
    # One more block of columns (q = 841) and 32 fewer (q = 839): several cores, no scalar store.
    for n in (26917, 26853):
        t2 = tiling.plan_qlinear_matmul((64, 128), (128, n), soc="ascend310p").tiling
        assert t2["usedCores"] == 8 and n % t2["baseN"] >= 32, (n, t2["baseN"])
    # The SoCs with DataCopyPad are not affected: all their cores, no scalar / rewritten bytes.
    for soc in ("ascend910b", "ascend910_95"):
        p = tiling.plan_qlinear_matmul((64, 128), (128, 26885), soc=soc)
        assert p.tiling["usedCores"] == tiling.soc_table()[soc]["qlinear_matmul_cores"]
        assert p.tiling["ubYOut"] == p.tiling["rowsPerChunk"] * p.tiling["cStride"]
        assert all(g["scalar_bytes"] == 0 and g["rewrite_bytes"] == 0 for g in p.explanation["gm"])


def test_310p_single_core_below_one_block():
    p = tiling.plan_qlinear_matmul((2, 100, 7), (7, 17), soc="ascend310p")
    t, e = p.tiling, p.explanation
    assert t["usedCores"] == 1 and t["nBlocks"] == 1
    assert all(g["scalar_bytes"] == 17 and g["end"] - g["begin"] == 17 for g in _y_ranges(e))
    assert any("ONE core" in note for note in e["notes"])


def test_310p_rounds_where_b_and_a_round_of_strips_pass_half_the_l2():
    """Rounds (each core whole strip rows first, b in ranges of at most a quarter of the L2) exactly where b and the
    cores' strips of a (one each) pass half of the L2, on ascend310p only; the explanation lists a core's two ranges,
    which cover the blocks once and balance the cores to one block."""
    from ascend_quant_ops.perf import model
    l2 = int(model.timing_table("ascend310p")["l2_bytes"]["value"])

    def plan(m, k, n, soc="ascend310p", **kw):
        return tiling.plan_qlinear_matmul((m, k), (k, n), soc=soc, **kw)

    # (N not a multiple of 32: int8 x int8 with whole blocks takes the cube GEMM path on 310p, without the Matmul API)
    p = plan(4096, 4096, 4088)
    t = p.tiling
    assert t["tiling_key"] == 0 and t["roundRanges"] == -(-4096 * 4088 // (l2 // 4)) == 4
    assert [len([w for w in p.explanation["work"] if w["core"] == c]) for c in range(8)] == [2] * 8
    assert tiling.verify_explanation(p.explanation, soc_spec_=tiling.soc_table()["ascend310p"]) == []
    # At the threshold: b + 8 strips of a (one a core, of the plan's strip height at 2048 columns) against half of
    # the L2.
    k = 2040  # (not a multiple of 32: the cube path's, as above)
    strip = plan(8 * 254, k, 2048).tiling["stripM"]
    strip_rows = strip * 8
    n_fit = (l2 // 2 - strip_rows * k) // k // 32 * 32
    for n, want in ((n_fit, False), (n_fit + 32, True)):
        t = plan(strip_rows, k, n).tiling
        assert (t["stripM"], t["strips"]) == (strip, 8)
        assert (t["roundRanges"] != 0) == want, (n, t["roundRanges"])
    # Not below a strip row a core, not for one core, not on the split SoCs.
    assert plan(1, 4096, 4096).tiling["roundRanges"] == 0
    assert plan(4096, 4096, 4096, core_num=1).tiling["roundRanges"] == 0
    for soc in ("ascend910b", "ascend910_95"):
        assert plan(4096, 4096, 4096, soc=soc).tiling["roundRanges"] == 0


def test_310p_int8_b_matrix_stays_below_the_matmul_apis_32_bit_offset():
    # 310p's Matmul API offsets an int8 b [K, N] with a 32-bit int (CopyND2NZWithTransData): one b matrix the kernel
    # hands it unmapped stays below 2^31 bytes. A uint8 b goes through the slab of a call's columns, a transposed b
    # through the other copy (64-bit offsets), and the split SoCs' cube copies are not this one.
    k = 32768
    ok = tiling.plan_qlinear_matmul((16, k), (k, 65535), soc="ascend310p")
    assert ok.tiling["mapB"] == 0
    with pytest.raises(ConstraintError) as e:
        tiling.plan_qlinear_matmul((16, k), (k, 65536), soc="ascend310p")
    msg = str(e.value)
    for part in ("ascend310p", "'b'", "32-bit B offset", "< 2147483648", "2147483648 (K 32768 x N 65536)",
                 "split the product along N"):
        assert part in msg, (part, msg)
    assert tiling.plan_qlinear_matmul((16, k), (k, 65536), soc="ascend310p", b_dtype="uint8").tiling["mapB"] == 1
    tiling.plan_qlinear_matmul((16, k), (k, 65536), soc="ascend310p", b_trans=True)
    tiling.plan_qlinear_matmul((16, k), (k, 65536), soc="ascend910b")


def test_310p_gives_the_matmul_api_tall_int8_b_tiles():
    # 310p's Matmul API turns each int8 B tile in UB (a DMA per K row, four TransDataTo5HD per 32 columns: the scalar
    # unit's issues), so the plan gives it tall tiles: baseK as tall as L0B holds twice at the width, the local
    # workspace sized to what the API needs for them (matmul_local_workspace.h: the C block and two K tiles of B; the
    # call's width is whole 32-byte blocks, so no N-tail block), within half the UB
    # (17 rows: up to 16 the cube decode path runs, and K up to 33024 the cube GEMM path, without the Matmul API)
    t = tiling.plan_qlinear_matmul((17, 33056), (33056, 4096), soc="ascend310p").tiling
    assert t["tiling_key"] == 0
    bm, bn, bk = t["baseM"], t["baseN"], t["baseK"]
    assert (bn, bk) == (256, 128) and bk == min(256, 65536 // 2 // bn)
    assert t["ubMatmulWs"] == bm * bn * 4 + 2 * bk * bn <= 262144 // 2
