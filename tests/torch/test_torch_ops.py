"""torch.ops.ascend_quant_ops on CPU: equal to the numpy golden on the same data and to independent references
(ATB's DynamicQuant example, a torch re-implementation of the formula), exact bit-views for bfloat16 / float8, fake
implementations (shapes and dtypes), torch.compile(fullgraph=True), and torch_npu's argument forms."""
import ml_dtypes
import numpy as np
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from ascend_quant_ops import torch_ops
from ascend_quant_ops.errors import ConstraintError, DTypeError
from ascend_quant_ops.golden.dynamic_quant import dynamic_quant as golden_dq

# ATB's DynamicQuant worked example (docs/references.md#atb-dynamicquant), values as printed there.
SEED_X = [[[5.273, 6.836, 11.99, 6.01], [9.42, 15.3, -4.484, -3.783]],
          [[-2.002, 0.746, 3.756, 15.11], [-3.05, 12.1, 5.81, -1.298]]]
SEED_Y = [[[56, 72, 127, 64], [78, 127, -37, -31]], [[-17, 6, 32, 127], [-32, 127, 61, -14]]]
SEED_SCALE = [[0.09442668, 0.12044784], [0.11897146, 0.0952879]]

DST = {"int8": torch.int8, "hifloat8": torch.uint8, "float8_e5m2": torch.float8_e5m2,
       "float8_e4m3fn": torch.float8_e4m3fn}


def bits(t):
    """Raw storage of a tensor as int64, so that NaN payloads and -0 compare exactly."""
    t = t.contiguous()
    carrier = {1: torch.uint8, 2: torch.int16, 4: torch.int32}[t.element_size()]
    return t.view(carrier).to(torch.int64)


def test_seed_004_example():
    x = torch.tensor(SEED_X, dtype=torch.float16)
    y, scale = torch_ops.dynamic_quant(x)
    assert y.dtype == torch.int8 and scale.dtype == torch.float32
    assert y.tolist() == SEED_Y
    expected = torch.tensor(SEED_SCALE, dtype=torch.float32)
    # within 1 ulp of the printed value
    assert torch.all((scale - expected).abs() <= torch.finfo(torch.float32).eps * expected.abs())
    # the raw op, with its defaults (torch_npu's form: smooth_scales=None, dst_type=None is int8)
    y2, s2 = torch.ops.ascend_quant_ops.dynamic_quant(x)
    assert torch.equal(y2, y) and torch.equal(s2, scale)
    y3, s3 = torch.ops.ascend_quant_ops.dynamic_quant(x, smooth_scales=None, dst_type=torch.int8)
    assert torch.equal(y3, y) and torch.equal(s3, scale)
    # the asymmetric mode is its own op, returning (y, scale, offset) as npu_dynamic_quant_asymmetric does
    ya, sa, off = torch.ops.ascend_quant_ops.dynamic_quant_asymmetric(x)
    assert off.shape == (2, 2) and off.dtype == torch.float32 and ya.dtype == torch.int8


def test_op_schemas_have_defaults_and_a_keyword_only_dst_type():
    schemas = {name: str(getattr(torch.ops.ascend_quant_ops, name).default._schema)
               for name in ("dynamic_quant", "dynamic_quant_asymmetric", "qlinear_matmul")}
    assert schemas["dynamic_quant"] == ("ascend_quant_ops::dynamic_quant(Tensor x, Tensor? smooth_scales=None, *, "
                                        "ScalarType? dst_type=None) -> (Tensor, Tensor)")
    assert schemas["dynamic_quant_asymmetric"].endswith(
        "(Tensor x, Tensor? smooth_scales=None, *, ScalarType? dst_type=None) -> (Tensor, Tensor, Tensor)")
    assert schemas["qlinear_matmul"].endswith("(Tensor a, Tensor a_scale, Tensor a_zero_point, Tensor b, "
                                              "Tensor b_scale, Tensor b_zero_point, Tensor y_scale, "
                                              "Tensor y_zero_point) -> Tensor")
    # hifloat8 is requested as torch.uint8 (its y carries the HiF8 bit patterns)
    x = torch.tensor(SEED_X, dtype=torch.float16)
    y, _ = torch.ops.ascend_quant_ops.dynamic_quant(x, dst_type=torch.uint8)
    assert y.dtype == torch.uint8 and torch.equal(y, torch_ops.dynamic_quant(x, dst_type="hifloat8")[0])
    with pytest.raises(DTypeError):
        torch.ops.ascend_quant_ops.dynamic_quant(x, dst_type=torch.float32)


def torch_reference_int8(x, smooth=None):
    """The formula of docs/references.md#decision-dynamicquant written again in torch (fp32, divide, round half even, clip): independent code."""
    v = x.float() if smooth is None else x.float() * smooth.float()
    m = v.abs().amax(dim=-1)
    # A tensor divisor: torch turns division by a scalar into multiplication by its reciprocal.
    scale = m / torch.full_like(m, 127.0)
    q = torch.where(scale[..., None] == 0, torch.zeros_like(v), v / scale[..., None])
    return torch.round(q).clamp(-128, 127).to(torch.int8), scale


@pytest.mark.parametrize("xdtype", [torch.float16, torch.bfloat16])
def test_int8_matches_independent_torch_reference(xdtype):
    g = torch.Generator().manual_seed(1)
    x = (torch.randn(3, 5, 67, generator=g) * 10).to(xdtype)
    x[1, 2] = 0  # a zero row
    smooth = (torch.rand(67, generator=g) + 0.5).to(xdtype)
    for s in (None, smooth):
        y, scale = torch_ops.dynamic_quant(x, s)
        ry, rscale = torch_reference_int8(x, s)
        assert torch.equal(scale, rscale)
        assert torch.equal(y, ry)


@pytest.mark.parametrize("dst", list(DST))
@pytest.mark.parametrize("xdtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("asymmetric", [False, True])
def test_equals_numpy_golden_on_same_data(dst, xdtype, asymmetric):
    rng = np.random.default_rng(7)
    xn = (rng.standard_normal((4, 3, 33)) * 5).astype(np.float32).astype(ml_dtypes.bfloat16 if xdtype == "bfloat16"
                                                                            else np.float16)
    xn[0, 0, 3] = np.inf
    xn[1, 1, 0] = np.nan
    xn[2, 2] = 0
    sn = (rng.random(33) + 0.5).astype(xn.dtype)
    x = torch.from_numpy(xn.view(np.int16).copy()).view(getattr(torch, xdtype))
    s = torch.from_numpy(sn.view(np.int16).copy()).view(getattr(torch, xdtype))
    got = torch_ops.dynamic_quant(x, s, dst_type=dst, asymmetric=asymmetric)
    want = golden_dq(xn, sn, dst_type=dst, asymmetric=asymmetric)
    assert len(got) == len(want) == (3 if asymmetric else 2)
    assert got[0].dtype == DST[dst] and got[0].shape == x.shape
    assert np.array_equal(bits(got[0]).numpy(), want[0].view(np.uint8).astype(np.int64)
                          if want[0].dtype.itemsize == 1 else None)
    for g_, w_ in zip(got[1:], want[1:]):
        assert g_.dtype == torch.float32 and g_.shape == x.shape[:-1]
        assert np.array_equal(g_.numpy().view(np.int32), w_.view(np.int32))


def test_dst_type_forms_agree():
    x = torch.randn(2, 16).half()
    ref = torch_ops.dynamic_quant(x, dst_type="float8_e4m3fn")
    for form in (torch.float8_e4m3fn, 36, np.dtype(ml_dtypes.float8_e4m3fn), "FLOAT8_E4M3FN"):
        got = torch_ops.dynamic_quant(x, dst_type=form)
        assert torch.equal(bits(got[0]), bits(ref[0])) and torch.equal(got[1], ref[1])


def test_non_contiguous_input():
    x = torch.randn(8, 40).half()
    xt = x.t()  # [40, 8], strided
    y, scale = torch_ops.dynamic_quant(xt)
    y2, scale2 = torch_ops.dynamic_quant(xt.contiguous())
    assert torch.equal(y, y2) and torch.equal(scale, scale2)


def test_empty_tensors():
    y, scale = torch_ops.dynamic_quant(torch.empty(0, 8, dtype=torch.float16))
    assert y.shape == (0, 8) and scale.shape == (0,)
    y, scale, off = torch_ops.dynamic_quant(torch.empty(3, 0, dtype=torch.bfloat16), asymmetric=True)
    assert y.shape == (3, 0) and torch.equal(scale, torch.zeros(3)) and torch.equal(off, torch.zeros(3))


@pytest.mark.parametrize("kwargs,exc,argument", [
    (dict(x=torch.randn(2, 4)), DTypeError, "x"),
    (dict(x=torch.randn(4).half()), ConstraintError, "x"),
    (dict(x=torch.randn(2, 4).half(), smooth_scales=torch.ones(5).half()), ConstraintError, "smooth_scales"),
    (dict(x=torch.randn(2, 4).half(), smooth_scales=torch.ones(4).bfloat16()), DTypeError, "smooth_scales"),
    (dict(x=torch.randn(2, 4).half(), dst_type=torch.int32), DTypeError, "dst_type"),
    (dict(x=torch.randn(2, 4).half(), dst_type=3), DTypeError, "dst_type"),
    (dict(x=torch.randn(2, 4).half(), asymmetric="yes"), ConstraintError, "asymmetric"),
    (dict(x=np.zeros((2, 4), np.float16)), ConstraintError, "x"),
])
def test_bad_input_is_typed(kwargs, exc, argument):
    x = kwargs.pop("x")
    with pytest.raises(exc) as e:
        torch_ops.dynamic_quant(x, **kwargs)
    assert e.value.op == "dynamic_quant" and e.value.argument == argument


def test_fake_impl_shapes_and_dtypes():
    with FakeTensorMode():
        x = torch.empty(5, 7, 96, dtype=torch.bfloat16)
        for dst, dt in DST.items():
            y, scale, off = torch.ops.ascend_quant_ops.dynamic_quant_asymmetric(
                x, dst_type=torch_ops.dst_scalar_type(torch_ops.dst_type_from_code(torch_ops.dst_type_code(dst))))
            assert (y.shape, y.dtype) == (x.shape, dt)
            assert (scale.shape, scale.dtype) == ((5, 7), torch.float32)
            assert (off.shape, off.dtype) == ((5, 7), torch.float32)
        with pytest.raises(ConstraintError):
            torch.ops.ascend_quant_ops.dynamic_quant(torch.empty(96, dtype=torch.float16))


def test_opcheck():
    x = torch.randn(3, 40).half()
    ops = torch.ops.ascend_quant_ops
    for op, args, kwargs in ((ops.dynamic_quant, (x,), {}),
                             (ops.dynamic_quant_asymmetric, (x, torch.rand(40).half()),
                              {"dst_type": torch.float8_e4m3fn}),
                             (ops.dynamic_quant, (x.bfloat16(),), {"dst_type": torch.uint8})):
        result = torch.library.opcheck(op.default, args, kwargs)
        assert all(v == "SUCCESS" for v in result.values()), result


def test_torch_compile_fullgraph_dynamic_quant():
    torch._dynamo.reset()

    def f(x, s):
        y, scale = torch_ops.dynamic_quant(x * 2, s, dst_type=torch.int8)
        return y.float() * scale[..., None]  # dequantize: something downstream of the op

    compiled = torch.compile(f, fullgraph=True, backend="inductor")
    x = torch.randn(6, 64).half()
    s = (torch.rand(64) + 0.5).half()
    assert torch.equal(compiled(x, s), f(x, s))
    y, scale = torch_ops.dynamic_quant(x * 2, s)
    ry, rs = torch_reference_int8(x * 2, s)
    assert torch.equal(y, ry) and torch.equal(scale, rs)


def test_drop_in_npu_dynamic_quant_signature():
    x = torch.randn(4, 32).half()
    s = (torch.rand(32) + 0.5).half()
    y, scale = torch_ops.npu_dynamic_quant(x, smooth_scales=s, dst_type=torch.int8)
    ry, rs = torch_reference_int8(x, s)
    assert torch.equal(y, ry) and torch.equal(scale, rs)
    y0, _ = torch_ops.npu_dynamic_quant(x)  # dst_type=None means int8, as in torch_npu
    assert y0.dtype == torch.int8
    y1, _ = torch_ops.dynamic_quant(x, s, dst_type=None)  # as ascend_quant_ops.dynamic_quant takes it
    assert torch.equal(y1, ry)
    y3 = torch_ops.npu_dynamic_quant_asymmetric(x, dst_type=torch.int8)
    assert len(y3) == 3
    kw = torch_ops.normalize_npu_dynamic_quant_kwargs(smooth_scales=s, dst_type=None, group_index=None,
                                                      quant_mode="pertoken", dst_type_max=0.0)
    assert set(kw) == {"smooth_scales", "dst_type"} and kw["dst_type"] == "int8"


@pytest.mark.parametrize("kw,argument", [
    (dict(group_index=torch.tensor([2, 4])), "group_index"),
    (dict(quant_mode="perchannel"), "quant_mode"),
    (dict(dst_type_max=448.0), "dst_type_max"),
    (dict(bogus=1), "bogus"),
])
def test_drop_in_refuses_unsupported(kw, argument):
    with pytest.raises(ConstraintError) as e:
        torch_ops.normalize_npu_dynamic_quant_kwargs(**kw)
    assert e.value.argument == argument
    if argument != "bogus":
        with pytest.raises(ConstraintError):
            torch_ops.npu_dynamic_quant(torch.randn(2, 8).half(), **kw)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2,
                                   torch.float8_e4m3fnuz, torch.float8_e5m2fnuz, torch.float16, torch.int8])
def test_numpy_bit_views_are_exact(dtype):
    raw = torch.arange(256, dtype=torch.int64).to(torch.uint8)
    t = raw.view(torch.int8).to(torch.int16).view(torch.uint8)[:256].view(dtype) if dtype.itemsize == 2 \
        else raw.view(dtype)
    a = torch_ops.to_numpy(t)
    assert a.dtype.itemsize == t.element_size() and a.shape == tuple(t.shape)
    back = torch_ops.from_numpy(a)
    assert back.dtype == dtype and torch.equal(bits(back), bits(t))


def test_torch_compile_dynamic_shapes():
    torch._dynamo.reset()
    compiled = torch.compile(lambda x: torch_ops.dynamic_quant(x, dst_type="float8_e5m2"), fullgraph=True,
                             dynamic=True)
    for rows in (5, 9, 17):  # one graph with a symbolic row count: the fake impl must handle SymInts
        x = torch.randn(rows, 48).half()
        y, scale = compiled(x)
        ry, rs = torch_ops.dynamic_quant(x, dst_type="float8_e5m2")
        assert torch.equal(bits(y), bits(ry)) and torch.equal(scale, rs) and y.shape == (rows, 48)


def test_outputs_never_require_grad():
    # Quantization has no gradient: outputs of inputs that require grad do not require grad (as on the numpy
    # and emulator paths), and opcheck accepts the autograd registration.
    import ascend_quant_ops as aqo

    x = (torch.randn(3, 32) * 4).half().requires_grad_(True)
    for backend in ("cpu", "emulator"):
        y, scale = aqo.dynamic_quant(x, backend=backend)
        assert not y.requires_grad and not scale.requires_grad, backend
    out = torch_ops.dynamic_quant(x, asymmetric=True)
    assert not any(t.requires_grad for t in out)
    result = torch.library.opcheck(torch.ops.ascend_quant_ops.dynamic_quant.default, (x,))
    assert all(v == "SUCCESS" for v in result.values()), result


def test_public_api_compiles_fullgraph():
    # ascend_quant_ops.dynamic_quant / qlinear_matmul on CPU tensors without a SoC go through the torch ops, so
    # torch.compile(fullgraph=True) traces the public call too.
    import ascend_quant_ops as aqo

    x = (torch.randn(4, 64) * 3).half()
    compiled = torch.compile(lambda t: aqo.dynamic_quant(t * 2, dst_type="float8_e4m3fn"), fullgraph=True)
    y, scale = compiled(x)
    ry, rs = aqo.dynamic_quant(x * 2, dst_type="float8_e4m3fn")
    assert torch.equal(bits(y), bits(ry)) and torch.equal(scale, rs)
    a = torch.randint(0, 256, (3, 16), dtype=torch.uint8)
    b = torch.randint(-128, 128, (16, 5), dtype=torch.int8)
    params = (torch.tensor(0.02), torch.tensor(128, dtype=torch.uint8), b, torch.full((5,), 0.01),
              torch.zeros(5, dtype=torch.int8), torch.tensor(0.5), torch.tensor(7, dtype=torch.uint8))
    qmm = torch.compile(lambda t: aqo.qlinear_matmul(t, *params), fullgraph=True)
    assert torch.equal(qmm(a), aqo.qlinear_matmul(a, *params))
