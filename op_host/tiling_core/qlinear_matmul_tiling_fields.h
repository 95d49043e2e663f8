// The one definition of AqoQLinearMatMul's tiling data (besides the Matmul API's TCubeTiling, which CANN defines):
// every field the kernel (op_kernel/aqo_qlinear_matmul.cpp) reads, in layout order, as an X-macro list.
// Everything that has the fields expands this list and nothing else names them all:
//   - the tiling core's plain struct aqo::QLinearMatMulTiling and the fill into any tiling-data class
//     (qlinear_matmul_plan.h: FillQLinearMatMulTilingData);
//   - the CANN tiling-data class optiling::AqoQLinearMatMulTilingData (op_host/aqo_qlinear_matmul_tiling.h: the
//     TCubeTiling member first, then this list), from whose registration CANN's build generates the kernel-side
//     struct that GET_TILING_DATA gives the kernel (the emulator's register/tilingdata_base.h makes the same class
//     a plain struct);
//   - the Python binding's tiling dict (python/csrc/bind_qlinear_matmul_plan.cpp).
// A field is added here, and used where it is needed; 64-bit fields come first so every field sits at its natural
// alignment in every expansion.
//
//   AQO_QLINEAR_MATMUL_TILING_FIELDS(FIELD, ARRAY): FIELD(type, name) per scalar, ARRAY(type, count, name) per array.
//
// Comments inside the list are /* */: a // comment would swallow the line continuation.
// C++11, no includes: the CANN op_host adapters and the C++17 tiling core both include it.
#ifndef AQO_TILING_CORE_QLINEAR_MATMUL_TILING_FIELDS_H
#define AQO_TILING_CORE_QLINEAR_MATMUL_TILING_FIELDS_H

// Broadcast batch dims the tiling carries (deeper batches are refused by the plan): the length of its arrays.
#define AQO_QMM_MAX_BATCH_RANK 8

#define AQO_QLINEAR_MATMUL_TILING_FIELDS(FIELD, ARRAY)                                                                \
    FIELD(uint64_t, wsPerWorker)       /* workspace bytes of one vector worker; the workers' areas follow */          \
    FIELD(uint64_t, wsAOffset)         /* workspace regions of one worker (bytes): mapped a, mapped b, int32 tile, */ \
    FIELD(uint64_t, wsBOffset)         /* row sums, (empty) column sums, ones */                                      \
    FIELD(uint64_t, wsCOffset)                                                                                        \
    FIELD(uint64_t, wsRaOffset)                                                                                       \
    FIELD(uint64_t, wsCbOffset)                                                                                       \
    FIELD(uint64_t, wsOnesOffset)                                                                                     \
    FIELD(uint32_t, usedCores)         /* block dim (cube cores / 310p AI cores) */                                   \
    FIELD(uint32_t, workersPerCore)    /* vector workers per block: 2 on split SoCs (AIV : AIC = 2 : 1), 1 on 310p */ \
    FIELD(uint32_t, m)                                                                                                \
    FIELD(uint32_t, n)                                                                                                \
    FIELD(uint32_t, k)                                                                                                \
    FIELD(uint32_t, batch)             /* broadcast batch matrices of y */                                            \
    FIELD(uint32_t, batchRank)         /* <= AQO_QMM_MAX_BATCH_RANK */                                                \
    ARRAY(uint32_t, AQO_QMM_MAX_BATCH_RANK, batchDims)     /* y batch dims, outermost first (unused entries 1) */    \
    ARRAY(uint32_t, AQO_QMM_MAX_BATCH_RANK, aBatchStrides) /* a matrices per step of each dim (0 = broadcast) */     \
    ARRAY(uint32_t, AQO_QMM_MAX_BATCH_RANK, bBatchStrides)                                                           \
    FIELD(uint32_t, aMatrices)         /* batch matrices stored in a / b */                                           \
    FIELD(uint32_t, bMatrices)                                                                                        \
    FIELD(uint32_t, aCode)             /* aqo::QmmOperandCode */                                                      \
    FIELD(uint32_t, bCode)                                                                                            \
    FIELD(uint32_t, yCode)                                                                                            \
    FIELD(uint32_t, mapA)              /* 1: uint8 operand mapped to int8 (v - 128): the cube takes int8 only */      \
    FIELD(uint32_t, mapB)                                                                                             \
    FIELD(uint32_t, aParamKind)        /* 0 per tensor, 1 per row (a) / per column (b) */                             \
    FIELD(uint32_t, bParamKind)                                                                                       \
    FIELD(uint32_t, aParamBatchStride) /* parameter elements per operand batch matrix (0 = one shared vector) */      \
    FIELD(uint32_t, bParamBatchStride)                                                                                \
    FIELD(uint32_t, baseM)             /* output tile */                                                              \
    FIELD(uint32_t, baseN)                                                                                            \
    FIELD(uint32_t, tilesM)                                                                                           \
    FIELD(uint32_t, tilesN)                                                                                           \
    FIELD(uint32_t, tileCount)                                                                                        \
    FIELD(uint32_t, cStride)           /* int32 elements per row of the tile's accumulator (baseN -> 8) */            \
    FIELD(uint32_t, bpStride)          /* bytes per row of the mapped b slab (baseN -> 32) */                         \
    FIELD(uint32_t, mapChunk)          /* bytes per UB chunk of the uint8 -> int8 mapping */                          \
    FIELD(uint32_t, ubMatmulWs)        /* 310p: the Matmul API's local workspace (SetLocalWorkspace); else 0 */      \
    FIELD(uint32_t, ubCIn)             /* UB bytes per buffer, in the kernel's InitBuffer order */                    \
    FIELD(uint32_t, ubYOut)                                                                                           \
    FIELD(uint32_t, ubVecI32)                                                                                         \
    FIELD(uint32_t, ubVecF32)                                                                                         \
    FIELD(uint32_t, ubHalf)                                                                                           \
    FIELD(uint32_t, ubRa)                                                                                             \
    FIELD(uint32_t, ubMapIn)                                                                                          \
    FIELD(uint32_t, ubMapHalf)                                                                                        \
    FIELD(uint32_t, ubMapOut)                                                                                         \
    FIELD(float, yMax)                 /* float8 y: saturation bound (dtype table quant_max); else 0 */               \
    FIELD(float, yQMin)                /* int8 / uint8 y: saturation range (dtype table int_min / int_max) */        \
    FIELD(float, yQMax)                /* float8 y: 0, 0 */

#endif  // AQO_TILING_CORE_QLINEAR_MATMUL_TILING_FIELDS_H
