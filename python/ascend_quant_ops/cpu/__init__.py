"""Fast exact CPU paths: the operators computed by kernels of the compiled core, bit for bit as the golden.

Each function has its golden's signature, validation (the golden's own `validate`, so the same typed errors)
and results; the golden (`ascend_quant_ops.golden`) stays the spec-reading reference that the tests compare
these paths with. When the compiled core lacks the kernels (an old build), the functions fall back to the golden.

    cpu.dynamic_quant.dynamic_quant(x, smooth_scales=None, *, dst_type="int8", asymmetric=False)
    cpu.qlinear_matmul.qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)

(one module per operator, as golden/), numpy in, numpy out.
Both also take the keyword `isa`, for tests and benchmarks: None (the best this CPU offers), "portable" (plain
C++ that every machine runs, vectorised by the compiler for the build's baseline), "avx2" (the same C++ compiled
for AVX2), "avx512_vnni" (hand-written AVX-512 VNNI kernels). `isa_levels()` lists what this machine runs; the
environment variables AQO_CPU_ISA (a level name: the highest to use) and AQO_NUM_THREADS cap the kernels.
"""
from __future__ import annotations

from typing import List

__all__ = ["isa_levels", "max_threads"]


def isa_levels() -> List[str]:
    """Instruction-set levels of the CPU kernels on this machine, portable first, best last."""
    from .. import _native

    return list(_native.cpu_isa_levels()) if hasattr(_native, "cpu_isa_levels") else []


def max_threads() -> int:
    """Threads the CPU kernels use at most (AQO_NUM_THREADS, else the CPUs this process may run on)."""
    from .. import _native

    return int(_native.cpu_max_threads()) if hasattr(_native, "cpu_max_threads") else 1
