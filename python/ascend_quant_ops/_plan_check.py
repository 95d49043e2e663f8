"""The SoC checks every backend shares: a call with a SoC (given, or the device's) is refused exactly where the
device would refuse it, whether it then runs on the cpu, the emulator or the npu backend.

The rules are the tiling core's plans (op_host/tiling_core, through tiling.py), plus what the operator's kernel
takes beyond the plan request:
  * QLinearMatMul: y_scale / y_zero_point per tensor (the kernel has one output multiplier denominator and one
    zero point; the CANN TilingFunc refuses others the same way);
  * QLinearMatMul: a per-row (a) or per-column (b) parameter with batch dimensions has either all of them 1 or
    exactly its operand's batch dimensions (the kernel reads one parameter vector per batch matrix, or one for
    all; a parameter that broadcasts over only some batch dimensions is refused by the TilingFunc);
  * quant_matmul: the SoCs with its kernel are the SoC table's (a non-empty quant_matmul out_dtypes list,
    QUANT_MATMUL_KERNEL_SOCS); the others refuse it, as the device would.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np

from . import _convert, dtypes, tiling
from ._opnames import DYNAMIC_QUANT, QLINEAR_MATMUL, QUANT_MATMUL
from .errors import ConstraintError, DTypeError

def _quant_matmul_kernel_socs() -> Tuple[str, ...]:
    try:
        table = tiling.soc_table()
    except Exception:  # pragma: no cover  (a build without _native: no SoC can run anything)
        return ()
    return tuple(name for name, spec in table.items() if spec.get("quant_matmul", {}).get("out_dtypes"))


#: SoCs with a quant_matmul kernel, from the SoC table (op_host/tiling_core/soc_table.cpp: quant_matmul_out_dtypes).
QUANT_MATMUL_KERNEL_SOCS: Tuple[str, ...] = _quant_matmul_kernel_socs()


def dynamic_quant(shape: Sequence[int], x_dtype: str, dst: str, smooth: bool, asymmetric: bool,
                  soc: str) -> tiling.Plan:
    """The plan of the call on `soc`, or the ConstraintError / DTypeError the device would raise (the asymmetric
    modes, uint8 included, are the plan's: the SoC table lists their dst types)."""
    return tiling.plan_dynamic_quant(tuple(int(d) for d in shape), x_dtype, soc=soc, dst_type=dst,
                                     smooth=bool(smooth), asymmetric=bool(asymmetric))


def qlinear_matmul(a_shape: Sequence[int], b_shape: Sequence[int], a_dtype: str, b_dtype: str, y_dtype: str,
                   a_param: str, b_param: str, y_param: str, soc: str, *, plan: bool = True,
                   a_param_shape: Sequence[int] = (), b_param_shape: Sequence[int] = ()):
    """The SoC's rules for a QLinearMatMul call, then (plan=True) its plan; the emulator passes plan=False because
    its runner makes the plan itself. 1-D operands are promoted here (numpy.matmul's rule). a_param_shape /
    b_param_shape: the shapes of a_scale / b_scale (their zero points have the same layout)."""
    if y_param != "tensor":
        raise ConstraintError(QLINEAR_MATMUL, "y_scale", "the kernel takes a per-tensor y_scale / y_zero_point "
                              "(one output multiplier and zero point)", limit="per tensor ([] or [1])",
                              actual=f"a {y_param} y_scale / y_zero_point", soc=soc,
                              suggestion="use backend='cpu' without soc= (the exact reference) for per-row or "
                                         "per-column output parameters")
    a_shape, b_shape = tuple(int(d) for d in a_shape), tuple(int(d) for d in b_shape)
    # numpy.matmul promotes 1-D operands to matrices; the plan works on the promoted shapes.
    if len(a_shape) == 1:
        a_shape = (1,) + a_shape
    if len(b_shape) == 1:
        b_shape = b_shape + (1,)
    # The scales' layouts as the CANN operator's TilingFunc reads them (ParamLayout: the tiling core's classifier),
    # so that a shape the device would refuse (batch dims that broadcast only partly, one value per matrix of a taller
    # operand) is refused here with its typed error; their zero points have the same layouts (the golden's check).
    batched = {}
    for name, kind, shape, operand, row in (("a_scale", a_param, a_param_shape, a_shape, True),
                                            ("b_scale", b_param, b_param_shape, b_shape, False)):
        batched[name] = kind != "tensor" and tiling.classify_matmul_param(
            "qlinear_matmul", name, shape, row, operand[-2 if row else -1], operand[:-2], soc)["batched"]
    if not plan:
        return None
    return tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype=a_dtype, b_dtype=b_dtype,
                                      y_dtype=y_dtype, a_param=a_param, b_param=b_param,
                                      a_param_batched=batched["a_scale"], b_param_batched=batched["b_scale"])


# The NaN bit patterns of the float8 formats the NPUs take (sign bit cleared): e4m3fn has one (0x7F), e5m2 an all-ones
# exponent with a non-zero mantissa (0x7D..0x7F).
_FLOAT8_NAN = {dtypes.FLOAT8_E4M3FN: lambda m: m == 0x7F, dtypes.FLOAT8_E5M2: lambda m: m > 0x7C}


def float8_operands_without_nan(op: str, named, soc: Optional[str]) -> None:
    """The NPU kernels give float8 operands to the cube, which the AscendC Mmad page says must not be given NaN (an
    execution error may result): a NaN in a float8 operand is refused before the kernel runs. `named`: (argument name,
    array) pairs, numpy arrays or torch tensors (checked where they live, on their bytes); other types are skipped."""
    for name, data in named:
        is_nan = _FLOAT8_NAN.get(dtypes.dtype_name(getattr(data, "dtype", None)))
        if is_nan is None:
            continue
        if _convert.is_torch_tensor(data):
            import torch

            magnitude = data.contiguous().view(torch.uint8) & 0x7F
            hits = is_nan(magnitude)
            found = bool(hits.any())
            where = tuple(int(i) for i in torch.nonzero(hits.reshape(data.shape))[0]) if found else ()
        else:
            magnitude = np.ascontiguousarray(data).view(np.uint8) & 0x7F
            hits = np.argwhere(is_nan(magnitude))
            found = hits.size != 0
            where = tuple(int(i) for i in hits[0]) if found else ()
        if found:
            raise ConstraintError(op, name, "float8 operands of the NPU kernel without NaN (the cube may fault on a "
                                  "NaN input: the AscendC Mmad page)", expected="no NaN", actual=f"NaN at index {where}",
                                  soc=soc, suggestion="use backend='cpu' without soc= (the exact reference propagates "
                                  "NaN)")


def qlinear_matmul_operands(p, soc: str, *, plan: bool = True):
    """qlinear_matmul() for validated operands (golden.qlinear_matmul.QLinearMatMulOperands)."""
    float8_operands_without_nan(QLINEAR_MATMUL, (("a", p.a), ("b", p.b)), soc)
    return qlinear_matmul(p.a.shape, p.b.shape, p.a_type, p.b_type, p.out_type, p.a_param, p.b_param, p.y_param,
                          soc, plan=plan, a_param_shape=p.a_scale.shape, b_param_shape=p.b_scale.shape)


def quant_matmul(a_shape: Sequence[int], b_shape: Sequence[int], a_dtype: str, b_dtype: str, out_dtype: str,
                 a_param: str, b_param: str, soc: str, *, plan: bool = True, layouts: Optional[dict] = None):
    """The SoC's rules for a quant_matmul call, then (plan=True) its plan; the emulator passes plan=False because its
    runner makes the plan itself. 1-D operands are promoted here. `layouts`: the parameters' layouts (a_scale,
    b_scale, a_zero_point, b_zero_point, bias, as QuantMatMulOperands names them); without them a_param / b_param
    stand for the scales and zero points together."""
    if soc not in QUANT_MATMUL_KERNEL_SOCS:
        raise ConstraintError(QUANT_MATMUL, "soc", "a quant_matmul kernel for the SoC (the operator package has none "
                              "for it), so the device would refuse the call",
                              expected=" | ".join(QUANT_MATMUL_KERNEL_SOCS) or "none", actual=soc, soc=soc,
                              suggestion="use backend='cpu' without soc= (the exact CPU reference)")
    a_shape, b_shape = tuple(int(d) for d in a_shape), tuple(int(d) for d in b_shape)
    if len(a_shape) == 1:
        a_shape = (1,) + a_shape
    if len(b_shape) == 1:
        b_shape = b_shape + (1,)
    spec = tiling.soc_table()[soc]["quant_matmul"]
    if out_dtype not in spec["out_dtypes"]:
        raise DTypeError(QUANT_MATMUL, "out_dtype", f"the output types of {soc}'s quant_matmul kernel",
                         expected=" | ".join(spec["out_dtypes"]), actual=out_dtype, soc=soc,
                         suggestion="choose one of those, or use backend='cpu' without soc= (the exact reference)")
    if not plan:
        return None
    lay = layouts or {"a_scale": "row" if a_param == "row" else "tensor",
                      "b_scale": "column" if b_param == "column" else "tensor",
                      "a_zero_point": "row" if a_param == "row" else "tensor",
                      "b_zero_point": "column" if b_param == "column" else "tensor", "bias": None}
    return tiling.plan_quant_matmul(a_shape, b_shape, soc=soc, a_dtype=a_dtype, b_dtype=b_dtype, out_dtype=out_dtype,
                                   a_scale=lay["a_scale"], b_scale=lay["b_scale"],
                                   a_zero_point=lay["a_zero_point"], b_zero_point=lay["b_zero_point"],
                                   bias=lay["bias"])


def quant_matmul_operands(p, soc: str, *, plan: bool = True):
    """quant_matmul() for validated operands (golden.quant_matmul.QuantMatMulOperands)."""
    layouts = {"a_scale": p.a_scale_layout, "b_scale": p.b_scale_layout, "a_zero_point": p.a_zero_point_layout,
               "b_zero_point": p.b_zero_point_layout, "bias": p.bias_layout}
    return quant_matmul(p.a.shape, p.b.shape, p.a_type, p.b_type, p.out_dtype, p.a_param, p.b_param, soc,
                        plan=plan, layouts=layouts)


def param_kind(numel: int, operand: str) -> str:
    """Granularity of a parameter from its element count, as the device's TilingFunc reads it."""
    if numel == 1:
        return "tensor"
    return {"a": "row", "b": "column"}.get(operand, "broadcast")


__all__ = ["dynamic_quant", "qlinear_matmul", "qlinear_matmul_operands", "quant_matmul", "quant_matmul_operands",
           "param_kind", "DYNAMIC_QUANT", "QUANT_MATMUL_KERNEL_SOCS"]
