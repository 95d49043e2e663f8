#!/usr/bin/env python3
"""`aqo plan`: the tiling check of one request. Prints the plan a SoC would run (cores used, work per core, the UB
map with every buffer and its offset, passes, notes, the kernel tiling) or the constraint it violates.

Usage:
  aqo plan --soc ascend910b --shape 4096,7168 --dtype bfloat16
  aqo plan --soc ascend310p --shape 64,4001                  # refused: tail not a multiple of 32
  aqo plan --soc ascend950 --shape 8,100000 --dst-type float8_e4m3fn
  aqo plan --op qlinear_matmul --soc ascend910b --a-shape 4,128,256 --b-shape 256,512 \\
      --a-dtype uint8 --b-dtype int8 --y-dtype uint8 --b-param column
  aqo plan --op quant_matmul --soc ascend910b --a-shape 16,4096 --b-shape 4096,4096 --out-dtype bfloat16 \\
      --b-scale column
  aqo plan --soc ascend910b --shape 8,7553 --dtype bfloat16 --json   # machine-readable
  aqo plan --soc ascend910b3 --shape 1000,4096 --core-num 20 --ub-size 131072

Exit status: 0 when the SoC accepts the request, 1 when a constraint is violated, 2 on a usage error (an unknown
SoC or dtype name, a malformed shape).
"""
from __future__ import annotations

import argparse
import json

from .. import dtypes, tiling
from ..errors import ConstraintError
from . import UsageError, shape_arg


# Which operator each option belongs to (the options shared by the two matmuls are in both), with its default. An
# option given for another operator is a usage error, so that e.g. --a-param row (qlinear_matmul's) is never
# dropped from a quant_matmul plan without a word.
DQ, QLM, QM = "dynamic_quant", "qlinear_matmul", "quant_matmul"
OPTION_OPS = {
    "shape": ((DQ,), None), "dtype": ((DQ,), "float16"), "dst_type": ((DQ,), "int8"), "smooth": ((DQ,), False),
    "asymmetric": ((DQ,), False),
    "a_shape": ((QLM, QM), None), "b_shape": ((QLM, QM), None), "a_dtype": ((QLM, QM), "int8"),
    "b_dtype": ((QLM, QM), "int8"), "b_trans": ((QLM, QM), False),
    "a_param_batched": ((QLM, QM), False), "b_param_batched": ((QLM, QM), False), "bias_batched": ((QM,), False),
    "y_dtype": ((QLM,), "int8"), "a_param": ((QLM,), "tensor"), "b_param": ((QLM,), "tensor"),
    "out_dtype": ((QM,), "float32"), "a_scale": ((QM,), "tensor"), "b_scale": ((QM,), "tensor"),
    "a_zero_point": ((QM,), "none"), "b_zero_point": ((QM,), "none"), "bias": ((QM,), "none"),
}
# What the other operator calls an option, for the usage error.
COUNTERPART = {
    "y_dtype": "--out-dtype", "out_dtype": "--y-dtype",
    "a_param": "--a-scale row and --a-zero-point row", "b_param": "--b-scale column and --b-zero-point column",
    "a_scale": "--a-param row (scale and zero point together)", "b_scale": "--b-param column",
    "a_zero_point": "--a-param row", "b_zero_point": "--b-param column",
}


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--op", choices=[DQ, QLM, QM], default=DQ)
    ap.add_argument("--soc", required=True, help="SoC name: ascend910b, ascend310p, ascend910_95 / ascend950, "
                                                 "or a variant such as ascend910b3")
    ap.add_argument("--json", action="store_true", help="print JSON (plan or violation) instead of text")
    ap.add_argument("--core-num", type=int, default=None, help="override the core count (default: SoC table)")
    ap.add_argument("--ub-size", type=int, default=None, help="override the UB size in bytes (default: SoC table)")
    g = ap.add_argument_group("dynamic_quant")
    g.add_argument("--shape", type=shape_arg, help="x shape, e.g. 4096,7168")
    g.add_argument("--dtype", help="x dtype: float16 | bfloat16 (default float16)")
    g.add_argument("--dst-type",
                   help="int8 | hifloat8 | float8_e4m3fn | float8_e5m2, or an ATB code 2/34/35/36; with "
                        "--asymmetric also uint8 (ONNX DynamicQuantizeLinear's zero point) (default int8)")
    g.add_argument("--smooth", action="store_true", default=None, help="with smooth_scales [H]")
    g.add_argument("--asymmetric", action="store_true", default=None,
                   help="asymmetric quantization: a per-row offset (int8 and the float types) or zero point (uint8) "
                        "beside the scale")
    q = ap.add_argument_group("qlinear_matmul and quant_matmul")
    q.add_argument("--a-shape", type=shape_arg, help="a shape [..., M, K]")
    q.add_argument("--b-shape", type=shape_arg,
                   help="b shape [..., K, N], as the product sees it (also with --b-trans)")
    q.add_argument("--a-dtype", help="int8 | uint8 (default int8)")
    q.add_argument("--b-dtype", help="int8 | uint8 (default int8)")
    q.add_argument("--b-trans", action="store_true", default=None,
                   help="b is the transposed view of a weight stored [..., N, K]; --b-shape stays [..., K, N]")
    q.add_argument("--a-param-batched", action="store_true", default=None,
                   help="a's per-row vectors carry a's batch dims [..., M] (default: one [M] vector for every matrix)")
    q.add_argument("--b-param-batched", action="store_true", default=None,
                   help="b's per-column vectors carry b's batch dims [..., N] (default: one [N] vector)")
    ql = ap.add_argument_group("qlinear_matmul")
    ql.add_argument("--y-dtype", help="y dtype (default int8)")
    ql.add_argument("--a-param", choices=["tensor", "row"], help="a's scale and zero point per tensor or per row")
    ql.add_argument("--b-param", choices=["tensor", "column"], help="b's scale and zero point per tensor or column")
    m = ap.add_argument_group("quant_matmul")
    m.add_argument("--out-dtype", help="float32 | float16 | bfloat16 (default float32)")
    m.add_argument("--a-scale", choices=["tensor", "row"], help="default tensor")
    m.add_argument("--b-scale", choices=["tensor", "column"], help="default tensor")
    m.add_argument("--a-zero-point", choices=["none", "tensor", "row"], help="default none")
    m.add_argument("--b-zero-point", choices=["none", "tensor", "column"], help="default none")
    m.add_argument("--bias", choices=["none", "tensor", "column"], help="default none")
    m.add_argument("--bias-batched", action="store_true", default=None,
                   help="the per-column bias carries the batch dims [..., N] (default: one [N] vector)")


def _apply_option_ops(args) -> None:
    """Usage error for an option of another operator; then the defaults of the chosen one's."""
    for name, (ops, default) in OPTION_OPS.items():
        value = getattr(args, name)
        if value is not None and args.op not in ops:
            flag = "--" + name.replace("_", "-")
            hint = f"; {args.op} takes {COUNTERPART[name]}" if name in COUNTERPART else ""
            raise UsageError(f"{flag} is an option of {' and '.join(ops)}, not of {args.op}{hint}")
        if value is None:
            setattr(args, name, default)


def _check_names(args) -> None:
    """Usage errors (exit 2) for names the tool cannot even ask about: an unknown SoC or dtype name."""
    _apply_option_ops(args)
    try:
        tiling.canonical_soc(args.soc, op=args.op)
    except ConstraintError as err:
        raise UsageError(f"--soc: {err}") from None
    if args.op == DQ:
        names = [("--dtype", args.dtype), ("--dst-type", args.dst_type)]
    elif args.op == QLM:
        names = [("--a-dtype", args.a_dtype), ("--b-dtype", args.b_dtype), ("--y-dtype", args.y_dtype)]
    else:
        names = [("--a-dtype", args.a_dtype), ("--b-dtype", args.b_dtype), ("--out-dtype", args.out_dtype)]
    for flag, value in names:
        if flag == "--dst-type" and value.isdigit():
            continue
        if dtypes.dtype_name(value) is None:
            raise UsageError(f"{flag}: unknown dtype {value!r}; known: {', '.join(dtypes.TABLE)}")
    if args.op == DQ and args.shape is None:
        raise UsageError("--shape is required for dynamic_quant")
    if args.op != DQ and (args.a_shape is None or args.b_shape is None):
        raise UsageError(f"--a-shape and --b-shape are required for {args.op}")


def run(args) -> int:
    _check_names(args)
    try:
        if args.op == DQ:
            dst = int(args.dst_type) if args.dst_type.isdigit() else args.dst_type
            plan = tiling.plan_dynamic_quant(args.shape, args.dtype, soc=args.soc, dst_type=dst, smooth=args.smooth,
                                             asymmetric=args.asymmetric, core_num=args.core_num,
                                             ub_size=args.ub_size)
        elif args.op == QLM:
            plan = tiling.plan_qlinear_matmul(args.a_shape, args.b_shape, soc=args.soc, a_dtype=args.a_dtype,
                                              b_dtype=args.b_dtype, y_dtype=args.y_dtype, a_param=args.a_param,
                                              b_param=args.b_param, b_trans=args.b_trans,
                                              a_param_batched=args.a_param_batched,
                                              b_param_batched=args.b_param_batched, core_num=args.core_num,
                                              ub_size=args.ub_size)
        else:
            def layout(value):
                return None if value == "none" else value

            plan = tiling.plan_quant_matmul(args.a_shape, args.b_shape, soc=args.soc, a_dtype=args.a_dtype,
                                            b_dtype=args.b_dtype, out_dtype=args.out_dtype, a_scale=args.a_scale,
                                            b_scale=args.b_scale, a_zero_point=layout(args.a_zero_point),
                                            b_zero_point=layout(args.b_zero_point), bias=layout(args.bias),
                                            b_trans=args.b_trans, a_param_batched=args.a_param_batched,
                                            b_param_batched=args.b_param_batched, bias_batched=args.bias_batched,
                                            core_num=args.core_num, ub_size=args.ub_size)
    except ConstraintError as err:
        # the API's advice in the command line's words
        for name in ("core_num", "ub_size"):
            if err.suggestion:
                err.suggestion = err.suggestion.replace(f"pass {name}=None", f"omit --{name.replace('_', '-')}")
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
        raise UsageError(str(err)) from None
    if args.json:
        d = plan.to_dict()
        d["ok"] = True
        print(json.dumps(d, indent=2, default=list))
    else:
        print(plan)
    return 0
