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
    assert any(buf["name"] == "matmul_api_reserve" for buf in p.explanation["ub"]) == (soc == "ascend310p")


def test_ub_too_small_for_the_epilogue_is_refused():
    with pytest.raises(ConstraintError) as e:
        tiling.plan_qlinear_matmul((64, 64), (64, 64), soc="ascend310p", ub_size=65536)
    assert e.value.argument == "ub_size" and e.value.soc == "ascend310p"


def test_batch_rank_beyond_the_kernel_tiling_is_refused():
    with pytest.raises(ConstraintError) as e:
        tiling.plan_qlinear_matmul((1,) * 9 + (4, 8), (8, 4), soc="ascend910b")
    assert "batch" in e.value.constraint


def test_workspace_beyond_32_bits_per_worker_is_refused():
    # uint8 b mapped per tile: K x (tile width) bytes per vector worker.
    with pytest.raises(ConstraintError) as e:
        tiling.plan_qlinear_matmul((4, 100_000_000), (100_000_000, 512), soc="ascend910b", b_dtype="uint8")
    assert "workspace" in e.value.constraint


def test_small_problems_spread_over_cores():
    p = tiling.plan_qlinear_matmul((4, 64), (64, 4096), soc="ascend910b")
    assert p.tiling["usedCores"] == 24  # narrower tiles rather than idle cores
    assert p.explanation["balance_unit"] == 1
