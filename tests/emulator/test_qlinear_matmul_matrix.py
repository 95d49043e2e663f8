"""QLinearMatMul in the emulator == the golden, bit for bit, on the crossed matrix:
every SoC x all eight int8/uint8 (a, b, y) combinations x per-tensor / per-row / per-column parameters x batch
broadcasting, with M, N, K multiples of no tile size; and int32 wrap-around (K = 40,000 >= 33,026) for all eight type
combinations, per tensor and per row / per column, on every SoC.

test_qlinear_matmul_bitexact.py covers each dimension separately (the type combinations unbatched, broadcasting
with u8 x s8 only, the wrap with u8 x u8 only); here they are crossed, so the uint8 -> int8 mapping (XOR 0x80,
zero point - 128; docs/references.md#apis-per-soc) meets batch strides and per-row / per-column zero points on
every SoC.
References: the independent numpy golden, and for the wrap cases also our own exact int64 accumulation wrapped to
int32 (asserted to actually wrap), never the kernel's own output.
"""
from __future__ import annotations

import importlib
import itertools
import zlib

import numpy as np
import pytest

emu = importlib.import_module("ascend_quant_ops.emulator.qlinear_matmul")
from ascend_quant_ops.golden.qlinear_matmul import qlinear_matmul as golden  # noqa: E402

SOCS = ("ascend910b", "ascend310p", "ascend910_95")
INT_TYPES = (np.int8, np.uint8)
TYPE_COMBOS = list(itertools.product(INT_TYPES, INT_TYPES, INT_TYPES))
TYPE_IDS = ["".join("u8" if t is np.uint8 else "s8" for t in c) for c in TYPE_COMBOS]
KINDS = [("tensor", "tensor"), ("row", "tensor"), ("tensor", "column"), ("row", "column")]
# Batch broadcasting; M = 19, K = 33, N = 45 (and M = 130, N = 290 past one 128 x 256 tile): multiples of no tile.
SHAPES = [
    ((2, 1, 19, 33), (3, 33, 45)),      # a's batch 1 against b's 3; b lacks a leading dim
    ((3, 19, 33), (33, 45)),            # 2-D b shared by every batch of a
    ((19, 33), (2, 33, 45)),            # 2-D a shared by every batch of b
    ((1, 2, 130, 33), (2, 1, 33, 290)), # both broadcast, several tiles in M and N
]


def _seed(*parts) -> int:
    return zlib.crc32(" ".join(map(str, parts)).encode())


def _rand(rng, dtype, shape, lo=None, hi=None):
    info = np.iinfo(dtype)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    return rng.integers(lo, hi + 1, size=shape, dtype=np.int64).astype(dtype)


def _params(rng, kind, dtype, a_shape, b_shape, operand):
    """(scale, zero_point) per tensor, per row of a ([M] for 2-D a, [..., M, 1] otherwise) or per column of b
    ([N] for 2-D b, [..., 1, N] otherwise)."""
    if kind == "tensor":
        return np.float32(rng.uniform(0.005, 0.05)), dtype(_rand(rng, dtype, ()))
    if operand == "a":
        shape = (a_shape[-2],) if len(a_shape) == 2 else a_shape[:-1] + (1,)
    else:
        shape = (b_shape[-1],) if len(b_shape) == 2 else b_shape[:-2] + (1, b_shape[-1])
    return rng.uniform(0.005, 0.05, size=shape).astype(np.float32), _rand(rng, dtype, shape)


def _as_rows(p, a_shape):
    p = np.asarray(p)
    return p if p.ndim == 0 else (p.reshape(-1, 1) if len(a_shape) == 2 else p)


def _case(rng, at, bt, yt, a_kind, b_kind, a_shape, b_shape):
    a = _rand(rng, at, a_shape)
    b = _rand(rng, bt, b_shape)
    a_s, a_z = _params(rng, a_kind, at, a_shape, b_shape, "a")
    b_s, b_z = _params(rng, b_kind, bt, a_shape, b_shape, "b")
    acc = (a.astype(np.int64) - _as_rows(a_z, a_shape).astype(np.int64)) @ \
        (b.astype(np.int64) - np.asarray(b_z, np.int64))
    spread = float(np.max(np.abs(acc))) or 1.0
    y_s = np.float32(float(np.median(a_s)) * float(np.median(b_s)) * spread / 100)
    info = np.iinfo(yt)
    y_z = yt((int(info.min) + int(info.max) + 1) // 2 + int(rng.integers(-20, 21)))
    return a, a_s, a_z, b, b_s, b_z, y_s, y_z


@pytest.mark.parametrize("a_shape,b_shape", SHAPES, ids=["a1_vs_b3", "b2d", "a2d", "both_broadcast"])
@pytest.mark.parametrize("at,bt,yt", TYPE_COMBOS, ids=TYPE_IDS)
@pytest.mark.parametrize("soc", SOCS)
def test_types_x_param_kinds_x_broadcasting(soc, at, bt, yt, a_shape, b_shape):
    rng = np.random.default_rng(_seed(soc, TYPE_IDS[TYPE_COMBOS.index((at, bt, yt))], a_shape, b_shape))
    for a_kind, b_kind in KINDS:
        args = _case(rng, at, bt, yt, a_kind, b_kind, a_shape, b_shape)
        y = emu.qlinear_matmul(*args, soc=soc)
        g = golden(*args)
        what = f"{soc} {a_kind}/{b_kind} {a_shape} x {b_shape}"
        assert y.dtype == g.dtype and y.shape == g.shape, what
        assert y.shape == np.broadcast_shapes(a_shape[:-2], b_shape[:-2]) + (a_shape[-2], b_shape[-1]), what
        np.testing.assert_array_equal(y, g, err_msg=what)
        assert len(np.unique(y)) > 20, what  # not all saturated: the comparison means something


def _wrapping_operand(rng, dtype, shape):
    """Values at the top of the type's range; with the zero point at the bottom, (v - zp) is 230..255."""
    top = int(np.iinfo(dtype).max)
    return _rand(rng, dtype, shape, top - 25, top)


@pytest.mark.parametrize("at,bt,yt", TYPE_COMBOS, ids=TYPE_IDS)
@pytest.mark.parametrize("soc", SOCS)
def test_large_k_wraps_int32_for_every_type_combination(soc, at, bt, yt):
    # K = 40,000 >= 33,026 (docs/references.md#decision-qlinearmatmul): sum_k (a - a_zp)(b - b_zp) with every term
    # above 230 * 230 leaves int32.
    rng = np.random.default_rng(_seed("wrap", soc, TYPE_IDS[TYPE_COMBOS.index((at, bt, yt))]))
    m, k, n = 3, 40_000, 5
    a = _wrapping_operand(rng, at, (m, k))
    b = _wrapping_operand(rng, bt, (k, n))
    a_lo, b_lo = int(np.iinfo(at).min), int(np.iinfo(bt).min)
    y_info = np.iinfo(yt)
    y_z = yt((int(y_info.min) + int(y_info.max) + 1) // 2)
    cases = [
        # per tensor, zero points at the bottom of the range
        (np.float32(2.0**-10), at(a_lo), np.float32(2.0**-10), bt(b_lo)),
        # per row of a / per column of b, zero points near the bottom (each row / column different)
        (np.full(m, 2.0**-10, np.float32), _rand(rng, at, (m,), a_lo, a_lo + 6),
         np.full(n, 2.0**-10, np.float32), _rand(rng, bt, (n,), b_lo, b_lo + 6)),
    ]
    for a_s, a_z, b_s, b_z in cases:
        y_s = np.float32(2.0**5)
        args = (a, a_s, a_z, b, b_s, b_z, y_s, y_z)
        y = emu.qlinear_matmul(*args, soc=soc)
        # Our own exact reference: int64 accumulation, wrapped to int32, then the documented float32 requant.
        az = np.asarray(a_z, np.int64).reshape(-1, 1) if np.ndim(a_z) else np.int64(a_z)
        acc = (a.astype(np.int64) - az) @ (b.astype(np.int64) - np.asarray(b_z, np.int64))
        assert (np.abs(acc) >= 2**31).any(), "the case must actually wrap"
        wrapped = ((acc + 2**31) % 2**32 - 2**31).astype(np.int32)
        mult = (np.asarray(a_s, np.float32).reshape(-1, 1) if np.ndim(a_s) else a_s) * b_s / y_s
        ref = np.clip(np.rint(wrapped.astype(np.float32) * mult) + np.float32(y_z),
                      y_info.min, y_info.max).astype(yt)
        np.testing.assert_array_equal(y, ref, err_msg=f"{soc} per-{'tensor' if np.ndim(a_s) == 0 else 'row/column'}")
        np.testing.assert_array_equal(y, golden(*args))
