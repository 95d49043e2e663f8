"""DynamicQuant golden, asymmetric uint8 mode, against onnxruntime's DynamicQuantizeLinear applied row by row.

The mode is ONNX DynamicQuantizeLinear's formula per row (golden/dynamic_quant.py docstring): the range
[min(min(v), 0), max(max(v), 0)], scale = range / 255, an integer zero point round(clip(-lo / scale, 0, 255)),
y = clip(round(v / scale) + zero point, 0, 255). onnxruntime's CPU kernel (MLAS min/max, float32 scale and zero
point, MlasQuantizeLinear) is an independent implementation of the same per-tensor formula, so every row with a
non-zero finite scale must agree bit for bit: y, scale and zero point. Rows onnxruntime treats differently by
design: an all-zero row (onnxruntime: scale 1; here scale 0 as in every DynamicQuant mode, both y 0 and zero
point 0) and non-finite rows (checked against the documented rules).

v = float32(x) * float32(smooth) is exact for float16 and bfloat16 operands (11 + 11 and 8 + 8 significant bits
fit in float32), so the oracle gets the same v without depending on the golden.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_quant_ops.errors import DTypeError
from ascend_quant_ops.golden.dynamic_quant import dynamic_quant

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def ort_dynamic_quantize_linear():
    import onnxruntime as ort
    from onnx import TensorProto, helper

    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "scale", "zero_point"])
    graph = helper.make_graph(
        [node], "dynamic_quantize_linear", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, None),
         helper.make_tensor_value_info("scale", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("zero_point", TensorProto.UINT8, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return lambda row: session.run(None, {"x": np.ascontiguousarray(row, np.float32)})


def _check_rows_against_onnxruntime(x, smooth, oracle):
    y, scale, zero_point = dynamic_quant(x, smooth, dst_type="uint8", asymmetric=True)
    assert y.dtype == np.uint8 and y.shape == x.shape
    assert scale.dtype == np.float32 and zero_point.dtype == np.uint8 and scale.shape == zero_point.shape
    v = x.astype(np.float32) if smooth is None else x.astype(np.float32) * smooth.astype(np.float32)
    v = v.reshape(-1, x.shape[-1])
    for r, (y_row, s, z) in enumerate(zip(y.reshape(v.shape), scale.reshape(-1), zero_point.reshape(-1))):
        y_ort, s_ort, z_ort = oracle(v[r])
        if not v[r].any():  # all-zero row: onnxruntime uses scale 1, this package 0; y and zero point agree
            assert (s, z, s_ort, z_ort) == (0, 0, 1, 0) and not y_row.any() and not y_ort.any()
            continue
        assert s == s_ort and z == z_ort, (r, s, s_ort, z, z_ort)
        np.testing.assert_array_equal(y_row, y_ort)


@st.composite
def rows(draw):
    dtype = draw(st.sampled_from([np.float16, ml_dtypes.bfloat16]))
    shape = (draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 200)))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    kind = draw(st.sampled_from(["mixed", "positive", "negative", "ties", "zero rows"]))
    x = rng.standard_normal(shape) * np.exp2(rng.integers(-8, 8, shape[:-1] + (1,)))
    if kind == "mixed":
        x += rng.uniform(-3, 3, shape[:-1] + (1,))
    elif kind == "positive":
        x = np.abs(x) + 0.5
    elif kind == "negative":
        x = -np.abs(x) - 0.5
    elif kind == "ties":  # range [-127.5, 127.5]: scale 1, zero point 127.5 -> 128, v / scale on half steps
        x = rng.integers(-255, 255, shape) / 2.0
        x[..., 0], x[..., -1] = -127.5, 127.5
    else:
        x[rng.random(shape[:-1]) < 0.5] = 0
    smooth = None
    if draw(st.booleans()):
        smooth = rng.uniform(0.5, 2.0, shape[-1]).astype(dtype)
    return x.astype(dtype), smooth


@SETTINGS
@given(rows())
def test_equals_onnxruntime_dynamic_quantize_linear_per_row(ort_dynamic_quantize_linear, case):
    x, smooth = case
    _check_rows_against_onnxruntime(x, smooth, ort_dynamic_quantize_linear)


def test_equals_onnxruntime_on_long_rows(ort_dynamic_quantize_linear):
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((16, 7168)) * 3 + rng.uniform(-2, 2, (16, 1))).astype(np.float16)
    _check_rows_against_onnxruntime(x, None, ort_dynamic_quantize_linear)


def test_the_range_always_contains_zero_and_zero_is_exact():
    x = np.array([[1.0, 2.0, 3.0], [-4.0, -2.0, -1.0], [-1.0, 0.0, 3.0]], np.float16)
    y, scale, zero_point = dynamic_quant(x, dst_type="uint8", asymmetric=True)
    np.testing.assert_array_equal(zero_point, [0, 255, 64])  # 1 / float32(4 / 255) = 63.749996 -> 64
    np.testing.assert_array_equal(scale, np.float32([3.0, 4.0, 4.0]) / np.float32(255))
    assert y[2, 1] == zero_point[2]  # 0.0 maps to the zero point exactly
    np.testing.assert_array_equal(y[0], [85, 170, 255])
    np.testing.assert_array_equal(y[1], [0, 128, 191])  # -2 / float32(4 / 255) = -127.49999 -> -127, + 255


def test_special_rows_follow_the_documented_rules():
    nan, inf = np.nan, np.inf
    x = np.array([[0, 0, 0], [1, nan, 2], [1, inf, -2], [1, -inf, 2], [-inf, inf, 0], [0, -0.0, 0]], np.float16)
    y, scale, zero_point = dynamic_quant(x, dst_type="uint8", asymmetric=True)
    assert scale[0] == 0 and zero_point[0] == 0 and not y[0].any()
    assert np.isnan(scale[1]) and zero_point[1] == 0 and not y[1].any()
    for r in (2, 3, 4):
        assert scale[r] == np.inf and zero_point[r] == 0 and not y[r].any(), r
    assert scale[5] == 0 and not np.signbit(scale[5]) and not y[5].any()


def test_empty_rows_and_tensors():
    y, scale, zero_point = dynamic_quant(np.zeros((3, 0), np.float16), dst_type="uint8", asymmetric=True)
    assert y.shape == (3, 0) and (scale == 0).all() and (zero_point == 0).all()
    y, scale, zero_point = dynamic_quant(np.zeros((0, 5), np.float16), dst_type="uint8", asymmetric=True)
    assert y.shape == (0, 5) and scale.shape == zero_point.shape == (0,)


@pytest.mark.parametrize("spelling", ["uint8", np.uint8, np.dtype(np.uint8)])
def test_uint8_is_refused_without_the_asymmetric_mode(spelling):
    with pytest.raises(DTypeError) as info:
        dynamic_quant(np.ones((2, 4), np.float16), dst_type=spelling)
    e = info.value
    assert e.op == "dynamic_quant" and e.argument == "dst_type" and "asymmetric=True" in str(e)
