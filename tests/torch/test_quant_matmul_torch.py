"""torch.ops.ascend_quant_ops.quant_matmul on CPU: the schema (defaults, keyword-only out_dtype), values equal to
the independent reference, opcheck, fake implementation shapes / dtypes / errors, torch.compile(fullgraph=True)
of the op, the helpers and the public function (static and dynamic shapes); and the asymmetric uint8 mode of
dynamic_quant_asymmetric (torch.quint8)."""
from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import ascend_quant_ops as aqo
from ascend_quant_ops import torch_ops
from ascend_quant_ops.errors import ConstraintError, DTypeError

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "golden"))
from quant_matmul_oracles import assert_same_floats, reference_quant_matmul  # noqa: E402

OP = torch.ops.ascend_quant_ops.quant_matmul


def test_schema_has_defaults_and_a_keyword_only_out_dtype():
    assert str(OP.default._schema) == (
        "ascend_quant_ops::quant_matmul(Tensor a, Tensor a_scale, Tensor? a_zero_point, Tensor b, Tensor b_scale, "
        "Tensor? b_zero_point=None, Tensor? bias=None, *, ScalarType? out_dtype=None) -> Tensor")


def _inputs(seed=0, batch=(), m=5, k=40, n=6, a_dtype=torch.uint8, b_dtype=torch.int8):
    g = torch.Generator().manual_seed(seed)
    info = {torch.uint8: (0, 256), torch.int8: (-128, 128)}
    a = torch.randint(*info[a_dtype], batch + (m, k), generator=g, dtype=torch.int64).to(a_dtype)
    b = torch.randint(*info[b_dtype], (k, n), generator=g, dtype=torch.int64).to(b_dtype)
    a_scale = torch.rand(batch + (m,), generator=g) * 0.02 + 0.001
    a_zp = torch.randint(*info[a_dtype], batch + (m,), generator=g, dtype=torch.int64).to(a_dtype)
    b_scale = (torch.rand(n, generator=g) * 0.02 + 0.001).to(torch.float16)
    b_zp = torch.randint(*info[b_dtype], (n,), generator=g, dtype=torch.int64).to(b_dtype)
    bias = torch.randn(n, generator=g).to(torch.bfloat16)
    return a, a_scale, a_zp, b, b_scale, b_zp, bias


def _reference(a, a_scale, a_zp, b, b_scale, b_zp, bias, out):
    n = lambda t: None if t is None else torch_ops.to_numpy(t)  # noqa: E731
    zeros_a, zeros_b = np.zeros((1, 1), n(a).dtype), np.zeros((1, 1), n(b).dtype)
    return reference_quant_matmul(n(a), n(a_scale)[..., None], zeros_a if a_zp is None else n(a_zp)[..., None],
                                  n(b), n(b_scale), zeros_b if b_zp is None else n(b_zp), n(bias), out)


@pytest.mark.parametrize("out", [None, torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("with_zero_points", [True, False])
def test_op_equals_the_reference(out, with_zero_points):
    a, a_scale, a_zp, b, b_scale, b_zp, bias = _inputs(batch=(2,))
    if not with_zero_points:
        a_zp = b_zp = None
    y = OP(a, a_scale, a_zp, b, b_scale, b_zp, bias, out_dtype=out)
    name = "float32" if out is None else str(out).replace("torch.", "")
    assert y.dtype == (out or torch.float32) and y.shape == (2, 5, 6)
    assert_same_floats(torch_ops.to_numpy(y), _reference(a, a_scale, a_zp, b, b_scale, b_zp, bias, name))


def test_op_defaults_and_keywords_as_torch_npu_style():
    a, a_scale, a_zp, b, b_scale, b_zp, bias = _inputs()
    full = OP(a, a_scale, None, b, b_scale, None, None, out_dtype=None)
    assert torch.equal(OP(a, a_scale, None, b, b_scale), full)
    assert torch.equal(OP(a, a_scale, None, b, b_scale, bias=bias, out_dtype=torch.float16),
                       OP(a, a_scale, None, b, b_scale, None, bias, out_dtype=torch.float16))


SAMPLES = [
    lambda: (_inputs(), {}),
    lambda: (_inputs(batch=(3,), a_dtype=torch.int8), {"out_dtype": torch.bfloat16}),
    lambda: ((lambda t: (t[0], t[1], None, t[3].t().contiguous().t(), t[4], None, None))(_inputs()),
             {"out_dtype": torch.float16}),
]


@pytest.mark.parametrize("sample", range(len(SAMPLES)))
def test_opcheck(sample):
    args, kwargs = SAMPLES[sample]()
    result = torch.library.opcheck(OP.default, args, kwargs)
    assert all(v == "SUCCESS" for v in result.values()), result


def test_fake_implementation_shapes_dtypes_and_errors():
    with FakeTensorMode():
        a = torch.empty(2, 3, 7, 64, dtype=torch.int8)
        b = torch.empty(64, 9, dtype=torch.int8)
        y = OP(a, torch.empty(2, 3, 7), None, b, torch.empty(9, dtype=torch.bfloat16), out_dtype=torch.bfloat16)
        assert y.shape == (2, 3, 7, 9) and y.dtype == torch.bfloat16
        with pytest.raises(ConstraintError):  # K mismatch
            OP(a, torch.empty(()), None, torch.empty(63, 9, dtype=torch.int8), torch.empty(()))
        with pytest.raises(DTypeError):
            OP(a.float(), torch.empty(()), None, b, torch.empty(()))
        with pytest.raises(DTypeError):
            OP(a, torch.empty(()), None, b, torch.empty(()), out_dtype=torch.int8)


def test_outputs_do_not_require_grad():
    a, a_scale, a_zp, b, b_scale, b_zp, bias = _inputs()
    y = OP(a, a_scale.requires_grad_(), a_zp, b, b_scale, b_zp, bias)
    assert not y.requires_grad


def test_torch_compile_fullgraph_op_helpers_and_public_function():
    a, a_scale, a_zp, b, b_scale, b_zp, bias = _inputs(batch=(2,))

    def f(a, b):
        y1 = OP(a, a_scale, a_zp, b, b_scale, b_zp, bias, out_dtype=torch.bfloat16)
        y2 = torch_ops.quant_matmul(a, a_scale, a_zp, b, b_scale, b_zp, bias=bias, out_dtype="bfloat16")
        y3 = aqo.quant_matmul(a, a_scale, a_zp, b, b_scale, b_zp, bias=bias, out_dtype=torch.bfloat16)
        return y1, y2, y3

    compiled = torch.compile(f, fullgraph=True)
    eager = f(a, b)
    for got, want in zip(compiled(a, b), eager):
        assert torch.equal(got, want)
    assert_same_floats(torch_ops.to_numpy(eager[0]), _reference(a, a_scale, a_zp, b, b_scale, b_zp, bias,
                                                                 "bfloat16"))


def test_torch_compile_npu_quant_matmul_with_dynamic_shapes():
    def f(x, w, s, ts):
        return torch_ops.npu_quant_matmul(x, w.t(), s, pertoken_scale=ts, output_dtype=torch.float16)

    compiled = torch.compile(f, fullgraph=True, dynamic=True)
    g = torch.Generator().manual_seed(4)
    w = torch.randint(-128, 128, (11, 32), generator=g, dtype=torch.int8)
    s = torch.rand(11, generator=g).to(torch.bfloat16)
    for tokens in (3, 8, 1):
        x = torch.randint(-128, 128, (tokens, 32), generator=g, dtype=torch.int8)
        ts = torch.rand(tokens, generator=g)
        assert torch.equal(compiled(x, w, s, ts), f(x, w, s, ts))


# ---------------------------------------------------------------------------------------------------------------
# dynamic_quant_asymmetric's uint8 mode: torch.quint8

def test_asymmetric_uint8_through_the_op():
    x = torch.randn(3, 5, 48, dtype=torch.float16)
    y, scale, zp = torch.ops.ascend_quant_ops.dynamic_quant_asymmetric(x, dst_type=torch.quint8)
    assert (y.dtype, scale.dtype, zp.dtype) == (torch.uint8, torch.float32, torch.uint8)
    want = aqo.golden.dynamic_quant.dynamic_quant(x.numpy(), dst_type="uint8", asymmetric=True)
    for got, w in zip((y, scale, zp), want):
        np.testing.assert_array_equal(got.numpy(), w)
    with pytest.raises(DTypeError, match="asymmetric"):
        torch.ops.ascend_quant_ops.dynamic_quant(x, dst_type=torch.quint8)
    result = torch.library.opcheck(torch.ops.ascend_quant_ops.dynamic_quant_asymmetric.default, (x,),
                                   {"dst_type": torch.quint8})
    assert all(v == "SUCCESS" for v in result.values()), result
    with FakeTensorMode():
        fy, fs, fz = torch.ops.ascend_quant_ops.dynamic_quant_asymmetric(torch.empty(2, 8, dtype=torch.float16),
                                                                        dst_type=torch.quint8)
        assert (fy.dtype, fs.dtype, fz.dtype) == (torch.uint8, torch.float32, torch.uint8)


def test_the_w8a8_flow_compiles_end_to_end():
    # float16 activations -> per-token int8 -> int8 weights with per-channel scales -> bfloat16, one graph
    g = torch.Generator().manual_seed(5)
    w = torch.randint(-127, 128, (16, 64), generator=g, dtype=torch.int8)
    ws = (torch.rand(16, generator=g) * 0.01).to(torch.bfloat16)

    def layer(x):
        xq, xs = torch_ops.npu_dynamic_quant(x)
        return torch_ops.npu_quant_matmul(xq, w.t(), ws, pertoken_scale=xs, output_dtype=torch.bfloat16)

    x = torch.randn(2, 7, 64, dtype=torch.float16)
    assert torch.equal(torch.compile(layer, fullgraph=True)(x), layer(x))
