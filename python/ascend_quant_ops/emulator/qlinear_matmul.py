"""QLinearMatMul on the AscendC CPU emulator: op_kernel/aqo_qlinear_matmul.cpp, compiled for each SoC into
_native (python/csrc/emulate_qlinear_matmul.cpp), run core by core with the host plan's tiling.

    y = qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point,
                       soc="ascend310p")

Returns what the golden (golden/qlinear_matmul.py) returns. Inputs are validated exactly as the golden validates
them (same errors); then the plan refuses what the SoC cannot do (ConstraintError / DTypeError, before anything
runs); a kernel fault the emulator catches raises EmulatorError naming the kernel line.

What the kernel takes (beyond the golden's checks):
  * a, b, y: int8 / uint8, and float8_e4m3fn / float8_e5m2 where the SoC has them (ascend910_95; a and b both
    integer or both float8). Integer operands give results bit-exact with the golden. Float8 operands: the
    emulated cube sums exactly and rounds once to float32; the device accumulates in float32 in its own order,
    so device results may differ from these (and the golden's) by one unit of y where a sum lies near a rounding
    boundary;
  * a's parameters per tensor or per row, b's per tensor or per column (as the golden);
  * y_scale / y_zero_point per tensor (the kernel has one output multiplier denominator and zero point);
  * float16 / bfloat16 scales are widened to float32 here (exact), as the golden does before any arithmetic.

`last_run_stats()` gives the last run's per-core GM bytes, DMA operations, UB peak and Matmul (cube) traffic.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np

from .. import _native, dtypes, tiling
from ..errors import ConstraintError, EmulatorError
from ..golden import qlinear_matmul as _golden

OP = "qlinear_matmul"

_last_stats: Optional[Dict[str, Any]] = None


def _bytes(a: np.ndarray) -> np.ndarray:
    # The binding takes writable contiguous byte views; broadcast views are read-only, so those are copied.
    return np.require(a, requirements=["C", "W"]).reshape(-1).view(np.uint8)


def qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, *,
                   soc: str = "ascend910b", core_num: Optional[int] = None,
                   ub_size: Optional[int] = None) -> np.ndarray:
    """y = quantize(dequantize(a) @ dequantize(b)), computed by the AscendC kernel in the emulator for `soc`.

    Arguments as the golden's (numpy arrays / numpy scalars); soc: any SoC name of the SoC table; core_num /
    ub_size: replace the table's values (as the device reports them). Returns y like the golden."""
    global _last_stats
    if not isinstance(soc, str):
        raise ConstraintError(OP, "soc", "must be a SoC name", expected="e.g. 'ascend910b'", actual=repr(soc))
    p = _golden._Problem(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)
    a2, b2 = p.a, p.b
    a_type = dtypes.dtype_name(a2.dtype)
    b_type = dtypes.dtype_name(b2.dtype)
    y_type = p.out_type
    if p.y_scale.size != 1:
        raise ConstraintError(OP, "y_scale", "the NPU kernel takes a per-tensor y_scale / y_zero_point",
                              expected="[] or [1]", actual=list(np.shape(y_scale)), soc=soc,
                              suggestion="Use backend='cpu' (the golden) for per-row / per-column output "
                                         "parameters.")
    m, k = a2.shape[-2:]
    n = b2.shape[-1]
    a_batch, b_batch = a2.shape[:-2], b2.shape[:-2]
    a_row = p.a_scale.size != 1 or p.a_zero_point.size != 1
    b_col = p.b_scale.size != 1 or p.b_zero_point.size != 1
    # Parameters in the layout the kernel reads: per tensor one value; per row [a batch..., M]; per column
    # [b batch..., N] (batched only when the operand has batch dimensions).
    if a_row:
        a_s = np.broadcast_to(p.a_scale, a_batch + (m, 1)).reshape(-1)
        a_z = np.broadcast_to(p.a_zero_point, a_batch + (m, 1)).reshape(-1)
    else:
        a_s, a_z = p.a_scale.reshape(-1)[:1], p.a_zero_point.reshape(-1)[:1]
    if b_col:
        b_s = np.broadcast_to(p.b_scale, b_batch + (1, n)).reshape(-1)
        b_z = np.broadcast_to(p.b_zero_point, b_batch + (1, n)).reshape(-1)
    else:
        b_s, b_z = p.b_scale.reshape(-1)[:1], p.b_zero_point.reshape(-1)[:1]
    y_s = p.y_scale.reshape(-1)[:1]
    y_z = p.y_zero_point.reshape(-1)[:1]
    cn = 0 if core_num is None else int(core_num)
    ub = 0 if ub_size is None else int(ub_size)

    y = np.zeros(p.out_shape_2d, dtype=dtypes.numpy_dtype(y_type))
    out = _native.emulate_qlinear_matmul(
        _bytes(a2), _bytes(a_s.astype(np.float32)), _bytes(a_z), _bytes(b2), _bytes(b_s.astype(np.float32)),
        _bytes(b_z), _bytes(y_s.astype(np.float32)), _bytes(y_z), y.reshape(-1).view(np.uint8),
        [int(d) for d in a2.shape], [int(d) for d in b2.shape], a_type, b_type, y_type,
        "row" if a_row else "tensor", "column" if b_col else "tensor", a_row and len(a_batch) > 0,
        b_col and len(b_batch) > 0, soc, cn, ub)
    if not out["ok"] and "violation" in out:
        raise tiling.violation_error(out["violation"])
    _last_stats = {"plan": dict(out["plan"]), "run": out.get("stats"), "matmul": out.get("matmul")}
    if not out["ok"]:
        raise EmulatorError(out["emulator_error"]["message"])
    return y.reshape(p.out_shape)


def last_run_stats() -> Optional[Dict[str, Any]]:
    """The last emulated QLinearMatMul run: {"plan": {mode, used_cores, workers_per_core, tile, tiles,
    workspace_bytes}, "run": {soc, kernel, block_dim, ub_bytes, completed, error, cores: [{gm_read_bytes,
    gm_write_bytes, dma_gm_to_ub, dma_ub_to_gm, gm_scalar_reads, gm_scalar_writes, vector_ops, peak_ub_bytes} per
    vector worker]}, "matmul": [{calls, a_bytes, b_bytes, c_bytes, macs} per vector worker]}; None before the
    first run. "run" is None when there was nothing to launch (an empty output). The per-core GM bytes include the
    cube's reads of A / B and writes of C requested by that worker."""
    return _last_stats
