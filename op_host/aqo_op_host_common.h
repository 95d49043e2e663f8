// What the CANN adapters of all our ops (op_host/aqo_*.cpp) share: the dtype mapping between the tiling core's
// aqo::DType and CANN's ge::DataType, reading the platform the device reports, the refusal message and saving the
// tiling data. C++11 like the adapters (CANN's op_host build compiles them with its own flags); everything the
// adapters decide still comes from the tiling core, this header only translates.
#ifndef AQO_OP_HOST_COMMON_H
#define AQO_OP_HOST_COMMON_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "register/op_def_registry.h"
#include "tiling_core/plan_common.h"
#include "tiling/platform/platform_ascendc.h"
// fe::PlatFormInfos (GetPlatformResWithLock) is only forward-declared by platform_ascendc.h; its definition lives
// under include/experiment/platform, which some build setups put on the include path and some do not.
#if defined(__has_include)
#if __has_include("platform/platform_infos_def.h")
#include "platform/platform_infos_def.h"
#else
#include "experiment/platform/platform/platform_infos_def.h"
#endif
#else
#include "experiment/platform/platform/platform_infos_def.h"
#endif
#include "tiling_core/constraints.h"
#include "tiling_core/dtype_table.h"
#include "tiling_core/soc_table.h"

namespace aqo_host {

// ge::DataType of a dtype-table entry; false for the entries CANN has no type for.
inline bool ToGe(aqo::DType t, ge::DataType* out)
{
    switch (t) {
        case aqo::DType::FLOAT16: *out = ge::DT_FLOAT16; return true;
        case aqo::DType::BFLOAT16: *out = ge::DT_BF16; return true;
        case aqo::DType::FLOAT32: *out = ge::DT_FLOAT; return true;
        case aqo::DType::INT8: *out = ge::DT_INT8; return true;
        case aqo::DType::UINT8: *out = ge::DT_UINT8; return true;
        case aqo::DType::INT32: *out = ge::DT_INT32; return true;
        case aqo::DType::HIFLOAT8: *out = ge::DT_HIFLOAT8; return true;
        case aqo::DType::FLOAT8_E4M3FN: *out = ge::DT_FLOAT8_E4M3FN; return true;
        case aqo::DType::FLOAT8_E5M2: *out = ge::DT_FLOAT8_E5M2; return true;
        default: return false;
    }
}

// The dtype-table entry of a ge::DataType, among the dtypes `op_dtypes` (the dtypes any tensor of the op can
// have). The restriction is the op's, not cosmetic: a ge::DataType the op never takes (e.g. a uint8 dst_type of
// AqoDynamicQuant) must stay unknown, so that InferDataType refuses it instead of inferring it.
template <size_t N>
inline bool FromGe(ge::DataType g, const aqo::DType (&op_dtypes)[N], aqo::DType* out)
{
    for (size_t i = 0; i < N; ++i) {
        ge::DataType v;
        if (ToGe(op_dtypes[i], &v) && v == g) {
            *out = op_dtypes[i];
            return true;
        }
    }
    return false;
}

// Appends a dtype combination (combo[c]: the dtype of tensor c) to the parallel lists OpDef wants (columns[c]: the
// list of tensor c), unless the same combination is already there; returns whether it appended, so that the caller
// extends its other lists (scales, formats) in step.
inline bool AppendUniqueCombo(const std::vector<ge::DataType>& combo,
                              const std::vector<std::vector<ge::DataType>*>& columns)
{
    const size_t rows = columns.empty() ? 0 : columns[0]->size();
    for (size_t r = 0; r < rows; ++r) {
        bool same = true;
        for (size_t c = 0; c < columns.size() && same; ++c) {
            same = (*columns[c])[r] == combo[c];
        }
        if (same) {
            return false;
        }
    }
    for (size_t c = 0; c < columns.size(); ++c) {
        columns[c]->push_back(combo[c]);
    }
    return true;
}

// The platform as the device reports it: its Short_SoC_version ("Ascend910B" / "Ascend310P" / "Ascend910_95";
// SocFromName ignores the capitals) and that SoC's table entry. Returns nullptr, after saying why on stderr, when
// the context has no platform, the platform no SoC version, or the table does not know the SoC.
inline fe::PlatFormInfos* ReadPlatformSoc(gert::TilingContext* context, const char* op, std::string* soc_short,
                                          aqo::SocSpec* spec)
{
    fe::PlatFormInfos* info = context->GetPlatformInfo();
    if (info == nullptr) {
        return nullptr;
    }
    if (!info->GetPlatformResWithLock("version", "Short_SoC_version", *soc_short)) {
        std::fprintf(stderr, "[%s] platform has no version/Short_SoC_version\n", op);
        return nullptr;
    }
    if (!aqo::SocFromName(soc_short->c_str(), spec)) {
        std::fprintf(stderr, "[%s] unsupported SoC %s (known: %s)\n", op, soc_short->c_str(),
                     aqo::KnownSocNames().c_str());
        return nullptr;
    }
    return info;
}

// The UB size the device reports (it replaces the SoC table's default in the plan request).
inline uint32_t UbBytes(const platform_ascendc::PlatformAscendC& platform)
{
    uint64_t ub = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    return static_cast<uint32_t>(ub);
}

// A request the tiling core refused, in the tiling core's own terms (which limit, which value, what to do).
inline void ReportViolation(const char* op, const char* where, const aqo::ConstraintViolation& v)
{
    std::fprintf(stderr, "[%s] %s refused: %s on %s, argument %s: %s (limit %s, actual %s)%s%s\n", op, where,
                 v.op.c_str(), v.soc.c_str(), v.argument.c_str(), v.constraint.c_str(), v.limit.c_str(),
                 v.actual.c_str(), v.suggestion.empty() ? "" : "; ", v.suggestion.c_str());
}

inline std::vector<int64_t> Dims(const gert::Shape& s)
{
    std::vector<int64_t> d;
    for (size_t i = 0; i < s.GetDimNum(); ++i) {
        d.push_back(s.GetDim(i));
    }
    return d;
}

// Whether output `index` the caller allocated has dtype `want` (the kernel writes `want`'s bytes through it); logs
// "[op] <what>" with both codes when not (an absent output counts as -1).
inline bool OutputHasDType(gert::TilingContext* context, size_t index, aqo::DType want, const char* op,
                           const char* what)
{
    const gert::CompileTimeTensorDesc* d = context->GetOutputDesc(index);
    ge::DataType g = ge::DT_UNDEFINED;
    if (d != nullptr && ToGe(want, &g) && d->GetDataType() == g) {
        return true;
    }
    std::fprintf(stderr, "[%s] %s: dtype %d expected, got %d\n", op, what, static_cast<int>(g),
                 d == nullptr ? -1 : static_cast<int>(d->GetDataType()));
    return false;
}

// The system workspace to reserve before the kernel's own: the framework's figure (GetLibApiWorkSpaceSize, what a
// TilingFunc adds) or, if larger, what the kernel's GetUserWorkspace skips on the device (the headers' fixed
// RESERVED_WORKSPACE: the plan's system_workspace_bytes, from the SoC table). The two agree on the toolkit's devices;
// the larger keeps the kernel's area clear of the system's whichever one the device reports.
inline uint64_t SystemWorkspace(platform_ascendc::PlatformAscendC& platform, uint64_t kernel_skips)
{
    const uint64_t lib = platform.GetLibApiWorkSpaceSize();
    return lib > kernel_skips ? lib : kernel_skips;
}

// Hands the filled tiling data, the block count, the workspace size and the schedule mode (aqo::kScheduleMode*:
// batch for a kernel that synchronises its cores) to the framework. workspace_bytes is everything: the caller adds
// the system workspace (SystemWorkspace), which is always reserved.
template <class TilingDataT>
inline ge::graphStatus SaveTiling(gert::TilingContext* context, TilingDataT& td, uint32_t block_dim,
                                  uint64_t workspace_bytes, uint32_t schedule_mode = aqo::kScheduleModeNormal)
{
    gert::TilingData* raw = context->GetRawTilingData();
    if (raw == nullptr || raw->GetCapacity() < td.GetDataSize()) {
        return ge::GRAPH_FAILED;
    }
    td.SaveToBuffer(raw->GetData(), raw->GetCapacity());
    raw->SetDataSize(td.GetDataSize());
    context->SetBlockDim(block_dim);
    if (schedule_mode != aqo::kScheduleModeNormal) {
        // Its status is not a reason to refuse the launch: runtimes that cannot schedule in batch (older
        // documentation excluded single-operator calls) run the kernel as before, and Huawei's own SyncAll
        // operators call it the same way.
        (void)context->SetScheduleMode(schedule_mode);
    }
    size_t* ws = context->GetWorkspaceSizes(1);
    if (ws == nullptr) {
        return ge::GRAPH_FAILED;
    }
    ws[0] = static_cast<size_t>(workspace_bytes);
    return ge::GRAPH_SUCCESS;
}

}  // namespace aqo_host

#endif  // AQO_OP_HOST_COMMON_H
