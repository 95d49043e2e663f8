// Vector instructions of the emulated AscendC API (level-2 "count" forms): Cast, Abs, Add, Sub, Mul, Div, Max,
// Min, And, Or, Adds, Muls, Maxs, Mins, Duplicate, ReduceMax, ReduceMin, ReduceSum, Compare, CompareScalar, Select.
//
// Semantics:
// - Operands live in UB, start 32-byte aligned, and lie inside their buffers; `count` elements are processed.
// - Arithmetic is IEEE in the operand type: computed exactly in double and rounded once to nearest even, which
//   equals the correctly rounded float / half / bfloat16 operation for + - * / (double has > 2p+2 bits).
// - ascend310p runs in saturation mode: a float operand that is +-Inf reads as +-max of its type, NaN
//   reads as 0, and results saturate to +-max (NaN results become 0).
// - Undefined (never written) input elements give undefined output elements; they are never reduced, compared
//   into a result that is read, or copied to GM without an error.
// - Where the documentation does not say what the hardware does, the emulator refuses: Max / Min / ReduceMax /
//   ReduceMin with a NaN operand (outside saturation mode), integer results out of range, Cast of NaN / Inf /
//   out-of-range values to an integer type, ReduceMax index on ties, and Cast mode / type pairs not in the
//   SoC's table (derived from the CANN 8.1.RC1 vconv implementations).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "emulator/emu_order.h"
#include "emulator/emu_tensor.h"

namespace aqo_emu {

// How a Cast converts, per SoC (derived from the CANN 8.1.RC1 vconv implementations; ascend910_95
// has the 910b table plus float -> float8 (RINT) and float -> hifloat8 (ROUND), which saturate).
enum class CastKind : int { kPlain = 0, kDeq };
// Fails (at the kernel's line) unless the SoC accepts this conversion with this mode.
CastKind CheckCast(CoreContext& c, ElemType src, ElemType dst, int round_mode, const char* file, int line);
const char* RoundModeName(int round_mode);

inline Rounding RoundingOf(int round_mode)
{
    switch (round_mode) {
        case 2: return Rounding::kDown;         // CAST_FLOOR
        case 3: return Rounding::kUp;           // CAST_CEIL
        case 4: return Rounding::kNearestAway;  // CAST_ROUND
        case 5: return Rounding::kTowardZero;   // CAST_TRUNC
        case 6: return Rounding::kOdd;          // CAST_ODD
        default: return Rounding::kNearestEven; // CAST_NONE, CAST_RINT
    }
}

template <typename T> inline T LoadUb(const CoreContext& c, uint64_t byte)
{
    T v;
    std::memcpy(&v, c.ub.data() + byte, sizeof(T));
    return v;
}
template <typename T> inline void StoreUb(CoreContext& c, uint64_t byte, T v)
{
    std::memcpy(c.ub.data() + byte, &v, sizeof(T));
    SetUbDefined(c, byte, sizeof(T), true);
}

template <typename T> inline double TypeMax()
{
    if constexpr (std::is_same<T, float>::value) {
        return static_cast<double>(std::numeric_limits<float>::max());
    } else if constexpr (ElemTraits<T>::kIsFloat) {
        return FloatFormatMax(ElemTraits<T>::kFormat);
    } else {
        return static_cast<double>(std::numeric_limits<T>::max());
    }
}

// The smallest normal magnitude of a float type (0 for the others).
template <typename T> inline double LeastNormal()
{
    if constexpr (std::is_same<T, float>::value) {
        return static_cast<double>(std::numeric_limits<float>::min());
    } else if constexpr (ElemTraits<T>::kIsFloat) {
        return FloatFormatLeastNormal(ElemTraits<T>::kFormat);
    } else {
        return 0.0;
    }
}

// v, or a zero of its sign where the run's variant flushes the vector unit's subnormals
// (RunOptions::vector_flushes_subnormals: ascend910b and ascend310p, where nothing public says; the 950's Add / Mul
// are documented to keep them) and v is a nonzero value below T's smallest normal magnitude.
template <typename T> inline double VectorFlush(const CoreContext& c, double v)
{
    if (!c.options.vector_flushes_subnormals || c.soc.id == SocId::kAscend910_95 || !(v != 0.0) ||
        !(std::fabs(v) < LeastNormal<T>())) {
        return v;
    }
    return std::copysign(0.0, v);
}

// Half / bfloat16 results saturate (Inf and overflow -> +-max, NaN -> 0): always on ascend310p (its saturation mode),
// and on the split SoCs while CTRL[48] is 0 (the SetCtrlSpr page: the bit governs half / bfloat16 arithmetic and the
// conversions to them; float32 results are not affected).
template <typename T> inline bool HalfResultsSaturate(const CoreContext& c)
{
    constexpr bool half_like = ElemTraits<T>::kFormat == FloatFormat::kFloat16 ||
                               ElemTraits<T>::kFormat == FloatFormat::kBFloat16;
    return c.soc.saturation_mode || (half_like && c.split_cores && ((c.ctrl >> 48) & 1u) == 0);
}

// The value the vector unit reads: in saturation mode Inf reads as +-max of the type, NaN as 0; a subnormal as a zero
// under the flushing variant.
template <typename T> inline double ReadOperand(const CoreContext& c, T v)
{
    double d = ToDouble(v);
    if constexpr (ElemTraits<T>::kIsFloat) {
        if (c.soc.saturation_mode) {
            if (std::isnan(d)) return 0.0;
            if (std::isinf(d)) return d > 0 ? TypeMax<T>() : -TypeMax<T>();
        }
        d = VectorFlush<T>(c, d);
    }
    return d;
}

// ascend310p: the float16 -> float32 conversion of a raw float16 value under the run's saturation variant.
inline double SaturatedHalfToFloat(const CoreContext& c, double raw)
{
    const double half_max = FloatFormatMax(FloatFormat::kFloat16);
    if (std::isnan(raw)) {
        return c.options.saturation_nan == 1 ? raw : 0.0;
    }
    if (std::isinf(raw)) {
        switch (c.options.saturation_inf) {
            case 1: return raw;  // stays Inf
            case 2: return raw > 0 ? static_cast<double>(std::numeric_limits<float>::max())
                                   : -static_cast<double>(std::numeric_limits<float>::max());
            default: return raw > 0 ? half_max : -half_max;
        }
    }
    return raw;
}

// A result of type T written as a zero of its sign when it is subnormal and the run's variant flushes them.
template <typename T> inline T FlushedResult(const CoreContext& c, T r)
{
    if (!c.options.vector_flushes_subnormals) return r;
    const double v = ToDouble(r);
    const double f = VectorFlush<T>(c, v);
    if (f == v || std::isnan(v)) return r;
    if constexpr (std::is_same<T, float>::value) {
        return static_cast<float>(f);
    } else {
        return T::FromBits(static_cast<decltype(T().bits_)>(EncodeFloat(ElemTraits<T>::kFormat, f, Rounding::kNearestEven,
                                                                        OverflowPolicy())));
    }
}

template <typename T> inline T MakeResultIeee(const CoreContext& c, double x, const char* file, int line,
                                              const char* api);

// An arithmetic result x (exact, as a double) stored in type T: rounded to nearest even; saturated in
// saturation mode; integer results out of range refused; a subnormal float result flushed under the variant.
template <typename T> inline T MakeResult(const CoreContext& c, double x, const char* file, int line, const char* api)
{
    const T r = MakeResultIeee<T>(c, x, file, line, api);
    if constexpr (ElemTraits<T>::kIsFloat) {
        // tininess after rounding: a result that rounds to a subnormal of T is written as a zero of its sign
        return FlushedResult<T>(c, r);
    }
    return r;
}

template <typename T> inline T MakeResultIeee(const CoreContext& c, double x, const char* file, int line, const char* api)
{
    if constexpr (ElemTraits<T>::kIsFloat) {
        if (c.soc.saturation_mode) {
            if (std::isnan(x)) x = 0.0;
            if (x > TypeMax<T>()) x = TypeMax<T>();
            if (x < -TypeMax<T>()) x = -TypeMax<T>();
        }
        if constexpr (std::is_same<T, float>::value) {
            // NaN results get one canonical pattern (0x7FC00000) whatever the host produced: the device's NaN
            // payload is not documented and no kernel may depend on it.
            float f = std::isnan(x) ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(x);
            if (c.soc.saturation_mode && std::isinf(f)) {
                f = x > 0 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
            }
            return f;
        } else {
            OverflowPolicy p;
            p.saturate = HalfResultsSaturate<T>(c);
            p.nan_to_zero = HalfResultsSaturate<T>(c);
            return T::FromBits(static_cast<decltype(T().bits_)>(
                EncodeFloat(ElemTraits<T>::kFormat, x, Rounding::kNearestEven, p)));
        }
    } else {
        if (!(x >= static_cast<double>(std::numeric_limits<T>::min()) &&
              x <= static_cast<double>(std::numeric_limits<T>::max()))) {
            Fail(file, line,
                 std::string(api) + ": integer result " + std::to_string(x) + " is out of the range of " +
                     ElemTypeName(ElemTraits<T>::kId) + " (wrap-around or saturation is not documented)");
        }
        return static_cast<T>(x);
    }
}

template <typename T>
inline void CheckVecOperand(CoreContext& c, const AscendC::LocalTensor<T>& t, uint64_t count, const char* file,
                            int line, const char* api, const char* operand)
{
    CheckElemTypeOnSoc(c, ElemTraits<T>::kId, file, line, api);
    CheckRecord(c, t.record_, file, line, api, operand);
    CheckUbAligned(c, t.byte_, file, line, api, operand);
    CheckUbRange(c, t.record_, t.byte_, count * sizeof(T), file, line, api, operand);
}

// Documented overlap rule of the vector instructions: a destination may share its addresses with a source only
// 100% (same start, same length), never partially ("通用地址重叠约束").
inline void CheckOverlap(uint64_t dst, uint64_t dst_bytes, uint64_t src, uint64_t src_bytes, const char* file,
                         int line, const char* api, const char* src_name)
{
    const bool intersect = dst < src + src_bytes && src < dst + dst_bytes;
    if (intersect && !(dst == src && dst_bytes == src_bytes)) {
        Fail(file, line,
             std::string(api) + ": dst UB [" + std::to_string(dst) + ", " + std::to_string(dst + dst_bytes) +
                 ") partially overlaps " + src_name + " [" + std::to_string(src) + ", " +
                 std::to_string(src + src_bytes) +
                 "); operands may only overlap completely (documented address-overlap rule)");
    }
}

// Operands of different footprints that one instruction reads and writes (a reduction's first step writes work from
// src in one vcmax / vcadd): not even a complete overlap is the same operand there, so any shared byte is refused.
inline void CheckDisjoint(uint64_t a, uint64_t a_bytes, uint64_t b, uint64_t b_bytes, const char* file, int line,
                          const char* api, const char* a_name, const char* b_name)
{
    if (a < b + b_bytes && b < a + a_bytes) {
        Fail(file, line,
             std::string(api) + ": " + a_name + " UB [" + std::to_string(a) + ", " + std::to_string(a + a_bytes) +
                 ") shares bytes with " + b_name + " [" + std::to_string(b) + ", " + std::to_string(b + b_bytes) +
                 "); the reduction's first step writes one from the other in a single instruction (documented "
                 "address-overlap rule)");
    }
}

// A vector instruction of `count` elements of elem_bytes on the V pipe (emu_order.h); the caller then declares its
// reads and writes.
inline void VecIssue(CoreContext& c, InstrClass cls, uint64_t elem_bytes, uint64_t count, const char* file, int line,
                     const char* api)
{
    if (count == 0) {
        // The count forms run in counter mode with the count as the vector mask; a mask of 0 is not documented
        // (the reductions' own checks require count >= 1), so the emulator refuses rather than guess.
        Fail(file, line,
             std::string(api) + ": count 0; what the count forms do with an empty mask is not documented (guard "
                                "the call instead)");
    }
    Issue(c, Pipe::kV, false, cls, static_cast<uint8_t>(elem_bytes), count, VectorRepeats(count, elem_bytes), file,
          line, api);
}

template <typename T, typename F>
void UnaryOp(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, uint32_t count, F f,
             const char* file, int line, const char* api)
{
    CoreContext& c = Ctx(file, line);
    CheckVecOperand(c, dst, count, file, line, api, "dst");
    CheckVecOperand(c, src, count, file, line, api, "src");
    CheckOverlap(dst.byte_, count * sizeof(T), src.byte_, count * sizeof(T), file, line, api, "src");
    VecIssue(c, InstrClass::kVecElementwise, sizeof(T), count, file, line, api);
    UbRead(c, src.byte_, count * sizeof(T), "src");
    UbWrite(c, dst.byte_, count * sizeof(T), "dst");
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t s = src.byte_ + i * sizeof(T);
        const uint64_t d = dst.byte_ + i * sizeof(T);
        if (!UbDefined(c, s, sizeof(T))) {
            SetUbDefined(c, d, sizeof(T), false);
            continue;
        }
        StoreUb<T>(c, d, MakeResult<T>(c, f(ReadOperand(c, LoadUb<T>(c, s)), i), file, line, api));
    }
    c.stats->vector_ops++;
}

template <typename T, typename F>
void BinaryOp(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
              const AscendC::LocalTensor<T>& src1, uint32_t count, F f, const char* file, int line, const char* api)
{
    CoreContext& c = Ctx(file, line);
    CheckVecOperand(c, dst, count, file, line, api, "dst");
    CheckVecOperand(c, src0, count, file, line, api, "src0");
    CheckVecOperand(c, src1, count, file, line, api, "src1");
    CheckOverlap(dst.byte_, count * sizeof(T), src0.byte_, count * sizeof(T), file, line, api, "src0");
    CheckOverlap(dst.byte_, count * sizeof(T), src1.byte_, count * sizeof(T), file, line, api, "src1");
    VecIssue(c, std::strcmp(api, "Div") == 0 ? InstrClass::kVecDiv : InstrClass::kVecElementwise, sizeof(T), count,
             file, line, api);
    UbRead(c, src0.byte_, count * sizeof(T), "src0");
    UbRead(c, src1.byte_, count * sizeof(T), "src1");
    UbWrite(c, dst.byte_, count * sizeof(T), "dst");
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t s0 = src0.byte_ + i * sizeof(T);
        const uint64_t s1 = src1.byte_ + i * sizeof(T);
        const uint64_t d = dst.byte_ + i * sizeof(T);
        if (!UbDefined(c, s0, sizeof(T)) || !UbDefined(c, s1, sizeof(T))) {
            SetUbDefined(c, d, sizeof(T), false);
            continue;
        }
        const double a = ReadOperand(c, LoadUb<T>(c, s0));
        const double b = ReadOperand(c, LoadUb<T>(c, s1));
        StoreUb<T>(c, d, MakeResult<T>(c, f(a, b, i), file, line, api));
    }
    c.stats->vector_ops++;
}

// Div's result as a double (exactly representable in T when perturbed). The documentation does not say that the
// vector unit's division is correctly rounded (the 950's Div page gives a bound of 1 ulp, which does not promise
// that an exact quotient comes back exact); RunOptions::perturbed_divide makes every quotient that is not exactly
// representable the farther of its two neighbours, and every exact nonzero finite quotient its neighbour toward
// zero (1 ulp off, deterministic), so that tests can require kernels to meet their precision criteria under it.
// NaN, Inf and zero quotients are not perturbed.
template <typename T> inline double DivideResult(const CoreContext& c, double a, double b)
{
    const double q = a / b;
    if (!c.options.perturbed_divide || !std::isfinite(q) || q == 0.0) return q;
    double lo = q, hi = q, nearest = q;
    if constexpr (std::is_same<T, float>::value) {
        lo = RoundToFloat32(q, Rounding::kDown);
        hi = RoundToFloat32(q, Rounding::kUp);
        nearest = RoundToFloat32(q, Rounding::kNearestEven);
    } else if constexpr (ElemTraits<T>::kIsFloat) {
        const FloatFormat f = ElemTraits<T>::kFormat;
        lo = DecodeFloat(f, EncodeFloat(f, q, Rounding::kDown));
        hi = DecodeFloat(f, EncodeFloat(f, q, Rounding::kUp));
        nearest = DecodeFloat(f, EncodeFloat(f, q, Rounding::kNearestEven));
    } else {
        return q;  // integer division is exact or refused (MakeResult)
    }
    if (lo == hi) {
        // exactly representable: its neighbour toward zero (the previous value of the type's magnitude)
        double toward;
        if constexpr (std::is_same<T, float>::value) {
            toward = static_cast<double>(std::nextafter(static_cast<float>(q), 0.0f));
        } else {
            const FloatFormat f = ElemTraits<T>::kFormat;
            const double step = q * (1.0 - 1e-9);  // just inside the value, toward zero
            toward = DecodeFloat(f, EncodeFloat(f, step, Rounding::kTowardZero));
        }
        return toward;
    }
    const double far = nearest == lo ? hi : lo;
    return std::isfinite(far) ? far : nearest;
}

// The level-2 reductions' internal synchronisation (CANN 8.1 dav_c220 / dav_m200 kernel_operator_vec_reduce_impl.h and
// the count forms of inner_kernel_operator_vec_reduce_intf.cppm): the result goes through the scalar unit after a
// V_S pair, followed by S_V and S_MTE3 pairs, each on the id TPipe::FetchEventID returns. Not every path of every SoC
// uses all three (ReduceMax with calIndex on one repeat uses none); the emulator checks all three on every call, so
// a kernel flag pending across a reduction fails whatever path the count selects.
inline void ReductionFlagPairs(CoreContext& c, const char* file, int line, const char* api)
{
    OrderApiFlagPair(c, HardEventOf(Pipe::kV, Pipe::kS), file, line, api);
    OrderApiFlagPair(c, HardEventOf(Pipe::kS, Pipe::kV), file, line, api);
    OrderApiFlagPair(c, HardEventOf(Pipe::kS, Pipe::kMte3), file, line, api);
}

// A zero divisor: the vector division's result is unknown and the instruction raises an exception (CCE intrinsic
// documentation of vdiv: src1 must not be zero). Checked on the divisor as the unit reads it (310p saturation).
inline void RefuseZeroDivisor(double b, uint64_t i, const char* file, int line, const char* api)
{
    if (b == 0.0) {
        Fail(file, line,
             std::string(api) + ": element " + std::to_string(i) +
                 " of the divisor is 0; the vector unit's division by zero gives an unknown result and raises an "
                 "exception (documented), so the kernel must keep zero divisors away from it (e.g. divide only rows "
                 "whose scale is known to be non-zero)");
    }
}

// v flushed to a zero of its sign when it is below T's smallest normal magnitude (half: 2^-14, float: 2^-126).
template <typename T> inline double FlushSubnormal(double v)
{
    double least = 0.0;
    if constexpr (std::is_same<T, half>::value) {
        least = 6.103515625e-05;  // 2^-14
    } else if constexpr (std::is_same<T, float>::value) {
        least = static_cast<double>(std::numeric_limits<float>::min());
    }
    return (v != 0.0 && std::fabs(v) < least) ? std::copysign(0.0, v) : v;
}

template <typename T>
inline double CheckedDivide(const CoreContext& c, double a, double b, uint64_t i, const char* file, int line,
                            const char* api)
{
    if (!c.options.divide_flushes_subnormals && !c.soc.div_flushes_subnormals) {
        RefuseZeroDivisor(b, i, file, line, api);
        return DivideResult<T>(c, a, b);
    }
    // ascend910_95's Div, or RunOptions::divide_flushes_subnormals: subnormal operands read as zeros, a subnormal
    // quotient written as one.
    const double fb = FlushSubnormal<T>(b);
    if (fb == 0.0 && b != 0.0) {
        Fail(file, line,
             std::string(api) + ": element " + std::to_string(i) + " of the divisor is subnormal (" +
                 std::to_string(b) + "); " +
                 (c.soc.div_flushes_subnormals ? "on " + c.soc.name + " Div flushes subnormal operands to zero "
                                                   "(documented: its default DivAlgo::INTRINSIC), so "
                                               : std::string("with Div flushing subnormal operands to zero (this "
                                                             "run's variant), ")) +
                 "that is a division by zero, which raises an exception: keep subnormal divisors away from Div "
                 "(e.g. scale both operands by a power of two first)");
    }
    RefuseZeroDivisor(fb, i, file, line, api);
    const double fa = FlushSubnormal<T>(a);
    const double q = fa / fb;
    if (FlushSubnormal<T>(q) != q) {
        return std::copysign(0.0, q);
    }
    return DivideResult<T>(c, fa, fb);
}

inline void RefuseNaNOrder(const CoreContext& c, double a, double b, uint64_t i, const char* file, int line,
                           const char* api)
{
    if (!c.soc.saturation_mode && (std::isnan(a) || std::isnan(b))) {
        Fail(file, line,
             std::string(api) + ": element " + std::to_string(i) +
                 " is NaN; what the vector unit's max/min does with NaN is not documented, so the emulator "
                 "refuses (test for NaN with Compare and Select it away first)");
    }
}

// Max / Min of two values (NaN refused first): equal values give the second operand, or the first in the run variant
// zero_tie_first. They differ only for +0 against -0, whose result sign nothing documents.
inline double PickMax(const CoreContext& c, double a, double b)
{
    return a > b ? a : (b > a ? b : (c.options.zero_tie_first ? a : b));
}
inline double PickMin(const CoreContext& c, double a, double b)
{
    return a < b ? a : (b < a ? b : (c.options.zero_tie_first ? a : b));
}

}  // namespace aqo_emu

namespace aqo_emu {
// The element types an API takes, as the 8.1 headers list them (static_asserts in dav_c220 / dav_m200, the same on
// both; ascend910_95 held to them too, since its code cannot be type-checked): a kernel using another type fails
// where it calls the API.
template <typename T, typename... A> constexpr bool OneOf() { return (std::is_same<T, A>::value || ...); }
template <typename T, typename... A>
inline void CheckApiType(CoreContext& c, const char* file, int line, const char* api, const char* list)
{
    (void)c;
    if constexpr (!OneOf<T, A...>()) {
        Fail(file, line,
             std::string(api) + ": element type " + ElemTypeName(ElemTraits<T>::kId) + " is not supported (the " +
                 "8.1 headers' " + api + " takes " + list + ")");
    }
}
#define AQO_EMU_ARITH_TYPES half, float, int16_t, int32_t
#define AQO_EMU_ARITH_LIST "half, float, int16, int32"
}  // namespace aqo_emu

namespace AscendC {

// ---- unary / binary arithmetic ----
template <typename T> void Abs(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, AQO_EMU_SRC)
{
    aqo_emu::CheckApiType<T, half, float>(aqo_emu::Ctx(aqo_file, aqo_line), aqo_file, aqo_line, "Abs",
                                          "half, float");
    aqo_emu::UnaryOp(dst, src, count, [](double v, uint64_t) { return std::fabs(v); }, aqo_file, aqo_line, "Abs");
}

#define AQO_EMU_BINARY(NAME, EXPR)                                                                               \
    template <typename T>                                                                                        \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t count, \
              AQO_EMU_SRC)                                                                                       \
    {                                                                                                            \
        aqo_emu::CoreContext& aqo_ctx = aqo_emu::Ctx(aqo_file, aqo_line);                                        \
        if (std::strcmp(#NAME, "Div") == 0) {                                                                    \
            aqo_emu::CheckApiType<T, half, float>(aqo_ctx, aqo_file, aqo_line, #NAME, "half, float");            \
        } else {                                                                                                 \
            aqo_emu::CheckApiType<T, AQO_EMU_ARITH_TYPES>(aqo_ctx, aqo_file, aqo_line, #NAME, AQO_EMU_ARITH_LIST);\
        }                                                                                                        \
        aqo_emu::BinaryOp(dst, src0, src1, count, [&](double a, double b, uint64_t i) { (void)i; return EXPR; },  \
                          aqo_file, aqo_line, #NAME);                                                            \
    }
AQO_EMU_BINARY(Add, a + b)
AQO_EMU_BINARY(Sub, a - b)
AQO_EMU_BINARY(Mul, a * b)
AQO_EMU_BINARY(Div, aqo_emu::CheckedDivide<T>(aqo_ctx, a, b, i, aqo_file, aqo_line, "Div"))
AQO_EMU_BINARY(Max, (aqo_emu::RefuseNaNOrder(aqo_ctx, a, b, i, aqo_file, aqo_line, "Max"),
                     aqo_emu::PickMax(aqo_ctx, a, b)))
AQO_EMU_BINARY(Min, (aqo_emu::RefuseNaNOrder(aqo_ctx, a, b, i, aqo_file, aqo_line, "Min"),
                     aqo_emu::PickMin(aqo_ctx, a, b)))
#undef AQO_EMU_BINARY

// Bitwise And / Or of 16-bit integers (the AscendC API's types for them: int16_t, uint16_t; every SoC).
namespace emu_detail {
template <typename T, typename F>
void BitwiseOp(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t count,
               F f, const char* file, int line, const char* api)
{
    static_assert(std::is_same<T, int16_t>::value || std::is_same<T, uint16_t>::value,
                  "And / Or: int16_t or uint16_t operands (AscendC)");
    aqo_emu::CoreContext& c = aqo_emu::Ctx(file, line);
    aqo_emu::CheckVecOperand(c, dst, count, file, line, api, "dst");
    aqo_emu::CheckVecOperand(c, src0, count, file, line, api, "src0");
    aqo_emu::CheckVecOperand(c, src1, count, file, line, api, "src1");
    aqo_emu::CheckOverlap(dst.byte_, count * sizeof(T), src0.byte_, count * sizeof(T), file, line, api, "src0");
    aqo_emu::CheckOverlap(dst.byte_, count * sizeof(T), src1.byte_, count * sizeof(T), file, line, api, "src1");
    aqo_emu::VecIssue(c, aqo_emu::InstrClass::kVecElementwise, sizeof(T), count, file, line, api);
    aqo_emu::UbRead(c, src0.byte_, uint64_t{count} * sizeof(T), "src0");
    aqo_emu::UbRead(c, src1.byte_, uint64_t{count} * sizeof(T), "src1");
    aqo_emu::UbWrite(c, dst.byte_, uint64_t{count} * sizeof(T), "dst");
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t s0 = src0.byte_ + i * sizeof(T);
        const uint64_t s1 = src1.byte_ + i * sizeof(T);
        const uint64_t d = dst.byte_ + i * sizeof(T);
        if (!aqo_emu::UbDefined(c, s0, sizeof(T)) || !aqo_emu::UbDefined(c, s1, sizeof(T))) {
            aqo_emu::SetUbDefined(c, d, sizeof(T), false);
            continue;
        }
        aqo_emu::StoreUb<T>(c, d, static_cast<T>(f(aqo_emu::LoadUb<T>(c, s0), aqo_emu::LoadUb<T>(c, s1))));
    }
    c.stats->vector_ops++;
}
}  // namespace emu_detail

template <typename T>
void And(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t count,
         AQO_EMU_SRC)
{
    emu_detail::BitwiseOp(dst, src0, src1, count, [](T a, T b) { return a & b; }, aqo_file, aqo_line, "And");
}
template <typename T>
void Or(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint32_t count,
        AQO_EMU_SRC)
{
    emu_detail::BitwiseOp(dst, src0, src1, count, [](T a, T b) { return a | b; }, aqo_file, aqo_line, "Or");
}

// Scalar forms: the scalar has the operand type, as the 8.1 headers declare it (const T&, or a U constrained to be
// T: kernel_operator_vec_binary_scalar_intf.h), so a scalar of another type does not compile here either.
#define AQO_EMU_SCALAR(NAME, EXPR)                                                                                \
    template <typename T, bool isSetMask = true>                                                                  \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalar, uint32_t count, AQO_EMU_SRC) \
    {                                                                                                             \
        /* 8.1's isSetMask = false count form runs one repeat under the current mask, not `count` elements */    \
        static_assert(isSetMask, #NAME ": the isSetMask = false count form is not modelled");                    \
        aqo_emu::CoreContext& aqo_ctx = aqo_emu::Ctx(aqo_file, aqo_line);                                         \
        aqo_emu::CheckApiType<T, AQO_EMU_ARITH_TYPES>(aqo_ctx, aqo_file, aqo_line, #NAME, AQO_EMU_ARITH_LIST);   \
        const double b = aqo_emu::ReadOperand(aqo_ctx, scalar);                                                   \
        aqo_emu::UnaryOp(dst, src, count, [&](double a, uint64_t i) { (void)i; return EXPR; }, aqo_file,          \
                         aqo_line, #NAME);                                                                        \
    }
AQO_EMU_SCALAR(Adds, a + b)
AQO_EMU_SCALAR(Muls, a * b)
AQO_EMU_SCALAR(Maxs, (aqo_emu::RefuseNaNOrder(aqo_ctx, a, b, i, aqo_file, aqo_line, "Maxs"),
                      aqo_emu::PickMax(aqo_ctx, a, b)))
AQO_EMU_SCALAR(Mins, (aqo_emu::RefuseNaNOrder(aqo_ctx, a, b, i, aqo_file, aqo_line, "Mins"),
                      aqo_emu::PickMin(aqo_ctx, a, b)))
#undef AQO_EMU_SCALAR

// The 8.1 headers' Duplicate takes the scalar as const T& (kernel_operator_vec_duplicate_intf.h): T is deduced from
// both arguments, so a scalar of another type (Duplicate(floatTensor, 0, n)) does not compile there, nor here.
template <typename T>
void Duplicate(const LocalTensor<T>& dst, const T& scalar, int32_t count, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    aqo_emu::CheckApiType<T, half, bfloat16_t, int16_t, uint16_t, int32_t, uint32_t, float>(
        c, aqo_file, aqo_line, "Duplicate", "half, bfloat16, int16, uint16, int32, uint32, float");
    if (count <= 0) {
        aqo_emu::Fail(aqo_file, aqo_line, "Duplicate: count must be positive, got " + std::to_string(count));
    }
    const uint32_t n = static_cast<uint32_t>(count);
    aqo_emu::CheckVecOperand(c, dst, n, aqo_file, aqo_line, "Duplicate", "dst");
    aqo_emu::VecIssue(c, aqo_emu::InstrClass::kVecElementwise, sizeof(T), n, aqo_file, aqo_line, "Duplicate");
    aqo_emu::UbWrite(c, dst.byte_, uint64_t{n} * sizeof(T), "dst");
    const T v = scalar;
    for (uint64_t i = 0; i < n; ++i) {
        aqo_emu::StoreUb<T>(c, dst.byte_ + i * sizeof(T), v);
    }
    c.stats->vector_ops++;
}

// ---- reductions (level 2): dst[0] = max (min) of src[0, count); with calIndex dst[1] holds the index's bits ----
namespace emu_detail {
template <typename T>
void ReduceExtreme(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work, int32_t count,
                   bool cal_index, bool is_max, const char* file, int line)
{
    const char* api = is_max ? "ReduceMax" : "ReduceMin";
    aqo_emu::CoreContext& c = aqo_emu::Ctx(file, line);
    aqo_emu::CheckApiType<T, half, float>(c, file, line, api, "half, float");
    if (count <= 0) {
        aqo_emu::Fail(file, line, std::string(api) + ": count must be positive, got " + std::to_string(count));
    }
    aqo_emu::CheckVecOperand(c, src, static_cast<uint64_t>(count), file, line, api, "src");
    // dst needs only 2 * sizeof(T) alignment (value and index); work 32 bytes and the documented minimum size
    // (the ReduceMax page's sharedTmpBuffer formula): every repeat of 256 bytes leaves a (value, index) pair,
    // rounded up to whole 32-byte blocks; with calIndex the later rounds keep their own space after it (the first
    // round's indices are still needed), up to three rounds.
    aqo_emu::CheckRecord(c, dst.record_, file, line, api, "dst");
    if (dst.byte_ % (2 * sizeof(T)) != 0) {
        aqo_emu::Fail(file, line, std::string(api) + ": dst UB address " + std::to_string(dst.byte_) +
                                      " is not " + std::to_string(2 * sizeof(T)) + "-byte aligned");
    }
    aqo_emu::CheckUbRange(c, dst.record_, dst.byte_, (cal_index ? 2 : 1) * sizeof(T), file, line, api, "dst");
    aqo_emu::CheckRecord(c, work.record_, file, line, api, "work");
    aqo_emu::CheckUbAligned(c, work.byte_, file, line, api, "work");
    {
        const uint64_t per_repeat = 256 / sizeof(T);
        const uint64_t per_block = 32 / sizeof(T);
        // whole repeats, at least one (the page's count / elementsPerRepeat; 8.1's ReduceMax / ReduceMin reduce a
        // tail in work[0..1])
        const uint64_t repeats = std::max<uint64_t>(1, static_cast<uint64_t>(count) / per_repeat);
        auto blocks = [&](uint64_t n) { return (n + per_block - 1) / per_block * per_block; };
        const uint64_t iter1 = repeats * 2;
        uint64_t need = blocks(iter1);
        if (cal_index) {
            const uint64_t iter2 = (iter1 + per_repeat - 1) / per_repeat * 2;
            need += blocks(iter2);
            if (iter2 > 2) {
                need += blocks((iter2 + per_repeat - 1) / per_repeat * 2);
            }
        }
        // ascend910_95 needs no work buffer (the ReduceMax page: src or a buffer of any size will do): nothing is
        // checked or written there
        const bool uses_work = c.soc.id != aqo_emu::SocId::kAscend910_95;
        const uint64_t work_bytes = uses_work ? need * sizeof(T) : 0;
        if (uses_work) {
            aqo_emu::CheckUbRange(c, work.record_, work.byte_, need * sizeof(T), file, line, api,
                                  cal_index ? "work (documented minimum with calIndex: every round's (value, index) "
                                              "pairs, each 32-byte rounded)"
                                            : "work (documented minimum: 2 elements per 256-byte repeat, 32-byte "
                                              "rounded)");
        }
        // The first step writes work from src (dav_c220 / dav_m200 ReduceImplFirstStep); with calIndex and one
        // repeat dst comes straight from src. dst may share work (the ReduceMax page), so only src is kept apart;
        // without calIndex the emulator keeps dst off src too (stricter than needed: no kernel needs it).
        const uint64_t src_bytes = static_cast<uint64_t>(count) * sizeof(T);
        if (uses_work) {
            aqo_emu::CheckDisjoint(work.byte_, work_bytes, src.byte_, src_bytes, file, line, api, "work", "src");
        }
        aqo_emu::CheckDisjoint(dst.byte_, (cal_index ? 2 : 1) * sizeof(T), src.byte_, src_bytes, file, line, api,
                               "dst", "src");
        aqo_emu::VecIssue(c, aqo_emu::InstrClass::kVecReduce, sizeof(T), static_cast<uint64_t>(count), file, line,
                          api);
        aqo_emu::UbRead(c, src.byte_, static_cast<uint64_t>(count) * sizeof(T), "src");
        if (uses_work) {
            aqo_emu::UbWrite(c, work.byte_, work_bytes, "work");
        }
        aqo_emu::UbWrite(c, dst.byte_, (cal_index ? 2 : 1) * sizeof(T), "dst");
        aqo_emu::ReductionFlagPairs(c, file, line, api);
    }
    double best = 0;
    int64_t best_i = -1;
    bool tie = false;
    for (int64_t i = 0; i < count; ++i) {
        const uint64_t s = src.byte_ + static_cast<uint64_t>(i) * sizeof(T);
        if (!aqo_emu::UbDefined(c, s, sizeof(T))) {
            aqo_emu::Fail(file, line,
                          std::string(api) + ": element " + std::to_string(i) + " of " + std::to_string(count) +
                              " was never written (uninitialised UB, e.g. the unpadded tail of a DataCopyPad)");
        }
        const double v = aqo_emu::ReadOperand(c, aqo_emu::LoadUb<T>(c, s));
        aqo_emu::RefuseNaNOrder(c, v, 0.0, static_cast<uint64_t>(i), file, line, api);
        if (best_i < 0 || (is_max ? v > best : v < best)) {
            best = v;
            best_i = i;
            tie = false;
        } else if (v == best) {
            tie = true;
        }
    }
    if (cal_index && tie) {
        aqo_emu::Fail(file, line, std::string(api) +
                                      " with calIndex: the extreme value occurs more than once and which index "
                                      "the hardware reports is not documented");
    }
    aqo_emu::StoreUb<T>(c, dst.byte_, aqo_emu::MakeResult<T>(c, best, file, line, api));
    if (cal_index) {
        // The index is stored as the bit pattern of an unsigned integer of T's width.
        T idx_bits;
        if constexpr (std::is_same<T, float>::value) {
            const uint32_t u = static_cast<uint32_t>(best_i);
            std::memcpy(&idx_bits, &u, 4);
        } else if constexpr (aqo_emu::ElemTraits<T>::kIsFloat) {
            idx_bits = T::FromBits(static_cast<decltype(T().bits_)>(best_i));
        } else {
            idx_bits = static_cast<T>(best_i);
        }
        aqo_emu::StoreUb<T>(c, dst.byte_ + sizeof(T), idx_bits);
    }
    c.stats->vector_ops++;
}
}  // namespace emu_detail

template <typename T>
void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work, int32_t count,
               bool calIndex = false, AQO_EMU_SRC)
{
    emu_detail::ReduceExtreme(dst, src, work, count, calIndex, true, aqo_file, aqo_line);
}
template <typename T>
void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work, int32_t count,
               bool calIndex = false, AQO_EMU_SRC)
{
    emu_detail::ReduceExtreme(dst, src, work, count, calIndex, false, aqo_file, aqo_line);
}

// dst[0] = sum of src[0, count). The hardware adds in an order of its own (per repeat, then across repeats),
// which the documentation does not specify; float addition is not associative, so the emulator returns a sum
// only when no order can change it: when every partial sum of every order is exact (SumExactInEveryOrder), when all
// terms are zeros, or when the inputs contain NaN / Inf (the IEEE result is then order-independent). Otherwise it
// refuses.
template <typename T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& work, int32_t count,
               AQO_EMU_SRC)
{
    const char* api = "ReduceSum";
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    aqo_emu::CheckApiType<T, half, float>(c, aqo_file, aqo_line, api, "half, float");
    if (count <= 0) {
        aqo_emu::Fail(aqo_file, aqo_line, std::string(api) + ": count must be positive, got " + std::to_string(count));
    }
    aqo_emu::CheckVecOperand(c, src, static_cast<uint64_t>(count), aqo_file, aqo_line, api, "src");
    // dst's footprint. ascend910b (and ascend910_95, held to it): the count form is one counter-mode vcadd with a
    // destination repeat stride of one element (dav_c220 ReduceSumImpl; DEFAULT_REDUCE_DST_REP_SRIDE = 1), which
    // stores one sum per 256-byte repeat at dst[0], dst[1], ... (the C API's repeat reduce-sum page) before the scalar
    // unit writes the total into dst[0]; so dst must hold one element per repeat, and dst[1..) end up holding values
    // no kernel may read (left undefined here). ascend310p (dav_m200) reduces through work and writes dst[0] only.
    const uint64_t dst_elems =
        c.soc.id == aqo_emu::SocId::kAscend310P
            ? 1
            : (static_cast<uint64_t>(count) * sizeof(T) + 255) / 256;
    aqo_emu::CheckVecOperand(c, dst, dst_elems, aqo_file, aqo_line, api, "dst");
    aqo_emu::CheckOverlap(dst.byte_, dst_elems * sizeof(T), src.byte_, static_cast<uint64_t>(count) * sizeof(T),
                          aqo_file, aqo_line, api, "src");
    aqo_emu::CheckRecord(c, work.record_, aqo_file, aqo_line, api, "work");
    aqo_emu::CheckUbAligned(c, work.byte_, aqo_file, aqo_line, api, "work");
    {
        // The documented minimum of work (ReduceSum's page: one element per 256-byte repeat of the first round,
        // rounded up to whole 32-byte blocks), on every SoC: ascend310p's first round writes exactly that much
        // (dav_m200 ReduceSumFirstStep), its tail path two elements more of it (within the minimum); a smaller
        // work buffer would let the device overwrite the next UB buffer.
        const uint64_t per_repeat = 256 / sizeof(T);
        const uint64_t per_block = 32 / sizeof(T);
        const uint64_t repeats = (static_cast<uint64_t>(count) + per_repeat - 1) / per_repeat;
        const uint64_t work_bytes = (repeats + per_block - 1) / per_block * per_block * sizeof(T);
        aqo_emu::CheckUbRange(c, work.record_, work.byte_, work_bytes, aqo_file, aqo_line, api,
                              "work (documented minimum: 1 element per 256-byte repeat, 32-byte rounded)");
        // ascend310p's first step writes work from src in one vcadd (dav_m200 ReduceSumFirstStep); held on every SoC.
        aqo_emu::CheckDisjoint(work.byte_, work_bytes, src.byte_, static_cast<uint64_t>(count) * sizeof(T), aqo_file,
                               aqo_line, api, "work", "src");
        aqo_emu::VecIssue(c, aqo_emu::InstrClass::kVecReduce, sizeof(T), static_cast<uint64_t>(count), aqo_file,
                          aqo_line, api);
        aqo_emu::UbRead(c, src.byte_, static_cast<uint64_t>(count) * sizeof(T), "src");
        aqo_emu::UbWrite(c, work.byte_, work_bytes, "work");
        aqo_emu::UbWrite(c, dst.byte_, dst_elems * sizeof(T), "dst");
        aqo_emu::ReductionFlagPairs(c, aqo_file, aqo_line, api);
    }
    std::vector<double> v(static_cast<size_t>(count));
    bool non_finite = false;
    bool all_zero = true;
    bool all_negative_zero = true;
    for (int32_t i = 0; i < count; ++i) {
        const uint64_t s = src.byte_ + static_cast<uint64_t>(i) * sizeof(T);
        if (!aqo_emu::UbDefined(c, s, sizeof(T))) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          std::string(api) + ": element " + std::to_string(i) + " of " + std::to_string(count) +
                              " was never written (uninitialised UB)");
        }
        v[i] = aqo_emu::ReadOperand(c, aqo_emu::LoadUb<T>(c, s));
        non_finite = non_finite || !std::isfinite(v[i]);
        all_zero = all_zero && v[i] == 0.0;
        all_negative_zero = all_negative_zero && v[i] == 0.0 && std::signbit(v[i]);
    }
    double result = 0.0;
    if (non_finite) {
        for (double x : v) result += x;  // NaN, or +-Inf, or NaN from Inf - Inf: the same in every order
    } else if (all_zero) {
        result = all_negative_zero ? -0.0 : 0.0;  // IEEE: a sum of zeros is -0 only when every term is -0
    } else {
        double exact = 0.0;  // exact: the order-independence test below bounds it
        for (double x : v) exact += x;
        if (aqo_emu::ElemTraits<T>::kIsFloat && !aqo_emu::SumExactInEveryOrder(v, aqo_emu::ElemTraits<T>::kId)) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          std::string(api) + " of " + std::to_string(count) +
                              " elements: the float result may depend on the order of the additions, which the "
                              "hardware's is not documented for (per repeat, then across repeats, each in a tree "
                              "order of its own); the emulator accepts a sum only when every partial sum in every "
                              "order is exact (all terms multiples of one power of two q with sum |x| <= 2^p q, "
                              "p the type's precision), and refuses rather than guess");
        }
        const double r = aqo_emu::ToDouble(aqo_emu::MakeResult<T>(c, exact, aqo_file, aqo_line, api));
        result = r;
    }
    aqo_emu::StoreUb<T>(c, dst.byte_, aqo_emu::MakeResult<T>(c, result, aqo_file, aqo_line, api));
    if (dst_elems > 1) {
        aqo_emu::SetUbDefined(c, dst.byte_ + sizeof(T), (dst_elems - 1) * sizeof(T), false);
    }
    c.stats->vector_ops++;
}

// ---- Cast ----
template <typename D, typename S>
void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, const RoundMode& round_mode, uint32_t count,
          AQO_EMU_SRC)
{
    const char* api = "Cast";
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    const aqo_emu::CastKind kind = aqo_emu::CheckCast(c, aqo_emu::ElemTraits<S>::kId, aqo_emu::ElemTraits<D>::kId,
                                                      static_cast<int>(round_mode), aqo_file, aqo_line);
    aqo_emu::CheckVecOperand(c, dst, count, aqo_file, aqo_line, api, "dst");
    aqo_emu::CheckVecOperand(c, src, count, aqo_file, aqo_line, api, "src");
    aqo_emu::CheckOverlap(dst.byte_, uint64_t{count} * sizeof(D), src.byte_, uint64_t{count} * sizeof(S), aqo_file,
                          aqo_line, api, "src");
    if (kind == aqo_emu::CastKind::kDeq && !c.deq_scale_set) {
        aqo_emu::Fail(aqo_file, aqo_line,
                      "Cast int32 -> half is a deq conversion (src * deq scale) but SetDeqScale was not called on "
                      "this core");
    }
    aqo_emu::VecIssue(c, aqo_emu::InstrClass::kVecCast, sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S), count,
                      aqo_file, aqo_line, api);
    if (kind == aqo_emu::CastKind::kDeq) {  // a reader of the deq scale register until it completes (SetDeqScale)
        c.deq_reader_seq = c.order.current_seq;
        c.deq_reader_file = aqo_file;
        c.deq_reader_line = aqo_line;
    }
    aqo_emu::UbRead(c, src.byte_, uint64_t{count} * sizeof(S), "src");
    aqo_emu::UbWrite(c, dst.byte_, uint64_t{count} * sizeof(D), "dst");
    // CAST_NONE is a conversion without a rounding mode: its rounding of a result that is not exact is not
    // documented (nearest even by CAST_NONE's description; RunOptions::modeless_rounding = 1: toward zero).
    // The deq conversion (int32 -> half) has no rounding mode at all: the 8.1 headers map every RoundMode to the same
    // vconv_deq instruction, so the requested mode is ignored and its result rounds like CAST_NONE's.
    const bool modeless = round_mode == RoundMode::CAST_NONE || kind == aqo_emu::CastKind::kDeq;
    const aqo_emu::Rounding rounding =
        modeless ? (c.options.modeless_rounding == 1 ? aqo_emu::Rounding::kTowardZero
                                                     : aqo_emu::RoundingOf(static_cast<int>(RoundMode::CAST_NONE)))
                 : aqo_emu::RoundingOf(static_cast<int>(round_mode));
    // ascend310p saturation mode: what the float16 -> float32 conversion makes of +-Inf and NaN is not documented;
    // RunOptions::saturation_inf / saturation_nan select one plausible behaviour (values kept raw in dst: a later
    // vector read of them saturates as every float operand does, a scalar read sees them as they are).
    const bool sat_half_to_float = c.soc.saturation_mode && std::is_same<S, half>::value &&
                                   std::is_same<D, float>::value;
    // Overlapping dst and src of different widths are processed so that no source element is overwritten
    // before it is read: read everything first.
    std::vector<double> values(count);
    std::vector<uint8_t> defined(count);
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t s = src.byte_ + i * sizeof(S);
        defined[i] = aqo_emu::UbDefined(c, s, sizeof(S));
        if (!defined[i]) {
            values[i] = 0.0;
        } else if (sat_half_to_float) {
            const double raw = aqo_emu::ToDouble(aqo_emu::LoadUb<S>(c, s));
            values[i] = aqo_emu::VectorFlush<S>(c, aqo_emu::SaturatedHalfToFloat(c, raw));
        } else {
            values[i] = aqo_emu::ReadOperand(c, aqo_emu::LoadUb<S>(c, s));
        }
    }
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t d = dst.byte_ + i * sizeof(D);
        if (!defined[i]) {
            aqo_emu::SetUbDefined(c, d, sizeof(D), false);
            continue;
        }
        double v = values[i];
        if (kind == aqo_emu::CastKind::kDeq) {
            v = v * c.deq_scale;  // exact in double for int32 x half
        }
        if constexpr (std::is_same<D, float>::value) {
            float f = std::isnan(v) ? std::numeric_limits<float>::quiet_NaN() : aqo_emu::RoundToFloat32(v, rounding);
            if (c.soc.saturation_mode && std::isinf(f) && !sat_half_to_float) {
                f = v > 0 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
            }
            aqo_emu::StoreUb<D>(c, d, aqo_emu::FlushedResult<float>(c, f));
        } else if constexpr (aqo_emu::ElemTraits<D>::kIsFloat) {
            aqo_emu::OverflowPolicy p;
            const bool fp8 = aqo_emu::ElemTraits<D>::kFormat == aqo_emu::FloatFormat::kFloat8E4M3FN ||
                             aqo_emu::ElemTraits<D>::kFormat == aqo_emu::FloatFormat::kFloat8E5M2 ||
                             aqo_emu::ElemTraits<D>::kFormat == aqo_emu::FloatFormat::kHiFloat8;
            // ascend910_95's conversions to the 8-bit float types follow its control register (the AscendC
            // documentation's SetCtrlSpr and Reg Cast pages): in the default saturation mode NaN becomes 0 and overflow
            // +-max, otherwise NaN stays NaN and overflow gives Inf / NaN. Which mode a launch runs in is not stated,
            // so the element converted from NaN, Inf or a value that rounds beyond the type's largest finite value is
            // left undefined: a kernel must clip first, or overwrite it (the NaN code) before anything reads it. (A
            // value that rounds to +-max, e.g. 448.00003 to e4m3fn, is the same in both modes.)
            // half / bfloat16 by the mode in force; fp8 / hif8 (ascend910_95 only): IEEE, an overflow is non-finite
            p.saturate = aqo_emu::HalfResultsSaturate<D>(c);
            p.nan_to_zero = aqo_emu::HalfResultsSaturate<D>(c);
            const D r = D::FromBits(static_cast<decltype(D().bits_)>(
                aqo_emu::EncodeFloat(aqo_emu::ElemTraits<D>::kFormat, v, rounding, p)));
            if (fp8 && !std::isfinite(aqo_emu::ToDouble(r))) {
                aqo_emu::SetUbDefined(c, d, sizeof(D), false);  // from NaN, Inf or a value rounding past +-max
                continue;
            }
            aqo_emu::StoreUb<D>(c, d, aqo_emu::FlushedResult<D>(c, r));
        } else {
            double r;
            if (std::isnan(v) || std::isinf(v)) {
                aqo_emu::Fail(aqo_file, aqo_line,
                              std::string("Cast ") + aqo_emu::ElemTypeName(aqo_emu::ElemTraits<S>::kId) + " -> " +
                                  aqo_emu::ElemTypeName(aqo_emu::ElemTraits<D>::kId) + ": element " +
                                  std::to_string(i) + " is " + (std::isnan(v) ? "NaN" : "Inf") +
                                  "; the integer result is not documented, so the emulator refuses");
            }
            switch (rounding) {
                case aqo_emu::Rounding::kNearestEven: r = std::nearbyint(v); break;  // host mode: to nearest even
                case aqo_emu::Rounding::kNearestAway: r = std::round(v); break;
                case aqo_emu::Rounding::kTowardZero: r = std::trunc(v); break;
                case aqo_emu::Rounding::kDown: r = std::floor(v); break;
                case aqo_emu::Rounding::kUp: r = std::ceil(v); break;
                default: r = std::nearbyint(v); break;
            }
            const double lo = static_cast<double>(std::numeric_limits<D>::min());
            const double hi = static_cast<double>(std::numeric_limits<D>::max());
            // Every SoC, ascend310p's saturation mode included: its documented saturation is of floating-point
            // results; what a float -> integer conversion makes of a value beyond the integer type is not stated.
            if (r < lo || r > hi) {
                aqo_emu::Fail(aqo_file, aqo_line,
                              std::string("Cast ") + aqo_emu::ElemTypeName(aqo_emu::ElemTraits<S>::kId) + " -> " +
                                  aqo_emu::ElemTypeName(aqo_emu::ElemTraits<D>::kId) + ": element " +
                                  std::to_string(i) + " = " + std::to_string(v) +
                                  " is out of range; overflow behaviour is not documented, clip first");
            }
            aqo_emu::StoreUb<D>(c, d, static_cast<D>(r));
        }
    }
    c.stats->vector_ops++;
}

// Scale of the int32 -> half deq conversion: the DEQSCALE register. The 8.1 headers' SetDeqScale (dav_c220 /
// dav_m200 kernel_operator_vec_vconv_impl.h) is a bare register write of the scalar unit (set_deqscale), with no
// barrier; a deq Cast reads the register when it runs on V. So a SetDeqScale that changes the value while a deq Cast
// issued before it may still be queued or running on V is a race: which scale that Cast uses is not documented. The
// kernel must know the Cast complete first (SetFlag / WaitFlag V_S, or PipeBarrier<PIPE_ALL>); PipeBarrier<PIPE_V>
// orders V instructions only, not the scalar unit's write. Rewriting the same value is harmless and accepted.
// The other order (SetDeqScale, then a deq Cast) needs no synchronisation: the API's documentation calls Cast right
// after SetDeqScale, and Huawei's shipped kernels separate them by PipeBarrier<PIPE_V> only.
inline void SetDeqScale(half scale, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    aqo_emu::Issue(c, aqo_emu::Pipe::kS, true, aqo_emu::InstrClass::kScalarOther, 0, 1, 0, aqo_file, aqo_line,
                   "SetDeqScale");
    const double value = static_cast<double>(static_cast<float>(scale));
    const uint32_t v_known = c.order.current.v[static_cast<int>(aqo_emu::Stream::kV)];
    if (c.options.check_ordering && c.deq_scale_set && value != c.deq_scale && c.deq_reader_seq > v_known) {
        aqo_emu::Fail(aqo_file, aqo_line,
                      "SetDeqScale changes the deq scale (" + std::to_string(c.deq_scale) + " -> " +
                          std::to_string(value) + ") while the deq conversion Cast int32 -> half at " +
                          std::string(c.deq_reader_file) + ":" + std::to_string(c.deq_reader_line) +
                          " may still be running on V: the scale is a register the scalar unit writes at once "
                          "(SetDeqScale does not wait) and the Cast reads when it runs, so it may convert with "
                          "the new scale. Order them with SetFlag<HardEvent::V_S>(id) / WaitFlag<HardEvent::V_S>"
                          "(id) (or PipeBarrier<PIPE_ALL>()) before SetDeqScale; PipeBarrier<PIPE_V> orders only "
                          "the V pipe.");
    }
    c.deq_scale = value;
    c.deq_scale_set = true;
}

// ---- Compare / Select: one mask bit per element, bit i of byte i / 8 ----
namespace emu_detail {
inline bool CompareValues(double a, double b, CMPMODE mode)
{
    switch (mode) {  // IEEE: every ordered comparison with NaN is false, NE is true
        case CMPMODE::LT: return a < b;
        case CMPMODE::GT: return a > b;
        case CMPMODE::EQ: return a == b;
        case CMPMODE::LE: return a <= b;
        case CMPMODE::GE: return a >= b;
        case CMPMODE::NE: return a != b;
    }
    return false;
}

inline const char* CmpModeName(CMPMODE m)
{
    static const char* const kNames[] = {"LT", "GT", "EQ", "LE", "GE", "NE"};
    const int i = static_cast<int>(m);
    return i >= 0 && i < 6 ? kNames[i] : "?";
}

// The count forms of Compare / CompareScalar (CANN 8.1 dav_c220 kernel_operator_vec_cmp_impl.h CompareCompute /
// CompareScalarCompute, dav_m200 kernel_operator_vec_cmpsel_impl.h the same): the instruction runs
// count * sizeof(T) / 256 whole repeats (rounded down) and nothing else, so the elements after the last whole
// 256-byte repeat are not compared and their mask bits keep whatever UB held (40 floats: nothing is compared). No
// kernel means that: a count that is not a whole number of repeats is refused. The element types are the headers'
// lists (inner_kernel_operator_vec_cmpsel_intf.cppm; CPU-debug asserts there, so the device runs whatever it is
// given): src half / float, and int32 on ascend910b (ascend910_95 held to it) with CMPMODE::EQ only
// (VcmpvIntrinsicsImpl / VcmpvsIntrinsicsImpl for int32_t); the mask int8 / uint8 for Compare, uint8 for
// CompareScalar.
template <typename T, typename U>
void CheckCompareForm(aqo_emu::CoreContext& c, uint32_t count, CMPMODE mode, bool scalar, const char* file, int line,
                      const char* api)
{
    const bool is_int32 = std::is_same<T, int32_t>::value;
    const bool t_ok = std::is_same<T, half>::value || std::is_same<T, float>::value ||
                      (is_int32 && c.soc.id != aqo_emu::SocId::kAscend310P);
    const bool u_ok = std::is_same<U, uint8_t>::value || (!scalar && std::is_same<U, int8_t>::value);
    if (!t_ok || !u_ok) {
        aqo_emu::Fail(file, line,
                      std::string(api) + ": " + aqo_emu::ElemTypeName(aqo_emu::ElemTraits<T>::kId) + " operands with a " +
                          aqo_emu::ElemTypeName(aqo_emu::ElemTraits<U>::kId) + " mask are not supported on " +
                          c.soc.name + " (the CANN 8.1 headers' list: operands half / float" +
                          (c.soc.id != aqo_emu::SocId::kAscend310P ? " / int32" : "") + ", mask " +
                          (scalar ? "uint8" : "int8 / uint8") + ")");
    }
    if (is_int32 && mode != CMPMODE::EQ) {
        aqo_emu::Fail(file, line, std::string(api) + ": int32 operands with CMPMODE::" + CmpModeName(mode) +
                                      ": the int32 comparison instruction compares for equality only (CMPMODE::EQ)");
    }
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    if (bytes % 256 != 0 || count == 0) {
        aqo_emu::Fail(file, line,
                      std::string(api) + " of " + std::to_string(count) + " elements (" + std::to_string(bytes) +
                          " bytes): the count form compares whole 256-byte repeats only (" +
                          std::to_string(bytes / 256) + " here); the elements after them would not be compared and "
                          "their mask bits would keep what UB held. Compare a count of whole repeats (" +
                          std::to_string(256 / sizeof(T)) + " elements each), padding the operands");
    }
}

template <typename T, typename U, typename F>
void CompareInto(const LocalTensor<U>& dst, const LocalTensor<T>& src0, uint32_t count, F rhs, CMPMODE mode,
                 const LocalTensor<T>* src1, const char* file, int line, const char* api)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(file, line);
    CheckCompareForm<T, U>(c, count, mode, src1 == nullptr, file, line, api);
    aqo_emu::CheckVecOperand(c, src0, count, file, line, api, "src0");
    if (src1 != nullptr) aqo_emu::CheckVecOperand(c, *src1, count, file, line, api, "src1");
    const uint64_t mask_bytes = (static_cast<uint64_t>(count) + 7) / 8;
    aqo_emu::CheckRecord(c, dst.record_, file, line, api, "dst");
    aqo_emu::CheckUbAligned(c, dst.byte_, file, line, api, "dst");
    aqo_emu::CheckUbRange(c, dst.record_, dst.byte_, mask_bytes, file, line, api, "dst");
    aqo_emu::VecIssue(c, aqo_emu::InstrClass::kVecElementwise, sizeof(T), count, file, line, api);
    aqo_emu::UbRead(c, src0.byte_, uint64_t{count} * sizeof(T), "src0");
    if (src1 != nullptr) aqo_emu::UbRead(c, src1->byte_, uint64_t{count} * sizeof(T), "src1");
    aqo_emu::UbWrite(c, dst.byte_, mask_bytes, "dst");
    for (uint64_t byte = 0; byte < mask_bytes; ++byte) {
        uint8_t bits = 0;
        bool defined = true;
        for (uint64_t k = 0; k < 8 && byte * 8 + k < count; ++k) {
            const uint64_t i = byte * 8 + k;
            const uint64_t s0 = src0.byte_ + i * sizeof(T);
            const uint64_t s1 = src1 ? src1->byte_ + i * sizeof(T) : 0;
            if (!aqo_emu::UbDefined(c, s0, sizeof(T)) || (src1 && !aqo_emu::UbDefined(c, s1, sizeof(T)))) {
                defined = false;
                continue;
            }
            const double a = aqo_emu::ReadOperand(c, aqo_emu::LoadUb<T>(c, s0));
            if (CompareValues(a, rhs(i), mode)) bits = static_cast<uint8_t>(bits | (1u << k));
        }
        c.ub[dst.byte_ + byte] = bits;
        c.ub_defined[dst.byte_ + byte] = defined ? 1 : 0;
    }
    c.stats->vector_ops++;
}

template <typename T, typename U, typename F>
void SelectInto(const LocalTensor<T>& dst, const LocalTensor<U>& mask, const LocalTensor<T>& src0, uint32_t count,
                F other, const LocalTensor<T>* src1, const char* file, int line, const char* api)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(file, line);
    aqo_emu::CheckVecOperand(c, dst, count, file, line, api, "dst");
    aqo_emu::CheckVecOperand(c, src0, count, file, line, api, "src0");
    if (src1 != nullptr) aqo_emu::CheckVecOperand(c, *src1, count, file, line, api, "src1");
    const uint64_t mask_bytes = (static_cast<uint64_t>(count) + 7) / 8;
    aqo_emu::CheckRecord(c, mask.record_, file, line, api, "selMask");
    aqo_emu::CheckUbAligned(c, mask.byte_, file, line, api, "selMask");  // a UB operand: 32-byte aligned
    aqo_emu::CheckUbRange(c, mask.record_, mask.byte_, mask_bytes, file, line, api, "selMask");
    aqo_emu::VecIssue(c, aqo_emu::InstrClass::kVecElementwise, sizeof(T), count, file, line, api);
    aqo_emu::UbRead(c, mask.byte_, mask_bytes, "selMask");
    aqo_emu::UbRead(c, src0.byte_, uint64_t{count} * sizeof(T), "src0");
    if (src1 != nullptr) aqo_emu::UbRead(c, src1->byte_, uint64_t{count} * sizeof(T), "src1");
    aqo_emu::UbWrite(c, dst.byte_, uint64_t{count} * sizeof(T), "dst");
    // The count forms first duplicate the scalar (tensor-scalar mode) or the mask's address (tensor-tensor mode, as
    // uint32) into 32 elements of the API's scratch at TMP_UB_OFFSET and load the compare mask from there.
    aqo_emu::ApiScratchWrite(c, 32 * (src1 != nullptr ? sizeof(uint32_t) : sizeof(T)), file, line, api);
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t mb = mask.byte_ + i / 8;
        const uint64_t d = dst.byte_ + i * sizeof(T);
        if (!c.ub_defined[mb]) {
            aqo_emu::SetUbDefined(c, d, sizeof(T), false);
            continue;
        }
        const bool pick0 = (c.ub[mb] >> (i % 8)) & 1u;
        if (pick0) {
            const uint64_t s = src0.byte_ + i * sizeof(T);
            if (aqo_emu::UbDefined(c, s, sizeof(T))) aqo_emu::StoreUb<T>(c, d, aqo_emu::LoadUb<T>(c, s));
            else aqo_emu::SetUbDefined(c, d, sizeof(T), false);
        } else {
            bool ok = true;
            const T v = other(i, &ok);
            if (ok) aqo_emu::StoreUb<T>(c, d, v);
            else aqo_emu::SetUbDefined(c, d, sizeof(T), false);
        }
    }
    c.stats->vector_ops++;
}
}  // namespace emu_detail

template <typename T, typename U>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode,
             uint32_t count, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    emu_detail::CompareInto(
        dst, src0, count,
        [&](uint64_t i) { return aqo_emu::ReadOperand(c, aqo_emu::LoadUb<T>(c, src1.byte_ + i * sizeof(T))); },
        mode, &src1, aqo_file, aqo_line, "Compare");
}

// The scalar is a T (the 8.1 headers: const T src1Scalar, T deduced from src0 and the scalar).
template <typename T, typename U>
void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T scalar, CMPMODE mode,
                   uint32_t count, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    const double b = aqo_emu::ReadOperand(c, scalar);
    emu_detail::CompareInto(dst, src0, count, [&](uint64_t) { return b; }, mode,
                            static_cast<const LocalTensor<T>*>(nullptr), aqo_file, aqo_line, "CompareScalar");
}

// Select(dst, mask, src0, src1, VSEL_TENSOR_TENSOR_MODE, count): dst[i] = bit i ? src0[i] : src1[i].
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE mode, uint32_t count, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    if (mode != SELMODE::VSEL_TENSOR_TENSOR_MODE) {
        aqo_emu::Fail(aqo_file, aqo_line, "Select with two tensors needs SELMODE::VSEL_TENSOR_TENSOR_MODE");
    }
    emu_detail::SelectInto(
        dst, selMask, src0, count,
        [&](uint64_t i, bool* ok) {
            const uint64_t s = src1.byte_ + i * sizeof(T);
            *ok = aqo_emu::UbDefined(c, s, sizeof(T));
            return aqo_emu::LoadUb<T>(c, s);
        },
        &src1, aqo_file, aqo_line, "Select");
}

// Select(dst, mask, src0, scalar, VSEL_TENSOR_SCALAR_MODE, count): dst[i] = bit i ? src0[i] : scalar. The scalar
// is a T (the 8.1 headers: T src1Local, T deduced from dst, src0 and the scalar).
template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T scalar,
            SELMODE mode, uint32_t count, AQO_EMU_SRC)
{
    if (mode != SELMODE::VSEL_TENSOR_SCALAR_MODE) {
        aqo_emu::Fail(aqo_file, aqo_line, "Select with a scalar needs SELMODE::VSEL_TENSOR_SCALAR_MODE");
    }
    const T v = scalar;
    emu_detail::SelectInto(
        dst, selMask, src0, count,
        [&](uint64_t, bool* ok) {
            *ok = true;
            return v;
        },
        static_cast<const LocalTensor<T>*>(nullptr), aqo_file, aqo_line, "Select");
}

}  // namespace AscendC
