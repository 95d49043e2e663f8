// The cube stage's plan (see matmul_cube_plan.h for the scheme).
#include "matmul_cube_plan.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

// The sizes the kernel stages share with this plan (row terms, the exact conversion's mask block).
#include "../../op_kernel/aqo_qmm_layout.h"

namespace aqo {
namespace {

std::string Str(uint64_t v) { return std::to_string(v); }

uint32_t OperandCode(DType t)
{
    switch (t) {
        case DType::UINT8: return QMM_UINT8;
        case DType::FLOAT8_E4M3FN: return QMM_FLOAT8_E4M3FN;
        case DType::FLOAT8_E5M2: return QMM_FLOAT8_E5M2;
        default: return QMM_INT8;
    }
}

// Base block widths are multiples of the cube's fractal (16 columns).
const uint32_t kFractal = 16;
const uint32_t kMaxBase = 256;
// Strip counts above the tallest strips' that the many-blocks geometry tries (for the balance of the cube cores).
const uint64_t kStripSearch = 16;
// The block-count heuristic's per-block overhead, in columns: a block costs about as much as this many more columns
// (the API's per-block pipeline fill, the epilogue's per-block set-up). An assumption of the plan, not of the model.
const uint32_t kBlockOverheadColumns = 32;
// ascend310p has no fixpipe: the Matmul API moves C from L0C to GM and stages the ND-to-NZ copies of A / B through
// a UB local workspace, which the kernel allocates (first, at UB address 0) and hands over with SetLocalWorkspace;
// without it the API writes through UB address 0, over the kernel's own buffers. The plan chooses the base block
// within this budget and allocates the API's need (MatmulLocalWorkspaceBytes: the C tile, an N-tail block, B's
// staging). Half the UB, at most this: an int8 B goes through that staging one K tile at a time, and each tile costs
// the API a DMA per row and a TransDataTo5HD per 8 columns, so the taller the tiles (baseK), the fewer instructions
// per byte; the epilogue keeps the other half.
const uint32_t kMatmulApiUbBudgetCoupled = 131072;
// Bytes of one preparation step (uint8 -> int8 mapping, row sums): a DMA of this size is far past its set-up.
const uint32_t kPrepChunk = 4096;
// A K above which the zero-point terms may leave int32 in a partial sum (|P| <= 2^14 K, |zb (RA - K za)| <= 2^15 K,
// |za CB| <= 2^14 K: total <= 2^16 K < 2^31): beyond, the scalar unit's 32-bit arithmetic, which wraps by definition.
const uint32_t kVectorExactMaxK = 32767;
// The zero-point correction's row terms of one row: two broadcast blocks of int32.
const uint32_t kRowTermBytes = aqo_qmm_layout::kRowTermInts * 4;
// |acc| <= 255 x 255 x K stays below 2^24 (exact in float32) up to this K.
const uint32_t kFloatExactMaxK = 258;
// A split-SoC launch of one a strip (decode shapes) prepares its strip per worker instead of once for all: no SyncAll
// (every worker's request waits for the slowest preparer plus the barrier otherwise), at the price of every worker
// writing its own copy of the prepared strip. Taken while those copies together stay within this fraction of b's
// bytes (1 / 32: the decode step's GM traffic target is 1.05x of the minimum, which b dominates).
const uint64_t kPrivatePrepBytesPerB = 32;
// Rounds on coupled SoCs (310p: the AI cores stream their own operands, through the L2 all of them share): a range of
// b's columns that a round of strips goes through together is at most this fraction of the L2 (the round's strips of
// a, the y rows written and the lines still being read need the rest).
const uint64_t kL2PerRoundRange = 4;

template <class Tiling>
bool PrivatePrepPays(const Tiling& t, uint64_t k, uint64_t n)
{
    if (t.mapB != 0 || static_cast<uint64_t>(t.aMatrices) * t.strips != 1) {
        return false;  // b mapped once for all, or several strips: shared
    }
    const uint64_t workers = static_cast<uint64_t>(t.usedCores) * t.workersPerCore;
    const uint64_t copies = workers * AlignUp((static_cast<uint64_t>(t.onesRow) + t.stripM) * t.kPad, 32);
    return copies * kPrivatePrepBytesPerB <= static_cast<uint64_t>(t.bMatrices) * k * n;
}

// The last N block's width (0: N is a multiple of baseN) and whether a y row segment of every block is written by
// DMA alone on a SoC without DataCopyPad: each segment (a block's columns of one row) is at least 32 bytes (its
// whole blocks from its start, then the block ending at its end), or every row is whole 32-byte blocks.
bool YSegmentsDmaOnly(uint64_t n, uint32_t bn, uint32_t y_bytes)
{
    if (n * y_bytes % 32 == 0 && static_cast<uint64_t>(bn) * y_bytes % 32 == 0) {
        return true;  // whole blocks everywhere
    }
    const uint64_t tail = n % bn;
    return static_cast<uint64_t>(bn) * y_bytes >= 32 && (tail == 0 || tail * y_bytes >= 32);
}

// K tile height (baseK) for a base block of base_m x bn: the largest 32-byte multiple (at most 256) that L0A and L0B
// hold twice and, on ascend310p (ws_budget != 0), that the API's local workspace holds with the C block (B's staging:
// two K tiles; 32 bytes the API's layout keeps for an N-tail scratch when the tiling's singleCoreN is not whole
// 32-byte blocks: C's ND_ALIGN write-back never uses it, the budget keeps the layout's worst case); at most K.
uint64_t BaseKFor(uint32_t base_m, uint64_t bn, uint64_t k, uint64_t l0a, uint64_t l0b, uint64_t ws_budget)
{
    uint64_t bk = std::min<uint64_t>({256, l0a / 2 / base_m, l0b / 2 / bn});
    if (ws_budget != 0) {
        const uint64_t c_tile = static_cast<uint64_t>(base_m) * bn * 4 + 32;
        bk = std::min<uint64_t>(bk, ws_budget > c_tile ? (ws_budget - c_tile) / (2 * bn) : 0);
    }
    bk = std::max<uint64_t>(32, bk / 32 * 32);
    return std::min<uint64_t>(bk, AlignUp(std::max<uint64_t>(k, 1), 32));
}

// ascend310p: the block width whose busiest worker (the AI core) spends the fewest scalar cycles on the Matmul API's
// instructions for an int8 B (data_copy_wrapper_using_ub_nd.h CopyND2NZWithTransData): per block one DMA per K row
// of B, per K tile four TransDataTo5HD per 32 columns (each its issue and its address lists), one write-back DMA per
// C row, at the timing table's scalar costs (the timeline model's). The scalar unit is what bounds that path (the API
// issues it, per row and per 8 columns, in turn with everything else); ties go to the wider block.
uint32_t CoupledBaseN(uint64_t rows_units, uint64_t n, uint64_t workers, uint32_t max_bn, uint32_t step, uint64_t k,
                      uint32_t base_m, uint64_t l0a, uint64_t l0b, uint64_t ws_budget, const SocSpec& soc)
{
    const double issue = Timing(soc, TimingParam::SCALAR_ISSUE_CYCLES);
    const double turn = issue + Timing(soc, TimingParam::TRANS_DATA_SCALAR_CYCLES);
    uint32_t best = step;
    double best_cost = std::numeric_limits<double>::infinity();
    const uint64_t hi = std::min<uint64_t>(max_bn, AlignUp(std::max<uint64_t>(n, 1), step));
    const uint64_t k1 = std::max<uint64_t>(k, 1);
    for (uint64_t bn = step; bn <= hi; bn += step) {
        const uint64_t bk = BaseKFor(base_m, bn, k, l0a, l0b, ws_budget);
        const uint64_t per = CeilDiv(rows_units * CeilDiv(std::max<uint64_t>(n, 1), bn), workers);
        const double turns = static_cast<double>(4 * CeilDiv(k1, bk) * CeilDiv(bn, 32));
        const double cost = static_cast<double>(per) * (static_cast<double>(k1 + base_m) * issue + turns * turn);
        if (cost <= best_cost) {
            best_cost = cost;
            best = static_cast<uint32_t>(bn);
        }
    }
    return best;
}

// Split SoCs: the block width whose busiest cube core moves the fewest operand bytes. A cube core serves its two
// vector workers one request at a time, so what bounds a launch is the bytes its MTE2 streams: per block the strip's
// K panel (base_m rows, the ones row included) and the block's K x bn of B, plus the per-block overhead, and the
// block's int32 result. Returns the width and sets *cost (bytes of the busiest core); ties go to the wider block.
uint32_t CubeBalancedBaseN(uint64_t rows_units, uint64_t n, uint64_t cores, uint32_t max_bn, uint32_t step,
                           uint64_t k, uint32_t base_m, uint64_t* cost)
{
    uint32_t best = step;
    uint64_t best_cost = ~0ull;
    const uint64_t hi = std::min<uint64_t>(max_bn, AlignUp(std::max<uint64_t>(n, 1), step));
    const uint64_t k1 = std::max<uint64_t>(k, 1);
    for (uint64_t bn = step; bn <= hi; bn += step) {
        const uint64_t units = rows_units * CeilDiv(std::max<uint64_t>(n, 1), bn);
        const uint64_t per = CeilDiv(units, cores);
        const uint64_t c = per * (k1 * (base_m + bn + kBlockOverheadColumns) + 4ull * base_m * bn);
        if (c <= best_cost) {
            best_cost = c;
            best = static_cast<uint32_t>(bn);
        }
    }
    *cost = best_cost;
    return best;
}

// The smallest and largest value over i in [lo, hi] of f(i) = sum_d digit_d(i) * coeff[d], where digit_d are the
// mixed-radix digits of i over dims[0..rank) (outermost first) and every coeff >= 0: the matrix of an operand that
// broadcast batch matrices lo..hi of y use (coeff = the operand's batch strides, 0 where it broadcasts). O(rank).
void LinearIndexSpan(const uint32_t* dims, const uint32_t* coeff, uint32_t rank, uint64_t lo, uint64_t hi,
                     uint64_t* mn, uint64_t* mx)
{
    uint64_t inner[kQmmMaxBatchRank + 1], full_max[kQmmMaxBatchRank + 1];
    inner[rank] = 1;
    full_max[rank] = 0;
    for (uint32_t d = rank; d-- > 0;) {
        inner[d] = inner[d + 1] * dims[d];
        full_max[d] = full_max[d + 1] + static_cast<uint64_t>(dims[d] - 1) * coeff[d];
    }
    uint64_t best_min = ~0ull, best_max = 0;
    auto note = [&](uint64_t a, uint64_t b) {
        best_min = std::min(best_min, a);
        best_max = std::max(best_max, b);
    };
    uint64_t base = 0;
    uint32_t d = 0;
    for (; d < rank; ++d) {
        const uint64_t dl = lo / inner[d + 1] % dims[d], dh = hi / inner[d + 1] % dims[d];
        if (dl != dh) {
            break;
        }
        base += dl * coeff[d];
    }
    if (d == rank) {
        *mn = *mx = base;
        return;
    }
    const uint64_t dl = lo / inner[d + 1] % dims[d], dh = hi / inner[d + 1] % dims[d];
    if (dh > dl + 1) {
        note(base + (dl + 1) * coeff[d], base + (dh - 1) * coeff[d] + full_max[d + 1]);
    }
    uint64_t acc = base + dl * coeff[d];
    for (uint32_t e = d + 1; e < rank; ++e) {
        const uint64_t x = lo / inner[e + 1] % dims[e];
        if (x + 1 < dims[e]) {
            note(acc + (x + 1) * coeff[e], acc + static_cast<uint64_t>(dims[e] - 1) * coeff[e] + full_max[e + 1]);
        }
        acc += x * coeff[e];
    }
    note(acc, acc);
    acc = base + dh * coeff[d];
    for (uint32_t e = d + 1; e < rank; ++e) {
        const uint64_t x = hi / inner[e + 1] % dims[e];
        if (x > 0) {
            note(acc, acc + (x - 1) * coeff[e] + full_max[e + 1]);
        }
        acc += x * coeff[e];
    }
    note(acc, acc);
    *mn = best_min;
    *mx = best_max;
}

}  // namespace

bool CheckMatmulApiB(const MatmulCubeRequest& r, const SocSpec& soc, const MatmulCubeTiling& t,
                     ConstraintViolation* v)
{
    // 310p's Matmul API reads an int8 B [K, N] from GM with a 32-bit int offset (CANN 8.1.RC1
    // data_copy_wrapper_using_ub_nd.h, CopyND2NZWithTransData: row * baseK * orgN + col * baseN): one b matrix the
    // kernel hands it unmapped must stay below 2^31 bytes, else the API reads at wrapped addresses. (A mapped uint8 b
    // is handed over as a slab of the call's columns.)
    const uint64_t k = t.k, n = t.n;
    if (!soc.split_architecture && t.mapB == 0 && !r.b_trans && k * n >= (uint64_t{1} << 31)) {
        SetViolation(v, r.op, "b", &soc, "bytes of one b matrix (K x N) for the Matmul API's 32-bit B offset",
                     "< 2147483648", Str(k * n) + " (K " + Str(k) + " x N " + Str(n) + ")",
                     "split the product along N into parts below 2^31 / K columns each");
        return false;
    }
    return true;
}

bool PlanMatmulCube(const MatmulCubeRequest& r, const SocSpec& soc, MatmulCubePlan* plan, ConstraintViolation* v)
{
    const OpKind op = r.op;
    const size_t ar = r.a_shape.size();
    const size_t br = r.b_shape.size();
    const uint64_t m = static_cast<uint64_t>(r.a_shape[ar - 2]);
    const uint64_t k = static_cast<uint64_t>(r.a_shape[ar - 1]);
    const uint64_t n = static_cast<uint64_t>(r.b_shape[br - 1]);
    int64_t bdims[kMaxBatchRank];
    size_t brank = 0;
    BroadcastBatchDims(&r.a_shape[0], ar, &r.b_shape[0], br, bdims, &brank);  // checked by the operator
    if (brank > kQmmMaxBatchRank) {
        SetViolation(v, op, ar > br ? "a" : "b", &soc, "number of broadcast batch dimensions of the NPU kernel",
                     "<= " + Str(kQmmMaxBatchRank), Str(brank), "merge batch dimensions by reshaping");
        return false;
    }
    // The kernel and the Matmul API take 32-bit sizes (the API's shapes are int).
    const uint64_t kMax32 = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());
    const char* dim_names[3] = {"M (a[-2])", "K (a[-1])", "N (b[-1])"};
    const uint64_t dims[3] = {m, k, n};
    for (int i = 0; i < 3; ++i) {
        if (dims[i] > kMax32) {
            SetViolation(v, op, i == 2 ? "b" : "a", &soc, std::string(dim_names[i]) + " of the NPU kernel",
                         "<= " + Str(kMax32), Str(dims[i]), "split the matrix product into smaller ones");
            return false;
        }
    }
    for (size_t i = 0; i < brank; ++i) {
        if (static_cast<uint64_t>(bdims[i]) > kMax32) {
            SetViolation(v, op, ar >= br ? "a" : "b", &soc, "batch dimension of the NPU kernel", "<= " + Str(kMax32),
                         Str(static_cast<uint64_t>(bdims[i])), "merge or split batch dimensions");
            return false;
        }
    }
    uint64_t batch = 0, a_mats = 0, b_mats = 0;
    const bool batch_ok = ProductWithin(bdims, brank, 1, kMax32, &batch);
    const bool a_ok = ProductWithin(&r.a_shape[0], ar - 2, 1, kMax32, &a_mats);
    const bool b_ok = ProductWithin(&r.b_shape[0], br - 2, 1, kMax32, &b_mats);
    if (!batch_ok || !a_ok || !b_ok) {
        const char* what = !batch_ok ? "broadcast batch count" : (!a_ok ? "batch matrices of a" : "batch matrices of b");
        SetViolation(v, op, !batch_ok || !a_ok ? "a" : "b", &soc, std::string(what) + " of the NPU kernel",
                     "<= " + Str(kMax32), "more than " + Str(kMax32), "split the batch");
        return false;
    }

    MatmulCubeTiling& t = plan->tiling;
    t = MatmulCubeTiling();
    plan->ub.clear();
    t.m = static_cast<uint32_t>(m);
    t.n = static_cast<uint32_t>(n);
    t.k = static_cast<uint32_t>(k);
    t.batch = static_cast<uint32_t>(batch);
    t.batchRank = static_cast<uint32_t>(brank);
    for (uint32_t d = 0; d < kQmmMaxBatchRank; ++d) {
        t.batchDims[d] = 1;
    }
    {
        // Per-operand strides (in matrices) of each broadcast batch dim, right-aligned as numpy does.
        const size_t ab = ar - 2, bb = br - 2;
        uint64_t as = 1, bs = 1;
        for (size_t i = 0; i < brank; ++i) {
            const size_t d = brank - 1 - i;
            t.batchDims[d] = static_cast<uint32_t>(bdims[d]);
            const int64_t da = i < ab ? r.a_shape[ab - 1 - i] : 1;
            const int64_t db = i < bb ? r.b_shape[bb - 1 - i] : 1;
            t.aBatchStrides[d] = da == 1 ? 0 : static_cast<uint32_t>(as);
            t.bBatchStrides[d] = db == 1 ? 0 : static_cast<uint32_t>(bs);
            as *= static_cast<uint64_t>(da);
            bs *= static_cast<uint64_t>(db);
        }
    }
    t.aMatrices = static_cast<uint32_t>(a_mats);
    t.bMatrices = static_cast<uint32_t>(b_mats);
    t.aCode = OperandCode(r.a_dtype);
    t.bCode = OperandCode(r.b_dtype);
    t.bTrans = r.b_trans ? 1 : 0;

    // What the cube multiplies: int8 x int8 (float8 pairs on 950). The SoC table's qmm_uint8_by_xor: a uint8 operand
    // is mapped, v ^ 0x80 = v - 128 as int8, its zero point lowered by 128 (v - zp unchanged). (ascend310p's cube also
    // has uint8 x int8 and uint8 x uint8, but CANN 8.1.RC1's Matmul API does not compile uint8 operands for that SoC:
    // its copy paths reuse one operand's type for the other's buffers; the type-check against the headers fails.)
    const bool float8 = GetDTypeInfo(r.a_dtype).is_float;
    const bool a_u8 = r.a_dtype == DType::UINT8, b_u8 = r.b_dtype == DType::UINT8;
    t.cubeACode = t.aCode;
    t.cubeBCode = t.bCode;
    if (!float8 && soc.qmm_uint8_by_xor) {
        if (a_u8) {
            t.mapA = 1;
            t.zpShiftA = 128;
            t.cubeACode = QMM_INT8;
        }
        if (b_u8) {
            t.mapB = 1;
            t.zpShiftB = 128;
            t.cubeBCode = QMM_INT8;
        }
    }
    if (!float8 && k > kCubeInt32MaxK) {
        SetViolation(v, op, "a", &soc, "K (a[-1]) of the NPU kernel's integer cube product (its int32 accumulator "
                     "saturates, so no partial sum of int8 x int8 products may leave int32)",
                     "<= " + Str(kCubeInt32MaxK), Str(k),
                     "compute on the CPU backend (without soc=): the NPU's integer cube path takes K up to " +
                         Str(kCubeInt32MaxK));
        return false;
    }
    t.aZpKind = float8 ? static_cast<uint32_t>(QMM_PARAM_NONE) : r.a_zp;
    t.bZpKind = float8 ? static_cast<uint32_t>(QMM_PARAM_NONE) : r.b_zp;
    t.aZpBatchStride = (t.aZpKind == QMM_PARAM_VECTOR && r.a_zp_batched) ? t.m : 0;
    t.bZpBatchStride = (t.bZpKind == QMM_PARAM_VECTOR && r.b_zp_batched) ? t.n : 0;
    // The effective zero points (after the mapping) may be non-zero: then the column sums (ones row) / row sums.
    const bool za_may = !float8 && k != 0 && (t.aZpKind != QMM_PARAM_NONE || t.zpShiftA != 0);
    const bool zb_may = !float8 && k != 0 && (t.bZpKind != QMM_PARAM_NONE || t.zpShiftB != 0);
    t.onesRow = za_may ? 1 : 0;
    t.sharedPrep = soc.split_architecture ? 1 : 0;
    t.workersPerCore = soc.split_architecture ? 2 : 1;
    const uint32_t cores = KernelCores(soc, op);
    const uint64_t workers_max = static_cast<uint64_t>(cores) * t.workersPerCore;

    // ---- geometry ----
    // The Matmul API's L1 on split SoCs ends 128 bytes early: the KFC server's scratch (KFC_L1_RESERVER_SIZE in
    // CANN 8.1.RC1's kernel_utils_constants.h, TOTAL_L1_SIZE).
    const uint64_t l1 = static_cast<uint64_t>(Timing(soc, TimingParam::L1_BYTES)) - (soc.split_architecture ? 128 : 0);
    const uint64_t l0a = static_cast<uint64_t>(Timing(soc, TimingParam::L0A_BYTES));
    const uint64_t l0b = static_cast<uint64_t>(Timing(soc, TimingParam::L0B_BYTES));
    const uint64_t l0c = static_cast<uint64_t>(Timing(soc, TimingParam::L0C_BYTES));
    const uint64_t ws_budget =
        soc.split_architecture ? 0 : std::min<uint64_t>(kMatmulApiUbBudgetCoupled, KernelUbBytes(soc, true) / 2);
    const uint64_t m1 = std::max<uint64_t>(m, 1);
    // Rows: a short a (decode) is one strip; else 128- or 256-row strips (256 when the strip's K panel stays in L1
    // next to two B tiles, so that B is read once per 256 rows).
    uint32_t base_m;
    if (m1 + t.onesRow <= 128) {
        base_m = static_cast<uint32_t>(AlignUp(m1 + t.onesRow, kFractal));
    } else {
        const uint64_t kpad = AlignUp(std::max<uint64_t>(k, 1), 32);
        const bool tall_fits = m1 >= 512 && 256 * kpad + 2 * 128 * 128 <= l1 && 256ull * 128 * 4 <= l0c &&
                               (soc.split_architecture || 256ull * 64 * 4 + 2 * 32 * 64 <= ws_budget);
        base_m = tall_fits ? 256 : 128;
    }
    if (!soc.split_architecture) {
        // 310p: the API's C tile (and its staging) goes through the UB local workspace.
        while (base_m > kFractal && static_cast<uint64_t>(base_m) * 64 * 4 + 2 * 32 * 64 > ws_budget) {
            base_m /= 2;
        }
    }
    // Without DataCopyPad a block width that keeps every y row segment >= 32 bytes may need more columns than a tall
    // block allows (310p's local workspace holds the C block): lower blocks first, one writer only as a last resort.
    uint32_t bn = 0;
    uint64_t geometry_cost = 0;
    auto geometry = [&](uint32_t cap) {
        // Strips of equal height, each at most `cap` rows with its ones row; the cube's M block is a strip and its
        // ones row rounded up to the fractal (at most cap).
        t.strips = static_cast<uint32_t>(CeilDiv(m1, cap - t.onesRow));
        t.stripM = static_cast<uint32_t>(CeilDiv(m1, t.strips));
        const uint32_t base_m = static_cast<uint32_t>(AlignUp(t.stripM + t.onesRow, kFractal));
        t.baseM = base_m;
        // Columns: L0C holds a base block (double buffered when two fit); 310p's local workspace holds its C tile and
        // B's staging of at least 32 K rows (BaseKFor); the width that costs the busiest worker (split SoCs: cube
        // core) least.
        uint32_t max_bn = static_cast<uint32_t>(std::min<uint64_t>(kMaxBase, l0c / (static_cast<uint64_t>(base_m) * 4)));
        if (!soc.split_architecture) {
            const uint64_t room = ws_budget > 32 ? ws_budget - 32 : 0;
            max_bn = static_cast<uint32_t>(std::min<uint64_t>(max_bn, room / (static_cast<uint64_t>(base_m) * 4 + 64)));
        }
        // Without DataCopyPad the widths are whole 32-byte blocks of a 1-byte y (only the last block of a row can end in
        // a partial block, which the copy-out's back-off needs); else whole fractals.
        const uint32_t step = soc.has_data_copy_pad ? kFractal : 32;
        max_bn = std::max<uint32_t>(step, max_bn / step * step);
        const uint64_t rows_units = batch * t.strips;
        if (soc.split_architecture) {
            bn = CubeBalancedBaseN(rows_units, n, cores, max_bn, step, k, base_m, &geometry_cost);
        } else {
            bn = CoupledBaseN(rows_units, n, workers_max, max_bn, step, k, base_m, l0a, l0b, ws_budget, soc);
        }
        plan->chosen_base_n = bn;
        plan->single_writer = false;
        if (!soc.has_data_copy_pad && !YSegmentsDmaOnly(n, bn, r.y_bytes)) {
            // Without DataCopyPad every y row segment must be written by DMA alone (>= 32 bytes, see YSegmentsDmaOnly):
            // the nearest width that allows it, narrower first; else one core writes all of y (scalar tail stores).
            uint32_t found = 0;
            for (uint32_t w = bn; w >= step && found == 0; w -= step) {
                if (YSegmentsDmaOnly(n, w, r.y_bytes)) {
                    found = w;
                }
            }
            for (uint32_t w = bn + step; w <= max_bn && found == 0; w += step) {
                if (YSegmentsDmaOnly(n, w, r.y_bytes)) {
                    found = w;
                }
            }
            if (found != 0) {
                bn = found;
            } else {
                plan->single_writer = true;
                bn = max_bn;
            }
        }
        t.baseN = bn;
        return plan->single_writer;
    };
    const uint32_t tall_m = base_m;
    bool single = geometry(base_m);
    if (soc.split_architecture && batch * t.strips * CeilDiv(std::max<uint64_t>(n, 1), bn) < 4ull * cores) {
        // Fewer rows per strip where that lightens the busiest cube core (small M x N: more, shorter strips let
        // every cube core take a block without re-reading A across many narrow ones; with many blocks per core the
        // tall strips stand).
        const uint32_t caps[] = {128, 96, 64, 48, 32, 16};
        uint64_t best_cost = geometry_cost;
        uint32_t best_cap = base_m;
        for (uint32_t cap : caps) {
            if (cap >= best_cap || cap <= t.onesRow || cap >= tall_m) {
                continue;
            }
            geometry(cap);
            if (geometry_cost < best_cost) {
                best_cost = geometry_cost;
                best_cap = cap;
            }
        }
        single = geometry(best_cap);
    } else if (soc.split_architecture && !single) {
        // Many blocks: a few more strips (each lower) where that does not lengthen the busiest cube core, for the
        // balance of the cores (e.g. 4096 rows as 33 strips x 4 blocks on 24 cores: 6 blocks on the busiest, 5.5 on
        // average; 35 strips: 6 and 5.83). The block width stays.
        const uint64_t nb = CeilDiv(std::max<uint64_t>(n, 1), bn);
        const double macs_per_cycle = Timing(soc, TimingParam::CUBE_MACS_PER_CYCLE);
        const double l2_rate = Timing(soc, TimingParam::MTE2_L2_BYTES_PER_CYCLE);
        auto busiest = [&](uint64_t strips, uint64_t* units, uint32_t* bm) {
            const uint64_t strip_m = CeilDiv(m1, strips);
            *bm = static_cast<uint32_t>(AlignUp(strip_m + t.onesRow, kFractal));
            *units = batch * strips * nb;
            // A block's cycles: its cube work (whole fractals) or its operand stream at the L2 rate, the larger.
            const double cube = static_cast<double>(*bm) * AlignUp(bn, kFractal) * AlignUp(std::max<uint64_t>(k, 1), 32) /
                                macs_per_cycle;
            const double stream = (static_cast<double>(std::max<uint64_t>(k, 1)) * (*bm + bn + kBlockOverheadColumns) +
                                   4.0 * *bm * bn) / l2_rate;
            return static_cast<double>(CeilDiv(*units, cores)) * std::max(cube, stream);
        };
        auto balanced = [&](uint64_t units) { return units * 100 >= 95 * cores * CeilDiv(units, cores); };
        const uint64_t s0 = t.strips;
        uint64_t best_units = 0;
        uint32_t best_bm = 0;
        double best = busiest(s0, &best_units, &best_bm);
        uint64_t best_s = s0;
        for (uint64_t s = s0 + 1; s <= s0 + kStripSearch && s <= m1; ++s) {
            if (CeilDiv(m1, CeilDiv(m1, s)) != s) {
                continue;  // equal strips of this height would be fewer (no empty strip)
            }
            uint64_t units = 0;
            uint32_t bm = 0;
            const double c = busiest(s, &units, &bm);
            if (bm > tall_m) {
                continue;
            }
            // Shorter first; then the balance target (mean / max >= 0.95); then the fewer blocks.
            const bool better = c < best * (1 - 1e-9) ||
                                (c <= best * (1 + 1e-9) && balanced(units) && !balanced(best_units));
            if (better) {
                best = c;
                best_units = units;
                best_s = s;
            }
        }
        if (best_s != s0) {
            t.strips = static_cast<uint32_t>(best_s);
            t.stripM = static_cast<uint32_t>(CeilDiv(m1, best_s));
            t.baseM = static_cast<uint32_t>(AlignUp(t.stripM + t.onesRow, kFractal));
        }
    }
    while (single && n >= 32 && base_m > kFractal) {
        base_m = std::max<uint32_t>(kFractal, static_cast<uint32_t>(AlignUp(base_m / 2, kFractal)));
        single = geometry(base_m);
    }
    if (single && base_m != tall_m) {
        base_m = tall_m;  // one writer either way: the tall blocks
        geometry(base_m);
    }
    base_m = t.baseM;
    const uint64_t bk = BaseKFor(base_m, bn, k, l0a, l0b, ws_budget);
    t.baseK = static_cast<uint32_t>(bk);
    const uint64_t k_iter = CeilDiv(std::max<uint64_t>(k, 1), bk);
    const uint64_t a_tile = static_cast<uint64_t>(base_m) * bk, b_tile = bk * bn;
    // A's K tiles in L1 over the blocks of a call where they fit ("k full load"); else as many as fit (the first
    // depth - 2 K tiles stay, two stream).
    const uint64_t a_fit = l1 > 2 * b_tile ? (l1 - 2 * b_tile) / a_tile : 0;
    // One K tile: depth 1 keeps it (the API's NORM buffer double-buffers a depth of 2 with one K tile, caching
    // nothing, cube_in_buffer_normal.h).
    t.depthA1 = k_iter == 1 ? 1u : static_cast<uint32_t>(std::max<uint64_t>(2, std::min<uint64_t>(k_iter, a_fit)));
    t.depthB1 = 2;
    t.dbL0C = static_cast<uint64_t>(base_m) * bn * 4 * 2 <= l0c ? 2 : 1;
    t.nBlocks = static_cast<uint32_t>(CeilDiv(std::max<uint64_t>(n, 1), bn));

    // ---- work ----
    const uint64_t units = n == 0 || m == 0 ? 0 : batch * t.strips * t.nBlocks;
    if (units > (static_cast<uint64_t>(1) << 48)) {
        SetViolation(v, op, "a", &soc, "output blocks of the NPU kernel", "<= 2^48", Str(units),
                     "split the matrix product");
        return false;
    }
    t.unitCount = units;
    // Every block on its own cube core where there are no more blocks than cores (a cube core serves its workers one
    // request at a time: two blocks on one core take twice as long).
    t.usedCores = static_cast<uint32_t>(std::max<uint64_t>(1, std::min<uint64_t>(plan->single_writer ? 1 : cores, units)));
    t.callBlocks = static_cast<uint32_t>(std::min<uint64_t>(kQmmMaxCallBlocks, t.nBlocks));
    // Rounds (coupled SoCs): a core's blocks in one contiguous range make the cores sweep all of b each at its own
    // place, so that b's lines leave the L2 before the other cores come to read them, when b and the cores' strips of
    // a together pass half of the L2. Then the first strips go in rounds of one strip a core, each round through b in
    // roundRanges ranges of columns (each at most a quarter of the L2), every core starting a range at its own block
    // (the kernel's cube stage, NextSegment): each block of b comes from the DDR once, for one core, and the others'
    // reads of it hit the L2. The strips after the last whole round are split evenly over the cores.
    t.roundRanges = 0;
    if (!soc.split_architecture && k != 0 && t.usedCores >= 2 && batch * t.strips >= t.usedCores) {
        const uint64_t l2 = static_cast<uint64_t>(Timing(soc, TimingParam::L2_BYTES));
        const uint64_t b_bytes = k * n;
        const uint64_t round_a = static_cast<uint64_t>(t.usedCores) * t.stripM * k;
        if (b_bytes + round_a > l2 / 2) {
            t.roundRanges = static_cast<uint32_t>(
                std::min<uint64_t>(t.nBlocks, CeilDiv(b_bytes, std::max<uint64_t>(1, l2 / kL2PerRoundRange))));
        }
    }
    t.cStride = static_cast<uint32_t>(AlignUp(bn, 32));
    t.cOrgN = soc.split_architecture ? 0u : static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(t.callBlocks) * bn, 32));
    t.kPad = static_cast<uint32_t>(AlignUp(std::max<uint64_t>(k, 1), 32));
    // The correction's row terms: two 32-byte blocks per row (-(RA - K za') and -za', each broadcast over a block).
    t.raStripBytes = t.stripM * kRowTermBytes;
    if (t.sharedPrep != 0 && PrivatePrepPays(t, k, n)) {
        t.sharedPrep = 0;
    }
    t.exactConvert = (!soc.split_architecture && k > kFloatExactMaxK && !float8) ? 1 : 0;
    t.vectorCorrection = k <= kVectorExactMaxK ? 1 : 0;
    t.prepChunk = kPrepChunk;

    // ---- workspace (user part, 32-byte aligned regions) ----
    const uint64_t workers = static_cast<uint64_t>(t.usedCores) * t.workersPerCore;
    t.prepAStripBytes = AlignUp((static_cast<uint64_t>(t.onesRow) + t.stripM) * t.kPad, 32);
    const bool prep_a_possible = t.mapA != 0 || t.onesRow != 0;
    const uint64_t a_strips_total = static_cast<uint64_t>(t.aMatrices) * t.strips;
    uint64_t prep_a = 0, ra = 0;
    if (prep_a_possible) {
        prep_a = t.sharedPrep ? a_strips_total * t.prepAStripBytes : workers * t.prepAStripBytes;
        t.prepAPerWorker = t.sharedPrep ? 0 : t.prepAStripBytes;
    }
    if (za_may || zb_may) {
        ra = t.sharedPrep ? a_strips_total * t.raStripBytes : workers * t.raStripBytes;
    }
    // Mapped b: split SoCs, all of b once (every worker its share, SyncAll); 310p (no hardware SyncAll), each core
    // the columns of its call into its own slot, K rows of the call's columns rounded up to 32 bytes ([cols, K] when
    // b is transposed), remapped only when the call's columns change.
    const uint64_t call_n = static_cast<uint64_t>(t.callBlocks) * bn;
    t.prepBBytes = !t.mapB ? 0
                   : t.sharedPrep ? AlignUp(static_cast<uint64_t>(t.bMatrices) * k * n, 32)
                                  : k * AlignUp(call_n, 32);
    const uint64_t prep_b = t.sharedPrep ? t.prepBBytes : static_cast<uint64_t>(t.usedCores) * t.prepBBytes;
    // C of a call: split SoCs, two areas used in turn (the next call's request goes out before this one's epilogue),
    // each the call's [rows, cols] int32 contiguous; 310p, the call's C in its org layout (row stride cOrgN) and a
    // row's worth of slack for the epilogue's whole-row reads.
    t.wsCPerWorker = soc.split_architecture
                         ? 2ull * t.callBlocks * base_m * bn * 4
                         : (static_cast<uint64_t>(base_m) * t.cOrgN + t.cStride) * 4;
    if (k == 0) {
        t.wsCPerWorker = 0;  // no cube
    }
    uint64_t off = 0;
    t.wsPrepAOffset = off;
    off += prep_a;
    t.wsPrepBOffset = off;
    off += prep_b;
    t.wsRaOffset = off;
    off += ra;
    t.wsCOffset = off;
    off += workers * t.wsCPerWorker;
    if (off > kMaxTensorBytes) {
        SetViolation(v, op, "a", &soc, "bytes of the workspace (prepared operands and the int32 blocks)", "<= 2^48",
                     Str(off), "split the matrix product");
        return false;
    }
    plan->workspace_bytes = off;
    plan->system_workspace_bytes = soc.system_workspace_bytes;

    // ---- UB ----
    t.ubMatmulWs = soc.split_architecture ? 0u : static_cast<uint32_t>(AlignUp(MatmulLocalWorkspaceBytes(
                                                      LocalWorkspaceShapeOf(QmmCubeTiling(t, soc))), 32));
    t.ubColI32 = t.cStride * 4;
    t.ubRowI32 = static_cast<uint32_t>(AlignUp(base_m, 32) * 4);  // whole 32-element steps of a strip's rows
    // The row terms, and on split SoCs the row sums' spill past the last row's slot when a row is one preparation
    // step (the kernel's vecSums: kPad <= prepChunk; its ReduceSum writes one float per 256-byte repeat).
    const uint32_t spill = soc.split_architecture && t.kPad <= t.prepChunk ? aqo_qmm_layout::RowSumSpillBytes(t.kPad) : 0;
    t.ubRowTerms = (za_may || zb_may) ? t.raStripBytes + spill : 0;
    t.ubPrepIn = 2 * t.prepChunk;  // a's preparation loads double buffered
    t.ubPrepHalf = t.prepChunk * 2;
    t.ubPrepOut = t.prepChunk;
    // The chunk: rows x cStride elements; per element the stage holds the int32 block twice and one scratch float,
    // the epilogue what it says. The scratch also holds a preparation step's float32 values and ReduceSum's work.
    const uint64_t fixed = t.ubMatmulWs + 2ull * t.ubColI32 + 2ull * t.ubRowI32 + t.ubRowTerms + t.ubPrepIn +
                           t.ubPrepHalf + t.ubPrepOut + r.epilogue_fixed_bytes +
                           static_cast<uint64_t>(t.prepChunk) * 5 + 1024;
    const uint64_t per_elem = 12ull + r.epilogue_bytes_per_element;
    // UB the kernel may use (KernelUbBytes: the Matmul client's message block, 310p's API area).
    const uint64_t ub_usable = KernelUbBytes(soc, true);
    const uint64_t avail = ub_usable > fixed ? ub_usable - fixed : 0;
    const uint64_t max_elems = std::min<uint64_t>(avail / per_elem, 8192);
    uint64_t rc = std::min<uint64_t>(max_elems / t.cStride, static_cast<uint64_t>(t.stripM));
    if (rc == 0) {
        SetViolation(v, op, "ub_size", &soc, "unified buffer for the matmul epilogue (one row of a block)",
                     ">= " + Str(fixed + per_elem * t.cStride) + " bytes", Str(ub_usable) + " bytes",
                     "use the SoC's real UB size (ub_size=None)");
        return false;
    }
    t.rowsPerChunk = static_cast<uint32_t>(rc);
    const uint64_t elems = rc * t.cStride;
    t.ubCIn = static_cast<uint32_t>(elems * 4);
    // The scratch: a chunk's floats (with the exact conversion's mask block after them), or a preparation step's
    // floats, its row sums (one 32-byte slot per row) and ReduceSum's work, or a strip's row terms (prepChunk x 5 is
    // more than 256 rows of them).
    const uint64_t chunk_scratch = elems * 4 + (t.exactConvert ? aqo_qmm_layout::kSplitMaskBytes : 0);
    t.ubTmp = static_cast<uint32_t>(std::max<uint64_t>(chunk_scratch, static_cast<uint64_t>(t.prepChunk) * 5 + 1024));
    const uint64_t total = t.ubMatmulWs + 2ull * t.ubCIn + t.ubTmp + 2ull * t.ubColI32 + 2ull * t.ubRowI32 +
                           t.ubRowTerms + t.ubPrepIn +
                           t.ubPrepHalf + t.ubPrepOut + r.epilogue_fixed_bytes + r.epilogue_bytes_per_element * elems;
    if (total > ub_usable) {
        SetViolation(v, op, "ub_size", &soc, "unified buffer for the matmul epilogue", ">= " + Str(total) + " bytes",
                     Str(ub_usable) + " bytes", "use the SoC's real UB size (ub_size=None)");
        return false;
    }
    plan->epilogue_elements = static_cast<uint32_t>(elems);
    plan->ub_bytes = static_cast<uint32_t>(total);
    // The kernel's InitBuffer order: the cube stage's, then the zero-point stage's.
    const MatmulCubeUb list[] = {{"c_in", t.ubCIn, 2},         {"scratch", t.ubTmp, 1},
                                 {"cb_i32", t.ubColI32, 1},    {"ra_i32", t.ubRowI32, 1},
                                 {"row_terms", t.ubRowTerms, 1},
                                 {"prep_in", t.ubPrepIn, 1},   {"prep_half", t.ubPrepHalf, 1},
                                 {"prep_out", t.ubPrepOut, 1}, {"zb_i32", t.ubColI32, 1},
                                 {"za_i32", t.ubRowI32, 1}};
    plan->ub.assign(list, list + sizeof(list) / sizeof(list[0]));
    return true;
}

uint64_t MatmulLocalWorkspaceBytes(const MatmulLocalWorkspaceShape& s)
{
    if (s.vec_nd2nz) {
        // ND operands or C outside UB: transLength, twice with UB reuse, four times without.
        return s.trans_length * (s.ub_reuse ? 2u : 4u);
    }
    uint64_t len = 0;
    if (s.c_tile_staged) {
        len += s.base_m * s.base_n * s.c_bytes;  // the C tile on its way from L0C to GM (or to the UB C)
    }
    if (s.c_in_gm && s.single_n % (32 / s.c_bytes) != 0) {
        len += 32;  // the N-tail block
    }
    // ND-to-NZ staging of A or B (both ND here): the larger need.
    const uint64_t c0 = 32 / s.src_bytes;
    const uint64_t a_used = s.single_k % c0 != 0 ? s.base_m * 32 : 0;
    uint64_t b_used = 0;
    if (s.int8_pair) {
        b_used = s.mdl ? s.base_k * s.step_ka * s.base_n * s.step_n * 2 : s.base_k * s.base_n * 2;
    } else if (s.single_n % c0 != 0) {
        b_used = s.base_k * 32;
    }
    return len + std::max(a_used, b_used);
}

QmmCubeTilingValues QmmCubeTiling(const MatmulCubeTiling& t, const SocSpec& soc)
{
    QmmCubeTilingValues c = QmmCubeTilingValues();
    const int32_t k = static_cast<int32_t>(std::max<uint32_t>(t.k, 1));
    const int32_t call_n = static_cast<int32_t>(t.callBlocks * t.baseN);
    c.usedCoreNum = 1;
    c.M = c.singleCoreM = static_cast<int32_t>(t.baseM);
    // 310p: an ND int32 C needs its N (the C row stride) a 32-byte multiple.
    c.N = soc.split_architecture ? call_n : static_cast<int32_t>(t.cOrgN);
    // (310p writes C as ND_ALIGN, whole fractal rows: no tail copy, so no N-tail scratch in the local workspace.)
    c.singleCoreN = call_n;
    c.Ka = c.Kb = c.singleCoreK = k;
    c.baseM = static_cast<int32_t>(t.baseM);
    c.baseN = static_cast<int32_t>(t.baseN);
    c.baseK = static_cast<int32_t>(t.baseK);
    c.depthA1 = static_cast<int32_t>(t.depthA1);
    c.depthB1 = static_cast<int32_t>(t.depthB1);
    c.stepM = 1;
    c.stepN = static_cast<int32_t>(t.callBlocks);  // one N step per call: A stays over its blocks
    c.stepKa = c.stepKb = 1;
    c.iterateOrder = 0;  // ORDER_M
    c.dbL0A = c.dbL0B = 2;
    c.dbL0C = static_cast<int32_t>(t.dbL0C);
    c.transLength = soc.split_architecture ? 0 : static_cast<int32_t>(t.baseM * t.baseN * 4);
    c.isBias = 0;
    return c;
}

void ExplainMatmulCube(const MatmulCubeRequest& r, const SocSpec& soc, const MatmulCubePlan& plan,
                       const std::vector<QmmExtraTensor>& extra, uint64_t y_bytes, PlanExplanation* e)
{
    const MatmulCubeTiling& t = plan.tiling;
    const uint64_t m = t.m, n = t.n, k = t.k;
    const uint32_t cores = KernelCores(soc, r.op);
    e->soc = soc.name;
    e->mode = soc.split_architecture ? "mix_cube_vector" : "coupled_ai_core";
    e->core_capacity = cores;
    e->used_cores = t.usedCores;
    e->ub_capacity = soc.ub_bytes;
    e->work_unit = "output block";
    e->total_work = t.unitCount;
    e->balance_unit = t.workersPerCore;  // whole blocks per worker, so a core's count differs by its workers'
    e->passes = 1;
    // A core's blocks: one range (its workers' ranges are adjacent), or with rounds two (its whole strip rows, then its
    // share of the blocks after the rounds; the second listed when not empty).
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> core_ranges(t.usedCores);
    for (uint32_t c = 0; c < t.usedCores; ++c) {
        uint64_t b0[2], e0[2], b1[2], e1[2];
        QmmWorkerRanges(t, c * t.workersPerCore, b0, e0);
        QmmWorkerRanges(t, c * t.workersPerCore + t.workersPerCore - 1, b1, e1);
        core_ranges[c].push_back({b0[0], e1[0]});
        if (e1[1] > b0[1]) {
            core_ranges[c].push_back({b0[1], e1[1]});
        }
        for (const auto& range : core_ranges[c]) {
            CoreWork w;
            w.core = c;
            w.begin = range.first;
            w.end = range.second;
            e->work.push_back(w);
        }
    }
    // GM tensors.
    const uint64_t a_bytes = static_cast<uint64_t>(t.aMatrices) * m * k * DTypeBytes(r.a_dtype);
    const uint64_t b_bytes = static_cast<uint64_t>(t.bMatrices) * k * n * DTypeBytes(r.b_dtype);
    const uint64_t y_total = static_cast<uint64_t>(t.batch) * m * n * y_bytes;
    auto vec_elems = [&](char kind, bool batched) -> uint64_t {
        if (kind == 'a') return batched ? static_cast<uint64_t>(t.aMatrices) * m : m;
        if (kind == 'b') return batched ? static_cast<uint64_t>(t.bMatrices) * n : n;
        return 1;
    };
    {
        GmTensor g;
        g.name = "a";
        g.bytes = a_bytes;
        e->tensors.push_back(g);
        g.name = "b";
        g.bytes = b_bytes;
        e->tensors.push_back(g);
        for (const QmmExtraTensor& x : extra) {
            if (!x.present) continue;
            g.name = x.name;
            g.bytes = vec_elems(x.kind, x.batched) * x.elem_bytes;
            e->tensors.push_back(g);
        }
        g.name = "y";
        g.bytes = y_total;
        g.output = true;
        e->tensors.push_back(g);
        g.name = "workspace";
        g.bytes = plan.workspace_bytes;
        g.output = false;
        e->tensors.push_back(g);
    }
    // y rows of a core's blocks: blocks are numbered (batch, strip, N block), N fastest.
    const bool pad = soc.has_data_copy_pad;
    const uint64_t last_width = n - static_cast<uint64_t>(t.nBlocks - 1) * t.baseN;
    const bool whole_rows = !pad && n * y_bytes % 32 == 0 && static_cast<uint64_t>(t.baseN) * y_bytes % 32 == 0;
    auto seg_tail = [&](uint64_t width) -> uint32_t {
        return (pad || whole_rows) ? 0u : static_cast<uint32_t>(width * y_bytes % 32);
    };
    const uint64_t row_bytes = n * y_bytes;
    auto strip_rows = [&](uint64_t sr, uint64_t* r0, uint64_t* r1) {  // y rows (of [batch * M, N]) of strip row sr
        const uint64_t bi = sr / t.strips, s = sr % t.strips;
        *r0 = bi * m + s * t.stripM;
        *r1 = bi * m + std::min<uint64_t>(m, (s + 1) * t.stripM);
    };
    // Columns [c0, c1) of y rows [r0, r1), block by block: each block's segment of a row is one DMA write (with a
    // rewritten or scalar tail without DataCopyPad); the summary lists the whole range per row (strided).
    auto add_y = [&](uint32_t core, uint64_t r0, uint64_t r1, uint64_t c0, uint64_t c1) {
        if (r1 <= r0 || c1 <= c0) {
            return;
        }
        // Without DataCopyPad the last segment of the range (its block ending at c1) may rewrite or scalar-store.
        const uint64_t width = c1 == n ? last_width : std::min<uint64_t>(t.baseN, c1 - c0);
        const uint32_t tail = seg_tail(width);
        const uint32_t scalar = width * y_bytes < 32 ? tail : 0u;
        const uint32_t rewrite = tail != 0 && width * y_bytes >= 32 ? 32u - tail : 0u;
        if (c0 == 0 && c1 == n && scalar == 0 && rewrite == 0) {
            AddRange(e, "y", core, r0 * row_bytes, r1 * row_bytes, true);
            return;
        }
        AddStridedRange(e, "y", core, r0 * row_bytes + c0 * y_bytes, r0 * row_bytes + c1 * y_bytes, row_bytes,
                        r1 - r0, true, scalar, rewrite);
    };
    const uint64_t units_per_matrix = static_cast<uint64_t>(t.strips) * t.nBlocks;
    for (uint32_t c = 0; c < t.usedCores; ++c) {
        {
            // The workspace this core's workers write: their shares of the prepared rows (with their strips' ones
            // rows and row terms) and of the mapped b (shared: every worker an even share of all rows of a, as a
            // span; private: each worker's own slot), and their C areas.
            const uint64_t workers = static_cast<uint64_t>(t.usedCores) * t.workersPerCore;
            const uint64_t w0 = static_cast<uint64_t>(c) * t.workersPerCore, w1 = w0 + t.workersPerCore;
            uint64_t pa0 = w0 * t.prepAStripBytes, pa1 = w1 * t.prepAStripBytes;  // private: a slot per worker
            uint64_t rt0 = w0 * t.raStripBytes, rt1 = w1 * t.raStripBytes;
            if (t.sharedPrep) {
                const uint64_t rows_all = static_cast<uint64_t>(t.aMatrices) * m;
                const uint64_t r0 = rows_all * w0 / workers, r1 = rows_all * w1 / workers;
                pa0 = pa1 = rt0 = rt1 = 0;
                if (r1 > r0) {
                    auto slot_row = [&](uint64_t row, uint64_t* slot, uint64_t* in_strip) {
                        const uint64_t ai = row / m, s = row % m / t.stripM;
                        *slot = ai * t.strips + s;
                        *in_strip = row % m - s * t.stripM;
                    };
                    uint64_t sl0 = 0, lo = 0, sl1 = 0, hi = 0;
                    slot_row(r0, &sl0, &lo);
                    slot_row(r1 - 1, &sl1, &hi);
                    pa0 = sl0 * t.prepAStripBytes + (lo == 0 ? 0 : (t.onesRow + lo) * t.kPad);
                    pa1 = sl1 * t.prepAStripBytes + (t.onesRow + hi + 1) * t.kPad;
                    rt0 = sl0 * t.raStripBytes + lo * kRowTermBytes;
                    rt1 = sl1 * t.raStripBytes + (hi + 1) * kRowTermBytes;
                }
            }
            if (t.wsPrepBOffset > t.wsPrepAOffset) {
                AddRange(e, "workspace", c, t.wsPrepAOffset + pa0, t.wsPrepAOffset + pa1, true);
            }
            if (t.prepBBytes != 0 && !t.sharedPrep) {
                AddRange(e, "workspace", c, t.wsPrepBOffset + c * t.prepBBytes, t.wsPrepBOffset + (c + 1) * t.prepBBytes,
                         true);
            } else if (t.prepBBytes != 0) {
                const uint64_t b_elems = static_cast<uint64_t>(t.bMatrices) * k * n;
                const uint64_t blocks = CeilDiv(b_elems, 32);
                const uint64_t b0 = blocks * w0 / workers * 32;
                const uint64_t b1 = AlignUp(std::min<uint64_t>(blocks * w1 / workers * 32, b_elems), 32);
                AddRange(e, "workspace", c, t.wsPrepBOffset + b0, t.wsPrepBOffset + b1, true);
            }
            if (t.wsCOffset > t.wsRaOffset) {
                AddRange(e, "workspace", c, t.wsRaOffset + rt0, t.wsRaOffset + rt1, true);
            }
            AddRange(e, "workspace", c, t.wsCOffset + w0 * t.wsCPerWorker, t.wsCOffset + w1 * t.wsCPerWorker, true);
        }
        for (const QmmExtraTensor& x : extra) {
            if (x.present && x.kind == 0) {
                AddRange(e, x.name, c, 0, x.elem_bytes, false);
            }
        }
        for (const auto& range : core_ranges[c]) {
            const uint64_t u0 = range.first, u1 = range.second;
            if (u1 <= u0) {
                continue;
            }
            const uint64_t sr0 = u0 / t.nBlocks, sr1 = (u1 - 1) / t.nBlocks;  // strip rows (batch x strip)
            const uint64_t c0 = u0 % t.nBlocks * t.baseN;
            const uint64_t c1 = std::min<uint64_t>(n, ((u1 - 1) % t.nBlocks + 1) * t.baseN);
            uint64_t r0 = 0, r1 = 0;
            if (sr0 == sr1) {
                strip_rows(sr0, &r0, &r1);
                add_y(c, r0, r1, c0, c1);
            } else {
                const uint64_t full0 = c0 == 0 ? sr0 : sr0 + 1;
                const uint64_t full1 = c1 == n ? sr1 + 1 : sr1;
                if (c0 != 0) {
                    strip_rows(sr0, &r0, &r1);
                    add_y(c, r0, r1, c0, n);
                }
                if (full1 > full0) {
                    uint64_t s0 = 0, s1 = 0, e0 = 0, e1 = 0;
                    strip_rows(full0, &s0, &s1);
                    strip_rows(full1 - 1, &e0, &e1);
                    add_y(c, s0, e1, 0, n);
                }
                if (c1 != n) {
                    strip_rows(sr1, &r0, &r1);
                    add_y(c, r0, r1, 0, c1);
                }
            }
            // Reads as spans containing every byte a core reads.
            const uint64_t bi0 = u0 / units_per_matrix, bi1 = (u1 - 1) / units_per_matrix;
            const bool one_row = sr0 == sr1;
            const uint64_t m_lo = bi0 == bi1 ? sr0 % t.strips * t.stripM : 0;
            const uint64_t m_hi = bi0 == bi1 ? std::min<uint64_t>(m, (sr1 % t.strips + 1) * t.stripM) : m;
            const uint64_t n_lo = one_row ? c0 : 0, n_hi = one_row ? c1 : n;
            uint64_t a_lo = 0, a_hi = 0, b_lo = 0, b_hi = 0;
            LinearIndexSpan(t.batchDims, t.aBatchStrides, t.batchRank, bi0, bi1, &a_lo, &a_hi);
            LinearIndexSpan(t.batchDims, t.bBatchStrides, t.batchRank, bi0, bi1, &b_lo, &b_hi);
            const uint64_t am0 = a_lo == a_hi ? m_lo : 0, am1 = a_lo == a_hi ? m_hi : m;
            const uint64_t ae = DTypeBytes(r.a_dtype), be = DTypeBytes(r.b_dtype);
            if (k != 0) {
                if (t.sharedPrep && (t.mapA || t.onesRow || t.mapB)) {
                    // The preparation phase: a worker's share of the strips of every a matrix / of b's bytes; listed as
                    // the whole operand (the shares depend on the workers, not the blocks).
                    AddRange(e, "a", c, 0, a_bytes, false);
                    AddRange(e, "b", c, 0, b_bytes, false);
                } else {
                    AddRange(e, "a", c, (a_lo * m + am0) * k * ae, (a_hi * m + am1) * k * ae, false);
                    if (t.bTrans) {
                        AddRange(e, "b", c, (b_lo * n + n_lo) * k * be, (b_hi * n + n_hi) * k * be, false);
                    } else {
                        AddRange(e, "b", c, (b_lo * k * n + n_lo) * be, (b_hi * k * n + (k - 1) * n + n_hi) * be,
                                 false);
                    }
                }
            }
            for (const QmmExtraTensor& x : extra) {
                if (!x.present || x.kind == 0) continue;
                if (x.scanned) {
                    // Every worker reads every zero point once (whether the launch needs their terms).
                    AddRange(e, x.name, c, 0, vec_elems(x.kind, x.batched) * x.elem_bytes, false);
                    continue;
                }
                if (x.kind == 'a') {
                    const uint64_t p0 = (x.batched ? a_lo * m : 0) + am0;
                    const uint64_t p1 = (x.batched ? a_hi * m : 0) + am1;
                    AddRange(e, x.name, c, p0 * x.elem_bytes, p1 * x.elem_bytes, false);
                } else {
                    const uint64_t p0 = (x.batched ? b_lo * n : 0) + n_lo;
                    const uint64_t p1 = (x.batched ? b_hi * n : 0) + n_hi;
                    AddRange(e, x.name, c, p0 * x.elem_bytes, p1 * x.elem_bytes, false);
                }
            }
        }
    }
    // UB map: the 310p local workspace first, then the stage's buffers (the operator appends its own).
    uint32_t o = 0;
    if (t.ubMatmulWs != 0) {
        UbBuffer b;
        b.name = "matmul_local_workspace";
        b.offset = 0;
        b.bytes = t.ubMatmulWs;
        e->ub.push_back(b);
        o = t.ubMatmulWs;
    }
    for (const MatmulCubeUb& u : plan.ub) {
        if (u.bytes != 0) {  // else not allocated
            AppendUbBuffer(&e->ub, &o, u.name, u.bytes, u.slots);
        }
    }
    e->notes.push_back("blocks of " + Str(t.stripM) + " x " + Str(t.baseN) + " (rows of one strip x N); " +
                       Str(t.unitCount) + " blocks = batch " + Str(t.batch) + " x " + Str(t.strips) + " strips x " +
                       Str(t.nBlocks) + " N blocks, N fastest; each vector worker a contiguous range" +
                       (t.roundRanges != 0 ? std::string(" (with rounds two, below)") : std::string()) +
                       ", cut into cube calls of at most " + Str(t.callBlocks) + " blocks of one strip");
    if (t.roundRanges != 0) {
        e->notes.push_back("rounds (b and the cores' strips of a pass half of the " +
                           Str(static_cast<uint64_t>(Timing(soc, TimingParam::L2_BYTES)) >> 20) +
                           " MiB L2): each core first takes " +
                           Str(static_cast<uint64_t>(t.batch) * t.strips / t.usedCores) + " whole strip(s), then an even share of the rest; the cores go through their i-th strips "
                           "together, b's columns in " + Str(t.roundRanges) + " ranges, each core starting a range at "
                           "its own block, so that each block of b comes from the DDR for one core and hits the L2 for "
                           "the others");
    }
    e->notes.push_back("cube: base block " + Str(t.baseM) + " x " + Str(t.baseN) + " x " + Str(t.baseK) +
                       ", ORDER_M with one N step per call, depthA1 " + Str(t.depthA1) +
                       (t.depthA1 >= CeilDiv(std::max<uint64_t>(k, 1), t.baseK)
                            ? " (A's K panel stays in L1 over a call's blocks)"
                            : " (A's K panel does not fit L1: reloaded per block)"));
    if (soc.split_architecture) {
        e->notes.push_back("mix kernel: 2 vector workers per cube core; each drives the cube through an asynchronous "
                           "Iterate per call and runs the epilogue of block i while the cube computes block i + 1");
    } else {
        e->notes.push_back("coupled AI cores: a synchronous IterateAll per call (the API loads a block's operands "
                           "under its cube work, writes its C to GM row by row and starts the next block's loads "
                           "after that write), then the call's epilogue; " + Str(t.ubMatmulWs) +
                           " bytes of UB are the API's local workspace (SetLocalWorkspace; without it the API "
                           "writes at UB address 0)");
    }
    if (t.mapA || t.mapB) {
        e->notes.push_back(std::string(t.mapA ? "uint8 a" : "") + (t.mapA && t.mapB ? " and " : "") +
                           (t.mapB ? "uint8 b" : "") +
                           " mapped to int8 (v ^ 0x80, zero point lowered by 128: v - zp unchanged), " +
                           (t.sharedPrep ? "a and b once, each worker an even share of a's rows and of b's bytes, "
                                           "published to all workers by a SyncAll"
                                         : "by each worker for its own calls (no SyncAll): a once per strip, b's "
                                           "columns once per call whose columns change"));
    }
    if (!GetDTypeInfo(r.a_dtype).is_float && k != 0) {
        e->notes.push_back("zero points: acc = A'B' - zb (A'1 - K za) - za 1'B', int32 mod 2^32; 1'B' from a ones row "
                           "before each prepared strip (C row 0), only when some a zero point is not 0 after the "
                           "mapping (A is then prepared once per strip, int8 too); A'1 summed by the vector unit over "
                           "the strip, only when some b zero point is not 0; the kernel decides from the values");
    }
    if (soc.split_architecture && t.sharedPrep == 0 && t.unitCount != 0 && (t.mapA || t.onesRow)) {
        e->notes.push_back("one strip of a: each worker prepares its own copy of it (" +
                           Str(static_cast<uint64_t>(t.usedCores) * t.workersPerCore * t.prepAStripBytes) +
                           " bytes in all, at most 1/" + Str(kPrivatePrepBytesPerB) + " of b's bytes) and needs no "
                           "SyncAll before its cube request");
    }
    if (!soc.has_data_copy_pad && n * y_bytes % 32 != 0 && t.unitCount != 0) {
        if (!plan.single_writer) {
            e->notes.push_back("no DataCopyPad: y rows end in a partial 32-byte block (N = " + Str(n) + "); baseN " +
                               Str(t.baseN) + (t.baseN != plan.chosen_base_n ? " (not " + Str(plan.chosen_base_n) + ")"
                                                                            : "") +
                               " keeps every row segment >= 32 bytes: whole blocks, then the block ending at the "
                               "segment's end, rewriting a few of the core's own bytes with the same values");
        } else {
            e->notes.push_back("no DataCopyPad: no block width keeps every y row segment >= 32 bytes (N = " + Str(n) +
                               "): the whole op runs on ONE core, the only writer of y, which stores the last bytes "
                               "of each row with the scalar unit and flushes its data cache");
        }
    }
    e->notes.push_back("workspace " + Str(plan.workspace_bytes) + " bytes: prepared a strips from " +
                       Str(t.wsPrepAOffset) + ", mapped b from " + Str(t.wsPrepBOffset) + ", row sums from " +
                       Str(t.wsRaOffset) + ", " + Str(static_cast<uint64_t>(t.usedCores) * t.workersPerCore) +
                       " workers' int32 blocks (" + Str(t.wsCPerWorker) + " bytes each) from " + Str(t.wsCOffset) +
                       "; the system workspace comes on top");
    if (t.unitCount == 0) {
        e->notes.push_back("empty output: nothing to compute");
    }
    if (k == 0) {
        e->notes.push_back("K = 0: the cube is skipped, acc = 0");
    }
}

}  // namespace aqo
