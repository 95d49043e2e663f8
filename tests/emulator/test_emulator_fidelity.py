"""The emulator is at least as strict as the device and the CANN 8.1.RC1 API where a lenient model would accept a
wrong kernel: flags are one bit, the API's own synchronisation and UB scratch, the Compare count forms, the scalar
data cache, outputs and workspaces that are not zeroed, the 310p Matmul's C write-back, mix kernels, SyncAll's
preconditions, per-API element types, ...

Each fault kernel in op_kernel/emulator/tests/emu_fidelity_test_kernels.cpp is broken in one way; its faulty line
carries ``FAULT(<name>)``. The test reads the marker's line from the source (the file itself is the reference) and
requires the EmulatorError to name that file and line, the SoC and core, and the rule. Where a rule depends on the
SoC, the same kernel must pass on the SoCs where it is legal. Every fault kernel has a correct twin (``<name>_ok``),
which must pass on every SoC.
"""
from __future__ import annotations

import contextlib
import pathlib
import re

import pytest

from ascend_quant_ops.errors import EmulatorError

import ascend_quant_ops_testing as _testing  # the fault kernels' module (tests/emulator/conftest.py)

KERNEL_FILE = (pathlib.Path(__file__).resolve().parents[2] / "op_kernel" / "emulator" / "tests"
               / "emu_fidelity_test_kernels.cpp")
ALL_SOCS = ("ascend910b", "ascend310p", "ascend910_95")
SPLIT_SOCS = ("ascend910b", "ascend910_95")


def _fault_lines() -> dict[str, int]:
    lines = {}
    for number, text in enumerate(KERNEL_FILE.read_text().splitlines(), start=1):
        for m in re.finditer(r"FAULT\((\w+)\)", text.partition("//")[2]):
            assert m.group(1) not in lines, f"marker {m.group(1)} appears twice"
            lines[m.group(1)] = number
    return lines


FAULT_LINES = _fault_lines()

# fault name -> (SoCs on which the kernel must be refused, words the message must contain[, faulting core])
def _not_on_950(words: list[str]) -> dict[str, list[str]]:
    """Words of a fault the emulator finds on ascend910b / ascend310p; ascend910_95 refuses the call as not modelled."""
    return {"ascend910b": words, "ascend310p": words, "ascend910_95": ["on ascend910_95: not modelled"]}


EXPECTED = {
    # flags are one bit per (event, id)
    "double_set_flag": (ALL_SOCS, ["SetFlag(HardEvent::V_S, id 0)", "still pending", "one bit"]),
    "set_flag_on_queue_held_id": (ALL_SOCS, ["SetFlag(HardEvent::MTE2_V, id 0)", "held by a TPipe queue",
                                             "EnQue at", "AllocEventID or FetchEventID"]),
    "set_flag_left_pending": (ALL_SOCS, ["SetFlag(HardEvent::MTE3_V, id 0)", "never waited for"]),
    "flag_pending_across_reduce": (ALL_SOCS, ["ReduceMax synchronises internally", "HardEvent::V_S, id 0",
                                              "FetchEventID", "pending"]),
    "release_foreign_event_id": (ALL_SOCS, ["ReleaseEventID(HardEvent::MTE2_V, id 0)", "held by a TPipe queue"]),
    # (310p: no client flag, but the literal id is refused under a TPipe)
    "flag_on_matmul_client_id": (ALL_SOCS, {
        "ascend910b": ["SetFlag(HardEvent::MTE3_S, id 0)", "held by an AscendC API", "Matmul client"],
        "ascend910_95": ["SetFlag(HardEvent::MTE3_S, id 0)", "held by an AscendC API", "Matmul client"],
        "ascend310p": ["SetFlag(HardEvent::MTE3_S, id 0)", "AllocEventID or FetchEventID"]}),
    # Compare / CompareScalar count forms: whole 256-byte repeats, the headers' types, int32 EQ only
    "compare_partial_repeat": (ALL_SOCS, ["CompareScalar of 40 elements", "whole 256-byte repeats only"]),
    "compare_int32_not_eq": (ALL_SOCS, {"ascend910b": ["int32 operands with CMPMODE::GT", "equality only"],
                                        "ascend910_95": ["int32 operands with CMPMODE::GT", "equality only"],
                                        "ascend310p": ["int32 operands", "not supported on ascend310p"]}),
    # mix kernels (KERNEL_TASK_TYPE_DEFAULT), SyncAll's preconditions, REGIST_MATMUL_OBJ
    "mix_block_num": (SPLIT_SOCS, ["DataCopy UB->GM", "write to bytes [1024, 2048)", "outside the buffer"], 1),
    "software_sync_all_in_mix": (SPLIT_SOCS, ["KERNEL_TYPE_MIX_AIC_1_2", "software SyncAll", "collide",
                                              "SyncAll<true>()"]),
    "sync_all_false_with_matmul": (ALL_SOCS, {
        "ascend910b": ["SyncAll<false>", "Matmul object", "wait forever", "SyncAll<true>()"],
        "ascend910_95": ["SyncAll<false>", "Matmul object", "wait forever", "SyncAll<true>()"],
        "ascend310p": ["no hardware SyncAll"]}),
    "sync_all_over_core_count": (ALL_SOCS, {
        "ascend910b": ["65 blocks", "48 vector cores", "rounds"],
        "ascend910_95": ["65 blocks", "64 vector cores", "rounds"],
        "ascend310p": ["65 blocks", "8 AI cores", "rounds"]}),
    "hardware_sync_all_without_workspace": (ALL_SOCS, {
        "ascend910b": ["needs the launch's workspace"], "ascend910_95": ["needs the launch's workspace"],
        "ascend310p": ["no hardware SyncAll"]}),
    "matmul_without_mix_type": (SPLIT_SOCS, ["REGIST_MATMUL_OBJ", "KERNEL_TYPE_AIV_ONLY", "waits forever",
                                             "KERNEL_TYPE_MIX_AIC_1_2"]),
    "regist_matmul_user_workspace": (SPLIT_SOCS, ["REGIST_MATMUL_OBJ", "not GetSysWorkSpacePtr()"]),
    "aiv_only_on_310p": (("ascend310p",), ["KERNEL_TYPE_AIV_ONLY is not supported on ascend310p"]),
    # outputs and the workspace are not zeroed: poisoned, every output byte written, no read of unwritten bytes
    "output_left_unwritten": (ALL_SOCS, ["output 'y' (1024 bytes)", "256 bytes were never written",
                                         "first at byte 768", "not zeroed"]),
    "workspace_read_unwritten": (ALL_SOCS, ["GlobalTensor::GetValue reads byte", "of GM buffer 'workspace'",
                                            "nothing wrote in this launch", "reused pool"]),
    "workspace_dma_unwritten": (ALL_SOCS, ["DataCopy", "never written"]),
    # the scalar data cache: dirty bytes invisible to DMA / other cores until cleaned, stale cached lines
    "scalar_store_no_clean": (ALL_SOCS, ["DataCopy", "wrote with SetValue at", "still in the scalar data cache",
                                         "DataCacheCleanAndInvalid"]),
    "scalar_read_stale": (ALL_SOCS, ["GlobalTensor::GetValue reads a stale copy", "in this core's data cache since",
                                     "DataCacheCleanAndInvalid"]),
    "scalar_store_other_core": (ALL_SOCS, ["GlobalTensor::GetValue on core 1", "that core 0 wrote with SetValue",
                                           "has not cleaned"], 1),
    "scalar_stores_share_line": (ALL_SOCS, ["GlobalTensor::SetValue on core 1", "which core 0 holds dirty",
                                            "whole line"], 1),
    "dcci_dst_on_310p": (("ascend310p",), ["DcciDst", "not available on ascend310p"]),
    # the top 8 KiB of UB are the API's scratch (TMP_UB_OFFSET); ascend910_95's lies past the kernel's UB
    "ub_scratch_with_select": (("ascend910b", "ascend310p"), ["Select writes the AscendC API's scratch", "TMP_UB_OFFSET",
                                          "holds kernel data"]),
    # ReduceSum: only sums no order of additions can change
    "reduce_sum_other_order": (ALL_SOCS, ["ReduceSum of 4 elements", "may depend on the order",
                                          "every order is exact"]),
    # TPipe manages at most 64 buffers
    "tpipe_too_many_buffers": (ALL_SOCS, ["TPipe::InitBuffer: 65 buffers", "at most 64"]),
    # UB -> UB copies: no partial overlap; Select's mask aligned
    "ub_copy_overlap": (ALL_SOCS, ["DataCopy UB->UB", "overlaps src", "not documented"]),
    "select_mask_unaligned": (ALL_SOCS, ["Select", "selMask"]),
    # the headers' element types per API
    "max_int8": (ALL_SOCS, ["Max: element type int8 is not supported", "half, float, int16, int32"]),
    # ... and of the level-0 forms (the headers' static_asserts of the level-0 intrinsics, the same on every SoC)
    "level0_max_int8": (ALL_SOCS, ["Max (level 0): element type int8 is not supported",
                                   "level-0 Max takes half, float, int16, int32"]),
    "level0_and_int32": (ALL_SOCS, ["And (level 0): element type int32 is not supported", "int16, uint16"]),
    "whole_reduce_max_int32": (ALL_SOCS, ["WholeReduceMax (level 0): element type int32 is not supported",
                                          "half, float"]),
    # SetDeqScale rewrites the deq scale register while an earlier deq Cast may still run on V
    "deq_scale_race": (ALL_SOCS, ["SetDeqScale changes the deq scale", "Cast int32 -> half at",
                                  "may still be running on V", "HardEvent::V_S"]),
    # the 310p Matmul writes C in whole 32-byte blocks: the read-modify-write after each row's tail
    "matmul_c_block_past_buffer": (("ascend310p",), ["Matmul C write-back beyond the block's width",
                                                     "whole 32-byte blocks", "1056) of GM buffer 'y'",
                                                     "outside the buffer"]),
    "matmul_c_block_neighbour": (("ascend310p",), ["core 1 writes byte 32 of GM buffer 'y'",
                                                   "which core 0 already wrote", "race"], 1),
    # the tail copy's scratch is C row 0 unless the tiling's singleCoreN is not a multiple of 8
    "matmul_tail_scratch_on_c": (("ascend310p",), ["takes the API's tail copy", "C tile's row 0",
                                                   "singleCoreN (16) is not a multiple of 8"]),
    # older rules: DataCopyPad's padding and element lengths, the software SyncAll's workspaces, 310p C rows
    "datacopypad_pad_without_ispad": (ALL_SOCS, {
        "ascend910b": ["DataCopyPad GM->UB", "without isPad", "pad register"],
        "ascend910_95": ["DataCopyPad GM->UB", "without isPad", "pad register"],
        "ascend310p": ["DataCopyPad", "ascend310p"]}),
    "datacopypad_partial_element": (ALL_SOCS, {
        "ascend910b": ["blockLen 6 bytes is not a whole number of elements"],
        "ascend910_95": ["blockLen 6 bytes is not a whole number of elements"],
        "ascend310p": ["DataCopyPad", "ascend310p"]}),
    # ascend910_95's DataCopyPad: the UB-side stride within [0, 65535] blocks
    "datacopypad_ub_stride_gm_to_ub": (("ascend910_95", "ascend310p"), {
        "ascend910_95": ["DataCopyPad GM->UB", "dstStride 65536 blocks", "[0, 65535]"],
        "ascend310p": ["DataCopyPad", "ascend310p"]}),
    "datacopypad_ub_stride_ub_to_gm": (("ascend910_95", "ascend310p"), {
        "ascend910_95": ["DataCopyPad UB->GM", "srcStride 65536 blocks", "[0, 65535]"],
        "ascend310p": ["DataCopyPad", "ascend310p"]}),
    # DataCopyPad UB -> GM: blockLen a whole number of elements (the UB -> GM page; 8.1 checks GM -> UB only)
    "datacopypad_ub_to_gm_partial_element": (ALL_SOCS, {
        "ascend910b": ["DataCopyPad UB->GM", "blockLen 3 bytes is not a whole number of elements"],
        "ascend910_95": ["DataCopyPad UB->GM", "blockLen 3 bytes is not a whole number of elements"],
        "ascend310p": ["DataCopyPad", "ascend310p"]}),
    "pipe_barrier_s": (ALL_SOCS, ["PipeBarrier<PIPE_S>", "not supported"]),
    # under a TPipe, the kernel's event ids come from AllocEventID / FetchEventID (the SetFlag / WaitFlag page)
    "literal_event_id": (ALL_SOCS, ["HardEvent::V_S, id 2", "AllocEventID or FetchEventID"]),
    # TPipe::Reset ends the kernel's AllocEventID holds (8.1 ResetPool): a queue takes the id again
    "kernel_id_after_reset": (ALL_SOCS, ["SetFlag(HardEvent::MTE2_V, id 0)", "held by a TPipe queue"]),
    # a kernel flag on a pipe its core does not have: its wait compiles to nothing (8.1 kernel_event.h)
    "flag_on_cube_pipe": (("ascend910b", "ascend910_95"), ["HardEvent::M_V", "no M pipe", "orders nothing"]),
    "flag_on_fixpipe": (ALL_SOCS, ["HardEvent::FIX_S", "no FIX pipe", "orders nothing"]),
    # a position's TQue buffers: at most 8 (the event ids they hold; the TQue page's buffer limit)
    "tque_buffers_per_position": (ALL_SOCS, ["TPipe::InitBuffer", "9 TQue buffers", "at most 8"]),
    # ReduceMax with calIndex: every round's (value, index) pairs kept (the ReduceMax page's formula; 950 needs no work)
    "reduce_max_index_work_rounds": (("ascend910b", "ascend310p"), ["ReduceMax", "work (documented minimum with calIndex"]),
    "software_sync_all_ub_too_small": (ALL_SOCS, ["SyncAll(gmWorkspace, ubWorkspace, usedCores)",
                                                  "ubWorkspace (8 int32 per core)"]),
    "software_sync_all_unzeroed_workspace": (ALL_SOCS, ["counter in gmWorkspace", "never written in this launch",
                                                        "zero"]),
    # counters each core zeroes itself: another core's count from the previous launch counts as its arrival
    "software_sync_all_kernel_zeroed_counters": (ALL_SOCS, ["not zero when the launch starts", "previous launch",
                                                            "host zeroes before every launch"]),
    "matmul_c_rows_not_32_bytes": (("ascend310p",), ["TCubeTiling N 12", "32 bytes"]),
    # a zero divisor (vdiv: unknown result and an exception), in the count and the level-0 forms
    "div_zero_divisor": (ALL_SOCS, ["Div: element 0 of the divisor is 0", "raises an exception"]),
    "level0_div_zero_divisor": (ALL_SOCS, ["Div: element 64 of the divisor is 0", "raises an exception"]),
    # the accumulation exception of the level-0 forms: dst = src1, both repeat strides 0, src0 apart from src1
    "level0_accumulate_dst_stride": (ALL_SOCS, ["Max: the dst of iteration 0 is src1 of iteration 1",
                                                "src1RepStride and dstRepStride both 0"]),
    "level0_accumulate_src0_on_src1": (ALL_SOCS, ["Max", "src0 sharing no byte with src1"]),
    # ReduceSum's documented work minimum (ascend310p writes it)
    "reduce_sum_work_too_small": (ALL_SOCS, ["ReduceSum", "work (documented minimum: 1 element per 256-byte repeat"]),
    # ascend910b's ReduceSum stores one sum per repeat in dst (ascend910_95 held to it; ascend310p writes dst[0] only)
    "reduce_sum_dst_one_per_repeat": (("ascend910b", "ascend910_95"), ["ReduceSum", "dst"]),
    # a reduction's work area sharing bytes with src (its first step writes work from src in one instruction)
    "reduce_sum_work_on_src": (ALL_SOCS, ["ReduceSum: work UB", "shares bytes with src"]),
    "reduce_max_work_on_src": (("ascend910b", "ascend310p"), ["ReduceMax: work UB", "shares bytes with src"]),
    # a UB -> UB copy ordered for the vector pipe only, under the variant that runs it on MTE3 (RUN_OPTIONS)
    "ub_copy_after_vector_barrier_only": (ALL_SOCS, ["read-after-write (RAW) race", "on pipe MTE3"]),
    # an empty count form
    "count_zero": (ALL_SOCS, ["Adds: count 0", "not documented"]),
    # GM addresses aligned to the element type (DMA and scalar)
    "gm_element_misaligned": (ALL_SOCS, ["DataCopy", "GM address at byte 2 of buffer 'x'",
                                         "multiple of the element size 4"]),
    "gm_scalar_misaligned": (ALL_SOCS, ["GlobalTensor::GetValue", "GM address at byte 6 of buffer 'x'"]),
    # a SyncAll needs the launch in batch schedule mode (SetScheduleMode(1) in the host's TilingFunc)
    "sync_all_normal_schedule": (ALL_SOCS, ["SyncAll", "schedule mode is not batch", "SetScheduleMode(1)"]),
    "mix_odd_blocks": (ALL_SOCS, {"ascend910b": ["3 vector blocks", "even number"],
                                  "ascend910_95": ["3 vector blocks", "even number"],
                                  "ascend310p": ["KERNEL_TYPE_MIX_AIC_1_2 is not supported on ascend310p"]}),
    # a 1:2 mix kernel's path without a Matmul object must return on the cube cores (they run the kernel too)
    "mix_path_without_cube_guard": (ALL_SOCS, {
        "ascend910b": ["KERNEL_TYPE_MIX_AIC_1_2", "the cube cores run the kernel function too",
                       "no Matmul object (REGIST_MATMUL_OBJ)", "if ASCEND_IS_AIC { return; }", "Duplicate at"],
        "ascend910_95": ["KERNEL_TYPE_MIX_AIC_1_2", "the cube cores run the kernel function too",
                         "no Matmul object (REGIST_MATMUL_OBJ)", "if ASCEND_IS_AIC { return; }", "Duplicate at"],
        "ascend310p": ["KERNEL_TYPE_MIX_AIC_1_2 is not supported on ascend310p"]}),
    # KERNEL_TASK_TYPE(key, type): the launch's key's type wins over the default, and the host's blockDim must start
    # the launch's vector blocks under it (a vector kernel's blockDim counts vector cores)
    "per_key_block_dim": (ALL_SOCS, {
        "ascend910b": ["host's blockDim (SetBlockDim) of tiling key 1 is 2",
                       "under KERNEL_TYPE_MIX_AIV_1_0 the device starts 2 vector cores", "planned for 4", "never done"],
        "ascend910_95": ["host's blockDim (SetBlockDim) of tiling key 1 is 2",
                         "under KERNEL_TYPE_MIX_AIV_1_0 the device starts 2 vector cores", "planned for 4"],
        "ascend310p": ["KERNEL_TASK_TYPE(1, KERNEL_TYPE_MIX_AIV_1_0)", "not supported on ascend310p"]}),
    "type_of_another_key": (ALL_SOCS, {
        "ascend910b": ["host's blockDim (SetBlockDim) of tiling key 1 is 4",
                       "under KERNEL_TYPE_MIX_AIC_1_2 the device starts 8 vector cores", "planned for 4"],
        "ascend910_95": ["under KERNEL_TYPE_MIX_AIC_1_2 the device starts 8 vector cores"],
        "ascend310p": ["KERNEL_TASK_TYPE_DEFAULT", "not supported on ascend310p"]}),
    # CTRL[48] set after a vector instruction was issued (it may run under either mode); not on ascend310p
    "ctrl48_after_vector_work": (ALL_SOCS, {
        "ascend910b": ["set_ctrl: CTRL[48] written after the core's first vector or DMA instruction"],
        "ascend910_95": ["set_ctrl: CTRL[48] written after the core's first vector or DMA instruction"],
        "ascend310p": ["set_ctrl: CTRL[48] on ascend310p"]}),
    "kernel_type_after_use": (ALL_SOCS, {
        "ascend910b": ["KERNEL_TASK_TYPE(1, KERNEL_TYPE_MIX_AIV_1_0) after the kernel used its type"],
        "ascend910_95": ["KERNEL_TASK_TYPE(1, KERNEL_TYPE_MIX_AIV_1_0) after the kernel used its type"],
        "ascend310p": ["KERNEL_TASK_TYPE(1, KERNEL_TYPE_MIX_AIV_1_0)", "not supported on ascend310p"]}),
    # Brcb (level 0): alignment, buffers, overlap, strides, types, ascend310p's software implementation
    "brcb_src_unaligned": (ALL_SOCS, ["Brcb: src0 UB address 16 is not 32-byte aligned"]),
    "brcb_dst_out_of_buffer": (ALL_SOCS, ["Brcb: dst accesses UB bytes [64, 640)", "outside its buffer [64, 576)"]),
    "brcb_310p_half_tail": (("ascend310p",), ["Brcb on ascend310p with 16-bit elements", "transposes a 16x16 block",
                                              "512 bytes of dst", "iteration 0", "past dst's buffer"]),
    "brcb_310p_half_repeats": (("ascend310p",), ["Brcb on ascend310p with 16-bit elements and 2 iterations",
                                                 "16 bytes", "not 32-byte aligned", "not documented"]),
    "brcb_310p_step_wrap": (("ascend310p",), ["Brcb on ascend310p", "16-bit element counts",
                                              "65536 elements a repeat", "wrap beyond 65535"]),
    "brcb_overlap": (ALL_SOCS, ["Brcb: dst", "overlaps src0", "no overlap form for Brcb"]),
    # MulAddDst: the product's rounding before the addition is not documented; the mixed form is not modelled
    "mul_add_dst_rounding": (ALL_SOCS, ["MulAddDst: element 0", "if the product is not rounded", "must not depend"]),
    "mul_add_dst_mixed": (ALL_SOCS, ["MulAddDst (level 0): element type", "mixed (float, half) form is not modelled"]),
    "brcb_dst_block_stride_zero": (ALL_SOCS, ["Brcb: dstBlkStride 0", "take it as 1", "puts the 8 blocks"]),
    "mul_add_dst_fused_near_tie": (ALL_SOCS, ["MulAddDst: element 0", "is 1.0000001192092896 if the product is "
                                              "not rounded", "and 1.0000002384185791 if it is", "must not depend"]),
    "brcb_int8": (ALL_SOCS, ["Brcb (level 0): element type int8 is not supported", "half, bfloat16",
                             "int16, uint16, float, int32, uint32"]),
    "brcb_310p_flag_pending": (("ascend310p",), ["Brcb synchronises internally", "HardEvent::S_V, id 0",
                                                 "FetchEventID", "pending"]),
    # TransDataTo5HD (910b / 310p; refused on 950 as not modelled)
    "trans_data_src_unaligned": (ALL_SOCS, _not_on_950(["TransDataTo5HD: srcList[3] UB address", "32-byte aligned"])),
    "trans_data_overlap": (ALL_SOCS, _not_on_950(["TransDataTo5HD: a destination block shares bytes with a source",
                                                  "no overlap form"])),
    "trans_data_dst_written_twice": (ALL_SOCS, _not_on_950(["TransDataTo5HD: two destination entries or iterations",
                                                            "one writer"])),
    "trans_data_no_barrier": (ALL_SOCS, _not_on_950(["race on UB bytes", "dstList",
                                                                 "PipeBarrier<PIPE_V>"])),
    "trans_data_list_tensor_short": (ALL_SOCS, _not_on_950(["TransDataTo5HD: srcLocalList[0] holds 32 bytes",
                                                            "need 1056", "as the CPU-debug checks count"])),
    "trans_data_one_repeat_stride": (ALL_SOCS, _not_on_950(["repeatTimes 1 with srcRepStride 32", "pass 0 for both"])),
}

# Faults found at the end of the launch (an output left partly unwritten): their marker is the kernel's last write.
END_OF_LAUNCH = {"output_left_unwritten"}

# Twins that are correct only where the SoC has what they use (ascend310p: no hardware SyncAll, no mix kernels, no
# DataCopyPad).
TWIN_SOCS = {
    **{f"trans_data_{n}_ok": ("ascend910b", "ascend310p")
       for n in ("src_unaligned", "overlap", "dst_written_twice", "no_barrier", "list_tensor_short",
                 "one_repeat_stride")},
    "sync_all_false_with_matmul_ok": SPLIT_SOCS,
    "datacopypad_pad_without_ispad_ok": SPLIT_SOCS,
    "datacopypad_partial_element_ok": SPLIT_SOCS,
    "datacopypad_ub_stride_gm_to_ub_ok": SPLIT_SOCS,
    "datacopypad_ub_stride_ub_to_gm_ok": SPLIT_SOCS,
    "datacopypad_ub_to_gm_partial_element_ok": SPLIT_SOCS,
    "hardware_sync_all_without_workspace_ok": SPLIT_SOCS,
    "mix_odd_blocks_ok": SPLIT_SOCS,
    "mix_path_without_cube_guard_ok": SPLIT_SOCS,
    "per_key_block_dim_ok": SPLIT_SOCS,
    "kernel_type_after_use_ok": SPLIT_SOCS,
    "type_of_another_key_ok": SPLIT_SOCS,
    "ctrl48_after_vector_work_ok": SPLIT_SOCS,
}


def test_every_fault_kernel_has_a_marker_an_expectation_and_a_twin():
    names = set(_testing.emulator_fidelity_names())
    faults = {n for n in names if not n.endswith("_ok")}
    assert faults == set(FAULT_LINES), "fault kernels and FAULT() markers disagree"
    assert faults == set(EXPECTED), "every fault kernel needs an expectation here"
    assert {n + "_ok" for n in faults} == names - faults, "every fault kernel needs a correct twin"


# Faults of a run variant (emulator RunOptions for the testing module's copy): the kernel and its twin run under it;
# the fault kernel passes without it.
RUN_OPTIONS = {"ub_copy_after_vector_barrier_only": {"ub_copy_on_mte3": True}}


@contextlib.contextmanager
def _run_options(name):
    base = name[:-3] if name.endswith("_ok") else name
    old = _testing.emulator_run_options()
    _testing.emulator_set_run_options(**{**old, **RUN_OPTIONS.get(base, {})})
    try:
        yield
    finally:
        _testing.emulator_set_run_options(**old)


@pytest.mark.parametrize("soc", ALL_SOCS)
@pytest.mark.parametrize("name", sorted(RUN_OPTIONS))
def test_a_variant_fault_passes_without_its_variant(name, soc):
    _testing.emulator_fidelity_run(name, soc)
    assert _testing.emulator_last_run_stats()["completed"] is True


_CASES = [(name, soc) for name in sorted(EXPECTED) for soc in ALL_SOCS]


@pytest.mark.parametrize("name,soc", _CASES)
def test_fault_is_caught_at_the_kernel_line(name, soc):
    socs, words, *rest = EXPECTED[name]
    if soc not in socs:
        # The same kernel is legal on this SoC: the check must depend on the SoC model.
        _testing.emulator_fidelity_run(name, soc)
        assert _testing.emulator_last_run_stats()["completed"] is True
        return
    with pytest.raises(EmulatorError) as info, _run_options(name):
        _testing.emulator_fidelity_run(name, soc)
    err = info.value
    message = str(err)
    line = FAULT_LINES[name]
    if name in END_OF_LAUNCH:
        # Nothing faults at a line: the launch ends with bytes unwritten; the error names the kernel's last write.
        assert f"last write to it: " in message and f"emu_fidelity_test_kernels.cpp:{line}" in message, message
        assert err.soc == soc
    else:
        assert f"emu_fidelity_test_kernels.cpp:{line}:" in message, message
        assert err.kernel_line == line
        core = rest[0] if rest else 0
        block_dim = _testing.emulator_fidelity_block_dim(name)
        assert err.soc == soc and f"[{soc} core {core}/{block_dim}" in message, message
    for word in (words[soc] if isinstance(words, dict) else words):
        assert word in message, f"{word!r} not in {message!r}"
    stats = _testing.emulator_last_run_stats()
    assert stats["completed"] is False and stats["error"] == message


@pytest.mark.parametrize("soc", ALL_SOCS)
@pytest.mark.parametrize("name", sorted(n + "_ok" for n in EXPECTED))
def test_correct_twin_passes(name, soc):
    if soc not in TWIN_SOCS.get(name, ALL_SOCS):
        pytest.skip(f"{name} uses what {soc} does not have (its fault test covers {soc})")
    with _run_options(name):
        _testing.emulator_fidelity_run(name, soc)
    assert _testing.emulator_last_run_stats()["completed"] is True
