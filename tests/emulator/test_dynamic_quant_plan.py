"""The DynamicQuant plan (op_host/tiling_core/dynamic_quant_plan.*) against its invariants and against what the
emulator observes when the kernel runs it:

- the explanation passes the shared invariant checker (work covered once, balance within one unit, UB buffers
  aligned / disjoint / within capacity, GM ranges inside their tensors, whole blocks without DataCopyPad) for a
  grid of shapes on every SoC, including the bfloat16 widths where ATB's own budget overflows UB
  (docs/references.md#dynamicquant-implementations);
- the kernel allocates exactly the plan's UB map (the emulator's peak UB per core == the plan's total);
- every core's GM traffic in the emulator equals the plan's GM ranges (x read once, twice in multi-pass; y and
  scale written once, plus on 310p the scales a core's last block writes a second time, and the scalar-stored
  scales of a tensor of fewer than 8 rows);
- the documented limits are refused with typed errors naming the SoC and the limit.
"""
from __future__ import annotations

import importlib
import itertools

import ml_dtypes
import numpy as np
import pytest

from ascend_quant_ops import _native, tiling
from ascend_quant_ops.errors import ConstraintError, DTypeError

if not hasattr(_native, "plan_dynamic_quant"):  # pragma: no cover
    raise ImportError("_native was built without the DynamicQuant plan (every build of the package has it: not a skip)")

SOCS = ("ascend910b", "ascend310p", "ascend910_95")


def plan(shape, dtype="float16", soc="ascend910b", **kw):
    return tiling.plan_dynamic_quant(shape, dtype, soc=soc, **kw)


def check(p, soc, **kw):
    problems = tiling.verify_explanation(p.explanation, soc_spec_=tiling.soc_spec(soc, **kw),
                                         expected_work=int(p.tiling["rows"]))
    assert problems == [], problems


def ub_total(p):
    return sum(b["bytes"] * b["slots"] for b in p.explanation["ub"])


def _grid(soc):
    spec = tiling.soc_spec(soc)["dynamic_quant"]
    mult = spec["tail_multiple"]
    tails = [mult, 3 * mult, 64, 100, 1000, 4096, 7168, 7552, 12345, 26624, 60000, 100000]
    rows = [1, 5, 8, 13, 47, 48, 49, 1000, 65536 * 3 + 5]
    for dtype in spec["x_dtypes"]:
        limit = spec["max_tail_" + dtype] or None
        for h, r in itertools.product(tails, rows):
            if h % mult or (limit and h > limit):
                continue
            yield dtype, (r, h)


@pytest.mark.parametrize("soc", SOCS)
def test_invariants_on_a_grid(soc):
    n = 0
    for dtype, shape in _grid(soc):
        for smooth in (False, True):
            p = plan(shape, dtype, soc, smooth=smooth)
            check(p, soc)
            t = p.tiling
            assert ub_total(p) <= tiling.soc_spec(soc)["ub_bytes"]
            # without DataCopyPad: at least a block of scales' rows per core
            if not tiling.soc_spec(soc)["has_data_copy_pad"]:
                assert t["rowsPerCore"] >= 8 or t["usedCores"] <= 1
            # the work buffer: a resident group at once, or whole 64-element chunks of a row
            if t["numChunks"] == 1 and p.explanation["mode"] in ("single_pass", "pipelined"):
                assert t["chunk"] == t["rowsPerIter"] * t["colsPad"]
            else:
                assert t["chunk"] % 64 == 0 and t["numChunks"] * t["chunk"] >= t["cols"]
            n += 1
    assert n > 50


def test_bfloat16_widths_that_overflow_atb_fit():
    # ATB's budget overflows UB for bfloat16 widths around 4272-4432, 4800-5024, 5472-5824, 6352-6896
    # (docs/references.md#dynamicquant-implementations)
    for h in list(range(4272, 4433, 16)) + list(range(4800, 5025, 32)) + list(range(5472, 5825, 32)) + \
            list(range(6352, 6897, 32)) + [7552]:
        p = plan((4096, h), "bfloat16", "ascend910b")
        check(p, "ascend910b")
        assert ub_total(p) <= 196608


@pytest.mark.parametrize("seed", range(3))
def test_random_shapes_with_overrides(seed):
    rng = np.random.default_rng(seed)
    for _ in range(150):
        soc = SOCS[rng.integers(3)]
        spec = tiling.soc_spec(soc)["dynamic_quant"]
        mult = spec["tail_multiple"]
        dtype = spec["x_dtypes"][rng.integers(len(spec["x_dtypes"]))]
        limit = spec["max_tail_" + dtype] or 200000
        h = int(rng.integers(1, limit // mult + 1)) * mult
        rows = int(rng.integers(0, 5000))
        cores = int(rng.integers(1, 80))
        ub = int(rng.integers(64, 300)) * 1024
        p = plan((rows, h), dtype, soc, core_num=cores, ub_size=ub, smooth=bool(rng.integers(2)))
        check(p, soc, core_num=cores, ub_size=ub)
        assert p.explanation["used_cores"] <= cores


def test_balance_and_units():
    rows = 48 * 5 + 7
    p = plan((rows, 256), "float16", "ascend910b")
    loads = [w["end"] - w["begin"] for w in p.explanation["work"]]
    # the makespan of any split over 48 cores is ceil(247 / 48) = 6 rows; ceil(247 / 6) = 42 cores reach it
    assert max(loads) - min(loads) <= 1 and max(loads) == 6 and sum(loads) == rows
    assert len(loads) == 42 == p.explanation["used_cores"]
    # balance (mean / max over the launched cores) >= 0.95 whenever rows >= 4 x cores (the plan's balance target)
    for rows in range(4 * 48, 4 * 48 + 200):
        loads = [w["end"] - w["begin"] for w in plan((rows, 64), "float16", "ascend910b").explanation["work"]]
        assert (sum(loads) / len(loads)) / max(loads) >= 0.95, rows
    # ascend310p (no DataCopyPad, 8 cores): every core takes at least 8 rows (a whole 32-byte block of scales,
    # written inside its own rows). The slowest core is the shortest that minimum allows, on the fewest cores that
    # reach it; the balance is >= 0.95 from 130 rows on. Below, an 8-core SoC cannot reach 0.95 without a slower
    # slowest core (65 rows: 9 on the slowest of 8 cores, 65 / 8 / 9 = 0.90), nor can fewer than 64 rows under the
    # 8-row minimum (33 rows: 8 + 8 + 8 + 9).
    for rows in range(4 * 8, 4 * 8 + 400):
        p = plan((rows, 64), "float16", "ascend310p")
        loads = [w["end"] - w["begin"] for w in p.explanation["work"]]
        slowest = -(-rows // min(8, rows // 8))
        assert max(loads) == slowest and len(loads) == -(-rows // slowest), (rows, loads)
        assert min(loads) >= 8 and max(loads) - min(loads) <= 1 and sum(loads) == rows, (rows, loads)
        if rows >= 130:
            assert (sum(loads) / len(loads)) / max(loads) >= 0.95, rows
        for g in p.explanation["gm"]:
            if g["tensor"] == "scale":
                n = (g["end"] - g["begin"]) // 4
                assert g.get("scalar_bytes", 0) == 0 and g["rewrite_bytes"] == (8 - n % 8) % 8 * 4, (rows, g)
    # fewer than 8 rows: one core, the scales by scalar stores
    p = plan((5, 256), "float16", "ascend310p")
    (g,) = [g for g in p.explanation["gm"] if g["tensor"] == "scale"]
    assert p.explanation["used_cores"] == 1 and g["scalar_bytes"] == 20 and g["rewrite_bytes"] == 0


def test_modes():
    assert plan((64, 26624), "float16", "ascend910b").explanation["mode"] == "row_resident_chunked"
    assert plan((64, 7552), "bfloat16", "ascend910b").explanation["mode"] == "pipelined"
    p = plan((2, 100000), "float16", "ascend910_95")
    assert p.explanation["mode"] == "multi_pass" and p.explanation["passes"] == 2
    assert plan((2, 4096), "float16", "ascend310p").tiling["xSlots"] == 2


# ------------------------------------------------------------------------------------------------ refusals
@pytest.mark.parametrize("shape,dtype,soc,kw,arg,limit", [
    ((4, 26625), "float16", "ascend910b", {}, "x", "<= 26624"),
    ((4, 7553), "bfloat16", "ascend910b", {}, "x", "<= 7552"),
    ((4, 4097), "float16", "ascend310p", {}, "x", None),
    ((4, 4001), "float16", "ascend310p", {}, "x", "multiple of 32"),
    ((4, 4128), "float16", "ascend310p", {}, "x", "<= 4096"),
    ((64,), "float16", "ascend910_95", {}, "x", ">= 2"),
    ((4, 64), "float16", "ascend910b", {"asymmetric": True, "dst_type": "float8_e4m3fn"}, "dst_type", None),
])
def test_refusals(shape, dtype, soc, kw, arg, limit):
    with pytest.raises(ConstraintError) as ei:
        plan(shape, dtype, soc, **kw)
    e = ei.value
    assert e.op == "dynamic_quant" and e.argument == arg and e.soc == soc
    if limit:
        assert e.limit == limit
    for ok in (4096, 4064, 4000):  # accepted neighbours of the 310p limits
        assert plan((4, ok), "float16", "ascend310p").explanation["used_cores"] == 1


@pytest.mark.parametrize("dtype,dst,soc", [("bfloat16", "int8", "ascend310p"), ("float16", "hifloat8", "ascend910b"),
                                           ("float16", "float8_e4m3fn", "ascend310p")])
def test_dtype_refusals(dtype, dst, soc):
    with pytest.raises(DTypeError) as ei:
        plan((4, 64), dtype, soc, dst_type=dst)
    assert ei.value.soc == soc


def test_small_ub_falls_back_to_multi_pass():
    # A UB override too small for a resident row: the row is streamed twice instead of refused (any SoC). The
    # smallest streamed layout (a 64-element chunk, one row's statistics, the constants) needs about 1.2-1.5 KiB:
    # 2 KiB plans on every SoC, with or without smooth scales; 1 KiB (the smallest override) is refused by name.
    p = plan((4, 26624), "float16", "ascend910b", ub_size=4096)
    assert p.explanation["mode"] == "multi_pass" and ub_total(p) <= 4096
    check(p, "ascend910b", ub_size=4096)
    for soc in SOCS:
        for smooth in (False, True):
            p = plan((4, 4096), "float16", soc, ub_size=2048, smooth=smooth)
            assert ub_total(p) <= 2048
            with pytest.raises(ConstraintError, match="smallest DynamicQuant layout"):
                plan((4, 4096), "float16", soc, ub_size=1024, smooth=smooth)


# ------------------------------------------------------------------------------------------------ vs emulator
edq = importlib.import_module("ascend_quant_ops.emulator.dynamic_quant")


@pytest.mark.parametrize("shape,dtype,soc,kw", [
    ((53, 100), np.float16, "ascend910b", {}),
    ((3, 26624), np.float16, "ascend910b", {}),
    ((23, 1500), ml_dtypes.bfloat16, "ascend910b", {"core_num": 5, "ub_size": 16384}),
    ((29, 96), np.float16, "ascend310p", {}),
    ((5, 64), np.float16, "ascend310p", {}),
    ((100, 4096), np.float16, "ascend310p", {}),
    ((37, 4096), np.float16, "ascend310p", {"ub_size": 16384, "smooth": True}),  # multi-pass, 9 / 10 rows a core
    ((3, 100003), np.float16, "ascend910_95", {}),
    ((64, 1024), np.float16, "ascend910b", {"core_num": 1}),  # pipelined, the first group in pieces of rows
    ((48, 1030), ml_dtypes.bfloat16, "ascend910_95", {"core_num": 1}),  # the same, padded rows
    ((7, 3000), ml_dtypes.bfloat16, "ascend910_95", {"ub_size": 16384, "smooth": True}),
])
def test_emulator_traffic_matches_plan(shape, dtype, soc, kw):
    kw = dict(kw)
    smooth = kw.pop("smooth", False)
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) + 0.1).astype(dtype)  # no zero / special rows: every row takes both passes
    sm = (rng.random(shape[-1]) + 0.5).astype(dtype) if smooth else None
    edq.dynamic_quant(x, sm, soc=soc, **kw)
    run = edq.last_run_stats()["run"]
    assert run["completed"]
    p = plan(shape, np.dtype(dtype).name, soc, smooth=smooth, **kw)
    e, t = p.explanation, p.tiling
    assert run["block_dim"] == e["used_cores"] == len(run["cores"])
    passes = e["passes"]
    for c, cs in enumerate(run["cores"]):
        mine = [g for g in e["gm"] if g["core"] == c]
        size = {g["tensor"]: g["end"] - g["begin"] for g in mine}
        rows = next(w["end"] - w["begin"] for w in e["work"] if w["core"] == c)
        smooth_reads = 0
        if smooth:
            smooth_reads = size["smooth_scales"] * (rows * passes if e["mode"] == "multi_pass" else 1)
        assert cs["gm_read_bytes"] == size["x"] * passes + smooth_reads, (c, cs)
        scalar = sum(g.get("scalar_bytes", 0) for g in mine)
        rewritten = sum(g.get("rewrite_bytes", 0) for g in mine)
        assert cs["gm_write_bytes"] == size["y"] + size["scale"] - scalar + rewritten, (c, cs)
        assert cs["gm_scalar_writes"] * 4 == scalar
        # the kernel allocates exactly the plan's UB map
        assert cs["peak_ub_bytes"] == ub_total(p), (c, cs["peak_ub_bytes"], ub_total(p))
        # one DMA per UB iteration (resident) or per chunk and pass (multi-pass), plus the smooth row; the resident
        # class's chunked rows come in column pieces (at most 4, whole chunks) where nothing else is in flight: one x
        # slot, or one UB iteration on the core; the pipelined class's first group (without smooth scales) in pieces
        # too, at most 4: its rows when it has several of at least 1024 elements, else column pieces of at least 1024
        if e["mode"] != "multi_pass":
            iters = -(-rows // t["rowsPerIter"])
            pieced = e["mode"] == "row_resident_chunked" and (t["xSlots"] == 1 or iters == 1)
            per_iter = min(t["numChunks"], 4) if pieced else 1
            first = 1
            if e["mode"] == "pipelined" and not smooth:
                n0 = min(rows, t["rowsPerIter"])
                first = (n0 if t["cols"] >= 1024 else 1) if n0 >= 2 else t["cols"] // 1024
                first = min(max(first, 1), 4)
            assert cs["dma_gm_to_ub"] == iters * per_iter + first - 1 + (1 if smooth else 0)


def test_emulator_backend_refuses_like_the_plan():
    x16 = np.ones((4, 64), np.float16)
    with pytest.raises(DTypeError) as ei:  # the asymmetric float types are the 950's
        edq.dynamic_quant(x16, soc="ascend910b", asymmetric=True, dst_type="hifloat8")
    assert ei.value.argument == "dst_type" and ei.value.soc == "ascend910b"
    with pytest.raises(DTypeError):
        edq.dynamic_quant(x16.astype(ml_dtypes.bfloat16), soc="ascend310p")
    with pytest.raises(DTypeError):
        edq.dynamic_quant(x16, soc="ascend910b", dst_type="float8_e4m3fn")
    with pytest.raises(ConstraintError) as ei:
        edq.dynamic_quant(np.ones((2, 26625), np.float16), soc="ascend910b")
    assert ei.value.limit == "<= 26624"
    with pytest.raises(ConstraintError) as ei:
        edq.dynamic_quant(np.ones(64, np.float16), soc="ascend910_95")
    assert ei.value.argument == "x"
    with pytest.raises(ConstraintError):
        edq.dynamic_quant(x16, np.ones(63, np.float16), soc="ascend910b")
    with pytest.raises(DTypeError):
        edq.dynamic_quant(x16, np.ones(64, np.float32), soc="ascend910b")


def test_tiling_without_explanation_is_the_same():
    # The CANN TilingFunc plans with explain=False (no strings per launch): its tiling must be the explained one's.
    rng = np.random.default_rng(3)
    for _ in range(200):
        soc = SOCS[rng.integers(3)]
        spec = tiling.soc_spec(soc)["dynamic_quant"]
        mult = spec["tail_multiple"]
        dtype = spec["x_dtypes"][rng.integers(len(spec["x_dtypes"]))]
        limit = spec["max_tail_" + dtype] or 200000
        shape = [int(rng.integers(0, 3000)), int(rng.integers(1, limit // mult + 1)) * mult]
        args = (shape, dtype, "int8", bool(rng.integers(2)), False, soc, int(rng.integers(0, 70)),
                int(rng.integers(0, 300)) * 1024)
        full = _native.plan_dynamic_quant(*args)
        bare = _native.plan_dynamic_quant(*args, explain=False)
        assert full["ok"] == bare["ok"]
        if full["ok"]:
            assert full["tiling"] == bare["tiling"]
            assert bare["explanation"]["ub"] == [] and bare["explanation"]["notes"] == []


def test_pipelined_mode_cuts_a_core_into_groups():
    # symmetric rows: groups of at least 8 KiB of x, at most rows / 8 a core otherwise; loads up to 4 groups ahead
    p = plan((256, 4096), "float16", "ascend910b")
    t = p.tiling
    assert p.explanation["mode"] == "pipelined" and t["tiling_key"] == 2
    assert (t["rowsPerIter"], t["xSlots"], t["ySlots"], t["statSets"]) == (1, 4, 3, 2)
    assert t["scaleRows"] == 6  # the core's 6 rows, one scale store
    ub = {b["name"]: b for b in p.explanation["ub"]}
    assert (ub["work_f32"]["bytes"], ub["row_max_acc"]["bytes"], ub["row_stats"]["bytes"]) == \
        (2 * t["workBytes"], 2 * t["accBytes"], 2 * t["rowStatBytes"])
    assert plan((4096, 4096), "float16", "ascend910b").tiling["rowsPerIter"] == 2  # 16 KiB of x at most
    assert plan((1024, 4096), "float16", "ascend910b").tiling["rowsPerIter"] == 2  # 22 rows: 8 groups or more
    assert plan((960, 128), "float16", "ascend910b").tiling["rowsPerIter"] == 20  # 8 KiB groups: one a core
    # the asymmetric modes too, with offset slots that gather as many rows as the scale slots
    for dst, offset_bytes in (("int8", 4), ("uint8", 1)):
        a = tiling.plan_dynamic_quant((256, 4096), "float16", soc="ascend910b", dst_type=dst, asymmetric=True)
        assert a.explanation["mode"] == "pipelined" and a.tiling["statSets"] == 2 and a.tiling["tiling_key"] == 2
        assert a.tiling["offsetBufBytes"] >= a.tiling["scaleRows"] * offset_bytes
