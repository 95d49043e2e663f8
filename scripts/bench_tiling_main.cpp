// Host time of one tiling call of each operator (aqo::PlanDynamicQuant, aqo::PlanQLinearMatMul): the functions the
// CANN TilingFuncs call on every launch; built and run by scripts/bench_tiling.sh. Prints ns per call for shapes
// on every SoC, on the launch path (request.explain = false, what the TilingFuncs ask) and with the explanation
// (what Python and the scripts get): the best of 5 rounds, each round the mean over enough calls to last about
// 0.1 s. A benchmark, not a test: numbers depend on the machine and its load. Exit status 1 when a case is refused
// (the list holds accepted shapes only) or the launch path misses its 2 us target.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "constraints.h"
#include "dynamic_quant_plan.h"
#include "qlinear_matmul_plan.h"
#include "quant_matmul_plan.h"
#include "soc_table.h"

namespace {

struct DqCase {
    const char* soc;
    std::vector<int64_t> shape;
    aqo::DType x;
    aqo::DType dst;
    bool smooth;
};

struct QmmCase {
    const char* soc;
    std::vector<int64_t> a, b;
    aqo::DType a_dtype, b_dtype, y_dtype;
    aqo::QuantParamKind a_param, b_param;
};

volatile uint64_t g_sink = 0;  // keeps the calls from being optimised away
const double kTargetNs = 2000.0;

template <class Fn>
double BestNsPerCall(Fn fn)
{
    using Clock = std::chrono::steady_clock;
    // Calibrate: calls per round so that a round lasts about 0.1 s.
    uint64_t n = 16;
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
    if (n < 4) {
        n = 4;
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
    using aqo::QuantParamKind;
    const std::vector<DqCase> dq_cases = {
        {"ascend910b", {1, 4096}, DType::FLOAT16, DType::INT8, false},
        {"ascend910b", {4096, 7168}, DType::BFLOAT16, DType::INT8, false},
        {"ascend910b", {128, 26624}, DType::FLOAT16, DType::INT8, true},
        {"ascend910b3", {16, 2048, 4096}, DType::FLOAT16, DType::INT8, false},
        {"ascend310p", {7, 4096}, DType::FLOAT16, DType::INT8, false},
        {"ascend310p", {4096, 4064}, DType::FLOAT16, DType::INT8, true},
        {"ascend310p", {1 << 24, 32}, DType::FLOAT16, DType::INT8, false},
        {"ascend910_95", {4096, 7168}, DType::BFLOAT16, DType::FLOAT8_E4M3FN, false},
        {"ascend910_95", {64, 1000000}, DType::FLOAT16, DType::HIFLOAT8, false},
        {"ascend910_95", {1 << 23, 1 << 23, 0}, DType::FLOAT16, DType::INT8, false},
    };
    const std::vector<QmmCase> qmm_cases = {
        {"ascend910b", {1, 4096}, {4096, 4096}, DType::INT8, DType::INT8, DType::INT8, QuantParamKind::TENSOR,
         QuantParamKind::TENSOR},
        {"ascend910b", {512, 1024}, {1024, 512}, DType::UINT8, DType::INT8, DType::UINT8, QuantParamKind::ROW,
         QuantParamKind::COLUMN},
        {"ascend910b", {131072, 131071}, {131071, 131072}, DType::INT8, DType::INT8, DType::INT8,
         QuantParamKind::TENSOR, QuantParamKind::COLUMN},
        {"ascend910b", {8, 4, 2048, 128}, {4, 128, 2048}, DType::INT8, DType::UINT8, DType::INT8,
         QuantParamKind::ROW, QuantParamKind::TENSOR},
        {"ascend910b", {1, 4096}, {4096, 4096}, DType::UINT8, DType::UINT8, DType::UINT8, QuantParamKind::TENSOR,
         QuantParamKind::COLUMN},  // the vector decode path (K slices)
        {"ascend910_95", {6, 32768}, {32768, 152064}, DType::INT8, DType::UINT8, DType::INT8, QuantParamKind::ROW,
         QuantParamKind::COLUMN},  // the vector decode path, the widest group search
        {"ascend310p", {1, 4096}, {4096, 152064}, DType::UINT8, DType::UINT8, DType::UINT8, QuantParamKind::TENSOR,
         QuantParamKind::COLUMN},  // the vector decode path on 310p
        {"ascend310p", {16, 8192}, {8192, 152064}, DType::UINT8, DType::INT8, DType::INT8, QuantParamKind::ROW,
         QuantParamKind::COLUMN},  // the cube decode path on 310p
        {"ascend310p", {64, 128}, {128, 26885}, DType::UINT8, DType::INT8, DType::UINT8, QuantParamKind::TENSOR,
         QuantParamKind::TENSOR},
        {"ascend310p", {4096, 4096}, {4096, 152064}, DType::INT8, DType::INT8, DType::INT8, QuantParamKind::ROW,
         QuantParamKind::COLUMN},  // the cube GEMM path on 310p
        {"ascend310p", {4096, 33024}, {33024, 32768}, DType::INT8, DType::INT8, DType::INT8, QuantParamKind::ROW,
         QuantParamKind::COLUMN},  // the cube GEMM path's longest K (9 passes)
        {"ascend310p", {4096, 33056}, {33056, 32768}, DType::INT8, DType::INT8, DType::INT8, QuantParamKind::ROW,
         QuantParamKind::COLUMN},  // the cube path (the Matmul API) on 310p: K beyond the GEMM path's
        {"ascend910_95", {2048, 7168}, {7168, 2048}, DType::FLOAT8_E4M3FN, DType::FLOAT8_E5M2, DType::FLOAT8_E4M3FN,
         QuantParamKind::TENSOR, QuantParamKind::TENSOR},
        {"ascend910_95", {131072, 131071}, {131071, 131072}, DType::INT8, DType::INT8, DType::INT8,
         QuantParamKind::ROW, QuantParamKind::COLUMN},  // the integer cube's K at most (kCubeInt32MaxK)
    };
    bool any_refused = false;
    double worst = 0.0;
    std::printf("dynamic_quant\n%-14s %-22s %-9s %-14s %-6s %-22s %12s %14s\n", "soc", "x shape", "x", "dst", "smooth",
                "mode", "ns/call", "ns explained");
    for (const DqCase& c : dq_cases) {
        aqo::DynamicQuantRequest req;
        req.shape = c.shape;
        req.x_dtype = c.x;
        req.dst_type = c.dst;
        req.smooth = c.smooth;
        req.soc = c.soc;
        aqo::DynamicQuantPlan plan;
        aqo::ConstraintViolation v;
        if (!aqo::PlanDynamicQuant(req, &plan, &v)) {
            std::printf("%-14s %-22s refused: %s (%s, actual %s)\n", c.soc, ShapeStr(c.shape).c_str(),
                        v.constraint.c_str(), v.limit.c_str(), v.actual.c_str());
            any_refused = true;
            continue;
        }
        const std::string mode = plan.explanation.mode;
        aqo::DynamicQuantRequest fast = req;  // the launch path (CANN TilingFunc): tiling only
        fast.explain = false;
        const double ns = BestNsPerCall([&]() {
            aqo::DynamicQuantPlan p;
            aqo::ConstraintViolation vv;
            const bool ok = aqo::PlanDynamicQuant(fast, &p, &vv);
            g_sink = g_sink + (ok ? p.tiling.rowsPerIter : 1u);
        });
        const double ns_explained = BestNsPerCall([&]() {
            aqo::DynamicQuantPlan p;
            aqo::ConstraintViolation vv;
            const bool ok = aqo::PlanDynamicQuant(req, &p, &vv);
            g_sink = g_sink + (ok ? p.tiling.rowsPerIter : 1u);
        });
        std::printf("%-14s %-22s %-9s %-14s %-6s %-22s %12.0f %14.0f%s\n", c.soc, ShapeStr(c.shape).c_str(),
                    aqo::DTypeName(c.x), aqo::DTypeName(c.dst), c.smooth ? "yes" : "no", mode.c_str(), ns,
                    ns_explained, ns < kTargetNs ? "" : "   (launch path over the 2 us target)");
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
            std::printf("%-14s %-22s   request check alone: %.0f ns\n", "", "", ns_check);
        }
    }
    std::printf("\nqlinear_matmul\n%-14s %-32s %-16s %-8s %10s %12s %14s %8s\n", "soc", "a x b", "a, b -> y",
                "params", "blocks", "ns/call", "ns explained", "ranges");
    for (const QmmCase& c : qmm_cases) {
        aqo::QLinearMatMulRequest req;
        req.a_shape = c.a;
        req.b_shape = c.b;
        req.a_dtype = c.a_dtype;
        req.b_dtype = c.b_dtype;
        req.y_dtype = c.y_dtype;
        req.a_param = c.a_param;
        req.b_param = c.b_param;
        req.soc = c.soc;
        aqo::QLinearMatMulPlan plan;
        aqo::ConstraintViolation v;
        const std::string shapes = ShapeStr(c.a) + " x " + ShapeStr(c.b);
        if (!aqo::PlanQLinearMatMul(req, &plan, &v)) {
            std::printf("%-14s %-32s refused: %s (%s, actual %s)\n", c.soc, shapes.c_str(), v.constraint.c_str(),
                        v.limit.c_str(), v.actual.c_str());
            any_refused = true;
            continue;
        }
        const size_t ranges = plan.explanation.gm.size();
        aqo::QLinearMatMulRequest fast = req;
        fast.explain = false;
        const double ns = BestNsPerCall([&]() {
            aqo::QLinearMatMulPlan p;
            aqo::ConstraintViolation vv;
            const bool ok = aqo::PlanQLinearMatMul(fast, &p, &vv);
            g_sink = g_sink + (ok ? p.tiling.unitCount : 1u);
        });
        const double ns_explained = BestNsPerCall([&]() {
            aqo::QLinearMatMulPlan p;
            aqo::ConstraintViolation vv;
            const bool ok = aqo::PlanQLinearMatMul(req, &p, &vv);
            g_sink = g_sink + (ok ? p.tiling.unitCount : 1u);
        });
        const std::string types = std::string(aqo::DTypeName(c.a_dtype)).substr(0, 5) + "," +
                                  std::string(aqo::DTypeName(c.b_dtype)).substr(0, 5) + "->" +
                                  std::string(aqo::DTypeName(c.y_dtype)).substr(0, 5);
        const std::string params = std::string(aqo::QuantParamKindName(c.a_param)).substr(0, 3) + "/" +
                                   std::string(aqo::QuantParamKindName(c.b_param)).substr(0, 3);
        std::printf("%-14s %-32s %-16s %-8s %10llu %12.0f %14.0f %8zu%s\n", c.soc, shapes.c_str(), types.c_str(),
                    params.c_str(), static_cast<unsigned long long>(plan.tiling.unitCount), ns, ns_explained, ranges,
                    ns < kTargetNs ? "" : "   (launch path over the 2 us target)");
        worst = ns > worst ? ns : worst;
    }
    // quant_matmul: the W8A8 forms (per-token a, per-channel b, transposed weights, a vocabulary projection).
    struct QmCase {
        const char* soc;
        std::vector<int64_t> a, b;
        bool b_trans;
        DType out;
    };
    const std::vector<QmCase> qm_cases = {
        {"ascend910b", {16, 4096}, {4096, 4096}, true, DType::BFLOAT16},
        {"ascend910b", {4, 2048, 7168}, {7168, 152064}, true, DType::FLOAT16},
        {"ascend310p", {1, 4096}, {4096, 11008}, false, DType::FLOAT32},
        {"ascend910_95", {131072, 131071}, {131071, 131072}, false, DType::FLOAT32},
    };
    std::printf("\nquant_matmul\n%-14s %-32s %-10s %10s %12s\n", "soc", "a x b", "out", "blocks", "ns/call");
    for (const QmCase& c : qm_cases) {
        aqo::QuantMatMulRequest req;
        req.a_shape = c.a;
        req.b_shape = c.b;
        req.b_trans = c.b_trans;
        req.out_dtype = c.out;
        req.a_scale_row = true;
        req.b_scale_column = true;
        req.soc = c.soc;
        req.explain = false;
        aqo::QuantMatMulPlan plan;
        aqo::ConstraintViolation v;
        const std::string shapes = ShapeStr(c.a) + " x " + ShapeStr(c.b);
        if (!aqo::PlanQuantMatMul(req, &plan, &v)) {
            std::printf("%-14s %-32s refused: %s\n", c.soc, shapes.c_str(), v.constraint.c_str());
            any_refused = true;
            continue;
        }
        const double ns = BestNsPerCall([&]() {
            aqo::QuantMatMulPlan p;
            aqo::ConstraintViolation vv;
            const bool ok = aqo::PlanQuantMatMul(req, &p, &vv);
            g_sink = g_sink + (ok ? p.tiling.unitCount : 1u);
        });
        std::printf("%-14s %-32s %-10s %10llu %12.0f%s\n", c.soc, shapes.c_str(), aqo::DTypeName(c.out),
                    static_cast<unsigned long long>(plan.tiling.unitCount), ns,
                    ns < kTargetNs ? "" : "   (launch path over the 2 us target)");
        worst = ns > worst ? ns : worst;
    }
    std::printf("\nlaunch path (explain = false), slowest case of the operators: %.0f ns per call; target < %.0f ns: "
                "%s\n", worst, kTargetNs, worst < kTargetNs ? "met" : "NOT met");
    return any_refused || worst >= kTargetNs ? 1 : 0;
}
