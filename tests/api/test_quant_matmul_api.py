"""quant_matmul through the public API (numpy and torch), its backends, and the W8A8 flows.

The values are checked against the golden's independent reference (tests/golden/quant_matmul_oracles.py) or
against the golden itself where the point is the plumbing (same bits through every path): the emulator runs the
kernel on every SoC; what a SoC's kernel cannot write (ascend310p: float16 / bfloat16 outputs) is refused the same way
on every backend with soc=; NPU tensors without the device kernel with BackendUnavailableError.
"""
from __future__ import annotations

import pathlib
import sys

import ml_dtypes
import numpy as np
import pytest
import torch

import ascend_quant_ops as aqo
from ascend_quant_ops import BackendUnavailableError, ConstraintError, DTypeError, _backend_cpu, torch_ops
from ascend_quant_ops.golden import quant_matmul as golden_qm

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "golden"))
from quant_matmul_oracles import assert_same_floats, reference_quant_matmul  # noqa: E402

BF16 = ml_dtypes.bfloat16


def _problem(seed=0, m=5, k=48, n=7):
    rng = np.random.default_rng(seed)
    return dict(a=rng.integers(0, 256, (m, k)).astype(np.uint8), a_scale=rng.uniform(0.01, 0.02, m).astype(np.float32),
                a_zero_point=rng.integers(100, 150, m).astype(np.uint8),
                b=rng.integers(-128, 128, (k, n)).astype(np.int8),
                b_scale=rng.uniform(0.001, 0.01, n).astype(np.float16), b_zero_point=None,
                bias=rng.standard_normal(n).astype(np.float32))


def _torch(v):
    if v is None or not isinstance(v, np.ndarray):
        return v
    if v.dtype == BF16:
        return torch.from_numpy(v.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(v.copy())


def _as_numpy(y):
    if isinstance(y, torch.Tensor):
        return torch_ops.to_numpy(y)
    return y


@pytest.mark.parametrize("out", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("kind", ["numpy", "torch", "mixed"])
def test_cpu_backend_equals_the_reference_for_numpy_and_torch(kind, out):
    p = _problem()
    expected = reference_quant_matmul(p["a"], p["a_scale"][:, None], p["a_zero_point"][:, None], p["b"],
                                      p["b_scale"], np.zeros((1, 1), np.int8), p["bias"], out)
    args = dict(p)
    if kind == "torch":
        args = {k: _torch(v) for k, v in p.items()}
    elif kind == "mixed":  # torch data, numpy parameters
        args.update(a=_torch(p["a"]), b=_torch(p["b"]))
    for backend in ("auto", "cpu"):
        bias = args.pop("bias")
        y = aqo.quant_matmul(**args, bias=bias, out_dtype=out, backend=backend)
        args["bias"] = bias
        assert isinstance(y, torch.Tensor) == (kind != "numpy")
        assert_same_floats(_as_numpy(y), expected)


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_operands_are_validated_once_per_call(monkeypatch, kind):
    calls = {"n": 0}
    original = golden_qm.QuantMatMulOperands.__init__

    def counted(self, *a, **kw):
        calls["n"] += 1
        original(self, *a, **kw)

    monkeypatch.setattr(golden_qm.QuantMatMulOperands, "__init__", counted)
    p = _problem()
    args = p if kind == "numpy" else {k: _torch(v) for k, v in p.items()}
    bias = args.pop("bias")
    aqo.quant_matmul(**args, bias=bias)
    assert calls["n"] == 1


@pytest.mark.parametrize("kind", ["numpy", "torch"])
@pytest.mark.parametrize("backend,soc", [("cpu", "ascend910b"), ("cpu", "ascend310p"), ("cpu", "ascend950"),
                                         ("emulator", None), ("emulator", "ascend910_95"),
                                         ("emulator", "ascend310p")])
def test_every_soc_runs_the_kernel_or_its_reference_bit_exactly(kind, backend, soc):
    # soc= on the cpu backend checks the SoC's rules and computes the reference; the emulator runs the kernel
    p = _problem()
    expected = golden_qm.quant_matmul(**{k: v for k, v in p.items() if k != "bias"}, bias=p["bias"])
    args = p if kind == "numpy" else {k: _torch(v) for k, v in p.items()}
    bias = args.pop("bias")
    y = aqo.quant_matmul(**args, bias=bias, backend=backend, soc=soc)
    assert_same_floats(_as_numpy(y), expected)


def test_an_output_type_without_a_kernel_conversion_is_refused_on_the_soc():
    p = _problem()
    bias = p.pop("bias")
    for backend in ("cpu", "emulator"):
        with pytest.raises(DTypeError) as info:
            aqo.quant_matmul(**p, bias=bias, out_dtype="bfloat16", backend=backend, soc="ascend310p")
        e = info.value
        assert e.op == "quant_matmul" and e.argument == "out_dtype" and e.soc == "ascend310p"
        assert "float32" in str(e.expected) and "backend='cpu'" in e.suggestion


def test_bad_input_is_refused_before_the_soc_rules():
    # the operator's own rules come first, on every backend: the user learns what is wrong with the call
    p = _problem()
    p["b_scale"] = np.ones((48, 1), np.float32)  # varies along K
    bias = p.pop("bias")
    for backend in ("cpu", "emulator"):
        with pytest.raises(ConstraintError) as info:
            aqo.quant_matmul(**p, bias=bias, backend=backend)
        assert info.value.argument == "b_scale"


def test_npu_tensors_without_the_kernel_are_refused_with_backend_unavailable():
    # No NPU here: the device-kernel check itself, as the helpers run it for NPU tensors.
    with pytest.raises(BackendUnavailableError) as info:
        torch_ops._require_device_kernel("quant_matmul", "npu", "NPU")
    assert "ascend_quant_ops::quant_matmul" in str(info.value) and "AqoQuantMatMul" in str(info.value)
    with pytest.raises(BackendUnavailableError):
        aqo.quant_matmul(**{k: v for k, v in _problem().items() if k != "bias"}, backend="npu")


def test_the_transposed_weight_view_is_not_copied(monkeypatch):
    # b as the transposed view of an [N, K] weight: the operands the cpu backend computes on are views of the
    # caller's memory, for numpy and for torch (no contiguous copy on the host).
    seen = []
    original = _backend_cpu.quant_matmul

    def spy(operands):
        seen.append(operands)
        return original(operands)

    monkeypatch.setattr(_backend_cpu, "quant_matmul", spy)
    weight = np.random.default_rng(1).integers(-128, 128, (7, 48)).astype(np.int8)  # [N, K]
    a = np.ones((3, 48), np.int8)
    aqo.quant_matmul(a, np.float32(1), None, weight.T, np.ones(7, np.float32))
    assert np.shares_memory(seen[-1].b, weight)
    weight_t = torch.from_numpy(weight)
    aqo.quant_matmul(torch.from_numpy(a), torch.tensor(1.0), None, weight_t.t(), torch.ones(7))
    assert np.shares_memory(seen[-1].b, weight_t.numpy())


# ---------------------------------------------------------------------------------------------------------------
# The W8A8 serving call patterns, replayed on the cpu backend through the torch_npu-shaped entry and quant_matmul,
# and on the emulator backend for every SoC (test_serving_patterns_replayed_on_the_emulator)

def _w8a8(seed=0, batch=(2, 3), k=64, n=9, scale_dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(-128, 128, batch + (k,), dtype=torch.int8, generator=g)
    weight = torch.randint(-128, 128, (n, k), dtype=torch.int8, generator=g)  # Linear layout [N, K]
    token_scale = torch.rand(batch, generator=g) * 0.01 + 0.001
    channel_scale = (torch.rand(n, generator=g) * 0.01 + 0.001).to(scale_dtype)
    return x, weight, token_scale, channel_scale


def _expected(x, weight, token_scale, channel_scale, out="bfloat16", bias=None):
    xs = torch_ops.to_numpy(token_scale)
    return reference_quant_matmul(x.numpy(), xs[..., None], np.zeros((1, 1), np.int8), weight.numpy().T,
                                  torch_ops.to_numpy(channel_scale), np.zeros((1, 1), np.int8),
                                  None if bias is None else torch_ops.to_numpy(bias), out)


def test_serving_transposed_weight_view():
    x, weight, ts, cs = _w8a8(batch=(6,))
    y = torch_ops.npu_quant_matmul(x, weight.t(), cs, pertoken_scale=ts, output_dtype=torch.bfloat16)
    assert y.dtype == torch.bfloat16 and y.shape == (6, 9)
    assert_same_floats(torch_ops.to_numpy(y), _expected(x, weight, ts, cs))


def test_serving_3d_activations_with_per_token_scales():
    # [B, S, K] activations with [B, S] per-token scales (torch_npu needs 2-D x1 and 1-D pertoken_scale)
    x, weight, ts, cs = _w8a8(batch=(2, 5))
    expected = _expected(x, weight, ts, cs)
    for scale in (ts, ts[..., None]):
        y = torch_ops.npu_quant_matmul(x, weight.t(), cs, pertoken_scale=scale, output_dtype=torch.bfloat16)
        assert y.shape == (2, 5, 9)
        assert_same_floats(torch_ops.to_numpy(y), expected)
    # decode step, S = 1
    y1 = torch_ops.npu_quant_matmul(x[:, :1], weight.t(), cs, pertoken_scale=ts[:, :1], output_dtype=torch.bfloat16)
    assert_same_floats(torch_ops.to_numpy(y1), expected[:, :1])


@pytest.mark.parametrize("scale_dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_serving_float16_and_bfloat16_weight_scales(scale_dtype):
    x, weight, ts, cs = _w8a8(scale_dtype=scale_dtype)
    y = torch_ops.npu_quant_matmul(x, weight.t(), cs, pertoken_scale=ts, output_dtype=torch.float16)
    assert_same_floats(torch_ops.to_numpy(y), _expected(x, weight, ts, cs, "float16"))


def test_serving_float64_weight_scales_are_refused_clearly():
    x, weight, ts, cs = _w8a8()
    with pytest.raises(aqo.DTypeError) as info:
        torch_ops.npu_quant_matmul(x, weight.t(), cs.double(), pertoken_scale=ts, output_dtype=torch.float16)
    assert info.value.argument == "b_scale" and "float64" in str(info.value)
    assert "float32 / float16 / bfloat16" in str(info.value)


@pytest.mark.parametrize("n,k", [(152064, 16), (8, 73728)])
def test_serving_large_n_and_k_in_one_call(n, k):
    # vocabulary projections (N = 152064) and long K (73728): one call, no weight split; splitting the weight in
    # two (what callers of the vendor's operator do) gives the same columns
    g = torch.Generator().manual_seed(n + k)
    x = torch.randint(-128, 128, (2, k), dtype=torch.int8, generator=g)
    weight = torch.randint(-128, 128, (n, k), dtype=torch.int8, generator=g)
    ts = torch.rand(2, generator=g) * 0.01
    cs = (torch.rand(n, generator=g) * 0.01).to(torch.bfloat16)
    y = torch_ops.npu_quant_matmul(x, weight.t(), cs, pertoken_scale=ts, output_dtype=torch.bfloat16)
    assert y.shape == (2, n)
    half = n // 2
    parts = [torch_ops.npu_quant_matmul(x, weight[s].t(), cs[s], pertoken_scale=ts, output_dtype=torch.bfloat16)
             for s in (slice(0, half), slice(half, n))]
    assert torch.equal(y, torch.cat(parts, dim=-1))
    assert_same_floats(torch_ops.to_numpy(y)[:, :64], _expected(x, weight[:64], ts, cs[:64]))


def test_npu_quant_matmul_without_pertoken_scale_and_with_a_float_bias():
    x, weight, ts, cs = _w8a8(batch=(4,))
    bias = torch.randn(9, dtype=torch.bfloat16)
    y = torch_ops.npu_quant_matmul(x, weight.t(), cs, bias=bias, output_dtype=torch.bfloat16)
    expected = _expected(x, weight, torch.ones(4), cs, bias=bias)  # float32(1 * s) = s: the same definition
    assert_same_floats(torch_ops.to_numpy(y), expected)


@pytest.mark.parametrize("change,argument,words", [
    (dict(x1=torch.zeros(4, 8, dtype=torch.int32), x2=torch.zeros(64, 9, dtype=torch.int32)), "x1", ["int4"]),
    (dict(scale=torch.zeros(9, dtype=torch.int64)), "scale", ["npu_trans_quant_param", "float32"]),
    (dict(offset=torch.zeros(9)), "offset", ["int8 output", "qlinear_matmul"]),
    (dict(bias=torch.zeros(9, dtype=torch.int32)), "bias", ["int32", "float"]),
    (dict(output_dtype=None), "output_dtype", ["int8", "torch.float16"]),
    (dict(output_dtype=torch.int8), "output_dtype", ["int8", "qlinear_matmul"]),
])
def test_npu_quant_matmul_refuses_what_it_does_not_compute(change, argument, words):
    x, weight, ts, cs = _w8a8(batch=(4,))
    kw = dict(x1=x, x2=weight.t(), scale=cs, pertoken_scale=ts, output_dtype=torch.bfloat16)
    kw.update(change)
    with pytest.raises(ConstraintError) as info:
        torch_ops.npu_quant_matmul(kw.pop("x1"), kw.pop("x2"), kw.pop("scale"), **kw)
    e = info.value
    assert e.op == "quant_matmul" and e.argument == argument
    for word in words:
        assert word in str(e), (word, str(e))


# ---------------------------------------------------------------------------------------------------------------
# The oneDNN tutorial flow and the W8A8 flow through the public API

@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_onednn_flow_through_the_public_api(kind):
    rng = np.random.default_rng(0)
    A = rng.uniform(-2.0, 1.4, (10, 30)).astype(np.float32)
    B = rng.uniform(-1.0, 1.0, (30, 20)).astype(np.float32)
    a16, bt16 = A.astype(np.float16), np.ascontiguousarray(B.T).astype(np.float16)
    if kind == "torch":
        a16, bt16 = torch.from_numpy(a16), torch.from_numpy(bt16)
    a, a_scale, a_zero_point = aqo.dynamic_quant(a16, dst_type="uint8", asymmetric=True)
    b_t, b_scale = aqo.dynamic_quant(bt16)
    c = aqo.quant_matmul(a, a_scale, a_zero_point, b_t.T, b_scale, out_dtype="float32")
    c = _as_numpy(c)
    error = np.linalg.norm(A @ B - c) / np.linalg.norm(A @ B)
    assert error <= 3e-2


@pytest.mark.parametrize("backend,soc", [("cpu", None), ("emulator", "ascend910b"), ("emulator", "ascend310p"),
                                         ("emulator", "ascend910_95")])
def test_onednn_flow_on_every_backend(backend, soc):
    # The same flow with the device kernels in the emulator. ascend310p quantizes only 32-aligned rows: K is padded
    # with zero columns in A and zero rows in B, which change neither the row ranges (the uint8 range contains 0
    # anyway, and 0 never raises a row's maximum magnitude) nor the product.
    rng = np.random.default_rng(0)
    A = rng.uniform(-2.0, 1.4, (10, 30)).astype(np.float32)
    B = rng.uniform(-1.0, 1.0, (30, 20)).astype(np.float32)
    k = 32 if soc == "ascend310p" else 30
    a16 = np.zeros((10, k), np.float16)
    a16[:, :30] = A
    bt16 = np.zeros((20, k), np.float16)
    bt16[:, :30] = B.T
    kw = dict(backend=backend, soc=soc)
    a, a_scale, a_zero_point = aqo.dynamic_quant(a16, dst_type="uint8", asymmetric=True, **kw)
    b_t, b_scale = aqo.dynamic_quant(bt16, **kw)
    c = _as_numpy(aqo.quant_matmul(a, a_scale, a_zero_point, b_t.T, b_scale, out_dtype="float32", **kw))
    error = np.linalg.norm(A @ B - c) / np.linalg.norm(A @ B)
    assert error <= 3e-2
    # Every backend computes the same bits: the cpu backend's result is the golden's.
    g = aqo.golden.quant_matmul.quant_matmul(
        *aqo.golden.dynamic_quant.dynamic_quant(a16, dst_type="uint8", asymmetric=True),
        aqo.golden.dynamic_quant.dynamic_quant(bt16)[0].T, aqo.golden.dynamic_quant.dynamic_quant(bt16)[1])
    np.testing.assert_array_equal(c.view(np.uint32), np.asarray(g, np.float32).view(np.uint32))


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_asymmetric_uint8_dynamic_quant_through_the_api(kind):
    x = np.random.default_rng(2).standard_normal((3, 4, 40)).astype(np.float16)
    expected = aqo.golden.dynamic_quant.dynamic_quant(x, dst_type="uint8", asymmetric=True)
    xin = torch.from_numpy(x) if kind == "torch" else x
    for dst in ("uint8", np.uint8, torch.uint8):  # at the API, torch.uint8 is uint8 (the op takes torch.quint8)
        out = aqo.dynamic_quant(xin, dst_type=dst, asymmetric=True)
        for got, want in zip(out, expected):
            np.testing.assert_array_equal(_as_numpy(got), want)
    with pytest.raises(aqo.DTypeError):
        aqo.dynamic_quant(xin, dst_type="uint8")
    # every SoC's kernel has the mode: a SoC's plan accepts it and the emulator computes the same bits
    for kw in (dict(soc="ascend910b"), dict(backend="emulator"), dict(soc="ascend910_95", backend="emulator"),
               dict(soc="ascend310p", backend="emulator")):
        xk = xin if kw.get("soc") != "ascend310p" else (torch.from_numpy(x[..., :32].copy()) if kind == "torch"
                                                        else x[..., :32].copy())
        want = expected if xk is xin else aqo.golden.dynamic_quant.dynamic_quant(_as_numpy(xk), dst_type="uint8",
                                                                                  asymmetric=True)
        out = aqo.dynamic_quant(xk, dst_type="uint8", asymmetric=True, **kw)
        for got, w in zip(out, want):
            np.testing.assert_array_equal(_as_numpy(got), w)


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p", "ascend910_95"])
def test_serving_patterns_replayed_on_the_emulator(soc):
    # the caller patterns above through the public API on the emulator backend: the kernel reads the transposed
    # weight view as stored, takes [B, S, K] activations with [B, S] per-token scales, float16 / bfloat16 weight
    # scales, N = 152064 and K = 73728 in one call (ascend310p writes float32 only)
    out = "float32" if soc == "ascend310p" else "bfloat16"

    def run(x, weight, ts, cs, scale=None):
        y = aqo.quant_matmul(x.numpy(), torch_ops.to_numpy(ts if scale is None else scale), None,
                             weight.numpy().T, torch_ops.to_numpy(cs), out_dtype=out, soc=soc, backend="emulator")
        return y

    x, weight, ts, cs = _w8a8(batch=(6,))
    assert_same_floats(run(x, weight, ts, cs), _expected(x, weight, ts, cs, out))
    x, weight, ts, cs = _w8a8(batch=(2, 5), scale_dtype=torch.bfloat16)
    expected = _expected(x, weight, ts, cs, out)
    for scale in (ts, ts[..., None]):
        assert_same_floats(run(x, weight, ts, cs, scale), expected)
    assert_same_floats(run(x[:, :1], weight, ts[:, :1], cs), expected[:, :1])
    for n, k in ((152064, 16), (8, 73728)):
        g = torch.Generator().manual_seed(n + k)
        x = torch.randint(-128, 128, (2, k), dtype=torch.int8, generator=g)
        weight = torch.randint(-128, 128, (n, k), dtype=torch.int8, generator=g)
        ts = torch.rand(2, generator=g) * 0.01
        cs = (torch.rand(n, generator=g) * 0.01).to(torch.float16)
        assert_same_floats(run(x, weight, ts, cs), _expected(x, weight, ts, cs, out))
