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
#include "dynamic_quant_tiling_fields.h"
#include "plan_common.h"
#include "soc_table.h"
#include "tiling_fields.h"

namespace aqo {

// How the kernel walks a row. The values are the plan's tiling keys, which select the kernel's branch
// (TILING_KEY_IS(0) / (1) / (2): kModeResident / kModeStream / kModePipelined), one kernel binary per mode.
enum class DynamicQuantMode : uint32_t {
    // rowsPerIter whole rows of x are copied into UB once; each row is computed in fp32 chunks (one chunk = the
    // plain single pass; several = "row_resident_chunked": a max pass and a quantize pass over the resident row).
    RESIDENT = 0,
    // rows longer than one UB load: pass 1 streams the row's chunks from GM for the max, pass 2 streams them
    // again and quantizes ("multi_pass", x read twice).
    STREAM = 1,
    // every mode, whole rows in UB, the group at once ("pipelined"): groups small enough that a core has several,
    // loads up to four groups ahead, and the next group's statistics on the vector unit while the scalar unit
    // classifies this group's rows (two sets of work buffers). Preferred when its buffers fit; else RESIDENT.
    PIPELINED = 2,
};

struct DynamicQuantRequest {
    std::vector<int64_t> shape;  // x shape, rank >= 2; rows = prod(shape[:-1]), H = shape[-1]
    DType x_dtype = DType::FLOAT16;
    DType dst_type = DType::INT8;
    bool smooth = false;         // smooth_scales [H] (x's dtype) given
    bool asymmetric = false;     // (y, scale, offset): the dst types of the SoC table's asymmetric list
    std::string soc;             // any name SocFromName accepts
    SocOverrides overrides;      // device-reported core count / UB size (0 = the SoC table's)
    // false: the tiling only, no PlanExplanation (no strings, no per-core vectors). The CANN TilingFunc runs on
    // every launch and needs nothing but the tiling; Python and the validation scripts keep the default.
    bool explain = true;
};

// The kernel's tiling: the fields of dynamic_quant_tiling_fields.h (the one definition; CANN's tiling-data class
// optiling::AqoDynamicQuantTilingData expands the same list). Byte sizes are per slot and already 32-byte aligned.
struct DynamicQuantTiling {
    AQO_DYNAMIC_QUANT_TILING_FIELDS(AQO_TILING_STRUCT_FIELD, AQO_TILING_STRUCT_ARRAY)
};

struct DynamicQuantPlan {
    DynamicQuantTiling tiling;
    PlanExplanation explanation;
    uint32_t block_dim = 0;     // launch block dim: usedCores, at least 1 (an empty tensor launches one idle core)
    uint64_t tiling_key = 0;    // DynamicQuantMode: the kernel binary (TILING_KEY_IS branch) the launch runs
    uint64_t workspace_bytes = 0;           // the kernel's own workspace (none)
    uint64_t system_workspace_bytes = 0;    // the SoC's system workspace before it (the launch reserves both)
};

// Checks the request (CheckDynamicQuantRequest: the documented per-SoC limits, dtypes per SoC) and plans it. Returns false with
// a complete violation when the request is refused or no UB layout fits.
bool PlanDynamicQuant(const DynamicQuantRequest& request, DynamicQuantPlan* plan, ConstraintViolation* violation);

// Copies the plan's tiling into a tiling-data object with CANN's generated setters (set_rows, ...): the CANN
// TilingFunc and the emulator runner use this one function.
template <class TilingData>
void FillDynamicQuantTilingData(const DynamicQuantTiling& t, TilingData* td)
{
    AQO_DYNAMIC_QUANT_TILING_FIELDS(AQO_TILING_FILL_FIELD, AQO_TILING_FILL_ARRAY)
}

}  // namespace aqo

#endif  // AQO_TILING_CORE_DYNAMIC_QUANT_PLAN_H
