"""Host tiling plans from Python: what a SoC would do with a request, or why it would refuse it.

Every fact comes from the compiled tiling core (op_host/tiling_core) through `_native`: the SoC table
(`soc_table()`), the request checks and the plans. Nothing here restates a limit.

    >>> import ascend_quant_ops as aqo
    >>> print(aqo.plan_dynamic_quant((4096, 7168), "bfloat16", soc="ascend910b"))
    >>> aqo.plan_dynamic_quant((8, 7553), "bfloat16", soc="ascend910b")   # ConstraintError: ... 7552

`verify_explanation()` checks a plan's explanation against the invariants every plan must satisfy (work covered
exactly once, UB map aligned / disjoint / within capacity, cores within capacity, GM ranges inside their tensors);
`aqo sweep` (tools/sweep.py) runs it over random shapes.
"""
from __future__ import annotations

import numbers
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import _native, dtypes
from .errors import ConstraintError, DTypeError

__all__ = [
    "soc_table",
    "soc_names",
    "soc_spec",
    "canonical_soc",
    "plan_dynamic_quant",
    "plan_qlinear_matmul",
    "Plan",
    "verify_explanation",
    "violation_error",
]

from ._opnames import DYNAMIC_QUANT as DQ  # noqa: E402
from ._opnames import QLINEAR_MATMUL as QMM  # noqa: E402


# ------------------------------------------------------------------------------------------------ SoC table
def soc_table() -> Dict[str, dict]:
    """The SoC table of the compiled core: canonical name -> spec dict (cores, UB, DataCopyPad, dtypes and
    limits per operator). A fresh copy each call."""
    return {row["name"]: row for row in _native.soc_table()}


def soc_names() -> List[str]:
    """Every SoC name accepted: canonical names, 'ascend950', and the platform-config variants (ascend910b3...)."""
    return list(_native.soc_names())


def canonical_soc(name: Any, *, op: Optional[str] = None) -> str:
    """The canonical SoC name of `name` ("ascend950" -> "ascend910_95", "Ascend910B3" -> "ascend910b").
    An unknown name raises ConstraintError listing the valid names."""
    # Only printable names: the compiled table compares C strings, which end at the first NUL.
    canon = _native.canonical_soc(name) if isinstance(name, str) and name.isprintable() else None
    if canon is None:
        raise ConstraintError(op or "tiling", "soc", "unknown SoC name", actual=repr(name),
                              expected=" | ".join(soc_names()),
                              suggestion="canonical names are ascend910b, ascend310p and ascend910_95 "
                                         "(alias ascend950)")
    return canon


def soc_spec(name: str, *, core_num: Optional[int] = None, ub_size: Optional[int] = None, op: str = DQ) -> dict:
    """The resolved spec of a SoC name: a variant's own core counts (ascend910b3: 20 cube / 40 vector), with the
    core count / UB size overrides applied as a plan would apply them."""
    _require_soc_name(name, op)
    cn = _override(core_num, "core_num", op, name)
    ub = _override(ub_size, "ub_size", op, name)
    out = _native.soc_spec(name, cn, ub, op)
    if not out["ok"]:
        raise violation_error(out["violation"])
    return out["spec"]


# ------------------------------------------------------------------------------------------------ errors
def violation_error(v: Mapping[str, Any]) -> ConstraintError:
    """The typed error of a violation dict from the tiling core (DTypeError when it is a dtype refusal)."""
    cls = DTypeError if v.get("is_dtype") else ConstraintError
    return cls(v["op"], v["argument"], v["constraint"], actual=v["actual"] or None, limit=v["limit"] or None,
               soc=v["soc"] or None, suggestion=v["suggestion"] or None)


# ------------------------------------------------------------------------------------------------ plans
class Plan:
    """A tiling plan: the kernel tiling (`tiling`, field -> int), the explanation (`explanation`: cores, work per
    core, UB map, GM ranges, passes, notes) and the request it answers (`request`)."""

    def __init__(self, op: str, request: dict, tiling: dict, explanation: dict) -> None:
        self.op = op
        self.request = request
        self.tiling = tiling
        self.explanation = explanation

    @property
    def soc(self) -> str:
        return self.explanation["soc"]

    @property
    def used_cores(self) -> int:
        return int(self.explanation["used_cores"])

    def to_dict(self) -> dict:
        return {"op": self.op, "request": dict(self.request), "tiling": dict(self.tiling),
                "explanation": self.explanation}

    def __repr__(self) -> str:
        e = self.explanation
        return (f"<Plan {self.op} on {e['soc']}: mode={e['mode']} cores={e['used_cores']}/{e['core_capacity']} "
                f"ub={_ub_used(e)}/{e['ub_capacity']}>")

    def __str__(self) -> str:
        return format_plan(self.op, self.request, self.tiling, self.explanation)


def _ub_used(e: Mapping[str, Any]) -> int:
    return max((b["offset"] + b["bytes"] * b["slots"] for b in e["ub"]), default=0)


def _per_core(e: Mapping[str, Any]) -> Dict[int, List[Tuple[int, int]]]:
    per: Dict[int, List[Tuple[int, int]]] = {}
    for w in e["work"]:
        per.setdefault(int(w["core"]), []).append((int(w["begin"]), int(w["end"])))
    return per


def _request_text(op: str, r: Mapping[str, Any]) -> str:
    if op == DQ:
        extra = []
        if r.get("smooth"):
            extra.append("smooth")
        if r.get("asymmetric"):
            extra.append("asymmetric")
        return (f"x {list(r['shape'])} {r['x_dtype']} -> {r['dst_type']}" + (f" ({', '.join(extra)})" if extra
                                                                              else ""))
    b = list(r["b_shape"])
    stored = f", stored transposed as {b[:-2] + [b[-1], b[-2]]}" if r.get("b_trans") and len(b) >= 2 else ""
    batched = [text for name, text in (("a_param_batched", "a's vectors per batch matrix"),
                                       ("b_param_batched", "b's vectors per batch matrix"),
                                       ("bias_batched", "a bias per batch matrix")) if r.get(name)]
    if op == "quant_matmul":
        params = [f"{name} {r[name]}" for name in ("a_scale", "b_scale", "a_zero_point", "b_zero_point", "bias")
                  if r.get(name)]
        return (f"a {list(r['a_shape'])} {r['a_dtype']} x b {b} {r['b_dtype']}{stored} -> {r['out_dtype']} "
                f"({', '.join(params + batched)})")
    extra = "".join(f", {t}" for t in batched)
    return (f"a {list(r['a_shape'])} {r['a_dtype']} ({r['a_param']} params) x b {b} "
            f"{r['b_dtype']} ({r['b_param']} params{stored}{extra}) -> y {r['y_dtype']}")


def format_plan(op: str, request: Mapping[str, Any], tiling: Mapping[str, int], e: Mapping[str, Any]) -> str:
    """The readable text of a plan: cores used, work per core, the UB map with every buffer, passes, notes."""
    lines = [f"{op} plan on {e['soc']}: {_request_text(op, request)}",
             f"  mode: {e['mode']}; passes over the input: {e['passes']}"]
    unit = e["work_unit"] or "unit"
    per = _per_core(e)
    counts = {c: sum(b - a for a, b in rs) for c, rs in per.items()}
    if counts:
        lo, hi = min(counts.values()), max(counts.values())
        spread = f"{lo}" if lo == hi else f"{lo}..{hi}"
    else:
        spread = "0"
    lines.append(f"  cores: {e['used_cores']} used of {e['core_capacity']}; work: {e['total_work']} {unit}(s), "
                 f"{spread} per core")
    # One line per run of cores with the same amount of work, so 64 cores stay readable.
    cores = sorted(per)
    i = 0
    while i < len(cores):
        j = i
        while (j + 1 < len(cores) and cores[j + 1] == cores[j] + 1 and counts[cores[j + 1]] == counts[cores[i]]
               and len(per[cores[j + 1]]) == 1 and len(per[cores[i]]) == 1):
            j += 1
        c0, c1 = cores[i], cores[j]
        first = per[c0][0][0]
        last = per[c1][-1][1]
        name = f"core {c0}" if c0 == c1 else f"cores {c0}-{c1}"
        if len(per[c0]) == 1:
            lines.append(f"    {name}: {counts[c0]} {unit}(s) each, [{first}, {last})" if c0 != c1 else
                         f"    {name}: {counts[c0]} {unit}(s), [{first}, {last})")
        else:
            ranges = ", ".join(f"[{a}, {b})" for a, b in per[c0][:4]) + (" ..." if len(per[c0]) > 4 else "")
            lines.append(f"    {name}: {counts[c0]} {unit}(s) in {len(per[c0])} ranges: {ranges}")
        i = j + 1
    used = _ub_used(e)
    cap = e["ub_capacity"] or 1
    lines.append(f"  UB map: {used} of {e['ub_capacity']} bytes ({100.0 * used / cap:.1f}%)")
    lines.append(f"    {'offset':>8} {'bytes':>8} {'slots':>5} {'end':>8}  buffer")
    for b in sorted(e["ub"], key=lambda b: b["offset"]):
        end = b["offset"] + b["bytes"] * b["slots"]
        lines.append(f"    {b['offset']:>8} {b['bytes']:>8} {b['slots']:>5} {end:>8}  {b['name']}")
    if e.get("tensors"):
        lines.append("  GM tensors: " + ", ".join(f"{t['name']} {t['bytes']} B" + (" (out)" if t["output"] else "")
                                                  for t in e["tensors"]))
    lines.append(f"  GM ranges planned: {len(e['gm'])}")
    if tiling:
        lines.append("  tiling: " + ", ".join(f"{k}={v}" for k, v in tiling.items()))
    if e["notes"]:
        lines.append("  notes:")
        lines.extend(f"    - {n}" for n in e["notes"])
    return "\n".join(lines)


def _require_soc_name(soc: Any, op: str) -> str:
    if soc is None:
        raise ConstraintError(op, "soc", "a SoC is required to plan", actual=None,
                              expected=" | ".join(soc_names()), suggestion="pass soc='ascend910b' for example")
    if not isinstance(soc, str):
        raise ConstraintError(op, "soc", "the SoC is given by name", actual=repr(soc),
                              expected=" | ".join(soc_names()))
    if not soc.isprintable():
        canonical_soc(soc, op=op)  # raises: unknown SoC name (a NUL would end the name early in C++)
    return soc


def _override(value: Any, name: str, op: str, soc: Optional[str] = None) -> int:
    """None -> 0 (the table value); a positive int otherwise."""
    if value is None:
        return 0
    if soc is not None:
        soc = canonical_soc(soc, op=op)  # an unknown SoC is the first error; the override's names the canonical one
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ConstraintError(op, name, f"{name} must be an integer or None", actual=repr(value), soc=soc,
                              expected="a positive int, or None for the SoC table's value")
    if int(value) <= 0:
        raise ConstraintError(op, name, f"{name} must be positive", actual=int(value), limit=">= 1", soc=soc,
                              suggestion=f"pass {name}=None to use the SoC table's value")
    if int(value) >= 2 ** 63:  # the tiling core checks the real limits; it takes a 64-bit integer
        raise ConstraintError(op, name, f"{name} is out of range", actual=int(value), limit="< 2^63", soc=soc,
                              suggestion=f"pass {name}=None to use the SoC table's value")
    return int(value)


def _shape(shape: Any, op: str, argument: str, soc: Optional[str] = None) -> List[int]:
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Iterable):
        raise ConstraintError(op, argument, "a shape is a sequence of integers", actual=repr(shape),
                              expected="e.g. (4096, 7168)")
    out = []
    for d in shape:
        if isinstance(d, bool) or not isinstance(d, numbers.Integral):
            raise ConstraintError(op, argument, "shape entries must be integers", actual=repr(tuple(shape)),
                                  expected="e.g. (4096, 7168)")
        d = int(d)
        if d < 0:
            raise ConstraintError(op, argument, "shape entries must be non-negative", actual=repr(tuple(shape)),
                                  limit=">= 0")
        if d >= 2 ** 62:
            raise ConstraintError(op, argument, "shape entry too large", actual=d, limit="< 2^62", soc=soc,
                                  suggestion="no tensor with such a dimension fits a device's memory: check the shape")
        out.append(d)
    return out


def _native_plan(name: str):
    fn = getattr(_native, name, None)
    if fn is None:
        raise NotImplementedError(
            f"this build of ascend_quant_ops._native has no {name}: its plan "
            f"(op_host/tiling_core/{name[len('plan_'):]}_plan.cpp and python/csrc/bind_{name[len('plan_'):]}_plan.cpp)"
            f" is not compiled in; groups present: {', '.join(_native.binding_groups())}. Rebuild with "
            f"scripts/dev_build.sh after pulling the plan sources.")
    return fn


def plan_dynamic_quant(shape: Sequence[int], dtype: Any, *, soc: str, dst_type: Any = "int8", smooth: bool = False,
                       asymmetric: bool = False, core_num: Optional[int] = None,
                       ub_size: Optional[int] = None) -> Plan:
    """The DynamicQuant plan of x `shape` / `dtype` on `soc`, or ConstraintError / DTypeError naming the violated
    constraint (ATB's documented limits, dtypes per SoC, UB). `core_num` / `ub_size` replace the SoC table's values (the
    device reports the real ones); dtypes by name, numpy or torch dtype; dst_type also as an ATB code."""
    soc = _require_soc_name(soc, DQ)
    dims = _shape(shape, DQ, "x", soc)
    x_name = dtypes.parse_dtype(dtype, op=DQ, argument="x")
    # uint8 (the asymmetric zero-point mode's output) is named here in both modes: the tiling core refuses it in
    # the symmetric one, naming the SoC
    if not isinstance(dst_type, (int, np.integer)) and dtypes.dtype_name(dst_type) == dtypes.UINT8:
        dst_name = dtypes.UINT8
    else:
        dst_name = dtypes.parse_dst_type(dst_type, op=DQ, argument="dst_type")
    cn = _override(core_num, "core_num", DQ, soc)
    ub = _override(ub_size, "ub_size", DQ, soc)
    request = {"shape": tuple(dims), "x_dtype": x_name, "dst_type": dst_name, "smooth": bool(smooth),
               "asymmetric": bool(asymmetric), "soc": soc, "core_num": core_num, "ub_size": ub_size}
    fn = getattr(_native, "plan_dynamic_quant", None)
    if fn is None:
        # Without the plan, still refuse what the request check refuses, then say the plan is missing.
        _raise_if_refused(_native.check_dynamic_quant(dims, x_name, dst_name, bool(smooth), bool(asymmetric), soc,
                                                      cn, ub))
        _native_plan("plan_dynamic_quant")
    out = fn(dims, x_name, dst_name, bool(smooth), bool(asymmetric), soc, cn, ub)
    _raise_if_refused(out)
    return Plan(DQ, request, dict(out["tiling"]), out["explanation"])


def plan_qlinear_matmul(a_shape: Sequence[int], b_shape: Sequence[int], *, soc: str, a_dtype: Any = "int8",
                        b_dtype: Any = "int8", y_dtype: Any = "int8", a_param: str = "tensor",
                        b_param: str = "tensor", core_num: Optional[int] = None,
                        ub_size: Optional[int] = None, a_param_batched: bool = False,
                        b_param_batched: bool = False, b_trans: bool = False) -> Plan:
    """The QLinearMatMul plan of a [..., M, K] x b [..., K, N] on `soc` (b_trans: b stored [..., N, K], a transposed
    view read so by the kernel), or ConstraintError / DTypeError.
    a_param: "tensor" | "row" (per row of a); b_param: "tensor" | "column" (per column of b); *_param_batched: the
    per-row / per-column parameters carry the operand's batch dims (what the emulator backend passes for batched
    operands) rather than one vector shared by every batch matrix."""
    soc = _require_soc_name(soc, QMM)
    a_dims = _shape(a_shape, QMM, "a", soc)
    b_dims = _shape(b_shape, QMM, "b", soc)
    allowed = dtypes.QLINEAR_MATMUL_TYPES
    a_name = dtypes.parse_dtype(a_dtype, op=QMM, argument="a", allowed=allowed)
    b_name = dtypes.parse_dtype(b_dtype, op=QMM, argument="b", allowed=allowed)
    y_name = dtypes.parse_dtype(y_dtype, op=QMM, argument="y", allowed=allowed)
    for arg, value, kinds in (("a_param", a_param, ("tensor", "row")), ("b_param", b_param, ("tensor", "column"))):
        if value not in kinds:
            raise ConstraintError(QMM, arg, "quantization parameter granularity", actual=repr(value),
                                  expected=" | ".join(kinds))
    cn = _override(core_num, "core_num", QMM, soc)
    ub = _override(ub_size, "ub_size", QMM, soc)
    request = {"a_shape": tuple(a_dims), "b_shape": tuple(b_dims), "a_dtype": a_name, "b_dtype": b_name,
               "y_dtype": y_name, "a_param": a_param, "b_param": b_param, "b_trans": bool(b_trans), "soc": soc,
               "core_num": core_num, "ub_size": ub_size, "a_param_batched": bool(a_param_batched),
               "b_param_batched": bool(b_param_batched)}
    fn = getattr(_native, "plan_qlinear_matmul", None)
    if fn is None:
        _raise_if_refused(_native.check_qlinear_matmul(a_dims, b_dims, a_name, b_name, y_name, a_param, b_param,
                                                       soc, cn, ub))
        _native_plan("plan_qlinear_matmul")
    out = fn(a_dims, b_dims, a_name, b_name, y_name, a_param, b_param, soc, cn, ub, bool(a_param_batched),
             bool(b_param_batched), bool(b_trans))
    _raise_if_refused(out)
    return Plan(QMM, request, dict(out["tiling"]), out["explanation"])


def plan_quant_matmul(a_shape: Sequence[int], b_shape: Sequence[int], *, soc: str, a_dtype: Any = "int8",
                      b_dtype: Any = "int8", out_dtype: Any = "float32", a_scale: str = "tensor",
                      b_scale: str = "tensor", a_zero_point: Optional[str] = None, b_zero_point: Optional[str] = None,
                      bias: Optional[str] = None, b_trans: bool = False, a_param_batched: bool = False,
                      b_param_batched: bool = False, bias_batched: bool = False, core_num: Optional[int] = None,
                      ub_size: Optional[int] = None) -> Plan:
    """The quant_matmul plan of a [..., M, K] x b [..., K, N] on `soc` (b_trans: b stored [..., N, K]), or
    ConstraintError / DTypeError. Layouts: a_scale "tensor" | "row", b_scale "tensor" | "column", a_zero_point None |
    "tensor" | "row", b_zero_point None | "tensor" | "column", bias None | "tensor" | "column"."""
    from ._opnames import QUANT_MATMUL as QM
    soc = _require_soc_name(soc, QM)
    a_dims = _shape(a_shape, QM, "a", soc)
    b_dims = _shape(b_shape, QM, "b", soc)
    a_name = dtypes.parse_dtype(a_dtype, op=QM, argument="a")
    b_name = dtypes.parse_dtype(b_dtype, op=QM, argument="b")
    out_name = dtypes.parse_dtype(out_dtype, op=QM, argument="out_dtype")
    cn = _override(core_num, "core_num", QM, soc)
    ub = _override(ub_size, "ub_size", QM, soc)
    request = {"a_shape": tuple(a_dims), "b_shape": tuple(b_dims), "a_dtype": a_name, "b_dtype": b_name,
               "out_dtype": out_name, "a_scale": a_scale, "b_scale": b_scale, "a_zero_point": a_zero_point,
               "b_zero_point": b_zero_point, "bias": bias, "b_trans": bool(b_trans), "soc": soc,
               "core_num": core_num, "ub_size": ub_size, "a_param_batched": bool(a_param_batched),
               "b_param_batched": bool(b_param_batched), "bias_batched": bool(bias_batched)}
    out = _native.plan_quant_matmul(a_dims, b_dims, bool(b_trans), a_name, b_name, out_name, a_scale, b_scale,
                                    a_zero_point or "none", b_zero_point or "none", bias or "none",
                                    bool(a_param_batched), bool(b_param_batched), bool(bias_batched), soc, cn, ub)
    _raise_if_refused(out)
    return Plan(QM, request, dict(out["tiling"]), out["explanation"])


def classify_matmul_param(op: str, name: str, dims: Sequence[int], row: bool, length: int, batch: Sequence[int],
                          soc: str) -> Dict[str, Any]:
    """The layout a CANN operator's TilingFunc reads from a parameter's shape (the tiling core's ClassifyMatMulParam;
    op 'qlinear_matmul' or 'quant_matmul'): row, a's per row of M = length, else b's per column of N = length; batch:
    the operand's batch dims. {'kind': 'tensor' | 'vector', 'batched': bool}; a shape the device refuses raises its
    ConstraintError."""
    out = _native.classify_quant_matmul_param(name, [int(d) for d in dims], bool(row), int(length),
                                              [int(d) for d in batch], soc, op)
    _raise_if_refused(out)
    return {"kind": out["kind"], "batched": bool(out["batched"])}


def _raise_if_refused(out: Mapping[str, Any]) -> None:
    if not out["ok"]:
        raise violation_error(out["violation"])


# ------------------------------------------------------------------------------------------------ invariants
def verify_violation(v: Mapping[str, Any], *, op: Optional[str] = None, soc: Optional[str] = None) -> List[str]:
    """Problems of a refusal: every field must be filled (soc may be empty only for SoC-independent arguments)."""
    problems = []
    for field in ("op", "argument", "constraint", "limit", "actual", "suggestion"):
        if not str(v.get(field) or "").strip():
            problems.append(f"violation field '{field}' is empty")
    if v.get("op") not in (DQ, QMM):
        problems.append(f"violation op {v.get('op')!r} is not {DQ!r} or {QMM!r}")
    if op is not None and v.get("op") != op:
        problems.append(f"violation op {v.get('op')!r}, expected {op!r}")
    if soc is not None and v.get("argument") not in ("soc",) and v.get("soc") != soc:
        problems.append(f"violation soc {v.get('soc')!r}, expected {soc!r}")
    if not isinstance(v.get("is_dtype"), bool):
        problems.append("violation is_dtype is not a bool")
    return problems


def verify_explanation(e: Mapping[str, Any], *, soc_spec_: Optional[Mapping[str, Any]] = None,
                       expected_work: Optional[int] = None,
                       expected_tensors: Optional[Mapping[str, int]] = None,
                       core_limit: Optional[int] = None, ub_limit: Optional[int] = None) -> List[str]:
    """Checks the invariants every plan's explanation must satisfy; returns the problems found (empty = valid).

    - cores: 1 <= used_cores <= core_capacity (<= core_limit when given) whenever there is work; every used core
      has work; balance within balance_unit when the plan claims one.
    - work: the ranges cover [0, total_work) exactly once (total_work == expected_work when given).
    - UB: every buffer 32-byte aligned in offset and size, slots >= 1, inside [0, ub_capacity), no two
      overlapping; ub_capacity <= ub_limit (the SoC's UB) when given; names unique.
    - GM: every range inside a declared tensor, begin <= end, by a used core; the tensors' sizes equal
      expected_tensors when given; every output tensor's bytes written, and no byte written by two cores; on a SoC
      without DataCopyPad the DMA part of every write range is whole 32-byte blocks (a scalar-stored tail is
      declared in scalar_bytes, or is the partial last block of a range ending at the tensor's end), or whole
      blocks inside the range the last of which overlaps the one before by rewrite_bytes.
      A range with count > 1 stands for count repetitions [begin + i * stride, end + i * stride) (stride at least
      end - begin); scalar_bytes / rewrite_bytes apply to each. Checks are per range, not per repetition, except
      the output coverage, which merges repetitions that touch (stride == end - begin) into one interval.
    """
    p: List[str] = []
    align = int(soc_spec_["ub_align_bytes"]) if soc_spec_ else 32
    block = int(soc_spec_["copy_block_bytes"]) if soc_spec_ else 32
    has_pad = bool(soc_spec_["has_data_copy_pad"]) if soc_spec_ else True

    total = int(e["total_work"])
    used = int(e["used_cores"])
    cap = int(e["core_capacity"])
    if expected_work is not None and total != expected_work:
        p.append(f"total_work {total} != expected {expected_work}")
    if used > cap:
        p.append(f"used_cores {used} > core_capacity {cap}")
    if core_limit is not None and cap > core_limit:
        p.append(f"core_capacity {cap} > the SoC's {core_limit} cores")
    if total > 0 and used < 1:
        p.append(f"used_cores {used} with {total} work units")
    if int(e["passes"]) < 1:
        p.append(f"passes {e['passes']} < 1")
    if not e["mode"]:
        p.append("mode is empty")

    # Work: exactly-once coverage of [0, total).
    ranges = sorted((int(w["begin"]), int(w["end"]), int(w["core"])) for w in e["work"])
    pos = 0
    per_core: Dict[int, int] = {}
    for b, en, c in ranges:
        if en < b:
            p.append(f"work range [{b}, {en}) of core {c} is reversed")
            continue
        if c >= used:
            p.append(f"work range [{b}, {en}) on core {c} >= used_cores {used}")
        if b < pos:
            p.append(f"work [{b}, {en}) of core {c} overlaps work before {pos} (covered twice)")
        elif b > pos:
            p.append(f"work [{pos}, {b}) is covered by no core")
        pos = max(pos, en)
        per_core[c] = per_core.get(c, 0) + (en - b)
    if pos < total:
        p.append(f"work [{pos}, {total}) is covered by no core")
    elif pos > total:
        p.append(f"work extends to {pos}, past total_work {total}")
    if total > 0:
        idle = [c for c in range(used) if per_core.get(c, 0) == 0]
        if idle:
            p.append(f"cores {idle[:8]} are launched with no work")
    unit = int(e.get("balance_unit", 0) or 0)
    if unit > 0 and per_core and total > 0:
        loads = [per_core.get(c, 0) for c in range(used)]
        if max(loads) - min(loads) > unit:
            p.append(f"work imbalance {max(loads)} - {min(loads)} > balance_unit {unit}")

    # UB map.
    ub_cap = int(e["ub_capacity"])
    if ub_limit is not None and ub_cap > ub_limit:
        p.append(f"ub_capacity {ub_cap} > the SoC's UB {ub_limit}")
    names = set()
    spans = []
    for buf in e["ub"]:
        n, off, size, slots = buf["name"], int(buf["offset"]), int(buf["bytes"]), int(buf["slots"])
        if n in names:
            p.append(f"UB buffer name '{n}' used twice")
        names.add(n)
        if off % align:
            p.append(f"UB buffer '{n}' offset {off} not {align}-byte aligned")
        if size % align:
            p.append(f"UB buffer '{n}' size {size} not a multiple of {align}")
        if size <= 0:
            p.append(f"UB buffer '{n}' has size {size}")
        if slots < 1:
            p.append(f"UB buffer '{n}' has {slots} slots")
        end = off + size * max(slots, 1)
        if end > ub_cap:
            p.append(f"UB buffer '{n}' [{off}, {end}) ends past ub_capacity {ub_cap}")
        spans.append((off, end, n))
    spans.sort()
    for (o1, e1, n1), (o2, e2, n2) in zip(spans, spans[1:]):
        if o2 < e1:
            p.append(f"UB buffers '{n1}' [{o1}, {e1}) and '{n2}' [{o2}, {e2}) overlap")

    # GM ranges.
    tensors = {t["name"]: (int(t["bytes"]), bool(t["output"])) for t in e.get("tensors", [])}
    if expected_tensors is not None:
        for name, size in expected_tensors.items():
            if name not in tensors:
                p.append(f"GM tensor '{name}' is not declared")
            elif tensors[name][0] != size:
                p.append(f"GM tensor '{name}' declared {tensors[name][0]} bytes, the request gives {size}")
    writes: Dict[str, List[Tuple[int, int, int, int, int]]] = {}
    bad_range_reported = 0
    for g in e["gm"]:
        t, b, en, c = g["tensor"], int(g["begin"]), int(g["end"]), int(g["core"])
        count, stride = int(g.get("count", 1)), int(g.get("stride", 0))
        last_end = en + (count - 1) * stride
        problem = None
        if t not in tensors:
            problem = f"GM range on undeclared tensor '{t}'"
        elif en < b:
            problem = f"GM range [{b}, {en}) of '{t}' is reversed"
        elif count < 1:
            problem = f"GM range [{b}, {en}) of '{t}' has {count} repetitions"
        elif count > 1 and stride < en - b:
            problem = f"GM range [{b}, {en}) of '{t}' repeats every {stride} bytes: its repetitions overlap"
        elif last_end > tensors[t][0]:
            problem = (f"GM range [{b}, {en})" + (f" x {count} every {stride}" if count > 1 else "") +
                       f" of '{t}' by core {c} ends past the tensor's {tensors[t][0]} bytes "
                       f"({'write' if g['write'] else 'read'})")
        elif c >= max(used, 1):
            problem = f"GM range of '{t}' by core {c} >= used_cores {used}"
        if problem:
            bad_range_reported += 1
            if bad_range_reported <= 8:
                p.append(problem)
            continue
        if not has_pad and g["write"]:
            # Without DataCopyPad a DMA moves whole 32-byte blocks: the DMA part of a write range must be whole
            # blocks, or it lands on bytes the plan does not list. A partial last block is stored by scalar writes:
            # declared in scalar_bytes, or implied for the tail of a range that ends exactly at the tensor's end.
            # (Reads are recorded as the bytes the kernel uses; their rounding up is checked by the emulator.)
            # A range may instead end in a whole block that overlaps the one before it: rewrite_bytes declares the
            # bytes the DMA writes twice; that last block must lie inside the range's DMA part.
            scalar = int(g.get("scalar_bytes", 0) or 0)
            rewrite = int(g.get("rewrite_bytes", 0) or 0)
            if scalar == 0 and rewrite == 0 and last_end == tensors[t][0] and count == 1:
                scalar = (en - b) % block
            dma = en - b - scalar
            if scalar > en - b or (dma + rewrite) % block or rewrite >= block or (rewrite and dma < block):
                bad_range_reported += 1
                if bad_range_reported <= 8:
                    p.append(f"GM write [{b}, {en}) of '{t}' by core {c}: {dma} DMA bytes (+ {rewrite} written "
                             f"twice) are not a whole number of {block}-byte blocks inside the range (no "
                             f"DataCopyPad on this SoC; scalar tail {scalar} bytes)")
        if g["write"]:
            writes.setdefault(t, []).append((b, en, stride, count, c))
    if bad_range_reported > 8:
        p.append(f"... {bad_range_reported - 8} more bad GM ranges")
    for t, (size, is_out) in tensors.items():
        ws = sorted(_write_intervals(writes.get(t, [])))
        # No byte written by two different cores (a race: one core's value may be lost).
        reach = []  # (end, core) of the furthest write so far
        cov = 0
        for b, en, c in ws:
            if b < cov:
                # Find a write by another core reaching past b.
                clash = [rc for rend, rc in reach if rend > b and rc != c]
                if clash:
                    p.append(f"GM tensor '{t}': bytes from {b} written by core {c} and core {clash[0]}")
                    break
            if b > cov and is_out:
                p.append(f"GM output '{t}': bytes [{cov}, {b}) written by no core")
                break
            reach = [(rend, rc) for rend, rc in reach if rend > b] + [(en, c)]
            cov = max(cov, en)
        else:
            if is_out and cov < size:
                p.append(f"GM output '{t}': bytes [{cov}, {size}) written by no core")
    return p


def _write_intervals(ranges):
    """(begin, end, core) intervals of write ranges (begin, end, stride, count, core): repetitions that touch
    (stride == end - begin) as one interval, others one interval each."""
    for b, en, stride, count, c in ranges:
        if count <= 1 or stride == en - b:
            yield b, en + (count - 1) * stride, c
        else:
            for i in range(count):
                yield b + i * stride, en + i * stride, c
