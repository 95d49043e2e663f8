// AqoQuantMatMul: y = out_dtype(float32(acc) * float32(a_scale * b_scale) + bias) with acc = sum_k (a - a_zp)(b - b_zp)
// wrapped to int32 (python/ascend_quant_ops/golden/quant_matmul.py, the definition). One source for ascend910b,
// ascend310p and ascend910_95.
//
// The stages, each in its header (the plan, op_host/tiling_core/quant_matmul_plan.h, sizes everything):
//   aqo_qmm_cube_stage.h      the products, block by block (shared with AqoQLinearMatMul), and float32(acc);
//   aqo_qmm_zero_point.h      the zero-point terms, exact modulo 2^32;
//   aqo_qmm_float_epilogue.h  the scales, the bias and the output conversion;
//   aqo_qmm_copy_out.h        y rows to GM, DMA only.
// This file: the kernel function, the dispatch on the output type and b's layout, and the block loop.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "aqo_kernel_common.h"

using namespace AscendC;

namespace aqo_quant_mm {

using namespace aqo_kernel;  // SoC traits (AQO_SOC_*), AlignUp32, CopyOutExact, WaitPipe

#include "aqo_qmm_common.h"
#include "aqo_qmm_zero_point.h"
#include "aqo_qmm_cube_stage.h"
#include "aqo_qmm_float_epilogue.h"
#include "aqo_qmm_copy_out.h"

template <class TD, bool TRANS, class YT>
class KernelQuantMatMul {
    using Stage = QmmCubeStage<TD, int8_t, int8_t, TRANS>;
    using MM = typename Stage::MM;
    using AccT = typename Stage::AccT;

public:
    __aicore__ inline void Init(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                                GM_ADDR bias, GM_ADDR y, GM_ADDR userWs, const TD& t, TPipe* pipe, MM* mm)
    {
        t_ = &t;
        // UB in the plan's order (its explanation lists the same buffers): the 310p Matmul workspace first.
        stage_.InitLocalWorkspace(t, pipe, mm);
        stage_.Init(a, b, userWs, t, pipe, mm, &zp_);
        zp_.Init(aZp, bZp, t, pipe);
        epi_.Init(aScale, bScale, bias, t, pipe);
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
                    LocalTensor<YT> y = epi_.Compute(f, r0, rows);
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
    QmmFloatEpilogue<TD, YT> epi_;
    QmmCopyOut<YT> out_;
};

// One (transposition, output type): its Matmul object (on split SoCs the cube core runs the API's server in
// REGIST_MATMUL_OBJ and returns; the vector cores go on), then the kernel class.
template <bool TRANS, class YT, class TD>
__aicore__ inline void Run(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                           GM_ADDR bias, GM_ADDR y, GM_ADDR userWs, const TD& t)
{
    TPipe pipe;
    typename QmmCube<int8_t, int8_t, TRANS>::MM mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t.cubeTiling);
    KernelQuantMatMul<TD, TRANS, YT> op;
    op.Init(a, aScale, aZp, b, bScale, bZp, bias, y, userWs, t, &pipe, &mm);
    op.Process();
}

template <bool TRANS, class TD>
__aicore__ inline void RunOut(GM_ADDR a, GM_ADDR aScale, GM_ADDR aZp, GM_ADDR b, GM_ADDR bScale, GM_ADDR bZp,
                              GM_ADDR bias, GM_ADDR y, GM_ADDR userWs, const TD& t)
{
#if AQO_SOC_SPLIT_CORES
    // 910b / 950 only: 310p's float32 -> float16 Cast has no round-to-nearest-even mode (CAST_RINT issues no
    // instruction there) and it has no bfloat16 (the SoC table's quant_matmul_out_dtypes: float32 only).
    if (t.outCode == kQuantMmOutFloat16) {
        Run<TRANS, half>(a, aScale, aZp, b, bScale, bZp, bias, y, userWs, t);
        return;
    }
    if (t.outCode == kQuantMmOutBFloat16) {
        Run<TRANS, bfloat16_t>(a, aScale, aZp, b, bScale, bZp, bias, y, userWs, t);
        return;
    }
#endif
    Run<TRANS, float>(a, aScale, aZp, b, bScale, bZp, bias, y, userWs, t);
}

}  // namespace aqo_quant_mm

extern "C" __global__ __aicore__ void aqo_quant_matmul(GM_ADDR a, GM_ADDR a_scale, GM_ADDR a_zero_point, GM_ADDR b,
                                                       GM_ADDR b_scale, GM_ADDR b_zero_point, GM_ADDR bias, GM_ADDR y,
                                                       GM_ADDR workspace, GM_ADDR tiling)
{
#if AQO_SOC_SPLIT_CORES
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);  // mix kernel, 1 cube : 2 vector cores (310p: AI cores)
#endif
    aqo_kernel::UseIeeeHalfMode();  // half / bfloat16 results keep Inf and NaN (every core, before any instruction)
    GET_TILING_DATA(tilingData, tiling);
    GM_ADDR userWs = GetUserWorkspace(workspace);
    const auto& t = tilingData;
    // Every SoC: the cube multiplies int8 x int8 (uint8 operands are mapped by the cube stage).
    if (t.bTrans != 0) {
        aqo_quant_mm::RunOut<true>(a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias, y, userWs, t);
    } else {
        aqo_quant_mm::RunOut<false>(a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias, y, userWs, t);
    }
}

// aqo_kernel_common.h's SoC trait macros end with this kernel: the emulator runner compiles it once per SoC in one
// translation unit.
#undef AQO_SOC_HAS_DATACOPYPAD
#undef AQO_SOC_HAS_BF16
#undef AQO_SOC_HAS_FP8
#undef AQO_SOC_SPLIT_CORES
