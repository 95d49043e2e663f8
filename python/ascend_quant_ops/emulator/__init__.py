"""The emulator backend: the project's AscendC kernels (op_kernel/) compiled with g++ against the CPU emulation
of the AscendC API (op_kernel/emulator/) and run block by block, driven by the real host tiling.

    emulator.dynamic_quant(x, smooth_scales=None, *, dst_type="int8", asymmetric=False, soc="ascend910b")
    emulator.qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point,
                            *, soc="ascend910b")

Both return what the golden returns (numpy). Kernel faults raise ascend_quant_ops.EmulatorError naming the
kernel source line. `last_run_stats()` gives this thread's last run: the plan summary and per-core GM traffic,
DMA counts and UB use.
"""
from __future__ import annotations

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
