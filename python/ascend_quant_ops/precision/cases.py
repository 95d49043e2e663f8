"""The precision case list: what the suite runs on a backend, per SoC.

The list is derived from the SoC table (op_host/tiling_core/soc_table.cpp through tiling.soc_table()): each SoC's
input dtypes, output types, tail-axis limits and alignment give its cases, so a change of a limit changes the
cases. Three kinds:

* "compare": run the backend and compare with the golden under the criteria of criteria.py.
* "refuse":  the SoC cannot run this (a limit + 1, a dtype it lacks, asymmetric mode): the backend must raise
             ConstraintError before computing. A backend that computes anyway fails the case.

Inputs are made from a seed derived from the case id, so a case is the same data on every machine.
"""
from __future__ import annotations

import dataclasses
import zlib
from typing import Any, Dict, List, Optional

import numpy as np

from .. import dtypes

from .._opnames import DYNAMIC_QUANT as DQ  # noqa: E402
from .._opnames import QLINEAR_MATMUL as QMM  # noqa: E402
from .._opnames import QUANT_MATMUL as QM  # noqa: E402

_SHORT = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "int8": "s8", "uint8": "u8", "hifloat8": "hif8",
          "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}


@dataclasses.dataclass
class Case:
    id: str
    op: str
    soc: str
    kind: str  # "compare" | "refuse"
    title: str
    params: Dict[str, Any]
    tags: List[str] = dataclasses.field(default_factory=list)

    @property
    def seed(self) -> int:
        return zlib.crc32(self.id.encode())

    def make_inputs(self) -> Dict[str, Any]:
        """The operator's arguments as numpy arrays (bfloat16 / float8 from ml_dtypes)."""
        rng = np.random.default_rng(self.seed)
        if self.op == DQ:
            return _dq_inputs(self.params, rng)
        if self.op == QM:
            return _qm_inputs(self.params, rng)
        return _qmm_inputs(self.params, rng)

    def to_dict(self) -> dict:
        return {"id": self.id, "op": self.op, "soc": self.soc, "kind": self.kind, "title": self.title,
                "params": {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.params.items()},
                "tags": self.tags, "seed": self.seed}


# --------------------------------------------------------------------------------------------- DynamicQuant inputs
# ATB's worked example (float16; the "(float8)" label in the spec is a typo, docs/references.md#atb-dynamicquant).
ATB_EXAMPLE_X = [[[5.273, 6.836, 11.99, 6.01], [9.42, 15.3, -4.484, -3.783]],
              [[-2.002, 0.746, 3.756, 15.11], [-3.05, 12.1, 5.81, -1.298]]]


def _dq_inputs(p: Dict[str, Any], rng: np.random.Generator) -> Dict[str, Any]:
    if p.get("special") == "atb_example":
        return {"x": np.array(ATB_EXAMPLE_X, np.float16), "smooth_scales": None}
    shape = tuple(p["shape"])
    x_dtype = dtypes.numpy_dtype(p["x_dtype"])
    special = p.get("special", "normal")
    h = shape[-1] if shape else 0
    x = rng.standard_normal(shape).astype(np.float32) * np.float32(p.get("magnitude", 4.0))
    rows = x.reshape(int(np.prod(shape[:-1], dtype=np.int64)), h)  # a view: editing rows edits x
    n_rows = rows.shape[0]
    if special == "special_values" and n_rows and h:
        # One kind of row each: all zero, NaN, +Inf, -Inf, NaN and Inf, fp16 max, subnormal-only, a single
        # non-zero element; the remaining rows stay normal.
        kinds = ["zero", "nan", "posinf", "neginf", "nan_inf", "max", "subnormal", "single"]
        for i, kind in enumerate(kinds[:n_rows]):
            r = rows[i]
            col = int(rng.integers(0, h))
            if kind == "zero":
                r[:] = 0
                r[::2] = -0.0
            elif kind == "nan":
                r[col] = np.nan
            elif kind == "posinf":
                r[col] = np.inf
            elif kind == "neginf":
                r[col] = -np.inf
            elif kind == "nan_inf":
                r[col] = np.nan
                r[(col + 1) % h] = np.inf
            elif kind == "max":
                r[col] = 65504.0 if p["x_dtype"] == "float16" else 3.0e38
            elif kind == "subnormal":
                r[:] = rng.integers(-3, 4, h).astype(np.float32) * np.float32(2.0 ** -24)
            elif kind == "single":
                r[:] = 0
                r[col] = 1.5
    elif special == "ties" and h:
        # Integers and half-integers only, with row maximum 127: y = x exactly, so every .5 is a rounding tie.
        rows[:] = rng.integers(-254, 255, rows.shape).astype(np.float32) / 2
        rows[:, 0] = 127.0
    elif special == "wide_range" and h:
        rows *= np.float32(2.0) ** rng.integers(-14, 8, rows.shape).astype(np.float32)
    x = x.astype(x_dtype)
    out: Dict[str, Any] = {"x": x, "smooth_scales": None}
    if p.get("smooth"):
        out["smooth_scales"] = (rng.random(h).astype(np.float32) * 1.5 + 0.25).astype(x_dtype)
    return out


# --------------------------------------------------------------------------------------------- QLinearMatMul inputs
def _qmm_tensor(rng, shape, name: str, spread: float = 1.0) -> np.ndarray:
    d = dtypes.numpy_dtype(name)
    if name in ("int8", "uint8"):
        info = np.iinfo(d)
        return rng.integers(info.min, int(info.max) + 1, shape).astype(d)
    return (rng.standard_normal(shape) * spread).astype(np.float32).astype(d)


def _qmm_inputs(p: Dict[str, Any], rng: np.random.Generator) -> Dict[str, Any]:
    ta, tb, ty = p["a_dtype"], p["b_dtype"], p["y_dtype"]
    a_shape, b_shape = tuple(p["a_shape"]), tuple(p["b_shape"])
    a = _qmm_tensor(rng, a_shape, ta, 2.0)
    b = _qmm_tensor(rng, b_shape, tb, 2.0)
    m = a_shape[-2] if len(a_shape) >= 2 else 1
    n = b_shape[-1] if len(b_shape) >= 2 else 1
    k = a_shape[-1]
    a_par = (m,) if p.get("a_param") == "row" else ()
    b_par = (n,) if p.get("b_param") == "column" else ()

    def zp(shape, name):
        if name in ("int8", "uint8"):
            return _qmm_tensor(rng, shape, name)
        return np.zeros(shape, dtypes.numpy_dtype(name))  # float8 zero points must be 0 (ONNX)

    # Scales chosen so that y uses its whole range: |acc| grows like sqrt(K) * spread^2.
    int_a, int_b = ta in ("int8", "uint8"), tb in ("int8", "uint8")
    typical_acc = max(1.0, np.sqrt(max(k, 1))) * (75.0 if int_a else 2.0) * (75.0 if int_b else 2.0)
    y_range = 64.0 if ty in ("int8", "uint8") else 200.0
    a_scale = (rng.random(a_par) * 0.5 + 0.75).astype(np.float32) * np.float32(0.02)
    b_scale = (rng.random(b_par) * 0.5 + 0.75).astype(np.float32) * np.float32(0.03)
    y_scale = np.float32(0.02 * 0.03 * typical_acc / y_range)
    return {"a": a, "a_scale": np.asarray(a_scale, np.float32), "a_zero_point": zp(a_par, ta),
            "b": b, "b_scale": np.asarray(b_scale, np.float32), "b_zero_point": zp(b_par, tb),
            "y_scale": np.asarray(y_scale, np.float32), "y_zero_point": zp((), ty)}


# --------------------------------------------------------------------------------------------- quant_matmul inputs
def _qm_inputs(p: Dict[str, Any], rng: np.random.Generator) -> Dict[str, Any]:
    """quant_matmul's arguments: 8-bit a and b over their whole range, scales and bias of the W8A8 magnitudes;
    a_param "row" gives per-row scales (and zero points when a_zp), of shape a.shape[:-1]; b_param "column" per
    column; b_transposed: b is the transposed view of an [N, K] weight; special: "scales" puts zero, NaN and
    +-Inf among the scales, "overflow" makes float16 results overflow."""
    ta, tb = p["a_dtype"], p["b_dtype"]
    a_shape, k, n = tuple(p["a_shape"]), p["k"], p["n"]
    a = _qmm_tensor(rng, a_shape, ta)
    b = _qmm_tensor(rng, (n, k), tb).T if p.get("b_transposed") else _qmm_tensor(rng, (k, n), tb)
    rows = a_shape[:-1] if (p.get("a_param") == "row" and len(a_shape) >= 2) else ()
    cols = (n,) if p.get("b_param") == "column" else ()
    a_scale = (rng.random(rows) * 0.01 + 0.005).astype(np.float32)
    b_scale = (rng.random(cols) * 0.01 + 0.005).astype(dtypes.numpy_dtype(p.get("scale_dtype", "float32")))
    if p.get("special") == "scales" and a_scale.size and b_scale.size:
        a_scale.reshape(-1)[: 3] = np.array([0.0, np.nan, np.inf], np.float32)[: a_scale.size]
        b_scale.reshape(-1)[-1:] = -np.inf
    if p.get("special") == "overflow":
        a_scale = np.asarray(a_scale * np.float32(1e4), np.float32)
    out: Dict[str, Any] = {
        "a": a, "a_scale": np.asarray(a_scale), "b": b, "b_scale": np.asarray(b_scale),
        "a_zero_point": _qmm_tensor(rng, rows, ta) if p.get("a_zp") else None,
        "b_zero_point": _qmm_tensor(rng, cols, tb) if p.get("b_zp") else None,
        "bias": None}
    if p.get("bias"):
        out["bias"] = (rng.standard_normal((n,)) * 4).astype(dtypes.numpy_dtype(p["bias"]))
    return out


# --------------------------------------------------------------------------------------------- the list
def _dq_case(cases, soc, kind, title, tags, **params):
    p = {"smooth": False, "asymmetric": False, "special": "normal", **params}
    shape = "x".join(str(d) for d in p["shape"])
    parts = [DQ, soc, _SHORT[p["x_dtype"]], _SHORT[p["dst_type"]], shape]
    if p["smooth"]:
        parts.append("smooth")
    if p["asymmetric"]:
        parts.append("asym")
    if p["special"] != "normal":
        parts.append(p["special"])
    cases.append(Case("-".join(parts), DQ, soc, kind, title, p, tags))


def _qmm_case(cases, soc, kind, title, tags, **params):
    p = {"a_param": "tensor", "b_param": "tensor", **params}
    parts = [QMM, soc, f"{_SHORT[p['a_dtype']]}{_SHORT[p['b_dtype']]}{_SHORT[p['y_dtype']]}",
             "a" + "x".join(map(str, p["a_shape"])), "b" + "x".join(map(str, p["b_shape"])),
             f"{p['a_param']}-{p['b_param']}"]
    cases.append(Case("-".join(parts), QMM, soc, kind, title, p, tags))


def _qm_case(cases, soc, kind, title, tags, **params):
    p = {"a_param": "tensor", "b_param": "tensor", "special": "normal", **params}
    parts = [QM, soc, f"{_SHORT[p['a_dtype']]}{_SHORT[p['b_dtype']]}-{_SHORT[p['out_dtype']]}",
             "a" + "x".join(map(str, p["a_shape"])), f"n{p['n']}", f"{p['a_param']}-{p['b_param']}"]
    parts += [flag for flag in ("a_zp", "b_zp", "b_transposed") if p.get(flag)]
    if p.get("bias"):
        parts.append("bias")
    if p["special"] != "normal":
        parts.append(p["special"])
    cases.append(Case("-".join(parts), QM, soc, kind, title, p, tags))


def dynamic_quant_cases(soc: str, spec: dict) -> List[Case]:
    dq = spec["dynamic_quant"]
    cases: List[Case] = []
    align = max(1, int(dq["tail_multiple"]))
    odd = 1 if align == 1 else 0  # unaligned tails only where the SoC takes them

    def tail(n):  # n rounded up to the SoC's tail multiple
        return -(-n // align) * align

    seed_ok = 4 % align == 0 and "float16" in dq["x_dtypes"]
    _dq_case(cases, soc, "compare" if seed_ok else "refuse",
             "the ATB example" if seed_ok else f"the ATB example (tail 4, not a multiple of {align})",
             ["spec"], shape=(2, 2, 4), x_dtype="float16", dst_type="int8", special="atb_example")
    for x_dtype in dq["x_dtypes"]:
        limit = int(dq[f"max_tail_{x_dtype}"])
        for dst in dq["dst_types"]:
            first = dst == dq["dst_types"][0]
            _dq_case(cases, soc, "compare", "small rows, unaligned where allowed", ["basic"],
                     shape=(13, tail(61) + odd), x_dtype=x_dtype, dst_type=dst)
            _dq_case(cases, soc, "compare", "special values: zero, NaN, +-Inf, max, subnormal rows",
                     ["special"], shape=(11, tail(40)), x_dtype=x_dtype, dst_type=dst, special="special_values")
            _dq_case(cases, soc, "compare", "empty: no rows", ["empty"], shape=(0, tail(16)), x_dtype=x_dtype,
                     dst_type=dst)
            if first:
                _dq_case(cases, soc, "compare", "rank 4, smooth scales", ["smooth", "rank"],
                         shape=(2, 3, 5, tail(96)), x_dtype=x_dtype, dst_type=dst, smooth=True)
                _dq_case(cases, soc, "compare", "rounding ties (x.5 values)", ["ties"], shape=(9, tail(64)),
                         x_dtype=x_dtype, dst_type=dst, special="ties")
                _dq_case(cases, soc, "compare", "values over a wide exponent range", ["range"],
                         shape=(17, tail(200)), x_dtype=x_dtype, dst_type=dst, special="wide_range")
                _dq_case(cases, soc, "compare", "empty: rows of no element", ["empty"], shape=(3, 0),
                         x_dtype=x_dtype, dst_type=dst)
                _dq_case(cases, soc, "compare", "many rows, not a multiple of the core count", ["cores"],
                         shape=(197, tail(128)), x_dtype=x_dtype, dst_type=dst)
            if first and x_dtype == "bfloat16" and limit > 4400:
                # docs/references.md#dynamicquant-implementations: counting ATB's fp32 scratch buffer, some bf16 widths below the documented limit
                # (4272-4432, ...) would not fit UB with many rows. Our plan must still run them exactly.
                _dq_case(cases, soc, "compare", "bfloat16 width in the band ATB's UB model flags, many rows",
                         ["limit"], shape=(64, 4400), x_dtype=x_dtype, dst_type=dst)
            if limit > 0:
                _dq_case(cases, soc, "compare", f"tail at the SoC limit ({limit})", ["limit"],
                         shape=(3, limit), x_dtype=x_dtype, dst_type=dst, smooth=first)
                if first:
                    _dq_case(cases, soc, "refuse", f"tail over the SoC limit ({limit} + {align})", ["limit"],
                             shape=(2, limit + align), x_dtype=x_dtype, dst_type=dst)
            elif first:
                _dq_case(cases, soc, "compare", "a row longer than one UB load (multi-pass)", ["limit"],
                         shape=(2, 100_003), x_dtype=x_dtype, dst_type=dst, smooth=True)
    if align > 1:
        _dq_case(cases, soc, "refuse", f"tail not a multiple of {align}", ["limit"], shape=(4, align + 1),
                 x_dtype=dq["x_dtypes"][0], dst_type="int8")
    for x_dtype in dtypes.DYNAMIC_QUANT_X_TYPES:
        if x_dtype not in dq["x_dtypes"]:
            _dq_case(cases, soc, "refuse", f"{x_dtype} input is not supported", ["dtype"], shape=(2, 64),
                     x_dtype=x_dtype, dst_type="int8")
    for dst in dtypes.DYNAMIC_QUANT_DST_TYPES:
        if dst not in dq["dst_types"]:
            _dq_case(cases, soc, "refuse", f"{dst} output is not supported", ["dtype"], shape=(2, 64),
                     x_dtype=dq["x_dtypes"][0], dst_type=dst)
    if not dq["asymmetric_implemented"]:
        _dq_case(cases, soc, "refuse", "asymmetric mode is not implemented", ["mode"], shape=(2, 64),
                 x_dtype=dq["x_dtypes"][0], dst_type="int8", asymmetric=True)
    return cases


def qlinear_matmul_cases(soc: str, spec: dict) -> List[Case]:
    q = spec["qlinear_matmul"]
    cases: List[Case] = []
    ints = [t for t in ("uint8", "int8") if t in q["a_dtypes"]]
    floats = [t for t in ("float8_e4m3fn", "float8_e5m2") if t in q["a_dtypes"]]
    # The three onnxruntime combinations plus s8 x u8, per tensor and per row / column, odd sizes.
    for ta, tb, ty in (("uint8", "uint8", "uint8"), ("uint8", "int8", "uint8"), ("int8", "int8", "int8"),
                       ("int8", "uint8", "int8")):
        if ta in ints and tb in q["b_dtypes"] and ty in q["y_dtypes"]:
            _qmm_case(cases, soc, "compare", "odd M, K, N, per tensor", ["basic"], a_dtype=ta, b_dtype=tb,
                      y_dtype=ty, a_shape=(37, 91), b_shape=(91, 29))
            _qmm_case(cases, soc, "compare", "per-row a, per-column b", ["params"], a_dtype=ta, b_dtype=tb,
                      y_dtype=ty, a_shape=(33, 130), b_shape=(130, 47), a_param="row", b_param="column")
    for ty in [t for t in ("float8_e4m3fn", "float8_e5m2") if t in q["y_dtypes"]]:
        _qmm_case(cases, soc, "compare", "integer operands, float8 output", ["float8"], a_dtype="uint8",
                  b_dtype="int8", y_dtype=ty, a_shape=(21, 77), b_shape=(77, 19), a_param="row", b_param="column")
    t0 = ints[0]
    _qmm_case(cases, soc, "compare", "batch broadcasting", ["batch"], a_dtype=t0, b_dtype="int8", y_dtype=t0,
              a_shape=(2, 1, 9, 40), b_shape=(3, 40, 17), b_param="column")
    _qmm_case(cases, soc, "compare", "1-D a (vector times matrix)", ["rank"], a_dtype=t0, b_dtype="int8",
              y_dtype=t0, a_shape=(70,), b_shape=(70, 21))
    _qmm_case(cases, soc, "compare", "K large enough to wrap int32 (u8 x u8)", ["wrap"], a_dtype="uint8",
              b_dtype="uint8", y_dtype="uint8", a_shape=(3, 33_030), b_shape=(33_030, 5))
    _qmm_case(cases, soc, "compare", "K = 0 gives y_zero_point", ["empty"], a_dtype=t0, b_dtype="int8",
              y_dtype=t0, a_shape=(4, 0), b_shape=(0, 6))
    _qmm_case(cases, soc, "compare", "empty: M = 0", ["empty"], a_dtype=t0, b_dtype="int8", y_dtype=t0,
              a_shape=(0, 16), b_shape=(16, 6))
    for ta in floats:
        for tb in floats:
            _qmm_case(cases, soc, "compare", "float8 operands, float8 output", ["float8"], a_dtype=ta, b_dtype=tb,
                      y_dtype=ta, a_shape=(19, 64), b_shape=(64, 23), b_param="column")
        _qmm_case(cases, soc, "compare", "float8 operands, int8 output", ["float8"], a_dtype=ta, b_dtype=ta,
                  y_dtype="int8", a_shape=(8, 48), b_shape=(48, 12))
    for t in ("float8_e4m3fn",):
        if t not in q["a_dtypes"]:
            _qmm_case(cases, soc, "refuse", f"{t} operands are not supported", ["dtype"], a_dtype=t, b_dtype=t,
                      y_dtype="int8", a_shape=(4, 8), b_shape=(8, 4))
    if floats and not q["mixed_int_float8"]:
        _qmm_case(cases, soc, "refuse", "int8 x float8 mix is not supported", ["dtype"], a_dtype="int8",
                  b_dtype=floats[0], y_dtype="int8", a_shape=(4, 8), b_shape=(8, 4))
    return cases


def quant_matmul_cases(soc: str, spec: dict) -> List[Case]:
    """The W8A8 / dynamic-int8 forms of quant_matmul. A SoC without the kernel (_plan_check's
    QUANT_MATMUL_KERNEL_SOCS, from the SoC table) must refuse each of them; with the kernel they are compared, except
    the output types its kernel does not write (refused); a SoC whose vector unit saturates (no IEEE Inf / NaN) has
    no special-value forms."""
    from .._plan_check import QUANT_MATMUL_KERNEL_SOCS

    has_kernel = soc in QUANT_MATMUL_KERNEL_SOCS
    outs = spec.get("quant_matmul", {}).get("out_dtypes", [])
    saturates = bool(spec.get("saturation_only_float"))
    forms = [
        ("u8 a with per-row zero points x s8 b per column, float32 (the oneDNN dynamic flow)", ["basic"],
         dict(a_dtype="uint8", b_dtype="int8", out_dtype="float32", a_shape=(33, 130), k=130, n=47,
              a_param="row", b_param="column", a_zp=True)),
        ("W8A8: s8 [B, S, K] per token x transposed s8 weight per channel, bfloat16 scales and output", ["serving"],
         dict(a_dtype="int8", b_dtype="int8", out_dtype="bfloat16", a_shape=(2, 9, 256), k=256, n=40,
              a_param="row", b_param="column", b_transposed=True, scale_dtype="bfloat16")),
        ("float16 output with a float16 bias and zero points on both sides", ["params"],
         dict(a_dtype="int8", b_dtype="uint8", out_dtype="float16", a_shape=(17, 96), k=96, n=33,
              a_param="row", b_param="column", a_zp=True, b_zp=True, bias="float16", scale_dtype="float16")),
        ("K large enough to wrap int32 (u8 x u8)", ["wrap"],
         dict(a_dtype="uint8", b_dtype="uint8", out_dtype="float32", a_shape=(3, 33_030), k=33_030, n=5)),
        ("zero, NaN and infinite scales (IEEE results)", ["special"],
         dict(a_dtype="int8", b_dtype="int8", out_dtype="float32", a_shape=(6, 40), k=40, n=8, a_param="row",
              b_param="column", special="scales")),
        ("float16 results beyond 65504 become Inf", ["special"],
         dict(a_dtype="int8", b_dtype="int8", out_dtype="float16", a_shape=(4, 512), k=512, n=8,
              special="overflow")),
        ("K = 0 gives the bias", ["empty"],
         dict(a_dtype="int8", b_dtype="int8", out_dtype="float32", a_shape=(4, 0), k=0, n=6, bias="float32")),
        ("empty: M = 0", ["empty"],
         dict(a_dtype="int8", b_dtype="int8", out_dtype="bfloat16", a_shape=(0, 16), k=16, n=6)),
        ("1-D a (vector times matrix)", ["rank"],
         dict(a_dtype="uint8", b_dtype="int8", out_dtype="float32", a_shape=(70,), k=70, n=21, a_zp=True)),
    ]
    cases: List[Case] = []
    for title, tags, params in forms:
        if not has_kernel:
            _qm_case(cases, soc, "refuse", title + " (no kernel on this SoC: refused)", tags, **params)
        elif params["out_dtype"] not in outs:
            _qm_case(cases, soc, "refuse", title + f" ({params['out_dtype']} output: not written by this SoC's "
                     "kernel, refused)", tags, **params)
        elif not (saturates and "special" in tags):
            _qm_case(cases, soc, "compare", title, tags, **params)
    return cases


# --------------------------------------------------------------------------------------------- random cases
# Shapes the random cases draw from: tails across the vector repeat and UB sizes, row counts from one row to many
# rows a core (a core then gathers and stores its scales several times), matmul sizes across the base blocks and the
# 16-column fractal rows.
_RANDOM_DQ_TAILS = (7, 32, 64, 96, 128, 200, 256, 1000, 1024, 2048, 4096, 5000, 7168)
_RANDOM_DQ_ROWS = (1, 3, 9, 50, 130, 400, 1000, 3000, 13000)
_RANDOM_DQ_MAX_ELEMENTS = 3_000_000
_RANDOM_QMM_M = (1, 2, 5, 16, 17, 64, 130, 300, 700)
_RANDOM_QMM_K = (1, 7, 32, 64, 100, 259, 1000, 2048)
_RANDOM_QMM_N = (1, 7, 8, 16, 17, 24, 33, 40, 96, 100, 1000, 1030, 4100)
_RANDOM_QMM_MAX_MACS = 100_000_000


def random_cases(count: int, seed: int, socs: Optional[List[str]] = None,
                 ops: Optional[List[str]] = None) -> List[Case]:
    """`count` "compare" cases drawn at random (from `seed`: the same list on every machine) over what each SoC's
    table entry supports: DynamicQuant symmetric and asymmetric, smooth scales, special values, row counts up to
    many rows a core; QLinearMatMul with int8 / uint8 operands and outputs, per-tensor / row / column parameters,
    batches, sizes across the base blocks. Case ids end with "-r<seed>.<index>"."""
    from .. import tiling

    table = tiling.soc_table()
    names = [table[tiling.canonical_soc(s)]["name"] for s in socs] if socs else list(table)
    kinds = [op for op in (DQ, QMM) if ops is None or op in ops]
    if not kinds or not names:
        return []
    rng = np.random.default_rng(seed)
    pick = lambda seq: seq[int(rng.integers(0, len(seq)))]  # noqa: E731
    cases: List[Case] = []
    for index in range(count):
        soc, op = pick(names), pick(kinds)
        spec = table[soc]
        made: List[Case] = []
        if op == DQ:
            dq = spec["dynamic_quant"]
            x_dtype = pick(dq["x_dtypes"])
            asym = bool(dq["asymmetric_implemented"]) and rng.random() < 0.4
            dst = pick(dq["asymmetric_dst_types"] if asym else dq["dst_types"])
            align = max(1, int(dq["tail_multiple"]))
            limit = int(dq[f"max_tail_{x_dtype}"]) or None
            h = -(-pick(_RANDOM_DQ_TAILS) // align) * align
            h = min(h, limit // align * align) if limit else h
            rows = max(1, min(pick(_RANDOM_DQ_ROWS), _RANDOM_DQ_MAX_ELEMENTS // h))
            special = pick(("normal", "normal", "normal", "special_values", "ties", "wide_range"))
            _dq_case(made, soc, "compare", "random", ["random"], shape=(rows, h), x_dtype=x_dtype, dst_type=dst,
                     asymmetric=asym, smooth=bool(rng.random() < 0.3), special=special)
        else:
            q = spec["qlinear_matmul"]
            ints = ["int8", "uint8"]
            ta = pick([t for t in ints if t in q["a_dtypes"]])
            tb = pick([t for t in ints if t in q["b_dtypes"]])
            ty = pick([t for t in ints if t in q["y_dtypes"]])
            m, k, n = pick(_RANDOM_QMM_M), pick(_RANDOM_QMM_K), pick(_RANDOM_QMM_N)
            while m * k * n > _RANDOM_QMM_MAX_MACS:
                m = max(1, m // 2)
            batch = pick(((), (), (2,), (3, 1)))
            b_batch = pick(((), batch))
            a_param = pick(("tensor", "row")) if not batch else "tensor"  # per-row parameters: one a matrix
            _qmm_case(made, soc, "compare", "random", ["random"], a_dtype=ta, b_dtype=tb, y_dtype=ty,
                      a_shape=batch + (m, k), b_shape=b_batch + (k, n), a_param=a_param,
                      b_param=pick(("tensor", "column")))
        c = made[0]
        c.id = f"{c.id}-r{seed}.{index}"
        cases.append(c)
    return cases


def all_cases(socs: Optional[List[str]] = None, ops: Optional[List[str]] = None) -> List[Case]:
    """Every case for the given SoCs (default: all in the SoC table) and operators (default: all)."""
    from .. import tiling

    table = tiling.soc_table()
    cases: List[Case] = []
    for soc in socs or list(table):
        spec = table[tiling.canonical_soc(soc)]
        if ops is None or DQ in ops:
            cases += dynamic_quant_cases(spec["name"], spec)
        if ops is None or QMM in ops:
            cases += qlinear_matmul_cases(spec["name"], spec)
        if ops is None or QM in ops:
            cases += quant_matmul_cases(spec["name"], spec)
    ids = [c.id for c in cases]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise AssertionError(f"duplicate case ids: {sorted(dup)}")
    return cases
