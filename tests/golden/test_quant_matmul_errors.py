"""quant_matmul golden: every refusal is typed and names the op and the argument, with expected and actual."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ascend_quant_ops.errors import ConstraintError, DTypeError
from ascend_quant_ops.golden.quant_matmul import quant_matmul

f32 = np.float32
NAMES = ("a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point")


def good(**overrides):
    """A valid u8 x s8 problem, M = 3, K = 4, N = 5, with some arguments replaced; returns (args, kwargs)."""
    args = dict(a=np.ones((3, 4), np.uint8), a_scale=np.asarray(f32(0.1)), a_zero_point=np.asarray(np.uint8(1)),
                b=np.ones((4, 5), np.int8), b_scale=np.asarray(f32(0.2)), b_zero_point=None)
    kwargs = dict(bias=None, out_dtype="float32")
    for name, value in overrides.items():
        (kwargs if name in kwargs else args)[name] = value
    return [args[n] for n in NAMES], kwargs


def test_the_baseline_is_valid():
    args, kwargs = good()
    assert quant_matmul(*args, **kwargs).shape == (3, 5)


CASES = [
    # (id, overrides, error type, argument, words the message must contain)
    ("a_float32", dict(a=np.ones((3, 4), f32)), DTypeError, "a", ["float32", "int8 / uint8"]),
    ("a_float8", dict(a=np.ones((3, 4), ml_dtypes.float8_e4m3fn)), DTypeError, "a", ["float8_e4m3fn"]),
    ("b_int32", dict(b=np.ones((4, 5), np.int32)), DTypeError, "b", ["int32"]),
    ("a_zp_dtype", dict(a_zero_point=np.asarray(np.int8(1))), DTypeError, "a_zero_point", ["int8", "uint8"]),
    ("b_zp_dtype", dict(b_zero_point=np.asarray(np.uint8(0))), DTypeError, "b_zero_point", ["uint8", "int8"]),
    ("a_scale_int", dict(a_scale=np.asarray(np.int32(1))), DTypeError, "a_scale", ["int32", "float32"]),
    ("b_scale_float64", dict(b_scale=np.asarray(np.float64(0.2))), DTypeError, "b_scale",
     ["float64", "float32 / float16 / bfloat16"]),
    ("b_scale_int64_packed", dict(b_scale=np.ones(5, np.int64)), DTypeError, "b_scale", ["int64"]),
    ("bias_int32", dict(bias=np.zeros(5, np.int32)), DTypeError, "bias", ["int32", "float32"]),
    ("out_dtype_int8", dict(out_dtype="int8"), DTypeError, "out_dtype", ["int8", "float32 / float16 / bfloat16"]),
    ("out_dtype_float64", dict(out_dtype=np.float64), DTypeError, "out_dtype", ["float64"]),
    ("out_dtype_unknown", dict(out_dtype="float33"), DTypeError, "out_dtype", ["float33"]),
    ("a_python_list", dict(a=[[1, 2, 3, 4]]), ConstraintError, "a", ["list", "ndarray"]),
    ("a_scale_python_float", dict(a_scale=0.1), ConstraintError, "a_scale", ["float", "ndarray"]),
    ("bias_python_list", dict(bias=[0.0] * 5), ConstraintError, "bias", ["list"]),
    ("a_rank0", dict(a=np.asarray(np.uint8(3))), ConstraintError, "a", ["rank"]),
    ("k_mismatch", dict(b=np.ones((3, 5), np.int8)), ConstraintError, "b", ["K = 4", "3"]),
    ("batch_not_broadcastable", dict(a=np.ones((2, 3, 4), np.uint8), b=np.ones((3, 4, 5), np.int8)),
     ConstraintError, "b", ["broadcast", "[2]", "[3]"]),
    ("a_scale_varies_along_k", dict(a_scale=np.ones((1, 4), f32)), ConstraintError, "a_scale", ["varies along K"]),
    ("a_scale_1d_length_k", dict(a_scale=np.ones(4, f32)), ConstraintError, "a_scale", ["varies along K", "[M]"]),
    ("a_zp_varies_along_k", dict(a_zero_point=np.ones((3, 4), np.uint8)), ConstraintError, "a_zero_point",
     ["varies along K"]),
    ("b_scale_varies_along_k", dict(b_scale=np.ones((4, 1), f32)), ConstraintError, "b_scale", ["varies along K"]),
    ("b_scale_full_matrix", dict(b_scale=np.ones((4, 5), f32)), ConstraintError, "b_scale", ["varies along K"]),
    ("a_scale_wrong_length", dict(a_scale=np.ones(7, f32)), ConstraintError, "a_scale", ["per row", "[7]"]),
    ("b_scale_wrong_length", dict(b_scale=np.ones(7, f32)), ConstraintError, "b_scale", ["per column", "[7]"]),
    ("a_scale_wrong_rows", dict(a_scale=np.ones((2, 1), f32)), ConstraintError, "a_scale", ["per row", "[2, 1]"]),
    ("a_scale_rows_batch_not_of_a", dict(a=np.ones((2, 3, 4), np.uint8), a_scale=np.ones((5, 3), f32)),
     ConstraintError, "a_scale", ["per row", "[5, 3]", "[2, 3]"]),
    ("b_scale_batch_not_of_b", dict(b_scale=np.ones((2, 1, 5), f32)), ConstraintError, "b_scale",
     ["batch", "[2, 1, 5]"]),
    ("a_vector_per_row", dict(a=np.ones(4, np.uint8), a_scale=np.ones(2, f32)), ConstraintError, "a_scale",
     ["vector", "per tensor"]),
    ("b_vector_per_column", dict(b=np.ones(4, np.int8), b_scale=np.ones(3, f32)), ConstraintError, "b_scale",
     ["vector", "per tensor"]),
    ("bias_per_row", dict(bias=np.ones((3, 1), f32)), ConstraintError, "bias", ["per column", "[3, 1]"]),
    ("bias_wrong_length", dict(bias=np.ones(4, f32)), ConstraintError, "bias", ["per column", "[4]"]),
    ("bias_full_output", dict(bias=np.ones((3, 5), f32)), ConstraintError, "bias", ["per column", "[3, 5]"]),
    ("bias_batch_not_of_output", dict(bias=np.ones((2, 1, 5), f32)), ConstraintError, "bias", ["batch", "[]"]),
    ("bias_with_vector_b", dict(b=np.ones(4, np.int8), bias=np.ones(5, f32)), ConstraintError, "bias",
     ["vector", "per tensor"]),
    ("a_none", dict(a=None), ConstraintError, "a", ["NoneType"]),
    ("a_scale_none", dict(a_scale=None), ConstraintError, "a_scale", ["NoneType"]),
]


@pytest.mark.parametrize("overrides,error,argument,words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_refused_with_a_typed_error(overrides, error, argument, words):
    args, kwargs = good(**overrides)
    with pytest.raises(error) as info:
        quant_matmul(*args, **kwargs)
    e = info.value
    assert e.op == "quant_matmul"
    assert e.argument == argument
    message = str(e)
    assert message.startswith(f"quant_matmul: argument '{argument}'")
    assert e.actual is not None
    assert e.expected is not None or e.limit is not None
    for word in words:
        assert word.lower() in message.lower(), (word, message)


def test_dtype_errors_are_type_errors_and_constraint_errors_value_errors():
    args, kwargs = good(a=np.ones((3, 4), f32))
    with pytest.raises(TypeError):
        quant_matmul(*args, **kwargs)
    args, kwargs = good(a_scale=np.ones(7, f32))
    with pytest.raises(ValueError):
        quant_matmul(*args, **kwargs)


def test_accepted_spellings_and_independent_layouts():
    # per-row scales with a per-tensor zero point (and the reverse), per-column scale with no zero point,
    # float16 / bfloat16 scales and bias of different types, a.shape[:-1] per-token scales of a 3-D a
    for a_scale, a_zp in ((np.ones(3, f32), np.uint8(1)), (np.float16(1), np.ones((3, 1), np.uint8)),
                          (np.ones((1, 3, 1), ml_dtypes.bfloat16), None)):
        args, kwargs = good(a_scale=a_scale, a_zero_point=a_zp, b_scale=np.ones(5, np.float16),
                            bias=np.ones((1, 5), ml_dtypes.bfloat16), out_dtype="bf16")
        y = quant_matmul(*args, **kwargs)
        assert y.shape == (3, 5) and y.dtype == ml_dtypes.bfloat16
    args, kwargs = good(a=np.ones((2, 3, 4), np.uint8), a_scale=np.ones((2, 3), f32),
                        a_zero_point=np.ones((2, 3), np.uint8), bias=np.ones((2, 1, 5), f32))
    assert quant_matmul(*args, **kwargs).shape == (2, 3, 5)
