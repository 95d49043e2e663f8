// The timeline model: an estimate of when every instruction of an emulated launch would run on the device.
//
// Input: the CoreTraces of a run (emu_trace.h: what each core issued, pipe by pipe, in issue order) and the SoC's
// timing parameters (op_host/tiling_core/soc_table.cpp: every value with its source or marked as an assumption).
// Output: per core and pipe, when each instruction started and completed, busy time, stall time by cause (the
// event a pipe or the scalar unit waited for), and the launch time (the slowest core's end).
//
// It is an estimate from stated parameters, not a measurement. What it models (src/timeline.cpp has the details):
//   * the emu_trace.h semantics: the scalar unit issues in program order (paying an issue cost per event); each
//     other pipe executes its queue in order; SetFlag / WaitFlag pairs (first-in first-out per src, dst, id),
//     PipeBarrier (a pipe waits for its own earlier instructions to complete; PIPE_ALL blocks the scalar unit
//     until every pipe drained), SyncAll across the cores of a group, Matmul requests served by the cube core in
//     the order they were issued (by time, not by the order the emulator ran the blocks);
//   * costs: a DMA is per-burst set-up plus its bytes moved at its share of the GM bandwidth (the chip's
//     bandwidth shared max-min fairly by every transfer active at that moment, each capped by its pipe's rate),
//     completing a GM round trip later; vector instructions cost a fixed start-up plus repeats x cycles per repeat
//     of their class; cube instructions MACs / MACs per cycle; scalar UB / GM accesses a fixed cost each;
//   * the chip's L2 cache (L2_BYTES, lines of L2_LINE_BYTES, LRU, cold at launch): a DMA that reads GM addresses
//     the trace recorded splits its bytes, when its transfer starts, into hits (lines resident then) and misses;
//     the misses' lines move at the GM bandwidth, the hits at the L2 read bandwidth (a second max-min fair
//     arbiter, each transfer capped by MTE2_L2_BYTES_PER_CYCLE), both parts at once; writes allocate the lines
//     they cover and still move at the GM bandwidth;
//   * a bounded instruction queue per pipe (PIPE_QUEUE_DEPTH): the scalar unit stalls when it is full.
// Not modelled: the L2's associativity and its hardware replacement policy (LRU over the whole cache instead), the
// Matmul API's tile order inside a request (its footprint is looked up in address order), scalar GM accesses in
// the L2, UB bank conflicts, instruction cache misses, the scalar work between API calls that the trace does not
// record (loop control, address arithmetic beyond SCALAR_ISSUE_CYCLES per call), DVFS.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "emulator/emu_trace.h"

namespace aqo_emu {

constexpr int kPipeCount = static_cast<int>(Pipe::kAll);  // S V M MTE1 MTE2 MTE3 FIX

// The parameters the simulator uses, in its units (cycles of the core clock, bytes). Built from the SoC table by
// MakeTimelineParams; a test may build one by hand.
struct TimelineParams {
    std::string soc;
    double clock_mhz = 1000;
    double gm_bytes_per_cycle = 64;          // chip total, in core cycles
    double mte2_bytes_per_cycle = 32;
    double mte3_bytes_per_cycle = 32;
    double l2_bytes = 0;                     // 0: no L2 cache (every GM byte moves at the GM bandwidth)
    double l2_line_bytes = 512;
    double l2_bytes_per_cycle = 0;           // chip total for L2 hits, in core cycles
    double mte2_l2_bytes_per_cycle = 32;     // one MTE2 pipe's rate for L2 hits
    double dma_latency_cycles = 0;
    double dma_burst_cycles = 0;
    double vector_bytes_per_repeat = 256;
    double vec_instr_cycles = 0;
    double vec_elementwise_cycles_per_repeat = 1;
    double vec_div_cycles_per_repeat = 1;
    double vec_cast_cycles_per_repeat = 1;
    double vec_reduce_cycles_per_repeat = 1;
    double pipeline_latency_cycles = 0;
    double scalar_issue_cycles = 0;
    double scalar_ub_access_cycles = 1;
    double scalar_gm_access_cycles = 1;
    double flag_sync_cycles = 0;
    double sync_all_cycles = 0;
    double cube_message_cycles = 0;
    double cube_macs_per_cycle = 8192;
    double mte1_bytes_per_cycle = 256;
    double fix_bytes_per_cycle = 256;
    double ub_to_l1_bytes_per_cycle = 256;
    double l1_to_ub_bytes_per_cycle = 128;
    double trans_data_scalar_cycles = 0;
    uint32_t pipe_queue_depth = 32;
    bool fix_to_gm = true;                   // split SoCs: the fixpipe writes GM (shares its bandwidth)
    bool coupled = false;                    // ascend310p: cube and vector in one AI core (Matmul runs in place)
    double l0a_bytes = 65536;                // buffer sizes: how a Matmul request is cut into pipeline chunks
    double l0b_bytes = 65536;
    double l0c_bytes = 131072;
    double l1_bytes = 524288;
};

// The SoC table's timing of `soc` (any name the table accepts) with `scale` applied: parameter name (as in
// aqo::TimingParamTable) -> factor. Throws EmulatorError for an unknown SoC or parameter name.
TimelineParams MakeTimelineParams(const std::string& soc, const std::vector<std::pair<std::string, double>>& scale = {});

// One instruction (or sync item) of a core on a pipe.
struct TimedInstr {
    const TraceEvent* ev = nullptr;  // the trace's event, or one the model added (LaunchTimeline::synthetic)
    Pipe pipe = Pipe::kS;
    double start = 0;     // cycles from the launch's start
    double busy_end = 0;  // the pipe is free for its next instruction
    double end = 0;       // completed (what a flag or barrier waits for)
    bool issue = false;   // scalar unit: issuing events to the pipes (consecutive ones merged), not its own work
};

// A time a pipe (or the scalar unit) could not go on, and why.
struct StallSpan {
    Pipe pipe = Pipe::kS;
    double start = 0;
    double end = 0;
    uint32_t cause = 0;   // index into LaunchTimeline::causes
};

struct PipeSummary {
    double busy = 0;                      // cycles executing instructions
    double stalled = 0;                   // cycles with work queued but blocked
    uint64_t instructions = 0;
    double work = 0;                      // bytes moved (DMA, MTE1, fixpipe), bytes processed (vector: repeats x
                                          // bytes per repeat), MACs (cube), accesses (scalar)
    std::map<uint32_t, double> stall_by_cause;
};

struct CoreTimeline {
    uint32_t core = 0;
    bool is_cube = false;
    bool absorbed = false;                // a coupled SoC's cube part: its work ran on the AI core's own pipes
    double end = 0;                       // the core's last instruction completed
    PipeSummary pipes[kPipeCount];
    std::vector<TimedInstr> instrs;       // when TimelineOptions::record
    std::vector<StallSpan> stalls;        // when TimelineOptions::record
};

struct TimelineOptions {
    bool record = true;                   // keep every instruction's times and every stall span
};

struct LaunchTimeline {
    TimelineParams params;
    double cycles = 0;                    // the slowest core's end
    double time_us = 0;
    uint32_t slowest = 0;                 // index into cores
    std::vector<CoreTimeline> cores;      // in the order of the traces given
    std::vector<std::string> causes;      // stall causes: "wait MTE2->V id 0 at kernel.cpp:12", "queue full V", ...
    double gm_bytes = 0;                  // bytes moved through GM by DMA and fixpipe
    double gm_read_bytes = 0;             // of which read (MTE2)
    double ddr_bytes = 0;                 // bytes through the GM (DDR / HBM) bandwidth: the lines of L2 misses,
                                          // every write, and reads whose addresses the trace does not give
    double l2_hit_bytes = 0;              // read bytes served by the L2 cache
    std::shared_ptr<const std::deque<TraceEvent>> synthetic;  // the events TimedInstr::ev may point to besides
                                                             // the traces' (a Matmul request's pipeline)
};

// Replays the traces. Throws EmulatorError when the traces cannot complete (a WaitFlag whose SetFlag never comes,
// a SyncAll that not every core of its group reaches, a Matmul wait for a request nobody serves): the device
// would hang there, and the message names the kernel line.
LaunchTimeline SimulateTimeline(const std::vector<CoreTrace>& traces, const TimelineParams& params,
                                const TimelineOptions& options = TimelineOptions());

}  // namespace aqo_emu
