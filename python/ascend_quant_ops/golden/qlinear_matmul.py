"""QLinearMatMul, the CPU reference: a quantized matrix product that behaves like numpy.matmul.

Spec: ONNX QLinearMatMul opset 21 (docs/references.md#onnx-qlinearmatmul). Where the spec is loose, this follows onnxruntime's
CPU kernel bit for bit (docs/references.md#onnxruntime-qlinearmatmul, docs/references.md#decision-qlinearmatmul). The emulator and NPU backends are checked against this module.

Inputs (numpy arrays or numpy scalars; any strides)
    a, b                    T1 / T2 in {int8, uint8, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz}
                            (ml_dtypes for the float8 types). Rank >= 1; numpy.matmul rules: a [..., M, K] or
                            [K], b [..., K, N] or [K], batch dimensions broadcast.
    a_zero_point            T1; b_zero_point T2; y_zero_point T3, which is the output type.
    a_scale, b_scale,       float32, float16 or bfloat16, all three of one type (ONNX's TS); float16 and
    y_scale                 bfloat16 are widened to float32 (exact) before any arithmetic.

Parameter shapes. A scale and its zero point must have the same shape, up to equivalent spellings of one
layout ([N] and [1, N], [M] and [M, 1]). Leading dimensions of size 1 never change what a parameter means:
    a_*   per tensor: [] or [1] (all ones);  per row: [M], or [..., M, 1] whose batch part broadcasts to a's.
    b_*   per tensor: [] or [1];             per column: [N], or [..., 1, N] whose batch part broadcasts to b's.
    y_*   any shape that broadcasts to the output's shape (per tensor, per row [..., M, 1], per column [N], ...).
A parameter of a or b that varies along K is refused: a per-K scale cannot be taken out of the sum over K.

Arithmetic (every float step is one correctly rounded IEEE float32 operation, in this order)
    acc[..., m, n] = sum over k of (a[..., m, k] - a_zp[..., m]) * (b[..., k, n] - b_zp[..., n])
    mult           = float32(a_scale * b_scale) / y_scale                           (as onnxruntime orders it)
    v              = float32(acc) * mult
  integer output:  y = saturate(round_half_even(v) + y_zp)        -- round first, then add the zero point
  float8 output:   y = saturating cast of v to T3, round to nearest even; +-Inf -> +-max, NaN -> NaN
                   (ONNX QuantizeLinear with saturate=1; y_zp is 0, see below)

  acc when a and b are both integer types: the exact integer sum, wrapped modulo 2^32 into int32 (the spec:
  "accumulation may overflow if and only if in 32 bits"), computed exactly on BLAS (see _exact_gemm); this is
  bit-exact with onnxruntime (u8u8u8, u8s8u8, s8s8s8, which is all it implements).
  acc when a or b is a float8 type: the sum of the products of the float64 differences, accumulated in float64
  (BLAS), then rounded to float32. It is exact whenever the sum needs at most 53 bits, which covers every
  e4m3fn / e4m3fnuz pair (and int8 / uint8 mixed with them) for K <= 65536; with e5m2 operands spanning their
  whole exponent range the float64 sum may round once per addition before the final rounding to float32.

Float8 (nobody implements float8 QLinearMatMul; docs/references.md#onnx-reference-qlinearmatmul). This is the ONNX chain
DequantizeLinear -> MatMul -> QuantizeLinear(saturate=1) with the scales folded into one multiplier, exactly as
the integer path: the two agree whenever the chain's intermediate roundings vanish (e.g. power-of-two scales)
and otherwise differ only where v lies within a few float32 ulps of a rounding boundary of T3. As ONNX's
DequantizeLinear requires, the zero point of a float8 tensor must be 0 (refused otherwise).
Non-finite values (only float8 inputs carry them): they follow IEEE arithmetic through acc (Inf * 0 = NaN);
for an integer output NaN becomes 0 before the zero point is added (y = y_zp, as DynamicQuant maps NaN to 0)
and +-Inf saturates; for a float8 output NaN stays NaN and +-Inf saturates to +-max.

Edge cases. K = 0: acc = 0, so y = y_zero_point broadcast to the output shape. M, N or a batch dimension of 0:
an empty output of the right shape. Scales must be finite and non-zero (negative scales are allowed, as ONNX
does not forbid them); a multiplier a_scale * b_scale / y_scale that overflows float32 is refused; one that
underflows to 0 gives y = y_zero_point, as onnxruntime does.

Bad input raises ascend_quant_ops.errors.DTypeError (dtypes) or ConstraintError (everything else), naming the
argument, what was expected and what was given.
"""
from __future__ import annotations

from typing import Tuple

import ml_dtypes
import numpy as np

from .. import dtypes
from .._opnames import QLINEAR_MATMUL as OP
from ..errors import ConstraintError, DTypeError
from . import _matmul_operands as operands
from ._exact_gemm import zero_point_matmul

#: the argument names, in ONNX order
ARGUMENTS = ("a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point")


def qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point) -> np.ndarray:
    """y = quantize(dequantize(a) @ dequantize(b)); see the module docstring for the exact arithmetic."""
    return compute(QLinearMatMulOperands(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
                                         y_zero_point))


def validate(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point) -> "QLinearMatMulOperands":
    """Check the arguments exactly as qlinear_matmul does (the same typed errors), without computing; returns the
    validated operands (what `compute` and the other backends take)."""
    return QLinearMatMulOperands(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)


def compute(p: "QLinearMatMulOperands") -> np.ndarray:
    """y of validated operands (no check repeated): the CPU backend's QLinearMatMul."""
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        if p.integer_inputs:
            acc = zero_point_matmul(p.a, p.a_zero_point, p.b, p.b_zero_point)  # float32(acc), wrapped
        else:
            acc = _float_accumulator(p)
        v = acc * p.mult
        y = _quantize_output(v, p)
    return np.ascontiguousarray(np.broadcast_to(y, p.out_shape_2d)).reshape(p.out_shape)


def _float_accumulator(p: "QLinearMatMulOperands") -> np.ndarray:
    """float32(acc) with acc summed in float64 (float8 operands)."""
    a_diff = p.a.astype(np.float64) - p.a_zero_point.astype(np.float64)
    b_diff = p.b.astype(np.float64) - p.b_zero_point.astype(np.float64)
    return np.matmul(a_diff, b_diff).astype(np.float32)


def _quantize_output(v: np.ndarray, p: "QLinearMatMulOperands") -> np.ndarray:
    out_type = dtypes.numpy_dtype(p.out_type)
    if dtypes.TABLE[p.out_type]["is_float"]:
        largest = np.float32(ml_dtypes.finfo(out_type).max)
        return np.clip(v, -largest, largest).astype(out_type)  # NaN passes through clip
    info = np.iinfo(out_type)
    rounded = np.rint(v)
    if not p.integer_inputs:
        rounded[np.isnan(rounded)] = 0
    rounded += p.y_zero_point.astype(np.float32)  # exact below 2^24; beyond that it saturates anyway
    return np.clip(rounded, info.min, info.max).astype(out_type)


class QLinearMatMulOperands:
    """The validated operands of one QLinearMatMul, with every parameter reshaped to broadcast in matmul
    coordinates. Built once per call; the CPU reference (`compute`), the emulator backend and the SoC plan check
    all read it.

    Coordinates: a2 [..., M, K], b2 [..., K, N], output [..., M, N], where a 1-D a is [1, K] and a 1-D b is
    [K, 1] (numpy.matmul's promotion); out_shape is the real output shape (those axes removed again).
    """

    def __init__(self, a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point):
        values = dict(zip(ARGUMENTS, (a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)))
        arrays = {name: operands.as_array(OP, name, value) for name, value in values.items()}
        a, b = arrays["a"], arrays["b"]

        a_type = dtypes.parse_dtype(a.dtype, op=OP, argument="a", allowed=dtypes.QLINEAR_MATMUL_TYPES)
        b_type = dtypes.parse_dtype(b.dtype, op=OP, argument="b", allowed=dtypes.QLINEAR_MATMUL_TYPES)
        self.out_type = dtypes.parse_dtype(arrays["y_zero_point"].dtype, op=OP, argument="y_zero_point",
                                           allowed=dtypes.QLINEAR_MATMUL_TYPES)
        for zp_name, data_name, data_type in (("a_zero_point", "a", a_type), ("b_zero_point", "b", b_type)):
            zp_type = dtypes.dtype_name(arrays[zp_name].dtype)
            if zp_type != data_type:
                raise DTypeError(OP, zp_name, f"a zero point must have the dtype of {data_name}",
                                 expected=data_type, actual=str(arrays[zp_name].dtype),
                                 suggestion=f"Pass {zp_name} with dtype {data_type}, {data_name}'s (a numpy array or "
                                            "a tensor).")
        scale_type = dtypes.parse_dtype(arrays["a_scale"].dtype, op=OP, argument="a_scale",
                                        allowed=dtypes.SCALE_TYPES)
        for name in ("b_scale", "y_scale"):
            dtypes.parse_dtype(arrays[name].dtype, op=OP, argument=name, allowed=dtypes.SCALE_TYPES)
            if dtypes.dtype_name(arrays[name].dtype) != scale_type:
                raise DTypeError(OP, name, "all three scales must have one dtype (ONNX type TS)",
                                 expected=f"{scale_type} (the dtype of a_scale)", actual=str(arrays[name].dtype),
                                 suggestion=f"Cast {name} to {scale_type}, or all scales to float32.")

        batch, self.out_shape_2d, self.out_shape = matmul_shapes(a.shape, b.shape)
        a2, b2 = operands.promoted(a, b)

        # A scale and its zero point must describe the same layout: [N] and [1, N], or [M] and [M, 1], are one.
        layouts = {
            "a": lambda name: operands.per_row_shape(OP, arrays[name], name, a, a2),
            "b": lambda name: operands.per_column_shape(OP, arrays[name], name, b, b2),
            "y": lambda name: _output_param_shape(arrays[name], name, self, a, b, len(batch)),
        }
        param_shapes = {}
        for tensor, layout in layouts.items():
            scale_shape = layout(f"{tensor}_scale")
            zp_shape = layout(f"{tensor}_zero_point")
            if scale_shape != zp_shape:
                raise ConstraintError(OP, f"{tensor}_zero_point", f"a zero point must have the shape of its scale "
                                      f"({tensor}_scale)", expected=list(arrays[f"{tensor}_scale"].shape),
                                      actual=list(arrays[f"{tensor}_zero_point"].shape))
            param_shapes[tensor] = scale_shape
        a_param_shape, b_param_shape, y_param_shape = param_shapes["a"], param_shapes["b"], param_shapes["y"]

        scales = {}
        for name, shape in (("a_scale", a_param_shape), ("b_scale", b_param_shape), ("y_scale", y_param_shape)):
            scale = arrays[name].astype(np.float32).reshape(shape)
            bad = ~np.isfinite(scale) | (scale == 0)
            if bad.any():
                raise ConstraintError(OP, name, "scales must be finite and non-zero",
                                      expected="a finite non-zero value", actual=f"{scale[bad].flat[0]!r}"
                                      f" ({int(bad.sum())} of {scale.size} elements)")
            scales[name] = scale
        with np.errstate(over="ignore", under="ignore"):
            mult = (scales["a_scale"] * scales["b_scale"]) / scales["y_scale"]
        self.mult = mult  # float32(a_scale * b_scale) / y_scale, in onnxruntime's order
        if not np.isfinite(mult).all():
            raise ConstraintError(OP, "y_scale", "the multiplier a_scale * b_scale / y_scale overflows float32",
                                  expected=f"|a_scale * b_scale / y_scale| <= {float(np.finfo(np.float32).max):g}",
                                  actual=f"y_scale as small as {float(np.min(np.abs(scales['y_scale']))):g}")

        zero_points = {}
        for name, shape, type_name in (("a_zero_point", a_param_shape, a_type),
                                       ("b_zero_point", b_param_shape, b_type),
                                       ("y_zero_point", y_param_shape, self.out_type)):
            zp = arrays[name].reshape(shape)
            if dtypes.TABLE[type_name]["is_float"] and (zp.astype(np.float32) != 0).any():
                raise ConstraintError(OP, name, "the zero point of a float8 tensor must be 0 (ONNX "
                                      "DequantizeLinear / QuantizeLinear for float8)", expected=0,
                                      actual=f"{zp.astype(np.float32)[zp.astype(np.float32) != 0].flat[0]!r}")
            zero_points[name] = zp

        self.a, self.b = a2, b2
        self.a_scale, self.b_scale, self.y_scale = scales["a_scale"], scales["b_scale"], scales["y_scale"]
        self.a_zero_point = zero_points["a_zero_point"]
        self.b_zero_point = zero_points["b_zero_point"]
        self.y_zero_point = zero_points["y_zero_point"]
        self.integer_inputs = not (dtypes.TABLE[a_type]["is_float"] or dtypes.TABLE[b_type]["is_float"])
        self.a_type, self.b_type = a_type, b_type
        # Quantization granularity, as the kernels and the SoC plans name it: a scale and its zero point vary
        # together (their layouts are checked equal above), so one element of both is per tensor.
        self.a_param = "tensor" if self.a_scale.size == 1 and self.a_zero_point.size == 1 else "row"
        self.b_param = "tensor" if self.b_scale.size == 1 and self.b_zero_point.size == 1 else "column"
        self.y_param = "tensor" if self.y_scale.size == 1 and self.y_zero_point.size == 1 else "broadcast"


def matmul_shapes(a_shape, b_shape):
    """numpy.matmul's shapes for operands of these shapes: (batch, out_shape_2d, out_shape), with this operator's
    errors (golden/_matmul_operands.py); plain Python on the dimensions, so symbolic sizes work too."""
    return operands.matmul_shapes(OP, a_shape, b_shape)


def _output_param_shape(param: np.ndarray, name: str, p: "QLinearMatMulOperands", a: np.ndarray, b: np.ndarray,
                        batch_rank: int) -> Tuple[int, ...]:
    """Shape under which a parameter of y broadcasts against the output in matmul coordinates [..., M, N]."""
    shape = operands.strip_leading_ones(param.shape)
    out = p.out_shape
    if len(shape) > len(out) or not operands.batch_broadcasts_to(shape, out):
        raise ConstraintError(OP, name, "a parameter of y must broadcast to the output's shape",
                              expected=f"a shape broadcastable to {list(out)} (e.g. [] per tensor)",
                              actual=list(param.shape))
    padded = (1,) * (len(out) - len(shape)) + shape
    if a.ndim < 2:  # the output has no M axis: put a unit one back
        padded = padded[:batch_rank] + (1,) + padded[batch_rank:]
    if b.ndim < 2:  # ... nor an N axis
        padded = padded + (1,)
    return padded
