#!/usr/bin/env python3
"""Measured data movement of the kernels in the AscendC CPU emulator (not a test: a report).

For each operator section, SoC and shape the kernel runs in the emulator with the host plan's tiling, and the
emulator's per-core counters give:
  traffic   GM bytes moved (read + written) / the minimum (every input byte read once, every output byte
            written once);
  balance   mean / max of the per-core work (rows for DynamicQuant), next to the best any split of whole work
            units can reach for that shape;
  UB        the highest UB use of any core / the SoC's UB;
  DMA       GM<->UB copy operations (all cores).
Targets (issue 4): traffic 1.00x for single-pass shapes and <= 1.7x for multi-pass rows; balance >= 0.95 whenever
work >= 4 x cores (where whole rows allow it: see the "best" column).

    PYTHONPATH=python python scripts/data_movement.py                      # every section, default shapes
    PYTHONPATH=python python scripts/data_movement.py --op dynamic_quant --soc ascend310p --shape 64x4096

Adding an operator: write a function `rows_<op>(args) -> list of Row` and register it in SECTIONS.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__), "..", "python"))

from ascend_quant_ops import dtypes, tiling  # noqa: E402


@dataclass
class Row:
    op: str
    soc: str
    case: str           # shape and dtypes, human-readable
    mode: str           # the plan's mode
    cores: int          # used cores
    gm_bytes: int       # read + written, all cores (DMA and scalar)
    min_bytes: int      # inputs read once + outputs written once
    target: float       # traffic target for this mode
    balance: float      # mean / max work per used core
    best_balance: float # best mean / max with whole work units
    balance_applies: bool
    ub_peak: int
    ub_bytes: int
    dma_ops: int

    @property
    def traffic(self) -> float:
        return self.gm_bytes / self.min_bytes if self.min_bytes else 1.0

    @property
    def ok(self) -> bool:
        traffic_ok = self.traffic <= self.target + 1e-9
        balance_ok = (not self.balance_applies) or self.balance >= min(0.95, self.best_balance) - 1e-9
        return traffic_ok and balance_ok and self.ub_peak <= self.ub_bytes


# ----------------------------------------------------------------------------------------------- DynamicQuant
DQ_DEFAULT_CASES: Dict[str, List[Tuple[Tuple[int, ...], str, str]]] = {
    "ascend910b": [((8, 26624), "float16", "int8"), ((197, 4096), "float16", "int8"),
                   ((197, 7552), "bfloat16", "int8"), ((960, 128), "float16", "int8"), ((3000, 7), "float16", "int8")],
    "ascend310p": [((100, 4096), "float16", "int8"), ((1003, 64), "float16", "int8"), ((13, 96), "float16", "int8")],
    "ascend910_95": [((4, 100000), "float16", "int8"), ((300, 1024), "bfloat16", "hifloat8"),
                     ((64, 60000), "float16", "float8_e4m3fn"), ((256, 7168), "bfloat16", "float8_e5m2")],
}


def _dq_row(edq, soc: str, shape: Sequence[int], x_dtype: str, dst: str, smooth: bool, seed: int) -> Row:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) + 0.1).astype(dtypes.numpy_dtype(x_dtype))
    sm = (rng.random(shape[-1]) + 0.5).astype(x.dtype) if smooth else None
    p = tiling.plan_dynamic_quant(shape, x_dtype, soc=soc, dst_type=dst, smooth=smooth)
    edq.dynamic_quant(x, sm, soc=soc, dst_type=dst)
    run = edq.last_run_stats()["run"]
    e = p.explanation
    rows = int(np.prod(shape[:-1]))
    h = shape[-1]
    min_bytes = rows * h * (dtypes.itemsize(x_dtype) + dtypes.itemsize(dst)) + rows * 4
    if smooth:
        min_bytes += h * dtypes.itemsize(x_dtype)
    gm = sum(c["gm_read_bytes"] + c["gm_write_bytes"] + 4 * c["gm_scalar_writes"] for c in run["cores"])
    work = [w["end"] - w["begin"] for w in e["work"]]
    used = max(1, len(work))
    mean = rows / used
    balance = mean / max(work) if work and max(work) else 1.0
    unit = max(1, int(e.get("balance_unit") or 1))
    best_max = -(-(-(-rows // unit)) // used) * unit  # ceil(ceil(rows / unit) / cores) units
    best = min(1.0, mean / min(best_max, rows)) if rows else 1.0
    cap = int(e["core_capacity"])
    return Row("dynamic_quant", soc, f"{'x'.join(map(str, shape))} {x_dtype}->{dst}{' +smooth' if smooth else ''}",
               e["mode"], len(work), gm, min_bytes, 1.7 if e["passes"] > 1 else 1.0, balance, best,
               rows >= 4 * cap, max(c["peak_ub_bytes"] for c in run["cores"]), int(e["ub_capacity"]),
               sum(c["dma_gm_to_ub"] + c["dma_ub_to_gm"] for c in run["cores"]))


def rows_dynamic_quant(args) -> List[Row]:
    edq = importlib.import_module("ascend_quant_ops.emulator.dynamic_quant")
    out = []
    for soc in args.soc or DQ_DEFAULT_CASES:
        cases = DQ_DEFAULT_CASES.get(soc, [])
        if args.shape:
            cases = [(tuple(int(d) for d in args.shape.split("x")), args.dtype, args.dst)]
        for shape, x_dtype, dst in cases:
            out.append(_dq_row(edq, soc, shape, x_dtype, dst, args.smooth, args.seed))
            if args.progress:
                print(f"  {soc} {shape} done", file=sys.stderr)
    return out


# Operator sections: name -> function(args) -> rows. Add QLinearMatMul here.
SECTIONS: Dict[str, Callable[[argparse.Namespace], List[Row]]] = {
    "dynamic_quant": rows_dynamic_quant,
}


def print_table(rows: List[Row]) -> None:
    head = ("op", "soc", "case", "mode", "cores", "GM MB", "min MB", "traffic", "target", "balance", "best",
            "UB peak", "DMA", "status")
    lines = [head]
    for r in rows:
        lines.append((r.op, r.soc, r.case, r.mode, str(r.cores), f"{r.gm_bytes / 1e6:.3f}",
                      f"{r.min_bytes / 1e6:.3f}", f"{r.traffic:.2f}x", f"<={r.target:.2f}x",
                      f"{r.balance:.3f}" + ("" if r.balance_applies else "*"), f"{r.best_balance:.3f}",
                      f"{r.ub_peak / r.ub_bytes:.0%} of {r.ub_bytes}", str(r.dma_ops),
                      "ok" if r.ok else "MISS"))
    widths = [max(len(l[i]) for l in lines) for i in range(len(head))]
    for i, l in enumerate(lines):
        print("  ".join(c.ljust(w) for c, w in zip(l, widths)))
        if i == 0:
            print("  ".join("-" * w for w in widths))
    print("* balance target not applicable (work < 4 x cores); best = the best mean/max any split of whole "
          "work units reaches for this shape")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--op", choices=sorted(SECTIONS), action="append", help="operator section(s); default all")
    ap.add_argument("--soc", action="append", help="SoC(s); default the section's list")
    ap.add_argument("--shape", help="one shape, e.g. 64x4096 (replaces the default cases)")
    ap.add_argument("--dtype", default="float16", help="x dtype with --shape")
    ap.add_argument("--dst", default="int8", help="dst type with --shape")
    ap.add_argument("--smooth", action="store_true", help="DynamicQuant with smooth scales")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--progress", action="store_true")
    args = ap.parse_args(argv)
    rows: List[Row] = []
    for name in args.op or sorted(SECTIONS):
        rows += SECTIONS[name](args)
    print_table(rows)
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
