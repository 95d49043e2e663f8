"""The emulated Matmul high-level API (op_kernel/emulator/include/lib/matmul_intf.h): exact int32 wrap-around
arithmetic against integer math of our own, strides from SetOrgShape, per-SoC cube dtype pairs, every form the
QLinearMatMul kernels use or will use (synchronous and asynchronous IterateAll, Iterate block by block, Iterate<false>
into a workspace; NORM and MDL; the 310p local workspace), and loud failures at the kernel line for every modelled
misuse (test kernels in python/csrc/emulate_qlinear_matmul_faults.cpp, each marked `// FAULT: <name>`)."""
from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

import ascend_quant_ops_testing as _native  # the Matmul API test kernels' module (tests/emulator/conftest.py)
from ascend_quant_ops.errors import EmulatorError


SOURCE = pathlib.Path(__file__).resolve().parents[2] / "python" / "csrc" / "emulate_qlinear_matmul_faults.cpp"
B, P, C = "ascend910b", "ascend310p", "ascend910_95"
SPLIT = (B, C)
ALL = (B, P, C)


def _fault_lines():
    lines = {}
    for i, line in enumerate(SOURCE.read_text().splitlines(), start=1):
        m = re.search(r"// FAULT: (\w+)", line)
        if m:
            lines[m.group(1)] = i
    return lines


FAULT_LINES = _fault_lines()

# name -> (SoCs where it faults, words its message must contain).
EXPECTED = {
    "iterate_before_set_tensor_b": (ALL, "before SetTensorB"),
    "a_out_of_bounds": (ALL, "outside the GlobalTensor's extent"),
    "c_in_read_only_input": (ALL, "read-only input"),
    "base_block_not_fractal": (ALL, "not made of cube fractals"),
    "tiling_depth_zero": (ALL, "must be larger than 0"),
    "mdl_depth_not_multiple": (SPLIT, "1 or 2 times stepM * stepKa"),
    "trans_length_zero": ((P,), "transLength 0"),
    "uint8_without_cube_path": (ALL, "has no uint8 x int8 path"),
    "float8_without_cube_path": ((B, P), "has no float8 path"),
    "float8_nan_operand": ((C,), "float8 operand A[1, 5] is NaN"),
    "use_before_init": (ALL, "before Init"),
    "single_shape_larger_than_org": (ALL, "must be positive and fit the org shape"),
    "stride_16bit_a": (SPLIT, "A's row stride (orgKa, K) = 70000"),
    "stride_16bit_b": (SPLIT, "B's row stride (orgN, N) = 70000"),
    "local_workspace_missing": ((P,), "no SetLocalWorkspace, so the Matmul API writes its staging through a tensor "
                                      "at UB address 0"),
    "local_workspace_too_small": ((P,), "the buffer has 64 bytes, the API needs"),
    # the 16 x 16 int32 C tile (1024) and the 32 x 16 int8 B slab (1024)
    "local_workspace_veccalc_c_tile": ((P,), "the buffer has 1024 bytes, the API needs 2048"),
    # 310p's IterateAll does not hold the scalar unit: C's write-back is ordered for V / MTE2 / MTE3 only
    "c_read_by_scalar_after_iterate_all": ((P,), "read-after-write (RAW)"),
    "local_workspace_read_after_use": ((P,), "never written (uninitialised)"),
    "tpipe_buffers_with_matmul_api": ((P,), "65 buffers managed by one TPipe (5 of them the Matmul API's)"),
    "share_ub_size_shifts_buffers": ((P,), "UB overflow"),
    "set_org_shape_after_single_shape": (SPLIT, "SetOrgShape after SetSingleShape"),
    "iterate_all_without_new_tensors": (SPLIT, "no SetTensorA / SetTensorB since the client's last message"),
    "wait_after_sync": (SPLIT, "WaitIterateAll after a synchronous computation"),
    "wait_nothing_in_flight": (SPLIT, "without an asynchronous IterateAll in flight"),
    "wait_on_310p": ((P,), "has no WaitIterateAll"),
    "async_a_changed": (SPLIT, "A of the asynchronous IterateAll started at"),
    "async_c_written": (SPLIT, "C of the asynchronous IterateAll started at"),
    "async_a_out_of_bounds": (ALL, "outside the GlobalTensor's extent"),
    "buffer_under_client_message": ((B,), "stages every message to the cube in the last 128 bytes of UB"),
    # a launch UB larger than the build's: the client's window stays at the build's TOTAL_UB_SIZE
    "buffer_under_build_message_window": ((B,), "[196480, 196608) (kfc_comm_client.h"),
    "async_never_waited": (SPLIT, "never waited for"),
    "async_past_the_flag_counter": (SPLIT, "16 asynchronous IterateAll notifications in flight"),
    "iterate_async_without_workspace": (SPLIT, "Iterate<false> without SetWorkspace"),
    "iterate_async_c_in_gm": (SPLIT, "needs C in UB"),
    "get_tensor_c_workspace_on_310p": ((P,), "has no GetTensorC returning the workspace block"),
    "get_tensor_c_before_iterate": (ALL, "no block: call Iterate first"),
    "get_tensor_c_workspace_after_sync": (SPLIT, "the blocks of a synchronous Iterate are fetched with GetTensorC(gm)"),
    "get_tensor_c_beyond_blocks": (SPLIT, "the computation has only 1 blocks"),
    "iterate_without_get_tensor_c": (ALL, "the previous block was not fetched with GetTensorC"),
    "wait_without_notify": (SPLIT, "without waitIterateAll = true"),
    "async_c_not_continuous": (SPLIT, "C is not continuous in GM"),
    "transposed_b_not_declared": (ALL, "does not declare ISTRANS = true"),
    "stride_16bit_b_transposed": (SPLIT, "B's row stride (orgKb, K; B transposed) = 70000"),
    "tiling_exceeds_l1": (ALL, "bytes of L1"),
}
# Faults that exist only where their rule applies pass on the other SoCs (the same use is fine there).
PASS_ELSEWHERE = {"mdl_depth_not_multiple", "trans_length_zero", "stride_16bit_a", "stride_16bit_b",
                  "local_workspace_missing", "tpipe_buffers_with_matmul_api", "share_ub_size_shifts_buffers",
                  "set_org_shape_after_single_shape",
                  "iterate_all_without_new_tensors", "async_never_waited", "stride_16bit_b_transposed",
                  "c_read_by_scalar_after_iterate_all"}
# Correct twins of faults (no FAULT marker): they run clean on every SoC.
TWINS = {"c_read_by_scalar_after_iterate_all_ok"}


def test_every_fault_kernel_has_a_marker_and_an_expectation():
    names = set(_native.qmm_matmul_fault_names())
    assert sorted(names - TWINS) == sorted(FAULT_LINES) == sorted(EXPECTED) and TWINS <= names
    assert all(t[:-len("_ok")] in EXPECTED for t in TWINS)


@pytest.mark.parametrize("name, soc", [(n, s) for n in sorted(TWINS) for s in ALL])
def test_correct_twins_run_clean(name, soc):
    _native.qmm_matmul_fault(name, soc)


@pytest.mark.parametrize("name, soc", [(n, s) for n in sorted(EXPECTED) for s in EXPECTED[n][0]])
def test_fault_is_caught_at_the_kernel_line(name, soc):
    with pytest.raises(EmulatorError) as e:
        _native.qmm_matmul_fault(name, soc)
    assert e.value.kernel_file.endswith("emulate_qlinear_matmul_faults.cpp")
    assert e.value.kernel_line == FAULT_LINES[name]
    assert EXPECTED[name][1] in str(e.value)


@pytest.mark.parametrize("name, soc", [(n, s) for n in sorted(PASS_ELSEWHERE) for s in ALL
                                       if s not in EXPECTED[n][0]])
def test_soc_specific_rule_passes_where_it_does_not_apply(name, soc):
    _native.qmm_matmul_fault(name, soc)


def _reference(a, b):
    acc = a.astype(np.int64) @ b.astype(np.int64)
    return ((acc + 2**31) % 2**32 - 2**31).astype(np.int32)


def _demo(soc, a, b, m, n, k, lda, ldb, ldc, **kw):
    a_u, b_u = a.dtype == np.uint8, b.dtype == np.uint8
    return np.frombuffer(_native.qmm_matmul_demo(soc, a.tobytes(), b.tobytes(), a_u, b_u, m, n, k, lda, ldb, ldc,
                                                 **kw), np.int32).reshape(m, ldc)


@pytest.mark.parametrize("soc", ALL)
@pytest.mark.parametrize("config", ["norm", "norm_checked", "mdl_checked"])
def test_int8_product_with_strides_is_exact(soc, config):
    rng = np.random.default_rng(1)
    m, n, k, lda, ldb, ldc = 5, 7, 33, 40, 9, 8  # every operand with a row stride longer than its row
    a = rng.integers(-128, 128, (m, lda)).astype(np.int8)
    b = rng.integers(-128, 128, (k, ldb)).astype(np.int8)
    c = _demo(soc, a, b, m, n, k, lda, ldb, ldc, config=config, local_workspace=soc == P)
    np.testing.assert_array_equal(c[:, :n], _reference(a[:, :k], b[:, :n]))
    assert (c[:, n:] == 0).all(), "columns past N of C must not be written"


@pytest.mark.parametrize("soc", SPLIT)
def test_asynchronous_iterate_all_then_wait(soc):
    rng = np.random.default_rng(4)
    m, n, k = 20, 24, 70
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    np.testing.assert_array_equal(_demo(soc, a, b, m, n, k, k, n, n, form="async"), _reference(a, b))


def test_int32_accumulation_that_may_leave_int32_is_refused():
    # Integer Mmad only saturates and its order along K is not documented: 127 * 127 * 140000 = 2,258,060,000 >
    # 2^31 - 1, so some partial sum may leave int32 and C is not the wrapped sum. Refused; the same K with products
    # whose magnitudes add up to less is exact. K = 140000 is also a row stride past 16 bits: the checked config.
    k = 140000
    a = np.full((1, k), 127, np.int8)
    b = np.full((k, 8), 127, np.int8)
    with pytest.raises(EmulatorError, match=r"magnitudes add up to 2258060000 > 2\^31 - 1.*integer Mmad saturates"):
        _demo(B, a, b, 1, 8, k, k, 8, 8)
    b_small = np.full((k, 8), 100, np.int8)
    b_small[::2] = -100
    a_small = np.ones((1, k), np.int8)
    np.testing.assert_array_equal(_demo(B, a_small, b_small, 1, 8, k, k, 8, 8)[:, :8], _reference(a_small, b_small))
    with pytest.raises(EmulatorError, match="row stride"):
        _demo(B, a_small, b_small, 1, 8, k, k, 8, 8, config="norm")


@pytest.mark.parametrize("soc", ALL)
def test_long_rows_of_a_and_b(soc):
    # N = 152064 (a vocabulary) and K = 65536 + 40: rows past 16-bit strides, fine with the intrinsic check (and
    # on 310p, which splits them itself, with any config).
    rng = np.random.default_rng(5)
    for m, n, k in ((2, 152064, 3), (2, 16, 65576)):
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (k, n)).astype(np.int8)
        cols = min(n, 64)
        got = _demo(soc, a, b, m, cols, k, k, n, 64, local_workspace=soc == P)[:, :cols]
        np.testing.assert_array_equal(got, _reference(a, b[:, :cols]))
        if soc == P:
            np.testing.assert_array_equal(_demo(soc, a, b, m, cols, k, k, n, 64, config="norm")[:, :cols], got)


@pytest.mark.parametrize("a_unsigned,b_unsigned", [(True, False), (True, True)])
def test_uint8_cube_pairs_are_refused_by_the_matmul_api_everywhere(a_unsigned, b_unsigned):
    # 910b / 950: no uint8 cube path; 310p: the cube has one, but CANN 8.1.RC1's Matmul API does not compile uint8
    # operands for it (the type-check of such a kernel against the headers fails), so the emulated API refuses them.
    rng = np.random.default_rng(2)
    m, n, k = 3, 8, 50
    a = rng.integers(0, 256, (m, k)).astype(np.uint8 if a_unsigned else np.int8)
    b = rng.integers(0 if b_unsigned else -128, 256 if b_unsigned else 128, (k, n)).astype(
        np.uint8 if b_unsigned else np.int8)
    for soc in SPLIT:
        with pytest.raises(EmulatorError, match="has no uint8 x"):
            _demo(soc, a, b, m, n, k, k, n, n)
    with pytest.raises(EmulatorError, match="does not compile uint8"):
        _demo(P, a, b, m, n, k, k, n, n)


# ------------------------------------------------------------------ block by block
def _order(m_iter, n_iter, step_m, step_n, order_n):
    """The API's base-block order, written independently from its loop description: ORDER_M walks M first (N steps
    outermost), ORDER_N walks N first; inside a step pair the inner dimension's blocks are innermost."""
    out = []
    if not order_n:
        for n0 in range(0, n_iter, step_n):
            for m0 in range(0, m_iter, step_m):
                for mi in range(m0, min(m_iter, m0 + step_m)):
                    out += [(mi, ni) for ni in range(n0, min(n_iter, n0 + step_n))]
    else:
        for m0 in range(0, m_iter, step_m):
            for n0 in range(0, n_iter, step_n):
                for ni in range(n0, min(n_iter, n0 + step_n)):
                    out += [(mi, ni) for mi in range(m0, min(m_iter, m0 + step_m))]
    return out


@pytest.mark.parametrize("soc", ALL)
def test_iterate_and_get_tensor_c_block_by_block(soc):
    rng = np.random.default_rng(6)
    m, n, k = 40, 48, 64  # 3 x 3 blocks of 16 x 16 with tails of 8 and 16
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    c = np.frombuffer(_native.qmm_matmul_blocks_demo(soc, a.tobytes(), b.tobytes(), m, n, k, 16, 16, form="sync"),
                      np.int32)[: m * n].reshape(m, n)
    np.testing.assert_array_equal(c, _reference(a, b))


@pytest.mark.parametrize("soc", SPLIT)
@pytest.mark.parametrize("steps, order", [((1, 1), 0), ((1, 1), 1), ((2, 2), 0), ((2, 1), 1)])
def test_asynchronous_iterate_blocks_in_the_workspace(soc, steps, order):
    rng = np.random.default_rng(7)
    m, n, k, bm, bn = 40, 50, 64, 16, 16
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    out = np.frombuffer(_native.qmm_matmul_blocks_demo(soc, a.tobytes(), b.tobytes(), m, n, k, bm, bn, *steps,
                                                       order, form="async"), np.int32)
    ref = _reference(a, b)
    m_iter, n_iter = -(-m // bm), -(-n // bn)
    for i, (mi, ni) in enumerate(_order(m_iter, n_iter, *steps, order == 1)):
        h, w = min(bm, m - mi * bm), min(bn, n - ni * bn)
        # A block is stored with its own width as the row stride (sequential write).
        block = out[i * bm * bn: i * bm * bn + h * w].reshape(h, w)
        np.testing.assert_array_equal(block, ref[mi * bm: mi * bm + h, ni * bn: ni * bn + w], err_msg=str((i, mi, ni)))


@pytest.mark.parametrize("soc", ALL)
def test_transposed_b_is_read_as_n_by_k(soc):
    # B stored [N, K] (row stride ldb >= K, the Linear layout): SetTensorB(gm, true) with an ISTRANS MatmulType.
    rng = np.random.default_rng(8)
    m, n, k, ldb = 20, 24, 70, 80
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    bt = rng.integers(-128, 128, (n, ldb)).astype(np.int8)
    c = _demo(soc, a, bt, m, n, k, k, ldb, n, b_trans=True, local_workspace=soc == P)
    np.testing.assert_array_equal(c, _reference(a, bt[:, :k].T))


@pytest.mark.parametrize("soc", ALL)
@pytest.mark.parametrize("base_n", [32, 64])
@pytest.mark.parametrize("n", [17, 20, 33, 40, 7])
def test_transposed_b_with_block_widths_ending_inside_a_fractal_row(soc, base_n, n):
    # A block whose width ends inside a 16-column fractal row of the int32 C (N = 17, 20, 33, 40 with baseN 32 or
    # 64). Split SoCs: the fixpipe writes any width, C as ND. ascend310p: C declared ND_ALIGN, whole fractal rows
    # written (the padding columns garbage, in the row stride's slack), through the emulator's write-order path,
    # which must read a transposed B as [N, K] too. Same values as for B stored [K, N].
    rng = np.random.default_rng(n * 100 + base_n)
    m, k = 10, 96
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    bt = rng.integers(-128, 128, (n, k)).astype(np.int8)
    want = _reference(a, bt.T)
    align = soc == P
    ldc = (n + 15) // 16 * 16 if align else n
    kw = dict(local_workspace=align, base_n=base_n, c_align=align)
    got = _demo(soc, a, bt, m, n, k, k, k, ldc, b_trans=True, **kw)[:, :n]
    np.testing.assert_array_equal(got, want)
    b = np.ascontiguousarray(bt.T)
    got = _demo(soc, a, b, m, n, k, k, n, ldc, **kw)[:, :n]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n, base_n", [(17, 32), (20, 64), (40, 64), (33, 64)])
def test_310p_nd_c_block_widths_the_tail_copy_gets_wrong_are_refused(n, base_n):
    # ascend310p, C declared ND: a block wider than 8 int32 columns whose width is not whole 16-column fractal rows
    # takes the API's register-move tail copy, which fills the row's last 8 columns from the wrong fractal row for a
    # 4-byte C: refused, with ND_ALIGN named as the way out.
    rng = np.random.default_rng(n + base_n)
    m, k = 10, 96
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    with pytest.raises(EmulatorError, match="register-move tail copy.*ND_ALIGN"):
        _demo(P, a, b, m, n, k, k, n, (n + 7) // 8 * 8, local_workspace=True, base_n=base_n)


@pytest.mark.parametrize("n, ldc", [(20, 24), (32, 40), (16, 24)])
def test_310p_nd_align_c_needs_whole_fractal_rows_of_row_stride(n, ldc):
    # ND_ALIGN: the API writes rows at the 16-aligned stride but places blocks by orgKc, so a stride that is not
    # whole fractal rows is refused, also when every block's width is (N = 32, 16).
    rng = np.random.default_rng(n)
    m, k = 10, 96
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    with pytest.raises(EmulatorError, match=f"ND_ALIGN.*orgKc {ldc} is not a multiple of 16"):
        _demo(P, a, b, m, n, k, k, n, ldc, local_workspace=True, base_n=32, c_align=True)


def _loads(*args, **kw):
    return [tuple(x) for x in _native.qmm_matmul_l1_loads(*args, **kw)]


def test_l1_loads_without_cache_reload_every_block():
    # 2 x 2 blocks of 16 x 16, K = 96 in 3 steps of 32, depth 2 (no K full load): every block loads its 3 A tiles
    # (16 x 32 bytes) and 3 B tiles (32 x 16).
    assert _loads(32, 32, 96, 16, 16, 32) == [(1536, 1536, 3, 3)] * 4


def test_l1_loads_k_full_load_keeps_a_over_the_n_blocks_of_its_n_step():
    # ORDER_M, one N step of 3 blocks: A (depth 3 = kIter) is kept over the step's N blocks of its M block, B
    # (depth 2 < kIter x stepN) is not kept. With stepN 1 the scheduler empties A's cache after every block.
    got = _loads(32, 48, 96, 16, 16, 32, 1, 3, 3, 2)
    a_first = [(1536, 1536, 3, 3)] + [(0, 1536, 0, 3)] * 2
    assert got == a_first * 2
    assert _loads(32, 48, 96, 16, 16, 32, 1, 1, 3, 2) == [(1536, 1536, 3, 3)] * 6


def test_l1_loads_one_n_step_keeps_b_over_the_m_blocks():
    # ORDER_M with one N step of 3 blocks and B's depth 9 = kIter x stepN: B is loaded once, over all M blocks;
    # A (depth 3) once per M block.
    got = _loads(48, 48, 96, 16, 16, 32, 1, 3, 3, 9)
    assert sum(x[1] for x in got) == 96 * 48 and sum(x[0] for x in got) == 48 * 96
    assert got[3:] == [(1536, 0, 3, 0)] + [(0, 0, 0, 0)] * 2 + [(1536, 0, 3, 0)] + [(0, 0, 0, 0)] * 2


def test_l1_loads_order_n_keeps_a_over_the_n_blocks():
    # ORDER_N: A (depth = kIter x stepM) kept over every N block of its M step, B reloaded per block.
    got = _loads(32, 48, 96, 16, 16, 32, 1, 1, 3, 2, True)
    assert sum(x[0] for x in got) == 32 * 96 and sum(x[1] for x in got) == 2 * 96 * 48


def test_l1_loads_partial_cache_keeps_the_first_k_tiles():
    # depth 4 < kIter 5: 2 tiles cache (depth - 2), 2 stream; the next N block of the same M block reloads 3 of 5.
    got = _loads(16, 32, 160, 16, 16, 32, 1, 2, 4, 2)
    assert [x[2] for x in got] == [5, 3]


@pytest.mark.parametrize("soc", SPLIT)
def test_asynchronous_iterate_waits_per_block_then_for_the_end(soc):
    # 20 blocks: the client waits for each of the first 13 blocks, then (at the 14th fetch) for the end of the
    # computation, then not at all: 14 requests to the cube, 14 waits, the last request holding blocks 13..19.
    rng = np.random.default_rng(9)
    m, n, k = 16, 320, 64
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    out = np.frombuffer(_native.qmm_matmul_blocks_demo(soc, a.tobytes(), b.tobytes(), m, n, k, 16, 16, form="async"),
                        np.int32)
    ref = _reference(a, b)
    for i in range(20):
        np.testing.assert_array_equal(out[i * 256:(i + 1) * 256].reshape(16, 16), ref[:, i * 16:(i + 1) * 16])
    trace = _native.emulator_last_run_trace()
    vec = [e for e in trace["cores"][0]["events"]]
    requests = [e for e in vec if e["kind"] == "cube_request"]
    waits = [e for e in vec if e["kind"] == "cube_wait"]
    assert len(requests) == 14 and len(waits) == 14
    cube = [c for c in trace["cores"] if c["is_cube"]][0]["events"]
    macs = {}
    for e in cube:
        if e.get("cls") == "cube_mmad":
            macs[e["handle"]] = macs.get(e["handle"], 0) + e["count"]
    per_request = [macs[r["handle"]] for r in requests]
    assert per_request == [16 * 16 * 64] * 13 + [7 * 16 * 16 * 64]


@pytest.mark.parametrize("soc", ALL)
def test_cube_work_is_recorded_in_whole_fractals(soc):
    # M = 1: the cube computes 16 rows (and N = 20 -> 32 columns, K = 40 -> 64 int8 bytes per fractal row).
    a = np.ones((1, 40), np.int8)
    b = np.ones((40, 20), np.int8)
    c = _demo(soc, a, b, 1, 20, 40, 40, 20, 24, local_workspace=soc == P)
    assert (c[:, :20] == 40).all()
    trace = _native.emulator_last_run_trace()
    cube = [c for c in trace["cores"] if c["is_cube"]][0]["events"]
    assert sum(e["count"] for e in cube if e.get("cls") == "cube_mmad") == 16 * 32 * 64
