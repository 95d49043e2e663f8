// AqoDynamicQuant: CANN operator definition, shape / dtype inference and the TilingFunc adapter.
//
// OpType "AqoDynamicQuant", not "DynamicQuant": a custom op with a built-in's OpType would replace CANN's own
// DynamicQuant for every user of the installation (docs/references.md#decision-op-names). The kernel is op_kernel/aqo_dynamic_quant.cpp.
//
// Everything the adapter decides comes from the tiling core (op_host/tiling_core, plain C++ that tests and the
// emulator call too): the per-SoC dtype lists from the SoC table, the limits from the request check, the work
// split and UB layout from PlanDynamicQuant. This file only translates between CANN's types and those.
#include <cstdio>
#include <string>
#include <vector>

#include "aqo_dynamic_quant_tiling.h"
#include "aqo_op_host_common.h"
#include "tiling_core/dtype_table.h"
#include "tiling_core/dynamic_quant_plan.h"
#include "tiling_core/soc_table.h"

namespace {

const char kOp[] = "AqoDynamicQuant";

// The dtypes any tensor of AqoDynamicQuant can have (x, smooth_scales, y, scale, offset on any SoC).
const aqo::DType kOpDTypes[] = {aqo::DType::FLOAT16,  aqo::DType::BFLOAT16, aqo::DType::FLOAT32,
                                aqo::DType::INT8,     aqo::DType::UINT8,    aqo::DType::HIFLOAT8,
                                aqo::DType::FLOAT8_E4M3FN, aqo::DType::FLOAT8_E5M2};

bool FromGe(ge::DataType g, aqo::DType* out) { return aqo_host::FromGe(g, kOpDTypes, out); }

// dst_type attribute: ge::DataType codes, which are also ATB's outTensorType codes (2 int8, 34 hifloat8,
// 35 float8_e5m2, 36 float8_e4m3fn: docs/references.md#atb-dynamicquant), and 4 (uint8, asymmetric only).
bool DstFromAttr(int64_t code, aqo::DType* out) { return FromGe(static_cast<ge::DataType>(code), out); }

// The (x, y) dtype pairs a SoC supports in either mode, from the SoC table, as the parallel lists OpDef wants.
// offset (the optional output of the asymmetric modes): the uint8 zero point for y uint8, else a float32 offset.
struct DTypeLists {
    std::vector<ge::DataType> x, y, scale, offset;
    std::vector<ge::Format> fmt;
};

void AppendPairs(const aqo::SocSpec& s, DTypeLists* l)
{
    for (int i = 0; i < static_cast<int>(aqo::DType::COUNT); ++i) {
        for (int j = 0; j < static_cast<int>(aqo::DType::COUNT); ++j) {
            const aqo::DType x = static_cast<aqo::DType>(i);
            const aqo::DType y = static_cast<aqo::DType>(j);
            ge::DataType gx, gy;
            if (!aqo::DTypeSetHas(s.dq_x_dtypes, x) ||
                !aqo::DTypeSetHas(s.dq_dst_dtypes | s.dq_asymmetric_dst_dtypes, y) ||
                !aqo_host::ToGe(x, &gx) || !aqo_host::ToGe(y, &gy)) {
                continue;
            }
            if (aqo_host::AppendUniqueCombo({gx, gy}, {&l->x, &l->y})) {
                l->scale.push_back(ge::DT_FLOAT);
                l->offset.push_back(y == aqo::DType::UINT8 ? ge::DT_UINT8 : ge::DT_FLOAT);
                l->fmt.push_back(ge::FORMAT_ND);
            }
        }
    }
}

}  // namespace

namespace optiling {

static ge::graphStatus AqoDynamicQuantTilingFunc(gert::TilingContext* context)
{
    // The platform as the device reports it: SoC name, vector core count and UB size replace the table defaults.
    std::string soc_short;
    aqo::SocSpec spec;
    fe::PlatFormInfos* info = aqo_host::ReadPlatformSoc(context, kOp, &soc_short, &spec);
    if (info == nullptr) {
        return ge::GRAPH_FAILED;
    }
    platform_ascendc::PlatformAscendC platform(info);

    aqo::DynamicQuantRequest req;
    req.explain = false;  // runs on every launch: the tiling only
    req.soc = soc_short;
    // DynamicQuant runs on the vector cores where they are separate (910b, 950); on 310p on the AI cores, since
    // Cast is unsupported on its vector-only cores (docs/references.md#soc-facts).
    req.overrides.core_num = spec.split_architecture ? platform.GetCoreNumAiv() : platform.GetCoreNumAic();
    req.overrides.ub_size = aqo_host::UbBytes(platform);

    const gert::StorageShape* xs = context->GetInputShape(0);
    const gert::CompileTimeTensorDesc* xd = context->GetInputDesc(0);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (xs == nullptr || xd == nullptr || attrs == nullptr) {
        return ge::GRAPH_FAILED;
    }
    req.shape = aqo_host::Dims(xs->GetStorageShape());
    if (!FromGe(xd->GetDataType(), &req.x_dtype)) {
        std::fprintf(stderr, "[AqoDynamicQuant] x dtype %d is not float16 / bfloat16\n",
                     static_cast<int>(xd->GetDataType()));
        return ge::GRAPH_FAILED;
    }
    const int64_t* dst = attrs->GetAttrPointer<int64_t>(0);
    if (dst == nullptr || !DstFromAttr(*dst, &req.dst_type)) {
        std::fprintf(stderr, "[AqoDynamicQuant] dst_type %lld is not 2 (int8), 4 (uint8), 34, 35 or 36\n",
                     dst == nullptr ? -1LL : static_cast<long long>(*dst));
        return ge::GRAPH_FAILED;
    }
    const bool* asymmetric = attrs->GetAttrPointer<bool>(1);
    req.asymmetric = asymmetric != nullptr && *asymmetric;  // the request check refuses uint8 without it
    req.smooth = context->GetOptionalInputShape(1) != nullptr;
    // The outputs the caller allocated must be what the kernel writes: y of dst_type and, in the asymmetric modes,
    // an offset (uint8 zero points for a uint8 y, else float32), which the kernel writes through.
    if (!aqo_host::OutputHasDType(context, 0, req.dst_type, "AqoDynamicQuant", "y (dst_type)") ||
        (req.asymmetric &&
         !aqo_host::OutputHasDType(context, 2, req.dst_type == aqo::DType::UINT8 ? aqo::DType::UINT8
                                                                                 : aqo::DType::FLOAT32,
                                   "AqoDynamicQuant", "offset (asymmetric mode)"))) {
        return ge::GRAPH_FAILED;
    }

    aqo::DynamicQuantPlan plan;
    aqo::ConstraintViolation v;
    if (!aqo::PlanDynamicQuant(req, &plan, &v)) {
        aqo_host::ReportViolation(kOp, "tiling", v);
        return ge::GRAPH_FAILED;
    }

    AqoDynamicQuantTilingData td;
    aqo::FillDynamicQuantTilingData(plan.tiling, &td);
    context->SetTilingKey(plan.tiling_key);
    // The kernel needs no workspace of its own; the system workspace is always reserved.
    const uint64_t workspace = aqo_host::SystemWorkspace(platform, plan.system_workspace_bytes) + plan.workspace_bytes;
    return aqo_host::SaveTiling(context, td, plan.block_dim, workspace);
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
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const bool* asymmetric = attrs == nullptr ? nullptr : attrs->GetAttrPointer<bool>(1);
    if (asymmetric != nullptr && *asymmetric) {
        gert::Shape* offset = context->GetOutputShape(2);  // the asymmetric modes' offset: the shape of scale
        if (offset == nullptr) {
            return GRAPH_FAILED;
        }
        *offset = *scale;
    }
    return GRAPH_SUCCESS;
}

static graphStatus AqoDynamicQuantInferDataType(gert::InferDataTypeContext* context)
{
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const int64_t* dst = attrs == nullptr ? nullptr : attrs->GetAttrPointer<int64_t>(0);
    aqo::DType d;
    ge::DataType g;
    if (dst == nullptr || !DstFromAttr(*dst, &d) || !aqo_host::ToGe(d, &g)) {
        return GRAPH_FAILED;
    }
    context->SetOutputDataType(0, g);
    context->SetOutputDataType(1, ge::DT_FLOAT);
    const bool* asymmetric = attrs->GetAttrPointer<bool>(1);
    if (asymmetric != nullptr && *asymmetric) {
        context->SetOutputDataType(2, d == aqo::DType::UINT8 ? ge::DT_UINT8 : ge::DT_FLOAT);
    }
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
        Define(this->Input("x"), this->Input("smooth_scales"), this->Output("y"), this->Output("scale"),
               this->Output("offset"), all);
        // dst_type: ge::DataType code of y (= ATB's outTensorType); int8 by default as in ATB.
        this->Attr("dst_type").AttrType(OPTIONAL).Int(static_cast<int64_t>(ge::DT_INT8));
        // asymmetric: (y, scale, offset) with the asymmetric formula (golden/dynamic_quant.py); offset is
        // written only then (the kernel's entry always takes it: a placeholder when symmetric).
        this->Attr("asymmetric").AttrType(OPTIONAL).Bool(false);

        this->SetInferShape(ge::AqoDynamicQuantInferShape).SetInferDataType(ge::AqoDynamicQuantInferDataType);
        this->AICore().SetTiling(optiling::AqoDynamicQuantTilingFunc);
        for (size_t i = 0; i < n; ++i) {
            DTypeLists l;
            AppendPairs(table[i], &l);
            OpAICoreConfig cfg;
            Define(cfg.Input("x"), cfg.Input("smooth_scales"), cfg.Output("y"), cfg.Output("scale"),
                   cfg.Output("offset"), l);
            cfg.DynamicCompileStaticFlag(true).DynamicRankSupportFlag(true).DynamicShapeSupportFlag(true);
            this->AICore().AddConfig(table[i].name, cfg);
        }
    }

private:
    static void Define(OpParamDef& x, OpParamDef& smooth, OpParamDef& y, OpParamDef& scale, OpParamDef& offset,
                       const DTypeLists& l)
    {
        x.ParamType(REQUIRED).DataType(l.x).Format(l.fmt).UnknownShapeFormat(l.fmt);
        smooth.ParamType(OPTIONAL).DataType(l.x).Format(l.fmt).UnknownShapeFormat(l.fmt);  // [H], x's dtype
        y.ParamType(REQUIRED).DataType(l.y).Format(l.fmt).UnknownShapeFormat(l.fmt);
        scale.ParamType(REQUIRED).DataType(l.scale).Format(l.fmt).UnknownShapeFormat(l.fmt);
        offset.ParamType(OPTIONAL).DataType(l.offset).Format(l.fmt).UnknownShapeFormat(l.fmt);
    }
};

OP_ADD(AqoDynamicQuant);

}  // namespace ops
