// Test kernels of the emulated Matmul high-level API (op_kernel/emulator/include/lib/matmul_intf.h): deliberately
// wrong uses, each marked `// FAULT: <name>` on the line the emulator must name, and demo kernels of every form the
// QLinearMatMul kernels use or will use (synchronous IterateAll, asynchronous IterateAll + WaitIterateAll, Iterate +
// GetTensorC block by block, Iterate<false> + GetTensorC<false>() from a workspace; NORM and MDL configurations;
// the 310p local workspace), whose results tests compare with exact integer math. Exposed as
// _native.qmm_matmul_fault(name, soc), _native.qmm_matmul_demo(...), _native.qmm_matmul_blocks_demo(...); these
// exist to test the emulator, not for users.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "emulator/launch.h"
#include "lib/matmul_intf.h"
#include "registry.h"

namespace aqo_qmm_tests {

using namespace AscendC;

// Configurations: CANN's defaults and the one the QLinearMatMul kernel uses (intrinsicsLimit on).
struct Cfg {
    static constexpr MatmulConfig kNormChecked = GetNormalConfig(true);
    static constexpr MatmulConfig kMdlChecked = GetMDLConfig(true);
};

using GmI8 = MatmulType<TPosition::GM, CubeFormat::ND, int8_t>;
using GmU8 = MatmulType<TPosition::GM, CubeFormat::ND, uint8_t>;
using GmI32 = MatmulType<TPosition::GM, CubeFormat::ND, int32_t>;
using UbI32 = MatmulType<TPosition::VECIN, CubeFormat::ND, int32_t>;  // the asynchronous Iterate's C position
using MmI8 = Matmul<GmI8, GmI8, GmI32>;                                 // CFG_NORM
using MmI8Checked = Matmul<GmI8, GmI8, GmI32, GmI32, Cfg::kNormChecked>;
using GmI8T = MatmulType<TPosition::GM, CubeFormat::ND, int8_t, true>;  // B may be stored transposed, [N, K]
using MmI8T = Matmul<GmI8, GmI8T, GmI32>;                                  // CFG_NORM: no intrinsic check
using MmI8TChecked = Matmul<GmI8, GmI8T, GmI32, GmI32, Cfg::kNormChecked>;
using MmI8Mdl = Matmul<GmI8, GmI8, GmI32, GmI32, Cfg::kMdlChecked>;
using GmI32Align = MatmulType<TPosition::GM, CubeFormat::ND_ALIGN, int32_t>;  // 310p: whole fractal rows of C
using MmI8CheckedAlign = Matmul<GmI8, GmI8, GmI32Align, GmI32, Cfg::kNormChecked>;
using MmI8TCheckedAlign = Matmul<GmI8, GmI8T, GmI32Align, GmI32, Cfg::kNormChecked>;
using MmI8Ws = Matmul<GmI8, GmI8, UbI32, UbI32, Cfg::kNormChecked>;
using CalcI32 = MatmulType<TPosition::VECCALC, CubeFormat::ND, int32_t>;
using MmI8Calc = Matmul<GmI8, GmI8, CalcI32, CalcI32, Cfg::kNormChecked>;
using MmU8I8 = Matmul<GmU8, GmI8, GmI32, GmI32, Cfg::kNormChecked>;
using MmU8U8 = Matmul<GmU8, GmU8, GmI32, GmI32, Cfg::kNormChecked>;
using MmF8 = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, fp8_e4m3fn_t>,
                    MatmulType<TPosition::GM, CubeFormat::ND, fp8_e5m2_t>,
                    MatmulType<TPosition::GM, CubeFormat::ND, float>>;

// The test problem: a [m, k] (row stride lda), b [k, n] (row stride ldb), c [m, n] (row stride ldc).
struct Problem {
    int32_t m, n, k, lda, ldb, ldc;
};

// A valid tiling for a problem (as CANN's tiling would give, for the emulator's checks): whole fractals, depths and
// steps, a transLength for 310p, and the problem as the org / single shape.
inline TCubeTiling Tiling(int32_t m = 16, int32_t n = 16, int32_t k = 32, int32_t base_m = 16, int32_t base_n = 16,
                          int32_t base_k = 32)
{
    TCubeTiling t;
    t.M = t.singleCoreM = m;
    t.N = t.singleCoreN = n;
    // 310p: a width ending inside a 16-column fractal row of the int32 C takes the API's tail copy, whose scratch the
    // local workspace reserves only for a singleCoreN that is not a multiple of 8 (otherwise it is C row 0; the kernels'
    // plan does the same: one column less, the calls set their real widths).
    if (n % 16 != 0 && n % 8 == 0) {
        t.singleCoreN = n - 1;
    }
    t.Ka = t.Kb = t.singleCoreK = k;
    t.baseM = base_m;
    t.baseN = base_n;
    t.baseK = base_k;
    t.depthA1 = t.depthB1 = 1;
    t.stepM = t.stepN = t.stepKa = t.stepKb = 1;
    t.transLength = base_m * base_n * 4;
    return t;
}

template <class T>
inline GlobalTensor<T> Gm(GM_ADDR p, uint64_t elems)
{
    GlobalTensor<T> g;
    g.SetGlobalBuffer(reinterpret_cast<T*>(p), elems);
    return g;
}

// The usual call sequence: org shape, single shape, tensors, computation.
template <class MM, class AT, class BT>
inline void Shapes(MM& mm, GM_ADDR a, GM_ADDR b, uint64_t a_bytes, uint64_t b_bytes, const Problem& p)
{
    mm.SetOrgShape(p.m, p.ldb, p.lda, p.k, p.ldc);
    mm.SetSingleShape(p.m, p.n, p.k);
    mm.SetTensorA(Gm<AT>(a, a_bytes));
    mm.SetTensorB(Gm<BT>(b, b_bytes));
}

const Problem kSmall{16, 16, 32, 32, 16, 16};

// ---- faults. Buffers: a and b 128 KiB (read-only), c 8 KiB, w 8 KiB (read-write, for operands a kernel writes) ----
inline void FaultIterateBeforeSetTensorB(GM_ADDR a, GM_ADDR, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetOrgShape(16, 16, 32);
    mm.SetSingleShape(16, 16, 32);
    mm.SetTensorA(Gm<int8_t>(a, 512));
    mm.IterateAll(Gm<int32_t>(c, 256));  // FAULT: iterate_before_set_tensor_b
}

inline void FaultAOutOfBounds(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetOrgShape(16, 16, 32);
    mm.SetSingleShape(16, 16, 32);
    mm.SetTensorA(Gm<int8_t>(a, 256));  // half of the 16 x 32 A the shape needs
    mm.SetTensorB(Gm<int8_t>(b, 512));
    mm.IterateAll(Gm<int32_t>(c, 256));  // FAULT: a_out_of_bounds
}

inline void FaultCReadOnly(GM_ADDR a, GM_ADDR b, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetOrgShape(1, 16, 32);
    mm.SetSingleShape(1, 16, 32);
    mm.SetTensorA(Gm<int8_t>(a, 512));
    mm.SetTensorB(Gm<int8_t>(b, 512));
    mm.IterateAll(Gm<int32_t>(a, 16));  // FAULT: c_in_read_only_input
}

inline void FaultBaseBlockNotFractal(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling(16, 16, 32, 10, 16, 32);
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // FAULT: base_block_not_fractal
}

inline void FaultTilingDepthZero(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    t.depthA1 = 0;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // FAULT: tiling_depth_zero
}

inline void FaultMdlDepthNotMultiple(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Mdl mm;
    TCubeTiling t = Tiling();
    t.stepKa = 2;
    t.depthA1 = 3;  // not 1 or 2 times stepM * stepKa = 2
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // FAULT: mdl_depth_not_multiple
}

inline void FaultTransLengthZero(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    t.transLength = 0;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // FAULT: trans_length_zero
}

inline void FaultUint8OnInt8Cube(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmU8I8 mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // FAULT: uint8_without_cube_path
}

inline void FaultFloat8WithoutCubePath(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmF8 mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // FAULT: float8_without_cube_path
}

// ascend910_95: a NaN among the float8 operands (the Mmad page: the cube should not be given NaN inputs; an execution
// error may result). The buffers hold code 0x01 (a subnormal in both formats); one byte of A is made NaN.
inline void FaultFloat8NaNOperand(GM_ADDR, GM_ADDR b, GM_ADDR c, GM_ADDR w)
{
    TPipe pipe;
    MmF8 mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    GlobalTensor<uint8_t> wa = Gm<uint8_t>(w, 512);
    wa.SetValue(37, 0x7F);  // float8_e4m3fn NaN
    DataCacheCleanAndInvalid<uint8_t, CacheLine::ENTIRE_DATA_CACHE>(wa);  // the cube reads GM
    PipeBarrier<PIPE_ALL>();
    mm.SetOrgShape(16, 16, 32);
    mm.SetSingleShape(16, 16, 32);
    mm.SetTensorA(Gm<fp8_e4m3fn_t>(w, 512));
    mm.SetTensorB(Gm<fp8_e5m2_t>(b, 512));
    mm.IterateAll(Gm<float>(c, 256));  // FAULT: float8_nan_operand
}

inline void FaultUseBeforeInit(GM_ADDR a, GM_ADDR, GM_ADDR, GM_ADDR)
{
    MmI8Checked mm;
    mm.SetTensorA(Gm<int8_t>(a, 512));  // FAULT: use_before_init
}

inline void FaultSingleLargerThanOrg(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetOrgShape(16, 8, 32);  // B and C rows of 8, but 16 columns asked for
    mm.SetSingleShape(16, 16, 32);
    mm.SetTensorA(Gm<int8_t>(a, 512));
    mm.SetTensorB(Gm<int8_t>(b, 512));
    mm.IterateAll(Gm<int32_t>(c, 256));  // FAULT: single_shape_larger_than_org
}

// A with K = 70000 (row stride 70000) under CFG_NORM: the GM -> L1 copy's 16-bit stride field would wrap.
inline void FaultStride16BitA(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8 mm;
    TCubeTiling t = Tiling(1, 16, 70000);
    t.singleCoreN = 1;  // the real width (310p: the tail copy's scratch kept apart from C, see Tiling)
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetOrgShape(1, 1, 70000, 70000, 16);
    mm.SetSingleShape(1, 1, 70000);
    mm.SetTensorA(Gm<int8_t>(a, 70000));
    mm.SetTensorB(Gm<int8_t>(b, 70000));
    mm.IterateAll(Gm<int32_t>(c, 16));  // FAULT: stride_16bit_a
}

// B with N = 70000 (row stride 70000) under CFG_NORM.
inline void FaultStride16BitB(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8 mm;
    TCubeTiling t = Tiling(1, 16, 1);
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetOrgShape(1, 70000, 1, 1, 16);
    mm.SetSingleShape(1, 16, 1);
    mm.SetTensorA(Gm<int8_t>(a, 32));
    mm.SetTensorB(Gm<int8_t>(b, 70000));
    mm.IterateAll(Gm<int32_t>(c, 16));  // FAULT: stride_16bit_b
}

// 310p: the kernel's first UB buffer sits at address 0, and no SetLocalWorkspace.
inline void FaultLocalWorkspaceMissing(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    TBuf<TPosition::VECCALC> data;
    pipe.InitBuffer(data, 1024);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    mm.IterateAll(Gm<int32_t>(c, 256));  // FAULT: local_workspace_missing
}

inline void FaultLocalWorkspaceTooSmall(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(ws, 64);
    mm.SetLocalWorkspace(ws.Get<uint8_t>());  // FAULT: local_workspace_too_small
}

// 310p: a C in VECCALC as ND stages its tile in the local workspace as a C in GM does (matmul_local_workspace.h):
// 1024 bytes (the int8 B slab) hold the GM-free need of a VECIN C, not this one's (plus the 16 x 16 int32 tile).
inline void FaultLocalWorkspaceVeccalcCTile(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Calc mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(ws, 1024);
    mm.SetLocalWorkspace(ws.Get<uint8_t>());  // FAULT: local_workspace_veccalc_c_tile
}

// 310p: the API scribbles on its local workspace; data the kernel kept there is gone.
inline void FaultLocalWorkspaceReadAfterUse(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(ws, 4096);
    LocalTensor<uint8_t> w = ws.Get<uint8_t>();
    w.SetValue(0, 7);
    mm.SetLocalWorkspace(w);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    mm.IterateAll(Gm<int32_t>(c, 256));
    (void)w.GetValue(0);  // FAULT: local_workspace_read_after_use
}

// A 16 x 16 x 32 IterateAll into c on a local workspace, then `after(c, pipe)`.
template <class After>
inline void IterateAllThen(GM_ADDR a, GM_ADDR b, GM_ADDR c, After after)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(ws, 4096);
    mm.SetLocalWorkspace(ws.Get<uint8_t>());
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    GlobalTensor<int32_t> cg = Gm<int32_t>(c, 256);
    mm.IterateAll(cg);
    after(cg, pipe);
}

// 310p: the scalar unit reads C right after IterateAll. The API's pipes wrote it and are ordered for V, MTE2 and MTE3
// (its flag pairs), not for the scalar unit, which IterateAll does not hold: a flag from MTE3 is needed first (the
// twin below). Split SoCs: the client waits for the cube's completion message, so the read is ordered there.
inline void FaultCReadByScalarAfterIterateAll(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    IterateAllThen(a, b, c, [](GlobalTensor<int32_t>& cg, TPipe&) {
        (void)cg.GetValue(0);  // FAULT: c_read_by_scalar_after_iterate_all
    });
}

// The twin: an MTE3 -> S flag orders the read (it fires once the API's write-back DMAs completed).
inline void CReadByScalarAfterIterateAllOk(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    IterateAllThen(a, b, c, [](GlobalTensor<int32_t>& cg, TPipe& pipe) {
        const event_t id = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE3_S));
        SetFlag<HardEvent::MTE3_S>(id);
        WaitFlag<HardEvent::MTE3_S>(id);
        (void)cg.GetValue(0);
    });
}

// 310p: the Matmul API's Init takes its queues and L0 buffers from the kernel's TPipe, which manages 64 in all; with
// them, 60 buffers of the kernel's are too many (split SoCs: the API's buffers are the cube core's). TBufs: a
// position's queue buffers stop at 8 before that.
inline void FaultTPipeBuffersWithMatmulApi(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    TBuf<TPosition::VECCALC> b[60];
    for (int i = 0; i < 60; ++i) {
        pipe.InitBuffer(b[i], 32);  // FAULT: tpipe_buffers_with_matmul_api
    }
}

// 310p: a tiling whose shareUbSize the TilingFunc left as the CANN tiling library set it. The API's Init reserves
// that much of the TPipe's UB first, so the kernel's buffers start higher and the last one runs past the UB.
inline void FaultShareUbSizeShiftsBuffers(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    t.shareUbSize = 98304;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    TBuf<TPosition::VECCALC> ws, work;
    pipe.InitBuffer(ws, 65536);
    pipe.InitBuffer(work, 128 * 1024);  // FAULT: share_ub_size_shifts_buffers
}

// Split SoCs: SetOrgShape is a message to the cube, which drops the pending single shape.
inline void FaultSetOrgShapeAfterSingleShape(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetSingleShape(16, 16, 32);
    mm.SetOrgShape(16, 16, 32);  // FAULT: set_org_shape_after_single_shape
}

// Split SoCs: a second IterateAll needs SetTensorA / SetTensorB again (the client asserts isFirstIter).
inline void FaultIterateAllWithoutNewTensors(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    mm.IterateAll(Gm<int32_t>(c, 256));
    mm.IterateAll(Gm<int32_t>(c, 256));  // FAULT: iterate_all_without_new_tensors
}

inline void FaultWaitAfterSync(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    mm.IterateAll(Gm<int32_t>(c, 256));
    mm.WaitIterateAll();  // FAULT: wait_after_sync
}

inline void FaultWaitNothingInFlight(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    mm.template IterateAll<false>(Gm<int32_t>(c, 256), 0, false, true);
    mm.WaitIterateAll();
    mm.WaitIterateAll();  // FAULT: wait_nothing_in_flight
}

// ascend310p: MatmulImpl has no WaitIterateAll (its IterateAll is synchronous).
inline void FaultWaitOn310p(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    mm.template IterateAll<false>(Gm<int32_t>(c, 256), 0, false, true);
    mm.WaitIterateAll();  // FAULT: wait_on_310p
}

// Split SoCs: A (here in the read-write buffer w) changed while the asynchronous IterateAll is in flight.
inline void FaultAsyncAChanged(GM_ADDR, GM_ADDR b, GM_ADDR c, GM_ADDR w)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, w, b, 512, 512, kSmall);
    mm.template IterateAll<false>(Gm<int32_t>(c, 256), 0, false, true);
    Gm<int8_t>(w, 512).SetValue(3, 9);
    mm.WaitIterateAll();  // FAULT: async_a_changed
}

inline void FaultAsyncCWritten(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    mm.template IterateAll<false>(Gm<int32_t>(c, 256), 0, false, true);
    Gm<int32_t>(c, 256).SetValue(5, 1);
    mm.WaitIterateAll();  // FAULT: async_c_written
}

// ascend910b: a kernel buffer in the last 128 bytes of UB (196,608 bytes), where the Matmul client stages each
// message to the cube.
inline void FaultBufferUnderClientMessage(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);  // SetOrgShape: a message, UB still free
    TBuf<TPosition::VECCALC> fill;
    TBuf<TPosition::VECCALC> top;
    pipe.InitBuffer(fill, 196608 - 64);
    pipe.InitBuffer(top, 64);
    mm.IterateAll(Gm<int32_t>(c, 256));  // FAULT: buffer_under_client_message
}

// ascend910b launched with a UB larger than the build's (a device-reported size, here 1 KiB more): a kernel buffer in
// the last 128 bytes of the build's UB (196,608 bytes), where the client still stages its messages (TOTAL_UB_SIZE is
// compiled in), although the launch's UB goes on past it.
inline void FaultBufferUnderBuildMessageWindow(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    TBuf<TPosition::VECCALC> fill;
    TBuf<TPosition::VECCALC> top;
    pipe.InitBuffer(fill, 196608 - 64);
    pipe.InitBuffer(top, 64);
    mm.IterateAll(Gm<int32_t>(c, 256));  // FAULT: buffer_under_build_message_window
}

inline void FaultAsyncAOutOfBounds(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 256, 512, kSmall);  // half of the A the shape needs
    mm.template IterateAll<false>(Gm<int32_t>(c, 256), 0, false, true);  // FAULT: async_a_out_of_bounds
}

inline void FaultAsyncNeverWaited(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    mm.template IterateAll<false>(Gm<int32_t>(c, 256), 0, false, true);  // FAULT: async_never_waited
}

// Split SoCs: each asynchronous IterateAll with waitIterateAll is notified through one cross-core flag, whose counter
// holds 0..15 (the CrossCoreSetFlag page); a 16th in flight could overflow it (the device stops with an error). C areas
// of 256 int32 in c, then in w.
inline void FaultAsyncPastTheFlagCounter(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR w)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    for (int i = 0; i < 16; ++i) {
        Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
        GM_ADDR out = i < 8 ? c + i * 1024 : w + (i - 8) * 1024;
        mm.template IterateAll<false>(Gm<int32_t>(out, 256), 0, false, true);  // FAULT: async_past_the_flag_counter
    }
    for (int i = 0; i < 16; ++i) {
        mm.WaitIterateAll();
    }
}

// Split SoCs: an asynchronous IterateAll without waitIterateAll = true is never notified, so WaitIterateAll hangs.
inline void FaultWaitWithoutNotify(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    mm.template IterateAll<false>(Gm<int32_t>(c, 256));
    mm.WaitIterateAll();  // FAULT: wait_without_notify
}

// Split SoCs: WaitIterateAll supports a continuous output to GM only; C rows 32 elements apart for a width of 16 are
// not. (The twin, C rows of the width itself, is test_asynchronous_iterate_all_then_wait.)
inline void FaultAsyncCNotContinuous(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    const Problem p{16, 16, 32, 32, 16, 32};  // ldc 32
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, p);
    mm.template IterateAll<false>(Gm<int32_t>(c, 512), 0, false, true);  // FAULT: async_c_not_continuous
    mm.WaitIterateAll();
}

// A transposed B needs a MatmulType that declares it (ISTRANS).
inline void FaultTransposedBNotDeclared(GM_ADDR a, GM_ADDR b, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetOrgShape(16, 16, 32);
    mm.SetSingleShape(16, 16, 32);
    mm.SetTensorA(Gm<int8_t>(a, 512));
    mm.SetTensorB(Gm<int8_t>(b, 512), true);  // FAULT: transposed_b_not_declared
}

// A transposed B's row stride is orgKb (K): 65536 or more needs the intrinsic check on split SoCs.
inline void FaultStride16BitBTransposed(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8T mm;
    TCubeTiling t = Tiling(1, 16, 70000);
    t.singleCoreN = 1;  // the real width (310p: the tail copy's scratch kept apart from C, see Tiling)
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    mm.SetOrgShape(1, 16, 32, 70000, 16);
    mm.SetSingleShape(1, 1, 32);
    mm.SetTensorA(Gm<int8_t>(a, 70000));
    mm.SetTensorB(Gm<int8_t>(b, 1 << 17), true);
    mm.IterateAll(Gm<int32_t>(c, 16));  // FAULT: stride_16bit_b_transposed
}

// The tiling's buffers must fit the cube's L1.
inline void FaultTilingExceedsL1(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling(128, 256, 4096, 128, 256, 64);
    t.depthA1 = 64;  // 64 x 8 KiB of A
    t.depthB1 = 64;  // 64 x 16 KiB of B
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // FAULT: tiling_exceeds_l1
}

inline void FaultIterateAsyncWithoutWorkspace(GM_ADDR a, GM_ADDR b, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Ws mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Ws, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    (void)mm.template Iterate<false>();  // FAULT: iterate_async_without_workspace
}

inline void FaultIterateAsyncCInGm(GM_ADDR a, GM_ADDR b, GM_ADDR, GM_ADDR w)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    GlobalTensor<int32_t> ws = Gm<int32_t>(w, 256);
    mm.SetWorkspace(ws);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    (void)mm.template Iterate<false>();  // FAULT: iterate_async_c_in_gm
}

// ascend310p: MatmulImpl has no GetTensorC returning a workspace block.
inline void FaultGetTensorCWorkspaceOn310p(GM_ADDR a, GM_ADDR b, GM_ADDR, GM_ADDR w)
{
    TPipe pipe;
    MmI8Ws mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    GlobalTensor<int32_t> ws = Gm<int32_t>(w, 256);
    mm.SetWorkspace(ws);
    Shapes<MmI8Ws, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    (void)mm.template GetTensorC<false>();  // FAULT: get_tensor_c_workspace_on_310p
}

inline void FaultGetTensorCBeforeIterate(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    mm.GetTensorC(Gm<int32_t>(c, 256));  // FAULT: get_tensor_c_before_iterate
}

// Split SoCs: the blocks of a synchronous Iterate are not in a workspace.
inline void FaultGetTensorCWorkspaceAfterSync(GM_ADDR a, GM_ADDR b, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    (void)mm.Iterate();
    (void)mm.template GetTensorC<false>();  // FAULT: get_tensor_c_workspace_after_sync
}

inline void FaultGetTensorCBeyondBlocks(GM_ADDR a, GM_ADDR b, GM_ADDR, GM_ADDR w)
{
    TPipe pipe;
    MmI8Ws mm;
    TCubeTiling t = Tiling();  // one 16 x 16 block
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    GlobalTensor<int32_t> ws = Gm<int32_t>(w, 512);
    mm.SetWorkspace(ws);
    Shapes<MmI8Ws, int8_t, int8_t>(mm, a, b, 512, 512, kSmall);
    while (mm.template Iterate<false>()) {
    }
    (void)mm.template GetTensorC<false>();
    (void)mm.template GetTensorC<false>();  // FAULT: get_tensor_c_beyond_blocks
}

inline void FaultIterateWithoutGetTensorC(GM_ADDR a, GM_ADDR b, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8Checked mm;
    TCubeTiling t = Tiling(16, 32, 32);  // two 16 x 16 blocks
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Shapes<MmI8Checked, int8_t, int8_t>(mm, a, b, 512, 1024, Problem{16, 32, 32, 32, 32, 32});
    (void)mm.Iterate();
    (void)mm.Iterate();  // FAULT: iterate_without_get_tensor_c
}

typedef void (*FaultKernel)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
struct FaultEntry {
    const char* name;
    FaultKernel kernel;
    uint32_t ub_override = 0;  // the launch's UB size where not the SoC table's
};
const FaultEntry kFaults[] = {
    {"iterate_before_set_tensor_b", &FaultIterateBeforeSetTensorB},
    {"a_out_of_bounds", &FaultAOutOfBounds},
    {"c_in_read_only_input", &FaultCReadOnly},
    {"base_block_not_fractal", &FaultBaseBlockNotFractal},
    {"tiling_depth_zero", &FaultTilingDepthZero},
    {"mdl_depth_not_multiple", &FaultMdlDepthNotMultiple},
    {"trans_length_zero", &FaultTransLengthZero},
    {"uint8_without_cube_path", &FaultUint8OnInt8Cube},
    {"float8_without_cube_path", &FaultFloat8WithoutCubePath},
    {"float8_nan_operand", &FaultFloat8NaNOperand},
    {"use_before_init", &FaultUseBeforeInit},
    {"single_shape_larger_than_org", &FaultSingleLargerThanOrg},
    {"stride_16bit_a", &FaultStride16BitA},
    {"stride_16bit_b", &FaultStride16BitB},
    {"local_workspace_missing", &FaultLocalWorkspaceMissing},
    {"local_workspace_too_small", &FaultLocalWorkspaceTooSmall},
    {"local_workspace_veccalc_c_tile", &FaultLocalWorkspaceVeccalcCTile},
    {"c_read_by_scalar_after_iterate_all", &FaultCReadByScalarAfterIterateAll},
    {"c_read_by_scalar_after_iterate_all_ok", &CReadByScalarAfterIterateAllOk},
    {"local_workspace_read_after_use", &FaultLocalWorkspaceReadAfterUse},
    {"tpipe_buffers_with_matmul_api", &FaultTPipeBuffersWithMatmulApi},
    {"share_ub_size_shifts_buffers", &FaultShareUbSizeShiftsBuffers},
    {"set_org_shape_after_single_shape", &FaultSetOrgShapeAfterSingleShape},
    {"iterate_all_without_new_tensors", &FaultIterateAllWithoutNewTensors},
    {"wait_after_sync", &FaultWaitAfterSync},
    {"wait_nothing_in_flight", &FaultWaitNothingInFlight},
    {"wait_on_310p", &FaultWaitOn310p},
    {"async_a_changed", &FaultAsyncAChanged},
    {"async_c_written", &FaultAsyncCWritten},
    {"async_a_out_of_bounds", &FaultAsyncAOutOfBounds},
    {"buffer_under_client_message", &FaultBufferUnderClientMessage},
    {"buffer_under_build_message_window", &FaultBufferUnderBuildMessageWindow, 196608 + 1024},
    {"async_never_waited", &FaultAsyncNeverWaited},
    {"async_past_the_flag_counter", &FaultAsyncPastTheFlagCounter},
    {"iterate_async_without_workspace", &FaultIterateAsyncWithoutWorkspace},
    {"iterate_async_c_in_gm", &FaultIterateAsyncCInGm},
    {"get_tensor_c_workspace_on_310p", &FaultGetTensorCWorkspaceOn310p},
    {"get_tensor_c_before_iterate", &FaultGetTensorCBeforeIterate},
    {"get_tensor_c_workspace_after_sync", &FaultGetTensorCWorkspaceAfterSync},
    {"get_tensor_c_beyond_blocks", &FaultGetTensorCBeyondBlocks},
    {"iterate_without_get_tensor_c", &FaultIterateWithoutGetTensorC},
    {"wait_without_notify", &FaultWaitWithoutNotify},
    {"async_c_not_continuous", &FaultAsyncCNotContinuous},
    {"transposed_b_not_declared", &FaultTransposedBNotDeclared},
    {"stride_16bit_b_transposed", &FaultStride16BitBTransposed},
    {"tiling_exceeds_l1", &FaultTilingExceedsL1},
};

// ---- demos ----
enum class DemoForm { kSync, kAsync };

template <class MM, class AT, class BT>
inline void RunIterateAll(GM_ADDR a, GM_ADDR b, GM_ADDR c, uint64_t a_bytes, uint64_t b_bytes, uint64_t c_elems,
                          const Problem& p, const TCubeTiling& t, DemoForm form, bool local_ws, bool b_trans = false)
{
    TPipe pipe;
    MM mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    TBuf<TPosition::VECCALC> ws, other;
    if (local_ws) {  // 310p: the API's local workspace first, then a buffer of the kernel's own
        pipe.InitBuffer(ws, 65536);
        mm.SetLocalWorkspace(ws.Get<uint8_t>());
        pipe.InitBuffer(other, 1024);
    }
    if (b_trans) {  // B stored [N, K] with row stride ldb (orgKb)
        mm.SetOrgShape(p.m, p.n, p.lda, p.ldb, p.ldc);
        mm.SetSingleShape(p.m, p.n, p.k);
        mm.SetTensorA(Gm<AT>(a, a_bytes));
        mm.SetTensorB(Gm<BT>(b, b_bytes), true);
    } else {
        Shapes<MM, AT, BT>(mm, a, b, a_bytes, b_bytes, p);
    }
    if (form == DemoForm::kAsync) {
        mm.template IterateAll<false>(Gm<int32_t>(c, c_elems), 0, false, true);
        mm.WaitIterateAll();
    } else {
        mm.IterateAll(Gm<int32_t>(c, c_elems));
    }
    mm.End();
}

}  // namespace aqo_qmm_tests

namespace nb = nanobind;

namespace {

// What the build and the framework give these test kernels on a launch: the 1:2 mix kernel type (a kernel with a
// Matmul object; one vector core of the pair is emulated) and a workspace holding the system part, where
// GetSysWorkSpacePtr() points.
struct MatmulTestLaunch {
    explicit MatmulTestLaunch(aqo_emu::Launcher& launch)
    {
        launch.SetKernelType(aqo_emu::kKernelTypeMixAic12);
        launch.AllowPartialMixGroup(true);
        const uint64_t reserve = launch.soc().system_workspace_bytes;
        ws.reset(new uint8_t[reserve + 32]);
        launch.AddWorkspace("system_workspace", ws.get(), reserve + 32, reserve);
    }
    std::unique_ptr<uint8_t[]> ws;
};

void RunFault(const std::string& name, const std::string& soc)
{
    for (const aqo_qmm_tests::FaultEntry& f : aqo_qmm_tests::kFaults) {
        if (name != f.name) {
            continue;
        }
        std::vector<uint8_t> a(1 << 17, 1), b(1 << 17, 1), c(8192, 0), w(8192, 1);
        aqo_emu::Launcher launch(soc, std::string("qmm_fault_") + name, f.ub_override);
        launch.SetScheduleMode(1);  // as the host sets it for the matmul kernels (their preparation's SyncAll)
        MatmulTestLaunch setup(launch);
        uint8_t* ga = launch.AddGm("a", a.data(), a.size(), aqo_emu::GmAccess::kReadOnly);
        uint8_t* gb = launch.AddGm("b", b.data(), b.size(), aqo_emu::GmAccess::kReadOnly);
        uint8_t* gc = launch.AddGm("c", c.data(), c.size(), aqo_emu::GmAccess::kReadWrite, aqo_emu::GmInit::kData);
        uint8_t* gw = launch.AddGm("w", w.data(), w.size(), aqo_emu::GmAccess::kReadWrite, aqo_emu::GmInit::kData);
        launch.Run(1, [&] { f.kernel(ga, gb, gc, gw); });  // the EmulatorError propagates (bind_emulator.cpp)
        return;
    }
    throw nb::value_error(("unknown Matmul fault kernel " + name).c_str());
}

std::vector<uint8_t> Bytes(const nb::bytes& b)
{
    const uint8_t* p = static_cast<const uint8_t*>(b.data());
    return std::vector<uint8_t>(p, p + b.size());
}

// C = A B through the emulated Matmul API, C returned as bytes. config: "norm" (CFG_NORM), "norm_checked"
// (intrinsicsLimit, the kernel's), "mdl_checked"; form: "sync" (IterateAll) or "async" (IterateAll<false> +
// WaitIterateAll); local_workspace: 310p, allocate and pass the API's local workspace; base_n: the tiling's baseN (a
// multiple of 16; wider than 16, a block's width can end 1..7 columns into a fractal row, which 310p writes back
// past the width).
nb::bytes RunDemo(const std::string& soc, const nb::bytes& a_in, const nb::bytes& b_in, bool a_unsigned,
                  bool b_unsigned, int32_t m, int32_t n, int32_t k, int32_t lda, int32_t ldb, int32_t ldc,
                  const std::string& config, const std::string& form, bool local_workspace, bool b_trans,
                  int32_t base_n, bool c_align)
{
    using namespace aqo_qmm_tests;
    if (!a_unsigned && b_unsigned) {
        throw nb::value_error("int8 x uint8 is no cube path on any SoC");
    }
    if (config != "norm" && config != "norm_checked" && config != "mdl_checked") {
        throw nb::value_error("config: norm | norm_checked | mdl_checked");
    }
    std::vector<uint8_t> a = Bytes(a_in), b = Bytes(b_in);
    // C, then 32 bytes the buffer owns past it: ascend310p's C write-back reads and rewrites up to 32 bytes after a
    // row whose width is not whole 64-byte fractal rows (the last row's reach past C).
    const size_t c_bytes = static_cast<size_t>(m) * ldc * 4;
    std::vector<uint8_t> c(c_bytes + 32, 0);
    const Problem p{m, n, k, lda, ldb, ldc};
    const DemoForm f = form == "async" ? DemoForm::kAsync : DemoForm::kSync;
    if (base_n <= 0 || base_n % 16 != 0) {
        throw nb::value_error("base_n: a positive multiple of 16");
    }
    TCubeTiling t = Tiling(m, n, k, 16, base_n, 32);
    t.N = n % 8 == 0 ? n : (n + 7) / 8 * 8;  // an ND int32 C needs 32-byte N dims on 310p
    t.singleCoreN = (n % 16 != 0 && n % 8 == 0) ? n - 1 : n;  // the tail scratch reserved (Tiling)
    aqo_emu::Launcher launch(soc, "qmm_matmul_demo");
        launch.SetScheduleMode(1);  // as the host sets it for the matmul kernels (their preparation's SyncAll)
    MatmulTestLaunch setup(launch);
    uint8_t* ga = launch.AddGm("a", a.data(), a.size(), aqo_emu::GmAccess::kReadOnly);
    uint8_t* gb = launch.AddGm("b", b.data(), b.size(), aqo_emu::GmAccess::kReadOnly);
    uint8_t* gc = launch.AddGm("c", c.data(), c.size(), aqo_emu::GmAccess::kReadWrite, aqo_emu::GmInit::kData);
    if (c_align && (a_unsigned || b_unsigned || config != "norm_checked")) {
        throw nb::value_error("c_align: the int8 x int8 norm_checked demo");
    }
    launch.Run(1, [&] {
        if (b_trans) {
            if (a_unsigned || b_unsigned) {
                throw std::runtime_error("the transposed-B demo is int8 x int8");
            }
            if (c_align) {
                RunIterateAll<MmI8TCheckedAlign, int8_t, int8_t>(ga, gb, gc, a.size(), b.size(), c.size() / 4, p, t,
                                                                  f, local_workspace, true);
            } else {
                RunIterateAll<MmI8TChecked, int8_t, int8_t>(ga, gb, gc, a.size(), b.size(), c.size() / 4, p, t, f,
                                                             local_workspace, true);
            }
        } else if (c_align) {
            RunIterateAll<MmI8CheckedAlign, int8_t, int8_t>(ga, gb, gc, a.size(), b.size(), c_bytes / 4, p, t, f,
                                                             local_workspace);
        } else if (!a_unsigned && !b_unsigned) {
            if (config == "norm") {
                RunIterateAll<MmI8, int8_t, int8_t>(ga, gb, gc, a.size(), b.size(), c_bytes / 4, p, t, f,
                                                     local_workspace);
            } else if (config == "mdl_checked") {
                RunIterateAll<MmI8Mdl, int8_t, int8_t>(ga, gb, gc, a.size(), b.size(), c_bytes / 4, p, t, f,
                                                        local_workspace);
            } else {
                RunIterateAll<MmI8Checked, int8_t, int8_t>(ga, gb, gc, a.size(), b.size(), c_bytes / 4, p, t, f,
                                                            local_workspace);
            }
        } else if (a_unsigned && !b_unsigned) {
            RunIterateAll<MmU8I8, uint8_t, int8_t>(ga, gb, gc, a.size(), b.size(), c_bytes / 4, p, t, f,
                                                    local_workspace);
        } else {
            RunIterateAll<MmU8U8, uint8_t, uint8_t>(ga, gb, gc, a.size(), b.size(), c_bytes / 4, p, t, f,
                                                     local_workspace);
        }
    });
    return nb::bytes(reinterpret_cast<const char*>(c.data()), c_bytes);
}

// Block by block: form "sync" (Iterate + GetTensorC(gm) into C [m, n]) returns C; form "async" (SetWorkspace +
// Iterate<false> + GetTensorC<false>(), each block copied by the kernel from the workspace block into an output
// buffer, in fetch order) returns those blocks, baseM * baseN int32 each. order: 0 ORDER_M, 1 ORDER_N (the tiling's
// iterateOrder, the config's being UNDEF).
nb::bytes RunBlocksDemo(const std::string& soc, const nb::bytes& a_in, const nb::bytes& b_in, int32_t m, int32_t n,
                        int32_t k, int32_t base_m, int32_t base_n, int32_t step_m, int32_t step_n, int32_t order,
                        const std::string& form)
{
    using namespace aqo_qmm_tests;
    std::vector<uint8_t> a = Bytes(a_in), b = Bytes(b_in);
    const int32_t blocks = ((m + base_m - 1) / base_m) * ((n + base_n - 1) / base_n);
    const uint64_t block_elems = static_cast<uint64_t>(base_m) * base_n;
    std::vector<uint8_t> c(static_cast<size_t>(std::max<uint64_t>(static_cast<uint64_t>(m) * n,
                                                                  blocks * block_elems)) * 4, 0);
    std::vector<uint8_t> ws(blocks * block_elems * 4, 0);
    TCubeTiling t = Tiling(m, n, k, base_m, base_n, 32);
    t.stepM = step_m;
    t.stepN = step_n;
    t.depthA1 = step_m;
    t.depthB1 = step_n;
    t.iterateOrder = order;
    const Problem p{m, n, k, k, n, n};
    aqo_emu::Launcher launch(soc, "qmm_matmul_blocks_demo");
        launch.SetScheduleMode(1);  // as the host sets it for the matmul kernels (their preparation's SyncAll)
    MatmulTestLaunch setup(launch);
    uint8_t* ga = launch.AddGm("a", a.data(), a.size(), aqo_emu::GmAccess::kReadOnly);
    uint8_t* gb = launch.AddGm("b", b.data(), b.size(), aqo_emu::GmAccess::kReadOnly);
    uint8_t* gc = launch.AddGm("c", c.data(), c.size(), aqo_emu::GmAccess::kReadWrite, aqo_emu::GmInit::kData);
    uint8_t* gw = launch.AddGm("workspace", ws.data(), ws.size(), aqo_emu::GmAccess::kReadWrite, aqo_emu::GmInit::kData);
    launch.Run(1, [&] {
        TPipe pipe;
        if (form == "sync") {
            MmI8Checked mm;
            REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
            Shapes<MmI8Checked, int8_t, int8_t>(mm, ga, gb, a.size(), b.size(), p);
            GlobalTensor<int32_t> gcm = Gm<int32_t>(gc, static_cast<uint64_t>(m) * n);
            while (mm.Iterate()) {
                mm.GetTensorC(gcm);
            }
            mm.End();
            return;
        }
        MmI8Ws mm;
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
        GlobalTensor<int32_t> gws = Gm<int32_t>(gw, blocks * block_elems);
        mm.SetWorkspace(gws);
        Shapes<MmI8Ws, int8_t, int8_t>(mm, ga, gb, a.size(), b.size(), p);
        TQue<QuePosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, static_cast<uint32_t>(block_elems * 4));
        GlobalTensor<int32_t> out = Gm<int32_t>(gc, blocks * block_elems);
        uint64_t i = 0;
        while (mm.template Iterate<false>()) {
            LocalTensor<int32_t> blk = q.AllocTensor<int32_t>();
            mm.template GetTensorC<false>(blk);
            q.EnQue(blk);
            blk = q.DeQue<int32_t>();
            // The VECIN queue orders the copy in before the vector unit only; MTE3 reads blk next.
            const event_t toMte3 = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_MTE3));
            SetFlag<HardEvent::MTE2_MTE3>(toMte3);
            WaitFlag<HardEvent::MTE2_MTE3>(toMte3);
            DataCopy(out[i * block_elems], blk, static_cast<uint32_t>(block_elems));
            // ... and its FreeTensor frees it for the vector unit only: the next copy in waits for the copy out.
            const event_t toMte2 = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE3_MTE2));
            SetFlag<HardEvent::MTE3_MTE2>(toMte2);
            WaitFlag<HardEvent::MTE3_MTE2>(toMte2);
            q.FreeTensor(blk);
            ++i;
        }
        mm.End();
    });
    return nb::bytes(reinterpret_cast<const char*>(c.data()), c.size());
}

void RegisterQmmMatmulTests(nb::module_& m)
{
    std::vector<std::string> names;
    for (const aqo_qmm_tests::FaultEntry& f : aqo_qmm_tests::kFaults) {
        names.emplace_back(f.name);
    }
    m.def("qmm_matmul_fault_names", [names]() { return names; },
          "Names of the emulated Matmul API's fault kernels (python/csrc/emulate_qlinear_matmul_faults.cpp).");
    m.def("qmm_matmul_fault", &RunFault, nb::arg("name"), nb::arg("soc") = "ascend910b",
          "Runs one deliberately wrong Matmul API use; raises EmulatorError at its `// FAULT:` line.");
    m.def("qmm_matmul_demo", &RunDemo, nb::arg("soc"), nb::arg("a"), nb::arg("b"), nb::arg("a_unsigned"),
          nb::arg("b_unsigned"), nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("lda"), nb::arg("ldb"),
          nb::arg("ldc"), nb::arg("config") = "norm_checked", nb::arg("form") = "sync",
          nb::arg("local_workspace") = false, nb::arg("b_trans") = false, nb::arg("base_n") = 16,
          nb::arg("c_align") = false,
          "C = A B (int32 bytes) through the emulated Matmul API; b_trans: b holds B transposed, [n, ldb]; c_align: "
          "C declared ND_ALIGN (ascend310p).");
    m.def(
        "qmm_matmul_l1_loads",
        [](uint64_t m_, uint64_t n, uint64_t k, uint32_t base_m, uint32_t base_n, uint32_t base_k, uint32_t step_m,
           uint32_t step_n, int64_t depth_a1, int64_t depth_b1, bool order_n) {
            aqo_emu::MatmulLoadInput in;
            in.m = m_;
            in.n = n;
            in.k = k;
            in.base_m = base_m;
            in.base_n = base_n;
            in.base_k = base_k;
            in.step_m = step_m;
            in.step_n = step_n;
            in.depth_a1 = depth_a1;
            in.depth_b1 = depth_b1;
            in.order_n = order_n;
            std::vector<std::vector<uint64_t>> out;
            for (const aqo_emu::MatmulBlockLoad& l : aqo_emu::MatmulL1Loads(in)) {
                out.push_back({l.a_bytes, l.b_bytes, l.a_tiles, l.b_tiles});
            }
            return out;
        },
        nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("base_m"), nb::arg("base_n"), nb::arg("base_k"),
        nb::arg("step_m") = 1, nb::arg("step_n") = 1, nb::arg("depth_a1") = 2, nb::arg("depth_b1") = 2,
        nb::arg("order_n") = false,
        "Per base block (the API's order): [A bytes, B bytes, A tiles, B tiles] its NORM L1 copies load.");
    m.def("qmm_matmul_blocks_demo", &RunBlocksDemo, nb::arg("soc"), nb::arg("a"), nb::arg("b"), nb::arg("m"),
          nb::arg("n"), nb::arg("k"), nb::arg("base_m"), nb::arg("base_n"), nb::arg("step_m") = 1,
          nb::arg("step_n") = 1, nb::arg("order") = 0, nb::arg("form") = "sync",
          "Block by block through Iterate: 'sync' returns C, 'async' the workspace blocks in fetch order.");
}

aqo_bind::Registrar kRegisterQmmMatmulTests("qmm_matmul_tests", &RegisterQmmMatmulTests);

}  // namespace
