"""What the wheel ships: the compiled core `_native` without the verification fixtures (the emulator's fault and
demo kernels live in ascend_quant_ops_testing, which the tests use and no install rule installs)."""
import pathlib
import re

import ascend_quant_ops
from ascend_quant_ops import _native

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURE_FUNCTIONS = ("emulator_fault_demo", "emulator_fault_names", "emulator_demo_cast", "emulator_misuse_demo",
                     "qmm_matmul_fault", "qmm_matmul_demo")


def test_native_has_no_test_kernels():
    groups = set(_native.binding_groups())
    assert not groups & {"emulator_test_kernels", "qmm_matmul_tests"}, groups
    for name in FIXTURE_FUNCTIONS:
        assert not hasattr(_native, name), name
    # what users need is there
    assert {"emulate_dynamic_quant", "emulate_qlinear_matmul", "emulator", "tiling"} <= groups


def test_only_native_is_installed_and_the_wheel_holds_the_package_directory_only():
    cmake = (REPO / "CMakeLists.txt").read_text()
    installed = re.findall(r"install\(TARGETS\s+(\w+)", cmake)
    assert installed == ["_native"], installed
    assert "option(AQO_BUILD_TESTING_MODULE" in cmake and "ascend_quant_ops_testing" in cmake
    pyproject = (REPO / "pyproject.toml").read_text()
    assert 'wheel.packages = ["python/ascend_quant_ops"]' in pyproject
    assert "AQO_BUILD_TESTING_MODULE" not in pyproject  # off (its default) for pip builds


def test_the_testing_module_lives_outside_the_package():
    import importlib

    try:
        testing = importlib.import_module("ascend_quant_ops_testing")
    except ImportError:
        return
    package_dir = pathlib.Path(ascend_quant_ops.__file__).resolve().parent
    assert package_dir not in pathlib.Path(testing.__file__).resolve().parents
    for name in FIXTURE_FUNCTIONS:
        assert hasattr(testing, name), name
