// The one table of SoC facts the package knows: UB size, core counts, DataCopyPad, alignment, float overflow
// mode, which dtypes each operator accepts on each SoC, and the documented DynamicQuant limits of ATB's DynamicQuant.
// The tiling plans, the constraint checks, the CANN adapters and Python (through _native.soc_table()) read this
// table; nothing else may restate these numbers.
//
// Sources: docs/references.md#soc-facts (core counts and UB from CANN 8.1.RC1 data/platform_config/*.ini),
// #apis-per-soc (cube dtypes), #atb-dynamicquant (DynamicQuant per-SoC limits).
//
// C++11: included by the CANN op_host adapters.
#ifndef AQO_TILING_CORE_SOC_TABLE_H
#define AQO_TILING_CORE_SOC_TABLE_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "dtype_table.h"
#include "plan_common.h"

namespace aqo {

enum class Soc : int32_t { ASCEND910B = 0, ASCEND310P, ASCEND910_95, COUNT };

// The operator a request is for; picks the kernel's core kind and the error's op name.
enum class OpKind : int32_t { DYNAMIC_QUANT = 0, QLINEAR_MATMUL, QUANT_MATMUL };

// "dynamic_quant" | "qlinear_matmul" | "quant_matmul": the Python op name, used in every ConstraintViolation.
const char* OpName(OpKind op);

// A set of dtypes as a bit mask: bit static_cast<int>(DType) set = member.
typedef uint32_t DTypeSet;
inline DTypeSet DTypeBit(DType t) { return static_cast<DTypeSet>(1u) << static_cast<int>(t); }
inline bool DTypeSetHas(DTypeSet s, DType t) { return (s & DTypeBit(t)) != 0; }
// "int8 | uint8" (table order); "none" for the empty set.
std::string DTypeSetText(DTypeSet s);

// Everything the tiling core needs to know about one SoC. Core counts and UB size are the table defaults; a
// caller may override them (SocOverrides) with what the device reports at run time.
struct SocSpec {
    Soc id;
    const char* name;     // canonical name: "ascend910b", "ascend310p", "ascend910_95"
    const char* variant;  // the name the spec was resolved from when it was a variant ("ascend910b3"), else name

    // Cores and memory (docs/references.md#soc-facts).
    uint32_t ai_cores;       // ai_core_cnt of the platform config (910b/950: = cube cores; 310p: coupled AI cores)
    uint32_t cube_cores;     // cube cores (310p: the AI cores, cube and vector coupled)
    uint32_t vector_cores;   // vector cores (910b/950: 2 per cube core; 310p: 7 vector-only cores, Cast unsupported)
    bool split_architecture; // separate cube and vector cores, 1 cube : 2 vector (910b, 950)
    uint32_t ub_bytes;       // unified buffer per core

    // The block-dim capacity of each operator's kernel: the cores it is launched on.
    // DynamicQuant: the vector cores on 910b/950; the AI cores on 310p (Cast is unsupported on the 310p
    // vector-only cores, docs/references.md#soc-facts). QLinearMatMul: the cube cores (each with its vector cores
    // for the epilogue on split architectures); the AI cores on 310p. SocOverrides::core_num replaces both.
    uint32_t dynamic_quant_cores;
    uint32_t qlinear_matmul_cores;

    // Data movement (docs/references.md#soc-facts, #datacopy-alignment).
    bool has_data_copy_pad;      // false on 310p: every GM<->UB copy is a whole number of 32-byte blocks
    uint32_t ub_align_bytes;     // UB buffer addresses and vector operands: 32-byte aligned
    uint32_t copy_block_bytes;   // DataCopy length unit: 32 bytes
    uint32_t dma_max_block_count;  // DataCopy / DataCopyPad blockCount (bursts per copy): a 12-bit field
    // The system workspace at the start of every kernel's workspace (framework, Matmul API messages): a kernel's
    // own data starts after it (GetUserWorkspace). The emulator and the plans use this; a TilingFunc reserves the
    // larger of it and the device's GetLibApiWorkSpaceSize (aqo_host::SystemWorkspace).
    uint32_t system_workspace_bytes;
    bool saturation_only_float;  // 310p: Inf -> max, NaN -> 0 (no IEEE Inf/NaN mode)
    bool has_bfloat16;

    // DynamicQuant (docs/references.md#atb-dynamicquant, and what our kernel implements).
    DTypeSet dq_x_dtypes;            // x dtypes
    DTypeSet dq_dst_dtypes;          // dst_type (y dtype)
    uint32_t dq_min_rank;            // 2 on every SoC
    uint32_t dq_max_tail_float16;    // tail (last axis) limit for float16 x; 0 = no documented limit
    uint32_t dq_max_tail_bfloat16;   // the same for bfloat16 x; 0 = no documented limit
    uint32_t dq_tail_multiple;       // the tail must be a multiple of this many elements (310p: 32; else 1)
    DTypeSet dq_asymmetric_dst_dtypes;  // dst_type of the asymmetric modes (the kernel's offset output); 0 = none
    // smooth_scales [H] multiplied into x before the max (OPSNN: docs/references.md#dynamicquant-implementations)
    bool dq_smooth_implemented;

    // QLinearMatMul (cube dtypes, docs/references.md#apis-per-soc; uint8 operands reach an int8 cube through
    // v ^ 0x80, zp - 128).
    DTypeSet qmm_a_dtypes;
    DTypeSet qmm_b_dtypes;
    DTypeSet qmm_y_dtypes;
    bool qmm_uint8_by_xor;           // uint8 operands are mapped to int8 exactly (the cube has no uint8 path)
    bool qmm_mixed_int_float8;       // false: the cube multiplies int8 x int8 or float8 x float8, never a mix

    // quant_matmul (QLinearMatMul's cube stage with a float epilogue; a and b int8 / uint8 as qmm_a / b_dtypes'
    // integer types): the output types its kernel writes; empty = no quant_matmul kernel on the SoC.
    DTypeSet quant_matmul_out_dtypes;

    // The table's UB, TOTAL_UB_SIZE of the kernels' build, where the APIs keep compiled-in addresses (the Matmul
    // client's message block on the split SoCs): set by SocFromName, left as it is by a device-reported UB size
    // (ub_bytes); 0 = ub_bytes.
    uint32_t build_ub_bytes = 0;
};

// UB a kernel may allocate: the SoC's (or the device's) UB less what the APIs it calls take at its top: the Matmul
// client's 128-byte message block (split SoCs, kernels with a Matmul object: kfc_comm_client.h, TOTAL_UB_SIZE -
// sizeof(KfcMsg)), and for the Matmul kernels on 310p the API's temporary area from TMP_UB_OFFSET (248 KiB) on (CANN
// 8.1.RC1 headers). (ascend910_95's API temporary area, which its level-0 vector forms use, starts where the UB the
// platform reports ends: asc-devkit's constants for that architecture put TMP_UB_OFFSET at TOTAL_UB_SIZE, 248 KiB.)
inline uint64_t KernelUbBytes(const SocSpec& soc, bool matmul)
{
    const uint64_t top = matmul && soc.split_architecture ? 128 : 0;
    // The message block lies at the build's UB end: with a larger UB reported, below it still.
    const uint64_t end = matmul && soc.split_architecture && soc.build_ub_bytes != 0
                             ? std::min<uint64_t>(soc.ub_bytes, soc.build_ub_bytes)
                             : soc.ub_bytes;
    uint64_t ub = end > top ? end - top : 0;
    if (matmul && !soc.split_architecture && ub > 248u * 1024u) {
        ub = 248u * 1024u;
    }
    return ub;
}

// A device-reported core count and UB size replacing the table defaults; 0 = keep the table value.
struct SocOverrides {
    uint32_t core_num = 0;  // block-dim capacity of the operator's kernel (GetCoreNumAiv / GetCoreNumAic)
    uint32_t ub_size = 0;   // bytes (GetCoreMemSize(UB)); must be a multiple of 32
};

// Canonical table entries, in enum order.
const SocSpec* SocTable(size_t* count);
const SocSpec& GetSocSpec(Soc id);

// Resolves a SoC name: canonical names, "ascend950" (= ascend910_95), and the variants of the platform configs
// (ascend910b1..b4, ascend910b2c, ascend910b4-1, ascend310p1/p3/p5/p7) with their own core counts. Case and a
// leading "Ascend" capital do not matter. Returns false when the name is unknown.
bool SocFromName(const char* name, SocSpec* out);

// Every name SocFromName accepts, canonical names first; "ascend910b, ascend310p, ascend910_95, ascend950, ...".
std::string KnownSocNames();
// The accepted names as a list (for Python).
const char* const* SocNameList(size_t* count);

// The maximum override values accepted; anything larger is a typo, not a device.
const uint32_t kMaxCoreNumOverride = 4096;
const uint32_t kMinUbSizeOverride = 1024;
const uint32_t kMaxUbSizeOverride = 16u * 1024u * 1024u;

// Applies overrides to a resolved spec. Returns false with a complete violation (argument "core_num" or
// "ub_size") when an override is out of range.
bool ApplySocOverrides(const SocOverrides& overrides, OpKind op, SocSpec* spec, ConstraintViolation* violation);

// SocFromName + ApplySocOverrides, for the plans: an unknown name gives a violation (argument "soc") that lists
// the known names.
bool ResolveSoc(const char* name, const SocOverrides& overrides, OpKind op, SocSpec* out,
                ConstraintViolation* violation);

// The block-dim capacity of `op` on `spec` (dynamic_quant_cores or qlinear_matmul_cores).
inline uint32_t KernelCores(const SocSpec& spec, OpKind op)
{
    return op == OpKind::DYNAMIC_QUANT ? spec.dynamic_quant_cores : spec.qlinear_matmul_cores;  // both matmuls
}

// ATB's documented tail limit for x dtype `x` on `spec` (0 = none).
inline uint32_t DynamicQuantMaxTail(const SocSpec& spec, DType x)
{
    return x == DType::BFLOAT16 ? spec.dq_max_tail_bfloat16 : (x == DType::FLOAT16 ? spec.dq_max_tail_float16 : 0);
}


// ---- Timing parameters of the timeline model (op_kernel/emulator/src/timeline.cpp) ----
// One value per SoC and parameter, each with where it comes from. SOURCE: read from a public source (the CANN
// 8.1.RC1 platform config of the SoC, the AscendC documentation); DERIVED: our arithmetic on, or our reading of,
// sourced values (the reading is stated); ASSUMPTION: no public number exists, the value is ours. The report
// (`aqo perf`) reruns the model at 0.5x and 2x of every DERIVED and ASSUMPTION value. Never tune a value to make
// a kernel look good: change it only with a better source, and say which.
enum class TimingParam : int32_t {
    CLOCK_MHZ = 0,                 // core clock of every pipe
    GM_BANDWIDTH_GBPS,             // GM (HBM / DDR) bandwidth of the chip, shared by every active transfer
    MTE2_BYTES_PER_CYCLE,          // one MTE2 pipe's GM -> UB / L1 rate at most
    MTE3_BYTES_PER_CYCLE,          // one MTE3 pipe's UB -> GM rate at most
    L2_READ_BANDWIDTH_GBPS,        // the chip's L2 cache read bandwidth, shared by every transfer of L2 hits
    MTE2_L2_BYTES_PER_CYCLE,       // one MTE2 pipe's rate at most for bytes that hit in L2
    DMA_LATENCY_CYCLES,            // a GM DMA's completion after its last byte moved (the GM round trip)
    DMA_BURST_CYCLES,              // fixed pipe cycles per burst (DataCopy blockCount) of a DMA
    VECTOR_BYTES_PER_REPEAT,       // bytes one vector repeat processes
    VEC_INSTR_CYCLES,              // fixed V pipe cycles per vector instruction
    VEC_ELEMENTWISE_CYCLES_PER_REPEAT,
    VEC_DIV_CYCLES_PER_REPEAT,
    VEC_CAST_CYCLES_PER_REPEAT,    // repeats counted on the wider side
    VEC_REDUCE_CYCLES_PER_REPEAT,
    PIPELINE_LATENCY_CYCLES,       // an on-chip instruction's (V, M, MTE1) completion after its last busy cycle
    SCALAR_ISSUE_CYCLES,           // scalar cycles to issue one instruction or sync event to a pipe
    SCALAR_UB_ACCESS_CYCLES,       // one GetValue / SetValue on UB
    SCALAR_GM_ACCESS_CYCLES,       // one GetValue / SetValue on GM (through the scalar data cache), on average
    FLAG_SYNC_CYCLES,              // SetFlag -> WaitFlag: from the source's completion to the waiter going on
    SYNC_ALL_CYCLES,               // SyncAll: from the last core's arrival to every core going on
    CUBE_MESSAGE_CYCLES,           // Matmul API vector <-> cube message, one way (request, or completion)
    CUBE_MACS_PER_CYCLE,           // 8-bit (int8 / float8) multiply-accumulates per cycle of one cube core
    MTE1_BYTES_PER_CYCLE,          // L1 -> L0A / L0B
    FIX_BYTES_PER_CYCLE,           // L0C out (fixpipe to GM on split SoCs, L0C -> UB on ascend310p)
    UB_TO_L1_BYTES_PER_CYCLE,      // UB -> L1 (ascend310p's Matmul API: an int8 B turned in UB)
    L1_TO_UB_BYTES_PER_CYCLE,      // L1 -> UB (ascend310p: the kernel's own L1 read back on MTE1)
    TRANS_DATA_SCALAR_CYCLES,      // scalar cycles of one TransDataTo5HD beyond its issue (its address lists)
    PIPE_QUEUE_DEPTH,              // instructions waiting in one pipe's queue at most (the scalar unit stalls)
    L0A_BYTES,
    L0B_BYTES,
    L0C_BYTES,
    L1_BYTES,
    L2_BYTES,                      // the chip's L2 cache
    L2_LINE_BYTES,                 // its line (the unit of residency and of a miss's DDR read)
    COUNT
};

enum class ParamBasis : int32_t { SOURCE = 0, DERIVED, ASSUMPTION };

struct TimingValue {
    double value;
    ParamBasis basis;
    const char* source;  // where the value comes from, or why it was chosen
};

struct TimingParamInfo {
    TimingParam id;
    const char* name;     // snake_case, as Python sees it
    const char* unit;
    const char* meaning;
    bool affects_time;    // false for capacities (shown, not swept)
};

// The parameter descriptions, in enum order (count = TimingParam::COUNT).
const TimingParamInfo* TimingParamTable(size_t* count);
// The values of canonical SoC `id`, indexed by TimingParam. Variants (ascend910b3, ...) use their canonical
// SoC's timing.
const TimingValue* SocTiming(Soc id);
const char* ParamBasisName(ParamBasis b);  // "source" | "derived" | "assumption"

// The value of parameter p on the SoC (its canonical SoC's): capacities (L0A_BYTES, L1_BYTES, ...) are what the
// plans size the kernels' own cube buffers by.
inline double Timing(const SocSpec& soc, TimingParam p) { return SocTiming(soc.id)[static_cast<int>(p)].value; }

}  // namespace aqo

#endif  // AQO_TILING_CORE_SOC_TABLE_H
