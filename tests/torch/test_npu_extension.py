"""The NPU extension's source type-checks against the torch 2.13 and torch_npu 2.13 wheel headers, the check can
fail, and the extension's aclnn argument order equals the operator description (cmake/cann/ops.json).

The type-check downloads the torch_npu wheel from PyPI the first time (CI has network access) into a cache outside
sys.path; it never installs it."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ascend_quant_ops.npu_ext import build

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_npu_extension.py"


def run_check(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=540)


@pytest.mark.slow  # about a minute: a full type-check and the JIT build against the torch_npu wheel
def test_extension_type_checks_and_jit_builds_against_torch_npu():
    # Type-check, then the JIT build npu.load_extension() runs (compile + link against the wheel's
    # libtorch_npu.so); without CANN the built library cannot load, and the loader's reason is reported.
    r = run_check("--jit")
    assert r.returncode == 0, r.stdout + r.stderr[-5000:]
    assert "OK: aqo_npu_ops.cpp type-checks" in r.stdout
    assert "OK: JIT build compiled and linked" in r.stdout
    if "loading it needs CANN" in r.stdout:
        assert "cannot open shared object file" in r.stdout  # a CANN runtime library, named


def test_type_check_reports_failure(tmp_path):
    # A header the wheel does not have: g++ stops at once, so this costs no second full parse. (Semantic errors
    # such as an aclnn argument ConvertType cannot take fail the same way, only after a full parse.)
    src = build.SOURCE.read_text()
    broken = src.replace('#include "op_plugin/utils/op_api_common.h"',
                         '#include "op_plugin/utils/op_api_common_v0.h"')
    assert broken != src
    bad = tmp_path / "broken.cpp"
    bad.write_text(broken)
    r = run_check("--source", str(bad))
    assert r.returncode == 1 and "FAILED" in r.stdout
    assert "op_api_common_v0.h" in r.stderr


def test_kernel_signatures_match_the_python_schemas(tmp_path):
    # Built against CPU torch with the stub op_api_common.h and loaded after torch_ops: the dispatcher refuses a
    # PrivateUse1 kernel whose C++ signature differs from the schema (checked by hand: `double dst_type` fails).
    r = run_check("--schema-only", "--cache", str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr[-5000:]
    assert "register against the torch_ops schemas" in r.stdout


def test_aclnn_argument_order_matches_operator_description():
    ops = {op["op_type"]: op for op in json.loads((ROOT / "cmake" / "cann" / "ops.json").read_text())["ops"]}
    src = build.SOURCE.read_text()
    found = re.findall(r"// aclnn order (\w+): ([^\n]*)\n\s*EXEC_NPU_CMD\(aclnn(\w+), ([^;]*)\);", src)
    assert {f[0] for f in found} == set(ops) == {f[2] for f in found}
    for op_type, order, called, args in found:
        assert op_type == called
        op = ops[op_type]
        inputs, attrs, outputs = (part.split() for part in order.split("|"))
        assert inputs == [t["name"] for t in op["inputs"]]
        assert attrs == [a["name"] for a in op["attrs"]]
        assert outputs == [t["name"] for t in op["outputs"]]
        assert len([a for a in args.split(",")[0:] if a.strip()]) == len(inputs) + len(attrs) + len(outputs)


def test_current_version_macro():
    assert build.current_version_macro("2.13.0+cpu") == "V2R13"
    assert build.current_version_macro("2.1.0") == "V2R1"


def test_a_lock_left_by_an_interrupted_build_is_removed_and_a_recent_one_kept(tmp_path):
    # torch's cpp_extension waits without end for its build directory's lock file: one left by a killed build
    # would hang every later build
    lock = tmp_path / "lock"
    lock.touch()
    t = lock.stat().st_mtime
    assert not build.clear_stale_lock(tmp_path, now=t + 60) and lock.exists()  # a build may be running
    assert build.clear_stale_lock(tmp_path, now=t + build.STALE_LOCK_SECONDS + 1) and not lock.exists()
    assert not build.clear_stale_lock(tmp_path)  # no lock
