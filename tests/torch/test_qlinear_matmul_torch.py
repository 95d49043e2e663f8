"""torch.ops.ascend_quant_ops.qlinear_matmul on CPU: equal to an independent exact reference (int64 matmul, the
ONNX / onnxruntime arithmetic written again here) and to the numpy golden on the same data (float8 through
bit-views); fake implementation shapes and dtypes; torch.compile(fullgraph=True)."""
import ml_dtypes
import numpy as np
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from ascend_quant_ops import torch_ops
from ascend_quant_ops.errors import ConstraintError, DTypeError
from ascend_quant_ops.golden.qlinear_matmul import qlinear_matmul as golden_qmm

INT_TYPES = {"int8": (torch.int8, -128, 127), "uint8": (torch.uint8, 0, 255)}


def reference(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp):
    """Exact ONNX QLinearMatMul for integer types with 2-D operands, per-tensor y params: int64 products,
    wrap to int32, float32 multiplier (a_scale*b_scale)/y_scale, round half even, then + y_zp, saturate."""
    an = a.numpy().astype(np.int64) - a_zp.numpy().astype(np.int64).reshape(-1, 1)
    bn = b.numpy().astype(np.int64) - b_zp.numpy().astype(np.int64).reshape(1, -1)
    acc = (an @ bn)
    acc = ((acc + 2**31) % 2**32 - 2**31).astype(np.int32)
    mult = (a_scale.numpy().reshape(-1, 1).astype(np.float32) * b_scale.numpy().reshape(1, -1).astype(np.float32)) \
        / y_scale.numpy().astype(np.float32).reshape(())
    v = np.rint(acc.astype(np.float32) * mult) + y_zp.numpy().astype(np.float32).reshape(())
    info = np.iinfo(y_zp.numpy().dtype)
    return np.clip(v, info.min, info.max).astype(y_zp.numpy().dtype)


def rand_int(shape, dtype, g):
    lo, hi = INT_TYPES[dtype][1:]
    return torch.randint(lo, hi + 1, shape, generator=g, dtype=torch.int64).to(INT_TYPES[dtype][0])


@pytest.mark.parametrize("ta,tb,ty", [("uint8", "uint8", "uint8"), ("uint8", "int8", "uint8"),
                                      ("int8", "int8", "int8"), ("int8", "uint8", "uint8")])
@pytest.mark.parametrize("per", ["tensor", "row_column"])
def test_integer_paths_equal_independent_reference(ta, tb, ty, per):
    g = torch.Generator().manual_seed(3)
    M, K, N = 7, 45, 11
    a, b = rand_int((M, K), ta, g), rand_int((K, N), tb, g)
    rows, cols = (M, N) if per == "row_column" else (1, 1)
    a_scale = torch.rand(rows, generator=g) * 0.05 + 0.01
    b_scale = torch.rand(cols, generator=g) * 0.05 + 0.01
    a_zp, b_zp = rand_int((rows,), ta, g), rand_int((cols,), tb, g)
    y_scale = torch.tensor(0.2)
    y_zp = rand_int((), ty, g)
    y = torch_ops.qlinear_matmul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp)
    assert y.dtype == INT_TYPES[ty][0] and y.shape == (M, N)
    assert np.array_equal(y.numpy(), reference(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp))


def test_onnx_example():
    # ONNX QLinearMatMul operator documentation example (uint8, per tensor).
    a = torch.tensor([[208, 236, 0, 238], [3, 214, 255, 29]], dtype=torch.uint8)
    b = torch.tensor([[152, 51, 244], [60, 26, 255], [0, 127, 246], [127, 254, 247]], dtype=torch.uint8)
    y = torch_ops.qlinear_matmul(a, torch.tensor([0.0066]), torch.tensor([113], dtype=torch.uint8),
                                 b, torch.tensor([0.00705]), torch.tensor([114], dtype=torch.uint8),
                                 torch.tensor([0.0107]), torch.tensor([118], dtype=torch.uint8))
    assert y.tolist() == [[168, 115, 255], [1, 66, 151]]


@pytest.mark.parametrize("ta,tb,ty", [("float8_e4m3fn", "float8_e4m3fn", "float8_e4m3fn"),
                                      ("float8_e5m2", "float8_e4m3fn", "float8_e5m2"),
                                      ("float8_e4m3fnuz", "float8_e5m2fnuz", "int8"),
                                      ("int8", "int8", "float8_e4m3fn")])
def test_float8_equals_golden_on_same_data(ta, tb, ty):
    rng = np.random.default_rng(5)
    def arr(shape, name):
        d = np.dtype(getattr(ml_dtypes, name)) if name.startswith("float8") else np.dtype(name)
        if name.startswith("float8"):
            return (rng.standard_normal(shape) * 4).astype(np.float32).astype(d)
        return rng.integers(-20, 20, shape).astype(d)
    an, bn = arr((2, 5, 24), ta), arr((24, 9), tb)
    azp, yzp = (np.zeros((), d.dtype) for d in (an, arr((), ty)))
    bzp = np.zeros(9, bn.dtype)
    sa, sb, sy = np.float32(0.5), np.full(9, 0.25, np.float32), np.float32(0.75)
    want = golden_qmm(an, sa, azp, bn, sb, bzp, sy, yzp)
    t = torch_ops.from_numpy
    got = torch_ops.qlinear_matmul(t(an), t(np.asarray(sa)), t(azp), t(bn), t(sb), t(bzp), t(np.asarray(sy)), t(yzp))
    assert got.shape == want.shape == (2, 5, 9)
    assert got.dtype == torch_ops.from_numpy(want).dtype
    assert np.array_equal(torch_ops.to_numpy(got).view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("a_shape,b_shape,out", [
    ((5, 3), (3, 4), (5, 4)), ((3,), (3, 4), (4,)), ((5, 3), (3,), (5,)), ((3,), (3,), ()),
    ((2, 1, 5, 3), (6, 3, 4), (2, 6, 5, 4)), ((0, 3), (3, 4), (0, 4)), ((5, 0), (0, 4), (5, 4)),
])
def test_fake_impl_and_matmul_shapes(a_shape, b_shape, out):
    with FakeTensorMode():
        a = torch.empty(a_shape, dtype=torch.uint8)
        b = torch.empty(b_shape, dtype=torch.int8)
        y = torch.ops.ascend_quant_ops.qlinear_matmul(
            a, torch.empty(()), torch.empty((), dtype=torch.uint8), b, torch.empty(()),
            torch.empty((), dtype=torch.int8), torch.empty(()), torch.empty((), dtype=torch.float8_e5m2))
        assert y.shape == out and y.dtype == torch.float8_e5m2
    assert tuple(np.matmul(np.zeros(a_shape), np.zeros(b_shape)).shape) == out  # numpy agrees
    # the CPU kernel gives the fake kernel's shape too (0-d included: a vector times a vector)
    args = (torch.zeros(a_shape, dtype=torch.uint8), torch.tensor(1.0), torch.tensor(0, dtype=torch.uint8),
            torch.zeros(b_shape, dtype=torch.int8), torch.tensor(1.0), torch.tensor(0, dtype=torch.int8),
            torch.tensor(1.0), torch.tensor(0, dtype=torch.int8))
    assert torch.ops.ascend_quant_ops.qlinear_matmul(*args).shape == out
    result = torch.library.opcheck(torch.ops.ascend_quant_ops.qlinear_matmul.default, args)
    assert all(v == "SUCCESS" for v in result.values()), result


def test_k_zero_and_empty_on_cpu():
    u8 = torch.uint8
    one = torch.tensor(1.0)
    y = torch_ops.qlinear_matmul(torch.empty(2, 0, dtype=u8), one, torch.tensor(3, dtype=u8),
                                 torch.empty(0, 3, dtype=u8), one, torch.tensor(0, dtype=u8), one,
                                 torch.tensor(9, dtype=u8))
    assert torch.equal(y, torch.full((2, 3), 9, dtype=u8))


@pytest.mark.parametrize("change,exc,argument", [
    ({"b": torch.zeros(4, 3, dtype=torch.uint8)}, ConstraintError, "b"),
    ({"a_zero_point": torch.tensor(1, dtype=torch.int8)}, DTypeError, "a_zero_point"),
    ({"a": torch.zeros(2, 3, dtype=torch.int32), "a_zero_point": torch.tensor(0, dtype=torch.int32)},
     DTypeError, "a"),
    ({"y_zero_point": torch.tensor(0.0)}, DTypeError, "y_zero_point"),
    ({"a_scale": 0.5}, ConstraintError, "a_scale"),
    # a zero point of another layout than its scale (the device kernel would read as many zero points as scales)
    ({"a_scale": torch.ones(2), "a_zero_point": torch.tensor(0, dtype=torch.uint8)}, ConstraintError,
     "a_zero_point"),
    ({"b_zero_point": torch.zeros(4, dtype=torch.uint8)}, ConstraintError, "b_zero_point"),
    ({"y_zero_point": torch.zeros(2, dtype=torch.uint8)}, ConstraintError, "y_zero_point"),
])
def test_bad_input_is_typed(change, exc, argument):
    u8 = torch.uint8
    args = dict(a=torch.zeros(2, 3, dtype=u8), a_scale=torch.tensor(1.0), a_zero_point=torch.tensor(0, dtype=u8),
                b=torch.zeros(3, 4, dtype=u8), b_scale=torch.tensor(1.0), b_zero_point=torch.tensor(0, dtype=u8),
                y_scale=torch.tensor(1.0), y_zero_point=torch.tensor(0, dtype=u8))
    args.update(change)
    with pytest.raises(exc) as e:
        torch_ops.qlinear_matmul(**args)
    assert e.value.op == "qlinear_matmul" and e.value.argument == argument


def test_torch_compile_fullgraph_qlinear_matmul():
    torch._dynamo.reset()
    g = torch.Generator().manual_seed(9)
    a, b = rand_int((6, 32), "uint8", g), rand_int((32, 5), "int8", g)
    params = (torch.tensor(0.02), torch.tensor(120, dtype=torch.uint8), torch.full((5,), 0.03),
              torch.zeros(5, dtype=torch.int8), torch.tensor(0.1), torch.tensor(128, dtype=torch.uint8))

    def f(a, b):
        y = torch_ops.qlinear_matmul(a, params[0], params[1], b, params[2], params[3], params[4], params[5])
        return (y.to(torch.int32) - 128) * 2

    compiled = torch.compile(f, fullgraph=True)
    got = compiled(a, b)
    want = reference(a, params[0], params[1], b, params[2], params[3], params[4], params[5])
    assert torch.equal(got, (torch.from_numpy(want).to(torch.int32) - 128) * 2)


def test_opcheck():
    g = torch.Generator().manual_seed(2)
    args = (rand_int((3, 8), "int8", g), torch.tensor(0.5), torch.tensor(0, dtype=torch.int8),
            rand_int((8, 2), "int8", g), torch.tensor(0.5), torch.tensor(0, dtype=torch.int8),
            torch.tensor(2.0), torch.tensor(0, dtype=torch.int8))
    result = torch.library.opcheck(torch.ops.ascend_quant_ops.qlinear_matmul.default, args)
    assert all(v == "SUCCESS" for v in result.values()), result


def test_torch_compile_dynamic_shapes_qlinear_matmul():
    # One graph with symbolic M, K, N: the fake kernel's shape rules (the golden's) run on SymInts.
    torch._dynamo.reset()
    params = (torch.tensor(0.02), torch.tensor(120, dtype=torch.uint8), torch.tensor(0.03),
              torch.tensor(0, dtype=torch.int8), torch.tensor(0.1), torch.tensor(128, dtype=torch.uint8))
    compiled = torch.compile(lambda a, b: torch_ops.qlinear_matmul(a, params[0], params[1], b, *params[2:]),
                             fullgraph=True, dynamic=True)
    g = torch.Generator().manual_seed(4)
    for m, k, n in ((3, 16, 5), (7, 33, 9), (2, 40, 3)):
        a, b = rand_int((m, k), "uint8", g), rand_int((k, n), "int8", g)
        got = compiled(a, b)
        assert got.shape == (m, n)
        assert np.array_equal(got.numpy(), reference(a, params[0], params[1], b, *params[2:]))


def test_device_path_check_refuses_a_zero_point_of_another_layout():
    # The check that runs before a device kernel (which reads as many zero points as scales, past a shorter tensor's
    # end), not only the CPU kernel's validation.
    u8 = torch.uint8
    ok = [torch.zeros(2, 3, dtype=u8), torch.ones(2), torch.zeros(2, dtype=u8), torch.zeros(3, 4, dtype=u8),
          torch.ones(1, 4), torch.zeros(4, dtype=u8), torch.tensor(1.0), torch.tensor(0, dtype=u8)]
    torch_ops._check_qlinear_matmul(*ok)
    for index, short in ((2, torch.zeros(1, dtype=u8)), (5, torch.zeros(3, dtype=u8))):
        bad = list(ok)
        bad[index] = short
        with pytest.raises(ConstraintError) as e:
            torch_ops._check_qlinear_matmul(*bad)
        assert e.value.argument == ("a_zero_point" if index == 2 else "b_zero_point")
        assert "shape of its scale" in str(e.value)
    # as many zero points as scales, but another layout: b's [4, 1] would vary along K (b_scale is [1, 4])
    bad = list(ok)
    bad[5] = torch.zeros(4, 1, dtype=u8)
    with pytest.raises(ConstraintError, match="shape of its scale") as e:
        torch_ops._check_qlinear_matmul(*bad)
    assert e.value.argument == "b_zero_point"
    # a scale of another length than M is refused itself (a kernel would read M values of it)
    bad = list(ok)
    bad[1], bad[2] = torch.ones(3), torch.zeros(3, dtype=u8)
    with pytest.raises(ConstraintError) as e:
        torch_ops._check_qlinear_matmul(*bad)
    assert e.value.argument == "a_scale"
    # equivalent spellings of one layout are one layout: [M] and [M, 1], [N] and [1, N]
    good = list(ok)
    good[2], good[5] = torch.zeros(2, 1, dtype=u8), torch.zeros(1, 1, 4, dtype=u8)
    torch_ops._check_qlinear_matmul(*good)
