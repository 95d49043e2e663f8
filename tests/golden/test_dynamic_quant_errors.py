"""DynamicQuant golden: every bad input is refused with a typed error naming op, argument, expected, actual."""
import ml_dtypes
import numpy as np
import pytest

from ascend_quant_ops.errors import ConstraintError, DTypeError
from ascend_quant_ops.golden.dynamic_quant import dynamic_quant

F16 = np.float16
BF16 = ml_dtypes.bfloat16


def x16(*shape):
    return np.ones(shape or (2, 4), F16)


# (id, call kwargs, error type, argument, text the message must show as the actual value)
CASES = [
    ("x float32", dict(x=np.ones((2, 4), np.float32)), DTypeError, "x", "float32"),
    ("x float64", dict(x=np.ones((2, 4))), DTypeError, "x", "float64"),
    ("x int8", dict(x=np.ones((2, 4), np.int8)), DTypeError, "x", "int8"),
    ("x int32", dict(x=np.ones((2, 4), np.int32)), DTypeError, "x", "int32"),
    ("x float8_e4m3fn", dict(x=np.ones((2, 4), ml_dtypes.float8_e4m3fn)), DTypeError, "x", "float8_e4m3fn"),
    ("x complex", dict(x=np.ones((2, 4), np.complex64)), DTypeError, "x", "complex64"),
    ("x object", dict(x=np.array([[1, "a"]], object)), DTypeError, "x", "object"),
    ("x list", dict(x=[[1.0, 2.0]]), ConstraintError, "x", "list"),
    ("x None", dict(x=None), ConstraintError, "x", "NoneType"),
    ("x rank 1", dict(x=np.ones(4, F16)), ConstraintError, "x", "rank 1"),
    ("x rank 0", dict(x=np.array(1.0, F16)), ConstraintError, "x", "rank 0"),
    ("smooth float32", dict(x=x16(), smooth_scales=np.ones(4, np.float32)), DTypeError, "smooth_scales",
     "float32"),
    ("smooth bf16 for f16 x", dict(x=x16(), smooth_scales=np.ones(4, BF16)), DTypeError, "smooth_scales",
     "bfloat16"),
    ("smooth f16 for bf16 x", dict(x=np.ones((2, 4), BF16), smooth_scales=np.ones(4, F16)), DTypeError,
     "smooth_scales", "float16"),
    ("smooth shape [H+1]", dict(x=x16(), smooth_scales=np.ones(5, F16)), ConstraintError, "smooth_scales",
     "[5]"),
    ("smooth shape [1, H]", dict(x=x16(), smooth_scales=np.ones((1, 4), F16)), ConstraintError,
     "smooth_scales", "[1, 4]"),
    ("smooth scalar", dict(x=x16(), smooth_scales=np.array(1.0, F16)), ConstraintError, "smooth_scales",
     "[]"),
    ("smooth shape of x", dict(x=x16(), smooth_scales=x16()), ConstraintError, "smooth_scales", "[2, 4]"),
    ("smooth list", dict(x=x16(), smooth_scales=[1.0] * 4), ConstraintError, "smooth_scales", "list"),
    ("dst int4 name", dict(x=x16(), dst_type="int4"), DTypeError, "dst_type", "'int4'"),
    ("dst ATB code 29 (int4)", dict(x=x16(), dst_type=29), DTypeError, "dst_type", "29"),
    ("dst ATB code 3", dict(x=x16(), dst_type=3), DTypeError, "dst_type", "3"),
    ("dst float16", dict(x=x16(), dst_type="float16"), DTypeError, "dst_type", "'float16'"),
    ("dst uint8", dict(x=x16(), dst_type=np.uint8), DTypeError, "dst_type", "uint8"),
    ("dst float8_e4m3fnuz", dict(x=x16(), dst_type="float8_e4m3fnuz"), DTypeError, "dst_type",
     "float8_e4m3fnuz"),
    ("dst None", dict(x=x16(), dst_type=None), DTypeError, "dst_type", "None"),
    ("dst True", dict(x=x16(), dst_type=True), DTypeError, "dst_type", "True"),
    ("dst misspelt", dict(x=x16(), dst_type="int_8"), DTypeError, "dst_type", "'int_8'"),
    ("asymmetric string", dict(x=x16(), asymmetric="yes"), ConstraintError, "asymmetric", "'yes'"),
    ("asymmetric int", dict(x=x16(), asymmetric=1), ConstraintError, "asymmetric", "1"),
    ("asymmetric None", dict(x=x16(), asymmetric=None), ConstraintError, "asymmetric", "None"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_with_a_typed_error(case):
    _, kwargs, error_type, argument, actual_text = case
    kwargs = dict(kwargs)
    x = kwargs.pop("x")
    smooth = kwargs.pop("smooth_scales", None)
    with pytest.raises(error_type) as info:
        dynamic_quant(x, smooth, **kwargs)
    err = info.value
    assert err.op == "dynamic_quant" and err.argument == argument
    message = str(err)
    assert "dynamic_quant" in message and f"'{argument}'" in message
    assert "got" in message and actual_text in message, message
    assert err.expected is not None or err.limit is not None, message


def test_error_classes_are_value_and_type_errors():
    with pytest.raises(ValueError):
        dynamic_quant(np.ones(4, F16))
    with pytest.raises(TypeError):
        dynamic_quant(np.ones((2, 4), np.float32))


def test_messages_say_what_would_work():
    with pytest.raises(ConstraintError) as info:
        dynamic_quant(np.ones(4, F16))
    assert "[1, H]" in str(info.value)
    with pytest.raises(DTypeError) as info:
        dynamic_quant(np.ones((2, 4), np.float32))
    assert "float16" in str(info.value) and "bfloat16" in str(info.value)
    with pytest.raises(DTypeError) as info:
        dynamic_quant(x16(), dst_type=29)
    for code in ("2", "34", "35", "36"):
        assert code in str(info.value)
    with pytest.raises(ConstraintError) as info:
        dynamic_quant(x16(), np.ones(5, F16))
    assert "[4]" in str(info.value)


def test_torch_tensor_is_refused_with_a_pointer_to_the_public_api():
    torch = pytest.importorskip("torch")
    with pytest.raises(ConstraintError) as info:
        dynamic_quant(torch.ones(2, 4, dtype=torch.float16))
    assert info.value.argument == "x" and "Tensor" in str(info.value)
    assert "ascend_quant_ops.dynamic_quant" in str(info.value)


def test_valid_spellings_are_not_refused():
    """The boundary of the checks: numpy bools, every dst type, smooth of the right shape and dtype."""
    for dst in ("int8", "hifloat8", "float8_e4m3fn", "float8_e5m2", 2, 34, 35, 36):
        dynamic_quant(x16(), np.ones(4, F16), dst_type=dst, asymmetric=np.bool_(True))
    dynamic_quant(np.ones((1, 1), BF16), np.ones(1, BF16))
