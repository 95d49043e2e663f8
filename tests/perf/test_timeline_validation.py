"""The timeline model against synthetic kernels run by the emulator (op_kernel/emulator/tests/timeline_test_kernels.cpp):
each kernel isolates one effect, and the model must show it. Limits are worked out here from the SoC table's
parameters (the roofline) or from what the kernel's structure forces (what waits for what)."""
import numpy as np
import pytest

import ascend_quant_ops_testing as _testing  # the validation kernels' module (tests/emulator/conftest.py builds it)
from ascend_quant_ops import tiling
from ascend_quant_ops.perf import model

SOCS = ["ascend910b", "ascend310p", "ascend910_95"]


def params(soc):
    return {k: v["value"] for k, v in model.timing_table(soc).items()}


def last_run(detail=-2):
    return _testing.timeline_last_run({}, detail)


def floats(n, seed=0):
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


def intervals(result, pipe):
    return [(i[1], i[2]) for i in result["detail"]["instrs"] if i[0] == pipe]


@pytest.mark.parametrize("soc", SOCS)
def test_double_buffered_copy_reaches_the_bandwidth_roofline(soc):
    cores = int(tiling.soc_spec(soc)["dynamic_quant_cores"])
    per_core, tile = 256 * 1024, 16 * 1024
    x = floats(cores * per_core // 4)
    y = np.frombuffer(_testing.timeline_test_copy(x.tobytes(), soc, cores, per_core, tile, 2), np.float32)
    assert np.array_equal(x, y)
    r = last_run()
    work = model.summarize(r).work
    assert work["MTE2"] == work["MTE3"] == work["V"] == x.nbytes  # in, moved in UB, out: each byte once
    roofline_us = 2 * x.nbytes / (params(soc)["gm_bandwidth_gbps"] * 1e3)  # every byte read once, written once
    assert roofline_us <= r["time_us"] <= 1.05 * roofline_us
    assert model.summarize(r).gm_busy >= 0.95


@pytest.mark.parametrize("soc", SOCS)
def test_single_buffered_copy_serialises_loads_and_moves(soc):
    per_core, tile = 512 * 1024, 16 * 1024
    x = floats(per_core // 4, seed=1)
    _testing.timeline_test_copy(x.tobytes(), soc, 1, per_core, tile, 2)
    double = last_run(-1)
    y = np.frombuffer(_testing.timeline_test_copy(x.tobytes(), soc, 1, per_core, tile, 1), np.float32)
    assert np.array_equal(x, y)
    single = last_run(-1)
    # one buffer per queue: a tile's load waits until the vector pipe moved the previous tile out of the input
    # buffer, and that move waited for the load; so loads never overlap moves, the load pipe idles while a tile is
    # moved and stored, and the launch is much longer
    loads, moves = intervals(single, "MTE2"), intervals(single, "V")
    assert len(loads) == len(moves) == per_core // tile
    for (ls, le) in loads:
        assert all(le <= ms or me <= ls for ms, me in moves)
    assert any(le > ms and me > ls for ls, le in intervals(double, "MTE2") for ms, me in intervals(double, "V"))
    assert model.summarize(double).busy_slowest["MTE2"] >= 0.9
    assert model.summarize(single).busy_slowest["MTE2"] <= 0.7
    assert single["cycles"] >= 1.3 * double["cycles"]
    # what the loads waited for: the vector pipe freeing the input buffer
    assert model.summarize(single).stall_kinds.get("wait V->MTE2", 0) > 0


@pytest.mark.parametrize("soc", SOCS)
def test_a_v_to_s_round_trip_per_256_bytes_stalls_the_scalar_unit(soc):
    p = params(soc)
    per_core, tile = 64 * 1024, 8 * 1024
    chunks = per_core // 256
    x = floats(per_core // 4, seed=2)
    want = x.max()
    got = {}
    for per_chunk in (True, False):
        y = np.frombuffer(_testing.timeline_test_scalar_round_trip(x.tobytes(), soc, 1, per_core, tile, per_chunk),
                          np.float32)
        assert y[0] == want
        got[per_chunk] = model.summarize(last_run())
    rt, batched = got[True], got[False]
    # every round trip holds the scalar unit until the reduction has left the vector pipeline and the flag has
    # come back (pipeline latency + flag), before it can issue the next chunk's work; batched, the reductions
    # stream and the scalar unit waits once per tile
    floor = chunks * (p["pipeline_latency_cycles"] + p["flag_sync_cycles"])
    assert rt.cycles - batched.cycles >= floor
    assert rt.cycles >= 1.8 * batched.cycles
    assert rt.top_stalls(1)[0][0] == "wait V->S"
    assert batched.stall_kinds.get("wait V->S", 0) <= 0.25 * rt.stall_kinds["wait V->S"]


# Not ascend310p: there an AI core's MTE2 and MTE3 move 17 bytes per cycle each and the int32 result leaves through
# UB, so an int8 matmul is cube-bound only from about M = N = 1024 with K of several thousand, which takes the
# emulator (exact int32 products) too long for a test.
@pytest.mark.parametrize("soc", ["ascend910b", "ascend910_95"])
def test_a_cube_only_loop_reaches_the_cube_roofline(soc):
    # K = 448, N = 1024: B's K x N (448 KiB) and an M block's A (56 KiB) stay in L1, so the API reads each operand byte once
    # and one core's MTE2 (its GM rate, the platform config's ddr_read_rate) is far from bounding; each 128 x 256
    # block's products take longer than its int32 result's way out of L0C. (With K = 1024 neither operand's K panels
    # fit next to the other's tiles and the Matmul API reloads them for every base block, which the emulator
    # records: then the loads bound, as on a core reading everything from GM.)
    p = params(soc)
    m, n, k = 2048, 1024, 448  # 32 M blocks per request: the pipeline's fill and drain are a small part
    repeats = 2
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    c = np.frombuffer(_testing.timeline_test_cube_loop(a.tobytes(), b.tobytes(), soc, 1, m, n, k, repeats), np.int32)
    assert np.array_equal(c.reshape(m, n), a.astype(np.int32) @ b.astype(np.int32))
    r = last_run()
    s = model.summarize(r)
    roofline_us = repeats * m * n * k / (p["cube_macs_per_cycle"] * p["clock_mhz"])  # one cube core's peak
    assert roofline_us <= r["time_us"] <= 1.05 * roofline_us
    assert s.cube_busy >= 0.95


def gm_buffer(trace, name):
    return next(b for b in trace["gm_buffers"] if b["name"] == name)


def test_the_trace_records_what_each_dma_and_matmul_request_touched():
    # the copy kernel: core c's i-th tile is read from x and written to y at c * per_core + i * tile
    cores, per_core, tile = 2, 8192, 2048
    _testing.timeline_test_copy(floats(cores * per_core // 4).tobytes(), "ascend910b", cores, per_core, tile, 2)
    t = _testing.emulator_last_run_trace()
    x, y = gm_buffer(t, "x"), gm_buffer(t, "y")
    assert x["bytes"] == y["bytes"] == cores * per_core
    assert x["addr"] + x["bytes"] <= y["addr"] and all(b["addr"] % (2 << 20) == 0 for b in t["gm_buffers"])
    for c in range(cores):
        ev = [e for e in t["cores"][c]["events"] if e["kind"] == "instr" and e["pipe"] in ("MTE2", "MTE3")]
        reads = [e["gm"] for e in ev if e["pipe"] == "MTE2"]
        writes = [e["gm"] for e in ev if e["pipe"] == "MTE3"]
        want = [c * per_core + i * tile for i in range(per_core // tile)]
        assert reads == [[dict(addr=x["addr"] + o, bytes=tile, blocks=1, stride=tile, write=False)] for o in want]
        assert writes == [[dict(addr=y["addr"] + o, bytes=tile, blocks=1, stride=tile, write=True)] for o in want]
    # a Matmul request: its load lists A's and B's rectangles (here contiguous), its result C's
    m, n, k = 128, 256, 64
    a = np.zeros((m, k), np.int8)
    b = np.zeros((k, n), np.int8)
    _testing.timeline_test_cube_loop(a.tobytes(), b.tobytes(), "ascend910b", 2, m, n, k, 1)
    t = _testing.emulator_last_run_trace()
    ga, gb, gc = (gm_buffer(t, s) for s in "abc")
    cube = [c for c in t["cores"] if c["is_cube"]]
    assert len(cube) == 1  # the two vector cores share one cube core
    loads = [e for e in cube[0]["events"] if e.get("cls") == "dma_gm_to_l1"]
    outs = [e for e in cube[0]["events"] if e.get("cls") == "fix_out"]
    assert len(loads) == len(outs) == 2
    for i, (ld, out) in enumerate(zip(loads, outs)):
        assert ld["gm"] == [dict(addr=ga["addr"], bytes=m * k, blocks=1, stride=m * k, write=False),
                            dict(addr=gb["addr"], bytes=k * n, blocks=1, stride=k * n, write=False)]
        core_c = [dict(addr=gc["addr"] + i * m * n * 4, bytes=m * n * 4, blocks=1, stride=m * n * 4, write=True)]
        assert out["gm"] in (core_c, [dict(core_c[0], addr=gc["addr"] + (1 - i) * m * n * 4)])
    assert {o["gm"][0]["addr"] for o in outs} == {gc["addr"], gc["addr"] + m * n * 4}


@pytest.mark.parametrize("soc", SOCS)
def test_a_copy_that_reads_its_input_twice_reads_it_once_from_gm(soc):
    # the double-buffered copy, twice over: the first pass moves x in and y out through GM (the GM roofline of
    # 2 x bytes), the second finds x in L2 (it fits) and only writes y again through GM, at the GM bandwidth or,
    # where the cores' MTE3 pipes together are slower, at theirs
    p = params(soc)
    cores = int(tiling.soc_spec(soc)["dynamic_quant_cores"])
    per_core, tile = 256 * 1024, 16 * 1024
    x = floats(cores * per_core // 4, seed=4)
    assert x.nbytes < p["l2_bytes"] / 2
    y = np.frombuffer(_testing.timeline_test_copy(x.tobytes(), soc, cores, per_core, tile, 2, 2), np.float32)
    assert np.array_equal(x, y)
    gm = p["gm_bandwidth_gbps"] * 1e3  # bytes per microsecond
    r = last_run()
    s = model.summarize(r)
    assert s.l2_hit_share == pytest.approx(0.5)
    assert s.ddr_bytes == 3 * x.nbytes
    out_rate = min(gm, cores * p["mte3_bytes_per_cycle"] * p["clock_mhz"])
    expected = 2 * x.nbytes / gm + x.nbytes / out_rate
    assert 3 * x.nbytes / gm <= r["time_us"] <= 1.05 * expected
    # with an L2 a quarter of x, least recently used replacement keeps none of x for the second pass: both passes
    # run at the GM roofline of a copy
    small = _testing.timeline_last_run({"l2_bytes": x.nbytes / 4 / p["l2_bytes"]}, -2)
    s = model.summarize(small)
    assert s.l2_hit_bytes == 0 and s.ddr_bytes == 4 * x.nbytes
    assert 4 * x.nbytes / gm <= small["time_us"] <= 1.05 * 4 * x.nbytes / gm


@pytest.mark.parametrize("soc", ["ascend910b", "ascend910_95"])
def test_matmul_requests_of_the_same_operands_read_them_once_from_gm(soc):
    # two vector cores (one cube core) compute C = A B twice each: four requests, each loading A and B once (they
    # stay in L1: see the cube loop above); the first load of each line comes from GM, every other from L2
    p = params(soc)
    m, n, k = 256, 512, 128
    rng = np.random.default_rng(5)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    _testing.timeline_test_cube_loop(a.tobytes(), b.tobytes(), soc, 2, m, n, k, 2)
    s = model.summarize(last_run())
    operands = a.nbytes + b.nbytes
    assert operands % p["l2_line_bytes"] == 0
    assert s.gm_read_bytes == 4 * operands
    assert s.l2_hit_bytes == 3 * operands
    assert s.ddr_bytes == operands + 4 * m * n * 4  # and every C written through GM


def test_a_kernels_own_cube_steps_run_in_order_on_their_pipes():
    # ascend310p's level-0 pipeline (DemoCube in emu_test_kernels.cpp): the turn (V), the copies to L1 (MTE3), the
    # loads to L0 (MTE1), the MMAD (M) and the copy out of L0C (V) follow each other through the kernel's flags, and
    # the MMAD costs its whole fractals' MACs at the cube's rate
    k, n = 256, 96
    rng = np.random.default_rng(3)
    ab = rng.integers(-128, 128, size=16 * k + k * n, dtype=np.int8)
    _testing.emulator_demo_cube(ab.tobytes(), k, n, 0, "ascend310p")
    r = last_run(-1)
    p = params("ascend310p")
    ins = r["detail"]["instrs"]
    first = {}
    last = {}
    for pipe, start, busy_end, end, cls, _site in ins:
        first.setdefault(cls, start)
        last[cls] = end
    assert last["vec_trans_data"] <= first["dma_ub_to_l1"]
    assert last["dma_ub_to_l1"] <= first["dma_l1_to_l0"]
    assert last["dma_l1_to_l0"] <= first["cube_mmad"]
    assert last["cube_mmad"] <= first["fix_out"]
    mmad = [i for i in ins if i[4] == "cube_mmad"]
    assert len(mmad) == 1 and mmad[0][0] == "M"
    assert mmad[0][2] - mmad[0][1] == pytest.approx(16 * n * k / p["cube_macs_per_cycle"])
    assert all(i[0] == "V" for i in ins if i[4] == "fix_out")


def _cube_decode(k, n, cores, seed=0, rows=32, ksplit=1):
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 128, size=(16, k), dtype=np.int8)
    b = rng.integers(-128, 128, size=(k, n), dtype=np.int8)
    out = np.frombuffer(_testing.timeline_test_cube_decode_310p(a.tobytes() + b.tobytes(), k, n, cores, rows, ksplit),
                        np.int32)
    return out.reshape(16, n), a.astype(np.int64) @ b.astype(np.int64)


@pytest.mark.parametrize("k,n,cores,rows,ksplit", [(64, 64, 2, 32, 1), (256, 512, 8, 32, 1), (256, 512, 8, 64, 1),
                                                   (128, 128, 4, 32, 2), (512, 1024, 8, 32, 2)])
def test_the_310p_cube_decode_prototype_computes_the_product(k, n, cores, rows, ksplit):
    # the planned decode path's main loop (KernelCubeDecode310p) under every emulator rule, against numpy; 64-row
    # chunks go through L0B in two halves; with two K slices the pairs' partial sums meet after a software SyncAll
    got, expect = _cube_decode(k, n, cores, seed=k + n, rows=rows, ksplit=ksplit)
    np.testing.assert_array_equal(got, expect)


def test_the_310p_cube_decode_prototype_streams_b():
    # at 16 x 4096 x 4096 on the 310p's 8 AI cores the loop is bound by reading b: MTE2 is the busiest pipe of the
    # slowest core, busier than the scalar unit that issues the turn, and the cube is nearly idle; two K slices (rows
    # of 1024 bytes instead of 512) take less time than one
    got, expect = _cube_decode(4096, 4096, 8)
    np.testing.assert_array_equal(got, expect)
    one = model.summarize(last_run())
    assert one.critical_pipe == "MTE2"
    assert one.busy_slowest["MTE2"] > one.busy_slowest["S"] and one.busy_slowest["M"] < 0.05
    got, expect = _cube_decode(4096, 4096, 8, ksplit=2)
    np.testing.assert_array_equal(got, expect)
    assert model.summarize(last_run()).time_us < one.time_us


def test_the_310p_cube_decode_prototype_reorders_c_for_either_copy_pipe():
    # C goes from L0C's Nz order to rows by UB -> UB copies, which run on V, or on MTE3 under the run variant that
    # models the undocumented choice: the prototype orders them for both
    old = _testing.emulator_run_options()
    _testing.emulator_set_run_options(**{**old, "ub_copy_on_mte3": True})
    try:
        for ksplit in (1, 2):
            got, expect = _cube_decode(256, 512, 8, ksplit=ksplit)
            np.testing.assert_array_equal(got, expect)
    finally:
        _testing.emulator_set_run_options(**old)
