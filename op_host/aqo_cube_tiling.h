// The Matmul API's TCubeTiling of the quantized matmuls' cube stage (AqoQLinearMatMul, AqoQuantMatMul): CANN's matmul
// tiling API for the largest call the kernel makes (one strip, with its ones row, against callBlocks base blocks),
// its base block fixed to the plan's, then the plan's L1 depths and steps (the plan, matmul_cube_plan.cpp, sized them
// against the SoC's L1 / L0 and, on 310p, the local workspace): one source of the values the emulator runs with
// (aqo::QmmCubeTiling).
//
// Included after the operator's tiling-data header (which brings CANN's tiling/tiling_api.h).
#ifndef AQO_CUBE_TILING_H
#define AQO_CUBE_TILING_H

#include <cstdint>
#include <cstdio>

#include "tiling_core/matmul_cube_plan.h"

namespace aqo_host {

// Fills *ct (the tiling data's cubeTiling member) for the stage tiling t (its cubeACode / cubeBCode / bTrans /
// ubMatmulWs fields) and the plan's values cv; false, with the reason on stderr under `op`, when the API refuses the
// block or, on 310p, its local workspace would not fit the UB the kernel allocates for it.
template <class StageTiling, class CubeTilingT>
inline bool FillCubeTiling(const char* op, const platform_ascendc::PlatformAscendC& platform,
                           const aqo::QmmCubeTilingValues& cv, const StageTiling& t, CubeTilingT* ct)
{
    matmul_tiling::MultiCoreMatmulTiling mm(platform);
    // What the cube multiplies (after the plan's uint8 mapping: int8 everywhere today).
    const auto cubeType = [](uint32_t code) {
        return code == aqo::QMM_UINT8 ? matmul_tiling::DataType::DT_UINT8 : matmul_tiling::DataType::DT_INT8;
    };
    mm.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, cubeType(t.cubeACode));
    mm.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, cubeType(t.cubeBCode), t.bTrans != 0);
    mm.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_INT32);
    mm.SetBias(false);
    mm.SetDim(1);
    mm.SetOrgShape(cv.M, cv.N, cv.Ka);
    mm.SetShape(cv.M, cv.singleCoreN, cv.Ka);
    mm.SetSingleShape(cv.singleCoreM, cv.singleCoreN, cv.singleCoreK);
    mm.SetFixSplit(cv.baseM, cv.baseN, cv.baseK);
    if (t.ubMatmulWs != 0) {
        // 310p: the API stages the C write-back and the ND -> NZ copies in the UB local workspace the kernel
        // allocates for it (t.ubMatmulWs bytes, SetLocalWorkspace): bound the API's tiling to it.
        mm.SetBufferSpace(-1, -1, static_cast<int32_t>(t.ubMatmulWs));
    }
    if (mm.GetTiling(*ct) == -1) {
        std::fprintf(stderr, "[%s] matmul tiling failed for block %d x %d x %d\n", op, cv.baseM, cv.baseN, cv.baseK);
        return false;
    }
    ct->set_depthA1(cv.depthA1);
    ct->set_depthB1(cv.depthB1);
    ct->set_stepM(cv.stepM);
    ct->set_stepN(cv.stepN);
    ct->set_stepKa(cv.stepKa);
    ct->set_stepKb(cv.stepKb);
    ct->set_iterateOrder(cv.iterateOrder);
    ct->set_dbL0C(cv.dbL0C);
    if (t.ubMatmulWs != 0) {
        // 310p: the API's Init would move the TPipe's UB pool start by shareUbSize (InitShareBufStart / End, for
        // __CCE_AICORE__ < 220 in kernel_tpipe_impl.h), shifting every buffer the kernel allocates after
        // REGIST_MATMUL_OBJ, the last ones past the UB the plan budgets; the API needs no area of its own there: the
        // kernel hands it its local workspace (SetLocalWorkspace).
        ct->set_shareUbSize(0);
        // The local workspace this tiling needs (the 8.1 API's own SetWorkspace formula, not MatmulGetTmpBufSize's
        // 2 x transLength for the enVecND2NZ copies the kernel's configuration never runs) must fit the buffer the
        // kernel allocates.
        aqo::MatmulLocalWorkspaceShape s;
        s.base_m = static_cast<uint64_t>(ct->get_baseM());
        s.base_n = static_cast<uint64_t>(ct->get_baseN());
        s.base_k = static_cast<uint64_t>(ct->get_baseK());
        s.single_n = static_cast<uint64_t>(ct->get_singleCoreN());
        s.single_k = static_cast<uint64_t>(ct->get_singleCoreK());
        s.step_ka = static_cast<uint64_t>(ct->get_stepKa());
        s.step_n = static_cast<uint64_t>(ct->get_stepN());
        const uint64_t need = aqo::MatmulLocalWorkspaceBytes(s);
        if (need > t.ubMatmulWs) {
            std::fprintf(stderr, "[%s] the Matmul API's local workspace needs %llu bytes of UB for base block %d x %d x "
                         "%d; the plan allocates %u\n", op, static_cast<unsigned long long>(need), ct->get_baseM(),
                         ct->get_baseN(), ct->get_baseK(), t.ubMatmulWs);
            return false;
        }
    }
    return true;
}

}  // namespace aqo_host

#endif  // AQO_CUBE_TILING_H
