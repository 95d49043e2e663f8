"""The public operators: one call, several backends, one validation and at most one plan per call.

    dynamic_quant(x, smooth_scales=None, *, dst_type="int8", asymmetric=False, soc=None, backend="auto")
    qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, *, soc=None,
                   backend="auto")
    quant_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point=None, *, bias=None, out_dtype="float32",
                 soc=None, backend="auto")

Backends: "cpu" (the exact CPU implementation, _backend_cpu.py), "emulator" (the AscendC kernels run on CPU by the
project's emulator), "npu" (the custom operator package through torch_npu), "auto" (npu for tensors on an NPU, cpu
otherwise). When `soc` is given, or detected on an NPU, the SoC's rules (_plan_check.py: the plan, and what the
kernel takes) are checked on every backend, so that a laptop run with soc="ascend310p" refuses exactly what the
device would refuse. Inputs are numpy arrays or torch tensors (_convert.py: the front door); outputs are of the
same kind.

The path of one call: the keyword arguments are checked once; the inputs pass the front door once and are
validated once (the golden's checks, giving the validated arguments: a dst type name, a QLinearMatMulOperands,
a QuantMatMulOperands);
the SoC check plans once (the emulator's runner makes that plan itself); one backend computes. CPU torch tensors
without a SoC go through the torch op (torch_ops.py), whose CPU kernel is the same validation and the same cpu
backend, so that the call also works under torch.compile.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _backend_cpu, _convert, _plan_check, dtypes, emulator, npu, tiling, torch_npu_compat
from ._opnames import DYNAMIC_QUANT as DQ
from ._opnames import QLINEAR_MATMUL as QMM
from ._opnames import QUANT_MATMUL as QM
from .errors import BackendUnavailableError, ConstraintError
from .emulator.dynamic_quant import run as _emulate_dynamic_quant
from .emulator.qlinear_matmul import run as _emulate_qlinear_matmul
from .emulator.quant_matmul import run as _emulate_quant_matmul
from .golden import dynamic_quant as _golden_dq
from .golden import qlinear_matmul as _golden_qmm
from .golden import quant_matmul as _golden_qm

BACKENDS = ("auto", "cpu", "emulator", "npu")
DEFAULT_EMULATOR_SOC = "ascend910b"

_QMM_ARGS = _golden_qmm.ARGUMENTS
_QM_ARGS = _golden_qm.ARGUMENTS
_QM_OPTIONAL = ("a_zero_point", "b_zero_point", "bias")


# ----------------------------------------------------------------------------------------------- backends
def _emulator_status():
    missing = emulator.missing_kernels()
    if missing:
        return False, "this build of _native has no emulated kernel for: " + ", ".join(missing)
    return True, "AscendC kernels run on CPU by the project's emulator (ascend910b, ascend310p, ascend910_95)"


def _npu_status():
    return npu.status()


def backend_info() -> dict:
    """{backend: {"usable": bool, "reason": str}} for cpu, emulator and npu."""
    info = {"cpu": {"usable": True, "reason": "compiled CPU kernels, bit for bit the numpy golden"}}
    for name, probe in (("emulator", _emulator_status), ("npu", _npu_status)):
        usable, reason = probe()
        info[name] = {"usable": bool(usable), "reason": reason}
    return info


def _require(backend: str) -> None:
    probe = {"emulator": _emulator_status, "npu": _npu_status}.get(backend)
    if probe is None:
        return
    usable, reason = probe()
    if not usable:
        raise BackendUnavailableError(backend, reason)


def _device_tensors(op: str, tensors) -> bool:
    """True when a tensor is on an NPU; a CUDA or meta tensor is refused here, named as what it is."""
    on_npu = False
    for name, t in tensors:
        if not _convert.is_torch_tensor(t) or t.device.type == "cpu":
            continue
        kind = _convert.device_kind(t)
        if kind != "NPU":
            raise ConstraintError(op, name, f"a {kind} tensor cannot be computed by this package",
                                  expected="a CPU or NPU tensor", actual=f"a tensor on {t.device}",
                                  suggestion="a meta tensor has no data: pass a CPU tensor" if kind == "meta"
                                  else "move the tensor to the CPU with .cpu()")
        on_npu = True
    return on_npu


def _choose_backend(backend: Any, on_npu: bool, op: str) -> str:
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ConstraintError(op, "backend", "unknown backend", expected=" | ".join(BACKENDS), actual=repr(backend))
    if backend == "auto":
        if on_npu:
            _require("npu")
            return "npu"
        return "cpu"
    if on_npu and backend != "npu":
        raise ConstraintError(op, "backend", f"tensors are on an NPU but backend '{backend}' runs on the CPU",
                              expected="backend='npu' or 'auto'", actual=backend,
                              suggestion="move the tensors to the CPU with .cpu(), or use backend='auto'")
    _require(backend)
    return backend


def _resolve_soc(soc: Any, op: str, backend: str) -> Optional[str]:
    if soc is not None:
        return tiling.canonical_soc(soc, op=op)
    if backend == "npu":
        return npu.detect_soc()
    if backend == "emulator":
        return DEFAULT_EMULATOR_SOC
    return None


def _torch_ops():
    """The torch ops module (imports torch; only called with torch tensors in hand, so torch is importable)."""
    from . import torch_ops

    return torch_ops


# ----------------------------------------------------------------------------------------------- DynamicQuant
def dynamic_quant(x, smooth_scales=None, *, dst_type="int8", asymmetric=False, soc=None, backend="auto",
                  **torch_npu_kwargs):
    """Per-row (tail axis) dynamic quantization: scale = max|x*smooth| / dmax, y = round(x*smooth / scale).

    Returns (y, scale), or (y, scale, offset) when asymmetric=True. See README "DynamicQuant" for the exact
    arithmetic, the dtypes and the NaN / Inf rules. Also accepts torch_npu.npu_dynamic_quant's keyword
    arguments quant_mode="pertoken", group_index=None, dst_type_max=0.0; dst_type=None means int8.
    """
    torch_npu_compat.check_defaults_only(torch_npu_kwargs)
    if not isinstance(asymmetric, (bool, np.bool_)):
        raise ConstraintError(DQ, "asymmetric", "must be a bool", expected="True or False", actual=repr(asymmetric))
    asymmetric = bool(asymmetric)
    dst = _golden_dq.parse_dst_type(torch_npu_compat.default_dst_type(dst_type), asymmetric)
    backend = _choose_backend(backend, _device_tensors(DQ, (("x", x), ("smooth_scales", smooth_scales))), DQ)
    soc = _resolve_soc(soc, DQ, backend)

    if backend == "npu":
        torch_ops = _torch_ops()
        torch_ops.check_on_device(DQ, x, smooth_scales)
        if soc is not None:
            _plan_check.dynamic_quant(x.shape, dtypes.dtype_name(x.dtype), dst, smooth_scales is not None,
                                      asymmetric, soc)
        return torch_ops.call_dynamic_quant(x, smooth_scales, dst, asymmetric)

    if backend == "cpu" and soc is None and _convert.is_torch_tensor(x):
        # The torch op: its CPU kernel validates and computes (the same checks and the same cpu backend).
        torch_ops = _torch_ops()
        s = smooth_scales
        if s is not None and not _convert.is_torch_tensor(s):
            s = _convert.numpy_to_torch(_convert.to_numpy(s, op=DQ, argument="smooth_scales")[0])
        return torch_ops.call_dynamic_quant(x, s, dst, asymmetric)

    x_np, kind = _convert.to_numpy(x, op=DQ, argument="x", allowed=dtypes.DYNAMIC_QUANT_X_TYPES)
    s_np, _ = _convert.to_numpy(smooth_scales, op=DQ, argument="smooth_scales", allow_none=True,
                                allowed=dtypes.DYNAMIC_QUANT_X_TYPES)
    if soc is not None and (backend != "emulator" or x_np.ndim < 2):
        # The SoC's plan, as the device reports a refusal (the emulator's runner makes its own plan, so there it
        # only runs here for what the runner is never given: rank < 2).
        _plan_check.dynamic_quant(x_np.shape, dtypes.dtype_name(x_np.dtype) or str(x_np.dtype), dst,
                                  s_np is not None, asymmetric, soc)
    _golden_dq.validate_arrays(x_np, s_np)  # dst and asymmetric are checked above
    if backend == "emulator":
        out = _emulate_dynamic_quant(x_np, s_np, dst, asymmetric, soc)  # its runner plans the call on `soc`
    else:
        out = _backend_cpu.dynamic_quant(x_np, s_np, dst, asymmetric)
    return tuple(_convert.to_kind(o, kind) for o in out)


# ----------------------------------------------------------------------------------------------- QLinearMatMul
def qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, *, soc=None,
                   backend="auto"):
    """ONNX QLinearMatMul (opset 10 and 21): y = saturate(round((a - a_zp) @ (b - b_zp) * a_scale * b_scale /
    y_scale) + y_zp), numpy.matmul broadcasting, int32 accumulation. See README "QLinearMatMul"."""
    args = (a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)
    backend = _choose_backend(backend, _device_tensors(QMM, zip(_QMM_ARGS, args)), QMM)
    soc = _resolve_soc(soc, QMM, backend)

    if backend == "npu":
        torch_ops = _torch_ops()
        torch_ops.check_on_device(QMM, *args)
        _plan_check.float8_operands_without_nan(QMM, (("a", a), ("b", b)), soc)
        if soc is not None:
            kinds = [_plan_check.param_kind(int(t.numel()), op) for t, op in ((a_scale, "a"), (b_scale, "b"),
                                                                              (y_scale, "y"))]
            _plan_check.qlinear_matmul(a.shape, b.shape, dtypes.dtype_name(a.dtype), dtypes.dtype_name(b.dtype),
                                       dtypes.dtype_name(y_zero_point.dtype), *kinds, soc,
                                       a_param_shape=tuple(a_scale.shape), b_param_shape=tuple(b_scale.shape))
        return torch_ops.call_qlinear_matmul(*args)

    data_is_torch = _convert.is_torch_tensor(a) or _convert.is_torch_tensor(b)
    if backend == "cpu" and soc is None and data_is_torch:
        # The torch op: its CPU kernel validates and computes (the same checks and the same cpu backend).
        tensors = [v if _convert.is_torch_tensor(v) else
                   _convert.numpy_to_torch(_convert.to_numpy(v, op=QMM, argument=name)[0])
                   for name, v in zip(_QMM_ARGS, args)]
        return _torch_ops().call_qlinear_matmul(*tensors)

    arrays = [_convert.to_numpy(v, op=QMM, argument=name)[0] for name, v in zip(_QMM_ARGS, args)]
    operands = _golden_qmm.QLinearMatMulOperands(*arrays)  # the operator's own rules first (errors name the
    if soc is not None:                                    # user's arguments), then the SoC's
        _plan_check.qlinear_matmul_operands(operands, soc, plan=backend != "emulator")
    if backend == "emulator":
        y = _emulate_qlinear_matmul(operands, soc)  # its runner plans the call on `soc`
    else:
        y = _backend_cpu.qlinear_matmul(operands)
    return _convert.to_kind(y, _convert.TORCH if data_is_torch else _convert.NUMPY)


# ----------------------------------------------------------------------------------------------- quant_matmul
def quant_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point=None, *, bias=None, out_dtype="float32",
                 soc=None, backend="auto"):
    """Quantized matmul with a float output (W8A8): y = out_dtype(float32(acc) * float32(a_scale * b_scale) + bias)
    with acc = (a - a_zero_point) @ (b - b_zero_point) exact and wrapped to int32; numpy.matmul broadcasting.

    a, b int8 / uint8; per-tensor or per-row (a) / per-column (b) scales and zero points (None = 0); b may be the
    transposed view of an [N, K] weight; out_dtype float32 / float16 / bfloat16. See README "quant_matmul" and
    golden/quant_matmul.py for the exact definition. The emulator runs the kernel on every SoC (with soc=, the output
    types the SoC's kernel does not write are refused on every backend); the npu backend has no device operator yet.
    """
    args = (a, a_scale, a_zero_point, b, b_scale, b_zero_point, bias)
    backend = _choose_backend(backend, _device_tensors(QM, zip(_QM_ARGS, args)), QM)
    soc = _resolve_soc(soc, QM, backend)
    out = _golden_qm.parse_out_dtype(out_dtype)

    if backend == "npu":
        torch_ops = _torch_ops()
        torch_ops.check_on_device(QM, *args, out)
        if soc is not None:
            kinds = [_plan_check.param_kind(int(t.numel()), op) for t, op in ((a_scale, "a"), (b_scale, "b"))]
            _plan_check.quant_matmul(a.shape, b.shape, dtypes.dtype_name(a.dtype), dtypes.dtype_name(b.dtype), out,
                                     *kinds, soc)
        return torch_ops.call_quant_matmul(*args, out)

    data_is_torch = _convert.is_torch_tensor(a) or _convert.is_torch_tensor(b)
    if backend == "cpu" and soc is None and data_is_torch:
        # The torch op: its CPU kernel validates and computes (the same checks and the same cpu backend).
        tensors = [v if _convert.is_torch_tensor(v) or (v is None and name in _QM_OPTIONAL) else
                   _convert.numpy_to_torch(_convert.to_numpy(v, op=QM, argument=name)[0])
                   for name, v in zip(_QM_ARGS, args)]
        return _torch_ops().call_quant_matmul(*tensors, out)

    arrays = [_convert.to_numpy(v, op=QM, argument=name, allow_none=name in _QM_OPTIONAL)[0]
              for name, v in zip(_QM_ARGS, args)]
    operands = _golden_qm.QuantMatMulOperands(*arrays[:6], bias=arrays[6], out_dtype=out)
    if soc is not None:
        _plan_check.quant_matmul_operands(operands, soc, plan=backend != "emulator")
    if backend == "emulator":
        y = _emulate_quant_matmul(operands, soc)
    else:
        y = _backend_cpu.quant_matmul(operands)
    return _convert.to_kind(y, _convert.TORCH if data_is_torch else _convert.NUMPY)
