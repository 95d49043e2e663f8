// Run-time state of the AscendC CPU emulator: the SoC model, the emulated core (UB memory and its
// initialisation shadow, queue and buffer bookkeeping), the registered GM buffers, the tiling bytes and the
// statistics, plus the error type every check throws.
//
// Everything SoC-dependent is run-time state here, never a macro: one emulator build serves the kernel variants
// of all SoCs, which are compiled into the same module (see launch.h).
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

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
// table and the float behaviour are the emulator's (FACTS 1 and 2).
// A default-constructed model is "no SoC" (no UB, no optional feature): only MakeSocModel fills one in, so no
// SoC fact is restated here.
struct SocModel {
    SocId id = SocId::kAscend910B;
    std::string name = "(no SoC)";
    uint32_t ub_bytes = 0;
    bool has_data_copy_pad = false;
    bool has_bfloat16 = false;
    bool has_float8 = false;        // float8 e4m3fn / e5m2 and hifloat8 (the SoC table's dtype lists have them)
    bool saturation_mode = false;   // 310p: float Inf reads as +-max, NaN as 0; results saturate
};

// Builds the model of a SoC name ("ascend910b", "ascend310p", "ascend910_95", "ascend950", variants) from the
// SoC table; ub_bytes_override > 0 replaces the UB size. Throws EmulatorError for an unknown name.
SocModel MakeSocModel(const std::string& soc_name, uint32_t ub_bytes_override = 0);

// kReadWrite buffers may be written by one core per byte: a byte written by two cores of one launch is a race
// on the device (the result depends on timing) and fails. kReadWriteShared lifts that check for buffers whose
// kernel orders its cores' writes itself (e.g. a workspace handed from core to core with SyncAll).
enum class GmAccess : int { kReadOnly = 0, kReadWrite, kReadWriteShared };

struct GmRegion {
    std::string name;
    uint8_t* base = nullptr;
    uint64_t bytes = 0;
    GmAccess access = GmAccess::kReadOnly;
    std::vector<uint8_t> writer;  // per byte: 0 = not written in this launch, else block_idx + 1 (kReadWrite)
    // The launch's workspace (Launcher::AddWorkspace): its first reserved_bytes are the system workspace, which no
    // kernel access may touch (emulator/launch_contract.h).
    bool is_workspace = false;
    uint64_t reserved_bytes = 0;
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

// One tensor allocation (a queue buffer handed out by AllocTensor, or a TBuf). LocalTensor copies refer to it
// by index, so that use after FreeTensor, double frees and foreign frees are detected.
enum class AllocKind : int { kQueue = 0, kTBuf };
struct AllocRecord {
    AllocKind kind = AllocKind::kQueue;
    int queue = -1;          // owning queue (kQueue) or buffer (kTBuf) index
    int slot = -1;           // buffer slot inside the queue
    bool live = false;
    bool enqueued = false;   // between EnQue and DeQue
    uint32_t begin = 0;      // UB byte range of the buffer
    uint32_t end = 0;
    const char* file = "";   // AllocTensor / InitBuffer call site
    int line = 0;
};

struct QueueState {
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
};

// The state of the core being emulated. Only one core runs at a time (the launcher runs blocks sequentially).
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

    std::vector<AllocRecord> records;
    std::vector<QueueState> queues;
    std::vector<BufState> bufs;

    std::vector<GmRegion>* gm = nullptr;
    const uint8_t* tiling = nullptr;
    uint64_t tiling_bytes = 0;
    uint64_t tiling_key = 0;

    bool deq_scale_set = false;
    double deq_scale = 1.0;

    int flag_count[64][8] = {};       // SetFlag minus WaitFlag per (HardEvent, event id)

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
// [tensor_begin, tensor_end), and (for writes) the region is writable and no other core of this launch wrote
// any of these bytes. A successful write check records the bytes as written by the current core.
void CheckGmRange(CoreContext& c, int region, const uint8_t* tensor_begin, const uint8_t* tensor_end,
                  const uint8_t* ptr, uint64_t nbytes, bool write, const char* file, int line, const char* api);

// GET_TILING_DATA: copies the tiling class out of the tiling bytes given to the launcher.
void LoadTiling(void* dst, uint64_t bytes, const uint8_t* tiling, const char* type_name, const char* file,
                int line);

// Printf of kernels: written to stderr when AQO_EMU_PRINTF is set in the environment, discarded otherwise.
bool KernelPrintfEnabled();

}  // namespace aqo_emu
