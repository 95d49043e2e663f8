// kernel_operator.h of the AscendC CPU emulator: the subset of the AscendC kernel API that this project's
// kernels use, implemented on the host so that op_kernel/*.cpp compile unchanged with g++ and run on CPU.
// What is modelled, what is refused and why: op_kernel/emulator/README.md.
//
// Compiling one kernel for several SoCs into one module (the runner TU, e.g. python/csrc/emulate_<op>.cpp):
//
//   #include "kernel_operator.h"              // first, outside any namespace (its include guard then makes the
//   #include "emulator/launch.h"             //   kernel's own #include "kernel_operator.h" a no-op)
//   #include "aqo_<op>_tiling.h"             // op_host tiling class, a plain struct via register/tilingdata_base.h
//   #define AQO_EMU_TILING_CLASS optiling::AqoXxxTilingData
//
//   #define __CCE_AICORE__ 200               // the macros bisheng defines for this SoC
//   #define __DAV_M200__
//   #define aqo_<op> aqo_<op>_ascend310p     // renames the extern "C" entry: C linkage ignores namespaces
//   namespace aqo_emu_ascend310p {
//   #include "aqo_<op>.cpp"
//   }
//   #undef aqo_<op>
//   #undef __DAV_M200__
//   #undef __CCE_AICORE__
//   ... the same for ascend910b (__CCE_AICORE__=220, __DAV_C220_VEC__) and ascend910_95
//   (__CCE_AICORE__=310, __DAV_C310__, __NPU_ARCH__=3510).
//
// The kernel's classes and helpers land in a namespace per SoC, so the three variants never clash (ODR). The
// emulator itself has no SoC macros: the SoC is run-time state chosen by the launcher (launch.h), so one
// emulator build serves every variant.
#pragma once

#include <cstdint>

#include "emulator/emu_context.h"
#include "emulator/emu_types.h"
#include "emulator/emu_tensor.h"
#include "emulator/emu_datacopy.h"
#include "emulator/emu_vector.h"
#include "emulator/emu_vector_level0.h"
#include "emulator/emu_trans_data.h"
#include "emulator/emu_cube.h"
#include "emulator/emu_sync.h"

#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __inout_pipe__
#define __inout_pipe__(x)
#endif
#ifndef GM_ADDR
#define GM_ADDR uint8_t*
#endif

namespace AscendC {
using ::half;
using ::bfloat16_t;
using ::fp8_e4m3fn_t;
using ::fp8_e5m2_t;
using ::hifloat8_t;
constexpr int32_t ONE_BLK_SIZE = 32;
constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr int32_t BLOCK_CUBE = 16;
}  // namespace AscendC
