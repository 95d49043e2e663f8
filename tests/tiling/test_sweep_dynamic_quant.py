"""The tiling sweep (aqo sweep, ascend_quant_ops/tools/sweep.py) in CI for DynamicQuant: 10,000 random shapes per SoC and a grid
around the limits; every plan's explanation checked by the invariant checker (test_invariant_checker.py shows it
catches broken plans), every refusal complete, every decision equal to what the documented limits say."""
import pytest


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p", "ascend910_95"])
def test_dynamic_quant_10000_random_shapes(sweep_mod, soc):
    rows, failures = sweep_mod.sweep("dynamic_quant", [soc], 10_000, seed=2024)
    assert not failures, sweep_mod.format_failures(failures)
    cases = sum(r[0] for r in rows.values())
    plans = sum(r[1] for r in rows.values())
    refused = sum(r[2] for r in rows.values())
    assert cases == 10_000
    # The sample must exercise both sides of the limits.
    assert plans >= 6000 and refused >= 300, (plans, refused)


def test_dynamic_quant_grid_around_the_limits(sweep_mod):
    rows, failures = sweep_mod.sweep("dynamic_quant", ["ascend910b", "ascend310p", "ascend910_95"], 0, seed=0,
                                     grid=True)
    assert not failures, sweep_mod.format_failures(failures)


def test_sweep_reports_a_wrong_decision(sweep_mod, monkeypatch):
    # If the documented limits said 7000 was too long, the sweep must flag the plans that accept longer tails.
    real = sweep_mod.dq_expected_ok

    def stricter(spec, case):
        if case["shape"][-1] > 7000:
            return False, "pretend limit 7000"
        return real(spec, case)

    monkeypatch.setattr(sweep_mod, "dq_expected_ok", stricter)
    _, failures = sweep_mod.sweep("dynamic_quant", ["ascend910_95"], 300, seed=1)
    assert failures and all("accepted although" in f[3][0] for f in failures)


def test_sweep_reports_a_broken_plan(sweep_mod, monkeypatch):
    # A plan whose explanation loses the last row must fail the sweep (the plan function is wrapped).
    real = sweep_mod.plan_function("dynamic_quant")

    def lossy(*args):
        out = real(*args)
        if out["ok"] and out["explanation"]["work"]:
            out["explanation"]["work"][-1]["end"] -= 1
        return out

    monkeypatch.setattr(sweep_mod, "plan_function", lambda op: lossy)
    _, failures = sweep_mod.sweep("dynamic_quant", ["ascend910b"], 100, seed=3)
    assert failures and any("covered by no core" in p for f in failures for p in f[3])


def test_sweep_cli_exit_status(sweep_mod, capsys):
    assert sweep_mod.main(["--op", "dynamic_quant", "--soc", "ascend950", "--count", "50", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "ascend910_95" in out and "0 failed" in out


def test_sweep_progress_bar_only_on_a_terminal(sweep_mod, monkeypatch, capsys):
    # the bar rewrites its line with carriage returns: into a log file or a pipe it is not written at all
    args = ["--op", "dynamic_quant", "--soc", "ascend910b", "--count", "30"]
    monkeypatch.setattr(sweep_mod.sys.stderr, "isatty", lambda: False, raising=False)
    assert sweep_mod.main(args) == 0
    assert "\r" not in capsys.readouterr().err
    monkeypatch.setattr(sweep_mod.sys.stderr, "isatty", lambda: True, raising=False)
    assert sweep_mod.main(args) == 0
    assert "\r" in capsys.readouterr().err


def test_sweep_cli_fails_on_a_broken_plan(sweep_mod, monkeypatch, capsys):
    real = sweep_mod.plan_function("dynamic_quant")

    def overflowing(*args):
        out = real(*args)
        if out["ok"] and out["explanation"]["ub"]:
            out["explanation"]["ub"][-1]["offset"] = out["explanation"]["ub_capacity"]  # past the end of UB
        return out

    monkeypatch.setattr(sweep_mod, "plan_function", lambda op: overflowing)
    assert sweep_mod.main(["--op", "dynamic_quant", "--soc", "ascend910b", "--count", "40", "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "FAIL dynamic_quant ascend910b" in out and "past ub_capacity" in out


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p", "ascend910_95"])
def test_dynamic_quant_with_device_overrides(sweep_mod, soc):
    # Every case planned with a random smaller core count and UB size: plans stay inside them.
    rows, failures = sweep_mod.sweep("dynamic_quant", [soc], 1500, seed=77, overrides=1.0)
    assert not failures, sweep_mod.format_failures(failures)
    assert sum(r[1] for r in rows.values()) >= 900
