// The launcher of the AscendC CPU emulator (include/emulator/launch.h): runs a launch's blocks one at a time on
// host threads, passing a baton at SyncAll, and collects the statistics and the instruction trace.
//
// Scheduling (deterministic): block 0 runs first. When the running block returns or waits at a SyncAll, the baton
// goes to the lowest-numbered block that can run: one not started yet (it runs on the thread that is free, or on a
// new one when the current block waits) or one whose SyncAll every participant has reached. A block waiting at a
// SyncAll that the others can never reach (they returned) fails there. After a fault, the waiting blocks are
// unwound one at a time and the blocks not started are not run.
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "emu_launch_state.h"
#include "emulator/emu_kernel_type.h"
#include "emulator/emu_context.h"
#include "emulator/emu_order.h"
#include "emulator/launch.h"
#include "emulator/launch_contract.h"

namespace aqo_emu {
namespace {


thread_local RunStats g_last_run;  // per host thread, like the current core
thread_local std::shared_ptr<const RunTrace> g_last_trace;

using State = BlockSlot::State;

// The next block to hand the baton to (L.mutex held): -1 when none can run. Marks blocks that must fail or unwind.
int PickNext(LaunchState& L)
{
    const int n = static_cast<int>(L.slots.size());
    if (L.aborting) {
        for (int i = 0; i < n; ++i) {
            if (L.slots[i]->state == State::kNotStarted) L.slots[i]->state = State::kDone;  // never run
        }
        for (int i = 0; i < n; ++i) {
            BlockSlot& s = *L.slots[i];
            if (s.state == State::kWaiting || s.state == State::kReady) {
                s.abort = true;
                return i;
            }
        }
        return -1;
    }
    for (int i = 0; i < n; ++i) {
        const State st = L.slots[i]->state;
        if (st == State::kReady || st == State::kNotStarted) return i;
    }
    // Nothing can run: blocks wait at a SyncAll that the returned blocks never reach.
    std::string gone;
    int first_waiting = -1;
    for (int i = 0; i < n; ++i) {
        if (L.slots[i]->state == State::kDone) gone += (gone.empty() ? "" : ", ") + std::to_string(i);
        if (L.slots[i]->state == State::kWaiting && first_waiting < 0) first_waiting = i;
    }
    if (first_waiting < 0) return -1;
    BlockSlot& w = *L.slots[first_waiting];
    w.abort_message = "SyncAll: core(s) " + gone +
                      " returned without reaching it, so the other cores wait forever on the device (every core of "
                      "the launch must call SyncAll the same number of times)";
    return first_waiting;
}

void RunWorker(LaunchState* L, uint32_t first);

// Hands the baton to block `next` (L.mutex held; `next` >= 0). May start a thread for it.
void HandOver(LaunchState& L, int next, bool current_thread_free)
{
    BlockSlot& s = *L.slots[next];
    if (s.state == State::kNotStarted && !current_thread_free) {
        s.state = State::kRunning;
        L.threads.emplace_back(RunWorker, &L, static_cast<uint32_t>(next));
        return;
    }
    // A waiting / ready block resumes on its own thread (also to unwind or to fail).
    s.state = State::kRunning;
    s.cv.notify_one();
}

void MergeGmTouched(LaunchState& L, CoreContext& core, uint32_t b)
{
    for (int w = 0; w < 2; ++w) {
        auto& per_region = core.gm_touched[w];
        for (size_t r = 0; r < per_region.size(); ++r) {
            auto& list = per_region[r];
            std::sort(list.begin(), list.end());
            for (size_t i = 0; i < list.size(); ++i) {
                CoreStats& st = L.stats->cores[b];
                if (i > 0 && list[i].first <= st.gm_ranges.back().end) {
                    if (list[i].second > st.gm_ranges.back().end) st.gm_ranges.back().end = list[i].second;
                    continue;
                }
                GmRange g;
                g.buffer = (*L.gm)[r].name;
                g.begin = list[i].first;
                g.end = list[i].second;
                g.write = w == 1;
                st.gm_ranges.push_back(g);
            }
        }
    }
}

// Runs block b to its end (or its fault, or its unwinding) on the calling thread.
void RunBlock(LaunchState& L, uint32_t b)
{
    CoreContext core;
    core.soc = L.soc;
    core.kernel_name = L.kernel_name;
    core.block_idx = b;
    core.block_dim = L.block_dim;
    core.is_aiv = L.is_aiv;
    core.split_cores = L.soc.id != SocId::kAscend310P;
    core.cube_ratio = L.default_kernel_type == 5 ? 2u : 1u;  // KERNEL_TYPE_MIX_AIC_1_2 (emu_kernel_type.h)
    // CTRL[48] at launch on the split SoCs (RunOptions::ctrl48_saturates_at_launch); ascend310p computes in its
    // saturation mode whatever the register holds (SocModel::saturation_mode).
    core.ctrl = core.split_cores && !L.options.ctrl48_saturates_at_launch ? (uint64_t{1} << 48) : 0;
    // Stale contents of a real UB are unknown; a fixed pattern keeps runs reproducible and the shadow
    // (ub_defined = 0) makes any read of it an error.
    core.ub.assign(L.soc.ub_bytes, 0xA5);
    core.ub_defined.assign(L.soc.ub_bytes, 0);
    core.gm = L.gm;
    core.tiling = L.tiling;
    core.tiling_bytes = L.tiling_bytes;
    core.tiling_key = L.tiling_key;
    core.stats = &L.stats->cores[b];
    core.launch = &L;
    core.options = L.options;
    core.trace = L.options.record_trace ? &L.trace->cores[b] : nullptr;
    OrderBeginCore(core);
    SetCurrentCore(&core);
    struct ClearCore {
        CoreContext* c;
        ~ClearCore()
        {
            OrderEndCore(*c);
            SetCurrentCore(nullptr);
        }
    } clear_core{&core};
    try {
        L.kernel_call();
        FinalizeKernelType(core);  // a kernel that never used its type: the launch is checked against it here
        MergeGmTouched(L, core, b);
        for (const AllocRecord& r : core.records) {
            if (r.kind == AllocKind::kQueue && r.live) {
                Fail(r.file, r.line,
                     std::string("the tensor allocated here (AllocTensor) was never freed by the end of the kernel") +
                         (r.enqueued ? " and is still in its queue" : ""));
            }
        }
        OrderCheckPendingFlags(core);
        DcacheEndCore(core);
    } catch (const LaunchAborted&) {
        // another block faulted: this one only unwinds
    } catch (...) {
        std::lock_guard<std::mutex> lock(L.mutex);
        if (!L.fault) L.fault = std::current_exception();
        L.aborting = true;
    }
}

void RunWorker(LaunchState* L, uint32_t first)
{
    uint32_t b = first;
    for (;;) {
        RunBlock(*L, b);
        std::unique_lock<std::mutex> lock(L->mutex);
        L->slots[b]->state = State::kDone;
        const int next = PickNext(*L);
        if (next < 0) {
            L->all_done.notify_all();
            return;
        }
        if (L->slots[next]->state == State::kNotStarted) {
            L->slots[next]->state = State::kRunning;
            b = static_cast<uint32_t>(next);
            continue;  // a new block runs on this thread
        }
        HandOver(*L, next, true);
        return;
    }
}

}  // namespace

std::shared_ptr<const std::vector<uint32_t>> LaunchBarrier(CoreContext& c, uint32_t participants,
                                                           const std::vector<uint32_t>& contribution,
                                                           const char* file, int line, const char* api)
{
    LaunchState& L = *c.launch;
    const uint32_t b = c.block_idx;
    std::unique_lock<std::mutex> lock(L.mutex);
    BlockSlot& me = *L.slots[b];
    if (L.barrier_arrived == 0) {
        L.barrier_participants = participants;
        L.barrier_accumulator.assign(contribution.size(), 0);
    }
    for (size_t i = 0; i < contribution.size() && i < L.barrier_accumulator.size(); ++i) {
        L.barrier_accumulator[i] = std::max(L.barrier_accumulator[i], contribution[i]);
    }
    ++L.barrier_arrived;
    me.state = State::kWaiting;
    me.wait_file = file;
    me.wait_line = line;
    if (L.barrier_arrived == L.barrier_participants) {
        auto all = std::make_shared<const std::vector<uint32_t>>(L.barrier_accumulator);
        for (auto& s : L.slots) {
            if (s->state == State::kWaiting) {
                s->state = State::kReady;
                s->barrier_clock = all;
            }
        }
        L.barrier_arrived = 0;
    }
    const int next = PickNext(L);
    if (next == static_cast<int>(b)) {
        me.state = State::kRunning;
    } else {
        if (next >= 0) HandOver(L, next, false);
        me.cv.wait(lock, [&] { return me.state == State::kRunning; });
    }
    if (me.abort) {
        throw LaunchAborted();
    }
    if (!me.abort_message.empty()) {
        const std::string msg = std::string(api) + ": " + me.abort_message;
        lock.unlock();
        Fail(file, line, msg);
    }
    return me.barrier_clock;
}

Launcher::Launcher(const std::string& soc, const std::string& kernel_name, uint32_t ub_bytes_override)
    : soc_(MakeSocModel(soc, ub_bytes_override)), kernel_name_(kernel_name), options_(DefaultRunOptions())
{}

uint8_t* Launcher::AddGm(const std::string& name, void* data, uint64_t bytes, GmAccess access)
{
    return AddGm(name, data, bytes, access, access == GmAccess::kReadOnly ? GmInit::kData : GmInit::kOutput);
}

uint8_t* Launcher::AddGm(const std::string& name, void* data, uint64_t bytes, GmAccess access, GmInit init)
{
    GmRegion r;
    r.name = name;
    r.base = static_cast<uint8_t*>(data);
    r.bytes = bytes;
    r.access = access;
    r.init = access == GmAccess::kReadOnly ? GmInit::kData : init;
    if (r.base == nullptr && bytes != 0) {
        throw EmulatorError("emulator: GM buffer '" + name + "' has " + std::to_string(bytes) +
                                " bytes but a null address",
                            "?", 0, soc_.name, -1, "null GM buffer");
    }
    gm_.push_back(r);
    return r.base;
}

uint8_t* Launcher::SetTiling(const void* data, uint64_t bytes)
{
    tiling_.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + bytes);
    if (tiling_.empty()) tiling_.push_back(0);  // a valid address even for empty tiling; tiling_bytes stays 0
    GmRegion r;
    r.name = "tiling";
    r.base = tiling_.data();
    r.bytes = bytes;
    r.access = GmAccess::kReadOnly;
    // Replace an earlier tiling registration.
    for (GmRegion& g : gm_) {
        if (g.name == "tiling") {
            g = r;
            return tiling_.data();
        }
    }
    gm_.push_back(r);
    return tiling_.data();
}

void Launcher::Run(uint32_t block_dim, const std::function<void()>& kernel_call)
{
    stats_ = RunStats();
    stats_.soc = soc_.name;
    stats_.kernel = kernel_name_;
    stats_.block_dim = block_dim;
    stats_.ub_bytes = soc_.ub_bytes;
    stats_.cores.assign(block_dim, CoreStats());
    auto trace = std::make_shared<RunTrace>();
    trace->soc = soc_.name;
    trace->kernel = kernel_name_;
    trace->block_dim = block_dim;
    if (block_dim == 0) {
        stats_.completed = false;
        stats_.error = "block_dim 0";
        g_last_run = stats_;
        trace_ = trace;
        g_last_trace = trace_;
        throw EmulatorError("emulator: launch of " + kernel_name_ + " with block_dim 0", "?", 0, soc_.name, -1,
                            "block_dim 0");
    }
    if (!kernel_tag_.empty()) {
        try {
            CheckTilingKeyHasKernel(kernel_tag_, kernel_name_, tiling_key_);
        } catch (const EmulatorError& e) {
            stats_.completed = false;
            stats_.error = e.what();
            g_last_run = stats_;
            trace_ = trace;
            g_last_trace = trace_;
            throw;
        }
    }
    LaunchState L;
    L.soc = soc_;
    L.kernel_name = kernel_name_;
    L.block_dim = block_dim;
    L.is_aiv = is_aiv_;
    L.tiling_key = tiling_key_;
    L.default_kernel_type = soc_.split_cores ? kernel_type_ : -1;
    L.partial_mix_group = partial_mix_group_;
    L.device_block_dim = device_block_dim_;
    L.schedule_mode = schedule_mode_;
    L.tiling = tiling_.empty() ? nullptr : tiling_.data();
    uint64_t next_addr = 0;  // the trace's GM address space (emu_trace.h): buffers in order, kGmBufferAlign apart
    for (GmRegion& g : gm_) {
        g.trace_addr = next_addr;
        next_addr += (g.bytes + kGmBufferAlign - 1) / kGmBufferAlign * kGmBufferAlign + kGmBufferAlign;
        trace->gm_buffers.push_back(GmBufferInfo{g.name, g.trace_addr, g.bytes});
        if (g.name == "tiling") L.tiling_bytes = g.bytes;
        g.writer.clear();  // cross-core write tracking is per launch
        if (GmTracksWrites(g) && g.bytes > 0) {
            // Not zeroed on the device: a poison pattern, and nothing written yet (the system part of a workspace
            // is never accessible, so it is left as the host gave it).
            const uint64_t from = g.is_workspace ? g.reserved_bytes : 0;
            std::memset(g.base + from, kGmGarbage, g.bytes - from);
            g.written.assign(g.bytes, 0);
        }
        g.last_write_file = nullptr;
        g.last_write_line = 0;
        g.dirty.clear();
    }
    L.gm = &gm_;
    L.gm_shadow.resize(gm_.size());
    L.options = options_;
    L.stats = &stats_;
    L.kernel_call = kernel_call;
    L.trace = trace;
    if (options_.record_trace) {
        trace->cores.resize(block_dim);
        for (uint32_t b = 0; b < block_dim; ++b) trace->cores[b].core = b;
    }
    L.sites.resize(static_cast<size_t>(block_dim) * kStreams);
    for (uint32_t b = 0; b < block_dim; ++b) L.slots.emplace_back(new BlockSlot());

    L.slots[0]->state = State::kRunning;
    RunWorker(&L, 0);
    {
        std::unique_lock<std::mutex> lock(L.mutex);
        L.all_done.wait(lock, [&] {
            for (auto& s : L.slots) {
                if (s->state != State::kDone) return false;
            }
            return true;
        });
    }
    for (std::thread& t : L.threads) t.join();

    for (auto& kv : L.cube_traces) trace->cores.push_back(std::move(kv.second));
    trace_ = trace;
    if (L.fault) {
        stats_.completed = false;
        try {
            std::rethrow_exception(L.fault);
        } catch (const std::exception& e) {
            stats_.error = e.what();
        } catch (...) {
            stats_.error = "the kernel threw a non-standard exception";
        }
        trace->completed = false;
        g_last_run = stats_;
        g_last_trace = trace_;
        std::rethrow_exception(L.fault);
    }
    // Every byte of every output must have been written by the kernel: on the device the rest is whatever the
    // allocator's previous user left.
    for (const GmRegion& g : gm_) {
        if (g.init != GmInit::kOutput || g.bytes == 0) continue;
        const auto first = std::find(g.written.begin(), g.written.end(), 0);
        if (first == g.written.end()) continue;
        const uint64_t b = static_cast<uint64_t>(first - g.written.begin());
        const uint64_t unwritten = static_cast<uint64_t>(std::count(g.written.begin(), g.written.end(), 0));
        const auto end_run = std::find(first, g.written.end(), 1);
        const uint64_t e = static_cast<uint64_t>(end_run - g.written.begin());
        const std::string detail = "output '" + g.name + "' (" + std::to_string(g.bytes) + " bytes): " +
                                   std::to_string(unwritten) + " bytes were never written by the kernel, the first " +
                                   "at byte " + std::to_string(b) + " (bytes [" + std::to_string(b) + ", " +
                                   std::to_string(e) + ") unwritten); on the device they keep whatever the "
                                   "allocator's previous user left (outputs are not zeroed)" +
                                   (g.last_write_file != nullptr && g.last_write_line > 0
                                        ? std::string("; the kernel's last write to it: ") + g.last_write_file +
                                              ":" + std::to_string(g.last_write_line)
                                        : std::string("; the kernel never wrote it"));
        stats_.completed = false;
        stats_.error = "emulator: launch of " + kernel_name_ + " on " + soc_.name + ": " + detail;
        trace->completed = false;
        g_last_run = stats_;
        g_last_trace = trace_;
        throw EmulatorError(stats_.error, "(end of launch)", 0, soc_.name, -1, detail);
    }
    stats_.completed = true;
    trace->completed = true;
    g_last_run = stats_;
    g_last_trace = trace_;
}

const RunStats& LastRunStats() { return g_last_run; }
std::shared_ptr<const RunTrace> LastRunTrace() { return g_last_trace; }

}  // namespace aqo_emu
