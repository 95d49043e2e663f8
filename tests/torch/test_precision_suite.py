"""The precision suite: its criteria on hand-made deltas, its case list against the SoC table, its runner catching
a wrong backend, and scripts/precision_test.py writing JSON + HTML (cpu and emulator backends; npu refused here
with the reason)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import en_dtypes
import ml_dtypes
import numpy as np

from ascend_quant_ops import precision, tiling
from ascend_quant_ops.precision import criteria, runner

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ["-m", "ascend_quant_ops", "precision"]


# ------------------------------------------------------------------------------------------------ criteria
def test_integer_criterion_allows_one_not_two():
    g = np.array([0, 5, -128, 127, 3], np.int8)
    assert criteria.check_integer(g.copy(), g)["passed"]
    off1 = np.array([1, 4, -127, 126, 3], np.int8)
    r = criteria.check_integer(off1, g)
    assert r["passed"] and r["stats"]["max_abs_delta"] == 1 and r["stats"]["not_equal"] == 4
    off2 = np.array([2, 5, -128, 127, 3], np.int8)
    r = criteria.check_integer(off2, g)
    assert not r["passed"] and r["stats"]["over_limit"] == 1
    assert r["histogram"]["counts"] == [0, 0, 0, 4, 0, 1, 0] and r["histogram"]["bad"][5]
    assert not criteria.check_integer(g.astype(np.uint8), g)["passed"]  # dtype must match
    assert not criteria.check_integer(g[:4], g)["passed"]  # shape must match


def test_scale_criterion_thresholds():
    g = np.array([0.5, 100.0, 0.0], np.float32)
    ok = g + np.array([2.0 ** -9, 100 * 2.0 ** -9, 0], np.float32)  # within 2^-8 * max(1,|g|) each ...
    r = criteria.check_scale(ok, g)
    assert not r["passed"] and "mean" in r["message"]  # ... but the mean (2^-9 * 2/3) exceeds 2^-10
    g4 = np.zeros(64, np.float32) + 0.25
    one_off = g4.copy()
    one_off[0] += 2.0 ** -8 * 0.99  # one element just inside the element bound, mean tiny
    assert criteria.check_scale(one_off, g4)["passed"]
    one_off[0] = 0.25 + 2.0 ** -7
    assert not criteria.check_scale(one_off, g4)["passed"]


def test_scale_criterion_non_finite_must_match():
    g = np.array([np.nan, np.inf, 1.0], np.float32)
    assert criteria.check_scale(g.copy(), g)["passed"]
    for bad in ([0.0, np.inf, 1.0], [np.nan, -np.inf, 1.0], [np.nan, np.inf, np.nan]):
        assert not criteria.check_scale(np.array(bad, np.float32), g)["passed"], bad


def test_float8_ulp_distance_and_error_ratio():
    e4 = ml_dtypes.float8_e4m3fn
    g = np.full(2000, 1.0, np.float32).astype(e4)
    a = g.copy()
    a[0] = np.float32(1.125)  # the next e4m3fn value: 1 ulp
    r = criteria.check_float8(a, g)
    assert r["passed"] and r["stats"]["max_ulp"] == 1 and r["stats"]["error_ratio"] == 1 / 2000
    a[1] = np.float32(1.125)  # 2 of 2000 differ: 0.1%, still allowed
    assert criteria.check_float8(a, g)["passed"]
    a[2] = np.float32(1.125)  # 0.15% > 0.1%
    assert not criteria.check_float8(a, g)["passed"]
    b = g.copy()
    b[0] = np.float32(1.25)  # 2 ulp
    assert not criteria.check_float8(b, g)["passed"]
    z = np.array([0.0, np.nan], np.float32).astype(e4)
    assert criteria.check_float8(np.array([-0.0, np.nan], np.float32).astype(e4), z)["passed"]  # -0 == +0
    assert not criteria.check_float8(np.array([0.0, 0.0], np.float32).astype(e4), z)["passed"]  # lost NaN


def test_hifloat8_adjacent_codes():
    hif8 = en_dtypes.hifloat8
    g = np.array([32768.0] * 1000 + [1.0], np.float32).astype(hif8)
    a = g.copy()
    a[-1] = np.float32(1.125)  # 1.0 has 3 mantissa bits in hifloat8: 1.125 is adjacent
    assert criteria.check_float8(a, g)["stats"]["max_ulp"] == 1
    a[-1] = np.float32(1.25)
    assert criteria.check_float8(a, g)["stats"]["max_ulp"] == 2


# ------------------------------------------------------------------------------------------------ case list
def test_case_list_covers_each_soc_limits_and_special_values():
    cases = precision.all_cases()
    ids = {c.id for c in cases}
    table = tiling.soc_table()
    assert {c.soc for c in cases} == set(table)
    assert "dynamic_quant-ascend910b-fp16-s8-3x26624-smooth" in ids  # ATB's documented limits, from the SoC table
    assert "dynamic_quant-ascend910b-bf16-s8-3x7552-smooth" in ids
    assert "dynamic_quant-ascend310p-fp16-s8-3x4096-smooth" in ids
    assert "dynamic_quant-ascend910b-fp16-s8-2x26625" in ids
    assert any(c.id.startswith("dynamic_quant-ascend910_95") and c.params["shape"][-1] >= 100_000 for c in cases)
    refusals = {(c.soc, c.title) for c in cases if c.kind == "refuse"}
    assert ("ascend310p", "bfloat16 input is not supported") in refusals
    assert ("ascend310p", "tail not a multiple of 32") in refusals
    for soc in table:
        dq = [c for c in cases if c.soc == soc and c.op == "dynamic_quant" and c.kind == "compare"]
        assert {c.params["dst_type"] for c in dq} == set(table[soc]["dynamic_quant"]["dst_types"])
        assert any(c.params["special"] == "special_values" for c in dq)
        assert any(0 in c.params["shape"] for c in dq)  # empty tensors
        qmm = [c for c in cases if c.soc == soc and c.op == "qlinear_matmul"]
        assert any(c.params["a_shape"][-1] >= 33_026 for c in qmm)  # int32 wrap-around
    special = next(c for c in cases if c.params.get("special") == "special_values")
    x = special.make_inputs()["x"].astype(np.float32)
    assert np.isnan(x).any() and np.isposinf(x).any() and np.isneginf(x).any() and (x == 0).all(axis=1).any()
    again = next(c for c in precision.all_cases() if c.id == special.id).make_inputs()["x"]
    assert np.array_equal(again.view(np.uint16), special.make_inputs()["x"].view(np.uint16))  # deterministic


def test_310p_expectation_is_saturated():
    x = np.array([[np.inf, -np.inf, np.nan, 1.0]], np.float16)
    assert runner.saturate_like_310p(x).tolist() == [[65504.0, -65504.0, 0.0, 1.0]]


# ------------------------------------------------------------------------------------------------ runner
def test_runner_fails_a_wrong_backend(monkeypatch):
    case = next(c for c in precision.all_cases(["ascend910b"], ["dynamic_quant"]) if c.id.endswith("fp16-s8-13x62"))
    assert runner.run_case(case, "cpu")["verdict"] == "pass"
    real = runner.call_backend

    def off_by_two(case, inputs, backend):
        y, scale = real(case, inputs, backend)
        y = y.copy()
        y.flat[5] = y.flat[5] - 2 if y.flat[5] > 0 else y.flat[5] + 2
        return y, scale

    monkeypatch.setattr(runner, "call_backend", off_by_two)
    r = runner.run_case(case, "cpu")
    assert r["verdict"] == "fail" and "y:" in r["message"]
    assert r["outputs"]["y"]["stats"]["max_abs_delta"] == 2

    def crash(case, inputs, backend):
        raise RuntimeError("device lost")

    monkeypatch.setattr(runner, "call_backend", crash)
    r = runner.run_case(case, "cpu")
    assert r["verdict"] == "error" and "device lost" in r["message"]


def test_runner_fails_a_missing_refusal(monkeypatch):
    case = next(c for c in precision.all_cases(["ascend910b"]) if c.id == "dynamic_quant-ascend910b-fp16-s8-2x26625")
    assert runner.run_case(case, "cpu")["verdict"] == "pass"
    monkeypatch.setattr(runner, "call_backend", lambda case, inputs, backend: ())
    assert runner.run_case(case, "cpu")["verdict"] == "fail"


# ------------------------------------------------------------------------------------------------ script
def run_script(*args):
    env = dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    return subprocess.run([sys.executable, *SCRIPT, *args], capture_output=True, text=True, timeout=300, env=env)


def test_script_cpu_writes_json_and_html(tmp_path):
    r = run_script("--backend", "cpu", "--soc", "ascend310p", "--out", str(tmp_path), "-q")
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads((tmp_path / "precision_cpu.json").read_text())
    assert data["summary"]["total"] == data["summary"]["pass"] > 20
    assert data["meta"]["socs"] == ["ascend310p"]
    for r in data["results"]:
        for name, out in r["outputs"].items():  # every element lands in exactly one histogram bin
            assert sum(out["histogram"]["counts"]) == out["stats"]["elements"], (r["id"], name)
    html = (tmp_path / "precision_cpu.html").read_text()
    assert html.count("<svg") >= data["summary"]["total"] - 10  # histograms, one per output of compare cases
    assert "dynamic_quant-ascend310p-fp16-s8-11x64-special_values" in html


def test_script_npu_unusable_here_says_why(tmp_path):
    r = run_script("--backend", "npu", "--out", str(tmp_path))
    assert r.returncode == 2
    assert "backend 'npu' is not usable here" in r.stderr and "torch_npu" in r.stderr
