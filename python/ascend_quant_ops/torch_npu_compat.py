"""torch_npu compatibility: the rules for taking torch_npu.npu_dynamic_quant's arguments, in one place.

`ascend_quant_ops.dynamic_quant` and the torch helpers (`torch_ops.npu_dynamic_quant`, ...) accept torch_npu's
keyword arguments so that code written for torch_npu switches by changing one name. This package implements
per-token (per-row) quantization only, so torch_npu's other modes are accepted at their defaults only:
group_index=None, quant_mode="pertoken", dst_type_max=0.0. dst_type=None means int8, as in torch_npu.

This module imports neither torch nor the rest of the package's API (api.py and torch_ops.py both import it).
"""
from __future__ import annotations

from typing import Any, Dict

import numpy as np

from ._opnames import DYNAMIC_QUANT
from .errors import ConstraintError

#: torch_npu.npu_dynamic_quant's keyword arguments taken at their torch_npu defaults only.
DEFAULTS_ONLY = {"group_index": None, "quant_mode": "pertoken", "dst_type_max": 0.0}
#: every keyword argument of torch_npu.npu_dynamic_quant (and of its asymmetric variant).
KEYWORDS = ("smooth_scales", "dst_type") + tuple(DEFAULTS_ONLY)


def default_dst_type(dst_type: Any) -> Any:
    """torch_npu spells its default output type dst_type=None: int8."""
    return "int8" if dst_type is None else dst_type


def check_defaults_only(kwargs: Dict[str, Any]) -> None:
    """TypeError for a keyword torch_npu.npu_dynamic_quant does not have (as Python reports an unexpected
    keyword); ConstraintError for group_index / quant_mode / dst_type_max at a value other than its default."""
    for name, value in kwargs.items():
        if name not in DEFAULTS_ONLY:
            raise TypeError(f"dynamic_quant() got an unexpected keyword argument '{name}'")
        if name == "group_index" and value is not None:
            raise ConstraintError(DYNAMIC_QUANT, "group_index", "MoE group quantization is not implemented",
                                  expected="None", actual=f"a {type(value).__name__}",
                                  suggestion="Quantize each group's rows separately.")
        if name == "quant_mode" and not (isinstance(value, str) and value == "pertoken"):
            raise ConstraintError(DYNAMIC_QUANT, "quant_mode", "only per-token (per-row) quantization is implemented",
                                  expected="'pertoken'", actual=repr(value))
        if name == "dst_type_max" and (isinstance(value, bool) or not isinstance(value, (int, float, np.number))
                                       or float(value) != 0.0):
            raise ConstraintError(DYNAMIC_QUANT, "dst_type_max", "a custom quantization maximum is not implemented",
                                  expected="0.0 (the dtype's own maximum)", actual=repr(value))


def normalize_npu_dynamic_quant_kwargs(**kw) -> Dict[str, Any]:
    """torch_npu.npu_dynamic_quant keyword arguments -> this package's dynamic_quant keyword arguments.

    Accepts smooth_scales, dst_type (None = int8, a torch dtype, a name or an ATB code), asymmetric, and
    torch_npu's group_index / quant_mode / dst_type_max at their defaults only; any other value, or an unknown
    name, raises ConstraintError naming it. Returns the keys smooth_scales, dst_type, asymmetric (those given),
    ready for `dynamic_quant(x, **result)`.
    """
    out: Dict[str, Any] = {}
    defaults_only: Dict[str, Any] = {}
    for name, value in kw.items():
        if name in ("smooth_scales", "asymmetric"):
            out[name] = value
        elif name == "dst_type":
            out[name] = default_dst_type(value)
        elif name in DEFAULTS_ONLY:
            defaults_only[name] = value
        else:
            raise ConstraintError(DYNAMIC_QUANT, name, "unknown keyword argument",
                                  expected=", ".join(KEYWORDS + ("asymmetric",)), actual=name)
    check_defaults_only(defaults_only)
    return out
