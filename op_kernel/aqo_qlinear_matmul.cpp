// AqoQLinearMatMul: y = saturate(rint(float32(acc) * ((a_scale * b_scale) / y_scale)) + y_zero_point) with
// acc = sum_k (a - a_zp)(b - b_zp) wrapped to int32 (ONNX QLinearMatMul; the golden's arithmetic,
// python/ascend_quant_ops/golden/qlinear_matmul.py). One source for ascend910b, ascend310p and ascend910_95.
//
// The stages, each in its header (the plan, op_host/tiling_core/qlinear_matmul_plan.h, sizes everything):
//   aqo_qmm_cube_stage.h        the products, block by block, with the operands prepared once (uint8 mapping, the
//                               ones row of the column sums, the row sums) and the int32 -> float32 conversion;
//   aqo_qmm_zero_point.h        the zero-point terms, exact modulo 2^32;
//   aqo_qmm_requant_epilogue.h  the requantization (and ascend910_95's float8 y and float8 x float8 operands);
//   aqo_qmm_copy_out.h          y rows to GM, DMA only.
//   aqo_qmm_vector_decode.h     the vector decode path (tiling key 1): a short a against a uint8 b, on the vector
//                               cores alone (b read once, no mapped copy for the cube).
//   aqo_qmm_cube_decode_310p.h  ascend310p's cube decode path (tiling key 2): a short a on the AI core's own cube
//                               pipeline, b turned in UB and fed from L1 (no Matmul API).
//   aqo_qmm_cube_gemm_310p.h    ascend310p's cube GEMM path (tiling key 3): a longer a streamed past panels of b
//                               turned once and kept in L1, on the AI core's own cube pipeline.
// This file: the kernel function, the dispatch on the tiling key and the operand / output types, and the block loop.
// Not the fixpipe's FP19 dequantization path (+-1 against ONNX on about 1% of outputs: docs/references.md).
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "aqo_kernel_common.h"

using namespace AscendC;

namespace aqo_qmm {

using namespace aqo_kernel;  // SoC traits (AQO_SOC_*), AlignUp32, BitsToFloat, CopyOutExact, Float8Out, WaitPipe

#include "aqo_qmm_common.h"
#include "aqo_qmm_zero_point.h"
#include "aqo_qmm_cube_stage.h"
#include "aqo_qmm_requant_epilogue.h"
#include "aqo_qmm_copy_out.h"
#include "aqo_qmm_vector_decode.h"
#if !AQO_SOC_SPLIT_CORES
#include "aqo_qmm_cube_decode_310p.h"
#include "aqo_qmm_cube_gemm_310p.h"
#endif

// TD: the tiling-data struct GET_TILING_DATA gives (CANN generates it from op_host/aqo_qlinear_matmul_tiling.h, whose
// fields are op_host/tiling_core/qlinear_matmul_tiling_fields.h): the kernel reads the fields by name.
template <class TD, class AT, class BT, bool TRANS, class YT>
class KernelQLinearMatMul {
    using Stage = QmmCubeStage<TD, AT, BT, TRANS>;
    using MM = typename Stage::MM;
    using AccT = typename Stage::AccT;

public:
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                                GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& t, TPipe* pipe,
                                MM* mm)
    {
        t_ = &t;
        // UB in the plan's order (its explanation lists the same buffers): the 310p Matmul workspace first.
        stage_.InitLocalWorkspace(t, pipe, mm);
        stage_.Init(a, b, userWs, t, pipe, mm, &zp_);
        zp_.Init(aZp, bZp, t, pipe);
        epi_.Init(aScale, bScale, yScale, yZp, t, pipe);
        out_.Init(y, static_cast<uint64_t>(t.batch) * t.m * t.n, t.n, t.cStride, pipe);
    }

    // The block loop: the worker's calls (split SoCs: the next call's product requested before this one's
    // epilogue), their blocks as the cube delivers them, each in row chunks.
    __aicore__ inline void Process()
    {
        const TD& t = *t_;
        stage_.Prepare();
        QmmCall c, next;
        bool have = stage_.NextCall(&c);
        if (have) {
            stage_.Request(&c);
        }
        while (have) {
            const bool more = stage_.NextCall(&next);
            if (more && Stage::kRequestAhead) {
                stage_.Request(&next);
            }
            stage_.BeginCall(c);
            epi_.LoadRows(c);
            for (uint32_t j = 0; j < c.blocks; ++j) {
                // The block's column parameters first (they do not depend on its product): their loads overlap the
                // cube's work on it.
                const uint32_t n0 = c.n0 + j * t.baseN;
                const uint32_t cols = QmmMin(t.baseN, c.n0 + c.cols - n0);
                zp_.LoadColumns(c.bj, n0, cols, stage_.StagingIn(), stage_.StagingHalf());
                epi_.LoadColumns(c, n0, cols);
                QmmBlock<AccT> blk = stage_.NextBlock();
                stage_.LoadColumnSums(blk);
                for (uint32_t r0 = 0; r0 < c.rows; r0 += t.rowsPerChunk) {
                    const uint32_t rows = QmmMin(t.rowsPerChunk, c.rows - r0);
                    LocalTensor<AccT> acc = stage_.CopyInRows(blk, r0, rows);
                    stage_.Correct(acc, r0, rows, blk.cols);
                    LocalTensor<float> f = stage_.ToFloat(acc, rows * t.cStride);
                    LocalTensor<YT> y = epi_.Compute(f, stage_.Scratch(), r0, rows, blk.cols);
                    stage_.FreeRows(acc);
                    out_.Rows(y, c.bi * t.m + c.m0 + r0, rows, blk.n0, blk.cols);
                    epi_.FreeY(y);
                }
            }
            stage_.EndCall();
            if (more && !Stage::kRequestAhead) {
                stage_.Request(&next);
            }
            c = next;
            have = more;
        }
    }

private:
    const TD* t_ = nullptr;
    Stage stage_;
    QmmZeroPoints<TD> zp_;
    QmmRequantEpilogue<TD, YT, QmmAcc<AT>::kFloat> epi_;
    QmmCopyOut<YT> out_;
};

// One (cube types, transposition, y type): its Matmul object (on split SoCs the cube core runs the API's server in
// REGIST_MATMUL_OBJ and returns; the vector cores go on), then the kernel class.
template <class AT, class BT, bool TRANS, class YT, class TD>
__aicore__ inline void Run(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                           GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& t)
{
    TPipe pipe;
    typename QmmCube<AT, BT, TRANS>::MM mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t.cubeTiling);
    KernelQLinearMatMul<TD, AT, BT, TRANS, YT> op;
    op.Init(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t, &pipe, &mm);
    op.Process();
}

template <class AT, class BT, bool TRANS, class TD>
__aicore__ inline void RunY(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                            GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& t)
{
    if (t.yCode == kQmmCodeUInt8) {
        Run<AT, BT, TRANS, uint8_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
#if AQO_SOC_HAS_FP8
    } else if (t.yCode == kQmmCodeFloat8E4M3FN) {
        Run<AT, BT, TRANS, fp8_e4m3fn_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
    } else if (t.yCode == kQmmCodeFloat8E5M2) {
        Run<AT, BT, TRANS, fp8_e5m2_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
#endif
    } else {
        Run<AT, BT, TRANS, int8_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
    }
}

template <class AT, class BT, class TD>
__aicore__ inline void RunTrans(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                                GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& t)
{
    if (t.bTrans != 0) {
        RunY<AT, BT, true>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
    } else {
        RunY<AT, BT, false>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
    }
}

#if AQO_SOC_HAS_FP8
// float8 operands (ascend910_95): a float8 x float8 cube (float32 accumulators, zero points 0), b not transposed.
template <class AT, class TD>
__aicore__ inline void RunFloat8B(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                                  GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& t)
{
    if (t.bCode == kQmmCodeFloat8E4M3FN) {
        RunY<AT, fp8_e4m3fn_t, false>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
    } else {
        RunY<AT, fp8_e5m2_t, false>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
    }
}
#endif

// The cube path (tiling key 0): float8 operands on ascend910_95, else the int8 cube (uint8 operands mapped).
template <class TD>
__aicore__ inline void RunCube(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                               GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& t)
{
#if AQO_SOC_HAS_FP8
    if (t.aCode == kQmmCodeFloat8E4M3FN) {
        RunFloat8B<fp8_e4m3fn_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
        return;
    }
    if (t.aCode == kQmmCodeFloat8E5M2) {
        RunFloat8B<fp8_e5m2_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
        return;
    }
#endif
    RunTrans<int8_t, int8_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
}

// The vector decode path (tiling key 1): a (int8 or uint8) against a uint8 b, on the vector cores.
template <class AT, class YT, class TD>
__aicore__ inline void RunVectorDecode(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale,
                                       GM_ADDR bZp, GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& t)
{
    TPipe pipe;
    KernelQLinearMatMulVectorDecode<TD, AT, YT> op;
    op.Init(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t, &pipe);
    op.Process();
}

template <class AT, class TD>
__aicore__ inline void RunVectorDecodeY(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale,
                                        GM_ADDR bZp, GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs,
                                        const TD& t)
{
    if (t.yCode == kQmmCodeUInt8) {
        RunVectorDecode<AT, uint8_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
#if AQO_SOC_HAS_FP8
    } else if (t.yCode == kQmmCodeFloat8E4M3FN) {
        RunVectorDecode<AT, fp8_e4m3fn_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
    } else if (t.yCode == kQmmCodeFloat8E5M2) {
        RunVectorDecode<AT, fp8_e5m2_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
#endif
    } else {
        RunVectorDecode<AT, int8_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
    }
}

#if !AQO_SOC_SPLIT_CORES
// The cube decode path (tiling key 2, ascend310p): a short a against an int8 b (or uint8 x uint8) on the AI core's
// own cube pipeline.
template <class AT, class BT, bool TRANS, class TD>
__aicore__ inline void RunCubeDecode(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                                     GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, const TD& t)
{
    TPipe pipe;
    if (t.yCode == kQmmCodeUInt8) {
        KernelQLinearMatMulCubeDecode310p<TD, AT, BT, uint8_t, TRANS> op;
        op.Init(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, t, &pipe);
        op.Process();
    } else {
        KernelQLinearMatMulCubeDecode310p<TD, AT, BT, int8_t, TRANS> op;
        op.Init(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, t, &pipe);
        op.Process();
    }
}

// b stored [K, N] or transposed, [N, K].
template <class AT, class BT, class TD>
__aicore__ inline void RunCubeDecodeTrans(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale,
                                          GM_ADDR bZp, GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, const TD& t)
{
    if (t.bTrans != 0) {
        RunCubeDecode<AT, BT, true>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, t);
    } else {
        RunCubeDecode<AT, BT, false>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, t);
    }
}

// The cube GEMM path (tiling key 3, ascend310p): a longer a against panels of b turned once and kept in L1.
template <class AT, class BT, bool TRANS, class TD>
__aicore__ inline void RunCubeGemm(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                                   GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs, const TD& t)
{
    TPipe pipe;
    if (t.yCode == kQmmCodeUInt8) {
        KernelQLinearMatMulCubeGemm310p<TD, AT, BT, uint8_t, TRANS> op;
        op.Init(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t, &pipe);
        op.Process();
    } else {
        KernelQLinearMatMulCubeGemm310p<TD, AT, BT, int8_t, TRANS> op;
        op.Init(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t, &pipe);
        op.Process();
    }
}

// b stored [K, N] or transposed, [N, K].
template <class AT, class BT, class TD>
__aicore__ inline void RunCubeGemmTrans(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale,
                                        GM_ADDR bZp, GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs,
                                        const TD& t)
{
    if (t.bTrans != 0) {
        RunCubeGemm<AT, BT, true>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
    } else {
        RunCubeGemm<AT, BT, false>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
    }
}

template <class TD>
__aicore__ inline void RunCubeGemmTypes(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale,
                                        GM_ADDR bZp, GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, GM_ADDR userWs,
                                        const TD& t)
{
    if (t.bCode == kQmmCodeUInt8) {
        RunCubeGemmTrans<uint8_t, uint8_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
    } else if (t.aCode == kQmmCodeUInt8) {
        RunCubeGemmTrans<uint8_t, int8_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
    } else {
        RunCubeGemmTrans<int8_t, int8_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, userWs, t);
    }
}

// The cube's integer pairs the plan sends here: int8 x int8, uint8 x int8, uint8 x uint8.
template <class TD>
__aicore__ inline void RunCubeDecodeTypes(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale,
                                          GM_ADDR bZp, GM_ADDR yScale, GM_ADDR yZp, GM_ADDR y, const TD& t)
{
    if (t.bCode == kQmmCodeUInt8) {
        RunCubeDecodeTrans<uint8_t, uint8_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, t);
    } else if (t.aCode == kQmmCodeUInt8) {
        RunCubeDecodeTrans<uint8_t, int8_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, t);
    } else {
        RunCubeDecodeTrans<int8_t, int8_t>(a, aScale, aZp, b, bScale, bZp, yScale, yZp, y, t);
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
    aqo_kernel::UseIeeeHalfMode();  // half / bfloat16 results keep Inf and NaN (every core, before any instruction)
    GET_TILING_DATA(tilingData, tiling);
    GM_ADDR userWs = GetUserWorkspace(workspace);
    const auto& t = tilingData;
    if (TILING_KEY_IS(1)) {
#if AQO_SOC_SPLIT_CORES
        // No Matmul object on this path: its binary is a vector kernel (with the hardware SyncAll of its K slices),
        // so no cube core starts, and its blockDim counts vector cores (QLinearMatMulBlockDim).
        KERNEL_TASK_TYPE(1, KERNEL_TYPE_MIX_AIV_1_0);
#endif
        if (t.aCode == aqo_qmm::kQmmCodeUInt8) {
            aqo_qmm::RunVectorDecodeY<uint8_t>(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
                                               y_zero_point, y, userWs, t);
        } else {
            aqo_qmm::RunVectorDecodeY<int8_t>(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
                                              y_zero_point, y, userWs, t);
        }
    } else if (TILING_KEY_IS(0)) {
        aqo_qmm::RunCube(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, y, userWs, t);
    }
#if !AQO_SOC_SPLIT_CORES
    // ascend310p only: the split SoCs' vector cores have no L1 / L0 (their plans never choose this key).
    else if (TILING_KEY_IS(2)) {
        aqo_qmm::RunCubeDecodeTypes(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, y, t);
    } else if (TILING_KEY_IS(3)) {
        aqo_qmm::RunCubeGemmTypes(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, y,
                                  userWs, t);
    }
#endif
}

// aqo_kernel_common.h's SoC trait macros end with this kernel: the emulator runner compiles it once per SoC in one
// translation unit.
#undef AQO_SOC_HAS_DATACOPYPAD
#undef AQO_SOC_HAS_BF16
#undef AQO_SOC_HAS_FP8
#undef AQO_SOC_SPLIT_CORES
