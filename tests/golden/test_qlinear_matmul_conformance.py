"""QLinearMatMul golden against the published test vectors: ONNX's backend node tests and onnxruntime's unit tests.

The ONNX cases come from the generator shipped in the installed onnx package
(onnx/backend/test/case/node/qlinearmatmul.py): importing it records every case (inputs and the expected output
written in the generator) in onnx's node test-case list. (The installed wheel does not ship the protobufs
generated from it, onnx/backend/test/data/node/test_qlinearmatmul_*; they hold these same arrays.)
The onnxruntime vectors are transcribed in tests/data/ort_qlinearmatmul_cases.json (source noted there).
"""
from __future__ import annotations

import json
import pathlib

import ml_dtypes  # noqa: F401  (registers the float8 / bfloat16 numpy dtypes)
import numpy as np
import pytest

from ascend_quant_ops.golden.qlinear_matmul import qlinear_matmul

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"


def _onnx_backend_cases():
    import onnx.backend.test.case.node as node_cases
    import onnx.backend.test.case.node.qlinearmatmul  # noqa: F401  (records its cases on import)

    return [c for c in node_cases._NodeTestCases
            if c.name.startswith("test_qlinearmatmul_") and not c.name.endswith("_expanded")]


ONNX_CASES = _onnx_backend_cases()


def test_onnx_backend_has_the_eight_cases():
    names = sorted(c.name for c in ONNX_CASES)
    assert names == sorted(f"test_qlinearmatmul_{d}_{q}_{s}" for d in ("2D", "3D") for q in ("uint8", "int8")
                           for s in ("float32", "float16"))


@pytest.mark.parametrize("case", ONNX_CASES, ids=lambda c: c.name)
def test_onnx_backend_case(case):
    (inputs, outputs), = case.data_sets
    y = qlinear_matmul(*inputs)
    assert y.dtype == outputs[0].dtype
    assert y.shape == outputs[0].shape
    np.testing.assert_array_equal(y, outputs[0])


def _array(spec):
    return np.array(spec["values"], dtype=np.dtype(spec["dtype"])).reshape(spec["shape"])


ORT_DOC = json.loads((DATA / "ort_qlinearmatmul_cases.json").read_text())


def test_ort_vectors_cover_the_eleven_unit_tests():
    assert "quantize_linear_matmul_test.cc" in ORT_DOC["source"]
    assert len({c["test"] for c in ORT_DOC["cases"]}) == 11


@pytest.mark.parametrize("case", ORT_DOC["cases"], ids=lambda c: c["name"])
def test_onnxruntime_unit_test_vector(case):
    inputs = [_array(case["inputs"][name]) for name in
              ("a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point")]
    expected = _array(case["output"])
    y = qlinear_matmul(*inputs)
    assert y.dtype == expected.dtype
    assert y.shape == expected.shape
    np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize("case", ORT_DOC["cases"], ids=lambda c: c["name"])
def test_onnxruntime_itself_reproduces_its_vectors(case, ort_qlinear_matmul):
    # Guards the transcription and the ORT harness used by the property tests: the installed onnxruntime must
    # give the transcribed outputs too.
    inputs = [_array(case["inputs"][name]) for name in
              ("a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point")]
    np.testing.assert_array_equal(ort_qlinear_matmul(*inputs), _array(case["output"]))
