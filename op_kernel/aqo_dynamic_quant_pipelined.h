// AqoDynamicQuant, pipelined mode (tiling key 2): symmetric rows, whole rows in UB, a group of rowsPerIter rows
// computed at once, with groups small enough that a core has several (the plan's choice), so that its first compute
// waits for one small load and its last compute and store are short. Per core:
//   * loads run ahead: the first xSlots groups are copied in at once, and each later copy is issued as soon as a
//     slot is freed (right after the group's float32 copy is made);
//   * two sets of statistics buffers (work, acc, row stats): group g's scales are issued with their V -> S flag
//     and group g + 1's float32 copy and magnitude bits right behind it, so the vector unit computes those while
//     the scalar unit classifies group g's rows; group g's division and conversion steps then go out interleaved
//     with group g + 1's per-lane maxima and row maxima (independent instructions between the same barriers);
//   * a group's last conversion step (int8 / uint8: it reads only the scratch) goes out behind the next group's scale
//     flag, beside the float32 copy of the group after it (FinishConvert);
//   * one scale_out slot gathers the scales of scaleRows rows (several groups) and is stored at once;
//   * the fill: a first group of one long row is loaded in column pieces with a flag each (FirstGroupByPieces), and
//     group 1's float32 copy waits for group 0's division when its rows arrive late (LateSecondGroup);
//   * the drain: the core's last group is converted and stored in parts, software-pipelined (QuantizeLast).
// ascend310p keeps a group's x slot until its rows are classified: a row whose maximum reached the saturation
// bound is sanitized in place and computed again, as in the resident mode.
// Include guard #undef'd at the end of aqo_dynamic_quant.cpp (see aqo_dynamic_quant_common.h).
#ifndef AQO_DYNAMIC_QUANT_PIPELINED_H
#define AQO_DYNAMIC_QUANT_PIPELINED_H
#include "aqo_dynamic_quant_common.h"

namespace aqo_dq {

template <class TD, typename XT, typename YT, typename OT>
class KernelDynamicQuantPipelined : public DynamicQuantBase<TD, XT, YT, OT> {
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
    using Base::scales_;
    using Base::work_;
    using Base::tmp_;
    using Base::acc_;
    using Base::smooth_;
    using Base::rowMax_;
    using Base::rowScale_;
    using Base::scaleBlocks_;
    using Base::rowClamped_;
    using Base::infBlock_;
    using Base::dmaxVec_;

public:
    __aicore__ inline KernelDynamicQuantPipelined() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR smooth, GM_ADDR y, GM_ADDR scale, GM_ADDR offset, const TD& p,
                                TPipe* pipe)
    {
        this->InitBase(x, smooth, y, scale, offset, p, pipe, p.rowsPerIter, false);
    }

    __aicore__ inline void Process()
    {
        if (rowBegin_ >= rowEnd_) {
            return;
        }
        // The first loads go out before anything else (after the smooth row, staged in an x slot, when there is
        // one; its conversion follows them, except on ascend310p, whose scalar unit sanitizes the staged row after a
        // wait for every earlier load and with the constants), then the constants.
        groups_ = static_cast<uint32_t>((rowEnd_ - rowBegin_ + p_.rowsPerIter - 1) / p_.rowsPerIter);
        loaded_ = 0;
        firstPieces_ = FirstPieces();
        for (uint32_t k = 0; k < firstPieces_; ++k) {
            pieceFlag_[k] = static_cast<event_t>(pipe_->template AllocEventID<HardEvent::MTE2_V>());
        }
        const bool smooth = p_.hasSmooth != 0;
        const bool sanitizeSmooth = smooth && kSocSaturationMode;
        if (smooth) {
            this->LoadSmoothF32(false);
            staged_ = true;
        }
        if (sanitizeSmooth) {
            this->InitConstants();
            this->LoadSmoothF32(true);
            staged_ = false;
        }
        LoadAhead();
        if (!sanitizeSmooth) {
            this->InitConstants();
            if (smooth) {
                this->LoadSmoothF32(true);
                staged_ = false;
                LoadAhead();  // into the smooth row's slot
            }
        }
        // The flag of a group's statistics (its scales computed), set and waited for once per group.
        statsFlag_ = static_cast<event_t>(pipe_->template AllocEventID<HardEvent::V_S>());
        // Group 0's statistics up to its row maxima.
        if (firstPieces_ > 1) {
            FirstGroupByPieces();
        } else {
            LoadGroup(0);
            PipeBarrier<PIPE_V>();
            Magnitudes(0);
            for (uint32_t seg = 0; seg < this->Segments(p_.cols); ++seg) {
                PipeBarrier<PIPE_V>();
                Accumulate(0, seg);
            }
        }
        for (uint32_t step = 0; step < 2; ++step) {
            PipeBarrier<PIPE_V>();
            TailStep(0, step);
        }
        // Per group g: g's scales and their flag; behind the flag the last conversion step of group g - 1 and (from
        // g = 1 on) group g + 1's float32 copy and magnitude bits, which the vector unit computes while the scalar
        // unit classifies g's rows; then g's quantization interleaved with the rest of g + 1's statistics
        // (PipeBarrier-separated steps of independent instructions). Group 0 may leave group 1's copy to its
        // division's step (LateSecondGroup).
        for (uint32_t g = 0; g < groups_; ++g) {
            const bool next = g + 1 < groups_;
            PipeBarrier<PIPE_V>();  // group g's row maxima; group g - 1's conversion steps
            TailStep(g, 2);
            AllocScales(g);
            SetFlag<HardEvent::V_S>(statsFlag_);
            if (g > 0 && kDeferLastStep) {
                FinishConvert(g - 1);
            }
            uint32_t cursor = 0;  // group g + 1's statistics steps issued
            if (next && (g > 0 || !LateSecondGroup())) {
                StatsStep(g + 1, cursor++);
                PipeBarrier<PIPE_V>();
                StatsStep(g + 1, cursor++);
            }
            WaitFlag<HardEvent::V_S>(statsFlag_);
            ClassifyGroup(g, next && cursor > 1);
            if (next || !SplitLast(g)) {
                Quantize(g, next, cursor);
            } else {
                QuantizeLast(g);
            }
        }
        pipe_->template ReleaseEventID<HardEvent::V_S>(statsFlag_);
    }

private:
    // The first loads go out together and arrive one after the other: group 1's rows come about one group's load
    // after group 0's. When that is later than group 0's statistics and classification, a float32 copy of group 1
    // issued before the classification would hold the vector unit (in order) until they arrive, with group 0's
    // division behind it; so group 1's copy then goes out with that division instead. That is the case for long
    // rows (at least 1024 elements: a group's vector work then outweighs the scalar unit's few dozen cycles a row)
    // when group 1 is more than half of group 0 (a small last group arrives early), and when the core has more groups
    // than x slots. (With every group's load out from the start, the core's loads share the GM until they all end;
    // group 0's earlier store then only competes with them, and `aqo perf` shows the earlier order ahead there.)
    __aicore__ inline bool LateSecondGroup() const
    {
        return groups_ > p_.xSlots && p_.cols >= 1024 && 2 * GroupRows(1) > GroupRows(0);
    }

    __aicore__ inline uint64_t GroupRow(uint32_t g) const { return rowBegin_ + static_cast<uint64_t>(g) * p_.rowsPerIter; }

    __aicore__ inline uint32_t GroupRows(uint32_t g) const
    {
        const uint64_t left = rowEnd_ - GroupRow(g);
        return static_cast<uint32_t>(left < p_.rowsPerIter ? left : p_.rowsPerIter);
    }

    // The scale_out slot that gathers group g's scales starts with g (its first row is a multiple of scaleRows
    // from the core's first row).
    __aicore__ inline bool StartsScales(uint32_t g) const { return (GroupRow(g) - rowBegin_) % p_.scaleRows == 0; }

    __aicore__ inline bool EndsScales(uint32_t g) const
    {
        const uint64_t end = GroupRow(g) + GroupRows(g);
        return end == rowEnd_ || (end - rowBegin_) % p_.scaleRows == 0;
    }

    __aicore__ inline void CopyIn(uint32_t g)
    {
        if (g == 0 && firstPieces_ > 1) {
            // One DMA per piece, each followed by its own flag; the slot is not queued (FirstGroupByPieces waits on
            // the flags and frees it).
            firstX_ = xQue_.template AllocTensor<XT>();
            for (uint32_t k = 0; k < firstPieces_; ++k) {
                const uint32_t at = PieceCol(k);
                this->CopyRowsIn(firstX_[at], xGm_[GroupRow(0) * p_.cols + at], 1, PieceCol(k + 1) - at, p_.colsPad);
                SetFlag<HardEvent::MTE2_V>(pieceFlag_[k]);
            }
            return;
        }
        LocalTensor<XT> x = xQue_.template AllocTensor<XT>();
        this->CopyRowsIn(x, xGm_[GroupRow(g) * p_.cols], GroupRows(g), p_.cols, p_.colsPad);
        xQue_.EnQue(x);
    }

    // Loads into every free x slot.
    __aicore__ inline void LoadAhead()
    {
        const uint32_t staged = staged_ ? 1u : 0u;  // the smooth row's slot, until its conversion frees it
        while (loaded_ < groups_ && loaded_ + staged < p_.xSlots) {
            CopyIn(loaded_++);
        }
    }

    // The first group is loaded and its statistics begun by column pieces when it is one long row (without smooth
    // scales, whose staged row shares the x queue): its first vector instructions then wait for a piece's load
    // instead of the row's, and the later pieces load under the earlier pieces' float32 copy, magnitude bits and
    // accumulation. Pieces of at least 1024 elements, at most kMaxPieces.
    static constexpr uint32_t kMaxPieces = 4;
    static constexpr uint32_t kMinPieceCols = 1024;

    __aicore__ inline uint32_t FirstPieces() const
    {
        if (p_.hasSmooth != 0 || GroupRows(0) != 1) {
            return 1;
        }
        const uint32_t k = p_.cols / kMinPieceCols;
        return k < 2 ? 1 : (k > kMaxPieces ? kMaxPieces : k);
    }

    // The first column of piece k (k = firstPieces_: the row's end): multiples of 64 elements (256-byte aligned
    // float32 work, 32-byte aligned x, the accumulation's lanes in step).
    __aicore__ inline uint32_t PieceCol(uint32_t k) const
    {
        return k >= firstPieces_ ? p_.cols : p_.cols / firstPieces_ / kAccLanes * kAccLanes * k;
    }

    // Group 0's statistics up to its accumulated lanes, piece by piece (LoadGroup, Magnitudes, Accumulate of a split
    // row): each piece's copy goes out beside the previous piece's first accumulation segment.
    __aicore__ inline void FirstGroupByPieces()
    {
        const LocalTensor<float> w = this->WorkSet(0);
        LocalTensor<int32_t> acc = this->AccSet(0);
        LocalTensor<int32_t> bits = tmp_.template ReinterpretCast<int32_t>();
        Duplicate(acc, 0, static_cast<int32_t>(kAccLanes));
        WaitFlag<HardEvent::MTE2_V>(pieceFlag_[0]);
        Cast(w, firstX_, RoundMode::CAST_NONE, PieceCol(1));
        for (uint32_t k = 0; k < firstPieces_; ++k) {
            const uint32_t at = PieceCol(k);
            const uint32_t len = PieceCol(k + 1) - at;
            PipeBarrier<PIPE_V>();
            this->MagnitudeBits(w[at], tmp_[at], len);
            for (uint32_t seg = 0; seg < this->Segments(len); ++seg) {
                PipeBarrier<PIPE_V>();
                this->AccumulateSegment(true, acc, bits[at], len, seg);
                if (seg == 0 && k + 1 < firstPieces_) {
                    const uint32_t nx = PieceCol(k + 1);
                    WaitFlag<HardEvent::MTE2_V>(pieceFlag_[k + 1]);
                    Cast(w[nx], firstX_[nx], RoundMode::CAST_NONE, PieceCol(k + 2) - nx);
                }
            }
        }
        for (uint32_t k = 0; k < firstPieces_; ++k) {
            pipe_->template ReleaseEventID<HardEvent::MTE2_V>(pieceFlag_[k]);
        }
        if constexpr (kSocSaturationMode) {
            held_[0] = firstX_;  // kept for a row that needs sanitizing (ClassifyGroup)
        } else {
            Release(firstX_);
        }
    }

    // x slot of a group is free: the next load goes out at once.
    __aicore__ inline void Release(LocalTensor<XT>& x)
    {
        xQue_.FreeTensor(x);
        if (loaded_ < groups_) {
            CopyIn(loaded_++);
        }
    }

    // The slot that gathers the scales of the rows from group g on. Allocated before the flag the scalar unit waits
    // for ahead of its first scale store: the vector unit's wait for the slot's previous DMA (AllocTensor) comes
    // before that flag, so the scalar unit writes the slot only after that DMA has read it.
    __aicore__ inline void AllocScales(uint32_t g)
    {
        if (StartsScales(g)) {
            nextScaleSlot_ = scaleQue_.template AllocTensor<float>();
        }
    }

    // Group g's float32 copy (set g % 2); the x slot goes back to the loads (ascend310p: after classification).
    // The caller's barrier before it orders it after group g - 2's instructions on this set (the last conversion
    // step of group g - 2 is the step before the barrier).
    __aicore__ inline void LoadGroup(uint32_t g)
    {
        const uint32_t n = GroupRows(g);
        LocalTensor<XT> x = xQue_.template DeQue<XT>();
        Duplicate(this->AccSet(g & 1), 0, static_cast<int32_t>(n * kAccLanes));
        this->LoadV(this->WorkSet(g & 1), x, n, n * p_.colsPad, smooth_, p_.cols);
        if constexpr (kSocSaturationMode) {
            held_[g & 1] = x;  // kept for a row that needs sanitizing (ClassifyGroup)
        } else {
            Release(x);  // the float32 copy is read from here on
        }
    }

    // Group g's magnitude bits into tmp_ (read by the first accumulation segment).
    __aicore__ inline void Magnitudes(uint32_t g)
    {
        this->MagnitudeBits(this->WorkSet(g & 1), tmp_, GroupRows(g) * p_.colsPad);
    }

    // Accumulation segment `seg` of group g's rows into their acc lanes (a barrier between segments).
    __aicore__ inline void Accumulate(uint32_t g, uint32_t seg)
    {
        const uint32_t n = GroupRows(g);
        LocalTensor<int32_t> acc = this->AccSet(g & 1);
        LocalTensor<int32_t> bits = tmp_.template ReinterpretCast<int32_t>();
        for (uint32_t i = 0; i < n; ++i) {
            this->AccumulateSegment(true, acc[i * kAccLanes], bits[i * p_.colsPad], p_.cols, seg);
        }
    }

    // Statistics of group g, the reduction (set g % 2), one step per call; a PipeBarrier<PIPE_V> before each step:
    //   0: the lanes clamped to the Inf pattern (no NaN reaches a float reduction), into the set's own area (tmp_
    //      is the quantization's scratch meanwhile); 1: each row's maximum; 2: the scales (one Div for the group).
    __aicore__ inline void TailStep(uint32_t g, uint32_t step)
    {
        const uint32_t n = GroupRows(g);
        this->SelectStatSet(g & 1);
        if (step == 0) {
            Min(rowClamped_, acc_, infBlock_, kAccLanes, static_cast<uint8_t>(n), {1, 1, 0, 8, 8, 0});
        } else if (step == 1) {
            WholeReduceMax(rowMax_, rowClamped_.template ReinterpretCast<float>(), static_cast<int32_t>(kAccLanes),
                           static_cast<int32_t>(n), 1, 1, 8, ReduceOrder::ORDER_VALUE_INDEX);
        } else {
            // The index lanes of the pairs are divided too (tiny integers' bit patterns: harmless, never read).
            Div(rowScale_, rowMax_, dmaxVec_, static_cast<int32_t>(2 * n));
        }
    }

    // After the wait for group g's statistics: its rows' kinds, their scales into the gathering slot, the broadcast
    // blocks of the normal rows.
    __aicore__ inline void ClassifyGroup(uint32_t g, bool next)
    {
        const uint32_t n = GroupRows(g);
        const uint64_t row = GroupRow(g);
        this->SelectStatSet(g & 1);
        if (StartsScales(g)) {
            scaleSlot_ = nextScaleSlot_;
            scales_.Begin(scaleSlot_, row);
            scaleRow_ = row;
        }
        const uint32_t at = static_cast<uint32_t>(row - scaleRow_);
        clip_ = false;
        bool rechecked = false;
        for (uint32_t i = 0; i < n; ++i) {
            const float m = rowMax_.GetValue(2 * i);
            float sc = rowScale_.GetValue(2 * i);
            RowKind kind = this->Classify(i, m, sc);
            if (kind == RowKind::RECHECK) {
                kind = Recheck(g, i, n, &sc);
                rechecked = true;
            }
            kinds_[i] = kind;
            scales_.Put(scaleSlot_, at + i, this->ScaleOf(kind, sc));
            if (kind == RowKind::NORMAL) {
                Duplicate(scaleBlocks_[i * kBlockFloats], sc, static_cast<int32_t>(kBlockFloats));
                clip_ = clip_ || sc < kFloatMin;
            }
        }
        if (rechecked && next) {
            // the recheck used tmp_, which held group g + 1's magnitude bits
            PipeBarrier<PIPE_V>();
            Magnitudes(g + 1);
        }
    }

    // ascend310p: group g's x slot goes back to the loads once its rows are classified (a rechecked row was
    // sanitized there). Called after the group's division is issued: the next load's queue calls are scalar work
    // that would otherwise delay the division's issue.
    __aicore__ inline void ReleaseHeld(uint32_t g)
    {
        if constexpr (kSocSaturationMode) {
            Release(held_[g & 1]);
        }
    }

    // ascend310p: row i of group g reached the saturation bound (Inf or NaN in x, or the float16 maximum itself):
    // its x row is sanitized in place, its statistics computed again (set g % 2); it is then an ordinary row.
    __aicore__ inline RowKind Recheck(uint32_t g, uint32_t i, uint32_t n, float* sc)
    {
        LocalTensor<XT> xr = held_[g & 1][i * p_.colsPad];
        this->SanitizeHalf(xr, p_.cols);
        Duplicate(acc_[i * kAccLanes], 0, static_cast<int32_t>(kAccLanes));
        this->LoadV(work_[i * p_.colsPad], xr, 1, p_.colsPad, smooth_, p_.cols);
        PipeBarrier<PIPE_V>();
        this->MagnitudeBits(work_[i * p_.colsPad], tmp_[i * p_.colsPad], p_.colsPad);
        LocalTensor<int32_t> bits = tmp_.template ReinterpretCast<int32_t>();
        const uint32_t segs = this->Segments(p_.cols);
        for (uint32_t seg = 0; seg < segs; ++seg) {
            PipeBarrier<PIPE_V>();
            this->AccumulateSegment(true, acc_[i * kAccLanes], bits[i * p_.colsPad], p_.cols, seg);
        }
        for (uint32_t step = 0; step < 3; ++step) {
            PipeBarrier<PIPE_V>();
            TailStep(g, step);
        }
        this->template WaitPipe<HardEvent::V_S>();
        const float m = rowMax_.GetValue(2 * i);
        *sc = rowScale_.GetValue(2 * i);
        return this->Classify(i, m, *sc) == RowKind::ZERO ? RowKind::ZERO : RowKind::NORMAL;
    }

    // Group h's statistics up to its row maxima as steps, each after a PipeBarrier<PIPE_V> (the caller's): 0 its float32
    // copy, 1 its magnitude bits (into tmp_), 2 .. 1 + segs the accumulation segments (reading tmp_), then the clamp
    // and the row maxima (TailStep 0, 1). Its scale division (TailStep 2) is the loop's.
    __aicore__ inline uint32_t StatsSteps() const { return 4 + this->Segments(p_.cols); }

    __aicore__ inline void StatsStep(uint32_t h, uint32_t step)
    {
        const uint32_t segs = this->Segments(p_.cols);
        if (step == 0) {
            LoadGroup(h);
        } else if (step == 1) {
            Magnitudes(h);
        } else if (step < 2 + segs) {
            Accumulate(h, step - 2);
        } else {
            TailStep(h, step - 2 - segs);
        }
    }

    // y of group g (set g % 2), interleaved with group g + 1's statistics from step `cursor` on when there is a next
    // group: the steps that use tmp_ (the magnitude bits and their accumulation) go out beside the division and before
    // the conversion steps, which use tmp_ as their scratch; the clamp and the row maxima beside the conversion steps.
    // With a next group the last conversion step is left to FinishConvert (issued behind g + 1's scale flag) where
    // kDeferLastStep allows.
    __aicore__ inline void Quantize(uint32_t g, bool next, uint32_t cursor)
    {
        const uint32_t n = GroupRows(g);
        const LocalTensor<float> w = this->WorkSet(g & 1);
        this->SelectStatSet(g & 1);
        const LocalTensor<float> blocks = scaleBlocks_;
        y_ = yQue_.template AllocTensor<YT>();
        const uint32_t steps = next ? StatsSteps() : 0;
        const uint32_t tmpSteps = next ? 2 + this->Segments(p_.cols) : 0;  // steps [cursor, tmpSteps) use tmp_
        PipeBarrier<PIPE_V>();  // the broadcast blocks; group g + 1's magnitude bits
        for (uint32_t i = 0; i < n; ++i) {
            if (kinds_[i] == RowKind::NORMAL) {
                this->DivBlock(w[i * p_.colsPad], w[i * p_.colsPad], blocks[i * kBlockFloats], p_.cols);
            }
        }
        if (cursor < tmpSteps) {
            StatsStep(g + 1, cursor++);
        }
        ReleaseHeld(g);
        while (cursor < tmpSteps) {
            PipeBarrier<PIPE_V>();
            StatsStep(g + 1, cursor++);
        }
        if (clip_) {
            // A subnormal scale (bfloat16 rows near the underflow threshold) loses the relative precision that
            // otherwise keeps |v / scale| within dmax: clip, as the golden does, before the conversion.
            PipeBarrier<PIPE_V>();
            for (uint32_t i = 0; i < n; ++i) {
                if (kinds_[i] == RowKind::NORMAL) {
                    Maxs(w[i * p_.colsPad], w[i * p_.colsPad], p_.clipLo, p_.cols);
                }
            }
            PipeBarrier<PIPE_V>();
            for (uint32_t i = 0; i < n; ++i) {
                if (kinds_[i] == RowKind::NORMAL) {
                    Mins(w[i * p_.colsPad], w[i * p_.colsPad], p_.clipHi, p_.cols);
                }
            }
        }
        // Special rows write their y rows themselves (the float8 Inf rows use tmp_ as scratch: after the
        // accumulation above has read the magnitude bits, which SpecialChunk's first barrier orders).
        scalarY_ = false;  // the scalar unit wrote bytes of y (float8 Inf rows)
        for (uint32_t i = 0; i < n; ++i) {
            if (kinds_[i] != RowKind::NORMAL) {
                this->SpecialChunk(y_[i * p_.colsPad], w[i * p_.colsPad], p_.cols, kinds_[i]);
                scalarY_ = scalarY_ || (kinds_[i] == RowKind::INF_ROW && Float8Out<YT>::kIsFloat);
            }
        }
        const bool defer = next && kDeferLastStep;
        const uint32_t castSteps = Base::kCastOutSteps - (defer ? 1u : 0u);
        for (uint32_t step = 0; step < castSteps; ++step) {
            PipeBarrier<PIPE_V>();
            ConvertStep(g, step);
            if (cursor < steps) {
                StatsStep(g + 1, cursor++);
            }
        }
        while (cursor < steps) {
            PipeBarrier<PIPE_V>();
            StatsStep(g + 1, cursor++);
        }
        if (!defer) {
            EnQueY();
            CopyOut(g, 0, 0);
        }
    }

    // The last conversion step of a group goes out behind the next group's scale flag when it reads only the
    // scratch (int8 / uint8: the half values in tmp_), not the group's float32 set, which the group after next
    // overwrites in that step (float8 / hifloat8: one conversion, from the set).
    static constexpr bool kDeferLastStep = Base::kCastOutSteps > 1;

    // Conversion step `step` of group g's NORMAL rows (set g % 2), in runs of consecutive rows.
    __aicore__ inline void ConvertStep(uint32_t g, uint32_t step)
    {
        const uint32_t n = GroupRows(g);
        const LocalTensor<float> w = this->WorkSet(g & 1);
        uint32_t b = 0;
        for (uint32_t a = 0; NextNormalRun(kinds_, n, a, b); a = b) {
            this->CastOutStep(step, y_[a * p_.colsPad], w[a * p_.colsPad], tmp_[a * p_.colsPad], (b - a) * p_.colsPad);
        }
    }

    // Group g's last conversion step (issued behind group g + 1's scale flag, after the loop's barrier, while g's
    // kinds are still the classified ones), then its store.
    __aicore__ inline void FinishConvert(uint32_t g)
    {
        ConvertStep(g, Base::kCastOutSteps - 1);
        EnQueY();
        CopyOut(g, 0, 0);
    }

    __aicore__ inline void EnQueY()
    {
        if (scalarY_) {
            this->template WaitPipe<HardEvent::S_MTE3>();
        }
        yQue_.EnQue(y_);
    }

    // The core's last group is converted and stored in parts when its y is at least kSplitBytes: row ranges when it
    // has two rows or more, else column ranges at multiples of 64 elements (every part starts on a 32-byte boundary of
    // x, y and the float32 work), at most kMaxParts, column parts of at least kMinPartCols. The parts' steps (the
    // division by the broadcast scale, the clip of a subnormal scale's quotients, the conversion steps) are software-
    // pipelined: between two barriers, step s of part k goes out beside step s - 1 of part k + 1, and each part's
    // store goes out as soon as its last step is issued. Only the last part's last steps and its store are left after
    // the rest, in fewer barriers than the parts one after the other. (Below kSplitBytes the store is short and the
    // extra barriers and DMAs would cost more than they save.)
    static constexpr uint32_t kSplitBytes = 4096;
    static constexpr uint32_t kMaxParts = 4;
    static constexpr uint32_t kMinPartCols = 1024;

    __aicore__ inline bool SplitLast(uint32_t g) const
    {
        const uint32_t n = GroupRows(g);
        return n * p_.cols * sizeof(YT) >= kSplitBytes && (n >= 2 || p_.cols >= 2 * kMinPartCols);
    }

    __aicore__ inline uint32_t LastParts(uint32_t n) const
    {
        const uint32_t k = n >= 2 ? n : p_.cols / kMinPartCols;
        return k > kMaxParts ? kMaxParts : k;
    }

    // Rows [r0, r1) and columns [c0, c1) of part k of `parts` of a last group of n rows.
    __aicore__ inline void PartBounds(uint32_t n, uint32_t parts, uint32_t k, uint32_t& r0, uint32_t& r1, uint32_t& c0,
                                      uint32_t& c1) const
    {
        if (n >= 2) {
            r0 = n * k / parts;
            r1 = n * (k + 1) / parts;
            c0 = 0;
            c1 = p_.cols;
            return;
        }
        const uint32_t step = p_.cols / parts / kAccLanes * kAccLanes;
        r0 = 0;
        r1 = 1;
        c0 = step * k;
        c1 = k + 1 == parts ? p_.cols : step * (k + 1);
    }

    __aicore__ inline void QuantizeLast(uint32_t g)
    {
        const uint32_t n = GroupRows(g);
        const uint64_t row = GroupRow(g);
        const LocalTensor<float> w = this->WorkSet(g & 1);
        this->SelectStatSet(g & 1);
        const LocalTensor<float> blocks = scaleBlocks_;
        LocalTensor<YT> y = yQue_.template AllocTensor<YT>();
        const uint32_t parts = LastParts(n);
        const uint32_t clipSteps = clip_ ? 2u : 0u;
        const uint32_t steps = 1 + clipSteps + Base::kCastOutSteps;  // per part
        bool scalarY = false;
        for (uint32_t i = 0; i < n; ++i) {
            if (kinds_[i] != RowKind::NORMAL) {
                this->SpecialChunk(y[i * p_.colsPad], w[i * p_.colsPad], p_.cols, kinds_[i]);
                scalarY = scalarY || (kinds_[i] == RowKind::INF_ROW && Float8Out<YT>::kIsFloat);
            }
        }
        if (scalarY) {
            this->template WaitPipe<HardEvent::S_MTE3>();
        }
        uint32_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;
        for (uint32_t t = 0; t + 1 < parts + steps; ++t) {
            PipeBarrier<PIPE_V>();
            // the part finishing in this window first, so that its store goes out at once
            const uint32_t first = t + 1 > steps ? t + 1 - steps : 0;
            for (uint32_t k = first; k < parts && k <= t; ++k) {
                PartBounds(n, parts, k, r0, r1, c0, c1);
                const uint32_t step = t - k;
                PartStep(w, y, blocks, r0, r1, c0, c1, step, clipSteps);
                if (step + 1 == steps && k + 1 < parts) {
                    this->template WaitPipe<HardEvent::V_MTE3>();
                    this->CopyRowsOut(yGm_[(row + r0) * p_.cols + c0], y[r0 * p_.colsPad + c0], r1 - r0, c1 - c0);
                }
            }
            if (t == 0) {
                ReleaseHeld(g);
                // The scales (complete since the classification) go out while the first parts convert, ahead of the y
                // parts, whose last one ends the launch.
                StoreScales(g);
            }
        }
        yQue_.EnQue(y);
        PartBounds(n, parts, parts - 1, r0, r1, c0, c1);
        CopyOut(g, r0, c0, false);
    }

    // Step `step` of the NORMAL rows of [r0, r1), columns [c0, c1), of the last group: 0 the division by the broadcast
    // scale, 1 .. clipSteps the clip of a subnormal scale's quotients, then the conversion steps.
    __aicore__ inline void PartStep(const LocalTensor<float>& w, const LocalTensor<YT>& y,
                                    const LocalTensor<float>& blocks, uint32_t r0, uint32_t r1, uint32_t c0, uint32_t c1,
                                    uint32_t step, uint32_t clipSteps)
    {
        const bool wholeRows = c0 == 0 && c1 == p_.cols;
        if (step == 0 || step <= clipSteps) {
            for (uint32_t i = r0; i < r1; ++i) {
                if (kinds_[i] != RowKind::NORMAL) {
                    continue;
                }
                const LocalTensor<float> q = w[i * p_.colsPad + c0];
                if (step == 0) {
                    this->DivBlock(q, q, blocks[i * kBlockFloats], c1 - c0);
                } else if (step == 1) {
                    Maxs(q, q, p_.clipLo, c1 - c0);
                } else {
                    Mins(q, q, p_.clipHi, c1 - c0);
                }
            }
            return;
        }
        const uint32_t k = step - 1 - clipSteps;
        if (!wholeRows) {
            if (kinds_[0] == RowKind::NORMAL) {
                this->CastOutStep(k, y[c0], w[c0], tmp_[c0], c1 - c0);
            }
            return;
        }
        // runs of NORMAL rows
        for (uint32_t a = r0; a < r1;) {
            while (a < r1 && kinds_[a] != RowKind::NORMAL) {
                ++a;
            }
            uint32_t b = a;
            while (b < r1 && kinds_[b] == RowKind::NORMAL) {
                ++b;
            }
            if (b > a) {
                this->CastOutStep(k, y[a * p_.colsPad], w[a * p_.colsPad], tmp_[a * p_.colsPad], (b - a) * p_.colsPad);
            }
            a = b;
        }
    }

    // y rows [r0, n) of group g from column c0 on (the whole group: 0, 0), then the gathered scales if g ends them
    // (unless the caller stored them already).
    __aicore__ inline void CopyOut(uint32_t g, uint32_t r0, uint32_t c0, bool scales = true)
    {
        const uint32_t n = GroupRows(g);
        const uint64_t row = GroupRow(g);
        LocalTensor<YT> y = yQue_.template DeQue<YT>();
        this->CopyRowsOut(yGm_[(row + r0) * p_.cols + c0], y[r0 * p_.colsPad + c0], n - r0, p_.cols - c0);
        yQue_.FreeTensor(y);
        if (scales) {
            StoreScales(g);
        }
    }

    // The gathered scales to GM when group g ends them (its rows are classified).
    __aicore__ inline void StoreScales(uint32_t g)
    {
        if (!EndsScales(g)) {
            return;
        }
        this->template WaitPipe<HardEvent::S_MTE3>();  // the scales come from the scalar unit
        scaleQue_.EnQue(scaleSlot_);
        LocalTensor<float> s = scaleQue_.template DeQue<float>();
        scales_.Write(s, scaleRow_, static_cast<uint32_t>(GroupRow(g) + GroupRows(g) - scaleRow_));
        scaleQue_.FreeTensor(s);
    }

    event_t statsFlag_ = static_cast<event_t>(0);
    uint32_t groups_ = 0;
    uint32_t loaded_ = 0;
    uint64_t scaleRow_ = 0;           // the first row of the scales gathered in scaleSlot_
    bool clip_ = false;
    bool staged_ = false;             // the smooth row holds an x slot
    bool scalarY_ = false;            // the scalar unit wrote bytes of y_ (float8 Inf rows)
    uint32_t firstPieces_ = 1;        // group 0 loaded by column pieces (FirstPieces)
    event_t pieceFlag_[kMaxPieces] = {};
    LocalTensor<XT> firstX_;          // group 0's x slot when split (not queued)
    LocalTensor<YT> y_;               // the y slot of the group being quantized (its last step: FinishConvert)
    LocalTensor<float> scaleSlot_;      // gathering the scales of the group being classified
    LocalTensor<float> nextScaleSlot_;  // allocated for the next group that starts a slot
    LocalTensor<XT> held_[2];         // ascend310p: the x slots of the groups being classified
    RowKind kinds_[kMaxRepeats];
};

}  // namespace aqo_dq

#endif  // AQO_DYNAMIC_QUANT_PIPELINED_H
