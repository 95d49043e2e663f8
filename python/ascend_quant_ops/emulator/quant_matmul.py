"""quant_matmul on the AscendC CPU emulator: op_kernel/aqo_quant_matmul.cpp (the QLinearMatMul cube stage with a float
epilogue), compiled for each SoC into _native (python/csrc/emulate_quant_matmul.cpp), run core by core with the host
plan's tiling.

`run(operands, soc)` takes validated operands (golden.quant_matmul.QuantMatMulOperands) whose SoC rules were checked
(_plan_check.quant_matmul) and returns what the golden returns, bit for bit: the kernel's arithmetic is the
definition's (exact int32 accumulation with the zero-point decomposition, float32(acc) correctly rounded,
float32(a_scale * b_scale), one float32 multiply, one float32 addition of the bias, one round-to-nearest-even
conversion). Parameters are passed in the layouts the kernel reads: per tensor one value; per row [a batch..., M];
per column [b batch..., N]; a per-column bias [y batch..., N]. b is passed as stored: a transposed view of an
[..., N, K] weight goes to the kernel as those bytes with b_trans (no host copy).

What the SoC limits beyond the golden: the output types its kernel writes (the SoC table's quant_matmul out_dtypes;
ascend310p: float32 only, its float32 -> float16 conversion does not round to nearest even); on ascend310p the vector
unit saturates (no IEEE Inf / NaN), so a result beyond float32's range is its largest finite value there and a NaN
scale or bias gives 0: the golden's Inf / NaN appear on ascend910b and ascend910_95 only.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .. import _native, dtypes, tiling
from .._opnames import QUANT_MATMUL as OP
from ..errors import BackendUnavailableError, EmulatorError
from ..golden import quant_matmul as _golden
from . import _stats

#: the _native function the kernel's binding provides
BINDING = "emulate_quant_matmul"


def available() -> bool:
    """True when this build of _native can emulate the quant_matmul kernel."""
    return hasattr(_native, BINDING)


def _bytes(a: np.ndarray) -> np.ndarray:
    # The binding takes writable contiguous byte views; read-only inputs and broadcast views are copied.
    return np.require(a, requirements=["C", "W"]).reshape(-1).view(np.uint8)


_EMPTY = np.zeros(0, np.uint8)


def run(p: _golden.QuantMatMulOperands, soc: str, *, core_num: Optional[int] = None,
        ub_size: Optional[int] = None) -> np.ndarray:
    """The emulator run of validated operands whose SoC rules were checked; the plan is made once, by the runner."""
    if not available():
        raise BackendUnavailableError(
            "emulator", f"this build of _native has no emulated quant_matmul kernel (_native.{BINDING}) for {soc}; "
                        f"backend='cpu' computes the exact reference")
    cn = tiling._override(core_num, "core_num", OP)
    ub = tiling._override(ub_size, "ub_size", OP)
    a2, b2 = p.a, p.b
    m, k = a2.shape[-2:]
    n = b2.shape[-1]
    a_batch, b_batch = a2.shape[:-2], b2.shape[:-2]
    y_batch = tuple(p.out_shape_2d[:-2])

    # Each parameter in its own layout, as the CANN operator gets them: one value; one [M] / [N] vector for every
    # matrix when its shape is one (the operator's own classifier decides, as its TilingFunc does); else one per
    # batch matrix, [batch..., M] / [batch..., N] (e.g. a per-batch [B, 1, 1] value expanded).
    def shared(value, row, length, batch):
        got = _native.classify_quant_matmul_param("p", list(np.shape(value)), row, length, list(batch), soc)
        return got["ok"] and got["kind"] == "vector" and not got["batched"]

    def rows(value, layout):  # an a parameter: (values, batched)
        if layout != "row":
            return value.reshape(-1)[:1], False
        if shared(value, True, m, a_batch):
            return value.reshape(-1), False
        return np.broadcast_to(value, a_batch + (m, 1)).reshape(-1), len(a_batch) > 0

    def columns(value, layout, batch):  # a b parameter or the bias: (values, batched)
        if layout != "column":
            return value.reshape(-1)[:1], False
        if shared(value, False, n, batch):
            return value.reshape(-1), False
        return np.broadcast_to(value, batch + (1, n)).reshape(-1), len(batch) > 0

    a_s, a_s_batched = rows(p.a_scale, p.a_scale_layout)
    b_s, b_s_batched = columns(p.b_scale, p.b_scale_layout, b_batch)
    a_s, b_s = a_s.astype(np.float32), b_s.astype(np.float32)
    a_z, a_z_batched = rows(p.a_zero_point, p.a_zero_point_layout) if p.a_zero_point_layout else (_EMPTY, False)
    b_z, b_z_batched = (columns(p.b_zero_point, p.b_zero_point_layout, b_batch) if p.b_zero_point_layout
                        else (_EMPTY, False))
    bias, bias_batched = columns(p.bias, p.bias_layout, y_batch) if p.bias_layout else (_EMPTY, False)
    bias = bias.astype(np.float32)
    # b as stored: a transposed view of a contiguous [..., N, K] is read so by the kernel (no copy here).
    b_stored, b_trans = b2, False
    swapped = np.swapaxes(b2, -1, -2)
    if not b2.flags.c_contiguous and swapped.flags.c_contiguous and b2.ndim >= 2:
        b_stored, b_trans = swapped, True

    # Not zeroed on the device: the runner poisons y and fails the run if the kernel leaves any byte unwritten.
    y = np.empty(p.out_shape_2d, dtype=dtypes.numpy_dtype(p.out_dtype))
    out = getattr(_native, BINDING)(
        _bytes(a2), _bytes(a_s), _bytes(a_z), _bytes(b_stored), _bytes(b_s), _bytes(b_z), _bytes(bias),
        y.reshape(-1).view(np.uint8), [int(d) for d in a2.shape], [int(d) for d in b2.shape], b_trans, p.a_type,
        p.b_type, p.out_dtype, p.a_scale_layout, p.b_scale_layout, p.a_zero_point_layout or "none",
        p.b_zero_point_layout or "none", p.bias_layout or "none", a_s_batched, b_s_batched, bias_batched, soc, cn,
        ub, a_zp_batched=a_z_batched, b_zp_batched=b_z_batched)
    if not out["ok"] and "violation" in out:
        raise tiling.violation_error(out["violation"])
    _stats.record({"op": OP, "plan": dict(out["plan"]), "run": out.get("stats"), "matmul": out.get("matmul")})
    if not out["ok"]:
        raise EmulatorError(out["emulator_error"]["message"])
    return y.reshape(p.out_shape)

