"""The timeline model's L2 cache against hand-built traces whose DMAs carry GM addresses. Every expected time and
byte count is worked out here from the SoC table's parameters and the model's stated rules (docs/performance.md, "The
L2 cache"): lines of l2_line_bytes, least recently used line replaced, empty at the launch's start; a read's missed
lines move at the GM bandwidth (the pipe receiving its own missed bytes at most at its GM rate), its other bytes at
the L2 read bandwidth (each pipe at most mte2_l2_bytes_per_cycle); a read that finds lines another read is still
bringing in waits for that read's bytes; writes allocate the lines they cover whole and move at the GM bandwidth."""
import pytest

from ascend_quant_ops.perf import model

SOC = "ascend910b"
T = {k: v["value"] for k, v in model.timing_table(SOC).items()}
ISSUE = T["scalar_issue_cycles"]
FLAG = T["flag_sync_cycles"]
DLAT = T["dma_latency_cycles"]
BURST = T["dma_burst_cycles"]
GM = T["gm_bandwidth_gbps"] * 1000 / T["clock_mhz"]   # chip GM bytes per core cycle
L2 = T["l2_read_bandwidth_gbps"] * 1000 / T["clock_mhz"]  # chip L2 read bytes per core cycle
MTE2 = T["mte2_bytes_per_cycle"]
MTE2_L2 = T["mte2_l2_bytes_per_cycle"]
MTE3 = T["mte3_bytes_per_cycle"]
LINE = int(T["l2_line_bytes"])
L2_BYTES = int(T["l2_bytes"])
MIB = 1 << 20


def gm(addr, nbytes, blocks=1, stride=None, write=False):
    return dict(addr=addr, bytes=nbytes, blocks=blocks, stride=nbytes if stride is None else stride, write=write)


def dma_in(addr, nbytes, blocks=1, stride=None, line=0):
    """MTE2 GM -> UB of `blocks` blocks of `nbytes` from addr, `stride` apart."""
    return dict(kind="instr", pipe="MTE2", cls="dma_gm_to_ub", count=nbytes * blocks, bursts=blocks, line=line,
                gm=[gm(addr, nbytes, blocks, stride)])


def dma_out(addr, nbytes, line=0):
    return dict(kind="instr", pipe="MTE3", cls="dma_ub_to_gm", count=nbytes, bursts=1, line=line,
                gm=[gm(addr, nbytes, write=True)])


def core(events, core_id=0, is_cube=False):
    return dict(core=core_id, is_cube=is_cube, events=events)


def run(traces, **kw):
    return model.simulate(traces, SOC, detail_core=-2, **kw)


def test_the_parameters_come_from_the_platform_configs():
    # CANN 8.1.RC1 Ascend910B1.ini / Ascend310P3.ini / Ascend910_95.ini: l2_size, and l2_read_rate read per AI core
    # like ddr_rate (rate x ai_core_cnt x cube_freq)
    b, p, c = (model.timing_table(s) for s in ("ascend910b", "ascend310p", "ascend910_95"))
    assert (b["l2_bytes"]["value"], p["l2_bytes"]["value"], c["l2_bytes"]["value"]) == (201326592, 16777216, 134217728)
    assert all(t["l2_bytes"]["basis"] == "source" for t in (b, p, c))
    assert b["l2_read_bandwidth_gbps"]["value"] == pytest.approx(110 * 24 * 1.85)
    assert p["l2_read_bandwidth_gbps"]["value"] == pytest.approx(114 * 8 * 1.06)
    assert c["l2_read_bandwidth_gbps"]["value"] == pytest.approx(100 * 32 * 1.65)
    assert (b["mte2_l2_bytes_per_cycle"]["value"], p["mte2_l2_bytes_per_cycle"]["value"],
            c["mte2_l2_bytes_per_cycle"]["value"]) == (110, 114, 100)
    for t in (b, p, c):
        assert t["l2_read_bandwidth_gbps"]["basis"] == "derived" and t["mte2_l2_bytes_per_cycle"]["basis"] == "derived"
        assert t["l2_line_bytes"]["value"] == 128  # the AscendC guide's 128-byte line (Ascend 950), taken for all
    assert (b["l2_line_bytes"]["basis"], p["l2_line_bytes"]["basis"], c["l2_line_bytes"]["basis"]) == (
        "assumption", "assumption", "derived")
    # the derived and assumed ones are swept, the sourced size is not
    for soc in ("ascend910b", "ascend310p", "ascend910_95"):
        swept = set(model.sensitivity_parameters(soc))
        assert {"l2_read_bandwidth_gbps", "mte2_l2_bytes_per_cycle", "l2_line_bytes"} <= swept
        assert "l2_bytes" not in swept


def test_a_buffer_smaller_than_l2_read_twice():
    # 48 cores each read their own MiB twice: the first time from GM (the chip's GM shared by 48: 16 bytes per cycle
    # each, below the pipe's 32), the second time from L2 (the chip's L2 shared by 48: 55 bytes per cycle each, below
    # the pipe's 110)
    cores, n = 48, MIB
    traces = [core([dma_in(i * n, n), dma_in(i * n, n)], i) for i in range(cores)]
    r = run(traces)
    first = n / min(MTE2, GM / cores)
    second = n / min(MTE2_L2, L2 / cores)
    assert r["cycles"] == pytest.approx(ISSUE + 2 * BURST + first + second + DLAT)
    assert r["ddr_bytes"] == cores * n and r["l2_hit_bytes"] == cores * n and r["gm_read_bytes"] == 2 * cores * n
    s = model.summarize(r)
    assert s.l2_hit_share == pytest.approx(0.5)
    assert s.gm_busy == pytest.approx(first / r["cycles"])  # the GM moved bytes during the first reads only
    # at a quarter of the L2 bandwidth the chip's L2 share binds harder
    r4 = run(traces, scale={"l2_read_bandwidth_gbps": 0.25})
    assert r4["cycles"] == pytest.approx(ISSUE + 2 * BURST + first + n / (L2 / 4 / cores) + DLAT)
    # one core alone: its pipe's rates bind, 32 bytes per cycle from GM, 110 from L2
    r1 = run(traces[:1])
    assert r1["cycles"] == pytest.approx(ISSUE + 2 * BURST + n / MTE2 + n / MTE2_L2 + DLAT)


def stream(cores, per_core, chunk, passes):
    """Each core reads its `per_core` bytes in `chunk`-byte DMAs, `passes` times over."""
    return [core([dma_in(i * per_core + j * chunk, chunk) for _ in range(passes) for j in range(per_core // chunk)], i)
            for i in range(cores)]


def test_a_buffer_of_the_l2_size_streamed_twice_hits_and_a_larger_one_misses():
    cores, chunk = 48, 64 * 1024
    per_dma = BURST + chunk / min(MTE2, GM / cores)  # every core in step: they share the GM 48 ways
    # exactly the L2 (192 MiB = 4 MiB a core): the second pass finds every line
    per_core = L2_BYTES // cores
    dmas = per_core // chunk
    r = run(stream(cores, per_core, chunk, 2))
    assert r["ddr_bytes"] == L2_BYTES and r["l2_hit_bytes"] == L2_BYTES
    assert r["cycles"] == pytest.approx(ISSUE + dmas * per_dma + dmas * (BURST + chunk / min(MTE2_L2, L2 / cores)) + DLAT)
    # one more DMA a core (3 MiB more than the L2): least recently used replacement evicts every line before the
    # second pass reaches it, which then misses everywhere and runs at the GM rate, as the first
    per_core += chunk
    dmas += 1
    r = run(stream(cores, per_core, chunk, 2))
    assert r["l2_hit_bytes"] == 0 and r["ddr_bytes"] == 2 * cores * per_core
    assert r["cycles"] == pytest.approx(ISSUE + 2 * dmas * per_dma + DLAT)


def test_a_write_then_a_read_of_the_same_bytes_hits():
    n = 64 * 1024
    ev = [dma_out(0, n), dict(kind="set_flag", src="MTE3", dst="MTE2"), dict(kind="wait_flag", src="MTE3", dst="MTE2"),
          dma_in(0, n)]
    r = run([core(ev)])
    written = ISSUE + BURST + n / MTE3 + DLAT            # the write is complete (its GM round trip)
    assert r["cycles"] == pytest.approx(written + FLAG + BURST + n / MTE2_L2 + DLAT)
    assert r["ddr_bytes"] == n and r["l2_hit_bytes"] == n  # the written bytes go to GM; the read finds them in L2
    # a read of other bytes misses
    ev[-1] = dma_in(8 * MIB, n)
    r = run([core(ev)])
    assert r["cycles"] == pytest.approx(written + FLAG + BURST + n / MTE2 + DLAT)
    assert r["ddr_bytes"] == 2 * n and r["l2_hit_bytes"] == 0


def test_a_write_allocates_only_the_lines_it_covers():
    # a write of half a line leaves the line out of L2: a read of its other half misses (the whole line from GM);
    # a write of a whole line makes it resident
    half = LINE // 2
    for written, want_hit in ((half, 0), (LINE, half)):
        ev = [dma_out(0, written), dict(kind="set_flag", src="MTE3", dst="MTE2"),
              dict(kind="wait_flag", src="MTE3", dst="MTE2"), dma_in(half, half)]
        r = run([core(ev)])
        assert r["l2_hit_bytes"] == want_hit
        assert r["ddr_bytes"] == written + (LINE if want_hit == 0 else 0)


def test_two_cores_reading_the_same_bytes():
    n = MIB
    alone = ISSUE + BURST + n / MTE2 + DLAT
    # core 1 reads them long after core 0 did: every line hits, at its pipe's L2 rate
    late = 200000
    c0 = core([dma_in(0, n)], 0)
    c1 = core([dict(kind="instr", pipe="S", cls="scalar_other", count=late), dma_in(0, n)], 1)
    r = run([c0, c1])
    assert r["cores"][0]["end"] == pytest.approx(alone)
    assert r["cores"][1]["end"] == pytest.approx(late + ISSUE + BURST + n / MTE2_L2 + DLAT)
    assert r["ddr_bytes"] == n and r["l2_hit_bytes"] == n
    # at the same time: core 1 finds the lines core 0 is bringing in; the GM reads them once, and core 1's bytes
    # are there when core 0's are (not earlier)
    r = run([core([dma_in(0, n)], 0), core([dma_in(0, n)], 1)])
    assert r["ddr_bytes"] == n and r["l2_hit_bytes"] == n
    assert r["cores"][0]["end"] == pytest.approx(alone) and r["cores"][1]["end"] == pytest.approx(alone)


def test_strided_reads_of_partial_lines():
    blocks, blen, stride = 64, 64, 1024
    assert stride % LINE == 0 and blen <= LINE // 2
    # 64 bytes of every 1 KiB: each block touches one line, which comes whole from GM (8x the DMA's bytes); the
    # pipe receives its 4 KiB at 32 bytes per cycle, so the lines move at 256 bytes per cycle (below the chip's 768)
    a = dma_in(0, blen, blocks, stride)
    b = dma_in(LINE // 2, blen, blocks, stride)  # the other half of the same lines: hits
    c = dma_in(LINE, blen, blocks, stride)       # the next line of every KiB: misses again
    r = run([core([a, b, c])])
    lines = blocks * LINE
    gm_rate = min(GM, MTE2 * lines / (blocks * blen))
    t = ISSUE + 3 * blocks * BURST + lines / gm_rate + blocks * blen / MTE2_L2 + lines / gm_rate + DLAT
    assert r["cycles"] == pytest.approx(t)
    assert r["ddr_bytes"] == 2 * lines and r["l2_hit_bytes"] == blocks * blen
    # a block across a line boundary misses both lines
    r = run([core([dma_in(LINE - 50, 100)])])
    assert r["ddr_bytes"] == 2 * LINE and r["l2_hit_bytes"] == 0


def coarse_request(handle, load, macs, out, reads, writes, line=30):
    """A Matmul request as the emulator records it: one instruction per pipe, the load carrying the footprint of
    A and B, the result its C rectangle."""
    return [dict(kind="instr", pipe="MTE2", cls="dma_gm_to_l1", count=load, handle=handle, line=line, gm=reads),
            dict(kind="instr", pipe="MTE1", cls="dma_l1_to_l0", count=load, handle=handle, line=line),
            dict(kind="instr", pipe="M", cls="cube_mmad", count=macs, elem_bytes=1, handle=handle, line=line),
            dict(kind="instr", pipe="FIX", cls="fix_out", count=out, handle=handle, line=line, gm=writes)]


def test_a_matmul_request_loads_its_footprint_once_and_reloads_from_l2():
    # A [64 x 512] and B [512 x 64] int8 (32 KiB each), loaded twice by the API (128 KiB: the L1 kept no tile);
    # the request's pipeline cuts the load in two chunks (L0A + L0B halves of 64 KiB), each taking half of each
    # rectangle: 32 KiB of new lines from GM and 32 KiB reloaded from L2 per chunk. A second request with the same
    # operands finds all of them.
    load, macs, out = 128 * 1024, 8192 * 100, 16 * 1024
    reads = [gm(0, 512, 64, 512), gm(4 * MIB, 64, 512, 4096)]  # A's rows, and B as 512 rows of 64 bytes 4 KiB apart
    assert all(g["addr"] % LINE == 0 for g in reads)
    v = [core([dict(kind="cube_request", handle=h, peer_core=2), dict(kind="cube_wait", handle=h)], c)
         for c, h in ((0, 1), (1, 2))]
    cube = core(coarse_request(1, load, macs, out, reads, [gm(8 * MIB, out, write=True)]) +
                coarse_request(2, load, macs, out, reads, [gm(9 * MIB, out, write=True)]), 2, is_cube=True)
    r = run(v + [cube])
    a_lines = 64 * 512 // LINE
    b_lines = 512  # every 64-byte row of B lies in a line of its own
    assert r["ddr_bytes"] == (a_lines + b_lines) * LINE + 2 * out
    assert r["l2_hit_bytes"] == (load - 64 * 1024) + load
    assert r["gm_read_bytes"] == 2 * load


def test_the_gm_serves_lines_fairly_so_pipes_receive_their_own_bytes_alike():
    # core 0 reads 64 bytes of every 128-byte step (one line each: the GM brings in twice its bytes), core 1 reads
    # as many bytes contiguously; with the chip's GM the bound (a twentieth of it), the GM
    # shares its bandwidth by lines: core 0's transfer gets two thirds, and both pipes receive their bytes at the
    # same rate, a third of the GM each
    assert LINE == 128
    n = 64 * 1024
    strided = dict(dma_in(0, 64, n // 64, 128), bursts=1)  # one burst's set-up, as core 1's: they start together
    c0 = core([strided], 0)
    c1 = core([dma_in(64 * MIB, n)], 1)
    own = GM / 20 / 3
    assert own < MTE2
    r = run([c0, c1], scale={"gm_bandwidth_gbps": 1 / 20})
    for c in (0, 1):
        assert r["cores"][c]["end"] == pytest.approx(ISSUE + BURST + n / own + DLAT)
    assert r["ddr_bytes"] == 3 * n
