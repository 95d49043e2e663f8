// The state one Launcher::Run shares between its cores (private to src/emu_*.cpp): the GM buffers and their
// ordering shadow, the trace, the cube cores, and the scheduler that runs the blocks one at a time on host threads
// and passes the baton at SyncAll.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "emulator/emu_context.h"
#include "emulator/emu_trace.h"

namespace aqo_emu {

// An access in the GM shadow: which core's stream, which instruction of it.
struct Epoch {
    uint32_t gstream = 0xFFFFFFFFu;  // core * kStreams + stream; all ones = none
    uint32_t seq = 0;
};

// A byte range of a GM buffer whose bytes share their last write and their reads since.
struct GmSegment {
    uint64_t end = 0;
    Epoch write;
    std::vector<Epoch> reads;  // the last read per stream since the write
};

struct GmShadow {
    std::map<uint64_t, GmSegment> segments;  // by begin, disjoint
};

// Thrown into a block that waits at a SyncAll when another block faulted: unwinds it without a fault of its own.
struct LaunchAborted {};

struct BlockSlot {
    enum class State { kNotStarted, kRunning, kWaiting, kReady, kDone };
    State state = State::kNotStarted;
    std::condition_variable cv;
    bool abort = false;              // woken only to unwind
    std::string abort_message;       // woken to fail at its SyncAll (the others can never arrive)
    const char* wait_file = "";
    int wait_line = 0;
    std::shared_ptr<const std::vector<uint32_t>> barrier_clock;  // what the completed barrier made known
};

struct LaunchState {
    SocModel soc;
    std::string kernel_name;
    uint32_t block_dim = 1;
    bool is_aiv = true;
    uint64_t tiling_key = 0;
    int default_kernel_type = -1;   // Launcher::SetKernelType (split SoCs), -1 none
    uint32_t device_block_dim = 0;  // Launcher::SetDeviceBlockDim: the host's SetBlockDim, 0 not given
    bool partial_mix_group = false; // Launcher::AllowPartialMixGroup
    uint32_t schedule_mode = 0;     // Launcher::SetScheduleMode: 0 normal, 1 batch (every core started at once)
    const uint8_t* tiling = nullptr;
    uint64_t tiling_bytes = 0;
    std::vector<GmRegion>* gm = nullptr;
    std::vector<GmShadow> gm_shadow;  // per region (writable ones only are used)
    RunOptions options;
    RunStats* stats = nullptr;
    std::function<void()> kernel_call;

    // trace: the vector cores' traces live in trace->cores[0 .. block_dim); cube cores here until the end
    std::shared_ptr<RunTrace> trace;
    std::map<uint32_t, CoreTrace> cube_traces;  // by core number
    uint64_t next_handle = 0;
    // a Matmul request's GM accesses (CubeGmAccess) until its work is recorded (CubeRequestWork), by handle
    std::map<uint64_t, std::vector<GmSpan>> cube_gm;
    // call sites per core and stream (OrderState::SiteRun), kept for the whole run so that a later core can name an
    // earlier core's instruction
    std::vector<std::vector<OrderState::SiteRun>> sites;  // [core * kStreams + stream]

    // scheduler
    std::mutex mutex;
    std::condition_variable all_done;
    std::vector<std::unique_ptr<BlockSlot>> slots;
    std::vector<std::thread> threads;
    std::exception_ptr fault;
    bool aborting = false;
    // the SyncAll in progress
    uint32_t barrier_arrived = 0;
    uint32_t barrier_participants = 0;
    std::vector<uint32_t> barrier_accumulator;
};

// The scheduler's barrier (src/emu_launch.cpp): blocks the calling block until `participants` blocks arrived;
// returns what every participant knew (the join of their clocks). Fails if it can never complete.
std::shared_ptr<const std::vector<uint32_t>> LaunchBarrier(CoreContext& c, uint32_t participants,
                                                           const std::vector<uint32_t>& contribution,
                                                           const char* file, int line, const char* api);

}  // namespace aqo_emu
