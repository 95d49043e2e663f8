// Tiling data of AqoDynamicQuant: what op_kernel/aqo_dynamic_quant.cpp needs to know, filled from the host plan
// (op_host/tiling_core/dynamic_quant_plan.h, DynamicQuantTiling) by aqo::FillDynamicQuantTilingData, the one fill
// function shared by the CANN TilingFunc and the emulator runner. The field list mirrors DynamicQuantTiling
// one to one; 64-bit fields come first so every field sits at its natural alignment.
#ifndef AQO_DYNAMIC_QUANT_TILING_H
#define AQO_DYNAMIC_QUANT_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {

BEGIN_TILING_DATA_DEF(AqoDynamicQuantTilingData)
TILING_DATA_FIELD_DEF(uint64_t, rows);          // R = prod(shape[:-1])
TILING_DATA_FIELD_DEF(uint64_t, rowsPerCore);   // rows every used core gets at least
TILING_DATA_FIELD_DEF(uint32_t, mode);          // aqo::DynamicQuantMode: 0 resident rows, 1 streamed multi-pass
TILING_DATA_FIELD_DEF(uint32_t, xDtype);        // aqo::DType of x (float16 / bfloat16)
TILING_DATA_FIELD_DEF(uint32_t, dstDtype);      // aqo::DType of y
TILING_DATA_FIELD_DEF(uint32_t, hasSmooth);
TILING_DATA_FIELD_DEF(uint32_t, cols);          // H = shape[-1]
TILING_DATA_FIELD_DEF(uint32_t, colsPad);       // UB row stride in elements (32-byte granule for x and y)
TILING_DATA_FIELD_DEF(uint32_t, usedCores);     // block dim
TILING_DATA_FIELD_DEF(uint32_t, rowsExtra);     // the last rowsExtra cores get one row more
TILING_DATA_FIELD_DEF(uint32_t, rowsPerIter);   // rows per UB iteration (per scale store)
TILING_DATA_FIELD_DEF(uint32_t, chunk);         // elements per fp32 compute chunk
TILING_DATA_FIELD_DEF(uint32_t, numChunks);     // chunks per row
TILING_DATA_FIELD_DEF(uint32_t, xSlots);        // queue depth of x_in (2 = double buffered)
TILING_DATA_FIELD_DEF(uint32_t, ySlots);        // queue depth of y_out and scale_out
TILING_DATA_FIELD_DEF(uint32_t, xBufBytes);     // UB bytes of each buffer, as the plan's UB map budgets them
TILING_DATA_FIELD_DEF(uint32_t, yBufBytes);
TILING_DATA_FIELD_DEF(uint32_t, scaleBufBytes);
TILING_DATA_FIELD_DEF(uint32_t, smoothBufBytes);
TILING_DATA_FIELD_DEF(uint32_t, workBytes);
TILING_DATA_FIELD_DEF(uint32_t, tmpBytes);
TILING_DATA_FIELD_DEF(uint32_t, reduceBytes);
TILING_DATA_FIELD_DEF(uint32_t, statBytes);
TILING_DATA_FIELD_DEF(float, dmax);             // dtype table quant_max of dst
TILING_DATA_FIELD_DEF(float, clipLo);           // y is clipped to [clipLo, clipHi] before the dst cast
TILING_DATA_FIELD_DEF(float, clipHi);
TILING_DATA_FIELD_DEF(uint32_t, nanCode);       // dst bit pattern of NaN (float8 / hifloat8); 0 for int8
TILING_DATA_FIELD_DEF(float, satMax);           // 310p saturation mode: Inf in x -> +-satMax (float16 max); else 0
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AqoDynamicQuant, AqoDynamicQuantTilingData)

}  // namespace optiling

#endif  // AQO_DYNAMIC_QUANT_TILING_H
