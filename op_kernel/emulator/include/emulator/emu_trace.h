// The emulator's instruction trace: what a kernel run did on each core, pipe by pipe, in issue order.
//
// Two consumers share it, so that the ordering rules exist once:
//   * the ordering checks (emu_context / emu_sync): while the kernel runs, every access to UB or GM is checked
//     against the happens-before relation these events define (a dependency between instructions that nothing
//     orders is a fault at the kernel line, as it is a race on the device);
//   * the timeline model (src/timeline*.cpp): after the run, it replays each core's events with per-SoC costs and
//     estimates when every instruction starts and ends, per pipe.
//
// Semantics (the contract both consumers implement; the AscendC documentation and the CANN 8.1.RC1 headers are
// the source, see op_kernel/emulator/README.md):
//   * A core's scalar unit issues its events in program order. kInstr on pipe S runs on the scalar unit itself;
//     kInstr on any other pipe is queued to that pipe, which executes its instructions in order.
//   * Pipes of one core run concurrently. Nothing orders two instructions on different pipes except kSetFlag /
//     kWaitFlag pairs (src -> dst pipe, event id), kBarrier(PIPE_ALL), and the cross-core events below.
//   * Two instructions on the same pipe that depend on each other (one reads or writes what the other wrote, or
//     writes what the other read) need kBarrier(that pipe) between them (PipeBarrier: "needed between the same
//     pipelines with data dependencies"); the scalar pipe is ordered by the hardware.
//   * kSetFlag(src, dst, id) is queued on src and fires when every earlier src instruction has completed;
//     kWaitFlag(src, dst, id) is queued on dst (on S it blocks the scalar unit) and holds back every later dst
//     instruction until the matching kSetFlag fired. Pairs match first-in first-out per (src, dst, id).
//   * kBarrier(PIPE_ALL) blocks the scalar unit until every pipe of the core has drained.
//   * TQue EnQue / DeQue / AllocTensor / FreeTensor are recorded as the kSetFlag / kWaitFlag pairs the AscendC
//     queue inserts for the queue's position (e.g. VECIN: EnQue = SetFlag MTE2->V, DeQue = WaitFlag MTE2->V,
//     FreeTensor = SetFlag V->MTE2, AllocTensor = WaitFlag V->MTE2 once the slot is being reused).
//   * Cross-core: kSyncAll (every core of the group reaches it before any goes on), kCubeRequest / kCubeWait
//     (a vector core hands work to its cube core through the Matmul API; the cube core's instructions of that
//     request carry the same `handle`; kCubeWait blocks the requesting core until that request's last cube
//     instruction has completed).
// Cost inputs are what the instruction moved or computed, never a time: the timeline model owns every parameter.
//
// How the emulator records (src/emu_order.cpp; what a consumer may rely on):
//   * Every emulated API call that runs on a pipe is one kInstr: DataCopy / DataCopyPad GM -> UB on MTE2
//     (kDmaGmToUb), UB -> GM on MTE3 (kDmaUbToGm), UB -> UB on V (kDmaUbToUb); every vector API on V;
//     LocalTensor / GlobalTensor GetValue / SetValue on S (kScalarUb / kScalarGm); SetDeqScale on S (kScalarOther).
//   * Consecutive S instructions (no event of another kind in between) of the same class are merged into one
//     event whose `count` is the number of accesses, at the call site of the first. Their order inside such a run
//     is not kept (nothing can depend on it: no sync event lies between them).
//   * PipeBarrier<pipe> is kBarrier (PIPE_S is refused: the API does not support it). SetFlag / WaitFlag are kSetFlag /
//     kWaitFlag with the kernel's event id. The TQue flags carry the ids TPipe::AllocEventID hands out (lowest
//     free id per HardEvent, held from EnQue to DeQue and from FreeTensor to the next AllocTensor of that buffer),
//     and TPipe::FetchEventID returns the lowest id not held, as the real TPipe does; TPipe::Reset and the end of
//     the TPipe wait for the buffers' outstanding free events (kWaitFlag), as TPipe::Destroy does.
//   * SyncAll (hardware form) is kBarrier(kAll) then kSyncAll (group 0: vector cores only; 1: vector and cube);
//     the software form SyncAll(gm, ub, usedCores) is recorded the same way (its workspace traffic is not).
//   * Matmul IterateAll: kCubeRequest on the vector core (peer_core = the cube core, handle unique in the run),
//     then on the cube core's CoreTrace the request's instructions, each with that handle: MTE2 kDmaGmToL1 (count =
//     A and B bytes the API's L1 copies read from GM), MTE1 kDmaL1ToL0 (count = the same bytes), M kCubeMmad (count =
//     MACs in whole 16 x 16 x 32-byte fractals, elem_bytes = operand bytes), FIX kFixOut (count = C bytes; on ascend310p, which has no fixpipe, V kFixOut then MTE3
//     kDmaUbToGm), then kCubeWait on the vector core. ascend310p's MatmulImpl writes C back row by row from its
//     UB staging (impl/matmul/stage/copy_cube_out/copy_cube_out_datacopy.h CopyLocal2GMNZ2NDOnTheFly: one DataCopy
//     per C row of a block, one 64-byte burst per 16-column fractal of the row), recorded as the MTE3 event's
//     out_dmas and bursts; its synchronous IterateAll sets and waits an MTE3 -> MTE2 flag after every base block
//     (matmul_impl.h, enableUBReuse), recorded as the M event's serial_blocks. Its operand loads are strided copies
//     issued per tile (copy_cube_in/copy_tile_to_cube/data_copy_wrapper_using_ub_nd.h: CopyND2NZOnTheFly, one DMA per
//     32-byte column of a tile with one 32-byte burst per row; an int8 B not transposed, CopyND2NZWithTransData, one
//     DMA per row into UB), recorded as the MTE2 event's instrs and bursts. That int8 B tile is then turned in UB
//     (data_copy_wrapper_utils.h TransDataNDBMatrix: four TransDataTo5HD of ceil(rows / 32) repeats per 32 columns,
//     each behind a PipeBarrier<V>) and copied to L1 (CopyNZ2NZImpl: one DMA, a burst per 32 rows), each step behind
//     a flag pair on the previous one: recorded as a V kVecTransData and an MTE3 kDmaUbToL1 event after the MTE2
//     one, with their instrs and bursts. Cube cores are numbered
//     block_dim + i: on split SoCs (910b, 950) vector core b is served by cube core b / (vector cores per cube core,
//     from KERNEL_TASK_TYPE_DEFAULT: 2 for MIX_AIC_1_2), on ascend310p the cube is part of the AI core b and recorded
//     as core block_dim + b.
//   * GM addresses (for the timeline model's L2 cache): every GM buffer of a launch gets its own range of one
//     launch-wide address space (RunTrace::gm_buffers: the launcher's buffers in registration order, each starting
//     at a multiple of kGmBufferAlign, so no two buffers share a cache line). An instruction that reads or writes
//     GM lists what it touched as GmSpan records in its CoreTrace's `gm` table (TraceEvent::gm = index + 1 of the
//     first, gm_count records; gm = 0: none recorded):
//       - DataCopy / DataCopyPad GM -> UB and UB -> GM: one record, the copy's strided shape as issued (first GM
//         byte, blockCount blocks of the burst length, one block start to the next = burst length + GM gap);
//       - a Matmul request: its MTE2 kDmaGmToL1 lists what the request's jobs read (one record per job and operand:
//         the rectangle of A's rows x K bytes and of B's stored rows, at their row strides, from the API's
//         GlobalTensors, org and single shapes, transposes; the beyond-width reads of ascend310p's write-back), its
//         FIX kFixOut (split SoCs) or MTE3 kDmaUbToGm (ascend310p) what it wrote (C's rectangle, and on ascend310p
//         the beyond-width writes). These are footprints: which tile of the rectangle the API loads when, and how
//         often (count may exceed the footprint when the L1 cache reloads tiles), is not recorded;
//       - scalar GetValue / SetValue on GM: no record (they go through the scalar data cache; their cost is fixed).
//   * A run that faults keeps the events up to the fault.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aqo_emu {

// Hardware pipes (AscendC pipe_t names). Which exist depends on the core kind (vector core: S V MTE2 MTE3; cube
// core: S M MTE1 MTE2 FIX; ascend310p's coupled AI core: all but FIX).
enum class Pipe : uint8_t { kS = 0, kV, kM, kMte1, kMte2, kMte3, kFix, kAll, kCount };

enum class TraceKind : uint8_t {
    kInstr = 0,     // an instruction on `pipe`
    kSetFlag,       // src_pipe -> dst_pipe, event_id
    kWaitFlag,
    kBarrier,       // PipeBarrier<pipe>; pipe == kAll for PIPE_ALL
    kSyncAll,       // cross-core barrier of every core in the launch (`group` distinguishes AIV / AIC groups)
    kCubeRequest,   // a vector core starts Matmul work `handle` on its cube core `peer_core`
    kCubeWait,      // the vector core waits for request `handle` to complete
};

// What an instruction does, for its cost. Vector classes follow the instruction families whose throughput
// differs; the timeline model maps each class to cycles per repeat.
enum class InstrClass : uint8_t {
    kNone = 0,
    kVecElementwise,  // Add Sub Mul Max Min Adds Muls Maxs Mins Abs Duplicate Compare Select ...
    kVecDiv,          // Div (and reciprocal-like ops)
    kVecCast,         // Cast (elements counted on the wider side)
    kVecReduce,       // ReduceMax / ReduceMin / ReduceSum / WholeReduce* / BlockReduce*
    kDmaGmToUb,       // MTE2: DataCopy / DataCopyPad GM -> UB
    kDmaUbToGm,       // MTE3: UB -> GM
    kDmaUbToUb,       // V pipe copy inside UB (DataCopy UB -> UB)
    kDmaGmToL1,       // MTE2 on the cube core (Matmul API operand loads)
    kDmaL1ToL0,       // MTE1
    kCubeMmad,        // M: int8 / float8 / float16 multiply-accumulate
    kFixOut,          // FIX: L0C -> GM (or L0C -> UB on ascend310p through the V pipe)
    kScalarUb,        // S: GetValue / SetValue on UB
    kScalarGm,        // S: GetValue / SetValue on GM (through the scalar data cache)
    kScalarOther,     // S: an API's own scalar work (e.g. parameter set-up), cost in `count`
    kVecTransData,    // V: TransDataTo5HD (ascend310p's Matmul API turning an int8 B tile to the cube's layout)
    kDmaUbToL1,       // MTE3: UB -> L1 (that B tile into L1; a kernel's DataCopy into its own L1 on ascend310p)
    kDmaL1ToUb,       // MTE1: L1 -> UB (a kernel's DataCopy from its own L1 on ascend310p)
};
constexpr int kInstrClassCount = static_cast<int>(InstrClass::kDmaL1ToUb) + 1;

struct TraceEvent {
    TraceKind kind = TraceKind::kInstr;
    Pipe pipe = Pipe::kS;          // kInstr / kBarrier
    Pipe src_pipe = Pipe::kS;      // kSetFlag / kWaitFlag
    Pipe dst_pipe = Pipe::kS;
    int8_t event_id = 0;
    uint8_t group = 0;             // kSyncAll
    InstrClass cls = InstrClass::kNone;
    uint8_t elem_bytes = 0;        // vector element width (bytes)
    uint32_t peer_core = 0;        // kCubeRequest: the cube core
    uint32_t gm = 0;               // GM instructions: index + 1 of the first GmSpan in CoreTrace::gm (0: none)
    uint64_t handle = 0;           // kCubeRequest / kCubeWait, and the cube instructions of that request
    uint64_t count = 0;            // vector: elements; DMA: bytes; cube: MACs; scalar: accesses
    uint32_t bursts = 0;           // DMA: blocks (blockCount) of the copy; vector: 256-byte repeats
    uint32_t gm_count = 0;         // GmSpan records of this event (from gm - 1 on)
    // A Matmul request's work on ascend310p (see "Matmul IterateAll" above; 0 elsewhere):
    uint32_t serial_blocks = 0;    // kCubeMmad: base blocks computed one after another, each block's loads waiting
                                   // for the previous block's C to reach GM (a synchronous IterateAll)
    uint32_t out_dmas = 0;         // kDmaUbToGm: the DMA instructions of the C write-back (one per C row of a block);
                                   // `bursts` counts their bursts
    uint32_t instrs = 0;           // the instructions it stands for, each issued by the scalar unit (0: one):
                                   // kDmaGmToL1 the operand loads' DMAs (`bursts` counts their bursts),
                                   // kVecTransData the TransDataTo5HD instructions (`bursts`: their repeats),
                                   // kDmaUbToL1 the B tiles' UB -> L1 DMAs (`bursts`: their bursts)
    const char* file = "";         // the kernel's call site
    int line = 0;
};

// GM bytes an instruction read or wrote: `blocks` blocks of `block_bytes` bytes, block i starting at
// addr + i * stride, in the launch's GM address space (RunTrace::gm_buffers).
struct GmSpan {
    uint64_t addr = 0;
    uint64_t block_bytes = 0;
    uint64_t stride = 0;
    uint32_t blocks = 0;
    bool write = false;
};

// Where a launch's GM buffers lie in its GM address space.
struct GmBufferInfo {
    std::string name;
    uint64_t addr = 0;
    uint64_t bytes = 0;
};
constexpr uint64_t kGmBufferAlign = uint64_t{2} << 20;  // every buffer starts at a multiple of 2 MiB

// One core's events in issue order.
struct CoreTrace {
    uint32_t core = 0;             // vector cores 0 .. n-1 (the launch's block index), cube cores after them
    bool is_cube = false;
    std::vector<TraceEvent> events;
    std::vector<GmSpan> gm;      // the GM accesses events point to (TraceEvent::gm)
};

// A whole run: the vector cores (index = block index) then the cube cores that received requests, by core number.
struct RunTrace {
    std::string soc;
    std::string kernel;
    uint32_t block_dim = 0;
    bool completed = false;
    std::vector<CoreTrace> cores;
    std::vector<GmBufferInfo> gm_buffers;  // in the launcher's registration order
};

// The trace of the most recent Launcher::Run on this host thread (completed or failed; empty before the first),
// shared, never copied. Launcher::trace() gives the same for one launcher.
std::shared_ptr<const RunTrace> LastRunTrace();

// Names for messages and dumps.
const char* PipeName(Pipe p);
const char* TraceKindName(TraceKind k);
const char* InstrClassName(InstrClass c);

}  // namespace aqo_emu
