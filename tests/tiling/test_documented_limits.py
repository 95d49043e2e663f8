"""Every documented limit (docs/references.md#atb-dynamicquant; #soc-facts and #apis-per-soc for dtypes) at and
one past its boundary, through the public plan functions and through the request check alone. The numbers are
typed from the spec, not read from the code."""
import ml_dtypes
import numpy as np
import pytest

from ascend_quant_ops import _native, dtypes, tiling
from ascend_quant_ops.golden import dynamic_quant as golden_dq
from ascend_quant_ops.errors import ConstraintError, DTypeError

B, P, C = "ascend910b", "ascend310p", "ascend910_95"


def dq_ok(shape, dtype="float16", soc=B, **kw):
    plan = tiling.plan_dynamic_quant(shape, dtype, soc=soc, **kw)
    e = plan.explanation
    assert e["soc"] == tiling.canonical_soc(soc)
    assert e["total_work"] == int(np.prod(shape[:-1]))
    return plan


def dq_refused(shape, dtype="float16", soc=B, cls=ConstraintError, **kw):
    with pytest.raises(cls) as ei:
        tiling.plan_dynamic_quant(shape, dtype, soc=soc, **kw)
    e = ei.value
    assert e.op == "dynamic_quant" and e.soc == tiling.canonical_soc(soc)
    assert e.constraint and e.limit and e.actual and e.suggestion
    # The request check alone gives the same refusal.
    x = dtypes.parse_dtype(dtype, op="dynamic_quant", argument="x")
    dst = golden_dq.parse_dst_type(kw.get("dst_type", "int8"), True)
    out = _native.check_dynamic_quant(list(shape), x, dst, kw.get("smooth", False),
                                      kw.get("asymmetric", False), soc, 0, 0)
    assert not out["ok"] and out["violation"]["argument"] == e.argument
    return e


# ------------------------------------------------------------------ ascend910b: float16 26624, bfloat16 7552
@pytest.mark.parametrize("rows", [1, 7, 48, 1000])
def test_910b_float16_tail_26624(rows):
    dq_ok((rows, 26624), "float16")
    e = dq_refused((rows, 26625), "float16")
    assert e.argument == "x" and "26624" in e.limit and e.actual == "26625"
    assert "largest float16 tail on ascend910b is 26624" in e.suggestion
    assert "float16" in e.constraint and not isinstance(e, DTypeError)


@pytest.mark.parametrize("rows", [1, 7, 48, 1000])
def test_910b_bfloat16_tail_7552(rows):
    dq_ok((rows, 7552), "bfloat16")
    e = dq_refused((rows, 7553), "bfloat16")
    assert e.argument == "x" and "7552" in e.limit and e.actual == "7553"
    assert "largest bfloat16 tail on ascend910b is 7552" in e.suggestion


def test_910b_limits_hold_for_variants_and_leading_dims():
    dq_ok((2, 3, 26624), "float16", soc="ascend910b3")
    dq_refused((2, 3, 26625), "float16", soc="ascend910b3")
    dq_ok((4, 2, 7552), "bfloat16", soc="Ascend910B1")
    dq_refused((4, 2, 7553), "bfloat16", soc="Ascend910B1")


@pytest.mark.parametrize("dst", ["hifloat8", "float8_e4m3fn", "float8_e5m2", 34, 35, 36])
def test_910b_fp8_hif8_outputs_refused(dst):
    e = dq_refused((8, 128), "float16", dst_type=dst, cls=DTypeError)
    assert e.argument == "dst_type" and e.limit == "int8" and "ascend910_95" in e.suggestion
    assert isinstance(e, TypeError) and isinstance(e, ValueError)


# ------------------------------------------------------------------ ascend310p: float16 only, 32 | tail <= 4096
@pytest.mark.parametrize("tail", [32, 64, 4000, 4064, 4096])
def test_310p_accepted_tails(tail):
    dq_ok((9, tail), "float16", soc=P)


def test_310p_4097_and_past_4096():
    e = dq_refused((9, 4097), "float16", soc=P)
    assert e.argument == "x" and "4096" in e.limit
    e = dq_refused((9, 4128), "float16", soc=P)  # a multiple of 32, but past 4096
    assert "4096" in e.limit and "largest float16 tail on ascend310p is 4096" in e.suggestion


@pytest.mark.parametrize("tail, near", [(4001, "4000 and 4032"), (4080, "4064 and 4096"), (31, "32"),
                                        (33, "32 and 64"), (1, "32"), (4095, "4064")])
def test_310p_tail_multiple_of_32(tail, near):
    e = dq_refused((9, tail), "float16", soc=P)
    assert e.limit == "multiple of 32" and e.actual == str(tail) and near in e.suggestion
    assert "DataCopyPad" in e.constraint


@pytest.mark.parametrize("soc", [P, "ascend310p3", "Ascend310P1"])
def test_310p_bfloat16_refused(soc):
    e = dq_refused((9, 64), "bfloat16", soc=soc, cls=DTypeError)
    assert e.argument == "x" and e.limit == "float16" and e.actual == "bfloat16"
    assert "ascend910b" in e.suggestion


@pytest.mark.parametrize("dst", ["hifloat8", "float8_e4m3fn", "float8_e5m2"])
def test_310p_fp8_hif8_refused(dst):
    e = dq_refused((9, 64), "float16", soc=P, dst_type=dst, cls=DTypeError)
    assert e.argument == "dst_type" and "ascend910_95" in e.suggestion


# ------------------------------------------------------------------ ascend910_95: rank > 1, no tail limit
@pytest.mark.parametrize("tail", [26625, 7553, 100_000, 1_000_000])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_950_no_tail_limit(tail, dtype):
    plan = dq_ok((3, tail), dtype, soc="ascend950")
    if tail >= 100_000:
        assert plan.explanation["passes"] >= 1


@pytest.mark.parametrize("dst", ["int8", "hifloat8", "float8_e4m3fn", "float8_e5m2", 2, 34, 35, 36,
                                 ml_dtypes.float8_e4m3fn, np.int8])
def test_950_outputs(dst):
    dq_ok((5, 256), "bfloat16", soc=C, dst_type=dst)


# ------------------------------------------------------------------ everywhere
@pytest.mark.parametrize("soc", [B, P, C, "ascend950"])
@pytest.mark.parametrize("shape", [(4096,), (64,), ()])
def test_rank_below_2_refused(soc, shape):
    e = dq_refused(shape, "float16", soc=soc)
    assert e.argument == "x" and e.limit == ">= 2" and "rank" in e.constraint and "reshape" in e.suggestion


@pytest.mark.parametrize("soc", [B, P, C])
def test_rank_2_accepted(soc):
    dq_ok((1, 64), "float16", soc=soc)


# The asymmetric modes (this package's kernel; ATB documents symmetric only): int8 and uint8 on every SoC, the
# 950's float types too; uint8 is an asymmetric output only.
ASYM_DST = {B: ("int8", "uint8"), P: ("int8", "uint8"),
            C: ("int8", "uint8", "hifloat8", "float8_e4m3fn", "float8_e5m2")}


@pytest.mark.parametrize("soc", [B, P, C])
def test_asymmetric_dst_types(soc):
    for dst in ("int8", "uint8", "hifloat8", "float8_e4m3fn", "float8_e5m2"):
        if dst in ASYM_DST[soc]:
            dq_ok((4, 64), "float16", soc=soc, asymmetric=True, dst_type=dst)
        else:
            e = dq_refused((4, 64), "float16", soc=soc, asymmetric=True, dst_type=dst, cls=DTypeError)
            assert e.argument == "dst_type" and soc in str(e)
    e = dq_refused((4, 64), "float16", soc=soc, dst_type="uint8", cls=DTypeError)
    assert e.argument == "dst_type" and "asymmetric" in str(e)


@pytest.mark.parametrize("soc", [B, P, C])
def test_float32_x_refused(soc):
    e = dq_refused((4, 64), "float32", soc=soc, cls=DTypeError)
    assert e.argument == "x"


def test_dtype_spellings():
    import torch

    for d in ("float16", "fp16", np.float16, np.dtype("float16"), torch.float16, torch.half):
        assert tiling.plan_dynamic_quant((2, 64), d, soc=B).request["x_dtype"] == "float16"
    for d in ("bfloat16", "bf16", ml_dtypes.bfloat16, torch.bfloat16):
        assert tiling.plan_dynamic_quant((2, 64), d, soc=B).request["x_dtype"] == "bfloat16"
    with pytest.raises(DTypeError):
        tiling.plan_dynamic_quant((2, 64), "float12", soc=B)
    with pytest.raises(DTypeError):
        tiling.plan_dynamic_quant((2, 64), "float16", soc=B, dst_type="uint8")


def test_bad_arguments_are_typed():
    with pytest.raises(ConstraintError) as ei:
        tiling.plan_dynamic_quant((2, 64), "float16", soc="ascend910c")
    assert ei.value.argument == "soc" and "ascend950" in str(ei.value)
    with pytest.raises(ConstraintError) as ei:
        tiling.plan_dynamic_quant((2, 64), "float16", soc=None)
    assert ei.value.argument == "soc"
    for shape in ((2, -1), (2.5, 64), "2,64", (True, 64), 64):
        with pytest.raises(ConstraintError) as ei:
            tiling.plan_dynamic_quant(shape, "float16", soc=B)
        assert ei.value.argument == "x"
    with pytest.raises(ConstraintError) as ei:
        tiling.plan_dynamic_quant((2 ** 40, 2 ** 20), "float16", soc=C)
    assert ei.value.constraint == "bytes of x" and ei.value.limit.startswith("<= 2^48")


# ------------------------------------------------------------------ shape products never overflow
TOO_BIG = 2 ** 48  # bytes of any tensor of the op (inputs and outputs)


@pytest.mark.parametrize("shape, what", [
    ((2 ** 62 - 1, 2 ** 62 - 1, 0), "scale"),  # x and y empty; scale's leading-dim product overflows 64 bits
    ((2 ** 32, 2 ** 32, 0), "scale"),          # 2^64 rows: wrapped to 0 rows before
    ((2 ** 24, 2 ** 24, 0), "scale"),          # 2^48 rows: 2^50 bytes of scale
    ((2 ** 46 + 1, 0), "scale"),               # rank 2, empty tail: scale alone is too big
    ((2 ** 47, 2), "bytes of x"),              # 2^49 bytes of float16
])
def test_dynamic_quant_shape_products_are_checked(shape, what):
    with pytest.raises(ConstraintError) as ei:
        tiling.plan_dynamic_quant(shape, "float16", soc=C)
    e = ei.value
    assert e.argument == "x" and what in e.constraint and e.limit.startswith("<= 2^48"), e
    # Exactly at the limit: 2^46 rows of 4-byte scales, empty tail, is planned with those rows.
    if what == "scale":
        p = tiling.plan_dynamic_quant((2 ** 23, 2 ** 23, 0), "float16", soc=C)
        assert p.tiling["rows"] == 2 ** 46 and p.tiling["cols"] == 0


@pytest.mark.parametrize("a_shape, b_shape", [
    ((2 ** 20, 2 ** 31 - 1, 0), (0, 2 ** 31 - 1)),   # K = 0: y (all y_zero_point) has 2^82 bytes
    ((2 ** 31 - 1, 0), (0, 2 ** 20)),                 # 2^51 bytes of y
    ((2 ** 40, 2 ** 40, 1, 0), (0, 0)),               # y empty (N = 0), batch product 2^80 (wrapped before)
    ((2 ** 33, 1, 0), (0, 0)),                        # y empty, one batch dim past the tiling's 32-bit field
])
def test_qlinear_matmul_shape_products_are_checked(a_shape, b_shape):
    with pytest.raises(ConstraintError) as ei:
        tiling.plan_qlinear_matmul(a_shape, b_shape, soc=B)
    e = ei.value
    assert e.argument in ("a", "b") and e.limit and e.actual and e.suggestion, e
    assert "bytes of the output y" in e.constraint or "batch" in e.constraint, e


def test_empty_outputs_with_huge_other_dims_plan_without_wrapping():
    # An empty y with large (but representable) dims: no tile, the kernel is not launched; nothing wraps.
    p = tiling.plan_qlinear_matmul((2 ** 20, 0, 5), (5, 2 ** 20), soc=B)
    assert p.tiling["unitCount"] == 0 and p.tiling["m"] == 0 and p.tiling["n"] == 2 ** 20
    p = tiling.plan_dynamic_quant((2 ** 40, 0, 2 ** 20), "float16", soc=C)
    assert p.tiling["rows"] == 0 and p.tiling["cols"] == 2 ** 20 and p.used_cores == 0


# ------------------------------------------------------------------ QLinearMatMul dtypes and shapes per SoC
def qmm(a_shape=(16, 32), b_shape=(32, 8), soc=B, **kw):
    return tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, **kw)


def qmm_refused(a_shape=(16, 32), b_shape=(32, 8), soc=B, cls=ConstraintError, **kw):
    with pytest.raises(cls) as ei:
        qmm(a_shape, b_shape, soc, **kw)
    e = ei.value
    assert e.op == "qlinear_matmul" and e.soc == tiling.canonical_soc(soc)
    assert e.constraint and e.limit and e.actual and e.suggestion
    return e


@pytest.mark.parametrize("soc", [B, P, C])
@pytest.mark.parametrize("a, b, y", [("int8", "int8", "int8"), ("uint8", "int8", "uint8"),
                                     ("uint8", "uint8", "uint8"), ("int8", "uint8", "int8")])
def test_qmm_integer_types_everywhere(soc, a, b, y):
    qmm(soc=soc, a_dtype=a, b_dtype=b, y_dtype=y)


@pytest.mark.parametrize("soc", [B, P])
@pytest.mark.parametrize("arg", ["a", "b", "y"])
def test_qmm_float8_needs_950(soc, arg):
    kw = {f"{arg}_dtype": "float8_e4m3fn"}
    e = qmm_refused(soc=soc, cls=DTypeError, **kw)
    assert e.argument == arg and e.limit == "int8 | uint8" and "needs ascend910_95" in e.suggestion


@pytest.mark.parametrize("a, b, y", [("float8_e4m3fn", "float8_e4m3fn", "int8"),
                                     ("float8_e5m2", "float8_e4m3fn", "float8_e5m2"),
                                     ("int8", "int8", "float8_e4m3fn")])
def test_qmm_950_float8(a, b, y):
    qmm(soc="ascend950", a_dtype=a, b_dtype=b, y_dtype=y)


@pytest.mark.parametrize("soc", [B, P, C])
@pytest.mark.parametrize("t", ["float8_e4m3fnuz", "float8_e5m2fnuz"])
def test_qmm_fnuz_cpu_only(soc, t):
    e = qmm_refused(soc=soc, cls=DTypeError, a_dtype=t, b_dtype=t)
    assert e.argument == "a" and "CPU" in e.suggestion


def test_qmm_950_no_int_float8_mix():
    e = qmm_refused(soc=C, cls=DTypeError, a_dtype="int8", b_dtype="float8_e4m3fn")
    assert e.argument == "b" and "integer or both float8" in e.constraint


def test_qmm_shapes():
    qmm((3, 16, 32), (1, 32, 8))
    qmm((2, 3, 16, 32), (3, 32, 8), a_param="row", b_param="column")
    e = qmm_refused((16, 32), (33, 8))
    assert e.argument == "b" and "32" in e.limit and "33" in e.actual
    e = qmm_refused((2, 16, 32), (3, 32, 8))
    assert "broadcast" in e.constraint
    e = qmm_refused((32,), (32, 8))
    assert e.argument == "a" and "[1, 32]" in e.suggestion
    e = qmm_refused((16, 32), (32,))
    assert e.argument == "b" and "[32, 1]" in e.suggestion
    for kind in ("column", "channel"):
        with pytest.raises(ConstraintError) as ei:
            qmm(a_param=kind)
        assert ei.value.argument == "a_param"
    with pytest.raises(ConstraintError) as ei:
        qmm(b_param="row")
    assert ei.value.argument == "b_param"
