"""The front door of every array argument, and moving tensors between torch and numpy without changing a bit.

`to_numpy` is the one place where what a user passes becomes what the operators compute on, for every backend:
  * numpy arrays in native byte order: a big-endian array ('>f2', big-endian bfloat16, ...) is converted to the
    same values in native order, so that no backend reads its bytes in the wrong order;
  * ndarray subclasses are taken as plain ndarrays (np.asarray: np.matrix, np.memmap, ...), except masked
    arrays, which are refused: no backend could honour the mask;
  * numpy scalars as 0-d arrays;
  * torch tensors: dense (strided) CPU tensors of a dtype numpy can carry; sparse, nested and quantized tensors
    and tensors on other devices (CUDA, meta, NPU) are refused with a ConstraintError / DTypeError that names
    what they are.
Nothing else is accepted (Python lists and numbers are refused: the dtype would be a guess).

numpy carries bfloat16 and the float8 types through ml_dtypes and hifloat8 through en_dtypes; torch has the
first two but no hifloat8, so hifloat8 travels in torch as its uint8 bit patterns. Every conversion goes through
same-size integer views, so no value is rounded on the way.
"""
from __future__ import annotations

import sys
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from . import dtypes
from .errors import ConstraintError, DTypeError

NUMPY = "numpy"
TORCH = "torch"

# same-width integer views used to carry a type across the torch / numpy border
_BIT_VIEW = {1: (np.uint8, "uint8"), 2: (np.int16, "int16")}


def is_torch_tensor(obj: Any) -> bool:
    # Never import torch just to answer this: a broken torch_npu can make `import torch` fail (see _torch.py).
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, getattr(torch, "Tensor", ()))


def device_kind(t: Any) -> str:
    """How a tensor's device is named to users: 'cpu', 'NPU', 'CUDA', 'meta', or the device type."""
    kind = t.device.type
    if kind in ("npu", "privateuseone"):
        return "NPU"
    return {"cuda": "CUDA", "meta": "meta", "cpu": "cpu"}.get(kind, kind)


def to_numpy(obj: Any, *, op: str, argument: str, allow_none: bool = False,
             allowed: Optional[Sequence[str]] = None) -> Tuple[Any, str]:
    """(ndarray, kind) for a numpy array / numpy scalar / CPU torch tensor; kind says what the caller gave.

    `allowed` (dtype names) only words the refusal of a dtype numpy cannot carry (e.g. torch.qint8); the op's
    own validation checks the dtype of everything else.
    """
    if obj is None:
        if allow_none:
            return None, NUMPY
        raise ConstraintError(op, argument, "a tensor is required", expected="numpy.ndarray or torch.Tensor",
                              actual="None")
    if isinstance(obj, np.ndarray):
        return native_array(obj, op=op, argument=argument), NUMPY
    if isinstance(obj, np.generic):
        return native_array(np.asarray(obj), op=op, argument=argument), NUMPY
    if is_torch_tensor(obj):
        return torch_to_numpy(obj, op=op, argument=argument, allowed=allowed), TORCH
    raise ConstraintError(op, argument, "unsupported input kind", expected="numpy.ndarray or torch.Tensor",
                          actual=type(obj).__name__,
                          suggestion="wrap Python numbers and lists with numpy, e.g. numpy.float32(0.5) or "
                                     "numpy.asarray(values, numpy.float16)")


def native_array(a: np.ndarray, *, op: str, argument: str) -> np.ndarray:
    """A plain ndarray of `a`'s values in native byte order (no copy when it already is one)."""
    if isinstance(a, np.ma.MaskedArray):
        raise ConstraintError(op, argument, "masked arrays are not supported: no backend can honour the mask",
                              expected="numpy.ndarray", actual=type(a).__name__,
                              suggestion="pass a.filled(value) (or a.data to ignore the mask)")
    if type(a) is not np.ndarray:
        a = np.asarray(a)  # np.matrix, np.memmap, ...: the same data as a plain ndarray
    if not a.dtype.isnative and a.dtype.itemsize in (2, 4, 8) and a.dtype.fields is None:
        # Swap through same-size unsigned integers: works for every type, ml_dtypes' included.
        order = a.dtype.byteorder
        native = a.view(f"{order}u{a.dtype.itemsize}").astype(f"=u{a.dtype.itemsize}")
        a = native.view(a.dtype.newbyteorder("="))
    return a


def check_torch_tensor(t: Any, *, op: str, argument: str, allowed: Optional[Sequence[str]] = None,
                       devices: Sequence[str] = ("cpu",)) -> None:
    """Refuses what no backend computes on: nested, sparse (any non-strided layout) and quantized tensors, and
    tensors on a device not in `devices` (named as what they are: CUDA, meta, NPU)."""
    if getattr(t, "is_nested", False):
        raise ConstraintError(op, argument, "nested tensors are not supported", expected="a dense torch.Tensor",
                              actual="a nested tensor", suggestion="pad the rows to one length (e.g. "
                              "t.to_padded_tensor(0)) and pass a dense tensor")
    torch = sys.modules["torch"]  # t is a torch tensor, so torch is imported
    if t.layout != torch.strided:
        raise ConstraintError(op, argument, "only dense (strided) tensors are supported",
                              expected="layout torch.strided", actual=str(t.layout),
                              suggestion="convert with t.to_dense()")
    if t.device.type not in devices:
        kind = device_kind(t)
        hint = ("use backend='npu' (or 'auto') for NPU tensors" if kind == "NPU" else
                "a meta tensor has no data: pass a CPU tensor" if kind == "meta" else
                "move the tensor to the CPU with .cpu()")
        raise ConstraintError(op, argument, f"a {kind} tensor cannot be computed on this backend",
                              expected="a CPU tensor", actual=f"a tensor on {t.device}", suggestion=hint)
    if t.is_quantized:
        raise DTypeError(op, argument, "quantized torch tensors are not supported", actual=str(t.dtype),
                         expected=" / ".join(allowed) if allowed else "a plain (non-quantized) dtype",
                         suggestion="pass the integer data (t.int_repr()) with its scale and zero point as "
                                    "separate arguments")


def torch_to_numpy(t: Any, *, op: str, argument: str, allowed: Optional[Sequence[str]] = None) -> np.ndarray:
    """A CPU tensor's values as a numpy array (check_torch_tensor's refusals first)."""
    check_torch_tensor(t, op=op, argument=argument, allowed=allowed)
    torch = sys.modules["torch"]
    name = dtypes.dtype_name(t.dtype)
    # No .contiguous(): a strided view (a transposed weight, a slice) stays a view, numpy takes its strides; the
    # operators copy what they need (the emulator's runners make contiguous buffers themselves).
    t = t.detach().resolve_conj().resolve_neg()
    if name is None:
        # Let the op's own validation name the unsupported dtype: hand it over as numpy when numpy can carry it.
        try:
            return t.numpy()
        except TypeError as exc:
            raise DTypeError(op, argument, "unsupported dtype", actual=str(t.dtype),
                             expected=" / ".join(allowed) if allowed else "a dtype numpy can carry") from exc
    np_dtype = dtypes.numpy_dtype(name)
    if name in (dtypes.BFLOAT16,) or np_dtype.kind == "V" or name.startswith("float8"):
        _, int_torch = _BIT_VIEW[dtypes.itemsize(name)]
        return t.view(getattr(torch, int_torch)).numpy().view(np_dtype)
    return t.numpy()


def numpy_to_torch(a: np.ndarray, *, fresh: bool = False) -> Any:
    """torch tensor with the same bits; hifloat8 becomes uint8 (torch has no hifloat8).

    A copy, unless `fresh` says that `a` is a result nobody else holds (an operator's output): then a C-contiguous
    writable `a` is shared, not copied (for a large output the copy and its page faults cost as much as the
    kernel that computed it).
    """
    from ._torch import import_torch

    torch, why = import_torch()
    if torch is None:
        raise RuntimeError(f"returning torch tensors needs torch: {why}")

    name = dtypes.dtype_name(a.dtype)
    if not (fresh and a.flags.c_contiguous and a.flags.writeable):
        # a C-ordered copy that keeps the rank (np.ascontiguousarray turns a 0-d array into shape [1])
        a = np.array(a, order="C", copy=True)
    if name == dtypes.HIFLOAT8:
        return torch.from_numpy(a.view(np.uint8))
    if name == dtypes.BFLOAT16 or (name or "").startswith("float8"):
        int_np, int_torch = _BIT_VIEW[dtypes.itemsize(name)]
        return torch.from_numpy(a.view(int_np)).view(getattr(torch, name))
    return torch.from_numpy(a)


def to_kind(a: np.ndarray, kind: str) -> Any:
    return numpy_to_torch(a) if kind == TORCH else a
