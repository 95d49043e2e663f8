"""A kernel's own cube pipeline on ascend310p (emu_cube.h): B turned by TransDataTo5HD into the Nz layout of its
transpose, A and B copied to L1, LoadData into L0A / L0B, Mmad, the int32 result copied L0C -> UB -> GM (DemoCube in
op_kernel/emulator/tests/emu_test_kernels.cpp; its fault lines carry "CUBECASE(<name>)"). The expected values are
numpy's integer matrix product, read in L0C's fractal order."""
from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

from ascend_quant_ops.errors import EmulatorError

import ascend_quant_ops_testing as _testing  # the test kernels' module (tests/emulator/conftest.py)

KERNEL_FILE = pathlib.Path(__file__).resolve().parents[2] / "op_kernel" / "emulator" / "tests" / "emu_test_kernels.cpp"
LINES = {name: number for number, text in enumerate(KERNEL_FILE.read_text().splitlines(), start=1)
         for name in re.findall(r"CUBECASE\((\w+)\)", text)}


def _run(k, n, mode=0, soc="ascend310p", seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 128, size=(16, k), dtype=np.int8)
    b = rng.integers(-128, 128, size=(k, n), dtype=np.int8)
    out = np.frombuffer(_testing.emulator_demo_cube(a.tobytes() + b.tobytes(), k, n, mode, soc), np.int32)
    # L0C's Nz order: n / 16 fractals of 16 rows x 16 columns
    got = out.reshape(n // 16, 16, 16).transpose(1, 0, 2).reshape(16, n)
    return got, a.astype(np.int64) @ b.astype(np.int64)


@pytest.mark.parametrize("k,n", [(64, 32), (128, 64), (256, 96), (64, 256)])
@pytest.mark.parametrize("accumulate", [False, True])
def test_the_cube_pipeline_computes_the_integer_product(k, n, accumulate):
    got, expect = _run(k, n, mode=1 if accumulate else 0, seed=k + n)
    np.testing.assert_array_equal(got, expect)


@pytest.mark.parametrize("k,n", [(64, 160), (128, 256)])
def test_accumulating_mmads_of_ten_or_more_fractals_need_no_barrier_between_them(k, n):
    # The cube pipe accumulates its Mmads into L0C in issue order: CANN 8.1's Matmul API issues a K loop's Mmads with
    # no PipeBarrier<PIPE_M> between them, and puts one only after an Mmad of fewer than 10 fractals of C (C here:
    # 16 x n, n / 16 >= 10 fractals). With fewer the emulator refuses it (small_accumulate_without_barrier).
    got, expect = _run(k, n, mode=4, seed=k + n)
    np.testing.assert_array_equal(got, expect)


def test_the_trace_has_one_instruction_per_step_on_its_pipe():
    k, n = 128, 64
    _run(k, n)
    events = _testing.emulator_last_run_trace()["cores"][0]["events"]
    steps = [(e["pipe"], e["cls"], e["count"], e["bursts"]) for e in events
             if e["kind"] == "instr" and e["cls"] in ("dma_l1_to_l0", "cube_mmad", "fix_out")]
    k1, n1 = k // 32, n // 16
    assert steps == [("MTE1", "dma_l1_to_l0", k1 * 512, k1), ("MTE1", "dma_l1_to_l0", k1 * n1 * 512, k1 * n1),
                     ("M", "cube_mmad", 16 * n * k, 0), ("V", "fix_out", 16 * n * 4, n1)]


@pytest.mark.parametrize("soc", ["ascend910b", "ascend910_95"])
def test_the_cube_buffers_are_refused_on_the_split_socs(soc):
    with pytest.raises(EmulatorError, match=f"InitBuffer of an L1 TBuf on {soc}"):
        _run(64, 32, soc=soc)


@pytest.mark.parametrize("name,mode,words", [
    ("mmad_before_its_load", 2, ["read-after-write (RAW) race on L0A bytes", "of fm on pipe M", "LoadData (2D)",
                                 "on pipe MTE1"]),
    ("copy_out_before_mmad", 3, ["read-after-write (RAW) race on L0C bytes", "on pipe V", "by Mmad", "on pipe M"]),
    ("small_accumulate_without_barrier", 4, ["Mmad follows the Mmad at", "fewer than 10 fractals of C",
                                             "without PipeBarrier<PIPE_M>"]),
    ("load_int8_transposed", 5, ["LoadData (2D): ifTranspose is for 16-bit elements only"]),
    ("gemv", 6, ["Mmad: m 1 is the unit's GEMV mode", "not modelled"]),
    ("vector_mode", 7, ["DataCopy L0C->UB: blockMode 2", "BLOCK_MODE_MATRIX only"]),
    ("b_short", 8, ["Mmad: B[32][16]", "was never written"]),
    ("small_mmad_without_barrier", 9, ["Mmad follows the Mmad at", "fewer than 10 fractals of C",
                                       "without PipeBarrier<PIPE_M>", "mmad_compute.h"]),
    ("small_mmad_without_barrier", 17, ["Mmad follows the Mmad at", "without PipeBarrier<PIPE_M>"]),
    ("flag_after_small_mmad", 16, ["SetFlag(HardEvent::M_V", "follows the Mmad at", "without PipeBarrier<PIPE_M>"]),
    ("last_mmad_without_barrier", 18, ["the kernel's last M instruction", "no PipeBarrier<PIPE_M>"]),
])
def test_cube_faults_are_caught_at_their_line(name, mode, words):
    # C of 2 fractals (16 x 32)
    with pytest.raises(EmulatorError) as info:
        _run(64, 32, mode=mode)
    message = str(info.value)
    assert f"emu_test_kernels.cpp:{LINES[name]}:" in message, message
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"


# ---- general shapes: A and B laid out by the host (DemoCubeLaid), from the fractal-format page's formulas ----

def _laid(m, k, n, seed=0, tail=0):
    """A as [K1][16 M1][32] (its 32-byte columns, every row, zero-padded) and B as L0B's Zn [K1][N1][16][32]; `tail`
    fills the K tail (k up to 32 K1) with that byte instead of zeros."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 128, size=(m, k), dtype=np.int8)
    b = rng.integers(-128, 128, size=(k, n), dtype=np.int8)
    m1, k1, n1 = -(-m // 16), -(-k // 32), -(-n // 16)
    ap = np.zeros((16 * m1, 32 * k1), np.int8)
    ap[:m, :k] = a
    ap[:m, k:] = tail
    bp = np.zeros((32 * k1, 16 * n1), np.int8)
    bp[:k, :n] = b
    bp[k:, :n] = tail
    a_laid = ap.reshape(16 * m1, k1, 32).transpose(1, 0, 2)                       # [K1][16 M1][32]
    b_laid = bp.reshape(k1, 32, n1, 16).transpose(0, 2, 3, 1)                     # [K1][N1][16 j][32 p]
    return a_laid.tobytes() + b_laid.tobytes(), a.astype(np.int64) @ b.astype(np.int64)


def _run_laid(m, k, n, mode=0, seed=0, tail=0):
    ab, expect = _laid(m, k, n, seed, tail)
    out = np.frombuffer(_testing.emulator_demo_cube_laid(ab, m, k, n, mode, "ascend310p"), np.int32)
    m1, n1 = -(-m // 16), -(-n // 16)
    c = out.reshape(n1, m1, 16, 16)            # L0C's Nz order: [N1][M1][16][16]
    return c.transpose(1, 2, 0, 3).reshape(16 * m1, 16 * n1)[:m, :n], expect


@pytest.mark.parametrize("m,k,n", [(32, 64, 48), (48, 96, 80), (32, 200, 32), (64, 40, 16)])
def test_the_cube_instructions_at_general_shapes(m, k, n):
    # several row blocks (A loaded one K column at a time with startIndex and dstGap, C copied out with M1 fractals a
    # burst and a gap between bursts), and K tails (200, 40) filled with zeros
    got, expect = _run_laid(m, k, n, seed=m + k + n)
    np.testing.assert_array_equal(got, expect)


@pytest.mark.parametrize("name,mode,tail,words", [
    ("l0a_rewritten_while_multiplied", 10, 0, ["write-after-read (WAR) race on L0A bytes", "by Mmad", "on pipe M",
                                               "HardEvent::M_MTE1"]),
    ("l0c_rewritten_while_copied", 11, 0, ["write-after-read (WAR) race on L0C bytes", "on pipe V"]),
    ("c_read_without_barrier", 12, 0, ["read-after-write (RAW) race on UB bytes", "DataCopy L0C->UB",
                                       "PipeBarrier<PIPE_V>"]),
    ("l1_rewritten_while_loaded", 13, 0, ["write-after-read (WAR) race on L1 bytes", "on pipe MTE1"]),
    ("load_past_the_buffer", 14, 0, ["LoadData (2D): src accesses L1 bytes", "outside its buffer"]),
    ("first_mmad_accumulates", 15, 0, ["Mmad: accumulating into C[0][0]", "never written"]),
    ("k_tail_not_zero", 0, 3, ["Mmad: k 40 leaves a K tail", "A[0][40] there is not zero", "write zeros there"]),
])
def test_cube_ordering_and_refusals_at_general_shapes(name, mode, tail, words):
    with pytest.raises(EmulatorError) as info:
        _run_laid(32, 40 if name == "k_tail_not_zero" else 64, 32, mode=mode, tail=tail)
    message = str(info.value)
    assert f"emu_test_kernels.cpp:{LINES[name]}:" in message, message
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
