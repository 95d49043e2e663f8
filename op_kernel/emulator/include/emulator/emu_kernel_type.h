// The kernel's core mix (KERNEL_TASK_TYPE_DEFAULT, KERNEL_TASK_TYPE per tiling key) and what it decides: how
// GetBlockNum / GetBlockIdx / GetSubBlockIdx / GetTaskRation report the launch, which SyncAll forms work, whether the
// Matmul API has a cube server, and how many blocks a launch with a cross-core barrier may have.
//
// Sources: the AscendC documentation of "设置Kernel类型" (KERNEL_TASK_TYPE_DEFAULT, CANN 8.0 / 8.1: AIV_ONLY starts
// blockDim vector cores; MIX_AIV_1_0 the same with the hardware cross-core synchronisation; MIX_AIC_1_2 starts
// blockDim cube cores and 2 x blockDim vector cores; MIX_AIC_1_1 reserved, not supported; none of the split types on
// the 310p AI core); CANN 8.1.RC1 dav_c220/kernel_operator_common_impl.h (on a vector core GetBlockIdx =
// get_block_idx() * GetTaskRation() + get_subblockid(), GetTaskRation = get_subblockdim(), 2 on the vector cores of a
// 1:2 mix kernel) and dav_c220/kernel_operator_sync_impl.h (the software SyncAll counts GetBlockNum() cores by
// get_block_idx() when isAIVOnly); the SyncAll documentation (isAIVOnly false with a mix kernel, the software form
// does not support it, the launch's blockDim at most the physical core count, the hardware form needs a workspace).
//
// The emulator runs the vector cores only (the cube's work is done inside the Matmul API's calls): a launch's
// block_dim counts vector cores, so a 1:2 mix kernel of device blockDim B is emulated as 2 B blocks, block b being
// vector core b % 2 of cube core b / 2.
#pragma once

#include <cstdint>

#include "emulator/emu_context.h"

namespace aqo_emu {

// KernelMetaType values (AscendC's enum, emu_sync.h).
enum KernelTypeCode : int {
    kKernelTypeUndeclared = -1,
    kKernelTypeAivOnly = 0,
    kKernelTypeAicOnly = 1,
    kKernelTypeMixAiv10 = 2,
    kKernelTypeMixAic10 = 3,
    kKernelTypeMixAic11 = 4,
    kKernelTypeMixAic12 = 5,
    kKernelTypeAiCore = 6,
};
const char* KernelTypeName(int type);

// KERNEL_TASK_TYPE_DEFAULT(type) in the kernel: refused where the SoC has no such type (or the emulator does not
// model it), or after the kernel used its type.
void SetKernelTaskType(int kernel_meta_type, const char* file, int line);
// KERNEL_TASK_TYPE(key, type): the type of one tiling key's binary, over the default (CANN 8.1's compile_op.py reads
// every declaration and builds each key with its own type: a MIX_AIV_1_0 key is compiled for the vector cores alone,
// with a 0:1 task ration). Checked as the default is; only the launch's key's declaration takes effect.
void SetKernelTaskTypeForKey(uint64_t key, int kernel_meta_type, const char* file, int line);
// The kernel's type for the launch's key: its KERNEL_TASK_TYPE for that key, else its KERNEL_TASK_TYPE_DEFAULT, else
// what the runner says the build gives it (Launcher::SetKernelType), else kKernelTypeUndeclared.
int KernelType(const CoreContext& c);
bool IsMixAic12(const CoreContext& c);
// The type's first use (GetBlockNum / GetSubBlockIdx / GetTaskRation, a SyncAll, the Matmul registration or
// request, the first vector / DMA instruction, else the kernel's end; GetBlockIdx does not depend on the type): the
// launch is checked against it once (a 1:2 mix kernel on whole pairs of vector blocks;
// the host's blockDim, Launcher::SetDeviceBlockDim, starting exactly the launch's vector blocks under the type), and
// later declarations are refused.
void FinalizeKernelType(CoreContext& c);

// What the system variables report on the current vector core.
int64_t BlockNumOf(CoreContext& c);     // the device launch's blockDim (1:2 mix: cube cores)
int64_t TaskRationOf(CoreContext& c);   // vector cores per cube core (2 in a 1:2 mix kernel, else 1)
int64_t SubBlockIdxOf(CoreContext& c);  // this vector core within its cube core's pair

// A SyncAll's preconditions: the form against the kernel type, the launch's blocks against the SoC's cores, the
// hardware form's workspace.
void CheckSyncAll(CoreContext& c, bool hardware, bool aiv_only, const char* file, int line, const char* api);
// A 1:2 mix kernel on a split SoC: the cube cores run the kernel function too (the emulator runs only the vector
// cores). A path that registers no Matmul object (REGIST_MATMUL_OBJ makes the cube cores run the API's server and
// return) must return on the cube cores before any vector or DMA instruction, so the kernel must have evaluated
// ASCEND_IS_AIC / ASCEND_IS_AIV / ASCEND_IS_NOT_AIC / ASCEND_IS_NOT_AIV by then. Called (by Issue, emu_order.cpp) at
// the core's first instruction on V, MTE2 or MTE3; fails at the type's declaration (the key's KERNEL_TASK_TYPE, else
// KERNEL_TASK_TYPE_DEFAULT; at the instruction when the type comes from the launch) when the core has neither a
// Matmul object nor asked which core it is.
void CheckMixCubeGuard(CoreContext& c, const char* file, int line, const char* api);

// REGIST_MATMUL_OBJ: on split SoCs a 1:2 mix kernel (else no cube server runs and every Matmul call waits forever),
// and the workspace argument the cube server and the clients exchange their messages in: GetSysWorkSpacePtr().
void CheckMatmulRegistration(CoreContext& c, const void* workspace, const char* file, int line);

}  // namespace aqo_emu
