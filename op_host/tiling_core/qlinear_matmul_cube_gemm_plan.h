// QLinearMatMul's cube GEMM path on ascend310p (tiling key 3, op_kernel/aqo_qmm_cube_gemm_310p.h): a of more rows
// than the decode paths take against an int8 b (or a uint8 b with a uint8 a) stored [K, N] or transposed [N, K], on
// the AI cores' own cube pipeline.
//
// Why: 310p's Matmul API copies an int8 B through UB one DMA per tile row and turns it for every tile (4096^3: 6% of
// the cube's time). The cube reads both operands K-contiguous, so b [K, N] must be turned (TransDataTo5HD, four
// instructions per 32 rows whatever the width): turned for every C tile, that costs the scalar unit more than the
// cube's time for those rows at any tile L0C holds. Here b is turned once a panel and stays in L1 while a streams past
// it (scripts/whatif_310p_gemm.py measured the design through the timeline model before it was written).
//
// The split: y's columns in units of 32 (N / 32 units), a contiguous range per core (balanced to one unit), cut into
// panels of at most cgPanel columns. Per panel: b's K x panel columns read in chunks of cgChunkK rows (one DMA, a
// burst per row), turned, copied into the panel's place in L1 (L0B's layout for all of a pass's K); b stored [N, K]: chunks of
// cgChunkK K values of 16 columns (a burst per column), gathered instead of turned. Then a, slab by slab (cgSlab
// rows, whole 16-row blocks), in pieces of half a row block x the pass's K (one DMA: one burst of 8 whole rows of a
// in one pass, else a burst per row; a block gather into its half of the row block's fractals on the vector unit; a
// row block's two halves one copy into one of two slab buffers in L1, which hold a slab K step by K step); per
// cgKStep K values one LoadData into an L0A half, one of the panel's rows into an L0B half, one Mmad accumulating the
// slab's C in one of two L0C regions. A slab's C leaves L0C while the next slab is multiplied: int32 rows, the
// zero-point terms, the requantization epilogue and the copy-out, rowsPerChunk rows at a time. The scalar unit issues
// the next slab's reads and the previous slab's epilogue between the K steps, so that none of them waits behind the
// cube's queue.
//
// Zero points (decided at run time, as the cube stage's QmmZeroPoints): a's zero point needs b's column sums CB: each
// slab then takes 16 rows fewer of a, and its last row block is a row of ones and zeros (written to both slab buffers
// once); C's row there is CB. b's zero point needs a's row sums RA: L0B then keeps a K step of a fractal column of ones
// beside its two halves (so the K step is cgKStepRa, shorter), and each K step takes a second Mmad of the slab against
// it, whose 16 columns of C are each row's RA (the cube's exact int32 sums; a row's terms from them in one vector
// instruction for all rows). Then
//     acc = P - zb (RA - K za) - za CB                     (int32, exact modulo 2^32)
//
// K beyond what L1 holds beside two slabs (4096 at 128 columns): passes of cgKPart K values (QmmCubeGemmPassK), each
// against its own panel; between them each core's int32 sums of its panels (M rows of cStride) wait in its part of
// the workspace (aqo_qmm_layout.h CgPassInts), and the last pass requantizes. Only while those sums, zero-point terms
// included, stay below 2^31 (kQmmCubeGemmMaxTerm K): the vector unit adds them, and its int32 overflow is not
// documented.
//
// Exact: the cube's int32 sums never leave int32 (K times the largest product of the operand types stays below
// 2^31, checked here), the zero-point terms are the cube stage's.
//
// C++11: included by qlinear_matmul_plan.cpp only.
#ifndef AQO_TILING_CORE_QLINEAR_MATMUL_CUBE_GEMM_PLAN_H
#define AQO_TILING_CORE_QLINEAR_MATMUL_CUBE_GEMM_PLAN_H

#include <cstdint>

#include "qlinear_matmul_plan.h"

namespace aqo {

// Widest panel: 128 columns keep a 4096-long panel (512 KiB) beside two 64-row slabs of a (aqo_qmm_layout.h kCgSlab)
// in L1, and 256 of its rows in an L0B half. Narrowest panel: 64 columns (a core reads all of a once a panel, so each
// halving doubles those reads; a core's columns narrower than that take a 64-column panel, partly empty). Beyond
// K = 4096 the panel and the slabs keep their size and K goes in passes (QmmCubeGemmPassK): narrower panels and slabs
// that would hold all of K (96 / 64 columns, 48 / 32 rows up to 8192) kept the cube less busy than the passes' int32
// round trips through the workspace cost (int8 1024 x 8192 x 1024, emulator timeline: 503 us against 349 us).
constexpr uint32_t kQmmCubeGemmMaxPanel = 128;
constexpr uint32_t kQmmCubeGemmMinPanel = 64;
// The kernel's epilogue rows (cStride = the panel's columns) are a repeat stride of its Or gathers (in blocks, a
// uint8 field).
static_assert(kQmmCubeGemmMaxPanel * 4 / 32 <= 255, "a panel's int32 row must fit the gathers' repeat stride");
// Longest K step (an Mmad's k): as long as an L0A half holds of a slab and an L0B half of the panel (where a's row
// sums come from the cube, beside a K step of ones: cgKStepRa), at most this.
constexpr uint32_t kQmmCubeGemmMaxKStep = 512;
// A chunk of a panel's load is about this many bytes (as the decode path's).
constexpr uint32_t kQmmCubeGemmChunkBytes = 32768;

// Every int32 value the vector unit makes of a pass's sums, per K value at most (the path's bound is this times K below
// 2^31): the cube's a b (|a| |b| <= 255 x 255 for the cube's pairs); after the sums of the passes before are added,
// sums over K's values so far of (a - za)(b - zb); after b's zero-point term, of a (b - zb) + zb za = a b - zb (a - za)
// (at most 255 x 255 with 8-bit a, b, za, zb); the terms themselves, zb (RA - K za) and za CB, at most 255 x 255 a K
// value too.
constexpr uint64_t kQmmCubeGemmMaxTerm = 255ull * 255ull;

// K values a pass over a takes: all of K where L1 (`l1` bytes) holds K x the widest panel and two slabs of K x the
// tallest; beyond, passes of even length (multiples of kQmmCubeGemmPassAlign but the last), whose int32 sums meet in
// the workspace. 0: L1 holds no pass.
constexpr uint32_t kQmmCubeGemmPassAlign = 256;
uint64_t QmmCubeGemmPassK(uint64_t k, uint64_t l1);

// Whether the request takes the cube GEMM path on the SoC (checked after the decode paths).
bool QmmCubeGemmApplies(const QLinearMatMulRequest& r, const SocSpec& soc, const QLinearMatMulTiling& t);

// Turns the cube plan's tiling (already in plan->tiling) into the cube GEMM path's: the split, L1 / L0 use, the UB
// buffers, tiling key 3. False with a violation when the buffers do not fit.
bool PlanQmmCubeGemm(const QLinearMatMulRequest& r, const SocSpec& soc, QLinearMatMulPlan* plan,
                     ConstraintViolation* v);

// The explanation of a cube GEMM plan (used cores, work ranges, UB buffers, GM ranges, notes).
void ExplainQmmCubeGemm(const QLinearMatMulRequest& r, const SocSpec& soc, QLinearMatMulPlan* plan);

}  // namespace aqo

#endif  // AQO_TILING_CORE_QLINEAR_MATMUL_CUBE_GEMM_PLAN_H
