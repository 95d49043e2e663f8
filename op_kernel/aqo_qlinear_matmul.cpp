// AqoQLinearMatMul: y = saturate(rint(float32(acc) * ((a_scale * b_scale) / y_scale)) + y_zero_point) with
// acc = sum_k (a - a_zp)(b - b_zp) wrapped to int32 (ONNX QLinearMatMul, seed 000; arithmetic of the golden,
// FACTS 6 Decision). One source for ascend910b, ascend310p and ascend910_95.
//
// Scheme (the plan, op_host/tiling_core/qlinear_matmul_plan.h, sizes everything):
//   * work = output tiles of baseM x baseN of one broadcast batch matrix; every block (cube core / 310p AI core)
//     owns a contiguous tile range, split again between its vector workers (2 per cube core on split SoCs);
//   * the cube computes int8 x int8 -> int32 through the Matmul high-level API: P = A'B', the row sums
//     RA = A' 1 and the column sums CB = 1^T B' (a ones vector in the worker's workspace), all exact mod 2^32;
//     a sum is computed only for tiles where the zero points multiplying it are not all 0 (RA needs some
//     zb != 0, CB some za != 0, after the uint8 mapping below); RA is reused by a worker's consecutive tiles;
//     with mapped (uint8) a, CB comes with the product: the workspace holds a ones row before the mapped rows, so
//     [1; A'] B' = [CB; P] reads K more bytes of A instead of B again; CB is row 0 of the int32 tile, P rows 1..;
//     uint8 operands are first mapped to int8 in the worker's workspace (v - 128, FACTS 3), since the cube has
//     no uint8 x int8 / int8 x uint8 path on every SoC; the zero point is lowered by 128 so v - zp is unchanged;
//   * the vector unit applies the zero points through seed 002's decomposition in int32 wrap-around
//     acc = P - zb * (RA - K * za) - za * CB (vector int32 while no partial sum can leave int32, K <= 32767;
//     beyond, the scalar unit, whose 32-bit arithmetic wraps by definition), then requantizes in float32
//     exactly like the golden;
//   * ascend910_95 also: float8 y (saturate, round to nearest even) and float8 x float8 operands (a float32
//     cube, zero points 0): Float8Out (aqo_kernel_common.h) and the RunFloat8* dispatch, compiled only there.
// Not the FP19 fixpipe dequant path (FACTS 7: +-1 against ONNX on ~1% of outputs).
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "aqo_kernel_common.h"

using namespace AscendC;

namespace aqo_qmm {

using namespace aqo_kernel;  // SoC traits (AQO_SOC_*), AlignUp32, BitsToFloat, CopyOutExact, Float8Out

// Operand codes of the tiling (aqo::QmmOperandCode; the emulator runner static_asserts that they agree).
constexpr uint32_t kCodeInt8 = 0;
constexpr uint32_t kCodeUInt8 = 1;
constexpr uint32_t kCodeFloat8E4M3FN = 2;
constexpr uint32_t kCodeFloat8E5M2 = 3;
// |v| is clamped to this before rounding: keeps rint(v) inside int32 and changes no saturated result, because
// |y_zero_point| fits in 8 bits, far below kClamp / 2 (anything beyond saturates either way).
constexpr float kClamp = 1024.0f;
// Up to this K the zero-point correction P - zb (RA - K za) - za CB never leaves int32 in any partial sum
// (|P| <= 2^14 K, |zb (RA - K za)| <= 2^15 K, |za CB| <= 2^14 K, total <= 2^16 K < 2^31), so the vector unit's
// int32 Muls / Add are exact; beyond it the sum wraps modulo 2^32 (ONNX) and the scalar unit does it.
constexpr uint32_t kVectorExactMaxK = 32767;

__aicore__ inline uint32_t AlignUp8(uint32_t v) { return (v + 7u) / 8u * 8u; }
__aicore__ inline uint32_t Min32(uint32_t a, uint32_t b) { return a < b ? a : b; }

// The cube's Matmul configuration: NORM with the intrinsic check on (intrinsicsLimit), so that the API copies A's
// and B's rows into L1 one by one when a row stride (K of a, N of b: 65536 and more happen, e.g. N = 152064) does not
// fit the 16-bit stride field of its GM -> L1 copy, instead of wrapping it.
struct CubeConfig {
    static constexpr MatmulConfig kNorm = GetNormalConfig(true);
};

// The cube operation, A and B read from GM in ND layout, C written to GM: int8 x int8 -> int32 (exact, wrapping),
// or (ascend910_95) float8 x float8 -> float32. The float8 instantiation exists only where the SoC has float8.
template <class AT, class BT>
struct Cube {
    using AccT = float;
    static constexpr bool kFloat = true;
    using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    using MM = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, AT>, MatmulType<TPosition::GM, CubeFormat::ND, BT>,
                      CType, CType, CubeConfig::kNorm>;
};
template <>
struct Cube<int8_t, int8_t> {
    using AccT = int32_t;
    static constexpr bool kFloat = false;
    using CType = MatmulType<TPosition::GM, CubeFormat::ND, int32_t>;
    using MM = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, int8_t>,
                      MatmulType<TPosition::GM, CubeFormat::ND, int8_t>, CType, CType, CubeConfig::kNorm>;
};
using MmInt8 = Cube<int8_t, int8_t>::MM;

// The workers' part of the workspace: on every SoC the workspace starts with the system workspace (the framework's
// reserve, RESERVED_WORKSPACE of the AscendC headers: 16 MiB on 910b, 2 MiB on 310p; the Matmul API's messages on
// split SoCs, which GetSysWorkSpacePtr() hands to REGIST_MATMUL_OBJ), and the host adds that reserve to the
// workspace size. The raw workspace pointer would put the workers' data into it.
__aicore__ inline GM_ADDR UserWorkspace(GM_ADDR workspace) { return GetUserWorkspace(workspace); }

// Which vector worker this core is: on split SoCs GetBlockIdx() on a vector core of a mix kernel is its vector
// core index (cube core * 2 + sub-block), on 310p the AI core index; block = worker / workersPerCore.
__aicore__ inline uint32_t WorkerIndex() { return static_cast<uint32_t>(GetBlockIdx()); }

// Value of a raw 8-bit zero point as an integer of the operand's signedness.
__aicore__ inline int32_t ZeroPointValue(uint8_t raw, uint32_t code)
{
    return code == kCodeUInt8 ? static_cast<int32_t>(raw) : static_cast<int32_t>(static_cast<int8_t>(raw));
}

// TD: the tiling-data struct GET_TILING_DATA gives (CANN generates it from op_host/aqo_qlinear_matmul_tiling.h, whose
// fields are op_host/tiling_core/qlinear_matmul_tiling_fields.h; the emulator and the header check have their own
// builds of the same class): the kernel reads the fields by name, whatever the class is called.
template <class TD, class YT, class AT = int8_t, class BT = int8_t>
class KernelQLinearMatMul {
    using MM = typename Cube<AT, BT>::MM;
    using AccT = typename Cube<AT, BT>::AccT;
    // float8 operands: float32 accumulators, zero points 0 (ONNX requires it for float8), no uint8 mapping, and
    // IEEE non-finite values to carry through the epilogue.
    static constexpr bool kFloatCube = Cube<AT, BT>::kFloat;

public:
    __aicore__ inline KernelQLinearMatMul() {}

    __aicore__ inline void Init(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                                GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& p, TPipe* pipe,
                                MM* mm)
    {
        p_ = p;
        pipe_ = pipe;
        mm_ = mm;
        const uint64_t mk = static_cast<uint64_t>(p.m) * p.k;
        const uint64_t kn = static_cast<uint64_t>(p.k) * p.n;
        aBytes_ = p.aMatrices * mk;
        bBytes_ = p.bMatrices * kn;
        aGm_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(a), aBytes_);
        bGm_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(b), bBytes_);
        aCubeGm_.SetGlobalBuffer(reinterpret_cast<__gm__ AT*>(a), aBytes_);
        bCubeGm_.SetGlobalBuffer(reinterpret_cast<__gm__ BT*>(b), bBytes_);
        const uint64_t aParams = p.aParamKind ? (p.aParamBatchStride ? static_cast<uint64_t>(p.aMatrices) * p.m : p.m)
                                              : 1;
        const uint64_t bParams = p.bParamKind ? (p.bParamBatchStride ? static_cast<uint64_t>(p.bMatrices) * p.n : p.n)
                                              : 1;
        aScaleGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(aScale), aParams);
        aZpGm_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(aZp), aParams);
        bScaleGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bScale), bParams);
        bZpGm_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(bZp), bParams);
        yScaleGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(yScale), 1);
        yZpGm_.SetGlobalBuffer(reinterpret_cast<__gm__ uint8_t*>(yZp), 1);
        yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ YT*>(y), static_cast<uint64_t>(p.batch) * p.m * p.n);

        // This worker's workspace: mapped a rows, mapped b slab, int32 tile, row sums, column sums, ones.
        GM_ADDR ws = userWs + static_cast<uint64_t>(WorkerIndex()) * p.wsPerWorker;
        wsA_.SetGlobalBuffer(reinterpret_cast<__gm__ int8_t*>(ws + p.wsAOffset), p.wsBOffset - p.wsAOffset);
        wsB_.SetGlobalBuffer(reinterpret_cast<__gm__ int8_t*>(ws + p.wsBOffset), p.wsCOffset - p.wsBOffset);
        wsC_.SetGlobalBuffer(reinterpret_cast<__gm__ AccT*>(ws + p.wsCOffset), (p.wsRaOffset - p.wsCOffset) / 4);
        // wsC_: row 0 the column sums CB (wsCb_ views it as int32), rows 1.. the tile's product; the tiling's
        // separate CB region is empty.
        wsCb_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(ws + p.wsCOffset), p.cStride);
        wsRa_.SetGlobalBuffer(reinterpret_cast<__gm__ int32_t*>(ws + p.wsRaOffset), (p.wsCbOffset - p.wsRaOffset) / 4);
        wsOnes_.SetGlobalBuffer(reinterpret_cast<__gm__ int8_t*>(ws + p.wsOnesOffset),
                                p.wsPerWorker - p.wsOnesOffset);

        // UB, in the plan's order (its explanation lists the same buffers). ascend310p first: the Matmul API's local
        // workspace (its C write-back and ND-to-NZ staging; without SetLocalWorkspace it would write through UB
        // address 0, over the buffers below).
        if (p.ubMatmulWs != 0) {
            pipe->InitBuffer(mmWsBuf_, p.ubMatmulWs);
            mm->SetLocalWorkspace(mmWsBuf_.Get<uint8_t>());
        }
        pipe->InitBuffer(cQue_, 2, p.ubCIn);
        pipe->InitBuffer(yQue_, 2, p.ubYOut);
        pipe->InitBuffer(zbBuf_, p.ubVecI32);
        pipe->InitBuffer(cbBuf_, p.ubVecI32);
        pipe->InitBuffer(tmpIBuf_, p.ubVecI32);
        pipe->InitBuffer(accBuf_, p.ubVecF32);
        pipe->InitBuffer(multBuf_, p.ubVecF32);
        pipe->InitBuffer(ysBuf_, p.ubVecF32);
        pipe->InitBuffer(tmpFBuf_, p.ubVecF32);
        pipe->InitBuffer(halfBuf_, p.ubHalf);
        pipe->InitBuffer(raBuf_, p.ubRa);
        pipe->InitBuffer(mapInQue_, 1, p.ubMapIn);
        pipe->InitBuffer(mapHalfBuf_, p.ubMapHalf);
        pipe->InitBuffer(mapOutQue_, 1, p.ubMapOut);
        zb_ = zbBuf_.Get<int32_t>();
        cb_ = cbBuf_.Get<int32_t>();
        tmpI_ = tmpIBuf_.Get<int32_t>();
        acc_ = accBuf_.Get<float>();
        mult_ = multBuf_.Get<float>();
        ys_ = ysBuf_.Get<float>();
        tmpF_ = tmpFBuf_.Get<float>();
        half_ = halfBuf_.Get<half>();
        ra_ = raBuf_.Get<int32_t>();
        mapHalf_ = mapHalfBuf_.Get<half>();

        // Per-tensor parameters, read once. Zero points of mapped operands are lowered by 128 (FACTS 3).
        yScale_ = yScaleGm_.GetValue(0);
        yZp_ = static_cast<float>(ZeroPointValue(yZpGm_.GetValue(0), p.yCode));
        aScale0_ = aScaleGm_.GetValue(0);
        bScale0_ = bScaleGm_.GetValue(0);
        aZp0_ = ZeroPointValue(aZpGm_.GetValue(0), p.aCode) - (p.mapA ? 128 : 0);
        bZp0_ = ZeroPointValue(bZpGm_.GetValue(0), p.bCode) - (p.mapB ? 128 : 0);
        qMin_ = p.yQMin;  // int8 / uint8 y's range, from the dtype table through the tiling
        qMax_ = p.yQMax;
    }

    __aicore__ inline void Process()
    {
        const uint32_t worker = WorkerIndex();
        const uint32_t block = worker / p_.workersPerCore;
        const uint32_t sub = worker % p_.workersPerCore;
        if (block >= p_.usedCores) {
            return;
        }
        const uint32_t q = p_.tileCount / p_.usedCores;
        const uint32_t r = p_.tileCount % p_.usedCores;
        const uint32_t blockBegin = block * q + Min32(block, r);
        const uint32_t blockLen = q + (block < r ? 1u : 0u);
        // The block's vector workers split its range into contiguous parts, so that consecutive tiles of a
        // worker share their rows of a as often as possible.
        const uint32_t q2 = blockLen / p_.workersPerCore;
        const uint32_t r2 = blockLen % p_.workersPerCore;
        const uint32_t begin = blockBegin + sub * q2 + Min32(sub, r2);
        const uint32_t end = begin + q2 + (sub < r2 ? 1u : 0u);
        if (begin >= end) {
            return;
        }
        Duplicate(ys_, yScale_, p_.cStride);  // the divisor of the per-column multiplier
        for (uint32_t t = begin; t < end; ++t) {
            Tile(t);
        }
    }

private:
    // ---- one output tile ----------------------------------------------------------------------------------
    __aicore__ inline void Tile(uint32_t t)
    {
        const uint32_t perBatch = p_.tilesM * p_.tilesN;
        const uint32_t bi = t / perBatch;
        const uint32_t mb = t / p_.tilesN % p_.tilesM;
        const uint32_t nb = t % p_.tilesN;
        uint64_t ai = 0, bj = 0;
        BatchOperands(bi, &ai, &bj);
        const uint32_t m0 = mb * p_.baseM;
        const uint32_t mrows = Min32(p_.baseM, p_.m - m0);
        const uint32_t n0 = nb * p_.baseN;
        const uint32_t ncols = Min32(p_.baseN, p_.n - n0);
        // Which zero-point terms the tile has (seed 002): the row sums of A' are multiplied by b's zero points,
        // the column sums of B' by a's. A sum whose zero points are all 0 on the tile is not computed (symmetric
        // int8 weights: b_zp = 0, no row sums; a_zp = 0: no column sums).
        LoadColumnTerms(bj, n0, ncols);  // zb_, the multiplier, needRowSums_
        needColSums_ = RowZeroPointsNonZero(ai, m0, mrows);
        if (p_.k != 0) {
            CubeProducts(ai, bj, m0, mrows, n0, ncols);
        }
        LoadColumnSums();
        LoadRowSums(mrows);
        for (uint32_t i = 0; i < mrows; ++i) {
            CopyIn(i);
            Compute(ai, m0 + i, i, ncols);
            CopyOut(static_cast<uint64_t>(bi) * p_.m + m0 + i, n0, ncols);
        }
    }

    // The y batch matrix `index` as matrix indices of a and b (numpy broadcasting; see the plan).
    __aicore__ inline void BatchOperands(uint64_t index, uint64_t* ai, uint64_t* bj) const
    {
        uint64_t x = 0, z = 0;
        for (uint32_t d = p_.batchRank; d-- > 0;) {
            const uint64_t i = index % p_.batchDims[d];
            index /= p_.batchDims[d];
            x += i * p_.aBatchStrides[d];
            z += i * p_.bBatchStrides[d];
        }
        *ai = x;
        *bj = z;
    }

    // ---- cube part: P = A'B', RA = A' 1, CB = 1^T B' into the worker's workspace -------------------------
    __aicore__ inline void CubeProducts(uint64_t ai, uint64_t bj, uint32_t m0, uint32_t mrows, uint32_t n0,
                                        uint32_t ncols)
    {
        const uint32_t k = p_.k;
        const uint64_t aOff = (ai * p_.m + m0) * k;
        const uint64_t bOff = bj * k * p_.n + n0;
        GlobalTensor<AT> aSrc = aCubeGm_[aOff];
        GlobalTensor<BT> bSrc = bCubeGm_[bOff];
        uint32_t bStride = p_.n;
        if constexpr (kFloatCube) {
            // float8: the product only (zero points are 0, so no row / column sums).
            CubeProduct(aSrc, bSrc, bStride, wsC_[p_.cStride], p_.cStride, mrows, ncols);
        } else {
            IntegerCubeProducts(aSrc, bSrc, bStride, aOff, bOff, mrows, ncols);
        }
    }

    __aicore__ inline void IntegerCubeProducts(GlobalTensor<int8_t> aSrc, GlobalTensor<int8_t> bSrc,
                                               uint32_t bStride, uint64_t aOff, uint64_t bOff, uint32_t mrows,
                                               uint32_t ncols)
    {
        const uint32_t k = p_.k;
        // Consecutive tiles of a worker often share their rows of a (N-blocks vary fastest): the mapped rows and
        // their row sums (when computed) in the workspace are still valid then.
        bool sameRows = haveRows_ && aOff == rowsOff_ && mrows == rowsCount_;
        // Mapped a: the workspace holds a ones row and then A' (row stride K), so that one cube product over both
        // gives the column sums CB in C's row 0 and P below it: the column sums cost K bytes of ones instead of
        // another K x cols of B. The ones row is written once, when a tile first needs column sums; its 32-byte
        // write reaches into A', which is mapped again then.
        const bool foldColSums = p_.mapA && needColSums_;
        if (foldColSums && !onesRowWritten_) {
            WriteOnes(wsA_);
            PipeBarrier<PIPE_ALL>();  // the mapping below rewrites bytes [K, AlignUp32(K)) of this write
            onesRowWritten_ = true;
            sameRows = false;
        }
        const bool rowSums = needRowSums_ && !(sameRows && haveRowSums_);
        if (p_.mapA) {
            if (!sameRows) {
                MapBytes(wsA_[k], aGm_, aOff, static_cast<uint64_t>(mrows) * k);
            }
            aSrc = wsA_[k];
        }
        if (p_.mapB) {
            for (uint32_t kk = 0; kk < k; ++kk) {
                MapRow(wsB_[static_cast<uint64_t>(kk) * p_.bpStride], bOff + static_cast<uint64_t>(kk) * p_.n,
                       ncols);
            }
            bSrc = wsB_;
            bStride = p_.bpStride;
        }
        if ((rowSums || (needColSums_ && !foldColSums)) && !onesWritten_) {
            WriteOnes(wsOnes_);  // the summing operand, once per worker, only if some tile needs it
            onesWritten_ = true;
        }
        // The vector core's DMA writes (mapped operands, ones) must have landed before the cube reads them.
        PipeBarrier<PIPE_ALL>();
        if (foldColSums) {
            CubeProduct(wsA_, bSrc, bStride, wsC_, p_.cStride, mrows + 1, ncols);  // [1; A'] B' = [CB; P]
        } else {
            CubeProduct(aSrc, bSrc, bStride, wsC_[p_.cStride], p_.cStride, mrows, ncols);
        }
        // Row sums of A' against the ones column (C is [mrows, 1]): only where b's zero points are not all 0.
        if (rowSums) {
            CubeProduct(aSrc, wsOnes_, 1, wsRa_, 1, mrows, 1);
        }
        haveRowSums_ = (sameRows && haveRowSums_) || rowSums;
        haveRows_ = true;
        rowsOff_ = aOff;
        rowsCount_ = mrows;
        // Column sums of B' against the ones row (C is [1, ncols], row 0 of the tile): only where a's zero points
        // are not all 0, and not folded into the product above.
        if (needColSums_ && !foldColSums) {
            CubeProduct(wsOnes_, bSrc, bStride, wsC_, p_.cStride, 1, ncols);
        }
    }

    // C[rows, cols] = A[rows, K] B[K, cols] through the Matmul API: A's row stride K, B's bStride, C's cStride
    // (SetOrgShape(orgM, orgN, orgKa, orgKb, orgKc): A row stride orgKa, B row stride orgN, C row stride orgKc).
    template <class AOperand, class BOperand, class COut>
    __aicore__ inline void CubeProduct(const GlobalTensor<AOperand>& a, const GlobalTensor<BOperand>& b,
                                       uint32_t bStride, const GlobalTensor<COut>& c, uint32_t cStride, uint32_t rows,
                                       uint32_t cols)
    {
        mm_->SetOrgShape(rows, bStride, p_.k, p_.k, cStride);
        mm_->SetSingleShape(rows, cols, p_.k);
        mm_->SetTensorA(a);
        mm_->SetTensorB(b);
        mm_->IterateAll(c);
        mm_->End();
    }

    // A ones vector of length K (the cube's summing operand) at dst, AlignUp32(K) bytes written.
    __aicore__ inline void WriteOnes(const GlobalTensor<int8_t>& dst)
    {
        const uint32_t total = AlignUp32(p_.k);
        for (uint32_t off = 0; off < total; off += p_.mapChunk) {
            const uint32_t len = Min32(p_.mapChunk, total - off);
            PipeBarrier<PIPE_V>();  // mapHalf_ may still be read by an earlier Cast
            Duplicate(mapHalf_, static_cast<half>(1.0f), len);
            LocalTensor<int8_t> o = mapOutQue_.AllocTensor<int8_t>();
            PipeBarrier<PIPE_V>();
            Cast(o, mapHalf_, RoundMode::CAST_NONE, len);
            mapOutQue_.EnQue(o);
            o = mapOutQue_.DeQue<int8_t>();
            DataCopy(dst[off], o, len);
            mapOutQue_.FreeTensor(o);
        }
    }

    // uint8 -> int8 of `bytes` contiguous bytes of a from `off` into the workspace (v - 128, exact in half).
    __aicore__ inline void MapBytes(const GlobalTensor<int8_t>& dst, const GlobalTensor<uint8_t>& src, uint64_t off,
                                    uint64_t bytes)
    {
        for (uint64_t done = 0; done < bytes; done += p_.mapChunk) {
            const uint32_t len = static_cast<uint32_t>(bytes - done < p_.mapChunk ? bytes - done : p_.mapChunk);
            MapChunk(dst[done], src, off + done, len, aBytes_);
        }
    }

    // One row segment of b (ncols bytes) mapped into the workspace slab.
    __aicore__ inline void MapRow(const GlobalTensor<int8_t>& dst, uint64_t srcOff, uint32_t ncols)
    {
        MapChunk(dst, bGm_, srcOff, ncols, bBytes_);
    }

    __aicore__ inline void MapChunk(const GlobalTensor<int8_t>& dst, const GlobalTensor<uint8_t>& src, uint64_t off,
                                    uint32_t len, uint64_t srcBytes)
    {
        const uint32_t padded = AlignUp32(len);
        LocalTensor<uint8_t> in = mapInQue_.AllocTensor<uint8_t>();
        CopyBytesIn(in, src, off, len, srcBytes);
        mapInQue_.EnQue(in);
        in = mapInQue_.DeQue<uint8_t>();
        PipeBarrier<PIPE_V>();  // mapHalf_ may still be read by the previous chunk's Cast
        Cast(mapHalf_, in, RoundMode::CAST_NONE, padded);
        mapInQue_.FreeTensor(in);
        PipeBarrier<PIPE_V>();
        Adds(mapHalf_, mapHalf_, static_cast<half>(-128.0f), padded);
        LocalTensor<int8_t> o = mapOutQue_.AllocTensor<int8_t>();
        PipeBarrier<PIPE_V>();
        Cast(o, mapHalf_, RoundMode::CAST_NONE, padded);
        mapOutQue_.EnQue(o);
        o = mapOutQue_.DeQue<int8_t>();
        DataCopy(dst, o, padded);  // the workspace regions are 32-byte multiples
        mapOutQue_.FreeTensor(o);
    }

    // ---- vector part ------------------------------------------------------------------------------------
    // Per tile, before the cube: zb (int32, mapped), the per-column multiplier (a_scale * b_scale) / y_scale,
    // and whether any of the tile's zb is non-zero (then the row sums of A' are needed).
    __aicore__ inline void LoadColumnTerms(uint64_t bj, uint32_t n0, uint32_t ncols)
    {
        if (p_.bParamKind == 0) {
            needRowSums_ = !kFloatCube && p_.k != 0 && bZp0_ != 0;
            PipeBarrier<PIPE_V>();  // the previous tile's rows may still read zb_
            Duplicate(zb_, bZp0_, p_.cStride);
            PipeBarrier<PIPE_ALL>();
            return;
        }
        bool anyZb = false;
        // Per-column parameters: ncols small unaligned values per tile, read by the scalar unit (these inputs
        // are never written, so the data cache holds no stale copy).
        const uint64_t base = (p_.bParamBatchStride ? bj * p_.n : 0) + n0;
        PipeBarrier<PIPE_ALL>();
        for (uint32_t j = 0; j < p_.cStride; ++j) {
            const bool in = j < ncols;
            const int32_t z = in ? ZeroPointValue(bZpGm_.GetValue(base + j), p_.bCode) - (p_.mapB ? 128 : 0) : 0;
            anyZb = anyZb || z != 0;
            zb_.SetValue(j, z);
            mult_.SetValue(j, in ? bScaleGm_.GetValue(base + j) : 0.0f);
        }
        PipeBarrier<PIPE_ALL>();
        needRowSums_ = !kFloatCube && p_.k != 0 && anyZb;
        if (p_.aParamKind == 0) {
            Muls(mult_, mult_, aScale0_, p_.cStride);  // a_scale * b_scale[n] (commutes exactly)
            PipeBarrier<PIPE_V>();
            Div(mult_, mult_, ys_, p_.cStride);
        }
    }

    // Whether any of the tile's rows has a non-zero (mapped) a zero point: then the column sums of B' are needed.
    // Per-row parameters: mrows scalar reads per tile (Compute reads them again, row by row).
    __aicore__ inline bool RowZeroPointsNonZero(uint64_t ai, uint32_t m0, uint32_t mrows)
    {
        if (kFloatCube || p_.k == 0) {
            return false;
        }
        if (p_.aParamKind == 0) {
            return aZp0_ != 0;
        }
        const uint64_t base = (p_.aParamBatchStride ? ai * p_.m : 0) + m0;
        bool any = false;
        for (uint32_t i = 0; i < mrows; ++i) {
            any = any || ZeroPointValue(aZpGm_.GetValue(base + i), p_.aCode) - (p_.mapA ? 128 : 0) != 0;
        }
        return any;
    }

    // Per tile, after the cube: CB (zeros where it was not computed: every za of the tile is 0 then).
    __aicore__ inline void LoadColumnSums()
    {
        if (needColSums_) {
            DataCopy(cb_, wsCb_, p_.cStride);  // row 0 of the tile
        } else {
            Duplicate(cb_, 0, p_.cStride);
        }
        PipeBarrier<PIPE_ALL>();
    }

    __aicore__ inline void LoadRowSums(uint32_t mrows)
    {
        if (!needRowSums_) {
            return;  // K = 0, float8, or every zb of the tile is 0
        }
        DataCopy(ra_, wsRa_, AlignUp8(mrows));
        PipeBarrier<PIPE_ALL>();  // read by the scalar unit below
    }

    __aicore__ inline void CopyIn(uint32_t i)
    {
        LocalTensor<AccT> c = cQue_.AllocTensor<AccT>();
        if (p_.k != 0) {
            DataCopy(c, wsC_[static_cast<uint64_t>(i + 1) * p_.cStride], p_.cStride);  // row 0: CB
        } else {
            Duplicate(c, static_cast<AccT>(0), p_.cStride);  // K = 0: the empty sum
        }
        cQue_.EnQue(c);
    }

    // ncols: the tile's columns the cube wrote (the workspace row past them is never written: stale on the device).
    __aicore__ inline void Compute(uint64_t ai, uint32_t m, uint32_t i, uint32_t ncols)
    {
        // Row terms in 32-bit wrap-around: r = RA - K * za, s = za.
        int32_t za = aZp0_;
        float as = aScale0_;
        if (p_.aParamKind != 0) {
            const uint64_t pi = (p_.aParamBatchStride ? ai * p_.m : 0) + m;
            za = ZeroPointValue(aZpGm_.GetValue(pi), p_.aCode) - (p_.mapA ? 128 : 0);
            as = aScaleGm_.GetValue(pi);
        }
        const uint32_t ra = needRowSums_ ? static_cast<uint32_t>(ra_.GetValue(i)) : 0u;  // 0: zb is 0 here
        const uint32_t rTerm = ra - p_.k * static_cast<uint32_t>(za);
        const int32_t negR = static_cast<int32_t>(0u - rTerm);
        const int32_t negS = static_cast<int32_t>(0u - static_cast<uint32_t>(za));

        const uint32_t len = p_.cStride;
        LocalTensor<AccT> c = cQue_.DeQue<AccT>();
        PipeBarrier<PIPE_V>();  // acc_, tmpI_ and the row buffers may still be read by the previous row
        if constexpr (kFloatCube) {
            Muls(acc_, c, 1.0f, len);  // the float32 accumulators as they are (x * 1 is exact, NaN and Inf too)
        } else {
            if (p_.k <= kVectorExactMaxK) {
                Muls(tmpI_, zb_, negR, len);  // - zb[n] * (RA - K za)
                PipeBarrier<PIPE_V>();
                Add(c, c, tmpI_, len);
                PipeBarrier<PIPE_V>();
                Muls(tmpI_, cb_, negS, len);  // - za * CB[n]
                PipeBarrier<PIPE_V>();
                Add(c, c, tmpI_, len);
                PipeBarrier<PIPE_V>();
            } else {
                CorrectWrapping(c, negR, negS, ncols);  // the columns the cube wrote
            }
            Cast(acc_, c, kRoundInt32ToFloat, len);  // float32(acc): round to nearest even, as numpy's astype
        }
        cQue_.FreeTensor(c);
        PipeBarrier<PIPE_V>();
        ApplyMultiplier(as, len);
        PipeBarrier<PIPE_V>();
        bool rowHasNaN = false;
        if constexpr (kFloatCube) {
            rowHasNaN = ReplaceNonFinite(ncols);
        }
        LocalTensor<YT> y = yQue_.AllocTensor<YT>();
        if constexpr (Float8Out<YT>::kIsFloat) {
            // float8 y (ascend910_95): saturate to +-max, then round to nearest even (ONNX QuantizeLinear with
            // saturate=1; the golden's clip-then-cast). The zero point of a float8 y is 0.
            Maxs(acc_, acc_, -p_.yMax, len);
            PipeBarrier<PIPE_V>();
            Mins(acc_, acc_, p_.yMax, len);
            PipeBarrier<PIPE_V>();
            Float8Out<YT>::Cast(y, acc_, len);
            if (rowHasNaN) {
                RestoreNaN(y, ncols);
            }
        } else {
            Maxs(acc_, acc_, -kClamp, len);
            PipeBarrier<PIPE_V>();
            Mins(acc_, acc_, kClamp, len);
            PipeBarrier<PIPE_V>();
            Cast(tmpI_, acc_, RoundMode::CAST_RINT, len);  // round half to even
            PipeBarrier<PIPE_V>();
            Cast(acc_, tmpI_, RoundMode::CAST_NONE, len);  // exact: |v| <= kClamp
            PipeBarrier<PIPE_V>();
            Adds(acc_, acc_, yZp_, len);                   // round first, then add the zero point (ORT, FACTS 6)
            PipeBarrier<PIPE_V>();
            Maxs(acc_, acc_, qMin_, len);
            PipeBarrier<PIPE_V>();
            Mins(acc_, acc_, qMax_, len);
            PipeBarrier<PIPE_V>();
            Cast(half_, acc_, RoundMode::CAST_NONE, len);  // exact small integers
            PipeBarrier<PIPE_V>();
            Cast(y, half_, RoundMode::CAST_NONE, len);
        }
        yQue_.EnQue(y);
    }

    // The same correction for K > kVectorExactMaxK, where the terms may leave int32: the scalar unit's 32-bit
    // arithmetic wraps by definition (what the vector unit does on int32 overflow is not documented). O(M N)
    // scalar steps against the cube's O(M N K) work.
    __aicore__ inline void CorrectWrapping(const LocalTensor<int32_t>& c, int32_t negR, int32_t negS, uint32_t len)
    {
        PipeBarrier<PIPE_ALL>();  // c (DMA), zb and cb (vector / scalar) complete before the scalar reads
        for (uint32_t j = 0; j < len; ++j) {
            const uint32_t v = static_cast<uint32_t>(c.GetValue(j)) +
                               static_cast<uint32_t>(zb_.GetValue(j)) * static_cast<uint32_t>(negR) +
                               static_cast<uint32_t>(cb_.GetValue(j)) * static_cast<uint32_t>(negS);
            c.SetValue(j, static_cast<int32_t>(v));
        }
        PipeBarrier<PIPE_ALL>();
    }

    // float8 operands: the float32 accumulators may hold NaN / +-Inf (IEEE, e.g. Inf * 0). What the vector unit's
    // max / min do with NaN is not documented, so the scalar unit replaces them before the clamps: NaN -> 0 (an
    // integer y then gets y_zero_point, as the golden; a float8 y gets NaN back in RestoreNaN, flagged in tmpI_),
    // +-Inf -> +-bound (saturates either way). O(N) scalar steps per row against the cube's O(N K).
    __aicore__ inline bool ReplaceNonFinite(uint32_t len)
    {
        const float bound = Float8Out<YT>::kIsFloat ? p_.yMax : kClamp;
        bool anyNaN = false;
        PipeBarrier<PIPE_ALL>();
        for (uint32_t j = 0; j < len; ++j) {
            const float v = acc_.GetValue(j);
            const bool isNaN = v != v;
            tmpI_.SetValue(j, isNaN ? 1 : 0);
            if (isNaN) {
                acc_.SetValue(j, 0.0f);
                anyNaN = true;
            } else if (v - v != 0.0f) {
                acc_.SetValue(j, v > 0.0f ? bound : -bound);
            }
        }
        PipeBarrier<PIPE_ALL>();
        return anyNaN;
    }

    // Writes the float8 NaN code (the vector unit's conversion of a float NaN) where ReplaceNonFinite flagged NaN.
    __aicore__ inline void RestoreNaN(const LocalTensor<YT>& y, uint32_t len)
    {
        const uint32_t kNaNProbe = 8;  // one 32-byte block of float
        Duplicate(tmpF_, BitsToFloat(0x7FC00000u), kNaNProbe);
        LocalTensor<YT> code = half_.template ReinterpretCast<YT>();
        PipeBarrier<PIPE_V>();
        Float8Out<YT>::Cast(code, tmpF_, kNaNProbe);
        PipeBarrier<PIPE_ALL>();
        for (uint32_t j = 0; j < len; ++j) {
            if (tmpI_.GetValue(j) != 0) {
                y.SetValue(j, code.GetValue(0));
            }
        }
        PipeBarrier<PIPE_ALL>();
    }

    // acc *= (a_scale * b_scale) / y_scale in the golden's order, for each parameter granularity.
    __aicore__ inline void ApplyMultiplier(float as, uint32_t len)
    {
        if (p_.bParamKind != 0) {
            if (p_.aParamKind != 0) {
                Muls(tmpF_, mult_, as, len);  // mult_ holds b_scale here
                PipeBarrier<PIPE_V>();
                Div(tmpF_, tmpF_, ys_, len);
                PipeBarrier<PIPE_V>();
                Mul(acc_, acc_, tmpF_, len);
            } else {
                Mul(acc_, acc_, mult_, len);
            }
            return;
        }
        const float mult = (as * bScale0_) / yScale_;
        Muls(acc_, acc_, mult, len);
    }

    __aicore__ inline void CopyOut(uint64_t row, uint32_t n0, uint32_t ncols)
    {
        LocalTensor<YT> y = yQue_.DeQue<YT>();
        const uint32_t perBlock = kBlockBytes / sizeof(YT);
        if constexpr (!kSocHasDataCopyPad) {
            if (ncols % perBlock != 0 && ncols >= perBlock) {
                CopyOutBackOff(yGm_[row * p_.n + n0], y, ncols);
                yQue_.FreeTensor(y);
                return;
            }
        }
        // DataCopyPad, whole blocks, or (no DataCopyPad) a segment narrower than a block: the scalar-stored tail,
        // which the plan allows only when one core writes all of y.
        CopyOutExact(yGm_[row * p_.n + n0], y, ncols);  // other cores own the bytes past ncols
        yQue_.FreeTensor(y);
    }

    // No DataCopyPad (ascend310p): a DMA moves whole 32-byte blocks, and CopyOutExact's scalar stores end in a
    // data-cache flush that may write back a whole 64-byte line, bytes of which other cores write in the same launch
    // (the next tile's columns, the next row): a race. So a segment of at least one block that ends in a partial
    // block goes as its whole blocks and then the one block ENDING at the segment's end (back-off): it rewrites a
    // few of the segment's own bytes with the values they already have and never touches a byte past the segment.
    // The scalar unit gathers that block into the spare block at the end of the y slot (aligned UB; the plan makes
    // the slot one block longer on these SoCs). No scalar GM store, no flush. The plan picks baseN so that every
    // segment with a partial block is at least a block wide (or runs the op on one core).
    __aicore__ inline void CopyOutBackOff(GlobalTensor<YT> dst, const LocalTensor<YT>& y, uint32_t ncols)
    {
        const uint32_t perBlock = kBlockBytes / sizeof(YT);
        const uint32_t spare = p_.ubYOut / sizeof(YT) - perBlock;
        DataCopy(dst, y, ncols / perBlock * perBlock);
        WaitPipe<HardEvent::V_S>();  // y's elements come from the vector unit
        for (uint32_t i = 0; i < perBlock; ++i) {
            y.SetValue(spare + i, y.GetValue(ncols - perBlock + i));
        }
        WaitPipe<HardEvent::S_MTE3>();  // the gathered block is in UB before the DMA reads it
        DataCopy(dst[ncols - perBlock], y[spare], perBlock);
    }

    template <HardEvent E>
    __aicore__ inline void WaitPipe()
    {
        aqo_kernel::WaitPipe<E>(pipe_);
    }

    // ---- unaligned GM -> UB copy (differs by DataCopyPad; the way back is CopyOutExact) ---------------------
    // Copies src[off, off + len) into dst[0, len) and makes dst[len, AlignUp32(len)) defined (zero or real bytes).
    __aicore__ inline void CopyBytesIn(const LocalTensor<uint8_t>& dst, const GlobalTensor<uint8_t>& src,
                                       uint64_t off, uint32_t len, uint64_t srcBytes)
    {
        const uint32_t padded = AlignUp32(len);
#if AQO_SOC_HAS_DATACOPYPAD
        DataCopyExtParams prm(1, len, 0, 0, 0);
        DataCopyPadExtParams<uint8_t> pad(true, 0, static_cast<uint8_t>(padded - len), 0);
        DataCopyPad(dst, src[off], prm, pad);
        (void)srcBytes;
#else
        if (off + padded <= srcBytes) {
            DataCopy(dst, src[off], padded);  // the few bytes past len belong to the same tensor
            return;
        }
        const uint32_t body = len / kBlockBytes * kBlockBytes;
        if (body != 0) {
            DataCopy(dst, src[off], body);
        }
        PipeBarrier<PIPE_ALL>();
        for (uint32_t j = body; j < padded; ++j) {
            dst.SetValue(j, j < len ? src.GetValue(off + j) : static_cast<uint8_t>(0));
        }
        PipeBarrier<PIPE_ALL>();
#endif
    }

    TD p_;
    TPipe* pipe_ = nullptr;
    MM* mm_ = nullptr;
    uint64_t aBytes_ = 0;
    uint64_t bBytes_ = 0;
    GlobalTensor<uint8_t> aGm_, bGm_, aZpGm_, bZpGm_, yZpGm_;
    GlobalTensor<AT> aCubeGm_;
    GlobalTensor<BT> bCubeGm_;
    GlobalTensor<float> aScaleGm_, bScaleGm_, yScaleGm_;
    GlobalTensor<YT> yGm_;
    GlobalTensor<int8_t> wsA_, wsB_, wsOnes_;
    GlobalTensor<AccT> wsC_;
    GlobalTensor<int32_t> wsRa_, wsCb_;
    TQue<QuePosition::VECIN, 2> cQue_;
    TQue<QuePosition::VECOUT, 2> yQue_;
    TQue<QuePosition::VECIN, 1> mapInQue_;
    TQue<QuePosition::VECOUT, 1> mapOutQue_;
    TBuf<TPosition::VECCALC> mmWsBuf_, zbBuf_, cbBuf_, tmpIBuf_, accBuf_, multBuf_, ysBuf_, tmpFBuf_, halfBuf_,
        raBuf_, mapHalfBuf_;
    LocalTensor<int32_t> zb_, cb_, tmpI_, ra_;
    LocalTensor<float> acc_, mult_, ys_, tmpF_;
    LocalTensor<half> half_, mapHalf_;
    float yScale_ = 1.0f, yZp_ = 0.0f, aScale0_ = 1.0f, bScale0_ = 1.0f, qMin_ = 0.0f, qMax_ = 0.0f;
    int32_t aZp0_ = 0, bZp0_ = 0;
    bool haveRows_ = false;     // wsA_ (when mapped) holds the rows of a at rowsOff_
    bool haveRowSums_ = false;  // wsRa_ holds their row sums
    bool onesWritten_ = false;  // wsOnes_ is written (first tile that needs it)
    bool onesRowWritten_ = false;  // mapped a: wsA_'s row 0 holds ones (first tile that needs column sums)
    bool needRowSums_ = false;  // this tile: some zb != 0 (K != 0, integer operands)
    bool needColSums_ = false;  // this tile: some za != 0
    uint64_t rowsOff_ = 0;
    uint32_t rowsCount_ = 0;
};

template <class YT, class AT = int8_t, class BT = int8_t, class TD>
__aicore__ inline void Run(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                           GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& p, TPipe* pipe,
                           typename Cube<AT, BT>::MM* mm)
{
    KernelQLinearMatMul<TD, YT, AT, BT> op;
    op.Init(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, p, pipe, mm);
    op.Process();
}

#if AQO_SOC_HAS_FP8
// float8 operands (ascend910_95): their own Matmul object (float8 x float8 -> float32) registered in place of the
// int8 one, then the same kernel class; one instantiation per (a, b, y) dtype triple.
template <class AT, class BT, class YT, class TD>
__aicore__ inline void RunFloat8Cube(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                                     GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& p)
{
    TPipe pipe;
    typename Cube<AT, BT>::MM mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &p.cubeTiling);
    Run<YT, AT, BT>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, p, &pipe, &mm);
}

template <class AT, class BT, class TD>
__aicore__ inline void RunFloat8Y(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                                  GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& p)
{
    if (p.yCode == kCodeInt8) {
        RunFloat8Cube<AT, BT, int8_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, p);
    } else if (p.yCode == kCodeUInt8) {
        RunFloat8Cube<AT, BT, uint8_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, p);
    } else if (p.yCode == kCodeFloat8E4M3FN) {
        RunFloat8Cube<AT, BT, fp8_e4m3fn_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, p);
    } else {
        RunFloat8Cube<AT, BT, fp8_e5m2_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, p);
    }
}

template <class AT, class TD>
__aicore__ inline void RunFloat8B(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                                  GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& p)
{
    if (p.bCode == kCodeFloat8E4M3FN) {
        RunFloat8Y<AT, fp8_e4m3fn_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, p);
    } else {
        RunFloat8Y<AT, fp8_e5m2_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, p);
    }
}
#endif

}  // namespace aqo_qmm

extern "C" __global__ __aicore__ void aqo_qlinear_matmul(GM_ADDR a, GM_ADDR a_scale, GM_ADDR a_zero_point, GM_ADDR b,
                                                         GM_ADDR b_scale, GM_ADDR b_zero_point, GM_ADDR y_scale,
                                                         GM_ADDR y_zero_point, GM_ADDR y, GM_ADDR workspace,
                                                         GM_ADDR tiling)
{
#if AQO_SOC_SPLIT_CORES
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);  // mix kernel, 1 cube : 2 vector cores (310p: AI cores)
#endif
    GET_TILING_DATA(tilingData, tiling);
    GM_ADDR userWs = aqo_qmm::UserWorkspace(workspace);
    const auto& p = tilingData;
#if AQO_SOC_HAS_FP8
    if (p.aCode == aqo_qmm::kCodeFloat8E4M3FN) {
        aqo_qmm::RunFloat8B<fp8_e4m3fn_t>(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point,
                                          y, userWs, p);
        return;
    }
    if (p.aCode == aqo_qmm::kCodeFloat8E5M2) {
        aqo_qmm::RunFloat8B<fp8_e5m2_t>(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point,
                                        y, userWs, p);
        return;
    }
#endif
    TPipe pipe;
    aqo_qmm::MmInt8 mm;
    // On split SoCs the cube core runs the Matmul server inside this macro and returns; the vector cores go on.
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tilingData.cubeTiling);
    if (p.yCode == aqo_qmm::kCodeUInt8) {
        aqo_qmm::Run<uint8_t>(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, y, userWs,
                              p, &pipe, &mm);
#if AQO_SOC_HAS_FP8
    } else if (p.yCode == aqo_qmm::kCodeFloat8E4M3FN) {
        aqo_qmm::Run<fp8_e4m3fn_t>(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, y,
                                   userWs, p, &pipe, &mm);
    } else if (p.yCode == aqo_qmm::kCodeFloat8E5M2) {
        aqo_qmm::Run<fp8_e5m2_t>(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, y,
                                 userWs, p, &pipe, &mm);
#endif
    } else {
        aqo_qmm::Run<int8_t>(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, y, userWs,
                             p, &pipe, &mm);
    }
}

// aqo_kernel_common.h's SoC trait macros end with this kernel: the emulator runner compiles it once per SoC in one
// translation unit.
#undef AQO_SOC_HAS_DATACOPYPAD
#undef AQO_SOC_HAS_BF16
#undef AQO_SOC_HAS_FP8
#undef AQO_SOC_SPLIT_CORES
