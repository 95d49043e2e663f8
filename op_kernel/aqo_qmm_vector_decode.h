// AqoQLinearMatMul's vector decode path (tiling key 1; the plan: op_host/tiling_core/
// qlinear_matmul_vector_decode_plan.h): a short a (M <= 3) against a uint8 b stored [..., K, N], on the vector
// cores alone. The cube takes int8 only, so on the cube path a uint8 b is first mapped into the workspace (b read,
// written and read again); here b is read once, by the core that needs it, and multiplied where it lands.
//
//   * a worker owns a contiguous range of y's column units (vdGranule columns, batch x vdGranules of them), cut into
//     groups of at most cStride columns; a group streams its columns of b in panels of vdPanelK rows (double
//     buffered: the next panel's DMA runs under this one's vector work) with the panel's columns of a's M rows;
//   * per panel: b - b_zp in half, then float32 (exact: integers in [-255, 255]); a - a_zp likewise, each value
//     broadcast over one 32-byte block (Brcb), so that one level-0 Mul per 64 columns multiplies panel row k by
//     a[m, k] for all k at once (the source's block stride 0 reads the block of row k in every block of iteration
//     k); the panel's rows are summed by halving Adds, converted to int32 and added to the group's sums;
//   * exact in every step: |products| <= 255 * 255, a panel's float32 sums stay below 2^24 (vdPanelK <= 128) and
//     the int32 sums below 2^31 (K <= 33025, the plan's limit): no rounding or wrap, whatever the unit's modes;
//   * then the group's M rows through the requantization epilogue (aqo_qmm_requant_epilogue.h) and the copy-out.
//
// No include guard (see aqo_kernel_common.h). Needs aqo_kernel_common.h, aqo_qmm_common.h, aqo_qmm_zero_point.h
// (QmmZeroPointValue), aqo_qmm_cube_stage.h (QmmCall, QmmBatchOperands), aqo_qmm_requant_epilogue.h,
// aqo_qmm_copy_out.h.

// Elements of one 256-byte repeat of a float32 / half level-0 instruction.
constexpr uint32_t kQmmVdF32PerRepeat = 64;
constexpr uint32_t kQmmVdHalfPerRepeat = 128;
// float32 values per 32-byte block (Brcb writes one value over a block).
constexpr uint32_t kQmmVdF32PerBlock = 8;

template <class TD, class AT, class YT>
class KernelQLinearMatMulVectorDecode {
public:
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                                GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, const TD& t, TPipe* pipe)
    {
        t_ = &t;
        pipe_ = pipe;
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
        pipe->InitBuffer(bInQue_, 2, t.ubVdB);
        pipe->InitBuffer(aInQue_, 2, t.ubVdA);
        pipe->InitBuffer(bHalfBuf_, t.ubVdBHalf);
        pipe->InitBuffer(bF32Buf_, t.ubVdBF32);
        pipe->InitBuffer(prodBuf_, t.ubVdBF32);
        pipe->InitBuffer(aHalfBuf_, t.ubVdAHalf);
        pipe->InitBuffer(aF32Buf_, t.ubVdAF32);
        pipe->InitBuffer(patternBuf_, t.ubVdPattern);
        pipe->InitBuffer(accBuf_, t.ubVdAcc);
        pipe->InitBuffer(zbBuf_, t.ubVdZb);
        bHalf_ = bHalfBuf_.Get<half>();
        bF32_ = bF32Buf_.Get<float>();
        prod_ = prodBuf_.Get<float>();
        aHalf_ = aHalfBuf_.Get<half>();
        aF32_ = aF32Buf_.Get<float>();
        pattern_ = patternBuf_.Get<float>();
        acc_ = accBuf_.Get<int32_t>();
        zbHalf_ = zbBuf_.Get<half>();
        zbIn_ = zbBuf_.Get<uint8_t>()[t.cStride * 2];
        epi_.Init(aScale, bScale, yScale, yZp, t, pipe);
        out_.Init(y, static_cast<uint64_t>(t.batch) * t.m * t.n, t.n, t.cStride, t.rowsPerChunk * t.cStride, pipe);
        // This worker's units: the batch x vdGranules units split evenly (the plan's WorkerUnits).
        const uint64_t worker = static_cast<uint64_t>(GetBlockIdx());
        const uint64_t workers = static_cast<uint64_t>(t.usedCores) * t.workersPerCore;
        if (worker < workers) {
            const uint64_t q = t.unitCount / workers, rem = t.unitCount % workers;
            u_ = worker * q + (worker < rem ? worker : rem);
            uEnd_ = u_ + q + (worker < rem ? 1 : 0);
        }
        panels_ = (t.k + t.vdPanelK - 1) / t.vdPanelK;
    }

    // The worker's groups one after the other; each group's panels double buffered, the next panel (of this group or
    // the next one) requested before this one's vector work.
    __aicore__ inline void Process()
    {
        Group g, next;
        bool have = NextGroup(&g);
        if (!have) {
            return;
        }
        CopyIn(g, 0);
        while (have) {
            BeginGroup(g);
            bool more = false;
            for (uint32_t p = 0; p < panels_; ++p) {
                if (p + 1 < panels_) {
                    CopyIn(g, p + 1);
                } else {
                    more = NextGroup(&next);
                    if (more) {
                        CopyIn(next, 0);
                    }
                }
                Compute(g, p);
            }
            EndGroup(g);
            g = next;
            have = more;
        }
    }

private:
    struct Group {
        QmmCall call;     // bi, ai, bj, rows [0, M), columns [n0, n0 + cols)
        uint32_t stride;  // UB row stride of the group's panels: cols rounded up to 32
        int32_t za[3];    // a's zero points of the rows (the plan's M <= 3: kQmmVectorDecodeMaxM)
        int32_t zb;       // b's zero point (per tensor)
    };

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
        QmmCall& c = g->call;
        c.bi = bi;
        QmmBatchOperands(t, bi, &c.ai, &c.bj);
        c.m0 = 0;
        c.rows = t.m;
        c.n0 = static_cast<uint32_t>(first * t.vdGranule);
        const uint64_t end = (first + units) * t.vdGranule;
        c.cols = static_cast<uint32_t>((end < t.n ? end : t.n) - c.n0);
        g->stride = AlignUp32(c.cols);
        for (uint32_t i = 0; i < t.m; ++i) {
            const uint64_t at = t.aZpKind == kQmmParamVector ? (t.aZpBatchStride ? c.ai * t.m : 0) + i : 0;
            g->za[i] = t.aZpKind == kQmmParamNone ? 0 : QmmZeroPointValue(aZpGm_.GetValue(at), t.aCode, 0);
        }
        g->zb = t.bZpKind == kQmmParamTensor ? QmmZeroPointValue(bZpGm_.GetValue(0), t.bCode, 0) : 0;
        return true;
    }

    // Panel p of the group: its rows of b (kr x cols, rows `stride` bytes apart in UB) and the same K range of a's
    // M rows (rows vdPanelK bytes apart).
    __aicore__ inline void CopyIn(const Group& g, uint32_t p)
    {
        const TD& t = *t_;
        const QmmCall& c = g.call;
        const uint32_t k0 = p * t.vdPanelK;
        const uint32_t kr = QmmMin(t.vdPanelK, t.k - k0);
        const uint64_t bSrc = (c.bj * t.k + k0) * t.n + c.n0;
        const uint64_t aSrc = c.ai * t.m * t.k + k0;
        LocalTensor<uint8_t> bIn = bInQue_.template AllocTensor<uint8_t>();
        LocalTensor<AT> aIn = aInQue_.template AllocTensor<AT>();
#if AQO_SOC_HAS_DATACOPYPAD
        DataCopyExtParams bPrm(static_cast<uint16_t>(kr), c.cols, t.n - c.cols, 0, 0);
        DataCopyPadExtParams<uint8_t> bPad(true, 0, static_cast<uint8_t>(g.stride - c.cols), 0);
        DataCopyPad(bIn, bGm_[bSrc], bPrm, bPad);
        DataCopyExtParams aPrm(static_cast<uint16_t>(t.m), kr, t.k - kr, (t.vdPanelK - AlignUp32(kr)) / kBlockBytes,
                               0);
        DataCopyPadExtParams<AT> aPad(true, 0, static_cast<uint8_t>(AlignUp32(kr) - kr), 0);
        DataCopyPad(aIn, aGm_[aSrc], aPrm, aPad);
#else
        // The plan: N, K and so every panel's columns and rows are whole 32-byte blocks here.
        DataCopyParams bPrm(static_cast<uint16_t>(kr), static_cast<uint16_t>(c.cols / kBlockBytes),
                            static_cast<uint16_t>((t.n - c.cols) / kBlockBytes), 0);
        DataCopy(bIn, bGm_[bSrc], bPrm);
        DataCopyParams aPrm(static_cast<uint16_t>(t.m), static_cast<uint16_t>(kr / kBlockBytes),
                            static_cast<uint16_t>((t.k - kr) / kBlockBytes),
                            static_cast<uint16_t>((t.vdPanelK - kr) / kBlockBytes));
        DataCopy(aIn, aGm_[aSrc], aPrm);
#endif
        bInQue_.EnQue(bIn);
        aInQue_.EnQue(aIn);
    }

    // The group's sums start at 0; per-column zero points of b in half.
    __aicore__ inline void BeginGroup(const Group& g)
    {
        const TD& t = *t_;
        const QmmCall& c = g.call;
        if (t.bZpKind == kQmmParamVector) {
            const uint64_t base = (t.bZpBatchStride ? c.bj * t.n : 0) + c.n0;
            aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);  // the previous group's panels still read zbHalf_'s block
            QmmCopyBytesIn(zbIn_, bZpGm_, base, c.cols, bZpElems_);
            aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);
            PipeBarrier<PIPE_V>();
            if (t.bCode == kQmmCodeUInt8) {
                Cast(zbHalf_, zbIn_, RoundMode::CAST_NONE, g.stride);
            } else {
                Cast(zbHalf_, zbIn_.template ReinterpretCast<int8_t>(), RoundMode::CAST_NONE, g.stride);
            }
        }
        PipeBarrier<PIPE_V>();  // the previous group's epilogue read acc_
        Duplicate(acc_, static_cast<int32_t>(0), t.m * t.cStride);
    }

    __aicore__ inline void Compute(const Group& g, uint32_t p)
    {
        const TD& t = *t_;
        const uint32_t s = g.stride;
        const uint32_t kr = QmmMin(t.vdPanelK, t.k - p * t.vdPanelK);
        const uint32_t elems = kr * s;
        LocalTensor<uint8_t> bIn = bInQue_.template DeQue<uint8_t>();
        LocalTensor<AT> aIn = aInQue_.template DeQue<AT>();
        // b - b_zp: half, then float32 (exact integers in [-255, 255]).
        PipeBarrier<PIPE_V>();  // bHalf_ was the previous panel's int32 row sums
        Cast(bHalf_, bIn, RoundMode::CAST_NONE, elems);
        PipeBarrier<PIPE_V>();
        bInQue_.FreeTensor(bIn);
        if (t.bZpKind == kQmmParamVector) {
            // The zero points' row (src1 repeat stride 0) against every panel row, 128 columns per instruction.
            const uint8_t rowBlocks = static_cast<uint8_t>(s * sizeof(half) / kBlockBytes);
            for (uint32_t j = 0; j < s; j += kQmmVdHalfPerRepeat) {
                const uint32_t mask = QmmMin(kQmmVdHalfPerRepeat, s - j);
                Sub(bHalf_[j], bHalf_[j], zbHalf_[j], mask, static_cast<uint8_t>(kr),
                    BinaryRepeatParams(1, 1, 1, rowBlocks, rowBlocks, 0));
            }
            PipeBarrier<PIPE_V>();
        } else if (g.zb != 0) {
            Adds(bHalf_, bHalf_, static_cast<half>(static_cast<float>(-g.zb)), elems);
            PipeBarrier<PIPE_V>();
        }
        Cast(bF32_, bHalf_, RoundMode::CAST_NONE, elems);
        // a - a_zp: half, float32, each value over a 32-byte block.
        const uint32_t aElems = t.m * t.vdPanelK;
        const uint32_t kr8 = (kr + kQmmVdF32PerBlock - 1) / kQmmVdF32PerBlock * kQmmVdF32PerBlock;
        Cast(aHalf_, aIn, RoundMode::CAST_NONE, aElems);
        PipeBarrier<PIPE_V>();
        aInQue_.FreeTensor(aIn);
        for (uint32_t i = 0; i < t.m; ++i) {
            if (g.za[i] != 0) {
                Adds(aHalf_[i * t.vdPanelK], aHalf_[i * t.vdPanelK], static_cast<half>(static_cast<float>(-g.za[i])), kr8);
            }
        }
        PipeBarrier<PIPE_V>();
        Cast(aF32_, aHalf_, RoundMode::CAST_NONE, aElems);
        PipeBarrier<PIPE_V>();
        for (uint32_t i = 0; i < t.m; ++i) {
            Brcb(pattern_[i * t.vdPanelK * kQmmVdF32PerBlock], aF32_[i * t.vdPanelK],
                 static_cast<uint8_t>(kr8 / kQmmVdF32PerBlock), BrcbRepeatParams(1, kQmmVdF32PerBlock));
        }
        PipeBarrier<PIPE_V>();
        // Per row of a: the products (iteration k: panel row k times the block of a[m, k]), the halving sums of the
        // panel's rows, their int32 value added to the row's sums.
        const uint8_t rowBlocks = static_cast<uint8_t>(s * sizeof(float) / kBlockBytes);
        LocalTensor<int32_t> rowSum = bHalf_.template ReinterpretCast<int32_t>();
        for (uint32_t i = 0; i < t.m; ++i) {
            const LocalTensor<float> a = pattern_[i * t.vdPanelK * kQmmVdF32PerBlock];
            for (uint32_t j = 0; j < s; j += kQmmVdF32PerRepeat) {
                const uint32_t mask = QmmMin(kQmmVdF32PerRepeat, s - j);
                Mul(prod_[j], bF32_[j], a, mask, static_cast<uint8_t>(kr), BinaryRepeatParams(1, 1, 0, rowBlocks,
                                                                                             rowBlocks, 1));
            }
            PipeBarrier<PIPE_V>();
            for (uint32_t rows = kr; rows > 1;) {
                const uint32_t top = rows / 2;  // rows [rows - top, rows) onto rows [0, top)
                Add(prod_, prod_, prod_[(rows - top) * s], top * s);
                PipeBarrier<PIPE_V>();
                rows -= top;
            }
            Cast(rowSum, prod_, RoundMode::CAST_RINT, s);  // an exact integer: any mode gives it
            PipeBarrier<PIPE_V>();
            Add(acc_[i * t.cStride], acc_[i * t.cStride], rowSum, s);
            PipeBarrier<PIPE_V>();
        }
    }

    // The group's y: float32(acc) (exact where |acc| > 2^24 needs it), requantized, copied out.
    __aicore__ inline void EndGroup(const Group& g)
    {
        const TD& t = *t_;
        const QmmCall& c = g.call;
        const uint32_t elems = t.m * t.cStride;
        epi_.LoadRows(c);
        epi_.LoadColumns(c, c.n0, c.cols);
        PipeBarrier<PIPE_V>();
        LocalTensor<float> f = QmmInt32ToFloat(acc_, prod_, elems, t.exactConvert != 0);
        LocalTensor<YT> y = epi_.Compute(f, prod_, 0, t.m, c.cols);
        out_.Rows(y, c.bi * t.m, t.m, c.n0, c.cols);
        epi_.FreeY(y);
    }

    const TD* t_ = nullptr;
    TPipe* pipe_ = nullptr;
    GlobalTensor<AT> aGm_;
    GlobalTensor<uint8_t> bGm_, aZpGm_, bZpGm_;
    uint64_t aZpElems_ = 1, bZpElems_ = 1;
    TQue<QuePosition::VECIN, 2> bInQue_, aInQue_;
    TBuf<TPosition::VECCALC> bHalfBuf_, bF32Buf_, prodBuf_, aHalfBuf_, aF32Buf_, patternBuf_, accBuf_, zbBuf_;
    LocalTensor<half> bHalf_, aHalf_, zbHalf_;
    LocalTensor<float> bF32_, prod_, aF32_, pattern_;
    LocalTensor<int32_t> acc_;
    LocalTensor<uint8_t> zbIn_;
    uint64_t u_ = 0, uEnd_ = 0;
    uint32_t panels_ = 0;
    QmmRequantEpilogue<TD, YT, false> epi_;
    QmmCopyOut<YT> out_;
};
