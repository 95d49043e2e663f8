// Fault kernels of the emulator's device-fidelity rules: what the device or the CANN 8.1.RC1 API does that a lenient
// emulator would accept (flags as one bit, the Compare count forms, the scalar data cache, outputs and workspaces not
// zeroed, the 310p Matmul's C write-back, mix kernels, SyncAll's preconditions, the API's UB scratch, per-API element
// types, ...). Written against the AscendC API exactly as device kernels are.
//
// Each fault kernel is broken in one way; the faulty line carries a marker comment "FAULT(<name>)", and
// tests/emulator/test_emulator_fidelity.py requires the EmulatorError at that line of this file. Each has a correct
// twin "<name>_ok" (the same kernel done right) that must pass. Every kernel runs with
//   x: 256 float32 (read-only GM, x[i] = i - 100), y: 256 float32 (read-write GM; FidelityEntry::y_init says whether
//   it starts as data (zeros) or as an output the kernel must write completely), workspace: the SoC's system
//   workspace followed by 64 KiB of the kernel's own, tiling: FidelityTiling.
//
// Included once by python/csrc/emulate_fidelity_faults.cpp; the SoC is chosen at run time by the launcher.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;

namespace aqo_emu_fidelity {

struct FidelityTiling {
    uint32_t n;
    uint32_t mode;
    uint32_t ubBytes;  // the SoC's UB size
};

using Kernel = void (*)(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling);

// How y starts: as data the host wrote (zeros), or as an output (poisoned, never written: every byte must be written
// by the kernel before the launch ends).
enum class YInit : uint32_t { kData = 0, kOutput };

template <HardEvent E> inline void WaitPipe(TPipe& pipe)
{
    const event_t id = static_cast<event_t>(pipe.FetchEventID(E));
    SetFlag<E>(id);
    WaitFlag<E>(id);
}

// A small int8 Matmul (A [8, 32] x B [32, 16] -> C int32 [8, 16]) and its tiling.
using SmallMatmul = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, int8_t>,
                           MatmulType<TPosition::GM, CubeFormat::ND, int8_t>,
                           MatmulType<TPosition::GM, CubeFormat::ND, int32_t>>;
inline TCubeTiling SmallTiling()
{
    TCubeTiling t;
    t.M = t.singleCoreM = 8;
    t.N = t.singleCoreN = 16;
    t.Ka = t.Kb = t.singleCoreK = 32;
    t.baseM = 16;
    t.baseN = 16;
    t.baseK = 32;
    t.depthA1 = t.depthB1 = 1;
    t.stepM = t.stepN = t.stepKa = t.stepKb = 1;
    t.transLength = 16 * 16 * 4;
    return t;
}

// ---------------------------------------------------------------------------------------------------------------
// Flags are one bit per (event, id)
// ---------------------------------------------------------------------------------------------------------------

// Two SetFlags of one event and id before their WaitFlags: they merge into one bit on the device.
template <bool kOk> inline void FlagDoubleSet(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 8);
    const event_t id = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
    SetFlag<HardEvent::V_S>(id);
    if (kOk) WaitFlag<HardEvent::V_S>(id);
    Duplicate(t[8], 2.0f, 8);
    SetFlag<HardEvent::V_S>(id);  // FAULT(double_set_flag)
    if (!kOk) WaitFlag<HardEvent::V_S>(id);
    WaitFlag<HardEvent::V_S>(id);
    (void)t.GetValue(8);
}

// The kernel's own SetFlag on the id a VECIN queue's EnQue holds (MTE2_V id 0). The twin takes its own id.
template <bool kOk> inline void FlagOnQueueHeldId(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(q, 1, 256);
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> in = q.AllocTensor<float>();
    DataCopy(in, xg, 64);
    q.EnQue(in);
    LocalTensor<float> other = b.Get<float>();
    DataCopy(other, xg[64], 64);
    const event_t id = kOk ? static_cast<event_t>(pipe.AllocEventID<HardEvent::MTE2_V>()) : EVENT_ID0;
    SetFlag<HardEvent::MTE2_V>(id);  // FAULT(set_flag_on_queue_held_id)
    WaitFlag<HardEvent::MTE2_V>(id);
    if (kOk) pipe.ReleaseEventID<HardEvent::MTE2_V>(id);
    LocalTensor<float> got = q.DeQue<float>();
    Add(got, got, other, 64);
    q.FreeTensor(got);
}

// A SetFlag never waited for: SetFlag and WaitFlag must be paired.
template <bool kOk> inline void FlagLeftPending(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 3.0f, 64);
    const event_t toMte3 = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3));
    SetFlag<HardEvent::V_MTE3>(toMte3);
    WaitFlag<HardEvent::V_MTE3>(toMte3);
    DataCopy(yg, t, 64);
    const event_t toV = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE3_V));
    SetFlag<HardEvent::MTE3_V>(toV);  // FAULT(set_flag_left_pending)
    if (kOk) WaitFlag<HardEvent::MTE3_V>(toV);
}

// A kernel flag pending across a ReduceMax: the API's internal V_S pair takes the same id from FetchEventID. The
// twin holds its id with AllocEventID, so the API's FetchEventID returns another.
template <bool kOk> inline void FlagPendingAcrossReduce(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> w;
    TBuf<TPosition::VECCALC> d;
    pipe.InitBuffer(b, 256);
    pipe.InitBuffer(w, 64);
    pipe.InitBuffer(d, 32);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t, xg, 64);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    Abs(t, t, 64);
    const event_t id = kOk ? static_cast<event_t>(pipe.AllocEventID<HardEvent::V_S>())
                           : static_cast<event_t>(pipe.FetchEventID<HardEvent::V_S>());
    SetFlag<HardEvent::V_S>(id);  // the kernel means to read t[0] later
    PipeBarrier<PIPE_V>();
    ReduceMax(d.Get<float>(), t, w.Get<float>(), 64, false);  // FAULT(flag_pending_across_reduce)
    WaitFlag<HardEvent::V_S>(id);
    if (kOk) pipe.ReleaseEventID<HardEvent::V_S>(id);
    (void)t.GetValue(0);
    WaitPipe<HardEvent::V_S>(pipe);
    (void)d.Get<float>().GetValue(0);
}

// ReleaseEventID of an id the kernel never allocated (a queue's).
template <bool kOk> inline void ReleaseForeignEventId(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 256);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> in = q.AllocTensor<float>();
    DataCopy(in, xg, 64);
    q.EnQue(in);
    const int32_t mine = pipe.AllocEventID<HardEvent::MTE2_V>();  // id 1: the queue holds id 0
    pipe.ReleaseEventID<HardEvent::MTE2_V>(kOk ? mine : 0);  // FAULT(release_foreign_event_id)
    if (!kOk) pipe.ReleaseEventID<HardEvent::MTE2_V>(mine);
    LocalTensor<float> got = q.DeQue<float>();
    q.FreeTensor(got);
}

// On split SoCs the Matmul client (REGIST_MATMUL_OBJ) holds MTE3_S id 0 with a SetFlag pending between messages: a
// kernel SetFlag / WaitFlag of MTE3_S with id 0 takes the client's bit. ascend310p has no client (accepted there).
template <bool kOk> inline void FlagOnMatmulClientId(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ws;
    TBuf<TPosition::VECCALC> b;
    SmallMatmul mm;
    TCubeTiling tiling = SmallTiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    pipe.InitBuffer(ws, 65536);
    mm.SetLocalWorkspace(ws.Get<uint8_t>());
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 64);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg, t, 64);
    const event_t id = kOk ? static_cast<event_t>(pipe.FetchEventID<HardEvent::MTE3_S>()) : EVENT_ID0;
    SetFlag<HardEvent::MTE3_S>(id);  // FAULT(flag_on_matmul_client_id)
    WaitFlag<HardEvent::MTE3_S>(id);
    (void)x;
}

// ---------------------------------------------------------------------------------------------------------------
// Compare / CompareScalar count forms
// ---------------------------------------------------------------------------------------------------------------

// 40 floats are not one whole 256-byte repeat: the device compares none of them (the mask keeps stale bits).
template <bool kOk> inline void ComparePartialRepeat(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> a;
    TBuf<TPosition::VECCALC> m;
    TBuf<TPosition::VECCALC> o;
    pipe.InitBuffer(a, 256);
    pipe.InitBuffer(m, 32);
    pipe.InitBuffer(o, 256);
    GlobalTensor<float> xg;
    GlobalTensor<float> yg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = a.Get<float>();
    LocalTensor<uint8_t> mask = m.Get<uint8_t>();
    LocalTensor<float> r = o.Get<float>();
    DataCopy(t, xg[80], 64);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    CompareScalar(mask, t, 0.0f, CMPMODE::GT, kOk ? 64u : 40u);  // FAULT(compare_partial_repeat)
    PipeBarrier<PIPE_V>();
    Select(r, mask, t, -1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg, r, 64);
}

// int32 Compare with GT: the int32 instruction compares for equality only (ascend910b); ascend310p has no int32
// Compare. The twin compares the float values.
template <bool kOk> inline void CompareInt32NotEq(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> f;
    TBuf<TPosition::VECCALC> i;
    TBuf<TPosition::VECCALC> m;
    pipe.InitBuffer(f, 512);
    pipe.InitBuffer(i, 512);
    pipe.InitBuffer(m, 32);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> fv = f.Get<float>();
    LocalTensor<int32_t> iv = i.Get<int32_t>();
    LocalTensor<uint8_t> mask = m.Get<uint8_t>();
    DataCopy(fv, xg, 128);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    if (kOk) {
        Compare(mask, fv, fv[64], CMPMODE::GT, 64);
    } else {
        Cast(iv, fv, RoundMode::CAST_RINT, 128);
        PipeBarrier<PIPE_V>();
        Compare(mask, iv, iv[64], CMPMODE::GT, 64);  // FAULT(compare_int32_not_eq)
    }
    WaitPipe<HardEvent::V_S>(pipe);
    (void)mask.GetValue(0);
}

// ---------------------------------------------------------------------------------------------------------------
// Mix kernels, SyncAll's preconditions, REGIST_MATMUL_OBJ
// ---------------------------------------------------------------------------------------------------------------

// A 1:2 mix kernel (two vector blocks, one cube core) splitting y's 256 floats between its vector workers: the
// workers are GetBlockNum() * GetTaskRation() (GetBlockNum() is the cube cores). Dividing by GetBlockNum() alone gives
// each worker twice its share: worker 1 writes past y.
template <bool kOk> inline void MixBlockNum(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    if ASCEND_IS_AIC {
        return;  // no Matmul object: the cube cores have nothing to do
    }
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    const uint32_t workers = static_cast<uint32_t>(GetBlockNum() * (kOk ? GetTaskRation() : 1));
    const uint32_t per = 256 / workers;
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, static_cast<float>(GetBlockIdx()), per);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg[GetBlockIdx() * per], t, per);  // FAULT(mix_block_num)
}

// The software SyncAll in a 1:2 mix kernel: its slots are per cube core (get_block_idx), shared by the two vector
// cores. The twin uses the hardware SyncAll<false>() there (and the software one where there is no mix kernel).
// y: the software form's workspace (zero at launch, shared).
template <bool kOk> inline void SoftwareSyncAllInMix(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(ws, 256);
    GlobalTensor<int32_t> syncGm;
    syncGm.SetGlobalBuffer((__gm__ int32_t*)y, 256);
    if (kOk && GetTaskRation() == 2) {
        SyncAll<false>();
    } else {
        SyncAll(syncGm, ws.Get<int32_t>());  // FAULT(software_sync_all_in_mix)
    }
}

// A SyncAll on more blocks than the SoC has cores (65: more than any SoC's vector or AI cores): the framework runs
// the blocks in rounds and the barrier hangs. The twin runs 8 blocks. y: the software form's workspace.
template <bool kOk> inline void SyncAllOverCoreCount(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    (void)kOk;
    TPipe pipe;
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(ws, 8 * 32);
    GlobalTensor<int32_t> syncGm;
    syncGm.SetGlobalBuffer((__gm__ int32_t*)y, 256);
    SyncAll(syncGm, ws.Get<int32_t>());  // FAULT(sync_all_over_core_count)
}

// The hardware SyncAll in a launch without a workspace (a tiling that sets workspace size 0).
template <bool kOk> inline void HardwareSyncAllWithoutWorkspace(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    (void)kOk;
    SyncAll();  // FAULT(hardware_sync_all_without_workspace)
}

// A Matmul object in a kernel the build makes a vector-only kernel (KERNEL_TYPE_AIV_ONLY): no cube core starts.
template <bool kOk> inline void MatmulWithoutMixType(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    (void)kOk;
    TPipe pipe;
    SmallMatmul mm;
    TCubeTiling tiling = SmallTiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);  // FAULT(matmul_without_mix_type)
}

// REGIST_MATMUL_OBJ given the kernel's own workspace (GetUserWorkspace) instead of the system workspace.
template <bool kOk> inline void MatmulUserWorkspace(GM_ADDR, GM_ADDR, GM_ADDR workspace, GM_ADDR)
{
    TPipe pipe;
    SmallMatmul mm;
    TCubeTiling tiling = SmallTiling();
    GM_ADDR ws = kOk ? GetSysWorkSpacePtr() : GetUserWorkspace(workspace);
    REGIST_MATMUL_OBJ(&pipe, ws, mm, &tiling);  // FAULT(regist_matmul_user_workspace)
}

// SyncAll<false>() in a 1:2 mix kernel with a Matmul object: the cube cores run the API's server, never this
// SyncAll, and the vector cores would wait forever. The twin synchronises the vector cores only (SyncAll<true>()).
template <bool kOk> inline void SyncAllFalseWithMatmul(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    SmallMatmul mm;
    TCubeTiling tiling = SmallTiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    if (kOk) {
        SyncAll<true>();
    } else {
        SyncAll<false>();  // FAULT(sync_all_false_with_matmul)
    }
}

// KERNEL_TYPE_AIV_ONLY on ascend310p: its AI cores have no separate vector cores (the twin declares nothing).
template <bool kOk> inline void KernelTypeOn310p(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    if (!kOk) {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);  // FAULT(aiv_only_on_310p)
    }
}

// A 1:2 mix kernel launched on 3 vector blocks: the cube cores start their vector cores in pairs.
template <bool kOk> inline void MixOddBlocks(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    (void)kOk;
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);  // FAULT(mix_odd_blocks)
}

// Vector and DMA work of a block: y[block x n, (block + 1) x n) = the block's index (n floats, n <= 128).
inline void WriteBlockIndex(GM_ADDR y, uint32_t n)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 512);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, static_cast<float>(GetBlockIdx()), n);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg[GetBlockIdx() * n], t, n);
}

// A 1:2 mix kernel path without a Matmul object that does vector and DMA work without returning on the cube cores
// (they run the kernel function too and would execute it). The twin returns on them first. ascend310p has no such
// kernel type (refused at the declaration).
template <bool kOk> inline void MixPathWithoutCubeGuard(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);  // FAULT(mix_path_without_cube_guard)
    if (kOk) {
        if ASCEND_IS_AIC {
            return;
        }
    }
    WriteBlockIndex(y, 128);
}

// Tiling key 1 of a 1:2 mix kernel declared a vector kernel (KERNEL_TASK_TYPE(1, KERNEL_TYPE_MIX_AIV_1_0), as the
// vector decode path of QLinearMatMul): its blockDim counts vector cores. Launched (key 1) on 4 vector blocks with
// the host's blockDim 2, counted in cube cores as the mix default would: the device starts 2 vector cores and half
// the work is never done. The twin's host passes 4, which also shows that the key's type wins over the default
// (under the mix default 4 would start 8). ascend310p has no such types (refused at the first declaration).
template <bool kOk> inline void PerKeyBlockDim(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    (void)kOk;
    KERNEL_TASK_TYPE(1, KERNEL_TYPE_MIX_AIV_1_0);  // FAULT(per_key_block_dim)
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    WriteBlockIndex(y, 64);
}

// Only the launch's key's declaration counts: a kernel typed for key 0 (a vector kernel) launched with key 1 has the
// mix default there, so the host's blockDim 4 for 4 vector blocks starts 8. The twin types key 1.
template <bool kOk> inline void TypeOfAnotherKey(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);  // FAULT(type_of_another_key)
    if (kOk) {
        KERNEL_TASK_TYPE(1, KERNEL_TYPE_MIX_AIV_1_0);
    } else {
        KERNEL_TASK_TYPE(0, KERNEL_TYPE_MIX_AIV_1_0);
    }
    WriteBlockIndex(y, 64);
}

// CTRL[48] (the saturation mode of half / bfloat16 results) changed after a vector instruction was issued: that
// instruction may run under either mode. The twin sets it first. ascend310p has no CTRL[48] (refused at the set).
template <bool kOk> inline void Ctrl48AfterVectorWork(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    if (kOk) {
        set_ctrl(sbitset1(get_ctrl(), 48));
    }
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 512);
    LocalTensor<half> t = b.Get<half>();
    Duplicate(t, static_cast<half>(1.0f), 128);
    if (!kOk) {
        set_ctrl(sbitset1(get_ctrl(), 48));  // FAULT(ctrl48_after_vector_work)
    }
    (void)y;
}

// A declaration after the kernel used its type (GetBlockNum): the emulator resolves the type at its first use. The
// twin declares first (ascend310p refuses the type itself).
template <bool kOk> inline void KernelTypeAfterUse(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    if (kOk) {
        KERNEL_TASK_TYPE(1, KERNEL_TYPE_MIX_AIV_1_0);
    }
    (void)GetBlockNum();
    if (!kOk) {
        KERNEL_TASK_TYPE(1, KERNEL_TYPE_MIX_AIV_1_0);  // FAULT(kernel_type_after_use)
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Brcb (level 0): alignment, overlap, strides, types, ascend310p's software implementation
// ---------------------------------------------------------------------------------------------------------------

// src0 at a 16-byte offset (documented: 32-byte aligned). The twin starts it at a block.
template <bool kOk> inline void BrcbSrcUnaligned(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs;
    TBuf<TPosition::VECCALC> bd;
    pipe.InitBuffer(bs, 256);
    pipe.InitBuffer(bd, 512);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> s = bs.Get<float>();
    DataCopy(s, xg, 64);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    Brcb(bd.Get<float>(), s[kOk ? 8 : 4], 2, BrcbRepeatParams(1, 8));  // FAULT(brcb_src_unaligned)
}

// Two iterations of 8 blocks with dstRepStride 10 need dst bytes [0, 576): the buffer has 512. The twin's has 576.
template <bool kOk> inline void BrcbDstOutOfBuffer(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs;
    TBuf<TPosition::VECCALC> bd;
    pipe.InitBuffer(bs, 64);
    pipe.InitBuffer(bd, kOk ? 576 : 512);
    LocalTensor<int32_t> s = bs.Get<int32_t>();
    Duplicate(s, 5, 16);
    PipeBarrier<PIPE_V>();
    Brcb(bd.Get<int32_t>(), s, 2, BrcbRepeatParams(1, 10));  // FAULT(brcb_dst_out_of_buffer)
}

// A 16-bit Brcb whose dst buffer ends right after the iteration's 8 blocks: on ascend310p the software path
// transposes 512 bytes from the iteration's first block (the last 256 saved and restored), past the buffer. The
// split SoCs' vbrcb writes the 8 blocks only. The twin gives dst 256 bytes of room.
template <bool kOk> inline void Brcb310pHalfTail(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs;
    TBuf<TPosition::VECCALC> bd;
    pipe.InitBuffer(bs, 64);
    pipe.InitBuffer(bd, kOk ? 256 + 256 : 256);
    LocalTensor<half> s = bs.Get<half>();
    LocalTensor<half> d = bd.Get<half>();
    Duplicate(s, half(3.0f), 32);
    Duplicate(d, half(0.0f), kOk ? 256 : 128);
    PipeBarrier<PIPE_V>();
    Brcb(d, s, 1, BrcbRepeatParams(1, 8));  // FAULT(brcb_310p_half_tail)
}

// A 16-bit Brcb of two iterations on the transpose path (dstBlkStride 1): ascend310p's software implementation
// advances src0 by 8 elements, so iteration 1 reads src0 at a 16-byte offset through a vector instruction, which
// takes 32-byte aligned operands; what the unit does then is not documented. The twin makes two one-iteration calls,
// the second from a 32-byte aligned src0.
template <bool kOk> inline void Brcb310pHalfRepeats(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs;
    TBuf<TPosition::VECCALC> bd;
    pipe.InitBuffer(bs, 64);
    pipe.InitBuffer(bd, 1024);
    LocalTensor<half> s = bs.Get<half>();
    LocalTensor<half> d = bd.Get<half>();
    Duplicate(s, half(3.0f), 32);
    Duplicate(d, half(0.0f), 512);
    PipeBarrier<PIPE_V>();
    if constexpr (kOk) {
        Brcb(d, s, 1, BrcbRepeatParams(1, 8));
        PipeBarrier<PIPE_V>();
        Brcb(d[256], s[16], 1, BrcbRepeatParams(1, 8));
    } else {
        Brcb(d, s, 2, BrcbRepeatParams(1, 16));  // FAULT(brcb_310p_half_repeats)
    }
}

// A 16-bit Brcb on ascend310p's scalar path (dstBlkStride 2) with a repeat step of 4096 blocks: the software
// implementation counts it in uint16_t elements (16 x 4096 = 65536 wraps to 0), so iteration 1 would land on
// iteration 0. The twin's repeat step is 16 blocks.
template <bool kOk> inline void Brcb310pStepWrap(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    constexpr uint16_t kRep = kOk ? 16 : 4096;
    constexpr uint32_t kBytes = kRep * 32 + 8 * 2 * 32;
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs;
    TBuf<TPosition::VECCALC> bd;
    pipe.InitBuffer(bs, 64);
    pipe.InitBuffer(bd, kBytes);
    LocalTensor<half> s = bs.Get<half>();
    Duplicate(s, half(3.0f), 32);
    PipeBarrier<PIPE_V>();
    Brcb(bd.Get<half>(), s, 2, BrcbRepeatParams(2, kRep));  // FAULT(brcb_310p_step_wrap)
}

// dst's blocks cover src0: the page forbids src0 and dst at one address and gives Brcb no overlap form. The twin
// puts src0 after dst's 512 bytes.
template <bool kOk> inline void BrcbOverlap(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 256);
    PipeBarrier<PIPE_V>();
    Brcb(t, t[kOk ? 128 : 64], 2, BrcbRepeatParams(1, 8));  // FAULT(brcb_overlap)
}

// ---------------------------------------------------------------------------------------------------------------
// MulAddDst: whether the product is rounded before the addition is not documented
// ---------------------------------------------------------------------------------------------------------------

// dst = src0 * src1 + dst with 1 + 2^-12 squared (1 + 2^-11 + 2^-24) plus -1: fused, 2^-11 + 2^-24; with the product
// rounded first, 2^-11. The twin's integers keep every product and sum exact (both readings agree).
template <bool kOk> inline void MulAddDstRoundingDependent(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 768);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, kOk ? 3.0f : 1.0f + 1.0f / 4096.0f, 128);
    Duplicate(t[128], -1.0f, 64);
    PipeBarrier<PIPE_V>();
    MulAddDst(t[128], t, t[64], 64, 1, BinaryRepeatParams(1, 1, 1, 8, 8, 8));  // FAULT(mul_add_dst_rounding)
}

// A fused unit's single rounding against a sum rounded to double first: a = 1 + 2^-23, b = (2^23 - 1) 2^-47, dst =
// 1 + 2^-23. Exactly, a b + dst lies just below the float tie 1 + 2^-23 + 2^-24: fused, 1 + 2^-23; with the product
// rounded first (to 2^-24), the tie, rounded to even, 1 + 2^-22. (Rounded to double first, the fused value is the
// tie too and would agree.) The twin's integers keep both readings exact.
template <bool kOk> inline void MulAddDstFusedNearTie(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 768);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, kOk ? 3.0f : 0x1.000002p+0f, 64);
    Duplicate(t[64], kOk ? 5.0f : 0x1.fffffcp-25f, 64);
    Duplicate(t[128], kOk ? 7.0f : 0x1.000002p+0f, 64);
    PipeBarrier<PIPE_V>();
    MulAddDst(t[128], t, t[64], 64, 1, BinaryRepeatParams(1, 1, 1, 8, 8, 8));  // FAULT(mul_add_dst_fused_near_tie)
}

// The mixed form (float dst, half sources): its block layout and product precision are not documented; the twin
// converts the sources to float first.
template <bool kOk> inline void MulAddDstMixed(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bh;
    TBuf<TPosition::VECCALC> bf;
    pipe.InitBuffer(bh, 256);
    pipe.InitBuffer(bf, 1024);
    LocalTensor<half> h = bh.Get<half>();
    LocalTensor<float> f = bf.Get<float>();
    Duplicate(h, static_cast<half>(2.0f), 128);
    Duplicate(f, 1.0f, 256);
    PipeBarrier<PIPE_V>();
    if constexpr (kOk) {
        Cast(f[64], h, RoundMode::CAST_NONE, 64);
        PipeBarrier<PIPE_V>();
        MulAddDst(f, f[64], f[64], 64, 1, BinaryRepeatParams(1, 1, 1, 8, 8, 8));
    } else {
        MulAddDst(f, h, h, 64, 1, BinaryRepeatParams(1, 1, 1, 8, 4, 4));  // FAULT(mul_add_dst_mixed)
    }
}

// dstBlkStride 0: undefined on the hardware form, read as 1 by ascend310p's software path. The twin uses 1.
template <bool kOk> inline void BrcbDstBlockStrideZero(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs;
    TBuf<TPosition::VECCALC> bd;
    pipe.InitBuffer(bs, 64);
    pipe.InitBuffer(bd, 512);
    LocalTensor<float> s = bs.Get<float>();
    Duplicate(s, 2.0f, 16);
    PipeBarrier<PIPE_V>();
    Brcb(bd.Get<float>(), s, 1, BrcbRepeatParams(kOk ? 1 : 0, 8));  // FAULT(brcb_dst_block_stride_zero)
}

// Brcb on int8 (the headers take 16- and 32-bit elements only). The twin broadcasts the same bytes as int16.
template <bool kOk> inline void BrcbInt8(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs;
    TBuf<TPosition::VECCALC> bd;
    pipe.InitBuffer(bs, 64);
    pipe.InitBuffer(bd, 1024);
    LocalTensor<int16_t> s = bs.Get<int16_t>();
    Duplicate(s, static_cast<int16_t>(0x0101), 32);
    PipeBarrier<PIPE_V>();
    if (kOk) {
        Brcb(bd.Get<int16_t>(), s, 1, BrcbRepeatParams(1, 8));
    } else {
        Brcb(bd.Get<int8_t>(), s.ReinterpretCast<int8_t>(), 1, BrcbRepeatParams(1, 8));  // FAULT(brcb_int8)
    }
}

// dstBlkStride 2 on ascend310p takes the software path's scalar loop, which synchronises with SetFlag / WaitFlag on
// the S_V id TPipe::FetchEventID returns: the kernel's SetFlag<S_V> pending on that id merges with it. The split
// SoCs' vbrcb has no internal flags. The twin waits for its flag first.
template <bool kOk> inline void Brcb310pFlagPending(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs;
    TBuf<TPosition::VECCALC> bd;
    pipe.InitBuffer(bs, 64);
    pipe.InitBuffer(bd, 1024);
    LocalTensor<float> s = bs.Get<float>();
    Duplicate(s, 4.0f, 16);
    PipeBarrier<PIPE_V>();
    const event_t id = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_V));
    SetFlag<HardEvent::S_V>(id);
    if (kOk) {
        WaitFlag<HardEvent::S_V>(id);
    }
    Brcb(bd.Get<float>(), s, 2, BrcbRepeatParams(2, 16));  // FAULT(brcb_310p_flag_pending)
    if (!kOk) {
        WaitFlag<HardEvent::S_V>(id);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Outputs and the workspace are not zeroed
// ---------------------------------------------------------------------------------------------------------------

// y is an output: the kernel writes 192 of its 256 floats, the last 64 keep the allocator's garbage. The error comes
// at the end of the launch, naming the first unwritten byte and the kernel's last write to y (this line).
template <bool kOk> inline void OutputLeftUnwritten(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 0.0f, 256);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg, t, kOk ? 256u : 192u);  // FAULT(output_left_unwritten)
}

// A scalar read of a workspace counter the kernel never wrote: 0 only if the pool happened to hold 0. The twin
// initialises it first.
template <bool kOk> inline void WorkspaceReadUnwritten(GM_ADDR, GM_ADDR y, GM_ADDR workspace, GM_ADDR)
{
    GlobalTensor<int32_t> counter;
    counter.SetGlobalBuffer((__gm__ int32_t*)GetUserWorkspace(workspace), 8);
    GlobalTensor<int32_t> yg;
    yg.SetGlobalBuffer((__gm__ int32_t*)y, 256);
    if (kOk) counter.SetValue(0, 0);
    const int32_t n = counter.GetValue(0);  // FAULT(workspace_read_unwritten)
    yg.SetValue(0, n + 1);
    DataCacheCleanAndInvalid<int32_t, CacheLine::ENTIRE_DATA_CACHE>(yg);  // the scalar writes reach GM
}

// A DMA read of workspace bytes never written: the UB copy holds garbage, caught where it is used (copied to y).
// The twin writes the workspace first (and orders the write before the read).
template <bool kOk> inline void WorkspaceDmaUnwritten(GM_ADDR, GM_ADDR y, GM_ADDR workspace, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 512);
    GlobalTensor<float> wg;
    wg.SetGlobalBuffer((__gm__ float*)GetUserWorkspace(workspace), 64);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = b.Get<float>();
    LocalTensor<float> u = t[64];
    if (kOk) {
        Duplicate(t, 2.0f, 64);
        WaitPipe<HardEvent::V_MTE3>(pipe);
        DataCopy(wg, t, 64);
        WaitPipe<HardEvent::MTE3_MTE2>(pipe);
    }
    DataCopy(u, wg, 64);
    WaitPipe<HardEvent::MTE2_MTE3>(pipe);
    DataCopy(yg, u, 64);  // FAULT(workspace_dma_unwritten)
}

// ---------------------------------------------------------------------------------------------------------------
// The scalar data cache (GlobalTensor::GetValue / SetValue, DataCacheCleanAndInvalid)
// ---------------------------------------------------------------------------------------------------------------

// Scalar stores to y, then a DMA read of them: the bytes are still in the scalar unit's data cache. The twin cleans
// the line first.
template <bool kOk> inline void ScalarStoreNoClean(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    for (uint32_t i = 0; i < 8; ++i) {
        yg.SetValue(i, 5.0f);
    }
    if (kOk) DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE>(yg);
    WaitPipe<HardEvent::S_MTE2>(pipe);
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t, yg, 8);  // FAULT(scalar_store_no_clean)
    WaitPipe<HardEvent::MTE2_MTE3>(pipe);
    DataCopy(yg[64], t, 8);
}

// A scalar read of a line the cache holds, after the DMA rewrote it: the read sees the cached (old) bytes. The twin
// invalidates the line before the second read.
template <bool kOk> inline void ScalarReadStale(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    const float before = yg.GetValue(0);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, before + 1.0f, 8);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    WaitPipe<HardEvent::S_MTE3>(pipe);
    DataCopy(yg, t, 8);
    WaitPipe<HardEvent::MTE3_S>(pipe);
    if (kOk) DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE>(yg);
    const float after = yg.GetValue(1);  // FAULT(scalar_read_stale)
    (void)after;
}

// Core 0 stores with SetValue and cleans only after core 1 read the value (GM still held the old one then).
// y: bytes [768, 832) are the software SyncAll's workspace (zero at launch).
template <bool kOk> inline void ScalarStoreOtherCore(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(ws, 2 * 32);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 192);
    GlobalTensor<int32_t> syncGm;
    syncGm.SetGlobalBuffer((__gm__ int32_t*)y + 192, 16);
    if (GetBlockIdx() == 0) {
        yg.SetValue(0, 7.0f);
        if (kOk) DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE>(yg);
    }
    SyncAll(syncGm, ws.Get<int32_t>());
    if (GetBlockIdx() == 1) {
        const float v = yg.GetValue(0);  // FAULT(scalar_store_other_core)
        (void)v;
    }
    SyncAll(syncGm, ws.Get<int32_t>());
    if (!kOk && GetBlockIdx() == 0) DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE>(yg);  // too late
}

// Two cores store with SetValue into one 64-byte line, core 0 cleaning only after core 1 wrote: if a clean writes back
// the whole line, one core's write-back overwrites the other's byte. The twin gives core 1 the next line.
template <bool kOk> inline void ScalarStoresShareLine(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(ws, 2 * 32);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 192);
    GlobalTensor<int32_t> syncGm;
    syncGm.SetGlobalBuffer((__gm__ int32_t*)y + 192, 16);
    if (GetBlockIdx() == 0) {
        yg.SetValue(0, 1.0f);
    }
    SyncAll(syncGm, ws.Get<int32_t>());
    if (GetBlockIdx() == 1) {
        yg.SetValue(kOk ? 16 : 1, 2.0f);  // FAULT(scalar_stores_share_line)
    }
    SyncAll(syncGm, ws.Get<int32_t>());
    DataCacheCleanAndInvalid<float, CacheLine::ENTIRE_DATA_CACHE>(yg);
}

// The DataCacheCleanAndInvalid form with a DcciDst: ascend910b / 950 only.
template <bool kOk> inline void DcciDstOn310p(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    yg.SetValue(0, 1.0f);
    if (kOk) {
        DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE>(yg);
    } else {
        DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(yg);  // FAULT(dcci_dst_on_310p)
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The top 8 KiB of UB are the API's scratch
// ---------------------------------------------------------------------------------------------------------------

// The top-of-UB kernel's set-up. The constructor allocates `v` (256 bytes); the caller may allocate buffers of its
// own (`before` bytes in all); Place then fills UB up to `kept`, 8 KiB: the top 8 KiB of UB, or (the twin) the 8 KiB
// just below them, and loads x[0, 64) into kept and x[64, 128) into v.
template <bool kOk> struct TopOfUbData {
    TopOfUbData(TPipe& pipe, GM_ADDR x, GM_ADDR y) : pipe_(pipe)
    {
        pipe_.InitBuffer(a_, 256);
        xg_.SetGlobalBuffer((__gm__ float*)x, 256);
        yg.SetGlobalBuffer((__gm__ float*)y, 256);
    }
    void Place(uint32_t ub_bytes, uint32_t before)
    {
        pipe_.InitBuffer(filler_, ub_bytes - 8192 - 256 - before - (kOk ? 8192 : 0));
        pipe_.InitBuffer(top_, 8192);  // kOk: [ub - 16 KiB, ub - 8 KiB); else the top 8 KiB
        kept = top_.Get<float>();
        v = a_.Get<float>();
        DataCopy(kept, xg_, 64);
        DataCopy(v, xg_[64], 64);
        WaitPipe<HardEvent::MTE2_V>(pipe_);
    }
    GlobalTensor<float> yg;
    LocalTensor<float> kept, v;

private:
    TPipe& pipe_;
    TBuf<TPosition::VECCALC> a_, filler_, top_;
    GlobalTensor<float> xg_;
};

// A TBuf in the top 8 KiB of UB holding data, then a count-form Select elsewhere: the API's scratch overwrites it.
// The twin keeps its buffers below the top 8 KiB.
template <bool kOk> inline void UbScratchWithSelect(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(FidelityTiling, t, tiling);
    TPipe pipe;
    TopOfUbData<kOk> d(pipe, x, y);
    TBuf<TPosition::VECCALC> m;
    TBuf<TPosition::VECCALC> o;
    pipe.InitBuffer(m, 32);
    pipe.InitBuffer(o, 256);
    d.Place(t.ubBytes, 288);
    LocalTensor<uint8_t> mask = m.Get<uint8_t>();
    CompareScalar(mask, d.v, 0.0f, CMPMODE::GT, 64);
    PipeBarrier<PIPE_V>();
    Select(o.Get<float>(), mask, d.v, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);  // FAULT(ub_scratch_with_select)
    PipeBarrier<PIPE_V>();
    Add(o.Get<float>(), o.Get<float>(), d.kept, 64);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(d.yg, o.Get<float>(), 64);
}

// ---------------------------------------------------------------------------------------------------------------
// ReduceSum: accepted only when no order of the additions can change the float result
// ---------------------------------------------------------------------------------------------------------------

// [2^24, -2^24, 1, 1]: sequential and pairwise sums give 2, (a0 + a2) + (a1 + a3) gives 1. The twin's terms
// [2^20, -2^20, 1, 1] are exact in every order.
template <bool kOk> inline void ReduceSumOrder(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> w;
    TBuf<TPosition::VECCALC> d;
    pipe.InitBuffer(b, 256);
    pipe.InitBuffer(w, 64);
    pipe.InitBuffer(d, 32);
    LocalTensor<float> t = b.Get<float>();
    const float big = kOk ? 1048576.0f : 16777216.0f;
    t.SetValue(0, big);
    t.SetValue(1, -big);
    t.SetValue(2, 1.0f);
    t.SetValue(3, 1.0f);
    WaitPipe<HardEvent::S_V>(pipe);
    ReduceSum(d.Get<float>(), t, w.Get<float>(), 4);  // FAULT(reduce_sum_other_order)
    WaitPipe<HardEvent::V_S>(pipe);
    (void)d.Get<float>().GetValue(0);
    (void)y;
}

// ---------------------------------------------------------------------------------------------------------------
// TPipe manages at most 64 buffers
// ---------------------------------------------------------------------------------------------------------------

// A double-buffered queue (2 buffers) and TBufs: the 65th buffer is refused. The twin has 62 TBufs (64 buffers). (TBufs, not queues: a
// position's queue buffers stop at 8 first, tque_buffers_per_position.)
template <bool kOk> inline void TPipe65Buffers(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 32);
    TBuf<TPosition::VECCALC> b[64];
    const int n = kOk ? 62 : 64;
    for (int i = 0; i < n; ++i) {
        pipe.InitBuffer(b[i], 32);  // FAULT(tpipe_too_many_buffers)
    }
}

// ---------------------------------------------------------------------------------------------------------------
// UB -> UB copies and Select's mask
// ---------------------------------------------------------------------------------------------------------------

// A UB -> UB DataCopy shifting data by 32 bytes inside one buffer: the device's order on overlap is undocumented.
// The twin copies into a separate buffer.
template <bool kOk> inline void UbCopyOverlap(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> o;
    pipe.InitBuffer(b, 512);
    pipe.InitBuffer(o, 512);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t, xg, 64);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    LocalTensor<float> dst = kOk ? o.Get<float>() : t[8];
    DataCopy(dst, t, 64);  // FAULT(ub_copy_overlap)
}

// A UB -> UB DataCopy of a vector result ordered by PipeBarrier<PIPE_V> alone: right if the copy runs on the vector
// pipe (the DataCopy and asc_copy_ub2ub pages), a race if it runs on MTE3 (the C-API overview's pipe list). Faults
// under the run variant ub_copy_on_mte3 (the test sets it). The twin also waits V -> MTE3 before the copy and MTE3 ->
// V before the vector unit reads its result, which orders it under both.
template <bool kOk> inline void UbCopyAfterVectorBarrierOnly(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> o;
    pipe.InitBuffer(b, 256);
    pipe.InitBuffer(o, 256);
    LocalTensor<float> t = b.Get<float>();
    LocalTensor<float> u = o.Get<float>();
    Duplicate(t, 1.0f, 64);
    PipeBarrier<PIPE_V>();
    if (kOk) {
        WaitPipe<HardEvent::V_MTE3>(pipe);
    }
    DataCopy(u, t, 64);  // FAULT(ub_copy_after_vector_barrier_only)
    PipeBarrier<PIPE_V>();
    if (kOk) {
        WaitPipe<HardEvent::MTE3_V>(pipe);
    }
    Adds(t, u, 1.0f, 64);
}

// Select's mask at a UB address that is not 32-byte aligned. The twin's mask is aligned.
template <bool kOk> inline void SelectMaskUnaligned(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> a;
    TBuf<TPosition::VECCALC> m;
    TBuf<TPosition::VECCALC> o;
    pipe.InitBuffer(a, 256);
    pipe.InitBuffer(m, 64);
    pipe.InitBuffer(o, 256);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> v = a.Get<float>();
    DataCopy(v, xg, 64);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    CompareScalar(m.Get<uint8_t>()[32], v, 0.0f, CMPMODE::GT, 64);
    PipeBarrier<PIPE_V>();
    LocalTensor<uint8_t> mask = m.Get<uint8_t>()[kOk ? 32 : 40];
    Select(o.Get<float>(), mask, v, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);  // FAULT(select_mask_unaligned)
}

// ---------------------------------------------------------------------------------------------------------------
// Element types per API
// ---------------------------------------------------------------------------------------------------------------

// Max of int8 operands: the headers' Max takes half, float, int16, int32. The twin uses int16.
template <bool kOk> inline void MaxInt8(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<int8_t> xg;
    xg.SetGlobalBuffer((__gm__ int8_t*)x, 1024);
    GlobalTensor<int16_t> xg16;
    xg16.SetGlobalBuffer((__gm__ int16_t*)x, 512);
    if (kOk) {
        LocalTensor<int16_t> v = b.Get<int16_t>();
        DataCopy(v, xg16, 128);
        WaitPipe<HardEvent::MTE2_V>(pipe);
        Max(v[128], v, v[64], 64);
    } else {
        LocalTensor<int8_t> v = b.Get<int8_t>();
        DataCopy(v, xg, 256);
        WaitPipe<HardEvent::MTE2_V>(pipe);
        Max(v[256], v, v[128], 128);  // FAULT(max_int8)
    }
}

// Level-0 Max (BinaryRepeatParams) of int8 operands: the level-0 intrinsic's header takes half, float, int16, int32,
// like the count form. The twin uses int16.
template <bool kOk> inline void Level0MaxInt8(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<int8_t> xg;
    xg.SetGlobalBuffer((__gm__ int8_t*)x, 1024);
    GlobalTensor<int16_t> xg16;
    xg16.SetGlobalBuffer((__gm__ int16_t*)x, 512);
    if (kOk) {
        LocalTensor<int16_t> v = b.Get<int16_t>();
        DataCopy(v, xg16, 256);
        WaitPipe<HardEvent::MTE2_V>(pipe);
        Max(v[256], v, v[128], 128, 1, {1, 1, 1, 8, 8, 8});
    } else {
        LocalTensor<int8_t> v = b.Get<int8_t>();
        DataCopy(v, xg, 512);
        WaitPipe<HardEvent::MTE2_V>(pipe);
        Max(v[512], v, v[256], 256, 1, {1, 1, 1, 8, 8, 8});  // FAULT(level0_max_int8)
    }
}

// Level-0 And of int32 operands: the level-0 And takes int16 / uint16 only (ascend910b's count form also takes 32-bit
// integers, the level-0 form on no SoC). The twin runs the same bits as int16.
template <bool kOk> inline void Level0AndInt32(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<int32_t> xg;
    xg.SetGlobalBuffer((__gm__ int32_t*)x, 256);
    LocalTensor<int32_t> v = b.Get<int32_t>();
    DataCopy(v, xg, 128);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    if (kOk) {
        LocalTensor<int16_t> h = v.ReinterpretCast<int16_t>();
        And(h[256], h, h[128], 128, 1, {1, 1, 1, 8, 8, 8});
    } else {
        And(v[128], v, v[64], 64, 1, {1, 1, 1, 8, 8, 8});  // FAULT(level0_and_int32)
    }
}

// WholeReduceMax of int32 operands: the headers' WholeReduceMax takes half and float. The twin reduces float.
template <bool kOk> inline void WholeReduceMaxInt32(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> v = b.Get<float>();
    DataCopy(v, xg, 64);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    if (kOk) {
        WholeReduceMax(v[128], v, 64, 1, 1, 1, 8);
    } else {
        LocalTensor<int32_t> vi = v.ReinterpretCast<int32_t>();
        WholeReduceMax(vi[128], vi, 64, 1, 1, 1, 8);  // FAULT(whole_reduce_max_int32)
    }
}

// ---------------------------------------------------------------------------------------------------------------
// SetDeqScale is a register write of the scalar unit
// ---------------------------------------------------------------------------------------------------------------

// A deq conversion (Cast int32 -> half, scale 1), then SetDeqScale(0.5) for a second one with nothing making the
// first complete before the scalar unit rewrites the register: the first Cast may run with 0.5. (PipeBarrier<PIPE_V>
// between them would not help: it orders V instructions only.) The twin waits for V with a V_S flag first.
template <bool kOk> inline void DeqScaleRace(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<int32_t> v = b.Get<int32_t>();
    LocalTensor<half> h = b.Get<half>()[256];
    Duplicate(v, static_cast<int32_t>(3), 64);
    SetDeqScale(static_cast<half>(1.0f));
    PipeBarrier<PIPE_V>();
    Cast(h, v, RoundMode::CAST_NONE, 64);
    PipeBarrier<PIPE_V>();
    if (kOk) WaitPipe<HardEvent::V_S>(pipe);
    SetDeqScale(static_cast<half>(0.5f));  // FAULT(deq_scale_race)
    Cast(h[64], v, RoundMode::CAST_NONE, 64);
}

// ---------------------------------------------------------------------------------------------------------------
// The 310p Matmul writes C in whole 32-byte blocks
// ---------------------------------------------------------------------------------------------------------------

// C [8, 1] int32 (A [8, 32] x B [32, 1], int8 from x's bytes) with C at `c`: on ascend310p each row's tail copy
// reads and rewrites the 32 bytes after the row, so the last row reaches 28 bytes past C.
// tilingN: the tiling's singleCoreN (1: not a multiple of 8, so the local workspace keeps the tail copy's scratch
// apart from C).
inline void MatmulColumn(GM_ADDR x, GM_ADDR c, int32_t tilingN = 1)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ws;
    SmallMatmul mm;
    TCubeTiling tiling = SmallTiling();
    tiling.singleCoreN = tilingN;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    pipe.InitBuffer(ws, 65536);
    mm.SetLocalWorkspace(ws.Get<uint8_t>());
    GlobalTensor<int8_t> ag;
    GlobalTensor<int8_t> bg;
    GlobalTensor<int32_t> cg;
    ag.SetGlobalBuffer((__gm__ int8_t*)x, 256);
    bg.SetGlobalBuffer((__gm__ int8_t*)x + 256, 32);
    cg.SetGlobalBuffer((__gm__ int32_t*)c, 8);
    mm.SetOrgShape(8, 1, 32, 32, 1);
    mm.SetSingleShape(8, 1, 32);
    mm.SetTensorA(ag);
    mm.SetTensorB(bg);
    mm.IterateAll(cg);  // FAULT(matmul_c_block_past_buffer) FAULT(matmul_c_block_neighbour) FAULT(matmul_tail_scratch_on_c)
    mm.End();
}

// C in the last 32 bytes of y. The twin leaves 32 bytes after C.
template <bool kOk> inline void MatmulCBlockPastBuffer(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    MatmulColumn(x, y + (kOk ? 1024 - 64 : 1024 - 32));
}

// The tiling's singleCoreN a multiple of 8 (16) for a C of width 1: the API's local workspace then has no room of its
// own for the tail copy's 32-byte scratch, which is C row 0 of the staged tile. The twin's tiling has singleCoreN 1.
template <bool kOk> inline void MatmulTailScratchOnC(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    MatmulColumn(x, y + 1024 - 64, kOk ? 1 : 16);
}

// Two cores' C [8, 1] side by side in y: core 0's last rows rewrite core 1's first ones. The twin leaves 32 bytes
// between them.
template <bool kOk> inline void MatmulCBlockNeighbour(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    MatmulColumn(x, y + GetBlockIdx() * (kOk ? 64 : 32));
}

// ---------------------------------------------------------------------------------------------------------------
// Older rules without a fault kernel until now: DataCopyPad's padding and element lengths, the software SyncAll's
// workspace, the 310p Matmul's C rows
// ---------------------------------------------------------------------------------------------------------------

// Padding counts without isPad: the pad value would be whatever the pad register last held. The twin sets isPad.
template <bool kOk> inline void DataCopyPadWithoutIsPad(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    DataCopyExtParams p(1, 5 * sizeof(float), 0, 0, 0);
    DataCopyPadExtParams<float> pad(kOk, 0, 3, 0.0f);
    DataCopyPad(b.Get<float>(), xg, p, pad);  // FAULT(datacopypad_pad_without_ispad)
}

// A GM -> UB DataCopyPad of 6 bytes of float: not a whole number of elements. The twin copies 8 bytes.
template <bool kOk> inline void DataCopyPadPartialElement(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    DataCopyExtParams p(1, kOk ? 8 : 6, 0, 0, 0);
    DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
    DataCopyPad(b.Get<float>(), xg, p, pad);  // FAULT(datacopypad_partial_element)
}

// ascend910_95's UB-side stride of a DataCopyPad is at most 65535 blocks (2^32 - 1 on ascend910b): one block, so the
// stride moves nothing and only the field's range is at stake. The twins give 65535.
template <bool kOk> inline void DataCopyPadUbStrideGmToUb(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    DataCopyExtParams p(1, 8 * sizeof(float), 0, kOk ? 65535 : 65536, 0);
    DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
    DataCopyPad(b.Get<float>(), xg, p, pad);  // FAULT(datacopypad_ub_stride_gm_to_ub)
}

template <bool kOk> inline void DataCopyPadUbStrideUbToGm(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 64);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopyExtParams p(1, 64 * sizeof(float), kOk ? 65535 : 65536, 0, 0);
    DataCopyPad(yg, t, p);  // FAULT(datacopypad_ub_stride_ub_to_gm)
}

// DataCopyPad UB -> GM of 3 bytes of half (a partial element). The twin copies 4.
template <bool kOk> inline void DataCopyPadUbToGmPartialElement(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<half> yg;
    yg.SetGlobalBuffer((__gm__ half*)y, 128);
    LocalTensor<half> t = b.Get<half>();
    Duplicate(t, static_cast<half>(1.0f), 128);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopyExtParams p(1, kOk ? 4 : 3, 0, 0, 0);
    DataCopyPad(yg, t, p);  // FAULT(datacopypad_ub_to_gm_partial_element)
}

// ReduceMax with calIndex over 300 float repeats: the ReduceMax page's work size is 600 + 24 + 8 = 632 floats (three
// rounds, each kept: the first round's indices are read again). 624 holds the first two rounds exactly (a TBuf
// rounds up to 32 bytes, so one float short would still get 632); the twin gives 632.
template <bool kOk> inline void ReduceMaxIndexWorkRounds(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> src, work, dst;
    pipe.InitBuffer(src, 19200 * sizeof(float));
    pipe.InitBuffer(work, (kOk ? 632 : 624) * sizeof(float));
    pipe.InitBuffer(dst, 32);
    LocalTensor<float> s = src.Get<float>();
    Duplicate(s, 1.0f, 19200);
    WaitPipe<HardEvent::V_S>(pipe);
    s.SetValue(777, 2.0f);  // one largest value: the index is defined
    WaitPipe<HardEvent::S_V>(pipe);
    ReduceMax(dst.Get<float>(), s, work.Get<float>(), 19200, true);  // FAULT(reduce_max_index_work_rounds)
    WaitPipe<HardEvent::V_S>(pipe);
}

// Nine VECIN queue buffers (three queues of three) on one TPipe, each holding an MTE2 / V event id of the 8 there are,
// used one queue at a time. The twin has two VECIN queues of four and two VECOUT queues of four (16 queue buffers,
// 8 of each event kind: the limit is per kind).
template <bool kOk> inline void TQueBuffersPerPosition(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q0, q1, q2;
    TQue<TPosition::VECOUT, 1> o0, o1;
    pipe.InitBuffer(q0, kOk ? 4 : 3, 256);
    pipe.InitBuffer(q1, kOk ? 4 : 3, 256);
    if constexpr (kOk) {
        pipe.InitBuffer(o0, 4, 256);
        pipe.InitBuffer(o1, 4, 256);
    } else {
        pipe.InitBuffer(q2, 3, 256);  // FAULT(tque_buffers_per_position)
    }
}

// A flag between the cube pipe M and the vector pipe, set and waited on a vector core (910b / 950: no M pipe there,
// the headers compile its wait to nothing). The twin uses V_S.
template <bool kOk> inline void FlagOnCubePipe(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    Duplicate(b.Get<float>(), 1.0f, 64);
    constexpr HardEvent kEvent = kOk ? HardEvent::V_S : HardEvent::M_V;
    const event_t id = static_cast<event_t>(pipe.FetchEventID(kEvent));
    SetFlag<kEvent>(id);  // FAULT(flag_on_cube_pipe)
    WaitFlag<kEvent>(id);
}

// A fixpipe flag, which no core the kernels run on has (split SoCs' vector cores; 310p has no fixpipe at all).
template <bool kOk> inline void FlagOnFixpipe(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    constexpr HardEvent kEvent = kOk ? HardEvent::MTE3_S : HardEvent::FIX_S;
    const event_t id = static_cast<event_t>(pipe.FetchEventID(kEvent));
    SetFlag<kEvent>(id);  // FAULT(flag_on_fixpipe)
    WaitFlag<kEvent>(id);
}

// A literal event id under a TPipe (EVENT_ID2, never handed out by AllocEventID / FetchEventID). The twin fetches it.
template <bool kOk> inline void LiteralEventId(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    Duplicate(b.Get<float>(), 1.0f, 64);
    const event_t id = kOk ? static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S)) : EVENT_ID2;
    SetFlag<HardEvent::V_S>(id);  // FAULT(literal_event_id)
    WaitFlag<HardEvent::V_S>(id);
}

// An AllocEventID hold does not survive TPipe::Reset (8.1 ResetPool frees every id): a VECIN queue's EnQue then
// takes the same MTE2_V id, and the kernel's SetFlag on its old id merges with the queue's. The twin fetches an id
// after the queue has its own.
template <bool kOk> inline void KernelIdAfterReset(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    const event_t old = static_cast<event_t>(pipe.AllocEventID<HardEvent::MTE2_V>());
    pipe.Reset();
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 256);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 64);
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, xg, 64);
    q.EnQue(t);  // holds MTE2_V id 0 until the DeQue
    const event_t id = kOk ? static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_V)) : old;
    SetFlag<HardEvent::MTE2_V>(id);  // FAULT(kernel_id_after_reset)
    WaitFlag<HardEvent::MTE2_V>(id);
    LocalTensor<float> u = q.DeQue<float>();
    q.FreeTensor(u);
}

// PipeBarrier<PIPE_S>, which the API does not support. The twin orders the vector work with PIPE_V.
template <bool kOk> inline void PipeBarrierS(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    Duplicate(b.Get<float>(), 1.0f, 64);
    if constexpr (kOk) {
        PipeBarrier<PIPE_V>();
    } else {
        PipeBarrier<PIPE_S>();  // FAULT(pipe_barrier_s)
    }
}

// The software SyncAll with a UB workspace of one 32-byte slot for two cores. The twin gives 8 int32 per core.
template <bool kOk> inline void SoftwareSyncAllUbTooSmall(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(ws, kOk ? 64 : 32);
    GlobalTensor<int32_t> syncGm;
    syncGm.SetGlobalBuffer((__gm__ int32_t*)y, 256);
    SyncAll(syncGm, ws.Get<int32_t>());  // FAULT(software_sync_all_ub_too_small)
}

// The software SyncAll on the kernel's workspace, which nobody zeroed (the device's workspace is not zero). The twin
// takes counters from memory the host zeroes before the launch (y here).
template <bool kOk> inline void SoftwareSyncAllUnzeroedWorkspace(GM_ADDR, GM_ADDR y, GM_ADDR workspace, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(ws, 64);
    GlobalTensor<int32_t> syncGm;
    syncGm.SetGlobalBuffer((__gm__ int32_t*)(kOk ? y : GetUserWorkspace(workspace)), 16);
    SyncAll(syncGm, ws.Get<int32_t>());  // FAULT(software_sync_all_unzeroed_workspace)
}

// Counters in the workspace that every core zeroes itself first (DMA, ordered before the SyncAll): the barrier passes
// once the sum of the counts reaches the cores times its own, so a count another core's counter kept from the
// previous launch lets a core pass before that core arrives. The twin takes host-zeroed counters (y).
template <bool kOk> inline void SoftwareSyncAllKernelZeroedCounters(GM_ADDR, GM_ADDR y, GM_ADDR workspace, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ws;
    TBuf<TPosition::VECCALC> zero;
    pipe.InitBuffer(ws, 64);
    pipe.InitBuffer(zero, 32);
    GlobalTensor<int32_t> syncGm;
    syncGm.SetGlobalBuffer((__gm__ int32_t*)(kOk ? y : GetUserWorkspace(workspace)), 16);
    if (!kOk) {
        Duplicate(zero.Get<int32_t>(), 0, 8);
        WaitPipe<HardEvent::V_MTE3>(pipe);
        DataCopy(syncGm[GetBlockIdx() * 8], zero.Get<int32_t>(), 8);
        WaitPipe<HardEvent::MTE3_S>(pipe);
    }
    SyncAll(syncGm, ws.Get<int32_t>());  // FAULT(software_sync_all_kernel_zeroed_counters)
}

// An int32 C of N = 12 (48-byte rows) in the tiling on ascend310p: the API's ND C needs 32-byte rows there. The twin
// has N = 16.
template <bool kOk> inline void MatmulCRowsNot32Bytes(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    SmallMatmul mm;
    TCubeTiling tiling = SmallTiling();
    tiling.N = tiling.singleCoreN = kOk ? 16 : 12;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);  // FAULT(matmul_c_rows_not_32_bytes)
}

// A SyncAll in a launch whose host left the schedule mode normal: the framework may start part of the cores while
// other streams hold the rest, and the started ones wait in the barrier for ever. The twin's launch is batch mode
// (the same kernel: the entry table gives the two launches).
inline void SyncAllNormalSchedule(GM_ADDR, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ws;
    TBuf<TPosition::VECCALC> zero;
    pipe.InitBuffer(ws, 64);
    pipe.InitBuffer(zero, 32);
    GlobalTensor<int32_t> syncGm;
    syncGm.SetGlobalBuffer((__gm__ int32_t*)y, 16);
    Duplicate(zero.Get<int32_t>(), 0, 8);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(syncGm[GetBlockIdx() * 8], zero.Get<int32_t>(), 8);
    WaitPipe<HardEvent::MTE3_S>(pipe);
    SyncAll(syncGm, ws.Get<int32_t>());  // FAULT(sync_all_normal_schedule)
}

// ---------------------------------------------------------------------------------------------------------------
// Undocumented or exception-raising vector forms; the reductions' work buffers; GM element alignment
// ---------------------------------------------------------------------------------------------------------------

// A Div whose divisor has a zero element (the CCE documentation of vdiv: the result is unknown and the instruction
// raises an exception). The twin divides by a non-zero value.
template <bool kOk> inline void DivZeroDivisor(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 512);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 3.0f, 64);
    Duplicate(t[64], kOk ? 2.0f : 0.0f, 64);
    PipeBarrier<PIPE_V>();
    Div(t, t, t[64], 64);  // FAULT(div_zero_divisor)
}

// The same through the level-0 form: one zero lane of the divisor in the second iteration.
template <bool kOk> inline void Level0DivZeroDivisor(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 3.0f, 128);
    Duplicate(t[128], 2.0f, 128);
    PipeBarrier<PIPE_V>();
    if (!kOk) {
        Duplicate(t[128 + 64], 0.0f, 8);  // the first block of iteration 1's divisor
        PipeBarrier<PIPE_V>();
    }
    Div(t, t, t[128], 64, 2, {1, 1, 1, 8, 8, 8});  // FAULT(level0_div_zero_divisor)
}

// An accumulation through src1 with dstRepStride 8 and src1RepStride 0: iteration 1 reads what iteration 0 wrote,
// which the documentation allows only with both repeat strides 0. The twin keeps dst in place (both strides 0).
template <bool kOk> inline void Level0AccumulateDstStride(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 2048);
    LocalTensor<float> t = b.Get<float>();
    LocalTensor<float> acc = t;
    LocalTensor<float> src = t[256];
    Duplicate(t, 0.0f, 512);
    PipeBarrier<PIPE_V>();
    Max(acc, src, acc, 64, 4, {1, 1, 1, static_cast<uint8_t>(kOk ? 0 : 8), 8, 0});  // FAULT(level0_accumulate_dst_stride)
}

// The accumulation form with src0's first iteration on src1 (= dst; the documented form keeps src0 apart from src1).
// The twin reads src0 elsewhere.
template <bool kOk> inline void Level0AccumulateSrc0OnSrc1(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 2048);
    LocalTensor<float> t = b.Get<float>();
    LocalTensor<float> acc = t;
    LocalTensor<float> src = kOk ? t[256] : t;  // src0's iteration 0 is acc itself otherwise (100%: allowed alone)
    Duplicate(t, 0.0f, 512);
    PipeBarrier<PIPE_V>();
    Max(acc, src, acc, 64, 2, {1, 1, 1, 0, 8, 0});  // FAULT(level0_accumulate_src0_on_src1)
}

// ReduceSum of 640 floats (10 repeats) with a work buffer of 8 floats: the documented minimum is 16 (one element per
// repeat, rounded up to whole 32-byte blocks); ascend310p writes all 10. The twin gives 16.
// ReduceSum of 640 floats (10 repeats) with a work buffer of `workFloats` and a dst buffer of `dstFloats`.
inline void ReduceSum640(uint32_t workFloats, uint32_t dstFloats)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> w;
    TBuf<TPosition::VECCALC> d;
    pipe.InitBuffer(b, 640 * sizeof(float));
    pipe.InitBuffer(w, workFloats * sizeof(float));
    pipe.InitBuffer(d, dstFloats * sizeof(float));
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 640);
    PipeBarrier<PIPE_V>();
    ReduceSum(d.Get<float>(), t, w.Get<float>(), 640);  // FAULT(reduce_sum_work_too_small) FAULT(reduce_sum_dst_one_per_repeat)
}

// work below the documented minimum (10 floats, rounded to 16); dst holds one float per repeat.
template <bool kOk> inline void ReduceSumWorkTooSmall(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    ReduceSum640(kOk ? 16 : 8, 16);
}

// dst of 8 floats: ascend910b's count form stores one sum per repeat in dst before the total goes to dst[0]
// (dav_c220 ReduceSumImpl: counter-mode vcadd, destination repeat stride one element), so the last two would land
// past the buffer. The twin's dst holds 16. ascend310p writes dst[0] only (its fault case is the twin's).
template <bool kOk> inline void ReduceSumDstOnePerRepeat(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    ReduceSum640(16, kOk ? 16 : 8);
}

// A reduction whose work area starts inside src: its first step writes work from src in one instruction (dav_c220 /
// dav_m200 ReduceImplFirstStep, ReduceSumFirstStep), a partial overlap the address-overlap rule forbids. The twin's
// work is its own buffer.
template <bool kOk, bool kSum> inline void ReduceWorkOnSrc(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> w;
    TBuf<TPosition::VECCALC> d;
    pipe.InitBuffer(b, 256 * sizeof(float));
    pipe.InitBuffer(w, 16 * sizeof(float));
    pipe.InitBuffer(d, 16 * sizeof(float));
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 256);
    PipeBarrier<PIPE_V>();
    const LocalTensor<float> work = kOk ? w.Get<float>() : t[192];
    if constexpr (kSum) {
        ReduceSum(d.Get<float>(), t, work, 256);  // FAULT(reduce_sum_work_on_src)
    } else {
        ReduceMax(d.Get<float>(), t, work, 256, false);  // FAULT(reduce_max_work_on_src)
    }
}
template <bool kOk> inline void ReduceSumWorkOnSrc(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w)
{
    ReduceWorkOnSrc<kOk, true>(x, y, z, w);
}
template <bool kOk> inline void ReduceMaxWorkOnSrc(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w)
{
    ReduceWorkOnSrc<kOk, false>(x, y, z, w);
}

// A vector count form with count 0 (an empty vector mask: undocumented). The twin copies one block.
template <bool kOk> inline void CountZero(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 64);
    PipeBarrier<PIPE_V>();
    Adds(t[32], t, 1.0f, kOk ? 8 : 0);  // FAULT(count_zero)
}

// A float GM view at a byte offset that is not a multiple of 4 (GM addresses of a DMA are aligned to the data type).
// The twin's offset is 32.
template <bool kOk> inline void GmElementMisaligned(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)(x + (kOk ? 32 : 2)), 64);
    DataCopy(b.Get<float>(), xg, 64);  // FAULT(gm_element_misaligned)
}

// The same for a scalar read. The twin reads an aligned float.
template <bool kOk> inline void GmScalarMisaligned(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)(x + (kOk ? 4 : 6)), 8);
    (void)xg.GetValue(0);  // FAULT(gm_scalar_misaligned)
}

struct FidelityEntry {
    const char* name;
    Kernel kernel;
    uint32_t block_dim = 1;
    YInit y_init = YInit::kData;
    bool y_shared = false;
    int kernel_type = -1;      // Launcher::SetKernelType: the type the build gives the kernel (split SoCs), -1 none
    bool workspace = true;     // the launch has a workspace (the SoC's system part, then 64 KiB)
    bool batch_schedule = true;  // the launch's schedule mode is batch (what a host sets for a kernel with SyncAll)
    uint64_t tiling_key = 0;        // the launch's tiling key (not checked against TILING_KEY_IS branches)
    uint32_t device_block_dim = 0;  // Launcher::SetDeviceBlockDim: the host's blockDim, 0 not checked
};

constexpr int kMix = 5;       // KERNEL_TYPE_MIX_AIC_1_2
constexpr int kAivOnly = 0;   // KERNEL_TYPE_AIV_ONLY

// ---------------------------------------------------------------------------------------------------------------
// TransDataTo5HD (emu_trans_data.h): an int8 [32, 32] tile turned into 32 column blocks (four instructions, as the
// Matmul API's TransDataNDBMatrix), or one half [16, 16] tile. Not modelled on ascend910_95 (the fault tests expect
// the refusal there).
// ---------------------------------------------------------------------------------------------------------------

// The source rows of an int8 [32, 32] tile into `s` (x's first 256 floats' bytes, 1 KiB) and a destination of 1 KiB.
struct TransDataTile {
    TBuf<TPosition::VECCALC> bs;
    TBuf<TPosition::VECCALC> bd;
    LocalTensor<int8_t> s;
    LocalTensor<int8_t> d;
    TransDataTile(TPipe& pipe, GM_ADDR x, uint32_t dstBytes = 1024)
    {
        pipe.InitBuffer(bs, 1024);
        pipe.InitBuffer(bd, dstBytes);
        GlobalTensor<int8_t> xg;
        xg.SetGlobalBuffer((__gm__ int8_t*)x, 1024);
        s = bs.Get<int8_t>();
        d = bd.Get<int8_t>();
        DataCopy(s, xg, 1024);
        WaitPipe<HardEvent::MTE2_V>(pipe);
    }
    // Instruction k of the turn (bit 0: rows 16..31 into the blocks' high halves; bit 1: columns 16..31 into blocks
    // 16..31), with one entry of either list moved by the caller.
    void Lists(uint32_t k, uint64_t (&dl)[16], uint64_t (&sl)[16], TransDataTo5HDParams& p)
    {
        p.dstHighHalf = (k & 1) != 0;
        p.srcHighHalf = (k & 2) != 0;
        for (uint32_t i = 0; i < 16; ++i) {
            sl[i] = (uint64_t)(s[(i + ((k & 1) ? 16 : 0)) * 32].GetPhyAddr());
            dl[i] = (uint64_t)(d[(i + ((k & 2) ? 16 : 0)) * 32].GetPhyAddr());
        }
    }
    // The first instruction's lists and parameters, for a kernel to change one thing of before its call.
    uint64_t dl[16];
    uint64_t sl[16];
    TransDataTo5HDParams p;
    void First() { Lists(0, dl, sl, p); }
};

// One source block 16 bytes into a row (documented: 32-byte aligned). The twin's is at the row's start.
template <bool kOk> inline void TransDataSrcUnaligned(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TransDataTile tile(pipe, x);
    tile.First();
    tile.sl[3] += kOk ? 0 : 16;
    TransDataTo5HD<int8_t>(tile.dl, tile.sl, tile.p);  // FAULT(trans_data_src_unaligned)
}

// A destination block that is a source block of the same instruction (no overlap form is documented). The twin's
// destination is in its own buffer.
template <bool kOk> inline void TransDataOverlap(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TransDataTile tile(pipe, x);
    tile.First();
    if constexpr (!kOk) {
        tile.dl[7] = tile.sl[2];
    }
    TransDataTo5HD<int8_t>(tile.dl, tile.sl, tile.p);  // FAULT(trans_data_overlap)
}

// Two destination entries on one block: both write its low half (which value stays is not documented). The twin
// gives each entry its own block.
template <bool kOk> inline void TransDataDstWrittenTwice(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TransDataTile tile(pipe, x);
    tile.First();
    if constexpr (!kOk) {
        tile.dl[5] = tile.dl[4];
    }
    TransDataTo5HD<int8_t>(tile.dl, tile.sl, tile.p);  // FAULT(trans_data_dst_written_twice)
}

// The low and the high halves of the same destination blocks from two instructions with no PipeBarrier<PIPE_V>
// between them: a half-block write keeps the other half, possibly by reading and rewriting the block, so the second
// instruction is ordered after the first as the Matmul API orders it. The twin has the barrier.
template <bool kOk> inline void TransDataNoBarrier(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TransDataTile tile(pipe, x);
    uint64_t a[16], b[16], c[16], e[16];
    TransDataTo5HDParams p, q;
    tile.Lists(0, a, b, p);
    tile.Lists(1, c, e, q);
    // both calls on the marker's line (ascend910_95 refuses the first one)
    TransDataTo5HD<int8_t>(a, b, p); if (kOk) PipeBarrier<PIPE_V>(); TransDataTo5HD<int8_t>(c, e, q);  // FAULT(trans_data_no_barrier)
}

// The LocalTensor-list form, two iterations: each list tensor must hold repeatTimes * repeat stride + 1 blocks (the
// CPU-debug checks compare that with the tensor's size). Source tensors of one block each; the twin's hold enough.
template <bool kOk> inline void TransDataListTensorShort(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs;
    TBuf<TPosition::VECCALC> bd;
    pipe.InitBuffer(bs, 2048);
    pipe.InitBuffer(bd, 2048);
    GlobalTensor<half> xg;
    xg.SetGlobalBuffer((__gm__ half*)x, 512);
    LocalTensor<half> s = bs.Get<half>();
    LocalTensor<half> d = bd.Get<half>();
    DataCopy(s, xg, 512);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    // a [32, 16] half matrix: iteration r turns rows 16 r .. 16 r + 15 (src step 16 rows = 16 blocks); each list
    // tensor must hold repeatTimes * 16 + 1 blocks, 528 halves (the buffers leave room for them)
    LocalTensor<half> dl[16], sl[16];
    for (uint32_t i = 0; i < 16; ++i) {
        sl[i] = s[i * 16];
        sl[i].SetSize(kOk ? 2 * 16 * 16 + 16 : 16);
        dl[i] = d[i * 16];
        dl[i].SetSize(2 * 16 * 16 + 16);
    }
    TransDataTo5HD(dl, sl, TransDataTo5HDParams(false, false, 2, 16, 16));  // FAULT(trans_data_list_tensor_short)
}

// One iteration with repeat strides: the unit starts at the lists' addresses plus the strides (TIK's page of the same
// instruction), past these blocks. The twin passes 0, as every CANN caller does with one iteration.
template <bool kOk> inline void TransDataOneRepeatStride(GM_ADDR x, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TransDataTile tile(pipe, x);
    tile.First();
    tile.p.repeatTimes = 1;
    tile.p.srcRepStride = kOk ? 0 : 32;
    tile.p.dstRepStride = kOk ? 0 : 32;
    TransDataTo5HD<int8_t>(tile.dl, tile.sl, tile.p);  // FAULT(trans_data_one_repeat_stride)
}

#define AQO_FIDELITY(NAME, KERNEL, ...)                                                                    \
    {NAME, &KERNEL<false>, __VA_ARGS__}, { NAME "_ok", &KERNEL<true>, __VA_ARGS__ }

// Every fault kernel followed by its correct twin ("<name>_ok").
inline const FidelityEntry* FidelityKernels(size_t* count)
{
    static const FidelityEntry kEntries[] = {
        AQO_FIDELITY("double_set_flag", FlagDoubleSet, 1),
        AQO_FIDELITY("set_flag_on_queue_held_id", FlagOnQueueHeldId, 1),
        AQO_FIDELITY("set_flag_left_pending", FlagLeftPending, 1),
        AQO_FIDELITY("flag_pending_across_reduce", FlagPendingAcrossReduce, 1),
        AQO_FIDELITY("release_foreign_event_id", ReleaseForeignEventId, 1),
        AQO_FIDELITY("flag_on_matmul_client_id", FlagOnMatmulClientId, 1, YInit::kData, false, kMix),
        AQO_FIDELITY("compare_partial_repeat", ComparePartialRepeat, 1),
        AQO_FIDELITY("compare_int32_not_eq", CompareInt32NotEq, 1),
        AQO_FIDELITY("mix_block_num", MixBlockNum, 2, YInit::kData, false, kMix),
        AQO_FIDELITY("software_sync_all_in_mix", SoftwareSyncAllInMix, 2, YInit::kData, true, kMix),
        AQO_FIDELITY("sync_all_false_with_matmul", SyncAllFalseWithMatmul, 2, YInit::kData, false, kMix),
        {"sync_all_over_core_count", &SyncAllOverCoreCount<false>, 65, YInit::kData, true},
        {"sync_all_over_core_count_ok", &SyncAllOverCoreCount<true>, 8, YInit::kData, true},
        {"hardware_sync_all_without_workspace", &HardwareSyncAllWithoutWorkspace<false>, 2, YInit::kData, false, -1,
         false},
        {"hardware_sync_all_without_workspace_ok", &HardwareSyncAllWithoutWorkspace<true>, 2},
        {"matmul_without_mix_type", &MatmulWithoutMixType<false>, 1, YInit::kData, false, kAivOnly},
        {"matmul_without_mix_type_ok", &MatmulWithoutMixType<true>, 1, YInit::kData, false, kMix},
        AQO_FIDELITY("regist_matmul_user_workspace", MatmulUserWorkspace, 1, YInit::kData, false, kMix),
        AQO_FIDELITY("aiv_only_on_310p", KernelTypeOn310p, 1),
        AQO_FIDELITY("output_left_unwritten", OutputLeftUnwritten, 1, YInit::kOutput),
        AQO_FIDELITY("workspace_read_unwritten", WorkspaceReadUnwritten, 1),
        AQO_FIDELITY("workspace_dma_unwritten", WorkspaceDmaUnwritten, 1),
        AQO_FIDELITY("scalar_store_no_clean", ScalarStoreNoClean, 1),
        AQO_FIDELITY("scalar_read_stale", ScalarReadStale, 1),
        AQO_FIDELITY("scalar_store_other_core", ScalarStoreOtherCore, 2, YInit::kData, true),
        AQO_FIDELITY("scalar_stores_share_line", ScalarStoresShareLine, 2, YInit::kData, true),
        AQO_FIDELITY("dcci_dst_on_310p", DcciDstOn310p, 1),
        AQO_FIDELITY("ub_scratch_with_select", UbScratchWithSelect, 1),
        AQO_FIDELITY("reduce_sum_other_order", ReduceSumOrder, 1),
        AQO_FIDELITY("tpipe_too_many_buffers", TPipe65Buffers, 1),
        AQO_FIDELITY("ub_copy_overlap", UbCopyOverlap, 1),
        AQO_FIDELITY("select_mask_unaligned", SelectMaskUnaligned, 1),
        AQO_FIDELITY("max_int8", MaxInt8, 1),
        AQO_FIDELITY("level0_max_int8", Level0MaxInt8, 1),
        AQO_FIDELITY("level0_and_int32", Level0AndInt32, 1),
        AQO_FIDELITY("whole_reduce_max_int32", WholeReduceMaxInt32, 1),
        AQO_FIDELITY("deq_scale_race", DeqScaleRace, 1),
        AQO_FIDELITY("matmul_c_block_past_buffer", MatmulCBlockPastBuffer, 1, YInit::kData, false, kMix),
        AQO_FIDELITY("matmul_c_block_neighbour", MatmulCBlockNeighbour, 2, YInit::kData, false, kMix),
        AQO_FIDELITY("matmul_tail_scratch_on_c", MatmulTailScratchOnC, 1, YInit::kData, false, kMix),
        AQO_FIDELITY("datacopypad_pad_without_ispad", DataCopyPadWithoutIsPad, 1),
        AQO_FIDELITY("datacopypad_partial_element", DataCopyPadPartialElement, 1),
        AQO_FIDELITY("datacopypad_ub_stride_gm_to_ub", DataCopyPadUbStrideGmToUb, 1),
        AQO_FIDELITY("datacopypad_ub_stride_ub_to_gm", DataCopyPadUbStrideUbToGm, 1),
        AQO_FIDELITY("datacopypad_ub_to_gm_partial_element", DataCopyPadUbToGmPartialElement, 1),
        AQO_FIDELITY("pipe_barrier_s", PipeBarrierS, 1),
        AQO_FIDELITY("literal_event_id", LiteralEventId, 1),
        AQO_FIDELITY("kernel_id_after_reset", KernelIdAfterReset, 1),
        AQO_FIDELITY("flag_on_cube_pipe", FlagOnCubePipe, 1),
        AQO_FIDELITY("flag_on_fixpipe", FlagOnFixpipe, 1),
        AQO_FIDELITY("tque_buffers_per_position", TQueBuffersPerPosition, 1),
        AQO_FIDELITY("reduce_max_index_work_rounds", ReduceMaxIndexWorkRounds, 1),
        AQO_FIDELITY("software_sync_all_ub_too_small", SoftwareSyncAllUbTooSmall, 2, YInit::kData, true),
        AQO_FIDELITY("software_sync_all_unzeroed_workspace", SoftwareSyncAllUnzeroedWorkspace, 2, YInit::kData, true),
        AQO_FIDELITY("software_sync_all_kernel_zeroed_counters", SoftwareSyncAllKernelZeroedCounters, 2, YInit::kData,
                     true),
        AQO_FIDELITY("matmul_c_rows_not_32_bytes", MatmulCRowsNot32Bytes, 1, YInit::kData, false, kMix),
        AQO_FIDELITY("div_zero_divisor", DivZeroDivisor, 1),
        AQO_FIDELITY("level0_div_zero_divisor", Level0DivZeroDivisor, 1),
        AQO_FIDELITY("level0_accumulate_dst_stride", Level0AccumulateDstStride, 1),
        AQO_FIDELITY("level0_accumulate_src0_on_src1", Level0AccumulateSrc0OnSrc1, 1),
        AQO_FIDELITY("reduce_sum_work_too_small", ReduceSumWorkTooSmall, 1),
        AQO_FIDELITY("reduce_sum_dst_one_per_repeat", ReduceSumDstOnePerRepeat, 1),
        AQO_FIDELITY("reduce_sum_work_on_src", ReduceSumWorkOnSrc, 1),
        AQO_FIDELITY("ub_copy_after_vector_barrier_only", UbCopyAfterVectorBarrierOnly, 1),
        AQO_FIDELITY("reduce_max_work_on_src", ReduceMaxWorkOnSrc, 1),
        AQO_FIDELITY("count_zero", CountZero, 1),
        AQO_FIDELITY("gm_element_misaligned", GmElementMisaligned, 1),
        AQO_FIDELITY("gm_scalar_misaligned", GmScalarMisaligned, 1),
        {"sync_all_normal_schedule", &SyncAllNormalSchedule, 2, YInit::kData, true, -1, true, false},
        {"sync_all_normal_schedule_ok", &SyncAllNormalSchedule, 2, YInit::kData, true, -1, true, true},
        {"mix_odd_blocks", &MixOddBlocks<false>, 3},
        {"mix_odd_blocks_ok", &MixOddBlocks<true>, 4},
        AQO_FIDELITY("mix_path_without_cube_guard", MixPathWithoutCubeGuard, 2),
        {"per_key_block_dim", &PerKeyBlockDim<false>, 4, YInit::kData, false, -1, true, true, 1, 2},
        {"per_key_block_dim_ok", &PerKeyBlockDim<true>, 4, YInit::kData, false, -1, true, true, 1, 4},
        {"type_of_another_key", &TypeOfAnotherKey<false>, 4, YInit::kData, false, -1, true, true, 1, 4},
        {"type_of_another_key_ok", &TypeOfAnotherKey<true>, 4, YInit::kData, false, -1, true, true, 1, 4},
        AQO_FIDELITY("ctrl48_after_vector_work", Ctrl48AfterVectorWork, 1),
        {"kernel_type_after_use", &KernelTypeAfterUse<false>, 1, YInit::kData, false, -1, true, true, 1},
        {"kernel_type_after_use_ok", &KernelTypeAfterUse<true>, 1, YInit::kData, false, -1, true, true, 1},
        AQO_FIDELITY("brcb_src_unaligned", BrcbSrcUnaligned, 1),
        AQO_FIDELITY("brcb_dst_out_of_buffer", BrcbDstOutOfBuffer, 1),
        AQO_FIDELITY("brcb_310p_half_tail", Brcb310pHalfTail, 1),
        AQO_FIDELITY("brcb_310p_half_repeats", Brcb310pHalfRepeats, 1),
        AQO_FIDELITY("brcb_310p_step_wrap", Brcb310pStepWrap, 1),
        AQO_FIDELITY("brcb_overlap", BrcbOverlap, 1),
        AQO_FIDELITY("brcb_dst_block_stride_zero", BrcbDstBlockStrideZero, 1),
        AQO_FIDELITY("brcb_int8", BrcbInt8, 1),
        AQO_FIDELITY("brcb_310p_flag_pending", Brcb310pFlagPending, 1),
        AQO_FIDELITY("trans_data_src_unaligned", TransDataSrcUnaligned, 1),
        AQO_FIDELITY("trans_data_overlap", TransDataOverlap, 1),
        AQO_FIDELITY("trans_data_dst_written_twice", TransDataDstWrittenTwice, 1),
        AQO_FIDELITY("trans_data_no_barrier", TransDataNoBarrier, 1),
        AQO_FIDELITY("trans_data_list_tensor_short", TransDataListTensorShort, 1),
        AQO_FIDELITY("trans_data_one_repeat_stride", TransDataOneRepeatStride, 1),
        AQO_FIDELITY("mul_add_dst_rounding", MulAddDstRoundingDependent, 1),
        AQO_FIDELITY("mul_add_dst_fused_near_tie", MulAddDstFusedNearTie, 1),
        AQO_FIDELITY("mul_add_dst_mixed", MulAddDstMixed, 1),
    };
    *count = sizeof(kEntries) / sizeof(kEntries[0]);
    return kEntries;
}
#undef AQO_FIDELITY

}  // namespace aqo_emu_fidelity
