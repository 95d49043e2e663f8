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

// Output codes of AqoQuantMatMul's tiling (aqo::QmmOutCode).
constexpr uint32_t kQuantMmOutFloat32 = 0;
constexpr uint32_t kQuantMmOutFloat16 = 1;
constexpr uint32_t kQuantMmOutBFloat16 = 2;
