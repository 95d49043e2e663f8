"""The kernel's own L1 on ascend310p: A1 / B1 TBufs, the UB -> L1 copy (MTE3) and the L1 -> UB copy (MTE1), with
their ordering, capacity and operand rules (DemoL1 in op_kernel/emulator/tests/emu_test_kernels.cpp; its fault lines
carry "L1CASE(<name>)"). The expected bytes come from numpy's reading of the copies' strides."""
from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

from ascend_quant_ops.errors import EmulatorError

import ascend_quant_ops_testing as _testing  # the test kernels' module (tests/emulator/conftest.py)

KERNEL_FILE = pathlib.Path(__file__).resolve().parents[2] / "op_kernel" / "emulator" / "tests" / "emu_test_kernels.cpp"
LINES = {name: number for number, text in enumerate(KERNEL_FILE.read_text().splitlines(), start=1)
         for name in re.findall(r"L1CASE\((\w+)\)", text)}


def _round_trip(rows, cols, gap, mode=0, soc="ascend310p", n=None):
    n = n or max(64, -(-rows * cols * 8 // 64) * 64)
    x = (np.arange(n, dtype=np.float32) * 0.5 - 7).astype(np.float32)
    y = np.frombuffer(_testing.emulator_demo_l1(x.tobytes(), rows, cols, gap, mode, soc), np.float32)
    return x, y


@pytest.mark.parametrize("rows,cols,gap", [(1, 1, 0), (4, 2, 3), (8, 1, 1), (3, 5, 0)])
def test_a_round_trip_through_l1_keeps_every_row(rows, cols, gap):
    # rows of `cols` blocks land in L1 `gap` blocks apart and come back packed: y's first rows * cols blocks are x's
    x, y = _round_trip(rows, cols, gap)
    k = rows * cols * 8
    np.testing.assert_array_equal(y[:k], x[:k])
    events = _testing.emulator_last_run_trace()["cores"][0]["events"]
    copies = [(e["pipe"], e["cls"], e["bursts"], e["count"]) for e in events
              if e["kind"] == "instr" and e["cls"] in ("dma_ub_to_l1", "dma_l1_to_ub")]
    assert copies == [("MTE3", "dma_ub_to_l1", rows, k * 4), ("MTE1", "dma_l1_to_ub", rows, k * 4)]


@pytest.mark.parametrize("soc", ["ascend910b", "ascend910_95"])
def test_a_kernel_l1_buffer_is_refused_on_the_split_socs(soc):
    with pytest.raises(EmulatorError, match=f"InitBuffer of an L1 TBuf on {soc}: a kernel's own L1 / L0 buffers are "
                                            "modelled on ascend310p only"):
        _round_trip(2, 1, 0, soc=soc)


@pytest.mark.parametrize("name,mode,words", [
    ("l1_read_before_its_write", 1, ["read-after-write (RAW) race on L1 bytes", "on pipe MTE1", "on pipe MTE3"]),
    ("l1_rewritten_while_read", 2, ["write-after-read (WAR) race on L1 bytes", "on pipe MTE3", "on pipe MTE1"]),
    ("l1_vector_operand", 3, ["Abs", "is an L1 tensor", "must be in the unified buffer"]),
    ("l1_scalar_read", 4, ["LocalTensor::GetValue", "is an L1 tensor"]),
    ("l1_overflow", 5, ["L1 overflow", "needs L1 bytes [0, 1048608)", "has 1048576 bytes"]),
    ("l1_rows_leave_the_buffer", 6, ["DataCopy UB->L1", "outside its buffer"]),
    ("l1_beside_a_matmul", 7, ["L1 / L0 buffers of the kernel's own beside a Matmul object", "not modelled"]),
    ("matmul_beside_l1", 8, ["L1 / L0 buffers of the kernel's own beside a Matmul object", "not modelled"]),
])
def test_l1_faults_are_caught_at_their_line(name, mode, words):
    with pytest.raises(EmulatorError) as info:
        _round_trip(4, 2, 1, mode=mode)
    message = str(info.value)
    assert f"emu_test_kernels.cpp:{LINES[name]}:" in message, message
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
