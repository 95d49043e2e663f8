// Request-level constraint checks shared by the plans: everything the SoC table and the documented limits say about
// a request before any buffer is sized (rank, dtypes per SoC, documented tail limits, unimplemented modes, shapes that
// cannot broadcast). A plan calls the check first; when it fails, the violation is complete (op, argument, soc,
// constraint, limit, actual, suggestion, is_dtype) and the plan returns it unchanged.
//
// C++11: included by the CANN op_host adapters.
#ifndef AQO_TILING_CORE_CONSTRAINTS_H
#define AQO_TILING_CORE_CONSTRAINTS_H

#include <cstddef>
#include <cstdint>
#include <string>

#include "dtype_table.h"
#include "plan_common.h"
#include "soc_table.h"

namespace aqo {

// The largest tensor, in bytes, a plan accepts, for every tensor of the op (inputs and outputs, also when another
// tensor of the op is empty: x of shape [2^24, 2^24, 0] is empty, its scale output is not). Far above any device
// memory, and small enough that no size or byte offset a plan or kernel computes from the shapes (products with
// element sizes, 32-byte round-ups, tile counts) can overflow 64 bits.
const uint64_t kMaxTensorBytes = static_cast<uint64_t>(1) << 48;

// The product of `count` dims times `scale`, or false when it exceeds `limit` (the product saturates instead of
// wrapping, whatever the dims; an empty dim gives 0).
bool ProductWithin(const int64_t* dims, size_t count, uint64_t scale, uint64_t limit, uint64_t* product);

// A DynamicQuant request as the checks see it; the plans build it from their own request struct.
struct DynamicQuantRequestView {
    const int64_t* shape = nullptr;  // x shape, `rank` entries
    size_t rank = 0;
    DType x_dtype = DType::FLOAT16;
    DType dst_type = DType::INT8;
    bool smooth = false;      // smooth_scales [H] given
    bool asymmetric = false;  // asymmetric quantization requested (offset output)
};

// Quantization parameter granularity of QLinearMatMul (docs/references.md#onnx-qlinearmatmul): per tensor, per row
// of a, per column of b.
enum class QuantParamKind : int32_t { TENSOR = 0, ROW, COLUMN };
// "tensor" | "row" | "column"; false when the name is unknown.
bool QuantParamKindFromName(const char* name, QuantParamKind* out);
const char* QuantParamKindName(QuantParamKind k);

struct QLinearMatMulRequestView {
    const int64_t* a_shape = nullptr;  // [..., M, K]
    size_t a_rank = 0;
    const int64_t* b_shape = nullptr;  // [..., K, N]
    size_t b_rank = 0;
    DType a_dtype = DType::INT8;
    DType b_dtype = DType::INT8;
    DType y_dtype = DType::INT8;
    QuantParamKind a_param = QuantParamKind::TENSOR;  // TENSOR | ROW
    QuantParamKind b_param = QuantParamKind::TENSOR;  // TENSOR | COLUMN
};

// True when the request is within what `soc` supports; otherwise fills *violation completely and returns false.
// Checks, in this order: rank, dims (non-negative, size), x dtype, dst_type, asymmetric, smooth, tail limit,
// tail multiple.
bool CheckDynamicQuantRequest(const DynamicQuantRequestView& request, const SocSpec& soc,
                              ConstraintViolation* violation);

// Checks, in this order: ranks (>= 2), dims, K of a equals K of b, batch dims broadcast, parameter kinds, dtypes
// of a, b, y per SoC (fnuz float8: CPU only), integer / float8 operands not mixed.
bool CheckQLinearMatMulRequest(const QLinearMatMulRequestView& request, const SocSpec& soc,
                               ConstraintViolation* violation);

struct QuantMatMulRequestView {
    const int64_t* a_shape = nullptr;  // [..., M, K]
    size_t a_rank = 0;
    const int64_t* b_shape = nullptr;  // [..., K, N] (the product's view of b)
    size_t b_rank = 0;
    DType a_dtype = DType::INT8;
    DType b_dtype = DType::INT8;
    DType out_dtype = DType::FLOAT32;
};

// quant_matmul: the SoC has the kernel, the shapes as for QLinearMatMul, a and b int8 / uint8, the output type one
// of the SoC's quant_matmul_out_dtypes.
bool CheckQuantMatMulRequest(const QuantMatMulRequestView& request, const SocSpec& soc,
                             ConstraintViolation* violation);

// Fills every field of a violation (a helper for the plans' own refusals, e.g. "does not fit in UB").
void SetViolation(ConstraintViolation* violation, OpKind op, const char* argument, const SocSpec* soc,
                  const std::string& constraint, const std::string& limit, const std::string& actual,
                  const std::string& suggestion, bool is_dtype = false);

// Broadcast batch dims of a and b (numpy rules on a[:-2], b[:-2]); false when they do not broadcast. Shared by
// the check and the QLinearMatMul plan. *out_rank gets the broadcast batch rank (<= kMaxBatchRank).
const size_t kMaxBatchRank = 16;
bool BroadcastBatchDims(const int64_t* a_shape, size_t a_rank, const int64_t* b_shape, size_t b_rank,
                        int64_t* out_dims, size_t* out_rank);

// "[2, 3, 4]"
std::string ShapeText(const int64_t* shape, size_t rank);

}  // namespace aqo

#endif  // AQO_TILING_CORE_CONSTRAINTS_H
