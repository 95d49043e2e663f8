// TCubeTiling of the AscendC CPU emulator: the Matmul high-level API's tiling, a plain struct with CANN's field
// names (kernel_tiling/kernel_tiling.h on the device, optiling::TCubeTiling on the host). The op_host tiling
// header includes this instead of tiling/tiling_api.h when the emulator runner defines AQO_QMM_EMULATOR_TILING,
// so that the tiling class the runner fills and the kernel reads (GET_TILING_DATA) is one plain struct.
//
// The emulated Matmul (lib/matmul_intf.h) reads the fields the kernel's calls depend on (base block sizes for
// the fractal checks, the single-core shape as the default shape); the rest are carried so that a tiling made
// by CANN's MultiCoreMatmulTiling can be copied field by field.
#pragma once

#include <cstdint>

struct TCubeTiling {
    int32_t usedCoreNum = 0;
    int32_t M = 0;
    int32_t N = 0;
    int32_t Ka = 0;
    int32_t Kb = 0;
    int32_t singleCoreM = 0;
    int32_t singleCoreN = 0;
    int32_t singleCoreK = 0;
    int32_t baseM = 0;
    int32_t baseN = 0;
    int32_t baseK = 0;
    int32_t depthA1 = 0;
    int32_t depthB1 = 0;
    int32_t stepM = 0;
    int32_t stepN = 0;
    int32_t isBias = 0;
    int32_t transLength = 0;
    int32_t iterateOrder = 0;
    int32_t shareMode = 0;
    int32_t shareL1Size = 0;
    int32_t shareL0CSize = 0;
    int32_t shareUbSize = 0;
    int32_t batchM = 0;
    int32_t batchN = 0;
    int32_t singleBatchM = 0;
    int32_t singleBatchN = 0;
    int32_t stepKa = 0;
    int32_t stepKb = 0;
    int32_t depthAL1CacheUB = 0;
    int32_t depthBL1CacheUB = 0;
    int32_t dbL0A = 0;
    int32_t dbL0B = 0;
    int32_t dbL0C = 0;
};
