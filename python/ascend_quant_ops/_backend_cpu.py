"""The cpu backend: how a validated call is computed on the CPU, one function per operator.

`api.py` (numpy inputs, or torch inputs with a SoC check) and the torch ops' CPU kernels (torch_ops.py) both call
these, after the one validation of the call; a faster exact CPU implementation replaces the body of one function
here and every CPU path uses it. Today both are the numpy golden (golden/), the exact reference.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .golden import dynamic_quant as _golden_dq
from .golden import qlinear_matmul as _golden_qmm


def dynamic_quant(x: np.ndarray, smooth_scales: Optional[np.ndarray], dst: str, asymmetric: bool):
    """(y, scale) or (y, scale, offset) of arguments golden.dynamic_quant.validate accepted."""
    return _golden_dq.compute(x, smooth_scales, dst, asymmetric)


def qlinear_matmul(operands: _golden_qmm.QLinearMatMulOperands) -> np.ndarray:
    """y of validated QLinearMatMul operands."""
    return _golden_qmm.compute(operands)
