// Conversions every plan binding uses, so that all plans reach Python in one shape:
//   {"ok": True,  "tiling": {field: int, ...}, "explanation": {...}}
//   {"ok": False, "violation": {op, argument, soc, constraint, limit, actual, suggestion, is_dtype}}
// python/ascend_quant_ops/tiling.py turns the second into ConstraintError / DTypeError.
//
// A plan binding looks like:
//   aqo::ConstraintViolation v;
//   aqo::DType x;  aqo::SocOverrides ov;
//   if (!aqo_bind::ParseDTypeArg(x_dtype, aqo::OpKind::DYNAMIC_QUANT, "x", &x, &v) ||
//       !aqo_bind::OverridesFromArgs(core_num, ub_size, aqo::OpKind::DYNAMIC_QUANT, &ov, &v, soc.c_str())) {
//       return aqo_bind::RefusedResult(v);
//   }
//   ... aqo::PlanDynamicQuant(request, &plan, &v) ...
//   nb::dict d;  const aqo::DynamicQuantTiling& t = plan.tiling;
//   AQO_DYNAMIC_QUANT_TILING_FIELDS(AQO_DICT_TILING_FIELD, AQO_DICT_TILING_ARRAY)   // every field, by its own name
//   return aqo_bind::PlanResult(d, plan.explanation);
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "constraints.h"
#include "dtype_table.h"
#include "plan_common.h"
#include "soc_table.h"

namespace aqo_bind {

namespace nb = nanobind;

// One tiling field into a dict under its own name: integers as int, floats as float, arrays as lists. The field
// lists (op_host/tiling_core/<op>_tiling_fields.h) expand into these with AQO_DICT_TILING_FIELD / _ARRAY, which
// read the struct `t` into the dict `d`.
template <class T>
inline void PutTilingField(nb::dict& d, const char* name, T v)
{
    if constexpr (std::is_floating_point<T>::value) {
        d[name] = static_cast<double>(v);
    } else {
        d[name] = static_cast<int64_t>(v);
    }
}
template <class T, size_t N>
inline void PutTilingArray(nb::dict& d, const char* name, const T (&v)[N])
{
    nb::list l;
    for (size_t i = 0; i < N; ++i) {
        l.append(static_cast<int64_t>(v[i]));
    }
    d[name] = l;
}
#define AQO_DICT_TILING_FIELD(type, name) ::aqo_bind::PutTilingField<type>(d, #name, t.name);
#define AQO_DICT_TILING_ARRAY(type, count, name) ::aqo_bind::PutTilingArray(d, #name, t.name);
// A plan-level (non-tiling) integer next to the fields.
#define AQO_TILING_FIELD(dict, tiling, field) (dict)[#field] = static_cast<int64_t>((tiling).field)

inline nb::dict ViolationToDict(const aqo::ConstraintViolation& v)
{
    nb::dict d;
    d["op"] = v.op;
    d["argument"] = v.argument;
    d["soc"] = v.soc;
    d["constraint"] = v.constraint;
    d["limit"] = v.limit;
    d["actual"] = v.actual;
    d["suggestion"] = v.suggestion;
    d["is_dtype"] = v.is_dtype;
    return d;
}

inline nb::dict ExplanationToDict(const aqo::PlanExplanation& e)
{
    nb::dict d;
    d["soc"] = e.soc;
    d["mode"] = e.mode;
    d["core_capacity"] = e.core_capacity;
    d["used_cores"] = e.used_cores;
    d["ub_capacity"] = e.ub_capacity;
    d["work_unit"] = e.work_unit;
    d["total_work"] = e.total_work;
    d["balance_unit"] = e.balance_unit;
    nb::list work;
    for (const aqo::CoreWork& w : e.work) {
        nb::dict x;
        x["core"] = w.core;
        x["begin"] = w.begin;
        x["end"] = w.end;
        work.append(x);
    }
    d["work"] = work;
    nb::list ub;
    for (const aqo::UbBuffer& b : e.ub) {
        nb::dict x;
        x["name"] = b.name;
        x["offset"] = b.offset;
        x["bytes"] = b.bytes;
        x["slots"] = b.slots;
        ub.append(x);
    }
    d["ub"] = ub;
    nb::list gm;
    for (const aqo::GmRange& g : e.gm) {
        nb::dict x;
        x["tensor"] = g.tensor;
        x["core"] = g.core;
        x["begin"] = g.begin;
        x["end"] = g.end;
        x["stride"] = g.stride;
        x["count"] = g.count;
        x["write"] = g.write;
        x["scalar_bytes"] = g.scalar_bytes;
        x["rewrite_bytes"] = g.rewrite_bytes;
        gm.append(x);
    }
    d["gm"] = gm;
    nb::list tensors;
    for (const aqo::GmTensor& t : e.tensors) {
        nb::dict x;
        x["name"] = t.name;
        x["bytes"] = t.bytes;
        x["output"] = t.output;
        tensors.append(x);
    }
    d["tensors"] = tensors;
    d["passes"] = e.passes;
    nb::list notes;
    for (const std::string& n : e.notes) {
        notes.append(nb::str(n.c_str()));
    }
    d["notes"] = notes;
    return d;
}

inline nb::dict RefusedResult(const aqo::ConstraintViolation& v)
{
    nb::dict d;
    d["ok"] = false;
    d["violation"] = ViolationToDict(v);
    return d;
}

inline nb::dict PlanResult(const nb::dict& tiling, const aqo::PlanExplanation& e)
{
    nb::dict d;
    d["ok"] = true;
    d["tiling"] = tiling;
    d["explanation"] = ExplanationToDict(e);
    return d;
}

// A dtype name from Python (tiling.py passes canonical names) to the table's DType; an unknown name is a
// complete dtype violation.
inline bool ParseDTypeArg(const std::string& name, aqo::OpKind op, const char* argument, aqo::DType* out,
                          aqo::ConstraintViolation* v)
{
    if (aqo::DTypeFromName(name.c_str(), out)) {
        return true;
    }
    size_t n = 0;
    const aqo::DTypeInfo* t = aqo::DTypeTable(&n);
    std::string names;
    for (size_t i = 0; i < n; ++i) {
        names += (i != 0 ? " | " : "") + std::string(t[i].name);
    }
    aqo::SetViolation(v, op, argument, nullptr, "unknown dtype name", names, "'" + name + "'",
                      "use a canonical dtype name such as float16, bfloat16 or int8", /*is_dtype=*/true);
    return false;
}

// "tensor" | "row" | "column" from Python; argument is "a_param" or "b_param".
inline bool ParseParamKindArg(const std::string& name, aqo::OpKind op, const char* argument,
                              aqo::QuantParamKind* out, aqo::ConstraintViolation* v)
{
    if (aqo::QuantParamKindFromName(name.c_str(), out)) {
        return true;
    }
    aqo::SetViolation(v, op, argument, nullptr, "quantization parameter granularity", "tensor | row | column",
                      "'" + name + "'", "a_param is 'tensor' or 'row'; b_param is 'tensor' or 'column'");
    return false;
}

// core_num / ub_size from Python (0 = the table value); negative or too large values are violations. With
// `soc_name` the violation names the SoC and its table value (ResolveSoc checks the override ranges too).
inline bool OverridesFromArgs(int64_t core_num, int64_t ub_size, aqo::OpKind op, aqo::SocOverrides* out,
                              aqo::ConstraintViolation* v, const char* soc_name = nullptr)
{
    aqo::SocSpec spec;
    const bool known = soc_name != nullptr && aqo::SocFromName(soc_name, &spec);
    if (core_num < 0 || core_num > static_cast<int64_t>(aqo::kMaxCoreNumOverride)) {
        aqo::SetViolation(v, op, "core_num", known ? &spec : nullptr, "core count override",
                          "1..." + std::to_string(aqo::kMaxCoreNumOverride) + " (None = the table value)",
                          std::to_string(core_num),
                          known ? std::string("the table value for ") + spec.variant + " is " +
                                      std::to_string(aqo::KernelCores(spec, op)) + "; pass core_num=None to use it"
                                : std::string("pass core_num=None to use the SoC table's core count"));
        return false;
    }
    if (ub_size < 0 || ub_size > static_cast<int64_t>(aqo::kMaxUbSizeOverride)) {
        aqo::SetViolation(v, op, "ub_size", known ? &spec : nullptr, "unified buffer size override",
                          "a multiple of 32 in " + std::to_string(aqo::kMinUbSizeOverride) + "..." +
                              std::to_string(aqo::kMaxUbSizeOverride) + " bytes (None = the table value)",
                          std::to_string(ub_size),
                          known ? std::string("the table value for ") + spec.name + " is " +
                                      std::to_string(spec.ub_bytes) + " bytes; pass ub_size=None to use it"
                                : std::string("pass ub_size=None to use the SoC table's UB size"));
        return false;
    }
    out->core_num = static_cast<uint32_t>(core_num);
    out->ub_size = static_cast<uint32_t>(ub_size);
    return true;
}

}  // namespace aqo_bind
