// What the stage headers of the quantized matmuls share (aqo_qmm_zero_point.h, aqo_qmm_cube_stage.h,
// aqo_qmm_*_epilogue.h, aqo_qmm_copy_out.h): the tiling's codes and a GM -> UB byte copy that works with and without
// DataCopyPad. Included by the kernels' entry files inside their namespace, after aqo_kernel_common.h (no include
// guard: see aqo_kernel_common.h).
#ifndef AQO_QMM_LAYOUT_FN
#define AQO_QMM_LAYOUT_FN __aicore__ inline
#endif
#include "aqo_qmm_layout.h"

// Operand codes of the tiling (aqo::QmmOperandCode; the emulator runners static_assert that they agree).
constexpr uint32_t kQmmCodeInt8 = 0;
constexpr uint32_t kQmmCodeUInt8 = 1;
constexpr uint32_t kQmmCodeFloat8E4M3FN = 2;
constexpr uint32_t kQmmCodeFloat8E5M2 = 3;
// Parameter layouts (aqo::QmmParamKind): absent, per tensor, per row of a / per column of b.
constexpr uint32_t kQmmParamNone = 0;
constexpr uint32_t kQmmParamTensor = 1;
constexpr uint32_t kQmmParamVector = 2;

__aicore__ inline uint32_t QmmMin(uint32_t a, uint32_t b) { return a < b ? a : b; }

// Level-0 vector forms: bytes of one repeat, repeats of one instruction at most (repeatTimes is a uint8_t).
constexpr uint32_t kQmmVecRepeatBytes = 256;
constexpr uint32_t kQmmMaxRepeat = 255;
// The zero-point correction's row terms of one row (aqo_qmm_layout.h; written by the cube stage's preparation, read
// by QmmZeroPoints::Correct).
constexpr uint32_t kQmmRowTermInts = aqo_qmm_layout::kRowTermInts;

// Copies src[off, off + len) into dst[0, len) and makes dst[len, AlignUp32(len)) defined (zeros or real bytes).
// srcBytes: the tensor's size (without DataCopyPad the copy is whole 32-byte blocks; past the tensor's end the last
// bytes come through the scalar unit).
template <class T>
__aicore__ inline void QmmCopyBytesIn(const LocalTensor<T>& dstT, const GlobalTensor<T>& srcT, uint64_t off,
                                      uint32_t len, uint64_t srcElems)
{
    const uint32_t padded = AlignUp32(len * static_cast<uint32_t>(sizeof(T))) / static_cast<uint32_t>(sizeof(T));
#if AQO_SOC_HAS_DATACOPYPAD
    DataCopyExtParams prm(1, len * static_cast<uint32_t>(sizeof(T)), 0, 0, 0);
    DataCopyPadExtParams<T> pad(true, 0, static_cast<uint8_t>(padded - len), static_cast<T>(0));
    DataCopyPad(dstT, srcT[off], prm, pad);
    (void)srcElems;
#else
    if (off + padded <= srcElems) {
        DataCopy(dstT, srcT[off], padded);  // the few elements past len belong to the same tensor
        return;
    }
    const uint32_t perBlock = kBlockBytes / static_cast<uint32_t>(sizeof(T));
    const uint32_t body = len / perBlock * perBlock;
    if (body != 0) {
        DataCopy(dstT, srcT[off], body);
    }
    PipeBarrier<PIPE_ALL>();
    for (uint32_t j = body; j < padded; ++j) {
        dstT.SetValue(j, j < len ? srcT.GetValue(off + j) : static_cast<T>(0));
    }
    PipeBarrier<PIPE_ALL>();
#endif
}

// Row 0 of `pattern` (`stride` floats) replicated over rows 1 .. rows - 1, doubling the rows done. Muls by 1 copies
// every float exactly (a NaN may come back as the unit's NaN: the products it meets are NaN either way), on the vector
// pipe by definition: a UB -> UB DataCopy would run on the
// vector pipe by the API pages but on MTE3 by the C-API overview, and its ordering against the vector work around it
// would depend on which.
__aicore__ inline void QmmReplicateRow(const LocalTensor<float>& pattern, uint32_t stride, uint32_t rows)
{
    for (uint32_t have = 1; have < rows; have *= 2) {
        const uint32_t more = QmmMin(have, rows - have);
        PipeBarrier<PIPE_V>();
        Muls(pattern[have * stride], pattern, 1.0f, more * stride);
    }
}

// The mask block of the exact conversion: uint16 lanes FFFF, 0000 (the low halves of int32 lanes).
__aicore__ inline void QmmSplitMask(const LocalTensor<int32_t>& mask)
{
    Duplicate(mask, static_cast<int32_t>(0x0000FFFF), static_cast<int32_t>(kBlockBytes / sizeof(int32_t)));
}

// QmmInt32ToFloat's exact conversion (below) with the mask block already written (QmmSplitMask, then a
// PipeBarrier<PIPE_V>; outside tmp's first elems lanes): for a caller that converts chunk after chunk with one mask.
__aicore__ inline LocalTensor<float> QmmInt32ToFloatSplit(const LocalTensor<int32_t>& acc,
                                                          const LocalTensor<float>& tmp,
                                                          const LocalTensor<int32_t>& mask, uint32_t elems)
{
    LocalTensor<float> f = acc.template ReinterpretCast<float>();
    constexpr uint32_t kHalves = kQmmVecRepeatBytes / sizeof(uint16_t);  // uint16 lanes of one repeat
    LocalTensor<int32_t> lo = tmp.template ReinterpretCast<int32_t>();
    // lo = acc & 0x0000FFFF, on the 16-bit halves with the mask block repeated (source 1 repeat stride 0)
    const LocalTensor<uint16_t> lo16 = lo.template ReinterpretCast<uint16_t>();
    const LocalTensor<uint16_t> acc16 = acc.template ReinterpretCast<uint16_t>();
    const LocalTensor<uint16_t> mask16 = mask.template ReinterpretCast<uint16_t>();
    const uint32_t halves = 2 * elems;
    uint32_t off = 0;
    while (halves - off >= kHalves) {
        const uint32_t left = (halves - off) / kHalves;
        const uint32_t reps = left > kQmmMaxRepeat ? kQmmMaxRepeat : left;
        And(lo16[off], acc16[off], mask16, kHalves, static_cast<uint8_t>(reps), {1, 1, 0, 8, 8, 0});
        off += reps * kHalves;
    }
    if (off < halves) {
        And(lo16[off], acc16[off], mask16, halves - off, 1, {1, 1, 0, 8, 8, 0});
    }
    PipeBarrier<PIPE_V>();
    Sub(acc, acc, lo, elems);                    // hi = acc - lo: acc with its low 16 bits cleared, no overflow
    PipeBarrier<PIPE_V>();
    Cast(tmp, lo, RoundMode::CAST_NONE, elems);  // exact: 0 <= lo < 2^16
    Cast(f, acc, RoundMode::CAST_NONE, elems);   // exact: hi has at most 16 significant bits
    PipeBarrier<PIPE_V>();
    Add(f, f, tmp, elems);                       // float32(acc), rounded once to nearest even
    return f;
}

// float32(acc), rounded once to nearest even, in acc's bytes (the caller has ordered acc's producers before it).
// exact: the SoC's int32 -> float32 Cast has no stated rounding (310p), so acc goes in two parts that convert exactly
// whatever that Cast rounds to: lo, its low 16 bits (0 .. 65535, by a bitwise And on the 16-bit halves), and hi = acc
// - lo (a multiple of 65536 with |hi| <= 2^31: at most 16 significant bits), then float32(hi) + float32(lo), one
// correctly rounded IEEE addition. tmp: elems floats, then one 32-byte block for the mask (aqo_qmm_layout.h
// kSplitMaskBytes; the plans size the scratch with it).
__aicore__ inline LocalTensor<float> QmmInt32ToFloat(const LocalTensor<int32_t>& acc, const LocalTensor<float>& tmp,
                                                     uint32_t elems, bool exact)
{
    if (!exact) {
        LocalTensor<float> f = acc.template ReinterpretCast<float>();
        Cast(f, acc, kRoundInt32ToFloat, elems);
        return f;
    }
    constexpr uint32_t kPerBlock = kBlockBytes / sizeof(int32_t);
    const LocalTensor<int32_t> mask =
        tmp.template ReinterpretCast<int32_t>()[(elems + kPerBlock - 1) / kPerBlock * kPerBlock];
    QmmSplitMask(mask);
    PipeBarrier<PIPE_V>();
    return QmmInt32ToFloatSplit(acc, tmp, mask, elems);
}

// Output codes of AqoQuantMatMul's tiling (aqo::QmmOutCode).
constexpr uint32_t kQuantMmOutFloat32 = 0;
constexpr uint32_t kQuantMmOutFloat16 = 1;
constexpr uint32_t kQuantMmOutBFloat16 = 2;
