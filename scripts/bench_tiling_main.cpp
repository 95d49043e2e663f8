// Host time of one DynamicQuant tiling call (aqo::PlanDynamicQuant); built and run by scripts/bench_tiling.sh.
// Prints ns per call for a few shapes per SoC, on the launch path (request.explain = false, what the CANN
// TilingFunc calls) and with the explanation (what Python and the scripts get): the best of 5 rounds, each round the mean over enough calls to last
// about 0.1 s. A benchmark, not a test: numbers depend on the machine and its load.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "constraints.h"
#include "dynamic_quant_plan.h"
#include "soc_table.h"

namespace {

struct Case {
    const char* soc;
    std::vector<int64_t> shape;
    aqo::DType x;
    aqo::DType dst;
    bool smooth;
};

volatile uint64_t g_sink = 0;  // keeps the calls from being optimised away

template <class Fn>
double BestNsPerCall(Fn fn)
{
    using Clock = std::chrono::steady_clock;
    // Calibrate: calls per round so that a round lasts about 0.1 s.
    uint64_t n = 64;
    for (;;) {
        const auto t0 = Clock::now();
        for (uint64_t i = 0; i < n; ++i) {
            fn();
        }
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        if (s > 0.02 || n > (1u << 26)) {
            n = static_cast<uint64_t>(n * (0.1 / (s > 1e-9 ? s : 1e-9)));
            break;
        }
        n *= 4;
    }
    if (n < 16) {
        n = 16;
    }
    double best = 1e300;
    for (int round = 0; round < 5; ++round) {
        const auto t0 = Clock::now();
        for (uint64_t i = 0; i < n; ++i) {
            fn();
        }
        const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / n;
        best = ns < best ? ns : best;
    }
    return best;
}

std::string ShapeStr(const std::vector<int64_t>& s) { return aqo::ShapeText(s.data(), s.size()); }

}  // namespace

int main(int argc, char** argv)
{
    const bool check_too = argc > 1 && std::strcmp(argv[1], "--check-request-only") == 0;
    using aqo::DType;
    const std::vector<Case> cases = {
        {"ascend910b", {1, 4096}, DType::FLOAT16, DType::INT8, false},
        {"ascend910b", {4096, 7168}, DType::BFLOAT16, DType::INT8, false},
        {"ascend910b", {128, 26624}, DType::FLOAT16, DType::INT8, true},
        {"ascend910b3", {16, 2048, 4096}, DType::FLOAT16, DType::INT8, false},
        {"ascend310p", {7, 4096}, DType::FLOAT16, DType::INT8, false},
        {"ascend310p", {4096, 4064}, DType::FLOAT16, DType::INT8, true},
        {"ascend910_95", {4096, 7168}, DType::BFLOAT16, DType::FLOAT8_E4M3FN, false},
        {"ascend910_95", {64, 1000000}, DType::FLOAT16, DType::HIFLOAT8, false},
    };
    std::printf("%-14s %-18s %-9s %-14s %-6s %-22s %12s %14s\n", "soc", "x shape", "x", "dst", "smooth", "mode",
                "ns/call", "ns explained");
    bool any_refused = false;
    double worst = 0.0;
    for (const Case& c : cases) {
        aqo::DynamicQuantRequest req;
        req.shape = c.shape;
        req.x_dtype = c.x;
        req.dst_type = c.dst;
        req.smooth = c.smooth;
        req.soc = c.soc;
        aqo::DynamicQuantPlan plan;
        aqo::ConstraintViolation v;
        if (!aqo::PlanDynamicQuant(req, &plan, &v)) {
            std::printf("%-14s %-18s refused: %s (%s, actual %s)\n", c.soc, ShapeStr(c.shape).c_str(),
                        v.constraint.c_str(), v.limit.c_str(), v.actual.c_str());
            any_refused = true;
            continue;
        }
        const std::string mode = plan.explanation.mode;
        // The launch path (CANN TilingFunc): tiling only, request.explain = false.
        aqo::DynamicQuantRequest fast = req;
        fast.explain = false;
        const double ns = BestNsPerCall([&]() {
            aqo::DynamicQuantPlan p;
            aqo::ConstraintViolation vv;
            const bool ok = aqo::PlanDynamicQuant(fast, &p, &vv);
            g_sink = g_sink + (ok ? p.tiling.rowsPerIter : 1u);
        });
        // With the explanation (Python, scripts): strings and vectors, not on the launch path.
        const double ns_explained = BestNsPerCall([&]() {
            aqo::DynamicQuantPlan p;
            aqo::ConstraintViolation vv;
            const bool ok = aqo::PlanDynamicQuant(req, &p, &vv);
            g_sink = g_sink + (ok ? p.tiling.rowsPerIter : 1u);
        });
        std::printf("%-14s %-18s %-9s %-14s %-6s %-22s %12.0f %14.0f%s\n", c.soc, ShapeStr(c.shape).c_str(),
                    aqo::DTypeName(c.x), aqo::DTypeName(c.dst), c.smooth ? "yes" : "no", mode.c_str(), ns,
                    ns_explained, ns < 2000.0 ? "" : "   (launch path over the 2 us target)");
        worst = ns > worst ? ns : worst;
        if (check_too) {
            aqo::SocSpec spec;
            aqo::SocFromName(c.soc, &spec);
            aqo::DynamicQuantRequestView view;
            view.shape = c.shape.data();
            view.rank = c.shape.size();
            view.x_dtype = c.x;
            view.dst_type = c.dst;
            view.smooth = c.smooth;
            const double ns_check = BestNsPerCall([&]() {
                aqo::ConstraintViolation vv;
                g_sink = g_sink + (aqo::CheckDynamicQuantRequest(view, spec, &vv) ? 1u : 2u);
            });
            std::printf("%-14s %-18s   request check alone: %.0f ns\n", "", "", ns_check);
        }
    }
    std::printf("\nlaunch path (explain = false), slowest shape: %.0f ns per call; target < 2000 ns: %s\n", worst,
                worst < 2000.0 ? "met" : "NOT met");
    return any_refused ? 1 : 0;
}
