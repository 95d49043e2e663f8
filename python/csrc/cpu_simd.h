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
