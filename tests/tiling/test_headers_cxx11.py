"""The tiling core's headers are included by the CANN op_host adapters, which the CANN templates compile as C++11:
each header must compile on its own with -std=c++11 (the implementations are C++17)."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORE = os.path.join(ROOT, "op_host", "tiling_core")
HEADERS = ["dtype_table.h", "plan_common.h", "soc_table.h", "constraints.h", "dynamic_quant_plan.h",
           "qlinear_matmul_plan.h", "tiling_fields.h", "dynamic_quant_tiling_fields.h",
           "qlinear_matmul_tiling_fields.h"]
CXX = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")


@pytest.mark.skipif(CXX is None, reason="no C++ compiler on PATH (the package build needs one; a wheel does not)")
@pytest.mark.parametrize("header", HEADERS)
def test_header_compiles_as_cxx11(header):
    path = os.path.join(CORE, header)
    assert os.path.exists(path), f"{header} is missing from op_host/tiling_core"
    r = subprocess.run([CXX, "-std=c++11", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-x", "c++",
                        "-I", CORE, path], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
