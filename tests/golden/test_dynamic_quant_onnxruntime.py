"""DynamicQuant golden at scale against onnxruntime and float64 arithmetic.

Symmetric DynamicQuant, once scale is known, is ONNX QuantizeLinear per axis 0 with zero point 0:
y = saturate(round_half_even(v / scale)) for int8, and the saturating (saturate=1) round-to-nearest-even
cast for float8. onnxruntime's CPU kernel is an implementation independent of numpy / ml_dtypes, so its y
must equal the golden's bit for bit on every row with a non-zero finite scale. The scale itself is checked
against float64 arithmetic: for float32 operands, a float64 quotient rounded to float32 is the correctly
rounded float32 quotient (53 >= 2 * 24 + 2), so no float32 division is involved in the reference.

ONNX has no hifloat8 and its asymmetric QuantizeLinear adds an integer zero point after rounding (OPSNN adds a
float offset before): those paths are covered by test_dynamic_quant_properties.py and test_hifloat8.py.
"""
import zlib

import ml_dtypes
import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from ascend_quant_ops.golden.dynamic_quant import dynamic_quant

DMAX = {"int8": 127.0, "float8_e4m3fn": 448.0, "float8_e5m2": 57344.0}  # ATB's dmax table
ONNX_TYPE = {"int8": TensorProto.INT8, "float8_e4m3fn": TensorProto.FLOAT8E4M3FN,
             "float8_e5m2": TensorProto.FLOAT8E5M2}


def quantize_linear_session(dst: str, rows: int) -> ort.InferenceSession:
    """QuantizeLinear(v, scale, 0, axis=0, saturate=1) -> DequantizeLinear(., 1, 0): y's values as float32
    (exact: y * 1 - 0), since onnxruntime's Python binding cannot hand out float8 arrays."""
    zero = helper.make_tensor("zero", ONNX_TYPE[dst], [rows], [0] * rows)
    one = numpy_helper.from_array(np.ones(rows, np.float32), "one")
    attrs = {} if dst == "int8" else {"saturate": 1}
    nodes = [helper.make_node("QuantizeLinear", ["v", "scale", "zero"], ["q"], axis=0, **attrs),
             helper.make_node("DequantizeLinear", ["q", "one", "zero"], ["y"], axis=0)]
    graph = helper.make_graph(
        nodes, "dynamic_quant_given_scale",
        [helper.make_tensor_value_info("v", TensorProto.FLOAT, [rows, None]),
         helper.make_tensor_value_info("scale", TensorProto.FLOAT, [rows])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, None])],
        initializer=[zero, one])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def random_rows(xdtype, rows, H, seed):
    """Rows spanning many magnitudes, with zero rows, single non-zero rows and exact ties."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, H)) * np.exp2(rng.integers(-20, 12, (rows, 1)))
    x[::17] = 0.0
    x[5::23, 1:] = 0.0
    # rows whose maximum is 127 * 2^-3, so scale = 2^-3 and half-integers * 2^-3 are exact int8 ties
    x[3::11] = (rng.integers(-127, 127, (len(x[3::11]), H)) + 0.5) * 2.0 ** -3
    x[3::11, 0] = 127 * 2.0 ** -3
    return x.astype(xdtype)


@pytest.mark.parametrize("xdtype", [np.float16, ml_dtypes.bfloat16], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("smooth", [False, True], ids=["plain", "smooth"])
@pytest.mark.parametrize("dst", list(DMAX))
def test_symmetric_equals_onnxruntime_quantize_linear(dst, smooth, xdtype):
    rows, H = 1500, 193
    x = random_rows(xdtype, rows, H, seed=zlib.crc32(f"{dst}-{smooth}-{np.dtype(xdtype).name}".encode()))
    s = (np.random.default_rng(9).uniform(0.25, 4, H).astype(xdtype) if smooth else None)
    y, scale = dynamic_quant(x, s, dst_type=dst)

    # v in float64: products of two 11-bit (or 8-bit) significands are exact in float32 too
    v64 = x.astype(np.float64) * (1.0 if s is None else s.astype(np.float64))
    v = v64.astype(np.float32)
    assert np.array_equal(v.astype(np.float64), v64)

    m = np.abs(v64).max(axis=1)
    np.testing.assert_array_equal(scale, (m / DMAX[dst]).astype(np.float32))

    live = scale != 0
    assert live.sum() > rows // 2 and (~live).sum() > 10
    y_ort = quantize_linear_session(dst, int(live.sum())).run(None, {"v": v[live], "scale": scale[live]})[0]
    y_gold = y[live].astype(np.float32)
    np.testing.assert_array_equal(y_gold, y_ort)
    np.testing.assert_array_equal(np.signbit(y_gold), np.signbit(y_ort))  # -0 in float8
    assert not y[~live].astype(np.float32).any()
