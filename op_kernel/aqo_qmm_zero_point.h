// The zero-point stage of the quantized matmuls (AqoQLinearMatMul, AqoQuantMatMul): which zero-point terms a launch
// needs, the zero points of a block's columns and of a strip's rows, and the correction
//     acc = P - zb' (RA - K za') - za' CB        (int32, exact modulo 2^32)
// of the cube's product P = A'B', with RA = A'1 the row sums of the strip (summed while it was prepared) and CB = 1'B'
// the column sums (C row 0 of a block whose strip has a ones row). za' / zb' are the zero points as the cube's
// operands see them: lowered by the uint8 -> int8 mapping's 128 (tiling zpShiftA / B).
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

    // Reads every zero point once: the column sums are needed when some za' != 0, the row sums when some zb' != 0
    // (zero-point terms whose zero points are all 0 are not computed at all). `in`, `h`, `work`: preparation buffers.
    // Every worker decides the same from the same bytes.
    __aicore__ inline void DecideNeeds(const LocalTensor<uint8_t>& in, const LocalTensor<half>& h,
                                       const LocalTensor<half>& work)
    {
        needCB_ = t_->k != 0 && AnyNonZero(aZpGm_, t_->aZpKind, aElems_, t_->aCode, t_->zpShiftA, in, h, work);
        needRA_ = t_->k != 0 && AnyNonZero(bZpGm_, t_->bZpKind, bElems_, t_->bCode, t_->zpShiftB, in, h, work);
    }
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
    }

    // za' of rows [m0, m0 + rows) of a matrix ai into za_ (int32), read by the scalar unit per row (Correct).
    __aicore__ inline void LoadRows(uint64_t ai, uint32_t m0, uint32_t rows, const LocalTensor<uint8_t>& in,
                                    const LocalTensor<half>& h)
    {
        rowsScalar_ = t_->aZpKind != kQmmParamVector;
        za0_ = ScalarZp(aZpGm_, t_->aZpKind, t_->aCode, t_->zpShiftA);
        if (!NeedCorrection() || rowsScalar_) {
            return;
        }
        const uint64_t base = (t_->aZpBatchStride ? ai * t_->m : 0) + m0;
        ToInt32(za_, aZpGm_, base, rows, aElems_, t_->aCode, t_->zpShiftA, in, h);
        aqo_kernel::WaitPipe<HardEvent::V_S>(pipe_);  // Correct reads za_ with the scalar unit
    }

    // acc[i][j] += -zb'[j] (RA[i] - K za'[i]) - za'[i] CB[j] for the chunk's `rows` rows (row stride cStride),
    // which are rows rowBase.. of the strip; ra: the strip's row sums, cb: the block's column sums (int32).
    __aicore__ inline void Correct(const LocalTensor<int32_t>& acc, const LocalTensor<int32_t>& tmp,
                                   const LocalTensor<int32_t>& ra, const LocalTensor<int32_t>& cb, uint32_t rowBase,
                                   uint32_t rows, uint32_t cols)
    {
        if (!NeedCorrection()) {
            return;
        }
        const uint32_t stride = t_->cStride;
        if (t_->vectorCorrection == 0) {
            CorrectWrapping(acc, ra, cb, rowBase, rows, cols);
            return;
        }
        for (uint32_t i = 0; i < rows; ++i) {
            int32_t negR = 0, negS = 0;
            RowTerms(ra, rowBase + i, &negR, &negS);
            const LocalTensor<int32_t> row = acc[i * stride];
            if (needRA_) {
                PipeBarrier<PIPE_V>();  // tmp may still be read by the previous row's Add
                Muls(tmp, zb_, negR, stride);
                PipeBarrier<PIPE_V>();
                Add(row, row, tmp, stride);
            }
            if (needCB_) {
                PipeBarrier<PIPE_V>();
                Muls(tmp, cb, negS, stride);
                PipeBarrier<PIPE_V>();
                Add(row, row, tmp, stride);
            }
        }
        (void)cols;
    }

private:
    // -(RA - K za') and -za' of strip row r, in 32-bit wrap-around (the scalar unit's arithmetic wraps by
    // definition; ra_ was written by the vector unit or a DMA and made visible to the scalar unit before).
    __aicore__ inline void RowTerms(const LocalTensor<int32_t>& ra, uint32_t r, int32_t* negR, int32_t* negS) const
    {
        const int32_t za = rowsScalar_ ? za0_ : za_.GetValue(r);
        const uint32_t raSum = needRA_ ? static_cast<uint32_t>(ra.GetValue(r)) : 0u;
        const uint32_t term = raSum - t_->k * static_cast<uint32_t>(za);
        *negR = static_cast<int32_t>(0u - term);
        *negS = static_cast<int32_t>(0u - static_cast<uint32_t>(za));
    }

    // The same correction where a partial sum may leave int32 (K beyond the plan's vectorCorrection bound): the
    // scalar unit's 32-bit arithmetic wraps by definition (what the vector unit does on int32 overflow is not
    // documented). O(M N) scalar steps against the cube's O(M N K).
    __aicore__ inline void CorrectWrapping(const LocalTensor<int32_t>& acc, const LocalTensor<int32_t>& ra,
                                           const LocalTensor<int32_t>& cb, uint32_t rowBase, uint32_t rows,
                                           uint32_t cols)
    {
        PipeBarrier<PIPE_ALL>();  // acc (DMA), zb, cb (vector) complete before the scalar reads
        for (uint32_t i = 0; i < rows; ++i) {
            int32_t negR = 0, negS = 0;
            RowTerms(ra, rowBase + i, &negR, &negS);
            for (uint32_t j = 0; j < cols; ++j) {
                uint32_t v = static_cast<uint32_t>(acc.GetValue(i * t_->cStride + j));
                if (needRA_) {
                    v += static_cast<uint32_t>(zb_.GetValue(j)) * static_cast<uint32_t>(negR);
                }
                if (needCB_) {
                    v += static_cast<uint32_t>(cb.GetValue(j)) * static_cast<uint32_t>(negS);
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

    // Whether any zero point (after the mapping's shift) is not 0.
    __aicore__ inline bool AnyNonZero(const GlobalTensor<uint8_t>& gm, uint32_t kind, uint64_t elems, uint32_t code,
                                      int32_t shift, const LocalTensor<uint8_t>& in, const LocalTensor<half>& h,
                                      const LocalTensor<half>& work)
    {
        if (kind != kQmmParamVector) {
            return ScalarZp(gm, kind, code, shift) != 0;
        }
        const uint32_t chunk = t_->prepChunk;
        for (uint64_t off = 0; off < elems; off += chunk) {
            const uint32_t len = static_cast<uint32_t>(elems - off < chunk ? elems - off : chunk);
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
