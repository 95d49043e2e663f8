"""QLinearMatMul on the AscendC CPU emulator: op_kernel/aqo_qlinear_matmul.cpp, compiled for each SoC into
_native (python/csrc/emulate_qlinear_matmul.cpp), run core by core with the host plan's tiling.

    y = qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point,
                       soc="ascend310p")

Returns what the golden (golden/qlinear_matmul.py) returns. Inputs are validated exactly as the golden validates
them (same errors, one QLinearMatMulOperands object); then the SoC's rules (_plan_check.py, the one check every
backend shares) and the plan (made once, by the runner) refuse what the SoC cannot do
(ConstraintError / DTypeError, before anything runs); a kernel fault the emulator catches raises EmulatorError
naming the kernel line.

What the kernel takes (beyond the golden's checks):
  * a, b, y: int8 / uint8, and float8_e4m3fn / float8_e5m2 where the SoC has them (ascend910_95; a and b both
    integer or both float8). Integer operands give results bit-exact with the golden. Float8 operands: the
    emulated cube sums exactly and rounds once to float32; the device accumulates in float32 in its own order,
    so device results may differ from these (and the golden's) by one unit of y where a sum lies near a rounding
    boundary;
  * a's parameters per tensor or per row, b's per tensor or per column (as the golden);
  * y_scale / y_zero_point per tensor (the kernel has one output multiplier denominator and zero point);
  * float16 / bfloat16 scales are widened to float32 here (exact), as the golden does before any arithmetic;
  * b as stored: a transposed view of a C-contiguous [..., N, K] (`w.T`, the Linear layout; for a batched b its
    last two axes swapped) goes to the kernel as those bytes with the plan's b_trans, no host copy, on every SoC.
    The float8 kernel path reads b as [..., K, N] only (its plan refuses b_trans), so a transposed float8 b is
    copied.

`last_run_stats()` (per thread, shared with the DynamicQuant runner) gives the last run's per-core GM bytes, DMA
operations, UB peak and Matmul (cube) traffic.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .. import _convert, _native, _plan_check, dtypes, tiling
from .._opnames import QLINEAR_MATMUL as OP
from ..errors import EmulatorError
from ..golden import qlinear_matmul as _golden
from . import _stats
from ._stats import last_run_stats  # noqa: F401  (the one per-thread record, also under this module's name)



def _bytes(a: np.ndarray) -> np.ndarray:
    # The binding takes writable contiguous byte views; read-only inputs and broadcast views are copied.
    return np.require(a, requirements=["C", "W"]).reshape(-1).view(np.uint8)


#: SoCs whose kernel is not given a transposed b: the host copies it there (none: every SoC's kernel reads it)
COPY_TRANSPOSED_B_SOCS: tuple = ()


def transposed_storage(b: np.ndarray, b_type: str, soc: str):
    """(stored, b_trans): b's [..., N, K] storage and True when b ([..., K, N]) is a transposed view of a C-contiguous
    array whose last two axes are swapped (the kernel reads it so); else (b, False): float8 b, and on the SoCs of
    COPY_TRANSPOSED_B_SOCS (the caller's contiguous copy then)."""
    if (b.ndim < 2 or b.flags.c_contiguous or dtypes.TABLE[b_type]["is_float"]
            or soc in COPY_TRANSPOSED_B_SOCS):
        return b, False
    swapped = np.swapaxes(b, -1, -2)
    if swapped.flags.c_contiguous:
        return swapped, True
    return b, False


def qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, *,
                   soc: str = "ascend910b", core_num: Optional[int] = None,
                   ub_size: Optional[int] = None) -> np.ndarray:
    """y = quantize(dequantize(a) @ dequantize(b)), computed by the AscendC kernel in the emulator for `soc`.

    Arguments as the golden's (numpy arrays / numpy scalars); soc: any SoC name of the SoC table; core_num /
    ub_size: replace the table's values (as the device reports them). Returns y like the golden."""
    values = (a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)
    arrays = [_convert.to_numpy(v, op=OP, argument=n)[0] for n, v in zip(_golden.ARGUMENTS, values)]
    operands = _golden.QLinearMatMulOperands(*arrays)
    soc = tiling.canonical_soc(soc, op=OP)
    _plan_check.qlinear_matmul_operands(operands, soc, plan=False)
    return run(operands, soc, core_num=core_num, ub_size=ub_size)


def run(p: _golden.QLinearMatMulOperands, soc: str, *, core_num: Optional[int] = None,
        ub_size: Optional[int] = None) -> np.ndarray:
    """The emulator run of validated operands whose SoC rules were checked; the plan is made once, by the
    runner."""
    cn = tiling._override(core_num, "core_num", OP)
    ub = tiling._override(ub_size, "ub_size", OP)
    a2, b2 = p.a, p.b
    m, k = a2.shape[-2:]
    n = b2.shape[-1]
    a_batch, b_batch = a2.shape[:-2], b2.shape[:-2]
    a_row, b_col = p.a_param == "row", p.b_param == "column"
    # Parameters in the layout the kernel reads, decided as the CANN adapter decides (op_host/aqo_qlinear_matmul.cpp
    # ParamLayout): per tensor one value; per row / per column one [M] / [N] vector for every matrix where the
    # parameters' batch dimensions are all 1, else laid out with the operand's batch dimensions.
    def shared(*params):
        return all(int(np.prod(x.shape[:-2], dtype=np.int64)) == 1 for x in params)

    a_batched = a_row and len(a_batch) > 0 and not shared(p.a_scale, p.a_zero_point)
    b_batched = b_col and len(b_batch) > 0 and not shared(p.b_scale, p.b_zero_point)
    if a_row:
        a_s = np.broadcast_to(p.a_scale, (a_batch if a_batched else ()) + (m, 1)).reshape(-1)
        a_z = np.broadcast_to(p.a_zero_point, (a_batch if a_batched else ()) + (m, 1)).reshape(-1)
    else:
        a_s, a_z = p.a_scale.reshape(-1)[:1], p.a_zero_point.reshape(-1)[:1]
    if b_col:
        b_s = np.broadcast_to(p.b_scale, (b_batch if b_batched else ()) + (1, n)).reshape(-1)
        b_z = np.broadcast_to(p.b_zero_point, (b_batch if b_batched else ()) + (1, n)).reshape(-1)
    else:
        b_s, b_z = p.b_scale.reshape(-1)[:1], p.b_zero_point.reshape(-1)[:1]
    y_s = p.y_scale.reshape(-1)[:1]
    y_z = p.y_zero_point.reshape(-1)[:1]
    b_stored, b_trans = transposed_storage(b2, p.b_type, soc)

    # Not zeroed on the device: the runner poisons y and fails the run if the kernel leaves any byte unwritten.
    y = np.empty(p.out_shape_2d, dtype=dtypes.numpy_dtype(p.out_type))
    out = _native.emulate_qlinear_matmul(
        _bytes(a2), _bytes(a_s.astype(np.float32)), _bytes(a_z), _bytes(b_stored), _bytes(b_s.astype(np.float32)),
        _bytes(b_z), _bytes(y_s.astype(np.float32)), _bytes(y_z), y.reshape(-1).view(np.uint8),
        [int(d) for d in a2.shape], [int(d) for d in b2.shape], b_trans, p.a_type, p.b_type, p.out_type,
        p.a_param, p.b_param, a_batched, b_batched, soc, cn, ub)
    if not out["ok"] and "violation" in out:
        raise tiling.violation_error(out["violation"])
    _stats.record({"op": OP, "plan": dict(out["plan"]), "run": out.get("stats"), "matmul": out.get("matmul")})
    if not out["ok"]:
        raise EmulatorError(out["emulator_error"]["message"])
    return y.reshape(p.out_shape)
