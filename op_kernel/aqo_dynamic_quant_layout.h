// AqoDynamicQuant's UB sub-buffer layout: the one definition of the sizes the kernel (aqo_dynamic_quant_common.h,
// InitBase) carves its statistics and constant buffers into and the host plan (op_host/tiling_core/
// dynamic_quant_plan.cpp) sizes them by. Plain C++11 with no AscendC dependency, so that both include it: the
// kernel from op_kernel/, the plan as "../../op_kernel/aqo_dynamic_quant_layout.h" (the CANN project keeps the two
// folders side by side, scripts/cann_project.py).
//
// Counts are float32 elements (4 bytes; the int32 accumulators have the same size).
//   * accumulators: kAccLanes lanes a row (one 256-byte repeat), for the magnitude bits; asymmetric: also the
//     signed maxima and minima;
//   * row statistics: pair vectors (a WholeReduce result per row: value and index, PairFloats(n) floats each) then
//     one broadcast block (kBlockFloats) a row per broadcast quantity;
//   * constants: kConstBlocks 32-byte blocks (the magnitude mask, the Inf pattern, the float16 exponent mask, the sign
//     mask, the finite clamp), then the dmax vector (asymmetric: and the quantization range vector), a pair vector
//     each.
//
// Its include guard is #undef'd at the end of aqo_dynamic_quant.cpp (the emulator's runner includes the kernel
// once per SoC, each time in its own namespace).
#ifndef AQO_DYNAMIC_QUANT_LAYOUT_H
#define AQO_DYNAMIC_QUANT_LAYOUT_H

// Device code calls these helpers too: they are __aicore__ where the kernel's toolchain defines it.
#if defined(__aicore__)
#define AQO_DQ_LAYOUT_FN __aicore__ inline constexpr
#else
#define AQO_DQ_LAYOUT_FN inline constexpr
#endif

namespace aqo_dq_layout {

constexpr unsigned kBlockFloats = 8;  // floats in a 32-byte block
constexpr unsigned kAccLanes = 64;    // lanes of a row's maximum accumulator: one 256-byte repeat of float32 / int32
constexpr unsigned kConstBlocks = 5;  // 32-byte constant blocks ahead of the dmax vector
constexpr unsigned kRowStatPairsSymmetric = 2;   // row maximum, scale
constexpr unsigned kRowStatPairsAsymmetric = 6;  // maximum, minimum, scale, offset, two temporaries

// Floats of a pair vector for n rows: 2 n, rounded up to whole 32-byte blocks.
AQO_DQ_LAYOUT_FN unsigned long long PairFloats(unsigned long long n)
{
    return (2 * n + kBlockFloats - 1) / kBlockFloats * kBlockFloats;
}

// The accumulators of n rows.
AQO_DQ_LAYOUT_FN unsigned long long AccFloats(unsigned long long n, bool asymmetric)
{
    return (asymmetric ? 3u : 1u) * n * kAccLanes;
}

// The row statistics of n rows: the pair vectors, then the scale (asymmetric: and offset) broadcast blocks.
AQO_DQ_LAYOUT_FN unsigned long long RowStatFloats(unsigned long long n, bool asymmetric)
{
    return (asymmetric ? kRowStatPairsAsymmetric : kRowStatPairsSymmetric) * PairFloats(n) +
           (asymmetric ? 2u : 1u) * kBlockFloats * n;
}

// The constants for statistics sets of n rows: the blocks, then the dmax (and quantization range) vector.
AQO_DQ_LAYOUT_FN unsigned long long ConstFloats(unsigned long long n, bool asymmetric)
{
    return kConstBlocks * kBlockFloats + (asymmetric ? 2u : 1u) * PairFloats(n);
}

// The pipelined mode's statistics sets: a symmetric set's row statistics also hold the group's clamped maxima
// (kAccLanes a row, after the blocks); an asymmetric set's accumulators are the signed maxima and minima only.
AQO_DQ_LAYOUT_FN unsigned long long PipelinedAccFloats(unsigned long long n, bool asymmetric)
{
    return (asymmetric ? 2u : 1u) * n * kAccLanes;
}

AQO_DQ_LAYOUT_FN unsigned long long PipelinedRowStatFloats(unsigned long long n, bool asymmetric)
{
    return RowStatFloats(n, asymmetric) + (asymmetric ? 0u : n * kAccLanes);
}

}  // namespace aqo_dq_layout

#undef AQO_DQ_LAYOUT_FN

#endif  // AQO_DYNAMIC_QUANT_LAYOUT_H
