// Emulator runner of op_kernel/aqo_quant_matmul.cpp: the very kernel source, compiled once per SoC with the
// macros bisheng would define, into its own namespace (ODR-safe, see op_kernel/emulator/include/kernel_operator.h),
// driven by the real host plan and tiling data.
//
//   _native.emulate_quant_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias, y, a_shape, b_shape,
//                                b_trans, a_dtype, b_dtype, out_dtype, a_scale_layout, b_scale_layout,
//                                a_zero_point_layout, b_zero_point_layout, bias_layout, a_param_batched,
//                                b_param_batched, bias_batched, soc, core_num, ub_size, a_zp_batched, b_zp_batched)
//     every tensor a contiguous uint8 numpy view of its bytes (scales and bias float32; an absent zero point or bias
//     an empty view); y is written in place. b is given as stored: [..., K, N], or [..., N, K] with b_trans (b_shape
//     is always the product's view, [..., K, N]). Returns {"ok": True, "stats", "matmul", "plan"} or
//     {"ok": False, "violation"} (plan refused) or {"ok": False, "emulator_error"} (a kernel fault).
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
#include "aqo_quant_matmul_tiling.h"
#include "emulator_binding.h"
#include "plan_convert.h"
#include "plan_requests.h"
#include "quant_matmul_plan.h"
#include "registry.h"

#define AQO_EMU_TILING_CLASS optiling::AqoQuantMatMulTilingData

// ---- ascend910b: dav-c220 mix kernel, run as its vector cores ----
#define __CCE_AICORE__ 220
#define __DAV_C220__
#define __DAV_C220_VEC__
#define aqo_quant_matmul aqo_quant_matmul_ascend910b
namespace aqo_emu_quant_mm_ascend910b {
struct AqoEmuKernelTag {  // the kernel's TILING_KEY_IS keys are registered under this name
    static constexpr const char* kName = "aqo_quant_matmul/ascend910b";
};
#include "aqo_quant_matmul.cpp"
}
#undef aqo_quant_matmul
#undef __DAV_C220_VEC__
#undef __DAV_C220__
#undef __CCE_AICORE__

// ---- ascend310p: dav-m200, AI core ----
#define __CCE_AICORE__ 200
#define __DAV_M200__
#define aqo_quant_matmul aqo_quant_matmul_ascend310p
namespace aqo_emu_quant_mm_ascend310p {
struct AqoEmuKernelTag {  // the kernel's TILING_KEY_IS keys are registered under this name
    static constexpr const char* kName = "aqo_quant_matmul/ascend310p";
};
#include "aqo_quant_matmul.cpp"
}
#undef aqo_quant_matmul
#undef __DAV_M200__
#undef __CCE_AICORE__

// ---- ascend910_95: dav-3510 ----
#define __CCE_AICORE__ 310
#define __DAV_C310__
#define __NPU_ARCH__ 3510
#define aqo_quant_matmul aqo_quant_matmul_ascend910_95
namespace aqo_emu_quant_mm_ascend910_95 {
struct AqoEmuKernelTag {  // the kernel's TILING_KEY_IS keys are registered under this name
    static constexpr const char* kName = "aqo_quant_matmul/ascend910_95";
};
#include "aqo_quant_matmul.cpp"
}
#undef aqo_quant_matmul
#undef __NPU_ARCH__
#undef __DAV_C310__
#undef __CCE_AICORE__

// The kernel's codes are the tiling core's (one source; the kernel cannot include host headers).
namespace kqm = aqo_emu_quant_mm_ascend910b::aqo_quant_mm;
static_assert(kqm::kQuantMmOutFloat32 == aqo::QMM_OUT_FLOAT32 && kqm::kQuantMmOutFloat16 == aqo::QMM_OUT_FLOAT16 &&
                  kqm::kQuantMmOutBFloat16 == aqo::QMM_OUT_BFLOAT16,
              "kernel output codes");
static_assert(kqm::kQmmParamNone == aqo::QMM_PARAM_NONE && kqm::kQmmParamTensor == aqo::QMM_PARAM_TENSOR &&
                  kqm::kQmmParamVector == aqo::QMM_PARAM_VECTOR,
              "kernel parameter kinds");

namespace nb = nanobind;

namespace {

using Bytes = nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

typedef void (*KernelEntry)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR,
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

// The Matmul API's tiling: the plan's values (matmul_cube_plan.h QmmCubeTiling, the same the CANN adapter copies).
TCubeTiling CubeTilingFrom(const aqo::QmmCubeTilingValues& v)
{
    TCubeTiling c;
    c.usedCoreNum = v.usedCoreNum;
    c.M = v.M;
    c.N = v.N;
    c.Ka = v.Ka;
    c.Kb = v.Kb;
    c.singleCoreM = v.singleCoreM;
    c.singleCoreN = v.singleCoreN;
    c.singleCoreK = v.singleCoreK;
    c.baseM = v.baseM;
    c.baseN = v.baseN;
    c.baseK = v.baseK;
    c.depthA1 = v.depthA1;
    c.depthB1 = v.depthB1;
    c.stepM = v.stepM;
    c.stepN = v.stepN;
    c.stepKa = v.stepKa;
    c.stepKb = v.stepKb;
    c.iterateOrder = v.iterateOrder;
    c.dbL0A = v.dbL0A;
    c.dbL0B = v.dbL0B;
    c.dbL0C = v.dbL0C;
    c.transLength = v.transLength;
    c.isBias = v.isBias;
    return c;
}

nb::dict Emulate(Bytes a, Bytes a_scale, Bytes a_zp, Bytes b, Bytes b_scale, Bytes b_zp, Bytes bias, Bytes y,
                 const std::vector<int64_t>& a_shape, const std::vector<int64_t>& b_shape, bool b_trans,
                 const std::string& a_dtype, const std::string& b_dtype, const std::string& out_dtype,
                 const std::string& a_scale_layout, const std::string& b_scale_layout,
                 const std::string& a_zero_point_layout, const std::string& b_zero_point_layout,
                 const std::string& bias_layout, bool a_param_batched, bool b_param_batched, bool bias_batched,
                 const std::string& soc, int64_t core_num, int64_t ub_size, bool a_zp_batched, bool b_zp_batched)
{
    aqo::ConstraintViolation v;
    aqo::QuantMatMulRequest r;
    if (!aqo_bind::QuantMatMulRequestFromArgs(a_shape, b_shape, b_trans, a_dtype, b_dtype, out_dtype, a_scale_layout,
                                              b_scale_layout, a_zero_point_layout, b_zero_point_layout, bias_layout,
                                              a_param_batched, b_param_batched, bias_batched, soc, core_num, ub_size,
                                              &r, &v)) {
        return aqo_bind::RefusedResult(v);
    }
    r.a_zp_batched = a_zp_batched;  // a zero point's layout is its own (a [M] vector beside a batched scale)
    r.b_zp_batched = b_zp_batched;
    aqo::QuantMatMulPlan plan;
    if (!aqo::PlanQuantMatMul(r, &plan, &v)) {
        return aqo_bind::RefusedResult(v);
    }
    const aqo::QuantMatMulTiling& t = plan.tiling;
    // Expected byte sizes, from the plan (the explanation's tensor list is the one source; absent tensors: 0).
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
                {"b_zero_point", &b_zp}, {"bias", &bias}, {"y", &y}};
    for (const Arg& x : args) {
        if (x.data->size() != expect(x.name)) {
            throw nb::value_error(("emulate_quant_matmul: " + std::string(x.name) + " has " +
                                   std::to_string(x.data->size()) + " bytes, the plan expects " +
                                   std::to_string(expect(x.name)))
                                      .c_str());
        }
    }
    const std::string canonical = plan.explanation.soc;
    const KernelEntry entry = aqo_bind::KernelForSoc<KernelEntry>(
        canonical, "emulate_quant_matmul", &aqo_emu_quant_mm_ascend910b::aqo_quant_matmul_ascend910b,
        &aqo_emu_quant_mm_ascend310p::aqo_quant_matmul_ascend310p,
        &aqo_emu_quant_mm_ascend910_95::aqo_quant_matmul_ascend910_95);
    optiling::AqoQuantMatMulTilingData td;
    td.InitData();
    aqo::FillQuantMatMulTilingData(t, &td);
    td.cubeTiling = CubeTilingFrom(plan.cube);

    nb::dict out;
    nb::dict plan_d;
    plan_d["mode"] = plan.explanation.mode;
    plan_d["used_cores"] = plan.explanation.used_cores;
    plan_d["workers_per_core"] = t.workersPerCore;
    plan_d["block"] = nb::make_tuple(t.stripM, t.baseN);
    plan_d["b_trans"] = t.bTrans != 0;
    // each parameter's batch stride (0: one vector for every matrix), as the kernel reads it
    plan_d["batch_strides"] = nb::make_tuple(t.aScaleBatchStride, t.aZpBatchStride, t.bScaleBatchStride,
                                             t.bZpBatchStride, t.biasBatchStride);
    plan_d["blocks"] = t.unitCount;
    plan_d["workspace_bytes"] = plan.workspace_bytes;
    out["plan"] = plan_d;
    if (t.unitCount == 0) {
        out["ok"] = true;  // empty output: nothing to launch
        out["stats"] = nb::none();
        out["matmul"] = nb::list();
        return out;
    }
    // The workspace as the host sizes it: the SoC's system workspace, then the kernel's part. Neither is zeroed on
    // the device: the launcher fills the kernel's part with a poison pattern and fails a scalar or cube read of bytes
    // the kernel never wrote (the system part is never accessible to the kernel).
    const uint64_t ws_bytes = plan.system_workspace_bytes + std::max<uint64_t>(plan.workspace_bytes, 32);
    std::unique_ptr<uint8_t[]> workspace(new uint8_t[ws_bytes]);
    const uint32_t blocks = t.usedCores * t.workersPerCore;
    try {
        aqo_emu::Launcher launch(canonical, "aqo_quant_matmul", plan.explanation.ub_capacity);
        launch.SetScheduleMode(aqo::CubeStageScheduleMode(t));  // what the TilingFunc sets (SaveTiling)
        launch.SetDeviceBlockDim(aqo::CubeStageBlockDim(t));     // the same
        uint8_t* g[8];
        for (int i = 0; i < 8; ++i) {
            const bool out_tensor = i == 7;
            if (args[i].data->size() == 0) {
                g[i] = nullptr;  // an absent zero point or bias: the kernel never reads it
                continue;
            }
            g[i] = launch.AddGm(args[i].name, args[i].data->data(), args[i].data->size(),
                                out_tensor ? aqo_emu::GmAccess::kReadWrite : aqo_emu::GmAccess::kReadOnly);
        }
        uint8_t* ws = launch.AddWorkspace("workspace", workspace.get(), ws_bytes, plan.system_workspace_bytes);
        uint8_t* tiling = launch.SetTiling(&td, sizeof(td));
        // Key 0: the kernel has no TILING_KEY_IS branch, and the build compiles key 0 alone.
        launch.SetTilingKey(0, aqo_bind::KernelForSoc<const char*>(canonical, "emulate_quant_matmul",
                                                                   aqo_emu_quant_mm_ascend910b::AqoEmuKernelTag::kName,
                                                                   aqo_emu_quant_mm_ascend310p::AqoEmuKernelTag::kName,
                                                                   aqo_emu_quant_mm_ascend910_95::AqoEmuKernelTag::kName));
        aqo_emu::ResetMatmulStats(blocks);
        launch.Run(blocks, [&] { entry(g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], ws, tiling); });
        out["ok"] = true;
        out["stats"] = aqo_bind::RunStatsToDict(launch.stats(), aqo_bind::CoreStatsDetail::kCounters);
        out["matmul"] = MatmulStatsToList();
    } catch (const aqo_emu::EmulatorError& e) {
        aqo_bind::SetFaultResult(out, e);
        out["matmul"] = MatmulStatsToList();
    }
    return out;
}

void RegisterEmulateQuantMatMul(nb::module_& m)
{
    m.def("emulate_quant_matmul", &Emulate, nb::arg("a"), nb::arg("a_scale"), nb::arg("a_zero_point"), nb::arg("b"),
          nb::arg("b_scale"), nb::arg("b_zero_point"), nb::arg("bias"), nb::arg("y"), nb::arg("a_shape"),
          nb::arg("b_shape"), nb::arg("b_trans"), nb::arg("a_dtype"), nb::arg("b_dtype"), nb::arg("out_dtype"),
          nb::arg("a_scale_layout"), nb::arg("b_scale_layout"), nb::arg("a_zero_point_layout"),
          nb::arg("b_zero_point_layout"), nb::arg("bias_layout"), nb::arg("a_param_batched"),
          nb::arg("b_param_batched"), nb::arg("bias_batched"), nb::arg("soc"), nb::arg("core_num") = 0,
          nb::arg("ub_size") = 0, nb::arg("a_zp_batched") = false, nb::arg("b_zp_batched") = false,
          "Runs op_kernel/aqo_quant_matmul.cpp in the AscendC CPU emulator for `soc` with the host plan's tiling; "
          "writes y (a uint8 view) in place.");
}

aqo_bind::Registrar kRegisterEmulateQuantMatMul("emulate_quant_matmul", &RegisterEmulateQuantMatMul);

}  // namespace
