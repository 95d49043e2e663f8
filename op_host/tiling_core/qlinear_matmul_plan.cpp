// QLinearMatMul plan (see qlinear_matmul_plan.h): the shared cube stage (matmul_cube_plan.h) plus the requantization
// epilogue's buffers and parameters.
#include "qlinear_matmul_plan.h"

#include "qlinear_matmul_cube_decode_plan.h"
#include "qlinear_matmul_cube_gemm_plan.h"
#include "qlinear_matmul_vector_decode_plan.h"

#include <algorithm>
#include <string>
#include <utility>

namespace aqo {
namespace {

const OpKind kOp = OpKind::QLINEAR_MATMUL;

std::string Str(uint64_t v) { return std::to_string(v); }

uint32_t OperandCode(DType t)
{
    switch (t) {
        case DType::UINT8: return QMM_UINT8;
        case DType::FLOAT8_E4M3FN: return QMM_FLOAT8_E4M3FN;
        case DType::FLOAT8_E5M2: return QMM_FLOAT8_E5M2;
        default: return QMM_INT8;
    }
}

// The epilogue's UB per element of a chunk: the multiplier pattern and y_scale's (float32 each), the half staging of
// the integer y, and y itself, double buffered.
uint32_t EpilogueBytesPerElement(uint32_t y_bytes) { return 4 + 4 + 2 + 2 * y_bytes; }

// A batch of a's matrices against one b, as one a of batch x M rows (`flat`), where that takes one of ascend310p's
// own cube paths (tiling keys 2 and 3, one matrix each) and the batch would otherwise go to the Matmul API, matrix
// by matrix. The same bytes: a's matrices lie one after the other ([batch x M, K]), y's too ([batch x M, N]), and
// per-row parameters laid out with a's batch dims are one vector of batch x M rows (shared [M] ones are not: they
// stay batched). Not where the vector decode path takes the batch itself, nor past the kernels' batch rank (whose
// refusal the request keeps).
bool FlattenBatchOfA(const QLinearMatMulRequest& r, const SocSpec& soc, QLinearMatMulRequest* flat)
{
    if (soc.split_architecture || r.a_shape.size() < 3 || r.b_shape.size() < 2 || QmmVectorDecodeApplies(r, soc)) {
        return false;
    }
    if (std::max(r.a_shape.size(), r.b_shape.size()) - 2 > kQmmMaxBatchRank) {
        return false;
    }
    if (r.a_param == QuantParamKind::ROW && !r.a_param_batched) {
        return false;
    }
    uint64_t batch = 1;
    for (size_t i = 0; i + 2 < r.a_shape.size(); ++i) {
        batch *= static_cast<uint64_t>(r.a_shape[i]);
    }
    for (size_t i = 0; i + 2 < r.b_shape.size(); ++i) {
        if (r.b_shape[i] != 1) {
            return false;
        }
    }
    const int64_t m = r.a_shape[r.a_shape.size() - 2], k = r.a_shape.back(), n = r.b_shape.back();
    if (batch < 2 || m <= 0 || static_cast<uint64_t>(m) * batch > 0x7FFFFFFFull) {
        return false;
    }
    *flat = r;
    flat->a_shape = {static_cast<int64_t>(batch) * m, k};
    flat->b_shape = {r.b_shape[r.b_shape.size() - 2], n};
    flat->a_param_batched = false;
    flat->b_param_batched = false;
    QLinearMatMulTiling t;
    t.m = static_cast<uint32_t>(batch * static_cast<uint64_t>(m));
    t.k = static_cast<uint32_t>(k);
    t.n = static_cast<uint32_t>(n);
    t.batch = t.aMatrices = t.bMatrices = 1;
    return QmmCubeDecodeApplies(*flat, soc, t) || QmmCubeGemmApplies(*flat, soc, t);
}

}  // namespace

uint64_t QmmIntMagnitude(DType t)
{
    const DTypeInfo& i = GetDTypeInfo(t);
    return static_cast<uint64_t>(std::max<int64_t>(-i.int_min, i.int_max));
}

void ClearCubeStagePreparation(QLinearMatMulTiling* t)
{
    t->mapA = t->mapB = 0;
    t->zpShiftA = t->zpShiftB = 0;
    t->cubeACode = t->aCode;
    t->cubeBCode = t->bCode;
    t->sharedPrep = 0;
    t->onesRow = 0;
    t->roundRanges = 0;
    t->wsPrepAOffset = t->wsPrepBOffset = t->wsRaOffset = t->wsCOffset = t->wsCPerWorker = 0;
    t->prepAStripBytes = t->prepAPerWorker = t->prepBBytes = 0;
    t->ubMatmulWs = t->ubCIn = t->ubTmp = t->ubColI32 = t->ubRowI32 = t->ubRowTerms = 0;
    t->ubPrepIn = t->ubPrepHalf = t->ubPrepOut = 0;
}

void SetDecodeEpilogue(uint32_t rows, uint32_t g, const DecodeEpilogueUb& ub, QLinearMatMulTiling* t)
{
    t->stripM = t->m;
    t->strips = 1;
    t->rowsPerChunk = rows;
    t->cStride = g;
    t->baseN = g;
    t->nBlocks = static_cast<uint32_t>(CeilDiv(t->n, g));
    t->callBlocks = 1;
    t->ubColF32 = ub.col_f32;
    t->ubRowF32 = ub.row_f32;
    t->ubPattern = ub.multiplier;
    t->ubHalf = ub.half;
    t->ubYOut = ub.y_out;
}

void BeginDecodeExplanation(const QLinearMatMulRequest& r, const SocSpec& soc, const char* mode, const char* work_unit,
                            uint32_t balance_unit, QLinearMatMulPlan* plan)
{
    const QLinearMatMulTiling& t = plan->tiling;
    PlanExplanation& e = plan->explanation;
    e = PlanExplanation();
    e.soc = soc.name;
    e.mode = mode;
    e.core_capacity = KernelCores(soc, kOp);
    e.used_cores = t.usedCores;
    e.ub_capacity = soc.ub_bytes;
    e.work_unit = work_unit;
    e.total_work = t.unitCount;
    e.balance_unit = balance_unit;
    e.passes = 1;
    const uint64_t m = t.m, n = t.n, k = t.k, y_bytes = DTypeBytes(r.y_dtype);
    const uint64_t a_vec = t.aParamKind ? (t.aParamBatchStride ? t.aMatrices * m : m) : 1;
    const uint64_t b_vec = t.bParamKind ? (t.bParamBatchStride ? t.bMatrices * n : n) : 1;
    const struct {
        const char* name;
        uint64_t bytes;
        bool output;
    } tensors[] = {{"a", static_cast<uint64_t>(t.aMatrices) * m * k, false},
                   {"a_scale", a_vec * 4, false},
                   {"a_zero_point", a_vec, false},
                   {"b", static_cast<uint64_t>(t.bMatrices) * k * n, false},
                   {"b_scale", b_vec * 4, false},
                   {"b_zero_point", b_vec, false},
                   {"y_scale", 4, false},
                   {"y_zero_point", 1, false},
                   {"y", static_cast<uint64_t>(t.batch) * m * n * y_bytes, true}};
    for (const auto& x : tensors) {
        GmTensor g;
        g.name = x.name;
        g.bytes = x.bytes;
        g.output = x.output;
        e.tensors.push_back(g);
    }
}

bool PlanQLinearMatMul(const QLinearMatMulRequest& r, QLinearMatMulPlan* plan, ConstraintViolation* v)
{
    SocSpec soc;
    if (!ResolveSoc(r.soc.c_str(), r.overrides, kOp, &soc, v)) {
        return false;
    }
    QLinearMatMulRequestView view;
    view.a_shape = r.a_shape.empty() ? nullptr : &r.a_shape[0];
    view.a_rank = r.a_shape.size();
    view.b_shape = r.b_shape.empty() ? nullptr : &r.b_shape[0];
    view.b_rank = r.b_shape.size();
    view.a_dtype = r.a_dtype;
    view.b_dtype = r.b_dtype;
    view.y_dtype = r.y_dtype;
    view.a_param = r.a_param;
    view.b_param = r.b_param;
    if (!CheckQLinearMatMulRequest(view, soc, v)) {
        return false;
    }
    QLinearMatMulRequest flat;
    QLinearMatMulPlan flat_plan;
    ConstraintViolation flat_v;
    // (A flattened request its path refuses, e.g. under a smaller UB override, is planned as it came.)
    if (FlattenBatchOfA(r, soc, &flat) && PlanQLinearMatMul(flat, &flat_plan, &flat_v)) {
        *plan = std::move(flat_plan);
        if (r.explain) {
            const uint64_t rows = static_cast<uint64_t>(flat.a_shape[0]);
            const uint64_t m = static_cast<uint64_t>(r.a_shape[r.a_shape.size() - 2]);
            plan->explanation.notes.push_back("a's " + Str(rows / m) + " matrices against one b, planned as one a of " +
                                              Str(rows) + " rows (they lie one after the other, as y's do)");
        }
        return true;
    }
    // The float8 cube path reads b as [..., K, N] only (its kernel branch has no transposed form).
    if (r.b_trans && GetDTypeInfo(r.b_dtype).is_float) {
        SetViolation(v, kOp, "b", &soc, "a transposed b (stored [..., N, K]) with float8 operands",
                     "b stored [..., K, N] for float8 operands", std::string("a transposed ") + DTypeName(r.b_dtype) +
                     " b", "pass b contiguous as [..., K, N] (integer operands may be a transposed view)");
        return false;
    }
    const uint32_t y_bytes = DTypeBytes(r.y_dtype);
    MatmulCubeRequest cr;
    cr.op = kOp;
    cr.a_shape = r.a_shape;
    cr.b_shape = r.b_shape;
    cr.b_trans = r.b_trans;
    cr.a_dtype = r.a_dtype;
    cr.b_dtype = r.b_dtype;
    // QLinearMatMul always has both zero points (per tensor, or per row / per column with the scales).
    cr.a_zp = r.a_param == QuantParamKind::ROW ? QMM_PARAM_VECTOR : QMM_PARAM_TENSOR;
    cr.b_zp = r.b_param == QuantParamKind::COLUMN ? QMM_PARAM_VECTOR : QMM_PARAM_TENSOR;
    cr.a_zp_batched = r.a_param_batched;
    cr.b_zp_batched = r.b_param_batched;
    cr.y_bytes = y_bytes;
    cr.epilogue_bytes_per_element = EpilogueBytesPerElement(y_bytes);
    // Fixed epilogue buffers: b's scales (one block row), a's scales (a strip's rows).
    const uint32_t col_f32 = 256 * 4, row_f32 = 256 * 4;
    cr.epilogue_fixed_bytes = col_f32 + row_f32 + 64;
    cr.explain = r.explain;
    MatmulCubePlan cp;
    if (!PlanMatmulCube(cr, soc, &cp, v)) {
        return false;
    }
    QLinearMatMulTiling& t = plan->tiling;
    t = QLinearMatMulTiling();
    CopyMatmulCubeTiling(cp.tiling, &t);
    t.yCode = OperandCode(r.y_dtype);
    const DTypeInfo& yi = GetDTypeInfo(r.y_dtype);
    t.yMax = yi.is_float ? static_cast<float>(yi.quant_max) : 0.0f;
    t.yQMin = yi.is_float ? 0.0f : static_cast<float>(yi.int_min);  // exact in float32 for 8-bit types
    t.yQMax = yi.is_float ? 0.0f : static_cast<float>(yi.int_max);
    t.yNanCode = yi.nan_code;
    t.aParamKind = r.a_param == QuantParamKind::ROW ? 1 : 0;
    t.bParamKind = r.b_param == QuantParamKind::COLUMN ? 1 : 0;
    t.aParamBatchStride = (t.aParamKind != 0 && r.a_param_batched) ? t.m : 0;
    t.bParamBatchStride = (t.bParamKind != 0 && r.b_param_batched) ? t.n : 0;
    const uint32_t elems = cp.epilogue_elements;
    t.ubColF32 = t.cStride * 4;
    t.ubRowF32 = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(t.stripM) * 4, 32));
    t.ubPattern = elems * 4;
    t.ubHalf = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(elems) * 2, 32));
    t.ubYOut = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(elems) * y_bytes, 32));
    plan->cube = QmmCubeTiling(cp.tiling, soc);
    plan->workspace_bytes = cp.workspace_bytes;
    plan->system_workspace_bytes = cp.system_workspace_bytes;
    plan->y_elements = static_cast<uint64_t>(t.batch) * t.m * t.n;
    plan->tiling_key = kQmmTilingKeyCube;
    if (QmmVectorDecodeApplies(r, soc)) {
        // A short a against a uint8 b: the vector cores alone, b read once (no mapped copy for the cube).
        if (!PlanQmmVectorDecode(r, soc, plan, v)) {
            return false;
        }
        if (r.explain) {
            ExplainQmmVectorDecode(r, soc, plan);
        } else {
            plan->explanation = PlanExplanation();
        }
        return true;
    }
    if (QmmCubeDecodeApplies(r, soc, t)) {
        // ascend310p, a short a beyond the vector decode path's rows (or an int8 b too long for it): each core
        // streams its columns of b once through its own cube pipeline.
        if (!PlanQmmCubeDecode(r, soc, plan, v)) {
            return false;
        }
        if (r.explain) {
            ExplainQmmCubeDecode(r, soc, plan);
        } else {
            plan->explanation = PlanExplanation();
        }
        return true;
    }
    if (QmmCubeGemmApplies(r, soc, t)) {
        // ascend310p, a longer a: each core turns its columns of b once, a panel at a time, and streams a past them
        // through its own cube pipeline.
        if (!PlanQmmCubeGemm(r, soc, plan, v)) {
            return false;
        }
        if (r.explain) {
            ExplainQmmCubeGemm(r, soc, plan);
        } else {
            plan->explanation = PlanExplanation();
        }
        return true;
    }
    // The Matmul API path (the paths above take a 64-bit offset where it cannot).
    if (!CheckMatmulApiB(cr, soc, cp.tiling, v)) {
        return false;
    }
    const uint64_t ub_total = static_cast<uint64_t>(cp.ub_bytes) + t.ubColF32 + t.ubRowF32 + 2ull * t.ubPattern +
                              t.ubHalf + 2ull * t.ubYOut - static_cast<uint64_t>(cr.epilogue_fixed_bytes) -
                              static_cast<uint64_t>(cr.epilogue_bytes_per_element) * elems;
    // The same bound as the stage's (KernelUbBytes: the Matmul client's message block, 310p's API area).
    const uint64_t ub_usable = KernelUbBytes(soc, true);
    if (ub_total > ub_usable) {
        SetViolation(v, kOp, "ub_size", &soc, "unified buffer for the QLinearMatMul blocks",
                     ">= " + Str(ub_total) + " bytes", Str(ub_usable) + " bytes",
                     "use the SoC's real UB size (ub_size=None)");
        return false;
    }
    PlanExplanation& e = plan->explanation;
    e = PlanExplanation();
    if (!r.explain) {
        return true;  // the launch path: the tiling only
    }
    const char kindA = t.aParamKind ? 'a' : 0, kindB = t.bParamKind ? 'b' : 0;
    const std::vector<QmmExtraTensor> extra = {
        {"a_scale", 4, kindA, r.a_param_batched, true, false},
        {"a_zero_point", 1, kindA, r.a_param_batched, true, kindA != 0},
        {"b_scale", 4, kindB, r.b_param_batched, true, false},
        {"b_zero_point", 1, kindB, r.b_param_batched, true, kindB != 0},
        {"y_scale", 4, 0, false, true, false},
        {"y_zero_point", 1, 0, false, true, false},
    };
    ExplainMatmulCube(cr, soc, cp, extra, y_bytes, &e);
    // The epilogue's UB buffers follow the stage's (the kernel's InitBuffer order).
    uint32_t o = 0;
    for (const UbBuffer& b : e.ub) {
        o = std::max<uint32_t>(o, b.offset + b.bytes * b.slots);
    }
    const struct {
        const char* name;
        uint32_t bytes, slots;
    } epi[] = {{"b_scale_f32", t.ubColF32, 1}, {"a_scale_f32", t.ubRowF32, 1}, {"multiplier_f32", t.ubPattern, 1},
               {"y_scale_f32", t.ubPattern, 1}, {"half", t.ubHalf, 1},          {"y_out", t.ubYOut, 2}};
    for (const auto& x : epi) {
        AppendUbBuffer(&e.ub, &o, x.name, x.bytes, x.slots);
    }
    if (yi.is_float) {
        e.notes.push_back("float8 y: v = acc * ((a_scale * b_scale) / y_scale) in float32, saturated to +-" +
                          Str(static_cast<uint64_t>(t.yMax)) + ", rounded to nearest even");
    } else {
        e.notes.push_back("requantization on the vector unit in float32, " + Str(t.rowsPerChunk) + " rows x " +
                          Str(t.cStride) + " columns per step: rint(float32(acc) * ((a_scale * b_scale) / y_scale)) "
                          "+ y_zero_point, saturated (not the fixpipe's FP19 dequantization, which differs from ONNX "
                          "by 1 on some outputs)");
    }
    if (t.exactConvert) {
        e.notes.push_back("int32 -> float32 in two exact parts (the low 16 bits and the rest, one rounded addition): the SoC's "
                          "mode-less conversion of values beyond 2^24 rounds in an undocumented way");
    }
    return true;
}

}  // namespace aqo
