// AqoQLinearMatMul's vector decode path (tiling key 1; the plan: op_host/tiling_core/
// qlinear_matmul_vector_decode_plan.h): a short a (M <= 6) against a uint8 b stored [..., K, N] (on ascend310p an
// int8 b too), on the vector cores alone. The cube takes int8 only, so on the cube path a uint8 b is first mapped
// into the workspace (b read, written and read again), and 310p's Matmul API copies an int8 B through UB one DMA per
// tile row; here b is read once, in long row bursts, by the core that needs it, and multiplied where it lands.
//
//   * a worker owns a contiguous range of y's column units (vdGranule columns, batch x vdGranules of them), cut into
//     groups of at most cStride columns; a group streams its columns of b in panels of vdPanelK rows, the last ones
//     shorter (aqo_qmm_layout.h VdTailPanels: the vector work after the stream's last byte is a short panel's; every
//     odd worker's panels half a panel off the even ones', so that not all workers' DMA set-ups fall at once),
//     double buffered (the DMA of the panel two ahead goes out as soon as a panel's first casts free its buffers, so
//     the pipe is not held by the scalar unit's issue of this panel's vector work); a's rows come with the first
//     panel of each chunk of vdAChunkK / vdPanelK panels (one chunk for a decode step's K slice);
//   * per chunk: a - a_zp in half, then float32 (integers in [-255, 255]), added to the row's lanes of a - a_zp;
//     per panel: b in half, then float32 (exact: integers in [0, 255], or [-128, 127]); the panel's values of a each
//     broadcast over one 32-byte block (Brcb); the products panel row k times a[m, k] go to float32 sums row k: one
//     level-0 MulAddDst per 64 columns whose iteration k is panel row k (the source's block stride 0 reads the block
//     of row k in every block of iteration k), or, for wide groups (beyond a repeat stride's 255 blocks) and few rows,
//     one per panel row whose iterations are its 64-column pieces; every 256 panels at most (and at the group's end)
//     the float32 sums, exact integers below 2^24, have their rows halved in float32 while the halves stay below 2^24
//     (fewer panels since the last flush: more halvings), the rest are converted to int32, summed in int32 and added
//     to the group's sums;
//   * b's zero point once a group (Correct): sum_k (a - a_zp)(b - b_zp) = sum_k (a - a_zp) b - b_zp sum_k (a - a_zp),
//     the lanes' sum broadcast, times b_zp in int32 and subtracted from the int32 sums (no per-element subtraction)
//     as soon as the last chunk of a is in, under the DMAs of the panels that follow, not after the last one;
//   * b's scales (the epilogue's per-column parameters) load at the group's start, so their GM round trip is not
//     part of the drain (per-row a scales still load in the epilogue);
//   * exact in every step: |products| <= 255 * 255, a float32 sum takes at most 256 of them (< 2^24), the lanes'
//     sum of a - a_zp at most 255 K (< 2^24), and the int32 sums and b_zp times that sum stay below 2^31 (K <= 33025,
//     the plan's limit): no rounding or wrap, whatever the unit's modes;
//   * then the group's M rows through the requantization epilogue (aqo_qmm_requant_epilogue.h) and the copy-out;
//   * split SoCs, one y matrix (vdSlices > 1): worker w sums an even share of K's rows (slice w % vdSlices) of
//     column range w / vdSlices into the workspace ([vdSlices, M, N] int32), all workers meet at a SyncAll, then
//     each reads the slices of its own columns (one DMA per group), adds them and requantizes.
//
// No include guard (see aqo_kernel_common.h). Needs aqo_kernel_common.h, aqo_qmm_common.h, aqo_qmm_zero_point.h
// (QmmZeroPointValue), aqo_qmm_cube_stage.h (QmmCall, QmmBatchOperands), aqo_qmm_requant_epilogue.h,
// aqo_qmm_copy_out.h.

// Elements of one 256-byte repeat of a float32 level-0 instruction.
constexpr uint32_t kQmmVdF32PerRepeat = 64;
// Rows of a at most: the plan's kQmmVectorDecodeMaxM (qlinear_matmul_vector_decode_plan.h).
constexpr uint32_t kQmmVdMaxRows = 6;
// Panel buffers of b (and chunk buffers of a): the DMA of the next panel runs under this one's vector work.
constexpr uint32_t kQmmVdInSlots = 2;
// Groups cut at once: the one being summed and, with one panel a group, the kQmmVdInSlots whose panels are fetched
// ahead (group i in ring entry i % kQmmVdRing).
constexpr uint32_t kQmmVdRing = kQmmVdInSlots + 1;
// Panels whose products a float32 sum takes before it is flushed into the int32 sums: 256 * 255 * 255 = 16646400
// < 2^24, so every float32 sum stays an exact integer.
constexpr uint32_t kQmmVdMaxPanelSums = 256;
// A product's magnitude at most ((a - a_zp) and (b - b_zp) are integers in [-255, 255]), and the float32 integers
// that stay exact (2^24): a flush may halve float32 sums while twice their bound stays below it.
constexpr uint32_t kQmmVdMaxProduct = 255 * 255;
constexpr uint32_t kQmmVdF32Exact = 1u << 24;
// float32 values per 32-byte block (Brcb writes one value over a block).
constexpr uint32_t kQmmVdF32PerBlock = 8;

template <class TD, class AT, class YT>
class KernelQLinearMatMulVectorDecode {
public:
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                                GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& t, TPipe* pipe)
    {
        t_ = &t;
        pipe_ = pipe;
        if (t.vdSlices > 1) {
            wsGm_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(userWs),
                                  static_cast<uint64_t>(t.vdSlices) * t.m * t.n);
        }
        const uint64_t aElems = static_cast<uint64_t>(t.aMatrices) * t.m * t.k;
        const uint64_t bElems = static_cast<uint64_t>(t.bMatrices) * t.k * t.n;
        aGm_.SetGlobalBuffer(reinterpret_cast<__gm__ AT*>(a), aElems);
        bGm_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(b), bElems);
        aZpElems_ = t.aZpKind == kQmmParamVector ? (t.aZpBatchStride ? static_cast<uint64_t>(t.aMatrices) * t.m : t.m)
                                                 : 1;
        bZpElems_ = t.bZpKind == kQmmParamVector ? (t.bZpBatchStride ? static_cast<uint64_t>(t.bMatrices) * t.n : t.n)
                                                 : 1;
        aZpGm_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(aZp), aZpElems_);
        bZpGm_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(bZp), bZpElems_);
        // UB in the plan's order (its explanation lists the same buffers).
        pipe->InitBuffer(bInQue_, kQmmVdInSlots, t.ubVdB);
        pipe->InitBuffer(aInQue_, kQmmVdInSlots, t.ubVdA);
        pipe->InitBuffer(bHalfBuf_, t.ubVdBHalf);
        pipe->InitBuffer(bF32Buf_, t.ubVdBF32);
        pipe->InitBuffer(sumsBuf_, t.m * t.ubVdBF32);  // per row of a: vdPanelK rows of cStride float32 sums
        pipe->InitBuffer(aHalfBuf_, t.ubVdAHalf);
        pipe->InitBuffer(aF32Buf_, t.ubVdAF32);
        pipe->InitBuffer(patternBuf_, t.ubVdPattern);
        pipe->InitBuffer(accBuf_, t.ubVdAcc);
        pipe->InitBuffer(zbBuf_, t.ubVdZb);
        pipe->InitBuffer(aSumBuf_, t.m * aqo_qmm_layout::kVdSumRowBytes + aqo_qmm_layout::kVdSumWorkBytes);
        bHalf_ = bHalfBuf_.Get<half>();
        bF32_ = bF32Buf_.Get<float>();
        sums_ = sumsBuf_.Get<float>();
        aHalf_ = aHalfBuf_.Get<half>();
        aF32_ = aF32Buf_.Get<float>();
        pattern_ = patternBuf_.Get<float>();
        acc_ = accBuf_.Get<int32_t>();
        zbHalf_ = zbBuf_.Get<half>();
        zbIn_ = zbBuf_.Get<uint8_t>()[t.cStride * 2];
        aLanes_ = aSumBuf_.Get<float>();
        aSum_ = aLanes_[t.m * aqo_qmm_layout::kVdSumLanes];
        aSumWide_ = aSum_[t.m * kQmmVdF32PerBlock];
        aSumWork_ = aSumWide_[t.m * kQmmVdF32PerRepeat];
        epi_.Init(aScale, bScale, yScale, yZp, t, pipe);
        out_.Init(y, static_cast<uint64_t>(t.batch) * t.m * t.n, t.n, t.cStride, pipe);
        // Set behind b's scales' DMA of a group, issued at the group's start; waited for by its epilogue.
        paramsFlag_ = static_cast<event_t>(pipe->template AllocEventID<HardEvent::MTE2_V>());
        worker_ = static_cast<uint64_t>(GetBlockIdx());
        workers_ = static_cast<uint64_t>(t.usedCores) * t.workersPerCore;
        aStride_ = AlignUp32(t.vdAChunkK);
        // Brcb writes whole repeats of 8 blocks: each row of a's pattern starts a whole repeat after the previous one;
        // a panel's pattern starts up to 7 blocks in when its values of a do not start a block of the chunk (with
        // DataCopyPad; without it every panel starts a multiple of 32 rows in: the plan's VectorDecodeUb).
        patternRow_ = (t.vdPanelK + kQmmVdF32PerBlock - 1) / kQmmVdF32PerBlock * kQmmVdF32PerBlock;
        if (AQO_SOC_HAS_DATACOPYPAD && t.vdAChunkK > t.vdPanelK) {
            patternRow_ += kQmmVdF32PerBlock;
        }
        patternRow_ *= kQmmVdF32PerBlock;
        PlanTail();
    }

    // One y matrix in K slices (split SoCs): this worker's slice of its column range into the workspace, a SyncAll,
    // then the sums of the slices of this worker's own columns, requantized. Else: this worker's columns, all of K.
    __aicore__ inline void Process()
    {
        const TD& t = *t_;
        uint64_t u0 = 0, u1 = 0;
        Share(t.unitCount, workers_, worker_, &u0, &u1);  // the plan's WorkerUnits
#if AQO_SOC_SPLIT_CORES
        if (t.vdSlices > 1) {
            uint64_t r0 = 0, r1 = 0;
            Share(t.unitCount, workers_ / t.vdSlices, worker_ / t.vdSlices, &r0, &r1);
            slice_ = static_cast<uint32_t>(worker_ % t.vdSlices);
            // The slice's K rows: an even share of K (the slices end within a row of each other).
            const uint32_t k0 = static_cast<uint32_t>(static_cast<uint64_t>(t.k) * slice_ / t.vdSlices);
            const uint32_t k1 = static_cast<uint32_t>(static_cast<uint64_t>(t.k) * (slice_ + 1) / t.vdSlices);
            // This worker's first group of its own columns: b's scales' DMA goes out before the slice's panels (no
            // scalar work before it), so that only the slices' sums are read after the SyncAll.
            u_ = u0;
            uEnd_ = u1;
            Group g;
            bool have = NextGroup(&g);
            const uint64_t after = u_;
            earlyColumns_ = have;  // issued by Groups behind the first panel's DMA
            earlyCall_ = g.call;
            Groups(r0, r1, k0, k1, true);
            if (earlyColumns_) {
                epi_.IssueColumns(g.call, g.call.n0, g.call.cols, paramsFlag_);  // a slice without groups
                earlyColumns_ = false;
            }
            u_ = after;
            uEnd_ = u1;
            if (have) {
                epi_.LoadRows(g.call);  // the per-tensor parameters, per-row a's scales, while the others finish
            }
            SyncAll<true>();  // every slice's partial sums are in the workspace
            for (bool first = true; have; first = false) {
                SumSlices(g, first);
                Requantize(g);
                have = NextGroup(&g);
                if (have) {
                    LoadEpilogueParams(g);
                }
            }
            pipe_->template ReleaseEventID<HardEvent::MTE2_V>(paramsFlag_);
            return;
        }
#endif
        Groups(u0, u1, 0, t.k, false);
        pipe_->template ReleaseEventID<HardEvent::MTE2_V>(paramsFlag_);
    }

private:
    // Part `i` of `parts` of [0, n), balanced to one.
    __aicore__ static inline void Share(uint64_t n, uint64_t parts, uint64_t i, uint64_t* begin, uint64_t* end)
    {
        if (i >= parts) {
            *begin = *end = 0;
            return;
        }
        const uint64_t q = n / parts, rem = n % parts;
        *begin = i * q + (i < rem ? i : rem);
        *end = *begin + q + (i < rem ? 1 : 0);
    }

    // The groups of units [u0, u1) one after the other, K rows [k0, k1) of each in panels. The panels' DMAs run
    // kQmmVdInSlots panels ahead of the vector work (of this group or the next ones: the GM round trip of a DMA is
    // longer than a panel's vector work), each sent as soon as a panel's first casts free its buffers. partial: the
    // group's sums go to the workspace (this worker's K slice), else through the epilogue to y.
    __aicore__ inline void Groups(uint64_t u0, uint64_t u1, uint32_t k0, uint32_t k1, bool partial)
    {
        SetRows(k0, k1);
        const uint32_t p0 = 0, p1 = PanelCount();
        u_ = u0;
        uEnd_ = u1;
        made_ = done_ = 0;
        if (!NextGroup(&ring_[0])) {
            return;
        }
        fetchSlot_ = 0;
        fetchPanel_ = p0;
        fetchEnd_ = p0 >= p1;  // a slice without panels: its sums are 0
        fetchFirst_ = p0;
        fetchLast_ = p1;
        // The first panel's DMA first (the stream is the critical path from the launch on), then, for a K slice,
        // the epilogue's columns of this worker (needed only after the SyncAll, but their DMA waits for the vector
        // unit's earlier work: none yet) and the first group's zero points (ahead of the next panels, which the
        // vector unit would otherwise wait for too).
        Fetch();
        if (earlyColumns_) {
            epi_.IssueColumns(earlyCall_, earlyCall_.n0, earlyCall_.cols, paramsFlag_);
            earlyColumns_ = false;
        }
        LoadZeroPoints(ring_[0]);
        for (uint32_t d = 1; d < kQmmVdInSlots; ++d) {
            Fetch();
        }
        while (done_ < made_) {
            // A copy: with one panel a group, the fetch cursor cuts the group after next into this slot meanwhile.
            Group g = ring_[done_ % kQmmVdRing];
            ReadZeroPoints(&g);  // after the first panel's DMA went out
            if (!partial) {
                // The epilogue's parameters now (their DMA's round trip hidden under the panels), before b's zero
                // points, whose DMA the vector unit waits for: MTE2 would otherwise wait behind that.
                epi_.IssueColumns(g.call, g.call.n0, g.call.cols, paramsFlag_);
                epi_.Prime();
            }
            if (done_ != 0) {
                LoadZeroPoints(g);
            }
            ClearSums(g.correct);
            ClearFloatSums();
            for (uint32_t p = p0; p < p1; ++p) {
                Compute(g, p);  // sends the DMA of the panel kQmmVdInSlots ahead once this one's buffers are free
            }
            if (summed_ != 0) {
                FlushSums(g, false);  // the next group clears the float32 sums at its start
            }
            if (p0 >= p1) {
                NextGroup(&ring_[made_ % kQmmVdRing]);  // no panels, no fetch cursor: the next group is cut here
            }
            if (partial) {
                WritePartial(g);
            } else {
                Epilogue(g);
            }
            ++done_;
        }
    }

    // The next panel's DMA at the fetch cursor, which then moves on (to the next group's first panel after the last
    // one: the group is cut then, into the ring's next slot, free since its group's copy was taken).
    __aicore__ inline void Fetch()
    {
        const uint32_t p0 = fetchFirst_, p1 = fetchLast_;
        if (fetchEnd_) {
            return;
        }
        CopyIn(ring_[fetchSlot_], fetchPanel_);
        if (++fetchPanel_ < p1) {
            return;
        }
        const uint32_t next = (fetchSlot_ + 1) % kQmmVdRing;
        if (NextGroup(&ring_[next])) {
            fetchSlot_ = next;
            fetchPanel_ = p0;
        } else {
            fetchEnd_ = true;
        }
    }

    struct Group {
        QmmCall call;     // bi, ai, bj, rows [0, M), columns [n0, n0 + cols)
        uint32_t stride;  // UB row stride of the group's panels: cols rounded up to 32
        int32_t za[kQmmVdMaxRows];  // a's zero points of the rows
        int32_t zb;       // b's zero point (per tensor)
        bool correct;     // b has a zero point other than 0 (or per column): Correct subtracts zb * sum(a - a_zp)
    };

    // Cuts the next group of the units being cut into *g (made_ counts them); false when they are done.
    __aicore__ inline bool NextGroup(Group* g)
    {
        const TD& t = *t_;
        if (u_ >= uEnd_) {
            return false;
        }
        const uint64_t per = t.vdGranules;
        const uint64_t bi = u_ / per, first = u_ % per;
        const uint64_t widest = t.cStride / t.vdGranule;  // units of one group at most
        uint64_t units = uEnd_ - u_;
        units = units < per - first ? units : per - first;
        units = units < widest ? units : widest;
        u_ += units;
        ++made_;
        QmmCall& c = g->call;
        c.bi = bi;
        QmmBatchOperands(t, bi, &c.ai, &c.bj);
        c.m0 = 0;
        c.rows = t.m;
        c.n0 = static_cast<uint32_t>(first * t.vdGranule);
        const uint64_t end = (first + units) * t.vdGranule;
        c.cols = static_cast<uint32_t>((end < t.n ? end : t.n) - c.n0);
        g->stride = AlignUp32(c.cols);
        return true;
    }

    // The group's zero points a row of a and per-tensor b (scalar GM reads: after the DMAs that need no scalar).
    __aicore__ inline void ReadZeroPoints(Group* g)
    {
        const TD& t = *t_;
        for (uint32_t i = 0; i < t.m; ++i) {
            const uint64_t at = t.aZpKind == kQmmParamVector ? (t.aZpBatchStride ? g->call.ai * t.m : 0) + i : 0;
            g->za[i] = t.aZpKind == kQmmParamNone ? 0 : QmmZeroPointValue(aZpGm_.GetValue(at), t.aCode, 0);
        }
        g->zb = t.bZpKind == kQmmParamTensor ? QmmZeroPointValue(bZpGm_.GetValue(0), t.bCode, 0) : 0;
        g->correct = t.bZpKind == kQmmParamVector || g->zb != 0;
    }

    // The panels of K rows [kBegin_, kEnd_): aqo_qmm_layout.h VdTailPanels (a short last panel ends the sums soon
    // after the stream's last byte).
    __aicore__ inline void PlanTail()
    {
        tailLen_ = aqo_qmm_layout::VdTailPanels(t_->vdPanelK, AQO_SOC_HAS_DATACOPYPAD != 0,
                                                aqo_qmm_layout::VdStaggered(worker_), tailEnd_);
    }

    // Rows of the last q + 1 panels.
    __aicore__ inline uint32_t TailRows(uint32_t q) const
    {
        return aqo_qmm_layout::VdRowsFromEnd(q, t_->vdPanelK, tailEnd_, tailLen_);
    }

    // Sets the K rows being summed and their panel count.
    __aicore__ inline void SetRows(uint32_t k0, uint32_t k1)
    {
        kBegin_ = k0;
        kEnd_ = k1;
        panels_ = aqo_qmm_layout::VdPanelCount(k1 - k0, t_->vdPanelK, tailEnd_, tailLen_);
    }

    __aicore__ inline uint32_t PanelCount() const { return panels_; }

    // Panel p's first row and its rows (panel panels_ - 1 is the last).
    __aicore__ inline uint32_t PanelRow(uint32_t p) const
    {
        const uint32_t fromEnd = TailRows(panels_ - 1 - p);
        return kEnd_ - kBegin_ > fromEnd ? kEnd_ - fromEnd : kBegin_;
    }

    __aicore__ inline uint32_t PanelEnd(uint32_t p) const
    {
        return p + 1 == panels_ ? kEnd_ : PanelRow(p + 1);
    }

    __aicore__ inline uint32_t PanelRows(uint32_t p) const { return PanelEnd(p) - PanelRow(p); }

    // a's chunks: vdAChunkK / vdPanelK panels each (at most vdAChunkK rows), the last one the rest.
    __aicore__ inline uint32_t ChunkPanels() const { return t_->vdAChunkK / t_->vdPanelK; }

    __aicore__ inline bool ChunkStart(uint32_t p) const { return p % ChunkPanels() == 0; }

    // Panel p's first row from its chunk's first.
    __aicore__ inline uint32_t ChunkOffset(uint32_t p) const { return PanelRow(p) - PanelRow(p - p % ChunkPanels()); }

    // The rows of the chunk that panel p starts.
    __aicore__ inline uint32_t ChunkRows(uint32_t p) const
    {
        return PanelEnd(QmmMin(p + ChunkPanels(), panels_) - 1) - PanelRow(p);
    }

    // Whether panel p lies in the group's last chunk of a.
    __aicore__ inline bool LastChunk(uint32_t p) const { return p - p % ChunkPanels() + ChunkPanels() >= panels_; }

    // Panel p of the group (from row kBegin_ on): its rows of b (kr x cols, rows `stride` bytes apart in UB) and, when
    // it starts a chunk, the chunk's K range of a's M rows (rows aStride_ = vdAChunkK rounded up to 32 bytes apart).
    __aicore__ inline void CopyIn(const Group& g, uint32_t p)
    {
        const TD& t = *t_;
        const QmmCall& c = g.call;
        const uint32_t k0 = PanelRow(p);
        const uint32_t kr = PanelRows(p);
        const bool chunk = ChunkStart(p);
        const uint32_t ka = chunk ? ChunkRows(p) : 0u;
        const uint64_t bSrc = (c.bj * t.k + k0) * t.n + c.n0;
        const uint64_t aSrc = c.ai * t.m * t.k + k0;
        LocalTensor<uint8_t> bIn = bInQue_.template AllocTensor<uint8_t>();
#if AQO_SOC_HAS_DATACOPYPAD
        DataCopyExtParams bPrm(static_cast<uint16_t>(kr), c.cols, t.n - c.cols, 0, 0);
        DataCopyPadExtParams<uint8_t> bPad(true, 0, static_cast<uint8_t>(g.stride - c.cols), 0);
        DataCopyPad(bIn, bGm_[bSrc], bPrm, bPad);
        if (chunk) {
            LocalTensor<AT> aIn = aInQue_.template AllocTensor<AT>();
            DataCopyExtParams aPrm(static_cast<uint16_t>(t.m), ka, t.k - ka, (aStride_ - AlignUp32(ka)) / kBlockBytes,
                                   0);
            DataCopyPadExtParams<AT> aPad(true, 0, static_cast<uint8_t>(AlignUp32(ka) - ka), 0);
            DataCopyPad(aIn, aGm_[aSrc], aPrm, aPad);
            aInQue_.EnQue(aIn);
        }
#else
        // The plan: N, K and so every panel's and chunk's columns and rows are whole 32-byte blocks here.
        DataCopyParams bPrm(static_cast<uint16_t>(kr), static_cast<uint16_t>(c.cols / kBlockBytes),
                            static_cast<uint16_t>((t.n - c.cols) / kBlockBytes), 0);
        DataCopy(bIn, bGm_[bSrc], bPrm);
        if (chunk) {
            LocalTensor<AT> aIn = aInQue_.template AllocTensor<AT>();
            DataCopyParams aPrm(static_cast<uint16_t>(t.m), static_cast<uint16_t>(ka / kBlockBytes),
                                static_cast<uint16_t>((t.k - ka) / kBlockBytes),
                                static_cast<uint16_t>((aStride_ - ka) / kBlockBytes));
            DataCopy(aIn, aGm_[aSrc], aPrm);
            aInQue_.EnQue(aIn);
        }
#endif
        bInQue_.EnQue(bIn);
    }

    // Per-column zero points of b in half.
    __aicore__ inline void LoadZeroPoints(const Group& g)
    {
        const TD& t = *t_;
        const QmmCall& c = g.call;
        if (t.bZpKind != kQmmParamVector) {
            return;
        }
        const uint64_t base = (t.bZpBatchStride ? c.bj * t.n : 0) + c.n0;
        aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);  // the previous group's Correct may still read zbHalf_'s block
        QmmCopyBytesIn(zbIn_, bZpGm_, base, c.cols, bZpElems_);
        aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);
        PipeBarrier<PIPE_V>();
        if (t.bCode == kQmmCodeUInt8) {
            Cast(zbHalf_, zbIn_, RoundMode::CAST_NONE, g.stride);
        } else {
            Cast(zbHalf_, zbIn_.template ReinterpretCast<int8_t>(), RoundMode::CAST_NONE, g.stride);
        }
    }

    // The group's sums start at 0 (after the previous group's epilogue or copy read them), and its lanes of a - a_zp
    // when b's zero point is corrected.
    __aicore__ inline void ClearSums(bool lanes = false)
    {
        PipeBarrier<PIPE_V>();
        Duplicate(acc_, static_cast<int32_t>(0), t_->m * t_->cStride);
        if (lanes) {
            Duplicate(aLanes_, 0.0f, t_->m * aqo_qmm_layout::kVdSumLanes);
            Duplicate(aSum_, 0.0f, t_->m * kQmmVdF32PerBlock);  // Brcb reads the sum's whole block (Correct)
        }
    }

    __aicore__ inline void Compute(const Group& g, uint32_t p)
    {
        const TD& t = *t_;
        const uint32_t s = g.stride;
        const uint32_t kr = PanelRows(p);
        const uint32_t elems = kr * s;
        // A chunk's first panel brings its rows of a too: ka of them, the chunk's float32 a - a_zp (aF32_) serving
        // every panel of the chunk from offset `off` on.
        const uint32_t off = ChunkOffset(p);
        const uint32_t ka = ChunkStart(p) ? ChunkRows(p) : 0u;
        LocalTensor<uint8_t> bIn = bInQue_.template DeQue<uint8_t>();
        LocalTensor<AT> aIn;
        if (ka != 0) {
            aIn = aInQue_.template DeQue<AT>();
        }
        // b (b_zp is Correct's, once a group) and a - a_zp: half (exact integers in [-255, 255]), then float32, each
        // value of a over a 32-byte block. The panel's buffers are free after the first casts: the DMA of the panel
        // kQmmVdInSlots ahead goes out then.
        const uint32_t aElems = t.m * aStride_;
        const uint32_t ka8 = (ka + kQmmVdF32PerBlock - 1) / kQmmVdF32PerBlock * kQmmVdF32PerBlock;
        PipeBarrier<PIPE_V>();  // bHalf_, aHalf_ and aF32_ were read by the previous panel's steps
        if (t.bCode == kQmmCodeUInt8) {
            Cast(bHalf_, bIn, RoundMode::CAST_NONE, elems);
        } else {
            Cast(bHalf_, bIn.template ReinterpretCast<int8_t>(), RoundMode::CAST_NONE, elems);
        }
        if (ka != 0) {
            Cast(aHalf_, aIn, RoundMode::CAST_NONE, aElems);
        }
        PipeBarrier<PIPE_V>();
        bInQue_.FreeTensor(bIn);
        if (ka != 0) {
            aInQue_.FreeTensor(aIn);
        }
        Fetch();
        bool shifted = false;
        for (uint32_t i = 0; i < t.m && ka != 0; ++i) {
            if (g.za[i] != 0) {
                Adds(aHalf_[i * aStride_], aHalf_[i * aStride_], static_cast<half>(static_cast<float>(-g.za[i])), ka8);
                shifted = true;
            }
        }
        if (shifted) {
            PipeBarrier<PIPE_V>();
        }
        Cast(bF32_, bHalf_, RoundMode::CAST_NONE, elems);
        if (ka != 0) {
            Cast(aF32_, aHalf_, RoundMode::CAST_NONE, aElems);
        }
        PipeBarrier<PIPE_V>();
        if (ka != 0 && g.correct) {
            // The chunk's a - a_zp into the row's 64 lanes (Correct): the documented accumulation form (the lanes are
            // dst and src1, both with repeat stride 0: iteration r adds the chunk's r-th 64 values to what r - 1
            // left), 255 iterations an instruction, then the masked rest; the rows' instructions between the same
            // barriers.
            const uint32_t whole = ka / kQmmVdF32PerRepeat;
            const uint32_t rest = ka % kQmmVdF32PerRepeat;  // values of the masked last instruction
            const uint32_t instrs = (whole + kQmmMaxRepeat - 1) / kQmmMaxRepeat + (rest != 0 ? 1u : 0u);
            for (uint32_t j = 0; j < instrs; ++j) {
                if (j != 0) {
                    PipeBarrier<PIPE_V>();
                }
                const bool last = j * kQmmMaxRepeat >= whole;  // the masked rest after the whole iterations
                const uint32_t from = (last ? whole : j * kQmmMaxRepeat) * kQmmVdF32PerRepeat;
                const uint32_t reps = last ? 1u : QmmMin(kQmmMaxRepeat, whole - j * kQmmMaxRepeat);
                const uint32_t mask = last ? rest : kQmmVdF32PerRepeat;
                for (uint32_t i = 0; i < t.m; ++i) {
                    const LocalTensor<float> lanes = aLanes_[i * aqo_qmm_layout::kVdSumLanes];
                    Add(lanes, aF32_[i * aStride_ + from], lanes, mask, static_cast<uint8_t>(reps),
                        BinaryRepeatParams(1, 1, 1, 0, kQmmVdF32PerRepeat / kQmmVdF32PerBlock, 0));
                }
            }
        }
        // The panel's values of a from the block holding the first (Brcb reads whole blocks): its pattern starts
        // `lead` blocks in.
        const uint32_t lead = off % kQmmVdF32PerBlock;
        const uint32_t brcbRepeats = (lead + kr + kQmmVdF32PerBlock - 1) / kQmmVdF32PerBlock;
        for (uint32_t i = 0; i < t.m; ++i) {
            Brcb(pattern_[i * patternRow_], aF32_[i * aStride_ + off - lead], static_cast<uint8_t>(brcbRepeats),
                 BrcbRepeatParams(1, kQmmVdF32PerBlock));
        }
        PipeBarrier<PIPE_V>();
        // Per row of a: the products added to the row's float32 sums, one per panel row and column (panel row k times
        // the block of a[m, k], added to sums row k). Either one MulAddDst per 64 columns whose iteration k is panel
        // row k (narrow groups of many rows), or one per panel row whose iterations are its 64-column pieces (wide
        // groups: a row stride beyond the 255 blocks of a repeat stride, or fewer instructions). Either way every sum
        // takes exactly the same product, so the two give the same bits.
        const bool rowForm = RowForm(s, kr);
        const uint32_t rowStride = s * static_cast<uint32_t>(sizeof(float)) / kBlockBytes;  // in 32-byte blocks
        const uint32_t sumStride = SumStride();
        const bool stridesFit = sumStride <= 255;  // and so rowStride (s <= cStride)
        const uint32_t whole = s / kQmmVdF32PerRepeat * kQmmVdF32PerRepeat;  // s is a multiple of 32
        for (uint32_t i = 0; i < t.m; ++i) {
            const LocalTensor<float> a = pattern_[i * patternRow_ + lead * kQmmVdF32PerBlock];
            const LocalTensor<float> sums = sums_[i * t.vdPanelK * t.cStride];
            if (rowForm) {
                const uint8_t repeats = static_cast<uint8_t>(whole / kQmmVdF32PerRepeat);
                for (uint32_t k = 0; k < kr; ++k) {
                    const LocalTensor<float> ak = a[k * kQmmVdF32PerBlock];  // one block of a[m, k] for every piece
                    if (repeats != 0) {
                        MulAddDst(sums[k * t.cStride], bF32_[k * s], ak, kQmmVdF32PerRepeat, repeats,
                                  BinaryRepeatParams(1, 1, 0, kQmmVdF32PerRepeat / kQmmVdF32PerBlock,
                                                     kQmmVdF32PerRepeat / kQmmVdF32PerBlock, 0));
                    }
                    if (whole != s && !stridesFit) {
                        MulAddDst(sums[k * t.cStride + whole], bF32_[k * s + whole], ak, s - whole, 1,
                                  BinaryRepeatParams(1, 1, 0, 0, 0, 0));
                    }
                }
                if (whole == s || !stridesFit) {
                    continue;
                }
            }
            // The column form (iteration k: panel row k), for every 64 columns or the row form's 32-column tail.
            for (uint32_t j = rowForm ? whole : 0; j < s; j += kQmmVdF32PerRepeat) {
                const uint32_t mask = QmmMin(kQmmVdF32PerRepeat, s - j);
                MulAddDst(sums[j], bF32_[j], a, mask, static_cast<uint8_t>(kr),
                          BinaryRepeatParams(1, 1, 0, static_cast<uint8_t>(sumStride), static_cast<uint8_t>(rowStride),
                                             1));
            }
        }
        if (ka != 0 && g.correct && LastChunk(p)) {
            Correct(g);  // every value of a is in the lanes: b's zero-point term now, under the DMAs of the rest
        }
        if (++summed_ == kQmmVdMaxPanelSums) {
            FlushSums(g, true);
        }
    }

    // Whether a panel's products (kr rows of s float32 columns) go one MulAddDst per panel row (iterations along the
    // row) rather than one per 64 columns (iterations down the rows): when the sums' row stride (cStride >= s) would
    // not fit a repeat stride's 255 blocks, or when it takes fewer instructions (a 32-column tail then goes in the
    // column form, one instruction for all rows).
    __aicore__ inline bool RowForm(uint32_t s, uint32_t kr) const
    {
        const uint32_t pieces = (s + kQmmVdF32PerRepeat - 1) / kQmmVdF32PerRepeat;
        return SumStride() > 255 || kr + (s % kQmmVdF32PerRepeat != 0 ? 1u : 0u) < pieces;
    }

    // The float32 sums' row stride in 32-byte blocks (cStride columns).
    __aicore__ inline uint32_t SumStride() const
    {
        return t_->cStride * static_cast<uint32_t>(sizeof(float)) / kBlockBytes;
    }

    // The float32 sums to 0 (each element sums one product of each panel since the last flush).
    __aicore__ inline void ClearFloatSums()
    {
        PipeBarrier<PIPE_V>();
        Duplicate(sums_, 0.0f, t_->m * t_->vdPanelK * t_->cStride);
        summed_ = 0;
    }

    // The float32 sums into the group's int32 sums. Per row of a, its vdPanelK rows: halved in float32 while that
    // stays exact (each sum an integer of at most summed_ products; twice the bound below 2^24), the rest converted to
    // int32 (exact integers below 2^24: any rounding mode gives them) into bF32_'s bytes and summed there by halving
    // int32 Adds (the partial sums pass 2^24: float32 would round them; int32 stays exact below 2^31), then added to
    // the row's sums. The float32 sums are cleared when more panels of the group follow (`clear`).
    __aicore__ inline void FlushSums(const Group& g, bool clear)
    {
        const TD& t = *t_;
        const uint32_t s = g.stride;
        LocalTensor<int32_t> rows32 = bF32_.template ReinterpretCast<int32_t>();
        // The float32 halvings of every row of a, one barrier each.
        uint32_t rows = t.vdPanelK;
        uint64_t bound = static_cast<uint64_t>(summed_) * kQmmVdMaxProduct;  // |every sum| at most
        while (rows > 1 && 2 * bound < kQmmVdF32Exact) {
            PipeBarrier<PIPE_V>();
            const uint32_t top = rows / 2;  // rows [rows - top, rows) onto rows [0, top)
            for (uint32_t i = 0; i < t.m; ++i) {
                const LocalTensor<float> f = sums_[i * t.vdPanelK * t.cStride];
                Add(f, f, f[(rows - top) * t.cStride], top * t.cStride);
            }
            rows -= top;
            bound *= 2;
        }
        for (uint32_t i = 0; i < t.m; ++i) {
            const LocalTensor<float> f = sums_[i * t.vdPanelK * t.cStride];
            PipeBarrier<PIPE_V>();  // bF32_ read by the last panel's products / the previous row's sums
            Cast(rows32, f, RoundMode::CAST_RINT, rows * t.cStride);
            PipeBarrier<PIPE_V>();
            for (uint32_t r = rows; r > 1;) {
                const uint32_t top = r / 2;
                Add(rows32, rows32, rows32[(r - top) * t.cStride], top * t.cStride);
                PipeBarrier<PIPE_V>();
                r -= top;
            }
            Add(acc_[i * t.cStride], acc_[i * t.cStride], rows32, s);
        }
        if (clear) {
            ClearFloatSums();
        }
    }

    // b's zero point, once a group: sum_k (a_k - za)(b_kn - zb_n) = sum_k (a_k - za) b_kn - zb_n sum_k (a_k - za).
    // The panels multiply b as it is; here, as soon as the group's last chunk of a is in the lanes (float32 integers,
    // exact in any order while K * 255 < 2^24), each row's sum of a - za is broadcast, converted to int32 and times zb
    // (int32: |zb * sum| <= 255 * 255 * K < 2^31), then subtracted from the row's int32 sums before the flushes add
    // the products: every value they pass through is sum over the flushed rows of (a - za)(b - zb) minus zb times the
    // sum of a - za over the others, at most 255 * 255 * K too. Every step is exact, so the sums are the golden's
    // whatever the unit's rounding. Scratch in bHalf_ only (zb in int32, then the product of each row of a: kp >= 4 M
    // >= 2 (M + 1) rows of half give them room), between a panel's float32 cast of b and the next panel's cast.
    __aicore__ inline void Correct(const Group& g)
    {
        const TD& t = *t_;
        const uint32_t s = g.stride;
        LocalTensor<int32_t> zbI = bHalf_.template ReinterpretCast<int32_t>();
        LocalTensor<int32_t> prod = zbI[s];
        LocalTensor<int32_t> wideI = aSumWide_.template ReinterpretCast<int32_t>();
        PipeBarrier<PIPE_V>();  // the lanes' last Add; bHalf_ read by the panel's cast
        for (uint32_t i = 0; i < t.m; ++i) {
            if (i != 0) {
                PipeBarrier<PIPE_V>();  // the rows share ReduceSum's work block
            }
            ReduceSum(aSum_[i * kQmmVdF32PerBlock], aLanes_[i * aqo_qmm_layout::kVdSumLanes], aSumWork_,
                      static_cast<int32_t>(aqo_qmm_layout::kVdSumLanes));
        }
        if (t.bZpKind == kQmmParamVector) {
            Cast(zbI, zbHalf_, RoundMode::CAST_RINT, s);  // exact integers
        } else {
            Duplicate(zbI, g.zb, static_cast<int32_t>(s));
        }
        PipeBarrier<PIPE_V>();
        for (uint32_t i = 0; i < t.m; ++i) {
            Brcb(aSumWide_[i * kQmmVdF32PerRepeat], aSum_[i * kQmmVdF32PerBlock], 1, BrcbRepeatParams(1, 8));
        }
        PipeBarrier<PIPE_V>();
        Cast(wideI, aSumWide_, RoundMode::CAST_RINT, t.m * kQmmVdF32PerRepeat);  // exact integers
        PipeBarrier<PIPE_V>();
        // zb times the row's sum: the sum's block (block stride 0, repeat stride 0) against every 64 columns.
        const uint32_t whole = s / kQmmVdF32PerRepeat * kQmmVdF32PerRepeat;
        for (uint32_t i = 0; i < t.m; ++i) {
            const LocalTensor<int32_t> sum = wideI[i * kQmmVdF32PerRepeat];
            if (whole != 0) {
                Mul(prod[i * s], zbI, sum, kQmmVdF32PerRepeat, static_cast<uint8_t>(whole / kQmmVdF32PerRepeat),
                    BinaryRepeatParams(1, 1, 0, 8, 8, 0));
            }
            if (whole != s) {
                Mul(prod[i * s + whole], zbI[whole], sum, s - whole, 1, BinaryRepeatParams(1, 1, 0, 8, 8, 0));
            }
        }
        PipeBarrier<PIPE_V>();
        for (uint32_t i = 0; i < t.m; ++i) {
            Sub(acc_[i * t.cStride], acc_[i * t.cStride], prod[i * s], s);
        }
    }

    // The group's y: its parameters (b's scales issued at the group's start), then float32(acc) requantized and
    // copied out.
    __aicore__ inline void Epilogue(const Group& g)
    {
        epi_.LoadRows(g.call);
        epi_.FinishColumns(paramsFlag_);
        Requantize(g);
    }

    // The requantization's parameters of the group's rows and columns.
    __aicore__ inline void LoadEpilogueParams(const Group& g)
    {
        epi_.LoadRows(g.call);
        epi_.LoadColumns(g.call, g.call.n0, g.call.cols);
    }

    // float32(acc) (exact where |acc| > 2^24 needs it), requantized, copied out.
    __aicore__ inline void Requantize(const Group& g)
    {
        const TD& t = *t_;
        const QmmCall& c = g.call;
        const uint32_t elems = t.m * t.cStride;
        PipeBarrier<PIPE_V>();
        LocalTensor<float> f = QmmInt32ToFloat(acc_, sums_, elems, t.exactConvert != 0);
        LocalTensor<YT> y = epi_.Compute(f, sums_, 0, t.m, c.cols);
        out_.Rows(y, c.bi * t.m, t.m, c.n0, c.cols);
        epi_.FreeY(y);
    }

#if AQO_SOC_SPLIT_CORES
    // This worker's K slice of the group's sums into the workspace: [vdSlices, M, N] int32 (one y matrix).
    __aicore__ inline void WritePartial(const Group& g)
    {
        const TD& t = *t_;
        const QmmCall& c = g.call;
        const uint32_t bytes = c.cols * static_cast<uint32_t>(sizeof(int32_t));
        aqo_kernel::WaitPipe<HardEvent::V_MTE3>(pipe_);
        DataCopyExtParams prm(static_cast<uint16_t>(t.m), bytes,
                              (t.cStride * static_cast<uint32_t>(sizeof(int32_t)) - AlignUp32(bytes)) / kBlockBytes,
                              (t.n - c.cols) * static_cast<uint32_t>(sizeof(int32_t)), 0);
        DataCopyPad(wsGm_[static_cast<uint64_t>(slice_) * t.m * t.n + c.n0], acc_, prm);
        aqo_kernel::WaitPipe<HardEvent::MTE3_V>(pipe_);  // the next group clears acc_
    }

    // The slices' sums of the group's columns (after the SyncAll) into acc_: as many slices a DMA as b's panel
    // buffer holds (all of them for a decode step: one GM round trip), their M-row blocks summed by halving Adds.
    // The vector work that does not need them goes out behind the first DMA (the drain's longest step): clearing
    // acc_ and, for the first group (`multiplier`), the epilogue's multiplier of b's scales issued before the SyncAll.
    __aicore__ inline void SumSlices(const Group& g, bool multiplier)
    {
        const TD& t = *t_;
        const QmmCall& c = g.call;
        const uint32_t bytes = c.cols * static_cast<uint32_t>(sizeof(int32_t));
        const uint32_t rowInts = AlignUp32(bytes) / static_cast<uint32_t>(sizeof(int32_t));  // UB row: 32-byte blocks
        const uint32_t block = t.m * rowInts;                                                // one slice's M rows
        const uint32_t perCopy = QmmMin(t.vdSlices, t.ubVdB / (block * static_cast<uint32_t>(sizeof(int32_t))));
        for (uint32_t s0 = 0; s0 < t.vdSlices; s0 += perCopy) {
            const uint32_t n = QmmMin(perCopy, t.vdSlices - s0);
            LocalTensor<int32_t> x = bInQue_.template AllocTensor<int32_t>();
            DataCopyExtParams prm(static_cast<uint16_t>(n * t.m), bytes,
                                  (t.n - c.cols) * static_cast<uint32_t>(sizeof(int32_t)), 0, 0);
            DataCopyPadExtParams<int32_t> pad(true, 0, static_cast<uint8_t>(rowInts - c.cols), 0);
            DataCopyPad(x, wsGm_[static_cast<uint64_t>(s0) * t.m * t.n + c.n0], prm, pad);
            bInQue_.EnQue(x);
            if (s0 == 0) {
                ClearSums();
                if (multiplier) {
                    epi_.FinishColumns(paramsFlag_);
                }
            }
            x = bInQue_.template DeQue<int32_t>();
            PipeBarrier<PIPE_V>();  // acc_ cleared or summed by the instructions before
            for (uint32_t rows = n; rows > 1;) {
                const uint32_t top = rows / 2;  // slices [rows - top, rows) onto slices [0, top)
                Add(x, x, x[(rows - top) * block], top * block);
                PipeBarrier<PIPE_V>();
                rows -= top;
            }
            for (uint32_t i = 0; i < t.m; ++i) {
                Add(acc_[i * t.cStride], acc_[i * t.cStride], x[i * rowInts], rowInts);
            }
            PipeBarrier<PIPE_V>();
            bInQue_.FreeTensor(x);
        }
    }
#else
    __aicore__ inline void WritePartial(const Group&) {}
#endif

    const TD* t_ = nullptr;
    TPipe* pipe_ = nullptr;
    GlobalTensor<AT> aGm_;
    GlobalTensor<uint8_t> bGm_, aZpGm_, bZpGm_;
    GlobalTensor<int32_t> wsGm_;  // the slices' partial sums (vdSlices > 1)
    uint64_t aZpElems_ = 1, bZpElems_ = 1;
    TQue<QuePosition::VECIN, kQmmVdInSlots> bInQue_, aInQue_;
    TBuf<TPosition::VECCALC> bHalfBuf_, bF32Buf_, sumsBuf_, aHalfBuf_, aF32Buf_, patternBuf_, accBuf_, zbBuf_, aSumBuf_;
    LocalTensor<half> bHalf_, aHalf_, zbHalf_;
    LocalTensor<float> bF32_, sums_, aF32_, pattern_;
    // b's zero-point correction (Correct): per row of a, the lanes summing a - a_zp, their sum, the sum over 8
    // blocks; ReduceSum's work block.
    LocalTensor<float> aLanes_, aSum_, aSumWide_, aSumWork_;
    LocalTensor<int32_t> acc_;
    LocalTensor<uint8_t> zbIn_;
    uint64_t worker_ = 0, workers_ = 0;
    uint64_t u_ = 0, uEnd_ = 0;  // the units of the groups being cut (Groups, SumSlices)
    uint32_t aStride_ = 0, patternRow_ = 0, slice_ = 0;
    uint32_t kBegin_ = 0, kEnd_ = 0, panels_ = 0;  // the K rows of the groups being summed, their panels
    unsigned tailEnd_[aqo_qmm_layout::kVdTailEnds] = {};  // rows of the last 1, 2, ... short panels
    uint32_t tailLen_ = 0;
    QmmCall earlyCall_;          // the epilogue's first group of a K slice worker, its columns' DMA
    bool earlyColumns_ = false;  // ... not issued yet (Groups issues it behind its first panel)
    Group ring_[kQmmVdRing];  // the group being summed and the ones the fetch cursor has cut ahead
    uint32_t made_ = 0, done_ = 0, fetchSlot_ = 0, fetchPanel_ = 0;
    uint32_t fetchFirst_ = 0, fetchLast_ = 0;  // the panels of every group being summed
    bool fetchEnd_ = false;
    uint32_t summed_ = 0;  // panels in the float32 sums since their last flush
    event_t paramsFlag_ = static_cast<event_t>(0);  // b's scales of the group arrived (Epilogue)
    QmmRequantEpilogue<TD, YT, false> epi_;
    QmmCopyOut<YT> out_;
};
