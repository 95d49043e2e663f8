"""The CANN operator AqoQuantMatMul's TilingFunc sees its parameters' shapes only (op_host/aqo_quant_matmul.cpp):
aqo::ClassifyMatMulParam turns a shape into the layout the kernel reads (one element, one vector for every
matrix, or one vector per batch matrix), each parameter on its own, and refuses any other shape with a typed
violation (a shape the kernel would read past its end, or as another layout). The plan then gives a scale and its
zero point their own batch strides, and the kernel reads them so (the emulator, bit for bit with the golden)."""
import numpy as np
import pytest

from ascend_quant_ops import _native, api, tiling
from ascend_quant_ops.emulator import _stats
from ascend_quant_ops.golden import quant_matmul as golden

M, N = 8, 12


def classify(dims, row, length, batch):
    return _native.classify_quant_matmul_param("p", list(dims), row, length, list(batch))


@pytest.mark.parametrize("dims,batched", [
    ((), None), ((1,), None), ((1, 1, 1), None),                 # per tensor
    ((M,), False), ((M, 1), False), ((1, M, 1), False), ((1, M), False),   # one [M] vector (a.shape[:-1] of [1, M, K])
    ((2, 3, M, 1), True), ((2, 3, M), True), ((1, 2, 3, M, 1), True),      # per a matrix (a.shape[:-1] too)
])
def test_row_parameter_shapes(dims, batched):
    got = classify(dims, True, M, (2, 3))
    assert got["ok"], got
    if batched is None:
        assert got["kind"] == "tensor"
    else:
        assert got["kind"] == "vector" and got["batched"] is batched


@pytest.mark.parametrize("dims,batched", [
    ((), None), ((N,), False), ((1, N), False), ((1, 1, N), False), ((4, 1, N), True), ((1, 4, 1, N), True),
])
def test_column_parameter_shapes(dims, batched):
    got = classify(dims, False, N, (4,))
    assert got["ok"], got
    assert got["kind"] == ("tensor" if batched is None else "vector")
    if batched is not None:
        assert got["batched"] is batched


@pytest.mark.parametrize("dims,row,batch", [
    ((3, 2, M, 1), True, (2, 3)),   # another batch order: read as a's batch it would be wrong
    ((1, 3, M, 1), True, (2, 3)),   # a broadcast batch the kernel does not expand: read past its end
    ((M + 1,), True, (2, 3)),       # neither M values nor one per matrix
    ((2, M, 3), True, (2, 3)),
    ((N, 1), False, (4,)),          # a column parameter as a column vector
    ((4, N), False, (4,)),          # b's batch without its [1, N] row: ambiguous with a [4, N] matrix of y
    ((2, 1, N), False, (2, 5)),     # a bias with part of y's batch dims
])
def test_other_shapes_are_refused_with_the_forms_that_work(dims, row, batch):
    got = classify(dims, row, M if row else N, batch)
    assert not got["ok"]
    v = got["violation"]
    assert v["op"] == "quant_matmul" and v["argument"] == "p" and v["soc"] == "ascend910b"
    assert v["actual"] == "[" + ", ".join(map(str, dims)) + "]"
    assert ("[%d, 1]" % M if row else "[1, %d]" % N) in v["limit"] and "leading 1s ignored" in v["limit"]


def test_the_plan_gives_a_scale_and_its_zero_point_their_own_batch_strides():
    kw = dict(a_scale="row", a_zero_point="row", b_scale="column", b_zero_point="column")
    p = tiling.plan_quant_matmul((3, M, 16), (16, N), soc="ascend910b", a_param_batched=True, **kw)
    assert p.tiling["aScaleBatchStride"] == M and p.tiling["aZpBatchStride"] == M
    raw = _native.plan_quant_matmul([3, M, 16], [16, N], a_param_batched=True, a_zp_batched=False,
                                    b_param_batched=False, b_zp_batched=False, **kw)
    assert raw["ok"]
    t = raw["tiling"]
    assert (t["aScaleBatchStride"], t["aZpBatchStride"]) == (M, 0)
    assert (t["bScaleBatchStride"], t["bZpBatchStride"]) == (0, 0)


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p"])
def test_a_batched_scale_beside_a_shared_zero_point_runs_bit_exact(soc):
    # a [B, S, K] activations: per-token scales [B, S] (one per row of every a matrix) and an [S] zero point shared
    # by the batch; b per column with a [N] zero point. The emulator hands the kernel each as given.
    rng = np.random.default_rng(5)
    a = rng.integers(0, 256, (3, M, 40), dtype=np.uint8)
    b = rng.integers(-128, 128, (40, N), dtype=np.int8)
    a_scale = rng.uniform(0.005, 0.02, (3, M)).astype(np.float32)
    a_zp = rng.integers(0, 256, (M, 1), dtype=np.uint8)
    b_scale = rng.uniform(0.005, 0.02, (N,)).astype(np.float32)
    b_zp = rng.integers(-128, 128, (N,), dtype=np.int8)
    want = golden.quant_matmul(a, a_scale, a_zp, b, b_scale, b_zp)
    got = api.quant_matmul(a, a_scale, a_zp, b, b_scale, b_zp, soc=soc, backend="emulator")
    assert tuple(_stats.last_run_stats()["plan"]["batch_strides"]) == (M, 0, 0, 0, 0)  # a_scale's only
    np.testing.assert_array_equal(np.asarray(got).view(np.uint8), np.asarray(want).view(np.uint8))


@pytest.mark.parametrize("which", ["a_scale", "b_scale", "bias"])
def test_per_batch_values_run_bit_exact_when_the_batch_equals_the_vector_length(which):
    # [B, 1, 1]: one value per batch matrix (the golden's broadcasting), with B = M (a's) or B = N (b's, the bias):
    # as many elements as a shared vector, but not one; the emulator must hand the kernel the expanded layout
    rng = np.random.default_rng(9)
    if which == "a_scale":
        a = rng.integers(-128, 128, (4, 4, 32), dtype=np.int8)
        b = rng.integers(-128, 128, (32, 16), dtype=np.int8)
        kw = dict(a_scale=rng.uniform(0.5, 2, (4, 1, 1)).astype(np.float32), b_scale=np.float32(0.25), bias=None)
    elif which == "b_scale":
        a = rng.integers(-128, 128, (8, 32), dtype=np.int8)
        b = rng.integers(-128, 128, (16, 32, 16), dtype=np.int8)
        kw = dict(a_scale=np.float32(0.5), b_scale=rng.uniform(0.5, 2, (16, 1, 1)).astype(np.float32), bias=None)
    else:
        a = rng.integers(-128, 128, (8, 4, 32), dtype=np.int8)
        b = rng.integers(-128, 128, (32, 8), dtype=np.int8)
        kw = dict(a_scale=np.float32(0.5), b_scale=np.float32(0.25),
                  bias=rng.uniform(-4, 4, (8, 1, 1)).astype(np.float32))
    want = golden.quant_matmul(a, kw["a_scale"], None, b, kw["b_scale"], None, bias=kw["bias"])
    got = api.quant_matmul(a, kw["a_scale"], None, b, kw["b_scale"], None, bias=kw["bias"], soc="ascend910b",
                           backend="emulator")
    np.testing.assert_array_equal(np.asarray(got).view(np.uint8), np.asarray(want).view(np.uint8))
