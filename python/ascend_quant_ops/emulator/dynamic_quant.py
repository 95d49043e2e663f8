"""DynamicQuant on the AscendC CPU emulator: op_kernel/aqo_dynamic_quant.cpp, compiled for each SoC into
_native (python/csrc/emulate_dynamic_quant.cpp), run block by block with the host plan's tiling.

    y, scale = dynamic_quant(x, smooth_scales=None, dst_type="int8", soc="ascend310p")
    y, scale, offset = dynamic_quant(x, dst_type="uint8", asymmetric=True, soc="ascend910b")

Returns what the golden (golden/dynamic_quant.py) returns, as numpy arrays (the asymmetric modes also the offset:
float32, or uint8 zero points for dst uint8). The arguments are checked as the
golden checks them, then the plan (made by the runner, once) refuses what the SoC cannot do (ConstraintError /
DTypeError, before anything runs); a kernel fault the emulator catches raises EmulatorError naming the kernel
line. ascend310p runs in saturation mode: its results are the golden's for x with Inf replaced by +-65504 and NaN
by 0 (docs/design.md).

`last_run_stats()` (per thread, shared with the QLinearMatMul runner) gives the last run's per-core GM bytes, DMA
operations and UB peak, plus the plan summary.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import _convert, _native, dtypes, tiling
from .._opnames import DYNAMIC_QUANT as OP
from ..errors import EmulatorError
from ..golden import dynamic_quant as _golden
from . import _stats
from ._stats import last_run_stats  # noqa: F401  (the one per-thread record, also under this module's name)


def _uint8_view(a: np.ndarray) -> np.ndarray:
    # The binding takes writable contiguous byte views: read-only inputs (np.load(mmap_mode="r"), frombuffer)
    # and strided views are copied, everything else is viewed in place.
    return np.require(a, requirements=["C", "W"]).reshape(-1).view(np.uint8)


def dynamic_quant(x, smooth_scales=None, *, dst_type: Any = "int8", asymmetric: bool = False,
                  soc: str = "ascend910b", core_num: Optional[int] = None, ub_size: Optional[int] = None):
    """Per-row dynamic quantization of x's last axis, computed by the AscendC kernel in the emulator.

    x: float16 / bfloat16 numpy array (rank >= 2); smooth_scales: [H] of x's dtype or None; dst_type: name, numpy
    dtype or ATB code; soc: any SoC name of the SoC table; core_num / ub_size: replace the table's values (as the
    device reports them). Returns (y, scale), or (y, scale, offset) when asymmetric, like the golden."""
    x, _ = _convert.to_numpy(x, op=OP, argument="x")
    smooth, _ = _convert.to_numpy(smooth_scales, op=OP, argument="smooth_scales", allow_none=True)
    soc = tiling.canonical_soc(soc, op=OP)
    if x.ndim < 2:
        # What the runner is never given: the plan's request check names the refusal.
        tiling.plan_dynamic_quant(x.shape, dtypes.dtype_name(x.dtype) or str(x.dtype), soc=soc, dst_type=dst_type,
                                  smooth=smooth is not None, asymmetric=bool(asymmetric), core_num=core_num,
                                  ub_size=ub_size)
    dst = _golden.validate(x, smooth, dst_type=dst_type, asymmetric=asymmetric)
    return run(x, smooth, dst, bool(asymmetric), soc, core_num=core_num, ub_size=ub_size)


def run(x: np.ndarray, smooth: Optional[np.ndarray], dst: str, asymmetric: bool, soc: str, *,
        core_num: Optional[int] = None, ub_size: Optional[int] = None):
    """The emulator run of arguments the golden's validate accepted (native byte order, dst its canonical name);
    the plan is made once, by the runner."""
    cn = tiling._override(core_num, "core_num", OP)
    ub = tiling._override(ub_size, "ub_size", OP)
    x_name = dtypes.dtype_name(x.dtype)
    # Outputs are not zeroed on the device (torch.empty / the framework's allocator): the runner fills them with a
    # poison pattern and fails the run if the kernel leaves any byte unwritten.
    y = np.empty(x.shape, dtype=dtypes.numpy_dtype(dst))
    scale = np.empty(x.shape[:-1], dtype=np.float32)
    sm = None if smooth is None else _uint8_view(smooth)
    offset = None
    if asymmetric:
        offset = np.empty(x.shape[:-1], dtype=np.uint8 if dst == dtypes.UINT8 else np.float32)
    out = _native.emulate_dynamic_quant(_uint8_view(x), sm, _uint8_view(y), _uint8_view(scale),
                                        None if offset is None else _uint8_view(offset),
                                        [int(d) for d in x.shape], x_name, dst, bool(asymmetric), soc, cn, ub)
    if not out["ok"] and "violation" in out:
        raise tiling.violation_error(out["violation"])
    _stats.record({"op": OP, "plan": dict(out["plan"]), "run": out.get("stats")})
    if not out["ok"]:
        raise EmulatorError(out["emulator_error"]["message"])
    if asymmetric:
        return y, scale, offset
    return y, scale

