"""Package mode against a fake CANN toolkit (tests/build/fake_toolkit.py): the toolkit's own tools are invoked with
the right arguments and compute units, the generated project gets our sources and the tiling core, the presets
carry our settings, and every missing piece gives a clear error."""
from __future__ import annotations

import json
import subprocess
import sys

import cann_project as cp
import pytest
from fake_toolkit import clean_env, make_fake_repo, make_fake_toolkit, read_log

UNITS = "ai_core-ascend910b,ai_core-ascend310p,ai_core-ascend910_95"


@pytest.fixture
def fake(tmp_path, monkeypatch):
    toolkit = make_fake_toolkit(tmp_path / "cann")
    repo = make_fake_repo(tmp_path / "repo")
    log = tmp_path / "tools.log"
    monkeypatch.setenv("FAKE_CANN_LOG", str(log))
    return {"toolkit": toolkit, "repo": repo, "log": log, "out": tmp_path / "out", "dist": tmp_path / "dist"}


def run_package(fake, native, units=None):
    return cp.package(fake["toolkit"], native, fake["out"], fake["dist"], units, repo=fake["repo"])


def test_package_runs_msopgen_per_operator_then_the_project_build(fake, native):
    run = run_package(fake, native)
    assert run == fake["dist"] / "custom_opp_fakeos_x86_64.run" and run.is_file()
    calls = read_log(fake["log"])
    assert [c["tool"] for c in calls] == ["msopgen", "msopgen", "msopgen", "build.sh"]
    project = fake["out"] / "project"
    json_path = fake["out"] / "aqo_ops.json"
    for call, (op, mode) in zip(calls, [("AqoDynamicQuant", "0"), ("AqoQLinearMatMul", "1"), ("AqoQuantMatMul", "1")]):
        assert call["argv"] == ["gen", "-i", str(json_path), "-c", UNITS, "-lan", "cpp", "-out", str(project),
                                "-op", op, "-m", mode]
        # msopgen copies its template from $ASCEND_HOME_PATH and imports op_gen from the toolkit's site-packages.
        assert call["ASCEND_HOME_PATH"] == str(fake["toolkit"].resolve())
        assert call["PYTHONPATH"].split(":")[0] == str(fake["toolkit"].resolve() / "python" / "site-packages")
    assert calls[3]["cwd"] == str(project)
    # The msopgen input is the rendered description, reduced to the types this msopgen knows.
    rendered = json.loads(json_path.read_text())
    assert [r["op"] for r in rendered] == ["AqoDynamicQuant", "AqoQLinearMatMul", "AqoQuantMatMul"]
    assert all(set(t["type"]) <= {"float", "float16", "bfloat16", "int8", "uint8", "int32"}
               for r in rendered for t in r["input_desc"] + r["output_desc"])


def test_generated_project_holds_our_sources_not_the_skeleton(fake, native):
    run_package(fake, native)
    project = fake["out"] / "project"
    repo = fake["repo"]
    ours = ["op_host/aqo_dynamic_quant.cpp", "op_host/aqo_dynamic_quant_tiling.h", "op_host/aqo_qlinear_matmul.cpp",
            "op_host/aqo_qlinear_matmul_tiling.h", "op_host/tiling_core/soc_table.cpp",
            "op_host/tiling_core/soc_table.h", "op_host/tiling_core/dynamic_quant_plan.cpp",
            "op_kernel/aqo_dynamic_quant.cpp", "op_kernel/aqo_qlinear_matmul.cpp"]
    for rel in ours:
        assert (project / rel).read_bytes() == (repo / rel).read_bytes(), rel
    # msopgen's skeletons (named by its own snake case: aqo_q_linear_mat_mul) are gone; the emulator stays out.
    host = sorted(p.name for p in (project / "op_host").iterdir() if p.is_file())
    kernel = sorted(p.name for p in (project / "op_kernel").iterdir())
    assert host == ["CMakeLists.txt", "aqo_dynamic_quant.cpp", "aqo_dynamic_quant_tiling.h",
                    "aqo_qlinear_matmul.cpp", "aqo_qlinear_matmul_tiling.h", "aqo_quant_matmul.cpp",
                    "aqo_quant_matmul_tiling.h"]
    assert kernel == ["CMakeLists.txt", "aqo_dynamic_quant.cpp", "aqo_qlinear_matmul.cpp", "aqo_quant_matmul.cpp"]
    assert not (project / "op_host" / "tiling_core" / "CMakeLists.txt").exists()


def test_generated_project_builds_the_tiling_core(fake, native):
    run_package(fake, native)
    project = fake["out"] / "project"
    lines = (project / "op_host" / "CMakeLists.txt").read_text().splitlines()
    assert lines[0] == cp.INCLUDE_LINE and lines[1] == "aqo_tiling_core_prepare()"
    assert lines.index("aqo_tiling_core_prepare()") < next(i for i, ln in enumerate(lines)
                                                           if ln.startswith("aux_source_directory"))
    assert lines[-1] == "aqo_tiling_core_link()"
    cmake = (project / "cmake" / "aqo_tiling_core.cmake").read_text()
    assert "op_host/tiling_core/dynamic_quant_plan.cpp" in cmake and "op_host/tiling_core/soc_table.cpp" in cmake


def test_generated_presets_carry_units_toolkit_and_vendor(fake, native):
    run_package(fake, native)
    presets = json.loads((fake["out"] / "project" / "CMakePresets.json").read_text())
    (preset,) = presets["configurePresets"]
    cache = preset["cacheVariables"]
    assert cache["ASCEND_COMPUTE_UNIT"]["value"] == "ascend910b;ascend310p;ascend910_95"
    assert cache["ASCEND_CANN_PACKAGE_PATH"]["value"] == str(fake["toolkit"].resolve())
    assert cache["vendor_name"]["value"] == "aqo"
    assert cache["ENABLE_CROSS_COMPILE"]["value"] == "False"  # the toolkit's own keys stay
    assert preset["binaryDir"] == "${sourceDir}/build_out"


def test_compute_units_can_be_narrowed(fake, native):
    run_package(fake, native, ["ascend910b", "ascend950"])
    calls = read_log(fake["log"])
    assert calls[0]["argv"][4] == "ai_core-ascend910b,ai_core-ascend910_95"
    presets = json.loads((fake["out"] / "project" / "CMakePresets.json").read_text())
    assert presets["configurePresets"][0]["cacheVariables"]["ASCEND_COMPUTE_UNIT"]["value"] == \
        "ascend910b;ascend910_95"


def test_rebuild_replaces_the_previous_project(fake, native):
    run_package(fake, native)
    (fake["out"] / "project" / "stale.txt").write_text("old")
    run_package(fake, native)
    assert not (fake["out"] / "project" / "stale.txt").exists()


def test_toolkit_without_op_build_is_refused_before_anything_runs(tmp_path, native, monkeypatch):
    toolkit = make_fake_toolkit(tmp_path / "cann", with_op_build=False)
    monkeypatch.setenv("FAKE_CANN_LOG", str(tmp_path / "log"))
    with pytest.raises(cp.CannBuildError, match=r"missing op_build .*toolkit/tools/opbuild/op_build"):
        cp.package(toolkit, native, tmp_path / "out", tmp_path / "dist", repo=make_fake_repo(tmp_path / "repo"))
    assert read_log(tmp_path / "log") == []


def test_toolkit_without_a_compute_unit_says_how_to_build_without_it(tmp_path, native, monkeypatch):
    toolkit = make_fake_toolkit(tmp_path / "cann", platform_configs=("Ascend910B1", "Ascend310P3"))
    monkeypatch.setenv("FAKE_CANN_LOG", str(tmp_path / "log"))
    with pytest.raises(cp.CannBuildError, match=r"no platform config for compute unit ascend910_95.*--compute-units"):
        cp.package(toolkit, native, tmp_path / "out", tmp_path / "dist", repo=make_fake_repo(tmp_path / "repo"))


def test_toolkit_without_kernel_headers_of_a_unit_builds_the_others(tmp_path, native, monkeypatch, capsys):
    # CANN 8.1.RC1: a platform config for ascend910_95 but no dav_3510 AscendC implementation to compile its
    # kernels against. The default build leaves that unit out and says why.
    toolkit = make_fake_toolkit(tmp_path / "cann", kernel_impls=("dav_c220", "dav_m200", "dav_m310"))
    monkeypatch.setenv("FAKE_CANN_LOG", str(tmp_path / "log"))
    repo = make_fake_repo(tmp_path / "repo")
    run = cp.package(toolkit, native, tmp_path / "out", tmp_path / "dist", repo=repo)
    assert run.is_file()
    out = capsys.readouterr().out
    assert "skipped compute unit ascend910_95" in out and "dav_3510" in out and "8.1.RC1" in out
    calls = read_log(tmp_path / "log")
    assert calls[0]["argv"][4] == "ai_core-ascend910b,ai_core-ascend310p"
    presets = json.loads((tmp_path / "out" / "project" / "CMakePresets.json").read_text())
    assert presets["configurePresets"][0]["cacheVariables"]["ASCEND_COMPUTE_UNIT"]["value"] == \
        "ascend910b;ascend310p"
    # Asked for by name, the unit is an error, not a silent skip.
    with pytest.raises(cp.CannBuildError, match=r"ascend910_95: .*no AscendC kernel headers for it \(dav_3510"):
        cp.package(toolkit, native, tmp_path / "out2", tmp_path / "dist2", ["ascend910b", "ascend910_95"], repo=repo)


def test_kernel_headers_of_the_description_are_what_the_detection_looks_for(tmp_path, repo):
    desc = cp.load_description()
    assert set(desc["kernel_headers"]) == set(desc["compute_units"])
    toolkit = make_fake_toolkit(tmp_path / "cann", kernel_impls=("dav_c220",))
    assert cp.kernel_impl_dirs(toolkit) == {"dav_c220"}
    ok, skipped = cp.buildable_units(toolkit, desc, desc["compute_units"])
    assert ok == ["ascend910b"] and len(skipped) == 2


def test_missing_sources_are_named(fake, native):
    (fake["repo"] / "op_host" / "aqo_qlinear_matmul.cpp").unlink()
    with pytest.raises(cp.CannBuildError, match="op_host/aqo_qlinear_matmul.cpp"):
        run_package(fake, native)


@pytest.mark.parametrize("variable, what", [("FAKE_MSOPGEN_FAIL", "msopgen gen failed"),
                                            ("FAKE_BUILD_FAIL", "project's build.sh failed")])
def test_tool_failures_are_reported(fake, native, monkeypatch, variable, what):
    monkeypatch.setenv(variable, "1")
    with pytest.raises(cp.CannBuildError, match=what):
        run_package(fake, native)
    assert not fake["dist"].exists() or not list(fake["dist"].iterdir())


def test_unknown_op_host_template_is_refused(fake, native, monkeypatch):
    project = fake["out"] / "project"
    project.mkdir(parents=True)
    (project / "op_host").mkdir()
    (project / "op_host" / "CMakeLists.txt").write_text("add_library(x SHARED a.cpp)\n")
    with pytest.raises(cp.CannBuildError, match="aux_source_directory"):
        cp.inject_tiling_core(project, ["soc_table.cpp"])


def test_command_line_without_toolkit_fails_clearly(tmp_path):
    proc = subprocess.run([sys.executable, str(cp.REPO / "scripts" / "cann_project.py"), "package",
                           "--out-dir", str(tmp_path / "o"), "--dist-dir", str(tmp_path / "d")],
                          env=clean_env(), capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert "no CANN toolkit" in proc.stderr and "ASCEND_HOME_PATH" in proc.stderr
