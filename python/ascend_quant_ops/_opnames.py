"""The operator names, defined once: the Python op names that errors and plans carry, and the torch.library names.

Python (errors' `op` field, plan requests):   dynamic_quant, qlinear_matmul, quant_matmul
torch (torch.ops.ascend_quant_ops.<name>):     dynamic_quant, dynamic_quant_asymmetric, qlinear_matmul, quant_matmul
"""
DYNAMIC_QUANT = "dynamic_quant"
QLINEAR_MATMUL = "qlinear_matmul"
QUANT_MATMUL = "quant_matmul"

#: torch.library namespace of the ops: torch.ops.ascend_quant_ops.*
TORCH_NAMESPACE = "ascend_quant_ops"
#: torch op names (the asymmetric mode is its own op, as torch_npu.npu_dynamic_quant_asymmetric is).
TORCH_DYNAMIC_QUANT = DYNAMIC_QUANT
TORCH_DYNAMIC_QUANT_ASYMMETRIC = "dynamic_quant_asymmetric"
TORCH_QLINEAR_MATMUL = QLINEAR_MATMUL
TORCH_QUANT_MATMUL = QUANT_MATMUL


def qualified(name: str) -> str:
    """'ascend_quant_ops::<name>', as torch.library spells an op."""
    return f"{TORCH_NAMESPACE}::{name}"
