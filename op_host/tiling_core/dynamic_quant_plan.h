// DynamicQuant tiling plan: how the rows of x are spread over the vector cores and how one core's unified buffer
// (UB) is laid out, for op_kernel/aqo_dynamic_quant.cpp. Plain C++ with no CANN dependency: the CANN TilingFunc
// (op_host/aqo_dynamic_quant.cpp), the emulator runner and Python all call PlanDynamicQuant.
//
// C++11: included by the CANN op_host adapters (the implementation is C++17).
#ifndef AQO_TILING_CORE_DYNAMIC_QUANT_PLAN_H
#define AQO_TILING_CORE_DYNAMIC_QUANT_PLAN_H

#include <cstdint>
#include <string>
#include <vector>

#include "dtype_table.h"
#include "plan_common.h"
#include "soc_table.h"

namespace aqo {

// How the kernel walks a row. The values are the kernel's tiling codes (kModeResident / kModeStream).
enum class DynamicQuantMode : uint32_t {
    // rowsPerIter whole rows of x are copied into UB once; each row is computed in fp32 chunks (one chunk = the
    // plain single pass; several = "row_resident_chunked": a max pass and a quantize pass over the resident row).
    RESIDENT = 0,
    // rows longer than one UB load: pass 1 streams the row's chunks from GM for the max, pass 2 streams them
    // again and quantizes ("multi_pass", x read twice).
    STREAM = 1,
};

struct DynamicQuantRequest {
    std::vector<int64_t> shape;  // x shape, rank >= 2; rows = prod(shape[:-1]), H = shape[-1]
    DType x_dtype = DType::FLOAT16;
    DType dst_type = DType::INT8;
    bool smooth = false;         // smooth_scales [H] (x's dtype) given
    bool asymmetric = false;     // refused by the request check (no kernel implements it)
    std::string soc;             // any name SocFromName accepts
    SocOverrides overrides;      // device-reported core count / UB size (0 = the SoC table's)
    // false: the tiling only, no PlanExplanation (no strings, no per-core vectors). The CANN TilingFunc runs on
    // every launch and needs nothing but the tiling; Python and the validation scripts keep the default.
    bool explain = true;
};

// The kernel's tiling, field for field the AqoDynamicQuantTilingData of op_host/aqo_dynamic_quant_tiling.h
// (FillDynamicQuantTilingData copies it). Byte sizes are per slot and already 32-byte aligned.
struct DynamicQuantTiling {
    uint64_t rows = 0;          // R
    uint64_t rowsPerCore = 0;   // rows every used core gets at least (without DataCopyPad: >= 8 when rows >= 8)
    uint32_t mode = 0;          // DynamicQuantMode
    uint32_t xDtype = 0;        // DType of x
    uint32_t dstDtype = 0;      // DType of y
    uint32_t hasSmooth = 0;
    uint32_t cols = 0;          // H
    uint32_t colsPad = 0;       // UB row stride in elements: x and y rows both whole 32-byte blocks
    uint32_t usedCores = 0;     // block dim (0 only when there is no row)
    uint32_t rowsExtra = 0;     // the last rowsExtra cores take one row more
    uint32_t rowsPerIter = 0;   // rows per UB iteration and scale store (without DataCopyPad: a multiple of 8)
    uint32_t chunk = 0;         // elements per fp32 compute chunk (a multiple of 64, or colsPad)
    uint32_t numChunks = 0;     // ceil(H / chunk)
    uint32_t xSlots = 0;        // x_in queue depth (2 = double buffered)
    uint32_t ySlots = 0;        // y_out / scale_out queue depth
    uint32_t xBufBytes = 0;
    uint32_t yBufBytes = 0;
    uint32_t scaleBufBytes = 0;
    uint32_t smoothBufBytes = 0;  // resident fp16/bf16 smooth row; 0 without smooth or in STREAM mode
    uint32_t workBytes = 0;
    uint32_t tmpBytes = 0;
    uint32_t reduceBytes = 0;
    uint32_t statBytes = 0;
    float dmax = 0.0f;          // quant_max of dst (dtype table)
    float clipLo = 0.0f;        // y is clipped to [clipLo, clipHi] before the dst cast
    float clipHi = 0.0f;
    uint32_t nanCode = 0;       // dst bit pattern of a NaN y (float8 / hifloat8); 0 for int8
    float satMax = 0.0f;        // saturation-mode SoCs (310p): Inf in x becomes +-satMax, float16's finite max
                                // (dtype table); 0 on the other SoCs (IEEE Inf / NaN, nothing replaced)
};

struct DynamicQuantPlan {
    DynamicQuantTiling tiling;
    PlanExplanation explanation;
    uint32_t block_dim = 0;     // launch block dim: usedCores, at least 1 (an empty tensor launches one idle core)
    uint64_t tiling_key = 0;    // mode (the kernel branches on the tiling fields; the key is informational)
    uint64_t workspace_bytes = 0;
};

// Checks the request (CheckDynamicQuantRequest: seed 004 limits, dtypes per SoC) and plans it. Returns false with
// a complete violation when the request is refused or no UB layout fits.
bool PlanDynamicQuant(const DynamicQuantRequest& request, DynamicQuantPlan* plan, ConstraintViolation* violation);

// Copies the plan's tiling into a tiling-data object with CANN's generated setters (set_rows, ...): the CANN
// TilingFunc and the emulator runner use this one function.
template <class TilingData>
void FillDynamicQuantTilingData(const DynamicQuantTiling& t, TilingData* td)
{
    td->set_rows(t.rows);
    td->set_rowsPerCore(t.rowsPerCore);
    td->set_mode(t.mode);
    td->set_xDtype(t.xDtype);
    td->set_dstDtype(t.dstDtype);
    td->set_hasSmooth(t.hasSmooth);
    td->set_cols(t.cols);
    td->set_colsPad(t.colsPad);
    td->set_usedCores(t.usedCores);
    td->set_rowsExtra(t.rowsExtra);
    td->set_rowsPerIter(t.rowsPerIter);
    td->set_chunk(t.chunk);
    td->set_numChunks(t.numChunks);
    td->set_xSlots(t.xSlots);
    td->set_ySlots(t.ySlots);
    td->set_xBufBytes(t.xBufBytes);
    td->set_yBufBytes(t.yBufBytes);
    td->set_scaleBufBytes(t.scaleBufBytes);
    td->set_smoothBufBytes(t.smoothBufBytes);
    td->set_workBytes(t.workBytes);
    td->set_tmpBytes(t.tmpBytes);
    td->set_reduceBytes(t.reduceBytes);
    td->set_statBytes(t.statBytes);
    td->set_dmax(t.dmax);
    td->set_clipLo(t.clipLo);
    td->set_clipHi(t.clipHi);
    td->set_nanCode(t.nanCode);
    td->set_satMax(t.satMax);
}

}  // namespace aqo

#endif  // AQO_TILING_CORE_DYNAMIC_QUANT_PLAN_H
