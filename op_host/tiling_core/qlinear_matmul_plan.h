// QLinearMatMul tiling plan: how y[..., M, N] = requant((a - a_zp) @ (b - b_zp)) is split over a SoC's cores.
//
// The kernel (op_kernel/aqo_qlinear_matmul.cpp) works on output tiles of baseM x baseN elements of one broadcast
// batch matrix. Tiles are numbered batch-major, then M-block, then N-block (N fastest, so consecutive tiles of a
// core share their rows of a). Every block (cube core; AI core on ascend310p) gets a contiguous range of tiles;
// on split-architecture SoCs (910b, 950) the block's two vector cores split the range into two contiguous parts, and each
// drives the shared cube through the Matmul high-level API. Per tile the kernel
//   1. maps uint8 operands to int8 into its private workspace (v ^ 0x80 computed as v - 128, FACTS 3), because the
//      cube multiplies int8 x int8 (the zero point is lowered by 128, so v - zp is unchanged);
//   2. lets the cube compute P = A' B' (int32, wrapping), RA = A' 1 (row sums) and CB = 1^T B' (column sums);
//      a sum only where the zero points multiplying it are not all 0 on the tile (RA: b's, CB: a's; the kernel
//      reads the zero points, the plan cannot), RA once per run of a worker's tiles on the same rows; CB lands in
//      row 0 of the worker's int32 tile (P in rows 1..; the wsCb region is empty), and with mapped uint8 a it comes
//      with the product from a ones row placed before the mapped rows (no second read of b);
//   3. requantizes on the vector unit: acc = P - zb * (RA - K * za) - za * CB (int32, exact mod 2^32, seed 002),
//      y = saturate(rint(float32(acc) * ((a_scale * b_scale) / y_scale)) + y_zp), one row of the tile at a time;
//   4. writes each row segment of y. Without DataCopyPad (ascend310p) a segment ending in a partial 32-byte block
//      goes as its whole blocks plus the block ending at its end (DMA, a few of its own bytes written twice; the
//      y UB slot has one spare block for it); the plan's baseN keeps every such segment >= 32 bytes wide, or, when
//      no baseN can (N < 32, or 840 | N / 32), runs the op on one core, which stores those bytes with the scalar unit.
// Everything the kernel sizes comes in QLinearMatMulTiling; the plan's explanation lists the same buffers.
//
// C++11: included by the CANN op_host adapter (op_host/aqo_qlinear_matmul.cpp).
#ifndef AQO_TILING_CORE_QLINEAR_MATMUL_PLAN_H
#define AQO_TILING_CORE_QLINEAR_MATMUL_PLAN_H

#include <cstdint>
#include <string>
#include <vector>

#include "constraints.h"
#include "dtype_table.h"
#include "plan_common.h"
#include "qlinear_matmul_tiling_fields.h"
#include "soc_table.h"
#include "tiling_fields.h"

namespace aqo {

// The broadcast batch rank the kernel tiling carries (deeper batches are refused by the plan).
const uint32_t kQmmMaxBatchRank = AQO_QMM_MAX_BATCH_RANK;

// Operand codes in the kernel tiling (the kernel cannot read the dtype table).
enum QmmOperandCode : uint32_t { QMM_INT8 = 0, QMM_UINT8 = 1, QMM_FLOAT8_E4M3FN = 2, QMM_FLOAT8_E5M2 = 3 };

struct QLinearMatMulRequest {
    std::vector<int64_t> a_shape;  // [..., M, K] (1-D operands are promoted by the caller: [K] -> [1, K])
    std::vector<int64_t> b_shape;  // [..., K, N] ([K] -> [K, 1])
    DType a_dtype = DType::INT8;
    DType b_dtype = DType::INT8;
    DType y_dtype = DType::INT8;
    QuantParamKind a_param = QuantParamKind::TENSOR;  // TENSOR | ROW
    QuantParamKind b_param = QuantParamKind::TENSOR;  // TENSOR | COLUMN
    // Per-row / per-column parameters laid out with the operand's batch dims ([batch_a..., M] / [batch_b..., N]);
    // false: one [M] / [N] vector shared by every batch matrix.
    bool a_param_batched = false;
    bool b_param_batched = false;
    std::string soc = "ascend910b";
    SocOverrides overrides;
    // false: the tiling only, no PlanExplanation (no strings, no vectors): what the CANN TilingFunc asks on every
    // launch, O(1) in the tile count. Python and the validation scripts keep the default.
    bool explain = true;
};

// The kernel's tiling: the fields of qlinear_matmul_tiling_fields.h (the one definition; CANN's tiling-data class
// optiling::AqoQLinearMatMulTilingData expands the same list after the Matmul API's TCubeTiling).
struct QLinearMatMulTiling {
    AQO_QLINEAR_MATMUL_TILING_FIELDS(AQO_TILING_STRUCT_FIELD, AQO_TILING_STRUCT_ARRAY)
};

struct QLinearMatMulPlan {
    QLinearMatMulTiling tiling;
    PlanExplanation explanation;
    uint64_t workspace_bytes = 0;  // user workspace (all workers), after the system workspace
    // The SoC's system workspace (framework, Matmul API messages) that the launch reserves before the user part
    // (SoC table default; a TilingFunc adds the device's GetLibApiWorkSpaceSize instead).
    uint64_t system_workspace_bytes = 0;
    uint64_t y_elements = 0;
};

// Plans the request; false with a complete violation when the request is not supported on the SoC or does not
// fit (tile buffers in UB, sizes in the tiling's 32-bit fields).
bool PlanQLinearMatMul(const QLinearMatMulRequest& request, QLinearMatMulPlan* plan,
                       ConstraintViolation* violation);

// The broadcast batch matrix `index` of y (row-major over batchDims) as matrix indices of a and b.
inline void QmmBatchOperands(const QLinearMatMulTiling& t, uint64_t index, uint64_t* a_index, uint64_t* b_index)
{
    uint64_t ai = 0, bi = 0;
    for (uint32_t d = t.batchRank; d-- > 0;) {
        const uint64_t i = index % t.batchDims[d];
        index /= t.batchDims[d];
        ai += i * t.aBatchStrides[d];
        bi += i * t.bBatchStrides[d];
    }
    *a_index = ai;
    *b_index = bi;
}

// Copies the plan's tiling into the tiling-data class of op_host/aqo_qlinear_matmul_tiling.h (CANN's generated
// class or the emulator's plain struct: both have set_<field>); the one fill shared by the CANN TilingFunc and
// the emulator runner. The cubeTiling member is filled by the caller (CANN: MultiCoreMatmulTiling).
template <class TilingData>
void FillQLinearMatMulTilingData(const QLinearMatMulTiling& t, TilingData* td)
{
    AQO_QLINEAR_MATMUL_TILING_FIELDS(AQO_TILING_FILL_FIELD, AQO_TILING_FILL_ARRAY)
}

}  // namespace aqo

#endif  // AQO_TILING_CORE_QLINEAR_MATMUL_PLAN_H
