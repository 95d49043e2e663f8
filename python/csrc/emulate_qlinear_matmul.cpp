// Emulator runner of op_kernel/aqo_qlinear_matmul.cpp: the very kernel source, compiled once per SoC with the
// macros bisheng would define, into its own namespace (ODR-safe, see op_kernel/emulator/include/kernel_operator.h),
// driven by the real host plan and tiling data.
//
//   _native.emulate_qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, y,
//                                  a_shape, b_shape, a_dtype, b_dtype, y_dtype, a_param, b_param,
//                                  a_param_batched, b_param_batched, soc, core_num, ub_size)
//     every tensor a contiguous uint8 numpy view of its bytes (scales float32); y is written in place.
//     Returns {"ok": True, "stats": {...}, "matmul": [...], "plan": {...}} or {"ok": False, "violation": ...}
//     (plan refused) or {"ok": False, "emulator_error": {...}} (the emulator caught a kernel fault).
//
// Split SoCs (910b, 950): the launcher runs the vector cores (usedCores x 2 blocks); the cube's work is done
// inside their Matmul calls (lib/matmul_intf.h). 310p: one block per AI core.
#include "kernel_operator.h"
#include "emulator/launch.h"
#include "lib/matmul_intf.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#define AQO_QMM_EMULATOR_TILING 1
#include "aqo_qlinear_matmul_tiling.h"
#include "emulator_binding.h"
#include "plan_convert.h"
#include "plan_requests.h"
#include "qlinear_matmul_plan.h"
#include "registry.h"

#define AQO_EMU_TILING_CLASS optiling::AqoQLinearMatMulTilingData

// ---- ascend910b: dav-c220 mix kernel, run as its vector cores ----
#define __CCE_AICORE__ 220
#define __DAV_C220__
#define __DAV_C220_VEC__
#define aqo_qlinear_matmul aqo_qlinear_matmul_ascend910b
namespace aqo_emu_qmm_ascend910b {
struct AqoEmuKernelTag {  // the kernel's TILING_KEY_IS keys are registered under this name
    static constexpr const char* kName = "aqo_qlinear_matmul/ascend910b";
};
#include "aqo_qlinear_matmul.cpp"
}
#undef aqo_qlinear_matmul
#undef __DAV_C220_VEC__
#undef __DAV_C220__
#undef __CCE_AICORE__

// ---- ascend310p: dav-m200, AI core ----
#define __CCE_AICORE__ 200
#define __DAV_M200__
#define aqo_qlinear_matmul aqo_qlinear_matmul_ascend310p
namespace aqo_emu_qmm_ascend310p {
struct AqoEmuKernelTag {  // the kernel's TILING_KEY_IS keys are registered under this name
    static constexpr const char* kName = "aqo_qlinear_matmul/ascend310p";
};
#include "aqo_qlinear_matmul.cpp"
}
#undef aqo_qlinear_matmul
#undef __DAV_M200__
#undef __CCE_AICORE__

// ---- ascend910_95: dav-3510 ----
#define __CCE_AICORE__ 310
#define __DAV_C310__
#define __NPU_ARCH__ 3510
#define aqo_qlinear_matmul aqo_qlinear_matmul_ascend910_95
namespace aqo_emu_qmm_ascend910_95 {
struct AqoEmuKernelTag {  // the kernel's TILING_KEY_IS keys are registered under this name
    static constexpr const char* kName = "aqo_qlinear_matmul/ascend910_95";
};
#include "aqo_qlinear_matmul.cpp"
}
#undef aqo_qlinear_matmul
#undef __NPU_ARCH__
#undef __DAV_C310__
#undef __CCE_AICORE__

// The kernel's codes are the tiling core's (one source; the kernel cannot include host headers).
namespace kqmm = aqo_emu_qmm_ascend910b::aqo_qmm;
static_assert(kqmm::kCodeInt8 == aqo::QMM_INT8, "kernel operand code");
static_assert(kqmm::kCodeUInt8 == aqo::QMM_UINT8, "kernel operand code");
static_assert(kqmm::kCodeFloat8E4M3FN == aqo::QMM_FLOAT8_E4M3FN, "kernel operand code");
static_assert(kqmm::kCodeFloat8E5M2 == aqo::QMM_FLOAT8_E5M2, "kernel operand code");

namespace nb = nanobind;

namespace {

using Bytes = nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

typedef void (*KernelEntry)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR,
                            GM_ADDR);

nb::list MatmulStatsToList()
{
    nb::list out;
    for (const aqo_emu::MatmulCoreStats& s : aqo_emu::MatmulStats()) {
        nb::dict x;
        x["calls"] = s.calls;
        x["a_bytes"] = s.a_bytes;
        x["b_bytes"] = s.b_bytes;
        x["c_bytes"] = s.c_bytes;
        x["macs"] = s.macs;
        x["padded_macs"] = s.padded_macs;
        out.append(x);
    }
    return out;
}

// The Matmul API's tiling for the emulator. On the device the CANN adapter gets it from MultiCoreMatmulTiling for the
// largest call the kernel makes (the tile, plus the ones row with mapped uint8 a: baseM + mapA rows x baseN x K),
// bounded on 310p to the local workspace the kernel allocates (SetBufferSpace). Here: the same problem, whole cube
// fractals, and on 310p base blocks halved until the API's local workspace fits that buffer, as the adapter
// requires of CANN's tiling (MatmulGetTmpBufSize).
TCubeTiling CubeTilingFor(const aqo::QLinearMatMulTiling& t, uint64_t l1_bytes)
{
    TCubeTiling c;
    const int32_t rows = static_cast<int32_t>(t.baseM + (t.mapA ? 1u : 0u));
    const int32_t k = static_cast<int32_t>(std::max<uint32_t>(t.k, 1));
    c.usedCoreNum = 1;
    c.M = c.singleCoreM = rows;
    c.N = c.singleCoreN = static_cast<int32_t>(t.baseN);
    c.Ka = c.Kb = c.singleCoreK = k;
    c.baseM = static_cast<int32_t>(aqo::AlignUp(std::min<uint32_t>(static_cast<uint32_t>(rows), 128), 16));
    c.baseN = static_cast<int32_t>(aqo::AlignUp(std::min<uint32_t>(t.baseN, 256), 16));
    c.baseK = 64;  // two 32-byte fractal rows of int8 (float8)
    c.depthA1 = 2;
    c.depthB1 = 2;
    c.stepM = 1;
    c.stepN = 1;
    c.stepKa = 1;
    c.stepKb = 1;
    c.dbL0A = 2;
    c.dbL0B = 2;
    c.dbL0C = 1;
    c.iterateOrder = 0;
    if (t.ubMatmulWs != 0) {
        aqo_emu::MatmulLocalWorkspaceInput in;  // the kernel's NORM int8 x int8 -> int32 cube, C in GM
        while (aqo_emu::MatmulLocalWorkspaceBytes(c, in) > t.ubMatmulWs && (c.baseM > 16 || c.baseN > 16)) {
            if (c.baseN >= c.baseM && c.baseN > 16) {
                c.baseN = static_cast<int32_t>(aqo::AlignUp(static_cast<uint32_t>(c.baseN / 2), 16));
            } else {
                c.baseM = static_cast<int32_t>(aqo::AlignUp(static_cast<uint32_t>(c.baseM / 2), 16));
            }
        }
        c.transLength = c.baseM * c.baseN * 4;  // the C tile staged in UB
    }
    // ORDER_M with one N step over the whole tile: A's K tiles stay in L1 over the tile's N blocks and B's over its
    // M blocks when both fit ("k full load", as CANN's tiling chooses when L1 allows), so that the API reads each
    // byte of a tile's operands once (cube_in_buffer_normal.h, scheduler_norm_base.h).
    const int32_t k_iter = (k + c.baseK - 1) / c.baseK;
    const int32_t n_iter = (c.N + c.baseN - 1) / c.baseN;
    const uint64_t a_tile = static_cast<uint64_t>(c.baseM) * c.baseK, b_tile = static_cast<uint64_t>(c.baseK) * c.baseN;
    if (static_cast<uint64_t>(k_iter) * a_tile + static_cast<uint64_t>(k_iter) * n_iter * b_tile <= l1_bytes) {
        c.depthA1 = k_iter;
        c.stepN = n_iter;
        c.depthB1 = k_iter * n_iter;
    }
    return c;
}

nb::dict Emulate(Bytes a, Bytes a_scale, Bytes a_zp, Bytes b, Bytes b_scale, Bytes b_zp, Bytes y_scale, Bytes y_zp,
                 Bytes y, const std::vector<int64_t>& a_shape, const std::vector<int64_t>& b_shape,
                 const std::string& a_dtype, const std::string& b_dtype, const std::string& y_dtype,
                 const std::string& a_param, const std::string& b_param, bool a_param_batched, bool b_param_batched,
                 const std::string& soc, int64_t core_num, int64_t ub_size)
{
    aqo::ConstraintViolation v;
    aqo::QLinearMatMulRequest r;
    if (!aqo_bind::QLinearMatMulRequestFromArgs(a_shape, b_shape, a_dtype, b_dtype, y_dtype, a_param, b_param,
                                                a_param_batched, b_param_batched, soc, core_num, ub_size, &r, &v)) {
        return aqo_bind::RefusedResult(v);
    }
    aqo::QLinearMatMulPlan plan;
    if (!aqo::PlanQLinearMatMul(r, &plan, &v)) {
        return aqo_bind::RefusedResult(v);
    }
    const aqo::QLinearMatMulTiling& t = plan.tiling;
    // Expected byte sizes, from the plan (the explanation's tensor list is the one source).
    auto expect = [&](const char* name) -> uint64_t {
        for (const aqo::GmTensor& g : plan.explanation.tensors) {
            if (g.name == name) return g.bytes;
        }
        return 0;
    };
    struct Arg {
        const char* name;
        Bytes* data;
    } args[] = {{"a", &a}, {"a_scale", &a_scale}, {"a_zero_point", &a_zp}, {"b", &b}, {"b_scale", &b_scale},
                {"b_zero_point", &b_zp}, {"y_scale", &y_scale}, {"y_zero_point", &y_zp}, {"y", &y}};
    for (const Arg& x : args) {
        if (x.data->size() != expect(x.name)) {
            throw nb::value_error(("emulate_qlinear_matmul: " + std::string(x.name) + " has " +
                                   std::to_string(x.data->size()) + " bytes, the plan expects " +
                                   std::to_string(expect(x.name)))
                                      .c_str());
        }
    }
    const std::string canonical = plan.explanation.soc;
    const KernelEntry entry = aqo_bind::KernelForSoc<KernelEntry>(
        canonical, "emulate_qlinear_matmul", &aqo_emu_qmm_ascend910b::aqo_qlinear_matmul_ascend910b,
        &aqo_emu_qmm_ascend310p::aqo_qlinear_matmul_ascend310p,
        &aqo_emu_qmm_ascend910_95::aqo_qlinear_matmul_ascend910_95);
    optiling::AqoQLinearMatMulTilingData td;
    td.InitData();
    aqo::FillQLinearMatMulTilingData(t, &td);
    aqo::SocSpec spec;
    aqo::SocFromName(canonical.c_str(), &spec);
    td.cubeTiling = CubeTilingFor(
        t, static_cast<uint64_t>(aqo::SocTiming(spec.id)[static_cast<int>(aqo::TimingParam::L1_BYTES)].value));

    nb::dict out;
    nb::dict plan_d;
    plan_d["mode"] = plan.explanation.mode;
    plan_d["used_cores"] = plan.explanation.used_cores;
    plan_d["workers_per_core"] = t.workersPerCore;
    plan_d["tile"] = nb::make_tuple(t.baseM, t.baseN);
    plan_d["tiles"] = t.tileCount;
    plan_d["workspace_bytes"] = plan.workspace_bytes;
    out["plan"] = plan_d;
    if (t.tileCount == 0) {
        out["ok"] = true;  // empty output: nothing to launch
        out["stats"] = nb::none();
        out["matmul"] = nb::list();
        return out;
    }
    // The workspace as the host sizes it: the SoC's system workspace, then the kernel's part. The system part is
    // never touched (a kernel access there fails), so it is left unwritten; the kernel's part starts zeroed so that
    // runs are reproducible.
    const uint64_t ws_bytes = plan.system_workspace_bytes + std::max<uint64_t>(plan.workspace_bytes, 32);
    std::unique_ptr<uint8_t[]> workspace(new uint8_t[ws_bytes]);
    std::memset(workspace.get() + plan.system_workspace_bytes, 0, ws_bytes - plan.system_workspace_bytes);
    const uint32_t blocks = t.usedCores * t.workersPerCore;
    try {
        aqo_emu::Launcher launch(canonical, "aqo_qlinear_matmul", plan.explanation.ub_capacity);
        uint8_t* g[9];
        for (int i = 0; i < 9; ++i) {
            const bool out_tensor = i == 8;
            g[i] = launch.AddGm(args[i].name, args[i].data->data(), args[i].data->size(),
                                out_tensor ? aqo_emu::GmAccess::kReadWrite : aqo_emu::GmAccess::kReadOnly);
        }
        uint8_t* ws = launch.AddWorkspace("workspace", workspace.get(), ws_bytes, plan.system_workspace_bytes);
        uint8_t* tiling = launch.SetTiling(&td, sizeof(td));
        // Key 0: the kernel has no TILING_KEY_IS branch, and the build compiles key 0 alone.
        launch.SetTilingKey(0, aqo_bind::KernelForSoc<const char*>(canonical, "emulate_qlinear_matmul",
                                                                   aqo_emu_qmm_ascend910b::AqoEmuKernelTag::kName,
                                                                   aqo_emu_qmm_ascend310p::AqoEmuKernelTag::kName,
                                                                   aqo_emu_qmm_ascend910_95::AqoEmuKernelTag::kName));
        aqo_emu::ResetMatmulStats(blocks);
        launch.Run(blocks, [&] { entry(g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], ws, tiling); });
        out["ok"] = true;
        out["stats"] = aqo_bind::RunStatsToDict(launch.stats(), aqo_bind::CoreStatsDetail::kCounters);
        out["matmul"] = MatmulStatsToList();
    } catch (const aqo_emu::EmulatorError& e) {
        aqo_bind::SetFaultResult(out, e);
        out["matmul"] = MatmulStatsToList();
    }
    return out;
}

void RegisterEmulateQLinearMatMul(nb::module_& m)
{
    m.def("emulate_qlinear_matmul", &Emulate, nb::arg("a"), nb::arg("a_scale"), nb::arg("a_zero_point"),
          nb::arg("b"), nb::arg("b_scale"), nb::arg("b_zero_point"), nb::arg("y_scale"), nb::arg("y_zero_point"),
          nb::arg("y"), nb::arg("a_shape"), nb::arg("b_shape"), nb::arg("a_dtype"), nb::arg("b_dtype"),
          nb::arg("y_dtype"), nb::arg("a_param"), nb::arg("b_param"), nb::arg("a_param_batched"),
          nb::arg("b_param_batched"), nb::arg("soc"), nb::arg("core_num") = 0, nb::arg("ub_size") = 0,
          "Runs op_kernel/aqo_qlinear_matmul.cpp in the AscendC CPU emulator for `soc` with the host plan's "
          "tiling; writes y (a uint8 view) in place.");
}

aqo_bind::Registrar kRegisterEmulateQLinearMatMul("emulate_qlinear_matmul", &RegisterEmulateQLinearMatMul);

}  // namespace
