// AqoQuantMatMul: CANN operator definition, shape / dtype inference and the TilingFunc adapter of quant_matmul
// (y = out_dtype(float32(acc) * float32(a_scale * b_scale) + bias); python/ascend_quant_ops/golden/quant_matmul.py).
//
// OpType "AqoQuantMatMul" (a custom op never takes a built-in's OpType; docs/references.md "Operator names in CANN");
// its kernel file and function are named explicitly (CANN's snake case would split "MatMul").
//
// What the adapter decides comes from the tiling core: the per-SoC dtype lists from the SoC table (a, b: the integer
// types of QLinearMatMul's lists; y: quant_matmul_out_dtypes), the request check and the work split / UB / workspace
// from PlanQuantMatMul, the cube's base block, depths and steps from the plan's cube stage (matmul_cube_plan.h),
// completed by CANN's matmul tiling API for the largest call the kernel makes.
//
// Inputs: a, a_scale (float32), a_zero_point (optional, a's dtype), b, b_scale (float32), b_zero_point (optional,
// b's dtype), bias (optional, float32); scales and bias widened to float32 by the caller (exact). Attributes:
// out_dtype, the ge::DataType code of y (float32 by default); b_trans, b is given as its [..., N, K] storage (the
// Linear layout, read transposed by the kernel: a transposed view of a weight needs no copy), else [..., K, N].
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "aqo_op_host_common.h"
#include "aqo_quant_matmul_tiling.h"
#include "aqo_cube_tiling.h"
#include "tiling_core/constraints.h"
#include "tiling_core/dtype_table.h"
#include "tiling_core/quant_matmul_plan.h"
#include "tiling_core/soc_table.h"

namespace {

using aqo_host::Dims;

const char kOp[] = "AqoQuantMatMul";

// IR indices. a_zero_point (an optional input) comes before b: an absent optional input is not counted by the
// instance-indexed GetInputShape / GetInputDesc (tiling_context.h), so the required inputs are read by IR index
// (GetRequiredInputShape / GetRequiredInputDesc) and the optional ones with GetOptionalInputShape.
enum QmInput { kA = 0, kAScale, kAZeroPoint, kB, kBScale, kBZeroPoint, kBias };

const aqo::DType kOperandDTypes[] = {aqo::DType::INT8, aqo::DType::UINT8};
const aqo::DType kOutDTypes[] = {aqo::DType::FLOAT32, aqo::DType::FLOAT16, aqo::DType::BFLOAT16};

struct DTypeLists {
    std::vector<ge::DataType> a, b, y, scale;
    std::vector<ge::Format> fmt;
};

// The (a, b, y) combinations of a SoC: a and b the integer types of its QLinearMatMul lists, y its quant_matmul
// output types.
void AppendCombos(const aqo::SocSpec& s, DTypeLists* l)
{
    for (aqo::DType a : kOperandDTypes) {
        for (aqo::DType b : kOperandDTypes) {
            for (aqo::DType y : kOutDTypes) {
                ge::DataType ga, gb, gy;
                if (!aqo::DTypeSetHas(s.qmm_a_dtypes, a) || !aqo::DTypeSetHas(s.qmm_b_dtypes, b) ||
                    !aqo::DTypeSetHas(s.quant_matmul_out_dtypes, y) || !aqo_host::ToGe(a, &ga) ||
                    !aqo_host::ToGe(b, &gb) || !aqo_host::ToGe(y, &gy)) {
                    continue;
                }
                if (aqo_host::AppendUniqueCombo({ga, gb, gy}, {&l->a, &l->b, &l->y})) {
                    l->scale.push_back(ge::DT_FLOAT);
                    l->fmt.push_back(ge::FORMAT_ND);
                }
            }
        }
    }
}

// A parameter's layout from its shape (aqo::ClassifyMatMulParam: one element, one vector for every matrix, or one
// per batch matrix; any other shape refused), absent when the input is not given.
bool Layout(const gert::StorageShape* s, const char* name, bool row, int64_t len, const std::vector<int64_t>& batch,
            const std::string& soc, uint32_t* kind, bool* batched)
{
    *kind = aqo::QMM_PARAM_NONE;
    *batched = false;
    if (s == nullptr) {
        return true;
    }
    aqo::QmmParamShape p;
    aqo::ConstraintViolation v;
    if (!aqo::ClassifyMatMulParam(name, Dims(s->GetStorageShape()), row, len, batch, soc, &p, &v)) {
        aqo_host::ReportViolation(kOp, "tiling", v);
        return false;
    }
    *kind = p.kind;
    *batched = p.batched;
    return true;
}

bool OutFromAttr(int64_t code, aqo::DType* out)
{
    for (aqo::DType d : kOutDTypes) {
        ge::DataType g;
        if (aqo_host::ToGe(d, &g) && static_cast<int64_t>(g) == code) {
            *out = d;
            return true;
        }
    }
    return false;
}

}  // namespace

namespace optiling {

static ge::graphStatus AqoQuantMatMulTilingFunc(gert::TilingContext* context)
{
    std::string soc_short;
    aqo::SocSpec spec;
    fe::PlatFormInfos* info = aqo_host::ReadPlatformSoc(context, kOp, &soc_short, &spec);
    if (info == nullptr) {
        return ge::GRAPH_FAILED;
    }
    platform_ascendc::PlatformAscendC platform(info);
    aqo::QuantMatMulRequest req;
    req.explain = false;  // every launch: the tiling only
    req.soc = soc_short;
    req.overrides.core_num = platform.GetCoreNumAic();
    req.overrides.ub_size = aqo_host::UbBytes(platform);
    const gert::StorageShape* as = context->GetRequiredInputShape(kA);
    const gert::StorageShape* bs = context->GetRequiredInputShape(kB);
    const gert::CompileTimeTensorDesc* ad = context->GetRequiredInputDesc(kA);
    const gert::CompileTimeTensorDesc* bd = context->GetRequiredInputDesc(kB);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const int64_t* out = attrs == nullptr ? nullptr : attrs->GetAttrPointer<int64_t>(0);
    if (as == nullptr || bs == nullptr || ad == nullptr || bd == nullptr || out == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const bool* trans = attrs->GetAttrPointer<bool>(1);
    req.b_trans = trans != nullptr && *trans;
    req.a_shape = Dims(as->GetStorageShape());
    req.b_shape = Dims(bs->GetStorageShape());
    if (req.b_trans && req.b_shape.size() >= 2) {
        std::swap(req.b_shape[req.b_shape.size() - 2], req.b_shape[req.b_shape.size() - 1]);  // the product's view
    }
    if (req.a_shape.size() == 1) {
        req.a_shape.insert(req.a_shape.begin(), 1);
    }
    if (req.b_shape.size() == 1) {
        req.b_shape.push_back(1);
    }
    if (!aqo_host::FromGe(ad->GetDataType(), kOperandDTypes, &req.a_dtype) ||
        !aqo_host::FromGe(bd->GetDataType(), kOperandDTypes, &req.b_dtype) || !OutFromAttr(*out, &req.out_dtype)) {
        std::fprintf(stderr, "[AqoQuantMatMul] a and b must be int8 / uint8, out_dtype float32 / float16 / bfloat16\n");
        return ge::GRAPH_FAILED;
    }
    // The y the caller allocated must be of out_dtype: the kernel writes out_dtype's bytes.
    if (!aqo_host::OutputHasDType(context, 0, req.out_dtype, "AqoQuantMatMul", "y (out_dtype)")) {
        return ge::GRAPH_FAILED;
    }
    // The parameters' layouts from their shapes: a's per row (M, a's batch dims), b's per column (N, b's batch
    // dims), the bias per column with y's batch dims; a scale and its zero point each their own.
    if (req.a_shape.size() < 2 || req.b_shape.size() < 2) {
        return ge::GRAPH_FAILED;  // (promoted above: only an empty shape gets here, which the plan refuses anyway)
    }
    const std::vector<int64_t> a_batch(req.a_shape.begin(), req.a_shape.end() - 2);
    const std::vector<int64_t> b_batch(req.b_shape.begin(), req.b_shape.end() - 2);
    int64_t y_dims[aqo::kMaxBatchRank];
    size_t y_rank = 0;
    if (!aqo::BroadcastBatchDims(req.a_shape.data(), req.a_shape.size(), req.b_shape.data(), req.b_shape.size(),
                                 y_dims, &y_rank)) {
        // batch dims that do not broadcast: the plan's check says so (before any parameter's shape is judged)
        aqo::QuantMatMulPlan refused;
        aqo::ConstraintViolation v;
        if (!aqo::PlanQuantMatMul(req, &refused, &v)) {
            aqo_host::ReportViolation(kOp, "tiling", v);
        }
        return ge::GRAPH_FAILED;
    }
    const std::vector<int64_t> y_batch(y_dims, y_dims + y_rank);
    const int64_t m = req.a_shape[req.a_shape.size() - 2];
    const int64_t n = req.b_shape[req.b_shape.size() - 1];
    uint32_t as_kind = aqo::QMM_PARAM_NONE, bs_kind = aqo::QMM_PARAM_NONE;
    if (!Layout(context->GetRequiredInputShape(kAScale), "a_scale", true, m, a_batch, soc_short, &as_kind,
                &req.a_param_batched) ||
        !Layout(context->GetRequiredInputShape(kBScale), "b_scale", false, n, b_batch, soc_short, &bs_kind,
                &req.b_param_batched) ||
        !Layout(context->GetOptionalInputShape(kAZeroPoint), "a_zero_point", true, m, a_batch, soc_short, &req.a_zp,
                &req.a_zp_batched) ||
        !Layout(context->GetOptionalInputShape(kBZeroPoint), "b_zero_point", false, n, b_batch, soc_short,
                &req.b_zp, &req.b_zp_batched) ||
        !Layout(context->GetOptionalInputShape(kBias), "bias", false, n, y_batch, soc_short, &req.bias,
                &req.bias_batched)) {
        return ge::GRAPH_FAILED;
    }
    req.a_scale_row = as_kind == aqo::QMM_PARAM_VECTOR;
    req.b_scale_column = bs_kind == aqo::QMM_PARAM_VECTOR;

    aqo::QuantMatMulPlan plan;
    aqo::ConstraintViolation v;
    if (!aqo::PlanQuantMatMul(req, &plan, &v)) {
        aqo_host::ReportViolation(kOp, "tiling", v);
        return ge::GRAPH_FAILED;
    }
    const aqo::QuantMatMulTiling& t = plan.tiling;
    AqoQuantMatMulTilingData td;
    aqo::FillQuantMatMulTilingData(t, &td);
    if (!aqo_host::FillCubeTiling(kOp, platform, plan.cube, t, &td.cubeTiling)) {
        return ge::GRAPH_FAILED;
    }
    const uint64_t workspace = aqo_host::SystemWorkspace(platform, plan.system_workspace_bytes) + plan.workspace_bytes;
    const uint32_t block_dim = aqo::CubeStageBlockDim(t);  // cube cores of the 1:2 mix kernel (310p: AI cores)
    return aqo_host::SaveTiling(context, td, block_dim, workspace, aqo::CubeStageScheduleMode(t));
}

}  // namespace optiling

namespace ge {

// numpy.matmul: y = broadcast(a[:-2], b[:-2]) + [M] (unless a is 1-D) + [N] (unless b is 1-D).
static graphStatus AqoQuantMatMulInferShape(gert::InferShapeContext* context)
{
    const gert::Shape* a = context->GetRequiredInputShape(kA);
    const gert::Shape* b = context->GetRequiredInputShape(kB);
    gert::Shape* y = context->GetOutputShape(0);
    if (a == nullptr || b == nullptr || y == nullptr || a->GetDimNum() < 1 || b->GetDimNum() < 1) {
        return GRAPH_FAILED;
    }
    std::vector<int64_t> ad = Dims(*a), bd = Dims(*b);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const bool* trans = attrs == nullptr ? nullptr : attrs->GetAttrPointer<bool>(1);
    if (trans != nullptr && *trans && bd.size() >= 2) {
        std::swap(bd[bd.size() - 2], bd[bd.size() - 1]);  // b given as its [..., N, K] storage
    }
    const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
    if (a_vec) {
        ad.insert(ad.begin(), 1);
    }
    if (b_vec) {
        bd.push_back(1);
    }
    if (ad[ad.size() - 1] != bd[bd.size() - 2]) {
        std::fprintf(stderr, "[AqoQuantMatMul] K of a (%lld) differs from K of b (%lld)\n",
                     static_cast<long long>(ad[ad.size() - 1]), static_cast<long long>(bd[bd.size() - 2]));
        return GRAPH_FAILED;
    }
    int64_t batch[aqo::kMaxBatchRank];
    size_t rank = 0;
    if (!aqo::BroadcastBatchDims(&ad[0], ad.size(), &bd[0], bd.size(), batch, &rank)) {
        std::fprintf(stderr, "[AqoQuantMatMul] batch dims of a and b do not broadcast\n");
        return GRAPH_FAILED;
    }
    std::vector<int64_t> out(batch, batch + rank);
    if (!a_vec) {
        out.push_back(ad[ad.size() - 2]);
    }
    if (!b_vec) {
        out.push_back(bd[bd.size() - 1]);
    }
    y->SetDimNum(out.size());
    for (size_t i = 0; i < out.size(); ++i) {
        y->SetDim(i, out[i]);
    }
    return GRAPH_SUCCESS;
}

// y's dtype: the out_dtype attribute (a ge::DataType code).
static graphStatus AqoQuantMatMulInferDataType(gert::InferDataTypeContext* context)
{
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const int64_t* out = attrs == nullptr ? nullptr : attrs->GetAttrPointer<int64_t>(0);
    aqo::DType d;
    ge::DataType g;
    if (out == nullptr || !OutFromAttr(*out, &d) || !aqo_host::ToGe(d, &g)) {
        return GRAPH_FAILED;
    }
    context->SetOutputDataType(0, g);
    return GRAPH_SUCCESS;
}

}  // namespace ge

namespace ops {

class AqoQuantMatMul : public OpDef {
public:
    explicit AqoQuantMatMul(const char* name) : OpDef(name)
    {
        DTypeLists all;
        size_t n = 0;
        const aqo::SocSpec* table = aqo::SocTable(&n);
        for (size_t i = 0; i < n; ++i) {
            AppendCombos(table[i], &all);
        }
        Params(*this, all);
        // out_dtype: ge::DataType code of y, float32 by default.
        this->Attr("out_dtype").AttrType(OPTIONAL).Int(static_cast<int64_t>(ge::DT_FLOAT));
        // b_trans: b is given as [..., N, K] (the Linear layout), read transposed by the kernel.
        this->Attr("b_trans").AttrType(OPTIONAL).Bool(false);
        this->SetInferShape(ge::AqoQuantMatMulInferShape).SetInferDataType(ge::AqoQuantMatMulInferDataType);
        this->AICore().SetTiling(optiling::AqoQuantMatMulTilingFunc);
        for (size_t i = 0; i < n; ++i) {
            DTypeLists l;
            AppendCombos(table[i], &l);
            if (l.a.empty()) {
                continue;  // no quant_matmul kernel on this SoC
            }
            OpAICoreConfig cfg;
            Params(cfg, l);
            cfg.DynamicCompileStaticFlag(true).DynamicRankSupportFlag(true).DynamicShapeSupportFlag(true);
            // snake_case("AqoQuantMatMul") would be aqo_quant_mat_mul: name the kernel file and function.
            cfg.ExtendCfgInfo("opFile.value", "aqo_quant_matmul");
            cfg.ExtendCfgInfo("opInterface.value", "aqo_quant_matmul");
            this->AICore().AddConfig(table[i].name, cfg);
        }
    }

private:
    template <class D>
    static void Params(D& d, const DTypeLists& l)
    {
        d.Input("a").ParamType(REQUIRED).DataType(l.a).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Input("a_scale").ParamType(REQUIRED).DataType(l.scale).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Input("a_zero_point").ParamType(OPTIONAL).DataType(l.a).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Input("b").ParamType(REQUIRED).DataType(l.b).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Input("b_scale").ParamType(REQUIRED).DataType(l.scale).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Input("b_zero_point").ParamType(OPTIONAL).DataType(l.b).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Input("bias").ParamType(OPTIONAL).DataType(l.scale).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Output("y").ParamType(REQUIRED).DataType(l.y).Format(l.fmt).UnknownShapeFormat(l.fmt);
    }
};

OP_ADD(AqoQuantMatMul);

}  // namespace ops
