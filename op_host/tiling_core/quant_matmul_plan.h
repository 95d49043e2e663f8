// quant_matmul tiling plan: how y[..., M, N] = out_dtype(float32(acc) * float32(a_scale * b_scale) + bias), with
// acc = (a - a_zp) @ (b - b_zp) wrapped to int32 (python/ascend_quant_ops/golden/quant_matmul.py, the definition), is
// split over a SoC's cores.
//
// The products come from the cube stage shared with AqoQLinearMatMul (matmul_cube_plan.h: blocks of y, cube calls,
// operand preparation, the zero-point sums); this plan adds the float epilogue's buffers and parameters (kernel:
// op_kernel/aqo_qmm_float_epilogue.h) and writes each block's y rows by DMA like QLinearMatMul's.
//
// C++11: included by the CANN op_host adapter (op_host/aqo_quant_matmul.cpp).
#ifndef AQO_TILING_CORE_QUANT_MATMUL_PLAN_H
#define AQO_TILING_CORE_QUANT_MATMUL_PLAN_H

#include <cstdint>
#include <string>
#include <vector>

#include "constraints.h"
#include "dtype_table.h"
#include "matmul_cube_plan.h"
#include "plan_common.h"
#include "quant_matmul_tiling_fields.h"
#include "soc_table.h"
#include "tiling_fields.h"

namespace aqo {

// Output codes in the kernel tiling.
enum QmmOutCode : uint32_t { QMM_OUT_FLOAT32 = 0, QMM_OUT_FLOAT16 = 1, QMM_OUT_BFLOAT16 = 2 };

struct QuantMatMulRequest {
    std::vector<int64_t> a_shape;  // [..., M, K] (1-D operands promoted by the caller)
    std::vector<int64_t> b_shape;  // [..., K, N]: the product's view of b
    bool b_trans = false;          // b stored [..., N, K] (a transposed view of an [N, K] weight): read so, no copy
    DType a_dtype = DType::INT8;
    DType b_dtype = DType::INT8;
    DType out_dtype = DType::FLOAT32;
    // Layouts, each parameter its own: scales per tensor or per row (a) / per column (b); zero points absent, per
    // tensor or per row / column (QmmParamKind); bias absent, per tensor or per column.
    bool a_scale_row = false;
    bool b_scale_column = false;
    uint32_t a_zp = QMM_PARAM_NONE;
    uint32_t b_zp = QMM_PARAM_NONE;
    uint32_t bias = QMM_PARAM_NONE;
    // Per-row / per-column vectors laid out with the operand's batch dims (bias: with y's); false: one vector for all.
    // a_param_batched / b_param_batched: the scales'; the zero points' are their own (a scale and its zero point
    // choose their layouts independently).
    bool a_param_batched = false;
    bool b_param_batched = false;
    bool a_zp_batched = false;
    bool b_zp_batched = false;
    bool bias_batched = false;
    std::string soc = "ascend910b";
    SocOverrides overrides;
    bool explain = true;  // false: the tiling only (the launch path)
};

struct QuantMatMulTiling {
    AQO_QUANT_MATMUL_TILING_FIELDS(AQO_TILING_STRUCT_FIELD, AQO_TILING_STRUCT_ARRAY)
};

struct QuantMatMulPlan {
    QuantMatMulTiling tiling;
    QmmCubeTilingValues cube;  // the Matmul API's TCubeTiling (the CANN adapter and the emulator copy it)
    PlanExplanation explanation;
    uint64_t workspace_bytes = 0;
    uint64_t system_workspace_bytes = 0;
    uint64_t y_elements = 0;
};

bool PlanQuantMatMul(const QuantMatMulRequest& request, QuantMatMulPlan* plan, ConstraintViolation* violation);

// The layout a parameter tensor's shape gives (the CANN operators' TilingFuncs see shapes only; QuantMatMul's and
// QLinearMatMul's parameters alike). row: a's parameters (per row: len = M, batch = a's batch dims); else b's (per
// column: len = N, b's batch dims) or the bias (len = N, y's batch dims). Accepted, leading 1s ignored: one element
// (per tensor); one vector for every matrix, [len] or [len, 1] (row) / [1, len] (column); one vector per batch
// matrix, batch + [len, 1] (row; also batch + [len] where flat_rows_batched) / batch + [1, len] (column). Anything
// else is refused with a violation of `op`: the kernel would read past the tensor's end or read it as another layout.
struct QmmParamShape {
    uint32_t kind = QMM_PARAM_NONE;  // QMM_PARAM_TENSOR or QMM_PARAM_VECTOR
    bool batched = false;
};
bool ClassifyMatMulParam(const char* name, const std::vector<int64_t>& dims, bool row, int64_t len,
                         const std::vector<int64_t>& batch, const std::string& soc, QmmParamShape* out,
                         ConstraintViolation* violation, OpKind op = OpKind::QUANT_MATMUL,
                         bool flat_rows_batched = true);

// Copies the plan's tiling into the tiling-data class of op_host/aqo_quant_matmul_tiling.h (CANN's or the
// emulator's); the cubeTiling member is filled by the caller from plan.cube.
template <class TilingData>
void FillQuantMatMulTilingData(const QuantMatMulTiling& t, TilingData* td)
{
    AQO_QUANT_MATMUL_TILING_FIELDS(AQO_TILING_FILL_FIELD, AQO_TILING_FILL_ARRAY)
}

}  // namespace aqo

#endif  // AQO_TILING_CORE_QUANT_MATMUL_PLAN_H
