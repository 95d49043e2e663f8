#!/usr/bin/env python3
"""Run the precision suite on a backend and write JSON + HTML reports.

    python scripts/precision_test.py --backend emulator [--soc ascend910b ...] [--op dynamic_quant]
                                     [-k SUBSTRING] [--out DIR] [--list]

--backend npu|emulator|cpu. On "npu" the SoC defaults to the detected one (npu.detect_soc()) and the backend must
be usable (npu.status() says why not); elsewhere every SoC of the SoC table is run unless --soc is given.
Writes DIR/precision_<backend>.json and DIR/precision_<backend>.html (default DIR: precision_report/).
Exit status: 0 all cases pass, 1 some fail or error, 2 the backend is not usable.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import _package_path  # noqa: E402,F401  (developer build or installed package)


def main(argv=None) -> int:
    from ascend_quant_ops import precision
    from ascend_quant_ops.precision import cases as case_mod

    p = argparse.ArgumentParser(description="Precision suite: compare a backend with the golden (FACTS 8 criteria)")
    p.add_argument("--backend", required=True, choices=["npu", "emulator", "cpu"])
    p.add_argument("--soc", action="append", help="SoC to run (repeatable); default: all, or the device's on npu")
    p.add_argument("--op", action="append", choices=[case_mod.DQ, case_mod.QMM], help="operator (repeatable)")
    p.add_argument("-k", dest="select", action="append", help="run only cases whose id contains this (repeatable)")
    p.add_argument("--out", type=Path, default=Path("precision_report"), help="output directory")
    p.add_argument("--list", action="store_true", help="list the case ids and exit")
    p.add_argument("-q", "--quiet", action="store_true", help="no per-case progress lines")
    args = p.parse_args(argv)

    socs = args.soc
    if args.backend == "npu":
        from ascend_quant_ops import npu

        usable, reason = npu.status()
        if not usable and not args.list:
            print(f"backend 'npu' is not usable here: {reason}", file=sys.stderr)
            return 2
        detected = npu.detect_soc()
        if socs is None:
            socs = [detected] if detected else None
        if detected and any(s != detected for s in socs or []) and not args.list:
            print(f"--soc {socs} does not match the device ({detected})", file=sys.stderr)
            return 2
    cases = precision.all_cases(socs, args.op)
    if args.select:
        cases = [c for c in cases if any(s in c.id for s in args.select)]
    if args.list:
        for c in cases:
            print(f"{c.id}\t{c.kind}\t{c.title}")
        return 0
    if not cases:
        print("no case selected", file=sys.stderr)
        return 1

    def progress(i, n, r):
        if not args.quiet:
            print(f"[{i:3d}/{n}] {r['verdict'].upper():5s} {r['id']}  ({r['seconds']} s)"
                  + ("" if r["verdict"] == "pass" else f"  {r['message']}"), flush=True)

    suite = precision.run_suite(cases, args.backend, progress)
    json_path, html_path = precision.write_reports(suite, args.out)
    s = suite["summary"]
    print(f"precision ({args.backend}): {s['pass']} passed, {s['fail']} failed, {s['error']} errors "
          f"of {s['total']} cases")
    print(f"reports: {json_path} {html_path}")
    return 0 if s["pass"] == s["total"] else 1


if __name__ == "__main__":
    sys.exit(main())
