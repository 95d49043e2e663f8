// The one definition of AqoDynamicQuant's tiling data: every field the kernel (op_kernel/aqo_dynamic_quant.cpp)
// reads, in layout order, as an X-macro list. Everything that has the fields expands this list or is written from it,
// and nothing else names them all:
//   - the tiling core's plain struct aqo::DynamicQuantTiling and the fill into any tiling-data class
//     (dynamic_quant_plan.h: FillDynamicQuantTilingData);
//   - the CANN tiling-data class optiling::AqoDynamicQuantTilingData (op_host/aqo_dynamic_quant_tiling.h, written
//     from this list by scripts/gen_tiling_headers.py), from whose registration CANN's build generates the
//     kernel-side struct that GET_TILING_DATA gives the kernel (the emulator's register/tilingdata_base.h makes the
//     same class a plain struct);
//   - the Python binding's tiling dict (python/csrc/bind_dynamic_quant_plan.cpp).
// A field is added here (then scripts/gen_tiling_headers.py is rerun), and used where it is needed; 64-bit fields
// come first so every field sits at its natural alignment in every expansion.
//
//   AQO_DYNAMIC_QUANT_TILING_FIELDS(FIELD, ARRAY): FIELD(type, name) per scalar, ARRAY(type, count, name) per array.
//
// Comments inside the list are /* */: a // comment would swallow the line continuation. One field a line:
// scripts/gen_tiling_headers.py reads the list as text.
// C++11, no includes: the CANN op_host adapters and the C++17 tiling core both include it.
#ifndef AQO_TILING_CORE_DYNAMIC_QUANT_TILING_FIELDS_H
#define AQO_TILING_CORE_DYNAMIC_QUANT_TILING_FIELDS_H

#define AQO_DYNAMIC_QUANT_TILING_FIELDS(FIELD, ARRAY)                                                                 \
    FIELD(uint64_t, rows)           /* R = prod(shape[:-1]) */                                                        \
    FIELD(uint64_t, rowsPerCore)    /* rows every used core gets at least (no DataCopyPad: >= one block of scales) */ \
    FIELD(uint32_t, xDtype)         /* aqo::DType of x (float16 / bfloat16) */                                       \
    FIELD(uint32_t, dstDtype)       /* aqo::DType of y */                                                             \
    FIELD(uint32_t, hasSmooth)      /* smooth_scales [H] given */                                                     \
    FIELD(uint32_t, asymmetric)     /* 0 symmetric; 1 float offset (int8, float8, hifloat8); 2 uint8 zero point */   \
    FIELD(uint32_t, cols)           /* H = shape[-1] */                                                               \
    FIELD(uint32_t, colsPad)        /* UB row stride in elements: x and y rows both whole 32-byte blocks */          \
    FIELD(uint32_t, usedCores)      /* block dim (0 only when there is no row) */                                    \
    FIELD(uint32_t, rowsExtra)      /* the last rowsExtra cores take one row more */                                 \
    FIELD(uint32_t, rowsPerIter)    /* rows per UB iteration (resident) / per scale store (stream) */                \
    FIELD(uint32_t, chunk)          /* float32 elements of the work buffer: rowsPerIter * colsPad when numChunks is  \
                                       1 (the group at once), else a multiple of 64 below the row */                  \
    FIELD(uint32_t, numChunks)      /* chunks per row: 1, or ceil(H / chunk) */                                       \
    FIELD(uint32_t, xSlots)         /* x_in queue depth (2 = double buffered; pipelined: up to 4, loads run ahead) */\
    FIELD(uint32_t, ySlots)         /* y_out queue depth */                                                          \
    FIELD(uint32_t, scaleSlots)     /* scale_out / offset_out queue depth (every freed VECOUT buffer holds an MTE3_V  \
                                       event id until it is allocated again: 8 ids at most for y, scales, offsets) */\
    FIELD(uint32_t, statSets)       /* sets of work / acc / row-stat buffers: 2 when the next group's statistics    \
                                       overlap this group's quantization (pipelined), else 1 */                      \
    FIELD(uint32_t, scaleRows)      /* rows of scales one scale_out slot gathers (pipelined: several groups; else    \
                                       rowsPerIter) */                                                                \
    FIELD(uint32_t, xBufBytes)      /* UB bytes of each buffer per slot, 32-byte multiples, as the plan's UB map */  \
    FIELD(uint32_t, yBufBytes)                                                                                        \
    FIELD(uint32_t, scaleBufBytes)                                                                                    \
    FIELD(uint32_t, offsetBufBytes) /* 0 when symmetric */                                                            \
    FIELD(uint32_t, smoothBufBytes) /* resident float32 smooth row; 0 without smooth or when streamed */             \
    FIELD(uint32_t, workBytes)      /* float32 values v of the rows (or chunk) being computed */                     \
    FIELD(uint32_t, tmpBytes)       /* their magnitudes' bit patterns, then the clamped row maxima */                \
    FIELD(uint32_t, accBytes)       /* per-row maximum accumulators (64 lanes a row; asymmetric: also max, min) */  \
    FIELD(uint32_t, rowStatBytes)   /* per-row reductions, scales (offsets), broadcast blocks */                     \
    FIELD(uint32_t, constBytes)     /* the magnitude mask block and the dmax (and quantization range) vectors */     \
    FIELD(float, dmax)              /* quant_max of dst (dtype table); asymmetric: qmax */                           \
    FIELD(float, quantRange)        /* asymmetric: qmax - qmin (255, or 2 x dmax for the float types) */             \
    FIELD(float, clipLo)            /* y is clipped to [clipLo, clipHi] where it can leave the range */              \
    FIELD(float, clipHi)                                                                                              \
    FIELD(float, finiteMax)         /* the largest row maximum of a finite row: FLT_MAX, or the saturation-mode      \
                                       bound (310p: 65504, 65504^2 with smooth scales) */                            \
    FIELD(uint32_t, nanCode)        /* dst bit pattern of a NaN y (float8 / hifloat8); 0 for int8 */                 \
    FIELD(float, satMax)            /* saturation-mode SoCs (310p): Inf in x -> +-satMax (float16 max); else 0 */

#endif  // AQO_TILING_CORE_DYNAMIC_QUANT_TILING_FIELDS_H
