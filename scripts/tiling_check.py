#!/usr/bin/env python3
"""Tiling check of one request: prints the plan a SoC would run (cores used, work per core, the UB map with every
buffer and its offset, passes, notes, the kernel tiling) or the constraint it violates.

Usage:
  scripts/tiling_check.py --soc ascend910b --shape 4096,7168 --dtype bfloat16
  scripts/tiling_check.py --soc ascend310p --shape 64,4001                  # refused: tail not a multiple of 32
  scripts/tiling_check.py --soc ascend950 --shape 8,100000 --dst-type float8_e4m3fn
  scripts/tiling_check.py --op qlinear_matmul --soc ascend910b --a-shape 4,128,256 --b-shape 256,512 \\
      --a-dtype uint8 --b-dtype int8 --y-dtype uint8 --b-param column
  scripts/tiling_check.py --soc ascend910b --shape 8,7553 --dtype bfloat16 --json   # machine-readable
  scripts/tiling_check.py --soc ascend910b3 --shape 1000,4096 --core-num 20 --ub-size 131072

Exit status: 0 when the SoC accepts the request, 1 when a constraint is violated, 2 on a usage error.
Run with PYTHONPATH=python from the repository root (or with the package installed).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import _package_path  # noqa: E402,F401  (developer build or installed package)

from ascend_quant_ops import tiling  # noqa: E402
from ascend_quant_ops.errors import ConstraintError  # noqa: E402


def _shape(text: str):
    body = text.strip().strip("[]()").replace(" ", "")
    if not body:
        return []
    try:
        return [int(t) for t in body.replace("x", ",").split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"a shape is comma-separated integers, e.g. 4096,7168; got {text!r}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--op", choices=["dynamic_quant", "qlinear_matmul"], default="dynamic_quant")
    ap.add_argument("--soc", required=True, help="SoC name: ascend910b, ascend310p, ascend910_95 / ascend950, "
                                                 "or a variant such as ascend910b3")
    ap.add_argument("--json", action="store_true", help="print JSON (plan or violation) instead of text")
    ap.add_argument("--core-num", type=int, default=None, help="override the core count (default: SoC table)")
    ap.add_argument("--ub-size", type=int, default=None, help="override the UB size in bytes (default: SoC table)")
    g = ap.add_argument_group("dynamic_quant")
    g.add_argument("--shape", type=_shape, help="x shape, e.g. 4096,7168")
    g.add_argument("--dtype", default="float16", help="x dtype: float16 | bfloat16 (default float16)")
    g.add_argument("--dst-type", default="int8",
                   help="int8 | hifloat8 | float8_e4m3fn | float8_e5m2, or an ATB code 2/34/35/36 (default int8)")
    g.add_argument("--smooth", action="store_true", help="with smooth_scales [H]")
    g.add_argument("--asymmetric", action="store_true", help="asymmetric quantization (refused: not implemented)")
    q = ap.add_argument_group("qlinear_matmul")
    q.add_argument("--a-shape", type=_shape, help="a shape [..., M, K]")
    q.add_argument("--b-shape", type=_shape, help="b shape [..., K, N]")
    q.add_argument("--a-dtype", default="int8")
    q.add_argument("--b-dtype", default="int8")
    q.add_argument("--y-dtype", default="int8")
    q.add_argument("--a-param", default="tensor", help="tensor | row")
    q.add_argument("--b-param", default="tensor", help="tensor | column")
    args = ap.parse_args(argv)

    try:
        if args.op == "dynamic_quant":
            if args.shape is None:
                ap.error("--shape is required for dynamic_quant")
            dst = int(args.dst_type) if args.dst_type.isdigit() else args.dst_type
            plan = tiling.plan_dynamic_quant(args.shape, args.dtype, soc=args.soc, dst_type=dst, smooth=args.smooth,
                                             asymmetric=args.asymmetric, core_num=args.core_num,
                                             ub_size=args.ub_size)
        else:
            if args.a_shape is None or args.b_shape is None:
                ap.error("--a-shape and --b-shape are required for qlinear_matmul")
            plan = tiling.plan_qlinear_matmul(args.a_shape, args.b_shape, soc=args.soc, a_dtype=args.a_dtype,
                                              b_dtype=args.b_dtype, y_dtype=args.y_dtype, a_param=args.a_param,
                                              b_param=args.b_param, core_num=args.core_num, ub_size=args.ub_size)
    except ConstraintError as err:
        if args.json:
            print(json.dumps({"ok": False, "violation": err.to_dict()}, indent=2, default=str))
        else:
            print(f"REFUSED ({type(err).__name__})")
            print(f"  op:         {err.op}")
            print(f"  soc:        {err.soc or '-'}")
            print(f"  argument:   {err.argument}")
            print(f"  constraint: {err.constraint}")
            print(f"  limit:      {err.limit if err.limit is not None else err.expected}")
            print(f"  actual:     {err.actual}")
            print(f"  suggestion: {err.suggestion or '-'}")
        return 1
    except NotImplementedError as err:
        print(f"tiling_check: {err}", file=sys.stderr)
        return 2
    if args.json:
        d = plan.to_dict()
        d["ok"] = True
        print(json.dumps(d, indent=2, default=list))
    else:
        print(plan)
    return 0


if __name__ == "__main__":
    sys.exit(main())
