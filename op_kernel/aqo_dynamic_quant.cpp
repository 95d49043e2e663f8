// AqoDynamicQuant: per-row (tail axis) dynamic quantization.
//   symmetric:  m = max|x * smooth| per row, scale = m / dmax, y = (x * smooth) / scale, rounded into the dst type;
//   asymmetric: OPSNN's float offset (int8, float8, hifloat8) or ONNX's integer zero point (uint8), returning the
//               offsets too.
// One source for ascend910b, ascend310p and ascend910_95. The arithmetic is the golden's (docs/design.md
// "DynamicQuant arithmetic") so that the CPU emulator run of this very file matches it bit for bit.
//
// Work split and UB layout come from the host plan (op_host/tiling_core/dynamic_quant_plan.*) through the tiling
// data; the kernel allocates exactly the buffers the plan budgeted, in the plan's order (DynamicQuantBase::InitBase).
// One kernel class per mode, selected by the tiling key:
//   0 resident (aqo_dynamic_quant_resident.h): whole rows copied into UB once; x read from GM once.
//   1 stream   (aqo_dynamic_quant_stream.h):   rows longer than one UB load, streamed twice.
//   2 pipelined (aqo_dynamic_quant_pipelined.h): whole rows in small groups (every mode), loads running ahead, the
//                next group's statistics overlapping this group's classification and quantization.
// What they share (data movement, the row statistics, the dst conversion): aqo_dynamic_quant_common.h.
#include "kernel_operator.h"
#include "aqo_dynamic_quant_common.h"  // and aqo_kernel_common.h
#include "aqo_dynamic_quant_resident.h"
#include "aqo_dynamic_quant_stream.h"
#include "aqo_dynamic_quant_pipelined.h"

using namespace AscendC;

namespace aqo_dq {

template <template <class, typename, typename, typename> class Kernel, typename XT, typename YT, typename OT, class TD>
__aicore__ inline void Run(GM_ADDR x, GM_ADDR smooth, GM_ADDR y, GM_ADDR scale, GM_ADDR offset, const TD& p)
{
    TPipe pipe;
    Kernel<TD, XT, YT, OT> op;
    op.Init(x, smooth, y, scale, offset, p, &pipe);
    op.Process();
}

// The dst types this SoC can produce (int8 everywhere, uint8 in the zero-point mode; hifloat8 / float8 on
// ascend910_95 only) and the offset type (float32, or uint8 for the zero point).
template <template <class, typename, typename, typename> class Kernel, typename XT, class TD>
__aicore__ inline void DispatchDst(GM_ADDR x, GM_ADDR smooth, GM_ADDR y, GM_ADDR scale, GM_ADDR offset, const TD& p)
{
    if (p.dstDtype == kDTypeInt8) {
        Run<Kernel, XT, int8_t, float>(x, smooth, y, scale, offset, p);
    } else if (p.dstDtype == kDTypeUInt8) {
        Run<Kernel, XT, uint8_t, uint8_t>(x, smooth, y, scale, offset, p);  // the zero-point mode only
    }
#if AQO_SOC_HAS_FP8
    else if (p.dstDtype == kDTypeHiFloat8) {
        Run<Kernel, XT, hifloat8_t, float>(x, smooth, y, scale, offset, p);
    } else if (p.dstDtype == kDTypeFloat8E4M3FN) {
        Run<Kernel, XT, fp8_e4m3fn_t, float>(x, smooth, y, scale, offset, p);
    } else if (p.dstDtype == kDTypeFloat8E5M2) {
        Run<Kernel, XT, fp8_e5m2_t, float>(x, smooth, y, scale, offset, p);
    }
#endif
}

// The x types this SoC reads (float16 everywhere; bfloat16 not on ascend310p).
template <template <class, typename, typename, typename> class Kernel, class TD>
__aicore__ inline void Dispatch(GM_ADDR x, GM_ADDR smooth, GM_ADDR y, GM_ADDR scale, GM_ADDR offset, const TD& p)
{
    if (p.xDtype == kDTypeFloat16) {
        DispatchDst<Kernel, half>(x, smooth, y, scale, offset, p);
    }
#if AQO_SOC_HAS_BF16
    else if (p.xDtype == kDTypeBFloat16) {
        DispatchDst<Kernel, bfloat16_t>(x, smooth, y, scale, offset, p);
    }
#endif
}

}  // namespace aqo_dq

extern "C" __global__ __aicore__ void aqo_dynamic_quant(GM_ADDR x, GM_ADDR smooth_scales, GM_ADDR y, GM_ADDR scale,
                                                        GM_ADDR offset, GM_ADDR workspace, GM_ADDR tiling)
{
    (void)workspace;
#if AQO_SOC_SPLIT_CORES
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);  // the vector cores only (310p: a plain AI-core kernel)
#endif
    aqo_kernel::UseIeeeHalfMode();  // half / bfloat16 results keep Inf and NaN (every core, before any instruction)
    GET_TILING_DATA(tilingData, tiling);
    // The tiling key is the mode (the plan's tiling_key, aqo::DynamicQuantMode): CANN's build compiles one binary
    // per key named here (numbers, as its preprocessor scan requires), and the TilingFunc selects it per launch.
    static_assert(aqo_dq::kModeResident == 0 && aqo_dq::kModeStream == 1 && aqo_dq::kModePipelined == 2,
                  "tiling keys are the mode codes");
    if (TILING_KEY_IS(0)) {
        aqo_dq::Dispatch<aqo_dq::KernelDynamicQuantResident>(x, smooth_scales, y, scale, offset, tilingData);
    } else if (TILING_KEY_IS(1)) {
        aqo_dq::Dispatch<aqo_dq::KernelDynamicQuantStream>(x, smooth_scales, y, scale, offset, tilingData);
    } else if (TILING_KEY_IS(2)) {
        aqo_dq::Dispatch<aqo_dq::KernelDynamicQuantPipelined>(x, smooth_scales, y, scale, offset, tilingData);
    }
}

// aqo_kernel_common.h's SoC trait macros end with this kernel: the emulator runner compiles it once per SoC in one
// translation unit.
#undef AQO_SOC_HAS_DATACOPYPAD
#undef AQO_SOC_HAS_BF16
#undef AQO_SOC_HAS_FP8
#undef AQO_SOC_SPLIT_CORES
// ... and so do the guards of this kernel's own headers (each SoC's copy includes them again).
#undef AQO_DYNAMIC_QUANT_COMMON_H
#undef AQO_DYNAMIC_QUANT_LAYOUT_H
#undef AQO_DYNAMIC_QUANT_RESIDENT_H
#undef AQO_DYNAMIC_QUANT_STREAM_H
#undef AQO_DYNAMIC_QUANT_PIPELINED_H
