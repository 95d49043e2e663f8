// Runner of the timeline model's synthetic validation kernels (op_kernel/emulator/tests/timeline_test_kernels.cpp),
// exposed as _native.timeline_test_*; they exist to test the timeline model, not for users. After a call the
// emulator's last run is the kernel's (its trace is what the timeline model replays).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "emulator/launch.h"
#include "registry.h"

#include "emulator/tests/timeline_test_kernels.cpp"  // include dir op_kernel

namespace nb = nanobind;
using aqo_timeline_tests::CubeLoopTiling;
using aqo_timeline_tests::TimelineTestTiling;

namespace {

using Kernel = void (*)(GM_ADDR, GM_ADDR, GM_ADDR);

// Runs `kernel` on `cores` blocks with x (read-only) and a zeroed y of y_bytes; returns y.
nb::bytes Run(const std::string& soc, const char* name, Kernel kernel, const nb::bytes& x_in, size_t y_bytes,
              const TimelineTestTiling& t, uint32_t cores)
{
    std::vector<uint8_t> x(static_cast<const uint8_t*>(x_in.data()),
                           static_cast<const uint8_t*>(x_in.data()) + x_in.size());
    std::vector<uint8_t> y(y_bytes, 0);
    aqo_emu::Launcher launch(soc, name);
    launch.SetScheduleMode(1);  // as a host sets it for a kernel with SyncAll
    uint8_t* gx = launch.AddGm("x", x.data(), x.size(), aqo_emu::GmAccess::kReadOnly);
    uint8_t* gy = launch.AddGm("y", y.data(), y.size(), aqo_emu::GmAccess::kReadWrite);
    uint8_t* gt = launch.SetTiling(&t, sizeof(t));
    {
        nb::gil_scoped_release release;
        launch.Run(cores, [&] { kernel(gx, gy, gt); });
    }
    return nb::bytes(reinterpret_cast<const char*>(y.data()), y.size());
}

void CheckShares(const nb::bytes& x, uint32_t cores, uint32_t bytes_per_core, uint32_t tile_bytes)
{
    if (cores == 0 || tile_bytes == 0 || tile_bytes % 256 != 0 || bytes_per_core % tile_bytes != 0) {
        throw nb::value_error("timeline test kernels: cores >= 1, tile_bytes a multiple of 256, bytes_per_core a "
                              "multiple of tile_bytes");
    }
    if (x.size() != static_cast<size_t>(cores) * bytes_per_core) {
        throw nb::value_error("timeline test kernels: x must hold cores * bytes_per_core bytes");
    }
}

void RegisterTimelineTestKernels(nb::module_& m)
{
    m.def(
        "timeline_test_copy",
        [](const nb::bytes& x, const std::string& soc, uint32_t cores, uint32_t bytes_per_core, uint32_t tile_bytes,
           uint32_t buffers, uint32_t passes) {
            CheckShares(x, cores, bytes_per_core, tile_bytes);
            TimelineTestTiling t{bytes_per_core, tile_bytes, 0, passes};
            if (buffers == 1) {
                return Run(soc, "timeline_copy_single", &aqo_timeline_tests::TimelineCopy<1>, x, x.size(), t, cores);
            }
            if (buffers == 2) {
                return Run(soc, "timeline_copy_double", &aqo_timeline_tests::TimelineCopy<2>, x, x.size(), t, cores);
            }
            throw nb::value_error("timeline_test_copy: buffers must be 1 or 2");
        },
        nb::arg("x"), nb::arg("soc"), nb::arg("cores"), nb::arg("bytes_per_core"), nb::arg("tile_bytes"),
        nb::arg("buffers"), nb::arg("passes") = 1,
        "Copies x (float32 bytes) to y through UB on `cores` cores, `buffers` (1 or 2) buffers per queue, `passes` "
        "times; returns y.");

    m.def(
        "timeline_test_scalar_round_trip",
        [](const nb::bytes& x, const std::string& soc, uint32_t cores, uint32_t bytes_per_core, uint32_t tile_bytes,
           bool per_chunk) {
            CheckShares(x, cores, bytes_per_core, tile_bytes);
            TimelineTestTiling t{bytes_per_core, tile_bytes, per_chunk ? 1u : 0u, 1u};
            return Run(soc, per_chunk ? "timeline_round_trip_per_chunk" : "timeline_round_trip_per_tile",
                       &aqo_timeline_tests::TimelineScalarRoundTrip, x, static_cast<size_t>(cores) * 32, t, cores);
        },
        nb::arg("x"), nb::arg("soc"), nb::arg("cores"), nb::arg("bytes_per_core"), nb::arg("tile_bytes"),
        nb::arg("per_chunk"),
        "Per core the maximum of its float32 share of x, read by the scalar unit after each 256-byte ReduceMax "
        "(per_chunk) or once per tile; returns y: 8 copies of each core's maximum per core.");

    m.def(
        "timeline_test_cube_loop",
        [](const nb::bytes& a_in, const nb::bytes& b_in, const std::string& soc, uint32_t cores, uint32_t m_,
           uint32_t n, uint32_t k, uint32_t repeats) {
            if (cores == 0 || m_ == 0 || n == 0 || k == 0 || m_ % 16 || n % 16 || k % 32 ||
                a_in.size() != static_cast<size_t>(m_) * k || b_in.size() != static_cast<size_t>(k) * n) {
                throw nb::value_error("timeline_test_cube_loop: m, n multiples of 16, k of 32; a m x k, b k x n "
                                      "int8 bytes");
            }
            std::vector<uint8_t> a(static_cast<const uint8_t*>(a_in.data()),
                                   static_cast<const uint8_t*>(a_in.data()) + a_in.size());
            std::vector<uint8_t> b(static_cast<const uint8_t*>(b_in.data()),
                                   static_cast<const uint8_t*>(b_in.data()) + b_in.size());
            std::vector<uint8_t> c(static_cast<size_t>(cores) * m_ * n * 4, 0);
            CubeLoopTiling t{};
            t.repeats = repeats;
            t.m = m_;
            t.n = n;
            t.k = k;
            t.cube.usedCoreNum = static_cast<int32_t>(cores);
            t.cube.M = t.cube.singleCoreM = static_cast<int32_t>(m_);
            t.cube.N = t.cube.singleCoreN = static_cast<int32_t>(n);
            t.cube.Ka = t.cube.Kb = t.cube.singleCoreK = static_cast<int32_t>(k);
            t.cube.baseM = 128;
            t.cube.baseN = 256;
            t.cube.baseK = 64;
            // L0 double buffered; in L1, when they fit, B's K tiles for every N block (one N step, ORDER_M: kept
            // over all M blocks) and one M block's A tiles (kept over its N blocks), so that the API reads each
            // operand byte once; else one slot per operand block, double buffered (every block reloads its tiles)
            const int32_t k_iter = static_cast<int32_t>((k + 63) / 64);
            const int32_t n_iter = static_cast<int32_t>((n + 255) / 256);
            t.cube.depthA1 = t.cube.depthB1 = 2;
            t.cube.stepM = t.cube.stepN = t.cube.stepKa = t.cube.stepKb = 1;
            if (static_cast<uint64_t>(k_iter) * (128 * 64 + n_iter * 64 * 256) <= 512 * 1024) {
                t.cube.depthA1 = k_iter;
                t.cube.stepN = n_iter;
                t.cube.depthB1 = k_iter * n_iter;
            }
            t.cube.dbL0A = t.cube.dbL0B = 2;
            t.cube.dbL0C = 1;
            aqo_emu::Launcher launch(soc, "timeline_cube_loop");
            // The build makes a kernel with a Matmul object a 1:2 mix kernel (split SoCs); the API's messages go
            // through the system workspace.
            launch.SetKernelType(aqo_emu::kKernelTypeMixAic12);
            launch.AllowPartialMixGroup(true);
            const uint64_t reserve = launch.soc().system_workspace_bytes;
            std::unique_ptr<uint8_t[]> ws(new uint8_t[reserve + 32]);
            launch.AddWorkspace("workspace", ws.get(), reserve + 32, reserve);
            uint8_t* ga = launch.AddGm("a", a.data(), a.size(), aqo_emu::GmAccess::kReadOnly);
            uint8_t* gb = launch.AddGm("b", b.data(), b.size(), aqo_emu::GmAccess::kReadOnly);
            uint8_t* gc = launch.AddGm("c", c.data(), c.size(), aqo_emu::GmAccess::kReadWrite);
            uint8_t* gt = launch.SetTiling(&t, sizeof(t));
            {
                nb::gil_scoped_release release;
                launch.Run(cores, [&] { aqo_timeline_tests::TimelineCubeLoop(ga, gb, gc, gt); });
            }
            return nb::bytes(reinterpret_cast<const char*>(c.data()), c.size());
        },
        nb::arg("a"), nb::arg("b"), nb::arg("soc"), nb::arg("cores"), nb::arg("m"), nb::arg("n"), nb::arg("k"),
        nb::arg("repeats"),
        "Each of `cores` cores computes its C = A B (int8 -> int32) `repeats` times through the Matmul API; returns "
        "every core's C.");

    m.def(
        "timeline_test_cube_decode_310p",
        [](const nb::bytes& ab, uint32_t k, uint32_t n, uint32_t cores, uint32_t rows, uint32_t ksplit) {
            const uint32_t cols = ksplit == 0 || cores % ksplit ? 0 : n * ksplit / cores;
            if (cores == 0 || (rows != 32 && rows != 64) || (ksplit != 1 && ksplit != 2) || cores % ksplit ||
                k == 0 || k % (rows * ksplit) || k / ksplit > 4096 || n == 0 || (n * ksplit) % cores || cols % 32 ||
                rows * cols > 32768 || ab.size() != static_cast<size_t>(16) * k + static_cast<size_t>(k) * n) {
                throw nb::value_error("timeline_test_cube_decode_310p: rows 32 or 64, ksplit 1 or 2 (dividing the "
                                      "cores); k / ksplit a multiple of rows up to 4096; n * ksplit / cores (a core's "
                                      "columns) a multiple of 32, rows x columns at most 32 KiB; ab holds A (16 x k) "
                                      "then B (k x n) int8");
            }
            aqo_timeline_tests::CubeDecodeTiling t{k, n, cols, rows, ksplit};
            std::vector<uint8_t> x(static_cast<const uint8_t*>(ab.data()),
                                   static_cast<const uint8_t*>(ab.data()) + ab.size());
            std::vector<uint8_t> c(static_cast<size_t>(16) * n * 4, 0);
            aqo_emu::Launcher launch("ascend310p", "timeline_test_cube_decode_310p");
            launch.SetScheduleMode(1);  // as a host sets it for a kernel with SyncAll
            uint8_t* gx = launch.AddGm("ab", x.data(), x.size(), aqo_emu::GmAccess::kReadOnly);
            uint8_t* gc = launch.AddGm("c", c.data(), c.size(), aqo_emu::GmAccess::kReadWrite);
            // the workspace: SyncAll counters (zero at launch), then every core's partial C
            std::vector<uint8_t> ws(static_cast<size_t>(cores) * 32 + static_cast<size_t>(cores) * 16 * cols * 4, 0);
            uint8_t* gw = launch.AddGm("ws", ws.data(), ws.size(), aqo_emu::GmAccess::kReadWriteShared,
                                       aqo_emu::GmInit::kData);
            uint8_t* gt = launch.SetTiling(&t, sizeof(t));
            {
                nb::gil_scoped_release release;
                launch.Run(cores, [&] { aqo_timeline_tests::TimelineCubeDecode310p(gx, gc, gw, gt); });
            }
            return nb::bytes(reinterpret_cast<const char*>(c.data()), c.size());
        },
        nb::arg("ab"), nb::arg("k"), nb::arg("n"), nb::arg("cores"), nb::arg("rows") = 32, nb::arg("ksplit") = 1,
        "ascend310p: the cores compute A B through the kernel's own cube pipeline (KernelCubeDecode310p), each on a "
        "column slice of B (and, with ksplit 2, a K slice); returns C (16 x n int32, row-major).");
}

aqo_bind::Registrar kRegisterTimelineTestKernels("timeline_test_kernels", &RegisterTimelineTestKernels);

}  // namespace
