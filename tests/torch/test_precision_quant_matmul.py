"""The precision suite's quant_matmul part: the float-output criterion on hand-made deltas, the case list (refused
on every SoC while no SoC has the kernel; compared once one has), and the runner catching a wrong backend."""
import ml_dtypes
import numpy as np
import pytest

from ascend_quant_ops import _plan_check, api, precision, tiling
from ascend_quant_ops.precision import cases as precision_cases
from ascend_quant_ops.precision import criteria, runner


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_float_criterion_one_ulp_error_ratio_and_non_finite(dtype):
    g = np.linspace(-3, 3, 4000).astype(dtype)
    assert criteria.check_output("values", g.copy(), g)["passed"]
    one = g.copy()
    one[7] = np.nextafter(g[7].astype(np.float32), np.float32(9)).astype(dtype) if dtype == np.float32 else \
        (g[7:8].view(np.uint16) + 1).view(dtype)[0]
    r = criteria.check_output("values", one, g)
    assert r["passed"] and r["stats"]["max_ulp"] == 1 and r["stats"]["not_equal"] == 1
    bits = {np.float32: np.uint32}.get(dtype, np.uint16)
    two = g.copy()
    two.view(bits)[100] += 2  # two steps up (a positive value)
    r = criteria.check_output("values", two, g)
    assert not r["passed"] and r["stats"]["over_limit"] == 1
    many = g.copy()
    many.view(bits)[1000:1010] += 1  # 10 of 4000 off by one ulp: 0.25% > 0.1%
    r = criteria.check_output("values", many, g)
    assert not r["passed"] and "error ratio" in r["message"]
    special = g.copy()
    special[:3] = np.array([np.nan, np.inf, -np.inf]).astype(dtype)
    assert criteria.check_output("values", special.copy(), special)["passed"]
    wrong = special.copy()
    wrong[1] = np.array(np.finfo(np.float16).max if dtype == np.float16 else 3e38).astype(dtype)  # max for Inf
    assert not criteria.check_output("values", wrong, special)["passed"]
    wrong = special.copy()
    wrong[0] = 0
    assert not criteria.check_output("values", wrong, special)["passed"]
    zero = np.zeros(4, dtype)
    assert criteria.check_output("values", -zero, zero)["passed"]  # -0 and +0 are the same value


def test_every_soc_compares_its_forms_and_refuses_the_outputs_its_kernel_does_not_write():
    table = tiling.soc_table()
    assert set(_plan_check.QUANT_MATMUL_KERNEL_SOCS) == set(table)
    cases = precision.all_cases(ops=["quant_matmul"])
    assert {c.soc for c in cases} == set(table)
    for c in cases:
        writes = c.params["out_dtype"] in table[c.soc]["quant_matmul"]["out_dtypes"]
        assert c.kind == ("compare" if writes else "refuse"), c.id
    refused = [c for c in cases if c.kind == "refuse"]
    assert refused and {c.soc for c in refused} == {"ascend310p"}
    results = [runner.run_case(c, "emulator") for c in cases]
    assert all(r["verdict"] == "pass" for r in results), [r["message"] for r in results if r["verdict"] != "pass"]


@pytest.fixture
def kernel_on_910b(monkeypatch):
    """As if ascend910b had the kernel: its cases become "compare", and its SoC check lets the call through."""
    monkeypatch.setattr(_plan_check, "QUANT_MATMUL_KERNEL_SOCS", ("ascend910b",))
    return precision_cases.quant_matmul_cases("ascend910b", tiling.soc_table()["ascend910b"])


def test_the_compared_forms_cover_the_w8a8_and_dynamic_flows(kernel_on_910b):
    cases = kernel_on_910b
    assert all(c.kind == "compare" for c in cases)
    tags = {t for c in cases for t in c.tags}
    assert {"basic", "serving", "params", "wrap", "special", "empty", "rank"} <= tags
    outs = {c.params["out_dtype"] for c in cases}
    assert outs == {"float32", "float16", "bfloat16"}
    serving = next(c for c in cases if "serving" in c.tags)
    inputs = serving.make_inputs()
    assert inputs["b"].flags["F_CONTIGUOUS"] and not inputs["b"].flags["C_CONTIGUOUS"]  # transposed view
    assert inputs["a_scale"].shape == inputs["a"].shape[:-1]  # per token, [B, S]
    special = next(c for c in cases if c.params["special"] == "scales")
    y = runner.expected_outputs(special, special.make_inputs(), "cpu")[0]
    assert np.isnan(y).any() and np.isinf(y).any()


def test_compared_forms_pass_on_the_cpu_backend_and_a_wrong_backend_fails(kernel_on_910b, monkeypatch):
    monkeypatch.setattr(_plan_check, "quant_matmul", lambda *a, **k: None)  # the plan comes with the kernel
    for case in kernel_on_910b:
        r = runner.run_case(case, "cpu")
        assert r["verdict"] == "pass", (case.id, r["message"])
    original = api.quant_matmul

    def off_by_two_ulps(*a, **kw):
        y = np.array(original(*a, **kw))
        if y.size:
            y.reshape(-1).view(np.uint32 if y.dtype == np.float32 else np.uint16)[0] += 2
        return y

    monkeypatch.setattr(api, "quant_matmul", off_by_two_ulps)
    r = runner.run_case(kernel_on_910b[0], "cpu")
    assert r["verdict"] == "fail" and "ulp" in r["message"]
