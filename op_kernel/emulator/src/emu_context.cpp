// Run-time state, checks and the Cast table of the AscendC CPU emulator (the launcher: src/emu_launch.cpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "emulator/emu_context.h"
#include "emulator/emu_order.h"
#include "emulator/emu_vector.h"
#include "emulator/launch_contract.h"
#include "soc_table.h"

namespace aqo_emu {
namespace {

thread_local CoreContext* g_core = nullptr;

std::string Location(const char* file, int line) { return std::string(file ? file : "?") + ":" + std::to_string(line); }

}  // namespace

CoreContext* CurrentCore() { return g_core; }
void SetCurrentCore(CoreContext* core) { g_core = core; }

[[noreturn]] void Fail(const char* file, int line, const std::string& detail)
{
    std::string soc = "no SoC";
    int core = -1;
    std::string where;
    if (g_core != nullptr) {
        soc = g_core->soc.name;
        core = static_cast<int>(g_core->block_idx);
        where = "[" + soc + " core " + std::to_string(g_core->block_idx) + "/" + std::to_string(g_core->block_dim) +
                (g_core->kernel_name.empty() ? "" : " kernel " + g_core->kernel_name) + "] ";
    } else {
        where = "[no kernel running] ";
    }
    throw EmulatorError(Location(file, line) + ": " + where + detail, file ? file : "?", line, soc, core, detail);
}

CoreContext& Ctx(const char* file, int line)
{
    if (g_core == nullptr) {
        Fail(file, line, "AscendC API called outside a kernel launch (use aqo_emu::Launcher::Run)");
    }
    return *g_core;
}

SocModel MakeSocModel(const std::string& soc_name, uint32_t ub_bytes_override)
{
    aqo::SocSpec spec;
    if (!aqo::SocFromName(soc_name.c_str(), &spec)) {
        throw EmulatorError("emulator: unknown SoC '" + soc_name + "'; known: " + aqo::KnownSocNames(), "?", 0,
                            soc_name, -1, "unknown SoC");
    }
    SocModel m;
    m.name = spec.name;
    switch (spec.id) {
        case aqo::Soc::ASCEND310P: m.id = SocId::kAscend310P; break;
        case aqo::Soc::ASCEND910_95: m.id = SocId::kAscend910_95; break;
        default: m.id = SocId::kAscend910B; break;
    }
    m.ub_bytes = spec.ub_bytes;
    m.total_ub_bytes = spec.ub_bytes;
    m.level0_scratch_at = spec.id == aqo::Soc::ASCEND910_95 ? spec.ub_bytes : 0;
    m.has_data_copy_pad = spec.has_data_copy_pad;
    m.has_bfloat16 = spec.has_bfloat16;
    m.saturation_mode = spec.saturation_only_float;
    // asc-devkit's Div page (Ascend 950): the default DivConfig, DivAlgo::INTRINSIC, flushes subnormals (only the
    // ..._FTZ_FALSE algorithms keep them); the kernels call the default.
    m.div_flushes_subnormals = spec.id == aqo::Soc::ASCEND910_95;
    const aqo::TimingValue* timing = aqo::SocTiming(spec.id);
    m.l1_bytes = static_cast<uint64_t>(timing[static_cast<int>(aqo::TimingParam::L1_BYTES)].value);
    m.l0a_bytes = static_cast<uint64_t>(timing[static_cast<int>(aqo::TimingParam::L0A_BYTES)].value);
    m.l0b_bytes = static_cast<uint64_t>(timing[static_cast<int>(aqo::TimingParam::L0B_BYTES)].value);
    m.l0c_bytes = static_cast<uint64_t>(timing[static_cast<int>(aqo::TimingParam::L0C_BYTES)].value);
    m.split_cores = spec.split_architecture;
    m.cube_cores = spec.cube_cores;
    m.vector_cores = spec.vector_cores;
    m.system_workspace_bytes = spec.system_workspace_bytes;
    // float8 / hifloat8 data paths exist where the SoC table lists such a dtype for some operator (ascend910_95
    // only), read from the table rather than restated.
    const aqo::DTypeSet narrow = aqo::DTypeBit(aqo::DType::FLOAT8_E4M3FN) | aqo::DTypeBit(aqo::DType::FLOAT8_E5M2) |
                                 aqo::DTypeBit(aqo::DType::HIFLOAT8);
    m.has_float8 = ((spec.dq_x_dtypes | spec.dq_dst_dtypes | spec.qmm_a_dtypes | spec.qmm_b_dtypes |
                     spec.qmm_y_dtypes) & narrow) != 0;
    if (ub_bytes_override != 0) {
        if (ub_bytes_override % 32 != 0) {
            throw EmulatorError("emulator: UB size override " + std::to_string(ub_bytes_override) +
                                    " is not a multiple of 32 bytes",
                                "?", 0, m.name, -1, "bad UB override");
        }
        m.ub_bytes = ub_bytes_override;
    }
    return m;
}

namespace {

const AllocRecord& LiveRecord(CoreContext& c, int record, const char* file, int line, const char* api,
                              const char* operand)
{
    if (record < 0 || record >= static_cast<int>(c.records.size())) {
        Fail(file, line, std::string(api) + ": " + operand +
                             " is not an allocated LocalTensor (never obtained from AllocTensor / DeQue / TBuf::Get)");
    }
    return c.records[record];
}

}  // namespace

const char* MemName(Mem m)
{
    switch (m) {
        case Mem::kUb: return "UB";
        case Mem::kL1: return "L1";
        case Mem::kL0A: return "L0A";
        case Mem::kL0B: return "L0B";
        case Mem::kL0C: return "L0C";
    }
    return "?";
}

const AllocRecord& CheckLocalRecord(CoreContext& c, int record, Mem mem, const char* file, int line, const char* api,
                                    const char* operand)
{
    const AllocRecord& r = LiveRecord(c, record, file, line, api, operand);
    if (r.mem != mem) {
        Fail(file, line, std::string(api) + ": " + operand + " (allocated at " + Location(r.file, r.line) +
                             ") is a " + MemName(r.mem) + " tensor; this operand must be in " + MemName(mem));
    }
    if (!r.live) {
        Fail(file, line, std::string(api) + ": " + operand + " was allocated at " + Location(r.file, r.line) +
                             " and has been freed (TPipe::Reset) since: use after free");
    }
    return r;
}

const AllocRecord& CheckRecord(CoreContext& c, int record, const char* file, int line, const char* api,
                               const char* operand)
{
    const AllocRecord& r = LiveRecord(c, record, file, line, api, operand);
    if (r.mem != Mem::kUb) {
        Fail(file, line, std::string(api) + ": " + operand + " (allocated at " + Location(r.file, r.line) +
                             ") is an " + MemName(r.mem) + " tensor (a TBuf of an L1 / L0 position); this operand "
                             "must be in the unified buffer");
    }
    if (!r.live) {
        Fail(file, line, std::string(api) + ": " + operand + " was allocated at " + Location(r.file, r.line) +
                             " and has been freed (FreeTensor or TPipe::Reset) since: use after free");
    }
    if (r.enqueued) {
        Fail(file, line, std::string(api) + ": " + operand + " (allocated at " + Location(r.file, r.line) +
                             ") is in its queue (EnQue'd and not DeQue'd): accessing it races with the other pipe");
    }
    return r;
}

void CheckUbRange(CoreContext& c, int record, uint64_t byte, uint64_t nbytes, const char* file, int line,
                  const char* api, const char* operand)
{
    const AllocRecord& r = c.records[record];
    if (byte < r.begin || byte + nbytes > r.end) {
        Fail(file, line, std::string(api) + ": " + operand + " accesses UB bytes [" + std::to_string(byte) + ", " +
                             std::to_string(byte + nbytes) + ") outside its buffer [" + std::to_string(r.begin) +
                             ", " + std::to_string(r.end) + ") allocated at " + Location(r.file, r.line));
    }
}

void CheckUbAligned(CoreContext& c, uint64_t byte, const char* file, int line, const char* api, const char* operand)
{
    (void)c;
    if (byte % 32 != 0) {
        Fail(file, line, std::string(api) + ": " + operand + " UB address " + std::to_string(byte) +
                             " is not 32-byte aligned");
    }
}

int FindGmRegion(CoreContext& c, const void* ptr, const char* file, int line, const char* api)
{
    const uint8_t* p = static_cast<const uint8_t*>(ptr);
    int empty_match = -1;
    for (size_t i = 0; i < c.gm->size(); ++i) {
        const GmRegion& r = (*c.gm)[i];
        if (p >= r.base && p < r.base + r.bytes) return static_cast<int>(i);
        if (r.bytes == 0 && p == r.base) empty_match = static_cast<int>(i);
    }
    if (empty_match >= 0) return empty_match;
    Fail(file, line, std::string(api) + ": GM address is not inside any buffer registered with the launcher");
}

void CheckGmElementAligned(CoreContext& c, int region, const uint8_t* ptr, uint64_t elem, const char* file, int line,
                           const char* api)
{
    const GmRegion& r = (*c.gm)[region];
    const int64_t offset = static_cast<int64_t>(ptr - r.base);
    if (elem > 1 && offset % static_cast<int64_t>(elem) != 0) {
        Fail(file, line,
             std::string(api) + ": GM address at byte " + std::to_string(offset) + " of buffer '" + r.name +
                 "' is not a multiple of the element size " + std::to_string(elem) +
                 " (GM addresses of a DMA or a scalar access are aligned to the data type)");
    }
}

void CheckGmBounds(CoreContext& c, int region, const uint8_t* tensor_begin, const uint8_t* tensor_end,
                   const uint8_t* ptr, uint64_t nbytes, bool write, const char* file, int line, const char* api)
{
    const GmRegion& r = (*c.gm)[region];
    auto describe = [&]() {
        return "bytes [" + std::to_string(static_cast<int64_t>(ptr - r.base)) + ", " +
               std::to_string(static_cast<int64_t>(ptr - r.base) + static_cast<int64_t>(nbytes)) + ") of GM buffer '" +
               r.name + "' (" + std::to_string(r.bytes) + " bytes)";
    };
    if (ptr < r.base || ptr + nbytes > r.base + r.bytes) {
        Fail(file, line, std::string(api) + (write ? ": write to " : ": read of ") + describe() +
                             ": outside the buffer");
    }
    if (r.reserved_bytes != 0 && nbytes > 0 && static_cast<uint64_t>(ptr - r.base) < r.reserved_bytes) {
        FailSystemWorkspaceAccess(r, static_cast<uint64_t>(ptr - r.base), nbytes, write, file, line, api);
    }
    if (ptr < tensor_begin || ptr + nbytes > tensor_end) {
        Fail(file, line, std::string(api) + (write ? ": write to " : ": read of ") + describe() +
                             ": outside the GlobalTensor's extent given to SetGlobalBuffer (bytes [" +
                             std::to_string(tensor_begin - r.base) + ", " + std::to_string(tensor_end - r.base) + "))");
    }
    if (write && r.access == GmAccess::kReadOnly) {
        Fail(file, line, std::string(api) + ": write to " + describe() + ", which is a read-only input");
    }
}

void CheckGmRange(CoreContext& c, int region, const uint8_t* tensor_begin, const uint8_t* tensor_end,
                  const uint8_t* ptr, uint64_t nbytes, bool write, const char* file, int line, const char* api)
{
    CheckGmBounds(c, region, tensor_begin, tensor_end, ptr, nbytes, write, file, line, api);
    const uint64_t offset = static_cast<uint64_t>(ptr - (*c.gm)[region].base);
    if (write) {
        RecordGmWriteTouch(c, region, offset, nbytes, file, line, api);
    } else {
        RecordGmReadTouch(c, region, offset, nbytes);
    }
}

int64_t GmFirstUnwritten(const CoreContext& c, int region, uint64_t offset, uint64_t nbytes)
{
    const GmRegion& r = (*c.gm)[region];
    if (!GmTracksWrites(r) || r.written.empty()) return -1;
    const uint8_t* w = r.written.data();
    for (uint64_t i = offset; i < offset + nbytes; ++i) {
        if (!w[i]) return static_cast<int64_t>(i);
    }
    return -1;
}

void GmMarkWritten(CoreContext& c, int region, uint64_t offset, uint64_t nbytes)
{
    GmRegion& r = (*c.gm)[region];
    if (!GmTracksWrites(r) || r.written.empty() || nbytes == 0) return;
    std::memset(r.written.data() + offset, 1, nbytes);
}

bool SumExactInEveryOrder(const std::vector<double>& terms, ElemType t)
{
    const int p = t == ElemType::kFloat32 ? 24 : (t == ElemType::kFloat16 ? 11 : (t == ElemType::kBFloat16 ? 8 : 0));
    const double max_finite = t == ElemType::kFloat32 ? 3.4028234663852886e38
                                                       : (t == ElemType::kFloat16 ? 65504.0 : 3.3895313892515355e38);
    if (p == 0) return false;
    int q_exp = 1 << 20;  // log2 of the common quantum q
    for (double x : terms) {
        if (x == 0.0) continue;
        int e = 0;
        const double m = std::frexp(std::fabs(x), &e);  // |x| = m 2^e, m in [0.5, 1)
        const uint64_t bits = static_cast<uint64_t>(std::ldexp(m, 53));
        int tz = 0;
        while (((bits >> tz) & 1u) == 0) ++tz;
        q_exp = std::min(q_exp, e - 53 + tz);
    }
    if (q_exp == (1 << 20)) return true;  // all zeros
    double units = 0.0;  // sum |x| / q, exact while below 2^53
    const double limit = std::ldexp(1.0, p);
    double abs_sum = 0.0;
    for (double x : terms) {
        units += std::ldexp(std::fabs(x), -q_exp);
        abs_sum += std::fabs(x);
        if (units > limit) return false;
    }
    return abs_sum <= max_finite;
}

// TMP_UB_OFFSET, a constant of the build: the top kApiScratchUbBytes of the table's UB (ascend910_95: asc-devkit's
// constants for this architecture put it at TOTAL_UB_SIZE, 248 KiB, past the UB a kernel allocates with the table's
// size). A launch given another UB size (an override) keeps it there: a larger UB reaches into it, and the part past a
// smaller one is not the kernel's.
static uint64_t ApiScratchStart(const CoreContext& c)
{
    if (c.soc.level0_scratch_at != 0) {
        return c.soc.level0_scratch_at;
    }
    const uint64_t total = c.soc.total_ub_bytes != 0 ? c.soc.total_ub_bytes : c.soc.ub_bytes;
    return total - kApiScratchUbBytes;
}

void ApiScratchWrite(CoreContext& c, uint64_t nbytes, const char* file, int line, const char* api)
{
    ApiScratchWriteAt(c, 0, nbytes, file, line, api);
}

void ApiScratchWriteAt(CoreContext& c, uint64_t offset, uint64_t nbytes, const char* file, int line, const char* api)
{
    uint64_t at = ApiScratchStart(c) + offset;
    if (at >= c.soc.ub_bytes) return;
    nbytes = std::min<uint64_t>(nbytes, c.soc.ub_bytes - at);
    for (uint64_t i = 0; i < nbytes; ++i) {
        if (c.ub_defined[at + i]) {
            Fail(file, line,
                 std::string(api) + " writes the AscendC API's scratch, UB bytes [" + std::to_string(at) + ", " +
                     std::to_string(at + nbytes) + ") (TMP_UB_OFFSET" +
                     (offset != 0 ? " + " + std::to_string(offset) : std::string()) +
                     (c.soc.level0_scratch_at != 0 ? std::string("; the 8 KiB past ") + c.soc.name + "'s runtime UB"
                                                   : "; the top " + std::to_string(kApiScratchUbBytes / 1024) +
                                                         " KiB of " + c.soc.name + "'s UB") +
                     "), where byte " +
                     std::to_string(at + i) + " holds kernel data: the call overwrites it; keep kernel buffers "
                     "below " + std::to_string(at - offset) + " when using such APIs");
        }
    }
    UbWrite(c, at, nbytes, "the API's scratch (TMP_UB_OFFSET)");
}

void ApiScratchReadAt(CoreContext& c, uint64_t offset, uint64_t nbytes)
{
    uint64_t at = ApiScratchStart(c) + offset;
    if (at >= c.soc.ub_bytes) return;
    nbytes = std::min<uint64_t>(nbytes, c.soc.ub_bytes - at);
    UbRead(c, at, nbytes, "the API's scratch (TMP_UB_OFFSET)");
}

void Level0Scratch(CoreContext& c, const char* file, int line, const char* api)
{
    if (c.soc.level0_scratch_at != 0) {
        ApiScratchWriteAt(c, 0, kApiScratchUbBytes, file, line, api);
    }
}

void GmSetWritten(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, bool written)
{
    GmRegion& r = (*c.gm)[region];
    if (!GmTracksWrites(r) || r.written.empty() || nbytes == 0) return;
    std::memset(r.written.data() + offset, written ? 1 : 0, nbytes);
}

void CheckGmReadWritten(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, const char* file, int line,
                        const char* api)
{
    const int64_t first = GmFirstUnwritten(c, region, offset, nbytes);
    if (first < 0) return;
    const GmRegion& r = (*c.gm)[region];
    Fail(file, line,
         std::string(api) + " reads byte " + std::to_string(first) + " of GM buffer '" + r.name +
             "', which nothing wrote in this launch: on the device " +
             (r.is_workspace ? "the workspace comes from a reused pool" : "an output comes from an allocator") +
             " and holds whatever its previous user left, not zeros (write it first)");
}

void CheckElemTypeOnSoc(CoreContext& c, ElemType t, const char* file, int line, const char* api)
{
    if (t == ElemType::kBFloat16 && !c.soc.has_bfloat16) {
        Fail(file, line, std::string(api) + ": bfloat16 does not exist on " + c.soc.name);
    }
    if ((t == ElemType::kFloat8E4M3FN || t == ElemType::kFloat8E5M2 || t == ElemType::kHiFloat8) &&
        !c.soc.has_float8) {
        Fail(file, line, std::string(api) + ": " + ElemTypeName(t) + " does not exist on " + c.soc.name +
                             " (float8 / hifloat8: ascend910_95 only)");
    }
}

void LoadTiling(void* dst, uint64_t bytes, const uint8_t* tiling, const char* type_name, const char* file, int line)
{
    CoreContext& c = Ctx(file, line);
    if (tiling == nullptr || c.tiling == nullptr) {
        Fail(file, line, std::string("GET_TILING_DATA(") + type_name + "): no tiling was given to the launcher");
    }
    if (tiling != c.tiling) {
        Fail(file, line, std::string("GET_TILING_DATA(") + type_name +
                             "): the tiling address is not the one the launcher passed to the kernel");
    }
    if (bytes > c.tiling_bytes) {
        Fail(file, line, std::string("GET_TILING_DATA(") + type_name + "): the tiling class has " +
                             std::to_string(bytes) + " bytes but the launcher was given only " +
                             std::to_string(c.tiling_bytes) + " tiling bytes");
    }
    std::memcpy(dst, tiling, bytes);
}

bool KernelPrintfEnabled()
{
    static const bool enabled = std::getenv("AQO_EMU_PRINTF") != nullptr;
    return enabled;
}

// ---- Cast table (derived from the CANN 8.1.RC1 dav_c220 / dav_m200 vconv implementations) ----
namespace {

constexpr uint8_t M(int mode) { return static_cast<uint8_t>(1u << mode); }
constexpr uint8_t kNone = M(0), kRint = M(1), kFloor = M(2), kCeil = M(3), kRound = M(4), kTrunc = M(5), kOdd = M(6);
constexpr uint8_t kDirected = kRint | kFloor | kCeil | kRound | kTrunc;
constexpr uint8_t kAll = kNone | kDirected | kOdd;

struct CastEntry {
    ElemType src;
    ElemType dst;
    uint8_t modes_910b;    // 0 = conversion absent
    uint8_t modes_310p;
    uint8_t modes_910_95;  // 910b's table (the 950 headers are not public) plus the float8 conversions
    bool deq;              // int32 -> half: src * deq scale, the mode is ignored
};

const CastEntry kCastTable[] = {
    {ElemType::kInt32, ElemType::kFloat16, kAll, kAll, kAll, true},
    {ElemType::kInt8, ElemType::kFloat16, kNone, kNone, kNone, false},
    {ElemType::kUInt8, ElemType::kFloat16, kNone, kNone, kNone, false},
    {ElemType::kInt32, ElemType::kFloat32, kNone | kDirected, kNone, kNone | kDirected, false},
    {ElemType::kFloat16, ElemType::kFloat32, kNone, kNone, kNone, false},
    {ElemType::kFloat16, ElemType::kInt32, kDirected, kDirected, kDirected, false},
    {ElemType::kFloat16, ElemType::kInt8, kNone | kDirected, kNone | kFloor | kCeil | kRound | kTrunc,
     kNone | kDirected, false},
    {ElemType::kFloat16, ElemType::kUInt8, kNone | kDirected, kNone | kFloor | kCeil | kRound | kTrunc,
     kNone | kDirected, false},
    {ElemType::kFloat32, ElemType::kFloat16, kAll, kNone | kOdd, kAll, false},
    {ElemType::kFloat32, ElemType::kInt32, kDirected, kDirected, kDirected, false},
    {ElemType::kFloat16, ElemType::kInt16, kDirected, 0, kDirected, false},
    {ElemType::kInt16, ElemType::kFloat16, kNone | kDirected, 0, kNone | kDirected, false},
    {ElemType::kFloat32, ElemType::kBFloat16, kDirected, 0, kDirected, false},
    {ElemType::kBFloat16, ElemType::kFloat32, kNone, 0, kNone, false},
    {ElemType::kBFloat16, ElemType::kInt32, kDirected, 0, kDirected, false},
    {ElemType::kFloat32, ElemType::kInt16, kDirected, 0, kDirected, false},
    {ElemType::kInt16, ElemType::kFloat32, kNone, 0, kNone, false},
    // ascend910_95 float8 / hifloat8 (as OPSNN's 950 kernels cast them: fp8 with RINT, hif8 with ROUND, saturating).
    {ElemType::kFloat32, ElemType::kFloat8E4M3FN, 0, 0, kRint, false},
    {ElemType::kFloat32, ElemType::kFloat8E5M2, 0, 0, kRint, false},
    {ElemType::kFloat32, ElemType::kHiFloat8, 0, 0, kRound, false},
    {ElemType::kFloat8E4M3FN, ElemType::kFloat32, 0, 0, kNone, false},
    {ElemType::kFloat8E5M2, ElemType::kFloat32, 0, 0, kNone, false},
    {ElemType::kHiFloat8, ElemType::kFloat32, 0, 0, kNone, false},
};

std::string ModeList(uint8_t modes)
{
    std::string s;
    for (int m = 0; m < 7; ++m) {
        if (modes & M(m)) s += (s.empty() ? "" : ", ") + std::string(RoundModeName(m));
    }
    return s.empty() ? "none" : s;
}

}  // namespace

const char* RoundModeName(int round_mode)
{
    static const char* const kNames[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL",
                                         "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
    return (round_mode >= 0 && round_mode < 7) ? kNames[round_mode] : "CAST_<invalid>";
}

CastKind CheckCast(CoreContext& c, ElemType src, ElemType dst, int round_mode, const char* file, int line)
{
    const std::string pair = std::string(ElemTypeName(src)) + " -> " + ElemTypeName(dst);
    if (round_mode < 0 || round_mode > 6) {
        Fail(file, line, "Cast " + pair + ": invalid round mode " + std::to_string(round_mode));
    }
    for (const CastEntry& e : kCastTable) {
        if (e.src != src || e.dst != dst) continue;
        const uint8_t modes = c.soc.id == SocId::kAscend310P    ? e.modes_310p
                              : c.soc.id == SocId::kAscend910_95 ? e.modes_910_95
                                                                 : e.modes_910b;
        if (modes == 0) break;
        if (!(modes & M(round_mode))) {
            Fail(file, line, "Cast " + pair + " with " + RoundModeName(round_mode) + " is not accepted on " +
                                 c.soc.name + " (accepted: " + ModeList(modes) + ")");
        }
        return e.deq ? CastKind::kDeq : CastKind::kPlain;
    }
    Fail(file, line, "Cast " + pair + " is not available on " + c.soc.name +
                         " (not in the emulator's Cast table for this SoC)");
}

}  // namespace aqo_emu
