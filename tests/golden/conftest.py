"""Shared helpers of the golden tests: independent references the goldens are compared against."""
from __future__ import annotations

import numpy as np
import pytest

# ----------------------------------------------------------------------------------------------------------------
# QLinearMatMul references. None of them uses ascend_quant_ops.


def _onnx_elem_type(dtype: np.dtype) -> int:
    from onnx import helper

    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def _is_float8(dtype: np.dtype) -> bool:
    return np.dtype(dtype).name.startswith("float8")


def _run_onnx_model(nodes, inputs, output_name, output_dtype, *, runtime, opset=21):
    """Build a model of `nodes` with `inputs` (name -> array) as graph inputs; run it; return the one output."""
    from onnx import helper

    graph = helper.make_graph(
        nodes, "qlinear_matmul_reference",
        [helper.make_tensor_value_info(name, _onnx_elem_type(x.dtype), list(x.shape)) for name, x in inputs.items()],
        [helper.make_tensor_value_info(output_name, _onnx_elem_type(output_dtype), None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    if runtime == "onnxruntime":
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.log_severity_level = 3
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        # onnxruntime's Python API does not know ml_dtypes' float8 arrays: they travel as their bit patterns
        # with the ONNX element type attached.
        feeds = {}
        for name, x in inputs.items():
            x = np.ascontiguousarray(x)
            if _is_float8(x.dtype):
                feeds[name] = ort.OrtValue.ortvalue_from_numpy_with_onnx_type(x.view(np.uint8),
                                                                              _onnx_elem_type(x.dtype))
            else:
                feeds[name] = ort.OrtValue.ortvalue_from_numpy(x)
        return session.run_with_ort_values([output_name], feeds)[0].numpy()
    from onnx.reference import ReferenceEvaluator

    return ReferenceEvaluator(model).run(None, dict(inputs))[0]


QLINEAR_MATMUL_INPUTS = ("a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point")


def run_ort_qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point):
    """One QLinearMatMul node (opset 21) in onnxruntime's CPU provider."""
    from onnx import helper

    values = dict(zip(QLINEAR_MATMUL_INPUTS, (a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
                                              y_zero_point)))
    node = helper.make_node("QLinearMatMul", list(QLINEAR_MATMUL_INPUTS), ["y"])
    return _run_onnx_model([node], values, "y", y_zero_point.dtype, runtime="onnxruntime")


def run_dq_matmul_q_oracle(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point,
                           *, a_axis=None, b_axis=None, runtime="onnx.reference"):
    """DequantizeLinear(a), DequantizeLinear(b) -> MatMul in float64 -> QuantizeLinear(saturate=1) (docs/references.md#onnx-reference-qlinearmatmul).

    a_axis / b_axis: the axis of a 1-D per-row (a) / per-column (b) parameter (DequantizeLinear's axis).
    """
    from onnx import TensorProto, helper

    def dq(x, scale, zp, axis, out):
        kwargs = {} if axis is None else {"axis": axis}
        return helper.make_node("DequantizeLinear", [x, scale, zp], [out], **kwargs)

    nodes = [
        dq("a", "a_scale", "a_zero_point", a_axis, "a_real"),
        dq("b", "b_scale", "b_zero_point", b_axis, "b_real"),
        helper.make_node("Cast", ["a_real"], ["a_real64"], to=TensorProto.DOUBLE),
        helper.make_node("Cast", ["b_real"], ["b_real64"], to=TensorProto.DOUBLE),
        helper.make_node("MatMul", ["a_real64", "b_real64"], ["c64"]),
        helper.make_node("Cast", ["c64"], ["c"], to=_onnx_elem_type(y_scale.dtype)),
        helper.make_node("QuantizeLinear", ["c", "y_scale", "y_zero_point"], ["y"], saturate=1),
    ]
    values = dict(zip(QLINEAR_MATMUL_INPUTS, (a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
                                              y_zero_point)))
    if runtime == "onnxruntime" and _is_float8(y_zero_point.dtype):
        # onnxruntime cannot hand most float8 outputs to numpy: widen in the graph (exact), narrow back here.
        nodes.append(helper.make_node("Cast", ["y"], ["y_float"], to=TensorProto.FLOAT))
        y_float = _run_onnx_model(nodes, values, "y_float", np.float32, runtime=runtime)
        return y_float.astype(y_zero_point.dtype)
    return _run_onnx_model(nodes, values, "y", y_zero_point.dtype, runtime=runtime)


def exact_qlinear_matmul_reference(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point):
    """Integer QLinearMatMul written from the spec and docs/references.md#decision-qlinearmatmul with int64 numpy, for small sizes only.

    Parameters: per tensor, per row of a ([M] or [..., M, 1]), per column of b ([N] or [..., 1, N]), y's
    broadcast to the output. acc is the exact int64 sum, then wrapped to int32 by Python integer arithmetic.
    """
    a2 = a if a.ndim >= 2 else a[None, :]
    b2 = b if b.ndim >= 2 else b[:, None]
    m = a2.shape[-2]

    def param(p):  # a parameter describes its tensor: leading 1s never add output dimensions
        p = np.asarray(p)
        while p.ndim and p.shape[0] == 1:
            p = p[0]
        return p

    def row_param(p):  # [M] -> [M, 1]; everything else already broadcasts against [..., M, K]
        p = param(p)
        return p.reshape(m, 1) if (p.ndim == 1 and p.shape[0] == m and m != 1) else p

    a_diff = a2.astype(np.int64) - row_param(a_zero_point).astype(np.int64)
    b_diff = b2.astype(np.int64) - param(b_zero_point).astype(np.int64)
    acc = np.einsum("...mk,...kn->...mn", a_diff, b_diff)
    if acc.size:
        acc = np.vectorize(lambda v: ((int(v) + 2 ** 31) % 2 ** 32) - 2 ** 31, otypes=[np.int64])(acc)
    scale_product = row_param(a_scale).astype(np.float32) * param(b_scale).astype(np.float32)
    scale_product = np.broadcast_to(scale_product, acc.shape)

    # Back to numpy.matmul's output shape (the unit M or N axis of a vector operand removed).
    out_shape = acc.shape[:-2] + ((m,) if a.ndim >= 2 else ()) + ((b2.shape[-1],) if b.ndim >= 2 else ())
    acc, scale_product = acc.reshape(out_shape), scale_product.reshape(out_shape)

    mult = (scale_product / param(y_scale).astype(np.float32)).astype(np.float32)
    value = np.rint(acc.astype(np.float32) * mult)
    value = value.astype(np.float64) + param(y_zero_point).astype(np.float64)
    y_type = np.dtype(y_zero_point.dtype)
    info = np.iinfo(y_type)
    return np.clip(value, info.min, info.max).astype(y_type)


@pytest.fixture(scope="session")
def ort_qlinear_matmul():
    return run_ort_qlinear_matmul


@pytest.fixture(scope="session")
def dq_matmul_q_oracle():
    return run_dq_matmul_q_oracle


@pytest.fixture(scope="session")
def exact_qlinear_matmul():
    return exact_qlinear_matmul_reference
