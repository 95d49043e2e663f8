// check-socs: ascend310p
// An API probe: the calls of a kernel's own cube pipeline on ascend310p (kernel-owned L1 / L0 buffers, the UB <-> L1
// copies, TransDataTo5HD in both list forms, LoadData, Mmad in its integer forms, the L0C -> UB copy), written as
// device code. `./build.sh check` type-checks it against the CANN headers and tests/emulator/test_emulator_probes.py
// compiles it against the emulator: the emulated signatures are the real ones. It is never run.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void cube_probe(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ub;
    TBuf<TPosition::VECCALC> uc;
    TBuf<TPosition::A1> la;
    TBuf<TPosition::B1> lb;
    TBuf<TPosition::A2> a2;
    TBuf<TPosition::B2> b2;
    TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(ub, 4096);
    pipe.InitBuffer(uc, 4096);
    pipe.InitBuffer(la, 2048);
    pipe.InitBuffer(lb, 2048);
    pipe.InitBuffer(a2, 2048);
    pipe.InitBuffer(b2, 2048);
    pipe.InitBuffer(c1, 4096);
    GlobalTensor<int8_t> xg;
    GlobalTensor<int32_t> yg;
    xg.SetGlobalBuffer((__gm__ int8_t*)x, 4096);
    yg.SetGlobalBuffer((__gm__ int32_t*)y, 1024);
    LocalTensor<int8_t> u = ub.Get<int8_t>();
    DataCopy(u, xg, 2048);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    uint64_t dl[NCHW_CONV_ADDR_LIST_SIZE], sl[NCHW_CONV_ADDR_LIST_SIZE];
    for (int i = 0; i < 16; ++i) {
        sl[i] = (uint64_t)(u[i * 32].GetPhyAddr());
        dl[i] = (uint64_t)(u[1024 + i * 32].GetPhyAddr());
    }
    TransDataTo5HDParams tp(false, false, 1, 0, 0);
    TransDataTo5HD<int8_t>(dl, sl, tp);
    LocalTensor<int8_t> ll[16], ls[16];
    for (int i = 0; i < 16; ++i) {
        ls[i] = u[i * 32];
        ll[i] = u[1024 + i * 32];
    }
    TransDataTo5HD<int8_t>(ll, ls, tp);
    PipeBarrier<PIPE_V>();
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    LocalTensor<int8_t> l1a = la.Get<int8_t>();
    LocalTensor<int8_t> l1b = lb.Get<int8_t>();
    DataCopy(l1a, u, DataCopyParams(16, 1, 1, 0));
    DataCopy(l1b, u[1024], DataCopyParams(1, 32, 0, 0));
    DataCopy(u[2048], l1b, DataCopyParams(1, 32, 0, 0));
    SetFlag<HardEvent::MTE3_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE3_MTE1>(EVENT_ID0);
    LocalTensor<int8_t> l0a = a2.Get<int8_t>();
    LocalTensor<int8_t> l0b = b2.Get<int8_t>();
    LoadData(l0a, l1a, LoadData2DParams(0, 2, 1, 0, 0, false, 0));
    LoadData(l0b, l1b, LoadData2DParams(0, 4, 1, 0, 0, false, 0));
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    LocalTensor<int32_t> l0c = c1.Get<int32_t>();
    Mmad(l0c, l0a, l0b, MmadParams(16, 32, 64, 0, false, true));
    PipeBarrier<PIPE_M>();
    LocalTensor<uint8_t> l0au = a2.Get<uint8_t>();
    Mmad(l0c, l0au, l0b, MmadParams(16, 32, 64, 0, false, false));
    PipeBarrier<PIPE_M>();  // after an Mmad of fewer than 10 fractals of C, as the Matmul API does
    SetFlag<HardEvent::M_V>(EVENT_ID0);
    WaitFlag<HardEvent::M_V>(EVENT_ID0);
    LocalTensor<int32_t> cu = uc.Get<int32_t>();
    DataCopyEnhancedParams e;
    e.blockMode = BlockMode::BLOCK_MODE_MATRIX;
    DataCopy(cu, l0c, DataCopyParams(2, 1, 0, 0), e);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yg, cu, 512);
}
