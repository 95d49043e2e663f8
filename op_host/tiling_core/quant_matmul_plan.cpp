// quant_matmul plan (see quant_matmul_plan.h): the shared cube stage (matmul_cube_plan.h) plus the float epilogue's
// buffers and parameters.
#include "quant_matmul_plan.h"

#include <algorithm>
#include <string>

namespace aqo {
namespace {

const OpKind kOp = OpKind::QUANT_MATMUL;

std::string Str(uint64_t v) { return std::to_string(v); }

uint32_t OutCode(DType t)
{
    return t == DType::FLOAT16 ? QMM_OUT_FLOAT16 : (t == DType::BFLOAT16 ? QMM_OUT_BFLOAT16 : QMM_OUT_FLOAT32);
}

// The epilogue's UB per element of a chunk: the scale pattern (float32) and y, double buffered.
uint32_t EpilogueBytesPerElement(uint32_t y_bytes) { return 4 + 2 * y_bytes; }

}  // namespace

bool PlanQuantMatMul(const QuantMatMulRequest& r, QuantMatMulPlan* plan, ConstraintViolation* v)
{
    SocSpec soc;
    if (!ResolveSoc(r.soc.c_str(), r.overrides, kOp, &soc, v)) {
        return false;
    }
    QuantMatMulRequestView view;
    view.a_shape = r.a_shape.empty() ? nullptr : &r.a_shape[0];
    view.a_rank = r.a_shape.size();
    view.b_shape = r.b_shape.empty() ? nullptr : &r.b_shape[0];
    view.b_rank = r.b_shape.size();
    view.a_dtype = r.a_dtype;
    view.b_dtype = r.b_dtype;
    view.out_dtype = r.out_dtype;
    if (!CheckQuantMatMulRequest(view, soc, v)) {
        return false;
    }
    const uint32_t y_bytes = static_cast<uint32_t>(DTypeBytes(r.out_dtype));
    MatmulCubeRequest cr;
    cr.op = kOp;
    cr.a_shape = r.a_shape;
    cr.b_shape = r.b_shape;
    cr.b_trans = r.b_trans;
    cr.a_dtype = r.a_dtype;
    cr.b_dtype = r.b_dtype;
    cr.a_zp = r.a_zp;
    cr.b_zp = r.b_zp;
    cr.a_zp_batched = r.a_zp_batched;
    cr.b_zp_batched = r.b_zp_batched;
    cr.y_bytes = y_bytes;
    cr.epilogue_bytes_per_element = EpilogueBytesPerElement(y_bytes);
    // Fixed epilogue buffers: b's scales and the bias (one block row each), a's scales (a strip's rows).
    cr.epilogue_fixed_bytes = 3 * 256 * 4 + 64;
    cr.explain = r.explain;
    MatmulCubePlan cp;
    if (!PlanMatmulCube(cr, soc, &cp, v) || !CheckMatmulApiB(cr, soc, cp.tiling, v)) {
        return false;
    }
    QuantMatMulTiling& t = plan->tiling;
    t = QuantMatMulTiling();
    CopyMatmulCubeTiling(cp.tiling, &t);
    t.outCode = OutCode(r.out_dtype);
    t.aScaleKind = r.a_scale_row ? 1 : 0;
    t.bScaleKind = r.b_scale_column ? 1 : 0;
    t.aScaleBatchStride = (r.a_scale_row && r.a_param_batched) ? t.m : 0;
    t.bScaleBatchStride = (r.b_scale_column && r.b_param_batched) ? t.n : 0;
    t.biasKind = r.bias;
    t.biasBatchStride = (r.bias == QMM_PARAM_VECTOR && r.bias_batched) ? t.n : 0;  // indexed by y's batch matrix
    const uint32_t elems = cp.epilogue_elements;
    t.ubColF32 = t.cStride * 4;
    t.ubRowF32 = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(t.stripM) * 4, 32));
    t.ubBias = t.cStride * 4;
    t.ubPattern = elems * 4;
    t.ubYOut = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(elems) * y_bytes, 32));
    plan->cube = QmmCubeTiling(cp.tiling, soc);
    plan->workspace_bytes = cp.workspace_bytes;
    plan->system_workspace_bytes = cp.system_workspace_bytes;
    plan->y_elements = static_cast<uint64_t>(t.batch) * t.m * t.n;
    const uint64_t ub_total = static_cast<uint64_t>(cp.ub_bytes) - cr.epilogue_fixed_bytes -
                              static_cast<uint64_t>(cr.epilogue_bytes_per_element) * elems + t.ubColF32 +
                              t.ubRowF32 + t.ubBias + t.ubPattern + 2ull * t.ubYOut;
    // The same bound as the stage's (KernelUbBytes: the Matmul client's message block, 310p's API area).
    const uint64_t ub_usable = KernelUbBytes(soc, true);
    if (ub_total > ub_usable) {
        SetViolation(v, kOp, "ub_size", &soc, "unified buffer for the quant_matmul blocks",
                     ">= " + Str(ub_total) + " bytes", Str(ub_usable) + " bytes",
                     "use the SoC's real UB size (ub_size=None)");
        return false;
    }
    PlanExplanation& e = plan->explanation;
    e = PlanExplanation();
    if (!r.explain) {
        return true;
    }
    const char kindA = r.a_scale_row ? 'a' : 0, kindB = r.b_scale_column ? 'b' : 0;
    const char zpA = r.a_zp == QMM_PARAM_VECTOR ? 'a' : 0, zpB = r.b_zp == QMM_PARAM_VECTOR ? 'b' : 0;
    const std::vector<QmmExtraTensor> extra = {
        {"a_scale", 4, kindA, r.a_param_batched, true, false},
        {"a_zero_point", 1, zpA, r.a_zp_batched, r.a_zp != QMM_PARAM_NONE, zpA != 0},
        {"b_scale", 4, kindB, r.b_param_batched, true, false},
        {"b_zero_point", 1, zpB, r.b_zp_batched, r.b_zp != QMM_PARAM_NONE, zpB != 0},
        // The per-column bias is read like b's per-column parameters (its batch follows y's: listed whole when so).
        {"bias", 4, r.bias == QMM_PARAM_VECTOR ? 'b' : static_cast<char>(0), false, r.bias != QMM_PARAM_NONE,
         r.bias == QMM_PARAM_VECTOR && r.bias_batched},
    };
    ExplainMatmulCube(cr, soc, cp, extra, y_bytes, &e);
    if (r.bias == QMM_PARAM_VECTOR && r.bias_batched) {
        // Not b's batch: the tensor's size is y's batch x N.
        for (GmTensor& g : e.tensors) {
            if (g.name == "bias") {
                g.bytes = static_cast<uint64_t>(t.batch) * t.n * 4;
            }
        }
        for (GmRange& g : e.gm) {
            if (g.tensor == "bias") {
                g.begin = 0;
                g.end = static_cast<uint64_t>(t.batch) * t.n * 4;
            }
        }
    }
    uint32_t o = 0;
    for (const UbBuffer& b : e.ub) {
        o = std::max<uint32_t>(o, b.offset + b.bytes * b.slots);
    }
    const struct {
        const char* name;
        uint32_t bytes, slots;
    } epi[] = {{"b_scale_f32", t.ubColF32, 1}, {"a_scale_f32", t.ubRowF32, 1}, {"bias_f32", t.ubBias, 1},
               {"scale_f32", t.ubPattern, 1},  {"y_out", t.ubYOut, 2}};
    for (const auto& x : epi) {
        AppendUbBuffer(&e.ub, &o, x.name, x.bytes, x.slots);
    }
    e.notes.push_back(std::string("float epilogue on the vector unit, ") + Str(t.rowsPerChunk) + " rows x " +
                      Str(t.cStride) + " columns per step: float32(acc) * float32(a_scale * b_scale)" +
                      (r.bias != QMM_PARAM_NONE ? " + bias" : "") + ", then one round-to-nearest-even conversion to " +
                      DTypeName(r.out_dtype));
    if (t.exactConvert) {
        e.notes.push_back("int32 -> float32 in two exact parts (the low 16 bits and the rest, one rounded addition): the SoC's "
                          "mode-less conversion of values beyond 2^24 rounds in an undocumented way");
    }
    return true;
}

namespace {

std::vector<int64_t> WithoutLeadingOnes(const std::vector<int64_t>& d)
{
    size_t i = 0;
    while (i < d.size() && d[i] == 1) {
        ++i;
    }
    return std::vector<int64_t>(d.begin() + static_cast<std::ptrdiff_t>(i), d.end());
}

std::string DimsText(const std::vector<int64_t>& d) { return ShapeText(d.data(), d.size()); }

}  // namespace

bool ClassifyMatMulParam(const char* name, const std::vector<int64_t>& dims, bool row, int64_t len,
                         const std::vector<int64_t>& batch, const std::string& soc, QmmParamShape* out,
                         ConstraintViolation* v, OpKind op, bool flat_rows_batched)
{
    *out = QmmParamShape();
    int64_t numel = 1;
    for (int64_t x : dims) {
        numel *= x;
    }
    if (numel == 1) {
        out->kind = QMM_PARAM_TENSOR;
        return true;
    }
    const std::vector<int64_t> d = WithoutLeadingOnes(dims);
    const std::vector<int64_t> b = WithoutLeadingOnes(batch);
    const std::vector<int64_t> vec = row ? std::vector<int64_t>{len, 1} : std::vector<int64_t>{1, len};
    const std::vector<int64_t> flat = {len};
    if (d == flat || d == WithoutLeadingOnes(vec)) {
        out->kind = QMM_PARAM_VECTOR;
        return true;
    }
    if (!b.empty()) {
        std::vector<int64_t> with_vec = b;
        with_vec.insert(with_vec.end(), vec.begin(), vec.end());
        std::vector<int64_t> with_flat = b;
        with_flat.push_back(len);
        if (d == with_vec || (row && flat_rows_batched && d == with_flat)) {
            out->kind = QMM_PARAM_VECTOR;
            out->batched = true;
            return true;
        }
    }
    const std::string l = std::to_string(len);
    const std::string per = row ? "per row of a (M = " + l + ")" : "per column (N = " + l + ")";
    const std::string batched_rows = flat_rows_batched ? " + [" + l + "] / [" + l + ", 1]" : " + [" + l + ", 1]";
    const std::string forms = row ? "[" + l + "], [" + l + ", 1], or " + DimsText(batch) + batched_rows +
                                        " (a's batch dims)"
                                  : "[" + l + "], [1, " + l + "], or " + DimsText(batch) + " + [1, " + l +
                                        "] (the batch dims it follows)";
    SocSpec found;
    const SocSpec* spec = SocFromName(soc.c_str(), &found) ? &found : nullptr;
    SetViolation(v, op, name, spec, "a parameter's shape: one element, or one value " + per,
                 "one element, " + forms + " (leading 1s ignored)", DimsText(dims),
                 "give it one of those shapes (a [" + l + "] vector is shared by every batch matrix)");
    return false;
}

}  // namespace aqo
