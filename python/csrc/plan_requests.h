// Python arguments -> plan requests, shared by the plan bindings (bind_<op>_plan.cpp) and the emulator runners
// (emulate_<op>.cpp), so that planning an op and running it refuse the same arguments in the same words.
// Returns false with *v filled (the caller returns aqo_bind::RefusedResult(*v)).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "dynamic_quant_plan.h"
#include "plan_convert.h"
#include "qlinear_matmul_plan.h"
#include "quant_matmul_plan.h"

namespace aqo_bind {

// Everything but the caller's own switches (asymmetric, explain), which keep their request defaults.
inline bool DynamicQuantRequestFromArgs(const std::vector<int64_t>& shape, const std::string& x_dtype,
                                        const std::string& dst_type, bool smooth, const std::string& soc,
                                        int64_t core_num, int64_t ub_size, aqo::DynamicQuantRequest* r,
                                        aqo::ConstraintViolation* v)
{
    const aqo::OpKind op = aqo::OpKind::DYNAMIC_QUANT;
    if (!ParseDTypeArg(x_dtype, op, "x", &r->x_dtype, v) || !ParseDTypeArg(dst_type, op, "dst_type", &r->dst_type, v) ||
        !OverridesFromArgs(core_num, ub_size, op, &r->overrides, v, soc.c_str())) {
        return false;
    }
    r->shape = shape;
    r->smooth = smooth;
    r->soc = soc;
    return true;
}

inline bool QLinearMatMulRequestFromArgs(const std::vector<int64_t>& a_shape, const std::vector<int64_t>& b_shape,
                                         bool b_trans, const std::string& a_dtype, const std::string& b_dtype,
                                         const std::string& y_dtype, const std::string& a_param,
                                         const std::string& b_param, bool a_param_batched, bool b_param_batched,
                                         const std::string& soc, int64_t core_num, int64_t ub_size,
                                         aqo::QLinearMatMulRequest* r, aqo::ConstraintViolation* v)
{
    const aqo::OpKind op = aqo::OpKind::QLINEAR_MATMUL;
    if (!ParseDTypeArg(a_dtype, op, "a", &r->a_dtype, v) || !ParseDTypeArg(b_dtype, op, "b", &r->b_dtype, v) ||
        !ParseDTypeArg(y_dtype, op, "y", &r->y_dtype, v) ||
        !ParseParamKindArg(a_param, op, "a_param", &r->a_param, v) ||
        !ParseParamKindArg(b_param, op, "b_param", &r->b_param, v) ||
        !OverridesFromArgs(core_num, ub_size, op, &r->overrides, v, soc.c_str())) {
        return false;
    }
    r->a_shape = a_shape;
    r->b_shape = b_shape;
    r->b_trans = b_trans;
    r->soc = soc;
    r->a_param_batched = a_param_batched;
    r->b_param_batched = b_param_batched;
    return true;
}

// A quant_matmul parameter layout by name: "none" (absent; zero points and bias only), "tensor", and "row" (a's) /
// "column" (b's, the bias).
inline bool ParseQuantMatMulLayout(const std::string& name, const char* argument, const char* vector_name,
                                   bool allow_none, uint32_t* out, aqo::ConstraintViolation* v)
{
    if (allow_none && name == "none") {
        *out = aqo::QMM_PARAM_NONE;
        return true;
    }
    if (name == "tensor") {
        *out = aqo::QMM_PARAM_TENSOR;
        return true;
    }
    if (name == vector_name) {
        *out = aqo::QMM_PARAM_VECTOR;
        return true;
    }
    aqo::SetViolation(v, aqo::OpKind::QUANT_MATMUL, argument, nullptr, std::string("layout of ") + argument,
                      std::string(allow_none ? "none | " : "") + "tensor | " + vector_name, name,
                      std::string("per tensor or per ") + vector_name);
    return false;
}

inline bool QuantMatMulRequestFromArgs(const std::vector<int64_t>& a_shape, const std::vector<int64_t>& b_shape,
                                       bool b_trans, const std::string& a_dtype, const std::string& b_dtype,
                                       const std::string& out_dtype, const std::string& a_scale,
                                       const std::string& b_scale, const std::string& a_zero_point,
                                       const std::string& b_zero_point, const std::string& bias, bool a_param_batched,
                                       bool b_param_batched, bool bias_batched, const std::string& soc,
                                       int64_t core_num, int64_t ub_size, aqo::QuantMatMulRequest* r,
                                       aqo::ConstraintViolation* v)
{
    const aqo::OpKind op = aqo::OpKind::QUANT_MATMUL;
    uint32_t as = 0, bs = 0;
    if (!ParseDTypeArg(a_dtype, op, "a", &r->a_dtype, v) || !ParseDTypeArg(b_dtype, op, "b", &r->b_dtype, v) ||
        !ParseDTypeArg(out_dtype, op, "out_dtype", &r->out_dtype, v) ||
        !ParseQuantMatMulLayout(a_scale, "a_scale", "row", false, &as, v) ||
        !ParseQuantMatMulLayout(b_scale, "b_scale", "column", false, &bs, v) ||
        !ParseQuantMatMulLayout(a_zero_point, "a_zero_point", "row", true, &r->a_zp, v) ||
        !ParseQuantMatMulLayout(b_zero_point, "b_zero_point", "column", true, &r->b_zp, v) ||
        !ParseQuantMatMulLayout(bias, "bias", "column", true, &r->bias, v) ||
        !OverridesFromArgs(core_num, ub_size, op, &r->overrides, v, soc.c_str())) {
        return false;
    }
    r->a_scale_row = as == aqo::QMM_PARAM_VECTOR;
    r->b_scale_column = bs == aqo::QMM_PARAM_VECTOR;
    r->a_shape = a_shape;
    r->b_shape = b_shape;
    r->b_trans = b_trans;
    r->soc = soc;
    r->a_param_batched = a_param_batched;
    r->b_param_batched = b_param_batched;
    r->a_zp_batched = a_param_batched;  // the Python API lays a scale and its zero point out alike (normalized)
    r->b_zp_batched = b_param_batched;
    r->bias_batched = bias_batched;
    return true;
}

}  // namespace aqo_bind
