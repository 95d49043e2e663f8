// Exact rounding into the narrow float formats (float16, bfloat16, float8 e4m3fn / e5m2, HiFloat8).
//
// Every format is handled the same way: a sorted table of its non-negative finite values with their codes. A
// value is rounded by finding its two neighbours in the table and choosing one by the rounding direction. This
// is slower than bit tricks but has one code path for all formats, including HiFloat8 whose mantissa width
// depends on the exponent, and so is easy to check against independent references (ml_dtypes, en_dtypes).
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

#include "emulator/emu_types.h"

namespace aqo_emu {
namespace {

struct FormatSpec {
    const char* name;
    int bits;            // 8 or 16
    uint16_t nan_code;   // canonical NaN produced by operations
    bool has_inf;
    uint16_t inf_code;   // +Inf (when has_inf)
    // The value the code after the largest finite one would have if the format continued its last binade;
    // rounding to nearest overflows when |x| reaches the midpoint between max and this value.
    double overflow_next;
};

// Decodes a sign-less code (sign bit clear) of an IEEE-style format. Returns false for NaN; Inf as +inf.
double DecodeIeee(uint32_t code, int exp_bits, int man_bits, bool ieee_specials, bool e4m3fn)
{
    const uint32_t man = code & ((1u << man_bits) - 1);
    const uint32_t exp = (code >> man_bits) & ((1u << exp_bits) - 1);
    const int bias = (1 << (exp_bits - 1)) - 1;
    const uint32_t exp_all = (1u << exp_bits) - 1;
    if (e4m3fn && exp == exp_all && man == ((1u << man_bits) - 1)) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (ieee_specials && exp == exp_all) {
        return man == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
    }
    if (exp == 0) {
        return std::ldexp(static_cast<double>(man), 1 - bias - man_bits);
    }
    return std::ldexp(static_cast<double>(man + (1u << man_bits)), static_cast<int>(exp) - bias - man_bits);
}

// HiFloat8 (arXiv 2409.16626): sign | dot prefix | exponent (sign-magnitude, implicit leading 1) | mantissa.
// Dot 0000: denormal 2^(M-23) for M = 1..7 (M = 0: zero, or NaN with the sign bit). Dot 0001: exponent 0, 3
// mantissa bits. Dot 001: |exp| = 1 (1 exponent bit = its sign), 3 mantissa bits. Dot 01: |exp| 2..3, 3 bits.
// Dot 10: |exp| 4..7, 2 mantissa bits. Dot 11: |exp| 8..15, 1 mantissa bit. 0x6F = +Inf.
double DecodeHiFloat8(uint32_t code7)
{
    if (code7 == 0x6F) {
        return std::numeric_limits<double>::infinity();
    }
    int exp_mag_bits = 0;  // bits of the exponent magnitude below its implicit leading 1
    int man_bits = 0;
    uint32_t rest = 0;
    int exp_base = 0;
    if ((code7 >> 3) == 0) {  // 0000 MMM
        const uint32_t m = code7 & 7u;
        return m == 0 ? 0.0 : std::ldexp(1.0, static_cast<int>(m) - 23);
    } else if ((code7 >> 3) == 1) {  // 0001 MMM
        return 1.0 + static_cast<double>(code7 & 7u) / 8.0;
    } else if ((code7 >> 4) == 1) {  // 001 S MMM
        exp_base = 1;
        exp_mag_bits = 0;
        man_bits = 3;
        rest = code7 & 0xFu;
    } else if ((code7 >> 5) == 1) {  // 01 S E MMM
        exp_base = 2;
        exp_mag_bits = 1;
        man_bits = 3;
        rest = code7 & 0x1Fu;
    } else if ((code7 >> 5) == 2) {  // 10 S EE MM
        exp_base = 4;
        exp_mag_bits = 2;
        man_bits = 2;
        rest = code7 & 0x1Fu;
    } else {  // 11 S EEE M
        exp_base = 8;
        exp_mag_bits = 3;
        man_bits = 1;
        rest = code7 & 0x1Fu;
    }
    const uint32_t man = rest & ((1u << man_bits) - 1);
    const uint32_t mag = (rest >> man_bits) & ((1u << exp_mag_bits) - 1);
    const bool neg_exp = ((rest >> (man_bits + exp_mag_bits)) & 1u) != 0;
    const int e = exp_base + static_cast<int>(mag);
    return std::ldexp(1.0 + static_cast<double>(man) / static_cast<double>(1u << man_bits), neg_exp ? -e : e);
}

const FormatSpec kSpecs[] = {
    {"float16", 16, 0x7E00, true, 0x7C00, 65536.0},
    {"bfloat16", 16, 0x7FC0, true, 0x7F80, 0x1p128},
    {"float8_e4m3fn", 8, 0x7F, false, 0, 480.0},
    {"float8_e5m2", 8, 0x7E, true, 0x7C, 65536.0},
    {"hifloat8", 8, 0x80, true, 0x6F, 49152.0},
};

double DecodeUnsigned(FloatFormat f, uint32_t code)
{
    switch (f) {
        case FloatFormat::kFloat16: return DecodeIeee(code, 5, 10, true, false);
        case FloatFormat::kBFloat16: return DecodeIeee(code, 8, 7, true, false);
        case FloatFormat::kFloat8E4M3FN: return DecodeIeee(code, 4, 3, false, true);
        case FloatFormat::kFloat8E5M2: return DecodeIeee(code, 5, 2, true, false);
        case FloatFormat::kHiFloat8: return DecodeHiFloat8(code);
        default: return std::numeric_limits<double>::quiet_NaN();
    }
}

struct Table {
    std::vector<std::pair<double, uint16_t>> finite;  // non-negative finite values, ascending, with codes
    std::vector<double> values;                       // finite[i].first, contiguous for the search
};

const Table& GetTable(FloatFormat f)
{
    static Table tables[static_cast<int>(FloatFormat::kCount)];
    static std::once_flag once[static_cast<int>(FloatFormat::kCount)];
    const int i = static_cast<int>(f);
    std::call_once(once[i], [f, i]() {
        const FormatSpec& s = kSpecs[i];
        const uint32_t half_range = 1u << (s.bits - 1);
        for (uint32_t c = 0; c < half_range; ++c) {
            const double v = DecodeUnsigned(f, c);
            if (std::isfinite(v)) {
                tables[i].finite.emplace_back(v, static_cast<uint16_t>(c));
            }
        }
        std::sort(tables[i].finite.begin(), tables[i].finite.end());
        for (const auto& e : tables[i].finite) tables[i].values.push_back(e.first);
    });
    return tables[i];
}

// Chooses between the neighbours lo < a < hi (magnitudes) of a positive value a: true = hi. `negative` is the
// sign of the original value, which decides the magnitude direction of kUp / kDown.
bool PickUpper(double a, double lo, uint16_t /*lo_code*/, double hi, uint16_t hi_code, Rounding r, bool negative)
{
    switch (r) {
        case Rounding::kNearestEven:
        case Rounding::kNearestAway: {
            const double d_lo = a - lo;
            const double d_hi = hi - a;
            if (d_lo < d_hi) return false;
            if (d_hi < d_lo) return true;
            if (r == Rounding::kNearestAway) return true;
            return (hi_code & 1u) == 0;
        }
        case Rounding::kTowardZero: return false;
        case Rounding::kDown: return negative;   // floor: larger magnitude only for negative values
        case Rounding::kUp: return !negative;    // ceil: larger magnitude only for positive values
        case Rounding::kOdd: return (hi_code & 1u) != 0;  // consecutive codes: exactly one of them is odd
    }
    return false;
}

// Value of a full code (sign included), from the format's definition.
double DecodeSlow(FloatFormat format, uint16_t code)
{
    const FormatSpec& s = kSpecs[static_cast<int>(format)];
    const uint32_t sign_bit = 1u << (s.bits - 1);
    if (format == FloatFormat::kHiFloat8 && code == 0x80) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    const double mag = DecodeUnsigned(format, code & (sign_bit - 1));
    return (code & sign_bit) ? -mag : mag;
}

// Every code's value, computed once per format: decoding is on the hot path of every half / bfloat16 operand.
const std::vector<double>& DecodeTable(FloatFormat format)
{
    static std::vector<double> tables[static_cast<int>(FloatFormat::kCount)];
    static std::once_flag once[static_cast<int>(FloatFormat::kCount)];
    const int i = static_cast<int>(format);
    std::call_once(once[i], [format, i]() {
        const uint32_t n = 1u << kSpecs[i].bits;
        tables[i].resize(n);
        for (uint32_t c = 0; c < n; ++c) tables[i][c] = DecodeSlow(format, static_cast<uint16_t>(c));
    });
    return tables[i];
}

}  // namespace

const char* FloatFormatName(FloatFormat format) { return kSpecs[static_cast<int>(format)].name; }

double FloatFormatMax(FloatFormat format) { return GetTable(format).finite.back().first; }

double FloatFormatLeastNormal(FloatFormat format)
{
    switch (format) {
        case FloatFormat::kFloat16: return std::ldexp(1.0, -14);
        case FloatFormat::kBFloat16: return std::ldexp(1.0, -126);
        case FloatFormat::kFloat8E4M3FN: return std::ldexp(1.0, -6);
        case FloatFormat::kFloat8E5M2: return std::ldexp(1.0, -14);
        case FloatFormat::kHiFloat8: return std::ldexp(1.0, -15);
        default: return 0.0;
    }
}

double DecodeFloat(FloatFormat format, uint16_t code)
{
    const std::vector<double>& t = DecodeTable(format);
    return code < t.size() ? t[code] : std::numeric_limits<double>::quiet_NaN();
}

namespace {

// Direct rounding for the IEEE-style formats (float16, bfloat16, float8 e5m2 / e4m3fn) when the result is
// finite: scale |x| so that the format's quantum at x's exponent is 1, round that to an integer in the wanted
// direction, and assemble the code. Returns false (the table path then decides) for NaN, Inf, overflow, CAST_ODD
// and HiFloat8. The table path is the reference; tests compare both against numpy / ml_dtypes on every tie.
bool EncodeIeeeFast(FloatFormat format, double x, Rounding rounding, uint16_t* code)
{
    int man_bits, bias;
    uint32_t limit;  // first code that is not a finite value (Inf, or e4m3fn's NaN)
    switch (format) {
        case FloatFormat::kFloat16: man_bits = 10; bias = 15; limit = 0x7C00; break;
        case FloatFormat::kBFloat16: man_bits = 7; bias = 127; limit = 0x7F80; break;
        case FloatFormat::kFloat8E5M2: man_bits = 2; bias = 15; limit = 0x7C; break;
        case FloatFormat::kFloat8E4M3FN: man_bits = 3; bias = 7; limit = 0x7F; break;
        default: return false;
    }
    if (rounding == Rounding::kOdd || !std::isfinite(x)) return false;
    const bool negative = std::signbit(x);
    const double a = std::fabs(x);
    int e2 = 0;
    std::frexp(a, &e2);          // a = f * 2^e2, f in [0.5, 1)
    const int exponent = e2 - 1;  // floor(log2(a)) for a > 0
    const int emin = 1 - bias;
    const bool subnormal = a == 0.0 || exponent < emin;
    const double m = std::ldexp(a, man_bits - (subnormal ? emin : exponent));  // exact: a power-of-two scaling
    double r;
    switch (rounding) {
        case Rounding::kNearestEven: r = std::nearbyint(m); break;  // host default mode: to nearest even
        case Rounding::kNearestAway: r = std::round(m); break;
        case Rounding::kTowardZero: r = std::trunc(m); break;
        case Rounding::kDown: r = negative ? std::ceil(m) : std::floor(m); break;
        case Rounding::kUp: r = negative ? std::floor(m) : std::ceil(m); break;
        default: return false;
    }
    const uint32_t ri = static_cast<uint32_t>(r);
    // Subnormal: the code is the integer itself (1 << man_bits is the smallest normal, as it should be). Normal:
    // exponent field plus mantissa; a carry (ri == 2 << man_bits) moves into the exponent by itself.
    const uint32_t magnitude =
        subnormal ? ri : (static_cast<uint32_t>(exponent + bias) << man_bits) + (ri - (1u << man_bits));
    if (magnitude >= limit) return false;
    const uint32_t sign_bit = format == FloatFormat::kFloat16 || format == FloatFormat::kBFloat16 ? 0x8000u : 0x80u;
    *code = static_cast<uint16_t>((negative ? sign_bit : 0u) | magnitude);
    return true;
}

}  // namespace

uint16_t EncodeFloat(FloatFormat format, double x, Rounding rounding, OverflowPolicy policy)
{
    uint16_t fast = 0;
    if (EncodeIeeeFast(format, x, rounding, &fast)) {
        return fast;
    }
    const FormatSpec& s = kSpecs[static_cast<int>(format)];
    const uint16_t sign_bit = static_cast<uint16_t>(1u << (s.bits - 1));
    const Table& t = GetTable(format);
    const uint16_t max_code = t.finite.back().second;
    const double max_val = t.finite.back().first;
    if (std::isnan(x)) {
        return policy.nan_to_zero ? 0 : s.nan_code;
    }
    const bool negative = std::signbit(x);
    const double a = std::fabs(x);
    const uint16_t sign = negative ? sign_bit : 0;
    // HiFloat8 has a single zero (0x80 is NaN): negative zero and negative underflow encode as +0.
    const uint16_t zero_sign = format == FloatFormat::kHiFloat8 ? 0 : sign;
    auto overflow_code = [&]() -> uint16_t {
        if (policy.saturate) return static_cast<uint16_t>(sign | max_code);
        if (s.has_inf) return static_cast<uint16_t>(sign | s.inf_code);
        return s.nan_code;  // e4m3fn: no Inf, overflow is NaN (as ml_dtypes)
    };
    if (std::isinf(a)) {
        return overflow_code();
    }
    if (a > max_val) {
        // Between max and the overflow value: rounding picks max or "the next value", which is Inf.
        const double next = s.overflow_next;
        // Directed modes ignore the distance; nearest modes overflow from the midpoint on (a >= next included).
        bool up = PickUpper(a, max_val, max_code, next, static_cast<uint16_t>(max_code + 1), rounding, negative);
        if (rounding == Rounding::kOdd) up = false;  // round-to-odd never creates Inf from a finite value
        return up ? overflow_code() : static_cast<uint16_t>(sign | max_code);
    }
    const size_t at = static_cast<size_t>(std::lower_bound(t.values.begin(), t.values.end(), a) - t.values.begin());
    if (t.values[at] == a) {
        return static_cast<uint16_t>((a == 0.0 ? zero_sign : sign) | t.finite[at].second);
    }
    const auto hi = t.finite[at];
    const auto lo = t.finite[at - 1];  // a > 0 = table[0], so at > 0
    const bool up = PickUpper(a, lo.first, lo.second, hi.first, hi.second, rounding, negative);
    const auto& pick = up ? hi : lo;
    return static_cast<uint16_t>((pick.first == 0.0 ? zero_sign : sign) | pick.second);
}

float RoundToFloat32(double x, Rounding rounding)
{
    if (std::isnan(x) || std::isinf(x)) {
        return static_cast<float>(x);
    }
    const float nearest = static_cast<float>(x);  // host rounding: to nearest even
    if (static_cast<double>(nearest) == x) {
        return nearest;
    }
    float lo, hi;
    if (static_cast<double>(nearest) < x) {
        lo = nearest;
        hi = std::nextafter(nearest, std::numeric_limits<float>::infinity());
    } else {
        hi = nearest;
        lo = std::nextafter(nearest, -std::numeric_limits<float>::infinity());
    }
    // Work on magnitudes so that the tie and direction rules read like the narrow formats'.
    const bool negative = x < 0;
    float small = negative ? hi : lo;  // smaller magnitude
    float large = negative ? lo : hi;  // larger magnitude (may be +-Inf)
    uint32_t small_bits, large_bits;
    std::memcpy(&small_bits, &small, 4);
    std::memcpy(&large_bits, &large, 4);
    switch (rounding) {
        case Rounding::kNearestEven: return nearest;
        case Rounding::kNearestAway: {
            const double a = std::fabs(x);
            const double s = std::fabs(static_cast<double>(small));
            // The value the larger neighbour would have without overflow: s + ulp(s).
            const double l = std::isinf(large) ? static_cast<double>(std::numeric_limits<float>::max()) +
                                                     (static_cast<double>(std::numeric_limits<float>::max()) -
                                                      static_cast<double>(std::nextafter(
                                                          std::numeric_limits<float>::max(), 0.0f)))
                                               : std::fabs(static_cast<double>(large));
            if (a - s == l - a) return large;
            return nearest;
        }
        case Rounding::kTowardZero: return small;
        case Rounding::kDown: return negative ? large : small;
        case Rounding::kUp: return negative ? small : large;
        case Rounding::kOdd: {
            if (std::isinf(large)) return small;
            return (large_bits & 1u) ? large : small;
        }
    }
    return nearest;
}

const char* ElemTypeName(ElemType t)
{
    static const char* const kNames[] = {"float32", "float16", "bfloat16", "int8", "uint8", "int16", "uint16",
                                         "int32", "uint32", "int64", "uint64", "float8_e4m3fn", "float8_e5m2",
                                         "hifloat8"};
    const int i = static_cast<int>(t);
    return (i >= 0 && i < static_cast<int>(ElemType::kCount)) ? kNames[i] : "unknown";
}

}  // namespace aqo_emu
