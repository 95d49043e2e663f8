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
        assert t["tileCount"] == batch * -(-m // t["baseM"]) * -(-n // t["baseN"])
        problems = tiling.verify_explanation(e, expected_work=t["tileCount"], core_limit=spec["qlinear_matmul_cores"],
                                             ub_limit=spec["ub_bytes"],
                                             expected_tensors={"a": int(np.prod(a_shape)), "b": int(np.prod(b_shape)),
                                                               "y": batch * m * n})
        assert problems == [], (a_shape, b_shape, problems[:5])
        # Tiles are whole cube fractals in M and 32-byte rows in N; the workspace is per vector worker.
        assert t["baseM"] % 16 == 0 and t["baseN"] % 32 == 0
        assert t["workspace_bytes"] == t["usedCores"] * t["workersPerCore"] * t["wsPerWorker"]
        offsets = [t[f] for f in ("wsAOffset", "wsBOffset", "wsCOffset", "wsRaOffset", "wsCbOffset", "wsOnesOffset")]
        assert offsets == sorted(offsets) and all(o % 32 == 0 for o in offsets) and t["wsPerWorker"] % 32 == 0
        assert t["mapA"] == (at == "uint8") and t["mapB"] == (bt == "uint8")


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


def test_ub_too_small_for_the_epilogue_is_refused():
    with pytest.raises(ConstraintError) as e:
        tiling.plan_qlinear_matmul((64, 64), (64, 64), soc="ascend310p", ub_size=65536)
    assert e.value.argument == "ub_size" and e.value.soc == "ascend310p"


def test_batch_rank_beyond_the_kernel_tiling_is_refused():
    with pytest.raises(ConstraintError) as e:
        tiling.plan_qlinear_matmul((1,) * 9 + (4, 8), (8, 4), soc="ascend910b")
    assert "batch" in e.value.constraint


def test_workspace_beyond_32_bits_per_worker_is_planned():
    # uint8 b mapped per tile: K x (tile width) bytes per vector worker, past 4 GiB: the tiling's offsets are 64-bit,
    # so the plan refuses nothing the kernel can address.
    p = tiling.plan_qlinear_matmul((4, 100_000_000), (100_000_000, 512), soc="ascend910b", b_dtype="uint8")
    t = p.tiling
    assert t["wsPerWorker"] > 2**32 and t["wsCOffset"] > 2**32
    assert t["workspace_bytes"] == t["usedCores"] * t["workersPerCore"] * t["wsPerWorker"]
    # Only a workspace past the 2^48-byte limit of any tensor is refused (possible with a large core count).
    with pytest.raises(ConstraintError) as e:
        tiling.plan_qlinear_matmul((4096, 2**31 - 1), (2**31 - 1, 4096), soc="ascend910b", b_dtype="uint8",
                                   a_dtype="uint8", core_num=4096)
    assert "workspace" in e.value.constraint and e.value.limit == "<= 2^48"


def test_small_problems_spread_over_cores():
    p = tiling.plan_qlinear_matmul((4, 64), (64, 4096), soc="ascend910b")
    assert p.tiling["usedCores"] == 24  # narrower tiles rather than idle cores
    assert p.explanation["balance_unit"] == 1


# ---- ascend310p (no DataCopyPad): the tile width leaves no y row segment narrower than a 32-byte block ----------
def _back_off_base_n(n, chosen):
    """The rule, restated from its description: with N = 32 q + r (0 < r < 32) the last N-tile of baseN = 32 j is
    32 (q mod j) + r bytes wide, so j must not divide q; the largest such j with 32 j not above the width tiling would
    choose (and not below its lower bound 64, or N's own width when narrower), else the smallest above it up to 256;
    None: no such width (then one core runs the op)."""
    if n % 32 == 0:
        return chosen
    if n < 32:
        return None
    q, width = n // 32, -(-n // 32) * 32
    lo, hi = min(64, width) // 32, min(256, width) // 32
    below = [j for j in range(lo, min(chosen // 32, hi) + 1) if q % j]
    if below:
        return 32 * max(below)
    above = [j for j in range(chosen // 32 + 1, hi + 1) if q % j]
    return 32 * min(above) if above else None


def _y_ranges(e):
    return [g for g in e["gm"] if g["tensor"] == "y"]


@pytest.mark.parametrize("m,batch", [(16, ()), (301, ()), (37, (3,)), (1, ())])
def test_310p_base_n_leaves_no_segment_narrower_than_a_block(m, batch):
    spec = tiling.soc_table()["ascend310p"]
    ns = list(range(1, 600)) + [26885, 26880 + 31, 26917, 53770, 840 * 32 * 3 + 1, 1000, 4097]
    if m == 301:
        ns = ns[::7] + ns[-7:]  # fewer: every plan lists every row's write range
    for n in ns:
        a_shape, b_shape = batch + (m, 45), (45, n)
        p = tiling.plan_qlinear_matmul(a_shape, b_shape, soc="ascend310p")
        t, e = p.tiling, p.explanation
        # The width tiling would choose for the same worker count without the rule: ascend910b with 4 cube cores
        # (8 vector workers, like 310p's 8 AI cores) runs the same tile choice and has DataCopyPad.
        chosen = tiling.plan_qlinear_matmul(a_shape, b_shape, soc="ascend910b", core_num=4).tiling["baseN"]
        want = _back_off_base_n(n, chosen)
        what = (a_shape, b_shape, chosen, t["baseN"], t["usedCores"])
        if want is None:
            # One core, the widest tiles; its partial blocks are stored by the scalar unit (declared), no rewrite.
            assert t["usedCores"] == 1, what
            assert t["baseN"] == min(256, -(-n // 32) * 32) and t["baseM"] == min(128, -(-m // 16) * 16), what
            assert any("ONE core" in note for note in e["notes"]), what
            last = n % t["baseN"]
            assert 0 < last < 32 and all(g["rewrite_bytes"] == 0 for g in _y_ranges(e)), what
            assert sum(g["scalar_bytes"] * g["count"] for g in _y_ranges(e)) == int(np.prod(batch, dtype=np.int64)) * m * last
        else:
            assert t["baseN"] == want, what
            last = n % t["baseN"]
            assert last == 0 or last >= 32, what
            assert all(g["scalar_bytes"] == 0 for g in _y_ranges(e)), what
            # A row of the last N-tile rewrites 32 - last % 32 of its own bytes (whole blocks ending at its end).
            # (a range with count > 1 stands for that many rows' segments)
            rewrites = [(g["rewrite_bytes"], g["count"]) for g in _y_ranges(e) if g["rewrite_bytes"]]
            assert sum(c for _, c in rewrites) == (int(np.prod(batch, dtype=np.int64)) * m if n % 32 else 0), what
            assert all(r == 32 - last % 32 for r, _ in rewrites), what
            assert t["usedCores"] == min(8, t["tileCount"]), what
        assert t["ubYOut"] == -(-t["baseN"] // 32) * 32 + 32, what  # one spare block per y slot
        problems = tiling.verify_explanation(e, soc_spec_=spec, expected_work=t["tileCount"],
                                             ub_limit=spec["ub_bytes"])
        assert problems == [], (what, problems[:3])


def test_310p_single_core_fallback_at_26885_columns():
    # N = 26885: q = 840 is divisible by every tile width / 32 from 2 to 8 (840 = lcm(2..8)), so every width leaves a
    # last N-tile of 5 bytes: the op runs on one core, the only writer of y.
    p = tiling.plan_qlinear_matmul((64, 128), (128, 26885), soc="ascend310p")
    t, e = p.tiling, p.explanation
    assert t["usedCores"] == 1 and e["used_cores"] == 1 and t["baseN"] == 256 and 26885 % 256 == 5
    assert {g["core"] for g in e["gm"]} == {0}
    # Every row of y, whole (the one core writes all of it): 26880 bytes by DMA, the last 5 by the scalar unit.
    assert {(g["end"] - g["begin"], g["scalar_bytes"]) for g in _y_ranges(e)} == {(26885, 5)}
    assert sum(g["count"] for g in _y_ranges(e)) == 64
    assert any("ONE core" in note and "840" in note for note in e["notes"])
    # One more block of columns (q = 841) and 32 fewer (q = 839): several cores, no scalar store.
    for n in (26917, 26853):
        t2 = tiling.plan_qlinear_matmul((64, 128), (128, n), soc="ascend310p").tiling
        assert t2["usedCores"] == 8 and n % t2["baseN"] >= 32, (n, t2["baseN"])
    # The SoCs with DataCopyPad are not affected: all their cores, no spare y block, no scalar / rewritten bytes.
    for soc in ("ascend910b", "ascend910_95"):
        p = tiling.plan_qlinear_matmul((64, 128), (128, 26885), soc=soc)
        assert p.tiling["usedCores"] == tiling.soc_table()[soc]["qlinear_matmul_cores"]
        assert p.tiling["ubYOut"] == -(-p.tiling["baseN"] // 32) * 32
        assert all(g["scalar_bytes"] == 0 and g["rewrite_bytes"] == 0 for g in p.explanation["gm"])


def test_310p_single_core_below_one_block():
    p = tiling.plan_qlinear_matmul((2, 100, 7), (7, 17), soc="ascend310p")
    t, e = p.tiling, p.explanation
    assert t["usedCores"] == 1 and t["baseN"] == 32
    assert all(g["scalar_bytes"] == 17 and g["end"] - g["begin"] == 17 for g in _y_ranges(e))
    assert any("ONE core" in note for note in e["notes"])
