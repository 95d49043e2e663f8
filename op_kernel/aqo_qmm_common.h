// What the stage headers of the quantized matmuls share (aqo_qmm_zero_point.h, aqo_qmm_cube_stage.h,
// aqo_qmm_*_epilogue.h, aqo_qmm_copy_out.h): the tiling's codes and a GM -> UB byte copy that works with and without
// DataCopyPad. Included by the kernels' entry files inside their namespace, after aqo_kernel_common.h (no include
// guard: see aqo_kernel_common.h).

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
// The zero-point correction's row terms of one row, in UB and in the workspace: -(RA - K za') broadcast over one
// 32-byte block, then -za' over the next (written by the cube stage's preparation, read by QmmZeroPoints::Correct).
constexpr uint32_t kQmmRowTermInts = 16;

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

// float32(acc), rounded once to nearest even, in acc's bytes (the caller has ordered acc's producers before it).
// exact: the SoC's int32 -> float32 Cast has no stated rounding (310p), so values beyond 2^24 go in two exact parts
// through tmp (elems floats): q * 65536 + lo, one rounded addition.
__aicore__ inline LocalTensor<float> QmmInt32ToFloat(const LocalTensor<int32_t>& acc, const LocalTensor<float>& tmp,
                                                     uint32_t elems, bool exact)
{
    LocalTensor<float> f = acc.template ReinterpretCast<float>();
    if (!exact) {
        Cast(f, acc, kRoundInt32ToFloat, elems);
        return f;
    }
    LocalTensor<float> tf = tmp;
    LocalTensor<int32_t> ti = tmp.template ReinterpretCast<int32_t>();
    Cast(tf, acc, RoundMode::CAST_NONE, elems);  // within 256 of acc, either rounding
    PipeBarrier<PIPE_V>();
    Mins(tf, tf, 2147483520.0f, elems);          // the largest float below 2^31: q * 65536 stays in int32
    PipeBarrier<PIPE_V>();
    Muls(tf, tf, 1.0f / 65536.0f, elems);        // exact
    PipeBarrier<PIPE_V>();
    Cast(ti, tf, RoundMode::CAST_FLOOR, elems);  // q, |q| <= 2^15
    PipeBarrier<PIPE_V>();
    Muls(ti, ti, 65536, elems);                  // q * 65536, exact in int32
    PipeBarrier<PIPE_V>();
    Sub(acc, acc, ti, elems);                    // lo = acc - q * 65536, -256 < lo < 65536 + 256
    PipeBarrier<PIPE_V>();
    Cast(tf, ti, RoundMode::CAST_NONE, elems);   // exact: q * 65536 has at most 16 significant bits
    PipeBarrier<PIPE_V>();
    Cast(f, acc, RoundMode::CAST_NONE, elems);   // exact: |lo| < 2^17
    PipeBarrier<PIPE_V>();
    Add(f, f, tf, elems);                        // float32(acc), rounded once to nearest even
    return f;
}

// Output codes of AqoQuantMatMul's tiling (aqo::QmmOutCode).
constexpr uint32_t kQuantMmOutFloat32 = 0;
constexpr uint32_t kQuantMmOutFloat16 = 1;
constexpr uint32_t kQuantMmOutBFloat16 = 2;
