"""GM traffic, balance and UB use of the kernels in the emulator (the former scripts/data_movement.py).

For each operator, SoC and shape the kernel runs in the emulator with the host plan's tiling, and the emulator's
per-core counters give:
  traffic   GM bytes moved (read + written) / the minimum (every input byte read once, every output byte
            written once);
  balance   mean / max of the per-core work (rows for DynamicQuant, output tiles for QLinearMatMul), next to the
            best any split of whole work units can reach for that shape;
  UB        the highest UB use of any core / the SoC's UB;
  DMA       GM<->UB copy operations (all cores).
Targets: traffic 1.00x for single-pass DynamicQuant shapes and <= 1.7x for multi-pass rows, met when the traffic
rounded to the targets' two decimals is within them (ascend310p's DynamicQuant rewrites up to 7 of a core's own
scales, 100 x 4096 is 1.0001x); QLinearMatMul: the traffic its design explains (qmm_traffic_model, +10%, and 32
bytes a launched worker); balance >= 0.95 whenever work >= 4 x cores, as stated (the "best" column, what some split
of whole units over at most the SoC's cores reaches, is shown for comparison and does not lower the target).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

import numpy as np

from .. import dtypes, tiling


@dataclass
class Row:
    op: str
    soc: str
    case: str           # shape and dtypes, human-readable
    mode: str           # the plan's mode
    cores: int          # used cores
    gm_bytes: int       # read + written, all cores (DMA and scalar)
    min_bytes: int      # inputs read once + outputs written once
    target: float       # traffic target for this mode
    balance: float      # mean / max work per used core
    best_balance: float # best mean / max any split of whole work units over <= the SoC's cores reaches
    balance_applies: bool
    ub_peak: int
    ub_bytes: int
    dma_ops: int

    @property
    def traffic(self) -> float:
        return self.gm_bytes / self.min_bytes if self.min_bytes else 1.0

    @property
    def ok(self) -> bool:
        traffic_ok = round(self.traffic, 2) <= round(self.target, 2)
        # The target as stated: >= 0.95 whenever work >= 4 x cores. "best" (what some split of whole units
        # over at most the SoC's cores reaches) is shown next to it, but does not lower the target.
        balance_ok = (not self.balance_applies) or self.balance >= 0.95 - 1e-9
        return traffic_ok and balance_ok and self.ub_peak <= self.ub_bytes


# ----------------------------------------------------------------------------------------------- DynamicQuant
DQ_DEFAULT_CASES: Dict[str, List[Tuple[Tuple[int, ...], str, str]]] = {
    "ascend910b": [((8, 26624), "float16", "int8"), ((197, 4096), "float16", "int8"),
                   ((197, 7552), "bfloat16", "int8"), ((960, 128), "float16", "int8"), ((3000, 7), "float16", "int8")],
    "ascend310p": [((100, 4096), "float16", "int8"), ((1003, 64), "float16", "int8"), ((13, 96), "float16", "int8")],
    "ascend910_95": [((4, 100000), "float16", "int8"), ((300, 1024), "bfloat16", "hifloat8"),
                     ((64, 60000), "float16", "float8_e4m3fn"), ((256, 7168), "bfloat16", "float8_e5m2")],
}


def _core_work(e) -> list:
    """Work units per used core: the sum of its ranges (a core may list several, e.g. QLinearMatMul's rounds)."""
    per: dict = {}
    for w in e["work"]:
        per[w["core"]] = per.get(w["core"], 0) + w["end"] - w["begin"]
    return list(per.values())


def _best_balance(work: int, unit: int, cores: int) -> float:
    """The best mean / max over the used cores that a split of `work` items, in whole units of `unit` items, over
    at most `cores` cores reaches without a longer slowest core than the even split over all of them (fewer cores
    may be used: 197 rows on 48 cores reach 197 / 40 / 5 = 0.985; one core would be "balanced" but slower)."""
    if work <= 0:
        return 1.0
    units = -(-work // unit)
    fastest = -(-units // cores)  # units on the slowest core of the best makespan
    best = 0.0
    for k in range(-(-units // fastest), min(cores, units) + 1):
        if -(-units // k) != fastest:
            continue
        biggest = min(fastest * unit, work)
        best = max(best, (work / k) / biggest)
    return min(1.0, best)


def dynamic_quant_row(soc: str, shape: Sequence[int], x_dtype: str, dst: str, smooth: bool = False, seed: int = 0,
                      asymmetric: bool = False) -> Row:
    """Runs DynamicQuant in the emulator and measures it (the emulator's last run is this one afterwards)."""
    edq = importlib.import_module("ascend_quant_ops.emulator.dynamic_quant")
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) + 0.1).astype(dtypes.numpy_dtype(x_dtype))
    sm = (rng.random(shape[-1]) + 0.5).astype(x.dtype) if smooth else None
    p = tiling.plan_dynamic_quant(shape, x_dtype, soc=soc, dst_type=dst, smooth=smooth, asymmetric=asymmetric)
    edq.dynamic_quant(x, sm, soc=soc, dst_type=dst, asymmetric=asymmetric)
    run = edq.last_run_stats()["run"]
    e = p.explanation
    rows = int(np.prod(shape[:-1]))
    h = shape[-1]
    min_bytes = rows * h * (dtypes.itemsize(x_dtype) + dtypes.itemsize(dst)) + rows * 4
    if asymmetric:  # the offsets: float32, or the uint8 zero points
        min_bytes += rows * (1 if dst == dtypes.UINT8 else 4)
    if smooth:
        min_bytes += h * dtypes.itemsize(x_dtype)
    gm = sum(c["gm_read_bytes"] + c["gm_write_bytes"] + 4 * c["gm_scalar_writes"] for c in run["cores"])
    work = _core_work(e)
    used = max(1, len(work))
    mean = rows / used
    balance = mean / max(work) if work and max(work) else 1.0
    unit = max(1, int(e.get("balance_unit") or 1))
    cap = int(e["core_capacity"])
    # Without DataCopyPad every core takes at least a 32-byte block of scales (8 rows; docs/design.md), so at most
    # rows / 8 cores can share the rows: the best split is searched under that limit.
    spec = tiling.soc_spec(soc)
    min_rows = 1 if spec["has_data_copy_pad"] else int(spec["copy_block_bytes"]) // 4  # 4-byte float32 scales
    best_cap = max(1, min(cap, rows // min_rows))
    best = _best_balance(rows, unit, best_cap)
    label = (f"{'x'.join(map(str, shape))} {x_dtype}->{dst}{' asym' if asymmetric else ''}"
             f"{' +smooth' if smooth else ''}")
    return Row("dynamic_quant", soc, label,
               e["mode"], len(work), gm, min_bytes, 1.7 if e["passes"] > 1 else 1.0, balance, best,
               rows >= 4 * cap, max(c["peak_ub_bytes"] for c in run["cores"]), int(e["ub_capacity"]),
               sum(c["dma_gm_to_ub"] + c["dma_ub_to_gm"] for c in run["cores"]))


# ----------------------------------------------------------------------------------------------- QLinearMatMul
# Cases: (a shape, b shape, a dtype, b dtype, y dtype, a_param, b_param, zero points). Zero points: "random" (all
# drawn at random, non-zero in practice), "b0" (b's are 0: symmetric int8 weights), "0" (all 0). The kernel
# (op_kernel/aqo_qlinear_matmul.cpp) trades GM traffic for exactness and simplicity: per output tile the cube reads
# its rows of a and its K x tile columns of b for the product and writes an int32 tile to the vector core's
# workspace, which the vector core reads back; uint8 operands are first copied, mapped to int8, into the workspace.
# The zero-point terms need the row sums of A' (times b's zero points) and the column sums of B' (times a's): the
# cube computes them against a ones vector only for tiles whose multiplying zero points are not all 0 (row sums once
# per run of a worker's tiles on the same rows); with uint8 a (mapped into the workspace) the column sums come with
# the product from a ones row placed before the mapped rows (K bytes more of A instead of K x cols of B). So the
# minimum (a, b and the parameters read once, y written once)
# is not the target here: the target is this model of the kernel's traffic (+10% for 32-byte padding, and 32 bytes a
# launched worker for its scalar parameter reads: the counters count 4 bytes a scalar read, and every worker reads
# a few per-tensor parameters and zero points, which the model counts once at their size; this only matters for
# tiny products such as 1 x 1 x 1), and a row MISSes when the measured traffic exceeds what the design explains.
QMM_DEFAULT_CASES: Dict[str, List[Tuple]] = {
    "ascend910b": [((512, 1024), (1024, 512), "uint8", "int8", "uint8", "tensor", "column", "random"),
                   ((512, 1024), (1024, 512), "uint8", "int8", "uint8", "tensor", "column", "b0"),
                   ((512, 1024), (1024, 512), "int8", "int8", "int8", "tensor", "tensor", "0"),
                   ((4, 96, 200), (4, 200, 300), "int8", "int8", "int8", "row", "column", "random"),
                   ((1, 2048), (2048, 2048), "int8", "int8", "int8", "tensor", "column", "random"),
                   ((1, 2048), (2048, 2048), "int8", "int8", "int8", "tensor", "column", "b0")],
    "ascend310p": [((256, 512), (512, 256), "uint8", "uint8", "uint8", "tensor", "tensor", "random"),
                   ((3, 100, 130), (130, 70), "int8", "uint8", "int8", "row", "column", "random"),
                   ((256, 512), (512, 256), "uint8", "int8", "uint8", "tensor", "column", "b0")],
    "ascend910_95": [((512, 1024), (1024, 512), "uint8", "int8", "uint8", "tensor", "column", "random"),
                     ((512, 1024), (1024, 512), "uint8", "int8", "uint8", "tensor", "column", "b0")],
}


def qmm_worker_units(t: dict):
    """Each vector worker's output blocks, as the kernel's cube stage splits them (QmmWorkerRanges in
    op_host/tiling_core/matmul_cube_plan.h): yields (worker index, list of block ranges). Without rounds one range:
    the blocks split evenly over the usedCores cube cores, then a cube core's range evenly over its workersPerCore
    workers. With rounds (roundRanges, 310p: one worker a core) two: the worker's whole strip rows (batch x strips //
    usedCores of them, contiguous), then its even share of the blocks after every core's rounds."""
    wpc, cores, units = t["workersPerCore"], t["usedCores"], t["unitCount"]
    if t["roundRanges"]:
        whole = t["batch"] * t["strips"] // cores * t["nBlocks"]
        q, r = divmod(units - whole * cores, cores)
        for w in range(cores):
            begin = whole * cores + w * q + min(w, r)
            yield w, [range(w * whole, (w + 1) * whole), range(begin, begin + q + (1 if w < r else 0))]
        return
    q, r = divmod(units, cores)
    for w in range(cores * wpc):
        core, sub = divmod(w, wpc)
        sq, sr = divmod(q + (1 if core < r else 0), wpc)
        begin = core * q + min(core, r) + sub * sq + min(sub, sr)
        yield w, [range(begin, begin + sq + (1 if sub < sr else 0))]


def qmm_worker_segments(t: dict, w: int, ranges):
    """The pieces of a worker's ranges in the order the kernel cuts them into calls. Without rounds the ranges
    themselves. With rounds (the cube stage's NextSegment) each range strip row by strip row, a strip row's blocks
    range by range of N (roundRanges ranges), each range from the worker's own block on (usedCores equal steps into
    the range) and then its blocks before it."""
    h_count = t["roundRanges"]
    for units in ranges:
        if not h_count:
            yield units
            continue
        nb = t["nBlocks"]
        row = units.start // nb * nb
        while row < units.stop:
            for h in range(h_count):
                r0, r1 = row + h * nb // h_count, row + (h + 1) * nb // h_count
                start = r0 + w * (r1 - r0) // t["usedCores"]
                for b, e in ((start, r1), (r0, start)):
                    b, e = max(b, units.start), min(e, units.stop)
                    if b < e:
                        yield range(b, e)
            row += nb


def qmm_worker_calls(t: dict, w: int, ranges):
    """A worker's cube calls, as the kernel cuts its ranges: (y batch matrix, strip, first N block, blocks). On split
    SoCs (two workers per cube core; a call's epilogue waits for all its blocks) the last calls shrink: each takes at
    most about two thirds of what is left of the range."""
    for units in qmm_worker_segments(t, w, ranges):
        u, end = units.start, units.stop
        while u < end:
            bi, rest = divmod(u, t["strips"] * t["nBlocks"])
            strip, nb0 = divmod(rest, t["nBlocks"])
            blocks = min(t["nBlocks"] - nb0, end - u, t["callBlocks"])
            if t["workersPerCore"] > 1:
                blocks = min(blocks, (2 * (end - u) + 1) // 3)
            yield bi, strip, nb0, blocks
            u += blocks


def qmm_effective_zero_points(t: dict, a_zp: np.ndarray, b_zp: np.ndarray):
    """The zero points as the cube's operands see them (the parameter layout, flat): shifted by the uint8 <-> int8
    mapping's 128 (tiling zpShiftA / zpShiftB)."""
    za = np.asarray(a_zp).reshape(-1).astype(np.int64) - t["zpShiftA"]
    zb = np.asarray(b_zp).reshape(-1).astype(np.int64) - t["zpShiftB"]
    return za, zb


def qmm_vector_decode_groups(t: dict, units: range):
    """A vector decode worker's groups (tiling key 1, op_kernel/aqo_qmm_vector_decode.h), as the kernel cuts its
    range of column units: (y batch matrix, first column, columns)."""
    u, end, per, gran = units.start, units.stop, t["vdGranules"], t["vdGranule"]
    widest = t["cStride"] // gran
    while u < end:
        bi, first = divmod(u, per)
        take = min(end - u, per - first, widest)
        u += take
        yield bi, first * gran, min(t["n"], (first + take) * gran) - first * gran


def _epilogue_holds_all_rows(t: dict) -> bool:
    """QmmRequantEpilogue::LoadRows: per-row a scales shared by every matrix (not batched) whose M rows the plan's row
    buffer holds are read once, all M of them, by a worker's first call; the later calls read none."""
    return bool(t["aParamKind"]) and t["aParamBatchStride"] == 0 and 4 * t["m"] <= t["ubRowF32"]


def _copy_in_dma_bytes(off: int, count: int, elems: int, item: int) -> int:
    """GM bytes QmmCopyBytesIn (aqo_qmm_common.h) moves by DMA without DataCopyPad: whole 32-byte blocks, the ones
    that would pass the tensor's end left to the scalar unit."""
    per_block = 32 // item
    padded = -(-count // per_block) * per_block
    return item * (padded if off + padded <= elems else count // per_block * per_block)


def _any_nonzero_dma_bytes(zps: np.ndarray, first: int, end: int, chunk: int) -> int:
    """GM bytes the zero points' decision (QmmZeroPoints AnyNonZero) reads of a vector of 8-bit zero points: chunk by
    chunk of [first, end) until one holds a non-zero value."""
    total = 0
    for off in range(first, end, chunk):
        n = min(chunk, end - off)
        total += _copy_in_dma_bytes(off, n, len(zps), 1)
        if np.any(zps[off:off + n] != 0):
            break
    return total


def _cube_core_columns(units: int, cores: int):
    """The 310p cube paths' split (aqo_qmm_layout.h CdCoreUnits): each core's first column and width in y, for the
    cores with columns."""
    q, r = divmod(units, cores)
    for c in range(cores):
        width = (q + (1 if c < r else 0)) * 32
        if width:
            yield (c * q + min(c, r)) * 32, width


def qmm_cube_decode_traffic(t: dict, za: np.ndarray, zb: np.ndarray) -> int:
    """GM traffic of ascend310p's cube decode path (tiling key 2) by DMA, for effective zero points za, zb
    (qmm_effective_zero_points): per core, a once (M x K), its columns of b in every K row once, y's M rows of them;
    the zero points' decisions (a's all, b's over the core's columns, chunk by chunk until a non-zero one); where a
    correction is needed, a's per-row zero points and, where b's are not all 0, b's per-column ones group by group;
    per group b's per-column scales, and a's per-row scales (once a core where the epilogue holds all M rows). Reads
    are whole 32-byte blocks; the few bytes of a
    parameter vector that would pass its end come through the scalar unit (not counted here)."""
    m, n, k, g = t["m"], t["n"], t["k"], t["cdGroup"]
    cores, units = t["usedCores"], t["unitCount"]
    za, zb = np.asarray(za).reshape(-1), np.asarray(zb).reshape(-1)
    need_cb = bool(np.any(za != 0))
    total = 0
    for col0, width in _cube_core_columns(units, cores):
        total += m * k + k * width + m * width                 # a, b's columns, y
        decisions, need_ra = _cube_core_zero_point_decisions(t, za, zb, col0, width)
        total += decisions
        if t["aZpKind"] == 2 and (need_cb or need_ra):
            total += _copy_in_dma_bytes(0, m, m, 1)
        if _epilogue_holds_all_rows(t):
            total += _copy_in_dma_bytes(0, m, m, 4)
        for n0 in range(col0, col0 + width, g):
            cols = min(g, col0 + width - n0)
            if t["bZpKind"] == 2 and need_ra:
                total += _copy_in_dma_bytes(n0, cols, n, 1)
            if t["bParamKind"]:
                total += _copy_in_dma_bytes(n0, cols, n, 4)
            if t["aParamKind"] and not _epilogue_holds_all_rows(t):
                total += _copy_in_dma_bytes(0, m, m, 4)
    return total


def _cube_core_zero_point_decisions(t: dict, za: np.ndarray, zb: np.ndarray, col0: int, width: int):
    """A 310p cube core's zero-point decisions (QmmZeroPoints::DecideColumnSums / DecideRowSums, b's over its own
    columns): their DMA bytes (vector zero points read chunk by chunk until a nonzero one) and whether a's row sums
    are needed there."""
    total = 0
    if t["aZpKind"] == 2:
        total += _any_nonzero_dma_bytes(za, 0, t["m"], t["prepChunk"])
    if t["bZpKind"] == 2:
        total += _any_nonzero_dma_bytes(zb, col0, col0 + width, t["prepChunk"])
        return total, bool(np.any(zb[col0:col0 + width] != 0))
    return total, bool(np.any(zb != 0))


def qmm_cube_gemm_traffic(t: dict, za: np.ndarray, zb: np.ndarray) -> int:
    """GM traffic of ascend310p's cube GEMM path (tiling key 3) by DMA, for effective zero points za, zb: per core, its
    columns of b in every K row once, a's M x K once per panel of its columns, y's M rows of them; the zero points'
    decisions (as the decode path's); per panel b's per-column zero points (where a correction needs them; each pass
    over K) and scales, per slab of a (cgSlab rows, 16 fewer when b's column sums take the last row block) a's per-row
    zero points (where a correction is needed; each pass) and scales, or all M rows of each once a core where the
    plan's row buffers hold them (the zero points a staging piece at a time). K in passes (cgKPart K values each):
    every pass but the last writes the panel's M rows of int32 sums to the workspace, every pass but the first reads
    them. In one pass a core's panels after its first do not read a's slab that the panel before read last (the
    panels alternate their direction over M; that slab stays in L1)."""
    m, n, k, panel, slab = t["m"], t["n"], t["k"], t["cgPanel"], t["cgSlab"]
    passes = -(-k // t["cgKPart"])
    cores, units = t["usedCores"], t["unitCount"]
    za, zb = np.asarray(za).reshape(-1), np.asarray(zb).reshape(-1)
    need_cb = bool(np.any(za != 0))
    rows_a = slab - 16 if need_cb else slab
    # All M rows' per-row parameters at once (the kernel's LoadAllRowZeroPoints, QmmRequantEpilogue::LoadRows).
    za_all = 4 * (-(-m // 32) * 32) <= t["ubRowI32"]
    scales_all = _epilogue_holds_all_rows(t)
    piece = max(panel, slab) // 32 * 32  # aqo_qmm_layout.h CgStageUnit, whole 32-element pieces
    total = 0
    for col0, width in _cube_core_columns(units, cores):
        decisions, need_ra = _cube_core_zero_point_decisions(t, za, zb, col0, width)
        total += decisions
        za_rows = t["aZpKind"] == 2 and (need_cb or need_ra)
        if za_rows and za_all:
            total += sum(_copy_in_dma_bytes(m0, min(piece, m - m0), m, 1) for m0 in range(0, m, piece))
        if t["aParamKind"] and scales_all:
            total += _copy_in_dma_bytes(0, m, m, 4)
        slabs = -(-m // rows_a)
        for p, n0 in enumerate(range(col0, col0 + width, panel)):
            cols = min(panel, col0 + width - n0)
            total += k * cols + m * k + m * cols                 # b's panel, a, y
            if passes == 1 and p > 0:                            # the previous panel's last slab, kept in L1
                total -= k * (min(rows_a, m) if p % 2 == 0 else m - (slabs - 1) * rows_a)
            total += 2 * (passes - 1) * m * cols * 4             # the passes' sums, written and read back
            if t["bZpKind"] == 2 and need_ra:
                total += passes * _copy_in_dma_bytes(n0, cols, n, 1)
            if t["bParamKind"]:
                total += _copy_in_dma_bytes(n0, cols, n, 4)
            for row0 in range(0, m, rows_a):
                rows = min(rows_a, m - row0)
                if za_rows and not za_all:
                    total += passes * _copy_in_dma_bytes(row0, rows, m, 1)
                if t["aParamKind"] and not scales_all:
                    total += _copy_in_dma_bytes(row0, rows, m, 4)
    return total


def qmm_vector_decode_traffic(t: dict, pad: bool) -> int:
    """GM traffic of the vector decode path: per group, its columns of b in the K rows it sums and a's M rows of
    them (panel by panel), b's per-column zero points; per group of the epilogue, b's per-column scales, a's per-row
    scales (the first group only where the epilogue holds all M rows) and y's M rows. With K slices (vdSlices > 1) each worker's group sums go to the workspace (M x cols int32)
    and every epilogue group reads all slices of its columns back. Without DataCopyPad (310p) every panel is whole
    blocks already (the plan requires N and K multiples of 32)."""
    def up32(v: int) -> int:
        return -(-v // 32) * 32

    def share(n: int, parts: int, i: int) -> range:
        q, r = divmod(n, parts)
        begin = i * q + min(i, r)
        return range(begin, begin + q + (1 if i < r else 0))

    m, n, k = t["m"], t["n"], t["k"]
    workers, slices = t["usedCores"] * t["workersPerCore"], t["vdSlices"]
    total = 0
    for w in range(workers):
        if slices > 1:  # this worker's K slice of its column range
            s = w % slices
            rows = k * (s + 1) // slices - k * s // slices  # an even share of K
            units = share(t["unitCount"], workers // slices, w // slices)
        else:
            rows, units = k, share(t["unitCount"], workers, w)
        for _bi, _n0, cols in qmm_vector_decode_groups(t, units):
            total += rows * cols + m * rows                  # b's columns and a's rows of the summed K rows
            if t["bZpKind"] == 2:
                total += up32(cols) if pad else cols
            if slices > 1:
                total += 4 * m * cols                        # the slice's sums to the workspace
        for i, (_bi, _n0, cols) in enumerate(qmm_vector_decode_groups(t, share(t["unitCount"], workers, w))):
            if slices > 1:
                total += slices * 4 * m * cols               # every slice's sums of the epilogue's columns
            if t["bParamKind"]:
                total += up32(4 * cols) if pad else 4 * cols
            if t["aParamKind"] and (i == 0 or not _epilogue_holds_all_rows(t)):
                total += up32(4 * m) if pad else 4 * m       # a's scales (a group's rows are all M)
            total += m * cols                                # y
    return total


def qmm_traffic_model(t: dict, za: np.ndarray, zb: np.ndarray, pad: bool, per_worker: list | None = None):
    """GM traffic (DMA bytes, read + written, all workers, the cube's included) of the kernel's design, from the
    plan's tiling and the effective zero points (qmm_effective_zero_points): (total, per-worker cube work {calls,
    a_bytes, b_bytes, c_bytes}); `per_worker`, when given, receives each worker's total. Scalar GM accesses are not
    included. `pad`: no DataCopyPad (ascend310p): GM -> UB
    copies are whole 32-byte blocks (a copy whose blocks would pass the tensor's end stops at its last whole block
    and reads the rest with the scalar unit); a y row segment ending in a partial block is written as its whole
    blocks plus the block ending at its end, one narrower than a block (one core only) by the scalar unit.

    The design: the zero-point terms a launch needs are decided from the values (every worker scans the vector zero
    points until it meets a non-zero one); A is prepared (mapped uint8, a ones row for the column sums) once per strip,
    its row sums summed while it is read and stored with the a zero points as the correction's row terms (64 bytes a
    row), b mapped once (split SoCs: every worker an even share of a's rows and of b's bytes, published by SyncAll;
    310p: each core the strips of its own calls); each cube call reads A's strip and B's columns once, and its strip's
    row terms; the epilogue reads each block's int32 rows once and writes y once."""
    def up32(v: int) -> int:
        return -(-v // 32) * 32

    def copy_in(off: int, length: int, elems: int, esize: int) -> int:  # QmmCopyBytesIn
        if not pad:
            return length * esize
        per = 32 // esize
        padded = -(-length // per) * per
        if off + padded <= elems:
            return padded * esize
        return length // per * per * esize

    def operands(index: int):  # the y batch matrix as matrix indices of a and b (numpy broadcasting)
        ai = bj = 0
        for d in reversed(range(t["batchRank"])):
            i = index % t["batchDims"][d]
            index //= t["batchDims"][d]
            ai += i * t["aBatchStrides"][d]
            bj += i * t["bBatchStrides"][d]
        return ai, bj

    m, n, k = t["m"], t["n"], t["k"]
    chunk, kpad = t["prepChunk"], t["kPad"]
    a_elems, b_elems = t["aMatrices"] * m * k, t["bMatrices"] * n * k
    az_elems = (t["aMatrices"] * m if t["aZpBatchStride"] else m) if t["aZpKind"] == 2 else 1
    bz_elems = (t["bMatrices"] * n if t["bZpBatchStride"] else n) if t["bZpKind"] == 2 else 1
    as_elems = (t["aMatrices"] * m if t["aParamBatchStride"] else m) if t["aParamKind"] else 1
    bs_elems = (t["bMatrices"] * n if t["bParamBatchStride"] else n) if t["bParamKind"] else 1
    need_cb = bool(k) and t["aZpKind"] != 0 and bool(np.any(za != 0)) or (bool(k) and t["aZpKind"] == 0 and
                                                                            t["zpShiftA"] != 0)
    need_rb = bool(k) and t["bZpKind"] != 0 and bool(np.any(zb != 0)) or (bool(k) and t["bZpKind"] == 0 and
                                                                            t["zpShiftB"] != 0)
    prepare = bool(k) and (bool(t["mapA"]) or need_cb)

    def full(z: np.ndarray, elems: int) -> np.ndarray:  # one vector shared by the batch, as the backend broadcasts it
        return np.tile(z, -(-elems // len(z)))[:elems] if 0 < len(z) < elems else z

    za_all, zb_all = full(za, az_elems), full(zb, bz_elems)

    def scan(kind: int, z: np.ndarray, elems: int, first: int = 0, end: int = None) -> int:
        # DecideColumnSums / DecideRowSums: vector zero points [first, end), chunk by chunk, until a nonzero one
        if kind != 2 or not k:
            return 0
        end = elems if end is None else end
        moved = 0
        for off in range(first, end, chunk):
            length = min(chunk, end - off)
            moved += copy_in(off, length, elems, 1)
            if np.any(z[off:off + length] != 0):
                break
        return moved

    def prep_strip(ai: int, strip: int, lo: int, hi: int, need_rb: bool = need_rb) -> int:
        # PrepareStrip: rows [lo, hi) of the strip (need_rb: the preparing worker's decision)
        moved = 0
        m0 = strip * t["stripM"]
        if prepare and need_cb and lo == 0:
            moved += kpad                                          # the ones row
        seg = kpad if kpad <= chunk else chunk
        per_step = chunk // kpad if (kpad <= chunk and not pad) else 1
        for r in range(lo, hi, per_step):
            nr = min(per_step, hi - r)
            for k0 in range(0, k, seg):
                length = min(seg, k - k0)
                src = (ai * m + m0 + r) * k + k0
                moved += nr * length if not pad else copy_in(src, length, a_elems, 1)
                if prepare:
                    moved += nr * up32(length)                     # the prepared rows
        if need_cb or need_rb:                                     # WriteRowTerms
            if t["aZpKind"] == 2:
                moved += copy_in((ai * m if t["aZpBatchStride"] else 0) + m0 + lo, hi - lo, az_elems, 1)  # za'
            moved += 64 * (hi - lo)                                # the rows' terms
        return moved

    def map_slab(bj: int, n0: int, cols: int) -> int:  # MapSlab (310p): read the call's columns, write them mapped
        moved = 0
        if t["bTrans"]:
            src, nbytes = (bj * n + n0) * k, cols * k
            for off in range(0, nbytes, chunk):
                length = min(chunk, nbytes - off)
                moved += copy_in(src + off, length, b_elems, 1) + up32(length)
            return moved
        cols_pad = up32(cols)
        per_step = chunk // cols_pad
        for r in range(0, k, per_step):
            nr = min(per_step, k - r)
            src = (bj * k + r) * n + n0
            if nr > 1 and n % 32 == 0 and (n - cols_pad) // 32 <= 65535:
                moved += nr * cols_pad
            else:
                moved += sum(copy_in(src + i * n, cols, b_elems, 1) for i in range(nr))
            moved += nr * cols_pad
        return moved

    total = 0
    cube = []
    workers = t["usedCores"] * t["workersPerCore"]
    for w, ranges in qmm_worker_units(t):
        cw = {"calls": 0, "a_bytes": 0, "b_bytes": 0, "c_bytes": 0}
        cube.append(cw)
        before = total
        b_first, b_end = 0, bz_elems
        need_rb_w = need_rb
        if not t["sharedPrep"] and t["bZpKind"] == 2 and t["unitCount"] == t["nBlocks"]:
            # a worker preparing for itself, of one y matrix's one strip: its own columns' b zero points decide
            (units,) = ranges                                  # no rounds with one strip
            b_first, b_end = min(units.start * t["baseN"], n), min(units.stop * t["baseN"], n)
            need_rb_w = bool(k) and bool(np.any(zb_all[b_first:b_end] != 0))
        total += scan(t["aZpKind"], za_all, az_elems) + scan(t["bZpKind"], zb_all, bz_elems, b_first, b_end)
        if t["sharedPrep"] and k:
            if prepare or need_rb:
                rows_all = t["aMatrices"] * m                      # an even share of the rows, strip by strip
                r, r1 = rows_all * w // workers, rows_all * (w + 1) // workers
                while r < r1:
                    ai, rr = divmod(r, m)
                    strip = rr // t["stripM"]
                    m0 = strip * t["stripM"]
                    lo = rr - m0
                    hi = min(min(t["stripM"], m - m0), lo + (r1 - r))
                    total += prep_strip(ai, strip, lo, hi)
                    r += hi - lo
            if t["mapB"]:
                blocks = -(-b_elems // 32)
                b0, b1 = blocks * w // workers * 32, min(blocks * (w + 1) // workers * 32, b_elems)
                for off in range(b0, b1, chunk):
                    length = min(chunk, b1 - off)
                    total += copy_in(off, length, b_elems, 1) + up32(length)
        private = None
        slab = None
        scales_read = False  # the epilogue holds all M rows' a scales after its first call (_epilogue_holds_all_rows)
        for bi, strip, nb0, blocks in qmm_worker_calls(t, w, ranges):
            ai, bj = operands(bi)
            m0 = strip * t["stripM"]
            rows = min(t["stripM"], m - m0)
            n0 = nb0 * t["baseN"]
            cols = min(n, (nb0 + blocks) * t["baseN"]) - n0
            if k:
                if not t["sharedPrep"] and t["mapB"] and slab != (bj, n0, cols):
                    total += map_slab(bj, n0, cols)                # 310p: the call's columns of b, mapped
                    slab = (bj, n0, cols)
                if not t["sharedPrep"] and (prepare or need_rb_w) and private != (ai, strip):
                    total += prep_strip(ai, strip, 0, rows, need_rb_w)
                    private = (ai, strip)
                if need_cb or need_rb_w:
                    total += 64 * rows                             # the strip's row terms, read back
                rows_a = rows + (1 if prepare and need_cb else 0)
                # A's K tiles stay in L1 over the call's blocks when all fit (depthA1 >= K tiles), else depthA1 - 2
                # of them (the API's NORM buffer; two stream): later blocks reload the rest.
                k_iter, depth = -(-k // t["baseK"]), t["depthA1"]
                kept = k_iter if depth >= k_iter else max(depth - 2, 0)
                a_bytes = rows_a * k + (blocks - 1) * rows_a * (k - min(k, kept * t["baseK"]))
                cw["calls"] += 1
                cw["a_bytes"] += a_bytes
                cw["b_bytes"] += k * cols
                cw["c_bytes"] += 4 * rows_a * cols
                total += a_bytes + k * cols + 4 * rows_a * cols
            if _epilogue_holds_all_rows(t):
                total += 0 if scales_read else copy_in(0, m, as_elems, 4)
                scales_read = True
            elif t["aParamKind"]:
                total += copy_in((ai * m if t["aParamBatchStride"] else 0) + m0, rows, as_elems, 4)
            for j in range(blocks):
                c0 = n0 + j * t["baseN"]
                bc = min(t["baseN"], n - c0)
                if need_rb_w and t["bZpKind"] == 2:
                    total += copy_in((bj * n if t["bZpBatchStride"] else 0) + c0, bc, bz_elems, 1)
                if need_cb:
                    total += 4 * (bc if not pad else t["cStride"])  # the column sums (C row 0)
                if t["bParamKind"]:
                    total += copy_in((bj * n if t["bParamBatchStride"] else 0) + c0, bc, bs_elems, 4)
                if k:
                    total += 4 * rows * (bc if not pad else t["cStride"])  # the block's int32 rows
                if not pad or (bc % 32 == 0 and n % 32 == 0):
                    total += rows * bc                             # y
                elif bc % 32 == 0:
                    total += rows * bc
                elif bc >= 32:
                    total += rows * (bc // 32 * 32 + 32)           # whole blocks, then the block ending at the end
                else:
                    total += 0                                     # scalar stores (one core only)
        if per_worker is not None:
            per_worker.append(total - before)
    return total, cube


def qmm_case_b_trans(case: Tuple) -> bool:
    """Whether a QLinearMatMul case stores b transposed, [..., N, K] (an optional ninth element "b_trans")."""
    return len(case) > 8 and case[8] == "b_trans"


def qlinear_matmul_row(soc: str, case: Tuple, seed: int = 0) -> Row:
    """Runs QLinearMatMul in the emulator on `case` (see QMM_DEFAULT_CASES; an optional ninth element "b_trans" stores
    b transposed) and measures it (the emulator's last run is this one afterwards)."""
    eq = importlib.import_module("ascend_quant_ops.emulator.qlinear_matmul")
    a_shape, b_shape, at, bt, yt, a_param, b_param, zps = case[:8]
    b_trans = qmm_case_b_trans(case)
    rng = np.random.default_rng(seed)

    def rand(dtype, shape):
        info = np.iinfo(dtypes.numpy_dtype(dtype))
        # drawn in the dtype itself: no int64 copy of a large operand
        return rng.integers(info.min, int(info.max) + 1, size=shape, dtype=dtypes.numpy_dtype(dtype))

    def zp(dtype, shape, zero: bool):
        return np.zeros(shape, dtypes.numpy_dtype(dtype)) if zero else rand(dtype, shape)

    m, k, n = a_shape[-2], a_shape[-1], b_shape[-1]
    a, b = rand(at, a_shape), rand(bt, b_shape)
    if a_param == "row":
        a_s, a_z = rng.uniform(0.01, 0.02, m).astype(np.float32), zp(at, (m,), zps == "0")
    else:
        a_s, a_z = np.float32(0.01), zp(at, (), zps == "0")
    if b_param == "column":
        b_s, b_z = rng.uniform(0.01, 0.02, n).astype(np.float32), zp(bt, (n,), zps in ("0", "b0"))
    else:
        b_s, b_z = np.float32(0.01), zp(bt, (), zps in ("0", "b0"))
    if b_trans:
        b = np.ascontiguousarray(np.swapaxes(b, -1, -2)).swapaxes(-1, -2)  # a transposed view: stored [..., N, K]
    eq.qlinear_matmul(a, a_s, a_z, b, b_s, b_z, np.float32(1.0), rand(yt, ()), soc=soc)
    stats = eq.last_run_stats()
    run = stats["run"]
    p = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype=at, b_dtype=bt, y_dtype=yt, a_param=a_param,
                                   b_param=b_param, b_trans=b_trans)
    e, t = p.explanation, p.tiling
    y_bytes = int(np.prod(np.broadcast_shapes(a_shape[:-2], b_shape[:-2]))) * m * n * dtypes.itemsize(yt)
    param_bytes = (5 * m if a_param == "row" else 5) + (5 * n if b_param == "column" else 5) + 5
    min_bytes = a.nbytes + b.nbytes + param_bytes + y_bytes
    gm = sum(c["gm_read_bytes"] + c["gm_write_bytes"] + 4 * c["gm_scalar_reads"] + c["gm_scalar_writes"]
             for c in run["cores"])
    pad = not tiling.soc_table()[tiling.canonical_soc(soc)]["has_data_copy_pad"]  # 310p: 32-byte DMA reads
    za, zb = qmm_effective_zero_points(t, a_z, b_z)
    if t["tiling_key"] == 1:  # the vector decode path
        model = qmm_vector_decode_traffic(t, pad) + param_bytes
    elif t["tiling_key"] == 2:  # ascend310p's cube decode path
        model = qmm_cube_decode_traffic(t, za, zb) + param_bytes
    elif t["tiling_key"] == 3:  # ascend310p's cube GEMM path
        model = qmm_cube_gemm_traffic(t, za, zb) + param_bytes
    else:
        model = qmm_traffic_model(t, za, zb, pad)[0] + param_bytes
    work = _core_work(e)
    tiles = int(e["total_work"])
    used = max(1, len(work))
    balance = (tiles / used) / max(work) if work and max(work) else 1.0
    best = _best_balance(tiles, 1, int(e["core_capacity"]))
    return Row("qlinear_matmul", soc,
               f"{list(a_shape)}x{list(b_shape)}{' b[N,K]' if b_trans else ''} {at}x{bt}->{yt} {a_param}/{b_param} "
               f"zp:{zps}",
               e["mode"], len(work), gm, min_bytes, (1.10 * model + 32 * len(run["cores"])) / min_bytes, balance, best,
               tiles >= 4 * int(e["core_capacity"]), max(c["peak_ub_bytes"] for c in run["cores"]),
               int(e["ub_capacity"]), sum(c["dma_gm_to_ub"] + c["dma_ub_to_gm"] for c in run["cores"]))
