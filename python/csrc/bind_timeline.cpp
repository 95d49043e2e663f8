// Binding of the timeline model (op_kernel/emulator/include/emulator/timeline.h) and of the SoC table's timing
// parameters (op_host/tiling_core/soc_table.h), for ascend_quant_ops.perf:
//   soc_timing(soc)                       -> {parameter: {value, unit, basis, source, meaning, affects_time}}
//   timeline_simulate(traces, soc, scale, detail_core)
//                                         -> the timeline of hand-built traces (lists of event dicts)
//   timeline_last_run(scale, detail_core) -> the timeline of the last emulator run on this thread
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "emulator/emu_context.h"
#include "emulator/emu_trace.h"
#include "emulator/timeline.h"
#include "registry.h"
#include "soc_table.h"
#include "timeline_binding.h"

namespace nb = nanobind;

namespace aqo_bind {

namespace {

template <typename E>
E ParseEnum(const std::string& s, int count, const char* (*name)(E), const char* what)
{
    std::string known;
    for (int i = 0; i < count; ++i) {
        const E v = static_cast<E>(i);
        if (s == name(v)) return v;
        known += (i ? ", " : "") + std::string(name(v));
    }
    throw nb::value_error((std::string("timeline trace: unknown ") + what + " '" + s + "' (known: " + known + ")")
                              .c_str());
}

aqo_emu::Pipe ParsePipe(const std::string& s)
{
    return ParseEnum<aqo_emu::Pipe>(s, static_cast<int>(aqo_emu::Pipe::kCount), &aqo_emu::PipeName, "pipe");
}

template <typename T>
T Get(const nb::dict& d, const char* key, T fallback)
{
    if (!d.contains(key)) return fallback;
    return nb::cast<T>(d[key]);
}

}  // namespace

nb::dict TimelineToDict(const aqo_emu::LaunchTimeline& t, int64_t detail_core)
{
    nb::dict d;
    d["soc"] = t.params.soc;
    d["clock_mhz"] = t.params.clock_mhz;
    d["cycles"] = t.cycles;
    d["time_us"] = t.time_us;
    d["slowest"] = t.slowest;
    d["gm_bytes"] = t.gm_bytes;
    d["gm_read_bytes"] = t.gm_read_bytes;
    d["ddr_bytes"] = t.ddr_bytes;
    d["l2_hit_bytes"] = t.l2_hit_bytes;
    d["gm_bytes_per_cycle"] = t.params.gm_bytes_per_cycle;
    d["l2_bytes_per_cycle"] = t.params.l2_bytes_per_cycle;
    nb::list causes;
    for (const std::string& c : t.causes) causes.append(nb::str(c.c_str()));
    d["causes"] = causes;
    nb::list cores;
    for (size_t i = 0; i < t.cores.size(); ++i) {
        const aqo_emu::CoreTimeline& ct = t.cores[i];
        nb::dict c;
        c["core"] = ct.core;
        c["is_cube"] = ct.is_cube;
        c["absorbed"] = ct.absorbed;
        c["end"] = ct.end;
        nb::dict pipes;
        for (int p = 0; p < aqo_emu::kPipeCount; ++p) {
            const aqo_emu::PipeSummary& ps = ct.pipes[p];
            nb::dict pd;
            pd["busy"] = ps.busy;
            pd["stalled"] = ps.stalled;
            pd["instructions"] = ps.instructions;
            pd["work"] = ps.work;
            nb::dict stalls;
            for (const auto& kv : ps.stall_by_cause) {
                stalls[nb::str(t.causes[kv.first].c_str())] = kv.second;
            }
            pd["stalls"] = stalls;
            pipes[aqo_emu::PipeName(static_cast<aqo_emu::Pipe>(p))] = pd;
        }
        c["pipes"] = pipes;
        cores.append(c);
    }
    d["cores"] = cores;
    const int64_t dc = detail_core == -1 ? static_cast<int64_t>(t.slowest) : detail_core;
    if (dc >= 0 && static_cast<size_t>(dc) < t.cores.size()) {
        const aqo_emu::CoreTimeline& ct = t.cores[static_cast<size_t>(dc)];
        nb::list instrs;
        for (const aqo_emu::TimedInstr& x : ct.instrs) {
            const aqo_emu::TraceEvent& e = *x.ev;
            std::string label = x.issue ? "issue"
                                : (e.kind == aqo_emu::TraceKind::kInstr ? aqo_emu::InstrClassName(e.cls)
                                                                      : aqo_emu::TraceKindName(e.kind));
            std::string file = e.file ? e.file : "";
            const size_t slash = file.find_last_of("/\\");
            if (slash != std::string::npos) file = file.substr(slash + 1);
            instrs.append(nb::make_tuple(aqo_emu::PipeName(x.pipe), x.start, x.busy_end, x.end, label,
                                         file + ":" + std::to_string(e.line)));
        }
        nb::list stalls;
        for (const aqo_emu::StallSpan& s : ct.stalls) {
            stalls.append(nb::make_tuple(aqo_emu::PipeName(s.pipe), s.start, s.end, s.cause));
        }
        nb::dict detail;
        detail["index"] = dc;
        detail["instrs"] = instrs;  // (pipe, start, busy_end, end, class, site)
        detail["stalls"] = stalls;  // (pipe, start, end, cause index)
        d["detail"] = detail;
    }
    return d;
}

std::vector<std::pair<std::string, double>> ScaleFromDict(const nb::dict& scale)
{
    std::vector<std::pair<std::string, double>> out;
    for (auto kv : scale) {
        out.emplace_back(nb::cast<std::string>(kv.first), nb::cast<double>(kv.second));
    }
    return out;
}

namespace {

void RegisterTimeline(nb::module_& m)
{
    m.def(
        "soc_timing",
        [](const std::string& soc) {
            aqo::SocSpec spec;
            if (!aqo::SocFromName(soc.c_str(), &spec)) {
                throw nb::value_error(("unknown SoC '" + soc + "' (known: " + aqo::KnownSocNames() + ")").c_str());
            }
            size_t n = 0;
            const aqo::TimingParamInfo* info = aqo::TimingParamTable(&n);
            const aqo::TimingValue* v = aqo::SocTiming(spec.id);
            nb::dict out;
            for (size_t i = 0; i < n; ++i) {
                nb::dict p;
                p["value"] = v[i].value;
                p["unit"] = info[i].unit;
                p["basis"] = aqo::ParamBasisName(v[i].basis);
                p["source"] = v[i].source;
                p["meaning"] = info[i].meaning;
                p["affects_time"] = info[i].affects_time;
                out[info[i].name] = p;
            }
            return out;
        },
        nb::arg("soc"),
        "The timing parameters of a SoC in the SoC table: name -> {value, unit, basis (source | derived | "
        "assumption), source, meaning, affects_time}.");

    m.def(
        "timeline_simulate",
        [](const nb::list& traces, const std::string& soc, const nb::dict& scale, int64_t detail_core) {
            std::deque<std::string> files;  // the events point into these
            std::vector<aqo_emu::CoreTrace> ts;
            for (nb::handle th : traces) {
                nb::dict td = nb::cast<nb::dict>(th);
                aqo_emu::CoreTrace t;
                t.core = Get<uint32_t>(td, "core", static_cast<uint32_t>(ts.size()));
                t.is_cube = Get<bool>(td, "is_cube", false);
                for (nb::handle eh : nb::cast<nb::list>(td["events"])) {
                    nb::dict ed = nb::cast<nb::dict>(eh);
                    aqo_emu::TraceEvent e;
                    e.kind = ParseEnum<aqo_emu::TraceKind>(Get<std::string>(ed, "kind", "instr"), 7, &aqo_emu::TraceKindName,
                                                           "event kind");
                    e.pipe = ParsePipe(Get<std::string>(ed, "pipe", "S"));
                    e.src_pipe = ParsePipe(Get<std::string>(ed, "src", "S"));
                    e.dst_pipe = ParsePipe(Get<std::string>(ed, "dst", "S"));
                    e.event_id = static_cast<int8_t>(Get<int>(ed, "id", 0));
                    e.group = static_cast<uint8_t>(Get<int>(ed, "group", 0));
                    e.cls = ParseEnum<aqo_emu::InstrClass>(Get<std::string>(ed, "cls", "none"),
                                                           aqo_emu::kInstrClassCount, &aqo_emu::InstrClassName,
                                                           "instruction class");
                    e.elem_bytes = static_cast<uint8_t>(Get<int>(ed, "elem_bytes", 0));
                    e.peer_core = Get<uint32_t>(ed, "peer_core", 0);
                    e.handle = Get<uint64_t>(ed, "handle", 0);
                    e.count = Get<uint64_t>(ed, "count", 0);
                    e.bursts = Get<uint32_t>(ed, "bursts", 0);
                    e.serial_blocks = Get<uint32_t>(ed, "serial_blocks", 0);
                    e.out_dmas = Get<uint32_t>(ed, "out_dmas", 0);
                    e.instrs = Get<uint32_t>(ed, "instrs", 0);
                    files.push_back(Get<std::string>(ed, "file", "trace"));
                    e.file = files.back().c_str();
                    e.line = Get<int>(ed, "line", 0);
                    if (ed.contains("gm")) {
                        // the GM bytes it touched: [{addr, bytes, blocks = 1, stride = bytes, write = False}]
                        for (nb::handle gh : nb::cast<nb::list>(ed["gm"])) {
                            nb::dict gd = nb::cast<nb::dict>(gh);
                            aqo_emu::GmSpan g;
                            g.addr = Get<uint64_t>(gd, "addr", 0);
                            g.block_bytes = Get<uint64_t>(gd, "bytes", 0);
                            g.blocks = Get<uint32_t>(gd, "blocks", 1);
                            g.stride = Get<uint64_t>(gd, "stride", g.block_bytes);
                            g.write = Get<bool>(gd, "write", false);
                            t.gm.push_back(g);
                            if (e.gm_count == 0) e.gm = static_cast<uint32_t>(t.gm.size());
                            ++e.gm_count;
                        }
                    }
                    t.events.push_back(e);
                }
                ts.push_back(std::move(t));
            }
            const aqo_emu::TimelineParams p = aqo_emu::MakeTimelineParams(soc, ScaleFromDict(scale));
            aqo_emu::TimelineOptions o;
            o.record = detail_core != -2;
            aqo_emu::LaunchTimeline t;
            {
                nb::gil_scoped_release release;
                t = aqo_emu::SimulateTimeline(ts, p, o);
            }
            return TimelineToDict(t, detail_core);
        },
        nb::arg("traces"), nb::arg("soc"), nb::arg("scale") = nb::dict(), nb::arg("detail_core") = -1,
        "Simulates hand-built traces: a list of {'core', 'is_cube', 'events': [event dicts]} (event keys: kind, "
        "pipe, src, dst, id, group, cls, elem_bytes, peer_core, handle, count, bursts, serial_blocks, out_dmas, "
        "instrs, file, line, gm: the GM bytes a DMA touched, [{addr, bytes, blocks (1), stride (bytes), write "
        "(False)}]). scale: "
        "{parameter: factor}. detail_core: the core whose instructions are returned (-1 the slowest, -2 none).");

    m.def(
        "timeline_last_run",
        [](const nb::dict& scale, int64_t detail_core) {
            std::shared_ptr<const aqo_emu::RunTrace> trace = aqo_emu::LastRunTrace();
            if (!trace || trace->cores.empty()) {
                throw nb::value_error("timeline_last_run: no emulator run on this thread yet");
            }
            if (!trace->completed) {
                throw nb::value_error(("timeline_last_run: the last run (" + trace->kernel +
                                       ") stopped at a fault; its trace is incomplete")
                                          .c_str());
            }
            const aqo_emu::TimelineParams p = aqo_emu::MakeTimelineParams(trace->soc, ScaleFromDict(scale));
            aqo_emu::TimelineOptions o;
            o.record = detail_core != -2;
            aqo_emu::LaunchTimeline t;
            {
                nb::gil_scoped_release release;
                t = aqo_emu::SimulateTimeline(trace->cores, p, o);
            }
            nb::dict d = TimelineToDict(t, detail_core);
            d["kernel"] = trace->kernel;
            d["block_dim"] = trace->block_dim;
            return d;
        },
        nb::arg("scale") = nb::dict(), nb::arg("detail_core") = -1,
        "The timeline of the last emulator run on this thread (LastRunTrace) with the SoC table's timing of its SoC; "
        "scale and detail_core as for timeline_simulate.");

    m.def(
        "timeline_last_run_sweep",
        [](const nb::list& scales, uint32_t threads) {
            std::shared_ptr<const aqo_emu::RunTrace> trace = aqo_emu::LastRunTrace();
            if (!trace || trace->cores.empty() || !trace->completed) {
                throw nb::value_error("timeline_last_run_sweep: no completed emulator run on this thread");
            }
            std::vector<aqo_emu::TimelineParams> params;
            for (nb::handle h : scales) {
                params.push_back(aqo_emu::MakeTimelineParams(trace->soc, ScaleFromDict(nb::cast<nb::dict>(h))));
            }
            std::vector<double> us(params.size(), 0.0);
            std::vector<std::string> errors(params.size());
            {
                nb::gil_scoped_release release;
                const size_t n = std::max<size_t>(1, std::min<size_t>(threads, params.size()));
                std::vector<std::thread> pool;
                std::atomic<size_t> next(0);
                aqo_emu::TimelineOptions o;
                o.record = false;
                for (size_t w = 0; w < n; ++w) {
                    pool.emplace_back([&] {
                        for (size_t i = next++; i < params.size(); i = next++) {
                            try {
                                us[i] = aqo_emu::SimulateTimeline(trace->cores, params[i], o).time_us;
                            } catch (const std::exception& e) {
                                errors[i] = e.what();
                            }
                        }
                    });
                }
                for (std::thread& t : pool) t.join();
            }
            for (const std::string& e : errors) {
                if (!e.empty()) throw nb::value_error(e.c_str());
            }
            return us;
        },
        nb::arg("scales"), nb::arg("threads") = 2,
        "The estimated time (us) of the last emulator run under each of `scales` (a list of {parameter: factor}), "
        "simulated on `threads` host threads.");
}

aqo_bind::Registrar kRegisterTimeline("timeline", &RegisterTimeline);

}  // namespace

}  // namespace aqo_bind
