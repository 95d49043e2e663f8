"""`aqo perf`: per SoC and shape, the kernels' GM traffic against the minimum, balance, and the timeline model's
estimated time against the roofline, pipe utilisation, stalls by cause, and the sensitivity to every derived or
assumed parameter. Table on stdout, `--json`, `--html` (with a timeline picture of one core per launch).

The estimate comes from stated parameters (the SoC table's timing section), not from a measurement: see
docs/performance.md, "The timeline model".
"""
from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import _native, dtypes, tiling
from . import roofline as rl
from . import traffic
from .model import LaunchSummary, PIPES, sensitivity_parameters, summarize

# Timeline targets (met in later work; reported as they are today).
DQ_TARGET_RATIO = {"ascend910b": 1.10, "ascend910_95": 1.10, "ascend310p": 1.25}
QMM_CUBE_BUSY_TARGET = 0.70       # at 4096 x 4096 x 4096 int8
QMM_DECODE_RATIO = 1.30           # M <= 16, K and N >= 4096: time / memory roofline

# Cases beyond the traffic cases, for the timeline targets.
DQ_TARGET_CASES: Dict[str, List[Tuple[Tuple[int, ...], str, str]]] = {
    "ascend910b": [((256, 4096), "float16", "int8"), ((192, 7168), "bfloat16", "int8")],
    "ascend310p": [((64, 4096), "float16", "int8")],
    "ascend910_95": [((512, 4096), "bfloat16", "int8")],
}
QMM_BIG = ((4096, 4096), (4096, 4096), "int8", "int8", "int8", "tensor", "tensor", "0")
QMM_DECODE = ((16, 4096), (4096, 4096), "int8", "int8", "int8", "tensor", "tensor", "0")
QMM_DECODE_1 = ((1, 4096), (4096, 4096), "int8", "int8", "int8", "tensor", "tensor", "0")
# A uint8 b (the vector decode path), per-column parameters, random zero points.
QMM_DECODE_U8 = ((1, 4096), (4096, 4096), "uint8", "uint8", "uint8", "tensor", "column", "random")
# An int8 b (the cube path) with per-column parameters and random zero points: every zero-point term.
QMM_DECODE_ZP = ((1, 4096), (4096, 4096), "int8", "int8", "int8", "tensor", "column", "random")
# The decode step with b stored transposed, [N, K] (nn.Linear's weight layout): the optional ninth element.
QMM_DECODE_T = QMM_DECODE + ("b_trans",)
QMM_TARGET_CASES: Dict[str, List[Tuple]] = {soc: [QMM_DECODE_1, QMM_DECODE_ZP, QMM_DECODE_U8, QMM_DECODE,
                                                  QMM_DECODE_T, QMM_BIG]
                                            for soc in DQ_TARGET_RATIO}


@dataclass
class Target:
    name: str
    value: Optional[float]
    limit: float
    kind: str              # "<=" or ">="
    ok: bool
    note: str = ""
    floor: Optional[float] = None   # the best value any kernel can reach under the model (time targets: the
                                    # latency floor over the memory roofline, roofline.latency_floor_us)


@dataclass
class PerfRow:
    row: traffic.Row
    roof: rl.Roofline
    roof_at: Optional[Callable[[Dict[str, float]], rl.Roofline]] = field(repr=False, default=None)  # under a scale
    summary: Optional[LaunchSummary] = None
    sensitivity: Dict[str, Dict[float, float]] = field(default_factory=dict)
    targets: List[Target] = field(default_factory=list)
    detail: Optional[dict] = None       # the slowest core's instructions and stalls, for the picture
    note: str = ""
    work_name: str = ""                 # what work_ratio measures
    work_ratio: Optional[float] = None  # the kernel's work against the least the operator needs

    @property
    def time_us(self) -> Optional[float]:
        return self.summary.time_us if self.summary else None

    @property
    def ratio(self) -> Optional[float]:
        return self.time_us / self.roof.us if self.summary and self.roof.us else None

    @property
    def memory_ratio(self) -> Optional[float]:
        return self.time_us / self.roof.memory_us if self.summary and self.roof.memory_us else None

    @property
    def ok(self) -> bool:
        return self.row.ok and all(t.ok for t in self.targets)

    def sensitivity_ratios(self, memory: bool = False) -> Dict[str, Dict[float, float]]:
        """parameter -> {factor: estimate / roofline}, each run against the roofline of its own parameters (a run at
        0.5x of the GM bandwidth against the memory time at that bandwidth)."""
        out: Dict[str, Dict[float, float]] = {}
        for name, runs in self.sensitivity.items():
            for f, t in runs.items():
                roof = self.roof_at({name: f}) if self.roof_at else self.roof
                out.setdefault(name, {})[f] = t / (roof.memory_us if memory else roof.us)
        return out

    def ratio_range(self, memory: bool = False) -> Optional[Tuple[float, float]]:
        vals = [r for v in self.sensitivity_ratios(memory).values() for r in v.values()]
        return (min(vals), max(vals)) if vals else None

    def to_dict(self) -> dict:
        r = self.row
        d = {
            "op": r.op, "soc": r.soc, "case": r.case, "mode": r.mode, "cores": r.cores,
            "traffic": {"gm_bytes": r.gm_bytes, "min_bytes": r.min_bytes, "ratio": r.traffic, "target": r.target},
            "balance": {"value": r.balance, "best": r.best_balance, "applies": r.balance_applies},
            "ub": {"peak": r.ub_peak, "capacity": r.ub_bytes}, "dma_ops": r.dma_ops,
            "roofline": {"us": self.roof.us, "memory_us": self.roof.memory_us, "compute_us": self.roof.compute_us,
                         "bound": self.roof.bound, "compute": self.roof.compute_what, "min_bytes": self.roof.min_bytes},
            "estimate": None,
            "sensitivity": {k: {str(f): t for f, t in v.items()} for k, v in self.sensitivity.items()},
            "sensitivity_ratio": {k: {str(f): t for f, t in v.items()} for k, v in self.sensitivity_ratios().items()},
            "sensitivity_memory_ratio": {k: {str(f): t for f, t in v.items()}
                                         for k, v in self.sensitivity_ratios(memory=True).items()},
            "targets": [asdict(t) for t in self.targets],
            "work": {"what": self.work_name, "ratio": self.work_ratio},
            "traffic_ok": r.ok, "ok": self.ok, "note": self.note,
        }
        if self.summary:
            s = self.summary
            d["estimate"] = {
                "time_us": s.time_us, "cycles": s.cycles, "clock_mhz": s.clock_mhz, "ratio": self.ratio,
                "memory_ratio": self.memory_ratio, "gm_busy": s.gm_busy, "ddr_bytes": s.ddr_bytes,
                "gm_read_bytes": s.gm_read_bytes, "l2_hit_bytes": s.l2_hit_bytes, "l2_hit_share": s.l2_hit_share,
                "critical_pipe": s.critical_pipe, "slowest_core": s.slowest,
                "busy_slowest": s.busy_slowest, "busy_mean": s.busy_mean, "cube_busy": s.cube_busy,
                "stall_kinds": s.stall_kinds, "stalls": dict(s.top_stalls(20, by_kind=False)),
                "stall_share": {k: s.stall_share(k) for k in s.stall_kinds},
            }
        return d


# ---------------------------------------------------------------------------------------------------- timeline
def timeline_available() -> Tuple[bool, str]:
    if not hasattr(_native, "timeline_last_run"):
        return False, "this build of _native records no instruction trace (timeline_last_run missing)"
    return True, ""


def _last_run(scale: Optional[dict] = None, detail_core: int = -2) -> dict:
    return _native.timeline_last_run(dict(scale or {}), int(detail_core))


def _combine(base: Dict[str, float], name: str, factor: float) -> Dict[str, float]:
    out = dict(base)
    out[name] = out.get(name, 1.0) * factor
    return out


def _merge(base: Dict[str, float], extra: Dict[str, float]) -> Dict[str, float]:
    out = dict(base)
    for name, factor in extra.items():
        out = _combine(out, name, factor)
    return out


def _attach_timeline(pr: PerfRow, sensitivity: bool, detail: bool, scale: Dict[str, float]) -> None:
    ok, why = timeline_available()
    if not ok:
        pr.note = why
        return
    res = _last_run(scale, -1 if detail else -2)
    pr.summary = summarize(res)
    pr.detail = res.get("detail")
    if pr.detail is not None:
        pr.detail = dict(pr.detail, causes=res["causes"], core=res["cores"][pr.detail["index"]]["core"],
                         is_cube=res["cores"][pr.detail["index"]]["is_cube"], cycles=res["cycles"],
                         clock_mhz=res["clock_mhz"])
    if sensitivity:
        names = sensitivity_parameters(pr.row.soc)
        runs = [(name, f) for name in names for f in (0.5, 2.0)]
        times = _native.timeline_last_run_sweep([_combine(scale, name, f) for name, f in runs], 2)
        for (name, f), t in zip(runs, times):
            pr.sensitivity.setdefault(name, {})[f] = float(t)


# ---------------------------------------------------------------------------------------------------- operators
def dynamic_quant(soc: str, shape: Sequence[int], x_dtype: str, dst: str, *, smooth: bool = False, seed: int = 0,
                  sensitivity: bool = True, detail: bool = True, scale: Optional[Dict[str, float]] = None,
                  asymmetric: bool = False) -> PerfRow:
    row = traffic.dynamic_quant_row(soc, shape, x_dtype, dst, smooth, seed, asymmetric)
    rows, h = int(np.prod(shape[:-1])), int(shape[-1])
    x_bytes = rows * h * dtypes.itemsize(x_dtype)
    base = dict(scale or {})

    def roof_at(extra: Dict[str, float]) -> rl.Roofline:
        return rl.dynamic_quant(soc, row.min_bytes, x_bytes, _merge(base, extra))

    pr = PerfRow(row, roof_at({}), roof_at)
    _attach_timeline(pr, sensitivity, detail, dict(scale or {}))
    pr.work_name = "vector bytes processed per byte of x"
    if pr.summary and x_bytes:
        pr.work_ratio = pr.summary.work["V"] / x_bytes
    cores = int(tiling.soc_spec(soc)["dynamic_quant_cores"])
    if rows >= 4 * cores and h >= 1024:
        limit = DQ_TARGET_RATIO[tiling.canonical_soc(soc)]
        v = pr.memory_ratio
        floor = rl.latency_floor_us(soc, row.min_bytes, base) / pr.roof.memory_us if pr.roof.memory_us else None
        pr.targets.append(Target("time / memory roofline", v, limit, "<=", v is not None and v <= limit,
                                 "" if v is not None else pr.note, floor))
    return pr


def qlinear_matmul(soc: str, case: Tuple, *, seed: int = 0, sensitivity: bool = True, detail: bool = True,
                   scale: Optional[Dict[str, float]] = None) -> PerfRow:
    row = traffic.qlinear_matmul_row(soc, case, seed)
    a_shape, b_shape = case[0], case[1]
    m, k, n = a_shape[-2], a_shape[-1], b_shape[-1]
    batch = int(np.prod(np.broadcast_shapes(tuple(a_shape[:-2]), tuple(b_shape[:-2])) or (1,)))
    macs = batch * m * n * k
    base = dict(scale or {})

    def roof_at(extra: Dict[str, float]) -> rl.Roofline:
        return rl.qlinear_matmul(soc, row.min_bytes, macs, _merge(base, extra))

    pr = PerfRow(row, roof_at({}), roof_at)
    _attach_timeline(pr, sensitivity, detail, dict(scale or {}))
    pr.work_name = "cube MACs per MAC of the product"
    if pr.summary and macs:
        pr.work_ratio = pr.summary.work["M"] / macs
    int8 = case[2] == "int8" and case[3] == "int8"
    if int8 and (m, k, n) == (4096, 4096, 4096) and batch == 1:
        v = pr.summary.cube_busy if pr.summary else None
        pr.targets.append(Target("cube busy", v, QMM_CUBE_BUSY_TARGET, ">=",
                                 v is not None and v >= QMM_CUBE_BUSY_TARGET, "" if v is not None else pr.note))
    if m <= 16 and k >= 4096 and n >= 4096:
        v = pr.memory_ratio
        pr.targets.append(Target("time / memory roofline", v, QMM_DECODE_RATIO, "<=",
                                 v is not None and v <= QMM_DECODE_RATIO, "" if v is not None else pr.note))
    return pr


# ---------------------------------------------------------------------------------------------------- the report
def _cases(op: str, socs: Optional[List[str]], shape: Optional[Tuple[int, ...]], args) -> List[Tuple[str, tuple]]:
    out = []
    if op == "dynamic_quant":
        table = {s: list(traffic.DQ_DEFAULT_CASES.get(s, [])) + list(DQ_TARGET_CASES.get(s, []))
                 for s in traffic.DQ_DEFAULT_CASES}
        for soc in socs or table:
            soc = tiling.canonical_soc(soc)
            cases = table.get(soc, [])
            if shape:
                cases = [(tuple(shape), args.dtype, args.dst)]
            out += [(soc, c) for c in cases]
    else:
        table = {s: list(traffic.QMM_DEFAULT_CASES.get(s, [])) + list(QMM_TARGET_CASES.get(s, []))
                 for s in traffic.QMM_DEFAULT_CASES}
        for soc in socs or table:
            soc = tiling.canonical_soc(soc)
            cases = table.get(soc, [])
            if shape:
                m, k, n = shape
                cases = [((m, k), (k, n), "int8", "int8", "int8", "tensor", "tensor", "0")]
            if args.quick:
                cases = [c for c in cases if np.prod(c[0]) * c[1][-1] < 4096 ** 3]
            out += [(soc, c) for c in cases]
    return out


def _refusal(op: str, soc: str, case: tuple, args):
    """The ConstraintError of a --shape the SoC refuses (None when it plans): checked before any data is built."""
    from ..errors import ConstraintError

    try:
        if op == "dynamic_quant":
            tiling.plan_dynamic_quant(case[0], case[1], soc=soc, dst_type=case[2], smooth=args.smooth,
                                      asymmetric=bool(getattr(args, "asymmetric", False)))
        else:
            tiling.plan_qlinear_matmul(case[0], case[1], soc=soc, a_dtype=case[2], b_dtype=case[3], y_dtype=case[4],
                                       a_param=case[5], b_param=case[6], b_trans=traffic.qmm_case_b_trans(case))
    except ConstraintError as err:
        return err
    return None


def run(args, progress: Callable[[str], None] = lambda s: None,
        refused: Optional[List[dict]] = None) -> List[PerfRow]:
    """The launches of the report (or of --shape on each SoC; a SoC that refuses it goes to `refused`)."""
    rows: List[PerfRow] = []
    scale: Dict[str, float] = {}
    for name, factor in args.scale or []:
        scale = _combine(scale, name, factor)
    for op in args.op or ["dynamic_quant", "qlinear_matmul"]:
        for soc, case in _cases(op, args.soc, args.shape, args):
            if args.shape is not None:
                err = _refusal(op, soc, case, args)
                if err is not None:
                    if refused is None:
                        raise err
                    text = "x".join(map(str, args.shape))
                    refused.append({"op": op, "soc": soc, "case": text, "error": str(err)})
                    progress(f"  {op} {soc} {text}: refused")
                    continue
            if op == "dynamic_quant":
                pr = dynamic_quant(soc, case[0], case[1], case[2], smooth=args.smooth, seed=args.seed,
                                   sensitivity=not args.no_sensitivity, detail=bool(args.html), scale=scale,
                                   asymmetric=bool(getattr(args, "asymmetric", False)))
            else:
                pr = qlinear_matmul(soc, case, seed=args.seed, sensitivity=not args.no_sensitivity,
                                    detail=bool(args.html), scale=scale)
            rows.append(pr)
            progress(f"  {op} {soc} {pr.row.case}: "
                     + (f"{pr.time_us:.2f} us" if pr.summary else "no estimate"))
    return rows


def _fmt_table(head: Sequence[str], lines: List[Sequence[str]], out) -> None:
    allrows = [tuple(head)] + [tuple(l) for l in lines]
    widths = [max(len(r[i]) for r in allrows) for i in range(len(head))]
    for i, r in enumerate(allrows):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip(), file=out)
        if i == 0:
            print("  ".join("-" * w for w in widths), file=out)


def print_report(rows: List[PerfRow], out=sys.stdout) -> None:
    print("GM traffic and balance (emulator counters)", file=out)
    lines = []
    for p in rows:
        r = p.row
        lines.append((r.op, r.soc, r.case, r.mode, str(r.cores), f"{r.gm_bytes / 1e6:.3f}", f"{r.min_bytes / 1e6:.3f}",
                      f"{r.traffic:.4f}x", f"<={r.target:.2f}x",
                      f"{r.balance:.3f}" + ("" if r.balance_applies else "*"), f"{r.best_balance:.3f}",
                      f"{r.ub_peak / r.ub_bytes:.0%} of {r.ub_bytes}", str(r.dma_ops), "ok" if r.ok else "MISS"))
    _fmt_table(("op", "soc", "case", "mode", "cores", "GM MB", "min MB", "traffic", "target", "balance", "best",
                "UB peak", "DMA", "status"), lines, out)
    if any(not p.row.balance_applies for p in rows):
        print("* balance target not applicable (work < 4 x cores)", file=out)
    print("best = the best mean/max over the used cores of a split in whole work units with the shortest slowest "
          "core (the SoC's cores at most; DynamicQuant without DataCopyPad: 8 rows a core at least)", file=out)

    print("\nTimeline estimate (a model from the SoC table's stated parameters, not a measurement)", file=out)
    lines = []
    for p in rows:
        r, s = p.row, p.summary
        if s is None:
            lines.append((r.op, r.soc, r.case, "-", f"{p.roof.us:.2f} {p.roof.bound[:3]}", "-", "-", "-", "-", "-",
                          "-", "-", "-", p.note or "no estimate"))
            continue
        busy = " ".join(f"{k}:{100 * s.busy_slowest[k]:.0f}" for k in PIPES if s.busy_slowest[k] >= 0.005)
        stall = s.top_stalls(1)
        stall_txt = f"{stall[0][0]} {100 * s.stall_share(stall[0][0]):.0f}%" if stall else "-"
        rr = p.ratio_range()
        sens_txt = f"{rr[0]:.2f}..{rr[1]:.2f}x" if rr else "-"
        work = "-" if p.work_ratio is None else f"{p.work_ratio:.2f}"
        lines.append((r.op, r.soc, r.case, f"{s.time_us:.2f}", f"{p.roof.us:.2f} {p.roof.bound[:3]}",
                      f"{p.ratio:.2f}x", f"{s.ddr_bytes / 1e6:.3f}", f"{100 * s.l2_hit_share:.0f}%",
                      f"{100 * s.gm_busy:.0f}%", s.critical_pipe, busy, work, sens_txt, stall_txt))
    _fmt_table(("op", "soc", "case", "est us", "roofline us", "est/roof", "DDR MB", "L2 hit", "DDR busy", "critical",
                "busy % (slowest core)", "work", "est/roof 0.5x..2x", "top stall (share of its cores' time)"), lines, out)
    print("DDR MB: bytes through the GM (DDR) bandwidth in the model (L2 misses' lines and every write); L2 hit: the "
          "share of the bytes read from GM that the L2 cache served; DDR busy: DDR MB / (estimate x GM bandwidth)",
          file=out)

    print("\nTargets", file=out)
    lines = []
    for p in rows:
        r = p.row
        lines.append((r.op, r.soc, r.case, "traffic / balance / UB", "", "", "", "ok" if r.ok else "MISS"))
        for t in p.targets:
            val = "n/a" if t.value is None else (f"{100 * t.value:.1f}%" if t.name == "cube busy" else f"{t.value:.2f}x")
            lim = f"{100 * t.limit:.0f}%" if t.name == "cube busy" else f"{t.limit:.2f}x"
            floor = "" if t.floor is None else f"{t.floor:.2f}x"
            lines.append((r.op, r.soc, r.case, t.name, val, f"{t.kind} {lim}", floor, "ok" if t.ok else "MISS"))
    _fmt_table(("op", "soc", "case", "target", "today", "wanted", "floor", "status"), lines, out)
    if any(t.floor is not None for p in rows for t in p.targets):
        print("floor = the latency floor over the memory roofline: the memory time plus the one GM round trip no "
              "kernel can hide (the last store's completion), from the same timing parameters "
              "(perf/roofline.py, latency_floor_us); a lower bound, not a reachable time", file=out)
    print("work: DynamicQuant, vector bytes processed per byte of x (one pass over x in float32 is 2 for float16 x);"
          " QLinearMatMul, cube MACs per MAC of the product (zero-point sums and recomputation add to 1)", file=out)
    missed = sum(1 for p in rows if not p.ok)
    print(f"\n{missed} of {len(rows)} launches miss a target" if missed else "\nevery target met", file=out)


def to_json(rows: List[PerfRow], refused: Sequence[dict] = ()) -> dict:
    socs = sorted({p.row.soc for p in rows})
    return {
        "model": "timeline estimate from the SoC table's stated parameters (not a measurement)",
        "parameters": {s: _native.soc_timing(s) for s in socs},
        "launches": [p.to_dict() for p in rows],
        "refused": list(refused),
        "ok": all(p.ok for p in rows) and not refused,
    }


def main(args) -> int:
    prog = (lambda s: print(s, file=sys.stderr)) if args.progress else (lambda s: None)
    refused: List[dict] = []
    rows = run(args, prog, refused)
    if args.json:
        print(json.dumps(to_json(rows, refused), indent=1))
    else:
        if rows:
            print_report(rows)
        for r in refused:
            print(f"{r['op']} {r['soc']} {r['case']}: refused by the SoC's constraints: {r['error']}")
        if refused:
            print(f"{len(refused)} SoC(s) refused the shape (exit 1)")
    if args.html:
        from .html import write_html

        write_html(args.html, rows, to_json(rows, refused))
        if not args.json:
            print(f"HTML report: {args.html}")
    return 0 if all(p.ok for p in rows) and not refused else 1
