// Emulator runner of op_kernel/aqo_dynamic_quant.cpp: the very kernel source, compiled once per SoC with the
// macros bisheng would define, into its own namespace (ODR-safe, see op_kernel/emulator/include/kernel_operator.h),
// driven by the real host plan and tiling data.
//
//   _native.emulate_dynamic_quant(x, smooth, y, scale, offset, shape, x_dtype, dst_type, asymmetric, soc, core_num,
//                                 ub_size)
//     x, smooth, y, scale, offset: contiguous uint8 numpy views of the tensors' bytes (smooth may be None; offset is
//     None when symmetric, else float32 or, for dst uint8, uint8 per row); y, scale and offset are written in place. Returns {"ok": True, "stats": {...}, "plan": {...}} or {"ok": False, "violation": ...}
//     (plan refused) or {"ok": False, "emulator_error": {...}} (the emulator caught a kernel fault).
#include "kernel_operator.h"
#include "emulator/launch.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "aqo_dynamic_quant_tiling.h"
#include "dynamic_quant_plan.h"
#include "emulator_binding.h"
#include "plan_convert.h"
#include "plan_requests.h"
#include "registry.h"

#define AQO_EMU_TILING_CLASS optiling::AqoDynamicQuantTilingData

// ---- ascend910b: dav-c220, vector core ----
#define __CCE_AICORE__ 220
#define __DAV_C220__
#define __DAV_C220_VEC__
#define aqo_dynamic_quant aqo_dynamic_quant_ascend910b
namespace aqo_emu_dq_ascend910b {
struct AqoEmuKernelTag {  // the kernel's TILING_KEY_IS keys are registered under this name
    static constexpr const char* kName = "aqo_dynamic_quant/ascend910b";
};
#include "aqo_dynamic_quant.cpp"
}
#undef aqo_dynamic_quant
#undef __DAV_C220_VEC__
#undef __DAV_C220__
#undef __CCE_AICORE__

// ---- ascend310p: dav-m200, AI core ----
#define __CCE_AICORE__ 200
#define __DAV_M200__
#define aqo_dynamic_quant aqo_dynamic_quant_ascend310p
namespace aqo_emu_dq_ascend310p {
struct AqoEmuKernelTag {  // the kernel's TILING_KEY_IS keys are registered under this name
    static constexpr const char* kName = "aqo_dynamic_quant/ascend310p";
};
#include "aqo_dynamic_quant.cpp"
}
#undef aqo_dynamic_quant
#undef __DAV_M200__
#undef __CCE_AICORE__

// ---- ascend910_95: dav-3510 ----
#define __CCE_AICORE__ 310
#define __DAV_C310__
#define __NPU_ARCH__ 3510
#define aqo_dynamic_quant aqo_dynamic_quant_ascend910_95
namespace aqo_emu_dq_ascend910_95 {
struct AqoEmuKernelTag {  // the kernel's TILING_KEY_IS keys are registered under this name
    static constexpr const char* kName = "aqo_dynamic_quant/ascend910_95";
};
#include "aqo_dynamic_quant.cpp"
}
#undef aqo_dynamic_quant
#undef __NPU_ARCH__
#undef __DAV_C310__
#undef __CCE_AICORE__

// The kernel's tiling codes are the tiling core's values (one source; the kernel cannot include host headers).
namespace kdq = aqo_emu_dq_ascend910b::aqo_dq;
static_assert(kdq::kDTypeFloat16 == static_cast<uint32_t>(aqo::DType::FLOAT16), "kernel dtype code");
static_assert(kdq::kDTypeBFloat16 == static_cast<uint32_t>(aqo::DType::BFLOAT16), "kernel dtype code");
static_assert(kdq::kDTypeInt8 == static_cast<uint32_t>(aqo::DType::INT8), "kernel dtype code");
static_assert(kdq::kDTypeUInt8 == static_cast<uint32_t>(aqo::DType::UINT8), "kernel dtype code");
static_assert(kdq::kDTypeHiFloat8 == static_cast<uint32_t>(aqo::DType::HIFLOAT8), "kernel dtype code");
static_assert(kdq::kDTypeFloat8E4M3FN == static_cast<uint32_t>(aqo::DType::FLOAT8_E4M3FN), "kernel dtype code");
static_assert(kdq::kDTypeFloat8E5M2 == static_cast<uint32_t>(aqo::DType::FLOAT8_E5M2), "kernel dtype code");
static_assert(kdq::kModeResident == static_cast<uint32_t>(aqo::DynamicQuantMode::RESIDENT), "kernel mode / key");
static_assert(kdq::kModeStream == static_cast<uint32_t>(aqo::DynamicQuantMode::STREAM), "kernel mode / key");
static_assert(kdq::kModePipelined == static_cast<uint32_t>(aqo::DynamicQuantMode::PIPELINED), "kernel mode / key");

namespace nb = nanobind;

namespace {

using Bytes = nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

typedef void (*KernelEntry)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);

nb::dict Emulate(Bytes x, nb::object smooth_obj, Bytes y, Bytes scale, nb::object offset_obj,
                 const std::vector<int64_t>& shape, const std::string& x_dtype, const std::string& dst_type,
                 bool asymmetric, const std::string& soc, int64_t core_num, int64_t ub_size)
{
    aqo::ConstraintViolation v;
    aqo::DynamicQuantRequest r;
    if (!aqo_bind::DynamicQuantRequestFromArgs(shape, x_dtype, dst_type, !smooth_obj.is_none(), soc, core_num,
                                               ub_size, &r, &v)) {
        return aqo_bind::RefusedResult(v);
    }
    r.asymmetric = asymmetric;
    aqo::DynamicQuantPlan plan;
    if (!aqo::PlanDynamicQuant(r, &plan, &v)) {
        return aqo_bind::RefusedResult(v);
    }
    const aqo::DynamicQuantTiling& t = plan.tiling;
    const uint64_t x_bytes = t.rows * t.cols * static_cast<uint64_t>(aqo::DTypeBytes(r.x_dtype));
    const uint64_t y_bytes = t.rows * t.cols * static_cast<uint64_t>(aqo::DTypeBytes(r.dst_type));
    const uint64_t s_bytes = t.rows * sizeof(float);
    const uint64_t sm_bytes = t.cols * static_cast<uint64_t>(aqo::DTypeBytes(r.x_dtype));
    if (x.size() != x_bytes || y.size() != y_bytes || scale.size() != s_bytes) {
        throw nb::value_error("emulate_dynamic_quant: buffer sizes do not match the shape and dtypes");
    }
    const uint64_t o_bytes = asymmetric ? t.rows * (r.dst_type == aqo::DType::UINT8 ? 1u : sizeof(float)) : 0;
    Bytes off;
    if (asymmetric) {
        if (offset_obj.is_none()) {
            throw nb::value_error("emulate_dynamic_quant: the asymmetric mode needs an offset buffer");
        }
        off = nb::cast<Bytes>(offset_obj);
        if (off.size() != o_bytes) {
            throw nb::value_error("emulate_dynamic_quant: offset size does not match the rows");
        }
    }
    Bytes sm;
    if (r.smooth) {
        sm = nb::cast<Bytes>(smooth_obj);
        if (sm.size() != sm_bytes) {
            throw nb::value_error("emulate_dynamic_quant: smooth_scales size does not match H");
        }
    }

    const std::string canonical = plan.explanation.soc;
    const KernelEntry entry = aqo_bind::KernelForSoc<KernelEntry>(
        canonical, "emulate_dynamic_quant", &aqo_emu_dq_ascend910b::aqo_dynamic_quant_ascend910b,
        &aqo_emu_dq_ascend310p::aqo_dynamic_quant_ascend310p, &aqo_emu_dq_ascend910_95::aqo_dynamic_quant_ascend910_95);
    optiling::AqoDynamicQuantTilingData td;
    aqo::FillDynamicQuantTilingData(t, &td);

    nb::dict out;
    nb::dict plan_d;
    plan_d["mode"] = plan.explanation.mode;
    plan_d["used_cores"] = plan.explanation.used_cores;
    plan_d["block_dim"] = plan.block_dim;
    plan_d["passes"] = plan.explanation.passes;
    out["plan"] = plan_d;
    if (t.rows == 0) {
        // No row: nothing to launch (y and scale are empty).
        out["ok"] = true;
        out["stats"] = nb::none();
        return out;
    }
    uint8_t dummy[5][32] = {};
    // The workspace as the host sizes it: the SoC's system workspace (the kernel has no part of its own), never
    // touched by the kernel, so left unwritten.
    const uint64_t ws_bytes = plan.system_workspace_bytes + plan.workspace_bytes;
    std::unique_ptr<uint8_t[]> workspace(new uint8_t[ws_bytes]);
    try {
        aqo_emu::Launcher launch(canonical, "aqo_dynamic_quant", plan.explanation.ub_capacity);
        using aqo_bind::AddGmOrStandIn;
        const aqo_emu::GmAccess read_only = aqo_emu::GmAccess::kReadOnly;
        const aqo_emu::GmAccess read_write = aqo_emu::GmAccess::kReadWrite;
        uint8_t* gx = AddGmOrStandIn(launch, "x", x.data(), x_bytes, read_only, dummy[0]);
        uint8_t* gs =
            r.smooth ? AddGmOrStandIn(launch, "smooth_scales", sm.data(), sm_bytes, read_only, dummy[1]) : nullptr;
        uint8_t* gy = AddGmOrStandIn(launch, "y", y.data(), y_bytes, read_write, dummy[2]);
        uint8_t* gsc = AddGmOrStandIn(launch, "scale", scale.data(), s_bytes, read_write, dummy[3]);
        uint8_t* goff =
            asymmetric ? AddGmOrStandIn(launch, "offset", off.data(), o_bytes, read_write, dummy[4]) : nullptr;
        uint8_t* ws = launch.AddWorkspace("workspace", workspace.get(), ws_bytes, plan.system_workspace_bytes);
        uint8_t* tiling = launch.SetTiling(&td, sizeof(td));
        launch.SetTilingKey(plan.tiling_key,
                            aqo_bind::KernelForSoc<const char*>(canonical, "emulate_dynamic_quant",
                                                                aqo_emu_dq_ascend910b::AqoEmuKernelTag::kName,
                                                                aqo_emu_dq_ascend310p::AqoEmuKernelTag::kName,
                                                                aqo_emu_dq_ascend910_95::AqoEmuKernelTag::kName));
        launch.SetDeviceBlockDim(plan.block_dim);  // what the TilingFunc sets (SaveTiling)
        launch.Run(plan.block_dim, [&] { entry(gx, gs, gy, gsc, goff, ws, tiling); });
        out["ok"] = true;
        out["stats"] = aqo_bind::RunStatsToDict(launch.stats(), aqo_bind::CoreStatsDetail::kCounters);
    } catch (const aqo_emu::EmulatorError& e) {
        aqo_bind::SetFaultResult(out, e);
    }
    return out;
}

void RegisterEmulateDynamicQuant(nb::module_& m)
{
    m.def("emulate_dynamic_quant", &Emulate, nb::arg("x"), nb::arg("smooth").none(), nb::arg("y"), nb::arg("scale"),
          nb::arg("offset").none(), nb::arg("shape"), nb::arg("x_dtype"), nb::arg("dst_type"), nb::arg("asymmetric"),
          nb::arg("soc"), nb::arg("core_num") = 0, nb::arg("ub_size") = 0,
          "Runs op_kernel/aqo_dynamic_quant.cpp in the AscendC CPU emulator for `soc` with the host plan's tiling; "
          "writes y, scale and (asymmetric) offset (uint8 views) in place.");
}

aqo_bind::Registrar kRegisterEmulateDynamicQuant("emulate_dynamic_quant", &RegisterEmulateDynamicQuant);

}  // namespace
