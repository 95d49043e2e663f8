// DataCopy and DataCopyPad of the emulated AscendC API.
//
// Modelled rules (AscendC documentation of DataCopy / DataCopyPad; the CANN 8.1.RC1 headers):
// - DataCopy moves whole 32-byte blocks: the length (count form: count * sizeof(T); params form: blockLen
//   blocks) and the UB address must be 32-byte multiples. Strides of the params form are in 32-byte blocks on
//   both sides.
// - DataCopyPad (GM <-> UB, any byte length) exists on ascend910b and ascend910_95, not on ascend310p.
//   DataCopyExtParams: blockLen in bytes; GM -> UB: srcStride = GM gap in bytes, dstStride = UB gap in 32-byte
//   blocks; UB -> GM: srcStride = UB gap in blocks, dstStride = GM gap in bytes. In UB every block starts
//   32-byte aligned and occupies align32(leftPadding + blockLen + rightPadding) bytes. With isPad the padding
//   elements get paddingValue; the bytes up to the next 32-byte boundary are left undefined (the emulator
//   marks them uninitialised, so computing on them and copying them to GM is caught).
// - Every GM access is checked against the registered buffer and the GlobalTensor's extent; writes need a
//   writable buffer. UB -> GM copies of never-written UB bytes are refused (they would put garbage in GM).
// - The DMA instruction's fields (CANN 8.1 basic_api/impl/dav_c220|dav_m200/kernel_operator_data_copy_impl.h,
//   CheckDataCopyParams / CheckDataCopyPadParams): DataCopy blockCount 1..4095 (12 bits) and blockLen 1..65535
//   blocks (the count form is one block of count * sizeof(T) / 32 blocks); DataCopyPad blockCount 0..4095 and
//   blockLen 0..2097151 bytes (21 bits). The stride fields are as wide as the structs' types; on ascend910_95 the
//   UB-side stride of a DataCopyPad is at most 65535 blocks (asc-devkit DataCopyPad pages, constraints: GM -> UB
//   dstStride in [0, 65535], UB -> GM srcStride in [0, 65535] for Ascend 950PR / 950DT).
// - GM -> UB runs on MTE2, UB -> GM on MTE3, UB -> UB on V (or MTE3 in the ub_copy_on_mte3 run variant: the docs
//   disagree); emu_order.h checks every block against the other pipes.
#pragma once

#include <cstdint>
#include <string>

#include "emulator/emu_order.h"
#include "emulator/emu_tensor.h"

namespace aqo_emu {
// The pipe a UB -> UB DataCopy runs on in this run (RunOptions::ub_copy_on_mte3: the docs disagree).
inline Pipe UbCopyPipe(const CoreContext& c) { return c.options.ub_copy_on_mte3 ? Pipe::kMte3 : Pipe::kV; }
}  // namespace aqo_emu

namespace AscendC {

struct DataCopyParams {
    DataCopyParams() = default;
    DataCopyParams(uint16_t count, uint16_t len, uint16_t src_stride, uint16_t dst_stride)
        : blockCount(count), blockLen(len), srcStride(src_stride), dstStride(dst_stride)
    {}
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;
    uint16_t srcStride = 0;
    uint16_t dstStride = 0;
};

struct DataCopyExtParams {
    DataCopyExtParams() = default;
    DataCopyExtParams(uint16_t count, uint32_t len, uint32_t src_stride, uint32_t dst_stride, uint32_t rsv_in)
        : blockCount(count), blockLen(len), srcStride(src_stride), dstStride(dst_stride), rsv(rsv_in)
    {}
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
};

struct DataCopyPadParams {
    DataCopyPadParams() = default;
    DataCopyPadParams(bool is_pad, uint8_t left, uint8_t right, uint64_t value)
        : isPad(is_pad), leftPadding(left), rightPadding(right), paddingValue(value)
    {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
};

template <typename T> struct DataCopyPadExtParams {
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool is_pad, uint8_t left, uint8_t right, T value)
        : isPad(is_pad), leftPadding(left), rightPadding(right), paddingValue(value)
    {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = T();
};

namespace emu_detail {

constexpr uint64_t kMaxBlockCount = 4095;       // 12-bit burst count of the DMA instructions
constexpr uint64_t kMaxBlockLenBlocks = 65535;  // DataCopy: burst length in 32-byte blocks (16 bits)
constexpr uint64_t kMaxPadBlockLen = 2097151;   // DataCopyPad: burst length in bytes (21 bits)

// DataCopy's instruction fields: blockCount 1..4095, blockLen 1..65535 blocks.
inline void CheckDataCopyFields(uint64_t block_count, uint64_t block_len_blocks, const char* file, int line,
                                const char* api)
{
    if (block_count < 1 || block_count > kMaxBlockCount) {
        aqo_emu::Fail(file, line, std::string(api) + ": blockCount " + std::to_string(block_count) +
                                      " outside 1..4095 (a 12-bit field of the DMA instruction): split the copy");
    }
    if (block_len_blocks < 1 || block_len_blocks > kMaxBlockLenBlocks) {
        aqo_emu::Fail(file, line, std::string(api) + ": blockLen " + std::to_string(block_len_blocks) +
                                      " blocks of 32 bytes outside 1..65535 (the instruction's 16-bit burst length)");
    }
}

// ascend910_95's DataCopyPad: the UB-side stride (GM -> UB dstStride, UB -> GM srcStride) in [0, 65535] blocks.
inline void CheckDataCopyPadUbStride(const aqo_emu::CoreContext& c, uint64_t ub_stride_blocks, const char* field,
                                     const char* file, int line, const char* api)
{
    if (c.soc.id == aqo_emu::SocId::kAscend910_95 && ub_stride_blocks > 65535) {
        aqo_emu::Fail(file, line,
                      std::string(api) + ": " + field + " " + std::to_string(ub_stride_blocks) +
                          " blocks is outside [0, 65535], its range on " + c.soc.name +
                          " (the DataCopyPad page's constraints; 2^32 - 1 on ascend910b)");
    }
}

// DataCopyPad's: blockCount 0..4095, blockLen 0..2097151 bytes.
inline void CheckDataCopyPadFields(uint64_t block_count, uint64_t block_len_bytes, const char* file, int line,
                                   const char* api)
{
    if (block_count > kMaxBlockCount) {
        aqo_emu::Fail(file, line, std::string(api) + ": blockCount " + std::to_string(block_count) +
                                      " exceeds 4095 (a 12-bit field of the DMA instruction): split the copy");
    }
    if (block_len_bytes > kMaxPadBlockLen) {
        aqo_emu::Fail(file, line, std::string(api) + ": blockLen " + std::to_string(block_len_bytes) +
                                      " bytes exceeds 2097151 (the instruction's 21-bit burst length)");
    }
}

inline void FailUnaligned(const char* file, int line, const char* api, const std::string& what, uint64_t value)
{
    aqo_emu::Fail(file, line, std::string(api) + ": " + what + " " + std::to_string(value) +
                                  " is not a multiple of 32 bytes (DataCopy moves whole 32-byte blocks; use "
                                  "DataCopyPad where the SoC has it)");
}

// GM -> UB of blockCount blocks. gm_block / gm_gap / ub_gap in bytes; ub_block_bytes = UB bytes per block.
template <typename T>
void CopyGmToUb(aqo_emu::CoreContext& c, const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count,
                uint64_t gm_block, uint64_t gm_gap, uint64_t ub_block, uint64_t ub_gap, uint32_t left_pad_bytes,
                uint32_t right_pad_bytes, const T* pad_value, const char* file, int line, const char* api)
{
    aqo_emu::CheckElemTypeOnSoc(c, aqo_emu::ElemTraits<T>::kId, file, line, api);
    aqo_emu::CheckRecord(c, dst.record_, file, line, api, "dst (UB)");
    aqo_emu::CheckUbAligned(c, dst.byte_, file, line, api, "dst (UB)");
    const int region = src.Region(c, file, line, api);
    const uint64_t ub_total = count == 0 ? 0 : (count - 1) * (ub_block + ub_gap) + ub_block;
    const uint64_t gm_total = count == 0 ? 0 : (count - 1) * (gm_block + gm_gap) + gm_block;
    aqo_emu::CheckUbRange(c, dst.record_, dst.byte_, ub_total, file, line, api, "dst (UB)");
    const uint8_t* gm = reinterpret_cast<const uint8_t*>(src.ptr_);
    aqo_emu::CheckGmBounds(c, region, src.begin_, src.end_, gm, gm_total, false, file, line, api);
    for (uint32_t b = 0; b < count; ++b) {
        aqo_emu::CheckGmElementAligned(c, region, gm + b * (gm_block + gm_gap), sizeof(T), file, line, api);
    }
    aqo_emu::Issue(c, aqo_emu::Pipe::kMte2, false, aqo_emu::InstrClass::kDmaGmToUb, sizeof(T), count * gm_block,
                   count, file, line, api);
    const uint64_t gm_first = static_cast<uint64_t>(gm - (*c.gm)[region].base);
    if (gm_block == 0) {
        // DataCopyPad with blockLen 0 is a no-operation (documented for Atlas A2 / A3 and 950): not even its padding
        // is written, so a kernel that relied on the padding reads undefined UB.
        c.stats->dma_gm_to_ub++;
        return;
    }
    aqo_emu::TraceGmAccess(c, region, gm_first, count, gm_block, gm_block + gm_gap, false);
    for (uint32_t b = 0; b < count; ++b) {
        aqo_emu::GmRead(c, region, gm_first + b * (gm_block + gm_gap), gm_block);
        aqo_emu::UbWrite(c, dst.byte_ + b * (ub_block + ub_gap), ub_block, "dst (UB)");
    }
    for (uint32_t b = 0; b < count; ++b) {
        const uint64_t ub_at = dst.byte_ + b * (ub_block + ub_gap);
        const uint8_t* gm_at = gm + b * (gm_block + gm_gap);
        aqo_emu::SetUbDefined(c, ub_at, ub_block, false);
        if (pad_value != nullptr) {
            for (uint32_t i = 0; i < left_pad_bytes; i += sizeof(T)) {
                std::memcpy(c.ub.data() + ub_at + i, pad_value, sizeof(T));
            }
            for (uint32_t i = 0; i < right_pad_bytes; i += sizeof(T)) {
                std::memcpy(c.ub.data() + ub_at + left_pad_bytes + gm_block + i, pad_value, sizeof(T));
            }
            aqo_emu::SetUbDefined(c, ub_at, left_pad_bytes + gm_block + right_pad_bytes, true);
        } else {
            aqo_emu::SetUbDefined(c, ub_at + left_pad_bytes, gm_block, true);
        }
        std::memcpy(c.ub.data() + ub_at + left_pad_bytes, gm_at, gm_block);
        // GM bytes nothing wrote in this launch (an output or the workspace, never zeroed) arrive as garbage: the UB
        // bytes are uninitialised, so using them (a reduction, a scalar read, a copy to GM) fails there.
        const aqo_emu::GmRegion& gr = (*c.gm)[region];
        if (aqo_emu::GmTracksWrites(gr) && !gr.written.empty()) {
            const uint64_t g0 = gm_first + b * (gm_block + gm_gap);
            for (uint64_t i = 0; i < gm_block; ++i) {
                if (!gr.written[g0 + i]) c.ub_defined[ub_at + left_pad_bytes + i] = 0;
            }
        }
    }
    c.stats->gm_read_bytes += count * gm_block;
    c.stats->dma_gm_to_ub++;
}

template <typename T>
void CopyUbToGm(aqo_emu::CoreContext& c, const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count,
                uint64_t gm_block, uint64_t gm_gap, uint64_t ub_block, uint64_t ub_gap, const char* file, int line,
                const char* api)
{
    aqo_emu::CheckElemTypeOnSoc(c, aqo_emu::ElemTraits<T>::kId, file, line, api);
    aqo_emu::CheckRecord(c, src.record_, file, line, api, "src (UB)");
    aqo_emu::CheckUbAligned(c, src.byte_, file, line, api, "src (UB)");
    const int region = dst.Region(c, file, line, api);
    const uint64_t ub_total = count == 0 ? 0 : (count - 1) * (ub_block + ub_gap) + ub_block;
    const uint64_t gm_total = count == 0 ? 0 : (count - 1) * (gm_block + gm_gap) + gm_block;
    aqo_emu::CheckUbRange(c, src.record_, src.byte_, ub_total, file, line, api, "src (UB)");
    uint8_t* gm = reinterpret_cast<uint8_t*>(dst.ptr_);
    aqo_emu::CheckGmBounds(c, region, dst.begin_, dst.end_, gm, gm_total, true, file, line, api);
    for (uint32_t b = 0; b < count; ++b) {
        aqo_emu::CheckGmElementAligned(c, region, gm + b * (gm_block + gm_gap), sizeof(T), file, line, api);
    }
    for (uint32_t b = 0; b < count; ++b) {
        const uint64_t ub_at = src.byte_ + b * (ub_block + ub_gap);
        if (!aqo_emu::UbDefined(c, ub_at, gm_block)) {
            uint64_t first = 0;
            while (c.ub_defined[ub_at + first]) ++first;
            aqo_emu::Fail(file, line,
                          std::string(api) + ": copies UB bytes that were never written to GM (block " +
                              std::to_string(b) + ", byte " + std::to_string(first) + " of " +
                              std::to_string(gm_block) + "): the result would contain garbage");
        }
    }
    aqo_emu::Issue(c, aqo_emu::Pipe::kMte3, false, aqo_emu::InstrClass::kDmaUbToGm, sizeof(T), count * gm_block,
                   count, file, line, api);
    const uint64_t gm_first = static_cast<uint64_t>(gm - (*c.gm)[region].base);
    aqo_emu::TraceGmAccess(c, region, gm_first, count, gm_block, gm_block + gm_gap, true);
    for (uint32_t b = 0; b < count; ++b) {
        const uint64_t ub_at = src.byte_ + b * (ub_block + ub_gap);
        aqo_emu::UbRead(c, ub_at, gm_block, "src (UB)");
        aqo_emu::GmWrite(c, region, gm_first + b * (gm_block + gm_gap), gm_block, c.ub.data() + ub_at, api);
        std::memcpy(gm + b * (gm_block + gm_gap), c.ub.data() + ub_at, gm_block);
    }
    c.stats->gm_write_bytes += count * gm_block;
    c.stats->dma_ub_to_gm++;
}

inline void RequireDataCopyPad(aqo_emu::CoreContext& c, const char* file, int line)
{
    if (!c.soc.has_data_copy_pad) {
        aqo_emu::Fail(file, line,
                      "DataCopyPad is not available on " + c.soc.name +
                          " (the CANN headers mark it unsupported on ascend310p); copy whole 32-byte blocks with DataCopy");
    }
}

}  // namespace emu_detail

// ---- DataCopy, count form ----
template <typename T> void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    if (bytes % 32 != 0) emu_detail::FailUnaligned(aqo_file, aqo_line, "DataCopy GM->UB", "length (bytes)", bytes);
    emu_detail::CheckDataCopyFields(1, bytes / 32, aqo_file, aqo_line, "DataCopy GM->UB");
    emu_detail::CopyGmToUb<T>(c, dst, src, 1, bytes, 0, bytes, 0, 0, 0, nullptr, aqo_file, aqo_line,
                              "DataCopy GM->UB");
}

template <typename T> void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    if (bytes % 32 != 0) emu_detail::FailUnaligned(aqo_file, aqo_line, "DataCopy UB->GM", "length (bytes)", bytes);
    emu_detail::CheckDataCopyFields(1, bytes / 32, aqo_file, aqo_line, "DataCopy UB->GM");
    emu_detail::CopyUbToGm<T>(c, dst, src, 1, bytes, 0, bytes, 0, aqo_file, aqo_line, "DataCopy UB->GM");
}

namespace emu_detail {
// A UB -> UB copy whose source and destination overlap without coinciding: the order in which the device's
// copy_ubuf_to_ubuf moves the bytes is not documented (the emulator would use memmove), so it is refused, as the
// vector operations' partial overlaps are. Spans: first byte to last byte (strided copies count their gaps).
inline void CheckUbCopyOverlap(uint64_t dst, uint64_t dst_span, uint64_t src, uint64_t src_span, const char* file,
                               int line, const char* api)
{
    if (dst < src + src_span && src < dst + dst_span && dst != src) {
        aqo_emu::Fail(file, line,
                      std::string(api) + ": dst UB [" + std::to_string(dst) + ", " + std::to_string(dst + dst_span) +
                          ") overlaps src [" + std::to_string(src) + ", " + std::to_string(src + src_span) +
                          ") without coinciding: the order in which the device copies overlapping UB bytes is not "
                          "documented; copy through a separate buffer");
    }
}
}  // namespace emu_detail

template <typename T> void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    const char* api = "DataCopy UB->UB";
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    if (bytes % 32 != 0) emu_detail::FailUnaligned(aqo_file, aqo_line, api, "length (bytes)", bytes);
    emu_detail::CheckDataCopyFields(1, bytes / 32, aqo_file, aqo_line, api);
    aqo_emu::CheckRecord(c, dst.record_, aqo_file, aqo_line, api, "dst");
    aqo_emu::CheckRecord(c, src.record_, aqo_file, aqo_line, api, "src");
    aqo_emu::CheckUbAligned(c, dst.byte_, aqo_file, aqo_line, api, "dst");
    aqo_emu::CheckUbAligned(c, src.byte_, aqo_file, aqo_line, api, "src");
    aqo_emu::CheckUbRange(c, dst.record_, dst.byte_, bytes, aqo_file, aqo_line, api, "dst");
    aqo_emu::CheckUbRange(c, src.record_, src.byte_, bytes, aqo_file, aqo_line, api, "src");
    emu_detail::CheckUbCopyOverlap(dst.byte_, bytes, src.byte_, bytes, aqo_file, aqo_line, api);
    aqo_emu::Issue(c, aqo_emu::UbCopyPipe(c), false, aqo_emu::InstrClass::kDmaUbToUb, sizeof(T), bytes, 1, aqo_file,
                   aqo_line, api);
    aqo_emu::UbRead(c, src.byte_, bytes, "src");
    aqo_emu::UbWrite(c, dst.byte_, bytes, "dst");
    std::memmove(c.ub.data() + dst.byte_, c.ub.data() + src.byte_, bytes);
    std::memmove(c.ub_defined.data() + dst.byte_, c.ub_defined.data() + src.byte_, bytes);
    c.stats->dma_ub_to_ub++;
}

// ---- DataCopy, DataCopyParams form (lengths and strides in 32-byte blocks) ----
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    emu_detail::CheckDataCopyFields(p.blockCount, p.blockLen, aqo_file, aqo_line, "DataCopy GM->UB (DataCopyParams)");
    emu_detail::CopyGmToUb<T>(c, dst, src, p.blockCount, p.blockLen * 32ull, p.srcStride * 32ull,
                              p.blockLen * 32ull, p.dstStride * 32ull, 0, 0, nullptr, aqo_file, aqo_line,
                              "DataCopy GM->UB (DataCopyParams)");
}

template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    emu_detail::CheckDataCopyFields(p.blockCount, p.blockLen, aqo_file, aqo_line, "DataCopy UB->GM (DataCopyParams)");
    emu_detail::CopyUbToGm<T>(c, dst, src, p.blockCount, p.blockLen * 32ull, p.dstStride * 32ull,
                              p.blockLen * 32ull, p.srcStride * 32ull, aqo_file, aqo_line,
                              "DataCopy UB->GM (DataCopyParams)");
}

namespace emu_detail {

// ascend310p: DataCopy between UB and the kernel's own L1 (dav_m200 DataCopyUB2L1Impl on MTE3, DataCopyL12UBImpl on
// MTE1; both copy_*_to_* with blockCount / blockLen in 32-byte blocks and the strides in blocks, checked by
// CheckDataCopyParams; the UB side 32-byte aligned). The L1 side's address is in 32-byte units as well.
template <typename T>
void CopyBetweenUbAndL1(aqo_emu::CoreContext& c, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                        const DataCopyParams& p, bool to_l1, const char* file, int line)
{
    const char* api = to_l1 ? "DataCopy UB->L1 (DataCopyParams)" : "DataCopy L1->UB (DataCopyParams)";
    CheckDataCopyFields(p.blockCount, p.blockLen, file, line, api);
    const LocalTensor<T>& ub = to_l1 ? src : dst;
    const LocalTensor<T>& l1 = to_l1 ? dst : src;
    const char* ub_name = to_l1 ? "src" : "dst";
    const char* l1_name = to_l1 ? "dst" : "src";
    aqo_emu::CheckRecord(c, ub.record_, file, line, api, ub_name);
    aqo_emu::CheckLocalRecord(c, l1.record_, aqo_emu::Mem::kL1, file, line, api, l1_name);
    aqo_emu::CheckUbAligned(c, ub.byte_, file, line, api, ub_name);
    if (l1.byte_ % 32 != 0) {
        aqo_emu::Fail(file, line, std::string(api) + ": " + l1_name + " L1 address " + std::to_string(l1.byte_) +
                                      " is not 32-byte aligned (the copy addresses L1 in 32-byte blocks)");
    }
    const aqo_emu::AllocRecord& lr = c.records[l1.record_];
    const uint64_t block = p.blockLen * 32ull;
    const uint64_t ub_gap = (to_l1 ? p.srcStride : p.dstStride) * 32ull;
    const uint64_t l1_gap = (to_l1 ? p.dstStride : p.srcStride) * 32ull;
    for (uint32_t b = 0; b < p.blockCount; ++b) {
        aqo_emu::CheckUbRange(c, ub.record_, ub.byte_ + b * (block + ub_gap), block, file, line, api, ub_name);
        const uint64_t at = l1.byte_ + b * (block + l1_gap);
        if (at < lr.begin || at + block > lr.end) {
            aqo_emu::Fail(file, line, std::string(api) + ": " + l1_name + " accesses L1 bytes [" +
                                          std::to_string(at) + ", " + std::to_string(at + block) +
                                          ") outside its buffer [" + std::to_string(lr.begin) + ", " +
                                          std::to_string(lr.end) + ") allocated at " + lr.file + ":" +
                                          std::to_string(lr.line));
        }
    }
    aqo_emu::Issue(c, to_l1 ? aqo_emu::Pipe::kMte3 : aqo_emu::Pipe::kMte1, false,
                   to_l1 ? aqo_emu::InstrClass::kDmaUbToL1 : aqo_emu::InstrClass::kDmaL1ToUb, sizeof(T),
                   p.blockCount * block, p.blockCount, file, line, api);
    aqo_emu::LocalMem& l1m = c.Local(aqo_emu::Mem::kL1);
    for (uint32_t b = 0; b < p.blockCount; ++b) {
        const uint64_t u = ub.byte_ + b * (block + ub_gap);
        const uint64_t l = l1.byte_ + b * (block + l1_gap);
        if (to_l1) {
            aqo_emu::UbRead(c, u, block, ub_name);
            aqo_emu::LocalAccess(c, aqo_emu::Mem::kL1, l, block, true, l1_name);
            std::memcpy(l1m.bytes.data() + l, c.ub.data() + u, block);
            std::memcpy(l1m.defined.data() + l, c.ub_defined.data() + u, block);
        } else {
            aqo_emu::LocalAccess(c, aqo_emu::Mem::kL1, l, block, false, l1_name);
            aqo_emu::UbWrite(c, u, block, ub_name);
            std::memcpy(c.ub.data() + u, l1m.bytes.data() + l, block);
            std::memcpy(c.ub_defined.data() + u, l1m.defined.data() + l, block);
        }
    }
}

inline aqo_emu::Mem MemOfRecord(const aqo_emu::CoreContext& c, int record)
{
    return record >= 0 && record < static_cast<int>(c.records.size()) ? c.records[record].mem : aqo_emu::Mem::kUb;
}

}  // namespace emu_detail

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    const aqo_emu::Mem dm = emu_detail::MemOfRecord(c, dst.record_), sm = emu_detail::MemOfRecord(c, src.record_);
    if ((dm == aqo_emu::Mem::kL1) != (sm == aqo_emu::Mem::kL1)) {
        emu_detail::CopyBetweenUbAndL1(c, dst, src, p, dm == aqo_emu::Mem::kL1, aqo_file, aqo_line);
        return;
    }
    const char* api = "DataCopy UB->UB (DataCopyParams)";
    emu_detail::CheckDataCopyFields(p.blockCount, p.blockLen, aqo_file, aqo_line, api);
    aqo_emu::CheckRecord(c, dst.record_, aqo_file, aqo_line, api, "dst");
    aqo_emu::CheckRecord(c, src.record_, aqo_file, aqo_line, api, "src");
    aqo_emu::CheckUbAligned(c, dst.byte_, aqo_file, aqo_line, api, "dst");
    aqo_emu::CheckUbAligned(c, src.byte_, aqo_file, aqo_line, api, "src");
    const uint64_t block = p.blockLen * 32ull;
    for (uint32_t b = 0; b < p.blockCount; ++b) {
        aqo_emu::CheckUbRange(c, src.record_, src.byte_ + b * (block + p.srcStride * 32ull), block, aqo_file,
                              aqo_line, api, "src");
        aqo_emu::CheckUbRange(c, dst.record_, dst.byte_ + b * (block + p.dstStride * 32ull), block, aqo_file,
                              aqo_line, api, "dst");
    }
    if (p.blockCount > 0) {
        const uint64_t last = p.blockCount - 1u;
        emu_detail::CheckUbCopyOverlap(dst.byte_, last * (block + p.dstStride * 32ull) + block, src.byte_,
                                       last * (block + p.srcStride * 32ull) + block, aqo_file, aqo_line, api);
    }
    aqo_emu::Issue(c, aqo_emu::UbCopyPipe(c), false, aqo_emu::InstrClass::kDmaUbToUb, sizeof(T), p.blockCount * block,
                   p.blockCount, aqo_file, aqo_line, api);
    for (uint32_t b = 0; b < p.blockCount; ++b) {
        aqo_emu::UbRead(c, src.byte_ + b * (block + p.srcStride * 32ull), block, "src");
    }
    for (uint32_t b = 0; b < p.blockCount; ++b) {
        aqo_emu::UbWrite(c, dst.byte_ + b * (block + p.dstStride * 32ull), block, "dst");
    }
    for (uint32_t b = 0; b < p.blockCount; ++b) {
        const uint64_t s = src.byte_ + b * (block + p.srcStride * 32ull);
        const uint64_t d = dst.byte_ + b * (block + p.dstStride * 32ull);
        std::memmove(c.ub.data() + d, c.ub.data() + s, block);
        std::memmove(c.ub_defined.data() + d, c.ub_defined.data() + s, block);
    }
    c.stats->dma_ub_to_ub++;
}

// ---- DataCopyPad (ascend910b, ascend910_95) ----
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                 const DataCopyPadExtParams<T>& pad, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    emu_detail::RequireDataCopyPad(c, aqo_file, aqo_line);
    const char* api = "DataCopyPad GM->UB";
    emu_detail::CheckDataCopyPadFields(p.blockCount, p.blockLen, aqo_file, aqo_line, api);
    emu_detail::CheckDataCopyPadUbStride(c, p.dstStride, "dstStride", aqo_file, aqo_line, api);
    const uint32_t left = pad.leftPadding * sizeof(T);
    const uint32_t right = pad.rightPadding * sizeof(T);
    if (left > 32 || right > 32) {
        aqo_emu::Fail(aqo_file, aqo_line, std::string(api) + ": leftPadding / rightPadding exceed 32 bytes");
    }
    if (!pad.isPad && (left != 0 || right != 0)) {
        aqo_emu::Fail(aqo_file, aqo_line,
                      std::string(api) +
                          ": leftPadding / rightPadding without isPad: the padding value would be whatever an "
                          "earlier copy left in the pad register");
    }
    if (p.blockLen % sizeof(T) != 0) {
        aqo_emu::Fail(aqo_file, aqo_line, std::string(api) + ": blockLen " + std::to_string(p.blockLen) +
                                              " bytes is not a whole number of elements");
    }
    const uint64_t ub_block = aqo_emu::AlignUp32(static_cast<uint64_t>(left) + p.blockLen + right);
    emu_detail::CopyGmToUb<T>(c, dst, src, p.blockCount, p.blockLen, p.srcStride, ub_block, p.dstStride * 32ull,
                              left, right, pad.isPad ? &pad.paddingValue : nullptr, aqo_file, aqo_line, api);
}

template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    emu_detail::RequireDataCopyPad(c, aqo_file, aqo_line);
    emu_detail::CheckDataCopyPadFields(p.blockCount, p.blockLen, aqo_file, aqo_line, "DataCopyPad UB->GM");
    emu_detail::CheckDataCopyPadUbStride(c, p.srcStride, "srcStride", aqo_file, aqo_line, "DataCopyPad UB->GM");
    // The DataCopyPad (UB -> GM) page: blockLen must be a multiple of sizeof(T) (the 8.1 headers check it for
    // GM -> UB only; a partial element's bytes would go to GM from a half-written element)
    if (p.blockLen % sizeof(T) != 0) {
        aqo_emu::Fail(aqo_file, aqo_line, "DataCopyPad UB->GM: blockLen " + std::to_string(p.blockLen) +
                                              " bytes is not a whole number of elements");
    }
    const uint64_t ub_block = aqo_emu::AlignUp32(p.blockLen);
    emu_detail::CopyUbToGm<T>(c, dst, src, p.blockCount, p.blockLen, p.dstStride, ub_block, p.srcStride * 32ull,
                              aqo_file, aqo_line, "DataCopyPad UB->GM");
}

// The older DataCopyParams / DataCopyPadParams forms (blockLen in bytes, same stride units as above).
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                 const DataCopyPadParams& pad, AQO_EMU_SRC)
{
    DataCopyExtParams e(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0);
    T value;
    std::memcpy(&value, &pad.paddingValue, sizeof(T) <= sizeof(uint64_t) ? sizeof(T) : sizeof(uint64_t));
    DataCopyPadExtParams<T> ep(pad.isPad, pad.leftPadding, pad.rightPadding, value);
    DataCopyPad(dst, src, e, ep, aqo_file, aqo_line);
}

template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, AQO_EMU_SRC)
{
    DataCopyExtParams e(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0);
    DataCopyPad(dst, src, e, aqo_file, aqo_line);
}

}  // namespace AscendC
