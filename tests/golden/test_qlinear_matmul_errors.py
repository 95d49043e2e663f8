"""QLinearMatMul golden: every refusal is typed and names the op and the argument, with expected and actual."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ascend_quant_ops.errors import ConstraintError, DTypeError
from ascend_quant_ops.golden.qlinear_matmul import qlinear_matmul

f32 = np.float32
NAMES = ("a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point")


def good(**overrides):
    """A valid u8 x s8 -> u8 problem, M = 3, K = 4, N = 5, with some arguments replaced."""
    args = dict(a=np.ones((3, 4), np.uint8), a_scale=np.asarray(f32(0.1)), a_zero_point=np.asarray(np.uint8(1)),
                b=np.ones((4, 5), np.int8), b_scale=np.asarray(f32(0.2)), b_zero_point=np.asarray(np.int8(0)),
                y_scale=np.asarray(f32(0.3)), y_zero_point=np.asarray(np.uint8(2)))
    args.update(overrides)
    return [args[n] for n in NAMES]


def test_the_baseline_is_valid():
    assert qlinear_matmul(*good()).shape == (3, 5)


CASES = [
    # (id, overrides, error type, argument, words the message must contain)
    ("a_float32", dict(a=np.ones((3, 4), f32)), DTypeError, "a", ["float32", "uint8"]),
    ("a_int32", dict(a=np.ones((3, 4), np.int32)), DTypeError, "a", ["int32"]),
    ("b_hifloat8_not_onnx", dict(b=np.ones((4, 5), np.float16)), DTypeError, "b", ["float16"]),
    ("a_bool", dict(a=np.ones((3, 4), bool)), DTypeError, "a", ["bool"]),
    ("a_zp_dtype", dict(a_zero_point=np.asarray(np.int8(1))), DTypeError, "a_zero_point", ["int8", "uint8"]),
    ("b_zp_dtype", dict(b_zero_point=np.asarray(np.uint8(0))), DTypeError, "b_zero_point", ["uint8", "int8"]),
    ("y_zp_int32", dict(y_zero_point=np.asarray(np.int32(0))), DTypeError, "y_zero_point", ["int32"]),
    ("a_scale_int", dict(a_scale=np.asarray(np.int32(1))), DTypeError, "a_scale", ["int32", "float32"]),
    ("b_scale_float64", dict(b_scale=np.asarray(np.float64(0.2))), DTypeError, "b_scale", ["float64"]),
    ("y_scale_uint8", dict(y_scale=np.asarray(np.uint8(1))), DTypeError, "y_scale", ["uint8"]),
    ("mixed_scale_types", dict(b_scale=np.asarray(np.float16(0.2))), DTypeError, "b_scale", ["float16", "float32"]),
    ("a_python_list", dict(a=[[1, 2, 3, 4]]), ConstraintError, "a", ["list", "ndarray"]),
    ("y_scale_python_float", dict(y_scale=0.3), ConstraintError, "y_scale", ["float", "ndarray"]),
    ("a_rank0", dict(a=np.asarray(np.uint8(3))), ConstraintError, "a", ["rank"]),
    ("b_rank0", dict(b=np.asarray(np.int8(3))), ConstraintError, "b", ["rank"]),
    ("k_mismatch", dict(b=np.ones((3, 5), np.int8)), ConstraintError, "b", ["K = 4", "3"]),
    ("k_mismatch_vector_b", dict(b=np.ones(5, np.int8)), ConstraintError, "b", ["K = 4", "5"]),
    ("batch_not_broadcastable", dict(a=np.ones((2, 3, 4), np.uint8), b=np.ones((3, 4, 5), np.int8)),
     ConstraintError, "b", ["broadcast", "[2]", "[3]"]),
    ("a_scale_zero", dict(a_scale=np.asarray(f32(0))), ConstraintError, "a_scale", ["non-zero", "0.0"]),
    ("b_scale_nan", dict(b_scale=np.array([0.1, np.nan, 0.1, 0.1, 0.1], f32), b_zero_point=np.zeros(5, np.int8)),
     ConstraintError, "b_scale", ["finite", "nan", "1 of 5"]),
    ("y_scale_inf", dict(y_scale=np.asarray(f32(np.inf))), ConstraintError, "y_scale", ["finite", "inf"]),
    ("y_scale_neg_inf_bf16", dict(a_scale=np.asarray(ml_dtypes.bfloat16(1)), b_scale=np.asarray(ml_dtypes.bfloat16(1)),
                                  y_scale=np.asarray(ml_dtypes.bfloat16(-np.inf))),
     ConstraintError, "y_scale", ["finite"]),
    ("multiplier_overflow", dict(a_scale=np.asarray(f32(1e30)), b_scale=np.asarray(f32(1e30)),
                                 y_scale=np.asarray(f32(1e-30))), ConstraintError, "y_scale", ["overflows"]),
    ("a_scale_varies_along_k", dict(a_scale=np.ones((1, 4), f32), a_zero_point=np.ones((1, 4), np.uint8)),
     ConstraintError, "a_scale", ["varies along K"]),
    ("a_scale_1d_length_k", dict(a_scale=np.ones(4, f32), a_zero_point=np.ones(4, np.uint8)),
     ConstraintError, "a_scale", ["varies along K", "[M]"]),
    ("b_scale_varies_along_k", dict(b_scale=np.ones((4, 1), f32), b_zero_point=np.zeros((4, 1), np.int8)),
     ConstraintError, "b_scale", ["varies along K"]),
    ("b_scale_full_matrix", dict(b_scale=np.ones((4, 5), f32), b_zero_point=np.zeros((4, 5), np.int8)),
     ConstraintError, "b_scale", ["varies along K"]),
    ("a_scale_wrong_length", dict(a_scale=np.ones(7, f32), a_zero_point=np.ones(7, np.uint8)),
     ConstraintError, "a_scale", ["per row", "[7]"]),
    ("b_scale_wrong_length", dict(b_scale=np.ones(7, f32), b_zero_point=np.zeros(7, np.int8)),
     ConstraintError, "b_scale", ["per column", "[7]"]),
    ("a_scale_wrong_rows", dict(a_scale=np.ones((2, 1), f32), a_zero_point=np.ones((2, 1), np.uint8)),
     ConstraintError, "a_scale", ["per row", "[2, 1]"]),
    ("b_scale_batch_not_of_b", dict(b_scale=np.ones((2, 1, 5), f32), b_zero_point=np.zeros((2, 1, 5), np.int8)),
     ConstraintError, "b_scale", ["batch", "[2, 1, 5]"]),
    ("a_vector_per_row", dict(a=np.ones(4, np.uint8), a_scale=np.ones(2, f32), a_zero_point=np.ones(2, np.uint8)),
     ConstraintError, "a_scale", ["vector", "per tensor"]),
    ("b_vector_per_column", dict(b=np.ones(4, np.int8), b_scale=np.ones(3, f32), b_zero_point=np.zeros(3, np.int8)),
     ConstraintError, "b_scale", ["vector", "per tensor"]),
    ("y_scale_not_broadcastable", dict(y_scale=np.ones(3, f32), y_zero_point=np.ones(3, np.uint8)),
     ConstraintError, "y_scale", ["broadcast", "[3, 5]"]),
    ("zp_shape_differs_from_scale", dict(b_scale=np.ones(5, f32)), ConstraintError, "b_zero_point",
     ["shape", "[5]", "[]"]),
    ("a_zp_shape_differs", dict(a_zero_point=np.ones(3, np.uint8)), ConstraintError, "a_zero_point",
     ["shape", "[3]"]),
    ("float8_nonzero_zero_point", dict(b=np.ones((4, 5), ml_dtypes.float8_e4m3fn),
                                       b_zero_point=np.asarray(ml_dtypes.float8_e4m3fn(1))),
     ConstraintError, "b_zero_point", ["float8", "must be 0", "1.0"]),
    ("float8_output_nonzero_zero_point", dict(y_zero_point=np.asarray(ml_dtypes.float8_e5m2(2))),
     ConstraintError, "y_zero_point", ["must be 0"]),
    ("float8_zp_dtype_mismatch", dict(b=np.ones((4, 5), ml_dtypes.float8_e4m3fn),
                                      b_zero_point=np.asarray(ml_dtypes.float8_e5m2(0))),
     DTypeError, "b_zero_point", ["float8_e5m2", "float8_e4m3fn"]),
    ("a_none", dict(a=None), ConstraintError, "a", ["NoneType"]),
]


@pytest.mark.parametrize("overrides,error,argument,words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_refused_with_a_typed_error(overrides, error, argument, words):
    with pytest.raises(error) as info:
        qlinear_matmul(*good(**overrides))
    e = info.value
    assert e.op == "qlinear_matmul"
    assert e.argument == argument
    message = str(e)
    assert message.startswith(f"qlinear_matmul: argument '{argument}'")
    assert e.actual is not None
    assert e.expected is not None or e.limit is not None
    for word in words:
        assert word.lower() in message.lower(), (word, message)


def test_dtype_errors_are_also_type_errors_and_constraint_errors_value_errors():
    with pytest.raises(TypeError):
        qlinear_matmul(*good(a=np.ones((3, 4), f32)))
    with pytest.raises(ValueError):
        qlinear_matmul(*good(a_scale=np.asarray(f32(0))))


def test_negative_scales_are_accepted():
    y = qlinear_matmul(*good(a_scale=np.asarray(f32(-0.1))))
    assert y.shape == (3, 5)


def test_equivalent_parameter_shapes_are_accepted():
    # [N] scale with a [1, N] zero point (onnxruntime's PerColumn_2D does this), [1] and [1, 1] per tensor,
    # [M, 1] per row, a batch-shaped b parameter that broadcasts to b's batch.
    qlinear_matmul(*good(b_scale=np.ones(5, f32), b_zero_point=np.zeros((1, 5), np.int8)))
    qlinear_matmul(*good(a_scale=np.ones((1, 1), f32), a_zero_point=np.ones(1, np.uint8)))
    qlinear_matmul(*good(a_scale=np.ones((3, 1), f32), a_zero_point=np.ones(3, np.uint8)))
    y = qlinear_matmul(*good(b=np.ones((2, 4, 5), np.int8), b_scale=np.ones((2, 1, 5), f32),
                             b_zero_point=np.zeros((2, 1, 1), np.int8)[:, :, [0, 0, 0, 0, 0]]))
    assert y.shape == (2, 3, 5)
