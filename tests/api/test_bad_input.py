"""Bad input through the public API: every case gives a typed error that names the op and the argument, with
the expected value (or limit) and the actual one. SoC cases also name the SoC."""
import ml_dtypes
import numpy as np
import pytest
import torch

import ascend_quant_ops as aqo
from ascend_quant_ops import ConstraintError, DTypeError

F16 = np.float16
BF16 = ml_dtypes.bfloat16


def x16(*shape, dtype=F16):
    return (np.arange(int(np.prod(shape))).reshape(shape) % 7 - 3).astype(dtype)


_TORCH_BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def as_torch(v):
    """numpy arrays / scalars -> CPU tensors of the same dtype, shape and bits (written here, not the package's
    converter); anything else (None, lists, Python objects) unchanged."""
    if not isinstance(v, (np.ndarray, np.generic)):
        return v
    a = np.array(v, order="C", copy=True)
    if a.dtype.name in ("bfloat16",) or a.dtype.name.startswith("float8"):
        return torch.from_numpy(a.view(np.int16 if a.dtype.itemsize == 2 else np.uint8)).view(
            getattr(torch, a.dtype.name))
    return torch.from_numpy(a)


KINDS = {"numpy": lambda v: v, "torch": as_torch}


def dq(x, *args, **kw):
    def call(convert, backend):
        kw2 = {k: convert(v) for k, v in kw.items()}
        kw2.setdefault("backend", backend)
        return aqo.dynamic_quant(convert(x), *(convert(a) for a in args), **kw2)
    return call


def qmm_args(M=2, K=4, N=3, a_dtype=np.uint8, b_dtype=np.uint8, y_dtype=np.uint8):
    return dict(
        a=np.ones((M, K), a_dtype), a_scale=np.float32(0.5), a_zero_point=a_dtype(1),
        b=np.ones((K, N), b_dtype), b_scale=np.float32(0.25), b_zero_point=b_dtype(2),
        y_scale=np.float32(2.0), y_zero_point=y_dtype(3))


def qmm(**changes):
    def call(convert, backend):
        kw = {**qmm_args(), **changes}
        kw = {k: (v if k in ("soc", "backend") else convert(v)) for k, v in kw.items()}
        kw.setdefault("backend", backend)
        return aqo.qlinear_matmul(**kw)
    return call


def qm_args(M=2, K=4, N=3):
    return dict(a=np.ones((M, K), np.int8), a_scale=np.full(M, 0.5, np.float32), a_zero_point=None,
                b=np.ones((K, N), np.int8), b_scale=np.full(N, 0.25, np.float16), b_zero_point=None,
                bias=np.zeros(N, np.float32))


def qm(**changes):
    def call(convert, backend):
        kw = {**qm_args(), **changes}
        kw = {k: (v if k in ("soc", "backend", "out_dtype") else convert(v)) for k, v in kw.items()}
        kw.setdefault("backend", backend)
        return aqo.quant_matmul(**kw)
    return call


# (id, call, error type, acceptable argument names)
CASES = [
    # ---------------------------------------------------------------- dynamic_quant
    ("dq-x-float32", dq(x16(2, 4, dtype=np.float32)), DTypeError, {"x"}),
    ("dq-x-int8", dq(x16(2, 4, dtype=np.int8)), DTypeError, {"x"}),
    ("dq-x-rank1", dq(x16(8)), ConstraintError, {"x"}),
    ("dq-x-rank0", dq(np.float16(1.0)), ConstraintError, {"x"}),
    ("dq-x-list", dq([[1.0, 2.0]]), ConstraintError, {"x"}),
    ("dq-x-none", dq(None), ConstraintError, {"x"}),
    ("dq-smooth-shape", dq(x16(2, 4), x16(5)[None][0]), ConstraintError, {"smooth_scales"}),
    ("dq-smooth-rank2", dq(x16(2, 4), x16(1, 4)), ConstraintError, {"smooth_scales"}),
    ("dq-smooth-dtype", dq(x16(2, 4), np.ones(4, np.float32)), DTypeError, {"smooth_scales"}),
    ("dq-dst-name", dq(x16(2, 4), dst_type="int4"), DTypeError, {"dst_type"}),
    ("dq-dst-atb-code", dq(x16(2, 4), dst_type=3), DTypeError, {"dst_type"}),
    ("dq-dst-float32", dq(x16(2, 4), dst_type=np.float32), DTypeError, {"dst_type"}),
    ("dq-910b-asym-hif8", dq(x16(2, 16), asymmetric=True, dst_type="hifloat8", soc="ascend910b"), DTypeError,
     {"dst_type"}),
    ("dq-asym-not-bool", dq(x16(2, 4), asymmetric="yes"), ConstraintError, {"asymmetric"}),
    ("dq-backend", dq(x16(2, 4), backend="gpu"), ConstraintError, {"backend"}),
    ("dq-soc-unknown", dq(x16(2, 4), soc="ascend999"), ConstraintError, {"soc"}),
    ("dq-quant-mode", dq(x16(2, 4), quant_mode="pertensor"), ConstraintError, {"quant_mode"}),
    ("dq-group-index", dq(x16(2, 4), group_index=np.array([1, 2], np.int32)), ConstraintError, {"group_index"}),
    ("dq-dst-type-max", dq(x16(2, 4), dst_type_max=np.float32(448.0)), ConstraintError, {"dst_type_max"}),
    ("dq-310p-bf16", dq(x16(2, 32, dtype=BF16), soc="ascend310p"), ConstraintError, {"x"}),
    ("dq-310p-unaligned", dq(x16(2, 40), soc="ascend310p"), ConstraintError, {"x"}),
    ("dq-310p-too-long", dq(x16(2, 4128), soc="ascend310p"), ConstraintError, {"x"}),
    ("dq-910b-f16-too-long", dq(x16(1, 26625), soc="ascend910b"), ConstraintError, {"x"}),
    ("dq-910b-bf16-too-long", dq(x16(1, 7553, dtype=BF16), soc="ascend910b"), ConstraintError, {"x"}),
    ("dq-910b-hif8", dq(x16(2, 16), dst_type="hifloat8", soc="ascend910b"), ConstraintError, {"dst_type"}),
    ("dq-910-95-rank1", dq(x16(16), soc="ascend910_95"), ConstraintError, {"x"}),
    # ---------------------------------------------------------------- qlinear_matmul
    ("qmm-k-mismatch", qmm(b=np.ones((5, 3), np.uint8)), ConstraintError, {"a", "b"}),
    ("qmm-a-float32", qmm(a=np.ones((2, 4), np.float32)), DTypeError, {"a"}),
    ("qmm-a-int32", qmm(a=np.ones((2, 4), np.int32)), DTypeError, {"a"}),
    ("qmm-a-zp-dtype", qmm(a_zero_point=np.int8(1)), DTypeError, {"a_zero_point"}),
    ("qmm-b-zp-dtype", qmm(b_zero_point=np.int8(1)), DTypeError, {"b_zero_point"}),
    ("qmm-y-zp-float", qmm(y_zero_point=np.float32(3)), DTypeError, {"y_zero_point"}),
    ("qmm-a-scale-int", qmm(a_scale=np.int32(1)), DTypeError, {"a_scale"}),
    ("qmm-b-scale-float64", qmm(b_scale=np.float64(0.25)), DTypeError, {"b_scale"}),
    ("qmm-y-scale-zero", qmm(y_scale=np.float32(0.0)), ConstraintError, {"y_scale"}),
    ("qmm-a-scale-nan", qmm(a_scale=np.float32("nan")), ConstraintError, {"a_scale"}),
    ("qmm-b-scale-inf", qmm(b_scale=np.float32("inf")), ConstraintError, {"b_scale"}),
    ("qmm-a-scale-along-k", qmm(a_scale=np.full(4, 0.5, np.float32), a_zero_point=np.ones(4, np.uint8)),
     ConstraintError, {"a_scale", "a_zero_point"}),
    ("qmm-b-scale-along-k", qmm(b_scale=np.full((4, 1), 0.5, np.float32), b_zero_point=np.ones((4, 1), np.uint8)),
     ConstraintError, {"b_scale", "b_zero_point"}),
    ("qmm-a-scale-zp-shape", qmm(a_scale=np.full(2, 0.5, np.float32), a_zero_point=np.uint8(1)),
     ConstraintError, {"a_scale", "a_zero_point"}),
    ("qmm-batch-broadcast", qmm(a=np.ones((2, 2, 4), np.uint8), b=np.ones((3, 4, 3), np.uint8)),
     ConstraintError, {"a", "b"}),
    ("qmm-a-rank0", qmm(a=np.uint8(1)), ConstraintError, {"a"}),
    ("qmm-soc-fp8-910b", qmm(a=np.ones((2, 4), ml_dtypes.float8_e4m3fn), a_zero_point=ml_dtypes.float8_e4m3fn(0),
                             soc="ascend910b"), DTypeError, {"a"}),
    ("qmm-soc-fnuz", qmm(b=np.ones((4, 3), ml_dtypes.float8_e5m2fnuz), b_zero_point=ml_dtypes.float8_e5m2fnuz(0),
                         soc="ascend910_95"), DTypeError, {"b"}),
    ("qmm-backend", qmm(backend="tpu"), ConstraintError, {"backend"}),
    # ---------------------------------------------------------------- quant_matmul
    ("qm-a-float32", qm(a=np.ones((2, 4), np.float32)), DTypeError, {"a"}),
    ("qm-b-int32", qm(b=np.ones((4, 3), np.int32)), DTypeError, {"b"}),
    ("qm-a-zp-dtype", qm(a_zero_point=np.uint8(1)), DTypeError, {"a_zero_point"}),
    ("qm-a-scale-float64", qm(a_scale=np.full(2, 0.5)), DTypeError, {"a_scale"}),
    ("qm-b-scale-int64", qm(b_scale=np.ones(3, np.int64)), DTypeError, {"b_scale"}),
    ("qm-bias-int32", qm(bias=np.zeros(3, np.int32)), DTypeError, {"bias"}),
    ("qm-out-int8", qm(out_dtype="int8"), DTypeError, {"out_dtype"}),
    ("qm-out-float64", qm(out_dtype=np.float64), DTypeError, {"out_dtype"}),
    ("qm-k-mismatch", qm(b=np.ones((5, 3), np.int8)), ConstraintError, {"a", "b"}),
    ("qm-a-scale-along-k", qm(a_scale=np.full((1, 4), 0.5, np.float32)), ConstraintError, {"a_scale"}),
    ("qm-b-scale-along-k", qm(b_scale=np.full((4, 1), 0.5, np.float32)), ConstraintError, {"b_scale"}),
    ("qm-bias-per-row", qm(bias=np.zeros((2, 1), np.float32)), ConstraintError, {"bias"}),
    ("qm-a-list", qm(a=[[1, 2, 3, 4]]), ConstraintError, {"a"}),
    ("qm-a-none", qm(a=None), ConstraintError, {"a"}),
    ("qm-soc-310p-float16", qm(soc="ascend310p", out_dtype="float16"), DTypeError, {"out_dtype"}),
    ("qm-soc-310p-bfloat16", qm(soc="ascend310p", out_dtype="bfloat16"), DTypeError, {"out_dtype"}),
    ("qm-backend", qm(backend="tpu"), ConstraintError, {"backend"}),
]

# cases whose refusal is the SoC's: the error must name the SoC
SOC_CASES = {"dq-910b-asym-hif8", "dq-310p-bf16", "dq-310p-unaligned", "dq-310p-too-long", "dq-910b-f16-too-long",
             "dq-910b-bf16-too-long", "dq-910b-hif8", "dq-910-95-rank1", "qmm-soc-fp8-910b", "qmm-soc-fnuz",
             "qm-soc-310p-float16", "qm-soc-310p-bfloat16"}
OPS = {"dq": "dynamic_quant", "qmm": "qlinear_matmul", "qm": "quant_matmul"}


def test_at_least_30_distinct_cases():
    assert len({c[0] for c in CASES}) == len(CASES) >= 30


@pytest.mark.parametrize("backend", ["auto", "cpu", "emulator"])
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("case_id,call,exc_type,arguments", CASES, ids=[c[0] for c in CASES])
def test_bad_input(case_id, call, exc_type, arguments, kind, backend):
    # the same refusal for numpy and torch inputs, on every backend that runs here
    with pytest.raises(exc_type) as info:
        call(KINDS[kind], backend)
    err = info.value
    assert err.op == OPS[case_id.split("-")[0]]
    assert err.argument in arguments, (err.argument, str(err))
    msg = str(err)
    assert err.op in msg and err.argument in msg
    assert err.actual is not None, msg
    assert err.expected is not None or err.limit is not None, msg
    if case_id in SOC_CASES:
        assert err.soc and err.soc in msg


def test_soc_limit_error_names_limit_and_suggestion():
    with pytest.raises(ConstraintError) as info:
        aqo.dynamic_quant(x16(1, 7553, dtype=BF16), soc="ascend910b")
    err = info.value
    assert err.soc == "ascend910b"
    assert "7552" in str(err.limit) and "7553" in str(err.actual)
    assert err.suggestion and "7552" in err.suggestion


def test_dtype_errors_are_also_type_errors():
    with pytest.raises(TypeError):
        aqo.dynamic_quant(x16(2, 4, dtype=np.float32))


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError):
        aqo.dynamic_quant(x16(2, 4), smoothing=1.0)
