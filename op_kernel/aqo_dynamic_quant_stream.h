// AqoDynamicQuant, stream mode (tiling key 1): rows longer than one UB load (ascend910_95 has no tail limit). Pass 1
// streams a row's chunks from GM for its statistics, pass 2 streams them again and quantizes (x read twice); with
// two x slots chunk c + 1 is copied in while chunk c is computed. The scales (offsets) of rowsPerIter rows are
// stored at once. An asymmetric row that takes the scalar fallback (NaN / Inf, or a tiny range) is streamed once
// more for the scalar unit's statistics.
// Include guard #undef'd at the end of aqo_dynamic_quant.cpp (see aqo_dynamic_quant_common.h).
#ifndef AQO_DYNAMIC_QUANT_STREAM_H
#define AQO_DYNAMIC_QUANT_STREAM_H
#include "aqo_dynamic_quant_common.h"

namespace aqo_dq {

template <class TD, typename XT, typename YT, typename OT>
class KernelDynamicQuantStream : public DynamicQuantBase<TD, XT, YT, OT> {
    using Base = DynamicQuantBase<TD, XT, YT, OT>;
    using Base::p_;
    using Base::rowBegin_;
    using Base::rowEnd_;
    using Base::xGm_;
    using Base::yGm_;
    using Base::smoothGm_;
    using Base::xQue_;
    using Base::yQue_;
    using Base::scaleQue_;
    using Base::offsetQue_;
    using Base::scales_;
    using Base::offsets_;
    using Base::work_;
    using Base::tmp_;
    using Base::acc_;
    using Base::accMax_;
    using Base::accMin_;
    using Base::rowMax_;
    using Base::rowScale_;
    using Base::scaleBlocks_;
    using Base::offsetBlocks_;

    enum class Pass : uint8_t { STATS = 0, SCAN, STORE };

public:
    __aicore__ inline KernelDynamicQuantStream() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR smooth, GM_ADDR y, GM_ADDR scale, GM_ADDR offset, const TD& p,
                                TPipe* pipe)
    {
        this->InitBase(x, smooth, y, scale, offset, p, pipe, 1);
    }

    __aicore__ inline void Process()
    {
        for (uint64_t g = rowBegin_; g < rowEnd_; g += p_.rowsPerIter) {
            ProcessGroup(g, static_cast<uint32_t>((rowEnd_ - g) < p_.rowsPerIter ? (rowEnd_ - g) : p_.rowsPerIter));
        }
    }

private:
    __aicore__ inline void ProcessGroup(uint64_t g, uint32_t n)
    {
        const bool asym = p_.asymmetric != kSymmetric;
        LocalTensor<float> s = scaleQue_.template AllocTensor<float>();
        LocalTensor<OT> o;
        if (asym) {
            o = offsetQue_.template AllocTensor<OT>();
        }
        for (uint32_t i = 0; i < n; ++i) {
            const uint64_t row = g + i;
            PipeBarrier<PIPE_V>();  // the previous row's instructions still read the accumulators
            Duplicate(acc_, 0, static_cast<int32_t>(kAccLanes));
            if (asym) {
                this->ResetHiLo(1);
            }
            StreamPass(row, Pass::STATS, RowKind::NORMAL);
            if (asym) {
                this->RowMaxima(1);
                this->RowHiLo(1);
            } else {
                this->RowScales(1);
            }
            this->template WaitPipe<HardEvent::V_S>();
            if (i == 0) {
                scales_.Begin(s, g);
                if (asym) {
                    offsets_.Begin(o, g);
                }
            }
            const RowKind kind = asym ? AsymRow(i, s, o) : SymmetricRow(i, s);
            if (kind == RowKind::FALLBACK) {
                st_ = FallbackRow();
                StreamPass(row, Pass::SCAN, kind);
                this->PutFallback(i, st_, s, o);
            }
            StreamPass(row, Pass::STORE, kind);
        }
        this->template WaitPipe<HardEvent::S_MTE3>();
        scaleQue_.EnQue(s);
        LocalTensor<float> so = scaleQue_.template DeQue<float>();
        scales_.Write(so, g, n);
        scaleQue_.FreeTensor(so);
        if (asym) {
            offsetQue_.EnQue(o);
            LocalTensor<OT> oo = offsetQue_.template DeQue<OT>();
            offsets_.Write(oo, g, n);
            offsetQue_.FreeTensor(oo);
        }
    }

    // The scalar unit's part of a symmetric row after its statistics: kind, scale, broadcast block.
    __aicore__ inline RowKind SymmetricRow(uint32_t i, const LocalTensor<float>& s)
    {
        const float m = rowMax_.GetValue(0);
        const float sc = this->SymScale(m, rowScale_.GetValue(0));
        // ascend310p's chunks are sanitized as they arrive, so every row is finite there.
        RowKind kind = this->Classify(0, m, sc);
        if (kind == RowKind::RECHECK) {
            kind = F32IsZero(sc) ? RowKind::ZERO : RowKind::NORMAL;
        }
        scales_.Put(s, i, kind == RowKind::NAN_ROW ? BitsToFloat(0x7FC00000u)
                              : (kind == RowKind::INF_ROW ? BitsToFloat(0x7F800000u)
                                                          : (kind == RowKind::ZERO ? 0.0f : sc)));
        if (kind == RowKind::NORMAL) {
            Duplicate(scaleBlocks_, this->DivisorOf(m, sc), static_cast<int32_t>(kBlockFloats));
        }
        clip_ = kind == RowKind::NORMAL && sc < kFloatMin;
        this->divPrep_[0] = kind == RowKind::NORMAL && this->TinyRow(m) ? kPrepLift : kPrepNone;
        return kind;
    }

    // The same for an asymmetric row: its scale and offset on the vector unit (FinishAsym).
    __aicore__ inline RowKind AsymRow(uint32_t i, const LocalTensor<float>& s, const LocalTensor<OT>& o)
    {
        const float m = rowMax_.GetValue(0);
        RowKind kind = F32IsZero(m) ? RowKind::ZERO : RowKind::NORMAL;
        if (!(m <= p_.finiteMax)) {
            kind = RowKind::FALLBACK;
        }
        this->FinishAsym(1, &kind, s, o, i);
        return kind;
    }

    __aicore__ inline uint32_t ChunkLen(uint32_t c) const
    {
        const uint32_t off = c * p_.chunk;
        return (p_.cols - off) < p_.chunk ? (p_.cols - off) : p_.chunk;
    }

    // One pass over a row's chunks: statistics, the fallback's scalar statistics, or quantize and store. Storing a
    // zero / NaN / int8 Inf row needs no x.
    __aicore__ inline void StreamPass(uint64_t row, Pass pass, RowKind kind)
    {
        const bool read = pass != Pass::STORE || kind == RowKind::NORMAL || kind == RowKind::FALLBACK ||
                          (kind == RowKind::INF_ROW && Float8Out<YT>::kIsFloat);
        const bool prefetch = p_.xSlots > 1;
        if (read) {
            ChunkIn(row, 0);
        }
        for (uint32_t c = 0; c < p_.numChunks; ++c) {
            const uint32_t len = ChunkLen(c);
            const bool more = read && c + 1 < p_.numChunks;
            if (more && prefetch) {
                ChunkIn(row, c + 1);
            }
            if (read) {
                LoadChunk(len);
            }
            if (pass == Pass::STATS) {
                Accumulate(len);
            } else if (pass == Pass::SCAN) {
                this->template WaitPipe<HardEvent::V_S>();
                this->FallbackScan(work_, len, st_);
            } else {
                Store(row, c, len, kind);
            }
            if (more && !prefetch) {
                ChunkIn(row, c + 1);
            }
        }
    }

    // Copies chunk c of a row (and the matching smooth chunk, stored behind it in the same slot) into an x slot.
    __aicore__ inline void ChunkIn(uint64_t row, uint32_t c)
    {
        const uint32_t off = c * p_.chunk;
        const uint32_t len = ChunkLen(c);
        LocalTensor<XT> x = xQue_.template AllocTensor<XT>();
        this->CopyRowsIn(x, xGm_[row * p_.cols + off], 1, len, p_.chunk);
        if (p_.hasSmooth != 0) {
            this->CopyRowsIn(x[p_.chunk], smoothGm_[off], 1, len, p_.chunk);
        }
        xQue_.EnQue(x);
    }

    // work_ = v of the chunk at the head of the x queue.
    __aicore__ inline void LoadChunk(uint32_t len)
    {
        LocalTensor<XT> x = xQue_.template DeQue<XT>();
        if constexpr (kSocSaturationMode) {
            this->template WaitPipe<HardEvent::MTE2_S>();  // the scalar unit may rewrite the DMA's bytes
            this->SanitizeHalf(x, len);
            if (p_.hasSmooth != 0) {
                this->SanitizeHalf(x[p_.chunk], len);
            }
        }
        PipeBarrier<PIPE_V>();  // work_ and tmp_ may still be read by the previous chunk's instructions
        Cast(work_, x, RoundMode::CAST_NONE, len);
        if (p_.hasSmooth != 0) {
            Cast(tmp_, x[p_.chunk], RoundMode::CAST_NONE, len);
            PipeBarrier<PIPE_V>();
            Mul(work_, work_, tmp_, len);
        }
        xQue_.FreeTensor(x);
        PipeBarrier<PIPE_V>();
    }

    __aicore__ inline void Accumulate(uint32_t len)
    {
        this->MagnitudeBits(work_, tmp_, len);
        LocalTensor<int32_t> bits = tmp_.template ReinterpretCast<int32_t>();
        const uint32_t segs = this->Segments(len);
        for (uint32_t seg = 0; seg < segs; ++seg) {
            PipeBarrier<PIPE_V>();
            this->AccumulateSegment(true, acc_, bits, len, seg);
        }
        if (p_.asymmetric != kSymmetric) {
            PipeBarrier<PIPE_V>();
            this->SignedNaNFree(work_, tmp_, len);
            for (uint32_t seg = 0; seg < segs; ++seg) {
                PipeBarrier<PIPE_V>();
                this->AccumulateSegment(true, accMax_, work_, len, seg);
                this->AccumulateSegment(false, accMin_, work_, len, seg);
            }
        }
    }

    __aicore__ inline void Store(uint64_t row, uint32_t c, uint32_t len, RowKind kind)
    {
        LocalTensor<YT> y = yQue_.template AllocTensor<YT>();
        const bool asym = p_.asymmetric != kSymmetric;
        if (kind == RowKind::NORMAL) {
            if (this->divPrep_[0] != kPrepNone) {  // SymmetricRow / FinishAsym (one row)
                this->PrepareForDivision(work_, len, 0);
                PipeBarrier<PIPE_V>();
            }
            this->DivBlock(work_, work_, scaleBlocks_, len);
            if (asym) {
                PipeBarrier<PIPE_V>();
                this->AsymAddOffset(work_, offsetBlocks_, tmp_, len);
                PipeBarrier<PIPE_V>();
                this->AsymClip(work_, len);
            } else if (clip_) {
                PipeBarrier<PIPE_V>();
                Maxs(work_, work_, p_.clipLo, len);
                PipeBarrier<PIPE_V>();
                Mins(work_, work_, p_.clipHi, len);
            }
            PipeBarrier<PIPE_V>();
            this->CastOut(y, work_, tmp_, len);
        } else if (kind == RowKind::FALLBACK) {
            this->template WaitPipe<HardEvent::V_S>();
            this->FallbackChunk(work_, y, len, st_);
            this->template WaitPipe<HardEvent::S_MTE3>();
        } else if (asym) {
            this->FillBytes(y, len, 0);  // a zero-scale row
        } else {
            this->SpecialChunk(y, work_, len, kind);
            this->template WaitPipe<HardEvent::S_MTE3>();  // the NaN codes of an Inf row come from the scalar unit
        }
        yQue_.EnQue(y);
        LocalTensor<YT> yo = yQue_.template DeQue<YT>();
        this->CopyRowsOut(yGm_[row * p_.cols + c * p_.chunk], yo, 1, len);
        yQue_.FreeTensor(yo);
    }

    bool clip_ = false;
    FallbackRow st_;
};

}  // namespace aqo_dq

#endif  // AQO_DYNAMIC_QUANT_STREAM_H
