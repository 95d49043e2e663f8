// Synthetic kernels that validate the timeline model (tests/perf/test_timeline_validation.py), written against the
// AscendC API as device kernels are, in the classic sample shape. Each isolates one effect the model must show:
//   KernelCopy<2>          GM -> UB -> GM copy, double buffered: bound by the GM bandwidth (the roofline); with
//                          passes = 2 the copy runs twice (x read twice: the second time from the L2 cache);
//   KernelCopy<1>          the same single buffered: load, move and store of a tile serialise;
//   KernelScalarRoundTrip  per 256 bytes a ReduceMax whose result the scalar unit reads (V -> S round trip), or
//                          the same vector work with one round trip per tile: the stall the round trips cost;
//   KernelCubeLoop         C = A B again and again through the Matmul API, nothing else: the cube's peak;
//   KernelCubeDecode310p   the prototype of the 310p cube decode path's main loop (A 16 x K, a column slice of B per
//                          core, B turned by TransDataTo5HD and fed to the cube from L1; the package's kernel is
//                          op_kernel/aqo_qmm_cube_decode_310p.h), kept for what the package does not do: K slices
//                          meeting after a software SyncAll (scripts/whatif_310p_cube_decode.py --emulated).
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

struct CubeDecodeTiling {
    uint32_t k;      // A's columns and B's rows (a multiple of 32, at most 4096: A fills L0A at most)
    uint32_t n;      // B's columns (cores x cols)
    uint32_t cols;   // each core's column slice (a multiple of 32; rows x cols at most 32 KiB: two slots of the chunk
                     // and two of it turned in UB, and 32 rows of it are an L0B half)
    uint32_t rows;   // b rows a chunk read and turned (32 or 64); L0B takes 32 at a time
    uint32_t ksplit; // K slices (1 or 2): with 2, the cores pair up on a column slice and meet after a SyncAll
};

// C[:, slice] = A B[:, slice] for A 16 x k int8 and B k x n int8, per core, with C left in L0C's Nz order: A to L0A
// once (through UB and L1); then per chunk of t.rows rows of the core's slice of B, double buffered: one DMA (a burst
// per row) into UB, four TransDataTo5HD per 32 rows with the slice's 32-column groups as iterations (the Zn layout:
// block n of each 32-row group holds column n's 32 K values), one copy to L1, and per 32 rows a LoadData to an L0B
// half and an accumulating Mmad. With two K slices, each of a pair of cores computes its slice's partial C, writes it
// to the workspace, meets the others at a (software: ascend310p has no hardware one) SyncAll, and sums half of the
// pair's fractals. C leaves L0C in its Nz order and goes to y as ND rows (16 x n int32), one UB -> UB copy a row.
class KernelCubeDecode310p {
public:
    static constexpr uint32_t kRows = 32;  // K rows an L0B load and an Mmad take: one fractal column
    __aicore__ inline void Init(GM_ADDR ab, GM_ADDR c, GM_ADDR ws, const CubeDecodeTiling& t, TPipe* pipe)
    {
        t_ = t;
        pipe_ = pipe;
        const uint32_t parts = GetBlockNum() / t.ksplit;
        slice_ = GetBlockIdx() / parts;
        part_ = GetBlockIdx() % parts;
        kLen_ = t.k / t.ksplit;
        const uint32_t col0 = part_ * t.cols, k0 = slice_ * kLen_;
        aGm_.SetGlobalBuffer((__gm__ int8_t*)ab + k0, 16 * t.k - k0);
        bGm_.SetGlobalBuffer((__gm__ int8_t*)ab + 16 * t.k + k0 * t.n + col0, (t.k - k0) * t.n - col0);
        cGm_.SetGlobalBuffer((__gm__ int32_t*)c, 16 * t.n);  // y: C as 16 rows of n int32
        // the workspace: the SyncAll counters (32 bytes a core), then each core's partial C
        syncGm_.SetGlobalBuffer((__gm__ int32_t*)ws, GetBlockNum() * 8);
        partGm_.SetGlobalBuffer((__gm__ int32_t*)ws + GetBlockNum() * 8, GetBlockNum() * 16 * t.cols);
        chunkBytes_ = t.rows * t.cols;
        pipe->InitBuffer(aUb_, 16 * kLen_ > 64 * t.cols ? 16 * kLen_ : 64 * t.cols);  // A, then C's int32 rows
        pipe->InitBuffer(cUb_, 16 * t.cols * 4);
        pipe->InitBuffer(aL1_, 16 * kLen_);
        pipe->InitBuffer(aL0_, 16 * kLen_);
        pipe->InitBuffer(cL0_, 16 * t.cols * 4);
        for (int s = 0; s < 2; ++s) {
            pipe->InitBuffer(bUb_[s], chunkBytes_);
            pipe->InitBuffer(turned_[s], chunkBytes_);
            pipe->InitBuffer(bL1_[s], chunkBytes_);
            pipe->InitBuffer(bL0_[s], kRows * t.cols);
            loaded_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE2_V>());
            inFree_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::V_MTE2>());
            turnedReady_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::V_MTE3>());
            turnedFree_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE3_V>());
            inL1_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE3_MTE1>());
            l1Free_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE1_MTE3>());
            inL0_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::MTE1_M>());
            l0Free_[s] = static_cast<event_t>(pipe->AllocEventID<HardEvent::M_MTE1>());
        }
    }
    __aicore__ inline void Process()
    {
        LoadA();
        const uint32_t chunks = kLen_ / t_.rows;
        CopyIn(0);
        for (uint32_t i = 0; i < chunks; ++i) {
            if (i + 1 < chunks) CopyIn(i + 1);
            Turn(i);
            ToL1(i);
            Compute(i);
        }
        for (uint32_t s = 0; s < 2 && s < chunks; ++s) {  // the slots' last hand-backs
            WaitFlag<HardEvent::V_MTE2>(inFree_[s]);
            WaitFlag<HardEvent::MTE3_V>(turnedFree_[s]);
            WaitFlag<HardEvent::MTE1_MTE3>(l1Free_[s]);
        }
        for (uint32_t s = 0; s < 2 && s < loads_; ++s) {
            WaitFlag<HardEvent::M_MTE1>(l0Free_[s]);
        }
        CopyOut();
    }

private:
    __aicore__ inline void LoadA()
    {
        LocalTensor<int8_t> a = aUb_.Get<int8_t>();
        LocalTensor<int8_t> l1 = aL1_.Get<int8_t>();
        DataCopy(a, aGm_, DataCopyParams(16, static_cast<uint16_t>(kLen_ / 32), static_cast<uint16_t>((t_.k - kLen_) / 32),
                                         0));  // this K slice of A's 16 rows
        Hand<HardEvent::MTE2_MTE3>();
        const uint32_t k1 = kLen_ / 32;
        for (uint32_t q = 0; q < k1; ++q) {  // A's 32-byte column q of its 16 rows: L0A's fractal q
            DataCopy(l1[q * 512], a[q * 32], DataCopyParams(16, 1, static_cast<uint16_t>(k1 - 1), 0));
        }
        Hand<HardEvent::MTE3_MTE1>();
        LoadData(aL0_.Get<int8_t>(), l1, LoadData2DParams(0, static_cast<uint8_t>(k1), 1, 0, 0, false, 0));
        Hand<HardEvent::MTE1_M>();
    }
    __aicore__ inline void CopyIn(uint32_t i)
    {
        const uint32_t s = i % 2;
        if (i >= 2) WaitFlag<HardEvent::V_MTE2>(inFree_[s]);
        const DataCopyParams rows(static_cast<uint16_t>(t_.rows), static_cast<uint16_t>(t_.cols / 32),
                                  static_cast<uint16_t>((t_.n - t_.cols) / 32), 0);
        DataCopy(bUb_[s].Get<int8_t>(), bGm_[i * t_.rows * t_.n], rows);
        SetFlag<HardEvent::MTE2_V>(loaded_[s]);
    }
    __aicore__ inline void Turn(uint32_t i)
    {
        const uint32_t s = i % 2;
        WaitFlag<HardEvent::MTE2_V>(loaded_[s]);
        if (i >= 2) WaitFlag<HardEvent::MTE3_V>(turnedFree_[s]);
        LocalTensor<int8_t> b = bUb_[s].Get<int8_t>();
        LocalTensor<int8_t> bt = turned_[s].Get<int8_t>();
        TransDataTo5HDParams p;
        p.repeatTimes = static_cast<uint8_t>(t_.cols / 32);
        p.srcRepStride = p.repeatTimes > 1 ? 1 : 0;   // the next 32 columns of the rows
        p.dstRepStride = p.repeatTimes > 1 ? 32 : 0;  // the next 32 columns' blocks
        for (uint32_t g = 0; g < t_.rows / 32; ++g) {  // 32-row group g: its blocks at g * cols * 32
            for (uint32_t step = 0; step < 4; ++step) {
                const bool rowsHigh = (step & 1) != 0, colsHigh = (step & 2) != 0;
                p.dstHighHalf = rowsHigh;
                p.srcHighHalf = colsHigh;
                uint64_t dl[16], sl[16];
                for (uint32_t j = 0; j < 16; ++j) {
                    sl[j] = (uint64_t)(b[(g * 32 + j + (rowsHigh ? 16 : 0)) * t_.cols].GetPhyAddr());
                    dl[j] = (uint64_t)(bt[g * t_.cols * 32 + (j + (colsHigh ? 16 : 0)) * 32].GetPhyAddr());
                }
                TransDataTo5HD<int8_t>(dl, sl, p);
                PipeBarrier<PIPE_V>();
            }
        }
        SetFlag<HardEvent::V_MTE2>(inFree_[s]);
        SetFlag<HardEvent::V_MTE3>(turnedReady_[s]);
    }
    __aicore__ inline void ToL1(uint32_t i)
    {
        const uint32_t s = i % 2;
        WaitFlag<HardEvent::V_MTE3>(turnedReady_[s]);
        if (i >= 2) WaitFlag<HardEvent::MTE1_MTE3>(l1Free_[s]);
        DataCopy(bL1_[s].Get<int8_t>(), turned_[s].Get<int8_t>(), DataCopyParams(1, static_cast<uint16_t>(chunkBytes_ / 32), 0, 0));
        SetFlag<HardEvent::MTE3_V>(turnedFree_[s]);
        SetFlag<HardEvent::MTE3_MTE1>(inL1_[s]);
    }
    __aicore__ inline void Compute(uint32_t i)
    {
        const uint32_t s = i % 2;
        WaitFlag<HardEvent::MTE3_MTE1>(inL1_[s]);
        const uint8_t fractals = static_cast<uint8_t>(t_.cols / 16);
        for (uint32_t g = 0; g < t_.rows / kRows; ++g, ++loads_) {  // 32 rows at a time through an L0B half
            const uint32_t h = loads_ % 2;
            if (loads_ >= 2) WaitFlag<HardEvent::M_MTE1>(l0Free_[h]);
            LoadData(bL0_[h].Get<int8_t>(), bL1_[s].Get<int8_t>()[g * kRows * t_.cols],
                     LoadData2DParams(0, fractals, 1, 0, 0, false, 0));
            if (g + 1 == t_.rows / kRows) SetFlag<HardEvent::MTE1_MTE3>(l1Free_[s]);
            SetFlag<HardEvent::MTE1_M>(inL0_[h]);
            WaitFlag<HardEvent::MTE1_M>(inL0_[h]);
            if (loads_ > 0) PipeBarrier<PIPE_M>();  // the previous accumulation into the same L0C
            const MmadParams mp(16, static_cast<uint16_t>(t_.cols), kRows, 0, false, loads_ == 0);
            Mmad(cL0_.Get<int32_t>(), aL0_.Get<int8_t>()[loads_ * 512], bL0_[h].Get<int8_t>(), mp);
            if (t_.cols < 160) PipeBarrier<PIPE_M>();  // C of fewer than 10 fractals: the Matmul API's barrier
            SetFlag<HardEvent::M_MTE1>(l0Free_[h]);
        }
    }
    __aicore__ inline void CopyOut()
    {
        Hand<HardEvent::M_V>();
        DataCopyEnhancedParams e;
        e.blockMode = BlockMode::BLOCK_MODE_MATRIX;
        LocalTensor<int32_t> c = cUb_.Get<int32_t>();
        DataCopy(c, cL0_.Get<int32_t>(), DataCopyParams(static_cast<uint16_t>(t_.cols / 16), 1, 0, 0), e);
        if (t_.ksplit == 1) {
            ToRows(c, t_.cols / 16, part_ * t_.cols);
            return;
        }
        // the pair's partial sums meet: each core sums half of the fractals (256 int32 each) into y
        Hand<HardEvent::V_MTE3>();
        DataCopy(partGm_[GetBlockIdx() * 16 * t_.cols], c, 16 * t_.cols);
        Hand<HardEvent::MTE3_S>();
        LocalTensor<int32_t> slots = bUb_[0].Get<int32_t>();  // the loop's buffers are free now
        SyncAll(syncGm_, slots);
        const uint32_t half = 16 * t_.cols / 2, parts = GetBlockNum() / 2, at = slice_ * half;
        LocalTensor<int32_t> mine = turned_[0].Get<int32_t>();
        LocalTensor<int32_t> other = turned_[1].Get<int32_t>();
        DataCopy(mine, partGm_[part_ * 16 * t_.cols + at], half);
        DataCopy(other, partGm_[(parts + part_) * 16 * t_.cols + at], half);
        Hand<HardEvent::MTE2_V>();
        Add(mine, mine, other, static_cast<int32_t>(half));
        ToRows(mine, t_.cols / 32, part_ * t_.cols + slice_ * t_.cols / 2);
    }
    // C's fractals [0, fractals) in UB (16 rows x 16 columns each, Nz) as ND rows into y's columns from col0: one UB ->
    // UB copy per row (a 64-byte burst per fractal; ordered for either pipe a UB copy may run on), then one DMA.
    __aicore__ inline void ToRows(const LocalTensor<int32_t>& nz, uint32_t fractals, uint32_t col0)
    {
        PipeBarrier<PIPE_V>();
        Hand<HardEvent::V_MTE3>();
        LocalTensor<int32_t> rows = aUb_.Get<int32_t>();  // A is in L0A now
        const uint32_t width = fractals * 16;
        for (uint32_t i = 0; i < 16; ++i) {
            DataCopy(rows[i * width], nz[i * 16], DataCopyParams(static_cast<uint16_t>(fractals), 2, 30, 0));
        }
        PipeBarrier<PIPE_MTE3>();
        Hand<HardEvent::V_MTE3>();
        DataCopy(cGm_[col0], rows, DataCopyParams(16, static_cast<uint16_t>(width * 4 / 32), 0,
                                                  static_cast<uint16_t>((t_.n - width) * 4 / 32)));
    }
    template <HardEvent E> __aicore__ inline void Hand()
    {
        const event_t id = static_cast<event_t>(pipe_->FetchEventID(E));
        SetFlag<E>(id);
        WaitFlag<E>(id);
    }

    CubeDecodeTiling t_{};
    TPipe* pipe_ = nullptr;
    uint32_t slice_ = 0;  // this core's K slice
    uint32_t part_ = 0;   // and column slice
    uint32_t kLen_ = 0;
    uint32_t chunkBytes_ = 0;
    uint32_t loads_ = 0;  // L0B loads (and Mmads) so far
    GlobalTensor<int8_t> aGm_;
    GlobalTensor<int8_t> bGm_;
    GlobalTensor<int32_t> cGm_;
    GlobalTensor<int32_t> syncGm_;
    GlobalTensor<int32_t> partGm_;
    TBuf<TPosition::VECCALC> aUb_;
    TBuf<TPosition::VECCALC> cUb_;
    TBuf<TPosition::VECCALC> bUb_[2];
    TBuf<TPosition::VECCALC> turned_[2];
    TBuf<TPosition::A1> aL1_;
    TBuf<TPosition::B1> bL1_[2];
    TBuf<TPosition::A2> aL0_;
    TBuf<TPosition::B2> bL0_[2];
    TBuf<TPosition::CO1> cL0_;
    event_t loaded_[2] = {};
    event_t inFree_[2] = {};
    event_t turnedReady_[2] = {};
    event_t turnedFree_[2] = {};
    event_t inL1_[2] = {};
    event_t l1Free_[2] = {};
    event_t inL0_[2] = {};
    event_t l0Free_[2] = {};
};

inline void TimelineCubeDecode310p(GM_ADDR ab, GM_ADDR c, GM_ADDR ws, GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(CubeDecodeTiling, t, tiling);
    TPipe pipe;
    KernelCubeDecode310p op;
    op.Init(ab, c, ws, t, &pipe);
    op.Process();
}

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
