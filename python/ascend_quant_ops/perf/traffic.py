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
scales, 100 x 4096 is 1.0001x); QLinearMatMul: the traffic its design explains (qmm_traffic_model, +10%); balance
>= 0.95 whenever work >= 4 x cores, as stated (the "best" column, what some split of whole units over at most
the SoC's cores reaches, is shown for comparison and does not lower the target).
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
    work = [w["end"] - w["begin"] for w in e["work"]]
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
# the product from a ones row placed before the mapped rows (K bytes more of A instead of K x cols of B). So the minimum (a, b and the parameters read once, y written once)
# is not the target here: the target is this model of the kernel's traffic (+10% for 32-byte padding and scalar
# parameter reads), and a row MISSes when the measured traffic exceeds what the design explains.
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


def qmm_worker_tiles(t: dict):
    """Each vector worker's tiles in its order (the block's range split into contiguous parts), as the kernel's
    Process does: yields (worker index, list of tiles)."""
    cores, wpc, count = t["usedCores"], t["workersPerCore"], t["tileCount"]
    q, r = divmod(count, cores)
    for core in range(cores):
        begin = core * q + min(core, r)
        end = begin + q + (1 if core < r else 0)
        q2, r2 = divmod(end - begin, wpc)
        for sub in range(wpc):
            sb = begin + sub * q2 + min(sub, r2)
            se = sb + q2 + (1 if sub < r2 else 0)
            yield core * wpc + sub, list(range(sb, se))


def qmm_effective_zero_points(t: dict, a_zp: np.ndarray, b_zp: np.ndarray):
    """The zero points as the kernel uses them (its parameter layout, flat; lowered by 128 for mapped uint8)."""
    za = np.asarray(a_zp).reshape(-1).astype(np.int64) - (128 if t["mapA"] else 0)
    zb = np.asarray(b_zp).reshape(-1).astype(np.int64) - (128 if t["mapB"] else 0)
    return za, zb


def qmm_traffic_model(t: dict, za: np.ndarray, zb: np.ndarray, pad: bool):
    """GM traffic the kernel's design moves, from the plan's tiling and the effective zero points
    (qmm_effective_zero_points): (DMA + cube bytes of all workers, per-worker cube work {calls, a_bytes, b_bytes,
    c_bytes}). Scalar parameter reads are not included. `pad`: no DataCopyPad (32-byte DMA reads of mapped data; a y
    row segment ending in a partial 32-byte block is written as its whole blocks plus the block ending at its end,
    32 - width % 32 bytes twice, and one narrower than a block, only when the plan runs the op on one core, is
    stored by the scalar unit: not DMA, not counted)."""
    def up32(v: int) -> int:
        return -(-v // 32) * 32

    def operands(index: int):  # the y batch matrix as matrix indices of a and b (numpy broadcasting)
        ai = bj = 0
        for d in reversed(range(t["batchRank"])):
            i = index % t["batchDims"][d]
            index //= t["batchDims"][d]
            ai += i * t["aBatchStrides"][d]
            bj += i * t["bBatchStrides"][d]
        return ai, bj

    total = 0
    cube = []
    m, n, k = t["m"], t["n"], t["k"]
    chunk = t["mapChunk"]
    for worker, tiles in qmm_worker_tiles(t):
        while len(cube) <= worker:
            cube.append({"calls": 0, "a_bytes": 0, "b_bytes": 0, "c_bytes": 0})
        cw = cube[worker]

        def mm(rows: int, cols: int) -> None:  # one IterateAll: A and B read, C written (int32 / float32)
            nonlocal total
            cw["calls"] += 1
            cw["a_bytes"] += rows * k
            cw["b_bytes"] += k * cols
            cw["c_bytes"] += 4 * rows * cols
            total += rows * k + k * cols + 4 * rows * cols

        last_rows = None
        have_row_sums = False
        ones = False
        ones_row = False  # mapped a: the ones row before the mapped rows (column sums folded into the product)
        for tile in tiles:
            bi = tile // (t["tilesM"] * t["tilesN"])
            mb = tile // t["tilesN"] % t["tilesM"]
            nb = tile % t["tilesN"]
            ai, bj = operands(bi)
            m0, n0 = mb * t["baseM"], nb * t["baseN"]
            rows = min(t["baseM"], m - m0)
            cols = min(t["baseN"], n - n0)
            if t["bParamKind"]:
                p0 = (bj * n if t["bParamBatchStride"] else 0) + n0
                need_rows = bool(np.any(zb[p0:p0 + cols] != 0))
            else:
                need_rows = bool(zb[0] != 0)
            if t["aParamKind"]:
                p0 = (ai * m if t["aParamBatchStride"] else 0) + m0
                need_cols = bool(np.any(za[p0:p0 + rows] != 0))
            else:
                need_cols = bool(za[0] != 0)
            need_rows = need_rows and k != 0
            need_cols = need_cols and k != 0
            if k:
                key = (ai, mb)  # the same rows of a
                same = key == last_rows
                fold = bool(t["mapA"]) and need_cols
                if fold and not ones_row:
                    total += up32(k)                              # the ones row, once; the rows are mapped again
                    ones_row = True
                    same = False
                if t["mapA"] and not same:
                    flat = rows * k
                    full, rest = divmod(flat, chunk)
                    total += (flat if not pad else full * chunk + up32(rest)) + full * chunk + up32(rest)
                if t["mapB"]:
                    total += k * ((up32(cols) if pad else cols) + up32(cols))
                row_sums = need_rows and not (same and have_row_sums)
                if (row_sums or (need_cols and not fold)) and not ones:
                    total += up32(k)                              # the ones vector, once per worker
                    ones = True
                mm(rows + 1 if fold else rows, cols)              # the product ([1; A'] B' = [CB; P] if folded)
                if row_sums:
                    mm(rows, 1)                                   # row sums of A' (against ones)
                have_row_sums = (same and have_row_sums) or row_sums
                last_rows = key
                if need_cols and not fold:
                    mm(1, cols)                                   # column sums of B' (ones against B')
                total += 4 * rows * t["cStride"]                  # the int32 tile read back
                if need_cols:
                    total += 4 * t["cStride"]                     # column sums read back
                if need_rows:
                    total += 4 * (-(-rows // 8) * 8)              # row sums read back (every tile)
            if pad and cols % 32:
                # whole blocks, then the block ending at the segment's end (DMA), or scalar stores (< 32 bytes)
                total += rows * (-(-cols // 32) * 32 if cols >= 32 else 0)
            else:
                total += rows * cols                              # y
    return total, cube


def qlinear_matmul_row(soc: str, case: Tuple, seed: int = 0) -> Row:
    """Runs QLinearMatMul in the emulator on `case` (see QMM_DEFAULT_CASES) and measures it (the emulator's last run
    is this one afterwards)."""
    eq = importlib.import_module("ascend_quant_ops.emulator.qlinear_matmul")
    a_shape, b_shape, at, bt, yt, a_param, b_param, zps = case
    rng = np.random.default_rng(seed)

    def rand(dtype, shape):
        info = np.iinfo(dtypes.numpy_dtype(dtype))
        return rng.integers(info.min, int(info.max) + 1, size=shape).astype(dtypes.numpy_dtype(dtype))

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
    eq.qlinear_matmul(a, a_s, a_z, b, b_s, b_z, np.float32(1.0), rand(yt, ()), soc=soc)
    stats = eq.last_run_stats()
    run = stats["run"]
    p = tiling.plan_qlinear_matmul(a_shape, b_shape, soc=soc, a_dtype=at, b_dtype=bt, y_dtype=yt, a_param=a_param,
                                   b_param=b_param)
    e, t = p.explanation, p.tiling
    y_bytes = int(np.prod(np.broadcast_shapes(a_shape[:-2], b_shape[:-2]))) * m * n * dtypes.itemsize(yt)
    param_bytes = (5 * m if a_param == "row" else 5) + (5 * n if b_param == "column" else 5) + 5
    min_bytes = a.nbytes + b.nbytes + param_bytes + y_bytes
    gm = sum(c["gm_read_bytes"] + c["gm_write_bytes"] + 4 * c["gm_scalar_reads"] + c["gm_scalar_writes"]
             for c in run["cores"])
    pad = not tiling.soc_table()[tiling.canonical_soc(soc)]["has_data_copy_pad"]  # 310p: 32-byte DMA reads
    za, zb = qmm_effective_zero_points(t, a_z, b_z)
    model = qmm_traffic_model(t, za, zb, pad)[0] + param_bytes
    work = [w["end"] - w["begin"] for w in e["work"]]
    tiles = int(e["total_work"])
    used = max(1, len(work))
    balance = (tiles / used) / max(work) if work and max(work) else 1.0
    best = _best_balance(tiles, 1, int(e["core_capacity"]))
    return Row("qlinear_matmul", soc,
               f"{list(a_shape)}x{list(b_shape)} {at}x{bt}->{yt} {a_param}/{b_param} zp:{zps}",
               e["mode"], len(work), gm, min_bytes, 1.10 * model / min_bytes, balance, best,
               tiles >= 4 * int(e["core_capacity"]), max(c["peak_ub_bytes"] for c in run["cores"]),
               int(e["ub_capacity"]), sum(c["dma_gm_to_ub"] + c["dma_ub_to_gm"] for c in run["cores"]))
