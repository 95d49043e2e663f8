"""Every public exception survives pickle and copy.deepcopy with its fields, so that a worker process that raises
one hands it back to its parent (a multiprocessing.Pool used to hang forever, a ProcessPoolExecutor reported a
broken pool)."""
import concurrent.futures
import copy
import multiprocessing
import pickle

import pytest

from ascend_quant_ops.errors import BackendUnavailableError, ConstraintError, DTypeError, EmulatorError


def _errors():
    c = ConstraintError("dynamic_quant", "x", "tail axis too long", actual=7553, limit=7552, soc="ascend910b",
                        expected="<= 7552", suggestion="split the rows")
    d = DTypeError("qlinear_matmul", "a", "unsupported dtype", expected="int8 / uint8", actual="float32")
    b = BackendUnavailableError("npu", "torch_npu is not installed")
    e = EmulatorError("kernel fault at aqo_dynamic_quant.cpp:120")
    e.kernel_file, e.kernel_line, e.soc = "aqo_dynamic_quant.cpp", 120, "ascend310p"
    c.extra_note = "added after construction"
    return [c, d, b, e]


@pytest.mark.parametrize("err", _errors(), ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("copier", [lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy, copy.copy],
                         ids=["pickle", "deepcopy", "copy"])
def test_round_trip_keeps_type_message_and_fields(err, copier):
    back = copier(err)
    assert type(back) is type(err)
    assert str(back) == str(err)
    assert back.__dict__ == err.__dict__
    if isinstance(err, ConstraintError):
        assert back.to_dict() == err.to_dict()


def _raise_constraint(_):
    raise ConstraintError("dynamic_quant", "x", "rank must be at least 2", limit=2, actual="rank 1")


def test_process_pool_worker_error_reaches_the_parent():
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        fut = pool.submit(_raise_constraint, 0)
        with pytest.raises(ConstraintError) as info:
            fut.result(timeout=120)
    assert info.value.argument == "x" and info.value.limit == 2


def test_multiprocessing_pool_does_not_hang():
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        res = pool.map_async(_raise_constraint, [0])
        with pytest.raises(ConstraintError) as info:
            res.get(timeout=120)
    assert info.value.actual == "rank 1"
