"""The public API's plumbing: input kinds, dtype spellings, backends, SoC checks. Values are checked against the
spec examples (ATB's DynamicQuant example, the ONNX example), never against the package's own output."""
import ml_dtypes
import numpy as np
import pytest
import torch

import ascend_quant_ops as aqo
from ascend_quant_ops import BackendUnavailableError, ConstraintError, examples as ex


def test_atb_example_numpy():
    y, scale = aqo.dynamic_quant(ex.SEED_004_X)
    assert y.dtype == np.int8 and np.array_equal(y, ex.SEED_004_Y)
    assert scale.dtype == np.float32 and scale.shape == (2, 2)
    # within one float32 ulp of the spec's printed scales
    assert np.all(np.abs(scale - ex.SEED_004_SCALE) <= np.spacing(ex.SEED_004_SCALE))


def test_atb_example_torch_in_torch_out():
    y, scale = aqo.dynamic_quant(torch.from_numpy(ex.SEED_004_X))
    assert isinstance(y, torch.Tensor) and y.dtype == torch.int8
    assert isinstance(scale, torch.Tensor) and scale.dtype == torch.float32
    assert np.array_equal(y.numpy(), ex.SEED_004_Y)


@pytest.mark.parametrize("dst", ["int8", np.int8, torch.int8, 2])
def test_dst_type_spellings_int8(dst):
    y, _ = aqo.dynamic_quant(ex.SEED_004_X, dst_type=dst)
    assert np.array_equal(np.asarray(y), ex.SEED_004_Y)


@pytest.mark.parametrize("dst,np_type", [
    ("float8_e4m3fn", ml_dtypes.float8_e4m3fn), (36, ml_dtypes.float8_e4m3fn), (torch.float8_e4m3fn, ml_dtypes.float8_e4m3fn),
    ("float8_e5m2", ml_dtypes.float8_e5m2), (35, ml_dtypes.float8_e5m2), (torch.float8_e5m2, ml_dtypes.float8_e5m2),
    ("hifloat8", None), (34, None)])
def test_dst_type_spellings_8bit_floats(dst, np_type):
    y, scale = aqo.dynamic_quant(ex.SEED_004_X, dst_type=dst)
    if np_type is None:
        assert y.dtype.name == "hifloat8"
    else:
        assert y.dtype == np.dtype(np_type)
    # the row maximum always maps to +-dmax exactly
    dmax = {"float8_e4m3fn": 448.0, "float8_e5m2": 57344.0, "hifloat8": 32768.0}[y.dtype.name]
    assert np.all(np.max(np.abs(y.astype(np.float32)), axis=-1) == dmax)


def test_hifloat8_travels_as_uint8_in_torch():
    y, _ = aqo.dynamic_quant(torch.from_numpy(ex.SEED_004_X), dst_type="hifloat8")
    y_np, _ = aqo.dynamic_quant(ex.SEED_004_X, dst_type="hifloat8")
    assert y.dtype == torch.uint8
    assert np.array_equal(y.numpy(), y_np.view(np.uint8))


def test_bfloat16_torch_roundtrip_is_bit_exact():
    x = torch.randn(3, 64, generator=torch.Generator().manual_seed(0)).to(torch.bfloat16)
    y_t, s_t = aqo.dynamic_quant(x)
    x_np = x.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    y_n, s_n = aqo.dynamic_quant(x_np)
    assert np.array_equal(y_t.numpy(), y_n) and np.array_equal(s_t.numpy(), s_n)


def test_strided_and_non_contiguous_inputs():
    base = np.repeat(ex.SEED_004_X.reshape(4, 4), 2, axis=1)  # [4, 8]: every other column is the example
    strided = base[:, ::2]
    assert not strided.flags["C_CONTIGUOUS"]
    y, _ = aqo.dynamic_quant(strided)
    assert np.array_equal(y, ex.SEED_004_Y.reshape(4, 4))
    t = torch.from_numpy(np.ascontiguousarray(ex.SEED_004_X.reshape(4, 4).T)).T  # transposed view
    assert not t.is_contiguous()
    y_t, _ = aqo.dynamic_quant(t)
    assert np.array_equal(y_t.numpy(), ex.SEED_004_Y.reshape(4, 4))


def test_onnx_example_numpy_and_torch():
    assert np.array_equal(aqo.qlinear_matmul(**ex.ONNX_2D_UINT8), ex.ONNX_2D_UINT8_Y)
    as_torch = {k: torch.from_numpy(np.array(v)) for k, v in ex.ONNX_2D_UINT8.items()}
    y = aqo.qlinear_matmul(**as_torch)
    assert isinstance(y, torch.Tensor) and np.array_equal(y.numpy(), ex.ONNX_2D_UINT8_Y)


def test_onnx_example_strided_operands():
    a = np.repeat(ex.ONNX_2D_UINT8["a"], 2, axis=1)[:, ::2]
    b = np.asfortranarray(ex.ONNX_2D_UINT8["b"])
    kw = {**ex.ONNX_2D_UINT8, "a": a, "b": b}
    assert np.array_equal(aqo.qlinear_matmul(**kw), ex.ONNX_2D_UINT8_Y)


def test_backend_info_shape():
    info = aqo.backend_info()
    assert set(info) == {"cpu", "emulator", "npu"}
    for b in info.values():
        assert isinstance(b["usable"], bool) and b["reason"]
    assert info["cpu"]["usable"]


def test_npu_backend_unusable_says_why():
    with pytest.raises(BackendUnavailableError) as info:
        aqo.dynamic_quant(ex.SEED_004_X, backend="npu")
    assert info.value.backend == "npu" and info.value.reason == aqo.backend_info()["npu"]["reason"]


def test_soc_check_runs_on_cpu_backend():
    # what the device would refuse is refused on a laptop too
    x = np.zeros((2, 48), np.float16)  # 48 is not a multiple of 32
    with pytest.raises(ConstraintError) as info:
        aqo.dynamic_quant(x, soc="ascend310p", backend="cpu")
    assert info.value.soc == "ascend310p"
    y, scale = aqo.dynamic_quant(x, soc="ascend910b", backend="cpu")
    assert not y.any() and not scale.any()


def test_soc_alias_ascend950():
    y, _ = aqo.dynamic_quant(ex.SEED_004_X, dst_type="float8_e5m2", soc="ascend950")
    assert y.dtype == np.dtype(ml_dtypes.float8_e5m2)


def test_torch_npu_keyword_arguments_accepted():
    for dst in (torch.int8, None):  # None is torch_npu's spelling of its int8 default
        y, _ = aqo.dynamic_quant(torch.from_numpy(ex.SEED_004_X), smooth_scales=None, dst_type=dst,
                                 quant_mode="pertoken", group_index=None, dst_type_max=0.0)
        assert np.array_equal(y.numpy(), ex.SEED_004_Y)


@pytest.mark.parametrize("soc", ["ascend910b", "ascend910_95"])
def test_emulator_backend_on_the_spec_examples(soc):
    for _ in range(2):  # twice: the backend must survive repeated calls in one process
        y, scale = aqo.dynamic_quant(ex.SEED_004_X, backend="emulator", soc=soc)
        assert np.array_equal(y, ex.SEED_004_Y)
        assert np.all(np.abs(scale - ex.SEED_004_SCALE) <= np.spacing(ex.SEED_004_SCALE))
    assert np.array_equal(aqo.qlinear_matmul(**ex.ONNX_2D_UINT8, backend="emulator", soc=soc), ex.ONNX_2D_UINT8_Y)
    from ascend_quant_ops import emulator

    stats = emulator.last_run_stats()
    assert stats["op"] == "qlinear_matmul"
    assert stats["run"]["kernel"] == "aqo_qlinear_matmul" and stats["run"]["soc"] == soc and stats["run"]["completed"]


def test_emulator_backend_ascend310p_pads_to_32():
    x = np.zeros((4, 32), np.float16)
    x[:, :4] = ex.SEED_004_X.reshape(4, 4)  # zero padding does not change a row's maximum
    y, _ = aqo.dynamic_quant(x, backend="emulator", soc="ascend310p")
    assert np.array_equal(y[:, :4], ex.SEED_004_Y.reshape(4, 4)) and not y[:, 4:].any()


def test_torch_ops_exist_after_importing_the_package_with_torch_loaded():
    import subprocess
    import sys

    code = ("import torch, ascend_quant_ops\n"
            "x = torch.tensor([[1.0, -2.0, 4.0, 0.5]], dtype=torch.float16)\n"
            "y, scale = torch.ops.ascend_quant_ops.dynamic_quant(x)\n"
            "print(y.tolist(), scale.item())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "TORCH_DEVICE_BACKEND_AUTOLOAD": "0"})
    assert out.returncode == 0, out.stderr
    # scale = 4/127; y = round(x / scale) = [32, -64, 127, 16] (31.75 -> 32, 15.875 -> 16)
    assert out.stdout.split("]")[0] + "]" == "[[32, -64, 127, 16]"


BACKENDS_HERE = ["auto", "cpu", "emulator"]


@pytest.mark.parametrize("backend", BACKENDS_HERE)
def test_vector_times_vector_is_0d_for_numpy_and_torch(backend):
    # numpy.matmul of two vectors is a 0-d array; a torch result must keep that shape (not [1]).
    # [1, 2, 3] . [1, 2, 3] = 14 with unit scales and zero points 0: y = 14.
    u8 = np.uint8
    one = np.float32(1.0)
    args = [np.array([1, 2, 3], u8), one, u8(0), np.array([1, 2, 3], u8), one, u8(0), one, u8(0)]
    kw = {"soc": "ascend910b"} if backend == "emulator" else {}
    y = aqo.qlinear_matmul(*args, backend=backend, **kw)
    assert y.shape == () and int(y) == 14
    yt = aqo.qlinear_matmul(*(torch.from_numpy(np.array(v)) for v in args), backend=backend, **kw)
    assert isinstance(yt, torch.Tensor) and yt.shape == () and int(yt) == 14


@pytest.mark.parametrize("backend", BACKENDS_HERE)
def test_numpy_parameters_mix_with_torch_data(backend):
    # torch data with numpy parameters: the output follows the data (torch), on every backend.
    ex_args = ex.ONNX_2D_UINT8
    mixed = {k: (torch.from_numpy(v) if k in ("a", "b") else v) for k, v in ex_args.items()}
    y = aqo.qlinear_matmul(**mixed, backend=backend)
    assert isinstance(y, torch.Tensor) and np.array_equal(y.numpy(), ex.ONNX_2D_UINT8_Y)
    ones = np.ones(4, np.float16)  # smooth scales of 1 change nothing
    yq, scale = aqo.dynamic_quant(torch.from_numpy(ex.SEED_004_X), ones, backend=backend)
    assert isinstance(yq, torch.Tensor) and np.array_equal(yq.numpy(), ex.SEED_004_Y)


@pytest.mark.parametrize("backend", BACKENDS_HERE)
def test_strided_torch_and_numpy_inputs_on_every_backend(backend):
    x4 = ex.SEED_004_X.reshape(4, 4)
    y4 = ex.SEED_004_Y.reshape(4, 4)
    views = {
        "numpy reversed columns": (np.ascontiguousarray(x4[:, ::-1])[:, ::-1], y4),
        "torch transposed": (torch.from_numpy(np.ascontiguousarray(x4.T)).T, y4),
        "torch expanded (stride 0)": (torch.from_numpy(x4[1:2].copy()).expand(3, 4), np.repeat(y4[1:2], 3, 0)),
    }
    for name, (x, want) in views.items():
        y, _ = aqo.dynamic_quant(x, backend=backend)
        assert np.array_equal(np.asarray(y), want), name
    a, b = ex.ONNX_2D_UINT8["a"], ex.ONNX_2D_UINT8["b"]
    params = {k: torch.from_numpy(v) for k, v in ex.ONNX_2D_UINT8.items() if k not in ("a", "b")}
    at = torch.from_numpy(np.ascontiguousarray(a.T)).T
    bt = torch.from_numpy(np.ascontiguousarray(b.T)).T
    assert not at.is_contiguous() and not bt.is_contiguous()
    y = aqo.qlinear_matmul(a=at, b=bt, **params, backend=backend)
    assert np.array_equal(y.numpy(), ex.ONNX_2D_UINT8_Y)
    ab = torch.from_numpy(a).expand(3, 2, 4)  # a batch of three identical (stride 0) copies
    y = aqo.qlinear_matmul(a=ab, b=torch.from_numpy(b), **params, backend=backend)
    assert np.array_equal(y.numpy(), np.stack([ex.ONNX_2D_UINT8_Y] * 3))
    y = aqo.qlinear_matmul(**{**ex.ONNX_2D_UINT8, "a": np.ascontiguousarray(a[:, ::-1])[:, ::-1],
                              "b": np.asfortranarray(b)}, backend=backend)
    assert np.array_equal(y, ex.ONNX_2D_UINT8_Y)
