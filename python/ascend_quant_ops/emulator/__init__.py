"""The emulator backend: the project's AscendC kernels (op_kernel/) compiled with g++ against the CPU emulation
of the AscendC API (op_kernel/emulator/) and run block by block, driven by the real host tiling.

    emulator.dynamic_quant(x, smooth_scales=None, *, dst_type="int8", asymmetric=False, soc="ascend910b")
    emulator.qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point,
                            *, soc="ascend910b")

Both return what the golden returns (numpy). Kernel faults raise ascend_quant_ops.EmulatorError naming the
kernel source line. `last_run_stats()` gives this thread's last run: the plan summary and per-core GM traffic,
DMA counts and UB use; `last_run_trace()` its instruction trace.

`run_options(...)` (a context manager) runs the kernels under one of the behaviours the documentation leaves
open, so that tests can require a kernel to be correct under each (op_kernel/emulator/README.md, "Run variants"):

    with emulator.run_options(divide="perturbed"):
        y, scale = emulator.dynamic_quant(x, soc="ascend910b")
"""
from __future__ import annotations

import contextlib

from .. import _native

# The runner modules are imported first, under other names: importing a submodule binds it as an attribute of
# this package, and these submodules share their names with the functions defined below.
from . import dynamic_quant as _dynamic_quant_runner  # noqa: E402  (binds .dynamic_quant, replaced below)
from . import qlinear_matmul as _qlinear_matmul_runner  # noqa: E402

# kernel -> the _native function its runner binds (python/csrc/emulate_<kernel>.cpp)
_RUNNERS = {"aqo_dynamic_quant": "emulate_dynamic_quant", "aqo_qlinear_matmul": "emulate_qlinear_matmul"}


def missing_kernels():
    """Kernels this build of _native cannot emulate (empty when all are there)."""
    return [k for k, fn in _RUNNERS.items() if not hasattr(_native, fn)]


def dynamic_quant(x, smooth_scales=None, *, dst_type="int8", asymmetric=False, soc="ascend910b", **kw):
    return _dynamic_quant_runner.dynamic_quant(x, smooth_scales, dst_type=dst_type, asymmetric=asymmetric,
                                               soc=soc, **kw)


def qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, *,
                   soc="ascend910b", **kw):
    return _qlinear_matmul_runner.qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
                                                 y_zero_point, soc=soc, **kw)


from ._stats import last_run_stats  # noqa: E402,F401  (per thread: the last run of either kernel)


def last_run_trace():
    """The instruction trace of the last emulated kernel run on this thread: {soc, kernel, block_dim, completed,
    cores: [{core, is_cube, events: [...]}]} (op_kernel/emulator/include/emulator/emu_trace.h)."""
    return _native.emulator_last_run_trace()


_SATURATION_INF = {"float16_max": 0, "inf": 1, "dst_max": 2}
_SATURATION_NAN = {"zero": 0, "nan": 1}
_MODELESS = {"nearest_even": 0, "toward_zero": 1}
_DIVIDE = {"exact": False, "perturbed": True}
_SUBNORMALS = {"kept": False, "flushed": True}
_UB_COPY_PIPE = {"vector": False, "mte3": True}
_CUBE_FLOAT = {"ieee": False, "saturate": True}
_ZERO_TIE = {"second": False, "first": True}
_CTRL48 = {"ieee": False, "saturate": True}


def _choice(name, value, table):
    if value not in table:
        raise ValueError(f"emulator.run_options: {name}={value!r}; expected one of {sorted(table)}")
    return table[value]


@contextlib.contextmanager
def run_options(*, divide="exact", divide_subnormals="kept", vector_subnormals="kept", ub_copy_pipe="vector",
                cube_float="ieee", zero_tie="second", saturation_inf="float16_max", saturation_nan="zero",
                modeless_rounding="nearest_even", half_mode_at_launch="ieee", check_ordering=True,
                record_trace=True):
    """Emulator runs inside the block (on this thread) use these behaviours; the previous ones come back after it.

    divide: "exact" (IEEE, correctly rounded) or "perturbed" (every inexact quotient 1 ulp off, on the far side).
    divide_subnormals: Div's subnormal operands and quotients "kept" (IEEE) or "flushed" to zero on ascend910b /
    ascend310p (undocumented there; a subnormal divisor then fails as a division by zero). ascend910_95's Div always
    flushes, as documented, whatever this says.
    vector_subnormals: every float operation of the vector unit (arithmetic, compares, reductions, Cast, MulAddDst)
    with subnormal operands or results "kept" (IEEE) or "flushed" to zero (undocumented on ascend910b / ascend310p).
    ub_copy_pipe: the pipe of a UB -> UB DataCopy, "vector" (the DataCopy / asc_copy_ub2ub API pages) or "mte3" (the
    C-API overview's pipe list); the docs disagree, so the kernels are checked under both.
    cube_float: the 950 cube's float results "ieee" or "saturate" (Inf -> +-max, NaN -> 0: the Mmad page's CTRL[48]
    mode, whose value at launch is not documented).
    zero_tie: what Max / Min give for +0 against -0, the "second" operand or the "first" (the sign is undocumented).
    saturation_inf / saturation_nan (ascend310p's saturation mode): what a Cast from float16 makes of +-Inf
    ("float16_max": +-65504, "inf": +-Inf, "dst_max": the destination type's max) and of NaN ("zero", "nan").
    modeless_rounding: how a CAST_NONE conversion that is not exact rounds ("nearest_even", "toward_zero").
    half_mode_at_launch: the CTRL[48] mode an ascend910b / ascend910_95 launch starts in for half / bfloat16
    results: "ieee" (the CANN runtime's documented default) or "saturate" (Inf and overflow -> +-max, NaN -> 0: the
    register's documented reset value); a kernel that depends on it sets the bit itself.
    check_ordering / record_trace: the ordering checks and the trace (both on by default)."""
    old = _native.emulator_run_options()
    _native.emulator_set_run_options(
        perturbed_divide=_choice("divide", divide, _DIVIDE),
        divide_flushes_subnormals=_choice("divide_subnormals", divide_subnormals, _SUBNORMALS),
        vector_flushes_subnormals=_choice("vector_subnormals", vector_subnormals, _SUBNORMALS),
        ub_copy_on_mte3=_choice("ub_copy_pipe", ub_copy_pipe, _UB_COPY_PIPE),
        cube_float_saturates=_choice("cube_float", cube_float, _CUBE_FLOAT),
        zero_tie_first=_choice("zero_tie", zero_tie, _ZERO_TIE),
        ctrl48_saturates_at_launch=_choice("half_mode_at_launch", half_mode_at_launch, _CTRL48),
        saturation_inf=_choice("saturation_inf", saturation_inf, _SATURATION_INF),
        saturation_nan=_choice("saturation_nan", saturation_nan, _SATURATION_NAN),
        modeless_rounding=_choice("modeless_rounding", modeless_rounding, _MODELESS),
        record_trace=bool(record_trace), check_ordering=bool(check_ordering))
    try:
        yield
    finally:
        _native.emulator_set_run_options(**old)
