"""Every input handled the same way on every backend: byte order, ndarray subclasses, read-only arrays, torch
tensors that no backend computes on, SoC names and overrides. No nanobind signature, C++ exception text or raw
numpy error reaches the user. References are the golden on the same values in native byte order."""
import threading

import ml_dtypes
import numpy as np
import pytest
import torch

import ascend_quant_ops as aqo
from ascend_quant_ops import ConstraintError, DTypeError, emulator, tiling
from ascend_quant_ops import examples as ex

BACKENDS = ["cpu", "emulator"]


def _dq_inputs():
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((6, 64)) * 5).astype(np.float16)
    return x, (rng.random(64) + 0.5).astype(np.float16)


def _qmm_args():
    return dict(ex.ONNX_2D_UINT8)


def _big_endian(a):
    """The same values in big-endian byte order (also for ml_dtypes' types)."""
    a = np.asarray(a)
    if a.dtype.itemsize == 1:
        return a
    be = a.dtype.newbyteorder(">")
    out = a.view(f"<u{a.dtype.itemsize}").astype(f">u{a.dtype.itemsize}").view(be)
    assert not out.dtype.isnative
    assert np.array_equal(out.reshape(-1).astype(a.dtype).view(np.uint8), a.reshape(-1).view(np.uint8))
    return out


# ------------------------------------------------------------------------------------------ byte order
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x_dtype", [np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("dst", ["int8", "float8_e4m3fn", "hifloat8"])
def test_big_endian_dynamic_quant_equals_native(backend, x_dtype, dst):
    x, s = _dq_inputs()
    x, s = x.astype(x_dtype), s.astype(x_dtype)
    soc = "ascend910_95"
    want = aqo.dynamic_quant(x, s, dst_type=dst, backend="cpu")
    got = aqo.dynamic_quant(_big_endian(x), _big_endian(s), dst_type=dst, backend=backend, soc=soc)
    for w, g in zip(want, got):
        assert g.dtype.isnative
        assert np.array_equal(w.view(np.uint8), g.view(np.uint8))


@pytest.mark.parametrize("backend", BACKENDS)
def test_big_endian_qlinear_matmul_scales(backend):
    args = _qmm_args()
    want = aqo.qlinear_matmul(**args, backend="cpu")
    for name in ("a_scale", "b_scale", "y_scale"):
        args[name] = _big_endian(args[name])
    assert np.array_equal(aqo.qlinear_matmul(**args, backend=backend), want)


def test_big_endian_emulator_module_directly():
    x, _ = _dq_inputs()
    y, scale = emulator.dynamic_quant(_big_endian(x))
    wy, ws = aqo.dynamic_quant(x, backend="cpu")
    assert np.array_equal(y, wy) and np.array_equal(scale, ws)


# ------------------------------------------------------------------------------------------ subclasses
@pytest.mark.parametrize("backend", BACKENDS)
def test_masked_arrays_are_refused_on_every_backend(backend):
    x, _ = _dq_inputs()
    with pytest.raises(ConstraintError) as e:
        aqo.dynamic_quant(np.ma.masked_array(x, mask=x > 3), backend=backend)
    assert e.value.argument == "x" and "mask" in str(e.value)
    args = _qmm_args()
    args["b"] = np.ma.masked_array(args["b"])
    with pytest.raises(ConstraintError) as e:
        aqo.qlinear_matmul(**args, backend=backend)
    assert e.value.argument == "b"


@pytest.mark.parametrize("backend", BACKENDS)
def test_matrix_and_memmap_are_taken_as_plain_arrays(backend, tmp_path):
    x, _ = _dq_inputs()
    want = aqo.dynamic_quant(x, backend="cpu")
    got = aqo.dynamic_quant(np.asmatrix(x), backend=backend)
    assert type(got[0]) is np.ndarray and np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    np.save(tmp_path / "x.npy", x)
    mm = np.load(tmp_path / "x.npy", mmap_mode="r")  # a read-only memmap
    got = aqo.dynamic_quant(mm, backend=backend)
    assert np.array_equal(got[0], want[0])
    args = _qmm_args()
    want = aqo.qlinear_matmul(**args, backend="cpu")
    args["a"], args["b"] = np.asmatrix(args["a"]), np.asmatrix(args["b"])
    y = aqo.qlinear_matmul(**args, backend=backend)
    assert type(y) is np.ndarray and np.array_equal(y, want)


# ------------------------------------------------------------------------------------------ read-only
@pytest.mark.parametrize("backend", BACKENDS)
def test_read_only_arrays(backend):
    x, s = _dq_inputs()
    want = aqo.dynamic_quant(x, s, backend="cpu")
    ro_x = np.frombuffer(x.tobytes(), np.float16).reshape(x.shape)
    ro_s = s.copy()
    ro_s.flags.writeable = False
    assert not ro_x.flags.writeable
    got = aqo.dynamic_quant(ro_x, ro_s, backend=backend)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    args = {k: np.array(v) for k, v in _qmm_args().items()}
    for v in args.values():
        v.flags.writeable = False
    assert np.array_equal(aqo.qlinear_matmul(**args, backend=backend), ex.ONNX_2D_UINT8_Y)


def test_negative_strides_on_the_emulator():
    x, _ = _dq_inputs()
    got = aqo.dynamic_quant(x[::-1, ::-2], backend="emulator")
    want = aqo.dynamic_quant(np.ascontiguousarray(x[::-1, ::-2]), backend="cpu")
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


# ------------------------------------------------------------------------------------------ torch tensors
def _no_native_text(err):
    msg = str(err)
    for needle in ("incompatible function arguments", "std::", "nanobind", "Internal error", "memory format"):
        assert needle not in msg, msg


@pytest.mark.parametrize("backend", ["auto", "cpu", "emulator"])
@pytest.mark.parametrize("make,exc,words", [
    (lambda: torch.randn(4, 64).half().to_sparse(), ConstraintError, "dense"),
    (lambda: torch.nested.nested_tensor([torch.randn(2, 64).half(), torch.randn(3, 64).half()]),
     ConstraintError, "nested"),
    (lambda: torch.quantize_per_tensor(torch.randn(4, 64), 0.1, 0, torch.qint8), DTypeError, "quantized"),
    (lambda: torch.empty(4, 64, dtype=torch.float16, device="meta"), ConstraintError, "meta"),
], ids=["sparse", "nested", "qint8", "meta"])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_torch_tensors_no_backend_computes_on(backend, make, exc, words):
    with pytest.raises(exc) as e:
        aqo.dynamic_quant(make(), backend=backend)
    assert e.value.argument == "x" and words in str(e.value)
    _no_native_text(e.value)
    if exc is DTypeError:
        assert "float16" in str(e.value.expected)  # the accepted dtypes are listed


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_quantized_tensor_through_the_torch_helper():
    from ascend_quant_ops import torch_ops

    with pytest.raises(DTypeError):
        torch_ops.dynamic_quant(torch.quantize_per_tensor(torch.randn(4, 64), 0.1, 0, torch.qint8))


def test_cuda_tensor_is_named_as_such(monkeypatch):
    # No CUDA here: a stand-in whose device reports 'cuda' must be named CUDA, not taken for an NPU tensor.
    from ascend_quant_ops import _convert

    class Device:
        type = "cuda"

        def __str__(self):
            return "cuda:0"

    class CudaTensor:
        device = Device()

    monkeypatch.setattr(_convert, "is_torch_tensor", lambda obj: isinstance(obj, (torch.Tensor, CudaTensor)))
    for backend in ("auto", "cpu", "emulator"):
        with pytest.raises(ConstraintError) as e:
            aqo.dynamic_quant(CudaTensor(), backend=backend)
        assert e.value.constraint.startswith("a CUDA tensor") and e.value.argument == "x"
    with pytest.raises(ConstraintError) as e:
        aqo.qlinear_matmul(**{**_qmm_args(), "b": CudaTensor()})
    assert "CUDA" in str(e.value) and e.value.argument == "b"


@pytest.mark.parametrize("backend", BACKENDS)
def test_unknown_dtypes_list_the_accepted_ones(backend):
    with pytest.raises(DTypeError) as e:
        aqo.dynamic_quant(np.ones((2, 32), np.complex64), backend=backend)
    assert "float16" in str(e.value.expected) and "bfloat16" in str(e.value.expected)
    with pytest.raises(DTypeError) as e:
        aqo.dynamic_quant(torch.ones(2, 32, dtype=torch.float64), backend=backend)
    assert "float16" in str(e.value.expected)


# ------------------------------------------------------------------------------------------ SoC names, overrides
@pytest.mark.parametrize("soc", ["ascend910b\x00junk", "ascend910b\n", "ascend910b junk", "", 910])
def test_soc_names_with_garbage_are_refused(soc):
    x, _ = _dq_inputs()
    for call in (lambda: aqo.dynamic_quant(x, soc=soc),
                 lambda: aqo.dynamic_quant(x, soc=soc, backend="emulator"),
                 lambda: tiling.plan_dynamic_quant(x.shape, "float16", soc=soc),
                 lambda: tiling.canonical_soc(soc)):
        with pytest.raises(ConstraintError) as e:
            call()
        assert e.value.argument == "soc"


@pytest.mark.parametrize("name", ["core_num", "ub_size"])
@pytest.mark.parametrize("value", [2 ** 63, 2 ** 64 + 5, 1.5, 32768.0, "8", True, -1, 0])
def test_overrides_out_of_range_or_not_integers(name, value):
    x, _ = _dq_inputs()
    calls = [lambda: emulator.dynamic_quant(x, **{name: value}),
             lambda: emulator.qlinear_matmul(**_qmm_args(), **{name: value}),
             lambda: tiling.plan_dynamic_quant(x.shape, "float16", soc="ascend910b", **{name: value}),
             lambda: tiling.plan_qlinear_matmul((2, 4), (4, 3), soc="ascend910b", **{name: value})]
    for call in calls:
        with pytest.raises(ConstraintError) as e:
            call()
        assert e.value.argument == name
        _no_native_text(e.value)


# ------------------------------------------------------------------------------------------ soc= parity
def _per_row_y_args():
    a = np.ones((2, 4), np.int8)
    return dict(a=a, a_scale=np.float32(0.1), a_zero_point=np.int8(0), b=np.ones((4, 32), np.int8),
                b_scale=np.float32(0.1), b_zero_point=np.int8(0), y_scale=np.array([[0.2], [0.4]], np.float32),
                y_zero_point=np.zeros((2, 1), np.int8))


@pytest.mark.parametrize("backend", ["cpu", "emulator"])
@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_soc_refuses_a_per_row_y_scale_on_every_backend(backend, kind):
    args = _per_row_y_args()
    if kind == "torch":
        args = {k: torch.from_numpy(np.array(v)) for k, v in args.items()}
    with pytest.raises(ConstraintError) as e:
        aqo.qlinear_matmul(**args, soc="ascend910b", backend=backend)
    assert e.value.argument == "y_scale" and e.value.soc == "ascend910b"
    # without a SoC the exact reference computes it
    if backend == "cpu":
        y = aqo.qlinear_matmul(**args, backend="cpu")
        assert tuple(y.shape) == (2, 32)


# ------------------------------------------------------------------------------------------ per-thread stats
def test_last_run_stats_is_per_thread():
    x, _ = _dq_inputs()
    barrier = threading.Barrier(2)
    seen = {}

    def worker(rows, op):
        if op == "dq":
            emulator.dynamic_quant(np.ones((rows, 64), np.float16))
        else:
            emulator.qlinear_matmul(**_qmm_args())
        barrier.wait(timeout=120)  # both have run before either reads
        seen[(rows, op)] = emulator.last_run_stats()
        barrier.wait(timeout=120)

    threads = [threading.Thread(target=worker, args=a) for a in ((3, "dq"), (1, "qmm"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert seen[(3, "dq")]["op"] == "dynamic_quant" and seen[(1, "qmm")]["op"] == "qlinear_matmul"
    assert sum(c for c in [seen[(3, "dq")]["plan"]["used_cores"]]) >= 1
    # the runner modules expose the same per-thread record, not a process-global one
    from ascend_quant_ops.emulator import _stats

    edq = __import__("ascend_quant_ops.emulator.dynamic_quant", fromlist=["x"])
    eqm = __import__("ascend_quant_ops.emulator.qlinear_matmul", fromlist=["x"])
    assert edq.last_run_stats is _stats.last_run_stats is eqm.last_run_stats


@pytest.mark.parametrize("backend", ["cpu", "emulator"])
@pytest.mark.parametrize("shape,refused", [((3, 4, 1), True), ((1, 3, 4, 1), True), ((2, 1, 4, 1), True),
                                           ((2, 3, 4, 1), False), ((1, 1, 4, 1), False), ((4,), False)])
def test_soc_refuses_a_partially_broadcast_batch_parameter(backend, shape, refused):
    # The device's kernel reads one parameter vector per batch matrix or one for all: a parameter whose batch
    # dimensions broadcast over only some of a's is refused on every backend when a SoC is given.
    a = (np.arange(2 * 3 * 4 * 8).reshape(2, 3, 4, 8) % 11).astype(np.int8)
    b = (np.arange(8 * 32).reshape(8, 32) % 7).astype(np.int8)
    scale = np.full(shape, 0.5, np.float32)
    args = (a, scale, np.zeros(shape, np.int8), b, np.float32(0.25), np.int8(0), np.float32(2.0), np.int8(0))
    want = aqo.qlinear_matmul(*args, backend="cpu")  # without a SoC the exact reference takes every layout
    if refused:
        with pytest.raises(ConstraintError) as e:
            aqo.qlinear_matmul(*args, soc="ascend910b", backend=backend)
        assert e.value.argument == "a_scale" and e.value.soc == "ascend910b"
    else:
        assert np.array_equal(aqo.qlinear_matmul(*args, soc="ascend910b", backend=backend), want)
