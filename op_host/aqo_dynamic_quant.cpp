// AqoDynamicQuant: CANN operator definition, shape / dtype inference and the TilingFunc adapter.
//
// OpType "AqoDynamicQuant", not "DynamicQuant": a custom op with a built-in's OpType would replace CANN's own
// DynamicQuant for every user of the installation (FACTS 9). The kernel is op_kernel/aqo_dynamic_quant.cpp.
//
// Everything the adapter decides comes from the tiling core (op_host/tiling_core, plain C++ that tests and the
// emulator call too): the per-SoC dtype lists from the SoC table, the limits from the request check, the work
// split and UB layout from PlanDynamicQuant. This file only translates between CANN's types and those.
#include <cstdio>
#include <string>
#include <vector>

#include "aqo_dynamic_quant_tiling.h"
#include "register/op_def_registry.h"
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
#include "tiling_core/dtype_table.h"
#include "tiling_core/dynamic_quant_plan.h"
#include "tiling_core/soc_table.h"

namespace {

// ge::DataType of a dtype-table entry (only the types AqoDynamicQuant can see).
bool ToGe(aqo::DType t, ge::DataType* out)
{
    switch (t) {
        case aqo::DType::FLOAT16: *out = ge::DT_FLOAT16; return true;
        case aqo::DType::BFLOAT16: *out = ge::DT_BF16; return true;
        case aqo::DType::FLOAT32: *out = ge::DT_FLOAT; return true;
        case aqo::DType::INT8: *out = ge::DT_INT8; return true;
        case aqo::DType::HIFLOAT8: *out = ge::DT_HIFLOAT8; return true;
        case aqo::DType::FLOAT8_E4M3FN: *out = ge::DT_FLOAT8_E4M3FN; return true;
        case aqo::DType::FLOAT8_E5M2: *out = ge::DT_FLOAT8_E5M2; return true;
        default: return false;
    }
}

bool FromGe(ge::DataType g, aqo::DType* out)
{
    for (int i = 0; i < static_cast<int>(aqo::DType::COUNT); ++i) {
        ge::DataType v;
        if (ToGe(static_cast<aqo::DType>(i), &v) && v == g) {
            *out = static_cast<aqo::DType>(i);
            return true;
        }
    }
    return false;
}

// dst_type attribute: ge::DataType codes, which are also ATB's outTensorType codes (seed 004: 2 int8,
// 34 hifloat8, 35 float8_e5m2, 36 float8_e4m3fn).
bool DstFromAttr(int64_t code, aqo::DType* out) { return FromGe(static_cast<ge::DataType>(code), out); }

// The (x, y) dtype pairs a SoC supports, from the SoC table, as the parallel lists OpDef wants.
struct DTypeLists {
    std::vector<ge::DataType> x, y, scale;
    std::vector<ge::Format> fmt;
};

void AppendPairs(const aqo::SocSpec& s, DTypeLists* l)
{
    for (int i = 0; i < static_cast<int>(aqo::DType::COUNT); ++i) {
        for (int j = 0; j < static_cast<int>(aqo::DType::COUNT); ++j) {
            const aqo::DType x = static_cast<aqo::DType>(i);
            const aqo::DType y = static_cast<aqo::DType>(j);
            ge::DataType gx, gy;
            if (!aqo::DTypeSetHas(s.dq_x_dtypes, x) || !aqo::DTypeSetHas(s.dq_dst_dtypes, y) || !ToGe(x, &gx) ||
                !ToGe(y, &gy)) {
                continue;
            }
            bool seen = false;
            for (size_t k = 0; k < l->x.size(); ++k) {
                seen = seen || (l->x[k] == gx && l->y[k] == gy);
            }
            if (!seen) {
                l->x.push_back(gx);
                l->y.push_back(gy);
                l->scale.push_back(ge::DT_FLOAT);
                l->fmt.push_back(ge::FORMAT_ND);
            }
        }
    }
}

void Report(const char* where, const aqo::ConstraintViolation& v)
{
    std::fprintf(stderr, "[AqoDynamicQuant] %s refused: %s on %s, argument %s: %s (limit %s, actual %s)%s%s\n", where,
                 v.op.c_str(), v.soc.c_str(), v.argument.c_str(), v.constraint.c_str(), v.limit.c_str(),
                 v.actual.c_str(), v.suggestion.empty() ? "" : "; ", v.suggestion.c_str());
}

}  // namespace

namespace optiling {

static ge::graphStatus AqoDynamicQuantTilingFunc(gert::TilingContext* context)
{
    // The platform as the device reports it: SoC name, vector core count and UB size replace the table defaults.
    fe::PlatFormInfos* info = context->GetPlatformInfo();
    if (info == nullptr) {
        return ge::GRAPH_FAILED;
    }
    std::string soc_short;
    if (!info->GetPlatformResWithLock("version", "Short_SoC_version", soc_short)) {
        std::fprintf(stderr, "[AqoDynamicQuant] platform has no version/Short_SoC_version\n");
        return ge::GRAPH_FAILED;
    }
    platform_ascendc::PlatformAscendC platform(info);
    uint64_t ub = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);

    aqo::DynamicQuantRequest req;
    req.explain = false;  // runs on every launch: the tiling only
    req.soc = soc_short;  // "Ascend910B" / "Ascend310P" / "Ascend910_95": SocFromName ignores the capitals
    aqo::SocSpec spec;
    aqo::ConstraintViolation v;
    if (!aqo::SocFromName(soc_short.c_str(), &spec)) {
        std::fprintf(stderr, "[AqoDynamicQuant] unsupported SoC %s (known: %s)\n", soc_short.c_str(),
                     aqo::KnownSocNames().c_str());
        return ge::GRAPH_FAILED;
    }
    // DynamicQuant runs on the vector cores where they are separate (910b, 950); on 310p on the AI cores, since
    // Cast is unsupported on its vector-only cores (FACTS 1).
    req.overrides.core_num = spec.split_architecture ? platform.GetCoreNumAiv() : platform.GetCoreNumAic();
    req.overrides.ub_size = static_cast<uint32_t>(ub);

    const gert::StorageShape* xs = context->GetInputShape(0);
    const gert::CompileTimeTensorDesc* xd = context->GetInputDesc(0);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (xs == nullptr || xd == nullptr || attrs == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const gert::Shape& shape = xs->GetStorageShape();
    for (size_t i = 0; i < shape.GetDimNum(); ++i) {
        req.shape.push_back(shape.GetDim(i));
    }
    if (!FromGe(xd->GetDataType(), &req.x_dtype)) {
        std::fprintf(stderr, "[AqoDynamicQuant] x dtype %d is not float16 / bfloat16\n",
                     static_cast<int>(xd->GetDataType()));
        return ge::GRAPH_FAILED;
    }
    const int64_t* dst = attrs->GetAttrPointer<int64_t>(0);
    if (dst == nullptr || !DstFromAttr(*dst, &req.dst_type)) {
        std::fprintf(stderr, "[AqoDynamicQuant] dst_type %lld is not 2 (int8), 34, 35 or 36\n",
                     dst == nullptr ? -1LL : static_cast<long long>(*dst));
        return ge::GRAPH_FAILED;
    }
    req.smooth = context->GetOptionalInputShape(1) != nullptr;

    aqo::DynamicQuantPlan plan;
    if (!aqo::PlanDynamicQuant(req, &plan, &v)) {
        Report("tiling", v);
        return ge::GRAPH_FAILED;
    }

    AqoDynamicQuantTilingData td;
    aqo::FillDynamicQuantTilingData(plan.tiling, &td);
    gert::TilingData* raw = context->GetRawTilingData();
    if (raw == nullptr || raw->GetCapacity() < td.GetDataSize()) {
        return ge::GRAPH_FAILED;
    }
    td.SaveToBuffer(raw->GetData(), raw->GetCapacity());
    raw->SetDataSize(td.GetDataSize());
    context->SetBlockDim(plan.block_dim);
    context->SetTilingKey(plan.tiling_key);
    size_t* ws = context->GetWorkspaceSizes(1);
    if (ws == nullptr) {
        return ge::GRAPH_FAILED;
    }
    // The kernel needs no workspace of its own; the framework's system workspace is always reserved.
    ws[0] = static_cast<size_t>(platform.GetLibApiWorkSpaceSize() + plan.workspace_bytes);
    return ge::GRAPH_SUCCESS;
}

}  // namespace optiling

namespace ge {

static graphStatus AqoDynamicQuantInferShape(gert::InferShapeContext* context)
{
    const gert::Shape* x = context->GetInputShape(0);
    gert::Shape* y = context->GetOutputShape(0);
    gert::Shape* scale = context->GetOutputShape(1);
    if (x == nullptr || y == nullptr || scale == nullptr || x->GetDimNum() < 1) {
        return GRAPH_FAILED;
    }
    *y = *x;  // y: the shape of x
    scale->SetDimNum(x->GetDimNum() - 1);  // scale: one value per row, x.shape[:-1]
    for (size_t i = 0; i + 1 < x->GetDimNum(); ++i) {
        scale->SetDim(i, x->GetDim(i));
    }
    return GRAPH_SUCCESS;
}

static graphStatus AqoDynamicQuantInferDataType(gert::InferDataTypeContext* context)
{
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const int64_t* dst = attrs == nullptr ? nullptr : attrs->GetAttrPointer<int64_t>(0);
    aqo::DType d;
    ge::DataType g;
    if (dst == nullptr || !DstFromAttr(*dst, &d) || !ToGe(d, &g)) {
        return GRAPH_FAILED;
    }
    context->SetOutputDataType(0, g);
    context->SetOutputDataType(1, ge::DT_FLOAT);
    return GRAPH_SUCCESS;
}

}  // namespace ge

namespace ops {

class AqoDynamicQuant : public OpDef {
public:
    explicit AqoDynamicQuant(const char* name) : OpDef(name)
    {
        // The default definition lists every (x, y) pair any SoC supports; each SoC's AddConfig narrows it to
        // what the SoC table says that SoC supports.
        DTypeLists all;
        size_t n = 0;
        const aqo::SocSpec* table = aqo::SocTable(&n);
        for (size_t i = 0; i < n; ++i) {
            AppendPairs(table[i], &all);
        }
        Define(this->Input("x"), this->Input("smooth_scales"), this->Output("y"), this->Output("scale"), all);
        // dst_type: ge::DataType code of y (= ATB's outTensorType); int8 by default as in seed 004.
        this->Attr("dst_type").AttrType(OPTIONAL).Int(static_cast<int64_t>(ge::DT_INT8));

        this->SetInferShape(ge::AqoDynamicQuantInferShape).SetInferDataType(ge::AqoDynamicQuantInferDataType);
        this->AICore().SetTiling(optiling::AqoDynamicQuantTilingFunc);
        for (size_t i = 0; i < n; ++i) {
            DTypeLists l;
            AppendPairs(table[i], &l);
            OpAICoreConfig cfg;
            Define(cfg.Input("x"), cfg.Input("smooth_scales"), cfg.Output("y"), cfg.Output("scale"), l);
            cfg.DynamicCompileStaticFlag(true).DynamicRankSupportFlag(true).DynamicShapeSupportFlag(true);
            this->AICore().AddConfig(table[i].name, cfg);
        }
    }

private:
    static void Define(OpParamDef& x, OpParamDef& smooth, OpParamDef& y, OpParamDef& scale, const DTypeLists& l)
    {
        x.ParamType(REQUIRED).DataType(l.x).Format(l.fmt).UnknownShapeFormat(l.fmt);
        smooth.ParamType(OPTIONAL).DataType(l.x).Format(l.fmt).UnknownShapeFormat(l.fmt);  // [H], x's dtype
        y.ParamType(REQUIRED).DataType(l.y).Format(l.fmt).UnknownShapeFormat(l.fmt);
        scale.ParamType(REQUIRED).DataType(l.scale).Format(l.fmt).UnknownShapeFormat(l.fmt);
    }
};

OP_ADD(AqoDynamicQuant);

}  // namespace ops
