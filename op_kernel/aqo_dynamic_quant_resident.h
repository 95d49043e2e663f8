// AqoDynamicQuant, resident mode (tiling key 0): rowsPerIter whole rows of x are copied into UB at once (one DMA,
// double buffered: the next group's copy is issued before this group's compute) and x is read from GM once.
//   numChunks == 1: the group is computed at once: one Cast of the group into float32, its magnitude bits, one
//                   accumulation instruction per row, the group's scales (one clamp, one WholeReduceMax, one Div),
//                   one V -> S wait, a broadcast Div per row, the group's dst conversion.
//   numChunks > 1:  a row's float32 copy does not fit next to the resident rows: the statistics and the quantize
//                   pass each walk the resident row in float32 chunks. With one x slot (long rows: the next group's
//                   copy cannot go out early) or one group a core, the group is copied in by column pieces, each
//                   with its own flag, so that the statistics pass starts on the first piece while the others load;
//                   and a NORMAL row's y chunks are stored as the quantize pass makes them, the group's last chunk at
//                   the end.
// Include guard #undef'd at the end of aqo_dynamic_quant.cpp (see aqo_dynamic_quant_common.h).
#ifndef AQO_DYNAMIC_QUANT_RESIDENT_H
#define AQO_DYNAMIC_QUANT_RESIDENT_H
#include "aqo_dynamic_quant_common.h"

namespace aqo_dq {

template <class TD, typename XT, typename YT, typename OT>
class KernelDynamicQuantResident : public DynamicQuantBase<TD, XT, YT, OT> {
    using Base = DynamicQuantBase<TD, XT, YT, OT>;
    using Base::p_;
    using Base::pipe_;
    using Base::rowBegin_;
    using Base::rowEnd_;
    using Base::xGm_;
    using Base::yGm_;
    using Base::xQue_;
    using Base::yQue_;
    using Base::scaleQue_;
    using Base::offsetQue_;
    using Base::scales_;
    using Base::offsets_;
    using Base::work_;
    using Base::tmp_;
    using Base::acc_;
    using Base::smooth_;
    using Base::rowMax_;
    using Base::rowScale_;
    using Base::scaleBlocks_;
    using Base::offsetBlocks_;
    using Base::accMax_;
    using Base::accMin_;

public:
    __aicore__ inline KernelDynamicQuantResident() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR smooth, GM_ADDR y, GM_ADDR scale, GM_ADDR offset, const TD& p,
                                TPipe* pipe)
    {
        this->InitBase(x, smooth, y, scale, offset, p, pipe, p.rowsPerIter);
    }

    __aicore__ inline void Process()
    {
        if (rowBegin_ >= rowEnd_) {
            return;
        }
        if (p_.hasSmooth != 0) {
            this->LoadSmoothF32();
        }
        // With two x slots the next group's copy-in is issued before this group's compute: the compute stalls the
        // scalar unit (it waits for the group's scales), so a copy issued after it would not overlap it.
        const bool prefetch = p_.xSlots > 1;
        // Pieces (one set of flags) where no next group's copy is in flight beside a group's: one x slot, or a core
        // with one group.
        pieced_ = p_.numChunks > 1 && (!prefetch || rowEnd_ - rowBegin_ <= p_.rowsPerIter);
        if (pieced_) {
            pieces_ = p_.numChunks < kMaxPieces ? p_.numChunks : kMaxPieces;
            for (uint32_t k = 0; k < pieces_; ++k) {
                pieceFlag_[k] = static_cast<event_t>(pipe_->template AllocEventID<HardEvent::MTE2_V>());
            }
        }
        uint64_t g = rowBegin_;
        uint32_t n = GroupRows(g);
        CopyIn(g, n);
        while (g < rowEnd_) {
            const uint64_t next = g + n;
            const uint32_t nn = next < rowEnd_ ? GroupRows(next) : 0;
            if (prefetch && nn != 0) {
                CopyIn(next, nn);
            }
            Compute(g, n);
            CopyOut(g, n);
            if (!prefetch && nn != 0) {
                CopyIn(next, nn);
            }
            g = next;
            n = nn;
        }
        for (uint32_t k = 0; k < pieces_; ++k) {
            pipe_->template ReleaseEventID<HardEvent::MTE2_V>(pieceFlag_[k]);
        }
    }

private:
    __aicore__ inline uint32_t GroupRows(uint64_t g) const
    {
        return static_cast<uint32_t>((rowEnd_ - g) < p_.rowsPerIter ? (rowEnd_ - g) : p_.rowsPerIter);
    }

    __aicore__ inline void CopyIn(uint64_t row, uint32_t n)
    {
        LocalTensor<XT> x = xQue_.template AllocTensor<XT>();
        if (pieced_) {
            // One DMA per column piece (whole chunks), each followed by its own flag; the slot is not queued (the
            // statistics pass waits on the flags, Compute frees it). The plan computes chunked rows one a group; the
            // pieces and the streamed stores handle several rows all the same.
            for (uint32_t k = 0; k < pieces_; ++k) {
                const uint32_t off = PieceChunk(k) * p_.chunk;
                const uint32_t end = PieceChunk(k + 1) * p_.chunk;
                const uint32_t len = (end < p_.cols ? end : p_.cols) - off;
                this->CopyRowsIn(x[off], xGm_[row * p_.cols + off], n, len, p_.colsPad);
                SetFlag<HardEvent::MTE2_V>(pieceFlag_[k]);
            }
            piecedX_ = x;
            piecesPending_ = true;
            return;
        }
        this->CopyRowsIn(x, xGm_[row * p_.cols], n, p_.cols, p_.colsPad);
        xQue_.EnQue(x);
    }

    // The first chunk of column piece k (k = pieces_: numChunks).
    __aicore__ inline uint32_t PieceChunk(uint32_t k) const { return p_.numChunks * k / pieces_; }

    __aicore__ inline void Compute(uint64_t row, uint32_t n)
    {
        LocalTensor<XT> x = pieced_ ? piecedX_ : xQue_.template DeQue<XT>();
        LocalTensor<YT> y = yQue_.template AllocTensor<YT>();
        LocalTensor<float> s = scaleQue_.template AllocTensor<float>();
        const bool asym = p_.asymmetric != kSymmetric;
        LocalTensor<OT> o;
        if (asym) {
            o = offsetQue_.template AllocTensor<OT>();
        }
        if (p_.numChunks == 1) {
            if (asym) {
                ComputeGroupAsym(x, y, s, o, row, n);
            } else {
                ComputeGroup(x, y, s, row, n);
            }
        } else {
            if (asym) {
                ComputeChunkedAsym(x, y, s, o, row, n);
            } else {
                ComputeChunked(x, y, s, row, n);
            }
            xQue_.FreeTensor(x);
        }
        this->template WaitPipe<HardEvent::S_MTE3>();  // the scales (and rare scalar y writes) come from the scalar unit
        yQue_.EnQue(y);
        scaleQue_.EnQue(s);
        if (asym) {
            offsetQue_.EnQue(o);
        }
    }

    __aicore__ inline void CopyOut(uint64_t row, uint32_t n)
    {
        LocalTensor<YT> y = yQue_.template DeQue<YT>();
        if (pieced_) {
            // rows whose chunks were stored as they were made: only the group's last chunk is left
            for (uint32_t i = 0; i < n; ++i) {
                const bool last = i + 1 == n;
                const uint32_t off = streamed_[i] ? (last ? (p_.numChunks - 1) * p_.chunk : p_.cols) : 0;
                this->CopyRowsOut(yGm_[(row + i) * p_.cols + off], y[i * p_.colsPad + off], 1, p_.cols - off);
            }
        } else {
            this->CopyRowsOut(yGm_[row * p_.cols], y, n, p_.cols);
        }
        yQue_.FreeTensor(y);
        LocalTensor<float> s = scaleQue_.template DeQue<float>();
        scales_.Write(s, row, n);
        scaleQue_.FreeTensor(s);
        if (p_.asymmetric != kSymmetric) {
            LocalTensor<OT> o = offsetQue_.template DeQue<OT>();
            offsets_.Write(o, row, n);
            offsetQue_.FreeTensor(o);
        }
    }

    // ----- the group at once -----
    __aicore__ inline void ComputeGroup(LocalTensor<XT> x, const LocalTensor<YT>& y,
                                        const LocalTensor<float>& s, uint64_t row, uint32_t n)
    {
        const uint32_t count = n * p_.colsPad;
        PipeBarrier<PIPE_V>();  // the previous group's instructions still read work_, tmp_ and acc_
        Duplicate(acc_, 0, static_cast<int32_t>(n * kAccLanes));
        this->LoadV(work_, x, n, count, smooth_, p_.cols);
        if constexpr (!kSocSaturationMode) {
            // x is not read again (its float32 copy is): the slot goes back to the next group's copy-in now, so that
            // the copy overlaps this group's compute. ascend310p keeps it for a row that needs sanitizing.
            xQue_.FreeTensor(x);
        }
        PipeBarrier<PIPE_V>();
        this->MagnitudeBits(work_, tmp_, count);
        AccumulateGroup(0, n);
        this->RowScales(n);
        this->template WaitPipe<HardEvent::V_S>();

        scales_.Begin(s, row);
        RowKind kinds[kMaxRepeats];
        bool clip = false;
        for (uint32_t i = 0; i < n; ++i) {
            float m = rowMax_.GetValue(2 * i);
            float sc = this->SymScale(m, rowScale_.GetValue(2 * i));
            RowKind kind = this->Classify(i, m, sc);
            if (kind == RowKind::RECHECK) {
                kind = RecheckRow(x, i, n, &sc);  // float16 (310p): never tiny
                m = rowMax_.GetValue(2 * i);
            }
            kinds[i] = kind;
            this->divPrep_[i] = kind == RowKind::NORMAL && this->TinyRow(m) ? kPrepLift : kPrepNone;
            scales_.Put(s, i, this->ScaleOf(kind, sc));
            if (kind == RowKind::NORMAL) {
                Duplicate(scaleBlocks_[i * kBlockFloats], this->DivisorOf(m, sc), static_cast<int32_t>(kBlockFloats));
                clip = clip || sc < kFloatMin;
            }
        }
        PipeBarrier<PIPE_V>();
        PrepareRows(kinds, n);
        for (uint32_t i = 0; i < n; ++i) {
            if (kinds[i] == RowKind::NORMAL) {
                this->DivBlock(work_[i * p_.colsPad], work_[i * p_.colsPad], scaleBlocks_[i * kBlockFloats], p_.cols);
            }
        }
        if (clip) {
            // A subnormal scale (bfloat16 rows near the underflow threshold) loses the relative precision that
            // otherwise keeps |v / scale| within dmax: clip, as the golden does, before the conversion.
            PipeBarrier<PIPE_V>();
            for (uint32_t i = 0; i < n; ++i) {
                if (kinds[i] == RowKind::NORMAL) {
                    Maxs(work_[i * p_.colsPad], work_[i * p_.colsPad], p_.clipLo, p_.cols);
                }
            }
            PipeBarrier<PIPE_V>();
            for (uint32_t i = 0; i < n; ++i) {
                if (kinds[i] == RowKind::NORMAL) {
                    Mins(work_[i * p_.colsPad], work_[i * p_.colsPad], p_.clipHi, p_.cols);
                }
            }
        }
        // Special rows write their y rows themselves; the others are converted in runs of consecutive rows.
        for (uint32_t i = 0; i < n; ++i) {
            if (kinds[i] != RowKind::NORMAL) {
                this->SpecialChunk(y[i * p_.colsPad], work_[i * p_.colsPad], p_.cols, kinds[i]);
            }
        }
        PipeBarrier<PIPE_V>();
        uint32_t b = 0;
        for (uint32_t a = 0; NextNormalRun(kinds, n, a, b); a = b) {
            this->CastOut(y[a * p_.colsPad], work_[a * p_.colsPad], tmp_[a * p_.colsPad], (b - a) * p_.colsPad);
        }
        if constexpr (kSocSaturationMode) {
            xQue_.FreeTensor(x);
        }
    }

    // Accumulates the magnitude bits of rows [first, first + n) (tmp_, row stride colsPad) into their acc lanes,
    // the rows' k-th instructions together between barriers.
    __aicore__ inline void AccumulateGroup(uint32_t first, uint32_t n)
    {
        LocalTensor<int32_t> bits = tmp_.template ReinterpretCast<int32_t>();
        const uint32_t segs = this->Segments(p_.cols);
        for (uint32_t seg = 0; seg < segs; ++seg) {
            PipeBarrier<PIPE_V>();
            for (uint32_t i = first; i < first + n; ++i) {
                this->AccumulateSegment(true, acc_[i * kAccLanes], bits[i * p_.colsPad], p_.cols, seg);
            }
        }
    }

    // The NORMAL rows' values (whole rows in work_) before their division, as divPrep_ says: after the caller's
    // PipeBarrier<PIPE_V>, with one after them when any row needed a step.
    __aicore__ inline void PrepareRows(const RowKind* kinds, uint32_t n)
    {
        bool any = false;
        for (uint32_t i = 0; i < n; ++i) {
            if (kinds[i] == RowKind::NORMAL && this->divPrep_[i] != kPrepNone) {
                this->PrepareForDivision(work_[i * p_.colsPad], p_.cols, i);
                any = true;
            }
        }
        if (any) {
            PipeBarrier<PIPE_V>();
        }
    }

    // ascend310p: a row whose maximum reached the saturation bound holds Inf or NaN (or the float16 maximum
    // itself): its x row is sanitized in place and its statistics are computed again; it is then an ordinary row.
    __aicore__ inline RowKind RecheckRow(const LocalTensor<XT>& x, uint32_t i, uint32_t n, float* sc)
    {
        LocalTensor<XT> xr = x[i * p_.colsPad];
        this->SanitizeHalf(xr, p_.cols);
        Duplicate(acc_[i * kAccLanes], 0, static_cast<int32_t>(kAccLanes));
        this->LoadV(work_[i * p_.colsPad], xr, 1, p_.colsPad, smooth_, p_.cols);
        PipeBarrier<PIPE_V>();
        this->MagnitudeBits(work_[i * p_.colsPad], tmp_[i * p_.colsPad], p_.colsPad);
        AccumulateGroup(i, 1);
        this->RowScales(n);
        this->template WaitPipe<HardEvent::V_S>();
        const float m = rowMax_.GetValue(2 * i);
        *sc = rowScale_.GetValue(2 * i);
        return this->Classify(i, m, *sc) == RowKind::ZERO ? RowKind::ZERO : RowKind::NORMAL;
    }

    // ----- rows in float32 chunks -----
    __aicore__ inline void ComputeChunked(const LocalTensor<XT>& x, const LocalTensor<YT>& y,
                                          const LocalTensor<float>& s, uint64_t row, uint32_t n)
    {
        PipeBarrier<PIPE_V>();  // the previous group's instructions still read acc_
        Duplicate(acc_, 0, static_cast<int32_t>(n * kAccLanes));
        for (uint32_t i = 0; i < n; ++i) {
            StatsChunks(x[i * p_.colsPad], i);
        }
        this->RowScales(n);
        this->template WaitPipe<HardEvent::V_S>();
        scales_.Begin(s, row);
        for (uint32_t i = 0; i < n; ++i) {
            float m = rowMax_.GetValue(2 * i);
            float sc = this->SymScale(m, rowScale_.GetValue(2 * i));
            RowKind kind = this->Classify(i, m, sc);
            if (kind == RowKind::RECHECK) {
                for (uint32_t c = 0; c < p_.numChunks; ++c) {
                    this->SanitizeHalf(x[i * p_.colsPad + c * p_.chunk], ChunkLen(c));
                }
                Duplicate(acc_[i * kAccLanes], 0, static_cast<int32_t>(kAccLanes));
                StatsChunks(x[i * p_.colsPad], i);
                this->RowScales(n);
                this->template WaitPipe<HardEvent::V_S>();
                m = rowMax_.GetValue(2 * i);
                sc = rowScale_.GetValue(2 * i);
                kind = this->Classify(i, m, sc) == RowKind::ZERO ? RowKind::ZERO : RowKind::NORMAL;
            }
            this->divPrep_[i] = kind == RowKind::NORMAL && this->TinyRow(m) ? kPrepLift : kPrepNone;
            scales_.Put(s, i, this->ScaleOf(kind, sc));
            // A NORMAL row's chunks (vector work only) are stored as they are made, but the group's last one.
            streamed_[i] = pieced_ && kind == RowKind::NORMAL;
            QuantizeChunks(x[i * p_.colsPad], y[i * p_.colsPad], i, kind, sc,
                           streamed_[i] ? row + i : kNoStore, i + 1 == n);
        }
    }

    __aicore__ inline uint32_t ChunkLen(uint32_t c) const
    {
        const uint32_t off = c * p_.chunk;
        return (p_.cols - off) < p_.chunk ? (p_.cols - off) : p_.chunk;
    }

    // Row i's magnitude maximum over its chunks (acc lanes of row i); asymmetric: also its signed maximum and
    // minimum (accMax_ / accMin_ lanes, NaN made +-Inf for them).
    __aicore__ inline void StatsChunks(const LocalTensor<XT>& xr, uint32_t i)
    {
        LocalTensor<int32_t> bits = tmp_.template ReinterpretCast<int32_t>();
        uint32_t piece = 0;
        for (uint32_t c = 0; c < p_.numChunks; ++c) {
            const uint32_t off = c * p_.chunk;
            const uint32_t len = ChunkLen(c);
            if (piecesPending_ && piece < pieces_ && c == PieceChunk(piece)) {
                WaitFlag<HardEvent::MTE2_V>(pieceFlag_[piece++]);  // the group's rows of this piece are in UB
            }
            PipeBarrier<PIPE_V>();  // work_ / tmp_ are still read by the previous chunk's instructions
            this->LoadV(work_, xr[off], 1, len, smooth_[off], len);
            PipeBarrier<PIPE_V>();
            this->MagnitudeBits(work_, tmp_, len);
            const uint32_t segs = this->Segments(len);
            for (uint32_t seg = 0; seg < segs; ++seg) {
                PipeBarrier<PIPE_V>();
                this->AccumulateSegment(true, acc_[i * kAccLanes], bits, len, seg);
            }
            if (p_.asymmetric == kSymmetric) {
                continue;
            }
            PipeBarrier<PIPE_V>();
            this->SignedNaNFree(work_, tmp_, len);
            for (uint32_t seg = 0; seg < segs; ++seg) {
                PipeBarrier<PIPE_V>();
                this->AccumulateSegment(true, accMax_[i * kAccLanes], work_, len, seg);
                this->AccumulateSegment(false, accMin_[i * kAccLanes], work_, len, seg);
            }
        }
        piecesPending_ = false;  // every piece waited for (each DMA covers all of the group's rows)
    }

    // A tiny row (divPrep_[i]: kPrepLift) has its values and divisor lifted before the division. storeRow (not
    // kNoStore): each chunk goes to y's row storeRow in GM once converted, but the last one of the group's last row
    // (lastRow), which CopyOut stores.
    static constexpr uint64_t kNoStore = ~0ull;

    __aicore__ inline void QuantizeChunks(const LocalTensor<XT>& xr, const LocalTensor<YT>& yr, uint32_t i,
                                          RowKind kind, float sc, uint64_t storeRow, bool lastRow)
    {
        const bool normal = kind == RowKind::NORMAL;
        const bool readV = normal || (kind == RowKind::INF_ROW && Float8Out<YT>::kIsFloat);
        const bool prep = normal && this->divPrep_[i] != kPrepNone;
        if (normal) {
            PipeBarrier<PIPE_V>();
            const float divisor = this->divPrep_[i] == kPrepLift ? F32TimesPow2(sc, kTinyLiftLog2) : sc;
            Duplicate(scaleBlocks_[i * kBlockFloats], divisor, static_cast<int32_t>(kBlockFloats));
        }
        for (uint32_t c = 0; c < p_.numChunks; ++c) {
            const uint32_t off = c * p_.chunk;
            const uint32_t len = ChunkLen(c);
            PipeBarrier<PIPE_V>();
            if (readV) {
                this->LoadV(work_, xr[off], 1, len, smooth_[off], len);
                PipeBarrier<PIPE_V>();
            }
            if (!normal) {
                this->SpecialChunk(yr[off], work_, len, kind);
                continue;
            }
            if (prep) {
                this->PrepareForDivision(work_, len, i);
                PipeBarrier<PIPE_V>();
            }
            this->DivBlock(work_, work_, scaleBlocks_[i * kBlockFloats], len);
            if (sc < kFloatMin) {
                PipeBarrier<PIPE_V>();
                Maxs(work_, work_, p_.clipLo, len);
                PipeBarrier<PIPE_V>();
                Mins(work_, work_, p_.clipHi, len);
            }
            PipeBarrier<PIPE_V>();
            this->CastOut(yr[off], work_, tmp_, len);
            if (storeRow != kNoStore && !(lastRow && c + 1 == p_.numChunks)) {
                this->template WaitPipe<HardEvent::V_MTE3>();
                this->CopyRowsOut(yGm_[storeRow * p_.cols + off], yr[off], 1, len);
            }
        }
    }

    // ----- asymmetric, the group at once -----
    // Statistics in two steps with one V -> S wait between them: the magnitudes first, which find the rows holding
    // NaN or Inf (the float max / min must not see NaN); then the signed maxima and minima of the finite rows only.
    __aicore__ inline void ComputeGroupAsym(LocalTensor<XT> x, const LocalTensor<YT>& y, const LocalTensor<float>& s,
                                            const LocalTensor<OT>& o, uint64_t row, uint32_t n)
    {
        const uint32_t count = n * p_.colsPad;
        PipeBarrier<PIPE_V>();  // the previous group's instructions still read work_, tmp_ and the accumulators
        Duplicate(acc_, 0, static_cast<int32_t>(n * kAccLanes));
        this->ResetHiLo(n);
        this->LoadV(work_, x, n, count, smooth_, p_.cols);
        if constexpr (!kSocSaturationMode) {
            xQue_.FreeTensor(x);  // x is not read again (see ComputeGroup)
        }
        PipeBarrier<PIPE_V>();
        this->MagnitudeBits(work_, tmp_, count);
        AccumulateGroup(0, n);
        this->RowMaxima(n);
        this->template WaitPipe<HardEvent::V_S>();

        RowKind kinds[kMaxRepeats];
        for (uint32_t i = 0; i < n; ++i) {
            const float m = rowMax_.GetValue(2 * i);
            kinds[i] = F32IsZero(m) ? RowKind::ZERO : RowKind::NORMAL;
            if (!(m <= p_.finiteMax)) {
                if constexpr (kSocSaturationMode) {
                    LocalTensor<XT> xr = x[i * p_.colsPad];
                    this->SanitizeHalf(xr, p_.cols);
                    this->LoadV(work_[i * p_.colsPad], xr, 1, p_.colsPad, smooth_, p_.cols);
                } else {
                    kinds[i] = RowKind::FALLBACK;
                }
            }
        }
        const uint32_t segs = this->Segments(p_.cols);
        for (uint32_t seg = 0; seg < segs; ++seg) {
            PipeBarrier<PIPE_V>();
            for (uint32_t i = 0; i < n; ++i) {
                if (kinds[i] == RowKind::NORMAL) {
                    this->AccumulateSegment(true, accMax_[i * kAccLanes], work_[i * p_.colsPad], p_.cols, seg);
                    this->AccumulateSegment(false, accMin_[i * kAccLanes], work_[i * p_.colsPad], p_.cols, seg);
                }
            }
        }
        this->RowHiLo(n);
        this->template WaitPipe<HardEvent::V_S>();
        scales_.Begin(s, row);
        offsets_.Begin(o, row);
        this->FinishAsym(n, kinds, s, o);
        for (uint32_t i = 0; i < n; ++i) {
            if (kinds[i] == RowKind::FALLBACK) {
                FallbackRow st;
                this->FallbackScan(work_[i * p_.colsPad], p_.cols, st);
                this->PutFallback(i, st, s, o);
                this->FallbackChunk(work_[i * p_.colsPad], y[i * p_.colsPad], p_.cols, st);
            } else if (kinds[i] == RowKind::ZERO) {
                this->FillBytes(y[i * p_.colsPad], p_.cols, 0);
            }
        }
        if constexpr (kSocSaturationMode) {
            xQue_.FreeTensor(x);
        }
        PipeBarrier<PIPE_V>();
        PrepareRows(kinds, n);
        for (uint32_t i = 0; i < n; ++i) {
            if (kinds[i] == RowKind::NORMAL) {
                this->DivBlock(work_[i * p_.colsPad], work_[i * p_.colsPad], scaleBlocks_[i * kBlockFloats], p_.cols);
            }
        }
        PipeBarrier<PIPE_V>();
        uint32_t a = 0;
        uint32_t b = 0;
        if (p_.asymmetric == kAsymZeroPoint) {
            // round_half_even(q) on runs of rows (q clipped to +-256 first: no result changes, no Inf converted),
            // then the zero point per row
            LocalTensor<int32_t> qi = tmp_.template ReinterpretCast<int32_t>();
            for (a = 0; NextNormalRun(kinds, n, a, b); a = b) {
                Maxs(work_[a * p_.colsPad], work_[a * p_.colsPad], -256.0f, (b - a) * p_.colsPad);
            }
            PipeBarrier<PIPE_V>();
            for (a = 0; NextNormalRun(kinds, n, a, b); a = b) {
                Mins(work_[a * p_.colsPad], work_[a * p_.colsPad], 256.0f, (b - a) * p_.colsPad);
            }
            PipeBarrier<PIPE_V>();
            for (a = 0; NextNormalRun(kinds, n, a, b); a = b) {
                Cast(qi[a * p_.colsPad], work_[a * p_.colsPad], RoundMode::CAST_RINT, (b - a) * p_.colsPad);
            }
            PipeBarrier<PIPE_V>();
            for (a = 0; NextNormalRun(kinds, n, a, b); a = b) {
                Cast(work_[a * p_.colsPad], qi[a * p_.colsPad], kRoundInt32ToFloat, (b - a) * p_.colsPad);
            }
            PipeBarrier<PIPE_V>();
        }
        for (uint32_t i = 0; i < n; ++i) {
            if (kinds[i] == RowKind::NORMAL) {
                this->AddBlock(work_[i * p_.colsPad], work_[i * p_.colsPad], offsetBlocks_[i * kBlockFloats], p_.cols);
            }
        }
        {
            // the clip to [qmin, qmax] (the float types too: see AsymClip)
            PipeBarrier<PIPE_V>();
            for (a = 0; NextNormalRun(kinds, n, a, b); a = b) {
                Maxs(work_[a * p_.colsPad], work_[a * p_.colsPad], p_.clipLo, (b - a) * p_.colsPad);
            }
            PipeBarrier<PIPE_V>();
            for (a = 0; NextNormalRun(kinds, n, a, b); a = b) {
                Mins(work_[a * p_.colsPad], work_[a * p_.colsPad], p_.clipHi, (b - a) * p_.colsPad);
            }
        }
        PipeBarrier<PIPE_V>();
        for (a = 0; NextNormalRun(kinds, n, a, b); a = b) {
            this->CastOut(y[a * p_.colsPad], work_[a * p_.colsPad], tmp_[a * p_.colsPad], (b - a) * p_.colsPad);
        }
    }

    // ----- asymmetric, rows in float32 chunks -----
    __aicore__ inline void ComputeChunkedAsym(const LocalTensor<XT>& x, const LocalTensor<YT>& y,
                                              const LocalTensor<float>& s, const LocalTensor<OT>& o, uint64_t row,
                                              uint32_t n)
    {
        PipeBarrier<PIPE_V>();  // the previous group's instructions still read the accumulators
        Duplicate(acc_, 0, static_cast<int32_t>(n * kAccLanes));
        this->ResetHiLo(n);
        for (uint32_t i = 0; i < n; ++i) {
            StatsChunks(x[i * p_.colsPad], i);
        }
        this->RowMaxima(n);
        this->RowHiLo(n);
        this->template WaitPipe<HardEvent::V_S>();
        RowKind kinds[kMaxRepeats];
        bool again = false;
        for (uint32_t i = 0; i < n; ++i) {
            const float m = rowMax_.GetValue(2 * i);
            kinds[i] = F32IsZero(m) ? RowKind::ZERO : RowKind::NORMAL;
            if (!(m <= p_.finiteMax)) {
                if constexpr (kSocSaturationMode) {
                    for (uint32_t c = 0; c < p_.numChunks; ++c) {
                        this->SanitizeHalf(x[i * p_.colsPad + c * p_.chunk], ChunkLen(c));
                    }
                    PipeBarrier<PIPE_V>();
                    Duplicate(acc_[i * kAccLanes], 0, static_cast<int32_t>(kAccLanes));
                    Duplicate(accMax_[i * kAccLanes], -3.40282347e38f, static_cast<int32_t>(kAccLanes));
                    Duplicate(accMin_[i * kAccLanes], 3.40282347e38f, static_cast<int32_t>(kAccLanes));
                    StatsChunks(x[i * p_.colsPad], i);
                    again = true;
                } else {
                    kinds[i] = RowKind::FALLBACK;
                }
            }
        }
        if (again) {
            this->RowHiLo(n);
            this->template WaitPipe<HardEvent::V_S>();
        }
        scales_.Begin(s, row);
        offsets_.Begin(o, row);
        this->FinishAsym(n, kinds, s, o);
        for (uint32_t i = 0; i < n; ++i) {
            // A NORMAL row's chunks (vector work only) are stored as they are made, but the group's last one.
            streamed_[i] = pieced_ && kinds[i] == RowKind::NORMAL;
            QuantizeChunksAsym(x[i * p_.colsPad], y[i * p_.colsPad], i, kinds[i], s, o,
                               streamed_[i] ? row + i : kNoStore, i + 1 == n);
        }
    }

    // storeRow / lastRow: as QuantizeChunks (NORMAL rows only: a fallback row's y comes from the scalar unit).
    __aicore__ inline void QuantizeChunksAsym(const LocalTensor<XT>& xr, const LocalTensor<YT>& yr, uint32_t i,
                                              RowKind kind, const LocalTensor<float>& s, const LocalTensor<OT>& o,
                                              uint64_t storeRow, bool lastRow)
    {
        if (kind == RowKind::ZERO) {
            PipeBarrier<PIPE_V>();
            this->FillBytes(yr, p_.cols, 0);
            return;
        }
        FallbackRow st;
        if (kind == RowKind::FALLBACK) {
            for (uint32_t c = 0; c < p_.numChunks; ++c) {
                PipeBarrier<PIPE_V>();
                this->LoadV(work_, xr[c * p_.chunk], 1, ChunkLen(c), smooth_[c * p_.chunk], ChunkLen(c));
                this->template WaitPipe<HardEvent::V_S>();
                this->FallbackScan(work_, ChunkLen(c), st);
            }
            this->PutFallback(i, st, s, o);
        }
        for (uint32_t c = 0; c < p_.numChunks; ++c) {
            const uint32_t off = c * p_.chunk;
            const uint32_t len = ChunkLen(c);
            PipeBarrier<PIPE_V>();
            this->LoadV(work_, xr[off], 1, len, smooth_[off], len);
            if (kind == RowKind::FALLBACK) {
                this->template WaitPipe<HardEvent::V_S>();
                this->FallbackChunk(work_, yr[off], len, st);
                continue;
            }
            PipeBarrier<PIPE_V>();
            if (this->divPrep_[i] != kPrepNone) {
                this->PrepareForDivision(work_, len, i);
                PipeBarrier<PIPE_V>();
            }
            this->DivBlock(work_, work_, scaleBlocks_[i * kBlockFloats], len);
            PipeBarrier<PIPE_V>();
            this->AsymAddOffset(work_, offsetBlocks_[i * kBlockFloats], tmp_, len);
            PipeBarrier<PIPE_V>();
            this->AsymClip(work_, len);
            PipeBarrier<PIPE_V>();
            this->CastOut(yr[off], work_, tmp_, len);
            if (storeRow != kNoStore && !(lastRow && c + 1 == p_.numChunks)) {
                this->template WaitPipe<HardEvent::V_MTE3>();
                this->CopyRowsOut(yGm_[storeRow * p_.cols + off], yr[off], 1, len);
            }
        }
    }

    // Column pieces of a group's copy-in (one x slot and float32 chunks: see the top of the file).
    static constexpr uint32_t kMaxPieces = 4;
    bool pieced_ = false;
    uint32_t pieces_ = 0;
    event_t pieceFlag_[kMaxPieces] = {};
    bool piecesPending_ = false;  // the current group's piece flags are still to be waited for (StatsChunks)
    LocalTensor<XT> piecedX_;
    bool streamed_[kMaxRepeats] = {};  // row i's chunks but the group's last went to GM as they were made
};

}  // namespace aqo_dq

#endif  // AQO_DYNAMIC_QUANT_RESIDENT_H
