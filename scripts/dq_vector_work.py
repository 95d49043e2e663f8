#!/usr/bin/env python3
"""DynamicQuant's vector work and scalar synchronisation, counted from the emulator's instruction trace.

For each SoC's timeline target case (ascend_quant_ops.perf.report.DQ_TARGET_CASES, or --shape) the kernel runs in
the emulator and its trace (op_kernel/emulator/include/emulator/emu_trace.h) is counted on the core with the most
rows:
  V instr / row      vector instructions per row of x
  V passes / elem    vector repeats per 64 elements (one float32 pass over the data = 1.0), every class
  V cycles / elem    the timeline model's busy cycles of the V pipe per element (the SoC table's parameters)
  MTE2 cycles / elem the same for MTE2 (the reads of x): the issue's target is V <= 0.5 x MTE2 for tails >= 1024
  V->S / row         scalar waits for the vector unit (WaitFlag V_S) per row
  barrier V / row    PipeBarrier<PIPE_V> per row
  S->V / row         vector waits for the scalar unit (WaitFlag S_V) per row

    PYTHONPATH=python python scripts/dq_vector_work.py [--soc S] [--shape R,H --dtype float16 --dst int8] [--json]

No target is checked here; `aqo perf` reports the estimates against the roofline.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from ascend_quant_ops import _native, dtypes, emulator
from ascend_quant_ops.perf import model
from ascend_quant_ops.perf.report import DQ_TARGET_CASES


def _input(shape, dtype):
    rng = np.random.default_rng(0)
    return rng.standard_normal(shape).astype(dtypes.numpy_dtype(dtype))


def count(soc: str, shape, dtype: str, dst: str, smooth: bool = False, asymmetric: bool = False) -> dict:
    x = _input(shape, dtype)
    s = _input((shape[-1],), dtype) if smooth else None
    emulator.dynamic_quant(x, s, dst_type=dst, asymmetric=asymmetric, soc=soc)
    trace = emulator.last_run_trace()
    timeline = _native.timeline_last_run({}, -2)
    stats = emulator.last_run_stats()
    work = stats["plan"]
    cores = trace["cores"]
    # the core with the most rows: the one with the most MTE2 bytes
    def mte2_bytes(core):
        return sum(e["count"] for e in core["events"] if e["kind"] == "instr" and e["pipe"] == "MTE2")
    idx = max(range(len(cores)), key=lambda i: (not cores[i]["is_cube"], mte2_bytes(cores[i])))
    ev = cores[idx]["events"]
    elem_bytes = dtypes.TABLE[dtype]["bytes"]
    # x's elements on that core: its MTE2 bytes less the smooth row it reads once (resident mode)
    elements = (mte2_bytes(cores[idx]) - (shape[-1] * elem_bytes if smooth else 0)) / elem_bytes
    rows = elements / shape[-1]
    v = [e for e in ev if e["kind"] == "instr" and e["pipe"] == "V"]
    repeats = sum(e["bursts"] for e in v)
    waits = lambda src, dst: sum(1 for e in ev if e["kind"] == "wait_flag" and e["src_pipe"] == src and e["dst_pipe"] == dst)
    barriers = sum(1 for e in ev if e["kind"] == "barrier" and e["pipe"] == "V")
    pipes = timeline["cores"][idx]["pipes"]
    return {
        "soc": soc, "case": f"{'x'.join(map(str, shape))} {dtype}->{dst}" + (" smooth" if smooth else "")
        + (" asymmetric" if asymmetric else ""),
        "mode": work.get("mode"), "rows_on_core": rows,
        "v_instr_per_row": len(v) / rows, "v_passes_per_elem": repeats / (elements / 64),
        "v_cycles_per_elem": pipes["V"]["busy"] / elements, "mte2_cycles_per_elem": pipes["MTE2"]["busy"] / elements,
        "v_s_per_row": waits("V", "S") / rows, "barrier_v_per_row": barriers / rows, "s_v_per_row": waits("S", "V") / rows,
        "est_over_roofline": None,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--soc", action="append")
    ap.add_argument("--shape")
    ap.add_argument("--dtype", default="float16")
    ap.add_argument("--dst", default="int8")
    ap.add_argument("--smooth", action="store_true")
    ap.add_argument("--asymmetric", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    socs = args.soc or list(DQ_TARGET_CASES)
    rows = []
    for soc in socs:
        cases = ([(tuple(int(v) for v in args.shape.split(",")), args.dtype, args.dst)] if args.shape
                 else DQ_TARGET_CASES[soc])
        for shape, dtype, dst in cases:
            rows.append(count(soc, shape, dtype, dst, args.smooth, args.asymmetric))
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
        return 0
    head = ("soc", "case", "mode", "V instr/row", "V passes/elem", "V cyc/elem", "MTE2 cyc/elem", "V->S/row",
            "barrier V/row", "S->V/row")
    print(" | ".join(head))
    for r in rows:
        print(" | ".join([r["soc"], r["case"], str(r["mode"]), f"{r['v_instr_per_row']:.1f}",
                          f"{r['v_passes_per_elem']:.2f}", f"{r['v_cycles_per_elem']:.3f}",
                          f"{r['mte2_cycles_per_elem']:.3f}", f"{r['v_s_per_row']:.2f}",
                          f"{r['barrier_v_per_row']:.1f}", f"{r['s_v_per_row']:.2f}"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
