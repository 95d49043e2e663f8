"""QLinearMatMul: the kernel in the emulator against onnxruntime itself (an independent implementation), on the
type combinations onnxruntime's CPU kernel implements (u8u8u8, u8s8u8, s8s8s8;
docs/references.md#onnxruntime-qlinearmatmul), with per-tensor and per-column b parameters, a batch, and sizes that
are multiples of no tile. (For u8 x s8 on x86 without VNNI, onnxruntime saturates pairs of products to int16 and
is then not exact; the test keeps b where it is.)"""
from __future__ import annotations

import importlib
import numpy as np
import pytest

import onnxruntime as ort
import onnx
emu = importlib.import_module("ascend_quant_ops.emulator.qlinear_matmul")

from onnx import TensorProto, helper  # noqa: E402

_TP = {np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int8): TensorProto.INT8,
       np.dtype(np.float32): TensorProto.FLOAT}


def _run_ort(*inputs):
    names = ["a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"]
    y_type = _TP[np.asarray(inputs[7]).dtype]
    graph = helper.make_graph(
        [helper.make_node("QLinearMatMul", names, ["y"])], "qmm",
        [helper.make_tensor_value_info(n, _TP[np.asarray(x).dtype], list(np.shape(x))) for n, x in zip(names, inputs)],
        [helper.make_tensor_value_info("y", y_type, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 10)])
    model.ir_version = 7
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {n: np.asarray(x) for n, x in zip(names, inputs)})[0]


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p"])
@pytest.mark.parametrize("at,bt", [(np.uint8, np.uint8), (np.uint8, np.int8), (np.int8, np.int8)])
@pytest.mark.parametrize("per_column", [False, True])
def test_emulator_equals_onnxruntime(soc, at, bt, per_column):
    rng = np.random.default_rng(17)
    yt = at  # onnxruntime: y has a's type in all three combinations
    a = rng.integers(np.iinfo(at).min, int(np.iinfo(at).max) + 1, (3, 37, 90)).astype(at)
    b = rng.integers(np.iinfo(bt).min, int(np.iinfo(bt).max) + 1, (90, 53)).astype(bt)
    if at is np.uint8 and bt is np.int8:
        # x86 without VNNI: onnxruntime's u8 x s8 kernel adds pairs of products in saturating int16
        # (docs/references.md#onnxruntime-qlinearmatmul), so
        # it is exact only while 2 * 255 * |b| <= 32767: keep |b| <= 64 for it to be a reference.
        b = rng.integers(-64, 64, (90, 53)).astype(bt)
    a_s = np.array([0.02], np.float32)
    a_z = np.array([int(rng.integers(0, 100))], at)
    if per_column:
        b_s = rng.uniform(0.01, 0.03, 53).astype(np.float32)
        b_z = rng.integers(0, 100, 53).astype(bt)
    else:
        b_s = np.array([0.025], np.float32)
        b_z = np.array([int(rng.integers(0, 100))], bt)
    # y_scale from the accumulator's range, so that the outputs spread over y's range instead of saturating.
    acc = (a.astype(np.int64) - a_z.astype(np.int64)) @ (b.astype(np.int64) - b_z.astype(np.int64))
    y_s = np.array([0.02 * float(np.median(b_s)) * float(np.abs(acc).max()) / 100], np.float32)
    y_z = np.array([128 if yt is np.uint8 else 0], yt)
    args = (a, a_s, a_z, b, b_s, b_z, y_s, y_z)
    expected = _run_ort(*args)
    y = emu.qlinear_matmul(*args, soc=soc)
    assert y.dtype == expected.dtype and y.shape == expected.shape
    np.testing.assert_array_equal(y, expected)
    assert len(np.unique(expected)) > 20
