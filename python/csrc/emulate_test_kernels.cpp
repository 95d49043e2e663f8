// Runner of the emulator's own test kernels (op_kernel/emulator/tests/emu_test_kernels.cpp): the deliberately
// broken fault kernels and the demo kernels whose results tests/emulator compares with numpy. Exposed as
// _native.emulator_fault_* and _native.emulator_demo_*; these exist to test the emulator, not for users.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "emulator/launch.h"
#include "registry.h"

#include "emulator/tests/emu_test_kernels.cpp"  // include dir op_kernel

namespace nb = nanobind;
using aqo_emu_tests::EmuTestTiling;

namespace {

std::vector<uint8_t> ToVector(const nb::bytes& b)
{
    const uint8_t* p = static_cast<const uint8_t*>(b.data());
    return std::vector<uint8_t>(p, p + b.size());
}

nb::bytes ToBytes(const std::vector<uint8_t>& v, size_t n)
{
    return nb::bytes(reinterpret_cast<const char*>(v.data()), n);
}

// Runs `kernel` on x (read-only) and y (read-write, y_bytes) with the tiling; returns y.
// With `mix`, the kernel is the build's 1:2 mix kernel on split SoCs (it has a Matmul object) on a single vector core.
// Every launch has a workspace (the SoC's system part only), as custom operators do.
std::vector<uint8_t> RunDemo(const std::string& soc, const char* name, aqo_emu_tests::FaultKernel kernel,
                             std::vector<uint8_t> x, size_t y_bytes, const EmuTestTiling& t, uint32_t block_dim = 1,
                             bool y_shared = false, bool mix = false, uint32_t ub_bytes = 0)
{
    std::vector<uint8_t> y(y_bytes, 0);
    aqo_emu::Launcher launch(soc, name, ub_bytes);
    launch.SetScheduleMode(1);  // as a host sets it for a kernel with SyncAll (several of these kernels have one)
    const uint64_t reserve = launch.soc().system_workspace_bytes;
    std::unique_ptr<uint8_t[]> ws(new uint8_t[reserve + 32]);
    launch.AddWorkspace("workspace", ws.get(), reserve + 32, reserve);
    if (mix) {
        launch.SetKernelType(aqo_emu::kKernelTypeMixAic12);
        launch.AllowPartialMixGroup(true);
    }
    uint8_t* gx = launch.AddGm("x", x.data(), x.size(), aqo_emu::GmAccess::kReadOnly);
    // y is test data here (zeros the host wrote: several kernels use part of it as a SyncAll workspace), not an
    // output the kernels must write completely; the device-fidelity kernels test outputs (emulate_fidelity_faults.cpp).
    uint8_t* gy = launch.AddGm("y", y.data(), y.size(),
                               y_shared ? aqo_emu::GmAccess::kReadWriteShared : aqo_emu::GmAccess::kReadWrite,
                               aqo_emu::GmInit::kData);
    uint8_t* gt = launch.SetTiling(&t, sizeof(t));
    nb::gil_scoped_release release;
    launch.Run(block_dim, [&] { kernel(gx, gy, gt); });
    return y;
}

size_t ElemBytes(const std::string& dtype)
{
    if (dtype == "float32" || dtype == "int32") return 4;
    if (dtype == "float16" || dtype == "bfloat16" || dtype == "int16") return 2;
    if (dtype == "int8" || dtype == "uint8" || dtype == "float8_e4m3fn" || dtype == "float8_e5m2" ||
        dtype == "hifloat8")
        return 1;
    throw nb::value_error(("unknown dtype " + dtype).c_str());
}

struct CastKernelEntry {
    const char* src;
    const char* dst;
    aqo_emu_tests::FaultKernel kernel;
};

#define AQO_CAST(S, D, SN, DN) {SN, DN, &aqo_emu_tests::DemoCast<S, D>}
const CastKernelEntry kCastKernels[] = {
    AQO_CAST(float, half, "float32", "float16"),
    AQO_CAST(half, float, "float16", "float32"),
    AQO_CAST(float, int32_t, "float32", "int32"),
    AQO_CAST(int32_t, float, "int32", "float32"),
    AQO_CAST(half, int8_t, "float16", "int8"),
    AQO_CAST(half, uint8_t, "float16", "uint8"),
    AQO_CAST(half, int32_t, "float16", "int32"),
    AQO_CAST(int8_t, half, "int8", "float16"),
    AQO_CAST(int32_t, half, "int32", "float16"),
    AQO_CAST(float, bfloat16_t, "float32", "bfloat16"),
    AQO_CAST(bfloat16_t, float, "bfloat16", "float32"),
    AQO_CAST(float, fp8_e4m3fn_t, "float32", "float8_e4m3fn"),
    AQO_CAST(float, fp8_e5m2_t, "float32", "float8_e5m2"),
    AQO_CAST(float, hifloat8_t, "float32", "hifloat8"),
};
#undef AQO_CAST

void RegisterEmulatorTestKernels(nb::module_& m)
{
    m.def(
        "emulator_fault_names",
        []() {
            size_t n = 0;
            const aqo_emu_tests::FaultEntry* f = aqo_emu_tests::FaultKernels(&n);
            std::vector<std::string> names;
            for (size_t i = 0; i < n; ++i) names.emplace_back(f[i].name);
            return names;
        },
        "Names of the emulator's deliberately broken test kernels.");

    m.def(
        "emulator_fault_demo",
        [](const std::string& name, const std::string& soc, bool y_shared) {
            size_t n = 0;
            const aqo_emu_tests::FaultEntry* f = aqo_emu_tests::FaultKernels(&n);
            for (size_t i = 0; i < n; ++i) {
                if (name != f[i].name) continue;
                std::vector<uint8_t> x(256 * sizeof(float));
                for (int k = 0; k < 256; ++k) {
                    const float v = static_cast<float>(k) - 100.0f;
                    std::memcpy(x.data() + k * sizeof(float), &v, sizeof(float));
                }
                EmuTestTiling t{};
                t.n = 64;
                RunDemo(soc, f[i].name, f[i].kernel, x, 256 * sizeof(float), t, f[i].block_dim,
                        y_shared || f[i].y_shared, f[i].mix, f[i].ub_bytes);
                return;
            }
            throw nb::value_error(("unknown fault kernel " + name).c_str());
        },
        nb::arg("name"), nb::arg("soc"), nb::arg("y_shared") = false,
        "Runs one deliberately broken kernel of `soc` (on one core, or two for multi-core faults); the emulator "
        "is expected to raise EmulatorError naming the faulty line of op_kernel/emulator/tests/emu_test_kernels.cpp. "
        "y_shared registers y as kReadWriteShared (cross-core writes allowed).");

    m.def(
        "emulator_twin_names",
        []() {
            size_t n = 0;
            const aqo_emu_tests::FaultEntry* f = aqo_emu_tests::CorrectTwins(&n);
            std::vector<std::string> names;
            for (size_t i = 0; i < n; ++i) names.emplace_back(f[i].name);
            return names;
        },
        "Names of the correct twins of the emulator's ordering fault kernels.");

    m.def(
        "emulator_twin_demo",
        [](const std::string& name, const std::string& soc) {
            size_t n = 0;
            const aqo_emu_tests::FaultEntry* f = aqo_emu_tests::CorrectTwins(&n);
            for (size_t i = 0; i < n; ++i) {
                if (name != f[i].name) continue;
                std::vector<uint8_t> x(256 * sizeof(float));
                for (int k = 0; k < 256; ++k) {
                    const float v = static_cast<float>(k) - 100.0f;
                    std::memcpy(x.data() + k * sizeof(float), &v, sizeof(float));
                }
                EmuTestTiling t{};
                t.n = 64;
                std::vector<uint8_t> y =
                    RunDemo(soc, f[i].name, f[i].kernel, x, 256 * sizeof(float), t, f[i].block_dim, f[i].y_shared,
                            f[i].mix);
                return ToBytes(y, y.size());
            }
            throw nb::value_error(("unknown twin kernel " + name).c_str());
        },
        nb::arg("name"), nb::arg("soc"), "Runs the correct twin of an ordering fault kernel; returns y.");

    m.def(
        "emulator_misuse_demo",
        [](const std::string& name) {
            std::vector<uint8_t> buf(64);
            if (name == "api_outside_launch") {
                // A kernel API called with no launch running (no core context).
                AscendC::GlobalTensor<float> g;
                g.SetGlobalBuffer(reinterpret_cast<float*>(buf.data()), 16);
            } else if (name == "block_dim_zero") {
                aqo_emu::Launcher launch("ascend910b", "misuse");
                launch.Run(0, [] {});
            } else if (name == "null_gm_buffer") {
                aqo_emu::Launcher launch("ascend910b", "misuse");
                launch.AddGm("x", nullptr, 64, aqo_emu::GmAccess::kReadOnly);
            } else if (name == "no_tiling") {
                aqo_emu::Launcher launch("ascend910b", "misuse");
                uint8_t* x = launch.AddGm("x", buf.data(), buf.size(), aqo_emu::GmAccess::kReadOnly);
                launch.Run(1, [&] { aqo_emu_tests::FaultTilingTooShort(x, x, x); });
            } else {
                throw nb::value_error(("unknown misuse case " + name).c_str());
            }
        },
        nb::arg("name"),
        "Launcher / API misuse outside kernels: api_outside_launch, block_dim_zero, null_gm_buffer, no_tiling.");

    m.def(
        "emulator_demo_cast",
        [](nb::bytes src, const std::string& src_dtype, const std::string& dst_dtype, int mode,
           const std::string& soc, double deq_scale, bool set_deq_scale, bool ieee_half_mode) {
            for (const CastKernelEntry& e : kCastKernels) {
                if (src_dtype != e.src || dst_dtype != e.dst) continue;
                const size_t sb = ElemBytes(src_dtype);
                const size_t db = ElemBytes(dst_dtype);
                const size_t n = src.size() / sb;
                // Pad to a count whose bytes are 32-byte multiples in both types (DataCopy moves whole blocks).
                size_t n_pad = (n + 31) / 32 * 32;
                std::vector<uint8_t> x = ToVector(src);
                x.resize(n_pad * sb, 0);
                EmuTestTiling t{};
                t.n = static_cast<uint32_t>(n_pad);
                t.mode = static_cast<uint32_t>(mode);
                t.scalar = static_cast<float>(deq_scale);
                t.flags = (set_deq_scale ? 1u : 0u) | (ieee_half_mode ? 2u : 0u);
                std::vector<uint8_t> y = RunDemo(soc, "emu_demo_cast", e.kernel, x, n_pad * db, t);
                return ToBytes(y, n * db);
            }
            throw nb::value_error(("no cast demo kernel for " + src_dtype + " -> " + dst_dtype).c_str());
        },
        nb::arg("src"), nb::arg("src_dtype"), nb::arg("dst_dtype"), nb::arg("mode"), nb::arg("soc"),
        nb::arg("deq_scale") = 1.0, nb::arg("set_deq_scale") = false, nb::arg("ieee_half_mode") = false,
        "Cast of raw element bytes with RoundMode `mode` (0 NONE .. 6 ODD) on the emulated vector unit; "
        "ieee_half_mode: the kernel sets CTRL[48] first.");

    m.def(
        "emulator_demo_elementwise",
        [](nb::bytes x0, nb::bytes x1, const std::string& dtype, int mode, double scalar, const std::string& soc) {
            const size_t eb = ElemBytes(dtype);
            if (x0.size() != x1.size() || x0.size() % 32 != 0) {
                throw nb::value_error("x0 and x1 must have equal sizes that are multiples of 32 bytes");
            }
            std::vector<uint8_t> x = ToVector(x0);
            std::vector<uint8_t> b = ToVector(x1);
            x.insert(x.end(), b.begin(), b.end());
            EmuTestTiling t{};
            t.n = static_cast<uint32_t>(x0.size() / eb);
            t.mode = static_cast<uint32_t>(mode);
            t.scalar = static_cast<float>(scalar);
            aqo_emu_tests::FaultKernel k = nullptr;
            if (dtype == "float32") k = &aqo_emu_tests::DemoElementwise<float>;
            else if (dtype == "float16") k = &aqo_emu_tests::DemoElementwise<half>;
            else if (dtype == "int32") k = &aqo_emu_tests::DemoElementwise<int32_t>;
            else throw nb::value_error(("no elementwise demo for " + dtype).c_str());
            std::vector<uint8_t> y = RunDemo(soc, "emu_demo_elementwise", k, x, x0.size(), t);
            return ToBytes(y, y.size());
        },
        nb::arg("x0"), nb::arg("x1"), nb::arg("dtype"), nb::arg("mode"), nb::arg("scalar"), nb::arg("soc"),
        "Elementwise vector op (0 Add 1 Sub 2 Mul 3 Div 4 Max 5 Min 10 Adds 11 Muls 12 Maxs 13 Mins 20 Abs "
        "21 Duplicate).");

    m.def(
        "emulator_demo_level0",
        [](nb::bytes x, uint32_t n, int mode, uint32_t mask, const std::string& soc) {
            if (x.size() != (n + 64) * sizeof(float) || n % 64 != 0 || n == 0 || n / 64 > 256) {
                throw nb::value_error("x must hold n + 64 floats, n a multiple of 64 up to 64 x 256");
            }
            EmuTestTiling t{};
            t.n = n;
            t.mode = static_cast<uint32_t>(mode);
            t.rows = mask;
            std::vector<uint8_t> y = RunDemo(soc, "emu_demo_level0", &aqo_emu_tests::DemoLevel0, ToVector(x),
                                             n * sizeof(float), t);
            return ToBytes(y, y.size());
        },
        nb::arg("x"), nb::arg("n"), nb::arg("mode"), nb::arg("mask"), nb::arg("soc"),
        "Level-0 vector forms (see DemoLevel0 in emu_test_kernels.cpp for the modes).");

    m.def(
        "emulator_demo_brcb",
        [](nb::bytes x, const std::string& dtype, uint32_t repeat, uint32_t blk, uint32_t rep, uint32_t y_bytes,
           const std::string& soc) {
            const size_t elem = dtype == "float32" ? 4 : (dtype == "float16" ? 2 : 0);
            if (elem == 0) throw nb::value_error("dtype must be float32 or float16");
            if (x.size() != (repeat * 8 * elem + 31) / 32 * 32 || y_bytes % 32 != 0 || y_bytes == 0) {
                throw nb::value_error("x must hold repeat * 8 elements padded to 32 bytes; y_bytes a multiple of 32");
            }
            EmuTestTiling t{};
            t.n = y_bytes;
            t.mode = elem == 4 ? 0u : 1u;
            t.rows = repeat;
            t.cols = blk;
            t.left = rep;
            std::vector<uint8_t> y = RunDemo(soc, "emu_demo_brcb", &aqo_emu_tests::DemoBrcb, ToVector(x), y_bytes, t);
            return ToBytes(y, y.size());
        },
        nb::arg("x"), nb::arg("dtype"), nb::arg("repeat"), nb::arg("blk"), nb::arg("rep"), nb::arg("y_bytes"),
        nb::arg("soc"), "Brcb (see DemoBrcb in emu_test_kernels.cpp); returns y's bytes.");

    m.def(
        "emulator_demo_trans_data",
        [](nb::bytes x, const std::string& dtype, uint32_t rows, uint32_t cols, const std::string& soc) {
            const size_t elem = dtype == "int8" ? 1 : (dtype == "float16" ? 2 : 0);
            if (elem == 0) throw nb::value_error("dtype must be int8 or float16");
            const uint32_t c0 = elem == 1 ? 32 : 16;
            if (rows == 0 || cols == 0 || rows % c0 != 0 || cols % c0 != 0 || rows / c0 > 255 ||
                x.size() != size_t{rows} * cols * elem) {
                throw nb::value_error("x must be a [rows, cols] matrix, rows and cols multiples of 32 (int8) or 16 "
                                      "(float16), rows / that at most 255");
            }
            EmuTestTiling t{};
            t.mode = elem == 1 ? 0u : 1u;
            t.rows = rows;
            t.cols = cols;
            std::vector<uint8_t> y = RunDemo(soc, "emu_demo_trans_data", &aqo_emu_tests::DemoTransData, ToVector(x),
                                             x.size(), t);
            return ToBytes(y, y.size());
        },
        nb::arg("x"), nb::arg("dtype"), nb::arg("rows"), nb::arg("cols"), nb::arg("soc"),
        "TransDataTo5HD (see DemoTransData in emu_test_kernels.cpp); returns y's bytes.");

    m.def(
        "emulator_demo_l1",
        [](nb::bytes x, uint32_t rows, uint32_t cols, uint32_t gap, int mode, const std::string& soc) {
            const size_t n = x.size() / sizeof(float);
            if (n == 0 || n % 64 != 0 || size_t{rows} * cols * 8 > n || rows == 0 || cols == 0) {
                throw nb::value_error("x must hold a multiple of 64 floats, at least rows * cols blocks");
            }
            EmuTestTiling t{};
            t.n = static_cast<uint32_t>(n);
            t.mode = static_cast<uint32_t>(mode);
            t.rows = rows;
            t.cols = cols;
            t.left = gap;
            std::vector<uint8_t> y = RunDemo(soc, "emu_demo_l1", &aqo_emu_tests::DemoL1, ToVector(x), x.size(), t);
            return ToBytes(y, y.size());
        },
        nb::arg("x"), nb::arg("rows"), nb::arg("cols"), nb::arg("gap"), nb::arg("mode"), nb::arg("soc"),
        "UB -> L1 -> UB round trip (see DemoL1 in emu_test_kernels.cpp); returns y's bytes.");

    m.def(
        "emulator_demo_cube",
        [](nb::bytes ab, uint32_t k, uint32_t n, int mode, const std::string& soc) {
            if (k == 0 || k % 64 != 0 || n == 0 || n % 32 != 0 || k / 32 * (n / 16) > 255 ||
                ab.size() != size_t{16} * k + size_t{k} * n) {
                throw nb::value_error("ab must hold A [16, k] then B [k, n] int8; k a multiple of 64, n of 32, "
                                      "k / 32 * n / 16 at most 255");
            }
            EmuTestTiling t{};
            t.mode = static_cast<uint32_t>(mode);
            t.rows = n;
            t.cols = k;
            std::vector<uint8_t> x = ToVector(ab);
            x.resize((x.size() + 31) / 32 * 32, 0);
            std::vector<uint8_t> y = RunDemo(soc, "emu_demo_cube", &aqo_emu_tests::DemoCube, x, size_t{16} * n * 4, t);
            return ToBytes(y, y.size());
        },
        nb::arg("ab"), nb::arg("k"), nb::arg("n"), nb::arg("mode"), nb::arg("soc"),
        "A kernel's own int8 cube pipeline (see DemoCube in emu_test_kernels.cpp); returns C's int32 bytes in L0C "
        "order.");

    m.def(
        "emulator_demo_cube_laid",
        [](nb::bytes ab, uint32_t m, uint32_t k, uint32_t n, int mode, const std::string& soc) {
            const size_t m1 = (m + 15) / 16, k1 = (k + 31) / 32, n1 = (n + 15) / 16;
            if (m < 2 || k == 0 || n == 0 || m1 * k1 > 128 || k1 * n1 > 128 || m1 > 255 ||
                ab.size() != (m1 * k1 + k1 * n1) * 512) {
                throw nb::value_error("ab must hold A as [K1][16 M1][32] then B as [K1][N1][16][32] int8 (L0A / L0B "
                                      "within 64 KiB, m >= 2)");
            }
            EmuTestTiling t{};
            t.mode = static_cast<uint32_t>(mode);
            t.rows = m;
            t.cols = k;
            t.n = n;
            std::vector<uint8_t> y = RunDemo(soc, "emu_demo_cube_laid", &aqo_emu_tests::DemoCubeLaid, ToVector(ab),
                                             m1 * n1 * 1024, t);
            return ToBytes(y, y.size());
        },
        nb::arg("ab"), nb::arg("m"), nb::arg("k"), nb::arg("n"), nb::arg("mode"), nb::arg("soc"),
        "The cube instructions at general shapes (see DemoCubeLaid in emu_test_kernels.cpp); returns y's bytes.");

    m.def(
        "emulator_demo_reduce",
        [](nb::bytes x, const std::string& dtype, int mode, const std::string& soc) {
            const size_t eb = ElemBytes(dtype);
            const size_t n = x.size() / eb;
            std::vector<uint8_t> xv = ToVector(x);
            xv.resize((xv.size() + 31) / 32 * 32, 0);
            EmuTestTiling t{};
            t.n = static_cast<uint32_t>(n);
            t.mode = static_cast<uint32_t>(mode);
            aqo_emu_tests::FaultKernel k = nullptr;
            if (dtype == "float32") k = &aqo_emu_tests::DemoReduce<float>;
            else if (dtype == "float16") k = &aqo_emu_tests::DemoReduce<half>;
            else throw nb::value_error(("no reduce demo for " + dtype).c_str());
            std::vector<uint8_t> y = RunDemo(soc, "emu_demo_reduce", k, xv, 32, t);
            return ToBytes(y, y.size());
        },
        nb::arg("x"), nb::arg("dtype"), nb::arg("mode"), nb::arg("soc"),
        "ReduceMax (0), ReduceMin (1), ReduceSum (2), ReduceMax with index (3): 32 bytes, result first.");

    m.def(
        "emulator_demo_datacopypad",
        [](nb::bytes x, uint32_t rows, uint32_t cols, uint32_t gap, uint32_t left, uint32_t right, float pad_value,
           const std::string& soc) {
            EmuTestTiling t{};
            t.rows = rows;
            t.cols = cols;
            t.left = left;
            t.right = right;
            t.scalar = pad_value;
            t.scalar2 = static_cast<float>(gap);
            const size_t y_elems = static_cast<size_t>(rows) * (left + cols + right) + static_cast<size_t>(rows) * cols;
            std::vector<uint8_t> y =
                RunDemo(soc, "emu_demo_datacopypad", &aqo_emu_tests::DemoDataCopyPad, ToVector(x), y_elems * 4, t);
            return ToBytes(y, y.size());
        },
        nb::arg("x"), nb::arg("rows"), nb::arg("cols"), nb::arg("gap"), nb::arg("left"), nb::arg("right"),
        nb::arg("pad_value"), nb::arg("soc"),
        "DataCopyPad GM->UB with padding, the raw UB rows, then the data rows back through DataCopyPad UB->GM.");

    m.def(
        "emulator_demo_double_buffer",
        [](nb::bytes x, uint32_t tile, float scalar, float scalar2, uint32_t block_dim, const std::string& soc) {
            EmuTestTiling t{};
            t.n = static_cast<uint32_t>(x.size() / 4);
            t.tile = tile;
            t.scalar = scalar;
            t.scalar2 = scalar2;
            std::vector<uint8_t> y = RunDemo(soc, "emu_demo_double_buffer", &aqo_emu_tests::DemoDoubleBuffer,
                                             ToVector(x), x.size(), t, block_dim);
            return ToBytes(y, y.size());
        },
        nb::arg("x"), nb::arg("tile"), nb::arg("scalar"), nb::arg("scalar2"), nb::arg("block_dim"), nb::arg("soc"),
        "Double-buffered pipeline y = x * scalar + scalar2 (float32) in tiles over block_dim cores.");

    m.def(
        "emulator_demo_trace",
        [](const std::string& soc) {
            std::vector<uint8_t> x(64 * sizeof(float));
            for (int k = 0; k < 64; ++k) {
                const float v = static_cast<float>(k + 1);
                std::memcpy(x.data() + k * sizeof(float), &v, sizeof(float));
            }
            EmuTestTiling t{};
            std::vector<uint8_t> y = RunDemo(soc, "emu_demo_trace", &aqo_emu_tests::DemoTrace, x, 16 * sizeof(float), t);
            return ToBytes(y, y.size());
        },
        nb::arg("soc"), "The trace demo kernel (one event of each kind, see emu_test_kernels.cpp); returns y.");

    m.def(
        "emulator_demo_sync_all",
        [](uint32_t block_dim, bool hardware, const std::string& soc) {
            EmuTestTiling t{};
            t.flags = hardware ? 1u : 0u;
            std::vector<uint8_t> x(32, 0);
            std::vector<uint8_t> y = RunDemo(soc, "emu_demo_sync_all", &aqo_emu_tests::DemoSyncAll, x,
                                             1024 + 32 * static_cast<size_t>(block_dim), t, block_dim, true);
            return ToBytes(y, y.size());
        },
        nb::arg("block_dim"), nb::arg("hardware"), nb::arg("soc"),
        "Cores exchanging data through GM across two SyncAll (emu_test_kernels.cpp DemoSyncAll); returns y.");

    m.def(
        "emulator_demo_compare_select",
        [](nb::bytes x, int mode, float scalar, float scalar2, const std::string& soc) {
            EmuTestTiling t{};
            t.n = static_cast<uint32_t>(x.size() / 4);
            t.mode = static_cast<uint32_t>(mode);
            t.scalar = scalar;
            t.scalar2 = scalar2;
            std::vector<uint8_t> y = RunDemo(soc, "emu_demo_compare_select", &aqo_emu_tests::DemoCompareSelect,
                                             ToVector(x), x.size(), t);
            return ToBytes(y, y.size());
        },
        nb::arg("x"), nb::arg("mode"), nb::arg("scalar"), nb::arg("scalar2"), nb::arg("soc"),
        "y = where(x <mode> scalar, x, scalar2) through CompareScalar + Select (float32).");
}

aqo_bind::Registrar kRegisterEmulatorTestKernels("emulator_test_kernels", &RegisterEmulatorTestKernels);

}  // namespace
