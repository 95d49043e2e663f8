"""The UB map a kernel builds in the emulator is the host plan's UB map, and the GM bytes it touches are the
plan's GM ranges.

docs/design.md: "The kernel allocates exactly the plan's buffers (sizes come in the tiling data), so the emulator's
UB check also checks the plan." The emulator records every TPipe::InitBuffer of every core (offset, bytes, buffer
count) and every GM byte range each core reads or writes; this test runs the DynamicQuant kernel and compares
both with the plan's explanation, core by core.
"""
from __future__ import annotations

import numpy as np
import pytest

import ascend_quant_ops as aqo

from ascend_quant_ops import _native
if not hasattr(_native, "emulate_dynamic_quant"):
    raise ImportError("this _native build has no DynamicQuant kernel (every build of the package has it: not a skip)")

CASES = [
    # shape, dtype, soc, dst_type, smooth
    ((40, 4096), "float16", "ascend910b", "int8", False),
    ((7, 26624), "float16", "ascend910b", "int8", False),
    ((5, 333), "bfloat16", "ascend910b", "int8", True),
    ((24, 4096), "float16", "ascend310p", "int8", False),
    ((3, 1024), "float16", "ascend310p", "int8", True),
    ((4, 5000), "bfloat16", "ascend910_95", "hifloat8", False),
    ((2, 100_000), "float16", "ascend910_95", "float8_e4m3fn", False),
]


@pytest.mark.parametrize("shape,dtype,soc,dst,smooth", CASES)
def test_kernel_ub_map_is_the_plan_ub_map(shape, dtype, soc, dst, smooth):
    rng = np.random.default_rng(7)
    np_dtype = np.float16 if dtype == "float16" else aqo.dtypes.numpy_dtype("bfloat16")
    x = rng.standard_normal(shape).astype(np.float32).astype(np_dtype)
    s = rng.uniform(0.5, 2.0, shape[-1]).astype(np.float32).astype(np_dtype) if smooth else None
    plan = aqo.plan_dynamic_quant(shape, dtype, soc=soc, dst_type=dst, smooth=smooth).to_dict()["explanation"]
    # The runner binding directly (python/csrc/emulate_dynamic_quant.cpp): y and scale are written in place.
    y = np.zeros(shape, dtype=aqo.dtypes.numpy_dtype(dst))
    scale = np.zeros(shape[:-1], dtype=np.float32)
    out = _native.emulate_dynamic_quant(
        x.view(np.uint8).reshape(-1), None if s is None else s.view(np.uint8).reshape(-1),
        y.view(np.uint8).reshape(-1), scale.view(np.uint8).reshape(-1), None, list(shape), dtype, dst, False, soc)
    assert out["ok"], out
    run = _native.emulator_last_run_stats()
    assert run["completed"] and run["soc"] == soc
    assert run["ub_bytes"] == plan["ub_capacity"]
    want = [(b["offset"], b["bytes"] * b["slots"], b["slots"]) for b in plan["ub"] if b["bytes"] > 0]
    used = 0
    for core in run["cores"]:
        if not core["ub_buffers"]:
            continue  # a core without work returns before Init
        used += 1
        got = [(b["offset"], b["bytes"], b["num"]) for b in core["ub_buffers"]]
        assert got == want, f"kernel UB map {got} != plan UB map {want}"
        assert core["peak_ub_bytes"] <= plan["ub_capacity"]
    assert used == plan["used_cores"]

    # GM: per core, the merged byte ranges of each tensor read / written equal the plan's.
    def merged(ranges):
        out = {}
        for name, b, e, w in sorted(ranges):
            lst = out.setdefault((name, w), [])
            if lst and b <= lst[-1][1]:
                lst[-1][1] = max(lst[-1][1], e)
            else:
                lst.append([b, e])
        return out

    alias = {"smooth_scales": "smooth_scales", "smooth": "smooth_scales"}
    for index, core in enumerate(run["cores"]):
        got = merged((alias.get(g["buffer"], g["buffer"]), g["begin"], g["end"], g["write"])
                     for g in core["gm_ranges"])
        want = merged((alias.get(g["tensor"], g["tensor"]), g["begin"], g["end"], g["write"])
                      for g in plan["gm"] if g["core"] == index and g["end"] > g["begin"])
        assert got == want, f"core {index}: kernel GM ranges {got} != plan GM ranges {want}"
