// Run-time state of the AscendC CPU emulator: the SoC model, the emulated core (UB memory and its
// initialisation shadow, queue and buffer bookkeeping), the registered GM buffers, the tiling bytes and the
// statistics, plus the error type every check throws.
//
// Everything SoC-dependent is run-time state here, never a macro: one emulator build serves the kernel variants
// of all SoCs, which are compiled into the same module (see launch.h).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <map>
#include <string>
#include <vector>

#include "emulator/emu_trace.h"
#include "emulator/emu_types.h"

namespace aqo_emu {

// A kernel fault caught by the emulator. what() = "<file>:<line>: [<soc> core <i>/<n>] <detail>".
class EmulatorError : public std::runtime_error {
public:
    EmulatorError(const std::string& message, std::string file, int line, std::string soc, int core,
                  std::string detail)
        : std::runtime_error(message), file_(std::move(file)), line_(line), soc_(std::move(soc)), core_(core),
          detail_(std::move(detail))
    {}
    const std::string& file() const { return file_; }
    int line() const { return line_; }
    const std::string& soc() const { return soc_; }
    int core() const { return core_; }  // -1 outside a core (launcher set-up)
    const std::string& detail() const { return detail_; }

private:
    std::string file_;
    int line_;
    std::string soc_;
    int core_;
    std::string detail_;
};

// Throws EmulatorError naming the kernel's file and line, the SoC and the core being run.
[[noreturn]] void Fail(const char* file, int line, const std::string& detail);

enum class SocId : int { kAscend910B = 0, kAscend310P, kAscend910_95 };

// The per-SoC model. Sizes and capabilities come from the package's SoC table (op_host/tiling_core); the Cast
// table and the float behaviour are the emulator's (derived from the CANN 8.1.RC1 headers; README).
// A default-constructed model is "no SoC" (no UB, no optional feature): only MakeSocModel fills one in, so no
// SoC fact is restated here.
struct SocModel {
    SocId id = SocId::kAscend910B;
    std::string name = "(no SoC)";
    uint32_t ub_bytes = 0;
    // The SoC table's UB, TOTAL_UB_SIZE of the build (ub_bytes may be a launch's override of it): where the APIs'
    // compiled-in addresses (the Matmul client's message block) lie.
    uint32_t total_ub_bytes = 0;
    // ascend910_95: TMP_UB_OFFSET, where the level-0 forms of the vector APIs keep 8 KiB of scratch (asc-devkit's
    // constants for this architecture: TMP_UB_OFFSET = TOTAL_UB_SIZE = 248 KiB, the table's UB); 0 elsewhere (the
    // scratch is the top kApiScratchUbBytes of ub_bytes).
    uint32_t level0_scratch_at = 0;
    bool has_data_copy_pad = false;
    bool has_bfloat16 = false;
    bool has_float8 = false;        // float8 e4m3fn / e5m2 and hifloat8 (the SoC table's dtype lists have them)
    bool saturation_mode = false;   // 310p: float Inf reads as +-max, NaN as 0; results saturate
    // Div flushes subnormal operands and quotients to zeros of their sign (ascend910_95: asc-devkit's Div page keeps
    // subnormals only with a DivConfig algorithm ..._FTZ_FALSE, and the default, DivAlgo::INTRINSIC, flushes them).
    // Elsewhere undocumented: RunOptions::divide_flushes_subnormals runs it as a variant.
    bool div_flushes_subnormals = false;
    // The cube's buffers (the SoC table's timing section, read from the platform configs): the Matmul API's tiling
    // must fit them.
    uint64_t l1_bytes = 0;
    uint64_t l0a_bytes = 0;
    uint64_t l0b_bytes = 0;
    uint64_t l0c_bytes = 0;
    bool split_cores = false;       // 910b / 950: cube and vector cores are separate cores (mix kernels)
    uint32_t cube_cores = 0;        // the SoC table's cube cores (310p: the AI cores)
    uint32_t vector_cores = 0;      // the SoC table's vector cores (910b / 950: 2 per cube core)
    uint64_t system_workspace_bytes = 0;  // RESERVED_WORKSPACE: the framework's part at the workspace's start
};

// Builds the model of a SoC name ("ascend910b", "ascend310p", "ascend910_95", "ascend950", variants) from the
// SoC table; ub_bytes_override > 0 replaces the UB size. Throws EmulatorError for an unknown name.
SocModel MakeSocModel(const std::string& soc_name, uint32_t ub_bytes_override = 0);

// How a run treats what the documentation leaves open. The default is the documented or most plausible behaviour;
// the variants exist so that tests can require a kernel to be correct under each of them (op_kernel/emulator/
// README.md, "Run variants"). A launcher takes the calling thread's defaults (SetDefaultRunOptions) unless given
// its own, so Python can switch them around an unchanged op runner.
struct RunOptions {
    // Div (and any reciprocal) is not documented as correctly rounded: perturbed, every quotient that is not exactly
    // representable is rounded to the farther of its two neighbours (1 ulp off, never more).
    bool perturbed_divide = false;
    // Div with subnormal operands or a subnormal quotient: IEEE (false), or flushed to zero, sign kept (true). The
    // other SoCs' behaviour is not documented; ascend910_95's Div always flushes (SocModel::div_flushes_subnormals),
    // whatever this says. A subnormal divisor flushed to 0 is then a division by zero (refused); the quotient's
    // tininess is judged before rounding.
    bool divide_flushes_subnormals = false;
    // Every float operation of the vector unit (arithmetic, compares, reductions, Cast, MulAddDst) with subnormal
    // operands or results on ascend910b and ascend310p: IEEE (false), or flushed to zero, sign kept (true). Nothing
    // public says what their units do; the 950's Add / Mul are documented to keep subnormals (its register-level
    // precision appendix), so the variant leaves the 950 as it is. Bit moves (DataCopy, Duplicate, Brcb, And / Or)
    // are not affected.
    bool vector_flushes_subnormals = false;
    // The pipe of a UB -> UB DataCopy: the vector pipe (false; the API pages of DataCopy and asc_copy_ub2ub), or MTE3
    // (true; the C-API overview lists UB -> UB moves under PIPE_MTE3). The docs disagree and nothing states it for
    // ascend310p, so a kernel must order its UB -> UB copies correctly under both.
    bool ub_copy_on_mte3 = false;
    // The 950 cube's float results: IEEE (false), or its saturation mode (true: Inf -> +-max, NaN -> 0), which the
    // Mmad page ties to the CTRL[48] bit without saying which value a launch starts with.
    bool cube_float_saturates = false;
    // ascend910b / ascend910_95 vector cores: the CTRL[48] bit a launch starts with. It selects the saturation mode
    // of half / bfloat16 results (arithmetic and conversions to them: Inf -> +-max, NaN -> 0, overflow -> +-max) when
    // 0 and the IEEE mode when 1 (the SetCtrlSpr page). The CANN runtime documents IEEE as these SoCs' default mode
    // (false: bit 1); the page gives 0 as the register's default value (true). A kernel that depends on the mode
    // sets the bit itself (set_ctrl).
    bool ctrl48_saturates_at_launch = false;
    // Max / Min of +0 and -0 (equal values): the second operand (false), or the first (true); nothing documents
    // the sign of the result.
    bool zero_tie_first = false;
    // ascend310p saturation mode: what a Cast from float16 makes of +-Inf (0: +-65504, float16's max; 1: +-Inf;
    // 2: +-max of the destination type) and of NaN (0: 0; 1: NaN). Only these conversions vary.
    int saturation_inf = 0;
    int saturation_nan = 0;
    // A Cast with CAST_NONE is a conversion without a rounding mode; when its result is not exact the rounding is
    // undocumented: 0 nearest even (what CAST_NONE's description says), 1 toward zero.
    int modeless_rounding = 0;
    // Record the instruction trace (emu_trace.h).
    bool record_trace = true;
    // Check every UB / GM access against the ordering model (emu_order.h).
    bool check_ordering = true;
};
void SetDefaultRunOptions(const RunOptions& options);  // this host thread's default for new Launchers
const RunOptions& DefaultRunOptions();

// kReadWrite buffers may be written by one core per byte: a byte written by two cores of one launch is a race
// on the device (the result depends on timing) and fails. kReadWriteShared lifts that check for buffers whose
// kernel orders its cores' writes itself (e.g. a workspace handed from core to core with SyncAll).
enum class GmAccess : int { kReadOnly = 0, kReadWrite, kReadWriteShared };

// What a GM buffer holds when the launch starts. On the device outputs come from torch.empty / the framework's
// allocator and the workspace from a reused pool: neither is zeroed. kUndefined and kOutput buffers are filled with a
// poison pattern at each Run and carry a per-byte "written in this launch" shadow: a scalar or cube read of a byte
// never written fails, a DMA read gives uninitialised UB bytes (caught where they are used); a kOutput buffer must
// be written completely by the end of the launch. kData: bytes the host wrote (inputs, or test data).
enum class GmInit : int { kData = 0, kUndefined, kOutput };
// The byte the emulator fills kUndefined / kOutput buffers with at launch, and writes where the device writes garbage.
constexpr uint8_t kGmGarbage = 0xA5;

struct GmRegion {
    std::string name;
    uint8_t* base = nullptr;
    uint64_t bytes = 0;
    GmAccess access = GmAccess::kReadOnly;
    std::vector<uint8_t> writer;  // per byte: 0 = not written in this launch, else block_idx + 1 (kReadWrite)
    GmInit init = GmInit::kData;
    std::vector<uint8_t> written;  // kUndefined / kOutput: per byte, 1 = written in this launch
    const char* last_write_file = nullptr;  // kOutput: the kernel line of the latest write (named when bytes remain)
    int last_write_line = 0;
    // Lines (64 bytes, kDcacheLine) holding bytes a core's scalar unit wrote and has not cleaned yet (emu_dcache.cpp):
    // line index -> the core, its dirty bytes, the SetValue.
    struct DirtyLine {
        uint32_t core = 0;
        uint64_t mask = 0;  // bit i: byte i of the line
        const char* file = "";
        int line = 0;
    };
    std::map<uint64_t, DirtyLine> dirty;
    // The launch's workspace (Launcher::AddWorkspace): its first reserved_bytes are the system workspace, which no
    // kernel access may touch (emulator/launch_contract.h).
    bool is_workspace = false;
    uint64_t reserved_bytes = 0;
    // Where the buffer lies in the launch's GM address space of the trace (emu_trace.h: RunTrace::gm_buffers), set
    // by Launcher::Run.
    uint64_t trace_addr = 0;
};

// One TPipe::InitBuffer of a core: the UB map the kernel actually built (to compare with a plan's UB map).
struct UbAllocation {
    uint32_t offset = 0;      // UB byte address
    uint32_t bytes = 0;       // total bytes (num * slot bytes)
    uint32_t num = 1;         // buffers (queue slots); 1 for a TBuf
    bool is_queue = false;
    std::string site;         // kernel file:line of the InitBuffer call
};

// A GM byte range [begin, end) of one registered buffer that a core read or wrote (merged over the run).
struct GmRange {
    std::string buffer;
    uint64_t begin = 0;
    uint64_t end = 0;
    bool write = false;
};

// Per-core statistics of one run.
struct CoreStats {
    uint64_t gm_read_bytes = 0;     // bytes DMA'd GM -> UB
    uint64_t gm_write_bytes = 0;    // bytes DMA'd UB -> GM
    uint64_t dma_gm_to_ub = 0;      // DataCopy / DataCopyPad operations GM -> UB
    uint64_t dma_ub_to_gm = 0;      // ... UB -> GM
    uint64_t dma_ub_to_ub = 0;
    uint64_t gm_scalar_reads = 0;   // GlobalTensor::GetValue calls
    uint64_t gm_scalar_writes = 0;  // GlobalTensor::SetValue calls
    uint64_t vector_ops = 0;        // vector instructions issued (level-2 calls)
    uint64_t peak_ub_bytes = 0;     // highest UB byte allocated by TPipe::InitBuffer
    std::vector<UbAllocation> ub_buffers;  // every InitBuffer, in call order (after a TPipe::Reset: appended)
    std::vector<GmRange> gm_ranges;        // every GM byte the core touched, merged per buffer and direction
};

struct RunStats {
    std::string soc;
    std::string kernel;
    uint32_t block_dim = 0;
    uint32_t ub_bytes = 0;
    bool completed = false;          // false when a fault stopped the run
    std::string error;               // the fault's message when !completed
    std::vector<CoreStats> cores;
};

// ---- the ordering model (src/emu_order.cpp; semantics in emu_trace.h) ----
// A core's instruction streams. The scalar unit's loads and stores are separate streams because they become visible
// to the other pipes differently: a load has completed when the scalar unit issues anything after it (it needs the
// value); a store only after a flag or barrier from S.
// Who sets a flag or holds an event id: the kernel's own SetFlag / AllocEventID, a TPipe queue (EnQue, FreeTensor),
// or an API's internal synchronisation (ReduceMax's V_S, the Matmul client's message flags).
enum class FlagOwner : uint8_t { kNone = 0, kKernel, kQueue, kApi };

enum class Stream : uint8_t { kSRead = 0, kSWrite, kV, kM, kMte1, kMte2, kMte3, kFix, kCube, kCount };
constexpr int kStreams = static_cast<int>(Stream::kCount);
constexpr int kPipes = static_cast<int>(Pipe::kAll);  // S V M MTE1 MTE2 MTE3 FIX

// What is known to have completed: per stream of the core, the count of its instructions (sequence numbers are
// per stream and increase; "n" means every instruction with seq <= n).
struct Clock {
    uint32_t v[kStreams] = {};
    void Join(const Clock& o)
    {
        for (int i = 0; i < kStreams; ++i) v[i] = o.v[i] > v[i] ? o.v[i] : v[i];
    }
};

// The core's view: what an instruction issued now to pipe P may assume complete is view[P] joined with issue.
struct OrderState {
    uint32_t last[kStreams] = {};  // last sequence number issued per stream
    Clock view[kPipes];            // per pipe: flags waited for on it, its own barriers
    Clock issue;                   // completed before the scalar unit issued the current instruction
    // Other cores' streams known complete (only SyncAll brings them), indexed core * kStreams + stream.
    std::shared_ptr<const std::vector<uint32_t>> remote;
    Clock current;                 // the view of the instruction being executed
    Pipe current_pipe = Pipe::kS;
    uint32_t current_seq = 0;
    uint8_t current_stream = 0;
    const char* current_file = "";
    int current_line = 0;
    const char* current_api = "";
    // A flag is one bit per (HardEvent, id) (the CCE set_flag / wait_flag semantics): at most one SetFlag is pending
    // on it; WaitFlag waits for it and clears it. The clock is what the SetFlag carries; the site and owner name it.
    struct FlagSlot {
        bool pending = false;
        FlagOwner owner = FlagOwner::kNone;
        Clock clock;
        const char* file = "";
        int line = 0;
        const char* api = "";
    };
    std::vector<FlagSlot> flags;  // [hard_event * 8 + id]
    // Who holds each event id (TPipe::AllocEventID until ReleaseEventID): a queue buffer, the kernel, or an API
    // (the Matmul client's message flag); [hard_event * 8 + id], with the holder's call site for messages.
    struct IdHolder {
        FlagOwner owner = FlagOwner::kNone;
        const char* file = "";
        int line = 0;
        const char* what = "";
    };
    std::vector<IdHolder> id_holders;
    // Event ids TPipe::AllocEventID / FetchEventID handed to the kernel ([hard_event * 8 + id]): under a TPipe the
    // kernel's SetFlag takes only those (the SetFlag / WaitFlag page).
    std::vector<bool> kernel_ids;
    // call sites of instructions, for messages: per stream, runs of consecutive sequence numbers from one site
    struct SiteRun {
        uint32_t first_seq;
        const char* file;
        int line;
        const char* api;
    };
    std::vector<SiteRun> sites[kStreams];
    int scalar_run_start = -1;     // trace index where the current run of S events starts
    // pending Matmul requests: handle, cube sequence number, what the scalar unit knew when it was made
    struct CubeRequest {
        uint64_t handle;
        uint32_t seq;
        Clock view;
    };
    std::vector<CubeRequest> cube_requests;
    // An Mmad of fewer than 10 fractals of C not yet followed by PipeBarrier<PIPE_M> (its site; file null: none).
    // The 8.1 Matmul API puts that barrier after every such Mmad ("add pipe_M required by aicore", its
    // stage/compute/mmad_compute.h); no page says why, so the emulator requires it before the next M instruction,
    // a flag the M pipe sets or waits for, and the kernel's end.
    const char* small_mmad_file = nullptr;
    int small_mmad_line = 0;
};

// Per byte of UB: the last write (stream, seq) and the last reads by V and MTE3 since that write. Scalar reads
// need no record (they are complete when anything after them is issued). Kept per 32-byte block while the block's
// bytes agree (uniform), per byte otherwise. Sequence numbers continue across the cores that reuse a shadow, so
// entries left by an earlier core read as complete (no clearing needed).
struct UbShadow {
    std::vector<uint32_t> wseq;   // per byte
    std::vector<uint8_t> wstream;
    std::vector<uint32_t> rv;
    std::vector<uint32_t> rmte3;
    std::vector<uint32_t> bwseq;  // per block
    std::vector<uint8_t> bwstream;
    std::vector<uint32_t> brv;
    std::vector<uint32_t> brmte3;
    std::vector<uint8_t> uniform;
    uint32_t next[kStreams] = {};  // the first sequence number the next core starts after
};

struct LaunchState;

// One tensor allocation (a queue buffer handed out by AllocTensor, or a TBuf). LocalTensor copies refer to it
// by index, so that use after FreeTensor, double frees and foreign frees are detected.
enum class AllocKind : int { kQueue = 0, kTBuf };
// Where a kernel buffer lives. Only UB is an operand of the vector, scalar and GM copy APIs.
enum class Mem : uint8_t { kUb = 0, kL1, kL0A, kL0B, kL0C };
constexpr int kLocalMems = 4;  // L1, L0A, L0B, L0C
const char* MemName(Mem m);
struct AllocRecord {
    AllocKind kind = AllocKind::kQueue;
    int queue = -1;          // owning queue (kQueue) or buffer (kTBuf) index
    int slot = -1;           // buffer slot inside the queue
    bool live = false;
    bool enqueued = false;   // between EnQue and DeQue
    int enque_id = -1;       // event id of the EnQue flag while enqueued
    uint32_t begin = 0;      // byte range of the buffer (in UB, or in L1 when `l1`)
    uint32_t end = 0;
    Mem mem = Mem::kUb;      // the memory it is in: UB, or a kernel-owned L1 / L0 buffer (ascend310p TBufs)
    const char* file = "";   // AllocTensor / InitBuffer call site
    int line = 0;
};

struct QueueState {
    int enque_event = -1;   // HardEvent of EnQue / DeQue (e.g. MTE2_V for VECIN)
    int free_event = -1;    // HardEvent of FreeTensor / AllocTensor (e.g. V_MTE2 for VECIN)
    std::vector<int> slot_free_id;  // per slot: event id of the pending FreeTensor flag, -1 = none
    int depth = 0;
    int num = 0;
    uint32_t slot_bytes = 0;
    std::vector<uint32_t> slot_offset;
    std::vector<int> slot_record;   // live record per slot, -1 = free
    std::vector<int> fifo;          // enqueued records, oldest first
    int next_slot = 0;
    const char* file = "";          // InitBuffer call site
    int line = 0;
};

struct BufState {
    uint32_t offset = 0;
    uint32_t bytes = 0;
    int record = -1;
    Mem mem = Mem::kUb;  // AllocRecord::mem
};

// Ordering of a kernel-owned L1 / L0 memory, per 32-byte block (every access of the modelled APIs is whole blocks):
// the last writer and the last reader on each of the pipes that read these memories (MTE1: L1; M: L0A / L0B / L0C;
// V: L0C on ascend310p).
struct BlockShadow {
    std::vector<uint32_t> wseq;
    std::vector<uint8_t> wstream;
    std::vector<uint32_t> r_mte1;
    std::vector<uint32_t> r_m;
    std::vector<uint32_t> r_v;
};

// A kernel-owned memory other than UB: contents, written-since-allocation bytes, the next free byte (TPipe allocates
// each upwards from 0, as UB), the ordering record. Sized at its first buffer.
struct LocalMem {
    std::vector<uint8_t> bytes;
    std::vector<uint8_t> defined;
    uint32_t alloc = 0;
    BlockShadow shadow;
};

// The state of the core being emulated. One core runs at a time: the launcher passes a baton between the blocks'
// host threads (launch.h).
struct CoreContext {
    SocModel soc;
    std::string kernel_name;
    uint32_t block_idx = 0;
    uint32_t block_dim = 1;
    bool is_aiv = true;

    std::vector<uint8_t> ub;          // the unified buffer
    std::vector<uint8_t> ub_defined;  // 1 = byte was written (by a copy or a vector op) since allocation
    uint32_t ub_alloc = 0;            // next free UB byte (TPipe allocates upwards from 0)
    bool pipe_live = false;
    void* pipe = nullptr;

    // The kernel's own L1, L0A, L0B and L0C (ascend310p TBufs of A1 / B1, A2, B2, CO1): mems[mem - 1].
    LocalMem mems[kLocalMems];
    LocalMem& Local(Mem m) { return mems[static_cast<int>(m) - 1]; }
    bool HasLocalBuffers() const
    {
        for (const LocalMem& m : mems) {
            if (m.alloc > 0) return true;
        }
        return false;
    }

    std::vector<AllocRecord> records;
    std::vector<QueueState> queues;
    std::vector<BufState> bufs;

    std::vector<GmRegion>* gm = nullptr;
    const uint8_t* tiling = nullptr;
    uint64_t tiling_bytes = 0;
    uint64_t tiling_key = 0;

    bool deq_scale_set = false;
    double deq_scale = 1.0;
    // The last deq conversion (Cast int32 -> half) issued on V: its V sequence number (0: none) and call site. It
    // reads the deq scale register when it runs, so SetDeqScale must not change the register before it completes.
    uint32_t deq_reader_seq = 0;
    const char* deq_reader_file = "";
    int deq_reader_line = 0;

    // The ordering model and the trace (src/emu_order.cpp).
    LaunchState* launch = nullptr;
    RunOptions options;
    OrderState order;
    UbShadow* shadow = nullptr;
    CoreTrace* trace = nullptr;
    uint64_t ctrl = 0;                // the CTRL register (get_ctrl / set_ctrl); bit 48: see ctrl48_saturates_at_launch
    bool ctrl48_fixed_by_kernel = false;  // the kernel wrote CTRL[48] with set_ctrl
    bool ctrl48_set_by_kernel = false;    // ... and made it 1
    bool ctrl48_set_on_every_core = false;  // ... before asking ASCEND_IS_AIC / AIV: on the cube core too
    bool cube_ctrl48_set = false;         // ... before REGIST_MATMUL_OBJ: the cube core's float results are IEEE too
    uint32_t cube_ratio = 1;          // vector cores per cube core (the kernel type: emu_kernel_type.h)
    int kernel_type = -1;             // KERNEL_TASK_TYPE_DEFAULT's KernelMetaType, -1 undeclared (emu_kernel_type.h)
    // KERNEL_TASK_TYPE(key, type) for the launch's tiling key (-1: none): the type of that key's binary, over the
    // default; its call site.
    int key_kernel_type = -1;
    const char* key_kernel_type_file = nullptr;
    int key_kernel_type_line = 0;
    // The kernel's type was used (block numbers, a SyncAll, the Matmul registration, the first instruction, the
    // kernel's end): the launch was checked against it and a later declaration is refused (FinalizeKernelType).
    bool kernel_type_final = false;
    uint32_t syncall_count = 0;       // software SyncAll calls so far (its GM counter)
    bool matmul_server = false;       // REGIST_MATMUL_OBJ ran on a split SoC: the cube cores run the API's server
    bool split_cores = true;          // 910b / 950: the cube is a core of its own; 310p: part of this AI core
    // KERNEL_TASK_TYPE_DEFAULT's call site (nullptr: the kernel declared none; its type may come from the launch).
    const char* kernel_type_file = nullptr;
    int kernel_type_line = 0;
    // The kernel evaluated ASCEND_IS_AIC / ASCEND_IS_AIV / ASCEND_IS_NOT_AIC / ASCEND_IS_NOT_AIV (emu_sync.h; the
    // emulator's own API code never does), and whether the first vector / DMA instruction was checked against it
    // (CheckMixCubeGuard, emu_kernel_type.h).
    bool core_kind_asked = false;
    bool cube_guard_checked = false;

    // The scalar unit's data cache (emu_dcache.cpp): the GM lines of writable buffers it holds, as loaded (and as
    // changed by its own SetValue since); key: region << 48 | line index.
    struct CachedLine {
        uint8_t bytes[64];
        const char* file = "";  // the access that loaded it
        int line = 0;
    };
    std::map<uint64_t, CachedLine> dcache;
    bool scalar_gm_access = false;  // GlobalTensor::GetValue / SetValue is accessing GM (not a DMA or the cube)

    // GM bytes touched, per (region, write) as [begin, end) intervals; merged into stats->gm_ranges at the end.
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> gm_touched[2];

    CoreStats* stats = nullptr;
};

// The core being run; Fail()s when called outside a launch (a kernel API used without the launcher).
CoreContext& Ctx(const char* file, int line);
// The current core or nullptr.
CoreContext* CurrentCore();
void SetCurrentCore(CoreContext* core);

// ---- checks shared by the API headers ----

inline uint32_t AlignUp32(uint64_t n) { return static_cast<uint32_t>((n + 31u) / 32u * 32u); }

// The record of a LocalTensor; Fail()s if the tensor was never allocated, is freed, or is sitting in a queue.
// An operand in kernel-owned memory `mem` (L1 / L0A / L0B / L0C), checked as CheckRecord checks a UB one
// (CheckRecord refuses them: every other API takes UB operands).
const AllocRecord& CheckLocalRecord(CoreContext& c, int record, Mem mem, const char* file, int line, const char* api,
                                    const char* operand);
const AllocRecord& CheckRecord(CoreContext& c, int record, const char* file, int line, const char* api,
                               const char* operand);
// Fails unless [byte, byte + nbytes) lies inside the record's buffer.
void CheckUbRange(CoreContext& c, int record, uint64_t byte, uint64_t nbytes, const char* file, int line,
                  const char* api, const char* operand);
// Fails unless the SoC has the element type (bfloat16: not on ascend310p; float8 / hifloat8: ascend910_95 only).
void CheckElemTypeOnSoc(CoreContext& c, ElemType t, const char* file, int line, const char* api);
// Fails unless a UB address is 32-byte aligned (DataCopy and vector operands).
void CheckUbAligned(CoreContext& c, uint64_t byte, const char* file, int line, const char* api,
                    const char* operand);
inline bool UbDefined(const CoreContext& c, uint64_t byte, uint64_t nbytes)
{
    for (uint64_t i = 0; i < nbytes; ++i) {
        if (!c.ub_defined[byte + i]) return false;
    }
    return true;
}
inline void SetUbDefined(CoreContext& c, uint64_t byte, uint64_t nbytes, bool defined)
{
    std::memset(c.ub_defined.data() + byte, defined ? 1 : 0, nbytes);
}

// Resolves a GM pointer to a registered region; Fails if none contains it.
int FindGmRegion(CoreContext& c, const void* ptr, const char* file, int line, const char* api);
// Fails unless [ptr, ptr + nbytes) is inside region `region`, inside the GlobalTensor's own extent
// [tensor_begin, tensor_end), and (for writes) the region is writable.
// A GM access of elements of `elem` bytes at `ptr`: its address must be a multiple of the element size (the CCE
// documentation of the DMA instructions: GM addresses aligned to the data type; the scalar unit's loads and stores
// are taken to need the same). The launch's buffers start 32-byte aligned, so an offset inside the buffer is
// checked.
void CheckGmElementAligned(CoreContext& c, int region, const uint8_t* ptr, uint64_t elem, const char* file, int line,
                           const char* api);
void CheckGmBounds(CoreContext& c, int region, const uint8_t* tensor_begin, const uint8_t* tensor_end,
                   const uint8_t* ptr, uint64_t nbytes, bool write, const char* file, int line, const char* api);
// CheckGmBounds, then records the bytes in the statistics and, for writes of kReadWrite buffers, fails if another
// core of this launch wrote any of them (the ordering checks are separate: emu_order.h).
void CheckGmRange(CoreContext& c, int region, const uint8_t* tensor_begin, const uint8_t* tensor_end,
                  const uint8_t* ptr, uint64_t nbytes, bool write, const char* file, int line, const char* api);
// The statistics and cross-core part of CheckGmRange for GM bytes [offset, offset + nbytes) of a region.
void RecordGmWriteTouch(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, const char* file, int line,
                        const char* api);
void RecordGmReadTouch(CoreContext& c, int region, uint64_t offset, uint64_t nbytes);

// The "written in this launch" shadow of kUndefined / kOutput buffers (GmInit).
inline bool GmTracksWrites(const GmRegion& r) { return r.init != GmInit::kData; }
// The first byte of [offset, offset + nbytes) of region `region` that nothing wrote in this launch, or -1.
int64_t GmFirstUnwritten(const CoreContext& c, int region, uint64_t offset, uint64_t nbytes);
// Marks [offset, offset + nbytes) written.
void GmMarkWritten(CoreContext& c, int region, uint64_t offset, uint64_t nbytes);
// Sets the shadow of [offset, offset + nbytes) (false: the bytes hold garbage now, as if never written).
void GmSetWritten(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, bool written);
// A scalar or cube read of GM bytes never written in this launch fails (the device reads whatever was there).
void CheckGmReadWritten(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, const char* file, int line,
                        const char* api);

// The scalar unit's data cache (GlobalTensor::GetValue / SetValue reach GM through it; DataCacheCleanAndInvalid
// writes its dirty bytes back and drops lines). The device's cache line is 64 bytes; whether a clean writes back only
// the bytes the scalar unit wrote or the whole line is not documented, so the emulator takes the strictest reading of
// both: while a line holds dirty bytes, nothing else (another core, this core's DMA or cube) may write any byte of it,
// and nothing but the owning core's scalar unit may read its dirty bytes. A scalar read of a cached line that
// anything else rewrote since it was loaded is stale. Writable buffers only (inputs never change).
constexpr uint64_t kDcacheLine = 64;
void DcacheScalarRead(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, const char* file, int line,
                      const char* api);
void DcacheScalarWrite(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, const uint8_t* value,
                       const char* file, int line, const char* api);
// A DMA, cube or other non-scalar access of GM (called for every recorded GM touch that is not a scalar one).
void DcacheOtherAccess(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, bool write, const char* file,
                       int line, const char* api);
// DataCacheCleanAndInvalid: the line of `offset` (or, entire, every line) written back and dropped.
void DcacheCleanInvalidate(CoreContext& c, int region, uint64_t offset, bool entire, const char* file, int line);
// The end of a core: dirty lines left fail (whether the device writes them back at the kernel's end is undocumented).
void DcacheEndCore(CoreContext& c);

// The top 8 KiB of UB are the AscendC API's scratch (TMP_UB_OFFSET in the 8.1 headers: 184 of 192 KiB on ascend910b,
// 248 of 256 KiB on ascend310p; ascend910_95 assumed alike): APIs such as the count forms of Select write there. A
// V-pipe write of its first `nbytes`, ordered like any UB write; it fails when kernel data lives there (TPipe does not
// keep kernel buffers out of that range).
constexpr uint64_t kApiScratchUbBytes = 8 * 1024;
void ApiScratchWrite(CoreContext& c, uint64_t nbytes, const char* file, int line, const char* api);
// The same for bytes [offset, offset + nbytes) of the scratch (an API whose buffer starts past TMP_UB_OFFSET, e.g.
// ascend310p's 16-bit Brcb at TMP_UB_OFFSET + 1024), and a V-pipe read of such a range (the API reading back what
// it wrote there).
void ApiScratchWriteAt(CoreContext& c, uint64_t offset, uint64_t nbytes, const char* file, int line, const char* api);
void ApiScratchReadAt(CoreContext& c, uint64_t offset, uint64_t nbytes);
// ascend910_95: a level-0 form's use of the 8 KiB past the runtime UB (TMP_UB_OFFSET = GetRuntimeUBSize = 248 KiB): the
// API pages of Add, Sub, Mul, Div, Max, Min ("tensor high-dimensional slicing uses 8 KB of UB"), dav_3510's
// vec_reduce_impl.h for WholeReduce*; applied to the level-0 And, Or and MulAddDst too (the strict side; Brcb's
// dav_3510 implementation has none). Past the kernel's UB with the table's size; inside it when the UB is given larger
// (a device reporting 256 KiB), where kernel data there fails.
void Level0Scratch(CoreContext& c, const char* file, int line, const char* api);

// True when every partial sum of the terms, in any order, is exactly representable in float type `t` (float32,
// float16, bfloat16): all terms are integer multiples of one power of two q, sum |x| <= 2^p q (p: the type's
// significand bits) and sum |x| is finite in t. Then any order of additions gives the exact sum.
bool SumExactInEveryOrder(const std::vector<double>& terms, ElemType t);

// GET_TILING_DATA: copies the tiling class out of the tiling bytes given to the launcher.
void LoadTiling(void* dst, uint64_t bytes, const uint8_t* tiling, const char* type_name, const char* file,
                int line);

// Printf of kernels: written to stderr when AQO_EMU_PRINTF is set in the environment, discarded otherwise.
bool KernelPrintfEnabled();

}  // namespace aqo_emu
