"""The timeline simulator against hand-built traces: every expected time is worked out here from the SoC table's
parameters and the emu_trace.h semantics (what waits for what), not read from the simulator."""
import math

import pytest

from ascend_quant_ops import _native
from ascend_quant_ops.errors import EmulatorError
from ascend_quant_ops.perf import model

SOC = "ascend910b"
T = {k: v["value"] for k, v in model.timing_table(SOC).items()}
ISSUE = T["scalar_issue_cycles"]
FLAG = T["flag_sync_cycles"]
LAT = T["pipeline_latency_cycles"]
DLAT = T["dma_latency_cycles"]
BURST = T["dma_burst_cycles"]
VSTART = T["vec_instr_cycles"]
GM_PER_CYCLE = T["gm_bandwidth_gbps"] * 1000 / T["clock_mhz"]  # bytes per core cycle, chip total


def instr(pipe, cls, count=0, elem_bytes=0, bursts=0, line=0, handle=0):
    return dict(kind="instr", pipe=pipe, cls=cls, count=count, elem_bytes=elem_bytes, bursts=bursts, line=line,
                handle=handle)


def setf(src, dst, id=0, line=0):
    return dict(kind="set_flag", src=src, dst=dst, id=id, line=line)


def waitf(src, dst, id=0, line=0):
    return dict(kind="wait_flag", src=src, dst=dst, id=id, line=line)


def barrier(pipe, line=0):
    return dict(kind="barrier", pipe=pipe, line=line)


def core(events, core_id=0, is_cube=False):
    return dict(core=core_id, is_cube=is_cube, events=events)


def dma_in(nbytes, bursts=1, line=0):
    return instr("MTE2", "dma_gm_to_ub", nbytes, bursts=bursts, line=line)


def dma_out(nbytes, bursts=1, line=0):
    return instr("MTE3", "dma_ub_to_gm", nbytes, bursts=bursts, line=line)


def run(traces, soc=SOC, **kw):
    return model.simulate(traces, soc, **kw)


def test_parameters_carry_their_basis_and_source():
    for soc in ("ascend910b", "ascend310p", "ascend910_95"):
        t = model.timing_table(soc)
        assert ".ini" in t["clock_mhz"]["source"] and ".ini" in t["gm_bandwidth_gbps"]["source"]
        assert t["cube_macs_per_cycle"]["basis"] == "source" and t["l1_bytes"]["basis"] == "source"
        for name, p in t.items():
            assert p["basis"] in ("source", "derived", "assumption")
            assert p["source"] and p["unit"] and p["value"] > 0, name
            if p["basis"] == "assumption":
                assert p["source"].startswith("assumption"), name
        # every derived or assumed value that changes the estimate is swept
        assert set(model.sensitivity_parameters(soc)) == {
            n for n, p in t.items() if p["basis"] != "source" and p["affects_time"]}
    # the platform configs' numbers (CANN 8.1.RC1 Ascend910B1.ini, Ascend310P3.ini, Ascend910_95.ini), typed here
    b, p, c = (model.timing_table(s) for s in ("ascend910b", "ascend310p", "ascend910_95"))
    assert (b["clock_mhz"]["value"], p["clock_mhz"]["value"], c["clock_mhz"]["value"]) == (1850, 1060, 1650)
    assert b["gm_bandwidth_gbps"]["value"] == pytest.approx(32 * 24 * 1.85)
    assert p["gm_bandwidth_gbps"]["value"] == pytest.approx(17 * 8 * 1.06)
    assert c["gm_bandwidth_gbps"]["value"] == pytest.approx(31 * 32 * 1.65)
    assert b["cube_macs_per_cycle"]["value"] == 16 * 32 * 16
    assert (b["l0c_bytes"]["value"], p["l0c_bytes"]["value"], p["l1_bytes"]["value"]) == (131072, 262144, 1048576)
    assert b["vector_bytes_per_repeat"]["value"] == 256


def test_one_load_compute_read_chain():
    # S issues MTE2 load, SetFlag MTE2->V, WaitFlag MTE2->V, a vector op, SetFlag V->S, WaitFlag V->S, GetValue.
    n = 32768
    ev = [dma_in(n), setf("MTE2", "V"), waitf("MTE2", "V"), instr("V", "vec_elementwise", n // 2, 2),
          setf("V", "S"), waitf("V", "S", line=7), instr("S", "scalar_ub", 1)]
    r = run([core(ev)])
    mte2_start = ISSUE
    mte2_free = mte2_start + BURST + n / T["mte2_bytes_per_cycle"]  # one core: its pipe's cap binds
    mte2_done = mte2_free + DLAT
    v_start = mte2_done + FLAG
    v_free = v_start + VSTART + n / 256 * T["vec_elementwise_cycles_per_repeat"]
    v_done = v_free + LAT
    s_go = v_done + FLAG
    end = s_go + T["scalar_ub_access_cycles"]
    assert r["cycles"] == pytest.approx(end)
    c = r["cores"][0]
    assert c["pipes"]["MTE2"]["busy"] == pytest.approx(mte2_free - mte2_start)
    assert c["pipes"]["V"]["busy"] == pytest.approx(v_free - v_start)
    # the scalar unit stalled from issuing the WaitFlag until the vector result was visible, at line 7
    assert c["pipes"]["S"]["stalls"] == {"wait V->S id 0 at trace:7": pytest.approx(s_go - 6 * ISSUE)}
    assert r["time_us"] == pytest.approx(end / T["clock_mhz"])
    names = [(i[0], i[4]) for i in r["detail"]["instrs"]]
    assert ("MTE2", "dma_gm_to_ub") in names and ("V", "vec_elementwise") in names and ("S", "scalar_ub") in names


def test_vector_classes_and_repeats():
    # one instruction per class on 4096 float32 elements = 64 repeats of 256 bytes
    for cls, key in [("vec_elementwise", "vec_elementwise_cycles_per_repeat"), ("vec_div", "vec_div_cycles_per_repeat"),
                     ("vec_cast", "vec_cast_cycles_per_repeat"), ("vec_reduce", "vec_reduce_cycles_per_repeat")]:
        r = run([core([instr("V", cls, 4096, 4)])])
        busy = r["cores"][0]["pipes"]["V"]["busy"]
        assert busy == pytest.approx(VSTART + 64 * T[key]), cls
        assert r["cores"][0]["pipes"]["V"]["work"] == 64 * 256  # bytes processed: whole repeats
        assert r["cycles"] == pytest.approx(ISSUE + busy + LAT)
    # an odd element count rounds the repeats up
    r = run([core([instr("V", "vec_elementwise", 65, 4)])])
    assert r["cores"][0]["pipes"]["V"]["busy"] == pytest.approx(VSTART + 2 * T["vec_elementwise_cycles_per_repeat"])


def test_pipeline_overlap_and_barrier():
    # two independent vector ops issue back to back: the second starts when the first leaves the pipe (each is
    # longer than an issue, so issuing does not hold the second back)
    a = instr("V", "vec_elementwise", 256 * 100, 1)
    r = run([core([a, a])])
    one = VSTART + 100
    assert r["cycles"] == pytest.approx(ISSUE + 2 * one + LAT)
    # a PipeBarrier<V> between them waits for the first one's completion (its latency)
    r = run([core([a, barrier("V", line=3), a])])
    c = r["cores"][0]
    assert r["cycles"] == pytest.approx(ISSUE + one + LAT + one + LAT)
    assert c["pipes"]["V"]["stalls"] == {"PipeBarrier<V> at trace:3": pytest.approx(LAT)}


def test_flag_pairs_match_first_in_first_out():
    # two SetFlag V->MTE3 id 0, then two WaitFlag: the first wait matches the first set (after the short op),
    # the second matches the second set (after the long op)
    short, long_ = instr("V", "vec_elementwise", 256, 1), instr("V", "vec_elementwise", 256 * 1000, 1)
    ev = [short, setf("V", "MTE3"), long_, setf("V", "MTE3"),
          waitf("V", "MTE3"), dma_out(64), waitf("V", "MTE3"), dma_out(64)]
    r = run([core(ev)], detail_core=0)
    mte3 = [i for i in r["detail"]["instrs"] if i[0] == "MTE3"]
    short_done = ISSUE + VSTART + 1 + LAT
    long_done = 3 * ISSUE + VSTART + 1000 + LAT  # issued third, after the short op left the pipe
    assert mte3[0][1] == pytest.approx(max(short_done + FLAG, 6 * ISSUE))
    assert mte3[1][1] == pytest.approx(long_done + FLAG)
    # event ids are separate channels
    ev = [long_, setf("V", "MTE3", id=1), short, setf("V", "MTE3", id=0), waitf("V", "MTE3", id=1), dma_out(64)]
    r = run([core(ev)], detail_core=0)
    mte3 = [i for i in r["detail"]["instrs"] if i[0] == "MTE3"][0]
    assert mte3[1] == pytest.approx(ISSUE + VSTART + 1000 + LAT + FLAG)


def test_setflag_does_not_block_its_pipe():
    # V: op, SetFlag V->S, op2: op2 starts when op leaves the pipe, not when the flag fires
    a = instr("V", "vec_elementwise", 256 * 100, 1)
    r = run([core([a, setf("V", "S"), a])], detail_core=0)
    v = [i for i in r["detail"]["instrs"] if i[0] == "V"]
    assert v[1][1] == pytest.approx(v[0][2])


def test_pipe_all_barrier_drains_every_pipe():
    ev = [dma_in(4096), instr("V", "vec_elementwise", 256, 1), barrier("ALL", line=9), instr("S", "scalar_ub", 1)]
    r = run([core(ev)])
    dma_done = ISSUE + BURST + 4096 / T["mte2_bytes_per_cycle"] + DLAT
    assert r["cycles"] == pytest.approx(dma_done + T["scalar_ub_access_cycles"])
    stall = r["cores"][0]["pipes"]["S"]["stalls"]["PipeBarrier<ALL> at trace:9"]
    assert stall == pytest.approx(dma_done - 3 * ISSUE)


def test_gm_bandwidth_is_shared_by_the_active_cores():
    cores_n, nbytes = 48, 1 << 20
    traces = [core([dma_in(nbytes)], i) for i in range(cores_n)]
    r = run(traces)
    per_core = min(T["mte2_bytes_per_cycle"], GM_PER_CYCLE / cores_n)
    assert r["cycles"] == pytest.approx(ISSUE + BURST + nbytes / per_core + DLAT)
    # with half the bandwidth every core gets half the share (the chip limit binds: 48 x 32 > 768 bytes/cycle)
    r2 = run(traces, scale={"gm_bandwidth_gbps": 0.5})
    assert r2["cycles"] == pytest.approx(ISSUE + BURST + nbytes / (GM_PER_CYCLE / 2 / cores_n) + DLAT)
    # one core alone is held to its pipe's rate
    r1 = run(traces[:1])
    assert r1["cycles"] == pytest.approx(ISSUE + BURST + nbytes / T["mte2_bytes_per_cycle"] + DLAT)
    assert r["gm_bytes"] == cores_n * nbytes
    # the chip's GM was busy for all but the set-up and latency of the transfers
    transfer = nbytes / per_core
    assert model.summarize(r).gm_busy == pytest.approx(transfer / r["cycles"])


def test_bandwidth_shares_change_when_transfers_end():
    # 40 cores move 1 MiB, 40 others 2 MiB; the chip's bandwidth goes to the remaining ones when the first end
    small, big, n = 1 << 20, 2 << 20, 40
    traces = [core([dma_in(small)], i) for i in range(n)] + [core([dma_in(big)], n + i) for i in range(n)]
    r = run(traces)
    share1 = min(T["mte2_bytes_per_cycle"], GM_PER_CYCLE / (2 * n))
    t1 = small / share1
    share2 = min(T["mte2_bytes_per_cycle"], GM_PER_CYCLE / n)
    t2 = t1 + (big - small) / share2
    assert r["cycles"] == pytest.approx(ISSUE + BURST + t2 + DLAT)


def test_bursts_cost_set_up_cycles():
    r1 = run([core([dma_in(8192, bursts=1)])])
    r64 = run([core([dma_in(8192, bursts=64)])])
    assert r64["cycles"] - r1["cycles"] == pytest.approx(63 * BURST)


def test_full_queue_stalls_the_scalar_unit():
    depth = int(T["pipe_queue_depth"])
    a = instr("V", "vec_elementwise", 256 * 1000, 1)
    r = run([core([a] * (depth + 3))])
    s = r["cores"][0]["pipes"]["S"]
    assert s["stalls"].get("queue full: V", 0) > 0
    one = VSTART + 1000
    assert r["cycles"] == pytest.approx(ISSUE + (depth + 3) * one + LAT)


def test_sync_all_waits_for_the_last_core():
    fast = core([instr("S", "scalar_other", 100), dict(kind="sync_all", line=4), instr("S", "scalar_other", 10)], 0)
    slow = core([instr("S", "scalar_other", 5000), dict(kind="sync_all", line=4), instr("S", "scalar_other", 10)], 1)
    r = run([fast, slow])
    release = 5000 + ISSUE + T["sync_all_cycles"]
    assert r["cycles"] == pytest.approx(release + 10)
    assert r["cores"][0]["pipes"]["S"]["stalls"]["SyncAll at trace:4"] == pytest.approx(release - (100 + ISSUE))


def cube_work(handle, macs, line=0):
    return [instr("MTE2", "dma_gm_to_l1", 64 * 1024, handle=handle, line=line),
            dict(kind="set_flag", src="MTE2", dst="M", handle=handle), dict(kind="wait_flag", src="MTE2", dst="M", handle=handle),
            instr("M", "cube_mmad", macs, handle=handle, line=line)]


def test_cube_requests_are_served_in_issue_order_not_trace_order():
    macs = 8192 * 10000
    # vector core 0 requests late, vector core 1 early; the cube's trace lists core 0's request first (the order
    # the emulator ran the blocks in)
    v0 = core([instr("S", "scalar_other", 50000), dict(kind="cube_request", handle=1, peer_core=2),
               dict(kind="cube_wait", handle=1, line=11)], 0)
    v1 = core([dict(kind="cube_request", handle=2, peer_core=2), dict(kind="cube_wait", handle=2, line=12)], 1)
    cube = core(cube_work(1, macs) + cube_work(2, macs), 2, is_cube=True)
    r = run([v0, v1, cube])
    msg = T["cube_message_cycles"]
    load = BURST + 64 * 1024 / T["mte2_bytes_per_cycle"] + DLAT

    def served(arrival):  # issue MTE2, set, wait, mmad on the cube's scalar unit; the pipes after
        mmad_start = max(arrival + ISSUE + load + FLAG, arrival + 4 * ISSUE)
        return mmad_start + macs / T["cube_macs_per_cycle"] + LAT

    v1_done = served(ISSUE + msg) + msg
    assert r["cores"][1]["end"] == pytest.approx(v1_done)
    v0_arrival = 50000 + ISSUE + msg
    v0_done = served(v0_arrival) + msg
    assert r["cores"][0]["end"] == pytest.approx(v0_done)
    s = model.summarize(r)
    assert s.cube_busy == pytest.approx(2 * macs / T["cube_macs_per_cycle"] / r["cycles"])
    assert "Matmul result (cube)" in s.stall_kinds


def coarse_request(handle, load, macs, out, split=True, line=30):
    """A request as the emulator's Matmul API records it: one instruction per pipe, no flags."""
    ev = [instr("MTE2", "dma_gm_to_l1", load, handle=handle, line=line),
          instr("MTE1", "dma_l1_to_l0", load, handle=handle, line=line),
          instr("M", "cube_mmad", macs, elem_bytes=1, handle=handle, line=line)]
    if split:
        ev.append(instr("FIX", "fix_out", out, handle=handle, line=line))
    else:
        ev += [instr("V", "fix_out", out, handle=handle, line=line),
               instr("MTE3", "dma_ub_to_gm", out, handle=handle, line=line)]
    return ev


def test_coarse_matmul_request_runs_as_the_api_pipeline():
    # operands that fit half of L0A + L0B and a result that fits half of L0C: one chunk, the stages in a row
    load, macs, out = 64 * 1024, 8192 * 3000, 16 * 1024
    v = core([dict(kind="cube_request", handle=1, peer_core=1), dict(kind="cube_wait", handle=1, line=31)], 0)
    cube = core(coarse_request(1, load, macs, out), 1, is_cube=True)
    r = run([v, cube])
    msg = T["cube_message_cycles"]
    t = ISSUE + msg                                          # the request reaches the cube
    t += ISSUE + BURST + load / T["mte2_bytes_per_cycle"] + DLAT + FLAG   # MTE2, then its flag to MTE1
    t += BURST + load / T["mte1_bytes_per_cycle"] + LAT + FLAG            # MTE1, then its flag to M
    t += macs / T["cube_macs_per_cycle"] + LAT + FLAG                      # M, then its flag to FIX
    t += BURST + out / T["fix_bytes_per_cycle"] + DLAT                     # the result to GM
    assert r["cores"][0]["end"] == pytest.approx(t + msg)
    s = model.summarize(r)
    assert s.stall_kinds["Matmul result (cube)"] > 0
    assert any(k.startswith("Matmul pipeline: wait") for k in s.stall_kinds)


def test_coarse_matmul_request_overlaps_loads_and_the_cube():
    # 8 chunks (the operands fill L0A + L0B halves 8 times), each chunk's MMAD longer than its loads: after the
    # first chunk the cube never waits
    chunks = 8
    load, macs, out = chunks * 64 * 1024, 8192 * 40000, 16 * 1024
    v = core([dict(kind="cube_request", handle=1, peer_core=1), dict(kind="cube_wait", handle=1)], 0)
    r = run([v, core(coarse_request(1, load, macs, out), 1, is_cube=True)])
    m = r["cores"][1]["pipes"]["M"]
    assert m["instructions"] == chunks
    assert m["busy"] == pytest.approx(macs / T["cube_macs_per_cycle"])
    first = ISSUE + T["cube_message_cycles"] + ISSUE + BURST + load / chunks / T["mte2_bytes_per_cycle"] + DLAT
    assert m["stalled"] < first + 2 * (BURST + load / chunks / T["mte1_bytes_per_cycle"] + LAT + FLAG) + 200
    # the serial sum of the stages would be far longer than the pipelined request
    serial = load / T["mte2_bytes_per_cycle"] + load / T["mte1_bytes_per_cycle"] + macs / T["cube_macs_per_cycle"]
    assert r["cycles"] < serial


def test_one_cube_core_serves_its_requests_one_at_a_time():
    load, macs, out = 64 * 1024, 8192 * 3000, 16 * 1024
    vs = [core([dict(kind="cube_request", handle=h, peer_core=2), dict(kind="cube_wait", handle=h)], c)
          for c, h in ((0, 1), (1, 2))]
    cube = core(coarse_request(1, load, macs, out) + coarse_request(2, load, macs, out), 2, is_cube=True)
    r = run(vs + [cube])
    alone = run([vs[0], core(coarse_request(1, load, macs, out), 2, is_cube=True)])
    one = alone["cores"][0]["end"]
    # the second request starts when the first is complete (minus the completion message)
    assert r["cores"][1]["end"] == pytest.approx(2 * one - 2 * T["cube_message_cycles"] - 2 * ISSUE + ISSUE, rel=0.02)


def test_coupled_soc_runs_the_request_on_the_ai_core():
    t = {k: v["value"] for k, v in model.timing_table("ascend310p").items()}
    load, macs, out = 64 * 1024, 8192 * 100, 16 * 1024
    ai = core([dict(kind="cube_request", handle=5, peer_core=1), dict(kind="cube_wait", handle=5)], 0)
    cube_part = core(coarse_request(5, load, macs, out, split=False), 1, is_cube=True)
    r = run([ai, cube_part], soc="ascend310p")
    c0, c1 = r["cores"]
    assert c1["absorbed"] and c1["end"] == 0
    assert c0["pipes"]["M"]["instructions"] == 1 and c0["pipes"]["MTE3"]["instructions"] == 1
    assert c0["pipes"]["V"]["instructions"] == 1  # L0C -> UB through the vector pipe (no fixpipe)
    # no messages on a coupled core: the request's and the load's issue, then load, move, multiply, out to UB, out
    # to GM in a row
    iss, fl = t["scalar_issue_cycles"], t["flag_sync_cycles"]
    end = 2 * iss + t["dma_burst_cycles"] + load / t["mte2_bytes_per_cycle"] + t["dma_latency_cycles"] + fl
    end += t["dma_burst_cycles"] + load / t["mte1_bytes_per_cycle"] + t["pipeline_latency_cycles"] + fl
    end += math.ceil(macs / t["cube_macs_per_cycle"]) + t["pipeline_latency_cycles"] + fl
    end += t["dma_burst_cycles"] + out / t["fix_bytes_per_cycle"] + t["pipeline_latency_cycles"] + fl
    end += t["dma_burst_cycles"] + out / t["mte3_bytes_per_cycle"] + t["dma_latency_cycles"]
    assert r["cycles"] == pytest.approx(end)


def test_coupled_iterate_all_writes_back_row_by_row_and_loads_each_block_after_the_previous_write_back():
    # ascend310p's synchronous IterateAll (matmul_impl.h): after every base block's C reached GM, an MTE3 -> MTE2
    # flag pair; the C goes out one DMA per row with one burst per 16-column fractal (copy_cube_out_datacopy.h)
    t = {k: v["value"] for k, v in model.timing_table("ascend310p").items()}
    blocks, rows, fractals = 3, 32, 4
    load, macs, out = 3 * 16 * 1024, 3 * 8192 * 200, blocks * rows * fractals * 64

    def request(serial, dmas):
        ev = coarse_request(5, load, macs, out, split=False)
        ev[2]["serial_blocks"] = serial
        if dmas:
            ev[4]["out_dmas"], ev[4]["bursts"] = blocks * rows, blocks * rows * fractals
        ai = core([dict(kind="cube_request", handle=5, peer_core=1), dict(kind="cube_wait", handle=5)], 0)
        return run([ai, core(ev, 1, is_cube=True)], soc="ascend310p", detail_core=0)

    r = request(blocks, True)
    ins = r["detail"]["instrs"]
    mte2 = [i for i in ins if i[0] == "MTE2" and i[4] == "dma_gm_to_l1"]
    mte3 = [i for i in ins if i[0] == "MTE3" and i[4] == "dma_ub_to_gm"]
    assert len(mte2) == blocks and len(mte3) == blocks * rows
    per_row = t["dma_burst_cycles"] * fractals + fractals * 64 / t["mte3_bytes_per_cycle"]
    assert mte3[0][2] - mte3[0][1] == pytest.approx(per_row)
    for b in range(1, blocks):
        last_out = mte3[b * rows - 1]
        # block b's loads start once block b - 1's last row is in GM (its completion) and the flag went through
        assert mte2[b][1] == pytest.approx(last_out[3] + t["flag_sync_cycles"])
    # without the serial blocks the loads run ahead of the write-back, and one DMA of one burst is cheaper still
    free = request(0, True)["cycles"]
    coarse = request(0, False)["cycles"]
    assert coarse < free < r["cycles"]


def test_the_310p_scalar_unit_is_not_held_by_its_own_request():
    # ascend310p's MatmulImpl issues the request on the AI core's pipes and returns: a scalar instruction after the
    # wait starts before the request's last instruction completes (on a split SoC the client waits for the cube's
    # completion message)
    load, macs, out = 16 * 1024, 8192 * 3000, 4 * 1024
    ev = coarse_request(5, load, macs, out, split=False)
    ev[4]["out_dmas"], ev[4]["bursts"] = 4, 16
    ai = core([dict(kind="cube_request", handle=5, peer_core=1), dict(kind="cube_wait", handle=5),
               instr("S", "scalar_other", 10, line=77)], 0)
    r = run([ai, core(ev, 1, is_cube=True)], soc="ascend310p", detail_core=0)
    ins = r["detail"]["instrs"]
    after = [i for i in ins if i[0] == "S" and i[5].endswith(":77") and i[4] != "issue"]
    last_out = max(i[3] for i in ins if i[0] == "MTE3")
    assert len(after) == 1 and after[0][1] < macs / 8192 < last_out
    assert "Matmul result (cube)" not in model.summarize(r).stall_kinds


def test_a_load_recorded_with_its_dmas_costs_each_issue_and_each_burst():
    # ascend310p's operand loads are strided copies issued per tile: the scalar unit issues every DMA, MTE2 pays
    # every burst (one chunk here: the operands fit half of L0A + L0B)
    t = {k: v["value"] for k, v in model.timing_table("ascend310p").items()}
    load, macs, out = 16 * 1024, 8192 * 100, 4 * 1024

    def cycles(dmas, bursts):
        ev = coarse_request(5, load, macs, out, split=False)
        if dmas:
            ev[0]["instrs"], ev[0]["bursts"] = dmas, bursts
        ai = core([dict(kind="cube_request", handle=5, peer_core=1), dict(kind="cube_wait", handle=5)], 0)
        return run([ai, core(ev, 1, is_cube=True)], soc="ascend310p")["cycles"]

    base = cycles(0, 0)
    assert cycles(10, 40) == pytest.approx(base + 9 * t["scalar_issue_cycles"] + 39 * t["dma_burst_cycles"])


def test_a_310p_int8_b_turned_in_ub_runs_between_its_load_and_mte1():
    # ascend310p's Matmul API turns an int8 B in UB (TransDataTo5HD, each behind a PipeBarrier<V>) once its rows
    # arrived (an MTE2 -> V pair), copies it to L1 (a V -> MTE3 pair) and MTE1 waits for that copy; with one staging
    # area, the next chunk's rows wait for this chunk's turn, and its turn for this chunk's copy. Two chunks (the
    # operands are twice half of L0A + L0B); the copies are long enough that chunk 1's turn waits for chunk 0's copy
    # rather than for its own rows.
    t = {k: v["value"] for k, v in model.timing_table("ascend310p").items()}
    load = int(t["l0a_bytes"] + t["l0b_bytes"])
    turned, instrs, repeats, copies, bursts = 4 << 20, 64, 128, 2, 8
    ev = coarse_request(5, load, 8192 * 50, 4 * 1024, split=False)
    ev[1:1] = [dict(instr("V", "vec_trans_data", turned, bursts=repeats, handle=5, line=30), instrs=instrs),
               dict(instr("MTE3", "dma_ub_to_l1", turned, bursts=bursts, handle=5, line=30), instrs=copies)]
    ai = core([dict(kind="cube_request", handle=5, peer_core=1), dict(kind="cube_wait", handle=5)], 0)
    r = run([ai, core(ev, 1, is_cube=True)], soc="ascend310p", detail_core=0)
    ins = r["detail"]["instrs"]

    def of(label):
        return [i for i in ins if i[4] == label]

    load_in, turn, to_l1, mte1 = of("dma_gm_to_l1"), of("vec_trans_data"), of("dma_ub_to_l1"), of("dma_l1_to_l0")
    assert len(load_in) == len(turn) == len(to_l1) == len(mte1) == 2
    fl = t["flag_sync_cycles"]
    n = instrs // 2  # each chunk's share
    assert turn[0][2] - turn[0][1] == pytest.approx(n * t["vec_instr_cycles"] + (n - 1) * t["pipeline_latency_cycles"]
                                                    + repeats // 2 * t["vec_elementwise_cycles_per_repeat"])
    assert to_l1[0][2] - to_l1[0][1] == pytest.approx(bursts // 2 * t["dma_burst_cycles"] +
                                                      turned / 2 / t["ub_to_l1_bytes_per_cycle"])
    assert turn[0][1] == pytest.approx(load_in[0][3] + fl)
    # chunk 1's rows go into the staging area once chunk 0's turn read it; its turn waits for chunk 0's copy
    assert load_in[1][1] == pytest.approx(turn[0][3] + fl)
    assert to_l1[0][3] > load_in[1][3]
    assert turn[1][1] == pytest.approx(to_l1[0][3] + fl)
    for j in range(2):
        assert to_l1[j][1] == pytest.approx(turn[j][3] + fl)
        assert mte1[j][1] >= to_l1[j][3] + fl - 1e-6

    # the scalar unit issues each TransDataTo5HD and fills its address lists (trans_data_scalar_cycles)
    def issued(instrs):
        return sum(i[2] - i[1] for i in instrs if i[0] == "S" and i[4] == "issue")

    without = [e for e in ev if e["cls"] not in ("vec_trans_data", "dma_ub_to_l1")]
    r0 = run([ai, core(without, 1, is_cube=True)], soc="ascend310p", detail_core=0)
    flags = 2 * 4 + 2 * 2  # per chunk an MTE2 -> V and a V -> MTE3 pair; chunk 0 to 1 a V -> MTE2 and an MTE3 -> V
    assert issued(ins) - issued(r0["detail"]["instrs"]) == pytest.approx(
        instrs * (t["scalar_issue_cycles"] + t["trans_data_scalar_cycles"]) + (copies + flags) * t["scalar_issue_cycles"])


def test_coupled_write_back_holds_the_vector_pipe_until_its_rows_are_in_gm():
    # ascend310p's GetTensorC(gm) ends its row-by-row write-back with an MTE3 -> V pair (copy_cube_out_datacopy.h):
    # the next block's L0C -> UB copy waits for the rows. A result of two L0C halves: two blocks in one request.
    t = {k: v["value"] for k, v in model.timing_table("ascend310p").items()}
    rows, fractals = 128, 16
    out = 2 * rows * fractals * 64
    assert out == t["l0c_bytes"]
    ev = coarse_request(1, 16 * 1024, 8192 * 50, out, split=False)
    ev[4]["out_dmas"], ev[4]["bursts"] = 2 * rows, 2 * rows * fractals
    ai = [dict(kind="cube_request", handle=1, peer_core=1), dict(kind="cube_wait", handle=1)]
    r = run([core(ai, 0), core(ev, 1, is_cube=True)], soc="ascend310p", detail_core=0)
    ins = r["detail"]["instrs"]
    mte3 = [i for i in ins if i[0] == "MTE3" and i[4] == "dma_ub_to_gm"]
    v = [i for i in ins if i[0] == "V" and i[4] == "fix_out"]
    assert len(mte3) == 2 * rows and len(v) == 2
    assert v[1][1] == pytest.approx(mte3[rows - 1][3] + t["flag_sync_cycles"])


def test_a_request_recorded_on_the_requesting_core_runs_there():
    # any SoC: the request's work in the requester's own trace is issued by its own scalar unit at the request
    load, macs, out = 64 * 1024, 8192 * 100, 16 * 1024
    ev = [dict(kind="cube_request", handle=7, peer_core=0)] + coarse_request(7, load, macs, out) + \
        [dict(kind="cube_wait", handle=7)]
    r = run([core(ev)])
    c = r["cores"][0]
    assert not c["absorbed"] and c["pipes"]["M"]["instructions"] == 1 and c["pipes"]["FIX"]["instructions"] == 1
    assert "Matmul result (cube)" in model.summarize(r).stall_kinds


def test_a_wait_without_its_set_is_a_hang_at_the_kernel_line():
    ev = [waitf("MTE2", "V", line=42), instr("V", "vec_elementwise", 256, 1)]
    with pytest.raises(EmulatorError, match=r"trace:42.*cannot complete"):
        run([core(ev)])
    with pytest.raises(EmulatorError, match=r"trace:5.*cannot complete"):
        run([core([waitf("V", "S", line=5)])])
    with pytest.raises(EmulatorError, match="SyncAll"):
        run([core([dict(kind="sync_all", line=1)], 0), core([dict(kind="sync_all", line=1)] * 2, 1)])


def test_sensitivity_and_bad_parameters():
    ev = [dma_in(1 << 16), setf("MTE2", "V"), waitf("MTE2", "V"), instr("V", "vec_div", 8192, 4)]
    base = run([core(ev)])["time_us"]
    sens = model.sensitivity(lambda s: run([core(ev)], scale=s), SOC, ["vec_div_cycles_per_repeat", "l1_bytes"])
    assert sens["vec_div_cycles_per_repeat"][0.5] < base < sens["vec_div_cycles_per_repeat"][2.0]
    assert sens["l1_bytes"][0.5] == sens["l1_bytes"][2.0] == base  # a capacity does not change the estimate
    with pytest.raises(ValueError, match="unknown timing parameter"):
        run([core(ev)], scale={"warp_speed": 2})
    with pytest.raises(ValueError, match="finite and > 0"):
        run([core(ev)], scale={"clock_mhz": 0})
    with pytest.raises(ValueError, match="unknown pipe"):
        _native.timeline_simulate([core([dict(kind="instr", pipe="Q")])], SOC, {}, -1)
