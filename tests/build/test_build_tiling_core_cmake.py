"""The tiling-core CMake glue (cmake/cann/aqo_tiling_core.cmake.j2, injected by cann_project.inject_tiling_core)
built for real with cmake and g++ in a miniature project of the toolkit template's shape: an opbuild() that
compiles `ops_srcs` as C++11 into one shared library at configure time, and op_host libraries built from
`ops_srcs`. Every link uses -Wl,--no-undefined, so a tiling core that is missing from any of them fails the
build; a C++17-only tiling core proves it is not compiled as C++11."""
from __future__ import annotations

import ctypes
import os
import subprocess
import textwrap
from pathlib import Path

import cann_project as cp

ROOT_CMAKE = """\
cmake_minimum_required(VERSION 3.16)
project(opp CXX)
set(CMAKE_COMPILE ${CMAKE_CXX_COMPILER})
set(ASCEND_AUTOGEN_PATH ${CMAKE_BINARY_DIR}/autogen)
file(MAKE_DIRECTORY ${ASCEND_AUTOGEN_PATH})
# The shape of the toolkit's opbuild(): OPS_SRC compiled as C++11 into one library at configure time.
function(opbuild)
  cmake_parse_arguments(OPBUILD "" "OUT_DIR" "OPS_SRC" ${ARGN})
  execute_process(COMMAND ${CMAKE_COMPILE} -fPIC -shared -std=c++11 ${OPBUILD_OPS_SRC} -D_GLIBCXX_USE_CXX11_ABI=0
                          -Wl,--no-undefined -o ${OPBUILD_OUT_DIR}/libascend_all_ops.so
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "opbuild failed: ${err}")
  endif()
endfunction()
add_subdirectory(op_host)
"""

OP_HOST_CMAKE = """\
aux_source_directory(${CMAKE_CURRENT_SOURCE_DIR} ops_srcs)
opbuild(OPS_SRC ${ops_srcs} OUT_DIR ${ASCEND_AUTOGEN_PATH})
foreach(lib cust_op_proto cust_optiling)
  add_library(${lib} SHARED ${ops_srcs})
  target_compile_options(${lib} PRIVATE -std=c++11)
  target_compile_definitions(${lib} PRIVATE _GLIBCXX_USE_CXX11_ABI=0)
  target_link_options(${lib} PRIVATE -Wl,--no-undefined)
endforeach()
"""

SOURCES = {
    "op_host/aqo_probe.cpp": """\
        // C++11, like every op_host source in the template's build.
        #include "tiling_core/core.h"
        extern "C" int aqo_probe() { return aqo::CoreValue() + aqo::OtherValue(); }
        """,
    "op_host/tiling_core/core.h": """\
        #pragma once
        namespace aqo { int CoreValue(); int OtherValue(); }
        """,
    "op_host/tiling_core/core.cpp": """\
        #include "core.h"
        #include <optional>
        namespace aqo {
        int CoreValue() { std::optional<int> v = 40; if constexpr (sizeof(int) >= 4) { return *v; } return 0; }
        }
        """,
    "op_host/tiling_core/other.cpp": """\
        #include "core.h"
        namespace aqo { inline constexpr int kTwo = 2; int OtherValue() { return kTwo; } }
        """,
}


def make_project(root: Path) -> Path:
    (root / "op_host" / "tiling_core").mkdir(parents=True)
    (root / "CMakeLists.txt").write_text(ROOT_CMAKE)
    (root / "op_host" / "CMakeLists.txt").write_text(OP_HOST_CMAKE)
    for rel, text in SOURCES.items():
        (root / rel).write_text(textwrap.dedent(text))
    return root


def cmake(*args, cwd=None):
    return subprocess.run(["cmake", *args], cwd=cwd, capture_output=True, text=True, check=False,
                          env=dict(os.environ, MAKEFLAGS="-j2"))


def test_injected_tiling_core_links_into_opbuild_and_the_op_host_libraries(tmp_path):
    project = make_project(tmp_path / "project")
    cp.inject_tiling_core(project, ["core.cpp", "other.cpp"])
    build = tmp_path / "build"
    conf = cmake("-S", str(project), "-B", str(build), "-G", "Unix Makefiles")
    assert conf.returncode == 0, conf.stdout + conf.stderr
    assert "tiling core linked into cust_op_proto;cust_optiling" in conf.stdout
    built = cmake("--build", str(build))
    assert built.returncode == 0, built.stdout + built.stderr
    for lib in (build / "autogen" / "libascend_all_ops.so", build / "op_host" / "libcust_op_proto.so",
                build / "op_host" / "libcust_optiling.so"):
        handle = ctypes.CDLL(str(lib), mode=os.RTLD_NOW | os.RTLD_LOCAL)
        assert handle.aqo_probe() == 42, lib
    # The op_host libraries link the target-compiler static library, not the host objects made for opbuild.
    for lib in ("cust_op_proto", "cust_optiling"):
        link = (build / "op_host" / "CMakeFiles" / f"{lib}.dir" / "link.txt").read_text()
        assert "libaqo_tiling_core.a" in link and "aqo_tiling_core_opbuild" not in link


def test_without_the_injection_the_miniature_build_fails(tmp_path):
    """The control: the same project without the tiling core glue does not build, so the test above can fail."""
    project = make_project(tmp_path / "project")
    conf = cmake("-S", str(project), "-B", str(tmp_path / "build"), "-G", "Unix Makefiles")
    assert conf.returncode != 0
    assert "opbuild failed" in conf.stdout + conf.stderr
