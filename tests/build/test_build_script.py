"""build.sh itself: its modes, what it runs, and what it says when CANN is absent. The native build's cmake is a
stub that records its arguments (CMAKE=...), so these tests check build.sh's decisions without compiling."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from fake_toolkit import clean_env, make_fake_repo, make_fake_toolkit, read_log

REPO = Path(__file__).resolve().parents[2]
BUILD_SH = REPO / "build.sh"


@pytest.fixture
def stub_cmake(tmp_path) -> tuple[Path, Path]:
    log = tmp_path / "cmake.log"
    stub = tmp_path / "bin" / "cmake"
    stub.parent.mkdir()
    stub.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\n')
    stub.chmod(stub.stat().st_mode | stat.S_IXUSR)
    return stub, log


def run(args, env, cwd=None, build_sh=BUILD_SH):
    return subprocess.run(["bash", str(build_sh), *args], env=env, cwd=cwd, capture_output=True, text=True,
                          check=False, timeout=120)


def project_copy(root: Path) -> Path:
    """This project's build tooling over the stand-in sources of fake_toolkit.make_fake_repo: build.sh packages
    the tree it lives in, and the real op_host / op_kernel sources are not what these tests are about."""
    make_fake_repo(root)
    shutil.copy2(BUILD_SH, root / "build.sh")
    shutil.copytree(REPO / "cmake" / "cann", root / "cmake" / "cann")
    (root / "scripts").mkdir()
    for name in ("cann_project.py", "check_device_code.py"):
        shutil.copy2(REPO / "scripts" / name, root / "scripts" / name)
    return root / "build.sh"


def test_help_documents_every_mode_and_the_real_header_command():
    proc = run(["--help"], clean_env())
    assert proc.returncode == 0
    text = proc.stdout
    for needle in ("--cann", "package", "check", "render", "custom_opp_<os>_<arch>.run", "ascend910b",
                   "ascend310p", "ascend910_95", "msopgen gen", "ASCEND_HOME_PATH", "ASCEND_CANN_PACKAGE_PATH",
                   "ASCEND_TOOLKIT=~/.cache/cann-headers/Ascend/ascend-toolkit/8.1.RC1 ./build.sh check",
                   "ascend910_95/signatures", "python -m pip install ."):
        assert needle in text, needle


def test_default_mode_without_cann_builds_native_and_names_what_it_skipped(tmp_path, stub_cmake):
    stub, log = stub_cmake
    env = clean_env(CMAKE=str(stub), AQO_BUILD_DIR=str(tmp_path / "b"), AQO_DIST_DIR=str(tmp_path / "d"))
    proc = run([], env)
    assert proc.returncode == 0, proc.stderr
    calls = log.read_text().splitlines()
    assert calls[0].startswith(f"-S {REPO} -B {tmp_path / 'b' / 'native'}") and "-DCMAKE_BUILD_TYPE=Release" in calls[0]
    assert calls[1].startswith(f"--build {tmp_path / 'b' / 'native'}")
    out = proc.stdout
    assert "skipped: the CANN operator package" in out
    assert "ASCEND_HOME_PATH and ASCEND_CANN_PACKAGE_PATH are unset" in out
    assert "./build.sh --cann" in out
    assert not (tmp_path / "d").exists()


def test_cann_mode_without_cann_fails_clearly_before_building(tmp_path, stub_cmake):
    stub, log = stub_cmake
    for mode in ("--cann", "package"):
        proc = run([mode], clean_env(CMAKE=str(stub), AQO_BUILD_DIR=str(tmp_path / "b")))
        assert proc.returncode != 0
        assert "needs a CANN toolkit" in proc.stderr and "set_env.sh" in proc.stderr
    assert not log.exists(), "the native build ran although the package cannot be built"


def test_cann_mode_with_a_toolkit_path_that_does_not_exist(tmp_path, stub_cmake):
    stub, log = stub_cmake
    proc = run(["--cann"], clean_env(CMAKE=str(stub), ASCEND_HOME_PATH=str(tmp_path / "nowhere")))
    assert proc.returncode != 0
    assert f"ASCEND_HOME_PATH={tmp_path / 'nowhere'} is not a directory" in proc.stderr
    assert not log.exists()


def test_cann_mode_with_a_toolkit_builds_the_package(tmp_path, stub_cmake):
    stub, _ = stub_cmake
    toolkit = make_fake_toolkit(tmp_path / "cann")
    tools = tmp_path / "tools.log"
    env = clean_env(CMAKE=str(stub), ASCEND_CANN_PACKAGE_PATH=str(toolkit), FAKE_CANN_LOG=str(tools),
                    AQO_BUILD_DIR=str(tmp_path / "b"), AQO_DIST_DIR=str(tmp_path / "d"))
    proc = run(["--cann", "--compute-units", "ascend910b,ascend310p"], env, build_sh=project_copy(tmp_path / "p"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "d" / "custom_opp_fakeos_x86_64.run").is_file()
    calls = read_log(tools)
    assert [c["tool"] for c in calls] == ["msopgen", "msopgen", "msopgen", "build.sh"]
    assert calls[0]["argv"][4] == "ai_core-ascend910b,ai_core-ascend310p"
    assert calls[3]["cwd"] == str(tmp_path / "b" / "cann" / "project")


def test_default_mode_with_a_toolkit_also_builds_the_package(tmp_path, stub_cmake):
    stub, _ = stub_cmake
    toolkit = make_fake_toolkit(tmp_path / "cann")
    env = clean_env(CMAKE=str(stub), ASCEND_HOME_PATH=str(toolkit), FAKE_CANN_LOG=str(tmp_path / "tools.log"),
                    AQO_BUILD_DIR=str(tmp_path / "b"), AQO_DIST_DIR=str(tmp_path / "d"))
    proc = run([], env, build_sh=project_copy(tmp_path / "p"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "building the operator package" in proc.stdout
    assert (tmp_path / "d" / "custom_opp_fakeos_x86_64.run").is_file()


def test_package_failure_fails_the_build(tmp_path, stub_cmake):
    stub, _ = stub_cmake
    toolkit = make_fake_toolkit(tmp_path / "cann", with_op_build=False)
    env = clean_env(CMAKE=str(stub), ASCEND_HOME_PATH=str(toolkit), FAKE_CANN_LOG=str(tmp_path / "tools.log"),
                    AQO_BUILD_DIR=str(tmp_path / "b"), AQO_DIST_DIR=str(tmp_path / "d"))
    proc = run([], env, build_sh=project_copy(tmp_path / "p"))
    assert proc.returncode != 0
    assert "missing op_build" in proc.stderr


def test_render_mode_needs_no_toolkit(tmp_path):
    proc = run(["render", str(tmp_path / "r")], clean_env(AQO_BUILD_DIR=str(tmp_path / "b")))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == \
        ["CMakePresets.overlay.json", "aqo_ops.json", "aqo_tiling_core.cmake"]


def test_check_mode_without_headers_exits_2_and_says_what_to_set():
    proc = run(["check"], clean_env())
    assert proc.returncode == 2
    assert "ASCEND_HOME_PATH" in proc.stderr and "ASCEND_TOOLKIT" in proc.stderr


def test_unknown_argument_is_a_usage_error():
    proc = run(["--frobnicate"], clean_env())
    assert proc.returncode == 2
    assert "unknown argument '--frobnicate'" in proc.stderr


def test_build_sh_is_executable():
    assert os.access(BUILD_SH, os.X_OK)


def test_cann_mode_with_an_incomplete_toolkit_fails_before_building(tmp_path, stub_cmake):
    stub, log = stub_cmake
    toolkit = make_fake_toolkit(tmp_path / "cann", with_op_build=False)
    proc = run(["--cann"], clean_env(CMAKE=str(stub), ASCEND_HOME_PATH=str(toolkit),
                                     AQO_BUILD_DIR=str(tmp_path / "b")))
    assert proc.returncode != 0
    assert "missing op_build" in proc.stderr and "from ASCEND_HOME_PATH" in proc.stderr
    assert not log.exists(), "the native build ran although the toolkit cannot build the package"
