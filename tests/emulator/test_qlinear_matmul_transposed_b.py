"""QLinearMatMul with b given as a transposed view of a C-contiguous [..., N, K] array (`w.T`, the Linear layout):
the emulator runs the kernel on b's storage with the plan's b_trans (no host copy) and the result equals, byte for
byte, the same call with b contiguous, and the golden on the contiguous b, on every SoC.

No-copy evidence: the runner's b buffer shares memory with the [N, K] array, and the plan says b_trans (on the SoCs
of emulator.qlinear_matmul.COPY_TRANSPOSED_B_SOCS, none today, the host would copy instead);
test_310p_cube_stage_transposed_b also runs the 310p kernel on the [N, K] storage directly at every N tail.
"""
from __future__ import annotations

import importlib
import zlib

import numpy as np
import pytest

from ascend_quant_ops import _native, api, tiling
from ascend_quant_ops.emulator import _stats
from ascend_quant_ops.errors import ConstraintError
from ascend_quant_ops.golden.qlinear_matmul import qlinear_matmul as golden

emu = importlib.import_module("ascend_quant_ops.emulator.qlinear_matmul")

SOCS = ("ascend910b", "ascend310p", "ascend910_95")
COPIES = emu.COPY_TRANSPOSED_B_SOCS


def _rand(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, size=shape, dtype=np.int64).astype(dtype)


def _rng(*key):
    return np.random.default_rng(zlib.crc32(" ".join(map(str, key)).encode()))


class _CaptureB:
    """Wraps _native.emulate_qlinear_matmul, keeping the b buffer and b_trans the runner was given."""

    def __init__(self, monkeypatch):
        self.calls = []
        real = _native.emulate_qlinear_matmul

        def wrapped(*args, **kwargs):
            self.calls.append((args[3], args[11]))  # b (uint8 view), b_trans
            return real(*args, **kwargs)

        monkeypatch.setattr(_native, "emulate_qlinear_matmul", wrapped)


def _y_scale(a, b, a_s, b_s):
    acc = a.astype(np.int64) @ b.astype(np.int64)
    spread = float(np.max(np.abs(acc))) or 1.0
    return np.float32(float(np.median(a_s)) * float(np.median(b_s)) * spread / 100)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("at,bt,yt", [(np.int8, np.int8, np.int8), (np.uint8, np.int8, np.uint8),
                                      (np.int8, np.uint8, np.int8)])
@pytest.mark.parametrize("b_kind", ["tensor", "column"])
def test_transposed_view_equals_contiguous_and_golden(soc, at, bt, yt, b_kind, monkeypatch):
    rng = _rng(soc, at.__name__, bt.__name__, yt.__name__, b_kind)
    m, k, n = 37, 70, 45  # multiples of no tile size
    a = _rand(rng, at, (m, k))
    w = _rand(rng, bt, (n, k))  # the Linear layout: [N, K], C-contiguous
    b_view = w.T
    b_contig = np.ascontiguousarray(b_view)
    assert not b_view.flags.c_contiguous and np.shares_memory(b_view, w)
    a_s = rng.uniform(0.005, 0.05, m).astype(np.float32)
    a_z = _rand(rng, at, (m,))
    if b_kind == "column":
        b_s, b_z = rng.uniform(0.005, 0.05, n).astype(np.float32), _rand(rng, bt, (n,))
    else:
        b_s, b_z = np.float32(0.02), bt(_rand(rng, bt, ()))
    y_s = _y_scale(a, b_contig, a_s, b_s)
    y_z = yt(int(rng.integers(-20, 21)) + (128 if yt is np.uint8 else 0))

    want = golden(a, a_s, a_z, b_contig, b_s, b_z, y_s, y_z)
    cap = _CaptureB(monkeypatch)
    y_view = api.qlinear_matmul(a, a_s, a_z, b_view, b_s, b_z, y_s, y_z, soc=soc, backend="emulator")
    assert _stats.last_run_stats()["plan"]["b_trans"] is (soc not in COPIES)
    y_contig = api.qlinear_matmul(a, a_s, a_z, b_contig, b_s, b_z, y_s, y_z, soc=soc, backend="emulator")
    assert _stats.last_run_stats()["plan"]["b_trans"] is False

    assert y_view.dtype == want.dtype and y_view.shape == want.shape == (m, n)
    assert y_view.tobytes() == y_contig.tobytes() == want.tobytes()
    # the runner got w's own bytes (no host copy), flagged as transposed; the contiguous b as stored, not flagged
    (b_first, trans_first), (b_second, trans_second) = cap.calls
    if soc in COPIES:
        assert trans_first is False and not np.shares_memory(b_first, w)
    else:
        assert trans_first is True and np.shares_memory(b_first, w) and b_first.size == w.size
    assert trans_second is False and np.shares_memory(b_second, b_contig)


@pytest.mark.parametrize("soc", SOCS)
def test_batched_transposed_b(soc, monkeypatch):
    rng = _rng("batched", soc)
    bs, m, k, n = 3, 9, 40, 21
    a = _rand(rng, np.int8, (bs, m, k))
    w = _rand(rng, np.int8, (bs, n, k))  # [B, N, K], C-contiguous
    b_view = np.swapaxes(w, -1, -2)      # [B, K, N], last two axes' strides swapped
    b_contig = np.ascontiguousarray(b_view)
    a_s, a_z = np.float32(0.03), np.int8(-3)
    b_s = rng.uniform(0.005, 0.05, (bs, 1, n)).astype(np.float32)  # per column, per batch matrix
    b_z = _rand(rng, np.int8, (bs, 1, n))
    y_s, y_z = _y_scale(a, b_contig, a_s, b_s), np.int8(4)

    want = golden(a, a_s, a_z, b_contig, b_s, b_z, y_s, y_z)
    cap = _CaptureB(monkeypatch)
    y = emu.qlinear_matmul(a, a_s, a_z, b_view, b_s, b_z, y_s, y_z, soc=soc)
    b_buf, b_trans = cap.calls[-1]
    assert _stats.last_run_stats()["plan"]["b_trans"] is b_trans is (soc not in COPIES)
    assert np.shares_memory(b_buf, w) is (soc not in COPIES)
    y_contig = emu.qlinear_matmul(a, a_s, a_z, b_contig, b_s, b_z, y_s, y_z, soc=soc)
    assert y.tobytes() == y_contig.tobytes() == want.tobytes()


@pytest.mark.parametrize("soc", SOCS)
def test_other_strided_b_is_copied_not_misread(soc, monkeypatch):
    # a b that is neither [..., K, N] nor a transposed [..., N, K] (a column slice of a transposed weight): the
    # runner gets a contiguous copy without b_trans, and the result is still the golden's
    rng = _rng("sliced", soc)
    a = _rand(rng, np.int8, (5, 24))
    w = _rand(rng, np.int8, (40, 24))
    b = w.T[:, ::2]
    args = (a, np.float32(0.02), np.int8(1), b, np.float32(0.03), np.int8(-2), np.float32(0.5), np.int8(0))
    cap = _CaptureB(monkeypatch)
    y = emu.qlinear_matmul(*args, soc=soc)
    assert cap.calls[-1][1] is False and not np.shares_memory(cap.calls[-1][0], w)
    assert y.tobytes() == golden(*args).tobytes()


def test_torch_transposed_weight_goes_without_a_copy(monkeypatch):
    torch = pytest.importorskip("torch")
    rng = _rng("torch")
    a = torch.from_numpy(_rand(rng, np.int8, (6, 32)))
    w = torch.from_numpy(_rand(rng, np.int8, (10, 32)))  # nn.Linear's weight layout
    b_s = torch.from_numpy(rng.uniform(0.005, 0.05, 10).astype(np.float32))
    b_z = torch.from_numpy(_rand(rng, np.int8, (10,)))
    args = (a, torch.tensor(0.02), torch.tensor(3, dtype=torch.int8), w.T, b_s, b_z, torch.tensor(0.4),
            torch.tensor(-1, dtype=torch.int8))
    cap = _CaptureB(monkeypatch)
    y = api.qlinear_matmul(*args, soc="ascend910b", backend="emulator")
    assert isinstance(y, torch.Tensor)
    b_buf, b_trans = cap.calls[-1]
    assert b_trans is True and np.shares_memory(b_buf, w.numpy())
    want = golden(*(t.numpy() for t in args[:3]), np.ascontiguousarray(w.numpy().T),
                  *(t.numpy() for t in args[4:]))
    assert y.numpy().tobytes() == want.tobytes()


def test_plan_takes_b_trans():
    p = tiling.plan_qlinear_matmul((2, 33, 70), (70, 45), soc="ascend910b", b_param="column", b_trans=True)
    assert p.tiling["bTrans"] == 1 and p.request["b_trans"] is True
    assert tiling.plan_qlinear_matmul((33, 70), (70, 45), soc="ascend910b").tiling["bTrans"] == 0


def test_float8_transposed_b_refused_by_the_plan_and_copied_by_the_emulator(monkeypatch):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    soc = "ascend910_95"
    f8 = ml_dtypes.float8_e4m3fn
    with pytest.raises(ConstraintError) as e:
        tiling.plan_qlinear_matmul((4, 16), (16, 8), soc=soc, a_dtype="float8_e4m3fn", b_dtype="float8_e4m3fn",
                                   y_dtype="float8_e4m3fn", b_trans=True)
    assert "transposed" in str(e.value) and soc in str(e.value)
    # the float8 kernel path reads b as [K, N] only: a transposed float8 view is copied, and still right. Small
    # integers: every product and sum is exact, so the kernel's y equals the golden's.
    rng = _rng("f8")
    a = rng.integers(-4, 5, (4, 16)).astype(np.float32).astype(f8)
    w = rng.integers(-4, 5, (8, 16)).astype(np.float32).astype(f8)
    z = f8(0)
    args = (a, np.float32(0.5), z, w.T, np.float32(0.25), z, np.float32(0.5), z)
    cap = _CaptureB(monkeypatch)
    y = emu.qlinear_matmul(*args, soc=soc)
    assert cap.calls[-1][1] is False and not np.shares_memory(cap.calls[-1][0], w)
    assert _stats.last_run_stats()["plan"]["b_trans"] is False
    g = golden(a, np.float32(0.5), z, np.ascontiguousarray(w.T), np.float32(0.25), z, np.float32(0.5), z)
    assert y.dtype == g.dtype and y.tobytes() == g.tobytes()


@pytest.mark.parametrize("at", [np.int8, np.uint8], ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("n", [1, 7, 17, 20, 21, 33, 40])
def test_310p_cube_stage_transposed_b(n, at):
    # The runner given b's [N, K] storage with b_trans directly (what the host would pass without its copy on
    # ascend310p). N % 16 in 1..7 past 16 (17, 20, 21, 33) ends a C block inside a fractal row, which 310p writes
    # back past the block's width: the emulated Matmul API once read a transposed B as [K, N] on that path.
    rng = _rng("310p", n, np.dtype(at).name)
    f32 = np.float32
    for m, k in ((9, 32), (1, 96)):
        a = _rand(rng, at, (m, k))
        w = _rand(rng, np.int8, (n, k))
        a_z = at(128) if at == np.uint8 else at(0)
        y = np.empty((m, n), np.int8)
        u8 = lambda x: np.ascontiguousarray(x).reshape(-1).view(np.uint8)  # noqa: E731
        out = _native.emulate_qlinear_matmul(u8(a), u8(np.ones(1, f32)), u8(np.full(1, a_z, at)), u8(w),
                                             u8(np.ones(1, f32)), u8(np.zeros(1, np.int8)), u8(np.full(1, 64, f32)),
                                             u8(np.zeros(1, np.int8)), y.reshape(-1).view(np.uint8), [m, k], [k, n],
                                             True, np.dtype(at).name, "int8", "int8", "tensor", "tensor", False,
                                             False, "ascend310p", 0, 0)
        assert out["ok"] and out["plan"]["b_trans"] is True
        want = golden(a, f32(1), a_z, np.ascontiguousarray(w.T), f32(1), np.int8(0), f32(64), np.int8(0))
        assert y.tobytes() == want.tobytes(), (m, k, n)
