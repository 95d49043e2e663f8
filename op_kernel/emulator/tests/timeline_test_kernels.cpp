// Synthetic kernels that validate the timeline model (tests/perf/test_timeline_validation.py), written against the
// AscendC API as device kernels are, in the classic sample shape. Each isolates one effect the model must show:
//   KernelCopy<2>          GM -> UB -> GM copy, double buffered: bound by the GM bandwidth (the roofline); with
//                          passes = 2 the copy runs twice (x read twice: the second time from the L2 cache);
//   KernelCopy<1>          the same single buffered: load, move and store of a tile serialise;
//   KernelScalarRoundTrip  per 256 bytes a ReduceMax whose result the scalar unit reads (V -> S round trip), or
//                          the same vector work with one round trip per tile: the stall the round trips cost;
//   KernelCubeLoop         C = A B again and again through the Matmul API, nothing else: the cube's peak.
// Included once by python/csrc/emulate_timeline_test_kernels.cpp; the SoC is chosen at run time by the launcher.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace AscendC;

namespace aqo_timeline_tests {

struct TimelineTestTiling {
    uint32_t bytesPerCore;  // each core's contiguous share of x (and y)
    uint32_t tileBytes;     // bytes per UB tile (a multiple of 256)
    uint32_t perChunk;      // KernelScalarRoundTrip: 1 = a V -> S round trip per 256 bytes, 0 = one per tile
    uint32_t passes;        // KernelCopy: how many times the core copies its share (0 and 1: once)
};

constexpr uint32_t kChunkBytes = 256;                          // one vector repeat
constexpr uint32_t kChunkFloats = kChunkBytes / sizeof(float);
constexpr uint32_t kBlockFloats = 32 / sizeof(float);

// y = x, tile by tile through UB: CopyIn (MTE2) -> Compute (a UB -> UB move on the vector pipe) -> CopyOut (MTE3).
template <int32_t BUFFER_NUM>
class KernelCopy {
public:
    __aicore__ inline KernelCopy() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TimelineTestTiling& t)
    {
        tileFloats_ = t.tileBytes / sizeof(float);
        tiles_ = t.bytesPerCore / t.tileBytes;
        passes_ = t.passes > 1 ? t.passes : 1;
        const uint32_t floats = t.bytesPerCore / sizeof(float);
        xGm_.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * floats, floats);
        yGm_.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * floats, floats);
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, t.tileBytes);
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, t.tileBytes);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t p = 0; p < passes_; ++p) {
            for (uint32_t i = 0; i < tiles_; ++i) {
                CopyIn(i);
                Compute();
                CopyOut(i);
            }
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t i)
    {
        LocalTensor<float> in = inQueue_.template AllocTensor<float>();
        DataCopy(in, xGm_[i * tileFloats_], tileFloats_);
        inQueue_.EnQue(in);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> in = inQueue_.template DeQue<float>();
        LocalTensor<float> out = outQueue_.template AllocTensor<float>();
        DataCopy(out, in, tileFloats_);
        outQueue_.EnQue(out);
        inQueue_.FreeTensor(in);
    }
    __aicore__ inline void CopyOut(uint32_t i)
    {
        LocalTensor<float> out = outQueue_.template DeQue<float>();
        DataCopy(yGm_[i * tileFloats_], out, tileFloats_);
        outQueue_.FreeTensor(out);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    GlobalTensor<float> xGm_;
    GlobalTensor<float> yGm_;
    uint32_t tileFloats_ = 0;
    uint32_t tiles_ = 0;
    uint32_t passes_ = 1;
};

// y[core * 8] = max of the core's share of x (the rest of its 32-byte block: the same value). The maximum of every
// 256-byte chunk comes from ReduceMax; the scalar unit reads each one (GetValue) and keeps the largest. perChunk = 1
// reads each right after its ReduceMax (a V -> S round trip per chunk, as a kernel does that decides per row on
// the scalar unit); perChunk = 0 lets the vector pipe run the tile's reductions back to back and reads them after
// one round trip.
class KernelScalarRoundTrip {
public:
    __aicore__ inline KernelScalarRoundTrip() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TimelineTestTiling& t)
    {
        tileFloats_ = t.tileBytes / sizeof(float);
        chunks_ = t.tileBytes / kChunkBytes;
        tiles_ = t.bytesPerCore / t.tileBytes;
        perChunk_ = t.perChunk != 0;
        const uint32_t floats = t.bytesPerCore / sizeof(float);
        xGm_.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * floats, floats);
        yGm_.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * kBlockFloats, kBlockFloats);
        pipe_.InitBuffer(inQueue_, 2, t.tileBytes);
        pipe_.InitBuffer(outQueue_, 1, 32);
        // one 32-byte result block and one 32-byte work block per chunk: the reductions of a tile are independent
        pipe_.InitBuffer(maxBuf_, chunks_ * 32);
        pipe_.InitBuffer(workBuf_, chunks_ * 32);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tiles_; ++i) {
            CopyIn(i);
            Compute(i == 0);
        }
        CopyOut();
    }

private:
    __aicore__ inline void CopyIn(uint32_t i)
    {
        LocalTensor<float> in = inQueue_.AllocTensor<float>();
        DataCopy(in, xGm_[i * tileFloats_], tileFloats_);
        inQueue_.EnQue(in);
    }
    __aicore__ inline void Compute(bool first)
    {
        LocalTensor<float> in = inQueue_.DeQue<float>();
        LocalTensor<float> maxes = maxBuf_.Get<float>();
        LocalTensor<float> work = workBuf_.Get<float>();
        if (!first) {
            // the previous tile's maxima were read by the scalar unit: the reductions below overwrite them
            WaitPipe<HardEvent::S_V>();
        }
        for (uint32_t c = 0; c < chunks_; ++c) {
            ReduceMax(maxes[c * kBlockFloats], in[c * kChunkFloats], work[c * kBlockFloats],
                      static_cast<int32_t>(kChunkFloats), false);
            if (perChunk_) {
                WaitPipe<HardEvent::V_S>();
                Keep(maxes.GetValue(c * kBlockFloats), first && c == 0);
            }
        }
        if (!perChunk_) {
            WaitPipe<HardEvent::V_S>();
            for (uint32_t c = 0; c < chunks_; ++c) {
                Keep(maxes.GetValue(c * kBlockFloats), first && c == 0);
            }
        }
        inQueue_.FreeTensor(in);
    }
    __aicore__ inline void CopyOut()
    {
        LocalTensor<float> out = outQueue_.AllocTensor<float>();
        Duplicate(out, best_, static_cast<int32_t>(kBlockFloats));
        outQueue_.EnQue(out);
        LocalTensor<float> o = outQueue_.DeQue<float>();
        DataCopy(yGm_, o, kBlockFloats);
        outQueue_.FreeTensor(o);
    }
    __aicore__ inline void Keep(float v, bool first)
    {
        if (first || v > best_) best_ = v;
    }
    template <HardEvent E>
    __aicore__ inline void WaitPipe()
    {
        event_t id = static_cast<event_t>(pipe_.FetchEventID(E));
        SetFlag<E>(id);
        WaitFlag<E>(id);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, 2> inQueue_;
    TQue<QuePosition::VECOUT, 1> outQueue_;
    TBuf<TPosition::VECCALC> maxBuf_;
    TBuf<TPosition::VECCALC> workBuf_;
    GlobalTensor<float> xGm_;
    GlobalTensor<float> yGm_;
    uint32_t tileFloats_ = 0;
    uint32_t chunks_ = 0;
    uint32_t tiles_ = 0;
    bool perChunk_ = true;
    float best_ = 0.0f;
};

struct CubeLoopTiling {
    uint32_t repeats;       // IterateAll calls per core
    uint32_t m;             // A [m, k] int8, B [k, n] int8, each core's C [m, n] int32
    uint32_t n;
    uint32_t k;
    TCubeTiling cube;
};

// Each core computes its C = A B `repeats` times (the same operands: the cube's work without a vector epilogue).
class KernelCubeLoop {
public:
    using MM = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, int8_t>, MatmulType<TPosition::GM, CubeFormat::ND, int8_t>,
                      MatmulType<TPosition::GM, CubeFormat::ND, int32_t>>;
    __aicore__ inline KernelCubeLoop() {}
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, const CubeLoopTiling& t, MM* mm)
    {
        mm_ = mm;
        repeats_ = t.repeats;
        m_ = t.m;
        n_ = t.n;
        k_ = t.k;
        aGm_.SetGlobalBuffer((__gm__ int8_t*)a, static_cast<uint64_t>(t.m) * t.k);
        bGm_.SetGlobalBuffer((__gm__ int8_t*)b, static_cast<uint64_t>(t.k) * t.n);
        cGm_.SetGlobalBuffer((__gm__ int32_t*)c + GetBlockIdx() * static_cast<uint64_t>(t.m) * t.n,
                             static_cast<uint64_t>(t.m) * t.n);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < repeats_; ++r) {
            mm_->SetOrgShape(m_, n_, k_);
            mm_->SetSingleShape(m_, n_, k_);
            mm_->SetTensorA(aGm_);
            mm_->SetTensorB(bGm_);
            mm_->IterateAll(cGm_);
            mm_->End();
        }
    }

private:
    MM* mm_ = nullptr;
    GlobalTensor<int8_t> aGm_;
    GlobalTensor<int8_t> bGm_;
    GlobalTensor<int32_t> cGm_;
    uint32_t repeats_ = 0;
    uint32_t m_ = 0;
    uint32_t n_ = 0;
    uint32_t k_ = 0;
};

inline void TimelineCubeLoop(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(CubeLoopTiling, t, tiling);
    TPipe pipe;
    KernelCubeLoop::MM mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t.cube);
    KernelCubeLoop op;
    op.Init(a, b, c, t, &mm);
    op.Process();
}

template <int32_t BUFFER_NUM>
inline void TimelineCopy(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(TimelineTestTiling, t, tiling);
    KernelCopy<BUFFER_NUM> op;
    op.Init(x, y, t);
    op.Process();
}

inline void TimelineScalarRoundTrip(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(TimelineTestTiling, t, tiling);
    KernelScalarRoundTrip op;
    op.Init(x, y, t);
    op.Process();
}

}  // namespace aqo_timeline_tests
