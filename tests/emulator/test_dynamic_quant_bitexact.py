"""op_kernel/aqo_dynamic_quant.cpp run in the AscendC CPU emulator equals the golden bit for bit (y bytes and
scale bits) on every SoC x input dtype x dst_type x kernel path.

The reference is the independent numpy golden (golden/dynamic_quant.py) and the worked example of ATB DynamicQuant's documentation (docs/references.md#atb-dynamicquant), never the
kernel's own output. ascend310p runs in saturation mode, so its reference is the golden of x with Inf replaced by
+-65504 and NaN by 0 (docs/design.md). Which path a case exercises is asserted from the plan, so a test cannot
silently stop covering its path when the planner changes.
"""
from __future__ import annotations

import importlib

import ml_dtypes
import numpy as np
import pytest

from ascend_quant_ops import _native, dtypes, tiling
from ascend_quant_ops.golden import dynamic_quant as golden_mod

if not hasattr(_native, "emulate_dynamic_quant"):  # pragma: no cover - build without the runner
    raise ImportError("_native was built without the DynamicQuant emulator runner (every build of the package has it: not a skip)")

edq = importlib.import_module("ascend_quant_ops.emulator.dynamic_quant")

F16 = np.float16
BF16 = ml_dtypes.bfloat16
SOCS = ("ascend910b", "ascend310p", "ascend910_95")
FLOAT_DSTS = ("hifloat8", "float8_e4m3fn", "float8_e5m2")


def saturate_f16(x: np.ndarray) -> np.ndarray:
    """What ascend310p's saturation mode makes of x: Inf -> +-65504 (float16 max), NaN -> 0."""
    x = x.copy()
    big = np.finfo(np.float16).max
    x[np.isposinf(x)] = big
    x[np.isneginf(x)] = -big
    x[np.isnan(x)] = 0
    return x


def reference(x, smooth, dst, soc):
    if tiling.soc_spec(soc)["saturation_only_float"]:
        x = saturate_f16(x)
        smooth = None if smooth is None else saturate_f16(smooth)
    return golden_mod.dynamic_quant(x, smooth, dst_type=dst)


def assert_bitexact(got, want):
    y, s = got
    yg, sg = want
    assert y.dtype == yg.dtype and y.shape == yg.shape
    assert s.dtype == np.float32 and s.shape == sg.shape
    yb, ygb = y.view(np.uint8), yg.view(np.uint8)
    bad = np.argwhere(yb != ygb)
    assert bad.size == 0, f"{len(bad)} y bytes differ, first at {bad[0].tolist()}: {yb[tuple(bad[0])]:#x} vs " \
                          f"{ygb[tuple(bad[0])]:#x}"
    nan = np.isnan(sg)
    np.testing.assert_array_equal(np.isnan(s), nan)
    np.testing.assert_array_equal(s[~nan].view(np.uint32), sg[~nan].view(np.uint32))


def run(x, smooth=None, *, dst="int8", soc="ascend910b", expect_mode=None, expect_slots=None, **kw):
    got = edq.dynamic_quant(x, smooth, dst_type=dst, soc=soc, **kw)
    stats = edq.last_run_stats()
    if expect_mode is not None:
        assert stats["plan"]["mode"] == expect_mode, stats["plan"]
    if expect_slots is not None:
        p = tiling.plan_dynamic_quant(x.shape, x.dtype, soc=soc, dst_type=dst, smooth=smooth is not None, **kw)
        assert p.tiling["xSlots"] == expect_slots, p.tiling
    assert_bitexact(got, reference(x, smooth, dst, soc))
    return stats


def rand(shape, dtype, seed, scale=3.0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * scale).astype(dtype)


def special_rows(h: int, dtype) -> np.ndarray:
    """Rows covering the edge cases: zeros, NaN, +Inf, -Inf, Inf and NaN, exact int8 ties, tiny values, one
    non-zero element, all equal."""
    rows = np.zeros((10, h), np.float32)
    rows[1, 3 % h] = np.nan
    rows[1, :] += 1.0
    rows[2, 0] = np.inf
    rows[2, 1:] = np.linspace(-5, 5, h - 1)
    rows[3, h - 1] = -np.inf
    rows[4, 0], rows[4, h // 2] = np.inf, np.nan
    # scale = 127 / 127 = 1: x / scale hits .5 exactly -> round half to even
    ties = np.array([127.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, -126.5, 3.5], np.float32)
    rows[5, :] = np.resize(ties, h)
    rows[5, 0] = 127.0
    rows[6, :] = np.resize(np.array([1e-3, -2e-4, 5e-5], np.float32), h)
    rows[7, h // 3] = -7.0
    rows[8, :] = 2.0
    rows[9, :] = np.resize(np.array([65504.0, -65504.0, 1.0], np.float32), h)
    return rows.astype(dtype)


# ---------------------------------------------------------------------------------------------- ATB worked example
ATB_X = np.array([[[5.273, 6.836, 11.99, 6.01], [9.42, 15.3, -4.484, -3.783]],
                   [[-2.002, 0.746, 3.756, 15.11], [-3.05, 12.1, 5.81, -1.298]]], np.float16)
ATB_Y = np.array([[[56, 72, 127, 64], [78, 127, -37, -31]], [[-17, 6, 32, 127], [-32, 127, 61, -14]]], np.int8)
ATB_SCALE = np.array([[0.09442668, 0.12044784], [0.11897146, 0.0952879]], np.float32)


@pytest.mark.parametrize("soc", SOCS)
def test_atb_worked_example(soc):
    x = ATB_X
    if tiling.soc_spec(soc)["dynamic_quant"]["tail_multiple"] > 1:
        # ascend310p takes 32-aligned tails only (ATB's limits): pad with zeros, which leave the row max unchanged.
        x = np.concatenate([x, np.zeros(x.shape[:-1] + (28,), np.float16)], axis=-1)
    y, s = edq.dynamic_quant(x, soc=soc)
    np.testing.assert_array_equal(y[..., :4], ATB_Y)
    np.testing.assert_array_equal(y[..., 4:], 0)
    np.testing.assert_allclose(s, ATB_SCALE, rtol=0, atol=5e-9)  # the spec prints 8 significant digits


# ---------------------------------------------------------------------------------------------- ascend910b
@pytest.mark.parametrize("dtype", [F16, BF16], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(96, 64), (53, 100), (3, 7), (2, 5, 33), (48 * 3 + 7, 160)],
                         ids=["double_buffered_rows", "rows_not_multiple_of_cores", "fewer_rows_than_cores",
                              "rank3_unaligned", "more_rows_than_cores"])
def test_910b_paths(shape, dtype):
    stats = run(rand(shape, dtype, seed=sum(shape)), soc="ascend910b", expect_mode="pipelined")
    p = tiling.plan_dynamic_quant(shape, np.dtype(dtype), soc="ascend910b")
    assert p.tiling["xSlots"] >= 2 and p.tiling["statSets"] == 2, p.tiling
    assert stats["plan"]["used_cores"] == p.explanation["used_cores"]


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("smooth", [False, True], ids=["plain", "smooth"])
def test_resident_group_when_the_pipelined_buffers_do_not_fit(soc, smooth):
    # Symmetric rows computed a group at once by the resident class (tiling key 0): the plan's choice once the
    # pipelined mode's second set of statistics buffers no longer fits beside the resident rows.
    h = 1504
    x = np.concatenate([rand((14, h), F16, seed=31), special_rows(h, F16)])
    s = (np.random.default_rng(32).random(h) + 0.5).astype(F16) if smooth else None
    ub = None
    for size in range(tiling.soc_spec(soc)["ub_bytes"], 4096, -256):
        p = tiling.plan_dynamic_quant(x.shape, "float16", soc=soc, smooth=smooth, ub_size=size, core_num=2)
        if p.explanation["mode"] == "single_pass":
            ub = size
            break
    assert ub is not None and p.tiling["tiling_key"] == 0 and p.tiling["xSlots"] == 2, p.tiling
    run(x, s, soc=soc, ub_size=ub, core_num=2, expect_mode="single_pass", expect_slots=2)


LAST_GROUP_CASES = [(soc, dst, rows) for soc in SOCS for dst in (("int8",) + (FLOAT_DSTS if soc == "ascend910_95" else ()))
                    for rows in (1, 2)]


@pytest.mark.parametrize("soc,dst,last_rows", LAST_GROUP_CASES, ids=[f"{s}-{d}-{r}row" for s, d, r in LAST_GROUP_CASES])
def test_pipelined_last_group_stored_in_parts(soc, dst, last_rows):
    # One core, 4096-wide float16 rows in groups of 2: the last group (1 row: column parts; 2 rows: one row a part) is
    # converted and stored in parts. Each special row is the last group in turn, so every kind meets every part.
    h = 4096
    specials = special_rows(h, F16)
    for k in range(0, len(specials), last_rows):
        x = np.concatenate([rand((14, h), F16, seed=40 + k), specials[k:k + last_rows]])  # 15 or 16 rows
        p = tiling.plan_dynamic_quant(x.shape, "float16", soc=soc, dst_type=dst, core_num=1)
        assert p.explanation["mode"] == "pipelined" and p.tiling["rowsPerIter"] == 2, p.tiling
        assert x.shape[0] % 2 == last_rows % 2
        run(x, dst=dst, soc=soc, core_num=1)


ONE_ROW_CASES = [(soc, dst) for soc in SOCS for dst in (("int8",) + (FLOAT_DSTS if soc == "ascend910_95" else ()))]


@pytest.mark.parametrize("soc,dst", ONE_ROW_CASES, ids=[f"{s}-{d}" for s, d in ONE_ROW_CASES])
def test_pipelined_one_row_groups_first_pieces_and_last_parts(soc, dst):
    # One core, groups of one 4096-wide float16 row: the first group is loaded and its statistics begun in column
    # pieces, the last group is converted and stored in column parts, and the groups between defer their last
    # conversion step. Each special row is the first and the last group in turn.
    h = 4096
    specials = special_rows(h, F16)
    for k in range(len(specials)):
        x = np.concatenate([specials[k:k + 1], rand((5, h), F16, seed=60 + k), specials[k:k + 1]])
        p = tiling.plan_dynamic_quant(x.shape, "float16", soc=soc, dst_type=dst, core_num=1)
        assert p.explanation["mode"] == "pipelined" and p.tiling["rowsPerIter"] == 1, p.tiling
        run(x, dst=dst, soc=soc, core_num=1)


@pytest.mark.parametrize("soc,dst", ONE_ROW_CASES, ids=[f"{s}-{d}" for s, d in ONE_ROW_CASES])
def test_pipelined_first_group_in_row_pieces(soc, dst):
    # One core, groups of several 2048-wide rows: the first group is loaded and its statistics begun row by row (a
    # DMA and a flag a row), each row's statistics waiting for its own load only. Each special row sits in the first
    # group in turn, at each of its rows.
    h = 2048
    specials = special_rows(h, F16)
    for k in range(len(specials)):
        x = rand((24, h), F16, seed=80 + k)
        x[k % 3] = specials[k]
        p = tiling.plan_dynamic_quant(x.shape, "float16", soc=soc, dst_type=dst, core_num=1)
        assert p.explanation["mode"] == "pipelined" and p.tiling["rowsPerIter"] >= 3, p.tiling
        run(x, dst=dst, soc=soc, core_num=1)


def test_910b_float16_limit_26624_row_resident_chunked():
    x = rand((3, 26624), F16, seed=1)
    x[1] = 0
    x[2, 123] = np.inf
    run(x, soc="ascend910b", expect_mode="row_resident_chunked", expect_slots=2)


def test_910b_bfloat16_limit_7552():
    run(rand((3, 7552), BF16, seed=2), soc="ascend910b", expect_mode="pipelined")


@pytest.mark.parametrize("dtype", [F16, BF16], ids=["float16", "bfloat16"])
def test_910b_special_rows(dtype):
    run(special_rows(45, dtype), soc="ascend910b")


@pytest.mark.parametrize("dtype", [F16, BF16], ids=["float16", "bfloat16"])
def test_910b_smooth(dtype):
    x = rand((37, 250), dtype, seed=3)
    smooth = (np.random.default_rng(4).random(250) + 0.25).astype(dtype)
    run(x, smooth, soc="ascend910b")


def test_910b_smooth_26624_single_buffered():
    x = rand((2, 26624), F16, seed=5)
    smooth = (np.random.default_rng(6).random(26624) + 0.5).astype(F16)
    run(x, smooth, soc="ascend910b", expect_mode="row_resident_chunked", expect_slots=1)


@pytest.mark.parametrize("soc,dst", [(s, "int8") for s in SOCS] + [("ascend910_95", "float8_e4m3fn")])
def test_chunked_rows_with_one_x_slot_in_pieces(soc, dst):
    # Rows in float32 chunks with one x slot: the copy-in goes out in (at most four) column pieces, the statistics
    # waiting for each, and a NORMAL row's y chunks are stored as they are converted. More chunks than pieces, 3 and 4
    # chunks, and special rows (NaN / Inf in the first and the last chunk, zeros, ties, tiny values; on 310p rows that
    # reach the saturation bound are sanitized and computed again) among random ones, 2 cores with several rows each.
    h = 3008  # 310p: a multiple of 32 (no DataCopyPad)
    x = np.concatenate([rand((4, h), F16, seed=31), special_rows(h, F16), rand((3, h), F16, seed=32)])
    seen = set()
    for ub in range(tiling.soc_spec(soc)["ub_bytes"] // 32 * 32, 4095, -32 * 64):
        p = tiling.plan_dynamic_quant(x.shape, "float16", soc=soc, dst_type=dst, core_num=2, ub_size=ub)
        chunks = p.tiling["numChunks"]
        if p.explanation["mode"] != "row_resident_chunked" or p.tiling["xSlots"] != 1:
            continue
        key = min(chunks, 5)
        if key < 3 or key in seen:
            continue
        seen.add(key)
        run(x, dst=dst, soc=soc, core_num=2, ub_size=ub, expect_mode="row_resident_chunked", expect_slots=1)
    assert seen == {3, 4, 5}, f"{soc}: chunk counts reached {sorted(seen)}"


@pytest.mark.parametrize("soc", SOCS)
def test_chunked_rows_one_group_a_core_in_pieces(soc):
    # Two x slots but one row a core (no next group's copy in flight): the copy-in goes out in pieces too. 310p
    # (no DataCopyPad) gives a core 8 rows at least, so there one row is the whole launch.
    h = 3008
    special = special_rows(h, F16)
    if soc == "ascend310p":
        launches = [rand((1, h), F16, seed=35), special[[2]], special[[4]], special[[9]]]
    else:
        launches = [np.concatenate([rand((2, h), F16, seed=33), special[[0, 2, 3, 4, 9]], rand((1, h), F16, seed=34)])]
    for x in launches:
        cores = x.shape[0]
        for ub in range(tiling.soc_spec(soc)["ub_bytes"] // 32 * 32, 4095, -32 * 16):
            p = tiling.plan_dynamic_quant(x.shape, "float16", soc=soc, core_num=cores, ub_size=ub)
            if (p.explanation["mode"] == "row_resident_chunked" and p.tiling["xSlots"] == 2
                    and p.tiling["numChunks"] >= 3 and len(p.explanation["work"]) == cores):
                break
        else:
            pytest.fail(f"{soc}: no UB size gives one chunked row a core with two x slots")
        run(x, soc=soc, core_num=cores, ub_size=ub, expect_mode="row_resident_chunked", expect_slots=2)


def test_910b_core_and_ub_overrides():
    # 5 cores and a small UB: several iterations per core, chunked rows, non-finite rows inside chunks
    x = rand((23, 1500), F16, seed=7)
    x[4, 1499] = np.nan
    x[9, 0] = -np.inf
    x[11] = 0
    run(x, soc="ascend910b", core_num=5, ub_size=16384, expect_mode="row_resident_chunked")


# ---------------------------------------------------------------------------------------------- ascend310p
# ascend310p has no DataCopyPad: every core takes at least 8 rows and writes its scales as whole 32-byte blocks
# inside its own rows; the scales of a partial block are carried into the next group, and a row count that is not a
# multiple of 8 ends in the block of the core's last 8 rows (rewriting up to 7 of its own scales). Each case names the
# path it covers, pins the plan's split (rows per core) and checks it from the run's counters: scalar GM writes, and
# DMA bytes written = y + scale + the rewritten scales. The pipelined mode gathers the scales of several groups
# (scaleRows) per store, so blocks span groups and stores.
@pytest.mark.parametrize("shape, kw, cores, rewritten, scalar", [
    ((16, 64), {}, [8, 8], [0, 0], 0),                       # whole blocks on every core
    ((5, 32), {}, [5], [0], 5),                              # fewer than 8 rows: one core, scalar stores
    ((13, 96), {}, [13], [3], 0),                            # one core, last block inside its only group
    ((3, 8, 128), {}, [8, 8, 8], [0, 0, 0], 0),              # rank 3
    ((37, 256), {}, [9, 9, 9, 10], [7, 7, 7, 6], 0),         # every core ends inside a group of 9 / 10 rows
    ((26, 4096), {}, [8, 9, 9], [0, 7, 7], 0),               # 2-row groups: blocks carried across groups
    ((42, 1024), {"core_num": 2}, [21, 21], [3, 3], 0),      # 8-row groups, then 5 rows: 3 rewritten
    ((28, 1024), {"core_num": 1}, [28], [4], 0),             # 8-row groups, then 4 rows ending mid-block
    ((100, 4096), {}, [12, 12, 12, 12, 13, 13, 13, 13], [4, 4, 4, 4, 3, 3, 3, 3], 0),  # the balance case
], ids=["whole_blocks", "fewer_than_8_rows", "one_core_partial", "rank3", "partial_in_group",
        "blocks_across_groups", "partial_after_groups", "partial_after_groups_one_core", "100_rows_8_cores"])
def test_310p_paths(shape, kw, cores, rewritten, scalar):
    h = shape[-1]
    stats = run(rand(shape, F16, seed=sum(shape)), soc="ascend310p", expect_mode="pipelined", **kw)
    run_cores = stats["run"]["cores"]
    p = tiling.plan_dynamic_quant(shape, "float16", soc="ascend310p", **kw)
    assert [w["end"] - w["begin"] for w in p.explanation["work"]] == cores and len(run_cores) == len(cores)
    assert sum(c["gm_scalar_writes"] for c in run_cores) == scalar
    for c, rows, again in zip(run_cores, cores, rewritten):
        assert c["gm_write_bytes"] == rows * h + (rows - scalar) * 4 + again * 4, c


def test_310p_limit_4096():
    run(rand((9, 4096), F16, seed=8), soc="ascend310p", expect_mode="pipelined", expect_slots=4)


def test_310p_special_rows_saturate():
    run(special_rows(64, F16), soc="ascend310p")


def test_310p_smooth_and_chunked():
    x = rand((11, 2048), F16, seed=9)
    x[3, 7] = np.inf
    smooth = (np.random.default_rng(10).random(2048) + 0.5).astype(F16)
    run(x, smooth, soc="ascend310p", ub_size=32768, expect_mode="row_resident_chunked")


# ---------------------------------------------------------------------------------------------- ascend910_95
@pytest.mark.parametrize("dst", ("int8",) + FLOAT_DSTS)
@pytest.mark.parametrize("dtype", [F16, BF16], ids=["float16", "bfloat16"])
def test_950_dtypes_pipelined(dtype, dst):
    x = np.concatenate([rand((21, 77), dtype, seed=11), special_rows(77, dtype)])
    run(x, dst=dst, soc="ascend910_95", expect_mode="pipelined")


@pytest.mark.parametrize("dst", ("int8",) + FLOAT_DSTS)
def test_950_multi_pass_100000(dst):
    x = rand((2, 100003), BF16 if dst == "float8_e5m2" else F16, seed=12, scale=100.0)
    run(x, dst=dst, soc="ascend910_95", expect_mode="multi_pass")


@pytest.mark.parametrize("dst", ("int8",) + FLOAT_DSTS)
def test_950_multi_pass_special_rows_and_smooth(dst):
    # a small UB forces the streamed two-pass mode on short rows: non-finite rows and smooth scales per chunk
    x = np.concatenate([rand((4, 3000), F16, seed=13), special_rows(3000, F16)])
    smooth = (np.random.default_rng(14).random(3000) + 0.5).astype(F16)
    run(x, smooth, dst=dst, soc="ascend910_95", ub_size=16384, expect_mode="multi_pass")


def test_950_row_resident_chunked():
    run(rand((3, 60000), F16, seed=15), dst="float8_e4m3fn", soc="ascend910_95", expect_mode="row_resident_chunked")


# ---------------------------------------------------------------------------------------------- every SoC
@pytest.mark.parametrize("soc", SOCS)
def test_zero_rows_and_empty(soc):
    h = 64
    x = np.zeros((9, h), F16)
    run(x, soc=soc)
    y, s = edq.dynamic_quant(np.zeros((0, h), F16), soc=soc)
    assert y.shape == (0, h) and s.shape == (0,)
    # H = 0 is accepted everywhere (0 is a multiple of 32 on 310p): rows without elements are zero rows
    y, s = edq.dynamic_quant(np.zeros((3, 0), F16), soc=soc)
    assert y.shape == (3, 0)
    np.testing.assert_array_equal(s, np.zeros(3, np.float32))
    # with smooth scales too (no count-form instruction of count 0), symmetric and asymmetric
    for asymmetric in (False, True):
        got = edq.dynamic_quant(np.zeros((3, 0), F16), np.zeros(0, F16), asymmetric=asymmetric, soc=soc)
        want = golden_mod.dynamic_quant(np.zeros((3, 0), F16), np.zeros(0, F16), asymmetric=asymmetric)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))


@pytest.mark.parametrize("ub_size,slots", [(1600, 1), (2048, 2)])
def test_950_multi_pass_single_and_double_buffered(ub_size, slots):
    # the smallest UBs: 11 chunks of 64 per row, one x slot (no prefetch) or two (chunk c + 1 copied during c)
    x = np.concatenate([rand((3, 700), F16, seed=16), special_rows(700, F16)])
    smooth = (np.random.default_rng(17).random(700) + 0.5).astype(F16)
    run(x, smooth, dst="float8_e5m2", soc="ascend910_95", ub_size=ub_size, expect_mode="multi_pass",
        expect_slots=slots)


def test_910b_resident_single_buffered_many_iterations():
    x = rand((40, 3000), BF16, seed=18)
    x[17] = 0
    run(x, soc="ascend910b", core_num=3, ub_size=20000, expect_slots=1)


# ------------------------------------------------------------------ float8 asymmetric rows with a large offset
def _large_offset_rows(shape):
    """Rows whose float32 values (x times the smooth scales) span 1 around 1.59e6: the offset dmax - hi / scale is
    about -1.4e9 (an ulp of 128), so v / scale + offset rounds up to about 64 past +-dmax; the golden clips to dmax."""
    x = np.resize(np.float16([1029, 1031]), shape).astype(np.float16)
    smooth = np.resize(np.float16([1546, 1543]), shape[-1:]).astype(np.float16)
    return x, smooth


@pytest.mark.parametrize("dst", FLOAT_DSTS)
@pytest.mark.parametrize("shape,mode", [((1, 2), "pipelined"), ((200, 64), "pipelined"), ((30, 1504), "single_pass"),
                                        ((8, 60000), "multi_pass")], ids=["one_row", "rows", "resident", "long_rows"])
def test_float8_asymmetric_rows_with_a_large_offset_are_clipped(dst, shape, mode):
    """What the 950's float8 conversion makes of an overflow depends on its saturation control bits, so the kernel
    clips v / scale + offset to +-dmax itself (the golden's clip) where the offset is large, in every mode; the
    emulator leaves an overflowing conversion's byte undefined, and its copy to GM fails without the clip."""
    x, smooth = _large_offset_rows(shape)
    kw = {}
    if mode == "single_pass":  # the resident class: a UB where the pipelined mode's buffers no longer fit
        for size in range(tiling.soc_spec("ascend910_95")["ub_bytes"], 4096, -256):
            p = tiling.plan_dynamic_quant(shape, "float16", soc="ascend910_95", dst_type=dst, smooth=True,
                                          asymmetric=True, ub_size=size, core_num=2)
            if p.explanation["mode"] == "single_pass":
                kw = {"ub_size": size, "core_num": 2}
                break
        assert kw, "no UB size selects the resident class"
    got = edq.dynamic_quant(x, smooth, dst_type=dst, asymmetric=True, soc="ascend910_95", **kw)
    assert edq.last_run_stats()["plan"]["mode"] == mode
    want = golden_mod.dynamic_quant(x, smooth, dst_type=dst, asymmetric=True)
    assert float(np.abs(want[0].astype(np.float32)).max()) == dtypes.dmax(dst)  # the clip is in play
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))
