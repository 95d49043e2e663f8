#include "soc_table.h"

#include <cctype>
#include <cstring>
#include <string>

namespace aqo {
namespace {

const DTypeSet kFloat16 = DTypeBit(DType::FLOAT16);
const DTypeSet kBFloat16 = DTypeBit(DType::BFLOAT16);
const DTypeSet kFloat32 = DTypeBit(DType::FLOAT32);
const DTypeSet kInt8 = DTypeBit(DType::INT8);
const DTypeSet kUInt8 = DTypeBit(DType::UINT8);
const DTypeSet kHiFloat8 = DTypeBit(DType::HIFLOAT8);
const DTypeSet kE4M3 = DTypeBit(DType::FLOAT8_E4M3FN);
const DTypeSet kE5M2 = DTypeBit(DType::FLOAT8_E5M2);

// Canonical entries, in enum order. Sources:
// - Core counts and UB: the platform configs of CANN 8.1.RC1 (data/platform_config/*.ini): Ascend910B1/B2
//   ai_core_cnt=24 cube_core_cnt=24 vector_core_cnt=48 ub_size=196608; Ascend310P3 ai_core_cnt=8
//   vector_core_cnt=7 ub_size=262144; Ascend910_95 ai_core_cnt=32 cube_core_cnt=32 vector_core_cnt=64
//   ub_size=253952 (a pre-release config: the device's own numbers override it at run time).
// - DMA burst count: CANN 8.1.RC1's AscendC headers check DataCopy's and DataCopyPad's blockCount against a
//   12-bit range, 0..4095 (basic_api/impl/dav_c220 and dav_m200, kernel_operator_data_copy_impl.h; UINT12_MAX in
//   impl/utils/kernel_utils_constants.h); the 950's headers are not public, so it is taken to have the same field.
// - System workspace: RESERVED_WORKSPACE of CANN 8.1.RC1's AscendC headers (impl/utils/kernel_utils_constants.h:
//   2 MiB for __CCE_AICORE__ 200 (310p), 16 MiB for 220 (910b)), which GetUserWorkspace skips; the 950's headers are
//   not public, so it is taken to reserve 16 MiB like every newer core there (a TilingFunc reserves the larger of
//   this and the device's GetLibApiWorkSpaceSize).
// - DynamicQuant limits: ATB's DynamicQuant operation documentation (ascend-transformer-boost, elewise operation
//   ELEWISE_DYNAMIC_QUANT): ascend910b float16 tail <= 26624, bfloat16 <= 7552, symmetric only; ascend310p tail
//   32-aligned and <= 4096, symmetric only, no bfloat16; ascend910_95 rank > 1, symmetric only. This package's kernel
//   also has the asymmetric modes (OPSNN's float offset for int8 and the 950's float types, ONNX's integer zero point
//   for uint8: docs/references.md#decision-quant-matmul) on every SoC, with the same limits.
// - Output types: int8 everywhere; hifloat8 / float8 need the 950's conversion units (only its platform config
//   and headers list those types).
// - QLinearMatMul: the cube dtype pairs the CANN 8.1.RC1 Mmad implementations accept (910b int8 x int8 only; 310p
//   also uint8 x int8 and uint8 x uint8; 950 int8 and float8 pairs, no uint8). uint8 reaches an int8 cube
//   through v ^ 0x80 and zp - 128, which leaves v - zp unchanged.
// - quant_matmul: float32, float16 and bfloat16 outputs where the vector unit converts float32 to them with round
//   to nearest even (CAST_RINT). ascend310p: float32 only (its float32 -> float16 Cast takes CAST_NONE / CAST_ODD
//   only, whose rounding is not round-to-nearest-even as documented, and it has no bfloat16).
const SocSpec kTable[] = {
    {
        Soc::ASCEND910B, "ascend910b", "ascend910b",
        /*ai_cores=*/24, /*cube_cores=*/24, /*vector_cores=*/48, /*split_architecture=*/true,
        /*ub_bytes=*/196608,
        /*dynamic_quant_cores=*/48, /*qlinear_matmul_cores=*/24,
        /*has_data_copy_pad=*/true, /*ub_align_bytes=*/32, /*copy_block_bytes=*/32,
        /*dma_max_block_count=*/4095, /*system_workspace_bytes=*/16u * 1024u * 1024u,
        /*saturation_only_float=*/false, /*has_bfloat16=*/true,
        /*dq_x_dtypes=*/kFloat16 | kBFloat16, /*dq_dst_dtypes=*/kInt8,
        /*dq_min_rank=*/2, /*dq_max_tail_float16=*/26624, /*dq_max_tail_bfloat16=*/7552, /*dq_tail_multiple=*/1,
        /*dq_asymmetric_dst_dtypes=*/kInt8 | kUInt8, /*dq_smooth_implemented=*/true,
        /*qmm_a_dtypes=*/kInt8 | kUInt8, /*qmm_b_dtypes=*/kInt8 | kUInt8, /*qmm_y_dtypes=*/kInt8 | kUInt8,
        /*qmm_uint8_by_xor=*/true, /*qmm_mixed_int_float8=*/false,
        /*quant_matmul_out_dtypes=*/kFloat32 | kFloat16 | kBFloat16,
    },
    {
        Soc::ASCEND310P, "ascend310p", "ascend310p",
        /*ai_cores=*/8, /*cube_cores=*/8, /*vector_cores=*/7, /*split_architecture=*/false,
        /*ub_bytes=*/262144,
        /*dynamic_quant_cores=*/8, /*qlinear_matmul_cores=*/8,
        /*has_data_copy_pad=*/false, /*ub_align_bytes=*/32, /*copy_block_bytes=*/32,
        /*dma_max_block_count=*/4095, /*system_workspace_bytes=*/2u * 1024u * 1024u,
        /*saturation_only_float=*/true, /*has_bfloat16=*/false,
        /*dq_x_dtypes=*/kFloat16, /*dq_dst_dtypes=*/kInt8,
        /*dq_min_rank=*/2, /*dq_max_tail_float16=*/4096, /*dq_max_tail_bfloat16=*/0, /*dq_tail_multiple=*/32,
        /*dq_asymmetric_dst_dtypes=*/kInt8 | kUInt8, /*dq_smooth_implemented=*/true,
        /*qmm_a_dtypes=*/kInt8 | kUInt8, /*qmm_b_dtypes=*/kInt8 | kUInt8, /*qmm_y_dtypes=*/kInt8 | kUInt8,
        /*qmm_uint8_by_xor=*/true, /*qmm_mixed_int_float8=*/false,
        /*quant_matmul_out_dtypes=*/kFloat32,
    },
    {
        Soc::ASCEND910_95, "ascend910_95", "ascend910_95",
        /*ai_cores=*/32, /*cube_cores=*/32, /*vector_cores=*/64, /*split_architecture=*/true,
        /*ub_bytes=*/253952,
        /*dynamic_quant_cores=*/64, /*qlinear_matmul_cores=*/32,
        /*has_data_copy_pad=*/true, /*ub_align_bytes=*/32, /*copy_block_bytes=*/32,
        /*dma_max_block_count=*/4095, /*system_workspace_bytes=*/16u * 1024u * 1024u,
        /*saturation_only_float=*/false, /*has_bfloat16=*/true,
        /*dq_x_dtypes=*/kFloat16 | kBFloat16, /*dq_dst_dtypes=*/kInt8 | kHiFloat8 | kE4M3 | kE5M2,
        /*dq_min_rank=*/2, /*dq_max_tail_float16=*/0, /*dq_max_tail_bfloat16=*/0, /*dq_tail_multiple=*/1,
        /*dq_asymmetric_dst_dtypes=*/kInt8 | kUInt8 | kHiFloat8 | kE4M3 | kE5M2, /*dq_smooth_implemented=*/true,
        /*qmm_a_dtypes=*/kInt8 | kUInt8 | kE4M3 | kE5M2, /*qmm_b_dtypes=*/kInt8 | kUInt8 | kE4M3 | kE5M2,
        /*qmm_y_dtypes=*/kInt8 | kUInt8 | kE4M3 | kE5M2,
        /*qmm_uint8_by_xor=*/true, /*qmm_mixed_int_float8=*/false,
        /*quant_matmul_out_dtypes=*/kFloat32 | kFloat16 | kBFloat16,
    },
};
static_assert(sizeof(kTable) / sizeof(kTable[0]) == static_cast<size_t>(Soc::COUNT),
              "one SocSpec per Soc, in enum order");

// Names SocFromName accepts beyond the canonical ones. Variants carry their own core counts from their
// platform config (0 = the canonical value).
struct SocAlias {
    const char* name;
    Soc id;
    uint32_t ai_cores;
    uint32_t cube_cores;
    uint32_t vector_cores;
};
const SocAlias kAliases[] = {
    {"ascend950", Soc::ASCEND910_95, 0, 0, 0},       // the newer name of ascend910_95 (docs/references.md#soc-facts)
    {"ascend910b1", Soc::ASCEND910B, 24, 24, 48},    // Ascend910B1.ini
    {"ascend910b2", Soc::ASCEND910B, 24, 24, 48},    // Ascend910B2.ini
    {"ascend910b2c", Soc::ASCEND910B, 24, 24, 48},   // Ascend910B2C.ini
    {"ascend910b3", Soc::ASCEND910B, 20, 20, 40},    // Ascend910B3.ini
    {"ascend910b4", Soc::ASCEND910B, 20, 20, 40},    // Ascend910B4.ini
    {"ascend910b4-1", Soc::ASCEND910B, 20, 20, 40},  // Ascend910B4-1.ini
    {"ascend310p1", Soc::ASCEND310P, 10, 10, 8},     // Ascend310P1.ini: ai_core_cnt=10 vector_core_cnt=8
    {"ascend310p3", Soc::ASCEND310P, 8, 8, 7},       // Ascend310P3.ini
    {"ascend310p5", Soc::ASCEND310P, 8, 8, 7},       // Ascend310P5.ini
    {"ascend310p7", Soc::ASCEND310P, 8, 8, 7},       // Ascend310P7.ini
};

const char* const kAllNames[] = {
    "ascend910b",  "ascend310p",  "ascend910_95", "ascend950",   "ascend910b1",   "ascend910b2",
    "ascend910b2c", "ascend910b3", "ascend910b4", "ascend910b4-1", "ascend310p1", "ascend310p3",
    "ascend310p5", "ascend310p7",
};
static_assert(sizeof(kAllNames) / sizeof(kAllNames[0]) ==
                  sizeof(kTable) / sizeof(kTable[0]) + sizeof(kAliases) / sizeof(kAliases[0]),
              "kAllNames lists every canonical name and alias");

std::string Normalize(const char* name)
{
    std::string s;
    if (name == nullptr) {
        return s;
    }
    for (const char* p = name; *p != '\0'; ++p) {
        unsigned char c = static_cast<unsigned char>(*p);
        if (std::isspace(c) != 0) {
            continue;
        }
        s.push_back(static_cast<char>(std::tolower(c)));
    }
    return s;
}

}  // namespace

const char* OpName(OpKind op)
{
    return op == OpKind::DYNAMIC_QUANT ? "dynamic_quant" : (op == OpKind::QLINEAR_MATMUL ? "qlinear_matmul" : "quant_matmul");
}

std::string DTypeSetText(DTypeSet s)
{
    std::string out;
    for (int i = 0; i < static_cast<int>(DType::COUNT); ++i) {
        DType t = static_cast<DType>(i);
        if (DTypeSetHas(s, t)) {
            if (!out.empty()) {
                out += " | ";
            }
            out += DTypeName(t);
        }
    }
    return out.empty() ? std::string("none") : out;
}

const SocSpec* SocTable(size_t* count)
{
    if (count != nullptr) {
        *count = sizeof(kTable) / sizeof(kTable[0]);
    }
    return kTable;
}

const SocSpec& GetSocSpec(Soc id) { return kTable[static_cast<int>(id)]; }

bool SocFromName(const char* name, SocSpec* out)
{
    const std::string s = Normalize(name);
    for (const SocSpec& spec : kTable) {
        if (s == spec.name) {
            *out = spec;
            out->build_ub_bytes = spec.ub_bytes;
            return true;
        }
    }
    for (const SocAlias& alias : kAliases) {
        if (s != alias.name) {
            continue;
        }
        SocSpec spec = kTable[static_cast<int>(alias.id)];
        spec.variant = alias.name;
        if (alias.ai_cores != 0) {
            spec.ai_cores = alias.ai_cores;
            spec.cube_cores = alias.cube_cores;
            spec.vector_cores = alias.vector_cores;
            // The kernels run where the canonical entry says: vector cores (split SoCs) or AI cores (310p).
            spec.dynamic_quant_cores = spec.split_architecture ? alias.vector_cores : alias.ai_cores;
            spec.qlinear_matmul_cores = spec.split_architecture ? alias.cube_cores : alias.ai_cores;
        }
        *out = spec;
        out->build_ub_bytes = spec.ub_bytes;
        return true;
    }
    return false;
}

std::string KnownSocNames()
{
    std::string out;
    for (const char* n : kAllNames) {
        if (!out.empty()) {
            out += ", ";
        }
        out += n;
    }
    return out;
}

const char* const* SocNameList(size_t* count)
{
    if (count != nullptr) {
        *count = sizeof(kAllNames) / sizeof(kAllNames[0]);
    }
    return kAllNames;
}

bool ApplySocOverrides(const SocOverrides& overrides, OpKind op, SocSpec* spec, ConstraintViolation* violation)
{
    if (overrides.core_num > kMaxCoreNumOverride) {
        if (violation != nullptr) {
            violation->op = OpName(op);
            violation->argument = "core_num";
            violation->soc = spec->name;
            violation->constraint = "core count override";
            violation->limit = "1..." + std::to_string(kMaxCoreNumOverride);
            violation->actual = std::to_string(overrides.core_num);
            violation->suggestion = std::string("the table value for ") + spec->variant + " is " +
                                    std::to_string(KernelCores(*spec, op)) + "; leave the override out to use it";
            violation->is_dtype = false;
        }
        return false;
    }
    if (overrides.ub_size != 0 &&
        (overrides.ub_size < kMinUbSizeOverride || overrides.ub_size > kMaxUbSizeOverride ||
         overrides.ub_size % spec->ub_align_bytes != 0)) {
        if (violation != nullptr) {
            violation->op = OpName(op);
            violation->argument = "ub_size";
            violation->soc = spec->name;
            violation->constraint = "unified buffer size override";
            violation->limit = "a multiple of " + std::to_string(spec->ub_align_bytes) + " in " +
                               std::to_string(kMinUbSizeOverride) + "..." + std::to_string(kMaxUbSizeOverride) +
                               " bytes";
            violation->actual = std::to_string(overrides.ub_size);
            const uint32_t down = overrides.ub_size / spec->ub_align_bytes * spec->ub_align_bytes;
            violation->suggestion = std::string("the table value for ") + spec->name + " is " +
                                    std::to_string(spec->ub_bytes) + " bytes (leave the override out to use it)";
            if (overrides.ub_size % spec->ub_align_bytes != 0 && down >= kMinUbSizeOverride &&
                down <= kMaxUbSizeOverride) {
                violation->suggestion += "; the nearest smaller multiple of 32 is " + std::to_string(down);
            }
            violation->is_dtype = false;
        }
        return false;
    }
    if (overrides.core_num != 0) {
        spec->dynamic_quant_cores = overrides.core_num;
        spec->qlinear_matmul_cores = overrides.core_num;
    }
    if (overrides.ub_size != 0) {
        // ascend910_95: the level-0 forms of the vector APIs keep 8 KiB of scratch at TMP_UB_OFFSET = 248 KiB (the
        // table's size; asc-devkit's constants for this architecture): a kernel's buffers end there even where the
        // device reports more UB.
        const bool scratch_above = spec->id == Soc::ASCEND910_95;
        spec->ub_bytes = scratch_above && overrides.ub_size > spec->ub_bytes ? spec->ub_bytes : overrides.ub_size;
    }
    return true;
}

bool ResolveSoc(const char* name, const SocOverrides& overrides, OpKind op, SocSpec* out,
                ConstraintViolation* violation)
{
    if (!SocFromName(name, out)) {
        if (violation != nullptr) {
            violation->op = OpName(op);
            violation->argument = "soc";
            violation->soc = "";
            violation->constraint = "unknown SoC name";
            violation->limit = "one of " + KnownSocNames();
            violation->actual = name == nullptr ? std::string("(null)") : std::string("'") + name + "'";
            violation->suggestion = "canonical names are ascend910b, ascend310p and ascend910_95 (alias ascend950)";
            violation->is_dtype = false;
        }
        return false;
    }
    return ApplySocOverrides(overrides, op, out, violation);
}

// ---- Timing parameters of the timeline model ----
namespace {

const TimingParamInfo kTimingParams[] = {
    {TimingParam::CLOCK_MHZ, "clock_mhz", "MHz", "core clock of every pipe", true},
    {TimingParam::GM_BANDWIDTH_GBPS, "gm_bandwidth_gbps", "GB/s",
     "GM bandwidth of the chip, shared by every active GM transfer of the launch", true},
    {TimingParam::MTE2_BYTES_PER_CYCLE, "mte2_bytes_per_cycle", "B/cycle", "one MTE2 pipe's GM -> UB / L1 rate at most",
     true},
    {TimingParam::MTE3_BYTES_PER_CYCLE, "mte3_bytes_per_cycle", "B/cycle", "one MTE3 pipe's UB -> GM rate at most",
     true},
    {TimingParam::L2_READ_BANDWIDTH_GBPS, "l2_read_bandwidth_gbps", "GB/s",
     "L2 cache read bandwidth of the chip, shared by every active transfer of bytes that hit in L2 (misses move "
     "at gm_bandwidth_gbps)",
     true},
    {TimingParam::MTE2_L2_BYTES_PER_CYCLE, "mte2_l2_bytes_per_cycle", "B/cycle",
     "one MTE2 pipe's rate at most for bytes that hit in L2", true},
    {TimingParam::DMA_LATENCY_CYCLES, "dma_latency_cycles", "cycles",
     "a GM DMA completes this long after its last byte moved (the GM round trip); the pipe starts its next DMA "
     "meanwhile",
     true},
    {TimingParam::DMA_BURST_CYCLES, "dma_burst_cycles", "cycles", "fixed pipe cycles per burst (blockCount) of a DMA",
     true},
    {TimingParam::VECTOR_BYTES_PER_REPEAT, "vector_bytes_per_repeat", "bytes", "bytes one vector repeat processes",
     true},
    {TimingParam::VEC_INSTR_CYCLES, "vec_instr_cycles", "cycles", "fixed V pipe cycles per vector instruction", true},
    {TimingParam::VEC_ELEMENTWISE_CYCLES_PER_REPEAT, "vec_elementwise_cycles_per_repeat", "cycles",
     "Add Sub Mul Max Min Abs Duplicate Compare Select and their scalar forms, UB -> UB copies", true},
    {TimingParam::VEC_DIV_CYCLES_PER_REPEAT, "vec_div_cycles_per_repeat", "cycles", "Div and reciprocal-like ops",
     true},
    {TimingParam::VEC_CAST_CYCLES_PER_REPEAT, "vec_cast_cycles_per_repeat", "cycles",
     "Cast, repeats counted on the wider side", true},
    {TimingParam::VEC_REDUCE_CYCLES_PER_REPEAT, "vec_reduce_cycles_per_repeat", "cycles",
     "ReduceMax / ReduceMin / ReduceSum and the Whole/Block reductions", true},
    {TimingParam::PIPELINE_LATENCY_CYCLES, "pipeline_latency_cycles", "cycles",
     "an on-chip instruction (V, M, MTE1) completes this long after its last busy cycle; a PipeBarrier or flag "
     "waits for it, the next instruction of the pipe does not",
     true},
    {TimingParam::SCALAR_ISSUE_CYCLES, "scalar_issue_cycles", "cycles",
     "scalar unit cycles to issue one instruction or sync event to a pipe (the API call's set-up)", true},
    {TimingParam::SCALAR_UB_ACCESS_CYCLES, "scalar_ub_access_cycles", "cycles", "one GetValue / SetValue on UB", true},
    {TimingParam::SCALAR_GM_ACCESS_CYCLES, "scalar_gm_access_cycles", "cycles",
     "one GetValue / SetValue on GM through the scalar data cache, on average", true},
    {TimingParam::FLAG_SYNC_CYCLES, "flag_sync_cycles", "cycles",
     "SetFlag -> WaitFlag: from the source pipe's completion to the waiter going on", true},
    {TimingParam::SYNC_ALL_CYCLES, "sync_all_cycles", "cycles",
     "SyncAll: from the last core's arrival to every core going on", true},
    {TimingParam::CUBE_MESSAGE_CYCLES, "cube_message_cycles", "cycles",
     "Matmul API message between a vector core and its cube core, one way (the request, or the completion)", true},
    {TimingParam::CUBE_MACS_PER_CYCLE, "cube_macs_per_cycle", "MAC/cycle",
     "8-bit (int8, float8) multiply-accumulates per cycle of one cube core", true},
    {TimingParam::MTE1_BYTES_PER_CYCLE, "mte1_bytes_per_cycle", "B/cycle", "L1 -> L0A / L0B", true},
    {TimingParam::FIX_BYTES_PER_CYCLE, "fix_bytes_per_cycle", "B/cycle",
     "L0C out: fixpipe to GM on split SoCs (also bounded by the GM bandwidth), L0C -> UB on ascend310p", true},
    {TimingParam::UB_TO_L1_BYTES_PER_CYCLE, "ub_to_l1_bytes_per_cycle", "B/cycle",
     "UB -> L1 on ascend310p (the Matmul API's copy of an int8 B tile it turned in UB)", true},
    {TimingParam::L1_TO_UB_BYTES_PER_CYCLE, "l1_to_ub_bytes_per_cycle", "B/cycle",
     "L1 -> UB on ascend310p (a kernel's DataCopy from its own L1 buffer, on MTE1)", true},
    {TimingParam::TRANS_DATA_SCALAR_CYCLES, "trans_data_scalar_cycles", "cycles",
     "scalar unit cycles of one TransDataTo5HD beyond its issue: its address lists and VA registers (ascend310p's "
     "Matmul API turning an int8 B tile)", true},
    {TimingParam::PIPE_QUEUE_DEPTH, "pipe_queue_depth", "instructions",
     "instructions waiting in one pipe's queue at most; the scalar unit stalls when it is full", true},
    {TimingParam::L0A_BYTES, "l0a_bytes", "bytes", "L0A buffer of a cube core", false},
    {TimingParam::L0B_BYTES, "l0b_bytes", "bytes", "L0B buffer of a cube core", false},
    {TimingParam::L0C_BYTES, "l0c_bytes", "bytes", "L0C buffer of a cube core", false},
    {TimingParam::L1_BYTES, "l1_bytes", "bytes", "L1 buffer of a cube core", false},
    {TimingParam::L2_BYTES, "l2_bytes", "bytes",
     "L2 cache of the chip (LRU, cold at launch: bytes read a second time while resident move at the L2 bandwidth)",
     true},
    {TimingParam::L2_LINE_BYTES, "l2_line_bytes", "bytes",
     "L2 cache line: a miss reads the whole line from GM, later reads of any of its bytes hit", true},
};
static_assert(sizeof(kTimingParams) / sizeof(kTimingParams[0]) == static_cast<size_t>(TimingParam::COUNT),
              "one TimingParamInfo per TimingParam, in enum order");

const ParamBasis kSrc = ParamBasis::SOURCE;
const ParamBasis kDer = ParamBasis::DERIVED;
const ParamBasis kAsm = ParamBasis::ASSUMPTION;

// Values no public document gives. They are the same on every SoC (nothing public says how they differ) and are
// stated once here; the report shows every result at 0.5x and 2x of each.
const TimingValue kDmaLatency = {400, kAsm, "assumption: a GM round trip of a few hundred ns, as on other accelerators"};
const TimingValue kDmaBurst = {8, kAsm, "assumption: each burst of a strided copy is one GM request"};
const TimingValue kVecInstr = {4, kAsm, "assumption: a few cycles of start-up per vector instruction"};
const TimingValue kVecElementwise = {
    1, kAsm, "assumption: one repeat (256 bytes) per cycle, our reading of vec_calc_size=128 (float16 lanes)"};
const TimingValue kVecDiv = {4, kAsm, "assumption: division iterates, about 4x an elementwise op"};
const TimingValue kVecCast = {1, kAsm, "assumption: as elementwise, on the wider side's repeats"};
const TimingValue kVecReduce = {2, kAsm, "assumption: a repeat's reduction plus the combining passes"};
const TimingValue kPipelineLatency = {16, kAsm, "assumption: pipeline depth of the vector / cube units"};
const TimingValue kScalarIssue = {16, kAsm, "assumption: an API call's scalar set-up (addresses, repeat "
                                            "parameters, mask) is a dozen or more scalar instructions"};
const TimingValue kScalarUb = {8, kAsm, "assumption: a scalar load / store to UB"};
const TimingValue kScalarGm = {100, kAsm, "assumption: scalar GM accesses through the data cache, misses and hits "
                                          "averaged"};
const TimingValue kTransDataScalar = {
    64, kAsm, "assumption: per TransDataTo5HD of the Matmul API's int8 B turn (data_copy_wrapper_utils.h "
              "TransDataNDBMatrix) about 24 address-list entries (both 16-entry lists for two of each four "
              "instructions, the source list for the other two), each a GetPhyAddr and a store, and four VA register "
              "writes: about 50 scalar instructions, at scalar_issue_cycles' rate of a dozen per 16 cycles"};
const TimingValue kFlagSync = {16, kAsm, "assumption: flag propagation between pipes"};
const TimingValue kSyncAll = {1000, kAsm, "assumption: a cross-core barrier of about half a microsecond"};
const TimingValue kCubeMessage = {500, kAsm, "assumption: the Matmul API's client / server messages go through GM "
                                             "(a GM write and a poll)"};
const TimingValue kQueueDepth = {32, kAsm, "assumption: the instruction queue depth per pipe is not published"};
// The L2 line. The AscendC guide (CANN asc-devkit docs) says the L2 loads data in cache lines of 128, 256 or 512
// bytes depending on the hardware ("Basic architecture"), and, for Ascend 950's SIMT units, that GM reads and writes
// go through the L2 in 128-byte cache lines ("SIMT performance: memory access"). It also says that MTE2 / MTE3 /
// scalar GM requests are handled aligned to 512-byte units on Atlas A2 / A3 and 950 ("Avoid same-address access":
// concurrent requests within one 512-byte range are serialised for coherence), which is a request unit, not
// necessarily the fill unit. Nothing public gives the line of 910b or 310p: the model takes the guide's smallest
// line there too, which charges partial-line reads (the whole line comes from GM) least; the report's sweep shows
// 64 and 256.
const TimingValue kL2Line910B = {
    128, kAsm, "assumption: the AscendC guide gives L2 lines of 128 / 256 / 512 bytes by hardware and none for this "
               "SoC; the smallest, as the guide's 128-byte line of Ascend 950 (its 512-byte unit of MTE requests "
               "on Atlas A2 / A3 is a coherence unit)"};
const TimingValue kL2Line310P = {
    128, kAsm, "assumption: the AscendC guide gives L2 lines of 128 / 256 / 512 bytes by hardware and none for this "
               "SoC; the smallest, as the guide's 128-byte line of Ascend 950"};
const TimingValue kL2Line950 = {
    128, kDer, "AscendC guide (asc-devkit docs), SIMT memory access on Ascend 950: GM reads and writes go through the "
               "L2 in 128-byte cache lines; taken for the DMA's lines too"};
const TimingValue kCubeMacs = {8192, kSrc, "platform config: cube_m_size=16 and DtypeMKN DT_INT8=16,32,16: "
                                           "16 x 32 x 16 int8 MACs per cycle (float8 on ascend910_95: assumed the same)"};
const TimingValue kVecRepeat = {256, kSrc, "AscendC documentation: one repeat of a vector instruction processes 256 "
                                           "bytes (8 blocks of 32 bytes); platform config vec_calc_size=128 float16"};

// Indexed by TimingParam.
const TimingValue kTiming910B[] = {
    {1850, kSrc, "Ascend910B1.ini cube_freq=1850 MHz (Ascend910B2 / B3: 1800), the AI core clock, for every pipe"},
    {1420.8, kDer, "Ascend910B1.ini ddr_rate=32 bytes/cycle, read as per AI core: 32 x ai_core_cnt 24 x 1850 MHz"},
    {32, kDer, "Ascend910B1.ini ddr_read_rate=32, taken as each vector or cube core's MTE2 limit"},
    {64, kDer, "Ascend910B1.ini ub_to_ddr_rate=64, taken as each vector core's MTE3 limit"},
    {4884, kDer, "Ascend910B1.ini l2_read_rate=110 bytes/cycle, read as per AI core (as ddr_rate): 110 x ai_core_cnt "
                 "24 x 1850 MHz (3.4x gm_bandwidth_gbps; the AscendC guide: L2 pure-read bandwidth about 3 to 4 "
                 "times GM's)"},
    {110, kDer, "Ascend910B1.ini l2_read_rate=110, taken as each vector or cube core's MTE2 limit for L2 hits "
                "(ddr_read_rate=32 is its limit from GM)"},
    kDmaLatency, kDmaBurst, kVecRepeat, kVecInstr, kVecElementwise, kVecDiv, kVecCast, kVecReduce, kPipelineLatency,
    kScalarIssue, kScalarUb, kScalarGm, kFlagSync, kSyncAll, kCubeMessage, kCubeMacs,
    {256, kDer, "Ascend910B1.ini l1_to_l0_b_rate=256 (l1_to_l0_a_rate=512: the lower one for both operands)"},
    {256, kDer, "Ascend910B1.ini l0_c_to_ub_rate=256, taken for the fixpipe's L0C -> GM"},
    {128, kSrc, "Ascend910B1.ini ub_to_l1_rate=128 (unused: the vector cores' UB is not the cube's)"},
    {128, kSrc, "Ascend910B1.ini l1_to_ub_rate=128 (unused: the vector cores' UB is not the cube's)"},
    kTransDataScalar,
    kQueueDepth,
    {65536, kSrc, "Ascend910B1.ini l0_a_size"},
    {65536, kSrc, "Ascend910B1.ini l0_b_size"},
    {131072, kSrc, "Ascend910B1.ini l0_c_size"},
    {524288, kSrc, "Ascend910B1.ini l1_size"},
    {201326592, kSrc, "Ascend910B1.ini l2_size (192 MiB)"},
    kL2Line910B,
};
const TimingValue kTiming310P[] = {
    {1060, kSrc, "Ascend310P3.ini cube_freq=1060 MHz, the AI core clock, for every pipe"},
    {144.16, kDer, "Ascend310P3.ini ddr_rate=17 bytes/cycle, read as per AI core: 17 x ai_core_cnt 8 x 1060 MHz"},
    {17, kDer, "Ascend310P3.ini ddr_read_rate=17, taken as each AI core's MTE2 limit"},
    {17, kDer, "Ascend310P3.ini ub_to_ddr_rate=17, taken as each AI core's MTE3 limit"},
    {966.72, kDer, "Ascend310P3.ini l2_read_rate=114 bytes/cycle, read as per AI core (as ddr_rate): 114 x "
                   "ai_core_cnt 8 x 1060 MHz"},
    {114, kDer, "Ascend310P3.ini l2_read_rate=114, taken as each AI core's MTE2 limit for L2 hits (ddr_read_rate=17 "
                "is its limit from GM)"},
    kDmaLatency, kDmaBurst, kVecRepeat, kVecInstr, kVecElementwise, kVecDiv, kVecCast, kVecReduce, kPipelineLatency,
    kScalarIssue, kScalarUb, kScalarGm, kFlagSync, kSyncAll, kCubeMessage, kCubeMacs,
    {256, kDer, "Ascend310P3.ini l1_to_l0_b_rate=256 (l1_to_l0_a_rate=512: the lower one for both operands)"},
    {512, kDer, "Ascend310P3.ini l0_c_to_ub_rate=512 (no fixpipe: L0C goes to UB)"},
    {256, kSrc, "Ascend310P3.ini ub_to_l1_rate=256"},
    {128, kSrc, "Ascend310P3.ini l1_to_ub_rate=128"},
    kTransDataScalar,
    kQueueDepth,
    {65536, kSrc, "Ascend310P3.ini l0_a_size"},
    {65536, kSrc, "Ascend310P3.ini l0_b_size"},
    {262144, kSrc, "Ascend310P3.ini l0_c_size"},
    {1048576, kSrc, "Ascend310P3.ini l1_size"},
    {16777216, kSrc, "Ascend310P3.ini l2_size (16 MiB)"},
    kL2Line310P,
};
// CANN 8.1.RC1 ships a pre-release Ascend910_95.ini; its values stand until the device's own are public.
const TimingValue kTiming910_95[] = {
    {1650, kSrc, "Ascend910_95.ini (pre-release config in CANN 8.1.RC1) cube_freq=1650 MHz, the AI core clock, "
                 "for every pipe"},
    {1636.8, kDer, "Ascend910_95.ini (pre-release) ddr_rate=31 bytes/cycle, read as per AI core: 31 x ai_core_cnt 32 "
                   "x 1650 MHz"},
    {31, kDer, "Ascend910_95.ini (pre-release) ddr_read_rate=31, taken as each vector or cube core's MTE2 limit"},
    {128, kDer, "Ascend910_95.ini (pre-release) ub_to_ddr_rate=128, taken as each vector core's MTE3 limit"},
    {5280, kDer, "Ascend910_95.ini (pre-release) l2_read_rate=100 bytes/cycle, read as per AI core (as ddr_rate): "
                 "100 x ai_core_cnt 32 x 1650 MHz"},
    {100, kDer, "Ascend910_95.ini (pre-release) l2_read_rate=100, taken as each vector or cube core's MTE2 limit for "
                "L2 hits (ddr_read_rate=31 is its limit from GM)"},
    kDmaLatency, kDmaBurst, kVecRepeat, kVecInstr, kVecElementwise, kVecDiv, kVecCast, kVecReduce, kPipelineLatency,
    kScalarIssue, kScalarUb, kScalarGm, kFlagSync, kSyncAll, kCubeMessage, kCubeMacs,
    {256, kDer, "Ascend910_95.ini (pre-release) l1_to_l0_a_rate=256, l1_to_l0_b_rate=256"},
    {128, kDer, "Ascend910_95.ini (pre-release) l0_c_to_ub_rate=128, taken for the fixpipe's L0C -> GM"},
    {128, kSrc, "Ascend910_95.ini (pre-release) ub_to_l1_rate=128 (unused: the vector cores' UB is not the cube's)"},
    {128, kSrc, "Ascend910_95.ini (pre-release) l1_to_ub_rate=128 (unused: the vector cores' UB is not the cube's)"},
    kTransDataScalar,
    kQueueDepth,
    {65536, kSrc, "Ascend910_95.ini (pre-release) l0_a_size"},
    {65536, kSrc, "Ascend910_95.ini (pre-release) l0_b_size"},
    {262144, kSrc, "Ascend910_95.ini (pre-release) l0_c_size"},
    {524288, kSrc, "Ascend910_95.ini (pre-release) l1_size"},
    {134217728, kSrc, "Ascend910_95.ini (pre-release) l2_size (128 MiB)"},
    kL2Line950,
};
static_assert(sizeof(kTiming910B) / sizeof(kTiming910B[0]) == static_cast<size_t>(TimingParam::COUNT) &&
                  sizeof(kTiming310P) / sizeof(kTiming310P[0]) == static_cast<size_t>(TimingParam::COUNT) &&
                  sizeof(kTiming910_95) / sizeof(kTiming910_95[0]) == static_cast<size_t>(TimingParam::COUNT),
              "one TimingValue per TimingParam and SoC, in enum order");

}  // namespace

const TimingParamInfo* TimingParamTable(size_t* count)
{
    if (count != nullptr) {
        *count = sizeof(kTimingParams) / sizeof(kTimingParams[0]);
    }
    return kTimingParams;
}

const TimingValue* SocTiming(Soc id)
{
    switch (id) {
    case Soc::ASCEND310P:
        return kTiming310P;
    case Soc::ASCEND910_95:
        return kTiming910_95;
    default:
        return kTiming910B;
    }
}

const char* ParamBasisName(ParamBasis b)
{
    return b == ParamBasis::SOURCE ? "source" : (b == ParamBasis::DERIVED ? "derived" : "assumption");
}

}  // namespace aqo
