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
// ascend310p has no fixpipe: the Matmul API moves L0C through UB and converts ND -> NZ in UB (FACTS 3). Its
// buffers come from the same TPipe, so the plan keeps this much UB free for them (the API's tiling, set by the
// CANN adapter, is bounded to it: baseM * baseN * 4 <= 64 KiB).
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
// (never ranges with a scalar-stored tail or a rewritten last block: each keeps its own).
void AddRange(PlanExplanation* e, const char* tensor, uint32_t core, uint64_t begin, uint64_t end, bool write,
              uint32_t scalar_bytes = 0, uint32_t rewrite_bytes = 0)
{
    if (end <= begin) {
        return;
    }
    if (!e->gm.empty() && scalar_bytes == 0 && rewrite_bytes == 0) {
        GmRange& last = e->gm.back();
        if (last.tensor == tensor && last.core == core && last.write == write && last.end == begin &&
            last.scalar_bytes == 0 && last.rewrite_bytes == 0) {
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
    uint64_t batch = 1, a_mats = 1, b_mats = 1;
    for (size_t i = 0; i < brank; ++i) {
        batch *= static_cast<uint64_t>(bdims[i]);
    }
    for (size_t i = 0; i + 2 < ar; ++i) {
        a_mats *= static_cast<uint64_t>(r.a_shape[i]);
    }
    for (size_t i = 0; i + 2 < br; ++i) {
        b_mats *= static_cast<uint64_t>(r.b_shape[i]);
    }
    if (batch > kMax32) {
        SetViolation(v, kOp, "a", &soc, "broadcast batch count of the NPU kernel", "<= " + Str(kMax32), Str(batch),
                     "split the batch");
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

    // UB, in InitBuffer order.
    const uint32_t reserve = soc.split_architecture ? 0 : kMatmulApiUbReserveCoupled;
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
    if (off > kMax32) {
        SetViolation(v, kOp, "a", &soc, "workspace of one vector core (mapped uint8 slabs, K * tile width)",
                     "<= " + Str(kMax32) + " bytes", Str(off) + " bytes (K = " + Str(k) + ")",
                     "use int8 operands (no mapping workspace), or split K");
        return false;
    }
    t.wsAOffset = static_cast<uint32_t>(offs[0]);
    t.wsBOffset = static_cast<uint32_t>(offs[1]);
    t.wsCOffset = static_cast<uint32_t>(offs[2]);
    t.wsRaOffset = static_cast<uint32_t>(offs[3]);
    t.wsCbOffset = static_cast<uint32_t>(offs[4]);
    t.wsOnesOffset = static_cast<uint32_t>(offs[5]);
    t.wsPerWorker = off;
    const uint64_t workers = static_cast<uint64_t>(t.usedCores) * t.workersPerCore;
    plan->workspace_bytes = workers * off;
    plan->matmul_api_ub_bytes = reserve;
    plan->y_elements = batch * m * n;

    // Explanation.
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
            // REGIST_MATMUL_OBJ runs before the kernel's own InitBuffer calls, so the API's buffers come first.
            UbBuffer b;
            b.name = "matmul_api_reserve";
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
    // GM tensors and every range each block touches.
    const uint64_t a_bytes = a_mats * m * k, b_bytes = b_mats * k * n, y_bytes = batch * m * n;
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
        for (uint64_t tile = e.work[c].begin; tile < e.work[c].end; ++tile) {
            const uint64_t bi = tile / (static_cast<uint64_t>(t.tilesM) * t.tilesN);
            const uint64_t mb = tile / t.tilesN % t.tilesM, nb = tile % t.tilesN;
            uint64_t ai = 0, bj = 0;
            QmmBatchOperands(t, bi, &ai, &bj);
            const uint64_t m0 = mb * t.baseM, m1 = std::min<uint64_t>(m, m0 + t.baseM);
            const uint64_t n0 = nb * t.baseN, n1 = std::min<uint64_t>(n, n0 + t.baseN);
            if (k != 0) {
                AddRange(&e, "a", c, (ai * m + m0) * k, (ai * m + m1) * k, false);
                // b: K row segments [n0, n1) of matrix bj, listed as their span.
                AddRange(&e, "b", c, bj * k * n + n0, bj * k * n + (k - 1) * n + n1, false);
            }
            if (t.aParamKind) {
                const uint64_t p0 = (t.aParamBatchStride ? ai * m : 0) + m0;
                AddRange(&e, "a_scale", c, p0 * 4, (p0 + m1 - m0) * 4, false);
                AddRange(&e, "a_zero_point", c, p0, p0 + m1 - m0, false);
            }
            if (t.bParamKind) {
                const uint64_t p0 = (t.bParamBatchStride ? bj * n : 0) + n0;
                AddRange(&e, "b_scale", c, p0 * 4, (p0 + n1 - n0) * 4, false);
                AddRange(&e, "b_zero_point", c, p0, p0 + n1 - n0, false);
            }
            // Without DataCopyPad a row segment ending in a partial 32-byte block is stored as its whole blocks
            // plus the block ending at its end, which rewrites 32 - tail of its own bytes (kernel: CopyOut); a
            // segment narrower than 32 bytes (only with one core, see single_writer) stores its partial block with
            // the scalar unit (CopyOutExact). Nothing lands on the neighbouring tile's bytes.
            const uint32_t width = static_cast<uint32_t>(n1 - n0);
            const uint32_t tail = soc.has_data_copy_pad ? 0u : width % 32;
            const uint32_t scalar = width < 32 ? tail : 0u;
            const uint32_t rewrite = tail != 0 && width >= 32 ? 32u - tail : 0u;
            for (uint64_t row = m0; row < m1; ++row) {
                AddRange(&e, "y", c, (bi * m + row) * n + n0, (bi * m + row) * n + n1, true, scalar, rewrite);
            }
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
                          Str(kMatmulApiUbReserveCoupled) + " bytes of UB kept for it");
    }
    if (t.mapA || t.mapB) {
        e.notes.push_back(std::string("uint8 ") + (t.mapA && t.mapB ? "a and b" : (t.mapA ? "a" : "b")) +
                          " mapped to int8 per tile into the vector core's workspace (v - 128, zero point - 128; "
                          "FACTS 3): the cube multiplies int8 x int8");
    }
    if (GetDTypeInfo(r.a_dtype).is_float) {
        e.notes.push_back("float8 operands: the cube accumulates float8 x float8 in float32; zero points are 0 "
                          "(ONNX), so no row / column sums (their workspace regions stay unused)");
    } else {
        e.notes.push_back("zero points: acc = A'B' - zb * (rowsum(A') - K * za) - za * colsum(B'), int32 mod 2^32 "
                          "(seed 002); row and column sums by the cube against a ones vector, each only on tiles "
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
                          "y_scale)) + y_zero_point, saturated (not the FP19 fixpipe path, FACTS 7)");
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
    e.notes.push_back("b ranges are listed as the span of a tile's K row segments");
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
