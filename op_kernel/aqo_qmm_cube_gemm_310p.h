// AqoQLinearMatMul's cube GEMM path on ascend310p (tiling key 3; the plan: op_host/tiling_core/
// qlinear_matmul_cube_gemm_plan.h): a of more rows than the decode paths take against an int8 b (or a uint8 b with
// a uint8 a) stored [K, N] or transposed [N, K], on the AI core's own cube pipeline, without the Matmul API (which
// copies an int8 B through UB one DMA per tile row and turns it for every tile).
//
//   * a core owns a contiguous range of y's 32-column units, in panels of at most cgPanel columns. A panel of b
//     (K x panel) is read in chunks of cgChunkK rows (one DMA, a burst per row), turned by TransDataTo5HD (four
//     instructions per 32 rows, the panel's 32-column groups their iterations) and copied to its place in L1: all of
//     its K rows in L0B's layout, kept while a streams past.
//   * a goes through in slabs of cgSlab rows (whole 16-row blocks) x all of K, in pieces of 8 rows (half a row
//     block) x the pass's K: one DMA (one burst where the rows are whole rows of a; each core from its own place in
//     the slab, so that a slab comes from the DDR once and from the L2 cache for the other cores), one block gather
//     into its half of the row block's fractals on the vector unit (an Or of the 8 rows with themselves over uint16,
//     whose 8 blocks are the rows' block q and whose iterations are q); once both halves are gathered, one copy of
//     the row block's fractals into one of two slab buffers in L1 (which hold a slab K step by K step, all its row
//     blocks' fractals of a step together).
//     Per cgKStep K values: one LoadData into an L0A half, one of the panel's rows into an L0B half, one Mmad
//     accumulating the slab's C in one of two L0C regions.
//   * a slab's C leaves L0C (the L0C -> UB copy, fractal order) and, rowsPerChunk rows at a time, becomes int32 rows
//     (two Or gathers on the vector unit), gets the zero-point terms (QmmZeroPoints::Correct), float32, the
//     requantization epilogue and the copy-out, while the next slab is multiplied: the scalar unit issues, between the
//     K steps of a slab, the previous slab's copy out of L0C, the next slab's loads, then the previous slab's chunks
//     (issued after all of the steps, they would wait behind the cube's queue; issued before the loads, their
//     copy-outs would hold the loads' copies to L1 behind them on MTE3).
//   * K beyond what L1 holds (a panel and two slabs of cgKPart K values): passes over a of cgKPart K values each (the
//     last the rest), each against its own panel of b. A pass's chunks get its zero-point terms (linear in K: each
//     pass takes its own K's) and, after the first pass, the sums the passes before left in this core's part of the
//     workspace; every pass but the last writes them back there, the last requantizes.
//   * a's zero point (b's column sums CB): each slab takes 16 rows fewer of a; its last row block is a row of ones
//     and zeros, written to both slab buffers once. b's zero point (a's row sums RA): L0B keeps a K step of a fractal
//     column of ones beside its two halves (written once a launch; the K step is then cgKStepRa), and each K step
//     takes a second Mmad of the slab against it into an L0C region of its own, whose 16 columns are each row's RA
//     (exact int32 sums of the cube); a slab's row terms -(RA - K za) are then one vector Sub (per-tensor za) or the
//     scalar unit's, row by row (per-row za).
//
// Every hand-over between pipes is a flag of a ring (the classic double-buffered sample's: two buffers; a's pieces
// three read slots and one gathered row block), or, where the work region or the panel's L1 changes hands between a
// panel's load and its slabs, a PipeBarrier<PIPE_ALL>.
//
// No include guard (see aqo_kernel_common.h). Compiled for ascend310p only. Needs aqo_qmm_common.h,
// aqo_qmm_zero_point.h, aqo_qmm_cube_stage.h (QmmCall), aqo_qmm_requant_epilogue.h, aqo_qmm_copy_out.h,
// aqo_qmm_cube_decode_310p.h (QmmTurnChunk, QmmGatherTransChunk, QmmMmad).

constexpr uint32_t kQmmCgFractal = 512;    // an 8-bit fractal: 16 rows x 32 bytes
constexpr uint32_t kQmmCgRing = 2;         // buffers of every ring (the next fills while this one is used)
// a's pieces: kCgReadSlots read slots and a gathered row block (the work region's), the DMAs two pieces ahead.
constexpr uint32_t kQmmCgReadSlots = aqo_qmm_layout::kCgReadSlots;
constexpr uint32_t kQmmCgReadAhead = kQmmCgReadSlots - 1;
constexpr uint32_t kQmmCgHalves = 2;       // the gathered row block's halves of K, each with its flags

// TRANS: b stored transposed, [N, K] (nn.Linear's weight layout): a chunk of a panel is cgChunkK K values of 16
// columns (a burst per column), put in L0B's layout by an Or gather of its blocks (no turn), copied to its column
// fractal of each K block.
template <class TD, class AT, class BT, class YT, bool TRANS>
class KernelQLinearMatMulCubeGemm310p {
public:
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                                GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& t, TPipe* pipe)
    {
        t_ = &t;
        pipe_ = pipe;
        aGm_.SetGlobalBuffer(reinterpret_cast<__gm__ AT*>(a), static_cast<uint64_t>(t.m) * t.k);
        bGm_.SetGlobalBuffer(reinterpret_cast<__gm__ BT*>(b), static_cast<uint64_t>(t.k) * t.n);
        // K in passes (cgKPart K values each, the last the rest): the int32 sums between them in this core's part of
        // the workspace (aqo_qmm_layout.h CgPassInts).
        passes_ = aqo_qmm_layout::CgKPasses(t.k, t.cgKPart);
        passInts_ = aqo_qmm_layout::CgPassInts(t.m, t.cStride);
        if (passes_ > 1) {
            wsGm_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(userWs), t.usedCores * passInts_);
        }
        // UB in the plan's order (its explanation lists the same buffers).
        zp_.Init(aZp, bZp, t, pipe);
        epi_.Init(aScale, bScale, yScale, yZp, t, pipe);
        out_.Init(y, static_cast<uint64_t>(t.m) * t.n, t.n, t.cStride, pipe);
        pipe->InitBuffer(work_, t.ubCgWork);
        pipe->InitBuffer(cBuf_, t.ubCgC);
        pipe->InitBuffer(stage_, t.ubCgStage);
        pipe->InitBuffer(rowTermsBuf_, t.ubCgRowTerms);
        pipe->InitBuffer(tmpBuf_, t.ubCgTmp);
        // L1: the panel (K x cgPanel) and two slab buffers (cgSlab x K); L0A: two halves of a K step; L0B: two halves
        // of a K step and, for a's row sums, a K step of ones after them (their places follow the K step, decided in
        // Process); L0C: two slabs' C and their row sums.
        pipe->InitBuffer(panelL1_, t.cgKPart * t.cgPanel);
        pipe->InitBuffer(aL1_[0], t.cgSlab * t.cgKPart);
        pipe->InitBuffer(aL1_[1], t.cgSlab * t.cgKPart);
        pipe->InitBuffer(bL0_, aqo_qmm_layout::CgL0bBytes(t.cgKStep, t.cgKStepRa, t.cgPanel));
        for (uint32_t s = 0; s < kQmmCgRing; ++s) {
            pipe->InitBuffer(aL0_[s], t.cgSlab * t.cgKStep);  // the longer step
            pipe->InitBuffer(cL0_[s], t.cgSlab * t.cgPanel * static_cast<uint32_t>(sizeof(int32_t)));
            pipe->InitBuffer(raL0_[s], t.cgSlab * 16u * static_cast<uint32_t>(sizeof(int32_t)));
            loaded_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE2_V>());
            inFree_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::V_MTE2>());
            turnedReady_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::V_MTE3>());
            turnedFree_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE3_V>());
            slabReady_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE3_MTE1>());
            slabFree_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE1_MTE3>());
            inL0_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE1_M>());
            l0Free_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::M_MTE1>());
            cDone_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::M_V>());
            cFree_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::V_M>());
        }
        for (uint32_t s = 0; s < kQmmCgReadSlots; ++s) {
            aLoaded_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE2_V>());
            aInFree_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::V_MTE2>());
        }
        for (uint32_t g = 0; g < kQmmCgHalves; ++g) {
            gReady_[g] = static_cast<event_t>(pipe->AllocEventID<HardEvent::V_MTE3>());
            gFree_[g] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE3_V>());
        }
        if (passes_ > 1) {
            passWritten_ = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE3_V>());
        }
        rowTerms_ = rowTermsBuf_.Get<int32_t>();
        tmp_ = tmpBuf_.Get<int32_t>();
        stageIn_ = stage_.Get<uint8_t>();
        const uint32_t unit = aqo_qmm_layout::CgStageUnit(t.cgPanel, t.cgSlab);
        stageHalf_ = stage_.Get<uint8_t>()[unit].template ReinterpretCast<half>();
        stageWork_ = stage_.Get<uint8_t>()[3 * unit].template ReinterpretCast<half>();
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
        zp_.DecideColumnSums(stageIn_, stageHalf_, stageWork_);
        zp_.DecideRowSums(stageIn_, stageHalf_, stageWork_, col0_, col1_);
        // With b's column sums a slab's last row block is the ones row's: 16 rows fewer of a. With a's row sums L0B
        // holds a K step of ones beside its halves: the shorter K step.
        rowsA_ = zp_.NeedColumnSums() ? t.cgSlab - 16 : t.cgSlab;
        slabs_ = (t.m + rowsA_ - 1) / rowsA_;
        onesColumn_ = zp_.NeedRowSums();
        kstep_ = onesColumn_ ? t.cgKStepRa : t.cgKStep;
        SetPass(0);
        if (zp_.NeedColumnSums()) {
            WriteOnesBlocks();
        }
        if (onesColumn_) {
            WriteOnesColumn();
        }
        ConstantRowTerms();
        LoadAllRowZeroPoints();
        if (t.exactConvert != 0) {
            QmmSplitMask(SplitMask());
            PipeBarrier<PIPE_V>();
        }
        for (uint32_t n0 = col0_, p = 0; n0 < col1_; n0 += t.cgPanel, ++p) {
            const uint32_t cols = QmmMin(t.cgPanel, col1_ - n0);
            for (uint32_t j = 0; j < passes_; ++j) {
                StartPass(j);
                LoadPanel(n0, cols);
                StreamSlabs(p * passes_ + j, n0, cols);
            }
        }
    }

private:
    // Pass j's K values (kBase_, kLen_ of them).
    __aicore__ inline void SetPass(uint32_t j)
    {
        pass_ = j;
        kBase_ = j * t_->cgKPart;
        kLen_ = QmmMin(t_->cgKPart, t_->k - kBase_);
    }
    __aicore__ inline bool LastPass() const { return pass_ + 1 == passes_; }

    // Before pass j's panel: where its length differs from the one the ones blocks and the per-tensor row terms were
    // made for (the last pass may be shorter), they are made again (the slab buffers, the work region and the row
    // terms are free: the previous pass has ended).
    __aicore__ inline void StartPass(uint32_t j)
    {
        const uint32_t was = kLen_;
        SetPass(j);
        if (kLen_ == was) {
            return;
        }
        PipeBarrier<PIPE_ALL>();
        if (zp_.NeedColumnSums()) {
            WriteOnesBlocks();
        }
        ConstantRowTerms();
    }

    // The last row block of both slab buffers: a row of ones (C's row there is b's column sums), 15 rows of zeros,
    // in L0A's order, through the work region: built once for a part of K (every part's fractals are the same,
    // a shorter last part their first ones), copied into every part's place.
    __aicore__ inline void WriteOnesBlocks()
    {
        const TD& t = *t_;
        const uint32_t partK = aqo_qmm_layout::CgPartK(kLen_, kstep_);
        const uint32_t kbs = partK / aqo_qmm_layout::kCgKBlock;
        const LocalTensor<int16_t> rows = work_.Get<int16_t>();
        Duplicate(rows, static_cast<int16_t>(0x0101), static_cast<int32_t>(partK / 2));
        Duplicate(rows[partK / 2], static_cast<int16_t>(0), static_cast<int32_t>(15 * partK / 2));
        PipeBarrier<PIPE_V>();
        const LocalTensor<uint16_t> rows16 = work_.Get<uint16_t>();
        const LocalTensor<uint16_t> fractals = work_.Get<uint8_t>()[16 * partK].template ReinterpretCast<uint16_t>();
        const uint8_t b = static_cast<uint8_t>(kbs);
        for (uint32_t h = 0; h < 2; ++h) {
            const LocalTensor<uint16_t> src = rows16[h * 8 * partK / 2];
            Or(fractals[h * 128], src, src, 128, b, BinaryRepeatParams(1, b, b, 16, 1, 1));
        }
        aqo_kernel::WaitPipe<HardEvent::V_MTE3>(pipe_);
        for (uint32_t k0 = 0; k0 < kLen_; k0 += partK) {
            const uint32_t len = QmmMin(partK, kLen_ - k0) / aqo_qmm_layout::kCgKBlock;
            for (uint32_t s = 0; s < kQmmCgRing; ++s) {
                CopyRowBlockToL1(s, t.cgSlab / 16 - 1, k0 / aqo_qmm_layout::kCgKBlock, len,
                                 fractals.template ReinterpretCast<AT>());
            }
        }
        PipeBarrier<PIPE_ALL>();  // the work region is the panel's next, the slab buffers MTE1's
    }

    // L0B's block of ones after its two halves: a K step's fractals of 512 bytes of 1 (every byte is 1, so its place
    // in a fractal does not matter), through the work region and the panel's place in L1 (before any panel is there).
    __aicore__ inline void WriteOnesColumn()
    {
        const uint32_t bytes = kstep_ * 16u;
        Duplicate(work_.Get<int16_t>(), static_cast<int16_t>(0x0101), static_cast<int32_t>(bytes / 2));
        aqo_kernel::WaitPipe<HardEvent::V_MTE3>(pipe_);
        DataCopy(panelL1_.Get<BT>(), work_.Get<BT>(), DataCopyParams(1, static_cast<uint16_t>(bytes / 32), 0, 0));
        aqo_kernel::WaitPipe<HardEvent::MTE3_MTE1>(pipe_);
        LoadData(OnesL0(), panelL1_.Get<BT>(),
                 LoadData2DParams(0, static_cast<uint8_t>(kstep_ / aqo_qmm_layout::kCgKBlock), 1, 0, 0, false, 0));
        PipeBarrier<PIPE_ALL>();  // the work region and the panel's L1 are the first panel's next
    }

    // L0B's half h of a K step of the panel, and its block of ones (after both halves).
    __aicore__ inline LocalTensor<BT> BL0(uint32_t h) { return bL0_.Get<BT>()[h * kstep_ * t_->cgPanel]; }
    __aicore__ inline LocalTensor<BT> OnesL0() { return bL0_.Get<BT>()[kQmmCgRing * kstep_ * t_->cgPanel]; }

    // The row terms that do not change from slab to slab, once: per-tensor za makes -za' every row's second term and
    // K za' the block RA is subtracted from (RowTermsOfSlab). Per-row za: slab by slab; the block after the slab's
    // terms is then zeros, what VectorRowTerms subtracts za' from.
    __aicore__ inline void ConstantRowTerms()
    {
        const TD& t = *t_;
        if (!zp_.NeedCorrection()) {
            return;
        }
        if (t.aZpKind == kQmmParamVector) {
            Duplicate(rowTerms_[t.cgSlab * kQmmRowTermInts], 0, static_cast<int32_t>(kQmmRowTermInts / 2));
            return;
        }
        int32_t kza = 0, negS = 0;
        zp_.LoadRows(0, 0, 0, stageIn_, stageHalf_);  // za' (per tensor: no rows read)
        zp_.RowTermsOver(kLen_, 0, 0, &kza, &negS);     // with RA = 0: -(0 - K za') and -za' (the pass's K)
        Duplicate(rowTerms_, negS, static_cast<int32_t>(t.cgSlab * kQmmRowTermInts));
        Duplicate(rowTerms_[t.cgSlab * kQmmRowTermInts], kza, static_cast<int32_t>(kQmmRowTermInts / 2));
    }

    // Per-row za' of all M rows at once where the plan's row buffer holds them (ubRowI32), through the zero points'
    // staging a piece at a time: no GM round trip a slab (RowTermsOfSlab).
    __aicore__ inline void LoadAllRowZeroPoints()
    {
        const TD& t = *t_;
        rowsAll_ = t.aZpKind == kQmmParamVector && zp_.NeedCorrection() &&
                   static_cast<uint64_t>(AlignUp32(t.m)) * sizeof(int32_t) <= t.ubRowI32;
        if (!rowsAll_) {
            return;
        }
        const uint32_t piece = aqo_qmm_layout::CgStageUnit(t.cgPanel, t.cgSlab) / 32 * 32;
        for (uint32_t m0 = 0; m0 < t.m; m0 += piece) {
            zp_.LoadRowsAt(0, m0, QmmMin(piece, t.m - m0), m0, stageIn_, stageHalf_);
        }
        aqo_kernel::WaitPipe<HardEvent::V_S>(pipe_);  // a scalar fallback of RowTermsOfSlab reads them
    }

    // ---------------------------------------------------------------------------------------------- b's panel
    // b's K x cols columns from n0 into L1 in L0B's layout: chunks of cgChunkK rows read, turned, copied, double
    // buffered (the work region's chunk slots).
    __aicore__ inline void LoadPanel(uint32_t n0, uint32_t cols)
    {
        const TD& t = *t_;
        PipeBarrier<PIPE_ALL>();  // the work region (a's pieces) and the panel's L1 (the previous panel's loads)
        n0_ = n0;
        cols_ = cols;
        const uint32_t chunks = KChunks() * (TRANS ? cols / aqo_qmm_layout::kCdTransCols : 1u);
        CopyInB(0);
        for (uint32_t i = 0; i < chunks; ++i) {
            if (i + 1 < chunks) {
                CopyInB(i + 1);
            }
            TurnB(i);
            ToL1B(i);
        }
        for (uint32_t s = 0; s < kQmmCgRing && s < chunks; ++s) {  // the slots' last hand-backs
            WaitFlag<HardEvent::V_MTE2>(inFree_[s]);
            WaitFlag<HardEvent::MTE3_V>(turnedFree_[s]);
        }
    }

    // Fractal columns of the panel in L1 / L0B.
    __aicore__ inline uint32_t PanelFractals() const { return cols_ / 16; }

    // Chunk i of the panel: its first K row and K rows, and (TRANS) its 16 columns' group g: the panel's column groups
    // one after the other, each in chunks along K.
    __aicore__ inline uint32_t KChunks() const { return (kLen_ + t_->cgChunkK - 1) / t_->cgChunkK; }
    __aicore__ inline uint32_t ChunkK0(uint32_t i) const { return (TRANS ? i % KChunks() : i) * t_->cgChunkK; }
    __aicore__ inline uint32_t ChunkRows(uint32_t i) const { return QmmMin(t_->cgChunkK, kLen_ - ChunkK0(i)); }
    __aicore__ inline uint32_t ChunkGroup(uint32_t i) const { return TRANS ? i / KChunks() : 0u; }
    __aicore__ inline LocalTensor<BT> ChunkSlot(uint32_t slot)
    {
        const uint32_t cols = TRANS ? aqo_qmm_layout::kCdTransCols : t_->cgPanel;
        return work_.Get<BT>()[slot * aqo_qmm_layout::CgChunkBytes(t_->cgChunkK, cols)];
    }

    __aicore__ inline void CopyInB(uint32_t i)
    {
        const TD& t = *t_;
        const uint32_t s = i % kQmmCgRing;
        if (i >= kQmmCgRing) {
            WaitFlag<HardEvent::V_MTE2>(inFree_[s]);
        }
        const uint32_t rows = ChunkRows(i), k0 = ChunkK0(i);
        if constexpr (TRANS) {
            // b stored [N, K]: 16 rows of it (the group's columns), the chunk's K values of each (a burst a column)
            const uint32_t col = n0_ + ChunkGroup(i) * aqo_qmm_layout::kCdTransCols;
            const DataCopyParams prm(static_cast<uint16_t>(aqo_qmm_layout::kCdTransCols),
                                     static_cast<uint16_t>(rows / 32), static_cast<uint16_t>((t.k - rows) / 32), 0);
            DataCopy(ChunkSlot(s), bGm_[static_cast<uint64_t>(col) * t.k + kBase_ + k0], prm);
        } else {
            const DataCopyParams prm(static_cast<uint16_t>(rows), static_cast<uint16_t>(cols_ / 32),
                                     static_cast<uint16_t>((t.n - cols_) / 32), 0);
            DataCopy(ChunkSlot(s), bGm_[static_cast<uint64_t>(kBase_ + k0) * t.n + n0_], prm);
        }
        SetFlag<HardEvent::MTE2_V>(loaded_[s]);
    }

    // The chunk in L0B's layout (the decode path's turn, or gather where b is stored [N, K]).
    __aicore__ inline void TurnB(uint32_t i)
    {
        const uint32_t s = i % kQmmCgRing;
        WaitFlag<HardEvent::MTE2_V>(loaded_[s]);
        if (i >= kQmmCgRing) {
            WaitFlag<HardEvent::MTE3_V>(turnedFree_[s]);
        }
        const LocalTensor<BT> in = ChunkSlot(s);
        const LocalTensor<BT> turned = ChunkSlot(kQmmCgRing + s);
        if constexpr (TRANS) {
            QmmGatherTransChunk(turned, in, ChunkRows(i));
        } else {
            QmmTurnChunk(turned, in, ChunkRows(i), cols_);
        }
        SetFlag<HardEvent::V_MTE2>(inFree_[s]);
        SetFlag<HardEvent::V_MTE3>(turnedReady_[s]);
    }

    __aicore__ inline void ToL1B(uint32_t i)
    {
        const TD& t = *t_;
        const uint32_t s = i % kQmmCgRing;
        WaitFlag<HardEvent::V_MTE3>(turnedReady_[s]);
        if constexpr (TRANS) {
            // the chunk's fractals are its column group's in consecutive K blocks: the panel's column fractals apart
            const uint32_t n1 = PanelFractals(), kb0 = ChunkK0(i) / aqo_qmm_layout::kCgKBlock;
            const uint16_t fb = static_cast<uint16_t>(kQmmCgFractal / 32);
            DataCopy(panelL1_.Get<BT>()[(kb0 * n1 + ChunkGroup(i)) * kQmmCgFractal], ChunkSlot(kQmmCgRing + s),
                     DataCopyParams(static_cast<uint16_t>(ChunkRows(i) / aqo_qmm_layout::kCgKBlock), fb, 0,
                                    static_cast<uint16_t>((n1 - 1) * fb)));
        } else {
            DataCopy(panelL1_.Get<BT>()[static_cast<uint64_t>(ChunkK0(i)) * cols_], ChunkSlot(kQmmCgRing + s),
                     DataCopyParams(1, static_cast<uint16_t>(ChunkRows(i) * cols_ / 32), 0, 0));
        }
        SetFlag<HardEvent::MTE3_V>(turnedFree_[s]);
    }

    // ---------------------------------------------------------------------------------------------- a's slabs
    // Every slab of a against the panel in L1: slab x's loads go out between slab x - 1's K steps, its epilogue
    // between slab x + 1's. Panels alternate the direction over M: the slab read last is the next panel's first,
    // which (all of K in one pass) is still in its slab buffer and is not read again; the slabs read before it are
    // still in the L2 cache.
    __aicore__ inline void StreamSlabs(uint32_t p, uint32_t n0, uint32_t cols)
    {
        const TD& t = *t_;
        // The panel's column parameters (their own staging and buffers).
        zp_.LoadColumns(0, n0, cols, stageIn_, stageHalf_);
        QmmCall c;
        c.n0 = n0;
        c.cols = cols;
        if (LastPass()) {  // (the passes before write int32 sums)
            epi_.Prime();  // the per-tensor parameters, which the column multiplier reads
            epi_.LoadColumns(c, n0, cols);
        }
        PipeBarrier<PIPE_ALL>();  // the panel in L1 (MTE3) before MTE1; the chunk slots (V, MTE3) become a's pieces
        dmas_ = gathers_ = copies_ = 0;
        loads_ = 0;
        reverse_ = (p % 2) != 0;
        if (passes_ == 1 && p > 0) {
            // Slab 0 is the previous panel's last, in its slab buffer (SlabBuf: the same one), written before the
            // PipeBarrier<PIPE_ALL> above: its pieces are skipped.
            keptPieces_ = Pieces();
            SetFlag<HardEvent::MTE3_MTE1>(slabReady_[SlabBuf(0)]);
        } else {
            keptPieces_ = 0;
            for (uint32_t j = 0; j < Pieces(); ++j) {
                GatherNext();
            }
        }
        for (uint32_t x = 0; x < slabs_; ++x) {
            Multiply(x);
        }
        DrainPrepare(slabs_ - 1);
        for (uint32_t i = 0; i < DrainChunks(slabs_ - 1); ++i) {
            DrainChunk(i);
        }
        // The rings' last hand-backs.
        for (uint32_t s = 0; s < kQmmCgReadSlots && s < dmas_; ++s) {
            WaitFlag<HardEvent::V_MTE2>(aInFree_[s]);
        }
        for (uint32_t g = 0, q0 = 0, q1 = 0; g < kQmmCgHalves && copies_ > 0; ++g) {
            if (KHalf(g, &q0, &q1)) {
                WaitFlag<HardEvent::MTE3_V>(gFree_[g]);
            }
        }
        for (uint32_t s = 0; s < kQmmCgRing && s < slabs_; ++s) {
            WaitFlag<HardEvent::MTE1_MTE3>(slabFree_[SlabBuf(slabs_ - 1 - s)]);
            WaitFlag<HardEvent::V_M>(cFree_[(slabs_ - 1 - s) % kQmmCgRing]);
        }
        for (uint32_t s = 0; s < kQmmCgRing && s < loads_; ++s) {
            WaitFlag<HardEvent::M_MTE1>(l0Free_[s]);
        }
        WaitPassWrite();
        slabBufBase_ = SlabBuf(slabs_ - 1);  // the next panel's slab 0 (this one's last) keeps its buffer
    }

    // The L1 slab buffer of slab x (its flags slabReady_ / slabFree_ too): alternating, slab 0 in the one the previous
    // panel's last slab took. (L0C's regions alternate from slab 0 in each panel: x % kQmmCgRing.)
    __aicore__ inline uint32_t SlabBuf(uint32_t x) const { return (x + slabBufBase_) % kQmmCgRing; }

    // Slab x of this panel's order: its first row of a and its rows of a; its pieces: half row blocks.
    __aicore__ inline uint32_t SlabRow(uint32_t x) const { return (reverse_ ? slabs_ - 1 - x : x) * rowsA_; }
    __aicore__ inline uint32_t SlabRows(uint32_t x) const { return QmmMin(rowsA_, t_->m - SlabRow(x)); }
    __aicore__ inline uint32_t Pieces() const { return rowsA_ / aqo_qmm_layout::kCgPieceRows; }

    // The j-th piece of slab x: its row block, its half (h), its first row and rows of a. Each core starts at its own
    // piece of the slab (so that a slab comes from the DDR once and from the L2 cache for the other cores), then takes
    // the other half of that row block, then the row blocks after it: a row block's two pieces are always the j-th
    // and (j + 1)-th for an even j, which the one gathered buffer needs.
    struct Piece {
        uint32_t rb, h, row, valid;
    };
    __aicore__ inline Piece PieceAt(uint32_t x, uint32_t j) const
    {
        const TD& t = *t_;
        const uint32_t blocks = Pieces() / aqo_qmm_layout::kCgGatheredPieces;
        const uint32_t lead = static_cast<uint32_t>(GetBlockIdx()) % Pieces();
        Piece pc;
        pc.rb = (lead / 2 + j / 2) % blocks;
        pc.h = (lead % 2) ^ (j % 2);
        pc.row = SlabRow(x) + pc.rb * aqo_qmm_layout::kCgRowBlock + pc.h * aqo_qmm_layout::kCgPieceRows;
        pc.valid = pc.row < t.m ? QmmMin(aqo_qmm_layout::kCgPieceRows, t.m - pc.row) : 0u;
        return pc;
    }
    // The K blocks [*q0, *q1) of the gathered buffer's half g of K: the first half whole K steps, half of them (all of
    // K where there is one step: the second half is then empty, and has no flags).
    __aicore__ inline bool KHalf(uint32_t g, uint32_t* q0, uint32_t* q1) const
    {
        const uint32_t kbs = kLen_ / aqo_qmm_layout::kCgKBlock;
        const uint32_t perStep = kstep_ / aqo_qmm_layout::kCgKBlock;
        const uint32_t steps = (kbs + perStep - 1) / perStep;
        const uint32_t split = steps > 1 ? (steps / 2) * perStep : kbs;
        *q0 = g == 0 ? 0u : split;
        *q1 = g == 0 ? split : kbs;
        return *q1 > *q0;
    }
    __aicore__ inline LocalTensor<AT> ReadSlot(uint32_t s)
    {
        return work_.Get<AT>()[s * aqo_qmm_layout::CgSlotBytes(t_->cgKPart)];
    }

    // The panel's pieces in order (slab by slab): the DMAs run kQmmCgReadAhead pieces ahead of the gathers, so that a
    // gather (in the vector unit's in-order queue, before an epilogue) seldom waits for its bytes.
    // (dmas_ and gathers_ count the pieces read: a kept slab 0's are not.)
    __aicore__ inline void GatherNext()
    {
        const uint32_t total = slabs_ * Pieces() - keptPieces_;
        for (; dmas_ < total && dmas_ <= gathers_ + kQmmCgReadAhead; ++dmas_) {
            const uint32_t i = dmas_ + keptPieces_;
            PieceDma(i / Pieces(), i % Pieces());
        }
        const uint32_t i = gathers_ + keptPieces_;
        PieceGather(i / Pieces(), i % Pieces());
        ++gathers_;
    }

    // A piece's rows: one burst where they are whole rows of a (one pass), else a burst per row.
    __aicore__ inline void PieceDma(uint32_t x, uint32_t j)
    {
        const TD& t = *t_;
        const uint32_t s = dmas_ % kQmmCgReadSlots;
        const Piece pc = PieceAt(x, j);
        if (dmas_ >= kQmmCgReadSlots) {
            WaitFlag<HardEvent::V_MTE2>(aInFree_[s]);
        }
        if (pc.valid > 0) {
            const uint32_t rowLen = kLen_ / 32;  // a row's 32-byte blocks
            const DataCopyParams prm =
                kLen_ == t.k ? DataCopyParams(1, static_cast<uint16_t>(pc.valid * rowLen), 0, 0)
                             : DataCopyParams(static_cast<uint16_t>(pc.valid), static_cast<uint16_t>(rowLen),
                                              static_cast<uint16_t>((t.k - kLen_) / 32), 0);
            DataCopy(ReadSlot(s), aGm_[static_cast<uint64_t>(pc.row) * t.k + kBase_], prm);
        }
        SetFlag<HardEvent::MTE2_V>(aLoaded_[s]);
    }

    // Piece j of slab x, once read: rows past M zeros, gathered into its half of the row block's fractals; after the
    // row block's second piece, the row block copied to the slab buffer.
    __aicore__ inline void PieceGather(uint32_t x, uint32_t j)
    {
        const uint32_t s = gathers_ % kQmmCgReadSlots;
        const uint32_t buf = SlabBuf(x);
        const Piece pc = PieceAt(x, j);
        const uint32_t kbs = kLen_ / aqo_qmm_layout::kCgKBlock;
        const LocalTensor<AT> in = ReadSlot(s);
        const LocalTensor<AT> gathered = ReadSlot(kQmmCgReadSlots);
        WaitFlag<HardEvent::MTE2_V>(aLoaded_[s]);
        // (No barrier before the gathers otherwise: the slot's bytes come from MTE2 and the gathered buffer was last
        // written by gathers that completed before its copy to L1 began, behind flags; the row block's other half is
        // other bytes of it.)
        if (pc.valid < aqo_qmm_layout::kCgPieceRows) {
            PipeBarrier<PIPE_V>();  // the slot's previous gather read it
            Duplicate(in.template ReinterpretCast<int16_t>()[pc.valid * kLen_ / 2], static_cast<int16_t>(0),
                      static_cast<int32_t>((aqo_qmm_layout::kCgPieceRows - pc.valid) * kLen_ / 2));
            PipeBarrier<PIPE_V>();
        }
        // The gathered buffer in two halves of K (whole K steps): the first half's copy to L1 starts while the second
        // half is gathered, and the next row block's first half is gathered once that copy is done, not the whole
        // row block's. Per half one Or of the 8 rows with themselves over uint16, whose 8 blocks are the rows' block q
        // (source block stride: a row) and whose iterations are q: the h-th half (rows 8h .. 8h + 7) of the row
        // block's fractal q.
        const LocalTensor<uint16_t> src = in.template ReinterpretCast<uint16_t>();
        const LocalTensor<uint16_t> dst = gathered.template ReinterpretCast<uint16_t>();
        const uint8_t rowStride = static_cast<uint8_t>(kbs);
        for (uint32_t g = 0, q0 = 0, q1 = 0; g < kQmmCgHalves; ++g) {
            if (!KHalf(g, &q0, &q1)) {
                continue;
            }
            if (j % 2 == 0 && copies_ > 0) {
                WaitFlag<HardEvent::MTE3_V>(gFree_[g]);  // the previous row block's copy of this half read it
            }
            Or(dst[q0 * kQmmCgFractal / 2 + pc.h * 128], src[q0 * 16], src[q0 * 16], 128,
               static_cast<uint8_t>(q1 - q0), BinaryRepeatParams(1, rowStride, rowStride, 16, 1, 1));
            if (j % 2 == 1) {
                SetFlag<HardEvent::V_MTE3>(gReady_[g]);
            }
        }
        SetFlag<HardEvent::V_MTE2>(aInFree_[s]);
        if (j % 2 == 0) {
            return;
        }
        if (j == 1 && x >= kQmmCgRing) {
            // slab x - 2's last LoadData. (Also implied today: DrainPrepare(x - 2), which waits for that slab's
            // Mmads, is issued before slab x's gathers; the flag keeps the order if that changes.)
            WaitFlag<HardEvent::MTE1_MTE3>(slabFree_[buf]);
        }
        for (uint32_t g = 0, q0 = 0, q1 = 0; g < kQmmCgHalves; ++g) {
            if (KHalf(g, &q0, &q1)) {
                WaitFlag<HardEvent::V_MTE3>(gReady_[g]);
                CopyRowBlockToL1(buf, pc.rb, q0, q1 - q0, gathered[q0 * kQmmCgFractal]);
                SetFlag<HardEvent::MTE3_V>(gFree_[g]);
            }
        }
        ++copies_;
        if (j + 1 == Pieces()) {
            SetFlag<HardEvent::MTE3_MTE1>(slabReady_[buf]);
        }
    }

    // Row block rb's fractals kb0 .. kb0 + kbs (a part of K: whole K steps, L0A's order in `src`) into slab buffer
    // buf, whose fractals lie K step by K step, row block by row block in each: a burst per whole step, one more for
    // K's last step where it is shorter.
    __aicore__ inline void CopyRowBlockToL1(uint32_t buf, uint32_t rb, uint32_t kb0, uint32_t kbs,
                                            const LocalTensor<AT>& src)
    {
        const uint32_t perStep = kstep_ / aqo_qmm_layout::kCgKBlock;
        const uint32_t rowBlocks = t_->cgSlab / 16;
        const uint32_t step0 = kb0 / perStep, full = kbs / perStep, rest = kbs % perStep;
        const LocalTensor<AT> dst = aL1_[buf].template Get<AT>();
        const uint32_t fractalBlocks = kQmmCgFractal / 32;
        if (full > 0) {
            DataCopy(dst[(step0 * rowBlocks + rb) * perStep * kQmmCgFractal], src,
                     DataCopyParams(static_cast<uint16_t>(full), static_cast<uint16_t>(perStep * fractalBlocks), 0,
                                    static_cast<uint16_t>((rowBlocks - 1) * perStep * fractalBlocks)));
        }
        if (rest > 0) {
            const uint32_t step = step0 + full;
            DataCopy(dst[(step * rowBlocks * perStep + rb * rest) * kQmmCgFractal], src[full * perStep * kQmmCgFractal],
                     DataCopyParams(1, static_cast<uint16_t>(rest * fractalBlocks), 0, 0));
        }
    }

    // Slab x against the panel: per K step the L0 loads and an Mmad into its L0C region; between the steps, the next
    // slab's pieces and the previous slab's epilogue.
    __aicore__ inline void Multiply(uint32_t x)
    {
        const TD& t = *t_;
        const uint32_t buf = x % kQmmCgRing;  // L0C's region
        const uint32_t sb = SlabBuf(x);
        const uint32_t rowBlocks = t.cgSlab / 16;
        const uint32_t n1 = PanelFractals();
        const uint32_t steps = (kLen_ + kstep_ - 1) / kstep_;
        // Between the steps: the previous slab's C out of L0C (its region is the next slab's), the next slab's pieces,
        // then the previous slab's chunks (their copy-outs go behind the pieces' copies to L1 on MTE3).
        const uint32_t pieces = x + 1 < slabs_ ? Pieces() : 0u;
        const uint32_t between = pieces + (x > 0 ? 1u + DrainChunks(x - 1) : 0u);
        uint32_t done = 0;
        WaitFlag<HardEvent::MTE3_MTE1>(slabReady_[sb]);
        if (x >= kQmmCgRing) {
            WaitFlag<HardEvent::V_M>(cFree_[buf]);  // slab x - 2's C has left this region (as above: also implied)
        }
        for (uint32_t st = 0; st < steps; ++st, ++loads_) {
            const uint32_t k0 = st * kstep_;
            const uint32_t kbs = QmmMin(kstep_, kLen_ - k0) / aqo_qmm_layout::kCgKBlock;
            const uint32_t h = loads_ % kQmmCgRing;
            if (loads_ >= kQmmCgRing) {
                WaitFlag<HardEvent::M_MTE1>(l0Free_[h]);
            }
            // L0A: the slab's row blocks' fractals of these K values (together in the slab buffer, as L0A wants them).
            LoadData(aL0_[h].template Get<AT>(),
                     aL1_[sb].template Get<AT>()[st * rowBlocks * (kstep_ / aqo_qmm_layout::kCgKBlock) *
                                                  kQmmCgFractal],
                     LoadData2DParams(0, static_cast<uint8_t>(rowBlocks * kbs), 1, 0, 0, false, 0));
            // L0B: the panel's rows k0.. (its fractals lie K block by K block, the columns' fractals in each)
            LoadData(BL0(h),
                     panelL1_.Get<BT>()[(k0 / aqo_qmm_layout::kCgKBlock) * n1 * kQmmCgFractal],
                     LoadData2DParams(0, static_cast<uint8_t>(kbs * n1), 1, 0, 0, false, 0));
            if (st + 1 == steps) {
                SetFlag<HardEvent::MTE1_MTE3>(slabFree_[sb]);
            }
            SetFlag<HardEvent::MTE1_M>(inL0_[h]);
            WaitFlag<HardEvent::MTE1_M>(inL0_[h]);
            // (No barrier after the previous accumulation into the same L0C: the cube pipe orders its Mmads, as the
            // Matmul API's K loop relies on; QmmMmad puts one after an Mmad of fewer than 10 fractals of C.)
            const MmadParams mp(static_cast<uint16_t>(t.cgSlab), static_cast<uint16_t>(n1 * 16),
                                static_cast<uint16_t>(kbs * aqo_qmm_layout::kCgKBlock), 0, false, st == 0);
            QmmMmad(cL0_[buf].template Get<int32_t>(), aL0_[h].template Get<AT>(), BL0(h), mp);
            if (onesColumn_) {  // the slab's row sums: the same rows of a against L0B's ones
                const MmadParams mr(static_cast<uint16_t>(t.cgSlab), 16,
                                    static_cast<uint16_t>(kbs * aqo_qmm_layout::kCgKBlock), 0, false, st == 0);
                QmmMmad(raL0_[buf].template Get<int32_t>(), aL0_[h].template Get<AT>(), OnesL0(), mr);
            }
            SetFlag<HardEvent::M_MTE1>(l0Free_[h]);
            const uint32_t upto = (st + 1) * between / steps;
            for (; done < upto; ++done) {
                if (x > 0 && done == 0) {
                    DrainPrepare(x - 1);
                } else if (done < (x > 0 ? 1u : 0u) + pieces) {
                    GatherNext();  // slab x + 1's pieces
                } else {
                    DrainChunk(done - 1 - pieces);
                }
            }
        }
        SetFlag<HardEvent::M_V>(cDone_[buf]);
    }

    // ---------------------------------------------------------------------------------------------- epilogue
    // Slab x's y: DrainPrepare takes C from L0C (fractal order) and forms the slab's row terms; DrainChunk i then its
    // chunk's rows as int32 rows, the zero-point terms, float32, the requantization, the copy-out. Chunks of at most
    // rowsPerChunk rows, as many as that takes, evened out over the slab's rows (at 26: 64 rows of a 22 + 22 + 20, 48
    // beside the ones row 24 + 24), so that no chunk is a short tail of a few rows.
    __aicore__ inline uint32_t DrainChunks(uint32_t x) const
    {
        return (SlabRows(x) + t_->rowsPerChunk - 1) / t_->rowsPerChunk;
    }

    __aicore__ inline void DrainPrepare(uint32_t x)
    {
        const TD& t = *t_;
        const uint32_t buf = x % kQmmCgRing;
        const uint32_t row0 = SlabRow(x), rows = SlabRows(x);
        const uint32_t rowBlocks = t.cgSlab / 16;
        const uint32_t n1 = PanelFractals();
        const LocalTensor<int32_t> cb = ColumnSumsUb();
        const LocalTensor<int32_t> ra = RowSumsUb();
        WaitFlag<HardEvent::M_V>(cDone_[buf]);
        PipeBarrier<PIPE_V>();  // the previous slab's epilogue read the C region
        DataCopyEnhancedParams e;
        e.blockMode = BlockMode::BLOCK_MODE_MATRIX;
        DataCopy(cBuf_.Get<int32_t>(), cL0_[buf].template Get<int32_t>(),
                 DataCopyParams(static_cast<uint16_t>(n1), static_cast<uint16_t>(rowBlocks), 0, 0), e);
        if (onesColumn_) {  // a's row sums: one fractal column, its rows' 16 equal sums together (64 bytes a row)
            DataCopy(ra, raL0_[buf].template Get<int32_t>(),
                     DataCopyParams(1, static_cast<uint16_t>(rowBlocks), 0, 0), e);
        }
        SetFlag<HardEvent::V_M>(cFree_[buf]);
        PipeBarrier<PIPE_V>();
        if (zp_.NeedColumnSums()) {  // b's column sums: the ones row, row 0 of the last row block
            ToRows(cb, (rowBlocks - 1) * 16, 1);
            if (cols_ < t.cStride) {  // (other columns than ToRows writes: no barrier between them)
                Duplicate(cb[cols_], 0, static_cast<int32_t>(t.cStride - cols_));
            }
        }
        if (zp_.NeedCorrection()) {
            RowTermsOfSlab(ra, row0, rows);
        }
        if (LastPass()) {
            QmmCall c;
            c.m0 = row0;
            c.rows = rows;
            c.n0 = n0_;
            c.cols = cols_;
            epi_.LoadRows(c);
        }
        drainRow0_ = row0;
        drainRows_ = rows;
        drainPer_ = (rows + DrainChunks(x) - 1) / DrainChunks(x);
    }

    __aicore__ inline void DrainChunk(uint32_t i)
    {
        const TD& t = *t_;
        const LocalTensor<int32_t> acc = cBuf_.Get<int32_t>()[aqo_qmm_layout::CgCFractals(t.cgSlab, t.cgPanel) / 4];
        const LocalTensor<int32_t> cb = ColumnSumsUb();
        const uint32_t r0 = i * drainPer_;
        const uint32_t n = QmmMin(drainPer_, drainRows_ - r0);
        // (No barrier before ToRows: the previous chunk's last read of the rows, its float32 -> half cast, has one
        // after it, as has the copy out of L0C. A pass's write of them to the workspace has its flag.)
        WaitPassWrite();
        ToRows(acc, r0, n);
        if (cols_ < t.cStride) {
            // A narrower panel: the epilogue's steps run over whole rows of cStride columns; the columns past the
            // panel's get 0 (their results are discarded, but the int32 steps must stay in range): x - x per row,
            // the rows the iterations, up to 64 columns an instruction (other columns than ToRows writes).
            const uint8_t rowStride = static_cast<uint8_t>(t.cStride * 4 / 32);
            for (uint32_t c0 = cols_; c0 < t.cStride; c0 += 64) {
                const LocalTensor<int32_t> past = acc[c0];
                Sub(past, past, past, static_cast<uint64_t>(QmmMin(64u, t.cStride - c0)), static_cast<uint8_t>(n),
                    BinaryRepeatParams(1, 1, 1, rowStride, rowStride, rowStride));
            }
        }
        PipeBarrier<PIPE_V>();
        if (pass_ > 0) {
            AddPassSums(acc, r0, n);
        }
        if (zp_.NeedCorrection()) {
            zp_.Correct(acc, tmp_, rowTerms_, cb, r0, n, cols_);
            PipeBarrier<PIPE_V>();
        }
        if (!LastPass()) {
            WritePassSums(acc, r0, n);
            return;
        }
        // The exact conversion's mask block lies past the chunk's scratch (written once a launch, in Process).
        const LocalTensor<float> f =
            t.exactConvert != 0
                ? QmmInt32ToFloatSplit(acc, tmp_.template ReinterpretCast<float>(), SplitMask(), n * t.cStride)
                : QmmInt32ToFloat(acc, tmp_.template ReinterpretCast<float>(), n * t.cStride, false);
        LocalTensor<YT> y = epi_.Compute(f, tmp_.template ReinterpretCast<float>(), r0, n, cols_);
        out_.Rows(y, drainRow0_ + r0, n, n0_, cols_);
        epi_.FreeY(y);
    }

    // Where the chunk's first row lies in this core's part of the workspace (M rows of cStride int32, which every
    // panel of the core reuses: a panel's last pass has read its rows before the next panel's first pass writes them,
    // the PipeBarrier<PIPE_ALL> of LoadPanel between).
    __aicore__ inline uint64_t PassAt(uint32_t r0) const
    {
        return static_cast<uint64_t>(GetBlockIdx()) * passInts_ +
               static_cast<uint64_t>(drainRow0_ + r0) * t_->cStride;
    }

    // The DMA of n rows' sums between the workspace and UB (both rows cStride int32 apart): one burst, or for a panel
    // narrower than cStride a burst of its columns a row (the columns past them hold no values in UB).
    __aicore__ inline DataCopyParams PassCopy(uint32_t n) const
    {
        const uint32_t stride = t_->cStride * 4 / 32, cols = cols_ * 4 / 32;
        return cols == stride ? DataCopyParams(1, static_cast<uint16_t>(n * stride), 0, 0)
                              : DataCopyParams(static_cast<uint16_t>(n), static_cast<uint16_t>(cols),
                                               static_cast<uint16_t>(stride - cols),
                                               static_cast<uint16_t>(stride - cols));
    }

    // acc += the passes' sums so far of the chunk's rows, read into the chunk's scratch (which Correct uses after).
    // A narrower panel: its columns only, up to 64 an instruction with the rows its iterations (the scratch's other
    // columns hold what the previous chunk left; acc's are 0 and stay so).
    __aicore__ inline void AddPassSums(const LocalTensor<int32_t>& acc, uint32_t r0, uint32_t n)
    {
        aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);  // the previous chunk's steps read the scratch
        DataCopy(tmp_, wsGm_[PassAt(r0)], PassCopy(n));
        aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);
        if (cols_ == t_->cStride) {
            Add(acc, acc, tmp_, static_cast<int32_t>(n * t_->cStride));
        } else {
            const uint8_t rowStride = static_cast<uint8_t>(t_->cStride * 4 / 32);
            for (uint32_t c0 = 0; c0 < cols_; c0 += 64) {
                Add(acc[c0], acc[c0], tmp_[c0], static_cast<uint64_t>(QmmMin(64u, cols_ - c0)),
                    static_cast<uint8_t>(n), BinaryRepeatParams(1, 1, 1, rowStride, rowStride, rowStride));
            }
        }
        PipeBarrier<PIPE_V>();
    }

    // The chunk's sums (this pass's and the ones before, zero-point terms included) to the workspace for the next.
    // The next chunk's rows go where these are: the vector unit waits for the write there (WaitPassWrite), not here,
    // so that the work queued between (the next slab's pieces, after a slab's last chunk) goes on meanwhile.
    __aicore__ inline void WritePassSums(const LocalTensor<int32_t>& acc, uint32_t r0, uint32_t n)
    {
        aqo_kernel::WaitPipe<HardEvent::V_MTE3>(pipe_);
        DataCopy(wsGm_[PassAt(r0)], acc, PassCopy(n));
        SetFlag<HardEvent::MTE3_V>(passWritten_);
        passWriting_ = true;
    }
    __aicore__ inline void WaitPassWrite()
    {
        if (passWriting_) {
            WaitFlag<HardEvent::MTE3_V>(passWritten_);
            passWriting_ = false;
        }
    }

    // Rows r0 .. r0 + n of the slab's C from its fractals (at the C region's start: per column fractal the slab's rows
    // of 16 int32, 64 bytes a row) to int32 rows of cStride at `dst`, on the vector unit: two Or of the bytes with
    // themselves over uint16, one per 32-byte half of a fractal row, whose blocks are the column fractals' (source
    // block stride: a column fractal's rows; destination block stride 2) and whose iterations are the rows.
    __aicore__ inline void ToRows(const LocalTensor<int32_t>& dst, uint32_t r0, uint32_t n)
    {
        const TD& t = *t_;
        const LocalTensor<uint16_t> src = cBuf_.Get<uint16_t>()[r0 * 32];
        const LocalTensor<uint16_t> d = dst.template ReinterpretCast<uint16_t>();
        const uint8_t column = static_cast<uint8_t>(t.cgSlab * 64 / 32);
        const uint8_t row = static_cast<uint8_t>(t.cStride * 4 / 32);
        const uint64_t mask = static_cast<uint64_t>(PanelFractals()) * 16;
        for (uint32_t h = 0; h < 2; ++h) {
            Or(d[h * 16], src[h * 16], src[h * 16], mask, static_cast<uint8_t>(n),
               BinaryRepeatParams(2, column, column, row, 2, 2));
        }
    }

    // The row terms of the slab's rows (Correct's blocks: -(RA - K za') over 8 int32, then -za'), RA a row's sum of a
    // (`ra`: 16 equal int32 a row). Per-tensor za: -za' is every row's already (ConstantRowTerms), the first terms are
    // K za' - RA, all rows in one Sub (the K za' block re-read: repeat stride 0; a row's first 8 sums a block of its
    // row of `ra`). Per-row za: the scalar unit's, row by row.
    __aicore__ inline void RowTermsOfSlab(const LocalTensor<int32_t>& ra, uint32_t row0, uint32_t rows)
    {
        const TD& t = *t_;
        if (t.aZpKind != kQmmParamVector) {
            if (onesColumn_) {
                PipeBarrier<PIPE_V>();  // the previous slab's correction read the row terms
                Sub(rowTerms_, rowTerms_[t.cgSlab * kQmmRowTermInts], ra, 8, static_cast<uint8_t>(rows),
                    BinaryRepeatParams(1, 1, 1, static_cast<uint8_t>(kQmmRowTermInts * 4 / 32), 0, 2));
                PipeBarrier<PIPE_V>();
            }
            return;
        }
        // The slab's za' (int32): all M rows' were read once (LoadAllRowZeroPoints), else the slab's now.
        const uint32_t at = rowsAll_ ? row0 : 0u;
        if (!rowsAll_) {
            zp_.LoadRowsAt(0, row0, rows, 0, stageIn_, stageHalf_);
        }
        PipeBarrier<PIPE_V>();  // the previous slab's correction read the row terms and tmp_; za' from the casts
        if (VectorRowTerms(ra, at, rows)) {
            PipeBarrier<PIPE_V>();
            return;
        }
        aqo_kernel::WaitPipe<HardEvent::V_S>(pipe_);  // a's row sums (the L0C copy) and za' for the scalar unit
        for (uint32_t i = 0; i < rows; ++i) {
            const int32_t sum = onesColumn_ ? ra.GetValue(i * 16) : 0;
            int32_t negR = 0, negS = 0;
            zp_.RowTermsOver(kLen_, sum, at + i, &negR, &negS);
            Duplicate(rowTerms_[i * kQmmRowTermInts], negR, static_cast<int32_t>(kQmmRowTermInts / 2));
            Duplicate(rowTerms_[i * kQmmRowTermInts + kQmmRowTermInts / 2], negS,
                      static_cast<int32_t>(kQmmRowTermInts / 2));
        }
        PipeBarrier<PIPE_V>();
    }

    // Per-row za', the slab's row terms on the vector unit: za'[at + i] broadcast over a block per row (Brcb into the
    // chunk scratch, free between slabs), then 0 - za' into every row's second block (one Sub: a block an iteration,
    // the rows the iterations) and K za' - RA into its first (one Sub against the row sums, as for a per-tensor za).
    // The terms are integers of at most 255 (2 K + 1) in magnitude (|za'| <= 255, |RA| <= 255 K, K <= 33024): exact in
    // int32.
    // ascend310p's Brcb is software using the API's scratch at TMP_UB_OFFSET: the plan keeps the path's buffers below
    // it where a has per-row parameters. False (nothing done) where the scratch or Brcb's alignment do not allow it.
    __aicore__ inline bool VectorRowTerms(const LocalTensor<int32_t>& ra, uint32_t at, uint32_t rows)
    {
        const TD& t = *t_;
        constexpr uint32_t perBlock = kBlockBytes / sizeof(int32_t);
        const uint32_t reps = (rows + perBlock - 1) / perBlock;  // Brcb: 8 rows an iteration
        if (at % perBlock != 0 || rows > kQmmMaxRepeat ||
            reps * kQmmVecRepeatBytes > t.rowsPerChunk * t.cStride * sizeof(int32_t)) {
            return false;
        }
        const LocalTensor<int32_t> blocks = tmp_;  // before the split mask (SplitMask)
        Brcb(blocks, zp_.RowZeroPoints()[at], static_cast<uint8_t>(reps), BrcbRepeatParams(1, perBlock));
        PipeBarrier<PIPE_V>();
        const uint8_t termBlocks = static_cast<uint8_t>(kQmmRowTermInts * sizeof(int32_t) / kBlockBytes);
        if (zp_.NeedColumnSums()) {  // 0 - za' (the zero block after the slab's terms: ConstantRowTerms)
            Sub(rowTerms_[kQmmRowTermInts / 2], rowTerms_[t.cgSlab * kQmmRowTermInts], blocks,
                static_cast<uint64_t>(perBlock), static_cast<uint8_t>(rows),
                BinaryRepeatParams(1, 1, 1, termBlocks, 0, 1));
        }
        if (zp_.NeedRowSums()) {
            PipeBarrier<PIPE_V>();  // the Sub above read the blocks
            Muls(blocks, blocks, static_cast<int32_t>(kLen_), static_cast<int32_t>(reps * perBlock * perBlock));
            PipeBarrier<PIPE_V>();
            const uint8_t raBlocks = static_cast<uint8_t>(16 * sizeof(int32_t) / kBlockBytes);  // 16 sums a row
            Sub(rowTerms_, blocks, ra, static_cast<uint64_t>(perBlock), static_cast<uint8_t>(rows),
                BinaryRepeatParams(1, 1, 1, termBlocks, 1, raBlocks));
        }
        return true;
    }

    // The exact conversion's mask block: after a chunk's scratch (rowsPerChunk rows of cStride int32), which neither
    // the zero-point terms nor the conversion write past.
    __aicore__ inline LocalTensor<int32_t> SplitMask() { return tmp_[t_->rowsPerChunk * t_->cStride]; }

    // b's column sums' row of a slab, and a's row sums as they leave L0C (after the chunk's rows).
    __aicore__ inline LocalTensor<int32_t> ColumnSumsUb()
    {
        return cBuf_.Get<int32_t>()[aqo_qmm_layout::CgColumnSumsOffset(t_->cgSlab, t_->cgPanel, t_->rowsPerChunk) / 4];
    }
    __aicore__ inline LocalTensor<int32_t> RowSumsUb()
    {
        return cBuf_.Get<int32_t>()[aqo_qmm_layout::CgRaOffset(t_->cgSlab, t_->cgPanel, t_->rowsPerChunk) / 4];
    }

    const TD* t_ = nullptr;
    TPipe* pipe_ = nullptr;
    GlobalTensor<AT> aGm_;
    GlobalTensor<BT> bGm_;
    GlobalTensor<int32_t> wsGm_;  // the passes' int32 sums (more than one pass)
    TBuf<TPosition::VECCALC> work_, cBuf_, stage_, rowTermsBuf_, tmpBuf_;
    TBuf<TPosition::B1> panelL1_;
    TBuf<TPosition::A1> aL1_[kQmmCgRing];
    TBuf<TPosition::A2> aL0_[kQmmCgRing];
    TBuf<TPosition::B2> bL0_;
    TBuf<TPosition::CO1> cL0_[kQmmCgRing];
    TBuf<TPosition::CO1> raL0_[kQmmCgRing];
    LocalTensor<int32_t> rowTerms_, tmp_;
    LocalTensor<uint8_t> stageIn_;
    LocalTensor<half> stageHalf_, stageWork_;
    uint32_t kstep_ = 0;             // K values an Mmad (cgKStep, or cgKStepRa with L0B's ones)
    uint32_t passes_ = 1, pass_ = 0;   // K's passes, the current one
    uint32_t kBase_ = 0, kLen_ = 0;    // the pass's first K value, its K values
    uint64_t passInts_ = 0;            // int32 of a core's part of the workspace
    uint32_t rowsA_ = 64;            // a's rows a slab (16 fewer with the ones row)
    uint32_t slabs_ = 0;
    uint32_t col0_ = 0, col1_ = 0;   // this core's columns
    uint32_t n0_ = 0, cols_ = 0;     // the panel
    uint32_t dmas_ = 0, gathers_ = 0;  // a's pieces of this panel read and gathered so far
    uint32_t copies_ = 0;              // a's row blocks of this panel copied to L1 so far
    uint32_t keptPieces_ = 0;          // slab 0's pieces where it is the previous panel's last, kept in L1
    uint32_t slabBufBase_ = 0;         // the slab buffer of slab 0 (SlabBuf)
    uint32_t drainRow0_ = 0, drainRows_ = 0, drainPer_ = 0;  // the slab being drained: first row, rows, chunk rows
    uint32_t loads_ = 0;             // L0 loads (and Mmads) of this panel so far
    bool reverse_ = false;           // this panel walks the slabs from the last
    bool rowsAll_ = false;           // per-row za' of all M rows in the zero points' row buffer
    bool onesColumn_ = false;        // a's row sums from the cube: L0B's ones, a second Mmad a K step
    event_t loaded_[kQmmCgRing] = {};
    event_t inFree_[kQmmCgRing] = {};
    event_t turnedReady_[kQmmCgRing] = {};
    event_t turnedFree_[kQmmCgRing] = {};
    event_t aLoaded_[kQmmCgReadSlots] = {};
    event_t aInFree_[kQmmCgReadSlots] = {};
    event_t gReady_[kQmmCgHalves] = {}, gFree_[kQmmCgHalves] = {};
    event_t passWritten_ = {};   // a chunk's sums have left for the workspace (passes)
    bool passWriting_ = false;
    event_t slabReady_[kQmmCgRing] = {};
    event_t slabFree_[kQmmCgRing] = {};
    event_t inL0_[kQmmCgRing] = {};
    event_t l0Free_[kQmmCgRing] = {};
    event_t cDone_[kQmmCgRing] = {};
    event_t cFree_[kQmmCgRing] = {};
    QmmZeroPoints<TD> zp_;
    QmmRequantEpilogue<TD, YT, false> epi_;
    QmmCopyOut<YT> out_;
};
