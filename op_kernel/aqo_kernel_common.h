// What the kernels of this package (op_kernel/aqo_*.cpp) share: the SoC traits, the 32-byte granule helpers, the
// exact-length GM write and the float8 output casts. Shipped next to the kernels (scripts/cann_project.py copies
// op_kernel/*.h with the sources).
//
// No include guard, on purpose: a kernel source includes it once, and the CPU emulator's runners
// (python/csrc/emulate_<op>.cpp) compile a kernel once per SoC, each time inside a namespace of its own and with
// that SoC's compiler macros, so every one of those copies needs its own traits and helpers. For the same reason
// the AQO_SOC_* macros must not outlive the kernel: every kernel #undefs them at its end.
#include "kernel_operator.h"

namespace aqo_kernel {

using namespace AscendC;

// ---------------------------------------------------------------------------------------------------------------
// SoC traits: the only place that looks at the compiler's SoC macros. The kernels branch on these names; the
// #if ones guard code that does not compile elsewhere (float8 types, DataCopyPad, the system workspace).
// ---------------------------------------------------------------------------------------------------------------
#if defined(__DAV_M200__) || (defined(__CCE_AICORE__) && (__CCE_AICORE__ == 200))
// ascend310p: coupled AI cores (cube + vector in one core; Cast only there: docs/references.md#soc-facts), no
// DataCopyPad (every copy a 32-byte multiple), no bfloat16, saturation mode (docs/references.md#saturation-mode), no
// fixpipe (the Matmul API moves L0C through UB) and no system workspace for the Matmul API.
#define AQO_SOC_HAS_DATACOPYPAD 0
#define AQO_SOC_HAS_BF16 0
#define AQO_SOC_HAS_FP8 0
#define AQO_SOC_SPLIT_CORES 0
constexpr bool kSocSaturationMode = true;
// int32 -> float32 Cast: 310p's vconv accepts CAST_NONE only, a conversion without a rounding mode whose rounding of
// values beyond 2^24 is not documented (the emulator runs both plausible roundings as variants).
constexpr RoundMode kRoundInt32ToFloat = RoundMode::CAST_NONE;
#elif (defined(__NPU_ARCH__) && (__NPU_ARCH__ == 3510)) || defined(__DAV_C310__)
// ascend910_95: split cube / vector cores like 910b, DataCopyPad, bfloat16, and the hifloat8 / float8 types. Not
// type-checkable with the public 8.1.RC1 headers: its own code is Float8Out below and the kernels' float8
// dispatch, all under AQO_SOC_HAS_FP8.
#define AQO_SOC_HAS_DATACOPYPAD 1
#define AQO_SOC_HAS_BF16 1
#define AQO_SOC_HAS_FP8 1
#define AQO_SOC_SPLIT_CORES 1
constexpr bool kSocSaturationMode = false;
constexpr RoundMode kRoundInt32ToFloat = RoundMode::CAST_RINT;  // round half to even, stated by the mode
#else
// ascend910b: split architecture (1 cube : 2 vector cores), DataCopyPad for unaligned tails, bfloat16.
#define AQO_SOC_HAS_DATACOPYPAD 1
#define AQO_SOC_HAS_BF16 1
#define AQO_SOC_HAS_FP8 0
#define AQO_SOC_SPLIT_CORES 1
constexpr bool kSocSaturationMode = false;
constexpr RoundMode kRoundInt32ToFloat = RoundMode::CAST_RINT;  // round half to even, stated by the mode
#endif

// The same trait for plain C++ branches (if constexpr) where both sides compile on every SoC.
constexpr bool kSocHasDataCopyPad = AQO_SOC_HAS_DATACOPYPAD != 0;

constexpr uint32_t kBlockBytes = 32;  // DataCopy / vector operand granule

__aicore__ inline uint32_t AlignUp32(uint32_t v) { return (v + kBlockBytes - 1) / kBlockBytes * kBlockBytes; }

// The bytes of a value as another type of the same size.
template <class To, class From>
__aicore__ inline To BitCast(From v)
{
    static_assert(sizeof(To) == sizeof(From), "BitCast: types of one size");
    union {
        From from;
        To to;
    } u;
    u.from = v;
    return u.to;
}

__aicore__ inline float BitsToFloat(uint32_t bits) { return BitCast<float>(bits); }

__aicore__ inline uint32_t FloatToBits(float f) { return BitCast<uint32_t>(f); }

// A finite nonzero float32's significand as an integer in [2^23, 2^24) and its biased exponent (a subnormal's is 1,
// lowered by the shifts that normalize it).
__aicore__ inline void NormalizeF32Significand(uint64_t& m, int32_t& e)
{
    if (e != 0) {
        m |= 0x800000u;
        return;
    }
    e = 1;
    while (m < 0x800000u) {
        m <<= 1;
        --e;
    }
}

// The float32 of sign and v x 2^-shift, rounded to nearest, ties to even (`inexact`: v had nonzero bits below its
// own last one), for 1 <= shift <= 63: its exponent field e >= 1 (v >> shift then holds the hidden bit: a carry into
// bit 24 moves the exponent by itself; Inf past the largest) or a subnormal (e < 1: a carry makes the smallest normal).
__aicore__ inline float RoundPackF32(uint32_t sign, uint64_t v, uint32_t shift, int32_t e, bool inexact)
{
    uint64_t mant = v >> shift;
    const bool half = ((v >> (shift - 1)) & 1u) != 0;
    const bool below = (v & ((static_cast<uint64_t>(1) << (shift - 1)) - 1)) != 0 || inexact;
    if (half && (below || (mant & 1u) != 0)) {
        ++mant;
    }
    if (e >= 1) {
        const uint64_t bits = (static_cast<uint64_t>(e - 1) << 23) + mant;
        return BitsToFloat(sign | (bits >= 0x7F800000u ? 0x7F800000u : static_cast<uint32_t>(bits)));
    }
    return BitsToFloat(sign | static_cast<uint32_t>(mant));
}

// Decisions and scalings on float32 values that may be subnormal, by integer arithmetic on their bits: no document
// says whether the scalar unit keeps subnormal operands in its comparisons and multiplies, and one that flushed them
// would call a subnormal 0 (a tiny bfloat16 row's maximum or scale). These give the same answer either way, within
// the domains each states (F32TimesPow2: a normal product).
// Whether v is +0 or -0.
__aicore__ inline bool F32IsZero(float v) { return (FloatToBits(v) & 0x7FFFFFFFu) == 0; }

// Whether 0 < v < limit, for a positive finite limit (NaN and negative v: false).
__aicore__ inline bool F32PositiveBelow(float v, float limit)
{
    const uint32_t u = FloatToBits(v);
    return u != 0 && u < FloatToBits(limit);  // non-negative floats order as their bits; a negative v's sign bit is set
}

// Whether v is a subnormal float32 (nonzero, exponent field 0).
__aicore__ inline bool F32IsSubnormal(float v)
{
    const uint32_t u = FloatToBits(v) & 0x7FFFFFFFu;
    return u != 0 && u < 0x800000u;
}

// Whether v is NaN; the order of two non-NaN floats (-0 == +0), by their bits (a NaN operand: no meaning).
__aicore__ inline bool F32IsNaN(float v) { return (FloatToBits(v) & 0x7FFFFFFFu) > 0x7F800000u; }
__aicore__ inline int64_t F32OrderKey(float v)
{
    const uint32_t u = FloatToBits(v);
    const int64_t mag = static_cast<int64_t>(u & 0x7FFFFFFFu);
    return (u & 0x80000000u) != 0 ? -mag : mag;
}
__aicore__ inline bool F32Less(float a, float b) { return F32OrderKey(a) < F32OrderKey(b); }

// a - b in float32, correctly rounded (to nearest, ties to even, with gradual underflow), by integer arithmetic, for
// finite a and b; others (Inf, NaN) get the scalar unit's subtraction, whose result (Inf or NaN) a subnormal other
// operand cannot change.
__aicore__ inline float F32Sub(float a, float b)
{
    const uint32_t ua = FloatToBits(a);
    const uint32_t ub = FloatToBits(b) ^ 0x80000000u;  // a + (-b)
    if ((ua & 0x7F800000u) == 0x7F800000u || (ub & 0x7F800000u) == 0x7F800000u) {
        return a - b;
    }
    if ((ub & 0x7FFFFFFFu) == 0) {
        return (ua & 0x7FFFFFFFu) == 0 ? BitsToFloat(ua & ub) : a;  // -0 - +0 = -0; otherwise a (+0 - +0 = +0)
    }
    if ((ua & 0x7FFFFFFFu) == 0) {
        return BitsToFloat(ub);
    }
    // |x| >= |y| of the two addends x = a, y = -b
    const bool swap = (ub & 0x7FFFFFFFu) > (ua & 0x7FFFFFFFu);
    const uint32_t ux = swap ? ub : ua, uy = swap ? ua : ub;
    int32_t ex = static_cast<int32_t>((ux >> 23) & 0xFFu), ey = static_cast<int32_t>((uy >> 23) & 0xFFu);
    uint64_t mx = ux & 0x7FFFFFu, my = uy & 0x7FFFFFu;
    NormalizeF32Significand(mx, ex);
    NormalizeF32Significand(my, ey);
    // significands at bit 55 (32 guard bits), y shifted to x's exponent, its lost bits as a sticky last bit
    const uint64_t x = mx << 32;
    const int32_t d = ex - ey;
    uint64_t y = 0;
    if (d < 56) {
        const uint64_t full = my << 32;
        y = full >> d;
        if ((y << d) != full) {
            y |= 1u;
        }
    } else {
        y = 1u;
    }
    const bool same = ((ux ^ uy) & 0x80000000u) == 0;
    const uint64_t sum = same ? x + y : x - y;
    if (sum == 0) {
        return BitsToFloat(0u);  // x - x = +0
    }
    int32_t top = 56;  // sum < 2^57
    while (((sum >> top) & 1u) == 0) {
        --top;
    }
    // value = sum x 2^(ex - 127 - 55): 24 bits kept for a normal result, down to the last place 2^-149 for a
    // subnormal one (sum >= 2^31, so 8 <= shift <= 55)
    const int32_t e = ex + top - 55;
    const int32_t shift = e >= 1 ? top - 23 : 33 - ex;
    return RoundPackF32(ux & 0x80000000u, sum, static_cast<uint32_t>(shift), e, false);
}

// v x 2^k for 0 <= k <= 254: exact by integer arithmetic where v is finite and nonzero (a subnormal v too) and the
// product a normal float32; otherwise (zero, Inf, NaN, a product out of that range) the scalar unit's two multiplies.
__aicore__ inline float F32TimesPow2(float v, int32_t k)
{
    const uint32_t u = FloatToBits(v);
    int32_t e = static_cast<int32_t>((u >> 23) & 0xFFu);
    uint64_t m = u & 0x7FFFFFu;
    if ((u & 0x7FFFFFFFu) != 0 && e != 0xFF) {
        NormalizeF32Significand(m, e);
        if (e + k >= 1 && e + k <= 254) {
            return BitsToFloat((u & 0x80000000u) | (static_cast<uint32_t>(e + k) << 23) |
                               static_cast<uint32_t>(m & 0x7FFFFFu));
        }
    }
    const int32_t k1 = k > 127 ? 127 : k;
    const float p1 = BitsToFloat(static_cast<uint32_t>(127 + k1) << 23);
    return v * p1 * BitsToFloat(static_cast<uint32_t>(127 + k - k1) << 23);
}

// a / b in float32, correctly rounded (to nearest, ties to even, with gradual underflow), by integer arithmetic: the
// scalar unit's float division is used by the bit-exact paths (the requantization multiplier, DynamicQuant's scalar
// rows) and no document states its rounding or whether it keeps subnormals. Zero and Inf operands are answered
// exactly here; only a NaN result (a NaN operand, 0 / 0, Inf / Inf) comes from the native division
// (AQO_NATIVE_FLOAT_DIVIDE: the host test replaces it with one that flushes subnormals), so NaN payloads are the
// platform's.
#ifndef AQO_NATIVE_FLOAT_DIVIDE
#define AQO_NATIVE_FLOAT_DIVIDE(a, b) ((a) / (b))
#endif
__aicore__ inline float DivideF32(float a, float b)
{
    const uint32_t ua = FloatToBits(a);
    const uint32_t ub = FloatToBits(b);
    const uint32_t sign = (ua ^ ub) & 0x80000000u;
    const uint32_t aa = ua & 0x7FFFFFFFu;  // magnitudes
    const uint32_t ab = ub & 0x7FFFFFFFu;
    const uint32_t inf = 0x7F800000u;
    if (aa > inf || ab > inf || (aa == 0 && ab == 0) || (aa == inf && ab == inf)) {
        return AQO_NATIVE_FLOAT_DIVIDE(a, b);  // NaN
    }
    if (aa == inf || ab == 0) {
        return BitsToFloat(sign | inf);  // Inf / finite, finite nonzero / 0
    }
    if (aa == 0 || ab == inf) {
        return BitsToFloat(sign);  // 0 / nonzero, finite / Inf
    }
    int32_t ea = static_cast<int32_t>(aa >> 23);
    int32_t eb = static_cast<int32_t>(ab >> 23);
    uint64_t ma = aa & 0x7FFFFFu;
    uint64_t mb = ab & 0x7FFFFFu;
    NormalizeF32Significand(ma, ea);
    NormalizeF32Significand(mb, eb);
    // The quotient is (q + rest) / 2^25 x 2^(e - 127) with q in [2^25, 2^26): 26 bits, 2 below the 24 kept.
    int32_t e = ea - eb + 127;
    if (ma < mb) {
        ma <<= 1;
        --e;
    }
    const uint64_t num = ma << 25;
    const uint64_t q = num / mb;
    const bool inexact = num % mb != 0;
    // Units of the result's last place: 2^-2 of q for a normal result (e >= 1), 2^(e - 3) below (subnormal).
    uint32_t shift = e >= 1 ? 2u : static_cast<uint32_t>(3 - e);
    shift = shift > 40u ? 40u : shift;
    return RoundPackF32(sign, q, shift, e, inexact);
}

// The IEEE mode for half / bfloat16 results (CTRL[48] = 1 on the split SoCs: Inf and NaN kept, overflow to Inf), set
// at the kernel's start before any vector instruction. The SetCtrlSpr page gives 0 (saturation: Inf and overflow ->
// +-max, NaN -> 0) as the register's default, the CANN runtime documents IEEE as 910b's default mode, and no page
// says which a launch starts with; the kernels' results are the golden's IEEE ones, so they set it. Each core has its
// own register: the call is unconditional, so a mix kernel's cube cores, which run the kernel function up to
// REGIST_MATMUL_OBJ, set theirs too (the Mmad page ties the 950 cube's float results to the bit). ascend310p has
// saturation mode only.
__aicore__ inline void UseIeeeHalfMode()
{
#if AQO_SOC_SPLIT_CORES
    set_ctrl(sbitset1(get_ctrl(), 48));
#endif
}

// Waits until pipe E's producer side is done (SetFlag + WaitFlag on an event id of the kernel's pipe): e.g. S_MTE3
// before a DMA reads UB the scalar unit wrote.
template <HardEvent E>
__aicore__ inline void WaitPipe(TPipe* pipe)
{
    event_t id = static_cast<event_t>(pipe->FetchEventID(E));
    SetFlag<E>(id);
    WaitFlag<E>(id);
}

// Writes src[0, n) to dst[0, n) without touching dst[n, ...) (another core's, or past the tensor's end). Without
// DataCopyPad (ascend310p) the DMA cannot copy less than 32 bytes and must not write past the end (ATB / OPSNN do,
// docs/references.md#dynamicquant-implementations): whole 32-byte blocks go by DMA, the partial block's elements the
// scalar unit stores and flushes from its data cache. The docs do not say whether the flush writes back only the
// stored bytes or the whole 64-byte line, so no other core should write that line in the same launch: AqoDynamicQuant
// uses this only for a tensor of fewer than 8 rows and AqoQLinearMatMul only in its one-core plans
// (N < 32 or 840 | N / 32), always on one core. dst by value: a GlobalTensor is an address and a size, and its
// SetValue is not const.
template <class T>
__aicore__ inline void CopyOutExact(GlobalTensor<T> dst, const LocalTensor<T>& src, uint32_t n)
{
#if AQO_SOC_HAS_DATACOPYPAD
    DataCopyExtParams prm(1, n * static_cast<uint32_t>(sizeof(T)), 0, 0, 0);
    DataCopyPad(dst, src, prm);
#else
    const uint32_t perBlock = kBlockBytes / sizeof(T);
    const uint32_t body = n / perBlock * perBlock;
    if (body != 0) {
        DataCopy(dst, src, body);
    }
    if (body == n) {
        return;
    }
    PipeBarrier<PIPE_ALL>();  // the DMA'd elements are in GM and the vector results in UB before the scalar stores
    for (uint32_t i = body; i < n; ++i) {
        dst.SetValue(i, src.GetValue(i));
    }
    DataCacheCleanAndInvalid<T, CacheLine::ENTIRE_DATA_CACHE>(dst);
    // Whether the clean's write-back of the 64-byte line is complete when the call returns is not documented: a
    // later DMA into another part of the line must not overtake it.
    PipeBarrier<PIPE_ALL>();
#endif
}

// ---------------------------------------------------------------------------------------------------------------
// ascend910_95 only: hifloat8 / float8 outputs. What the conversion makes of NaN, Inf and an overflow depends on the
// 950's saturation control bits (docs/references.md#float8-conversion-control), so the kernels clip a value that
// rounding could carry past the format's range before they cast and write the NaN code over a NaN's byte; float8
// rounds to nearest even (RINT), hifloat8 ties away from zero (ROUND), as OPSNN's 950 kernels do
// (docs/references.md#dynamicquant-implementations). kIsFloat is false for every other output type.
// ---------------------------------------------------------------------------------------------------------------
template <typename YT>
struct Float8Out {
    static constexpr bool kIsFloat = false;
    static constexpr bool kSignedZero = false;  // the format has a -0 code distinct from +0's
    __aicore__ static inline void Cast(const LocalTensor<YT>&, const LocalTensor<float>&, uint32_t) {}
};
#if AQO_SOC_HAS_FP8
template <>
struct Float8Out<hifloat8_t> {
    static constexpr bool kIsFloat = true;
    static constexpr bool kSignedZero = false;  // one zero code
    __aicore__ static inline void Cast(const LocalTensor<hifloat8_t>& dst, const LocalTensor<float>& src, uint32_t n)
    {
        AscendC::Cast(dst, src, RoundMode::CAST_ROUND, n);
    }
};
template <>
struct Float8Out<fp8_e4m3fn_t> {
    static constexpr bool kIsFloat = true;
    static constexpr bool kSignedZero = true;
    __aicore__ static inline void Cast(const LocalTensor<fp8_e4m3fn_t>& dst, const LocalTensor<float>& src, uint32_t n)
    {
        AscendC::Cast(dst, src, RoundMode::CAST_RINT, n);
    }
};
template <>
struct Float8Out<fp8_e5m2_t> {
    static constexpr bool kIsFloat = true;
    static constexpr bool kSignedZero = true;
    __aicore__ static inline void Cast(const LocalTensor<fp8_e5m2_t>& dst, const LocalTensor<float>& src, uint32_t n)
    {
        AscendC::Cast(dst, src, RoundMode::CAST_RINT, n);
    }
};
#endif

}  // namespace aqo_kernel
