// ascend_quant_ops._native: the compiled core seen from Python. Each bind_*.cpp registers its own group of
// bindings through registry.h; `_native.binding_groups()` lists what this build contains.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "registry.h"

namespace nb = nanobind;

NB_MODULE(_native, m)
{
    m.doc() = "ascend_quant_ops compiled core: tables, host tiling, AscendC CPU emulator";
    std::vector<std::string> names;
    for (const aqo_bind::Entry& e : aqo_bind::Registry()) {
        e.fn(m);
        names.emplace_back(e.name);
    }
    m.def("binding_groups", [names]() { return names; }, "Names of the binding groups compiled into _native.");
}
