// QLinearMatMul plan (see qlinear_matmul_plan.h for the kernel's scheme).
#include "qlinear_matmul_plan.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

namespace aqo {
namespace {

const OpKind kOp = OpKind::QLINEAR_MATMUL;

// Tile shape bounds. The cube's own base blocks are chosen by the Matmul API's tiling (CANN adapter) inside a
// tile; these only set the granularity of work distribution and of the vector epilogue.
const uint32_t kMaxBaseM = 128;   // rows of a tile: one int32 accumulator row per vector step
const uint32_t kMaxBaseN = 256;   // columns: a 256-wide int32 row is 1 KiB of UB per buffer
const uint32_t kMinBaseN = 64;    // narrower tiles only when N itself is narrower
const uint32_t kMinBaseM = 16;    // the cube's fractal height
const uint32_t kMapChunkMax = 8192;  // bytes of a uint8 -> int8 mapping step
// ascend310p has no fixpipe: the Matmul API moves C from L0C to GM and stages the ND-to-NZ copies of A / B through
// a UB local workspace, which the kernel allocates (first, at UB address 0) and hands over with SetLocalWorkspace;
// without it the API would write through UB address 0, over the kernel's own buffers. The plan budgets this much
// for it; the CANN adapter bounds the API's tiling to it (SetBufferSpace) and checks MatmulGetTmpBufSize against it.
const uint32_t kMatmulApiUbReserveCoupled = 65536;

uint32_t OperandCode(DType t)
{
    switch (t) {
        case DType::UINT8: return QMM_UINT8;
        case DType::FLOAT8_E4M3FN: return QMM_FLOAT8_E4M3FN;
        case DType::FLOAT8_E5M2: return QMM_FLOAT8_E5M2;
        default: return QMM_INT8;
    }
}

std::string Str(uint64_t v) { return std::to_string(v); }

// Appends a GM range, merging it into the previous one of the same tensor / core / direction when contiguous
// (never ranges with a scalar-stored tail, a rewritten last block or repetitions: each keeps its own).
void AddRange(PlanExplanation* e, const char* tensor, uint32_t core, uint64_t begin, uint64_t end, bool write,
              uint32_t scalar_bytes = 0, uint32_t rewrite_bytes = 0)
{
    if (end <= begin) {
        return;
    }
    if (!e->gm.empty() && scalar_bytes == 0 && rewrite_bytes == 0) {
        GmRange& last = e->gm.back();
        if (last.tensor == tensor && last.core == core && last.write == write && last.end == begin &&
            last.scalar_bytes == 0 && last.rewrite_bytes == 0 && last.count == 1) {
            last.end = end;
            return;
        }
    }
    GmRange r;
    r.tensor = tensor;
    r.core = core;
    r.begin = begin;
    r.end = end;
    r.write = write;
    r.scalar_bytes = scalar_bytes;
    r.rewrite_bytes = rewrite_bytes;
    e->gm.push_back(r);
}

// Appends `count` ranges [begin + i * stride, end + i * stride) as one strided GmRange (scalar / rewritten bytes
// per repetition).
void AddStridedRange(PlanExplanation* e, const char* tensor, uint32_t core, uint64_t begin, uint64_t end,
                     uint64_t stride, uint64_t count, bool write, uint32_t scalar_bytes, uint32_t rewrite_bytes)
{
    if (count == 1) {
        AddRange(e, tensor, core, begin, end, write, scalar_bytes, rewrite_bytes);
        return;
    }
    GmRange r;
    r.tensor = tensor;
    r.core = core;
    r.begin = begin;
    r.end = end;
    r.stride = stride;
    r.count = count;
    r.write = write;
    r.scalar_bytes = scalar_bytes;
    r.rewrite_bytes = rewrite_bytes;
    e->gm.push_back(r);
}

// The smallest and largest value over i in [lo, hi] of f(i) = sum_d digit_d(i) * coeff[d], where digit_d are the
// mixed-radix digits of i over dims[0..rank) (outermost first) and every coeff >= 0: the matrix of an operand that
// broadcast batch matrices lo..hi of y use (coeff = the operand's batch strides, 0 where it broadcasts). O(rank):
// [lo, hi] splits into a partial block at each end and whole blocks between them at every digit level.
void LinearIndexSpan(const uint32_t* dims, const uint32_t* coeff, uint32_t rank, uint64_t lo, uint64_t hi,
                     uint64_t* mn, uint64_t* mx)
{
    // inner[d]: indices per step of digit d; full_max[d]: the largest f over the digits d.. (all free).
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
    // Walk the common prefix of lo and hi, then the two diverging chains.
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
    if (dh > dl + 1) {  // whole blocks of digit d strictly between
        note(base + (dl + 1) * coeff[d], base + (dh - 1) * coeff[d] + full_max[d + 1]);
    }
    // lo's chain: digit dl, then from lo's digits up to the end of each level.
    uint64_t acc = base + dl * coeff[d];
    for (uint32_t e = d + 1; e < rank; ++e) {
        const uint64_t x = lo / inner[e + 1] % dims[e];
        if (x + 1 < dims[e]) {
            note(acc + (x + 1) * coeff[e], acc + static_cast<uint64_t>(dims[e] - 1) * coeff[e] + full_max[e + 1]);
        }
        acc += x * coeff[e];
    }
    note(acc, acc);  // lo itself
    // hi's chain: digit dh, then from the start of each level up to hi's digits.
    acc = base + dh * coeff[d];
    for (uint32_t e = d + 1; e < rank; ++e) {
        const uint64_t x = hi / inner[e + 1] % dims[e];
        if (x > 0) {
            note(acc, acc + (x - 1) * coeff[e] + full_max[e + 1]);
        }
        acc += x * coeff[e];
    }
    note(acc, acc);  // hi itself
    *mn = best_min;
    *mx = best_max;
}

// The tile shape: as large as the bounds allow, then narrower while there are fewer tiles than cores (small M,
// N or batch would otherwise leave cores idle).
void ChooseTiles(uint64_t batch, uint64_t m, uint64_t n, uint32_t workers, uint32_t* base_m, uint32_t* base_n)
{
    uint64_t bm = std::min<uint64_t>(kMaxBaseM, AlignUp(std::max<uint64_t>(m, 1), kMinBaseM));
    uint64_t bn = std::min<uint64_t>(kMaxBaseN, AlignUp(std::max<uint64_t>(n, 1), 32));
    const uint64_t min_bn = std::min<uint64_t>(kMinBaseN, bn);
    while (batch * CeilDiv(m, bm) * CeilDiv(n, bn) < workers) {
        if (bn / 2 >= min_bn && bn / 2 % 32 == 0 && CeilDiv(n, bn / 2) > CeilDiv(n, bn)) {
            bn /= 2;
        } else if (bm / 2 >= kMinBaseM && bm / 2 % kMinBaseM == 0 && CeilDiv(m, bm / 2) > CeilDiv(m, bm)) {
            bm /= 2;
        } else {
            break;
        }
    }
    *base_m = static_cast<uint32_t>(bm);
    *base_n = static_cast<uint32_t>(bn);
}

// SoCs without DataCopyPad: the kernel writes a y row segment that ends in a partial 32-byte block as its whole
// blocks plus the one block ending at the segment's end (CopyOut's back-off, inside the segment), which needs the
// segment to be at least 32 bytes wide. Only the last N-tile can end in a partial block, so its width N mod baseN
// must be 0 or >= 32. With N = 32 q + r (0 < r < 32), baseN = 32 j leaves N mod baseN = 32 (q mod j) + r: j must not
// divide q (j = q + 1, one tile over all of N, always qualifies). Returns the largest such baseN not above
// ChooseTiles' `bn` and not below its lower bound (kMinBaseN, or N's width when narrower), else the smallest one above
// `bn` up to kMaxBaseN (fewer, wider tiles rather than one core); 0 when none exists (q divisible by every allowed j,
// e.g. 840 | q for j = 2..8, or N < 32): then one core must write all of y.
uint32_t BackOffBaseN(uint64_t n, uint32_t bn)
{
    if (n % 32 == 0) {
        return bn;  // every segment is whole blocks
    }
    if (n < 32) {
        return 0;
    }
    const uint64_t q = n / 32;
    const uint64_t lo = std::min<uint64_t>(kMinBaseN, AlignUp(n, 32)) / 32;
    const uint64_t hi = std::min<uint64_t>(kMaxBaseN, AlignUp(n, 32)) / 32;
    for (uint64_t j = std::min<uint64_t>(bn / 32, hi); j >= lo && j >= 1; --j) {
        if (q % j != 0) {
            return static_cast<uint32_t>(32 * j);
        }
    }
    for (uint64_t j = bn / 32 + 1; j <= hi; ++j) {
        if (q % j != 0) {
            return static_cast<uint32_t>(32 * j);
        }
    }
    return 0;
}

}  // namespace

bool PlanQLinearMatMul(const QLinearMatMulRequest& r, QLinearMatMulPlan* plan, ConstraintViolation* v)
{
    SocSpec soc;
    if (!ResolveSoc(r.soc.c_str(), r.overrides, kOp, &soc, v)) {
        return false;
    }
    QLinearMatMulRequestView view;
    view.a_shape = r.a_shape.empty() ? nullptr : &r.a_shape[0];
    view.a_rank = r.a_shape.size();
    view.b_shape = r.b_shape.empty() ? nullptr : &r.b_shape[0];
    view.b_rank = r.b_shape.size();
    view.a_dtype = r.a_dtype;
    view.b_dtype = r.b_dtype;
    view.y_dtype = r.y_dtype;
    view.a_param = r.a_param;
    view.b_param = r.b_param;
    if (!CheckQLinearMatMulRequest(view, soc, v)) {
        return false;
    }
    const size_t ar = r.a_shape.size();
    const size_t br = r.b_shape.size();
    const uint64_t m = static_cast<uint64_t>(r.a_shape[ar - 2]);
    const uint64_t k = static_cast<uint64_t>(r.a_shape[ar - 1]);
    const uint64_t n = static_cast<uint64_t>(r.b_shape[br - 1]);
    int64_t bdims[kMaxBatchRank];
    size_t brank = 0;
    BroadcastBatchDims(&r.a_shape[0], ar, &r.b_shape[0], br, bdims, &brank);  // cannot fail after the check
    if (brank > kQmmMaxBatchRank) {
        SetViolation(v, kOp, ar > br ? "a" : "b", &soc, "number of broadcast batch dimensions of the NPU kernel",
                     "<= " + Str(kQmmMaxBatchRank), Str(brank), "merge batch dimensions by reshaping");
        return false;
    }
    // The kernel and the Matmul API take 32-bit sizes (the API's shapes are int).
    const uint64_t kMax32 = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());
    const char* dim_names[3] = {"M (a[-2])", "K (a[-1])", "N (b[-1])"};
    const uint64_t dims[3] = {m, k, n};
    for (int i = 0; i < 3; ++i) {
        if (dims[i] > kMax32) {
            SetViolation(v, kOp, i == 2 ? "b" : "a", &soc, std::string(dim_names[i]) + " of the NPU kernel",
                         "<= " + Str(kMax32), Str(dims[i]), "split the matrix product into smaller ones");
            return false;
        }
    }
    // Batch counts: checked products (an empty tensor's other dims may be anything its bytes allow, and the tiling
    // carries each batch dim and count in 32 bits).
    for (size_t i = 0; i < brank; ++i) {
        if (static_cast<uint64_t>(bdims[i]) > kMax32) {
            SetViolation(v, kOp, ar >= br ? "a" : "b", &soc, "batch dimension of the NPU kernel", "<= " + Str(kMax32),
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
        SetViolation(v, kOp, !batch_ok || !a_ok ? "a" : "b", &soc, std::string(what) + " of the NPU kernel",
                     "<= " + Str(kMax32), "more than " + Str(kMax32), "split the batch");
        return false;
    }

    QLinearMatMulTiling& t = plan->tiling;
    t = QLinearMatMulTiling();
    PlanExplanation& e = plan->explanation;
    e = PlanExplanation();
    t.m = static_cast<uint32_t>(m);
    t.n = static_cast<uint32_t>(n);
    t.k = static_cast<uint32_t>(k);
    t.batch = static_cast<uint32_t>(batch);
    t.batchRank = static_cast<uint32_t>(brank);
    for (uint32_t d = 0; d < kQmmMaxBatchRank; ++d) {
        t.batchDims[d] = 1;
    }
    // Per-operand strides (in matrices) of each broadcast batch dim, right-aligned as numpy does.
    {
        const size_t ab = ar - 2, bb = br - 2;
        uint64_t as = 1, bs = 1;
        for (size_t i = 0; i < brank; ++i) {
            const size_t d = brank - 1 - i;  // broadcast dim, from the innermost
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
    t.yCode = OperandCode(r.y_dtype);
    // FACTS 3: no cube of ours multiplies uint8 on the path we use (910b / 950 have none; 310p has uint8 x int8
    // and uint8 x uint8 but not int8 x uint8: one int8 x int8 path for every SoC keeps a single Matmul type).
    t.mapA = (r.a_dtype == DType::UINT8 && soc.qmm_uint8_by_xor) ? 1 : 0;
    t.mapB = (r.b_dtype == DType::UINT8 && soc.qmm_uint8_by_xor) ? 1 : 0;
    const DTypeInfo& yi = GetDTypeInfo(r.y_dtype);
    t.yMax = yi.is_float ? static_cast<float>(yi.quant_max) : 0.0f;
    t.yQMin = yi.is_float ? 0.0f : static_cast<float>(yi.int_min);  // exact in float32 for 8-bit types
    t.yQMax = yi.is_float ? 0.0f : static_cast<float>(yi.int_max);
    t.aParamKind = r.a_param == QuantParamKind::ROW ? 1 : 0;
    t.bParamKind = r.b_param == QuantParamKind::COLUMN ? 1 : 0;
    t.aParamBatchStride = (t.aParamKind != 0 && r.a_param_batched) ? t.m : 0;
    t.bParamBatchStride = (t.bParamKind != 0 && r.b_param_batched) ? t.n : 0;

    const uint32_t cores = KernelCores(soc, kOp);
    t.workersPerCore = soc.split_architecture ? 2 : 1;
    ChooseTiles(batch, m, n, cores * t.workersPerCore, &t.baseM, &t.baseN);
    // Without DataCopyPad: a baseN whose last N-tile is 0 or >= 32 bytes wide (no core stores y with the scalar
    // unit), else one core for the whole op (its scalar stores and data-cache flushes meet no other writer of y).
    const uint32_t chosen_base_n = t.baseN;
    bool single_writer = false;
    if (!soc.has_data_copy_pad) {
        const uint32_t bn = BackOffBaseN(n, t.baseN);
        if (bn != 0) {
            t.baseN = bn;
        } else {
            single_writer = true;
            ChooseTiles(batch, m, n, 1, &t.baseM, &t.baseN);  // one worker: the widest tiles
        }
    }
    t.tilesM = static_cast<uint32_t>(CeilDiv(m, t.baseM));
    t.tilesN = static_cast<uint32_t>(CeilDiv(n, t.baseN));
    const uint64_t tiles = batch * t.tilesM * t.tilesN;
    if (tiles > kMax32) {
        SetViolation(v, kOp, "a", &soc, "output tiles of the NPU kernel", "<= " + Str(kMax32), Str(tiles),
                     "split the matrix product");
        return false;
    }
    t.tileCount = static_cast<uint32_t>(tiles);
    const uint64_t workers_needed = CeilDiv(tiles, t.workersPerCore);
    t.usedCores = static_cast<uint32_t>(std::max<uint64_t>(1, std::min<uint64_t>(single_writer ? 1 : cores,
                                                                                  workers_needed)));
    t.cStride = static_cast<uint32_t>(AlignUp(t.baseN, 8));
    t.bpStride = static_cast<uint32_t>(AlignUp(t.baseN, 32));

    // UB, in InitBuffer order: the Matmul API's local workspace first (310p), then the kernel's own buffers.
    const uint32_t reserve = soc.split_architecture ? 0 : kMatmulApiUbReserveCoupled;
    t.ubMatmulWs = reserve;
    t.ubCIn = t.cStride * 4;
    // Without DataCopyPad one more block per slot: CopyOut gathers a segment's last 32 bytes there (back-off).
    t.ubYOut = static_cast<uint32_t>(AlignUp(t.baseN, 32)) + (soc.has_data_copy_pad ? 0u : 32u);
    t.ubVecI32 = t.cStride * 4;
    t.ubVecF32 = t.cStride * 4;
    t.ubHalf = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(t.cStride) * 2, 32));
    t.ubRa = static_cast<uint32_t>(AlignUp(t.baseM, 8) * 4);
    const uint64_t fixed = 2ull * t.ubCIn + 2ull * t.ubYOut + 3ull * t.ubVecI32 + 4ull * t.ubVecF32 + t.ubHalf +
                           t.ubRa;
    // The mapping chunk takes what is left (in, half, out: 4 bytes of UB per byte mapped), at least 32 bytes.
    uint64_t avail = soc.ub_bytes > fixed + reserve ? soc.ub_bytes - fixed - reserve : 0;
    uint64_t chunk = std::min<uint64_t>(kMapChunkMax, avail / 4 / 32 * 32);
    if (chunk < 32) {
        SetViolation(v, kOp, "ub_size", &soc, "unified buffer for the QLinearMatMul epilogue tiles",
                     ">= " + Str(fixed + reserve + 128) + " bytes", Str(soc.ub_bytes) + " bytes",
                     "use the SoC's real UB size (ub_size=None)");
        return false;
    }
    t.mapChunk = static_cast<uint32_t>(chunk);
    t.ubMapIn = t.mapChunk;
    t.ubMapHalf = t.mapChunk * 2;
    t.ubMapOut = t.mapChunk;

    // Workspace of one vector worker, 32-byte aligned regions.
    uint64_t off = 0;
    // Mapped a: a ones row, then the tile's rows (row stride K; the last 32-byte write may pass their end by 31).
    const uint64_t ws_a = t.mapA ? AlignUp((static_cast<uint64_t>(t.baseM) + 1) * k, 32) + 32 : 0;
    const uint64_t ws_b = t.mapB ? AlignUp(k * t.bpStride, 32) : 0;
    // The int32 tile: row 0 the column sums, rows 1..baseM the product.
    const uint64_t ws_c = (static_cast<uint64_t>(t.baseM) + 1) * t.cStride * 4;
    const uint64_t ws_ra = AlignUp(t.baseM, 8) * 4;
    const uint64_t ws_cb = 0;  // the column sums live in row 0 of the int32 tile (field kept, region empty)
    const uint64_t ws_ones = AlignUp(std::max<uint64_t>(k, 1), 32);
    const uint64_t region[6] = {ws_a, ws_b, ws_c, ws_ra, ws_cb, ws_ones};
    uint64_t offs[6];
    for (int i = 0; i < 6; ++i) {
        offs[i] = off;
        off += region[i];
    }
    const uint64_t workers = static_cast<uint64_t>(t.usedCores) * t.workersPerCore;
    // 64-bit offsets: no limit of the kernel's but the workspace's own size (M, N, K < 2^31 keep it far below).
    if (off > kMaxTensorBytes / workers) {
        SetViolation(v, kOp, "a", &soc, "bytes of the workspace (mapped uint8 slabs grow with K x tile width)",
                     "<= 2^48", Str(off) + " bytes per vector core x " + Str(workers),
                     "use int8 operands (no mapping workspace), or split K");
        return false;
    }
    t.wsAOffset = offs[0];
    t.wsBOffset = offs[1];
    t.wsCOffset = offs[2];
    t.wsRaOffset = offs[3];
    t.wsCbOffset = offs[4];
    t.wsOnesOffset = offs[5];
    t.wsPerWorker = off;
    plan->workspace_bytes = workers * off;
    plan->system_workspace_bytes = soc.system_workspace_bytes;
    plan->y_elements = batch * m * n;

    if (!r.explain) {
        return true;  // the launch path: the tiling only
    }

    // Explanation: cores, work, UB map and GM ranges, all O(cores): every core's tiles are one contiguous range,
    // its y writes at most three row-strided ranges and its reads one span per tensor.
    e.soc = soc.name;
    e.mode = soc.split_architecture ? "mix_cube_vector" : "coupled_ai_core";
    e.core_capacity = cores;
    e.used_cores = t.usedCores;
    e.ub_capacity = soc.ub_bytes;
    e.work_unit = "output tile";
    e.total_work = tiles;
    e.balance_unit = 1;
    e.passes = 1;
    const uint64_t q = tiles / t.usedCores, rem = tiles % t.usedCores;
    for (uint32_t c = 0; c < t.usedCores; ++c) {
        CoreWork w;
        w.core = c;
        w.begin = c * q + std::min<uint64_t>(c, rem);
        w.end = w.begin + q + (c < rem ? 1 : 0);
        e.work.push_back(w);
    }
    {
        const char* names[] = {"c_in", "y_out", "zb_i32", "cb_i32", "tmp_i32", "acc_f32", "mult_f32", "ys_f32",
                               "tmp_f32", "half", "ra_i32", "map_in", "map_half", "map_out"};
        const uint32_t bytes[] = {t.ubCIn, t.ubYOut, t.ubVecI32, t.ubVecI32, t.ubVecI32, t.ubVecF32, t.ubVecF32,
                                  t.ubVecF32, t.ubVecF32, t.ubHalf, t.ubRa, t.ubMapIn, t.ubMapHalf, t.ubMapOut};
        const uint32_t slots[] = {2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
        uint32_t o = 0;
        if (reserve != 0) {
            // The kernel allocates the API's local workspace before its own buffers (SetLocalWorkspace).
            UbBuffer b;
            b.name = "matmul_local_workspace";
            b.offset = 0;
            b.bytes = reserve;
            e.ub.push_back(b);
            o = reserve;
        }
        for (size_t i = 0; i < sizeof(bytes) / sizeof(bytes[0]); ++i) {
            UbBuffer b;
            b.name = names[i];
            b.offset = o;
            b.bytes = bytes[i];
            b.slots = slots[i];
            e.ub.push_back(b);
            o += bytes[i] * slots[i];
        }
    }
    // GM tensors and, per block, the ranges it touches.
    const uint64_t ysize = static_cast<uint64_t>(DTypeBytes(r.y_dtype));
    const uint64_t a_bytes = a_mats * m * k, b_bytes = b_mats * k * n, y_bytes = batch * m * n * ysize;
    const uint64_t ap_elems = t.aParamKind ? (t.aParamBatchStride ? a_mats * m : m) : 1;
    const uint64_t bp_elems = t.bParamKind ? (t.bParamBatchStride ? b_mats * n : n) : 1;
    const char* tensor_names[] = {"a", "b", "a_scale", "a_zero_point", "b_scale", "b_zero_point", "y_scale",
                                  "y_zero_point", "y", "workspace"};
    const uint64_t tensor_bytes[] = {a_bytes, b_bytes, ap_elems * 4, ap_elems, bp_elems * 4, bp_elems, 4, 1, y_bytes,
                                     plan->workspace_bytes};
    for (size_t i = 0; i < sizeof(tensor_bytes) / sizeof(tensor_bytes[0]); ++i) {
        GmTensor g;
        g.name = tensor_names[i];
        g.bytes = tensor_bytes[i];
        g.output = std::strcmp(tensor_names[i], "y") == 0;
        e.tensors.push_back(g);
    }
    // Without DataCopyPad a y row segment ending in a partial 32-byte block is stored as its whole blocks plus the
    // block ending at its end, which rewrites 32 - tail of its own bytes (kernel: CopyOutBackOff); a segment
    // narrower than 32 bytes (only with one core, see single_writer) stores its partial block with the scalar unit
    // (CopyOutExact). Only the last N-tile can end in a partial block, so a row segment of a core's tiles has it
    // exactly when it reaches column N; nothing lands on the neighbouring tile's bytes.
    const uint64_t last_width = tiles == 0 ? 0 : n - static_cast<uint64_t>(t.tilesN - 1) * t.baseN;
    const uint32_t last_tail = soc.has_data_copy_pad ? 0u : static_cast<uint32_t>(last_width * ysize % 32);
    const uint32_t row_scalar = last_width * ysize < 32 ? last_tail : 0u;
    const uint32_t row_rewrite = last_tail != 0 && last_width * ysize >= 32 ? 32u - last_tail : 0u;
    const uint64_t row_bytes = n * ysize;
    const uint64_t tiles_per_matrix = static_cast<uint64_t>(t.tilesM) * t.tilesN;
    // y rows of tile row `tr` (batch matrix tr / tilesM, M-block tr % tilesM), as row indices of y viewed [batch*M, N].
    auto tile_row_rows = [&](uint64_t tr, uint64_t* r0, uint64_t* r1) {
        const uint64_t bi = tr / t.tilesM, mb = tr % t.tilesM;
        *r0 = bi * m + mb * t.baseM;
        *r1 = bi * m + std::min<uint64_t>(m, (mb + 1) * t.baseM);
    };
    // The columns [c0, c1) of y rows [r0, r1): one range per row, listed as one strided range.
    auto add_y = [&](uint32_t core, uint64_t r0, uint64_t r1, uint64_t c0, uint64_t c1) {
        if (r1 <= r0 || c1 <= c0) {
            return;
        }
        const bool to_end = c1 == n;
        const uint32_t scalar = to_end ? row_scalar : 0u;
        const uint32_t rewrite = to_end ? row_rewrite : 0u;
        if (c0 == 0 && to_end && scalar == 0 && rewrite == 0) {
            AddRange(&e, "y", core, r0 * row_bytes, r1 * row_bytes, true);  // whole rows: contiguous
            return;
        }
        AddStridedRange(&e, "y", core, r0 * row_bytes + c0 * ysize, r0 * row_bytes + c1 * ysize, row_bytes, r1 - r0,
                        true, scalar, rewrite);
    };
    // Batch matrices of a and b the y matrices [b0, b1] use, as index spans (broadcasting can revisit a matrix).
    auto operand_span = [&](const uint32_t* strides, uint64_t b0, uint64_t b1, uint64_t* lo, uint64_t* hi) {
        LinearIndexSpan(t.batchDims, strides, t.batchRank, b0, b1, lo, hi);
    };
    for (uint32_t c = 0; c < t.usedCores; ++c) {
        AddRange(&e, "workspace", c, c * t.workersPerCore * off, (c + 1) * t.workersPerCore * off, true);
        AddRange(&e, "y_scale", c, 0, 4, false);
        AddRange(&e, "y_zero_point", c, 0, 1, false);
        if (!t.aParamKind) {
            AddRange(&e, "a_scale", c, 0, 4, false);
            AddRange(&e, "a_zero_point", c, 0, 1, false);
        }
        if (!t.bParamKind) {
            AddRange(&e, "b_scale", c, 0, 4, false);
            AddRange(&e, "b_zero_point", c, 0, 1, false);
        }
        const uint64_t t0 = e.work[c].begin, t1 = e.work[c].end;
        if (t1 <= t0) {
            continue;
        }
        // Tiles are numbered tile row by tile row (N fastest): the range is a partial first tile row, whole tile
        // rows (contiguous in y, also across batch matrices) and a partial last one.
        const uint64_t tr0 = t0 / t.tilesN, tr1 = (t1 - 1) / t.tilesN;
        const uint64_t c0 = t0 % t.tilesN * t.baseN;
        const uint64_t c1 = std::min<uint64_t>(n, ((t1 - 1) % t.tilesN + 1) * t.baseN);
        uint64_t r0 = 0, r1 = 0;
        if (tr0 == tr1) {
            tile_row_rows(tr0, &r0, &r1);
            add_y(c, r0, r1, c0, c1);
        } else {
            const uint64_t full0 = c0 == 0 ? tr0 : tr0 + 1;
            const uint64_t full1 = c1 == n ? tr1 + 1 : tr1;  // whole tile rows [full0, full1)
            if (c0 != 0) {
                tile_row_rows(tr0, &r0, &r1);
                add_y(c, r0, r1, c0, n);
            }
            if (full1 > full0) {
                uint64_t s0 = 0, s1 = 0, e0 = 0, e1 = 0;
                tile_row_rows(full0, &s0, &s1);
                tile_row_rows(full1 - 1, &e0, &e1);
                add_y(c, s0, e1, 0, n);
            }
            if (c1 != n) {
                tile_row_rows(tr1, &r0, &r1);
                add_y(c, r0, r1, 0, c1);
            }
        }
        // Reads, as spans containing every byte read: a's rows and b's columns of the core's tiles in the batch
        // matrices they use; per-row / per-column parameters likewise.
        const uint64_t bi0 = t0 / tiles_per_matrix, bi1 = (t1 - 1) / tiles_per_matrix;
        const bool one_row = tr0 == tr1;
        const uint64_t m_lo = bi0 == bi1 ? tr0 % t.tilesM * t.baseM : 0;
        const uint64_t m_hi = bi0 == bi1 ? std::min<uint64_t>(m, (tr1 % t.tilesM + 1) * t.baseM) : m;
        const uint64_t n_lo = one_row ? c0 : 0, n_hi = one_row ? c1 : n;
        uint64_t a_lo = 0, a_hi = 0, b_lo = 0, b_hi = 0;
        operand_span(t.aBatchStrides, bi0, bi1, &a_lo, &a_hi);
        operand_span(t.bBatchStrides, bi0, bi1, &b_lo, &b_hi);
        // A span over several matrices runs from the first row of the lowest to the last row of the highest.
        const uint64_t am0 = a_lo == a_hi ? m_lo : 0, am1 = a_lo == a_hi ? m_hi : m;
        if (k != 0) {
            AddRange(&e, "a", c, (a_lo * m + am0) * k, (a_hi * m + am1) * k, false);
            // b: K row segments [n_lo, n_hi) of the matrices, listed as their span.
            AddRange(&e, "b", c, b_lo * k * n + n_lo, b_hi * k * n + (k - 1) * n + n_hi, false);
        }
        if (t.aParamKind) {
            const uint64_t p0 = (t.aParamBatchStride ? a_lo * m : 0) + am0;
            const uint64_t p1 = (t.aParamBatchStride ? a_hi * m : 0) + am1;
            AddRange(&e, "a_scale", c, p0 * 4, p1 * 4, false);
            AddRange(&e, "a_zero_point", c, p0, p1, false);
        }
        if (t.bParamKind) {
            const uint64_t p0 = (t.bParamBatchStride ? b_lo * n : 0) + n_lo;
            const uint64_t p1 = (t.bParamBatchStride ? b_hi * n : 0) + n_hi;
            AddRange(&e, "b_scale", c, p0 * 4, p1 * 4, false);
            AddRange(&e, "b_zero_point", c, p0, p1, false);
        }
    }
    e.notes.push_back("tile " + Str(t.baseM) + " x " + Str(t.baseN) + " (M x N); " + Str(tiles) +
                      " tiles = batch " + Str(batch) + " x " + Str(t.tilesM) + " M-blocks x " + Str(t.tilesN) +
                      " N-blocks, N fastest");
    if (soc.split_architecture) {
        e.notes.push_back("mix kernel: each cube core's tile range is split into 2 contiguous parts for its 2 "
                          "vector cores; the vector cores drive the cube through the Matmul API and requantize; UB "
                          "map and workspace are per vector core");
    } else {
        e.notes.push_back("coupled AI cores: the Matmul API moves L0C through UB (no fixpipe); " +
                          Str(kMatmulApiUbReserveCoupled) + " bytes of UB allocated by the kernel as the API's "
                          "local workspace (SetLocalWorkspace; without it the API writes at UB address 0)");
    }
    if (t.mapA || t.mapB) {
        e.notes.push_back(std::string("uint8 ") + (t.mapA && t.mapB ? "a and b" : (t.mapA ? "a" : "b")) +
                          " mapped to int8 per tile into the vector core's workspace (v - 128, zero point - 128, "
                          "which leaves v - zp unchanged): the cube multiplies int8 x int8");
    }
    if (GetDTypeInfo(r.a_dtype).is_float) {
        e.notes.push_back("float8 operands: the cube accumulates float8 x float8 in float32; zero points are 0 "
                          "(ONNX), so no row / column sums (their workspace regions stay unused)");
    } else {
        e.notes.push_back("zero points: acc = A'B' - zb * (rowsum(A') - K * za) - za * colsum(B'), int32 mod 2^32 "
                          "(the zero points factored out of the sum); row and column sums by the cube against a ones "
                          "vector, each only on tiles "
                          "whose zero points multiplying it are not all 0 (b_zp = 0: no row sums of a; a_zp = 0: "
                          "no column sums of b; uint8 zero point 128 is 0 after the mapping); row sums reused by a "
                          "worker's consecutive tiles on the same rows");
        e.notes.push_back(std::string("cube GM reads per tile: rows x K of a and K x cols of b for the product, "
                          "again rows x K of a (row sums) where computed; column sums ") +
                          (t.mapA ? "folded into the product (a ones row before the mapped rows of a: K more "
                                    "bytes of A, C row 0)"
                                  : "K x cols of b again where computed (into C row 0)") +
                          "; the int32 tile written to the workspace and read back by the vector core");
    }
    if (GetDTypeInfo(r.y_dtype).is_float) {
        e.notes.push_back("float8 y: v = acc * ((a_scale * b_scale) / y_scale) in float32, saturated to +-" +
                          Str(static_cast<uint64_t>(t.yMax)) + ", rounded to nearest even");
    } else {
        e.notes.push_back("requantization on the vector unit in float32: rint(float32(acc) * ((a_scale * b_scale) / "
                          "y_scale)) + y_zero_point, saturated (not the fixpipe's FP19 dequantization, which differs "
                          "from ONNX by 1 on some outputs)");
    }
    if (!soc.has_data_copy_pad && n % 32 != 0 && t.tileCount != 0) {
        const uint64_t last = n - static_cast<uint64_t>(t.tilesN - 1) * t.baseN;  // the last N-tile's width
        if (!single_writer) {
            e.notes.push_back("no DataCopyPad: y rows end in a partial 32-byte block (N = " + Str(n) + "); baseN " +
                              Str(t.baseN) + (t.baseN != chosen_base_n ? " (not " + Str(chosen_base_n) + ")" : "") +
                              " makes the last N-tile " + Str(last) + " bytes wide (>= 32), and each of its rows is "
                              "written as whole blocks plus the block ending at the row's end, rewriting " +
                              Str(32 - last % 32) + " of the core's own bytes with the same values: DMA only, no "
                              "scalar store, no byte of another core");
        } else {
            e.notes.push_back("no DataCopyPad: no tile width leaves a last N-tile of 0 or >= 32 bytes (N = " + Str(n) +
                              (n < 32 ? " < 32" : ", N / 32 = " + Str(n / 32) + " divisible by every width / 32 from " +
                                                      Str(std::min<uint64_t>(kMinBaseN, AlignUp(n, 32)) / 32) +
                                                      " to " + Str(kMaxBaseN / 32)) +
                              "): the whole op runs on ONE core, the only writer of y, which stores the last " +
                              Str(last % 32) + " bytes of each row with the scalar unit and flushes its data cache");
        }
    }
    e.notes.push_back("GM ranges: y as written, one strided range (a row segment repeated every N bytes) per partial "
                      "tile row of a core and one for its whole tile rows; a, b and the per-row / per-column "
                      "parameters as spans containing every byte a core reads (b: its K row segments)");
    e.notes.push_back("workspace " + Str(plan->workspace_bytes) + " bytes = " + Str(workers) + " vector cores x " +
                      Str(off) + " (mapped a " + Str(ws_a) + ", mapped b " + Str(ws_b) + ", int32 tile " +
                      Str(ws_c) + " with the column sums in row 0, row sums " + Str(ws_ra) + ", ones " + Str(ws_ones) +
                      "; sums and ones used only when a zero point needs them); the Matmul API's system workspace comes on top");
    if (tiles == 0) {
        e.notes.push_back("empty output: no tile to compute");
    }
    if (k == 0) {
        e.notes.push_back("K = 0: the cube is skipped, acc = 0 and y = y_zero_point");
    }
    return true;
}

}  // namespace aqo
