// Level-0 ("tensor high-dimension split", 高维切分) forms of the vector API: an instruction of repeatTimes iterations,
// each over 8 data blocks of 32 bytes, with a per-iteration mask and block / repeat strides. The emulated subset:
//   Add Sub Mul Div Max Min (BinaryRepeatParams, mask in continuous mode), And Or (16-bit), WholeReduceMax /
//   WholeReduceMin (continuous mask, ReduceOrder), Brcb (BrcbRepeatParams; its rules below), MulAddDst (dst = src0 *
//   src1 + dst, half / float with sources of the same type; its rules below).
//
// Semantics (AscendC documentation, "SIMD计算说明 / 高维切分" and "掩码", and the API pages; CANN 8.1.RC1 headers for
// the parameter types):
// - Iteration r, block b of an operand starts at base + (r * repStride + b * blkStride) * 32 bytes; a block holds
//   32 / sizeof(T) elements; element e of an iteration lies in block e / (32 / sizeof(T)). A continuous mask m
//   selects the first m elements of every iteration (1 <= m <= 256 / sizeof(T)). Inactive elements are neither read
//   nor written.
// - repeatTimes is at most 255 (hardware limit; the parameter is uint8_t). 0 is refused: the documentation makes
//   it a no-operation on some products only, and a kernel has no use for it.
// - The strides are as wide as the structs' fields (BinaryRepeatParams: uint8_t; WholeReduce*: 0..65535). A
//   destination block stride of 0 is undefined (documented) and refused; a source block stride of 0 re-reads the
//   first block of the iteration, a repeat stride of 0 the first iteration's blocks (documented).
// - Address overlap (documented "通用地址重叠约束"): inside one iteration a destination may share bytes with a source
//   only 100% (the same bytes); across iterations the destination of an earlier iteration must not be a source of
//   a later one, except for Add / Sub / Mul / Max / Min on half / int32_t / float where the destination overlaps
//   the second source, src1RepStride and dstRepStride are both 0 and the first source shares no byte with the
//   second (then iteration r reads what iteration r - 1 wrote: an accumulation; TIK's "通用定义" of two-source
//   instructions states the same conditions). A destination rewritten by a later iteration is refused outside that
//   exception.
// - Element types (the 8.1 headers: the static_asserts of the level-0 intrinsics in dav_c220 / dav_m200
//   kernel_operator_vec_binary_impl.h, the same on both; WholeReduceMax / Min: the type check of
//   inner_kernel_operator_vec_reduce_intf.cppm, the vcmax / vcmin intrinsics have no other form): Add Sub Mul Max Min
//   half / float / int16 / int32, Div half / float, And Or int16 / uint16 (the 910b count form also takes 32-bit
//   integers, the level-0 form does not), WholeReduceMax / Min half / float. ascend910_95 is held to them too. A
//   kernel using another type compiles here and fails at its call (as a level-2 form with a wrong type does).
// - Arithmetic, NaN and saturation rules are the level-2 forms' (emu_vector.h). WholeReduceMax / Min: per
//   iteration the extreme of the active elements and, with an index order, its index inside the iteration (the
//   smallest index when the extreme occurs more than once, as documented); ascend310p takes ORDER_VALUE_INDEX and
//   ORDER_INDEX_VALUE only (documented product support).
// - Trace: one V instruction whose bursts are the repeatTimes (a masked iteration costs a whole repeat).
//
// Brcb (kernel_operator_vec_brcb_intf.h, kernel_struct_brcb.h; dav_c220 / dav_m200 kernel_operator_vec_brcb_impl.h;
// the API page): iteration r reads src0 elements [8 r, 8 r + 8); element j fills a whole 32-byte dst block at byte
// (r * dstRepStride + j * dstBlkStride) * 32 (32 / sizeof(T) copies). No mask (the implementations reset it). Rules:
// - element size 2 or 4 bytes: half, int16, uint16, float, int32, uint32, and bfloat16 where the SoC has it (the
//   910b headers' list; 310p's lacks bfloat16; ascend910_95 is held to the 910b list);
// - repeatTimes 1..255 (0 refused as for the other level-0 forms);
// - src0 and dst 32-byte aligned (documented) and inside their buffers;
// - dstBlkStride 0 refused (stricter than the API page, which says 0 is taken as 1, as ascend310p's software path
//   does): the generic level-0 reading of a destination block stride of 0 (the 8 blocks land on one) would differ,
//   and a kernel needs neither;
// - ascend310p's software path keeps its destination steps and running offset in uint16_t element counts: a step
//   or (transpose path) last offset beyond 65535 elements is refused; and its 16-bit transpose path reads src0 at
//   16-byte steps (not 32-byte aligned on odd iterations, behaviour undocumented): 16-bit with more than one
//   iteration is refused there;
// - no byte of dst's footprint may be a byte of src0's: the page forbids src0 and dst at the same address and
//   gives Brcb no overlap form (its operands do not have one shape, so the 100% rule cannot apply); two iterations
//   writing the same dst bytes are refused (which value stays is not documented);
// - ascend310p has no vbrcb: its implementation (dav_m200) is software. With dstBlkStride 1 (or 0) each iteration
//   is, 32-bit: vadds of src0's block into 256 bytes of the API scratch at TMP_UB_OFFSET, PipeBarrier<PIPE_V>, an
//   8x8 32-bit transpose into dst, PipeBarrier<PIPE_V>; 16-bit: vadds saving dst's bytes [256, 512) of the iteration
//   into TMP_UB_OFFSET + 1536, vadds padding src0's 8 elements into a 16x16 block at TMP_UB_OFFSET + 1024, barrier,
//   a 16x16 transpose writing 512 bytes of dst from the iteration's first block, barrier, vadds restoring dst's
//   bytes [256, 512), barrier. So a 16-bit Brcb on 310p reads and writes 512 bytes of dst per iteration, which must
//   lie inside dst's buffer, and touches scratch bytes [TMP_UB_OFFSET + 1024, + 1792); the 32-bit one
//   [TMP_UB_OFFSET, + 256). Other dstBlkStride values go through a scalar loop (a scalar load of each src0 element, a
//   one-block vector_dup each) synchronised with SetFlag / WaitFlag pairs on FetchEventID ids (S_V, MTE2_S, V_S,
//   MTE3_S): modelled as the API's internal flag pairs (a kernel flag pending on one of those ids fails), a scalar
//   instruction and a V instruction of repeatTimes * 8 one-block bursts. The src0 reads are declared on V (the
//   kernel orders src0 as for the hardware form; the API's own waits are not relied on).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "emulator/emu_vector.h"

namespace AscendC {

struct BinaryRepeatParams {
    BinaryRepeatParams() {}
    BinaryRepeatParams(uint8_t dstBlkStrideIn, uint8_t src0BlkStrideIn, uint8_t src1BlkStrideIn, uint8_t dstRepStrideIn,
                       uint8_t src0RepStrideIn, uint8_t src1RepStrideIn)
        : dstBlkStride(dstBlkStrideIn),
          src0BlkStride(src0BlkStrideIn),
          src1BlkStride(src1BlkStrideIn),
          dstRepStride(dstRepStrideIn),
          src0RepStride(src0RepStrideIn),
          src1RepStride(src1RepStrideIn)
    {}
    uint32_t blockNumber = 8;
    uint8_t dstBlkStride = 1;
    uint8_t src0BlkStride = 1;
    uint8_t src1BlkStride = 1;
    uint8_t dstRepStride = 8;
    uint8_t src0RepStride = 8;
    uint8_t src1RepStride = 8;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

// kernel_struct_brcb.h: only dstBlkStride and dstRepStride are used (both in 32-byte blocks).
struct BrcbRepeatParams {
    BrcbRepeatParams() {}
    BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
        : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn)
    {}
    uint32_t blockNumber = 8;
    uint16_t dstRepStride = 8;
    uint16_t dstBlkStride = 1;
    uint8_t src0BlkStride = 1;
    uint8_t src1BlkStride = 1;
    uint8_t src0RepStride = 8;
    uint8_t src1RepStride = 8;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

}  // namespace AscendC

namespace aqo_emu {
namespace level0 {

constexpr uint64_t kBlock = 32;
constexpr uint64_t kBlocksPerRepeat = 8;

// One operand of a level-0 instruction: where iteration r's element e lives.
struct Operand {
    const char* name;
    int record;
    uint64_t base;
    uint64_t blk;  // in 32-byte blocks
    uint64_t rep;
    uint64_t elem;  // bytes per element
    uint64_t Byte(uint64_t r, uint64_t e) const
    {
        const uint64_t per_block = kBlock / elem;
        return base + (r * rep + (e / per_block) * blk) * kBlock + (e % per_block) * elem;
    }
};

// The byte intervals [begin, end) an operand touches in iteration r with the first `mask` elements active, merged.
inline std::vector<std::pair<uint64_t, uint64_t>> IterationBytes(const Operand& o, uint64_t r, uint64_t mask)
{
    std::vector<std::pair<uint64_t, uint64_t>> v;
    const uint64_t per_block = kBlock / o.elem;
    for (uint64_t b = 0; b * per_block < mask; ++b) {
        const uint64_t n = std::min(per_block, mask - b * per_block);
        const uint64_t s = o.Byte(r, b * per_block);
        v.emplace_back(s, s + n * o.elem);
    }
    std::sort(v.begin(), v.end());
    std::vector<std::pair<uint64_t, uint64_t>> m;
    for (const auto& iv : v) {
        if (!m.empty() && iv.first <= m.back().second) {
            m.back().second = std::max(m.back().second, iv.second);
        } else {
            m.push_back(iv);
        }
    }
    return m;
}

inline bool Intersect(const std::vector<std::pair<uint64_t, uint64_t>>& a,
                      const std::vector<std::pair<uint64_t, uint64_t>>& b)
{
    for (const auto& x : a) {
        for (const auto& y : b) {
            if (x.first < y.second && y.first < x.second) return true;
        }
    }
    return false;
}

// Every byte the operand touches over all iterations, merged (the instruction's footprint for the ordering model).
inline std::vector<std::pair<uint64_t, uint64_t>> Footprint(const Operand& o, uint64_t repeats, uint64_t mask)
{
    std::vector<std::pair<uint64_t, uint64_t>> all;
    const uint64_t distinct = o.rep == 0 ? 1 : repeats;
    for (uint64_t r = 0; r < distinct; ++r) {
        auto it = IterationBytes(o, r, mask);
        all.insert(all.end(), it.begin(), it.end());
    }
    std::sort(all.begin(), all.end());
    std::vector<std::pair<uint64_t, uint64_t>> m;
    for (const auto& iv : all) {
        if (!m.empty() && iv.first <= m.back().second) {
            m.back().second = std::max(m.back().second, iv.second);
        } else {
            m.push_back(iv);
        }
    }
    return m;
}

inline uint64_t FootprintEnd(const Operand& o, uint64_t repeats, uint64_t mask)
{
    // Strides are non-negative, so the last active byte is in the last iteration's last active block.
    return o.Byte(repeats - 1, mask - 1) + o.elem;
}

inline void CheckOperand(CoreContext& c, const Operand& o, ElemType t, uint64_t repeats, uint64_t mask,
                         const char* file, int line, const char* api)
{
    CheckElemTypeOnSoc(c, t, file, line, api);
    CheckRecord(c, o.record, file, line, api, o.name);
    CheckUbAligned(c, o.base, file, line, api, o.name);
    CheckUbRange(c, o.record, o.base, FootprintEnd(o, repeats, mask) - o.base, file, line, api, o.name);
}

inline void CheckRepeatAndMask(uint64_t repeats, uint64_t mask, uint64_t per_repeat, const char* file, int line,
                               const char* api)
{
    if (repeats == 0 || repeats > 255) {
        Fail(file, line,
             std::string(api) + ": repeatTimes " + std::to_string(repeats) +
                 " is outside 1..255 (the hardware limit is 255; 0 is a no-operation only on some products)");
    }
    if (mask == 0 || mask > per_repeat) {
        Fail(file, line,
             std::string(api) + ": continuous mask " + std::to_string(mask) + " is outside 1.." +
                 std::to_string(per_repeat) + " (elements of one 256-byte iteration)");
    }
}

// The documented overlap rules between the destination and one source (see the top of this file).
inline void CheckOverlapLevel0(const Operand& dst, const Operand& src, uint64_t repeats, uint64_t mask,
                               bool accumulate_allowed, const char* file, int line, const char* api)
{
    const auto dst_all = Footprint(dst, repeats, mask);
    const auto src_all = Footprint(src, repeats, mask);
    if (!Intersect(dst_all, src_all)) return;
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> d(repeats), s(repeats);
    for (uint64_t r = 0; r < repeats; ++r) {
        d[r] = IterationBytes(dst, r, mask);
        s[r] = IterationBytes(src, r, mask);
        if (Intersect(d[r], s[r]) && d[r] != s[r]) {
            Fail(file, line,
                 std::string(api) + ": in iteration " + std::to_string(r) + " dst partially overlaps " + src.name +
                     "; inside one iteration operands may only overlap 100% (documented address-overlap rule)");
        }
    }
    for (uint64_t r = 0; r < repeats; ++r) {
        for (uint64_t r2 = r + 1; r2 < repeats; ++r2) {
            if (Intersect(d[r], s[r2]) && !accumulate_allowed) {
                Fail(file, line,
                     std::string(api) + ": the dst of iteration " + std::to_string(r) + " is " + src.name +
                         " of iteration " + std::to_string(r2) +
                         "; a later iteration may read an earlier one's result only for Add / Sub / Mul / Max / "
                         "Min on half / int32 / float, through src1, with src1RepStride and dstRepStride both 0 "
                         "and src0 sharing no byte with src1 (documented address-overlap rule)");
            }
        }
    }
}

inline void CheckDstRewrite(const Operand& dst, uint64_t repeats, uint64_t mask, bool accumulate_allowed,
                            const char* file, int line, const char* api)
{
    if (accumulate_allowed || repeats < 2) return;
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> d(repeats);
    for (uint64_t r = 0; r < repeats; ++r) d[r] = IterationBytes(dst, r, mask);
    for (uint64_t r = 0; r < repeats; ++r) {
        for (uint64_t r2 = r + 1; r2 < repeats; ++r2) {
            if (Intersect(d[r], d[r2])) {
                Fail(file, line,
                     std::string(api) + ": iterations " + std::to_string(r) + " and " + std::to_string(r2) +
                         " write the same dst bytes; which value stays is documented only for the accumulation "
                         "form (dst = src1, dstRepStride and src1RepStride both 0, src0 apart from src1)");
            }
        }
    }
}

inline void DeclareAccesses(CoreContext& c, const Operand& o, uint64_t repeats, uint64_t mask, bool write)
{
    for (const auto& iv : Footprint(o, repeats, mask)) {
        if (write) {
            UbWrite(c, iv.first, iv.second - iv.first, o.name);
        } else {
            UbRead(c, iv.first, iv.second - iv.first, o.name);
        }
    }
}

// A level-0 form called with an element type its header does not take (see the top of this file).
template <typename T> [[noreturn]] void RefuseType(const char* api, const char* list, const char* file, int line)
{
    CoreContext& c = Ctx(file, line);
    CheckElemTypeOnSoc(c, ElemTraits<T>::kId, file, line, api);  // a type the SoC lacks altogether says so first
    Fail(file, line,
         std::string(api) + " (level 0): element type " + ElemTypeName(ElemTraits<T>::kId) +
             " is not supported (the 8.1 headers' level-0 " + api + " takes " + list + ")");
}

// The three operands of a two-source form (dst, src0, src1 with BinaryRepeatParams), checked: repeatTimes and the
// mask, dstBlkStride not 0, each operand's type on the SoC, buffer, alignment and range.
struct BinaryOperands {
    Operand dst, src0, src1;
};
template <typename T>
BinaryOperands CheckBinaryOperands(CoreContext& c, const AscendC::LocalTensor<T>& dst,
                                   const AscendC::LocalTensor<T>& src0, const AscendC::LocalTensor<T>& src1,
                                   uint64_t mask, uint64_t repeats, const AscendC::BinaryRepeatParams& p,
                                   const char* file, int line, const char* api)
{
    CheckRepeatAndMask(repeats, mask, 256 / sizeof(T), file, line, api);
    if (p.dstBlkStride == 0) {
        Fail(file, line, std::string(api) + ": dstBlkStride 0 is undefined behaviour (documented)");
    }
    Level0Scratch(c, file, line, api);
    const BinaryOperands o{{"dst", dst.record_, dst.byte_, p.dstBlkStride, p.dstRepStride, sizeof(T)},
                           {"src0", src0.record_, src0.byte_, p.src0BlkStride, p.src0RepStride, sizeof(T)},
                           {"src1", src1.record_, src1.byte_, p.src1BlkStride, p.src1RepStride, sizeof(T)}};
    const ElemType t = ElemTraits<T>::kId;
    CheckOperand(c, o.dst, t, repeats, mask, file, line, api);
    CheckOperand(c, o.src0, t, repeats, mask, file, line, api);
    CheckOperand(c, o.src1, t, repeats, mask, file, line, api);
    return o;
}

// A two-source elementwise form without an accumulation form (And, Or, MulAddDst): the documented overlap rules (no
// overlap across iterations, none rewritten), one V instruction of `repeats` bursts, the accesses declared (dst also
// read when dst_read: MulAddDst).
inline void IssueElementwise(CoreContext& c, const BinaryOperands& ops, uint64_t repeats, uint64_t mask,
                             uint64_t elem_bytes, bool dst_read, const char* file, int line, const char* api)
{
    CheckOverlapLevel0(ops.dst, ops.src0, repeats, mask, false, file, line, api);
    CheckOverlapLevel0(ops.dst, ops.src1, repeats, mask, false, file, line, api);
    CheckDstRewrite(ops.dst, repeats, mask, false, file, line, api);
    Issue(c, Pipe::kV, false, InstrClass::kVecElementwise, elem_bytes, repeats * mask, static_cast<uint32_t>(repeats),
          file, line, api);
    DeclareAccesses(c, ops.src0, repeats, mask, false);
    DeclareAccesses(c, ops.src1, repeats, mask, false);
    if (dst_read) {
        DeclareAccesses(c, ops.dst, repeats, mask, false);
    }
    DeclareAccesses(c, ops.dst, repeats, mask, true);
}

enum class BinaryKind { kAdd, kSub, kMul, kDiv, kMax, kMin };

inline const char* BinaryName(BinaryKind k)
{
    switch (k) {
        case BinaryKind::kAdd: return "Add";
        case BinaryKind::kSub: return "Sub";
        case BinaryKind::kMul: return "Mul";
        case BinaryKind::kDiv: return "Div";
        case BinaryKind::kMax: return "Max";
        default: return "Min";
    }
}

template <typename T>
void Binary(BinaryKind kind, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
            const AscendC::LocalTensor<T>& src1, uint64_t mask, uint8_t repeat_times,
            const AscendC::BinaryRepeatParams& p, const char* file, int line)
{
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value || std::is_same<T, int16_t>::value ||
                      std::is_same<T, int32_t>::value,
                  "level-0 arithmetic: half, float, int16_t, int32_t (the callers check each API's list)");
    const char* api = BinaryName(kind);
    CoreContext& c = Ctx(file, line);
    const uint64_t repeats = repeat_times;
    const uint64_t per_repeat = 256 / sizeof(T);
    const BinaryOperands ops = CheckBinaryOperands(c, dst, src0, src1, mask, repeats, p, file, line, api);
    const Operand &od = ops.dst, &o0 = ops.src0, &o1 = ops.src1;
    const bool accumulate_type = std::is_same<T, half>::value || std::is_same<T, int32_t>::value ||
                                 std::is_same<T, float>::value;
    const bool accumulate_api = kind != BinaryKind::kDiv;
    // The documented accumulation form: dst overlaps src1, src1RepStride and dstRepStride both 0, src0 sharing no
    // byte with src1 (then iteration r reads what iteration r - 1 wrote).
    const bool accumulate = accumulate_type && accumulate_api && p.src1RepStride == 0 && p.dstRepStride == 0 &&
                            !Intersect(Footprint(o0, repeats, mask), Footprint(o1, repeats, mask));
    CheckOverlapLevel0(od, o0, repeats, mask, false, file, line, api);
    CheckOverlapLevel0(od, o1, repeats, mask, accumulate, file, line, api);
    CheckDstRewrite(od, repeats, mask, accumulate && Intersect(Footprint(od, repeats, mask), Footprint(o1, repeats, mask)),
                    file, line, api);
    Issue(c, Pipe::kV, false, kind == BinaryKind::kDiv ? InstrClass::kVecDiv : InstrClass::kVecElementwise, sizeof(T),
          repeats * mask, static_cast<uint32_t>(repeats), file, line, api);
    DeclareAccesses(c, o0, repeats, mask, false);
    DeclareAccesses(c, o1, repeats, mask, false);
    DeclareAccesses(c, od, repeats, mask, true);
    std::vector<double> a(mask), b(mask);
    std::vector<uint8_t> def(mask);
    for (uint64_t r = 0; r < repeats; ++r) {
        // An iteration reads its sources before it writes (100% overlap inside an iteration is allowed).
        for (uint64_t e = 0; e < mask; ++e) {
            const uint64_t s0 = o0.Byte(r, e), s1 = o1.Byte(r, e);
            def[e] = UbDefined(c, s0, sizeof(T)) && UbDefined(c, s1, sizeof(T));
            if (def[e]) {
                a[e] = ReadOperand(c, LoadUb<T>(c, s0));
                b[e] = ReadOperand(c, LoadUb<T>(c, s1));
            }
        }
        for (uint64_t e = 0; e < mask; ++e) {
            const uint64_t d = od.Byte(r, e);
            if (!def[e]) {
                SetUbDefined(c, d, sizeof(T), false);
                continue;
            }
            double v = 0;
            switch (kind) {
                case BinaryKind::kAdd: v = a[e] + b[e]; break;
                case BinaryKind::kSub: v = a[e] - b[e]; break;
                case BinaryKind::kMul: v = a[e] * b[e]; break;
                case BinaryKind::kDiv: v = CheckedDivide<T>(c, a[e], b[e], r * per_repeat + e, file, line, api); break;
                case BinaryKind::kMax:
                    RefuseNaNOrder(c, a[e], b[e], r * per_repeat + e, file, line, api);
                    v = PickMax(c, a[e], b[e]);
                    break;
                case BinaryKind::kMin:
                    RefuseNaNOrder(c, a[e], b[e], r * per_repeat + e, file, line, api);
                    v = PickMin(c, a[e], b[e]);
                    break;
            }
            StoreUb<T>(c, d, MakeResult<T>(c, v, file, line, api));
        }
    }
    c.stats->vector_ops++;
}

// a * b + d for half / float operands, as a double from which rounding to T gives the exactly rounded a * b + d (one
// rounding, as a fused unit does): the product is exact in double (at most 48 significant bits); the sum's rounding
// error comes from TwoSum, and an inexact sum is rounded to odd (its last bit made sticky), which double has enough
// bits beyond float's 24 for a second rounding to T to be correct. (a * b + d rounded to double first, then to T,
// can round twice the wrong way.)
inline double FusedMulAddToOdd(double a, double b, double d)
{
    const double p = a * b;
    double s = p + d;
    if (!std::isfinite(s)) {
        return s;
    }
    const double bv = s - p;
    const double err = (p - (s - bv)) + (d - bv);
    if (err == 0) {
        return s;
    }
    uint64_t bits = 0;
    std::memcpy(&bits, &s, sizeof(bits));
    if ((bits & 1) == 0) {
        s = std::nextafter(s, err > 0 ? std::numeric_limits<double>::infinity()
                                      : -std::numeric_limits<double>::infinity());
    }
    return s;
}

// A value's decimal digits, enough to tell two floats apart (17 significant digits of the double).
inline std::string Exact(double v)
{
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    return buf;
}

// MulAddDst (vmla, kernel_operator_vec_binary_intf.h; dav_c220 / dav_m200 kernel_operator_vec_binary_impl.h: the
// pairs (half, half), (float, float), (float dst, half sources)): dst = src0 * src1 + dst per element, the level-0
// strides and mask as the binary forms. Whether the unit rounds the product before the addition (two roundings) or
// not (one) is not documented: the emulator computes both and refuses an element where they differ, so a kernel is
// correct under either (e.g. integers whose products and sums stay below 2^24 in float32). The mixed (float, half)
// form is refused (not modelled: its block layout and the product's precision are not documented). dst is read:
// sources may overlap it only 100% inside an iteration, and no two iterations may write the same dst bytes.
template <typename T>
void MulAddDst(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
               const AscendC::LocalTensor<T>& src1, uint64_t mask, uint8_t repeat_times,
               const AscendC::BinaryRepeatParams& p, const char* file, int line)
{
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "MulAddDst: half or float");
    const char* api = "MulAddDst";
    CoreContext& c = Ctx(file, line);
    const uint64_t repeats = repeat_times;
    const uint64_t per_repeat = 256 / sizeof(T);
    const BinaryOperands ops = CheckBinaryOperands(c, dst, src0, src1, mask, repeats, p, file, line, api);
    const Operand &od = ops.dst, &o0 = ops.src0, &o1 = ops.src1;
    IssueElementwise(c, ops, repeats, mask, sizeof(T), true, file, line, api);
    std::vector<double> a(mask), b(mask), d(mask);
    std::vector<uint8_t> def(mask);
    for (uint64_t r = 0; r < repeats; ++r) {
        for (uint64_t e = 0; e < mask; ++e) {
            const uint64_t s0 = o0.Byte(r, e), s1 = o1.Byte(r, e), sd = od.Byte(r, e);
            def[e] = UbDefined(c, s0, sizeof(T)) && UbDefined(c, s1, sizeof(T)) && UbDefined(c, sd, sizeof(T));
            if (def[e]) {
                a[e] = ReadOperand(c, LoadUb<T>(c, s0));
                b[e] = ReadOperand(c, LoadUb<T>(c, s1));
                d[e] = ReadOperand(c, LoadUb<T>(c, sd));
            }
        }
        for (uint64_t e = 0; e < mask; ++e) {
            const uint64_t at = od.Byte(r, e);
            if (!def[e]) {
                SetUbDefined(c, at, sizeof(T), false);
                continue;
            }
            const T fused = MakeResult<T>(c, FusedMulAddToOdd(a[e], b[e], d[e]), file, line, api);
            const double product = ReadOperand(c, MakeResult<T>(c, a[e] * b[e], file, line, api));
            const T twice = MakeResult<T>(c, product + d[e], file, line, api);
            const double x = ReadOperand(c, fused), y = ReadOperand(c, twice);
            if (!(x == y || (std::isnan(x) && std::isnan(y)))) {
                Fail(file, line,
                     std::string(api) + ": element " + std::to_string(r * per_repeat + e) + " of iteration " +
                         std::to_string(r) + " is " + Exact(x) + " if the product is not rounded before the "
                         "addition and " + Exact(y) + " if it is; the documentation does not say which the unit "
                         "does, so a kernel must not depend on it (keep products and sums exact)");
            }
            StoreUb<T>(c, at, fused);
        }
    }
    c.stats->vector_ops++;
}

template <typename T>
void Bitwise(bool is_and, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
             const AscendC::LocalTensor<T>& src1, uint64_t mask, uint8_t repeat_times,
             const AscendC::BinaryRepeatParams& p, const char* file, int line)
{
    static_assert(std::is_same<T, int16_t>::value || std::is_same<T, uint16_t>::value,
                  "And / Or (level 0): int16_t or uint16_t operands");
    const char* api = is_and ? "And" : "Or";
    CoreContext& c = Ctx(file, line);
    const uint64_t repeats = repeat_times;
    const BinaryOperands ops = CheckBinaryOperands(c, dst, src0, src1, mask, repeats, p, file, line, api);
    const Operand &od = ops.dst, &o0 = ops.src0, &o1 = ops.src1;
    IssueElementwise(c, ops, repeats, mask, sizeof(T), false, file, line, api);
    std::vector<T> a(mask), b(mask);
    std::vector<uint8_t> def(mask);
    for (uint64_t r = 0; r < repeats; ++r) {
        for (uint64_t e = 0; e < mask; ++e) {
            const uint64_t s0 = o0.Byte(r, e), s1 = o1.Byte(r, e);
            def[e] = UbDefined(c, s0, sizeof(T)) && UbDefined(c, s1, sizeof(T));
            if (def[e]) {
                a[e] = LoadUb<T>(c, s0);
                b[e] = LoadUb<T>(c, s1);
            }
        }
        for (uint64_t e = 0; e < mask; ++e) {
            const uint64_t d = od.Byte(r, e);
            if (!def[e]) {
                SetUbDefined(c, d, sizeof(T), false);
                continue;
            }
            StoreUb<T>(c, d, static_cast<T>(is_and ? (a[e] & b[e]) : (a[e] | b[e])));
        }
    }
    c.stats->vector_ops++;
}

template <typename T>
void WholeReduce(bool is_max, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, int32_t mask,
                 int32_t repeat_times, int32_t dst_rep_stride, int32_t src_blk_stride, int32_t src_rep_stride,
                 AscendC::ReduceOrder order, const char* file, int line)
{
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value,
                  "WholeReduceMax / WholeReduceMin: half or float");
    const char* api = is_max ? "WholeReduceMax" : "WholeReduceMin";
    CoreContext& c = Ctx(file, line);
    const uint64_t per_repeat = 256 / sizeof(T);
    if (repeat_times < 0 || mask < 0) {
        Fail(file, line, std::string(api) + ": negative repeatTimes or mask");
    }
    CheckRepeatAndMask(static_cast<uint64_t>(repeat_times), static_cast<uint64_t>(mask), per_repeat, file, line, api);
    Level0Scratch(c, file, line, api);
    for (int32_t s : {dst_rep_stride, src_blk_stride, src_rep_stride}) {
        if (s < 0 || s > 65535) {
            Fail(file, line, std::string(api) + ": stride " + std::to_string(s) + " is outside 0..65535");
        }
    }
    const bool with_value = order != AscendC::ReduceOrder::ORDER_ONLY_INDEX;
    const bool with_index = order != AscendC::ReduceOrder::ORDER_ONLY_VALUE;
    if (c.soc.id == SocId::kAscend310P && !(order == AscendC::ReduceOrder::ORDER_VALUE_INDEX ||
                                            order == AscendC::ReduceOrder::ORDER_INDEX_VALUE)) {
        Fail(file, line,
             std::string(api) + ": ascend310p supports ORDER_VALUE_INDEX and ORDER_INDEX_VALUE only (documented)");
    }
    // Destination unit per iteration (documented table): value and index: 2 x sizeof(T); value only: sizeof(T);
    // index only: 4 bytes. The destination address is aligned to that unit.
    const uint64_t unit = (with_value && with_index) ? 2 * sizeof(T) : (with_value ? sizeof(T) : 4);
    if (dst.byte_ % unit != 0) {
        Fail(file, line, std::string(api) + ": dst UB address " + std::to_string(dst.byte_) + " is not " +
                             std::to_string(unit) + "-byte aligned (documented for this type and order)");
    }
    const uint64_t repeats = static_cast<uint64_t>(repeat_times);
    if (repeats > 1 && dst_rep_stride == 0) {
        Fail(file, line, std::string(api) + ": dstRepStride 0 with several iterations overwrites the results");
    }
    const Operand os{"src", src.record_, src.byte_, static_cast<uint64_t>(src_blk_stride),
                     static_cast<uint64_t>(src_rep_stride), sizeof(T)};
    CheckOperand(c, os, ElemTraits<T>::kId, repeats, static_cast<uint64_t>(mask), file, line, api);
    CheckRecord(c, dst.record_, file, line, api, "dst");
    const uint64_t dst_end = dst.byte_ + (repeats - 1) * dst_rep_stride * unit + unit;
    CheckUbRange(c, dst.record_, dst.byte_, dst_end - dst.byte_, file, line, api, "dst");
    const auto src_all = Footprint(os, repeats, static_cast<uint64_t>(mask));
    std::vector<std::pair<uint64_t, uint64_t>> dst_all;
    for (uint64_t r = 0; r < repeats; ++r) {
        const uint64_t s = dst.byte_ + r * dst_rep_stride * unit;
        dst_all.emplace_back(s, s + unit);
    }
    if (Intersect(dst_all, src_all)) {
        Fail(file, line, std::string(api) + ": dst overlaps src (a result smaller than its iteration can only "
                                            "partially overlap it; documented address-overlap rule)");
    }
    Issue(c, Pipe::kV, false, InstrClass::kVecReduce, sizeof(T), repeats * static_cast<uint64_t>(mask),
          static_cast<uint32_t>(repeats), file, line, api);
    for (const auto& iv : src_all) UbRead(c, iv.first, iv.second - iv.first, "src");
    for (const auto& iv : dst_all) UbWrite(c, iv.first, iv.second - iv.first, "dst");
    for (uint64_t r = 0; r < repeats; ++r) {
        double best = 0;
        int64_t best_i = -1;
        for (uint64_t e = 0; e < static_cast<uint64_t>(mask); ++e) {
            const uint64_t s = os.Byte(r, e);
            if (!UbDefined(c, s, sizeof(T))) {
                Fail(file, line, std::string(api) + ": element " + std::to_string(e) + " of iteration " +
                                     std::to_string(r) + " was never written (uninitialised UB)");
            }
            const double v = ReadOperand(c, LoadUb<T>(c, s));
            RefuseNaNOrder(c, v, 0.0, e, file, line, api);
            if (best_i < 0 || (is_max ? v > best : v < best)) {  // strict: the first (smallest) index on ties
                best = v;
                best_i = static_cast<int64_t>(e);
            }
        }
        const uint64_t d = dst.byte_ + r * dst_rep_stride * unit;
        const T value = MakeResult<T>(c, best, file, line, api);
        T idx_bits;
        if constexpr (std::is_same<T, float>::value) {
            const uint32_t u = static_cast<uint32_t>(best_i);
            std::memcpy(&idx_bits, &u, 4);
        } else {
            idx_bits = T::FromBits(static_cast<uint16_t>(best_i));
        }
        switch (order) {
            case AscendC::ReduceOrder::ORDER_VALUE_INDEX:
                StoreUb<T>(c, d, value);
                StoreUb<T>(c, d + sizeof(T), idx_bits);
                break;
            case AscendC::ReduceOrder::ORDER_INDEX_VALUE:
                StoreUb<T>(c, d, idx_bits);
                StoreUb<T>(c, d + sizeof(T), value);
                break;
            case AscendC::ReduceOrder::ORDER_ONLY_VALUE:
                StoreUb<T>(c, d, value);
                break;
            default:
                StoreUb<uint32_t>(c, d, static_cast<uint32_t>(best_i));
                break;
        }
    }
    c.stats->vector_ops++;
}


// Brcb (see the top of this file).
template <typename T>
void Brcb(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0, uint8_t repeat_times,
          const AscendC::BrcbRepeatParams& p, const char* file, int line)
{
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Brcb: 16- or 32-bit elements (the callers check the list)");
    const char* api = "Brcb";
    CoreContext& c = Ctx(file, line);
    constexpr uint64_t kElem = sizeof(T);
    constexpr uint64_t kPerBlock = kBlock / kElem;
    const uint64_t repeats = repeat_times;
    CheckRepeatAndMask(repeats, kPerBlock * kBlocksPerRepeat, kPerBlock * kBlocksPerRepeat, file, line, api);
    const bool soft = c.soc.id == SocId::kAscend310P;  // dav_m200: a software implementation
    if (p.dstBlkStride == 0) {
        Fail(file, line,
             std::string(api) + ": dstBlkStride 0 is refused: the API page and ascend310p's software "
                                "implementation take it as 1, the level-0 forms' generic rule for a destination "
                                "block stride of 0 puts the 8 blocks of an iteration on one; use 1 or more");
    }
    const ElemType t = ElemTraits<T>::kId;
    CheckElemTypeOnSoc(c, t, file, line, api);
    const AllocRecord& drec = CheckRecord(c, dst.record_, file, line, api, "dst");
    CheckRecord(c, src0.record_, file, line, api, "src0");
    CheckUbAligned(c, src0.byte_, file, line, api, "src0");
    CheckUbAligned(c, dst.byte_, file, line, api, "dst");
    const uint64_t src_bytes = repeats * kBlocksPerRepeat * kElem;  // 8 elements an iteration
    CheckUbRange(c, src0.record_, src0.byte_, src_bytes, file, line, api, "src0 (8 elements per iteration)");
    const Operand od{"dst", dst.record_, dst.byte_, p.dstBlkStride, p.dstRepStride, kElem};
    const uint64_t mask = kPerBlock * kBlocksPerRepeat;  // every block of every iteration
    CheckUbRange(c, dst.record_, dst.byte_, FootprintEnd(od, repeats, mask) - dst.byte_, file, line, api, "dst");
    // ascend310p, dstBlkStride 1, 16-bit: each iteration transposes a 16x16 block, 512 bytes of dst from the
    // iteration's first block (the second half saved before and restored after).
    const bool soft_transpose = soft && p.dstBlkStride == 1;
    if (soft) {
        // dav_m200 keeps its steps and its running destination offset in uint16_t elements of T: beyond 65535 they
        // wrap, and the blocks land elsewhere than the parameters say.
        // Transpose path: the offset of the last iteration; scalar path: the repeat step (used from iteration 1 on)
        // and the block step.
        const uint64_t rep_step = kPerBlock * p.dstRepStride, blk_step = kPerBlock * p.dstBlkStride;
        const uint64_t last_offset = (repeats - 1) * rep_step;
        const bool wraps = soft_transpose ? last_offset > 65535
                                          : ((repeats > 1 && rep_step > 65535) || blk_step > 65535);
        if (wraps) {
            Fail(file, line,
                 std::string(api) + " on " + c.soc.name + ": its software implementation counts the destination "
                     "steps" + (soft_transpose ? " and the running offset" : "") + " in 16-bit element counts (" +
                     std::to_string(rep_step) + " elements a repeat, " +
                     (soft_transpose ? std::to_string(last_offset) + " at the last iteration"
                                     : std::to_string(blk_step) + " a block") +
                     "), which wrap beyond 65535: keep each call's destination within 65535 elements of T");
        }
        if (soft_transpose && kElem == 2 && repeats > 1) {
            Fail(file, line,
                 std::string(api) + " on " + c.soc.name + " with 16-bit elements and " + std::to_string(repeats) +
                     " iterations: its software implementation advances src0 by 8 elements (16 bytes) an iteration, "
                     "so iterations 1, 3, ... read src0 through a vector instruction at an address that is not "
                     "32-byte aligned, as vector operands must be; what the unit does then is not documented: one "
                     "iteration a call, or 32-bit elements");
        }
    }
    const uint64_t window = kElem == 2 ? 512 : 256;
    if (soft_transpose && kElem == 2) {
        const uint64_t last = dst.byte_ + (repeats - 1) * p.dstRepStride * kBlock;
        if (last + window > drec.end) {
            Fail(file, line,
                 std::string(api) + " on " + c.soc.name + " with 16-bit elements and dstBlkStride 1: its software "
                     "implementation transposes a 16x16 block per iteration, reading and writing 512 bytes of dst "
                     "from the iteration's first block (bytes [256, 512) saved before and restored after); iteration " +
                     std::to_string(repeats - 1) + " touches UB bytes [" + std::to_string(last) + ", " +
                     std::to_string(last + window) + "), past dst's buffer [" + std::to_string(drec.begin) + ", " +
                     std::to_string(drec.end) + ") allocated at " + drec.file + ":" + std::to_string(drec.line) +
                     ": give dst's buffer 256 bytes of room after the last iteration's 8 blocks");
        }
    }
    // Footprints: src0's bytes; dst's blocks (on 310p's transpose path, each iteration's whole window).
    const std::vector<std::pair<uint64_t, uint64_t>> src_all{{src0.byte_, src0.byte_ + src_bytes}};
    std::vector<std::pair<uint64_t, uint64_t>> dst_all;
    if (soft_transpose) {
        for (uint64_t r = 0; r < repeats; ++r) {
            const uint64_t d = dst.byte_ + r * p.dstRepStride * kBlock;
            dst_all.emplace_back(d, d + window);
        }
    } else {
        dst_all = Footprint(od, repeats, mask);
    }
    if (Intersect(dst_all, src_all)) {
        Fail(file, line,
             std::string(api) + ": dst (UB bytes from " + std::to_string(dst.byte_) + ") overlaps src0 (UB bytes [" +
                 std::to_string(src0.byte_) + ", " + std::to_string(src0.byte_ + src_bytes) +
                 ")" + (soft_transpose ? ", counting the 512-byte transpose windows of ascend310p's software path" : "") +
                 "); the documentation forbids src0 and dst at the same address and gives no overlap form for "
                 "Brcb: keep them apart");
    }
    // Two iterations writing the same dst blocks (dstRepStride below 8 * dstBlkStride, or 0).
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> it(repeats);
    for (uint64_t r = 0; r < repeats; ++r) it[r] = IterationBytes(od, r, mask);
    for (uint64_t r = 0; r + 1 < repeats; ++r) {
        for (uint64_t r2 = r + 1; r2 < repeats; ++r2) {
            if (Intersect(it[r], it[r2])) {
                Fail(file, line,
                     std::string(api) + ": iterations " + std::to_string(r) + " and " + std::to_string(r2) +
                         " write the same dst blocks (dstRepStride " + std::to_string(p.dstRepStride) +
                         ", dstBlkStride " + std::to_string(p.dstBlkStride) +
                         "); which value stays is not documented");
            }
        }
    }
    // The instructions, their accesses, the result.
    auto result = [&](uint64_t r) {
        for (uint64_t j = 0; j < kBlocksPerRepeat; ++j) {
            const uint64_t s = src0.byte_ + (r * kBlocksPerRepeat + j) * kElem;
            const uint64_t d = dst.byte_ + (r * p.dstRepStride + j * p.dstBlkStride) * kBlock;
            const bool def = UbDefined(c, s, kElem);
            for (uint64_t e = 0; e < kPerBlock; ++e) {
                if (def) std::memcpy(c.ub.data() + d + e * kElem, c.ub.data() + s, kElem);
            }
            SetUbDefined(c, d, kBlock, def);
        }
    };
    if (!soft) {
        Issue(c, Pipe::kV, false, InstrClass::kVecElementwise, kElem, repeats * mask, static_cast<uint32_t>(repeats),
              file, line, api);
        UbRead(c, src0.byte_, src_bytes, "src0");
        DeclareAccesses(c, od, repeats, mask, true);
        for (uint64_t r = 0; r < repeats; ++r) result(r);
    } else if (!soft_transpose) {
        // The scalar path: FetchEventID S_V, MTE2_S, V_S, MTE3_S; then a scalar load and a one-block vector_dup per
        // src0 element.
        OrderApiFlagPair(c, HardEventOf(Pipe::kS, Pipe::kV), file, line, api);
        OrderApiFlagPair(c, HardEventOf(Pipe::kMte2, Pipe::kS), file, line, api);
        OrderApiFlagPair(c, HardEventOf(Pipe::kV, Pipe::kS), file, line, api);
        OrderApiFlagPair(c, HardEventOf(Pipe::kMte3, Pipe::kS), file, line, api);
        Issue(c, Pipe::kS, false, InstrClass::kScalarOther, 0, repeats * kBlocksPerRepeat, 0, file, line, api);
        Issue(c, Pipe::kV, false, InstrClass::kVecElementwise, kElem, repeats * mask,
              static_cast<uint32_t>(repeats * kBlocksPerRepeat), file, line, api);
        UbRead(c, src0.byte_, src_bytes, "src0");
        DeclareAccesses(c, od, repeats, mask, true);
        for (uint64_t r = 0; r < repeats; ++r) result(r);
    } else {
        for (uint64_t r = 0; r < repeats; ++r) {
            const uint64_t d = dst.byte_ + r * p.dstRepStride * kBlock;
            const uint64_t s = src0.byte_ + r * kBlocksPerRepeat * kElem;
            if (kElem == 4) {
                // vadds: src0's block, 8 times, into 256 bytes of scratch; then the 8x8 transpose into dst.
                Issue(c, Pipe::kV, false, InstrClass::kVecElementwise, 4, 64, 1, file, line, api);
                UbRead(c, s, 32, "src0");
                ApiScratchWriteAt(c, 0, 256, file, line, api);
                OrderPipeBarrier(c, static_cast<int>(::PIPE_V), file, line);
                Issue(c, Pipe::kV, false, InstrClass::kVecElementwise, 4, 64, 1, file, line, api);
                ApiScratchReadAt(c, 0, 256);
                UbWrite(c, d, 256, "dst");
                OrderPipeBarrier(c, static_cast<int>(::PIPE_V), file, line);
            } else {
                // vadds: save dst's bytes [256, 512) of the iteration at scratch + 1536; vadds (half the lanes, 2
                // repeats): src0's 8 elements into each row of a 16x16 block at scratch + 1024; the transpose into
                // dst's 512 bytes; vadds: the saved bytes back.
                Issue(c, Pipe::kV, false, InstrClass::kVecElementwise, 2, 128, 1, file, line, api);
                UbRead(c, d + 256, 256, "dst (saved by the software path)");
                ApiScratchWriteAt(c, 1536, 256, file, line, api);
                Issue(c, Pipe::kV, false, InstrClass::kVecElementwise, 2, 128, 2, file, line, api);
                UbRead(c, s, 16, "src0");
                ApiScratchWriteAt(c, 1024, 512, file, line, api);
                OrderPipeBarrier(c, static_cast<int>(::PIPE_V), file, line);
                Issue(c, Pipe::kV, false, InstrClass::kVecElementwise, 2, 256, 1, file, line, api);
                ApiScratchReadAt(c, 1024, 512);
                UbWrite(c, d, 512, "dst");
                OrderPipeBarrier(c, static_cast<int>(::PIPE_V), file, line);
                Issue(c, Pipe::kV, false, InstrClass::kVecElementwise, 2, 128, 1, file, line, api);
                ApiScratchReadAt(c, 1536, 256);
                UbWrite(c, d + 256, 256, "dst (restored by the software path)");
                OrderPipeBarrier(c, static_cast<int>(::PIPE_V), file, line);
            }
            result(r);  // bytes [256, 512) of a 16-bit window keep their value (restored)
        }
    }
    c.stats->vector_ops++;
}

}  // namespace level0
}  // namespace aqo_emu

namespace AscendC {

// Each form checks its element type first (RefuseType: the kernel's line, the API's list from the headers) and is
// instantiated only for the types it takes.
#define AQO_EMU_LEVEL0_BINARY(NAME, KIND, TYPES, LIST)                                                             \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint64_t mask,   \
              const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams, AQO_EMU_SRC)                      \
    {                                                                                                              \
        static_assert(isSetMask, "the emulator takes the mask through the call (isSetMask = true)");              \
        if constexpr (aqo_emu::OneOf<T, TYPES>()) {                                                                \
            aqo_emu::level0::Binary(aqo_emu::level0::BinaryKind::KIND, dst, src0, src1, mask, repeatTimes,         \
                                    repeatParams, aqo_file, aqo_line);                                             \
        } else {                                                                                                   \
            aqo_emu::level0::RefuseType<T>(#NAME, LIST, aqo_file, aqo_line);                                       \
        }                                                                                                          \
    }
#define AQO_EMU_LEVEL0_FLOAT_TYPES half, float
AQO_EMU_LEVEL0_BINARY(Add, kAdd, AQO_EMU_ARITH_TYPES, AQO_EMU_ARITH_LIST)
AQO_EMU_LEVEL0_BINARY(Sub, kSub, AQO_EMU_ARITH_TYPES, AQO_EMU_ARITH_LIST)
AQO_EMU_LEVEL0_BINARY(Mul, kMul, AQO_EMU_ARITH_TYPES, AQO_EMU_ARITH_LIST)
AQO_EMU_LEVEL0_BINARY(Div, kDiv, AQO_EMU_LEVEL0_FLOAT_TYPES, "half, float")
AQO_EMU_LEVEL0_BINARY(Max, kMax, AQO_EMU_ARITH_TYPES, AQO_EMU_ARITH_LIST)
AQO_EMU_LEVEL0_BINARY(Min, kMin, AQO_EMU_ARITH_TYPES, AQO_EMU_ARITH_LIST)
#undef AQO_EMU_LEVEL0_BINARY

#define AQO_EMU_LEVEL0_BITWISE(NAME, IS_AND)                                                                       \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint64_t mask,   \
              const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams, AQO_EMU_SRC)                      \
    {                                                                                                              \
        static_assert(isSetMask, "the emulator takes the mask through the call (isSetMask = true)");              \
        if constexpr (aqo_emu::OneOf<T, int16_t, uint16_t>()) {                                                    \
            aqo_emu::level0::Bitwise(IS_AND, dst, src0, src1, mask, repeatTimes, repeatParams, aqo_file, aqo_line);\
        } else {                                                                                                   \
            aqo_emu::level0::RefuseType<T>(#NAME, "int16, uint16", aqo_file, aqo_line);                            \
        }                                                                                                          \
    }
AQO_EMU_LEVEL0_BITWISE(And, true)
AQO_EMU_LEVEL0_BITWISE(Or, false)
#undef AQO_EMU_LEVEL0_BITWISE

#define AQO_EMU_LEVEL0_WHOLE_REDUCE(NAME, IS_MAX)                                                                  \
    template <typename T, bool isSetMask = true>                                                                   \
    void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTimes, \
              const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,                  \
              ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, AQO_EMU_SRC)                                     \
    {                                                                                                              \
        static_assert(isSetMask, "the emulator takes the mask through the call (isSetMask = true)");              \
        if constexpr (aqo_emu::OneOf<T, AQO_EMU_LEVEL0_FLOAT_TYPES>()) {                                           \
            aqo_emu::level0::WholeReduce(IS_MAX, dst, src, mask, repeatTimes, dstRepStride, srcBlkStride,          \
                                         srcRepStride, order, aqo_file, aqo_line);                                 \
        } else {                                                                                                   \
            aqo_emu::level0::RefuseType<T>(#NAME, "half, float", aqo_file, aqo_line);                              \
        }                                                                                                          \
    }
AQO_EMU_LEVEL0_WHOLE_REDUCE(WholeReduceMax, true)
AQO_EMU_LEVEL0_WHOLE_REDUCE(WholeReduceMin, false)
#undef AQO_EMU_LEVEL0_WHOLE_REDUCE
#undef AQO_EMU_LEVEL0_FLOAT_TYPES

// MulAddDst: the same-type pairs (see level0::MulAddDst); dst float with half sources is refused (not modelled).
template <typename T, typename U, bool isSetMask = true>
void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1, uint64_t mask,
               const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams, AQO_EMU_SRC)
{
    static_assert(isSetMask, "the emulator takes the mask through the call (isSetMask = true)");
    if constexpr (std::is_same<T, U>::value && aqo_emu::OneOf<T, half, float>()) {
        aqo_emu::level0::MulAddDst(dst, src0, src1, mask, repeatTimes, repeatParams, aqo_file, aqo_line);
    } else {
        aqo_emu::level0::RefuseType<T>("MulAddDst", "(half, half), (float, float) (the mixed (float, half) form is not "
                                       "modelled)", aqo_file, aqo_line);
    }
}

// Brcb: 16- and 32-bit elements of the headers' list (bfloat16 checked against the SoC).
template <typename T>
void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t repeatTimes,
          const BrcbRepeatParams& repeatParams, AQO_EMU_SRC)
{
    if constexpr (aqo_emu::OneOf<T, half, bfloat16_t, int16_t, uint16_t, float, int32_t, uint32_t>()) {
        aqo_emu::level0::Brcb(dst, src0, repeatTimes, repeatParams, aqo_file, aqo_line);
    } else {
        aqo_emu::level0::RefuseType<T>("Brcb", "half, bfloat16 (not on ascend310p), int16, uint16, float, int32, uint32",
                                       aqo_file, aqo_line);
    }
}

}  // namespace AscendC
