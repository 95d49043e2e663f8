"""The header check (scripts/check_device_code.py, `build.sh check`) against a fake header tree whose headers make
g++ accept or reject tiny sources depending on the SoC macros and the op_host pass, the way the real AscendC and
register headers do. The real-header command is documented in build.sh --help; CI has no CANN headers."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import check_device_code as chk
import pytest
from fake_toolkit import clean_env

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "check_device_code.py"

KERNEL_OPERATOR_H = """\
#pragma once
#include <cstdint>
#define __aicore__
#define __global__
#define __gm__
#define GM_ADDR uint8_t*
namespace AscendC {
inline void Supported() {}
// The real headers mark SoC-unsupported APIs like this (e.g. DataCopyPad on __CCE_AICORE__ == 200).
#if __CCE_AICORE__ == 200
[[deprecated("PadCopy is an unsupported API on current device")]]
#endif
inline void PadCopy() {}
#if defined(__DAV_C220_VEC__)
inline void VectorOnly() {}
#endif
// Like an impl header instantiated with a type its intrinsics do not take (the 950's 8-bit floats on dav_c220),
// and an API template whose own helper does not take it.
inline void raw_intrinsic(float*) {}
inline void raw_intrinsic(short*) {}
template <typename T> inline void Convert(T* p) { raw_intrinsic(p); }
inline void Helper(float*) {}
inline void Helper(short*) {}
template <typename T> inline void Api(T* p) { Helper(p); }
}
"""

HOST_HEADER = """\
#pragma once
// Like register/op_def_registry.h: what OP_ADD registers depends on the pass.
#if defined(OP_TILING_LIB)
inline int TilingOnly() { return 1; }
#endif
#if defined(OP_PROTO_LIB)
inline int ProtoOnly() { return 2; }
#endif
inline int Everywhere() { return 3; }
"""


@pytest.fixture
def toolkit(tmp_path) -> Path:
    root = tmp_path / "cann"
    arch = root / "aarch64-linux"
    a = arch / "ascendc" / "include"
    for d in (a / "basic_api", a / "highlevel_api" / "lib", a / "highlevel_api" / "kernel_tiling",
              a / "highlevel_api" / "tiling" / "platform", root / "tools" / "tikicpulib" / "lib" / "include",
              arch / "include" / "register", arch / "include" / "exe_graph"):
        d.mkdir(parents=True)
    (a / "basic_api" / "kernel_operator.h").write_text(KERNEL_OPERATOR_H)
    (a / "highlevel_api" / "kernel_tiling" / "kernel_tiling.h").write_text("#pragma once\n")
    (arch / "include" / "register" / "op_def_registry.h").write_text(HOST_HEADER)
    return root


def source(tmp_path: Path, rel: str, text: str) -> Path:
    path = tmp_path / "src" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def check(*args, env=None):
    proc = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          check=False, env=env or clean_env(), timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def verdicts(stdout: str) -> dict[str, str]:
    out = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[0] == "check:" and parts[1] in ("PASS", "FAIL", "NOT-CHECKABLE"):
            out[parts[2]] = parts[1]
    return out


GOOD_KERNEL = """\
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void good(GM_ADDR x) { AscendC::Supported(); }
"""


def test_clean_kernel_passes_every_pass_including_910_95_signatures(tmp_path, toolkit):
    kernel = source(tmp_path, "op_kernel/good.cpp", GOOD_KERNEL)
    rc, out, err = check("--toolkit", toolkit, kernel)
    assert rc == 0, out + err
    assert verdicts(out) == {"ascend910b/cpu-debug": "PASS", "ascend910b/aiv": "PASS", "ascend310p/aicore": "PASS",
                             "ascend910_95/signatures": "PASS"}
    assert "4 passed, 0 failed, 0 not checkable (none)" in out


# ascend910_95's pass: its code paths (__DAV_C310__) against the 8.1 signatures, the 8-bit float types stood in for.
C310_KERNEL = """\
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void k(GM_ADDR x)
{{
#if defined(__DAV_C310__)
    {call}
#endif
}}
"""


@pytest.mark.parametrize("call, ok", [
    ("AscendC::Supported();", True),
    ("AscendC::NoSuchApi();", False),                       # an error in the 950-only code: the pass fails
    ("fp8_e4m3fn_t* p = nullptr; AscendC::Convert(p);", True),  # a missing intrinsic for a stand-in type
    ("int* p = nullptr; AscendC::Convert(p);", False),      # the same header error for another type is kept
    ("fp8_e4m3fn_t* p = nullptr; AscendC::Api(p);", False),  # an API template refusing a stand-in type is kept
])
def test_910_95_signatures_pass_checks_its_own_code_paths(tmp_path, toolkit, call, ok):
    kernel = source(tmp_path, "op_kernel/k.cpp", C310_KERNEL.format(call=call))
    rc, out, _ = check("--toolkit", toolkit, kernel)
    expected = {"ascend910b/cpu-debug": "PASS", "ascend910b/aiv": "PASS", "ascend310p/aicore": "PASS",
                "ascend910_95/signatures": "PASS" if ok else "FAIL"}
    assert verdicts(out) == expected, out
    assert rc == (0 if ok else 1)
    if "fp8" in call and ok:
        assert "error(s) in the toolkit's dav_c220 headers for the stand-in 8-bit float types ignored" in out


def test_api_unsupported_on_310p_fails_only_the_310p_pass(tmp_path, toolkit):
    kernel = source(tmp_path, "op_kernel/pad.cpp", """\
        #include "kernel_operator.h"
        extern "C" __global__ __aicore__ void pad(GM_ADDR x) { AscendC::PadCopy(); }
        """)
    rc, out, _ = check("--toolkit", toolkit, kernel)
    assert rc == 1
    assert verdicts(out) == {"ascend910b/cpu-debug": "PASS", "ascend910b/aiv": "PASS", "ascend310p/aicore": "FAIL",
                             "ascend910_95/signatures": "PASS"}
    assert "error(unsupported-on-SoC)" in out and "PadCopy is an unsupported API on current device" in out


def test_vector_core_macros_are_set_only_in_the_aiv_pass(tmp_path, toolkit):
    kernel = source(tmp_path, "op_kernel/vec.cpp", """\
        #include "kernel_operator.h"
        extern "C" __global__ __aicore__ void vec(GM_ADDR x) { AscendC::VectorOnly(); }
        """)
    rc, out, _ = check("--toolkit", toolkit, "--soc", "ascend910b", kernel)
    assert rc == 1
    assert verdicts(out) == {"ascend910b/cpu-debug": "FAIL", "ascend910b/aiv": "PASS"}
    assert "VectorOnly" in out


def test_unknown_api_fails_every_pass_with_the_compiler_error(tmp_path, toolkit):
    kernel = source(tmp_path, "op_kernel/bad.cpp", """\
        #include "kernel_operator.h"
        extern "C" __global__ __aicore__ void bad(GM_ADDR x) { AscendC::NoSuchApi(); }
        """)
    rc, out, _ = check("--toolkit", toolkit, "--soc", "ascend910b", "--soc", "ascend310p", kernel)
    assert rc == 1
    assert set(verdicts(out).values()) == {"FAIL"}
    assert "bad.cpp:2:" in out and "NoSuchApi" in out


TILING_H = """\
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(OtherTilingData)
TILING_DATA_FIELD_DEF(uint32_t, unrelated);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(OtherOp, OtherTilingData)
BEGIN_TILING_DATA_DEF(MyOpTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, dims);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(MyOp, MyOpTilingData)
}
"""


@pytest.mark.parametrize("field, ok", [("totalLength + t.dims[7]", True), ("unrelated", False)])
def test_get_tiling_data_is_bound_to_the_kernels_registered_class(tmp_path, toolkit, field, ok):
    source(tmp_path, "op_host/my_op_tiling.h", TILING_H)
    kernel = source(tmp_path, "op_kernel/my_op.cpp", f"""\
        #include "kernel_operator.h"
        extern "C" __global__ __aicore__ void my_op(GM_ADDR x, GM_ADDR tiling)
        {{
            GET_TILING_DATA(t, tiling);
            uint32_t v = t.{field};
            (void)v;
        }}
        """)
    rc, out, _ = check("--toolkit", toolkit, "--soc", "ascend310p", kernel)
    assert (rc == 0) == ok, out
    assert verdicts(out) == {"ascend310p/aicore": "PASS" if ok else "FAIL"}


def test_tiling_stub_picks_the_class_registered_for_the_kernel(tmp_path):
    header = source(tmp_path, "op_host/my_op_tiling.h", TILING_H)
    text, cls = chk.tiling_stub([header], Path("op_kernel/my_op.cpp"))
    assert cls == "MyOpTilingData"
    assert "uint32_t dims[8];" in text and "class OtherTilingData" in text
    _, cls = chk.tiling_stub([header], Path("op_kernel/unrelated.cpp"))
    assert cls == "OtherTilingData"  # no match: the first registered class, as the reference checker does


HOST_SOURCE = """\
#include "register/op_def_registry.h"
int Probe() {{ return Everywhere() + {call}; }}
"""


@pytest.mark.parametrize("call, expected", [
    ("0", {"host/opbuild": "PASS", "host/proto": "PASS", "host/tiling": "PASS"}),
    ("TilingOnly()", {"host/opbuild": "FAIL", "host/proto": "FAIL", "host/tiling": "PASS"}),
    ("ProtoOnly()", {"host/opbuild": "FAIL", "host/proto": "PASS", "host/tiling": "FAIL"}),
])
def test_host_sources_are_checked_in_the_three_passes_of_the_template(tmp_path, toolkit, call, expected):
    host = source(tmp_path, "op_host/op.cpp", HOST_SOURCE.format(call=call))
    rc, out, _ = check("--toolkit", toolkit, host)
    assert verdicts(out) == expected
    assert rc == (0 if set(expected.values()) == {"PASS"} else 1)


def test_host_passes_compile_as_cxx11(tmp_path, toolkit):
    host = source(tmp_path, "op_host/op.cpp", """\
        #include "register/op_def_registry.h"
        #include <optional>
        std::optional<int> Probe() { return Everywhere(); }
        """)
    rc, out, _ = check("--toolkit", toolkit, "--host-pass", "opbuild", host)
    assert rc == 1 and verdicts(out) == {"host/opbuild": "FAIL"}


def test_default_file_list_is_op_kernel_and_op_host(tmp_path, toolkit):
    source(tmp_path, "op_kernel/good.cpp", GOOD_KERNEL)
    source(tmp_path, "op_kernel/emulator/src/not_device_code.cpp", "#error the emulator is not checked\n")
    source(tmp_path, "op_host/op.cpp", HOST_SOURCE.format(call="0"))
    rc, out, _ = check("--toolkit", toolkit, "--repo", tmp_path / "src")
    assert rc == 0, out
    files = {line.split()[-1] for line in out.splitlines() if line.startswith("check: PASS")}
    assert files == {str(tmp_path / "src" / "op_kernel" / "good.cpp"), str(tmp_path / "src" / "op_host" / "op.cpp")}


def test_toolkit_from_environment_variables(tmp_path, toolkit):
    kernel = source(tmp_path, "op_kernel/good.cpp", GOOD_KERNEL)
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT"):
        rc, out, _ = check("--soc", "ascend310p", kernel, env=clean_env(**{var: str(toolkit)}))
        assert rc == 0 and f"from {var}" in out


def test_missing_headers_exit_2_naming_what_is_missing(tmp_path, toolkit):
    kernel = source(tmp_path, "op_kernel/good.cpp", GOOD_KERNEL)
    rc, _, err = check(kernel)
    assert rc == 2 and "ASCEND_HOME_PATH" in err
    rc, _, err = check("--toolkit", tmp_path / "empty", kernel)
    assert rc == 2 and "not a directory" in err
    (toolkit / "tools" / "tikicpulib" / "lib" / "include").rmdir()
    rc, _, err = check("--toolkit", toolkit, kernel)
    assert rc == 2 and "tikicpulib" in err


def test_build_sh_check_passes_its_arguments_on(tmp_path, toolkit):
    kernel = source(tmp_path, "op_kernel/good.cpp", GOOD_KERNEL)
    proc = subprocess.run(["bash", str(REPO / "build.sh"), "check", "--soc", "ascend310p", str(kernel)],
                          env=clean_env(ASCEND_TOOLKIT=str(toolkit)), capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert verdicts(proc.stdout) == {"ascend310p/aicore": "PASS"}


def test_parallel_check_reports_in_file_order_with_the_same_verdicts(tmp_path, toolkit):
    good = source(tmp_path, "op_kernel/good.cpp", GOOD_KERNEL)
    bad = source(tmp_path, "op_kernel/bad.cpp", """\
        #include "kernel_operator.h"
        extern "C" __global__ __aicore__ void bad(GM_ADDR x) { AscendC::PadCopy(); }
        """)
    host = source(tmp_path, "op_host/op.cpp", HOST_SOURCE.format(call="0"))
    serial = check("--toolkit", toolkit, "--soc", "ascend310p", good, bad, host)
    parallel = check("--toolkit", toolkit, "--soc", "ascend310p", "-j", "3", good, bad, host)
    assert serial[0] == parallel[0] == 1
    lines = [ln for ln in serial[1].splitlines() if ln.startswith("check: ")]
    assert lines == [ln for ln in parallel[1].splitlines() if ln.startswith("check: ")]
