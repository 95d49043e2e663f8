"""aqo perf: GM traffic, per-core balance and the timeline model's estimate of each launch against the memory
roofline, with the targets each operator is held to (exit 1 when one is missed)."""
# Light on purpose: importing this module loads neither _native nor the emulator (the parser is built for --help).
from __future__ import annotations

import argparse


def shape_arg(text: str):
    """"64x4096" -> (64, 4096): positive integers joined by x."""
    parts = text.lower().split("x")
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        dims = ()
    if len(dims) < 2 or any(d <= 0 for d in dims):
        raise argparse.ArgumentTypeError(f"{text!r}: expected positive integers joined by x, e.g. 64x4096 or "
                                         "16x4096x4096")
    return dims


def scale_arg(text: str):
    """"dma_latency_cycles=2" -> ("dma_latency_cycles", 2.0)."""
    name, sep, value = text.partition("=")
    try:
        factor = float(value)
    except ValueError:
        factor = float("nan")
    if not sep or not name or not factor > 0 or factor == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected PARAMETER=FACTOR with a finite factor > 0, e.g. "
                                         "dma_latency_cycles=2")
    return name, factor


# `aqo perf --shape` runs the launch in the emulator on this machine (data, kernel and trace): shapes beyond these
# would take hours or more memory than a workstation has (the emulator holds a few copies of each operand). Each is
# twice or more the largest case of the report's own lists (4096 x 4096 x 4096: 2^36 multiply-accumulates, 48 MiB of
# matrices; 64 x 60000 elements).
PERF_SHAPE_MAX_ELEMENTS = 1 << 28      # dynamic_quant: R x H
PERF_SHAPE_MAX_MACS = 1 << 37          # qlinear_matmul: M x K x N
PERF_SHAPE_MAX_MATRIX_BYTES = 1 << 31  # qlinear_matmul: a, b and y, int8 (per-tensor parameters)


def check_shape_size(op: str, dims) -> str:
    """Why the emulator cannot run this --shape here ("" when it can)."""
    text = "x".join(map(str, dims))
    where = "aqo perf emulates the launch on this machine's CPU"
    if op == "qlinear_matmul":
        m, k, n = dims
        macs, matrices = m * k * n, m * k + k * n + m * n
        if macs > PERF_SHAPE_MAX_MACS or matrices > PERF_SHAPE_MAX_MATRIX_BYTES:
            # the same K x N with fewer rows of a, where that fits
            rows = min(PERF_SHAPE_MAX_MACS // (k * n), (PERF_SHAPE_MAX_MATRIX_BYTES - k * n) // (k + n)) \
                if k * n <= PERF_SHAPE_MAX_MATRIX_BYTES else 0
            hint = (f"; e.g. {min(rows, m)}x{k}x{n}" if rows >= 1 else
                    "; K x N alone is past the bound, so try a smaller K or N")
            if macs > PERF_SHAPE_MAX_MACS:
                return (f"--shape {text}: {macs} multiply-accumulates, more than 2^37 = {PERF_SHAPE_MAX_MACS} "
                        f"({where}; the report's largest case is 4096x4096x4096){hint}")
            return (f"--shape {text}: {matrices} bytes of a, b and y, more than 2 GiB ({where}){hint}")
        return ""
    elements = 1
    for d in dims:
        elements *= d
    if elements > PERF_SHAPE_MAX_ELEMENTS:
        hint = "; fewer rows keep each row's work" if dims[-1] <= PERF_SHAPE_MAX_ELEMENTS else ""
        return (f"--shape {text}: {elements} elements, more than 2^28 = {PERF_SHAPE_MAX_ELEMENTS} ({where}){hint}")
    return ""


def add_arguments(ap) -> None:
    ap.add_argument("--op", choices=["dynamic_quant", "qlinear_matmul"], action="append",
                    help="operator(s); default both")
    ap.add_argument("--soc", action="append", help="SoC(s); default every SoC of the operator's case list")
    ap.add_argument("--shape", type=shape_arg, help="one shape: RxH for dynamic_quant (e.g. 64x4096), MxKxN for qlinear_matmul "
                                    "(int8, per-tensor, zero points 0)")
    ap.add_argument("--dtype", default="float16", help="x dtype of dynamic_quant with --shape")
    ap.add_argument("--dst", default="int8", help="dst type of dynamic_quant with --shape")
    ap.add_argument("--smooth", action="store_true", help="dynamic_quant with smooth scales")
    ap.add_argument("--asymmetric", action="store_true",
                    help="dynamic_quant in the asymmetric mode (y, scale, offset; --dst uint8: the zero-point mode)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="skip the 4096 x 4096 x 4096 matmuls")
    ap.add_argument("--no-sensitivity", action="store_true",
                    help="skip the reruns at 0.5x and 2x of every derived or assumed parameter")
    ap.add_argument("--scale", type=scale_arg, action="append", metavar="PARAMETER=FACTOR",
                    help="run the model with a timing parameter multiplied (repeatable), e.g. gm_bandwidth_gbps=0.8")
    ap.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    ap.add_argument("--html", metavar="PATH", help="write an HTML report with a timeline picture per launch")
    ap.add_argument("--progress", action="store_true", help="one line per launch on stderr")


def main(args) -> int:
    from ..tools import UsageError

    if args.shape is not None:
        ops = args.op or []
        if len(ops) != 1:
            raise UsageError("--shape needs exactly one --op (dynamic_quant takes RxH..., qlinear_matmul MxKxN)")
        if ops[0] == "qlinear_matmul" and len(args.shape) != 3:
            raise UsageError(f"--shape for qlinear_matmul is MxKxN, got {'x'.join(map(str, args.shape))}")
        too_big = check_shape_size(ops[0], args.shape)
        if too_big:
            raise UsageError(too_big)
    from .model import timing_table
    from .report import main as report_main

    if args.scale:
        known = timing_table("ascend910b")
        for name, _ in args.scale:
            if name not in known:
                raise UsageError(f"--scale: unknown timing parameter {name!r}; known: {', '.join(known)}")
    return report_main(args)


def run(args) -> int:
    """The `aqo perf` subcommand (cli.SUBCOMMANDS)."""
    return main(args)
