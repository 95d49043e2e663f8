// DynamicQuant plan (see dynamic_quant_plan.h). Every UB buffer the kernel allocates is budgeted here, 32-byte
// aligned, and the total never exceeds the SoC's UB (or the caller's override): FACTS 4 shows ATB's own budget
// formula overflows UB for some bfloat16 widths; this plan sums the real buffers instead of a formula.
#include "dynamic_quant_plan.h"

#include <algorithm>
#include <string>

#include "constraints.h"

namespace aqo {
namespace {

// One vector repeat is 256 bytes: 64 fp32 elements. fp32 chunks are whole repeats so that every chunk offset is
// 32-byte aligned for x (2-byte), y (1-byte) and the fp32 work buffers.
constexpr uint32_t kChunkAlign = 64;
// Below this many elements per chunk the per-chunk overhead (two scalar syncs) dominates; such a plan is not
// considered for the resident mode (the streamed mode still is).
constexpr uint32_t kMinResidentChunk = 256;
// x bytes per UB iteration worth aiming for: enough to amortise one DMA; more only adds latency per iteration.
constexpr uint64_t kTargetIterXBytes = 32 * 1024;
// stat buffer: 32-byte slots for the reduction result and the dmax operand of the scale division; without
// DataCopyPad a third slot holds the block of scales a core writes last (see "work split" below).
constexpr uint32_t kStatSlots = 2;
constexpr uint32_t kStatSlotsNoPad = 3;

// The bit pattern of a positive NaN in each float dst type, as the golden writes it (golden/dynamic_quant.py:
// 0x7F float8_e4m3fn, 0x7E float8_e5m2 (ml_dtypes' quiet NaN), 0x80 hifloat8 (FACTS 5)); int8 has no NaN (0).
uint32_t NanCode(DType dst)
{
    switch (dst) {
        case DType::FLOAT8_E4M3FN:
            return 0x7Fu;
        case DType::FLOAT8_E5M2:
            return 0x7Eu;
        case DType::HIFLOAT8:
            return 0x80u;
        default:
            return 0u;
    }
}

uint64_t Blk(uint64_t bytes, uint64_t align) { return AlignUp(std::max<uint64_t>(bytes, 1), align); }

// Bytes of ReduceMax's work buffer for `count` fp32 elements without index (AscendC ReduceMax docs: first-round
// output of 2 values per repeat, rounded up to a 32-byte block); ReduceSum needs less.
uint64_t ReduceWorkBytes(uint64_t count, uint64_t align)
{
    uint64_t per_block = align / sizeof(float);
    uint64_t repeats = CeilDiv(std::max<uint64_t>(count, 1), kChunkAlign);
    return AlignUp(repeats * 2, per_block) * sizeof(float);
}

struct Layout {
    uint64_t x = 0, y = 0, scale = 0, smooth = 0, work = 0, tmp = 0, reduce = 0, stat = 0;
    uint32_t x_slots = 1, y_slots = 1;
    uint64_t Total() const
    {
        return x * x_slots + y * y_slots + scale * y_slots + smooth + work + tmp + reduce + stat;
    }
};

struct Shape {
    uint64_t rows, cols, cols_pad;
    uint32_t ex, ey, align;
    bool smooth;
    uint32_t stat_slots;
};

// Resident mode: r rows of x and y in UB, fp32 chunks of c elements.
Layout ResidentLayout(const Shape& s, uint64_t r, uint64_t c, uint32_t slots)
{
    Layout l;
    l.x_slots = l.y_slots = slots;
    l.x = Blk(r * s.cols_pad * s.ex, s.align);
    l.y = Blk(r * s.cols_pad * s.ey, s.align);
    l.scale = Blk(r * sizeof(float), s.align);
    l.smooth = s.smooth ? Blk(s.cols_pad * s.ex, s.align) : 0;
    l.work = Blk(c * sizeof(float), s.align);
    l.tmp = l.work;
    l.reduce = ReduceWorkBytes(c, s.align);
    l.stat = s.stat_slots * s.align;
    return l;
}

// Stream mode: one chunk of c elements of x (and of smooth, behind it in the same slot) and of y.
Layout StreamLayout(const Shape& s, uint64_t group_rows, uint64_t c, uint32_t slots)
{
    Layout l;
    l.x_slots = l.y_slots = slots;
    l.x = Blk(c * s.ex * (s.smooth ? 2 : 1), s.align);
    l.y = Blk(c * s.ey, s.align);
    l.scale = Blk(group_rows * sizeof(float), s.align);
    l.work = Blk(c * sizeof(float), s.align);
    l.tmp = l.work;
    l.reduce = ReduceWorkBytes(c, s.align);
    l.stat = s.stat_slots * s.align;
    return l;
}

// Largest k in [1, hi] with fits(k), or 0 when fits(1) is false (fits is monotone: true up to some k).
template <class F>
uint64_t LargestFitting(uint64_t hi, F fits)
{
    if (hi == 0 || !fits(1)) {
        return 0;
    }
    uint64_t lo = 1;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (fits(mid)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

std::string Bytes(uint64_t b) { return std::to_string(b) + " B"; }

}  // namespace

bool PlanDynamicQuant(const DynamicQuantRequest& req, DynamicQuantPlan* plan, ConstraintViolation* v)
{
    const OpKind op = OpKind::DYNAMIC_QUANT;
    SocSpec soc;
    if (!ResolveSoc(req.soc.c_str(), req.overrides, op, &soc, v)) {
        return false;
    }
    DynamicQuantRequestView view;
    view.shape = req.shape.data();
    view.rank = req.shape.size();
    view.x_dtype = req.x_dtype;
    view.dst_type = req.dst_type;
    view.smooth = req.smooth;
    view.asymmetric = req.asymmetric;
    if (!CheckDynamicQuantRequest(view, soc, v)) {
        return false;
    }

    const DTypeInfo& xi = GetDTypeInfo(req.x_dtype);
    const DTypeInfo& yi = GetDTypeInfo(req.dst_type);
    uint64_t rows = 1;
    for (size_t i = 0; i + 1 < req.shape.size(); ++i) {
        rows *= static_cast<uint64_t>(req.shape[i]);
    }
    const uint64_t cols = static_cast<uint64_t>(req.shape.back());
    const uint32_t align = soc.ub_align_bytes;
    const uint32_t block = soc.copy_block_bytes;
    const uint64_t ub = soc.ub_bytes;
    const uint32_t cores = KernelCores(soc, op);

    // Row stride in UB: whole 32-byte blocks for both the x row and the y row.
    const uint64_t elems_per_block =
        std::max<uint64_t>(block / static_cast<uint32_t>(xi.bytes), block / static_cast<uint32_t>(yi.bytes));
    Shape s{rows, cols, AlignUp(cols, elems_per_block), static_cast<uint32_t>(xi.bytes),
            static_cast<uint32_t>(yi.bytes), align, req.smooth,
            soc.has_data_copy_pad ? kStatSlots : kStatSlotsNoPad};
    if (cols > 0xFFFFFFFFull / sizeof(float)) {
        SetViolation(v, op, "x", &soc, "tail axis length (elements per row, kernel index range)",
                     "<= " + std::to_string(0xFFFFFFFFull / sizeof(float)), std::to_string(cols),
                     "split the last axis");
        return false;
    }
    // Without DataCopyPad every copy is whole 32-byte blocks (the request check guarantees the tail multiple that
    // makes x and y rows whole blocks; GM addresses need no alignment, UB addresses do). Scales are 4 bytes per row,
    // so a core's scales are written as whole blocks of 8 rows, all inside the core's own rows: a core takes at
    // least 8 rows, and when its row count is not a multiple of 8 its last block is the 8 rows ending at its last
    // row, which rewrites up to 7 of its own scales with the same values (no byte of another core or past the end
    // of scale is ever written, and no scalar GM store or data-cache flush is needed). Only a tensor of fewer than
    // 8 rows, on one core, stores its scales with the scalar unit.
    const uint32_t scales_per_block = block / static_cast<uint32_t>(sizeof(float));
    const uint32_t min_core_rows = soc.has_data_copy_pad ? 1 : scales_per_block;
    // Rows per UB iteration: whole blocks of scales (8 rows) without DataCopyPad, so that only a core's last group
    // can end in a partial block.
    const uint32_t iter_rows = soc.has_data_copy_pad ? 1 : scales_per_block;
    if (!soc.has_data_copy_pad && s.cols_pad != cols) {
        SetViolation(v, op, "x", &soc, "tail axis length: rows of whole 32-byte blocks (no DataCopyPad)",
                     "multiple of " + std::to_string(elems_per_block), std::to_string(cols),
                     "pad the last axis with zeros to a multiple of " + std::to_string(elems_per_block));
        return false;
    }

    // ---- work split: balanced in rows over the cores ----
    // The slowest core does ceil(rows / cores) rows whatever the split; launch only as many cores as that makespan
    // needs (197 rows on 48 cores: 40 cores of 5 or 4 rows rather than 48 cores of 5 or 4), so no launched core
    // idles and the per-core balance stays close to 1. Without DataCopyPad at most rows / 8 cores, so that every
    // core has a whole block of scales.
    const uint32_t max_cores =
        static_cast<uint32_t>(std::max<uint64_t>(1, std::min<uint64_t>(cores, rows / min_core_rows)));
    const uint64_t rows_on_slowest = rows ? CeilDiv(rows, max_cores) : 0;
    const uint32_t used = rows ? static_cast<uint32_t>(CeilDiv(rows, rows_on_slowest)) : 0;
    const uint64_t base = used ? rows / used : 0;
    const uint32_t extra = used ? static_cast<uint32_t>(rows % used) : 0;
    const uint64_t max_core_rows = base + (extra ? 1 : 0);

    // ---- UB layout ----
    // Preference: resident single pass with double buffering and as many rows per iteration as useful; then
    // resident with fp32 chunks (x read once from GM, computed in chunks), double then single buffered; then the
    // streamed multi-pass mode (x read twice), double then single buffered.
    DynamicQuantMode mode = DynamicQuantMode::RESIDENT;
    Layout lay;
    uint64_t r = 0, chunk = 0;
    bool found = false;
    std::vector<std::string> notes;
    const uint64_t r_cap_units = std::max<uint64_t>(
        1, std::min<uint64_t>({CeilDiv(max_core_rows, iter_rows),
                               kTargetIterXBytes / std::max<uint64_t>(1, s.cols_pad * s.ex * iter_rows),
                               soc.dma_max_block_count / iter_rows}));  // a group is one DMA of n rows
    // One chunk covering the whole row (whole repeats; H = 0 still gets a valid, unused chunk).
    const uint64_t single_chunk = AlignUp(std::max<uint64_t>(s.cols_pad, 1), kChunkAlign);
    for (uint32_t slots = 2; slots >= 1 && !found; --slots) {
        uint64_t k = LargestFitting(r_cap_units, [&](uint64_t kk) {
            return ResidentLayout(s, kk * iter_rows, single_chunk, slots).Total() <= ub;
        });
        if (k > 0) {
            r = k * iter_rows;
            chunk = single_chunk;
            lay = ResidentLayout(s, r, chunk, slots);
            found = true;
            break;
        }
        uint64_t c_units = LargestFitting(CeilDiv(s.cols_pad, kChunkAlign), [&](uint64_t cu) {
            return ResidentLayout(s, iter_rows, cu * kChunkAlign, slots).Total() <= ub;
        });
        if (c_units * kChunkAlign >= kMinResidentChunk && c_units * kChunkAlign < single_chunk) {
            r = iter_rows;
            chunk = c_units * kChunkAlign;
            lay = ResidentLayout(s, r, chunk, slots);
            found = true;
            if (req.explain) {
                notes.push_back("fp32 copy of a whole row does not fit in UB next to the resident x/y rows: the "
                                "row is computed in " + std::to_string(CeilDiv(cols, chunk)) + " fp32 chunks of " +
                                std::to_string(chunk) + " elements (max pass, then quantize pass over the "
                                "resident row); x is read from GM once");
            }
        }
    }
    for (uint32_t slots = 2; slots >= 1 && !found; --slots) {
        uint64_t c_units = LargestFitting(CeilDiv(std::max<uint64_t>(cols, 1), kChunkAlign), [&](uint64_t cu) {
            return StreamLayout(s, iter_rows, cu * kChunkAlign, slots).Total() <= ub;
        });
        if (c_units > 0) {
            mode = DynamicQuantMode::STREAM;
            r = iter_rows;
            chunk = c_units * kChunkAlign;
            lay = StreamLayout(s, r, chunk, slots);
            found = true;
            if (req.explain) {
                notes.push_back("a row (" + Bytes(cols * s.ex) + " of x) does not fit in UB with its output: "
                                "multi-pass, pass 1 streams " + std::to_string(CeilDiv(cols, chunk)) +
                                " chunks of " + std::to_string(chunk) + " elements for the row max, pass 2 "
                                "streams them again and quantizes (x read twice)");
            }
        }
    }
    if (!found) {
        Layout min_l = StreamLayout(s, iter_rows, kChunkAlign, 1);
        SetViolation(v, op, "x", &soc, "unified buffer: the smallest DynamicQuant layout does not fit",
                     "<= " + Bytes(ub), Bytes(min_l.Total()),
                     "use a SoC with a larger unified buffer (ub_size override too small?)");
        return false;
    }

    // ---- tiling ----
    DynamicQuantTiling& t = plan->tiling;
    t = DynamicQuantTiling();
    t.rows = rows;
    t.rowsPerCore = base;
    t.xDtype = static_cast<uint32_t>(req.x_dtype);
    t.dstDtype = static_cast<uint32_t>(req.dst_type);
    t.hasSmooth = req.smooth ? 1 : 0;
    t.cols = static_cast<uint32_t>(cols);
    t.colsPad = static_cast<uint32_t>(s.cols_pad);
    t.usedCores = used;
    t.rowsExtra = extra;
    t.rowsPerIter = static_cast<uint32_t>(r);
    t.chunk = static_cast<uint32_t>(chunk);
    t.numChunks = static_cast<uint32_t>(CeilDiv(cols, chunk));
    t.xSlots = lay.x_slots;
    t.ySlots = lay.y_slots;
    t.xBufBytes = static_cast<uint32_t>(lay.x);
    t.yBufBytes = static_cast<uint32_t>(lay.y);
    t.scaleBufBytes = static_cast<uint32_t>(lay.scale);
    t.smoothBufBytes = static_cast<uint32_t>(lay.smooth);
    t.workBytes = static_cast<uint32_t>(lay.work);
    t.tmpBytes = static_cast<uint32_t>(lay.tmp);
    t.reduceBytes = static_cast<uint32_t>(lay.reduce);
    t.statBytes = static_cast<uint32_t>(lay.stat);
    t.dmax = static_cast<float>(yi.quant_max);
    // Floats clip to +-dmax; an integer type to [its minimum, dmax] (int8: [-128, 127], the dtype table's int_min).
    t.clipHi = static_cast<float>(yi.quant_max);
    t.clipLo = yi.is_float ? -static_cast<float>(yi.quant_max) : static_cast<float>(yi.int_min);
    t.nanCode = NanCode(req.dst_type);
    // Saturation mode (FACTS 1) turns Inf into the largest float16 and NaN into 0 (docs/design.md).
    t.satMax = soc.saturation_only_float ? static_cast<float>(GetDTypeInfo(DType::FLOAT16).finite_max) : 0.0f;

    plan->block_dim = std::max<uint32_t>(used, 1);
    plan->tiling_key = static_cast<uint64_t>(mode);  // the kernel's TILING_KEY_IS branches: one binary per mode
    plan->workspace_bytes = 0;
    plan->system_workspace_bytes = soc.system_workspace_bytes;

    // ---- explanation ----
    PlanExplanation& e = plan->explanation;
    e = PlanExplanation();
    if (!req.explain) {
        return true;
    }
    if (lay.x_slots == 1) {
        notes.push_back("double buffering off: two slots of x/y do not fit in UB");
    } else {
        notes.push_back("double buffered: x_in, y_out and scale_out have 2 slots (the next copy-in is issued "
                        "before this iteration's compute)");
    }
    e.soc = soc.name;
    e.mode = mode == DynamicQuantMode::STREAM ? "multi_pass" : (t.numChunks > 1 ? "row_resident_chunked" : "single_pass");
    e.core_capacity = cores;
    e.used_cores = used;
    e.ub_capacity = static_cast<uint32_t>(ub);
    e.work_unit = "row";
    e.total_work = rows;
    e.balance_unit = 1;
    e.passes = mode == DynamicQuantMode::STREAM ? 2 : 1;

    // UB map in the kernel's InitBuffer order.
    uint64_t off = 0;
    auto add = [&](const char* name, uint64_t bytes, uint32_t slots) {
        if (bytes == 0) {
            return;
        }
        UbBuffer b;
        b.name = name;
        b.offset = static_cast<uint32_t>(off);
        b.bytes = static_cast<uint32_t>(bytes);
        b.slots = slots;
        e.ub.push_back(b);
        off += bytes * slots;
    };
    add("x_in", lay.x, lay.x_slots);
    add("y_out", lay.y, lay.y_slots);
    add("scale_out", lay.scale, lay.y_slots);
    add("smooth", lay.smooth, 1);
    add("work_f32", lay.work, 1);
    add("tmp_f32", lay.tmp, 1);
    add("reduce_work", lay.reduce, 1);
    add("stat", lay.stat, 1);

    const uint64_t x_bytes = rows * cols * s.ex;
    const uint64_t y_bytes = rows * cols * s.ey;
    e.tensors.push_back(GmTensor{"x", x_bytes, false});
    e.tensors.push_back(GmTensor{"y", y_bytes, true});
    e.tensors.push_back(GmTensor{"scale", rows * sizeof(float), true});
    if (req.smooth) {
        e.tensors.push_back(GmTensor{"smooth_scales", cols * s.ex, false});
    }
    for (uint32_t c = 0; c < used; ++c) {
        // The last `extra` cores take one row more (the kernel's Init computes the same).
        const uint32_t first_extra = used - extra;
        uint64_t b = c * base + (c > first_extra ? c - first_extra : 0);
        uint64_t en = b + base + (c >= first_extra ? 1 : 0);
        e.work.push_back(CoreWork{c, b, en});
        auto range = [&](const char* tensor, uint64_t rb, uint64_t re, bool write, uint64_t scalar_bytes,
                         uint64_t rewrite_bytes) {
            if (re > rb) {
                GmRange g;
                g.tensor = tensor;
                g.core = c;
                g.begin = rb;
                g.end = re;
                g.write = write;
                g.scalar_bytes = static_cast<uint32_t>(scalar_bytes);
                g.rewrite_bytes = static_cast<uint32_t>(rewrite_bytes);
                e.gm.push_back(g);
            }
        };
        range("x", b * cols * s.ex, en * cols * s.ex, false, 0, 0);
        if (req.smooth) {
            range("smooth_scales", 0, cols * s.ex, false, 0, 0);
        }
        range("y", b * cols * s.ey, en * cols * s.ey, true, 0, 0);
        // Without DataCopyPad (the kernel's WriteScalesInBlocks): a core of fewer than 8 rows (the only core of a
        // tensor that short) stores its scales with scalar writes; otherwise a row count that is not a multiple of
        // 8 ends in the block of the core's last 8 rows, which DMAs 8 - (rows % 8) of its scales a second time.
        const uint64_t core_rows = en - b;
        const uint64_t partial = core_rows % scales_per_block;
        const bool no_pad = !soc.has_data_copy_pad;
        const uint64_t scalar_rows = no_pad && core_rows < scales_per_block ? core_rows : 0;
        const uint64_t rewrite_rows =
            no_pad && core_rows >= scales_per_block && partial ? scales_per_block - partial : 0;
        range("scale", b * sizeof(float), en * sizeof(float), true, scalar_rows * sizeof(float),
              rewrite_rows * sizeof(float));
    }

    notes.insert(notes.begin(), std::to_string(rows) + " rows of " + std::to_string(cols) + " " + xi.name + " -> " +
                                    yi.name + " over " + std::to_string(used) + " of " +
                                    std::to_string(cores) + " cores (" + std::to_string(base) +
                                    (extra ? " or " + std::to_string(base + 1) : std::string()) + " rows each)");
    if (mode == DynamicQuantMode::RESIDENT) {
        notes.push_back(std::to_string(r) + " row(s) per UB iteration; UB use " + Bytes(lay.Total()) + " of " +
                        Bytes(ub));
    } else {
        notes.push_back("UB use " + Bytes(lay.Total()) + " of " + Bytes(ub));
    }
    if (!soc.has_data_copy_pad) {
        notes.push_back(rows < scales_per_block
                            ? "no DataCopyPad: every copy is whole 32-byte blocks; the " + std::to_string(rows) +
                                  " scale(s) (fewer than a 32-byte block) are stored by scalar GM writes and a "
                                  "data-cache flush on the only core, never past the end of scale"
                            : "no DataCopyPad: every copy is whole 32-byte blocks; each core takes at least " +
                                  std::to_string(scales_per_block) + " rows and writes its scales as whole blocks "
                                  "inside its own rows (a partial last block is the block of its last " +
                                  std::to_string(scales_per_block) + " rows, rewriting a few of its own scales), so "
                                  "no byte of another core or past the end of scale is written");
    }
    if (soc.saturation_only_float) {
        notes.push_back("saturation mode: Inf in x counts as +-" + std::to_string(static_cast<uint64_t>(t.satMax)) +
                        " (the float16 max) and NaN as 0 (explicitly, per row chunk)");
    }
    notes.push_back("fp32 math: scale = max|x*smooth| / dmax, y = x*smooth / scale (true divide); int8 rounds half "
                    "to even (float->int32 RINT, then exact NONE casts)");
    e.notes = notes;
    return true;
}

}  // namespace aqo
