#!/usr/bin/env python3
"""What the timeline model expects of ascend310p's decode path with the int8 b turned by the kernel itself and the
cube fed from L1, against what the package runs today, and of the variants the package does not take (K slices).

    PYTHONPATH=python python scripts/whatif_310p_cube_decode.py                # 16 x 4096 x 4096, a few splits
    PYTHONPATH=python python scripts/whatif_310p_cube_decode.py --m 8 --ksplit 2 --rows 128

The package's kernel for it is the cube decode path (tiling key 2, op_kernel/aqo_qmm_cube_decode_310p.h), with one K
slice a core: "today" below. The "planned" lines are a hand-built trace, run through the same timeline model and
the same SoC-table parameters as `aqo perf` (nothing here is tuned). With --emulated it also runs the path's main loop
as the emulator's prototype kernel (KernelCubeDecode310p in op_kernel/emulator/tests/timeline_test_kernels.cpp: the
instructions it really issues, under every emulator rule, with one or two K slices a core (the second meeting through
the workspace after a software SyncAll), the product checked against numpy) and reports the timeline's estimate. Per AI core, for each chunk of `rows` rows of b's
columns slice: one GM -> UB DMA (a burst per row), four TransDataTo5HD per 32 rows with the columns as their
iterations (the vector unit's turn to the cube's layout, its address lists on the scalar unit), one UB -> L1 copy,
an L1 -> L0 load and the MMAD, double-buffered with the flags each hand-over needs. a (M x K, small) goes to L1
once. With --ksplit > 1 the cores split K too, and the int32 partial sums meet through GM after a SyncAll. The
requantisation at the end is costed as `--epilogue-passes` float32 passes (about 12 for the per-tensor epilogue).
What it leaves out: the kernel's scalar bookkeeping beyond the instructions' issue, and the L0 tiling (one MMAD a
chunk). The package does not split K over cores: the software SyncAll's GM counters would have to be zero at every
launch, which nothing on the device guarantees (docs/performance.md, "310p decode: the cube decode path (tiling
key 2)").
"""
import argparse
import sys

import _package_path  # noqa: F401  (developer build or installed package)

from ascend_quant_ops import tiling  # noqa: E402
from ascend_quant_ops.perf import model, report  # noqa: E402

SOC = "ascend310p"
MIB = 1 << 20


def instr(pipe, cls, count=0, elem_bytes=0, bursts=0, instrs=0, gm=None):
    e = dict(kind="instr", pipe=pipe, cls=cls, count=count, elem_bytes=elem_bytes, bursts=bursts, instrs=instrs)
    if gm:
        e["gm"] = gm
    return e


def setf(src, dst, i):
    return dict(kind="set_flag", src=src, dst=dst, id=i)


def waitf(src, dst, i):
    return dict(kind="wait_flag", src=src, dst=dst, id=i)


def core_trace(c, cores, m, k, n, ksplit, rows, epilogue_passes):
    cols = n * ksplit // cores            # b's columns on this core
    krows = k // ksplit                   # b's rows (a's columns) on this core
    ks, part = divmod(c, cores // ksplit)
    b_base, a_base, ws_base, y_base = 0, 64 * MIB, 96 * MIB, 128 * MIB
    first = b_base + ks * krows * n + part * cols
    ev = [instr("MTE2", "dma_gm_to_ub", m * krows, bursts=m,
                gm=[dict(addr=a_base + ks * krows, bytes=krows, blocks=m, stride=k)]),
          setf("MTE2", "MTE3", 0), waitf("MTE2", "MTE3", 0),
          instr("MTE3", "dma_ub_to_l1", m * krows, bursts=krows // 32, instrs=krows // 32),
          setf("MTE3", "MTE1", 2), waitf("MTE3", "MTE1", 2)]
    chunks = krows // rows
    for i in range(chunks):
        s = i % 2
        nbytes = rows * cols
        if i >= 2:
            ev.append(waitf("V", "MTE2", s))
        ev.append(instr("MTE2", "dma_gm_to_ub", nbytes, bursts=rows,
                        gm=[dict(addr=first + i * rows * n, bytes=cols, blocks=rows, stride=n)]))
        ev += [setf("MTE2", "V", s), waitf("MTE2", "V", s)]
        if i >= 2:
            ev.append(waitf("MTE3", "V", s))
        # 4 instructions per 32 rows, each 512 bytes an iteration, the columns as iterations
        ev.append(instr("V", "vec_trans_data", nbytes, elem_bytes=1, bursts=nbytes * 2 // 256,
                        instrs=4 * (rows // 32)))
        ev += [setf("V", "MTE2", s), setf("V", "MTE3", s), waitf("V", "MTE3", s)]
        if i >= 2:
            ev.append(waitf("MTE1", "MTE3", s))
        ev.append(instr("MTE3", "dma_ub_to_l1", nbytes, bursts=1, instrs=1))
        ev += [setf("MTE3", "V", s), setf("MTE3", "MTE1", s), waitf("MTE3", "MTE1", s)]
        if i >= 2:
            ev.append(waitf("M", "MTE1", s))
        ev.append(instr("MTE1", "dma_l1_to_l0", nbytes + m * rows))
        ev += [setf("MTE1", "MTE3", s), setf("MTE1", "M", s), waitf("MTE1", "M", s)]
        ev.append(instr("M", "cube_mmad", m * rows * cols, elem_bytes=1))
        ev.append(setf("M", "MTE1", s))
    for s in range(min(2, chunks)):
        ev += [waitf("V", "MTE2", s), waitf("MTE3", "V", s), waitf("MTE1", "MTE3", s), waitf("M", "MTE1", s)]
    c_bytes = m * cols * 4
    ev += [setf("M", "V", 3), waitf("M", "V", 3), instr("V", "fix_out", c_bytes)]
    if ksplit > 1:
        ev += [setf("V", "MTE3", 3), waitf("V", "MTE3", 3),
               instr("MTE3", "dma_ub_to_gm", c_bytes, bursts=m,
                     gm=[dict(addr=ws_base + c * c_bytes, bytes=c_bytes, write=True)]),
               dict(kind="sync_all"),
               instr("MTE2", "dma_gm_to_ub", c_bytes, bursts=ksplit * m,
                     gm=[dict(addr=ws_base + c * c_bytes, bytes=c_bytes)]),
               setf("MTE2", "V", 3), waitf("MTE2", "V", 3)]
        c_bytes //= ksplit
        ev += [instr("V", "vec_elementwise", c_bytes, elem_bytes=4, bursts=max(1, c_bytes // 256))
               for _ in range(ksplit - 1)]
    ev += [instr("V", "vec_elementwise", c_bytes, elem_bytes=4, bursts=max(1, c_bytes // 256))
           for _ in range(epilogue_passes)]
    ev += [setf("V", "MTE3", 4), waitf("V", "MTE3", 4),
           instr("MTE3", "dma_ub_to_gm", c_bytes // 4, bursts=m,
                 gm=[dict(addr=y_base + c * c_bytes // 4, bytes=c_bytes // 4, write=True)])]
    return dict(core=c, is_cube=False, events=ev)


def planned(m, k, n, ksplit, rows, epilogue_passes):
    cores = int(tiling.soc_spec(SOC)["qlinear_matmul_cores"])
    if cores % ksplit or (n * ksplit) % (cores * 32) or (k // ksplit) % rows or rows % 32 or m > 16:
        raise SystemExit(f"--ksplit {ksplit} --rows {rows}: the cores must split K and N evenly, N slices of whole "
                         f"32-column groups, K slices of whole chunks of a multiple of 32 rows, m <= 16")
    traces = [core_trace(c, cores, m, k, n, ksplit, rows, epilogue_passes) for c in range(cores)]
    return model.summarize(model.simulate(traces, SOC, detail_core=-2))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m", type=int, default=16)
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--ksplit", type=int, action="append", help="K slices (repeatable); default 1, 2 and 4")
    ap.add_argument("--rows", type=int, default=128, help="b rows a chunk (a multiple of 32; default 128)")
    ap.add_argument("--epilogue-passes", type=int, default=12)
    ap.add_argument("--emulated", action="store_true",
                    help="also run the prototype kernel of the main loop in the emulator (1 and 2 K slices, or those "
                         "of --ksplit)")
    args = ap.parse_args(argv)
    case = ((args.m, args.k), (args.k, args.n), "int8", "int8", "int8", "tensor", "tensor", "0")
    today = report.qlinear_matmul(SOC, case, sensitivity=False, detail=False)
    roof_us = today.roof.memory_us
    print(f"ascend310p {args.m} x {args.k} x {args.n} int8, memory roofline {roof_us:.1f} us")
    print(f"  today (the package kernel): {today.time_us:.1f} us, {today.time_us / roof_us:.2f}x")
    for ks in args.ksplit or [1, 2, 4]:
        s = planned(args.m, args.k, args.n, ks, args.rows, args.epilogue_passes)
        busy = ", ".join(f"{p} {v:.0%}" for p, v in s.busy_slowest.items() if v >= 0.05)
        print(f"  planned, {ks} K slice(s), {args.rows}-row chunks: {s.time_us:.1f} us, {s.time_us / roof_us:.2f}x "
              f"(slowest core busy: {busy})")
    if args.emulated:
        wrong = 0
        for ks in args.ksplit or [1, 2]:
            s, exact = emulated(args.m, args.k, args.n, ks)
            wrong += not exact
            busy = ", ".join(f"{p} {v:.0%}" for p, v in s.busy_slowest.items() if v >= 0.05)
            print(f"  prototype kernel in the emulator, {ks} K slice(s), 32-row chunks (the product "
                  f"{'exact' if exact else 'WRONG'}, C written as int32 rows): {s.time_us:.1f} us, {s.time_us / roof_us:.2f}x "
                  f"(slowest core busy: {busy})")
        return 1 if wrong else 0
    return 0


def emulated(m, k, n, ksplit):
    """Runs KernelCubeDecode310p (A padded to 16 rows) and checks its product against numpy."""
    import numpy as np
    import ascend_quant_ops_testing as testing  # the developer build's testing module (scripts/dev_build.sh)

    cores = int(tiling.soc_spec(SOC)["qlinear_matmul_cores"])
    rng = np.random.default_rng(0)
    a = np.zeros((16, k), np.int8)
    a[:m] = rng.integers(-128, 128, size=(m, k), dtype=np.int8)
    b = rng.integers(-128, 128, size=(k, n), dtype=np.int8)
    out = np.frombuffer(testing.timeline_test_cube_decode_310p(a.tobytes() + b.tobytes(), k, n, cores, 32, ksplit),
                        np.int32)
    c = out.reshape(16, n)
    exact = bool(np.array_equal(c, a.astype(np.int64) @ b.astype(np.int64)))
    return model.summarize(testing.timeline_last_run({}, -2)), exact


if __name__ == "__main__":
    sys.exit(main())
