// The float epilogue of AqoQuantMatMul (python/ascend_quant_ops/golden/quant_matmul.py, the definition):
//     s = float32(a_scale * b_scale)      one rounding, the row's scale times the column's
//     v = float32(acc) * s                one float32 multiply (float32(acc) correctly rounded by the cube stage)
//     v = v + bias                        one float32 addition, only with a bias (no + 0.0: -0 keeps its sign)
//     y = out_dtype(v)                    one round-to-nearest-even conversion (none for float32)
// A chunk (rows x cStride of one block) is processed at once; per-row scales take one instruction per row.
// No include guard (see aqo_kernel_common.h).
//
// Tiling fields read: aScaleKind, bScaleKind, aScaleBatchStride, bScaleBatchStride, biasKind, biasBatchStride, m, n,
// aMatrices, bMatrices, batch, cStride, rowsPerChunk, ubColF32, ubRowF32, ubBias, ubPattern, ubYOut.

// The output conversion: float32 -> YT, rounded to nearest even (float32: an exact copy).
template <class YT>
struct QmmFloatOut {
    __aicore__ static inline void Cast(const LocalTensor<YT>& y, const LocalTensor<float>& f, uint32_t elems)
    {
        AscendC::Cast(y, f, RoundMode::CAST_RINT, elems);
    }
};
template <>
struct QmmFloatOut<float> {
    __aicore__ static inline void Cast(const LocalTensor<float>& y, const LocalTensor<float>& f, uint32_t elems)
    {
        Muls(y, f, 1.0f, elems);  // exact for every float32, -0 and NaN included
    }
};

template <class TD, class YT>
class QmmFloatEpilogue {
public:
    __aicore__ inline void Init(GM_ADDR aScale, GM_ADDR bScale, GM_ADDR bias, const TD& t, TPipe* pipe)
    {
        t_ = &t;
        pipe_ = pipe;
        aElems_ = t.aScaleKind ? (t.aScaleBatchStride ? static_cast<uint64_t>(t.aMatrices) * t.m : t.m) : 1;
        bElems_ = t.bScaleKind ? (t.bScaleBatchStride ? static_cast<uint64_t>(t.bMatrices) * t.n : t.n) : 1;
        biasElems_ = t.biasKind == kQmmParamVector
                         ? (t.biasBatchStride ? static_cast<uint64_t>(t.batch) * t.n : t.n)
                         : 1;
        aScaleGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(aScale), aElems_);
        bScaleGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bScale), bElems_);
        if (t.biasKind != kQmmParamNone) {
            biasGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bias), biasElems_);
        }
        pipe->InitBuffer(colBuf_, t.ubColF32);
        pipe->InitBuffer(rowBuf_, t.ubRowF32);
        pipe->InitBuffer(biasBuf_, t.ubBias);
        pipe->InitBuffer(patternBuf_, t.ubPattern);
        pipe->InitBuffer(yQue_, 2, t.ubYOut);
        col_ = colBuf_.Get<float>();
        row_ = rowBuf_.Get<float>();
        biasRow_ = biasBuf_.Get<float>();
        pattern_ = patternBuf_.Get<float>();
    }

    // Per call: the a scales of the strip's rows (per-row a), read by the scalar unit row by row. The first call
    // also reads the per-tensor parameters (after its cube request went out: the scalar GM reads overlap the cube).
    __aicore__ inline void LoadRows(const QmmCall& c)
    {
        if (!primed_) {
            primed_ = true;
            aScale0_ = aScaleGm_.GetValue(0);
            bScale0_ = bScaleGm_.GetValue(0);
            if (t_->biasKind != kQmmParamNone) {
                bias0_ = biasGm_.GetValue(0);
            }
        }
        if (t_->aScaleKind == 0) {
            return;
        }
        const uint64_t base = (t_->aScaleBatchStride ? c.ai * t_->m : 0) + c.m0;
        aqo_kernel::WaitPipe<HardEvent::S_MTE2>(pipe_);  // the previous call's rows were read by the scalar unit
        QmmCopyBytesIn(row_, aScaleGm_, base, c.rows, aElems_);
        aqo_kernel::WaitPipe<HardEvent::MTE2_S>(pipe_);
    }

    // Per block: b's scales of its columns (per-tensor a: the scale pattern a_scale * b_scale[n], replicated over
    // the chunk's rows) and the bias of its columns.
    __aicore__ inline void LoadColumns(const QmmCall& c, uint32_t n0, uint32_t cols)
    {
        const uint32_t stride = t_->cStride;
        if (t_->biasKind == kQmmParamVector) {
            const uint64_t base = (t_->biasBatchStride ? c.bi * t_->n : 0) + n0;
            aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);  // the previous block's rows may still read biasRow_
            QmmCopyBytesIn(biasRow_, biasGm_, base, cols, biasElems_);
            aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);
        }
        if (t_->bScaleKind == 0) {
            return;
        }
        const uint64_t base = (t_->bScaleBatchStride ? c.bj * t_->n : 0) + n0;
        aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);  // col_ may still be read by the previous block's rows
        QmmCopyBytesIn(col_, bScaleGm_, base, cols, bElems_);
        aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);
        if (t_->aScaleKind != 0) {
            return;
        }
        PipeBarrier<PIPE_V>();
        Muls(pattern_, col_, aScale0_, stride);  // float32(a_scale * b_scale[n]) (the product commutes exactly)
        QmmReplicateRow(pattern_, stride, t_->rowsPerChunk);  // over the chunk's rows
    }

    // y of a chunk: `f` holds float32(acc) of `rows` rows (strip rows r0..), row stride cStride. Returns y (DeQue'd
    // from the output queue, for the copy-out; FreeY afterwards).
    __aicore__ inline LocalTensor<YT> Compute(const LocalTensor<float>& f, uint32_t r0, uint32_t rows)
    {
        const uint32_t stride = t_->cStride;
        const uint32_t elems = rows * stride;
        ApplyScale(f, r0, rows, elems);
        if (t_->biasKind == kQmmParamTensor) {
            PipeBarrier<PIPE_V>();
            Adds(f, f, bias0_, elems);
        } else if (t_->biasKind == kQmmParamVector) {
            PipeBarrier<PIPE_V>();  // the rows are independent: one barrier for all
            for (uint32_t i = 0; i < rows; ++i) {
                Add(f[i * stride], f[i * stride], biasRow_, stride);
            }
        }
        LocalTensor<YT> y = yQue_.template AllocTensor<YT>();
        PipeBarrier<PIPE_V>();
        QmmFloatOut<YT>::Cast(y, f, elems);
        yQue_.EnQue(y);
        return yQue_.template DeQue<YT>();
    }

    __aicore__ inline void FreeY(LocalTensor<YT>& y) { yQue_.FreeTensor(y); }

private:
    // f *= float32(a_scale * b_scale), per element in the definition's order (the scales' product first).
    __aicore__ inline void ApplyScale(const LocalTensor<float>& f, uint32_t r0, uint32_t rows, uint32_t elems)
    {
        const uint32_t stride = t_->cStride;
        if (t_->aScaleKind == 0 && t_->bScaleKind == 0) {
            PipeBarrier<PIPE_V>();
            Muls(f, f, aScale0_ * bScale0_, elems);
            return;
        }
        if (t_->aScaleKind == 0) {
            PipeBarrier<PIPE_V>();
            Mul(f, f, pattern_, elems);
            return;
        }
        if (t_->bScaleKind == 0) {
            PipeBarrier<PIPE_V>();  // the rows are independent: one barrier for all
            for (uint32_t i = 0; i < rows; ++i) {
                const float s = row_.GetValue(r0 + i) * bScale0_;
                Muls(f[i * stride], f[i * stride], s, stride);
            }
            return;
        }
        PipeBarrier<PIPE_V>();  // the pattern's rows may still be read by the previous chunk (rows independent)
        for (uint32_t i = 0; i < rows; ++i) {
            Muls(pattern_[i * stride], col_, row_.GetValue(r0 + i), stride);
        }
        PipeBarrier<PIPE_V>();
        Mul(f, f, pattern_, elems);
    }

    const TD* t_ = nullptr;
    TPipe* pipe_ = nullptr;
    uint64_t aElems_ = 1, bElems_ = 1, biasElems_ = 1;
    GlobalTensor<float> aScaleGm_, bScaleGm_, biasGm_;
    TBuf<TPosition::VECCALC> colBuf_, rowBuf_, biasBuf_, patternBuf_;
    TQue<QuePosition::VECOUT, 2> yQue_;
    LocalTensor<float> col_, row_, biasRow_, pattern_;
    float aScale0_ = 1.0f, bScale0_ = 1.0f, bias0_ = 0.0f;
    bool primed_ = false;
};
