"""The timeline model from Python: the SoC table's timing parameters, simulating traces, and a launch's summary.

The simulator is C++ (op_kernel/emulator/src/timeline.cpp); this module turns its result into the figures the
report shows: estimated time, per-pipe busy fractions, the critical pipe, stall time by cause.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Mapping, Optional, Sequence

from .. import _native
from ..tiling import canonical_soc

PIPES = ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")


def timing_table(soc: str) -> Dict[str, dict]:
    """The SoC table's timing parameters of `soc`: name -> {value, unit, basis, source, meaning, affects_time}.
    basis is "source" (read from a public source), "derived" (our arithmetic on or reading of sourced values) or
    "assumption" (no public number; our choice)."""
    return dict(_native.soc_timing(canonical_soc(soc)))


def sensitivity_parameters(soc: str) -> List[str]:
    """The parameters whose value is derived or assumed and that change the estimate: the report reruns the model
    at 0.5x and 2x of each."""
    return [name for name, p in timing_table(soc).items() if p["affects_time"] and p["basis"] != "source"]


def _check_scale(soc: str, scale: Optional[Mapping[str, float]]) -> Dict[str, float]:
    if not scale:
        return {}
    known = timing_table(soc)
    out = {}
    for name, factor in scale.items():
        if name not in known:
            raise ValueError(f"unknown timing parameter {name!r}; known: {', '.join(known)}")
        factor = float(factor)
        if not factor > 0 or factor == float("inf"):
            raise ValueError(f"timing parameter {name!r}: factor must be finite and > 0, got {factor}")
        out[name] = factor
    return out


_SITE = re.compile(r" at (\(no site\)|[^ ]+:\d+)$")


def cause_kind(cause: str) -> str:
    """A stall cause without its kernel site: "wait V->S id 0 at k.cpp:12" -> "wait V->S"."""
    c = _SITE.sub("", cause)
    return re.sub(r" id -?\d+$", "", c)


@dataclass
class LaunchSummary:
    """What one simulated launch gives the report."""
    soc: str
    clock_mhz: float
    cycles: float
    time_us: float
    slowest: int                      # index of the slowest core
    cores: int
    busy_slowest: Dict[str, float]    # pipe -> busy fraction of the launch, slowest core
    busy_mean: Dict[str, float]       # pipe -> mean busy fraction over the cores that use the pipe
    critical_pipe: str                # the busiest pipe of the slowest core
    cube_busy: float                  # mean M busy fraction over the cores with cube work (0 without)
    stalls: Dict[str, float]          # cause -> cycles summed over every core and pipe
    stall_kinds: Dict[str, float]     # the same grouped by kind (no site)
    gm_busy: float                    # DDR bytes moved / (launch time x the chip's GM (DDR) bandwidth)
    ddr_bytes: float                  # bytes through the GM (DDR) bandwidth: L2 misses' lines and every write
    l2_hit_bytes: float               # read bytes the L2 cache served
    gm_read_bytes: float              # bytes the DMAs read from GM (hits and misses)
    work: Dict[str, float]            # pipe -> its work summed over the cores (DMA bytes, vector bytes processed,
                                      # cube MACs, scalar accesses)
    raw: dict = field(repr=False, default_factory=dict)

    @property
    def l2_hit_share(self) -> float:
        """The share of the bytes read from GM that the L2 cache served."""
        return self.l2_hit_bytes / self.gm_read_bytes if self.gm_read_bytes else 0.0

    def top_stalls(self, n: int = 3, by_kind: bool = True):
        d = self.stall_kinds if by_kind else self.stalls
        return sorted(d.items(), key=lambda kv: -kv[1])[:n]

    def stall_share(self, kind: str) -> float:
        """The mean share of the launch time that the cores which stalled on `kind` (a cause without its site)
        spent waiting for it (summed over their pipes)."""
        cores = [c for c in self.raw.get("cores", []) if not c.get("absorbed")]
        per_core = [sum(cyc for p in PIPES for cause, cyc in c["pipes"][p]["stalls"].items() if cause_kind(cause) == kind)
                    for c in cores]
        stalled = [v for v in per_core if v > 0]
        return sum(stalled) / len(stalled) / self.cycles if stalled and self.cycles else 0.0


def summarize(result: dict) -> LaunchSummary:
    """A LaunchSummary of a timeline dict (timeline_simulate / timeline_last_run)."""
    cycles = float(result["cycles"]) or 1.0
    slow = result["cores"][result["slowest"]] if result["cores"] else {"pipes": {p: {"busy": 0.0} for p in PIPES}}
    # a coupled SoC's cube part ran on its AI core's pipes: it is not a core of its own
    cores = [c for c in result["cores"] if not c.get("absorbed")]
    busy_slowest = {p: slow["pipes"][p]["busy"] / cycles for p in PIPES}
    busy_mean = {}
    for p in PIPES:
        users = [c["pipes"][p]["busy"] for c in cores if c["pipes"][p]["instructions"] or c["pipes"][p]["busy"]]
        busy_mean[p] = (sum(users) / len(users) / cycles) if users else 0.0
    critical = max((p for p in PIPES), key=lambda p: slow["pipes"][p]["busy"])
    cube_users = [c["pipes"]["M"]["busy"] for c in cores if c["pipes"]["M"]["instructions"]]
    cube_busy = (sum(cube_users) / len(cube_users) / cycles) if cube_users else 0.0
    stalls: Dict[str, float] = {}
    for c in cores:
        for p in PIPES:
            for cause, cyc in c["pipes"][p]["stalls"].items():
                stalls[cause] = stalls.get(cause, 0.0) + cyc
    kinds: Dict[str, float] = {}
    for cause, cyc in stalls.items():
        k = cause_kind(cause)
        kinds[k] = kinds.get(k, 0.0) + cyc
    ddr_bytes = float(result.get("ddr_bytes", result["gm_bytes"]))
    gm_busy = ddr_bytes / (cycles * float(result["gm_bytes_per_cycle"]))
    work = {p: sum(float(c["pipes"][p].get("work", 0.0)) for c in result["cores"]) for p in PIPES}
    return LaunchSummary(result["soc"], float(result["clock_mhz"]), float(result["cycles"]), float(result["time_us"]),
                         int(result["slowest"]), len(cores), busy_slowest, busy_mean, critical, cube_busy, stalls,
                         kinds, gm_busy, ddr_bytes, float(result.get("l2_hit_bytes", 0.0)),
                         float(result.get("gm_read_bytes", 0.0)), work, result)


def simulate(traces: Sequence[dict], soc: str, *, scale: Optional[Mapping[str, float]] = None,
             detail_core: int = -1) -> dict:
    """Simulates hand-built traces: a list of {"core", "is_cube", "events": [event dicts]} (keys of an event:
    kind instr | set_flag | wait_flag | barrier | sync_all | cube_request | cube_wait; pipe, src, dst S | V | M |
    MTE1 | MTE2 | MTE3 | FIX | ALL; id, group, cls, elem_bytes, peer_core, handle, count, bursts, file, line; gm:
    the GM bytes a DMA touched, a list of {addr, bytes, blocks (default 1), stride (default bytes), write (default
    False)}, which the L2 model looks up).
    scale: {parameter: factor}. detail_core: whose instructions come back in "detail" (-1 the slowest, -2 none)."""
    soc = canonical_soc(soc)
    return _native.timeline_simulate(list(traces), soc, _check_scale(soc, scale), int(detail_core))


def sensitivity(run, soc: str, params: Optional[Iterable[str]] = None, factors=(0.5, 2.0)) -> Dict[str, Dict[float, float]]:
    """Reruns `run(scale)` (a function returning a timeline dict) at each factor of each parameter (default: every
    derived or assumed one): parameter -> {factor: time_us}."""
    out: Dict[str, Dict[float, float]] = {}
    for name in params if params is not None else sensitivity_parameters(soc):
        out[name] = {f: float(run({name: f})["time_us"]) for f in factors}
    return out
