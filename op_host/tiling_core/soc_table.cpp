#include "soc_table.h"

#include <cctype>
#include <cstring>
#include <string>

namespace aqo {
namespace {

const DTypeSet kFloat16 = DTypeBit(DType::FLOAT16);
const DTypeSet kBFloat16 = DTypeBit(DType::BFLOAT16);
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
//   not public, so it is taken to reserve 16 MiB like every newer core there (the device's GetLibApiWorkSpaceSize
//   is what a TilingFunc adds).
// - DynamicQuant limits: ATB's DynamicQuant operation documentation (ascend-transformer-boost, elewise operation
//   ELEWISE_DYNAMIC_QUANT): ascend910b float16 tail <= 26624, bfloat16 <= 7552, symmetric only; ascend310p tail
//   32-aligned and <= 4096, symmetric only, no bfloat16; ascend910_95 rank > 1, symmetric only.
// - Output types: int8 everywhere; hifloat8 / float8 need the 950's conversion units (only its platform config
//   and headers list those types).
// - QLinearMatMul: the cube dtype pairs the CANN 8.1.RC1 Mmad implementations accept (910b int8 x int8 only; 310p
//   also uint8 x int8 and uint8 x uint8; 950 int8 and float8 pairs, no uint8). uint8 reaches an int8 cube
//   through v ^ 0x80 and zp - 128, which leaves v - zp unchanged.
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
        /*dq_asymmetric_implemented=*/false, /*dq_smooth_implemented=*/true,
        /*qmm_a_dtypes=*/kInt8 | kUInt8, /*qmm_b_dtypes=*/kInt8 | kUInt8, /*qmm_y_dtypes=*/kInt8 | kUInt8,
        /*qmm_uint8_by_xor=*/true, /*qmm_mixed_int_float8=*/false,
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
        /*dq_asymmetric_implemented=*/false, /*dq_smooth_implemented=*/true,
        /*qmm_a_dtypes=*/kInt8 | kUInt8, /*qmm_b_dtypes=*/kInt8 | kUInt8, /*qmm_y_dtypes=*/kInt8 | kUInt8,
        /*qmm_uint8_by_xor=*/true, /*qmm_mixed_int_float8=*/false,
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
        /*dq_asymmetric_implemented=*/false, /*dq_smooth_implemented=*/true,
        /*qmm_a_dtypes=*/kInt8 | kUInt8 | kE4M3 | kE5M2, /*qmm_b_dtypes=*/kInt8 | kUInt8 | kE4M3 | kE5M2,
        /*qmm_y_dtypes=*/kInt8 | kUInt8 | kE4M3 | kE5M2,
        /*qmm_uint8_by_xor=*/true, /*qmm_mixed_int_float8=*/false,
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
    {"ascend950", Soc::ASCEND910_95, 0, 0, 0},       // the newer name of ascend910_95 (FACTS 1)
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

const char* OpName(OpKind op) { return op == OpKind::DYNAMIC_QUANT ? "dynamic_quant" : "qlinear_matmul"; }

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
            violation->limit = "1..." + std::to_string(kMaxCoreNumOverride) + " (0 = the table value)";
            violation->actual = std::to_string(overrides.core_num);
            violation->suggestion = std::string("the table value for ") + spec->variant + " is " +
                                    std::to_string(KernelCores(*spec, op)) + "; pass core_num=None to use it";
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
                               " bytes (0 = the table value)";
            violation->actual = std::to_string(overrides.ub_size);
            const uint32_t down = overrides.ub_size / spec->ub_align_bytes * spec->ub_align_bytes;
            violation->suggestion = std::string("the table value for ") + spec->name + " is " +
                                    std::to_string(spec->ub_bytes) + " bytes";
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
        spec->ub_bytes = overrides.ub_size;
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

}  // namespace aqo
