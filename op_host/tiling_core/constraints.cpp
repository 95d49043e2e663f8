#include "constraints.h"

#include <string>

namespace aqo {
namespace {

typedef DTypeSet SocSpec::*DTypeSetField;

// "ascend910b or ascend910_95": the canonical SoCs whose `field` contains `t`; empty when none.
std::string SocsSupporting(DTypeSetField field, DType t)
{
    size_t n = 0;
    const SocSpec* table = SocTable(&n);
    std::string names;
    size_t found = 0;
    for (size_t i = 0; i < n; ++i) {
        if (DTypeSetHas(table[i].*field, t)) {
            ++found;
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!DTypeSetHas(table[i].*field, t)) {
            continue;
        }
        ++k;
        if (k > 1) {
            names += (k == found) ? " or " : ", ";
        }
        names += table[i].name;
    }
    return names;
}

// The union of `field` over every SoC: what the operator accepts anywhere.
DTypeSet UnionOverSocs(DTypeSetField field)
{
    size_t n = 0;
    const SocSpec* table = SocTable(&n);
    DTypeSet s = 0;
    for (size_t i = 0; i < n; ++i) {
        s |= table[i].*field;
    }
    return s;
}

bool IsFnuz(DType t) { return t == DType::FLOAT8_E4M3FNUZ || t == DType::FLOAT8_E5M2FNUZ; }
bool IsFloat8(DType t)
{
    return t == DType::FLOAT8_E4M3FN || t == DType::FLOAT8_E5M2 || IsFnuz(t);
}

// A dtype refusal: names what this SoC accepts and which SoC would accept the given type.
bool RefuseDType(ConstraintViolation* v, OpKind op, const char* argument, const char* what, const SocSpec& soc,
                 DTypeSetField field, DType actual)
{
    const DTypeSet here = soc.*field;
    std::string suggestion = std::string(soc.name) + " supports " + DTypeSetText(here) + " " + what;
    const std::string elsewhere = SocsSupporting(field, actual);
    if (IsFnuz(actual)) {
        suggestion += "; " + std::string(DTypeName(actual)) +
                      " runs on no NPU: only the CPU golden implements it (backend='cpu' without soc)";
    } else if (!elsewhere.empty()) {
        suggestion += "; " + std::string(DTypeName(actual)) + " " + what + " needs " + elsewhere;
    } else {
        suggestion += "; " + std::string(OpName(op)) + " accepts " + DTypeSetText(UnionOverSocs(field)) + " " +
                      what + " on some SoC";
    }
    SetViolation(v, op, argument, &soc, std::string(what) + " dtype", DTypeSetText(here), DTypeName(actual),
                 suggestion, /*is_dtype=*/true);
    return false;
}

// Checks dims are non-negative and the tensor's bytes (elem_bytes each) stay within kMaxTensorBytes. `argument` is
// the request argument the shape comes from, `tensor` the tensor it describes (they differ for outputs: scale's
// shape is x's leading dims).
bool CheckDims(ConstraintViolation* v, OpKind op, const char* argument, const SocSpec& soc, const int64_t* shape,
               size_t rank, uint64_t elem_bytes, const std::string& tensor)
{
    for (size_t i = 0; i < rank; ++i) {
        if (shape[i] < 0) {
            SetViolation(v, op, argument, &soc, std::string("dimension ") + std::to_string(i) + " of " + argument,
                         ">= 0", std::to_string(shape[i]) + " in " + ShapeText(shape, rank),
                         "dimensions are element counts; use 0 for an empty axis");
            return false;
        }
    }
    uint64_t bytes = 0;
    if (!ProductWithin(shape, rank, elem_bytes, kMaxTensorBytes, &bytes)) {
        SetViolation(v, op, argument, &soc, "bytes of " + tensor,
                     "<= 2^48 (" + std::to_string(kMaxTensorBytes) + ")",
                     ShapeText(shape, rank) + " x " + std::to_string(elem_bytes) + " bytes: more than 2^48 bytes",
                     "split the tensor into smaller launches");
        return false;
    }
    return true;
}

}  // namespace

bool ProductWithin(const int64_t* dims, size_t count, uint64_t scale, uint64_t limit, uint64_t* product)
{
    for (size_t i = 0; i < count; ++i) {
        if (dims[i] == 0) {
            *product = 0;
            return true;
        }
    }
    uint64_t p = scale;
    for (size_t i = 0; i < count; ++i) {
        const uint64_t d = dims[i] < 0 ? 0 : static_cast<uint64_t>(dims[i]);
        if (p != 0 && d > limit / p) {
            *product = limit;
            return false;
        }
        p *= d;
    }
    *product = p;
    return p <= limit;
}

void SetViolation(ConstraintViolation* violation, OpKind op, const char* argument, const SocSpec* soc,
                  const std::string& constraint, const std::string& limit, const std::string& actual,
                  const std::string& suggestion, bool is_dtype)
{
    if (violation == nullptr) {
        return;
    }
    violation->op = OpName(op);
    violation->argument = argument;
    violation->soc = soc != nullptr ? soc->name : "";
    violation->constraint = constraint;
    violation->limit = limit;
    violation->actual = actual;
    violation->suggestion = suggestion;
    violation->is_dtype = is_dtype;
}

std::string ShapeText(const int64_t* shape, size_t rank)
{
    std::string s = "[";
    for (size_t i = 0; i < rank; ++i) {
        if (i != 0) {
            s += ", ";
        }
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

bool QuantParamKindFromName(const char* name, QuantParamKind* out)
{
    const std::string s = name == nullptr ? std::string() : std::string(name);
    if (s == "tensor") {
        *out = QuantParamKind::TENSOR;
    } else if (s == "row") {
        *out = QuantParamKind::ROW;
    } else if (s == "column") {
        *out = QuantParamKind::COLUMN;
    } else {
        return false;
    }
    return true;
}

const char* QuantParamKindName(QuantParamKind k)
{
    switch (k) {
        case QuantParamKind::TENSOR: return "tensor";
        case QuantParamKind::ROW: return "row";
        case QuantParamKind::COLUMN: return "column";
    }
    return "unknown";
}

bool CheckDynamicQuantRequest(const DynamicQuantRequestView& r, const SocSpec& soc, ConstraintViolation* v)
{
    const OpKind op = OpKind::DYNAMIC_QUANT;
    if (r.rank < soc.dq_min_rank) {
        std::string suggestion;
        if (r.rank == 1) {
            suggestion = "reshape x to [1, " + std::to_string(r.shape[0]) + "] to quantize it as one row";
        } else {
            suggestion = "reshape x to [1, 1] to quantize a scalar as one row";
        }
        SetViolation(v, op, "x", &soc, "rank of x (the last axis is quantized per row of the others)",
                     ">= " + std::to_string(soc.dq_min_rank),
                     std::to_string(r.rank) + " (shape " + ShapeText(r.shape, r.rank) + ")", suggestion);
        return false;
    }
    // x and y, and the scale output of shape x.shape[:-1], which has rows even when the tail axis is empty.
    if (!CheckDims(v, op, "x", soc, r.shape, r.rank, static_cast<uint64_t>(DTypeBytes(r.x_dtype)), "x") ||
        !CheckDims(v, op, "x", soc, r.shape, r.rank, static_cast<uint64_t>(DTypeBytes(r.dst_type)), "y") ||
        !CheckDims(v, op, "x", soc, r.shape, r.rank - 1, sizeof(float),
                   "the scale output (float32, shape x.shape[:-1])")) {
        return false;
    }
    if (!DTypeSetHas(soc.dq_x_dtypes, r.x_dtype)) {
        return RefuseDType(v, op, "x", "x", soc, &SocSpec::dq_x_dtypes, r.x_dtype);
    }
    // The asymmetric modes have their own dst types (uint8 only there: its zero point makes the unsigned range
    // usable); the symmetric one the SoC's DynamicQuant outputs.
    if (r.asymmetric) {
        if (soc.dq_asymmetric_dst_dtypes == 0) {
            SetViolation(v, op, "asymmetric", &soc, "asymmetric quantization is not implemented by the kernel",
                         "False", "True",
                         "use asymmetric=False; the CPU golden (backend='cpu' without soc) implements asymmetric");
            return false;
        }
        if (!DTypeSetHas(soc.dq_asymmetric_dst_dtypes, r.dst_type)) {
            return RefuseDType(v, op, "dst_type", "dst_type (asymmetric)", soc, &SocSpec::dq_asymmetric_dst_dtypes,
                               r.dst_type);
        }
    } else if (!DTypeSetHas(soc.dq_dst_dtypes, r.dst_type)) {
        if (DTypeSetHas(soc.dq_asymmetric_dst_dtypes, r.dst_type)) {
            SetViolation(v, op, "dst_type", &soc, "dst_type of the symmetric mode (" +
                         std::string(DTypeName(r.dst_type)) + " is an output of the asymmetric mode only: its zero "
                         "point makes the unsigned range usable)", DTypeSetText(soc.dq_dst_dtypes),
                         DTypeName(r.dst_type), "pass asymmetric=True, or a symmetric dst_type",
                         /*is_dtype=*/true);
            return false;
        }
        return RefuseDType(v, op, "dst_type", "dst_type", soc, &SocSpec::dq_dst_dtypes, r.dst_type);
    }
    if (r.smooth && !soc.dq_smooth_implemented) {
        SetViolation(v, op, "smooth_scales", &soc, "smooth_scales are not implemented by the kernel", "None",
                     "given", "multiply x by smooth_scales before calling dynamic_quant");
        return false;
    }
    const int64_t tail = r.shape[r.rank - 1];
    const uint32_t max_tail = DynamicQuantMaxTail(soc, r.x_dtype);
    if (max_tail != 0 && tail > static_cast<int64_t>(max_tail)) {
        const std::string dt = DTypeName(r.x_dtype);
        std::string suggestion = "largest " + dt + " tail on " + soc.name + " is " + std::to_string(max_tail);
        // Name a SoC without the limit when there is one that takes this dtype.
        size_t n = 0;
        const SocSpec* table = SocTable(&n);
        for (size_t i = 0; i < n; ++i) {
            if (DTypeSetHas(table[i].dq_x_dtypes, r.x_dtype) && DynamicQuantMaxTail(table[i], r.x_dtype) == 0 &&
                table[i].dq_tail_multiple <= 1) {
                suggestion += std::string("; ") + table[i].name + " has no tail limit";
                break;
            }
        }
        SetViolation(v, op, "x", &soc, dt + " tail axis length (last dim of x; the limit ATB's DynamicQuant documents)",
                     "<= " + std::to_string(max_tail), std::to_string(tail), suggestion);
        return false;
    }
    if (soc.dq_tail_multiple > 1 && tail % soc.dq_tail_multiple != 0) {
        const int64_t m = soc.dq_tail_multiple;
        const int64_t below = tail / m * m;
        int64_t above = below + m;
        std::string suggestion = "nearest multiples of " + std::to_string(m) + " are ";
        if (max_tail != 0 && above > static_cast<int64_t>(max_tail)) {
            suggestion += std::to_string(below);
        } else if (below == 0) {
            suggestion += std::to_string(above);
        } else {
            suggestion += std::to_string(below) + " and " + std::to_string(above);
        }
        suggestion += "; pad the last axis with zeros (zeros do not change the row maximum)";
        SetViolation(v, op, "x", &soc,
                     std::string("tail axis length (last dim of x) alignment: ") + soc.name +
                         " has no DataCopyPad (ATB's DynamicQuant documents 32-aligned tails there)",
                     "multiple of " + std::to_string(m), std::to_string(tail), suggestion);
        return false;
    }
    return true;
}

bool BroadcastBatchDims(const int64_t* a_shape, size_t a_rank, const int64_t* b_shape, size_t b_rank,
                        int64_t* out_dims, size_t* out_rank)
{
    const size_t ab = a_rank >= 2 ? a_rank - 2 : 0;
    const size_t bb = b_rank >= 2 ? b_rank - 2 : 0;
    const size_t n = ab > bb ? ab : bb;
    if (n > kMaxBatchRank) {
        return false;
    }
    for (size_t i = 0; i < n; ++i) {
        // Right-aligned: i counts from the innermost batch dim.
        const int64_t da = i < ab ? a_shape[ab - 1 - i] : 1;
        const int64_t db = i < bb ? b_shape[bb - 1 - i] : 1;
        int64_t d = 0;
        if (da == db || db == 1) {
            d = da;
        } else if (da == 1) {
            d = db;
        } else {
            return false;
        }
        if (out_dims != nullptr) {
            out_dims[n - 1 - i] = d;
        }
    }
    if (out_rank != nullptr) {
        *out_rank = n;
    }
    return true;
}

namespace {

// The matrix-product shape rules both matmuls share: ranks >= 2, dims, K of a equals K of b, batch dims broadcast,
// the output addressable (y_bytes per element).
bool CheckMatmulShapes(OpKind op, const int64_t* a_shape, size_t a_rank, const int64_t* b_shape, size_t b_rank,
                       DType a_dtype, DType b_dtype, uint32_t y_bytes, const SocSpec& soc, ConstraintViolation* v)
{
    struct {
        const int64_t* a_shape;
        size_t a_rank;
        const int64_t* b_shape;
        size_t b_rank;
        DType a_dtype, b_dtype;
    } r = {a_shape, a_rank, b_shape, b_rank, a_dtype, b_dtype};
    if (r.a_rank < 2) {
        SetViolation(v, op, "a", &soc, "rank of a (the NPU kernel takes [..., M, K])", ">= 2",
                     std::to_string(r.a_rank) + " (shape " + ShapeText(r.a_shape, r.a_rank) + ")",
                     r.a_rank == 1 ? "reshape a to [1, " + std::to_string(r.a_shape[0]) + "] (numpy matmul promotion)"
                                   : std::string("reshape a to [1, 1]"));
        return false;
    }
    if (r.b_rank < 2) {
        SetViolation(v, op, "b", &soc, "rank of b (the NPU kernel takes [..., K, N])", ">= 2",
                     std::to_string(r.b_rank) + " (shape " + ShapeText(r.b_shape, r.b_rank) + ")",
                     r.b_rank == 1 ? "reshape b to [" + std::to_string(r.b_shape[0]) + ", 1] (numpy matmul promotion)"
                                   : std::string("reshape b to [1, 1]"));
        return false;
    }
    if (!CheckDims(v, op, "a", soc, r.a_shape, r.a_rank, static_cast<uint64_t>(DTypeBytes(r.a_dtype)), "a") ||
        !CheckDims(v, op, "b", soc, r.b_shape, r.b_rank, static_cast<uint64_t>(DTypeBytes(r.b_dtype)), "b")) {
        return false;
    }
    const int64_t ka = r.a_shape[r.a_rank - 1];
    const int64_t kb = r.b_shape[r.b_rank - 2];
    if (ka != kb) {
        SetViolation(v, op, "b", &soc, "inner dimensions: b[-2] must equal a[-1] (K)", "b[-2] == " + std::to_string(ka),
                     std::to_string(kb) + " (a " + ShapeText(r.a_shape, r.a_rank) + ", b " +
                         ShapeText(r.b_shape, r.b_rank) + ")",
                     "b must be [..., " + std::to_string(ka) + ", N]; transpose b if it is stored [N, K]");
        return false;
    }
    int64_t batch[kMaxBatchRank];
    size_t batch_rank = 0;
    if (!BroadcastBatchDims(r.a_shape, r.a_rank, r.b_shape, r.b_rank, batch, &batch_rank)) {
        const bool too_deep = (r.a_rank - 2 > kMaxBatchRank) || (r.b_rank - 2 > kMaxBatchRank);
        if (too_deep) {
            SetViolation(v, op, r.a_rank > r.b_rank ? "a" : "b", &soc, "number of batch dimensions",
                         "<= " + std::to_string(kMaxBatchRank),
                         std::to_string((r.a_rank > r.b_rank ? r.a_rank : r.b_rank) - 2),
                         "merge batch dimensions by reshaping");
        } else {
            SetViolation(v, op, "b", &soc, "batch dimensions of a and b must broadcast (numpy rules: equal or 1)",
                         "each batch dim equal or 1",
                         "a " + ShapeText(r.a_shape, r.a_rank) + ", b " + ShapeText(r.b_shape, r.b_rank),
                         "make each pair of batch dims equal, or 1 on one side");
        }
        return false;
    }
    // The output y = [batch..., M, N] must be addressable too, also when a or b is empty (K = 0: y is y_zero_point).
    {
        int64_t y_shape[kMaxBatchRank + 2];
        for (size_t i = 0; i < batch_rank; ++i) {
            y_shape[i] = batch[i];
        }
        y_shape[batch_rank] = r.a_shape[r.a_rank - 2];
        y_shape[batch_rank + 1] = r.b_shape[r.b_rank - 1];
        if (!CheckDims(v, op, r.a_rank >= r.b_rank ? "a" : "b", soc, y_shape, batch_rank + 2,
                       static_cast<uint64_t>(y_bytes), "the output y (broadcast batch x M x N)")) {
            return false;
        }
    }
    return true;
}

}  // namespace

bool CheckQLinearMatMulRequest(const QLinearMatMulRequestView& r, const SocSpec& soc, ConstraintViolation* v)
{
    const OpKind op = OpKind::QLINEAR_MATMUL;
    if (!CheckMatmulShapes(op, r.a_shape, r.a_rank, r.b_shape, r.b_rank, r.a_dtype, r.b_dtype,
                           static_cast<uint32_t>(DTypeBytes(r.y_dtype)), soc, v)) {
        return false;
    }
    if (r.a_param != QuantParamKind::TENSOR && r.a_param != QuantParamKind::ROW) {
        SetViolation(v, op, "a_param", &soc, "granularity of a_scale / a_zero_point (ONNX QLinearMatMul)", "tensor | row",
                     QuantParamKindName(r.a_param), "a's parameters are per tensor or per row of a (M)");
        return false;
    }
    if (r.b_param != QuantParamKind::TENSOR && r.b_param != QuantParamKind::COLUMN) {
        SetViolation(v, op, "b_param", &soc, "granularity of b_scale / b_zero_point (ONNX QLinearMatMul)", "tensor | column",
                     QuantParamKindName(r.b_param), "b's parameters are per tensor or per column of b (N)");
        return false;
    }
    if (!DTypeSetHas(soc.qmm_a_dtypes, r.a_dtype)) {
        return RefuseDType(v, op, "a", "a", soc, &SocSpec::qmm_a_dtypes, r.a_dtype);
    }
    if (!DTypeSetHas(soc.qmm_b_dtypes, r.b_dtype)) {
        return RefuseDType(v, op, "b", "b", soc, &SocSpec::qmm_b_dtypes, r.b_dtype);
    }
    if (!DTypeSetHas(soc.qmm_y_dtypes, r.y_dtype)) {
        return RefuseDType(v, op, "y", "y", soc, &SocSpec::qmm_y_dtypes, r.y_dtype);
    }
    if (!soc.qmm_mixed_int_float8 && IsFloat8(r.a_dtype) != IsFloat8(r.b_dtype)) {
        SetViolation(v, op, "b", &soc,
                     "a and b must both be integer or both float8 (the cube multiplies int8 x int8 or "
                     "float8 x float8)",
                     std::string(IsFloat8(r.a_dtype) ? "float8_e4m3fn | float8_e5m2" : "int8 | uint8") +
                         " b with " + DTypeName(r.a_dtype) + " a",
                     DTypeName(r.b_dtype),
                     std::string("quantize b to ") + (IsFloat8(r.a_dtype) ? "a float8 type" : "int8 or uint8") +
                         ", or a to match b",
                     /*is_dtype=*/true);
        return false;
    }
    return true;
}

bool CheckQuantMatMulRequest(const QuantMatMulRequestView& r, const SocSpec& soc, ConstraintViolation* v)
{
    const OpKind op = OpKind::QUANT_MATMUL;
    if (soc.quant_matmul_out_dtypes == 0) {
        SetViolation(v, op, "soc", &soc, "a quant_matmul kernel for the SoC", "a SoC with one",
                     std::string(soc.name) + " has none",
                     "use backend='cpu' without soc= (the exact CPU reference)");
        return false;
    }
    if (!CheckMatmulShapes(op, r.a_shape, r.a_rank, r.b_shape, r.b_rank, r.a_dtype, r.b_dtype,
                           static_cast<uint32_t>(DTypeBytes(r.out_dtype)), soc, v)) {
        return false;
    }
    const DTypeSet ints = DTypeBit(DType::INT8) | DTypeBit(DType::UINT8);
    if (!DTypeSetHas(soc.qmm_a_dtypes & ints, r.a_dtype)) {
        SetViolation(v, op, "a", &soc, "a dtype", DTypeSetText(soc.qmm_a_dtypes & ints), DTypeName(r.a_dtype),
                     "quantize a to int8 or uint8", /*is_dtype=*/true);
        return false;
    }
    if (!DTypeSetHas(soc.qmm_b_dtypes & ints, r.b_dtype)) {
        SetViolation(v, op, "b", &soc, "b dtype", DTypeSetText(soc.qmm_b_dtypes & ints), DTypeName(r.b_dtype),
                     "quantize b to int8 or uint8", /*is_dtype=*/true);
        return false;
    }
    if (!DTypeSetHas(soc.quant_matmul_out_dtypes, r.out_dtype)) {
        return RefuseDType(v, op, "out_dtype", "output", soc, &SocSpec::quant_matmul_out_dtypes, r.out_dtype);
    }
    return true;
}

}  // namespace aqo
