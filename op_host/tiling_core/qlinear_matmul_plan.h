// QLinearMatMul tiling plan: how y[..., M, N] = requant((a - a_zp) @ (b - b_zp)) is split over a SoC's cores.
//
// The products come from the cube stage shared with AqoQuantMatMul (matmul_cube_plan.h: blocks of y, cube calls,
// operand preparation, the zero-point sums); this plan adds the requantization epilogue's buffers and parameters:
//   y = saturate(rint(float32(acc) * ((a_scale * b_scale) / y_scale)) + y_zp)    (kernel: aqo_qmm_requant_epilogue.h)
// and writes each block's y rows by DMA (without DataCopyPad (310p) every y row segment is at least 32 bytes wide,
// or, when no block width allows that (N < 32, or N / 32 divisible by every width's), one core writes all of y and
// stores the last bytes of each row with the scalar unit).
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
#include "matmul_cube_plan.h"
#include "plan_common.h"
#include "qlinear_matmul_tiling_fields.h"
#include "soc_table.h"
#include "tiling_fields.h"

namespace aqo {

struct QLinearMatMulRequest {
    std::vector<int64_t> a_shape;  // [..., M, K] (1-D operands are promoted by the caller: [K] -> [1, K])
    std::vector<int64_t> b_shape;  // [..., K, N] ([K] -> [K, 1]): the product's view of b
    // b is stored transposed, [..., N, K] (a transposed view of an [N, K] matrix): the kernel reads it so, no copy.
    bool b_trans = false;
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
    // launch, O(1) in the work. Python and the validation scripts keep the default.
    bool explain = true;
};

// The kernel's tiling: the fields of qlinear_matmul_tiling_fields.h (the one definition; CANN's tiling-data class
// optiling::AqoQLinearMatMulTilingData expands the same list after the Matmul API's TCubeTiling).
struct QLinearMatMulTiling {
    AQO_QLINEAR_MATMUL_TILING_FIELDS(AQO_TILING_STRUCT_FIELD, AQO_TILING_STRUCT_ARRAY)
};

// The kernel's TILING_KEY_IS branches (op_kernel/aqo_qlinear_matmul.cpp): the cube path, the vector decode path of a
// short a against a uint8 b (qlinear_matmul_vector_decode_plan.h), and ascend310p's cube decode path of a short a
// and cube GEMM path of a longer one on the AI cores' own cube pipeline (qlinear_matmul_cube_decode_plan.h,
// qlinear_matmul_cube_gemm_plan.h; compiled for ascend310p only).
constexpr uint64_t kQmmTilingKeyCube = 0;
constexpr uint64_t kQmmTilingKeyVectorDecode = 1;
constexpr uint64_t kQmmTilingKeyCubeDecode = 2;
constexpr uint64_t kQmmTilingKeyCubeGemm = 3;

// The launch's schedule mode (SaveTiling; the emulator's runner sets the same): batch where the kernel calls SyncAll
// (the cube stage's shared preparation, the vector decode path's K slices), else normal.
template <class Tiling>
uint32_t QLinearMatMulScheduleMode(const Tiling& t)
{
    return t.vdSlices > 1 ? kScheduleModeBatch : CubeStageScheduleMode(t);
}

// The launch's blockDim (SaveTiling; the emulator's runner checks its launch against the same): the cube path's 1:2
// mix kernel counts cube cores (CubeStageBlockDim); the vector decode path's binary is a vector kernel on split SoCs
// (KERNEL_TASK_TYPE(1, KERNEL_TYPE_MIX_AIV_1_0): no cube core starts), so its blockDim counts vector cores, every
// worker of the plan (on 310p one worker per AI core: the same number).
template <class Tiling>
uint32_t QLinearMatMulBlockDim(const Tiling& t, uint64_t tiling_key)
{
    return tiling_key == kQmmTilingKeyVectorDecode ? t.usedCores * t.workersPerCore : CubeStageBlockDim(t);
}

struct QLinearMatMulPlan {
    QLinearMatMulTiling tiling;
    uint64_t tiling_key = kQmmTilingKeyCube;  // the kernel binary (TILING_KEY_IS branch) the launch runs
    QmmCubeTilingValues cube;      // the Matmul API's TCubeTiling (the CANN adapter and the emulator copy it)
    PlanExplanation explanation;
    uint64_t workspace_bytes = 0;  // user workspace (all workers), after the system workspace
    // The SoC's system workspace (framework, Matmul API messages) that the launch reserves before the user part
    // (SoC table; a TilingFunc reserves the larger of this and the device's GetLibApiWorkSpaceSize).
    uint64_t system_workspace_bytes = 0;
    uint64_t y_elements = 0;
};

// Plans the request; false with a complete violation when the request is not supported on the SoC or does not
// fit (buffers in UB, sizes in the tiling's 32-bit fields).
bool PlanQLinearMatMul(const QLinearMatMulRequest& request, QLinearMatMulPlan* plan,
                       ConstraintViolation* violation);

// Copies the plan's tiling into the tiling-data class of op_host/aqo_qlinear_matmul_tiling.h (CANN's generated
// class or the emulator's plain struct: both have set_<field>); the one fill shared by the CANN TilingFunc and
// the emulator runner. The cubeTiling member is filled by the caller from plan.cube.
template <class TilingData>
void FillQLinearMatMulTilingData(const QLinearMatMulTiling& t, TilingData* td)
{
    AQO_QLINEAR_MATMUL_TILING_FIELDS(AQO_TILING_FILL_FIELD, AQO_TILING_FILL_ARRAY)
}

// The largest |value| of an integer operand type (and of its zero points), from the dtype table: the cube paths'
// int32 bounds (K x |a| x |b|).
uint64_t QmmIntMagnitude(DType t);
// Shared by the decode paths' plans (qlinear_matmul_vector_decode_plan.cpp, qlinear_matmul_cube_decode_plan.cpp),
// which read the operands as they are: the cube stage's operand preparation, workspace and Matmul UB cleared.
void ClearCubeStagePreparation(QLinearMatMulTiling* t);
// A decode path's requantization epilogue: chunks of `rows` of the M rows x g columns of a group (one strip, one
// block a call), with its UB buffers (the kernel's QmmRequantEpilogue order).
struct DecodeEpilogueUb {
    uint32_t col_f32, row_f32, multiplier, half, y_out;
};
void SetDecodeEpilogue(uint32_t rows, uint32_t g, const DecodeEpilogueUb& ub, QLinearMatMulTiling* t);
// Bytes of each of the epilogue's two multiplier patterns (the per-element multiplier and its y_scale divisor) for
// chunks of rows x g: only a per-column b reads them (QmmRequantEpilogue::ColumnMultiplier, ApplyMultiplier's
// per-row-and-column form); otherwise one block, unused.
inline uint32_t DecodeEpiloguePatternBytes(const QLinearMatMulTiling& t, uint32_t rows, uint32_t g)
{
    return t.bParamKind != 0 ? rows * g * 4u : 32u;
}
// A decode path's explanation: its header (mode, work unit, balance unit) and the op's tensors (a, b, their
// parameters, y), whose reads the path then lists per core.
void BeginDecodeExplanation(const QLinearMatMulRequest& r, const SocSpec& soc, const char* mode, const char* work_unit,
                            uint32_t balance_unit, QLinearMatMulPlan* plan);

}  // namespace aqo

#endif  // AQO_TILING_CORE_QLINEAR_MATMUL_PLAN_H
