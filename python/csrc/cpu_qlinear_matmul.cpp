// QLinearMatMul for the CPU backend: an int8 GEMM with int32 accumulation and an exact zero-point epilogue.
//
// Arithmetic (the golden's, python/ascend_quant_ops/golden/qlinear_matmul.py, which follows onnxruntime):
//   acc = sum_k (a - a_zp)(b - b_zp), the exact integer sum wrapped to int32
//   y   = saturate(round_half_even(float32(acc) * mult) + y_zp),   mult computed by the golden's validation.
//
// How. Every operand is mapped to the product the hardware has (VNNI's vpdpbusd: unsigned 8-bit times signed
// 8-bit, four products summed into an int32 lane) without changing the sum:
//   signed a   -> a ^ 0x80 = a + 128  (unsigned),  a_zp + 128
//   unsigned b -> b ^ 0x80 = b - 128  (signed),    b_zp - 128
// so (a - a_zp)(b - b_zp) is unchanged term by term, and then
//   acc = sum a'b' - b_zp' * rowsum(a') - a_zp' * (colsum(b') - K * b_zp')            (mod 2^32).
// Every step is an addition or multiplication of integers modulo 2^32, and reduction modulo 2^32 is a ring
// homomorphism, so acc is the exact sum wrapped to int32 for every K, with no K split: vpdpbusd adds into its
// lanes with wrap-around (it is the non-saturating form; only vpdpbusds saturates), the four products of one
// lane and their sum are exact (|sum| <= 4 * 255 * 128 < 2^31), and the portable code computes in uint32.
//
// Kernels (AVX-512 VNNI, chosen at run time; portable C++ elsewhere, cpu_qlinear_matmul_portable.inc, tested on
// the same machine):
//   * up to 4 rows (decode): B is read in place, 8 rows at a time across the task's columns, four rows of 64
//     columns interleaved in registers into VNNI order (k-quadruples per column); B is never copied;
//   * 5 .. 64 rows: for each chunk of K, four rows of B at a time are read across the task's width and
//     interleaved into an L2-sized buffer; each 64-column panel of the chunk is multiplied by 6 rows of A at a
//     time (24 accumulators), which carry over to the next chunk in a small buffer;
//   * more rows: B is packed with all of K, an L2-sized group of panels at a time, and each tile of 6 rows runs
//     over a whole panel.
// B stored [N, K] (a transposed view of the Linear layout, b_trans) is read in place too: up to 4 rows, every
// output is a dot product of two rows contiguous along K (DirectTransposedGemm); with more rows its panels are
// packed by 16 x 16 transposes of 32-bit quadruples (PackChunkTransposed) into the same packed form.
// The epilogue (zero-point terms, float32 scaling, rounding, saturation) runs on the final accumulators in
// registers: no int32 or float32 copy of the product is written to memory. Threads split the columns and rows of
// the output, except for up to 64 rows with B [K, N], where they split K (every thread then reads whole rows of
// B) and the int32 sums of the parts are added (modulo 2^32, so still exact) before the epilogue; B [N, K] is
// split by columns there (whole rows of its storage).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "cpu_runtime.h"
#include "cpu_simd.h"
#include "registry.h"

namespace aqo_cpu {
namespace {

// ------------------------------------------------------------------------------------------------ the problem
// One 2-D product per batch entry; index[batch][i] selects the batch entry of operand i (order of kOperand*).
enum Operand : int { kOpA = 0, kOpB, kOpAZp, kOpBZp, kOpMult, kOpYZp, kOperands };

struct QmmProblem {
    int64_t batches, m, k, n;
    const uint8_t* a;  // [., m, k], k contiguous
    int64_t a_bs, a_rs;
    const uint8_t* b;  // [., k, n], n contiguous (b_rs: the stride of k), or k contiguous when b_trans
    int64_t b_bs, b_rs;  // with b_trans, b_rs is the stride of n: the rows of b's [., n, k] storage
    bool b_trans;
    const int32_t* a_zp;  // [., m]
    int64_t a_zp_bs, a_zp_ms;
    const int32_t* b_zp;  // [., n]
    int64_t b_zp_bs, b_zp_ns;
    const float* mult;  // [., m, n], mult_ns 0 or 1
    int64_t mult_bs, mult_ms, mult_ns;
    const int32_t* y_zp;  // [., m, n], y_zp_ns 0 or 1
    int64_t y_zp_bs, y_zp_ms, y_zp_ns;
    const int64_t* index;  // [batches][kOperands]
    uint8_t* y;            // [batches, m, n] contiguous
    bool a_signed, b_signed;
    int32_t y_lo, y_hi;  // the output type's range
};

constexpr int kPanel = 64;             // columns of B per panel: four 16-lane int32 vectors
constexpr int kTileRows = 6;           // rows of A per packed-kernel tile: 6 x 4 = 24 accumulators of 32 registers
constexpr int64_t kFewRows = 64;       // up to this many rows, B's reading dominates (kernels and task shapes)
constexpr int64_t kStreamPanels = 16;  // with few rows, tasks keep at least this many panels (1024 columns)
constexpr int64_t kMinQuadsPerPart = 64;  // with few rows, K is split over tasks in parts of at least 256 rows

// One batch entry, ready to multiply: A mapped to unsigned with K padded to a multiple of 4 (zeros add nothing),
// B as given (mapped to signed on the fly), the zero points mapped, and the sums the epilogue needs.
struct Gemm {
    int64_t m, k, n;
    const uint8_t* a;  // a' rows, lda bytes apart, each with k4 * 4 readable bytes
    int64_t lda;
    const uint8_t* b;  // raw B: rows of K x N, ldb bytes apart; with b_trans rows of its N x K storage
    int64_t ldb;
    bool b_trans;  // B stored [N, K] (a transposed view of the Linear layout): b'[k][n] = b[n * ldb + k]
    bool flip_b;             // B is unsigned: b' = b ^ 0x80
    const int32_t* za;       // [m] a_zp'
    const int32_t* zb;       // [n] b_zp'
    const int32_t* row_sum;  // [m] rowsum(a'), when need_row_sum
    bool need_row_sum;       // some b_zp' != 0
    bool need_col_sum;       // some a_zp' != 0
    const float* mult;
    int64_t mult_ms, mult_ns;
    const int32_t* y_zp;
    int64_t y_zp_ms, y_zp_ns;
    uint8_t* y;  // [m, n]
    int32_t y_lo, y_hi;
};

inline int64_t K4(int64_t k) { return (k + 3) / 4; }

// The part of K a task multiplies: quadruples q0 .. q1. With `partial` null that is all of K and the task finishes
// its outputs; otherwise (K split over tasks) it stores its raw int32 sums, natural order, rows m at
// partial + m * stride, column sums at partial + g.m * stride, for FinishPartials to add up and finish.
struct KRange {
    int64_t q0;
    int64_t q1;
    int32_t* partial;
    int64_t stride;
};

inline int32_t Load32(const uint8_t* p)
{
    int32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// acc -> the output code (the golden's float32 steps; clipping v to +-2^16 before rounding changes nothing:
// the result saturates either way, and it keeps the float -> int conversion in range).
inline uint8_t FinishScalar(uint32_t acc, float mult, int32_t y_zp, int32_t lo, int32_t hi)
{
    const float v = ClipOrZero(static_cast<float>(static_cast<int32_t>(acc)) * mult, -65536.0f, 65536.0f);
    const int32_t r = RoundToInt(v) + y_zp;
    return static_cast<uint8_t>(std::min(std::max(r, lo), hi));
}

// Zero-point correction of one accumulator: acc - zb * rowsum - za * (colsum - K * zb), modulo 2^32.
inline uint32_t Corrected(uint32_t acc, uint32_t za, uint32_t zb, uint32_t row_sum, uint32_t col_sum, uint32_t k)
{
    return acc - zb * row_sum - za * (col_sum - k * zb);
}

// ------------------------------------------------------------------------------------------------- portable
namespace portable_baseline {
#include "cpu_qlinear_matmul_portable.inc"
}  // namespace portable_baseline
#if defined(AQO_CPU_PORTABLE_AVX2)
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c,bmi2")  // the features of Isa::kAvx2 (cpu_runtime.cpp, DetectIsa)
namespace portable_avx2 {
#include "cpu_qlinear_matmul_portable.inc"
}  // namespace portable_avx2
#pragma GCC pop_options
#endif

// --------------------------------------------------------------------------------------------------- AVX-512
#if defined(AQO_CPU_HAVE_AVX512)

AQO_AVX512 inline __mmask64 ColumnMask(int64_t cols)
{
    return cols >= 64 ? ~__mmask64{0} : ((__mmask64{1} << cols) - 1);
}

AQO_AVX512 inline __mmask16 LaneMask(int64_t cols)
{
    return cols >= 16 ? __mmask16{0xFFFF} : cols <= 0 ? __mmask16{0} : static_cast<__mmask16>((1u << cols) - 1u);
}

// Four rows of 64 bytes -> four vectors of VNNI quadruples. Byte then word interleaving works inside 128-bit
// lanes, so vector t holds columns 16L + 4t .. 16L + 4t + 3 in lane L ("interleaved order").
AQO_AVX512 inline void Interleave4(__m512i r0, __m512i r1, __m512i r2, __m512i r3, __m512i t[4])
{
    const __m512i lo01 = _mm512_unpacklo_epi8(r0, r1), hi01 = _mm512_unpackhi_epi8(r0, r1);
    const __m512i lo23 = _mm512_unpacklo_epi8(r2, r3), hi23 = _mm512_unpackhi_epi8(r2, r3);
    t[0] = _mm512_unpacklo_epi16(lo01, lo23);
    t[1] = _mm512_unpackhi_epi16(lo01, lo23);
    t[2] = _mm512_unpacklo_epi16(hi01, hi23);
    t[3] = _mm512_unpackhi_epi16(hi01, hi23);
}

// Interleaved order -> natural order (vector j = columns 16j .. 16j + 15): a 4 x 4 transpose of 128-bit lanes.
AQO_AVX512 inline void ToNatural(__m512i v[4])
{
    const __m512i t0 = _mm512_shuffle_i32x4(v[0], v[1], 0x44), t1 = _mm512_shuffle_i32x4(v[0], v[1], 0xEE);
    const __m512i t2 = _mm512_shuffle_i32x4(v[2], v[3], 0x44), t3 = _mm512_shuffle_i32x4(v[2], v[3], 0xEE);
    v[0] = _mm512_shuffle_i32x4(t0, t2, 0x88);
    v[1] = _mm512_shuffle_i32x4(t0, t2, 0xDD);
    v[2] = _mm512_shuffle_i32x4(t1, t3, 0x88);
    v[3] = _mm512_shuffle_i32x4(t1, t3, 0xDD);
}

// Rows p, p + ldb, p + 2 ldb, p + 3 ldb of B (the first `valid` of them; the others are zero), 64 columns under
// the mask, mapped to signed (kFlip: unsigned B), in interleaved VNNI order.
template <bool kFlip>
AQO_AVX512 inline void LoadQuad(const uint8_t* p, int64_t ldb, int64_t valid, __mmask64 cols, __m512i t[4])
{
    const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
    __m512i r[4];
    for (int i = 0; i < 4; ++i) {
        r[i] = _mm512_setzero_si512();
        if (i < valid) {
            r[i] = _mm512_maskz_loadu_epi8(cols, p + i * ldb);
            if (kFlip) {
                r[i] = _mm512_xor_si512(r[i], flip);
            }
        }
    }
    Interleave4(r[0], r[1], r[2], r[3], t);
}

// Per-panel constants of the epilogue (natural order): b_zp' and colsum(b') - K * b_zp'.
struct PanelTerms {
    __m512i zb[4];
    __m512i col_term[4];
};

AQO_AVX512 inline void MakePanelTerms(const Gemm& g, int64_t n0, int64_t cols, const __m512i col_sum[4],
                                      PanelTerms* terms)
{
    const __m512i k = _mm512_set1_epi32(static_cast<int32_t>(static_cast<uint32_t>(g.k)));
    for (int j = 0; j < 4; ++j) {
        terms->zb[j] = _mm512_maskz_loadu_epi32(LaneMask(cols - 16 * j), g.zb + n0 + 16 * j);
        terms->col_term[j] = _mm512_sub_epi32(col_sum[j], _mm512_mullo_epi32(k, terms->zb[j]));
    }
}

// Row i of a panel: corrections, scaling, rounding, saturation, store (natural-order accumulators).
AQO_AVX512 inline void FinishRow(const Gemm& g, int64_t i, int64_t n0, int64_t cols, const __m512i acc[4],
                                 const PanelTerms& terms)
{
    const __m512i row_sum = _mm512_set1_epi32(g.need_row_sum ? g.row_sum[i] : 0);
    const __m512i za = _mm512_set1_epi32(g.za[i]);
    const __m512 lo_v = _mm512_set1_ps(-65536.0f), hi_v = _mm512_set1_ps(65536.0f);
    const __m512i lo = _mm512_set1_epi32(g.y_lo), hi = _mm512_set1_epi32(g.y_hi);
    const float* mult_row = g.mult + i * g.mult_ms;
    const int32_t* zp_row = g.y_zp + i * g.y_zp_ms;
    uint8_t* y_row = g.y + i * g.n + n0;
    for (int j = 0; j < 4 && 16 * j < cols; ++j) {
        const __mmask16 lanes = LaneMask(cols - 16 * j);
        const int64_t col = n0 + 16 * j;
        __m512i c = acc[j];
        if (g.need_row_sum) {
            c = _mm512_sub_epi32(c, _mm512_mullo_epi32(terms.zb[j], row_sum));
        }
        if (g.need_col_sum) {
            c = _mm512_sub_epi32(c, _mm512_mullo_epi32(za, terms.col_term[j]));
        }
        const __m512 mult = g.mult_ns != 0 ? _mm512_maskz_loadu_ps(lanes, mult_row + col) : _mm512_set1_ps(*mult_row);
        const __m512i y_zp = g.y_zp_ns != 0 ? _mm512_maskz_loadu_epi32(lanes, zp_row + col) : _mm512_set1_epi32(*zp_row);
        __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(c), mult);
        v = _mm512_min_ps(_mm512_max_ps(v, lo_v), hi_v);
        __m512i r = _mm512_add_epi32(_mm512_cvtps_epi32(v), y_zp);
        r = _mm512_min_epi32(_mm512_max_epi32(r, lo), hi);
        _mm_mask_storeu_epi8(y_row + 16 * j, lanes, _mm512_cvtepi32_epi8(r));
    }
}

// Per-thread scratch, 64-byte aligned, grown as needed and kept for the next call.
AQO_AVX512 inline uint8_t* Scratch(std::vector<uint8_t>& buffer, int64_t bytes)
{
    if (static_cast<int64_t>(buffer.size()) < bytes + 64) {
        buffer.resize(static_cast<size_t>(bytes + 64));
    }
    const uintptr_t p = reinterpret_cast<uintptr_t>(buffer.data());
    return reinterpret_cast<uint8_t*>((p + 63) & ~uintptr_t{63});
}

// 16 x 16 transpose of 32-bit elements: element e of r[i] -> element i of r[e].
AQO_AVX512 inline void Transpose16x16(__m512i r[16])
{
    __m512i a[16];
    for (int i = 0; i < 16; i += 2) {
        a[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        a[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    // now r[4G + j], lane L: element 4L + j of rows 4G .. 4G + 3
    for (int g = 0; g < 16; g += 4) {
        r[g] = _mm512_unpacklo_epi64(a[g], a[g + 2]);
        r[g + 1] = _mm512_unpackhi_epi64(a[g], a[g + 2]);
        r[g + 2] = _mm512_unpacklo_epi64(a[g + 1], a[g + 3]);
        r[g + 3] = _mm512_unpackhi_epi64(a[g + 1], a[g + 3]);
    }
    // element 4L + j of all rows is lane L of the 4 x 4 lane transpose of r[j], r[4 + j], r[8 + j], r[12 + j]
    __m512i out[16];
    for (int j = 0; j < 4; ++j) {
        __m512i v[4] = {r[j], r[4 + j], r[8 + j], r[12 + j]};
        ToNatural(v);
        for (int lane = 0; lane < 4; ++lane) {
            out[4 * lane + j] = v[lane];
        }
    }
    for (int i = 0; i < 16; ++i) {
        r[i] = out[i];
    }
}

constexpr int64_t kTransposedBlockQuads = 16;  // quadruples of K per 64-byte read of a row of B's [N, K] storage

// PackChunk for B stored [N, K]: the same packed panels. A column of B is a row of the storage and its
// quadruples are already VNNI quadruples, so a panel is made of 16 x 16 transposes of 32-bit elements: 16 rows
// of the storage, 64 bytes (16 quadruples) each, become 16 vectors of one quadruple for 16 columns (natural
// order), stored in their place of the panel; a second pass over the panel (in cache) puts each quadruple's four
// vectors in interleaved order. The first pass reads 16 rows of the storage at a time along all of the chunk
// rather than all 64 rows of the panel in step: rows 4 KiB apart (power-of-two K) share cache sets, the effect
// that made DirectTile keep its streams few.
template <bool kFlip>
AQO_AVX512 void PackChunkTransposed(const Gemm& g, int64_t q0, int64_t q1, int64_t n0, int64_t width,
                                    uint8_t* packed, int64_t panel_stride)
{
    const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
    for (int64_t c = 0; c < width; c += kPanel, packed += panel_stride) {
        for (int group = 0; group < 4; ++group) {
            const int64_t col0 = c + 16 * group;
            for (int64_t qb = q0; qb < q1; qb += kTransposedBlockQuads) {
                const int64_t quads = std::min(kTransposedBlockQuads, q1 - qb);
                const __mmask64 k_mask = ColumnMask(std::min(4 * quads, g.k - 4 * qb));  // zeros past K add nothing
                __m512i r[16];
                for (int i = 0; i < 16; ++i) {
                    r[i] = _mm512_setzero_si512();
                    if (col0 + i < width) {
                        r[i] = _mm512_maskz_loadu_epi8(k_mask, g.b + (n0 + col0 + i) * g.ldb + 4 * qb);
                        if (kFlip) {
                            r[i] = _mm512_maskz_mov_epi8(k_mask, _mm512_xor_si512(r[i], flip));
                        }
                    }
                }
                Transpose16x16(r);
                uint8_t* out = packed + 256 * (qb - q0) + 64 * group;
                for (int64_t q = 0; q < quads; ++q) {
                    _mm512_store_si512(out + 256 * q, r[q]);
                }
            }
        }
        for (int64_t q = 0; q < q1 - q0; ++q) {
            uint8_t* quad = packed + 256 * q;
            __m512i v[4] = {_mm512_load_si512(quad), _mm512_load_si512(quad + 64), _mm512_load_si512(quad + 128),
                            _mm512_load_si512(quad + 192)};
            ToNatural(v);  // a 4 x 4 lane transpose, its own inverse: natural -> interleaved order
            _mm512_store_si512(quad, v[0]);
            _mm512_store_si512(quad + 64, v[1]);
            _mm512_store_si512(quad + 128, v[2]);
            _mm512_store_si512(quad + 192, v[3]);
        }
    }
}

// Packs quadruples q0 .. q1 of K for columns n0 .. n0 + width of B into `packed`: panel p (64 columns) at
// packed + p * panel_stride, 256 bytes (interleaved VNNI order) per quadruple. Four rows of B are read at a
// time across the whole width, so every row is read sequentially once.
template <bool kFlip>
AQO_AVX512 void PackChunk(const Gemm& g, int64_t q0, int64_t q1, int64_t n0, int64_t width, uint8_t* packed,
                          int64_t panel_stride)
{
    if (g.b_trans) {
        PackChunkTransposed<kFlip>(g, q0, q1, n0, width, packed, panel_stride);
        return;
    }
    for (int64_t q = q0; q < q1; ++q) {
        const uint8_t* rows = g.b + 4 * q * g.ldb + n0;
        const int64_t valid = std::min<int64_t>(4, g.k - 4 * q);
        uint8_t* out = packed + 256 * (q - q0);
        for (int64_t c = 0; c < width; c += kPanel, out += panel_stride) {
            __m512i t[4];
            LoadQuad<kFlip>(rows + c, g.ldb, valid, ColumnMask(width - c), t);
            _mm512_store_si512(out, t[0]);
            _mm512_store_si512(out + 64, t[1]);
            _mm512_store_si512(out + 128, t[2]);
            _mm512_store_si512(out + 192, t[3]);
        }
    }
}

// The accumulators are named variables, not an array: GCC keeps an array of vectors in memory across the loop.
#define AQO_DECLARE_ROW(r)                                                                               \
    __m512i c##r##0 = _mm512_setzero_si512(), c##r##1 = _mm512_setzero_si512(),                           \
            c##r##2 = _mm512_setzero_si512(), c##r##3 = _mm512_setzero_si512()
#define AQO_LOAD_ROW(r, from)                                                                            \
    if constexpr (kRows > (r)) {                                                                         \
        c##r##0 = _mm512_load_si512((from) + 4 * (r));                                                   \
        c##r##1 = _mm512_load_si512((from) + 4 * (r) + 1);                                               \
        c##r##2 = _mm512_load_si512((from) + 4 * (r) + 2);                                               \
        c##r##3 = _mm512_load_si512((from) + 4 * (r) + 3);                                               \
    }
#define AQO_MULTIPLY_ROW(r, a_row, v0, v1, v2, v3)                                                       \
    if constexpr (kRows > (r)) {                                                                         \
        const __m512i av = _mm512_set1_epi32(Load32(a_row));                                             \
        c##r##0 = _mm512_dpbusd_epi32(c##r##0, av, v0);                                                  \
        c##r##1 = _mm512_dpbusd_epi32(c##r##1, av, v1);                                                  \
        c##r##2 = _mm512_dpbusd_epi32(c##r##2, av, v2);                                                  \
        c##r##3 = _mm512_dpbusd_epi32(c##r##3, av, v3);                                                  \
    }
#define AQO_STORE_ROW(r, to)                                                                             \
    if constexpr (kRows > (r)) {                                                                         \
        _mm512_store_si512((to) + 4 * (r), c##r##0);                                                     \
        _mm512_store_si512((to) + 4 * (r) + 1, c##r##1);                                                 \
        _mm512_store_si512((to) + 4 * (r) + 2, c##r##2);                                                 \
        _mm512_store_si512((to) + 4 * (r) + 3, c##r##3);                                                 \
    }

// Four natural-order vectors (columns n0 .. n0 + 63) into row `row` of a K part's partial sums.
AQO_AVX512 inline void StorePartial(const KRange& range, int64_t row, int64_t n0, const __m512i v[4])
{
    int32_t* out = range.partial + row * range.stride + n0;
    for (int j = 0; j < 4; ++j) {
        _mm512_storeu_si512(out + 16 * j, v[j]);
    }
}

// kRows (<= 6) rows of A times one packed panel over quadruples q0 .. q1 of K. The accumulators (interleaved
// order) start at zero on the first chunk of K, else from `carry`, and go back to `carry` unless this is the
// last chunk, which finishes the rows: natural order, epilogue, store.
template <int kRows>
AQO_AVX512 void PackedTile(const Gemm& g, const uint8_t* panel, int64_t m0, int64_t n0, int64_t cols, int64_t q0,
                           int64_t q1, bool first, bool last, __m512i* carry, const PanelTerms* terms,
                           const KRange& range)
{
    static_assert(kRows >= 1 && kRows <= kTileRows, "kTileRows rows at most");
    AQO_DECLARE_ROW(0);
    AQO_DECLARE_ROW(1);
    AQO_DECLARE_ROW(2);
    AQO_DECLARE_ROW(3);
    AQO_DECLARE_ROW(4);
    AQO_DECLARE_ROW(5);
    if (!first) {
        AQO_LOAD_ROW(0, carry)
        AQO_LOAD_ROW(1, carry)
        AQO_LOAD_ROW(2, carry)
        AQO_LOAD_ROW(3, carry)
        AQO_LOAD_ROW(4, carry)
        AQO_LOAD_ROW(5, carry)
    }
    const int64_t lda = g.lda;
    const uint8_t* aq = g.a + m0 * lda + 4 * q0;
    for (int64_t q = q0; q < q1; ++q, aq += 4, panel += 256) {
        const __m512i b0 = _mm512_load_si512(panel), b1 = _mm512_load_si512(panel + 64);
        const __m512i b2 = _mm512_load_si512(panel + 128), b3 = _mm512_load_si512(panel + 192);
        AQO_MULTIPLY_ROW(0, aq, b0, b1, b2, b3)
        AQO_MULTIPLY_ROW(1, aq + lda, b0, b1, b2, b3)
        AQO_MULTIPLY_ROW(2, aq + 2 * lda, b0, b1, b2, b3)
        AQO_MULTIPLY_ROW(3, aq + 3 * lda, b0, b1, b2, b3)
        AQO_MULTIPLY_ROW(4, aq + 4 * lda, b0, b1, b2, b3)
        AQO_MULTIPLY_ROW(5, aq + 5 * lda, b0, b1, b2, b3)
    }
    if (!last) {
        AQO_STORE_ROW(0, carry)
        AQO_STORE_ROW(1, carry)
        AQO_STORE_ROW(2, carry)
        AQO_STORE_ROW(3, carry)
        AQO_STORE_ROW(4, carry)
        AQO_STORE_ROW(5, carry)
        return;
    }
    alignas(64) __m512i acc[kTileRows * 4];
    AQO_STORE_ROW(0, acc)
    AQO_STORE_ROW(1, acc)
    AQO_STORE_ROW(2, acc)
    AQO_STORE_ROW(3, acc)
    AQO_STORE_ROW(4, acc)
    AQO_STORE_ROW(5, acc)
    for (int r = 0; r < kRows; ++r) {
        ToNatural(acc + 4 * r);
        if (range.partial != nullptr) {
            StorePartial(range, m0 + r, n0, acc + 4 * r);
        } else {
            FinishRow(g, m0 + r, n0, cols, acc + 4 * r, *terms);
        }
    }
}

// Column sums of a packed panel over quadruples q0 .. q1, added to `sums` (interleaved order).
AQO_AVX512 void AddColumnSums(const uint8_t* panel, int64_t quads, __m512i* sums)
{
    const __m512i ones = _mm512_set1_epi8(1);
    __m512i s0 = _mm512_load_si512(sums), s1 = _mm512_load_si512(sums + 1);
    __m512i s2 = _mm512_load_si512(sums + 2), s3 = _mm512_load_si512(sums + 3);
    for (int64_t q = 0; q < quads; ++q, panel += 256) {
        s0 = _mm512_dpbusd_epi32(s0, ones, _mm512_load_si512(panel));
        s1 = _mm512_dpbusd_epi32(s1, ones, _mm512_load_si512(panel + 64));
        s2 = _mm512_dpbusd_epi32(s2, ones, _mm512_load_si512(panel + 128));
        s3 = _mm512_dpbusd_epi32(s3, ones, _mm512_load_si512(panel + 192));
    }
    _mm512_store_si512(sums, s0);
    _mm512_store_si512(sums + 1, s1);
    _mm512_store_si512(sums + 2, s2);
    _mm512_store_si512(sums + 3, s3);
}

// Up to kDirectRows rows: B is read in place, never packed (for so few rows, writing a packed copy costs more than
// the products). K is walked in blocks of kDirectQuads quadruples (8 rows of B), each block across all the
// task's panels: 8 row streams read in step run at the speed of a linear read, where more rows in flight (more
// streams, all 4 KiB apart for power-of-two N) measured up to 3x slower. Between blocks each panel's
// accumulators and column sums (interleaved order) wait in `carry`.
constexpr int kDirectRows = 4;
constexpr int64_t kDirectQuads = 2;

template <int kRows, bool kFlip>
AQO_AVX512 void DirectTile(const Gemm& g, int64_t m0, int64_t n0, int64_t cols, int64_t q0, int64_t q1, bool first,
                           bool last, __m512i* carry, const KRange& range)
{
    static_assert(kRows >= 1 && kRows <= kDirectRows, "kDirectRows rows at most");
    const __mmask64 col_mask = ColumnMask(cols);
    const __m512i ones = _mm512_set1_epi8(1);
    AQO_DECLARE_ROW(0);
    AQO_DECLARE_ROW(1);
    AQO_DECLARE_ROW(2);
    AQO_DECLARE_ROW(3);
    __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
    __m512i s2 = _mm512_setzero_si512(), s3 = _mm512_setzero_si512();
    __m512i* sums = carry + 4 * kRows;
    if (!first) {
        AQO_LOAD_ROW(0, carry)
        AQO_LOAD_ROW(1, carry)
        AQO_LOAD_ROW(2, carry)
        AQO_LOAD_ROW(3, carry)
        s0 = _mm512_load_si512(sums);
        s1 = _mm512_load_si512(sums + 1);
        s2 = _mm512_load_si512(sums + 2);
        s3 = _mm512_load_si512(sums + 3);
    }
    const int64_t lda = g.lda, ldb = g.ldb;
    const uint8_t* aq = g.a + m0 * lda + 4 * q0;
    const uint8_t* bq = g.b + 4 * q0 * ldb + n0;
    const bool with_col_sum = g.need_col_sum;
    for (int64_t q = q0; q < q1; ++q, aq += 4, bq += 4 * ldb) {
        __m512i t[4];
        LoadQuad<kFlip>(bq, ldb, std::min<int64_t>(4, g.k - 4 * q), col_mask, t);
        const __m512i t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3];
        AQO_MULTIPLY_ROW(0, aq, t0, t1, t2, t3)
        AQO_MULTIPLY_ROW(1, aq + lda, t0, t1, t2, t3)
        AQO_MULTIPLY_ROW(2, aq + 2 * lda, t0, t1, t2, t3)
        AQO_MULTIPLY_ROW(3, aq + 3 * lda, t0, t1, t2, t3)
        if (with_col_sum) {
            s0 = _mm512_dpbusd_epi32(s0, ones, t0);
            s1 = _mm512_dpbusd_epi32(s1, ones, t1);
            s2 = _mm512_dpbusd_epi32(s2, ones, t2);
            s3 = _mm512_dpbusd_epi32(s3, ones, t3);
        }
    }
    if (!last) {
        AQO_STORE_ROW(0, carry)
        AQO_STORE_ROW(1, carry)
        AQO_STORE_ROW(2, carry)
        AQO_STORE_ROW(3, carry)
        _mm512_store_si512(sums, s0);
        _mm512_store_si512(sums + 1, s1);
        _mm512_store_si512(sums + 2, s2);
        _mm512_store_si512(sums + 3, s3);
        return;
    }
    alignas(64) __m512i col_sum[4] = {s0, s1, s2, s3};
    ToNatural(col_sum);
    PanelTerms terms;
    if (range.partial != nullptr) {
        StorePartial(range, g.m, n0, col_sum);
    } else {
        MakePanelTerms(g, n0, cols, col_sum, &terms);
    }
    alignas(64) __m512i acc[kDirectRows * 4];
    AQO_STORE_ROW(0, acc)
    AQO_STORE_ROW(1, acc)
    AQO_STORE_ROW(2, acc)
    AQO_STORE_ROW(3, acc)
    for (int r = 0; r < kRows; ++r) {
        ToNatural(acc + 4 * r);
        if (range.partial != nullptr) {
            StorePartial(range, m0 + r, n0, acc + 4 * r);
        } else {
            FinishRow(g, m0 + r, n0, cols, acc + 4 * r, terms);
        }
    }
}

template <int kRows, bool kFlip>
AQO_AVX512 void DirectGemm(const Gemm& g, int64_t m0, int64_t n0, int64_t n1, const KRange& range)
{
    thread_local std::vector<uint8_t> carry_buffer;
    const int64_t panels = (n1 - n0 + kPanel - 1) / kPanel;
    const int64_t per_panel = 4 * kRows + 4;  // vectors carried per panel
    __m512i* carry = reinterpret_cast<__m512i*>(Scratch(carry_buffer, panels * per_panel * 64));
    int64_t q0 = range.q0;
    do {
        const int64_t q1 = std::min(range.q1, q0 + kDirectQuads);
        for (int64_t p = 0; p < panels; ++p) {
            const int64_t c = n0 + p * kPanel;
            DirectTile<kRows, kFlip>(g, m0, c, std::min<int64_t>(kPanel, n1 - c), q0, q1, q0 == range.q0,
                                     q1 >= range.q1, carry + p * per_panel, range);
        }
        q0 = q1;
    } while (q0 < range.q1);
}

// Up to kDirectRows rows with B stored [N, K]: every output is the dot product of a row of A and a row of the
// storage, both contiguous along K, so B is read in place (four rows of the storage at a time, sequentially),
// never packed; the 64-byte vectors of each dot product are summed across lanes at the end (modulo 2^32). All of K:
// threads split such a B by columns (QmmRunner::Run), each task then reads one contiguous block of the storage.
template <int kRows, bool kFlip>
AQO_AVX512 void DirectTransposedGemm(const Gemm& g, int64_t m0, int64_t n0, int64_t n1)
{
    static_assert(kRows >= 1 && kRows <= kDirectRows, "kDirectRows rows at most");
    const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80)), ones = _mm512_set1_epi8(1);
    const int64_t k1 = g.k;
    const bool with_col_sum = g.need_col_sum;
    const uint8_t* a_rows[kRows];
    for (int r = 0; r < kRows; ++r) {
        a_rows[r] = g.a + (m0 + r) * g.lda;
    }
    for (int64_t c = n0; c < n1; c += kPanel) {
        const int64_t cols = std::min<int64_t>(kPanel, n1 - c);
        alignas(64) int32_t sums[kRows][kPanel] = {}, col_sums[kPanel] = {};
        for (int64_t j = 0; j < cols; j += 4) {
            const uint8_t* b_rows[4];
            for (int i = 0; i < 4; ++i) {  // past the last column: the last one again (its results are dropped)
                b_rows[i] = g.b + (c + std::min<int64_t>(j + i, cols - 1)) * g.ldb;
            }
            __m512i acc[kRows][4], col[4];
#pragma GCC unroll 4
            for (int i = 0; i < 4; ++i) {
                col[i] = _mm512_setzero_si512();
#pragma GCC unroll 4
                for (int r = 0; r < kRows; ++r) {
                    acc[r][i] = _mm512_setzero_si512();
                }
            }
            for (int64_t kk = 0; kk < k1; kk += 64) {
                const __mmask64 mask = ColumnMask(k1 - kk);
                __m512i bv[4];
#pragma GCC unroll 4
                for (int i = 0; i < 4; ++i) {
                    bv[i] = _mm512_maskz_loadu_epi8(mask, b_rows[i] + kk);
                    if (kFlip) {
                        bv[i] = _mm512_maskz_mov_epi8(mask, _mm512_xor_si512(bv[i], flip));
                    }
                }
#pragma GCC unroll 4
                for (int r = 0; r < kRows; ++r) {
                    const __m512i av = _mm512_maskz_loadu_epi8(mask, a_rows[r] + kk);
#pragma GCC unroll 4
                    for (int i = 0; i < 4; ++i) {
                        acc[r][i] = _mm512_dpbusd_epi32(acc[r][i], av, bv[i]);
                    }
                }
                if (with_col_sum) {
#pragma GCC unroll 4
                    for (int i = 0; i < 4; ++i) {
                        col[i] = _mm512_dpbusd_epi32(col[i], ones, bv[i]);
                    }
                }
            }
            const int64_t valid = std::min<int64_t>(4, cols - j);
            for (int64_t i = 0; i < valid; ++i) {
                col_sums[j + i] = _mm512_reduce_add_epi32(col[i]);
                for (int r = 0; r < kRows; ++r) {
                    sums[r][j + i] = _mm512_reduce_add_epi32(acc[r][i]);
                }
            }
        }
        alignas(64) __m512i col_sum[4], row[4];
        for (int v = 0; v < 4; ++v) {
            col_sum[v] = _mm512_load_si512(col_sums + 16 * v);
        }
        PanelTerms terms;
        MakePanelTerms(g, c, cols, col_sum, &terms);
        for (int r = 0; r < kRows; ++r) {
            for (int v = 0; v < 4; ++v) {
                row[v] = _mm512_load_si512(sums[r] + 16 * v);
            }
            FinishRow(g, m0 + r, c, cols, row, terms);
        }
    }
}

#undef AQO_DECLARE_ROW
#undef AQO_LOAD_ROW
#undef AQO_MULTIPLY_ROW
#undef AQO_STORE_ROW

// All tiles of rows m0 .. m1 on one packed panel (columns c .. c + cols), quadruples q0 .. q1 of K. Carried
// accumulators (chunked K) live in `carry`: the tile of h rows starting at row m0 + i of panel p of `panels` owns
// the h * 4 vectors at ((i * panels) + p * h) * 4.
AQO_AVX512 void PanelTiles(const Gemm& g, const uint8_t* panel, int64_t m0, int64_t m1, int64_t c, int64_t cols,
                           int64_t q0, int64_t q1, bool first, bool last, __m512i* carry, int64_t panels, int64_t p,
                           const PanelTerms* terms, const KRange& range)
{
    auto tile_carry = [&](int64_t i, int64_t h) { return carry == nullptr ? nullptr : carry + ((i - m0) * panels + p * h) * 4; };
    int64_t i = m0;
    for (; i + kTileRows <= m1; i += kTileRows) {
        PackedTile<kTileRows>(g, panel, i, c, cols, q0, q1, first, last, tile_carry(i, kTileRows), terms, range);
    }
    __m512i* tail = tile_carry(i, m1 - i);
    switch (m1 - i) {
        case 5: PackedTile<5>(g, panel, i, c, cols, q0, q1, first, last, tail, terms, range); break;
        case 4: PackedTile<4>(g, panel, i, c, cols, q0, q1, first, last, tail, terms, range); break;
        case 3: PackedTile<3>(g, panel, i, c, cols, q0, q1, first, last, tail, terms, range); break;
        case 2: PackedTile<2>(g, panel, i, c, cols, q0, q1, first, last, tail, terms, range); break;
        case 1: PackedTile<1>(g, panel, i, c, cols, q0, q1, first, last, tail, terms, range); break;
        default: break;
    }
}

AQO_AVX512 void PanelTermsFromSums(const Gemm& g, const __m512i* sums_interleaved, int64_t c, int64_t cols,
                                   PanelTerms* terms)
{
    alignas(64) __m512i sums[4] = {sums_interleaved[0], sums_interleaved[1], sums_interleaved[2],
                                   sums_interleaved[3]};
    ToNatural(sums);
    MakePanelTerms(g, c, cols, sums, terms);
}

constexpr int64_t kL2Bytes = int64_t{384} << 10;  // packed B kept in L2 at a time (a third of this machine's L2)
constexpr int64_t kMinChunkQuads = 16;  // fewer would make the accumulator traffic between chunks dominate

// Many rows: B is packed once per group of panels with all of K (as many panels as fit kL2Bytes, at least one),
// and every tile of rows runs over a whole panel (no accumulators carried between chunks of K). B stored [N, K]
// comes here with few rows too (5 .. kFewRows): its panels are packed from rows of the storage read along K, which
// GemmFewRows's chunks of K across all of N would read in short pieces of every row.
template <bool kFlip>
AQO_AVX512 void GemmManyRows(const Gemm& g, int64_t m0, int64_t m1, int64_t n0, int64_t n1)
{
    thread_local std::vector<uint8_t> packed_buffer;
    const int64_t k4 = K4(g.k);
    const int64_t panel_stride = 256 * std::max<int64_t>(k4, 1);
    const int64_t group = std::max<int64_t>(1, kL2Bytes / panel_stride);  // panels per group
    uint8_t* packed = Scratch(packed_buffer, group * panel_stride);
    for (int64_t gc = n0; gc < n1; gc += group * kPanel) {
        const int64_t group_cols = std::min(group * kPanel, n1 - gc);
        PackChunk<kFlip>(g, 0, k4, gc, group_cols, packed, panel_stride);
        for (int64_t c = 0; c < group_cols; c += kPanel) {
            const uint8_t* panel = packed + (c / kPanel) * panel_stride;
            const int64_t cols = std::min<int64_t>(kPanel, group_cols - c);
            alignas(64) __m512i sums[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                                           _mm512_setzero_si512()};
            if (g.need_col_sum) {
                AddColumnSums(panel, k4, sums);
            }
            PanelTerms terms;
            PanelTermsFromSums(g, sums, gc + c, cols, &terms);
            PanelTiles(g, panel, m0, m1, gc + c, cols, 0, k4, true, true, nullptr, 0, 0, &terms, KRange{0, k4, nullptr, 0});
        }
    }
}

// Few rows (5 .. kFewRows): chunks of K with all of the task's columns, each chunk packed from four rows of B at a
// time read across the whole width (long sequential runs, which B's reading needs when few rows share it); the
// accumulators carry over between chunks.
template <bool kFlip>
AQO_AVX512 void GemmFewRows(const Gemm& g, int64_t m0, int64_t m1, int64_t n0, int64_t n1, const KRange& range)
{
    thread_local std::vector<uint8_t> packed_buffer, carry_buffer;
    const int64_t width = n1 - n0, panels = (width + kPanel - 1) / kPanel, rows = m1 - m0;
    const int64_t k4 = range.q1 - range.q0;
    const int64_t chunk = std::min(std::max<int64_t>(k4, 1),
                                   std::max(kMinChunkQuads, kL2Bytes / (256 * panels)));  // quadruples per chunk
    const int64_t panel_stride = 256 * chunk;
    uint8_t* packed = Scratch(packed_buffer, panels * panel_stride);
    // carried accumulators: 4 vectors per row and panel (see PanelTiles), then 4 vectors of column sums per panel
    __m512i* carry = reinterpret_cast<__m512i*>(Scratch(carry_buffer, (rows + 1) * panels * 4 * 64));
    __m512i* col_sums = carry + rows * panels * 4;
    for (int64_t v = 0; v < panels * 4; ++v) {
        col_sums[v] = _mm512_setzero_si512();
    }
    int64_t q0 = range.q0;
    do {
        const int64_t q1 = std::min(range.q1, q0 + chunk);
        const bool first = q0 == range.q0, last = q1 == range.q1;
        PackChunk<kFlip>(g, q0, q1, n0, width, packed, panel_stride);
        for (int64_t p = 0; p < panels; ++p) {
            const uint8_t* panel = packed + p * panel_stride;
            const int64_t c = n0 + p * kPanel, cols = std::min<int64_t>(kPanel, n1 - c);
            if (g.need_col_sum) {
                AddColumnSums(panel, q1 - q0, col_sums + 4 * p);
            }
            PanelTerms terms;
            if (last && range.partial != nullptr) {
                alignas(64) __m512i sums[4] = {col_sums[4 * p], col_sums[4 * p + 1], col_sums[4 * p + 2],
                                               col_sums[4 * p + 3]};
                ToNatural(sums);
                if (m0 == 0) {  // one task per K part covers row 0: it stores the part's column sums
                    StorePartial(range, g.m, c, sums);
                }
            } else if (last) {
                PanelTermsFromSums(g, col_sums + 4 * p, c, cols, &terms);
            }
            PanelTiles(g, panel, m0, m1, c, cols, q0, q1, first, last, carry, panels, p, &terms, range);
        }
        q0 = q1;
    } while (q0 < range.q1);
}

// Rows m0 .. m1 and columns n0 .. n1 of the product, over `range` of K (a part of K only for up to kFewRows rows).
template <bool kFlip>
AQO_AVX512 void GemmAvx512(const Gemm& g, int64_t m0, int64_t m1, int64_t n0, int64_t n1, const KRange& range)
{
    if (g.b_trans) {  // never split over K (Run): `range` is all of K
        switch (m1 - m0) {
            case 1: DirectTransposedGemm<1, kFlip>(g, m0, n0, n1); return;
            case 2: DirectTransposedGemm<2, kFlip>(g, m0, n0, n1); return;
            case 3: DirectTransposedGemm<3, kFlip>(g, m0, n0, n1); return;
            case 4: DirectTransposedGemm<4, kFlip>(g, m0, n0, n1); return;
            default: break;
        }
        GemmManyRows<kFlip>(g, m0, m1, n0, n1);
        return;
    }
    switch (m1 - m0) {
        case 1: DirectGemm<1, kFlip>(g, m0, n0, n1, range); return;
        case 2: DirectGemm<2, kFlip>(g, m0, n0, n1, range); return;
        case 3: DirectGemm<3, kFlip>(g, m0, n0, n1, range); return;
        case 4: DirectGemm<4, kFlip>(g, m0, n0, n1, range); return;
        default: break;
    }
    if (m1 - m0 <= kFewRows) {
        GemmFewRows<kFlip>(g, m0, m1, n0, n1, range);
    } else {
        GemmManyRows<kFlip>(g, m0, m1, n0, n1);
    }
}

// 64 columns of one row (`at`, in part 0) summed over the K parts, modulo 2^32.
AQO_AVX512 inline void SumParts(int64_t parts, int64_t part_size, const int32_t* at, __m512i out[4])
{
    for (int j = 0; j < 4; ++j) {
        __m512i v = _mm512_setzero_si512();
        for (int64_t t = 0; t < parts; ++t) {
            v = _mm512_add_epi32(v, _mm512_loadu_si512(at + t * part_size + 16 * j));
        }
        out[j] = v;
    }
}

// The K parts' partial sums of columns n0 .. n1 added up and finished: every row of the product.
AQO_AVX512 void FinishPartials(const Gemm& g, const int32_t* partials, int64_t parts, int64_t part_size,
                               int64_t stride, int64_t n0, int64_t n1)
{
    for (int64_t c = n0; c < n1; c += kPanel) {
        const int64_t cols = std::min<int64_t>(kPanel, n1 - c);
        alignas(64) __m512i col_sum[4], acc[4];
        SumParts(parts, part_size, partials + g.m * stride + c, col_sum);
        PanelTerms terms;
        MakePanelTerms(g, c, cols, col_sum, &terms);
        for (int64_t i = 0; i < g.m; ++i) {
            SumParts(parts, part_size, partials + i * stride + c, acc);
            FinishRow(g, i, c, cols, acc, terms);
        }
    }
}

// Row sums of `rows` rows of `len` unsigned bytes.
AQO_AVX512 void RowSumsAvx512(const uint8_t* a, int64_t lda, int64_t rows, int64_t len, int32_t* sums)
{
    const __m512i zero = _mm512_setzero_si512();
    for (int64_t i = 0; i < rows; ++i) {
        const uint8_t* row = a + i * lda;
        __m512i s = zero;
        for (int64_t k = 0; k < len; k += 64) {
            s = _mm512_add_epi64(s, _mm512_sad_epu8(_mm512_maskz_loadu_epi8(ColumnMask(len - k), row + k), zero));
        }
        sums[i] = static_cast<int32_t>(static_cast<uint32_t>(_mm512_reduce_add_epi64(s)));
    }
}

// a' = a ^ 0x80 (signed a) or a, into rows of lda bytes padded with zeros.
AQO_AVX512 void PackRowsAvx512(const uint8_t* a, int64_t a_rs, int64_t rows, int64_t k, bool flip, uint8_t* out,
                               int64_t lda)
{
    const __m512i mask = _mm512_set1_epi8(flip ? static_cast<char>(0x80) : 0);
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t c = 0; c < lda; c += 64) {
            const __mmask64 in = c < k ? ColumnMask(k - c) : 0;
            const __m512i v = _mm512_maskz_mov_epi8(in, _mm512_xor_si512(_mm512_maskz_loadu_epi8(in, a + i * a_rs + c),
                                                                      mask));
            _mm512_mask_storeu_epi8(out + i * lda + c, ColumnMask(lda - c), v);
        }
    }
}
#endif  // AQO_CPU_HAVE_AVX512

void RowSumsPortable(const uint8_t* a, int64_t lda, int64_t rows, int64_t len, int32_t* sums)
{
    for (int64_t i = 0; i < rows; ++i) {
        uint32_t s = 0;
        for (int64_t k = 0; k < len; ++k) {
            s += a[i * lda + k];
        }
        sums[i] = static_cast<int32_t>(s);
    }
}

void PackRowsPortable(const uint8_t* a, int64_t a_rs, int64_t rows, int64_t k, bool flip, uint8_t* out, int64_t lda)
{
    const uint8_t mask = flip ? 0x80 : 0;
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t c = 0; c < lda; ++c) {
            out[i * lda + c] = c < k ? static_cast<uint8_t>(a[i * a_rs + c] ^ mask) : 0;
        }
    }
}

// ------------------------------------------------------------------------------------------------- driver
struct BatchData {
    std::vector<int32_t> za, zb, row_sum;
    Gemm gemm;
};

// Below this many multiply-adds a call runs on one thread.
constexpr int64_t kParallelMinMacs = int64_t{1} << 21;

class QmmRunner {
public:
    QmmRunner(const QmmProblem& p, Isa isa, int threads) : p_(p), isa_(isa), threads_(threads) {}

    void Run()
    {
        const int64_t k4 = K4(p_.k);
        lda_ = 4 * k4;
        // A needs a copy when it is signed (mapped to unsigned) or K is not a multiple of 4 (the kernels read
        // whole quadruples: the copy pads each row with zeros, which add nothing).
        copy_a_ = p_.a_signed || (p_.k % 4) != 0;
        if (copy_a_) {
            a_copy_.resize(static_cast<size_t>(p_.batches * p_.m * lda_ + 64));
        }
        batch_.resize(static_cast<size_t>(p_.batches));
        const int64_t macs = p_.batches * p_.m * p_.n * std::max<int64_t>(p_.k, 1);
        const int use = macs >= kParallelMinMacs ? threads_ : 1;

        // 1. per batch entry: zero points, mapped A, row sums
        const int64_t prep_tasks = use > 1 ? std::min<int64_t>(p_.batches * p_.m, int64_t{4} * use) : 1;
        if (prep_tasks > 1 && p_.batches == 1) {
            Prepare(0);
            ParallelFor(prep_tasks, use, [&](int64_t t) {
                int64_t r0, r1;
                SplitRange(p_.m, prep_tasks, t, &r0, &r1);
                PrepareRows(0, r0, r1);
            });
        } else {
            ParallelFor(p_.batches, use, [&](int64_t b) {
                Prepare(b);
                PrepareRows(b, 0, p_.m);
            });
        }

        // 2. the products: tasks of (batch entry, rows, columns), or for few rows parts of K
        const int64_t panels = (p_.n + kPanel - 1) / kPanel;
        // (B stored [N, K] is split by columns instead: a task's columns are one contiguous block of the storage)
        if (use > 1 && isa_ >= Isa::kAvx512Vnni && p_.batches == 1 && p_.m <= kFewRows && !p_.b_trans) {
            const int64_t parts = std::min<int64_t>(int64_t{2} * use, k4 / kMinQuadsPerPart);
            if (parts >= 2) {
                MultiplySplitK(parts, use, panels);
                return;
            }
        }
        int64_t col_parts = 1, row_parts = 1;
        if (use > 1) {
            // several tasks per thread: a thread that starts late (a busy machine) takes fewer
            const int64_t want = int64_t{8} * use;
            if (p_.batches < want) {
                const int64_t per_batch = (want + p_.batches - 1) / p_.batches;
                // With few rows B's reading dominates, and narrow tasks read it in short runs per row (measured
                // 2x slower at 256 columns): each task then keeps at least kStreamPanels panels.
                // B stored [N, K] has no such runs: a task's columns are whole rows of the storage.
                const int64_t max_parts =
                    p_.m <= kFewRows && !p_.b_trans ? std::max<int64_t>(1, panels / kStreamPanels) : panels;
                col_parts = std::min(max_parts, per_batch);
                if (col_parts < per_batch) {
                    // too few panels: split rows too (each part packs its panels again, cheap next to M rows)
                    row_parts = std::min((per_batch + col_parts - 1) / col_parts,
                                         std::max<int64_t>(1, p_.m / (4 * kTileRows)));
                }
            }
        }
        const int64_t per_batch_tasks = col_parts * row_parts;
        ParallelFor(p_.batches * per_batch_tasks, use, [&](int64_t t) {
            const int64_t b = t / per_batch_tasks, part = t % per_batch_tasks;
            int64_t p0, p1, r0, r1;
            SplitRange(panels, col_parts, part % col_parts, &p0, &p1);
            SplitRange(p_.m, row_parts, part / col_parts, &r0, &r1);
            const int64_t n0 = p0 * kPanel, n1 = std::min(p_.n, p1 * kPanel);
            if (r1 > r0 && n1 > n0) {
                Multiply(batch_[b].gemm, r0, r1, n0, n1);
            }
        });
    }

private:
    const int64_t* Index(int64_t b) const { return p_.index + b * kOperands; }

    // Few rows: each task multiplies all rows and columns over one part of K and keeps its raw sums; then the
    // columns are finished from the sums of the parts. Every task reads whole rows of B, the access that streams
    // (splitting the columns instead gives each thread short runs of each row: on two threads 1 x 4096 x 4096 ran
    // 1.25x faster than on one that way, 1.95x this way).
    void MultiplySplitK(int64_t parts, int use, int64_t panels)
    {
#if defined(AQO_CPU_HAVE_AVX512)
        thread_local std::vector<int32_t> partial_buffer;  // reused: a fresh one would page-fault on every call
        const Gemm& g = batch_[0].gemm;
        const int64_t stride = panels * kPanel, part_size = (p_.m + 1) * stride;
        if (static_cast<int64_t>(partial_buffer.size()) < parts * part_size) {
            partial_buffer.resize(static_cast<size_t>(parts * part_size));
        }
        int32_t* partials = partial_buffer.data();
        const int64_t k4 = K4(p_.k);
        ParallelFor(parts, use, [&](int64_t t) {
            int64_t q0, q1;
            SplitRange(k4, parts, t, &q0, &q1);
            const KRange range{q0, q1, partials + t * part_size, stride};
            if (g.flip_b) {
                GemmAvx512<true>(g, 0, p_.m, 0, p_.n, range);
            } else {
                GemmAvx512<false>(g, 0, p_.m, 0, p_.n, range);
            }
        });
        const int64_t finish_tasks = std::min<int64_t>(panels, int64_t{4} * use);
        ParallelFor(finish_tasks, use, [&](int64_t t) {
            int64_t p0, p1;
            SplitRange(panels, finish_tasks, t, &p0, &p1);
            FinishPartials(g, partials, parts, part_size, stride, p0 * kPanel, std::min(p_.n, p1 * kPanel));
        });
#else
        (void)parts;
        (void)use;
        (void)panels;
#endif
    }

    // Zero points of batch entry b, and the Gemm description (A itself is prepared by PrepareRows).
    void Prepare(int64_t b)
    {
        BatchData& d = batch_[b];
        const int64_t* ix = Index(b);
        d.za.resize(static_cast<size_t>(p_.m));
        d.zb.resize(static_cast<size_t>(p_.n));
        const int32_t* za = p_.a_zp + ix[kOpAZp] * p_.a_zp_bs;
        const int32_t* zb = p_.b_zp + ix[kOpBZp] * p_.b_zp_bs;
        bool any_za = false, any_zb = false;
        for (int64_t i = 0; i < p_.m; ++i) {
            d.za[i] = za[i * p_.a_zp_ms] + (p_.a_signed ? 128 : 0);
            any_za |= d.za[i] != 0;
        }
        for (int64_t j = 0; j < p_.n; ++j) {
            d.zb[j] = zb[j * p_.b_zp_ns] - (p_.b_signed ? 0 : 128);
            any_zb |= d.zb[j] != 0;
        }
        Gemm& g = d.gemm;
        g.m = p_.m;
        g.k = p_.k;
        g.n = p_.n;
        if (copy_a_) {
            g.a = a_copy_.data() + b * p_.m * lda_;
            g.lda = lda_;
        } else {
            g.a = p_.a + ix[kOpA] * p_.a_bs;
            g.lda = p_.a_rs;
        }
        g.b = p_.b + ix[kOpB] * p_.b_bs;
        g.ldb = p_.b_rs;
        g.b_trans = p_.b_trans;
        g.flip_b = !p_.b_signed;
        g.za = d.za.data();
        g.zb = d.zb.data();
        g.need_row_sum = any_zb;
        g.need_col_sum = any_za;
        if (any_zb) {
            d.row_sum.resize(static_cast<size_t>(p_.m));
        }
        g.row_sum = d.row_sum.data();
        g.mult = p_.mult + ix[kOpMult] * p_.mult_bs;
        g.mult_ms = p_.mult_ms;
        g.mult_ns = p_.mult_ns;
        g.y_zp = p_.y_zp + ix[kOpYZp] * p_.y_zp_bs;
        g.y_zp_ms = p_.y_zp_ms;
        g.y_zp_ns = p_.y_zp_ns;
        g.y = p_.y + b * p_.m * p_.n;
        g.y_lo = p_.y_lo;
        g.y_hi = p_.y_hi;
    }

    // Rows r0 .. r1 of batch entry b: A mapped and padded (when copied), and their row sums.
    void PrepareRows(int64_t b, int64_t r0, int64_t r1)
    {
        Gemm& g = batch_[b].gemm;
        const uint8_t* a = p_.a + Index(b)[kOpA] * p_.a_bs;
        if (copy_a_) {
            uint8_t* out = a_copy_.data() + b * p_.m * lda_ + r0 * lda_;
#if defined(AQO_CPU_HAVE_AVX512)
            if (isa_ >= Isa::kAvx512Vnni) {
                PackRowsAvx512(a + r0 * p_.a_rs, p_.a_rs, r1 - r0, p_.k, p_.a_signed, out, lda_);
            } else
#endif
            {
                PackRowsPortable(a + r0 * p_.a_rs, p_.a_rs, r1 - r0, p_.k, p_.a_signed, out, lda_);
            }
        }
        if (g.need_row_sum) {
            int32_t* sums = batch_[b].row_sum.data() + r0;
#if defined(AQO_CPU_HAVE_AVX512)
            if (isa_ >= Isa::kAvx512Vnni) {
                RowSumsAvx512(g.a + r0 * g.lda, g.lda, r1 - r0, p_.k, sums);
                return;
            }
#endif
            RowSumsPortable(g.a + r0 * g.lda, g.lda, r1 - r0, p_.k, sums);
        }
    }

    void Multiply(const Gemm& g, int64_t m0, int64_t m1, int64_t n0, int64_t n1)
    {
#if defined(AQO_CPU_HAVE_AVX512)
        if (isa_ >= Isa::kAvx512Vnni) {
            const KRange all{0, K4(g.k), nullptr, 0};
            if (g.flip_b) {
                GemmAvx512<true>(g, m0, m1, n0, n1, all);
            } else {
                GemmAvx512<false>(g, m0, m1, n0, n1, all);
            }
            return;
        }
#endif
#if defined(AQO_CPU_PORTABLE_AVX2)
        if (isa_ >= Isa::kAvx2) {
            portable_avx2::Multiply(g, m0, m1, n0, n1);
            return;
        }
#endif
        portable_baseline::Multiply(g, m0, m1, n0, n1);
    }

    const QmmProblem& p_;
    Isa isa_;
    int threads_;
    int64_t lda_ = 0;
    bool copy_a_ = false;
    std::vector<uint8_t> a_copy_;
    std::vector<BatchData> batch_;
};

// ------------------------------------------------------------------------------------------------- binding
namespace nb = nanobind;

void CpuQlinearMatmul(const AnyArray& a, bool a_signed, const AnyArray& b, bool b_signed, const AnyArray& a_zp,
                      const AnyArray& b_zp, const AnyArray& mult, const AnyArray& y_zp, const AnyArray& index,
                      const AnyOutArray& y, int y_lo, int y_hi, int isa, int threads)
{
    RequireArray(a, "a", 3, 8);
    RequireArray(b, "b", 3, 8);
    RequireArray(a_zp, "a_zp", 2, 32);
    RequireArray(b_zp, "b_zp", 2, 32);
    RequireArray(mult, "mult", 3, 32);
    RequireArray(y_zp, "y_zp", 3, 32);
    RequireArray(index, "index", 2, 64);
    RequireArray(y, "y", 3, 8);
    QmmProblem p{};
    p.batches = static_cast<int64_t>(y.shape(0));
    p.m = static_cast<int64_t>(y.shape(1));
    p.n = static_cast<int64_t>(y.shape(2));
    p.k = static_cast<int64_t>(a.shape(2));
    auto dim = [](const AnyArray& arr, size_t i) { return static_cast<int64_t>(arr.shape(i)); };
    auto stride = [](const AnyArray& arr, size_t i) {
        return arr.shape(i) > 1 ? static_cast<int64_t>(arr.stride(i)) : int64_t{0};
    };
    // parameters may have extent 1 along M or N (broadcast: stride 0)
    auto fits = [](int64_t extent, int64_t full) { return extent == full || extent == 1; };
    if (dim(a, 1) != p.m || dim(b, 1) != p.k || dim(b, 2) != p.n || !fits(dim(a_zp, 1), p.m) ||
        !fits(dim(b_zp, 1), p.n) || !fits(dim(mult, 1), p.m) || !fits(dim(mult, 2), p.n) ||
        !fits(dim(y_zp, 1), p.m) || !fits(dim(y_zp, 2), p.n) || dim(index, 0) != p.batches ||
        dim(index, 1) != kOperands) {
        throw std::invalid_argument("cpu_qlinear_matmul: operand shapes do not match y [B, M, N] and K");
    }
    const bool has_k = p.k > 0 && p.m > 0 && p.n > 0 && p.batches > 0;  // empty operands have no meaningful strides
    // b: N contiguous, or K contiguous (a transposed view of its [., N, K] storage, read in place)
    const bool b_rows = p.n <= 1 || b.stride(2) == 1;
    const bool b_trans = !b_rows && (p.k <= 1 || b.stride(1) == 1);
    if ((has_k && p.k > 1 && a.stride(2) != 1) || (has_k && !b_rows && !b_trans) || stride(mult, 2) > 1 ||
        stride(y_zp, 2) > 1 ||
        (p.n > 1 && y.stride(2) != 1) || (p.m > 1 && y.stride(1) != p.n) ||
        (p.batches > 1 && y.stride(0) != p.m * p.n)) {
        throw std::invalid_argument("cpu_qlinear_matmul: a's K, b's N or K, and y must be contiguous; mult and "
                                    "y_zp have column strides 0 or 1");
    }
    if (p.batches > 0 && (index.stride(1) != 1 || (p.batches > 1 && index.stride(0) != kOperands))) {
        throw std::invalid_argument("cpu_qlinear_matmul: index must be contiguous");
    }
    const int64_t* ix = static_cast<const int64_t*>(index.data());
    const int64_t extents[kOperands] = {dim(a, 0), dim(b, 0), dim(a_zp, 0), dim(b_zp, 0), dim(mult, 0), dim(y_zp, 0)};
    for (int64_t i = 0; i < p.batches * kOperands; ++i) {
        if (ix[i] < 0 || ix[i] >= extents[i % kOperands]) {
            throw std::invalid_argument("cpu_qlinear_matmul: batch index out of range");
        }
    }
    if (p.batches == 0 || p.m == 0 || p.n == 0) {
        return;
    }
    p.a = static_cast<const uint8_t*>(a.data());
    p.a_bs = stride(a, 0);
    p.a_rs = stride(a, 1);
    p.b = static_cast<const uint8_t*>(b.data());
    p.b_bs = stride(b, 0);
    p.b_rs = b_trans ? stride(b, 2) : stride(b, 1);
    p.b_trans = b_trans;
    p.a_zp = static_cast<const int32_t*>(a_zp.data());
    p.a_zp_bs = stride(a_zp, 0);
    p.a_zp_ms = stride(a_zp, 1);
    p.b_zp = static_cast<const int32_t*>(b_zp.data());
    p.b_zp_bs = stride(b_zp, 0);
    p.b_zp_ns = stride(b_zp, 1);
    p.mult = static_cast<const float*>(mult.data());
    p.mult_bs = stride(mult, 0);
    p.mult_ms = stride(mult, 1);
    p.mult_ns = stride(mult, 2);
    p.y_zp = static_cast<const int32_t*>(y_zp.data());
    p.y_zp_bs = stride(y_zp, 0);
    p.y_zp_ms = stride(y_zp, 1);
    p.y_zp_ns = stride(y_zp, 2);
    p.index = ix;
    p.y = static_cast<uint8_t*>(y.data());
    p.a_signed = a_signed;
    p.b_signed = b_signed;
    p.y_lo = y_lo;
    p.y_hi = y_hi;
    const Isa level = ResolveIsa(isa);
    const int use_threads = threads > 0 ? threads : MaxThreads();
    nb::gil_scoped_release release;
    QmmRunner(p, level, use_threads).Run();
}

void RegisterCpuQlinearMatmul(nb::module_& m)
{
    m.def("cpu_qlinear_matmul", &CpuQlinearMatmul, nb::arg("a"), nb::arg("a_signed"), nb::arg("b"),
          nb::arg("b_signed"), nb::arg("a_zp"), nb::arg("b_zp"), nb::arg("mult"), nb::arg("y_zp"), nb::arg("index"),
          nb::arg("y"), nb::arg("y_lo"), nb::arg("y_hi"), nb::arg("isa") = -1, nb::arg("threads") = -1,
          "Integer QLinearMatMul: y[i] = saturate(rint(float32(acc) * mult) + y_zp) for every batch entry i of "
          "y [B, M, N], acc the int32-wrapped sum over K of (a - a_zp)(b - b_zp); a [., M, K], b [., K, N] 8-bit, "
          "a_zp [., M], b_zp [., N], y_zp [., M, N] int32, mult [., M, N] float32 (parameters may have extent 1 "
          "along M or N; b's N or K contiguous: a transposed view of [., N, K] is read in place), index [B, 6] "
          "int64 picks the batch entry of a, b, a_zp, b_zp, mult, y_zp. Internal: "
          "ascend_quant_ops.cpu.qlinear_matmul validates and calls this.");
}

const aqo_bind::Registrar kRegistrar("cpu_qlinear_matmul", &RegisterCpuQlinearMatmul);

}  // namespace
}  // namespace aqo_cpu
