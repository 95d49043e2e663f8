// AqoQLinearMatMul's cube decode path on ascend310p (tiling key 2; the plan: op_host/tiling_core/
// qlinear_matmul_cube_decode_plan.h): a short a (M <= 16) against an int8 b (or a uint8 b with a uint8 a) stored
// [K, N] or transposed [N, K], on the AI core's own cube pipeline, without the Matmul API (which copies an int8 B
// through UB one DMA per tile row and turns it 8 columns at a time, or a transposed one in short bursts).
//
//   * a goes to L1 once, in the fractal order of L0A, padded to whole 16-row blocks: its M rows, then a row of ones
//     when a's zero point is not 0 (C's row M is then b's column sums CB; cdRowsA rows), then zeros. Its row sums RA
//     come from the vector unit while a is in UB (float32 sums of at most a piece's 4096 values of at most 255: exact
//     integers in any order).
//   * a core owns a contiguous range of y's 32-column units, in groups of at most cdGroup columns. Per group, b's
//     columns stream in chunks of cdChunkK rows, double buffered: one DMA (a burst per row) into UB; per 32 rows four
//     TransDataTo5HD whose iterations are the chunk's 32-column groups (the turned chunk holds each column's 32 K
//     values in one block: L0B's layout); one copy to L1; per 32 rows a LoadData into an L0B half and an
//     accumulating Mmad against a's fractals in L0A (a loaded in pieces of K as long as L0A holds). b stored [N, K]
//     (TRANS): a chunk is cdChunkK K values of 16 columns (a burst per column), put in L0B's layout by an Or gather
//     of its blocks, one LoadData and one Mmad into those columns' fractals of C.
//   * C leaves L0C in its fractal order (the L0C -> UB copy), becomes int32 rows (one UB -> UB copy per row: 64 bytes
//     of each fractal), then acc = P - zb (RA - K za) - za CB (QmmZeroPoints::Correct, exact modulo 2^32), float32,
//     the requantization epilogue and the copy-out, rowsPerChunk rows at a time.
//
// Every hand-over between pipes is a flag: the chunk slots' as in the classic double-buffered sample, the rest
// (a's staging, the group boundaries, where the work region changes hands) as one-off flag pairs.
//
// No include guard (see aqo_kernel_common.h). Compiled for ascend310p only (its AI cores have the vector unit, L1,
// L0 and the cube in one core). Needs aqo_qmm_common.h, aqo_qmm_zero_point.h, aqo_qmm_cube_stage.h (QmmCall),
// aqo_qmm_requant_epilogue.h, aqo_qmm_copy_out.h.

// K rows an L0B load and an Mmad take (one fractal's 32 int8 values), and an 8-bit fractal's bytes (16 x 32).
constexpr uint32_t kQmmCdKStep = aqo_qmm_layout::kCdKStep;
constexpr uint32_t kQmmCdFractal = 512;
// Chunk slots of b (read, turned, in L1) and L0B halves: the next one fills while this one is used.
constexpr uint32_t kQmmCdSlots = 2;
// Rows of a at most (the plan's limit).
constexpr uint32_t kQmmCdMaxRows = aqo_qmm_layout::kCdMaxRows;

// b's rows [K, N] turned into L0B's layout (shared with the cube GEMM path): per 32 rows of `in` (rows x cols, cols a
// multiple of 32), block c of `turned` holds column c's 32 K values (16 columns a fractal). Four TransDataTo5HD per
// 32 rows (16 rows x 16 columns of 8-bit values each: the rows' low / high half, the columns' low / high half), the
// chunk's 32-column groups their iterations. An 8-bit turn writes whole destination blocks (the half it does not fill
// too): the instructions filling the blocks' low halves (the rows' low 16) all go first, one barrier, then the rest.
template <class BT>
__aicore__ inline void QmmTurnChunk(const LocalTensor<BT>& turned, const LocalTensor<BT>& in, uint32_t rows,
                                    uint32_t cols)
{
    TransDataTo5HDParams p;
    p.repeatTimes = static_cast<uint8_t>(cols / 32);
    p.srcRepStride = p.repeatTimes > 1 ? 1 : 0;   // the next 32 columns of the rows
    p.dstRepStride = p.repeatTimes > 1 ? 32 : 0;  // the next 32 columns' blocks
    for (uint32_t rowsHigh = 0; rowsHigh < 2; ++rowsHigh) {
        if (rowsHigh != 0) {
            PipeBarrier<PIPE_V>();
        }
        p.dstHighHalf = rowsHigh != 0;
        for (uint32_t r = 0; r < rows; r += aqo_qmm_layout::kCdKStep) {
            for (uint32_t colsHigh = 0; colsHigh < 2; ++colsHigh) {
                p.srcHighHalf = colsHigh != 0;
                uint64_t dst[16], src[16];
                for (uint32_t j = 0; j < 16; ++j) {
                    src[j] = reinterpret_cast<uint64_t>(in[(r + j + rowsHigh * 16) * cols].GetPhyAddr());
                    dst[j] = reinterpret_cast<uint64_t>(turned[r * cols + (j + colsHigh * 16) * 32].GetPhyAddr());
                }
                TransDataTo5HD<BT>(dst, src, p);
            }
        }
    }
}

// b stored transposed, [N, K] (shared with the cube GEMM path): `in` holds 16 columns' `rows` K values each (a row a
// column); `turned` gets them in L0B's layout, a fractal (16 columns x 32 K values) per 32 K values. The columns' K
// values are rows already: per 8 columns one Or of them with themselves over uint16, whose 8 blocks are the columns'
// block of 32 K values (source block stride: a column) and whose iterations are those blocks.
template <class BT>
__aicore__ inline void QmmGatherTransChunk(const LocalTensor<BT>& turned, const LocalTensor<BT>& in, uint32_t rows)
{
    const LocalTensor<uint16_t> in16 = in.template ReinterpretCast<uint16_t>();
    const LocalTensor<uint16_t> out16 = turned.template ReinterpretCast<uint16_t>();
    const uint8_t blocks = static_cast<uint8_t>(rows / 32);
    const BinaryRepeatParams gather(1, blocks, blocks, static_cast<uint8_t>(aqo_qmm_layout::kCdTransCols), 1, 1);
    for (uint32_t h = 0; h < aqo_qmm_layout::kCdTransCols / 8; ++h) {
        const LocalTensor<uint16_t> src = in16[h * 8 * rows / 2];
        Or(out16[h * 8 * 16], src, src, 128, blocks, gather);
    }
}

// An Mmad, followed by PipeBarrier<PIPE_M> where its C is fewer than 10 fractals ((m / 16) x (n / 16) < 10), as CANN
// 8.1's Matmul API does after every such Mmad ("add pipe_M required by aicore", stage/compute/mmad_compute.h; no page
// says why). Both 310p cube paths' Mmads go through it (the emulator refuses an M instruction or flag after a small
// Mmad without the barrier).
template <class CT, class AT, class BT>
__aicore__ inline void QmmMmad(const LocalTensor<CT>& c, const LocalTensor<AT>& a, const LocalTensor<BT>& b,
                               const MmadParams& p)
{
    Mmad(c, a, b, p);
    if ((p.m / 16) * (p.n / 16) < 10) {
        PipeBarrier<PIPE_M>();
    }
}

// TRANS: b stored transposed, [N, K] (nn.Linear's weight layout): a chunk is the K values of 16 columns (a burst of
// up to 2 KiB per column), put in L0B's layout by the same Or gather as a (no turn), one Mmad of n = 16 and k = the
// chunk's rows.
template <class TD, class AT, class BT, class YT, bool TRANS>
class KernelQLinearMatMulCubeDecode310p {
public:
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                                GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, const TD& t, TPipe* pipe)
    {
        t_ = &t;
        pipe_ = pipe;
        aGm_.SetGlobalBuffer(reinterpret_cast<__gm__ AT*>(a), static_cast<uint64_t>(t.m) * t.k);
        bGm_.SetGlobalBuffer(reinterpret_cast<__gm__ BT*>(b), static_cast<uint64_t>(t.k) * t.n);
        // UB in the plan's order (its explanation lists the same buffers).
        zp_.Init(aZp, bZp, t, pipe);
        epi_.Init(aScale, bScale, yScale, yZp, t, pipe);
        out_.Init(y, static_cast<uint64_t>(t.m) * t.n, t.n, t.cStride, pipe);
        pipe->InitBuffer(work_, t.ubCdWork);
        pipe->InitBuffer(stage_, t.ubCdStage);
        pipe->InitBuffer(rowTermsBuf_, t.ubCdRowTerms);
        pipe->InitBuffer(tmpBuf_, t.ubCdTmp);
        // L1 and L0 for the planned rows of a (with the ones row): a whole (its pieces one after the other), two chunk
        // slots of b, two L0B halves, C.
        const uint32_t chunkBytes = aqo_qmm_layout::CdChunkBytes(t.cdChunkK, t.cdGroup, TRANS);
        pipe->InitBuffer(aL1_, (t.k + t.cdPieceK - 1) / t.cdPieceK * t.cdRowsA * t.cdPieceK);
        pipe->InitBuffer(aL0_, t.cdRowsA * t.cdPieceK);
        pipe->InitBuffer(cL0_, t.cdRowsA * t.cdGroup * static_cast<uint32_t>(sizeof(int32_t)));
        for (uint32_t s = 0; s < kQmmCdSlots; ++s) {
            pipe->InitBuffer(bL1_[s], chunkBytes);
            pipe->InitBuffer(bL0_[s], aqo_qmm_layout::CdL0BHalf(t.cdChunkK, t.cdGroup, TRANS));
            loaded_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE2_V>());
            inFree_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::V_MTE2>());
            turnedReady_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::V_MTE3>());
            turnedFree_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE3_V>());
            inL1_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE3_MTE1>());
            l1Free_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE1_MTE3>());
            inL0_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE1_M>());
            l0Free_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::M_MTE1>());
        }
        earlySlot0_ = t.ubCdWork >= aqo_qmm_layout::CdEarlySlot0(t.cdRowsA, t.cdPieceK, chunkBytes) + chunkBytes;
        rowTerms_ = rowTermsBuf_.Get<int32_t>();
        tmp_ = tmpBuf_.Get<int32_t>();
        stageIn_ = stage_.Get<uint8_t>();
        stageHalf_ = stage_.Get<uint8_t>()[t.cdGroup].template ReinterpretCast<half>();
        stageWork_ = stage_.Get<uint8_t>()[3 * t.cdGroup].template ReinterpretCast<half>();
        // This core's columns: a contiguous range of the 32-column units.
        const uint32_t core = static_cast<uint32_t>(GetBlockIdx());
        uint32_t u0 = 0, u1 = 0;
        aqo_qmm_layout::CdCoreUnits(static_cast<uint32_t>(t.unitCount), t.usedCores, core, &u0, &u1);
        col0_ = u0 * 32;
        col1_ = u1 * 32;
    }

    __aicore__ inline void Process()
    {
        if (col1_ <= col0_) {
            return;
        }
        const TD& t = *t_;
        zp_.DecideColumnSums(stageIn_, stageHalf_, stageWork_);  // the rest of the decisions under a's first DMAs
        // Without b's column sums a needs no ones row: for M = 16 one row block instead of two (half the cube's work,
        // K pieces twice as long in the same L0A bytes).
        rowsA_ = zp_.NeedColumnSums() ? t.cdRowsA : (t.m + 15) / 16 * 16;
        rowBlocks_ = rowsA_ / 16;
        pieceK_ = QmmMin(t.cdRowsA * t.cdPieceK / rowsA_ / kQmmCdKStep * kQmmCdKStep, t.k);
        pieces_ = (t.k + pieceK_ - 1) / pieceK_;
        // A transposed chunk is one Mmad against a's fractals of its K rows: with two row blocks those are the whole
        // piece (a's fractals row block by row block there), so a chunk is never longer than a piece.
        chunkK_ = TRANS ? QmmMin(t.cdChunkK, pieceK_) : t.cdChunkK;
        LoadA();
        for (uint32_t n0 = col0_, g = 0; n0 < col1_; n0 += t.cdGroup, ++g) {
            const uint32_t cols = QmmMin(t.cdGroup, col1_ - n0);
            Stream(g, n0, cols);
            Epilogue(n0, cols);
        }
    }

private:
    // a to L1 piece by piece through UB (the work region): its M rows by DMA, the ones row and the zero rows by the
    // vector unit, the row sums, L0A's fractal order by the vector unit, one copy to L1. Then the row terms of the
    // zero-point correction. The decisions on b's zero points (row sums) and a's zero points per row are taken after
    // the first piece's DMAs are issued: per-tensor zero points' scalar GM reads then run under them.
    __aicore__ inline void LoadA()
    {
        const TD& t = *t_;
        const uint32_t rowsA = rowsA_;
        uint32_t ra[kQmmCdMaxRows] = {};
        for (uint32_t p = 0; p < pieces_; ++p) {
            const uint32_t k0 = p * pieceK_;
            const uint32_t len = QmmMin(pieceK_, t.k - k0);
            LocalTensor<AT> stage = work_.Get<AT>();
            if (p > 0) {
                aqo_kernel::WaitPipe<HardEvent::MTE3_MTE2>(pipe_);  // the previous piece's copies to L1 read it
                aqo_kernel::WaitPipe<HardEvent::MTE3_V>(pipe_);
            }
            // Every core reads all of a: in groups of rows, each core starting at its own group, so that a group
            // comes from the DDR for one core and from the L2 cache for the others. A group is one burst where the
            // piece is all of K (a burst a row otherwise), where K slices would cost a burst a row each.
            const uint32_t groups = QmmMin(static_cast<uint32_t>(GetBlockNum()), t.m);
            for (uint32_t j = 0; j < groups; ++j) {
                const uint32_t gr = (static_cast<uint32_t>(GetBlockIdx()) + j) % groups;
                const uint32_t r0 = t.m * gr / groups, r1 = t.m * (gr + 1) / groups;
                const DataCopyParams whole(1, static_cast<uint16_t>((r1 - r0) * len / 32), 0, 0);
                const DataCopyParams rows(static_cast<uint16_t>(r1 - r0), static_cast<uint16_t>(len / 32),
                                          static_cast<uint16_t>((t.k - len) / 32), 0);
                DataCopy(stage[r0 * len], aGm_[static_cast<uint64_t>(r0) * t.k + k0], len == t.k ? whole : rows);
            }
            if (p == 0) {  // per-tensor zero points: their scalar reads while the DMAs run (per-row / per-column
                           // ones queue their own DMA behind a's and wait for it)
                zp_.DecideRowSums(stageIn_, stageHalf_, stageWork_, col0_, col1_);
                zp_.LoadRows(0, 0, t.m, stageIn_, stageHalf_);
            }
            LocalTensor<int16_t> pairs = work_.Get<int16_t>();
            if (rowsA > t.m) {
                Duplicate(pairs[t.m * len / 2], static_cast<int16_t>(0),
                          static_cast<int32_t>((rowsA - t.m) * len / 2));
            }
            if (zp_.NeedColumnSums()) {
                PipeBarrier<PIPE_V>();
                Duplicate(pairs[t.m * len / 2], static_cast<int16_t>(0x0101), static_cast<int32_t>(len / 2));
            }
            aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);
            if (zp_.NeedRowSums()) {
                RowSums(stage, len, ra);
            }
            // The fractal order by the vector unit (a copy per 32 bytes would cost the copy's set-up per 32 bytes):
            // per 8 rows one Or of the rows with themselves over uint16, whose 8 blocks are the rows' block q (source
            // block stride: a row) and whose iterations are q: the next fractal of the row block (TRANS: a's
            // fractals row block by row block, what an Mmad over the whole piece reads), or the next fractal column
            // (an Mmad per 32 K rows reads the row blocks' fractals of its column together).
            const LocalTensor<uint16_t> rows16 = work_.Get<uint16_t>();
            const LocalTensor<uint16_t> fractals =
                work_.Get<uint8_t>()[aqo_qmm_layout::CdAFractals(rowsA_, pieceK_)].template ReinterpretCast<uint16_t>();
            const uint8_t k1 = static_cast<uint8_t>(len / 32);
            const BinaryRepeatParams gather(1, k1, k1, static_cast<uint8_t>(TRANS ? 16 : rowBlocks_ * 16), 1, 1);
            const uint32_t blockAt = (TRANS ? k1 : 1u) * kQmmCdFractal / 2;  // a row block's first fractal (uint16)
            PipeBarrier<PIPE_V>();  // the zero and ones rows are written
            for (uint32_t r8 = 0; r8 < rowsA / 8; ++r8) {
                const LocalTensor<uint16_t> src = rows16[r8 * 8 * len / 2];
                Or(fractals[(r8 / 2) * blockAt + (r8 % 2) * 128], src, src, 128, k1, gather);
            }
            aqo_kernel::WaitPipe<HardEvent::V_MTE3>(pipe_);
            DataCopy(aL1_.Get<uint16_t>()[p * rowsA * pieceK_ / 2], fractals,
                     DataCopyParams(1, static_cast<uint16_t>(rowsA * len / 32), 0, 0));
        }
        aqo_kernel::WaitPipe<HardEvent::MTE3_MTE1>(pipe_);  // a in L1 before its first LoadData
        if (zp_.NeedCorrection()) {
            for (uint32_t i = 0; i < t.m; ++i) {
                int32_t negR = 0, negS = 0;
                zp_.RowTerms(static_cast<int32_t>(ra[i]), i, &negR, &negS);
                Duplicate(rowTerms_[i * kQmmRowTermInts], negR, static_cast<int32_t>(kQmmRowTermInts / 2));
                Duplicate(rowTerms_[i * kQmmRowTermInts + kQmmRowTermInts / 2], negS,
                          static_cast<int32_t>(kQmmRowTermInts / 2));
            }
        }
    }

    // ra[i] += the sum of row i of the piece (len values in the staging), in 32-bit wrap-around.
    __aicore__ inline void RowSums(const LocalTensor<AT>& stage, uint32_t len, uint32_t* ra)
    {
        const TD& t = *t_;
        const LocalTensor<uint8_t> w = work_.Get<uint8_t>();
        const LocalTensor<half> h = w[aqo_qmm_layout::CdRowSumHalf(rowsA_, pieceK_)].template
                                    ReinterpretCast<half>();
        const LocalTensor<float> f = w[aqo_qmm_layout::CdRowSumFloat(rowsA_, pieceK_)].template
                                     ReinterpretCast<float>();
        const LocalTensor<float> work = w[aqo_qmm_layout::CdRowSumWork(rowsA_, pieceK_)].template
                                        ReinterpretCast<float>();
        const LocalTensor<float> sums = w[aqo_qmm_layout::CdRowSumBlocks(rowsA_, pieceK_)].template
                                        ReinterpretCast<float>();
        for (uint32_t i = 0; i < t.m; ++i) {
            PipeBarrier<PIPE_V>();  // h and f may still be read by the previous row's instructions
            Cast(h, stage[i * len], RoundMode::CAST_NONE, len);
            PipeBarrier<PIPE_V>();
            Cast(f, h, RoundMode::CAST_NONE, len);
            PipeBarrier<PIPE_V>();
            ReduceSum(sums[i * 8], f, work, static_cast<int32_t>(len));
        }
        aqo_kernel::WaitPipe<HardEvent::V_S>(pipe_);
        for (uint32_t i = 0; i < t.m; ++i) {
            ra[i] += static_cast<uint32_t>(static_cast<int32_t>(sums.GetValue(i * 8)));
        }
    }

    // C = a' b[:, n0 : n0 + cols] into L0C: the group's chunks, double buffered, as the classic sample's stages.
    __aicore__ inline void Stream(uint32_t g, uint32_t n0, uint32_t cols)
    {
        const TD& t = *t_;
        // The work region changes hands: the previous group's C rows (read by V, and by MTE3 where a UB copy runs
        // there) or a's staging (read by V) and fractals (read by MTE3) become chunk slots (written by MTE2 and V);
        // L0C was read by V. With slot 0 past a's staging and fractals (and no row sums over it) the first chunk's
        // DMA goes first, straight behind a's, and the hand-over waits before the second chunk's.
        const bool early = earlySlot0_ && g == 0 && !zp_.NeedRowSums();
        if (!early) {
            aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);
            aqo_kernel::WaitPipe<HardEvent::MTE3_MTE2>(pipe_);
        }
        if (g > 0) {
            aqo_kernel::WaitPipe<HardEvent::V_M>(pipe_);
        }
        n0_ = n0;
        cols_ = cols;
        loads_ = 0;
        const uint32_t chunks = ChunkCount();
        CopyIn(0);
        if (early) {
            // slot 1 over a's staging (implied by the MTE3 wait, MTE3 having waited for the gather: kept explicit)
            aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);
            aqo_kernel::WaitPipe<HardEvent::MTE3_MTE2>(pipe_);
            aqo_kernel::WaitPipe<HardEvent::MTE3_V>(pipe_);   // the turned slots over a's fractals
        }
        for (uint32_t i = 0; i < chunks; ++i) {
            if (i + 1 < chunks) {
                CopyIn(i + 1);
            }
            Turn(i);
            ToL1(i);
            Compute(g, i);
        }
        for (uint32_t s = 0; s < kQmmCdSlots && s < chunks; ++s) {  // the slots' last hand-backs
            WaitFlag<HardEvent::V_MTE2>(inFree_[s]);
            WaitFlag<HardEvent::MTE3_V>(turnedFree_[s]);
            WaitFlag<HardEvent::MTE1_MTE3>(l1Free_[s]);
        }
        for (uint32_t s = 0; s < kQmmCdSlots && s < loads_; ++s) {
            WaitFlag<HardEvent::M_MTE1>(l0Free_[s]);
        }
    }

    // A chunk of the group: its piece of K, its 16 columns (TRANS: slab 0, 1, ... of the group; else all columns), its
    // first K row and its rows.
    struct Chunk {
        uint32_t piece, slab, k0, rows;
    };
    // Chunks of a piece a slab: the piece in chunks of chunkK_ rows, its last one shorter.
    __aicore__ inline uint32_t PieceChunks(uint32_t piece) const
    {
        const uint32_t len = QmmMin(pieceK_, t_->k - piece * pieceK_);
        return (len + chunkK_ - 1) / chunkK_;
    }
    __aicore__ inline uint32_t Slabs() const { return TRANS ? cols_ / aqo_qmm_layout::kCdTransCols : 1u; }
    // The group's chunks: piece by piece, in each piece slab by slab (TRANS), in each slab its chunks.
    __aicore__ inline uint32_t ChunkCount() const
    {
        return ((pieces_ - 1) * PieceChunks(0) + PieceChunks(pieces_ - 1)) * Slabs();
    }
    __aicore__ inline Chunk ChunkAt(uint32_t i) const
    {
        const uint32_t perFull = PieceChunks(0) * Slabs();
        Chunk c;
        c.piece = QmmMin(i / perFull, pieces_ - 1);
        const uint32_t local = i - c.piece * perFull, per = PieceChunks(c.piece);
        c.slab = local / per;
        c.k0 = c.piece * pieceK_ + (local % per) * chunkK_;
        c.rows = QmmMin(chunkK_, QmmMin((c.piece + 1) * pieceK_, t_->k) - c.k0);
        return c;
    }
    // The chunk's bytes in UB and L1: its rows of the group's columns, or (TRANS) its K values of 16 columns.
    __aicore__ inline uint32_t ChunkBytes(const Chunk& c) const
    {
        return c.rows * (TRANS ? aqo_qmm_layout::kCdTransCols : cols_);
    }

    __aicore__ inline void CopyIn(uint32_t i)
    {
        const TD& t = *t_;
        const uint32_t s = i % kQmmCdSlots;
        const Chunk c = ChunkAt(i);
        if (i >= kQmmCdSlots) {
            WaitFlag<HardEvent::V_MTE2>(inFree_[s]);
        }
        if constexpr (TRANS) {
            // b stored [N, K]: 16 rows of it (the slab's columns), the chunk's K values of each (one burst a column)
            const uint32_t col = n0_ + c.slab * aqo_qmm_layout::kCdTransCols;
            const DataCopyParams prm(static_cast<uint16_t>(aqo_qmm_layout::kCdTransCols),
                                     static_cast<uint16_t>(c.rows / 32), static_cast<uint16_t>((t.k - c.rows) / 32), 0);
            DataCopy(InSlot(s), bGm_[static_cast<uint64_t>(col) * t.k + c.k0], prm);
        } else {
            const DataCopyParams prm(static_cast<uint16_t>(c.rows), static_cast<uint16_t>(cols_ / 32),
                                     static_cast<uint16_t>((t.n - cols_) / 32), 0);
            DataCopy(InSlot(s), bGm_[static_cast<uint64_t>(c.k0) * t.n + n0_], prm);
        }
        SetFlag<HardEvent::MTE2_V>(loaded_[s]);
    }

    // The chunk in L0B's layout: per 32 K rows, block c holds column c's 32 K values (16 columns a fractal).
    // [K, N]: turned by TransDataTo5HD (QmmTurnChunk).
    // TRANS: the columns' K values are rows already; per 8 columns one Or of them with themselves over uint16 whose 8
    // blocks are the columns' block of 32 K rows (source block stride: a column) and whose iterations are those blocks.
    __aicore__ inline void Turn(uint32_t i)
    {
        const uint32_t s = i % kQmmCdSlots;
        const Chunk c = ChunkAt(i);
        WaitFlag<HardEvent::MTE2_V>(loaded_[s]);
        if (i >= kQmmCdSlots) {
            WaitFlag<HardEvent::MTE3_V>(turnedFree_[s]);
        }
        const LocalTensor<BT> in = InSlot(s);
        const LocalTensor<BT> turned = TurnedSlot(s);
        if constexpr (TRANS) {
            QmmGatherTransChunk(turned, in, c.rows);
        } else {
            QmmTurnChunk(turned, in, c.rows, cols_);
        }
        SetFlag<HardEvent::V_MTE2>(inFree_[s]);
        SetFlag<HardEvent::V_MTE3>(turnedReady_[s]);
    }

    __aicore__ inline void ToL1(uint32_t i)
    {
        const uint32_t s = i % kQmmCdSlots;
        const Chunk c = ChunkAt(i);
        WaitFlag<HardEvent::V_MTE3>(turnedReady_[s]);
        if (i >= kQmmCdSlots) {
            WaitFlag<HardEvent::MTE1_MTE3>(l1Free_[s]);
        }
        DataCopy(bL1_[s].template Get<BT>(), TurnedSlot(s),
                 DataCopyParams(1, static_cast<uint16_t>(ChunkBytes(c) / 32), 0, 0));
        SetFlag<HardEvent::MTE3_V>(turnedFree_[s]);
        SetFlag<HardEvent::MTE3_MTE1>(inL1_[s]);
    }

    // a's piece into L0A where the chunk starts one (every group when a has several pieces, the first group
    // otherwise); then per 32 rows of the chunk a LoadData into an L0B half and an Mmad accumulating into C (TRANS:
    // one of each for the chunk, into its slab's fractals of C).
    __aicore__ inline void Compute(uint32_t g, uint32_t i)
    {
        const TD& t = *t_;
        const uint32_t s = i % kQmmCdSlots;
        const Chunk c = ChunkAt(i);
        const uint32_t pieceK0 = c.piece * pieceK_;
        if (c.k0 == pieceK0 && c.slab == 0 && (pieces_ > 1 || g == 0)) {
            if (loads_ > 0 || g > 0) {
                aqo_kernel::WaitPipe<HardEvent::M_MTE1>(pipe_);  // the cube is done with the previous piece
            }
            const uint32_t len = QmmMin(pieceK_, t.k - pieceK0);
            LoadData(aL0_.Get<AT>(), aL1_.Get<AT>()[c.piece * rowsA_ * pieceK_],
                     LoadData2DParams(0, static_cast<uint8_t>(len / kQmmCdKStep * rowBlocks_), 1, 0, 0, false, 0));
            aqo_kernel::WaitPipe<HardEvent::MTE1_M>(pipe_);
        }
        WaitFlag<HardEvent::MTE3_MTE1>(inL1_[s]);
        const uint32_t step = TRANS ? c.rows : kQmmCdKStep;  // K rows an Mmad takes
        const uint32_t n = TRANS ? aqo_qmm_layout::kCdTransCols : cols_;
        // TRANS: the slab's 16 columns are fractal column `slab` of C (rowBlocks fractals of 256 int32 each)
        const uint32_t cAt = TRANS ? c.slab * rowBlocks_ * 256 : 0u;
        for (uint32_t r = 0; r < c.rows; r += step, ++loads_) {
            const uint32_t h = loads_ % kQmmCdSlots;
            if (loads_ >= kQmmCdSlots) {
                WaitFlag<HardEvent::M_MTE1>(l0Free_[h]);
            }
            LoadData(bL0_[h].template Get<BT>(), bL1_[s].template Get<BT>()[r * n],
                     LoadData2DParams(0, static_cast<uint8_t>(step / kQmmCdKStep * n / 16), 1, 0, 0, false, 0));
            if (r + step >= c.rows) {
                SetFlag<HardEvent::MTE1_MTE3>(l1Free_[s]);
            }
            SetFlag<HardEvent::MTE1_M>(inL0_[h]);
            WaitFlag<HardEvent::MTE1_M>(inL0_[h]);
            // (No barrier after the previous accumulation into the same L0C: the cube pipe orders its Mmads, as the
            // Matmul API's K loop relies on; QmmMmad puts one after an Mmad of fewer than 10 fractals of C.)
            // a's fractals of these K rows: a fractal column per 32 rows (both row blocks' together), or TRANS the
            // piece's own (a chunk with two row blocks is the whole piece)
            const uint32_t aAt = ((c.k0 - pieceK0 + r) / kQmmCdKStep) * (TRANS ? 1u : rowBlocks_) * kQmmCdFractal;
            const bool first = TRANS ? c.k0 == 0 : loads_ == 0;  // C's first product of these columns
            const MmadParams mp(static_cast<uint16_t>(rowsA_), static_cast<uint16_t>(n), static_cast<uint16_t>(step),
                                0, false, first);
            QmmMmad(cL0_.Get<int32_t>()[cAt], aL0_.Get<AT>()[aAt], bL0_[h].template Get<BT>(), mp);
            SetFlag<HardEvent::M_MTE1>(l0Free_[h]);
        }
    }

    // The group's y: C from L0C to int32 rows, the zero-point terms, float32, the requantization, the copy-out.
    __aicore__ inline void Epilogue(uint32_t n0, uint32_t cols)
    {
        const TD& t = *t_;
        QmmCall c;
        c.rows = t.m;
        c.n0 = n0;
        c.cols = cols;
        zp_.LoadColumns(0, n0, cols, stageIn_, stageHalf_);
        epi_.LoadRows(c);
        epi_.LoadColumns(c, n0, cols);
        aqo_kernel::WaitPipe<HardEvent::M_V>(pipe_);  // the group's last Mmad
        const LocalTensor<int32_t> acc = work_.Get<int32_t>()[aqo_qmm_layout::CdCRows(t.cdGroup) / 4];
        // Row block 0 (y's rows and, for M < 16, the column sums' row); for M = 16 the column sums' row is row 0 of
        // row block 1.
        const uint32_t first = QmmMin(t.m + 1, 16);
        CopyC(0, acc, 0, first, cols);
        if (t.m == 16 && zp_.NeedColumnSums()) {
            CopyC(1, acc, 16, 1, cols);  // over the fractals the rows' copies have read (CopyC waits for them)
        }
        if (cols < t.cStride) {
            // A narrower group: the epilogue's steps run over whole rows of cStride columns; the columns past the
            // group's get 0 (their results are discarded, but the int32 steps must stay in range).
            for (uint32_t i = 0; i <= t.m; ++i) {
                Duplicate(acc[i * t.cStride + cols], 0, static_cast<int32_t>(t.cStride - cols));
            }
            PipeBarrier<PIPE_V>();
        }
        const LocalTensor<int32_t> cb = acc[t.m * t.cStride];
        for (uint32_t r0 = 0; r0 < t.m; r0 += t.rowsPerChunk) {
            const uint32_t rows = QmmMin(t.rowsPerChunk, t.m - r0);
            const LocalTensor<int32_t> chunk = acc[r0 * t.cStride];
            zp_.Correct(chunk, tmp_, rowTerms_, cb, r0, rows, cols);
            PipeBarrier<PIPE_V>();
            LocalTensor<float> f = QmmInt32ToFloat(chunk, tmp_.template ReinterpretCast<float>(), rows * t.cStride,
                                                   t.exactConvert != 0);
            LocalTensor<YT> y = epi_.Compute(f, tmp_.template ReinterpretCast<float>(), r0, rows, cols);
            out_.Rows(y, r0, rows, n0, cols);
            epi_.FreeY(y);
        }
    }

    // Rows [0, count) of C's row block `block` (the group's fractals, 16 x 16 int32 each) from L0C to UB, then as
    // int32 rows dst[row0 + i] (row stride cStride): one UB -> UB copy per row, 64 bytes of each fractal. Ordered for
    // either pipe a UB copy may run on (V or MTE3).
    __aicore__ inline void CopyC(uint32_t block, const LocalTensor<int32_t>& dst, uint32_t row0, uint32_t count,
                                 uint32_t cols)
    {
        const TD& t = *t_;
        const LocalTensor<int32_t> nz = work_.Get<int32_t>();
        DataCopyEnhancedParams e;
        e.blockMode = BlockMode::BLOCK_MODE_MATRIX;
        DataCopy(nz, cL0_.Get<int32_t>()[block * 256],
                 DataCopyParams(static_cast<uint16_t>(cols / 16), 1, static_cast<uint16_t>(rowBlocks_ - 1), 0), e);
        PipeBarrier<PIPE_V>();
        aqo_kernel::WaitPipe<HardEvent::V_MTE3>(pipe_);
        for (uint32_t i = 0; i < count; ++i) {
            DataCopy(dst[(row0 + i) * t.cStride], nz[i * 16],
                     DataCopyParams(static_cast<uint16_t>(cols / 16), 2, 30, 0));
        }
        PipeBarrier<PIPE_V>();
        aqo_kernel::WaitPipe<HardEvent::MTE3_V>(pipe_);
    }

    __aicore__ inline LocalTensor<BT> InSlot(uint32_t s)
    {
        const uint32_t chunk = aqo_qmm_layout::CdChunkBytes(t_->cdChunkK, t_->cdGroup, TRANS);
        return work_.Get<BT>()[s == 0 && earlySlot0_ ? aqo_qmm_layout::CdEarlySlot0(t_->cdRowsA, t_->cdPieceK, chunk)
                                                     : s * chunk];
    }
    __aicore__ inline LocalTensor<BT> TurnedSlot(uint32_t s)
    {
        return work_.Get<BT>()[(kQmmCdSlots + s) * aqo_qmm_layout::CdChunkBytes(t_->cdChunkK, t_->cdGroup, TRANS)];
    }

    const TD* t_ = nullptr;
    TPipe* pipe_ = nullptr;
    GlobalTensor<AT> aGm_;
    GlobalTensor<BT> bGm_;
    TBuf<TPosition::VECCALC> work_, stage_, rowTermsBuf_, tmpBuf_;
    TBuf<TPosition::A1> aL1_;
    TBuf<TPosition::B1> bL1_[kQmmCdSlots];
    TBuf<TPosition::A2> aL0_;
    TBuf<TPosition::B2> bL0_[kQmmCdSlots];
    TBuf<TPosition::CO1> cL0_;
    LocalTensor<int32_t> rowTerms_, tmp_;
    LocalTensor<uint8_t> stageIn_;
    LocalTensor<half> stageHalf_, stageWork_;
    uint32_t rowsA_ = 16, rowBlocks_ = 1;  // a's rows in L0A this launch (the ones row only where it is needed)
    uint32_t pieceK_ = 0, pieces_ = 1;     // its K pieces
    uint32_t chunkK_ = 0;                  // K rows of a chunk
    uint32_t col0_ = 0, col1_ = 0;  // this core's columns
    uint32_t n0_ = 0, cols_ = 0;    // the group being streamed
    uint32_t loads_ = 0;            // L0B loads (and Mmads) of the group so far
    bool earlySlot0_ = false;       // chunk slot 0 past a's staging and fractals (CdEarlySlot0)
    event_t loaded_[kQmmCdSlots] = {};
    event_t inFree_[kQmmCdSlots] = {};
    event_t turnedReady_[kQmmCdSlots] = {};
    event_t turnedFree_[kQmmCdSlots] = {};
    event_t inL1_[kQmmCdSlots] = {};
    event_t l1Free_[kQmmCdSlots] = {};
    event_t inL0_[kQmmCdSlots] = {};
    event_t l0Free_[kQmmCdSlots] = {};
    QmmZeroPoints<TD> zp_;
    QmmRequantEpilogue<TD, YT, false> epi_;
    QmmCopyOut<YT> out_;
};
