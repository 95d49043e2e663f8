// The one definition of AqoQuantMatMul's tiling data (besides the Matmul API's TCubeTiling, which CANN defines):
// every field the kernel (op_kernel/aqo_quant_matmul.cpp and its stage headers) reads, in layout order, as an
// X-macro list: the cube stage's list (matmul_cube_tiling_fields.h, shared with AqoQLinearMatMul) and the float
// epilogue's. Expanded by the tiling core's struct aqo::QuantMatMulTiling and its fill (quant_matmul_plan.h) and the
// Python binding's dict (python/csrc/bind_quant_matmul_plan.cpp); the CANN tiling-data class
// (op_host/aqo_quant_matmul_tiling.h) is written from it by scripts/gen_tiling_headers.py. A field is added here.
//
//   AQO_QUANT_MATMUL_TILING_FIELDS(FIELD, ARRAY): FIELD(type, name) per scalar, ARRAY(type, count, name) per array.
//
// Comments inside the list are /* */: a // comment would swallow the line continuation. One field a line:
// scripts/gen_tiling_headers.py reads the list as text.
// C++11, no includes but the shared list's: the CANN op_host adapters and the C++17 tiling core both include it.
#ifndef AQO_TILING_CORE_QUANT_MATMUL_TILING_FIELDS_H
#define AQO_TILING_CORE_QUANT_MATMUL_TILING_FIELDS_H

#include "matmul_cube_tiling_fields.h"

// The cube stage's fields first (shared with AqoQLinearMatMul), then the float epilogue's.
#define AQO_QUANT_MATMUL_TILING_FIELDS(FIELD, ARRAY)                                                                 \
    AQO_MATMUL_CUBE_TILING_FIELDS(FIELD, ARRAY)                                                                      \
    FIELD(uint32_t, outCode)           /* 0 float32, 1 float16, 2 bfloat16 */                                         \
    FIELD(uint32_t, aScaleKind)        /* 0 per tensor, 1 per row of a */                                             \
    FIELD(uint32_t, bScaleKind)        /* 0 per tensor, 1 per column of b */                                          \
    FIELD(uint32_t, aScaleBatchStride) /* per-row scales per a matrix (0 = one [M] vector for all) */                 \
    FIELD(uint32_t, bScaleBatchStride) /* per-column scales per b matrix (0 = one [N] vector for all) */              \
    FIELD(uint32_t, biasKind)          /* 0 none, 1 per tensor, 2 per column */                                       \
    FIELD(uint32_t, biasBatchStride)   /* per-column bias per y matrix (0 = one [N] vector for all) */                \
    FIELD(uint32_t, ubColF32)          /* UB bytes of the epilogue's buffers, in InitBuffer order */                  \
    FIELD(uint32_t, ubRowF32)                                                                                         \
    FIELD(uint32_t, ubBias)                                                                                           \
    FIELD(uint32_t, ubPattern)                                                                                        \
    FIELD(uint32_t, ubYOut)

#endif  // AQO_TILING_CORE_QUANT_MATMUL_TILING_FIELDS_H
