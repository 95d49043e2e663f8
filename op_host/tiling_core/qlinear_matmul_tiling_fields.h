// The one definition of AqoQLinearMatMul's tiling data (besides the Matmul API's TCubeTiling, which CANN defines):
// every field the kernel (op_kernel/aqo_qlinear_matmul.cpp and its stage headers) reads, in layout order, as an
// X-macro list: the cube stage's list (matmul_cube_tiling_fields.h, shared with AqoQuantMatMul) and the epilogue's.
// Everything that has the fields expands this list and nothing else names them all:
//   - the tiling core's plain struct aqo::QLinearMatMulTiling and the fill into any tiling-data class
//     (qlinear_matmul_plan.h: FillQLinearMatMulTilingData);
//   - the CANN tiling-data class optiling::AqoQLinearMatMulTilingData (op_host/aqo_qlinear_matmul_tiling.h: the
//     TCubeTiling member first, then this list, written by scripts/gen_tiling_headers.py), from whose registration
//     CANN's build generates the kernel-side struct that GET_TILING_DATA gives the kernel (the emulator's
//     register/tilingdata_base.h makes the same class a plain struct);
//   - the Python binding's tiling dict (python/csrc/bind_qlinear_matmul_plan.cpp).
// A field is added here, and used where it is needed; 64-bit fields come first so every field sits at its natural
// alignment in every expansion.
//
//   AQO_QLINEAR_MATMUL_TILING_FIELDS(FIELD, ARRAY): FIELD(type, name) per scalar, ARRAY(type, count, name) per array.
//
// Comments inside the list are /* */: a // comment would swallow the line continuation. One field a line:
// scripts/gen_tiling_headers.py reads the list as text.
// C++11, no includes but the shared list's: the CANN op_host adapters and the C++17 tiling core both include it.
#ifndef AQO_TILING_CORE_QLINEAR_MATMUL_TILING_FIELDS_H
#define AQO_TILING_CORE_QLINEAR_MATMUL_TILING_FIELDS_H

#include "matmul_cube_tiling_fields.h"

// The cube stage's fields first (shared with AqoQuantMatMul), then the requantization epilogue's.
#define AQO_QLINEAR_MATMUL_TILING_FIELDS(FIELD, ARRAY)                                                                \
    AQO_MATMUL_CUBE_TILING_FIELDS(FIELD, ARRAY)                                                                      \
    FIELD(uint32_t, yCode)             /* aqo::QmmOperandCode of y */                                                 \
    FIELD(uint32_t, aParamKind)        /* 0 per tensor, 1 per row (a) / per column (b): scales and zero points */     \
    FIELD(uint32_t, bParamKind)                                                                                       \
    FIELD(uint32_t, aParamBatchStride) /* parameter elements per operand batch matrix (0 = one shared vector) */      \
    FIELD(uint32_t, bParamBatchStride)                                                                                \
    FIELD(uint32_t, ubColF32)          /* UB bytes of the epilogue's buffers, in InitBuffer order */                  \
    FIELD(uint32_t, ubRowF32)                                                                                         \
    FIELD(uint32_t, ubPattern)                                                                                        \
    FIELD(uint32_t, ubHalf)                                                                                           \
    FIELD(uint32_t, ubYOut)                                                                                           \
    FIELD(float, yMax)                 /* float8 y: saturation bound (dtype table quant_max); else 0 */               \
    FIELD(float, yQMin)                /* int8 / uint8 y: saturation range (dtype table int_min / int_max) */        \
    FIELD(float, yQMax)                /* float8 y: 0, 0 */                                                          \
    FIELD(uint32_t, yNanCode)          /* float8 y: the bit pattern of a NaN y (dtype table nan_code); else 0 */     \
    FIELD(uint32_t, vdPanelK)          /* vector decode (tiling key 1): b rows per panel (float32 sums stay exact) */ \
    FIELD(uint32_t, vdAChunkK)         /* a rows per DMA (a multiple of vdPanelK): a loaded once per chunk */        \
    FIELD(uint32_t, vdGranule)         /* columns per unit of the workers' split (unitCount = batch x vdGranules) */  \
    FIELD(uint32_t, vdGranules)        /* units per y batch matrix: N / vdGranule rounded up */                       \
    FIELD(uint32_t, vdSlices)          /* K slices (split SoCs, one y matrix): partial sums via the workspace */     \
    FIELD(uint32_t, ubVdB)             /* UB bytes of the vector decode's buffers, in InitBuffer order */            \
    FIELD(uint32_t, ubVdA)                                                                                            \
    FIELD(uint32_t, ubVdBHalf)                                                                                        \
    FIELD(uint32_t, ubVdBF32)                                                                                         \
    FIELD(uint32_t, ubVdAHalf)                                                                                        \
    FIELD(uint32_t, ubVdAF32)                                                                                         \
    FIELD(uint32_t, ubVdPattern)                                                                                      \
    FIELD(uint32_t, ubVdAcc)                                                                                          \
    FIELD(uint32_t, ubVdZb)                                                                                           \
    FIELD(uint32_t, cdGroup)           /* cube decode (tiling key 2, 310p): y columns per group (an L0B half's) */   \
    FIELD(uint32_t, cdChunkK)          /* b rows per chunk: one DMA, turned and copied to L1 (a multiple of 32) */   \
    FIELD(uint32_t, cdRowsA)           /* A's rows in L0A: M, the ones row, zero rows to whole 16-row blocks */      \
    FIELD(uint32_t, cdPieceK)          /* A's K rows per L0A load (a multiple of 32) */                               \
    FIELD(uint32_t, ubCdWork)          /* UB bytes of the cube decode's buffers, in InitBuffer order */              \
    FIELD(uint32_t, ubCdStage)                                                                                        \
    FIELD(uint32_t, ubCdRowTerms)                                                                                     \
    FIELD(uint32_t, ubCdTmp)                                                                                          \
    FIELD(uint32_t, cgPanel)           /* cube GEMM (tiling key 3, 310p): y columns per panel of b kept in L1 */      \
    FIELD(uint32_t, cgChunkK)          /* b rows per chunk of a panel's load (one DMA, turned, copied to L1) */       \
    FIELD(uint32_t, cgSlab)            /* a's rows per slab in L1 and L0A (whole 16-row blocks) */                    \
    FIELD(uint32_t, cgKStep)           /* K values per L0A / L0B load and Mmad (a multiple of 32) */                  \
    FIELD(uint32_t, cgKStepRa)         /* the same where a's row sums come from the cube (L0B's ones beside) */      \
    FIELD(uint32_t, cgKPart)           /* K values per pass over a (K when one; int32 sums between passes in GM) */  \
    FIELD(uint32_t, ubCgWork)          /* UB bytes of the cube GEMM's buffers, in InitBuffer order */                \
    FIELD(uint32_t, ubCgC)                                                                                            \
    FIELD(uint32_t, ubCgStage)                                                                                        \
    FIELD(uint32_t, ubCgRowTerms)                                                                                     \
    FIELD(uint32_t, ubCgTmp)

#endif  // AQO_TILING_CORE_QLINEAR_MATMUL_TILING_FIELDS_H
