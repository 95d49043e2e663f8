#!/usr/bin/env python3
"""Tiling sweep: plans many shapes per SoC x dtype x dst_type (DynamicQuant) and per SoC x dtypes
(QLinearMatMul), and checks every plan's explanation against the invariants every plan must satisfy.

For each case the sweep predicts from the SoC table (read through the compiled core) whether the documented
limits accept the request, then asks the tiling core for the plan and checks:
  - accepted: work covered exactly once (every DynamicQuant row, every QLinearMatMul output byte), UB buffers
    32-byte aligned, non-overlapping, inside UB, UB capacity <= the SoC's UB, used cores <= the SoC's cores,
    every GM range inside its tensor (tensor sizes equal to what the request implies), outputs written fully and
    by one core per byte, whole 32-byte blocks on SoCs without DataCopyPad, balance within the plan's claim,
    DynamicQuant's rows per DMA within the SoC table's burst count;
  - refused: the violation is complete (op, argument, soc, constraint, limit, actual, suggestion);
  - the decision matches the documented limits: a refusal of a request within them, or acceptance of one outside
    them, is a failure.

Usage (`aqo sweep`, cli.py):
  aqo sweep                                # both ops, every SoC, 2000 random cases each
  aqo sweep --op dynamic_quant --soc ascend310p --count 10000 --seed 7
  aqo sweep --grid                         # a deterministic grid around the limits instead
  aqo sweep --overrides 0.5                # half the cases with a smaller core count / UB size
  aqo sweep --show-failures 50             # print more failing cases
  aqo sweep --json                         # the summary and the failing cases as JSON

Progress goes to stderr; the summary table to stdout. Exit status 1 when any case fails, 2 on a usage error,
0 otherwise.
"""
from __future__ import annotations

import math
import os
import random
import sys
import time
from typing import Callable, Dict, Iterator, List, Optional, Tuple

from .. import _native, dtypes
from ..tiling import verify_explanation, verify_violation

from .._opnames import DYNAMIC_QUANT as DQ  # noqa: E402
from .._opnames import QLINEAR_MATMUL as QMM  # noqa: E402
CANONICAL = ("ascend910b", "ascend310p", "ascend910_95")


# ----------------------------------------------------------------------------------------------- predictions
def prod(xs) -> int:
    out = 1
    for x in xs:
        out *= int(x)
    return out


def dq_expected_ok(spec: dict, case: dict) -> Tuple[bool, str]:
    """Whether the documented limits (SoC table) accept a DynamicQuant request, and why not."""
    dq = spec["dynamic_quant"]
    shape = case["shape"]
    if len(shape) < dq["min_rank"]:
        return False, "rank"
    if case["x_dtype"] not in dq["x_dtypes"]:
        return False, "x dtype"
    if case["dst_type"] not in dq["dst_types"]:
        return False, "dst_type"
    if case["asymmetric"] and not dq["asymmetric_implemented"]:
        return False, "asymmetric"
    if case["smooth"] and not dq["smooth_implemented"]:
        return False, "smooth"
    tail = shape[-1]
    limit = {"float16": dq["max_tail_float16"], "bfloat16": dq["max_tail_bfloat16"]}.get(case["x_dtype"], 0)
    if limit and tail > limit:
        return False, "tail limit"
    if tail % dq["tail_multiple"]:
        return False, "tail multiple"
    return True, ""


def broadcast_batch(a: List[int], b: List[int]) -> Optional[List[int]]:
    ab, bb = a[:-2], b[:-2]
    n = max(len(ab), len(bb))
    ab = [1] * (n - len(ab)) + ab
    bb = [1] * (n - len(bb)) + bb
    out = []
    for x, y in zip(ab, bb):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return out


FLOAT8 = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")


def qmm_expected_ok(spec: dict, case: dict) -> Tuple[bool, str]:
    q = spec["qlinear_matmul"]
    a, b = case["a_shape"], case["b_shape"]
    if len(a) < 2 or len(b) < 2:
        return False, "rank"
    if a[-1] != b[-2]:
        return False, "K"
    if broadcast_batch(a, b) is None:
        return False, "broadcast"
    for arg, key in (("a_dtype", "a_dtypes"), ("b_dtype", "b_dtypes"), ("y_dtype", "y_dtypes")):
        if case[arg] not in q[key]:
            return False, arg
    if not q["mixed_int_float8"] and (case["a_dtype"] in FLOAT8) != (case["b_dtype"] in FLOAT8):
        return False, "int/float8 mix"
    return True, ""


def dq_expected_tensors(case: dict) -> Dict[str, int]:
    shape = case["shape"]
    n = prod(shape)
    rows = prod(shape[:-1])
    return {"x": n * dtypes.itemsize(case["x_dtype"]), "y": n * dtypes.itemsize(case["dst_type"]),
            "scale": rows * 4}


def qmm_expected_tensors(case: dict) -> Dict[str, int]:
    a, b = case["a_shape"], case["b_shape"]
    batch = broadcast_batch(a, b) or []
    return {"a": prod(a) * dtypes.itemsize(case["a_dtype"]), "b": prod(b) * dtypes.itemsize(case["b_dtype"]),
            "y": prod(batch) * a[-2] * b[-1] * dtypes.itemsize(case["y_dtype"])}


# ----------------------------------------------------------------------------------------------- case makers
def _log_uniform(rng: random.Random, lo: int, hi: int) -> int:
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def _split_rows(rng: random.Random, rows: int, n_lead: int) -> List[int]:
    """Leading dims whose product is `rows`."""
    dims = []
    rest = rows
    for _ in range(n_lead - 1):
        divs = [d for d in (1, 2, 3, 4, 5, 7, 8, 16) if rest % d == 0] if rest else [0, 1]
        d = rng.choice(divs)
        dims.append(d)
        rest = rest // d if d else rest
    dims.append(rest)
    rng.shuffle(dims)
    return dims


def dq_random_case(rng: random.Random, spec: dict) -> dict:
    dq = spec["dynamic_quant"]
    # dtypes: mostly what the SoC supports, sometimes anything DynamicQuant knows (to exercise the refusals).
    x_dtype = rng.choice(["float16", "bfloat16", "float32"] if rng.random() < 0.08 else dq["x_dtypes"])
    dst_type = rng.choice(list(dtypes.DYNAMIC_QUANT_DST_TYPES) if rng.random() < 0.08 else dq["dst_types"])
    limit = {"float16": dq["max_tail_float16"], "bfloat16": dq["max_tail_bfloat16"]}.get(x_dtype, 0) or 0
    r = rng.random()
    if r < 0.15 and limit:
        tail = limit + rng.randint(-3 * dq["tail_multiple"], 3 * dq["tail_multiple"])  # around the limit
    elif r < 0.25:
        tail = rng.randint(1, 96)
    else:
        hi = int(limit * 1.1) if limit else 400_000
        tail = _log_uniform(rng, 1, max(hi, 2))
    if dq["tail_multiple"] > 1 and rng.random() < 0.85:
        tail = max(dq["tail_multiple"], tail // dq["tail_multiple"] * dq["tail_multiple"])
    tail = max(tail, 1) if rng.random() > 0.005 else 0
    rr = rng.random()
    if rr < 0.01:
        rows = 0
    elif rr < 0.4:
        rows = rng.randint(1, 4 * spec["dynamic_quant_cores"] + 3)
    else:
        rows = _log_uniform(rng, 1, 300_000)
    rank_r = rng.random()
    if rank_r < 0.03:
        shape = [tail]  # rank 1: refused everywhere
    else:
        n_lead = 1 if rank_r < 0.6 else rng.randint(2, 3)
        shape = _split_rows(rng, rows, n_lead) + [tail]
    return {"shape": shape, "x_dtype": x_dtype, "dst_type": dst_type, "smooth": rng.random() < 0.3,
            "asymmetric": rng.random() < 0.03}


def dq_grid_cases(spec: dict) -> Iterator[dict]:
    dq = spec["dynamic_quant"]
    m = dq["tail_multiple"]
    for x_dtype in ("float16", "bfloat16"):
        limit = {"float16": dq["max_tail_float16"], "bfloat16": dq["max_tail_bfloat16"]}[x_dtype]
        tails = {1, 7, 16, 31, 32, 33, 64, 100, 127, 128, 255, 256, 1000, 1024, 2048, 4000, 4064, 4096, 4097,
                 4272, 4432, 4800, 5024, 5472, 5824, 6352, 6896, 7168, 7552, 7553, 8192, 10240, 16384, 26624,
                 26625, 65536, 131072}
        if limit:
            tails |= {limit - m, limit, limit + 1, limit + m}
        for tail in sorted(tails):
            for rows in (1, 2, 7, 8, 9, spec["dynamic_quant_cores"] - 1, spec["dynamic_quant_cores"],
                         spec["dynamic_quant_cores"] + 1, 1000, 4096, 65537):
                for dst_type in dtypes.DYNAMIC_QUANT_DST_TYPES:
                    yield {"shape": [rows, tail], "x_dtype": x_dtype, "dst_type": dst_type, "smooth": rows % 2 == 0,
                           "asymmetric": False}


def qmm_random_case(rng: random.Random, spec: dict) -> dict:
    q = spec["qlinear_matmul"]
    m = _log_uniform(rng, 1, 4096) if rng.random() > 0.02 else 0
    k = _log_uniform(rng, 1, 8192) if rng.random() > 0.02 else 0
    n = _log_uniform(rng, 1, 8192) if rng.random() > 0.02 else 0
    a_batch: List[int] = []
    b_batch: List[int] = []
    br = rng.random()
    if br < 0.5:
        pass
    elif br < 0.8:
        bsz = rng.randint(1, 8)
        a_batch = [bsz]
        b_batch = rng.choice([[bsz], [1], []])
    else:
        d1, d2 = rng.randint(1, 4), rng.randint(1, 4)
        a_batch = [d1, rng.choice([d2, 1])]
        b_batch = rng.choice([[d1, d2], [1, d2], [d2], [], [d1 + 1, d2]])  # the last may not broadcast
    kb = k if rng.random() > 0.03 else k + 1
    a_shape = a_batch + [m, k]
    b_shape = b_batch + [kb, n]
    if rng.random() < 0.02:
        a_shape = [k]
    pool_int = ["int8", "uint8"]
    if rng.random() < 0.25:
        a_dtype, b_dtype, y_dtype = (rng.choice(dtypes.QLINEAR_MATMUL_TYPES) for _ in range(3))
    elif any(t in FLOAT8 for t in q["a_dtypes"]) and rng.random() < 0.4:
        f8 = [t for t in q["a_dtypes"] if t in FLOAT8]
        a_dtype, b_dtype = rng.choice(f8), rng.choice(f8)
        y_dtype = rng.choice(q["y_dtypes"])
    else:
        a_dtype, b_dtype, y_dtype = rng.choice(pool_int), rng.choice(pool_int), rng.choice(q["y_dtypes"])
    return {"a_shape": a_shape, "b_shape": b_shape, "a_dtype": a_dtype, "b_dtype": b_dtype, "y_dtype": y_dtype,
            "a_param": rng.choice(["tensor", "row"]), "b_param": rng.choice(["tensor", "column"])}


def qmm_grid_cases(spec: dict) -> Iterator[dict]:
    q = spec["qlinear_matmul"]
    for m in (1, 15, 16, 17, 1000):
        for k in (1, 31, 32, 4096):
            for n in (1, 16, 17, 1000):
                for ab, bb in (([], []), ([3], [1]), ([2, 3], [3])):
                    for a_dtype in q["a_dtypes"]:
                        b_dtype = a_dtype
                        yield {"a_shape": ab + [m, k], "b_shape": bb + [k, n], "a_dtype": a_dtype,
                               "b_dtype": b_dtype, "y_dtype": q["y_dtypes"][(m + n) % len(q["y_dtypes"])],
                               "a_param": "row" if m % 2 else "tensor", "b_param": "column" if n % 2 else "tensor"}


# ----------------------------------------------------------------------------------------------- running
class Outcome:
    __slots__ = ("ok", "accepted", "problems", "mode")

    def __init__(self, accepted: bool, problems: List[str], mode: str) -> None:
        self.accepted = accepted
        self.problems = problems
        self.ok = not problems
        self.mode = mode


def plan_function(op: str) -> Callable:
    name = "plan_" + op
    fn = getattr(_native, name, None)
    if fn is None:
        raise SystemExit(f"aqo sweep: this build of _native has no {name} (the {op} plan binding is not "
                         f"compiled in; groups: {', '.join(_native.binding_groups())}). Rebuild with "
                         f"scripts/dev_build.sh.")
    return fn


def random_overrides(rng: random.Random, op: str, spec: dict) -> Tuple[int, int]:
    """A device-reported core count and UB size (both below the table's), as SocOverrides would carry them."""
    cores = spec["dynamic_quant_cores"] if op == DQ else spec["qlinear_matmul_cores"]
    core_num = rng.randint(1, cores)
    ub_size = rng.randint(16 * 1024 // 32, spec["ub_bytes"] // 32) * 32
    return core_num, ub_size


def run_case(op: str, soc: str, spec: dict, case: dict, fn: Callable) -> Outcome:
    core_num, ub_size = case.get("core_num", 0), case.get("ub_size", 0)
    if op == DQ:
        out = fn(case["shape"], case["x_dtype"], case["dst_type"], case["smooth"], case["asymmetric"], soc,
                 core_num, ub_size)
        want, why = dq_expected_ok(spec, case)
    else:
        out = fn(case["a_shape"], case["b_shape"], case["a_dtype"], case["b_dtype"], case["y_dtype"],
                 case["a_param"], case["b_param"], soc, core_num, ub_size)
        want, why = qmm_expected_ok(spec, case)
    problems: List[str] = []
    if not out["ok"]:
        v = out["violation"]
        problems += verify_violation(v, op=op, soc=soc)
        # A smaller UB than the table's may legitimately not hold a plan the documented limits allow; the
        # refusal must then say so (argument ub_size or a constraint about UB).
        ub_refusal = ub_size and (v["argument"] == "ub_size" or "UB" in v["constraint"] or "unified buffer" in
                                  v["constraint"])
        if want and not ub_refusal:
            problems.append(f"refused within the documented limits: {v['constraint']} (limit {v['limit']}, "
                            f"actual {v['actual']})")
        return Outcome(False, problems, "refused")
    if not want:
        problems.append(f"accepted although the documented limits refuse it ({why})")
    e = out["explanation"]
    if e["soc"] != soc:
        problems.append(f"explanation soc {e['soc']!r} != {soc!r}")
    if op == DQ:
        if e["work_unit"] != "row":
            problems.append(f"work_unit {e['work_unit']!r}, expected 'row'")
        expected_work = prod(case["shape"][:-1])
        tensors = dq_expected_tensors(case)
        cores = spec["dynamic_quant_cores"]
        # A group of rows is one DMA of rowsPerIter bursts: within the DMA's 12-bit burst count.
        if out["tiling"]["rowsPerIter"] > spec["dma_max_block_count"]:
            problems.append(f"rowsPerIter {out['tiling']['rowsPerIter']} > the DMA burst limit "
                            f"{spec['dma_max_block_count']}")
    else:
        expected_work = None  # output tiles: coverage is checked on the bytes of y
        tensors = qmm_expected_tensors(case)
        cores = spec["qlinear_matmul_cores"]
    if core_num and e["core_capacity"] != core_num:
        problems.append(f"core_capacity {e['core_capacity']} ignores the core_num override {core_num}")
    if ub_size and e["ub_capacity"] != ub_size:
        problems.append(f"ub_capacity {e['ub_capacity']} ignores the ub_size override {ub_size}")
    problems += verify_explanation(e, soc_spec_=spec, expected_work=expected_work, expected_tensors=tensors,
                                   core_limit=core_num or cores, ub_limit=ub_size or spec["ub_bytes"])
    return Outcome(True, problems, e["mode"])


def case_key(op: str, spec: dict, case: dict) -> Tuple[str, str]:
    """The summary row of a case: its dtypes when the SoC supports them, else one row of dtype refusal probes."""
    if op == DQ:
        dq = spec["dynamic_quant"]
        if case["x_dtype"] in dq["x_dtypes"] and case["dst_type"] in dq["dst_types"]:
            return case["x_dtype"], case["dst_type"]
        return "(unsupported dtypes)", "-"
    q = spec["qlinear_matmul"]
    if case["a_dtype"] in q["a_dtypes"] and case["b_dtype"] in q["b_dtypes"] and case["y_dtype"] in q["y_dtypes"]:
        return f"{case['a_dtype']} x {case['b_dtype']}", case["y_dtype"]
    return "(unsupported dtypes)", "-"


def _stderr_is_terminal() -> bool:
    """The progress bar rewrites its line with carriage returns: only for a terminal, not a log file or pipe."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    """A plain-text progress bar on stderr (one line, rewritten), silent when disabled."""

    def __init__(self, total: int, label: str, enabled: bool) -> None:
        self.total = max(total, 1)
        self.label = label
        self.enabled = enabled
        self.last = -1
        self.t0 = time.time()

    def update(self, done: int, failures: int) -> None:
        if not self.enabled:
            return
        pct = int(100 * done / self.total)
        if pct == self.last and done != self.total:
            return
        self.last = pct
        bar = "#" * (pct // 4) + "." * (25 - pct // 4)
        try:
            sys.stderr.write(f"\r{self.label:<28} [{bar}] {done}/{self.total} failures {failures}")
            if done >= self.total:
                sys.stderr.write(f"  ({time.time() - self.t0:.1f} s)\n")
            sys.stderr.flush()
        except OSError:
            # cosmetic: a closed stderr (its reader gone) does not stop the sweep, nor fails its final flush
            self.enabled = False
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stderr.fileno())
            os.close(devnull)


def sweep(op: str, socs, count: int, seed: int, *, grid: bool = False, progress: bool = False,
          overrides: float = 0.0):
    """Runs the sweep; returns (rows, failures): rows = {(op, soc, dtype, dst): [cases, accepted, refused,
    failed, modes]}, failures = [(op, soc, case, problems)]. `overrides`: the fraction of the cases (random or
    grid) planned with a random smaller core count and UB size (core_num / ub_size)."""
    fn = plan_function(op)
    table = {r["name"]: r for r in _native.soc_table()}
    rows: Dict[Tuple[str, str, str, str], list] = {}
    failures = []
    for soc in socs:
        spec = table[soc]
        rng = random.Random(f"{seed}-{op}-{soc}")
        if grid:
            cases = list(dq_grid_cases(spec) if op == DQ else qmm_grid_cases(spec))
        else:
            maker = dq_random_case if op == DQ else qmm_random_case
            cases = [maker(rng, spec) for _ in range(count)]
        for case in cases:  # the grid's cases too (drawn from the seed, so a grid run stays repeatable)
            if overrides and rng.random() < overrides:
                case["core_num"], case["ub_size"] = random_overrides(rng, op, spec)
        bar = Progress(len(cases), f"{op} {soc}", progress)
        for i, case in enumerate(cases):
            try:
                o = run_case(op, soc, spec, case, fn)
            except Exception as exc:  # a crash of the plan is a failure of the case, not of the sweep
                o = Outcome(False, [f"exception {type(exc).__name__}: {exc}"], "crash")
            k1, k2 = case_key(op, spec, case)
            row = rows.setdefault((op, soc, k1, k2), [0, 0, 0, 0, set()])
            row[0] += 1
            row[1 if o.accepted else 2] += 1
            if not o.ok:
                row[3] += 1
                failures.append((op, soc, case, o.problems))
            row[4].add(o.mode)
            if i % 64 == 0 or i + 1 == len(cases):
                bar.update(i + 1, len(failures))
    return rows, failures


def format_failures(failures, limit: int = 10, per_case: int = 6) -> str:
    """The first `limit` failing cases with their problems, as text."""
    lines = []
    for op, soc, case, problems in failures[:limit]:
        lines.append(f"FAIL {op} {soc} {case}")
        lines.extend(f"    {p}" for p in problems[:per_case])
    if len(failures) > limit:
        lines.append(f"... {len(failures) - limit} more failing cases")
    return "\n".join(lines)


def print_summary(rows, out=None) -> None:
    out = out or sys.stdout
    header = f"{'op':<15} {'soc':<13} {'dtype':<28} {'dst / y':<16} {'cases':>6} {'plans':>6} {'refused':>7} " \
             f"{'FAILED':>6}  modes"
    out.write(header + "\n" + "-" * len(header) + "\n")
    for (op, soc, k1, k2), (n, acc, ref, bad, modes) in sorted(rows.items()):
        out.write(f"{op:<15} {soc:<13} {k1:<28} {k2:<16} {n:>6} {acc:>6} {ref:>7} {bad:>6}  "
                  f"{', '.join(sorted(m for m in modes if m != 'refused'))}\n")


def add_arguments(ap) -> None:
    from . import fraction_arg, non_negative_int, positive_int

    ap.add_argument("--op", choices=[DQ, QMM, "both"], default="both")
    ap.add_argument("--soc", action="append", help="SoC (repeatable; any accepted name); default: every SoC")
    ap.add_argument("--count", type=positive_int, default=None,
                    help="random cases per op and SoC (default 2000; not with --grid, whose cases are fixed)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--grid", action="store_true", help="a deterministic grid around the limits instead of random")
    ap.add_argument("--overrides", type=fraction_arg, default=0.0, metavar="FRACTION",
                    help="plan this fraction (0..1) of the cases (random or grid) with a random smaller core count "
                         "and UB size (as a device would report them); default 0")
    ap.add_argument("--show-failures", type=non_negative_int, default=20,
                    help="failing cases to print (default 20)")
    ap.add_argument("--no-progress", action="store_true",
                    help="no progress bar (there is none either when stderr is not a terminal)")
    ap.add_argument("--json", action="store_true", help="print the summary and the failing cases as JSON")


def run(args) -> int:
    from . import UsageError

    socs = []
    for name in args.soc or CANONICAL:
        canon = _native.canonical_soc(name) if name.isprintable() else None
        if canon is None:
            raise UsageError(f"--soc: unknown SoC {name!r}; known: {', '.join(_native.soc_names())}")
        if canon not in socs:
            socs.append(canon)
    if args.grid and args.count is not None:
        raise UsageError("--count sets the number of random cases; --grid runs its fixed grid instead (drop one)")
    count = 2000 if args.count is None else args.count
    ops = [DQ, QMM] if args.op == "both" else [args.op]
    all_rows = {}
    failures = []
    for op in ops:
        rows, fails = sweep(op, socs, count, args.seed, grid=args.grid,
                            progress=not args.no_progress and not args.json and _stderr_is_terminal(),
                            overrides=args.overrides)
        all_rows.update(rows)
        failures += fails
    total = sum(r[0] for r in all_rows.values())
    if args.json:
        import json

        summary = [{"op": op, "soc": soc, "dtype": k1, "dst": k2, "cases": n, "plans": acc, "refused": ref,
                    "failed": bad, "modes": sorted(m for m in modes if m != "refused")}
                   for (op, soc, k1, k2), (n, acc, ref, bad, modes) in sorted(all_rows.items())]
        shown = [{"op": op, "soc": soc, "case": case, "problems": problems}
                 for op, soc, case, problems in failures[:args.show_failures]]
        print(json.dumps({"cases": total, "failed": len(failures), "summary": summary, "failures": shown},
                         indent=2, default=str))
        return 1 if failures else 0
    print_summary(all_rows)
    print(f"\n{total} cases, {len(failures)} failed")
    if failures and args.show_failures > 0:
        print(format_failures(failures, args.show_failures))
    return 1 if failures else 0


def main(argv=None) -> int:
    """`aqo sweep ...` with argv the subcommand's arguments."""
    from ..cli import main as cli_main

    return cli_main(["sweep", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
