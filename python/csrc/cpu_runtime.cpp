// Run-time support of the fast CPU kernels: ISA detection, the IEEE float scope, the thread pool (see
// cpu_runtime.h), and the Python bindings that report them.
#include "cpu_runtime.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cfenv>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define AQO_X86 1
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define AQO_POSIX 1
#endif
#if defined(__linux__)
#include <sched.h>
#endif

#include "cpu_simd.h"
#include "registry.h"

namespace aqo_cpu {

namespace {

Isa DetectIsa()
{
#if defined(AQO_X86) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    // __builtin_cpu_supports also checks that the OS saves the AVX-512 state (XCR0), not only CPUID.
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512vnni")) {
        return Isa::kAvx512Vnni;
    }
#if defined(AQO_CPU_PORTABLE_AVX2)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c") &&
        __builtin_cpu_supports("bmi2")) {
        return Isa::kAvx2;  // the target of the portable kernels' second copy (cpu_simd.h)
    }
#endif
#endif
    return Isa::kPortable;
}

Isa CappedIsa()
{
    Isa best = DetectIsa();
    const char* cap = std::getenv("AQO_CPU_ISA");
    if (cap != nullptr) {
        for (int level = 0; level < static_cast<int>(best); ++level) {
            if (std::strcmp(cap, IsaName(static_cast<Isa>(level))) == 0) {
                return static_cast<Isa>(level);
            }
        }
    }
    return best;
}

}  // namespace

Isa BestIsa()
{
    static const Isa best = CappedIsa();
    return best;
}

Isa ResolveIsa(int requested)
{
    if (requested < 0 || requested > static_cast<int>(BestIsa())) {
        return BestIsa();
    }
    return static_cast<Isa>(requested);
}

const char* IsaName(Isa isa)
{
    switch (isa) {
        case Isa::kAvx512Vnni:
            return "avx512_vnni";
        case Isa::kAvx2:
            return "avx2";
        case Isa::kPortable:
        default:
            return "portable";
    }
}

// ------------------------------------------------------------------------------------------- float environment
#if defined(AQO_X86)
// MXCSR: all exceptions masked (bits 7-12), round to nearest even (bits 13-14 = 0), FTZ (15) and DAZ (6) off.
constexpr unsigned kIeeeMxcsr = 0x1F80;
IeeeFloatScope::IeeeFloatScope() : saved_(_mm_getcsr())
{
    if (saved_ != kIeeeMxcsr) {
        _mm_setcsr(kIeeeMxcsr);
    }
}
IeeeFloatScope::~IeeeFloatScope()
{
    if (saved_ != kIeeeMxcsr) {
        _mm_setcsr(static_cast<unsigned>(saved_));
    }
}
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
// FPCR: RMode (bits 22-23) = 0 round to nearest even, FZ (24) and FZ16 (19) off.
IeeeFloatScope::IeeeFloatScope()
{
    uint64_t fpcr;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
    saved_ = fpcr;
    const uint64_t ieee = fpcr & ~((uint64_t{3} << 22) | (uint64_t{1} << 24) | (uint64_t{1} << 19));
    if (ieee != fpcr) {
        __asm__ __volatile__("msr fpcr, %0" : : "r"(ieee));
    }
}
IeeeFloatScope::~IeeeFloatScope()
{
    uint64_t fpcr;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
    if (fpcr != saved_) {
        __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_));
    }
}
#else
IeeeFloatScope::IeeeFloatScope() : saved_(static_cast<uint64_t>(std::fegetround()))
{
    std::fesetround(FE_TONEAREST);
}
IeeeFloatScope::~IeeeFloatScope() { std::fesetround(static_cast<int>(saved_)); }
#endif

// ------------------------------------------------------------------------------------------------- threads
namespace {

int CountCpus()
{
    const char* env = std::getenv("AQO_NUM_THREADS");
    if (env != nullptr) {
        const int n = std::atoi(env);
        if (n >= 1) {
            return n;
        }
    }
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n >= 1) {
            return n;
        }
    }
#endif
    const unsigned n = std::thread::hardware_concurrency();
    return n >= 1 ? static_cast<int>(n) : 1;
}

// One ParallelFor call. Tasks are claimed from `next`; `done` counts finished ones. The caller returns when every
// task is done, without waiting for helpers that never started (on a busy machine a woken thread may run
// milliseconds later): a late helper holds the job through its shared_ptr, finds no task left to claim, and so
// never calls `body`, whose captures may be gone by then.
struct Job {
    const std::function<void(int64_t)>* body;
    int64_t tasks;
    int helpers;
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> done{0};
};

// Spins (about kSpinMicros) until `done()`; true if it became true. A thread that went to sleep takes long to wake:
// measured on this project's virtual machine, calls 1 ms apart ran 0.3-0.6 ms slower (a 0.6 ms decode product
// took 0.9-1.3 ms) with a 50 us spin than back to back; with 2 ms, calls up to 1 ms apart run as fast as back to
// back. (onnxruntime's and OpenMP's pools spin after a call for the same reason.)
constexpr int kSpinMicros = 2000;

template <typename Done>
bool SpinUntil(Done done)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicros);
    for (int i = 0;; ++i) {
        if (done()) {
            return true;
        }
#if defined(AQO_X86)
        _mm_pause();
#endif
        if ((i & 63) == 63 && std::chrono::steady_clock::now() >= until) {
            return false;
        }
    }
}

// Workers spin briefly after each call, then sleep on a condition variable. One call at a time: a second
// concurrent caller runs its tasks itself.
class Pool {
public:
    explicit Pool(int workers)
    {
        for (int i = 0; i < workers; ++i) {
            threads_.emplace_back([this, i] { WorkerLoop(i); });
        }
    }
    // Never destroyed (see GetPool): the workers block in WorkerLoop until the process ends.

    int Workers() const { return static_cast<int>(threads_.size()); }

    bool TryRun(int64_t tasks, int helpers, const std::function<void(int64_t)>& body)
    {
        std::unique_lock<std::mutex> call(call_mu_, std::try_to_lock);
        if (!call.owns_lock()) {
            return false;
        }
        auto job = std::make_shared<Job>();
        job->body = &body;
        job->tasks = tasks;
        job->helpers = helpers;
        {
            std::lock_guard<std::mutex> lk(mu_);
            job_ = job;
            generation_.fetch_add(1, std::memory_order_release);
        }
        cv_work_.notify_all();
        Work(*job);
        if (!SpinUntil([&] { return job->done.load(std::memory_order_acquire) == tasks; })) {
            std::unique_lock<std::mutex> lk(mu_);
            cv_done_.wait(lk, [&] { return job->done.load() == tasks; });
        }
        return true;
    }

private:
    void Work(Job& job)
    {
        IeeeFloatScope ieee;
        for (int64_t t = job.next.fetch_add(1); t < job.tasks; t = job.next.fetch_add(1)) {
            (*job.body)(t);
            if (job.done.fetch_add(1, std::memory_order_acq_rel) + 1 == job.tasks) {
                std::lock_guard<std::mutex> lk(mu_);  // the caller checks `done` under mu_ before it sleeps
                cv_done_.notify_all();
            }
        }
    }

    void WorkerLoop(int id)
    {
        uint64_t seen = 0;
        for (;;) {
            SpinUntil([&] { return generation_.load(std::memory_order_acquire) != seen; });
            std::shared_ptr<Job> job;
            {
                std::unique_lock<std::mutex> lk(mu_);
                cv_work_.wait(lk, [&] { return generation_.load() != seen; });
                seen = generation_.load();
                job = job_;
            }
            if (job && id < job->helpers) {
                Work(*job);
            }
        }
    }

    std::mutex call_mu_;
    std::mutex mu_;  // guards job_; the condition variables' mutex
    std::condition_variable cv_work_;
    std::condition_variable cv_done_;
    std::atomic<uint64_t> generation_{0};
    std::shared_ptr<Job> job_;
    std::vector<std::thread> threads_;
};

// The pool and the mutex that guards its creation are leaked on purpose: joinable std::threads must not be
// destroyed, and after fork() the child has neither the workers nor a usable lock, so it starts afresh.
std::atomic<Pool*> g_pool{nullptr};
std::mutex* g_create_mu = new std::mutex;

#if defined(AQO_POSIX)
void ResetPoolInChild()
{
    g_pool.store(nullptr);
    g_create_mu = new std::mutex;
}
const int g_atfork_registered = pthread_atfork(nullptr, nullptr, &ResetPoolInChild);
#endif

Pool* GetPool()
{
    Pool* pool = g_pool.load(std::memory_order_acquire);
    if (pool != nullptr) {
        return pool;
    }
    std::lock_guard<std::mutex> lk(*g_create_mu);
    pool = g_pool.load(std::memory_order_acquire);
    if (pool == nullptr) {
        pool = new Pool(MaxThreads() - 1);
        g_pool.store(pool, std::memory_order_release);
    }
    return pool;
}

}  // namespace

int MaxThreads()
{
    static const int n = CountCpus();
    return n;
}

void ParallelFor(int64_t tasks, int threads, const std::function<void(int64_t)>& body)
{
    if (tasks <= 0) {
        return;
    }
    const int64_t wanted = std::min<int64_t>({static_cast<int64_t>(threads), static_cast<int64_t>(MaxThreads()),
                                              tasks});
    if (wanted > 1) {
        Pool* pool = GetPool();
        const int helpers = static_cast<int>(std::min<int64_t>(wanted - 1, pool->Workers()));
        if (helpers > 0 && pool->TryRun(tasks, helpers, body)) {
            return;
        }
    }
    IeeeFloatScope ieee;
    for (int64_t t = 0; t < tasks; ++t) {
        body(t);
    }
}

}  // namespace aqo_cpu

namespace {

namespace nb = nanobind;

void RegisterCpuRuntime(nb::module_& m)
{
    m.def(
        "cpu_isa_levels",
        []() {
            std::vector<std::string> names;
            for (int i = 0; i <= static_cast<int>(aqo_cpu::BestIsa()); ++i) {
                names.emplace_back(aqo_cpu::IsaName(static_cast<aqo_cpu::Isa>(i)));
            }
            return names;
        },
        "Instruction-set levels of the fast CPU kernels this machine runs, lowest (portable) to best; the index "
        "of a name is the `isa` argument of the cpu_* kernels.");
    m.def(
        "cpu_pool_probe",
        [](int64_t tasks, int threads, double task_seconds) {
            // Which thread ran each task (0 = the caller, 1.. = others in order of appearance): the tests check
            // that the pool really runs tasks elsewhere, also in a forked child.
            std::vector<std::thread::id> ran(static_cast<size_t>(tasks));
            {
                nb::gil_scoped_release release;
                aqo_cpu::ParallelFor(tasks, threads, [&](int64_t t) {
                    ran[static_cast<size_t>(t)] = std::this_thread::get_id();
                    std::this_thread::sleep_for(std::chrono::duration<double>(task_seconds));
                });
            }
            std::vector<std::thread::id> seen{std::this_thread::get_id()};
            std::vector<int> which;
            for (const auto& id : ran) {
                auto it = std::find(seen.begin(), seen.end(), id);
                if (it == seen.end()) {
                    seen.push_back(id);
                    it = seen.end() - 1;
                }
                which.push_back(static_cast<int>(it - seen.begin()));
            }
            return which;
        },
        nb::arg("tasks"), nb::arg("threads"), nb::arg("task_seconds") = 0.001,
        "Test hook: runs `tasks` sleeping tasks on the pool; returns which thread ran each (0 = the caller).");
    m.def("cpu_max_threads", &aqo_cpu::MaxThreads,
          "Threads the fast CPU kernels use at most (AQO_NUM_THREADS, else the CPUs this process may use).");
}

const aqo_bind::Registrar kRegistrar("cpu_runtime", &RegisterCpuRuntime);

}  // namespace
