"""The launch contract between host and kernel, as the emulator checks it: a launch's tiling key must have a kernel
binary, i.e. be named by a TILING_KEY_IS branch of the kernel (CANN's build compiles one binary per such key, key 0
alone when there is none). Test kernels in python/csrc/emulate_host_contract_faults.cpp."""
from __future__ import annotations

import numpy as np
import pytest

import ascend_quant_ops_testing as _testing  # the fixture kernels' module (tests/emulator/conftest.py)
from ascend_quant_ops import _native, emulator, tiling
from ascend_quant_ops.errors import EmulatorError

SOCS = ("ascend910b", "ascend310p", "ascend910_95")


@pytest.mark.parametrize("soc", SOCS)
def test_a_key_the_kernel_does_not_name_has_no_binary(soc):
    with pytest.raises(EmulatorError) as e:
        _testing.host_contract_fault("tiling_key_without_branch", soc)
    assert "tiling key 1: no kernel binary" in str(e.value) and "compiles its key 0 alone" in str(e.value)
    with pytest.raises(EmulatorError) as e:
        _testing.host_contract_fault("tiling_key_not_declared", soc)
    assert "tiling key 2: no kernel binary" in str(e.value) and "name keys 0, 1" in str(e.value)
    assert sorted(_testing.host_contract_fault_names()) == ["tiling_key_not_declared", "tiling_key_without_branch"]


def test_declared_keys_dispatch_to_their_branch():
    assert _testing.host_contract_tiling_key_demo(True, 0) == 200
    assert _testing.host_contract_tiling_key_demo(True, 1) == 201
    assert _testing.host_contract_tiling_key_demo(False, 0) == 100  # no branch: key 0 is the kernel


@pytest.mark.parametrize("soc", SOCS)
def test_dynamic_quant_kernel_has_a_binary_per_mode(soc):
    declared, compiled = _native.emulator_tiling_keys(f"aqo_dynamic_quant/{soc}")
    assert declared == compiled == [0, 1, 2]
    # QLinearMatMul: the cube path (key 0) and the vector decode path (key 1), a binary each; on ascend310p also the
    # cube decode path (key 2) and the cube GEMM path (key 3), whose branches are compiled for that SoC only.
    keys = [0, 1, 2, 3] if soc == "ascend310p" else [0, 1]
    assert _native.emulator_tiling_keys(f"aqo_qlinear_matmul/{soc}") == (keys, keys)


def test_stream_mode_runs_its_own_binary():
    # ascend910_95 has no tail limit: a row too long for UB is streamed (multi-pass, tiling key 1).
    x = (np.arange(2 * 200_000, dtype=np.float32).reshape(2, 200_000) % 251 - 125).astype(np.float16)
    p = tiling.plan_dynamic_quant(x.shape, "float16", soc="ascend910_95")
    assert p.explanation["mode"] == "multi_pass" and p.tiling["tiling_key"] == 1
    y, scale = emulator.dynamic_quant(x, soc="ascend910_95")
    m = np.abs(x.astype(np.float32)).max(axis=1)
    np.testing.assert_array_equal(scale, (m / np.float32(127)).astype(np.float32))


# ------------------------------------------------------------------ the system workspace
SOURCE = __import__("pathlib").Path(__file__).resolve().parents[2] / "python" / "csrc" / \
    "emulate_host_contract_faults.cpp"


def fault_line(name):
    for i, line in enumerate(SOURCE.read_text().splitlines(), start=1):
        if f"// FAULT: {name}" in line:
            return i
    raise AssertionError(name)


@pytest.mark.parametrize("soc", SOCS)
def test_the_system_workspace_is_the_launchers(soc):
    reserve = tiling.soc_table()[soc]["system_workspace_bytes"]
    assert reserve == {"ascend310p": 2 << 20}.get(soc, 16 << 20)
    # The kernel's own part starts after the reserve; the bytes the kernel did not write keep what the workspace
    # held at launch: not zeros (the device reuses workspace memory), the emulator's poison byte 0xA5.
    poison = int(np.frombuffer(b"\xa5" * 4, dtype=np.int32)[0])
    assert _testing.host_contract_workspace("user_part", soc, reserve) == [300 + i for i in range(8)] + [poison] * 8
    with pytest.raises(EmulatorError) as e:
        _testing.host_contract_workspace("raw_pointer", soc, reserve)
    assert e.value.kernel_line == fault_line("workspace_raw_pointer")
    assert f"inside its first {reserve} bytes: the system workspace" in str(e.value)
    with pytest.raises(EmulatorError) as e:
        _testing.host_contract_workspace("foreign_pointer", soc, reserve)
    assert e.value.kernel_line == fault_line("get_user_workspace_foreign_pointer")
    assert "not the workspace the launch passed" in str(e.value)


@pytest.mark.parametrize("soc", SOCS)
def test_plans_carry_the_system_workspace(soc):
    reserve = tiling.soc_table()[soc]["system_workspace_bytes"]
    assert tiling.plan_dynamic_quant((4, 64), "float16", soc=soc).tiling["system_workspace_bytes"] == reserve
    assert tiling.plan_qlinear_matmul((4, 64), (64, 32), soc=soc).tiling["system_workspace_bytes"] == reserve


def test_qlinear_matmul_workers_write_after_the_reserve_on_310p():
    # The 310p kernel used the raw workspace pointer (its data landed in the system workspace); with the reserve
    # modelled that run would fault. It runs, and equals the golden.
    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, (40, 70), dtype=np.uint8)
    b = rng.integers(-128, 128, (70, 50), dtype=np.int8)
    args = (a, np.float32(0.02), np.uint8(131), b, np.float32(0.01), np.int8(-3), np.float32(0.05), np.uint8(120))
    from ascend_quant_ops.golden.qlinear_matmul import qlinear_matmul as golden
    np.testing.assert_array_equal(emulator.qlinear_matmul(*args, soc="ascend310p"), golden(*args))
