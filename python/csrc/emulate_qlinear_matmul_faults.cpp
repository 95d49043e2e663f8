// Test kernels of the emulated Matmul high-level API (op_kernel/emulator/include/lib/matmul_intf.h): deliberately
// wrong uses, each marked `// FAULT: <name>` on the line the emulator must name, and a demo kernel whose int32
// result tests compare with exact integer math. Exposed as _native.qmm_matmul_fault(name, soc) and
// _native.qmm_matmul_demo(...); these exist to test the emulator, not for users.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "emulator/launch.h"
#include "lib/matmul_intf.h"
#include "registry.h"

namespace aqo_qmm_tests {

using namespace AscendC;

using MmI8 = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, int8_t>, MatmulType<TPosition::GM, CubeFormat::ND, int8_t>,
                    MatmulType<TPosition::GM, CubeFormat::ND, int32_t>>;
using MmU8I8 = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, uint8_t>,
                      MatmulType<TPosition::GM, CubeFormat::ND, int8_t>,
                      MatmulType<TPosition::GM, CubeFormat::ND, int32_t>>;
using MmF8 = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, fp8_e4m3fn_t>,
                    MatmulType<TPosition::GM, CubeFormat::ND, fp8_e5m2_t>,
                    MatmulType<TPosition::GM, CubeFormat::ND, float>>;
using MmU8U8 = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, uint8_t>,
                      MatmulType<TPosition::GM, CubeFormat::ND, uint8_t>,
                      MatmulType<TPosition::GM, CubeFormat::ND, int32_t>>;

// The test problem: a [m, k] (row stride lda), b [k, n] (row stride ldb), c [m, n] (row stride ldc).
struct Problem {
    int32_t m, n, k, lda, ldb, ldc;
};

inline TCubeTiling Tiling(int32_t base_m = 16, int32_t base_n = 16, int32_t base_k = 32)
{
    TCubeTiling t;
    t.M = t.singleCoreM = 16;
    t.N = t.singleCoreN = 16;
    t.Ka = t.Kb = t.singleCoreK = 32;
    t.baseM = base_m;
    t.baseN = base_n;
    t.baseK = base_k;
    return t;
}

template <class MM, class AT, class BT>
inline void Multiply(MM& mm, GM_ADDR a, GM_ADDR b, GM_ADDR c, uint64_t a_bytes, uint64_t b_bytes,
                     uint64_t c_elems, const Problem& p)
{
    GlobalTensor<AT> ga;
    GlobalTensor<BT> gb;
    GlobalTensor<int32_t> gc;
    ga.SetGlobalBuffer(reinterpret_cast<AT*>(a), a_bytes);
    gb.SetGlobalBuffer(reinterpret_cast<BT*>(b), b_bytes);
    gc.SetGlobalBuffer(reinterpret_cast<int32_t*>(c), c_elems);
    mm.SetOrgShape(p.m, p.ldb, p.lda, p.k, p.ldc);
    mm.SetSingleShape(p.m, p.n, p.k);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.IterateAll(gc);
    mm.End();
}

// ---- faults: a 16 x 16 x 32 problem in 512-byte a / b and 1024-byte c buffers unless the fault is about that ----
inline void FaultIterateBeforeSetTensorB(GM_ADDR a, GM_ADDR b, GM_ADDR c)
{
    (void)b;
    TPipe pipe;
    MmI8 mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    GlobalTensor<int8_t> ga;
    GlobalTensor<int32_t> gc;
    ga.SetGlobalBuffer(reinterpret_cast<int8_t*>(a), 512);
    gc.SetGlobalBuffer(reinterpret_cast<int32_t*>(c), 256);
    mm.SetOrgShape(16, 16, 32);
    mm.SetSingleShape(16, 16, 32);
    mm.SetTensorA(ga);
    mm.IterateAll(gc);  // FAULT: iterate_before_set_tensor_b
}

inline void FaultAOutOfBounds(GM_ADDR a, GM_ADDR b, GM_ADDR c)
{
    TPipe pipe;
    MmI8 mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    GlobalTensor<int8_t> ga, gb;
    GlobalTensor<int32_t> gc;
    ga.SetGlobalBuffer(reinterpret_cast<int8_t*>(a), 256);  // half of the 16 x 32 A the shape needs
    gb.SetGlobalBuffer(reinterpret_cast<int8_t*>(b), 512);
    gc.SetGlobalBuffer(reinterpret_cast<int32_t*>(c), 256);
    mm.SetOrgShape(16, 16, 32);
    mm.SetSingleShape(16, 16, 32);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.IterateAll(gc);  // FAULT: a_out_of_bounds
}

inline void FaultCReadOnly(GM_ADDR a, GM_ADDR b, GM_ADDR c)
{
    (void)c;
    TPipe pipe;
    MmI8 mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    GlobalTensor<int8_t> ga, gb;
    GlobalTensor<int32_t> gc;
    ga.SetGlobalBuffer(reinterpret_cast<int8_t*>(a), 512);
    gb.SetGlobalBuffer(reinterpret_cast<int8_t*>(b), 512);
    gc.SetGlobalBuffer(reinterpret_cast<int32_t*>(a), 4);  // C into the read-only input a
    mm.SetOrgShape(1, 4, 32);
    mm.SetSingleShape(1, 4, 32);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.IterateAll(gc);  // FAULT: c_in_read_only_input
}

inline void FaultBaseBlockNotFractal(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmI8 mm;
    TCubeTiling t = Tiling(10, 16, 32);
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // FAULT: base_block_not_fractal
}

inline void FaultUint8OnInt8Cube(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmU8I8 mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // FAULT: uint8_without_cube_path
}

inline void FaultFloat8WithoutCubePath(GM_ADDR, GM_ADDR, GM_ADDR)
{
    TPipe pipe;
    MmF8 mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);  // FAULT: float8_without_cube_path
}

inline void FaultUseBeforeInit(GM_ADDR a, GM_ADDR, GM_ADDR)
{
    MmI8 mm;
    GlobalTensor<int8_t> ga;
    ga.SetGlobalBuffer(reinterpret_cast<int8_t*>(a), 512);
    mm.SetTensorA(ga);  // FAULT: use_before_init
}

inline void FaultSingleLargerThanOrg(GM_ADDR a, GM_ADDR b, GM_ADDR c)
{
    TPipe pipe;
    MmI8 mm;
    TCubeTiling t = Tiling();
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    GlobalTensor<int8_t> ga, gb;
    GlobalTensor<int32_t> gc;
    ga.SetGlobalBuffer(reinterpret_cast<int8_t*>(a), 512);
    gb.SetGlobalBuffer(reinterpret_cast<int8_t*>(b), 512);
    gc.SetGlobalBuffer(reinterpret_cast<int32_t*>(c), 256);
    mm.SetOrgShape(16, 8, 32);  // B and C rows of 8, but 16 columns asked for
    mm.SetSingleShape(16, 16, 32);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.IterateAll(gc);  // FAULT: single_shape_larger_than_org
}

typedef void (*FaultKernel)(GM_ADDR, GM_ADDR, GM_ADDR);
struct FaultEntry {
    const char* name;
    FaultKernel kernel;
};
const FaultEntry kFaults[] = {
    {"iterate_before_set_tensor_b", &FaultIterateBeforeSetTensorB},
    {"a_out_of_bounds", &FaultAOutOfBounds},
    {"c_in_read_only_input", &FaultCReadOnly},
    {"base_block_not_fractal", &FaultBaseBlockNotFractal},
    {"uint8_without_cube_path", &FaultUint8OnInt8Cube},
    {"float8_without_cube_path", &FaultFloat8WithoutCubePath},
    {"use_before_init", &FaultUseBeforeInit},
    {"single_shape_larger_than_org", &FaultSingleLargerThanOrg},
};

}  // namespace aqo_qmm_tests

namespace nb = nanobind;

namespace {

void RunFault(const std::string& name, const std::string& soc)
{
    for (const aqo_qmm_tests::FaultEntry& f : aqo_qmm_tests::kFaults) {
        if (name != f.name) {
            continue;
        }
        std::vector<uint8_t> a(512, 1), b(512, 1), c(1024, 0);
        aqo_emu::Launcher launch(soc, std::string("qmm_fault_") + name);
        uint8_t* ga = launch.AddGm("a", a.data(), a.size(), aqo_emu::GmAccess::kReadOnly);
        uint8_t* gb = launch.AddGm("b", b.data(), b.size(), aqo_emu::GmAccess::kReadOnly);
        uint8_t* gc = launch.AddGm("c", c.data(), c.size(), aqo_emu::GmAccess::kReadWrite);
        launch.Run(1, [&] { f.kernel(ga, gb, gc); });  // the EmulatorError propagates (bind_emulator.cpp)
        return;
    }
    throw nb::value_error(("unknown Matmul fault kernel " + name).c_str());
}

std::vector<uint8_t> Bytes(const nb::bytes& b)
{
    const uint8_t* p = static_cast<const uint8_t*>(b.data());
    return std::vector<uint8_t>(p, p + b.size());
}

// C = A B through the emulated Matmul API (int8 / uint8 operands as the SoC's cube allows), C returned as bytes.
nb::bytes RunDemo(const std::string& soc, const nb::bytes& a_in, const nb::bytes& b_in, bool a_unsigned,
                  bool b_unsigned, int32_t m, int32_t n, int32_t k, int32_t lda, int32_t ldb, int32_t ldc)
{
    if (!a_unsigned && b_unsigned) {
        throw nb::value_error("int8 x uint8 is no cube path on any SoC (FACTS 3)");
    }
    std::vector<uint8_t> a = Bytes(a_in), b = Bytes(b_in);
    std::vector<uint8_t> c(static_cast<size_t>(m) * ldc * 4, 0);
    const aqo_qmm_tests::Problem p{m, n, k, lda, ldb, ldc};
    aqo_emu::Launcher launch(soc, "qmm_matmul_demo");
    uint8_t* ga = launch.AddGm("a", a.data(), a.size(), aqo_emu::GmAccess::kReadOnly);
    uint8_t* gb = launch.AddGm("b", b.data(), b.size(), aqo_emu::GmAccess::kReadOnly);
    uint8_t* gc = launch.AddGm("c", c.data(), c.size(), aqo_emu::GmAccess::kReadWrite);
    launch.Run(1, [&] {
        using namespace aqo_qmm_tests;
        AscendC::TPipe pipe;
        TCubeTiling t = Tiling();
        if (!a_unsigned && !b_unsigned) {
            MmI8 mm;
            REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
            Multiply<MmI8, int8_t, int8_t>(mm, ga, gb, gc, a.size(), b.size(), c.size() / 4, p);
        } else if (a_unsigned && !b_unsigned) {
            MmU8I8 mm;
            REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
            Multiply<MmU8I8, uint8_t, int8_t>(mm, ga, gb, gc, a.size(), b.size(), c.size() / 4, p);
        } else {
            MmU8U8 mm;
            REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
            Multiply<MmU8U8, uint8_t, uint8_t>(mm, ga, gb, gc, a.size(), b.size(), c.size() / 4, p);
        }
    });
    return nb::bytes(reinterpret_cast<const char*>(c.data()), c.size());
}

void RegisterQmmMatmulTests(nb::module_& m)
{
    std::vector<std::string> names;
    for (const aqo_qmm_tests::FaultEntry& f : aqo_qmm_tests::kFaults) {
        names.emplace_back(f.name);
    }
    m.def("qmm_matmul_fault_names", [names]() { return names; },
          "Names of the emulated Matmul API's fault kernels (python/csrc/emulate_qlinear_matmul_faults.cpp).");
    m.def("qmm_matmul_fault", &RunFault, nb::arg("name"), nb::arg("soc") = "ascend910b",
          "Runs one deliberately wrong Matmul API use; raises EmulatorError at its `// FAULT:` line.");
    m.def("qmm_matmul_demo", &RunDemo, nb::arg("soc"), nb::arg("a"), nb::arg("b"), nb::arg("a_unsigned"),
          nb::arg("b_unsigned"), nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("lda"), nb::arg("ldb"),
          nb::arg("ldc"), "C = A B (int32 bytes) through the emulated Matmul API.");
}

aqo_bind::Registrar kRegisterQmmMatmulTests("qmm_matmul_tests", &RegisterQmmMatmulTests);

}  // namespace
