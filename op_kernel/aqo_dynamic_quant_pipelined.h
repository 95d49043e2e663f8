// AqoDynamicQuant, pipelined mode (tiling key 2): symmetric rows, whole rows in UB, a group of rowsPerIter rows
// computed at once, with groups small enough that a core has several (the plan's choice), so that its first compute
// waits for one small load and its last compute and store are short. Per core:
//   * loads run ahead: the first xSlots groups are copied in at once, and each later copy is issued as soon as a
//     slot is freed (right after the group's float32 copy is made);
//   * two sets of statistics buffers (work, acc, row stats): group g's scales are issued with their V -> S flag
//     and group g + 1's float32 copy and magnitude bits right behind it, so the vector unit computes those while
//     the scalar unit classifies group g's rows; group g's division and conversion steps then go out interleaved
//     with group g + 1's per-lane maxima and row maxima (independent instructions between the same barriers);
//   * one scale_out slot gathers the scales of scaleRows rows (several groups) and is stored at once;
//   * the core's last group is converted and stored in two parts (QuantizeLast).
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
        LoadGroup(0);
        PipeBarrier<PIPE_V>();
        Magnitudes(0);
        for (uint32_t seg = 0; seg < this->Segments(p_.cols); ++seg) {
            PipeBarrier<PIPE_V>();
            Accumulate(0, seg);
        }
        for (uint32_t step = 0; step < 2; ++step) {
            PipeBarrier<PIPE_V>();
            TailStep(0, step);
        }
        // Per group g: g's scales and their flag, with group g + 1's float32 copy and magnitude bits behind the
        // flag (the vector unit computes them while the scalar unit classifies g's rows); then g's quantization
        // interleaved with g + 1's per-lane maxima and row maxima (PipeBarrier-separated steps of independent
        // instructions).
        for (uint32_t g = 0; g < groups_; ++g) {
            const bool next = g + 1 < groups_;
            PipeBarrier<PIPE_V>();  // group g's row maxima; group g - 1's conversion
            TailStep(g, 2);
            AllocScales(g);
            SetFlag<HardEvent::V_S>(statsFlag_);
            if (next) {
                LoadGroup(g + 1);
                PipeBarrier<PIPE_V>();
                Magnitudes(g + 1);
            }
            WaitFlag<HardEvent::V_S>(statsFlag_);
            ClassifyGroup(g, next);
            if (next || !SplitLast(g)) {
                Quantize(g, next);
                CopyOut(g, 0, 0);
            } else {
                QuantizeLast(g);
            }
        }
        pipe_->template ReleaseEventID<HardEvent::V_S>(statsFlag_);
    }

private:
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

    // y of group g (set g % 2), interleaved with group g + 1's per-lane maxima (beside the division) and its row
    // maxima (beside the conversion steps) when there is a next group.
    __aicore__ inline void Quantize(uint32_t g, bool next)
    {
        const uint32_t n = GroupRows(g);
        const LocalTensor<float> w = this->WorkSet(g & 1);
        this->SelectStatSet(g & 1);
        const LocalTensor<float> blocks = scaleBlocks_;
        LocalTensor<YT> y = yQue_.template AllocTensor<YT>();
        const uint32_t segs = next ? this->Segments(p_.cols) : 0;
        PipeBarrier<PIPE_V>();  // the broadcast blocks; group g + 1's magnitude bits
        for (uint32_t i = 0; i < n; ++i) {
            if (kinds_[i] == RowKind::NORMAL) {
                this->DivBlock(w[i * p_.colsPad], w[i * p_.colsPad], blocks[i * kBlockFloats], p_.cols);
            }
        }
        for (uint32_t seg = 0; seg < segs; ++seg) {
            if (seg != 0) {
                PipeBarrier<PIPE_V>();
            }
            Accumulate(g + 1, seg);
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
        bool scalarY = false;  // the scalar unit wrote bytes of y (float8 Inf rows)
        for (uint32_t i = 0; i < n; ++i) {
            if (kinds_[i] != RowKind::NORMAL) {
                this->SpecialChunk(y[i * p_.colsPad], w[i * p_.colsPad], p_.cols, kinds_[i]);
                scalarY = scalarY || (kinds_[i] == RowKind::INF_ROW && Float8Out<YT>::kIsFloat);
            }
        }
        uint32_t tail = 0;  // group g + 1's next reduction step (0: clamp, 1: row maxima)
        for (uint32_t step = 0; step < Base::kCastOutSteps; ++step) {
            PipeBarrier<PIPE_V>();
            uint32_t b = 0;
            for (uint32_t a = 0; NextRun(n, a, b); a = b) {
                this->CastOutStep(step, y[a * p_.colsPad], w[a * p_.colsPad], tmp_[a * p_.colsPad],
                                  (b - a) * p_.colsPad);
            }
            if (next && tail < 2) {
                TailStep(g + 1, tail++);
            }
        }
        while (next && tail < 2) {
            PipeBarrier<PIPE_V>();
            TailStep(g + 1, tail++);
        }
        if (scalarY) {
            this->template WaitPipe<HardEvent::S_MTE3>();
        }
        yQue_.EnQue(y);
    }

    // The core's last group is stored in two parts when its y is at least kSplitBytes: row halves when it has two
    // rows or more, else column halves at a multiple of 64 elements (every part starts on a 32-byte boundary of x, y
    // and the float32 work). The first part's store then moves while the vector unit converts the second, and only
    // the second part's store and its round trip are left after the last vector instruction. (Below kSplitBytes the
    // store is short and the extra barriers and DMA would cost more than they save.)
    static constexpr uint32_t kSplitBytes = 4096;

    __aicore__ inline bool SplitLast(uint32_t g) const
    {
        const uint32_t n = GroupRows(g);
        return n * p_.cols * sizeof(YT) >= kSplitBytes && (n >= 2 || p_.cols >= 128);
    }

    __aicore__ inline void QuantizeLast(uint32_t g)
    {
        const uint32_t n = GroupRows(g);
        const uint64_t row = GroupRow(g);
        const LocalTensor<float> w = this->WorkSet(g & 1);
        this->SelectStatSet(g & 1);
        const LocalTensor<float> blocks = scaleBlocks_;
        LocalTensor<YT> y = yQue_.template AllocTensor<YT>();
        const bool byRows = n >= 2;
        const uint32_t splitRow = byRows ? n / 2 : 0;                          // part B: rows [splitRow, n) ...
        const uint32_t splitCol = byRows ? 0 : p_.cols / 2 / 64 * 64;          // ... from column splitCol on
        bool scalarY = false;
        for (uint32_t i = 0; i < n; ++i) {
            if (kinds_[i] != RowKind::NORMAL) {
                this->SpecialChunk(y[i * p_.colsPad], w[i * p_.colsPad], p_.cols, kinds_[i]);
                scalarY = scalarY || (kinds_[i] == RowKind::INF_ROW && Float8Out<YT>::kIsFloat);
            }
        }
        if (byRows) {
            ConvertPart(w, y, blocks, 0, splitRow, 0, p_.cols);
        } else {
            ConvertPart(w, y, blocks, 0, 1, 0, splitCol);
        }
        if (scalarY) {
            this->template WaitPipe<HardEvent::S_MTE3>();
        }
        this->template WaitPipe<HardEvent::V_MTE3>();  // part A's conversion
        if (byRows) {
            this->CopyRowsOut(yGm_[row * p_.cols], y, splitRow, p_.cols);
            ConvertPart(w, y, blocks, splitRow, n, 0, p_.cols);
        } else {
            this->CopyRowsOut(yGm_[row * p_.cols], y, 1, splitCol);
            ConvertPart(w, y, blocks, 0, 1, splitCol, p_.cols);
        }
        yQue_.EnQue(y);
        CopyOut(g, splitRow, splitCol);
    }

    // y of the NORMAL rows of [r0, r1), columns [c0, c1), of the last group: the division by the broadcast scale, the
    // clip of a subnormal scale's quotients, the conversion steps.
    __aicore__ inline void ConvertPart(const LocalTensor<float>& w, const LocalTensor<YT>& y,
                                       const LocalTensor<float>& blocks, uint32_t r0, uint32_t r1, uint32_t c0,
                                       uint32_t c1)
    {
        PipeBarrier<PIPE_V>();
        for (uint32_t i = r0; i < r1; ++i) {
            if (kinds_[i] == RowKind::NORMAL) {
                this->DivBlock(w[i * p_.colsPad + c0], w[i * p_.colsPad + c0], blocks[i * kBlockFloats], c1 - c0);
            }
        }
        if (clip_) {
            PipeBarrier<PIPE_V>();
            for (uint32_t i = r0; i < r1; ++i) {
                if (kinds_[i] == RowKind::NORMAL) {
                    Maxs(w[i * p_.colsPad + c0], w[i * p_.colsPad + c0], p_.clipLo, c1 - c0);
                }
            }
            PipeBarrier<PIPE_V>();
            for (uint32_t i = r0; i < r1; ++i) {
                if (kinds_[i] == RowKind::NORMAL) {
                    Mins(w[i * p_.colsPad + c0], w[i * p_.colsPad + c0], p_.clipHi, c1 - c0);
                }
            }
        }
        for (uint32_t step = 0; step < Base::kCastOutSteps; ++step) {
            PipeBarrier<PIPE_V>();
            for (uint32_t i = r0; i < r1; ++i) {
                // row by row when the part is a column range; runs of rows otherwise
                uint32_t b = i;
                while (b < r1 && kinds_[b] == RowKind::NORMAL && (c0 == 0 && c1 == p_.cols)) {
                    ++b;
                }
                if (b == i) {
                    if (kinds_[i] == RowKind::NORMAL) {
                        const uint32_t at = i * p_.colsPad + c0;
                        this->CastOutStep(step, y[at], w[at], tmp_[at], c1 - c0);
                    }
                    continue;
                }
                this->CastOutStep(step, y[i * p_.colsPad], w[i * p_.colsPad], tmp_[i * p_.colsPad],
                                  (b - i) * p_.colsPad);
                i = b - 1;
            }
        }
    }

    // y rows [r0, n) of group g from column c0 on (the whole group: 0, 0), then the gathered scales if g ends them.
    __aicore__ inline void CopyOut(uint32_t g, uint32_t r0, uint32_t c0)
    {
        const uint32_t n = GroupRows(g);
        const uint64_t row = GroupRow(g);
        LocalTensor<YT> y = yQue_.template DeQue<YT>();
        this->CopyRowsOut(yGm_[(row + r0) * p_.cols + c0], y[r0 * p_.colsPad + c0], n - r0, p_.cols - c0);
        yQue_.FreeTensor(y);
        if (EndsScales(g)) {
            this->template WaitPipe<HardEvent::S_MTE3>();  // the scales come from the scalar unit
            scaleQue_.EnQue(scaleSlot_);
            LocalTensor<float> s = scaleQue_.template DeQue<float>();
            scales_.Write(s, scaleRow_, static_cast<uint32_t>(row + n - scaleRow_));
            scaleQue_.FreeTensor(s);
        }
    }

    // The next maximal run [a, b) of NORMAL rows at or after a; false when there is none.
    __aicore__ inline bool NextRun(uint32_t n, uint32_t& a, uint32_t& b) const
    {
        while (a < n && kinds_[a] != RowKind::NORMAL) {
            ++a;
        }
        b = a;
        while (b < n && kinds_[b] == RowKind::NORMAL) {
            ++b;
        }
        return a < n;
    }

    event_t statsFlag_ = static_cast<event_t>(0);
    uint32_t groups_ = 0;
    uint32_t loaded_ = 0;
    uint64_t scaleRow_ = 0;           // the first row of the scales gathered in scaleSlot_
    bool clip_ = false;
    bool staged_ = false;             // the smooth row holds an x slot
    LocalTensor<float> scaleSlot_;      // gathering the scales of the group being classified
    LocalTensor<float> nextScaleSlot_;  // allocated for the next group that starts a slot
    LocalTensor<XT> held_[2];         // ascend310p: the x slots of the groups being classified
    RowKind kinds_[kMaxRepeats];
};

}  // namespace aqo_dq

#endif  // AQO_DYNAMIC_QUANT_PIPELINED_H
