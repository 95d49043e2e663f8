"""The level-0 vector forms of the emulator (op_kernel/emulator/include/emulator/emu_vector_level0.h) against
numpy: iterations of 8 data blocks with a continuous mask, block / repeat strides (a broadcast block, an
accumulation through the second source with repeat stride 0), WholeReduceMax / WholeReduceMin with the documented
index rule (the first index on ties), and their trace (one instruction whose bursts are repeatTimes). Their misuse
is tested by the fault kernels (test_emulator_faults.py, level0_*)."""
from __future__ import annotations

import numpy as np
import pytest

import ascend_quant_ops_testing as _testing
from ascend_quant_ops.errors import EmulatorError

SOCS = ("ascend910b", "ascend310p", "ascend910_95")


def _run(x: np.ndarray, n: int, mode: int, mask: int, soc: str) -> np.ndarray:
    out = _testing.emulator_demo_level0(np.ascontiguousarray(x, np.float32).tobytes(), n, mode, mask, soc)
    return np.frombuffer(out, np.float32).copy()


def _data(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n + 64).astype(np.float32)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("k", [2, 7, 255])
def test_max_accumulation_through_src1_with_repeat_stride_zero(soc, k):
    n = 64 * (k + 1)
    x = _data(n, k)
    y = _run(x, n, 0, 64, soc)
    np.testing.assert_array_equal(y[:64], x[: 64 * (k + 1)].reshape(k + 1, 64).max(axis=0))


@pytest.mark.parametrize("soc", SOCS)
def test_int32_max_accumulation(soc):
    n = 64 * 9
    rng = np.random.default_rng(3)
    xi = rng.integers(-2**31, 2**31 - 1, size=n + 64, dtype=np.int64).astype(np.int32)
    y = _run(xi.view(np.float32), n, 1, 64, soc).view(np.int32)
    np.testing.assert_array_equal(y[:64], xi[:n].reshape(9, 64).max(axis=0))


@pytest.mark.parametrize("soc", SOCS)
def test_div_by_a_broadcast_block(soc):
    n = 64 * 5
    x = _data(n, 5)
    x[n: n + 8] = np.float32([3, -7, 0.1, 11, 13, -0.3, 5, 9])
    y = _run(x, n, 2, 64, soc)
    expect = x[:n] / np.tile(x[n: n + 8], n // 8)
    np.testing.assert_array_equal(y, expect.astype(np.float32))


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("mask", [1, 7, 8, 9, 63])
def test_continuous_mask_writes_only_the_first_elements_of_each_iteration(soc, mask):
    n = 64 * 3
    x = _data(n, mask)
    x[n: n + 8] = 2.0
    y = _run(x, n, 3, mask, soc).reshape(3, 64)
    np.testing.assert_array_equal(y[:, :mask], (x[:n].reshape(3, 64)[:, :mask] / np.float32(2)))
    np.testing.assert_array_equal(y[:, mask:], 7.0)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("mode,fn,arg", [(4, np.max, np.argmax), (5, np.min, np.argmin)])
@pytest.mark.parametrize("mask", [64, 33])
def test_whole_reduce_value_and_first_index(soc, mode, fn, arg, mask):
    n = 64 * 4
    x = _data(n, 11)
    rows = x[:n].reshape(4, 64)
    rows[1, 5] = rows[1, 20] = fn(rows[1, :mask]) + (1 if mode == 4 else -1)  # a tie: the first index is reported
    y = _run(x, n, mode, mask, soc)
    pairs = y[:8].reshape(4, 2)
    np.testing.assert_array_equal(pairs[:, 0], fn(rows[:, :mask], axis=1))
    np.testing.assert_array_equal(pairs[:, 1].view(np.uint32), arg(rows[:, :mask], axis=1))
    assert pairs[1, 1].view(np.uint32) == 5
    np.testing.assert_array_equal(y[8:], 7.0)


@pytest.mark.parametrize("soc", SOCS)
def test_and_with_a_broadcast_pattern_clears_float_signs(soc):
    n = 64 * 6
    x = _data(n, 6)
    x[n:] = np.array([0xFFFF, 0x7FFF] * 64, np.uint16).view(np.float32)
    y = _run(x, n, 6, 128, soc)
    np.testing.assert_array_equal(y, np.abs(x[:n]))


def test_trace_records_repeat_times_as_bursts():
    n = 64 * 5
    _run(_data(n, 1), n, 3, 9, "ascend910b")
    divs = [e for e in _testing.emulator_last_run_trace()["cores"][0]["events"]
            if e["kind"] == "instr" and e["cls"] == "vec_div"]
    assert len(divs) == 1 and divs[0]["bursts"] == 5 and divs[0]["count"] == 5 * 9


# ---- Brcb: iteration r's 8 src0 elements each fill a whole 32-byte dst block ----

def _brcb_expect(src: np.ndarray, repeat: int, blk: int, rep: int, y_bytes: int) -> np.ndarray:
    out = np.full(y_bytes // 2, 0x7777, np.int16).view(src.dtype).copy()
    per_block = 32 // src.itemsize
    for r in range(repeat):
        for j in range(8):
            b = r * rep + j * blk
            out[b * per_block:(b + 1) * per_block] = src[8 * r + j]
    return out


def _brcb(src: np.ndarray, repeat: int, blk: int, rep: int, soc: str):
    dtype = "float32" if src.dtype == np.float32 else "float16"
    # the last iteration's last block, then 256 bytes of room (ascend310p's 16-bit path transposes 512 bytes)
    y_bytes = ((repeat - 1) * rep + 7 * blk + 1) * 32 + 256
    raw = src.tobytes()
    raw += b"\0" * ((-len(raw)) % 32)
    out = _testing.emulator_demo_brcb(raw, dtype, repeat, blk, rep, y_bytes, soc)
    return np.frombuffer(out, src.dtype).copy(), _brcb_expect(src, repeat, blk, rep, y_bytes)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("repeat,blk,rep", [(1, 1, 8), (5, 1, 12), (3, 1, 20), (4, 2, 17), (2, 3, 24)])
def test_brcb_fills_the_right_blocks(soc, dtype, repeat, blk, rep):
    rng = np.random.default_rng(repeat * 100 + blk * 10 + rep)
    src = rng.standard_normal(8 * repeat).astype(dtype)
    if soc == "ascend310p" and dtype == np.float16 and blk == 1 and repeat > 1:
        # its software path reads src0 at 16-byte steps (vector operands take 32-byte aligned addresses)
        with pytest.raises(EmulatorError, match=f"16-bit elements and {repeat} iterations.*not 32-byte aligned"):
            _brcb(src, repeat, blk, rep, soc)
        return
    got, expect = _brcb(src, repeat, blk, rep, soc)
    np.testing.assert_array_equal(got.view(np.uint8), expect.view(np.uint8))


@pytest.mark.parametrize("dtype,per_iteration", [(np.float32, 2), (np.float16, 4)])
def test_brcb_trace_hardware_and_310p_software_path(dtype, per_iteration):
    """One V instruction of repeatTimes bursts on the hardware form; on ascend310p the software path's instructions
    (32-bit: vadds + transpose, 16-bit: 2 vadds + transpose + vadds, each iteration) with PIPE_V barriers."""
    # 16-bit: one iteration (more are refused on ascend310p's software path, see above)
    repeats = 3 if dtype == np.float32 else 1
    src = np.arange(8 * repeats, dtype=dtype)
    found = {}
    for soc in ("ascend910b", "ascend310p"):
        _brcb(src, repeats, 1, 9, soc)
        events = _testing.emulator_last_run_trace()["cores"][0]["events"]
        vec = [e for e in events if e["kind"] == "instr" and e["pipe"] == "V"]
        line = vec[-1]["line"]  # the demo issues nothing on V after Brcb
        found[soc] = ([e for e in vec if e["line"] == line],
                      [e for e in events if e["kind"] == "barrier" and e["line"] == line])
    hw, hw_barriers = found["ascend910b"]
    assert len(hw) == 1 and hw[0]["bursts"] == repeats and not hw_barriers
    sw, sw_barriers = found["ascend310p"]
    assert len(sw) == repeats * per_iteration
    assert len(sw_barriers) == repeats * (2 if dtype == np.float32 else 3)


# ---- TransDataTo5HD: sixteen source blocks gathered into sixteen destination blocks (ascend910b / ascend310p) ----

def _turned(x: np.ndarray, c0: int) -> np.ndarray:
    """The demo's layout, from numpy alone: per column block c of c0 columns and row group k of c0 rows, the c0 x c0
    tile transposed (its row j is column c0 c + j of those rows)."""
    rows, cols = x.shape
    return np.concatenate([x[k * c0:(k + 1) * c0, c * c0:(c + 1) * c0].T.ravel()
                           for c in range(cols // c0) for k in range(rows // c0)])


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p"])
@pytest.mark.parametrize("dtype,rows,cols", [("int8", 32, 32), ("int8", 96, 64), ("int8", 32, 160),
                                             ("float16", 16, 16), ("float16", 64, 48)])
def test_trans_data_turns_tiles_as_the_page_describes(soc, dtype, rows, cols):
    # int8: four instructions per 32 x 32 tile (low / high rows into the blocks' low / high halves, low / high
    # columns into blocks 0..15 / 16..31) through uint64_t address lists; float16: one per 16 x 16 tile through
    # LocalTensor lists; the row groups are the iterations in both
    rng = np.random.default_rng(rows * cols)
    if dtype == "int8":
        x = rng.integers(-128, 128, size=(rows, cols), dtype=np.int8)
    else:
        x = rng.standard_normal((rows, cols)).astype(np.float16)
    got = np.frombuffer(_testing.emulator_demo_trans_data(x.tobytes(), dtype, rows, cols, soc), x.dtype)
    np.testing.assert_array_equal(got.view(np.uint8), _turned(x, 32 if dtype == "int8" else 16).view(np.uint8))
    # one V instruction of the trans-data class per call, its iterations as bursts
    events = _testing.emulator_last_run_trace()["cores"][0]["events"]
    turns = [e for e in events if e["kind"] == "instr" and e["cls"] == "vec_trans_data"]
    calls = (cols // 32) * 4 if dtype == "int8" else cols // 16
    groups = rows // (32 if dtype == "int8" else 16)
    assert len(turns) == calls and all(e["pipe"] == "V" and e["bursts"] == groups for e in turns)


def test_trans_data_is_not_modelled_on_950():
    x = np.zeros((32, 32), np.int8)
    with pytest.raises(EmulatorError, match="TransDataTo5HD on ascend910_95: not modelled"):
        _testing.emulator_demo_trans_data(x.tobytes(), "int8", 32, 32, "ascend910_95")
