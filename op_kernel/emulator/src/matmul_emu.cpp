// The emulated Matmul API's arithmetic, statistics, local-workspace size, block order and UB checks
// (include/lib/matmul_intf.h).
#include <algorithm>
#include <cstdint>
#include <string>
#include <limits>
#include <vector>

#include "emulator/emu_context.h"
#include "lib/matmul_intf.h"

namespace aqo_emu {

namespace {
std::vector<MatmulCoreStats>& Stats()
{
    static std::vector<MatmulCoreStats> stats;
    return stats;
}
}  // namespace

void ResetMatmulStats(uint32_t blocks) { Stats().assign(blocks, MatmulCoreStats()); }

const std::vector<MatmulCoreStats>& MatmulStats() { return Stats(); }

MatmulCoreStats& MatmulStatsOf(uint32_t block, const char* file, int line)
{
    std::vector<MatmulCoreStats>& s = Stats();
    if (block >= s.size()) {
        // A runner that did not call ResetMatmulStats: grow rather than lose the counts.
        if (block > 65536) {
            Fail(file, line, "Matmul statistics: block index " + std::to_string(block) + " out of range");
        }
        s.resize(block + 1);
    }
    return s[block];
}

// The exact sum modulo 2^32 (unsigned 32-bit arithmetic: defined C++). The cube's int32 accumulator gives that
// only while no partial sum leaves int32 (integer Mmad saturates): the callers refuse the other products first
// (MatmulInt32MayLeaveRange).
// B element (kk, j) is b[kk * ldb + j], or b[j * ldb + kk] when b_trans (B stored [N, K]).
void MatmulExactInt32(const uint8_t* a, bool a_signed, uint64_t lda, const uint8_t* b, bool b_signed, uint64_t ldb,
                      int32_t* c, uint64_t ldc, uint32_t m, uint32_t n, uint32_t k, bool b_trans)
{
    auto value = [](uint8_t v, bool is_signed) {
        return is_signed ? static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(v)))
                         : static_cast<uint32_t>(v);
    };
    if (b_trans) {
        // Row of A against row of B^T: contiguous in both.
        std::vector<uint32_t> arow(k);
        for (uint32_t i = 0; i < m; ++i) {
            const uint8_t* ai = a + static_cast<uint64_t>(i) * lda;
            for (uint32_t kk = 0; kk < k; ++kk) {
                arow[kk] = value(ai[kk], a_signed);
            }
            int32_t* ci = c + static_cast<uint64_t>(i) * ldc;
            for (uint32_t j = 0; j < n; ++j) {
                const uint8_t* bj = b + static_cast<uint64_t>(j) * ldb;
                uint32_t acc = 0;
                if (b_signed) {
                    for (uint32_t kk = 0; kk < k; ++kk) {
                        acc += arow[kk] * static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(bj[kk])));
                    }
                } else {
                    for (uint32_t kk = 0; kk < k; ++kk) {
                        acc += arow[kk] * static_cast<uint32_t>(bj[kk]);
                    }
                }
                ci[j] = static_cast<int32_t>(acc);
            }
        }
        return;
    }
    std::vector<uint32_t> row(n);
    for (uint32_t i = 0; i < m; ++i) {
        std::fill(row.begin(), row.end(), 0u);
        const uint8_t* ai = a + static_cast<uint64_t>(i) * lda;
        for (uint32_t kk = 0; kk < k; ++kk) {
            const uint32_t av = value(ai[kk], a_signed);
            if (av == 0) {
                continue;
            }
            const uint8_t* br = b + static_cast<uint64_t>(kk) * ldb;
            if (b_signed) {
                for (uint32_t j = 0; j < n; ++j) {
                    row[j] += av * static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(br[j])));
                }
            } else {
                for (uint32_t j = 0; j < n; ++j) {
                    row[j] += av * static_cast<uint32_t>(br[j]);
                }
            }
        }
        int32_t* ci = c + static_cast<uint64_t>(i) * ldc;
        for (uint32_t j = 0; j < n; ++j) {
            ci[j] = static_cast<int32_t>(row[j]);
        }
    }
}

bool MatmulInt32MayLeaveRange(const uint8_t* a, bool a_signed, uint64_t lda, const uint8_t* b, bool b_signed,
                              uint64_t ldb, uint32_t m, uint32_t n, uint32_t k, bool b_trans, MatmulRangeRisk* risk)
{
    const uint64_t amax = a_signed ? 128 : 255, bmax = b_signed ? 128 : 255;
    if (amax * bmax * k <= 0x7FFFFFFFull) {
        return false;  // no sum of k products can pass 2^31 - 1 in any order
    }
    auto mag = [](uint8_t v, bool is_signed) -> uint64_t {
        const int64_t x = is_signed ? static_cast<int64_t>(static_cast<int8_t>(v)) : static_cast<int64_t>(v);
        return static_cast<uint64_t>(x < 0 ? -x : x);
    };
    std::vector<uint64_t> row(n);
    for (uint32_t i = 0; i < m; ++i) {
        std::fill(row.begin(), row.end(), uint64_t{0});
        const uint8_t* ai = a + static_cast<uint64_t>(i) * lda;
        for (uint32_t kk = 0; kk < k; ++kk) {
            const uint64_t av = mag(ai[kk], a_signed);
            if (av == 0) {
                continue;
            }
            for (uint32_t j = 0; j < n; ++j) {
                const uint8_t bv = b_trans ? b[static_cast<uint64_t>(j) * ldb + kk] : b[static_cast<uint64_t>(kk) * ldb + j];
                row[j] += av * mag(bv, b_signed);
            }
        }
        for (uint32_t j = 0; j < n; ++j) {
            if (row[j] > 0x7FFFFFFFull) {
                risk->row = i;
                risk->col = j;
                risk->magnitude = row[j];
                return true;
            }
        }
    }
    return false;
}

bool MatmulFloat8FindNaN(const uint8_t* a, FloatFormat fa, uint64_t lda, const uint8_t* b, FloatFormat fb,
                         uint64_t ldb, uint32_t m, uint32_t n, uint32_t k, bool b_trans, MatmulNaNOperand* at)
{
    bool nan_a[256], nan_b[256];
    for (int v = 0; v < 256; ++v) {
        const double da = DecodeFloat(fa, static_cast<uint16_t>(v)), db = DecodeFloat(fb, static_cast<uint16_t>(v));
        nan_a[v] = da != da;
        nan_b[v] = db != db;
    }
    for (uint32_t i = 0; i < m; ++i) {
        for (uint32_t kk = 0; kk < k; ++kk) {
            if (nan_a[a[static_cast<uint64_t>(i) * lda + kk]]) {
                *at = MatmulNaNOperand{'A', i, kk};
                return true;
            }
        }
    }
    for (uint32_t kk = 0; kk < k; ++kk) {
        for (uint32_t j = 0; j < n; ++j) {
            const uint8_t bv = b_trans ? b[static_cast<uint64_t>(j) * ldb + kk] : b[static_cast<uint64_t>(kk) * ldb + j];
            if (nan_b[bv]) {
                *at = MatmulNaNOperand{'B', kk, j};
                return true;
            }
        }
    }
    return false;
}

void MatmulFloat8(const uint8_t* a, FloatFormat fa, uint64_t lda, const uint8_t* b, FloatFormat fb, uint64_t ldb,
                  float* c, uint64_t ldc, uint32_t m, uint32_t n, uint32_t k, bool b_trans, bool saturate)
{
    // Decode tables: 256 values per format.
    double ta[256], tb[256];
    for (int v = 0; v < 256; ++v) {
        ta[v] = DecodeFloat(fa, static_cast<uint16_t>(v));
        tb[v] = DecodeFloat(fb, static_cast<uint16_t>(v));
    }
    std::vector<double> row(n);
    for (uint32_t i = 0; i < m; ++i) {
        std::fill(row.begin(), row.end(), 0.0);
        const uint8_t* ai = a + static_cast<uint64_t>(i) * lda;
        for (uint32_t kk = 0; kk < k; ++kk) {
            const double av = ta[ai[kk]];
            for (uint32_t j = 0; j < n; ++j) {
                const uint8_t bv = b_trans ? b[static_cast<uint64_t>(j) * ldb + kk] : b[static_cast<uint64_t>(kk) * ldb + j];
                row[j] += av * tb[bv];
            }
        }
        float* ci = c + static_cast<uint64_t>(i) * ldc;
        for (uint32_t j = 0; j < n; ++j) {
            float v = static_cast<float>(row[j]);
            if (saturate && v != v) {
                v = 0.0f;
            } else if (saturate && v - v != 0.0f) {
                v = v > 0.0f ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
            }
            ci[j] = v;
        }
    }
}

namespace {

// The CubeInBuffer of the NORM configuration (impl/matmul/resource/cube_in_buffer/cube_in_buffer_normal.h): `depth`
// L1 tiles; with depth >= kIter * major ("k full load") all of them cache, else depth - 2 of them cache and two
// stream (none cache when depth <= 2), and with kIter == 1 and depth == 2 the two only double-buffer. A position is
// a hit when it is below the cache size and was loaded since the last reset.
struct NormCache {
    int64_t size = 0;
    int64_t loaded = 0;  // cacheProc_: cached positions allocated since the last reset
    void Init(int64_t depth, int64_t k_iter, int64_t major)
    {
        const int64_t db = 2;
        if (depth > db) {
            size = depth < k_iter * major ? depth - db : depth;
        } else if (depth < k_iter * major) {
            size = 0;
        } else if (k_iter == 1 && depth == db) {
            size = 0;
        } else {
            size = depth;
        }
        loaded = 0;
    }
    // True when position `pos` must be loaded from GM now.
    bool Load(int64_t pos)
    {
        if (pos < size && pos < loaded) {
            return false;
        }
        if (pos < size) {
            ++loaded;
        }
        return true;
    }
    void Reset() { loaded = 0; }
};

}  // namespace

std::vector<MatmulBlockLoad> MatmulL1Loads(const MatmulLoadInput& in)
{
    const uint64_t base_m = std::max<uint32_t>(in.base_m, 1), base_n = std::max<uint32_t>(in.base_n, 1),
                   base_k = std::max<uint32_t>(in.base_k, 1);
    const uint32_t m_iter = static_cast<uint32_t>((in.m + base_m - 1) / base_m);
    const uint32_t n_iter = static_cast<uint32_t>((in.n + base_n - 1) / base_n);
    const int64_t k_iter = static_cast<int64_t>((in.k + base_k - 1) / base_k);
    const uint32_t step_m = std::max<uint32_t>(in.step_m, 1), step_n = std::max<uint32_t>(in.step_n, 1);
    const std::vector<std::pair<uint32_t, uint32_t>> order =
        MatmulBlockOrder(m_iter, n_iter, step_m, step_n, in.order_n);
    std::vector<MatmulBlockLoad> out(order.size());
    NormCache ca, cb;
    ca.Init(in.norm ? in.depth_a1 : 0, k_iter, step_m);
    cb.Init(in.norm ? in.depth_b1 : 0, k_iter, step_n);
    if (!in.norm) {
        ca.size = cb.size = 0;  // MDL: counted without reuse across blocks (its own buffers are not modelled)
    }
    auto rows_of = [](uint64_t total, uint64_t base, uint64_t idx) {
        return std::min<uint64_t>(base, total - idx * base);
    };
    bool first = true;
    uint32_t prev_mi = 0, prev_ni = 0;
    for (size_t b = 0; b < order.size(); ++b) {
        const uint32_t mi = order[b].first, ni = order[b].second;
        if (!first) {
            // The scheduler's resets (scheduler_norm_base.h MoveOnIterateOrderM / N): ORDER_M keeps B over the M
            // blocks of an N step and A over the N blocks of one M block; ORDER_N the other way round.
            if (!in.order_n) {
                if (ni / step_n != prev_ni / step_n) {
                    ca.Reset();
                    cb.Reset();
                } else if (mi != prev_mi) {
                    ca.Reset();
                }
            } else {
                if (mi / step_m != prev_mi / step_m) {
                    ca.Reset();
                    cb.Reset();
                } else if (ni != prev_ni) {
                    cb.Reset();
                }
            }
        }
        first = false;
        prev_mi = mi;
        prev_ni = ni;
        const uint64_t rows = rows_of(in.m, base_m, mi);
        const uint64_t cols = rows_of(in.n, base_n, ni);
        MatmulBlockLoad& l = out[b];
        for (int64_t kk = 0; kk < k_iter; ++kk) {
            const uint64_t kc = rows_of(in.k, base_k, static_cast<uint64_t>(kk));
            // Positions (copy_cube_in_norm.h GetIterIndex): A by its K step (ORDER_M) or by its place in the step's
            // stepM x kIter tiles (ORDER_N); B the other way round.
            const int64_t pos_a = !in.order_n ? kk
                                              : (static_cast<int64_t>(mi) * k_iter + kk) % (step_m * k_iter);
            const int64_t pos_b = !in.order_n ? (kk + static_cast<int64_t>(ni) * k_iter) % (step_n * k_iter) : kk;
            if (ca.Load(pos_a)) {
                l.a_bytes += rows * kc * in.a_elem;
                l.a_tiles += 1;
            }
            if (cb.Load(pos_b)) {
                l.b_bytes += kc * cols * in.b_elem;
                l.b_tiles += 1;
            }
        }
    }
    return out;
}

uint64_t MatmulPaddedMacs(uint64_t m, uint64_t n, uint64_t k, uint32_t elem_bytes)
{
    const uint64_t k0 = 32 / std::max<uint32_t>(elem_bytes, 1);  // a fractal row is 32 bytes
    return ((m + 15) / 16 * 16) * ((n + 15) / 16 * 16) * ((k + k0 - 1) / k0 * k0);
}

std::vector<std::pair<uint32_t, uint32_t>> MatmulBlockOrder(uint32_t m_iter, uint32_t n_iter, uint32_t step_m,
                                                            uint32_t step_n, bool order_n)
{
    std::vector<std::pair<uint32_t, uint32_t>> out;
    out.reserve(static_cast<size_t>(m_iter) * n_iter);
    step_m = std::max<uint32_t>(step_m, 1);
    step_n = std::max<uint32_t>(step_n, 1);
    if (!order_n) {
        // ORDER_M: N steps outermost, then M steps, then the M blocks of the step, then its N blocks.
        for (uint32_t n0 = 0; n0 < n_iter; n0 += step_n) {
            for (uint32_t m0 = 0; m0 < m_iter; m0 += step_m) {
                for (uint32_t mi = m0; mi < std::min(m_iter, m0 + step_m); ++mi) {
                    for (uint32_t ni = n0; ni < std::min(n_iter, n0 + step_n); ++ni) {
                        out.emplace_back(mi, ni);
                    }
                }
            }
        }
    } else {
        // ORDER_N: M steps outermost, then N steps, then the N blocks of the step, then its M blocks.
        for (uint32_t m0 = 0; m0 < m_iter; m0 += step_m) {
            for (uint32_t n0 = 0; n0 < n_iter; n0 += step_n) {
                for (uint32_t ni = n0; ni < std::min(n_iter, n0 + step_n); ++ni) {
                    for (uint32_t mi = m0; mi < std::min(m_iter, m0 + step_m); ++mi) {
                        out.emplace_back(mi, ni);
                    }
                }
            }
        }
    }
    return out;
}

namespace {

// Fails when a kernel queue or TBuf overlaps UB [lo, hi), which the Matmul API writes: `what(begin, end, kind, at)`
// says what the API does there and what to do instead.
template <class What>
void CheckKernelBuffersClear(CoreContext& c, uint64_t lo, uint64_t hi, const char* file, int line, What what)
{
    auto clash = [&](uint64_t begin, uint64_t end, const char* kind, const char* where_file, int where_line) {
        if (begin < hi && end > lo && end > begin) {
            Fail(file, line, what(begin, end, kind, std::string(where_file) + ":" + std::to_string(where_line)));
        }
    };
    for (const QueueState& q : c.queues) {
        if (q.num > 0 && !q.slot_offset.empty()) {
            clash(q.slot_offset.front(), q.slot_offset.back() + q.slot_bytes, "queue", q.file, q.line);
        }
    }
    for (const BufState& b : c.bufs) {
        if (b.mem != Mem::kUb) continue;  // the kernel's own L1 / L0 are not UB
        const AllocRecord* r = b.record >= 0 && b.record < static_cast<int>(c.records.size()) ? &c.records[b.record]
                                                                                             : nullptr;
        clash(b.offset, static_cast<uint64_t>(b.offset) + b.bytes, "TBuf", r ? r->file : "?", r ? r->line : 0);
    }
}

}  // namespace

void CheckMatmulScratchAtUbZero(CoreContext& c, uint64_t bytes, const char* file, int line, const char* api)
{
    CheckKernelBuffersClear(c, 0, bytes, file, line,
                            [&](uint64_t begin, uint64_t end, const char* kind, const std::string& at) {
                                return std::string(api) + " on " + c.soc.name +
                                       ": no SetLocalWorkspace, so the Matmul API writes its staging through a tensor "
                                       "at UB address 0, bytes [0, " + std::to_string(bytes) +
                                       "), which overlaps the kernel's " + kind + " [" + std::to_string(begin) +
                                       ", " + std::to_string(end) + ") allocated at " + at +
                                       " (on the device its data is overwritten): allocate a buffer of "
                                       "MatmulGetTmpBufSize bytes and pass it to SetLocalWorkspace";
                            });
}

namespace {

void CheckMatmulClientMessageWindow(CoreContext& c, uint64_t top, const char* file, int line, const char* api)
{
    const uint64_t lo = top > kMatmulClientMessageBytes ? top - kMatmulClientMessageBytes : 0;
    CheckKernelBuffersClear(c, lo, top, file, line,
                            [&](uint64_t begin, uint64_t end, const char* kind, const std::string& at) {
                                return std::string(api) + " on " + c.soc.name +
                                       ": the Matmul client stages every message to the cube in the last " +
                                       std::to_string(kMatmulClientMessageBytes) + " bytes of UB, [" +
                                       std::to_string(lo) + ", " + std::to_string(top) +
                                       ") (kfc_comm_client.h: TOTAL_UB_SIZE - sizeof(KfcMsg)), which overlaps the "
                                       "kernel's " + kind + " [" + std::to_string(begin) + ", " +
                                       std::to_string(end) + ") allocated at " + at +
                                       " (on the device its data is overwritten): keep the top of UB free";
                            });
    SetUbDefined(c, lo, top - lo, false);
}

}  // namespace

void CheckMatmulClientMessageUb(CoreContext& c, const char* file, int line, const char* api)
{
    // The client's TOTAL_UB_SIZE is the build's (the SoC table's UB), whatever UB size the launch was given (a
    // device-reported size): with a larger one, the build's window lies inside the kernel's UB too.
    if (c.soc.total_ub_bytes != 0 && c.soc.total_ub_bytes < c.soc.ub_bytes) {
        CheckMatmulClientMessageWindow(c, c.soc.total_ub_bytes, file, line, api);
    }
    CheckMatmulClientMessageWindow(c, c.soc.ub_bytes, file, line, api);
}

uint64_t MatmulHashBytes(const uint8_t* p, uint64_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint64_t i = 0; i < n; ++i) {
        h = (h ^ p[i]) * 1099511628211ull;
    }
    return h;
}

}  // namespace aqo_emu
