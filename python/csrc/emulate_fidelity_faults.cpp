// Runner of the emulator's device-fidelity fault kernels (op_kernel/emulator/tests/emu_fidelity_test_kernels.cpp):
// each is broken in one way the device or the CANN API would punish, next to its correct twin. Exposed as
// _testing.emulator_fidelity_*; these exist to test the emulator, not for users.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "emulator/launch.h"
#include "registry.h"

#include "emulator/tests/emu_fidelity_test_kernels.cpp"  // include dir op_kernel

namespace nb = nanobind;
using aqo_emu_fidelity::FidelityEntry;
using aqo_emu_fidelity::FidelityTiling;
using aqo_emu_fidelity::YInit;

namespace {

const FidelityEntry& Find(const std::string& name)
{
    size_t n = 0;
    const FidelityEntry* e = aqo_emu_fidelity::FidelityKernels(&n);
    for (size_t i = 0; i < n; ++i) {
        if (name == e[i].name) return e[i];
    }
    throw nb::value_error(("unknown fidelity kernel " + name).c_str());
}

// Runs one kernel: x = 256 float32 (i - 100), y = 256 float32, the workspace (the SoC's system part, then 64 KiB of
// the kernel's). Returns y.
nb::bytes Run(const std::string& name, const std::string& soc, uint32_t mode)
{
    const FidelityEntry& e = Find(name);
    std::vector<uint8_t> x(256 * sizeof(float));
    for (int k = 0; k < 256; ++k) {
        const float v = static_cast<float>(k) - 100.0f;
        std::memcpy(x.data() + k * sizeof(float), &v, sizeof(float));
    }
    std::vector<uint8_t> y(256 * sizeof(float), 0);
    FidelityTiling t{};
    t.n = 64;
    t.mode = mode;
    aqo_emu::Launcher launch(soc, e.name);
    t.ubBytes = static_cast<uint32_t>(launch.soc().ub_bytes);
    if (e.kernel_type >= 0) {
        launch.SetKernelType(e.kernel_type);
    }
    launch.SetScheduleMode(e.batch_schedule ? 1u : 0u);
    launch.SetTilingKey(e.tiling_key, "");  // no TILING_KEY_IS branches to check it against
    launch.SetDeviceBlockDim(e.device_block_dim);
    const uint64_t reserve = launch.soc().system_workspace_bytes;
    const uint64_t ws_bytes = reserve + 65536;
    std::unique_ptr<uint8_t[]> ws(new uint8_t[ws_bytes]);
    std::memset(ws.get() + reserve, 0, 65536);
    uint8_t* gx = launch.AddGm("x", x.data(), x.size(), aqo_emu::GmAccess::kReadOnly);
    const aqo_emu::GmAccess y_access =
        e.y_shared ? aqo_emu::GmAccess::kReadWriteShared : aqo_emu::GmAccess::kReadWrite;
    uint8_t* gy = launch.AddGm("y", y.data(), y.size(), y_access,
                               e.y_init == YInit::kOutput ? aqo_emu::GmInit::kOutput : aqo_emu::GmInit::kData);
    uint8_t* gw = e.workspace ? launch.AddWorkspace("workspace", ws.get(), ws_bytes, reserve) : nullptr;
    uint8_t* gt = launch.SetTiling(&t, sizeof(t));
    {
        nb::gil_scoped_release release;
        launch.Run(e.block_dim, [&] { e.kernel(gx, gy, gw, gt); });
    }
    return nb::bytes(reinterpret_cast<const char*>(y.data()), y.size());
}

void RegisterFidelityFaults(nb::module_& m)
{
    m.def(
        "emulator_fidelity_names",
        []() {
            size_t n = 0;
            const FidelityEntry* e = aqo_emu_fidelity::FidelityKernels(&n);
            std::vector<std::string> names;
            for (size_t i = 0; i < n; ++i) names.emplace_back(e[i].name);
            return names;
        },
        "Names of the device-fidelity fault kernels and of their correct twins (<name>_ok).");
    m.def(
        "emulator_fidelity_block_dim", [](const std::string& name) { return Find(name).block_dim; },
        nb::arg("name"), "How many blocks the kernel is launched with.");
    m.def("emulator_fidelity_run", &Run, nb::arg("name"), nb::arg("soc"), nb::arg("mode") = 0,
          "Runs one device-fidelity kernel (fault or twin) on `soc`; returns y. A fault raises EmulatorError naming "
          "its line of op_kernel/emulator/tests/emu_fidelity_test_kernels.cpp.");
}

aqo_bind::Registrar kRegisterFidelityFaults("emulator_fidelity_faults", &RegisterFidelityFaults);

}  // namespace
