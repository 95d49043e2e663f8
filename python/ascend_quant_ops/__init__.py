"""ascend-quant-ops: quantized inference operators for Ascend NPUs.

    import ascend_quant_ops as aqo
    y, scale = aqo.dynamic_quant(x)                                  # per-row symmetric int8
    y = aqo.qlinear_matmul(a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp)    # ONNX QLinearMatMul
    aqo.plan_dynamic_quant((4096, 7168), "bfloat16", soc="ascend910b")   # what the device would do / refuse
    aqo.backend_info()                                               # which backends run here, and why not

Backends: "cpu" (exact numpy golden), "emulator" (the AscendC kernels on CPU), "npu" (torch_npu + the custom
operator package), "auto".
"""
from .api import backend_info, dynamic_quant, qlinear_matmul
from .errors import AqoError, BackendUnavailableError, ConstraintError, DTypeError, EmulatorError

__version__ = "0.1.0"


def __getattr__(name):
    # The plan functions live in tiling.py, which needs the compiled tiling core; resolve them on first use.
    if name in ("plan_dynamic_quant", "plan_qlinear_matmul", "soc_table", "canonical_soc"):
        from . import tiling

        return getattr(tiling, name)
    raise AttributeError(f"module 'ascend_quant_ops' has no attribute '{name}'")


__all__ = [
    "dynamic_quant",
    "qlinear_matmul",
    "backend_info",
    "plan_dynamic_quant",
    "plan_qlinear_matmul",
    "soc_table",
    "canonical_soc",
    "AqoError",
    "ConstraintError",
    "DTypeError",
    "BackendUnavailableError",
    "EmulatorError",
]
