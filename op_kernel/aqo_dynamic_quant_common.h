// AqoDynamicQuant: what its kernel classes share (op_kernel/aqo_dynamic_quant.cpp includes this header, then the
// classes of the two modes: aqo_dynamic_quant_resident.h, aqo_dynamic_quant_stream.h).
//
// The arithmetic is the golden's (docs/design.md "DynamicQuant arithmetic"), every step one float32 operation:
//   v = fp32(x) [* fp32(smooth)]; m = max|v| per row; scale = m / dmax (vector Div); y = v / scale (vector Div),
//   then the dst rounding. Asymmetric modes: the golden's formulas (aqo_dynamic_quant.cpp, AsymmetricParams).
//
// How a row's statistics avoid NaN in a max and the scalar unit in the data path:
//   * |v| as a bit pattern: v's float32 bits with the sign cleared (a level-0 And with a 32-byte mask block) are
//     non-negative int32s ordered as the magnitudes, NaN and Inf above every finite value; their maximum is
//     accumulated per row on the vector unit by the documented accumulation form of Max (dst = src1, repeat stride
//     0, int32), 64 lanes a row, then clamped to the Inf pattern (so no NaN reaches a float reduction) and reduced
//     by one WholeReduceMax for the whole group of rows. The scale is one vector Div for the group.
//   * one V -> S wait per group: the scalar unit reads each row's maximum and scale, stores the scales, and
//     classifies the rows; a row that is not finite (maximum above finiteMax), zero or with a subnormal scale
//     (which could leave the dst range) takes a per-row special path, everything else stays on the vector unit.
//   * y = v / scale is a level-0 Div per row whose divisor is a 32-byte block of the row's scale (block and repeat
//     stride 0): no full-length Duplicate.
//
// Its include guard is #undef'd at the end of aqo_dynamic_quant.cpp: the emulator's runner includes the kernel once
// per SoC, each time in its own namespace (aqo_kernel_common.h explains).
#ifndef AQO_DYNAMIC_QUANT_COMMON_H
#define AQO_DYNAMIC_QUANT_COMMON_H
#include "kernel_operator.h"
#include "aqo_kernel_common.h"
#include "aqo_dynamic_quant_layout.h"  // the UB sub-buffer sizes the plan shares

using namespace AscendC;

namespace aqo_dq {

using namespace aqo_kernel;  // SoC traits (AQO_SOC_*, kSoc*), AlignUp32, CopyOutExact, Float8Out

// Tiling codes. The dtype codes are aqo::DType values (op_host/tiling_core/dtype_table.h), the modes are
// aqo::DynamicQuantMode values (dynamic_quant_plan.h), which are the tiling keys; the emulator runner
// static_asserts that they agree.
constexpr uint32_t kDTypeFloat16 = 0;
constexpr uint32_t kDTypeBFloat16 = 1;
constexpr uint32_t kDTypeInt8 = 3;
constexpr uint32_t kDTypeUInt8 = 4;
constexpr uint32_t kDTypeHiFloat8 = 6;
constexpr uint32_t kDTypeFloat8E4M3FN = 7;
constexpr uint32_t kDTypeFloat8E5M2 = 8;
constexpr uint32_t kModeResident = 0;
constexpr uint32_t kModeStream = 1;
constexpr uint32_t kModePipelined = 2;
// tiling.asymmetric
constexpr uint32_t kSymmetric = 0;
constexpr uint32_t kAsymFloatOffset = 1;   // OPSNN: offset = qmax - max / scale, added before rounding
constexpr uint32_t kAsymZeroPoint = 2;     // ONNX DynamicQuantizeLinear: an integer zero point (uint8)

constexpr uint32_t kBlockFloats = aqo_dq_layout::kBlockFloats;  // floats in a 32-byte block
constexpr uint32_t kRepFloats = 64;         // float32 elements of one 256-byte repeat
constexpr uint32_t kAccLanes = aqo_dq_layout::kAccLanes;        // lanes of a row's maximum accumulator
constexpr uint32_t kMaxRepeats = 255;       // repeatTimes of a level-0 instruction at most
constexpr int32_t kMaxXSlots = 4;           // x_in queue depth: the plan's xSlots at most (pipelined mode)
constexpr int32_t kMagnitudeMask = 0x7FFFFFFF;
constexpr int32_t kInfBits = 0x7F800000;
constexpr float kFloatMin = 1.17549435e-38f;  // the smallest normal float32
constexpr uint32_t kConstBlocks = aqo_dq_layout::kConstBlocks;  // 32-byte constant blocks ahead of the dmax vector

// How a row leaves its statistics.
// How a row leaves its statistics. FALLBACK (asymmetric): a non-finite row, or one whose range is too small for
// the vector path's divisions to stay finite: the scalar unit computes it, element by element, as the golden does.
enum class RowKind : uint8_t { NORMAL = 0, ZERO, NAN_ROW, INF_ROW, RECHECK, FALLBACK };

// The next maximal run [a, b) of NORMAL rows among kinds[0, n) at or after a (the rows one vector instruction can
// convert together); false when there is none.
__aicore__ inline bool NextNormalRun(const RowKind* kinds, uint32_t n, uint32_t& a, uint32_t& b)
{
    while (a < n && kinds[a] != RowKind::NORMAL) {
        ++a;
    }
    b = a;
    while (b < n && kinds[b] == RowKind::NORMAL) {
        ++b;
    }
    return a < n;
}

// Below this range (max - min) an asymmetric row is computed by the scalar unit: the vector path then cannot
// produce a zero or subnormal scale (whose divisions would give NaN), no quotient of a float32-subnormal value
// (bfloat16 x) it keeps is small enough to matter when the vector division flushes subnormal operands
// (ascend910_95's: see kTinyMax), and such rows are astronomically rare.
constexpr float kTinyRange = 5.42101086e-20f;  // 2^-64
// Whether finite extremes hi >= lo span less than kTinyRange: F32Sub where one is subnormal (a scalar unit that
// flushed it would misjudge the range), the scalar unit's subtraction otherwise (normal operands; a result it
// flushed is below kTinyRange either way).
__aicore__ inline bool AsymRangeBelowTiny(float hi, float lo)
{
    return F32Less(F32IsSubnormal(hi) || F32IsSubnormal(lo) ? F32Sub(hi, lo) : hi - lo, kTinyRange);
}
// A symmetric row whose largest magnitude is below kTinyMax (bfloat16 x only: a float16 row's is at least 2^-24) has
// its scale divided by the scalar unit and its values and divisor lifted by kTinyLift (exact powers of two) before
// the vector division: a division that flushes subnormal operands or quotients (ascend910_95's Div is recorded as
// doing so) would otherwise write a subnormal scale as 0 and lose the small quotients a float8 / hifloat8 y keeps.
// The lifted quotient is the same real number, so the result is the golden's either way. The scalar unit's part
// (whether a row is tiny or zero, its scale, its lifted divisor) is integer arithmetic on the floats' bits
// (aqo_kernel_common.h F32PositiveBelow, F32IsZero, F32TimesPow2, DivideF32), right whether or not that unit keeps
// subnormals. This relies on the vector Muls and Adds keeping subnormals (AsymOffsetBlock's prep on Adds too): the
// recorded flush names Div, Exp, Sqrt, Log and Ln only; to be confirmed on a device.
constexpr float kTinyMax = 5.42101086e-20f;   // 2^-64
constexpr float kTinyLift = 1.84467441e19f;   // 2^64 (the vector Muls' factor)
constexpr int32_t kTinyLiftLog2 = 64;         // the same for the scalar unit's F32TimesPow2
static_assert(kTinyLift == 18446744073709551616.0f, "kTinyLift is 2^kTinyLiftLog2");
// A row's values before its division (DynamicQuantBase::PrepareForDivision): as they are, lifted by kTinyLift (a tiny
// symmetric row), or with -0 made +0 (an asymmetric float8 row whose offset block holds -0: AsymOffsetBlock).
constexpr uint8_t kPrepNone = 0;
constexpr uint8_t kPrepLift = 1;
constexpr uint8_t kPrepPositiveZero = 2;
// The largest magnitude SignedFiniteStep keeps as a finite row's: the float32 below 2^127. A row whose signed
// maximum or minimum goes beyond it held NaN or Inf (or values of at least 2^127: bfloat16 only), and is computed by
// the scalar unit.
constexpr float kSuspectMax = 1.70141173e38f;  // 0x7EFFFFFF
// An asymmetric row of the vector path whose offset is at most this in magnitude needs no clip before its conversion:
// int8: with |offset| <= 2^14 the quotients v / scale are at most 2^15 in magnitude, so the two roundings of
// v / scale + offset are each below 2^-8 and y stays within [-128.01, 127.01] (the exact values span [-128, 127]);
// the float types (exact values within +-dmax, quotients below 2^14 + 2 dmax <= 2^17): the roundings stay below
// 2^-5, far inside the half step beyond dmax at which the conversion would overflow (448 + 16, 57344 + 2048,
// 32768 + 4096). A larger offset (a row whose range is small against its values) is clipped.
constexpr float kNoClipOffset = 16384.0f;

// The golden's scalar computation of an asymmetric row (RowKind::FALLBACK): its statistics with NaN propagating
// (numpy's max / min), then its parameters.
struct FallbackRow {
    bool nan = false;
    float hi = 0.0f;
    float lo = 0.0f;
    bool any = false;
    bool zero = false;
    float scale = 0.0f;
    float offset = 0.0f;
};

// Round half to even of a float with |v| < 2^23 (the scalar unit's exact rounding of a clipped quotient).
__aicore__ inline float RoundHalfEven(float v)
{
    const int32_t i = static_cast<int32_t>(v);  // toward zero
    const float frac = v - static_cast<float>(i);
    int32_t r = i;
    if (frac > 0.5f || (frac == 0.5f && (i & 1) != 0)) {
        r = i + 1;
    } else if (frac < -0.5f || (frac == -0.5f && (i & 1) != 0)) {
        r = i - 1;
    }
    return static_cast<float>(r);
}

__aicore__ inline uint32_t PairFloats(uint32_t n) { return static_cast<uint32_t>(aqo_dq_layout::PairFloats(n)); }

// A core's scales (or offsets) to GM, one group of rows after another (the group's values are in a queue slot).
// With DataCopyPad each group's values go out exactly. Without it (ascend310p) a DMA moves whole 32-byte blocks of
// B values: the values of a partial block are carried (by the scalar unit) into the next group's slot, and a
// core's partial last block is written as the block ending at its last row, rewriting a few of its own values
// with the values they already have. A core with fewer rows than a block (the only core of such a tensor) stores
// them with the scalar unit (CopyOutExact). The plan gives every slot room for the carried values and the last
// block (scaleBufBytes / offsetBufBytes).
template <typename T>
class BlockStore {
public:
    static constexpr uint32_t kPerBlock = kBlockBytes / sizeof(T);

    __aicore__ inline void Init(const GlobalTensor<T>& gm, uint64_t rowBegin, uint64_t rowEnd)
    {
        gm_ = gm;
        rowBegin_ = rowBegin;
        rowEnd_ = rowEnd;
        carried_ = 0;
        groupRow_ = rowBegin;
    }

    // Where the group's first value goes in its slot (the carried values come first).
    __aicore__ inline uint32_t First() const { return kSocHasDataCopyPad ? 0 : carried_; }

    // Before the group's values (of the group starting at GM row `row`): the scalar unit copies the carried ones to
    // the start of the slot.
    __aicore__ inline void Begin(const LocalTensor<T>& slot, uint64_t row)
    {
        // The slot's previous DMA (MTE3) has read it before the scalar unit writes here: AllocTensor makes the V
        // pipe wait for that DMA, and every caller waits V -> S after its AllocTensor before calling Begin (an
        // explicit MTE3 -> S wait here would also wait for the previous group's y DMA: 0.3x of the roofline).
        groupRow_ = row;
        if constexpr (!kSocHasDataCopyPad) {
            for (uint32_t i = 0; i < carried_; ++i) {
                slot.SetValue(i, carry_[i]);
            }
        }
    }

    // The scalar unit stores value i of the group (row = group row + i), in any order.
    __aicore__ inline void Put(const LocalTensor<T>& slot, uint32_t i, T value)
    {
        slot.SetValue(First() + i, value);
        if constexpr (!kSocHasDataCopyPad) {
            last_[(groupRow_ + i - rowBegin_) % kPerBlock] = value;  // the core's last kPerBlock values, by row
        }
    }

    // The group of n values starting at GM row `row` is complete in `slot` (written by the scalar unit: the caller
    // has waited S -> MTE3). Issues its DMA.
    __aicore__ inline void Write(const LocalTensor<T>& slot, uint64_t row, uint32_t n)
    {
        if constexpr (kSocHasDataCopyPad) {
            CopyOutExact(gm_[row], slot, n);
        } else {
            const uint64_t end = row + n;
            const uint32_t pending = carried_ + n;
            const uint32_t whole = pending / kPerBlock * kPerBlock;
            if (rowEnd_ - rowBegin_ < kPerBlock) {
                // Fewer rows than a block on this (only) core: everything is carried to the end, then stored exactly.
                for (uint32_t i = carried_; i < pending; ++i) {
                    carry_[i] = slot.GetValue(i);
                }
                carried_ = pending;
                if (end == rowEnd_) {
                    CopyOutExact(gm_[rowBegin_], slot, pending);
                }
                return;
            }
            if (whole != 0) {
                DataCopy(gm_[end - pending], slot, whole);
            }
            for (uint32_t i = whole; i < pending; ++i) {
                carry_[i - whole] = slot.GetValue(i);
            }
            carried_ = pending - whole;
            if (end == rowEnd_ && carried_ != 0) {
                // The core's last block: its last kPerBlock values, gathered behind the group's values.
                const uint32_t at = (pending + kPerBlock - 1) / kPerBlock * kPerBlock;
                for (uint32_t i = 0; i < kPerBlock; ++i) {
                    slot.SetValue(at + i, last_[(end - kPerBlock + i - rowBegin_) % kPerBlock]);
                }
                WaitS2Mte3();
                DataCopy(gm_[end - kPerBlock], slot[at], kPerBlock);
                carried_ = 0;
            }
        }
    }

    TPipe* pipe = nullptr;

private:
    __aicore__ inline void WaitS2Mte3() { aqo_kernel::WaitPipe<HardEvent::S_MTE3>(pipe); }

    GlobalTensor<T> gm_;
    uint64_t rowBegin_ = 0;
    uint64_t rowEnd_ = 0;
    uint32_t carried_ = 0;
    uint64_t groupRow_ = 0;
    T carry_[kPerBlock];
    T last_[kPerBlock];
};

// The state and the arithmetic both modes share. TD: the tiling-data struct GET_TILING_DATA gives (CANN generates it
// from op_host/aqo_dynamic_quant_tiling.h, whose fields are op_host/tiling_core/dynamic_quant_tiling_fields.h): the
// kernel reads the fields by name. OT: the offset output's type (float, or uint8_t for the zero point).
template <class TD, typename XT, typename YT, typename OT>
class DynamicQuantBase {
public:
    // constants false: the caller runs InitConstants itself (the pipelined mode, after its first loads are issued).
    __aicore__ inline void InitBase(GM_ADDR x, GM_ADDR smooth, GM_ADDR y, GM_ADDR scale, GM_ADDR offset, const TD& p,
                                    TPipe* pipe, uint32_t statRows, bool constants = true)
    {
        p_ = p;
        pipe_ = pipe;
        statRows_ = statRows;
        // Balanced split in rows: the last rowsExtra cores take one row more. Without DataCopyPad the plan gives
        // every core at least one block of scales (offsets) unless there is only one core.
        uint64_t core = GetBlockIdx();
        uint64_t firstExtra = p.usedCores - p.rowsExtra;
        uint64_t before = core > firstExtra ? core - firstExtra : 0;
        uint64_t b = core * p.rowsPerCore + before;
        uint64_t e = b + p.rowsPerCore + (core >= firstExtra ? 1 : 0);
        rowBegin_ = b < p.rows ? b : p.rows;
        rowEnd_ = e < p.rows ? e : p.rows;
        if (core >= p.usedCores) {
            rowEnd_ = rowBegin_;
        }

        xGm_.SetGlobalBuffer((__gm__ XT*)x, p.rows * p.cols);
        yGm_.SetGlobalBuffer((__gm__ YT*)y, p.rows * p.cols);
        scaleGm_.SetGlobalBuffer((__gm__ float*)scale, p.rows);
        if (p.hasSmooth != 0) {
            smoothGm_.SetGlobalBuffer((__gm__ XT*)smooth, p.cols);
        }
        if (p.asymmetric != kSymmetric) {
            offsetGm_.SetGlobalBuffer((__gm__ OT*)offset, p.rows);
        }
        scales_.pipe = pipe;
        offsets_.pipe = pipe;
        scales_.Init(scaleGm_, rowBegin_, rowEnd_);
        offsets_.Init(offsetGm_, rowBegin_, rowEnd_);

        // Exactly the plan's UB map, in its order.
        pipe->InitBuffer(xQue_, p.xSlots, p.xBufBytes);
        pipe->InitBuffer(yQue_, p.ySlots, p.yBufBytes);
        pipe->InitBuffer(scaleQue_, p.scaleSlots, p.scaleBufBytes);
        if (p.offsetBufBytes != 0) {
            pipe->InitBuffer(offsetQue_, p.scaleSlots, p.offsetBufBytes);
        }
        if (p.smoothBufBytes != 0) {
            pipe->InitBuffer(smoothBuf_, p.smoothBufBytes);
        }
        // work, acc and row_stats: statSets copies each (the pipelined mode's two sets; SelectStatSet)
        pipe->InitBuffer(workBuf_, p.workBytes * p.statSets);
        pipe->InitBuffer(tmpBuf_, p.tmpBytes);
        pipe->InitBuffer(accBuf_, p.accBytes * p.statSets);
        pipe->InitBuffer(rowStatBuf_, p.rowStatBytes * p.statSets);
        pipe->InitBuffer(constBuf_, p.constBytes);
        work_ = workBuf_.Get<float>();
        tmp_ = tmpBuf_.Get<float>();
        acc_ = accBuf_.Get<int32_t>();
        accClamped_ = tmp_.template ReinterpretCast<int32_t>();  // tmp_ is free once the maxima are accumulated
        // row_stats: pair vectors (a WholeReduce result per row: value, index) then broadcast blocks; the plan's
        // RowStatBytes counts the same.
        LocalTensor<float> rs = rowStatBuf_.Get<float>();
        const uint32_t pf = PairFloats(statRows);
        rowMax_ = rs;
        rowScale_ = rs[pf];
        uint32_t next = aqo_dq_layout::kRowStatPairsSymmetric * pf;
        if (p.asymmetric != kSymmetric) {
            // the signed maxima and minima: the acc buffer's second and third parts
            accMax_ = acc_[statRows * kAccLanes].template ReinterpretCast<float>();
            accMin_ = accMax_[statRows * kAccLanes];
            rowHi_ = rs[next];
            rowLo_ = rs[next + pf];
            rowOffset_ = rs[next + 2 * pf];
            rowTmp_ = rs[next + 3 * pf];
            next += (aqo_dq_layout::kRowStatPairsAsymmetric - aqo_dq_layout::kRowStatPairsSymmetric) * pf;
        }
        scaleBlocks_ = rs[next];
        next += kBlockFloats * statRows;
        if (p.asymmetric != kSymmetric) {
            offsetBlocks_ = rs[next];
        }
        LocalTensor<float> cs = constBuf_.Get<float>();
        // constants: the magnitude mask block, the Inf pattern block, the float16 exponent mask block, the sign mask
        // block, the finite clamp block (SignedFinite), then the dmax vector (asymmetric: and the quantization range
        // vector); the plan's ConstBytes counts the same.
        magnitudeMask_ = cs.template ReinterpretCast<int32_t>();
        infBlock_ = magnitudeMask_[kBlockFloats];
        exponentMask_ = magnitudeMask_[2 * kBlockFloats].template ReinterpretCast<int16_t>();
        signMask_ = magnitudeMask_[3 * kBlockFloats];
        finiteBlock_ = magnitudeMask_[4 * kBlockFloats];
        dmaxVec_ = cs[kConstBlocks * kBlockFloats];
        if (p.asymmetric != kSymmetric) {
            rangeVec_ = cs[kConstBlocks * kBlockFloats + pf];
        }
        if (constants) {
            InitConstants();
        }
    }

protected:
    // The pipelined mode's statistics set k (0 or 1) becomes the one the helpers use (work_, acc_, the row maxima and
    // scales, the broadcast blocks and the clamped maxima): every set has the plan's workBytes, accBytes and
    // rowStatBytes, symmetric layout.
    __aicore__ inline void SelectStatSet(uint32_t k)
    {
        work_ = WorkSet(k);
        acc_ = AccSet(k);
        LocalTensor<float> rs = rowStatBuf_.Get<float>()[k * (p_.rowStatBytes / sizeof(float))];
        const uint32_t pf = PairFloats(statRows_);
        rowMax_ = rs;
        rowScale_ = rs[pf];
        scaleBlocks_ = rs[aqo_dq_layout::kRowStatPairsSymmetric * pf];
        // the clamped maxima after the row statistics (aqo_dq_layout::PipelinedRowStatFloats)
        rowClamped_ = rs[static_cast<uint32_t>(aqo_dq_layout::RowStatFloats(statRows_, false))]
                          .template ReinterpretCast<int32_t>();
    }

    // The same for the asymmetric modes (pipelined): the set's acc holds the signed maxima then the minima (64 lanes
    // a row each), its row stats the pair vectors hi, lo, scale, the temporary (range, then the quotient of the
    // offset), offset and a spare (the plan's RowStatBytes: six pair vectors), then the scale and offset blocks.
    __aicore__ inline void SelectAsymStatSet(uint32_t k)
    {
        work_ = WorkSet(k);
        accMax_ = AccSet(k).template ReinterpretCast<float>();
        accMin_ = accMax_[statRows_ * kAccLanes];
        LocalTensor<float> rs = rowStatBuf_.Get<float>()[k * (p_.rowStatBytes / sizeof(float))];
        const uint32_t pf = PairFloats(statRows_);
        rowHi_ = rs;
        rowLo_ = rs[pf];
        rowScale_ = rs[2 * pf];
        rowTmp_ = rs[3 * pf];
        rowOffset_ = rs[4 * pf];
        rowMax_ = rs[5 * pf];
        scaleBlocks_ = rs[aqo_dq_layout::kRowStatPairsAsymmetric * pf];
        offsetBlocks_ = scaleBlocks_[kBlockFloats * statRows_];
    }

    __aicore__ inline LocalTensor<float> WorkSet(uint32_t k)
    {
        return workBuf_.Get<float>()[k * (p_.workBytes / sizeof(float))];
    }
    __aicore__ inline LocalTensor<int32_t> AccSet(uint32_t k)
    {
        return accBuf_.Get<int32_t>()[k * (p_.accBytes / sizeof(int32_t))];
    }

    // ----- once per launch -----
    __aicore__ inline void InitConstants()
    {
        Duplicate(magnitudeMask_, kMagnitudeMask, static_cast<int32_t>(kBlockFloats));
        Duplicate(infBlock_, kInfBits, static_cast<int32_t>(kBlockFloats));
        Duplicate(exponentMask_, static_cast<int16_t>(0x7C00), static_cast<int32_t>(2 * kBlockFloats));
        Duplicate(signMask_, static_cast<int32_t>(0x80000000u), static_cast<int32_t>(kBlockFloats));
        Duplicate(finiteBlock_, static_cast<int32_t>(0xFF7FFFFFu), static_cast<int32_t>(kBlockFloats));
        const int32_t pf = static_cast<int32_t>(PairFloats(statRows_));
        Duplicate(dmaxVec_, p_.dmax, pf);
        if (p_.asymmetric != kSymmetric) {
            Duplicate(rangeVec_, p_.quantRange, pf);
        }
        if (kSocSaturationMode || p_.asymmetric == kAsymZeroPoint) {
            // int32 -> half is the deq conversion (src x deq scale): exact for the integers of y (ascend310p's int8
            // conversion, every SoC's zero-point conversion).
            SetDeqScale(static_cast<half>(1.0f));
        }
        PipeBarrier<PIPE_V>();  // the constants are read by the first group's instructions
    }

    // The smooth row as float32, once per launch: staged in an x slot (which holds a whole row), sanitized there on a
    // saturation-mode SoC (see SanitizeHalf), converted into smooth_f32. In two halves when the caller issues other
    // loads between them (the copy-in, then the conversion: the x queue is first in, first out).
    __aicore__ inline void LoadSmoothF32()
    {
        LoadSmoothF32(false);
        LoadSmoothF32(true);
    }

    __aicore__ inline void LoadSmoothF32(bool convert)
    {
        smooth_ = smoothBuf_.Get<float>();
        if (!convert) {
            LocalTensor<XT> staged = xQue_.template AllocTensor<XT>();
            CopyRowsIn(staged, smoothGm_, 1, p_.cols, p_.colsPad);
            xQue_.EnQue(staged);
            return;
        }
        LocalTensor<XT> stage = xQue_.template DeQue<XT>();
        if constexpr (kSocSaturationMode) {
            // the scalar unit may rewrite the staged row: it reads the DMA's bytes
            WaitPipe<HardEvent::MTE2_S>();
            // in pieces of at most one chunk: tmp_ (SanitizeHalf's scratch) is sized for one chunk when rows are
            // computed in chunks
            const uint32_t piece = p_.numChunks > 1 ? p_.chunk : p_.cols;
            for (uint32_t off = 0; off < p_.cols; off += piece) {
                SanitizeHalf(stage[off], p_.cols - off < piece ? p_.cols - off : piece);
            }
        }
        if (p_.cols != 0) {  // H = 0: what a count-form instruction does with a count of 0 is not documented
            Cast(smooth_, stage, RoundMode::CAST_NONE, p_.cols);
        }
        xQue_.FreeTensor(stage);
        PipeBarrier<PIPE_V>();  // smooth_f32 is read by the first group's instructions
    }

    // ----- level-0 helpers: a contiguous run of `count` elements as full iterations and a masked tail -----

    // dst[i] = src0[i] & block[i % 16] (uint16 lanes): the magnitude bits of float32 values (block: 0x7FFFFFFF).
    __aicore__ inline void AndBlock16(const LocalTensor<uint16_t>& dst, const LocalTensor<uint16_t>& src,
                                      const LocalTensor<uint16_t>& block, uint32_t count)
    {
        constexpr uint32_t per = 128;
        uint32_t off = 0;
        while (count - off >= per) {
            uint32_t reps = (count - off) / per;
            reps = reps > kMaxRepeats ? kMaxRepeats : reps;
            And(dst[off], src[off], block, per, static_cast<uint8_t>(reps), {1, 1, 0, 8, 8, 0});
            off += reps * per;
        }
        if (off < count) {
            And(dst[off], src[off], block, count - off, 1, {1, 1, 0, 8, 8, 0});
        }
    }

    // dst[i] = src0[i] | block[i % 16] (uint16 lanes): the sign bit set on float32 values (block: 0x80000000).
    __aicore__ inline void OrBlock16(const LocalTensor<uint16_t>& dst, const LocalTensor<uint16_t>& src,
                                     const LocalTensor<uint16_t>& block, uint32_t count)
    {
        constexpr uint32_t per = 128;
        uint32_t off = 0;
        while (count - off >= per) {
            uint32_t reps = (count - off) / per;
            reps = reps > kMaxRepeats ? kMaxRepeats : reps;
            Or(dst[off], src[off], block, per, static_cast<uint8_t>(reps), {1, 1, 0, 8, 8, 0});
            off += reps * per;
        }
        if (off < count) {
            Or(dst[off], src[off], block, count - off, 1, {1, 1, 0, 8, 8, 0});
        }
    }

    // dst[i] = src0[i] & src1[i] (uint16 lanes, contiguous).
    __aicore__ inline void And16(const LocalTensor<uint16_t>& dst, const LocalTensor<uint16_t>& src0,
                                 const LocalTensor<uint16_t>& src1, uint32_t count)
    {
        constexpr uint32_t per = 128;
        uint32_t off = 0;
        while (count - off >= per) {
            uint32_t reps = (count - off) / per;
            reps = reps > kMaxRepeats ? kMaxRepeats : reps;
            And(dst[off], src0[off], src1[off], per, static_cast<uint8_t>(reps), {1, 1, 1, 8, 8, 8});
            off += reps * per;
        }
        if (off < count) {
            And(dst[off], src0[off], src1[off], count - off, 1, {1, 1, 1, 8, 8, 8});
        }
    }

    // dst[i] = src0[i] | src1[i] (uint16 lanes, contiguous).
    __aicore__ inline void Or16(const LocalTensor<uint16_t>& dst, const LocalTensor<uint16_t>& src0,
                                const LocalTensor<uint16_t>& src1, uint32_t count)
    {
        constexpr uint32_t per = 128;
        uint32_t off = 0;
        while (count - off >= per) {
            uint32_t reps = (count - off) / per;
            reps = reps > kMaxRepeats ? kMaxRepeats : reps;
            Or(dst[off], src0[off], src1[off], per, static_cast<uint8_t>(reps), {1, 1, 1, 8, 8, 8});
            off += reps * per;
        }
        if (off < count) {
            Or(dst[off], src0[off], src1[off], count - off, 1, {1, 1, 1, 8, 8, 8});
        }
    }

    // dst[i] = min(src[i], block[0]) (int32 lanes): magnitude bits with NaN clamped to the Inf pattern.
    __aicore__ inline void MinBlock32(const LocalTensor<int32_t>& dst, const LocalTensor<int32_t>& src,
                                      const LocalTensor<int32_t>& block, uint32_t count)
    {
        uint32_t off = 0;
        while (count - off >= kRepFloats) {
            uint32_t reps = (count - off) / kRepFloats;
            reps = reps > kMaxRepeats ? kMaxRepeats : reps;
            Min(dst[off], src[off], block, kRepFloats, static_cast<uint8_t>(reps), {1, 1, 0, 8, 8, 0});
            off += reps * kRepFloats;
        }
        if (off < count) {
            Min(dst[off], src[off], block, count - off, 1, {1, 1, 0, 8, 8, 0});
        }
    }

    // dst[i] = src[i] / block[0]: a row divided by its scale (block: 8 copies of the scale).
    __aicore__ inline void DivBlock(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                    const LocalTensor<float>& block, uint32_t count)
    {
        uint32_t off = 0;
        while (count - off >= kRepFloats) {
            uint32_t reps = (count - off) / kRepFloats;
            reps = reps > kMaxRepeats ? kMaxRepeats : reps;
            Div(dst[off], src[off], block, kRepFloats, static_cast<uint8_t>(reps), {1, 1, 0, 8, 8, 0});
            off += reps * kRepFloats;
        }
        if (off < count) {
            Div(dst[off], src[off], block, count - off, 1, {1, 1, 0, 8, 8, 0});
        }
    }

    // dst[i] = src[i] + block[0]: a row plus its offset (float32), or its zero point (int32 or half).
    template <typename T>
    __aicore__ inline void AddBlock(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& block,
                                    uint32_t count)
    {
        constexpr uint32_t per = 256 / sizeof(T);
        uint32_t off = 0;
        while (count - off >= per) {
            uint32_t reps = (count - off) / per;
            reps = reps > kMaxRepeats ? kMaxRepeats : reps;
            Add(dst[off], src[off], block, per, static_cast<uint8_t>(reps), {1, 1, 0, 8, 8, 0});
            off += reps * per;
        }
        if (off < count) {
            Add(dst[off], src[off], block, count - off, 1, {1, 1, 0, 8, 8, 0});
        }
    }

    // The number of level-0 instructions AccumulateSegment needs for `count` elements (full iterations in pieces of
    // at most 255, then a masked tail).
    __aicore__ inline uint32_t Segments(uint32_t count) const
    {
        const uint32_t full = count / kAccLanes;
        return (full + kMaxRepeats - 1) / kMaxRepeats + (count % kAccLanes != 0 ? 1 : 0);
    }

    // Instruction `seg` of the accumulation of `count` values into the 64 lanes of `acc` (every instruction reads
    // and writes acc: consecutive segments of one accumulator need a PipeBarrier between them).
    template <typename T>
    __aicore__ inline void AccumulateSegment(bool isMax, const LocalTensor<T>& acc, const LocalTensor<T>& src,
                                             uint32_t count, uint32_t seg)
    {
        const uint32_t full = count / kAccLanes;
        const uint32_t fullSegs = (full + kMaxRepeats - 1) / kMaxRepeats;
        uint32_t off;
        uint32_t reps;
        uint32_t mask;
        if (seg < fullSegs) {
            off = seg * kMaxRepeats * kAccLanes;
            reps = full - seg * kMaxRepeats;
            reps = reps > kMaxRepeats ? kMaxRepeats : reps;
            mask = kAccLanes;
        } else {
            off = full * kAccLanes;
            reps = 1;
            mask = count - off;
        }
        // The documented accumulation: dst is src1 with repeat stride 0, so iteration r reads what r - 1 wrote.
        if (isMax) {
            Max(acc, src[off], acc, mask, static_cast<uint8_t>(reps), {1, 1, 1, 0, 8, 0});
        } else {
            Min(acc, src[off], acc, mask, static_cast<uint8_t>(reps), {1, 1, 1, 0, 8, 0});
        }
    }

    // ----- statistics -----

    // work[0, count) = fp32(x) [* smooth[smoothOff...]] for `rows` rows of stride colsPad (count = rows x colsPad,
    // or one chunk when rows == 1); the smooth multiply is per row (the smooth row repeats).
    __aicore__ inline void LoadV(const LocalTensor<float>& dst, const LocalTensor<XT>& src, uint32_t rows,
                                 uint32_t count, const LocalTensor<float>& smooth, uint32_t len)
    {
        if (count == 0) {
            return;  // H = 0: what a count-form instruction does with a count of 0 is not documented
        }
        Cast(dst, src, RoundMode::CAST_NONE, count);
        if (p_.hasSmooth != 0) {
            PipeBarrier<PIPE_V>();
            for (uint32_t i = 0; i < rows; ++i) {
                Mul(dst[i * p_.colsPad], dst[i * p_.colsPad], smooth, len);
            }
        }
    }

    // tmp[0, count) = the magnitude bits of work[0, count).
    __aicore__ inline void MagnitudeBits(const LocalTensor<float>& src, const LocalTensor<float>& dst, uint32_t count)
    {
        AndBlock16(dst.template ReinterpretCast<uint16_t>(), src.template ReinterpretCast<uint16_t>(),
                   magnitudeMask_.template ReinterpretCast<uint16_t>(), 2 * count);
    }

    // After the accumulation of n rows: clamp to the Inf pattern (no NaN left), reduce each row's 64 lanes, divide
    // by dmax. rowMax_[2 i] is row i's max|v| (Inf for a non-finite row), rowScale_[2 i] its scale.
    __aicore__ inline void RowScales(uint32_t n)
    {
        RowMaxima(n);
        PipeBarrier<PIPE_V>();
        // The index lanes of the pairs are divided too (tiny integers' bit patterns: harmless, never read).
        Div(rowScale_, rowMax_, dmaxVec_, static_cast<int32_t>(2 * n));
    }

    // rowMax_[2 i] = row i's max|v| (Inf for a non-finite row).
    __aicore__ inline void RowMaxima(uint32_t n)
    {
        PipeBarrier<PIPE_V>();
        Min(accClamped_, acc_, infBlock_, kAccLanes, static_cast<uint8_t>(n), {1, 1, 0, 8, 8, 0});
        PipeBarrier<PIPE_V>();
        WholeReduceMax(rowMax_, accClamped_.template ReinterpretCast<float>(), static_cast<int32_t>(kAccLanes),
                       static_cast<int32_t>(n), 1, 1, 8, ReduceOrder::ORDER_VALUE_INDEX);
    }

    // rowHi_[2 i], rowLo_[2 i] = row i's signed maximum and minimum (accMax_ / accMin_ lanes).
    __aicore__ inline void RowHiLo(uint32_t n)
    {
        PipeBarrier<PIPE_V>();
        WholeReduceMax(rowHi_, accMax_, static_cast<int32_t>(kAccLanes), static_cast<int32_t>(n), 1, 1, 8,
                       ReduceOrder::ORDER_VALUE_INDEX);
        WholeReduceMin(rowLo_, accMin_, static_cast<int32_t>(kAccLanes), static_cast<int32_t>(n), 1, 1, 8,
                       ReduceOrder::ORDER_VALUE_INDEX);
    }

    // Every lane of the signed accumulators at the identities of max / min (finite, so saturation mode reads them
    // as they are).
    __aicore__ inline void ResetHiLo(uint32_t n)
    {
        Duplicate(accMax_, -3.40282347e38f, static_cast<int32_t>(n * kAccLanes));
        Duplicate(accMin_, 3.40282347e38f, static_cast<int32_t>(n * kAccLanes));
    }

    // v of `count` values with NaN replaced by +-Inf (the sign kept), from v and its magnitude bits (mag): the
    // magnitudes are clamped to the Inf pattern first, then the sign bits are put back. The result is safe for the
    // float max / min accumulation; a row that held NaN or Inf takes the fallback whatever it gives.
    __aicore__ inline void SignedNaNFree(const LocalTensor<float>& v, const LocalTensor<float>& mag, uint32_t count)
    {
        LocalTensor<int32_t> magI = mag.template ReinterpretCast<int32_t>();
        MinBlock32(magI, magI, infBlock_, count);
        AndBlock16(v.template ReinterpretCast<uint16_t>(), v.template ReinterpretCast<uint16_t>(),
                   signMask_.template ReinterpretCast<uint16_t>(), 2 * count);
        PipeBarrier<PIPE_V>();
        Or16(v.template ReinterpretCast<uint16_t>(), v.template ReinterpretCast<uint16_t>(),
             mag.template ReinterpretCast<uint16_t>(), 2 * count);
    }

    // A NaN- and Inf-free copy of `count` values of v for the signed maximum and minimum, in three steps (a
    // PipeBarrier<PIPE_V> between them), into dst (float32-sized, apart from v):
    //   0: dst = v | sign bit, as int32 the negative number INT_MIN + |v|'s bits;
    //   1: dst = min(dst, 0xFF7FFFFF) (int32): the magnitude bits clamped to float32 max's, NaN and Inf included;
    //   2: dst = v & dst: v where it is finite; NaN and +-Inf lose the exponent's lowest bit and become finite values
    //      of magnitude at least 2^127 with v's sign.
    // So a row's signed maximum and minimum of dst are v's when v is finite and below 2^127 in magnitude, and at
    // least 2^127 in magnitude when it holds NaN or Inf (kSuspectMax separates the two), with no NaN for the float
    // max / min and no Inf - Inf in the parameters.
    __aicore__ inline void SignedFiniteStep(uint32_t step, const LocalTensor<float>& dst, const LocalTensor<float>& v,
                                            uint32_t count)
    {
        LocalTensor<uint16_t> d16 = dst.template ReinterpretCast<uint16_t>();
        if (step == 0) {
            OrBlock16(d16, v.template ReinterpretCast<uint16_t>(), signMask_.template ReinterpretCast<uint16_t>(),
                      2 * count);
        } else if (step == 1) {
            LocalTensor<int32_t> di = dst.template ReinterpretCast<int32_t>();
            MinBlock32(di, di, finiteBlock_, count);
        } else {
            And16(d16, v.template ReinterpretCast<uint16_t>(), d16, 2 * count);
        }
    }

    // ----- asymmetric parameters -----

    // A finite row's kind for the vector path from its signed maximum and minimum (the zero-point mode widens them
    // to contain 0 first, as its formula does).
    // (Comparisons and the range by the floats' bits: extremes may be subnormal, see F32Sub.)
    __aicore__ inline RowKind AsymKind(float& hi, float& lo) const
    {
        if (p_.asymmetric == kAsymZeroPoint) {
            hi = F32Less(0.0f, hi) ? hi : 0.0f;
            lo = F32Less(lo, 0.0f) ? lo : 0.0f;
        }
        if (F32OrderKey(hi) == F32OrderKey(lo)) {
            return RowKind::ZERO;  // a constant row: scale 0 (the golden's zero-scale rule)
        }
        if (AsymRangeBelowTiny(hi, lo)) {
            return RowKind::FALLBACK;
        }
        return RowKind::NORMAL;
    }

    // After the scalar unit wrote the compact vectors hi (rowMax_) and lo (rowTmp_) for n rows (and waited S -> V):
    // scale and offset on the vector unit, every step one float32 operation in the golden's order.
    //   float offset: scale = (hi - lo) / (qmax - qmin); offset = qmax - hi / scale (as -(hi / scale) + qmax)
    //   zero point:   scale = (hi - lo) / 255; zero point = round_half_even(min(-(lo / scale), 255))
    // (the zero point's lower clip changes nothing: -(lo / scale) is +-0 or more for lo <= 0 < scale).
    __aicore__ inline void AsymmetricParams(uint32_t n)
    {
        const int32_t cnt = static_cast<int32_t>(n);
        LocalTensor<float> hi = rowMax_;
        LocalTensor<float> lo = rowTmp_;
        PipeBarrier<PIPE_V>();
        Sub(rowHi_, hi, lo, cnt);
        PipeBarrier<PIPE_V>();
        Div(rowScale_, rowHi_, rangeVec_, cnt);
        PipeBarrier<PIPE_V>();
        if (p_.asymmetric == kAsymFloatOffset) {
            Div(rowHi_, hi, rowScale_, cnt);
            PipeBarrier<PIPE_V>();
            Muls(rowHi_, rowHi_, -1.0f, cnt);
            PipeBarrier<PIPE_V>();
            Adds(rowOffset_, rowHi_, p_.dmax, cnt);
        } else {
            LocalTensor<int32_t> zi = rowLo_.template ReinterpretCast<int32_t>();
            Div(rowHi_, lo, rowScale_, cnt);
            PipeBarrier<PIPE_V>();
            Muls(rowHi_, rowHi_, -1.0f, cnt);
            PipeBarrier<PIPE_V>();
            Mins(rowHi_, rowHi_, p_.clipHi, cnt);
            PipeBarrier<PIPE_V>();
            Cast(zi, rowHi_, RoundMode::CAST_RINT, cnt);
            PipeBarrier<PIPE_V>();
            Cast(rowOffset_, zi, kRoundInt32ToFloat, cnt);
        }
    }

    // The asymmetric vector path after q = v / scale (count elements in q), ob the row's offset block:
    //   float offset: q + offset, then the clip to [qmin, qmax] (int8 [-128, 127]; the float types +-dmax, the golden's
    //                 clip: their conversion's overflow behaviour depends on the 950's saturation control bits);
    //   zero point:   clip(round_half_even(q) + zero point, 0, 255), with q first clipped to +-256 (which changes no
    //                 result) so that the integer conversion never meets Inf.
    // scratch: float32-sized room beside q. The clip is left to AsymClip (over runs of rows).
    __aicore__ inline void AsymAddOffset(const LocalTensor<float>& q, const LocalTensor<float>& ob,
                                         const LocalTensor<float>& scratch, uint32_t count)
    {
        if (p_.asymmetric == kAsymFloatOffset) {
            AddBlock(q, q, ob, count);
            return;
        }
        LocalTensor<int32_t> qi = scratch.template ReinterpretCast<int32_t>();
        Maxs(q, q, -256.0f, count);
        PipeBarrier<PIPE_V>();
        Mins(q, q, 256.0f, count);
        PipeBarrier<PIPE_V>();
        Cast(qi, q, RoundMode::CAST_RINT, count);
        PipeBarrier<PIPE_V>();
        Cast(q, qi, kRoundInt32ToFloat, count);
        PipeBarrier<PIPE_V>();
        AddBlock(q, q, ob, count);
    }

    // The clip before the conversion: [clipLo, clipHi] (int8, uint8; the float types +-dmax, as the golden clips: the
    // rounding of v / scale + offset can pass dmax when the offset is large, and what the 950's conversion makes of
    // an overflow depends on its saturation control bits).
    __aicore__ inline void AsymClip(const LocalTensor<float>& q, uint32_t count)
    {
        Maxs(q, q, p_.clipLo, count);
        PipeBarrier<PIPE_V>();
        Mins(q, q, p_.clipHi, count);
    }

    // After the V -> S wait that follows RowHiLo: the kinds of n rows (NORMAL: finite, to be refined; ZERO;
    // FALLBACK) become final, the vector unit computes the NORMAL rows' scales and offsets (one Sub, two Div, ...
    // for the group), and the scalar unit stores them (NORMAL and ZERO rows; FALLBACK rows store their own) and
    // fills their broadcast blocks.
    // putAt: the group index of statistics row 0 (the stream mode computes one row's statistics at a time).
    __aicore__ inline void FinishAsym(uint32_t n, RowKind* kinds, const LocalTensor<float>& s,
                                      const LocalTensor<OT>& o, uint32_t putAt = 0)
    {
        for (uint32_t i = 0; i < n; ++i) {
            divPrep_[i] = kPrepNone;
            float hi = 1.0f;  // harmless values for the rows the vector path does not compute
            float lo = 0.0f;
            if (kinds[i] == RowKind::NORMAL) {
                hi = rowHi_.GetValue(2 * i);
                lo = rowLo_.GetValue(2 * i);
                kinds[i] = AsymKind(hi, lo);
                if (kinds[i] != RowKind::NORMAL) {
                    hi = 1.0f;
                    lo = 0.0f;
                }
            }
            rowMax_.SetValue(i, hi);
            rowTmp_.SetValue(i, lo);
        }
        WaitPipe<HardEvent::S_V>();
        AsymmetricParams(n);
        WaitPipe<HardEvent::V_S>();
        for (uint32_t i = 0; i < n; ++i) {
            if (kinds[i] == RowKind::ZERO) {
                scales_.Put(s, putAt + i, 0.0f);
                offsets_.Put(o, putAt + i, static_cast<OT>(0));
            } else if (kinds[i] == RowKind::NORMAL) {
                const float sc = rowScale_.GetValue(i);
                const float off = rowOffset_.GetValue(i);
                if (!(off - off == 0.0f)) {
                    kinds[i] = RowKind::FALLBACK;  // a non-finite offset: the golden's NaN / Inf rules, by the scalar
                    continue;
                }
                scales_.Put(s, putAt + i, sc);
                offsets_.Put(o, putAt + i, static_cast<OT>(off));
                Duplicate(scaleBlocks_[i * kBlockFloats], sc, static_cast<int32_t>(kBlockFloats));
                Duplicate(offsetBlocks_[i * kBlockFloats], AsymOffsetBlock(off, sc, i),
                          static_cast<int32_t>(kBlockFloats));
            }
        }
    }

    // A FALLBACK row's outputs once its statistics are scanned.
    __aicore__ inline void PutFallback(uint32_t i, FallbackRow& st, const LocalTensor<float>& s,
                                       const LocalTensor<OT>& o)
    {
        FallbackParams(st);
        scales_.Put(s, i, st.scale);
        offsets_.Put(o, i, static_cast<OT>(st.offset));
    }

    // ----- the scalar fallback of an asymmetric row (RowKind::FALLBACK), chunk by chunk -----

    // Statistics: `count` values of v (the vector unit wrote them: the caller has waited V -> S).
    __aicore__ inline void FallbackScan(const LocalTensor<float>& v, uint32_t count, FallbackRow& st)
    {
        for (uint32_t j = 0; j < count; ++j) {
            const float e = v.GetValue(j);
            if (F32IsNaN(e)) {
                st.nan = true;
            } else if (!st.any) {
                st.hi = e;
                st.lo = e;
                st.any = true;
            } else {  // (by the bits: two subnormal values are not equal, see F32Less)
                st.hi = F32Less(st.hi, e) ? e : st.hi;
                st.lo = F32Less(e, st.lo) ? e : st.lo;
            }
        }
    }

    // The row's parameters, in the golden's float32 operations (NaN and Inf as IEEE arithmetic gives them; the
    // divisions by DivideF32, the subtractions and the widening comparisons by F32Sub and F32Less: correctly rounded
    // and right on subnormal extremes whatever the scalar unit's own float arithmetic does. The zero point's
    // clamp and rounding stay float operations: zp is +0 or more, so a flushed subnormal gives the same y).
    __aicore__ inline void FallbackParams(FallbackRow& st)
    {
        const float nan = BitsToFloat(0x7FC00000u);
        float hi = st.nan ? nan : st.hi;
        float lo = st.nan ? nan : st.lo;
        if (p_.asymmetric == kAsymFloatOffset) {
            st.scale = DivideF32(F32Sub(hi, lo), p_.quantRange);
            st.offset = F32Sub(p_.dmax, DivideF32(hi, st.scale));
        } else {
            hi = st.nan ? nan : (F32Less(0.0f, hi) ? hi : 0.0f);
            lo = st.nan ? nan : (F32Less(lo, 0.0f) ? lo : 0.0f);
            st.scale = DivideF32(F32Sub(hi, lo), p_.quantRange);
            float zp = F32Sub(0.0f, DivideF32(lo, st.scale));
            if (zp != zp) {
                zp = 0.0f;
            }
            zp = zp < 0.0f ? 0.0f : (zp > p_.clipHi ? p_.clipHi : zp);
            st.offset = RoundHalfEven(zp);
        }
        st.zero = F32IsZero(st.scale);
        if (st.zero) {
            st.scale = 0.0f;
            st.offset = 0.0f;
        }
    }

    // y of `count` values of v: int8 / uint8 stored by the scalar unit; the float types clipped by it into v, then
    // converted by the vector unit, with the NaN code put where the quotient was NaN.
    __aicore__ inline void FallbackChunk(const LocalTensor<float>& v, const LocalTensor<YT>& y, uint32_t count,
                                         const FallbackRow& st)
    {
        for (uint32_t j = 0; j < count; ++j) {
            const float e = v.GetValue(j);
            float q;
            if (p_.asymmetric == kAsymFloatOffset) {
                q = st.zero ? 0.0f : DivideF32(e, st.scale) + st.offset;
            } else {
                q = st.zero ? 0.0f : DivideF32(e, st.scale);
                q = q != q ? 0.0f : RoundHalfEven(q < -256.0f ? -256.0f : (q > 256.0f ? 256.0f : q)) + st.offset;
            }
            if constexpr (Float8Out<YT>::kIsFloat) {
                if (q == q) {
                    q = q < p_.clipLo ? p_.clipLo : (q > p_.clipHi ? p_.clipHi : q);
                }
                v.SetValue(j, q);
            } else {
                q = q != q ? 0.0f : (q < p_.clipLo ? p_.clipLo : (q > p_.clipHi ? p_.clipHi : q));
                y.SetValue(j, static_cast<YT>(RoundHalfEven(q)));
            }
        }
        if constexpr (Float8Out<YT>::kIsFloat) {
            WaitPipe<HardEvent::S_V>();
            Float8Out<YT>::Cast(y, v, count);
            WaitPipe<HardEvent::V_S>();
            LocalTensor<uint8_t> yb = y.template ReinterpretCast<uint8_t>();
            for (uint32_t j = 0; j < count; ++j) {
                const float q = v.GetValue(j);
                if (q != q) {
                    yb.SetValue(j, static_cast<uint8_t>(p_.nanCode));
                }
            }
        }
        WaitPipe<HardEvent::S_V>();
    }

    // The scale output of a symmetric row of this kind.
    __aicore__ inline float ScaleOf(RowKind kind, float sc) const
    {
        if (kind == RowKind::NAN_ROW) {
            return BitsToFloat(0x7FC00000u);  // a row containing NaN has scale NaN
        }
        if (kind == RowKind::INF_ROW) {
            return BitsToFloat(0x7F800000u);  // a row containing +-Inf (no NaN) has scale +Inf
        }
        return kind == RowKind::ZERO ? 0.0f : sc;
    }

    // Symmetric rows below kTinyMax (see there): whether row maximum m is one; its scale (the scalar unit's m / dmax
    // for a tiny row, else the vector unit's sc); the divisor its values are divided by (lifted for a tiny row).
    __aicore__ inline bool TinyRow(float m) const { return F32PositiveBelow(m, kTinyMax); }

    __aicore__ inline float SymScale(float m, float sc) const { return TinyRow(m) ? DivideF32(m, p_.dmax) : sc; }

    __aicore__ inline float DivisorOf(float m, float sc) const
    {
        return TinyRow(m) ? F32TimesPow2(sc, kTinyLiftLog2) : sc;
    }

    // The offset an asymmetric row's broadcast block holds, and its division prep. A bfloat16 row's zero offset with
    // an e4m3fn / e5m2 y (frequent: hi == -lo) is held as -0 where that is exact: ascend910_95's Div flushes
    // subnormal quotients (its default algorithm; asc-devkit's Div page), returning a tiny negative quotient as -0,
    // and -0 + -0 keeps the golden's negative sign (-tiny + 0); the row's -0 values are made +0 first (the golden's
    // -0 / scale + 0 is +0); q + -0 is q otherwise. That needs no nonzero v whose quotient rounds to 0 (|v / scale|
    // <= 2^-150, where the golden's -0 + 0 is +0): v is at least 2^-133 (a bfloat16) or, with smooth scales, 2^-149,
    // so scale below 2^17 or 2. Above it the offset stays +0, and an element with 2^-150 x scale < |v| < 2^-126 x
    // scale (v = x times its smooth scale) gets y +0 where the golden's code is -0: the known limit, the sign of a
    // zero y only. The scalar unit would be exact, but only each element's magnitude tells those elements from the
    // ones the golden rounds to -0, and rows with a range exactly symmetric about 0 and such a scale (values of
    // 2^17 x dmax, or 2 x dmax with smooth scales: 896 for e4m3fn) are not rare where outlier values repeat: the
    // scalar unit takes some 80 times a row's vector time. float16 x needs none of this (its quotients never get
    // near the subnormal range).
    __aicore__ inline float AsymOffsetBlock(float off, float scale, uint32_t i)
    {
        constexpr bool kCandidate = Float8Out<YT>::kSignedZero;
        const float bound = p_.hasSmooth != 0 ? 2.0f : 131072.0f;
        const bool zero = kCandidate && p_.xDtype == kDTypeBFloat16 && p_.asymmetric == kAsymFloatOffset &&
                          off == 0.0f && scale < bound;
        divPrep_[i] = zero ? kPrepPositiveZero : kPrepNone;
        return zero ? -0.0f : off;
    }

    // Row i's values before the division (count elements), as divPrep_[i] says; the caller orders it against their
    // writer and the division after it (PipeBarrier<PIPE_V> on both sides).
    __aicore__ inline void PrepareForDivision(const LocalTensor<float>& v, uint32_t count, uint32_t i)
    {
        if (divPrep_[i] == kPrepLift) {
            Muls(v, v, kTinyLift, static_cast<int32_t>(count));
        } else if (divPrep_[i] == kPrepPositiveZero) {
            Adds(v, v, 0.0f, static_cast<int32_t>(count));
        }
    }

    // A row's kind from its maximum and scale (read by the scalar unit after the V -> S wait).
    __aicore__ inline RowKind Classify(uint32_t i, float m, float sc)
    {
        if (!(m <= p_.finiteMax)) {
            if constexpr (kSocSaturationMode) {
                return RowKind::RECHECK;  // Inf / NaN in x (or at the saturation bound): sanitize, then again
            }
            return RawRowHasNaN(i) ? RowKind::NAN_ROW : RowKind::INF_ROW;
        }
        if (F32IsZero(sc)) {  // (by its bits: a subnormal scale is not 0)
            return RowKind::ZERO;  // every element 0, or m / dmax underflowed: y = 0, scale 0 (the golden's rule)
        }
        return RowKind::NORMAL;
    }

    // The unclamped accumulator of a non-finite row: NaN's magnitude bits are above the Inf pattern.
    __aicore__ inline bool RawRowHasNaN(uint32_t i)
    {
        for (uint32_t j = 0; j < kAccLanes; ++j) {
            if (acc_.GetValue(i * kAccLanes + j) > kInfBits) {
                return true;
            }
        }
        return false;
    }

    // ----- quantize -----

    // y = dst rounding of the float32 q in work (count elements): int8 round half to even with the conversions the
    // SoC accepts (docs/references.md#cast-round-modes):
    //   910b / 950: float -> half rounding to odd, then half -> int8 RINT. |q| <= 128 (the callers clip or the
    //               row's range bounds it), where half keeps at least 4 fraction bits, so rounding to odd first and
    //               to even after gives the float's own round half to even (the odd last bit records inexactness).
    //   310p:       float -> int32 RINT in place (q's own bytes: the same width, a complete overlap), int32 -> half
    //               (the deq conversion, exact for these integers) into the scratch, half -> int8.
    // uint8 the same into the unsigned type; float8 / hifloat8 one saturating conversion.
    // scratch: float32-sized room beside q (tmp_ at q's offset), for the intermediate conversions: the half values
    // (the last step reads them from there; q is free from the last step on).
    static constexpr uint32_t kCastOutSteps = Float8Out<YT>::kIsFloat ? 1u : (kSocSaturationMode ? 3u : 2u);

    __aicore__ inline void CastOut(const LocalTensor<YT>& y, const LocalTensor<float>& q, const LocalTensor<float>& scratch,
                                   uint32_t count)
    {
        for (uint32_t k = 0; k < kCastOutSteps; ++k) {
            if (k != 0) {
                PipeBarrier<PIPE_V>();
            }
            CastOutStep(k, y, q, scratch, count);
        }
    }

    // Conversion k of CastOut (the caller puts a PipeBarrier<PIPE_V> between consecutive steps).
    __aicore__ inline void CastOutStep(uint32_t k, const LocalTensor<YT>& y, const LocalTensor<float>& q,
                                       const LocalTensor<float>& scratch, uint32_t count)
    {
        if constexpr (Float8Out<YT>::kIsFloat) {
            Float8Out<YT>::Cast(y, q, count);
        } else {
            LocalTensor<half> h = scratch.template ReinterpretCast<half>();
            if constexpr (kSocSaturationMode) {
                LocalTensor<int32_t> qi = q.template ReinterpretCast<int32_t>();
                if (k == 0) {
                    Cast(qi, q, RoundMode::CAST_RINT, count);
                } else if (k == 1) {
                    Cast(h, qi, RoundMode::CAST_NONE, count);
                } else {
                    Cast(y, h, RoundMode::CAST_NONE, count);
                }
            } else {
                if (k == 0) {
                    Cast(h, q, RoundMode::CAST_ODD, count);
                } else {
                    Cast(y, h, RoundMode::CAST_RINT, count);
                }
            }
        }
    }

    // Fills count bytes of y (rounded up to the 32-byte granule, which the plan's buffers always have) with a byte.
    __aicore__ inline void FillBytes(const LocalTensor<YT>& y, uint32_t count, uint32_t byte)
    {
        if (count == 0) {
            return;  // H = 0 (see LoadV)
        }
        LocalTensor<int16_t> y16 = y.template ReinterpretCast<int16_t>();
        int16_t v = static_cast<int16_t>((byte & 0xFFu) | ((byte & 0xFFu) << 8));
        Duplicate(y16, v, static_cast<int32_t>(AlignUp32(count) / 2));
    }

    // y of a symmetric special row's chunk (v in `v`, count elements): a zero row is 0; a NaN row is NaN (0 in
    // int8, the NaN code in the float types); an Inf row's finite elements are finite / Inf = 0 with v's sign
    // (float8 keeps -0) and its infinite ones Inf / Inf = NaN. The float Inf case is made on the vector unit from
    // clip(v) * 0 (the clip keeps Inf out of the multiply), then the scalar unit puts the NaN code where v is Inf.
    __aicore__ inline void SpecialChunk(const LocalTensor<YT>& y, const LocalTensor<float>& v, uint32_t count,
                                        RowKind kind)
    {
        const bool elementwise = kind == RowKind::INF_ROW && Float8Out<YT>::kIsFloat;
        if (!elementwise) {
            const uint32_t code = (kind == RowKind::NAN_ROW && Float8Out<YT>::kIsFloat) ? p_.nanCode : 0u;
            FillBytes(y, count, code);
            return;
        }
        LocalTensor<float> t = tmp_;
        PipeBarrier<PIPE_V>();
        Maxs(t, v, -p_.dmax, count);
        PipeBarrier<PIPE_V>();
        Mins(t, t, p_.dmax, count);
        PipeBarrier<PIPE_V>();
        Muls(t, t, 0.0f, count);
        PipeBarrier<PIPE_V>();
        Float8Out<YT>::Cast(y, t, count);
        WaitPipe<HardEvent::V_S>();
        LocalTensor<uint8_t> yb = y.template ReinterpretCast<uint8_t>();
        for (uint32_t j = 0; j < count; ++j) {
            float e = v.GetValue(j);
            if (e - e != 0.0f) {
                yb.SetValue(j, static_cast<uint8_t>(p_.nanCode));
            }
        }
        WaitPipe<HardEvent::S_V>();
    }

    // ascend310p: how its float16 -> float32 Cast converts +-Inf and NaN in saturation mode is not documented, and
    // saturation hides them from arithmetic. So they are found from the float16 bits and replaced in src itself,
    // before any conversion: +-Inf by +-p_.satMax (the float16 max, through the tiling), NaN by 0 (docs/design.md).
    // The vector unit isolates the exponent fields (a level-0 And with a block of 0x7C00) and takes their maximum
    // (read as float16 they are finite or +Inf, never NaN; +Inf reads as 65504 in saturation mode, above any
    // finite field's 32768); only when some field is all ones does the scalar unit rewrite those elements. Used on
    // rows whose maximum reached the saturation bound, and on the smooth row once. tmp_ holds the exponent fields,
    // the reduction's work area and its result.
    __aicore__ inline void SanitizeHalf(const LocalTensor<XT>& src, uint32_t count)
    {
        LocalTensor<uint16_t> bits = src.template ReinterpretCast<uint16_t>();
        LocalTensor<half> th = tmp_.template ReinterpretCast<half>();
        const uint32_t workAt = (count + 15) / 16 * 16;
        const uint32_t workHalves = ((count + 127) / 128 * 2 + 15) / 16 * 16;
        LocalTensor<half> top = th[workAt + workHalves];
        PipeBarrier<PIPE_V>();  // tmp_ may still be read by earlier vector instructions
        AndBlock16(th.template ReinterpretCast<uint16_t>(), bits, exponentMask_.template ReinterpretCast<uint16_t>(),
                   count);
        PipeBarrier<PIPE_V>();
        ReduceMax(top, th, th[workAt], static_cast<int32_t>(count), false);
        WaitPipe<HardEvent::V_S>();
        if (static_cast<float>(top.GetValue(0)) <= 32768.0f) {
            return;
        }
        LocalTensor<uint16_t> expo = th.template ReinterpretCast<uint16_t>();
        for (uint32_t j = 0; j < count; ++j) {
            if (expo.GetValue(j) != 0x7C00u) {
                continue;
            }
            const uint16_t b = bits.GetValue(j);
            const float v = (b & 0x03FFu) != 0 ? 0.0f : ((b & 0x8000u) != 0 ? -p_.satMax : p_.satMax);
            src.SetValue(j, static_cast<XT>(v));
        }
        WaitPipe<HardEvent::S_V>();
    }

    // ----- data movement: the only place that differs between SoCs with and without DataCopyPad -----

    // n rows of `len` elements from GM (row stride p_.cols) into UB rows of stride ubStride elements.
    template <typename T>
    __aicore__ inline void CopyRowsIn(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t n, uint32_t len,
                                      uint32_t ubStride)
    {
        if (len == 0) {
            return;  // H = 0: rows without elements (zero rows: scale 0, nothing to copy)
        }
#if AQO_SOC_HAS_DATACOPYPAD
        uint32_t padded = AlignUp32(len * sizeof(T));
        DataCopyExtParams prm(static_cast<uint16_t>(n), len * static_cast<uint32_t>(sizeof(T)),
                              (p_.cols - len) * static_cast<uint32_t>(sizeof(T)),
                              n == 1 ? 0u : (ubStride * static_cast<uint32_t>(sizeof(T)) - padded) / kBlockBytes, 0);
        DataCopyPadExtParams<T> pad(false, 0, 0, 0);
        DataCopyPad(dst, src, prm, pad);
#else
        // ascend310p: the plan only admits rows whose bytes are 32-byte multiples (tail % 32 == 0) and chunks of
        // 64-element multiples, so rows are contiguous in UB (ubStride == len when n > 1).
        if (n == 1 || len == p_.cols) {
            DataCopy(dst, src, n * len);
        } else {
            DataCopyParams prm(static_cast<uint16_t>(n), static_cast<uint16_t>(len * sizeof(T) / kBlockBytes),
                               static_cast<uint16_t>((p_.cols - len) * sizeof(T) / kBlockBytes),
                               static_cast<uint16_t>((ubStride - len) * sizeof(T) / kBlockBytes));
            DataCopy(dst, src, prm);
        }
#endif
    }

    // n rows of len elements from UB (row stride p_.colsPad, or n == 1) to GM rows of stride p_.cols.
    __aicore__ inline void CopyRowsOut(const GlobalTensor<YT>& dst, const LocalTensor<YT>& src, uint32_t n,
                                       uint32_t len)
    {
        if (len == 0) {
            return;
        }
#if AQO_SOC_HAS_DATACOPYPAD
        uint32_t padded = AlignUp32(len * sizeof(YT));
        DataCopyExtParams prm(static_cast<uint16_t>(n), len * static_cast<uint32_t>(sizeof(YT)),
                              n == 1 ? 0u : (p_.colsPad * static_cast<uint32_t>(sizeof(YT)) - padded) / kBlockBytes,
                              (p_.cols - len) * static_cast<uint32_t>(sizeof(YT)), 0);
        DataCopyPad(dst, src, prm);
#else
        DataCopy(dst, src, n * len);  // 310p: n > 1 only with len == cols == colsPad (32-byte multiple rows)
#endif
    }

    template <HardEvent E>
    __aicore__ inline void WaitPipe()
    {
        aqo_kernel::WaitPipe<E>(pipe_);
    }

    TD p_;
    TPipe* pipe_ = nullptr;
    uint32_t statRows_ = 1;
    uint64_t rowBegin_ = 0;
    uint64_t rowEnd_ = 0;
    GlobalTensor<XT> xGm_;
    GlobalTensor<XT> smoothGm_;
    GlobalTensor<YT> yGm_;
    GlobalTensor<float> scaleGm_;
    GlobalTensor<OT> offsetGm_;
    BlockStore<float> scales_;
    BlockStore<OT> offsets_;
    TQue<QuePosition::VECIN, kMaxXSlots> xQue_;
    TQue<QuePosition::VECOUT, 2> yQue_;
    TQue<QuePosition::VECOUT, 2> scaleQue_;
    TQue<QuePosition::VECOUT, 2> offsetQue_;
    TBuf<TPosition::VECCALC> smoothBuf_;
    TBuf<TPosition::VECCALC> workBuf_;
    TBuf<TPosition::VECCALC> tmpBuf_;
    TBuf<TPosition::VECCALC> accBuf_;
    TBuf<TPosition::VECCALC> rowStatBuf_;
    TBuf<TPosition::VECCALC> constBuf_;
    LocalTensor<float> smooth_;
    LocalTensor<float> work_;
    LocalTensor<float> tmp_;
    LocalTensor<int32_t> acc_;
    LocalTensor<int32_t> accClamped_;
    LocalTensor<int32_t> rowClamped_;
    LocalTensor<float> accMax_;
    LocalTensor<float> accMin_;
    LocalTensor<float> rowMax_;
    LocalTensor<float> rowScale_;
    LocalTensor<float> rowHi_;
    LocalTensor<float> rowLo_;
    LocalTensor<float> rowOffset_;
    LocalTensor<float> rowTmp_;
    LocalTensor<float> scaleBlocks_;
    LocalTensor<float> offsetBlocks_;
    LocalTensor<int32_t> magnitudeMask_;
    LocalTensor<int32_t> infBlock_;
    LocalTensor<int16_t> exponentMask_;
    LocalTensor<int32_t> signMask_;
    LocalTensor<int32_t> finiteBlock_;
    LocalTensor<float> dmaxVec_;
    LocalTensor<float> rangeVec_;
    // Per row of the group being computed: what its values need before the division (PrepareForDivision).
    uint8_t divPrep_[kMaxRepeats] = {};
};

}  // namespace aqo_dq

#endif  // AQO_DYNAMIC_QUANT_COMMON_H
