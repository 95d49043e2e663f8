// The timeline model (include/emulator/timeline.h): a discrete-event replay of the CoreTraces of a launch.
//
// Agents: every core's scalar unit and each of its pipes, plus one GM bandwidth arbiter for the chip. Each agent
// has at most one pending wake-up (a timer, or a notification "now" from another agent); Step() advances an agent
// as far as it can at the current time and then sets a timer or registers for the event it waits for.
//
// Per instruction (costs from TimelineParams):
//   scalar unit   every event costs scalar_issue_cycles, except its own instructions (GetValue / SetValue and
//                 API scalar work), which cost their access cycles; an event for another pipe enters that pipe's
//                 queue when issued; a full queue (pipe_queue_depth) stalls the scalar unit.
//   GM DMA        (MTE2, MTE3, and the fixpipe on split SoCs) bursts x dma_burst_cycles of set-up, then its bytes
//                 at the rate the arbiter grants (max-min fair share of the chip's GM bandwidth among the active
//                 transfers, each capped by its pipe's rate); it completes dma_latency_cycles after its last byte.
//                 The pipe is free for its next instruction when the bytes have moved.
//   L2 cache      one for the chip: l2_bytes / l2_line_bytes lines, fully associative, least recently used line
//                 replaced, empty at the launch's start. When a GM read with recorded addresses (emu_trace.h
//                 GmSpan) starts moving its bytes (after its set-up), each line it touches is looked up in the
//                 order of its bytes: a resident line is a hit (and becomes the most recent), another is a miss
//                 and is allocated at once. The misses' whole lines go through the GM arbiter, the other bytes of
//                 the DMA through the L2 arbiter (max-min fair shares of l2_bytes_per_cycle, capped by
//                 mte2_l2_bytes_per_cycle), both at once; the DMA's bytes have moved when both parts have. The pipe
//                 receives its own missed bytes at most at its GM rate: a miss part whose lines hold w times the
//                 DMA's missed bytes is capped at w x that rate and counts w times in the GM's max-min shares (the
//                 GM serves lines). A read that hits a line another read is still bringing in (allocated, not yet
//                 moved: that read's GM part moves its lines in order) is done no earlier than that line. A
//                 write allocates the lines it covers whole (a partly covered line stays as it was: resident or
//                 not) and moves all its bytes through the GM arbiter, as before (the device's L2 writes back
//                 later; every written byte reaches GM once). Hits keep dma_latency_cycles (no public number for
//                 an L2 round trip). A Matmul request's load, recorded as its footprint (the rectangles of A and B
//                 its jobs read), is looked up chunk by chunk of the pipeline below: chunk j of n takes the j-th n-th
//                 of each rectangle's bytes in address order; the chunk's bytes beyond its footprint share (the
//                 API reloading tiles the L1 cache did not keep) are hits. Reads without addresses (hand-built
//                 traces, the scalar unit) are misses.
//   vector        vec_instr_cycles + repeats x cycles per repeat of its class; completes pipeline_latency_cycles
//                 later. Repeats: the trace's `bursts` when set (level-0 forms: repeatTimes), else
//                 ceil(count x elem_bytes / vector_bytes_per_repeat).
//   cube          ceil(MACs / cube_macs_per_cycle); MTE1 bytes / mte1_bytes_per_cycle; then pipeline latency.
// Sync: SetFlag fires flag_sync_cycles after every earlier instruction of its source pipe completed (the source
// pipe goes on); WaitFlag holds its pipe until the matching SetFlag (first-in first-out per core, src, dst, id and
// Matmul request) fired; PipeBarrier<P> holds P until its earlier instructions completed; PipeBarrier<ALL> holds
// the scalar unit until every pipe of the core is empty and completed; SyncAll (per group: the cores whose traces
// have SyncAlls of that group, n-th with n-th) releases sync_all_cycles after the last arrival.
// Matmul requests: on split SoCs a request reaches its cube core cube_message_cycles after issue; the cube core
// serves requests one at a time (the API's server finishes a request before it takes the next message) in arrival
// order (ties: lower requesting core first), and the requester's CubeWait ends cube_message_cycles after the
// request's last cube instruction completed. On coupled SoCs (ascend310p) the request's instructions run on the
// requesting AI core itself: its scalar unit issues them into its own pipes when it reaches the request, and its
// wait for the request does not hold it (the program's own flags order the V and MTE2 pipes after the write-back).
// A request recorded as one instruction per pipe without flags (what the emulator's Matmul API records: the
// operand bytes, the MACs, the result bytes) is run as the API's software pipeline: the work is cut into chunks
// that fit half of L1, of L0A + L0B and of L0C (double buffering), MTE2 -> MTE1 -> M per chunk and the result out
// (FIX, or V + MTE3 on ascend310p) per L0C block, each stage waiting for the one before and for its buffer's
// previous user, as the API's ping-pong buffers do. A load recorded with its DMA instructions and bursts (instrs,
// ascend310p) gives each chunk its share of both: the scalar unit pays the issue of every DMA, MTE2 every burst.
// ascend310p's write-back (a request's out_dmas): one MTE3 DMA per
// C row with its bursts, then an MTE3 -> V pair (copy_cube_out_datacopy.h); a synchronous IterateAll's blocks
// (serial_blocks): an MTE3 -> MTE2 pair after each block's write-back, so the next block's loads follow it
// (matmul_impl.h). ascend310p's int8 B (kVecTransData, kDmaUbToL1): each chunk's share turned on V behind an MTE2 ->
// V pair, then copied UB -> L1 on MTE3 behind a V -> MTE3 pair, MTE1 waiting for that copy; with one staging area
// in UB, the next chunk's rows wait for this chunk's turn, and its turn for this chunk's copy. A TransDataTo5HD costs
// vec_instr_cycles, its repeats as elementwise ones and, after the first, pipeline_latency_cycles (the PipeBarrier
// before it), and on the scalar unit its issue plus trans_data_scalar_cycles (its address lists); a UB -> L1 DMA
// dma_burst_cycles per burst and its bytes at ub_to_l1_bytes_per_cycle.
#include "emulator/timeline.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "emulator/emu_context.h"
#include "soc_table.h"

namespace aqo_emu {

TimelineParams MakeTimelineParams(const std::string& soc, const std::vector<std::pair<std::string, double>>& scale)
{
    aqo::SocSpec spec;
    if (!aqo::SocFromName(soc.c_str(), &spec)) {
        throw EmulatorError("timeline: unknown SoC '" + soc + "' (known: " + aqo::KnownSocNames() + ")", "", 0, soc,
                            -1, "unknown SoC");
    }
    size_t n = 0;
    const aqo::TimingParamInfo* info = aqo::TimingParamTable(&n);
    const aqo::TimingValue* values = aqo::SocTiming(spec.id);
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) {
        v[i] = values[i].value;
    }
    for (const auto& s : scale) {
        size_t i = 0;
        while (i < n && s.first != info[i].name) {
            ++i;
        }
        if (i == n) {
            std::string names;
            for (size_t j = 0; j < n; ++j) {
                names += (j ? ", " : "") + std::string(info[j].name);
            }
            throw EmulatorError("timeline: unknown timing parameter '" + s.first + "' (known: " + names + ")", "", 0,
                                soc, -1, "unknown timing parameter");
        }
        if (!(s.second > 0) || !std::isfinite(s.second)) {
            throw EmulatorError("timeline: the factor of timing parameter '" + s.first + "' must be finite and > 0",
                                "", 0, soc, -1, "bad timing factor");
        }
        v[i] *= s.second;
    }
    auto get = [&](aqo::TimingParam p) { return v[static_cast<size_t>(p)]; };
    using P = aqo::TimingParam;
    TimelineParams t;
    t.soc = spec.name;
    t.clock_mhz = get(P::CLOCK_MHZ);
    // GB/s -> bytes per core cycle: the memory does not speed up with the core clock.
    t.gm_bytes_per_cycle = get(P::GM_BANDWIDTH_GBPS) * 1000.0 / t.clock_mhz;
    t.mte2_bytes_per_cycle = get(P::MTE2_BYTES_PER_CYCLE);
    t.mte3_bytes_per_cycle = get(P::MTE3_BYTES_PER_CYCLE);
    t.l2_bytes = get(P::L2_BYTES);
    t.l2_line_bytes = std::max(1.0, std::round(get(P::L2_LINE_BYTES)));
    t.l2_bytes_per_cycle = get(P::L2_READ_BANDWIDTH_GBPS) * 1000.0 / t.clock_mhz;
    t.mte2_l2_bytes_per_cycle = get(P::MTE2_L2_BYTES_PER_CYCLE);
    t.dma_latency_cycles = get(P::DMA_LATENCY_CYCLES);
    t.dma_burst_cycles = get(P::DMA_BURST_CYCLES);
    t.vector_bytes_per_repeat = get(P::VECTOR_BYTES_PER_REPEAT);
    t.vec_instr_cycles = get(P::VEC_INSTR_CYCLES);
    t.vec_elementwise_cycles_per_repeat = get(P::VEC_ELEMENTWISE_CYCLES_PER_REPEAT);
    t.vec_div_cycles_per_repeat = get(P::VEC_DIV_CYCLES_PER_REPEAT);
    t.vec_cast_cycles_per_repeat = get(P::VEC_CAST_CYCLES_PER_REPEAT);
    t.vec_reduce_cycles_per_repeat = get(P::VEC_REDUCE_CYCLES_PER_REPEAT);
    t.pipeline_latency_cycles = get(P::PIPELINE_LATENCY_CYCLES);
    t.scalar_issue_cycles = get(P::SCALAR_ISSUE_CYCLES);
    t.scalar_ub_access_cycles = get(P::SCALAR_UB_ACCESS_CYCLES);
    t.scalar_gm_access_cycles = get(P::SCALAR_GM_ACCESS_CYCLES);
    t.flag_sync_cycles = get(P::FLAG_SYNC_CYCLES);
    t.sync_all_cycles = get(P::SYNC_ALL_CYCLES);
    t.cube_message_cycles = get(P::CUBE_MESSAGE_CYCLES);
    t.cube_macs_per_cycle = get(P::CUBE_MACS_PER_CYCLE);
    t.mte1_bytes_per_cycle = get(P::MTE1_BYTES_PER_CYCLE);
    t.fix_bytes_per_cycle = get(P::FIX_BYTES_PER_CYCLE);
    t.ub_to_l1_bytes_per_cycle = get(P::UB_TO_L1_BYTES_PER_CYCLE);
    t.l1_to_ub_bytes_per_cycle = get(P::L1_TO_UB_BYTES_PER_CYCLE);
    t.trans_data_scalar_cycles = get(P::TRANS_DATA_SCALAR_CYCLES);
    t.pipe_queue_depth = static_cast<uint32_t>(std::max(1.0, std::round(get(P::PIPE_QUEUE_DEPTH))));
    t.fix_to_gm = spec.split_architecture;
    t.coupled = !spec.split_architecture;
    t.l0a_bytes = get(P::L0A_BYTES);
    t.l0b_bytes = get(P::L0B_BYTES);
    t.l0c_bytes = get(P::L0C_BYTES);
    t.l1_bytes = get(P::L1_BYTES);
    return t;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kS = static_cast<int>(Pipe::kS);
// Bounds the chunks a Matmul request's loads and cube work expand into (serial blocks are never merged, and a
// recorded write-back adds one DMA per C row of each block on top).
constexpr size_t kMaxMatmulChunks = 512;

int PipeIndex(Pipe p) { return static_cast<int>(p); }

std::string BaseName(const char* file)
{
    std::string f = file ? file : "";
    const size_t slash = f.find_last_of("/\\");
    return slash == std::string::npos ? f : f.substr(slash + 1);
}

std::string Site(const TraceEvent& e)
{
    const std::string f = BaseName(e.file);
    return f.empty() ? std::string("(no site)") : f + ":" + std::to_string(e.line);
}

// What an instruction costs.
struct Cost {
    double setup = 0;        // fixed pipe cycles (DMA: before the bytes move)
    double gm_bytes = 0;     // > 0: bytes through the GM arbiter after the set-up (L2 hits: the L2 arbiter)
    double cap = 0;          // the pipe's rate limit for those bytes (from GM)
    bool read = false;       // a GM read (its bytes may hit in L2)
    double latency = 0;      // completion after the pipe is free
    double work = 0;         // bytes moved (DMA), bytes processed (vector: repeats x bytes per repeat), MACs (cube),
                             // accesses (scalar)
};

using Program = std::vector<const TraceEvent*>;

struct Request {
    int requester = -1;        // trace index that issued kCubeRequest
    int server = -1;           // trace index whose events are the request's work
    bool coupled = false;      // run by the requester's own scalar unit and pipes
    double arrival = kInf;     // when the server may start it (split SoCs)
    Program program;           // what is issued for it (expanded when recorded coarse)
    uint64_t total_instrs = 0;
    uint64_t done_instrs = 0;
    bool issued_all = false;
    double max_end = 0;
    double completion = kInf;
    std::vector<int> waiters;  // agents
    bool started = false;
};

struct Item {
    const TraceEvent* ev = nullptr;
    uint32_t flag = 0;         // SetFlag / WaitFlag: its place among the issued ones of its key
};

struct PipeState {
    std::deque<Item> queue;
    bool active = false;
    Item cur;
    int phase = 0;             // 0: fixed set-up until setup_end; 1: transfer in the arbiters
    double start = 0;
    double setup_end = 0;
    bool transfer_done = false;
    int transfers_left = 0;    // parts of the transfer still moving (GM, L2)
    double transfer_end = 0;
    Cost cost;
    double max_end = 0;        // completion of every instruction that left the pipe
    bool space_waiter = false; // the scalar unit waits for room in this queue
};

struct Frame {
    const Program* program = nullptr;
    size_t pos = 0;
    int64_t request = -1;      // handle, or -1 for the core's own trace
};

struct ScalarState {
    std::vector<Frame> stack;
    Program own;               // the core's own events (a serving core: those of no request)
    double busy_until = 0;
    bool issue_paid = false;   // the current event's issue cycles are spent
    uint32_t flag = 0;         // the current SetFlag / WaitFlag's place in its key's order
    bool done = false;
    double done_time = 0;
    bool drain_waiter = false;
    int64_t last_served = -1;  // split SoCs: the request this cube core served last
    bool serves = false;
};

struct Agent {
    uint64_t version = 0;
    int stall_cause = -1;
    double stall_since = 0;
};

struct Transfer {
    int agent = 0;
    double remaining = 0;
    double total = 0;
    double cap = 0;
    double rate = 0;
    double weight = 1;         // its share of the arbiter counts this many times (GM bytes per byte its pipe takes)
    uint32_t fill = 0;         // the lines of L2 read `fill` arrive with it, in order (0: none)
    std::vector<std::pair<double, int>> waiters;  // (bytes moved, pipe agent): a read waiting for a line of it
};

// Bytes shared max-min fairly among the transfers active at each moment: the chip's GM, or its L2.
struct Arbiter {
    double capacity = 0;       // bytes per cycle
    std::vector<Transfer> transfers;
    double time = 0;           // when `remaining` was last brought up to date
};
constexpr int kGmArbiter = 0;
constexpr int kL2Arbiter = 1;

// The GM bytes an instruction touches: `count` GmSpan records, of which the part-th of `parts` equal shares of
// each record's bytes (in address order): a whole DMA is part 0 of 1, a Matmul pipeline chunk j of n.
struct AccessRef {
    const GmSpan* first = nullptr;
    uint32_t count = 0;
    uint64_t part = 0;
    uint64_t parts = 1;
};

// The chip's L2 cache: fully associative, least recently used line replaced (see the file comment).
class L2Cache {
public:
    L2Cache(uint64_t lines, uint64_t line_bytes) : capacity_(lines), line_(line_bytes) {}

    uint64_t line_bytes() const { return line_; }

    // True when `line` is resident (it becomes the most recent; *fill: the read that brought it in, 0 for a
    // write, *pos: the line's place among that read's lines from GM); otherwise allocates it as line *pos of read
    // *fill when `allocate`. A write (`set_fill`) makes a resident line's data its own (fill 0).
    bool Touch(uint64_t line, bool allocate, uint32_t* fill, uint32_t* pos, bool set_fill = false)
    {
        auto it = index_.find(line);
        if (it != index_.end()) {
            Unlink(it->second);
            PushFront(it->second);
            Node& n = nodes_[it->second];
            if (set_fill) n.fill = *fill;
            *fill = n.fill;
            *pos = n.pos;
            return true;
        }
        if (!allocate || capacity_ == 0) return false;
        uint32_t slot;
        if (nodes_.size() < capacity_) {
            slot = static_cast<uint32_t>(nodes_.size());
            nodes_.push_back(Node());
        } else {
            slot = tail_;  // the least recently used line leaves
            index_.erase(nodes_[slot].line);
            Unlink(slot);
        }
        nodes_[slot].line = line;
        nodes_[slot].fill = *fill;
        nodes_[slot].pos = *pos;
        index_.emplace(line, slot);
        PushFront(slot);
        return false;
    }

private:
    static constexpr uint32_t kNone = 0xFFFFFFFFu;
    struct Node {
        uint64_t line = 0;
        uint32_t fill = 0;
        uint32_t pos = 0;
        uint32_t prev = kNone;
        uint32_t next = kNone;
    };
    void Unlink(uint32_t i)
    {
        Node& n = nodes_[i];
        if (n.prev != kNone) nodes_[n.prev].next = n.next; else head_ = n.next;
        if (n.next != kNone) nodes_[n.next].prev = n.prev; else tail_ = n.prev;
        n.prev = n.next = kNone;
    }
    void PushFront(uint32_t i)
    {
        Node& n = nodes_[i];
        n.prev = kNone;
        n.next = head_;
        if (head_ != kNone) nodes_[head_].prev = i;
        head_ = i;
        if (tail_ == kNone) tail_ = i;
    }

    uint64_t capacity_;
    uint64_t line_;
    std::vector<Node> nodes_;
    std::unordered_map<uint64_t, uint32_t> index_;
    uint32_t head_ = kNone;  // most recent
    uint32_t tail_ = kNone;  // least recent
};

// What a read found in the L2.
struct L2Split {
    double miss_bytes = 0;     // the read's bytes in lines that missed
    uint64_t miss_lines = 0;   // lines read from GM
    // other reads whose lines it hit while they were still on their way from GM: (read, bytes of that read's GM
    // part that must have moved for the last such line to be there)
    std::vector<std::pair<uint32_t, double>> pending;
};

struct SyncGroup {
    std::vector<int> members;
    std::vector<uint32_t> arrived;
    std::vector<double> last_arrival;
    std::vector<double> release;
};

struct FlagKey {
    int core;
    Pipe src;
    Pipe dst;
    int8_t id;
    uint64_t handle;
    bool operator==(const FlagKey& o) const
    {
        return core == o.core && src == o.src && dst == o.dst && id == o.id && handle == o.handle;
    }
};
struct FlagKeyHash {
    size_t operator()(const FlagKey& k) const
    {
        uint64_t h = static_cast<uint64_t>(k.core) * 0x9E3779B97F4A7C15ull;
        h ^= (static_cast<uint64_t>(k.src) << 8 | static_cast<uint64_t>(k.dst) << 16 |
              static_cast<uint64_t>(static_cast<uint8_t>(k.id)) << 24) +
             0x7F4A7C15ull + (h << 6) + (h >> 2);
        h ^= k.handle * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
        return static_cast<size_t>(h);
    }
};

struct FlagSlot {
    uint32_t sets = 0;
    uint32_t waits = 0;
    std::vector<double> fire;                                // per set: fire time (kInf until known)
    std::unordered_map<uint32_t, std::vector<int>> waiters;  // set index -> agents
};

class Simulator {
public:
    Simulator(const std::vector<CoreTrace>& traces, const TimelineParams& p, const TimelineOptions& o)
        : traces_(traces), p_(p), o_(o), synth_(std::make_shared<std::deque<TraceEvent>>())
    {
        const size_t n = traces.size();
        pipes_.resize(n * kPipeCount);
        scalars_.resize(n);
        agents_.resize(n * kPipeCount + 2);
        arbiters_[kGmArbiter].capacity = p.gm_bytes_per_cycle;
        arbiters_[kL2Arbiter].capacity = p.l2_bytes_per_cycle;
        if (p.l2_bytes > 0 && p.l2_line_bytes >= 1 && p.l2_bytes_per_cycle > 0) {
            const uint64_t line = static_cast<uint64_t>(p.l2_line_bytes);
            l2_ = std::make_unique<L2Cache>(static_cast<uint64_t>(p.l2_bytes) / line, line);
        }
        sync_index_.resize(n);
        last_scalar_.assign(n, 0);
        last_scalar_valid_.assign(n, false);
        out_.params = p;
        out_.cores.resize(n);
        for (size_t c = 0; c < n; ++c) {
            out_.cores[c].core = traces[c].core;
            out_.cores[c].is_cube = traces[c].is_cube;
            sync_index_[c].assign(traces[c].events.size(), 0);
        }
        Prepare();
    }

    LaunchTimeline Run()
    {
        for (size_t c = 0; c < traces_.size(); ++c) {
            Wake(ScalarAgent(static_cast<int>(c)), 0);
        }
        while (!heap_.empty()) {
            const Wakeup w = heap_.top();
            heap_.pop();
            if (w.version != agents_[w.agent].version) continue;
            now_ = std::max(now_, w.time);
            if (w.agent >= ArbiterAgent(0)) {
                BandwidthTimer(w.agent - ArbiterAgent(0));
            } else {
                Step(w.agent);
            }
        }
        CheckFinished();
        Finish();
        out_.synthetic = synth_;
        return std::move(out_);
    }

private:
    struct Wakeup {
        double time;
        uint64_t seq;
        int agent;
        uint64_t version;
        bool operator<(const Wakeup& o) const  // std::priority_queue is a max-heap
        {
            if (time != o.time) return time > o.time;
            return seq > o.seq;
        }
    };

    // ---- agents ----
    int ScalarAgent(int core) const { return core * kPipeCount + kS; }
    int PipeAgent(int core, int pipe) const { return core * kPipeCount + pipe; }
    int ArbiterAgent(int k) const { return static_cast<int>(traces_.size()) * kPipeCount + k; }
    static int CoreOf(int agent) { return agent / kPipeCount; }
    static int PipeOf(int agent) { return agent % kPipeCount; }

    void Wake(int agent, double t)
    {
        Agent& a = agents_[agent];
        ++a.version;
        heap_.push(Wakeup{std::max(t, now_), seq_++, agent, a.version});
    }

    int CauseId(const std::string& s)
    {
        auto it = cause_ids_.find(s);
        if (it != cause_ids_.end()) return it->second;
        const int id = static_cast<int>(out_.causes.size());
        out_.causes.push_back(s);
        cause_ids_[s] = id;
        return id;
    }

    void BeginStall(int agent, int cause)
    {
        Agent& a = agents_[agent];
        if (a.stall_cause == cause) return;
        EndStall(agent);
        a.stall_cause = cause;
        a.stall_since = now_;
    }

    void EndStall(int agent)
    {
        Agent& a = agents_[agent];
        if (a.stall_cause < 0) return;
        const double d = now_ - a.stall_since;
        if (d > 0) {
            CoreTimeline& ct = out_.cores[CoreOf(agent)];
            PipeSummary& ps = ct.pipes[PipeOf(agent)];
            ps.stalled += d;
            ps.stall_by_cause[static_cast<uint32_t>(a.stall_cause)] += d;
            if (o_.record) {
                ct.stalls.push_back(StallSpan{static_cast<Pipe>(PipeOf(agent)), a.stall_since, now_,
                                              static_cast<uint32_t>(a.stall_cause)});
            }
        }
        a.stall_cause = -1;
    }

    // ---- preparation: the programs, requests and SyncAll indices ----
    void Prepare()
    {
        // Which handles are requests, who issued them, and which trace holds their work.
        std::map<uint64_t, std::vector<const TraceEvent*>> raw;
        for (size_t ci = 0; ci < traces_.size(); ++ci) {
            const int c = static_cast<int>(ci);
            const auto& ev = traces_[ci].events;
            std::unordered_map<uint8_t, uint32_t> syncs;
            for (uint32_t i = 0; i < ev.size(); ++i) {
                const TraceEvent& e = ev[i];
                if (e.kind == TraceKind::kInstr && e.gm > 0 && e.gm_count > 0 &&
                    static_cast<uint64_t>(e.gm) - 1 + e.gm_count <= traces_[ci].gm.size()) {
                    refs_[&e] = AccessRef{&traces_[ci].gm[e.gm - 1], e.gm_count, 0, 1};
                }
                if (e.kind == TraceKind::kSyncAll) {
                    SyncGroup& g = groups_[e.group];
                    if (g.members.empty() || g.members.back() != c) g.members.push_back(c);
                    sync_index_[ci][i] = syncs[e.group]++;
                }
                if (e.kind == TraceKind::kCubeRequest) {
                    requests_[e.handle].requester = c;
                } else if (e.handle != 0 && e.kind != TraceKind::kCubeWait) {
                    Request& r = requests_[e.handle];
                    if (r.server < 0) r.server = c;
                    if (r.server == c) {
                        raw[e.handle].push_back(&e);
                        continue;  // the request's work, not the core's own program
                    }
                }
                scalars_[ci].own.push_back(&e);
            }
        }
        for (auto& kv : requests_) {
            Request& r = kv.second;
            // Coupled SoCs run a request on the requesting core; so does any request recorded on that core itself.
            r.coupled = r.server >= 0 && (p_.coupled || r.server == r.requester);
            r.program = Expand(raw[kv.first]);
            for (const TraceEvent* e : r.program) {
                if (e->kind == TraceKind::kInstr) ++r.total_instrs;
            }
            if (r.server >= 0 && !r.coupled) scalars_[r.server].serves = true;
            if (r.server >= 0 && r.coupled && r.server != r.requester) out_.cores[r.server].absorbed = true;
        }
        for (size_t ci = 0; ci < traces_.size(); ++ci) {
            scalars_[ci].stack.push_back(Frame{&scalars_[ci].own, 0, -1});
        }
        for (auto& g : groups_) {
            size_t most = 0;
            for (size_t c = 0; c < traces_.size(); ++c) {
                size_t k = 0;
                for (const auto& e : traces_[c].events) {
                    if (e.kind == TraceKind::kSyncAll && e.group == g.first) ++k;
                }
                most = std::max(most, k);
            }
            g.second.arrived.assign(most, 0);
            g.second.last_arrival.assign(most, 0);
            g.second.release.assign(most, kInf);
        }
    }

    const TraceEvent* Synth(const TraceEvent& base, TraceKind kind, Pipe pipe, Pipe src, Pipe dst, int8_t id,
                            InstrClass cls, uint64_t count)
    {
        TraceEvent e = base;
        e.kind = kind;
        e.pipe = pipe;
        e.src_pipe = src;
        e.dst_pipe = dst;
        e.event_id = id;
        e.cls = cls;
        e.count = count;
        e.bursts = 1;
        synth_->push_back(e);
        return &synth_->back();
    }

    // A request's program. Recorded with its own flags: as recorded. Recorded coarse (one instruction per pipe,
    // no flags): the Matmul API's software pipeline over chunks (see the file comment).
    Program Expand(const std::vector<const TraceEvent*>& raw)
    {
        Program out;
        bool synced = false;
        const TraceEvent* mmad = nullptr;
        for (const TraceEvent* e : raw) {
            if (e->kind != TraceKind::kInstr) synced = true;
            if (e->kind == TraceKind::kInstr && e->cls == InstrClass::kCubeMmad) mmad = e;
        }
        if (synced || mmad == nullptr) return raw;
        uint64_t load = 0, l1l0 = 0, macs = 0, fix = 0, out_gm = 0, out_dmas = 0, out_bursts = 0;
        uint64_t load_dmas = 0, load_bursts = 0;
        // ascend310p: an int8 B turned in UB (V) and copied to L1 (MTE3) on its way: bytes, instructions and
        // repeats / bursts of each (0 instructions: none)
        struct Staged {
            uint64_t bytes = 0, instrs = 0, bursts = 0;
            void Add(const TraceEvent& e)
            {
                bytes += e.count;
                instrs += std::max<uint32_t>(1, e.instrs);
                bursts += e.bursts;
            }
        } turn, to_l1;
        Pipe fix_pipe = Pipe::kFix;
        // the GM accesses of the request's loads and of its result, each pipeline chunk taking its share
        owned_.emplace_back();
        std::vector<GmSpan>& reads = owned_.back();
        owned_.emplace_back();
        std::vector<GmSpan>& writes = owned_.back();
        auto collect = [&](const TraceEvent* e, std::vector<GmSpan>& into) {
            auto it = refs_.find(e);
            if (it != refs_.end()) into.insert(into.end(), it->second.first, it->second.first + it->second.count);
        };
        for (const TraceEvent* e : raw) {
            switch (e->cls) {
            case InstrClass::kDmaGmToL1:
                load += e->count;
                load_dmas += e->instrs;
                load_bursts += e->instrs > 0 ? e->bursts : 0;
                collect(e, reads);
                break;
            case InstrClass::kVecTransData: turn.Add(*e); break;
            case InstrClass::kDmaUbToL1: to_l1.Add(*e); break;
            case InstrClass::kDmaL1ToL0: l1l0 += e->count; break;
            case InstrClass::kCubeMmad: macs += e->count; break;
            case InstrClass::kFixOut:
                fix += e->count;
                fix_pipe = e->pipe;
                if (e->pipe == Pipe::kFix) collect(e, writes);
                break;
            case InstrClass::kDmaUbToGm:
                out_gm += e->count;
                out_dmas += e->out_dmas;
                out_bursts += e->out_dmas > 0 ? e->bursts : 0;
                collect(e, writes);
                break;
            default: out.push_back(e); break;  // anything else first, as recorded
            }
        }
        auto refer = [&](const std::vector<GmSpan>& list, uint64_t part, uint64_t parts) {
            if (!list.empty()) refs_[out.back()] = AccessRef{list.data(), static_cast<uint32_t>(list.size()), part, parts};
        };
        auto chunks_for = [](uint64_t bytes, double room) {
            return room > 0 ? static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) / room)) : 1;
        };
        // A request whose base blocks run one after another (serial_blocks) keeps them as its blocks: each waits
        // for the previous one's C write-back, so they are not merged.
        const uint64_t serial = mmad->serial_blocks;
        uint64_t blocks = serial > 0 ? serial : std::max<uint64_t>(1, chunks_for(fix, p_.l0c_bytes / 2));
        const uint64_t steps_total = std::max<uint64_t>(
            {1, chunks_for(load, p_.l1_bytes / 2), chunks_for(l1l0, (p_.l0a_bytes + p_.l0b_bytes) / 2)});
        uint64_t steps = std::max<uint64_t>(1, (steps_total + blocks - 1) / blocks);
        while (blocks * steps > kMaxMatmulChunks && (steps > 1 || serial == 0)) {
            if (steps > 1) {
                steps = (steps + 1) / 2;
            } else {
                blocks = (blocks + 1) / 2;
            }
        }
        const uint64_t n = blocks * steps;
        auto share = [](uint64_t total, uint64_t i, uint64_t parts) { return total * (i + 1) / parts - total * i / parts; };
        const TraceEvent& b = *mmad;
        auto set = [&](Pipe src, Pipe dst, int8_t id) {
            out.push_back(Synth(b, TraceKind::kSetFlag, src, src, dst, id, InstrClass::kNone, 0));
        };
        auto wait = [&](Pipe src, Pipe dst, int8_t id) {
            out.push_back(Synth(b, TraceKind::kWaitFlag, dst, src, dst, id, InstrClass::kNone, 0));
        };
        auto instr = [&](Pipe pipe, InstrClass cls, uint64_t count) {
            out.push_back(Synth(b, TraceKind::kInstr, pipe, pipe, pipe, 0, cls, count));
        };
        for (uint64_t j = 0; j < n; ++j) {
            const int8_t slot = static_cast<int8_t>(j % 2);
            const uint64_t blk = j / steps;
            const uint64_t step = j % steps;
            const int8_t bslot = static_cast<int8_t>(blk % 2);
            // MTE2: the chunk's operands into an L1 half, once MTE1 moved that half's previous chunk on
            if (j >= 2) wait(Pipe::kMte1, Pipe::kMte2, slot);
            if (turn.instrs > 0 && j >= 1) wait(Pipe::kV, Pipe::kMte2, 18);
            instr(Pipe::kMte2, InstrClass::kDmaGmToL1, share(load, j, n));
            auto counts = [&](uint64_t instrs, uint64_t bursts) {
                // the chunk's share of the instructions it stands for (each issued by the scalar unit) and bursts
                synth_->back().instrs = static_cast<uint32_t>(std::max<uint64_t>(1, share(instrs, j, n)));
                synth_->back().bursts = static_cast<uint32_t>(std::max<uint64_t>(1, share(bursts, j, n)));
            };
            if (load_dmas > 0) counts(load_dmas, load_bursts);
            refer(reads, j, n);
            Pipe to_mte1 = Pipe::kMte2;
            if (turn.instrs > 0) {
                // B's rows in UB turned (V) once they arrived and once the previous chunk's turned tile left UB, then
                // copied to L1 (MTE3), which MTE1 waits for (B's L1 queue on v200: an MTE3 -> MTE1 flag); the next
                // chunk's rows go into UB once this chunk's turn read them (the API has one staging area and sets no
                // flag there: taken as not overwritten while it is read)
                set(Pipe::kMte2, Pipe::kV, 16);
                wait(Pipe::kMte2, Pipe::kV, 16);
                if (j >= 1) wait(Pipe::kMte3, Pipe::kV, 17);
                instr(Pipe::kV, InstrClass::kVecTransData, share(turn.bytes, j, n));
                counts(turn.instrs, turn.bursts);
                if (j + 1 < n) set(Pipe::kV, Pipe::kMte2, 18);
                set(Pipe::kV, Pipe::kMte3, 19);
                wait(Pipe::kV, Pipe::kMte3, 19);
                instr(Pipe::kMte3, InstrClass::kDmaUbToL1, share(to_l1.bytes, j, n));
                counts(to_l1.instrs, to_l1.bursts);
                if (j + 1 < n) set(Pipe::kMte3, Pipe::kV, 17);
                to_mte1 = Pipe::kMte3;
            }
            set(to_mte1, Pipe::kMte1, static_cast<int8_t>(2 + slot));
            // MTE1: into an L0A / L0B half, once M used that half's previous chunk
            wait(to_mte1, Pipe::kMte1, static_cast<int8_t>(2 + slot));
            if (j >= 2) wait(Pipe::kM, Pipe::kMte1, static_cast<int8_t>(4 + slot));
            instr(Pipe::kMte1, InstrClass::kDmaL1ToL0, share(l1l0, j, n));
            set(Pipe::kMte1, Pipe::kMte2, slot);
            set(Pipe::kMte1, Pipe::kM, static_cast<int8_t>(6 + slot));
            // M: accumulate into an L0C half, once its previous block went out
            wait(Pipe::kMte1, Pipe::kM, static_cast<int8_t>(6 + slot));
            if (step == 0 && blk >= 2) wait(fix_pipe, Pipe::kM, static_cast<int8_t>(8 + bslot));
            instr(Pipe::kM, InstrClass::kCubeMmad, share(macs, j, n));
            set(Pipe::kM, Pipe::kMte1, static_cast<int8_t>(4 + slot));
            if (step + 1 == steps) {
                // the block's result out of L0C (and, without a fixpipe, from UB to GM)
                set(Pipe::kM, fix_pipe, static_cast<int8_t>(10 + bslot));
                wait(Pipe::kM, fix_pipe, static_cast<int8_t>(10 + bslot));
                instr(fix_pipe, InstrClass::kFixOut, share(fix, blk, blocks));
                if (fix_pipe == Pipe::kFix) refer(writes, blk, blocks);
                set(fix_pipe, Pipe::kM, static_cast<int8_t>(8 + bslot));
                if (out_gm > 0) {
                    set(fix_pipe, Pipe::kMte3, static_cast<int8_t>(12 + bslot));
                    wait(fix_pipe, Pipe::kMte3, static_cast<int8_t>(12 + bslot));
                    if (out_dmas == 0) {
                        instr(Pipe::kMte3, InstrClass::kDmaUbToGm, share(out_gm, blk, blocks));
                        refer(writes, blk, blocks);
                    } else {
                        // the block's write-back as its DMA instructions (one per C row), each with its bursts
                        const uint64_t first = out_dmas * blk / blocks, dmas = share(out_dmas, blk, blocks);
                        for (uint64_t i = first; i < first + dmas; ++i) {
                            instr(Pipe::kMte3, InstrClass::kDmaUbToGm, share(out_gm, i, out_dmas));
                            synth_->back().bursts = static_cast<uint32_t>(std::max<uint64_t>(
                                1, share(out_bursts, i, out_dmas)));
                            refer(writes, i, out_dmas);
                        }
                        // the write-back's MTE3 -> V pair: the V pipe goes on once the rows are in GM
                        set(Pipe::kMte3, Pipe::kV, 15);
                        wait(Pipe::kMte3, Pipe::kV, 15);
                    }
                    if (serial > 0) {
                        // the API's MTE3 -> MTE2 pair after the block: the next block's loads follow its C
                        set(Pipe::kMte3, Pipe::kMte2, 14);
                        wait(Pipe::kMte3, Pipe::kMte2, 14);
                    }
                }
            }
        }
        return out;
    }

    // ---- costs ----
    Cost CostOf(const TraceEvent& e) const
    {
        Cost c;
        const double count = static_cast<double>(e.count);
        // A vector instruction's repeats: the trace's bursts when recorded (the emulator records the 256-byte
        // repeats it issues: ceil(count x width / 256) for count forms, repeatTimes for level-0 forms, whose
        // masked iterations cost whole repeats), else derived from count and width.
        auto repeats = [&]() {
            if (e.bursts > 0) {
                return static_cast<double>(e.bursts);
            }
            if (e.elem_bytes > 0 && e.count > 0) {
                return std::ceil(count * e.elem_bytes / p_.vector_bytes_per_repeat);
            }
            return 1.0;
        };
        const double bursts = std::max(1.0, static_cast<double>(e.bursts));
        c.work = count;
        switch (e.cls) {
        case InstrClass::kDmaGmToUb:
        case InstrClass::kDmaGmToL1:
            c.setup = bursts * p_.dma_burst_cycles;
            c.gm_bytes = count;
            c.cap = p_.mte2_bytes_per_cycle;
            c.latency = p_.dma_latency_cycles;
            c.read = true;
            break;
        case InstrClass::kDmaUbToGm:
            c.setup = bursts * p_.dma_burst_cycles;
            c.gm_bytes = count;
            c.cap = p_.mte3_bytes_per_cycle;
            c.latency = p_.dma_latency_cycles;
            break;
        case InstrClass::kFixOut:
            if (p_.fix_to_gm) {
                c.setup = bursts * p_.dma_burst_cycles;
                c.gm_bytes = count;
                c.cap = p_.fix_bytes_per_cycle;
                c.latency = p_.dma_latency_cycles;
            } else {
                c.setup = p_.dma_burst_cycles + count / p_.fix_bytes_per_cycle;
                c.latency = p_.pipeline_latency_cycles;
            }
            break;
        case InstrClass::kDmaUbToUb:
            c.setup = p_.vec_instr_cycles +
                      std::ceil(count / p_.vector_bytes_per_repeat) * p_.vec_elementwise_cycles_per_repeat;
            c.latency = p_.pipeline_latency_cycles;
            break;
        case InstrClass::kDmaL1ToL0:
            c.setup = p_.dma_burst_cycles + count / p_.mte1_bytes_per_cycle;
            c.latency = p_.pipeline_latency_cycles;
            break;
        case InstrClass::kDmaL1ToUb:
            // on chip: a set-up per burst, the bytes at the L1 -> UB rate
            c.setup = bursts * p_.dma_burst_cycles + count / p_.l1_to_ub_bytes_per_cycle;
            c.latency = p_.pipeline_latency_cycles;
            break;
        case InstrClass::kDmaUbToL1:
            // on chip: a set-up per burst, the bytes at the UB -> L1 rate
            c.setup = bursts * p_.dma_burst_cycles + count / p_.ub_to_l1_bytes_per_cycle;
            c.latency = p_.pipeline_latency_cycles;
            break;
        case InstrClass::kVecTransData: {
            // its instructions, each behind a PipeBarrier<V> on the one before (TransDataNDBMatrix)
            const double instrs = std::max(1.0, static_cast<double>(e.instrs));
            c.setup = instrs * p_.vec_instr_cycles + (instrs - 1) * p_.pipeline_latency_cycles +
                      repeats() * p_.vec_elementwise_cycles_per_repeat;
            c.work = repeats() * p_.vector_bytes_per_repeat;
            c.latency = p_.pipeline_latency_cycles;
            break;
        }
        case InstrClass::kVecElementwise:
            c.setup = p_.vec_instr_cycles + repeats() * p_.vec_elementwise_cycles_per_repeat;
            c.work = repeats() * p_.vector_bytes_per_repeat;
            c.latency = p_.pipeline_latency_cycles;
            break;
        case InstrClass::kVecDiv:
            c.setup = p_.vec_instr_cycles + repeats() * p_.vec_div_cycles_per_repeat;
            c.work = repeats() * p_.vector_bytes_per_repeat;
            c.latency = p_.pipeline_latency_cycles;
            break;
        case InstrClass::kVecCast:
            c.setup = p_.vec_instr_cycles + repeats() * p_.vec_cast_cycles_per_repeat;
            c.work = repeats() * p_.vector_bytes_per_repeat;
            c.latency = p_.pipeline_latency_cycles;
            break;
        case InstrClass::kVecReduce:
            c.setup = p_.vec_instr_cycles + repeats() * p_.vec_reduce_cycles_per_repeat;
            c.work = repeats() * p_.vector_bytes_per_repeat;
            c.latency = p_.pipeline_latency_cycles;
            break;
        case InstrClass::kCubeMmad:
            c.setup = std::max(1.0, std::ceil(count / p_.cube_macs_per_cycle));
            c.latency = p_.pipeline_latency_cycles;
            break;
        case InstrClass::kScalarUb:
            c.setup = std::max(1.0, count) * p_.scalar_ub_access_cycles;
            break;
        case InstrClass::kScalarGm:
            c.setup = std::max(1.0, count) * p_.scalar_gm_access_cycles;
            break;
        case InstrClass::kScalarOther:
            c.setup = count;
            break;
        case InstrClass::kNone:
        default:
            c.setup = e.pipe == Pipe::kS ? 1.0 : p_.vec_instr_cycles;
            c.latency = e.pipe == Pipe::kS ? 0.0 : p_.pipeline_latency_cycles;
            break;
        }
        return c;
    }

    // ---- the scalar unit ----
    // The next event of core c's scalar unit, or nullptr: *state = 0 event, 1 nothing now (a cube core between
    // requests), 2 finished.
    const TraceEvent* NextEvent(int c, int* state)
    {
        ScalarState& s = scalars_[c];
        const int agent = ScalarAgent(c);
        for (;;) {
            if (!s.stack.empty()) {
                Frame& f = s.stack.back();
                if (f.pos < f.program->size()) {
                    *state = 0;
                    return (*f.program)[f.pos];
                }
                if (f.request >= 0) {
                    Request& r = requests_[static_cast<uint64_t>(f.request)];
                    r.issued_all = true;
                    MaybeCompleteRequest(static_cast<uint64_t>(f.request));
                }
                s.stack.pop_back();
                continue;
            }
            if (!s.serves) {
                *state = 2;
                return nullptr;
            }
            // A cube core: the previous request must be complete before the next is taken.
            if (s.last_served >= 0) {
                Request& prev = requests_[static_cast<uint64_t>(s.last_served)];
                if (prev.completion == kInf) {
                    *state = 1;  // MaybeCompleteRequest wakes us
                    return nullptr;
                }
                if (prev.completion - p_.cube_message_cycles > now_) {
                    Wake(agent, prev.completion - p_.cube_message_cycles);
                    *state = 1;
                    return nullptr;
                }
            }
            // The request that arrived first (ties: lower requesting core, then handle).
            int64_t best = -1;
            bool pending = false;
            double soonest = kInf;
            for (auto& kv : requests_) {
                Request& r = kv.second;
                if (r.server != c || r.coupled || r.started) continue;
                pending = true;
                if (r.arrival > now_) {
                    soonest = std::min(soonest, r.arrival);
                    continue;
                }
                if (best < 0 || std::make_tuple(r.arrival, r.requester, kv.first) <
                                    std::make_tuple(requests_[static_cast<uint64_t>(best)].arrival,
                                                    requests_[static_cast<uint64_t>(best)].requester,
                                                    static_cast<uint64_t>(best))) {
                    best = static_cast<int64_t>(kv.first);
                }
            }
            if (best < 0) {
                *state = pending ? 1 : 2;
                if (pending && soonest < kInf) Wake(agent, soonest);
                return nullptr;  // otherwise a requester wakes us
            }
            Request& r = requests_[static_cast<uint64_t>(best)];
            r.started = true;
            s.last_served = best;
            s.stack.push_back(Frame{&r.program, 0, best});
        }
    }

    void AdvanceScalar(int c)
    {
        ScalarState& s = scalars_[c];
        s.issue_paid = false;
        ++s.stack.back().pos;
    }

    // Scalar busy spans; consecutive issue spans merge into one (the picture shows "issuing", not each call).
    void RecordScalarBusy(int c, const TraceEvent* e, double start, double end, bool issue)
    {
        CoreTimeline& ct = out_.cores[c];
        ct.pipes[kS].busy += end - start;
        if (!o_.record || end <= start) return;
        if (issue && last_scalar_valid_[c]) {
            TimedInstr& last = ct.instrs[last_scalar_[c]];
            if (last.end == start) {
                last.end = end;
                last.busy_end = end;
                return;
            }
        }
        last_scalar_[c] = ct.instrs.size();
        last_scalar_valid_[c] = issue;
        ct.instrs.push_back(TimedInstr{e, Pipe::kS, start, end, end, issue});
    }

    void StepScalar(int c)
    {
        ScalarState& s = scalars_[c];
        const int agent = ScalarAgent(c);
        if (s.done) return;
        for (;;) {
            if (s.busy_until > now_) {
                Wake(agent, s.busy_until);
                return;
            }
            int state = 0;
            const TraceEvent* ep = NextEvent(c, &state);
            if (state == 2) {
                EndStall(agent);
                s.done = true;
                s.done_time = now_;
                return;
            }
            if (state == 1) {
                EndStall(agent);  // waiting for a request is idleness, not a stall
                return;
            }
            const TraceEvent& e = *ep;
            // The scalar unit's own instructions cost their access cycles and nothing else.
            if (e.kind == TraceKind::kInstr && e.pipe == Pipe::kS) {
                EndStall(agent);
                const Cost cost = CostOf(e);
                const double start = now_;
                s.busy_until = now_ + cost.setup;
                RecordScalarBusy(c, &e, start, s.busy_until, false);
                ++out_.cores[c].pipes[kS].instructions;
                out_.cores[c].pipes[kS].work += cost.work;
                if (e.handle != 0) InstrFinished(e.handle, s.busy_until);
                AdvanceScalar(c);
                continue;
            }
            if (!s.issue_paid) {
                EndStall(agent);
                s.issue_paid = true;
                // Pairs match first-in first-out in issue order (a cube core issues in service order).
                if (e.kind == TraceKind::kSetFlag || e.kind == TraceKind::kWaitFlag) {
                    FlagSlot& f = flags_[Key(c, e)];
                    s.flag = e.kind == TraceKind::kSetFlag ? f.sets++ : f.waits++;
                }
                // an event that stands for several instructions (a Matmul load's share) costs each one's issue; a
                // TransDataTo5HD its address lists and VA registers too
                const double instrs = std::max<uint32_t>(1, e.instrs);
                s.busy_until = now_ + instrs * (p_.scalar_issue_cycles + (e.cls == InstrClass::kVecTransData
                                                                              ? p_.trans_data_scalar_cycles
                                                                              : 0.0));
                RecordScalarBusy(c, &e, now_, s.busy_until, true);
                continue;
            }
            switch (e.kind) {
            case TraceKind::kInstr:
                if (!Push(c, e.pipe, Item{&e, 0})) return;
                break;
            case TraceKind::kSetFlag:
                if (e.src_pipe == Pipe::kS) {
                    Fire(c, e, s.flag, now_ + p_.flag_sync_cycles);
                } else if (!Push(c, e.src_pipe, Item{&e, s.flag})) {
                    return;
                }
                break;
            case TraceKind::kWaitFlag:
                if (e.dst_pipe == Pipe::kS) {
                    if (!FlagReady(c, e, s.flag, agent)) return;
                } else if (!Push(c, e.dst_pipe, Item{&e, s.flag})) {
                    return;
                }
                break;
            case TraceKind::kBarrier:
                if (e.pipe == Pipe::kAll) {
                    if (!Drained(c, e)) return;
                } else if (e.pipe != Pipe::kS) {
                    if (!Push(c, e.pipe, Item{&e, 0})) return;
                }
                break;
            case TraceKind::kSyncAll:
                if (!SyncAllReady(c, e, SyncIndex(c, e))) return;
                break;
            case TraceKind::kCubeRequest:
                EndStall(agent);
                AdvanceScalar(c);
                IssueRequest(c, e);
                continue;
            case TraceKind::kCubeWait:
                if (!RequestDone(c, e)) return;
                break;
            }
            EndStall(agent);
            AdvanceScalar(c);
        }
    }

    uint32_t SyncIndex(int c, const TraceEvent& e) const
    {
        const auto& ev = traces_[c].events;
        return sync_index_[c][static_cast<size_t>(&e - ev.data())];
    }

    static FlagKey Key(int c, const TraceEvent& e) { return FlagKey{c, e.src_pipe, e.dst_pipe, e.event_id, e.handle}; }

    // Pushes an item into a pipe's queue; false (and the scalar unit stalls) when the queue is full.
    bool Push(int c, Pipe pipe, Item item)
    {
        const int pi = PipeIndex(pipe);
        PipeState& ps = pipes_[c * kPipeCount + pi];
        if (ps.queue.size() >= p_.pipe_queue_depth) {
            ps.space_waiter = true;
            BeginStall(ScalarAgent(c), CauseId(std::string("queue full: ") + PipeName(pipe)));
            return false;
        }
        ps.queue.push_back(item);
        Wake(PipeAgent(c, pi), now_);
        return true;
    }

    void Fire(int c, const TraceEvent& e, uint32_t index, double t)
    {
        FlagSlot& f = flags_[Key(c, e)];
        if (f.fire.size() <= index) f.fire.resize(index + 1, kInf);
        f.fire[index] = t;
        auto w = f.waiters.find(index);
        if (w != f.waiters.end()) {
            for (int agent : w->second) Wake(agent, t);
            f.waiters.erase(w);
        }
    }

    std::string WaitCause(const TraceEvent& e) const
    {
        if (e.handle != 0) {  // inside a Matmul request (the API's own ping-pong flags)
            return std::string("Matmul pipeline: wait ") + PipeName(e.src_pipe) + "->" + PipeName(e.dst_pipe) +
                   " at " + Site(e);
        }
        return std::string("wait ") + PipeName(e.src_pipe) + "->" + PipeName(e.dst_pipe) + " id " +
               std::to_string(static_cast<int>(e.event_id)) + " at " + Site(e);
    }

    // True when the WaitFlag may pass now; otherwise registers `agent` and stalls it.
    bool FlagReady(int c, const TraceEvent& e, uint32_t index, int agent)
    {
        FlagSlot& f = flags_[Key(c, e)];
        const double t = index < f.fire.size() ? f.fire[index] : kInf;
        if (t <= now_) return true;
        BeginStall(agent, CauseId(WaitCause(e)));
        if (t < kInf) {
            Wake(agent, t);
        } else {
            f.waiters[index].push_back(agent);
        }
        return false;
    }

    bool Drained(int c, const TraceEvent& e)
    {
        const int agent = ScalarAgent(c);
        double t = 0;
        bool empty = true;
        for (int pi = 0; pi < kPipeCount; ++pi) {
            if (pi == kS) continue;
            const PipeState& ps = pipes_[c * kPipeCount + pi];
            if (ps.active || !ps.queue.empty()) empty = false;
            t = std::max(t, ps.max_end);
        }
        if (empty && t <= now_) return true;
        BeginStall(agent, CauseId("PipeBarrier<ALL> at " + Site(e)));
        if (empty) {
            Wake(agent, t);
        } else {
            scalars_[c].drain_waiter = true;
        }
        return false;
    }

    bool SyncAllReady(int c, const TraceEvent& e, uint32_t n)
    {
        SyncGroup& g = groups_[e.group];
        const int agent = ScalarAgent(c);
        const uint64_t key = (static_cast<uint64_t>(c) << 40) ^ (static_cast<uint64_t>(e.group) << 32) ^ n;
        if (!sync_arrived_.count(key)) {
            sync_arrived_.insert(key);
            g.arrived[n] += 1;
            g.last_arrival[n] = std::max(g.last_arrival[n], now_);
            if (g.arrived[n] == g.members.size()) {
                g.release[n] = g.last_arrival[n] + p_.sync_all_cycles;
                for (int m : g.members) Wake(ScalarAgent(m), g.release[n]);
            }
        }
        if (g.release[n] <= now_) return true;
        BeginStall(agent, CauseId("SyncAll at " + Site(e)));
        if (g.release[n] < kInf) Wake(agent, g.release[n]);
        return false;
    }

    // The scalar unit issued kCubeRequest (its issue cycles are spent).
    void IssueRequest(int c, const TraceEvent& e)
    {
        auto it = requests_.find(e.handle);
        if (it == requests_.end()) return;
        Request& r = it->second;
        if (r.server < 0) {
            // No cube work was recorded for it: it completes with the two messages.
            r.issued_all = true;
            r.completion = now_ + 2 * p_.cube_message_cycles;
            return;
        }
        if (r.coupled) {
            // The AI core runs the request itself: its program is issued next, into this core's pipes.
            r.started = true;
            scalars_[c].stack.push_back(Frame{&r.program, 0, static_cast<int64_t>(e.handle)});
            return;
        }
        r.arrival = now_ + p_.cube_message_cycles;
        Wake(ScalarAgent(r.server), now_);
    }

    bool RequestDone(int c, const TraceEvent& e)
    {
        const int agent = ScalarAgent(c);
        auto it = requests_.find(e.handle);
        if (it == requests_.end()) return true;  // nothing was requested under this handle
        Request& r = it->second;
        if (r.completion <= now_) return true;
        // ascend310p: the AI core's scalar unit issued the request's program itself and is not held until it finishes
        // (the API's write-back ends with pipe flags, MTE3 -> V and MTE3 -> MTE2, which the program carries)
        if (p_.coupled && r.coupled && r.started) return true;
        BeginStall(agent, CauseId("Matmul result (cube) at " + Site(e)));
        if (r.completion < kInf) {
            Wake(agent, r.completion);
        } else {
            r.waiters.push_back(agent);
        }
        return false;
    }

    void InstrFinished(uint64_t handle, double end)
    {
        auto it = requests_.find(handle);
        if (it == requests_.end()) return;
        Request& r = it->second;
        ++r.done_instrs;
        r.max_end = std::max(r.max_end, end);
        MaybeCompleteRequest(handle);
    }

    void MaybeCompleteRequest(uint64_t handle)
    {
        Request& r = requests_[handle];
        if (!r.issued_all || r.done_instrs < r.total_instrs || r.completion < kInf) return;
        const double base = std::max(r.max_end, r.coupled ? 0.0 : r.arrival);
        r.completion = base + (r.coupled ? 0.0 : p_.cube_message_cycles);
        for (int agent : r.waiters) Wake(agent, r.completion);
        r.waiters.clear();
        // The cube core is free for its next request once this one's instructions completed (the completion
        // message is on its way to the requester meanwhile).
        if (!r.coupled && r.server >= 0) Wake(ScalarAgent(r.server), base);
    }

    // ---- pipes ----
    void StepPipe(int c, int pi)
    {
        PipeState& ps = pipes_[c * kPipeCount + pi];
        const int agent = PipeAgent(c, pi);
        CoreTimeline& ct = out_.cores[c];
        for (;;) {
            if (ps.active) {
                if (ps.phase == 0) {
                    if (ps.setup_end > now_) {
                        Wake(agent, ps.setup_end);
                        return;
                    }
                    if (ps.cost.gm_bytes > 0) {
                        ps.phase = 1;
                        StartTransfer(ps, agent);
                        return;
                    }
                    CompleteActive(c, pi, now_);
                } else {
                    if (!ps.transfer_done) return;  // the arbiter wakes us
                    CompleteActive(c, pi, ps.transfer_end);
                }
                continue;
            }
            if (ps.queue.empty()) {
                EndStall(agent);
                if (scalars_[c].drain_waiter) {
                    scalars_[c].drain_waiter = false;
                    Wake(ScalarAgent(c), now_);
                }
                return;
            }
            const Item item = ps.queue.front();
            const TraceEvent& e = *item.ev;
            if (e.kind == TraceKind::kInstr) {
                EndStall(agent);
                PopFront(c, pi);
                ps.active = true;
                ps.cur = item;
                ps.phase = 0;
                ps.start = now_;
                ps.cost = CostOf(e);
                ps.setup_end = now_ + ps.cost.setup;
                ++ct.pipes[pi].instructions;
                continue;
            }
            if (e.kind == TraceKind::kSetFlag) {
                PopFront(c, pi);
                Fire(c, e, item.flag, std::max(now_, ps.max_end) + p_.flag_sync_cycles);
                continue;
            }
            if (e.kind == TraceKind::kWaitFlag) {
                if (!FlagReady(c, e, item.flag, agent)) return;
                EndStall(agent);
                PopFront(c, pi);
                continue;
            }
            if (e.kind == TraceKind::kBarrier) {
                if (ps.max_end > now_) {
                    BeginStall(agent, CauseId(std::string("PipeBarrier<") + PipeName(e.pipe) + "> at " + Site(e)));
                    Wake(agent, ps.max_end);
                    return;
                }
                EndStall(agent);
                PopFront(c, pi);
                continue;
            }
            PopFront(c, pi);  // nothing else is queued on a pipe
        }
    }

    void PopFront(int c, int pi)
    {
        PipeState& ps = pipes_[c * kPipeCount + pi];
        ps.queue.pop_front();
        if (ps.space_waiter) {
            ps.space_waiter = false;
            Wake(ScalarAgent(c), now_);
        }
    }

    void CompleteActive(int c, int pi, double busy_end)
    {
        PipeState& ps = pipes_[c * kPipeCount + pi];
        const double end = busy_end + ps.cost.latency;
        ps.max_end = std::max(ps.max_end, end);
        ps.active = false;
        CoreTimeline& ct = out_.cores[c];
        ct.pipes[pi].busy += busy_end - ps.start;
        ct.pipes[pi].work += ps.cost.work;
        if (o_.record) {
            ct.instrs.push_back(TimedInstr{ps.cur.ev, static_cast<Pipe>(pi), ps.start, busy_end, end, false});
        }
        out_.gm_bytes += ps.cost.gm_bytes;
        if (ps.cur.ev->handle != 0) InstrFinished(ps.cur.ev->handle, end);
    }

    // ---- the L2 cache ----
    // Looks up the bytes of `ref` (its part-th share of each record) line by line. A read counts what missed
    // (allocated as brought in by read `fill`) and which other reads' lines it found still on their way; a write
    // allocates the lines it covers whole.
    void L2Lookup(const AccessRef& ref, bool read, uint32_t fill, L2Split* out)
    {
        const uint64_t line = l2_->line_bytes();
        for (uint32_t k = 0; k < ref.count; ++k) {
            const GmSpan& a = ref.first[k];
            const uint64_t total = a.block_bytes * a.blocks;
            const uint64_t from = total * ref.part / ref.parts;
            const uint64_t to = total * (ref.part + 1) / ref.parts;
            if (a.block_bytes == 0 || from >= to) continue;
            for (uint64_t b = from / a.block_bytes; b * a.block_bytes < to && b < a.blocks; ++b) {
                const uint64_t lo = std::max(from, b * a.block_bytes) - b * a.block_bytes;
                const uint64_t hi = std::min(to, (b + 1) * a.block_bytes) - b * a.block_bytes;
                const uint64_t first = a.addr + b * a.stride + lo;
                const uint64_t end = a.addr + b * a.stride + hi;
                for (uint64_t l = first / line; l * line < end; ++l) {
                    const uint64_t overlap = std::min(end, (l + 1) * line) - std::max(first, l * line);
                    uint32_t f = read ? fill : 0;
                    uint32_t pos = static_cast<uint32_t>(out->miss_lines);
                    if (read) {
                        if (!l2_->Touch(l, true, &f, &pos)) {
                            out->miss_bytes += static_cast<double>(overlap);
                            ++out->miss_lines;
                        } else if (f != 0 && f != fill && fill_done_[f] > now_) {
                            // the line is line `pos` of read f's GM part: there once f moved pos + 1 lines
                            const double need = static_cast<double>(pos + 1) * static_cast<double>(line);
                            auto it = std::find_if(out->pending.begin(), out->pending.end(),
                                                   [&](const std::pair<uint32_t, double>& q) { return q.first == f; });
                            if (it == out->pending.end()) {
                                out->pending.emplace_back(f, need);
                            } else {
                                it->second = std::max(it->second, need);
                            }
                        }
                    } else {
                        l2_->Touch(l, overlap == line, &f, &pos, /*set_fill=*/true);
                    }
                }
            }
        }
    }

    // The active DMA's bytes start moving: split into L2 hits and GM bytes, each part to its arbiter.
    void StartTransfer(PipeState& ps, int agent)
    {
        const double bytes = ps.cost.gm_bytes;
        double gm = bytes, hit = 0, cap = ps.cost.cap, weight = 1;
        uint32_t fill = 0;
        L2Split split;
        const auto ref = l2_ ? refs_.find(ps.cur.ev) : refs_.end();
        if (ref != refs_.end()) {
            if (ps.cost.read) {
                fill = static_cast<uint32_t>(fill_done_.size());
                fill_done_.push_back(kInf);
            }
            L2Lookup(ref->second, ps.cost.read, fill, &split);
            if (ps.cost.read) {
                gm = static_cast<double>(split.miss_lines) * static_cast<double>(l2_->line_bytes());
                hit = std::max(0.0, bytes - split.miss_bytes);
                // the pipe receives its own missed bytes at its GM rate; the rest of their lines is the L2's
                if (split.miss_bytes > 0) {
                    weight = gm / split.miss_bytes;
                    cap = ps.cost.cap * weight;
                }
                if (gm == 0) fill_done_[fill] = now_;  // nothing of it comes from GM
            }
        }
        if (ps.cost.read) out_.gm_read_bytes += bytes;
        out_.ddr_bytes += gm;
        out_.l2_hit_bytes += hit;
        ps.transfer_done = false;
        ps.transfers_left = 0;
        ps.transfer_end = now_;
        if (gm > 0) {
            ++ps.transfers_left;
            AddTransfer(kGmArbiter, agent, gm, cap, fill, weight);
        }
        if (hit > 0) {
            ++ps.transfers_left;
            AddTransfer(kL2Arbiter, agent, hit, p_.mte2_l2_bytes_per_cycle, 0);
        }
        // hits on lines another read is still bringing in from GM: each is there when that read's GM part has moved
        // up to it (the part moves its lines in order)
        if (!split.pending.empty()) {
            AdvanceTransfers(kGmArbiter);
            bool waits = false;
            for (const auto& q : split.pending) {
                for (Transfer& t : arbiters_[kGmArbiter].transfers) {
                    if (t.fill != q.first) continue;
                    if (t.total - t.remaining < q.second - Slack(t)) {
                        ++ps.transfers_left;
                        t.waiters.emplace_back(q.second, agent);
                        waits = true;
                    }
                    break;
                }
            }
            if (waits) Reallocate(kGmArbiter);
        }
        if (ps.transfers_left == 0) {
            ps.transfer_done = true;
            Wake(agent, now_);
        }
    }

    // One part of pipe `agent`'s transfer has moved its bytes.
    void PartDone(int agent)
    {
        PipeState& ps = pipes_[agent];
        ps.transfer_end = std::max(ps.transfer_end, now_);
        if (--ps.transfers_left == 0) {
            ps.transfer_done = true;
            Wake(agent, now_);
        }
    }

    // ---- the GM and L2 arbiters ----
    void AddTransfer(int k, int agent, double bytes, double cap, uint32_t fill, double weight = 1)
    {
        AdvanceTransfers(k);
        arbiters_[k].transfers.push_back(Transfer{agent, bytes, bytes, cap, 0, weight, fill, {}});
        Reallocate(k);
    }

    static double Slack(const Transfer& t) { return 1e-9 * t.total + 1e-6; }

    void AdvanceTransfers(int k)
    {
        Arbiter& a = arbiters_[k];
        const double dt = now_ - a.time;
        if (dt > 0) {
            for (Transfer& t : a.transfers) t.remaining -= t.rate * dt;
        }
        a.time = now_;
    }

    // Max-min fair shares of the arbiter's bandwidth, each capped by its pipe's rate; weighted by the transfers'
    // weights (1 but for L2 misses that bring in more of their lines than their pipe takes: the GM serves lines,
    // so every pipe receives its own bytes at the same rate).
    void Reallocate(int k)
    {
        Arbiter& a = arbiters_[k];
        std::vector<Transfer>& transfers = a.transfers;
        if (transfers.empty()) return;
        std::vector<size_t> order(transfers.size());
        double weights = 0;
        for (size_t i = 0; i < order.size(); ++i) {
            order[i] = i;
            weights += transfers[i].weight;
        }
        std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
            return transfers[x].cap / transfers[x].weight < transfers[y].cap / transfers[y].weight;
        });
        double left = a.capacity;
        for (size_t i = 0; i < order.size(); ++i) {
            Transfer& t = transfers[order[i]];
            const double share = weights > 0 ? left * t.weight / weights : left;
            t.rate = std::min(t.cap, share);
            left -= t.rate;
            weights -= t.weight;
        }
        double next = kInf;
        for (const Transfer& t : transfers) {
            next = std::min(next, now_ + std::max(0.0, t.remaining) / t.rate);
            for (const auto& w : t.waiters) {  // a read waiting for a line of this one
                next = std::min(next, now_ + std::max(0.0, w.first - (t.total - t.remaining)) / t.rate);
            }
        }
        Wake(ArbiterAgent(k), next);
    }

    void BandwidthTimer(int k)
    {
        AdvanceTransfers(k);
        std::vector<Transfer> keep;
        for (Transfer& t : arbiters_[k].transfers) {
            const bool done = t.remaining <= Slack(t);
            // the reads waiting for lines this one has brought in by now go on
            for (size_t i = 0; i < t.waiters.size();) {
                if (done || t.total - t.remaining >= t.waiters[i].first - Slack(t)) {
                    PartDone(t.waiters[i].second);
                    t.waiters[i] = t.waiters.back();
                    t.waiters.pop_back();
                } else {
                    ++i;
                }
            }
            if (done) {
                PartDone(t.agent);
                if (t.fill != 0) fill_done_[t.fill] = now_;  // all its lines are in L2
            } else {
                keep.push_back(std::move(t));
            }
        }
        arbiters_[k].transfers.swap(keep);
        Reallocate(k);
    }

    void Step(int agent)
    {
        const int c = CoreOf(agent);
        const int pi = PipeOf(agent);
        if (pi == kS) {
            StepScalar(c);
        } else {
            StepPipe(c, pi);
        }
    }

    // ---- the end ----
    [[noreturn]] void Hang(int c, const TraceEvent* e, const std::string& what)
    {
        const std::string file = e ? e->file : "";
        const int line = e ? e->line : 0;
        const std::string where = e ? Site(*e) : std::string("(no site)");
        const std::string msg = where + ": [" + p_.soc + " core " + std::to_string(traces_[c].core) +
                                "] timeline: the launch cannot complete: " + what;
        throw EmulatorError(msg, file, line, p_.soc, static_cast<int>(traces_[c].core), what);
    }

    void CheckFinished()
    {
        for (size_t ci = 0; ci < traces_.size(); ++ci) {
            const int c = static_cast<int>(ci);
            const ScalarState& s = scalars_[c];
            if (!s.done) {
                const Agent& a = agents_[ScalarAgent(c)];
                const std::string cause = a.stall_cause >= 0 ? out_.causes[a.stall_cause] : std::string("idle");
                const TraceEvent* e = nullptr;
                if (!s.stack.empty() && s.stack.back().pos < s.stack.back().program->size()) {
                    e = (*s.stack.back().program)[s.stack.back().pos];
                }
                if (e == nullptr) {
                    Hang(c, nullptr, "the cube core waits for a Matmul request that no core issues");
                }
                Hang(c, e, "the scalar unit never gets past this event (" + cause + ")");
            }
            for (int pi = 0; pi < kPipeCount; ++pi) {
                const PipeState& ps = pipes_[c * kPipeCount + pi];
                if (ps.active || !ps.queue.empty()) {
                    const TraceEvent* e = ps.active ? ps.cur.ev : ps.queue.front().ev;
                    Hang(c, e, std::string("pipe ") + PipeName(static_cast<Pipe>(pi)) +
                                   " never gets past this event (a WaitFlag without its SetFlag?)");
                }
            }
        }
    }

    void Finish()
    {
        double worst = 0;
        for (size_t c = 0; c < traces_.size(); ++c) {
            CoreTimeline& ct = out_.cores[c];
            double end = std::max(scalars_[c].done_time, scalars_[c].busy_until);
            for (int pi = 0; pi < kPipeCount; ++pi) {
                end = std::max(end, pipes_[c * kPipeCount + pi].max_end);
            }
            ct.end = end;
            if (end > worst) {
                worst = end;
                out_.slowest = static_cast<uint32_t>(c);
            }
            if (o_.record) {
                std::sort(ct.instrs.begin(), ct.instrs.end(), [](const TimedInstr& a, const TimedInstr& b) {
                    return a.start < b.start || (a.start == b.start && a.pipe < b.pipe);
                });
            }
        }
        out_.cycles = worst;
        out_.time_us = worst / p_.clock_mhz;
    }

    const std::vector<CoreTrace>& traces_;
    TimelineParams p_;
    TimelineOptions o_;
    LaunchTimeline out_;
    std::shared_ptr<std::deque<TraceEvent>> synth_;  // events the model adds (Matmul pipelines)
    double now_ = 0;
    uint64_t seq_ = 0;
    std::priority_queue<Wakeup> heap_;
    std::vector<Agent> agents_;
    std::vector<PipeState> pipes_;
    std::vector<ScalarState> scalars_;
    std::unordered_map<FlagKey, FlagSlot, FlagKeyHash> flags_;
    std::vector<std::vector<uint32_t>> sync_index_;
    std::unordered_map<uint8_t, SyncGroup> groups_;
    std::unordered_set<uint64_t> sync_arrived_;
    std::map<uint64_t, Request> requests_;  // by handle (ordered: deterministic service order)
    std::unordered_map<std::string, int> cause_ids_;
    std::vector<size_t> last_scalar_;
    std::vector<bool> last_scalar_valid_;
    Arbiter arbiters_[2];                              // kGmArbiter, kL2Arbiter
    std::unique_ptr<L2Cache> l2_;                      // null: no L2 modelled
    std::vector<double> fill_done_{0.0};               // per read with L2 lookups (id > 0): when its GM lines came
    std::unordered_map<const TraceEvent*, AccessRef> refs_;  // the GM bytes of the events that recorded them
    std::deque<std::vector<GmSpan>> owned_;          // a Matmul request's accesses, gathered (refs_ point here)
};

}  // namespace

LaunchTimeline SimulateTimeline(const std::vector<CoreTrace>& traces, const TimelineParams& params,
                                const TimelineOptions& options)
{
    Simulator sim(traces, params, options);
    return sim.Run();
}

}  // namespace aqo_emu
