// AqoDynamicQuant, pipelined mode (tiling key 2): whole rows in UB (every mode: symmetric, float offset, uint8 zero
// point), a group of rowsPerIter rows computed at once, with groups small enough that a core has several (the plan's
// choice), so that its first compute waits for one small load and its last compute and store are short. Per core:
//   * loads run ahead: the first xSlots groups are copied in at once, and each later copy is issued as soon as a
//     slot is freed (right after the group's float32 copy is made);
//   * two sets of statistics buffers (work, acc, row stats): group g's last parameter step is issued with its V -> S
//     flag and group g + 1's float32 copy and first statistics steps right behind it, so the vector unit computes
//     those while the scalar unit classifies group g's rows; group g's quantization steps (QOp) then go out
//     interleaved with group g + 1's remaining statistics steps (independent instructions between the same
//     barriers). Symmetric statistics: the magnitude bits, their per-row maxima, the scales; asymmetric: a finite
//     signed copy, its per-row maxima and minima, the scales and offsets (TmpStep, TailStep);
//   * a group's last conversion step (int8 / uint8: it reads only the scratch) goes out behind the next group's scale
//     flag, beside the float32 copy of the group after it (FinishConvert);
//   * one scale_out (offset_out) slot gathers the scales (offsets) of scaleRows rows (several groups) and is stored
//     at once;
//   * the fill: a first group of several rows is loaded in pieces of whole rows, one of one long row in column pieces
//     (a flag each: FirstGroupByPieces), and group 1's float32 copy waits for group 0's division when its rows arrive
//     late (LateSecondGroup);
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
    using Base::offsetQue_;
    using Base::scales_;
    using Base::offsets_;
    using Base::work_;
    using Base::tmp_;
    using Base::acc_;
    using Base::accMax_;
    using Base::accMin_;
    using Base::smooth_;
    using Base::rowMax_;
    using Base::rowScale_;
    using Base::rowHi_;
    using Base::rowLo_;
    using Base::rowTmp_;
    using Base::rowOffset_;
    using Base::scaleBlocks_;
    using Base::offsetBlocks_;
    using Base::rowClamped_;
    using Base::infBlock_;
    using Base::dmaxVec_;
    using Base::rangeVec_;

public:
    __aicore__ inline KernelDynamicQuantPipelined() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR smooth, GM_ADDR y, GM_ADDR scale, GM_ADDR offset, const TD& p,
                                TPipe* pipe)
    {
        this->InitBase(x, smooth, y, scale, offset, p, pipe, p.rowsPerIter, false);
        asym_ = p.asymmetric != kSymmetric;
        zp_ = p.asymmetric == kAsymZeroPoint;
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
        for (uint32_t k = 0; firstPieces_ > 1 && k < firstPieces_; ++k) {  // released by FirstGroupByPieces
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
        // Group 0's statistics up to its last parameter step.
        if (firstPieces_ > 1) {
            FirstGroupByPieces();
        } else {
            LoadGroup(0);
            for (uint32_t j = 0; j < TmpSteps(p_.cols); ++j) {
                PipeBarrier<PIPE_V>();
                TmpStep(0, j, 0, GroupRows(0), 0, p_.cols);
            }
        }
        for (uint32_t step = 0; step + 1 < TailSteps(); ++step) {
            PipeBarrier<PIPE_V>();
            TailStep(0, step);
        }
        // Per group g: g's last parameter step and its flag; behind the flag the last conversion step of group g - 1
        // and (from g = 1 on) group g + 1's float32 copy and first statistics steps, which the vector unit computes
        // while the scalar unit classifies g's rows; then g's quantization interleaved with the rest of g + 1's
        // statistics (PipeBarrier-separated steps of independent instructions). Group 0 may leave group 1's copy to
        // its division's step (LateSecondGroup).
        for (uint32_t g = 0; g < groups_; ++g) {
            const bool next = g + 1 < groups_;
            PipeBarrier<PIPE_V>();  // group g's previous parameter step; group g - 1's conversion steps
            TailStep(g, TailSteps() - 1);
            AllocScales(g);
            SetFlag<HardEvent::V_S>(statsFlag_);
            if (g > 0 && DeferLastOp()) {
                FinishConvert(g - 1);
            }
            uint32_t cursor = 0;  // group g + 1's statistics steps issued
            if (next && (g > 0 || !LateSecondGroup())) {
                for (uint32_t k = 0; k < PreWaitSteps(); ++k) {
                    if (k != 0) {
                        PipeBarrier<PIPE_V>();
                    }
                    StatsStep(g + 1, cursor++);
                }
            }
            WaitFlag<HardEvent::V_S>(statsFlag_);
            ClassifyGroup(g, next, cursor);
            if (next || !SplitLast(g)) {
                Quantize(g, next, cursor);
            } else {
                QuantizeLast(g);
            }
        }
        pipe_->template ReleaseEventID<HardEvent::V_S>(statsFlag_);
    }

private:
    // ----- the mode's statistics steps -----
    // Symmetric: the magnitude bits of v (tmp_), their accumulation per row; the clamp, the row maxima, the scales.
    // Asymmetric: a finite signed copy of v (tmp_, SignedFiniteStep's three steps), its signed maxima and minima per
    // row (the float accumulation); the row reductions, then the parameters in the golden's order on the pair
    // vectors of the group (TailStep).
    __aicore__ inline uint32_t TmpSteps(uint32_t len) const { return (asym_ ? 3u : 1u) + this->Segments(len); }

    __aicore__ inline uint32_t TailSteps() const { return asym_ ? 6u : 3u; }

    // Statistics steps of group g + 1 issued behind g's flag, before the wait: they keep the vector unit busy while
    // the scalar unit classifies g's rows (the asymmetric classification reads four values a row).
    __aicore__ inline uint32_t PreWaitSteps() const { return asym_ ? 3u : 2u; }

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

    // Statistics set k (g % 2) becomes the one the helpers use.
    __aicore__ inline void SelectSet(uint32_t k)
    {
        if (asym_) {
            this->SelectAsymStatSet(k);
        } else {
            this->SelectStatSet(k);
        }
    }

    __aicore__ inline void CopyIn(uint32_t g)
    {
        if (g == 0 && firstPieces_ > 1) {
            // One DMA per piece, each followed by its own flag; the slot is not queued (FirstGroupByPieces waits on
            // the flags and frees it).
            firstX_ = xQue_.template AllocTensor<XT>();
            for (uint32_t k = 0; k < firstPieces_; ++k) {
                uint32_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;
                PieceBounds(k, r0, r1, c0, c1);
                this->CopyRowsIn(firstX_[r0 * p_.colsPad + c0], xGm_[(GroupRow(0) + r0) * p_.cols + c0], r1 - r0,
                                 c1 - c0, p_.colsPad);
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

    // The first group is loaded and its statistics begun by pieces (without smooth scales, whose staged row shares
    // the x queue): by rows when it has several rows of at least kMinPieceCols elements, by column pieces of at least
    // that many when it is one long row. Its first vector instructions then wait for a piece's load instead of the
    // group's, and the later pieces load under the earlier pieces' float32 copy and statistics steps. At most
    // kMaxPieces.
    static constexpr uint32_t kMaxPieces = 4;
    static constexpr uint32_t kMinPieceCols = 1024;

    __aicore__ inline uint32_t FirstPieces() const
    {
        if (p_.hasSmooth != 0) {
            return 1;
        }
        const uint32_t n = GroupRows(0);
        const uint32_t k = n >= 2 ? (p_.cols >= kMinPieceCols ? n : 1u) : p_.cols / kMinPieceCols;
        return k < 2 ? 1 : (k > kMaxPieces ? kMaxPieces : k);
    }

    // Piece k of group 0: its rows [r0, r1) and columns [c0, c1), cut as the last group's parts are (PartBounds: an
    // even share of whole rows when the group has several, else column ranges at multiples of 64 elements, so that
    // every piece starts 256-byte aligned in the float32 work and 32-byte aligned in x, the accumulation's lanes in
    // step).
    __aicore__ inline void PieceBounds(uint32_t k, uint32_t& r0, uint32_t& r1, uint32_t& c0, uint32_t& c1) const
    {
        PartBounds(GroupRows(0), firstPieces_, k, r0, r1, c0, c1);
    }

    // Group 0's statistics up to its accumulated lanes, piece by piece (LoadGroup and the TmpSteps of a split group:
    // its rows, or a one-row group's columns): each piece's copy goes out beside the previous piece's second
    // statistics step.
    __aicore__ inline void FirstGroupByPieces()
    {
        const LocalTensor<float> w = this->WorkSet(0);
        InitAccumulators(0, GroupRows(0));
        CastPiece(w, 0);
        for (uint32_t k = 0; k < firstPieces_; ++k) {
            uint32_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;
            PieceBounds(k, r0, r1, c0, c1);
            const uint32_t len = c1 - c0;
            for (uint32_t j = 0; j < TmpSteps(len); ++j) {
                PipeBarrier<PIPE_V>();
                TmpStep(0, j, r0, r1, c0, len);
                if (j == 1 && k + 1 < firstPieces_) {
                    CastPiece(w, k + 1);
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

    // Piece k's float32 copy, once its load is in (whole rows: the rows' padding too, as LoadV).
    __aicore__ inline void CastPiece(const LocalTensor<float>& w, uint32_t k)
    {
        uint32_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;
        PieceBounds(k, r0, r1, c0, c1);
        const uint32_t at = r0 * p_.colsPad + c0;
        WaitFlag<HardEvent::MTE2_V>(pieceFlag_[k]);
        Cast(w[at], firstX_[at], RoundMode::CAST_NONE, GroupRows(0) >= 2 ? (r1 - r0) * p_.colsPad : c1 - c0);
    }

    // x slot of a group is free: the next load goes out at once.
    __aicore__ inline void Release(LocalTensor<XT>& x)
    {
        xQue_.FreeTensor(x);
        if (loaded_ < groups_) {
            CopyIn(loaded_++);
        }
    }

    // The slots that gather the scales (and offsets) of the rows from group g on. Allocated before the flag the
    // scalar unit waits for ahead of its first store into them: the vector unit's wait for a slot's previous DMA
    // (AllocTensor) comes before that flag, so the scalar unit writes the slot only after that DMA has read it.
    __aicore__ inline void AllocScales(uint32_t g)
    {
        if (StartsScales(g)) {
            nextScaleSlot_ = scaleQue_.template AllocTensor<float>();
            if (asym_) {
                nextOffsetSlot_ = offsetQue_.template AllocTensor<OT>();
            }
        }
    }

    // The accumulators of n rows of set k at their identities: 0 for the magnitude bits; the float extremes for the
    // signed maxima and minima.
    __aicore__ inline void InitAccumulators(uint32_t k, uint32_t n)
    {
        if (asym_) {
            LocalTensor<float> mx = this->AccSet(k).template ReinterpretCast<float>();
            Duplicate(mx, -3.40282347e38f, static_cast<int32_t>(n * kAccLanes));
            Duplicate(mx[p_.rowsPerIter * kAccLanes], 3.40282347e38f, static_cast<int32_t>(n * kAccLanes));
        } else {
            Duplicate(this->AccSet(k), 0, static_cast<int32_t>(n * kAccLanes));
        }
    }

    // Group g's float32 copy (set g % 2); the x slot goes back to the loads (ascend310p: after classification).
    // The caller's barrier before it orders it after group g - 2's instructions on this set (the last conversion
    // step of group g - 2 is the step before the barrier).
    __aicore__ inline void LoadGroup(uint32_t g)
    {
        const uint32_t n = GroupRows(g);
        LocalTensor<XT> x = xQue_.template DeQue<XT>();
        InitAccumulators(g & 1, n);
        this->LoadV(this->WorkSet(g & 1), x, n, n * p_.colsPad, smooth_, p_.cols);
        if constexpr (kSocSaturationMode) {
            held_[g & 1] = x;  // kept for a row that needs sanitizing (ClassifyGroup)
        } else {
            Release(x);  // the float32 copy is read from here on
        }
    }

    // Statistics step j of rows [r0, r1) of group g (set g % 2) over columns [c0, c0 + len) (whole rows: c0 = 0, len
    // = cols; a first group's piece: its rows, or columns of a one-row group), after a PipeBarrier<PIPE_V>. Every step
    // reads or writes tmp_:
    //   symmetric:  0 the magnitude bits, then the accumulation segments of their per-row maxima;
    //   asymmetric: 0 .. 2 SignedFiniteStep, then the accumulation segments of the signed maxima and minima.
    __aicore__ inline void TmpStep(uint32_t g, uint32_t j, uint32_t r0, uint32_t r1, uint32_t c0, uint32_t len)
    {
        const LocalTensor<float> w = this->WorkSet(g & 1);
        const uint32_t at = r0 * p_.colsPad + c0;
        const uint32_t count = r1 - r0 == 1 ? len : (r1 - r0) * p_.colsPad;
        const uint32_t elementwise = asym_ ? 3u : 1u;
        if (j < elementwise) {
            if (asym_) {
                this->SignedFiniteStep(j, tmp_[at], w[at], count);
            } else {
                this->MagnitudeBits(w[at], tmp_[at], count);
            }
            return;
        }
        const uint32_t seg = j - elementwise;
        if (asym_) {
            LocalTensor<float> mx = this->AccSet(g & 1).template ReinterpretCast<float>();
            LocalTensor<float> mn = mx[p_.rowsPerIter * kAccLanes];
            for (uint32_t i = r0; i < r1; ++i) {
                this->AccumulateSegment(true, mx[i * kAccLanes], tmp_[i * p_.colsPad + c0], len, seg);
                this->AccumulateSegment(false, mn[i * kAccLanes], tmp_[i * p_.colsPad + c0], len, seg);
            }
        } else {
            LocalTensor<int32_t> acc = this->AccSet(g & 1);
            LocalTensor<int32_t> bits = tmp_.template ReinterpretCast<int32_t>();
            for (uint32_t i = r0; i < r1; ++i) {
                this->AccumulateSegment(true, acc[i * kAccLanes], bits[i * p_.colsPad + c0], len, seg);
            }
        }
    }

    // Statistics of group g after the accumulation (set g % 2), one step per call, a PipeBarrier<PIPE_V> before
    // each; they use the set's own buffers only (tmp_ is the quantization's scratch meanwhile).
    //   symmetric:  0 the lanes clamped to the Inf pattern (no NaN reaches a float reduction), into the set's own
    //               area; 1 each row's maximum; 2 the scales (one Div for the group; the index lanes of the pairs are
    //               divided too: tiny integers' bit patterns, harmless, never read).
    //   asymmetric: 0 each row's signed maximum and minimum; then on the pair vectors of the group (index lanes
    //               included: finite tiny values):
    //               zero point: 1 the range widened to contain 0 (hi = max(hi, 0), lo = min(lo, 0)), 2 hi - lo,
    //               3 scale = (hi - lo) / 255, 4 the divisor max(scale, FLT_MIN), 5 lo / divisor (the scalar unit
    //               makes the zero point round_half_even(min(0 - lo / scale, 255)));
    //               float offset: 1 hi - lo, 2 scale = (hi - lo) / (qmax - qmin), 3 the divisor max(scale, FLT_MIN),
    //               4 hi / divisor, 5 offset = qmax - hi / divisor.
    //               The divisor is the scale itself on every row the vector path quantizes (its range is at least
    //               2^-64, so its scale is at least 2^-81); the floor only keeps zero-range rows (and the index
    //               lanes) from a zero divisor. The rows holding NaN or Inf have finite extremes here
    //               (SignedFiniteStep), so no step meets NaN.
    __aicore__ inline void TailStep(uint32_t g, uint32_t step)
    {
        const uint32_t n = GroupRows(g);
        SelectSet(g & 1);
        if (!asym_) {
            if (step == 0) {
                Min(rowClamped_, acc_, infBlock_, kAccLanes, static_cast<uint8_t>(n), {1, 1, 0, 8, 8, 0});
            } else if (step == 1) {
                WholeReduceMax(rowMax_, rowClamped_.template ReinterpretCast<float>(), static_cast<int32_t>(kAccLanes),
                               static_cast<int32_t>(n), 1, 1, 8, ReduceOrder::ORDER_VALUE_INDEX);
            } else {
                Div(rowScale_, rowMax_, dmaxVec_, static_cast<int32_t>(2 * n));
            }
            return;
        }
        const int32_t cnt = static_cast<int32_t>(2 * n);
        if (step == 0) {
            WholeReduceMax(rowHi_, accMax_, static_cast<int32_t>(kAccLanes), static_cast<int32_t>(n), 1, 1, 8,
                           ReduceOrder::ORDER_VALUE_INDEX);
            WholeReduceMin(rowLo_, accMin_, static_cast<int32_t>(kAccLanes), static_cast<int32_t>(n), 1, 1, 8,
                           ReduceOrder::ORDER_VALUE_INDEX);
            return;
        }
        const uint32_t s = zp_ ? step - 1 : step;  // the zero point's widening first
        if (zp_ && step == 1) {
            Maxs(rowHi_, rowHi_, 0.0f, cnt);
            Mins(rowLo_, rowLo_, 0.0f, cnt);
        } else if (s == 1) {
            Sub(rowTmp_, rowHi_, rowLo_, cnt);
        } else if (s == 2) {
            Div(rowScale_, rowTmp_, rangeVec_, cnt);
        } else if (s == 3) {
            Maxs(rowOffset_, rowScale_, kFloatMin, cnt);
        } else if (s == 4) {
            Div(rowTmp_, zp_ ? rowLo_ : rowHi_, rowOffset_, cnt);
        } else {
            Sub(rowOffset_, dmaxVec_, rowTmp_, cnt);
        }
    }

    // ClassifyGroup's copy of a group row's parameters (read by the scalar unit after the wait).
    struct RowParams {
        RowKind kind;
        float scale;
        float offset;
    };

    // An asymmetric row's kind and parameters from its extremes and the vector path's parameters.
    __aicore__ inline RowParams AsymRow(uint32_t i)
    {
        RowParams r{RowKind::NORMAL, 0.0f, 0.0f};
        const float hi = rowHi_.GetValue(2 * i);
        const float lo = rowLo_.GetValue(2 * i);
        const float bound = p_.finiteMax < kSuspectMax ? p_.finiteMax : kSuspectMax;
        if (p_.cols == 0) {
            r.kind = RowKind::ZERO;  // H = 0: no element (the accumulators kept their identities)
        } else if (!(hi <= bound && lo >= -bound)) {
            // NaN or Inf (or, bfloat16 only, values of at least 2^127); ascend310p: Inf or NaN in x, or the
            // saturation bound itself
            r.kind = kSocSaturationMode ? RowKind::RECHECK : RowKind::FALLBACK;
        } else if (F32OrderKey(hi) == F32OrderKey(lo)) {  // (by the bits: the extremes may be subnormal)
            r.kind = RowKind::ZERO;  // a constant row (zero point: an all-zero row): scale 0, offset 0, y 0
        } else if (AsymRangeBelowTiny(hi, lo)) {
            r.kind = RowKind::FALLBACK;
        } else {
            r.scale = rowScale_.GetValue(2 * i);
            if (zp_) {
                // round_half_even(clip(0 - lo / scale, 0, 255)): exact operations on the vector unit's quotient
                float z = 0.0f - rowTmp_.GetValue(2 * i);
                z = z < 0.0f ? 0.0f : (z > p_.clipHi ? p_.clipHi : z);
                r.offset = RoundHalfEven(z);
            } else {
                r.offset = rowOffset_.GetValue(2 * i);
                if (!(r.offset - r.offset == 0.0f)) {
                    r.kind = RowKind::FALLBACK;  // a non-finite offset: the golden's NaN / Inf rules, by the scalar
                }
            }
        }
        return r;
    }

    // After the wait for group g's statistics: its rows' kinds, their scales (offsets) into the gathering slots,
    // the broadcast blocks of the normal rows. `issued`: group g + 1's statistics steps already issued.
    __aicore__ inline void ClassifyGroup(uint32_t g, bool next, uint32_t issued)
    {
        const uint32_t n = GroupRows(g);
        const uint64_t row = GroupRow(g);
        SelectSet(g & 1);
        if (StartsScales(g)) {
            scaleSlot_ = nextScaleSlot_;
            scales_.Begin(scaleSlot_, row);
            if (asym_) {
                offsetSlot_ = nextOffsetSlot_;
                offsets_.Begin(offsetSlot_, row);
            }
            scaleRow_ = row;
        }
        const uint32_t at = static_cast<uint32_t>(row - scaleRow_);
        clip_ = false;
        fallback_ = false;
        bool rechecked = false;
        bool prep = false;
        for (uint32_t i = 0; i < n; ++i) {
            this->divPrep_[i] = kPrepNone;
            RowParams r;
            float m = 0.0f;
            if (asym_) {
                r = AsymRow(i);
            } else {
                m = rowMax_.GetValue(2 * i);
                r.scale = this->SymScale(m, rowScale_.GetValue(2 * i));
                r.offset = 0.0f;
                r.kind = this->Classify(i, m, r.scale);
            }
            if (r.kind == RowKind::RECHECK) {
                r = Recheck(g, i, n);
                rechecked = true;
            }
            kinds_[i] = r.kind;
            if (!asym_) {
                scales_.Put(scaleSlot_, at + i, this->ScaleOf(r.kind, r.scale));
            } else if (r.kind == RowKind::FALLBACK) {
                fallback_ = true;  // its scale and offset come from its scalar computation (Quantize)
            } else {
                scales_.Put(scaleSlot_, at + i, r.scale);  // ZERO: 0
                offsets_.Put(offsetSlot_, at + i, static_cast<OT>(r.offset));
            }
            if (r.kind == RowKind::NORMAL) {
                // a tiny symmetric row is lifted (m stays 0 for an asymmetric row; 310p's rechecked rows are
                // float16: never tiny)
                this->divPrep_[i] = this->TinyRow(m) ? kPrepLift : kPrepNone;
                Duplicate(scaleBlocks_[i * kBlockFloats], this->DivisorOf(m, r.scale),
                          static_cast<int32_t>(kBlockFloats));
                if (zp_) {
                    // a block of 16 halves (the zero point is added to the rounded quotients in half, exactly)
                    LocalTensor<half> zb = offsetBlocks_.template ReinterpretCast<half>();
                    Duplicate(zb[2 * i * kBlockFloats], static_cast<half>(r.offset),
                              static_cast<int32_t>(2 * kBlockFloats));
                } else if (asym_) {
                    Duplicate(offsetBlocks_[i * kBlockFloats], this->AsymOffsetBlock(r.offset, r.scale, i),
                              static_cast<int32_t>(kBlockFloats));
                }
                prep = prep || this->divPrep_[i] != kPrepNone;
                // symmetric: a subnormal scale (bfloat16 rows near the underflow threshold) loses the relative
                // precision that otherwise keeps |v / scale| within dmax; offsets (int8 and the float types, whose
                // conversion's overflow depends on the 950's saturation control bits): see kNoClipOffset
                clip_ = clip_ || (asym_ ? (!zp_ && !(r.offset <= kNoClipOffset && r.offset >= -kNoClipOffset))
                                        : r.scale < kFloatMin);
            }
        }
        if (prep) {
            // Rows whose values need a step before the group's division (a tiny symmetric row lifted, an asymmetric
            // float8 row's -0 made +0: PrepareForDivision) on set g % 2's work rows: the statistics that read them
            // are done, and the barrier orders the step after their copy.
            const LocalTensor<float> w = this->WorkSet(g & 1);
            PipeBarrier<PIPE_V>();
            for (uint32_t i = 0; i < n; ++i) {
                if (kinds_[i] == RowKind::NORMAL) {
                    this->PrepareForDivision(w[i * p_.colsPad], p_.cols, i);
                }
            }
        }
        if (rechecked && next) {
            // the recheck used tmp_, which held group g + 1's first statistics steps
            for (uint32_t k = 1; k < issued; ++k) {
                PipeBarrier<PIPE_V>();
                StatsStep(g + 1, k);
            }
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
    __aicore__ inline RowParams Recheck(uint32_t g, uint32_t i, uint32_t n)
    {
        LocalTensor<XT> xr = held_[g & 1][i * p_.colsPad];
        this->SanitizeHalf(xr, p_.cols);
        if (asym_) {
            Duplicate(accMax_[i * kAccLanes], -3.40282347e38f, static_cast<int32_t>(kAccLanes));
            Duplicate(accMin_[i * kAccLanes], 3.40282347e38f, static_cast<int32_t>(kAccLanes));
        } else {
            Duplicate(acc_[i * kAccLanes], 0, static_cast<int32_t>(kAccLanes));
        }
        this->LoadV(work_[i * p_.colsPad], xr, 1, p_.colsPad, smooth_, p_.cols);
        for (uint32_t j = 0; j < TmpSteps(p_.cols); ++j) {
            PipeBarrier<PIPE_V>();
            TmpStep(g, j, i, i + 1, 0, p_.cols);
        }
        for (uint32_t step = 0; step < TailSteps(); ++step) {
            PipeBarrier<PIPE_V>();
            TailStep(g, step);
        }
        this->template WaitPipe<HardEvent::V_S>();
        RowParams r;
        if (asym_) {
            r = AsymRow(i);
        } else {
            r.scale = rowScale_.GetValue(2 * i);
            r.offset = 0.0f;
            r.kind = this->Classify(i, rowMax_.GetValue(2 * i), r.scale) == RowKind::ZERO ? RowKind::ZERO
                                                                                          : RowKind::NORMAL;
        }
        return r;
    }

    // Group h's statistics as steps, each after a PipeBarrier<PIPE_V> (the caller's): 0 its float32 copy, 1 ..
    // TmpSteps the steps that use tmp_, then TailStep 0 .. TailSteps - 2. Its last parameter step is the loop's.
    __aicore__ inline uint32_t StatsSteps() const { return TmpEnd() + TailSteps() - 1; }

    __aicore__ inline uint32_t TmpEnd() const { return 1 + TmpSteps(p_.cols); }

    __aicore__ inline void StatsStep(uint32_t h, uint32_t step)
    {
        if (step == 0) {
            LoadGroup(h);
        } else if (step < TmpEnd()) {
            TmpStep(h, step - 1, 0, GroupRows(h), 0, p_.cols);
        } else {
            TailStep(h, step - TmpEnd());
        }
    }

    // ----- the mode's quantization steps -----
    // y of a group's NORMAL rows as a list of steps, each after a PipeBarrier<PIPE_V>:
    //   symmetric:   DIV (v / scale), [CLIP_LO, CLIP_HI: a subnormal scale], CONV 0 .. kCastOutSteps - 1;
    //   float offset: DIV, ADD_OFFSET, [CLIP_LO, CLIP_HI: a large offset], CONV ...;
    //   zero point:  DIV, ZP_RINT (round half to even into int32, in place), ZP_DEQ (int32 -> half, exact, into the
    //                scratch), ZP_ADD (+ the zero point), ZP_MAX / ZP_MIN (the clip to [0, 255]), ZP_OUT (-> uint8).
    // The float types' conversion saturates, which is the golden's clip.
    enum class QOp : uint8_t { DIV, ADD_OFFSET, CLIP_LO, CLIP_HI, CONV0, CONV1, CONV2, ZP_RINT, ZP_DEQ, ZP_ADD, ZP_MAX,
                               ZP_MIN, ZP_OUT };
    static constexpr uint32_t kMaxOps = 8;

    __aicore__ inline uint32_t BuildOps(QOp* ops) const
    {
        uint32_t n = 0;
        ops[n++] = QOp::DIV;
        if (zp_) {
            ops[n++] = QOp::ZP_RINT;
            ops[n++] = QOp::ZP_DEQ;
            ops[n++] = QOp::ZP_ADD;
            ops[n++] = QOp::ZP_MAX;
            ops[n++] = QOp::ZP_MIN;
            ops[n++] = QOp::ZP_OUT;
            return n;
        }
        if (asym_) {
            ops[n++] = QOp::ADD_OFFSET;
        }
        if (clip_) {
            ops[n++] = QOp::CLIP_LO;
            ops[n++] = QOp::CLIP_HI;
        }
        for (uint32_t k = 0; k < Base::kCastOutSteps; ++k) {
            ops[n++] = static_cast<QOp>(static_cast<uint32_t>(QOp::CONV0) + k);
        }
        return n;
    }

    // Whether a step reads or writes the scratch (tmp_): the int8 / uint8 conversions' intermediate values (310p's
    // first conversion is in place); the float types' one conversion reads the float32 set.
    __aicore__ inline static bool UsesTmp(QOp op)
    {
        if (op == QOp::CONV0) {
            return !Float8Out<YT>::kIsFloat && !kSocSaturationMode;
        }
        if (op == QOp::CONV1 || op == QOp::CONV2) {
            return true;
        }
        return op == QOp::ZP_DEQ || op == QOp::ZP_ADD || op == QOp::ZP_MAX || op == QOp::ZP_MIN || op == QOp::ZP_OUT;
    }

    // The last step of a group goes out behind the next group's flag when it reads only the scratch (int8 / uint8),
    // not the group's float32 set, which the group after next overwrites in that step (float8 / hifloat8: one
    // conversion, from the set).
    __aicore__ inline bool DeferLastOp() const { return zp_ || Base::kCastOutSteps > 1; }

    // Step `op` of the NORMAL rows of [r0, r1), columns [c0, c1), of group g (set g % 2; whole rows: c0 = 0, c1 =
    // cols; a last group's column part: one row). Per-row steps use the row's broadcast block; the others go out
    // over runs of consecutive NORMAL rows. (The set is selected here: the next group's TailSteps, issued between
    // these steps, select theirs.)
    __aicore__ inline void QuantOp(uint32_t g, QOp op, const LocalTensor<YT>& y, uint32_t r0, uint32_t r1, uint32_t c0,
                                   uint32_t c1)
    {
        SelectSet(g & 1);
        const LocalTensor<float> w = this->WorkSet(g & 1);
        const uint32_t len = c1 - c0;
        if (op == QOp::DIV || op == QOp::ADD_OFFSET || op == QOp::CLIP_LO || op == QOp::CLIP_HI) {
            for (uint32_t i = r0; i < r1; ++i) {
                if (kinds_[i] != RowKind::NORMAL) {
                    continue;
                }
                const LocalTensor<float> q = w[i * p_.colsPad + c0];
                if (op == QOp::DIV) {
                    this->DivBlock(q, q, scaleBlocks_[i * kBlockFloats], len);
                } else if (op == QOp::ADD_OFFSET) {
                    this->AddBlock(q, q, offsetBlocks_[i * kBlockFloats], len);
                } else if (op == QOp::CLIP_LO) {
                    Maxs(q, q, p_.clipLo, len);
                } else {
                    Mins(q, q, p_.clipHi, len);
                }
            }
            return;
        }
        const bool wholeRows = c0 == 0 && c1 == p_.cols;
        uint32_t b = r0;
        for (uint32_t a = r0; a < r1; a = b) {
            while (a < r1 && kinds_[a] != RowKind::NORMAL) {
                ++a;
            }
            b = a;
            while (b < r1 && kinds_[b] == RowKind::NORMAL) {
                ++b;
            }
            if (b == a) {
                break;
            }
            const uint32_t at = a * p_.colsPad + c0;
            const uint32_t count = wholeRows ? (b - a) * p_.colsPad : len;
            if (op == QOp::CONV0 || op == QOp::CONV1 || op == QOp::CONV2) {
                const uint32_t k = static_cast<uint32_t>(op) - static_cast<uint32_t>(QOp::CONV0);
                this->CastOutStep(k, y[at], w[at], tmp_[at], count);
                continue;
            }
            // the zero point's steps: round(q) in place as int32, then half values in the scratch at q's offset
            LocalTensor<int32_t> qi = w[at].template ReinterpretCast<int32_t>();
            LocalTensor<half> h = tmp_[at].template ReinterpretCast<half>();
            if (op == QOp::ZP_RINT) {
                Cast(qi, w[at], RoundMode::CAST_RINT, count);
            } else if (op == QOp::ZP_DEQ) {
                Cast(h, qi, RoundMode::CAST_NONE, count);
            } else if (op == QOp::ZP_ADD) {
                // per row: row i's values start (i - a) x (its run's row stride) halves in
                const uint32_t stride = wholeRows ? p_.colsPad : len;
                for (uint32_t i = a; i < b; ++i) {
                    LocalTensor<half> hr = h[(i - a) * stride];
                    this->AddBlock(hr, hr, offsetBlocks_.template ReinterpretCast<half>()[2 * i * kBlockFloats],
                                   wholeRows ? p_.cols : len);
                }
            } else if (op == QOp::ZP_MAX) {
                Maxs(h, h, static_cast<half>(0.0f), count);
            } else if (op == QOp::ZP_MIN) {
                Mins(h, h, static_cast<half>(p_.clipHi), count);
            } else if constexpr (!Float8Out<YT>::kIsFloat) {
                Cast(y[at], h, RoundMode::CAST_NONE, count);  // integers in [0, 255]: exact
            }
        }
    }

    // Special rows write their y rows themselves. Symmetric: SpecialChunk (float8 Inf rows use tmp_ as scratch, after
    // a barrier); asymmetric: zero rows are 0, FALLBACK rows computed by the scalar unit as the golden does (their
    // scale and offset too, into the gathering slots). Returns whether the scalar unit wrote bytes of y.
    __aicore__ inline bool SpecialRows(uint32_t g, const LocalTensor<YT>& y)
    {
        const uint32_t n = GroupRows(g);
        const LocalTensor<float> w = this->WorkSet(g & 1);
        bool scalarY = false;
        if (fallback_) {
            // the y slot's previous store has read it (AllocTensor made the vector unit wait for it)
            this->template WaitPipe<HardEvent::V_S>();
        }
        const uint32_t at = static_cast<uint32_t>(GroupRow(g) - scaleRow_);
        for (uint32_t i = 0; i < n; ++i) {
            if (kinds_[i] == RowKind::NORMAL) {
                continue;
            }
            if (kinds_[i] == RowKind::FALLBACK) {
                FallbackRow st;
                this->FallbackScan(w[i * p_.colsPad], p_.cols, st);
                this->FallbackParams(st);
                scales_.Put(scaleSlot_, at + i, st.scale);
                offsets_.Put(offsetSlot_, at + i, static_cast<OT>(st.offset));
                this->FallbackChunk(w[i * p_.colsPad], y[i * p_.colsPad], p_.cols, st);
                scalarY = true;
                continue;
            }
            this->SpecialChunk(y[i * p_.colsPad], w[i * p_.colsPad], p_.cols, kinds_[i]);
            scalarY = scalarY || (kinds_[i] == RowKind::INF_ROW && Float8Out<YT>::kIsFloat);
        }
        return scalarY;
    }

    // y of group g (set g % 2), interleaved with group g + 1's statistics from step `cursor` on when there is a next
    // group: the statistics steps that use tmp_ go out beside the steps before the first one that uses the scratch
    // (and in their own windows if more remain), the others beside the scratch steps. With a next group the last
    // step is left to FinishConvert (issued behind g + 1's flag) where DeferLastOp allows.
    __aicore__ inline void Quantize(uint32_t g, bool next, uint32_t cursor)
    {
        SelectSet(g & 1);
        y_ = yQue_.template AllocTensor<YT>();
        QOp ops[kMaxOps];
        const uint32_t nops = BuildOps(ops);
        const uint32_t steps = next ? StatsSteps() : 0;
        const uint32_t tmpEnd = next ? TmpEnd() : 0;  // g + 1's steps [cursor, tmpEnd) use tmp_
        const bool defer = next && DeferLastOp();
        const uint32_t last = nops - (defer ? 1u : 0u);
        const uint32_t n = GroupRows(g);
        uint32_t k = 0;
        for (; k < last && !UsesTmp(ops[k]); ++k) {
            PipeBarrier<PIPE_V>();  // k = 0: the broadcast blocks; group g + 1's previous step
            QuantOp(g, ops[k], y_, 0, n, 0, p_.cols);
            if (cursor < steps) {
                StatsStep(g + 1, cursor++);
            }
            if (k == 0) {
                ReleaseHeld(g);
            }
        }
        while (cursor < tmpEnd) {
            PipeBarrier<PIPE_V>();
            StatsStep(g + 1, cursor++);
        }
        scalarY_ = SpecialRows(g, y_);
        for (; k < last; ++k) {
            PipeBarrier<PIPE_V>();
            QuantOp(g, ops[k], y_, 0, n, 0, p_.cols);
            if (cursor < steps) {
                StatsStep(g + 1, cursor++);
            }
        }
        while (cursor < steps) {
            PipeBarrier<PIPE_V>();
            StatsStep(g + 1, cursor++);
        }
        lastOp_ = ops[nops - 1];
        if (!defer) {
            EnQueY();
            CopyOut(g, 0, 0);
        }
    }

    // Group g's last step (issued behind group g + 1's flag, after the loop's barrier, while g's kinds and blocks
    // are still the classified ones), then its store.
    __aicore__ inline void FinishConvert(uint32_t g)
    {
        QuantOp(g, lastOp_, y_, 0, GroupRows(g), 0, p_.cols);
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
    // x, y and the float32 work), at most kMaxParts, column parts of at least kMinPartCols. The parts' steps are
    // software-pipelined: between two barriers, step s of part k goes out beside step s - 1 of part k + 1, and each
    // part's store goes out as soon as its last step is issued. Only the last part's last steps and its store are left
    // after the rest, in fewer barriers than the parts one after the other. (Below kSplitBytes the store is short and
    // the extra barriers and DMAs would cost more than they save.)
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
        SelectSet(g & 1);
        LocalTensor<YT> y = yQue_.template AllocTensor<YT>();
        QOp ops[kMaxOps];
        const uint32_t steps = BuildOps(ops);  // per part
        const uint32_t parts = LastParts(n);
        if (SpecialRows(g, y)) {
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
                QuantOp(g, ops[step], y, r0, r1, c0, c1);
                if (step + 1 == steps && k + 1 < parts) {
                    this->template WaitPipe<HardEvent::V_MTE3>();
                    this->CopyRowsOut(yGm_[(row + r0) * p_.cols + c0], y[r0 * p_.colsPad + c0], r1 - r0, c1 - c0);
                }
            }
            if (t == 0) {
                ReleaseHeld(g);
            }
        }
        yQue_.EnQue(y);
        PartBounds(n, parts, parts - 1, r0, r1, c0, c1);
        CopyOut(g, r0, c0, false);
        // The scales (complete since the classification) last: the y parts' stores go out as soon as the vector unit
        // has them, while the scalar unit's share of the scales' store (without DataCopyPad it gathers a partial
        // block's scales by GetValue / SetValue, then waits S -> MTE3) would hold the last part's store back.
        StoreScales(g);
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

    // The gathered scales (and offsets) to GM when group g ends them (its rows are classified).
    __aicore__ inline void StoreScales(uint32_t g)
    {
        if (!EndsScales(g)) {
            return;
        }
        const uint32_t count = static_cast<uint32_t>(GroupRow(g) + GroupRows(g) - scaleRow_);
        this->template WaitPipe<HardEvent::S_MTE3>();  // the scales come from the scalar unit
        scaleQue_.EnQue(scaleSlot_);
        LocalTensor<float> s = scaleQue_.template DeQue<float>();
        scales_.Write(s, scaleRow_, count);
        scaleQue_.FreeTensor(s);
        if (asym_) {
            offsetQue_.EnQue(offsetSlot_);
            LocalTensor<OT> o = offsetQue_.template DeQue<OT>();
            offsets_.Write(o, scaleRow_, count);
            offsetQue_.FreeTensor(o);
        }
    }

    event_t statsFlag_ = static_cast<event_t>(0);
    bool asym_ = false;               // the asymmetric modes (float offset or zero point)
    bool zp_ = false;                 // the zero-point mode (uint8)
    uint32_t groups_ = 0;
    uint32_t loaded_ = 0;
    uint64_t scaleRow_ = 0;           // the first row of the scales gathered in scaleSlot_
    bool clip_ = false;
    bool fallback_ = false;           // the group being quantized has FALLBACK rows
    bool staged_ = false;             // the smooth row holds an x slot
    bool scalarY_ = false;            // the scalar unit wrote bytes of y_ (float8 Inf rows, FALLBACK rows)
    QOp lastOp_ = QOp::DIV;           // the step FinishConvert issues
    uint32_t firstPieces_ = 1;        // group 0 loaded in pieces: rows or columns (FirstPieces)
    event_t pieceFlag_[kMaxPieces] = {};
    LocalTensor<XT> firstX_;          // group 0's x slot when split (not queued)
    LocalTensor<YT> y_;               // the y slot of the group being quantized (its last step: FinishConvert)
    LocalTensor<float> scaleSlot_;      // gathering the scales of the group being classified
    LocalTensor<float> nextScaleSlot_;  // allocated for the next group that starts a slot
    LocalTensor<OT> offsetSlot_;        // the same for the offsets (asymmetric)
    LocalTensor<OT> nextOffsetSlot_;
    LocalTensor<XT> held_[2];         // ascend310p: the x slots of the groups being classified
    RowKind kinds_[kMaxRepeats];
};

}  // namespace aqo_dq

#endif  // AQO_DYNAMIC_QUANT_PIPELINED_H
