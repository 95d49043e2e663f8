"""DynamicQuant on the CPU in one fused pass per row (the compiled core's cpu_dynamic_quant kernel).

Same signature, validation and results as the golden (golden/dynamic_quant.py, whose docstring defines the
arithmetic): float16 / bfloat16 x, optional smooth scales, int8 / float8_e4m3fn / float8_e5m2 / hifloat8 output,
symmetric or asymmetric. The kernel reads each row twice from cache (statistics, then quantization) instead of
the golden's float32 copy of x and its six full passes.

`dynamic_quant_torch` is the torch op's CPU kernel: torch tensors in and out (the kernel fills the torch outputs
through numpy views of them).
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

# the reference itself, kept here so that a test replacing the golden module's function cannot loop back
_golden_dynamic_quant = _golden.dynamic_quant


@functools.lru_cache(maxsize=None)
def _dst_constants(dst: str) -> Tuple[int, float, float, np.dtype]:
    """(kernel code, qmax, qmin, numpy dtype) of an output type: the golden's qmax and qmin, as float32 values."""
    qmax = np.float32(dtypes.dmax(dst))
    return _DST_CODES[dst], float(qmax), float(_golden._quant_min(dst, qmax)), dtypes.numpy_dtype(dst)


def dynamic_quant(x, smooth_scales=None, *, dst_type="int8", asymmetric=False, isa: Optional[str] = None):
    """golden.dynamic_quant, computed by the fused kernel: (y, scale), or (y, scale, offset) when asymmetric."""
    dst = _golden.validate(x, smooth_scales, dst_type=dst_type, asymmetric=asymmetric)
    run = kernel("cpu_dynamic_quant")
    if run is None:
        return _golden_dynamic_quant(x, smooth_scales, dst_type=dst, asymmetric=asymmetric)
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


def dynamic_quant_torch(x, smooth_scales, dst_type, asymmetric: bool):
    """The torch op's CPU kernel: (y, scale, offset) as torch tensors; offset is zeros when not asymmetric.

    x / smooth_scales: CPU tensors (any strides). hifloat8 y is torch.uint8 holding the codes.
    """
    import torch  # the torch op runs only where torch is imported

    x_np = _tensor_as_numpy(x, "x")
    s_np = None if smooth_scales is None else _tensor_as_numpy(smooth_scales, "smooth_scales")
    dst = _golden.validate(x_np, s_np, dst_type=dst_type, asymmetric=asymmetric)
    run = kernel("cpu_dynamic_quant")
    if run is None:
        from .. import _convert

        out = _golden_dynamic_quant(x_np, s_np, dst_type=dst, asymmetric=asymmetric)
        offset = (_convert.numpy_to_torch(out[2]) if asymmetric
                  else torch.zeros(tuple(x.shape[:-1]), dtype=torch.float32))
        return _convert.numpy_to_torch(out[0]), _convert.numpy_to_torch(out[1]), offset

    code, qmax, qmin, _ = _dst_constants(dst)
    rows_shape = x_np.shape[:-1]
    h = x_np.shape[-1]
    rows = math.prod(rows_shape)
    y = torch.empty(x_np.shape, dtype=torch.uint8)
    scale = torch.empty(rows_shape, dtype=torch.float32)
    offset = torch.empty(rows_shape, dtype=torch.float32) if asymmetric else torch.zeros(rows_shape)
    smooth = None if s_np is None else _rows_of(s_np, 1, h)[0].view(np.uint16)
    x2 = _rows_of(x_np, rows, h)
    run(x2.view(np.uint16), smooth, _SRC_CODES[x2.dtype], code, bool(asymmetric), qmax, qmin,
        y.numpy().reshape(rows, h), scale.numpy().reshape(rows), offset.numpy().reshape(rows) if asymmetric else None)
    y_dtype = _torch_y_dtype(dst)
    return (y if y_dtype is torch.uint8 else y.view(y_dtype)), scale, offset


@functools.lru_cache(maxsize=None)
def _torch_y_dtype(dst: str):
    return dtypes.torch_dtype(dst)


def _tensor_as_numpy(t, argument: str) -> np.ndarray:
    """A CPU tensor as a numpy array of the same bits: float16 / bfloat16 directly, anything else through
    _convert (whose errors, or the golden's validation after it, name what is wrong)."""
    import torch

    numpy_type = _TORCH_INPUT_TYPES.get(t.dtype) if t.device.type == "cpu" else None
    if numpy_type is None:
        from .. import _convert

        return _convert.torch_to_numpy(t, op=OP, argument=argument)
    return t.detach().contiguous().view(torch.int16).numpy().view(numpy_type)


class _TorchInputTypes(dict):
    """torch dtype -> numpy dtype of DynamicQuant's inputs, filled on first use (torch is imported by then)."""

    def get(self, key, default=None):
        if not self:
            import torch

            self.update({torch.float16: np.dtype(np.float16),
                         torch.bfloat16: np.dtype(dtypes.numpy_dtype(dtypes.BFLOAT16))})
        return super().get(key, default)


_TORCH_INPUT_TYPES = _TorchInputTypes()


def _rows_of(a: np.ndarray, rows: int, h: int) -> np.ndarray:
    """a as a [rows, h] array whose rows are contiguous and in native byte order (a view when possible)."""
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    a2 = a.reshape(rows, h)
    if h > 1 and a2.strides[1] != a2.itemsize:
        a2 = np.ascontiguousarray(a2)
    return a2
