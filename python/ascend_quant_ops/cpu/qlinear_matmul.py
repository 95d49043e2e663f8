"""QLinearMatMul on the CPU: an int8 GEMM with int32 accumulation (the compiled core's cpu_qlinear_matmul).

Same signature, validation and results as the golden (golden/qlinear_matmul.py, which defines the arithmetic
and follows onnxruntime bit for bit). Integer a, b and y (int8 / uint8, any combination) run on the kernel:
uint8 and int8 operands are mapped exactly onto the unsigned x signed 8-bit product of the hardware, the
zero points enter through row and column sums, and the int32 accumulator wraps exactly as the golden's (see
python/csrc/cpu_qlinear_matmul.cpp). Float8 operands or outputs run on the golden.

b may be the transposed view of an [..., N, K] weight (`w.T`, the Linear layout; for a batched b its last two axes
swapped): the kernel reads that storage in place, at every instruction-set level, without copying the weight.
"""
from __future__ import annotations

import math
from typing import Optional, Tuple

import numpy as np

from .. import dtypes
from ..golden import qlinear_matmul as _golden
from ._common import isa_index, kernel

OP = _golden.OP


_SIGNED = {dtypes.INT8: True, dtypes.UINT8: False}


def qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, *,
                   isa: Optional[str] = None) -> np.ndarray:
    """golden.qlinear_matmul, computed by the int8 GEMM kernel for integer a, b and y."""
    return compute(_golden.validate(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point),
                   isa=isa)


def compute(p: "_golden.QLinearMatMulOperands", *, isa: Optional[str] = None) -> np.ndarray:
    """golden.compute by the int8 GEMM kernel (integer a, b and y; the golden for float8): validated operands, no
    check repeated. The cpu backend's QLinearMatMul."""
    run = kernel("cpu_qlinear_matmul")
    a_type, b_type = dtypes.dtype_name(p.a.dtype), dtypes.dtype_name(p.b.dtype)
    if run is None or a_type not in _SIGNED or b_type not in _SIGNED or p.out_type not in _SIGNED:
        return _golden.compute(p)
    return _integer_product(p, run, _SIGNED[a_type], _SIGNED[b_type], isa_index(isa, OP))


def _integer_product(p, run, a_signed: bool, b_signed: bool, isa: int) -> np.ndarray:
    out_dtype = dtypes.numpy_dtype(p.out_type)
    batch = tuple(p.out_shape_2d[:-2])
    m, n = p.out_shape_2d[-2:]
    k = p.a.shape[-1]
    count = math.prod(batch)
    if count == 0 or m == 0 or n == 0:
        return np.empty(p.out_shape, out_dtype)

    # the kernel reads rows of a (along K) with unit stride, and b with unit stride along N or along K (the
    # transposed view of an [..., N, K] weight is read in place); other layouts are copied
    a = _unit_last_stride(_native_order(p.a))
    b = _in_place_b(_native_order(p.b))
    za = p.a_zero_point.astype(np.int32)[..., 0]     # [..., M or 1]
    zb = p.b_zero_point.astype(np.int32)[..., 0, :]  # [..., N or 1]
    mult = p.mult                                   # float32 [..., M or 1, N or 1]
    y_zp = p.y_zero_point.astype(np.int32)          # [..., M or 1, N or 1]
    mult = _unit_last_stride(mult)
    y_zp = _unit_last_stride(y_zp)

    folded = _fold_batch_into_rows(batch, m, n, k, a, b, za, zb, mult, y_zp) if count > 1 else None
    if folded is not None:
        operands, index, shape = folded
    else:
        # one stack per operand over its own batch entries (size-1 axes are broadcast by the kernel)
        operands = tuple(x.reshape((math.prod(x.shape[:-rank]),) + x.shape[-rank:])
                         for x, rank in ((a, 2), (b, 2), (za, 1), (zb, 1), (mult, 2), (y_zp, 2)))
        index = (_SINGLE_INDEX if count == 1 else
                 np.stack([_batch_index(x.shape[:-rank], batch)
                           for x, rank in ((a, 2), (b, 2), (za, 1), (zb, 1), (mult, 2), (y_zp, 2))], axis=1))
        shape = (count, m, n)

    y = np.empty(shape, np.uint8)
    lo, hi = _RANGES[p.out_type]
    a3, b3, za2, zb2, mult3, yzp3 = operands
    run(a3.view(np.uint8), a_signed, b3.view(np.uint8), b_signed, za2, zb2, mult3, yzp3, index, y, lo, hi, isa)
    return y.view(out_dtype).reshape(p.out_shape)


_SINGLE_INDEX = np.zeros((1, 6), np.int64)
_RANGES = {name: (int(np.iinfo(dtypes.numpy_dtype(name)).min), int(np.iinfo(dtypes.numpy_dtype(name)).max))
           for name in _SIGNED}


def _native_order(x: np.ndarray) -> np.ndarray:
    return x if x.dtype.isnative else x.astype(x.dtype.newbyteorder("="))


def _unit_last_stride(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x) if x.shape[-1] > 1 and x.strides[-1] != x.itemsize else x


def _in_place_b(b: np.ndarray) -> np.ndarray:
    """b [..., K, N] as the kernel reads it: itself when N or K has unit stride, else a contiguous copy."""
    k, n = b.shape[-2:]
    if n <= 1 or b.strides[-1] == b.itemsize or k <= 1 or b.strides[-2] == b.itemsize:
        return b
    return np.ascontiguousarray(b)


def _batch_index(own_batch: Tuple[int, ...], batch: Tuple[int, ...]) -> np.ndarray:
    """For every entry of the output batch (row-major), the entry of an operand whose batch is own_batch."""
    own = (1,) * (len(batch) - len(own_batch)) + tuple(own_batch)
    entries = np.arange(math.prod(own), dtype=np.int64).reshape(own)
    return np.broadcast_to(entries, batch).reshape(-1)


def _view(x: np.ndarray, shape) -> Optional[np.ndarray]:
    """x reshaped to `shape` without copying, or None when that needs a copy."""
    try:
        return np.reshape(x, shape, copy=False)
    except ValueError:
        return None
    except TypeError:  # numpy < 2.1 has no copy argument
        view = x.view()
        try:
            view.shape = shape
        except AttributeError:
            return None
        return view


def _fold_batch_into_rows(batch, m, n, k, a, b, za, zb, mult, y_zp):
    """When b and its parameters have no batch of their own, one product of count * M rows instead of count
    products (B is read and packed once). Returns (operands, index, y shape), or None."""
    count = math.prod(batch)
    if b.ndim > 2 or math.prod(zb.shape[:-1]) != 1:
        return None
    rows = count * m
    mult_rows = _view(np.broadcast_to(mult, batch + (m, mult.shape[-1])), (rows, mult.shape[-1]))
    y_zp_rows = _view(np.broadcast_to(y_zp, batch + (m, y_zp.shape[-1])), (rows, y_zp.shape[-1]))
    if mult_rows is None or y_zp_rows is None:
        return None
    a_rows = np.broadcast_to(a, batch + (m, k)).reshape(rows, k)  # a copy only when a itself was broadcast
    if k > 1 and a_rows.strides[-1] != 1:
        a_rows = np.ascontiguousarray(a_rows)
    za_rows = np.broadcast_to(za, batch + (m,)).reshape(1, rows)
    operands = (a_rows[None], b.reshape(1, k, n), za_rows, zb.reshape(1, -1), mult_rows[None], y_zp_rows[None])
    return operands, _SINGLE_INDEX, (1, rows, n)
