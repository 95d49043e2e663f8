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
                                         const std::string& a_dtype, const std::string& b_dtype,
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
    r->soc = soc;
    r->a_param_batched = a_param_batched;
    r->b_param_batched = b_param_batched;
    return true;
}

}  // namespace aqo_bind
