"""The public operators: one call, several backends.

    dynamic_quant(x, smooth_scales=None, *, dst_type="int8", asymmetric=False, soc=None, backend="auto")
    qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, *, soc=None,
                   backend="auto")

Backends: "cpu" (compiled CPU kernels, bit for bit the numpy golden), "emulator" (the AscendC kernels run on CPU
by our emulator), "npu" (the custom operator package through torch_npu), "auto" (npu for tensors on an NPU, cpu
otherwise).
When `soc` is given, or detected on an NPU, the operator's plan for that SoC is checked first, on every backend,
so that a laptop run with soc="ascend310p" refuses exactly what the device would refuse.
Inputs are numpy arrays or torch tensors; outputs are of the same kind.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _convert, dtypes
from .errors import BackendUnavailableError, ConstraintError

BACKENDS = ("auto", "cpu", "emulator", "npu")
DEFAULT_EMULATOR_SOC = "ascend910b"

DQ = "dynamic_quant"
QMM = "qlinear_matmul"


# ----------------------------------------------------------------------------------------------- backends
def _emulator_status():
    try:
        from . import emulator
    except Exception as exc:  # the module is always shipped; a failure here is a broken build
        return False, f"emulator module failed to import: {exc!r}"
    missing = emulator.missing_kernels()
    if missing:
        return False, "this build of _native has no emulated kernel for: " + ", ".join(missing)
    return True, "AscendC kernels run on CPU by the project's emulator (ascend910b, ascend310p, ascend910_95)"


def _npu_status():
    try:
        from . import npu
    except Exception as exc:
        return False, f"npu backend module failed to import: {exc!r}"
    return npu.status()


def backend_info() -> dict:
    """{backend: {"usable": bool, "reason": str}} for cpu, emulator and npu."""
    info = {"cpu": {"usable": True, "reason": "compiled CPU kernels, bit for bit the numpy golden"}}
    for name, probe in (("emulator", _emulator_status), ("npu", _npu_status)):
        usable, reason = probe()
        info[name] = {"usable": bool(usable), "reason": reason}
    return info


def _check_backend(backend: str, op: str) -> str:
    if backend not in BACKENDS:
        raise ConstraintError(op, "backend", "unknown backend", expected=" | ".join(BACKENDS), actual=repr(backend))
    return backend


def _require(backend: str) -> None:
    probe = {"emulator": _emulator_status, "npu": _npu_status}.get(backend)
    if probe is None:
        return
    usable, reason = probe()
    if not usable:
        raise BackendUnavailableError(backend, reason)


def _on_npu(*tensors: Any) -> bool:
    return any(_convert.is_torch_tensor(t) and t.device.type not in ("cpu", "meta") for t in tensors if t is not None)


def _resolve_soc(soc: Optional[str], op: str, backend: str) -> Optional[str]:
    if soc is not None:
        from . import tiling

        return tiling.canonical_soc(soc, op=op)
    if backend == "npu":
        from . import npu

        return npu.detect_soc()
    return None


def _choose_backend(backend: str, on_npu: bool, op: str) -> str:
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


# ----------------------------------------------------------------------------------------------- DynamicQuant
# torch_npu.npu_dynamic_quant's keyword arguments accepted for drop-in use, at the only values this package
# implements (torch_npu's defaults). The one check of them: torch_ops.npu_dynamic_quant uses it too.
TORCH_NPU_DQ_DEFAULTS = {"group_index": None, "quant_mode": "pertoken", "dst_type_max": 0.0}


def check_torch_npu_dq_kwargs(kwargs: dict) -> None:
    """TypeError for a keyword torch_npu.npu_dynamic_quant does not have; ConstraintError for one of
    group_index / quant_mode / dst_type_max at a value other than its default."""
    for name, value in kwargs.items():
        if name not in TORCH_NPU_DQ_DEFAULTS:
            raise TypeError(f"dynamic_quant() got an unexpected keyword argument '{name}'")
        if name == "group_index" and value is not None:
            raise ConstraintError(DQ, "group_index", "MoE group quantization is not implemented",
                                  expected="None", actual=f"a {type(value).__name__}",
                                  suggestion="Quantize each group's rows separately.")
        if name == "quant_mode" and not (isinstance(value, str) and value == "pertoken"):
            raise ConstraintError(DQ, "quant_mode", "only per-token (per-row) quantization is implemented",
                                  expected="'pertoken'", actual=repr(value))
        if name == "dst_type_max" and (isinstance(value, bool) or not isinstance(value, (int, float, np.number))
                                       or float(value) != 0.0):
            raise ConstraintError(DQ, "dst_type_max", "a custom quantization maximum is not implemented",
                                  expected="0.0 (the dtype's own maximum)", actual=repr(value))


def dynamic_quant(x, smooth_scales=None, *, dst_type="int8", asymmetric=False, soc=None, backend="auto",
                  **torch_npu_kwargs):
    """Per-row (tail axis) dynamic quantization: scale = max|x*smooth| / dmax, y = round(x*smooth / scale).

    Returns (y, scale), or (y, scale, offset) when asymmetric=True. See README "DynamicQuant" for the exact
    arithmetic, the dtypes and the NaN / Inf rules. Also accepts torch_npu.npu_dynamic_quant's keyword
    arguments quant_mode="pertoken", group_index=None, dst_type_max=0.0.
    """
    check_torch_npu_dq_kwargs(torch_npu_kwargs)
    backend = _check_backend(backend, DQ)
    # torch_npu.npu_dynamic_quant spells its default output type dst_type=None (int8)
    dst = dtypes.parse_dst_type("int8" if dst_type is None else dst_type, op=DQ)
    if not isinstance(asymmetric, (bool, np.bool_)):
        raise ConstraintError(DQ, "asymmetric", "must be a bool", expected="True or False", actual=repr(asymmetric))
    backend = _choose_backend(backend, _on_npu(x, smooth_scales), DQ)
    soc = _resolve_soc(soc, DQ, backend)

    if backend == "npu":
        from . import torch_ops

        _check_dq_plan(tuple(x.shape), dtypes.dtype_name(x.dtype), dst, smooth_scales is not None, asymmetric, soc)
        out = torch_ops.dynamic_quant(x, smooth_scales, dst_type=dst, asymmetric=bool(asymmetric))
        return out

    x_np, kind = _convert.to_numpy(x, op=DQ, argument="x")
    s_np, _ = _convert.to_numpy(smooth_scales, op=DQ, argument="smooth_scales", allow_none=True)
    if soc is not None or backend == "emulator":
        _check_dq_plan(x_np.shape, dtypes.dtype_name(x_np.dtype) or str(x_np.dtype), dst, s_np is not None,
                       asymmetric, soc or DEFAULT_EMULATOR_SOC)

    if backend == "emulator":
        from . import emulator

        out = emulator.dynamic_quant(x_np, s_np, dst_type=dst, asymmetric=bool(asymmetric),
                                     soc=soc or DEFAULT_EMULATOR_SOC)
    elif kind == _convert.TORCH and _torch_ops_available():
        from . import torch_ops

        return torch_ops.dynamic_quant(x, _as_torch(smooth_scales, s_np), dst_type=dst, asymmetric=bool(asymmetric))
    else:
        from .cpu import dynamic_quant as cpu_kernels  # the golden's semantics, fused; the golden is the reference

        out = cpu_kernels.dynamic_quant(x_np, s_np, dst_type=dst, asymmetric=bool(asymmetric))
    return tuple(_convert.to_kind(o, kind) for o in out)


def _check_dq_plan(shape, x_dtype, dst, smooth, asymmetric, soc) -> None:
    if soc is None:
        return
    from . import tiling

    tiling.plan_dynamic_quant(tuple(int(d) for d in shape), x_dtype, soc=soc, dst_type=dst, smooth=bool(smooth),
                              asymmetric=bool(asymmetric))


def _as_torch(value, array):
    """`value` as a torch tensor for the torch ops: torch tensors as given, numpy arrays / scalars (already
    converted to `array`) as CPU tensors of the same bits, so that numpy parameters mix with torch data on
    every backend."""
    if value is None or _convert.is_torch_tensor(value):
        return value
    return _convert.numpy_to_torch(array)


def _torch_ops_available() -> bool:
    # Any failure counts, not only ImportError: with a broken torch_npu installed, `import torch` itself raises
    # RuntimeError (FACTS 9), and the numpy path must still work.
    from ._torch import import_torch

    if import_torch()[0] is None:
        return False
    try:
        from . import torch_ops  # noqa: F401
    except ImportError:
        return False
    return True


# ----------------------------------------------------------------------------------------------- QLinearMatMul
_QMM_ARGS = ("a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point")


def qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, *, soc=None,
                   backend="auto"):
    """ONNX QLinearMatMul (opset 10 and 21): y = saturate(round((a - a_zp) @ (b - b_zp) * a_scale * b_scale /
    y_scale) + y_zp), numpy.matmul broadcasting, int32 accumulation. See README "QLinearMatMul"."""
    backend = _check_backend(backend, QMM)
    args = (a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)
    backend = _choose_backend(backend, _on_npu(*args), QMM)
    soc = _resolve_soc(soc, QMM, backend)

    if backend == "npu":
        from . import torch_ops

        if soc is not None:
            _check_qmm_plan(args, soc)
        return torch_ops.qlinear_matmul(*args)

    arrays = []
    kind = _convert.NUMPY
    for name, value in zip(_QMM_ARGS, args):
        arr, k = _convert.to_numpy(value, op=QMM, argument=name)
        arrays.append(arr)
        if name in ("a", "b") and k == _convert.TORCH:
            kind = _convert.TORCH
    if soc is not None or backend == "emulator":
        from .golden.qlinear_matmul import validate

        validate(*arrays)  # the operator's own rules first (errors name the user's arguments), then the SoC's
        _check_qmm_plan(arrays, soc or DEFAULT_EMULATOR_SOC)

    if backend == "emulator":
        from . import emulator

        y = emulator.qlinear_matmul(*arrays, soc=soc or DEFAULT_EMULATOR_SOC)
    elif kind == _convert.TORCH and _torch_ops_available():
        from . import torch_ops

        return torch_ops.qlinear_matmul(*(_as_torch(v, arr) for v, arr in zip(args, arrays)))
    else:
        from .cpu import qlinear_matmul as cpu_kernels  # the golden's semantics on an int8 GEMM

        y = cpu_kernels.qlinear_matmul(*arrays)
    return _convert.to_kind(y, kind)


def _param_kind(scale_shape, operand: str) -> str:
    """'tensor' for a scalar / one-element parameter, else 'row' (a) or 'column' (b)."""
    size = int(np.prod(scale_shape)) if len(scale_shape) else 1
    if size == 1:
        return "tensor"
    return "row" if operand == "a" else "column"


def _check_qmm_plan(args, soc) -> None:
    """Refuses what `soc` cannot run. `args` are the eight operands (numpy arrays or torch tensors)."""
    from . import tiling

    a, a_scale, _, b, b_scale, _, _, y_zp = args
    a_shape, b_shape = tuple(a.shape), tuple(b.shape)
    # numpy.matmul promotes 1-D operands to matrices; the plan works on the promoted shapes.
    if len(a_shape) == 1:
        a_shape = (1,) + a_shape
    if len(b_shape) == 1:
        b_shape = b_shape + (1,)
    tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype=dtypes.dtype_name(a.dtype),
                               b_dtype=dtypes.dtype_name(b.dtype), y_dtype=dtypes.dtype_name(y_zp.dtype),
                               a_param=_param_kind(tuple(a_scale.shape), "a"),
                               b_param=_param_kind(tuple(b_scale.shape), "b"))
