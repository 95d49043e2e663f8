// ascend_quant_ops_testing: the verification fixtures of the AscendC CPU emulator (its fault kernels and demo
// kernels, python/csrc/*_test_kernels.cpp and *_faults.cpp) with the generic emulator bindings (bind_emulator.cpp).
// The tests import it; the wheel never ships it (CMake option AQO_BUILD_TESTING_MODULE, no install rule).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "registry.h"

namespace nb = nanobind;

NB_MODULE(ascend_quant_ops_testing, m)
{
    m.doc() = "ascend_quant_ops test fixtures: the emulator's fault and demo kernels (not part of the package)";
    std::vector<std::string> names;
    for (const aqo_bind::Entry& e : aqo_bind::Registry()) {
        e.fn(m);
        names.emplace_back(e.name);
    }
    m.def("binding_groups", [names]() { return names; }, "Names of the binding groups compiled into this module.");
}
