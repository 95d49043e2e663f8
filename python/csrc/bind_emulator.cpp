// Generic bindings of the AscendC CPU emulator: the exception mapping (aqo_emu::EmulatorError ->
// ascend_quant_ops.errors.EmulatorError), the last run's statistics, the SoC model, and the emulator's float
// rounding (so tests can check it against independent references). The op runners
// (python/csrc/emulate_<op>.cpp) bind the kernels themselves.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "emulator/emu_context.h"
#include "emulator/emu_trace.h"
#include "emulator/emu_types.h"
#include "emulator/launch.h"
#include "emulator/launch_contract.h"
#include "emulator_binding.h"
#include "registry.h"

namespace nb = nanobind;

namespace {

// Raises ascend_quant_ops.errors.EmulatorError with the fault's fields as attributes.
void TranslateEmulatorError(const std::exception_ptr& p, void*)
{
    try {
        std::rethrow_exception(p);
    } catch (const aqo_emu::EmulatorError& e) {
        nb::object cls = nb::module_::import_("ascend_quant_ops.errors").attr("EmulatorError");
        nb::object err = cls(std::string(e.what()));
        err.attr("kernel_file") = e.file();
        err.attr("kernel_line") = e.line();
        err.attr("soc") = e.soc();
        err.attr("core") = e.core();
        err.attr("detail") = e.detail();
        PyErr_SetObject(cls.ptr(), err.ptr());
    }
}

aqo_emu::FloatFormat ParseFormat(const std::string& name)
{
    for (int i = 0; i < static_cast<int>(aqo_emu::FloatFormat::kCount); ++i) {
        const auto f = static_cast<aqo_emu::FloatFormat>(i);
        if (name == aqo_emu::FloatFormatName(f)) return f;
    }
    throw nb::value_error(("unknown float format '" + name +
                           "'; expected float16, bfloat16, float8_e4m3fn, float8_e5m2 or hifloat8")
                              .c_str());
}

aqo_emu::Rounding ParseRounding(const std::string& name)
{
    if (name == "nearest_even") return aqo_emu::Rounding::kNearestEven;
    if (name == "nearest_away") return aqo_emu::Rounding::kNearestAway;
    if (name == "toward_zero") return aqo_emu::Rounding::kTowardZero;
    if (name == "down") return aqo_emu::Rounding::kDown;
    if (name == "up") return aqo_emu::Rounding::kUp;
    if (name == "odd") return aqo_emu::Rounding::kOdd;
    throw nb::value_error(("unknown rounding '" + name +
                           "'; expected nearest_even, nearest_away, toward_zero, down, up or odd")
                              .c_str());
}

nb::dict TraceEventToDict(const aqo_emu::TraceEvent& e, const aqo_emu::CoreTrace& c)
{
    nb::dict d;
    d["kind"] = aqo_emu::TraceKindName(e.kind);
    switch (e.kind) {
        case aqo_emu::TraceKind::kInstr:
            d["pipe"] = aqo_emu::PipeName(e.pipe);
            d["cls"] = aqo_emu::InstrClassName(e.cls);
            d["elem_bytes"] = e.elem_bytes;
            d["count"] = e.count;
            d["bursts"] = e.bursts;
            if (e.handle != 0) d["handle"] = e.handle;
            if (e.serial_blocks != 0) d["serial_blocks"] = e.serial_blocks;
            if (e.out_dmas != 0) d["out_dmas"] = e.out_dmas;
            if (e.instrs != 0) d["instrs"] = e.instrs;
            if (e.gm > 0 && static_cast<size_t>(e.gm) - 1 + e.gm_count <= c.gm.size()) {
                nb::list gm;
                for (uint32_t i = 0; i < e.gm_count; ++i) {
                    const aqo_emu::GmSpan& g = c.gm[e.gm - 1 + i];
                    nb::dict gd;
                    gd["addr"] = g.addr;
                    gd["bytes"] = g.block_bytes;
                    gd["blocks"] = g.blocks;
                    gd["stride"] = g.stride;
                    gd["write"] = g.write;
                    gm.append(gd);
                }
                d["gm"] = gm;
            }
            break;
        case aqo_emu::TraceKind::kSetFlag:
        case aqo_emu::TraceKind::kWaitFlag:
            d["src_pipe"] = aqo_emu::PipeName(e.src_pipe);
            d["dst_pipe"] = aqo_emu::PipeName(e.dst_pipe);
            d["event_id"] = e.event_id;
            break;
        case aqo_emu::TraceKind::kBarrier: d["pipe"] = aqo_emu::PipeName(e.pipe); break;
        case aqo_emu::TraceKind::kSyncAll: d["group"] = e.group; break;
        case aqo_emu::TraceKind::kCubeRequest:
        case aqo_emu::TraceKind::kCubeWait:
            d["peer_core"] = e.peer_core;
            d["handle"] = e.handle;
            break;
    }
    d["file"] = std::string(e.file ? e.file : "");
    d["line"] = e.line;
    return d;
}

void RegisterEmulator(nb::module_& m)
{
    nb::register_exception_translator(&TranslateEmulatorError);

    m.def(
        "emulator_last_run_stats",
        []() {
            return aqo_bind::RunStatsToDict(aqo_emu::LastRunStats(), aqo_bind::CoreStatsDetail::kCountersBuffersRanges);
        },
        "Statistics of the last emulator run on this thread: soc, kernel, block_dim, ub_bytes, completed, error, "
        "and per core gm_read_bytes, gm_write_bytes, dma_gm_to_ub, dma_ub_to_gm, dma_ub_to_ub, gm_scalar_reads, "
        "gm_scalar_writes, vector_ops, peak_ub_bytes, ub_buffers (every TPipe::InitBuffer: offset, bytes, num, kind, "
        "site), gm_ranges (every GM byte range read or written: buffer, begin, end, write).");

    m.def(
        "emulator_last_run_trace",
        []() {
            nb::dict d;
            std::shared_ptr<const aqo_emu::RunTrace> t = aqo_emu::LastRunTrace();
            if (!t) return d;
            d["soc"] = t->soc;
            d["kernel"] = t->kernel;
            d["block_dim"] = t->block_dim;
            d["completed"] = t->completed;
            nb::list cores;
            for (const aqo_emu::CoreTrace& c : t->cores) {
                nb::dict cd;
                cd["core"] = c.core;
                cd["is_cube"] = c.is_cube;
                nb::list evs;
                for (const aqo_emu::TraceEvent& e : c.events) evs.append(TraceEventToDict(e, c));
                cd["events"] = evs;
                cores.append(cd);
            }
            d["cores"] = cores;
            nb::list buffers;
            for (const aqo_emu::GmBufferInfo& b : t->gm_buffers) {
                nb::dict bd;
                bd["name"] = b.name;
                bd["addr"] = b.addr;
                bd["bytes"] = b.bytes;
                buffers.append(bd);
            }
            d["gm_buffers"] = buffers;
            return d;
        },
        "The instruction trace of the last emulator run on this thread (op_kernel/emulator/include/emulator/"
        "emu_trace.h): soc, kernel, block_dim, completed, cores: [{core, is_cube, events: [{kind, pipe / src_pipe, "
        "dst_pipe, event_id / group / peer_core, handle, cls, elem_bytes, count, bursts, serial_blocks, out_dmas, "
        "instrs, file, line, gm: the GM bytes "
        "of a DMA or Matmul request [{addr, bytes, blocks, stride, write}]}]}], gm_buffers: [{name, addr, bytes}] "
        "(where each registered buffer lies in the trace's GM address space). "
        "For tests and inspection; the timeline model reads it in C++.");

    m.def(
        "emulator_set_run_options",
        [](bool perturbed_divide, int saturation_inf, int saturation_nan, int modeless_rounding, bool record_trace,
           bool check_ordering, bool divide_flushes_subnormals, bool vector_flushes_subnormals,
           bool ub_copy_on_mte3, bool cube_float_saturates, bool zero_tie_first, bool ctrl48_saturates_at_launch) {
            if (saturation_inf < 0 || saturation_inf > 2 || saturation_nan < 0 || saturation_nan > 1 ||
                modeless_rounding < 0 || modeless_rounding > 1) {
                throw nb::value_error("emulator run options: saturation_inf 0..2, saturation_nan 0..1, "
                                      "modeless_rounding 0..1");
            }
            aqo_emu::RunOptions o;
            o.perturbed_divide = perturbed_divide;
            o.divide_flushes_subnormals = divide_flushes_subnormals;
            o.vector_flushes_subnormals = vector_flushes_subnormals;
            o.ub_copy_on_mte3 = ub_copy_on_mte3;
            o.cube_float_saturates = cube_float_saturates;
            o.zero_tie_first = zero_tie_first;
            o.ctrl48_saturates_at_launch = ctrl48_saturates_at_launch;
            o.saturation_inf = saturation_inf;
            o.saturation_nan = saturation_nan;
            o.modeless_rounding = modeless_rounding;
            o.record_trace = record_trace;
            o.check_ordering = check_ordering;
            aqo_emu::SetDefaultRunOptions(o);
        },
        nb::arg("perturbed_divide") = false, nb::arg("saturation_inf") = 0, nb::arg("saturation_nan") = 0,
        nb::arg("modeless_rounding") = 0, nb::arg("record_trace") = true, nb::arg("check_ordering") = true,
        nb::arg("divide_flushes_subnormals") = false, nb::arg("vector_flushes_subnormals") = false,
        nb::arg("ub_copy_on_mte3") = false, nb::arg("cube_float_saturates") = false, nb::arg("zero_tie_first") = false,
        nb::arg("ctrl48_saturates_at_launch") = false,
        "Sets this thread's run options for the emulator launches that follow (emu_context.h RunOptions).");

    m.def(
        "emulator_run_options",
        []() {
            const aqo_emu::RunOptions& o = aqo_emu::DefaultRunOptions();
            nb::dict d;
            d["perturbed_divide"] = o.perturbed_divide;
            d["divide_flushes_subnormals"] = o.divide_flushes_subnormals;
            d["vector_flushes_subnormals"] = o.vector_flushes_subnormals;
            d["ub_copy_on_mte3"] = o.ub_copy_on_mte3;
            d["cube_float_saturates"] = o.cube_float_saturates;
            d["zero_tie_first"] = o.zero_tie_first;
            d["ctrl48_saturates_at_launch"] = o.ctrl48_saturates_at_launch;
            d["saturation_inf"] = o.saturation_inf;
            d["saturation_nan"] = o.saturation_nan;
            d["modeless_rounding"] = o.modeless_rounding;
            d["record_trace"] = o.record_trace;
            d["check_ordering"] = o.check_ordering;
            return d;
        },
        "This thread's run options for new emulator launches.");

    m.def(
        "emulator_soc_model",
        [](const std::string& soc, uint32_t ub_size) {
            const aqo_emu::SocModel s = aqo_emu::MakeSocModel(soc, ub_size);
            nb::dict d;
            d["name"] = s.name;
            d["ub_bytes"] = s.ub_bytes;
            d["has_data_copy_pad"] = s.has_data_copy_pad;
            d["has_bfloat16"] = s.has_bfloat16;
            d["has_float8"] = s.has_float8;
            d["saturation_mode"] = s.saturation_mode;
            return d;
        },
        nb::arg("soc"), nb::arg("ub_size") = 0,
        "The emulator's model of a SoC (UB size, DataCopyPad, bfloat16, float8, saturation mode).");

    m.def(
        "emulator_encode_float",
        [](const std::string& format, const std::vector<double>& values, const std::string& rounding,
           bool saturate, bool nan_to_zero) {
            const aqo_emu::FloatFormat f = ParseFormat(format);
            const aqo_emu::Rounding r = ParseRounding(rounding);
            aqo_emu::OverflowPolicy p;
            p.saturate = saturate;
            p.nan_to_zero = nan_to_zero;
            std::vector<uint32_t> out;
            out.reserve(values.size());
            for (double v : values) out.push_back(aqo_emu::EncodeFloat(f, v, r, p));
            return out;
        },
        nb::arg("format"), nb::arg("values"), nb::arg("rounding") = "nearest_even", nb::arg("saturate") = false,
        nb::arg("nan_to_zero") = false,
        "Bit patterns of values rounded into a narrow float format by the emulator's rounding routine.");

    m.def(
        "emulator_decode_float",
        [](const std::string& format, const std::vector<uint32_t>& codes) {
            const aqo_emu::FloatFormat f = ParseFormat(format);
            std::vector<double> out;
            out.reserve(codes.size());
            for (uint32_t c : codes) out.push_back(aqo_emu::DecodeFloat(f, static_cast<uint16_t>(c)));
            return out;
        },
        nb::arg("format"), nb::arg("codes"), "Exact values of bit patterns of a narrow float format.");

    m.def(
        "emulator_round_float32",
        [](const std::vector<double>& values, const std::string& rounding) {
            const aqo_emu::Rounding r = ParseRounding(rounding);
            std::vector<float> out;
            out.reserve(values.size());
            for (double v : values) out.push_back(aqo_emu::RoundToFloat32(v, r));
            return out;
        },
        nb::arg("values"), nb::arg("rounding"), "float32 rounding of doubles in a given direction.");
    m.def(
        "emulator_tiling_keys",
        [](const std::string& kernel) {
            return std::make_pair(aqo_emu::DeclaredTilingKeys(kernel), aqo_emu::CompiledTilingKeys(kernel));
        },
        nb::arg("kernel"),
        "(declared, compiled) tiling keys of a kernel tag ('aqo_dynamic_quant/ascend310p', ...): the keys its "
        "TILING_KEY_IS branches name, and the keys CANN's build would compile a binary for.");
}

aqo_bind::Registrar kRegisterEmulator("emulator", &RegisterEmulator);

}  // namespace
