// The ordering model and the instruction trace of the AscendC CPU emulator (include/emulator/emu_order.h; the
// semantics are emu_trace.h's).
#include "emulator/emu_order.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "emu_launch_state.h"
#include "emulator/emu_kernel_type.h"

namespace aqo_emu {

// ---------------------------------------------------------------------------------------------------------------
// names and tables
// ---------------------------------------------------------------------------------------------------------------
namespace {

struct HardEventInfo {
    Pipe src;
    Pipe dst;
    const char* name;
};

// Same order as AscendC::HardEvent in emu_tensor.h.
const HardEventInfo kHardEvents[kHardEventCount] = {
    {Pipe::kMte2, Pipe::kMte1, "MTE2_MTE1"}, {Pipe::kMte1, Pipe::kMte2, "MTE1_MTE2"}, {Pipe::kMte1, Pipe::kM, "MTE1_M"},
    {Pipe::kM, Pipe::kMte1, "M_MTE1"},       {Pipe::kMte2, Pipe::kV, "MTE2_V"},       {Pipe::kV, Pipe::kMte2, "V_MTE2"},
    {Pipe::kMte3, Pipe::kV, "MTE3_V"},       {Pipe::kV, Pipe::kMte3, "V_MTE3"},       {Pipe::kM, Pipe::kV, "M_V"},
    {Pipe::kV, Pipe::kM, "V_M"},             {Pipe::kV, Pipe::kV, "V_V"},             {Pipe::kMte3, Pipe::kMte1, "MTE3_MTE1"},
    {Pipe::kMte1, Pipe::kMte3, "MTE1_MTE3"}, {Pipe::kMte1, Pipe::kV, "MTE1_V"},       {Pipe::kMte2, Pipe::kM, "MTE2_M"},
    {Pipe::kM, Pipe::kMte2, "M_MTE2"},       {Pipe::kV, Pipe::kMte1, "V_MTE1"},       {Pipe::kM, Pipe::kFix, "M_FIX"},
    {Pipe::kFix, Pipe::kM, "FIX_M"},         {Pipe::kMte3, Pipe::kMte2, "MTE3_MTE2"}, {Pipe::kMte2, Pipe::kMte3, "MTE2_MTE3"},
    {Pipe::kS, Pipe::kV, "S_V"},             {Pipe::kV, Pipe::kS, "V_S"},             {Pipe::kS, Pipe::kMte2, "S_MTE2"},
    {Pipe::kMte2, Pipe::kS, "MTE2_S"},       {Pipe::kS, Pipe::kMte3, "S_MTE3"},       {Pipe::kMte3, Pipe::kS, "MTE3_S"},
    {Pipe::kMte2, Pipe::kFix, "MTE2_FIX"},   {Pipe::kFix, Pipe::kMte2, "FIX_MTE2"},   {Pipe::kFix, Pipe::kS, "FIX_S"},
    {Pipe::kM, Pipe::kS, "M_S"},             {Pipe::kFix, Pipe::kMte3, "FIX_MTE3"},   {Pipe::kMte1, Pipe::kFix, "MTE1_FIX"},
    {Pipe::kFix, Pipe::kMte1, "FIX_MTE1"},   {Pipe::kFix, Pipe::kFix, "FIX_FIX"},
};

constexpr int kEventIds = 8;  // ids per HardEvent (the TPipe's event pool)

int PipeIndex(Pipe p) { return static_cast<int>(p); }

Stream StreamOfPipe(Pipe p, bool scalar_write)
{
    switch (p) {
        case Pipe::kS: return scalar_write ? Stream::kSWrite : Stream::kSRead;
        case Pipe::kV: return Stream::kV;
        case Pipe::kM: return Stream::kM;
        case Pipe::kMte1: return Stream::kMte1;
        case Pipe::kMte2: return Stream::kMte2;
        case Pipe::kMte3: return Stream::kMte3;
        case Pipe::kFix: return Stream::kFix;
        default: return Stream::kCube;
    }
}

const char* StreamName(int s)
{
    static const char* const kNames[kStreams] = {"S (scalar read)", "S (scalar write)", "V", "M", "MTE1", "MTE2",
                                                  "MTE3", "FIX", "the cube (Matmul API)"};
    return s >= 0 && s < kStreams ? kNames[s] : "?";
}

Pipe PipeOfStream(int s)
{
    switch (static_cast<Stream>(s)) {
        case Stream::kSRead:
        case Stream::kSWrite: return Pipe::kS;
        case Stream::kV: return Pipe::kV;
        case Stream::kM: return Pipe::kM;
        case Stream::kMte1: return Pipe::kMte1;
        case Stream::kMte2: return Pipe::kMte2;
        case Stream::kMte3: return Pipe::kMte3;
        case Stream::kFix: return Pipe::kFix;
        default: return Pipe::kCount;
    }
}

std::string Site(const char* file, int line) { return std::string(file ? file : "?") + ":" + std::to_string(line); }

// ---- the UB shadow pool (process-wide: blocks run on several host threads) ----
std::mutex g_pool_mutex;
std::vector<std::unique_ptr<UbShadow>> g_pool;

UbShadow* AcquireShadow(uint32_t ub_bytes)
{
    std::unique_ptr<UbShadow> s;
    {
        std::lock_guard<std::mutex> lock(g_pool_mutex);
        if (!g_pool.empty()) {
            s = std::move(g_pool.back());
            g_pool.pop_back();
        }
    }
    if (!s) s.reset(new UbShadow());
    bool reset = s->wseq.size() < ub_bytes;
    for (int i = 0; i < kStreams; ++i) reset = reset || s->next[i] > 0x7FFFFFFFu;
    if (reset) {
        const size_t n = (std::max<size_t>(ub_bytes, s->wseq.size()) + 31) / 32 * 32;
        s->wseq.assign(n, 0);
        s->wstream.assign(n, 0);
        s->rv.assign(n, 0);
        s->rmte3.assign(n, 0);
        s->bwseq.assign(n / 32, 0);
        s->bwstream.assign(n / 32, 0);
        s->brv.assign(n / 32, 0);
        s->brmte3.assign(n / 32, 0);
        s->uniform.assign(n / 32, 1);
        for (int i = 0; i < kStreams; ++i) s->next[i] = 0;
    }
    return s.release();
}

void ReleaseShadow(UbShadow* s)
{
    std::lock_guard<std::mutex> lock(g_pool_mutex);
    g_pool.emplace_back(s);
}

thread_local RunOptions g_default_options;

}  // namespace

void SetDefaultRunOptions(const RunOptions& options) { g_default_options = options; }
const RunOptions& DefaultRunOptions() { return g_default_options; }

Pipe HardEventSrc(int e) { return e >= 0 && e < kHardEventCount ? kHardEvents[e].src : Pipe::kCount; }
Pipe HardEventDst(int e) { return e >= 0 && e < kHardEventCount ? kHardEvents[e].dst : Pipe::kCount; }
const char* HardEventName(int e) { return e >= 0 && e < kHardEventCount ? kHardEvents[e].name : "?"; }

int HardEventOf(Pipe src, Pipe dst)
{
    for (int e = 0; e < kHardEventCount; ++e) {
        if (kHardEvents[e].src == src && kHardEvents[e].dst == dst) return e;
    }
    return -1;
}

Pipe PipeOfPipeT(int v)
{
    // pipe_t: PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5, PIPE_V2, PIPE_FIX
    switch (v) {
        case 0: return Pipe::kS;
        case 1: return Pipe::kV;
        case 2: return Pipe::kM;
        case 3: return Pipe::kMte1;
        case 4: return Pipe::kMte2;
        case 5: return Pipe::kMte3;
        case 6: return Pipe::kAll;
        case 10: return Pipe::kFix;
        default: return Pipe::kCount;
    }
}

const char* PipeName(Pipe p)
{
    switch (p) {
        case Pipe::kS: return "S";
        case Pipe::kV: return "V";
        case Pipe::kM: return "M";
        case Pipe::kMte1: return "MTE1";
        case Pipe::kMte2: return "MTE2";
        case Pipe::kMte3: return "MTE3";
        case Pipe::kFix: return "FIX";
        case Pipe::kAll: return "ALL";
        default: return "?";
    }
}

const char* TraceKindName(TraceKind k)
{
    static const char* const kNames[] = {"instr", "set_flag", "wait_flag", "barrier", "sync_all", "cube_request",
                                         "cube_wait"};
    const int i = static_cast<int>(k);
    return i >= 0 && i < 7 ? kNames[i] : "?";
}

const char* InstrClassName(InstrClass c)
{
    static const char* const kNames[] = {"none",          "vec_elementwise", "vec_div",     "vec_cast",    "vec_reduce",
                                         "dma_gm_to_ub",  "dma_ub_to_gm",    "dma_ub_to_ub", "dma_gm_to_l1", "dma_l1_to_l0",
                                         "cube_mmad",     "fix_out",         "scalar_ub",   "scalar_gm",   "scalar_other",
                                         "vec_trans_data", "dma_ub_to_l1",   "dma_l1_to_ub"};
    const int i = static_cast<int>(c);
    return i >= 0 && i < kInstrClassCount ? kNames[i] : "?";
}

// ---------------------------------------------------------------------------------------------------------------
// trace
// ---------------------------------------------------------------------------------------------------------------
namespace {

void Record(CoreContext& c, const TraceEvent& ev)
{
    OrderState& o = c.order;
    if (c.trace == nullptr) return;
    std::vector<TraceEvent>& evs = c.trace->events;
    if (ev.kind == TraceKind::kInstr && ev.pipe == Pipe::kS) {
        if (o.scalar_run_start >= 0) {
            for (size_t i = static_cast<size_t>(o.scalar_run_start); i < evs.size(); ++i) {
                if (evs[i].cls == ev.cls) {
                    evs[i].count += ev.count;
                    return;
                }
            }
        } else {
            o.scalar_run_start = static_cast<int>(evs.size());
        }
        evs.push_back(ev);
        return;
    }
    o.scalar_run_start = -1;
    evs.push_back(ev);
}

TraceEvent SyncEvent(TraceKind kind, const char* file, int line)
{
    TraceEvent e;
    e.kind = kind;
    e.file = file;
    e.line = line;
    return e;
}

std::vector<OrderState::SiteRun>& SitesOf(const CoreContext& c, uint32_t core, int stream)
{
    return c.launch->sites[static_cast<size_t>(core) * kStreams + stream];
}

void RecordSite(CoreContext& c, int stream, uint32_t seq, const char* file, int line, const char* api)
{
    std::vector<OrderState::SiteRun>& runs = SitesOf(c, c.block_idx, stream);
    if (!runs.empty() && runs.back().file == file && runs.back().line == line && runs.back().api == api) return;
    runs.push_back({seq, file, line, api});
}

// The call site of instruction `seq` of a core's stream ("" when unknown).
std::string SiteOf(const CoreContext& c, uint32_t core, int stream, uint32_t seq)
{
    if (c.launch == nullptr || static_cast<size_t>(core) * kStreams + stream >= c.launch->sites.size()) return "";
    const std::vector<OrderState::SiteRun>& runs = SitesOf(c, core, stream);
    auto it = std::upper_bound(runs.begin(), runs.end(), seq,
                               [](uint32_t s, const OrderState::SiteRun& r) { return s < r.first_seq; });
    if (it == runs.begin()) return "";
    --it;
    return std::string(it->api) + " at " + Site(it->file, it->line);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// instructions and accesses
// ---------------------------------------------------------------------------------------------------------------
namespace {

// The view of an instruction issued now to `pipe`.
Clock ViewOf(const OrderState& o, Pipe pipe)
{
    Clock cur = o.view[PipeIndex(pipe)];
    cur.Join(o.issue);
    if (pipe == Pipe::kS) {  // the scalar unit's own loads and stores are ordered by the hardware
        cur.v[static_cast<int>(Stream::kSRead)] = o.last[static_cast<int>(Stream::kSRead)];
        cur.v[static_cast<int>(Stream::kSWrite)] = o.last[static_cast<int>(Stream::kSWrite)];
    }
    return cur;
}

void MakeCurrent(CoreContext& c, Pipe pipe, Stream stream, uint32_t seq, const Clock& view, const char* file, int line)
{
    OrderState& o = c.order;
    o.current = view;
    o.current_pipe = pipe;
    o.current_stream = static_cast<uint8_t>(stream);
    o.current_seq = seq;
    o.current_file = file;
    o.current_line = line;
}

// How to order an earlier access on stream `earlier` (of core `earlier_core`) before the current one.
std::string Suggestion(const CoreContext& c, uint32_t earlier_core, int earlier)
{
    const OrderState& o = c.order;
    if (earlier_core != c.block_idx) {
        return "SyncAll() between them (cores are ordered only by SyncAll)";
    }
    const int now = o.current_stream;
    if (earlier == static_cast<int>(Stream::kCube) || now == static_cast<int>(Stream::kCube)) {
        return "PipeBarrier<PIPE_ALL>() before the Matmul call (the cube reads GM after what the scalar unit knows "
               "complete when the request is made)";
    }
    const Pipe p_earlier = PipeOfStream(earlier);
    const Pipe p_now = o.current_pipe;
    if (p_earlier == p_now) {
        if (p_now == Pipe::kS) return "nothing (the scalar unit is ordered): report this as an emulator bug";
        return std::string("PipeBarrier<PIPE_") + PipeName(p_now) + ">() between them (instructions of one pipe "
               "that depend on each other need it)";
    }
    const int e = HardEventOf(p_earlier, p_now);
    if (e >= 0) {
        return std::string("SetFlag<HardEvent::") + HardEventName(e) + ">(id) / WaitFlag<HardEvent::" +
               HardEventName(e) + ">(id) between them";
    }
    return "PipeBarrier<PIPE_ALL>() between them";
}

const char* HazardName(bool earlier_write, bool now_write)
{
    if (earlier_write && now_write) return "write-after-write (WAW)";
    if (earlier_write) return "read-after-write (RAW)";
    return "write-after-read (WAR)";
}

std::string UbBufferOf(const CoreContext& c, uint64_t byte)
{
    for (size_t i = c.records.size(); i-- > 0;) {
        const AllocRecord& r = c.records[i];
        if (r.mem == Mem::kUb && byte >= r.begin && byte < r.end) {
            return std::string(r.kind == AllocKind::kQueue ? "queue buffer allocated at " : "TBuf initialised at ") +
                   Site(r.file, r.line);
        }
    }
    return "no buffer";
}

[[noreturn]] void UbHazard(CoreContext& c, uint64_t first, uint64_t last, int earlier_stream, uint32_t earlier_seq,
                           bool earlier_write, bool now_write, const char* operand)
{
    const OrderState& o = c.order;
    std::string earlier = SiteOf(c, c.block_idx, earlier_stream, earlier_seq);
    Fail(o.current_file, o.current_line,
         std::string(HazardName(earlier_write, now_write)) + " race on UB bytes [" + std::to_string(first) + ", " +
             std::to_string(last) + ") (" + UbBufferOf(c, first) + "): this " + (now_write ? "write" : "read") +
             " of " + operand + " on pipe " + StreamName(o.current_stream) + " is not ordered after the " +
             (earlier_write ? "write" : "read") + " by " + (earlier.empty() ? "an earlier instruction" : earlier) +
             " on pipe " + StreamName(earlier_stream) + "; on the device they may overlap. Order them with " +
             Suggestion(c, c.block_idx, earlier_stream) + ".");
}

}  // namespace

void Issue(CoreContext& c, Pipe pipe, bool scalar_write, InstrClass cls, uint8_t elem_bytes, uint64_t count,
           uint32_t bursts, const char* file, int line, const char* api)
{
    if (!c.cube_guard_checked && (pipe == Pipe::kV || pipe == Pipe::kMte2 || pipe == Pipe::kMte3)) {
        CheckMixCubeGuard(c, file, line, api);  // a 1:2 mix kernel's path must have returned on the cube cores
    }
    OrderState& o = c.order;
    const Stream stream = StreamOfPipe(pipe, scalar_write);
    const int s = static_cast<int>(stream);
    const uint32_t seq = ++o.last[s];
    MakeCurrent(c, pipe, stream, seq, ViewOf(o, pipe), file, line);
    if (stream == Stream::kSRead) {
        // A scalar load has completed when the scalar unit issues anything after it: it needs the value. So it is
        // never the unordered earlier access of a UB race, and its site is recorded only for GM (GmOrderAccess).
        o.issue.v[s] = seq;
    } else {
        RecordSite(c, s, seq, file, line, api);
    }
    o.current_api = api;  // the instruction's API (scalar GM sites, messages of later checks of this access)
    if (c.options.record_trace) {
        TraceEvent e;
        e.kind = TraceKind::kInstr;
        e.pipe = pipe;
        e.cls = cls;
        e.elem_bytes = elem_bytes;
        e.count = count;
        e.bursts = bursts;
        e.file = file;
        e.line = line;
        Record(c, e);
    }
}

// The UB shadow is kept per 32-byte block while a block's bytes share their records (vector operands and DMA
// blocks are 32-byte aligned, so that is the common case), per byte otherwise.
namespace {

constexpr uint64_t kUbBlock = 32;

struct UbRecord {
    uint32_t wseq;
    uint8_t wstream;
    uint32_t rv;
    uint32_t rmte3;
};

inline UbRecord RecordAt(const UbShadow& sh, uint64_t i)
{
    const uint64_t b = i / kUbBlock;
    if (sh.uniform[b]) return {sh.bwseq[b], sh.bwstream[b], sh.brv[b], sh.brmte3[b]};
    return {sh.wseq[i], sh.wstream[i], sh.rv[i], sh.rmte3[i]};
}

// Gives a uniform block per-byte records (before a partial access).
inline void SplitBlock(UbShadow& sh, uint64_t b)
{
    if (!sh.uniform[b]) return;
    const auto at = static_cast<std::ptrdiff_t>(b * kUbBlock);
    std::fill(sh.wseq.begin() + at, sh.wseq.begin() + at + kUbBlock, sh.bwseq[b]);
    std::fill(sh.wstream.begin() + at, sh.wstream.begin() + at + kUbBlock, sh.bwstream[b]);
    std::fill(sh.rv.begin() + at, sh.rv.begin() + at + kUbBlock, sh.brv[b]);
    std::fill(sh.rmte3.begin() + at, sh.rmte3.begin() + at + kUbBlock, sh.brmte3[b]);
    sh.uniform[b] = 0;
}

enum class UbConflict { kNone = 0, kWrite, kReadV, kReadMte3 };

// Which earlier access of a byte the current instruction is not ordered after (reads: only the write matters).
inline UbConflict Conflict(const OrderState& o, const UbRecord& r, bool write)
{
    const uint32_t* known = o.current.v;
    const uint8_t me = o.current_stream;
    const uint32_t seq = o.current_seq;
    if (write) {
        if (r.rv > known[static_cast<int>(Stream::kV)] && !(me == static_cast<uint8_t>(Stream::kV) && r.rv == seq)) {
            return UbConflict::kReadV;
        }
        if (r.rmte3 > known[static_cast<int>(Stream::kMte3)] &&
            !(me == static_cast<uint8_t>(Stream::kMte3) && r.rmte3 == seq)) {
            return UbConflict::kReadMte3;
        }
    }
    if (r.wseq > known[r.wstream] && !(r.wstream == me && r.wseq == seq)) return UbConflict::kWrite;
    return UbConflict::kNone;
}

[[noreturn]] void ReportUb(CoreContext& c, uint64_t i, uint64_t end, UbConflict k, bool write, const char* operand)
{
    const UbShadow& sh = *c.shadow;
    const UbRecord r = RecordAt(sh, i);
    int stream = r.wstream;
    uint32_t seq = r.wseq;
    if (k == UbConflict::kReadV) {
        stream = static_cast<int>(Stream::kV);
        seq = r.rv;
    } else if (k == UbConflict::kReadMte3) {
        stream = static_cast<int>(Stream::kMte3);
        seq = r.rmte3;
    }
    uint64_t j = i + 1;  // the run of bytes with the same earlier access
    while (j < end) {
        const UbRecord n = RecordAt(sh, j);
        const bool same = k == UbConflict::kWrite ? (n.wseq == seq && n.wstream == stream)
                          : k == UbConflict::kReadV ? n.rv == seq
                                                    : n.rmte3 == seq;
        if (!same) break;
        ++j;
    }
    UbHazard(c, i, j, stream, seq, k == UbConflict::kWrite, write, operand);
}

void UbAccess(CoreContext& c, uint64_t byte, uint64_t nbytes, bool write, const char* operand)
{
    OrderState& o = c.order;
    UbShadow& sh = *c.shadow;
    const uint8_t me = o.current_stream;
    const uint32_t seq = o.current_seq;
    const bool rec_v = me == static_cast<uint8_t>(Stream::kV);
    const bool rec_m3 = me == static_cast<uint8_t>(Stream::kMte3);
    const uint64_t end = byte + nbytes;
    uint64_t i = byte;
    while (i < end) {
        const uint64_t b = i / kUbBlock;
        const uint64_t bstart = b * kUbBlock;
        const uint64_t hi = std::min(end, bstart + kUbBlock);
        if (i == bstart && hi == bstart + kUbBlock && sh.uniform[b]) {
            const UbRecord r{sh.bwseq[b], sh.bwstream[b], sh.brv[b], sh.brmte3[b]};
            const UbConflict k = Conflict(o, r, write);
            if (k != UbConflict::kNone) ReportUb(c, i, end, k, write, operand);
            if (write) {
                sh.bwseq[b] = seq;
                sh.bwstream[b] = me;
                sh.brv[b] = 0;
                sh.brmte3[b] = 0;
            } else if (rec_v) {
                sh.brv[b] = seq;
            } else if (rec_m3) {
                sh.brmte3[b] = seq;
            }
            i = hi;
            continue;
        }
        if (i == bstart && hi == bstart + kUbBlock && write) {
            // a whole non-uniform block written: check its bytes, then it is uniform again
            for (uint64_t j = i; j < hi; ++j) {
                const UbConflict k = Conflict(o, {sh.wseq[j], sh.wstream[j], sh.rv[j], sh.rmte3[j]}, true);
                if (k != UbConflict::kNone) ReportUb(c, j, end, k, true, operand);
            }
            sh.uniform[b] = 1;
            sh.bwseq[b] = seq;
            sh.bwstream[b] = me;
            sh.brv[b] = 0;
            sh.brmte3[b] = 0;
            i = hi;
            continue;
        }
        SplitBlock(sh, b);
        for (uint64_t j = i; j < hi; ++j) {
            const UbConflict k = Conflict(o, {sh.wseq[j], sh.wstream[j], sh.rv[j], sh.rmte3[j]}, write);
            if (k != UbConflict::kNone) ReportUb(c, j, end, k, write, operand);
            if (write) {
                sh.wseq[j] = seq;
                sh.wstream[j] = me;
                sh.rv[j] = 0;
                sh.rmte3[j] = 0;
            } else if (rec_v) {
                sh.rv[j] = seq;
            } else if (rec_m3) {
                sh.rmte3[j] = seq;
            }
        }
        i = hi;
    }
}

}  // namespace

// A kernel-owned L1 / L0 memory, per 32-byte block: a read must be ordered after the block's last write; a write
// after its last write and its last read on each reading pipe (MTE1, M, V). Reads on other pipes are not recorded
// (none of the modelled APIs reads these memories on another pipe).
void LocalAccess(CoreContext& c, Mem mem, uint64_t byte, uint64_t nbytes, bool write, const char* operand)
{
    if (!c.options.check_ordering) return;
    OrderState& o = c.order;
    BlockShadow& sh = c.Local(mem).shadow;
    const uint32_t* known = o.current.v;
    const uint8_t me = o.current_stream;
    const uint32_t seq = o.current_seq;
    struct Reader {
        int stream;
        std::vector<uint32_t>* seqs;
    };
    const Reader readers[] = {{static_cast<int>(Stream::kMte1), &sh.r_mte1}, {static_cast<int>(Stream::kM), &sh.r_m},
                              {static_cast<int>(Stream::kV), &sh.r_v}};
    for (uint64_t b = byte / 32; b < (byte + nbytes + 31) / 32; ++b) {
        int stream = -1;
        uint32_t eseq = 0;
        bool earlier_write = false;
        if (sh.wseq[b] > known[sh.wstream[b]] && !(sh.wstream[b] == me && sh.wseq[b] == seq)) {
            stream = sh.wstream[b];
            eseq = sh.wseq[b];
            earlier_write = true;
        } else if (write) {
            for (const Reader& r : readers) {
                const uint32_t rs = (*r.seqs)[b];
                if (rs > known[r.stream] && !(me == r.stream && rs == seq)) {
                    stream = r.stream;
                    eseq = rs;
                    break;
                }
            }
        }
        if (stream >= 0) {
            const std::string earlier = SiteOf(c, c.block_idx, stream, eseq);
            Fail(o.current_file, o.current_line,
                 std::string(HazardName(earlier_write, write)) + " race on " + MemName(mem) + " bytes [" +
                     std::to_string(b * 32) + ", " + std::to_string(b * 32 + 32) + "): this " +
                     (write ? "write" : "read") + " of " + operand + " on pipe " + StreamName(me) +
                     " is not ordered after the " + (earlier_write ? "write" : "read") + " by " +
                     (earlier.empty() ? "an earlier instruction" : earlier) + " on pipe " + StreamName(stream) +
                     "; on the device they may overlap. Order them with " + Suggestion(c, c.block_idx, stream) + ".");
        }
        if (write) {
            sh.wseq[b] = seq;
            sh.wstream[b] = me;
            sh.r_mte1[b] = sh.r_m[b] = sh.r_v[b] = 0;
        } else {
            for (const Reader& r : readers) {
                if (me == r.stream) (*r.seqs)[b] = seq;
            }
        }
    }
}

void UbRead(CoreContext& c, uint64_t byte, uint64_t nbytes, const char* operand)
{
    if (!c.options.check_ordering) return;
    UbAccess(c, byte, nbytes, false, operand);
}

void UbWrite(CoreContext& c, uint64_t byte, uint64_t nbytes, const char* operand)
{
    if (!c.options.check_ordering) return;
    UbAccess(c, byte, nbytes, true, operand);
}

// ---- GM ----
namespace {

bool Ordered(const CoreContext& c, const Epoch& e)
{
    const uint32_t core = e.gstream / kStreams;
    const uint32_t st = e.gstream % kStreams;
    if (core == c.block_idx) {
        return e.seq <= c.order.current.v[st] ||
               (st == c.order.current_stream && e.seq == c.order.current_seq);
    }
    const std::vector<uint32_t>* r = c.order.remote.get();
    return r != nullptr && e.gstream < r->size() && (*r)[e.gstream] >= e.seq;
}

// Splits so that a segment starts at `at` (if a segment covers it).
void SplitAt(std::map<uint64_t, GmSegment>& m, uint64_t at)
{
    auto it = m.upper_bound(at);
    if (it == m.begin()) return;
    --it;
    if (it->first < at && it->second.end > at) {
        GmSegment tail = it->second;
        it->second.end = at;
        m.emplace(at, std::move(tail));
    }
}

// Makes [b, e) covered by segments (empty ones in the gaps) and split at b and e.
void Cover(std::map<uint64_t, GmSegment>& m, uint64_t b, uint64_t e)
{
    SplitAt(m, b);
    SplitAt(m, e);
    uint64_t pos = b;
    auto it = m.lower_bound(b);
    while (pos < e) {
        if (it == m.end() || it->first > pos) {
            const uint64_t gap_end = (it == m.end() || it->first > e) ? e : it->first;
            GmSegment g;
            g.end = gap_end;
            it = m.emplace_hint(it, pos, g);
        }
        pos = it->second.end;
        ++it;
    }
}

[[noreturn]] void GmHazard(CoreContext& c, int region, uint64_t first, uint64_t last, const Epoch& earlier,
                           bool earlier_write, bool now_write)
{
    const OrderState& o = c.order;
    const GmRegion& r = (*c.gm)[region];
    const uint32_t core = earlier.gstream / kStreams;
    const int st = static_cast<int>(earlier.gstream % kStreams);
    std::string site = SiteOf(c, core, st, earlier.seq);
    std::string who = core == c.block_idx ? "" : "core " + std::to_string(core) + "'s ";
    Fail(o.current_file, o.current_line,
         std::string(HazardName(earlier_write, now_write)) + " race on bytes [" + std::to_string(first) + ", " +
             std::to_string(last) + ") of GM buffer '" + r.name + "': this " + (now_write ? "write" : "read") +
             " on " + StreamName(o.current_stream) + " is not ordered after " + (who.empty() ? "the " : who) +
             (earlier_write ? "write" : "read") + " by " + (site.empty() ? "an earlier instruction" : site) + " on " +
             StreamName(st) + "; on the device they may overlap. Order them with " + Suggestion(c, core, st) + ".");
}

Epoch CurrentEpoch(const CoreContext& c)
{
    Epoch e;
    e.gstream = c.block_idx * kStreams + c.order.current_stream;
    e.seq = c.order.current_seq;
    return e;
}

void GmOrderAccess(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, bool write, const uint8_t* new_bytes)
{
    if (nbytes == 0 || !c.options.check_ordering) return;
    std::vector<GmRegion>& gm = *c.gm;
    if (gm[region].access == GmAccess::kReadOnly || c.launch == nullptr) return;  // inputs cannot race
    LaunchState& L = *c.launch;
    if (L.gm_shadow.size() < gm.size()) L.gm_shadow.resize(gm.size());
    std::map<uint64_t, GmSegment>& m = L.gm_shadow[region].segments;
    const uint64_t end = offset + nbytes;
    Cover(m, offset, end);
    const Epoch me = CurrentEpoch(c);
    if (c.order.current_stream == static_cast<uint8_t>(Stream::kSRead)) {
        RecordSite(c, c.order.current_stream, c.order.current_seq, c.order.current_file, c.order.current_line,
                   c.order.current_api);
    }
    const uint8_t* base = gm[region].base;
    auto first = m.find(offset);
    for (auto it = first; it != m.end() && it->first < end; ++it) {
        GmSegment& s = it->second;
        if (write) {
            for (const Epoch& rd : s.reads) {
                if (!Ordered(c, rd)) GmHazard(c, region, it->first, s.end, rd, false, true);
            }
        }
        if (s.write.gstream != 0xFFFFFFFFu && !Ordered(c, s.write)) {
            // Two unordered writes of the same values leave the same bytes in either order: not a race.
            const bool same_values = write && new_bytes != nullptr &&
                                     std::memcmp(base + it->first, new_bytes + (it->first - offset),
                                                 s.end - it->first) == 0;
            if (!same_values) GmHazard(c, region, it->first, s.end, s.write, true, write);
        }
    }
    if (write) {
        m.erase(first, m.lower_bound(end));
        GmSegment w;
        w.end = end;
        w.write = me;
        m.emplace(offset, std::move(w));
        return;
    }
    for (auto it = m.find(offset); it != m.end() && it->first < end; ++it) {
        std::vector<Epoch>& rs = it->second.reads;
        bool found = false;
        for (Epoch& rd : rs) {
            if (rd.gstream == me.gstream) {
                rd.seq = std::max(rd.seq, me.seq);
                found = true;
                break;
            }
        }
        if (!found) rs.push_back(me);
    }
}

// The statistics' GM ranges and the cross-core write check (kReadWrite: one core per byte).
void RecordGmTouch(CoreContext& c, int region, uint64_t b, uint64_t nbytes, bool write, const char* file, int line,
                   const char* api)
{
    if (nbytes == 0) return;
    const GmRegion& r = (*c.gm)[region];
    auto& per_region = c.gm_touched[write ? 1 : 0];
    if (per_region.size() < c.gm->size()) per_region.resize(c.gm->size());
    auto& list = per_region[region];
    const uint64_t e = b + nbytes;
    if (!c.scalar_gm_access) DcacheOtherAccess(c, region, b, nbytes, write, file, line, api);
    if (write && GmTracksWrites(r)) {
        GmMarkWritten(c, region, b, nbytes);
        GmRegion& w = (*c.gm)[region];
        w.last_write_file = file;
        w.last_write_line = line;
    }
    if (!list.empty() && b >= list.back().first && b <= list.back().second) {
        if (e > list.back().second) list.back().second = e;
    } else {
        list.emplace_back(b, e);
    }
    if (write && r.access == GmAccess::kReadWrite && c.block_dim <= 254) {
        GmRegion& w = (*c.gm)[region];
        if (w.writer.size() != w.bytes) w.writer.assign(w.bytes, 0);
        const uint8_t me = static_cast<uint8_t>(c.block_idx + 1);
        for (uint64_t i = b; i < e; ++i) {
            if (w.writer[i] != 0 && w.writer[i] != me) {
                Fail(file, line, std::string(api) + ": core " + std::to_string(c.block_idx) + " writes byte " +
                                     std::to_string(i) + " of GM buffer '" + r.name + "', which core " +
                                     std::to_string(w.writer[i] - 1) +
                                     " already wrote in this launch: on the device the two cores race");
            }
            w.writer[i] = me;
        }
    }
}

}  // namespace

void TraceGmAccess(CoreContext& c, int region, uint64_t offset, uint64_t blocks, uint64_t block_bytes,
                   uint64_t stride, bool write)
{
    if (c.trace == nullptr || !c.options.record_trace || blocks == 0 || block_bytes == 0) return;
    std::vector<TraceEvent>& evs = c.trace->events;
    if (evs.empty() || evs.back().kind != TraceKind::kInstr) return;
    GmSpan a;
    a.addr = (*c.gm)[region].trace_addr + offset;
    a.block_bytes = block_bytes;
    a.stride = stride;
    a.blocks = static_cast<uint32_t>(blocks);
    a.write = write;
    c.trace->gm.push_back(a);
    TraceEvent& e = evs.back();
    if (e.gm_count == 0) e.gm = static_cast<uint32_t>(c.trace->gm.size());
    ++e.gm_count;
}

void GmOrderOnly(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, bool write, const uint8_t* new_bytes)
{
    GmOrderAccess(c, region, offset, nbytes, write, new_bytes);
}

void GmRead(CoreContext& c, int region, uint64_t offset, uint64_t nbytes)
{
    RecordGmTouch(c, region, offset, nbytes, false, c.order.current_file, c.order.current_line, "");
    GmOrderAccess(c, region, offset, nbytes, false, nullptr);
}

void GmWrite(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, const uint8_t* new_bytes, const char* api)
{
    RecordGmTouch(c, region, offset, nbytes, true, c.order.current_file, c.order.current_line, api);
    GmOrderAccess(c, region, offset, nbytes, true, new_bytes);
}

void RecordGmWriteTouch(CoreContext& c, int region, uint64_t offset, uint64_t nbytes, const char* file, int line,
                        const char* api)
{
    RecordGmTouch(c, region, offset, nbytes, true, file, line, api);
}

void RecordGmReadTouch(CoreContext& c, int region, uint64_t offset, uint64_t nbytes)
{
    RecordGmTouch(c, region, offset, nbytes, false, "", 0, "");
}

// ---------------------------------------------------------------------------------------------------------------
// synchronisation
// ---------------------------------------------------------------------------------------------------------------
namespace {

// Everything of this core issued so far complete: PipeBarrier<PIPE_ALL> (the scalar unit waits for every pipe).
void DrainAll(OrderState& o)
{
    for (int p = 0; p < kPipes; ++p) o.issue.Join(o.view[p]);
    for (int s = 0; s < kStreams; ++s) o.issue.v[s] = std::max(o.issue.v[s], o.last[s]);
}

}  // namespace

void RequireBarrierAfterSmallMmad(CoreContext& c, const char* file, int line, const std::string& what)
{
    const OrderState& o = c.order;
    if (o.small_mmad_file != nullptr) {
        Fail(file, line,
             what + " follows the Mmad at " + o.small_mmad_file + ":" + std::to_string(o.small_mmad_line) +
                 " (fewer than 10 fractals of C: (m / 16) x (n / 16) < 10) without PipeBarrier<PIPE_M> between them: "
                 "CANN 8.1's Matmul API puts that barrier after every such Mmad (\"add pipe_M required by aicore\", "
                 "stage/compute/mmad_compute.h); do the same");
    }
}

void OrderAfterEarlierMmads(CoreContext& c)
{
    OrderState& o = c.order;
    const int m = static_cast<int>(Stream::kM);
    if (o.current_stream == m && o.current_seq > 0) {
        o.current.v[m] = std::max(o.current.v[m], o.current_seq - 1);
    }
}

void NoteMmad(CoreContext& c, uint32_t m, uint32_t n, const char* file, int line)
{
    if ((m / 16) * (n / 16) < 10) {
        c.order.small_mmad_file = file;
        c.order.small_mmad_line = line;
    }
}

void OrderPipeBarrier(CoreContext& c, int pipe_t_value, const char* file, int line)
{
    OrderState& o = c.order;
    const Pipe p = PipeOfPipeT(pipe_t_value);
    if (p == Pipe::kCount) {
        Fail(file, line, "PipeBarrier: pipe " + std::to_string(pipe_t_value) + " is not one the emulator models");
    }
    if (p == Pipe::kS) {
        // The PipeBarrier page: "PipeBarrier does not support synchronising the single PIPE_S pipe".
        Fail(file, line, "PipeBarrier<PIPE_S>: not supported (the PipeBarrier page); the scalar unit is in order by "
                         "itself, and its order against another pipe needs that pipe's flag pair (e.g. V_S / S_V)");
    }
    TraceEvent e = SyncEvent(TraceKind::kBarrier, file, line);
    e.pipe = p;
    Record(c, e);
    if (p == Pipe::kM || p == Pipe::kAll) {
        o.small_mmad_file = nullptr;  // the barrier a small Mmad needs (OrderState)
    }
    if (p == Pipe::kAll) {
        DrainAll(o);
        return;
    }
    const int s = static_cast<int>(StreamOfPipe(p, false));
    o.view[PipeIndex(p)].v[s] = std::max(o.view[PipeIndex(p)].v[s], o.last[s]);
}

namespace {

void CheckEventAndId(int hard_event, int event_id, const char* file, int line, const char* api)
{
    if (hard_event < 0 || hard_event >= kHardEventCount) {
        Fail(file, line, std::string(api) + ": invalid HardEvent " + std::to_string(hard_event));
    }
    if (event_id < 0 || event_id >= kEventIds) {
        Fail(file, line, std::string(api) + ": event id " + std::to_string(event_id) + " outside 0..7");
    }
}

std::string FlagName(int hard_event, int event_id)
{
    return std::string("HardEvent::") + HardEventName(hard_event) + ", id " + std::to_string(event_id);
}

const char* OwnerName(FlagOwner o)
{
    switch (o) {
        case FlagOwner::kKernel: return "the kernel";
        case FlagOwner::kQueue: return "a TPipe queue";
        case FlagOwner::kApi: return "an AscendC API";
        default: return "nobody";
    }
}

std::string PendingSite(const OrderState::FlagSlot& f)
{
    return std::string(f.api) + " at " + Site(f.file, f.line) + " (" + OwnerName(f.owner) + ")";
}

// The kernel's own SetFlag / WaitFlag on an id a queue or an API holds: its bit is theirs.
void CheckKernelMayUse(const CoreContext& c, int hard_event, int event_id, const char* file, int line,
                       const char* api)
{
    const OrderState::IdHolder& h = c.order.id_holders[static_cast<size_t>(hard_event) * kEventIds + event_id];
    if (h.owner == FlagOwner::kQueue || h.owner == FlagOwner::kApi) {
        Fail(file, line,
             std::string(api) + "(" + FlagName(hard_event, event_id) + "): that id is held by " + OwnerName(h.owner) +
                 " (" + h.what + " at " + Site(h.file, h.line) +
                 "); its flag is one bit, so the kernel's would merge with it (on the device a wait is released by the "
                 "wrong set, or hangs). Take the kernel's ids from TPipe::AllocEventID or FetchEventID");
    }
}

// A kernel's flag on a pipe its core does not have orders nothing: the 8.1 headers (impl/kernel_event.h WaitFlagImpl)
// compile some such waits to nothing (the cube pipes' events under __DAV_C220_VEC__, M_V / V_M / MTE1_V / V_MTE1 on
// every 220 core), keep others as a wait on a pipe the core lacks (FIX_* and M_S on a 220 vector core), and assert
// on the FIX events below __CCE_AICORE__ 220 (a set without its wait also leaves the flag set for the next operator).
// Split SoCs: a vector core has no M / MTE1 / FIX pipe, a cube core no V pipe; 310p's coupled AI core has the cube
// pipes but no fixpipe.
void CheckPipesOnCore(const CoreContext& c, int hard_event, const char* file, int line, const char* api)
{
    for (const Pipe p : {HardEventSrc(hard_event), HardEventDst(hard_event)}) {
        const bool cube_pipe = p == Pipe::kM || p == Pipe::kMte1 || p == Pipe::kFix;
        const bool missing = !c.split_cores ? p == Pipe::kFix : (c.is_aiv ? cube_pipe : p == Pipe::kV);
        if (missing) {
            const std::string core = c.split_cores ? (c.is_aiv ? "a vector core of " : "a cube core of ") : "";
            Fail(file, line,
                 std::string(api) + "(HardEvent::" + HardEventName(hard_event) + "): this core has no " +
                     PipeName(p) + " pipe (" + core + c.soc.name +
                     "), so the flag orders nothing: the 8.1 headers compile its wait to nothing, to a wait on a "
                     "pipe the core lacks, or an assert. Synchronise with the pipes this core runs");
        }
    }
}

}  // namespace

void OrderSetFlag(CoreContext& c, int hard_event, int event_id, const char* file, int line, const char* api,
                  FlagOwner owner)
{
    OrderState& o = c.order;
    CheckEventAndId(hard_event, event_id, file, line, api);
    if (owner == FlagOwner::kKernel) {
        CheckPipesOnCore(c, hard_event, file, line, api);
        CheckKernelMayUse(c, hard_event, event_id, file, line, api);
        if (c.pipe_live && !o.kernel_ids[static_cast<size_t>(hard_event) * kEventIds + event_id]) {
            // The SetFlag / WaitFlag (ISASI) page: with the TPipe / TQue paradigm, event ids come from AllocEventID
            // or FetchEventID (the queues take theirs from the same pool; static code uses ids 0 .. 5, id 6 is the
            // system's and id 7 TPipe's automatic synchronisation's). A literal equal to an id handed out earlier
            // passes (the record is of ids ever handed out).
            Fail(file, line,
                 std::string(api) + "(" + FlagName(hard_event, event_id) + "): under a TPipe the kernel's event ids "
                 "must come from TPipe::AllocEventID or FetchEventID (the SetFlag / WaitFlag (ISASI) page), and this one "
                 "never did: a literal id may be one a queue or an API takes from the same pool");
        }
    }
    OrderState::FlagSlot& slot = o.flags[static_cast<size_t>(hard_event) * kEventIds + event_id];
    if (slot.pending) {
        Fail(file, line,
             std::string(api) + "(" + FlagName(hard_event, event_id) + ") while the SetFlag by " + PendingSite(slot) +
                 " is still pending (no WaitFlag since): a flag is one bit per event and id, so the two sets merge "
                 "into one and the second WaitFlag waits forever (or a wait is released by the wrong set). Wait "
                 "before setting again, or use another id (TPipe::AllocEventID)");
    }
    const Pipe src = HardEventSrc(hard_event);
    if (src == Pipe::kM) {
        RequireBarrierAfterSmallMmad(c, file, line, std::string(api) + "(" + FlagName(hard_event, event_id) + ")");
    }
    // Fires when every earlier instruction of src has completed: carries what they knew, and them.
    Clock f = ViewOf(o, src);
    if (src == Pipe::kS) {
        f.v[static_cast<int>(Stream::kSRead)] = o.last[static_cast<int>(Stream::kSRead)];
        f.v[static_cast<int>(Stream::kSWrite)] = o.last[static_cast<int>(Stream::kSWrite)];
    } else {
        const int s = static_cast<int>(StreamOfPipe(src, false));
        f.v[s] = o.last[s];
    }
    slot.pending = true;
    slot.owner = owner;
    slot.clock = f;
    slot.file = file;
    slot.line = line;
    slot.api = api;
    TraceEvent e = SyncEvent(TraceKind::kSetFlag, file, line);
    e.src_pipe = src;
    e.dst_pipe = HardEventDst(hard_event);
    e.event_id = static_cast<int8_t>(event_id);
    Record(c, e);
}

void OrderWaitFlag(CoreContext& c, int hard_event, int event_id, const char* file, int line, const char* api,
                   FlagOwner owner)
{
    OrderState& o = c.order;
    CheckEventAndId(hard_event, event_id, file, line, api);
    if (owner == FlagOwner::kKernel) {
        CheckPipesOnCore(c, hard_event, file, line, api);
        CheckKernelMayUse(c, hard_event, event_id, file, line, api);
    }
    if (HardEventDst(hard_event) == Pipe::kM) {
        RequireBarrierAfterSmallMmad(c, file, line, std::string(api) + "(" + FlagName(hard_event, event_id) + ")");
    }
    OrderState::FlagSlot& slot = o.flags[static_cast<size_t>(hard_event) * kEventIds + event_id];
    if (!slot.pending) {
        Fail(file, line, std::string(api) + "(" + FlagName(hard_event, event_id) +
                             ") without a matching SetFlag: on the device this waits forever");
    }
    const Clock f = slot.clock;
    slot.pending = false;
    const Pipe dst = HardEventDst(hard_event);
    if (dst == Pipe::kS) {
        o.issue.Join(f);  // the scalar unit blocks: everything issued after it knows
    } else {
        o.view[PipeIndex(dst)].Join(f);
    }
    TraceEvent e = SyncEvent(TraceKind::kWaitFlag, file, line);
    e.src_pipe = HardEventSrc(hard_event);
    e.dst_pipe = dst;
    e.event_id = static_cast<int8_t>(event_id);
    Record(c, e);
}

int OrderAllocEventId(CoreContext& c, int hard_event, const char* file, int line, FlagOwner owner, const char* what)
{
    for (int i = 0; i < kEventIds; ++i) {
        OrderState::IdHolder& h = c.order.id_holders[static_cast<size_t>(hard_event) * kEventIds + i];
        if (h.owner == FlagOwner::kNone) {
            h.owner = owner;
            h.file = file;
            h.line = line;
            h.what = what;
            return i;
        }
    }
    Fail(file, line, std::string("TPipe has no free event id for HardEvent::") + HardEventName(hard_event) +
                         ": all 8 are held (queue buffers EnQue'd or freed and not allocated again, AllocEventID of "
                         "the kernel or of an API)");
}

void OrderReleaseEventId(CoreContext& c, int hard_event, int event_id)
{
    if (hard_event < 0 || hard_event >= kHardEventCount || event_id < 0 || event_id >= kEventIds) return;
    c.order.id_holders[static_cast<size_t>(hard_event) * kEventIds + event_id] = OrderState::IdHolder();
}

void OrderKernelReleaseEventId(CoreContext& c, int hard_event, int event_id, const char* file, int line)
{
    CheckEventAndId(hard_event, event_id, file, line, "TPipe::ReleaseEventID");
    const OrderState::IdHolder& h = c.order.id_holders[static_cast<size_t>(hard_event) * kEventIds + event_id];
    if (h.owner != FlagOwner::kKernel) {
        Fail(file, line, "TPipe::ReleaseEventID(" + FlagName(hard_event, event_id) + "): the id is held by " +
                             OwnerName(h.owner) + (h.owner == FlagOwner::kNone ? "" : std::string(" (") + h.what +
                             " at " + Site(h.file, h.line) + ")") +
                             ", not by the kernel's AllocEventID");
    }
    OrderReleaseEventId(c, hard_event, event_id);
}

void OrderKernelGotId(CoreContext& c, int hard_event, int event_id)
{
    if (hard_event < 0 || hard_event >= kHardEventCount || event_id < 0 || event_id >= kEventIds) return;
    c.order.kernel_ids[static_cast<size_t>(hard_event) * kEventIds + event_id] = true;
}

void OrderDropKernelHolds(CoreContext& c)
{
    for (OrderState::IdHolder& h : c.order.id_holders) {
        if (h.owner == FlagOwner::kKernel) {
            h = OrderState::IdHolder();
        }
    }
}

int OrderFetchEventId(CoreContext& c, int hard_event, const char* file, int line)
{
    for (int i = 0; i < kEventIds; ++i) {
        if (c.order.id_holders[static_cast<size_t>(hard_event) * kEventIds + i].owner == FlagOwner::kNone) return i;
    }
    Fail(file, line, std::string("TPipe::FetchEventID: all 8 event ids of HardEvent::") + HardEventName(hard_event) +
                         " are held (queue buffers, AllocEventID)");
}

void OrderApiFlagPair(CoreContext& c, int hard_event, const char* file, int line, const char* api)
{
    const int id = OrderFetchEventId(c, hard_event, file, line);
    const OrderState::FlagSlot& slot = c.order.flags[static_cast<size_t>(hard_event) * kEventIds + id];
    if (slot.pending) {
        Fail(file, line,
             std::string(api) + " synchronises internally with SetFlag / WaitFlag(" + FlagName(hard_event, id) +
                 ") on the id TPipe::FetchEventID returns, while the SetFlag by " + PendingSite(slot) +
                 " is pending on it: the two merge into one bit (its WaitFlag then waits forever). Wait for the "
                 "kernel's flag before the call, or hold the kernel's id with TPipe::AllocEventID");
    }
}

void OrderApiHoldFlag(CoreContext& c, int hard_event, const char* file, int line, const char* what)
{
    const int id = OrderAllocEventId(c, hard_event, file, line, FlagOwner::kApi, what);
    OrderState::FlagSlot& slot = c.order.flags[static_cast<size_t>(hard_event) * kEventIds + id];
    if (slot.pending) {
        Fail(file, line,
             std::string(what) + " takes " + FlagName(hard_event, id) + " (AllocEventID) and sets it, while the "
                 "SetFlag by " + PendingSite(slot) + " is pending on that id: the two merge into one bit");
    }
    slot.pending = true;
    slot.owner = FlagOwner::kApi;
    slot.clock = c.order.issue;
    slot.file = file;
    slot.line = line;
    slot.api = what;
}

void OrderCheckPendingFlags(CoreContext& c)
{
    if (c.order.small_mmad_file != nullptr) {
        Fail(c.order.small_mmad_file, c.order.small_mmad_line,
             "Mmad: fewer than 10 fractals of C ((m / 16) x (n / 16) < 10) and the kernel's last M instruction, "
             "with no PipeBarrier<PIPE_M> after it: CANN 8.1's Matmul API puts that barrier after every such Mmad "
             "(\"add pipe_M required by aicore\", stage/compute/mmad_compute.h); do the same");
    }
    for (int e = 0; e < kHardEventCount; ++e) {
        for (int id = 0; id < kEventIds; ++id) {
            const OrderState::FlagSlot& slot = c.order.flags[static_cast<size_t>(e) * kEventIds + id];
            if (slot.pending && slot.owner == FlagOwner::kKernel) {
                Fail(slot.file, slot.line,
                     std::string(slot.api) + "(" + FlagName(e, id) +
                         ") is never waited for (no WaitFlag by the end of the kernel): SetFlag and WaitFlag must be "
                         "paired; on the device the bit stays set");
            }
        }
    }
}

void OrderSyncAll(CoreContext& c, bool aiv_only, const char* file, int line, const char* api)
{
    OrderState& o = c.order;
    TraceEvent b = SyncEvent(TraceKind::kBarrier, file, line);
    b.pipe = Pipe::kAll;
    Record(c, b);
    DrainAll(o);
    TraceEvent s = SyncEvent(TraceKind::kSyncAll, file, line);
    s.group = aiv_only ? 0 : 1;
    Record(c, s);
    // What this core knows, for every core's streams.
    std::vector<uint32_t> mine(static_cast<size_t>(c.block_dim) * kStreams, 0);
    if (o.remote) {
        for (size_t i = 0; i < mine.size() && i < o.remote->size(); ++i) mine[i] = (*o.remote)[i];
    }
    for (int st = 0; st < kStreams; ++st) {
        mine[static_cast<size_t>(c.block_idx) * kStreams + st] = o.issue.v[st];
    }
    std::shared_ptr<const std::vector<uint32_t>> all = LaunchBarrier(c, c.block_dim, mine, file, line, api);
    o.remote = all;
}

// ---------------------------------------------------------------------------------------------------------------
// the cube
// ---------------------------------------------------------------------------------------------------------------
namespace {

uint32_t CubeCoreOf(CoreContext& c)
{
    FinalizeKernelType(c);  // the vector cores per cube core come from the kernel's type
    return c.block_dim + (c.split_cores ? c.block_idx / c.cube_ratio : c.block_idx);
}

const OrderState::CubeRequest* PendingRequest(const OrderState& o, uint64_t handle)
{
    for (const OrderState::CubeRequest& r : o.cube_requests) {
        if (r.handle == handle) return &r;
    }
    return nullptr;
}

// The cube's view for request `handle`: what the vector core's scalar unit knew when it made the request (its
// earlier requests' work is part of that: the cube serves one core's requests in order).
void MakeCubeCurrent(CoreContext& c, uint64_t handle, const char* file, int line)
{
    const OrderState::CubeRequest* r = PendingRequest(c.order, handle);
    if (r == nullptr) {
        Fail(file, line, "Matmul emulation: cube access of a request that is not pending (emulator bug)");
    }
    MakeCurrent(c, Pipe::kCount, Stream::kCube, r->seq, r->view, file, line);
}

CoreTrace* CubeTrace(CoreContext& c)
{
    if (c.launch == nullptr || !c.options.record_trace) return nullptr;
    const uint32_t id = CubeCoreOf(c);
    CoreTrace& t = c.launch->cube_traces[id];
    t.core = id;
    t.is_cube = true;
    return &t;
}

}  // namespace

uint64_t CubeRequestBegin(CoreContext& c, const char* file, int line)
{
    OrderState& o = c.order;
    const uint64_t handle = c.launch ? ++c.launch->next_handle : 0;
    const int cube = static_cast<int>(Stream::kCube);
    ++o.last[cube];
    RecordSite(c, cube, o.last[cube], file, line, "Matmul (cube)");
    OrderState::CubeRequest req{handle, o.last[cube], o.issue};
    req.view.v[cube] = o.last[cube] - 1;  // its earlier requests, in order
    o.cube_requests.push_back(req);
    TraceEvent e = SyncEvent(TraceKind::kCubeRequest, file, line);
    e.peer_core = CubeCoreOf(c);
    e.handle = handle;
    Record(c, e);
    MakeCubeCurrent(c, handle, file, line);
    return handle;
}

void CubeGmAccess(CoreContext& c, uint64_t handle, int region, const uint8_t* tensor_begin, const uint8_t* tensor_end,
                  const uint8_t* ptr, uint64_t rows, uint64_t row_bytes, uint64_t row_stride_bytes, bool write,
                  const char* file, int line, const char* api, bool require_written)
{
    if (rows == 0 || row_bytes == 0) return;
    const uint64_t span = (rows - 1) * row_stride_bytes + row_bytes;
    CheckGmBounds(c, region, tensor_begin, tensor_end, ptr, span, write, file, line, api);
    MakeCubeCurrent(c, handle, file, line);
    const GmRegion& r = (*c.gm)[region];
    const uint64_t first = static_cast<uint64_t>(ptr - r.base);
    if (c.launch != nullptr && c.options.record_trace) {
        // the request's footprint for the trace (CubeRequestWork attaches it); a job repeating a rectangle an
        // earlier job of the request listed (the same A rows for the next N block) adds nothing to it
        GmSpan a;
        a.addr = r.trace_addr + first;
        const bool contiguous = rows == 1 || row_stride_bytes == row_bytes;
        a.blocks = contiguous ? 1 : static_cast<uint32_t>(rows);
        a.block_bytes = contiguous ? span : row_bytes;
        a.stride = contiguous ? span : row_stride_bytes;
        a.write = write;
        std::vector<GmSpan>& list = c.launch->cube_gm[handle];
        const bool seen = std::any_of(list.begin(), list.end(), [&](const GmSpan& o) {
            return o.addr == a.addr && o.block_bytes == a.block_bytes && o.stride == a.stride &&
                   o.blocks == a.blocks && o.write == a.write;
        });
        if (!seen) list.push_back(a);
    }
    if (row_stride_bytes == row_bytes) {  // contiguous rows: one range
        row_bytes *= rows;
        rows = 1;
    }
    for (uint64_t i = 0; i < rows; ++i) {
        const uint64_t off = first + i * row_stride_bytes;
        if (!write && require_written) CheckGmReadWritten(c, region, off, row_bytes, file, line, api);
        RecordGmTouch(c, region, off, row_bytes, write, file, line, api);
        // The cube's result is computed after this check (IterateAll writes C next): no value comparison.
        GmOrderAccess(c, region, off, row_bytes, write, nullptr);
    }
}

void CubeRequestWork(CoreContext& c, uint64_t handle, uint64_t in_bytes, uint64_t macs, uint8_t elem_bytes,
                     uint64_t out_bytes, const char* file, int line, const CubeOutShape& shape)
{
    CoreTrace* t = CubeTrace(c);
    if (t == nullptr) return;
    auto instr = [&](Pipe p, InstrClass cls, uint64_t count) {
        TraceEvent e;
        e.kind = TraceKind::kInstr;
        e.pipe = p;
        e.cls = cls;
        e.elem_bytes = elem_bytes;
        e.count = count;
        e.bursts = 1;
        e.handle = handle;
        e.file = file;
        e.line = line;
        t->events.push_back(e);
    };
    // what the request's jobs read (on the load) and wrote (on the write-back)
    std::vector<GmSpan> accesses;
    auto it = c.launch->cube_gm.find(handle);
    if (it != c.launch->cube_gm.end()) {
        accesses.swap(it->second);
        c.launch->cube_gm.erase(it);
    }
    auto attach = [&](bool write) {
        TraceEvent& e = t->events.back();
        for (const GmSpan& a : accesses) {
            if (a.write != write) continue;
            if (e.gm_count == 0) e.gm = static_cast<uint32_t>(t->gm.size() + 1);
            t->gm.push_back(a);
            ++e.gm_count;
        }
    };
    auto counted = [&](uint64_t instrs, uint64_t bursts) {
        t->events.back().instrs = static_cast<uint32_t>(std::min<uint64_t>(instrs, UINT32_MAX));
        t->events.back().bursts = static_cast<uint32_t>(std::min<uint64_t>(bursts, UINT32_MAX));
    };
    instr(Pipe::kMte2, InstrClass::kDmaGmToL1, in_bytes);
    if (shape.load_dmas > 0) counted(shape.load_dmas, shape.load_bursts);
    attach(false);
    if (shape.stage_instrs > 0) {
        instr(Pipe::kV, InstrClass::kVecTransData, shape.stage_bytes);
        counted(shape.stage_instrs, shape.stage_repeats);
        instr(Pipe::kMte3, InstrClass::kDmaUbToL1, shape.stage_bytes);
        counted(shape.stage_dmas, shape.stage_bursts);
    }
    instr(Pipe::kMte1, InstrClass::kDmaL1ToL0, in_bytes);
    instr(Pipe::kM, InstrClass::kCubeMmad, macs);
    t->events.back().serial_blocks = shape.serial_blocks;
    if (c.split_cores) {
        instr(Pipe::kFix, InstrClass::kFixOut, out_bytes);
        attach(true);
    } else {
        instr(Pipe::kV, InstrClass::kFixOut, out_bytes);
        instr(Pipe::kMte3, InstrClass::kDmaUbToGm, out_bytes);
        t->events.back().out_dmas = shape.dmas;
        t->events.back().bursts = std::max<uint32_t>(1, shape.bursts);
        attach(true);
    }
}

void CubeRequestWait(CoreContext& c, uint64_t handle, const char* file, int line)
{
    OrderState& o = c.order;
    TraceEvent w = SyncEvent(TraceKind::kCubeWait, file, line);
    w.peer_core = CubeCoreOf(c);
    w.handle = handle;
    Record(c, w);
    // The vector core waits until the request completed (and with it the earlier ones: served in order).
    const int cube = static_cast<int>(Stream::kCube);
    const OrderState::CubeRequest* r = PendingRequest(o, handle);
    const uint32_t seq = r != nullptr ? r->seq : 0;
    if (c.split_cores) {
        o.issue.v[cube] = std::max(o.issue.v[cube], seq);
    } else {
        // ascend310p: the AI core's own pipes run the request, and the scalar unit is not held until they finish. Its
        // C goes out on MTE3 (after the loads, through the API's flags), and the write-back ends with MTE3 -> V and
        // (IterateAll) MTE3 -> MTE2 flag pairs (copy_cube_out_datacopy.h, matmul_impl.h): the V, MTE2 and MTE3 pipes
        // know the request's reads and writes complete; the scalar unit learns it only through a flag from them.
        for (Pipe p : {Pipe::kV, Pipe::kMte2, Pipe::kMte3}) {
            Clock& view = o.view[PipeIndex(p)];
            view.v[cube] = std::max(view.v[cube], seq);
        }
    }
    for (size_t i = 0; i < o.cube_requests.size(); ++i) {
        if (o.cube_requests[i].handle == handle) {
            o.cube_requests.erase(o.cube_requests.begin() + static_cast<std::ptrdiff_t>(i));
            break;
        }
    }
}

void CubeRequestEnd(CoreContext& c, uint64_t handle, uint64_t in_bytes, uint64_t macs, uint8_t elem_bytes,
                    uint64_t out_bytes, const char* file, int line, const CubeOutShape& shape)
{
    CubeRequestWork(c, handle, in_bytes, macs, elem_bytes, out_bytes, file, line, shape);
    CubeRequestWait(c, handle, file, line);
}

// ---------------------------------------------------------------------------------------------------------------
// per core
// ---------------------------------------------------------------------------------------------------------------
void OrderBeginCore(CoreContext& c)
{
    OrderState& o = c.order;
    c.shadow = AcquireShadow(c.soc.ub_bytes);
    for (int s = 0; s < kStreams; ++s) {
        o.last[s] = c.shadow->next[s];
        o.issue.v[s] = c.shadow->next[s];  // what an earlier core left in the shadow reads as complete
    }
    for (int p = 0; p < kPipes; ++p) o.view[p] = o.issue;
    o.flags.assign(static_cast<size_t>(kHardEventCount) * kEventIds, OrderState::FlagSlot());
    o.id_holders.assign(static_cast<size_t>(kHardEventCount) * kEventIds, OrderState::IdHolder());
    o.kernel_ids.assign(static_cast<size_t>(kHardEventCount) * kEventIds, false);
    MakeCurrent(c, Pipe::kS, Stream::kSRead, 0, o.issue, "", 0);
}

void OrderEndCore(CoreContext& c)
{
    if (c.shadow == nullptr) return;
    for (int s = 0; s < kStreams; ++s) c.shadow->next[s] = c.order.last[s];
    ReleaseShadow(c.shadow);
    c.shadow = nullptr;
}

}  // namespace aqo_emu
