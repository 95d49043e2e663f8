// The UB and workspace sizes the quantized matmuls' kernel stages (aqo_qmm_*.h) and their host plan (op_host/
// tiling_core/matmul_cube_plan.cpp) must agree on, defined once. Plain C++11 with no AscendC dependency: the kernels
// include it (from aqo_qmm_common.h), the plan as "../../op_kernel/aqo_qmm_layout.h" (the CANN project keeps the two
// folders side by side, scripts/cann_project.py). No include guard, as the other aqo_qmm_*.h headers (the emulator's
// runners include each kernel once per SoC, in its own namespace).

namespace aqo_qmm_layout {

// The zero-point correction's row terms of one row, in UB and in the workspace: -(RA - K za') broadcast over one
// 32-byte block, then -za' over the next (int32).
constexpr unsigned kRowTermInts = 16;
// The exact int32 -> float32 conversion's mask block, after a chunk's floats in the scratch (QmmInt32ToFloat).
constexpr unsigned kSplitMaskBytes = 32;

}  // namespace aqo_qmm_layout
