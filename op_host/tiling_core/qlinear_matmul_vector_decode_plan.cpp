// QLinearMatMul's vector decode path: see qlinear_matmul_vector_decode_plan.h.
#include "qlinear_matmul_vector_decode_plan.h"

#include <algorithm>
#include <string>

#include "../../op_kernel/aqo_qmm_layout.h"

namespace aqo {
namespace {

std::string Str(uint64_t v) { return std::to_string(v); }

// A worker's units: the batch x vdGranules units split evenly (the kernel's QmmVectorDecode::Init).
void WorkerUnits(const QLinearMatMulTiling& t, uint64_t worker, uint64_t* begin, uint64_t* end)
{
    const uint64_t workers = static_cast<uint64_t>(t.usedCores) * t.workersPerCore;
    const uint64_t q = t.unitCount / workers, rem = t.unitCount % workers;
    *begin = worker * q + std::min<uint64_t>(worker, rem);
    *end = *begin + q + (worker < rem ? 1 : 0);
}

// UB of the path for group width g (columns, a multiple of 32), kp panel rows of b and kc chunk rows of a (a multiple
// of kp): the kernel's buffers in InitBuffer order.
struct VectorDecodeUb {
    uint32_t m, b, a, b_half, b_f32, a_half, a_f32, pattern, acc, zb, a_sum;  // the products' buffers
    uint32_t col_f32, row_f32, multiplier, half, y_out;                       // the requantization epilogue's
    uint64_t Total() const
    {
        return 2ull * b + 2ull * a + b_half + (1ull + m) * b_f32 + a_half + a_f32 + pattern + acc + zb + a_sum +
               col_f32 + row_f32 + 2ull * multiplier + half + 2ull * y_out;
    }
};

VectorDecodeUb UbFor(uint32_t m, uint32_t g, uint32_t kp, uint32_t kc, uint32_t y_bytes, bool pad)
{
    const uint32_t ka = static_cast<uint32_t>(AlignUp(kc, 32));  // a's rows in UB
    // A panel's values of a start anywhere in the chunk (with DataCopyPad the last panels are shorter); Brcb reads
    // from the 8-value block holding the first, so its pattern may start up to 7 blocks in (more than one panel a
    // chunk). Without DataCopyPad every panel starts a multiple of 32 rows into its chunk.
    const uint32_t shift = kc > kp && pad ? 8u : 0u;
    VectorDecodeUb u;
    u.m = m;
    u.b = kp * g;                                       // a panel of b, uint8, rows g bytes apart
    u.a = m * ka;                                       // the chunk's columns of a's rows
    u.b_half = kp * g * 2;                              // b - b_zp in half (exact)
    u.b_f32 = kp * g * 4;                               // the same in float32; per row of a its float32 sums
    u.a_half = m * ka * 2;
    u.a_f32 = m * ka * 4;
    u.pattern = m * (static_cast<uint32_t>(AlignUp(kp, 8)) + shift) * 32;  // a - a_zp, each value over a 32-byte block
    u.acc = m * g * 4;                                  // the int32 sums of a group
    u.zb = g * 3;                                       // b's zero points of a group: half, then the uint8 staging
    u.a_sum = m * aqo_qmm_layout::kVdSumRowBytes + aqo_qmm_layout::kVdSumWorkBytes;  // sums of a - a_zp (b_zp's term)
    u.col_f32 = g * 4;
    u.row_f32 = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(m) * 4, 32));
    u.multiplier = m * g * 4;
    u.half = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(m) * g * 2, 32));
    u.y_out = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(m) * g * y_bytes, 32));
    return u;
}

}  // namespace

bool QmmVectorDecodeApplies(const QLinearMatMulRequest& r, const SocSpec& soc)
{
    // A uint8 b everywhere (the cube path maps it first); an int8 b on ascend310p, whose Matmul API copies an int8 B
    // through UB one DMA per tile row (stage/copy_cube_in/copy_tile_to_cube/data_copy_wrapper_using_ub_nd.h), while the
    // split SoCs' cube takes it as it is.
    const bool b_type = r.b_dtype == DType::UINT8 || (r.b_dtype == DType::INT8 && !soc.split_architecture);
    if (r.b_trans || !b_type || (r.a_dtype != DType::UINT8 && r.a_dtype != DType::INT8)) {
        return false;
    }
    if (r.a_shape.size() < 2 || r.b_shape.empty()) {
        return false;
    }
    const int64_t m = r.a_shape[r.a_shape.size() - 2], k = r.a_shape.back(), n = r.b_shape.back();
    if (m <= 0 || m > static_cast<int64_t>(kQmmVectorDecodeMaxM) || k <= 0 ||
        k > static_cast<int64_t>(kQmmVectorDecodeMaxK) || n <= 0) {
        return false;
    }
    // Without DataCopyPad the panels are whole 32-byte blocks of rows that start on block boundaries, their GM
    // gaps in the 16-bit block fields of DataCopyParams.
    if (!soc.has_data_copy_pad && (k % 32 != 0 || n % 32 != 0 || n / 32 > 65535 || k / 32 > 65535)) {
        return false;
    }
    return true;
}

bool PlanQmmVectorDecode(const QLinearMatMulRequest& r, const SocSpec& soc, QLinearMatMulPlan* plan,
                         ConstraintViolation* v)
{
    QLinearMatMulTiling& t = plan->tiling;
    const bool pad = soc.has_data_copy_pad;
    const uint32_t y_bytes = DTypeBytes(r.y_dtype);
    const uint32_t m = t.m;
    // The cube stage's operand preparation and workspace are not used: the operands are read as they are.
    ClearCubeStagePreparation(&t);
    // The split.
    t.vdGranule = pad ? 8u : 32u;
    t.vdGranules = static_cast<uint32_t>(CeilDiv(t.n, t.vdGranule));
    t.unitCount = static_cast<uint64_t>(t.batch) * t.vdGranules;
    t.workersPerCore = soc.split_architecture ? 2 : 1;
    const uint64_t cores = KernelCores(soc, OpKind::QLINEAR_MATMUL);
    t.usedCores = static_cast<uint32_t>(std::max<uint64_t>(1, std::min(cores, CeilDiv(t.unitCount, t.workersPerCore))));
    const uint64_t workers = static_cast<uint64_t>(t.usedCores) * t.workersPerCore;
    // K slices: the fewest (a divisor of the workers) that give each column range kQmmVectorDecodeMinBurst columns,
    // within the workspace's traffic budget and at least 16 rows of b each.
    uint64_t slices = 1;
    if (soc.split_architecture && t.batch == 1) {
        const uint64_t most = std::min<uint64_t>(t.k / (kQmmVectorDecodeSliceK * m), t.k / 16);
        for (uint64_t s = 1; s <= std::min(workers, most); ++s) {
            if (workers % s != 0) {
                continue;
            }
            slices = s;
            if (CeilDiv(t.vdGranules, workers / s) * t.vdGranule >= std::min<uint64_t>(kQmmVectorDecodeMinBurst, t.n)) {
                break;
            }
        }
    }
    t.vdSlices = static_cast<uint32_t>(slices);
    const uint64_t ranges = workers / slices;
    const uint64_t most_cols = std::min<uint64_t>(CeilDiv(t.unitCount, ranges) * t.vdGranule, t.n);
    // The widest group that fits (a float32 row of a wide group goes one instruction per panel row, its 64-column
    // pieces the iterations: at most 255 of them, so <= 16320 columns; kQmmVectorDecodeMaxGroup below that), with the
    // most panel rows: even ones with DataCopyPad, whole blocks of a's rows (32) without; at least 4 per row of a (the
    // slices' int32 sums, M rows of a group, are read through b's panel buffer) and 4 at all.
    const uint64_t ub_usable = KernelUbBytes(soc, true);
    const uint32_t kp_step = pad ? 2u : 32u;
    const uint32_t kp_least = static_cast<uint32_t>(AlignUp(std::max<uint32_t>(4, 4 * m), kp_step));
    // The most panel rows for a width: a binary search over the steps (UB grows with the rows): O(log) on the launch
    // path, which plans in microseconds.
    auto most_rows = [&](uint32_t g) -> uint32_t {
        uint32_t lo = 0, hi = (kQmmVectorDecodePanelK - kp_least) / kp_step + 1;  // candidates kp_least + i * step
        while (lo < hi) {
            const uint32_t mid = (lo + hi) / 2;
            if (UbFor(m, g, kp_least + mid * kp_step, kp_least + mid * kp_step, y_bytes, pad).Total() <= ub_usable) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo == 0 ? 0u : kp_least + (lo - 1) * kp_step;
    };
    // The widest group (a multiple of 32 columns) whose least panel rows fit: UB grows with the width, so a binary
    // search over the widths too.
    const uint32_t widest = static_cast<uint32_t>(std::min<uint64_t>(AlignUp(most_cols, 32), kQmmVectorDecodeMaxGroup));
    uint32_t g = 0;
    for (uint32_t lo = 1, hi = widest / 32; lo <= hi;) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (UbFor(m, mid * 32, kp_least, kp_least, y_bytes, pad).Total() <= ub_usable) {
            g = mid * 32;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    const uint32_t kp = g == 0 ? 0u : most_rows(g);
    if (kp == 0) {
        SetViolation(v, OpKind::QLINEAR_MATMUL, "ub_size", &soc, "unified buffer for the vector decode path",
                     ">= " + Str(UbFor(m, 32, kp_least, kp_least, y_bytes, pad).Total()) + " bytes",
                     Str(soc.ub_bytes) + " bytes", "use the SoC's real UB size (ub_size=None)");
        return false;
    }
    t.vdPanelK = kp;
    // a's chunk: the most panels (vdPanelK rows of a each in UB) of a worker's K range (a K slice's at most) that still
    // fit, so that a is read in as few DMAs as UB allows (one a group in a decode step) and b's zero-point term is
    // ready after the first panel of the last chunk, not after the group's last panel. The range's panels: the
    // kernel's (aqo_qmm_layout.h VdPanelCount, its short last panels included; a staggered worker's, which has the
    // most).
    const uint64_t range_rows = CeilDiv(t.k, slices);
    unsigned tail_ends[aqo_qmm_layout::kVdTailEnds];
    const unsigned tail = aqo_qmm_layout::VdTailPanels(kp, pad, /*staggered=*/true, tail_ends);
    const uint32_t range_panels =
        aqo_qmm_layout::VdPanelCount(static_cast<unsigned>(range_rows), kp, tail_ends, tail);
    uint32_t chunk_panels = 1;
    for (uint32_t lo = 2, hi = range_panels; lo <= hi;) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (UbFor(m, g, kp, mid * kp, y_bytes, pad).Total() <= ub_usable) {
            chunk_panels = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    t.vdAChunkK = chunk_panels * kp;
    const VectorDecodeUb u = UbFor(m, g, kp, t.vdAChunkK, y_bytes, pad);
    t.ubVdB = u.b;
    t.ubVdA = u.a;
    t.ubVdBHalf = u.b_half;
    t.ubVdBF32 = u.b_f32;
    t.ubVdAHalf = u.a_half;
    t.ubVdAF32 = u.a_f32;
    t.ubVdPattern = u.pattern;
    t.ubVdAcc = u.acc;
    t.ubVdZb = u.zb;
    // The epilogue: chunks of the group's M rows x g columns.
    SetDecodeEpilogue(m, g, {u.col_f32, u.row_f32, u.multiplier, u.half, u.y_out}, &t);
    // The slices' partial sums: [vdSlices, M, N] int32 (one y matrix).
    plan->workspace_bytes = slices > 1 ? slices * m * t.n * 4 : 0;
    plan->tiling_key = kQmmTilingKeyVectorDecode;
    return true;
}

void ExplainQmmVectorDecode(const QLinearMatMulRequest& r, const SocSpec& soc, QLinearMatMulPlan* plan)
{
    BeginDecodeExplanation(r, soc, "vector_decode", "column unit", plan->tiling.workersPerCore, plan);
    const QLinearMatMulTiling& t = plan->tiling;
    PlanExplanation& e = plan->explanation;
    const bool pad = soc.has_data_copy_pad;
    const VectorDecodeUb u = UbFor(t.m, t.cStride, t.vdPanelK, t.vdAChunkK, DTypeBytes(r.y_dtype), pad);
    const struct {
        const char* name;
        uint32_t bytes, slots;
    } ub[] = {{"b_in", u.b, 2},
              {"a_in", u.a, 2},
              {"b_half", u.b_half, 1},
              {"b_f32", u.b_f32, 1},
              {"sums_f32", u.m * u.b_f32, 1},
              {"a_half", u.a_half, 1},
              {"a_f32", u.a_f32, 1},
              {"a_pattern", u.pattern, 1},
              {"acc_i32", u.acc, 1},
              {"zb", u.zb, 1},
              {"a_sums", u.a_sum, 1},
              {"b_scale_f32", u.col_f32, 1},
              {"a_scale_f32", u.row_f32, 1},
              {"multiplier_f32", u.multiplier, 1},
              {"y_scale_f32", u.multiplier, 1},
              {"half", u.half, 1},
              {"y_out", u.y_out, 2}};
    uint32_t o = 0;
    for (const auto& x : ub) {
        AppendUbBuffer(&e.ub, &o, x.name, x.bytes, x.slots);
    }
    const uint64_t m = t.m, n = t.n, y_bytes = DTypeBytes(r.y_dtype);
    if (t.vdSlices > 1) {
        GmTensor g;
        g.name = "workspace";
        g.bytes = plan->workspace_bytes;
        e.tensors.push_back(g);
    }
    const uint64_t row = n * y_bytes, per = t.vdGranules;
    for (uint32_t c = 0; c < t.usedCores; ++c) {
        CoreWork w;
        w.core = c;
        uint64_t b0 = 0, e0 = 0, b1 = 0, e1 = 0;
        WorkerUnits(t, static_cast<uint64_t>(c) * t.workersPerCore, &b0, &e0);
        WorkerUnits(t, static_cast<uint64_t>(c) * t.workersPerCore + t.workersPerCore - 1, &b1, &e1);
        w.begin = b0;
        w.end = e1;
        e.work.push_back(w);
        if (e1 <= b0) {
            continue;
        }
        // Reads as spans: every core reads its columns of b in every K row, a's rows, the parameters.
        for (const GmTensor& x : e.tensors) {
            if (!x.output && x.name != "workspace") {
                AddRange(&e, x.name.c_str(), c, 0, x.bytes, false);
            }
        }
        if (t.vdSlices > 1) {
            // The slices' partial sums: worker w writes slice w % vdSlices of column range w / vdSlices (M rows of
            // its columns); every worker reads the slices of its own columns back.
            const uint64_t ranges = static_cast<uint64_t>(t.usedCores) * t.workersPerCore / t.vdSlices;
            for (uint64_t w = static_cast<uint64_t>(c) * t.workersPerCore; w < (c + 1ull) * t.workersPerCore; ++w) {
                const uint64_t s = w % t.vdSlices, rg = w / t.vdSlices;
                const uint64_t q = t.unitCount / ranges, rem = t.unitCount % ranges;
                const uint64_t u0 = rg * q + std::min(rg, rem), u1 = u0 + q + (rg < rem ? 1 : 0);
                const uint64_t c0 = u0 * t.vdGranule, c1 = std::min<uint64_t>(n, u1 * t.vdGranule);
                if (c1 > c0) {
                    AddStridedRange(&e, "workspace", c, (s * m * n + c0) * 4, (s * m * n + c1) * 4, n * 4, m, true);
                }
            }
            AddRange(&e, "workspace", c, 0, plan->workspace_bytes, false);
        }
        // y: the core's units, a partial first matrix, whole matrices, a partial last one.
        const uint64_t first = b0 / per, last = (e1 - 1) / per;
        for (uint64_t bi = first; bi <= last; ++bi) {
            const uint64_t u0 = std::max(b0, bi * per), u1 = std::min(e1, (bi + 1) * per);
            const uint64_t c0 = (u0 - bi * per) * t.vdGranule;
            const uint64_t c1 = std::min<uint64_t>(n, (u1 - bi * per) * t.vdGranule);
            if (c0 == 0 && c1 == n && bi > first && bi < last) {
                AddRange(&e, "y", c, (bi * m) * row, (last * m) * row, true);  // the whole matrices in between
                bi = last - 1;
                continue;
            }
            AddStridedRange(&e, "y", c, bi * m * row + c0 * y_bytes, bi * m * row + c1 * y_bytes, row, m, true);
        }
    }
    const std::string b_type = r.b_dtype == DType::UINT8 ? "a uint8" : "an int8";
    e.notes.push_back("vector decode: M = " + Str(m) + " rows of a against " + b_type + " b, on the vector cores alone "
                      "(no mapped copy of b, no cube): b read once, in panels of " + Str(t.vdPanelK) + " rows x " +
                      Str(t.cStride) + " columns" +
                      (pad && t.vdPanelK > aqo_qmm_layout::kVdTailFirst
                           ? " (the last ones shorter; an odd worker has one more, of " + Str(t.vdPanelK / 2) +
                                 " rows, so that its full panels lie half a panel off the even workers')"
                           : "") +
                      ", a in chunks of " + Str(t.vdAChunkK) +
                      " rows; a float32 sum per panel row takes one product a panel for at most "
                      "256 panels (exact integers below 2^24), then int32 sums of the rows and panels (K <= " +
                      Str(kQmmVectorDecodeMaxK) + ": below 2^31); b's zero point once a group, b_zp times the sum of "
                      "a - a_zp subtracted in int32 as soon as the group's last chunk of a is in");
    if (t.workersPerCore > 1) {
        e.notes.push_back("the cores above are AI cores, each running " + Str(t.workersPerCore) +
                          " vector workers: " + Str(static_cast<uint64_t>(t.usedCores) * t.workersPerCore) +
                          " vector cores in all (the launch's blockDim)");
    }
    if (t.vdSlices > 1) {
        e.notes.push_back("K in " + Str(t.vdSlices) + " slices: each worker sums one slice of a column range into the "
                          "workspace, a SyncAll, then each worker adds the slices of its columns");
    }
    e.notes.push_back("reads of a, b, the parameters and the workspace are listed as the tensors' spans");
    e.notes.push_back("requantization on the vector unit in float32, " + Str(t.rowsPerChunk) + " rows x " +
                      Str(t.cStride) + " columns per group: rint(float32(acc) * ((a_scale * b_scale) / y_scale)) + "
                      "y_zero_point, saturated");
}

}  // namespace aqo
