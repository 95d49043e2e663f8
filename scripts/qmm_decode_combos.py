#!/usr/bin/env python3
"""QLinearMatMul decode steps in every operand type combination and zero-point case: GM traffic against the minimum
(a, b, the parameters and y moved once) and the timeline model's estimate against the memory roofline, per SoC.

    PYTHONPATH=python python scripts/qmm_decode_combos.py                     # 1 x 4096 x 4096, every SoC
    PYTHONPATH=python python scripts/qmm_decode_combos.py --soc ascend910b --m 4

Each case runs the kernel in the emulator (bit-exact against the golden is the tests' job; this measures). The
traffic target of the decode step is 1.05x for every combination; the exit status is 1 when a case misses it.
"""
import argparse
import itertools
import sys

import _package_path  # noqa: F401  (developer build or installed package)

from ascend_quant_ops.perf import report  # noqa: E402

TRAFFIC_TARGET = 1.05


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--soc", action="append", help="SoC (repeatable); default all three")
    ap.add_argument("--m", type=int, default=1, help="rows of a (default 1)")
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--n", type=int, default=4096)
    args = ap.parse_args(argv)
    socs = args.soc or ["ascend910b", "ascend310p", "ascend910_95"]
    missed = 0
    print(f"{'soc':13} {'a':6} {'b':6} {'zero points':12} {'path':14} {'traffic':>8} {'time us':>9} {'/ roofline':>10}")
    for soc in socs:
        for at, bt in itertools.product(["uint8", "int8"], repeat=2):
            for zps in ("random", "b0"):
                case = ((args.m, args.k), (args.k, args.n), at, bt, "uint8" if at == "uint8" else "int8", "tensor",
                        "column", zps)
                row = report.qlinear_matmul(soc, case, sensitivity=False, detail=False)
                traffic = row.to_dict()["traffic"]["ratio"]
                missed += traffic > TRAFFIC_TARGET
                time_us = f"{row.time_us:9.1f}" if row.time_us is not None else f"{'-':>9}"
                ratio = f"{row.ratio:9.2f}x" if row.ratio is not None else f"{'-':>10}"
                print(f"{soc:13} {at:6} {bt:6} {zps:12} {row.row.mode:14} {traffic:7.3f}x {time_us} {ratio}",
                      flush=True)
    print(f"traffic target {TRAFFIC_TARGET}x: {'met' if not missed else f'missed by {missed} case(s)'}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
