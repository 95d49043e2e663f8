"""What the fast CPU paths share: finding their kernels in the compiled core, and the isa argument."""
from __future__ import annotations

from typing import Optional

from .. import _native
from ..errors import ConstraintError


def kernel(name: str):
    """The compiled kernel `name`, or None when this build of _native lacks it (the caller uses the golden)."""
    return getattr(_native, name, None)


def isa_index(isa: Optional[str], op: str) -> int:
    """The kernels' isa argument: -1 for None (the best level), else the index of a level this machine runs."""
    if isa is None:
        return -1
    levels = list(_native.cpu_isa_levels()) if hasattr(_native, "cpu_isa_levels") else []
    if isa not in levels:
        raise ConstraintError(op, "isa", "instruction-set level not available on this machine",
                              expected=" / ".join(levels) or "(no CPU kernels in this build)", actual=repr(isa))
    return levels.index(isa)
