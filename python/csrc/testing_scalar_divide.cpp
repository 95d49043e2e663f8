// The kernels' scalar float division (DivideF32, op_kernel/aqo_kernel_common.h) on the host, exposed as
// ascend_quant_ops_testing.scalar_divide_f32 for its test against IEEE float32 division, and the bit-exact helpers
// beside it (scalar_bit_helpers); not for users. Its native
// fallback (NaN results only) is a division that flushes subnormals here, as a scalar unit might.
#include "kernel_operator.h"

#include <nanobind/nanobind.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "registry.h"

namespace aqo_testing_divide_native {
// The native division DivideF32 may call, as a scalar unit that flushes subnormal operands and results would do:
// every non-NaN quotient must still be IEEE's (DivideF32 answers them itself).
inline float FlushingDivide(float a, float b)
{
    const auto flush = [](float v) { return std::fabs(v) < 1.17549435e-38f ? std::copysign(0.0f, v) : v; };
    return flush(flush(a) / flush(b));
}
}  // namespace aqo_testing_divide_native
#define AQO_NATIVE_FLOAT_DIVIDE(a, b) ::aqo_testing_divide_native::FlushingDivide((a), (b))

#define __CCE_AICORE__ 220
#define __DAV_C220__
#define __DAV_C220_VEC__
namespace aqo_testing_divide {
#include "aqo_kernel_common.h"
}  // namespace aqo_testing_divide
#undef AQO_SOC_HAS_DATACOPYPAD
#undef AQO_SOC_HAS_BF16
#undef AQO_SOC_HAS_FP8
#undef AQO_SOC_SPLIT_CORES
#undef __DAV_C220_VEC__
#undef __DAV_C220__
#undef __CCE_AICORE__
#undef AQO_NATIVE_FLOAT_DIVIDE

namespace nb = nanobind;

namespace {

// a, b: float32 arrays' bytes of one length; returns DivideF32(a[i], b[i]) as float32 bytes.
nb::bytes ScalarDivideF32(const nb::bytes& a, const nb::bytes& b)
{
    if (a.size() != b.size() || a.size() % sizeof(float) != 0) {
        throw nb::value_error("scalar_divide_f32: a and b must be float32 bytes of one length");
    }
    const size_t n = a.size() / sizeof(float);
    std::string out(a.size(), '\0');
    for (size_t i = 0; i < n; ++i) {
        float x = 0.0f;
        float y = 0.0f;
        std::memcpy(&x, a.c_str() + i * sizeof(float), sizeof(float));
        std::memcpy(&y, b.c_str() + i * sizeof(float), sizeof(float));
        const float q = aqo_testing_divide::aqo_kernel::DivideF32(x, y);
        std::memcpy(&out[i * sizeof(float)], &q, sizeof(float));
    }
    return nb::bytes(out.data(), out.size());
}

// The scalar unit's bit-exact helpers for values that may be subnormal (aqo_kernel_common.h): per float32 of `v`,
// F32IsZero(v), F32PositiveBelow(v, limit) as 0 / 1 bytes, and F32TimesPow2(v, k) as float32 bytes.
nb::tuple ScalarBitHelpers(const nb::bytes& v, float limit, int k)
{
    if (v.size() % sizeof(float) != 0) {
        throw nb::value_error("scalar_bit_helpers: v must be float32 bytes");
    }
    const size_t n = v.size() / sizeof(float);
    std::string zero(n, '\0'), below(n, '\0'), times(v.size(), '\0');
    for (size_t i = 0; i < n; ++i) {
        float x = 0.0f;
        std::memcpy(&x, v.c_str() + i * sizeof(float), sizeof(float));
        zero[i] = static_cast<char>(aqo_testing_divide::aqo_kernel::F32IsZero(x));
        below[i] = static_cast<char>(aqo_testing_divide::aqo_kernel::F32PositiveBelow(x, limit));
        const float t = aqo_testing_divide::aqo_kernel::F32TimesPow2(x, k);
        std::memcpy(&times[i * sizeof(float)], &t, sizeof(float));
    }
    return nb::make_tuple(nb::bytes(zero.data(), n), nb::bytes(below.data(), n), nb::bytes(times.data(), times.size()));
}

// Per pair of float32 of a and b: F32Sub(a, b) as float32 bytes and F32Less(a, b) as 0 / 1 bytes.
nb::tuple ScalarSubLess(const nb::bytes& a, const nb::bytes& b)
{
    if (a.size() != b.size() || a.size() % sizeof(float) != 0) {
        throw nb::value_error("scalar_sub_less_f32: a and b must be float32 bytes of one length");
    }
    const size_t n = a.size() / sizeof(float);
    std::string diff(a.size(), '\0'), less(n, '\0');
    for (size_t i = 0; i < n; ++i) {
        float x = 0.0f;
        float y = 0.0f;
        std::memcpy(&x, a.c_str() + i * sizeof(float), sizeof(float));
        std::memcpy(&y, b.c_str() + i * sizeof(float), sizeof(float));
        const float d = aqo_testing_divide::aqo_kernel::F32Sub(x, y);
        std::memcpy(&diff[i * sizeof(float)], &d, sizeof(float));
        less[i] = static_cast<char>(aqo_testing_divide::aqo_kernel::F32Less(x, y));
    }
    return nb::make_tuple(nb::bytes(diff.data(), diff.size()), nb::bytes(less.data(), n));
}

void RegisterScalarDivide(nb::module_& m)
{
    m.def("scalar_sub_less_f32", &ScalarSubLess, nb::arg("a"), nb::arg("b"),
          "F32Sub and F32Less of the kernels over two float32 byte strings.");
    m.def("scalar_bit_helpers", &ScalarBitHelpers, nb::arg("v"), nb::arg("limit"), nb::arg("k"),
          "F32IsZero, F32PositiveBelow and F32TimesPow2 of the kernels over float32 bytes.");
    m.def("scalar_divide_f32", &ScalarDivideF32, nb::arg("a"), nb::arg("b"),
          "DivideF32 of the kernels (integer-exact float32 division) over two float32 byte strings.");
}

aqo_bind::Registrar kRegisterScalarDivide("scalar_divide", &RegisterScalarDivide);

}  // namespace
