// The requantization epilogue of AqoQLinearMatMul (ONNX QLinearMatMul, the golden's arithmetic):
//     y = saturate(rint(float32(acc) * ((a_scale * b_scale) / y_scale)) + y_zero_point)
// in float32, the multiplier formed per element in that order (a_scale * b_scale rounded, then divided by y_scale),
// round half to even first, then the zero point (onnxruntime's order). ascend910_95 also: float8 y (saturate to
// +-max, then round to nearest even) and float8 x float8 accumulators (IEEE NaN / Inf carried through).
// A chunk (rows x cStride of one block) is processed at once; per-row a scales with per-column b scales take a Brcb
// and one instruction per 64 columns (RowColumnProducts), per-row a scales with a per-tensor b one per row.
// No include guard (see aqo_kernel_common.h).
//
// Tiling fields read: aParamKind, bParamKind, aParamBatchStride, bParamBatchStride, yCode, yMax, yQMin, yQMax, m, n,
// aMatrices, bMatrices, cStride, rowsPerChunk, ubColF32, ubRowF32, ubPattern, ubHalf, ubYOut.

// float8 operands with an integer y: +-Inf accumulators become +-this before the saturation (beyond every bound an
// 8-bit y and its zero point give, so the result is the same saturated value).
constexpr float kQmmRequantClamp = 1024.0f;

template <class TD, class YT, bool FLOAT_CUBE>
class QmmRequantEpilogue {
public:
    __aicore__ inline void Init(GM_ADDR aScale, GM_ADDR bScale, GM_ADDR yScale, GM_ADDR yZp, const TD& t,
                                TPipe* pipe)
    {
        t_ = &t;
        pipe_ = pipe;
        aElems_ = t.aParamKind ? (t.aParamBatchStride ? static_cast<uint64_t>(t.aMatrices) * t.m : t.m) : 1;
        bElems_ = t.bParamKind ? (t.bParamBatchStride ? static_cast<uint64_t>(t.bMatrices) * t.n : t.n) : 1;
        aScaleGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(aScale), aElems_);
        bScaleGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bScale), bElems_);
        yScaleGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(yScale), 1);
        yZpGm_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(yZp), 1);
        pipe->InitBuffer(colBuf_, t.ubColF32);
        pipe->InitBuffer(rowBuf_, t.ubRowF32);
        pipe->InitBuffer(patternBuf_, t.ubPattern);
        pipe->InitBuffer(ysBuf_, t.ubPattern);
        pipe->InitBuffer(halfBuf_, t.ubHalf);
        pipe->InitBuffer(yQue_, 2, t.ubYOut);
        col_ = colBuf_.Get<float>();
        row_ = rowBuf_.Get<float>();
        pattern_ = patternBuf_.Get<float>();
        ysPattern_ = ysBuf_.Get<float>();
        half_ = halfBuf_.Get<half>();
        elems_ = t.rowsPerChunk * t.cStride;
    }

    // Per call: the a scales of the strip's rows (per-row a). The first call also reads the per-tensor parameters
    // (after its cube request went out: the scalar GM reads overlap the cube). Where the plan's row buffer holds all
    // M rows and every matrix shares them, the first call reads all of them and the later ones only move the offset
    // of their first row: no GM round trip (the scalar unit waits for this DMA) per call.
    __aicore__ inline void LoadRows(const QmmCall& c)
    {
        Prime();
        if (t_->aParamKind == 0) {
            return;
        }
        const bool allRows = t_->aParamBatchStride == 0 &&
                             static_cast<uint64_t>(t_->m) * sizeof(float) <= static_cast<uint64_t>(t_->ubRowF32);
        if (allRows && rowsHeld_) {
            rowOff_ = c.m0;
            return;
        }
        const uint64_t base = allRows ? 0 : (t_->aParamBatchStride ? c.ai * t_->m : 0) + c.m0;
        // With per-column b scales the vector unit reads row_ (RowColumnProducts' Brcb), and the scalar unit only
        // where that cannot run (it waits for this DMA there): no wait of the scalar unit for the GM round trip.
        const bool vectorReads = t_->bParamKind != 0;
        aqo_kernel::WaitPipe<HardEvent::S_MTE2>(pipe_);  // the previous call's rows were read by the scalar unit
        if (vectorReads) {
            aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);
        }
        QmmCopyBytesIn(row_, aScaleGm_, base, allRows ? t_->m : c.rows, aElems_);
        if (vectorReads) {
            aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);
        } else {
            aqo_kernel::WaitPipe<HardEvent::MTE2_S>(pipe_);
        }
        rowsHeld_ = allRows;
        rowOff_ = allRows ? c.m0 : 0;
    }

    // Per block: the per-column multiplier (per-tensor a: (a_scale * b_scale[n]) / y_scale, replicated over the
    // chunk's rows), or b's scales (per-row a: the multiplier is formed per row).
    __aicore__ inline void LoadColumns(const QmmCall& c, uint32_t n0, uint32_t cols)
    {
        if (t_->bParamKind == 0) {
            return;
        }
        const uint64_t base = (t_->bParamBatchStride ? c.bj * t_->n : 0) + n0;
        aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);  // col_ may still be read by the previous block's rows
        QmmCopyBytesIn(col_, bScaleGm_, base, cols, bElems_);
        aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);
        ColumnMultiplier();
    }

    // LoadColumns in two halves, for a caller that has other work between them: b's scales' DMA now, `arrived` set
    // on MTE2 behind it (the caller's own event id: MTE2 DMAs issued later, such as the next panels, are not waited
    // for); FinishColumns waits for it and forms the multiplier. Each IssueColumns is followed by one FinishColumns
    // with the same id. No scalar work: it may go out before the caller's first DMAs.
    __aicore__ inline void IssueColumns(const QmmCall& c, uint32_t n0, uint32_t cols, event_t arrived)
    {
        if (t_->bParamKind == 0) {
            return;
        }
        const uint64_t base = (t_->bParamBatchStride ? c.bj * t_->n : 0) + n0;
        aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);  // col_ may still be read by the previous block's rows
        QmmCopyBytesIn(col_, bScaleGm_, base, cols, bElems_);
        SetFlag<HardEvent::MTE2_V>(arrived);
    }

    __aicore__ inline void FinishColumns(event_t arrived)
    {
        Prime();
        if (t_->bParamKind == 0) {
            return;
        }
        WaitFlag<HardEvent::MTE2_V>(arrived);
        ColumnMultiplier();
    }

    // y of a chunk: `f` holds float32(acc) of `rows` rows (strip rows r0..), row stride cStride. Returns y (DeQue'd
    // from the output queue, for the copy-out; FreeY afterwards).
    __aicore__ inline LocalTensor<YT> Compute(const LocalTensor<float>& f, const LocalTensor<float>& scratch,
                                              uint32_t r0, uint32_t rows, uint32_t cols)
    {
        const uint32_t stride = t_->cStride;
        const uint32_t elems = rows * stride;
        ApplyMultiplier(f, r0, rows, elems);
        PipeBarrier<PIPE_V>();
        bool anyNaN = false;
        if constexpr (FLOAT_CUBE) {
            anyNaN = ReplaceNonFinite(f, scratch.template ReinterpretCast<int32_t>(), rows, cols);
        }
        LocalTensor<YT> y = yQue_.template AllocTensor<YT>();
        if constexpr (Float8Out<YT>::kIsFloat) {
            // float8 y (ascend910_95): saturate to +-max, then round to nearest even (ONNX QuantizeLinear with
            // saturate=1; the golden's clip-then-cast). The zero point of a float8 y is 0.
            Maxs(f, f, -t_->yMax, elems);
            PipeBarrier<PIPE_V>();
            Mins(f, f, t_->yMax, elems);
            PipeBarrier<PIPE_V>();
            Float8Out<YT>::Cast(y, f, elems);
            if (anyNaN) {
                RestoreNaN(y, scratch.template ReinterpretCast<int32_t>(), rows, cols);
            }
        } else {
            // saturate(rint(v) + zp) = rint(clamp(v, qmin - zp, qmax - zp)) + zp: the bounds are integers, which
            // rint keeps, and rint is monotonic; the clamp also keeps rint(v) far inside int32.
            LocalTensor<int32_t> fi = f.template ReinterpretCast<int32_t>();
            Maxs(f, f, t_->yQMin - yZp_, elems);       // exact: integers of at most 9 bits
            PipeBarrier<PIPE_V>();
            Mins(f, f, t_->yQMax - yZp_, elems);
            PipeBarrier<PIPE_V>();
            Cast(fi, f, RoundMode::CAST_RINT, elems);  // round half to even
            PipeBarrier<PIPE_V>();
            Cast(f, fi, RoundMode::CAST_NONE, elems);  // exact: |v| <= 510
            PipeBarrier<PIPE_V>();
            if (yZp_ != 0.0f) {
                Adds(f, f, yZp_, elems);               // round first, then add the zero point (onnxruntime)
                PipeBarrier<PIPE_V>();
            }
            Cast(half_, f, RoundMode::CAST_NONE, elems);  // exact small integers
            PipeBarrier<PIPE_V>();
            Cast(y, half_, RoundMode::CAST_NONE, elems);
        }
        yQue_.EnQue(y);
        return yQue_.template DeQue<YT>();
    }

    __aicore__ inline void FreeY(LocalTensor<YT>& y) { yQue_.FreeTensor(y); }

    // The per-tensor parameters (scalar GM reads) and the y_scale block, once: LoadRows and FinishColumns call it;
    // a caller may call it earlier, where the scalar unit's reads overlap other work.
    __aicore__ inline void Prime()
    {
        if (primed_) {
            return;
        }
        primed_ = true;
        yScale_ = yScaleGm_.GetValue(0);
        const uint8_t z = yZpGm_.GetValue(0);
        yZp_ = t_->yCode == kQmmCodeUInt8 ? static_cast<float>(z) : static_cast<float>(static_cast<int8_t>(z));
        aScale0_ = aScaleGm_.GetValue(0);
        bScale0_ = bScaleGm_.GetValue(0);
        if (t_->bParamKind != 0) {  // only a per-column multiplier reads the patterns (the plans size them so)
            Duplicate(ysPattern_, yScale_, elems_);  // the divisor of a per-element multiplier
        }
    }

private:
    // b's scales are in col_: per-tensor a, the per-column multiplier replicated over the chunk's rows.
    __aicore__ inline void ColumnMultiplier()
    {
        if (t_->aParamKind != 0) {
            return;
        }
        const uint32_t stride = t_->cStride;
        PipeBarrier<PIPE_V>();
        Muls(pattern_, col_, aScale0_, stride);  // a_scale * b_scale[n] (commutes exactly)
        PipeBarrier<PIPE_V>();
        Div(pattern_, pattern_, ysPattern_, stride);
        QmmReplicateRow(pattern_, stride, t_->rowsPerChunk);  // over the chunk's rows
    }

    // f *= (a_scale * b_scale) / y_scale, per element in the golden's order (the scalar unit's quotients by
    // DivideF32: correctly rounded whatever its own float division does).
    __aicore__ inline void ApplyMultiplier(const LocalTensor<float>& f, uint32_t r0, uint32_t rows, uint32_t elems)
    {
        const uint32_t stride = t_->cStride;
        if (t_->aParamKind == 0 && t_->bParamKind == 0) {
            PipeBarrier<PIPE_V>();
            Muls(f, f, DivideF32(aScale0_ * bScale0_, yScale_), elems);
            return;
        }
        if (t_->aParamKind == 0) {
            PipeBarrier<PIPE_V>();
            Mul(f, f, pattern_, elems);  // the per-column multiplier, replicated over the rows
            return;
        }
        if (t_->bParamKind == 0) {
            PipeBarrier<PIPE_V>();  // the rows are independent: one barrier for all
            for (uint32_t i = 0; i < rows; ++i) {
                const float m = DivideF32(row_.GetValue(rowOff_ + r0 + i) * bScale0_, yScale_);
                Muls(f[i * stride], f[i * stride], m, stride);
            }
            return;
        }
        // Per row and per column: a_scale[m] * b_scale[n], then / y_scale and the product block-wide.
        PipeBarrier<PIPE_V>();  // the pattern's rows may still be read by the previous chunk (rows independent)
        if (!RowColumnProducts(rowOff_ + r0, rows)) {
            aqo_kernel::WaitPipe<HardEvent::MTE2_S>(pipe_);  // LoadRows' DMA (its scalar wait skipped: vectorReads)
            for (uint32_t i = 0; i < rows; ++i) {
                Muls(pattern_[i * stride], col_, row_.GetValue(rowOff_ + r0 + i), stride);
            }
        }
        PipeBarrier<PIPE_V>();
        Div(pattern_, pattern_, ysPattern_, elems);
        PipeBarrier<PIPE_V>();
        Mul(f, f, pattern_, elems);
    }

    // pattern_[i][j] = row_[first + i] * col_[j] for a chunk's rows, without an instruction or a scalar read per row:
    // the rows' a scales each broadcast over a 32-byte block (Brcb, from the block holding row `first`, into the half
    // buffer, which Compute writes only later), then per 64 columns one Mul whose iterations are the rows (b's scales
    // re-read: repeat stride 0; a row's block re-read for every column: block stride 0). The same float32 products as
    // a Muls per row. ascend310p's Brcb is software using the API's scratch at TMP_UB_OFFSET: the plans keep their
    // buffers below it where a has per-row parameters. False (nothing done) where the strides, the repeat count or the
    // half buffer do not allow it.
    __aicore__ inline bool RowColumnProducts(uint32_t first, uint32_t rows)
    {
        const uint32_t stride = t_->cStride;
        const uint32_t perRepeat = kQmmVecRepeatBytes / static_cast<uint32_t>(sizeof(float));
        const uint32_t perBlock = kBlockBytes / static_cast<uint32_t>(sizeof(float));
        const uint32_t lead = first % perBlock;
        const uint32_t brcbRepeats = (lead + rows + perBlock - 1) / perBlock;
        const uint32_t rowBlocks = stride * static_cast<uint32_t>(sizeof(float)) / kBlockBytes;
        if (rows > kQmmMaxRepeat || brcbRepeats > kQmmMaxRepeat || rowBlocks > 255 ||
            brcbRepeats * kQmmVecRepeatBytes > t_->ubHalf ||
            (first - lead + brcbRepeats * perBlock) * static_cast<uint32_t>(sizeof(float)) > t_->ubRowF32) {
            return false;
        }
        const LocalTensor<float> blocks = half_.template ReinterpretCast<float>();
        Brcb(blocks, row_[first - lead], static_cast<uint8_t>(brcbRepeats), BrcbRepeatParams(1, perBlock));
        PipeBarrier<PIPE_V>();
        const LocalTensor<float> rowBlock = blocks[lead * perBlock];
        for (uint32_t c0 = 0; c0 < stride; c0 += perRepeat) {
            Mul(pattern_[c0], col_[c0], rowBlock, static_cast<uint64_t>(QmmMin(perRepeat, stride - c0)),
                static_cast<uint8_t>(rows), BinaryRepeatParams(1, 1, 0, static_cast<uint8_t>(rowBlocks), 0, 1));
        }
        return true;
    }

    // float8 operands: the float32 accumulators may hold NaN / +-Inf (IEEE, e.g. Inf * 0). What the vector unit's
    // max / min do with NaN is not documented, so the scalar unit replaces them before the clamps: NaN -> 0 (an
    // integer y then gets y_zero_point, as the golden; a float8 y gets NaN back in RestoreNaN, flagged in `flags`),
    // +-Inf -> +-bound (saturates either way). O(N) scalar steps per row against the cube's O(N K).
    __aicore__ inline bool ReplaceNonFinite(const LocalTensor<float>& f, const LocalTensor<int32_t>& flags,
                                            uint32_t rows, uint32_t cols)
    {
        const float bound = Float8Out<YT>::kIsFloat ? t_->yMax : kQmmRequantClamp;
        const uint32_t stride = t_->cStride;
        bool anyNaN = false;
        PipeBarrier<PIPE_ALL>();
        for (uint32_t i = 0; i < rows; ++i) {
            for (uint32_t j = 0; j < cols; ++j) {
                const float v = f.GetValue(i * stride + j);
                const bool isNaN = v != v;
                flags.SetValue(i * stride + j, isNaN ? 1 : 0);
                if (isNaN) {
                    f.SetValue(i * stride + j, 0.0f);
                    anyNaN = true;
                } else if (v - v != 0.0f) {
                    f.SetValue(i * stride + j, v > 0.0f ? bound : -bound);
                }
            }
        }
        PipeBarrier<PIPE_ALL>();
        return anyNaN;
    }

    // Writes the NaN code of y's type (the tiling's, from the dtype table) where ReplaceNonFinite flagged NaN: not a
    // conversion of a float NaN, whose result on ascend910_95 depends on the saturation control bits (NaN -> 0 in the
    // default saturation mode).
    __aicore__ inline void RestoreNaN(const LocalTensor<YT>& y, const LocalTensor<int32_t>& flags, uint32_t rows,
                                      uint32_t cols)
    {
        const LocalTensor<uint8_t> yb = y.template ReinterpretCast<uint8_t>();
        const uint8_t code = static_cast<uint8_t>(t_->yNanCode);
        PipeBarrier<PIPE_ALL>();
        for (uint32_t i = 0; i < rows; ++i) {
            for (uint32_t j = 0; j < cols; ++j) {
                if (flags.GetValue(i * t_->cStride + j) != 0) {
                    yb.SetValue(i * t_->cStride + j, code);
                }
            }
        }
        PipeBarrier<PIPE_ALL>();
    }

    const TD* t_ = nullptr;
    TPipe* pipe_ = nullptr;
    uint64_t aElems_ = 1, bElems_ = 1;
    GlobalTensor<float> aScaleGm_, bScaleGm_, yScaleGm_;
    GlobalTensor<uint8_t> yZpGm_;
    TBuf<TPosition::VECCALC> colBuf_, rowBuf_, patternBuf_, ysBuf_, halfBuf_;
    TQue<QuePosition::VECOUT, 2> yQue_;
    LocalTensor<float> col_, row_, pattern_, ysPattern_;
    uint32_t rowOff_ = 0;     // row_[rowOff_] holds the a scale of the current call's first row
    bool rowsHeld_ = false;   // row_ holds all M rows (LoadRows)
    LocalTensor<half> half_;
    uint32_t elems_ = 0;
    float yScale_ = 1.0f, yZp_ = 0.0f, aScale0_ = 1.0f, bScale0_ = 1.0f;
    bool primed_ = false;
};
