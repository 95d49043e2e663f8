"""Command line: `python -m ascend_quant_ops` or `aqo`.

    aqo info                      versions, backends (usable or why not), the SoC table
    aqo demo [--backend B] [--soc S]   both operators on the spec examples, inputs and outputs printed
    aqo perf [--op OP] [--soc S] [--json] [--html PATH]   GM traffic, balance and the timeline estimate
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys

import numpy as np


def _version(module: str) -> str:
    if module == "torch":
        # through the package's one cached torch import: a second `import torch` after a failed first one (a
        # torch_npu without CANN) fails differently and would hide the real reason from the backend report
        from ._torch import import_torch

        torch, why = import_torch()
        return torch.__version__ if torch is not None else f"not usable ({why})".splitlines()[0][:160]
    try:
        mod = importlib.import_module(module)
    except Exception as exc:  # noqa: BLE001 - report any import failure as text
        return f"not usable ({type(exc).__name__}: {exc})".splitlines()[0][:120]
    return getattr(mod, "__version__", "installed")


def cmd_info(args) -> int:
    import ascend_quant_ops as aqo

    info = {
        "ascend_quant_ops": aqo.__version__,
        "python": sys.version.split()[0],
        "versions": {m: _version(m) for m in ("numpy", "ml_dtypes", "en_dtypes", "torch", "onnxruntime")},
        "backends": aqo.backend_info(),
    }
    try:
        info["socs"] = aqo.soc_table()
    except Exception as exc:  # noqa: BLE001
        info["socs"] = f"unavailable: {exc}"
    if args.json:
        print(json.dumps(info, indent=2, default=str))
        return 0
    print(f"ascend_quant_ops {info['ascend_quant_ops']} (python {info['python']})")
    for m, v in info["versions"].items():
        print(f"  {m:12s} {v}")
    print("backends:")
    for name, b in info["backends"].items():
        print(f"  {name:9s} {'usable' if b['usable'] else 'NOT usable'}: {b['reason']}")
    print("SoCs:")
    socs = info["socs"]
    if isinstance(socs, str):
        print("  " + socs)
        return 0
    for name, s in socs.items():
        dq, qmm = s["dynamic_quant"], s["qlinear_matmul"]
        limits = []
        for dt in ("float16", "bfloat16"):
            if dt in dq["x_dtypes"] and dq[f"max_tail_{dt}"]:
                limits.append(f"{dt} tail <= {dq[f'max_tail_{dt}']}")
        if dq["tail_multiple"] > 1:
            limits.append(f"tail multiple of {dq['tail_multiple']}")
        print(f"  {name}: {s['vector_cores']} vector / {s['cube_cores']} cube cores, UB {s['ub_bytes']} B, "
              f"DataCopyPad {'yes' if s['has_data_copy_pad'] else 'no'}")
        print(f"    dynamic_quant  x {'/'.join(dq['x_dtypes'])} -> {'/'.join(dq['dst_types'])}"
              + (f"; {', '.join(limits)}" if limits else "; no tail limit"))
        print(f"    qlinear_matmul a {'/'.join(qmm['a_dtypes'])}, b {'/'.join(qmm['b_dtypes'])}, "
              f"y {'/'.join(qmm['y_dtypes'])}")
    return 0


def _show(name: str, a) -> None:
    a = np.asarray(a)
    body = np.array2string(a, max_line_width=110, precision=8, separator=", ")
    print(f"{name} ({a.dtype}, shape {list(a.shape)}) =\n{body}")


def _tail_multiple(soc) -> int:
    """The SoC table's DynamicQuant tail-axis multiple (1 without a SoC)."""
    if not soc:
        return 1
    import ascend_quant_ops as aqo

    return int(aqo.soc_table()[aqo.canonical_soc(soc, op="dynamic_quant")]["dynamic_quant"]["tail_multiple"])


def cmd_demo(args) -> int:
    import ascend_quant_ops as aqo
    from ascend_quant_ops import examples as ex

    kw = {"backend": args.backend}
    if args.soc:
        kw["soc"] = args.soc
    print(f"== DynamicQuant, seed 004 example (backend {args.backend}{', soc ' + args.soc if args.soc else ''})")
    _show("x", ex.SEED_004_X)
    x, h = ex.SEED_004_X, ex.SEED_004_X.shape[-1]
    multiple = _tail_multiple(args.soc)
    if h % multiple:
        # the SoC takes only tails that are a multiple of `multiple` (ascend310p: 32): pad with zeros, which do
        # not change a row's maximum, and show the example's columns
        width = -(-h // multiple) * multiple
        print(f"(the tail axis is padded with zeros from {h} to {width}: {args.soc} needs a multiple of {multiple})")
        x = np.zeros(x.shape[:-1] + (width,), x.dtype)
        x[..., :h] = ex.SEED_004_X
    y, scale = aqo.dynamic_quant(x, **kw)
    y = y[..., :h]
    _show("y", y)
    _show("scale", scale)
    ok_dq = np.array_equal(np.asarray(y), ex.SEED_004_Y)
    print(f"y matches the spec: {ok_dq}")

    print("\n== QLinearMatMul, ONNX example (2-D uint8, per-tensor)")
    for k, v in ex.ONNX_2D_UINT8.items():
        _show(k, v)
    y = aqo.qlinear_matmul(**ex.ONNX_2D_UINT8, **kw)
    _show("y", y)
    ok_qmm = np.array_equal(y, ex.ONNX_2D_UINT8_Y)
    print(f"y matches the spec: {ok_qmm}")
    return 0 if (ok_dq and ok_qmm) else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="aqo", description="ascend-quant-ops command line")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("info", help="versions, backends, SoC table")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_info)
    p = sub.add_parser("demo", help="run both operators on the spec examples")
    p.add_argument("--backend", default="auto", choices=["auto", "cpu", "emulator", "npu"])
    p.add_argument("--soc", default=None, help="ascend910b | ascend310p | ascend910_95 (alias ascend950)")
    p.set_defaults(func=cmd_demo)
    p = sub.add_parser("perf", help="GM traffic, balance and the timeline model's estimate against the roofline")
    from .perf import cli as perf_cli

    perf_cli.add_arguments(p)
    p.set_defaults(func=perf_cli.main)
    args = parser.parse_args(argv)
    from .errors import AqoError

    try:
        return args.func(args)
    except AqoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
