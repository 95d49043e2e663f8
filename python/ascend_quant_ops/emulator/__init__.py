"""The emulator backend: the project's AscendC kernels (op_kernel/) compiled with g++ against the CPU emulation
of the AscendC API (op_kernel/emulator/) and run block by block, driven by the real host tiling.

    emulator.dynamic_quant(x, smooth_scales=None, *, dst_type="int8", asymmetric=False, soc="ascend910b")
    emulator.qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point,
                            *, soc="ascend910b")

Both return what the golden returns (numpy). Kernel faults raise ascend_quant_ops.EmulatorError naming the
kernel source line. `last_run_stats()` gives the last run's per-core GM traffic, DMA counts and UB use.
"""
from __future__ import annotations

import importlib

from .. import _native

# kernel -> the _native function its runner binds (python/csrc/emulate_<kernel>.cpp)
_RUNNERS = {"aqo_dynamic_quant": "emulate_dynamic_quant", "aqo_qlinear_matmul": "emulate_qlinear_matmul"}


def _module(name):
    # The submodules share their names with this package's functions, so `from . import x` would find the
    # function; import the submodule by its full name instead.
    return importlib.import_module(f"{__name__}.{name}")


def missing_kernels():
    """Kernels this build of _native cannot emulate (empty when all are there)."""
    return [k for k, fn in _RUNNERS.items() if not hasattr(_native, fn)]


def dynamic_quant(x, smooth_scales=None, *, dst_type="int8", asymmetric=False, soc="ascend910b", **kw):
    return _module("dynamic_quant").dynamic_quant(x, smooth_scales, dst_type=dst_type, asymmetric=asymmetric, soc=soc, **kw)


def qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, *,
                   soc="ascend910b", **kw):
    return _module("qlinear_matmul").qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point,
                               soc=soc, **kw)


def last_run_stats():
    """Per-core statistics of the last emulated kernel run (GM bytes read / written, DMA ops, UB peak)."""
    return _module("dynamic_quant").last_run_stats()
