// The UB and workspace sizes the quantized matmuls' kernel stages (aqo_qmm_*.h) and their host plans (op_host/
// tiling_core/matmul_cube_plan.cpp, qlinear_matmul_vector_decode_plan.cpp) must agree on, defined once. Plain C++11
// with no AscendC dependency: the kernels include it (from aqo_qmm_common.h), the plans as
// "../../op_kernel/aqo_qmm_layout.h" (the CANN project keeps the two folders side by side, scripts/cann_project.py).
// No include guard, as the other aqo_qmm_*.h headers (the emulator's runners include each kernel once per SoC, in its
// own namespace). The functions both sides call at run time are AQO_QMM_LAYOUT_FN: __aicore__ inline in the kernels
// (aqo_qmm_common.h defines it before the include), inline on the host. A kernel translation unit (bisheng's device
// pass and the emulator's both define __CCE_AICORE__) that reaches this header another way fails to compile here,
// rather than on the device for the functions' missing __aicore__.
#ifndef AQO_QMM_LAYOUT_FN
#ifdef __CCE_AICORE__
#error "aqo_qmm_layout.h: a kernel includes it through aqo_qmm_common.h, which makes its functions __aicore__"
#endif
#define AQO_QMM_LAYOUT_FN inline
#endif

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
// float32 lanes (one 256-byte repeat, accumulating a chunk's values 64 at a time), the reduced sum's block and that
// sum broadcast over 8 blocks (Brcb's repeat), as float32 then int32 (the same bytes); then one block of ReduceSum's
// work.
constexpr unsigned kVdSumLanes = 64;
constexpr unsigned kVdSumRowBytes = kVdSumLanes * 4 + 32 + 256;
constexpr unsigned kVdSumWorkBytes = 32;

// The vector decode path's panels of a worker's rows of K (aqo_qmm_vector_decode.h), counted from the end: with
// DataCopyPad the last ones are short, kVdTailFirst rows, each one before it half as long again (5, 8, 12, 18, ...)
// while below kp rows; those before kp rows; the first one the rest. The last panel's vector work is what follows the
// stream's last byte, so a short one ends the sums sooner; each short panel's vector work still fits under the DMA of
// the next (a row of b's vector work takes about 2/3 of its DMA's time in the timeline model), and the shortest keeps
// its DMA longer than the GM round trip of the one before (with two panel buffers, a shorter DMA would leave MTE2
// idle: 5 of a decode step's rows of at least 1 KiB take longer than the model's 400 cycles). Without DataCopyPad the
// panels stay whole vdPanelK rows (a's chunks, whole panels, are whole 32-byte blocks of its rows there).
// Staggered workers (VdStaggered: every odd one) have one more short panel, kp / 2 rows before the others, so that
// their full panels lie half a panel off the even workers': a DMA's per-burst set-up holds only its own pipe, and
// workers in step would all set up at once and leave the GM idle meanwhile; half a panel apart, one half's set-up
// falls while the other half's bytes move (a core's MTE2 limit is twice a worker's share of the GM). Where kp < 10
// that panel is shorter than kVdTailFirst rows, an exception to the rule above: at most one DMA of a worker may then
// end before the round trip of the one before (measured: the launch is faster all the same).
constexpr unsigned kVdTailFirst = 5;
constexpr unsigned kVdTailMax = 12;  // short panels at most: 5 x 1.5^11 > 128 rows, the panel rows at most
constexpr unsigned kVdTailEnds = kVdTailMax + 1;  // ... and a staggered worker's one more

AQO_QMM_LAYOUT_FN bool VdStaggered(unsigned long long worker) { return worker % 2u == 1u; }

// Fills ends[q] (kVdTailEnds of them) with the rows of the last q + 1 short panels and returns their count.
AQO_QMM_LAYOUT_FN unsigned VdTailPanels(unsigned kp, bool pad, bool staggered, unsigned* ends)
{
    unsigned n = 0, rows = 0;
    for (unsigned r = kVdTailFirst; pad && r < kp && n < kVdTailMax; r += (r + 1) / 2) {
        rows += r;
        ends[n++] = rows;
    }
    if (staggered && n > 0) {  // (n > 0: kp > kVdTailFirst, so kp / 2 >= 3 rows)
        rows += kp / 2;
        ends[n++] = rows;
    }
    return n;
}

// The rows of the last q + 1 panels, given VdTailPanels' ends and count.
AQO_QMM_LAYOUT_FN unsigned VdRowsFromEnd(unsigned q, unsigned kp, const unsigned* ends, unsigned tail)
{
    return q < tail ? ends[q] : (tail == 0 ? 0u : ends[tail - 1]) + (q - tail + 1) * kp;
}

// The panels of `rows` rows of K.
AQO_QMM_LAYOUT_FN unsigned VdPanelCount(unsigned rows, unsigned kp, const unsigned* ends, unsigned tail)
{
    const unsigned short_rows = tail == 0 ? 0u : ends[tail - 1];
    if (rows > short_rows) {
        return tail + (rows - short_rows + kp - 1) / kp;
    }
    unsigned n = 0;
    while (n < tail && ends[n] < rows) {
        ++n;
    }
    return rows == 0 ? 0u : n + 1;
}

// The cube decode path's work region (aqo_qmm_cube_decode_310p.h, planned by qlinear_matmul_cube_decode_plan.cpp):
// one UB buffer used in turn by a's staging, the stream of b and C. Byte offsets:
//   a's staging: rows_a rows of a piece's K values (at most piece_k) at 0, the same in L0A's fractal order after
//     them; then a's row sums' scratch: one row in half, the same in float32, ReduceSum's work (one float per 256-byte
//     repeat, 32-byte rounded), a 32-byte sum block per row of a;
//   the stream: chunk slot s of b as read at s * chunk, as turned at (2 + s) * chunk (CdChunkBytes: chunk_k rows of
//     the group's columns; with b stored transposed [N, K], chunk_k K values of kCdTransCols columns); slot 0 as
//     read at CdEarlySlot0 instead where the region is that long;
//   C: 16 rows of the group's fractals as they leave L0C (int32) at 0, then the int32 rows of y's M rows and the
//     column sums' row after them.
AQO_QMM_LAYOUT_FN unsigned CdAlign32(unsigned v) { return (v + 31u) / 32u * 32u; }
// The 310p cube paths' split (decode and GEMM, plans and kernels): core `core` of `cores` owns the contiguous range
// [*begin, *end) of the `units` 32-column units of y, the ranges balanced to one unit.
AQO_QMM_LAYOUT_FN void CdCoreUnits(unsigned units, unsigned cores, unsigned core, unsigned* begin, unsigned* end)
{
    const unsigned q = units / cores, rem = units % cores;
    *begin = core * q + (core < rem ? core : rem);
    *end = *begin + q + (core < rem ? 1u : 0u);
}
// The columns of the widest core of that split (CdCoreUnits balances the units to one).
AQO_QMM_LAYOUT_FN unsigned CdWidestCoreCols(unsigned units, unsigned cores) { return (units + cores - 1) / cores * 32u; }
AQO_QMM_LAYOUT_FN unsigned CdAFractals(unsigned rows_a, unsigned piece_k) { return CdAlign32(rows_a * piece_k); }
AQO_QMM_LAYOUT_FN unsigned CdRowSumHalf(unsigned rows_a, unsigned piece_k)
{
    return CdAFractals(rows_a, piece_k) + CdAlign32(rows_a * piece_k);
}
AQO_QMM_LAYOUT_FN unsigned CdRowSumFloat(unsigned rows_a, unsigned piece_k)
{
    return CdRowSumHalf(rows_a, piece_k) + piece_k * 2u;
}
AQO_QMM_LAYOUT_FN unsigned CdRowSumWork(unsigned rows_a, unsigned piece_k)
{
    return CdRowSumFloat(rows_a, piece_k) + piece_k * 4u;
}
AQO_QMM_LAYOUT_FN unsigned CdRowSumBlocks(unsigned rows_a, unsigned piece_k)
{
    return CdRowSumWork(rows_a, piece_k) + CdAlign32((piece_k + 63u) / 64u * 4u);
}
AQO_QMM_LAYOUT_FN unsigned CdCRows(unsigned group) { return 16u * group * 4u; }
// Rows of a the cube decode path takes at most (with the ones row: two 16-row blocks of a in L0A), and the K rows one
// L0B load and one Mmad of a [K, N] chunk take (an 8-bit fractal's 32 values of K).
constexpr unsigned kCdMaxRows = 16;
constexpr unsigned kCdKStep = 32;
// A transposed b's chunk: the K values of one fractal's 16 columns (one Mmad of n = 16 and k = chunk_k).
constexpr unsigned kCdTransCols = 16;
AQO_QMM_LAYOUT_FN unsigned CdChunkBytes(unsigned chunk_k, unsigned group, bool b_trans)
{
    return chunk_k * (b_trans ? kCdTransCols : group);
}
// An L0B half: 32 rows of the group's columns, or a transposed chunk's fractals.
AQO_QMM_LAYOUT_FN unsigned CdL0BHalf(unsigned chunk_k, unsigned group, bool b_trans)
{
    return b_trans ? chunk_k * kCdTransCols : 32u * group;
}
// Where chunk slot 0 of b is read when the work region reaches CdEarlySlot0 + a chunk: past a's staging and its
// fractals (each at most rows_a x piece_k bytes, whichever rows the kernel decides on) and past the other slots, so
// that the stream's first DMA follows a's without waiting for a's gather and its copy to L1. Over the row sums'
// scratch: where a needs its row sums the first DMA still waits for the vector unit.
AQO_QMM_LAYOUT_FN unsigned CdEarlySlot0(unsigned rows_a, unsigned piece_k, unsigned chunk)
{
    const unsigned a = 2u * CdAlign32(rows_a * piece_k);
    return a > 4u * chunk ? a : 4u * chunk;
}
AQO_QMM_LAYOUT_FN unsigned CdWorkBytes(unsigned m, unsigned rows_a, unsigned piece_k, unsigned group, unsigned chunk_k,
                                       bool b_trans)
{
    const unsigned a = CdRowSumBlocks(rows_a, piece_k) + m * 32u;
    const unsigned stream = 4u * CdChunkBytes(chunk_k, group, b_trans);
    const unsigned c = CdCRows(group) + (m + 1u) * group * 4u;
    return a > stream ? (a > c ? a : c) : (stream > c ? stream : c);
}

// The cube GEMM path (aqo_qmm_cube_gemm_310p.h, planned by qlinear_matmul_cube_gemm_plan.cpp). Its work region is used
// in turn by a's pieces (8 rows x the pass's K: read at s * piece for s < 3; a row block's two pieces gathered into
// L0A's order in one gathered buffer of two pieces after them), a panel's chunks of b (read at s * chunk, turned at
// (2 + s) * chunk) and, once a launch, the block of a ones row for a part of K (16 rows x the part at 0, the same in
// L0A's order after them) and L0B's block of ones (a K step's fractals of 512 bytes of 1 at 0, where a's row sums need
// it). Its C region holds a slab's C as it leaves L0C (slab x panel int32, fractal order) at 0, then one epilogue
// chunk's rows as int32 rows of cStride (rowsPerChunk of them, taken from the fractals chunk by chunk), then b's column
// sums' row, then a's row sums as they leave L0C (slab rows of 16 equal int32).
// a's piece: half a row block (8 rows) x all of the pass's K: one DMA (one burst where the rows are whole rows of a,
// else a burst per row), one gather into its half of each of the row block's fractals; a row block's two pieces
// gathered, one copy into L1 (a burst per K step). A burst costs the DMA engine its set-up whatever its length: whole
// rows of a take one for 8 rows where parts of K took one per row.
// In L1 a slab lies K step by K step, in each step row block by row block (one LoadData a step for all of them).
constexpr unsigned kCgPieceRows = 8;
constexpr unsigned kCgRowBlock = 16;  // rows of an 8-bit fractal: a row block's two pieces
// a's rows a slab takes in L1 and L0A at most (four row blocks; the plan takes fewer where K leaves L1 no room), a's
// read slots in the work region, and the gathered buffer after them (a row block in L0A's order: the next row block's
// pieces are gathered once its copy to L1 is done).
constexpr unsigned kCgSlab = 64;
constexpr unsigned kCgReadSlots = 3;
constexpr unsigned kCgGatheredPieces = kCgRowBlock / kCgPieceRows;
// The kernel's ToRows reads a column fractal's rows of the slab as one block stride (slab x 64 bytes, in blocks): a
// uint8 field of its repeat parameters.
static_assert(kCgSlab * 64u / 32u <= 255u, "a slab's column fractal must fit ToRows' source block stride");
constexpr unsigned kCgKBlock = 32;     // K values of an 8-bit fractal row
// A pass's K at most: a piece's row (its K / 32 blocks) is its gathers' source block stride and their iterations,
// 8-bit fields of the Or's repeat parameters.
constexpr unsigned kCgMaxPassK = 255u * kCgKBlock;
// The ones row's block goes to L1 in parts of K of whole K steps, at most kCgMaxPartK values where a step is no longer
// (parts of equal whole steps, the last one shorter).
constexpr unsigned kCgMaxPartK = 2048;
AQO_QMM_LAYOUT_FN unsigned CgPartK(unsigned k, unsigned kstep)
{
    const unsigned most = kCgMaxPartK / kstep > 0 ? kCgMaxPartK / kstep : 1u;  // whole steps a part holds
    const unsigned steps = (k + kstep - 1) / kstep, parts = (steps + most - 1) / most;
    return (steps + parts - 1) / parts * kstep;
}
AQO_QMM_LAYOUT_FN unsigned CgChunkBytes(unsigned chunk_k, unsigned panel) { return chunk_k * panel; }
// K beyond what L1 holds beside the panel and the slabs: passes over a of kpart K values each (the last one the
// rest), whose int32 sums meet in the workspace (one pass: kpart = k).
AQO_QMM_LAYOUT_FN unsigned CgKPasses(unsigned k, unsigned kpart) { return (k + kpart - 1) / kpart; }
AQO_QMM_LAYOUT_FN unsigned CgLastPassK(unsigned k, unsigned kpart) { return k - (CgKPasses(k, kpart) - 1u) * kpart; }
// The passes' workspace: per core, M rows of cStride int32 (a chunk's rows one burst), the sums of the panel its
// passes are on (a core's panels go one after the other, each panel's passes before the next panel's, so each panel
// reuses the rows). A core's part: CgPassInts int32 from core x CgPassInts on; row r at r x cstride in it.
AQO_QMM_LAYOUT_FN unsigned long long CgPassInts(unsigned m, unsigned cstride)
{
    return static_cast<unsigned long long>(m) * cstride;
}
// A read slot of a's pieces: a piece of a full pass (the last pass is no longer).
AQO_QMM_LAYOUT_FN unsigned CgSlotBytes(unsigned kpart) { return kCgPieceRows * kpart; }
// The ones row's block of a part (its rows, then in L0A's order) and L0B's block of ones (a K step's fractals).
AQO_QMM_LAYOUT_FN unsigned CgOnesBytes(unsigned k, unsigned kstep)
{
    return 32u * CgPartK(k, kstep) > 16u * kstep ? 32u * CgPartK(k, kstep) : 16u * kstep;
}
AQO_QMM_LAYOUT_FN unsigned CgWorkBytes(unsigned k, unsigned kpart, unsigned kstep, unsigned chunk_k, unsigned panel)
{
    const unsigned a = (kCgReadSlots + kCgGatheredPieces) * CgSlotBytes(kpart);
    const unsigned b = 4u * CgChunkBytes(chunk_k, panel);
    const unsigned onesFull = CgOnesBytes(kpart, kstep), onesLast = CgOnesBytes(CgLastPassK(k, kpart), kstep);
    const unsigned ones = onesFull > onesLast ? onesFull : onesLast;
    const unsigned ab = a > b ? a : b;
    return ab > ones ? ab : ones;
}
AQO_QMM_LAYOUT_FN unsigned CgCFractals(unsigned slab, unsigned panel) { return slab * panel * 4u; }
AQO_QMM_LAYOUT_FN unsigned CgColumnSumsOffset(unsigned slab, unsigned panel, unsigned rows)
{
    return CgCFractals(slab, panel) + rows * panel * 4u;
}
AQO_QMM_LAYOUT_FN unsigned CgRaOffset(unsigned slab, unsigned panel, unsigned rows)
{
    return CgColumnSumsOffset(slab, panel, rows) + panel * 4u;
}
AQO_QMM_LAYOUT_FN unsigned CgCBytes(unsigned slab, unsigned panel, unsigned rows)
{
    return CgRaOffset(slab, panel, rows) + slab * 64u;
}
// L0B: two halves of a K step of the panel, and where a's row sums come from the cube (K step kstepRa) one K step of
// a fractal column of ones after them (its Mmad gives each row's sum of a in 16 equal columns of C).
AQO_QMM_LAYOUT_FN unsigned CgL0bBytes(unsigned kstep, unsigned kstepRa, unsigned panel)
{
    const unsigned plain = 2u * kstep * panel, ra = 2u * kstepRa * panel + 16u * kstepRa;
    return plain > ra ? plain : ra;
}
// The zero points' staging (their decisions, b's of a panel, a's of a slab): bytes, half, ReduceMax's work, each
// for the longer of a panel and a slab.
AQO_QMM_LAYOUT_FN unsigned CgStageUnit(unsigned panel, unsigned slab) { return panel > slab ? panel : slab; }

}  // namespace aqo_qmm_layout
