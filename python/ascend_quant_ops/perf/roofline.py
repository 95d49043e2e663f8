"""The roofline of a launch: the least time the chip's GM bandwidth and compute peak allow, from the SoC table's
timing parameters (the same ones the timeline model uses).

    memory time  = minimum GM bytes (every input byte read once, every output byte written once) / GM bandwidth
    compute time = MACs / (cube cores x cube MACs per cycle x clock)                      (QLinearMatMul)
                 = one vector pass over x: x bytes / (vector cores x bytes per repeat / cycles per repeat x clock)
                   (DynamicQuant: a lower bound of its vector work; the element must at least be read once)
    roofline     = max(memory time, compute time)

and the latency floor of a launch (`latency_floor_us`): the memory time plus the GM round trip that no kernel can
hide, from the same parameters.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Mapping, Optional

from .. import tiling
from .model import timing_table


@dataclass
class Roofline:
    min_bytes: int
    memory_us: float
    compute_us: float
    compute_what: str     # what the compute bound counts

    @property
    def us(self) -> float:
        return max(self.memory_us, self.compute_us)

    @property
    def bound(self) -> str:
        return "memory" if self.memory_us >= self.compute_us else "compute"


def _values(soc: str, scale: Optional[Mapping[str, float]]) -> Dict[str, float]:
    """The timing parameters of `soc` with `scale` (parameter -> factor) applied, as the timeline model sees them:
    a run at 0.5x of the GM bandwidth is compared with the roofline of that bandwidth."""
    v = {name: float(p["value"]) for name, p in timing_table(soc).items()}
    for name, factor in (scale or {}).items():
        v[name] *= float(factor)
    return v


def memory_us(soc: str, min_bytes: int, scale: Optional[Mapping[str, float]] = None) -> float:
    """Minimum GM bytes at the chip's GM bandwidth, in microseconds."""
    return min_bytes / (_values(soc, scale)["gm_bandwidth_gbps"] * 1e3)  # GB/s = 1e3 bytes per microsecond


def latency_floor_us(soc: str, min_bytes: int, scale: Optional[Mapping[str, float]] = None) -> float:
    """The least time the timeline model allows a launch that moves `min_bytes` through GM, in microseconds:

        memory time (min_bytes / gm_bandwidth_gbps)  +  dma_latency_cycles / clock_mhz

    What it counts, under the model's rules (docs/performance.md, "The timeline model"): the chip's GM moves at most
    gm_bandwidth_gbps, so the last byte of the launch moves no earlier than the memory time after the start; the DMA
    that moves it completes one GM round trip (dma_latency_cycles) after its last byte, and the launch ends when its
    last DMA has completed. That round trip is the only one counted: the first load's round trip before any compute
    can start is not, because the GM can carry the following loads meanwhile (a kernel with enough loads in flight
    keeps it busy from the start), so it is not a cost every kernel must pay. Nothing of the vector or scalar work
    is counted either (the compute roofline is separate). Per-burst DMA set-up, flag latencies and the issue of the
    first DMA are left out, so the floor is a lower bound, not a reachable time."""
    v = _values(soc, scale)
    return memory_us(soc, min_bytes, scale) + v["dma_latency_cycles"] / v["clock_mhz"]


def dynamic_quant(soc: str, min_bytes: int, x_bytes: int, scale: Optional[Mapping[str, float]] = None) -> Roofline:
    v = _values(soc, scale)
    cores = int(tiling.soc_spec(soc)["dynamic_quant_cores"])
    repeats = x_bytes / v["vector_bytes_per_repeat"]
    cycles = repeats * v["vec_elementwise_cycles_per_repeat"] / cores
    return Roofline(min_bytes, memory_us(soc, min_bytes, scale), cycles / v["clock_mhz"],
                    f"one vector pass over x on {cores} cores")


def qlinear_matmul(soc: str, min_bytes: int, macs: int, scale: Optional[Mapping[str, float]] = None) -> Roofline:
    v = _values(soc, scale)
    cubes = int(tiling.soc_spec(soc)["cube_cores"])
    cycles = macs / (cubes * v["cube_macs_per_cycle"])
    return Roofline(min_bytes, memory_us(soc, min_bytes, scale), cycles / v["clock_mhz"],
                    f"{macs} MACs on {cubes} cube cores")
