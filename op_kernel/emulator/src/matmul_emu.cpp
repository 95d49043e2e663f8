// The emulated Matmul API's arithmetic and statistics (include/lib/matmul_intf.h).
#include <algorithm>
#include <cstdint>
#include <string>
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

// The cube's int32 accumulator wraps modulo 2^32; unsigned 32-bit arithmetic is exactly that (and defined C++).
void MatmulExactInt32(const uint8_t* a, bool a_signed, uint64_t lda, const uint8_t* b, bool b_signed, uint64_t ldb,
                      int32_t* c, uint64_t ldc, uint32_t m, uint32_t n, uint32_t k)
{
    std::vector<uint32_t> row(n);
    for (uint32_t i = 0; i < m; ++i) {
        std::fill(row.begin(), row.end(), 0u);
        const uint8_t* ai = a + static_cast<uint64_t>(i) * lda;
        for (uint32_t kk = 0; kk < k; ++kk) {
            const uint32_t av = a_signed ? static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(ai[kk])))
                                         : static_cast<uint32_t>(ai[kk]);
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

void MatmulFloat8(const uint8_t* a, FloatFormat fa, uint64_t lda, const uint8_t* b, FloatFormat fb, uint64_t ldb,
                  float* c, uint64_t ldc, uint32_t m, uint32_t n, uint32_t k)
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
            const uint8_t* br = b + static_cast<uint64_t>(kk) * ldb;
            for (uint32_t j = 0; j < n; ++j) {
                row[j] += av * tb[br[j]];
            }
        }
        float* ci = c + static_cast<uint64_t>(i) * ldc;
        for (uint32_t j = 0; j < n; ++j) {
            ci[j] = static_cast<float>(row[j]);
        }
    }
}

}  // namespace aqo_emu
