// The kernel's core mix and what it decides (include/emulator/emu_kernel_type.h).
#include "emulator/emu_kernel_type.h"

#include <string>

#include "emu_launch_state.h"
#include "emulator/launch_contract.h"

namespace aqo_emu {

const char* KernelTypeName(int type)
{
    switch (type) {
        case kKernelTypeAivOnly: return "KERNEL_TYPE_AIV_ONLY";
        case kKernelTypeAicOnly: return "KERNEL_TYPE_AIC_ONLY";
        case kKernelTypeMixAiv10: return "KERNEL_TYPE_MIX_AIV_1_0";
        case kKernelTypeMixAic10: return "KERNEL_TYPE_MIX_AIC_1_0";
        case kKernelTypeMixAic11: return "KERNEL_TYPE_MIX_AIC_1_1";
        case kKernelTypeMixAic12: return "KERNEL_TYPE_MIX_AIC_1_2";
        case kKernelTypeAiCore: return "KERNEL_TYPE_AICORE";
        case 7: return "KERNEL_TYPE_VECTORCORE";
        case 8: return "KERNEL_TYPE_MIX_AICORE";
        case 9: return "KERNEL_TYPE_MIX_VECTOR_CORE";
        case kKernelTypeUndeclared: return "no kernel type declared";
        default: return "an invalid kernel type";
    }
}

namespace {

// The type the launch gives a kernel that declares none (Launcher::SetKernelType), or undeclared.
int LaunchDefault(const CoreContext& c)
{
    return c.launch != nullptr ? c.launch->default_kernel_type : kKernelTypeUndeclared;
}

// A 1:2 mix kernel runs on vector-core pairs: an odd number of emulated vector blocks leaves one pair half
// emulated (only test scaffolding may ask for that, Launcher::AllowPartialMixGroup).
void CheckMixBlocks(const CoreContext& c, int type, const char* file, int line)
{
    const bool partial_ok = c.launch != nullptr && c.launch->partial_mix_group;
    if (type == kKernelTypeMixAic12 && c.block_dim % 2 != 0 && !partial_ok) {
        Fail(file, line, std::string("KERNEL_TYPE_MIX_AIC_1_2 on a launch of ") + std::to_string(c.block_dim) +
                             " vector blocks: every cube core of a 1:2 mix kernel starts 2 vector cores, so the "
                             "emulated launch must have an even number of them (device blockDim = cube cores)");
    }
}

}  // namespace

namespace {

// Why `type` cannot be this kernel's on the core's SoC ("" when it can).
std::string RefusedType(const CoreContext& c, int type)
{
    if (!c.soc.split_cores) {
        if (type != kKernelTypeAiCore) {
            return std::string(KernelTypeName(type)) + " is not supported on " + c.soc.name +
                   " (its AI cores couple cube and vector: the documentation lists none of the split kernel types "
                   "for it; KERNEL_TYPE_AICORE, or no declaration)";
        }
    } else if (type == kKernelTypeMixAic11) {
        return "KERNEL_TYPE_MIX_AIC_1_1 (one vector core per cube core) is not modelled: the emulator models vector "
               "kernels (KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_MIX_AIV_1_0) and the 1:2 mix kernel only";
    } else if (type != kKernelTypeAivOnly && type != kKernelTypeMixAiv10 && type != kKernelTypeMixAic12) {
        return std::string(KernelTypeName(type)) + " on " + c.soc.name +
               ": the emulator models vector kernels (KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_MIX_AIV_1_0) and the 1:2 "
               "mix kernel (KERNEL_TYPE_MIX_AIC_1_2) only";
    }
    return "";
}

// A declaration after the kernel used its type. The build reads every declaration from the preprocessed source,
// wherever it stands; the emulator resolves the type at its first use, so it refuses a later declaration (an
// emulator restriction, stricter than the build).
void CheckNotFinal(const CoreContext& c, const std::string& what, const char* file, int line)
{
    if (c.kernel_type_final) {
        Fail(file, line, what + " after the kernel used its type (GetBlockNum / GetSubBlockIdx / GetTaskRation, a "
                                "SyncAll, the Matmul registration or request, or its first vector / DMA "
                                "instruction): the emulator resolves the type there, so it needs the declarations "
                                "before (the build itself reads them wherever they stand)");
    }
}

// Where the type in force was declared (nullptr: it comes from the launch).
const char* TypeFile(const CoreContext& c)
{
    return c.key_kernel_type != kKernelTypeUndeclared ? c.key_kernel_type_file : c.kernel_type_file;
}
int TypeLine(const CoreContext& c)
{
    return c.key_kernel_type != kKernelTypeUndeclared ? c.key_kernel_type_line : c.kernel_type_line;
}

// The host's blockDim against the launch: the device starts blockDim cube cores with two vector cores each for a
// 1:2 mix kernel, blockDim vector cores for a vector kernel, blockDim AI cores on 310p; the work is planned for the
// launch's vector blocks (Run's block_dim).
void CheckDeviceBlockDim(const CoreContext& c, int type, const char* file, int line)
{
    if (c.launch == nullptr || c.launch->device_block_dim == 0) {
        return;
    }
    const uint64_t device = c.launch->device_block_dim;
    const bool mix = c.soc.split_cores && type == kKernelTypeMixAic12;
    const uint64_t started = mix ? 2 * device : device;
    if (started == c.block_dim) {
        return;
    }
    const std::string kind = !c.soc.split_cores ? "AI cores" : "vector cores";
    const std::string how = mix ? " (" + std::to_string(device) + " cube cores, 2 vector cores each)" : "";
    Fail(file, line,
         "the host's blockDim (SetBlockDim) of tiling key " + std::to_string(c.tiling_key) + " is " +
             std::to_string(device) + ": under " + KernelTypeName(type) + " the device starts " +
             std::to_string(started) + " " + kind + how + ", but the launch's work is planned for " +
             std::to_string(c.block_dim) + (started < c.block_dim ? " (the rest of the work is never done)"
                                                                  : " (the extra cores run past the plan)") +
             "; a 1:2 mix kernel's blockDim counts cube cores, a vector kernel's (KERNEL_TYPE_AIV_ONLY, "
             "KERNEL_TYPE_MIX_AIV_1_0) vector cores");
}

}  // namespace

void SetKernelTaskType(int type, const char* file, int line)
{
    CoreContext* cp = CurrentCore();
    if (cp == nullptr) return;
    CoreContext& c = *cp;
    const std::string refused = RefusedType(c, type);
    if (!refused.empty()) {
        Fail(file, line, "KERNEL_TASK_TYPE_DEFAULT: " + refused);
    }
    if (c.kernel_type != kKernelTypeUndeclared && c.kernel_type != type) {
        // (the build takes the last one in the preprocessed source; the emulator, which runs one path, cannot tell
        // which that is, so it refuses two)
        Fail(file, line, std::string("KERNEL_TASK_TYPE_DEFAULT(") + KernelTypeName(type) + ") after " +
                             KernelTypeName(c.kernel_type) + ": two different default types (the build keeps the "
                             "last in the source; the emulator refuses them)");
    }
    CheckNotFinal(c, "KERNEL_TASK_TYPE_DEFAULT", file, line);
    c.kernel_type = type;
    c.kernel_type_file = file;
    c.kernel_type_line = line;
}

void SetKernelTaskTypeForKey(uint64_t key, int type, const char* file, int line)
{
    CoreContext* cp = CurrentCore();
    if (cp == nullptr) return;
    CoreContext& c = *cp;
    const std::string what = "KERNEL_TASK_TYPE(" + std::to_string(key) + ", " + KernelTypeName(type) + ")";
    const std::string refused = RefusedType(c, type);
    if (!refused.empty()) {
        Fail(file, line, what + ": " + refused);
    }
    if (key != c.tiling_key) {
        return;  // another key's binary
    }
    if (c.key_kernel_type != kKernelTypeUndeclared && c.key_kernel_type != type) {
        Fail(file, line, what + " after " + KernelTypeName(c.key_kernel_type) + " for the same key: a key's binary "
                                "has one type");
    }
    CheckNotFinal(c, what, file, line);
    c.key_kernel_type = type;
    c.key_kernel_type_file = file;
    c.key_kernel_type_line = line;
}

void FinalizeKernelType(CoreContext& c)
{
    if (c.kernel_type_final) return;
    c.kernel_type_final = true;
    const int type = KernelType(c);
    c.cube_ratio = c.soc.split_cores && type == kKernelTypeMixAic12 ? 2u : 1u;
    // the declaration's line, else the launch's first line of the kernel (its type comes from the launch)
    const char* file = TypeFile(c) != nullptr ? TypeFile(c) : c.kernel_name.c_str();
    const int line = TypeFile(c) != nullptr ? TypeLine(c) : 0;
    if (TypeFile(c) != nullptr) {
        CheckMixBlocks(c, type, file, line);  // a declared type (a launch's own default is test scaffolding's)
    }
    CheckDeviceBlockDim(c, type, file, line);
}

int KernelType(const CoreContext& c)
{
    if (c.key_kernel_type != kKernelTypeUndeclared) return c.key_kernel_type;
    return c.kernel_type != kKernelTypeUndeclared ? c.kernel_type : LaunchDefault(c);
}

bool IsMixAic12(const CoreContext& c) { return c.soc.split_cores && KernelType(c) == kKernelTypeMixAic12; }

int64_t BlockNumOf(CoreContext& c)
{
    FinalizeKernelType(c);
    return IsMixAic12(c) ? (c.block_dim + 1) / 2 : c.block_dim;
}

int64_t TaskRationOf(CoreContext& c)
{
    FinalizeKernelType(c);
    return IsMixAic12(c) ? 2 : 1;
}

int64_t SubBlockIdxOf(CoreContext& c)
{
    FinalizeKernelType(c);
    return IsMixAic12(c) ? c.block_idx % 2 : 0;
}

void CheckSyncAll(CoreContext& c, bool hardware, bool aiv_only, const char* file, int line, const char* api)
{
    FinalizeKernelType(c);
    const int type = KernelType(c);
    const bool mix = IsMixAic12(c);
    if (mix && !hardware) {
        Fail(file, line,
             std::string(api) + " in a KERNEL_TYPE_MIX_AIC_1_2 kernel: the software SyncAll counts GetBlockNum() "
                 "cores (the cube cores) by get_block_idx(), which the two vector cores of a cube core share " +
                 (aiv_only ? "(isAIVOnly = true: their slots collide and half the cores are waited for)"
                           : "(isAIVOnly = false is not supported by the software form, per its documentation)") +
                 "; use the hardware SyncAll: SyncAll<true>() among the vector cores, SyncAll<false>() when the cube "
                 "cores call it too");
    }
    // SyncAll<true>() in a mix kernel synchronises the vector cores among themselves (dav_c220
    // kernel_operator_sync_impl.h: SYNC_AIV_ONLY_ALL, no cube core involved); Huawei's own 1:2 mix kernels with a
    // Matmul object use it between vector phases. SyncAll<false>() also waits for every cube core to reach its own
    // SyncAll: with REGIST_MATMUL_OBJ the cube cores run the Matmul API's server loop (kfc_register_obj.h) and
    // never execute the kernel body, so the vector cores would wait forever.
    if (hardware && mix && !aiv_only && c.matmul_server) {
        Fail(file, line, std::string("SyncAll<false>() in a KERNEL_TYPE_MIX_AIC_1_2 kernel with a Matmul object "
                                     "(REGIST_MATMUL_OBJ): the cube cores run the Matmul API's server and never "
                                     "reach this SyncAll, so the vector cores wait forever; use SyncAll<true>() "
                                     "(the vector cores only)"));
    }
    if (hardware && !aiv_only && !mix) {
        Fail(file, line, std::string(api) + "<false> in a kernel that is not a cube + vector mix kernel (" +
                             KernelTypeName(type) + "): it waits for cube cores the launch does not start");
    }
    if (hardware && c.soc.split_cores && type == kKernelTypeAivOnly) {
        Fail(file, line, std::string(api) +
                             " in a KERNEL_TYPE_AIV_ONLY kernel: the hardware cross-core synchronisation comes with "
                             "KERNEL_TYPE_MIX_AIV_1_0 (documentation of the kernel types: the vector kernel type "
                             "'with hardware synchronisation')");
    }
    if (hardware && SystemWorkspace() == nullptr) {
        Fail(file, line, std::string(api) + ": the hardware SyncAll needs the launch's workspace (its documentation: "
                                            "a custom operator whose tiling sets a non-zero workspace size); "
                                            "this launch has none");
    }
    // Every core of the launch must run at once, which only the batch schedule mode promises (documentation of
    // TilingContext::SetScheduleMode: operators that synchronise cores set it); in the normal mode the framework may
    // start part of the cores while other streams hold the rest, and those wait in the barrier for ever.
    if (c.launch != nullptr && c.launch->schedule_mode != 1) {
        Fail(file, line, std::string(api) + " in a launch whose schedule mode is not batch: the host's TilingFunc must "
                                            "call SetScheduleMode(1) for a kernel that synchronises its cores, or "
                                            "beside other streams some cores wait for cores that never start");
    }
    // The launch's blocks must all be resident at once: with more logical blocks than cores the framework runs them
    // in rounds and the barrier waits for blocks that have not started (documentation of SyncAll).
    const int64_t blocks = BlockNumOf(c);
    const uint32_t cores = !c.soc.split_cores ? c.soc.cube_cores : (mix ? c.soc.cube_cores : c.soc.vector_cores);
    if (blocks > static_cast<int64_t>(cores)) {
        Fail(file, line, std::string(api) + ": the launch has " + std::to_string(blocks) + " blocks (blockDim) but " +
                             c.soc.name + " has " + std::to_string(cores) + " " +
                             (!c.soc.split_cores ? "AI cores" : (mix ? "cube cores" : "vector cores")) +
                             ": the framework would run the blocks in rounds and the barrier waits forever (at most "
                             "the core count with any SyncAll)");
    }
}

void CheckMixCubeGuard(CoreContext& c, const char* file, int line, const char* api)
{
    if (c.cube_guard_checked) return;
    c.cube_guard_checked = true;
    FinalizeKernelType(c);
    if (!IsMixAic12(c) || c.matmul_server || c.core_kind_asked) return;
    const bool declared = TypeFile(c) != nullptr;  // the key's declaration, else the default's
    const std::string first = std::string(api) + " at " + (file ? file : "?") + ":" + std::to_string(line);
    Fail(declared ? TypeFile(c) : file, declared ? TypeLine(c) : line,
         std::string("KERNEL_TYPE_MIX_AIC_1_2") + (declared ? "" : " (the type the build gives this kernel)") +
             ": the cube cores run the kernel function too; this path has no Matmul object (REGIST_MATMUL_OBJ), so "
             "the cube cores would execute its vector and DMA instructions: return on them first "
             "(if ASCEND_IS_AIC { return; }). The first such instruction: " + first +
             ", reached without the kernel evaluating ASCEND_IS_AIC / ASCEND_IS_AIV / ASCEND_IS_NOT_AIC / "
             "ASCEND_IS_NOT_AIV");
}

void CheckMatmulRegistration(CoreContext& c, const void* workspace, const char* file, int line)
{
    if (!c.soc.split_cores) {
        return;  // 310p: MatmulImpl runs on the AI core itself; the workspace argument is unused
    }
    FinalizeKernelType(c);
    c.matmul_server = true;
    if (!IsMixAic12(c)) {
        Fail(file, line,
             std::string("REGIST_MATMUL_OBJ in a kernel of type ") + KernelTypeName(KernelType(c)) + " on " +
                 c.soc.name + ": the Matmul API's server runs on the cube core of a KERNEL_TYPE_MIX_AIC_1_2 kernel; "
                 "without one no cube core starts and every Matmul call waits forever. Declare "
                 "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2)");
    }
    const uint8_t* sys = SystemWorkspace();
    if (workspace == nullptr || sys == nullptr || workspace != sys) {
        Fail(file, line,
             std::string("REGIST_MATMUL_OBJ: the workspace argument ") +
                 (workspace == nullptr ? "is null" : "is not GetSysWorkSpacePtr()") +
                 (sys == nullptr ? " (and the launch has no workspace)" : "") +
                 ": the cube core's server and the vector cores' clients exchange their messages in the system "
                 "workspace (kfc_register_obj.h: KfcServer::Init and KfcCommClient take it); any other address puts "
                 "them over the kernel's (or the framework's) data. Pass GetSysWorkSpacePtr()");
    }
}

void SetCtrl(uint64_t config, const char* file, int line)
{
    CoreContext* cp = CurrentCore();
    if (cp == nullptr) return;
    CoreContext& c = *cp;
    const uint64_t bit48 = uint64_t{1} << 48;
    const uint64_t changed = config ^ c.ctrl;
    if ((changed & ~bit48) != 0) {
        Fail(file, line, "set_ctrl: changes CTRL bits other than 48; the emulator models CTRL[48] only (the "
                         "saturation mode of half / bfloat16 results)");
    }
    if (!c.soc.split_cores) {
        if ((changed & bit48) != 0) {
            Fail(file, line, std::string("set_ctrl: CTRL[48] on ") + c.soc.name +
                                 ": the SetCtrlSpr page documents it for Atlas A2 / A3 and Ascend 950 only; "
                                 "ascend310p computes in its saturation mode");
        }
        c.ctrl = config;
        return;
    }
    // The instructions issued so far ran under the launch's CTRL[48], whose value is not documented: once any was
    // issued, a write of the bit is a mode change under one of its plausible values, unless the kernel had already
    // fixed the bit (before them) and keeps it.
    const bool keeps_own = c.ctrl48_fixed_by_kernel && (changed & bit48) == 0;
    if (c.cube_guard_checked && !keeps_own) {
        Fail(file, line, "set_ctrl: CTRL[48] written after the core's first vector or DMA instruction, which ran "
                         "under the launch's mode (not documented: saturating or IEEE), so the mode may change in "
                         "the middle of the kernel: set it before any of them");
    }
    c.ctrl = config;
    c.ctrl48_fixed_by_kernel = true;
    c.ctrl48_set_by_kernel = ((config >> 48) & 1u) != 0;
    // A set after the kernel asked which core it runs on may sit in a branch the cube core skips: then it does not
    // count for the cube (REGIST_MATMUL_OBJ).
    c.ctrl48_set_on_every_core = c.ctrl48_set_by_kernel && !c.core_kind_asked;
}

}  // namespace aqo_emu
