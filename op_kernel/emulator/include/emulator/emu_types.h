// Scalar types of the AscendC CPU emulator: half, bfloat16_t and the 8-bit float types of ascend910_95, plus the
// exact rounding routines every conversion in the emulator goes through (Cast, scalar conversions, Duplicate).
//
// The types are storage classes (a bit pattern) with conversions through float, because g++ has no native
// half type matching bisheng's. All rounding is done from a double, which holds every value of every source
// type exactly, so one rounding step gives the correctly rounded result in every mode.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace aqo_emu {

// The narrow float formats the emulator rounds to (float32 is the host's own type).
enum class FloatFormat : int { kFloat16 = 0, kBFloat16, kFloat8E4M3FN, kFloat8E5M2, kHiFloat8, kCount };

// Rounding directions. kNearestEven = CAST_NONE / CAST_RINT, kNearestAway = CAST_ROUND, kTowardZero =
// CAST_TRUNC, kDown = CAST_FLOOR, kUp = CAST_CEIL, kOdd = CAST_ODD (von Neumann: inexact results get the
// neighbour whose last code bit is 1).
enum class Rounding : int { kNearestEven = 0, kNearestAway, kTowardZero, kDown, kUp, kOdd };

// What happens to values beyond the format's largest finite value and to NaN.
struct OverflowPolicy {
    bool saturate = false;     // finite overflow and +-Inf become +-max (310p saturation mode)
    bool nan_to_zero = false;  // NaN becomes +0 (310p saturation mode)
};

// Encodes x (any double, including Inf and NaN) into the format's bit pattern with the given rounding.
uint16_t EncodeFloat(FloatFormat format, double x, Rounding rounding, OverflowPolicy policy = OverflowPolicy());
// Exact value of a bit pattern (NaN and +-Inf as the double NaN / Inf).
double DecodeFloat(FloatFormat format, uint16_t code);
// Largest finite value of the format.
double FloatFormatMax(FloatFormat format);
// The smallest normal magnitude (below it the format's values are subnormal): float16 2^-14, bfloat16 2^-126, e4m3fn
// 2^-6, e5m2 2^-14, HiFloat8 2^-15 (its denormals are 2^(M-23) for M = 1..7).
double FloatFormatLeastNormal(FloatFormat format);
const char* FloatFormatName(FloatFormat format);

// float32 from a double with the given rounding (IEEE overflow: to Inf, or to FLT_MAX when rounding toward
// zero / away from the overflow side).
float RoundToFloat32(double x, Rounding rounding);

}  // namespace aqo_emu

// bisheng's `half`: IEEE binary16. Conversions from arithmetic types round to nearest even, like the scalar unit.
struct half {
    uint16_t bits_ = 0;
    half() = default;
    template <typename A, typename = typename std::enable_if<std::is_arithmetic<A>::value>::type>
    half(A v)  // NOLINT: implicit like the compiler type
        : bits_(aqo_emu::EncodeFloat(aqo_emu::FloatFormat::kFloat16, static_cast<double>(v),
                                     aqo_emu::Rounding::kNearestEven))
    {}
    operator float() const  // NOLINT
    {
        return static_cast<float>(aqo_emu::DecodeFloat(aqo_emu::FloatFormat::kFloat16, bits_));
    }
    static half FromBits(uint16_t b)
    {
        half h;
        h.bits_ = b;
        return h;
    }
};

// AscendC's bfloat16_t.
struct bfloat16_t {
    uint16_t bits_ = 0;
    bfloat16_t() = default;
    template <typename A, typename = typename std::enable_if<std::is_arithmetic<A>::value>::type>
    bfloat16_t(A v)  // NOLINT
        : bits_(aqo_emu::EncodeFloat(aqo_emu::FloatFormat::kBFloat16, static_cast<double>(v),
                                     aqo_emu::Rounding::kNearestEven))
    {}
    operator float() const  // NOLINT
    {
        return static_cast<float>(aqo_emu::DecodeFloat(aqo_emu::FloatFormat::kBFloat16, bits_));
    }
    static bfloat16_t FromBits(uint16_t b)
    {
        bfloat16_t h;
        h.bits_ = b;
        return h;
    }
};

// The 8-bit float types of ascend910_95 (storage only: the vector unit reaches them through Cast). Scalar
// conversion from arithmetic types rounds to nearest (even for fp8, away for hifloat8) without saturation.
#define AQO_EMU_DEFINE_FP8(TYPE, FORMAT, ROUNDING)                                                              \
    struct TYPE {                                                                                               \
        uint8_t bits_ = 0;                                                                                      \
        TYPE() = default;                                                                                       \
        template <typename A, typename = typename std::enable_if<std::is_arithmetic<A>::value>::type>           \
        TYPE(A v)                                                                                               \
            : bits_(static_cast<uint8_t>(aqo_emu::EncodeFloat(FORMAT, static_cast<double>(v), ROUNDING))) \
        {}                                                                                                      \
        operator float() const { return static_cast<float>(aqo_emu::DecodeFloat(FORMAT, bits_)); }           \
        static TYPE FromBits(uint8_t b)                                                                         \
        {                                                                                                       \
            TYPE h;                                                                                             \
            h.bits_ = b;                                                                                        \
            return h;                                                                                           \
        }                                                                                                       \
    };
AQO_EMU_DEFINE_FP8(fp8_e4m3fn_t, aqo_emu::FloatFormat::kFloat8E4M3FN, aqo_emu::Rounding::kNearestEven)
AQO_EMU_DEFINE_FP8(fp8_e5m2_t, aqo_emu::FloatFormat::kFloat8E5M2, aqo_emu::Rounding::kNearestEven)
AQO_EMU_DEFINE_FP8(hifloat8_t, aqo_emu::FloatFormat::kHiFloat8, aqo_emu::Rounding::kNearestAway)
#undef AQO_EMU_DEFINE_FP8

namespace aqo_emu {

// Identifies every element type the emulator moves or computes on.
enum class ElemType : int {
    kFloat32 = 0, kFloat16, kBFloat16, kInt8, kUInt8, kInt16, kUInt16, kInt32, kUInt32, kInt64, kUInt64,
    kFloat8E4M3FN, kFloat8E5M2, kHiFloat8, kCount
};
const char* ElemTypeName(ElemType t);

template <typename T> struct ElemTraits;
#define AQO_EMU_ELEM(T, ID, IS_FLOAT, FORMAT)                                        \
    template <> struct ElemTraits<T> {                                               \
        static constexpr ElemType kId = ID;                                          \
        static constexpr bool kIsFloat = IS_FLOAT;                                   \
        static constexpr FloatFormat kFormat = FORMAT;                               \
    };
AQO_EMU_ELEM(float, ElemType::kFloat32, true, FloatFormat::kCount)
AQO_EMU_ELEM(half, ElemType::kFloat16, true, FloatFormat::kFloat16)
AQO_EMU_ELEM(bfloat16_t, ElemType::kBFloat16, true, FloatFormat::kBFloat16)
AQO_EMU_ELEM(fp8_e4m3fn_t, ElemType::kFloat8E4M3FN, true, FloatFormat::kFloat8E4M3FN)
AQO_EMU_ELEM(fp8_e5m2_t, ElemType::kFloat8E5M2, true, FloatFormat::kFloat8E5M2)
AQO_EMU_ELEM(hifloat8_t, ElemType::kHiFloat8, true, FloatFormat::kHiFloat8)
AQO_EMU_ELEM(int8_t, ElemType::kInt8, false, FloatFormat::kCount)
AQO_EMU_ELEM(uint8_t, ElemType::kUInt8, false, FloatFormat::kCount)
AQO_EMU_ELEM(int16_t, ElemType::kInt16, false, FloatFormat::kCount)
AQO_EMU_ELEM(uint16_t, ElemType::kUInt16, false, FloatFormat::kCount)
AQO_EMU_ELEM(int32_t, ElemType::kInt32, false, FloatFormat::kCount)
AQO_EMU_ELEM(uint32_t, ElemType::kUInt32, false, FloatFormat::kCount)
AQO_EMU_ELEM(int64_t, ElemType::kInt64, false, FloatFormat::kCount)
AQO_EMU_ELEM(uint64_t, ElemType::kUInt64, false, FloatFormat::kCount)
#undef AQO_EMU_ELEM

// Exact value of an element as a double (every supported type fits; int64 beyond 2^53 is not used by kernels).
template <typename T> inline double ToDouble(T v)
{
    if constexpr (std::is_same<T, float>::value) {
        return static_cast<double>(v);
    } else if constexpr (ElemTraits<T>::kIsFloat) {
        return DecodeFloat(ElemTraits<T>::kFormat, v.bits_);
    } else {
        return static_cast<double>(v);
    }
}

template <typename T> inline bool IsNaNValue(T v)
{
    if constexpr (ElemTraits<T>::kIsFloat) {
        double d = ToDouble(v);
        return d != d;
    } else {
        return false;
    }
}

}  // namespace aqo_emu
