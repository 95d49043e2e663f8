// Self-registration of binding groups, so that each bind_*.cpp adds itself to _native without editing a
// shared list: `static aqo_bind::Registrar reg("tiling", &RegisterTiling);` at namespace scope.
#pragma once
#include <nanobind/nanobind.h>

#include <vector>

namespace aqo_bind {

using RegisterFn = void (*)(nanobind::module_&);

struct Entry {
    const char* name;
    RegisterFn fn;
};

inline std::vector<Entry>& Registry()
{
    static std::vector<Entry> entries;  // function-local: safe against static initialisation order
    return entries;
}

struct Registrar {
    Registrar(const char* name, RegisterFn fn) { Registry().push_back(Entry{name, fn}); }
};

}  // namespace aqo_bind
