"""Independent references for quant_matmul (none of them uses ascend_quant_ops).

* run_ort_matmul_integer_to_float: one com.microsoft.MatMulIntegerToFloat node in onnxruntime's CPU provider.
* reference_quant_matmul: the documented definition, written again from the text: exact integer sums in int64
  (wrapped to int32 with integer arithmetic), then each float32 step done in float64 and rounded once to
  float32. A float64 product of two float32 values is exact (24 + 24 significant bits <= 53), so its rounding
  to float32 is the correctly rounded float32 product; a float64 sum of two float32 values rounded to float32 is
  the correctly rounded float32 sum, because double rounding through a format of p' >= 2p + 2 bits is
  innocuous for + - * / (53 >= 2 * 24 + 2; S. A. Figueroa, "When is double rounding innocuous?", 1995). The
  conversion to float16 is numpy's float64 -> float16 cast, the one to bfloat16 a round-to-nearest-even on the
  float32 bit pattern written here.

The reference takes every parameter in one canonical form, already in matmul coordinates (an array that
broadcasts against [..., M, N] for the scales and bias, against [..., M, K] / [..., K, N] for the zero points);
the tests hand the golden other spellings of the same layout, so the golden's layout rules are checked too.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np


def run_ort_matmul_integer_to_float(a, b, a_scale, b_scale, a_zero_point=None, b_zero_point=None, bias=None):
    """One com.microsoft.MatMulIntegerToFloat node (onnxruntime CPU provider); absent inputs are left out."""
    import onnxruntime as ort
    from onnx import helper

    names = ("A", "B", "a_scale", "b_scale", "a_zero_point", "b_zero_point", "bias")
    values = (a, b, a_scale, b_scale, a_zero_point, b_zero_point, bias)
    node_inputs, graph_inputs, feeds = [], [], {}
    for name, value in zip(names, values):
        if value is None:
            node_inputs.append("")
            continue
        value = np.ascontiguousarray(value)
        node_inputs.append(name)
        feeds[name] = value
        graph_inputs.append(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype),
                                                          list(value.shape)))
    while node_inputs[-1] == "":
        node_inputs.pop()
    out_type = helper.np_dtype_to_tensor_dtype(np.asarray(a_scale).dtype)
    node = helper.make_node("MatMulIntegerToFloat", node_inputs, ["Y"], domain="com.microsoft")
    graph = helper.make_graph([node], "matmul_integer_to_float", graph_inputs,
                              [helper.make_tensor_value_info("Y", out_type, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 10
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0]


def _to_float32(x64: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        return np.asarray(x64, np.float64).astype(np.float32)


def _bfloat16_rne(v: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 by round to nearest even on the bit pattern (NaN stays a quiet NaN)."""
    v = np.array(v, np.float32)  # a contiguous copy that keeps a 0-d shape
    bits = v.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    rounded = np.where(np.isnan(v), np.uint16(0x7FC0), rounded).astype(np.uint16)
    return rounded.view(ml_dtypes.bfloat16)


def wrap_int32(x: np.ndarray) -> np.ndarray:
    """Exact int64 integers reduced modulo 2^32 into [-2^31, 2^31)."""
    x = np.asarray(x, np.int64)
    return ((x + 2 ** 31) % 2 ** 32) - 2 ** 31


def reference_quant_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias, out_dtype):
    """quant_matmul from its definition. a, b: the operands as given (1-D allowed); a_scale, a_zero_point,
    b_scale, b_zero_point, bias: canonical arrays in matmul coordinates (zero points integer, scales and bias
    float32 / float16 / bfloat16, bias may be None); out_dtype: "float32", "float16" or "bfloat16"."""
    a2 = a.reshape(1, -1) if a.ndim == 1 else a
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    a_diff = a2.astype(np.int64) - np.asarray(a_zero_point).astype(np.int64)
    b_diff = b2.astype(np.int64) - np.asarray(b_zero_point).astype(np.int64)
    # |a_diff * b_diff| <= 65025: the int64 sum is exact for any K this test can hold in memory
    acc = wrap_int32(np.einsum("...mk,...kn->...mn", a_diff, b_diff))
    acc32 = _to_float32(acc.astype(np.float64))  # int -> float64 exact, one rounding to float32
    s = _to_float32(np.asarray(a_scale, np.float64) * np.asarray(b_scale, np.float64))
    with np.errstate(invalid="ignore"):
        v = _to_float32(acc32.astype(np.float64) * s.astype(np.float64))
        if bias is not None:
            v = _to_float32(v.astype(np.float64) + np.asarray(bias, np.float64))
    v = np.broadcast_to(v, np.broadcast_shapes(v.shape, acc.shape))
    out_shape = v.shape[:-2] + ((v.shape[-2],) if a.ndim >= 2 else ()) + ((v.shape[-1],) if b.ndim >= 2 else ())
    v = v.reshape(out_shape)
    if out_dtype == "float32":
        return np.array(v, np.float32)
    if out_dtype == "float16":
        with np.errstate(over="ignore"):
            return v.astype(np.float64).astype(np.float16)
    if out_dtype == "bfloat16":
        return _bfloat16_rne(v)
    raise ValueError(out_dtype)


def assert_same_floats(actual: np.ndarray, expected: np.ndarray) -> None:
    """Equal dtype, shape and bit patterns, except that any NaN equals any NaN."""
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    width = {2: np.uint16, 4: np.uint32}[actual.dtype.itemsize]
    a = np.array(actual).view(width)
    e = np.array(expected).view(width)
    nan_a = np.isnan(actual.astype(np.float32))
    nan_e = np.isnan(expected.astype(np.float32))
    same = (a == e) | (nan_a & nan_e)
    if not same.all():
        i = np.argwhere(~same)[0]
        raise AssertionError(f"{int((~same).sum())} of {same.size} elements differ; first at {tuple(i)}: "
                             f"{actual[tuple(i)]!r} != {expected[tuple(i)]!r}")
