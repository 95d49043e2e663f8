"""The invariant checker the sweep and the invariant tests rely on must catch broken plans: a hand-made valid
explanation passes, and each hand-broken variant is reported with the right problem."""
import copy

import pytest

from ascend_quant_ops.tiling import verify_explanation, verify_violation

SPEC_PAD = {"ub_align_bytes": 32, "copy_block_bytes": 32, "has_data_copy_pad": True}
SPEC_NOPAD = {"ub_align_bytes": 32, "copy_block_bytes": 32, "has_data_copy_pad": False}


def valid():
    """10 rows of 64 float16 on 3 cores (4/3/3 rows); y int8, scale float32."""
    rows = [(0, 0, 4), (1, 4, 7), (2, 7, 10)]
    gm = []
    for c, b, e in rows:
        gm.append({"tensor": "x", "core": c, "begin": b * 128, "end": e * 128, "write": False})
        gm.append({"tensor": "y", "core": c, "begin": b * 64, "end": e * 64, "write": True})
        gm.append({"tensor": "scale", "core": c, "begin": b * 4, "end": e * 4, "write": True})
    return {
        "soc": "ascend910b", "mode": "single_pass", "core_capacity": 48, "used_cores": 3, "ub_capacity": 196608,
        "work_unit": "row", "total_work": 10, "balance_unit": 1,
        "work": [{"core": c, "begin": b, "end": e} for c, b, e in rows],
        "ub": [{"name": "x_in", "offset": 0, "bytes": 512, "slots": 2},
               {"name": "work_f32", "offset": 1024, "bytes": 1024, "slots": 1},
               {"name": "y_out", "offset": 2048, "bytes": 256, "slots": 2}],
        "gm": gm,
        "tensors": [{"name": "x", "bytes": 1280, "output": False}, {"name": "y", "bytes": 640, "output": True},
                    {"name": "scale", "bytes": 40, "output": True}],
        "passes": 1, "notes": [],
    }


def check(e, **kw):
    kw.setdefault("soc_spec_", SPEC_PAD)
    return verify_explanation(e, **kw)


def test_valid_explanation_passes():
    assert check(valid(), expected_work=10, expected_tensors={"x": 1280, "y": 640, "scale": 40}, core_limit=48,
                 ub_limit=196608) == []


def test_empty_work_passes():
    e = valid()
    e.update(total_work=0, used_cores=0, work=[], gm=[], tensors=[{"name": "y", "bytes": 0, "output": True}])
    assert check(e) == []


def broken(mutate):
    e = copy.deepcopy(valid())
    mutate(e)
    return e


CASES = [
    # (what is broken, mutation, words the problem must contain)
    ("row covered twice", lambda e: e["work"][1].update(begin=3), "covered twice"),
    ("row covered by no core", lambda e: e["work"][1].update(begin=5), "covered by no core"),
    ("last rows missing", lambda e: e["work"][2].update(end=9), "covered by no core"),
    ("work past total", lambda e: e["work"][2].update(end=11), "past total_work"),
    ("reversed work range", lambda e: e["work"][2].update(begin=10, end=7), "reversed"),
    ("work on an unlaunched core", lambda e: e["work"][2].update(core=3), ">= used_cores"),
    ("more cores than capacity", lambda e: e.update(used_cores=49, core_capacity=48), "> core_capacity"),
    ("idle launched core", lambda e: e.update(used_cores=4), "no work"),
    ("imbalance", lambda e: (e["work"][0].update(end=6), e["work"][1].update(begin=6, end=8),
                             e["work"][2].update(begin=8)), "imbalance"),
    ("unaligned UB offset", lambda e: e["ub"][1].update(offset=1040), "not 32-byte aligned"),
    ("unaligned UB size", lambda e: e["ub"][1].update(bytes=1000), "not a multiple of 32"),
    ("overlapping UB buffers", lambda e: e["ub"][1].update(offset=992), "overlap"),
    ("double-buffer slot overlapping", lambda e: e["ub"][0].update(bytes=544), "overlap"),
    ("UB past capacity", lambda e: e["ub"][2].update(offset=196608 - 256), "past ub_capacity"),
    ("zero slots", lambda e: e["ub"][2].update(slots=0), "0 slots"),
    ("duplicate buffer name", lambda e: e["ub"][2].update(name="x_in"), "used twice"),
    ("zero-size buffer", lambda e: e["ub"][2].update(bytes=0), "size 0"),
    ("GM read past the tensor", lambda e: e["gm"][6].update(end=1312), "ends past the tensor"),
    ("scale written past the end (310p bug)", lambda e: e["gm"][8].update(end=48), "ends past the tensor"),
    ("GM on an undeclared tensor", lambda e: e["gm"][0].update(tensor="offset"), "undeclared tensor"),
    ("output bytes never written", lambda e: e["gm"][4].update(end=400), "written by no core"),
    ("output tail never written", lambda e: e["gm"][7].update(end=600), "written by no core"),
    ("two cores write the same bytes", lambda e: e["gm"][4].update(begin=200), "written by core"),
    ("reversed GM range", lambda e: e["gm"][0].update(begin=600, end=100), "reversed"),
    ("GM by an unlaunched core", lambda e: e["gm"][0].update(core=5), ">= used_cores"),
    ("passes 0", lambda e: e.update(passes=0), "passes"),
    ("empty mode", lambda e: e.update(mode=""), "mode is empty"),
]


@pytest.mark.parametrize("what, mutate, words", CASES, ids=[c[0] for c in CASES])
def test_broken_explanation_is_caught(what, mutate, words):
    problems = check(broken(mutate))
    assert problems, f"{what}: not caught"
    assert any(words in p for p in problems), f"{what}: {problems}"


def test_expectations_are_checked():
    assert any("expected 11" in p for p in check(valid(), expected_work=11))
    assert any("the request gives 2560" in p for p in check(valid(), expected_tensors={"x": 2560}))
    assert any("not declared" in p for p in check(valid(), expected_tensors={"offset": 40}))
    assert any("> the SoC's 40 cores" in p for p in check(valid(), core_limit=40))
    assert any("> the SoC's UB" in p for p in check(valid(), ub_limit=65536))


def test_no_datacopypad_write_blocks():
    # 310p: the scale writes are 16 / 12 / 12 bytes: not whole 32-byte blocks.
    problems = check(valid(), soc_spec_=SPEC_NOPAD)
    assert any("not a whole number of 32-byte blocks" in p for p in problems)
    assert check(valid(), soc_spec_=SPEC_PAD) == []


def nopad_valid():
    """310p style: scales stored per 8 rows (32 B); 10 rows on 2 cores (8 + 2), the last 2 rows' 8 bytes of scale
    stored by scalar writes; y rows of 64 B."""
    e = valid()
    e.update(used_cores=2, balance_unit=8, work=[{"core": 0, "begin": 0, "end": 8}, {"core": 1, "begin": 8,
                                                                                     "end": 10}])
    e["gm"] = [
        {"tensor": "x", "core": 0, "begin": 0, "end": 1024, "write": False},
        {"tensor": "x", "core": 1, "begin": 1024, "end": 1280, "write": False},
        {"tensor": "y", "core": 0, "begin": 0, "end": 512, "write": True},
        {"tensor": "y", "core": 1, "begin": 512, "end": 640, "write": True},
        {"tensor": "scale", "core": 0, "begin": 0, "end": 32, "write": True},
        {"tensor": "scale", "core": 1, "begin": 32, "end": 40, "write": True},
    ]
    return e


def test_no_datacopypad_scalar_tail():
    e = nopad_valid()
    assert check(e, soc_spec_=SPEC_NOPAD) == []  # implied scalar tail: the range ends at the tensor's end
    e["gm"][5]["scalar_bytes"] = 8
    assert check(e, soc_spec_=SPEC_NOPAD) == []
    e["gm"][5]["scalar_bytes"] = 4  # 4 DMA bytes: not a whole block
    assert any("not a whole number" in p for p in check(e, soc_spec_=SPEC_NOPAD))
    e = nopad_valid()
    e["gm"][4]["end"] = 36  # a partial block in the middle of the tensor, by DMA
    e["gm"][5]["begin"] = 36
    assert any("scale' by core 0" in p for p in check(e, soc_spec_=SPEC_NOPAD))


def test_no_datacopypad_rewritten_last_block():
    # 310p DynamicQuant: 20 rows on 2 cores (10 + 10); each core's 40 bytes of scales go as the block [0, 32) and
    # the block ending at its last row, which writes 24 of its bytes a second time.
    e = nopad_valid()
    e["total_work"] = 20
    e["work"] = [{"core": 0, "begin": 0, "end": 10}, {"core": 1, "begin": 10, "end": 20}]
    e["tensors"] = [t if t["name"] != "scale" else dict(t, bytes=80) for t in e["tensors"]]
    for g in e["gm"]:
        if g["tensor"] == "scale":
            g.update(begin=g["core"] * 40, end=g["core"] * 40 + 40, rewrite_bytes=24)
    problems = [p for p in check(e, soc_spec_=SPEC_NOPAD) if "'scale'" in p and "DMA bytes" in p]
    assert problems == []
    for bad in (20, 32, 0):  # DMA not whole blocks; a whole block "rewritten"; an undeclared partial block
        e["gm"][4]["rewrite_bytes"] = bad
        assert any("scale' by core 0" in p for p in check(e, soc_spec_=SPEC_NOPAD)), bad
    e["gm"][4].update(end=24, rewrite_bytes=8)  # 24 bytes cannot hold a whole block: a rewrite needs >= 32
    assert any("scale' by core 0" in p for p in check(e, soc_spec_=SPEC_NOPAD))


def test_same_core_rewrite_is_not_a_race():
    # A core may rewrite its own bytes (a back-shifted last block on 310p); only cross-core overlap is a race.
    e = valid()
    e["gm"].append({"tensor": "y", "core": 2, "begin": 600, "end": 640, "write": True})
    assert check(e) == []


def test_violation_completeness():
    good = {"op": "dynamic_quant", "argument": "x", "soc": "ascend910b", "constraint": "c", "limit": "<= 1",
            "actual": "2", "suggestion": "s", "is_dtype": False}
    assert verify_violation(good, op="dynamic_quant", soc="ascend910b") == []
    for field in ("op", "argument", "constraint", "limit", "actual", "suggestion"):
        bad = dict(good, **{field: ""})
        assert any(field in p for p in verify_violation(bad)), field
    assert verify_violation(dict(good, soc="ascend310p"), soc="ascend910b")
    assert verify_violation(dict(good, op="qlinear_matmul"), op="dynamic_quant")
    assert verify_violation(dict(good, is_dtype=1))


def strided_valid():
    """A 4 x 64-byte y written as columns: core 0 writes bytes [0, 40) of every row, core 1 bytes [40, 64), each as
    one range repeated every row (the summarised form of a QLinearMatMul core's row segments)."""
    e = valid()
    e.update(used_cores=2, total_work=2, work=[{"core": 0, "begin": 0, "end": 1}, {"core": 1, "begin": 1, "end": 2}])
    e["tensors"] = [{"name": "y", "bytes": 256, "output": True}]
    e["gm"] = [{"tensor": "y", "core": 0, "begin": 0, "end": 40, "stride": 64, "count": 4, "write": True},
               {"tensor": "y", "core": 1, "begin": 40, "end": 64, "stride": 64, "count": 4, "write": True}]
    return e


def test_strided_ranges():
    assert check(strided_valid()) == []
    cases = [
        ("a row's columns missing", lambda e: e["gm"][1].update(begin=44), "written by no core"),
        ("last rows missing", lambda e: e["gm"][1].update(count=3), "written by no core"),
        ("last repetition past the end", lambda e: e["gm"][1].update(count=5), "ends past the tensor"),
        ("repetitions overlap", lambda e: e["gm"][0].update(stride=32), "overlap"),
        ("two cores on the same columns", lambda e: e["gm"][1].update(begin=36), "written by core"),
        ("no repetition", lambda e: e["gm"][0].update(count=0), "0 repetitions"),
    ]
    for what, mutate, words in cases:
        e = strided_valid()
        mutate(e)
        problems = check(e)
        assert any(words in p for p in problems), (what, problems)
    # Whole rows repeated every row (stride == length) are one contiguous interval.
    e = strided_valid()
    e["gm"] = [{"tensor": "y", "core": 0, "begin": 0, "end": 64, "stride": 64, "count": 2, "write": True},
               {"tensor": "y", "core": 1, "begin": 128, "end": 192, "stride": 64, "count": 2, "write": True}]
    assert check(e) == []


def test_strided_no_datacopypad_blocks_per_repetition():
    # 310p y rows of 40 bytes written as a block and the block ending at the row's end: 24 bytes rewritten per row.
    e = strided_valid()
    e["tensors"] = [{"name": "y", "bytes": 160, "output": True}]
    e["gm"] = [{"tensor": "y", "core": 0, "begin": 0, "end": 40, "stride": 40, "count": 2, "write": True,
                "rewrite_bytes": 24},
               {"tensor": "y", "core": 1, "begin": 80, "end": 120, "stride": 40, "count": 2, "write": True,
                "rewrite_bytes": 24}]
    assert check(e, soc_spec_=SPEC_NOPAD) == []
    e["gm"][1]["rewrite_bytes"] = 0
    assert any("not a whole number" in p for p in check(e, soc_spec_=SPEC_NOPAD))
