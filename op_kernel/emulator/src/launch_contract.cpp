// The launch contract's registries (include/emulator/launch_contract.h).
#include "emulator/launch_contract.h"

#include "emulator/launch.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace aqo_emu {
namespace {

// Filled while the module's static objects are initialised (one entry per TILING_KEY_IS use), read afterwards.
std::map<std::string, std::vector<uint64_t>>& KeyTable()
{
    static std::map<std::string, std::vector<uint64_t>> table;
    return table;
}

std::string KeyList(const std::vector<uint64_t>& keys)
{
    std::string s;
    for (uint64_t k : keys) {
        s += (s.empty() ? "" : ", ") + std::to_string(k);
    }
    return s;
}

}  // namespace

void RegisterTilingKey(const char* kernel, uint64_t key)
{
    std::vector<uint64_t>& keys = KeyTable()[kernel];
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        keys.insert(std::upper_bound(keys.begin(), keys.end(), key), key);
    }
}

std::vector<uint64_t> DeclaredTilingKeys(const std::string& kernel)
{
    const auto it = KeyTable().find(kernel);
    return it == KeyTable().end() ? std::vector<uint64_t>() : it->second;
}

std::vector<uint64_t> CompiledTilingKeys(const std::string& kernel)
{
    std::vector<uint64_t> keys = DeclaredTilingKeys(kernel);
    return keys.empty() ? std::vector<uint64_t>{0} : keys;
}

void CheckTilingKeyHasKernel(const std::string& kernel, const std::string& launch_name, uint64_t key)
{
    const std::vector<uint64_t> declared = DeclaredTilingKeys(kernel);
    const std::vector<uint64_t> compiled = CompiledTilingKeys(kernel);
    if (std::find(compiled.begin(), compiled.end(), key) != compiled.end()) {
        return;
    }
    const std::string why =
        declared.empty()
            ? "the kernel has no TILING_KEY_IS branch, so CANN's build compiles its key 0 alone"
            : "the kernel's TILING_KEY_IS branches name keys " + KeyList(declared) +
                  ", the only keys CANN's build compiles a binary for";
    throw EmulatorError("emulator: launch of " + launch_name + " (" + kernel + ") with tiling key " +
                            std::to_string(key) + ": no kernel binary for that key (" + why +
                            "); on the device the launch fails",
                        "?", 0, "", -1, "tiling key without a kernel binary");
}

// Launcher::AddWorkspace (launch.h) lives with the rest of the workspace contract.
uint8_t* Launcher::AddWorkspace(const std::string& name, void* data, uint64_t bytes, uint64_t reserved_bytes)
{
    if (bytes < reserved_bytes) {
        throw EmulatorError("emulator: workspace '" + name + "' has " + std::to_string(bytes) + " bytes, fewer than "
                                "the " + std::to_string(reserved_bytes) + " bytes of system workspace at its start",
                            "?", 0, soc_.name, -1, "workspace smaller than the system reserve");
    }
    uint8_t* base = AddGm(name, data, bytes, GmAccess::kReadWrite, GmInit::kUndefined);
    gm_.back().is_workspace = true;
    gm_.back().reserved_bytes = reserved_bytes;
    return base;
}

namespace {
const GmRegion* WorkspaceRegion()
{
    const CoreContext* c = CurrentCore();
    if (c == nullptr || c->gm == nullptr) {
        return nullptr;
    }
    for (const GmRegion& r : *c->gm) {
        if (r.is_workspace) {
            return &r;
        }
    }
    return nullptr;
}
}  // namespace

uint8_t* UserWorkspace(uint8_t* workspace, const char* file, int line)
{
    Ctx(file, line);
    const GmRegion* r = WorkspaceRegion();
    if (r == nullptr) {
        return workspace;
    }
    if (workspace != r->base) {
        Fail(file, line, "GetUserWorkspace: the argument is not the workspace the launch passed to the kernel");
    }
    return r->base + r->reserved_bytes;
}

uint8_t* SystemWorkspace()
{
    const GmRegion* r = WorkspaceRegion();
    return r == nullptr ? nullptr : r->base;
}

void FailSystemWorkspaceAccess(const GmRegion& region, uint64_t offset, uint64_t nbytes, bool write,
                               const char* file, int line, const char* api)
{
    Fail(file, line, std::string(api) + (write ? ": write to" : ": read of") + " bytes [" + std::to_string(offset) +
                         ", " + std::to_string(offset + nbytes) + ") of the workspace '" + region.name +
                         "', inside its first " + std::to_string(region.reserved_bytes) +
                         " bytes: the system workspace (framework, Matmul API); the kernel's own part starts at "
                         "GetUserWorkspace(workspace)");
}

}  // namespace aqo_emu
