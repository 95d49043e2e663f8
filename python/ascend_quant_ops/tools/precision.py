"""`aqo precision`: run the precision suite on a backend and write JSON + HTML reports.

    aqo precision --backend emulator [--soc ascend910b ...] [--op dynamic_quant] [-k SUBSTRING] [--out DIR]
                  [--list] [--json] [--random N [--seed S]]

--backend npu|emulator|cpu. On "npu" the SoC defaults to the detected one (npu.detect_soc()) and the backend must
be usable (npu.status() says why not); elsewhere every SoC of the SoC table is run unless --soc is given.
--random N adds N cases drawn at random from what each SoC supports (DynamicQuant and QLinearMatMul shapes, dtypes
and modes; --seed S, default 0, gives the same cases on every machine); --random N --only-random runs only them.
Writes DIR/precision_<backend>.json and DIR/precision_<backend>.html (default DIR: precision_report/); DIR is
checked to be writable before any case runs. --json prints the suite's summary and verdicts as JSON.
Exit status: 0 all cases pass, 1 some fail or error, 2 a usage error (unknown SoC, unwritable --out, no case
selected) or the backend is not usable.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .. import tiling
from .._opnames import DYNAMIC_QUANT, QLINEAR_MATMUL, QUANT_MATMUL
from ..errors import ConstraintError
from . import UsageError, require_writable_dir


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", required=True, choices=["npu", "emulator", "cpu"])
    p.add_argument("--soc", action="append", help="SoC to run (repeatable); default: all, or the device's on npu")
    p.add_argument("--op", action="append", choices=[DYNAMIC_QUANT, QLINEAR_MATMUL, QUANT_MATMUL],
                   help="operator (repeatable)")
    p.add_argument("-k", dest="select", action="append", help="run only cases whose id contains this (repeatable)")
    p.add_argument("--out", type=Path, default=Path("precision_report"), help="output directory")
    p.add_argument("--list", action="store_true", help="list the case ids and exit")
    p.add_argument("--json", action="store_true", help="print the summary and every case's verdict as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no per-case progress lines")
    p.add_argument("--random", type=int, default=0, metavar="N",
                   help="add N cases drawn at random over each SoC's supported shapes, dtypes and modes")
    p.add_argument("--seed", type=int, default=0, help="the random cases' seed (default 0)")
    p.add_argument("--only-random", action="store_true", help="run the random cases only")


def run(args) -> int:
    from .. import precision

    socs = None
    if args.soc:
        try:
            socs = [tiling.canonical_soc(s, op="precision") for s in args.soc]
        except ConstraintError as err:
            raise UsageError(f"--soc: {err}") from None
    if args.backend == "npu":
        from .. import npu

        usable, reason = npu.status()
        if not usable and not args.list:
            print(f"backend 'npu' is not usable here: {reason}", file=sys.stderr)
            return 2
        detected = npu.detect_soc()
        if socs is None:
            socs = [detected] if detected else None
        if detected and any(s != detected for s in socs or []) and not args.list:
            raise UsageError(f"--soc {socs} does not match the device ({detected})")
    if args.random < 0:
        raise UsageError(f"--random: a number of cases, got {args.random}")
    if args.only_random and args.random == 0:
        raise UsageError("--only-random needs --random N")
    cases = [] if args.only_random else precision.all_cases(socs, args.op)
    cases += precision.random_cases(args.random, args.seed, socs, args.op)
    if args.select:
        cases = [c for c in cases if any(s in c.id for s in args.select)]
    if args.list:
        if args.json:
            print(json.dumps([{"id": c.id, "kind": c.kind, "title": c.title} for c in cases], indent=2))
        else:
            for c in cases:
                print(f"{c.id}\t{c.kind}\t{c.title}")
        return 0
    if not cases:
        raise UsageError("no case selected (see --list)")
    require_writable_dir(args.out, "--out")  # before the suite runs, not after

    def progress(i, n, r):
        if not args.quiet and not args.json:
            print(f"[{i:3d}/{n}] {r['verdict'].upper():5s} {r['id']}  ({r['seconds']} s)"
                  + ("" if r["verdict"] == "pass" else f"  {r['message']}"), flush=True)

    suite = precision.run_suite(cases, args.backend, progress)
    json_path, html_path = precision.write_reports(suite, args.out)
    s = suite["summary"]
    if args.json:
        print(json.dumps({"summary": s, "reports": [str(json_path), str(html_path)],
                          "cases": [{"id": r["id"], "verdict": r["verdict"], "message": r.get("message", "")}
                                    for r in suite["results"]]}, indent=2, default=str))
    else:
        print(f"precision ({args.backend}): {s['pass']} passed, {s['fail']} failed, {s['error']} errors "
              f"of {s['total']} cases")
        print(f"reports: {json_path} {html_path}")
    return 0 if s["pass"] == s["total"] else 1
