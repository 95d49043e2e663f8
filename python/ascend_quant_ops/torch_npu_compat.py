"""torch_npu compatibility: the rules for taking torch_npu.npu_dynamic_quant's and torch_npu.npu_quant_matmul's
arguments, in one place.

`ascend_quant_ops.dynamic_quant` and the torch helpers (`torch_ops.npu_dynamic_quant`, ...) accept torch_npu's
keyword arguments so that code written for torch_npu switches by changing one name. This package implements
per-token (per-row) quantization only, so torch_npu's other modes are accepted at their defaults only:
group_index=None, quant_mode="pertoken", dst_type_max=0.0. dst_type=None means int8, as in torch_npu.

npu_quant_matmul(x1, x2, scale, *, offset=None, pertoken_scale=None, bias=None, output_dtype=None)
(docs/references.md#torch-npu) maps onto
quant_matmul(a=x1, a_scale=pertoken_scale (1 when None), a_zero_point=None, b=x2, b_scale=scale,
b_zero_point=None, bias=bias, out_dtype=output_dtype), whose definition applies: float32(acc) *
float32(pertoken_scale * scale) + bias, one rounding to the output type (torch_npu's device kernel rounds the
scale to a 19-bit float first, docs/references.md#quant-matmul-fp19). Supported, beyond what torch_npu takes: x1 of
any rank with pertoken_scale of shape x1.shape[:-1] (or [..., M, 1]), x2 as a transposed [N, K] view, float16
scales, a float32 output, uint8 operands, any N. Refused with a clear error: int32 x1 / x2 (packed int4), an int64
scale (npu_trans_quant_param's packed form), offset (it requantizes an int8 output), an int32 bias (added to the
accumulator before the scales), and output_dtype None or torch.int8 (torch_npu's requantized int8 output: use
qlinear_matmul for quantized outputs).

This module imports neither torch nor the rest of the package's API (api.py and torch_ops.py both import it).
"""
from __future__ import annotations

from typing import Any, Dict

import numpy as np

from . import dtypes
from ._opnames import DYNAMIC_QUANT, QUANT_MATMUL
from .errors import ConstraintError, DTypeError

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


def npu_quant_matmul_arguments(x1, x2, scale, *, offset=None, pertoken_scale=None, bias=None,
                               output_dtype=None) -> Dict[str, Any]:
    """torch_npu.npu_quant_matmul's arguments -> {"a_scale": pertoken_scale or None, "out_dtype": output_dtype},
    after refusing (ConstraintError / DTypeError naming torch_npu's argument) what quant_matmul does not compute.
    x1, x2, scale and bias pass unchanged (as a, b, b_scale and bias); quant_matmul then checks them as usual."""
    for name, t in (("x1", x1), ("x2", x2)):
        if dtypes.dtype_name(getattr(t, "dtype", None)) == dtypes.INT32:
            raise DTypeError(QUANT_MATMUL, name, "int32 operands carry packed int4 values in torch_npu; int4 is not "
                             "implemented", expected="int8 / uint8", actual="int32 (packed int4)",
                             suggestion="unpack to int8 (one value per element)")
    if str(getattr(scale, "dtype", "")).endswith("int64"):
        raise DTypeError(QUANT_MATMUL, "scale", "an int64 scale is npu_trans_quant_param's packed form (a 19-bit "
                         "float in integer bits), which would change the result", expected="float32 / float16 / "
                         "bfloat16", actual="int64", suggestion="pass the float32 scale itself")
    if offset is not None:
        raise ConstraintError(QUANT_MATMUL, "offset", "offset requantizes torch_npu's int8 output; quant_matmul's "
                              "output is float", expected="None", actual=f"a {type(offset).__name__}",
                              suggestion="for a quantized output use qlinear_matmul (ONNX QLinearMatMul)")
    if bias is not None and dtypes.dtype_name(getattr(bias, "dtype", None)) == dtypes.INT32:
        raise DTypeError(QUANT_MATMUL, "bias", "torch_npu adds an int32 bias to the int32 accumulator, before the "
                         "scales; quant_matmul adds a float bias after them", expected="float32 / float16 / "
                         "bfloat16", actual="int32", suggestion="pass the bias in float: bias * scale * "
                         "pertoken_scale gives the same result up to rounding")
    if output_dtype is None or dtypes.dtype_name(output_dtype) == dtypes.INT8:
        raise ConstraintError(QUANT_MATMUL, "output_dtype", "torch_npu's default output (None) and torch.int8 are a "
                              "requantized int8 output, which quant_matmul does not produce",
                              expected="torch.float16, torch.bfloat16 or torch.float32",
                              actual="None (int8)" if output_dtype is None else str(output_dtype),
                              suggestion="pass output_dtype=torch.float16 or torch.bfloat16; for an int8 output "
                                         "use qlinear_matmul")
    return {"a_scale": pertoken_scale, "out_dtype": output_dtype}
