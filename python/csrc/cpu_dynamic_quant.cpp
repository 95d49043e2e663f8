// Fused DynamicQuant for the CPU backend: each row is read twice from cache (its statistics, then its
// quantization), never copied to float32 memory, and every output type is encoded in the same pass.
//
// The arithmetic is the golden's (python/ascend_quant_ops/golden/dynamic_quant.py), step by step, in float32:
//   v = float32(x) [* float32(smooth)]              (one rounded multiply)
//   symmetric:  scale = max|v| / qmax,  q = v / scale
//   asymmetric: scale = (max v - min v) / (qmax - qmin),  offset = qmax - max v / scale,  q = v / scale + offset
// then int8 (clip, round half to even), float8 (clip, round to nearest even) or HiFloat8 (clip, round to nearest
// with ties away from zero). Zero-scale rows give zeros; NaN / Inf follow IEEE arithmetic and NaN encodes as 0
// (int8) or the type's positive NaN code. The golden is the spec; the tests compare this code with it byte for
// byte (tests/cpu/).
//
// Two implementations with one set of scalar encoders: portable C++ that compilers vectorise
// (cpu_dynamic_quant_portable.inc, built for the baseline and for AVX2), and AVX-512 for rows whose scale and
// offset are finite (rows with NaN / Inf take the scalar encoders, which handle every value).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "cpu_runtime.h"
#include "cpu_simd.h"
#include "registry.h"

namespace aqo_cpu {
namespace {

enum class Src : int { kFloat16 = 0, kBfloat16 = 1 };
// The codes the Python wrapper passes (cpu/dynamic_quant.py: _DST_CODES).
enum class Dst : int { kInt8 = 0, kFloat8E4M3FN = 1, kFloat8E5M2 = 2, kHiFloat8 = 3 };

struct DqProblem {
    const uint16_t* x;  // float16 / bfloat16 bits, rows of h elements, x_row_stride elements apart
    int64_t rows;
    int64_t h;
    int64_t x_row_stride;
    const uint16_t* smooth;  // [h] in x's type, or nullptr
    Src src;
    Dst dst;
    bool asymmetric;
    float qmax;  // the dtype table's quantization maximum of dst (dmax)
    float qmin;  // the asymmetric range's minimum (-128 for int8, -qmax for the float types); int8's clip floor
    uint8_t* y;  // output codes, rows of h bytes, y_row_stride apart
    int64_t y_row_stride;
    float* scale;   // [rows]
    float* offset;  // [rows] when asymmetric, else nullptr
};

// ----------------------------------------------------------------------------------------- scalar conversions
inline float HalfToFloat(uint16_t h)
{
    // Branch-free, with masks rather than selects, so that loops of it vectorise (GCC leaves the select form
    // scalar).
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t magnitude = h & 0x7FFFu;
    const uint32_t inf_nan = 0u - static_cast<uint32_t>(magnitude >= 0x7C00u);
    const uint32_t small = 0u - static_cast<uint32_t>(magnitude < 0x0400u);
    // exponent rebiased from 15 to 127; Inf / NaN (exponent 31) rebiased once more to 255, payload kept
    const uint32_t normal = (magnitude << 13) + 0x38000000u + (inf_nan & 0x38000000u);
    // zero and subnormals: magnitude * 2^-24, exact
    const uint32_t subnormal = BitsOf(static_cast<float>(static_cast<int32_t>(magnitude)) * 0x1p-24f);
    return FloatOf(sign | (small & subnormal) | (~small & normal));
}

inline float Bf16ToFloat(uint16_t b) { return FloatOf(static_cast<uint32_t>(b) << 16); }

template <Src S>
inline float Widen(uint16_t bits)
{
    return S == Src::kFloat16 ? HalfToFloat(bits) : Bf16ToFloat(bits);
}

// int8: NaN -> 0, clip, round half to even (the rounding mode IeeeFloatScope sets). Clipping to integer bounds
// commutes with rounding, so this equals the golden's rint-then-clip.
inline uint8_t EncodeInt8(float q, float lo, float hi)
{
    return static_cast<uint8_t>(RoundToInt(ClipOrZero(q, lo, hi)));  // NaN -> 0
}

// Magnitude code of a float8 with kMant mantissa bits and exponent bias kBias (e4m3fn: 3, 7; e5m2: 2, 15), for
// a finite a >= 0 no larger than the type's largest finite value; round to nearest even.
template <int kMant, int kBias>
inline uint32_t Float8Magnitude(float a)
{
    constexpr int kDrop = 23 - kMant;
    const uint32_t bits = BitsOf(a);
    // normal: round the float32 mantissa to kMant bits (a carry moves into the exponent), rebias the exponent
    const uint32_t rounded = bits + ((1u << (kDrop - 1)) - 1) + ((bits >> kDrop) & 1u);
    const uint32_t normal = (rounded >> kDrop) - (static_cast<uint32_t>(127 - kBias) << kMant);
    // subnormal codes count multiples of 2^(1 - kBias - kMant): scale by a power of two (exact), round to even
    const float steps = a * FloatOf(static_cast<uint32_t>(127 + kBias - 1 + kMant) << 23);
    const uint32_t subnormal = static_cast<uint32_t>(RoundToInt(steps));  // < 2^kMant
    const uint32_t tiny = 0u - static_cast<uint32_t>(bits < (static_cast<uint32_t>(127 + 1 - kBias) << 23));
    return (tiny & subnormal) | (~tiny & normal);
}

// float8 code: NaN -> nan_code (the positive NaN), else clip to +-clip and round; the sign of zero is kept.
template <int kMant, int kBias>
inline uint8_t EncodeFloat8(float q, float clip, uint8_t nan_code)
{
    const uint32_t bits = BitsOf(q);
    const uint32_t nan = 0u - static_cast<uint32_t>((bits & 0x7FFFFFFFu) > 0x7F800000u);
    uint32_t magnitude = bits & 0x7FFFFFFFu & ~nan;  // |q|, 0 for NaN (its code is chosen last)
    magnitude = magnitude > BitsOf(clip) ? BitsOf(clip) : magnitude;  // non-negative floats order like their bits
    const uint32_t code = ((bits >> 24) & 0x80u) | Float8Magnitude<kMant, kBias>(FloatOf(magnitude));
    return static_cast<uint8_t>((nan & nan_code) | (~nan & code));
}

// HiFloat8 (arXiv 2409.16626): the mantissa width and the code of 2^e depend on the exponent e's dot field.
// Values 2^-22 .. 2^-16 are the denormal codes 1..7 (no mantissa); 2^-23 is the midpoint between 0 and 2^-22,
// which rounds away from zero, so e = -23 is given code 1 as well.
constexpr int Hif8MantissaBits(int e)
{
    if (e <= -16) {
        return 0;
    }
    const int magnitude = e < 0 ? -e : e;
    return magnitude <= 3 ? 3 : (magnitude <= 7 ? 2 : 1);
}

constexpr uint32_t Hif8PowerCode(int e)
{
    if (e <= -16) {
        return e <= -23 ? 1u : static_cast<uint32_t>(e + 23);
    }
    const uint32_t magnitude = static_cast<uint32_t>(e < 0 ? -e : e);
    const uint32_t negative = e < 0 ? 0x10u : 0u;  // the exponent field's sign bit (first bit after the dot)
    if (magnitude == 0) {
        return 0x08;  // dot 0001
    }
    if (magnitude == 1) {
        return 0x10u | (negative >> 1);  // dot 001, one exponent bit
    }
    if (magnitude <= 3) {
        return 0x20u | negative | ((magnitude - 2) << 3);  // dot 01, two exponent bits
    }
    if (magnitude <= 7) {
        return 0x40u | negative | ((magnitude - 4) << 2);  // dot 10, three exponent bits
    }
    return 0x60u | negative | ((magnitude - 8) << 1);  // dot 11, four exponent bits
}

// Per-exponent table, the one both encoders use: entry e + 23 (e = -23 .. 15; entries beyond repeat e = 15)
// holds Hif8PowerCode(e) | Hif8MantissaBits(e) << 8.
struct alignas(64) Hif8Table {
    int32_t entry[64];
    constexpr Hif8Table() : entry{}
    {
        for (int i = 0; i < 64; ++i) {
            const int e = i - 23 > 15 ? 15 : i - 23;
            entry[i] = static_cast<int32_t>(Hif8PowerCode(e) | (static_cast<uint32_t>(Hif8MantissaBits(e)) << 8));
        }
    }
};
constexpr Hif8Table kHif8Table;

// Magnitude code of a finite a in [0, 32768], rounded to nearest with ties away from zero (branch-free: table
// lookups and variable shifts, which vectorise as gathers where the ISA has them; `table` is kHif8Table.entry or
// a local copy of it, which the compiler knows no output byte aliases).
inline uint32_t Hif8Magnitude(float a, const int32_t* table)
{
    const uint32_t bits = BitsOf(a);
    const int32_t e = static_cast<int32_t>(bits >> 23) - 127;
    const uint32_t below = 0u - static_cast<uint32_t>(e < -23);  // below 2^-23, the midpoint between 0 and 2^-22
    // (for values below 2^-23 the lookups read some entry, whose result the mask `below` discards)
    const uint32_t drop = 23u - (static_cast<uint32_t>(table[(e + 23) & 63]) >> 8);
    const uint32_t step = 1u << drop;
    const uint32_t rounded = (bits + (step >> 1)) & ~(step - 1);  // add half a step, truncate: ties away from zero
    const int32_t rounded_index = static_cast<int32_t>(rounded >> 23) - 127 + 23;  // in [0, 38] unless `below`
    const uint32_t entry = static_cast<uint32_t>(table[rounded_index & 63]);
    const uint32_t code = (entry & 0xFFu) + ((rounded & 0x7FFFFFu) >> (23u - (entry >> 8)));
    return code & ~below;
}

// HiFloat8 code: NaN -> 0x80, clip to +-clip, round; no negative zero (0x80 is NaN), so zero is always 0x00.
inline uint8_t EncodeHif8(float q, float clip, const int32_t* table = kHif8Table.entry)
{
    const uint32_t bits = BitsOf(q);
    const uint32_t nan = 0u - static_cast<uint32_t>((bits & 0x7FFFFFFFu) > 0x7F800000u);
    uint32_t magnitude = bits & 0x7FFFFFFFu & ~nan;
    magnitude = magnitude > BitsOf(clip) ? BitsOf(clip) : magnitude;  // non-negative floats order like their bits
    const uint32_t code = Hif8Magnitude(FloatOf(magnitude), table);
    const uint32_t sign = 0u - static_cast<uint32_t>(code != 0);  // a code that rounded to zero has no sign
    return static_cast<uint8_t>((nan & 0x80u) | (~nan & (code | (sign & (bits >> 24) & 0x80u))));
}

constexpr uint8_t kE4m3fnNan = 0x7F;
constexpr uint8_t kE5m2Nan = 0x7E;

template <Dst D>
inline uint8_t Encode(float q, float qmin, float qmax, const int32_t* hif8_table = kHif8Table.entry)
{
    if constexpr (D == Dst::kInt8) {
        return EncodeInt8(q, qmin, qmax);
    } else if constexpr (D == Dst::kFloat8E4M3FN) {
        return EncodeFloat8<3, 7>(q, qmax, kE4m3fnNan);
    } else if constexpr (D == Dst::kFloat8E5M2) {
        return EncodeFloat8<2, 15>(q, qmax, kE5m2Nan);
    } else {
        return EncodeHif8(q, qmax, hif8_table);
    }
}

// ------------------------------------------------------------------------------------------------ row scales
struct RowScale {
    float scale;
    float offset;
    bool zero;     // scale 0: the row quantizes to zeros
    bool suspect;  // scale or offset not finite: elements may be NaN / Inf
};

inline RowScale SymmetricScale(float max_abs, float qmax)
{
    RowScale s{max_abs / qmax, 0.0f, false, false};
    s.zero = s.scale == 0.0f;
    if (s.zero) {
        s.scale = 0.0f;  // +0, also for a row of -0
    }
    s.suspect = !std::isfinite(s.scale);
    return s;
}

inline RowScale AsymmetricScale(float vmax, float vmin, float qmax, float qmin)
{
    RowScale s{(vmax - vmin) / (qmax - qmin), 0.0f, false, false};
    s.zero = s.scale == 0.0f;
    if (s.zero) {
        s.scale = 0.0f;
        return s;
    }
    s.offset = qmax - vmax / s.scale;
    s.suspect = !std::isfinite(s.scale) || !std::isfinite(s.offset);
    return s;
}

inline RowScale ZeroRow() { return RowScale{0.0f, 0.0f, true, false}; }

// ------------------------------------------------------------------------------------------------- portable
inline void StoreRow(const DqProblem& p, int64_t r, const RowScale& s)
{
    p.scale[r] = s.scale;
    if (p.offset != nullptr) {
        p.offset[r] = s.offset;
    }
}

namespace portable_baseline {
#include "cpu_dynamic_quant_portable.inc"
}  // namespace portable_baseline
#if defined(AQO_CPU_PORTABLE_AVX2)
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c,bmi2")  // the features of Isa::kAvx2 (cpu_runtime.cpp, DetectIsa)
namespace portable_avx2 {
#include "cpu_dynamic_quant_portable.inc"
}  // namespace portable_avx2
#pragma GCC pop_options
#endif

// --------------------------------------------------------------------------------------------------- AVX-512
#if defined(AQO_CPU_HAVE_AVX512)


template <Src S>
AQO_AVX512 inline __m512 Widen16(__m256i bits)
{
    if constexpr (S == Src::kFloat16) {
        return _mm512_cvtph_ps(bits);
    } else {
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bits), 16));
    }
}

template <Src S, bool kSmooth>
AQO_AVX512 inline __m512 LoadValues(const uint16_t* xr, const uint16_t* smooth, int64_t i, __mmask16 k)
{
    __m512 v = Widen16<S>(_mm256_maskz_loadu_epi16(k, xr + i));
    if (kSmooth) {
        v = _mm512_mul_ps(v, Widen16<S>(_mm256_maskz_loadu_epi16(k, smooth + i)));
    }
    return v;
}

AQO_AVX512 inline __mmask16 TailMask16(int64_t n) { return static_cast<__mmask16>((1u << n) - 1u); }

// max |x| without smooth scales, on the 16-bit codes: for float16 and bfloat16 alike the order of the codes with
// the sign cleared is the order of the magnitudes, and every NaN code is above the Inf code. One conversion of
// the maximum gives max |v| (a NaN when the row holds one).
template <Src S>
AQO_AVX512 float MaxAbsCodes(const uint16_t* xr, int64_t h)
{
    const __m512i abs_mask = _mm512_set1_epi16(0x7FFF);
    __m512i m0 = _mm512_setzero_si512(), m1 = _mm512_setzero_si512();
    int64_t i = 0;
    for (; i + 64 <= h; i += 64) {
        m0 = _mm512_max_epu16(m0, _mm512_and_si512(_mm512_loadu_si512(xr + i), abs_mask));
        m1 = _mm512_max_epu16(m1, _mm512_and_si512(_mm512_loadu_si512(xr + i + 32), abs_mask));
    }
    for (; i < h; i += 32) {
        const int64_t n = h - i < 32 ? h - i : 32;
        const __mmask32 k = n == 32 ? ~__mmask32{0} : static_cast<__mmask32>((1u << n) - 1u);
        m0 = _mm512_max_epu16(m0, _mm512_and_si512(_mm512_maskz_loadu_epi16(k, xr + i), abs_mask));
    }
    m0 = _mm512_max_epu16(m0, m1);
    const __m256i m256 = _mm256_max_epu16(_mm512_castsi512_si256(m0), _mm512_extracti64x4_epi64(m0, 1));
    const __m128i m128 = _mm_max_epu16(_mm256_castsi256_si128(m256), _mm256_extracti128_si256(m256, 1));
    alignas(16) uint16_t lanes[8];
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes), m128);
    uint16_t best = 0;
    for (uint16_t lane : lanes) {
        best = lane > best ? lane : best;
    }
    return Widen<S>(best);
}

// max |v| with smooth scales, on the float32 bits (same order argument: NaN bits are above Inf's).
template <Src S>
AQO_AVX512 float MaxAbsSmooth(const uint16_t* xr, const uint16_t* smooth, int64_t h)
{
    const __m512i abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
    __m512i m0 = _mm512_setzero_si512(), m1 = _mm512_setzero_si512();
    int64_t i = 0;
    for (; i + 32 <= h; i += 32) {
        const __m512 v0 = LoadValues<S, true>(xr, smooth, i, 0xFFFF);
        const __m512 v1 = LoadValues<S, true>(xr, smooth, i + 16, 0xFFFF);
        m0 = _mm512_max_epu32(m0, _mm512_and_si512(_mm512_castps_si512(v0), abs_mask));
        m1 = _mm512_max_epu32(m1, _mm512_and_si512(_mm512_castps_si512(v1), abs_mask));
    }
    for (; i < h; i += 16) {
        const __mmask16 k = h - i >= 16 ? __mmask16{0xFFFF} : TailMask16(h - i);
        const __m512 v = LoadValues<S, true>(xr, smooth, i, k);  // inactive lanes are 0 * 0 = 0
        m0 = _mm512_max_epu32(m0, _mm512_and_si512(_mm512_castps_si512(v), abs_mask));
    }
    return FloatOf(static_cast<uint32_t>(_mm512_reduce_max_epu32(_mm512_max_epu32(m0, m1))));
}

// max v and min v; NaN (both) when the row holds a NaN.
template <Src S, bool kSmooth>
AQO_AVX512 void MaxMin(const uint16_t* xr, const uint16_t* smooth, int64_t h, float* vmax, float* vmin)
{
    __m512 hi = _mm512_set1_ps(-INFINITY), lo = _mm512_set1_ps(INFINITY);
    __mmask16 nan = 0;
    for (int64_t i = 0; i < h; i += 16) {
        const __mmask16 k = h - i >= 16 ? __mmask16{0xFFFF} : TailMask16(h - i);
        const __m512 v = LoadValues<S, kSmooth>(xr, smooth, i, k);
        hi = _mm512_mask_max_ps(hi, k, hi, v);
        lo = _mm512_mask_min_ps(lo, k, lo, v);
        nan |= _mm512_mask_cmp_ps_mask(k, v, v, _CMP_UNORD_Q);
    }
    if (nan) {
        *vmax = *vmin = NAN;
    } else {
        *vmax = _mm512_reduce_max_ps(hi);
        *vmin = _mm512_reduce_min_ps(lo);
    }
}

// Vector encoders for finite q (rows with finite scale and offset).
AQO_AVX512 inline __m128i EncodeInt8x16(__m512 q, __m512 lo, __m512 hi)
{
    const __m512 clipped = _mm512_min_ps(_mm512_max_ps(q, lo), hi);
    return _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(clipped));  // MXCSR rounding: nearest even
}

template <int kMant, int kBias>
AQO_AVX512 inline __m128i EncodeFloat8x16(__m512 q, __m512 clip)
{
    constexpr int kDrop = 23 - kMant;
    const __m512i sign = _mm512_srli_epi32(_mm512_and_si512(_mm512_castps_si512(q), _mm512_set1_epi32(INT32_MIN)), 24);
    const __m512 a = _mm512_min_ps(_mm512_abs_ps(q), clip);
    const __m512i bits = _mm512_castps_si512(a);
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(bits, kDrop), _mm512_set1_epi32(1));
    const __m512i rounded = _mm512_add_epi32(bits, _mm512_add_epi32(_mm512_set1_epi32((1 << (kDrop - 1)) - 1), odd));
    const __m512i normal =
        _mm512_sub_epi32(_mm512_srli_epi32(rounded, kDrop), _mm512_set1_epi32((127 - kBias) << kMant));
    const __m512 steps = _mm512_mul_ps(a, _mm512_castsi512_ps(_mm512_set1_epi32((127 + kBias - 1 + kMant) << 23)));
    const __m512i subnormal = _mm512_cvtps_epi32(steps);
    const __mmask16 tiny =
        _mm512_cmp_ps_mask(a, _mm512_castsi512_ps(_mm512_set1_epi32((127 + 1 - kBias) << 23)), _CMP_LT_OQ);
    return _mm512_cvtepi32_epi8(_mm512_or_si512(_mm512_mask_blend_epi32(tiny, normal, subnormal), sign));
}

AQO_AVX512 inline __m512i Hif8Lookup(__m512i index)
{
    const __m512i* t = reinterpret_cast<const __m512i*>(kHif8Table.entry);
    const __m512i low = _mm512_permutex2var_epi32(_mm512_load_si512(t), index, _mm512_load_si512(t + 1));
    const __m512i high = _mm512_permutex2var_epi32(_mm512_load_si512(t + 2), index, _mm512_load_si512(t + 3));
    return _mm512_mask_blend_epi32(_mm512_cmpge_epi32_mask(index, _mm512_set1_epi32(32)), low, high);
}

AQO_AVX512 inline __m128i EncodeHif8x16(__m512 q, __m512 clip)
{
    const __m512i one = _mm512_set1_epi32(1);
    const __m512i sign = _mm512_srli_epi32(_mm512_and_si512(_mm512_castps_si512(q), _mm512_set1_epi32(INT32_MIN)), 24);
    const __m512i bits = _mm512_castps_si512(_mm512_min_ps(_mm512_abs_ps(q), clip));
    const __m512i e = _mm512_sub_epi32(_mm512_srli_epi32(bits, 23), _mm512_set1_epi32(127));
    const __mmask16 below = _mm512_cmplt_epi32_mask(e, _mm512_set1_epi32(-23));
    const __m512i index = _mm512_max_epi32(_mm512_add_epi32(e, _mm512_set1_epi32(23)), _mm512_setzero_si512());
    const __m512i drop = _mm512_sub_epi32(_mm512_set1_epi32(23), _mm512_srli_epi32(Hif8Lookup(index), 8));
    const __m512i step = _mm512_sllv_epi32(one, drop);
    const __m512i half = _mm512_srli_epi32(step, 1);
    const __m512i rounded = _mm512_andnot_si512(_mm512_sub_epi32(step, one), _mm512_add_epi32(bits, half));
    const __m512i rounded_e = _mm512_sub_epi32(_mm512_srli_epi32(rounded, 23), _mm512_set1_epi32(127));
    const __m512i index2 = _mm512_min_epi32(
        _mm512_max_epi32(_mm512_add_epi32(rounded_e, _mm512_set1_epi32(23)), _mm512_setzero_si512()),
        _mm512_set1_epi32(63));
    const __m512i entry = Hif8Lookup(index2);
    const __m512i mantissa_shift = _mm512_sub_epi32(_mm512_set1_epi32(23), _mm512_srli_epi32(entry, 8));
    __m512i code = _mm512_add_epi32(_mm512_and_si512(entry, _mm512_set1_epi32(0xFF)),
                                    _mm512_srlv_epi32(_mm512_and_si512(rounded, _mm512_set1_epi32(0x7FFFFF)),
                                                      mantissa_shift));
    code = _mm512_maskz_mov_epi32(static_cast<__mmask16>(~below), code);
    const __mmask16 nonzero = _mm512_test_epi32_mask(code, code);
    return _mm512_cvtepi32_epi8(_mm512_or_si512(code, _mm512_maskz_mov_epi32(nonzero, sign)));
}

template <Dst D>
AQO_AVX512 inline __m128i Encode16(__m512 q, __m512 lo, __m512 hi)
{
    if constexpr (D == Dst::kInt8) {
        return EncodeInt8x16(q, lo, hi);
    } else if constexpr (D == Dst::kFloat8E4M3FN) {
        return EncodeFloat8x16<3, 7>(q, hi);
    } else if constexpr (D == Dst::kFloat8E5M2) {
        return EncodeFloat8x16<2, 15>(q, hi);
    } else {
        return EncodeHif8x16(q, hi);
    }
}

template <Src S, Dst D, bool kSmooth, bool kAsym>
AQO_AVX512 void EncodeRowAvx512(const DqProblem& p, const uint16_t* xr, uint8_t* yr, const RowScale& s)
{
    const __m512 scale = _mm512_set1_ps(s.scale), offset = _mm512_set1_ps(s.offset);
    const __m512 lo = _mm512_set1_ps(p.qmin), hi = _mm512_set1_ps(p.qmax);
    int64_t i = 0;
    for (; i + 32 <= p.h; i += 32) {
        __m512 q0 = _mm512_div_ps(LoadValues<S, kSmooth>(xr, p.smooth, i, 0xFFFF), scale);
        __m512 q1 = _mm512_div_ps(LoadValues<S, kSmooth>(xr, p.smooth, i + 16, 0xFFFF), scale);
        if (kAsym) {
            q0 = _mm512_add_ps(q0, offset);
            q1 = _mm512_add_ps(q1, offset);
        }
        _mm_storeu_si128(reinterpret_cast<__m128i*>(yr + i), Encode16<D>(q0, lo, hi));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(yr + i + 16), Encode16<D>(q1, lo, hi));
    }
    for (; i < p.h; i += 16) {
        const __mmask16 k = p.h - i >= 16 ? __mmask16{0xFFFF} : TailMask16(p.h - i);
        __m512 q = _mm512_div_ps(LoadValues<S, kSmooth>(xr, p.smooth, i, k), scale);
        if (kAsym) {
            q = _mm512_add_ps(q, offset);
        }
        _mm_mask_storeu_epi8(yr + i, k, Encode16<D>(q, lo, hi));
    }
}

template <Src S, Dst D, bool kSmooth, bool kAsym>
AQO_AVX512 void RowsAvx512(const DqProblem& p, int64_t r0, int64_t r1)
{
    for (int64_t r = r0; r < r1; ++r) {
        const uint16_t* xr = p.x + r * p.x_row_stride;
        uint8_t* yr = p.y + r * p.y_row_stride;
        RowScale s = ZeroRow();
        if (p.h > 0) {
            if (kAsym) {
                float vmax, vmin;
                MaxMin<S, kSmooth>(xr, p.smooth, p.h, &vmax, &vmin);
                s = AsymmetricScale(vmax, vmin, p.qmax, p.qmin);
            } else if (kSmooth) {
                s = SymmetricScale(MaxAbsSmooth<S>(xr, p.smooth, p.h), p.qmax);
            } else {
                s = SymmetricScale(MaxAbsCodes<S>(xr, p.h), p.qmax);
            }
        }
        StoreRow(p, r, s);
        if (s.zero) {
            std::memset(yr, 0, static_cast<size_t>(p.h));
        } else if (s.suspect) {
            // NaN / Inf elements: the scalar encoders
            portable_baseline::EncodeRowPortable<S, D, kSmooth, kAsym>(p, xr, yr, s);
        } else {
            EncodeRowAvx512<S, D, kSmooth, kAsym>(p, xr, yr, s);
        }
    }
}
#endif  // AQO_CPU_HAVE_AVX512

// ------------------------------------------------------------------------------------------------- dispatch
using RowsFn = void (*)(const DqProblem&, int64_t, int64_t);

template <Src S, Dst D, bool kSmooth, bool kAsym>
RowsFn PickRows(Isa isa)
{
#if defined(AQO_CPU_HAVE_AVX512)
    if (isa >= Isa::kAvx512Vnni) {
        return &RowsAvx512<S, D, kSmooth, kAsym>;
    }
#endif
#if defined(AQO_CPU_PORTABLE_AVX2)
    if (isa >= Isa::kAvx2) {
        return &portable_avx2::RowsPortable<S, D, kSmooth, kAsym>;
    }
#endif
    (void)isa;
    return &portable_baseline::RowsPortable<S, D, kSmooth, kAsym>;
}

template <Src S, Dst D, bool kSmooth>
RowsFn PickRowsAsym(const DqProblem& p, Isa isa)
{
    return p.asymmetric ? PickRows<S, D, kSmooth, true>(isa) : PickRows<S, D, kSmooth, false>(isa);
}

template <Src S, Dst D>
RowsFn PickRowsSmooth(const DqProblem& p, Isa isa)
{
    return p.smooth != nullptr ? PickRowsAsym<S, D, true>(p, isa) : PickRowsAsym<S, D, false>(p, isa);
}

template <Src S>
RowsFn PickRowsDst(const DqProblem& p, Isa isa)
{
    switch (p.dst) {
        case Dst::kInt8:
            return PickRowsSmooth<S, Dst::kInt8>(p, isa);
        case Dst::kFloat8E4M3FN:
            return PickRowsSmooth<S, Dst::kFloat8E4M3FN>(p, isa);
        case Dst::kFloat8E5M2:
            return PickRowsSmooth<S, Dst::kFloat8E5M2>(p, isa);
        case Dst::kHiFloat8:
        default:
            return PickRowsSmooth<S, Dst::kHiFloat8>(p, isa);
    }
}

// Below this many elements one thread does the whole call: waking a helper costs more than it saves.
constexpr int64_t kParallelMinElements = int64_t{1} << 18;

void RunDynamicQuant(const DqProblem& p, Isa isa, int threads)
{
    const RowsFn rows_fn = p.src == Src::kFloat16 ? PickRowsDst<Src::kFloat16>(p, isa)
                                                  : PickRowsDst<Src::kBfloat16>(p, isa);
    const int64_t elements = p.rows * (p.h > 0 ? p.h : 1);
    const int use = elements >= kParallelMinElements ? threads : 1;
    const int64_t tasks = use > 1 ? std::min<int64_t>(p.rows, int64_t{8} * use) : 1;
    ParallelFor(tasks, use, [&](int64_t t) {
        int64_t begin, end;
        SplitRange(p.rows, tasks, t, &begin, &end);
        rows_fn(p, begin, end);
    });
}

// ------------------------------------------------------------------------------------------------- binding
namespace nb = nanobind;

void CpuDynamicQuant(const AnyArray& x, const std::optional<AnyArray>& smooth, int src, int dst, bool asymmetric,
                     float qmax, float qmin, const AnyOutArray& y, const AnyOutArray& scale,
                     const std::optional<AnyOutArray>& offset, int isa, int threads)
{
    RequireArray(x, "x", 2, 16);
    RequireArray(y, "y", 2, 8);
    RequireArray(scale, "scale", 1, 32);
    const int64_t rows = static_cast<int64_t>(x.shape(0)), h = static_cast<int64_t>(x.shape(1));
    if (static_cast<int64_t>(y.shape(0)) != rows || static_cast<int64_t>(y.shape(1)) != h ||
        static_cast<int64_t>(scale.shape(0)) != rows) {
        throw std::invalid_argument("cpu_dynamic_quant: y must have x's shape and scale one value per row");
    }
    if (rows == 0) {
        return;
    }
    if ((h > 1 && (x.stride(1) != 1 || y.stride(1) != 1)) || (rows > 1 && scale.stride(0) != 1)) {
        throw std::invalid_argument("cpu_dynamic_quant: rows of x and y, and scale, must be contiguous");
    }
    if (src != 0 && src != 1) {
        throw std::invalid_argument("cpu_dynamic_quant: src must be 0 (float16) or 1 (bfloat16)");
    }
    if (dst < 0 || dst > 3) {
        throw std::invalid_argument("cpu_dynamic_quant: dst must be 0..3");
    }
    DqProblem p{};
    p.x = static_cast<const uint16_t*>(x.data());
    p.rows = rows;
    p.h = h;
    p.x_row_stride = rows > 1 ? static_cast<int64_t>(x.stride(0)) : h;
    p.smooth = nullptr;
    if (smooth.has_value()) {
        RequireArray(*smooth, "smooth", 1, 16);
        if (static_cast<int64_t>(smooth->shape(0)) != h || (h > 1 && smooth->stride(0) != 1)) {
            throw std::invalid_argument("cpu_dynamic_quant: smooth must be a contiguous [H] array");
        }
        p.smooth = static_cast<const uint16_t*>(smooth->data());
    }
    p.src = static_cast<Src>(src);
    p.dst = static_cast<Dst>(dst);
    p.asymmetric = asymmetric;
    p.qmax = qmax;
    p.qmin = qmin;
    p.y = static_cast<uint8_t*>(y.data());
    p.y_row_stride = rows > 1 ? static_cast<int64_t>(y.stride(0)) : h;
    p.scale = static_cast<float*>(scale.data());
    p.offset = nullptr;
    if (asymmetric) {
        if (!offset.has_value()) {
            throw std::invalid_argument("cpu_dynamic_quant: asymmetric mode needs an offset array");
        }
        RequireArray(*offset, "offset", 1, 32);
        if (static_cast<int64_t>(offset->shape(0)) != rows || (rows > 1 && offset->stride(0) != 1)) {
            throw std::invalid_argument("cpu_dynamic_quant: offset must be a contiguous [rows] array");
        }
        p.offset = static_cast<float*>(offset->data());
    }
    const Isa level = ResolveIsa(isa);
    const int use_threads = threads > 0 ? threads : MaxThreads();
    nb::gil_scoped_release release;
    RunDynamicQuant(p, level, use_threads);
}

void RegisterCpuDynamicQuant(nb::module_& m)
{
    m.def("cpu_dynamic_quant", &CpuDynamicQuant, nb::arg("x"), nb::arg("smooth").none(), nb::arg("src"),
          nb::arg("dst"), nb::arg("asymmetric"), nb::arg("qmax"), nb::arg("qmin"), nb::arg("y"), nb::arg("scale"),
          nb::arg("offset").none(), nb::arg("isa") = -1, nb::arg("threads") = -1,
          "Fused DynamicQuant of a 2-D x (float16 / bfloat16 bits) into y (8-bit codes), scale and offset. "
          "Internal: ascend_quant_ops.cpu.dynamic_quant validates the arguments and calls this.");
}

const aqo_bind::Registrar kRegistrar("cpu_dynamic_quant", &RegisterCpuDynamicQuant);

}  // namespace
}  // namespace aqo_cpu
