// QLinearMatMul's vector decode path (tiling key 1, op_kernel/aqo_qmm_vector_decode.h): a short a (M <= 6) against a
// uint8 b stored [..., K, N], computed by the vector cores alone.
//
// Why: the cube multiplies int8 only (every SoC's Matmul API here), so a uint8 b would first be mapped into the
// workspace (read b, write b, the cube reads it again: 3x the minimum GM traffic). A decode step reads b once
// anyway, and its work is O(K N) multiply-adds per row of a: the vector unit does them straight from b, exactly.
//
// The split: y's columns in units of vdGranule (whole 32-byte blocks without DataCopyPad), batch x vdGranules
// units, a contiguous range per vector worker (balanced to one unit); a worker's range is cut into groups of at most
// cStride columns, each group's b columns streamed in panels of vdPanelK rows (the last ones shorter with DataCopyPad,
// an odd worker's one more: aqo_qmm_layout.h VdTailPanels), a's rows in chunks of vdAChunkK / vdPanelK panels (as many
// as UB holds; sized for the odd workers' panels). On split
// SoCs with one y matrix, where N / workers columns would make short DMA bursts, K is cut into vdSlices slices too: worker w sums slice
// w % vdSlices of its column range w / vdSlices (an even share of K rows) into the workspace ([vdSlices, M, N] int32),
// a SyncAll, then every worker sums the slices of its own columns (units split over all workers) and requantizes.
// Exactness: (a - a_zp) is an integer in [-255, 255] and b one in [0, 255]; a float32 sum takes one product per
// panel for at most 256 panels (256 * 255 * 255 < 2^24), then goes to int32, where the rows and panels are summed;
// b's zero point is applied once a group in int32, as b_zp times the sum of a - a_zp (a float32 integer below
// 255 K < 2^24); every int32 value stays below 2^31 (K <= kQmmVectorDecodeMaxK), so no step rounds or wraps,
// whatever the unit's rounding mode.
//
// C++11: included by qlinear_matmul_plan.cpp only.
#ifndef AQO_TILING_CORE_QLINEAR_MATMUL_VECTOR_DECODE_PLAN_H
#define AQO_TILING_CORE_QLINEAR_MATMUL_VECTOR_DECODE_PLAN_H

#include <cstdint>

#include "qlinear_matmul_plan.h"

namespace aqo {

// Rows of a the path takes at most (the kernel's kQmmVdMaxRows): its vector work grows by a product-sum per element
// of b and row of a; beyond 6 rows the cube path (b mapped: 3x the traffic) is estimated faster (the perf report,
// 910b M x 4096 x 4096: 6 rows 48.5 against 50.4 us, 8 rows 63.3 against about 50).
constexpr uint32_t kQmmVectorDecodeMaxM = 6;
// b rows per panel at most (UB decides below it).
constexpr uint32_t kQmmVectorDecodePanelK = 128;
// Columns a worker's range should have at least where K slices allow it: each panel row is one DMA burst, whose
// fixed cost (the timeline's dma_burst_cycles) would otherwise weigh on its bytes (decode: N / workers columns; 2048
// bytes move in about 128 cycles at a decode step's share of the GM bandwidth, against 8 of set-up).
constexpr uint64_t kQmmVectorDecodeMinBurst = 2048;
// The slices' partial sums go through the workspace (written and read once: 8 bytes per slice, row of a and column);
// K slices are kept to at most 1/256 of b's rows per row of a (3.1% of b's bytes at most; with the zero points each
// slice's worker reads for its columns, a decode step stays within 1.05x of the minimum traffic).
constexpr uint64_t kQmmVectorDecodeSliceK = 256;
// Columns of a group at most: a wide group's float32 rows go one MulAddDst per panel row, whose 64-column pieces are
// the iterations (255 at most); UB limits it well below that.
constexpr uint64_t kQmmVectorDecodeMaxGroup = 8192;
// K at most: 33025 * 255 * 255 = 2147450625 < 2^31 (the int32 sums never wrap).
constexpr uint64_t kQmmVectorDecodeMaxK = 33025;

// Whether the request takes the vector decode path on the SoC (the cube path otherwise).
bool QmmVectorDecodeApplies(const QLinearMatMulRequest& r, const SocSpec& soc);

// Turns the cube plan's tiling (already in plan->tiling) into the vector decode path's: the split, the UB buffers,
// the epilogue's buffers for chunks of M rows x cStride columns, tiling key 1, the slices' workspace. False with a
// violation when its buffers do not fit the SoC's UB.
bool PlanQmmVectorDecode(const QLinearMatMulRequest& r, const SocSpec& soc, QLinearMatMulPlan* plan,
                         ConstraintViolation* v);

// The explanation of a vector decode plan (used cores, work ranges, UB buffers, GM ranges, notes).
void ExplainQmmVectorDecode(const QLinearMatMulRequest& r, const SocSpec& soc, QLinearMatMulPlan* plan);

}  // namespace aqo

#endif  // AQO_TILING_CORE_QLINEAR_MATMUL_VECTOR_DECODE_PLAN_H
