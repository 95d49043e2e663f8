// AqoDynamicQuant: per-row (tail axis) symmetric dynamic quantization, seed 004.
//   m = max|x * smooth| per row, scale = m / dmax, y = (x * smooth) / scale, rounded into the dst type.
// One source for ascend910b, ascend310p and ascend910_95. The arithmetic is the golden's (docs/design.md
// "DynamicQuant arithmetic") so that the CPU emulator run of this very file matches it bit for bit.
//
// Work split and UB layout come from the host plan (op_host/tiling_core/dynamic_quant_plan.*) through the
// tiling data; the kernel allocates exactly the buffers the plan budgeted, in the plan's order:
//   x_in (queue), y_out (queue), scale_out (queue), smooth (resident mode only), work_f32, tmp_f32, reduce, stat
//   (two 32-byte slots, three without DataCopyPad).
// Two modes:
//   resident: rowsPerIter rows of x are copied into UB at once; each row is then processed in fp32 chunks of
//             `chunk` elements (numChunks == 1 is the plain single-pass case): a max pass over the chunks, then a
//             quantize pass over the same resident row, so x is read from GM exactly once.
//   stream:   rows longer than one UB load (ascend910_95 has no tail limit): pass 1 streams the row's chunks
//             from GM for the max, pass 2 streams them again and quantizes.
#include "kernel_operator.h"
#include "aqo_kernel_common.h"

using namespace AscendC;

namespace aqo_dq {

using namespace aqo_kernel;  // SoC traits (AQO_SOC_*, kSoc*), AlignUp32, CopyOutExact, Float8Out

// Tiling codes. The dtype codes are aqo::DType values (op_host/tiling_core/dtype_table.h), the modes are
// aqo::DynamicQuantMode values (dynamic_quant_plan.h), which are the tiling keys; the emulator runner
// static_asserts that they agree.
constexpr uint32_t kDTypeFloat16 = 0;
constexpr uint32_t kDTypeBFloat16 = 1;
constexpr uint32_t kDTypeInt8 = 3;
constexpr uint32_t kDTypeHiFloat8 = 6;
constexpr uint32_t kDTypeFloat8E4M3FN = 7;
constexpr uint32_t kDTypeFloat8E5M2 = 8;
constexpr uint32_t kModeResident = 0;
constexpr uint32_t kModeStream = 1;

constexpr uint32_t kStatSlot = 8;        // floats per 32-byte slot of the stat buffer
constexpr uint32_t kLastBlockSlot = 2;   // without DataCopyPad: the stat slot of a core's last block of scales

// How a row is finished after its max pass.
enum class RowKind : uint32_t { NORMAL = 0, ZERO, NAN_ROW, INF_ROW };

struct RowStats {
    float max;
    bool hasNan;
    bool hasInf;
};

// TD: the tiling-data struct GET_TILING_DATA gives (CANN generates it from op_host/aqo_dynamic_quant_tiling.h, whose
// fields are op_host/tiling_core/dynamic_quant_tiling_fields.h; the emulator and the header check have their own
// builds of the same class): the kernel reads the fields by name, whatever the class is called.
// kMode: the tiling key, aqo::DynamicQuantMode (kModeResident / kModeStream): one kernel binary per mode.
template <class TD, typename XT, typename YT, uint32_t kMode>
class KernelDynamicQuant {
public:
    __aicore__ inline KernelDynamicQuant() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR smooth, GM_ADDR y, GM_ADDR scale, const TD& p, TPipe* pipe)
    {
        p_ = p;
        pipe_ = pipe;
        // Balanced split in rows: the last rowsExtra cores take one row more. Without DataCopyPad the plan gives
        // every core at least 8 rows (one 32-byte block of scales, see WriteScalesInBlocks) unless there is only one.
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

        // Exactly the plan's UB map, in its order.
        pipe->InitBuffer(xQue_, p.xSlots, p.xBufBytes);
        pipe->InitBuffer(yQue_, p.ySlots, p.yBufBytes);
        pipe->InitBuffer(scaleQue_, p.ySlots, p.scaleBufBytes);
        if (p.smoothBufBytes != 0) {
            pipe->InitBuffer(smoothBuf_, p.smoothBufBytes);
        }
        pipe->InitBuffer(workBuf_, p.workBytes);
        pipe->InitBuffer(tmpBuf_, p.tmpBytes);
        pipe->InitBuffer(reduceBuf_, p.reduceBytes);
        pipe->InitBuffer(statBuf_, p.statBytes);
        work_ = workBuf_.Get<float>();
        tmp_ = tmpBuf_.Get<float>();
        reduce_ = reduceBuf_.Get<float>();
        stat_ = statBuf_.Get<float>();
    }

    __aicore__ inline void Process()
    {
        if (rowBegin_ >= rowEnd_) {
            return;
        }
        if (kMode == kModeResident && p_.hasSmooth != 0) {
            LoadResidentSmooth();
        }
        if (kMode != kModeResident) {
            for (uint64_t g = rowBegin_; g < rowEnd_; g += p_.rowsPerIter) {
                ProcessStreamGroup(g, GroupRows(g));
            }
            return;
        }
        // With two x slots the next group's copy-in is issued before this group's compute: the compute stalls
        // the scalar unit (it waits for each row's max), so a copy issued after it would not overlap it.
        const bool prefetch = p_.xSlots > 1;
        uint64_t g = rowBegin_;
        uint32_t n = GroupRows(g);
        CopyIn(g, n);
        while (g < rowEnd_) {
            const uint64_t next = g + n;
            const uint32_t nn = next < rowEnd_ ? GroupRows(next) : 0;
            if (prefetch && nn != 0) {
                CopyIn(next, nn);
            }
            Compute(n);
            CopyOut(g, n);
            if (!prefetch && nn != 0) {
                CopyIn(next, nn);
            }
            g = next;
            n = nn;
        }
    }

private:
    // ----- resident mode: CopyIn / Compute / CopyOut of a group of n whole rows -----
    __aicore__ inline void CopyIn(uint64_t row, uint32_t n)
    {
        LocalTensor<XT> x = xQue_.AllocTensor<XT>();
        CopyRowsIn(x, xGm_[row * p_.cols], n, p_.cols, p_.colsPad);
        xQue_.EnQue(x);
    }

    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<XT> x = xQue_.DeQue<XT>();
        LocalTensor<YT> y = yQue_.AllocTensor<YT>();
        LocalTensor<float> s = scaleQue_.AllocTensor<float>();
        for (uint32_t i = 0; i < n; ++i) {
            LocalTensor<XT> xr = x[i * p_.colsPad];
            LocalTensor<YT> yr = y[i * p_.colsPad];
            RowStats st = {0.0f, false, false};
            for (uint32_t c = 0; c < p_.numChunks; ++c) {
                uint32_t off = c * p_.chunk;
                uint32_t len = ChunkLen(c);
                LoadChunkF32(xr[off], smooth_, off, len);
                AccumulateStats(len, st);
            }
            float sc = 0.0f;
            RowKind kind = FinishRow(st, sc);
            for (uint32_t c = 0; c < p_.numChunks; ++c) {
                uint32_t off = c * p_.chunk;
                uint32_t len = ChunkLen(c);
                if (kind == RowKind::NORMAL || NeedsElementScan(kind)) {
                    LoadChunkF32(xr[off], smooth_, off, len, false);  // x was sanitised by the first pass
                }
                StoreChunk(yr[off], len, kind, sc);
            }
            s.SetValue(i, sc);
        }
        WaitPipe<HardEvent::S_MTE3>();  // the scales (and rare scalar y writes) were written by the scalar unit
        yQue_.EnQue(y);
        scaleQue_.EnQue(s);
        xQue_.FreeTensor(x);
    }

    __aicore__ inline void CopyOut(uint64_t row, uint32_t n)
    {
        LocalTensor<YT> y = yQue_.DeQue<YT>();
        CopyRowsOut(yGm_[row * p_.cols], y, n, p_.cols);
        yQue_.FreeTensor(y);
        LocalTensor<float> s = scaleQue_.DeQue<float>();
        WriteScales(row, n, s);
        scaleQue_.FreeTensor(s);
    }

    // ----- stream mode (multi-pass): one row at a time, chunks streamed from GM twice -----
    __aicore__ inline void ProcessStreamGroup(uint64_t g, uint32_t n)
    {
        LocalTensor<float> s = scaleQue_.AllocTensor<float>();
        for (uint32_t i = 0; i < n; ++i) {
            uint64_t row = g + i;
            RowStats st = {0.0f, false, false};
            StreamPass(row, RowKind::NORMAL, 0.0f, &st);  // pass 1: max
            float sc = 0.0f;
            RowKind kind = FinishRow(st, sc);
            StreamPass(row, kind, sc, nullptr);          // pass 2: quantize
            s.SetValue(i, sc);
        }
        WaitPipe<HardEvent::S_MTE3>();
        scaleQue_.EnQue(s);
        LocalTensor<float> so = scaleQue_.DeQue<float>();
        WriteScales(g, n, so);
        scaleQue_.FreeTensor(so);
    }

    // One pass over a row's chunks: statistics (st != nullptr) or quantize and store (st == nullptr). With two x
    // slots chunk c + 1 is copied in while chunk c is computed. Pass 2 of a zero / NaN / int8 Inf row needs no x.
    __aicore__ inline void StreamPass(uint64_t row, RowKind kind, float sc, RowStats* st)
    {
        const bool read = st != nullptr || kind == RowKind::NORMAL || NeedsElementScan(kind);
        const bool prefetch = p_.xSlots > 1;
        if (read) {
            StreamChunkIn(row, 0);
        }
        for (uint32_t c = 0; c < p_.numChunks; ++c) {
            const uint32_t len = ChunkLen(c);
            const bool more = read && c + 1 < p_.numChunks;
            if (more && prefetch) {
                StreamChunkIn(row, c + 1);
            }
            if (read) {
                LocalTensor<XT> x = xQue_.DeQue<XT>();
                LoadChunkF32(x, x[p_.chunk], 0, len);
                xQue_.FreeTensor(x);
            }
            if (st != nullptr) {
                AccumulateStats(len, *st);
            } else {
                LocalTensor<YT> y = yQue_.AllocTensor<YT>();
                StoreChunk(y, len, kind, sc);
                WaitPipe<HardEvent::S_MTE3>();
                yQue_.EnQue(y);
                LocalTensor<YT> yo = yQue_.DeQue<YT>();
                CopyRowsOut(yGm_[row * p_.cols + c * p_.chunk], yo, 1, len);
                yQue_.FreeTensor(yo);
            }
            if (more && !prefetch) {
                StreamChunkIn(row, c + 1);
            }
        }
    }

    // Copies chunk c of a row (and the matching smooth chunk, stored behind it in the same slot) into an x slot.
    __aicore__ inline void StreamChunkIn(uint64_t row, uint32_t c)
    {
        const uint32_t off = c * p_.chunk;
        const uint32_t len = ChunkLen(c);
        LocalTensor<XT> x = xQue_.AllocTensor<XT>();
        CopyRowsIn(x, xGm_[row * p_.cols + off], 1, len, p_.chunk);
        if (p_.hasSmooth != 0) {
            CopyRowsIn(x[p_.chunk], smoothGm_[off], 1, len, p_.chunk);
        }
        xQue_.EnQue(x);
    }

    __aicore__ inline uint32_t GroupRows(uint64_t g) const
    {
        return static_cast<uint32_t>((rowEnd_ - g) < p_.rowsPerIter ? (rowEnd_ - g) : p_.rowsPerIter);
    }

    __aicore__ inline void LoadResidentSmooth()
    {
        smooth_ = smoothBuf_.Get<XT>();
        CopyRowsIn(smooth_, smoothGm_, 1, p_.cols, p_.colsPad);
        WaitPipe<HardEvent::MTE2_V>();
        if (kSocSaturationMode) {
            for (uint32_t c = 0; c < p_.numChunks; ++c) {
                SanitizeHalf(smooth_[c * p_.chunk], ChunkLen(c));
            }
        }
    }

    __aicore__ inline uint32_t ChunkLen(uint32_t c) const
    {
        uint32_t off = c * p_.chunk;
        return (p_.cols - off) < p_.chunk ? (p_.cols - off) : p_.chunk;
    }

    // ----- arithmetic (shared by both modes) -----

    // work_ = fp32(x) [* fp32(smooth)]. ascend310p runs in saturation mode: its result is defined as the golden of
    // x (and smooth) with Inf -> +-(float16 max) and NaN -> 0 (docs/design.md), which SanitizeHalf applies to the
    // float16 data before the conversion (sanitizeX: x not yet sanitised in UB; a resident smooth is sanitised once).
    __aicore__ inline void LoadChunkF32(const LocalTensor<XT>& src, const LocalTensor<XT>& smoothSrc, uint32_t smoothOff,
                                        uint32_t len, bool sanitizeX = true)
    {
        if (kSocSaturationMode && sanitizeX) {
            SanitizeHalf(src, len);
        }
        if (kSocSaturationMode && p_.hasSmooth != 0 && kMode != kModeResident) {
            SanitizeHalf(smoothSrc[smoothOff], len);
        }
        PipeBarrier<PIPE_V>();  // work_ and tmp_ may still be read by the previous chunk's instructions
        Cast(work_, src, RoundMode::CAST_NONE, len);
        if (p_.hasSmooth != 0) {
            Cast(tmp_, smoothSrc[smoothOff], RoundMode::CAST_NONE, len);
            PipeBarrier<PIPE_V>();
            Mul(work_, work_, tmp_, len);
        }
        PipeBarrier<PIPE_V>();  // the next instruction reads work_
    }

    // Row statistics without feeding NaN to a max (hardware max semantics with NaN are not documented):
    // sum(x * 0) is +-0 exactly when every element is finite (IEEE: 0 * Inf and 0 * NaN are NaN, NaN + a = NaN).
    // Only then is the max taken on the vector unit; a non-finite chunk is classified by the scalar unit.
    __aicore__ inline void AccumulateStats(uint32_t len, RowStats& st)
    {
        Muls(tmp_, work_, 0.0f, len);
        PipeBarrier<PIPE_V>();
        ReduceSum(stat_, tmp_, reduce_, len);
        WaitPipe<HardEvent::V_S>();
        float z = stat_.GetValue(0);
        if (z == 0.0f) {
            Abs(tmp_, work_, len);
            PipeBarrier<PIPE_V>();
            ReduceMax(stat_, tmp_, reduce_, len, false);
            WaitPipe<HardEvent::V_S>();
            float cm = stat_.GetValue(0);
            if (cm > st.max) {
                st.max = cm;
            }
            return;
        }
        for (uint32_t j = 0; j < len; ++j) {
            float v = work_.GetValue(j);
            if (v != v) {
                st.hasNan = true;
            } else if (v - v != 0.0f) {
                st.hasInf = true;
            }
        }
    }

    // ascend310p: how its float16 -> float32 Cast converts +-Inf and NaN in saturation mode is not documented, and
    // saturation hides them from arithmetic (x * 0 is 0 for an Inf read as 65504). So they are found from the float16
    // bits and replaced in src itself, before any conversion: +-Inf by +-p_.satMax (the float16 max, dtype table
    // through the tiling), NaN by 0. The vector unit looks for an exponent field of all ones (bits & 0x7C00 read as
    // float16 is at most 2^15 for a finite value, +-Inf otherwise); only then does the scalar unit scan the chunk.
    // tmp_ holds the mask and the exponent fields (2 x p_.chunk uint16, its fp32 size).
    __aicore__ inline void SanitizeHalf(const LocalTensor<XT>& src, uint32_t len)
    {
        LocalTensor<uint16_t> bits = src.template ReinterpretCast<uint16_t>();
        LocalTensor<uint16_t> mask = tmp_.template ReinterpretCast<uint16_t>();
        LocalTensor<uint16_t> expo = mask[p_.chunk];
        PipeBarrier<PIPE_V>();  // tmp_ may still be read by earlier vector instructions
        Duplicate(mask, static_cast<uint16_t>(0x7C00u), len);
        PipeBarrier<PIPE_V>();
        And(expo, bits, mask, len);
        PipeBarrier<PIPE_V>();
        LocalTensor<half> top = stat_.template ReinterpretCast<half>();
        ReduceMax(top, expo.template ReinterpretCast<half>(), reduce_.template ReinterpretCast<half>(), len, false);
        WaitPipe<HardEvent::V_S>();
        if (static_cast<float>(top.GetValue(0)) <= 32768.0f) {
            return;
        }
        for (uint32_t j = 0; j < len; ++j) {
            const uint16_t b = bits.GetValue(j);
            if ((b & 0x7C00u) != 0x7C00u) {
                continue;
            }
            const float v = (b & 0x03FFu) != 0 ? 0.0f : ((b & 0x8000u) != 0 ? -p_.satMax : p_.satMax);
            src.SetValue(j, static_cast<XT>(v));
        }
        WaitPipe<HardEvent::S_V>();
    }

    // scale = m / dmax as an fp32 divide on the vector unit (the same unit and operation as y = x / scale).
    __aicore__ inline RowKind FinishRow(const RowStats& st, float& sc)
    {
        if (st.hasNan) {
            sc = BitsToFloat(0x7FC00000u);  // NaN: a row containing NaN has scale NaN
            return RowKind::NAN_ROW;
        }
        if (st.hasInf) {
            sc = BitsToFloat(0x7F800000u);  // +Inf: a row containing +-Inf (no NaN) has scale +Inf
            return RowKind::INF_ROW;
        }
        if (st.max == 0.0f) {
            sc = 0.0f;
            return RowKind::ZERO;
        }
        Duplicate(stat_, st.max, kStatSlot);
        Duplicate(stat_[kStatSlot], p_.dmax, kStatSlot);
        PipeBarrier<PIPE_V>();
        Div(stat_, stat_, stat_[kStatSlot], kStatSlot);
        WaitPipe<HardEvent::V_S>();
        sc = stat_.GetValue(0);
        // m / dmax can underflow to 0 for tiny rows (bfloat16 products near 2^-149 * dmax): the golden treats
        // every scale-0 row as a zero row, never as x / 0.
        return sc == 0.0f ? RowKind::ZERO : RowKind::NORMAL;
    }

    // Inf rows with a float8 / hifloat8 output need the element values (Inf / Inf = NaN, finite / Inf = 0).
    __aicore__ inline bool NeedsElementScan(RowKind kind) const
    {
        return kind == RowKind::INF_ROW && Float8Out<YT>::kIsFloat;
    }

    // Writes the chunk's y: quantized (NORMAL) or the special values of zero / non-finite rows.
    __aicore__ inline void StoreChunk(const LocalTensor<YT>& y, uint32_t len, RowKind kind, float sc)
    {
        if (kind == RowKind::NORMAL) {
            QuantizeChunk(y, len, sc);
            return;
        }
        // Zero row: y = 0. NaN row: x / NaN = NaN, which is 0 in int8 and the NaN code in float8 / hifloat8.
        // Inf row: every element is finite / Inf = 0 or Inf / Inf = NaN.
        if (!NeedsElementScan(kind)) {
            uint32_t code = (kind == RowKind::NAN_ROW && Float8Out<YT>::kIsFloat) ? p_.nanCode : 0u;
            FillBytes(y, len, code);
        } else {
            // Inf row, float dst: finite / Inf is a zero carrying x's sign (float8 keeps -0), made on the vector
            // unit from clip(x) * 0 (the clip keeps Inf out of the multiply, so no NaN reaches the cast); the
            // Inf elements (Inf / Inf = NaN) then get the NaN code from the scalar unit.
            Maxs(tmp_, work_, p_.clipLo, len);
            PipeBarrier<PIPE_V>();
            Mins(tmp_, tmp_, p_.clipHi, len);
            PipeBarrier<PIPE_V>();
            Muls(tmp_, tmp_, 0.0f, len);
            PipeBarrier<PIPE_V>();
            Float8Out<YT>::Cast(y, tmp_, len);
            WaitPipe<HardEvent::V_S>();
            LocalTensor<uint8_t> yb = y.template ReinterpretCast<uint8_t>();
            for (uint32_t j = 0; j < len; ++j) {
                float v = work_.GetValue(j);
                if (v - v != 0.0f) {
                    yb.SetValue(j, static_cast<uint8_t>(p_.nanCode));
                }
            }
        }
    }

    // y = clip(x / scale) then the dst cast. A true divide (Duplicate + Div), not a multiply by 1/scale, so that
    // the result is the golden's bit for bit.
    __aicore__ inline void QuantizeChunk(const LocalTensor<YT>& y, uint32_t len, float sc)
    {
        Duplicate(tmp_, sc, len);
        PipeBarrier<PIPE_V>();
        Div(work_, work_, tmp_, len);
        PipeBarrier<PIPE_V>();
        Maxs(work_, work_, p_.clipLo, len);
        PipeBarrier<PIPE_V>();
        Mins(work_, work_, p_.clipHi, len);
        PipeBarrier<PIPE_V>();
        CastOut(y, len);
    }

    // int8: round half to even with Cast modes both SoCs accept (FACTS 2): float->int32 RINT, then the exact path
    // int32->float (NONE), float->half (NONE, exact for |v| <= 2048), half->int8 (NONE, exact on integers).
    __aicore__ inline void CastOut(const LocalTensor<YT>& y, uint32_t len)
    {
        if constexpr (Float8Out<YT>::kIsFloat) {
            Float8Out<YT>::Cast(y, work_, len);
        } else {
            LocalTensor<int32_t> ti = tmp_.template ReinterpretCast<int32_t>();
            LocalTensor<half> th = tmp_.template ReinterpretCast<half>();
            Cast(ti, work_, RoundMode::CAST_RINT, len);
            PipeBarrier<PIPE_V>();
            Cast(work_, ti, RoundMode::CAST_NONE, len);
            PipeBarrier<PIPE_V>();
            Cast(th, work_, RoundMode::CAST_NONE, len);
            PipeBarrier<PIPE_V>();
            Cast(y, th, RoundMode::CAST_NONE, len);
        }
    }

    // Fills len bytes of y (rounded up to the 32-byte granule, which the plan's buffers always have) with a byte.
    __aicore__ inline void FillBytes(const LocalTensor<YT>& y, uint32_t len, uint32_t byte)
    {
        LocalTensor<int16_t> y16 = y.template ReinterpretCast<int16_t>();
        int16_t v = static_cast<int16_t>((byte & 0xFFu) | ((byte & 0xFFu) << 8));
        Duplicate(y16, v, AlignUp32(len) / 2);
    }

    // ----- data movement: the only place that differs between SoCs with and without DataCopyPad -----

    // n rows of `len` elements from GM (row stride p_.cols) into UB rows of stride ubStride elements.
    __aicore__ inline void CopyRowsIn(const LocalTensor<XT>& dst, const GlobalTensor<XT>& src, uint32_t n, uint32_t len,
                                      uint32_t ubStride)
    {
        if (len == 0) {
            return;  // H = 0: rows without elements (zero rows: scale 0, nothing to copy)
        }
#if AQO_SOC_HAS_DATACOPYPAD
        uint32_t padded = AlignUp32(len * sizeof(XT));
        DataCopyExtParams prm(static_cast<uint16_t>(n), len * static_cast<uint32_t>(sizeof(XT)),
                              (p_.cols - len) * static_cast<uint32_t>(sizeof(XT)),
                              n == 1 ? 0u : (ubStride * static_cast<uint32_t>(sizeof(XT)) - padded) / kBlockBytes, 0);
        DataCopyPadExtParams<XT> pad(false, 0, 0, 0);
        DataCopyPad(dst, src, prm, pad);
#else
        // ascend310p: the plan only admits rows whose bytes are 32-byte multiples (tail % 32 == 0, seed 004) and
        // chunks of 32-element multiples, so rows are contiguous in UB (ubStride == len when n > 1).
        if (n == 1 || len == p_.cols) {
            DataCopy(dst, src, n * len);
        } else {
            DataCopyParams prm(static_cast<uint16_t>(n), static_cast<uint16_t>(len * sizeof(XT) / kBlockBytes),
                               static_cast<uint16_t>((p_.cols - len) * sizeof(XT) / kBlockBytes),
                               static_cast<uint16_t>((ubStride - len) * sizeof(XT) / kBlockBytes));
            DataCopy(dst, src, prm);
        }
#endif
    }

    // n rows of len elements from UB (row stride p_.colsPad in resident mode; n == 1 in stream mode) to GM rows of
    // stride p_.cols.
    __aicore__ inline void CopyRowsOut(const GlobalTensor<YT>& dst, const LocalTensor<YT>& src, uint32_t n, uint32_t len)
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

    // The group's n scales, scale[row, row + n): not one byte of another core's or past the end of scale.
    __aicore__ inline void WriteScales(uint64_t row, uint32_t n, const LocalTensor<float>& s)
    {
        if constexpr (kSocHasDataCopyPad) {
            CopyOutExact(scaleGm_[row], s, n);
        } else {
            WriteScalesInBlocks(row, n, s);
        }
    }

    // ascend310p (no DataCopyPad): a DMA writes whole 32-byte blocks (8 scales) and GM addresses need no alignment.
    // Groups are whole blocks except a core's last one, so only that one can end in a partial block: it is written as
    // the block of the core's last 8 rows (the plan gives every core at least 8), which stores up to 7 of the core's own scales a
    // second time with the values they already have. No other core's byte is touched, so cores may split the rows
    // anywhere, and no scalar GM store or data-cache flush is needed. The block is gathered in the stat buffer's
    // last slot (aligned UB); when the last group is shorter than a block, the scales before it are the previous
    // group's last 8, which that group kept there. Only a tensor of fewer than 8 rows (one core) stores its scales
    // with the scalar unit (CopyOutExact).
    __aicore__ inline void WriteScalesInBlocks(uint64_t row, uint32_t n, const LocalTensor<float>& s)
    {
        if (rowEnd_ - rowBegin_ < kStatSlot) {
            CopyOutExact(scaleGm_[row], s, n);
            return;
        }
        const uint64_t end = row + n;
        const uint32_t whole = n / kStatSlot * kStatSlot;
        LocalTensor<float> lastBlock = stat_[kLastBlockSlot * kStatSlot];
        if (whole != 0) {
            DataCopy(scaleGm_[row], s, whole);
        }
        if (whole == n) {
            if (end < rowEnd_ && rowEnd_ - end < kStatSlot) {
                // The next group is the core's last and shorter than a block: keep this group's last 8 scales.
                for (uint32_t i = 0; i < kStatSlot; ++i) {
                    lastBlock.SetValue(i, s.GetValue(n - kStatSlot + i));
                }
            }
            return;
        }
        // The core's last group: scale[end - 8, end), its first `kept` values from the previous group.
        const uint32_t kept = n < kStatSlot ? kStatSlot - n : 0;
        for (uint32_t i = 0; i < kept; ++i) {
            lastBlock.SetValue(i, lastBlock.GetValue(i + n));
        }
        for (uint32_t i = kept; i < kStatSlot; ++i) {
            lastBlock.SetValue(i, s.GetValue(n + i - kStatSlot));
        }
        WaitPipe<HardEvent::S_MTE3>();
        DataCopy(scaleGm_[end - kStatSlot], lastBlock, kStatSlot);
    }

    template <HardEvent E>
    __aicore__ inline void WaitPipe()
    {
        aqo_kernel::WaitPipe<E>(pipe_);
    }

    TD p_;
    TPipe* pipe_ = nullptr;
    uint64_t rowBegin_ = 0;
    uint64_t rowEnd_ = 0;
    GlobalTensor<XT> xGm_;
    GlobalTensor<XT> smoothGm_;
    GlobalTensor<YT> yGm_;
    GlobalTensor<float> scaleGm_;
    TQue<QuePosition::VECIN, 2> xQue_;
    TQue<QuePosition::VECOUT, 2> yQue_;
    TQue<QuePosition::VECOUT, 2> scaleQue_;
    TBuf<TPosition::VECCALC> smoothBuf_;
    TBuf<TPosition::VECCALC> workBuf_;
    TBuf<TPosition::VECCALC> tmpBuf_;
    TBuf<TPosition::VECCALC> reduceBuf_;
    TBuf<TPosition::VECCALC> statBuf_;
    LocalTensor<XT> smooth_;
    LocalTensor<float> work_;
    LocalTensor<float> tmp_;
    LocalTensor<float> reduce_;
    LocalTensor<float> stat_;
};

template <uint32_t kMode, typename XT, typename YT, class TD>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR smooth, GM_ADDR y, GM_ADDR scale, const TD& p)
{
    TPipe pipe;
    KernelDynamicQuant<TD, XT, YT, kMode> op;
    op.Init(x, smooth, y, scale, p, &pipe);
    op.Process();
}

// The dst types this SoC can produce (int8 everywhere; hifloat8 / float8 on ascend910_95 only).
template <uint32_t kMode, typename XT, class TD>
__aicore__ inline void DispatchDst(GM_ADDR x, GM_ADDR smooth, GM_ADDR y, GM_ADDR scale, const TD& p)
{
    if (p.dstDtype == kDTypeInt8) {
        Run<kMode, XT, int8_t>(x, smooth, y, scale, p);
    }
#if AQO_SOC_HAS_FP8
    else if (p.dstDtype == kDTypeHiFloat8) {
        Run<kMode, XT, hifloat8_t>(x, smooth, y, scale, p);
    } else if (p.dstDtype == kDTypeFloat8E4M3FN) {
        Run<kMode, XT, fp8_e4m3fn_t>(x, smooth, y, scale, p);
    } else if (p.dstDtype == kDTypeFloat8E5M2) {
        Run<kMode, XT, fp8_e5m2_t>(x, smooth, y, scale, p);
    }
#endif
}

// The x types this SoC reads (float16 everywhere; bfloat16 not on ascend310p).
template <uint32_t kMode, class TD>
__aicore__ inline void Dispatch(GM_ADDR x, GM_ADDR smooth, GM_ADDR y, GM_ADDR scale, const TD& p)
{
    if (p.xDtype == kDTypeFloat16) {
        DispatchDst<kMode, half>(x, smooth, y, scale, p);
    }
#if AQO_SOC_HAS_BF16
    else if (p.xDtype == kDTypeBFloat16) {
        DispatchDst<kMode, bfloat16_t>(x, smooth, y, scale, p);
    }
#endif
}

}  // namespace aqo_dq

extern "C" __global__ __aicore__ void aqo_dynamic_quant(GM_ADDR x, GM_ADDR smooth_scales, GM_ADDR y, GM_ADDR scale,
                                                        GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
#if AQO_SOC_SPLIT_CORES
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);  // the vector cores only (310p: a plain AI-core kernel)
#endif
    GET_TILING_DATA(tilingData, tiling);
    // The tiling key is the mode (the plan's tiling_key, aqo::DynamicQuantMode): CANN's build compiles one binary
    // per key named here (numbers, as its preprocessor scan requires), and the TilingFunc selects it per launch.
    static_assert(aqo_dq::kModeResident == 0 && aqo_dq::kModeStream == 1, "tiling keys are the mode codes");
    if (TILING_KEY_IS(0)) {
        aqo_dq::Dispatch<aqo_dq::kModeResident>(x, smooth_scales, y, scale, tilingData);
    } else if (TILING_KEY_IS(1)) {
        aqo_dq::Dispatch<aqo_dq::kModeStream>(x, smooth_scales, y, scale, tilingData);
    }
}

// aqo_kernel_common.h's SoC trait macros end with this kernel: the emulator runner compiles it once per SoC in one
// translation unit.
#undef AQO_SOC_HAS_DATACOPYPAD
#undef AQO_SOC_HAS_BF16
#undef AQO_SOC_HAS_FP8
#undef AQO_SOC_SPLIT_CORES
