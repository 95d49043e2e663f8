// QLinearMatMul's cube decode path on ascend310p (tiling key 2, op_kernel/aqo_qmm_cube_decode_310p.h): a short a
// (M <= 16) against an int8 b (or a uint8 b with a uint8 a) stored [K, N] or transposed [N, K], on the AI cores' own
// cube pipeline.
//
// Why: 310p's Matmul API copies an int8 B through UB one DMA per tile row and turns it 8 columns at a time, and the
// vector decode path's work grows with every row of a. Here each core reads its column slice of b once, in chunks
// of cdChunkK rows (one DMA, a burst per row), turns a chunk with TransDataTo5HD (its 32-column groups as the
// instruction's iterations), copies it to L1 in one piece and feeds the cube from there: per 32 rows a LoadData into
// an L0B half and an accumulating Mmad against a, which sits in L0A (in pieces of cdPieceK rows of K when it does not
// fit at once). b stored transposed ([N, K], nn.Linear's weights): a chunk is cdChunkK (2048) K values of 16 columns,
// a burst of 2 KiB per column, put in L0B's layout by a block gather on the vector unit instead of the turn.
//
// The split: y's columns in units of 32 (N / 32 units), a contiguous range per core (balanced to one unit), cut into
// groups of at most cdGroup columns (an L0B half holds 32 rows of a group). Per group, C = A' B in L0C, where A' is
// a's M rows, then a row of ones (b's column sums for a's zero point), zero rows up to whole 16-row blocks
// (cdRowsA). C leaves L0C in its fractal order, becomes int32 rows, gets the zero-point terms
//     acc = P - zb (RA - K za) - za CB                     (int32, exact modulo 2^32)
// with RA the row sums of a (the vector unit, once, while a is loaded), and goes through the requantization epilogue
// (aqo_qmm_requant_epilogue.h) in chunks of rowsPerChunk rows, and out by DMA.
//
// Exact: the cube's int32 sums never leave int32 (K times the largest product of the operand types stays below
// 2^31, checked here), the zero-point terms are the cube stage's (QmmZeroPoints, wrapping arithmetic where an int32
// vector step could overflow).
//
// C++11: included by qlinear_matmul_plan.cpp only.
#ifndef AQO_TILING_CORE_QLINEAR_MATMUL_CUBE_DECODE_PLAN_H
#define AQO_TILING_CORE_QLINEAR_MATMUL_CUBE_DECODE_PLAN_H

#include <cstdint>

#include "qlinear_matmul_plan.h"

namespace aqo {

// A chunk of b (rows x group columns) is about this many bytes: a DMA that long is far past its set-up, and four
// chunk slots (two read, two turned) leave UB for C and the epilogue.
constexpr uint32_t kQmmCubeDecodeChunkBytes = 32768;
// b rows of a chunk at most (narrow groups): the turn's instructions are per 32 rows whatever the chunk.
constexpr uint32_t kQmmCubeDecodeMaxChunkK = 512;

// Whether the request takes the cube decode path on the SoC.
bool QmmCubeDecodeApplies(const QLinearMatMulRequest& r, const SocSpec& soc, const QLinearMatMulTiling& t);

// Turns the cube plan's tiling (already in plan->tiling) into the cube decode path's: the split, L1 / L0 use, the UB
// buffers, tiling key 2. False with a violation when the buffers do not fit.
bool PlanQmmCubeDecode(const QLinearMatMulRequest& r, const SocSpec& soc, QLinearMatMulPlan* plan,
                       ConstraintViolation* v);

// The explanation of a cube decode plan (used cores, work ranges, UB buffers, GM ranges, notes).
void ExplainQmmCubeDecode(const QLinearMatMulRequest& r, const SocSpec& soc, QLinearMatMulPlan* plan);

}  // namespace aqo

#endif  // AQO_TILING_CORE_QLINEAR_MATMUL_CUBE_DECODE_PLAN_H
