"""quant_matmul, the CPU reference: a quantized matrix product with a float output (the W8A8 matmul).

a and b are 8-bit integers with scales and zero points; the integer product is accumulated exactly, corrected
for the zero points, and dequantized to float32, float16 or bfloat16 (no requantization). This is the dynamic
int8 inference flow of the oneDNN quantization tutorial (a uint8 with a zero point times b int8, float32 C) and
of W8A8 LLM serving (per-token int8 activations times per-channel int8 weights, float16 / bfloat16 C).
onnxruntime's com.microsoft.MatMulIntegerToFloat computes the same where it is defined (see "References"; the
decisions: docs/references.md#decision-quant-matmul). The emulator and NPU backends are checked against this
module.

Inputs (numpy arrays or numpy scalars; any strides, so b may be the transposed view of an [N, K] weight)
    a, b                  int8 or uint8, any combination. Rank >= 1; numpy.matmul rules: a [..., M, K] or [K],
                          b [..., K, N] or [K], batch dimensions broadcast.
    a_zero_point          None (0) or of a's dtype; b_zero_point None (0, symmetric) or of b's dtype.
    a_scale, b_scale      float32, float16 or bfloat16, each its own type; widened to float32 (exact) first.
    bias                  None or float32, float16 or bfloat16, widened to float32 (exact).
    out_dtype             "float32" (default; None means it too), "float16" or "bfloat16" (a name, a numpy or
                          torch dtype).

Parameter shapes. Leading dimensions of size 1 never change what a parameter means, and a scale and its zero
point choose their layouts independently (e.g. per-row scales with a per-tensor zero point):
    a_scale, a_zero_point   per tensor: [] or [1];  per row (per token): [M], [..., M, 1], or a's shape without
                            its last dimension, [..., M] (a [B, S, K] takes [B, S]); batch parts broadcast to a's.
    b_scale, b_zero_point   per tensor: [] or [1];  per column (per channel): [N], or [..., 1, N] whose batch part
                            broadcasts to b's.
    bias                    per tensor: [] or [1];  per column: [N], or [..., 1, N] whose batch part broadcasts to
                            the output's.
A parameter of a or b that varies along K is refused: a per-K scale cannot be taken out of the sum over K.
A vector operand (1-D a or b) takes per-tensor parameters only (a 1-D b leaves the output without columns, so the
bias is per tensor too).

Arithmetic, in this order, for every output element [..., m, n] (s_a = a_scale[..., m], s_b = b_scale[..., n],
z_a = a_zero_point[..., m], z_b = b_zero_point[..., n], all parameters broadcast to their rows / columns):

    acc = sum over k of (a[..., m, k] - z_a) * (b[..., k, n] - z_b)
          the exact integer sum, wrapped modulo 2^32 into int32 (two's complement). This is what ONNX's
          "accumulation may overflow if and only if in 32 bits" means, and what an int32 accumulator with the
          zero-point decomposition sum(a*b) - z_a*sum(b) - z_b*sum(a) + K*z_a*z_b (wrapping int32 arithmetic)
          gives. It wraps only for K >= 33,026 with operands at their extremes (255 * 255 * K > 2^31 - 1).
    s   = float32(s_a * s_b)              one rounding: the float32 product of the two float32 scales, formed
                                          per element from the row's and the column's scale
    v   = float32(acc) * s                float32(acc) is the correctly rounded int32 -> float32 conversion (round
                                          to nearest even; exact while |acc| <= 2^24), then one float32 multiply
    v   = v + bias[..., n]                one float32 addition; without a bias nothing is added (no + 0.0, so a
                                          zero product keeps its sign)
    y   = out_dtype(v)                    one round-to-nearest-even conversion (none for float32)

Every float step is one correctly rounded IEEE operation, so the result is fully determined (no FMA: the multiply
and the add round separately). IEEE semantics throughout, nothing is checked by value: zero scales give 0
(+ bias), which is what DynamicQuant's zero-scale rows need; NaN and Inf scales or biases propagate (0 * Inf =
NaN); results beyond the output type's range become +-Inf (float16 above 65504, float32 / bfloat16 above about
3.4e38), as IEEE conversion does.

Edge cases. K = 0: acc = 0, so y = 0 * s (+ bias). M, N or a batch dimension of 0: an empty output of the right
shape. 1-D operands follow numpy.matmul (a vector times a vector gives a 0-d result).

References. onnxruntime's MatMulIntegerToFloat (CPU; docs/references.md#onnxruntime-matmulintegertofloat) forms
float32(a_scale * b_scale) per tensor or per column, multiplies float32(acc) by it and then adds the bias, in this
order: for a per-tensor a_scale and a_zero_point it equals this definition bit for bit. For a per-row a_scale it multiplies by a_scale afterwards, as a separate
float32 step ((float32(acc) * s_b + bias) * s_a): without a bias that differs from this definition by at most 2
units in the last place of the larger result (tests/golden/test_quant_matmul_onnxruntime.py derives the bound);
with a bias it also scales the bias, which this definition does not.

Bad input raises ascend_quant_ops.errors.DTypeError (dtypes) or ConstraintError (everything else), naming the
argument, what was expected and what was given.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from .._opnames import QUANT_MATMUL as OP
from ..errors import DTypeError
from . import _matmul_operands as operands
from ._exact_gemm import zero_point_matmul

#: the argument names, in order (bias is keyword-only in the Python functions)
ARGUMENTS = ("a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "bias")
#: Types of a and b.
OPERAND_TYPES = (dtypes.INT8, dtypes.UINT8)
#: Output types.
OUT_DTYPES = (dtypes.FLOAT32, dtypes.FLOAT16, dtypes.BFLOAT16)
#: Types of the scales and the bias (widened to float32).
PARAMETER_FLOAT_TYPES = (dtypes.FLOAT32, dtypes.FLOAT16, dtypes.BFLOAT16)


def quant_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point=None, *, bias=None,
                 out_dtype="float32") -> np.ndarray:
    """y = out_dtype(float32(acc) * float32(a_scale * b_scale) + bias); see the module docstring."""
    return compute(QuantMatMulOperands(a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias=bias,
                                       out_dtype=out_dtype))


def parse_out_dtype(out_dtype) -> str:
    """The canonical name of an output type (None means float32); DTypeError for anything else."""
    if out_dtype is None:
        return dtypes.FLOAT32
    return dtypes.parse_dtype(out_dtype, op=OP, argument="out_dtype", allowed=OUT_DTYPES)


def validate(a, a_scale, a_zero_point, b, b_scale, b_zero_point=None, *, bias=None,
             out_dtype="float32") -> "QuantMatMulOperands":
    """Check the arguments exactly as quant_matmul does (the same typed errors), without computing; returns the
    validated operands (what `compute` and the other backends take)."""
    return QuantMatMulOperands(a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias=bias, out_dtype=out_dtype)


def compute(o: "QuantMatMulOperands") -> np.ndarray:
    """y of validated operands (no check repeated): the CPU backend's quant_matmul."""
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        acc = zero_point_matmul(o.a, o.a_zero_point, o.b, o.b_zero_point)  # float32(acc), wrapped to int32
        v = acc * (o.a_scale * o.b_scale)  # float32 products: the scales' first, then acc's
        if o.bias is not None:
            v = v + o.bias
        y = v.astype(dtypes.numpy_dtype(o.out_dtype))
    return np.ascontiguousarray(np.broadcast_to(y, o.out_shape_2d)).reshape(o.out_shape)


class QuantMatMulOperands:
    """The validated operands of one quant_matmul call, every parameter reshaped to broadcast in matmul
    coordinates: a [..., M, K], b [..., K, N], output [..., M, N] (a 1-D a is [1, K], a 1-D b is [K, 1]).

    Attributes: a, b (the operands in those coordinates, views of the inputs); a_type, b_type, out_dtype
    (canonical names); a_scale, b_scale (float32); a_zero_point, b_zero_point (of a's / b's dtype, zeros when
    None was given); bias (float32 or None); a_scale_layout, b_scale_layout, a_zero_point_layout,
    b_zero_point_layout, bias_layout ("tensor", "row" or "column", or None for an absent parameter);
    a_param, b_param (the granularity a plan and a kernel read: "row" / "column" when the scale or the zero
    point is, else "tensor"); batch, out_shape_2d, out_shape (numpy.matmul's output shape).
    """

    def __init__(self, a, a_scale, a_zero_point, b, b_scale, b_zero_point=None, *, bias=None, out_dtype="float32"):
        a = operands.as_array(OP, "a", a)
        b = operands.as_array(OP, "b", b)
        self.a_type = dtypes.parse_dtype(a.dtype, op=OP, argument="a", allowed=OPERAND_TYPES)
        self.b_type = dtypes.parse_dtype(b.dtype, op=OP, argument="b", allowed=OPERAND_TYPES)
        self.out_dtype = parse_out_dtype(out_dtype)

        self.batch, self.out_shape_2d, self.out_shape = operands.matmul_shapes(OP, a.shape, b.shape)
        a2, b2 = operands.promoted(a, b)

        def row_layout(name, value):
            return operands.per_row_shape(OP, value, name, a, a2, rows_as_batch=True)

        def column_layout(name, value):
            return operands.per_column_shape(OP, value, name, b, b2)

        self.a_scale, self.a_scale_layout = _scale(a_scale, "a_scale", row_layout, "row")
        self.b_scale, self.b_scale_layout = _scale(b_scale, "b_scale", column_layout, "column")
        self.a_zero_point, self.a_zero_point_layout = _zero_point(a_zero_point, "a_zero_point", "a", self.a_type,
                                                                  row_layout, "row")
        self.b_zero_point, self.b_zero_point_layout = _zero_point(b_zero_point, "b_zero_point", "b", self.b_type,
                                                                  column_layout, "column")
        self.bias, self.bias_layout = None, None
        if bias is not None:
            self.bias, self.bias_layout = _scale(
                bias, "bias", lambda name, value: operands.output_column_shape(OP, value, name, b, self.out_shape_2d),
                "column")
        self.a, self.b = a2, b2
        self.a_param = "row" if "row" in (self.a_scale_layout, self.a_zero_point_layout) else "tensor"
        self.b_param = "column" if "column" in (self.b_scale_layout, self.b_zero_point_layout) else "tensor"


def _scale(value, name: str, layout, per_what: str):
    """A float parameter (scale or bias): (float32 array in matmul coordinates, its layout name)."""
    array = operands.as_array(OP, name, value)
    dtypes.parse_dtype(array.dtype, op=OP, argument=name, allowed=PARAMETER_FLOAT_TYPES)
    shape = layout(name, array)
    return array.astype(np.float32).reshape(shape), _layout_name(shape, per_what)


def _zero_point(value, name: str, data_name: str, data_type: str, layout, per_what: str):
    """A zero point: (array of the data's dtype in matmul coordinates, its layout name); zeros for None."""
    if value is None:
        return np.zeros((1, 1), dtypes.numpy_dtype(data_type)), None
    array = operands.as_array(OP, name, value)
    zp_type = dtypes.dtype_name(array.dtype)
    if zp_type != data_type:
        raise DTypeError(OP, name, f"a zero point must have the dtype of {data_name}", expected=data_type,
                         actual=str(array.dtype),
                         suggestion=f"Pass {name} with dtype {data_type}, {data_name}'s (a numpy array or a tensor), "
                                    "or None for 0.")
    shape = layout(name, array)
    return array.reshape(shape), _layout_name(shape, per_what)


def _layout_name(shape, per_what: str) -> str:
    return "tensor" if all(d == 1 for d in shape) else per_what

