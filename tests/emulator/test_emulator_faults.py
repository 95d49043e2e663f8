"""The AscendC CPU emulator catches every class of kernel fault, at the kernel's line.

Each fault kernel in op_kernel/emulator/tests/emu_test_kernels.cpp is broken in one way; its faulty line carries
the marker ``FAULT(<name>)``. The test reads the marker's line number from the source (an independent reference:
the file itself, not the emulator) and requires the EmulatorError to name that file and line, the SoC, the core,
and the fault class. SoC-specific faults must be refused on the SoCs that lack the feature and accepted on the
others, so the checks are proven to depend on the SoC model and not to fire unconditionally.
"""
from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

from ascend_quant_ops.errors import EmulatorError

import ascend_quant_ops_testing as _testing  # the fault kernels' module (tests/emulator/conftest.py)
from ascend_quant_ops import _native

KERNEL_FILE = pathlib.Path(__file__).resolve().parents[2] / "op_kernel" / "emulator" / "tests" / "emu_test_kernels.cpp"
ALL_SOCS = ("ascend910b", "ascend310p", "ascend910_95")


def _fault_lines() -> dict[str, int]:
    lines = {}
    for number, text in enumerate(KERNEL_FILE.read_text().splitlines(), start=1):
        for name in re.findall(r"FAULT\((\w+)\)", text):  # one line may be the fault of several kernels
            assert name not in lines, f"marker {name} appears twice"
            lines[name] = number
    return lines


FAULT_LINES = _fault_lines()

# fault name -> (SoCs on which the kernel must be refused, words the message must contain)
EXPECTED = {
    "ub_overflow": (ALL_SOCS, ["UB overflow", "262144"]),
    "unaligned_copy_length": (ALL_SOCS, ["DataCopy", "not a multiple of 32"]),
    "unaligned_ub_address": (ALL_SOCS, ["DataCopy", "not 32-byte aligned"]),
    "unaligned_vector_operand": (ALL_SOCS, ["Abs", "not 32-byte aligned"]),
    "illegal_cast_mode": (("ascend310p",), ["float32 -> float16", "CAST_RINT", "CAST_NONE, CAST_ODD"]),
    "illegal_cast_mode_int8": (("ascend310p",), ["float16 -> int8", "CAST_RINT"]),
    "datacopypad_unavailable": (("ascend310p",), ["DataCopyPad", "not available"]),
    "deque_empty": (ALL_SOCS, ["DeQue", "empty"]),
    "free_twice": (ALL_SOCS, ["FreeTensor twice"]),
    "free_foreign": (ALL_SOCS, ["foreign tensor"]),
    "too_many_live": (ALL_SOCS, ["AllocTensor", "all 2 buffers"]),
    "depth_exceeded": (ALL_SOCS, ["EnQue", "depth 1 exceeded"]),
    "never_freed": (ALL_SOCS, ["never freed"]),
    "gm_read_oob": (ALL_SOCS, ["read of bytes [800, 1056)", "'x'", "outside the buffer"]),
    "gm_write_oob": (ALL_SOCS, ["write to bytes [992, 1056)", "'y'", "outside the buffer"]),
    "gm_write_readonly": (ALL_SOCS, ["read-only"]),
    "gm_extent_oob": (ALL_SOCS, ["extent"]),
    "gm_scalar_oob": (ALL_SOCS, ["SetValue", "[1024, 1028)"]),
    "local_oob": (ALL_SOCS, ["Duplicate", "outside its buffer"]),
    "local_scalar_oob": (ALL_SOCS, ["SetValue", "outside its buffer"]),
    "tiling_out_of_range": (ALL_SOCS, ["GET_TILING_DATA", "104 bytes", "only 40"]),
    "use_after_free": (ALL_SOCS, ["use after free"]),
    "access_enqueued": (ALL_SOCS, ["in its queue"]),
    # ascend310p refuses the DataCopyPad on the line before: checked separately below.
    "uninitialised_reduce": (("ascend910b", "ascend910_95"), ["ReduceMax", "never written"]),
    "garbage_to_gm": (ALL_SOCS, ["never written"]),
    "wait_without_set": (ALL_SOCS, ["WaitFlag", "without a matching SetFlag"]),
    # ascend310p runs in saturation mode: NaN reads as 0, so a NaN operand is defined there. Its saturation is of
    # floating-point results: an integer conversion out of range is refused on every SoC.
    "cast_nan_to_int": (("ascend910b", "ascend910_95"), ["NaN", "float32 -> int32"]),
    "cast_out_of_range": (ALL_SOCS, ["out of range"]),
    "reduce_max_nan": (("ascend910b", "ascend910_95"), ["ReduceMax", "NaN"]),
    "bf16_unavailable": (("ascend310p",), ["bfloat16", "not available on ascend310p"]),
    "fp8_unavailable": (("ascend910b", "ascend310p"), ["float8_e4m3fn", "not available"]),
    "reduce_sum_order": (ALL_SOCS, ["ReduceSum", "order"]),
    "second_pipe": (ALL_SOCS, ["second TPipe"]),
    "gm_cross_core_race": (ALL_SOCS, ["core 1 writes byte 224", "core 0 already wrote", "race"]),
    "bf16_copy_unavailable": (("ascend310p",), ["bfloat16 does not exist on ascend310p"]),
    "gm_unregistered": (ALL_SOCS, ["SetGlobalBuffer", "not inside any buffer registered"]),
    "use_after_pipe_reset": (ALL_SOCS, ["Abs", "use after free"]),
    "unallocated_tensor": (ALL_SOCS, ["Duplicate", "not an allocated LocalTensor"]),
    "partial_overlap": (ALL_SOCS, ["Add", "partially overlaps src0", "[32, 288)"]),
    # ascend910_95's ReduceMax needs no work (the ReduceMax page)
    "reduce_work_too_small": (("ascend910b", "ascend310p"), ["ReduceMax", "work", "documented minimum", "[4000, 4128)"]),
    # the ordering model: each misses one synchronisation (the earlier access is named, and what would order them)
    "missing_pipe_barrier_v": (ALL_SOCS, ["read-after-write (RAW)", "on pipe V", "by Duplicate at",
                                          "PipeBarrier<PIPE_V>()"]),
    "missing_pipe_barrier_v_war": (ALL_SOCS, ["write-after-read (WAR)", "by Muls at", "PipeBarrier<PIPE_V>()"]),
    "missing_v_s": (ALL_SOCS, ["read-after-write (RAW)", "on pipe S (scalar read)", "by Duplicate at",
                               "SetFlag<HardEvent::V_S>"]),
    "missing_s_v": (ALL_SOCS, ["read-after-write (RAW)", "on pipe V", "by LocalTensor::SetValue at",
                               "SetFlag<HardEvent::S_V>"]),
    "missing_s_mte3": (ALL_SOCS, ["read-after-write (RAW)", "on pipe MTE3", "by LocalTensor::SetValue at",
                                  "SetFlag<HardEvent::S_MTE3>"]),
    "missing_mte3_mte2": (ALL_SOCS, ["read-after-write (RAW)", "GM buffer 'y'", "on MTE2", "by DataCopy UB->GM at",
                                     "SetFlag<HardEvent::MTE3_MTE2>"]),
    "missing_mte2_v": (ALL_SOCS, ["read-after-write (RAW)", "on pipe V", "by DataCopy GM->UB at",
                                  "SetFlag<HardEvent::MTE2_V>"]),
    "missing_v_mte3": (ALL_SOCS, ["read-after-write (RAW)", "on pipe MTE3", "by Duplicate at",
                                  "SetFlag<HardEvent::V_MTE3>"]),
    "missing_mte2_s": (ALL_SOCS, ["read-after-write (RAW)", "on pipe S (scalar read)", "by DataCopy GM->UB at",
                                  "SetFlag<HardEvent::MTE2_S>"]),
    "missing_v_mte2": (ALL_SOCS, ["write-after-read (WAR)", "on pipe MTE2", "by Abs at",
                                  "SetFlag<HardEvent::V_MTE2>"]),
    # the SetValue's write-allocate fill reads the whole 64-byte line first: a RAW with the DMA still writing it
    "missing_mte3_s": (ALL_SOCS, ["read-after-write (RAW)", "GM buffer 'y'", "by DataCopy UB->GM at",
                                  "SetFlag<HardEvent::MTE3_S>"]),
    # the scalar data cache: a line fill racing this core's DMA into other bytes of the line; another core's DMA
    # into a line this core wrote back whole, unordered
    "missing_line_fill_order": (ALL_SOCS, ["read-after-write (RAW)", "GM buffer 'y'", "by DataCopy UB->GM at",
                                           "SetFlag<HardEvent::MTE3_S>"]),
    "missing_order_with_line_write_back": (ALL_SOCS, ["write-after-write (WAW)", "GM buffer 'y'", "core 0's"]),
    "missing_sync_all": (ALL_SOCS, ["read-after-write (RAW)", "GM buffer 'y'", "core 0's write", "SyncAll()"]),
    "missing_pipe_all_before_matmul": (ALL_SOCS, ["read-after-write (RAW)", "GM buffer 'y'",
                                                  "on the cube (Matmul API)", "by DataCopy UB->GM at",
                                                  "PipeBarrier<PIPE_ALL>() before the Matmul call"]),
    # SyncAll across cores, and where it cannot complete
    "sync_all_not_reached": (ALL_SOCS, ["SyncAll", "core(s) 1 returned without reaching it", "wait forever"]),
    "hardware_sync_all": (("ascend310p",), ["SyncAll()", "no hardware SyncAll", "software form"]),
    "fault_while_others_wait": (ALL_SOCS, ["WaitFlag(HardEvent::V_S, id 0) without a matching SetFlag"]),
    # the DMA instructions' field widths
    "datacopy_block_count": (ALL_SOCS, ["blockCount 4096", "1..4095"]),
    "datacopy_block_len": (ALL_SOCS, ["blockLen 65536", "1..65535"]),
    "datacopypad_block_count": (("ascend910b", "ascend910_95"), ["DataCopyPad GM->UB", "blockCount 4096", "4095"]),
    "datacopypad_block_len": (("ascend910b", "ascend910_95"), ["DataCopyPad GM->UB", "blockLen 2097152",
                                                               "2097151"]),
    "event_ids_exhausted": (ALL_SOCS, ["no free event id", "HardEvent::V_S"]),
    # the cube writes C until the core waits (reported where the wait completes the work)
    "async_matmul_c_read_early": (("ascend910b", "ascend910_95"), ["write-after-read (WAR)", "GM buffer 'y'",
                                                                    "on the cube (Matmul API)",
                                                                    "by DataCopy GM->UB at"]),
    # level-0 forms: the documented limits of repeat, mask, strides and address overlap
    "level0_repeat_zero": (ALL_SOCS, ["Add", "repeatTimes 0", "1..255"]),
    "level0_mask_too_large": (ALL_SOCS, ["Mul", "continuous mask 65", "1..64"]),
    "level0_dst_block_stride_zero": (ALL_SOCS, ["Sub", "dstBlkStride 0"]),
    "level0_operand_out_of_buffer": (ALL_SOCS, ["Add", "src0", "outside its buffer"]),
    "level0_partial_overlap": (ALL_SOCS, ["Max", "iteration 0", "partially overlaps src0"]),
    "level0_iteration_dependency": (ALL_SOCS, ["Add", "dst of iteration 0 is src0 of iteration 1"]),
    "level0_accumulate_div": (ALL_SOCS, ["Div", "dst of iteration 0 is src1 of iteration 1"]),
    "level0_accumulate_int16": (ALL_SOCS, ["Max", "dst of iteration 0 is src1 of iteration 1"]),
    # ascend910_95 given a UB of 256 KiB: the level-0 forms' 8 KiB scratch at TMP_UB_OFFSET = 248 KiB
    "level0_scratch_950": (("ascend910_95",), ["Add", "TMP_UB_OFFSET", "byte 253952 holds kernel data",
                                              "below 253952"]),
    "whole_reduce_order_310p": (("ascend310p",), ["WholeReduceMax", "ORDER_VALUE_INDEX and ORDER_INDEX_VALUE"]),
    "whole_reduce_nan": (("ascend910b", "ascend910_95"), ["WholeReduceMin", "NaN"]),
}

# Faults that run on several cores: name -> (core that faults, block_dim).
MULTI_CORE = {"gm_cross_core_race": (1, 2), "missing_sync_all": (1, 2), "missing_order_with_line_write_back": (1, 2),
              "sync_all_not_reached": (0, 2),
              "hardware_sync_all": (0, 2), "fault_while_others_wait": (2, 3)}


def test_every_fault_kernel_has_a_marker_and_an_expectation():
    names = set(_testing.emulator_fault_names())
    assert names == set(FAULT_LINES), "fault kernels and FAULT() markers disagree"
    assert names == set(EXPECTED), "every fault kernel needs an expectation here"


# Pairs checked by a dedicated test because another fault fires first there.
_SPECIAL = {("uninitialised_reduce", "ascend310p"), ("datacopypad_block_count", "ascend310p"),
            ("datacopypad_block_len", "ascend310p"), ("async_matmul_c_read_early", "ascend310p")}
_CASES = [(name, soc) for name in sorted(EXPECTED) for soc in ALL_SOCS if (name, soc) not in _SPECIAL]


@pytest.mark.parametrize("name,soc", _CASES)
def test_fault_is_caught_at_the_kernel_line(name, soc):
    socs, words = EXPECTED[name]
    if soc not in socs:
        # The same kernel is legal on this SoC: the check must depend on the SoC model.
        _testing.emulator_fault_demo(name, soc)
        assert _testing.emulator_last_run_stats()["completed"] is True
        return
    with pytest.raises(EmulatorError) as info:
        _testing.emulator_fault_demo(name, soc)
    err = info.value
    message = str(err)
    line = FAULT_LINES[name]
    assert f"emu_test_kernels.cpp:{line}:" in message, message
    assert err.kernel_file.endswith("emu_test_kernels.cpp")
    assert err.kernel_line == line
    core, block_dim = MULTI_CORE.get(name, (0, 1))
    assert err.soc == soc and f"[{soc} core {core}/{block_dim}" in message
    assert err.core == core
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    stats = _testing.emulator_last_run_stats()
    assert stats["completed"] is False and stats["error"] == message


def _line_before(marker_line: int, text: str) -> int:
    lines = KERNEL_FILE.read_text().splitlines()
    return max(i + 1 for i in range(marker_line) if text in lines[i])


@pytest.mark.parametrize("name,line_text", [("uninitialised_reduce", "DataCopyPad(t, xg, p, pad);"),
                                            ("datacopypad_block_count", "DataCopyPad(t, xg, p, pad);"),
                                            ("datacopypad_block_len", "DataCopyPad(t, xg, p, pad);")])
def test_datacopypad_faults_on_310p_fail_at_the_missing_datacopypad(name, line_text):
    with pytest.raises(EmulatorError) as info:
        _testing.emulator_fault_demo(name, "ascend310p")
    assert info.value.kernel_line == _line_before(FAULT_LINES[name], line_text)
    assert "DataCopyPad is not available" in str(info.value)


def test_async_matmul_on_310p_has_no_wait():
    # 310p's Matmul (on the AI core) is synchronous: the asynchronous form's wait does not exist there.
    with pytest.raises(EmulatorError) as info:
        _testing.emulator_fault_demo("async_matmul_c_read_early", "ascend310p")
    assert info.value.kernel_line == FAULT_LINES["async_matmul_c_read_early"]
    assert "has no WaitIterateAll" in str(info.value)


ORDERING_FAULTS = sorted(n for n in EXPECTED if n.startswith("missing_"))


def test_every_ordering_fault_has_a_correct_twin():
    twins = set(_testing.emulator_twin_names())
    assert {n + "_ok" for n in ORDERING_FAULTS} <= twins


@pytest.mark.parametrize("soc", ALL_SOCS)
@pytest.mark.parametrize("name", sorted(set(_testing.emulator_twin_names())))
def test_correct_twins_pass(name, soc):
    # The same kernels as the ordering faults with the synchronisation the device needs: accepted on every SoC.
    y = np.frombuffer(_testing.emulator_twin_demo(name, soc), np.float32)
    assert _testing.emulator_last_run_stats()["completed"] is True
    if name == "missing_sync_all_ok":
        np.testing.assert_array_equal(y[:64], 4.0)  # core 0's write, which core 1 read after the SyncAll
    if name == "same_value_rewrite_ok":
        np.testing.assert_array_equal(y[:64], 6.0)


def test_emulator_error_is_a_runtime_error_of_the_package():
    from ascend_quant_ops.errors import AqoError

    with pytest.raises(RuntimeError) as info:
        _testing.emulator_fault_demo("free_twice", "ascend910b")
    assert isinstance(info.value, AqoError)


def test_unknown_soc_is_refused():
    with pytest.raises(EmulatorError, match="unknown SoC"):
        _testing.emulator_fault_demo("free_twice", "ascend999")


def test_soc_model_comes_from_the_soc_table():
    table = {s["name"]: s for s in _native.soc_table()} if hasattr(_native, "soc_table") else {}
    for soc in ALL_SOCS:
        model = _testing.emulator_soc_model(soc)
        assert model["name"] == soc
        if soc in table:
            assert model["ub_bytes"] == table[soc]["ub_bytes"]
    assert _testing.emulator_soc_model("ascend310p")["has_data_copy_pad"] is False
    assert _testing.emulator_soc_model("ascend310p")["saturation_mode"] is True
    assert _testing.emulator_soc_model("ascend910b")["has_float8"] is False
    assert _testing.emulator_soc_model("ascend910_95")["has_float8"] is True
    assert _testing.emulator_soc_model("ascend910b", ub_size=65536)["ub_bytes"] == 65536
    with pytest.raises(EmulatorError, match="multiple of 32"):
        _testing.emulator_soc_model("ascend910b", ub_size=1000)


@pytest.mark.parametrize("case,words", [
    ("api_outside_launch", ["outside a kernel launch"]),
    ("block_dim_zero", ["block_dim 0"]),
    ("null_gm_buffer", ["'x'", "null address"]),
    ("no_tiling", ["no tiling was given"]),
])
def test_launcher_misuse_is_refused_not_crashed(case, words):
    with pytest.raises(EmulatorError) as info:
        _testing.emulator_misuse_demo(case)
    for word in words:
        assert word in str(info.value)


def test_shared_gm_buffers_are_ordered_by_sync_all_only():
    # A buffer declared shared lifts the one-writer-per-byte rule, not the ordering: the two cores' unordered
    # writes of different values to the same bytes still race (the twin orders them with SyncAll).
    with pytest.raises(EmulatorError) as info:
        _testing.emulator_fault_demo("gm_cross_core_race", "ascend910b", y_shared=True)
    message = str(info.value)
    assert "write-after-write (WAW)" in message and "core 0's write" in message and "SyncAll()" in message
    assert info.value.core == 1 and info.value.kernel_line == FAULT_LINES["gm_cross_core_race"]
