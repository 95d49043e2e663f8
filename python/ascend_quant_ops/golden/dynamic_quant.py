"""DynamicQuant, the CPU reference: per-row (per-token) dynamic quantization of the last axis.

Spec: ATB DynamicQuant (docs/references.md#atb-dynamicquant); asymmetric mode and smooth scales from OPSNN DynamicQuantV2
(docs/references.md#dynamicquant-implementations). The kernels
compute exactly this (docs/design.md, "DynamicQuant arithmetic").

Inputs
    x              float16 or bfloat16 ndarray of shape [d0, ..., dn-1, H], rank >= 2 (any strides).
    smooth_scales  optional ndarray of shape [H] and x's dtype; multiplies every row before quantization.
    dst_type       int8, hifloat8, float8_e4m3fn or float8_e5m2: a name, a numpy dtype, or ATB's
                   outTensorType code (2, 34, 35, 36); with asymmetric=True also uint8 (see below).
    asymmetric     False: symmetric (returns y, scale); True: asymmetric (returns y, scale, offset).

Outputs
    y              shape of x, dtype dst_type (hifloat8 is en_dtypes.hifloat8).
    scale, offset  float32, shape [d0, ..., dn-1]: one value per row. For dst_type uint8 the offset is the
                   row's integer zero point, returned as uint8.

Arithmetic. Every step is one IEEE float32 operation (correctly rounded), in this order, per row r = x[..., :]:

    v      = float32(r) * float32(smooth)           (v = float32(r) without smooth scales)
  symmetric:
    m      = max(|v|)
    scale  = m / dmax                               (float32 division, not a multiply by 1/dmax)
    q      = v / scale
  asymmetric (OPSNN):
    scale  = (max(v) - min(v)) / (qmax - qmin)
    offset = qmax - max(v) / scale
    q      = v / scale + offset                     (division, then addition: two roundings)

  dmax = qmax is the type's quantization maximum (int8 127, hifloat8 32768, float8_e4m3fn 448,
  float8_e5m2 57344; the dtype table is the source). qmin is the type's minimum for int8 (-128) and -dmax for
  the float types, so qmax - qmin is 255, 65536, 896 and 114688 (as OPSNN's 950 kernels use).
  Asymmetric mode is defined for all four output types, as OPSNN DynamicQuantV2 defines it on the 950 (its
  910B kernels and ATB offer int8 only); which SoC accepts which combination is the SoC table's business,
  the reference itself is SoC-independent.

  asymmetric, uint8 (an integer zero point, so that y feeds integer arithmetic with zero-point correction,
  e.g. quant_matmul's a_zero_point; ONNX DynamicQuantizeLinear's formula, applied per row:
  docs/references.md#onnx-dynamicquantizelinear, docs/references.md#decision-quant-matmul):
    lo     = min(min(v), 0),  hi = max(max(v), 0)   (the range always contains 0, so 0 is exactly y = offset)
    scale  = (hi - lo) / 255                        (float32 division)
    offset = round_half_even(clip(0 - lo / scale, 0, 255))            an integer in [0, 255]
    y      = clip(round_half_even(v / scale) + offset, 0, 255)        round first, then add the zero point
  For int8 and the float types OPSNN's offset is a float added before rounding, so only uint8 gives an
  integer zero point; dequantization is scale * (y - offset) in every mode.

  Conversion of q to dst_type:
    int8                 round half to even, then clip to [-128, 127]
    float8_e4m3fn / e5m2 clip to [-dmax, dmax], then round to nearest even
    hifloat8             clip to [-32768, 32768], then round to nearest, ties away from zero
  Clipping first makes the casts saturate (ml_dtypes and en_dtypes do not saturate: e4m3fn overflow gives NaN,
  hifloat8 overflow gives Inf); the kernels clip the same way, since the 950's own conversion saturates only in its
  default control-register mode.

Edge cases
  * Zero scale. A row whose scale is 0 gives y = 0 (and offset = 0): all-zero rows, in asymmetric mode every
    constant row (max(v) == min(v), where the formula would divide by 0), and rows so tiny that the float32
    division underflows to 0 (only possible for bfloat16 x times bfloat16 smooth scales, with products
    below about 2^-149 * dmax). For such rows
    y * scale (or (y - offset) * scale) dequantizes to 0, as it must with scale 0.
  * NaN and Inf follow IEEE arithmetic through the formulas above; nothing is replaced before the cast.
    Symmetric: a row containing NaN has scale NaN and every y NaN; a row containing +-Inf and no NaN has
    scale +Inf, its finite elements give 0 and its infinite ones NaN (Inf / Inf).
    Asymmetric: a row containing NaN has scale and offset NaN; a row with +Inf has scale +Inf and offset NaN
    (Inf / Inf), so all its y are NaN; a row with -Inf and a finite maximum has scale +Inf, offset qmax,
    finite elements give qmax and -Inf gives NaN.
    Asymmetric uint8: a NaN quotient v / scale counts as 0 (y = offset) and a NaN offset as 0. So a row
    containing NaN has scale NaN, offset 0 and y 0; a row with +-Inf has scale +Inf, offset 0 and y 0
    (finite / Inf = 0, Inf / Inf = NaN, and -Inf / Inf in the offset = NaN).
    A NaN y element becomes 0 for int8 and the positive NaN code for the float types (0x7F float8_e4m3fn,
    0x7E float8_e5m2, 0x80 hifloat8). Non-finite smooth scales enter through v the same way (0 * Inf = NaN).
  * Signed zero. float8 keeps the sign of a zero q (-0 is 0x80); hifloat8 has no -0 (0x80 is its NaN), so
    -0 and negative values that round to zero give 0x00.
  * Empty tensors. Rows with H = 0 have no element: they are zero-scale rows (scale 0, offset 0) and y is
    empty. A tensor without rows (a leading dimension 0, e.g. [0, H]) gives empty y, scale and offset.

Bad input raises ascend_quant_ops.errors.DTypeError (dtypes) or ConstraintError (everything else), naming the
argument, what was expected and what was given.
"""
from __future__ import annotations

from typing import Optional, Tuple, Union

import numpy as np

from .. import dtypes
from .._opnames import DYNAMIC_QUANT as OP
from ..errors import ConstraintError, DTypeError


def dynamic_quant(
    x: np.ndarray,
    smooth_scales: Optional[np.ndarray] = None,
    *,
    dst_type="int8",
    asymmetric: bool = False,
) -> Union[Tuple[np.ndarray, np.ndarray], Tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Quantize each row of x's last axis; see the module docstring for the exact arithmetic."""
    dst = _validate(x, smooth_scales, dst_type, asymmetric)
    return compute(x, smooth_scales, dst, bool(asymmetric))


def compute(x: np.ndarray, smooth_scales: Optional[np.ndarray], dst: str, asymmetric: bool):
    """dynamic_quant of arguments `validate` accepted (dst: its canonical name); no check repeated. The CPU
    backend's DynamicQuant."""
    row_shape = x.shape[:-1]
    # a fresh contiguous float32 copy, worked on in place (explicit row count: -1 is ambiguous when H = 0)
    v = x.astype(np.float32).reshape(int(np.prod(row_shape)), x.shape[-1])

    # IEEE semantics are the contract (0 * Inf = NaN, overflow = Inf): no warnings for them
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        if smooth_scales is not None:
            np.multiply(v, smooth_scales.astype(np.float32), out=v)
        row_max, row_min = _row_max_min(v)
        if dst == dtypes.UINT8:
            y, scale, offset = _asymmetric_uint8(v, row_max, row_min)
            return y.reshape(x.shape), scale.reshape(row_shape), offset.reshape(row_shape)
        qmax = np.float32(dtypes.dmax(dst))
        qmin = _quant_min(dst, qmax)
        if asymmetric:
            scale = (row_max - row_min) / (qmax - qmin)
            offset = qmax - row_max / scale
        else:
            scale = np.maximum(row_max, -row_min) / qmax  # max|v|, NaN-propagating
            offset = None
        zero_rows = scale == 0
        scale[zero_rows] = 0  # +0, also where max|v| came out as -0 (a row of -0.0)
        np.divide(v, scale[:, None], out=v)
        if asymmetric:
            offset[zero_rows] = 0
            np.add(v, offset[:, None], out=v)
        v[zero_rows] = 0
        finite_rows = np.isfinite(scale) if offset is None else np.isfinite(scale) & np.isfinite(offset)
        y = _convert(v, dst, qmin, qmax, suspect_rows=~finite_rows)

    y = y.reshape(x.shape)
    scale = scale.reshape(row_shape)
    if asymmetric:
        return y, scale, offset.reshape(row_shape)
    return y, scale


def validate(x, smooth_scales=None, *, dst_type="int8", asymmetric=False) -> str:
    """Check the arguments exactly as dynamic_quant does (the same typed errors), without computing; returns the
    canonical dst_type name."""
    return _validate(x, smooth_scales, dst_type, asymmetric)


def validate_arrays(x, smooth_scales=None) -> None:
    """The checks of x and smooth_scales alone, for callers that have parsed dst_type and asymmetric already."""
    _validate_arrays(x, smooth_scales)


def _row_max_min(v: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Per-row max and min (NaN if the row holds a NaN); 0 for rows without elements (H = 0)."""
    if v.shape[1] == 0:
        zeros = np.zeros(v.shape[0], np.float32)
        return zeros, zeros.copy()
    return v.max(axis=1), v.min(axis=1)


def _asymmetric_uint8(v: np.ndarray, row_max: np.ndarray, row_min: np.ndarray):
    """The asymmetric uint8 mode on float32 rows v (modified in place): (y, scale, offset as uint8)."""
    qmax = np.float32(np.iinfo(np.uint8).max)
    lo = np.minimum(row_min, np.float32(0))  # NaN-propagating
    hi = np.maximum(row_max, np.float32(0))
    scale = (hi - lo) / qmax
    zero_rows = scale == 0
    scale[zero_rows] = 0  # +0
    zero_point = np.float32(0) - lo / scale
    zero_point[np.isnan(zero_point) | zero_rows] = 0
    zero_point = np.rint(np.clip(zero_point, 0, qmax))  # round half to even
    np.divide(v, scale[:, None], out=v)
    np.rint(v, out=v)
    if not np.isfinite(scale).all():
        v[np.isnan(v)] = 0  # only rows with a non-finite scale can hold NaN quotients
    v += zero_point[:, None]
    np.clip(v, 0, qmax, out=v)
    v[zero_rows] = 0
    return v.astype(np.uint8), scale, zero_point.astype(np.uint8)


def _quant_min(dst: str, qmax: np.float32) -> np.float32:
    """Lowest value of the asymmetric range: the integer type's minimum, -dmax for the float types."""
    if dtypes.TABLE[dst]["is_float"]:
        return -qmax
    return np.float32(np.iinfo(dtypes.numpy_dtype(dst)).min)


def _convert(q: np.ndarray, dst: str, qmin: np.float32, qmax: np.float32, suspect_rows: np.ndarray) -> np.ndarray:
    """float32 q (modified in place) -> dst, with the rounding and clipping of the module docstring.

    Only rows with a non-finite scale or offset can hold NaN; they are the only ones inspected for it.
    """
    if suspect_rows.any():
        rows = q[suspect_rows]
        # int8 has no NaN: 0. Float types: a positive NaN, so that the code does not depend on the sign
        # the division happened to produce.
        rows[np.isnan(rows)] = 0 if not dtypes.TABLE[dst]["is_float"] else np.nan
        q[suspect_rows] = rows
    if dtypes.TABLE[dst]["is_float"]:
        np.clip(q, -qmax, qmax, out=q)
    else:
        np.rint(q, out=q)  # round half to even
        np.clip(q, qmin, qmax, out=q)
    return q.astype(dtypes.numpy_dtype(dst))


def parse_dst_type(dst_type, asymmetric: bool) -> str:
    """The canonical name of dst_type in the given mode: DynamicQuant's output types (a name, a numpy / torch
    dtype or an ATB code), and uint8 in the asymmetric mode only (DTypeError otherwise)."""
    if not isinstance(dst_type, (int, np.integer)) and dtypes.dtype_name(dst_type) == dtypes.UINT8:
        if not asymmetric:
            raise DTypeError(OP, "dst_type", "uint8 is an output type of the asymmetric mode only (its zero "
                             "point is what makes the unsigned range usable)", expected="asymmetric=True with "
                             "uint8, or " + " / ".join(dtypes.DYNAMIC_QUANT_DST_TYPES), actual="uint8",
                             suggestion="Pass asymmetric=True, or dst_type int8 for symmetric quantization.")
        return dtypes.UINT8
    return dtypes.parse_dst_type(dst_type, op=OP, argument="dst_type")


def _validate(x, smooth_scales, dst_type, asymmetric) -> str:
    """Check every argument; return the canonical dst_type name."""
    _validate_arrays(x, smooth_scales)
    if not isinstance(asymmetric, (bool, np.bool_)):
        raise ConstraintError(OP, "asymmetric", "must be a bool", expected="True or False",
                              actual=repr(asymmetric))
    return parse_dst_type(dst_type, bool(asymmetric))


def _validate_arrays(x, smooth_scales) -> None:
    if not isinstance(x, np.ndarray):
        raise ConstraintError(OP, "x", "must be a numpy ndarray", expected="numpy.ndarray",
                              actual=type(x).__name__,
                              suggestion="Convert with numpy.asarray(x, numpy.float16) (or ml_dtypes.bfloat16); "
                                         "the public ascend_quant_ops.dynamic_quant also takes torch tensors.")
    x_type = dtypes.parse_dtype(x.dtype, op=OP, argument="x", allowed=dtypes.DYNAMIC_QUANT_X_TYPES)
    if x.ndim < 2:
        raise ConstraintError(OP, "x", "rank must be at least 2 (rows x last axis)", limit=2,
                              actual=f"rank {x.ndim}, shape {list(x.shape)}",
                              suggestion="Reshape a vector of H elements to [1, H].")
    if smooth_scales is not None:
        if not isinstance(smooth_scales, np.ndarray):
            raise ConstraintError(OP, "smooth_scales", "must be a numpy ndarray or None",
                                  expected="numpy.ndarray", actual=type(smooth_scales).__name__)
        if dtypes.dtype_name(smooth_scales.dtype) != x_type:
            raise DTypeError(OP, "smooth_scales", "must have the dtype of x", expected=x_type,
                             actual=str(smooth_scales.dtype))
        if smooth_scales.shape != (x.shape[-1],):
            raise ConstraintError(OP, "smooth_scales", "shape must be [H], H = the last dimension of x",
                                  expected=[x.shape[-1]], actual=list(smooth_scales.shape))
