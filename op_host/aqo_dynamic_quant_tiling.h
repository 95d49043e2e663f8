// Tiling data of AqoDynamicQuant: CANN's tiling-data class of the fields in
// op_host/tiling_core/dynamic_quant_tiling_fields.h (the one definition), filled from the host plan
// (op_host/tiling_core/dynamic_quant_plan.h) by aqo::FillDynamicQuantTilingData, the one fill function shared by the
// CANN TilingFunc and the emulator runner. CANN's build generates the kernel's struct from this registration.
#ifndef AQO_DYNAMIC_QUANT_TILING_H
#define AQO_DYNAMIC_QUANT_TILING_H

#include "register/tilingdata_base.h"
#include "tiling_core/dynamic_quant_tiling_fields.h"

namespace optiling {

#define AQO_DQ_TILING_DATA_FIELD(type, name) TILING_DATA_FIELD_DEF(type, name);
#define AQO_DQ_TILING_DATA_ARRAY(type, count, name) TILING_DATA_FIELD_DEF_ARR(type, count, name);
BEGIN_TILING_DATA_DEF(AqoDynamicQuantTilingData)
AQO_DYNAMIC_QUANT_TILING_FIELDS(AQO_DQ_TILING_DATA_FIELD, AQO_DQ_TILING_DATA_ARRAY)
END_TILING_DATA_DEF;
#undef AQO_DQ_TILING_DATA_FIELD
#undef AQO_DQ_TILING_DATA_ARRAY

REGISTER_TILING_DATA_CLASS(AqoDynamicQuant, AqoDynamicQuantTilingData)

}  // namespace optiling

#endif  // AQO_DYNAMIC_QUANT_TILING_H
