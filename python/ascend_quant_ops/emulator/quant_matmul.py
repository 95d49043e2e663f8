"""quant_matmul on the AscendC CPU emulator: not built yet.

The kernel (op_kernel/aqo_quant_matmul.cpp: the QLinearMatMul cube stage with a float epilogue) and its binding
(_native.emulate_quant_matmul) are being written. Until this build has the binding, `run` refuses with
BackendUnavailableError naming the missing kernel; the SoC rules (_plan_check.quant_matmul) refuse first on every
SoC without the kernel, so a call with soc= fails the same way on every backend.
"""
from __future__ import annotations

import numpy as np

from .. import _native
from ..errors import BackendUnavailableError
from ..golden import quant_matmul as _golden

#: the _native function the kernel's binding will provide
BINDING = "emulate_quant_matmul"


def available() -> bool:
    """True when this build of _native can emulate the quant_matmul kernel."""
    return hasattr(_native, BINDING)


def run(operands: _golden.QuantMatMulOperands, soc: str) -> np.ndarray:
    """The emulator run of validated operands whose SoC rules were checked."""
    if not available():
        raise BackendUnavailableError(
            "emulator", f"this build of _native has no emulated quant_matmul kernel (op_kernel/aqo_quant_matmul.cpp, "
                        f"_native.{BINDING}) for {soc}; backend='cpu' computes the exact reference")
    raise NotImplementedError("the quant_matmul kernel's runner comes with the kernel")  # pragma: no cover
