// Binding of the SoC table and the request checks (op_host/tiling_core/soc_table.h, constraints.h), so that Python
// reads SoC facts from the compiled core and never restates them. The plans are bound by their own files
// (bind_dynamic_quant_plan.cpp, bind_qlinear_matmul_plan.cpp) through plan_convert.h.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <vector>

#include "constraints.h"
#include "plan_convert.h"
#include "registry.h"
#include "soc_table.h"

namespace nb = nanobind;

namespace {

nb::list DTypeSetList(aqo::DTypeSet s)
{
    nb::list out;
    for (int i = 0; i < static_cast<int>(aqo::DType::COUNT); ++i) {
        const aqo::DType t = static_cast<aqo::DType>(i);
        if (aqo::DTypeSetHas(s, t)) {
            out.append(nb::str(aqo::DTypeName(t)));
        }
    }
    return out;
}

nb::dict SpecToDict(const aqo::SocSpec& s)
{
    nb::dict d;
    d["name"] = std::string(s.name);
    d["variant"] = std::string(s.variant);
    d["ai_cores"] = s.ai_cores;
    d["cube_cores"] = s.cube_cores;
    d["vector_cores"] = s.vector_cores;
    d["split_architecture"] = s.split_architecture;
    d["ub_bytes"] = s.ub_bytes;
    d["dynamic_quant_cores"] = s.dynamic_quant_cores;
    d["qlinear_matmul_cores"] = s.qlinear_matmul_cores;
    d["has_data_copy_pad"] = s.has_data_copy_pad;
    d["ub_align_bytes"] = s.ub_align_bytes;
    d["copy_block_bytes"] = s.copy_block_bytes;
    d["dma_max_block_count"] = s.dma_max_block_count;
    d["system_workspace_bytes"] = s.system_workspace_bytes;
    d["saturation_only_float"] = s.saturation_only_float;
    d["has_bfloat16"] = s.has_bfloat16;
    nb::dict dq;
    dq["x_dtypes"] = DTypeSetList(s.dq_x_dtypes);
    dq["dst_types"] = DTypeSetList(s.dq_dst_dtypes);
    // y of either mode: the operator's y dtypes (uint8 only with asymmetric=True, which the tiling checks)
    dq["y_types"] = DTypeSetList(s.dq_dst_dtypes | s.dq_asymmetric_dst_dtypes);
    dq["min_rank"] = s.dq_min_rank;
    dq["max_tail_float16"] = s.dq_max_tail_float16;
    dq["max_tail_bfloat16"] = s.dq_max_tail_bfloat16;
    dq["tail_multiple"] = s.dq_tail_multiple;
    dq["asymmetric_implemented"] = s.dq_asymmetric_dst_dtypes != 0;
    dq["asymmetric_dst_types"] = DTypeSetList(s.dq_asymmetric_dst_dtypes);
    dq["smooth_implemented"] = s.dq_smooth_implemented;
    d["dynamic_quant"] = dq;
    nb::dict qmm;
    qmm["a_dtypes"] = DTypeSetList(s.qmm_a_dtypes);
    qmm["b_dtypes"] = DTypeSetList(s.qmm_b_dtypes);
    qmm["y_dtypes"] = DTypeSetList(s.qmm_y_dtypes);
    qmm["uint8_by_xor"] = s.qmm_uint8_by_xor;
    qmm["mixed_int_float8"] = s.qmm_mixed_int_float8;
    d["qlinear_matmul"] = qmm;
    nb::dict qm;
    qm["out_dtypes"] = DTypeSetList(s.quant_matmul_out_dtypes);  // empty: no quant_matmul kernel on the SoC
    // a and b: the integer types of QLinearMatMul's lists (the cube stage is the same).
    const aqo::DTypeSet ints = aqo::DTypeBit(aqo::DType::INT8) | aqo::DTypeBit(aqo::DType::UINT8);
    qm["a_dtypes"] = DTypeSetList(s.qmm_a_dtypes & ints);
    qm["b_dtypes"] = DTypeSetList(s.qmm_b_dtypes & ints);
    d["quant_matmul"] = qm;
    return d;
}

// Returns {"ok": True} or the refusal dict, for the request checks.
nb::dict CheckResult(bool ok, const aqo::ConstraintViolation& v)
{
    if (!ok) {
        return aqo_bind::RefusedResult(v);
    }
    nb::dict d;
    d["ok"] = true;
    return d;
}

void RegisterTiling(nb::module_& m)
{
    m.def(
        "soc_table",
        []() {
            size_t n = 0;
            const aqo::SocSpec* t = aqo::SocTable(&n);
            nb::list out;
            for (size_t i = 0; i < n; ++i) {
                out.append(SpecToDict(t[i]));
            }
            return out;
        },
        "The SoC table: one dict per canonical SoC (cores, UB, DataCopyPad, dtypes and limits per operator).");

    m.def(
        "soc_names",
        []() {
            size_t n = 0;
            const char* const* names = aqo::SocNameList(&n);
            std::vector<std::string> out(names, names + n);
            return out;
        },
        "Every SoC name the tiling core accepts: canonical names, ascend950, and the platform-config variants.");

    m.def(
        "soc_spec",
        [](const std::string& name, int64_t core_num, int64_t ub_size, const std::string& op) -> nb::object {
            aqo::ConstraintViolation v;
            const aqo::OpKind kind = op == "qlinear_matmul" ? aqo::OpKind::QLINEAR_MATMUL : aqo::OpKind::DYNAMIC_QUANT;
            aqo::SocOverrides ov;
            aqo::SocSpec spec;
            if (!aqo_bind::OverridesFromArgs(core_num, ub_size, kind, &ov, &v, name.c_str()) ||
                !aqo::ResolveSoc(name.c_str(), ov, kind, &spec, &v)) {
                return aqo_bind::RefusedResult(v);
            }
            nb::dict d;
            d["ok"] = true;
            d["spec"] = SpecToDict(spec);
            return d;
        },
        nb::arg("name"), nb::arg("core_num") = 0, nb::arg("ub_size") = 0, nb::arg("op") = "dynamic_quant",
        "The resolved spec of a SoC name (variants carry their own core counts) with overrides applied, as "
        "{'ok': True, 'spec': {...}} or {'ok': False, 'violation': {...}}.");

    m.def(
        "canonical_soc",
        [](const std::string& name) -> nb::object {
            aqo::SocSpec spec;
            if (!aqo::SocFromName(name.c_str(), &spec)) {
                return nb::none();
            }
            return nb::str(spec.name);
        },
        nb::arg("name"), "The canonical SoC name of `name` ('ascend950' -> 'ascend910_95'), None when unknown.");

    m.def(
        "check_dynamic_quant",
        [](const std::vector<int64_t>& shape, const std::string& x_dtype, const std::string& dst_type, bool smooth,
           bool asymmetric, const std::string& soc, int64_t core_num, int64_t ub_size) {
            const aqo::OpKind op = aqo::OpKind::DYNAMIC_QUANT;
            aqo::ConstraintViolation v;
            aqo::SocOverrides ov;
            aqo::SocSpec spec;
            aqo::DynamicQuantRequestView r;
            if (!aqo_bind::ParseDTypeArg(x_dtype, op, "x", &r.x_dtype, &v) ||
                !aqo_bind::ParseDTypeArg(dst_type, op, "dst_type", &r.dst_type, &v) ||
                !aqo_bind::OverridesFromArgs(core_num, ub_size, op, &ov, &v, soc.c_str()) ||
                !aqo::ResolveSoc(soc.c_str(), ov, op, &spec, &v)) {
                return aqo_bind::RefusedResult(v);
            }
            r.shape = shape.data();
            r.rank = shape.size();
            r.smooth = smooth;
            r.asymmetric = asymmetric;
            return CheckResult(aqo::CheckDynamicQuantRequest(r, spec, &v), v);
        },
        nb::arg("shape"), nb::arg("x_dtype"), nb::arg("dst_type"), nb::arg("smooth"), nb::arg("asymmetric"),
        nb::arg("soc"), nb::arg("core_num") = 0, nb::arg("ub_size") = 0,
        "The request-level DynamicQuant check alone (no plan): {'ok': True} or the refusal.");

    m.def(
        "check_qlinear_matmul",
        [](const std::vector<int64_t>& a_shape, const std::vector<int64_t>& b_shape, const std::string& a_dtype,
           const std::string& b_dtype, const std::string& y_dtype, const std::string& a_param,
           const std::string& b_param, const std::string& soc, int64_t core_num, int64_t ub_size) {
            const aqo::OpKind op = aqo::OpKind::QLINEAR_MATMUL;
            aqo::ConstraintViolation v;
            aqo::SocOverrides ov;
            aqo::SocSpec spec;
            aqo::QLinearMatMulRequestView r;
            if (!aqo_bind::ParseDTypeArg(a_dtype, op, "a", &r.a_dtype, &v) ||
                !aqo_bind::ParseDTypeArg(b_dtype, op, "b", &r.b_dtype, &v) ||
                !aqo_bind::ParseDTypeArg(y_dtype, op, "y", &r.y_dtype, &v) ||
                !aqo_bind::ParseParamKindArg(a_param, op, "a_param", &r.a_param, &v) ||
                !aqo_bind::ParseParamKindArg(b_param, op, "b_param", &r.b_param, &v) ||
                !aqo_bind::OverridesFromArgs(core_num, ub_size, op, &ov, &v, soc.c_str()) ||
                !aqo::ResolveSoc(soc.c_str(), ov, op, &spec, &v)) {
                return aqo_bind::RefusedResult(v);
            }
            r.a_shape = a_shape.data();
            r.a_rank = a_shape.size();
            r.b_shape = b_shape.data();
            r.b_rank = b_shape.size();
            return CheckResult(aqo::CheckQLinearMatMulRequest(r, spec, &v), v);
        },
        nb::arg("a_shape"), nb::arg("b_shape"), nb::arg("a_dtype"), nb::arg("b_dtype"), nb::arg("y_dtype"),
        nb::arg("a_param"), nb::arg("b_param"), nb::arg("soc"), nb::arg("core_num") = 0, nb::arg("ub_size") = 0,
        "The request-level QLinearMatMul check alone (no plan): {'ok': True} or the refusal.");
}

aqo_bind::Registrar kRegisterTiling("tiling", &RegisterTiling);

}  // namespace
