// Binding of the QLinearMatMul plan (op_host/tiling_core/qlinear_matmul_plan.h) in the plan_convert.h shape.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <vector>

#include "plan_convert.h"
#include "plan_requests.h"
#include "qlinear_matmul_plan.h"
#include "registry.h"

namespace nb = nanobind;

namespace {

nb::dict TilingToDict(const aqo::QLinearMatMulPlan& p)
{
    const aqo::QLinearMatMulTiling& t = p.tiling;
    nb::dict d;
    AQO_TILING_FIELD(d, t, usedCores);
    AQO_TILING_FIELD(d, t, workersPerCore);
    AQO_TILING_FIELD(d, t, m);
    AQO_TILING_FIELD(d, t, n);
    AQO_TILING_FIELD(d, t, k);
    AQO_TILING_FIELD(d, t, batch);
    AQO_TILING_FIELD(d, t, batchRank);
    nb::list dims, as, bs;
    for (uint32_t i = 0; i < t.batchRank; ++i) {
        dims.append(t.batchDims[i]);
        as.append(t.aBatchStrides[i]);
        bs.append(t.bBatchStrides[i]);
    }
    d["batchDims"] = dims;
    d["aBatchStrides"] = as;
    d["bBatchStrides"] = bs;
    AQO_TILING_FIELD(d, t, aMatrices);
    AQO_TILING_FIELD(d, t, bMatrices);
    AQO_TILING_FIELD(d, t, aCode);
    AQO_TILING_FIELD(d, t, bCode);
    AQO_TILING_FIELD(d, t, yCode);
    AQO_TILING_FIELD(d, t, mapA);
    AQO_TILING_FIELD(d, t, mapB);
    AQO_TILING_FIELD(d, t, aParamKind);
    AQO_TILING_FIELD(d, t, bParamKind);
    AQO_TILING_FIELD(d, t, aParamBatchStride);
    AQO_TILING_FIELD(d, t, bParamBatchStride);
    AQO_TILING_FIELD(d, t, baseM);
    AQO_TILING_FIELD(d, t, baseN);
    AQO_TILING_FIELD(d, t, tilesM);
    AQO_TILING_FIELD(d, t, tilesN);
    AQO_TILING_FIELD(d, t, tileCount);
    AQO_TILING_FIELD(d, t, cStride);
    AQO_TILING_FIELD(d, t, bpStride);
    AQO_TILING_FIELD(d, t, mapChunk);
    AQO_TILING_FIELD(d, t, wsAOffset);
    AQO_TILING_FIELD(d, t, wsBOffset);
    AQO_TILING_FIELD(d, t, wsCOffset);
    AQO_TILING_FIELD(d, t, wsRaOffset);
    AQO_TILING_FIELD(d, t, wsCbOffset);
    AQO_TILING_FIELD(d, t, wsOnesOffset);
    AQO_TILING_FIELD(d, t, wsPerWorker);
    AQO_TILING_FIELD(d, t, ubCIn);
    AQO_TILING_FIELD(d, t, ubYOut);
    AQO_TILING_FIELD(d, t, ubVecI32);
    AQO_TILING_FIELD(d, t, ubVecF32);
    AQO_TILING_FIELD(d, t, ubHalf);
    AQO_TILING_FIELD(d, t, ubRa);
    AQO_TILING_FIELD(d, t, ubMapIn);
    AQO_TILING_FIELD(d, t, ubMapHalf);
    AQO_TILING_FIELD(d, t, ubMapOut);
    d["yMax"] = t.yMax;
    d["yQMin"] = t.yQMin;
    d["yQMax"] = t.yQMax;
    AQO_TILING_FIELD(d, p, workspace_bytes);
    AQO_TILING_FIELD(d, p, y_elements);
    return d;
}

void RegisterQLinearMatMulPlan(nb::module_& m)
{
    m.def(
        "plan_qlinear_matmul",
        [](const std::vector<int64_t>& a_shape, const std::vector<int64_t>& b_shape, const std::string& a_dtype,
           const std::string& b_dtype, const std::string& y_dtype, const std::string& a_param,
           const std::string& b_param, const std::string& soc, int64_t core_num, int64_t ub_size,
           bool a_param_batched, bool b_param_batched) -> nb::dict {
            aqo::ConstraintViolation v;
            aqo::QLinearMatMulRequest r;
            if (!aqo_bind::QLinearMatMulRequestFromArgs(a_shape, b_shape, a_dtype, b_dtype, y_dtype, a_param, b_param,
                                                        a_param_batched, b_param_batched, soc, core_num, ub_size, &r,
                                                        &v)) {
                return aqo_bind::RefusedResult(v);
            }
            aqo::QLinearMatMulPlan plan;
            if (!aqo::PlanQLinearMatMul(r, &plan, &v)) {
                return aqo_bind::RefusedResult(v);
            }
            return aqo_bind::PlanResult(TilingToDict(plan), plan.explanation);
        },
        nb::arg("a_shape"), nb::arg("b_shape"), nb::arg("a_dtype"), nb::arg("b_dtype"), nb::arg("y_dtype"),
        nb::arg("a_param") = "tensor", nb::arg("b_param") = "tensor", nb::arg("soc") = "ascend910b",
        nb::arg("core_num") = 0, nb::arg("ub_size") = 0, nb::arg("a_param_batched") = false,
        nb::arg("b_param_batched") = false,
        "QLinearMatMul plan for a [..., M, K] x b [..., K, N] (1-D operands promoted by the caller): "
        "{'ok': True, 'tiling': {...}, 'explanation': {...}} or {'ok': False, 'violation': {...}}. "
        "a_param 'tensor' | 'row', b_param 'tensor' | 'column'; core_num / ub_size 0 = the SoC table's values; "
        "*_param_batched: per-row / per-column parameters carry the operand's batch dims.");
}

aqo_bind::Registrar kRegister("qlinear_matmul_plan", &RegisterQLinearMatMulPlan);

}  // namespace
