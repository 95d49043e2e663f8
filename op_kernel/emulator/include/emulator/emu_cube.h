// The level-0 cube instructions of a kernel's own pipeline on ascend310p (dav_m200), int8 / uint8 into int32:
//   LoadData(dst A2 / B2, src A1 / B1, LoadData2DParams)         L1 -> L0A / L0B, MTE1
//   Mmad(dst CO1, fm A2, filter B2, MmadParams)                   L0A x L0B -> L0C, M
//   DataCopy(dst UB, src CO1, DataCopyParams, DataCopyEnhancedParams)   L0C -> UB (BLOCK_MODE_MATRIX), V
// Sources: the 8.1 headers (interface/kernel_operator_mm_intf.h, kernel_struct_mm.h, kernel_struct_data_copy.h;
// impl/kernel_operator_mm_load2d_impl.h; dav_m200/kernel_operator_mm_impl.h, kernel_operator_data_copy_impl.h
// DataCopyL0C2UBImpl; inner_kernel_operator_data_copy_intf.cppm), the API pages LoadData (2D), Mmad, DataCopy (L0C to
// UB) and the fractal-format page (Zz x Zn = Nz), and how CANN 8.1's Matmul API drives them on v200.
//
// Layouts (M1 = ceil(m / 16), N1 = ceil(n / 16), K1 = ceil(k / 32), byte offsets from the tensor's start):
//   L0A (Zz) A[i][p]: ((i / 16) * K1 + p / 32) * 512 + (i % 16) * 32 + p % 32
//   L0B (Zn) B[p][j]: ((p / 32) * N1 + j / 16) * 512 + (j % 16) * 32 + p % 32
//   L0C (Nz) C[i][j]: 4 * (((j / 16) * M1 + i / 16) * 256 + (i % 16) * 16 + j % 16)
// LoadData moves whole 512-byte fractals: repeat r reads src fractal startIndex + r * srcStride and writes dst fractal
// r * (dstGap + 1). The L0C -> UB copy in BLOCK_MODE_MATRIX moves blockCount bursts of blockLen 1024-byte fractals,
// srcStride fractals apart (a gap) in L0C and dstStride 32-byte blocks apart (a gap) in UB.
//
// Refused (the strict side; the CPU-debug checkers of these APIs ship only as a library, so where a rule is not in
// the headers or the pages, the doubtful case is refused):
// - any of them outside ascend310p (the split SoCs' cube cores are not modelled for kernels);
// - LoadData: src not in L1 or dst not in L0A / L0B; src not 32-byte or dst not 512-byte aligned; a type outside
//   int8 / uint8 / int16 / uint16 / half (v200 CheckLoadData2DType); repeatTimes 0; ifTranspose (b16 only on the
//   page; not modelled for b16 either); sid or addrMode other than 0 (unused for L1 -> L0 on v200); a fractal outside
//   its tensor's buffer;
// - Mmad: a type triple other than (int32, int8, int8), (int32, uint8, int8), (int32, uint8, uint8) (v200's list;
//   its half forms are not modelled; a compile error); operands outside L0C / L0A / L0B; dst not 1024-byte or fm /
//   filter not 512-byte aligned; m, n or k outside 1..4095; m == 1 (the page's GEMV mode reads A as a row: not
//   modelled); isBias, fmOffset, enSsparse, the Winograd flags, unitFlag, kDirectionAlign or cmatrixSource set (not
//   passed on v200 or unsupported there); a footprint outside its buffer; an A or B element inside m x k / k x n never
//   written, or (accumulating) a C element inside m x n never written; a K tail (k not a multiple of 32) whose A / B
//   elements are not written zeros (the page's "ignored" is shown for half; 8.1's Matmul zero-fills it on v200); an
//   accumulation leaving int32 (whether the unit saturates or wraps is not documented). C's elements outside m x n
//   (the last fractals' rows / columns) are left undefined: what the unit writes there is not documented.
// - L0C -> UB: int32 -> int32 only; blockMode other than BLOCK_MODE_MATRIX (NORMAL asserts; VECTOR not modelled);
//   deqScale, isRelu, padMode, sidStoreMode or deqTensorAddr set; src not 1024-byte or dst not 32-byte aligned;
//   blockCount outside 1..4095, blockLen outside 1..65535; a burst outside its buffer.
// Ordering: L0A / L0B are written by MTE1 and read by M; L0C written by M and read by M (accumulating) and V (the copy
// out), per 32-byte block (emu_order.cpp LocalAccess). An Mmad after an Mmad on the same L0C is ordered by the cube
// pipe, as CANN 8.1's Matmul API relies on (a K loop's accumulating Mmads without a barrier between them), except after
// an Mmad of fewer than 10 fractals of C ((m / 16) x (n / 16) < 10), which needs PipeBarrier<PIPE_M> before the pipe's
// next instruction or flag (the Mmad page; the API's barrier in stage/compute/mmad_compute.h).
// Trace: LoadData an MTE1 dma_l1_to_l0 of its bytes; Mmad an M cube_mmad of 16 M1 x 16 N1 x 32 K1 MACs (whole
// fractals); the copy a V fix_out of its bytes (the timeline's L0C -> UB rate).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "emulator/emu_datacopy.h"

namespace AscendC {

struct LoadData2DParams {
    LoadData2DParams() {}
    LoadData2DParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn, const uint16_t srcStrideIn,
                     const uint8_t sidIn, const uint16_t dstGapIn, const bool ifTransposeIn, const uint8_t addrModeIn)
        : startIndex(startIndexIn),
          dstGap(dstGapIn),
          srcStride(srcStrideIn),
          ifTranspose(ifTransposeIn),
          repeatTimes(repeatTimesIn),
          sid(sidIn),
          addrMode(addrModeIn)
    {}
    uint16_t startIndex = 0;
    uint16_t dstGap = 0;
    uint16_t srcStride = 0;
    bool ifTranspose = 0;
    uint8_t repeatTimes = 0;
    uint8_t sid = 0;
    uint8_t addrMode = 0;
};
using LoadData2dParams = LoadData2DParams;

struct MmadParams {
    MmadParams() {}
    MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const bool isBiasIn, const int32_t fmOffsetIn,
               const bool enSsparseIn, const bool enWinogradAIn, const bool enWinogradBIn)
        : m(mIn),
          n(nIn),
          k(kIn),
          isBias(isBiasIn),
          fmOffset(fmOffsetIn),
          enSsparse(enSsparseIn),
          enWinogradA(enWinogradAIn),
          enWinogradB(enWinogradBIn)
    {}
    MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn, const uint8_t unitFlagIn,
               const bool cmatrixSourceIn, const bool cmatrixInitValIn)
        : m(mIn), n(nIn), k(kIn), unitFlag(unitFlagIn), cmatrixSource(cmatrixSourceIn), cmatrixInitVal(cmatrixInitValIn)
    {}
    uint16_t m = 0;
    uint16_t n = 0;
    uint16_t k = 0;
    bool isBias = false;
    int32_t fmOffset = 0;
    bool enSsparse = false;
    bool enWinogradA = false;
    bool enWinogradB = false;
    uint8_t unitFlag = 0;
    bool kDirectionAlign = false;
    bool cmatrixSource = false;
    bool cmatrixInitVal = true;
};

enum class BlockMode : uint8_t {
    BLOCK_MODE_NORMAL = 0,
    BLOCK_MODE_MATRIX,
    BLOCK_MODE_VECTOR,
    BLOCK_MODE_SMALL_CHANNEL,
    BLOCK_MODE_DEPTHWISE,
};
enum class DeqScale : uint8_t { DEQ_NONE = 0, DEQ, VDEQ, DEQ8, VDEQ8, DEQ16, VDEQ16 };
enum class pad_t : uint8_t { PAD_NONE = 0, PAD_MODE1, PAD_MODE2, PAD_MODE3, PAD_MODE4, PAD_MODE5 };

struct DataCopyEnhancedParams {
    DataCopyEnhancedParams() {}
    DataCopyEnhancedParams(const BlockMode blockModeIn, const DeqScale deqScaleIn, const uint64_t deqValueIn,
                           const uint8_t sidStoreModeIn, const bool isReluIn, const pad_t padModeIn,
                           const uint64_t padValueIn)
        : blockMode(blockModeIn),
          deqScale(deqScaleIn),
          deqValue(deqValueIn),
          sidStoreMode(sidStoreModeIn),
          isRelu(isReluIn),
          padMode(padModeIn),
          padValue(padValueIn)
    {}
    BlockMode blockMode = BlockMode::BLOCK_MODE_NORMAL;
    DeqScale deqScale = DeqScale::DEQ_NONE;
    uint64_t deqValue = 0;
    uint8_t sidStoreMode = 0;
    bool isRelu = false;
    pad_t padMode = pad_t::PAD_NONE;
    uint64_t padValue = 0;
    uint64_t deqTensorAddr = 0;
};

}  // namespace AscendC

namespace aqo_emu {
namespace cube {

constexpr uint64_t kFractal = 512;     // an L0A / L0B fractal: 16 rows of 32 bytes
constexpr uint64_t kCFractal = 1024;   // an int32 L0C fractal: 16 x 16

inline void RequireCoupledSoc(CoreContext& c, const char* file, int line, const char* api)
{
    if (c.soc.id != SocId::kAscend310P) {
        Fail(file, line, std::string(api) + " on " + c.soc.name + ": a kernel's own cube instructions are modelled on "
                                                                  "ascend310p only");
    }
}

inline void CheckAligned(uint64_t byte, uint64_t align, Mem mem, const char* file, int line, const char* api,
                         const char* operand)
{
    if (byte % align != 0) {
        Fail(file, line, std::string(api) + ": " + operand + " " + MemName(mem) + " address " + std::to_string(byte) +
                             " is not " + std::to_string(align) + "-byte aligned");
    }
}

inline void CheckInBuffer(const AllocRecord& r, uint64_t at, uint64_t bytes, Mem mem, const char* file, int line,
                          const char* api, const char* operand)
{
    if (at < r.begin || at + bytes > r.end) {
        Fail(file, line, std::string(api) + ": " + operand + " accesses " + MemName(mem) + " bytes [" +
                             std::to_string(at) + ", " + std::to_string(at + bytes) + ") outside its buffer [" +
                             std::to_string(r.begin) + ", " + std::to_string(r.end) + ") allocated at " + r.file +
                             ":" + std::to_string(r.line));
    }
}

template <typename T>
void LoadData(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
              const AscendC::LoadData2DParams& p, const char* file, int line)
{
    const char* api = "LoadData (2D)";
    CoreContext& c = Ctx(file, line);
    RequireCoupledSoc(c, file, line, api);
    const AllocRecord& sr = CheckLocalRecord(c, src.record_, Mem::kL1, file, line, api, "src");
    const Mem dmem = dst.record_ >= 0 && dst.record_ < static_cast<int>(c.records.size())
                         ? c.records[dst.record_].mem
                         : Mem::kUb;
    if (dmem != Mem::kL0A && dmem != Mem::kL0B) {
        Fail(file, line, std::string(api) + ": dst is " + (dst.record_ < 0 ? "not an allocated tensor" :
                                                           std::string("a ") + MemName(dmem) + " tensor") +
                             "; LoadData from L1 writes L0A (A2) or L0B (B2)");
    }
    const AllocRecord& dr = CheckLocalRecord(c, dst.record_, dmem, file, line, api, "dst");
    CheckAligned(src.byte_, 32, Mem::kL1, file, line, api, "src");
    CheckAligned(dst.byte_, kFractal, dmem, file, line, api, "dst");
    if (p.repeatTimes == 0) {
        Fail(file, line, std::string(api) + ": repeatTimes 0 is refused (a no-operation in newer pages, refused by the "
                                            "8.1 CPU checks' reading of the same field)");
    }
    if (p.ifTranspose) {
        Fail(file, line, std::string(api) + ": ifTranspose is " +
                             (sizeof(T) == 1 ? "for 16-bit elements only (the LoadData page); an int8 B is turned "
                                               "before L1 on ascend310p (TransDataTo5HD)"
                                             : "not modelled"));
    }
    if (p.sid != 0 || p.addrMode != 0) {
        Fail(file, line, std::string(api) + ": sid " + std::to_string(p.sid) + ", addrMode " +
                             std::to_string(p.addrMode) + ": L1 -> L0 takes neither (keep both 0)");
    }
    const uint64_t reps = p.repeatTimes;
    for (uint64_t r = 0; r < reps; ++r) {
        CheckInBuffer(sr, src.byte_ + (p.startIndex + r * p.srcStride) * kFractal, kFractal, Mem::kL1, file, line,
                      api, "src");
        CheckInBuffer(dr, dst.byte_ + r * (p.dstGap + 1ull) * kFractal, kFractal, dmem, file, line, api, "dst");
    }
    Issue(c, Pipe::kMte1, false, InstrClass::kDmaL1ToL0, sizeof(T), reps * kFractal, static_cast<uint32_t>(reps), file,
          line, api);
    LocalMem& l1 = c.Local(Mem::kL1);
    LocalMem& l0 = c.Local(dmem);
    for (uint64_t r = 0; r < reps; ++r) {
        LocalAccess(c, Mem::kL1, src.byte_ + (p.startIndex + r * p.srcStride) * kFractal, kFractal, false, "src");
    }
    for (uint64_t r = 0; r < reps; ++r) {
        const uint64_t s = src.byte_ + (p.startIndex + r * p.srcStride) * kFractal;
        const uint64_t d = dst.byte_ + r * (p.dstGap + 1ull) * kFractal;
        LocalAccess(c, dmem, d, kFractal, true, "dst");
        std::memcpy(l0.bytes.data() + d, l1.bytes.data() + s, kFractal);
        std::memcpy(l0.defined.data() + d, l1.defined.data() + s, kFractal);
    }
}

template <typename T> constexpr bool kCubeInput = std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>;

template <typename DstT, typename Src0T, typename Src1T>
void Mmad(const AscendC::LocalTensor<DstT>& dst, const AscendC::LocalTensor<Src0T>& fm,
          const AscendC::LocalTensor<Src1T>& filter, const AscendC::MmadParams& p, const char* file, int line)
{
    const char* api = "Mmad";
    CoreContext& c = Ctx(file, line);
    RequireCoupledSoc(c, file, line, api);
    const AllocRecord& cr = CheckLocalRecord(c, dst.record_, Mem::kL0C, file, line, api, "dst");
    const AllocRecord& ar = CheckLocalRecord(c, fm.record_, Mem::kL0A, file, line, api, "fm");
    const AllocRecord& br = CheckLocalRecord(c, filter.record_, Mem::kL0B, file, line, api, "filter");
    CheckAligned(dst.byte_, kCFractal, Mem::kL0C, file, line, api, "dst");
    CheckAligned(fm.byte_, kFractal, Mem::kL0A, file, line, api, "fm");
    CheckAligned(filter.byte_, kFractal, Mem::kL0B, file, line, api, "filter");
    for (const auto& [name, v] : {std::pair<const char*, uint32_t>{"m", p.m}, {"n", p.n}, {"k", p.k}}) {
        if (v < 1 || v > 4095) {
            Fail(file, line, std::string(api) + ": " + name + " " + std::to_string(v) +
                                 " is outside 1..4095 (a 12-bit field; 0 is refused)");
        }
    }
    if (p.m == 1) {
        Fail(file, line, std::string(api) + ": m 1 is the unit's GEMV mode (A read as one row, not in fractals: the "
                                            "Mmad page); not modelled: pad A to two or more rows");
    }
    if (p.isBias || p.fmOffset != 0 || p.enSsparse || p.enWinogradA || p.enWinogradB || p.unitFlag != 0 ||
        p.kDirectionAlign || p.cmatrixSource) {
        Fail(file, line, std::string(api) + " on " + c.soc.name + ": isBias, fmOffset, enSsparse, enWinogradA / B, "
                                            "unitFlag, kDirectionAlign and cmatrixSource are not taken there (the "
                                            "v200 implementation passes none of them on, or refuses them)");
    }
    const uint64_t m = p.m, n = p.n, k = p.k;
    const uint64_t m1 = (m + 15) / 16, n1 = (n + 15) / 16, k1 = (k + 31) / 32;
    CheckInBuffer(ar, fm.byte_, m1 * k1 * kFractal, Mem::kL0A, file, line, api, "fm (M1 x K1 fractals)");
    CheckInBuffer(br, filter.byte_, k1 * n1 * kFractal, Mem::kL0B, file, line, api, "filter (K1 x N1 fractals)");
    CheckInBuffer(cr, dst.byte_, m1 * n1 * kCFractal, Mem::kL0C, file, line, api, "dst (M1 x N1 fractals)");
    const bool init = p.cmatrixInitVal;
    RequireBarrierAfterSmallMmad(c, file, line, api);
    Issue(c, Pipe::kM, false, InstrClass::kCubeMmad, 1, 16 * m1 * 16 * n1 * 32 * k1, 0, file, line, api);
    OrderAfterEarlierMmads(c);
    NoteMmad(c, p.m, p.n, file, line);
    LocalAccess(c, Mem::kL0A, fm.byte_, m1 * k1 * kFractal, false, "fm");
    LocalAccess(c, Mem::kL0B, filter.byte_, k1 * n1 * kFractal, false, "filter");
    if (!init) LocalAccess(c, Mem::kL0C, dst.byte_, m1 * n1 * kCFractal, false, "dst (accumulated)");
    LocalAccess(c, Mem::kL0C, dst.byte_, m1 * n1 * kCFractal, true, "dst");
    LocalMem& la = c.Local(Mem::kL0A);
    LocalMem& lb = c.Local(Mem::kL0B);
    LocalMem& lc = c.Local(Mem::kL0C);
    auto a_at = [&](uint64_t i, uint64_t q) {
        return fm.byte_ + ((i / 16) * k1 + q / 32) * kFractal + (i % 16) * 32 + q % 32;
    };
    auto b_at = [&](uint64_t q, uint64_t j) {
        return filter.byte_ + ((q / 32) * n1 + j / 16) * kFractal + (j % 16) * 32 + q % 32;
    };
    auto c_at = [&](uint64_t i, uint64_t j) {
        return dst.byte_ + 4 * (((j / 16) * m1 + i / 16) * 256 + (i % 16) * 16 + j % 16);
    };
    for (uint64_t i = 0; i < m; ++i) {
        for (uint64_t q = 0; q < k; ++q) {
            if (!la.defined[a_at(i, q)]) {
                Fail(file, line, std::string(api) + ": A[" + std::to_string(i) + "][" + std::to_string(q) +
                                     "] (fm, L0A byte " + std::to_string(a_at(i, q)) + ") was never written");
            }
        }
    }
    for (uint64_t q = 0; q < k; ++q) {
        for (uint64_t j = 0; j < n; ++j) {
            if (!lb.defined[b_at(q, j)]) {
                Fail(file, line, std::string(api) + ": B[" + std::to_string(q) + "][" + std::to_string(j) +
                                     "] (filter, L0B byte " + std::to_string(b_at(q, j)) + ") was never written");
            }
        }
    }
    // The K tail (k up to 32 K1 inside the last K fractal): the page says invalid data is ignored, with a half
    // example; 8.1's Matmul on v200 zero-fills it anyway (data_copy_wrapper_using_ub_nd.h). Held to written zeros, so
    // that the product is the same whether the unit ignores the tail or multiplies it.
    auto tail_zero = [&](const LocalMem& mem, uint64_t at, const char* what, uint64_t r, uint64_t q) {
        if (!mem.defined[at] || mem.bytes[at] != 0) {
            Fail(file, line, std::string(api) + ": k " + std::to_string(k) + " leaves a K tail in the last fractal; " +
                                 what + "[" + std::to_string(r) + "][" + std::to_string(q) + "] there is " +
                                 (mem.defined[at] ? "not zero" : "never written") + ": whether the unit ignores the "
                                 "tail is documented for half only; write zeros there (as 8.1's Matmul does)");
        }
    };
    for (uint64_t q = k; q < 32 * k1; ++q) {
        for (uint64_t i = 0; i < m; ++i) tail_zero(la, a_at(i, q), "A", i, q);
        for (uint64_t j = 0; j < n; ++j) tail_zero(lb, b_at(q, j), "B", q, j);
    }
    std::vector<int32_t> out(m * n);
    for (uint64_t i = 0; i < m; ++i) {
        for (uint64_t j = 0; j < n; ++j) {
            int64_t acc = 0;
            for (uint64_t q = 0; q < k; ++q) {
                Src0T a;
                Src1T b;
                std::memcpy(&a, la.bytes.data() + a_at(i, q), 1);
                std::memcpy(&b, lb.bytes.data() + b_at(q, j), 1);
                acc += static_cast<int64_t>(a) * static_cast<int64_t>(b);
            }
            if (!init) {
                const uint64_t at = c_at(i, j);
                if (!lc.defined[at]) {
                    Fail(file, line, std::string(api) + ": accumulating into C[" + std::to_string(i) + "][" +
                                         std::to_string(j) + "] (L0C byte " + std::to_string(at) +
                                         "), which was never written (cmatrixInitVal false)");
                }
                int32_t prev;
                std::memcpy(&prev, lc.bytes.data() + at, 4);
                acc += prev;
            }
            if (acc < INT32_MIN || acc > INT32_MAX) {
                Fail(file, line, std::string(api) + ": C[" + std::to_string(i) + "][" + std::to_string(j) + "] = " +
                                     std::to_string(acc) + " leaves int32; whether the unit saturates or wraps is not "
                                     "documented");
            }
            out[i * n + j] = static_cast<int32_t>(acc);
        }
    }
    // the whole footprint: undefined (rows / columns beyond m x n), then the results
    std::fill(lc.defined.begin() + dst.byte_, lc.defined.begin() + dst.byte_ + m1 * n1 * kCFractal, 0);
    for (uint64_t i = 0; i < m; ++i) {
        for (uint64_t j = 0; j < n; ++j) {
            std::memcpy(lc.bytes.data() + c_at(i, j), &out[i * n + j], 4);
            std::fill(lc.defined.begin() + c_at(i, j), lc.defined.begin() + c_at(i, j) + 4, 1);
        }
    }
}

template <typename T>
void CopyL0CToUb(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                 const AscendC::DataCopyParams& p, const AscendC::DataCopyEnhancedParams& e, const char* file, int line)
{
    const char* api = "DataCopy L0C->UB";
    CoreContext& c = Ctx(file, line);
    RequireCoupledSoc(c, file, line, api);
    static_assert(std::is_same_v<T, int32_t>, "emulated DataCopy L0C -> UB: int32_t only (int32 -> int32)");
    const AllocRecord& sr = CheckLocalRecord(c, src.record_, Mem::kL0C, file, line, api, "src");
    CheckRecord(c, dst.record_, file, line, api, "dst");
    if (e.blockMode != AscendC::BlockMode::BLOCK_MODE_MATRIX) {
        Fail(file, line, std::string(api) + ": blockMode " + std::to_string(static_cast<int>(e.blockMode)) +
                             ": BLOCK_MODE_MATRIX only (NORMAL asserts on v200; the others are not modelled)");
    }
    if (e.deqScale != AscendC::DeqScale::DEQ_NONE || e.isRelu || e.padMode != AscendC::pad_t::PAD_NONE ||
        e.sidStoreMode != 0 || e.deqTensorAddr != 0) {
        Fail(file, line, std::string(api) + ": deqScale, isRelu, padMode, sidStoreMode and deqTensorAddr must be "
                                            "unset for an int32 -> int32 copy (not modelled otherwise)");
    }
    CheckAligned(src.byte_, kCFractal, Mem::kL0C, file, line, api, "src");
    CheckUbAligned(c, dst.byte_, file, line, api, "dst");
    AscendC::emu_detail::CheckDataCopyFields(p.blockCount, p.blockLen, file, line, api);
    const uint64_t burst = p.blockLen * kCFractal;
    for (uint32_t b = 0; b < p.blockCount; ++b) {
        CheckInBuffer(sr, src.byte_ + b * (burst + p.srcStride * kCFractal), burst, Mem::kL0C, file, line, api, "src");
        CheckUbRange(c, dst.record_, dst.byte_ + b * (burst + p.dstStride * 32ull), burst, file, line, api, "dst");
    }
    Issue(c, Pipe::kV, false, InstrClass::kFixOut, 4, p.blockCount * burst, p.blockCount, file, line, api);
    LocalMem& lc = c.Local(Mem::kL0C);
    for (uint32_t b = 0; b < p.blockCount; ++b) {
        LocalAccess(c, Mem::kL0C, src.byte_ + b * (burst + p.srcStride * kCFractal), burst, false, "src");
    }
    for (uint32_t b = 0; b < p.blockCount; ++b) {
        const uint64_t s = src.byte_ + b * (burst + p.srcStride * kCFractal);
        const uint64_t d = dst.byte_ + b * (burst + p.dstStride * 32ull);
        UbWrite(c, d, burst, "dst");
        std::memcpy(c.ub.data() + d, lc.bytes.data() + s, burst);
        std::memcpy(c.ub_defined.data() + d, lc.defined.data() + s, burst);
    }
}

}  // namespace cube
}  // namespace aqo_emu

namespace AscendC {

template <typename T>
void LoadData(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LoadData2DParams& loadDataParams,
              AQO_EMU_SRC)
{
    static_assert(std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> || std::is_same_v<T, int16_t> ||
                      std::is_same_v<T, uint16_t> || std::is_same_v<T, half>,
                  "LoadData (2D) on v200: int8_t / uint8_t / int16_t / uint16_t / half (CheckLoadData2DType)");
    aqo_emu::cube::LoadData(dstLocal, srcLocal, loadDataParams, aqo_file, aqo_line);
}

template <typename DstT, typename Src0T, typename Src1T>
void Mmad(const LocalTensor<DstT>& dstLocal, const LocalTensor<Src0T>& fmLocal, const LocalTensor<Src1T>& filterLocal,
          const MmadParams& mmadParams, AQO_EMU_SRC)
{
    static_assert(std::is_same_v<DstT, int32_t> && aqo_emu::cube::kCubeInput<Src0T> &&
                      aqo_emu::cube::kCubeInput<Src1T> &&
                      !(std::is_same_v<Src0T, int8_t> && std::is_same_v<Src1T, uint8_t>),
                  "emulated Mmad: (int32_t, int8_t, int8_t), (int32_t, uint8_t, int8_t), (int32_t, uint8_t, uint8_t) "
                  "only (v200's integer list; its half forms are not modelled)");
    aqo_emu::cube::Mmad(dstLocal, fmLocal, filterLocal, mmadParams, aqo_file, aqo_line);
}

// L0C -> UB (the overload with DataCopyEnhancedParams; inner_kernel_operator_data_copy_intf.cppm dispatches on the
// positions). UB -> L0C and the other enhanced paths are not modelled.
template <typename T>
void DataCopy(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const DataCopyParams& intriParams,
              const DataCopyEnhancedParams& enhancedParams, AQO_EMU_SRC)
{
    aqo_emu::cube::CopyL0CToUb(dstLocal, srcLocal, intriParams, enhancedParams, aqo_file, aqo_line);
}

}  // namespace AscendC
