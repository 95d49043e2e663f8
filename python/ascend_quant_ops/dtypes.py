"""Data types: canonical names, numpy / torch equivalents, and parsing of user-given dtypes.

The facts (storage size, dmax, ATB codes) come from the compiled dtype table (op_host/tiling_core/dtype_table.cpp)
through `_native.dtype_table()`; this module only maps names to numpy / torch objects.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

import ml_dtypes
import numpy as np

from . import _native
from ._opnames import DYNAMIC_QUANT
from .errors import DTypeError

# Canonical names, as numpy / ml_dtypes / en_dtypes spell them.
FLOAT16 = "float16"
BFLOAT16 = "bfloat16"
FLOAT32 = "float32"
INT8 = "int8"
UINT8 = "uint8"
INT32 = "int32"
HIFLOAT8 = "hifloat8"
FLOAT8_E4M3FN = "float8_e4m3fn"
FLOAT8_E5M2 = "float8_e5m2"
FLOAT8_E4M3FNUZ = "float8_e4m3fnuz"
FLOAT8_E5M2FNUZ = "float8_e5m2fnuz"

#: name -> dict(name, bytes, is_float, is_signed, quant_max, atb_code, finite_max, int_min, int_max, nan_code), from the
#: compiled table.
TABLE: Dict[str, dict] = {row["name"]: row for row in _native.dtype_table()}

#: DynamicQuant output types (those with a dmax), in table order.
DYNAMIC_QUANT_DST_TYPES = tuple(n for n, r in TABLE.items() if r["quant_max"] > 0)
#: QLinearMatMul operand / output types (ONNX opset 21 T1/T2/T3).
QLINEAR_MATMUL_TYPES = (INT8, UINT8, FLOAT8_E4M3FN, FLOAT8_E4M3FNUZ, FLOAT8_E5M2, FLOAT8_E5M2FNUZ)
#: ONNX opset 21 TS.
SCALE_TYPES = (FLOAT32, FLOAT16, BFLOAT16)
#: DynamicQuant input types.
DYNAMIC_QUANT_X_TYPES = (FLOAT16, BFLOAT16)

ATB_CODES = {r["atb_code"]: n for n, r in TABLE.items() if r["atb_code"] >= 0}


def _hifloat8_type():
    import en_dtypes  # imported lazily: only hifloat8 needs it

    return en_dtypes.hifloat8


_NUMPY_SCALAR_TYPES = {
    FLOAT16: np.float16,
    BFLOAT16: ml_dtypes.bfloat16,
    FLOAT32: np.float32,
    INT8: np.int8,
    UINT8: np.uint8,
    INT32: np.int32,
    FLOAT8_E4M3FN: ml_dtypes.float8_e4m3fn,
    FLOAT8_E5M2: ml_dtypes.float8_e5m2,
    FLOAT8_E4M3FNUZ: ml_dtypes.float8_e4m3fnuz,
    FLOAT8_E5M2FNUZ: ml_dtypes.float8_e5m2fnuz,
}


def numpy_dtype(name: str) -> np.dtype:
    """The numpy dtype of a canonical name (bfloat16 / float8 from ml_dtypes, hifloat8 from en_dtypes)."""
    if name == HIFLOAT8:
        return np.dtype(_hifloat8_type())
    return np.dtype(_NUMPY_SCALAR_TYPES[name])


def dmax(name: str) -> float:
    """The DynamicQuant quantization maximum of an output type (docs/references.md#atb-dynamicquant)."""
    q = TABLE[name]["quant_max"]
    if q <= 0:
        raise KeyError(f"{name} is not a DynamicQuant output type")
    return float(q)


def itemsize(name: str) -> int:
    return int(TABLE[name]["bytes"])


def torch_dtype(name: str):
    """The torch dtype that carries `name`. torch has no hifloat8: its bit patterns travel as uint8."""
    from ._torch import import_torch

    torch, why = import_torch()
    if torch is None:
        raise RuntimeError(f"torch dtypes need torch: {why}")
    if name == HIFLOAT8:
        return torch.uint8
    return getattr(torch, name)


def _name_of_torch_dtype(obj: Any) -> Optional[str]:
    import sys

    torch = sys.modules.get("torch")  # a torch dtype exists only if torch was imported: never import it here
    if torch is None or not hasattr(torch, "dtype"):
        return None
    if isinstance(obj, torch.dtype):
        s = str(obj).replace("torch.", "")
        return {"half": FLOAT16, "float": FLOAT32, "int": INT32}.get(s, s)
    return None


# numpy computes dtype.name in Python on every access (several microseconds): names of numpy dtypes seen before
_NUMPY_DTYPE_NAMES: Dict[np.dtype, Optional[str]] = {}


def dtype_name(obj: Any) -> Optional[str]:
    """Canonical name of a numpy / torch dtype, a dtype name, or an array / tensor; None when unknown."""
    if isinstance(obj, np.dtype):
        name = _NUMPY_DTYPE_NAMES.get(obj, False)
        if name is False:
            name = _NUMPY_DTYPE_NAMES[obj] = obj.name if obj.name in TABLE else None
        return name
    if isinstance(obj, str):
        s = obj.strip().lower()
        aliases = {"fp16": FLOAT16, "half": FLOAT16, "bf16": BFLOAT16, "fp32": FLOAT32, "float": FLOAT32,
                   "hif8": HIFLOAT8, "fp8_e4m3fn": FLOAT8_E4M3FN, "fp8_e5m2": FLOAT8_E5M2}
        s = aliases.get(s, s)
        return s if s in TABLE else None
    t = _name_of_torch_dtype(obj)
    if t is not None:
        return t if t in TABLE else None
    if hasattr(obj, "dtype") and not isinstance(obj, (type, np.dtype)):
        return dtype_name(obj.dtype)
    try:
        d = np.dtype(obj)
    except TypeError:
        return None
    return d.name if d.name in TABLE else None


def parse_dtype(obj: Any, *, op: str, argument: str, allowed=None) -> str:
    """Canonical dtype name of `obj`, or a DTypeError naming op and argument."""
    name = dtype_name(obj)
    if name is None or (allowed is not None and name not in allowed):
        raise DTypeError(op, argument, "unsupported dtype", actual=_show(obj),
                         expected=" / ".join(allowed) if allowed else "a known dtype")
    return name


def parse_dst_type(obj: Any, *, op: str = DYNAMIC_QUANT, argument: str = "dst_type") -> str:
    """dst_type of DynamicQuant: a name, a numpy / torch dtype, or an ATB outTensorType code (2, 34, 35, 36)."""
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, bool):
        if int(obj) in ATB_CODES:
            return ATB_CODES[int(obj)]
        raise DTypeError(op, argument, "unknown ATB outTensorType code", actual=int(obj),
                         expected=", ".join(f"{c} ({n})" for c, n in sorted(ATB_CODES.items())))
    return parse_dtype(obj, op=op, argument=argument, allowed=DYNAMIC_QUANT_DST_TYPES)


def _show(obj: Any) -> str:
    if hasattr(obj, "dtype") and not isinstance(obj, (type, np.dtype)):
        return str(obj.dtype)
    return repr(obj) if isinstance(obj, str) else str(obj)
