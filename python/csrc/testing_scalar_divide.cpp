// The kernels' scalar float division (DivideF32, op_kernel/aqo_kernel_common.h) on the host, exposed as
// ascend_quant_ops_testing.scalar_divide_f32 for its test against IEEE float32 division, and the bit-exact helpers
// beside it (scalar_bit_helpers, scalar_sub_less_f32); not for users. DivideF32's native fallback (NaN results only)
// is a division that flushes subnormals here; the helpers can run with the host's floating point set to flush
// subnormal operands and results (x86 MXCSR DAZ and FTZ), as a scalar unit might, with the native operations they
// replace beside them for comparison.
#include "kernel_operator.h"

#include <nanobind/nanobind.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define AQO_TESTING_CAN_FLUSH 1
#else
#define AQO_TESTING_CAN_FLUSH 0
#endif

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

// While alive (and `on`), the host's float operations flush subnormal operands (DAZ) and results (FTZ).
class FlushScope {
public:
    explicit FlushScope(bool on)
    {
#if AQO_TESTING_CAN_FLUSH
        if (on) {
            saved_ = _mm_getcsr();
            _mm_setcsr(saved_ | 0x8040u);  // FTZ (bit 15) | DAZ (bit 6)
            active_ = true;
        }
#else
        if (on) {
            throw nb::value_error("scalar helpers: flushing subnormals is not available on this host");
        }
#endif
    }
    ~FlushScope()
    {
#if AQO_TESTING_CAN_FLUSH
        if (active_) {
            _mm_setcsr(saved_);
        }
#endif
    }
    FlushScope(const FlushScope&) = delete;
    FlushScope& operator=(const FlushScope&) = delete;

private:
    unsigned saved_ = 0;
    bool active_ = false;
};

// Keeps a native result from being computed at compile time or outside the scope.
float Opaque(float v)
{
    volatile float x = v;
    return x;
}

// The scalar unit's bit-exact helpers for values that may be subnormal (aqo_kernel_common.h): per float32 of `v`,
// F32IsZero(v), F32PositiveBelow(v, limit) as 0 / 1 bytes, F32TimesPow2(v, k) as float32 bytes, and the native
// operations they replace (0 < v < limit, v x 2^k by a float multiply), all with the host flushing subnormals when
// `flush`.
nb::tuple ScalarBitHelpers(const nb::bytes& v, float limit, int k, bool flush)
{
    if (v.size() % sizeof(float) != 0) {
        throw nb::value_error("scalar_bit_helpers: v must be float32 bytes");
    }
    const size_t n = v.size() / sizeof(float);
    std::string zero(n, '\0'), below(n, '\0'), times(v.size(), '\0'), nativeBelow(n, '\0'),
        nativeTimes(v.size(), '\0');
    float pow2 = 1.0f;
    for (int j = 0; j < k; ++j) {
        pow2 *= 2.0f;
    }
    {
        FlushScope scope(flush);
        for (size_t i = 0; i < n; ++i) {
            float x = 0.0f;
            std::memcpy(&x, v.c_str() + i * sizeof(float), sizeof(float));
            x = Opaque(x);
            zero[i] = static_cast<char>(aqo_testing_divide::aqo_kernel::F32IsZero(x));
            below[i] = static_cast<char>(aqo_testing_divide::aqo_kernel::F32PositiveBelow(x, limit));
            const float t = aqo_testing_divide::aqo_kernel::F32TimesPow2(x, k);
            std::memcpy(&times[i * sizeof(float)], &t, sizeof(float));
            nativeBelow[i] = static_cast<char>(x > 0.0f && x < Opaque(limit));
            const float nt = x * Opaque(pow2);
            std::memcpy(&nativeTimes[i * sizeof(float)], &nt, sizeof(float));
        }
    }
    return nb::make_tuple(nb::bytes(zero.data(), n), nb::bytes(below.data(), n), nb::bytes(times.data(), times.size()),
                          nb::bytes(nativeBelow.data(), n), nb::bytes(nativeTimes.data(), nativeTimes.size()));
}

// Per pair of float32 of a and b: F32Sub(a, b) as float32 bytes, F32Less(a, b) as 0 / 1 bytes, and the native a - b
// and a < b, all with the host flushing subnormals when `flush`.
nb::tuple ScalarSubLess(const nb::bytes& a, const nb::bytes& b, bool flush)
{
    if (a.size() != b.size() || a.size() % sizeof(float) != 0) {
        throw nb::value_error("scalar_sub_less_f32: a and b must be float32 bytes of one length");
    }
    const size_t n = a.size() / sizeof(float);
    std::string diff(a.size(), '\0'), less(n, '\0'), nativeDiff(a.size(), '\0'), nativeLess(n, '\0');
    {
        FlushScope scope(flush);
        for (size_t i = 0; i < n; ++i) {
            float x = 0.0f;
            float y = 0.0f;
            std::memcpy(&x, a.c_str() + i * sizeof(float), sizeof(float));
            std::memcpy(&y, b.c_str() + i * sizeof(float), sizeof(float));
            x = Opaque(x);
            y = Opaque(y);
            const float d = aqo_testing_divide::aqo_kernel::F32Sub(x, y);
            std::memcpy(&diff[i * sizeof(float)], &d, sizeof(float));
            less[i] = static_cast<char>(aqo_testing_divide::aqo_kernel::F32Less(x, y));
            const float nd = x - y;
            std::memcpy(&nativeDiff[i * sizeof(float)], &nd, sizeof(float));
            nativeLess[i] = static_cast<char>(x < y);
        }
    }
    return nb::make_tuple(nb::bytes(diff.data(), diff.size()), nb::bytes(less.data(), n),
                          nb::bytes(nativeDiff.data(), nativeDiff.size()), nb::bytes(nativeLess.data(), n));
}

void RegisterScalarDivide(nb::module_& m)
{
    m.def("scalar_sub_less_f32", &ScalarSubLess, nb::arg("a"), nb::arg("b"), nb::arg("flush") = false,
          "F32Sub and F32Less of the kernels over two float32 byte strings, and the native a - b and a < b.");
    m.def("scalar_bit_helpers", &ScalarBitHelpers, nb::arg("v"), nb::arg("limit"), nb::arg("k"),
          nb::arg("flush") = false,
          "F32IsZero, F32PositiveBelow and F32TimesPow2 of the kernels over float32 bytes, and the native forms.");
    m.def("scalar_can_flush", []() { return AQO_TESTING_CAN_FLUSH != 0; },
          "Whether the scalar helpers can run with the host flushing subnormals.");
    m.def("scalar_divide_f32", &ScalarDivideF32, nb::arg("a"), nb::arg("b"),
          "DivideF32 of the kernels (integer-exact float32 division) over two float32 byte strings.");
}

aqo_bind::Registrar kRegisterScalarDivide("scalar_divide", &RegisterScalarDivide);

}  // namespace
