// QLinearMatMul's cube decode path on ascend310p: see qlinear_matmul_cube_decode_plan.h.
#include "qlinear_matmul_cube_decode_plan.h"

#include <algorithm>
#include <string>

#include "../../op_kernel/aqo_qmm_layout.h"

namespace aqo {
namespace {

std::string Str(uint64_t v) { return std::to_string(v); }

// UB of the path, in the kernel's InitBuffer order: the zero points' (QmmZeroPoints), the epilogue's
// (QmmRequantEpilogue), then the path's own (work region, staging, row terms, the chunk scratch).
struct CubeDecodeUb {
    uint32_t zb, za;                                   // QmmZeroPoints: b's zero points of a group, a's of the rows
    uint32_t col_f32, row_f32, multiplier, half, y_out;  // the requantization epilogue's
    uint32_t work, stage, row_terms, tmp;              // the path's
    uint64_t Total() const
    {
        return static_cast<uint64_t>(zb) + za + col_f32 + row_f32 + 2ull * multiplier + half + 2ull * y_out + work +
               stage + row_terms + tmp;
    }
};

// A's rows and K piece when b's column sums are not needed (the kernel decides at run time): no ones row, so for
// M = 16 one row block, and the same L0A bytes hold a piece twice as long.
void RowsWithoutOnes(uint32_t m, uint32_t rows_a, uint32_t piece_k, uint64_t k, uint32_t* rows, uint32_t* piece)
{
    *rows = static_cast<uint32_t>(AlignUp(m, 16));
    *piece = static_cast<uint32_t>(std::min<uint64_t>(rows_a * piece_k / *rows / 32 * 32, k));
}

CubeDecodeUb UbFor(uint32_t m, uint64_t k, uint32_t rows_a, uint32_t piece_k, uint32_t g, uint32_t chunk_k,
                   bool b_trans, uint32_t rows, uint32_t y_bytes)
{
    CubeDecodeUb u;
    const uint32_t row_bytes = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(m) * 4, 32));
    u.zb = g * 4;
    u.za = static_cast<uint32_t>(AlignUp(m, 32)) * 4;  // QmmZeroPoints converts whole 32-byte blocks of them
    u.col_f32 = g * 4;
    u.row_f32 = row_bytes;
    u.multiplier = rows * g * 4;
    u.half = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(rows) * g * 2, 32));
    u.y_out = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(rows) * g * y_bytes, 32));
    uint32_t rows_lo = 0, piece_lo = 0;
    RowsWithoutOnes(m, rows_a, piece_k, k, &rows_lo, &piece_lo);
    u.work = std::max(aqo_qmm_layout::CdWorkBytes(m, rows_a, piece_k, g, chunk_k, b_trans),
                      aqo_qmm_layout::CdWorkBytes(m, rows_lo, piece_lo, g, chunk_k, b_trans));
    // The zero points' staging (their decisions, b's zero points of a group): the bytes, half, ReduceMax's work.
    u.stage = g + 2 * g + 2 * g;
    u.row_terms = m * aqo_qmm_layout::kRowTermInts * 4;
    // A chunk's correction products, then its int32 -> float32 conversion's scratch and mask block.
    u.tmp = rows * g * 4 + aqo_qmm_layout::kSplitMaskBytes;
    return u;
}

// a's K rows per L0A load for rows_a rows: what L0A holds, and at most 255 fractals a LoadData (its repeatTimes and
// the Or gather's 8-bit repeat count and block stride: K / 32 per row block), K at most.
uint32_t PieceK(const SocSpec& soc, uint32_t rows_a, uint64_t k)
{
    const uint64_t l0a = static_cast<uint64_t>(Timing(soc, TimingParam::L0A_BYTES));
    const uint64_t fractals = std::min<uint64_t>(l0a / 512, 255);
    return static_cast<uint32_t>(std::min<uint64_t>(fractals * 512 / rows_a / 32 * 32, k));
}

}  // namespace

bool QmmCubeDecodeApplies(const QLinearMatMulRequest& r, const SocSpec& soc, const QLinearMatMulTiling& t)
{
    // The kernel's own L1 / L0 beside the vector unit: ascend310p's coupled AI cores.
    if (soc.split_architecture) {
        return false;
    }
    // The cube's integer pairs: (int8 | uint8) x int8 and uint8 x uint8 (not int8 x uint8).
    const bool types = (r.b_dtype == DType::INT8 && (r.a_dtype == DType::INT8 || r.a_dtype == DType::UINT8)) ||
                       (r.b_dtype == DType::UINT8 && r.a_dtype == DType::UINT8);
    if (!types || t.batch != 1 || t.aMatrices != 1 || t.bMatrices != 1) {
        return false;
    }
    if (t.m == 0 || t.m > aqo_qmm_layout::kCdMaxRows || t.k == 0 || t.n == 0) {
        return false;
    }
    // Whole 32-byte blocks (no DataCopyPad), a chunk's GM gap between rows in DataCopyParams' 16-bit block field.
    if (t.k % 32 != 0 || t.n % 32 != 0 || t.n / 32 > 65535) {
        return false;
    }
    // The cube's int32 sums never leave int32 (its saturation and its order along K are not documented).
    if (QmmIntMagnitude(r.a_dtype) * QmmIntMagnitude(r.b_dtype) * t.k > 2147483647ull) {
        return false;
    }
    // a whole in L1 (its pieces whole) beside two chunk slots (at most kQmmCubeDecodeChunkBytes each).
    const uint32_t rows_a = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(t.m) + 1, 16));
    const uint64_t l1 = static_cast<uint64_t>(Timing(soc, TimingParam::L1_BYTES));
    return AlignUp(t.k, PieceK(soc, rows_a, t.k)) * rows_a + 2 * kQmmCubeDecodeChunkBytes <= l1;
}

bool PlanQmmCubeDecode(const QLinearMatMulRequest& r, const SocSpec& soc, QLinearMatMulPlan* plan,
                       ConstraintViolation* v)
{
    QLinearMatMulTiling& t = plan->tiling;
    const uint32_t y_bytes = DTypeBytes(r.y_dtype);
    const uint32_t m = t.m;
    // The cube stage's operand preparation and workspace are not used: the operands go to the cube as they are.
    ClearCubeStagePreparation(&t);
    // The split: 32-column units over the AI cores, each core's range in groups of at most an L0B half's columns.
    t.workersPerCore = 1;
    t.unitCount = t.n / 32;
    const uint64_t cores = KernelCores(soc, OpKind::QLINEAR_MATMUL);
    t.usedCores = static_cast<uint32_t>(std::max<uint64_t>(1, std::min<uint64_t>(cores, t.unitCount)));
    const uint64_t core_cols =
        aqo_qmm_layout::CdWidestCoreCols(static_cast<unsigned>(t.unitCount), t.usedCores);
    const uint64_t l0b = static_cast<uint64_t>(Timing(soc, TimingParam::L0B_BYTES));
    const uint64_t l0c = static_cast<uint64_t>(Timing(soc, TimingParam::L0C_BYTES));
    const uint64_t l1 = static_cast<uint64_t>(Timing(soc, TimingParam::L1_BYTES));
    const uint32_t rows_a = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(m) + 1, 16));
    // The widest group: 32 rows of it in an L0B half (two halves: the next rows load while the cube multiplies),
    // rows_a x group int32 in L0C; the core's columns in as few groups as that allows, evened out.
    const uint64_t widest = std::min<uint64_t>(l0b / 2 / aqo_qmm_layout::kCdKStep, l0c / (4ull * rows_a)) / 32 * 32;
    const uint64_t groups = CeilDiv(core_cols, widest);
    const uint32_t g = static_cast<uint32_t>(AlignUp(CeilDiv(core_cols, groups), 32));
    const uint32_t piece_k = PieceK(soc, rows_a, t.k);
    // A chunk of about kQmmCubeDecodeChunkBytes: rows of the group's columns (at most kQmmCubeDecodeMaxChunkK, and
    // within a piece), or, b stored transposed, K values of a fractal's 16 columns (2048: bursts of 2 KiB).
    const bool trans = r.b_trans;
    uint32_t chunk_k = 0;
    if (trans) {
        chunk_k = static_cast<uint32_t>(
            std::min<uint64_t>(kQmmCubeDecodeChunkBytes / aqo_qmm_layout::kCdTransCols, t.k));
    } else {
        chunk_k = static_cast<uint32_t>(kQmmCubeDecodeChunkBytes / g / 32 * 32);
        chunk_k = std::max<uint32_t>(aqo_qmm_layout::kCdKStep, std::min<uint32_t>(chunk_k, kQmmCubeDecodeMaxChunkK));
        chunk_k = std::min(chunk_k, piece_k);
    }
    // (QmmCubeDecodeApplies checked it with the largest chunks: this is the same bound.)
    const uint64_t l1_need =
        AlignUp(t.k, piece_k) * rows_a + 2ull * aqo_qmm_layout::CdChunkBytes(chunk_k, g, trans);
    if (l1_need > l1) {
        SetViolation(v, OpKind::QLINEAR_MATMUL, "l1", &soc, "L1 for the cube decode path (a and two chunks of b)",
                     "<= " + Str(l1) + " bytes", Str(l1_need), "a shorter K");
        return false;
    }
    // The epilogue's rows per chunk: as many of the M rows as UB holds. All of UB, but with per-row a and per-column b
    // scales: the epilogue's multiplier then calls Brcb, whose ascend310p implementation uses the API's scratch at
    // TMP_UB_OFFSET (248 KiB), which the path's buffers stay below.
    const uint64_t ub_usable =
        KernelUbBytes(soc, r.a_param == QuantParamKind::ROW && r.b_param == QuantParamKind::COLUMN);
    uint32_t rows = m;
    while (rows > 1 && UbFor(m, t.k, rows_a, piece_k, g, chunk_k, trans, rows, y_bytes).Total() > ub_usable) {
        --rows;
    }
    CubeDecodeUb u = UbFor(m, t.k, rows_a, piece_k, g, chunk_k, trans, rows, y_bytes);
    // Chunk slot 0 past a's staging and fractals where UB has the room (the kernel reads the region's length).
    CubeDecodeUb early = u;
    const uint32_t chunk_bytes = aqo_qmm_layout::CdChunkBytes(chunk_k, g, trans);
    early.work = std::max<uint32_t>(u.work, aqo_qmm_layout::CdEarlySlot0(rows_a, piece_k, chunk_bytes) + chunk_bytes);
    if (early.Total() <= ub_usable) {
        u = early;
    }
    if (u.Total() > ub_usable) {
        SetViolation(v, OpKind::QLINEAR_MATMUL, "ub_size", &soc, "unified buffer for the cube decode path",
                     ">= " + Str(u.Total()) + " bytes", Str(ub_usable) + " bytes",
                     "use the SoC's real UB size (ub_size=None)");
        return false;
    }
    t.cdGroup = g;
    t.cdChunkK = chunk_k;
    t.cdRowsA = rows_a;
    t.cdPieceK = piece_k;
    t.ubCdWork = u.work;
    t.ubCdStage = u.stage;
    t.ubCdRowTerms = u.row_terms;
    t.ubCdTmp = u.tmp;
    t.prepChunk = g;  // the zero points' decisions read them g at a time through the staging
    // The zero-point terms in int32 vectors while no partial sum can leave int32: |P| <= |a| |b| K,
    // |zb (RA - K za)| <= |b| 2 |a| K, |za CB| <= |a| |b| K (zero points as large as their operands).
    const uint64_t ab = QmmIntMagnitude(r.a_dtype) * QmmIntMagnitude(r.b_dtype);
    t.vectorCorrection = 4 * ab * t.k <= 2147483647ull ? 1 : 0;
    // |acc| <= 255 x 255 x K: exact in float32 below 2^24; beyond, the exact two-part conversion (310p's mode-less
    // int32 -> float32 rounds in an undocumented way).
    t.exactConvert = 65025ull * t.k >= (1ull << 24) ? 1 : 0;
    // The zero points' buffers, and the epilogue: chunks of `rows` of the group's M rows x g columns.
    t.ubColI32 = u.zb;
    t.ubRowI32 = u.za;
    SetDecodeEpilogue(rows, g, {u.col_f32, u.row_f32, u.multiplier, u.half, u.y_out}, &t);
    plan->workspace_bytes = 0;
    plan->tiling_key = kQmmTilingKeyCubeDecode;
    return true;
}

void ExplainQmmCubeDecode(const QLinearMatMulRequest& r, const SocSpec& soc, QLinearMatMulPlan* plan)
{
    BeginDecodeExplanation(r, soc, "cube_decode", "32-column unit", 1, plan);
    const QLinearMatMulTiling& t = plan->tiling;
    PlanExplanation& e = plan->explanation;
    const uint32_t y_bytes = DTypeBytes(r.y_dtype);
    CubeDecodeUb u = UbFor(t.m, t.k, t.cdRowsA, t.cdPieceK, t.cdGroup, t.cdChunkK, t.bTrans != 0, t.rowsPerChunk,
                           y_bytes);
    u.work = t.ubCdWork;  // with chunk slot 0 past a's staging where it fits
    const struct {
        const char* name;
        uint32_t bytes, slots;
    } ub[] = {{"zb_i32", u.zb, 1},          {"za_i32", u.za, 1},        {"b_scale_f32", u.col_f32, 1},
              {"a_scale_f32", u.row_f32, 1}, {"multiplier_f32", u.multiplier, 1}, {"y_scale_f32", u.multiplier, 1},
              {"half", u.half, 1},           {"y_out", u.y_out, 2},     {"work: a / b chunks / C", u.work, 1},
              {"zp_staging", u.stage, 1},    {"row_terms", u.row_terms, 1}, {"chunk_tmp", u.tmp, 1}};
    uint32_t o = 0;
    for (const auto& x : ub) {
        AppendUbBuffer(&e.ub, &o, x.name, x.bytes, x.slots);
    }
    const uint64_t m = t.m, n = t.n, k = t.k;
    for (uint32_t c = 0; c < t.usedCores; ++c) {
        unsigned u0 = 0, u1 = 0;  // the kernel's split
        aqo_qmm_layout::CdCoreUnits(static_cast<unsigned>(t.unitCount), t.usedCores, c, &u0, &u1);
        CoreWork w;
        w.core = c;
        w.begin = u0;
        w.end = u1;
        e.work.push_back(w);
        if (u1 <= u0) {
            continue;
        }
        const uint64_t c0 = u0 * 32, c1 = u1 * 32;
        // Reads: a whole, the core's columns of b in every K row, the parameters as spans.
        for (const GmTensor& x : e.tensors) {
            if (x.output) {
                continue;
            }
            if (x.name == "b" && t.bTrans) {
                AddRange(&e, "b", c, c0 * k, c1 * k, false);  // b stored [N, K]: the core's rows of it
            } else if (x.name == "b") {
                AddStridedRange(&e, "b", c, c0, c1, n, k, false);
            } else {
                AddRange(&e, x.name.c_str(), c, 0, x.bytes, false);
            }
        }
        AddStridedRange(&e, "y", c, c0 * y_bytes, c1 * y_bytes, n * y_bytes, m, true);
    }
    const std::string pair = std::string(r.a_dtype == DType::UINT8 ? "uint8" : "int8") + " x " +
                             (r.b_dtype == DType::UINT8 ? "uint8" : "int8");
    const std::string chunks =
        t.bTrans ? "b stored [N, K]: in chunks of " + Str(t.cdChunkK) + " K values x 16 columns (one DMA each, a burst "
                   "per column), gathered into L0B's layout on the vector unit, copied to L1 and multiplied from there "
                   "a chunk at a time"
                 : "in chunks of " + Str(t.cdChunkK) + " rows x up to " + Str(t.cdGroup) + " columns (one DMA each), "
                   "turned with TransDataTo5HD, copied to L1 and multiplied from there 32 rows at a time";
    e.notes.push_back("cube decode (ascend310p): M = " + Str(m) + " rows of a, " + pair + " on the AI cores' own "
                      "cube pipeline; each core reads its columns of b once, " + chunks + ", against a in L0A (" +
                      Str(t.cdRowsA) + " rows: a, a ones row for b's column sums, zero rows; K in pieces of " +
                      Str(t.cdPieceK) + ")");
    e.notes.push_back("zero-point terms in int32 (exact modulo 2^32): acc = P - zb (RA - K za) - za CB, a's row sums "
                      "RA on the vector unit while a is loaded");
    e.notes.push_back("reads of a and the parameters are listed as the tensors' spans");
    e.notes.push_back("requantization on the vector unit in float32, " + Str(t.rowsPerChunk) + " rows x " +
                      Str(t.cStride) + " columns per step: rint(float32(acc) * ((a_scale * b_scale) / y_scale)) + "
                      "y_zero_point, saturated");
}

}  // namespace aqo
