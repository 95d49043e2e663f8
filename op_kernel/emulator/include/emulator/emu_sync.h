// Synchronisation, system variables, tiling access and debug output of the emulated AscendC API.
//
// PipeBarrier, SetFlag / WaitFlag and SyncAll feed the ordering model (emu_order.h): they are what orders the
// instructions of different pipes and cores, and every UB / GM access is checked against them. Misuse that would
// hang the device (WaitFlag without a SetFlag, a SyncAll some core never reaches) fails at the kernel line.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "emulator/emu_kernel_type.h"
#include "emulator/emu_order.h"
#include "emulator/emu_tensor.h"
#include "emulator/launch_contract.h"

namespace AscendC {

enum KernelType { AIC = 1, AIV = 2, MIX = 3 };

template <pipe_t kPipe> inline void PipeBarrier(AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    aqo_emu::OrderPipeBarrier(c, static_cast<int>(kPipe), aqo_file, aqo_line);
}

template <HardEvent kEvent> inline void SetFlag(int32_t event_id, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    aqo_emu::OrderSetFlag(c, static_cast<int>(kEvent), event_id, aqo_file, aqo_line, "SetFlag");
}

template <HardEvent kEvent> inline void WaitFlag(int32_t event_id, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    aqo_emu::OrderWaitFlag(c, static_cast<int>(kEvent), event_id, aqo_file, aqo_line, "WaitFlag");
}

// The system variables as a vector core of the kernel's type sees them (emu_kernel_type.h): in a 1:2 mix kernel
// GetBlockNum() is the device blockDim (the cube cores, half the vector cores the emulator runs), GetTaskRation() 2,
// GetSubBlockIdx() the vector core within its pair and GetBlockIdx() = cube core * 2 + sub-block; otherwise one
// vector (310p: AI) core per block.
inline int64_t GetBlockIdx()
{
    aqo_emu::CoreContext* c = aqo_emu::CurrentCore();
    return c ? c->block_idx : 0;
}
inline int64_t GetBlockNum()
{
    aqo_emu::CoreContext* c = aqo_emu::CurrentCore();
    return c ? aqo_emu::BlockNumOf(*c) : 1;
}
inline int64_t GetSubBlockIdx()
{
    aqo_emu::CoreContext* c = aqo_emu::CurrentCore();
    return c ? aqo_emu::SubBlockIdxOf(*c) : 0;
}
inline int64_t GetTaskRation()
{
    aqo_emu::CoreContext* c = aqo_emu::CurrentCore();
    return c ? aqo_emu::TaskRationOf(*c) : 1;
}

// All cores wait for each other (hardware SyncAll: PipeBarrier<PIPE_ALL>, then the cross-core barrier; CANN 8.1
// basic_api/impl/dav_c220/kernel_operator_sync_impl.h). ascend310p has no hardware SyncAll (its implementation
// reports it unsupported, dav_m200/kernel_operator_sync_impl.h): there the software form below is the only one.
template <bool kAivOnly = true> inline void SyncAll(AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    if (c.soc.id == aqo_emu::SocId::kAscend310P) {
        aqo_emu::Fail(aqo_file, aqo_line,
                      "SyncAll(): " + c.soc.name +
                          " has no hardware SyncAll (the CANN headers report it unsupported there); use the software "
                          "form SyncAll(gmWorkspace, ubWorkspace, usedCores)");
    }
    aqo_emu::CheckSyncAll(c, true, kAivOnly, aqo_file, aqo_line, "SyncAll()");    aqo_emu::OrderSyncAll(c, kAivOnly, aqo_file, aqo_line, "SyncAll");
}

// The software SyncAll (every SoC): each core counts its arrivals in its own 32-byte slot of gmWorkspace
// (int32 slot blockIdx * 8, which must be zero at launch) and polls every core's slot through ubWorkspace until the
// counts add up to the cores times its own. usedCores: how many cores take part (0 = all of the launch). The emulator
// checks the workspaces (sizes, a writable GM buffer, counters the host zeroed and nothing touched since) and keeps the
// counters as the real one does, then synchronises like the hardware form.
template <bool kAivOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                    const int32_t usedCores = 0, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    const char* api = "SyncAll(gmWorkspace, ubWorkspace, usedCores)";
    aqo_emu::CheckSyncAll(c, false, kAivOnly, aqo_file, aqo_line, api);
    // SoftSyncAllImpl's own flag pairs (dav_c220/kernel_operator_sync_impl.h), each on a FetchEventID id.
    {
        using aqo_emu::HardEventOf;
        using aqo_emu::Pipe;
        aqo_emu::OrderApiFlagPair(c, HardEventOf(Pipe::kMte2, Pipe::kS), aqo_file, aqo_line, api);
        aqo_emu::OrderApiFlagPair(c, HardEventOf(Pipe::kS, Pipe::kMte3), aqo_file, aqo_line, api);
        aqo_emu::OrderApiFlagPair(c, HardEventOf(Pipe::kMte3, Pipe::kMte2), aqo_file, aqo_line, api);
        aqo_emu::OrderApiFlagPair(c, HardEventOf(Pipe::kS, Pipe::kMte2), aqo_file, aqo_line, api);
    }
    const uint32_t total = usedCores != 0 ? static_cast<uint32_t>(usedCores) : c.block_dim;
    if (usedCores < 0 || total > c.block_dim) {
        aqo_emu::Fail(aqo_file, aqo_line, std::string(api) + ": usedCores " + std::to_string(usedCores) +
                                              " outside 0.." + std::to_string(c.block_dim) + " (the launch's cores)");
    }
    if (c.block_idx >= total) {
        aqo_emu::Fail(aqo_file, aqo_line, std::string(api) + ": core " + std::to_string(c.block_idx) +
                                              " calls it but usedCores is " + std::to_string(total));
    }
    if (total != c.block_dim) {
        aqo_emu::Fail(aqo_file, aqo_line, std::string(api) + ": usedCores " + std::to_string(total) + " of " +
                                              std::to_string(c.block_dim) +
                                              " cores: the emulator synchronises whole launches only");
    }
    const uint64_t slot_bytes = 32;
    const int region = gmWorkspace.Region(c, aqo_file, aqo_line, api);
    const uint8_t* slot = reinterpret_cast<const uint8_t*>(gmWorkspace.GetPhyAddr()) + c.block_idx * slot_bytes;
    aqo_emu::CheckGmBounds(c, region, gmWorkspace.begin_, gmWorkspace.end_,
                           reinterpret_cast<const uint8_t*>(gmWorkspace.GetPhyAddr()), total * slot_bytes, true,
                           aqo_file, aqo_line, api);
    aqo_emu::CheckRecord(c, ubWorkspace.record_, aqo_file, aqo_line, api, "ubWorkspace");
    aqo_emu::CheckUbAligned(c, ubWorkspace.byte_, aqo_file, aqo_line, api, "ubWorkspace");
    aqo_emu::CheckUbRange(c, ubWorkspace.record_, ubWorkspace.byte_, total * slot_bytes, aqo_file, aqo_line, api,
                          "ubWorkspace (8 int32 per core)");
    const uint64_t slot_offset = static_cast<uint64_t>(slot - (*c.gm)[region].base);
    if (aqo_emu::GmFirstUnwritten(c, region, slot_offset, sizeof(int32_t)) >= 0) {
        aqo_emu::Fail(aqo_file, aqo_line,
                      std::string(api) + ": this core's counter in gmWorkspace (int32 " +
                          std::to_string(c.block_idx * 8) + " of GM buffer '" + (*c.gm)[region].name +
                          "') was never written in this launch: the documentation requires the workspace to be zero "
                          "when SyncAll is first called (memory the host zeroes before every launch), and on the "
                          "device a workspace or output is not zeroed");
    }
    if (c.syncall_count == 0 && (*c.gm)[region].init != aqo_emu::GmInit::kData) {
        // SoftSyncAllImpl (dav_c220 / dav_m200 kernel_operator_sync_impl.h) passes once the sum of every core's count
        // reaches the cores times its own: a count left in another core's counter by the previous launch counts as
        // that core's arrival. A counter the kernel zeroes itself is zero only for its own core, and only once it is
        // written; another core may already be polling. Only counters that are zero when the launch starts (memory
        // the host zeroes before every launch) make the barrier hold.
        aqo_emu::Fail(aqo_file, aqo_line,
                      std::string(api) + ": gmWorkspace is GM buffer '" + (*c.gm)[region].name +
                          "', whose counters are not zero when the launch starts (a workspace or an output the "
                          "kernel zeroes itself): the sum SyncAll waits for can count another core's arrival from "
                          "the previous launch, so a core can pass before the others arrive; the counters must be "
                          "memory the host zeroes before every launch");
    }
    int32_t count = 0;
    std::memcpy(&count, slot, sizeof(count));
    if (count != static_cast<int32_t>(c.syncall_count)) {
        aqo_emu::Fail(aqo_file, aqo_line,
                      std::string(api) + ": this core's counter in gmWorkspace (int32 " +
                          std::to_string(c.block_idx * 8) + ") is " + std::to_string(count) + ", expected " +
                          std::to_string(c.syncall_count) +
                          ": the workspace must be zero at launch and written by nothing else");
    }
    aqo_emu::OrderSyncAll(c, kAivOnly, aqo_file, aqo_line, api);
    ++c.syncall_count;
    const int32_t now = static_cast<int32_t>(c.syncall_count);
    std::memcpy(const_cast<uint8_t*>(slot), &now, sizeof(now));
    aqo_emu::GmMarkWritten(c, region, slot_offset, sizeof(now));
    // The UB copy of every core's slot as the last poll saw it: all have arrived.
    for (uint32_t i = 0; i < total; ++i) {
        std::memcpy(c.ub.data() + ubWorkspace.byte_ + i * slot_bytes, &now, sizeof(now));
    }
    aqo_emu::SetUbDefined(c, ubWorkspace.byte_, total * slot_bytes, true);
}

enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

// The scalar unit's data cache (emulator/emu_context.h, src/emu_dcache.cpp): the line of the tensor's address
// (SINGLE_CACHE_LINE) or every line (ENTIRE_DATA_CACHE) written back and dropped. As in the 8.1 header the template
// arguments have no defaults; the form with a DcciDst exists on ascend910b (and 950) only.
template <typename T, CacheLine kLine>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    const int region = dst.Region(c, aqo_file, aqo_line, "DataCacheCleanAndInvalid");
    const uint8_t* at = reinterpret_cast<const uint8_t*>(dst.GetPhyAddr());
    aqo_emu::DcacheCleanInvalidate(c, region, static_cast<uint64_t>(at - (*c.gm)[region].base),
                                   kLine == CacheLine::ENTIRE_DATA_CACHE, aqo_file, aqo_line);
}
template <typename T, CacheLine kLine, DcciDst kDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    if (c.soc.id == aqo_emu::SocId::kAscend310P) {
        aqo_emu::Fail(aqo_file, aqo_line,
                      "DataCacheCleanAndInvalid<T, CacheLine, DcciDst>: the form with a DcciDst is not available on "
                      "ascend310p (use DataCacheCleanAndInvalid<T, CacheLine>)");
    }
    DataCacheCleanAndInvalid<T, kLine>(dst, aqo_file, aqo_line);
}

// Workspaces: the launch's workspace starts with the SoC's system workspace; GetUserWorkspace returns the kernel's
// part after it, GetSysWorkSpacePtr the start (emulator/launch_contract.h).
inline uint8_t* GetUserWorkspace(uint8_t* workspace, AQO_EMU_SRC)
{
    return ::aqo_emu::UserWorkspace(workspace, aqo_file, aqo_line);
}
inline void SetSysWorkspace(uint8_t*) {}
inline uint8_t* GetSysWorkSpacePtr() { return ::aqo_emu::SystemWorkspace(); }

// A variadic template (not a C variadic function) so that an unqualified printf in a kernel with
// `using namespace AscendC` prefers this exact match over ::printf instead of being ambiguous.
template <typename... A> inline void printf(const char* fmt, A... args)  // NOLINT: the kernel-side name
{
    if (!aqo_emu::KernelPrintfEnabled()) return;
    std::fprintf(stderr, fmt, args...);
}
template <typename... A> inline void PRINTF(const char* fmt, A... args) { AscendC::printf(fmt, args...); }
template <typename T, typename... A> inline void DumpTensor(const LocalTensor<T>&, A...) {}
template <typename T, typename... A> inline void DumpTensor(const GlobalTensor<T>&, A...) {}

}  // namespace AscendC

namespace aqo_emu {
inline bool CoreIsAiv()
{
    CoreContext* c = CurrentCore();
    return c == nullptr || c->is_aiv;
}
// What ASCEND_IS_AIC / ASCEND_IS_AIV / ... evaluate: the core's kind, noting that the kernel asked (a 1:2 mix kernel
// must, before its first vector or DMA instruction, unless it registers a Matmul object: CheckMixCubeGuard). The
// emulator's own API code calls CoreIsAiv directly, never the macros.
inline bool KernelAsksCoreIsAiv()
{
    CoreContext* c = CurrentCore();
    if (c != nullptr) c->core_kind_asked = true;
    return CoreIsAiv();
}
void SetCtrl(uint64_t config, const char* file, int line);  // set_ctrl (emu_kernel_type.cpp)
inline uint64_t CurrentTilingKey()
{
    CoreContext* c = CurrentCore();
    return c ? c->tiling_key : 0;
}
}  // namespace aqo_emu

// The CTRL register's intrinsics (bisheng builtins, declared by CANN 8.1's CPU-debug stub_fun.h): the core's CTRL word
// (CoreContext::ctrl). Modelled: bit 48 on the split SoCs, the saturation mode of half / bfloat16 results
// (HalfResultsSaturate, emu_vector.h; its value at launch: RunOptions::ctrl48_saturates_at_launch). Refused: changing
// any other bit (not modelled), CTRL[48] on ascend310p (the SetCtrlSpr page lists it for Atlas A2 / A3 and 950; 310p
// computes in saturation mode), and a change after the core's first vector or DMA instruction (an instruction in
// flight would run under either mode: set it first).
inline int64_t get_ctrl()
{
    aqo_emu::CoreContext* c = aqo_emu::CurrentCore();
    return c ? static_cast<int64_t>(c->ctrl) : 0;
}
inline uint64_t sbitset1(uint64_t x, int64_t idx) { return x | (uint64_t{1} << idx); }
inline uint64_t sbitset0(uint64_t x, int64_t idx) { return x & ~(uint64_t{1} << idx); }
#define set_ctrl(config) ::aqo_emu::SetCtrl(static_cast<uint64_t>(config), __FILE__, __LINE__)

#define ASCEND_IS_AIV (::aqo_emu::KernelAsksCoreIsAiv())
#define ASCEND_IS_AIC (!::aqo_emu::KernelAsksCoreIsAiv())
#define ASCEND_IS_NOT_AIV (!::aqo_emu::KernelAsksCoreIsAiv())
#define ASCEND_IS_NOT_AIC (::aqo_emu::KernelAsksCoreIsAiv())
// The kernel's core mix: on split SoCs it says how many vector cores share a cube core (the trace's cube cores).
enum KernelMetaType {
    KERNEL_TYPE_AIV_ONLY = 0, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1, KERNEL_TYPE_MIX_AIC_1_2, KERNEL_TYPE_AICORE, KERNEL_TYPE_VECTORCORE,
    KERNEL_TYPE_MIX_AICORE, KERNEL_TYPE_MIX_VECTOR_CORE, KERNEL_TYPE_MAX
};
#define KERNEL_TASK_TYPE_DEFAULT(type) ::aqo_emu::SetKernelTaskType(static_cast<int>(type), __FILE__, __LINE__)
#define KERNEL_TASK_TYPE(key, type) \
    ::aqo_emu::SetKernelTaskTypeForKey(static_cast<uint64_t>(key), static_cast<int>(type), __FILE__, __LINE__)
// A constant key only, registered for the kernel it is compiled into (emulator/launch_contract.h).
#define TILING_KEY_IS(key) (::aqo_emu::TilingKeyIs<AqoEmuKernelTag, static_cast<uint64_t>(key)>())
#define TRACE_START(x)
#define TRACE_STOP(x)

// GET_TILING_DATA(var, tiling): the runner TU defines AQO_EMU_TILING_CLASS (the op_host tiling class, built
// as a plain struct by register/tilingdata_base.h) before including the kernel. Reading more bytes than the
// launcher was given fails at the kernel's line.
#define AQO_EMU_STRINGIFY2(x) #x
#define AQO_EMU_STRINGIFY(x) AQO_EMU_STRINGIFY2(x)
#define GET_TILING_DATA(var, tiling)                                                                       \
    AQO_EMU_TILING_CLASS var;                                                                              \
    ::aqo_emu::LoadTiling(&var, sizeof(var), reinterpret_cast<const uint8_t*>(tiling),                     \
                          AQO_EMU_STRINGIFY(AQO_EMU_TILING_CLASS), __FILE__, __LINE__)
#define GET_TILING_DATA_WITH_STRUCT(type, var, tiling)                                                     \
    type var;                                                                                              \
    ::aqo_emu::LoadTiling(&var, sizeof(var), reinterpret_cast<const uint8_t*>(tiling), #type, __FILE__,    \
                          __LINE__)
