"""The emulated AscendC API's signatures are as strict as the CANN 8.1.RC1 headers': a call the device compiler would
reject (a template argument the headers' declaration cannot deduce) does not compile against the emulator either, so
a kernel that builds and passes here cannot fail the device build on a type the emulator let through. Each case is a
pair: the call as the headers accept it compiles, the rejected form does not (a few cases only show a form the
headers accept compiling here too)."""
from __future__ import annotations

import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CXX = shutil.which("c++") or shutil.which("g++")

# (name, declaration in the 8.1 headers, accepted call, rejected call); `t` is a LocalTensor<float>.
CASES = [
    ("duplicate_scalar_type",
     "Duplicate(const LocalTensor<T>&, const T& scalarValue, const int32_t& calCount) "
     "(interface/kernel_operator_vec_duplicate_intf.h): the scalar's type is T",
     "Duplicate(t, 0.0f, 64);", "Duplicate(t, 0, 64);"),
    ("adds_scalar_type",
     "Adds(dst, src, const T& scalarValue, const int32_t& calCount), or a U with enable_if<IsSameType<PrimT<T>, U>> "
     "(interface/kernel_operator_vec_binary_scalar_intf.h)",
     "Adds(t, t, 0.5f, 64);", "Adds(t, t, 0.5, 64);"),
    ("muls_scalar_type", "Muls: as Adds", "Muls(t, t, 2.0f, 64);", "Muls(t, t, 2, 64);"),
    # (isSetMask = false, one repeat under the current mask in 8.1, is refused by the emulator: not modelled)
    ("maxs_is_set_mask", "Maxs<T, bool isSetMask = true>: explicit template arguments (a T given, the scalar then "
     "converts as a function argument does)",
     "Maxs<float, true>(t, t, 0, 64);", None),
    ("maxs_scalar_type", "Maxs: as Adds", "Maxs(t, t, 0.0f, 64);", "Maxs(t, t, 0, 64);"),
    ("mins_scalar_type", "Mins: as Adds", "Mins(t, t, 1.0f, 64);", "Mins(t, t, 1.0, 64);"),
    ("compare_scalar_type",
     "CompareScalar(dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE, uint32_t) "
     "(interface/kernel_operator_vec_cmpsel_intf.h)",
     "CompareScalar(t.ReinterpretCast<uint8_t>(), t, 1.0f, CMPMODE::LT, 64);",
     "CompareScalar(t.ReinterpretCast<uint8_t>(), t, 1, CMPMODE::LT, 64);"),
    ("extra_argument",
     "Duplicate's forms take (scalar, calCount) or (scalar, mask, repeatTimes, dstBlockStride, dstRepeatStride) "
     "(interface/kernel_operator_vec_duplicate_intf.h); the emulator's hidden caller file / line arguments must not "
     "absorb an extra literal",
     "Duplicate(t, 0.0f, 64);", "Duplicate(t, 0.0f, 64, 0);"),
    ("narrowing_in_braces",
     "bisheng (clang) refuses a narrowing conversion inside braces, which g++ only warns about: the kernels' modules "
     "build with -Werror=narrowing",
     "uint8_t r = 3; BinaryRepeatParams p{1, 1, 1, 8, 8, r}; (void)p;",
     "uint32_t r = 3; BinaryRepeatParams p{1, 1, 1, 8, 8, r}; (void)p;"),
    ("global_set_value_const",
     "GlobalTensor::SetValue(const uint64_t offset, PrimType value), not const (interface/kernel_tensor.h)",
     "GlobalTensor<float> g; g.SetValue(0, 1.0f);",
     "GlobalTensor<float> h; const GlobalTensor<float>& g = h; g.SetValue(0, 1.0f);"),
    ("tbuf_get_not_const",
     "TBuf::Get<T>(), Get<T>(len) and GetWithOffset<T>(size, offset) are not const (interface/kernel_tpipe.h): a "
     "const member function of a kernel class cannot take a tensor from its own TBuf",
     "TBuf<TPosition::VECCALC> b; (void)b.Get<float>();",
     "TBuf<TPosition::VECCALC> h; const TBuf<TPosition::VECCALC>& b = h; (void)b.Get<float>();"),
    ("select_scalar_type",
     "Select(dst, selMask, src0, T src1Local, SELMODE, uint32_t) (interface/kernel_operator_vec_cmpsel_intf.h)",
     "Select(t, t.ReinterpretCast<uint8_t>(), t, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);",
     "Select(t, t.ReinterpretCast<uint8_t>(), t, 0, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);"),
]


def _kernel_options() -> list[str]:
    """The compile options the package build gives the kernels' emulator modules (CMakeLists.txt)."""
    m = re.search(r"set\(AQO_KERNEL_COMPILE_OPTIONS ([^)]*)\)", (ROOT / "CMakeLists.txt").read_text(encoding="utf-8"))
    assert m, "CMakeLists.txt sets AQO_KERNEL_COMPILE_OPTIONS"
    return m.group(1).split()


def _compiles(tmp_path, body: str) -> subprocess.CompletedProcess:
    src = tmp_path / "call.cpp"
    src.write_text('#include "kernel_operator.h"\nusing namespace AscendC;\n'
                   f"void F(const LocalTensor<float>& t) {{ {body} }}\n")
    return subprocess.run([CXX, "-std=c++17", "-fsyntax-only", *_kernel_options(),
                           f"-I{ROOT / 'op_kernel/emulator/include'}", f"-I{ROOT / 'op_kernel'}", str(src)],
                          capture_output=True, text=True)


@pytest.mark.skipif(CXX is None, reason="no C++ compiler (the package build needs one)")
@pytest.mark.parametrize("name,declaration,accepted,rejected", CASES, ids=[c[0] for c in CASES])
def test_a_call_the_headers_reject_does_not_compile(tmp_path, name, declaration, accepted, rejected):
    ok = _compiles(tmp_path, accepted)
    assert ok.returncode == 0, ok.stderr[-2000:]
    if rejected is None:  # a form the headers accept and the emulator used to refuse
        return
    bad = _compiles(tmp_path, rejected)
    assert bad.returncode != 0, f"{rejected} compiles against the emulator; the headers declare {declaration}"


@pytest.mark.skipif(CXX is None, reason="no C++ compiler (the package build needs one)")
def test_scalar_count_forms_without_set_mask_are_refused(tmp_path):
    # 8.1's isSetMask = false count form of Adds / Muls / Maxs / Mins runs one repeat under the current mask, not
    # `count` elements: the emulator does not model it, so such a call does not compile (the true form does).
    for name in ("Adds", "Muls", "Maxs", "Mins"):
        ok = _compiles(tmp_path, f"{name}<float, true>(t, t, 1.0f, 64);")
        assert ok.returncode == 0, ok.stderr[-2000:]
        bad = _compiles(tmp_path, f"{name}<float, false>(t, t, 1.0f, 64);")
        assert bad.returncode != 0 and "isSetMask = false count form is not modelled" in bad.stderr, name


@pytest.mark.skipif(CXX is None, reason="no C++ compiler (the package build needs one)")
def test_a_tbuf_outside_the_modelled_memories_is_refused(tmp_path):
    # The headers accept a TBuf of any position; the emulator models the unified buffer and the kernel's own L1 / L0
    # (A1 / B1 / A2 / B2 / CO1), so a TBuf of another position (which the device places in its memory) does not
    # compile rather than land in the UB here.
    ok = _compiles(tmp_path, "TBuf<TPosition::VECCALC> b; (void)b; TBuf<> c; (void)c;")
    assert ok.returncode == 0, ok.stderr[-2000:]
    for pos in ("TSCM", "CO2", "C1", "C2", "SHM"):
        bad = _compiles(tmp_path, f"TBuf<TPosition::{pos}> b; (void)b;")
        assert bad.returncode != 0 and "the cube's A1 / B1 / A2 / B2 / CO1 only" in bad.stderr, pos
    # the kernel's own L1 and L0 (ascend310p; tests/emulator/test_emulator_l1.py, test_emulator_cube.py)
    cube = ("A1", "B1", "A2", "B2", "CO1")
    ok = _compiles(tmp_path, " ".join(f"TBuf<TPosition::{p}> b{p}; (void)b{p};" for p in cube))
    assert ok.returncode == 0, ok.stderr[-2000:]


@pytest.mark.skipif(CXX is None, reason="no C++ compiler (the package build needs one)")
def test_trans_data_takes_the_headers_types(tmp_path):
    # the 8.1 list's 8- and 16-bit types compile; bfloat16_t is not in the list (on the device the address-list form
    # issues nothing for it), and the 32-bit types are not modelled
    ok = _compiles(tmp_path, "uint64_t d[16] = {}, s[16] = {}; TransDataTo5HDParams p; "
                             "TransDataTo5HD<int8_t>(d, s, p); TransDataTo5HD<half>(d, s, p);")
    assert ok.returncode == 0, ok.stderr[-2000:]
    for t in ("bfloat16_t", "float", "int32_t"):
        bad = _compiles(tmp_path, f"uint64_t d[16] = {{}}, s[16] = {{}}; TransDataTo5HDParams p; "
                                  f"TransDataTo5HD<{t}>(d, s, p);")
        assert bad.returncode != 0 and "emulated TransDataTo5HD" in bad.stderr, t


@pytest.mark.skipif(CXX is None, reason="no C++ compiler (the package build needs one)")
def test_the_cube_instructions_take_v200s_types(tmp_path):
    # Mmad: (int32, int8, int8), (int32, uint8, int8), (int32, uint8, uint8) (v200's integer list has no (int32, int8,
    # uint8); its half forms are not modelled); LoadData: v200's CheckLoadData2DType list; L0C -> UB: int32 only
    decl = ("LocalTensor<int32_t> c; LocalTensor<int8_t> a; LocalTensor<uint8_t> u; LocalTensor<int32_t> w; "
            "MmadParams mp; LoadData2DParams lp; DataCopyParams dp; DataCopyEnhancedParams ep; ")
    ok = _compiles(tmp_path, decl + "Mmad(c, a, a, mp); Mmad(c, u, a, mp); Mmad(c, u, u, mp); LoadData(a, a, lp); "
                                    "DataCopy(c, c, dp, ep);")
    assert ok.returncode == 0, ok.stderr[-2000:]
    for body, word in [("Mmad(c, a, u, mp);", "emulated Mmad"), ("LoadData(w, w, lp);", "LoadData (2D) on v200"),
                       ("DataCopy(t, t, dp, ep);", "int32_t only")]:
        bad = _compiles(tmp_path, decl + body)
        assert bad.returncode != 0 and word in bad.stderr, body


def test_core_type_macros_are_used_only_as_the_device_allows():
    # ASCEND_IS_AIV / ASCEND_IS_AIC / ASCEND_IS_NOT_*: on the device `constexpr(g_coreType == ...)`, valid only as
    # `if ASCEND_IS_AIV {` (impl/utils/kernel_utils_macros.h); the CPU-debug headers and the emulator define an
    # expression, so no compile check sees another use. A lint over the kernels' sources.
    bad = []
    for path in sorted((ROOT / "op_kernel").glob("*.[ch]*")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("//")[0]
            for m in re.finditer(r"ASCEND_IS_[A-Z_]+", code):
                if not re.search(r"\bif\s+" + re.escape(m.group(0)) + r"\s*\{", code):
                    bad.append(f"{path.name}:{n}: {line.strip()}")
    assert bad == [], bad
