// The zero-point stage of the quantized matmuls (AqoQLinearMatMul, AqoQuantMatMul): which zero-point terms a launch
// needs, the zero points of a block's columns and of a strip's rows, and the correction
//     acc = P - zb' (RA - K za') - za' CB        (int32, exact modulo 2^32)
// of the cube's product P = A'B', with RA = A'1 the row sums of the strip (summed while it was prepared) and CB = 1'B'
// the column sums (C row 0 of a block whose strip has a ones row). za' / zb' are the zero points as the cube's
// operands see them: lowered by the uint8 -> int8 mapping's 128 (tiling zpShiftA / B). The per-row factors
// -(RA - K za') and -za' (RowTerms) are formed once per row when a strip is prepared and stored broadcast over a
// 32-byte block each, so that the correction of a chunk is a few level-0 vector instructions (Correct), whatever its
// rows.
//
// Included by the kernels' entry files inside their namespace (no include guard, like aqo_kernel_common.h: the
// emulator compiles each kernel once per SoC into one translation unit).
//
// Tiling fields read (op_host/tiling_core/matmul_cube_tiling_fields.h): aZpKind, bZpKind, aZpBatchStride,
// bZpBatchStride, zpShiftA, zpShiftB, aCode, bCode, m, n, k, aMatrices, bMatrices, vectorCorrection, cStride,
// baseM, prepChunk.

// Raw 8-bit zero point -> its integer value as the cube's operand sees it.
__aicore__ inline int32_t QmmZeroPointValue(uint8_t raw, uint32_t code, int32_t shift)
{
    const int32_t v = code == kQmmCodeUInt8 ? static_cast<int32_t>(raw) : static_cast<int32_t>(static_cast<int8_t>(raw));
    return v - shift;
}

template <class TD>
class QmmZeroPoints {
public:
    __aicore__ inline void Init(GM_ADDR aZp, GM_ADDR bZp, const TD& t, TPipe* pipe)
    {
        t_ = &t;
        pipe_ = pipe;
        const uint64_t aElems = t.aZpKind == kQmmParamVector
                                    ? (t.aZpBatchStride ? static_cast<uint64_t>(t.aMatrices) * t.m : t.m)
                                    : 1;
        const uint64_t bElems = t.bZpKind == kQmmParamVector
                                    ? (t.bZpBatchStride ? static_cast<uint64_t>(t.bMatrices) * t.n : t.n)
                                    : 1;
        aElems_ = aElems;
        bElems_ = bElems;
        if (t.aZpKind != kQmmParamNone) {
            aZpGm_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(aZp), aElems);
        }
        if (t.bZpKind != kQmmParamNone) {
            bZpGm_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(bZp), bElems);
        }
        pipe->InitBuffer(zbBuf_, t.ubColI32);
        pipe->InitBuffer(zaBuf_, t.ubRowI32);
        zb_ = zbBuf_.Get<int32_t>();
        za_ = zaBuf_.Get<int32_t>();
    }

    // Reads the zero points once: the column sums are needed when some za' != 0, the row sums when some zb' != 0
    // (zero-point terms whose zero points are all 0 are not computed at all). `in`, `h`, `work`: preparation buffers.
    // b's zero points [bFirst, bEnd) only: all of them where every worker must decide the same (shared preparation,
    // SyncAll), a worker's own columns where it prepares for itself alone.
    // The column sums' need (from a's zero points), then the row sums' (from b's); a caller may decide the second later.
    __aicore__ inline void DecideColumnSums(const LocalTensor<uint8_t>& in, const LocalTensor<half>& h,
                                            const LocalTensor<half>& work)
    {
        needCB_ = t_->k != 0 &&
                  AnyNonZero(aZpGm_, t_->aZpKind, aElems_, 0, aElems_, t_->aCode, t_->zpShiftA, in, h, work);
    }
    __aicore__ inline void DecideRowSums(const LocalTensor<uint8_t>& in, const LocalTensor<half>& h,
                                         const LocalTensor<half>& work, uint64_t bFirst, uint64_t bEnd)
    {
        needRA_ = t_->k != 0 &&
                  AnyNonZero(bZpGm_, t_->bZpKind, bElems_, bFirst, bEnd, t_->bCode, t_->zpShiftB, in, h, work);
    }
    __aicore__ inline uint64_t BZeroPointCount() const { return bElems_; }  // b's zero points (1: per tensor)
    __aicore__ inline bool NeedColumnSums() const { return needCB_; }
    __aicore__ inline bool NeedRowSums() const { return needRA_; }
    __aicore__ inline bool NeedCorrection() const { return needCB_ || needRA_; }

    // zb' of columns [n0, n0 + cols) of b matrix bj into zb_ (int32; columns past cols undefined).
    __aicore__ inline void LoadColumns(uint64_t bj, uint32_t n0, uint32_t cols, const LocalTensor<uint8_t>& in,
                                       const LocalTensor<half>& h)
    {
        if (!needRA_) {
            return;
        }
        if (t_->bZpKind != kQmmParamVector) {
            PipeBarrier<PIPE_V>();  // zb_ may still be read by the previous block's correction
            Duplicate(zb_, ScalarZp(bZpGm_, t_->bZpKind, t_->bCode, t_->zpShiftB), t_->cStride);
            return;
        }
        const uint64_t base = (t_->bZpBatchStride ? bj * t_->n : 0) + n0;
        ToInt32(zb_, bZpGm_, base, cols, bElems_, t_->bCode, t_->zpShiftB, in, h);
        const uint32_t padded = AlignUp32(cols);
        if (padded < t_->cStride) {
            // Correct multiplies whole rows of cStride columns: the columns past the block's get zero points of 0,
            // not whatever the buffer held (their products are discarded, but must stay within int32).
            PipeBarrier<PIPE_V>();
            Duplicate(zb_[padded], 0, static_cast<int32_t>(t_->cStride - padded));
        }
    }

    // za' of rows [m0, m0 + rows) of a matrix ai into za_ (int32), read by the scalar unit per row (RowTerms).
    __aicore__ inline void LoadRows(uint64_t ai, uint32_t m0, uint32_t rows, const LocalTensor<uint8_t>& in,
                                    const LocalTensor<half>& h)
    {
        if (LoadRowsAt(ai, m0, rows, 0, in, h)) {
            aqo_kernel::WaitPipe<HardEvent::V_S>(pipe_);  // RowTerms reads za_ with the scalar unit
        }
    }
    // The same into za_[at, ...) (`at` a multiple of 32; its reader orders itself after the vector unit's casts),
    // true where rows were read (per-row zero points and a correction).
    __aicore__ inline bool LoadRowsAt(uint64_t ai, uint32_t m0, uint32_t rows, uint32_t at,
                                      const LocalTensor<uint8_t>& in, const LocalTensor<half>& h)
    {
        rowsScalar_ = t_->aZpKind != kQmmParamVector;
        za0_ = ScalarZp(aZpGm_, t_->aZpKind, t_->aCode, t_->zpShiftA);
        if (!NeedCorrection() || rowsScalar_) {
            return false;
        }
        const uint64_t base = (t_->aZpBatchStride ? ai * t_->m : 0) + m0;
        ToInt32(za_[at], aZpGm_, base, rows, aElems_, t_->aCode, t_->zpShiftA, in, h);
        return true;
    }
    // za' as the last LoadRows / LoadRowsAt left it (int32, one per row).
    __aicore__ inline LocalTensor<int32_t> RowZeroPoints() const { return za_; }

    // The correction's factors of row r of the last LoadRows, whose row sum A'1 is raSum: -(RA - K za') and -za', in
    // 32-bit wrap-around (the scalar unit's arithmetic wraps by definition).
    __aicore__ inline void RowTerms(int32_t raSum, uint32_t r, int32_t* negR, int32_t* negS) const
    {
        RowTermsOver(t_->k, raSum, r, negR, negS);
    }
    // The same where the row sum is over k of K's values (a pass of the cube GEMM path: its terms add up to K's).
    __aicore__ inline void RowTermsOver(uint32_t k, int32_t raSum, uint32_t r, int32_t* negR, int32_t* negS) const
    {
        const int32_t za = rowsScalar_ ? za0_ : za_.GetValue(r);
        const uint32_t term = static_cast<uint32_t>(raSum) - k * static_cast<uint32_t>(za);
        *negR = needRA_ ? static_cast<int32_t>(0u - term) : 0;
        *negS = needCB_ ? static_cast<int32_t>(0u - static_cast<uint32_t>(za)) : 0;
    }

    // acc[i][j] += -zb'[j] (RA[i] - K za'[i]) - za'[i] CB[j] for the chunk's `rows` rows (row stride cStride), rows
    // rowBase.. of the strip; rt: the strip's row terms (kQmmRowTermInts int32 per row: -(RA - K za') broadcast over
    // a 32-byte block, then -za'), cb: the block's column sums (int32). On int32 vectors: per 64-column group one
    // instruction over all the chunk's rows, zb' / cb re-read for every row (repeat stride 0) and the row's term
    // block re-read for every column (block stride 0).
    __aicore__ inline void Correct(const LocalTensor<int32_t>& acc, const LocalTensor<int32_t>& tmp,
                                   const LocalTensor<int32_t>& rt, const LocalTensor<int32_t>& cb, uint32_t rowBase,
                                   uint32_t rows, uint32_t cols)
    {
        if (!NeedCorrection()) {
            return;
        }
        if (t_->vectorCorrection == 0) {
            CorrectWrapping(acc, rt, cb, rowBase, rows, cols);
            return;
        }
        const uint32_t stride = t_->cStride;
        const uint32_t perRepeat = kQmmVecRepeatBytes / 4;
        const uint8_t rowBlocks = static_cast<uint8_t>(stride * 4 / kBlockBytes);
        const uint8_t termBlocks = static_cast<uint8_t>(kQmmRowTermInts * 4 / kBlockBytes);
        for (uint32_t term = 0; term < 2; ++term) {
            if (term == 0 ? !needRA_ : !needCB_) {
                continue;
            }
            const LocalTensor<int32_t>& colVec = term == 0 ? zb_ : cb;
            PipeBarrier<PIPE_V>();  // tmp may still be read by the previous term's Add
            for (uint32_t r0 = 0; r0 < rows; r0 += kQmmMaxRepeat) {
                const uint8_t reps = static_cast<uint8_t>(QmmMin(kQmmMaxRepeat, rows - r0));
                const LocalTensor<int32_t> rowTerm =
                    rt[(rowBase + r0) * kQmmRowTermInts + term * (kQmmRowTermInts / 2)];
                for (uint32_t c0 = 0; c0 < stride; c0 += perRepeat) {
                    const uint64_t mask = QmmMin(perRepeat, stride - c0);
                    // tmp[i][c] = colVec[c] * rowTerm[i]
                    Mul(tmp[r0 * stride + c0], colVec[c0], rowTerm, mask, reps,
                        BinaryRepeatParams(1, 1, 0, rowBlocks, 0, termBlocks));
                }
            }
            PipeBarrier<PIPE_V>();
            Add(acc, acc, tmp, rows * stride);
        }
        (void)cols;
    }

private:
    // The same correction where a partial sum may leave int32 (K beyond the plan's vectorCorrection bound): the
    // scalar unit's 32-bit arithmetic wraps by definition (what the vector unit does on int32 overflow is not
    // documented). O(M N) scalar steps against the cube's O(M N K).
    __aicore__ inline void CorrectWrapping(const LocalTensor<int32_t>& acc, const LocalTensor<int32_t>& rt,
                                           const LocalTensor<int32_t>& cb, uint32_t rowBase, uint32_t rows,
                                           uint32_t cols)
    {
        PipeBarrier<PIPE_ALL>();  // acc, rt (DMA), zb, cb (vector) complete before the scalar reads
        for (uint32_t i = 0; i < rows; ++i) {
            const uint32_t negR = static_cast<uint32_t>(rt.GetValue((rowBase + i) * kQmmRowTermInts));
            const uint32_t negS =
                static_cast<uint32_t>(rt.GetValue((rowBase + i) * kQmmRowTermInts + kQmmRowTermInts / 2));
            for (uint32_t j = 0; j < cols; ++j) {
                uint32_t v = static_cast<uint32_t>(acc.GetValue(i * t_->cStride + j));
                if (needRA_) {
                    v += static_cast<uint32_t>(zb_.GetValue(j)) * negR;
                }
                if (needCB_) {
                    v += static_cast<uint32_t>(cb.GetValue(j)) * negS;
                }
                acc.SetValue(i * t_->cStride + j, static_cast<int32_t>(v));
            }
        }
        PipeBarrier<PIPE_ALL>();
    }

    __aicore__ inline int32_t ScalarZp(const GlobalTensor<uint8_t>& gm, uint32_t kind, uint32_t code,
                                       int32_t shift) const
    {
        if (kind == kQmmParamNone) {
            return -shift;  // no zero point: 0, shifted by the mapping
        }
        return QmmZeroPointValue(gm.GetValue(0), code, shift);
    }

    // Whether any zero point of [first, end) of a vector of `elems` (after the mapping's shift) is not 0; a per-tensor
    // zero point: whether it is.
    __aicore__ inline bool AnyNonZero(const GlobalTensor<uint8_t>& gm, uint32_t kind, uint64_t elems, uint64_t first,
                                      uint64_t end, uint32_t code, int32_t shift, const LocalTensor<uint8_t>& in,
                                      const LocalTensor<half>& h, const LocalTensor<half>& work)
    {
        if (kind != kQmmParamVector) {
            return ScalarZp(gm, kind, code, shift) != 0;
        }
        const uint32_t chunk = t_->prepChunk;
        for (uint64_t off = first; off < end; off += chunk) {
            const uint32_t len = static_cast<uint32_t>(end - off < chunk ? end - off : chunk);
            aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);  // the previous chunk's Cast read `in`
            QmmCopyBytesIn(in, gm, off, len, elems);
            aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);
            ToHalf(h, in, len, code);
            PipeBarrier<PIPE_V>();
            Adds(h, h, static_cast<half>(static_cast<float>(-shift)), len);
            PipeBarrier<PIPE_V>();
            Abs(h, h, len);
            PipeBarrier<PIPE_V>();
            ReduceMax(work, h, work[16], static_cast<int32_t>(len));
            aqo_kernel::WaitPipe<HardEvent::V_S>(pipe_);
            if (static_cast<float>(work.GetValue(0)) != 0.0f) {
                return true;
            }
        }
        return false;
    }

    // 8-bit zero points (code: int8 / uint8) to half, exactly.
    __aicore__ inline void ToHalf(const LocalTensor<half>& h, const LocalTensor<uint8_t>& in, uint32_t len,
                                  uint32_t code) const
    {
        if (code == kQmmCodeUInt8) {
            Cast(h, in, RoundMode::CAST_NONE, len);
        } else {
            Cast(h, in.template ReinterpretCast<int8_t>(), RoundMode::CAST_NONE, len);
        }
    }

    // dst[0, len) = zero points gm[off, off + len) as int32, shifted.
    __aicore__ inline void ToInt32(const LocalTensor<int32_t>& dst, const GlobalTensor<uint8_t>& gm, uint64_t off,
                                   uint32_t len, uint64_t elems, uint32_t code, int32_t shift,
                                   const LocalTensor<uint8_t>& in, const LocalTensor<half>& h)
    {
        aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);  // `in` may still be read by an earlier Cast
        QmmCopyBytesIn(in, gm, off, len, elems);
        aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);
        const uint32_t padded = AlignUp32(len);
        PipeBarrier<PIPE_V>();  // h and dst may still be read
        ToHalf(h, in, padded, code);
        PipeBarrier<PIPE_V>();
        Cast(dst, h, RoundMode::CAST_RINT, padded);  // exact: small integers
        PipeBarrier<PIPE_V>();
        Adds(dst, dst, -shift, padded);
    }

    const TD* t_ = nullptr;
    TPipe* pipe_ = nullptr;
    GlobalTensor<uint8_t> aZpGm_, bZpGm_;
    uint64_t aElems_ = 1, bElems_ = 1;
    TBuf<TPosition::VECCALC> zbBuf_, zaBuf_;
    LocalTensor<int32_t> zb_, za_;
    bool needCB_ = false;
    bool needRA_ = false;
    bool rowsScalar_ = true;
    int32_t za0_ = 0;
};
