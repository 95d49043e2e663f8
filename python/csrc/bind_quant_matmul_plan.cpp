// Binding of the quant_matmul plan (op_host/tiling_core/quant_matmul_plan.h) in the plan_convert.h shape.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <vector>

#include "plan_convert.h"
#include "plan_requests.h"
#include "quant_matmul_plan.h"
#include "registry.h"

namespace nb = nanobind;

namespace {

// Every tiling field under its own name (the field list is the one definition), then the plan's totals.
nb::dict TilingToDict(const aqo::QuantMatMulPlan& p)
{
    const aqo::QuantMatMulTiling& t = p.tiling;
    nb::dict d;
    AQO_QUANT_MATMUL_TILING_FIELDS(AQO_DICT_TILING_FIELD, AQO_DICT_TILING_ARRAY)
    AQO_TILING_FIELD(d, p, workspace_bytes);
    AQO_TILING_FIELD(d, p, system_workspace_bytes);
    AQO_TILING_FIELD(d, p, y_elements);
    return d;
}

void RegisterQuantMatMulPlan(nb::module_& m)
{
    m.def(
        "plan_quant_matmul",
        [](const std::vector<int64_t>& a_shape, const std::vector<int64_t>& b_shape, bool b_trans,
           const std::string& a_dtype, const std::string& b_dtype, const std::string& out_dtype,
           const std::string& a_scale, const std::string& b_scale, const std::string& a_zero_point,
           const std::string& b_zero_point, const std::string& bias, bool a_param_batched, bool b_param_batched,
           bool bias_batched, const std::string& soc, int64_t core_num, int64_t ub_size,
           std::optional<bool> a_zp_batched, std::optional<bool> b_zp_batched) -> nb::dict {
            aqo::ConstraintViolation v;
            aqo::QuantMatMulRequest r;
            if (!aqo_bind::QuantMatMulRequestFromArgs(a_shape, b_shape, b_trans, a_dtype, b_dtype, out_dtype, a_scale,
                                                      b_scale, a_zero_point, b_zero_point, bias, a_param_batched,
                                                      b_param_batched, bias_batched, soc, core_num, ub_size, &r, &v)) {
                return aqo_bind::RefusedResult(v);
            }
            if (a_zp_batched) r.a_zp_batched = *a_zp_batched;  // the CANN operator's independent layouts
            if (b_zp_batched) r.b_zp_batched = *b_zp_batched;
            aqo::QuantMatMulPlan plan;
            if (!aqo::PlanQuantMatMul(r, &plan, &v)) {
                return aqo_bind::RefusedResult(v);
            }
            return aqo_bind::PlanResult(TilingToDict(plan), plan.explanation);
        },
        nb::arg("a_shape"), nb::arg("b_shape"), nb::arg("b_trans") = false, nb::arg("a_dtype") = "int8",
        nb::arg("b_dtype") = "int8", nb::arg("out_dtype") = "float32", nb::arg("a_scale") = "tensor",
        nb::arg("b_scale") = "tensor", nb::arg("a_zero_point") = "none", nb::arg("b_zero_point") = "none",
        nb::arg("bias") = "none", nb::arg("a_param_batched") = false, nb::arg("b_param_batched") = false,
        nb::arg("bias_batched") = false, nb::arg("soc") = "ascend910b", nb::arg("core_num") = 0,
        nb::arg("ub_size") = 0, nb::arg("a_zp_batched") = nb::none(), nb::arg("b_zp_batched") = nb::none(),
        "quant_matmul plan for a [..., M, K] x b [..., K, N] (b_trans: b stored [..., N, K]): "
        "{'ok': True, 'tiling': {...}, 'explanation': {...}} or {'ok': False, 'violation': {...}}. Layouts: "
        "a_scale 'tensor' | 'row', b_scale 'tensor' | 'column', zero points 'none' | 'tensor' | 'row' / 'column', "
        "bias 'none' | 'tensor' | 'column'. *_zp_batched: a zero point's own batch layout (default: its scale's).");

    m.def(
        "classify_quant_matmul_param",
        [](const std::string& name, const std::vector<int64_t>& dims, bool row, int64_t length,
           const std::vector<int64_t>& batch, const std::string& soc, const std::string& op) -> nb::dict {
            aqo::QmmParamShape p;
            aqo::ConstraintViolation v;
            // QLinearMatMul's TilingFunc takes a's rows in no batch + [M] spelling (as its golden)
            const bool qlinear = op == "qlinear_matmul";
            if (!aqo::ClassifyMatMulParam(name.c_str(), dims, row, length, batch, soc, &p, &v,
                                          qlinear ? aqo::OpKind::QLINEAR_MATMUL : aqo::OpKind::QUANT_MATMUL,
                                          !qlinear)) {
                return aqo_bind::RefusedResult(v);
            }
            nb::dict d;
            d["ok"] = true;
            d["kind"] = p.kind == aqo::QMM_PARAM_TENSOR ? "tensor" : "vector";
            d["batched"] = p.batched;
            return d;
        },
        nb::arg("name"), nb::arg("dims"), nb::arg("row"), nb::arg("length"), nb::arg("batch"),
        nb::arg("soc") = "ascend910b", nb::arg("op") = "quant_matmul",
        "The layout the CANN operator's TilingFunc reads from a parameter's shape (op 'quant_matmul' or "
        "'qlinear_matmul'; row: a's, per row of M = length; else per column of N = length), batch: the batch dims a "
        "batched vector follows: {'ok': True, 'kind': 'tensor' | 'vector', 'batched': bool} or {'ok': False, "
        "'violation': {...}}.");
}

aqo_bind::Registrar kRegisterQuantMatMulPlan("plan_quant_matmul", &RegisterQuantMatMulPlan);

}  // namespace
