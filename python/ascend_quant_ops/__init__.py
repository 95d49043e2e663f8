"""ascend-quant-ops: quantized inference operators for Ascend NPUs.

    import ascend_quant_ops as aqo
    y, scale = aqo.dynamic_quant(x)                                  # per-row symmetric int8
    y = aqo.qlinear_matmul(a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp)    # ONNX QLinearMatMul
    y = aqo.quant_matmul(a, a_s, a_zp, b, b_s, out_dtype="bfloat16")  # W8A8: quantized matmul, float output
    aqo.plan_dynamic_quant((4096, 7168), "bfloat16", soc="ascend910b")   # what the device would do / refuse
    aqo.backend_info()                                               # which backends run here, and why not

Backends: "cpu" (compiled CPU kernels, bit for bit the numpy golden), "emulator" (the AscendC kernels on CPU),
"npu" (torch_npu + the custom operator package), "auto".
"""
from .api import backend_info, dynamic_quant, qlinear_matmul, quant_matmul
from .errors import AqoError, BackendUnavailableError, ConstraintError, DTypeError, EmulatorError

__version__ = "0.1.0"


def _register_torch_ops_if_torch_is_loaded() -> None:
    """PyTorch users import torch first: then torch.ops.ascend_quant_ops.* exist as soon as this package is
    imported. Without torch loaded nothing is imported here (numpy users do not pay for torch); the ops are
    registered on first use with torch tensors, or by `import ascend_quant_ops.torch_ops`."""
    import sys

    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "library"):
        from . import torch_ops  # noqa: F401


_register_torch_ops_if_torch_is_loaded()


def __getattr__(name):
    # The plan functions live in tiling.py, which needs the compiled tiling core; resolve them on first use.
    if name in ("plan_dynamic_quant", "plan_qlinear_matmul", "soc_table", "canonical_soc"):
        from . import tiling

        return getattr(tiling, name)
    raise AttributeError(f"module 'ascend_quant_ops' has no attribute '{name}'")


__all__ = [
    "dynamic_quant",
    "qlinear_matmul",
    "quant_matmul",
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
