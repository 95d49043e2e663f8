#!/usr/bin/env python3
"""What the timeline model expects of a large-GEMM path of ascend310p's own (the cube fed from L1, b turned by the
kernel once per panel), against the package's kernel today (the Matmul API), before any such kernel is written.

    PYTHONPATH=python python scripts/whatif_310p_gemm.py                     # 4096 x 4096 x 4096, b [K, N] and [N, K]
    PYTHONPATH=python python scripts/whatif_310p_gemm.py --nt 128 --slab 64 --ks 256 --depth 2
    PYTHONPATH=python python scripts/whatif_310p_gemm.py --nt 256 --ks 128 --ignore-l1   # a ceiling, not a plan

The trace is hand-built and runs through the same timeline model and SoC-table parameters as `aqo perf` (nothing
here is tuned). Its design follows from the 310p's capacities (SoC table: L1 1 MiB, L0A / L0B 64 KiB, L0C 256 KiB)
and costs (a TransDataTo5HD's scalar set-up; 17 bytes a cycle per core from the DDR, 114 from the L2):

  * a core owns a range of y's columns (the cores over N); in it, panels of `nt` columns. A panel of b (K x nt) is
    read once, turned to L0B's layout on the vector unit (TransDataTo5HD for b [K, N]: four instructions per 32 rows,
    the panel's 32-column groups their iterations; the block gather for b [N, K]) and kept in L1 while every row of a
    passes it: the turn is paid once per panel. (The cube reads both operands K-contiguous: b [K, N] cannot reach it
    without a turn, and turned per C tile instead, its four instructions per 32 rows cost the scalar unit more than
    the cube's time for them at any tile L0C holds.)
  * a streams through in slabs of `slab` rows x all of K (`depth` slab buffers in L1, and as many UB slots): a DMA per
    8 rows (whole rows: one burst; each core from its own start, so that a slab comes from the DDR once and from the
    L2 cache for the other cores), one block gather per 8 rows into L0A's fractal order, a copy to L1. Per `ks` K
    values: a LoadData into an L0A half, one into an L0B half, one Mmad (slab x ks x nt) accumulating into the slab's
    rows of C in L0C (two slab regions). A slab's rows of C leave L0C under the next slab's Mmads: the L0C -> UB copy,
    `--epilogue-passes` float32 passes, the copy-out. The scalar unit issues the next slab's loads and the previous
    slab's epilogue between the K steps (issued after them they would wait behind the cube's queue).
  * panels alternate the direction over M, so the slabs of a read last for one panel come first for the next, while
    the L2 cache still holds them.

What it leaves out: the scalar bookkeeping beyond each instruction's issue, the zero-point terms (per-tensor zero
points 0: b's column sums would be one more row block a slab, a's row sums a second Mmad of 16 columns a K step),
and any overlap of a panel's load with the previous panel's slabs (L1 holds one panel beside the slab
buffers, so a panel's load is a pause of the cube).
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


class Slots:
    """A ring of `n` buffers handed from a producer pipe to a consumer pipe: flag ids base .. base + n - 1."""

    def __init__(self, ev, prod, cons, n, base):
        self.ev, self.prod, self.cons, self.n, self.base, self.used = ev, prod, cons, n, base, 0

    def acquire(self):  # the producer takes the next buffer (waits for its consumer's hand-back)
        s = self.used % self.n
        if self.used >= self.n:
            self.ev.append(waitf(self.cons, self.prod, self.base + s))
        self.used += 1
        return s

    def release(self, s):  # the consumer hands a buffer back
        self.ev.append(setf(self.cons, self.prod, self.base + s))

    def drain(self):
        for s in range(min(self.n, self.used)):
            self.ev.append(waitf(self.cons, self.prod, self.base + s))


def core_trace(c, cores, m, k, n, nt, slab, ks, layout, epilogue_passes, depth=2):
    cols = n // cores
    a_base, b_base, y_base = 0, 64 * MIB, 160 * MIB
    ev = []
    # UB buffers: b's chunks (read -> turned), a's pieces (read -> gathered); L1: a's slab buffers; L0 halves; L0C
    # slab regions. Each ring its own flag ids.
    b_in = Slots(ev, "MTE2", "V", 2, 0)
    b_out = Slots(ev, "V", "MTE3", 2, 4)
    a_in = Slots(ev, "MTE2", "V", depth, 8)
    a_out = Slots(ev, "V", "MTE3", depth, 12)
    a_l1 = Slots(ev, "MTE3", "MTE1", depth, 16)
    l0 = Slots(ev, "MTE1", "M", 2, 20)
    c_rows = Slots(ev, "M", "V", 2, 24)
    y_out = Slots(ev, "V", "MTE3", 2, 28)
    chunk = 32 * 1024
    for j in range(cols // nt):
        n0 = c * cols + j * nt
        # the panel: K x nt of b into L1 (after the previous panel's last Mmad read it)
        if layout == "packed":  # b stored once in L0B's layout (outside the call): straight to L1, a burst a chunk
            if j > 0:
                ev += [setf("MTE1", "MTE2", 30), waitf("MTE1", "MTE2", 30)]
            for k0 in range(0, k, chunk // nt):
                ev.append(instr("MTE2", "dma_gm_to_l1", chunk, bursts=1,
                                gm=[dict(addr=b_base + n0 * k + k0 * nt, bytes=chunk)]))
            ev += [setf("MTE2", "MTE1", 31), waitf("MTE2", "MTE1", 31)]
        else:
            if j > 0:
                ev += [setf("MTE1", "MTE3", 30), waitf("MTE1", "MTE3", 30)]
            b_trans = layout == "nk"
            if b_trans:  # b [N, K]: 16 columns x (chunk / 16) K values a chunk, a burst per column
                kc = chunk // 16
                pieces = [(g, k0) for g in range(nt // 16) for k0 in range(0, k, kc)]
            else:        # b [K, N]: chunk / nt rows of the panel's columns a chunk, a burst per row
                kc = chunk // nt
                pieces = [(0, k0) for k0 in range(0, k, kc)]
            for g, k0 in pieces:
                s = b_in.acquire()
                if b_trans:
                    gm = dict(addr=b_base + (n0 + 16 * g) * k + k0, bytes=kc, blocks=16, stride=k)
                    ev.append(instr("MTE2", "dma_gm_to_ub", chunk, bursts=16, gm=[gm]))
                else:
                    gm = dict(addr=b_base + k0 * n + n0, bytes=nt, blocks=kc, stride=n)
                    ev.append(instr("MTE2", "dma_gm_to_ub", chunk, bursts=kc, gm=[gm]))
                ev += [setf("MTE2", "V", s), waitf("MTE2", "V", s)]
                o = b_out.acquire()
                if b_trans:  # one Or gather per 8 columns, the 32-value blocks its iterations
                    ev.append(instr("V", "vec_elementwise", chunk, elem_bytes=2, bursts=chunk // 256, instrs=2))
                else:        # four TransDataTo5HD per 32 rows, the panel's 32-column groups their iterations
                    ev.append(instr("V", "vec_trans_data", chunk, elem_bytes=1, bursts=chunk * 2 // 256,
                                    instrs=4 * (kc // 32)))
                b_in.release(s)
                ev += [setf("V", "MTE3", 4 + o), waitf("V", "MTE3", 4 + o)]
                ev.append(instr("MTE3", "dma_ub_to_l1", chunk, bursts=1, instrs=1))
                b_out.release(o)
            ev += [setf("MTE3", "MTE1", 31), waitf("MTE3", "MTE1", 31)]
        steps = list(range(0, m, slab)) if j % 2 == 0 else list(range(m - slab, -1, -slab))
        held = {}

        def load_a(r0):  # a's slab: a DMA per 8 rows (whole rows: one burst), each core from its own start
            pieces8 = slab // 8

            def piece(p):
                if p == 0:
                    held[r0] = a_l1.acquire()
                q = (p + c) % pieces8
                s = a_in.acquire()
                ev.append(instr("MTE2", "dma_gm_to_ub", 8 * k, bursts=1,
                                gm=[dict(addr=a_base + (r0 + 8 * q) * k, bytes=8 * k)]))
                ev.extend([setf("MTE2", "V", 8 + s), waitf("MTE2", "V", 8 + s)])
                o = a_out.acquire()
                ev.append(instr("V", "vec_elementwise", 8 * k, elem_bytes=2, bursts=8 * k // 256, instrs=1))
                a_in.release(s)
                ev.extend([setf("V", "MTE3", 12 + o), waitf("V", "MTE3", 12 + o)])
                ev.append(instr("MTE3", "dma_ub_to_l1", 8 * k, bursts=1, instrs=1))
                a_out.release(o)
                if p == pieces8 - 1:
                    la = held[r0]
                    ev.extend([setf("MTE3", "MTE1", 16 + la), waitf("MTE3", "MTE1", 16 + la)])
            return [lambda p=p: piece(p) for p in range(pieces8)]

        def multiply(r0, between):  # the slab's rows of C, K step by K step; `between` spread over the steps
            la = held.pop(r0)
            cr = c_rows.acquire()
            steps_k = k // ks
            done = 0
            for t in range(steps_k):
                h = l0.acquire()
                ev.append(instr("MTE1", "dma_l1_to_l0", slab * ks + ks * nt, instrs=slab // 16 + 1))
                if t == steps_k - 1:
                    a_l1.release(la)
                ev.extend([setf("MTE1", "M", 20 + h), waitf("MTE1", "M", 20 + h)])
                ev.append(instr("M", "cube_mmad", slab * ks * nt, elem_bytes=1))
                l0.release(h)
                upto = (t + 1) * len(between) // steps_k
                while done < upto:
                    between[done]()
                    done += 1
            held[("c", r0)] = cr

        def drain(r0):  # the slab's rows of C out of L0C, the epilogue, the copy-out
            def out():
                cr = held.pop(("c", r0))
                ev.extend([setf("M", "V", 24 + cr), waitf("M", "V", 24 + cr)])
                c_bytes = slab * nt * 4
                ev.append(instr("V", "fix_out", c_bytes))
                c_rows.release(cr)
                yo = y_out.acquire()
                ev.extend(instr("V", "vec_elementwise", c_bytes, elem_bytes=4, bursts=c_bytes // 256)
                          for _ in range(epilogue_passes))
                ev.extend([setf("V", "MTE3", 28 + yo), waitf("V", "MTE3", 28 + yo)])
                ev.append(instr("MTE3", "dma_ub_to_gm", slab * nt, bursts=slab,
                                gm=[dict(addr=y_base + r0 * n + n0, bytes=nt, blocks=slab, stride=n, write=True)]))
                y_out.release(yo)
            return [out]

        # Software-pipelined: while the cube multiplies a slab, the scalar unit issues, between its K steps, the next
        # slab's loads and the previous slab's epilogue (issued after all of a slab's Mmads instead, they would wait
        # behind the cube's queue).
        for part in load_a(steps[0]):
            part()
        for x, r0 in enumerate(steps):
            between = (load_a(steps[x + 1]) if x + 1 < len(steps) else []) + (drain(steps[x - 1]) if x > 0 else [])
            multiply(r0, between)
        drain(steps[-1])[0]()
    for ring in (b_in, b_out, a_in, a_out, a_l1, l0, c_rows, y_out):
        ring.drain()
    return dict(core=c, is_cube=False, events=ev)


def planned(m, k, n, nt, slab, ks, layout, epilogue_passes, depth, ignore_l1=False):
    cores = int(tiling.soc_spec(SOC)["qlinear_matmul_cores"])
    l1 = k * nt + depth * slab * k
    too_big = l1 > 1 << 20 and not ignore_l1
    if n % (cores * nt) or nt % 32 or m % slab or slab % 16 or k % ks or ks % 32 or too_big or \
            slab * ks > 32768 or ks * nt > 32768 or 2 * slab * nt * 4 > 262144:
        raise SystemExit("the cores must split N in whole panels of 32-column groups, M in whole slabs of 16-row "
                         "blocks, K in whole steps of 32; a panel and the slab buffers must fit L1 (1 MiB), a K step "
                         "of a slab and of a panel an L0A / L0B half (32 KiB), two slabs' rows of C L0C (256 KiB)")
    traces = [core_trace(c, cores, m, k, n, nt, slab, ks, layout, epilogue_passes, depth) for c in range(cores)]
    return model.summarize(model.simulate(traces, SOC, detail_core=-2))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m", type=int, default=4096)
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--nt", type=int, default=128, help="panel columns (b's panel, K x nt, stays in L1)")
    ap.add_argument("--slab", type=int, default=64, help="a's rows an L1 buffer and an Mmad take")
    ap.add_argument("--ks", type=int, default=256, help="K values an L0 load and an Mmad take")
    ap.add_argument("--depth", type=int, default=2, help="a's slab buffers in L1 (and UB slots of its pieces)")
    ap.add_argument("--epilogue-passes", type=int, default=12)
    ap.add_argument("--ignore-l1", action="store_true",
                    help="let the panel and the slab buffers pass L1's 1 MiB: what the design would give with more L1 "
                         "(a ceiling, not a plan)")
    args = ap.parse_args(argv)
    for layout in ("kn", "nk", "packed"):
        case = ((args.m, args.k), (args.k, args.n), "int8", "int8", "int8", "tensor", "tensor", "0") + \
            (("b_trans",) if layout == "nk" else ())
        name = {"kn": "b [K, N]", "nk": "b [N, K]", "packed": "b packed once in L0B's layout"}[layout]
        print(f"ascend310p {args.m} x {args.k} x {args.n} int8, {name}:")
        if layout != "packed":
            today = report.qlinear_matmul(SOC, case, sensitivity=False, detail=False)
            print(f"  today (the package kernel): {today.time_us:.1f} us, cube busy {today.summary.cube_busy:.1%} "
                  f"(cube roofline {today.roof.compute_us:.1f} us)")
        s = planned(args.m, args.k, args.n, args.nt, args.slab, args.ks, layout, args.epilogue_passes, args.depth,
                    args.ignore_l1)
        busy = ", ".join(f"{p} {v:.0%}" for p, v in s.busy_slowest.items() if v >= 0.05)
        print(f"  planned ({args.nt}-column panels in L1, {args.slab}-row slabs, K steps of {args.ks}, {args.depth} "
              f"slab buffers): {s.time_us:.1f} us, cube busy {s.cube_busy:.1%} (slowest core busy: {busy}; DDR "
              f"{s.ddr_bytes / MIB:.0f} MiB, L2 hits {s.l2_hit_share:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
