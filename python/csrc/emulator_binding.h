// What the emulator bindings share: the emulator's run statistics and faults as Python dicts, GM buffers for the
// launcher, and picking a kernel's per-SoC variant. bind_emulator.cpp (emulator_last_run_stats) and the op
// runners (emulate_<op>.cpp) use these, so that every binding reports a run in the same shape.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>

#include "emulator/emu_context.h"
#include "emulator/launch.h"

namespace aqo_bind {

namespace nb = nanobind;

// How much of a core's statistics a dict carries: the op runners return the counters with every run; the buffer
// and GM-range lists (one entry per InitBuffer / per byte range touched, large for big runs) only
// emulator_last_run_stats returns, on request.
enum class CoreStatsDetail { kCounters, kCountersBuffersRanges };

inline nb::dict CoreStatsToDict(const aqo_emu::CoreStats& s, CoreStatsDetail detail)
{
    nb::dict d;
    d["gm_read_bytes"] = s.gm_read_bytes;
    d["gm_write_bytes"] = s.gm_write_bytes;
    d["dma_gm_to_ub"] = s.dma_gm_to_ub;
    d["dma_ub_to_gm"] = s.dma_ub_to_gm;
    d["dma_ub_to_ub"] = s.dma_ub_to_ub;
    d["gm_scalar_reads"] = s.gm_scalar_reads;
    d["gm_scalar_writes"] = s.gm_scalar_writes;
    d["vector_ops"] = s.vector_ops;
    d["peak_ub_bytes"] = s.peak_ub_bytes;
    if (detail == CoreStatsDetail::kCounters) {
        return d;
    }
    nb::list bufs;
    for (const aqo_emu::UbAllocation& a : s.ub_buffers) {
        nb::dict b;
        b["offset"] = a.offset;
        b["bytes"] = a.bytes;
        b["num"] = a.num;
        b["kind"] = a.is_queue ? "queue" : "tbuf";
        b["site"] = a.site;
        bufs.append(b);
    }
    d["ub_buffers"] = bufs;
    nb::list ranges;
    for (const aqo_emu::GmRange& g : s.gm_ranges) {
        nb::dict r;
        r["buffer"] = g.buffer;
        r["begin"] = g.begin;
        r["end"] = g.end;
        r["write"] = g.write;
        ranges.append(r);
    }
    d["gm_ranges"] = ranges;
    return d;
}

inline nb::dict RunStatsToDict(const aqo_emu::RunStats& s, CoreStatsDetail detail)
{
    nb::dict d;
    d["soc"] = s.soc;
    d["kernel"] = s.kernel;
    d["block_dim"] = s.block_dim;
    d["ub_bytes"] = s.ub_bytes;
    d["completed"] = s.completed;
    d["error"] = s.error;
    nb::list cores;
    for (const aqo_emu::CoreStats& c : s.cores) {
        cores.append(CoreStatsToDict(c, detail));
    }
    d["cores"] = cores;
    return d;
}

// A kernel fault the emulator caught: where in the kernel source, on which SoC and core, and what.
inline nb::dict EmulatorErrorToDict(const aqo_emu::EmulatorError& e)
{
    nb::dict err;
    err["message"] = std::string(e.what());
    err["file"] = e.file();
    err["line"] = e.line();
    err["soc"] = e.soc();
    err["core"] = e.core();
    err["detail"] = e.detail();
    return err;
}

// The result of a run the emulator stopped with a fault: {"ok": False, "emulator_error": {...}, "stats": {...}}
// (the statistics up to the fault), added to the runner's `out`.
inline void SetFaultResult(nb::dict& out, const aqo_emu::EmulatorError& e)
{
    out["ok"] = false;
    out["emulator_error"] = EmulatorErrorToDict(e);
    out["stats"] = RunStatsToDict(aqo_emu::LastRunStats(), CoreStatsDetail::kCounters);
}

// A GM buffer for the launcher: a zero-byte tensor (an empty dimension) gets a one-byte stand-in the kernel never
// touches, so that every kernel argument is a registered address.
inline uint8_t* AddGmOrStandIn(aqo_emu::Launcher& launch, const char* name, uint8_t* data, uint64_t bytes,
                               aqo_emu::GmAccess access, uint8_t* stand_in)
{
    if (bytes == 0) {
        return launch.AddGm(name, stand_in, 1, access, aqo_emu::GmInit::kData);  // never touched
    }
    return launch.AddGm(name, data, bytes, access);
}

// The kernel variant a runner compiled for a canonical SoC name (the plan's explanation.soc); raises ValueError
// naming the runner for a SoC it has no variant of.
template <class KernelEntry>
KernelEntry KernelForSoc(const std::string& canonical_soc, const char* runner, KernelEntry ascend910b,
                         KernelEntry ascend310p, KernelEntry ascend910_95)
{
    if (canonical_soc == "ascend910b") return ascend910b;
    if (canonical_soc == "ascend310p") return ascend310p;
    if (canonical_soc == "ascend910_95") return ascend910_95;
    throw nb::value_error((std::string(runner) + ": no kernel variant for SoC " + canonical_soc).c_str());
}

}  // namespace aqo_bind
