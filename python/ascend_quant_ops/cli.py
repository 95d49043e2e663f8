"""Command line: `python -m ascend_quant_ops` or `aqo`.

    aqo info [--json]                        versions, backends (usable or why not), the SoC table
    aqo demo [--backend B] [--soc S] [--json]   the operators on the spec examples and a W8A8 layer, printed
    aqo plan --soc S --shape ... [--json]    one request: the plan a SoC would run, or the refusal (tools/plan.py)
    aqo sweep [--count N | --grid] [--json]  plan invariants over many shapes, progress bar, summary (tools/sweep.py)
    aqo precision --backend B [--json]       the precision suite and its HTML report (tools/precision.py)
    aqo perf [--op OP] [--soc S] [--json] [--html PATH]   GM traffic, balance, the timeline estimate (perf/cli.py)

Exit status: 0 success; 1 a failed check (a refused plan, a failing sweep or precision case, a demo result that
differs from the spec); 2 a usage error (argparse's, or a value a tool cannot use: an unknown SoC, an unwritable
output directory, ...). No traceback reaches the terminal (set AQO_TRACEBACK=1 to see one of an internal error).

A subcommand is a module with `add_arguments(parser)` and `run(args) -> int`, listed once in SUBCOMMANDS below.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

import numpy as np

from .errors import AqoError, BackendUnavailableError, ConstraintError
from .tools import UsageError


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
        asym = f"; asymmetric -> {'/'.join(dq['asymmetric_dst_types'])}" if dq["asymmetric_implemented"] else ""
        print(f"    dynamic_quant  on {s['dynamic_quant_cores']} cores: x {'/'.join(dq['x_dtypes'])} -> "
              f"{'/'.join(dq['dst_types'])}{asym}" + (f"; {', '.join(limits)}" if limits else "; no tail limit"))
        print(f"    qlinear_matmul on {s['qlinear_matmul_cores']} cores: a {'/'.join(qmm['a_dtypes'])}, "
              f"b {'/'.join(qmm['b_dtypes'])}, y {'/'.join(qmm['y_dtypes'])}")
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
        try:
            kw["soc"] = aqo.canonical_soc(args.soc, op="dynamic_quant")
        except AqoError as err:
            raise UsageError(f"--soc: {err}") from None
    # The SoC the launches run on decides the tail padding and the W8A8 output type: --soc, else the backend's own
    # (npu: the device's, so that a 310p NPU gets its padding and float32 without --soc; emulator: its default).
    runs_on = kw.get("soc") or _backend_soc(args.backend)
    # Compute first, print after: a backend or SoC that refuses is reported before any input is shown.
    x, h = ex.SEED_004_X, ex.SEED_004_X.shape[-1]
    multiple = _tail_multiple(runs_on)
    if h % multiple:
        # the SoC takes only tails that are a multiple of `multiple` (ascend310p: 32): pad with zeros, which do
        # not change a row's maximum, and show the example's columns
        width = -(-h // multiple) * multiple
        x = np.zeros(x.shape[:-1] + (width,), x.dtype)
        x[..., :h] = ex.SEED_004_X
    y_dq, scale = aqo.dynamic_quant(x, **kw)
    y_dq = np.asarray(y_dq)[..., :h]
    y_qmm = np.asarray(aqo.qlinear_matmul(**ex.ONNX_2D_UINT8, **kw))
    ok_dq = np.array_equal(y_dq, ex.SEED_004_Y)
    ok_qmm = np.array_equal(y_qmm, ex.ONNX_2D_UINT8_Y)
    w8a8 = _w8a8_demo(aqo, ex, kw, runs_on)
    ok_w8a8 = w8a8.get("passes", True)  # a refusal (no kernel on this backend / SoC yet) is reported, not failed
    if args.json:
        print(json.dumps({"backend": args.backend, "soc": kw.get("soc"),
                          "dynamic_quant": {"y": y_dq.tolist(), "scale": np.asarray(scale).tolist(),
                                            "matches_spec": bool(ok_dq)},
                          "qlinear_matmul": {"y": y_qmm.tolist(), "matches_spec": bool(ok_qmm)},
                          "w8a8": {k: v for k, v in w8a8.items() if k != "y"}}, indent=2))
        return 0 if (ok_dq and ok_qmm and ok_w8a8) else 1

    print(f"== DynamicQuant, ATB example (backend {args.backend}{', soc ' + kw['soc'] if args.soc else ''})")
    _show("x", ex.SEED_004_X)
    if h % multiple:
        print(f"(the tail axis is padded with zeros from {h} to {x.shape[-1]}: {runs_on} needs a multiple of "
              f"{multiple})")
    _show("y", y_dq)
    _show("scale", scale)
    print(f"y matches the spec: {ok_dq}")

    print("\n== QLinearMatMul, ONNX example (2-D uint8, per-tensor)")
    for k, v in ex.ONNX_2D_UINT8.items():
        _show(k, v)
    _show("y", y_qmm)
    print(f"y matches the spec: {ok_qmm}")

    out = w8a8["out_dtype"]
    print(f"\n== W8A8: float16 activations -> per-token int8 -> int8 weights with per-channel scales -> {out}")
    print("x: float16 [2, 4, 64]; weight: float32 Linear weight [16, 64], quantized per output channel")
    print("  xq, xs = dynamic_quant(x)                                     # int8 [2, 4, 64], scales [2, 4]")
    print("  wq, ws = dynamic_quant(weight.astype(float16))                # int8 [16, 64], scales [16]")
    print(f"  y = quant_matmul(xq, xs, None, wq.T, ws, out_dtype=\"{out}\")  # [2, 4, 16]")
    if out != "bfloat16":
        print(f"  ({runs_on}'s quant_matmul kernel does not write bfloat16: {out} instead)")
    if "refused" in w8a8:
        print(f"refused: {w8a8['refused']}")
    else:
        _show("y[0, 0]", w8a8["y"][0, 0])
        print(f"relative L2 error against x @ weight.T in float32: {w8a8['relative_l2']:.4g} "
              f"(threshold {ex.W8A8_THRESHOLD:g}): {'ok' if ok_w8a8 else 'FAILED'}")
    return 0 if (ok_dq and ok_qmm and ok_w8a8) else 1


def _w8a8_out_dtype(aqo, soc) -> str:
    """bfloat16, the usual W8A8 output, where the SoC's quant_matmul kernel writes it; else the first type it does
    write (ascend310p: float32 only)."""
    if not soc:
        return "bfloat16"
    outs = aqo.soc_table()[soc]["quant_matmul"]["out_dtypes"]
    return "bfloat16" if "bfloat16" in outs or not outs else outs[0]


def _backend_soc(backend: str):
    """The SoC a backend runs on without --soc: the NPU's (None without a usable one: the launch reports why), the
    emulator's default; None for the CPU (IEEE, no SoC limits)."""
    from ascend_quant_ops import api, npu

    if backend == "npu":
        return npu.detect_soc()
    if backend == "emulator":
        return api.DEFAULT_EMULATOR_SOC
    return None


def _w8a8_demo(aqo, ex, kw, runs_on) -> dict:
    """The W8A8 layer on the demo's backend (on SoC `runs_on`): {"y", "out_dtype", "relative_l2", "passes"}, or
    {"refused": reason, "out_dtype"} where the backend or SoC cannot run it."""
    x, weight = ex.w8a8_example()
    out_dtype = _w8a8_out_dtype(aqo, runs_on)
    try:
        xq, xs = aqo.dynamic_quant(x, **kw)
        wq, ws = aqo.dynamic_quant(weight.astype(np.float16), **kw)
        y = aqo.quant_matmul(xq, xs, None, np.asarray(wq).T, ws, out_dtype=out_dtype, **kw)
    except (ConstraintError, BackendUnavailableError) as err:
        return {"refused": str(err), "out_dtype": out_dtype}
    y = np.asarray(y)
    reference = x.astype(np.float32) @ weight.astype(np.float16).astype(np.float32).T
    error = float(np.linalg.norm(reference - y.astype(np.float32)) / np.linalg.norm(reference))
    return {"y": y, "out_dtype": out_dtype, "relative_l2": error, "passes": error <= ex.W8A8_THRESHOLD}


def _add_demo(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", default="auto", choices=["auto", "cpu", "emulator", "npu"])
    p.add_argument("--soc", default=None, help="ascend910b | ascend310p | ascend910_95 (alias ascend950)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def _add_info(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable output")


class _Local:
    """A subcommand defined in this file."""

    def __init__(self, add, run):
        self.add_arguments, self.run = add, run


# name -> (module path under ascend_quant_ops, or a _Local, help). One line adds a subcommand.
SUBCOMMANDS = {
    "info": (_Local(_add_info, cmd_info), "versions, backends, SoC table"),
    "demo": (_Local(_add_demo, cmd_demo), "run the operators on the spec examples and a W8A8 layer"),
    "plan": ("tools.plan", "one tiling request: the plan a SoC would run, or the constraint it violates"),
    "sweep": ("tools.sweep", "plan invariants over many random or grid shapes per SoC (exit 1 on a failure)"),
    "precision": ("tools.precision", "the precision suite on a backend, with JSON and HTML reports"),
    "perf": ("perf.cli", "GM traffic, balance and the timeline model's estimate against the roofline"),
}


def _module(spec):
    if isinstance(spec, _Local):
        return spec
    return importlib.import_module(f"{__package__}.{spec}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aqo", description="ascend-quant-ops command line")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (spec, help_text) in SUBCOMMANDS.items():
        mod = _module(spec)
        doc = getattr(mod, "__doc__", None) if not isinstance(spec, _Local) else None
        p = sub.add_parser(name, help=help_text, description=doc or help_text,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        mod.add_arguments(p)
        p.set_defaults(run=mod.run, command_parser=p)
    return parser


def _quiet_broken_streams() -> None:
    """After a BrokenPipeError: point each stream whose reader has gone at /dev/null, so that neither the rest of the
    command nor the interpreter's final flush reports it (a stream that still works keeps its output)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())
            os.close(devnull)


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # argparse exits 2 on a usage error it sees itself
    # A reader that goes away (`aqo plan ... | head`) is not a failure of the command: quiet, with the status a
    # process stopped by SIGPIPE has (a failed command keeps its own status).
    try:
        status = _run(args)
    except BrokenPipeError:
        _quiet_broken_streams()
        return 141
    try:
        sys.stdout.flush()  # a broken pipe shows here, not in the interpreter's final flush
    except BrokenPipeError:
        _quiet_broken_streams()
        return status if status != 0 else 141
    return status


def _run(args) -> int:
    try:
        return int(args.run(args))
    except UsageError as err:
        args.command_parser.print_usage(sys.stderr)
        print(f"aqo {args.command}: error: {err}", file=sys.stderr)
        return 2
    except AqoError as err:
        print(f"aqo {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"aqo {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise
    except Exception as err:  # noqa: BLE001 - never a traceback on the terminal
        if os.environ.get("AQO_TRACEBACK"):
            raise
        print(f"aqo {args.command}: internal error: {type(err).__name__}: {err} (set AQO_TRACEBACK=1 for the "
              "traceback and please report it)", file=sys.stderr)
        return 1
