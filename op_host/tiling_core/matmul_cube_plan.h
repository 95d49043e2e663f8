// The cube stage shared by AqoQLinearMatMul and AqoQuantMatMul: how acc = (a - a_zp) @ (b - b_zp), exact and
// wrapped to int32, is computed on a SoC's cube cores, and what the vector epilogue of each operator gets.
//
// The kernel (op_kernel/aqo_qmm_cube_stage.h and the operators' entry files) works on base blocks of y: stripM rows
// of one broadcast batch matrix (strips of equal height) by baseN columns, numbered batch-major, then strip, then N
// block (N fastest). The blocks are split over the cube cores (the AI cores on 310p) in contiguous ranges balanced to
// one block, and a cube core's range over its vector workers (2 per cube core on split SoCs) the same way; on split
// SoCs the strip height and block width are those whose busiest cube core streams the fewest operand bytes (it
// serves its workers one request at a time; with many blocks a few more, lower strips where that gives the cores a
// better balance at no longer busiest core); a worker's range is cut into cube calls, each one strip and at most
// callBlocks blocks of it (split SoCs: the last calls shrink to about two thirds of what is left, so that the call
// whose epilogue ends the launch is short): one asynchronous IterateAll (split SoCs) or a synchronous IterateAll
// (310p) of the Matmul API, ORDER_M with one N step, so that A's K tiles stay in L1 over the call's blocks
// where they fit (depthA1 = kIter, "k full load"). The int32 result goes to the worker's C area in GM (split SoCs:
// two areas, the next call requested before this one's epilogue, so that the cube core always has work queued; on
// 310p the call's blocks, the API pipelining their operand loads) and the epilogue takes it from there.
//
// Zero points (the decomposition acc = A'B' - zb (A'1 - K za) - za (1'B'), exact modulo 2^32):
//   * the cube multiplies int8 x int8 (float8 pairs on 950; 310p's uint8 cube paths are not available through CANN
//     8.1.RC1's Matmul API): a uint8 operand is mapped once per strip (a) or once (b) into the workspace, v ^ 0x80,
//     and its zero point lowered by 128 so that v - zp is unchanged;
//   * the column sums 1'B' come with the product: a prepared strip of A starts with a ones row, so the cube's C row
//     0 holds them ([1; A'] B' = [1'B'; A'B']); they are needed only when some a zero point (after the mapping) is
//     not 0, which the kernel decides from the values (a plan cannot see them): then A is prepared (copied, mapped
//     if uint8) even for int8 a, once per strip;
//   * the row sums A'1 are summed by the vector unit while it prepares the strip (or reads it, when A needs no
//     preparation), exactly (integer-valued float32 sums below 2^24, combined in 32-bit wrap-around), and stored as
//     the correction's row terms (-(A'1 - K za') and -za', each broadcast over a 32-byte block);
//   * on split SoCs the prepared rows, their row terms and the mapped b are shared: every worker prepares an even
//     share of all rows of a (and of b) and a hardware SyncAll makes them visible to all (no SyncAll when nothing
//     needs preparing); ascend310p has no hardware SyncAll (and its software
//     SyncAll needs a zeroed GM workspace the host cannot promise), so there each core prepares the strips of its
//     own calls in a private slot, and a uint8 b's columns of each call (remapped when the call's columns change).
//
// C++11: included by the CANN op_host adapters.
#ifndef AQO_TILING_CORE_MATMUL_CUBE_PLAN_H
#define AQO_TILING_CORE_MATMUL_CUBE_PLAN_H

#include <cstdint>
#include <string>
#include <vector>

#include "constraints.h"
#include "dtype_table.h"
#include "matmul_cube_tiling_fields.h"
#include "plan_common.h"
#include "soc_table.h"
#include "tiling_fields.h"

namespace aqo {

// The broadcast batch rank the kernel tiling carries (deeper batches are refused by the plan).
const uint32_t kQmmMaxBatchRank = AQO_QMM_MAX_BATCH_RANK;

// Operand codes in the kernel tiling (the kernel cannot read the dtype table).
enum QmmOperandCode : uint32_t { QMM_INT8 = 0, QMM_UINT8 = 1, QMM_FLOAT8_E4M3FN = 2, QMM_FLOAT8_E5M2 = 3 };

// Zero point (and scale) layouts: absent (zero), per tensor, per row of a / per column of b.
enum QmmParamKind : uint32_t { QMM_PARAM_NONE = 0, QMM_PARAM_TENSOR = 1, QMM_PARAM_VECTOR = 2 };

// Blocks of one cube call at most (one N step of the Matmul tiling; the C areas hold this many blocks).
const uint32_t kQmmMaxCallBlocks = 13;

// K of an integer cube product at most: integer Mmad only saturates (AscendC Mmad and L0C -> GM pages) and its order
// along K is not documented, so every partial sum of the cube's int32 accumulator must stay in int32 whatever the
// values: K products of int8 x int8 operands (|product| <= 2^14; uint8 operands are mapped to int8 first) add up to
// at most 2^14 K <= 2^31 - 1. The wrapped int32 result the operators define comes from the exact corrections around
// the cube's product, not from the cube itself.
const uint64_t kCubeInt32MaxK = 131071;

// The schedule mode of a launch of the stage: batch where its prepared operands are shared (the kernel may
// SyncAll its vector cores; whether it does depends on the zero points' values, which the plan cannot see).
template <class CubeTiling>
uint32_t CubeStageScheduleMode(const CubeTiling& t)
{
    return t.sharedPrep != 0 ? kScheduleModeBatch : kScheduleModeNormal;
}

// The blockDim of a launch of the stage (SaveTiling; the emulator's runner checks its launch against the same): a
// 1:2 mix kernel on split SoCs counts cube cores, each starting its workersPerCore vector workers; 310p, AI cores.
template <class CubeTiling>
uint32_t CubeStageBlockDim(const CubeTiling& t)
{
    return t.usedCores;
}

// The stage's tiling: the fields of matmul_cube_tiling_fields.h.
struct MatmulCubeTiling {
    AQO_MATMUL_CUBE_TILING_FIELDS(AQO_TILING_STRUCT_FIELD, AQO_TILING_STRUCT_ARRAY)
};

// Copies the stage's fields into an operator's tiling struct (which expands the same list first).
#define AQO_CUBE_COPY_FIELD(type, name) dst->name = src.name;
#define AQO_CUBE_COPY_ARRAY(type, count, name) \
    for (int aqo_i = 0; aqo_i < (count); ++aqo_i) dst->name[aqo_i] = src.name[aqo_i];
template <class OpTiling>
void CopyMatmulCubeTiling(const MatmulCubeTiling& src, OpTiling* dst)
{
    AQO_MATMUL_CUBE_TILING_FIELDS(AQO_CUBE_COPY_FIELD, AQO_CUBE_COPY_ARRAY)
}
#undef AQO_CUBE_COPY_FIELD
#undef AQO_CUBE_COPY_ARRAY

struct MatmulCubeRequest {
    OpKind op = OpKind::QLINEAR_MATMUL;
    // Promoted shapes: a [..., M, K], b [..., K, N] as the product sees it (b_trans: stored [..., N, K]).
    std::vector<int64_t> a_shape;
    std::vector<int64_t> b_shape;
    bool b_trans = false;
    DType a_dtype = DType::INT8;
    DType b_dtype = DType::INT8;
    uint32_t a_zp = QMM_PARAM_TENSOR;  // QmmParamKind
    uint32_t b_zp = QMM_PARAM_TENSOR;
    bool a_zp_batched = false;         // per-row zero points laid out with a's batch dims
    bool b_zp_batched = false;
    uint32_t y_bytes = 1;              // output element size (the 310p y-row rule)
    // The epilogue's UB per element of a chunk (rows x cStride) and its fixed buffers: the stage sizes the chunk so
    // that everything fits.
    uint32_t epilogue_bytes_per_element = 0;
    uint32_t epilogue_fixed_bytes = 0;
    bool explain = true;
};

// One UB buffer of the stage, in InitBuffer order (the explanation lists them with the epilogue's).
struct MatmulCubeUb {
    const char* name;
    uint32_t bytes;
    uint32_t slots;
};

struct MatmulCubePlan {
    MatmulCubeTiling tiling;
    uint64_t workspace_bytes = 0;         // user workspace, after the system workspace
    uint64_t system_workspace_bytes = 0;
    bool single_writer = false;           // no DataCopyPad and no baseN leaves y rows >= 32 bytes: one core
    uint32_t chosen_base_n = 0;           // before the DataCopyPad-less rule changed it
    std::vector<MatmulCubeUb> ub;         // the stage's buffers (after the 310p local workspace), InitBuffer order
    uint32_t ub_bytes = 0;                // everything the stage allocates, the local workspace included
    uint32_t epilogue_elements = 0;       // rowsPerChunk x cStride
};

// Plans the stage for a request whose shapes and dtypes the operator's check accepted on `soc`. false with a complete
// violation when the problem does not fit (32-bit sizes, the workspace, UB).
bool PlanMatmulCube(const MatmulCubeRequest& request, const SocSpec& soc, MatmulCubePlan* plan,
                    ConstraintViolation* violation);

// Where a request goes to the Matmul API (after PlanMatmulCube, once the operator's own paths have declined it): false
// with a complete violation where the API cannot take its b (310p: one unmapped b [K, N] of 2^31 bytes or more).
bool CheckMatmulApiB(const MatmulCubeRequest& request, const SocSpec& soc, const MatmulCubeTiling& tiling,
                     ConstraintViolation* violation);

// Vector worker w's block range [begin, end) (for explanations and the traffic model; the kernel's cube stage
// computes the same): the blocks are split over the cube cores (the AI cores on 310p) balanced to one block, and a
// cube core's range over its workersPerCore workers the same way, since a cube core serves its workers' requests
// one at a time.
inline void QmmWorkerRange(const MatmulCubeTiling& t, uint32_t worker, uint64_t* begin, uint64_t* end)
{
    const uint64_t core = worker / t.workersPerCore, sub = worker % t.workersPerCore;
    const uint64_t q = t.unitCount / t.usedCores, r = t.unitCount % t.usedCores;
    const uint64_t c0 = core * q + (core < r ? core : r);
    const uint64_t len = q + (core < r ? 1 : 0);
    const uint64_t sq = len / t.workersPerCore, sr = len % t.workersPerCore;
    *begin = c0 + sub * sq + (sub < sr ? sub : sr);
    *end = *begin + sq + (sub < sr ? 1 : 0);
}

// A worker's blocks as up to two ranges (for explanations and the traffic model; the kernel's cube stage computes the
// same). Without rounds (roundRanges == 0): the first is QmmWorkerRange's, the second empty. With rounds (310p, one
// worker a core): its whole strip rows, rounds = batch x strips / usedCores of them ([w x rounds, (w + 1) x rounds)
// strip rows), then its even share (balanced to one block) of the blocks after every core's rounds.
inline void QmmWorkerRanges(const MatmulCubeTiling& t, uint32_t worker, uint64_t begin[2], uint64_t end[2])
{
    begin[1] = end[1] = 0;
    if (t.roundRanges == 0) {
        QmmWorkerRange(t, worker, &begin[0], &end[0]);
        return;
    }
    const uint64_t whole = static_cast<uint64_t>(t.batch) * t.strips / t.usedCores * t.nBlocks;
    const uint64_t rest = t.unitCount - whole * t.usedCores;
    const uint64_t q = rest / t.usedCores, r = rest % t.usedCores;
    begin[0] = worker * whole;
    end[0] = begin[0] + whole;
    begin[1] = whole * t.usedCores + worker * q + (worker < r ? worker : r);
    end[1] = begin[1] + q + (worker < r ? 1 : 0);
}

// The broadcast batch matrix `index` of y (row-major over batchDims) as matrix indices of a and b.
template <class T>
inline void QmmBatchOperands(const T& t, uint64_t index, uint64_t* a_index, uint64_t* b_index)
{
    uint64_t ai = 0, bi = 0;
    for (uint32_t d = t.batchRank; d-- > 0;) {
        const uint64_t i = index % t.batchDims[d];
        index /= t.batchDims[d];
        ai += i * t.aBatchStrides[d];
        bi += i * t.bBatchStrides[d];
    }
    *a_index = ai;
    *b_index = bi;
}

// The UB bytes the Matmul API's local workspace needs on ascend310p: CANN 8.1.RC1's
// impl/matmul/resource/local_workspace/matmul_local_workspace.h (SetWorkspace's length; the API asserts the buffer
// SetLocalWorkspace gives holds it) for a configuration without enVecND2NZ: the C tile (C in GM, or in VECCALC in a
// format other than NZ: the header stages both there), a 32-byte
// block for an N-tail when singleCoreN is not a whole number of 32-byte C blocks, and the larger ND-to-NZ staging of
// A (K not a multiple of 32 bytes) or of an int8 B (a baseK x baseN slab, times the MDL steps). Taken on the strict
// side where the header narrows it (the tail for ND only, the slab for an untransposed B only). With enVecND2NZ,
// transLength twice (UB reuse) or four times. Not MatmulGetTmpBufSize's max(shareUbSize, 2 transLength), which
// sizes the enVecND2NZ copies this configuration never runs. One source: the CANN TilingFunc's check
// (op_host/aqo_cube_tiling.h) and the emulator's Matmul API (SetLocalWorkspace).
struct MatmulLocalWorkspaceShape {
    uint64_t base_m = 0, base_n = 0, base_k = 0, single_n = 0, single_k = 0, step_ka = 1, step_n = 1;
    uint64_t trans_length = 0;
    bool mdl = false;
    bool vec_nd2nz = false;
    bool ub_reuse = true;
    bool c_in_gm = true;
    bool c_tile_staged = true;  // C in GM, or in VECCALC not as NZ: the C tile passes through the workspace
    uint32_t c_bytes = 4;    // sizeof C
    uint32_t src_bytes = 1;  // sizeof A
    bool int8_pair = true;   // int8 x int8 (B staged as a whole slab)
};
uint64_t MatmulLocalWorkspaceBytes(const MatmulLocalWorkspaceShape& s);

// The TCubeTiling of the stage (the Matmul API's tiling), as plain values: the emulator runner copies them into its
// struct, the CANN adapters into optiling::TCubeTiling. One source for both.
struct QmmCubeTilingValues {
    int32_t usedCoreNum, M, N, Ka, Kb, singleCoreM, singleCoreN, singleCoreK, baseM, baseN, baseK, depthA1,
        depthB1, stepM, stepN, stepKa, stepKb, iterateOrder, dbL0A, dbL0B, dbL0C, transLength, isBias;
};
QmmCubeTilingValues QmmCubeTiling(const MatmulCubeTiling& t, const SocSpec& soc);
// The local workspace shape of a Matmul object's tiling (QmmCubeTilingValues, or the API's TCubeTiling: the same
// field names), in the stage's configuration (NORM, C in GM, int8 operands): the caller sets the rest.
template <class CubeTiling>
MatmulLocalWorkspaceShape LocalWorkspaceShapeOf(const CubeTiling& c)
{
    MatmulLocalWorkspaceShape s;
    s.base_m = static_cast<uint64_t>(c.baseM);
    s.base_n = static_cast<uint64_t>(c.baseN);
    s.base_k = static_cast<uint64_t>(c.baseK);
    s.single_n = static_cast<uint64_t>(c.singleCoreN);
    s.single_k = static_cast<uint64_t>(c.singleCoreK);
    s.step_ka = static_cast<uint64_t>(c.stepKa);
    s.step_n = static_cast<uint64_t>(c.stepN);
    s.trans_length = static_cast<uint64_t>(c.transLength);
    return s;
}

// The explanation's parts that come from the stage: cores, work (blocks), the y writes (one strided range per
// partial block row of a core and one for its whole block rows) and the operands' reads as spans, the workspace.
// `extra`: the operator's other tensors, each read per tensor (1 element), per row of a (kind 'a'), or per column
// (kind 'b' of b's columns, 'y' of y's): {name, element bytes, kind (0 tensor, 'a', 'b'), batched}.
struct QmmExtraTensor {
    const char* name;
    uint32_t elem_bytes;
    char kind;       // 0 per tensor, 'a' per row of a, 'b' per column of b
    bool batched;    // laid out with the operand's batch dims
    bool present;    // false: the tensor is absent (e.g. no bias): not listed
    bool scanned;    // every worker reads all of it (per-row / per-column zero points): listed whole per core
};
void ExplainMatmulCube(const MatmulCubeRequest& request, const SocSpec& soc, const MatmulCubePlan& plan,
                       const std::vector<QmmExtraTensor>& extra, uint64_t y_bytes, PlanExplanation* e);

}  // namespace aqo

#endif  // AQO_TILING_CORE_MATMUL_CUBE_PLAN_H
