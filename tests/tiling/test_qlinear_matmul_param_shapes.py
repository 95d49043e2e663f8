"""The CANN operator AqoQLinearMatMul's TilingFunc sees its parameters' shapes only (op_host/aqo_qlinear_matmul.cpp,
ParamLayout): each scale and zero point of a and b goes through the tiling core's ClassifyMatMulParam, and a zero point
must have its scale's layout. Here the device's classification is held to the golden's parameter rules
(golden/_matmul_operands.py): a shape the golden refuses is refused, a shape it accepts is read as the same layout,
except batch dims that broadcast only partly (the kernel reads one vector per matrix or one for all: refused, with the
forms that work)."""
import numpy as np
import pytest

from ascend_quant_ops import _native
from ascend_quant_ops.errors import ConstraintError
from ascend_quant_ops.golden import _matmul_operands as operands

M, K, N = 6, 8, 10
A_SHAPE, B_SHAPE = (2, 3, M, K), (3, K, N)


def device(dims, row):
    shape = A_SHAPE if row else B_SHAPE
    length = M if row else N
    return _native.classify_quant_matmul_param("p", list(dims), row, length, list(shape[:-2]), "ascend910b",
                                               "qlinear_matmul")


def golden(dims, row):
    """The golden's layout of the parameter ((1, 1) per tensor), or None where it refuses the shape."""
    p = np.zeros(dims, np.float32)
    t = np.zeros(A_SHAPE if row else B_SHAPE, np.int8)
    try:
        if row:
            return operands.per_row_shape("QLinearMatMul", p, "p", t, t)
        return operands.per_column_shape("QLinearMatMul", p, "p", t, t)
    except ConstraintError:
        return None


ROW_SHAPES = [(), (1,), (1, 1), (M,), (M, 1), (1, M, 1), (1, M), (2, 3, M, 1), (1, 2, 3, M, 1),
              (K,), (1, K), (M, K), (2, 3, M), (3, M, 1), (2, 1, M, 1), (M + 1,), (M, 2), (2, 3, M, 2), (6, M, 1)]
COLUMN_SHAPES = [(), (1,), (N,), (1, N), (1, 1, N), (3, 1, N), (1, 3, 1, N),
                 (K,), (K, 1), (N, 1), (K, N), (3, N), (2, 1, N), (N + 1,), (2, N), (3, 2, N)]


@pytest.mark.parametrize("row, dims", [(True, d) for d in ROW_SHAPES] + [(False, d) for d in COLUMN_SHAPES])
def test_the_device_reads_a_parameter_as_the_golden_does(row, dims):
    got, want = device(dims, row), golden(dims, row)
    operand_batch = (A_SHAPE if row else B_SHAPE)[:-2]
    if want is None:
        assert not got["ok"], (dims, got)
        assert got["violation"]["op"] == "qlinear_matmul"
        return
    param_batch = operands.strip_leading_ones(tuple(want[:-2]))
    if param_batch and param_batch != operands.strip_leading_ones(operand_batch):
        assert not got["ok"], (dims, got)   # a partial broadcast: one vector per matrix or one for all only
        return
    assert got["ok"], (dims, got)
    if int(np.prod(want)) == 1:
        assert got["kind"] == "tensor"
    else:
        assert got["kind"] == "vector" and got["batched"] == bool(param_batch)


def test_a_rows_take_no_batch_plus_m_spelling_as_quant_matmul_does():
    # quant_matmul's golden reads a's [..., M] as one value per row of every matrix; QLinearMatMul's refuses it
    assert not device((2, 3, M), True)["ok"]
    qm = _native.classify_quant_matmul_param("p", [2, 3, M], True, M, [2, 3], "ascend910b")
    assert qm["ok"] and qm["batched"]


def test_a_shape_the_device_refuses_is_refused_with_soc_before_any_kernel():
    # a_scale [2, 1, 1] against a [2, 3, K]: the golden's one value per matrix of a (it broadcasts), which the kernels
    # cannot read (one value per row, per matrix or for all). Without soc= the CPU reference computes it; with soc=
    # the call is refused with the device's typed error, naming the argument, before any plan or kernel.
    from ascend_quant_ops import api
    rng = np.random.default_rng(5)
    a = rng.integers(0, 255, size=(2, 3, 32), dtype=np.uint8)
    b = rng.integers(-128, 127, size=(32, 16), dtype=np.int8)
    args = (a, np.full((2, 1, 1), 0.02, np.float32), np.full((2, 1, 1), 3, np.uint8), b, np.float32(0.01),
            np.int8(0), np.float32(0.5), np.int8(1))
    assert api.qlinear_matmul(*args).shape == (2, 3, 16)
    for soc in ("ascend910b", "ascend310p"):
        with pytest.raises(ConstraintError) as e:
            api.qlinear_matmul(*args, soc=soc)
        assert e.value.argument == "a_scale" and "per row of a (M = 3)" in str(e.value)
