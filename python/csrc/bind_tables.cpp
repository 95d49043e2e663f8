// Binding of the dtype table (op_host/tiling_core/dtype_table.h) so that Python never restates it.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "dtype_table.h"
#include "registry.h"

namespace nb = nanobind;

namespace {
void RegisterTables(nb::module_& m)
{
    m.def(
        "dtype_table",
        []() {
            size_t n = 0;
            const aqo::DTypeInfo* t = aqo::DTypeTable(&n);
            nb::list out;
            for (size_t i = 0; i < n; ++i) {
                nb::dict d;
                d["id"] = static_cast<int>(t[i].id);
                d["name"] = std::string(t[i].name);
                d["bytes"] = t[i].bytes;
                d["is_float"] = t[i].is_float;
                d["is_signed"] = t[i].is_signed;
                d["quant_max"] = t[i].quant_max;
                d["atb_code"] = t[i].atb_code;
                d["finite_max"] = t[i].finite_max;
                d["int_min"] = t[i].int_min;
                d["int_max"] = t[i].int_max;
                d["nan_code"] = t[i].nan_code;
                out.append(d);
            }
            return out;
        },
        "The package's dtype table: one dict per dtype (name, bytes, is_float, is_signed, quant_max, atb_code,\nfinite_max for float types, int_min / int_max for integer types, nan_code for 8-bit float types).");
}

aqo_bind::Registrar kRegisterTables("tables", &RegisterTables);
}  // namespace
