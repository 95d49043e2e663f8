"""DynamicQuant in the emulator == the golden, bit for bit, on the full matrix: every SoC x input dtype x mode
(symmetric, asymmetric) x dst_type x kernel path. test_dynamic_quant_bitexact.py covers the paths one by one; this
file crosses them, so that no (SoC, x dtype, mode, dst_type) combination misses a path (e.g. bfloat16 multi-pass rows
to int8 on ascend910_95, or uint8 zero points from 4096-wide rows on ascend310p).

Paths, each asserted from the plan so that a test cannot silently stop covering its path:
  double_buffered   more rows than cores, not a multiple of the core count, unaligned tail, two x slots
  few_rows          fewer rows than cores
  UB-limited        with a UB override: row_resident_chunked and multi_pass rows, each with one and two x
                    slots, smooth scales (and single-pass single-buffered on ascend310p)
  long_row          ascend910_95 only: a row of more than 100,000 elements (multi-pass)
  empty             no rows, and rows with H = 0
Every non-empty case contains zero rows and NaN / Inf rows. The dtype lists per SoC are typed here from ATB's
documented dtypes and the SoCs' conversion units (symmetric), and from the asymmetric modes the kernel offers on
every SoC (int8 and uint8; the 950's float types too), not read from the SoC table, so a table that dropped a
combination would fail here.
The reference is the independent numpy golden (ascend310p: of x with Inf -> +-65504 and NaN -> 0, its saturation
mode, docs/design.md), never the kernel's own output.
"""
from __future__ import annotations

import importlib
import zlib

import ml_dtypes
import numpy as np
import pytest

from ascend_quant_ops import _native, tiling
from ascend_quant_ops.golden import dynamic_quant as golden_mod

if not hasattr(_native, "emulate_dynamic_quant"):  # pragma: no cover - build without the runner
    raise ImportError("_native was built without the DynamicQuant emulator runner (every build of the package has it: not a skip)")

edq = importlib.import_module("ascend_quant_ops.emulator.dynamic_quant")

F16, BF16 = np.float16, ml_dtypes.bfloat16
DTYPE = {"float16": F16, "bfloat16": BF16}
# (SoC, x dtypes, dst types, asymmetric dst types, vector cores, tail multiple), typed independently.
_FLOAT8 = ("hifloat8", "float8_e4m3fn", "float8_e5m2")
SOCS = {
    "ascend910b": (("float16", "bfloat16"), ("int8",), ("int8", "uint8"), 48, 1),
    "ascend310p": (("float16",), ("int8",), ("int8", "uint8"), 8, 32),
    "ascend910_95": (("float16", "bfloat16"), ("int8",) + _FLOAT8, ("int8", "uint8") + _FLOAT8, 64, 1),
}
# dst "asym:<type>" is the asymmetric mode (returns y, scale, offset)
COMBOS = [(soc, x, d) for soc, (xs, ds, ads, _, _) in SOCS.items() for x in xs
          for d in list(ds) + ["asym:" + a for a in ads]]
IDS = [f"{s}-{x}-{d}" for s, x, d in COMBOS]


def split_dst(dst):
    """("int8", False) / ("uint8", True) from a COMBOS dst."""
    return (dst[5:], True) if dst.startswith("asym:") else (dst, False)


def seed(*parts) -> int:
    return zlib.crc32(" ".join(map(str, parts)).encode())


def rand(shape, dtype, s, scale=3.0):
    rng = np.random.default_rng(s)
    return (rng.standard_normal(shape) * scale).astype(dtype)


def special_rows(h: int, dtype) -> np.ndarray:
    """A zero row, a NaN row, +Inf, -Inf, Inf with NaN, exact int8 ties, tiny values, all-equal values."""
    rows = np.zeros((8, h), np.float32)
    rows[1, :] = 1.0
    rows[1, (3 % h)] = np.nan
    rows[2, :] = np.linspace(-5, 5, h)
    rows[2, 0] = np.inf
    rows[3, h - 1] = -np.inf
    rows[4, 0], rows[4, h // 2] = np.inf, np.nan
    rows[5, :] = np.resize(np.array([127.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5], np.float32), h)
    rows[6, :] = np.resize(np.array([1e-3, -2e-4, 5e-5], np.float32), h)
    rows[7, :] = 2.0
    return rows.astype(dtype)


def reference(x, smooth, dst, soc):
    if soc == "ascend310p":  # saturation mode (docs/references.md#saturation-mode)
        def sat(a):
            a = a.copy()
            a[np.isposinf(a)] = np.finfo(np.float16).max
            a[np.isneginf(a)] = -np.finfo(np.float16).max
            a[np.isnan(a)] = 0
            return a
        x = sat(x)
        smooth = None if smooth is None else sat(smooth)
    dst, asym = split_dst(dst)
    return golden_mod.dynamic_quant(x, smooth, dst_type=dst, asymmetric=asym)


def _assert_float_bits(s, sg, what):
    assert s.dtype == np.float32 and s.shape == sg.shape, what
    nan = np.isnan(sg)
    np.testing.assert_array_equal(np.isnan(s), nan, err_msg=what)
    np.testing.assert_array_equal(s[~nan].view(np.uint32), sg[~nan].view(np.uint32), err_msg=what)


def assert_bitexact(got, want, what):
    assert len(got) == len(want), what
    y, s = got[:2]
    yg, sg = want[:2]
    assert y.dtype == yg.dtype and y.shape == yg.shape, what
    bad = np.argwhere(y.view(np.uint8) != yg.view(np.uint8))
    assert bad.size == 0, f"{what}: {len(bad)} y bytes differ, first at {bad[0].tolist()}"
    _assert_float_bits(s, sg, what + " (scale)")
    if len(want) == 3:  # the offset: float32 (bit for bit, NaN as NaN) or uint8 zero points
        o, og = got[2], want[2]
        assert o.dtype == og.dtype and o.shape == og.shape, what
        if og.dtype == np.uint8:
            np.testing.assert_array_equal(o, og, err_msg=what + " (zero point)")
        else:
            _assert_float_bits(o, og, what + " (offset)")


def find_ub(shape, x, dst, soc, smooth, want_mode, want_slots=None, core_num=0):
    """The largest UB override (a multiple of 32 bytes) whose plan has the wanted mode and x slot count."""
    cap = tiling.soc_spec(soc)["ub_bytes"]
    dst, asym = split_dst(dst)
    for ub in range(cap - cap % 32, 1023, -32):
        try:
            p = tiling.plan_dynamic_quant(shape, x, soc=soc, dst_type=dst, smooth=smooth, ub_size=ub,
                                          core_num=core_num or None, asymmetric=asym)
        except ValueError:
            continue
        if p.explanation["mode"] == want_mode and (want_slots is None or p.tiling["xSlots"] == want_slots):
            return ub
    return None


def run(x, smooth, dst, soc, *, mode=None, slots=None, min_slots=None, min_cores=None, **kw):
    what = f"{soc} {x.dtype} -> {dst} {x.shape}"
    d, asym = split_dst(dst)
    got = edq.dynamic_quant(x, smooth, dst_type=d, asymmetric=asym, soc=soc, **kw)
    stats = edq.last_run_stats()
    plan = stats["plan"]
    if mode is not None:
        assert plan["mode"] == mode, (what, plan)
    if slots is not None or min_slots is not None:
        p = tiling.plan_dynamic_quant(x.shape, x.dtype, soc=soc, dst_type=d, smooth=smooth is not None,
                                      asymmetric=asym, **kw)
        assert slots is None or p.tiling["xSlots"] == slots, (what, p.tiling)
        assert min_slots is None or p.tiling["xSlots"] >= min_slots, (what, p.tiling)
    if min_cores is not None:
        assert plan["used_cores"] >= min_cores, (what, plan)
    assert_bitexact(got, reference(x, smooth, dst, soc), what)


def width(soc, h):
    m = SOCS[soc][4]
    return -(-h // m) * m


@pytest.mark.parametrize("soc,x,dst", COMBOS, ids=IDS)
def test_double_buffered_rows_not_a_multiple_of_the_cores(soc, x, dst):
    cores = SOCS[soc][3]
    h = width(soc, 100)  # unaligned tail where DataCopyPad exists (100 float16 = 200 bytes)
    dt = DTYPE[x]
    # ascend310p's uint8 zero points go out in blocks of 32 rows: a core takes at least 32 rows there
    rows = 2 * cores * (4 if (soc, dst) == ("ascend310p", "asym:uint8") else 1) + 5
    xs = np.concatenate([rand((rows - 8, h), dt, seed(soc, x, dst, 1)), special_rows(h, dt)])
    assert xs.shape[0] % cores and xs.shape[0] > cores
    run(xs, None, dst, soc, mode="pipelined", min_slots=2, min_cores=2)  # two x slots at least


@pytest.mark.parametrize("soc,x,dst", COMBOS, ids=IDS)
def test_many_rows_a_core_gather_and_store_scales_several_times(soc, x, dst):
    # More than two scale_out (offset_out) gatherings a core: each freed VECOUT buffer holds an MTE3_V event id
    # until it is allocated again and the pipe has 8, so y's, the scales' and the offsets' buffers together must stay
    # within them at the core's end (the asymmetric modes once held 9 and ran out).
    cores = SOCS[soc][3]
    h = width(soc, 64)
    dt = DTYPE[x]
    d, asym = split_dst(dst)
    rows = cores * 200 + 1
    xs = np.concatenate([rand((rows - 10, h), dt, seed(soc, x, dst, 7)), special_rows(h, dt)])
    t = tiling.plan_dynamic_quant(xs.shape, x, soc=soc, dst_type=d, asymmetric=asym).tiling
    assert t["rowsPerCore"] > 2 * t["scaleRows"], t  # three gatherings at least
    run(xs, None, dst, soc, mode="pipelined")


@pytest.mark.parametrize("soc,x,dst", COMBOS, ids=IDS)
def test_first_group_in_row_pieces(soc, x, dst):
    # One core, a first group of several rows of at least 1024 elements: loaded and its statistics begun in pieces of
    # whole rows (at most 4 pieces, so a piece may hold several rows), with the special rows inside it; rows whose
    # UB stride is padded past the tail where DataCopyPad exists (1030 elements).
    dt = DTYPE[x]
    d, asym = split_dst(dst)
    h = width(soc, 1030)
    specials = special_rows(h, dt)
    rows = 64 if (soc, dst) == ("ascend310p", "asym:uint8") else 48  # groups of rows / 8 rows at least
    xs = rand((rows, h), dt, seed(soc, x, dst, 11))
    t = tiling.plan_dynamic_quant(xs.shape, x, soc=soc, dst_type=d, asymmetric=asym, core_num=1).tiling
    n = t["rowsPerIter"]
    assert n >= 5, t  # some pieces hold two rows or more
    for k in range(0, len(specials), n):  # every special row in the first group, at each of its positions
        part = specials[k:k + n]
        xs[:len(part)] = part
        run(xs, None, dst, soc, mode="pipelined", core_num=1)


@pytest.mark.parametrize("soc,x,dst", COMBOS, ids=IDS)
def test_fewer_rows_than_cores(soc, x, dst):
    h = width(soc, 45)
    xs = special_rows(h, DTYPE[x])[:5]
    assert xs.shape[0] < SOCS[soc][3]
    run(xs, None, dst, soc, mode="pipelined")


# (mode, x slots) reached with a UB override: rows held in UB while their chunks are processed
# (row_resident_chunked) or streamed twice (multi_pass), each single- and double-buffered; pipelined with two and four
# x slots, and computed a group at once by the resident class (single_pass) once the pipelined buffers do not fit.
UB_PATHS = [("row_resident_chunked", 1), ("row_resident_chunked", 2), ("multi_pass", 1), ("multi_pass", 2),
            ("pipelined", 2), ("pipelined", 4), ("single_pass", 2)]
UB_CASES = [(c, p) for c in COMBOS for p in UB_PATHS]


@pytest.mark.parametrize("soc,x,dst,mode,slots", [c + p for c, p in UB_CASES],
                         ids=[f"{s}-{x}-{d}-{m}-{n}slot" for (s, x, d), (m, n) in UB_CASES])
def test_ub_limited_paths_with_smooth(soc, x, dst, mode, slots):
    dt = DTYPE[x]
    h = width(soc, 1500)
    xs = np.concatenate([rand((9, h), dt, seed(soc, x, dst, mode, slots)), special_rows(h, dt)])
    smooth = (np.random.default_rng(seed(soc, x, dst, 3)).random(h) + 0.5).astype(dt)
    ub = find_ub(xs.shape, x, dst, soc, True, mode, slots, core_num=3)
    assert ub is not None, f"no UB size gives a {mode} plan with {slots} x slot(s)"
    run(xs, smooth, dst, soc, mode=mode, slots=slots, core_num=3, ub_size=ub)


def test_310p_single_pass_single_buffered():
    # One x slot in a single pass once two slots no longer fit: rows too short for float32 chunks (a chunk is at
    # least 256 elements and shorter than the row), whose two x / y slots do not fit beside the float32 group.
    # (For long rows two slots with float32 chunks are preferred to one slot.)
    h = 256
    xs = np.concatenate([rand((9, h), F16, seed("310p", 1)), special_rows(h, F16)])
    ub = find_ub(xs.shape, "float16", "int8", "ascend310p", False, "single_pass", 1, core_num=3)
    assert ub is not None
    run(xs, None, "int8", "ascend310p", mode="single_pass", slots=1, core_num=3, ub_size=ub)


@pytest.mark.parametrize("soc,x,dst", [c for c in COMBOS if c[0] == "ascend910_95"],
                         ids=[i for i, c in zip(IDS, COMBOS) if c[0] == "ascend910_95"])
def test_950_multi_pass_long_rows(soc, x, dst):
    # More than 100,000 elements per row (no tail limit on this SoC), every x dtype x dst_type, with a zero row and
    # non-finite values inside the chunks.
    dt = DTYPE[x]
    h = 100_003
    xs = rand((3, h), dt, seed(soc, x, dst, 5), scale=100.0)
    xs[1] = 0
    xs[2, 77_777] = np.inf
    xs[2, 5] = np.nan if dst != "int8" else xs[2, 5]
    run(xs, None, dst, soc, mode="multi_pass")


@pytest.mark.parametrize("soc,x,dst", [c for c in COMBOS if c[0] == "ascend910_95"],
                         ids=[i for i, c in zip(IDS, COMBOS) if c[0] == "ascend910_95"])
def test_950_multi_pass_small_ub_with_smooth(soc, x, dst):
    dt = DTYPE[x]
    h = 3001
    xs = np.concatenate([rand((3, h), dt, seed(soc, x, dst, 6)), special_rows(h, dt)])
    smooth = (np.random.default_rng(seed(soc, x, dst, 7)).random(h) + 0.5).astype(dt)
    run(xs, smooth, dst, soc, mode="multi_pass", ub_size=8192)


@pytest.mark.parametrize("soc,x,dst", COMBOS, ids=IDS)
def test_empty(soc, x, dst):
    dt = DTYPE[x]
    h = width(soc, 64)
    d, asym = split_dst(dst)
    n = 3 if asym else 2
    out = edq.dynamic_quant(np.zeros((0, h), dt), dst_type=d, asymmetric=asym, soc=soc)
    assert len(out) == n and out[0].shape == (0, h) and all(o.shape == (0,) for o in out[1:])
    out = edq.dynamic_quant(np.zeros((2, 0, h), dt), dst_type=d, asymmetric=asym, soc=soc)
    assert out[0].shape == (2, 0, h) and all(o.shape == (2, 0) for o in out[1:])
    out = edq.dynamic_quant(np.zeros((3, 0), dt), dst_type=d, asymmetric=asym, soc=soc)
    assert out[0].shape == (3, 0)
    for o in out[1:]:  # rows without elements are zero rows: scale 0 (and offset 0)
        np.testing.assert_array_equal(o, np.zeros(3, o.dtype))


def asymmetric_edge_rows(h: int, dtype) -> np.ndarray:
    """Rows that stress the asymmetric parameters: all positive, all negative, constant negative, one non-zero
    element, extremes whose range overflows float32 (bfloat16: scale +Inf), -Inf with finite values, and (bfloat16)
    ranges so small that the scale is subnormal or the range below 2^-64 (the kernel's scalar fallback)."""
    big = float(np.finfo(dtype).max) if dtype is F16 else 3.0e38
    rows = np.zeros((10, h), np.float32)
    rng = np.random.default_rng(h)
    rows[0, :] = rng.random(h) * 7 + 0.5
    rows[1, :] = -(rng.random(h) * 7 + 0.5)
    rows[2, :] = -3.25
    rows[3, h // 3] = 5.0
    rows[4, :] = np.linspace(-big, big, h)
    rows[5, :] = rng.standard_normal(h)
    rows[5, 0] = -np.inf
    if dtype is BF16:
        rows[6, :] = rng.standard_normal(h) * 1e-32  # range below 2^-64
        rows[7, :] = rng.random(h) * 1e-37 + 1e-37  # subnormal scale
        rows[8, :] = 1e-38 * np.sign(rng.standard_normal(h))
    else:
        rows[6, :] = rng.standard_normal(h) * 1e-4
        rows[7, :] = 6e-8 * np.sign(rng.standard_normal(h))  # float16 subnormals
        rows[8, :] = 65504.0
    rows[9, :] = rng.standard_normal(h) * 1e-4 + 1.0
    return rows.astype(dtype)


ASYM_COMBOS = [c for c in COMBOS if c[2].startswith("asym:")]


@pytest.mark.parametrize("path", ["pipelined", "single_pass", "row_resident_chunked", "multi_pass"])
@pytest.mark.parametrize("soc,x,dst", ASYM_COMBOS, ids=[f"{s}-{x}-{d}" for s, x, d in ASYM_COMBOS])
def test_asymmetric_edge_rows(soc, x, dst, path):
    dt = DTYPE[x]
    h = width(soc, 700 if path in ("pipelined", "single_pass") else 1500)
    xs = np.concatenate([asymmetric_edge_rows(h, dt), special_rows(h, dt)])
    if path == "pipelined":
        run(xs, None, dst, soc, mode="pipelined")
        return
    ub = find_ub(xs.shape, x, dst, soc, False, path, core_num=3)
    assert ub is not None, f"no UB size gives a {path} plan"
    run(xs, None, dst, soc, mode=path, core_num=3, ub_size=ub)


@pytest.mark.parametrize("dst", ["int8", "asym:int8", "asym:uint8"])
def test_310p_chunked_rows_with_smooth_at_the_smallest_ub(dst):
    # The smallest UB that still computes resident rows in chunks: the chunk (and SanitizeHalf's scratch, sized for
    # one chunk) is then much shorter than the row, so the smooth scales are sanitized chunk by chunk too.
    h = 1504
    xs = np.concatenate([rand((9, h), F16, seed("310p smallest", dst)), special_rows(h, F16)])
    smooth = (np.random.default_rng(seed("310p smooth", dst)).random(h) + 0.5).astype(F16)
    smooth[[5, 700]] = np.inf
    d, asym = split_dst(dst)
    ub = None
    for size in range(1024, 262144, 32):
        try:
            p = tiling.plan_dynamic_quant(xs.shape, "float16", soc="ascend310p", dst_type=d, smooth=True,
                                          ub_size=size, core_num=1, asymmetric=asym)
        except ValueError:
            continue
        if p.explanation["mode"] == "row_resident_chunked":
            ub = size
            break
    assert ub is not None
    p = tiling.plan_dynamic_quant(xs.shape, "float16", soc="ascend310p", dst_type=d, smooth=True, ub_size=ub,
                                  core_num=1, asymmetric=asym)
    assert p.tiling["chunk"] * 2 < h, p.tiling
    run(xs, smooth, dst, "ascend310p", mode="row_resident_chunked", core_num=1, ub_size=ub)
