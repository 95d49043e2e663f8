"""The CPU kernels' run-time support: ISA levels, the thread pool (also after fork and under concurrent callers)."""
import concurrent.futures
import multiprocessing
import os
import subprocess
import sys

import numpy as np
import pytest

from ascend_quant_ops import _native, cpu
from ascend_quant_ops.cpu import dynamic_quant as cpu_dq, qlinear_matmul as cpu_qmm
from ascend_quant_ops.golden import dynamic_quant as golden_dq, qlinear_matmul as golden_qmm


ALL_LEVELS = ["portable", "avx2", "avx512_vnni"]


def test_isa_levels():
    levels = cpu.isa_levels()
    assert levels == ALL_LEVELS[:len(levels)]


@pytest.mark.parametrize("cap", ALL_LEVELS[:-1])
def test_isa_cap_from_the_environment(cap):
    env = dict(os.environ, AQO_CPU_ISA=cap, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", "from ascend_quant_ops import cpu; print(cpu.isa_levels())"],
                         env=env, capture_output=True, text=True, check=True)
    levels = cpu.isa_levels()
    assert out.stdout.strip() == str(levels[:levels.index(cap) + 1] if cap in levels else levels)


def test_thread_count_from_the_environment():
    env = dict(os.environ, AQO_NUM_THREADS="3", PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", "from ascend_quant_ops import cpu; print(cpu.max_threads())"],
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "3"


def test_pool_runs_tasks_on_other_threads():
    if cpu.max_threads() < 2:
        pytest.skip("one CPU: the kernels run on the calling thread")
    # 100 sleeping tasks of 2 ms: even on a busy machine the helper is scheduled within their 200 ms
    ran = _native.cpu_pool_probe(100, 2, 0.002)
    assert sorted(set(ran)) == [0, 1]
    assert _native.cpu_pool_probe(10, 1, 0.0) == [0] * 10


def _child_work(_):
    ran = _native.cpu_pool_probe(100, 2, 0.002)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((600, 700)).astype(np.float16)  # large enough to use the pool
    same = all(np.array_equal(a, b) for a, b in zip(cpu_dq.dynamic_quant(x), golden_dq.dynamic_quant(x)))
    return sorted(set(ran)), same


def test_pool_works_in_a_forked_child():
    """A child of fork() has none of the parent's pool threads: it starts its own, instead of waiting forever."""
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform")
    _native.cpu_pool_probe(8, 2, 0.0)  # the parent's pool exists before the fork
    with multiprocessing.get_context("fork").Pool(1) as pool:
        ran, same = pool.map_async(_child_work, [0]).get(timeout=120)[0]
    assert same
    assert ran == ([0, 1] if cpu.max_threads() >= 2 else [0])


def test_concurrent_callers_get_correct_results():
    """Several Python threads in the kernels at once (the GIL is released): one uses the pool, the others run
    on their own thread; every result is right."""
    rng = np.random.default_rng(2)
    xs = [rng.standard_normal((300, 1100)).astype(np.float16) for _ in range(4)]
    a = rng.integers(0, 256, (64, 500)).astype(np.uint8)
    b = rng.integers(-128, 128, (500, 300)).astype(np.int8)
    qmm_args = (a, np.float32(0.02), np.uint8(128), b, np.float32(0.01), np.int8(3), np.float32(2.0), np.uint8(9))
    want_qmm = golden_qmm.qlinear_matmul(*qmm_args)

    def job(i):
        if i % 2:
            return np.array_equal(cpu_qmm.qlinear_matmul(*qmm_args), want_qmm)
        x = xs[i % len(xs)]
        return all(np.array_equal(g, w) for g, w in zip(cpu_dq.dynamic_quant(x), golden_dq.dynamic_quant(x)))

    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        assert all(ex.map(job, range(16)))
