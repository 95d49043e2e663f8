// lib/matmul_intf.h of the AscendC CPU emulator: the Matmul high-level API forms the project's kernels use (and the
// QLinearMatMul rework will), computed exactly on the host, with the semantics and the checks of CANN 8.1.RC1's
// implementation (highlevel_api/lib/matmul/matmul_client.h on split SoCs, where the vector core is the client of
// the cube core's server; highlevel_api/impl/matmul/ on ascend310p, where MatmulImpl runs on the AI core itself).
//
// What is modelled
//   * Matmul<MatmulType<GM, ND, A>, MatmulType<GM, ND, B>, MatmulType<C position, ND, C>, BIAS, MM_CFG>: A [M, K] and
//     B [K, N] read from GM in ND layout (row strides from SetOrgShape), C written to GM (or, for the asynchronous
//     Iterate form, to a GM workspace with a UB C position, as the client requires).
//   * Configurations: NORM (CFG_NORM, GetNormalConfig) and MDL (CFG_MDL, GetMDLConfig), with their tiling checks;
//     intrinsicsCheck (the intrinsicsLimit argument) decides how a row stride of 65536 or more is copied.
//   * Forms: IterateAll<true>(gm); IterateAll<false>(gm) + WaitIterateAll() (split SoCs); Iterate() +
//     GetTensorC(gm) block by block; SetWorkspace(gm) + Iterate<false>() + GetTensorC<false>() (the block in the
//     workspace, as a GlobalTensor) or GetTensorC<false>(ubTensor) (copied to UB) (split SoCs); End().
//     Base blocks come in the API's order: ORDER_M (M fastest) or ORDER_N, in steps of stepM / stepN, from MM_CFG's
//     iterateOrder or, when UNDEF, the tiling's. Asynchronous work is done when the client waits (WaitIterateAll,
//     the first GetTensorC<false>): the latest moment the device allows, so a result read early is stale.
//   * Arithmetic: int8 x int8 (and, on ascend310p, uint8 x int8 / uint8 x uint8) accumulated in 32-bit two's
//     complement, wrapping like the cube's int32 accumulator; float8 pairs (ascend910_95) into float32, the exact sum
//     rounded once (the device's float32 order is not modelled). The result does not depend on the tiling.
//   * ascend310p (no fixpipe): the C write-back, its N-tail and the ND-to-NZ staging of A / B go through a UB local
//     workspace given by SetLocalWorkspace (size: MatmulLocalWorkspaceBytes, the formula of
//     impl/matmul/resource/local_workspace/matmul_local_workspace.h, shared with the host's check). Without one
//     the API writes through a tensor at UB address 0: the emulator checks that range against the kernel's buffers
//     and fails on overlap (on the device the kernel's data is overwritten). The given buffer is scribbled on
//     (its bytes become undefined) at every use.
//   * GM traffic: the A and B tiles the API's L1 copies load (after its L1 cache's hits) and C written, added to the
//     calling core's statistics and to aqo_emu::MatmulStats(). Every cube GM access goes through aqo_emu::CubeGmAccess (one call per access), as part
//     of a request to the cube (emulator/emu_order.h): made at IterateAll / Iterate, waited for where the core waits
//     (IterateAll's return, WaitIterateAll, GetTensorC), so the ordering checks see the cube's reads and writes.
// Loud failures (EmulatorError at the kernel's line): see the Fail calls below; each has a fault kernel in
// python/csrc/emulate_qlinear_matmul_faults.cpp. In short: bad tiling (fractals, depths, steps, MDL depths, 310p
// transLength), use before Init, computing before SetTensorA / SetTensorB, shapes outside the org shape or A / B / C
// outside their GlobalTensors, a row stride >= 65536 without intrinsicsCheck (a 16-bit field of the GM -> L1 copy on
// 910b; taken the same on 950), the client's message rules on split SoCs (SetOrgShape after SetSingleShape /
// SetTensorA / SetTensorB drops them; IterateAll / a first Iterate need SetTensorA / SetTensorB since the last
// message), WaitIterateAll without an asynchronous IterateAll in flight or after a synchronous one, an asynchronous
// IterateAll to be waited for whose C is not continuous in GM (row stride != its width), more than 15 of them in
// flight (the cross-core flag that notifies them counts 0..15), A / B / C
// touched while an asynchronous computation is in flight, a kernel ending with one in flight, Iterate<false>
// without SetWorkspace or with C in GM, GetTensorC of the wrong mode / beyond the blocks / before Iterate,
// Iterate again before GetTensorC of a synchronous block, forms ascend310p's MatmulImpl does not have, the 310p local
// workspace (missing and overlapping the kernel's UB, or too small), transposed operands, atomics and bias.
// Also: a transposed B (ISTRANS, SetTensorB(gm, true): B stored [orgN, orgKb]); the API's L1 loads as GM traffic
// (MatmulL1Loads: NORM's L1 cache, the scheduler's reset points); the cube's work in whole fractals; the tiling's
// L1 / L0 needs against the SoC's buffers; the asynchronous Iterate's per-block waits (INC_PROCESS_CHECK).
// Not modelled: the UB-side C positions of the synchronous forms, batch modes, bias, quant, a transposed A.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel_operator.h"
#include "emulator/emu_order.h"
#include "lib/matmul_tiling_emu.h"
#include "matmul_cube_plan.h"

// CANN declares these in the global namespace (highlevel_api/lib/matmul/matmul_config.h, tiling.h).
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class IterateOrder { ORDER_M = 0, ORDER_N, UNDEF };
enum class ScheduleType { INNER_PRODUCT = 0, OUTER_PRODUCT };
enum class BatchMode { NONE = 0, BATCH_LESS_THAN_L1, BATCH_LARGE_THAN_L1, SINGLE_LARGE_THAN_L1 };

// The fields of CANN's MatmulConfig the emulation reads (the others keep their CANN defaults in meaning).
struct MatmulConfig {
    bool doNorm = false;
    bool doBasicBlock = false;
    bool doMultiDataLoad = false;
    bool intrinsicsCheck = false;  // the intrinsicsLimit argument: row strides >= 65535 copied row by row
    bool isNBatch = false;
    bool enVecND2NZ = false;
    uint32_t doMTE2Preload = 0;
    bool enUnitFlag = true;
    bool isPerTensor = false;
    bool hasAntiQuantOffset = false;
    BatchMode batchMode = BatchMode::NONE;
    bool enableReuse = true;
    bool enableUBReuse = true;
    bool enableL1CacheUB = false;
    IterateOrder iterateOrder = IterateOrder::UNDEF;
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
    bool enableMixDualMaster = false;
    bool enableKdimReorderLoad = false;
};

constexpr MatmulConfig GetNormalConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                       const bool isVecND2NZ = false,
                                       const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                       const bool isMsgReuse = true, const IterateOrder iterateOrder = IterateOrder::UNDEF,
                                       const ScheduleType scheduleType = ScheduleType::INNER_PRODUCT,
                                       const bool enUnitFlag = true, const bool enableMixDualMaster = false)
{
    MatmulConfig c;
    c.doNorm = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.batchMode = bmmMode;
    c.enableReuse = isMsgReuse;
    c.iterateOrder = iterateOrder;
    c.scheduleType = scheduleType;
    c.enUnitFlag = enUnitFlag;
    c.enableMixDualMaster = enableMixDualMaster;
    return c;
}

constexpr MatmulConfig GetMDLConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                    const uint32_t doMTE2Preload = 0, const bool isVecND2NZ = false,
                                    bool isPerTensor = false, bool hasAntiQuantOffset = false,
                                    const bool enUnitFlag = false, const bool isMsgReuse = true,
                                    const bool enableUBReuse = true, const bool enableL1CacheUB = false,
                                    const bool enableMixDualMaster = false, const bool enableKdimReorderLoad = false)
{
    MatmulConfig c;
    c.doMultiDataLoad = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.doMTE2Preload = doMTE2Preload;
    c.enVecND2NZ = isVecND2NZ;
    c.isPerTensor = isPerTensor;
    c.hasAntiQuantOffset = hasAntiQuantOffset;
    c.enUnitFlag = enUnitFlag;
    c.enableReuse = isMsgReuse;
    c.enableUBReuse = enableUBReuse;
    c.enableL1CacheUB = enableL1CacheUB;
    c.enableMixDualMaster = enableMixDualMaster;
    c.enableKdimReorderLoad = enableKdimReorderLoad;
    return c;
}

// inline: one object for every translation unit (CANN's are plain constexpr; the meaning is the same).
inline constexpr MatmulConfig CFG_NORM = GetNormalConfig();
inline constexpr MatmulConfig CFG_MDL = GetMDLConfig();

namespace aqo_emu {

// Matmul statistics of one vector core (the cube work it requested), kept per block of the current run.
struct MatmulCoreStats {
    uint64_t calls = 0;          // computations: IterateAll calls and Iterate sequences
    uint64_t a_bytes = 0;        // GM bytes of A read (the L1 copies the API makes, after its L1 cache's hits)
    uint64_t b_bytes = 0;
    uint64_t c_bytes = 0;        // GM bytes of C written
    uint64_t macs = 0;           // multiply-accumulates of the product (m x n x k)
    uint64_t padded_macs = 0;    // what the cube executes: whole 16 x 16 x 32-byte fractals
};
// Resets the statistics for a run of `blocks` blocks (the runner calls it before Launcher::Run).
void ResetMatmulStats(uint32_t blocks);
const std::vector<MatmulCoreStats>& MatmulStats();
MatmulCoreStats& MatmulStatsOf(uint32_t block, const char* file, int line);

// C[i, j] = sum_k A[i, k] * B[k, j] modulo 2^32 (src/matmul_emu.cpp; the cube's value only where no partial sum
// leaves int32, which the callers check first with MatmulInt32MayLeaveRange). b_trans: B is stored
// transposed, [N, K] with row stride ldb (B[k, j] = b[j * ldb + k]). No default for b_trans: every caller states
// B's layout (a defaulted false once made the 310p write-order path read a transposed B as [K, N]).
void MatmulExactInt32(const uint8_t* a, bool a_signed, uint64_t lda, const uint8_t* b, bool b_signed, uint64_t ldb,
                      int32_t* c, uint64_t ldc, uint32_t m, uint32_t n, uint32_t k, bool b_trans);
// Integer Mmad has only a saturating mode (the Mmad and L0C -> GM pages: "integer types have only the saturation
// mode"; asc_get_status bit 10 flags the cube's accumulation overflow) and its order along K is not documented: where
// an element's products' magnitudes add up past 2^31 - 1 some partial sum may leave int32, and C is not the wrapped
// sum. True (and the first such element) when that can happen; never for k * |a|max * |b|max <= 2^31 - 1.
struct MatmulRangeRisk {
    uint32_t row = 0, col = 0;
    uint64_t magnitude = 0;
};
// The AscendC Mmad page: "Mmad should avoid NaN inputs, otherwise an execution error may result". The first NaN
// operand of a float8 product, if any (which matrix, row, column).
struct MatmulNaNOperand {
    char matrix = 'A';
    uint32_t row = 0, col = 0;
};
bool MatmulFloat8FindNaN(const uint8_t* a, FloatFormat fa, uint64_t lda, const uint8_t* b, FloatFormat fb,
                         uint64_t ldb, uint32_t m, uint32_t n, uint32_t k, bool b_trans, MatmulNaNOperand* at);
bool MatmulInt32MayLeaveRange(const uint8_t* a, bool a_signed, uint64_t lda, const uint8_t* b, bool b_signed,
                              uint64_t ldb, uint32_t m, uint32_t n, uint32_t k, bool b_trans, MatmulRangeRisk* risk);
// Float8 operands (ascend910_95): C[i, j] = float32(sum_k A[i, k] * B[k, j]) with the sum in float64 (exact for
// every e4m3fn product sum up to K = 65536; IEEE NaN / Inf propagation). The device accumulates in float32 in
// its own order: the emulator models the exact result, not the device's rounding (see the tests' tolerance).
// saturate: the cube's float results in its saturation mode (the Mmad page: with CTRL[48] set, Inf -> +-max and
// NaN -> 0; which mode a launch starts in is not documented: RunOptions::cube_float_saturates).
void MatmulFloat8(const uint8_t* a, FloatFormat fa, uint64_t lda, const uint8_t* b, FloatFormat fb, uint64_t ldb,
                  float* c, uint64_t ldc, uint32_t m, uint32_t n, uint32_t k, bool b_trans, bool saturate = false);

// What the API's copies into L1 load from GM for one base block (its K loop), after the L1 cache's hits.
struct MatmulBlockLoad {
    uint64_t a_bytes = 0;
    uint64_t b_bytes = 0;
    uint64_t a_tiles = 0;  // baseM x baseK tiles of A loaded
    uint64_t b_tiles = 0;  // baseK x baseN tiles of B loaded
};
struct MatmulLoadInput {
    uint64_t m = 0, n = 0, k = 0;            // the computation's single shape
    uint32_t base_m = 16, base_n = 16, base_k = 32;
    uint32_t step_m = 1, step_n = 1;
    int64_t depth_a1 = 1, depth_b1 = 1;
    bool order_n = false;                    // the iteration order (IterateOrder::ORDER_N)
    bool norm = true;                        // NORM (MDL: no reuse across blocks is counted)
    uint32_t a_elem = 1, b_elem = 1;         // bytes per element
};
// Per base block, in the API's order (MatmulBlockOrder), the GM bytes the NORM configuration's L1 copies load:
// A tiles [baseM x baseK] and B tiles [baseK x baseN] per K step, unless the L1 cache still holds them. The cache
// follows CANN 8.1.RC1's impl/matmul (cube_in_buffer_normal.h: depthA1 / depthB1 tiles, "k full load" when the
// depth covers kIter x stepM (A) or kIter x stepN (B), else depth - 2 cached and 2 streamed; copy_cube_in_norm.h:
// the tiles' cache positions; scheduler_norm_base.h: ORDER_M keeps B over the M blocks of an N step and A over the
// N blocks of an M block, ORDER_N the other way round, and the cache is emptied when that scope ends).
std::vector<MatmulBlockLoad> MatmulL1Loads(const MatmulLoadInput& in);
// The cube's work for an m x n x k product with operands of elem_bytes: whole fractals (16 rows, 16 columns, a
// 32-byte K row), which is what the cube executes whatever the real shape (M = 1 costs 16 rows).
uint64_t MatmulPaddedMacs(uint64_t m, uint64_t n, uint64_t k, uint32_t elem_bytes);

// The base blocks of one Iterate sequence, in the API's order (m_loop / n_loop with steps; ORDER_M: for each
// N-step, for each M-step, M blocks inside N blocks...): (M block, N block) pairs.
std::vector<std::pair<uint32_t, uint32_t>> MatmulBlockOrder(uint32_t m_iter, uint32_t n_iter, uint32_t step_m,
                                                            uint32_t step_n, bool order_n);

// ascend310p without SetLocalWorkspace: fails when UB [0, bytes), where the API writes, overlaps a buffer the kernel
// allocated (naming it and its InitBuffer line).
void CheckMatmulScratchAtUbZero(CoreContext& c, uint64_t bytes, const char* file, int line, const char* api);
// Split SoCs: the Matmul client writes each message to the cube through UB [ub - kMatmulClientMessageBytes, ub)
// (CANN 8.1.RC1 kfc_comm_client.h: ubMsg = TOTAL_UB_SIZE - sizeof(KfcMsg), a 128-byte message, kfc_comm.h): fails
// when a kernel buffer overlaps it; the bytes are undefined afterwards.
constexpr uint64_t kMatmulClientMessageBytes = 128;
void CheckMatmulClientMessageUb(CoreContext& c, const char* file, int line, const char* api);

// FNV-1a of a byte range (snapshots of operands while an asynchronous computation is in flight).
uint64_t MatmulHashBytes(const uint8_t* p, uint64_t n);

}  // namespace aqo_emu

namespace AscendC {

// Blocks of an asynchronous Iterate the client waits for one by one (dav_c220/kfc/kfc_comm.h INC_PROCESS_CHECK).
constexpr size_t kIncProcessCheck = 14;

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

template <auto kCopyOut = nullptr, auto kCopyA = nullptr, auto kCopyB = nullptr>
struct MatmulCallBackFunc {};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>>
class Matmul {
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using DstT = typename C_TYPE::T;
    static constexpr MatmulConfig kCfg = MM_CFG;
    static constexpr bool kCInUb =
        C_TYPE::pos == TPosition::VECIN || C_TYPE::pos == TPosition::VECOUT || C_TYPE::pos == TPosition::VECCALC;
    static_assert(A_TYPE::pos == TPosition::GM && B_TYPE::pos == TPosition::GM,
                  "emulated Matmul: A and B in GM only");
    static_assert(C_TYPE::pos == TPosition::GM || kCInUb,
                  "emulated Matmul: C in GM, or in UB (VECIN / VECOUT / VECCALC) for the asynchronous Iterate form");
    static_assert(A_TYPE::format == CubeFormat::ND && B_TYPE::format == CubeFormat::ND &&
                      (C_TYPE::format == CubeFormat::ND || C_TYPE::format == CubeFormat::ND_ALIGN),
                  "emulated Matmul: ND layout only (C also ND_ALIGN, on ascend310p)");
    // C as ND_ALIGN: ascend310p's write-back copies whole fractal rows (16 elements of a 4-byte C, else 32 bytes) and
    // takes no tail copy (copy_cube_out_datacopy.h CopyLocal2GMNZ2NDOnTheFly: calcWidth = baseBlockWidth, tail = 0).
    static constexpr bool kCAlign = C_TYPE::format == CubeFormat::ND_ALIGN;
    static_assert(!A_TYPE::isTrans, "emulated Matmul: a transposed A is not modelled (B may be: MatmulType's ISTRANS "
                                    "and SetTensorB(gm, true), B stored [N, K])");
    static_assert(A_TYPE::layout == LayoutMode::NONE && !A_TYPE::ibShare && !B_TYPE::ibShare,
                  "emulated Matmul: batch layouts and IBShare are not modelled");
    static_assert(kCfg.doNorm != kCfg.doMultiDataLoad && !kCfg.doBasicBlock,
                  "emulated Matmul: the NORM (CFG_NORM, GetNormalConfig) and MDL (CFG_MDL, GetMDLConfig) "
                  "configurations only");
    static_assert(!kCfg.enableMixDualMaster && !kCfg.enableL1CacheUB && kCfg.scheduleType == ScheduleType::INNER_PRODUCT,
                  "emulated Matmul: mix dual master, L1 cache in UB and the outer-product schedule are not modelled");
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
    Matmul(const Matmul&) = delete;
    Matmul& operator=(const Matmul&) = delete;
    // A kernel that returns with an asynchronous computation in flight leaves the cube running (or its result
    // unread): fails at the line that started it, unless the kernel is already failing.
    ~Matmul() noexcept(false)
    {
        if (!unwaited_.empty() && std::uncaught_exceptions() == 0 && aqo_emu::CurrentCore() != nullptr) {
            aqo_emu::Fail(unwaited_.front().first, unwaited_.front().second,
                          "Matmul: the asynchronous IterateAll started here was never waited for "
                          "(WaitIterateAll) before the kernel returned");
        }
    }

    void Init(const TCubeTiling* tiling, TPipe* pipe = nullptr, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
        if (tiling == nullptr) {
            aqo_emu::Fail(aqo_file, aqo_line, "Matmul::Init: no TCubeTiling");
        }
        if (pipe == nullptr) {
            aqo_emu::Fail(aqo_file, aqo_line, "Matmul::Init: no TPipe");
        }
        const TCubeTiling& t = *tiling;
        const int32_t k_unit = static_cast<int32_t>(32 / sizeof(SrcAT));  // a fractal row is 32 bytes
        if (t.baseM <= 0 || t.baseM % 16 != 0 || t.baseN <= 0 || t.baseN % 16 != 0 || t.baseK <= 0 ||
            t.baseK % k_unit != 0) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::Init: TCubeTiling base block " + std::to_string(t.baseM) + " x " +
                              std::to_string(t.baseN) + " x " + std::to_string(t.baseK) +
                              " (M x N x K) is not made of cube fractals: baseM and baseN must be positive "
                              "multiples of 16, baseK a positive multiple of " + std::to_string(k_unit));
        }
        // The API's own tiling checks (param/matmul_shape_tiling.h, CheckTiling).
        if (t.depthA1 <= 0 || t.depthB1 <= 0 || t.stepM <= 0 || t.stepN <= 0 || t.stepKa <= 0 || t.stepKb <= 0) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::Init: TCubeTiling depthA1 " + std::to_string(t.depthA1) + ", depthB1 " +
                              std::to_string(t.depthB1) + ", stepM " + std::to_string(t.stepM) + ", stepN " +
                              std::to_string(t.stepN) + ", stepKa " + std::to_string(t.stepKa) + ", stepKb " +
                              std::to_string(t.stepKb) + ": each must be larger than 0");
        }
        const bool split = IsSplit(c);
        if (kCfg.doMultiDataLoad && split &&
            (t.depthA1 % (t.stepM * t.stepKa) != 0 || t.depthB1 % (t.stepN * t.stepKb) != 0 ||
             t.depthA1 / (t.stepM * t.stepKa) > 2 || t.depthB1 / (t.stepN * t.stepKb) > 2)) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::Init (MDL): depthA1 " + std::to_string(t.depthA1) + " must be 1 or 2 times stepM * "
                              "stepKa (" + std::to_string(t.stepM) + " * " + std::to_string(t.stepKa) +
                              ") and depthB1 " + std::to_string(t.depthB1) + " 1 or 2 times stepN * stepKb (" +
                              std::to_string(t.stepN) + " * " + std::to_string(t.stepKb) + ")");
        }
        // The tiling's buffers must fit the cube's L1 and L0 (CANN's tiling sizes them so; a hand-made tiling that
        // does not would overwrite neighbouring buffers on the device).
        {
            const uint64_t a_tile = static_cast<uint64_t>(t.baseM) * t.baseK * sizeof(SrcAT);
            const uint64_t b_tile = static_cast<uint64_t>(t.baseK) * t.baseN * sizeof(SrcBT);
            const uint64_t c_tile = static_cast<uint64_t>(t.baseM) * t.baseN * sizeof(DstT);
            const uint64_t l1 = static_cast<uint64_t>(t.depthA1) * a_tile + static_cast<uint64_t>(t.depthB1) * b_tile;
            auto db = [](int32_t v) { return v >= 2 ? 2ull : 1ull; };
            auto over = [&](const char* what, uint64_t need, uint64_t have) {
                if (have != 0 && need > have) {
                    aqo_emu::Fail(aqo_file, aqo_line,
                                  std::string("Matmul::Init: TCubeTiling needs ") + std::to_string(need) +
                                      " bytes of " + what + " (base block " + std::to_string(t.baseM) + " x " +
                                      std::to_string(t.baseN) + " x " + std::to_string(t.baseK) + ", depthA1 " +
                                      std::to_string(t.depthA1) + ", depthB1 " + std::to_string(t.depthB1) +
                                      ", dbL0A / dbL0B / dbL0C " + std::to_string(t.dbL0A) + " / " +
                                      std::to_string(t.dbL0B) + " / " + std::to_string(t.dbL0C) + "); " + c.soc.name +
                                      " has " + std::to_string(have));
                }
            };
            // Split SoCs: the KFC server keeps the last 128 bytes of L1 (KFC_L1_RESERVER_SIZE, CANN 8.1.RC1
            // kernel_utils_constants.h TOTAL_L1_SIZE).
            const uint64_t l1_have = split && c.soc.l1_bytes > 128 ? c.soc.l1_bytes - 128 : c.soc.l1_bytes;
            over(split ? "L1 (depthA1 A tiles + depthB1 B tiles; the server's last 128 bytes kept)"
                       : "L1 (depthA1 A tiles + depthB1 B tiles)",
                 l1, l1_have);
            over("L0A", a_tile * db(t.dbL0A), c.soc.l0a_bytes);
            over("L0B", b_tile * db(t.dbL0B), c.soc.l0b_bytes);
            over("L0C", c_tile * db(t.dbL0C), c.soc.l0c_bytes);
        }
        if (!split && t.transLength <= 0) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          std::string("Matmul::Init: TCubeTiling transLength ") + std::to_string(t.transLength) +
                              " on " + c.soc.name + ": must be larger than 0 (the UB staging of a SoC without "
                              "fixpipe)");
        }
        if (!split && std::is_same<DstT, int32_t>::value && (t.N * 4) % 32 != 0) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::Init: TCubeTiling N " + std::to_string(t.N) + " on " + c.soc.name +
                              ": an ND C needs N dims aligned to 32 bytes there");
        }
        if (kFloat8 && !c.soc.has_float8) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          std::string("Matmul::Init: the cube of ") + c.soc.name +
                              " has no float8 path (float8 pairs on ascend910_95 only)");
        }
        const bool a_u8 = std::is_same<SrcAT, uint8_t>::value;
        const bool b_u8 = std::is_same<SrcBT, uint8_t>::value;
        // The 910b and 950 cubes multiply int8 x int8 only. 310p's cube also has uint8 x int8 and uint8 x uint8, but
        // CANN 8.1.RC1's Matmul API does not compile uint8 operands for it (its dav-m200 copy paths hand one
        // operand's buffer type to the other's DataCopy: the type-check against the headers fails), so no kernel that
        // uses the API can have them there either.
        if (a_u8 || b_u8) {
            const bool api_only = c.soc.id == aqo_emu::SocId::kAscend310P && !(!a_u8 && b_u8);
            aqo_emu::Fail(aqo_file, aqo_line,
                          std::string("Matmul::Init: the cube of ") + c.soc.name + " has no " +
                              (a_u8 ? "uint8" : "int8") + " x " + (b_u8 ? "uint8" : "int8") + " path" +
                              (api_only ? " the Matmul API can use (CANN 8.1.RC1's API does not compile uint8 "
                                          "operands for this SoC)"
                                        : "") +
                              "; map uint8 operands to int8 (v ^ 0x80, zero point - 128)");
        }
        if (!split) {
            // ascend310p: MatmulImpl runs on this core and its Init takes buffers from the kernel's TPipe, which manages
            // 64 in all (split SoCs: the cube core's server has its own).
            pipe->CountApiBuffers(ApiTPipeBuffers(t), aqo_file, aqo_line);
            // ... and, the first time after the pool's reset, reserves the tiling's shareUbSize bytes of the TPipe's
            // UB pool where it ends (InitShareBufStart / InitShareBufEnd, __CCE_AICORE__ < 220 in kernel_tpipe_impl.h;
            // a later Init shares the same area, kernel_tpipe_base.h AuxShareBufStart): every buffer the kernel
            // allocates afterwards starts that much higher. The CANN tiling library fills shareUbSize; the package's
            // TilingFunc sets it to 0 (the kernel gives the API its local workspace).
            if (t.shareUbSize < 0) {
                aqo_emu::Fail(aqo_file, aqo_line, "Matmul::Init: TCubeTiling shareUbSize " +
                                                      std::to_string(t.shareUbSize) + " is negative");
            }
            pipe->ReserveApiUbOnce(static_cast<uint32_t>(t.shareUbSize), aqo_file, aqo_line);
        }
        tiling_ = t;
        inited_ = true;
        org_m_ = t.M;
        org_n_ = t.N;
        org_ka_ = t.Ka;
        org_kb_ = t.Kb;
        org_kc_ = t.N;
        single_m_ = t.singleCoreM;
        single_n_ = t.singleCoreN;
        single_k_ = t.singleCoreK;
    }

    // The buffers 310p's MatmulImpl::Init takes from the TPipe (CANN 8.1.RC1 highlevel_api/impl/matmul): the L0 pool's
    // two TBufs (tbuf_pool_l0_base.h Init), the A1 / B1 queues (cube_in_buffer_normal.h for NORM: a cache queue of one
    // and / or a double-buffered queue; cube_in_buffer_double_buffer.h for MDL: a queue of one or two) and CO1's
    // (cube_out_buffer_no_unit_flag.h: two with dbL0C 2, else one).
    uint32_t ApiTPipeBuffers(const TCubeTiling& t) const
    {
        const int64_t k_iter = (static_cast<int64_t>(t.singleCoreK) + t.baseK - 1) / t.baseK;
        auto operand = [&](int32_t depth, int32_t major, int32_t step_k) -> uint32_t {
            if (kCfg.doMultiDataLoad) {
                const int32_t step = std::max(1, major * step_k);
                return ((depth / step - 1) & 1) == 0 ? 1u : 2u;
            }
            const bool full = !(depth < k_iter * major);
            if (depth > 2) {
                return full ? 1u : 3u;  // the cache queue alone, or it and the double-buffered queue
            }
            if (!full) {
                return static_cast<uint32_t>(depth);
            }
            return k_iter == 1 && depth == 2 ? 2u : 1u;
        };
        return 2u + operand(t.depthA1, t.stepM, t.stepKa) + operand(t.depthB1, t.stepN, t.stepKb) +
               (t.dbL0C == 2 ? 2u : 1u);
    }

    void SetOrgShape(int orgM, int orgN, int orgK, AQO_EMU_SRC)
    {
        SetOrgShape(orgM, orgN, orgK, orgK, 0, aqo_file, aqo_line);
    }
    // A is [orgM, orgKa] (row stride orgKa), B is [orgKb, orgN] (row stride orgN), C has row stride orgKc
    // (0 = orgN).
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = Require(aqo_file, aqo_line, "SetOrgShape");
        if (orgM <= 0 || orgN <= 0 || orgKa <= 0 || orgKb <= 0 || orgKc < 0) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::SetOrgShape(" + std::to_string(orgM) + ", " + std::to_string(orgN) + ", " +
                              std::to_string(orgKa) + ", " + std::to_string(orgKb) + ", " + std::to_string(orgKc) +
                              "): shapes must be positive (orgKc 0 = orgN)");
        }
        if (IsSplit(c) && unposted_ != nullptr) {
            // The client's message clears the flag bits of its pending message body (setTail, setTensorA / B,
            // isFirstIter): what was set before it would never reach the cube.
            aqo_emu::Fail(aqo_file, aqo_line,
                          std::string("Matmul::SetOrgShape after ") + unposted_ + " (" + unposted_file_ + ":" +
                              std::to_string(unposted_line_) + "): on " + c.soc.name + " SetOrgShape sends a "
                              "message to the cube, which clears the pending " + unposted_ + " (the cube would use "
                              "the previous one); call SetOrgShape first");
        }
        Post(c, aqo_file, aqo_line);
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
        NoteUnposted("SetSingleShape", aqo_file, aqo_line);
    }

    void SetTail(int tailM = -1, int tailN = -1, int tailK = -1, AQO_EMU_SRC)
    {
        Require(aqo_file, aqo_line, "SetTail");
        if (tailM > 0) single_m_ = tailM;
        if (tailN > 0) single_n_ = tailN;
        if (tailK > 0) single_k_ = tailK;
        NoteUnposted("SetTail", aqo_file, aqo_line);
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
        first_iter_ = true;
        NoteUnposted("SetTensorA", aqo_file, aqo_line);
    }

    // isTransposeB: B is stored transposed, [orgN, orgKb] row-major (row stride orgKb), as the API reads it
    // (copy_cube_in_params.h: a transposed B's org height is orgN and its width orgKb); the MatmulType must declare
    // ISTRANS (the API compiles the transposed copies only then).
    void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false, AQO_EMU_SRC)
    {
        Require(aqo_file, aqo_line, "SetTensorB");
        if (isTransposeB && !B_TYPE::isTrans) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::SetTensorB(gm, true): B's MatmulType does not declare ISTRANS = true, so the API "
                          "has no transposed copy of B compiled in");
        }
        gm.Region(aqo_emu::Ctx(aqo_file, aqo_line), aqo_file, aqo_line, "Matmul::SetTensorB");
        b_ = gm;
        b_trans_ = isTransposeB;
        b_set_ = true;
        first_iter_ = true;
        NoteUnposted("SetTensorB", aqo_file, aqo_line);
    }

    void SetBias(const GlobalTensor<DstT>&, AQO_EMU_SRC)
    {
        aqo_emu::Fail(aqo_file, aqo_line, "Matmul::SetBias: bias is not modelled");
    }

    // The GM workspace the asynchronous Iterate form writes its base blocks to (baseM * baseN elements each, in
    // iteration order).
    template <class T>
    void SetWorkspace(GlobalTensor<T>& addr, AQO_EMU_SRC)
    {
        Require(aqo_file, aqo_line, "SetWorkspace");
        if (addr.GetSize() == 0) {
            aqo_emu::Fail(aqo_file, aqo_line, "Matmul::SetWorkspace: an empty GlobalTensor");
        }
        SetWorkspaceBytes(reinterpret_cast<uint8_t*>(addr.GetPhyAddr()), addr.GetSize() * sizeof(T), aqo_file,
                          aqo_line);
    }
    template <class T>
    void SetWorkspace(T* addr, int size, AQO_EMU_SRC)
    {
        Require(aqo_file, aqo_line, "SetWorkspace");
        SetWorkspaceBytes(reinterpret_cast<uint8_t*>(addr), size < 0 ? 0 : static_cast<uint64_t>(size), aqo_file,
                          aqo_line);
    }

    // ascend310p: the UB buffer the API stages C, its N-tail and the ND-to-NZ copies in (at least
    // MatmulLocalWorkspaceBytes). The client of split SoCs ignores it (an empty function there).
    void SetLocalWorkspace(const LocalTensor<uint8_t>& tmpBuffer, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = Require(aqo_file, aqo_line, "SetLocalWorkspace");
        if (IsSplit(c)) {
            return;
        }
        aqo_emu::CheckRecord(c, tmpBuffer.record_, aqo_file, aqo_line, "Matmul::SetLocalWorkspace", "tmpBuffer");
        const uint64_t need = LocalWorkspaceBytes();
        if (tmpBuffer.GetSize() < need) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::SetLocalWorkspace: the buffer has " + std::to_string(tmpBuffer.GetSize()) +
                              " bytes, the API needs " + std::to_string(need) + " for this tiling (C tile, N-tail "
                              "block, ND-to-NZ staging; MatmulGetTmpBufSize on the host)");
        }
        local_ws_ = tmpBuffer;
        local_ws_set_ = true;
    }

    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    bool waitIterateAll = false, bool fakeMsg = false, AQO_EMU_SRC)
    {
        (void)fakeMsg;
        aqo_emu::CoreContext& c = Require(aqo_file, aqo_line, "IterateAll");
        static_assert(C_TYPE::pos == TPosition::GM, "emulated Matmul: IterateAll into GM needs C in GM");
        if (enAtomic != 0) {
            aqo_emu::Fail(aqo_file, aqo_line, "Matmul::IterateAll: atomic accumulation into C is not modelled");
        }
        if (enSequentialWrite) {
            aqo_emu::Fail(aqo_file, aqo_line, "Matmul::IterateAll: sequential write is not modelled");
        }
        RequireTensors(c, aqo_file, aqo_line, "IterateAll");
        const bool split = IsSplit(c);
        Job job = MakeJob(c, aqo_file, aqo_line, "IterateAll");
        job.c = gm;
        job.ldc = static_cast<uint64_t>(org_kc_);
        CheckStrides(c, job, aqo_file, aqo_line);
        Post(c, aqo_file, aqo_line);
        iter_active_ = false;
        if (!sync && split) {
            // Asynchronous: the cube does the work later (here: when the client waits, or when a later message
            // makes the server finish it first); WaitIterateAll waits for it. Operands and C are snapshotted so that
            // a change while the work is in flight is caught when it is done.
            if (waitIterateAll && job.ldc != job.n) {
                // The API documents WaitIterateAll for a continuous output to GM only ("in discontinuous scenarios
                // the system stops responding", matmul_client.h): C rows with gaps between them are refused.
                aqo_emu::Fail(aqo_file, aqo_line,
                              "Matmul::IterateAll<false> with waitIterateAll: C is not continuous in GM (row stride "
                              "orgKc " + std::to_string(job.ldc) + " != single N " + std::to_string(job.n) + ", " +
                                  ShapeText() + "); WaitIterateAll supports a continuous output only: set orgKc to "
                                  "the single N");
            }
            if (waitIterateAll) {
                // The cube notifies each one through a cross-core flag whose counter holds 0..15 (the
                // CrossCoreSetFlag page: past that the device stops with an error); the cube may finish them all
                // before the client waits.
                const size_t notified = static_cast<size_t>(
                    std::count(unwaited_notify_.begin(), unwaited_notify_.end(), true));
                if (notified >= kMaxPendingNotifications) {
                    aqo_emu::Fail(aqo_file, aqo_line,
                                  "Matmul::IterateAll<false> with waitIterateAll: " + std::to_string(notified + 1) +
                                      " asynchronous IterateAll notifications in flight; the cross-core flag that "
                                      "carries them counts 0..15, so at most 15 may be unwaited (WaitIterateAll "
                                      "first)");
                }
            }
            Pending p;
            p.job = job;
            p.file = aqo_file;
            p.line = aqo_line;
            CheckExtents(c, job, aqo_file, aqo_line);
            Snapshot(c, p);
            p.cube = aqo_emu::CubeRequestBegin(c, aqo_file, aqo_line);  // ordering: the request is made now
            pending_.push_back(p);
            unwaited_.emplace_back(aqo_file, aqo_line);
            unwaited_cube_.push_back(p.cube);
            unwaited_notify_.push_back(waitIterateAll);
            sync_get_c_ = false;
            return;
        }
        Execute(c, job, aqo_file, aqo_line);
        sync_get_c_ = true;
    }

    // Split SoCs: waits for the oldest asynchronous IterateAll (its work is done now).
    void WaitIterateAll(AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = Require(aqo_file, aqo_line, "WaitIterateAll");
        if (!IsSplit(c)) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          std::string("Matmul::WaitIterateAll: ") + c.soc.name + "'s Matmul (MatmulImpl, on the AI "
                              "core itself) has no WaitIterateAll: its IterateAll is synchronous");
        }
        if (sync_get_c_) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::WaitIterateAll after a synchronous computation (the client asserts the "
                          "asynchronous mode)");
        }
        if (unwaited_.empty()) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::WaitIterateAll without an asynchronous IterateAll in flight: on the device it "
                          "waits forever");
        }
        if (!unwaited_notify_.front()) {
            // matmul_server_impl.h: the cube notifies the end of an asynchronous IterateAll only when the message
            // carries waitIterateAll (or sync); the client's WaitIterateAll waits for that notification.
            aqo_emu::Fail(aqo_file, aqo_line,
                          std::string("Matmul::WaitIterateAll for the asynchronous IterateAll started at ") +
                              unwaited_.front().first + ":" + std::to_string(unwaited_.front().second) +
                              " without waitIterateAll = true: the cube notifies the end of an asynchronous "
                              "IterateAll only when asked to, so on the device this wait never returns; call "
                              "IterateAll<false>(gm, 0, false, true)");
        }
        if (pending_.size() >= unwaited_.size()) {
            Complete(c, aqo_file, aqo_line);  // the oldest one not yet done
        }
        unwaited_.erase(unwaited_.begin());
        unwaited_notify_.erase(unwaited_notify_.begin());
        aqo_emu::CubeRequestWait(c, unwaited_cube_.front(), aqo_file, aqo_line);  // ordering: the core waits here
        unwaited_cube_.erase(unwaited_cube_.begin());
    }

    // One base block per call: true while blocks remain. sync: the block is computed now and GetTensorC(gm) writes
    // it; !sync (split SoCs): the first call starts the whole computation into the SetWorkspace workspace, and
    // GetTensorC<false>() hands out its blocks in order.
    template <bool sync = true>
    bool Iterate(bool enPartialSum = false, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = Require(aqo_file, aqo_line, "Iterate");
        if (enPartialSum) {
            aqo_emu::Fail(aqo_file, aqo_line, "Matmul::Iterate: partial sums are not modelled");
        }
        const bool split = IsSplit(c);
        const bool async = !sync && split;
        if (!iter_active_) {
            RequireTensors(c, aqo_file, aqo_line, "Iterate");
            FinishIterRequests(c, aqo_file, aqo_line);  // the previous sequence ends on the cube first
            if (async) {
                if (!kCInUb) {
                    aqo_emu::Fail(aqo_file, aqo_line,
                                  "Matmul::Iterate<false>: the asynchronous Iterate needs C in UB (VECIN / VECOUT / "
                                  "VECCALC, the blocks go to the SetWorkspace workspace); C is in GM");
                }
                if (!ws_set_) {
                    aqo_emu::Fail(aqo_file, aqo_line,
                                  "Matmul::Iterate<false> without SetWorkspace: the asynchronous Iterate writes its "
                                  "blocks to that workspace");
                }
            } else if (kCInUb) {
                aqo_emu::Fail(aqo_file, aqo_line,
                              "Matmul::Iterate: a synchronous block into a UB C position is not modelled");
            }
            iter_job_ = MakeJob(c, aqo_file, aqo_line, "Iterate");
            CheckStrides(c, iter_job_, aqo_file, aqo_line);
            Post(c, aqo_file, aqo_line);
            iter_async_ = async;
            iter_active_ = true;
            iter_done_ = false;
            iter_blocks_ = Blocks(c, iter_job_, aqo_file, aqo_line);
            iter_index_ = 0;
            iter_consumed_ = 0;
            iter_block_pending_ = !async;
            iter_file_ = aqo_file;
            iter_line_ = aqo_line;
            sync_get_c_ = !async;
            aqo_emu::MatmulStatsOf(c.block_idx, aqo_file, aqo_line).calls++;
            iter_loads_ = Loads(iter_job_, aqo_file, aqo_line);
            iter_requests_.clear();
            if (async) {
                // The client waits once per block for the first INC_PROCESS_CHECK - 1 blocks and once more, at the
                // next fetch, for the end of the computation (matmul_client.h GetTensorC<false>, matmul_server_impl.h
                // StartIterate; INC_PROCESS_CHECK = 14 in dav_c220/kfc/kfc_comm.h): the cube works through them in
                // order, all requested now.
                const size_t n = iter_blocks_.size();
                const size_t per_block = std::min(n, kIncProcessCheck - 1);
                for (size_t i = 0; i <= per_block && i < n; ++i) {
                    IterRequest q;
                    q.first = i;
                    q.last = i < per_block ? i : n - 1;
                    q.handle = aqo_emu::CubeRequestBegin(c, aqo_file, aqo_line);  // ordering: requested now
                    iter_requests_.push_back(q);
                }
            } else {
                iter_cube_ = aqo_emu::CubeRequestBegin(c, aqo_file, aqo_line);  // ordering: the request is made now
            }
            return true;
        }
        if (iter_async_ != async) {
            aqo_emu::Fail(aqo_file, aqo_line, "Matmul::Iterate: the mode (sync template argument) changed inside "
                                              "one sequence of blocks");
        }
        if (!async && iter_block_pending_) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::Iterate: the previous block was not fetched with GetTensorC (the next Iterate "
                          "overwrites it in L0C)");
        }
        if (++iter_index_ >= iter_blocks_.size()) {
            iter_active_ = iter_async_ && iter_consumed_ < iter_blocks_.size();  // async blocks may still be fetched
            if (!iter_async_) {
                iter_active_ = false;
            }
            iter_done_ = true;
            return false;
        }
        if (!async) {
            Post(c, aqo_file, aqo_line);
            iter_block_pending_ = true;
            iter_cube_ = aqo_emu::CubeRequestBegin(c, aqo_file, aqo_line);  // ordering: this block's request
        }
        return true;
    }

    // Synchronous block into C in GM, at its place in the org layout (row stride orgKc).
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = Require(aqo_file, aqo_line, "GetTensorC");
        static_assert(C_TYPE::pos == TPosition::GM, "emulated Matmul: GetTensorC into GM needs C in GM");
        if (enAtomic != 0 || enSequentialWrite) {
            aqo_emu::Fail(aqo_file, aqo_line, "Matmul::GetTensorC: atomic or sequential writes are not modelled");
        }
        if (!iter_active_ || iter_async_ || !iter_block_pending_) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          std::string("Matmul::GetTensorC(gm): ") +
                              (!iter_active_ ? "no block: call Iterate first"
                                             : (iter_async_ ? "the blocks of an asynchronous Iterate are fetched with "
                                                              "GetTensorC<false>() (the client asserts the "
                                                              "synchronous mode)"
                                                            : "this block was already fetched")));
        }
        Post(c, aqo_file, aqo_line);
        const std::pair<uint32_t, uint32_t> blk = iter_blocks_[iter_index_];
        Job job = BlockJob(iter_job_, blk);
        job.c = gm[static_cast<uint64_t>(blk.first) * static_cast<uint64_t>(tiling_.baseM) *
                       static_cast<uint64_t>(org_kc_) +
                   static_cast<uint64_t>(blk.second) * static_cast<uint64_t>(tiling_.baseN)];
        job.ldc = static_cast<uint64_t>(org_kc_);
        Execute(c, job, aqo_file, aqo_line, /*count_call=*/false, iter_cube_, &iter_loads_[iter_index_]);
        aqo_emu::CubeRequestWait(c, iter_cube_, aqo_file, aqo_line);  // ordering: the block is in GM now
        iter_block_pending_ = false;
        iter_consumed_++;
    }

    // Split SoCs, asynchronous Iterate: the next block in the workspace (baseM * baseN elements; the block's rows
    // are stored with its own width as row stride). The first call waits for the computation.
    template <bool sync = true>
    GlobalTensor<DstT> GetTensorC(uint8_t enAtomic = 0, bool enSequentialWrite = false, AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = Require(aqo_file, aqo_line, "GetTensorC");
        (void)enSequentialWrite;
        if (!IsSplit(c)) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          std::string("Matmul::GetTensorC(): ") + c.soc.name + "'s Matmul (MatmulImpl) has no "
                              "GetTensorC returning the workspace block");
        }
        if (enAtomic != 0) {
            aqo_emu::Fail(aqo_file, aqo_line, "Matmul::GetTensorC: atomic accumulation is not modelled");
        }
        return NextWorkspaceBlock(c, aqo_file, aqo_line);
    }

    // Split SoCs, asynchronous Iterate: the next workspace block copied into UB (c.GetSize() elements).
    template <bool sync = true, bool doPad = false>
    void GetTensorC(const LocalTensor<DstT>& dst, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    uint32_t height = 0, uint32_t width = 0, uint32_t srcGap = 0, uint32_t dstGap = 0, AQO_EMU_SRC)
    {
        (void)enSequentialWrite;
        (void)height;
        (void)width;
        (void)srcGap;
        (void)dstGap;
        aqo_emu::CoreContext& c = Require(aqo_file, aqo_line, "GetTensorC");
        if (!IsSplit(c) || sync || doPad || enAtomic != 0) {
            aqo_emu::Fail(aqo_file, aqo_line,
                          "Matmul::GetTensorC(ubTensor): only the asynchronous copy of a workspace block on a split "
                          "SoC is modelled");
        }
        GlobalTensor<DstT> block = NextWorkspaceBlock(c, aqo_file, aqo_line);
        DataCopy(dst, block, dst.GetSize(), aqo_file, aqo_line);
    }

    // Ends a computation (on split SoCs after a synchronous one: a message to the cube). The next computation sets
    // its tensors again.
    void End(AQO_EMU_SRC)
    {
        aqo_emu::CoreContext& c = Require(aqo_file, aqo_line, "End");
        if (sync_get_c_) {
            Post(c, aqo_file, aqo_line);
        }
        a_set_ = false;
        b_set_ = false;
        if (!iter_async_ || iter_consumed_ >= iter_blocks_.size()) {
            iter_active_ = false;
        }
    }

    void SetSubBlockIdx(uint8_t) {}

private:
    struct Job {
        GlobalTensor<SrcAT> a;
        GlobalTensor<SrcBT> b;
        GlobalTensor<DstT> c;
        uint64_t m = 0, n = 0, k = 0;  // the computation (or block) shape
        uint64_t lda = 0, ldb = 0, ldc = 0;
        bool b_trans = false;          // B stored [N, K] (row stride ldb = orgKb)
    };
    // Split SoCs, asynchronous Iterate: the requests the client waits for (matmul_client.h GetTensorC: one per block
    // for the first INC_PROCESS_CHECK - 1 blocks, then one for the rest, sent when the computation ends): their
    // first and last block and handle.
    struct IterRequest {
        size_t first = 0, last = 0;
        uint64_t handle = 0;
        bool done = false;
    };
    struct Pending {
        Job job;
        const char* file = "";
        int line = 0;
        uint64_t a_hash = 0, b_hash = 0, c_hash = 0;
        uint64_t cube = 0;  // its request to the cube (emulator/emu_order.h)
    };

    static bool IsSplit(const aqo_emu::CoreContext& c) { return c.soc.id != aqo_emu::SocId::kAscend310P; }

    aqo_emu::CoreContext& Require(const char* file, int line, const char* api) const
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(file, line);
        if (!inited_) {
            aqo_emu::Fail(file, line, std::string("Matmul::") + api +
                                          " before Init (REGIST_MATMUL_OBJ with the TCubeTiling was not called)");
        }
        return c;
    }

    // A client call that only fills the pending message (split SoCs): remembered until the next message.
    void NoteUnposted(const char* what, const char* file, int line)
    {
        unposted_ = what;
        unposted_file_ = file;
        unposted_line_ = line;
    }

    // A message from the client to the cube (split SoCs): the server takes messages in order, so it finishes the
    // asynchronous work in flight first; the message body's flags are cleared (matmul_client.h PostMessage).
    void Post(aqo_emu::CoreContext& c, const char* file, int line)
    {
        if (!IsSplit(c)) {
            return;
        }
        // KfcCommClient::PostMessage: an S_MTE3 pair on a fetched id before the message's copy to GM, which goes
        // through the top of UB.
        aqo_emu::OrderApiFlagPair(c, aqo_emu::HardEventOf(aqo_emu::Pipe::kS, aqo_emu::Pipe::kMte3), file, line,
                                  "the Matmul client (a message to the cube)");
        aqo_emu::CheckMatmulClientMessageUb(c, file, line, "the Matmul client (a message to the cube)");
        while (!pending_.empty()) {
            Complete(c, file, line);
        }
        FinishIterRequests(c, file, line);
        unposted_ = nullptr;
        first_iter_ = false;
    }

    void RequireTensors(aqo_emu::CoreContext& c, const char* file, int line, const char* api)
    {
        if (!a_set_ || !b_set_) {
            aqo_emu::Fail(file, line, std::string("Matmul::") + api + " before " + (!a_set_ ? "SetTensorA" : "SetTensorB"));
        }
        if (IsSplit(c) && !first_iter_) {
            aqo_emu::Fail(file, line,
                          std::string("Matmul::") + api + ": no SetTensorA / SetTensorB since the client's last "
                              "message to the cube (its isFirstIter flag is cleared by every message, and the client "
                              "asserts it): set the tensors again right before the computation");
        }
    }

    std::string ShapeText() const
    {
        return "single " + std::to_string(single_m_) + " x " + std::to_string(single_n_) + " x " +
               std::to_string(single_k_) + " (M x N x K), org M " + std::to_string(org_m_) + ", N " +
               std::to_string(org_n_) + ", Ka " + std::to_string(org_ka_) + ", Kb " + std::to_string(org_kb_) +
               ", Kc " + std::to_string(org_kc_);
    }

    Job MakeJob(aqo_emu::CoreContext& c, const char* file, int line, const char* api)
    {
        (void)c;
        if (single_m_ <= 0 || single_n_ <= 0 || single_k_ <= 0 || single_m_ > org_m_ || single_n_ > org_n_ ||
            single_k_ > org_ka_ || single_k_ > org_kb_ || single_n_ > org_kc_) {
            aqo_emu::Fail(file, line,
                          std::string("Matmul::") + api + ": " + ShapeText() +
                              ": the single shape must be positive and fit the org shape (row strides Ka, N, Kc at "
                              "least one row)");
        }
        Job j;
        j.a = a_;
        j.b = b_;
        j.m = static_cast<uint64_t>(single_m_);
        j.n = static_cast<uint64_t>(single_n_);
        j.k = static_cast<uint64_t>(single_k_);
        j.lda = static_cast<uint64_t>(org_ka_);
        j.b_trans = b_trans_;
        j.ldb = static_cast<uint64_t>(b_trans_ ? org_kb_ : org_n_);
        return j;
    }

    // The GM -> L1 copy of an ND operand passes its row stride in a 16-bit field (Nd2NzParams::srcDValue) on 910b
    // unless the config asks for the intrinsic check, which then copies rows of such strides one by one
    // (stage/copy_cube_in/copy_tile_to_cube/data_copy_wrapper_nd.h); 950's headers are not public, so it is held to
    // the same rule. ascend310p stages the copy through UB and splits large strides itself.
    void CheckStrides(aqo_emu::CoreContext& c, const Job& j, const char* file, int line) const
    {
        if (!IsSplit(c) || kCfg.intrinsicsCheck) {
            return;
        }
        const char* which = j.lda > 65535 ? "A's row stride (orgKa, K)"
                                          : (j.ldb > 65535 ? (j.b_trans ? "B's row stride (orgKb, K; B transposed)"
                                                                        : "B's row stride (orgN, N)")
                                                           : nullptr);
        if (which != nullptr) {
            aqo_emu::Fail(file, line,
                          std::string("Matmul: ") + which + " = " + std::to_string(j.lda > 65535 ? j.lda : j.ldb) +
                              " on " + c.soc.name + ": the ND-to-NZ copy into L1 takes the row stride in a 16-bit "
                              "field, so a stride of 65536 or more would wrap; use a config built with "
                              "intrinsicsLimit = true (GetNormalConfig(true) / GetMDLConfig(true)), which copies such "
                              "rows one by one");
        }
    }

    uint64_t LocalWorkspaceBytes() const
    {
        aqo::MatmulLocalWorkspaceShape s = aqo::LocalWorkspaceShapeOf(tiling_);
        s.mdl = kCfg.doMultiDataLoad;
        s.vec_nd2nz = kCfg.enVecND2NZ;
        s.ub_reuse = kCfg.enableUBReuse;
        s.c_in_gm = C_TYPE::pos == TPosition::GM;
        // matmul_local_workspace.h: a C in VECCALC in a format other than NZ is staged like one in GM
        s.c_tile_staged = s.c_in_gm || (C_TYPE::pos == TPosition::VECCALC && C_TYPE::format != CubeFormat::NZ);
        s.c_bytes = sizeof(DstT);
        s.src_bytes = sizeof(SrcAT);
        s.int8_pair = std::is_same<SrcAT, int8_t>::value && std::is_same<SrcBT, int8_t>::value;
        return aqo::MatmulLocalWorkspaceBytes(s);
    }

    // ascend310p: every computation stages through the local workspace.
    void UseLocalWorkspace(aqo_emu::CoreContext& c, const char* file, int line, const char* api)
    {
        if (IsSplit(c)) {
            return;
        }
        const uint64_t need = LocalWorkspaceBytes();
        if (!local_ws_set_) {
            aqo_emu::CheckMatmulScratchAtUbZero(c, need, file, line, api);
            return;
        }
        aqo_emu::CheckRecord(c, local_ws_.record_, file, line, api, "the SetLocalWorkspace buffer");
        aqo_emu::SetUbDefined(c, local_ws_.byte_, need, false);  // the API's scratch: no kernel data survives
    }

    std::vector<std::pair<uint32_t, uint32_t>> Blocks(aqo_emu::CoreContext& c, const Job& j, const char* file,
                                                      int line) const
    {
        (void)c;
        const bool order_n = OrderN(file, line);
        const uint32_t m_iter = static_cast<uint32_t>((j.m + tiling_.baseM - 1) / tiling_.baseM);
        const uint32_t n_iter = static_cast<uint32_t>((j.n + tiling_.baseN - 1) / tiling_.baseN);
        return aqo_emu::MatmulBlockOrder(m_iter, n_iter, static_cast<uint32_t>(tiling_.stepM),
                                         static_cast<uint32_t>(tiling_.stepN), order_n);
    }

    Job BlockJob(const Job& whole, std::pair<uint32_t, uint32_t> blk) const
    {
        const uint64_t r0 = static_cast<uint64_t>(blk.first) * tiling_.baseM;
        const uint64_t c0 = static_cast<uint64_t>(blk.second) * tiling_.baseN;
        Job j = whole;
        j.a = whole.a[r0 * whole.lda];
        j.b = whole.b_trans ? whole.b[c0 * whole.ldb] : whole.b[c0];
        j.m = std::min<uint64_t>(tiling_.baseM, whole.m - r0);
        j.n = std::min<uint64_t>(tiling_.baseN, whole.n - c0);
        return j;
    }

    void SetWorkspaceBytes(uint8_t* addr, uint64_t bytes, const char* file, int line)
    {
        aqo_emu::CoreContext& c = aqo_emu::Ctx(file, line);
        if (addr == nullptr || bytes == 0) {
            aqo_emu::Fail(file, line, "Matmul::SetWorkspace: no workspace (null address or 0 bytes)");
        }
        workspace_.SetGlobalBuffer(reinterpret_cast<DstT*>(addr), bytes / sizeof(DstT), aqo_emu::CallerFile(file), line);
        workspace_.Region(c, file, line, "Matmul::SetWorkspace");
        ws_set_ = true;
    }

    GlobalTensor<DstT> NextWorkspaceBlock(aqo_emu::CoreContext& c, const char* file, int line)
    {
        if (iter_active_ && !iter_async_) {
            aqo_emu::Fail(file, line,
                          "Matmul::GetTensorC<false>(): the blocks of a synchronous Iterate are fetched with "
                          "GetTensorC(gm) (the client asserts the asynchronous mode)");
        }
        if (!iter_active_ && !(iter_async_ && iter_done_)) {
            aqo_emu::Fail(file, line, "Matmul::GetTensorC<false>(): no asynchronous Iterate in progress");
        }
        if (iter_consumed_ > iter_index_ || iter_consumed_ >= iter_blocks_.size()) {
            aqo_emu::Fail(file, line,
                          "Matmul::GetTensorC<false>(): block " + std::to_string(iter_consumed_) + " fetched but " +
                              (iter_consumed_ >= iter_blocks_.size()
                                   ? "the computation has only " + std::to_string(iter_blocks_.size())
                                   : "Iterate has announced only " + std::to_string(iter_index_ + 1)) +
                              " blocks");
        }
        const uint64_t block_elems = static_cast<uint64_t>(tiling_.baseM) * static_cast<uint64_t>(tiling_.baseN);
        // The request this fetch waits for: block j's own for the first blocks, the end of the computation for the
        // next one; later fetches wait for nothing (the computation has ended).
        const size_t r = std::min(iter_consumed_, iter_requests_.size() - 1);
        if (!iter_requests_[r].done) {
            ComputeIterRequest(c, iter_requests_[r], file, line);
            aqo_emu::CubeRequestWait(c, iter_requests_[r].handle, file, line);  // ordering: the core waits here
        }
        GlobalTensor<DstT> block = workspace_[iter_consumed_ * block_elems];
        block.SetGlobalBuffer(workspace_.GetPhyAddr(iter_consumed_ * block_elems), block_elems, aqo_emu::CallerFile(file), line);
        iter_consumed_++;
        if (iter_done_ && iter_consumed_ >= iter_blocks_.size()) {
            iter_active_ = false;
        }
        return block;
    }

    // The cube computes the blocks of an asynchronous Iterate request into the workspace (each block's rows with its
    // own width as row stride, at its slot of baseM x baseN elements: the server's sequential write), and records
    // the request's work.
    void ComputeIterRequest(aqo_emu::CoreContext& c, IterRequest& q, const char* file, int line)
    {
        const uint64_t block_elems = static_cast<uint64_t>(tiling_.baseM) * static_cast<uint64_t>(tiling_.baseN);
        uint64_t macs = 0, c_bytes = 0;
        for (size_t i = q.first; i <= q.last; ++i) {
            Job j = BlockJob(iter_job_, iter_blocks_[i]);
            j.c = workspace_[i * block_elems];
            j.ldc = j.n;  // sequential write: the block's own width is its row stride
            Execute(c, j, file, line, /*count_call=*/false, q.handle, &iter_loads_[i], /*record=*/false);
            macs += aqo_emu::MatmulPaddedMacs(j.m, j.n, j.k, sizeof(SrcAT));
            c_bytes += j.m * j.n * sizeof(DstT);
        }
        const aqo_emu::MatmulBlockLoad sum = Sum(iter_loads_, q.first, q.last);
        aqo_emu::CubeRequestWork(c, q.handle, sum.a_bytes + sum.b_bytes, macs, sizeof(SrcAT), c_bytes, file, line);
        q.done = true;
    }

    // A new message reaches the cube only after it finished the asynchronous Iterate in flight: its blocks are in
    // the workspace, but the client has not waited for them (its later reads of them are not ordered after the
    // cube's writes unless it fetches them).
    void FinishIterRequests(aqo_emu::CoreContext& c, const char* file, int line)
    {
        for (IterRequest& q : iter_requests_) {
            if (!q.done) {
                ComputeIterRequest(c, q, file, line);
            }
        }
    }

    // Operands outside their GlobalTensors fail where the computation is started (not only when it is done), and
    // only spans inside them are snapshotted.
    void CheckExtents(aqo_emu::CoreContext& c, const Job& j, const char* file, int line) const
    {
        auto check = [&](const auto& g, uint64_t span, bool write, const char* what) {
            const uint8_t* p = reinterpret_cast<const uint8_t*>(g.ptr_);
            if (p < g.begin_ || p + span > g.end_) {
                aqo_emu::CheckGmRange(c, g.Region(c, file, line, what), g.begin_, g.end_, p, span, write, file, line,
                                      (std::string(what) + ", " + ShapeText()).c_str());
            }
        };
        check(j.a, ((j.m - 1) * j.lda + j.k) * sizeof(SrcAT), false, "Matmul A");
        check(j.b, BSpan(j) * sizeof(SrcBT), false, "Matmul B");
        check(j.c, ((j.m - 1) * j.ldc + j.n) * sizeof(DstT), true, "Matmul C");
    }

    void Snapshot(aqo_emu::CoreContext& c, Pending& p) const
    {
        (void)c;
        const Job& j = p.job;
        p.a_hash = aqo_emu::MatmulHashBytes(reinterpret_cast<const uint8_t*>(j.a.GetPhyAddr()),
                                            ((j.m - 1) * j.lda + j.k) * sizeof(SrcAT));
        p.b_hash = aqo_emu::MatmulHashBytes(reinterpret_cast<const uint8_t*>(j.b.GetPhyAddr()),
                                            BSpan(j) * sizeof(SrcBT));
        p.c_hash = aqo_emu::MatmulHashBytes(reinterpret_cast<const uint8_t*>(j.c.GetPhyAddr()),
                                            ((j.m - 1) * j.ldc + j.n) * sizeof(DstT));
    }

    // The oldest asynchronous computation is done now; A, B and C must be as they were when it was started.
    void Complete(aqo_emu::CoreContext& c, const char* file, int line)
    {
        Pending p = pending_.front();
        pending_.erase(pending_.begin());
        Pending now = p;
        Snapshot(c, now);
        const char* changed = now.a_hash != p.a_hash ? "A" : (now.b_hash != p.b_hash ? "B" : (now.c_hash != p.c_hash ? "C" : nullptr));
        if (changed != nullptr) {
            aqo_emu::Fail(file, line,
                          std::string("Matmul: ") + changed + " of the asynchronous IterateAll started at " + p.file +
                              ":" + std::to_string(p.line) + " changed while it was in flight (the cube " +
                              (changed[0] == 'C' ? "writes" : "reads") + " it until WaitIterateAll returns)");
        }
        Execute(c, p.job, file, line, true, p.cube);
    }

    // Elements from a job's first element of B to its last (B [K, N] row stride ldb, or transposed [N, K]).
    static uint64_t BSpan(const Job& j) { return j.b_trans ? (j.n - 1) * j.ldb + j.k : (j.k - 1) * j.ldb + j.n; }

    bool OrderN(const char* file, int line) const
    {
        IterateOrder order = kCfg.iterateOrder;
        if (order == IterateOrder::UNDEF) {
            if (tiling_.iterateOrder != 0 && tiling_.iterateOrder != 1) {
                aqo_emu::Fail(file, line, "Matmul: TCubeTiling iterateOrder " + std::to_string(tiling_.iterateOrder) +
                                              " is neither ORDER_M (0) nor ORDER_N (1)");
            }
            order = tiling_.iterateOrder == 0 ? IterateOrder::ORDER_M : IterateOrder::ORDER_N;
        }
        return order == IterateOrder::ORDER_N;
    }

    // The API's L1 loads of a job's base blocks, in its block order (MatmulL1Loads: NORM's cache; MDL's counted
    // without reuse across blocks).
    std::vector<aqo_emu::MatmulBlockLoad> Loads(const Job& j, const char* file, int line) const
    {
        aqo_emu::MatmulLoadInput in;
        in.m = j.m;
        in.n = j.n;
        in.k = j.k;
        in.base_m = static_cast<uint32_t>(tiling_.baseM);
        in.base_n = static_cast<uint32_t>(tiling_.baseN);
        in.base_k = static_cast<uint32_t>(tiling_.baseK);
        in.step_m = static_cast<uint32_t>(tiling_.stepM);
        in.step_n = static_cast<uint32_t>(tiling_.stepN);
        in.depth_a1 = tiling_.depthA1;
        in.depth_b1 = tiling_.depthB1;
        in.order_n = OrderN(file, line);
        in.norm = kCfg.doNorm;
        in.a_elem = sizeof(SrcAT);
        in.b_elem = sizeof(SrcBT);
        return aqo_emu::MatmulL1Loads(in);
    }

    static aqo_emu::MatmulBlockLoad Sum(const std::vector<aqo_emu::MatmulBlockLoad>& loads, size_t first, size_t last)
    {
        aqo_emu::MatmulBlockLoad t;
        for (size_t i = first; i <= last && i < loads.size(); ++i) {
            t.a_bytes += loads[i].a_bytes;
            t.b_bytes += loads[i].b_bytes;
            t.a_tiles += loads[i].a_tiles;
            t.b_tiles += loads[i].b_tiles;
        }
        return t;
    }

    // The cube computes a job: A and B read, C written, each through one checked GM access (the ordering model sees
    // every byte the job can touch); `load` is what its L1 copies read from GM (the statistics and the trace count
    // that; null: the job's blocks as one computation). `cube`: the request (emulator/emu_order.h) it belongs to;
    // 0 = a synchronous request made and waited for here; `record`: false when the caller records the request's
    // work itself (several jobs of one request).

    // ascend310p (no fixpipe) writes C back from UB row by row, in whole 32-byte blocks (the 8.1 header's
    // CopyLocal2GMNZ2NDOnTheFly, copy_cube_out_datacopy.h, and its tail helpers in copy_cube_out_datacopy_wrapper.h),
    // per base block of width w and height h (elements of s bytes; a "fractal row" is 16 elements for 4-byte C,
    // 32 / s otherwise; e = 32 / s elements per 32 bytes):
    //   * the whole fractal rows [0, w - w % 16) with one copy;
    //   * a tail with w * s <= 32: the 32 bytes at [w, w + e) are read into UB, the row's 32 bytes written at 0, the
    //     saved bytes written back at w: a read-modify-write of [w, w + e), past the block's right edge;
    //   * a tail with w * s > 32 (4-byte C): the register-move tail copy, whose loop counts are a 2-byte C's: the
    //     row's last 8 columns get the wrong values, so the emulator refuses it;
    //   * both tails go through a 32-byte scratch that the local workspace keeps apart from the C tile only when the
    //     tiling's singleCoreN is not a multiple of e (else it is the tile's row 0): refused without it;
    //   * C declared ND_ALIGN: no tail copy, every row whole fractal rows, the padding columns [w, w - w % 16 + 16)
    //     written with the cube's values for columns beyond N.
    // Those accesses beyond the block's width are recorded here (bounds: the GM buffer, as on the device; ordering;
    // another core's bytes). Returns true when some row writes padding columns (ND_ALIGN): the caller then writes C in
    // the device's order, padding columns garbage.
    bool WriteBackBeyondWidth(aqo_emu::CoreContext& c, uint64_t cube, const Job& j, uint8_t* pc, const char* file,
                              int line, const std::string& shape)
    {
        if constexpr (kCfg.enVecND2NZ) {
            aqo_emu::Fail(file, line, "Matmul: the vector ND2NZ C write-back (enVecND2NZ) of " +
                                          std::string(c.soc.name) + " is not modelled");
        }
        constexpr uint64_t s = sizeof(DstT);
        constexpr uint64_t fractal = s == 4 ? 16 : 32 / s;
        constexpr uint64_t e = 32 / s;
        const int region = j.c.Region(c, file, line, "Matmul (C)");
        const aqo_emu::GmRegion& r = (*c.gm)[region];
        const uint8_t* buf_begin = r.base;
        const uint8_t* buf_end = r.base + r.bytes;
        bool overshoot = false;
        // Byte ranges (offsets from pc) beyond the blocks' widths, merged when rows touch (C rows contiguous).
        std::vector<std::pair<uint64_t, uint64_t>> reads, writes;
        auto add = [](std::vector<std::pair<uint64_t, uint64_t>>& v, uint64_t b, uint64_t end) {
            if (!v.empty() && b <= v.back().second && b >= v.back().first) {
                v.back().second = std::max(v.back().second, end);
            } else {
                v.emplace_back(b, end);
            }
        };
        if (kCAlign && j.ldc % fractal != 0) {
            // ND_ALIGN writes every row at the aligned C width but places a block's rows by the unaligned one
            // (copy_cube_out_datacopy.h CopyLocal2GMNZ2NDOnTheFly): the two agree only when orgKc is whole fractal
            // rows, whatever the blocks' widths.
            aqo_emu::Fail(file, line,
                          "Matmul C (ND_ALIGN) on " + std::string(c.soc.name) + ": orgKc " + std::to_string(j.ldc) +
                              " is not a multiple of " + std::to_string(fractal) +
                              " elements: the API writes rows at the aligned stride but places blocks by the "
                              "unaligned one; " + shape);
        }
        for (const auto& blk : Blocks(c, j, file, line)) {
            const uint64_t r0 = static_cast<uint64_t>(blk.first) * tiling_.baseM;
            const uint64_t c0 = static_cast<uint64_t>(blk.second) * tiling_.baseN;
            const uint64_t h = std::min<uint64_t>(tiling_.baseM, j.m - r0);
            const uint64_t w = std::min<uint64_t>(tiling_.baseN, j.n - c0);
            const uint64_t tail = w % fractal;
            if (tail == 0) continue;
            if constexpr (kCAlign) {
                // Whole fractal rows: the padding columns [w, w - tail + fractal) get the cube's values for columns
                // beyond N.
                for (uint64_t i = 0; i < h; ++i) {
                    const uint64_t row = ((r0 + i) * j.ldc + c0) * s;
                    add(writes, row + w * s, row + (w - tail + fractal) * s);
                }
                overshoot = true;
                continue;
            }
            if (s == 4 && w * s > 32) {
                // CopyLocal2GMNZ2NDRegMov (copy_cube_out_datacopy_wrapper.h) writes the row's last 8 columns from a
                // scratch it fills with 16 - w % 16 values of the previous fractal from column 8 + w % 16 on (its
                // loop counts are a 2-byte C's): past that fractal row's end, i.e. the next row's values, then the
                // tail fractal's columns at the wrong places.
                aqo_emu::Fail(file, line,
                              "Matmul C write-back on " + std::string(c.soc.name) + ": a block of width " +
                                  std::to_string(w) + " (more than 8 int32 columns, not a multiple of 16) takes the "
                                  "API's register-move tail copy, which fills the row's last 8 columns from the wrong "
                                  "fractal row for a 4-byte C; declare C as CubeFormat::ND_ALIGN (whole fractal rows, "
                                  "no tail copy) or keep every block width a multiple of 16 or at most 8; " + shape);
            }
            if (static_cast<uint64_t>(tiling_.singleCoreN) % e == 0) {
                // The tail copies go through the API's 32-byte NZ -> ND scratch, which SetLocalWorkspace places after
                // the staged C tile only when the tiling's singleCoreN is not a multiple of 32 / sizeof(C)
                // (matmul_local_workspace.h); otherwise it is the tile's first bytes, C row 0 of the block, which the
                // tail copy overwrites before (or while) that row is written back.
                aqo_emu::Fail(file, line,
                              "Matmul C write-back on " + std::string(c.soc.name) + ": a block of width " +
                                  std::to_string(w) + " (not a multiple of " + std::to_string(fractal) +
                                  ") takes the API's tail copy, whose 32-byte scratch is the staged C tile's row 0: the "
                                  "local workspace reserves it after the tile only when the tiling's singleCoreN (" +
                                  std::to_string(tiling_.singleCoreN) + ") is not a multiple of " +
                                  std::to_string(e) + "; " + shape);
            }
            for (uint64_t i = 0; i < h; ++i) {
                const uint64_t row = ((r0 + i) * j.ldc + c0) * s;
                if (w * s <= 32) {
                    add(reads, row + w * s, row + (w + e) * s);
                    add(writes, row + w * s, row + (w + e) * s);
                }
            }
        }
        const std::string api = "Matmul C write-back beyond the block's width on " + std::string(c.soc.name) +
                                " (whole 32-byte blocks), " + shape;
        for (const auto& rg : reads) {
            aqo_emu::CubeGmAccess(c, cube, region, buf_begin, buf_end, pc + rg.first, 1, rg.second - rg.first,
                                  rg.second - rg.first, false, file, line, api.c_str(), /*require_written=*/false);
        }
        // The read-modify-write puts back what the bytes held: never-written bytes stay so.
        const uint64_t pc_off = static_cast<uint64_t>(pc - r.base);
        std::vector<uint8_t> before;
        if (aqo_emu::GmTracksWrites(r) && !r.written.empty()) {
            for (const auto& rg : reads) {
                before.insert(before.end(), r.written.begin() + pc_off + rg.first,
                              r.written.begin() + pc_off + rg.second);
            }
        }
        for (const auto& rg : writes) {
            aqo_emu::CubeGmAccess(c, cube, region, buf_begin, buf_end, pc + rg.first, 1, rg.second - rg.first,
                                  rg.second - rg.first, true, file, line, api.c_str());
        }
        if (!before.empty()) {
            size_t at = 0;
            for (const auto& rg : reads) {
                for (uint64_t b = rg.first; b < rg.second; ++b) {
                    aqo_emu::GmSetWritten(c, region, pc_off + b, 1, before[at++] != 0);
                }
            }
        }
        return overshoot;
    }

    // Refuses a product whose int32 accumulation may leave int32 (MatmulInt32MayLeaveRange): the cube saturates.
    void CheckInt32Range(const Job& j, const uint8_t* pa, const uint8_t* pb, const char* file, int line) const
    {
        aqo_emu::MatmulRangeRisk r;
        if (aqo_emu::MatmulInt32MayLeaveRange(pa, std::is_signed<SrcAT>::value, j.lda, pb, std::is_signed<SrcBT>::value,
                                              j.ldb, static_cast<uint32_t>(j.m), static_cast<uint32_t>(j.n),
                                              static_cast<uint32_t>(j.k), j.b_trans, &r)) {
            aqo_emu::Fail(file, line,
                          "Matmul: C[" + std::to_string(r.row) + ", " + std::to_string(r.col) + "] sums " +
                              std::to_string(j.k) + " products whose magnitudes add up to " +
                              std::to_string(r.magnitude) + " > 2^31 - 1: a partial sum may leave int32, where "
                              "integer Mmad saturates (documented; its order along K is not), so C would not be "
                              "the wrapped sum; keep a cube call's K at most 131071 for int8 x int8 (" +
                              ShapeText() + ")");
        }
    }

    // C computed, then written in the device's order (blocks in iteration order, rows in order), the padding columns
    // a row's tail copy writes past the width holding garbage (the cube's values for columns beyond N).
    void ComputeIn310pWriteOrder(aqo_emu::CoreContext& c, const Job& j, const uint8_t* pa, const uint8_t* pb,
                                 uint8_t* pc, const char* file, int line)
    {
        // B as the job stores it: [K, N], or [N, K] for a transposed B. The write-back below depends on C's block
        // widths only; how the API reads B into L1 (copy_cube_in_params.h: a transposed B's org height is orgN, its
        // width orgKb) does not change which values C holds.
        std::vector<int32_t> exact(j.m * j.n);
        CheckInt32Range(j, pa, pb, file, line);
        aqo_emu::MatmulExactInt32(pa, std::is_signed<SrcAT>::value, j.lda, pb, std::is_signed<SrcBT>::value, j.ldb,
                                  exact.data(), j.n, static_cast<uint32_t>(j.m), static_cast<uint32_t>(j.n),
                                  static_cast<uint32_t>(j.k), j.b_trans);
        const int region = j.c.Region(c, file, line, "Matmul (C)");
        const uint8_t* base = (*c.gm)[region].base;
        for (const auto& blk : Blocks(c, j, file, line)) {
            const uint64_t r0 = static_cast<uint64_t>(blk.first) * tiling_.baseM;
            const uint64_t c0 = static_cast<uint64_t>(blk.second) * tiling_.baseN;
            const uint64_t h = std::min<uint64_t>(tiling_.baseM, j.m - r0);
            const uint64_t w = std::min<uint64_t>(tiling_.baseN, j.n - c0);
            const uint64_t tail = w % 16;
            for (uint64_t i = 0; i < h; ++i) {
                uint8_t* row = pc + ((r0 + i) * j.ldc + c0) * 4;
                std::memcpy(row, exact.data() + (r0 + i) * j.n + c0, w * 4);
                aqo_emu::GmSetWritten(c, region, static_cast<uint64_t>(row - base), w * 4, true);
                if (kCAlign && tail != 0) {
                    // The padding columns of the last fractal row (ND_ALIGN): garbage, as good as never written
                    // (outputs: must be rewritten; reads: uninitialised).
                    std::memset(row + w * 4, aqo_emu::kGmGarbage, (16 - tail) * 4);
                    aqo_emu::GmSetWritten(c, region, static_cast<uint64_t>(row - base) + w * 4, (16 - tail) * 4,
                                          false);
                }
            }
        }
    }

    // The cube computes a job: A and B read, C written, each through one checked GM access. `cube`: the request
    // (emulator/emu_order.h) it belongs to; 0 = a synchronous request made and waited for here.
    void Execute(aqo_emu::CoreContext& c, const Job& j, const char* file, int line, bool count_call = true,
                 uint64_t cube = 0, const aqo_emu::MatmulBlockLoad* load = nullptr, bool record = true)
    {
        const bool own_request = cube == 0;
        if (own_request) {
            cube = aqo_emu::CubeRequestBegin(c, file, line);
        }
        if constexpr (kCAlign) {
            if (IsSplit(c)) {
                aqo_emu::Fail(file, line, std::string("Matmul: C as ND_ALIGN on ") + c.soc.name +
                                              " (the fixpipe's aligned write-back) is not modelled");
            }
        }
        UseLocalWorkspace(c, file, line, "Matmul (C write-back and ND-to-NZ staging)");
        if (!IsSplit(c)) {
            // ascend310p's MatmulImpl synchronises its C write-back with flags of its own: AllocEventID<MTE3_MTE2>
            // around the rows (copy_cube_out_datacopy.h), an MTE3_V pair after them and an MTE3_MTE2 pair per base
            // block (matmul_impl.h IterateAll): a kernel flag pending on those ids merges with them.
            aqo_emu::OrderApiFlagPair(c, aqo_emu::HardEventOf(aqo_emu::Pipe::kMte3, aqo_emu::Pipe::kMte2), file, line,
                                      "Matmul (the C write-back of ascend310p)");
            aqo_emu::OrderApiFlagPair(c, aqo_emu::HardEventOf(aqo_emu::Pipe::kMte3, aqo_emu::Pipe::kV), file, line,
                                      "Matmul (the C write-back of ascend310p)");
        }
        const std::string shape = "block " + std::to_string(j.m) + " x " + std::to_string(j.n) + " x " +
                                  std::to_string(j.k) + " of " + ShapeText();
        const uint8_t* pa = reinterpret_cast<const uint8_t*>(j.a.ptr_);
        const uint8_t* pb = reinterpret_cast<const uint8_t*>(j.b.ptr_);
        uint8_t* pc = reinterpret_cast<uint8_t*>(j.c.ptr_);
        aqo_emu::CubeGmAccess(c, cube, j.a.Region(c, file, line, "Matmul (A)"), j.a.begin_, j.a.end_, pa, j.m,
                              j.k * sizeof(SrcAT), j.lda * sizeof(SrcAT), false, file, line,
                              ("Matmul A, " + shape).c_str());
        aqo_emu::CubeGmAccess(c, cube, j.b.Region(c, file, line, "Matmul (B)"), j.b.begin_, j.b.end_, pb,
                              j.b_trans ? j.n : j.k, (j.b_trans ? j.k : j.n) * sizeof(SrcBT), j.ldb * sizeof(SrcBT),
                              false, file, line, ("Matmul B, " + shape).c_str());
        aqo_emu::CubeGmAccess(c, cube, j.c.Region(c, file, line, "Matmul (C)"), j.c.begin_, j.c.end_, pc, j.m,
                              j.n * sizeof(DstT), j.ldc * sizeof(DstT), true, file, line,
                              ("Matmul C, " + shape).c_str());
        bool overshoot = false;
        if constexpr (!kFloat8) {  // float8 runs on split SoCs only
            if (!IsSplit(c)) {
                overshoot = WriteBackBeyondWidth(c, cube, j, pc, file, line, shape);
            }
        }
        if (overshoot) {
            if constexpr (!kFloat8) ComputeIn310pWriteOrder(c, j, pa, pb, pc, file, line);
        } else if constexpr (kFloat8) {
            aqo_emu::MatmulNaNOperand nan_at;
            if (aqo_emu::MatmulFloat8FindNaN(pa, aqo_emu::ElemTraits<SrcAT>::kFormat, j.lda, pb,
                                             aqo_emu::ElemTraits<SrcBT>::kFormat, j.ldb, static_cast<uint32_t>(j.m),
                                             static_cast<uint32_t>(j.n), static_cast<uint32_t>(j.k), j.b_trans,
                                             &nan_at)) {
                aqo_emu::Fail(file, line,
                              std::string("Matmul: float8 operand ") + nan_at.matrix + "[" +
                                  std::to_string(nan_at.row) + ", " + std::to_string(nan_at.col) + "] is NaN; the "
                                  "AscendC Mmad page says the cube should not be given NaN inputs (an execution "
                                  "error may result): keep NaN out of the operands (" + ShapeText() + ")");
            }
            aqo_emu::MatmulFloat8(pa, aqo_emu::ElemTraits<SrcAT>::kFormat, j.lda, pb,
                                  aqo_emu::ElemTraits<SrcBT>::kFormat, j.ldb, reinterpret_cast<float*>(pc), j.ldc,
                                  static_cast<uint32_t>(j.m), static_cast<uint32_t>(j.n), static_cast<uint32_t>(j.k),
                                  j.b_trans, c.options.cube_float_saturates && !c.cube_ctrl48_set);
        } else {
            CheckInt32Range(j, pa, pb, file, line);
            aqo_emu::MatmulExactInt32(pa, std::is_signed<SrcAT>::value, j.lda, pb, std::is_signed<SrcBT>::value, j.ldb,
                                      reinterpret_cast<int32_t*>(pc), j.ldc, static_cast<uint32_t>(j.m),
                                      static_cast<uint32_t>(j.n), static_cast<uint32_t>(j.k), j.b_trans);
        }
        const aqo_emu::MatmulBlockLoad whole = load != nullptr ? *load : Sum(Loads(j, file, line), 0, ~size_t{0});
        const uint64_t c_bytes = j.m * j.n * sizeof(DstT);
        const uint64_t macs = aqo_emu::MatmulPaddedMacs(j.m, j.n, j.k, sizeof(SrcAT));
        c.stats->gm_read_bytes += whole.a_bytes + whole.b_bytes;
        c.stats->gm_write_bytes += c_bytes;
        aqo_emu::MatmulCoreStats& s = aqo_emu::MatmulStatsOf(c.block_idx, file, line);
        if (count_call) {
            s.calls++;
        }
        s.a_bytes += whole.a_bytes;
        s.b_bytes += whole.b_bytes;
        s.c_bytes += c_bytes;
        s.macs += j.m * j.n * j.k;
        s.padded_macs += macs;
        if (!record) {
            return;
        }
        const aqo_emu::CubeOutShape out =
            IsSplit(c) ? aqo_emu::CubeOutShape() : WorkShape310p(c, j, own_request, whole, file, line);
        if (own_request) {
            aqo_emu::CubeRequestEnd(c, cube, whole.a_bytes + whole.b_bytes, macs, sizeof(SrcAT), c_bytes, file, line,
                                    out);
        } else {
            aqo_emu::CubeRequestWork(c, cube, whole.a_bytes + whole.b_bytes, macs, sizeof(SrcAT), c_bytes, file, line,
                                     out);
        }
    }

    // ascend310p: how MatmulImpl computes and writes back job j's base blocks, for the timeline model. Each block's
    // C goes from its UB staging to GM one row at a time (copy_cube_out_datacopy.h CopyLocal2GMNZ2NDOnTheFly, the
    // path of a config without enVecND2NZ: a DataCopy per row of the block with one burst per 16-column fractal of
    // the row; an ND C whose width is not whole fractals copies each row's tail with one more DMA). A synchronous
    // IterateAll (iterate_all) sets and waits an MTE3 -> MTE2 flag after every block (matmul_impl.h, enableUBReuse
    // without enableL1CacheUB): the next block's loads start once this block's C is in GM.
    //
    // Its operand loads (copy_cube_in/copy_tile_to_cube/copy_tile_to_cube_using_ub.h, the config without enVecND2NZ):
    // an int8 B not transposed goes into UB one DMA per tile row, is turned there and copied to L1
    // (data_copy_wrapper_using_ub_nd.h CopyND2NZWithTransData, data_copy_wrapper_utils.h), any other operand straight
    // to L1 (CopyND2NZOnTheFly): with a row stride of whole 32-byte blocks one DMA per 32-byte column of the tile,
    // with one burst per tile row; otherwise one DMA per 32-byte block. Tiles are counted at their full base size.
    aqo_emu::CubeOutShape WorkShape310p(aqo_emu::CoreContext& c, const Job& j, bool iterate_all,
                                        const aqo_emu::MatmulBlockLoad& load, const char* file, int line) const
    {
        aqo_emu::CubeOutShape out;
        constexpr uint64_t kBlock = 32;
        auto on_the_fly = [&](uint64_t tiles, uint64_t rows, uint64_t row_bytes, uint64_t stride_bytes) {
            const uint64_t columns = (row_bytes + kBlock - 1) / kBlock;
            const bool aligned = stride_bytes % kBlock == 0 && row_bytes % kBlock == 0;
            out.load_dmas += tiles * (aligned ? columns : columns * rows);
            out.load_bursts += tiles * columns * rows;
        };
        const uint64_t bm = static_cast<uint64_t>(tiling_.baseM), bn = static_cast<uint64_t>(tiling_.baseN),
                       bk = static_cast<uint64_t>(tiling_.baseK);
        on_the_fly(load.a_tiles, bm, bk * sizeof(SrcAT), j.lda * sizeof(SrcAT));
        if (std::is_same<SrcBT, int8_t>::value && !j.b_trans) {
            out.load_dmas += load.b_tiles * bk;
            out.load_bursts += load.b_tiles * bk;
            // Each tile turned in UB (TransDataNDBMatrix: per 32 columns four TransDataTo5HD of ceil(rows / 32)
            // repeats, a last partial group of at most 16 columns two), then one UB -> L1 DMA with a burst per 32 rows
            // (CopyNZ2NZImpl of the turned [columns, rows] tile).
            constexpr uint64_t kHalfList = 16;  // TRANS_DATA_ARRAY_SIZE_MM_API
            const uint64_t iter_k = (bk + kBlock - 1) / kBlock, iter_n = (bn + kBlock - 1) / kBlock;
            const uint64_t tail = bn % kBlock > kHalfList ? 0 : bn % kHalfList;
            const uint64_t per_tile = 4 * (tail != 0 ? iter_n - 1 : iter_n) + (tail != 0 ? 2 : 0);
            out.stage_instrs += load.b_tiles * per_tile;
            out.stage_repeats += load.b_tiles * per_tile * iter_k;
            out.stage_bytes += load.b_tiles * iter_k * iter_n * kBlock * kBlock;
            out.stage_dmas += load.b_tiles;
            out.stage_bursts += load.b_tiles * iter_k;
        } else if (j.b_trans) {
            on_the_fly(load.b_tiles, bn, bk * sizeof(SrcBT), j.ldb * sizeof(SrcBT));
        } else {
            on_the_fly(load.b_tiles, bk, bn * sizeof(SrcBT), j.ldb * sizeof(SrcBT));
        }
        const std::vector<std::pair<uint32_t, uint32_t>> blocks = Blocks(c, j, file, line);
        for (const std::pair<uint32_t, uint32_t>& b : blocks) {
            const uint64_t rows = std::min<uint64_t>(tiling_.baseM, j.m - uint64_t{b.first} * tiling_.baseM);
            const uint64_t cols = std::min<uint64_t>(tiling_.baseN, j.n - uint64_t{b.second} * tiling_.baseN);
            constexpr uint64_t kFractalCols = 16;
            const bool tail = !kCAlign && cols % kFractalCols != 0;
            const uint64_t per_row = kCAlign ? (cols + kFractalCols - 1) / kFractalCols : cols / kFractalCols;
            out.dmas += static_cast<uint32_t>(rows * ((per_row > 0 ? 1 : 0) + (tail ? 1 : 0)));
            out.bursts += static_cast<uint32_t>(rows * (per_row + (tail ? 1 : 0)));
        }
        if (iterate_all && kCfg.enableUBReuse && !kCfg.enableL1CacheUB) {
            out.serial_blocks = static_cast<uint32_t>(blocks.size());
        }
        return out;
    }

    TCubeTiling tiling_;
    bool inited_ = false;
    bool a_set_ = false;
    bool b_set_ = false;
    bool first_iter_ = false;    // split SoCs: SetTensorA / SetTensorB since the client's last message
    bool sync_get_c_ = true;     // the last computation was synchronous (the client's isSyncGetC)
    const char* unposted_ = nullptr;  // split SoCs: a client call whose flags wait for the next message
    const char* unposted_file_ = "";
    int unposted_line_ = 0;
    int org_m_ = 0, org_n_ = 0, org_ka_ = 0, org_kb_ = 0, org_kc_ = 0;
    int single_m_ = 0, single_n_ = 0, single_k_ = 0;
    GlobalTensor<SrcAT> a_;
    GlobalTensor<SrcBT> b_;
    GlobalTensor<DstT> workspace_;
    bool ws_set_ = false;
    LocalTensor<uint8_t> local_ws_;
    bool local_ws_set_ = false;
    std::vector<Pending> pending_;  // asynchronous work not yet done
    std::vector<std::pair<const char*, int>> unwaited_;  // asynchronous IterateAll calls not yet waited for
    std::vector<uint64_t> unwaited_cube_;                // their requests to the cube (emulator/emu_order.h)
    std::vector<bool> unwaited_notify_;                  // started with waitIterateAll = true (the cube notifies)
    bool b_trans_ = false;                               // SetTensorB(gm, true): B stored [N, K]
    std::vector<aqo_emu::MatmulBlockLoad> iter_loads_;   // the Iterate sequence's L1 loads per block
    std::vector<IterRequest> iter_requests_;
    uint64_t iter_cube_ = 0;                             // the Iterate sequence's current request
    // Iterate sequence.
    bool iter_active_ = false;
    bool iter_async_ = false;
    static constexpr size_t kMaxPendingNotifications = 15;
    bool iter_done_ = false;
    bool iter_block_pending_ = false;  // sync: the current block awaits GetTensorC
    Job iter_job_;
    std::vector<std::pair<uint32_t, uint32_t>> iter_blocks_;
    size_t iter_index_ = 0;
    size_t iter_consumed_ = 0;
    const char* iter_file_ = "";
    int iter_line_ = 0;
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
    mm.Init(tiling, pipe, aqo_emu::CallerFile(file), line);
    AqoEmuRegistMatmul(file, line, pipe, rest...);
}

// The macro's work: on split SoCs the vector core's Matmul client is constructed first (kfc_comm_client.h: it takes
// an MTE3_S event id with AllocEventID and keeps a SetFlag pending on it between messages), then each object is
// initialised with its tiling.
template <class... Objs>
inline void AqoEmuRegistMatmulObj(const char* file, int line, TPipe* pipe, const void* workspace, Objs&&... objs)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(file, line);
    if (pipe == nullptr) {
        aqo_emu::Fail(file, line, "REGIST_MATMUL_OBJ: no TPipe");
    }
    aqo_emu::CheckMatmulRegistration(c, workspace, file, line);
    // The cube core ran the kernel function up to here too (its REGIST_MATMUL_OBJ starts the API's server): a CTRL[48]
    // the kernel set before, outside any ASCEND_IS_AIC / AIV branch, is its mode as well (the Mmad page: 1 keeps Inf /
    // NaN), whatever it started with.
    c.cube_ctrl48_set = c.split_cores && ((c.ctrl >> 48) & 1u) != 0 && c.ctrl48_set_on_every_core;
    if (c.soc.id != aqo_emu::SocId::kAscend310P) {
        aqo_emu::OrderApiHoldFlag(c, aqo_emu::HardEventOf(aqo_emu::Pipe::kMte3, aqo_emu::Pipe::kS), file, line,
                                  "the Matmul client's message flag (REGIST_MATMUL_OBJ)");
    }
    AqoEmuRegistMatmul(file, line, pipe, objs...);
}

}  // namespace AscendC

#define REGIST_MATMUL_OBJ(tpipe, workspace, ...) \
    ::AscendC::AqoEmuRegistMatmulObj(__FILE__, __LINE__, (tpipe), static_cast<const void*>(workspace), __VA_ARGS__)
#define REGIST_MATMUL_OBJ_STATIC REGIST_MATMUL_OBJ
