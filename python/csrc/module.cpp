// ascend_quant_ops._native: the compiled core seen from Python. Each area registers its own bindings from its
// own file (bind_*.cpp); this file only lists them.
#include <nanobind/nanobind.h>

namespace nb = nanobind;

void RegisterTables(nb::module_& m);  // bind_tables.cpp: dtype table

NB_MODULE(_native, m)
{
    m.doc() = "ascend_quant_ops compiled core: tables, host tiling, AscendC CPU emulator";
    RegisterTables(m);
}
