"""The tiling sweep (aqo sweep, ascend_quant_ops/tools/sweep.py) in CI for QLinearMatMul: 10,000 random shapes per SoC (batch
broadcasting, zero dims, K mismatches, every dtype mix) and a grid; every output byte written by exactly one core, UB map and
cores within the SoC, refusals complete and equal to the documented dtype / shape rules."""
import pytest


@pytest.mark.slow  # about 1.5 minutes per SoC on one core: the write ranges of every plan are checked
@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p", "ascend910_95"])
def test_qlinear_matmul_10000_random_shapes(sweep_mod, soc):
    # The plan invariants on 10,000 random shapes per SoC (the DynamicQuant sweep has its own file).
    rows, failures = sweep_mod.sweep("qlinear_matmul", [soc], 10_000, seed=2024)
    assert not failures, sweep_mod.format_failures(failures)
    cases = sum(r[0] for r in rows.values())
    plans = sum(r[1] for r in rows.values())
    refused = sum(r[2] for r in rows.values())
    assert cases == 10_000
    # The sample must exercise both sides of the rules (dtypes per SoC, K mismatches, broadcasting).
    assert plans >= 6000 and refused >= 500, (plans, refused)


def test_qlinear_matmul_grid(sweep_mod):
    rows, failures = sweep_mod.sweep("qlinear_matmul", ["ascend910b", "ascend310p", "ascend910_95"], 0, seed=0,
                                     grid=True)
    assert not failures, sweep_mod.format_failures(failures)


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p", "ascend910_95"])
def test_qlinear_matmul_with_device_overrides(sweep_mod, soc):
    rows, failures = sweep_mod.sweep("qlinear_matmul", [soc], 100, seed=77, overrides=1.0)
    assert not failures, sweep_mod.format_failures(failures)
    assert sum(r[1] for r in rows.values()) >= 30
