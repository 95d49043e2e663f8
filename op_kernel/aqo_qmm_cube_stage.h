// The cube stage of the quantized matmuls (AqoQLinearMatMul, AqoQuantMatMul): the products of (a - a_zp) and
// (b - b_zp), exact and wrapped to int32, block by block for the epilogue, on every SoC (the plan:
// op_host/tiling_core/matmul_cube_plan.h; the tiling fields: matmul_cube_tiling_fields.h).
//
//   * a worker (a vector core on 910b / 950, the AI core on 310p) owns a contiguous range of y's base blocks
//     (stripM rows x baseN columns, N fastest): the blocks are split over the cube cores, and a cube core's over its
//     two vector workers (it serves their requests one at a time); a worker cuts its range into cube calls of one
//     strip and at most callBlocks blocks (split SoCs: the last calls shrink, each about two thirds of what is left);
//   * operands: uint8 the cube cannot take is mapped (v ^ 0x80, as v -/+ 128 in half: exact), and a strip of a whose
//     zero points are needed gets a ones row before its rows (the column sums of B come with the product, C row 0);
//     the row sums of a strip are summed on the vector unit while it is read, and turned into the correction's row
//     terms (two broadcast blocks per row, read by the vector correction). Shared preparation (split SoCs, the plan's
//     sharedPrep): every worker prepares an even share of all rows of a (and of b) before the calls, and a hardware
//     SyncAll publishes them (no SyncAll when nothing is prepared). Private preparation (310p, which has no hardware
//     SyncAll; split SoCs for one strip whose per-worker copies are small: decode): a worker prepares the strip of
//     each of its calls in its own slot, and on 310p a uint8 b's columns of the call (MapSlab) when they change;
//     with one y matrix of one strip a worker decides from its own columns' b zero points whether it needs a's row
//     sums, and on split SoCs sends its request as soon as the prepared rows are in GM (Prepare);
//   * a call: split SoCs, one asynchronous IterateAll (waitIterateAll) of all its blocks into one of the worker's two
//     C areas ([rows, cols] int32, continuous), requested before the previous call's epilogue, so that the cube core
//     runs its blocks without a pause and always has the other worker's call or this worker's next one queued; the
//     worker waits once, at the call's first block (WaitIterateAll); 310p, one synchronous IterateAll of the call
//     into its C area (the API overlaps a block's operand loads with its cube work, but writes each block's C to GM
//     row by row and waits for that write before the next block's loads; the AI core's one scalar unit issues the
//     cube's work and the epilogue's in turn);
//   * the epilogue reads a block's rows in chunks of rowsPerChunk x cStride (CopyInRows), corrects the zero-point
//     terms (aqo_qmm_zero_point.h) and converts int32 to float32 exactly (ToFloat), then the operator's stage.
//
// No include guard (see aqo_kernel_common.h). Needs aqo_kernel_common.h, aqo_qmm_common.h, aqo_qmm_zero_point.h.

// The Matmul configuration: NORM with the intrinsic check on (intrinsicsLimit), so that the API copies A's and B's
// rows into L1 one by one when a row stride (K of a, N of b, K of a transposed b: 65536 and more happen, e.g.
// N = 152064) does not fit the 16-bit stride field of its GM -> L1 copy.
struct QmmCubeConfig {
    static constexpr MatmulConfig kNorm = GetNormalConfig(true);
};

// The cube's accumulator: int32 for 8-bit integers, float32 for float8 pairs (ascend910_95).
template <class AT>
struct QmmAcc {
    using T = int32_t;
    static constexpr bool kFloat = false;
};
#if AQO_SOC_HAS_FP8
template <>
struct QmmAcc<fp8_e4m3fn_t> {
    using T = float;
    static constexpr bool kFloat = true;
};
template <>
struct QmmAcc<fp8_e5m2_t> {
    using T = float;
    static constexpr bool kFloat = true;
};
#endif

// The Matmul object of a cube call: A [rows, K] and B [K, N] (TRANS: stored [N, K]) from GM, C to one of the worker's
// C areas in GM (split SoCs: an asynchronous IterateAll per call; 310p: a synchronous IterateAll per call).
// C's format: ND on the split SoCs (the fixpipe writes any width). ascend310p writes C back from UB, and for a block
// width that is not whole 16-column fractal rows of the int32 C its ND tail copy is wrong (copy_cube_out_datacopy_
// wrapper.h CopyLocal2GMNZ2NDRegMov: a 2-byte C's loop counts, so the row's last 8 columns come from the next row);
// ND_ALIGN writes whole fractal rows instead, the padding columns into the C area's slack (cOrgN >= the call's
// blocks, a multiple of 32), which the epilogue never uses.
#if AQO_SOC_SPLIT_CORES
constexpr CubeFormat kQmmCFormat = CubeFormat::ND;
#else
constexpr CubeFormat kQmmCFormat = CubeFormat::ND_ALIGN;
#endif

template <class AT, class BT, bool TRANS>
struct QmmCube {
    using AccT = typename QmmAcc<AT>::T;
    using CType = MatmulType<TPosition::GM, kQmmCFormat, AccT>;
    using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, AccT>;  // no bias
    using MM = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, AT>, MatmulType<TPosition::GM, CubeFormat::ND, BT, TRANS>,
                      CType, BiasType, QmmCubeConfig::kNorm>;
};

// The y batch matrix `index` (row-major over batchDims) as matrix indices of a and b (numpy broadcasting).
template <class TD>
__aicore__ inline void QmmBatchOperands(const TD& t, uint64_t index, uint64_t* ai, uint64_t* bj)
{
    uint64_t x = 0, z = 0;
    for (uint32_t d = t.batchRank; d-- > 0;) {
        const uint64_t i = index % t.batchDims[d];
        index /= t.batchDims[d];
        x += i * t.aBatchStrides[d];
        z += i * t.bBatchStrides[d];
    }
    *ai = x;
    *bj = z;
}

// One cube call: a strip of a matrix ai against columns [n0, n0 + cols) of b matrix bj, for y batch matrix bi.
struct QmmCall {
    uint64_t bi = 0, ai = 0, bj = 0;
    uint32_t strip = 0;  // strip of the a matrix
    uint32_t m0 = 0;     // its first row in the matrix
    uint32_t rows = 0;
    uint32_t nb0 = 0;    // first N block
    uint32_t blocks = 0;
    uint32_t n0 = 0;
    uint32_t cols = 0;
    uint32_t area = 0;   // split SoCs: the worker's C area the call's request writes (two, used in turn)
    uint64_t slot = 0;   // its prepared strip's slot (row terms)
};

// One block of a call, as the epilogue reads it: `rows` data rows of `cols` columns from C row dataRow on (row 0 holds
// the column sums when the strip has its ones row), row stride rowStride elements.
template <class AccT>
struct QmmBlock {
    GlobalTensor<AccT> c;
    uint32_t rowStride = 0;
    uint32_t dataRow = 0;
    uint32_t n0 = 0;
    uint32_t cols = 0;
    bool zero = false;  // K = 0: no cube, acc = 0
};

template <class TD, class AT, class BT, bool TRANS>
class QmmCubeStage {
public:
    using Cube = QmmCube<AT, BT, TRANS>;
    using MM = typename Cube::MM;
    using AccT = typename Cube::AccT;
    static constexpr bool kFloatCube = QmmAcc<AT>::kFloat;
    // Split SoCs request a call's product ahead: the next call's IterateAll goes out before the epilogue of the
    // current one (into the other C area), so that the cube core always has work queued.
    static constexpr bool kRequestAhead = AQO_SOC_SPLIT_CORES != 0;

    // 310p: the Matmul API's local workspace (its C write-back and ND-to-NZ staging) is the first UB allocation, at
    // UB address 0 since the TilingFunc sets the tiling's shareUbSize to 0 (the API's Init reserves that much of the
    // TPipe's pool first); without SetLocalWorkspace the API would write through UB address 0, over the kernel's
    // buffers.
    __aicore__ inline void InitLocalWorkspace(const TD& t, TPipe* pipe, MM* mm)
    {
        if (t.ubMatmulWs != 0) {
            pipe->InitBuffer(mmWsBuf_, t.ubMatmulWs);
            mm->SetLocalWorkspace(mmWsBuf_.Get<uint8_t>());
        }
    }

    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR userWs, const TD& t, TPipe* pipe, MM* mm,
                                QmmZeroPoints<TD>* zp)
    {
        t_ = &t;
        pipe_ = pipe;
        mm_ = mm;
        zp_ = zp;
        worker_ = static_cast<uint32_t>(GetBlockIdx());
        workers_ = t.usedCores * t.workersPerCore;
        aElems_ = static_cast<uint64_t>(t.aMatrices) * t.m * t.k;
        bElems_ = static_cast<uint64_t>(t.bMatrices) * t.k * t.n;
        aRaw_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(a), aElems_);
        bRaw_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(b), bElems_);
        aGm_.SetGlobalBuffer(reinterpret_cast<__gm__ AT*>(a), aElems_);
        bGm_.SetGlobalBuffer(reinterpret_cast<__gm__ BT*>(b), bElems_);
        const uint64_t prepA = t.wsPrepBOffset - t.wsPrepAOffset;
        if (prepA != 0) {
            prepRaw_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(userWs + t.wsPrepAOffset), prepA);
            prepA_.SetGlobalBuffer(reinterpret_cast<__gm__ AT*>(userWs + t.wsPrepAOffset), prepA);
        }
        const uint64_t prepB = t.wsRaOffset - t.wsPrepBOffset;  // all of b (split SoCs) or every core's slot (310p)
        if (prepB != 0) {
            prepBRaw_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(userWs + t.wsPrepBOffset), prepB);
            prepB_.SetGlobalBuffer(reinterpret_cast<__gm__ BT*>(userWs + t.wsPrepBOffset), prepB);
        }
        const uint64_t raBytes = t.wsCOffset - t.wsRaOffset;
        if (raBytes != 0) {
            rtGm_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(userWs + t.wsRaOffset), raBytes / 4);
        }
        if (t.wsCPerWorker != 0 && worker_ < workers_) {
            cArea_.SetGlobalBuffer(
                reinterpret_cast<__gm__ AccT*>(userWs + t.wsCOffset + static_cast<uint64_t>(worker_) * t.wsCPerWorker),
                t.wsCPerWorker / sizeof(AccT));
        }
        pipe->InitBuffer(cInQue_, 2, t.ubCIn);
        pipe->InitBuffer(tmpBuf_, t.ubTmp);
        pipe->InitBuffer(cbBuf_, t.ubColI32);
        pipe->InitBuffer(raBuf_, t.ubRowI32);
        if (t.ubRowTerms != 0) {
            pipe->InitBuffer(rtBuf_, t.ubRowTerms);
        }
        pipe->InitBuffer(prepInBuf_, t.ubPrepIn);
        pipe->InitBuffer(prepHalfBuf_, t.ubPrepHalf);
        pipe->InitBuffer(prepOutBuf_, t.ubPrepOut);
        tmp_ = tmpBuf_.Get<float>();
        cb_ = cbBuf_.Get<int32_t>();
        ra_ = raBuf_.Get<int32_t>();
        if (t.ubRowTerms != 0) {
            rt_ = rtBuf_.Get<int32_t>();
        }
        prepIn_ = prepInBuf_.Get<uint8_t>();
        prepHalf_ = prepHalfBuf_.Get<half>();
        prepOut_ = prepOutBuf_.Get<uint8_t>();
        // This worker's blocks: the blocks split over the cube cores, then a cube core's over its workers (it serves
        // their requests one at a time), each balanced to one block.
        if (worker_ < workers_) {
            const uint64_t core = worker_ / t.workersPerCore, sub = worker_ % t.workersPerCore;
            const uint64_t q = t.unitCount / t.usedCores, r = t.unitCount % t.usedCores;
            const uint64_t len = q + (core < r ? 1 : 0);
            const uint64_t sq = len / t.workersPerCore, sr = len % t.workersPerCore;
            uBegin_ = core * q + (core < r ? core : r) + sub * sq + (sub < sr ? sub : sr);
            uEnd_ = uBegin_ + sq + (sub < sr ? 1 : 0);
        }
        u_ = uBegin_;
        segEnd_ = uEnd_;
        if (t.roundRanges != 0 && worker_ < workers_) {
            // Rounds: whole strip rows first, rounds x usedCores of them, each core a contiguous rounds of them; then
            // the blocks after them split evenly as above (QmmWorkerRanges in matmul_cube_plan.h computes the same).
            const uint64_t rounds = static_cast<uint64_t>(t.batch) * t.strips / t.usedCores;
            const uint64_t whole = rounds * t.nBlocks;
            const uint64_t rest = t.unitCount - whole * t.usedCores;
            const uint64_t q = rest / t.usedCores, r = rest % t.usedCores;
            roundBegin_ = worker_ * whole;
            roundEnd_ = roundBegin_ + whole;
            uBegin_ = whole * t.usedCores + worker_ * q + (worker_ < r ? worker_ : r);
            uEnd_ = uBegin_ + q + (worker_ < r ? 1 : 0);
            NextSegment();
        }
    }

    // Before the calls: which zero-point terms the launch needs (from the zero points' values), and with shared
    // preparation every worker's share of the prepared operands, published by a SyncAll (every vector core reaches
    // it).
    __aicore__ inline void Prepare()
    {
        // b's zero points: a private preparer of one y matrix's one strip (its units are N blocks: its columns) reads
        // its own columns' only; every other launch all of them (shared: every worker must decide the same).
        const TD& t = *t_;
        const bool oneStrip = t.sharedPrep == 0 && t.unitCount == t.nBlocks;
        bFirst_ = 0;
        bEnd_ = zp_->BZeroPointCount();
        if (oneStrip && t.bZpKind == kQmmParamVector) {
            const uint64_t c0 = uBegin_ * t.baseN, c1 = uEnd_ * t.baseN;
            bFirst_ = c0 < t.n ? c0 : t.n;
            bEnd_ = c1 < t.n ? c1 : t.n;
        }
        // A uint8 a is prepared whatever its zero points: the one strip's first load goes out before anything else
        // (PrepareStrip's first step; a's zero points are then read by the scalar unit alone, not through prepIn_).
        if (kRequestAhead && oneStrip && t.mapA != 0 && t.k != 0 && !kFloatCube && t.aZpKind != kQmmParamVector &&
            uBegin_ < uEnd_) {
            LoadStripStep(0, 0, QmmMin(t.stripM, t.m), 0, 0);
            prefetched_ = true;
        }
        const LocalTensor<half> work = prepOut_.template ReinterpretCast<half>();
        zp_->DecideColumnSums(prepIn_, prepHalf_, work);
        needCB_ = zp_->NeedColumnSums();
        prepare_ = !kFloatCube && t_->k != 0 && (t_->mapA != 0 || needCB_);
        // A split-SoC worker that prepares its one strip for itself sends its cube request as soon as the prepared
        // strip is in GM: its b zero points' scan, and the row terms that depend on it, follow the request (the strip
        // pass sums a's rows meanwhile, in case they are needed).
        deferRowSums_ = kRequestAhead && oneStrip && prepare_ && t.bZpKind == kQmmParamVector;
        if (deferRowSums_) {
            needRA_ = true;  // the strip pass sums the rows; the scan after the request decides whether they are used
        } else {
            zp_->DecideRowSums(prepIn_, prepHalf_, work, bFirst_, bEnd_);
            needRA_ = zp_->NeedRowSums();
        }
        // Every worker decides the same (the same zero points, the same tiling): either all reach the SyncAll or none.
        const bool shared = t_->sharedPrep != 0 && t_->k != 0 && !kFloatCube && (prepare_ || needRA_ || t_->mapB != 0);
        if (shared) {
            if (worker_ < workers_) {
                PrepareShared();
            }
            SyncAll<true>();  // every worker's prepared rows, row terms and mapped b are in GM for every worker
        }
    }

    // The next call of this worker; false when its range is done.
    __aicore__ inline bool NextCall(QmmCall* c)
    {
        const TD& t = *t_;
        if (u_ >= segEnd_ && t.roundRanges != 0) {
            NextSegment();
        }
        if (u_ >= segEnd_) {
            return false;
        }
        const uint64_t perMatrix = static_cast<uint64_t>(t.strips) * t.nBlocks;
        c->bi = u_ / perMatrix;
        c->strip = static_cast<uint32_t>(u_ / t.nBlocks % t.strips);
        c->nb0 = static_cast<uint32_t>(u_ % t.nBlocks);
        uint64_t blocks = t.nBlocks - c->nb0;
        blocks = blocks < segEnd_ - u_ ? blocks : segEnd_ - u_;
        blocks = blocks < t.callBlocks ? blocks : t.callBlocks;
        if (kRequestAhead) {
            // A call's epilogue starts when all its blocks are done: the last calls shrink (each about two thirds
            // of what is left), so that the one whose epilogue ends the launch is short.
            const uint64_t left = segEnd_ - u_;
            const uint64_t shrink = (2 * left + 1) / 3;
            blocks = blocks < shrink ? blocks : shrink;
        }
        c->blocks = static_cast<uint32_t>(blocks);
        QmmBatchOperands(t, c->bi, &c->ai, &c->bj);
        c->m0 = c->strip * t.stripM;
        c->rows = QmmMin(t.stripM, t.m - c->m0);
        c->n0 = c->nb0 * t.baseN;
        const uint32_t end = QmmMin(t.n, (c->nb0 + c->blocks) * t.baseN);
        c->cols = end - c->n0;
        u_ += blocks;
        return true;
    }

    // Requests call c's product: its strip prepared (private preparation), its operands set, and on split SoCs one
    // asynchronous
    // IterateAll of all its blocks into the next C area (the cube core computes them from now on, block after block
    // without a pause; the worker waits once, at the call's first block), then a deferred row-sum decision and row
    // terms (Prepare). 310p computes the call later, at its first block (NextBlock).
    __aicore__ inline void Request(QmmCall* call)
    {
        const TD& t = *t_;
        QmmCall& c = *call;
        c.slot = 0;
        if (t.k == 0) {
            return;
        }
        // The C area's previous reads (the epilogue's DMAs two calls ago) are complete before the cube is asked to
        // write it again; the first request has none (a prefetched strip load may still be in flight).
        if (requested_) {
            aqo_kernel::WaitPipe<HardEvent::MTE2_S>(pipe_);
        }
        requested_ = true;
        const bool privateB = !kFloatCube && t.mapB != 0 && t.sharedPrep == 0;
        if (privateB && (!haveSlab_ || slabBj_ != c.bj || slabN0_ != c.n0 || slabCols_ != c.cols)) {
            MapSlab(c);
            haveSlab_ = true;
            slabBj_ = c.bj;
            slabN0_ = c.n0;
            slabCols_ = c.cols;
            aqo_kernel::WaitPipe<HardEvent::MTE3_S>(pipe_);  // the slab is in GM before the cube reads it
        }
        if (!kFloatCube && (prepare_ || needRA_)) {
            if (t.sharedPrep != 0) {
                c.slot = c.ai * t.strips + c.strip;
            } else {
                c.slot = worker_;
                if (!havePrivate_ || privateAi_ != c.ai || privateStrip_ != c.strip) {
                    PrepareStrip(c.ai, c.strip, c.slot, 0, c.rows, deferRowSums_);
                    havePrivate_ = true;
                    privateAi_ = c.ai;
                    privateStrip_ = c.strip;
                }
            }
            aqo_kernel::WaitPipe<HardEvent::MTE3_S>(pipe_);
        }
        // Operands.
        GlobalTensor<AT> aOp;
        uint32_t lda = t.k;
        uint32_t rowsA = c.rows;
        if (prepare_) {
            const uint64_t at = c.slot * t.prepAStripBytes + (needCB_ ? 0 : static_cast<uint64_t>(t.onesRow) * t.kPad);
            aOp = prepA_[at];
            lda = t.kPad;
            rowsA += needCB_ ? 1 : 0;
        } else {
            aOp = aGm_[(c.ai * t.m + c.m0) * t.k];
        }
        const uint64_t bBase = c.bj * t.k * t.n + (TRANS ? static_cast<uint64_t>(c.n0) * t.k : c.n0);
        GlobalTensor<BT> bOp = t.mapB ? prepB_[bBase] : bGm_[bBase];
        uint32_t ldb = t.n;  // B's org N: its row stride ([K, N]) or its rows ([N, K], row stride K)
        if (privateB) {
            bOp = prepB_[static_cast<uint64_t>(worker_) * t.prepBBytes];
            ldb = TRANS ? c.cols : AlignUp32(c.cols);
        }
        // B [K, N] (row stride N) or transposed [N, K] (row stride K): SetOrgShape(orgM, orgN, orgKa, orgKb, orgKc).
#if AQO_SOC_SPLIT_CORES
        // C of the call: [rowsA, cols] contiguous in its area (row stride cols).
        c.area = nextArea_;
        nextArea_ ^= 1u;
        mm_->SetOrgShape(rowsA, ldb, lda, t.k, c.cols);
        mm_->SetSingleShape(rowsA, c.cols, t.k);
        mm_->SetTensorA(aOp);
        mm_->SetTensorB(bOp, TRANS);
        mm_->template IterateAll<false>(cArea_[static_cast<uint64_t>(c.area) * (t.wsCPerWorker / 2 / sizeof(AccT))], 0,
                                        false, true);  // waitIterateAll: the cube notifies the call's end
        if (deferRowSums_) {
            // Under the cube's work: whether this worker's columns need a's row sums, then the strip's row terms
            // (BeginCall reads them back: its V_MTE2 wait comes after WriteRowTerms' MTE3_V wait, so after their DMA).
            deferRowSums_ = false;
            zp_->DecideRowSums(prepIn_, prepHalf_, prepOut_.template ReinterpretCast<half>(), bFirst_, bEnd_);
            needRA_ = zp_->NeedRowSums();
            if (zp_->NeedCorrection()) {
                WriteRowTerms(c.ai, c.m0, c.slot, 0, c.rows, t.kPad <= t.prepChunk);
            }
        }
#else
        mm_->SetOrgShape(rowsA, ldb, lda, t.k, t.cOrgN);
        mm_->SetSingleShape(rowsA, c.cols, t.k);
        mm_->SetTensorA(aOp);
        mm_->SetTensorB(bOp, TRANS);
#endif
    }

    // Starts the epilogue of a requested call: the strip's row terms loaded for the correction (the previous call's
    // correction read rt_).
    __aicore__ inline void BeginCall(const QmmCall& c)
    {
        const TD& t = *t_;
        call_ = c;
        block_ = 0;
        if (t.k != 0 && zp_->NeedCorrection()) {
            // The strip's row terms (two broadcast blocks per row, PrepareStrip) for the vector correction.
            aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);
            DataCopy(rt_, rtGm_[c.slot * (t.raStripBytes / 4)], c.rows * kQmmRowTermInts);
            aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);
        }
    }

    // The call's next block (in N order), once the cube has written it.
    __aicore__ inline QmmBlock<AccT> NextBlock()
    {
        const TD& t = *t_;
        QmmBlock<AccT> blk;
        blk.n0 = call_.n0 + block_ * t.baseN;
        blk.cols = QmmMin(t.baseN, call_.n0 + call_.cols - blk.n0);
        blk.dataRow = (prepare_ && needCB_) ? 1u : 0u;
        if (t.k == 0) {
            blk.zero = true;
            ++block_;
            return blk;
        }
#if AQO_SOC_SPLIT_CORES
        if (block_ == 0) {
            mm_->WaitIterateAll();  // the call's product is in its C area (the oldest request in flight)
        }
        blk.c = cArea_[static_cast<uint64_t>(call_.area) * (t.wsCPerWorker / 2 / sizeof(AccT)) +
                       static_cast<uint64_t>(block_) * t.baseN];
        blk.rowStride = call_.cols;
#else
        if (block_ == 0) {
            // One synchronous IterateAll of the call's blocks, each at its place in the call's C (row stride cOrgN).
            // ascend310p's IterateAll is a loop of Iterate + GetTensorC(gm) with an MTE3 -> MTE2 wait after each
            // block (matmul_impl.h, enableUBReuse): a block's B tiles load under its own cube work, but the next
            // block's loads wait until this block's C, written one DMA per row, is in GM.
            mm_->IterateAll(cArea_);
            // The epilogue's MTE2 reads of these bytes must follow the API's MTE3 writes. With this config (UB
            // reuse) the API itself waits MTE3 -> MTE2 after each block (matmul_impl.h); the explicit wait keeps
            // that order independent of the config's internals (it costs one flag per call).
            aqo_kernel::WaitPipe<HardEvent::MTE3_MTE2>(pipe_);
        }
        blk.c = cArea_[static_cast<uint64_t>(block_) * t.baseN];
        blk.rowStride = t.cOrgN;
#endif
        ++block_;
        return blk;
    }

    __aicore__ inline void EndCall()
    {
        if (t_->k == 0) {
            return;
        }
        mm_->End();
    }

    // The block's column sums (C row 0 of a strip with its ones row) into cb_, when some a zero point needs them.
    __aicore__ inline void LoadColumnSums(const QmmBlock<AccT>& blk)
    {
        if (!needCB_ || blk.zero) {
            return;
        }
        aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);  // cb_ may still be read by the previous block's correction
        CopyRows(cb_.template ReinterpretCast<AccT>(), blk, 0, 1);
        aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);
    }

    // Rows [r0, r0 + rows) of the block's data (row stride cStride in UB; columns past cols undefined); DeQue'd.
    __aicore__ inline LocalTensor<AccT> CopyInRows(const QmmBlock<AccT>& blk, uint32_t r0, uint32_t rows)
    {
        LocalTensor<AccT> c = cInQue_.template AllocTensor<AccT>();
        if (blk.zero) {
            Duplicate(c, static_cast<AccT>(0), rows * t_->cStride);  // K = 0: the empty sum
        } else {
            CopyRows(c, blk, blk.dataRow + r0, rows);
        }
        cInQue_.EnQue(c);
        return cInQue_.template DeQue<AccT>();
    }

    __aicore__ inline void FreeRows(LocalTensor<AccT>& c) { cInQue_.FreeTensor(c); }

    // The zero-point terms of a chunk (rows r0.. of the strip), in int32.
    __aicore__ inline void Correct(const LocalTensor<AccT>& acc, uint32_t r0, uint32_t rows, uint32_t cols)
    {
        if constexpr (!kFloatCube) {
            zp_->Correct(acc, tmp_.template ReinterpretCast<int32_t>(), rt_, cb_, r0, rows, cols);
        }
    }

    // float32(acc) of a chunk, in place: the correctly rounded conversion (round to nearest even), on every SoC.
    // 910b / 950 have it (CAST_RINT). 310p's int32 -> float32 Cast is mode-less (CAST_NONE) and its rounding of values
    // beyond 2^24 undocumented: there, when |acc| may pass 2^24, acc is split into its low 16 bits and the rest, both
    // exact in float32, added once (one correctly rounded IEEE addition), whatever that Cast rounds to.
    __aicore__ inline LocalTensor<float> ToFloat(const LocalTensor<AccT>& acc, uint32_t elems)
    {
        if constexpr (kFloatCube) {
            return acc;
        } else {
            PipeBarrier<PIPE_V>();
            return QmmInt32ToFloat(acc, tmp_, elems, t_->exactConvert != 0);
        }
    }

    __aicore__ inline LocalTensor<float> Scratch() const { return tmp_; }
    // The preparation buffers, free outside Prepare and a strip's preparation: the zero points' loads use them
    // (every use is ordered by explicit flags, no queue).
    __aicore__ inline LocalTensor<uint8_t> StagingIn() const { return prepIn_; }
    __aicore__ inline LocalTensor<half> StagingHalf() const { return prepHalf_; }

private:
    // rows x cStride elements of the block from C row `row` on into dst (row stride cStride).
    __aicore__ inline void CopyRows(const LocalTensor<AccT>& dst, const QmmBlock<AccT>& blk, uint32_t row,
                                    uint32_t rows)
    {
        const uint32_t stride = t_->cStride;
        const GlobalTensor<AccT> src = blk.c[static_cast<uint64_t>(row) * blk.rowStride];
        if (blk.rowStride == stride && blk.cols == stride) {
            DataCopy(dst, src, rows * stride);  // rows contiguous in GM and in UB: one burst
            return;
        }
#if AQO_SOC_HAS_DATACOPYPAD
        const uint32_t rowBytes = blk.cols * static_cast<uint32_t>(sizeof(AccT));
        DataCopyExtParams prm(static_cast<uint16_t>(rows), rowBytes, (blk.rowStride - blk.cols) * sizeof(AccT),
                              (stride * static_cast<uint32_t>(sizeof(AccT)) - AlignUp32(rowBytes)) / kBlockBytes, 0);
        DataCopyPadExtParams<AccT> pad(false, 0, 0, static_cast<AccT>(0));
        DataCopyPad(dst, src, prm, pad);
#else
        // C rows are 32-byte aligned here (cOrgN and baseN multiples of 8): whole rows of cStride elements (the
        // columns past the block are the next block's or unused bytes of the area).
        const uint16_t len = static_cast<uint16_t>(stride * sizeof(AccT) / kBlockBytes);
        DataCopyParams prm(static_cast<uint16_t>(rows), len,
                           static_cast<uint16_t>((blk.rowStride - stride) * sizeof(AccT) / kBlockBytes), 0);
        DataCopy(dst, src, prm);
#endif
    }

    // ---- preparation ----
    // Split SoCs: this worker's share of the strips of every a matrix and of b's bytes.
    __aicore__ inline void PrepareShared()
    {
        const TD& t = *t_;
        if (prepare_ || needRA_) {
            // An even share of all rows of a (whole rows; a strip's ones row goes with its first row), strip by strip.
            const uint64_t rowsAll = static_cast<uint64_t>(t.aMatrices) * t.m;
            const uint64_t r0 = rowsAll * worker_ / workers_, r1 = rowsAll * (worker_ + 1) / workers_;
            uint64_t r = r0;
            while (r < r1) {
                const uint64_t ai = r / t.m;
                const uint32_t strip = static_cast<uint32_t>(r % t.m / t.stripM);
                const uint32_t m0 = strip * t.stripM;
                const uint32_t stripRows = QmmMin(t.stripM, t.m - m0);
                const uint32_t lo = static_cast<uint32_t>(r % t.m) - m0;
                const uint64_t left = r1 - r;
                const uint32_t hi = left < stripRows - lo ? lo + static_cast<uint32_t>(left) : stripRows;
                PrepareStrip(ai, strip, ai * t.strips + strip, lo, hi);
                r += hi - lo;
            }
        }
        if (t.mapB != 0) {
            const uint64_t blocks = (bElems_ + kBlockBytes - 1) / kBlockBytes;
            const uint64_t b0 = blocks * worker_ / workers_ * kBlockBytes;
            uint64_t b1 = blocks * (worker_ + 1) / workers_ * kBlockBytes;
            b1 = b1 < bElems_ ? b1 : bElems_;
            for (uint64_t off = b0; off < b1; off += t.prepChunk) {
                const uint32_t len = static_cast<uint32_t>(b1 - off < t.prepChunk ? b1 - off : t.prepChunk);
                aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);  // the previous chunk's Cast read prepIn_
                QmmCopyBytesIn(prepIn_, bRaw_, off, len, bElems_);
                aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);
                const uint32_t padded = AlignUp32(len);
                PipeBarrier<PIPE_V>();  // prepHalf_ may still be read by the previous chunk's Cast
                MapToHalf(prepHalf_, prepIn_, padded, t.bCode, t.zpShiftB);
                aqo_kernel::WaitPipe<HardEvent::MTE3_V>(pipe_);  // the previous chunk's copy-out read prepOut_
                PipeBarrier<PIPE_V>();
                FromHalf(prepOut_, prepHalf_, padded, t.cubeBCode);
                aqo_kernel::WaitPipe<HardEvent::V_MTE3>(pipe_);
                DataCopy(prepBRaw_[off], prepOut_, padded);  // the region is a 32-byte multiple
            }
        }
    }

    // 310p: b's columns of call c mapped into this core's slot: [K, AlignUp32(cols)] (or [cols, K] when b is stored
    // transposed: contiguous), several rows per step.
    __aicore__ inline void MapSlab(const QmmCall& c)
    {
        const TD& t = *t_;
        const uint64_t slot = static_cast<uint64_t>(worker_) * t.prepBBytes;
        if (TRANS) {
            const uint64_t src = (c.bj * t.n + c.n0) * t.k;
            const uint64_t bytes = static_cast<uint64_t>(c.cols) * t.k;
            for (uint64_t off = 0; off < bytes; off += t.prepChunk) {
                const uint32_t len = static_cast<uint32_t>(bytes - off < t.prepChunk ? bytes - off : t.prepChunk);
                MapStep(src + off, len, 1, 0, slot + off);
            }
            return;
        }
        const uint32_t colsPad = AlignUp32(c.cols);
        const uint32_t rowsPerStep = t.prepChunk / colsPad;  // >= 1: a call is at most prepChunk bytes wide
        for (uint32_t r = 0; r < t.k; r += rowsPerStep) {
            const uint32_t nr = QmmMin(rowsPerStep, t.k - r);
            MapStep((c.bj * t.k + r) * t.n + c.n0, c.cols, nr, colsPad, slot + static_cast<uint64_t>(r) * colsPad);
        }
    }

    // One mapping step of b: nr rows of len bytes, t.n apart in b from src (nr == 1: one contiguous run), into UB rows
    // colsPad apart, mapped, then written to the workspace at dst (rows colsPad apart, i.e. contiguous).
    __aicore__ inline void MapStep(uint64_t src, uint32_t len, uint32_t nr, uint32_t colsPad, uint64_t dst)
    {
        const TD& t = *t_;
        const uint32_t padded = AlignUp32(len);
        const uint32_t rowStride = nr == 1 ? padded : colsPad;
        aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);  // the previous step's Cast read prepIn_
        if (nr > 1 && t.n % kBlockBytes == 0 && (t.n - colsPad) / kBlockBytes <= 65535u) {
            // Whole 32-byte blocks on a block grid: one 2-D copy (the last row's read ends inside b: n0 + colsPad
            // <= N).
            DataCopyParams prm(static_cast<uint16_t>(nr), static_cast<uint16_t>(colsPad / kBlockBytes),
                               static_cast<uint16_t>((t.n - colsPad) / kBlockBytes), 0);
            DataCopy(prepIn_, bRaw_[src], prm);
        } else {
            for (uint32_t i = 0; i < nr; ++i) {
                QmmCopyBytesIn(prepIn_[i * rowStride], bRaw_, src + static_cast<uint64_t>(i) * t.n, len, bElems_);
            }
        }
        aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);
        const uint32_t elems = nr * rowStride;
        PipeBarrier<PIPE_V>();  // prepHalf_ may still be read by the previous step's Cast
        MapToHalf(prepHalf_, prepIn_, elems, t.bCode, t.zpShiftB);
        aqo_kernel::WaitPipe<HardEvent::MTE3_V>(pipe_);  // the previous step's copy-out read prepOut_
        PipeBarrier<PIPE_V>();
        FromHalf(prepOut_, prepHalf_, elems, t.cubeBCode);
        aqo_kernel::WaitPipe<HardEvent::V_MTE3>(pipe_);
        DataCopy(prepBRaw_[dst], prepOut_, elems);
    }

    // Prepares rows [lo, hi) of strip `strip` of a matrix ai into slot `slot`: their rows of the prepared strip, each
    // kPad bytes (mapped when mapA; the strip's ones row first when lo == 0), as needed, and their row terms (the
    // correction's per-row factors, RowTerms) into the slot's row-term area. termsLater: the caller writes the row
    // terms itself after its cube request (the deferred decision, Prepare), and the steps put the prepared rows'
    // copy-out ahead of the row sums (the request waits for the rows alone).
    __aicore__ inline void PrepareStrip(uint64_t ai, uint32_t strip, uint64_t slot, uint32_t lo, uint32_t hi,
                                        bool termsLater = false)
    {
        const TD& t = *t_;
        const uint32_t m0 = strip * t.stripM;
        const uint64_t srcRow0 = (ai * t.m + m0);
        const uint64_t dst0 = slot * t.prepAStripBytes;
        const uint32_t kPad = t.kPad;
        const uint32_t chunk = t.prepChunk;
        const uint64_t data0 = dst0 + static_cast<uint64_t>(t.onesRow) * kPad;
        // A row in one step (kPad <= chunk): its float32 sum is its row sum, kept by the vector unit in rt_ (free
        // until the calls) and read once by WriteRowTerms; else the scalar unit combines the segments' sums in ra_.
        const bool vecSums = kPad <= chunk;
        if (needRA_ && !vecSums) {
            for (uint32_t i = 0; i < hi - lo; ++i) {
                ra_.SetValue(i, 0);  // ra_'s last reader was the scalar unit (the previous rows' terms)
            }
        }
        const uint32_t seg = StripSegment();
        const uint32_t rowsPerStep = StripRowsPerStep();
        // The steps (rows r.., bytes k0.. of each) in order; each step's load goes out before the previous step's
        // vector work, into the other half of prepIn_ (double buffered).
        auto load = [&](uint32_t r, uint32_t k0, uint32_t buf) { LoadStripStep(srcRow0, r, hi, k0, buf); };
        // Two orders. With its row terms (the shared preparation, 310p): the row sums first, then the prepared rows'
        // copy-out, whose buffer the ones row's DMA (staged in prepOut_, written first) has read by then. termsLater
        // (a private strip whose cube request waits for the prepared rows alone, its row terms after the request):
        // the first load goes out first, the ones row (staged in tmp_) under it, each step's copy-out before its row
        // sums, the first step's copy-out without waiting for the ones row.
        const bool stripFirst = termsLater;
        const bool ones = prepare_ && needCB_ && lo == 0;
        if (ones && !stripFirst) {
            WriteOnes(dst0, prepOut_, true);
        }
        uint32_t r = lo, k0 = 0, buf = 0;
        if (r < hi) {
            // Prepare's prefetch is this very step (the one strip's first rows, from a's row 0, into buffer 0) when
            // the strip starts at a's row 0; anything else loads as usual (the MTE2 pipe keeps the two in order).
            const bool prefetchedHere = prefetched_ && srcRow0 + lo == 0;
            prefetched_ = false;
            if (!prefetchedHere) {
                load(r, k0, buf);
            }
        }
        if (stripFirst) {
            // Earlier DMAs that read prepOut_ or tmp_ are done before this strip's vector work writes them.
            aqo_kernel::WaitPipe<HardEvent::MTE3_V>(pipe_);
            if (ones) {
                WriteOnes(dst0, tmp_.template ReinterpretCast<uint8_t>(), false);  // under the first load
            }
        }
        bool first = true;
        while (r < hi) {
            const uint32_t nr = QmmMin(rowsPerStep, hi - r);
            const uint32_t len = QmmMin(seg, t.k - k0);
            const uint32_t padded = AlignUp32(len);
            aqo_kernel::WaitPipe<HardEvent::MTE2_V>(pipe_);  // this step's rows are in prepIn_[buf]
            uint32_t nextR = r, nextK0 = k0 + seg;
            if (nextK0 >= t.k) {
                nextK0 = 0;
                nextR = r + rowsPerStep;
            }
            if (nextR < hi) {
                load(nextR, nextK0, buf ^ 1u);
            }
            const uint32_t elems = nr * padded;
            PipeBarrier<PIPE_V>();  // prepHalf_ may still be read by the previous step
            MapToHalf(prepHalf_, prepIn_[buf * chunk], elems, t.aCode, t.mapA ? t.zpShiftA : 0);
            if (needRA_ && !stripFirst) {
                RowSums(nr, padded, len, r - lo, vecSums);
            }
            if (prepare_) {
                if (!(stripFirst && first)) {
                    aqo_kernel::WaitPipe<HardEvent::MTE3_V>(pipe_);  // the previous copy-out (or ones row) read prepOut_
                }
                PipeBarrier<PIPE_V>();
                FromHalf(prepOut_, prepHalf_, elems, t.cubeACode);
                aqo_kernel::WaitPipe<HardEvent::V_MTE3>(pipe_);
                // Several rows only when a whole row is one step (padded == kPad): contiguous in the slot.
                DataCopy(prepRaw_[data0 + static_cast<uint64_t>(r) * kPad + k0], prepOut_, elems);
            }
            if (needRA_ && stripFirst) {
                if (first && ones) {
                    aqo_kernel::WaitPipe<HardEvent::MTE3_V>(pipe_);  // the ones row's DMA read tmp_
                }
                RowSums(nr, padded, len, r - lo, vecSums);
            }
            first = false;
            r = nextR;
            k0 = nextK0;
            buf ^= 1u;
        }
        if (!termsLater && zp_->NeedCorrection()) {
            WriteRowTerms(ai, m0, slot, lo, hi, vecSums);
        }
    }

    // A strip step's bytes of each row (whole rows when a row fits the chunk: 2-D copies, else segments of a row)
    // and its rows.
    __aicore__ inline uint32_t StripSegment() const
    {
        return t_->kPad <= t_->prepChunk ? t_->kPad : t_->prepChunk;
    }
    __aicore__ inline uint32_t StripRowsPerStep() const
    {
#if AQO_SOC_HAS_DATACOPYPAD
        return t_->kPad <= t_->prepChunk ? t_->prepChunk / t_->kPad : 1;
#else
        return 1;  // no DataCopyPad: row by row (K need not be a 32-byte multiple)
#endif
    }

    // Loads a strip step into half `buf` of prepIn_: rows r.. (of at most hi) of a from row srcRow0, bytes k0.. .
    __aicore__ inline void LoadStripStep(uint64_t srcRow0, uint32_t r, uint32_t hi, uint32_t k0, uint32_t buf)
    {
        const TD& t = *t_;
        const uint32_t nr = QmmMin(StripRowsPerStep(), hi - r);
        const uint32_t len = QmmMin(StripSegment(), t.k - k0);  // bytes of each row in this step
        const uint64_t src = (srcRow0 + r) * t.k + k0;
        // Every vector instruction issued so far is done: the step two back read this half.
        aqo_kernel::WaitPipe<HardEvent::V_MTE2>(pipe_);
#if AQO_SOC_HAS_DATACOPYPAD
        const uint32_t padded = AlignUp32(len);
        DataCopyExtParams prm(static_cast<uint16_t>(nr), len, static_cast<uint32_t>(t.k - len), 0, 0);
        DataCopyPadExtParams<uint8_t> pad(true, 0, static_cast<uint8_t>(padded - len), 0);
        DataCopyPad(prepIn_[buf * t.prepChunk], aRaw_[src], prm, pad);
#else
        QmmCopyBytesIn(prepIn_[buf * t.prepChunk], aRaw_, src, len, aElems_);
#endif
    }

    // The correction's row terms of strip rows [lo, hi) (whose row sums are in ra_[0, hi - lo) when needed): per row
    // two 32-byte blocks, -(RA - K za') and -za' each broadcast over the block's 8 int32 (the vector correction
    // multiplies them with a block stride of 0), written to the slot's row-term area at row lo.
    __aicore__ inline void WriteRowTerms(uint64_t ai, uint32_t m0, uint64_t slot, uint32_t lo, uint32_t hi,
                                         bool vecSums)
    {
        const TD& t = *t_;
        const uint32_t n = hi - lo;
        zp_->LoadRows(ai, m0 + lo, n, prepIn_, prepHalf_);  // za' of the rows (per-row zero points), for the scalar
        LocalTensor<int32_t> terms = tmp_.template ReinterpretCast<int32_t>();
        const LocalTensor<float> sums = rt_.template ReinterpretCast<float>();
        if (needRA_ && vecSums) {
            aqo_kernel::WaitPipe<HardEvent::V_S>(pipe_);  // the vector unit's row sums, read by the scalar unit
        }
        // tmp_ may still be read by the row sums' vector work. (A ones row staged in tmp_ is read by its DMA only in
        // a strip prepared without its terms: this is called after the cube request, which waited for every DMA.)
        PipeBarrier<PIPE_V>();
        for (uint32_t i = 0; i < n; ++i) {
            int32_t negR = 0, negS = 0;
            const int32_t raSum = !needRA_ ? 0
                                  : vecSums ? static_cast<int32_t>(sums.GetValue(i * kQmmRowTermInts))  // exact
                                            : ra_.GetValue(i);
            zp_->RowTerms(raSum, i, &negR, &negS);
            Duplicate(terms[i * kQmmRowTermInts], negR, kQmmRowTermInts / 2);
            Duplicate(terms[i * kQmmRowTermInts + kQmmRowTermInts / 2], negS, kQmmRowTermInts / 2);
        }
        aqo_kernel::WaitPipe<HardEvent::V_MTE3>(pipe_);
        DataCopy(rtGm_[slot * (t.raStripBytes / 4) + static_cast<uint64_t>(lo) * kQmmRowTermInts], terms,
                 n * kQmmRowTermInts);
        aqo_kernel::WaitPipe<HardEvent::MTE3_V>(pipe_);  // tmp_ is the vector unit's scratch again
    }

    // The ones row of a strip (kPad bytes of 1: the byte 0x01 is 1 in int8 and in uint8) through the UB staging area
    // `stage` (at least prepChunk bytes; waitFirst: an earlier DMA may still read it). The next vector writer of the
    // staging area waits for this DMA (PrepareStrip).
    __aicore__ inline void WriteOnes(uint64_t dst, const LocalTensor<uint8_t>& stage, bool waitFirst)
    {
        const TD& t = *t_;
        const LocalTensor<int16_t> ones = stage.template ReinterpretCast<int16_t>();
        for (uint32_t off = 0; off < t.kPad; off += t.prepChunk) {
            const uint32_t len = QmmMin(t.prepChunk, t.kPad - off);  // a multiple of 32 bytes (kPad, prepChunk)
            if (off != 0 || waitFirst) {
                aqo_kernel::WaitPipe<HardEvent::MTE3_V>(pipe_);  // the previous DMA from the staging area is done
            }
            PipeBarrier<PIPE_V>();  // the staging area may still be read by earlier vector work
            Duplicate(ones, static_cast<int16_t>(0x0101), static_cast<int32_t>(len / 2));
            aqo_kernel::WaitPipe<HardEvent::V_MTE3>(pipe_);
            DataCopy(prepRaw_[dst + off], stage, len);
        }
    }

    // 8-bit values (code: int8 / uint8) to half, exactly, minus `shift` (the mapping: v - 128 for uint8 -> int8).
    __aicore__ inline void MapToHalf(const LocalTensor<half>& h, const LocalTensor<uint8_t>& in, uint32_t elems,
                                     uint32_t code, int32_t shift)
    {
        if (code == kQmmCodeUInt8) {
            Cast(h, in, RoundMode::CAST_NONE, elems);
        } else {
            Cast(h, in.template ReinterpretCast<int8_t>(), RoundMode::CAST_NONE, elems);
        }
        if (shift != 0) {
            PipeBarrier<PIPE_V>();
            Adds(h, h, static_cast<half>(static_cast<float>(-shift)), elems);
        }
    }

    // half (exact small integers) to the cube's 8-bit operand type.
    __aicore__ inline void FromHalf(const LocalTensor<uint8_t>& o, const LocalTensor<half>& h, uint32_t elems,
                                    uint32_t code)
    {
        if (code == kQmmCodeUInt8) {
            Cast(o, h, RoundMode::CAST_NONE, elems);
        } else {
            Cast(o.template ReinterpretCast<int8_t>(), h, RoundMode::CAST_NONE, elems);
        }
    }

    // The sums of the step's rows (nr rows of `padded` values in prepHalf_, `len` of them real), rows r.. of the
    // piece: float32 sums of at most prepChunk integers of at most 255 in magnitude are exact in any order (< 2^24).
    // vecSums (a row is one step): each row's sum stays in its row-term slot of rt_ (read once by WriteRowTerms; on
    // split SoCs ReduceSum also writes one float per 256-byte repeat after dst: the later rows' slots, which their own
    // sums then overwrite, and past the last slot, which rt_'s buffer holds: aqo_qmm_layout.h RowSumSpillBytes);
    // else they are added to ra_[r..] by the scalar unit, which combines a row's segments in 32-bit wrap-around.
    __aicore__ inline void RowSums(uint32_t nr, uint32_t padded, uint32_t len, uint32_t r, bool vecSums)
    {
        const uint32_t elems = nr * padded;
        LocalTensor<float> vals = tmp_;
        LocalTensor<float> sums = vecSums ? rt_.template ReinterpretCast<float>()[r * kQmmRowTermInts]
                                          : tmp_[AlignUp32(elems * 4) / 4];
        const uint32_t slot = vecSums ? kQmmRowTermInts : 8;  // one 32-byte aligned slot per row
        LocalTensor<float> work = tmp_[AlignUp32(elems * 4) / 4 + (vecSums ? 0 : nr * 8)];
        PipeBarrier<PIPE_V>();  // tmp_ may still be read by the previous step
        Cast(vals, prepHalf_, RoundMode::CAST_NONE, elems);
        PipeBarrier<PIPE_V>();
        for (uint32_t i = 0; i < nr; ++i) {
            if (i != 0) {
                PipeBarrier<PIPE_V>();  // the rows share ReduceSum's work area
            }
            ReduceSum(sums[i * slot], vals[i * padded], work, static_cast<int32_t>(len));
        }
        if (vecSums) {
            return;
        }
        aqo_kernel::WaitPipe<HardEvent::V_S>(pipe_);
        for (uint32_t i = 0; i < nr; ++i) {
            const int32_t part = static_cast<int32_t>(sums.GetValue(i * 8));
            const uint32_t acc = static_cast<uint32_t>(ra_.GetValue(r + i)) + static_cast<uint32_t>(part);
            ra_.SetValue(r + i, static_cast<int32_t>(acc));
        }
    }

    // Rounds (310p, roundRanges != 0; the plan's reason: matmul_cube_plan.cpp): the worker's whole strip rows, then
    // its blocks after the rounds, each strip row by strip row (its i-th with every other worker's i-th: a round),
    // a strip row's blocks range by range of N (roundRanges ranges), a range from this worker's own block on
    // (usedCores equal steps into the range) and then its blocks before that one: in a range the cores read the same
    // columns of b, each from a different block, so that a block of b comes from the DDR for one core while the
    // others' reads of it hit the L2. Sets the next segment [u_, segEnd_); u_ == segEnd_ when none is left.
    __aicore__ inline void NextSegment()
    {
        const TD& t = *t_;
        const uint64_t ranges = t.roundRanges;
        u_ = segEnd_ = 0;
        for (;;) {
            const bool inRounds = roundBegin_ < roundEnd_;
            const uint64_t lo = inRounds ? roundBegin_ : uBegin_, hi = inRounds ? roundEnd_ : uEnd_;
            const uint64_t row = (lo / t.nBlocks + seg_ / (2 * ranges)) * t.nBlocks;  // the strip row's first unit
            if (row >= hi) {
                if (!inRounds) {
                    return;
                }
                roundBegin_ = roundEnd_ = 0;  // the whole strip rows done: the blocks after the rounds
                seg_ = 0;
                continue;
            }
            const uint64_t h = seg_ / 2 % ranges, part = seg_ % 2;
            ++seg_;
            const uint64_t r0 = row + h * t.nBlocks / ranges, r1 = row + (h + 1) * t.nBlocks / ranges;
            const uint64_t start = r0 + static_cast<uint64_t>(worker_) * (r1 - r0) / t.usedCores;
            uint64_t b = part == 0 ? start : r0, e = part == 0 ? r1 : start;
            b = b > lo ? b : lo;
            e = e < hi ? e : hi;
            if (b < e) {
                u_ = b;
                segEnd_ = e;
                return;
            }
        }
    }

    const TD* t_ = nullptr;
    TPipe* pipe_ = nullptr;
    MM* mm_ = nullptr;
    QmmZeroPoints<TD>* zp_ = nullptr;
    uint32_t worker_ = 0;
    uint32_t workers_ = 0;
    uint64_t aElems_ = 0, bElems_ = 0;
    uint64_t uBegin_ = 0, uEnd_ = 0, u_ = 0;
    uint64_t segEnd_ = 0;  // the end of the segment of [uBegin_, uEnd_) being cut into calls (all of it without rounds)
    uint64_t seg_ = 0;     // rounds: the next (strip row, range, part) of NextSegment
    uint64_t roundBegin_ = 0, roundEnd_ = 0;  // rounds: the worker's whole strip rows (before [uBegin_, uEnd_))
    GlobalTensor<uint8_t> aRaw_, bRaw_, prepRaw_, prepBRaw_;
    GlobalTensor<AT> aGm_, prepA_;
    GlobalTensor<BT> bGm_, prepB_;
    GlobalTensor<int32_t> rtGm_;
    GlobalTensor<AccT> cArea_;
    TBuf<TPosition::VECCALC> mmWsBuf_, tmpBuf_, cbBuf_, raBuf_, rtBuf_, prepInBuf_, prepHalfBuf_, prepOutBuf_;
    TQue<QuePosition::VECIN, 2> cInQue_;
    LocalTensor<float> tmp_;
    LocalTensor<int32_t> cb_, ra_, rt_;
    LocalTensor<uint8_t> prepIn_, prepOut_;
    LocalTensor<half> prepHalf_;
    QmmCall call_;
    uint32_t block_ = 0;
    uint32_t nextArea_ = 0;
    bool needCB_ = false;
    bool needRA_ = false;
    bool deferRowSums_ = false;  // the row sums' decision and row terms after the first request (Prepare)
    bool requested_ = false;     // a cube request has gone out (Request)
    bool prefetched_ = false;    // the one strip's first step is loaded (Prepare), PrepareStrip's first load skipped
    uint64_t bFirst_ = 0, bEnd_ = 0;  // the b zero points this worker's decision reads
    bool prepare_ = false;
    bool havePrivate_ = false;
    bool haveSlab_ = false;
    uint64_t slabBj_ = 0;
    uint32_t slabN0_ = 0;
    uint32_t slabCols_ = 0;
    uint64_t privateAi_ = 0;
    uint32_t privateStrip_ = 0;
};
