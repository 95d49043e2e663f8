// Tiling data of AqoQuantMatMul: CANN's tiling-data class of the Matmul API's TCubeTiling for the cube part, then
// the fields in op_host/tiling_core/quant_matmul_tiling_fields.h (the one definition), filled by
// aqo::FillQuantMatMulTilingData (op_host/aqo_quant_matmul.cpp) and by the emulator runner. CANN's build
// generates the kernel's struct from this registration.
#ifndef AQO_QUANT_MATMUL_TILING_H
#define AQO_QUANT_MATMUL_TILING_H

#include "register/tilingdata_base.h"
#include "tiling_core/quant_matmul_tiling_fields.h"
#ifdef AQO_QMM_EMULATOR_TILING
// The CPU emulator's TCubeTiling (op_kernel/emulator/include/lib/matmul_tiling_emu.h): the runner defines the macro.
#include "lib/matmul_tiling_emu.h"
#else
// CANN: optiling::TCubeTiling and matmul_tiling::MultiCoreMatmulTiling.
#include "tiling/tiling_api.h"
#endif

namespace optiling {

#define AQO_QMM_TILING_DATA_FIELD(type, name) TILING_DATA_FIELD_DEF(type, name);
#define AQO_QMM_TILING_DATA_ARRAY(type, count, name) TILING_DATA_FIELD_DEF_ARR(type, count, name);
BEGIN_TILING_DATA_DEF(AqoQuantMatMulTilingData)
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTiling);  // the Matmul API's tiling (MultiCoreMatmulTiling)
AQO_QUANT_MATMUL_TILING_FIELDS(AQO_QMM_TILING_DATA_FIELD, AQO_QMM_TILING_DATA_ARRAY)
END_TILING_DATA_DEF;
#undef AQO_QMM_TILING_DATA_FIELD
#undef AQO_QMM_TILING_DATA_ARRAY

REGISTER_TILING_DATA_CLASS(AqoQuantMatMul, AqoQuantMatMulTilingData)

}  // namespace optiling

#endif  // AQO_QUANT_MATMUL_TILING_H
