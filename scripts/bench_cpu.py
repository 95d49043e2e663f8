#!/usr/bin/env python3
"""CPU speed of the cpu backend (ascend_quant_ops.cpu), with its references measured in the same run. Not a test.

QLinearMatMul (what aqo.qlinear_matmul runs on CPU): u8 x s8 -> u8 with per-column b parameters, and
s8 x s8 -> s8 per tensor, at 1024^3, 1 x 4096 x 4096 (decode), 16 x 4096 x 4096 and [8,128,512] x [512,512],
against
  * onnxruntime: one QLinearMatMul node with b and every parameter as initializers, so that onnxruntime packs b
    once at session creation, as in a deployed model (our path gets b anew on every call); outputs must be equal;
  * torch._int_mm: oneDNN's int8 GEMM alone (s8 x s8 -> int32; no zero points, no requantization, no output):
    what the product costs in the library, a floor for any path built on it.
Then b as the transposed view of an [N, K] weight (`w.T`, the Linear layout, read in place by the kernel) at the
same shapes, against the same call with b contiguous [K, N], and against copying the view first (what the cpu
backend did before it read the view in place); outputs must be equal. These three are timed call by call in turn
(medians of each), so that the machine's load affects them alike.
DynamicQuant (what aqo.dynamic_quant runs on CPU): float16 and bfloat16 x of 4096 x 7168, int8 output, against one
np.copyto of x (the physical floor: x must be read once and y, half its size, written); then the per-call fixed
cost on 16 x 4096 and 1 x 64 inputs, through aqo.dynamic_quant with numpy input and with torch input (the torch
op), and of the torch op called directly, against torch eager code doing the same arithmetic (one torch thread:
intra-op threads only add waits on inputs this small).

Timing: the median of --repeat calls after a warm-up call, for each thing compared in turn; every ratio divides
times of the same run. The machine may be shared with other work (the load average is printed at the start and
the end): rerun when numbers look noisy, and compare ratios rather than times.

    PYTHONPATH=python python scripts/bench_cpu.py [--repeat 15] [--quick] [--markdown] [--isa portable] [--threads 1]
                                                  [--transposed-b-only]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import ml_dtypes
import numpy as np

import _package_path  # noqa: E402,F401  (developer build or installed package)

# ascend_quant_ops is imported in main(), after --threads has set AQO_NUM_THREADS
aqo = cpu = cpu_dq = cpu_qmm = None

QMM_SHAPES = [((1024, 1024), (1024, 1024)), ((1, 4096), (4096, 4096)), ((16, 4096), (4096, 4096)),
              ((8, 128, 512), (512, 512))]
QMM_KINDS = ("u8s8 per-column", "s8s8 per-tensor")


def median_ms(*fns, repeat: int):
    """Median time in ms of each function over `repeat` calls after a warm-up call. One function after the other,
    not interleaved, with a pause before each: onnxruntime's, torch's and our thread pools keep spinning for a while
    after a call, and would slow down whatever ran next."""
    medians = []
    for fn in fns:
        time.sleep(0.1)
        fn()  # warm-up (and first touch of buffers)
        spent = []
        for _ in range(repeat):
            start = time.perf_counter()
            fn()
            spent.append(time.perf_counter() - start)
        medians.append(1e3 * statistics.median(spent))
    return medians if len(fns) > 1 else medians[0]


def alternating_median_ms(*fns, repeat: int):
    """Median time in ms of each function over `repeat` rounds that call every function once, in turn (after a
    warm-up round): for functions of this package alone (one thread pool), so that a burst of load on the shared
    machine slows all of them alike and their ratios stay meaningful."""
    for fn in fns:
        fn()
    spent = [[] for _ in fns]
    for _ in range(repeat):
        for fn, times in zip(fns, spent):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return [1e3 * statistics.median(times) for times in spent]


def load_average() -> str:
    try:
        return "{:.1f}".format(os.getloadavg()[0])
    except (AttributeError, OSError):
        return "n/a"


def qmm_problem(a_shape, b_shape, kind, seed=0):
    rng = np.random.default_rng(seed)
    k, n = b_shape
    if kind == "u8s8 per-column":
        a = rng.integers(0, 256, a_shape).astype(np.uint8)
        b = rng.integers(-64, 64, b_shape).astype(np.int8)  # exact in every onnxruntime kernel, VNNI or not
        return (a, np.float32(0.02), np.uint8(128), b, rng.uniform(0.001, 0.01, n).astype(np.float32),
                rng.integers(-8, 8, n).astype(np.int8), np.float32(max(1.0, k / 8)), np.uint8(128))
    a = rng.integers(-128, 128, a_shape).astype(np.int8)
    b = rng.integers(-128, 128, b_shape).astype(np.int8)
    return (a, np.float32(0.02), np.int8(0), b, np.float32(0.005), np.int8(0), np.float32(max(1.0, k / 4)),
            np.int8(0))


def ort_session(args, threads=0):
    import onnxruntime as ort
    from onnx import helper, numpy_helper

    names = ["a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"]
    graph = helper.make_graph(
        [helper.make_node("QLinearMatMul", names, ["y"])], "bench",
        [helper.make_tensor_value_info("a", helper.np_dtype_to_tensor_dtype(args[0].dtype), list(args[0].shape))],
        [helper.make_tensor_value_info("y", helper.np_dtype_to_tensor_dtype(np.asarray(args[7]).dtype), None)],
        initializer=[numpy_helper.from_array(np.ascontiguousarray(np.asarray(x)), name)
                     for name, x in zip(names, args) if name != "a"])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = threads  # 0: onnxruntime's default (the physical cores)
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return lambda: session.run(None, {"a": args[0]})[0]


def int_mm(args):
    import torch

    a = torch.from_numpy((args[0].view(np.int8) if args[0].dtype == np.int8 else
                          (args[0] ^ 0x80).view(np.int8)).reshape(-1, args[0].shape[-1]))
    b = torch.from_numpy(args[3].view(np.int8))
    return lambda: torch._int_mm(a, b)


def bench_qlinear_matmul(options, rows):
    try:
        import torch  # noqa: F401
        have_torch = True
    except ImportError:
        have_torch = False
    for kind in QMM_KINDS:
        for a_shape, b_shape in (QMM_SHAPES[:2] if options.quick else QMM_SHAPES):
            args = qmm_problem(a_shape, b_shape, kind)
            ours = (lambda: cpu_qmm.qlinear_matmul(*args, isa=options.isa))
            ort_run = ort_session(args, options.threads or 0)
            equal = np.array_equal(ours(), ort_run())
            if have_torch:
                t_ours, t_ort, t_mm = median_ms(ours, ort_run, int_mm(args), repeat=options.repeat)
            else:
                (t_ours, t_ort), t_mm = median_ms(ours, ort_run, repeat=options.repeat), float("nan")
            shape = f"{list(a_shape)} x {list(b_shape)}"
            rows.append(("QLinearMatMul " + kind, shape, t_ours, t_ort, t_mm, equal))
            print(f"  {kind:16} {shape:24} ours {t_ours:8.3f} ms  onnxruntime {t_ort:8.3f} ms  "
                  f"ratio {t_ours / t_ort:5.2f}   torch._int_mm {t_mm:8.3f} ms  ratio {t_ours / t_mm:5.2f}  "
                  f"equal to onnxruntime: {equal}", flush=True)


def bench_transposed_b(options, rows):
    for kind in QMM_KINDS:
        for a_shape, b_shape in (QMM_SHAPES[:2] if options.quick else QMM_SHAPES):
            args = qmm_problem(a_shape, b_shape, kind)
            weight = np.ascontiguousarray(args[3].T)  # [N, K]
            args_t = args[:3] + (weight.T,) + args[4:]
            contiguous = (lambda: cpu_qmm.qlinear_matmul(*args, isa=options.isa))
            in_place = (lambda: cpu_qmm.qlinear_matmul(*args_t, isa=options.isa))
            copied = (lambda: cpu_qmm.qlinear_matmul(*args_t[:3], np.ascontiguousarray(args_t[3]), *args_t[4:],
                                                     isa=options.isa))
            equal = np.array_equal(contiguous(), in_place())
            t_in_place, t_contiguous, t_copied = alternating_median_ms(in_place, contiguous, copied,
                                                                       repeat=options.repeat)
            shape = f"{list(a_shape)} x {list(b_shape)}"
            rows.append(("QLinearMatMul transposed b " + kind, shape, t_in_place, t_contiguous, t_copied, equal))
            print(f"  {kind:16} {shape:24} w.T in place {t_in_place:8.3f} ms  b [K, N] {t_contiguous:8.3f} ms  "
                  f"ratio {t_in_place / t_contiguous:5.2f}   copy of w.T first {t_copied:8.3f} ms  "
                  f"ratio {t_in_place / t_copied:5.2f}  equal: {equal}", flush=True)


def bench_dynamic_quant(options, rows):
    rng = np.random.default_rng(1)
    for name, dtype in (("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16)):
        x = rng.standard_normal((4096, 7168)).astype(dtype)
        copy = np.empty_like(x)
        t_ours, t_copy = median_ms(lambda: cpu_dq.dynamic_quant(x, isa=options.isa), lambda: np.copyto(copy, x),
                                   repeat=options.repeat)
        rows.append((f"DynamicQuant {name} -> int8", "[4096, 7168]", t_ours, t_copy, None, None))
        print(f"  {name:9} [4096, 7168]  ours {t_ours:7.3f} ms  np.copyto(x) {t_copy:7.3f} ms  "
              f"ratio {t_ours / t_copy:5.2f}", flush=True)


def bench_fixed_cost(options, rows):
    import torch

    def eager(xt):  # the same arithmetic in torch eager code
        v = xt.float()
        scale = v.abs().amax(-1) / 127
        return torch.round(v / scale[:, None]).clamp_(-128, 127).to(torch.int8), scale

    repeat = max(options.repeat, 200)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # per-call cost: one thread (torch's intra-op threads only add waits on inputs this small)
    try:
        for shape in ((16, 4096), (1, 64)):
            x = np.random.default_rng(2).standard_normal(shape).astype(np.float16)
            xt = torch.from_numpy(x)
            t_np, t_op, t_op_direct, t_eager = (
                1e3 * t for t in median_ms(lambda: aqo.dynamic_quant(x), lambda: aqo.dynamic_quant(xt),
                                           lambda: torch.ops.ascend_quant_ops.dynamic_quant(xt),
                                           lambda: eager(xt), repeat=repeat))
            rows.append(("DynamicQuant per call (us)", str(list(shape)), t_np, t_op, t_eager, t_op_direct))
            print(f"  {str(list(shape)):12} aqo.dynamic_quant: numpy {t_np:6.1f} us, torch tensor {t_op:6.1f} us; "
                  f"torch.ops.ascend_quant_ops.dynamic_quant {t_op_direct:6.1f} us; torch eager {t_eager:6.1f} us",
                  flush=True)
    finally:
        torch.set_num_threads(threads)


def main() -> int:
    global aqo, cpu, cpu_dq, cpu_qmm
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="two QLinearMatMul shapes, no fixed-cost runs")
    parser.add_argument("--markdown", action="store_true", help="also print the results as markdown tables")
    parser.add_argument("--isa", default=None, help="kernel level: portable, avx2, avx512_vnni (default: the best)")
    parser.add_argument("--transposed-b-only", action="store_true",
                        help="only QLinearMatMul with b the transposed view of an [N, K] weight")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads of every library compared (ours, onnxruntime, torch); default: each its own")
    options = parser.parse_args()
    if options.repeat < 1:
        parser.error("--repeat must be at least 1")
    if options.threads is not None:
        if options.threads < 1:
            parser.error("--threads must be at least 1")
        os.environ["AQO_NUM_THREADS"] = str(options.threads)
    import ascend_quant_ops as aqo
    from ascend_quant_ops import cpu
    from ascend_quant_ops.cpu import dynamic_quant as cpu_dq, qlinear_matmul as cpu_qmm
    if options.threads is not None:
        try:
            import torch

            torch.set_num_threads(options.threads)
        except ImportError:
            pass
    if options.isa is not None and options.isa not in cpu.isa_levels():
        parser.error(f"--isa must be one of {cpu.isa_levels()}")
    print(f"kernels: {options.isa or cpu.isa_levels()[-1]}, {cpu.max_threads()} threads; medians of "
          f"{options.repeat} runs; load average {load_average()}")
    rows = []
    if not options.transposed_b_only:
        print("QLinearMatMul")
        bench_qlinear_matmul(options, rows)
    print("QLinearMatMul, b the transposed view of an [N, K] weight")
    bench_transposed_b(options, rows)
    if not options.transposed_b_only:
        print("DynamicQuant")
        bench_dynamic_quant(options, rows)
    if not options.quick and not options.transposed_b_only:
        print("DynamicQuant per-call cost")
        bench_fixed_cost(options, rows)
    print(f"load average at the end: {load_average()}")
    if options.markdown:
        print_markdown(rows)
    return 0


def print_markdown(rows):
    qmm = [r for r in rows if r[0].startswith("QLinearMatMul") and "transposed b" not in r[0]]
    if qmm:
        print("\n| QLinearMatMul | shape | ours ms | onnxruntime ms | ours / onnxruntime | torch._int_mm ms | "
              "ours / torch._int_mm |")
        print("|---|---|---|---|---|---|---|")
        for op, shape, ours, ort_ms, mm, equal in qmm:
            print(f"| {op[len('QLinearMatMul '):]} | {shape} | {ours:.3f} | {ort_ms:.3f} | {ours / ort_ms:.2f} | "
                  f"{mm:.3f} | {ours / mm:.2f} |")
    transposed = [r for r in rows if r[0].startswith("QLinearMatMul transposed b")]
    if transposed:
        print("\n| QLinearMatMul, b = w.T | shape | w.T in place ms | b [K, N] ms | in place / [K, N] | "
              "copy of w.T first ms | in place / copy first |")
        print("|---|---|---|---|---|---|---|")
        for op, shape, in_place, contiguous, copied, equal in transposed:
            print(f"| {op[len('QLinearMatMul transposed b '):]} | {shape} | {in_place:.3f} | {contiguous:.3f} | "
                  f"{in_place / contiguous:.2f} | {copied:.3f} | {in_place / copied:.2f} |")
    dq = [r for r in rows if r[0].startswith("DynamicQuant") and "per call" not in r[0]]
    if dq:
        print("\n| DynamicQuant | shape | ours ms | np.copyto(x) ms | ours / copy |")
        print("|---|---|---|---|---|")
        for op, shape, ours, copy, _, _ in dq:
            print(f"| {op[len('DynamicQuant '):]} | {shape} | {ours:.2f} | {copy:.2f} | {ours / copy:.2f} |")
    fixed = [r for r in rows if "per call" in r[0]]
    if fixed:
        print("\n| DynamicQuant per call | aqo.dynamic_quant, numpy us | aqo.dynamic_quant, torch tensor us | "
              "torch.ops.ascend_quant_ops.dynamic_quant us | torch eager us |")
        print("|---|---|---|---|---|")
        for _, shape, t_np, t_op, t_eager, t_op_direct in fixed:
            print(f"| {shape} | {t_np:.1f} | {t_op:.1f} | {t_op_direct:.1f} | {t_eager:.1f} |")


if __name__ == "__main__":
    sys.exit(main())
