// Tiling data of AqoQLinearMatMul: the Matmul API's TCubeTiling for the cube part, then the fields of the host
// plan (op_host/tiling_core/qlinear_matmul_plan.h, QLinearMatMulTiling) one to one, filled by
// aqo::FillQLinearMatMulTilingData (op_host/aqo_qlinear_matmul.cpp) and by the emulator runner.
#ifndef AQO_QLINEAR_MATMUL_TILING_H
#define AQO_QLINEAR_MATMUL_TILING_H

#include "register/tilingdata_base.h"
#ifdef AQO_QMM_EMULATOR_TILING
// The CPU emulator's TCubeTiling (op_kernel/emulator/include/lib/matmul_tiling_emu.h): the runner defines the macro.
#include "lib/matmul_tiling_emu.h"
#else
// CANN: optiling::TCubeTiling and matmul_tiling::MultiCoreMatmulTiling.
#include "tiling/tiling_api.h"
#endif

namespace optiling {

BEGIN_TILING_DATA_DEF(AqoQLinearMatMulTilingData)
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTiling);  // the Matmul API's tiling (MultiCoreMatmulTiling)
TILING_DATA_FIELD_DEF(uint64_t, wsPerWorker);           // workspace bytes of one vector worker
TILING_DATA_FIELD_DEF(uint32_t, usedCores);             // block dim
TILING_DATA_FIELD_DEF(uint32_t, workersPerCore);        // vector workers per block (2 split, 1 coupled)
TILING_DATA_FIELD_DEF(uint32_t, m);
TILING_DATA_FIELD_DEF(uint32_t, n);
TILING_DATA_FIELD_DEF(uint32_t, k);
TILING_DATA_FIELD_DEF(uint32_t, batch);                 // broadcast batch matrices of y
TILING_DATA_FIELD_DEF(uint32_t, batchRank);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, batchDims);      // y batch dims (aqo::kQmmMaxBatchRank entries)
TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, aBatchStrides);  // a matrices per step of each batch dim (0 = broadcast)
TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, bBatchStrides);
TILING_DATA_FIELD_DEF(uint32_t, aMatrices);
TILING_DATA_FIELD_DEF(uint32_t, bMatrices);
TILING_DATA_FIELD_DEF(uint32_t, aCode);                 // aqo::QmmOperandCode
TILING_DATA_FIELD_DEF(uint32_t, bCode);
TILING_DATA_FIELD_DEF(uint32_t, yCode);
TILING_DATA_FIELD_DEF(uint32_t, mapA);                  // uint8 operand mapped to int8 (v - 128)
TILING_DATA_FIELD_DEF(uint32_t, mapB);
TILING_DATA_FIELD_DEF(uint32_t, aParamKind);            // 0 per tensor, 1 per row
TILING_DATA_FIELD_DEF(uint32_t, bParamKind);            // 0 per tensor, 1 per column
TILING_DATA_FIELD_DEF(uint32_t, aParamBatchStride);     // parameter elements per a matrix (0 = shared [M])
TILING_DATA_FIELD_DEF(uint32_t, bParamBatchStride);
TILING_DATA_FIELD_DEF(uint32_t, baseM);                 // output tile
TILING_DATA_FIELD_DEF(uint32_t, baseN);
TILING_DATA_FIELD_DEF(uint32_t, tilesM);
TILING_DATA_FIELD_DEF(uint32_t, tilesN);
TILING_DATA_FIELD_DEF(uint32_t, tileCount);
TILING_DATA_FIELD_DEF(uint32_t, cStride);               // int32 per accumulator row in the workspace
TILING_DATA_FIELD_DEF(uint32_t, bpStride);              // bytes per row of the mapped b slab
TILING_DATA_FIELD_DEF(uint32_t, mapChunk);
TILING_DATA_FIELD_DEF(uint32_t, wsAOffset);
TILING_DATA_FIELD_DEF(uint32_t, wsBOffset);
TILING_DATA_FIELD_DEF(uint32_t, wsCOffset);
TILING_DATA_FIELD_DEF(uint32_t, wsRaOffset);
TILING_DATA_FIELD_DEF(uint32_t, wsCbOffset);
TILING_DATA_FIELD_DEF(uint32_t, wsOnesOffset);
TILING_DATA_FIELD_DEF(uint32_t, ubCIn);                 // UB bytes per buffer, in InitBuffer order
TILING_DATA_FIELD_DEF(uint32_t, ubYOut);
TILING_DATA_FIELD_DEF(uint32_t, ubVecI32);
TILING_DATA_FIELD_DEF(uint32_t, ubVecF32);
TILING_DATA_FIELD_DEF(uint32_t, ubHalf);
TILING_DATA_FIELD_DEF(uint32_t, ubRa);
TILING_DATA_FIELD_DEF(uint32_t, ubMapIn);
TILING_DATA_FIELD_DEF(uint32_t, ubMapHalf);
TILING_DATA_FIELD_DEF(uint32_t, ubMapOut);
TILING_DATA_FIELD_DEF(float, yMax);                     // float8 y: saturation bound (dtype table); else 0
TILING_DATA_FIELD_DEF(float, yQMin);                    // int8 / uint8 y: saturation range (dtype table int_min /
TILING_DATA_FIELD_DEF(float, yQMax);                    // int_max); float8 y: 0
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AqoQLinearMatMul, AqoQLinearMatMulTilingData)

}  // namespace optiling

#endif  // AQO_QLINEAR_MATMUL_TILING_H
