// Test kernels of the launch contract between host and kernel (op_kernel/emulator/include/emulator/
// launch_contract.h): tiling keys without a kernel binary (and, with the workspace model, writes into the
// system-reserved workspace). Each wrong use is marked `// FAULT: <name>` where a kernel line is at fault; a launch
// refused before any kernel runs names no line. Exposed as _native.host_contract_fault(name, soc) and
// _native.host_contract_demo(...); these exist to test the emulator, not for users.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "emulator/launch.h"
#include "emulator/launch_contract.h"
#include "registry.h"

// A kernel without TILING_KEY_IS: CANN's build compiles key 0 alone.
namespace aqo_contract_no_keys {
struct AqoEmuKernelTag {
    static constexpr const char* kName = "contract_no_keys";
};
using namespace AscendC;
inline void Kernel(GM_ADDR out)
{
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(out), 8);
    g.SetValue(0, 100);
    DataCacheCleanAndInvalid<int32_t, CacheLine::SINGLE_CACHE_LINE>(g);  // the scalar write reaches GM
}
}  // namespace aqo_contract_no_keys

// A kernel with one branch per mode, as the vendor kernels dispatch: keys 0 and 1 have binaries.
namespace aqo_contract_two_keys {
struct AqoEmuKernelTag {
    static constexpr const char* kName = "contract_two_keys";
};
using namespace AscendC;
inline void Kernel(GM_ADDR out)
{
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(out), 8);
    if (TILING_KEY_IS(0)) {
        g.SetValue(0, 200);
    } else if (TILING_KEY_IS(1)) {
        g.SetValue(0, 201);
    }
    DataCacheCleanAndInvalid<int32_t, CacheLine::SINGLE_CACHE_LINE>(g);  // the scalar write reaches GM
}
}  // namespace aqo_contract_two_keys

// Workspace kernels: one worker's block of 8 int32 at the start of the kernel's own workspace.
namespace aqo_contract_workspace {
using namespace AscendC;
inline void WriteBlock(GM_ADDR at)
{
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(at), 8);
    for (int32_t i = 0; i < 8; ++i) {
        g.SetValue(i, 300 + i);
    }
    DataCacheCleanAndInvalid<int32_t, CacheLine::SINGLE_CACHE_LINE>(g);  // the scalar writes reach GM
}
// What QLinearMatMul did on 310p: the raw workspace pointer, which is the system workspace.
inline void RawPointer(GM_ADDR workspace)
{
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(workspace), 8);
    g.SetValue(0, 300);  // FAULT: workspace_raw_pointer
}
inline void UserPart(GM_ADDR workspace) { WriteBlock(GetUserWorkspace(workspace)); }
inline void ForeignPointer(GM_ADDR workspace)
{
    WriteBlock(GetUserWorkspace(workspace + 32));  // FAULT: get_user_workspace_foreign_pointer
}
}  // namespace aqo_contract_workspace

namespace nb = nanobind;

namespace {

// Launches a workspace kernel on one block with `user_bytes` of its own after the SoC's system workspace; returns
// the kernel's part.
std::vector<int32_t> LaunchWorkspace(const std::string& soc, void (*kernel)(GM_ADDR), uint64_t reserve,
                                     uint64_t user_bytes)
{
    std::vector<uint8_t> ws(reserve + user_bytes, 0);
    aqo_emu::Launcher launch(soc, "contract_workspace");
    uint8_t* g = launch.AddWorkspace("workspace", ws.data(), ws.size(), reserve);
    launch.Run(1, [&] { kernel(g); });
    std::vector<int32_t> out(user_bytes / 4);
    std::memcpy(out.data(), ws.data() + reserve, user_bytes);
    return out;
}

typedef void (*Kernel)(GM_ADDR);

// Launches `kernel` (tagged `tag`) with tiling key `key` on one block; returns the int32 it wrote (-1: none).
int32_t Launch(const std::string& soc, Kernel kernel, const char* tag, uint64_t key)
{
    std::vector<int32_t> out(8, -1);
    aqo_emu::Launcher launch(soc, tag);
    uint8_t* g = launch.AddGm("out", out.data(), out.size() * 4, aqo_emu::GmAccess::kReadWrite,
                              aqo_emu::GmInit::kData);  // -1: not written
    launch.SetTilingKey(key, tag);
    launch.Run(1, [&] { kernel(g); });
    return out[0];
}

struct Fault {
    const char* name;
    Kernel kernel;
    const char* tag;
    uint64_t key;
};
const Fault kFaults[] = {
    // Stream-mode DynamicQuant before its kernel had TILING_KEY_IS: the TilingFunc set key 1, the build had key 0.
    {"tiling_key_without_branch", &aqo_contract_no_keys::Kernel, aqo_contract_no_keys::AqoEmuKernelTag::kName, 1},
    {"tiling_key_not_declared", &aqo_contract_two_keys::Kernel, aqo_contract_two_keys::AqoEmuKernelTag::kName, 2},
};

void RegisterHostContractTests(nb::module_& m)
{
    std::vector<std::string> names;
    for (const Fault& f : kFaults) {
        names.emplace_back(f.name);
    }
    m.def("host_contract_fault_names", [names]() { return names; },
          "Names of the launch-contract fault kernels (python/csrc/emulate_host_contract_faults.cpp).");
    m.def(
        "host_contract_fault",
        [](const std::string& name, const std::string& soc) {
            for (const Fault& f : kFaults) {
                if (name == f.name) {
                    Launch(soc, f.kernel, f.tag, f.key);  // the EmulatorError propagates (bind_emulator.cpp)
                    return;
                }
            }
            throw nb::value_error(("unknown launch-contract fault " + name).c_str());
        },
        nb::arg("name"), nb::arg("soc") = "ascend910b",
        "Runs one launch that breaks the host / kernel contract; raises EmulatorError.");
    m.def(
        "host_contract_tiling_key_demo",
        [](bool two_keys, uint64_t key, const std::string& soc) {
            return two_keys ? Launch(soc, &aqo_contract_two_keys::Kernel, aqo_contract_two_keys::AqoEmuKernelTag::kName,
                                     key)
                            : Launch(soc, &aqo_contract_no_keys::Kernel, aqo_contract_no_keys::AqoEmuKernelTag::kName,
                                     key);
        },
        nb::arg("two_keys"), nb::arg("key"), nb::arg("soc") = "ascend910b",
        "Launches the no-key or the two-key test kernel with a tiling key; returns the value its branch wrote.");
    m.def(
        "host_contract_workspace",
        [](const std::string& kernel, const std::string& soc, uint64_t reserve) {
            void (*k)(GM_ADDR) = kernel == "user_part"         ? &aqo_contract_workspace::UserPart
                                 : kernel == "raw_pointer"     ? &aqo_contract_workspace::RawPointer
                                 : kernel == "foreign_pointer" ? &aqo_contract_workspace::ForeignPointer
                                                               : nullptr;
            if (k == nullptr) {
                throw nb::value_error(("unknown workspace kernel " + kernel).c_str());
            }
            return LaunchWorkspace(soc, k, reserve, 64);
        },
        nb::arg("kernel"), nb::arg("soc"), nb::arg("reserve"),
        "Runs a workspace test kernel ('user_part', 'raw_pointer' (FAULT workspace_raw_pointer), "
        "'foreign_pointer' (FAULT get_user_workspace_foreign_pointer)) with `reserve` bytes of system workspace "
        "and 64 of its own; returns its own part as int32.");
}

aqo_bind::Registrar kRegisterHostContractTests("host_contract_tests", &RegisterHostContractTests);

}  // namespace
