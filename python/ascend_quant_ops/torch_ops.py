"""PyTorch operators: `torch.ops.ascend_quant_ops.dynamic_quant` and `torch.ops.ascend_quant_ops.qlinear_matmul`.

Each op has three implementations:

* CPU: the fast CPU kernels (`cpu/`, bit for bit the golden `golden/`) on the tensors' data, viewed as numpy
  arrays (bfloat16 and float8 through bit-views, so no value is ever rounded on the way).
* Fake (meta): shapes and dtypes only, so that `torch.compile(fullgraph=True)` traces through the ops.
* PrivateUse1 (the NPU): registered in C++ by the extension `npu_ext/aqo_npu_ops.cpp`, which calls the custom
  operators' aclnn API. `npu.load_extension()` loads it; until then an NPU tensor has no kernel.

Op schemas (chosen so that one schema serves both modes and every device):

    dynamic_quant(Tensor x, Tensor? smooth_scales, int dst_type, bool asymmetric) -> (Tensor, Tensor, Tensor)
        dst_type is ATB's outTensorType code, which is also aclDataType's code: 2 int8, 34 hifloat8,
        35 float8_e5m2, 36 float8_e4m3fn. Always returns (y, scale, offset); offset is zeros when
        asymmetric is False. hifloat8 y is torch.uint8 holding the bit patterns (torch has no hifloat8).
    qlinear_matmul(Tensor a, Tensor a_scale, Tensor a_zero_point, Tensor b, Tensor b_scale,
                   Tensor b_zero_point, Tensor y_scale, Tensor y_zero_point) -> Tensor
        y has y_zero_point's dtype and numpy.matmul's shape of a and b.

The Python helpers `dynamic_quant` and `qlinear_matmul` below validate the arguments (typed errors from
errors.py), call the ops, and drop offset when it was not asked for; the public API calls them for torch tensors.
`npu_dynamic_quant` has torch_npu.npu_dynamic_quant's signature, so code written for torch_npu switches by
changing one name.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch
from torch import Tensor

from . import _convert, api, dtypes
from .errors import ConstraintError, DTypeError

NAMESPACE = "ascend_quant_ops"
DQ = "dynamic_quant"
QMM = "qlinear_matmul"

__all__ = [
    "dynamic_quant",
    "qlinear_matmul",
    "npu_dynamic_quant",
    "npu_dynamic_quant_asymmetric",
    "normalize_npu_dynamic_quant_kwargs",
    "dst_type_code",
    "dst_type_from_code",
    "to_numpy",
    "from_numpy",
]


# ---------------------------------------------------------------------------------------------------------------
# dtype codes and exact torch <-> numpy conversion
# ---------------------------------------------------------------------------------------------------------------

def dst_type_code(dst_type: Any) -> int:
    """ATB / aclDataType code of a DynamicQuant output type given in any accepted form."""
    return int(dtypes.TABLE[dtypes.parse_dst_type(dst_type, op=DQ, argument="dst_type")]["atb_code"])


def dst_type_from_code(code: int) -> str:
    """Canonical dtype name of an ATB code; DTypeError for an unknown code."""
    return dtypes.parse_dst_type(int(code), op=DQ, argument="dst_type")


def to_numpy(t: Tensor) -> np.ndarray:
    """A CPU tensor as a numpy array of the same values (bfloat16 / float8 as ml_dtypes, through bit-views)."""
    return _convert.torch_to_numpy(t, op="to_numpy", argument="tensor")


def from_numpy(a: np.ndarray) -> Tensor:
    """A numpy array as a CPU tensor of the same values and shape; hifloat8 becomes torch.uint8 bit patterns."""
    return _convert.numpy_to_torch(a)


# ---------------------------------------------------------------------------------------------------------------
# The ops
# ---------------------------------------------------------------------------------------------------------------

@torch.library.custom_op(f"{NAMESPACE}::{DQ}", mutates_args=(), device_types="cpu")
def _dynamic_quant_op(x: Tensor, smooth_scales: Optional[Tensor], dst_type: int,
                      asymmetric: bool) -> Tuple[Tensor, Tensor, Tensor]:
    from .cpu.dynamic_quant import dynamic_quant_torch  # the golden's semantics, fused, into torch outputs

    return dynamic_quant_torch(x, smooth_scales, dst_type_from_code(dst_type), bool(asymmetric))


@_dynamic_quant_op.register_fake
def _dynamic_quant_fake(x, smooth_scales, dst_type, asymmetric):
    _check_dynamic_quant(x, smooth_scales)
    y_dtype = dtypes.torch_dtype(dst_type_from_code(dst_type))
    rows = x.shape[:-1]
    return (x.new_empty(x.shape, dtype=y_dtype), x.new_empty(rows, dtype=torch.float32),
            x.new_empty(rows, dtype=torch.float32))


@torch.library.custom_op(f"{NAMESPACE}::{QMM}", mutates_args=(), device_types="cpu")
def _qlinear_matmul_op(a: Tensor, a_scale: Tensor, a_zero_point: Tensor, b: Tensor, b_scale: Tensor,
                       b_zero_point: Tensor, y_scale: Tensor, y_zero_point: Tensor) -> Tensor:
    from .cpu.qlinear_matmul import qlinear_matmul as cpu_kernel  # the golden's semantics on an int8 GEMM

    args = [to_numpy(t) for t in (a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)]
    return from_numpy(np.asarray(cpu_kernel(*args)))


@_qlinear_matmul_op.register_fake
def _qlinear_matmul_fake(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point):
    _check_qlinear_matmul(a, a_zero_point, b, b_zero_point, y_scale, y_zero_point)
    return a.new_empty(matmul_shape(list(a.shape), list(b.shape)), dtype=y_zero_point.dtype)


def _outputs_are_not_differentiable(ctx, inputs, output):
    # Quantization has no gradient: the outputs never require grad, whatever the inputs do (as the numpy and
    # emulator paths return them), instead of failing later in backward().
    ctx.mark_non_differentiable(*(output if isinstance(output, tuple) else (output,)))


def _no_gradient(ctx, *grads):
    raise RuntimeError("ascend_quant_ops operators are not differentiable")


_dynamic_quant_op.register_autograd(_no_gradient, setup_context=_outputs_are_not_differentiable)
_qlinear_matmul_op.register_autograd(_no_gradient, setup_context=_outputs_are_not_differentiable)


def matmul_shape(a_shape: Sequence, b_shape: Sequence) -> List:
    """numpy.matmul's output shape (1-D operands promoted, then their added axis removed); the golden's shape
    rules and errors (0-d operand, K mismatch, batch dimensions that do not broadcast), on symbolic sizes too."""
    from .golden.qlinear_matmul import matmul_shapes

    return list(matmul_shapes(a_shape, b_shape)[2])


# ---------------------------------------------------------------------------------------------------------------
# Validation shared by the helpers and the fake implementations (the golden validates again on CPU: these checks
# exist so that a wrong call fails with a typed error before any kernel, on every device and under compile).
# ---------------------------------------------------------------------------------------------------------------

def _require_tensor(op: str, name: str, t: Any) -> None:
    if not isinstance(t, Tensor):
        raise ConstraintError(op, name, "must be a torch.Tensor", expected="torch.Tensor",
                              actual=type(t).__name__)


def _check_dynamic_quant(x: Tensor, smooth_scales: Optional[Tensor]) -> None:
    _require_tensor(DQ, "x", x)
    x_name = dtypes.parse_dtype(x.dtype, op=DQ, argument="x", allowed=dtypes.DYNAMIC_QUANT_X_TYPES)
    if x.dim() < 2:
        raise ConstraintError(DQ, "x", "rank must be at least 2 (rows x last axis)", limit=2,
                              actual=f"rank {x.dim()}, shape {list(x.shape)}",
                              suggestion="Reshape a vector of H elements to [1, H].")
    if smooth_scales is not None:
        _require_tensor(DQ, "smooth_scales", smooth_scales)
        dtypes.parse_dtype(smooth_scales.dtype, op=DQ, argument="smooth_scales", allowed=(x_name,))
        if list(smooth_scales.shape) != [x.shape[-1]]:
            raise ConstraintError(DQ, "smooth_scales", "shape must be [H], H = the last dimension of x",
                                  expected=[x.shape[-1]], actual=list(smooth_scales.shape))
        if smooth_scales.device != x.device:
            raise ConstraintError(DQ, "smooth_scales", "must be on x's device", expected=str(x.device),
                                  actual=str(smooth_scales.device))


def _check_qlinear_matmul(a, a_zero_point, b, b_zero_point, y_scale, y_zero_point) -> None:
    for name, t in (("a", a), ("a_zero_point", a_zero_point), ("b", b), ("b_zero_point", b_zero_point),
                    ("y_scale", y_scale), ("y_zero_point", y_zero_point)):
        _require_tensor(QMM, name, t)
    for data, zp, dname, zname in ((a, a_zero_point, "a", "a_zero_point"), (b, b_zero_point, "b", "b_zero_point")):
        dtypes.parse_dtype(data.dtype, op=QMM, argument=dname, allowed=dtypes.QLINEAR_MATMUL_TYPES)
        if zp.dtype != data.dtype:
            raise DTypeError(QMM, zname, f"must have the dtype of {dname}", expected=str(data.dtype),
                             actual=str(zp.dtype))
    dtypes.parse_dtype(y_zero_point.dtype, op=QMM, argument="y_zero_point", allowed=dtypes.QLINEAR_MATMUL_TYPES)
    matmul_shape(list(a.shape), list(b.shape))


# ---------------------------------------------------------------------------------------------------------------
# Python helpers (what api.py calls for torch tensors)
# ---------------------------------------------------------------------------------------------------------------

def dynamic_quant(x: Tensor, smooth_scales: Optional[Tensor] = None, *, dst_type: Any = "int8",
                  asymmetric: bool = False):
    """Per-row dynamic quantization of torch tensors: (y, scale), or (y, scale, offset) when asymmetric.

    dst_type: a name, a numpy / torch dtype, or an ATB code (2, 34, 35, 36). hifloat8 y is torch.uint8 bits.
    Runs on x's device: the CPU kernels (the golden's results) on CPU, the custom operator on an NPU (after
    npu.load_extension()).
    """
    _check_dynamic_quant(x, smooth_scales)
    if not isinstance(asymmetric, (bool, np.bool_)):
        raise ConstraintError(DQ, "asymmetric", "must be a bool", expected="True or False", actual=repr(asymmetric))
    if asymmetric and x.device.type not in ("cpu", "meta"):
        # The device operator implements seed 004's symmetric quantization only (cmake/cann/ops.json).
        raise ConstraintError(DQ, "asymmetric", "the NPU operator is symmetric only", expected="False",
                              actual=True, suggestion="Run asymmetric quantization on CPU tensors (backend 'cpu').")
    # dst_type=None is torch_npu's spelling of int8, accepted here as by ascend_quant_ops.dynamic_quant
    code = dst_type_code("int8" if dst_type is None else dst_type)
    y, scale, offset = torch.ops.ascend_quant_ops.dynamic_quant(x, smooth_scales, code, bool(asymmetric))
    return (y, scale, offset) if asymmetric else (y, scale)


def qlinear_matmul(a: Tensor, a_scale: Tensor, a_zero_point: Tensor, b: Tensor, b_scale: Tensor,
                   b_zero_point: Tensor, y_scale: Tensor, y_zero_point: Tensor) -> Tensor:
    """ONNX QLinearMatMul of torch tensors (semantics of golden/qlinear_matmul.py); y has y_zero_point's dtype."""
    _check_qlinear_matmul(a, a_zero_point, b, b_zero_point, y_scale, y_zero_point)
    for name, t in (("a_scale", a_scale), ("b_scale", b_scale)):
        _require_tensor(QMM, name, t)
    return torch.ops.ascend_quant_ops.qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point,
                                                      y_scale, y_zero_point)


# ---------------------------------------------------------------------------------------------------------------
# Drop-in for torch_npu.npu_dynamic_quant
# ---------------------------------------------------------------------------------------------------------------

#: torch_npu.npu_dynamic_quant's keyword arguments this package takes at their torch_npu defaults only.
NPU_DYNAMIC_QUANT_DEFAULTS = api.TORCH_NPU_DQ_DEFAULTS


def normalize_npu_dynamic_quant_kwargs(**kw) -> Dict[str, Any]:
    """torch_npu.npu_dynamic_quant keyword arguments -> this package's dynamic_quant keyword arguments.

    Accepts smooth_scales, dst_type (None = int8, a torch dtype, a name or an ATB code), asymmetric, and
    torch_npu's group_index / quant_mode / dst_type_max at their defaults only (None, "pertoken", 0.0; checked
    by api.check_torch_npu_dq_kwargs); any other value, or an unknown name, raises ConstraintError naming it.
    Returns a dict with the keys smooth_scales, dst_type, asymmetric (only those given), ready for
    `dynamic_quant(x, **result)`.
    """
    out: Dict[str, Any] = {}
    defaults_only: Dict[str, Any] = {}
    for name, value in kw.items():
        if name in ("smooth_scales", "asymmetric"):
            out[name] = value
        elif name == "dst_type":
            out[name] = "int8" if value is None else value
        elif name in NPU_DYNAMIC_QUANT_DEFAULTS:
            defaults_only[name] = value
        else:
            raise ConstraintError(DQ, name, "unknown keyword argument",
                                  expected="smooth_scales, dst_type, asymmetric, group_index, quant_mode, "
                                           "dst_type_max", actual=name)
    api.check_torch_npu_dq_kwargs(defaults_only)
    return out


def npu_dynamic_quant(input: Tensor, *, smooth_scales: Optional[Tensor] = None, group_index=None,
                      dst_type=None, quant_mode: str = "pertoken", dst_type_max: float = 0.0):
    """torch_npu.npu_dynamic_quant's signature -> (y, scale), computed by this package's operator."""
    kw = normalize_npu_dynamic_quant_kwargs(smooth_scales=smooth_scales, group_index=group_index,
                                            dst_type=dst_type, quant_mode=quant_mode, dst_type_max=dst_type_max)
    return dynamic_quant(input, **kw)


def npu_dynamic_quant_asymmetric(input: Tensor, *, smooth_scales: Optional[Tensor] = None, group_index=None,
                                 dst_type=None, quant_mode: str = "pertoken", dst_type_max: float = 0.0):
    """torch_npu.npu_dynamic_quant_asymmetric's signature -> (y, scale, offset)."""
    kw = normalize_npu_dynamic_quant_kwargs(smooth_scales=smooth_scales, group_index=group_index,
                                            dst_type=dst_type, quant_mode=quant_mode, dst_type_max=dst_type_max)
    return dynamic_quant(input, asymmetric=True, **kw)
