// The emulator's launcher: what an op runner (python/csrc/emulate_<op>.cpp) uses to run a kernel on CPU.
//
//   aqo_emu::Launcher launch("ascend310p", "aqo_dynamic_quant");     // SoC model (+ optional UB override)
//   uint8_t* x = launch.AddGm("x", x_ptr, x_bytes, aqo_emu::GmAccess::kReadOnly);
//   uint8_t* y = launch.AddGm("y", y_ptr, y_bytes, aqo_emu::GmAccess::kReadWrite);
//   uint8_t* tiling = launch.SetTiling(&tiling_struct, sizeof(tiling_struct));
//   launch.Run(block_dim, [&] { aqo_emu_ascend310p::aqo_dynamic_quant_ascend310p(x, y, ..., tiling); });
//   launch.stats();                                                   // per-core GM bytes, DMA ops, peak UB
//
// Run() calls the kernel entry once per block, block_idx 0 .. block_dim-1, each on a fresh UB, one block at a time:
// block 0 first, and a block runs until it returns or waits at a SyncAll; then the lowest-numbered block that can
// run goes on (a new one, or one whose SyncAll every participant has reached). Blocks that wait keep their own
// host thread (the scheduler passes a baton, so the emulated cores never run concurrently and every run is
// deterministic); without SyncAll every block runs on the calling thread. After each block it checks that every
// AllocTensor was freed. The first fault throws aqo_emu::EmulatorError (the binding maps it to
// ascend_quant_ops.errors.EmulatorError), after the other blocks were unwound; the stats and the instruction trace
// of the run (also when it failed) stay readable through stats() / trace() and LastRunStats() / LastRunTrace().
//
// How a runner TU compiles a kernel once per SoC into one module: see kernel_operator.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "emulator/emu_context.h"

namespace aqo_emu {

class Launcher {
public:
    // soc: any name the SoC table accepts. ub_bytes_override > 0 replaces the table's UB size (e.g. the size a
    // plan was made for); it must be a multiple of 32.
    Launcher(const std::string& soc, const std::string& kernel_name, uint32_t ub_bytes_override = 0);

    // Registers a GM buffer the kernel may access and returns the address to pass to the kernel entry. Every
    // GM access of the kernel must fall inside a registered buffer (and, for writes, a kReadWrite one). What the
    // buffer holds at launch (GmInit, emu_context.h): read-only buffers are data; writable ones are outputs by
    // default (poisoned at each Run, every byte to be written by the kernel); pass GmInit::kData for a buffer the
    // host filled (test data) or GmInit::kUndefined for scratch the kernel need not write completely.
    uint8_t* AddGm(const std::string& name, void* data, uint64_t bytes, GmAccess access);
    uint8_t* AddGm(const std::string& name, void* data, uint64_t bytes, GmAccess access, GmInit init);

    // Registers the launch's workspace (its kernel part GmInit::kUndefined: poisoned, never zeroed): `reserved_bytes`
    // of system workspace (the SoC's, what the framework and
    // the Matmul API use; the host's workspace size includes it) followed by the kernel's own part, which
    // GetUserWorkspace(workspace) returns. A kernel access to the reserved bytes fails (launch_contract.h).
    uint8_t* AddWorkspace(const std::string& name, void* data, uint64_t bytes, uint64_t reserved_bytes);

    // Copies the tiling bytes (the tiling class as a plain struct) and returns the address to pass as the
    // kernel's `tiling` argument. GET_TILING_DATA reading past these bytes fails.
    uint8_t* SetTiling(const void* data, uint64_t bytes);
    // The launch's tiling key and the kernel it is for (the AqoEmuKernelTag name its runner gave the kernel):
    // Run() refuses a key that kernel's TILING_KEY_IS branches do not name, as a device launch would find no
    // kernel binary for it (emulator/launch_contract.h).
    void SetTilingKey(uint64_t key, const std::string& kernel_tag)
    {
        tiling_key_ = key;
        kernel_tag_ = kernel_tag;
    }

    // The kernel type (KernelMetaType, emu_kernel_type.h) the build gives a kernel that does not declare one with
    // KERNEL_TASK_TYPE_DEFAULT (CANN infers it from the code: a kernel with a Matmul object is a mix kernel). Applies
    // on split SoCs only (310p kernels are AI-core kernels). The kernel's own declaration wins.
    void SetKernelType(int kernel_meta_type) { kernel_type_ = kernel_meta_type; }
    // The blockDim the host's TilingFunc gives the launch (SetBlockDim). Run(block_dim) counts the vector blocks
    // the work is planned for (310p: AI cores); the kernel's type for the launch's key says how many vector cores
    // the device starts for this blockDim (a 1:2 mix kernel two per cube core, a vector kernel one per block), and
    // the launch fails where the two disagree (emu_kernel_type.h FinalizeKernelType). 0: not checked.
    void SetDeviceBlockDim(uint32_t block_dim) { device_block_dim_ = block_dim; }
    // Test scaffolding only: a 1:2 mix kernel launched on an odd number of vector blocks (the last cube core's second
    // vector core is not emulated). Product runners launch whole pairs.
    void AllowPartialMixGroup(bool allow) { partial_mix_group_ = allow; }

    // The schedule mode the host's TilingFunc gives the launch (TilingContext::SetScheduleMode): 0 normal (the
    // framework may start the launch's cores as they come free), 1 batch (all at once). A SyncAll needs batch mode:
    // otherwise, beside other streams, the first cores wait in the barrier for cores that never start.
    void SetScheduleMode(uint32_t mode) { schedule_mode_ = mode; }

    // Vector (AIV, default) or cube (AIC) core: what ASCEND_IS_AIV / ASCEND_IS_AIC report.
    void SetCoreIsAiv(bool aiv) { is_aiv_ = aiv; }

    // What the run assumes where the documentation is silent (emu_context.h RunOptions); by default the calling
    // thread's defaults when the launcher was made (SetDefaultRunOptions).
    void SetRunOptions(const RunOptions& options) { options_ = options; }
    const RunOptions& run_options() const { return options_; }

    // Runs kernel_call for block_idx = 0 .. block_dim-1.
    void Run(uint32_t block_dim, const std::function<void()>& kernel_call);

    const RunStats& stats() const { return stats_; }
    std::shared_ptr<const RunTrace> trace() const { return trace_; }
    const SocModel& soc() const { return soc_; }

private:
    SocModel soc_;
    std::string kernel_name_;
    std::vector<GmRegion> gm_;
    std::vector<uint8_t> tiling_;
    uint64_t tiling_key_ = 0;
    std::string kernel_tag_;  // empty: SetTilingKey not called (key 0, not checked)
    bool is_aiv_ = true;
    int kernel_type_ = -1;
    uint32_t device_block_dim_ = 0;
    bool partial_mix_group_ = false;
    uint32_t schedule_mode_ = 0;
    RunOptions options_;
    RunStats stats_;
    std::shared_ptr<const RunTrace> trace_;
};

// The stats of the most recent Run() on this host thread (completed or failed).
const RunStats& LastRunStats();

}  // namespace aqo_emu
