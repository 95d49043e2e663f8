// Test kernels of the AscendC CPU emulator, written against the AscendC API exactly as device kernels are.
//
// Fault kernels: each is deliberately broken in one way. The faulty line carries a marker comment
// "FAULT(<name>)"; tests/emulator/test_emulator_faults.py reads this file, finds the marker's line and checks
// that the emulator's error names this file and that line. Every fault kernel runs with
//   x: 256 float32 (read-only GM), y: 256 float32 (read-write GM), tiling: EmuTestTiling.
// Apart from their one fault they are correct device code, synchronised as the device needs (so that the same
// kernel passes where the fault does not apply, e.g. on a SoC that has the feature); the ordering faults come in
// pairs with a correct twin ("<name>_ok"), which must pass.
// Demo kernels: correct kernels whose results the tests compare with numpy (Cast rounding, arithmetic,
// reductions, DataCopyPad padding, a double-buffered pipeline, Compare + Select).
//
// Included once by python/csrc/emulate_test_kernels.cpp; the SoC is chosen at run time by the launcher.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;

namespace aqo_emu_tests {

struct EmuTestTiling {
    uint32_t n;        // elements
    uint32_t mode;     // RoundMode / CMPMODE / op selector
    float scalar;      // scalar operand
    float scalar2;
    uint32_t rows;     // DataCopyPad demo
    uint32_t cols;
    uint32_t left;
    uint32_t right;
    uint32_t tile;     // pipeline demo
    uint32_t flags;
};

struct BigTiling {  // larger than EmuTestTiling: reading it from EmuTestTiling bytes overruns them
    EmuTestTiling base;
    uint32_t extra[16];
};

// ---------------------------------------------------------------------------------------------------------------
// Fault kernels
// ---------------------------------------------------------------------------------------------------------------
using FaultKernel = void (*)(GM_ADDR x, GM_ADDR y, GM_ADDR tiling);

// SetFlag + WaitFlag of one event on a free id: every earlier instruction of the event's source pipe completes
// before any later one of its destination pipe starts.
template <HardEvent E> inline void WaitPipe(TPipe& pipe)
{
    const event_t id = static_cast<event_t>(pipe.FetchEventID(E));
    SetFlag<E>(id);
    WaitFlag<E>(id);
}

inline void FaultUbOverflow(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    TBuf<TPosition::VECCALC> big;
    pipe.InitBuffer(q, 2, 64 * 1024);
    pipe.InitBuffer(big, 256 * 1024);  // FAULT(ub_overflow)
}

inline void FaultUnalignedCopyLength(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t, xg, 7);  // FAULT(unaligned_copy_length)
}

inline void FaultUnalignedUbAddress(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t[3], xg, 8);  // FAULT(unaligned_ub_address)
}

inline void FaultUnalignedVectorOperand(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t, xg, 64);
    Abs(t[1], t[9], 8);  // FAULT(unaligned_vector_operand)
}

// float -> half with CAST_RINT: accepted on ascend910b, refused on ascend310p (NONE / ODD only).
inline void FaultIllegalCastMode(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> h;
    pipe.InitBuffer(b, 1024);
    pipe.InitBuffer(h, 512);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t, xg, 64);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    LocalTensor<half> th = h.Get<half>();
    Cast(th, t, RoundMode::CAST_RINT, 64);  // FAULT(illegal_cast_mode)
}

// half -> int8 with CAST_RINT: refused on ascend310p (its vconv takes NONE, FLOOR, CEIL, ROUND, TRUNC).
inline void FaultIllegalCastModeInt8(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> h;
    TBuf<TPosition::VECCALC> o;
    pipe.InitBuffer(b, 1024);
    pipe.InitBuffer(h, 512);
    pipe.InitBuffer(o, 256);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t, xg, 64);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    LocalTensor<half> th = h.Get<half>();
    Cast(th, t, RoundMode::CAST_NONE, 64);
    PipeBarrier<PIPE_V>();
    LocalTensor<int8_t> ti = o.Get<int8_t>();
    Cast(ti, th, RoundMode::CAST_RINT, 64);  // FAULT(illegal_cast_mode_int8)
}

inline void FaultDataCopyPad(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopyExtParams p(1, 5 * sizeof(float), 0, 0, 0);
    DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
    DataCopyPad(t, xg, p, pad);  // FAULT(datacopypad_unavailable)
}

inline void FaultDeQueEmpty(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 2, 256);
    LocalTensor<float> t = q.DeQue<float>();  // FAULT(deque_empty)
    q.FreeTensor(t);
}

inline void FaultFreeTwice(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 2, 256);
    LocalTensor<float> t = q.AllocTensor<float>();
    q.FreeTensor(t);
    q.FreeTensor(t);  // FAULT(free_twice)
}

inline void FaultFreeForeign(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> qa;
    TQue<QuePosition::VECOUT, 1> qb;
    pipe.InitBuffer(qa, 1, 256);
    pipe.InitBuffer(qb, 1, 256);
    LocalTensor<float> a = qa.AllocTensor<float>();
    qb.FreeTensor(a);  // FAULT(free_foreign)
}

inline void FaultTooManyLive(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 256);
    LocalTensor<float> a = q.AllocTensor<float>();
    LocalTensor<float> b = q.AllocTensor<float>();
    LocalTensor<float> c = q.AllocTensor<float>();  // FAULT(too_many_live)
    q.FreeTensor(a);
    q.FreeTensor(b);
    q.FreeTensor(c);
}

inline void FaultDepthExceeded(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 2, 256);
    LocalTensor<float> a = q.AllocTensor<float>();
    LocalTensor<float> b = q.AllocTensor<float>();
    Duplicate(a, 1.0f, 64);
    Duplicate(b, 2.0f, 64);
    q.EnQue(a);
    q.EnQue(b);  // FAULT(depth_exceeded)
}

inline void FaultNeverFreed(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TQue<QuePosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 2, 256);
    LocalTensor<float> a = q.AllocTensor<float>();  // FAULT(never_freed)
    Duplicate(a, 1.0f, 64);
}

inline void FaultGmReadOutOfBounds(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 2048);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x);
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t, xg[200], 64);  // FAULT(gm_read_oob)
}

inline void FaultGmWriteOutOfBounds(GM_ADDR x, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> xg;
    GlobalTensor<float> yg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t, xg, 64);
    DataCopy(yg[256 - 8], t, 16);  // FAULT(gm_write_oob)
}

inline void FaultGmWriteReadOnly(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 0.0f, 64);
    DataCopy(xg, t, 64);  // FAULT(gm_write_readonly)
}

inline void FaultGmExtent(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 16);  // the tensor claims 16 elements of the 256-element buffer
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t, xg, 32);  // FAULT(gm_extent_oob)
}

inline void FaultGmScalarOutOfBounds(GM_ADDR, GM_ADDR y, GM_ADDR)
{
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    yg.SetValue(256, 1.0f);  // FAULT(gm_scalar_oob)
}

inline void FaultLocalOutOfBounds(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> c;
    pipe.InitBuffer(b, 256);
    pipe.InitBuffer(c, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 65);  // FAULT(local_oob)
}

inline void FaultLocalScalarOutOfBounds(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    LocalTensor<float> t = b.Get<float>();
    t.SetValue(64, 1.0f);  // FAULT(local_scalar_oob)
}

inline void FaultTilingTooShort(GM_ADDR, GM_ADDR, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(BigTiling, t, tiling);  // FAULT(tiling_out_of_range)
    (void)t;
}

inline void FaultUseAfterFree(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 256);
    LocalTensor<float> a = q.AllocTensor<float>();
    Duplicate(a, 1.0f, 64);
    q.FreeTensor(a);
    Abs(a, a, 64);  // FAULT(use_after_free)
}

inline void FaultAccessEnqueued(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 256);
    LocalTensor<float> a = q.AllocTensor<float>();
    Duplicate(a, 1.0f, 64);
    q.EnQue(a);
    Abs(a, a, 64);  // FAULT(access_enqueued)
    LocalTensor<float> b = q.DeQue<float>();
    q.FreeTensor(b);
}

// DataCopyPad of 5 floats leaves bytes 20..31 of the block undefined; the reduction reads them.
inline void FaultUninitialisedReduce(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> r;
    pipe.InitBuffer(b, 256);
    pipe.InitBuffer(r, 256);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    LocalTensor<float> w = r.Get<float>();
    DataCopyExtParams p(1, 5 * sizeof(float), 0, 0, 0);
    DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
    DataCopyPad(t, xg, p, pad);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    ReduceMax(w, t, w[8], 8, false);  // FAULT(uninitialised_reduce)
}

inline void FaultGarbageToGm(GM_ADDR, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TQue<QuePosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 1, 256);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> a = q.AllocTensor<float>();
    Duplicate(a, 1.0f, 32);  // only the first 32 of 64 floats are written
    q.EnQue(a);
    LocalTensor<float> o = q.DeQue<float>();
    DataCopy(yg, o, 64);  // FAULT(garbage_to_gm)
    q.FreeTensor(o);
}

inline void FaultWaitWithoutSet(GM_ADDR, GM_ADDR, GM_ADDR)
{
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::V_MTE3>(1);  // FAULT(wait_without_set)
}

// float -> int32 of a NaN: what the hardware produces is not documented.
inline void FaultCastNaNToInt(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> o;
    pipe.InitBuffer(b, 256);
    pipe.InitBuffer(o, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 64);
    WaitPipe<HardEvent::V_S>(pipe);
    t.SetValue(5, std::numeric_limits<float>::quiet_NaN());
    WaitPipe<HardEvent::S_V>(pipe);
    LocalTensor<int32_t> ti = o.Get<int32_t>();
    Cast(ti, t, RoundMode::CAST_RINT, 64);  // FAULT(cast_nan_to_int)
}

// half -> int8 of 200: out of range, overflow behaviour not documented (ascend310p's saturation mode included).
inline void FaultCastOutOfRange(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> o;
    pipe.InitBuffer(b, 256);
    pipe.InitBuffer(o, 256);
    LocalTensor<half> t = b.Get<half>();
    Duplicate(t, half(200.0f), 128);
    PipeBarrier<PIPE_V>();
    LocalTensor<int8_t> ti = o.Get<int8_t>();
    Cast(ti, t, RoundMode::CAST_TRUNC, 128);  // FAULT(cast_out_of_range)
}

inline void FaultMaxNaN(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> r;
    pipe.InitBuffer(b, 256);
    pipe.InitBuffer(r, 256);
    LocalTensor<float> t = b.Get<float>();
    LocalTensor<float> w = r.Get<float>();
    Duplicate(t, 1.0f, 64);
    WaitPipe<HardEvent::V_S>(pipe);
    t.SetValue(7, std::numeric_limits<float>::quiet_NaN());
    WaitPipe<HardEvent::S_V>(pipe);
    ReduceMax(w, t, w[8], 64, false);  // FAULT(reduce_max_nan)
}

// bfloat16 is absent on ascend310p.
inline void FaultBf16On310p(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> o;
    pipe.InitBuffer(b, 256);
    pipe.InitBuffer(o, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 64);
    PipeBarrier<PIPE_V>();
    LocalTensor<bfloat16_t> tb = o.Get<bfloat16_t>();
    Cast(tb, t, RoundMode::CAST_RINT, 64);  // FAULT(bf16_unavailable)
}

// float8 exists on ascend910_95 only.
inline void FaultFp8On910b(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> o;
    pipe.InitBuffer(b, 256);
    pipe.InitBuffer(o, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 64);
    PipeBarrier<PIPE_V>();
    LocalTensor<fp8_e4m3fn_t> t8 = o.Get<fp8_e4m3fn_t>();
    Cast(t8, t, RoundMode::CAST_RINT, 64);  // FAULT(fp8_unavailable)
}

// ReduceSum whose float result depends on the order of the additions: 1 + 2^-24 + 2^-24 ...
inline void FaultReduceSumOrder(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> r;
    pipe.InitBuffer(b, 256);
    pipe.InitBuffer(r, 256);
    LocalTensor<float> t = b.Get<float>();
    LocalTensor<float> w = r.Get<float>();
    Duplicate(t, 5.9604645e-08f, 64);  // 2^-24
    WaitPipe<HardEvent::V_S>(pipe);
    t.SetValue(0, 1.0f);
    WaitPipe<HardEvent::S_V>(pipe);
    ReduceSum(w, t, w[8], 64);  // FAULT(reduce_sum_order)
}

inline void FaultSecondPipe(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TPipe other;  // FAULT(second_pipe)
}

// Two cores write the same 32 bytes of y: a race on the device. Run with block_dim 2.
inline void FaultCrossCoreRace(GM_ADDR, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, static_cast<float>(GetBlockIdx()), 64);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg[GetBlockIdx() * 56], t, 64);  // FAULT(gm_cross_core_race)
}

// A bfloat16 tensor copied on ascend310p, which has no bfloat16.
inline void FaultBf16Copy(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<bfloat16_t> xg;
    xg.SetGlobalBuffer((__gm__ bfloat16_t*)x, 512);
    LocalTensor<bfloat16_t> t = b.Get<bfloat16_t>();
    DataCopy(t, xg, 64);  // FAULT(bf16_copy_unavailable)
}

// ReduceMax of 1000 floats needs 15 whole repeats -> 30 work elements, 32 rounded (128 bytes); the work tensor has
// 64 bytes (ascend910_95 needs none: legal there).
inline void FaultReduceWorkTooSmall(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> w;
    TBuf<TPosition::VECCALC> r;
    pipe.InitBuffer(b, 4000);
    pipe.InitBuffer(w, 64);
    pipe.InitBuffer(r, 32);
    LocalTensor<float> t = b.Get<float>();
    LocalTensor<float> work = w.Get<float>();
    LocalTensor<float> out = r.Get<float>();
    Duplicate(t, 2.0f, 1000);
    PipeBarrier<PIPE_V>();
    ReduceMax(out, t, work, 1000, false);  // FAULT(reduce_work_too_small)
}

// A GM address the launcher never registered (here: host stack memory).
inline void FaultGmUnregistered(GM_ADDR, GM_ADDR, GM_ADDR)
{
    float host[8] = {};
    GlobalTensor<float> g;
    g.SetGlobalBuffer((__gm__ float*)host, 8);  // FAULT(gm_unregistered)
}

// A TBuf tensor used after TPipe::Reset released its UB.
inline void FaultUseAfterPipeReset(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 64);
    pipe.Reset();
    Abs(t, t, 64);  // FAULT(use_after_pipe_reset)
}

// A LocalTensor that was declared but never allocated.
inline void FaultUnallocatedTensor(GM_ADDR, GM_ADDR, GM_ADDR)
{
    LocalTensor<float> t;
    Duplicate(t, 1.0f, 8);  // FAULT(unallocated_tensor)
}

// dst and src share a buffer but start 32 bytes apart: a partial overlap, which the vector unit does not support.
inline void FaultPartialOverlap(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 128);
    Add(t[8], t, t, 64);  // FAULT(partial_overlap)
}

// ---- level-0 forms (emu_vector_level0.h): repeat, mask, stride and overlap rules ----
inline void FaultLevel0RepeatZero(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 128);
    PipeBarrier<PIPE_V>();
    Add(t[128], t, t[64], 64, 0, {1, 1, 1, 8, 8, 8});  // FAULT(level0_repeat_zero)
}

inline void FaultLevel0MaskTooLarge(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 128);
    PipeBarrier<PIPE_V>();
    Mul(t[128], t, t[64], 65, 1, {1, 1, 1, 8, 8, 8});  // FAULT(level0_mask_too_large)
}

inline void FaultLevel0DstBlockStrideZero(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 128);
    PipeBarrier<PIPE_V>();
    Sub(t[128], t, t[64], 64, 1, {0, 1, 1, 8, 8, 8});  // FAULT(level0_dst_block_stride_zero)
}

// Operand beyond its buffer through its repeat stride: iteration 3 of src0 starts 3 x 16 blocks in (1536 bytes).
inline void FaultLevel0OperandOutOfBuffer(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> d;
    pipe.InitBuffer(b, 1024);
    pipe.InitBuffer(d, 1024);
    LocalTensor<float> t = b.Get<float>();
    LocalTensor<float> o = d.Get<float>();
    Duplicate(t, 1.0f, 256);
    PipeBarrier<PIPE_V>();
    Add(o, t, t, 64, 4, {1, 1, 1, 8, 16, 8});  // FAULT(level0_operand_out_of_buffer)
}

// Inside one iteration dst covers src0's blocks shifted by one block: a partial overlap.
inline void FaultLevel0PartialOverlap(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 2048);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 512);
    PipeBarrier<PIPE_V>();
    Max(t[8], t, t[256], 64, 1, {1, 1, 1, 8, 8, 8});  // FAULT(level0_partial_overlap)
}

// Iteration 0 writes what iteration 1 reads as src0 (dst one repeat ahead of src0): undefined.
inline void FaultLevel0IterationDependency(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 2048);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 2.0f, 512);
    PipeBarrier<PIPE_V>();
    Add(t[64], t, t[384], 64, 2, {1, 1, 1, 8, 8, 8});  // FAULT(level0_iteration_dependency)
}

// Accumulation through src1 with repeat stride 0 is documented for Add / Sub / Mul / Max / Min only, not Div.
inline void FaultLevel0AccumulateDiv(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 2048);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 2.0f, 512);
    PipeBarrier<PIPE_V>();
    Div(t, t[64], t, 64, 3, {1, 1, 1, 0, 8, 0});  // FAULT(level0_accumulate_div)
}

// ... and for half / int32_t / float only, not int16_t.
inline void FaultLevel0AccumulateInt16(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 2048);
    LocalTensor<int16_t> t = b.Get<int16_t>();
    Duplicate(t, static_cast<int16_t>(3), 1024);
    PipeBarrier<PIPE_V>();
    Max(t, t[128], t, 128, 3, {1, 1, 1, 0, 8, 0});  // FAULT(level0_accumulate_int16)
}

// ascend910_95 with a UB of 256 KiB (its entry's ub_bytes): the level-0 forms keep 8 KiB of scratch at
// TMP_UB_OFFSET = 248 KiB, where this kernel has data. The other SoCs' level-0 Add has no scratch.
inline void FaultLevel0Scratch950(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 262144);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 128);
    Duplicate(t[63488], 2.0f, 2048);  // bytes [253952, 262144)
    PipeBarrier<PIPE_V>();
    Add(t, t, t[64], 64, 1, {1, 1, 1, 8, 8, 8});  // FAULT(level0_scratch_950)
}

inline void FaultWholeReduceOrder310p(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> o;
    pipe.InitBuffer(b, 1024);
    pipe.InitBuffer(o, 64);
    LocalTensor<float> t = b.Get<float>();
    LocalTensor<float> r = o.Get<float>();
    Duplicate(t, 1.0f, 256);
    PipeBarrier<PIPE_V>();
    WholeReduceMax(r, t, 64, 4, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);  // FAULT(whole_reduce_order_310p)
}

inline void FaultWholeReduceNaN(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> o;
    pipe.InitBuffer(b, 1024);
    pipe.InitBuffer(o, 64);
    LocalTensor<float> t = b.Get<float>();
    LocalTensor<float> r = o.Get<float>();
    Duplicate(t, 1.0f, 256);
    PipeBarrier<PIPE_V>();
    Div(t[64], t[64], t[128], 64);  // 1 / 1
    Muls(t[192], t[192], 3.0e38f, 64);  // 3e38
    PipeBarrier<PIPE_V>();
    Muls(t[192], t[192], 10.0f, 64);  // +Inf
    PipeBarrier<PIPE_V>();
    Sub(t[192], t[192], t[192], 64);  // Inf - Inf = NaN (a division by zero is refused)
    PipeBarrier<PIPE_V>();
    WholeReduceMin(r, t, 64, 4, 1, 1, 8);  // FAULT(whole_reduce_nan)
}

// ---------------------------------------------------------------------------------------------------------------
// Ordering faults: each misses one synchronisation the device needs (op_kernel/emulator/include/emulator/
// emu_order.h); the same template with kSync = true is its correct twin ("<name>_ok"), which must pass.
// ---------------------------------------------------------------------------------------------------------------

// RAW on V: Abs reads what Duplicate wrote; instructions of one pipe need PipeBarrier between dependent ones.
template <bool kSync> inline void OrderBarrierV(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 512);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, -1.0f, 64);
    if (kSync) PipeBarrier<PIPE_V>();
    Abs(t[64], t, 64);  // FAULT(missing_pipe_barrier_v)
}

// WAR on V: Duplicate overwrites what Muls is reading.
template <bool kSync> inline void OrderBarrierVWar(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 512);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 3.0f, 64);
    PipeBarrier<PIPE_V>();
    Muls(t[64], t, 2.0f, 64);
    if (kSync) PipeBarrier<PIPE_V>();
    Duplicate(t, 0.0f, 64);  // FAULT(missing_pipe_barrier_v_war)
}

// V -> S: the scalar unit reads a vector result (V_S, as before a GetValue of a vector result).
template <bool kSync> inline void OrderVS(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 3.0f, 8);
    if (kSync) WaitPipe<HardEvent::V_S>(pipe);
    (void)t.GetValue(0);  // FAULT(missing_v_s)
}

// S -> V: a vector op reads what the scalar unit wrote.
template <bool kSync> inline void OrderSV(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 8);
    WaitPipe<HardEvent::V_S>(pipe);
    t.SetValue(0, 2.0f);
    if (kSync) WaitPipe<HardEvent::S_V>(pipe);
    Abs(t[8], t, 8);  // FAULT(missing_s_v)
}

// S -> MTE3: a DMA copies out UB the scalar unit wrote.
template <bool kSync> inline void OrderSMte3(GM_ADDR, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 8);
    WaitPipe<HardEvent::V_S>(pipe);
    t.SetValue(0, 5.0f);
    if (kSync) WaitPipe<HardEvent::S_MTE3>(pipe);
    DataCopy(yg, t, 8);  // FAULT(missing_s_mte3)
}

// MTE3 -> MTE2: a DMA reads back GM that an earlier DMA wrote.
template <bool kSync> inline void OrderMte3Mte2(GM_ADDR, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> u;
    pipe.InitBuffer(b, 256);
    pipe.InitBuffer(u, 256);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = b.Get<float>();
    LocalTensor<float> back = u.Get<float>();
    Duplicate(t, 7.0f, 8);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg, t, 8);
    if (kSync) WaitPipe<HardEvent::MTE3_MTE2>(pipe);
    DataCopy(back, yg, 8);  // FAULT(missing_mte3_mte2)
}

// MTE2 -> V without a queue: a vector op reads a TBuf a DMA filled.
template <bool kSync> inline void OrderMte2V(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 512);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t, xg, 64);
    if (kSync) WaitPipe<HardEvent::MTE2_V>(pipe);
    Abs(t[64], t, 64);  // FAULT(missing_mte2_v)
}

// V -> MTE3 without a queue: a DMA copies out a vector result.
template <bool kSync> inline void OrderVMte3(GM_ADDR, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 64);
    if (kSync) WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg, t, 64);  // FAULT(missing_v_mte3)
}

// MTE2 -> S: the scalar unit reads what a DMA brought in (a VECIN queue's DeQue orders MTE2 before V only).
template <bool kSync> inline void OrderMte2S(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 256);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, xg, 8);
    q.EnQue(t);
    LocalTensor<float> in = q.DeQue<float>();
    if (kSync) WaitPipe<HardEvent::MTE2_S>(pipe);
    (void)in.GetValue(0);  // FAULT(missing_mte2_s)
    q.FreeTensor(in);
}

// V -> MTE2 (WAR): a DMA overwrites a buffer a vector op is still reading.
template <bool kSync> inline void OrderVMte2(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 512);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 64);
    PipeBarrier<PIPE_V>();
    Abs(t[64], t, 64);
    if (kSync) WaitPipe<HardEvent::V_MTE2>(pipe);
    DataCopy(t, xg, 64);  // FAULT(missing_v_mte2)
}

// MTE3 -> S on GM: the scalar unit writes y[0] while a DMA of this core is still writing y[kAt, kAt + 8), with other
// values. kAt 0: the same bytes; kAt 8: other bytes of the same 64-byte line, which SetValue's write-allocate fill of
// the line reads all of (either way the race is reported as the fill's RAW). The twins wait MTE3 -> S first.
template <bool kSync, uint32_t kAt> inline void OrderMte3S(GM_ADDR, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 8);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg[kAt], t, 8);
    if (kSync) WaitPipe<HardEvent::MTE3_S>(pipe);
    yg.SetValue(0, 2.0f);  // FAULT(missing_mte3_s) FAULT(missing_line_fill_order)
    DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE>(yg);
}

// The write-back of a whole line across cores: core 0 writes y[0] with SetValue and cleans (the whole 64-byte line
// y[0, 16) written back), core 1 writes y[8, 16) of the same line by DMA; nothing orders the two cores, so the
// write-back may put core 0's old copy of y[8, 16) over core 1's. The twin's core 1 writes the next line, y[16, 24).
template <bool kOk> inline void LineWriteBackAcrossCores(GM_ADDR, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    if (GetBlockIdx() == 0) {
        yg.SetValue(0, 2.0f);
        DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE>(yg);
        return;
    }
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 1.0f, 8);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg[kOk ? 16 : 8], t, 8);  // FAULT(missing_order_with_line_write_back)
}

// Two cores: core 1 reads GM that core 0 wrote; only SyncAll orders cores (software form: every SoC has it).
// y must be shared (kReadWriteShared); its bytes [512, 576) are the SyncAll workspace (zero at launch).
template <bool kSync> inline void OrderCrossCore(GM_ADDR, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(b, 256);
    pipe.InitBuffer(ws, 64);
    GlobalTensor<float> yg;
    GlobalTensor<int32_t> syncGm;
    yg.SetGlobalBuffer((__gm__ float*)y, 128);
    syncGm.SetGlobalBuffer((__gm__ int32_t*)(y + 512), 16);
    LocalTensor<float> t = b.Get<float>();
    if (GetBlockIdx() == 0) {
        Duplicate(t, 4.0f, 64);
        WaitPipe<HardEvent::V_MTE3>(pipe);
        DataCopy(yg, t, 64);
    }
    if (kSync) SyncAll(syncGm, ws.Get<int32_t>(), 2);
    if (GetBlockIdx() == 1) {
        DataCopy(t, yg, 64);  // FAULT(missing_sync_all)
    }
}

// The Matmul API's cube reads GM that this core's DMA wrote: the request must come after the write completed
// (what the scalar unit knows when it calls IterateAll, e.g. after PipeBarrier<PIPE_ALL>). x: B (int8 [32, 16]),
// y: A (int8 [8, 32], bytes [0, 256)) written here, C (int32 [8, 16], bytes [512, 1024)).
template <bool kSync> inline void OrderCube(GM_ADDR x, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ws;
    TBuf<TPosition::VECCALC> b;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, int8_t>, MatmulType<TPosition::GM, CubeFormat::ND, int8_t>,
           MatmulType<TPosition::GM, CubeFormat::ND, int32_t>>
        mm;
    TCubeTiling tiling;
    tiling.M = tiling.singleCoreM = 8;
    tiling.N = tiling.singleCoreN = 16;
    tiling.Ka = tiling.Kb = tiling.singleCoreK = 32;
    tiling.baseM = 16;
    tiling.baseN = 16;
    tiling.baseK = 32;
    tiling.depthA1 = tiling.depthB1 = 1;
    tiling.stepM = tiling.stepN = tiling.stepKa = tiling.stepKb = 1;
    tiling.transLength = 16 * 16 * 4;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    pipe.InitBuffer(ws, 65536);  // ascend310p: the API's local workspace (split SoCs ignore it)
    mm.SetLocalWorkspace(ws.Get<uint8_t>());
    pipe.InitBuffer(b, 256);
    GlobalTensor<int8_t> a;
    GlobalTensor<int8_t> bm;
    GlobalTensor<int32_t> c;
    a.SetGlobalBuffer((__gm__ int8_t*)y, 256);
    bm.SetGlobalBuffer((__gm__ int8_t*)x, 512);
    c.SetGlobalBuffer((__gm__ int32_t*)(y + 512), 128);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 0.0f, 64);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(a, t.ReinterpretCast<int8_t>(), 256);
    if (kSync) PipeBarrier<PIPE_ALL>();
    mm.SetOrgShape(8, 16, 32);
    mm.SetSingleShape(8, 16, 32);
    mm.SetTensorA(a);
    mm.SetTensorB(bm);
    mm.IterateAll(c);  // FAULT(missing_pipe_all_before_matmul)
    mm.End();
}

// An asynchronous IterateAll (split SoCs) writes C until WaitIterateAll returns: reading C before the wait races
// with the cube's write. x: B (int8 [32, 16]); y: A (int8 [8, 32], zeros), C (int32 [8, 16] at byte 512).
inline void FaultAsyncMatmulReadEarly(GM_ADDR x, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    Matmul<MatmulType<TPosition::GM, CubeFormat::ND, int8_t>, MatmulType<TPosition::GM, CubeFormat::ND, int8_t>,
           MatmulType<TPosition::GM, CubeFormat::ND, int32_t>>
        mm;
    TCubeTiling tiling;
    tiling.M = tiling.singleCoreM = 8;
    tiling.N = tiling.singleCoreN = 16;
    tiling.Ka = tiling.Kb = tiling.singleCoreK = 32;
    tiling.baseM = 16;
    tiling.baseN = 16;
    tiling.baseK = 32;
    tiling.depthA1 = tiling.depthB1 = 1;
    tiling.stepM = tiling.stepN = tiling.stepKa = tiling.stepKb = 1;
    tiling.transLength = 16 * 16 * 4;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(ws, 65536);  // ascend310p: the API's local workspace (split SoCs ignore it)
    mm.SetLocalWorkspace(ws.Get<uint8_t>());
    pipe.InitBuffer(b, 512);
    GlobalTensor<int8_t> a;
    GlobalTensor<int8_t> bm;
    GlobalTensor<int32_t> c;
    a.SetGlobalBuffer((__gm__ int8_t*)y, 256);
    bm.SetGlobalBuffer((__gm__ int8_t*)x, 512);
    c.SetGlobalBuffer((__gm__ int32_t*)(y + 512), 128);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 0.0f, 64);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(a, t.ReinterpretCast<int8_t>(), 256);
    PipeBarrier<PIPE_ALL>();
    mm.SetOrgShape(8, 16, 32);
    mm.SetSingleShape(8, 16, 32);
    mm.SetTensorA(a);
    mm.SetTensorB(bm);
    mm.template IterateAll<false>(c, 0, false, true);
    DataCopy(t.ReinterpretCast<int32_t>(), c, 64);  // C, before the cube has written it
    mm.WaitIterateAll();  // FAULT(async_matmul_c_read_early)
    mm.End();
}

// Two DMAs write the same values to the same GM bytes without ordering: the result is the same either way, so it
// is not a race (a correct kernel; only its twin entry exists).
template <bool kSync> inline void OrderSameValueRewrite(GM_ADDR, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, 6.0f, 64);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg, t, 64);
    DataCopy(yg[8], t, 16);
}

// ---- SyncAll ----
// Core 1 returns without reaching the SyncAll core 0 waits at: the device hangs.
inline void FaultSyncAllNotReached(GM_ADDR, GM_ADDR y, GM_ADDR)
{
    if (GetBlockIdx() == 1) {
        return;
    }
    TPipe pipe;
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(ws, 64);
    GlobalTensor<int32_t> syncGm;
    syncGm.SetGlobalBuffer((__gm__ int32_t*)(y + 512), 16);
    SyncAll(syncGm, ws.Get<int32_t>(), 2);  // FAULT(sync_all_not_reached)
}

// Three cores: 0 and 1 wait at a SyncAll while core 2 faults before reaching it. The fault is core 2's; the waiting
// cores are unwound (their TPipes end normally), not reported.
inline void FaultWhileOthersWait(GM_ADDR, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(ws, 96);
    GlobalTensor<int32_t> syncGm;
    syncGm.SetGlobalBuffer((__gm__ int32_t*)(y + 512), 24);
    if (GetBlockIdx() == 2) {
        WaitFlag<HardEvent::V_S>(0);  // FAULT(fault_while_others_wait)
    }
    SyncAll(syncGm, ws.Get<int32_t>(), 3);
}

// Hardware SyncAll between two cores: ascend310p has none (the software form is the one there).
inline void FaultHardwareSyncAll(GM_ADDR, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    GlobalTensor<float> yg;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    LocalTensor<float> t = b.Get<float>();
    Duplicate(t, static_cast<float>(GetBlockIdx() + 1), 8);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg[GetBlockIdx() * 8], t, 8);
    SyncAll();  // FAULT(hardware_sync_all)
    DataCopy(t, yg[(1 - GetBlockIdx()) * 8], 8);  // the other core's block, after the barrier
}

// ---- DMA instruction fields ----
inline void FaultDataCopyBlockCount(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t, xg, DataCopyParams(4096, 1, 0, 0));  // FAULT(datacopy_block_count)
}

inline void FaultDataCopyBlockLen(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t, xg, 65536u * 8u);  // FAULT(datacopy_block_len): 65536 blocks of 32 bytes
}

inline void FaultDataCopyPadBlockCount(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopyExtParams p(4096, 4, 0, 0, 0);
    DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
    DataCopyPad(t, xg, p, pad);  // FAULT(datacopypad_block_count)
}

inline void FaultDataCopyPadBlockLen(GM_ADDR x, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> xg;
    xg.SetGlobalBuffer((__gm__ float*)x, 256);
    LocalTensor<float> t = b.Get<float>();
    DataCopyExtParams p(1, 2097152, 0, 0, 0);
    DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
    DataCopyPad(t, xg, p, pad);  // FAULT(datacopypad_block_len)
}

// Nine ids of one event held at once: the TPipe has eight.
inline void FaultEventIdsExhausted(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    for (int i = 0; i < 8; ++i) {
        (void)pipe.AllocEventID<HardEvent::V_S>();
    }
    (void)pipe.AllocEventID<HardEvent::V_S>();  // FAULT(event_ids_exhausted)
}

struct FaultEntry {
    const char* name;
    FaultKernel kernel;
    uint32_t block_dim = 1;
    bool y_shared = false;  // register y as kReadWriteShared (cores order their writes themselves)
    bool mix = false;       // a cube + vector (1:2 mix) kernel on split SoCs: it has a Matmul object
    uint32_t ub_bytes = 0;  // the UB size the run gives the SoC (0: the table's)
};

inline const FaultEntry* FaultKernels(size_t* count)
{
    static const FaultEntry kFaults[] = {
        {"ub_overflow", &FaultUbOverflow},
        {"unaligned_copy_length", &FaultUnalignedCopyLength},
        {"unaligned_ub_address", &FaultUnalignedUbAddress},
        {"unaligned_vector_operand", &FaultUnalignedVectorOperand},
        {"illegal_cast_mode", &FaultIllegalCastMode},
        {"illegal_cast_mode_int8", &FaultIllegalCastModeInt8},
        {"datacopypad_unavailable", &FaultDataCopyPad},
        {"deque_empty", &FaultDeQueEmpty},
        {"free_twice", &FaultFreeTwice},
        {"free_foreign", &FaultFreeForeign},
        {"too_many_live", &FaultTooManyLive},
        {"depth_exceeded", &FaultDepthExceeded},
        {"never_freed", &FaultNeverFreed},
        {"gm_read_oob", &FaultGmReadOutOfBounds},
        {"gm_write_oob", &FaultGmWriteOutOfBounds},
        {"gm_write_readonly", &FaultGmWriteReadOnly},
        {"gm_extent_oob", &FaultGmExtent},
        {"gm_scalar_oob", &FaultGmScalarOutOfBounds},
        {"local_oob", &FaultLocalOutOfBounds},
        {"local_scalar_oob", &FaultLocalScalarOutOfBounds},
        {"tiling_out_of_range", &FaultTilingTooShort},
        {"use_after_free", &FaultUseAfterFree},
        {"access_enqueued", &FaultAccessEnqueued},
        {"uninitialised_reduce", &FaultUninitialisedReduce},
        {"garbage_to_gm", &FaultGarbageToGm},
        {"wait_without_set", &FaultWaitWithoutSet},
        {"cast_nan_to_int", &FaultCastNaNToInt},
        {"cast_out_of_range", &FaultCastOutOfRange},
        {"reduce_max_nan", &FaultMaxNaN},
        {"bf16_unavailable", &FaultBf16On310p},
        {"fp8_unavailable", &FaultFp8On910b},
        {"reduce_sum_order", &FaultReduceSumOrder},
        {"second_pipe", &FaultSecondPipe},
        {"gm_cross_core_race", &FaultCrossCoreRace, 2},
        {"bf16_copy_unavailable", &FaultBf16Copy},
        {"reduce_work_too_small", &FaultReduceWorkTooSmall},
        {"gm_unregistered", &FaultGmUnregistered},
        {"use_after_pipe_reset", &FaultUseAfterPipeReset},
        {"unallocated_tensor", &FaultUnallocatedTensor},
        {"partial_overlap", &FaultPartialOverlap},
        {"missing_pipe_barrier_v", &OrderBarrierV<false>},
        {"missing_pipe_barrier_v_war", &OrderBarrierVWar<false>},
        {"missing_v_s", &OrderVS<false>},
        {"missing_s_v", &OrderSV<false>},
        {"missing_s_mte3", &OrderSMte3<false>},
        {"missing_mte3_mte2", &OrderMte3Mte2<false>},
        {"missing_mte2_v", &OrderMte2V<false>},
        {"missing_v_mte3", &OrderVMte3<false>},
        {"missing_mte2_s", &OrderMte2S<false>},
        {"missing_v_mte2", &OrderVMte2<false>},
        {"missing_mte3_s", &OrderMte3S<false, 0>},
        {"missing_line_fill_order", &OrderMte3S<false, 8>},
        {"missing_order_with_line_write_back", &LineWriteBackAcrossCores<false>, 2, true},
        {"missing_sync_all", &OrderCrossCore<false>, 2, true},
        {"missing_pipe_all_before_matmul", &OrderCube<false>, 1, false, true},
        {"sync_all_not_reached", &FaultSyncAllNotReached, 2, true},
        {"hardware_sync_all", &FaultHardwareSyncAll, 2, true},
        {"fault_while_others_wait", &FaultWhileOthersWait, 3, true},
        {"datacopy_block_count", &FaultDataCopyBlockCount},
        {"datacopy_block_len", &FaultDataCopyBlockLen},
        {"datacopypad_block_count", &FaultDataCopyPadBlockCount},
        {"datacopypad_block_len", &FaultDataCopyPadBlockLen},
        {"event_ids_exhausted", &FaultEventIdsExhausted},
        {"async_matmul_c_read_early", &FaultAsyncMatmulReadEarly, 1, false, true},
        {"level0_repeat_zero", &FaultLevel0RepeatZero},
        {"level0_mask_too_large", &FaultLevel0MaskTooLarge},
        {"level0_dst_block_stride_zero", &FaultLevel0DstBlockStrideZero},
        {"level0_operand_out_of_buffer", &FaultLevel0OperandOutOfBuffer},
        {"level0_partial_overlap", &FaultLevel0PartialOverlap},
        {"level0_iteration_dependency", &FaultLevel0IterationDependency},
        {"level0_accumulate_div", &FaultLevel0AccumulateDiv},
        {"level0_accumulate_int16", &FaultLevel0AccumulateInt16},
        {"level0_scratch_950", &FaultLevel0Scratch950, 1, false, false, 262144},
        {"whole_reduce_order_310p", &FaultWholeReduceOrder310p},
        {"whole_reduce_nan", &FaultWholeReduceNaN},
    };
    *count = sizeof(kFaults) / sizeof(kFaults[0]);
    return kFaults;
}

// The correct twins of the ordering faults (and correct kernels the ordering model must accept): every one must
// pass on every SoC.
inline const FaultEntry* CorrectTwins(size_t* count)
{
    static const FaultEntry kTwins[] = {
        {"missing_pipe_barrier_v_ok", &OrderBarrierV<true>},
        {"missing_pipe_barrier_v_war_ok", &OrderBarrierVWar<true>},
        {"missing_v_s_ok", &OrderVS<true>},
        {"missing_s_v_ok", &OrderSV<true>},
        {"missing_s_mte3_ok", &OrderSMte3<true>},
        {"missing_mte3_mte2_ok", &OrderMte3Mte2<true>},
        {"missing_mte2_v_ok", &OrderMte2V<true>},
        {"missing_v_mte3_ok", &OrderVMte3<true>},
        {"missing_mte2_s_ok", &OrderMte2S<true>},
        {"missing_v_mte2_ok", &OrderVMte2<true>},
        {"missing_mte3_s_ok", &OrderMte3S<true, 0>},
        {"missing_line_fill_order_ok", &OrderMte3S<true, 8>},
        {"missing_order_with_line_write_back_ok", &LineWriteBackAcrossCores<true>, 2, true},
        {"missing_sync_all_ok", &OrderCrossCore<true>, 2, true},
        {"missing_pipe_all_before_matmul_ok", &OrderCube<true>, 1, false, true},
        {"same_value_rewrite_ok", &OrderSameValueRewrite<true>},
    };
    *count = sizeof(kTwins) / sizeof(kTwins[0]);
    return kTwins;
}

// ---------------------------------------------------------------------------------------------------------------
// Demo kernels (correct; results checked against numpy)
// ---------------------------------------------------------------------------------------------------------------

// y[0, n) = Cast(x[0, n), mode). n is a multiple of 32 elements of both types (the runner pads). flags: bit 0 sets
// the deq scale (scalar); bit 1 sets CTRL[48] first (the IEEE mode of half / bfloat16 results, split SoCs).
template <typename S, typename D>
inline void DemoCast(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(EmuTestTiling, t, tiling);
    if ((t.flags & 2u) != 0) {
        set_ctrl(sbitset1(get_ctrl(), 48));
    }
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> qi;
    TQue<QuePosition::VECOUT, 1> qo;
    pipe.InitBuffer(qi, 1, t.n * sizeof(S));
    pipe.InitBuffer(qo, 1, t.n * sizeof(D));
    GlobalTensor<S> xg;
    GlobalTensor<D> yg;
    xg.SetGlobalBuffer((__gm__ S*)x, t.n);
    yg.SetGlobalBuffer((__gm__ D*)y, t.n);
    LocalTensor<S> a = qi.AllocTensor<S>();
    DataCopy(a, xg, t.n);
    qi.EnQue(a);
    LocalTensor<S> b = qi.DeQue<S>();
    LocalTensor<D> o = qo.AllocTensor<D>();
    if ((t.flags & 1u) != 0) {
        SetDeqScale(half(t.scalar));
    }
    Cast(o, b, static_cast<RoundMode>(t.mode), t.n);
    qi.FreeTensor(b);
    qo.EnQue(o);
    LocalTensor<D> r = qo.DeQue<D>();
    DataCopy(yg, r, t.n);
    qo.FreeTensor(r);
}

// Elementwise ops: mode 0 Add, 1 Sub, 2 Mul, 3 Div, 4 Max, 5 Min (x0, x1 -> y); 10 Adds, 11 Muls, 12 Maxs,
// 13 Mins (x0, scalar -> y); 20 Abs (x0 -> y); 21 Duplicate(scalar). x holds x0 then x1 (n each).
template <typename T>
inline void DemoElementwise(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(EmuTestTiling, t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b0;
    TBuf<TPosition::VECCALC> b1;
    TBuf<TPosition::VECCALC> bo;
    pipe.InitBuffer(b0, t.n * sizeof(T));
    pipe.InitBuffer(b1, t.n * sizeof(T));
    pipe.InitBuffer(bo, t.n * sizeof(T));
    GlobalTensor<T> xg;
    GlobalTensor<T> yg;
    xg.SetGlobalBuffer((__gm__ T*)x, 2 * t.n);
    yg.SetGlobalBuffer((__gm__ T*)y, t.n);
    LocalTensor<T> a = b0.Get<T>();
    LocalTensor<T> c = b1.Get<T>();
    LocalTensor<T> o = bo.Get<T>();
    DataCopy(a, xg, t.n);
    DataCopy(c, xg[t.n], t.n);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    const T s = static_cast<T>(t.scalar);
    switch (t.mode) {
        case 0: Add(o, a, c, t.n); break;
        case 1: Sub(o, a, c, t.n); break;
        case 2: Mul(o, a, c, t.n); break;
        case 3: Div(o, a, c, t.n); break;
        case 4: Max(o, a, c, t.n); break;
        case 5: Min(o, a, c, t.n); break;
        case 10: Adds(o, a, s, t.n); break;
        case 11: Muls(o, a, s, t.n); break;
        case 12: Maxs(o, a, s, t.n); break;
        case 13: Mins(o, a, s, t.n); break;
        case 20: Abs(o, a, t.n); break;
        case 21: Duplicate(o, s, t.n); break;
        default: break;
    }
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg, o, t.n);
}

// y[0] = ReduceMax / ReduceMin / ReduceSum (mode 0 / 1 / 2) of x[0, n); mode 3: ReduceMax with calIndex,
// y[1] = the index bits. y is padded to 32 bytes with zeros.
template <typename T>
inline void DemoReduce(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(EmuTestTiling, t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> w;
    TBuf<TPosition::VECCALC> o;
    const uint32_t n_pad = (t.n * sizeof(T) + 31) / 32 * 32 / sizeof(T);
    pipe.InitBuffer(b, n_pad * sizeof(T));
    pipe.InitBuffer(w, n_pad * sizeof(T) + 64);
    // ReduceSum's dst on ascend910b holds one element per 256-byte repeat (only dst[0] is the result)
    const uint32_t o_bytes = (n_pad * sizeof(T) / 256 + 1) * sizeof(T);
    pipe.InitBuffer(o, (o_bytes + 31) / 32 * 32);
    TBuf<TPosition::VECCALC> q;
    pipe.InitBuffer(q, 32);
    GlobalTensor<T> xg;
    GlobalTensor<T> yg;
    xg.SetGlobalBuffer((__gm__ T*)x, n_pad);
    yg.SetGlobalBuffer((__gm__ T*)y, 32 / sizeof(T));
    LocalTensor<T> a = b.Get<T>();
    LocalTensor<T> wk = w.Get<T>();
    LocalTensor<T> r = o.Get<T>();
    LocalTensor<T> sum = q.Get<T>();
    DataCopy(a, xg, n_pad);
    Duplicate(r, static_cast<T>(0.0f), 32 / sizeof(T));
    Duplicate(sum, static_cast<T>(0.0f), 32 / sizeof(T));
    WaitPipe<HardEvent::MTE2_V>(pipe);
    PipeBarrier<PIPE_V>();  // the reduction writes r after the Duplicate
    switch (t.mode) {
        case 0: ReduceMax(r, a, wk, static_cast<int32_t>(t.n), false); break;
        case 1: ReduceMin(r, a, wk, static_cast<int32_t>(t.n), false); break;
        case 2: ReduceSum(r, a, wk, static_cast<int32_t>(t.n)); break;
        case 3: ReduceMax(r, a, wk, static_cast<int32_t>(t.n), true); break;
        default: break;
    }
    if (t.mode == 2) {
        // only dst[0] is the sum: it goes to a block of its own
        WaitPipe<HardEvent::V_S>(pipe);
        sum.SetValue(0, r.GetValue(0));
        WaitPipe<HardEvent::S_MTE3>(pipe);
        DataCopy(yg, sum, 32 / sizeof(T));
        return;
    }
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg, r, 32 / sizeof(T));
}

// DataCopyPad GM -> UB of `rows` rows of `cols` floats (GM row stride cols + scalar2 elements gap) with
// leftPadding / rightPadding = left / right elements of value `scalar` (left + cols + right a multiple of 8),
// then the raw UB rows are copied to y[0, rows * (left + cols + right)) with DataCopy (whole blocks), and the
// data part alone is copied back with DataCopyPad UB -> GM to y[rows * (left+cols+right) ...] as a dense
// [rows, cols] matrix (UB source stride skips the padding).
inline void DemoDataCopyPad(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(EmuTestTiling, t, tiling);
    const uint32_t gap = static_cast<uint32_t>(t.scalar2);
    const uint32_t row_ub = t.left + t.cols + t.right;  // elements, a multiple of 8 (32 bytes)
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> qi;
    pipe.InitBuffer(qi, 1, t.rows * row_ub * sizeof(float));
    GlobalTensor<float> xg;
    GlobalTensor<float> yg;
    xg.SetGlobalBuffer((__gm__ float*)x, t.rows * (t.cols + gap));
    yg.SetGlobalBuffer((__gm__ float*)y, t.rows * row_ub + t.rows * t.cols);
    LocalTensor<float> a = qi.AllocTensor<float>();
    DataCopyExtParams in(static_cast<uint16_t>(t.rows), t.cols * sizeof(float), gap * sizeof(float), 0, 0);
    DataCopyPadExtParams<float> pad(true, static_cast<uint8_t>(t.left), static_cast<uint8_t>(t.right), t.scalar);
    DataCopyPad(a, xg, in, pad);
    qi.EnQue(a);
    LocalTensor<float> b = qi.DeQue<float>();
    WaitPipe<HardEvent::MTE2_MTE3>(pipe);  // the VECIN queue orders MTE2 before V only; MTE3 reads b here
    DataCopy(yg, b, t.rows * row_ub);
    // UB -> GM of the data part only: source blocks start after the left padding, which must be 32-byte aligned
    // in UB, so this copy is issued row by row from b[row * row_ub + left] only when left == 0 or left == 8.
    DataCopyExtParams out(static_cast<uint16_t>(t.rows), t.cols * sizeof(float),
                          (row_ub * sizeof(float) - (t.cols * sizeof(float) + 31) / 32 * 32) / 32, 0, 0);
    DataCopyPad(yg[t.rows * row_ub], b[t.left], out);
    qi.FreeTensor(b);
}

// The classic double-buffered pipeline: y = x * scalar + scalar2 over n floats in tiles of `tile` floats, with
// two buffers per queue so that CopyIn of tile i+1 can overlap Compute of tile i. Each core takes a contiguous
// share of the tiles.
inline void DemoDoubleBuffer(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(EmuTestTiling, t, tiling);
    constexpr int32_t kBufferNum = 2;
    TPipe pipe;
    TQue<QuePosition::VECIN, kBufferNum> qi;
    TQue<QuePosition::VECOUT, kBufferNum> qo;
    pipe.InitBuffer(qi, kBufferNum, t.tile * sizeof(float));
    pipe.InitBuffer(qo, kBufferNum, t.tile * sizeof(float));
    const uint32_t tiles = t.n / t.tile;
    const uint32_t per_core = (tiles + GetBlockNum() - 1) / GetBlockNum();
    const uint32_t first = per_core * GetBlockIdx();
    const uint32_t last = first + per_core < tiles ? first + per_core : tiles;
    GlobalTensor<float> xg;
    GlobalTensor<float> yg;
    xg.SetGlobalBuffer((__gm__ float*)x, t.n);
    yg.SetGlobalBuffer((__gm__ float*)y, t.n);
    // Prologue: two tiles in flight before the first compute.
    uint32_t next_in = first;
    for (int32_t k = 0; k < kBufferNum && next_in < last; ++k, ++next_in) {
        LocalTensor<float> a = qi.AllocTensor<float>();
        DataCopy(a, xg[next_in * t.tile], t.tile);
        qi.EnQue(a);
    }
    for (uint32_t i = first; i < last; ++i) {
        LocalTensor<float> a = qi.DeQue<float>();
        LocalTensor<float> o = qo.AllocTensor<float>();
        Muls(o, a, t.scalar, t.tile);
        PipeBarrier<PIPE_V>();
        Adds(o, o, t.scalar2, t.tile);
        qi.FreeTensor(a);
        qo.EnQue(o);
        if (next_in < last) {
            LocalTensor<float> n = qi.AllocTensor<float>();
            DataCopy(n, xg[next_in * t.tile], t.tile);
            qi.EnQue(n);
            ++next_in;
        }
        LocalTensor<float> r = qo.DeQue<float>();
        DataCopy(yg[i * t.tile], r, t.tile);
        qo.FreeTensor(r);
    }
}

// y = where(x <cmp> scalar, x, scalar2) with CompareScalar + Select (tensor-scalar mode); mode = CMPMODE.
inline void DemoCompareSelect(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(EmuTestTiling, t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> m;
    TBuf<TPosition::VECCALC> o;
    pipe.InitBuffer(b, t.n * sizeof(float));
    pipe.InitBuffer(m, (t.n + 7) / 8 + 32);
    pipe.InitBuffer(o, t.n * sizeof(float));
    GlobalTensor<float> xg;
    GlobalTensor<float> yg;
    xg.SetGlobalBuffer((__gm__ float*)x, t.n);
    yg.SetGlobalBuffer((__gm__ float*)y, t.n);
    LocalTensor<float> a = b.Get<float>();
    LocalTensor<uint8_t> mask = m.Get<uint8_t>();
    LocalTensor<float> r = o.Get<float>();
    DataCopy(a, xg, t.n);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    CompareScalar(mask, a, t.scalar, static_cast<CMPMODE>(t.mode), t.n);
    PipeBarrier<PIPE_V>();
    Select(r, mask, a, t.scalar2, SELMODE::VSEL_TENSOR_SCALAR_MODE, t.n);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg, r, t.n);
}

// Cores exchange data through GM across SyncAll, twice: round 1, core i writes 8 floats of value i + 1 to its slot
// y[8 i, 8 i + 8); after a SyncAll every core sums the first float of every slot and writes the sum to its slot of
// the second half y[128 + 8 i, ...); after a second SyncAll core 0 adds up that half into y[120]. t.flags = 1: the
// hardware SyncAll, else the software one (its workspace: y bytes [1024, 1024 + 32 * cores), zero at launch).
// y: 256 + 8 * cores floats, shared by the cores.
inline void DemoSyncAll(GM_ADDR, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(EmuTestTiling, t, tiling);
    const uint32_t cores = static_cast<uint32_t>(GetBlockNum());
    const uint32_t me = static_cast<uint32_t>(GetBlockIdx());
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> ws;
    pipe.InitBuffer(b, 1024);
    pipe.InitBuffer(ws, 32 * cores);
    GlobalTensor<float> yg;
    GlobalTensor<int32_t> syncGm;
    yg.SetGlobalBuffer((__gm__ float*)y, 256);
    syncGm.SetGlobalBuffer((__gm__ int32_t*)(y + 1024), 8 * cores);
    LocalTensor<float> v = b.Get<float>();
    auto sync = [&]() {
        if (t.flags != 0) {
            SyncAll();
        } else {
            SyncAll(syncGm, ws.Get<int32_t>(), static_cast<int32_t>(cores));
        }
    };
    Duplicate(v, static_cast<float>(me + 1), 8);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg[8 * me], v, 8);
    sync();
    DataCopy(v[8], yg, 8 * cores);  // every core's slot, written before the barrier (which drained every pipe)
    WaitPipe<HardEvent::MTE2_S>(pipe);
    float sum = 0.0f;
    for (uint32_t i = 0; i < cores; ++i) {
        sum += v.GetValue(8 + 8 * i);
    }
    Duplicate(v, sum, 8);
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg[128 + 8 * me], v, 8);
    sync();
    if (me == 0) {
        DataCopy(v[8], yg[128], 8 * cores);
        WaitPipe<HardEvent::MTE2_S>(pipe);
        float total = 0.0f;
        for (uint32_t i = 0; i < cores; ++i) {
            total += v.GetValue(8 + 8 * i);
        }
        for (uint32_t i = 0; i < 8; ++i) {
            v.SetValue(i, total);
        }
        WaitPipe<HardEvent::S_MTE3>(pipe);
        DataCopy(yg[120], v, 8);
    }
}

// Level-0 forms (emu_vector_level0.h). x: t.n floats (k = t.n / 64 iterations of 64) then 64 more elements
// (operands of the broadcast modes); y: t.n floats, prefilled with 7.0 where a mode writes fewer. t.rows is the
// continuous mask (1..64). Modes:
//   0 Max accumulation (float): y[0, 64) = the elementwise max over the k iterations (dst = src1, repeat stride 0)
//   1 the same on int32
//   2 Div by a broadcast block: y[i] = x[i] / x[n + i % 8] (src1 block and repeat stride 0)
//   3 Div by a broadcast block with mask t.rows: only the first t.rows of each iteration are written
//   4 WholeReduceMax (ORDER_VALUE_INDEX) over each iteration's first t.rows elements: y[2r], y[2r + 1] = bits
//   5 WholeReduceMin, the same
//   6 And of the uint16 view with a 256-byte broadcast pattern x[n, n + 64) (src1 repeat stride 0)
inline void DemoLevel0(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(EmuTestTiling, t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx;
    TBuf<TPosition::VECCALC> by;
    pipe.InitBuffer(bx, (t.n + 64) * sizeof(float));
    pipe.InitBuffer(by, t.n * sizeof(float));
    GlobalTensor<float> xg;
    GlobalTensor<float> yg;
    xg.SetGlobalBuffer((__gm__ float*)x, t.n + 64);
    yg.SetGlobalBuffer((__gm__ float*)y, t.n);
    LocalTensor<float> a = bx.Get<float>();
    LocalTensor<float> o = by.Get<float>();
    const uint8_t k = static_cast<uint8_t>(t.n / 64);
    const uint64_t m = t.rows;
    DataCopy(a, xg, t.n + 64);
    Duplicate(o, 7.0f, t.n);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    PipeBarrier<PIPE_V>();
    switch (t.mode) {
        case 0:
            Max(a, a[64], a, 64, static_cast<uint8_t>(k - 1), {1, 1, 1, 0, 8, 0});
            PipeBarrier<PIPE_V>();
            Adds(o, a, 0.0f, 64);
            break;
        case 1: {
            LocalTensor<int32_t> ai = a.ReinterpretCast<int32_t>();
            Max(ai, ai[64], ai, 64, static_cast<uint8_t>(k - 1), {1, 1, 1, 0, 8, 0});
            PipeBarrier<PIPE_V>();
            Adds(o.ReinterpretCast<int32_t>(), ai, 0, 64);
            break;
        }
        case 2:
            Div(o, a, a[t.n], 64, k, {1, 1, 0, 8, 8, 0});
            break;
        case 3:
            Div(o, a, a[t.n], m, k, {1, 1, 0, 8, 8, 0});
            break;
        case 4:
            WholeReduceMax(o, a, static_cast<int32_t>(m), k, 1, 1, 8);
            break;
        case 5:
            WholeReduceMin(o, a, static_cast<int32_t>(m), k, 1, 1, 8);
            break;
        case 6: {
            LocalTensor<uint16_t> a16 = a.ReinterpretCast<uint16_t>();
            And(o.ReinterpretCast<uint16_t>(), a16, a16[t.n * 2], 128, k, {1, 1, 1, 8, 8, 0});
            break;
        }
        default:
            break;
    }
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg, o, t.n);
}

// Brcb (emu_vector_level0.h). x: t.rows * 8 elements of T (t.mode 0: float, 1: half), padded to 32 bytes; y: t.n
// bytes, prefilled with 0x7777 in every int16 so that blocks Brcb does not write are seen. repeatTimes t.rows,
// dstBlkStride t.cols, dstRepStride t.left.
template <typename T> inline void DemoBrcbOf(GM_ADDR x, GM_ADDR y, const EmuTestTiling& t)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx;
    TBuf<TPosition::VECCALC> by;
    const uint32_t src_bytes = (t.rows * 8 * static_cast<uint32_t>(sizeof(T)) + 31) / 32 * 32;
    pipe.InitBuffer(bx, src_bytes);
    pipe.InitBuffer(by, t.n);
    GlobalTensor<T> xg;
    GlobalTensor<int16_t> yg;
    xg.SetGlobalBuffer((__gm__ T*)x, src_bytes / sizeof(T));
    yg.SetGlobalBuffer((__gm__ int16_t*)y, t.n / 2);
    LocalTensor<T> s = bx.Get<T>();
    LocalTensor<int16_t> d = by.Get<int16_t>();
    DataCopy(s, xg, src_bytes / sizeof(T));
    Duplicate(d, static_cast<int16_t>(0x7777), t.n / 2);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    PipeBarrier<PIPE_V>();
    Brcb(by.Get<T>(), s, static_cast<uint8_t>(t.rows),
         BrcbRepeatParams(static_cast<uint16_t>(t.cols), static_cast<uint16_t>(t.left)));
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg, d, t.n / 2);
}

inline void DemoBrcb(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(EmuTestTiling, t, tiling);
    if (t.mode == 0) {
        DemoBrcbOf<float>(x, y, t);
    } else {
        DemoBrcbOf<half>(x, y, t);
    }
}

// TransDataTo5HD (emu_trans_data.h): x is a [t.rows, t.cols] matrix of T (t.mode 0: int8 through uint64_t address
// lists, 1: half through LocalTensor lists), t.rows a multiple of C0 = 32 / sizeof(T) (int8: 32, half: 16)
// and t.cols of C0 (int8: 32, half: 16). y receives, per column block c of C0 columns and row group k of C0 rows, the
// C0 x C0 tile transposed (C0 blocks of 32 bytes: block j is column C0 c + j of rows C0 k ..), at byte
// (c * rows / C0 + k) * C0 * 32: the layout of the Matmul API's int8 B turn (data_copy_wrapper_utils.h
// TransDataNDBMatrix), with the row groups as repeats.
template <typename T, bool kAddressLists> inline void DemoTransDataOf(GM_ADDR x, GM_ADDR y, const EmuTestTiling& t)
{
    constexpr uint32_t kC0 = 32 / sizeof(T);  // 32 int8, 16 half
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs;
    TBuf<TPosition::VECCALC> bd;
    const uint32_t n = t.rows * t.cols;
    // room after the matrix: a list tensor holds repeatTimes * repeat stride + 1 blocks from its start (CPU-debug)
    pipe.InitBuffer(bs, n * sizeof(T) + kC0 * t.cols * sizeof(T) + 32);
    pipe.InitBuffer(bd, n * sizeof(T) + kC0 * kC0 * sizeof(T) + 32);
    GlobalTensor<T> xg;
    GlobalTensor<T> yg;
    xg.SetGlobalBuffer((__gm__ T*)x, n);
    yg.SetGlobalBuffer((__gm__ T*)y, n);
    LocalTensor<T> s = bs.Get<T>();
    LocalTensor<T> d = bd.Get<T>();
    DataCopy(s, xg, n);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    const uint32_t groups = t.rows / kC0;
    TransDataTo5HDParams p;
    p.repeatTimes = static_cast<uint8_t>(groups);
    p.srcRepStride = static_cast<uint16_t>(groups > 1 ? kC0 * t.cols * sizeof(T) / 32 : 0);
    p.dstRepStride = static_cast<uint16_t>(groups > 1 ? kC0 * kC0 * sizeof(T) / 32 : 0);
    for (uint32_t c = 0; c < t.cols / kC0; ++c) {
        const uint32_t src0 = c * kC0, dst0 = c * t.rows * kC0;
        // int8: four instructions (rows 0..15 / 16..31 into the blocks' low / high halves, columns 0..15 / 16..31 of
        // the group into blocks 0..15 / 16..31); half: one (16 rows into 16 blocks).
        const uint32_t steps = sizeof(T) == 1 ? 4 : 1;
        for (uint32_t k = 0; k < steps; ++k) {
            const bool rowsHigh = (k & 1) != 0, colsHigh = (k & 2) != 0;
            p.dstHighHalf = rowsHigh;
            p.srcHighHalf = colsHigh;
            if constexpr (kAddressLists) {
                uint64_t dl[16], sl[16];
                for (uint32_t i = 0; i < 16; ++i) {
                    sl[i] = (uint64_t)(s[src0 + (i + (rowsHigh ? 16 : 0)) * t.cols].GetPhyAddr());
                    dl[i] = (uint64_t)(d[dst0 + (i + (colsHigh ? 16 : 0)) * kC0].GetPhyAddr());
                }
                TransDataTo5HD<T>(dl, sl, p);
            } else {
                LocalTensor<T> dl[16], sl[16];
                for (uint32_t i = 0; i < 16; ++i) {
                    sl[i] = s[src0 + i * t.cols];
                    dl[i] = d[dst0 + i * kC0];
                }
                TransDataTo5HD(dl, sl, p);
            }
            PipeBarrier<PIPE_V>();
        }
    }
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg, d, n);
}

inline void DemoTransData(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(EmuTestTiling, t, tiling);
    if (t.mode == 0) {
        DemoTransDataOf<int8_t, true>(x, y, t);
    } else {
        DemoTransDataOf<half, false>(x, y, t);
    }
}

// The kernel's own L1 (ascend310p): x (t.n floats, t.n a multiple of 64) into UB, to an L1 TBuf (A1) as t.rows rows
// of t.cols 32-byte blocks with a gap of t.left blocks between rows in L1, back to UB from L1 packed, out to y. t.mode
// selects one deliberate fault, its line marked "L1CASE(<name>)" (tests/emulator/test_emulator_l1.py):
//   1 the L1 -> UB copy without the MTE3 -> MTE1 flag after the UB -> L1 copy;
//   2 a second UB -> L1 copy over the rows the L1 -> UB copy read, without an MTE1 -> MTE3 flag (after a
//     PipeBarrier<PIPE_MTE3> that orders it after the first);
//   3 a vector instruction on the L1 tensor; 4 a scalar read of it; 5 an L1 TBuf beyond L1;
//   6 a UB -> L1 copy whose rows leave the L1 buffer (its buffer one block short of the last row);
//   7 / 8 a Matmul object registered before / after the L1 TBuf (the API's own L1 queues are not modelled).
inline void DemoL1(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(EmuTestTiling, t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> bu;
    TBuf<TPosition::VECCALC> bo;
    TBuf<TPosition::A1> bl;
    const uint32_t rowBytes = t.cols * 32, l1Bytes = t.rows * (t.cols + t.left) * 32;
    pipe.InitBuffer(bu, t.n * sizeof(float));
    pipe.InitBuffer(bo, t.n * sizeof(float));
    if (t.mode == 5) {
        TBuf<TPosition::B1> huge;
        pipe.InitBuffer(huge, 1024 * 1024 + 32);  // L1CASE(l1_overflow)
    }
    using L1DemoMatmul = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, int8_t>,
                                MatmulType<TPosition::GM, CubeFormat::ND, int8_t>,
                                MatmulType<TPosition::GM, CubeFormat::ND, int32_t>>;
    L1DemoMatmul mm;
    TCubeTiling mt;
    mt.M = mt.singleCoreM = 8;
    mt.N = mt.singleCoreN = 16;
    mt.Ka = mt.Kb = mt.singleCoreK = 32;
    mt.baseM = mt.baseN = 16;
    mt.baseK = 32;
    mt.depthA1 = mt.depthB1 = mt.stepM = mt.stepN = mt.stepKa = mt.stepKb = 1;
    mt.transLength = 16 * 16 * 4;
    if (t.mode == 7) {
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &mt);
    }
    pipe.InitBuffer(bl, t.mode == 6 ? l1Bytes - t.left * 32 - 32 : l1Bytes);  // L1CASE(l1_beside_a_matmul)
    if (t.mode == 8) {
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &mt);  // L1CASE(matmul_beside_l1)
    }
    GlobalTensor<float> xg;
    GlobalTensor<float> yg;
    xg.SetGlobalBuffer((__gm__ float*)x, t.n);
    yg.SetGlobalBuffer((__gm__ float*)y, t.n);
    LocalTensor<float> u = bu.Get<float>();
    LocalTensor<float> o = bo.Get<float>();
    LocalTensor<float> l = bl.Get<float>();
    DataCopy(u, xg, t.n);
    WaitPipe<HardEvent::MTE2_MTE3>(pipe);
    const DataCopyParams in(static_cast<uint16_t>(t.rows), static_cast<uint16_t>(t.cols), 0,
                            static_cast<uint16_t>(t.left));
    const DataCopyParams out(static_cast<uint16_t>(t.rows), static_cast<uint16_t>(t.cols),
                             static_cast<uint16_t>(t.left), 0);
    DataCopy(l, u, in);  // L1CASE(l1_rows_leave_the_buffer)
    if (t.mode == 3) {
        Abs(l, l, 64);  // L1CASE(l1_vector_operand)
    }
    if (t.mode == 4) {
        (void)l.GetValue(0);  // L1CASE(l1_scalar_read)
    }
    if (t.mode != 1) {
        WaitPipe<HardEvent::MTE3_MTE1>(pipe);
    }
    DataCopy(o, l, out);  // L1CASE(l1_read_before_its_write)
    if (t.mode == 2) {
        PipeBarrier<PIPE_MTE3>();  // after the first UB -> L1 copy, not after the L1 -> UB one
        DataCopy(l, u, in);  // L1CASE(l1_rewritten_while_read)
    }
    WaitPipe<HardEvent::MTE1_MTE3>(pipe);
    DataCopy(yg, o, t.rows * rowBytes / sizeof(float));
}

// The buffers of the cube demos: A, B and C in UB; A and B in L1; L0A, L0B, L0C.
struct CubeDemoBuffers {
    TBuf<TPosition::VECCALC> ua;
    TBuf<TPosition::VECCALC> ub;
    TBuf<TPosition::VECCALC> uc;
    TBuf<TPosition::A1> la;
    TBuf<TPosition::B1> lb;
    TBuf<TPosition::A2> a2;
    TBuf<TPosition::B2> b2;
    TBuf<TPosition::CO1> c1;
    void Init(TPipe& pipe, uint32_t aBytes, uint32_t bBytes, uint32_t cUbBytes, uint32_t cBytes)
    {
        pipe.InitBuffer(ua, aBytes);
        pipe.InitBuffer(ub, bBytes);
        pipe.InitBuffer(uc, cUbBytes);
        pipe.InitBuffer(la, aBytes);
        pipe.InitBuffer(lb, bBytes);
        pipe.InitBuffer(a2, aBytes);
        pipe.InitBuffer(b2, bBytes);
        pipe.InitBuffer(c1, cBytes);
    }
};

// A kernel's own cube pipeline (ascend310p, emu_cube.h): x holds A [16, t.cols] int8 (t.cols = K, a multiple of 64)
// then B [K, t.rows] int8 (t.rows = N, a multiple of 32); y receives C = A x B as int32 in L0C's Nz order (N / 16
// fractals of 16 x 16). B is turned in UB by TransDataTo5HD into the Nz layout of its transpose (per 32 K rows, N
// rows of 32 bytes), A copied to L1 as 32-byte columns, both loaded to L0 by LoadData, one Mmad (t.mode 1: two, the
// second accumulating the upper half of K), the result copied L0C -> UB -> GM. Other t.mode values break one rule,
// the line marked "CUBECASE(<name>)" (tests/emulator/test_emulator_cube.py):
//   2 the Mmad without the MTE1 -> M flag; 3 the copy out without the M -> V flag; 4 the accumulating Mmad without
//   PipeBarrier<PIPE_M> (allowed for C of 10 or more fractals, N >= 160: the cube pipe orders its accumulations, as
//   the Matmul API relies on; refused for fewer, by 9's rule); 5 LoadData with ifTranspose
//   on int8; 6 an Mmad of m 1 (GEMV); 7 the copy out in BLOCK_MODE_VECTOR; 8 B loaded one fractal short (the Mmad
//   reads L0B bytes never written); 9 a second Mmad right after one of fewer than 10 fractals of C, without the
//   PipeBarrier<PIPE_M> the Matmul API puts after such an Mmad (17: with PipeBarrier<PIPE_V> between them); 16 an M
//   flag set right after it; 18 the kernel ending right after it.
inline void DemoCube(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(EmuTestTiling, t, tiling);
    const uint32_t m = 16, k = t.cols, n = t.rows, k1 = k / 32, n1 = n / 16;
    TPipe pipe;
    CubeDemoBuffers bufs;
    TBuf<TPosition::VECCALC> ut;
    bufs.Init(pipe, m * k, k * n, m * n * 4, m * n * 4);
    pipe.InitBuffer(ut, k * n);
    GlobalTensor<int8_t> xg;
    GlobalTensor<int32_t> yg;
    xg.SetGlobalBuffer((__gm__ int8_t*)x, m * k + k * n);
    yg.SetGlobalBuffer((__gm__ int32_t*)y, m * n);
    LocalTensor<int8_t> a = bufs.ua.Get<int8_t>();
    LocalTensor<int8_t> b = bufs.ub.Get<int8_t>();
    LocalTensor<int8_t> bt = ut.Get<int8_t>();
    DataCopy(a, xg, m * k);
    DataCopy(b, xg[m * k], k * n);
    WaitPipe<HardEvent::MTE2_V>(pipe);
    // the turn: per 32 columns of B, four instructions over all 32-row groups (the iterations); block (k1, j) of the
    // result holds column j of rows 32 k1 .. 32 k1 + 31, at byte (k1 * n + j) * 32
    TransDataTo5HDParams p;
    p.repeatTimes = static_cast<uint8_t>(k1);
    p.srcRepStride = static_cast<uint16_t>(k1 > 1 ? n : 0);  // 32 rows of n bytes
    p.dstRepStride = static_cast<uint16_t>(k1 > 1 ? n : 0);  // n blocks
    for (uint32_t c = 0; c < n / 32; ++c) {
        for (uint32_t s = 0; s < 4; ++s) {
            const bool rowsHigh = (s & 1) != 0, colsHigh = (s & 2) != 0;
            p.dstHighHalf = rowsHigh;
            p.srcHighHalf = colsHigh;
            uint64_t dl[16], sl[16];
            for (uint32_t i = 0; i < 16; ++i) {
                sl[i] = (uint64_t)(b[(i + (rowsHigh ? 16 : 0)) * n + 32 * c].GetPhyAddr());
                dl[i] = (uint64_t)(bt[(32 * c + i + (colsHigh ? 16 : 0)) * 32].GetPhyAddr());
            }
            TransDataTo5HD<int8_t>(dl, sl, p);
            PipeBarrier<PIPE_V>();
        }
    }
    WaitPipe<HardEvent::V_MTE3>(pipe);
    WaitPipe<HardEvent::MTE2_MTE3>(pipe);
    LocalTensor<int8_t> l1a = bufs.la.Get<int8_t>();
    LocalTensor<int8_t> l1b = bufs.lb.Get<int8_t>();
    for (uint32_t q = 0; q < k1; ++q) {  // A's 32-byte column q of its 16 rows: L0A's fractal q (Zz with one row block)
        DataCopy(l1a[q * 512], a[q * 32], DataCopyParams(16, 1, static_cast<uint16_t>(k1 - 1), 0));
    }
    DataCopy(l1b, bt, DataCopyParams(1, static_cast<uint16_t>(k * n / 32), 0, 0));
    WaitPipe<HardEvent::MTE3_MTE1>(pipe);
    LocalTensor<int8_t> l0a = bufs.a2.Get<int8_t>();
    LocalTensor<int8_t> l0b = bufs.b2.Get<int8_t>();
    const LoadData2DParams loadA(0, static_cast<uint8_t>(k1), 1, 0, 0, t.mode == 5, 0);
    LoadData(l0a, l1a, loadA);  // CUBECASE(load_int8_transposed)
    LoadData(l0b, l1b, LoadData2DParams(0, static_cast<uint8_t>(k1 * n1 - (t.mode == 8 ? 1 : 0)), 1, 0, 0, false, 0));
    if (t.mode != 2) {
        WaitPipe<HardEvent::MTE1_M>(pipe);
    }
    LocalTensor<int32_t> l0c = bufs.c1.Get<int32_t>();
    if (t.mode == 1 || t.mode == 4) {
        const uint16_t half = static_cast<uint16_t>(k / 2);
        Mmad(l0c, l0a, l0b, MmadParams(m, static_cast<uint16_t>(n), half, 0, false, true));
        if (t.mode == 1) {
            PipeBarrier<PIPE_M>();
        }
        const MmadParams upper(m, static_cast<uint16_t>(n), half, 0, false, false);
        Mmad(l0c, l0a[(k1 / 2) * 512], l0b[(k1 / 2) * n1 * 512], upper);  // CUBECASE(small_accumulate_without_barrier)
    } else {
        const MmadParams all(t.mode == 6 ? 1 : m, static_cast<uint16_t>(n), static_cast<uint16_t>(k), 0, false, true);
        Mmad(l0c, l0a, l0b, all);  // CUBECASE(mmad_before_its_load) CUBECASE(gemv) CUBECASE(b_short)
        if (t.mode == 9 || t.mode == 17 || t.mode == 18) {
            if (t.mode == 17) {
                PipeBarrier<PIPE_V>();  // another pipe's barrier does not do
            }
            if (t.mode == 18) {
                PipeBarrier<PIPE_M>();
            }
            Mmad(l0c, l0a, l0b, all);  // CUBECASE(small_mmad_without_barrier) CUBECASE(last_mmad_without_barrier)
            if (t.mode == 18) {
                return;
            }
        }
        if (t.mode == 16) {
            const event_t mv = static_cast<event_t>(pipe.FetchEventID(HardEvent::M_V));
            SetFlag<HardEvent::M_V>(mv);  // CUBECASE(flag_after_small_mmad)
        }
    }
    PipeBarrier<PIPE_M>();  // after an Mmad of fewer than 10 fractals of C, as the Matmul API does
    if (t.mode != 3) {
        WaitPipe<HardEvent::M_V>(pipe);
    }
    LocalTensor<int32_t> cu = bufs.uc.Get<int32_t>();
    DataCopyEnhancedParams e;
    e.blockMode = t.mode == 7 ? BlockMode::BLOCK_MODE_VECTOR : BlockMode::BLOCK_MODE_MATRIX;
    const DataCopyParams out(static_cast<uint16_t>(n1), 1, 0, 0);
    DataCopy(cu, l0c, out, e);  // CUBECASE(copy_out_before_mmad) CUBECASE(vector_mode)
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg, cu, m * n);
}

// The cube instructions at general shapes (ascend310p): x holds A laid by the host as [K1][16 M1][32] (32-byte
// columns of A, all rows) then B laid as L0B's Zn ([K1][N1][16][32]); m = t.rows, k = t.cols, n = t.n. A goes to L0A
// one K fractal column at a time (LoadData startIndex k1 M1, M1 fractals, dstGap K1 - 1: the Zz order), B in one
// load; C is copied out of L0C with two 32-byte blocks between its bursts in UB (dstStride 2), and y receives it in
// L0C's Nz order without them. t.mode
// breaks one rule, the line marked "CUBECASE(<name>)":
//   10 a second A load over L0A with no M -> MTE1 flag after the Mmad that reads it;
//   11 a second Mmad over L0C with no V -> M flag after the copy out that reads it;
//   12 a vector instruction on C in UB right after the copy out, with no PipeBarrier<PIPE_V>;
//   13 a second UB -> L1 copy of A with no MTE1 -> MTE3 flag after the loads that read L1;
//   14 B's load one fractal past its L1 buffer; 15 a first Mmad that accumulates (cmatrixInitVal false).
inline void DemoCubeLaid(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(EmuTestTiling, t, tiling);
    const uint32_t m = t.rows, k = t.cols, n = t.n;
    const uint32_t m1 = (m + 15) / 16, k1 = (k + 31) / 32, n1 = (n + 15) / 16;
    const uint32_t aBytes = m1 * k1 * 512, bBytes = k1 * n1 * 512, cBytes = m1 * n1 * 1024, gap = 2;
    TPipe pipe;
    CubeDemoBuffers bufs;
    bufs.Init(pipe, aBytes, bBytes, cBytes + n1 * gap * 32, cBytes);
    GlobalTensor<int8_t> xg;
    GlobalTensor<int32_t> yg;
    xg.SetGlobalBuffer((__gm__ int8_t*)x, aBytes + bBytes);
    yg.SetGlobalBuffer((__gm__ int32_t*)y, cBytes / 4);
    LocalTensor<int8_t> a = bufs.ua.Get<int8_t>();
    LocalTensor<int8_t> b = bufs.ub.Get<int8_t>();
    DataCopy(a, xg, aBytes);
    DataCopy(b, xg[aBytes], bBytes);
    WaitPipe<HardEvent::MTE2_MTE3>(pipe);
    LocalTensor<int8_t> l1a = bufs.la.Get<int8_t>();
    LocalTensor<int8_t> l1b = bufs.lb.Get<int8_t>();
    DataCopy(l1a, a, DataCopyParams(1, static_cast<uint16_t>(aBytes / 32), 0, 0));
    DataCopy(l1b, b, DataCopyParams(1, static_cast<uint16_t>(bBytes / 32), 0, 0));
    WaitPipe<HardEvent::MTE3_MTE1>(pipe);
    LocalTensor<int8_t> l0a = bufs.a2.Get<int8_t>();
    LocalTensor<int8_t> l0b = bufs.b2.Get<int8_t>();
    for (uint32_t q = 0; q < k1; ++q) {
        const LoadData2DParams colA(static_cast<uint16_t>(q * m1), static_cast<uint8_t>(m1), 1, 0,
                                    static_cast<uint16_t>(k1 - 1), false, 0);
        LoadData(l0a[q * 512], l1a, colA);
    }
    const LoadData2DParams allB(0, static_cast<uint8_t>(k1 * n1 + (t.mode == 14 ? 1 : 0)), 1, 0, 0, false, 0);
    LoadData(l0b, l1b, allB);  // CUBECASE(load_past_the_buffer)
    if (t.mode == 13) {
        PipeBarrier<PIPE_MTE3>();
        const DataCopyParams allA(1, static_cast<uint16_t>(aBytes / 32), 0, 0);
        DataCopy(l1a, a, allA);  // CUBECASE(l1_rewritten_while_loaded)
    }
    WaitPipe<HardEvent::MTE1_M>(pipe);
    LocalTensor<int32_t> l0c = bufs.c1.Get<int32_t>();
    const MmadParams product(static_cast<uint16_t>(m), static_cast<uint16_t>(n), static_cast<uint16_t>(k), 0, false,
                             t.mode != 15);
    Mmad(l0c, l0a, l0b, product);  // CUBECASE(first_mmad_accumulates) CUBECASE(k_tail_not_zero)
    PipeBarrier<PIPE_M>();  // after an Mmad of fewer than 10 fractals of C, as the Matmul API does
    if (t.mode == 10) {
        PipeBarrier<PIPE_MTE1>();
        const LoadData2DParams again(0, static_cast<uint8_t>(m1), 1, 0, static_cast<uint16_t>(k1 - 1), false, 0);
        LoadData(l0a, l1a, again);  // CUBECASE(l0a_rewritten_while_multiplied)
    }
    WaitPipe<HardEvent::M_V>(pipe);
    LocalTensor<int32_t> cu = bufs.uc.Get<int32_t>();
    DataCopyEnhancedParams e;
    e.blockMode = BlockMode::BLOCK_MODE_MATRIX;
    const DataCopyParams out(static_cast<uint16_t>(n1), static_cast<uint16_t>(m1), 0, gap);
    DataCopy(cu, l0c, out, e);
    if (t.mode == 11) {
        PipeBarrier<PIPE_M>();
        Mmad(l0c, l0a, l0b, product);  // CUBECASE(l0c_rewritten_while_copied)
    }
    if (t.mode == 12) {
        Adds(cu, cu, static_cast<int32_t>(0), static_cast<int32_t>(cBytes / 4));  // CUBECASE(c_read_without_barrier)
    }
    WaitPipe<HardEvent::V_MTE3>(pipe);
    DataCopy(yg, cu, DataCopyParams(static_cast<uint16_t>(n1), static_cast<uint16_t>(m1 * 32), gap, 0));  // no gaps
}

// Records one of each kind of trace event, in a known order (tests/emulator/test_emulator_trace.py): a strided DMA
// in (2 blocks), vector instructions of each class, a user flag pair from FetchEventID, five scalar reads in a
// loop (one merged event), a scalar write, a PIPE_V barrier and a DMA out. x: 64 float32, y: 16 float32.
inline void DemoTrace(GM_ADDR x, GM_ADDR y, GM_ADDR)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    TBuf<TPosition::VECCALC> w;
    pipe.InitBuffer(b, 512);
    pipe.InitBuffer(w, 256);
    GlobalTensor<float> xg;
    GlobalTensor<float> yg;
    xg.SetGlobalBuffer((__gm__ float*)x, 64);
    yg.SetGlobalBuffer((__gm__ float*)y, 16);
    LocalTensor<float> t = b.Get<float>();
    LocalTensor<float> r = w.Get<float>();
    DataCopy(t, xg, DataCopyParams(2, 1, 1, 0));  // TRACE(dma_in): rows 0..7 and 16..23 into t[0, 16)
    event_t toV = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_V));
    SetFlag<HardEvent::MTE2_V>(toV);  // TRACE(set_flag)
    WaitFlag<HardEvent::MTE2_V>(toV);  // TRACE(wait_flag)
    Div(t[16], t, t, 16);  // TRACE(div): ones
    PipeBarrier<PIPE_V>();  // TRACE(barrier)
    ReduceMax(r, t, r[8], 16, false);  // TRACE(reduce)
    LocalTensor<int32_t> ti = t[32].ReinterpretCast<int32_t>();
    Cast(ti, t[16], RoundMode::CAST_RINT, 16);  // TRACE(cast)
    Duplicate(t[48], 0.0f, 8);  // TRACE(duplicate)
    event_t toS = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
    SetFlag<HardEvent::V_S>(toS);
    WaitFlag<HardEvent::V_S>(toS);
    float sum = 0.0f;
    for (int i = 0; i < 5; ++i) {
        sum += t.GetValue(i);  // TRACE(scalar_reads)
    }
    t.SetValue(48, sum);  // TRACE(scalar_write)
    event_t toMte3 = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_MTE3));
    SetFlag<HardEvent::S_MTE3>(toMte3);
    WaitFlag<HardEvent::S_MTE3>(toMte3);
    DataCopy(yg, t[48], 8);  // TRACE(dma_out)
}

}  // namespace aqo_emu_tests
