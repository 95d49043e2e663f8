// AqoQLinearMatMul: CANN operator definition, shape / dtype inference and the TilingFunc adapter.
//
// OpType "AqoQLinearMatMul": no built-in has it (a custom op with a built-in's OpType would replace CANN's own for
// every user of the installation; docs/references.md "Operator names in CANN"). CANN's
// snake-case conversion of the OpType would split "QLinear" and "MatMul", so the kernel file op_kernel/aqo_qlinear_matmul.cpp and its function are named explicitly
// (opFile.value, opInterface.value).
//
// What the adapter decides comes from the tiling core (op_host/tiling_core, plain C++ that tests and the emulator
// call too): the per-SoC dtype lists from the SoC table, the request check and the work split / UB / workspace
// from PlanQLinearMatMul, the cube's base block, L1 depths and steps from the plan's cube stage
// (matmul_cube_plan.h), completed by CANN's matmul tiling API (MultiCoreMatmulTiling) for the largest call the kernel
// makes; the kernel sets each call's real shape.
//
// Attribute b_trans: b is given as its [..., N, K] storage (the Linear layout, read transposed by the kernel: a
// transposed view of a weight needs no copy), else [..., K, N]. The plan refuses it for float8 b.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "aqo_op_host_common.h"
#include "aqo_qlinear_matmul_tiling.h"
#include "aqo_cube_tiling.h"
#include "tiling_core/constraints.h"
#include "tiling_core/dtype_table.h"
#include "tiling_core/qlinear_matmul_plan.h"
#include "tiling_core/quant_matmul_plan.h"  // ClassifyMatMulParam
#include "tiling_core/soc_table.h"

namespace {

using aqo_host::Dims;

const char kOp[] = "AqoQLinearMatMul";

// Input indices of the OpDef (and of ops.json).
enum QmmInput { kA = 0, kAScale, kAZeroPoint, kB, kBScale, kBZeroPoint, kYScale, kYZeroPoint };

// The dtypes a, b, their zero points and y can have on any SoC (the scales are float32, never looked up).
const aqo::DType kOpDTypes[] = {aqo::DType::INT8, aqo::DType::UINT8, aqo::DType::FLOAT8_E4M3FN,
                                aqo::DType::FLOAT8_E5M2};

bool FromGe(ge::DataType g, aqo::DType* out) { return aqo_host::FromGe(g, kOpDTypes, out); }

// Whether the toolkit this package is built with can size a float8 x float8 cube. The SoC table says what the SoC
// runs (ascend910_95's cube multiplies float8, and the kernel's float8 path runs in the emulator), but CANN 8.1's
// matmul tiling API (matmul_tiling::DataType, MultiCoreMatmulTiling below) has no float8 type, so the package
// built with it cannot compute the cube tiling of float8 a / b. The OpDef therefore advertises only int8 / uint8
// operands (float8 y stays: its cube is int8), and the TilingFunc refuses float8 operands should a graph bring
// them anyway. This comment is the one statement of the reason: the rule "toolkit_no_float8_cube" of
// cmake/cann/ops.json makes the rendered msopgen columns agree, and tests/build/test_build_opdef_consistency.py
// checks that the rule is there exactly while this constant is false. Set it to true with a toolkit that has a
// float8 DataType (and the matching SetAType / SetBType below).
const bool kToolkitMatmulTilingHasFloat8 = false;

// The (a, b, y) dtype combinations of a SoC, from the SoC table, as the parallel lists OpDef wants (zero points
// have their tensor's dtype, scales are float32).
struct DTypeLists {
    std::vector<ge::DataType> a, b, y, scale;
    std::vector<ge::Format> fmt;
};

void AppendCombos(const aqo::SocSpec& s, DTypeLists* l)
{
    for (int i = 0; i < static_cast<int>(aqo::DType::COUNT); ++i) {
        for (int j = 0; j < static_cast<int>(aqo::DType::COUNT); ++j) {
            for (int k = 0; k < static_cast<int>(aqo::DType::COUNT); ++k) {
                const aqo::DType a = static_cast<aqo::DType>(i);
                const aqo::DType b = static_cast<aqo::DType>(j);
                const aqo::DType y = static_cast<aqo::DType>(k);
                ge::DataType ga, gb, gy;
                if (!aqo::DTypeSetHas(s.qmm_a_dtypes, a) || !aqo::DTypeSetHas(s.qmm_b_dtypes, b) ||
                    !aqo::DTypeSetHas(s.qmm_y_dtypes, y) || !aqo_host::ToGe(a, &ga) || !aqo_host::ToGe(b, &gb) ||
                    !aqo_host::ToGe(y, &gy)) {
                    continue;
                }
                if (!s.qmm_mixed_int_float8 && aqo::GetDTypeInfo(a).is_float != aqo::GetDTypeInfo(b).is_float) {
                    continue;  // the cube multiplies int8 x int8 or float8 x float8, never a mix
                }
                if (!kToolkitMatmulTilingHasFloat8 &&
                    (aqo::GetDTypeInfo(a).is_float || aqo::GetDTypeInfo(b).is_float)) {
                    continue;  // float8 a / b: not with this toolkit (kToolkitMatmulTilingHasFloat8)
                }
                if (aqo_host::AppendUniqueCombo({ga, gb, gy}, {&l->a, &l->b, &l->y})) {
                    l->scale.push_back(ge::DT_FLOAT);
                    l->fmt.push_back(ge::FORMAT_ND);
                }
            }
        }
    }
}

int64_t Numel(const std::vector<int64_t>& d)
{
    int64_t n = 1;
    for (size_t i = 0; i < d.size(); ++i) {
        n *= d[i];
    }
    return n;
}

// A per-row (a) / per-column (b) parameter and its zero point: the kernel reads both as one [M] / [N] vector shared
// by all batch matrices, or one per batch matrix laid out with exactly the operand's batch dims, or one element
// (aqo::ClassifyMatMulParam, leading 1s ignored; as the golden, [M] and [M, 1] / [N] and [1, N] are one layout, and
// a's rows take no batch + [M] spelling). The zero point must have its scale's layout (ONNX): the kernel reads the
// two alike, so another one would be read past its end or as another layout. False with the violation reported.
bool ParamLayout(const char* scale_name, const char* zp_name, const std::vector<int64_t>& scale,
                 const std::vector<int64_t>& zp, bool row, const std::vector<int64_t>& operand,
                 const std::string& soc, aqo::QmmParamShape* layout)
{
    const int64_t len = operand[operand.size() - (row ? 2 : 1)];
    const std::vector<int64_t> batch(operand.begin(), operand.end() - 2);
    aqo::ConstraintViolation v;
    aqo::QmmParamShape z;
    if (!aqo::ClassifyMatMulParam(scale_name, scale, row, len, batch, soc, layout, &v,
                                  aqo::OpKind::QLINEAR_MATMUL, false) ||
        !aqo::ClassifyMatMulParam(zp_name, zp, row, len, batch, soc, &z, &v, aqo::OpKind::QLINEAR_MATMUL,
                                  false)) {
        aqo_host::ReportViolation(kOp, "tiling", v);
        return false;
    }
    const auto text = [](const aqo::QmmParamShape& p) {
        return p.kind == aqo::QMM_PARAM_TENSOR ? "one element" : (p.batched ? "one vector per matrix" : "one vector");
    };
    if (z.kind != layout->kind || z.batched != layout->batched) {
        std::fprintf(stderr, "[AqoQLinearMatMul] %s must have the layout of %s (ONNX: a zero point has its scale's "
                     "shape): %s is %s, %s is %s\n", zp_name, scale_name, zp_name, text(z), scale_name,
                     text(*layout));
        return false;
    }
    return true;
}

}  // namespace

namespace optiling {

static ge::graphStatus AqoQLinearMatMulTilingFunc(gert::TilingContext* context)
{
    // The platform as the device reports it: SoC name, cube core count and UB size replace the table defaults.
    std::string soc_short;
    aqo::SocSpec spec;
    fe::PlatFormInfos* info = aqo_host::ReadPlatformSoc(context, kOp, &soc_short, &spec);
    if (info == nullptr) {
        return ge::GRAPH_FAILED;
    }
    platform_ascendc::PlatformAscendC platform(info);
    aqo::QLinearMatMulRequest req;
    req.explain = false;  // runs on every launch: the tiling only, O(1) in the tile count
    req.soc = soc_short;
    // The kernel's blocks are cube cores (mix kernel, 2 vector cores each) on 910b / 950, AI cores on 310p.
    req.overrides.core_num = platform.GetCoreNumAic();
    req.overrides.ub_size = aqo_host::UbBytes(platform);

    const gert::StorageShape* as = context->GetInputShape(kA);
    const gert::StorageShape* bs = context->GetInputShape(kB);
    const gert::StorageShape* ass = context->GetInputShape(kAScale);
    const gert::StorageShape* bss = context->GetInputShape(kBScale);
    const gert::StorageShape* yss = context->GetInputShape(kYScale);
    const gert::CompileTimeTensorDesc* ad = context->GetInputDesc(kA);
    const gert::CompileTimeTensorDesc* bd = context->GetInputDesc(kB);
    const gert::CompileTimeTensorDesc* yd = context->GetInputDesc(kYZeroPoint);
    if (as == nullptr || bs == nullptr || ass == nullptr || bss == nullptr || yss == nullptr || ad == nullptr ||
        bd == nullptr || yd == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const bool* trans = attrs == nullptr ? nullptr : attrs->GetAttrPointer<bool>(0);
    req.b_trans = trans != nullptr && *trans;
    req.a_shape = Dims(as->GetStorageShape());
    req.b_shape = Dims(bs->GetStorageShape());
    if (req.b_trans && req.b_shape.size() >= 2) {
        std::swap(req.b_shape[req.b_shape.size() - 2], req.b_shape[req.b_shape.size() - 1]);  // the product's view
    }
    // numpy.matmul promotion of 1-D operands: a [K] -> [1, K], b [K] -> [K, 1].
    if (req.a_shape.size() == 1) {
        req.a_shape.insert(req.a_shape.begin(), 1);
    }
    if (req.b_shape.size() == 1) {
        req.b_shape.push_back(1);
    }
    if (!FromGe(ad->GetDataType(), &req.a_dtype) || !FromGe(bd->GetDataType(), &req.b_dtype) ||
        !FromGe(yd->GetDataType(), &req.y_dtype)) {
        std::fprintf(stderr, "[AqoQLinearMatMul] a, b and y must be int8 / uint8 (float8 on ascend910_95)\n");
        return ge::GRAPH_FAILED;
    }
    if (Numel(Dims(yss->GetStorageShape())) != 1) {
        std::fprintf(stderr, "[AqoQLinearMatMul] y_scale / y_zero_point must be per tensor (one element)\n");
        return ge::GRAPH_FAILED;
    }
    const gert::StorageShape* azs = context->GetInputShape(kAZeroPoint);
    const gert::StorageShape* bzs = context->GetInputShape(kBZeroPoint);
    const gert::StorageShape* yzs = context->GetInputShape(kYZeroPoint);
    if (azs == nullptr || bzs == nullptr || yzs == nullptr) {
        return ge::GRAPH_FAILED;
    }
    if (Numel(Dims(yzs->GetStorageShape())) != 1) {
        std::fprintf(stderr, "[AqoQLinearMatMul] y_zero_point must have the shape of y_scale: one element\n");
        return ge::GRAPH_FAILED;
    }
    if (req.a_shape.size() < 2 || req.b_shape.size() < 2) {  // a 0-d a or b (InferShape refuses them first)
        std::fprintf(stderr, "[AqoQLinearMatMul] a and b must have at least one dimension\n");
        return ge::GRAPH_FAILED;
    }
    aqo::QmmParamShape a_layout, b_layout;
    if (!ParamLayout("a_scale", "a_zero_point", Dims(ass->GetStorageShape()), Dims(azs->GetStorageShape()), true,
                     req.a_shape, soc_short, &a_layout) ||
        !ParamLayout("b_scale", "b_zero_point", Dims(bss->GetStorageShape()), Dims(bzs->GetStorageShape()), false,
                     req.b_shape, soc_short, &b_layout)) {
        return ge::GRAPH_FAILED;
    }
    req.a_param = a_layout.kind == aqo::QMM_PARAM_TENSOR ? aqo::QuantParamKind::TENSOR : aqo::QuantParamKind::ROW;
    req.b_param = b_layout.kind == aqo::QMM_PARAM_TENSOR ? aqo::QuantParamKind::TENSOR : aqo::QuantParamKind::COLUMN;
    req.a_param_batched = a_layout.batched;
    req.b_param_batched = b_layout.batched;

    aqo::QLinearMatMulPlan plan;
    aqo::ConstraintViolation v;
    if (!aqo::PlanQLinearMatMul(req, &plan, &v)) {
        aqo_host::ReportViolation(kOp, "tiling", v);
        return ge::GRAPH_FAILED;
    }
    const aqo::QLinearMatMulTiling& t = plan.tiling;
    if (!kToolkitMatmulTilingHasFloat8 && (t.aCode > aqo::QMM_UINT8 || t.bCode > aqo::QMM_UINT8)) {
        // The OpDef does not advertise float8 a / b (kToolkitMatmulTilingHasFloat8 says why); should a graph
        // bring them anyway, refuse rather than hand the kernel an int8 cube tiling for float8 operands.
        std::fprintf(stderr, "[AqoQLinearMatMul] float8 a / b: no float8 DataType in this CANN's matmul tiling "
                     "API (%s)\n", soc_short.c_str());
        return ge::GRAPH_FAILED;
    }

    AqoQLinearMatMulTilingData td;
    aqo::FillQLinearMatMulTilingData(t, &td);
    // The vector decode path (tiling key 1) has no Matmul object: its cubeTiling stays zero, and the matmul tiling
    // API is not asked (its refusal must not refuse a launch that does not use the cube).
    if (plan.tiling_key == aqo::kQmmTilingKeyCube &&
        !aqo_host::FillCubeTiling(kOp, platform, plan.cube, t, &td.cubeTiling)) {
        return ge::GRAPH_FAILED;
    }

    // The kernel's branch: the cube path, or the vector decode path (a short a against a uint8 b).
    context->SetTilingKey(plan.tiling_key);
    // The Matmul API's system workspace (KFC messages on split SoCs) first, then the workers' areas.
    const uint64_t workspace = aqo_host::SystemWorkspace(platform, plan.system_workspace_bytes) + plan.workspace_bytes;
    // Cube cores for the mix kernel's cube path, vector cores for the vector decode key's binary.
    const uint32_t block_dim = aqo::QLinearMatMulBlockDim(t, plan.tiling_key);
    return aqo_host::SaveTiling(context, td, block_dim, workspace, aqo::QLinearMatMulScheduleMode(t));
}

}  // namespace optiling

namespace ge {

// numpy.matmul: y = broadcast(a[:-2], b[:-2]) + [M] (unless a is 1-D) + [N] (unless b is 1-D).
static graphStatus AqoQLinearMatMulInferShape(gert::InferShapeContext* context)
{
    const gert::Shape* a = context->GetInputShape(kA);
    const gert::Shape* b = context->GetInputShape(kB);
    gert::Shape* y = context->GetOutputShape(0);
    if (a == nullptr || b == nullptr || y == nullptr || a->GetDimNum() < 1 || b->GetDimNum() < 1) {
        return GRAPH_FAILED;
    }
    std::vector<int64_t> ad = Dims(*a), bd = Dims(*b);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const bool* trans = attrs == nullptr ? nullptr : attrs->GetAttrPointer<bool>(0);
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
        std::fprintf(stderr, "[AqoQLinearMatMul] K of a (%lld) differs from K of b (%lld)\n",
                     static_cast<long long>(ad[ad.size() - 1]), static_cast<long long>(bd[bd.size() - 2]));
        return GRAPH_FAILED;
    }
    int64_t batch[aqo::kMaxBatchRank];
    size_t rank = 0;
    if (!aqo::BroadcastBatchDims(&ad[0], ad.size(), &bd[0], bd.size(), batch, &rank)) {
        std::fprintf(stderr, "[AqoQLinearMatMul] batch dims of a and b do not broadcast\n");
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

// y has the dtype of y_zero_point (ONNX: T3).
static graphStatus AqoQLinearMatMulInferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(kYZeroPoint));
    return GRAPH_SUCCESS;
}

}  // namespace ge

namespace ops {

class AqoQLinearMatMul : public OpDef {
public:
    explicit AqoQLinearMatMul(const char* name) : OpDef(name)
    {
        // The default definition lists every combination any SoC supports; each SoC's AddConfig narrows it to
        // what the SoC table says that SoC supports, less what this toolkit cannot tile (AppendCombos).
        DTypeLists all;
        size_t n = 0;
        const aqo::SocSpec* table = aqo::SocTable(&n);
        for (size_t i = 0; i < n; ++i) {
            AppendCombos(table[i], &all);
        }
        Define(*this, all);
        // b_trans: b is given as [..., N, K] (the Linear layout), read transposed by the kernel.
        this->Attr("b_trans").AttrType(OPTIONAL).Bool(false);
        this->SetInferShape(ge::AqoQLinearMatMulInferShape).SetInferDataType(ge::AqoQLinearMatMulInferDataType);
        this->AICore().SetTiling(optiling::AqoQLinearMatMulTilingFunc);
        for (size_t i = 0; i < n; ++i) {
            DTypeLists l;
            AppendCombos(table[i], &l);
            OpAICoreConfig cfg;
            DefineConfig(cfg, l);
            cfg.DynamicCompileStaticFlag(true).DynamicRankSupportFlag(true).DynamicShapeSupportFlag(true);
            // snake_case("AqoQLinearMatMul") would be aqo_q_linear_mat_mul: name the kernel file and function.
            cfg.ExtendCfgInfo("opFile.value", "aqo_qlinear_matmul");
            cfg.ExtendCfgInfo("opInterface.value", "aqo_qlinear_matmul");
            this->AICore().AddConfig(table[i].name, cfg);
        }
    }

private:
    template <class D>
    static void Params(D& d, const DTypeLists& l)
    {
        d.Input("a").ParamType(REQUIRED).DataType(l.a).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Input("a_scale").ParamType(REQUIRED).DataType(l.scale).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Input("a_zero_point").ParamType(REQUIRED).DataType(l.a).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Input("b").ParamType(REQUIRED).DataType(l.b).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Input("b_scale").ParamType(REQUIRED).DataType(l.scale).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Input("b_zero_point").ParamType(REQUIRED).DataType(l.b).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Input("y_scale").ParamType(REQUIRED).DataType(l.scale).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Input("y_zero_point").ParamType(REQUIRED).DataType(l.y).Format(l.fmt).UnknownShapeFormat(l.fmt);
        d.Output("y").ParamType(REQUIRED).DataType(l.y).Format(l.fmt).UnknownShapeFormat(l.fmt);
    }
    void Define(OpDef& d, const DTypeLists& l) { Params(d, l); }
    static void DefineConfig(OpAICoreConfig& c, const DTypeLists& l) { Params(c, l); }
};

OP_ADD(AqoQLinearMatMul);

}  // namespace ops
