// Run-time support of the fast CPU kernels (cpu_*.cpp): which instruction set this machine offers, an IEEE
// float environment for the duration of a kernel, and a small persistent thread pool.
//
// The wheel is built for baseline x86-64 (or aarch64): every kernel that uses AVX-512 is compiled with a target
// attribute and chosen at run time by CpuIsa(), next to a portable C++ version that every machine runs and the
// tests run on this one too (the isa argument of the bindings).
#pragma once

#include <cstdint>
#include <functional>

namespace aqo_cpu {

// Instruction-set levels, ordered: a level implies the ones below it.
enum class Isa : int {
    kPortable = 0,    // plain C++, vectorised by the compiler for the build's baseline
    kAvx2 = 1,        // the same C++ compiled for AVX2 + FMA + F16C (Haswell, Zen 1 and later)
    kAvx512Vnni = 2,  // AVX-512 F/BW/DQ/VL + VNNI kernels (Cascade Lake, Ice Lake, Sapphire Rapids, Zen 4 and later)
};

// The best level this CPU and OS support, capped by the environment variable AQO_CPU_ISA ("portable", "avx2" or
// "avx512_vnni"), read once.
Isa BestIsa();

// `requested` < 0: the best level; otherwise that level, which must not exceed BestIsa() (the bindings refuse
// a level the machine lacks before calling a kernel).
Isa ResolveIsa(int requested);

const char* IsaName(Isa isa);

// The float environment the kernels' bit-exactness is defined for: round to nearest even, no flush-to-zero
// and no denormals-are-zero, exceptions masked. The caller's environment (e.g. torch.set_flush_denormal(True),
// which also reaches threads started later) is restored on exit.
class IeeeFloatScope {
public:
    IeeeFloatScope();
    ~IeeeFloatScope();
    IeeeFloatScope(const IeeeFloatScope&) = delete;
    IeeeFloatScope& operator=(const IeeeFloatScope&) = delete;

private:
    uint64_t saved_;
};

// Number of threads the kernels use: AQO_NUM_THREADS if set (>= 1), else the CPUs this process may run on.
int MaxThreads();

// Runs body(task) for every task in [0, tasks) on up to `threads` threads, the calling thread included, and
// returns when all are done. Each task runs inside an IeeeFloatScope. Runs everything on the calling thread
// when threads <= 1, tasks <= 1, or the pool is busy with another caller's work (two Python threads calling
// kernels at once). The pool survives fork(): a child process starts a fresh one on first use.
void ParallelFor(int64_t tasks, int threads, const std::function<void(int64_t)>& body);

// Splits [0, n) into `parts` contiguous ranges of near-equal size; returns the bounds of range `i`.
inline void SplitRange(int64_t n, int64_t parts, int64_t i, int64_t* begin, int64_t* end)
{
    const int64_t base = n / parts, extra = n % parts;
    *begin = i * base + (i < extra ? i : extra);
    *end = *begin + base + (i < extra ? 1 : 0);
}

}  // namespace aqo_cpu
