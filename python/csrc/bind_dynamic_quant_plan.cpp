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

nb::dict TilingToDict(const aqo::DynamicQuantPlan& p)
{
    const aqo::DynamicQuantTiling& t = p.tiling;
    nb::dict d;
    AQO_TILING_FIELD(d, t, rows);
    AQO_TILING_FIELD(d, t, rowsPerCore);
    AQO_TILING_FIELD(d, t, mode);
    AQO_TILING_FIELD(d, t, xDtype);
    AQO_TILING_FIELD(d, t, dstDtype);
    AQO_TILING_FIELD(d, t, hasSmooth);
    AQO_TILING_FIELD(d, t, cols);
    AQO_TILING_FIELD(d, t, colsPad);
    AQO_TILING_FIELD(d, t, usedCores);
    AQO_TILING_FIELD(d, t, rowsExtra);
    AQO_TILING_FIELD(d, t, rowsPerIter);
    AQO_TILING_FIELD(d, t, chunk);
    AQO_TILING_FIELD(d, t, numChunks);
    AQO_TILING_FIELD(d, t, xSlots);
    AQO_TILING_FIELD(d, t, ySlots);
    AQO_TILING_FIELD(d, t, xBufBytes);
    AQO_TILING_FIELD(d, t, yBufBytes);
    AQO_TILING_FIELD(d, t, scaleBufBytes);
    AQO_TILING_FIELD(d, t, smoothBufBytes);
    AQO_TILING_FIELD(d, t, workBytes);
    AQO_TILING_FIELD(d, t, tmpBytes);
    AQO_TILING_FIELD(d, t, reduceBytes);
    AQO_TILING_FIELD(d, t, statBytes);
    AQO_TILING_FIELD(d, t, nanCode);
    d["satMax"] = static_cast<double>(t.satMax);
    // float fields keep their value (AQO_TILING_FIELD is for integers)
    d["dmax"] = static_cast<double>(t.dmax);
    d["clipLo"] = static_cast<double>(t.clipLo);
    d["clipHi"] = static_cast<double>(t.clipHi);
    d["block_dim"] = p.block_dim;
    d["tiling_key"] = p.tiling_key;
    d["workspace_bytes"] = p.workspace_bytes;
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
