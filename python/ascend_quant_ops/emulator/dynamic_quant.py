"""DynamicQuant on the AscendC CPU emulator: op_kernel/aqo_dynamic_quant.cpp, compiled for each SoC into
_native (python/csrc/emulate_dynamic_quant.cpp), run block by block with the host plan's tiling.

    y, scale = dynamic_quant(x, smooth_scales=None, dst_type="int8", soc="ascend310p")

Returns what the golden (golden/dynamic_quant.py) returns, as numpy arrays. The plan refuses what the SoC
cannot do (ConstraintError / DTypeError, before anything runs); a kernel fault the emulator catches raises
EmulatorError naming the kernel line. ascend310p runs in saturation mode: its results are the golden's for x with
Inf replaced by +-65504 and NaN by 0 (docs/design.md).

`last_run_stats()` gives the last run's per-core GM bytes, DMA operations and UB peak, plus the plan summary.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np

from .. import _native, dtypes, tiling
from ..errors import ConstraintError, EmulatorError
from ..golden.dynamic_quant import validate as _golden_validate

OP = "dynamic_quant"

_last_stats: Optional[Dict[str, Any]] = None


def _uint8_view(a: np.ndarray) -> np.ndarray:
    return a.reshape(-1).view(np.uint8)


def dynamic_quant(x: np.ndarray, smooth_scales: Optional[np.ndarray] = None, *, dst_type: Any = "int8",
                  asymmetric: bool = False, soc: str = "ascend910b", core_num: Optional[int] = None,
                  ub_size: Optional[int] = None):
    """Per-row dynamic quantization of x's last axis, computed by the AscendC kernel in the emulator.

    x: float16 / bfloat16 ndarray (rank >= 2); smooth_scales: [H] of x's dtype or None; dst_type: name, numpy
    dtype or ATB code; soc: any SoC name of the SoC table; core_num / ub_size: replace the table's values (as the
    device reports them). Returns (y, scale) like the golden."""
    global _last_stats
    if not isinstance(x, np.ndarray):
        raise ConstraintError(OP, "x", "must be a numpy ndarray", expected="numpy.ndarray", actual=type(x).__name__,
                              suggestion="Use ascend_quant_ops.dynamic_quant(..., backend='emulator') for torch "
                                         "tensors.")
    x_name = dtypes.parse_dtype(x.dtype, op=OP, argument="x", allowed=dtypes.DYNAMIC_QUANT_X_TYPES)
    dst = dtypes.parse_dst_type(dst_type, op=OP, argument="dst_type")
    if not isinstance(asymmetric, (bool, np.bool_)):
        raise ConstraintError(OP, "asymmetric", "must be a bool", expected="True or False", actual=repr(asymmetric))
    if not isinstance(soc, str):
        raise ConstraintError(OP, "soc", "must be a SoC name", expected="e.g. 'ascend910b'", actual=repr(soc))
    if asymmetric or x.ndim < 2:
        # The plan's request check names the SoC's refusal (rank, or no kernel implements asymmetric).
        tiling.plan_dynamic_quant(x.shape, x_name, soc=soc, dst_type=dst, smooth=smooth_scales is not None,
                                  asymmetric=bool(asymmetric), core_num=core_num, ub_size=ub_size)
    _golden_validate(x, smooth_scales, dst_type=dst, asymmetric=asymmetric)  # the rest as the golden does
    cn = 0 if core_num is None else int(core_num)
    ub = 0 if ub_size is None else int(ub_size)

    xc = np.ascontiguousarray(x)
    y = np.zeros(x.shape, dtype=dtypes.numpy_dtype(dst))
    scale = np.zeros(x.shape[:-1], dtype=np.float32)
    sm = None if smooth_scales is None else _uint8_view(np.ascontiguousarray(smooth_scales))
    out = _native.emulate_dynamic_quant(_uint8_view(xc), sm, _uint8_view(y), _uint8_view(scale),
                                        [int(d) for d in x.shape], x_name, dst, soc, cn, ub)
    if not out["ok"] and "violation" in out:
        raise tiling.violation_error(out["violation"])
    _last_stats = {"plan": dict(out["plan"]), "run": out.get("stats")}
    if not out["ok"]:
        raise EmulatorError(out["emulator_error"]["message"])
    return y, scale


def last_run_stats() -> Optional[Dict[str, Any]]:
    """The last emulated DynamicQuant run: {"plan": {mode, used_cores, block_dim, passes}, "run": {soc, kernel,
    block_dim, ub_bytes, completed, error, cores: [{gm_read_bytes, gm_write_bytes, dma_gm_to_ub, dma_ub_to_gm,
    gm_scalar_writes, vector_ops, peak_ub_bytes, ...} per core]}}; None before the first run. "run" is None when
    there was nothing to launch (no rows)."""
    return _last_stats
