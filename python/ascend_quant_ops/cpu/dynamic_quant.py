"""DynamicQuant on the CPU in one fused pass per row (the compiled core's cpu_dynamic_quant kernel).

Same signature, validation and results as the golden (golden/dynamic_quant.py, whose docstring defines the
arithmetic): float16 / bfloat16 x, optional smooth scales, int8 / float8_e4m3fn / float8_e5m2 / hifloat8 output,
symmetric or asymmetric. The kernel reads each row twice from cache (statistics, then quantization) instead of
the golden's float32 copy of x and its six full passes.

`compute` (validated arguments) is what the cpu backend (_backend_cpu.py) runs, for numpy inputs and for the torch
op's CPU kernel alike.
"""
from __future__ import annotations

import functools
import math
from typing import Optional, Tuple

import numpy as np

from .. import dtypes
from ..golden import dynamic_quant as _golden
from ._common import isa_index, kernel

OP = _golden.OP

#: dst type -> the kernel's code (python/csrc/cpu_dynamic_quant.cpp, enum Dst)
_DST_CODES = {dtypes.INT8: 0, dtypes.FLOAT8_E4M3FN: 1, dtypes.FLOAT8_E5M2: 2, dtypes.HIFLOAT8: 3}
#: x dtype -> the kernel's code (enum Src)
_SRC_CODES = {np.dtype(dtypes.numpy_dtype(dtypes.FLOAT16)): 0, np.dtype(dtypes.numpy_dtype(dtypes.BFLOAT16)): 1}

@functools.lru_cache(maxsize=None)
def _dst_constants(dst: str) -> Tuple[int, float, float, np.dtype]:
    """(kernel code, qmax, qmin, numpy dtype) of an output type: the golden's qmax and qmin, as float32 values."""
    qmax = np.float32(dtypes.dmax(dst))
    return _DST_CODES[dst], float(qmax), float(_golden._quant_min(dst, qmax)), dtypes.numpy_dtype(dst)


def dynamic_quant(x, smooth_scales=None, *, dst_type="int8", asymmetric=False, isa: Optional[str] = None):
    """golden.dynamic_quant, computed by the fused kernel: (y, scale), or (y, scale, offset) when asymmetric."""
    dst = _golden.validate(x, smooth_scales, dst_type=dst_type, asymmetric=asymmetric)
    return compute(x, smooth_scales, dst, bool(asymmetric), isa=isa)


def compute(x: np.ndarray, smooth_scales: Optional[np.ndarray], dst: str, asymmetric: bool, *,
            isa: Optional[str] = None):
    """golden.compute by the fused kernel: arguments golden.validate accepted (dst its canonical name), no check
    repeated. The cpu backend's DynamicQuant."""
    run = kernel("cpu_dynamic_quant")
    if run is None or dst not in _DST_CODES:  # uint8 (the asymmetric integer-zero-point mode): the golden
        return _golden.compute(x, smooth_scales, dst, asymmetric)
    code, qmax, qmin, y_dtype = _dst_constants(dst)
    row_shape = x.shape[:-1]
    h = x.shape[-1]
    rows = math.prod(row_shape)
    smooth = None if smooth_scales is None else _rows_of(smooth_scales, 1, h)[0].view(np.uint16)
    x2 = _rows_of(x, rows, h)
    y = np.empty((rows, h), np.uint8)
    scale = np.empty(rows, np.float32)
    offset = np.empty(rows, np.float32) if asymmetric else None
    run(x2.view(np.uint16), smooth, _SRC_CODES[x2.dtype], code, bool(asymmetric), qmax, qmin, y, scale, offset,
        isa_index(isa, OP))

    y = y.view(y_dtype).reshape(x.shape)
    scale = scale.reshape(row_shape)
    if asymmetric:
        return y, scale, offset.reshape(row_shape)
    return y, scale


def _rows_of(a: np.ndarray, rows: int, h: int) -> np.ndarray:
    """a as a [rows, h] array whose rows are contiguous and in native byte order (a view when possible)."""
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    a2 = a.reshape(rows, h)
    if h > 1 and a2.strides[1] != a2.itemsize:
        a2 = np.ascontiguousarray(a2)
    return a2
