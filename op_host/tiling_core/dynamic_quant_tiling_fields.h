// The one definition of AqoDynamicQuant's tiling data: every field the kernel (op_kernel/aqo_dynamic_quant.cpp)
// reads, in layout order, as an X-macro list. Everything that has the fields expands this list and nothing else
// names them all:
//   - the tiling core's plain struct aqo::DynamicQuantTiling and the fill into any tiling-data class
//     (dynamic_quant_plan.h: FillDynamicQuantTilingData);
//   - the CANN tiling-data class optiling::AqoDynamicQuantTilingData (op_host/aqo_dynamic_quant_tiling.h), from
//     whose registration CANN's build generates the kernel-side struct that GET_TILING_DATA gives the kernel (the
//     emulator's register/tilingdata_base.h makes the same class a plain struct);
//   - the Python binding's tiling dict (python/csrc/bind_dynamic_quant_plan.cpp).
// A field is added here, and used where it is needed; 64-bit fields come first so every field sits at its natural
// alignment in every expansion.
//
//   AQO_DYNAMIC_QUANT_TILING_FIELDS(FIELD, ARRAY): FIELD(type, name) per scalar, ARRAY(type, count, name) per array.
//
// Comments inside the list are /* */: a // comment would swallow the line continuation.
// C++11, no includes: the CANN op_host adapters and the C++17 tiling core both include it.
#ifndef AQO_TILING_CORE_DYNAMIC_QUANT_TILING_FIELDS_H
#define AQO_TILING_CORE_DYNAMIC_QUANT_TILING_FIELDS_H

#define AQO_DYNAMIC_QUANT_TILING_FIELDS(FIELD, ARRAY)                                                                 \
    FIELD(uint64_t, rows)           /* R = prod(shape[:-1]) */                                                        \
    FIELD(uint64_t, rowsPerCore)    /* rows every used core gets at least (no DataCopyPad: >= 8 when R >= 8) */       \
    FIELD(uint32_t, xDtype)         /* aqo::DType of x (float16 / bfloat16) */                                       \
    FIELD(uint32_t, dstDtype)       /* aqo::DType of y */                                                             \
    FIELD(uint32_t, hasSmooth)      /* smooth_scales [H] given */                                                     \
    FIELD(uint32_t, cols)           /* H = shape[-1] */                                                               \
    FIELD(uint32_t, colsPad)        /* UB row stride in elements: x and y rows both whole 32-byte blocks */          \
    FIELD(uint32_t, usedCores)      /* block dim (0 only when there is no row) */                                    \
    FIELD(uint32_t, rowsExtra)      /* the last rowsExtra cores take one row more */                                 \
    FIELD(uint32_t, rowsPerIter)    /* rows per UB iteration and scale store (no DataCopyPad: a multiple of 8) */    \
    FIELD(uint32_t, chunk)          /* elements per fp32 compute chunk (a multiple of 64, or colsPad) */             \
    FIELD(uint32_t, numChunks)      /* ceil(H / chunk) */                                                             \
    FIELD(uint32_t, xSlots)         /* x_in queue depth (2 = double buffered) */                                     \
    FIELD(uint32_t, ySlots)         /* y_out / scale_out queue depth */                                              \
    FIELD(uint32_t, xBufBytes)      /* UB bytes of each buffer per slot, 32-byte multiples, as the plan's UB map */  \
    FIELD(uint32_t, yBufBytes)                                                                                        \
    FIELD(uint32_t, scaleBufBytes)                                                                                    \
    FIELD(uint32_t, smoothBufBytes) /* resident float16 / bfloat16 smooth row; 0 without smooth or when streamed */  \
    FIELD(uint32_t, workBytes)                                                                                        \
    FIELD(uint32_t, tmpBytes)                                                                                         \
    FIELD(uint32_t, reduceBytes)                                                                                      \
    FIELD(uint32_t, statBytes)                                                                                        \
    FIELD(float, dmax)              /* quant_max of dst (dtype table) */                                             \
    FIELD(float, clipLo)            /* y is clipped to [clipLo, clipHi] before the dst cast */                       \
    FIELD(float, clipHi)                                                                                              \
    FIELD(uint32_t, nanCode)        /* dst bit pattern of a NaN y (float8 / hifloat8); 0 for int8 */                 \
    FIELD(float, satMax)            /* saturation-mode SoCs (310p): Inf in x -> +-satMax (float16 max); else 0 */

#endif  // AQO_TILING_CORE_DYNAMIC_QUANT_TILING_FIELDS_H
