// What a launch must agree on with CANN's build and runtime beyond the kernel's own code: which tiling keys have a
// kernel binary, and where the kernel's own workspace starts.
//
// Tiling keys. CANN's op build preprocesses the kernel source and compiles one kernel binary per key that a
// TILING_KEY_IS(<number>) names (python/site-packages/tbe/tikcpp/compile_op.py of the toolkit: it collects the
// numbers of `g_tilingKey == (N` in the preprocessed source; with none it compiles key 0 alone). A launch whose
// TilingFunc set any other key finds no binary. The emulator's TILING_KEY_IS(key) registers its key, when the
// module loads, for the kernel it is compiled into: the name of AqoEmuKernelTag as the kernel's code sees it (a
// runner declares `struct AqoEmuKernelTag { static constexpr const char* kName = "<kernel>/<soc>"; };` in the
// namespace it includes the kernel into; untagged code gets the global one below). Like the build, it takes
// constant keys only (a template argument). Launcher::SetTilingKey(key, tag) names the kernel; Run() then refuses
// a key the kernel does not declare.
//
// Workspace. The workspace a launch passes starts with the system workspace (framework, Matmul API messages;
// RESERVED_WORKSPACE of the AscendC headers: 2 MiB on 310p, 16 MiB on 910b); a kernel's own data starts after it:
// GetUserWorkspace(workspace) returns that address on the device whatever the argument, and the host sizes the
// workspace as the system part (GetLibApiWorkSpaceSize) plus the kernel's. A kernel that uses the raw workspace
// pointer writes into the system part. The launcher registers the workspace with its reserved prefix
// (Launcher::AddWorkspace, size from the SoC table); any kernel access to the prefix fails at the kernel's line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emulator/emu_context.h"

namespace aqo_emu {

void RegisterTilingKey(const char* kernel, uint64_t key);
// The keys `kernel` names in TILING_KEY_IS, sorted; empty when it names none.
std::vector<uint64_t> DeclaredTilingKeys(const std::string& kernel);
// The keys the build compiles a binary for: the declared ones, or key 0 alone when none is declared.
std::vector<uint64_t> CompiledTilingKeys(const std::string& kernel);
// Throws EmulatorError (outside any core: the launch finds no kernel) unless `key` is a compiled key of `kernel`.
void CheckTilingKeyHasKernel(const std::string& kernel, const std::string& launch_name, uint64_t key);

template <class Tag, uint64_t kKey>
struct TilingKeyDeclaration {
    static const bool registered;
};
template <class Tag, uint64_t kKey>
const bool TilingKeyDeclaration<Tag, kKey>::registered = (RegisterTilingKey(Tag::kName, kKey), true);

template <class Tag, uint64_t kKey>
inline bool TilingKeyIs()
{
    (void)TilingKeyDeclaration<Tag, kKey>::registered;  // odr-use: instantiated, so registered at load time
    const CoreContext* c = CurrentCore();
    return (c ? c->tiling_key : 0) == kKey;
}

// GetUserWorkspace: the launch's workspace after its system part. `workspace` must be the workspace the launcher
// passed (Fail otherwise); without a registered workspace the argument comes back unchanged.
uint8_t* UserWorkspace(uint8_t* workspace, const char* file, int line);
// GetSysWorkSpacePtr: the start of the launch's workspace (nullptr without one).
uint8_t* SystemWorkspace();
// CheckGmRange's refusal of an access to the system part of a workspace.
[[noreturn]] void FailSystemWorkspaceAccess(const GmRegion& region, uint64_t offset, uint64_t nbytes, bool write,
                                            const char* file, int line, const char* api);

}  // namespace aqo_emu

// The tag of kernel code compiled outside a runner's tagged namespace.
struct AqoEmuKernelTag {
    static constexpr const char* kName = "(untagged kernel)";
};
