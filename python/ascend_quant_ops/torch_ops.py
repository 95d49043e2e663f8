"""PyTorch operators: `torch.ops.ascend_quant_ops.dynamic_quant`, `.dynamic_quant_asymmetric`, `.qlinear_matmul` and
`.quant_matmul`.

Op schemas (the torch_npu style: defaults, the output type as a keyword-only ScalarType):

    dynamic_quant(Tensor x, Tensor? smooth_scales=None, *, ScalarType? dst_type=None) -> (Tensor y, Tensor scale)
    dynamic_quant_asymmetric(Tensor x, Tensor? smooth_scales=None, *, ScalarType? dst_type=None)
        -> (Tensor y, Tensor scale, Tensor offset)
    qlinear_matmul(Tensor a, Tensor a_scale, Tensor a_zero_point, Tensor b, Tensor b_scale, Tensor b_zero_point,
                   Tensor y_scale, Tensor y_zero_point) -> Tensor y
    quant_matmul(Tensor a, Tensor a_scale, Tensor? a_zero_point, Tensor b, Tensor b_scale,
                 Tensor? b_zero_point=None, Tensor? bias=None, *, ScalarType? out_dtype=None) -> Tensor y

    dst_type: None or torch.int8 (int8), torch.float8_e4m3fn, torch.float8_e5m2, or torch.uint8 for hifloat8 (torch
    has no hifloat8: its y is a torch.uint8 tensor of HiF8 bit patterns); for dynamic_quant_asymmetric also
    torch.quint8, which selects the uint8 mode with an integer zero point (torch.uint8 already names hifloat8):
    y and offset are then torch.uint8. y of qlinear_matmul has y_zero_point's dtype and numpy.matmul's shape of a
    and b. quant_matmul's out_dtype: None (float32), torch.float32, torch.float16 or torch.bfloat16; its zero
    points may be None (0). (torch.library does not take keyword-only Tensor arguments, so smooth_scales and bias
    are positional with a default; `smooth_scales=s`, `bias=c` work as in torch_npu.)

    y, scale = torch.ops.ascend_quant_ops.dynamic_quant(x)
    y, scale = torch.ops.ascend_quant_ops.dynamic_quant(x, smooth_scales=s, dst_type=torch.float8_e4m3fn)

Each op has three implementations:
* CPU: the tensors become numpy arrays (bfloat16 and float8 through bit-views, no value rounded), are validated
  once (the golden's checks, typed errors) and computed by the cpu backend (_backend_cpu.py), then come back.
* Fake (meta): shapes and dtypes only, so that `torch.compile(fullgraph=True)` traces through the ops.
* PrivateUse1 (the NPU): registered in C++ by the extension `npu_ext/aqo_npu_ops.cpp`, which calls the custom
  operators' aclnn API. `npu.load_extension()` loads it; until then an NPU tensor has no kernel. The device
  operator AqoDynamicQuant has both modes (its asymmetric attribute, the optional offset output), so both
  DynamicQuant ops have NPU kernels. quant_matmul's NPU kernel calls the AqoQuantMatMul operator (attributes
  out_dtype and b_trans: a transposed weight view goes as its storage), qlinear_matmul's the AqoQLinearMatMul
  operator (attribute b_trans likewise, for int8 / uint8 b); without the extension loaded the helpers
  refuse NPU tensors with BackendUnavailableError.

The Python helpers `dynamic_quant` and `qlinear_matmul` below take every dst_type form (names, numpy / torch dtypes,
ATB codes) and call the ops; `npu_dynamic_quant` has torch_npu.npu_dynamic_quant's signature, so code written for
torch_npu switches by changing one name; `npu_quant_matmul` likewise maps torch_npu.npu_quant_matmul's arguments
onto quant_matmul (torch_npu_compat.py says which are supported).
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import torch
from torch import Tensor

from . import _backend_cpu, _convert, dtypes, torch_npu_compat
from ._opnames import (DYNAMIC_QUANT, QLINEAR_MATMUL, QUANT_MATMUL, TORCH_DYNAMIC_QUANT,
                       TORCH_DYNAMIC_QUANT_ASYMMETRIC, TORCH_QLINEAR_MATMUL, TORCH_QUANT_MATMUL, qualified)
from .errors import BackendUnavailableError, ConstraintError, DTypeError
from .golden import _matmul_operands
from .golden import dynamic_quant as _golden_dq
from .golden import qlinear_matmul as _golden_qmm
from .golden import quant_matmul as _golden_qm
from .torch_npu_compat import normalize_npu_dynamic_quant_kwargs  # noqa: F401  (re-exported)

DQ = DYNAMIC_QUANT
QMM = QLINEAR_MATMUL
QM = QUANT_MATMUL

__all__ = [
    "dynamic_quant",
    "qlinear_matmul",
    "quant_matmul",
    "npu_dynamic_quant",
    "npu_dynamic_quant_asymmetric",
    "npu_quant_matmul",
    "normalize_npu_dynamic_quant_kwargs",
    "dst_type_code",
    "dst_type_from_code",
    "dst_scalar_type",
    "to_numpy",
    "from_numpy",
]

#: torch_npu.npu_dynamic_quant's keyword arguments this package takes at their torch_npu defaults only.
NPU_DYNAMIC_QUANT_DEFAULTS = torch_npu_compat.DEFAULTS_ONLY


# ---------------------------------------------------------------------------------------------------------------
# dtype forms and exact torch <-> numpy conversion
# ---------------------------------------------------------------------------------------------------------------

def dst_type_code(dst_type: Any) -> int:
    """ATB / aclDataType code of a DynamicQuant output type given in any accepted form."""
    return int(dtypes.TABLE[dtypes.parse_dst_type(dst_type, op=DQ, argument="dst_type")]["atb_code"])


def dst_type_from_code(code: int) -> str:
    """Canonical dtype name of an ATB code; DTypeError for an unknown code."""
    return dtypes.parse_dst_type(int(code), op=DQ, argument="dst_type")


# canonical DynamicQuant output type -> the ScalarType the ops take (torch has no hifloat8: torch.uint8; the
# asymmetric uint8 mode, whose zero point is an integer: torch.quint8, torch's "uint8 with a scale and a zero
# point"); a plain dict, so that torch.compile traces the helpers without a graph break
_DST_SCALAR_TYPES = {name: (torch.uint8 if name == dtypes.HIFLOAT8 else getattr(torch, name))
                     for name in dtypes.DYNAMIC_QUANT_DST_TYPES}
_DST_SCALAR_TYPES[dtypes.UINT8] = torch.quint8


def dst_scalar_type(dst: str) -> torch.dtype:
    """The ScalarType the ops take for a canonical DynamicQuant output type (hifloat8: torch.uint8, the
    asymmetric uint8 mode: torch.quint8)."""
    return _DST_SCALAR_TYPES[dst]


def _y_dtype(dst: str) -> torch.dtype:
    """The dtype of y (and, in the uint8 mode, of offset) for a canonical output type."""
    return torch.uint8 if dst == dtypes.UINT8 else dst_scalar_type(dst)


_DST_OF_SCALAR_TYPE = {t: name for name, t in _DST_SCALAR_TYPES.items()}


def _dst_name(dst_type: Optional[torch.dtype]) -> str:
    """The op's ScalarType? dst_type -> canonical output type name (None = int8, torch.uint8 = hifloat8)."""
    if dst_type is None:
        return dtypes.INT8
    if dst_type not in _DST_OF_SCALAR_TYPE:
        raise DTypeError(DQ, "dst_type", "unsupported output type", actual=str(dst_type),
                         expected=" / ".join(f"torch.{str(t).replace('torch.', '')} ({n})"
                                             for t, n in _DST_OF_SCALAR_TYPE.items()))
    return _DST_OF_SCALAR_TYPE[dst_type]


def _dst_mode_name(dst_type: Optional[torch.dtype], asymmetric: bool) -> str:
    """_dst_name, and the uint8 mode (torch.quint8) refused by the symmetric op, as the golden refuses it."""
    dst = _dst_name(dst_type)
    if dst == dtypes.UINT8:
        _golden_dq.parse_dst_type(dst, asymmetric)  # DTypeError unless asymmetric
    return dst


def to_numpy(t: Tensor) -> Any:
    """A CPU tensor as a numpy array of the same values (bfloat16 / float8 as ml_dtypes, through bit-views)."""
    return _convert.torch_to_numpy(t, op="to_numpy", argument="tensor")


def from_numpy(a) -> Tensor:
    """A numpy array as a CPU tensor of the same values and shape; hifloat8 becomes torch.uint8 bit patterns."""
    return _convert.numpy_to_torch(a)


# ---------------------------------------------------------------------------------------------------------------
# The ops
# ---------------------------------------------------------------------------------------------------------------

def _dynamic_quant_cpu(x: Tensor, smooth_scales: Optional[Tensor], dst_type: Optional[torch.dtype],
                       asymmetric: bool):
    xn, _ = _convert.to_numpy(x, op=DQ, argument="x", allowed=dtypes.DYNAMIC_QUANT_X_TYPES)
    sn, _ = _convert.to_numpy(smooth_scales, op=DQ, argument="smooth_scales", allow_none=True,
                              allowed=dtypes.DYNAMIC_QUANT_X_TYPES)
    dst = _dst_mode_name(dst_type, asymmetric)
    _golden_dq.validate_arrays(xn, sn)
    return tuple(_convert.numpy_to_torch(o, fresh=True) for o in _backend_cpu.dynamic_quant(xn, sn, dst, asymmetric))


@torch.library.custom_op(qualified(TORCH_DYNAMIC_QUANT), mutates_args=(), device_types="cpu")
def _dynamic_quant_op(x: Tensor, smooth_scales: Optional[Tensor] = None, *,
                      dst_type: Optional[torch.dtype] = None) -> Tuple[Tensor, Tensor]:
    return _dynamic_quant_cpu(x, smooth_scales, dst_type, False)


@torch.library.custom_op(qualified(TORCH_DYNAMIC_QUANT_ASYMMETRIC), mutates_args=(), device_types="cpu")
def _dynamic_quant_asymmetric_op(x: Tensor, smooth_scales: Optional[Tensor] = None, *,
                                 dst_type: Optional[torch.dtype] = None) -> Tuple[Tensor, Tensor, Tensor]:
    return _dynamic_quant_cpu(x, smooth_scales, dst_type, True)


def _dynamic_quant_outputs(x, smooth_scales, dst_type, n_outputs):
    _check_dynamic_quant(x, smooth_scales)
    dst = _dst_mode_name(dst_type, n_outputs == 3)
    rows = x.shape[:-1]
    scale = x.new_empty(rows, dtype=torch.float32)
    if n_outputs == 2:
        return x.new_empty(x.shape, dtype=_y_dtype(dst)), scale
    offset_dtype = torch.uint8 if dst == dtypes.UINT8 else torch.float32  # uint8: the integer zero point
    return x.new_empty(x.shape, dtype=_y_dtype(dst)), scale, x.new_empty(rows, dtype=offset_dtype)


@_dynamic_quant_op.register_fake
def _dynamic_quant_fake(x, smooth_scales=None, *, dst_type=None):
    return _dynamic_quant_outputs(x, smooth_scales, dst_type, 2)


@_dynamic_quant_asymmetric_op.register_fake
def _dynamic_quant_asymmetric_fake(x, smooth_scales=None, *, dst_type=None):
    return _dynamic_quant_outputs(x, smooth_scales, dst_type, 3)


_QMM_ARGUMENTS = _golden_qmm.ARGUMENTS


@torch.library.custom_op(qualified(TORCH_QLINEAR_MATMUL), mutates_args=(), device_types="cpu")
def _qlinear_matmul_op(a: Tensor, a_scale: Tensor, a_zero_point: Tensor, b: Tensor, b_scale: Tensor,
                       b_zero_point: Tensor, y_scale: Tensor, y_zero_point: Tensor) -> Tensor:
    tensors = (a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)
    arrays = [_convert.to_numpy(t, op=QMM, argument=n)[0] for n, t in zip(_QMM_ARGUMENTS, tensors)]
    return _convert.numpy_to_torch(_backend_cpu.qlinear_matmul(_golden_qmm.QLinearMatMulOperands(*arrays)),
                                   fresh=True)


@_qlinear_matmul_op.register_fake
def _qlinear_matmul_fake(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point):
    _check_qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)
    return a.new_empty(matmul_shape(list(a.shape), list(b.shape)), dtype=y_zero_point.dtype)


_QM_ARGUMENTS = _golden_qm.ARGUMENTS
_QM_OPTIONAL = ("a_zero_point", "b_zero_point", "bias")
# quant_matmul's output types as the op's ScalarType (a plain dict: no graph break under torch.compile)
_OUT_SCALAR_TYPES = {name: getattr(torch, name) for name in _golden_qm.OUT_DTYPES}
_OUT_OF_SCALAR_TYPE = {t: name for name, t in _OUT_SCALAR_TYPES.items()}


def _out_name(out_dtype: Optional[torch.dtype]) -> str:
    """The op's ScalarType? out_dtype -> canonical name (None = float32)."""
    if out_dtype is None:
        return dtypes.FLOAT32
    if out_dtype not in _OUT_OF_SCALAR_TYPE:
        raise DTypeError(QM, "out_dtype", "unsupported output type", actual=str(out_dtype),
                         expected=" / ".join(f"torch.{n}" for n in _OUT_SCALAR_TYPES))
    return _OUT_OF_SCALAR_TYPE[out_dtype]


@torch.library.custom_op(qualified(TORCH_QUANT_MATMUL), mutates_args=(), device_types="cpu")
def _quant_matmul_op(a: Tensor, a_scale: Tensor, a_zero_point: Optional[Tensor], b: Tensor, b_scale: Tensor,
                     b_zero_point: Optional[Tensor] = None, bias: Optional[Tensor] = None, *,
                     out_dtype: Optional[torch.dtype] = None) -> Tensor:
    tensors = (a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias)
    arrays = [_convert.to_numpy(t, op=QM, argument=n, allow_none=n in _QM_OPTIONAL)[0]
              for n, t in zip(_QM_ARGUMENTS, tensors)]
    operands = _golden_qm.QuantMatMulOperands(*arrays[:6], bias=arrays[6], out_dtype=_out_name(out_dtype))
    return from_numpy(_backend_cpu.quant_matmul(operands))


@_quant_matmul_op.register_fake
def _quant_matmul_fake(a, a_scale, a_zero_point, b, b_scale, b_zero_point=None, bias=None, *, out_dtype=None):
    out = _out_name(out_dtype)
    _check_quant_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias, out)
    return a.new_empty(list(_matmul_operands.matmul_shapes(QM, list(a.shape), list(b.shape))[2]),
                       dtype=_OUT_SCALAR_TYPES[out])


def _outputs_are_not_differentiable(ctx, inputs, output, keyword_only_inputs=None):
    # Quantization has no gradient: the outputs never require grad, whatever the inputs do (as the numpy and
    # emulator paths return them), instead of failing later in backward().
    ctx.mark_non_differentiable(*(output if isinstance(output, tuple) else (output,)))


def _no_gradient(ctx, *grads):
    raise RuntimeError("ascend_quant_ops operators are not differentiable")


for _op in (_dynamic_quant_op, _dynamic_quant_asymmetric_op, _qlinear_matmul_op, _quant_matmul_op):
    _op.register_autograd(_no_gradient, setup_context=_outputs_are_not_differentiable)


def matmul_shape(a_shape: Sequence, b_shape: Sequence) -> List:
    """numpy.matmul's output shape (1-D operands promoted, then their added axis removed); the golden's shape
    rules and errors (0-d operand, K mismatch, batch dimensions that do not broadcast), on symbolic sizes too."""
    return list(_golden_qmm.matmul_shapes(a_shape, b_shape)[2])


# ---------------------------------------------------------------------------------------------------------------
# Checks of the fake implementations and of the helpers for tensors on a device: the CPU kernels validate the
# numpy arrays (the golden's checks); these make a wrong call fail with a typed error before any device kernel and
# under torch.compile.
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


def _check_qlinear_matmul(*tensors) -> None:
    for name, t in zip(_QMM_ARGUMENTS, tensors):
        _require_tensor(QMM, name, t)
    a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point = tensors
    for data, zp, dname, zname in ((a, a_zero_point, "a", "a_zero_point"), (b, b_zero_point, "b", "b_zero_point")):
        dtypes.parse_dtype(data.dtype, op=QMM, argument=dname, allowed=dtypes.QLINEAR_MATMUL_TYPES)
        if zp.dtype != data.dtype:
            raise DTypeError(QMM, zname, f"must have the dtype of {dname}", expected=str(data.dtype),
                             actual=str(zp.dtype))
    dtypes.parse_dtype(y_zero_point.dtype, op=QMM, argument="y_zero_point", allowed=dtypes.QLINEAR_MATMUL_TYPES)
    matmul_shape(list(a.shape), list(b.shape))
    # a's and b's scales per tensor or per row / column (the golden's rules: the length M / N, nothing along K), and a
    # zero point of its scale's layout (ONNX; [M] and [M, 1] are one): a device kernel reads the two alike, so another
    # zero point would be read past its end or as another layout. y's: one element each on a device (the plan's
    # check), here as many zero points as scales.
    a2, b2 = _matmul_operands.promoted(a, b)
    layouts = ((a_scale, a_zero_point, "a", lambda p, n: _matmul_operands.per_row_shape(QMM, p, n, a, a2)),
               (b_scale, b_zero_point, "b", lambda p, n: _matmul_operands.per_column_shape(QMM, p, n, b, b2)))
    for scale, zp, tensor, layout in layouts:
        scale_layout = layout(scale, f"{tensor}_scale")
        try:
            zp_layout = layout(zp, f"{tensor}_zero_point")
        except ConstraintError:
            zp_layout = None
        if zp_layout != scale_layout:
            raise ConstraintError(QMM, f"{tensor}_zero_point", f"a zero point must have the shape of its scale "
                                  f"({tensor}_scale)", expected=list(scale.shape), actual=list(zp.shape))
    if y_zero_point.numel() != y_scale.numel():
        raise ConstraintError(QMM, "y_zero_point", "a zero point must have the shape of its scale (y_scale)",
                              expected=list(y_scale.shape), actual=list(y_zero_point.shape))


def _check_quant_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias, out: str) -> None:
    """dtypes, and numpy.matmul's shape rules; the parameter layouts are checked with the data (the CPU kernel)."""
    tensors = (a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias)
    for name, t in zip(_QM_ARGUMENTS, tensors):
        if t is not None or name not in _QM_OPTIONAL:
            _require_tensor(QM, name, t)
    for data, zp, dname, zname in ((a, a_zero_point, "a", "a_zero_point"), (b, b_zero_point, "b", "b_zero_point")):
        dtypes.parse_dtype(data.dtype, op=QM, argument=dname, allowed=_golden_qm.OPERAND_TYPES)
        if zp is not None and zp.dtype != data.dtype:
            raise DTypeError(QM, zname, f"must have the dtype of {dname}", expected=str(data.dtype),
                             actual=str(zp.dtype))
    for name, t in (("a_scale", a_scale), ("b_scale", b_scale), ("bias", bias)):
        if t is not None:
            dtypes.parse_dtype(t.dtype, op=QM, argument=name, allowed=_golden_qm.PARAMETER_FLOAT_TYPES)
    _golden_qm.parse_out_dtype(out)
    _matmul_operands.matmul_shapes(QM, list(a.shape), list(b.shape))


def check_on_device(op: str, *tensors) -> None:
    """The typed checks of a call on a device (NPU, meta) before its kernel: what the fake implementation
    checks (quant_matmul: its seven tensors, then the canonical out_dtype name)."""
    if op == DQ:
        _check_dynamic_quant(*tensors)
    elif op == QM:
        _check_quant_matmul(*tensors)
    else:
        _check_qlinear_matmul(*tensors)


def _require_device_kernel(op_name: str, backend: str, device: str) -> None:
    """BackendUnavailableError when no kernel of the op is registered for the tensors' device (the NPU extension
    registers the PrivateUse1 kernels of the operators the package has)."""
    if not torch._C._dispatch_has_kernel_for_dispatch_key(qualified(op_name), "PrivateUse1"):
        raise BackendUnavailableError(backend, f"no {device} kernel is registered for {qualified(op_name)}: the "
                                      f"NPU extension (npu.load_extension(), calling the AqoQuantMatMul operator) "
                                      f"is not loaded; "
                                      f"compute on the CPU (tensors on the CPU, backend 'cpu')")


def _on_cpu(t: Any) -> bool:
    return isinstance(t, Tensor) and t.device.type == "cpu"


def _check_asymmetric(asymmetric: Any) -> bool:
    if not isinstance(asymmetric, bool) and type(asymmetric).__name__ != "bool_":
        raise ConstraintError(DQ, "asymmetric", "must be a bool", expected="True or False", actual=repr(asymmetric))
    return bool(asymmetric)


# ---------------------------------------------------------------------------------------------------------------
# Python helpers
# ---------------------------------------------------------------------------------------------------------------

def dynamic_quant(x: Tensor, smooth_scales: Optional[Tensor] = None, *, dst_type: Any = "int8",
                  asymmetric: bool = False):
    """Per-row dynamic quantization of torch tensors: (y, scale), or (y, scale, offset) when asymmetric.

    dst_type: a name, a numpy / torch dtype, or an ATB code (2, 34, 35, 36); None means int8 (torch_npu's
    spelling). hifloat8 y is torch.uint8 bits. Runs on x's device: the cpu backend on CPU, the custom operator on
    an NPU (after npu.load_extension()).
    """
    _require_tensor(DQ, "x", x)
    asymmetric = _check_asymmetric(asymmetric)
    dst = _golden_dq.parse_dst_type(torch_npu_compat.default_dst_type(dst_type), asymmetric)
    if not _on_cpu(x):
        _check_dynamic_quant(x, smooth_scales)  # typed errors before a device kernel (the CPU kernel validates)
    return call_dynamic_quant(x, smooth_scales, dst, asymmetric)


def call_dynamic_quant(x: Tensor, smooth_scales: Optional[Tensor], dst: str, asymmetric: bool):
    """The op call for arguments the caller checked (dst a canonical name): structural refusals (sparse, nested,
    quantized tensors), then dynamic_quant or dynamic_quant_asymmetric."""
    for name, t in (("x", x), ("smooth_scales", smooth_scales)):
        if isinstance(t, Tensor):
            _convert.check_torch_tensor(t, op=DQ, argument=name, allowed=dtypes.DYNAMIC_QUANT_X_TYPES,
                                        devices=(x.device.type,))
    op = torch.ops.ascend_quant_ops.dynamic_quant_asymmetric if asymmetric else torch.ops.ascend_quant_ops.dynamic_quant
    return op(x, smooth_scales, dst_type=dst_scalar_type(dst))


def qlinear_matmul(a: Tensor, a_scale: Tensor, a_zero_point: Tensor, b: Tensor, b_scale: Tensor,
                   b_zero_point: Tensor, y_scale: Tensor, y_zero_point: Tensor) -> Tensor:
    """ONNX QLinearMatMul of torch tensors (semantics of golden/qlinear_matmul.py); y has y_zero_point's dtype."""
    tensors = (a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)
    for name, t in zip(_QMM_ARGUMENTS, tensors):
        _require_tensor(QMM, name, t)
    if not _on_cpu(a):
        _check_qlinear_matmul(*tensors)  # typed errors before a device kernel (the CPU kernel validates)
    return call_qlinear_matmul(*tensors)


def call_qlinear_matmul(*tensors) -> Tensor:
    """The op call for tensors the caller checked: structural refusals (sparse, nested, quantized tensors, another
    device than a's), then qlinear_matmul."""
    for name, t in zip(_QMM_ARGUMENTS, tensors):
        _convert.check_torch_tensor(t, op=QMM, argument=name, devices=(tensors[0].device.type,))
    return torch.ops.ascend_quant_ops.qlinear_matmul(*tensors)


def quant_matmul(a: Tensor, a_scale: Tensor, a_zero_point: Optional[Tensor], b: Tensor, b_scale: Tensor,
                 b_zero_point: Optional[Tensor] = None, *, bias: Optional[Tensor] = None,
                 out_dtype: Any = None) -> Tensor:
    """quant_matmul of torch tensors (semantics of golden/quant_matmul.py); out_dtype: a name, a numpy / torch
    dtype, None for float32."""
    out = _golden_qm.parse_out_dtype(out_dtype)
    tensors = (a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias)
    for name, t in zip(_QM_ARGUMENTS, tensors):
        if t is not None or name not in _QM_OPTIONAL:
            _require_tensor(QM, name, t)
    if not _on_cpu(a):
        _check_quant_matmul(*tensors, out)  # typed errors before a device kernel (the CPU kernel validates)
    return call_quant_matmul(*tensors, out)


def call_quant_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias, out: str) -> Tensor:
    """The op call for tensors the caller checked (out: a canonical name): structural refusals (sparse, nested,
    quantized tensors, another device than a's), the missing device kernel, then quant_matmul."""
    tensors = (a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias)
    for name, t in zip(_QM_ARGUMENTS, tensors):
        if t is not None:
            _convert.check_torch_tensor(t, op=QM, argument=name, devices=(a.device.type,))
    if a.device.type not in ("cpu", "meta"):
        _require_device_kernel(TORCH_QUANT_MATMUL, "npu", _convert.device_kind(a))
    return torch.ops.ascend_quant_ops.quant_matmul(*tensors, out_dtype=_OUT_SCALAR_TYPES[out])


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


def npu_quant_matmul(x1: Tensor, x2: Tensor, scale: Tensor, *, offset: Optional[Tensor] = None,
                     pertoken_scale: Optional[Tensor] = None, bias: Optional[Tensor] = None,
                     output_dtype: Optional[torch.dtype] = None) -> Tensor:
    """torch_npu.npu_quant_matmul's signature -> quant_matmul: y = output_dtype(float32(x1 @ x2) *
    float32(pertoken_scale * scale) + bias). Which of torch_npu's arguments and forms are supported, and the
    clear refusals of the others: torch_npu_compat.npu_quant_matmul_arguments."""
    kw = torch_npu_compat.npu_quant_matmul_arguments(x1, x2, scale, offset=offset, pertoken_scale=pertoken_scale,
                                                     bias=bias, output_dtype=output_dtype)
    a_scale = kw["a_scale"]
    if a_scale is None:  # no per-token scale: 1, and float32(1 * scale) = scale exactly
        a_scale = torch.ones((), dtype=torch.float32, device=x1.device)
    return quant_matmul(x1, a_scale, None, x2, scale, None, bias=bias, out_dtype=kw["out_dtype"])
