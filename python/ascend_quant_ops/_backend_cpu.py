"""The cpu backend: how a validated call is computed on the CPU, one function per operator.

`api.py` (numpy inputs, or torch inputs with a SoC check) and the torch ops' CPU kernels (torch_ops.py) both call
these, after the one validation of the call. DynamicQuant and QLinearMatMul run the compiled CPU kernels (`cpu/`:
a fused DynamicQuant, an int8 GEMM QLinearMatMul), which give the numpy golden's results (golden/, the exact
reference) byte for byte; quant_matmul runs the golden.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .cpu import dynamic_quant as _cpu_dq
from .cpu import qlinear_matmul as _cpu_qmm
from .golden import qlinear_matmul as _golden_qmm
from .golden import quant_matmul as _golden_qm


def dynamic_quant(x: np.ndarray, smooth_scales: Optional[np.ndarray], dst: str, asymmetric: bool):
    """(y, scale) or (y, scale, offset) of arguments golden.dynamic_quant.validate accepted."""
    return _cpu_dq.compute(x, smooth_scales, dst, asymmetric)


def qlinear_matmul(operands: _golden_qmm.QLinearMatMulOperands) -> np.ndarray:
    """y of validated QLinearMatMul operands."""
    return _cpu_qmm.compute(operands)


def quant_matmul(operands: _golden_qm.QuantMatMulOperands) -> np.ndarray:
    """y of validated quant_matmul operands (the golden: no compiled kernel for it yet)."""
    return _golden_qm.compute(operands)
