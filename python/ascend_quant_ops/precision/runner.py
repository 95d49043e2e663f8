"""Run precision cases on a backend and judge them against the golden.

    run_case(case, backend) -> result dict (JSON-ready)
    run_suite(cases, backend, progress=None) -> {"meta", "summary", "results"}

The backend is called through the public API (`api.dynamic_quant` / `api.qlinear_matmul` / `api.quant_matmul` with
`soc=case.soc`),
exactly as a user calls it; for "npu" the inputs are moved to the NPU as torch tensors and the outputs brought
back. The expected values come from the golden (golden/), computed here from the same numpy inputs.

ascend310p computes in saturation mode (docs/references.md#saturation-mode): on that SoC the device and its emulation are compared with the
golden of x with +-Inf replaced by +-65504 and NaN by 0 (docs/design.md); the "cpu" backend is the golden itself.
"""
from __future__ import annotations

import platform
import time
import traceback
from typing import Callable, Dict, Optional

import numpy as np

from .. import dtypes
from ..errors import AqoError, ConstraintError
from . import criteria
from .cases import DQ, QM, Case

BACKENDS = ("cpu", "emulator", "npu")


def saturate_like_310p(x: np.ndarray) -> np.ndarray:
    """x as ascend310p sees it in saturation mode: +-Inf -> +-65504 (float16 max), NaN -> 0."""
    f = x.astype(np.float32)
    f = np.nan_to_num(f, nan=0.0, posinf=65504.0, neginf=-65504.0)
    return f.astype(x.dtype)


def expected_outputs(case: Case, inputs: Dict, backend: str):
    """The golden's outputs for this case on this backend (a tuple of numpy arrays)."""
    from ..golden.dynamic_quant import dynamic_quant as golden_dq
    from ..golden.qlinear_matmul import qlinear_matmul as golden_qmm
    from ..golden.quant_matmul import quant_matmul as golden_qm

    if case.op == DQ:
        x = inputs["x"]
        if backend != "cpu" and case.soc == "ascend310p":
            x = saturate_like_310p(x)
        return tuple(golden_dq(x, inputs["smooth_scales"], dst_type=case.params["dst_type"],
                               asymmetric=case.params["asymmetric"]))
    if case.op == QM:
        return (golden_qm(**inputs, out_dtype=case.params["out_dtype"]),)
    return (golden_qmm(**inputs),)


def _to_backend(value, backend: str):
    if value is None or backend != "npu":
        return value
    from .. import torch_ops

    return torch_ops.from_numpy(np.asarray(value)).to("npu")


def _from_backend(value, like: np.ndarray) -> np.ndarray:
    if hasattr(value, "detach"):  # a torch tensor (npu backend)
        from .. import torch_ops

        value = torch_ops.to_numpy(value.detach().cpu())
    value = np.asarray(value)
    if dtypes.dtype_name(like.dtype) == dtypes.HIFLOAT8 and value.dtype == np.uint8:
        value = value.view(like.dtype)  # torch carries hifloat8 as uint8 bit patterns
    return value


def call_backend(case: Case, inputs: Dict, backend: str):
    from .. import api

    args = {k: _to_backend(v, backend) for k, v in inputs.items()}
    if case.op == DQ:
        out = api.dynamic_quant(args["x"], args["smooth_scales"], dst_type=case.params["dst_type"],
                                asymmetric=case.params["asymmetric"], soc=case.soc, backend=backend)
        return tuple(out)
    if case.op == QM:
        return (api.quant_matmul(**args, out_dtype=case.params["out_dtype"], soc=case.soc, backend=backend),)
    return (api.qlinear_matmul(**args, soc=case.soc, backend=backend),)


def run_case(case: Case, backend: str) -> dict:
    """Run one case; the verdict is "pass", "fail" (criteria not met, or a refusal missing) or "error" (an
    unexpected exception: a crash of the backend, or a refusal of a case the SoC should run)."""
    result = case.to_dict()
    result.update({"backend": backend, "verdict": "error", "outputs": {}, "message": ""})
    start = time.perf_counter()
    try:
        inputs = case.make_inputs()
        result["input_shapes"] = {k: (list(np.shape(v)) if v is not None else None) for k, v in inputs.items()}
        if case.kind == "refuse":
            try:
                call_backend(case, inputs, backend)
            except ConstraintError as e:
                result["verdict"] = "pass"
                result["message"] = f"refused as required: {e}"
            else:
                result["verdict"] = "fail"
                result["message"] = "computed a result where the SoC must refuse (ConstraintError expected)"
            return result
        expected = expected_outputs(case, inputs, backend)
        try:
            actual = call_backend(case, inputs, backend)
        except AqoError as e:
            result["message"] = f"{type(e).__name__}: {e}"
            return result
        names = list(criteria.outputs_of(case.op, case.params.get("asymmetric", False)).items())
        if len(actual) != len(expected) or len(actual) != len(names):
            result["verdict"] = "fail"
            result["message"] = f"{len(actual)} outputs, expected {len(expected)}"
            return result
        failed = []
        for (name, kind), got, want in zip(names, actual, expected):
            check = criteria.check_output(kind, _from_backend(got, want), want)
            result["outputs"][name] = check
            if not check["passed"]:
                failed.append(f"{name}: {check['message']}")
        result["verdict"] = "fail" if failed else "pass"
        result["message"] = "; ".join(failed) if failed else "all criteria met"
    except Exception as e:  # reported, never hidden: the report shows the traceback
        result["verdict"] = "error"
        result["message"] = f"{type(e).__name__}: {e}"
        result["traceback"] = traceback.format_exc(limit=6)
    finally:
        result["seconds"] = round(time.perf_counter() - start, 3)
    return result


def run_suite(cases, backend: str, progress: Optional[Callable[[int, int, dict], None]] = None) -> dict:
    if backend not in BACKENDS:
        raise ConstraintError("precision", "backend", "unknown backend", expected=" | ".join(BACKENDS),
                              actual=repr(backend))
    results = []
    for i, case in enumerate(cases):
        r = run_case(case, backend)
        results.append(r)
        if progress:
            progress(i + 1, len(cases), r)
    summary = {v: sum(1 for r in results if r["verdict"] == v) for v in ("pass", "fail", "error")}
    summary["total"] = len(results)
    return {"meta": _meta(backend, cases), "summary": summary, "results": results}


def _meta(backend: str, cases) -> dict:
    from .. import __version__

    meta = {"backend": backend, "package_version": __version__, "python": platform.python_version(),
            "machine": platform.machine(), "socs": sorted({c.soc for c in cases}),
            "time_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "criteria": {"integer_max_delta": criteria.INT_MAX_DELTA, "scale_element": "2^-8*max(1,|golden|)",
                         "scale_mean": "2^-10", "float8_max_ulp": criteria.FLOAT8_MAX_ULP,
                         "float8_error_ratio": criteria.FLOAT8_ERROR_RATIO}}
    from .._torch import torch_or_none  # the package's one torch import: torch is optional here

    torch = torch_or_none()
    meta["torch"] = torch.__version__ if torch is not None else None
    if backend == "npu":
        from .. import npu

        meta["device_soc"] = npu.detect_soc()
    return meta
