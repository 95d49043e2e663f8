// The UB and workspace sizes the quantized matmuls' kernel stages (aqo_qmm_*.h) and their host plans (op_host/
// tiling_core/matmul_cube_plan.cpp, qlinear_matmul_vector_decode_plan.cpp) must agree on, defined once. Plain C++11
// with no AscendC dependency: the kernels include it (from aqo_qmm_common.h), the plans as
// "../../op_kernel/aqo_qmm_layout.h" (the CANN project keeps the two folders side by side, scripts/cann_project.py).
// No include guard, as the other aqo_qmm_*.h headers (the emulator's runners include each kernel once per SoC, in its
// own namespace).

namespace aqo_qmm_layout {

// The zero-point correction's row terms of one row, in UB and in the workspace: -(RA - K za') broadcast over one
// 32-byte block, then -za' over the next (int32).
constexpr unsigned kRowTermInts = 16;
// Bytes past a row's 64-byte row-term slot that the cube stage's row sums may write on split SoCs (RowSums, a whole
// row of `row_floats` floats in one ReduceSum): there the count form stores one sum per 256-byte repeat from dst on
// (dav_c220 ReduceSumImpl, a counter-mode vcadd with a one-element destination repeat stride) before the total goes
// to dst[0], so the last row's sums reach past its slot; the row terms' UB buffer holds them (rounded to 32 bytes).
constexpr unsigned RowSumSpillBytes(unsigned row_floats)
{
    // (C++11 constexpr: one return) sums = (row_floats + 63) / 64 floats from the slot's start
    return (row_floats + 63) / 64 * 4 <= kRowTermInts * 4
               ? 0
               : ((row_floats + 63) / 64 * 4 - kRowTermInts * 4 + 31) / 32 * 32;
}
// The exact int32 -> float32 conversion's mask block, after a chunk's floats in the scratch (QmmInt32ToFloat).
constexpr unsigned kSplitMaskBytes = 32;

// The vector decode path's sums of a - a_zp (b's zero-point correction, aqo_qmm_vector_decode.h), per row of a: its
// float32 lanes (one per panel row, 128 at most: kQmmVectorDecodePanelK), the reduced sum's block and that sum
// broadcast over 8 blocks (Brcb's repeat), as float32 then int32 (the same bytes); then one block of ReduceSum's work.
constexpr unsigned kVdSumLanes = 128;
constexpr unsigned kVdSumRowBytes = kVdSumLanes * 4 + 32 + 256;
constexpr unsigned kVdSumWorkBytes = 32;

}  // namespace aqo_qmm_layout
