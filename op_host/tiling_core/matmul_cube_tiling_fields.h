// The cube stage's tiling fields, shared by AqoQLinearMatMul and AqoQuantMatMul: both operators' field lists
// (qlinear_matmul_tiling_fields.h, quant_matmul_tiling_fields.h) start with this list, so a field of the shared stage
// is added here once. The stage itself: op_kernel/aqo_qmm_cube_stage.h (kernel), matmul_cube_plan.h (plan).
//
//   AQO_MATMUL_CUBE_TILING_FIELDS(FIELD, ARRAY): FIELD(type, name) per scalar, ARRAY(type, count, name) per array.
//
// Comments inside the list are /* */: a // comment would swallow the line continuation. 64-bit fields first. One
// field a line: scripts/gen_tiling_headers.py reads the list as text.
// C++11, no includes: the CANN op_host adapters and the C++17 tiling core both include it.
#ifndef AQO_TILING_CORE_MATMUL_CUBE_TILING_FIELDS_H
#define AQO_TILING_CORE_MATMUL_CUBE_TILING_FIELDS_H

// Broadcast batch dims the tiling carries (deeper batches are refused by the plan): the length of its arrays.
#define AQO_QMM_MAX_BATCH_RANK 8

#define AQO_MATMUL_CUBE_TILING_FIELDS(FIELD, ARRAY)                                                                  \
    FIELD(uint64_t, wsPrepAOffset)    /* user workspace (bytes): prepared A strips ([ones row;] rows, kPad apart) */ \
    FIELD(uint64_t, wsPrepBOffset)    /* mapped uint8 b, b's own layout (split SoCs) */                             \
    FIELD(uint64_t, wsRaOffset)       /* correction row terms, one raStripBytes slot per strip (per core: 310p) */  \
    FIELD(uint64_t, wsCOffset)        /* the workers' C areas, wsCPerWorker bytes each */                           \
    FIELD(uint64_t, wsCPerWorker)                                                                                   \
    FIELD(uint64_t, prepAStripBytes)  /* one prepared strip: (onesRow + stripM) x kPad */                           \
    FIELD(uint64_t, prepAPerWorker)   /* private preparation: one prepared-strip slot per worker; shared: 0 */       \
    FIELD(uint64_t, prepBBytes)       /* mapped b: bMatrices x K x N rounded up to 32 */                            \
    FIELD(uint64_t, unitCount)        /* base blocks of y: batch x strips x nBlocks, N fastest */                   \
    FIELD(uint32_t, usedCores)        /* block dim (cube cores / 310p AI cores) */                                  \
    FIELD(uint32_t, workersPerCore)   /* vector workers per block: 2 on split SoCs (AIV : AIC = 2 : 1), 1 on 310p */ \
    FIELD(uint32_t, m)                                                                                              \
    FIELD(uint32_t, n)                                                                                              \
    FIELD(uint32_t, k)                                                                                              \
    FIELD(uint32_t, batch)            /* broadcast batch matrices of y */                                           \
    FIELD(uint32_t, batchRank)        /* <= AQO_QMM_MAX_BATCH_RANK */                                               \
    ARRAY(uint32_t, AQO_QMM_MAX_BATCH_RANK, batchDims)     /* y batch dims, outermost first (unused entries 1) */   \
    ARRAY(uint32_t, AQO_QMM_MAX_BATCH_RANK, aBatchStrides) /* a matrices per step of each dim (0 = broadcast) */    \
    ARRAY(uint32_t, AQO_QMM_MAX_BATCH_RANK, bBatchStrides)                                                          \
    FIELD(uint32_t, aMatrices)        /* batch matrices stored in a / b */                                          \
    FIELD(uint32_t, bMatrices)                                                                                      \
    FIELD(uint32_t, aCode)            /* aqo::QmmOperandCode of a / b */                                            \
    FIELD(uint32_t, bCode)                                                                                          \
    FIELD(uint32_t, bTrans)           /* 1: b is stored [..., N, K] (a transposed view of b) */                     \
    FIELD(uint32_t, cubeACode)        /* what the cube multiplies (after the mapping): QmmOperandCode */            \
    FIELD(uint32_t, cubeBCode)                                                                                      \
    FIELD(uint32_t, mapA)             /* 1: the prepared A is a's bytes XOR 0x80 (int8 <-> uint8, exact) */         \
    FIELD(uint32_t, mapB)             /* 1: b mapped into wsPrepB (uint8 -> int8) */                                \
    FIELD(int32_t, zpShiftA)          /* the mapping's zero point change: za' = za - zpShiftA (+-128 or 0) */       \
    FIELD(int32_t, zpShiftB)                                                                                        \
    FIELD(uint32_t, aZpKind)          /* 0 none (zero), 1 per tensor, 2 per row of a */                             \
    FIELD(uint32_t, bZpKind)          /* 0 none (zero), 1 per tensor, 2 per column of b */                          \
    FIELD(uint32_t, aZpBatchStride)   /* per-row zero points per a matrix (0 = one [M] vector for all) */           \
    FIELD(uint32_t, bZpBatchStride)                                                                                 \
    FIELD(uint32_t, sharedPrep)       /* 1: prepared operands shared by all workers (SyncAll); 0: per worker */ \
    FIELD(uint32_t, onesRow)          /* 1: prepared strips start with a ones row (the cube's column sums of B) */  \
    FIELD(uint32_t, stripM)           /* rows of a per strip (one base block of the cube with the ones row) */      \
    FIELD(uint32_t, strips)           /* strips per a matrix */                                                     \
    FIELD(uint32_t, kPad)             /* row stride of the prepared A (K rounded up to 32) */                       \
    FIELD(uint32_t, raStripBytes)     /* one strip's row terms: stripM x 64 bytes */                                \
    FIELD(uint32_t, baseM)            /* the cube's base block (TCubeTiling) */                                     \
    FIELD(uint32_t, baseN)                                                                                          \
    FIELD(uint32_t, baseK)                                                                                          \
    FIELD(uint32_t, depthA1)          /* L1 tiles of A / B (k full load of A where it fits) */                      \
    FIELD(uint32_t, depthB1)                                                                                        \
    FIELD(uint32_t, dbL0C)            /* L0C double buffering (1 when a base block takes all of L0C) */             \
    FIELD(uint32_t, nBlocks)          /* base blocks per y row strip (N / baseN rounded up) */                      \
    FIELD(uint32_t, callBlocks)       /* base blocks per cube call at most (one N step of the call) */              \
    FIELD(uint32_t, roundRanges)      /* 310p: N ranges of a round of strips (L2-sized b); 0: a range per core */   \
    FIELD(uint32_t, cOrgN)            /* 310p: row stride (int32) of a call's C area; split SoCs: 0 (blocks) */     \
    FIELD(uint32_t, exactConvert)     /* 1: int32 -> float32 in exact parts (310p's mode-less Cast, |acc| > 2^24) */ \
    FIELD(uint32_t, vectorCorrection) /* 1: zero-point terms on int32 vectors (no partial sum leaves int32) */      \
    FIELD(uint32_t, prepChunk)        /* bytes of a preparation step (row segments of a / b) */                     \
    FIELD(uint32_t, rowsPerChunk)     /* epilogue rows per vector step */                                           \
    FIELD(uint32_t, cStride)          /* epilogue row stride in elements (baseN rounded up to 32) */                \
    FIELD(uint32_t, ubMatmulWs)       /* 310p: the Matmul API's local workspace (SetLocalWorkspace); else 0 */      \
    FIELD(uint32_t, ubCIn)            /* UB bytes per buffer of the cube stage, in InitBuffer order */             \
    FIELD(uint32_t, ubTmp)                                                                                          \
    FIELD(uint32_t, ubColI32)                                                                                       \
    FIELD(uint32_t, ubRowI32)                                                                                       \
    FIELD(uint32_t, ubRowTerms)       /* a strip's correction row terms (kQmmRowTermInts int32 per row) */          \
    FIELD(uint32_t, ubPrepIn)                                                                                       \
    FIELD(uint32_t, ubPrepHalf)                                                                                     \
    FIELD(uint32_t, ubPrepOut)

#endif  // AQO_TILING_CORE_MATMUL_CUBE_TILING_FIELDS_H
