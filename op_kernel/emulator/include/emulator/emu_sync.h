// Synchronisation, system variables, tiling access and debug output of the emulated AscendC API.
//
// Blocks run one after the other on one host thread, and each block runs its instructions in program order, so
// pipe barriers and flags have nothing to order; they are still checked where misuse would hang the device
// (WaitFlag without a matching SetFlag).
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>

#include "emulator/emu_tensor.h"
#include "emulator/launch_contract.h"

namespace AscendC {

enum KernelType { AIC = 1, AIV = 2, MIX = 3 };

template <pipe_t kPipe> inline void PipeBarrier() {}

template <HardEvent kEvent> inline void SetFlag(int32_t event_id, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    if (event_id < 0 || event_id >= 8) {
        aqo_emu::Fail(aqo_file, aqo_line, "SetFlag: event id " + std::to_string(event_id) + " outside 0..7");
    }
    c.flag_count[static_cast<int>(kEvent)][event_id]++;
}

template <HardEvent kEvent> inline void WaitFlag(int32_t event_id, AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    if (event_id < 0 || event_id >= 8) {
        aqo_emu::Fail(aqo_file, aqo_line, "WaitFlag: event id " + std::to_string(event_id) + " outside 0..7");
    }
    int& n = c.flag_count[static_cast<int>(kEvent)][event_id];
    if (n <= 0) {
        aqo_emu::Fail(aqo_file, aqo_line,
                      "WaitFlag(event " + std::to_string(static_cast<int>(kEvent)) + ", id " +
                          std::to_string(event_id) + ") without a matching SetFlag: on the device this waits forever");
    }
    --n;
}

inline int64_t GetBlockIdx()
{
    aqo_emu::CoreContext* c = aqo_emu::CurrentCore();
    return c ? c->block_idx : 0;
}
inline int64_t GetBlockNum()
{
    aqo_emu::CoreContext* c = aqo_emu::CurrentCore();
    return c ? c->block_dim : 1;
}
inline int64_t GetSubBlockIdx() { return 0; }
inline int64_t GetTaskRation() { return 1; }

// All cores wait for each other. Blocks run one after another here, so a real barrier cannot be emulated; a
// kernel launched on one block needs none.
template <bool kAivOnly = true> inline void SyncAll(AQO_EMU_SRC)
{
    aqo_emu::CoreContext& c = aqo_emu::Ctx(aqo_file, aqo_line);
    if (c.block_dim > 1) {
        aqo_emu::Fail(aqo_file, aqo_line,
                      "SyncAll across " + std::to_string(c.block_dim) +
                          " blocks: the emulator runs blocks one after another and cannot emulate a barrier");
    }
}

enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

// GM is host memory here: cache maintenance has no effect.
template <typename T, CacheLine kLine = CacheLine::SINGLE_CACHE_LINE, DcciDst kDst = DcciDst::CACHELINE_OUT>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&)
{}

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
inline uint64_t CurrentTilingKey()
{
    CoreContext* c = CurrentCore();
    return c ? c->tiling_key : 0;
}
}  // namespace aqo_emu

#define ASCEND_IS_AIV (::aqo_emu::CoreIsAiv())
#define ASCEND_IS_AIC (!::aqo_emu::CoreIsAiv())
#define ASCEND_IS_NOT_AIV (!::aqo_emu::CoreIsAiv())
#define ASCEND_IS_NOT_AIC (::aqo_emu::CoreIsAiv())
#define KERNEL_TASK_TYPE_DEFAULT(type)
#define KERNEL_TASK_TYPE(key, type)
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
