// Types every plan shares: the constraint violation a plan reports instead of a plan, and the explanation a
// plan carries for people and for the validation scripts (cores, work per core, UB map, GM ranges, passes).
// C++11: included by the CANN op_host adapters.
#ifndef AQO_TILING_CORE_PLAN_COMMON_H
#define AQO_TILING_CORE_PLAN_COMMON_H

#include <cstdint>
#include <string>
#include <vector>

namespace aqo {

// A launch's schedule mode (the TilingFunc's TilingContext::SetScheduleMode): normal, or batch (the framework starts
// every core of the launch at once), which a kernel that synchronises its cores (SyncAll) needs: in the normal mode,
// beside other streams, the first cores can wait in the barrier for cores that never start.
const uint32_t kScheduleModeNormal = 0;
const uint32_t kScheduleModeBatch = 1;

// Why a request was refused. Python turns it into ascend_quant_ops.ConstraintError with the same fields.
struct ConstraintViolation {
    std::string op;          // "dynamic_quant" | "qlinear_matmul"
    std::string argument;    // the argument at fault: "x", "dst_type", "b", ...
    std::string soc;         // canonical SoC name, empty when SoC-independent
    std::string constraint;  // what is violated, in words: "float16 tail axis length"
    std::string limit;       // the limit as text ("<= 26624", "multiple of 32", "int8 | uint8")
    std::string actual;      // the actual value as text
    std::string suggestion;  // what would work ("largest bfloat16 tail on ascend910b is 7552")
    bool is_dtype = false;   // a dtype refusal (Python raises DTypeError)
};

// One unified-buffer allocation of a plan, as the kernel makes it (TPipe::InitBuffer order).
// The slots of a buffer are contiguous: it occupies [offset, offset + bytes * slots).
struct UbBuffer {
    std::string name;     // "x_in", "work_f32", ...
    uint32_t offset = 0;  // bytes from the start of UB; 32-byte aligned
    uint32_t bytes = 0;   // bytes per slot; a multiple of 32
    uint32_t slots = 1;   // queue depth (2 = double buffered)
};

// A GM tensor a plan touches, with its size, so that the validation scripts can check every GmRange lies inside
// it and that every output byte is written (by exactly one core).
struct GmTensor {
    std::string name;     // matches GmRange::tensor: "x", "y", "scale", "workspace", ...
    uint64_t bytes = 0;   // size of the tensor in bytes
    bool output = false;  // written by the kernel: its write ranges must cover [0, bytes)
};

// A byte range of a GM tensor that one core reads or writes, repeated `count` times every `stride` bytes: the
// ranges [begin + i * stride, end + i * stride) for i < count (e.g. the same columns of many rows). Summarising
// repetitions keeps an explanation O(cores) however many rows or tiles a core has. Ranges a plan lists as reads may
// be spans that contain every byte read (the plan's notes say which).
struct GmRange {
    std::string tensor;  // "x", "y", "scale", "a", ...
    uint32_t core = 0;
    uint64_t begin = 0;  // byte offsets into the tensor, [begin, end) (the first repetition)
    uint64_t end = 0;
    uint64_t stride = 0; // bytes from one repetition's begin to the next; >= end - begin when count > 1
    uint64_t count = 1;  // repetitions, >= 1
    bool write = false;
    // Per repetition: bytes at the end of the range stored by scalar writes instead of DMA (SoCs without
    // DataCopyPad store a partial last block this way, so that nothing lands past the end of the tensor). The rest
    // is whole blocks.
    uint32_t scalar_bytes = 0;
    // Per repetition: bytes of the range that a DMA writes a second time with the same values (a SoC without
    // DataCopyPad writes a range whose DMA part is not whole 32-byte blocks as whole blocks, the last one ending at
    // the range's end and overlapping the one before). The DMA moves (end - begin) - scalar_bytes + rewrite_bytes
    // bytes per repetition.
    uint32_t rewrite_bytes = 0;
};

// A contiguous range of work items of one core: rows for DynamicQuant, output tiles for QLinearMatMul.
struct CoreWork {
    uint32_t core = 0;
    uint64_t begin = 0;
    uint64_t end = 0;
};

struct PlanExplanation {
    std::string soc;
    std::string mode;               // e.g. "single_pass", "row_resident_chunked", "multi_pass"
    uint32_t core_capacity = 0;     // cores available
    uint32_t used_cores = 0;        // block dim
    uint32_t ub_capacity = 0;       // bytes
    std::string work_unit;          // "row", "output element", ...
    uint64_t total_work = 0;        // in work units
    std::vector<CoreWork> work;     // per core, covering [0, total_work) exactly once
    std::vector<UbBuffer> ub;       // every buffer of one core
    std::vector<GmRange> gm;        // every planned GM access
    std::vector<GmTensor> tensors;  // every GM tensor named in gm, with its size
    uint64_t balance_unit = 0;      // a core has at most this many work units more than another (0 = not claimed)
    uint32_t passes = 1;            // reads of the input per element (2 = multi-pass)
    std::vector<std::string> notes; // human-readable decisions ("double buffering off: does not fit")
};

// Appends a buffer of `bytes` per slot at *offset to a UB map and moves *offset past its slots.
inline void AppendUbBuffer(std::vector<UbBuffer>* ub, uint32_t* offset, const char* name, uint32_t bytes,
                           uint32_t slots)
{
    UbBuffer b;
    b.name = name;
    b.offset = *offset;
    b.bytes = bytes;
    b.slots = slots;
    ub->push_back(b);
    *offset += bytes * slots;
}

// A GM range of `count` repetitions of [begin, end), `stride` bytes apart (see GmRange).
inline GmRange MakeGmRange(const char* tensor, uint32_t core, uint64_t begin, uint64_t end, uint64_t stride,
                           uint64_t count, bool write, uint32_t scalar_bytes, uint32_t rewrite_bytes)
{
    GmRange r;
    r.tensor = tensor;
    r.core = core;
    r.begin = begin;
    r.end = end;
    r.stride = stride;
    r.count = count;
    r.write = write;
    r.scalar_bytes = scalar_bytes;
    r.rewrite_bytes = rewrite_bytes;
    return r;
}

// Appends a GM range, merging it into the previous one of the same tensor / core / direction when contiguous.
inline void AddRange(PlanExplanation* e, const char* tensor, uint32_t core, uint64_t begin, uint64_t end, bool write,
                     uint32_t scalar_bytes = 0, uint32_t rewrite_bytes = 0)
{
    if (end <= begin) {
        return;
    }
    if (!e->gm.empty() && scalar_bytes == 0 && rewrite_bytes == 0) {
        GmRange& last = e->gm.back();
        if (last.tensor == tensor && last.core == core && last.write == write && last.end == begin &&
            last.scalar_bytes == 0 && last.rewrite_bytes == 0 && last.count == 1) {
            last.end = end;
            return;
        }
    }
    e->gm.push_back(MakeGmRange(tensor, core, begin, end, 0, 1, write, scalar_bytes, rewrite_bytes));
}

// Appends `count` repetitions of [begin, end), `stride` bytes apart, as one range (AddRange when count is 1).
inline void AddStridedRange(PlanExplanation* e, const char* tensor, uint32_t core, uint64_t begin, uint64_t end,
                            uint64_t stride, uint64_t count, bool write, uint32_t scalar_bytes = 0,
                            uint32_t rewrite_bytes = 0)
{
    if (count == 1) {
        AddRange(e, tensor, core, begin, end, write, scalar_bytes, rewrite_bytes);
    } else if (count != 0 && end > begin) {
        e->gm.push_back(MakeGmRange(tensor, core, begin, end, stride, count, write, scalar_bytes, rewrite_bytes));
    }
}

inline uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
inline uint64_t CeilDiv(uint64_t v, uint64_t d) { return (v + d - 1) / d; }

}  // namespace aqo

#endif  // AQO_TILING_CORE_PLAN_COMMON_H
