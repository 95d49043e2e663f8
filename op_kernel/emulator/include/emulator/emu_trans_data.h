// TransDataTo5HD (interface/kernel_operator_vec_transpose_intf.h, kernel_struct_transpose.h; the API page
// "TransDataTo5HD"): sixteen 32-byte source blocks and sixteen destination blocks, each given by its own address, and
// repeatTimes iterations whose blocks move by srcRepStride / dstRepStride 32-byte blocks. The emulated forms: the
// LocalTensor lists and the uint64_t address lists (addresses from LocalTensor::GetPhyAddr), for 8- and 16-bit
// elements on ascend910b and ascend310p. What one iteration does (the API page's conversion rules):
// - 16-bit: destination block j receives element j of every source block, in list order (a 16 x 16 transpose);
// - 8-bit: destination block j receives, in its low half (dstHighHalf false) or high half (true), byte j of every
//   source block's low half (srcHighHalf false) or byte 16 + j (true): sixteen bytes a block, the other half of the
//   destination block unchanged.
// Refused, on the strict side:
// - element types other than int8 / uint8 / int16 / uint16 / half (the 8.1 interface's list has float / int32 / uint32
//   too: the 32-bit layout, documented on the scatter_vnchwconv intrinsic page, is not modelled; bfloat16 is not in
//   the list: on the device the address-list form issues nothing for it): a compile error;
// - ascend910_95: its vector unit is another design (the emulator has no model of its TransDataTo5HD);
// - the form with address lists in UB tensors (LocalTensor<uint64_t> dst / src): not modelled;
// - repeatTimes outside 1..255 (uint8_t; 0 is a no-operation only on some products, as for the other level-0 forms);
// - a block address that is not 32-byte aligned (sources and destinations: the CPU-debug checks assert both), or
//   outside a live UB buffer of the kernel;
// - repeatTimes 1 with a repeat stride other than 0: with one iteration the unit starts at the list's address plus
//   the stride (TIK's page of the same instruction, vec_trans_scatter), which every caller in CANN avoids by passing 0;
// - a source byte inside a destination block (the page gives no overlap form for it; an 8-bit destination block
//   counts whole, see below);
// - a destination byte written twice (by two list entries or two iterations: which value stays is not documented);
// Trace: one V instruction of class kVecTransData with repeatTimes bursts; the timeline charges the scalar unit's
// address lists and VA register writes per instruction (trans_data_scalar_cycles).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "emulator/emu_vector_level0.h"

namespace AscendC {

constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

struct TransDataTo5HDParams {
    TransDataTo5HDParams() {}
    TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn,
                         const uint16_t dstRepStrideIn, const uint16_t srcRepStrideIn)
        : dstHighHalf(dstHighHalfIn),
          srcHighHalf(srcHighHalfIn),
          repeatTimes(repeatTimesIn),
          dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn)
    {}
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
};

}  // namespace AscendC

namespace aqo_emu {
namespace trans_data {

constexpr uint64_t kList = 16;
constexpr uint64_t kBlock = 32;

// The live allocation record holding UB byte `byte`, or -1.
inline int RecordAt(const CoreContext& c, uint64_t byte)
{
    for (size_t i = 0; i < c.records.size(); ++i) {
        const AllocRecord& r = c.records[i];
        if (r.live && r.mem == Mem::kUb && byte >= r.begin && byte < r.end) return static_cast<int>(i);
    }
    return -1;
}

// A UB address of a uint64_t list entry (LocalTensor::GetPhyAddr cast to an integer) as a UB byte offset.
inline uint64_t UbByteOf(const CoreContext& c, uint64_t addr, const char* file, int line, const char* operand,
                         uint64_t index)
{
    const uint64_t base = reinterpret_cast<uint64_t>(c.ub.data());
    if (addr < base || addr >= base + c.ub.size()) {
        Fail(file, line,
             std::string("TransDataTo5HD: ") + operand + "[" + std::to_string(index) +
                 "] is not a UB address (take it from LocalTensor::GetPhyAddr of a tensor of this kernel)");
    }
    return addr - base;
}

// ascend910_95's vector unit is another design: its TransDataTo5HD is not modelled.
inline void RefuseUnmodelledSoc(const char* file, int line)
{
    CoreContext& c = Ctx(file, line);
    if (c.soc.id == SocId::kAscend910_95) {
        Fail(file, line, std::string("TransDataTo5HD on ") + c.soc.name +
                             ": not modelled (the emulator models the ascend910b / ascend310p instruction only)");
    }
}

template <typename T>
void Run(const uint64_t (&dst)[kList], const int (&dst_rec)[kList], const uint64_t (&src)[kList],
         const int (&src_rec)[kList], const AscendC::TransDataTo5HDParams& p, const char* file, int line)
{
    const char* api = "TransDataTo5HD";
    CoreContext& c = Ctx(file, line);
    RefuseUnmodelledSoc(file, line);
    CheckElemTypeOnSoc(c, ElemTraits<T>::kId, file, line, api);
    const uint64_t repeats = p.repeatTimes;
    if (repeats == 0) {
        Fail(file, line, std::string(api) + ": repeatTimes 0 is refused (a no-operation only on some products)");
    }
    if (repeats == 1 && (p.srcRepStride != 0 || p.dstRepStride != 0)) {
        Fail(file, line,
             std::string(api) + ": repeatTimes 1 with srcRepStride " + std::to_string(p.srcRepStride) +
                 " / dstRepStride " + std::to_string(p.dstRepStride) + ": with one iteration the unit starts at "
                 "the list's addresses plus the strides (TIK's vec_trans_scatter page); pass 0 for both");
    }
    constexpr bool kB8 = sizeof(T) == 1;
    // Per source / destination entry and iteration: the bytes read / written.
    const uint64_t part = kB8 ? kBlock / 2 : kBlock;
    const uint64_t src_off = kB8 && p.srcHighHalf ? kBlock / 2 : 0;
    const uint64_t dst_off = kB8 && p.dstHighHalf ? kBlock / 2 : 0;
    const uint64_t src_step = repeats > 1 ? static_cast<uint64_t>(p.srcRepStride) * kBlock : 0;
    const uint64_t dst_step = repeats > 1 ? static_cast<uint64_t>(p.dstRepStride) * kBlock : 0;
    std::vector<std::pair<uint64_t, uint64_t>> reads, writes;
    for (uint64_t i = 0; i < kList; ++i) {
        const std::string sn = "srcList[" + std::to_string(i) + "]", dn = "dstList[" + std::to_string(i) + "]";
        CheckRecord(c, src_rec[i], file, line, api, sn.c_str());
        CheckRecord(c, dst_rec[i], file, line, api, dn.c_str());
        CheckUbAligned(c, src[i], file, line, api, sn.c_str());
        CheckUbAligned(c, dst[i], file, line, api, dn.c_str());
        CheckUbRange(c, src_rec[i], src[i], (repeats - 1) * src_step + kBlock, file, line, api, sn.c_str());
        CheckUbRange(c, dst_rec[i], dst[i], (repeats - 1) * dst_step + kBlock, file, line, api, dn.c_str());
        for (uint64_t r = 0; r < repeats; ++r) {
            reads.emplace_back(src[i] + r * src_step + src_off, src[i] + r * src_step + src_off + part);
            writes.emplace_back(dst[i] + r * dst_step + dst_off, dst[i] + r * dst_step + dst_off + part);
        }
    }
    std::vector<std::pair<uint64_t, uint64_t>> w = writes;
    std::sort(w.begin(), w.end());
    for (size_t k = 1; k < w.size(); ++k) {
        if (w[k].first < w[k - 1].second) {
            Fail(file, line,
                 std::string(api) + ": two destination entries or iterations write UB bytes [" +
                     std::to_string(w[k].first) + ", " + std::to_string(std::min(w[k].second, w[k - 1].second)) +
                     "); which value stays is not documented: give each destination block (half) one writer");
        }
    }
    // For ordering, an 8-bit instruction touches each destination block whole: a half-block write keeps the other
    // half, which on the device may be a read-modify-write of the 32-byte block (undocumented), so two instructions
    // filling the two halves of a block are ordered as writers of the same bytes (the Matmul API separates them by
    // PipeBarrier<PIPE_V>, data_copy_wrapper_utils.h TransDataNDBMatrix).
    std::vector<std::pair<uint64_t, uint64_t>> blocks;
    for (const auto& iv : writes) {
        const uint64_t b = iv.first / kBlock * kBlock;
        blocks.emplace_back(b, b + kBlock);
    }
    if (level0::Intersect(reads, blocks)) {
        Fail(file, line,
             std::string(api) + ": a destination block shares bytes with a source block; the documentation gives "
                                "TransDataTo5HD no overlap form: keep the destination apart from the sources");
    }
    Issue(c, Pipe::kV, false, InstrClass::kVecTransData, sizeof(T), repeats * kList * part / sizeof(T),
          static_cast<uint32_t>(repeats), file, line, api);
    for (const auto& iv : reads) UbRead(c, iv.first, iv.second - iv.first, "srcList");
    if (kB8) {
        for (const auto& iv : blocks) UbRead(c, iv.first, kBlock, "dstList (the half kept)");
    }
    for (const auto& iv : blocks) UbWrite(c, iv.first, kBlock, "dstList");
    // The result: gather first (the checks above keep sources and destinations apart).
    constexpr uint64_t kElem = sizeof(T);
    const uint64_t per = part / kElem;  // elements per source part: 16
    for (uint64_t r = 0; r < repeats; ++r) {
        std::vector<uint8_t> out(kList * part);
        std::vector<uint8_t> def(kList * per, 0);
        for (uint64_t j = 0; j < kList; ++j) {          // destination entry j
            for (uint64_t i = 0; i < kList; ++i) {      // element i of it: element j of source entry i
                const uint64_t s = src[i] + r * src_step + src_off + j * kElem;
                std::memcpy(out.data() + j * part + i * kElem, c.ub.data() + s, kElem);
                def[j * per + i] = UbDefined(c, s, kElem) ? 1 : 0;
            }
        }
        for (uint64_t j = 0; j < kList; ++j) {
            const uint64_t d = dst[j] + r * dst_step + dst_off;
            std::memcpy(c.ub.data() + d, out.data() + j * part, part);
            for (uint64_t i = 0; i < per; ++i) SetUbDefined(c, d + i * kElem, kElem, def[j * per + i] != 0);
        }
    }
}

// The 8- and 16-bit part of the 8.1 interface's type list (inner_kernel_operator_vec_transpose_intf.cppm).
template <typename T>
constexpr bool kModelledType = std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> ||
                               std::is_same_v<T, int16_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, half>;

}  // namespace trans_data
}  // namespace aqo_emu

namespace AscendC {

template <typename T>
void TransDataTo5HD(const LocalTensor<T> (&dstLocalList)[NCHW_CONV_ADDR_LIST_SIZE],
                    const LocalTensor<T> (&srcLocalList)[NCHW_CONV_ADDR_LIST_SIZE],
                    const TransDataTo5HDParams& nchwconvParams, AQO_EMU_SRC)
{
    static_assert(aqo_emu::trans_data::kModelledType<T>,
                  "emulated TransDataTo5HD: int8_t / uint8_t / int16_t / uint16_t / half (the 8.1 list's 32-bit "
                  "types are not modelled; bfloat16_t is not in it)");
    aqo_emu::trans_data::RefuseUnmodelledSoc(aqo_file, aqo_line);
    uint64_t dst[16], src[16];
    int dst_rec[16], src_rec[16];
    // As the CPU-debug checks (kernel_check_func.h CheckFunTransDataTo5HD; asc-tools' TransdataCheckTensorSize):
    // each list tensor holds repeatTimes * repeat stride + 1 blocks from its start.
    const uint64_t reps = nchwconvParams.repeatTimes;
    const uint64_t dst_need = reps * nchwconvParams.dstRepStride * 32 + 32;
    const uint64_t src_need = reps * nchwconvParams.srcRepStride * 32 + 32;
    for (int i = 0; i < 16; ++i) {
        const uint64_t dst_has = static_cast<uint64_t>(dstLocalList[i].size_) * sizeof(T);
        const uint64_t src_has = static_cast<uint64_t>(srcLocalList[i].size_) * sizeof(T);
        if (reps > 0 && (dst_has < dst_need || src_has < src_need)) {
            const bool d = dst_has < dst_need;
            aqo_emu::Fail(aqo_file, aqo_line,
                          std::string("TransDataTo5HD: ") + (d ? "dstLocalList[" : "srcLocalList[") +
                              std::to_string(i) + "] holds " + std::to_string(d ? dst_has : src_has) +
                              " bytes; its blocks of " + std::to_string(reps) + " iterations need " +
                              std::to_string(d ? dst_need : src_need) + " (repeatTimes * repeat stride + 1 blocks "
                              "of 32 bytes, as the CPU-debug checks count)");
        }
        dst[i] = dstLocalList[i].byte_;
        src[i] = srcLocalList[i].byte_;
        dst_rec[i] = dstLocalList[i].record_;
        src_rec[i] = srcLocalList[i].record_;
    }
    aqo_emu::trans_data::Run<T>(dst, dst_rec, src, src_rec, nchwconvParams, aqo_file, aqo_line);
}

template <typename T>
void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                    const TransDataTo5HDParams& nchwconvParams, AQO_EMU_SRC)
{
    static_assert(aqo_emu::trans_data::kModelledType<T>,
                  "emulated TransDataTo5HD: int8_t / uint8_t / int16_t / uint16_t / half (the 8.1 list's 32-bit "
                  "types are not modelled; bfloat16_t is not in it)");
    aqo_emu::trans_data::RefuseUnmodelledSoc(aqo_file, aqo_line);
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    uint64_t dst[16], src[16];
    int dst_rec[16], src_rec[16];
    for (uint64_t i = 0; i < 16; ++i) {
        dst[i] = aqo_emu::trans_data::UbByteOf(c, dstList[i], aqo_file, aqo_line, "dstList", i);
        src[i] = aqo_emu::trans_data::UbByteOf(c, srcList[i], aqo_file, aqo_line, "srcList", i);
        dst_rec[i] = aqo_emu::trans_data::RecordAt(c, dst[i]);
        src_rec[i] = aqo_emu::trans_data::RecordAt(c, src[i]);
    }
    aqo_emu::trans_data::Run<T>(dst, dst_rec, src, src_rec, nchwconvParams, aqo_file, aqo_line);
}

}  // namespace AscendC
