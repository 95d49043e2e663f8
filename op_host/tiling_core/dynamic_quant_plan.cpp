// DynamicQuant plan (see dynamic_quant_plan.h). Every UB buffer the kernel allocates is budgeted here, 32-byte
// aligned, and the total never exceeds the SoC's UB (or the caller's override): ATB's own budget formula overflows
// UB for some bfloat16 widths (docs/references.md#dynamicquant-implementations); this plan sums the real buffers
// instead of a formula.
#include "dynamic_quant_plan.h"

#include <algorithm>
#include <string>

#include "constraints.h"
// The kernel's UB sub-buffer sizes (accumulator lanes, pair vectors, constant blocks), defined once for both.
#include "../../op_kernel/aqo_dynamic_quant_layout.h"

namespace aqo {
namespace {

// One vector repeat is 256 bytes: 64 fp32 elements. fp32 chunks are whole repeats so that every chunk offset is
// 32-byte aligned for x (2-byte), y (1-byte) and the fp32 work buffers.
constexpr uint32_t kChunkAlign = 64;
// Below this many elements per chunk the per-chunk overhead (instruction start-ups, barriers) dominates; such a
// plan is not considered for the resident mode (the streamed mode still is).
constexpr uint32_t kMinResidentChunk = 256;
// x bytes per UB iteration worth aiming for: enough to amortise a group's fixed cost (its V -> S wait, the scale
// computation, a DMA's set-up); more only lengthens the pipeline's fill and drain (the first load and the last
// compute and store, which nothing overlaps).
constexpr uint64_t kTargetIterXBytes = 16 * 1024;
// Pipelined mode (whole rows, the group at once): a core's rows are cut into at least this many groups, so
// that its first compute waits for one small load and its last group's compute and store are short ...
constexpr uint64_t kPipelineGroups = 8;
// ... but a group of at least this many bytes of x (unless the core has fewer): every group costs the scalar unit a
// few dozen issued events and the vector unit a few pipeline drains, which tiny groups would not amortise.
constexpr uint64_t kPipelineMinGroupXBytes = 8 * 1024;
// x slots of the pipelined mode at most (TQue depth of x_in in the kernel): loads run up to this many groups ahead.
constexpr uint32_t kPipelineMaxXSlots = 4;
// y slots of the pipelined mode: a y slot is reused once its store has completed (a GM round trip after its bytes
// moved), which two groups of compute do not always cover.
constexpr uint32_t kPipelineYSlots = 3;
// scale_out (offset_out) slots of the pipelined mode: one gathers while the other's store completes. More would
// run out of event ids: every freed VECOUT buffer holds an MTE3_V id until it is allocated again, the pipe has 8,
// and y's kPipelineYSlots buffers hold theirs too (3 + 2 scale + 2 offset = 7).
constexpr uint32_t kPipelineScaleSlots = 2;
// Rows of scales a pipelined core gathers in one scale_out slot before it stores them (one DMA per slot).
constexpr uint64_t kPipelineScaleRows = 64;
using aqo_dq_layout::kAccLanes;
// Rows of scales a streamed (multi-pass) core stores at once.
constexpr uint64_t kStreamScaleRows = 64;

uint64_t Blk(uint64_t bytes, uint64_t align) { return AlignUp(std::max<uint64_t>(bytes, 1), align); }

struct Layout {
    uint64_t x = 0, y = 0, scale = 0, offset = 0, smooth = 0, work = 0, tmp = 0, acc = 0, rowstat = 0, consts = 0;
    uint32_t x_slots = 1, y_slots = 1;
    uint32_t scale_slots = 1;  // scale_out and offset_out buffers each
    uint32_t stat_sets = 1;    // copies of work, acc and rowstat (pipelined: 2)
    uint64_t Total() const
    {
        return x * x_slots + y * y_slots + (scale + offset) * scale_slots + smooth +
               (work + acc + rowstat) * stat_sets + tmp + consts;
    }
};

struct Shape {
    uint64_t rows, cols, cols_pad;
    uint32_t ex, ey, align;
    bool smooth;
    uint32_t asym;           // 0 symmetric, 1 float offset, 2 uint8 zero point
    uint32_t scale_carry;    // no DataCopyPad: scales a core carries from one group to the next (a block less one)
    uint32_t offset_carry;   // the same for the offsets (float32: 7, uint8: 31)
    uint32_t offset_bytes;   // bytes of one offset (float32 4, uint8 1); 0 symmetric
};

// The per-row statistics, accumulators and constants of `n` rows, in bytes: the kernel's own sub-buffer sizes
// (op_kernel/aqo_dynamic_quant_layout.h). The accumulators' clamped copy goes to the magnitude-bits buffer, which
// holds at least n x kAccLanes values.
uint64_t PairFloats(uint64_t n) { return aqo_dq_layout::PairFloats(n); }
uint64_t AccBytes(const Shape& s, uint64_t n) { return aqo_dq_layout::AccFloats(n, s.asym != 0) * sizeof(float); }
uint64_t RowStatBytes(const Shape& s, uint64_t n)
{
    return aqo_dq_layout::RowStatFloats(n, s.asym != 0) * sizeof(float);
}
uint64_t ConstBytes(const Shape& s, uint64_t n) { return aqo_dq_layout::ConstFloats(n, s.asym != 0) * sizeof(float); }

// The parts every layout has for `n` statistics rows and a work buffer of `work_elems` floats.
void FillCompute(const Shape& s, uint64_t n, uint64_t work_elems, Layout* l)
{
    l->work = Blk(work_elems * sizeof(float), s.align);
    l->tmp = Blk(std::max(work_elems, n * kAccLanes) * sizeof(float), s.align);
    l->acc = Blk(AccBytes(s, n), s.align);
    l->rowstat = Blk(RowStatBytes(s, n), s.align);
    l->consts = Blk(ConstBytes(s, n), s.align);
}

// Resident mode: r rows of x and y in UB. chunk == 0: the group is computed at once (work holds r rows of v);
// else each row in float32 chunks of `chunk` elements.
Layout ResidentLayout(const Shape& s, uint64_t r, uint64_t chunk, uint32_t slots)
{
    Layout l;
    l.x_slots = l.y_slots = l.scale_slots = slots;
    l.x = Blk(r * s.cols_pad * s.ex, s.align);
    l.y = Blk(r * s.cols_pad * s.ey, s.align);
    l.scale = Blk((r + s.scale_carry) * sizeof(float), s.align);
    l.offset = s.asym ? Blk((r + s.offset_carry) * s.offset_bytes, s.align) : 0;
    l.smooth = s.smooth ? Blk(s.cols_pad * sizeof(float), s.align) : 0;
    FillCompute(s, r, chunk == 0 ? r * s.cols_pad : chunk, &l);
    return l;
}

// Pipelined mode: r rows a group in `x_slots` x slots and kPipelineYSlots y slots; two sets of the group's
// statistics buffers (work, acc, rowstat: the next group's statistics overlap this group's quantization); one
// scale_out (offset_out) slot gathers the scales (offsets) of `scale_rows` rows. Symmetric: each row-stat set has
// room for the group's clamped maxima (tmp is the quantization's scratch meanwhile). Asymmetric: the acc set holds
// the signed maxima and minima only (no magnitude accumulator).
Layout PipelinedLayout(const Shape& s, uint64_t r, uint32_t x_slots, uint64_t scale_rows)
{
    Layout l = ResidentLayout(s, r, 0, 2);
    l.x_slots = x_slots;
    l.y_slots = kPipelineYSlots;
    l.scale_slots = kPipelineScaleSlots;
    l.stat_sets = 2;
    l.scale = Blk((scale_rows + s.scale_carry) * sizeof(float), s.align);
    if (s.asym) {
        l.offset = Blk((scale_rows + s.offset_carry) * s.offset_bytes, s.align);
    }
    l.acc = Blk(aqo_dq_layout::PipelinedAccFloats(r, s.asym != 0) * sizeof(float), s.align);
    l.rowstat = Blk(aqo_dq_layout::PipelinedRowStatFloats(r, s.asym != 0) * sizeof(float), s.align);
    return l;
}

// Stream mode: one chunk of c elements of x (and of smooth, behind it in the same slot) and of y; the statistics
// of one row; the scales (offsets) of `group_rows` rows.
Layout StreamLayout(const Shape& s, uint64_t group_rows, uint64_t c, uint32_t slots)
{
    Layout l;
    l.x_slots = l.y_slots = l.scale_slots = slots;
    l.x = Blk(c * s.ex * (s.smooth ? 2 : 1), s.align);
    l.y = Blk(c * s.ey, s.align);
    l.scale = Blk((group_rows + s.scale_carry) * sizeof(float), s.align);
    l.offset = s.asym ? Blk((group_rows + s.offset_carry) * s.offset_bytes, s.align) : 0;
    FillCompute(s, 1, c, &l);
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
    const uint64_t ub = KernelUbBytes(soc, false);
    const uint32_t cores = KernelCores(soc, op);

    // Asymmetric modes: OPSNN's float offset for int8 and the float types, ONNX's integer zero point for uint8.
    const uint32_t asym = !req.asymmetric ? 0u : (req.dst_type == DType::UINT8 ? 2u : 1u);
    const uint32_t offset_bytes = asym == 0 ? 0u : (asym == 2 ? 1u : static_cast<uint32_t>(sizeof(float)));
    // Row stride in UB: whole 32-byte blocks for both the x row and the y row.
    const uint64_t elems_per_block =
        std::max<uint64_t>(block / static_cast<uint32_t>(xi.bytes), block / static_cast<uint32_t>(yi.bytes));
    // Without DataCopyPad every copy is whole 32-byte blocks (the request check guarantees the tail multiple that
    // makes x and y rows whole blocks; GM addresses need no alignment, UB addresses do). Scales are 4 bytes a row
    // (uint8 zero points 1 byte), so a core's scales (offsets) are written as whole blocks of 8 (32) rows, all
    // inside the core's own rows: the kernel carries the values of a partial block from one group to the next, a
    // core takes at least one block's rows, and when its row count is not a multiple of a block its last block is
    // the one ending at its last row, which rewrites a few of its own values with the values they already have (no
    // byte of another core or past the end of the tensor is ever written, and no scalar GM store or data-cache
    // flush is needed). Only a tensor of fewer rows than a block, on one core, stores them with the scalar unit.
    const uint32_t scales_per_block = block / static_cast<uint32_t>(sizeof(float));
    const uint32_t offsets_per_block = offset_bytes ? block / offset_bytes : 0;
    const uint32_t block_rows = std::max(scales_per_block, offsets_per_block);
    const uint32_t min_core_rows = soc.has_data_copy_pad ? 1 : block_rows;
    Shape s{rows,
            cols,
            AlignUp(cols, elems_per_block),
            static_cast<uint32_t>(xi.bytes),
            static_cast<uint32_t>(yi.bytes),
            align,
            req.smooth,
            asym,
            // room for the carried values, a block's rounding and the core's last block (BlockStore)
            soc.has_data_copy_pad ? 0u : 3 * scales_per_block,
            soc.has_data_copy_pad || !asym ? 0u : 3 * offsets_per_block,
            offset_bytes};
    if (cols > 0xFFFFFFFFull / sizeof(float)) {
        SetViolation(v, op, "x", &soc, "tail axis length (elements per row, kernel index range)",
                     "<= " + std::to_string(0xFFFFFFFFull / sizeof(float)), std::to_string(cols),
                     "split the last axis");
        return false;
    }
    if (!soc.has_data_copy_pad && s.cols_pad != cols) {
        SetViolation(v, op, "x", &soc, "tail axis length: rows of whole 32-byte blocks (no DataCopyPad)",
                     "multiple of " + std::to_string(elems_per_block), std::to_string(cols),
                     "pad the last axis with zeros to a multiple of " + std::to_string(elems_per_block));
        return false;
    }

    // ---- work split: balanced in rows over the cores ----
    // The slowest core does ceil(rows / cores) rows whatever the split; launch only as many cores as that makespan
    // needs (197 rows on 48 cores: 40 cores of 5 or 4 rows rather than 48 cores of 5 or 4), so no launched core
    // idles and the per-core balance stays close to 1. Without DataCopyPad at most rows / block_rows cores, so that
    // every core has a whole block of scales (offsets).
    const uint32_t max_cores =
        static_cast<uint32_t>(std::max<uint64_t>(1, std::min<uint64_t>(cores, rows / min_core_rows)));
    const uint64_t rows_on_slowest = rows ? CeilDiv(rows, max_cores) : 0;
    const uint32_t used = rows ? static_cast<uint32_t>(CeilDiv(rows, rows_on_slowest)) : 0;
    const uint64_t base = used ? rows / used : 0;
    const uint32_t extra = used ? static_cast<uint32_t>(rows % used) : 0;
    const uint64_t max_core_rows = base + (extra ? 1 : 0);

    // ---- UB layout ----
    // Preference: resident rows computed a group at once, double buffered, with as many rows per iteration as
    // useful; then resident rows computed in float32 chunks (x read from GM once), double then single buffered;
    // then the streamed multi-pass mode (x read twice), double then single buffered.
    DynamicQuantMode mode = DynamicQuantMode::RESIDENT;
    Layout lay;
    uint64_t r = 0, chunk = 0, num_chunks = 1;
    bool found = false;
    std::vector<std::string> notes;
    // A group is one DMA of r rows (blockCount) and one level-0 instruction of r iterations at most.
    const uint64_t r_cap = std::max<uint64_t>(
        1, std::min<uint64_t>({max_core_rows, kTargetIterXBytes / std::max<uint64_t>(1, s.cols_pad * s.ex),
                               soc.dma_max_block_count, 255}));
    uint64_t scale_rows = 0;
    {
        // Pipelined: groups of r rows, r the larger of a core's rows over kPipelineGroups and the rows of
        // kPipelineMinGroupXBytes (at most r_cap), lowered until the layout fits with two x slots; then as many x
        // slots as fit, up to one per group and kPipelineMaxXSlots.
        const uint64_t row_x = std::max<uint64_t>(1, s.cols_pad * s.ex);
        const uint64_t want = std::min<uint64_t>(
            r_cap, std::max<uint64_t>(CeilDiv(max_core_rows, kPipelineGroups), CeilDiv(kPipelineMinGroupXBytes, row_x)));
        auto scale_rows_of = [&](uint64_t kk) {
            const uint64_t per_core = std::max<uint64_t>(kk, CeilDiv(max_core_rows, kk) * kk);
            return std::min<uint64_t>(per_core, std::max<uint64_t>(1, kPipelineScaleRows / kk) * kk);
        };
        const uint64_t k = LargestFitting(std::max<uint64_t>(want, 1), [&](uint64_t kk) {
            return PipelinedLayout(s, kk, 2, scale_rows_of(kk)).Total() <= ub;
        });
        if (k > 0) {
            const uint64_t groups = std::max<uint64_t>(1, CeilDiv(max_core_rows, k));
            uint32_t x_slots = static_cast<uint32_t>(std::min<uint64_t>(kPipelineMaxXSlots, std::max<uint64_t>(2, groups)));
            while (x_slots > 2 && PipelinedLayout(s, k, x_slots, scale_rows_of(k)).Total() > ub) {
                --x_slots;
            }
            mode = DynamicQuantMode::PIPELINED;
            r = k;
            chunk = r * s.cols_pad;
            scale_rows = scale_rows_of(k);
            lay = PipelinedLayout(s, r, x_slots, scale_rows);
            found = true;
        }
    }
    for (uint32_t slots = 2; slots >= 1 && !found; --slots) {
        const uint64_t k = LargestFitting(r_cap, [&](uint64_t kk) {
            return ResidentLayout(s, kk, 0, slots).Total() <= ub;
        });
        if (k > 0) {
            r = k;
            chunk = r * s.cols_pad;
            lay = ResidentLayout(s, r, 0, slots);
            found = true;
            break;
        }
        const uint64_t c_units = LargestFitting(CeilDiv(s.cols_pad, kChunkAlign), [&](uint64_t cu) {
            return ResidentLayout(s, 1, cu * kChunkAlign, slots).Total() <= ub;
        });
        if (c_units * kChunkAlign >= kMinResidentChunk && c_units * kChunkAlign < s.cols_pad) {
            r = 1;
            chunk = c_units * kChunkAlign;
            num_chunks = CeilDiv(cols, chunk);
            lay = ResidentLayout(s, r, chunk, slots);
            found = true;
            if (req.explain) {
                notes.push_back("a float32 copy of a whole row does not fit in UB next to the resident x / y rows: "
                                "the row is computed in " + std::to_string(num_chunks) + " float32 chunks of " +
                                std::to_string(chunk) + " elements (a statistics pass, then a quantize pass over "
                                "the resident row); x is read from GM once");
            }
        }
    }
    const uint64_t stream_rows = std::max<uint64_t>(1, std::min<uint64_t>(max_core_rows, kStreamScaleRows));
    for (uint32_t slots = 2; slots >= 1 && !found; --slots) {
        const uint64_t c_units = LargestFitting(CeilDiv(std::max<uint64_t>(cols, 1), kChunkAlign), [&](uint64_t cu) {
            return StreamLayout(s, stream_rows, cu * kChunkAlign, slots).Total() <= ub;
        });
        if (c_units > 0) {
            mode = DynamicQuantMode::STREAM;
            r = stream_rows;
            chunk = c_units * kChunkAlign;
            num_chunks = CeilDiv(std::max<uint64_t>(cols, 1), chunk);
            lay = StreamLayout(s, r, chunk, slots);
            found = true;
            if (req.explain) {
                notes.push_back("a row (" + Bytes(cols * s.ex) + " of x) does not fit in UB with its output: "
                                "multi-pass, pass 1 streams " + std::to_string(num_chunks) + " chunks of " +
                                std::to_string(chunk) + " elements for the row statistics, pass 2 streams them "
                                "again and quantizes (x read twice)");
            }
        }
    }
    if (!found) {
        Layout min_l = StreamLayout(s, 1, kChunkAlign, 1);
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
    t.asymmetric = asym;
    t.cols = static_cast<uint32_t>(cols);
    t.colsPad = static_cast<uint32_t>(s.cols_pad);
    t.usedCores = used;
    t.rowsExtra = extra;
    t.rowsPerIter = static_cast<uint32_t>(r);
    t.chunk = static_cast<uint32_t>(chunk);
    t.numChunks = static_cast<uint32_t>(num_chunks);
    t.xSlots = lay.x_slots;
    t.ySlots = lay.y_slots;
    t.scaleSlots = lay.scale_slots;
    t.statSets = lay.stat_sets;
    t.scaleRows = static_cast<uint32_t>(scale_rows != 0 ? scale_rows : r);
    t.xBufBytes = static_cast<uint32_t>(lay.x);
    t.yBufBytes = static_cast<uint32_t>(lay.y);
    t.scaleBufBytes = static_cast<uint32_t>(lay.scale);
    t.offsetBufBytes = static_cast<uint32_t>(lay.offset);
    t.smoothBufBytes = static_cast<uint32_t>(lay.smooth);
    t.workBytes = static_cast<uint32_t>(lay.work);
    t.tmpBytes = static_cast<uint32_t>(lay.tmp);
    t.accBytes = static_cast<uint32_t>(lay.acc);
    t.rowStatBytes = static_cast<uint32_t>(lay.rowstat);
    t.constBytes = static_cast<uint32_t>(lay.consts);
    // Symmetric: dmax (dtype table); floats clip to +-dmax, int8 to [int_min, dmax]. Asymmetric: qmax and the
    // range qmax - qmin (int8: 255; the float types: 2 dmax; uint8: [0, 255], ONNX's range).
    const double qmax = asym == 2 ? static_cast<double>(yi.int_max) : yi.quant_max;
    const double qmin = asym == 2 ? static_cast<double>(yi.int_min)
                                  : (yi.is_float ? -yi.quant_max : static_cast<double>(yi.int_min));
    t.dmax = static_cast<float>(qmax);
    t.quantRange = static_cast<float>(qmax - qmin);
    t.clipHi = static_cast<float>(qmax);
    t.clipLo = static_cast<float>(qmin);
    t.nanCode = GetDTypeInfo(req.dst_type).nan_code;
    // Saturation mode (docs/references.md#saturation-mode) turns Inf into the largest float16 and NaN into 0
    // (docs/design.md); a finite row's maximum is then at most 65504 (times a smooth scale's 65504).
    const double half_max = GetDTypeInfo(DType::FLOAT16).finite_max;
    t.satMax = soc.saturation_only_float ? static_cast<float>(half_max) : 0.0f;
    t.finiteMax = soc.saturation_only_float ? static_cast<float>(req.smooth ? half_max * half_max : half_max)
                                            : static_cast<float>(GetDTypeInfo(DType::FLOAT32).finite_max);

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
    if (mode == DynamicQuantMode::PIPELINED) {
        notes.push_back("pipelined: " + std::to_string(lay.x_slots) + " x slots (loads run ahead), " +
                        std::to_string(lay.y_slots) + " y slots, two "
                        "sets of statistics buffers: the next group's statistics run on the vector unit while the "
                        "scalar unit classifies this group's rows; scales stored every " +
                        std::to_string(scale_rows) + " rows");
    } else if (lay.x_slots == 1) {
        notes.push_back("double buffering off: two slots of x/y do not fit in UB");
    } else {
        notes.push_back("double buffered: x_in, y_out and scale_out have 2 slots (the next copy-in is issued "
                        "before this iteration's compute)");
    }
    e.soc = soc.name;
    e.mode = mode == DynamicQuantMode::STREAM      ? "multi_pass"
             : mode == DynamicQuantMode::PIPELINED ? "pipelined"
             : (t.numChunks > 1 ? "row_resident_chunked" : "single_pass");
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
    add("scale_out", lay.scale, lay.scale_slots);
    add("offset_out", lay.offset, lay.scale_slots);
    add("smooth_f32", lay.smooth, 1);
    // the statistics sets: one buffer each holding stat_sets copies (the kernel's TBuf of workBytes x statSets)
    add("work_f32", lay.work * lay.stat_sets, 1);
    add("magnitude_bits", lay.tmp, 1);
    add("row_max_acc", lay.acc * lay.stat_sets, 1);
    add("row_stats", lay.rowstat * lay.stat_sets, 1);
    add("constants", lay.consts, 1);

    const uint64_t x_bytes = rows * cols * s.ex;
    const uint64_t y_bytes = rows * cols * s.ey;
    e.tensors.push_back(GmTensor{"x", x_bytes, false});
    e.tensors.push_back(GmTensor{"y", y_bytes, true});
    e.tensors.push_back(GmTensor{"scale", rows * sizeof(float), true});
    if (asym) {
        e.tensors.push_back(GmTensor{"offset", rows * offset_bytes, true});
    }
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
        // Without DataCopyPad (the kernel's BlockWriter): a core of fewer rows than a block (the only core of a
        // tensor that short) stores its values with scalar writes; otherwise a row count that is not a multiple of
        // a block ends in the block of the core's last rows, which DMAs a few of its values a second time.
        const uint64_t core_rows = en - b;
        const bool no_pad = !soc.has_data_copy_pad;
        auto blocked = [&](const char* tensor, uint64_t elem, uint64_t per_block) {
            const uint64_t partial = core_rows % per_block;
            const uint64_t scalar_rows = no_pad && core_rows < block_rows ? core_rows : 0;
            const uint64_t rewrite_rows = no_pad && core_rows >= block_rows && partial ? per_block - partial : 0;
            range(tensor, b * elem, en * elem, true, scalar_rows * elem, rewrite_rows * elem);
        };
        blocked("scale", sizeof(float), scales_per_block);
        if (asym) {
            blocked("offset", offset_bytes, offsets_per_block);
        }
    }

    notes.insert(notes.begin(), std::to_string(rows) + " rows of " + std::to_string(cols) + " " + xi.name + " -> " +
                                    yi.name + " over " + std::to_string(used) + " of " +
                                    std::to_string(cores) + " cores (" + std::to_string(base) +
                                    (extra ? " or " + std::to_string(base + 1) : std::string()) + " rows each)");
    if (mode != DynamicQuantMode::STREAM) {
        notes.push_back(std::to_string(r) + " row(s) per UB iteration; UB use " + Bytes(lay.Total()) + " of " +
                        Bytes(ub));
    } else {
        notes.push_back("UB use " + Bytes(lay.Total()) + " of " + Bytes(ub));
    }
    if (!soc.has_data_copy_pad) {
        const std::string what = asym == 2 ? "scales and zero points" : (asym ? "scales and offsets" : "scales");
        notes.push_back(rows < block_rows
                            ? "no DataCopyPad: every copy is whole 32-byte blocks; the " + std::to_string(rows) +
                                  " row(s) (fewer than a 32-byte block of " + what + ") are stored by scalar GM "
                                  "writes and a data-cache flush on the only core, never past the end of the tensor"
                            : "no DataCopyPad: every copy is whole 32-byte blocks; each core takes at least " +
                                  std::to_string(block_rows) + " rows and writes its " + what + " as whole blocks "
                                  "inside its own rows (a partial last block is the block ending at its last row, "
                                  "rewriting a few of its own values), so no byte of another core or past the end "
                                  "of a tensor is written");
    }
    if (soc.saturation_only_float) {
        notes.push_back("saturation mode: Inf in x counts as +-" + std::to_string(static_cast<uint64_t>(t.satMax)) +
                        " (the float16 max) and NaN as 0 (rows whose maximum reaches that bound are re-examined)");
    }
    if (asym == 0) {
        notes.push_back("fp32 math: scale = max|x*smooth| / dmax, y = x*smooth / scale (true divide); int8 rounds "
                        "half to even");
    } else if (asym == 1) {
        notes.push_back("fp32 math, OPSNN's asymmetric formula: scale = (max - min) / (qmax - qmin), offset = qmax - "
                        "max / scale, y = round(x*smooth / scale + offset)");
    } else {
        notes.push_back("fp32 math, ONNX DynamicQuantizeLinear per row: scale = (max(max, 0) - min(min, 0)) / 255, "
                        "zero point = round(clip(-min(min, 0) / scale, 0, 255)), y = clip(round(x*smooth / scale) + "
                        "zero point, 0, 255)");
    }
    e.notes = notes;
    return true;
}

}  // namespace aqo
