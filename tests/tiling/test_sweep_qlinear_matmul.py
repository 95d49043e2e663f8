"""The tiling sweep (scripts/tiling_sweep.py) in CI for QLinearMatMul: random shapes (batch broadcasting, zero
dims, K mismatches, every dtype mix) per SoC and a grid; every output byte written by exactly one core, UB map and
cores within the SoC, refusals complete and equal to the documented dtype / shape rules."""
import pytest


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p", "ascend910_95"])
def test_qlinear_matmul_random_shapes(sweep_mod, soc):
    rows, failures = sweep_mod.sweep("qlinear_matmul", [soc], 250, seed=2024)
    assert not failures, sweep_mod.format_failures(failures)
    plans = sum(r[1] for r in rows.values())
    refused = sum(r[2] for r in rows.values())
    assert plans >= 150 and refused >= 10, (plans, refused)


def test_qlinear_matmul_grid(sweep_mod):
    rows, failures = sweep_mod.sweep("qlinear_matmul", ["ascend910b", "ascend310p", "ascend910_95"], 0, seed=0,
                                     grid=True)
    assert not failures, sweep_mod.format_failures(failures)


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p", "ascend910_95"])
def test_qlinear_matmul_with_device_overrides(sweep_mod, soc):
    rows, failures = sweep_mod.sweep("qlinear_matmul", [soc], 100, seed=77, overrides=1.0)
    assert not failures, sweep_mod.format_failures(failures)
    assert sum(r[1] for r in rows.values()) >= 30
