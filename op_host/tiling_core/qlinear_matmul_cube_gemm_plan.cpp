// QLinearMatMul's cube GEMM path on ascend310p: see qlinear_matmul_cube_gemm_plan.h.
#include "qlinear_matmul_cube_gemm_plan.h"

#include <algorithm>
#include <string>

#include "../../op_kernel/aqo_qmm_layout.h"

namespace aqo {
namespace {

std::string Str(uint64_t v) { return std::to_string(v); }

// UB of the path, in the kernel's InitBuffer order: the zero points' (QmmZeroPoints), the epilogue's
// (QmmRequantEpilogue), then the path's own (work region, C, staging, row terms, chunk scratch).
struct CubeGemmUb {
    uint32_t zb, za;
    uint32_t col_f32, row_f32, multiplier, half, y_out;
    uint32_t work, c, stage, row_terms, tmp;
    uint64_t Total() const
    {
        return static_cast<uint64_t>(zb) + za + col_f32 + row_f32 + 2ull * multiplier + half + 2ull * y_out + work +
               c + stage + row_terms + tmp;
    }
};

// The work region: the K step is decided at run time (cgKStep, or cgKStepRa where a's row sums come from the cube),
// room for both.
uint32_t WorkBytes(uint64_t k, uint32_t kpart, uint32_t kstep, uint32_t kstep_ra, uint32_t chunk_k, uint32_t chunk_cols)
{
    const uint32_t kk = static_cast<uint32_t>(k);
    return std::max(aqo_qmm_layout::CgWorkBytes(kk, kpart, kstep, chunk_k, chunk_cols),
                    aqo_qmm_layout::CgWorkBytes(kk, kpart, kstep_ra, chunk_k, chunk_cols));
}

// param_rows: the rows of a whose per-row parameters (za', a's scales) UB holds at once: a slab's, or all M (read once
// a launch, no GM round trip a slab).
CubeGemmUb UbFor(const QLinearMatMulTiling& t, uint32_t work, uint32_t panel, uint32_t slab, uint32_t rows,
                 uint32_t y_bytes, uint32_t param_rows)
{
    CubeGemmUb u;
    u.zb = panel * 4;
    u.za = static_cast<uint32_t>(AlignUp(param_rows, 32)) * 4;  // QmmZeroPoints converts whole 32-byte blocks of them
    u.col_f32 = panel * 4;
    u.row_f32 = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(param_rows) * 4, 32));
    u.multiplier = DecodeEpiloguePatternBytes(t, rows, panel);
    u.half = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(rows) * panel * 2, 32));
    u.y_out = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(rows) * panel * y_bytes, 32));
    u.work = work;
    u.c = aqo_qmm_layout::CgCBytes(slab, panel, rows);
    u.stage = 5 * aqo_qmm_layout::CgStageUnit(panel, slab);  // the zero points' staging: bytes, half, work
    u.row_terms = slab * aqo_qmm_layout::kRowTermInts * 4 + 32;  // and the block K za' (per-tensor za)
    u.tmp = rows * panel * 4 + aqo_qmm_layout::kSplitMaskBytes;
    return u;
}

}  // namespace

uint64_t QmmCubeGemmPassK(uint64_t k, uint64_t l1)
{
    // The longest K whose panel (the widest) and two slabs (the tallest) L1 holds, and a's pieces' gathers take
    // (kCgMaxPassK): all of K in one pass where it fits; beyond, passes of even length, whole chunks of
    // kQmmCubeGemmPassAlign but the last.
    const uint64_t longest = std::min<uint64_t>(l1 / (kQmmCubeGemmMaxPanel + 2ull * aqo_qmm_layout::kCgSlab),
                                                aqo_qmm_layout::kCgMaxPassK);
    if (k <= longest) {
        return k;
    }
    const uint64_t most = longest / kQmmCubeGemmPassAlign * kQmmCubeGemmPassAlign;
    if (most == 0) {
        return 0;
    }
    return std::min<uint64_t>(most, AlignUp(CeilDiv(k, CeilDiv(k, most)), kQmmCubeGemmPassAlign));
}

bool QmmCubeGemmApplies(const QLinearMatMulRequest& r, const SocSpec& soc, const QLinearMatMulTiling& t)
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
    if (t.m <= aqo_qmm_layout::kCdMaxRows || t.k == 0 || t.n == 0) {
        return false;
    }
    const uint64_t kpart = QmmCubeGemmPassK(t.k, static_cast<uint64_t>(Timing(soc, TimingParam::L1_BYTES)));
    if (kpart == 0) {
        return false;
    }
    // Whole 32-byte blocks (no DataCopyPad), a chunk's GM gap between rows in DataCopyParams' 16-bit block field.
    if (t.k % 32 != 0 || t.n % 32 != 0 || t.n / 32 > 65535) {
        return false;
    }
    // The cube's int32 sums never leave int32 (its saturation and its order along K are not documented). With
    // passes, neither may the vector unit's sums of them (whose int32 overflow is not documented either): see
    // kQmmCubeGemmMaxTerm.
    const uint64_t ab = QmmIntMagnitude(r.a_dtype) * QmmIntMagnitude(r.b_dtype);
    return ab * t.k <= 2147483647ull && (kpart == t.k || kQmmCubeGemmMaxTerm * t.k <= 2147483647ull);
}

bool PlanQmmCubeGemm(const QLinearMatMulRequest& r, const SocSpec& soc, QLinearMatMulPlan* plan,
                     ConstraintViolation* v)
{
    QLinearMatMulTiling& t = plan->tiling;
    const uint32_t y_bytes = DTypeBytes(r.y_dtype);
    // The cube stage's operand preparation and workspace are not used: the operands go to the cube as they are.
    ClearCubeStagePreparation(&t);
    // L1: the panel and two slab buffers of a pass's K values (QmmCubeGemmPassK: all of K where they fit).
    const uint64_t l1 = static_cast<uint64_t>(Timing(soc, TimingParam::L1_BYTES));
    const uint64_t kpart = QmmCubeGemmPassK(t.k, l1);
    if (kpart == 0) {  // (QmmCubeGemmApplies refuses it first)
        SetViolation(v, OpKind::QLINEAR_MATMUL, "l1", &soc, "L1 for the cube GEMM path (a panel of b, two slabs)",
                     ">= " + Str((kQmmCubeGemmMaxPanel + 2ull * aqo_qmm_layout::kCgSlab) * kQmmCubeGemmPassAlign) +
                         " bytes of L1",
                     Str(l1) + " bytes", "the Matmul API path");
        return false;
    }
    const uint32_t panel_max = kQmmCubeGemmMaxPanel, slab = aqo_qmm_layout::kCgSlab;
    // The split: 32-column units over the AI cores, each core's range in panels of at most panel_max columns, evened
    // out.
    t.workersPerCore = 1;
    t.unitCount = t.n / 32;
    const uint64_t cores = KernelCores(soc, OpKind::QLINEAR_MATMUL);
    t.usedCores = static_cast<uint32_t>(std::max<uint64_t>(1, std::min<uint64_t>(cores, t.unitCount)));
    const uint64_t core_cols =
        aqo_qmm_layout::CdWidestCoreCols(static_cast<unsigned>(t.unitCount), t.usedCores);
    const uint64_t panels = CeilDiv(core_cols, panel_max);
    const uint32_t panel = static_cast<uint32_t>(
        std::max<uint64_t>(AlignUp(CeilDiv(core_cols, panels), 32), kQmmCubeGemmMinPanel));
    // L0: two halves each of a K step of a slab (L0A) and of the panel (L0B); L0C: two slabs' C. The K step: as long as
    // both halves hold (256 at 128 columns, 512 at 64: fewer instructions a slab where the panel is narrow).
    const uint64_t l0a = static_cast<uint64_t>(Timing(soc, TimingParam::L0A_BYTES));
    const uint64_t l0b = static_cast<uint64_t>(Timing(soc, TimingParam::L0B_BYTES));
    const uint64_t l0c = static_cast<uint64_t>(Timing(soc, TimingParam::L0C_BYTES));
    // Where a's row sums come from the cube (decided at run time), L0B also holds a K step of the ones column: a
    // shorter step (224 at 128 columns).
    const auto step_of = [&](uint64_t l0b_per_k) {
        const uint64_t fit = std::min<uint64_t>(l0a / (2ull * slab), l0b / l0b_per_k) / 32 * 32;
        return static_cast<uint32_t>(
            std::min<uint64_t>(std::min<uint64_t>(kQmmCubeGemmMaxKStep, std::max<uint64_t>(fit, 32)), kpart));
    };
    const uint32_t kstep = step_of(2ull * panel);
    const uint32_t kstep_ra = step_of(2ull * panel + 16);
    // A chunk of about kQmmCubeGemmChunkBytes: rows of the panel's columns, or, b stored transposed, K values of 16
    // columns (bursts of 2 KiB).
    const uint32_t chunk_cols = r.b_trans ? aqo_qmm_layout::kCdTransCols : panel;
    const uint32_t chunk_k = static_cast<uint32_t>(
        std::min<uint64_t>(std::max<uint64_t>(kQmmCubeGemmChunkBytes / chunk_cols / 32 * 32, 32), kpart));
    const uint64_t l1_need = kpart * panel + 2ull * slab * kpart;
    const struct {
        const char* memory;
        const char* what;
        uint64_t need, have;
    } limits[] = {
        {"l1", "L1 for the cube GEMM path (a panel of b, two slabs of a pass's K)", l1_need, l1},
        {"l0a", "L0A for the cube GEMM path (two halves of a K step of a slab)", 2ull * slab * kstep, l0a},
        {"l0b", "L0B for the cube GEMM path (two halves of a K step of the panel, a K step of ones)",
         aqo_qmm_layout::CgL0bBytes(kstep, kstep_ra, panel), l0b},
        {"l0c", "L0C for the cube GEMM path (two slabs' C and row sums)", 2ull * slab * (panel + 16) * 4, l0c}};
    for (const auto& x : limits) {
        if (x.need > x.have) {
            SetViolation(v, OpKind::QLINEAR_MATMUL, x.memory, &soc, x.what, "<= " + Str(x.have) + " bytes",
                         Str(x.need) + " bytes", "a shorter K");
            return false;
        }
    }
    // The epilogue's rows per chunk: as many of a slab's rows as UB holds. All of UB: the path's buffers may reach past
    // 248 KiB, the v200 API's scratch area (TMP_UB_OFFSET), which only API calls this path does not otherwise make
    // (Select's tensor form, the ND-to-NZ DataCopy), as on the cube decode path; with per-row parameters of a it calls
    // Brcb (the row terms, the epilogue's multiplier), which uses that area: its buffers stay below it then.
    const bool row_params = r.a_param == QuantParamKind::ROW;
    const uint64_t ub_usable = KernelUbBytes(soc, row_params);
    const uint32_t work = WorkBytes(t.k, static_cast<uint32_t>(kpart), kstep, kstep_ra, chunk_k, chunk_cols);
    const auto most_rows = [&](uint32_t param_rows) {
        uint32_t rows = slab;
        while (rows > 1 && UbFor(t, work, panel, slab, rows, y_bytes, param_rows).Total() > ub_usable) {
            --rows;
        }
        return rows;
    };
    // Per-row parameters of all M rows where that costs no chunk a slab (each chunk is a round of the epilogue's
    // instructions; each slab read for itself is two GM round trips of the scalar unit, za' and a's scales).
    uint32_t param_rows = slab;
    uint32_t rows = most_rows(slab);
    if (row_params && t.m > slab) {
        const uint32_t all_rows = most_rows(t.m);
        if (UbFor(t, work, panel, slab, all_rows, y_bytes, t.m).Total() <= ub_usable &&
            CeilDiv(slab, all_rows) <= CeilDiv(slab, rows)) {
            param_rows = t.m;
            rows = all_rows;
        }
    }
    const CubeGemmUb u = UbFor(t, work, panel, slab, rows, y_bytes, param_rows);
    if (u.Total() > ub_usable) {
        SetViolation(v, OpKind::QLINEAR_MATMUL, "ub_size", &soc, "unified buffer for the cube GEMM path",
                     ">= " + Str(u.Total()) + " bytes", Str(ub_usable) + " bytes",
                     "use the SoC's real UB size (ub_size=None)");
        return false;
    }
    t.cgPanel = panel;
    t.cgChunkK = chunk_k;
    t.cgSlab = slab;
    t.cgKStep = kstep;
    t.cgKStepRa = kstep_ra;
    t.cgKPart = static_cast<uint32_t>(kpart);
    t.ubCgWork = u.work;
    t.ubCgC = u.c;
    t.ubCgStage = u.stage;
    t.ubCgRowTerms = u.row_terms;
    t.ubCgTmp = u.tmp;
    t.prepChunk = panel;  // the zero points' decisions read b's a panel at a time through the staging
    // The zero-point terms in int32 vectors while no partial sum can leave int32 (kQmmCubeGemmMaxTerm).
    t.vectorCorrection = kQmmCubeGemmMaxTerm * t.k <= 2147483647ull ? 1 : 0;
    // |acc| <= 255 x 255 x K: exact in float32 below 2^24; beyond, the exact two-part conversion.
    t.exactConvert = 65025ull * t.k >= (1ull << 24) ? 1 : 0;
    t.ubColI32 = u.zb;
    t.ubRowI32 = u.za;
    SetDecodeEpilogue(rows, panel, {u.col_f32, u.row_f32, u.multiplier, u.half, u.y_out}, &t);
    // Passes: each core's int32 sums of the panel it is on (M rows of cStride) between them, in the workspace.
    plan->workspace_bytes = kpart < t.k ? 4ull * t.usedCores * aqo_qmm_layout::CgPassInts(t.m, t.cStride) : 0;
    plan->tiling_key = kQmmTilingKeyCubeGemm;
    return true;
}

void ExplainQmmCubeGemm(const QLinearMatMulRequest& r, const SocSpec& soc, QLinearMatMulPlan* plan)
{
    BeginDecodeExplanation(r, soc, "cube_gemm", "32-column unit", 1, plan);
    const QLinearMatMulTiling& t = plan->tiling;
    PlanExplanation& e = plan->explanation;
    const uint32_t y_bytes = DTypeBytes(r.y_dtype);
    const uint32_t param_rows = t.m > t.cgSlab && t.ubRowF32 / 4 >= t.m ? t.m : t.cgSlab;  // as PlanQmmCubeGemm
    const CubeGemmUb u = UbFor(t, t.ubCgWork, t.cgPanel, t.cgSlab, t.rowsPerChunk, y_bytes, param_rows);
    const struct {
        const char* name;
        uint32_t bytes, slots;
    } ub[] = {{"zb_i32", u.zb, 1},          {"za_i32", u.za, 1},        {"b_scale_f32", u.col_f32, 1},
              {"a_scale_f32", u.row_f32, 1}, {"multiplier_f32", u.multiplier, 1}, {"y_scale_f32", u.multiplier, 1},
              {"half", u.half, 1},           {"y_out", u.y_out, 2},     {"work: a pieces / b chunks", u.work, 1},
              {"c: a slab's C", u.c, 1},     {"zp_staging", u.stage, 1},
              {"row_terms", u.row_terms, 1}, {"chunk_tmp", u.tmp, 1}};
    uint32_t o = 0;
    for (const auto& x : ub) {
        AppendUbBuffer(&e.ub, &o, x.name, x.bytes, x.slots);
    }
    const uint64_t m = t.m, n = t.n, k = t.k;
    const uint64_t passes = aqo_qmm_layout::CgKPasses(t.k, t.cgKPart);
    const uint64_t pass_bytes = 4ull * aqo_qmm_layout::CgPassInts(t.m, t.cStride);
    if (passes > 1) {
        GmTensor g;
        g.name = "workspace";
        g.bytes = plan->workspace_bytes;
        e.tensors.push_back(g);
    }
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
        // Reads: a whole (once a panel), the core's columns of b in every K row, the parameters as spans.
        for (const GmTensor& x : e.tensors) {
            if (x.output || x.name == "workspace") {
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
        if (passes > 1) {  // the core's part of the workspace: its panel's int32 sums between the passes
            AddRange(&e, "workspace", c, c * pass_bytes, (c + 1) * pass_bytes, true);
            AddRange(&e, "workspace", c, c * pass_bytes, (c + 1) * pass_bytes, false);
        }
    }
    const std::string pair = std::string(r.a_dtype == DType::UINT8 ? "uint8" : "int8") + " x " +
                             (r.b_dtype == DType::UINT8 ? "uint8" : "int8");
    const std::string chunks =
        t.bTrans ? "chunks of " + Str(t.cgChunkK) + " K values x 16 columns of b stored [N, K]: one DMA, an Or gather, "
                   "a copy into L1"
                 : "chunks of " + Str(t.cgChunkK) + " rows: one DMA, TransDataTo5HD, a copy into L1";
    e.notes.push_back("cube GEMM (ascend310p): " + pair + " on the AI cores' own cube pipeline; each core turns its "
                      "columns of b once, in panels of up to " + Str(t.cgPanel) + " columns (" + chunks + "), and "
                      "multiplies a against "
                      "each panel in slabs of " + Str(t.cgSlab) + " rows (a gathered into L0A's order on the vector "
                      "unit), " + Str(t.cgKStep) + " K values an Mmad");
    e.notes.push_back("zero-point terms in int32 (exact modulo 2^32): acc = P - zb (RA - K za) - za CB, b's column "
                      "sums CB from a ones row in each slab, a's row sums RA from a second Mmad per K step against a "
                      "fractal column of ones kept in L0B (K steps of " + Str(t.cgKStepRa) + " then)");
    if (passes > 1) {
        e.notes.push_back("K in " + Str(passes) + " passes of " + Str(t.cgKPart) + " (the last " +
                          Str(aqo_qmm_layout::CgLastPassK(t.k, t.cgKPart)) + "): L1 holds a panel and two slabs of "
                          "that many K values; each pass's int32 sums, zero-point terms included, go to the "
                          "workspace and the next pass adds them, the last one requantizes");
    }
    e.notes.push_back("reads of a and the parameters are listed as the tensors' spans (a is read once a panel, each "
                      "pass its K values)");
    e.notes.push_back("requantization on the vector unit in float32, " + Str(t.rowsPerChunk) + " rows x " +
                      Str(t.cStride) + " columns per step: rint(float32(acc) * ((a_scale * b_scale) / y_scale)) + "
                      "y_zero_point, saturated");
}

}  // namespace aqo
