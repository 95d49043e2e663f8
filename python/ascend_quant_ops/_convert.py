"""Moving tensors between torch and numpy without changing a bit.

numpy carries bfloat16 and the float8 types through ml_dtypes and hifloat8 through en_dtypes; torch has the
first two but no hifloat8, so hifloat8 travels in torch as its uint8 bit patterns. Every conversion goes through
same-size integer views, so no value is rounded on the way.
"""
from __future__ import annotations

import sys
from typing import Any, Tuple

import numpy as np

from . import dtypes
from .errors import ConstraintError

NUMPY = "numpy"
TORCH = "torch"

# same-width integer views used to carry a type across the torch / numpy border
_BIT_VIEW = {1: (np.uint8, "uint8"), 2: (np.int16, "int16")}


def is_torch_tensor(obj: Any) -> bool:
    # Never import torch just to answer this: a broken torch_npu can make `import torch` fail (FACTS 9).
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, getattr(torch, "Tensor", ()))


def to_numpy(obj: Any, *, op: str, argument: str, allow_none: bool = False) -> Tuple[Any, str]:
    """(ndarray, kind) for a numpy array / numpy scalar / CPU torch tensor; kind says what the caller gave."""
    if obj is None:
        if allow_none:
            return None, NUMPY
        raise ConstraintError(op, argument, "a tensor is required", expected="numpy.ndarray or torch.Tensor",
                              actual="None")
    if isinstance(obj, np.ndarray):
        return obj, NUMPY
    if isinstance(obj, np.generic):
        return np.asarray(obj), NUMPY
    if is_torch_tensor(obj):
        return torch_to_numpy(obj, op=op, argument=argument), TORCH
    raise ConstraintError(op, argument, "unsupported input kind", expected="numpy.ndarray or torch.Tensor",
                          actual=type(obj).__name__,
                          suggestion="wrap Python numbers with numpy, e.g. numpy.float32(0.5)")


def torch_to_numpy(t: Any, *, op: str, argument: str) -> np.ndarray:
    if t.device.type != "cpu":
        raise ConstraintError(op, argument, "tensor is not on the CPU", expected="a CPU tensor for this backend",
                              actual=str(t.device), suggestion="use backend='npu' (or 'auto') for NPU tensors")
    name = dtypes.dtype_name(t.dtype)
    t = t.detach().contiguous()
    if name is None:
        # Let the op's own validation name the unsupported dtype: hand it over as numpy when numpy can carry it.
        try:
            return t.numpy()
        except TypeError as exc:
            raise ConstraintError(op, argument, "unsupported dtype", actual=str(t.dtype)) from exc
    np_dtype = dtypes.numpy_dtype(name)
    if name in (dtypes.BFLOAT16,) or np_dtype.kind == "V" or name.startswith("float8"):
        torch = sys.modules["torch"]  # t is a torch tensor, so torch is imported

        _, int_torch = _BIT_VIEW[dtypes.itemsize(name)]
        return t.view(getattr(torch, int_torch)).numpy().view(np_dtype)
    return t.numpy()


def numpy_to_torch(a: np.ndarray) -> Any:
    """torch tensor with the same bits; hifloat8 becomes uint8 (torch has no hifloat8)."""
    from ._torch import import_torch

    torch, why = import_torch()
    if torch is None:
        raise RuntimeError(f"returning torch tensors needs torch: {why}")

    name = dtypes.dtype_name(a.dtype)
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
