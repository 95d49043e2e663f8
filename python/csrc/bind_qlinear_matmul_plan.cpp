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

// Every tiling field under its own name (the field list is the one definition; the batch arrays with all their
// kQmmMaxBatchRank entries, the first batchRank meaningful), then the plan's totals.
nb::dict TilingToDict(const aqo::QLinearMatMulPlan& p)
{
    const aqo::QLinearMatMulTiling& t = p.tiling;
    nb::dict d;
    AQO_QLINEAR_MATMUL_TILING_FIELDS(AQO_DICT_TILING_FIELD, AQO_DICT_TILING_ARRAY)
    AQO_TILING_FIELD(d, p, workspace_bytes);
    AQO_TILING_FIELD(d, p, system_workspace_bytes);
    AQO_TILING_FIELD(d, p, y_elements);
    AQO_TILING_FIELD(d, p, tiling_key);
    return d;
}

void RegisterQLinearMatMulPlan(nb::module_& m)
{
    m.def(
        "plan_qlinear_matmul",
        [](const std::vector<int64_t>& a_shape, const std::vector<int64_t>& b_shape, const std::string& a_dtype,
           const std::string& b_dtype, const std::string& y_dtype, const std::string& a_param,
           const std::string& b_param, const std::string& soc, int64_t core_num, int64_t ub_size,
           bool a_param_batched, bool b_param_batched, bool b_trans) -> nb::dict {
            aqo::ConstraintViolation v;
            aqo::QLinearMatMulRequest r;
            if (!aqo_bind::QLinearMatMulRequestFromArgs(a_shape, b_shape, b_trans, a_dtype, b_dtype, y_dtype, a_param,
                                                        b_param, a_param_batched, b_param_batched, soc, core_num,
                                                        ub_size, &r, &v)) {
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
        nb::arg("b_param_batched") = false, nb::arg("b_trans") = false,
        "QLinearMatMul plan for a [..., M, K] x b [..., K, N] (b_trans: b stored [..., N, K]; 1-D operands promoted "
        "by the caller): "
        "{'ok': True, 'tiling': {...}, 'explanation': {...}} or {'ok': False, 'violation': {...}}. "
        "a_param 'tensor' | 'row', b_param 'tensor' | 'column'; core_num / ub_size 0 = the SoC table's values; "
        "*_param_batched: per-row / per-column parameters carry the operand's batch dims.");
}

aqo_bind::Registrar kRegister("qlinear_matmul_plan", &RegisterQLinearMatMulPlan);

}  // namespace
