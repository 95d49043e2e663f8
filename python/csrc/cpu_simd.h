// Shared pieces of the fast CPU kernels: the target attribute of the AVX-512 code, float bit access, and the
// nanobind argument checks of the cpu_* bindings.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
// Functions compiled for AVX-512 (F, BW, DQ, VL, VNNI); only called after BestIsa() found them at run time.
#define AQO_CPU_HAVE_AVX512 1
#define AQO_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,f16c,fma,bmi2")))
#endif
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__clang__)
// The portable kernels (cpu_*_portable.inc) are compiled a second time for AVX2: each kernel file includes its
// copy again under `#pragma GCC target("avx2,fma,f16c,bmi2")`, the features BestIsa() checks for that level.
// Other compilers build the baseline copy only.
#define AQO_CPU_PORTABLE_AVX2 1
#endif

namespace aqo_cpu {

inline uint32_t BitsOf(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

inline float FloatOf(uint32_t u)
{
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// The scalar helpers below are written so that loops of them vectorise (GCC, default -ftrapping-math): no float
// selects feeding further float arithmetic, no float -> int conversions of values that might be NaN.

// v rounded to the nearest integer, ties to even, for |v| <= 2^22, under the IEEE scope's rounding mode: adding
// 1.5 * 2^23 leaves no fraction bits and puts the integer in the low mantissa bits. (std::nearbyint is a libm call
// that saves and restores the float environment.)
inline int32_t RoundToInt(float v)
{
    return static_cast<int32_t>(BitsOf(v + 12582912.0f) - 0x4B400000u);  // 1.5 * 2^23 and its bits
}

// An int32 key of a float's bits that orders like the values (-0 just below +0; NaNs beyond +-Inf).
inline int32_t OrderKey(uint32_t bits)
{
    return static_cast<int32_t>(bits ^ (static_cast<uint32_t>(static_cast<int32_t>(bits) >> 31) & 0x7FFFFFFFu));
}

// v clipped to [lo, hi] (finite, lo <= hi); NaN gives +0.
inline float ClipOrZero(float v, float lo, float hi)
{
    const uint32_t bits = BitsOf(v), lo_bits = BitsOf(lo), hi_bits = BitsOf(hi);
    const uint32_t not_nan = 0u - static_cast<uint32_t>((bits & 0x7FFFFFFFu) <= 0x7F800000u);
    const int32_t key = OrderKey(bits);
    uint32_t clipped = key < OrderKey(lo_bits) ? lo_bits : bits;
    clipped = key > OrderKey(hi_bits) ? hi_bits : clipped;
    return FloatOf(clipped & not_nan);
}

// Arguments of the cpu_* bindings: arrays of any dtype (the Python wrappers pass integer views of bfloat16,
// float8 and hifloat8), read-only allowed, on the CPU. Their checks are internal consistency checks: the
// public wrappers validate the user's arguments first.
using AnyArray = nanobind::ndarray<nanobind::ro, nanobind::device::cpu>;
using AnyOutArray = nanobind::ndarray<nanobind::device::cpu>;

template <typename Array>
inline void RequireArray(const Array& a, const char* name, size_t ndim, size_t bits)
{
    if (a.ndim() != ndim || a.dtype().bits != bits || a.dtype().lanes != 1) {
        throw std::invalid_argument(std::string(name) + ": expected a " + std::to_string(ndim) + "-d array of " +
                                    std::to_string(bits) + "-bit elements");
    }
}

}  // namespace aqo_cpu
