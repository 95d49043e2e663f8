"""The precision criteria, as Ascend applies them to its own operators (docs/references.md#precision-criteria), one function per output kind.

Each check returns a dict: {"criterion", "passed", "message", "stats", "histogram": {"labels", "counts"}}.
The shape and dtype must equal the golden's before any value is compared; NaN must sit where the golden has NaN.

* integer outputs (DynamicQuant int8 y, QLinearMatMul int8 / uint8 y), CANN commercial standard for integer
  outputs of float computations: every element |actual - golden| <= 1.
* scale (and offset), ATB's DynamicQuant test: every element |delta| <= 2^-8 * max(1, |golden|), and the mean
  of |delta| / max(1, |golden|) <= 2^-10. Non-finite golden values must be matched exactly.
* float8 and hifloat8 outputs, judged as floats by error ratio: every element within one ulp of the golden
  (the golden's value or an adjacent representable value of the format), and the error ratio, the share of
  elements that are not equal to the golden, at most 0.1% (OPSNN's 950 tests allow 0.1% mismatches; with 3 or
  fewer mantissa bits any mismatch is at least one ulp, so a relative tolerance below one ulp means equality).
* float32, float16 and bfloat16 outputs (quant_matmul's y), judged the same way: every element within one ulp of
  the output format, the error ratio at most 0.1%, and NaN / +-Inf exactly where the golden has them (the
  definition is exact, so a device that implements it gives 0 ulp; the ulp allows a conversion of another
  rounding, which the error ratio then bounds).
"""
from __future__ import annotations

import functools
from typing import Dict, List, Tuple

import numpy as np

from .. import dtypes
from .._opnames import DYNAMIC_QUANT

#: output types judged by check_float_output, and the unsigned integer type of their bit patterns
FLOAT_OUTPUT_BITS = {"float32": np.uint32, "float16": np.uint16, "bfloat16": np.uint16}

INT_MAX_DELTA = 1
SCALE_ELEMENT = 2.0 ** -8
SCALE_MEAN = 2.0 ** -10
FLOAT8_MAX_ULP = 1
FLOAT8_ERROR_RATIO = 1e-3


def _result(criterion: str, passed: bool, message: str, stats: dict, labels: List[str], counts: List[int],
            bad: Tuple[int, ...] = ()) -> dict:
    """`bad`: indices of the histogram bins that break the criterion (drawn red in the report)."""
    return {"criterion": criterion, "passed": bool(passed), "message": message, "stats": stats,
            "histogram": {"labels": labels, "counts": [int(c) for c in counts],
                          "bad": [i in bad for i in range(len(labels))]}}


def _shape_dtype(actual: np.ndarray, golden: np.ndarray, criterion: str):
    if actual.shape != golden.shape:
        return _result(criterion, False, f"shape {list(actual.shape)} != golden {list(golden.shape)}", {}, [], [])
    a_name, g_name = dtypes.dtype_name(actual.dtype), dtypes.dtype_name(golden.dtype)
    if a_name != g_name:
        return _result(criterion, False, f"dtype {a_name or actual.dtype} != golden {g_name}", {}, [], [])
    return None


def check_integer(actual: np.ndarray, golden: np.ndarray) -> dict:
    """Every element within INT_MAX_DELTA of the golden."""
    crit = f"integer: every |delta| <= {INT_MAX_DELTA}"
    bad = _shape_dtype(actual, golden, crit)
    if bad:
        return bad
    d = actual.astype(np.int64) - golden.astype(np.int64)
    ad = np.abs(d)
    n = int(d.size)
    over = int((ad > INT_MAX_DELTA).sum())
    labels = ["<= -3", "-2", "-1", "0", "+1", "+2", ">= +3"]
    counts = [(d <= -3).sum(), (d == -2).sum(), (d == -1).sum(), (d == 0).sum(), (d == 1).sum(), (d == 2).sum(),
              (d >= 3).sum()]
    stats = {"elements": n, "max_abs_delta": int(ad.max()) if n else 0,
             "mean_abs_delta": float(ad.mean()) if n else 0.0, "not_equal": int((d != 0).sum()),
             "error_ratio": float((d != 0).sum() / n) if n else 0.0, "over_limit": over}
    msg = "ok" if over == 0 else f"{over} of {n} elements differ by more than {INT_MAX_DELTA}"
    return _result(crit, over == 0, msg, stats, labels, counts, bad=(0, 1, 5, 6))


def check_scale(actual: np.ndarray, golden: np.ndarray) -> dict:
    """ATB's scale criterion; non-finite golden values must be reproduced exactly (NaN as NaN, same-signed Inf)."""
    crit = "scale: |delta| <= 2^-8*max(1,|golden|) each, mean <= 2^-10"
    bad = _shape_dtype(actual, golden, crit)
    if bad:
        return bad
    a = actual.astype(np.float64).ravel()
    g = golden.astype(np.float64).ravel()
    n = int(g.size)
    finite = np.isfinite(g)
    nonfinite_mismatch = int((~finite & ~((np.isnan(g) & np.isnan(a)) | (g == a))).sum())
    with np.errstate(invalid="ignore", over="ignore"):
        rel = np.abs(a[finite] - g[finite]) / np.maximum(1.0, np.abs(g[finite]))
    rel = np.where(np.isnan(rel), np.inf, rel)  # a NaN where the golden is finite counts as unbounded
    over = int((rel > SCALE_ELEMENT).sum())
    mean = float(rel.mean()) if rel.size else 0.0
    passed = over == 0 and nonfinite_mismatch == 0 and mean <= SCALE_MEAN
    edges = [0.0, 2.0 ** -24, 2.0 ** -20, 2.0 ** -16, 2.0 ** -12, 2.0 ** -10, 2.0 ** -8]
    labels = ["NaN/Inf equal", "0", "< 2^-24", "< 2^-20", "< 2^-16", "< 2^-12", "< 2^-10", "<= 2^-8", "> 2^-8",
              "NaN/Inf miss"]
    counts = [int((~finite).sum()) - nonfinite_mismatch, int((rel == 0).sum())]
    for lo, hi in zip(edges[:-1], edges[1:]):
        counts.append(int(((rel > lo) & (rel < hi if hi != SCALE_ELEMENT else rel <= hi)).sum()))
    counts.append(over)
    counts.append(nonfinite_mismatch)
    stats = {"elements": n, "max_rel_delta": float(rel.max()) if rel.size else 0.0, "mean_rel_delta": mean,
             "not_equal": int((rel > 0).sum()) + nonfinite_mismatch,
             "error_ratio": float(((rel > 0).sum() + nonfinite_mismatch) / n) if n else 0.0,
             "over_limit": over, "nonfinite_mismatch": nonfinite_mismatch}
    if passed:
        msg = "ok"
    else:
        parts = []
        if over:
            parts.append(f"{over} of {n} exceed 2^-8*max(1,|golden|)")
        if mean > SCALE_MEAN:
            parts.append(f"mean relative delta {mean:.3g} > 2^-10")
        if nonfinite_mismatch:
            parts.append(f"{nonfinite_mismatch} NaN/Inf of the golden not reproduced")
        msg = "; ".join(parts)
    return _result(crit, passed, msg, stats, labels, counts, bad=(8, 9))


@functools.lru_cache(maxsize=None)
def _code_ranks(name: str) -> Tuple[np.ndarray, np.ndarray]:
    """For an 8-bit float format: (rank of each code's value among the format's ordered values, is-NaN per code).
    +0 and -0 share a rank; +-Inf rank beyond the largest finite values."""
    codes = np.arange(256, dtype=np.uint8).view(dtypes.numpy_dtype(name)).astype(np.float64)
    nan = np.isnan(codes)
    values = np.unique(codes[~nan])
    ranks = np.full(256, -1, np.int64)
    ranks[~nan] = np.searchsorted(values, codes[~nan])
    return ranks, nan


def _ulp_result(crit: str, n: int, ulp: np.ndarray, special_equal: int, special_miss: int, special: str,
                miss_key: str) -> dict:
    """The verdict of the ulp criteria (float8 and the wider float outputs): `ulp` holds the distances of the
    elements both sides hold as ordinary values; `special` names the values that must match exactly."""
    not_equal = int((ulp > 0).sum()) + special_miss
    over = int((ulp > FLOAT8_MAX_ULP).sum())
    ratio = not_equal / n if n else 0.0
    passed = over == 0 and special_miss == 0 and ratio <= FLOAT8_ERROR_RATIO
    labels = [f"{special} equal", "0 ulp", "1 ulp", "2 ulp", ">= 3 ulp", f"{special} miss"]
    counts = [special_equal, int((ulp == 0).sum()), int((ulp == 1).sum()), int((ulp == 2).sum()),
              int((ulp >= 3).sum()), special_miss]
    stats = {"elements": n, "max_ulp": int(ulp.max()) if ulp.size else 0, "not_equal": not_equal,
             "error_ratio": float(ratio), "over_limit": over, miss_key: special_miss}
    if passed:
        msg = "ok"
    else:
        parts = []
        if over:
            parts.append(f"{over} of {n} elements more than {FLOAT8_MAX_ULP} ulp away")
        if special_miss:
            parts.append(f"{special_miss} {special} placements differ")
        if ratio > FLOAT8_ERROR_RATIO:
            parts.append(f"error ratio {ratio:.3%} > {FLOAT8_ERROR_RATIO:.1%}")
        msg = "; ".join(parts)
    return _result(crit, passed, msg, stats, labels, counts, bad=(3, 4, 5))


def check_float8(actual: np.ndarray, golden: np.ndarray) -> dict:
    """Float8 / hifloat8: every element within FLOAT8_MAX_ULP ulp, error ratio <= FLOAT8_ERROR_RATIO."""
    crit = f"float8: every element within {FLOAT8_MAX_ULP} ulp, error ratio <= {FLOAT8_ERROR_RATIO:.1%}"
    bad = _shape_dtype(actual, golden, crit)
    if bad:
        return bad
    ranks, is_nan = _code_ranks(dtypes.dtype_name(golden.dtype))
    ca = actual.view(np.uint8).ravel()
    cg = golden.view(np.uint8).ravel()
    nan_a, nan_g = is_nan[ca], is_nan[cg]
    both = ~nan_a & ~nan_g
    ulp = np.abs(ranks[ca[both]] - ranks[cg[both]])
    return _ulp_result(crit, int(cg.size), ulp, int((nan_a & nan_g).sum()), int((nan_a != nan_g).sum()), "NaN",
                       "nan_mismatch")


def _ordered(bits: np.ndarray, width: int) -> np.ndarray:
    """IEEE bit patterns -> integers in the order of their values (+0 and -0 both 0, adjacent values 1 apart)."""
    b = bits.astype(np.int64)
    sign = np.int64(1) << (width - 1)
    return np.where(b & sign, -(b & (sign - 1)), b)


def check_float_output(actual: np.ndarray, golden: np.ndarray) -> dict:
    """float32 / float16 / bfloat16: every element within FLOAT8_MAX_ULP ulp, error ratio <= FLOAT8_ERROR_RATIO,
    NaN and +-Inf exactly where the golden has them."""
    crit = (f"float: every element within {FLOAT8_MAX_ULP} ulp, error ratio <= {FLOAT8_ERROR_RATIO:.1%}, "
            f"NaN / Inf exact")
    bad = _shape_dtype(actual, golden, crit)
    if bad:
        return bad
    bits, width = FLOAT_OUTPUT_BITS[dtypes.dtype_name(golden.dtype)], 8 * golden.dtype.itemsize
    fa, fg = actual.astype(np.float32).ravel(), golden.astype(np.float32).ravel()
    finite_a, finite_g = np.isfinite(fa), np.isfinite(fg)
    special_equal = ~finite_g & ((np.isnan(fg) & np.isnan(fa)) | (fg == fa))
    special_miss = int((~finite_g | ~finite_a).sum()) - int(special_equal.sum())
    both = finite_g & finite_a
    oa = _ordered(np.ascontiguousarray(actual).reshape(-1).view(bits), width)
    og = _ordered(np.ascontiguousarray(golden).reshape(-1).view(bits), width)
    return _ulp_result(crit, int(fg.size), np.abs(oa[both] - og[both]), int(special_equal.sum()), special_miss,
                       "NaN / Inf", "nonfinite_mismatch")


def check_output(kind: str, actual: np.ndarray, golden: np.ndarray) -> dict:
    """Dispatch on what the output is: "values" (y) picks integer / float8 by dtype; "scale" for scale / offset."""
    if kind == "scale":
        return check_scale(actual, golden)
    name = dtypes.dtype_name(golden.dtype)
    if name in ("int8", "uint8", "int32"):
        return check_integer(actual, golden)
    if name in FLOAT_OUTPUT_BITS:
        return check_float_output(actual, golden)
    return check_float8(actual, golden)


def outputs_of(op: str, asymmetric: bool = False) -> Dict[str, str]:
    """Output name -> check kind, in the operator's return order."""
    if op == DYNAMIC_QUANT:
        out = {"y": "values", "scale": "scale"}
        if asymmetric:
            out["offset"] = "scale"
        return out
    return {"y": "values"}
