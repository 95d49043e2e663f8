// Binding of the DynamicQuant plan (op_host/tiling_core/dynamic_quant_plan.h) in the plan_convert.h shape:
//   _native.plan_dynamic_quant(shape, x_dtype, dst_type, smooth, asymmetric, soc, core_num, ub_size)
//   -> {"ok": True, "tiling": {...}, "explanation": {...}} | {"ok": False, "violation": {...}}
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dynamic_quant_plan.h"
#include "plan_convert.h"
#include "plan_requests.h"
#include "registry.h"

namespace nb = nanobind;

namespace {

// Every tiling field under its own name (the field list is the one definition), then the launch values.
nb::dict TilingToDict(const aqo::DynamicQuantPlan& p)
{
    const aqo::DynamicQuantTiling& t = p.tiling;
    nb::dict d;
    AQO_DYNAMIC_QUANT_TILING_FIELDS(AQO_DICT_TILING_FIELD, AQO_DICT_TILING_ARRAY)
    d["block_dim"] = p.block_dim;
    d["tiling_key"] = p.tiling_key;
    d["workspace_bytes"] = p.workspace_bytes;
    d["system_workspace_bytes"] = p.system_workspace_bytes;
    return d;
}

void RegisterDynamicQuantPlan(nb::module_& m)
{
    m.def(
        "plan_dynamic_quant",
        [](const std::vector<int64_t>& shape, const std::string& x_dtype, const std::string& dst_type, bool smooth,
           bool asymmetric, const std::string& soc, int64_t core_num, int64_t ub_size, bool explain) {
            aqo::ConstraintViolation v;
            aqo::DynamicQuantRequest r;
            if (!aqo_bind::DynamicQuantRequestFromArgs(shape, x_dtype, dst_type, smooth, soc, core_num, ub_size, &r,
                                                       &v)) {
                return aqo_bind::RefusedResult(v);
            }
            r.asymmetric = asymmetric;
            r.explain = explain;
            aqo::DynamicQuantPlan plan;
            if (!aqo::PlanDynamicQuant(r, &plan, &v)) {
                return aqo_bind::RefusedResult(v);
            }
            return aqo_bind::PlanResult(TilingToDict(plan), plan.explanation);
        },
        nb::arg("shape"), nb::arg("x_dtype"), nb::arg("dst_type"), nb::arg("smooth"), nb::arg("asymmetric"),
        nb::arg("soc"), nb::arg("core_num") = 0, nb::arg("ub_size") = 0, nb::arg("explain") = true,
        "The DynamicQuant tiling plan: {'ok': True, 'tiling': {...}, 'explanation': {...}} or the refusal. "
        "explain=False plans as the CANN TilingFunc does (tiling only, empty explanation).");
}

aqo_bind::Registrar kRegisterDynamicQuantPlan("dynamic_quant_plan", &RegisterDynamicQuantPlan);

}  // namespace
