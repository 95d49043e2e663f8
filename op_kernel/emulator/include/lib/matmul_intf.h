// lib/matmul_intf.h of the AscendC CPU emulator: the subset of the Matmul high-level API that
// op_kernel/aqo_qlinear_matmul.cpp uses, computed exactly on the host.
//
// What is modelled
//   * Matmul<MatmulType<GM, ND, A>, MatmulType<GM, ND, B>, MatmulType<GM, ND, C>>: A [M, K] and B [K, N] read
//     from GM in ND layout (row strides from SetOrgShape), C [M, N] written to GM, IterateAll only.
//   * Arithmetic: int8 x int8 (and, on ascend310p, uint8 x int8 / uint8 x uint8, FACTS 3) products accumulated
//     in 32-bit two's complement, wrapping modulo 2^32 like the cube's int32 accumulator. The result is the same
//     for every tiling, so the tiling's base blocks only feed the checks. Float8 pairs (e4m3fn / e5m2, any mix;
//     ascend910_95 only) into float32: the exact sum rounded once (the device's float32 accumulation order is
//     not modelled).
//   * Cross-core synchronisation on split SoCs (910b, 950): on the device the vector core is the Matmul API's
//     client and the cube core its server (REGIST_MATMUL_OBJ, KFC messages through the system workspace);
//     IterateAll<sync = true> returns when C is in GM. The emulator runs the server's work inside the client's
//     call, so "C is in GM when IterateAll returns" holds by construction, and only the client side is run
//     (the launcher runs vector cores).
//   * GM traffic: A, B read once and C written once per IterateAll, added to the calling core's statistics
//     (gm_read_bytes / gm_write_bytes) and to the Matmul statistics of aqo_emu::MatmulStats().
// Loud failures (EmulatorError at the kernel's line)
//   Init without a tiling or with base blocks that are not whole cube fractals (baseM, baseN multiples of 16,
//   baseK a multiple of 32 bytes); use before Init; IterateAll before SetTensorA / SetTensorB; shapes that are
//   not positive, single shapes larger than the org shapes or row strides shorter than a row; any byte of A, B
//   or C outside its GlobalTensor (and C in a read-only buffer); transposed operands and atomic writes (not
//   modelled); an operand dtype pair the SoC's cube lacks (FACTS 3: uint8 only on ascend310p).
// UB: on ascend310p the API's L0C -> UB / ND -> NZ staging takes tiling.transLength bytes from the TPipe at Init
// (one TBuf here), so the kernel's UB total includes it.
// Not modelled: L1 / L0A / L0B / L0C capacities (the SoC table has no L1 / L0 sizes yet), what the API does inside
// its UB staging area, Iterate / GetTensorC, bias, batch modes.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"
#include "emulator/emu_order.h"
#include "lib/matmul_tiling_emu.h"

// CANN declares CubeFormat in the global namespace.
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };

namespace aqo_emu {

// Matmul statistics of one vector core (the cube work it requested), kept per block of the current run.
struct MatmulCoreStats {
    uint64_t calls = 0;          // IterateAll calls
    uint64_t a_bytes = 0;        // GM bytes of A read
    uint64_t b_bytes = 0;
    uint64_t c_bytes = 0;        // GM bytes of C written
    uint64_t macs = 0;           // multiply-accumulates
};
// Resets the statistics for a run of `blocks` blocks (the runner calls it before Launcher::Run).
void ResetMatmulStats(uint32_t blocks);
const std::vector<MatmulCoreStats>& MatmulStats();
MatmulCoreStats& MatmulStatsOf(uint32_t block, const char* file, int line);

// C[i, j] = sum_k A[i, k] * B[k, j] in 32-bit wrap-around arithmetic (src/matmul_emu.cpp).
void MatmulExactInt32(const uint8_t* a, bool a_signed, uint64_t lda, const uint8_t* b, bool b_signed, uint64_t ldb,
                      int32_t* c, uint64_t ldc, uint32_t m, uint32_t n, uint32_t k);
// Float8 operands (ascend910_95): C[i, j] = float32(sum_k A[i, k] * B[k, j]) with the sum in float64 (exact for
// every e4m3fn product sum up to K = 65536; IEEE NaN / Inf propagation). The device accumulates in float32 in
// its own order: the emulator models the exact result, not the device's rounding (see the tests' tolerance).
void MatmulFloat8(const uint8_t* a, FloatFormat fa, uint64_t lda, const uint8_t* b, FloatFormat fb, uint64_t ldb,
                  float* c, uint64_t ldc, uint32_t m, uint32_t n, uint32_t k);

}  // namespace aqo_emu

namespace AscendC {

enum class LayoutMode : int32_t { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };

template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
    constexpr static LayoutMode layout = LAYOUT;
    constexpr static bool ibShare = IBSHARE;
};

struct MatmulConfig {
    bool doNorm = true;
};
constexpr MatmulConfig CFG_NORM{};

template <auto kCopyOut = nullptr, auto kCopyA = nullptr, auto kCopyB = nullptr>
struct MatmulCallBackFunc {};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>>
class Matmul {
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    static_assert(A_TYPE::pos == TPosition::GM && B_TYPE::pos == TPosition::GM && C_TYPE::pos == TPosition::GM,
                  "emulated Matmul: A, B and C in GM only");
    static_assert(A_TYPE::format == CubeFormat::ND && B_TYPE::format == CubeFormat::ND &&
                      C_TYPE::format == CubeFormat::ND,
                  "emulated Matmul: ND layout only");
    static_assert(!A_TYPE::isTrans && !B_TYPE::isTrans, "emulated Matmul: transposed operands are not modelled");
    static constexpr bool kFloat8 = std::is_same<SrcAT, fp8_e4m3fn_t>::value ||
                                    std::is_same<SrcAT, fp8_e5m2_t>::value;
    static_assert(((std::is_same<SrcAT, int8_t>::value || std::is_same<SrcAT, uint8_t>::value) &&
                   (std::is_same<SrcBT, int8_t>::value || std::is_same<SrcBT, uint8_t>::value) &&
                   std::is_same<DstT, int32_t>::value) ||
                      (kFloat8 &&
                       (std::is_same<SrcBT, fp8_e4m3fn_t>::value || std::is_same<SrcBT, fp8_e5m2_t>::value) &&
                       std::is_same<DstT, float>::value),
                  "emulated Matmul: 8-bit integer operands with an int32 result, or float8 operands with a float "
                  "result");

public:
    Matmul() = default;

    void Init(const TCubeTiling* tiling, TPipe* pipe = nullptr, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        (void)pipe;
        if (tiling == nullptr) {
            aqo_emu::Fail(aqo_file, aqo_line, "Matmul::Init: no TCubeTiling");
        }
        const int32_t k_unit = static_cast<int32_t>(32 / sizeof(SrcAT));  // a fractal row is 32 bytes
        if (tiling->baseM <= 0 || tiling->baseM % 16 != 0 || tiling->baseN <= 0 || tiling->baseN % 16 != 0 ||
            tiling->baseK <= 0 || tiling->baseK % k_unit != 0) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::Init: TCubeTiling base block " + std::to_string(tiling->baseM) + " x " +
                              std::to_string(tiling->baseN) + " x " + std::to_string(tiling->baseK) +
                              " (M x N x K) is not made of cube fractals: baseM and baseN must be positive "
                              "multiples of 16, baseK a positive multiple of " + std::to_string(k_unit));
        }
        if (kFloat8 && !c.soc.has_float8) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          std::string("Matmul::Init: the cube of ") + c.soc.name +
                              " has no float8 path (FACTS 3: float8 pairs on ascend910_95 only)");
        }
        const bool a_u8 = std::is_same<SrcAT, uint8_t>::value;
        const bool b_u8 = std::is_same<SrcBT, uint8_t>::value;
        // FACTS 3: the 910b and 950 cubes multiply int8 x int8 only; 310p also uint8 x int8 and uint8 x uint8.
        if ((a_u8 || b_u8) && (c.soc.id != aqo_emu::SocId::kAscend310P || (!a_u8 && b_u8))) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          std::string("Matmul::Init: the cube of ") + c.soc.name + " has no " +
                              (a_u8 ? "uint8" : "int8") + " x " + (b_u8 ? "uint8" : "int8") +
                              " path (FACTS 3); map uint8 operands to int8 (v ^ 0x80, zero point - 128)");
        }
        // ascend310p has no fixpipe: the API stages L0C -> UB and ND -> NZ in UB buffers it takes from the
        // kernel's TPipe (transLength bytes), before the kernel's own buffers. Modelled as one TBuf of that size,
        // so the emulator's UB check counts it.
        if (c.soc.id == aqo_emu::SocId::kAscend310P && tiling->transLength > 0) {
            if (pipe == nullptr) {
                aqo_emu::Fail(aqo_file, aqo_line, "Matmul::Init: no TPipe for the API's UB buffers on ascend310p");
            }
            pipe->InitBuffer(api_ub_, static_cast<uint32_t>(tiling->transLength), aqo_file, aqo_line);
        }
        tiling_ = *tiling;
        inited_ = true;
        org_m_ = tiling->M;
        org_n_ = tiling->N;
        org_ka_ = tiling->Ka;
        org_kb_ = tiling->Kb;
        org_kc_ = tiling->N;
        single_m_ = tiling->singleCoreM;
        single_n_ = tiling->singleCoreN;
        single_k_ = tiling->singleCoreK;
    }

    void SetOrgShape(int orgM, int orgN, int orgK, AQO_EMU_SRC)
    {
        SetOrgShape(orgM, orgN, orgK, orgK, 0, aqo_file, aqo_line);
    }
    // A is [orgM, orgKa] (row stride orgKa), B is [orgKb, orgN] (row stride orgN), C has row stride orgKc
    // (0 = orgN).
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0, AQO_EMU_SRC)
    {
        Require(aqo_file, aqo_line, "SetOrgShape");
        if (orgM <= 0 || orgN <= 0 || orgKa <= 0 || orgKb <= 0 || orgKc < 0) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::SetOrgShape(" + std::to_string(orgM) + ", " + std::to_string(orgN) + ", " +
                              std::to_string(orgKa) + ", " + std::to_string(orgKb) + ", " + std::to_string(orgKc) +
                              "): shapes must be positive (orgKc 0 = orgN)");
        }
        org_m_ = orgM;
        org_n_ = orgN;
        org_ka_ = orgKa;
        org_kb_ = orgKb;
        org_kc_ = orgKc == 0 ? orgN : orgKc;
    }

    void SetSingleShape(int singleM, int singleN, int singleK, AQO_EMU_SRC)
    {
        Require(aqo_file, aqo_line, "SetSingleShape");
        if (singleM <= 0 || singleN <= 0 || singleK <= 0) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::SetSingleShape(" + std::to_string(singleM) + ", " + std::to_string(singleN) +
                              ", " + std::to_string(singleK) + "): shapes must be positive (K = 0 has no cube "
                              "work: skip the call)");
        }
        single_m_ = singleM;
        single_n_ = singleN;
        single_k_ = singleK;
    }

    void SetTail(int tailM = -1, int tailN = -1, int tailK = -1, AQO_EMU_SRC)
    {
        Require(aqo_file, aqo_line, "SetTail");
        if (tailM > 0) single_m_ = tailM;
        if (tailN > 0) single_n_ = tailN;
        if (tailK > 0) single_k_ = tailK;
    }

    void SetTensorA(const GlobalTensor<SrcAT>& gm, bool isTransposeA = false, AQO_EMU_SRC)
    {
        Require(aqo_file, aqo_line, "SetTensorA");
        if (isTransposeA) {
            aqo_emu::Fail(aqo_file, aqo_line, "Matmul::SetTensorA: transposed A is not modelled");
        }
        gm.Region(aqo_emu::Ctx(aqo_file, aqo_line), aqo_file, aqo_line, "Matmul::SetTensorA");
        a_ = gm;
        a_set_ = true;
    }

    void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false, AQO_EMU_SRC)
    {
        Require(aqo_file, aqo_line, "SetTensorB");
        if (isTransposeB) {
            aqo_emu::Fail(aqo_file, aqo_line, "Matmul::SetTensorB: transposed B is not modelled");
        }
        gm.Region(aqo_emu::Ctx(aqo_file, aqo_line), aqo_file, aqo_line, "Matmul::SetTensorB");
        b_ = gm;
        b_set_ = true;
    }

    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    bool waitIterateAll = false, bool fakeMsg = false, AQO_EMU_SRC)
    {
        (void)enSequentialWrite;
        (void)waitIterateAll;
        (void)fakeMsg;
        static_assert(sync, "emulated Matmul: IterateAll<false> (asynchronous) is not modelled");
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        Require(aqo_file, aqo_line, "IterateAll");
        if (!a_set_ || !b_set_) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          std::string("Matmul::IterateAll before ") + (!a_set_ ? "SetTensorA" : "SetTensorB"));
        }
        if (enAtomic != 0) {
            aqo_emu::Fail(aqo_file, aqo_line, "Matmul::IterateAll: atomic accumulation into C is not modelled");
        }
        const std::string shape = "single " + std::to_string(single_m_) + " x " + std::to_string(single_n_) +
                                  " x " + std::to_string(single_k_) + " (M x N x K), org M " +
                                  std::to_string(org_m_) + ", N " + std::to_string(org_n_) + ", Ka " +
                                  std::to_string(org_ka_) + ", Kb " + std::to_string(org_kb_) + ", Kc " +
                                  std::to_string(org_kc_);
        if (single_m_ <= 0 || single_n_ <= 0 || single_k_ <= 0 || single_m_ > org_m_ || single_n_ > org_n_ ||
            single_k_ > org_ka_ || single_k_ > org_kb_ || single_n_ > org_kc_) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::IterateAll: " + shape +
                              ": the single shape must be positive and fit the org shape (row strides Ka, N, Kc "
                              "at least one row)");
        }
        const uint64_t m = static_cast<uint64_t>(single_m_), n = static_cast<uint64_t>(single_n_),
                       k = static_cast<uint64_t>(single_k_);
        const uint64_t lda = static_cast<uint64_t>(org_ka_), ldb = static_cast<uint64_t>(org_n_),
                       ldc = static_cast<uint64_t>(org_kc_);
        const uint8_t* pa = reinterpret_cast<const uint8_t*>(a_.ptr_);
        const uint8_t* pb = reinterpret_cast<const uint8_t*>(b_.ptr_);
        uint8_t* pc = reinterpret_cast<uint8_t*>(gm.ptr_);
        // A synchronous request to the cube (emu_order.h): its GM reads and writes are ordered after what this
        // core's scalar unit knows complete now, and before what it does after the call.
        const uint64_t cube = aqo_emu::CubeRequestBegin(c, aqo_file, aqo_line);
        aqo_emu::CubeGmAccess(c, cube, a_.Region(c, aqo_file, aqo_line, "Matmul::IterateAll (A)"), a_.begin_, a_.end_,
                              pa, m, k * sizeof(SrcAT), lda * sizeof(SrcAT), false, aqo_file, aqo_line,
                              ("Matmul::IterateAll A, " + shape).c_str());
        aqo_emu::CubeGmAccess(c, cube, b_.Region(c, aqo_file, aqo_line, "Matmul::IterateAll (B)"), b_.begin_, b_.end_,
                              pb, k, n * sizeof(SrcBT), ldb * sizeof(SrcBT), false, aqo_file, aqo_line,
                              ("Matmul::IterateAll B, " + shape).c_str());
        aqo_emu::CubeGmAccess(c, cube, gm.Region(c, aqo_file, aqo_line, "Matmul::IterateAll (C)"), gm.begin_, gm.end_,
                              pc, m, n * sizeof(DstT), ldc * sizeof(DstT), true, aqo_file, aqo_line,
                              ("Matmul::IterateAll C, " + shape).c_str());
        if constexpr (kFloat8) {
            aqo_emu::MatmulFloat8(pa, aqo_emu::ElemTraits<SrcAT>::kFormat, lda, pb,
                                  aqo_emu::ElemTraits<SrcBT>::kFormat, ldb, reinterpret_cast<float*>(pc), ldc,
                                  static_cast<uint32_t>(m), static_cast<uint32_t>(n), static_cast<uint32_t>(k));
        } else {
            aqo_emu::MatmulExactInt32(pa, std::is_signed<SrcAT>::value, lda, pb, std::is_signed<SrcBT>::value, ldb,
                                      reinterpret_cast<int32_t*>(pc), ldc, static_cast<uint32_t>(m),
                                      static_cast<uint32_t>(n), static_cast<uint32_t>(k));
        }
        const uint64_t a_bytes = m * k * sizeof(SrcAT), b_bytes = k * n * sizeof(SrcBT),
                       c_bytes = m * n * sizeof(DstT);
        c.stats->gm_read_bytes += a_bytes + b_bytes;
        c.stats->gm_write_bytes += c_bytes;
        aqo_emu::MatmulCoreStats& s = aqo_emu::MatmulStatsOf(c.block_idx, aqo_file, aqo_line);
        s.calls++;
        s.a_bytes += a_bytes;
        s.b_bytes += b_bytes;
        s.c_bytes += c_bytes;
        s.macs += m * n * k;
        aqo_emu::CubeRequestEnd(c, cube, a_bytes + b_bytes, m * n * k, sizeof(SrcAT), c_bytes, aqo_file, aqo_line);
        ended_ = false;
    }

    // Ends a computation (on the device: releases the server's buffers / sends KFC END). The next computation
    // sets its tensors again.
    void End(AQO_EMU_SRC)
    {
        Require(aqo_file, aqo_line, "End");
        a_set_ = false;
        b_set_ = false;
        ended_ = true;
    }

    void SetSubBlockIdx(uint8_t) {}

private:
    void Require(const char* file, int line, const char* api) const
    {
        if (!inited_) {
            aqo_emu::Fail(file, line, std::string("Matmul::") + api +
                                          " before Init (REGIST_MATMUL_OBJ with the TCubeTiling was not called)");
        }
    }

    TCubeTiling tiling_;
    bool inited_ = false;
    bool a_set_ = false;
    bool b_set_ = false;
    bool ended_ = true;
    int org_m_ = 0, org_n_ = 0, org_ka_ = 0, org_kb_ = 0, org_kc_ = 0;
    int single_m_ = 0, single_n_ = 0, single_k_ = 0;
    GlobalTensor<SrcAT> a_;
    GlobalTensor<SrcBT> b_;
    TBuf<TPosition::VECCALC> api_ub_;
};

// REGIST_MATMUL_OBJ(pipe, workspace, obj, tiling[, obj2, tiling2 ...]): Init of each object with its tiling.
// On split SoCs the device's cube core would run the Matmul server here and return; the emulator runs the
// vector (client) cores only and does the server's work inside their calls.
inline void AqoEmuRegistMatmul(const char*, int, TPipe*) {}
template <class MM, class... Rest>
inline void AqoEmuRegistMatmul(const char* file, int line, TPipe* pipe, MM& mm, const TCubeTiling* tiling,
                               Rest&&... rest)
{
    if (pipe == nullptr) {
        aqo_emu::Fail(file, line, "REGIST_MATMUL_OBJ: no TPipe");
    }
    mm.Init(tiling, pipe, file, line);
    AqoEmuRegistMatmul(file, line, pipe, rest...);
}

}  // namespace AscendC

#define REGIST_MATMUL_OBJ(tpipe, workspace, ...) \
    ((void)(workspace), ::AscendC::AqoEmuRegistMatmul(__FILE__, __LINE__, (tpipe), __VA_ARGS__))
#define REGIST_MATMUL_OBJ_STATIC REGIST_MATMUL_OBJ
