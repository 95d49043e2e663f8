#!/usr/bin/env python3
"""CPU speed of the QLinearMatMul golden against onnxruntime (u8 x s8, per-column b -> u8). Not a test.

Prints, per shape and data kind, the best-of-N time of the golden and of onnxruntime (b, b_scale and
b_zero_point as initializers, so ORT prepacks b once, as in a deployed model; docs/references.md#onnxruntime-qlinearmatmul) and the ratio golden / ORT. The target is a ratio
within 10x at 1024^3. "typical" data (|a - a_zp| <= 128, |b - b_zp| <= 128) fits one exact float32 GEMM;
"extreme" data (zero points at the ends of the range, |differences| up to 255) needs K cut into 258-column slices.
The outputs of both are compared too: they must be equal (b is kept in [-64, 63] where ORT's AVX2 u8 x s8 kernel
would otherwise saturate pair sums; docs/references.md#onnxruntime-qlinearmatmul).

    PYTHONPATH=python python scripts/bench_qlinear_matmul_cpu.py [--repeat 5] [--quick]
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import _package_path  # noqa: E402,F401  (developer build or installed package)

from ascend_quant_ops.golden.qlinear_matmul import qlinear_matmul  # noqa: E402


def make_problem(m, k, n, kind, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "typical":
        a = rng.integers(0, 256, (m, k)).astype(np.uint8)
        a_zp = np.uint8(128)
        b = rng.integers(-64, 64, (k, n)).astype(np.int8)
        b_zp = rng.integers(-8, 8, n).astype(np.int8)
    else:
        a = rng.choice(np.array([0, 255], np.uint8), (m, k))
        a_zp = np.uint8(255)
        b = rng.choice(np.array([-64, 63], np.int8), (k, n))
        b_zp = np.full(n, 127, np.int8)
    return (a, np.asarray(np.float32(0.02)), np.asarray(a_zp), b, rng.uniform(0.001, 0.01, n).astype(np.float32),
            b_zp, np.asarray(np.float32(max(1.0, k / 8))), np.asarray(np.uint8(128)))


def ort_session(args):
    import onnxruntime as ort
    from onnx import helper, numpy_helper

    names = ["a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"]
    initializers = {"b", "b_scale", "b_zero_point", "a_scale", "a_zero_point", "y_scale", "y_zero_point"}
    graph = helper.make_graph(
        [helper.make_node("QLinearMatMul", names, ["y"])], "bench",
        [helper.make_tensor_value_info("a", helper.np_dtype_to_tensor_dtype(args[0].dtype), list(args[0].shape))],
        [helper.make_tensor_value_info("y", helper.np_dtype_to_tensor_dtype(args[7].dtype), None)],
        initializer=[numpy_helper.from_array(np.ascontiguousarray(x), name) for name, x in zip(names, args)
                     if name in initializers])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return lambda: session.run(None, {"a": args[0]})[0]


def best_ms(fn, repeat):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="smaller shapes only")
    options = parser.parse_args()
    shapes = [(256, 256, 256)] if options.quick else [(1024, 1024, 1024), (1, 4096, 4096), (256, 256, 256)]
    print(f"{'M x K x N':>18} {'data':>8} {'golden ms':>10} {'ORT ms':>8} {'ratio':>6}  equal")
    for m, k, n in shapes:
        for kind in ("typical", "extreme"):
            args = make_problem(m, k, n, kind)
            ort_run = ort_session(args)
            golden_ms = best_ms(lambda: qlinear_matmul(*args), options.repeat)
            ort_ms = best_ms(ort_run, options.repeat)
            equal = np.array_equal(qlinear_matmul(*args), ort_run())
            print(f"{f'{m} x {k} x {n}':>18} {kind:>8} {golden_ms:10.2f} {ort_ms:8.2f} {golden_ms / ort_ms:6.2f}  "
                  f"{equal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
