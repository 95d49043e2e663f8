"""The emulator backend's record of the last run, one per thread (runs on other threads never change it)."""
from __future__ import annotations

import threading
from typing import Any, Dict, Optional

_local = threading.local()


def record(stats: Dict[str, Any]) -> None:
    _local.last = stats


def last_run_stats() -> Optional[Dict[str, Any]]:
    """The last emulated run on this thread, whichever operator it was; None before the first one.

    {"op": "dynamic_quant" | "qlinear_matmul",
     "plan": the plan's summary (mode, used_cores, block_dim, passes; QLinearMatMul also workers_per_core, tile,
             tiles, workspace_bytes),
     "run": {soc, kernel, block_dim, ub_bytes, completed, error, cores: [{gm_read_bytes, gm_write_bytes,
             dma_gm_to_ub, dma_ub_to_gm, dma_ub_to_ub, gm_scalar_reads, gm_scalar_writes, vector_ops,
             peak_ub_bytes} per core / vector worker]} or None when there was nothing to launch (no rows, an
             empty output),
     "matmul": QLinearMatMul only: [{calls, a_bytes, b_bytes, c_bytes, macs} per vector worker]}
    The per-core GM bytes of QLinearMatMul include the cube's reads of A / B and writes of C requested by that
    worker.
    """
    return getattr(_local, "last", None)
