"""The emulator records every instruction and sync event of a run, per core (op_kernel/emulator/include/emulator/
emu_trace.h), for the timeline model.

The references are independent of the recorder: the kernel source (the TRACE(<name>) markers give the lines), the
AscendC semantics of each call (which pipe, how many bytes / elements / blocks), the queue flags the CANN headers
insert for a queue's position, and for the operators their shapes (bytes, multiply-accumulates).
"""
from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

import ascend_quant_ops_testing as _testing  # the demo kernels' module, with its own emulator (tests/emulator/conftest.py)
from ascend_quant_ops import emulator, tiling
from ascend_quant_ops.errors import EmulatorError

KERNEL_FILE = pathlib.Path(__file__).resolve().parents[2] / "op_kernel" / "emulator" / "tests" / "emu_test_kernels.cpp"
ALL_SOCS = ("ascend910b", "ascend310p", "ascend910_95")


def _markers(tag: str) -> dict[str, int]:
    lines = {}
    for number, text in enumerate(KERNEL_FILE.read_text().splitlines(), start=1):
        for m in re.finditer(tag + r"\((\w+)\)", text):
            lines[m.group(1)] = number
    return lines


TRACE_LINES = _markers("TRACE")
FAULT_LINES = _markers("FAULT")


def _core(trace, i=0):
    core = trace["cores"][i]
    assert core["core"] == i and core["is_cube"] is False
    return core["events"]


@pytest.mark.parametrize("soc", ALL_SOCS)
def test_every_kind_of_event_is_recorded_in_issue_order(soc):
    y = np.frombuffer(_testing.emulator_demo_trace(soc), np.float32)
    assert y[0] == 1 + 2 + 3 + 4 + 5 and (y[1:8] == 0).all()  # the kernel ran
    trace = _testing.emulator_last_run_trace()
    assert trace["completed"] and trace["block_dim"] == 1 and trace["soc"] == soc
    assert len(trace["cores"]) == 1  # no cube work
    ev = _core(trace)
    at = {name: line for name, line in TRACE_LINES.items()}

    def instr(e):
        return (e["kind"], e["pipe"], e["cls"], e["elem_bytes"], e["count"], e["bursts"], e["line"])

    got = [e for e in ev if e["file"].endswith("emu_test_kernels.cpp")]
    # DataCopyParams(2, 1, 1, 0): two blocks of 32 bytes on MTE2.
    assert instr(got[0]) == ("instr", "MTE2", "dma_gm_to_ub", 4, 64, 2, at["dma_in"])
    assert (got[1]["kind"], got[1]["src_pipe"], got[1]["dst_pipe"], got[1]["line"]) == (
        "set_flag", "MTE2", "V", at["set_flag"])
    assert (got[2]["kind"], got[2]["src_pipe"], got[2]["dst_pipe"], got[2]["line"]) == (
        "wait_flag", "MTE2", "V", at["wait_flag"])
    assert got[1]["event_id"] == got[2]["event_id"] == 0  # FetchEventID: the lowest id no queue holds
    # 16 float32 = one 256-byte repeat... of 64 bytes: bursts count 256-byte repeats, rounded up.
    assert instr(got[3]) == ("instr", "V", "vec_div", 4, 16, 1, at["div"])
    assert (got[4]["kind"], got[4]["pipe"], got[4]["line"]) == ("barrier", "V", at["barrier"])
    assert instr(got[5]) == ("instr", "V", "vec_reduce", 4, 16, 1, at["reduce"])
    assert instr(got[6]) == ("instr", "V", "vec_cast", 4, 16, 1, at["cast"])
    assert instr(got[7]) == ("instr", "V", "vec_elementwise", 4, 8, 1, at["duplicate"])
    assert [(e["kind"], e["src_pipe"], e["dst_pipe"]) for e in got[8:10]] == [
        ("set_flag", "V", "S"), ("wait_flag", "V", "S")]
    # Five GetValue in a loop: one scalar event counting five accesses, then the SetValue merges into the same
    # run (same class, no other event in between): six UB accesses of the scalar unit.
    assert instr(got[10]) == ("instr", "S", "scalar_ub", 4, 6, 0, at["scalar_reads"])
    assert [(e["kind"], e["src_pipe"], e["dst_pipe"]) for e in got[11:13]] == [
        ("set_flag", "S", "MTE3"), ("wait_flag", "S", "MTE3")]
    assert instr(got[13]) == ("instr", "MTE3", "dma_ub_to_gm", 4, 32, 1, at["dma_out"])
    assert len(got) == 14


def test_queue_flags_are_the_ones_the_queue_position_inserts():
    # Double-buffered y = x * 2 + 1 over 4 tiles on one core (emu_test_kernels.cpp DemoDoubleBuffer): VECIN queue
    # (EnQue MTE2 -> V, FreeTensor V -> MTE2), VECOUT queue (EnQue V -> MTE3, FreeTensor MTE3 -> V).
    x = np.arange(1024, dtype=np.float32)
    y = np.frombuffer(_testing.emulator_demo_double_buffer(x.tobytes(), 256, 2.0, 1.0, 1, "ascend910b"), np.float32)
    np.testing.assert_array_equal(y, x * 2 + 1)
    ev = _core(_testing.emulator_last_run_trace())

    def count(kind, src, dst):
        return sum(1 for e in ev if e["kind"] == kind and e.get("src_pipe") == src and e.get("dst_pipe") == dst)

    dma_in = [e for e in ev if e["kind"] == "instr" and e["pipe"] == "MTE2"]
    dma_out = [e for e in ev if e["kind"] == "instr" and e["pipe"] == "MTE3"]
    vec = [e for e in ev if e["kind"] == "instr" and e["pipe"] == "V"]
    assert [e["count"] for e in dma_in] == [1024] * 4 and [e["count"] for e in dma_out] == [1024] * 4
    assert [(e["count"], e["bursts"], e["elem_bytes"]) for e in vec] == [(256, 4, 4)] * 8
    for src, dst in (("MTE2", "V"), ("V", "MTE3"), ("V", "MTE2"), ("MTE3", "V")):
        # every EnQue / FreeTensor flag is set once per tile and waited once: by DeQue, by the AllocTensor that
        # reuses the buffer, or by the TPipe's end (as TPipe::Destroy does)
        assert count("set_flag", src, dst) == 4 and count("wait_flag", src, dst) == 4, (src, dst)
    # Two tiles in flight hold two ids of MTE2 -> V at once.
    ids = {e["event_id"] for e in ev if e["kind"] == "set_flag" and e["src_pipe"] == "MTE2"}
    assert ids == {0, 1}
    # Every V instruction of a tile comes after the DeQue's wait for that tile's DMA.
    first_v = next(i for i, e in enumerate(ev) if e["kind"] == "instr" and e["pipe"] == "V")
    assert any(e["kind"] == "wait_flag" and e["src_pipe"] == "MTE2" for e in ev[:first_v])


def test_each_core_has_its_own_trace():
    x = np.arange(2048, dtype=np.float32)
    _testing.emulator_demo_double_buffer(x.tobytes(), 256, 2.0, 1.0, 4, "ascend910b")
    trace = _testing.emulator_last_run_trace()
    assert [c["core"] for c in trace["cores"]] == [0, 1, 2, 3]
    for c in trace["cores"]:
        assert sum(e["count"] for e in c["events"] if e["kind"] == "instr" and e["pipe"] == "MTE2") == 2048


def test_a_faulting_run_keeps_the_events_up_to_the_fault():
    with pytest.raises(EmulatorError):
        _testing.emulator_fault_demo("wait_without_set", "ascend910b")
    trace = _testing.emulator_last_run_trace()
    assert trace["completed"] is False
    ev = _core(trace)
    assert [(e["kind"], e["src_pipe"], e["dst_pipe"]) for e in ev] == [("set_flag", "MTE2", "V"),
                                                                       ("wait_flag", "MTE2", "V")]
    assert ev[-1]["line"] == FAULT_LINES["wait_without_set"] - 1


def test_recording_can_be_switched_off():
    old = _testing.emulator_run_options()
    _testing.emulator_set_run_options(**{**old, "record_trace": False})
    try:
        _testing.emulator_demo_trace("ascend910b")
    finally:
        _testing.emulator_set_run_options(**old)
    assert _testing.emulator_last_run_trace()["cores"] == []
    _testing.emulator_demo_trace("ascend910b")
    assert len(_testing.emulator_last_run_trace()["cores"]) == 1
    # the package's switch (the operators run in the package's own emulator)
    rng = np.random.default_rng(1)
    with emulator.run_options(record_trace=False):
        emulator.qlinear_matmul(*_qmm_case(rng, 16, 32, 32), soc="ascend910b")
    assert emulator.last_run_trace()["cores"] == []


def _qmm_case(rng, m, k, n):
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    b = rng.integers(-128, 128, (k, n), dtype=np.int8)
    one = np.float32(1.0)
    return (a, one, np.int8(3), b, one, np.int8(0), np.float32(64.0), np.int8(0))


def test_310p_request_of_several_blocks_records_each_block_row_and_tile():
    # one core: one call of the plan's base blocks along N, the last one narrower; each block's rows (the m rows and
    # the ones row) written back one DMA per row with one burst per 16 columns, the blocks one after another; the
    # loads: A's one baseM x baseK tile (one DMA per 32-byte column, a burst per row), one int8 B tile per block
    # (one DMA of one burst per row)
    rng = np.random.default_rng(5)
    m, k, n = 40, 96, 300
    emulator.qlinear_matmul(*_qmm_case(rng, m, k, n), soc="ascend310p", core_num=1)
    t = tiling.plan_qlinear_matmul((m, k), (k, n), soc="ascend310p", core_num=1).tiling
    bm, bn, bk = t["baseM"], t["baseN"], t["baseK"]
    assert k <= bk and m + 1 <= bm and t["callBlocks"] == -(-n // bn) >= 2 and n % bn != 0
    widths = [bn] * (n // bn) + [n % bn]
    (cube,) = [c for c in emulator.last_run_trace()["cores"] if c["is_cube"]]
    by_cls = {e["cls"]: e for e in cube["events"]}
    rows = m + 1
    assert by_cls["cube_mmad"]["serial_blocks"] == len(widths)
    assert by_cls["dma_ub_to_gm"]["out_dmas"] == rows * len(widths)
    assert by_cls["dma_ub_to_gm"]["bursts"] == rows * sum(-(-w // 16) for w in widths)
    assert (by_cls["dma_gm_to_l1"]["instrs"], by_cls["dma_gm_to_l1"]["bursts"]) == (bk // 32 + len(widths) * bk,
                                                                                  bk // 32 * bm + len(widths) * bk)
    # each B tile turned in UB at its full base size: four TransDataTo5HD of baseK / 32 repeats per 32 columns, then
    # one UB -> L1 DMA of a burst per 32 rows
    assert bn % 32 == 0 and bk % 32 == 0
    turn, to_l1 = by_cls["vec_trans_data"], by_cls["dma_ub_to_l1"]
    assert (turn["pipe"], to_l1["pipe"]) == ("V", "MTE3")
    assert (turn["instrs"], turn["bursts"]) == (len(widths) * 4 * bn // 32, len(widths) * 4 * bn // 32 * bk // 32)
    assert turn["count"] == to_l1["count"] == len(widths) * bk * bn
    assert (to_l1["instrs"], to_l1["bursts"]) == (len(widths), len(widths) * bk // 32)


@pytest.mark.parametrize("soc", ALL_SOCS)
def test_cube_requests_and_the_cube_cores_work(soc):
    rng = np.random.default_rng(5)
    m, k, n = 40, 96, 80
    emulator.qlinear_matmul(*_qmm_case(rng, m, k, n), soc=soc)
    trace = emulator.last_run_trace()
    block_dim = trace["block_dim"]
    vector = [c for c in trace["cores"] if not c["is_cube"]]
    cube = [c for c in trace["cores"] if c["is_cube"]]
    assert [c["core"] for c in vector] == list(range(block_dim))
    assert cube and all(c["core"] >= block_dim for c in cube)
    requests = {}
    for c in vector:
        pending = None
        for e in c["events"]:
            if e["kind"] == "cube_request":
                assert pending is None  # IterateAll is synchronous: one request at a time
                pending = e["handle"]
                requests[e["handle"]] = (c["core"], e["peer_core"])
            elif e["kind"] == "cube_wait":
                assert e["handle"] == pending
                pending = None
        assert pending is None
    # The cube core serving vector core v: v // 2 on split SoCs (1 cube : 2 vector cores), the AI core itself on
    # ascend310p.
    for handle, (v, peer) in requests.items():
        assert peer == block_dim + (v if soc == "ascend310p" else v // 2)
    # Each request's cube work is on its cube core, tagged with the handle: MTE2 / MTE1 / M, then FIX (310p: V and
    # MTE3, it has no fixpipe).
    per_handle = {}
    for c in cube:
        for e in c["events"]:
            assert e["kind"] == "instr" and e["handle"] in requests
            assert requests[e["handle"]][1] == c["core"]
            per_handle.setdefault(e["handle"], []).append((e["pipe"], e["cls"]))
    tail = [("V", "fix_out"), ("MTE3", "dma_ub_to_gm")] if soc == "ascend310p" else [("FIX", "fix_out")]
    # 310p's int8 B goes through UB: turned there (V), then copied to L1 (MTE3)
    turn = [("V", "vec_trans_data"), ("MTE3", "dma_ub_to_l1")] if soc == "ascend310p" else []
    for h in requests:
        assert per_handle[h] == ([("MTE2", "dma_gm_to_l1")] + turn + [("MTE1", "dma_l1_to_l0"), ("M", "cube_mmad")] +
                                 tail)
    # The product's multiply-accumulates: at least M x N x K (the kernel also computes zero-point sums).
    macs = sum(e["count"] for c in cube for e in c["events"] if e["pipe"] == "M")
    assert macs >= m * n * k
    # ascend310p: the synchronous IterateAll's base blocks one after another, and its row-by-row write-back: one DMA
    # per C row (here the m rows and, a's zero point being 3, the ones row of the column sums), one 64-byte burst per
    # 16 int32 columns (n = 80: 5, in the plan's one base block); its operand loads as their DMAs and bursts (an int8
    # B not transposed: one DMA of one burst per row of each baseK x baseN tile; A: one DMA per 32-byte column of a
    # baseM x baseK tile, a burst per row); the split SoCs' fixpipe and ND-to-NZ loads have none of these.
    keys = ("serial_blocks", "out_dmas", "instrs")
    shape = {(e["cls"], k) for c in cube for e in c["events"] for k in keys if k in e}
    if soc != "ascend310p":
        assert not shape
        return
    assert shape == {("cube_mmad", "serial_blocks"), ("dma_ub_to_gm", "out_dmas"), ("dma_gm_to_l1", "instrs"),
                     ("vec_trans_data", "instrs"), ("dma_ub_to_l1", "instrs")}
    (mm,) = [e for c in cube for e in c["events"] if e["pipe"] == "M"]
    (out,) = [e for c in cube for e in c["events"] if e["cls"] == "dma_ub_to_gm"]
    (load,) = [e for c in cube for e in c["events"] if e["pipe"] == "MTE2"]
    assert mm["serial_blocks"] == 1
    assert out["out_dmas"] == m + 1 and out["bursts"] == (m + 1) * 5 and out["count"] == (m + 1) * n * 4
    t = tiling.plan_qlinear_matmul((m, k), (k, n), soc=soc).tiling
    bm, bn, bk = t["baseM"], t["baseN"], t["baseK"]
    k_tiles = -(-k // bk)
    a_tiles, b_tiles = k_tiles * -(-(m + 1) // bm), k_tiles * -(-n // bn)  # each tile loaded once here
    a_dmas, a_bursts = a_tiles * bk // 32, a_tiles * bk // 32 * bm  # K = 96 and baseK whole 32-byte columns
    assert (load["instrs"], load["bursts"]) == (a_dmas + b_tiles * bk, a_bursts + b_tiles * bk)
