"""Plan objects from Python (to_dict, text, tiling, explanation), the SoC table's numbers reaching the plans,
core / UB overrides, and `aqo plan`."""
import json
import os
import subprocess
import sys

import pytest

from ascend_quant_ops import tiling
from ascend_quant_ops.errors import ConstraintError



@pytest.mark.parametrize("soc, cores, ub", [("ascend910b", 48, 196608), ("ascend910b3", 40, 196608),
                                            ("ascend310p", 8, 262144), ("ascend950", 64, 253952)])
def test_dynamic_quant_plan_uses_the_table(soc, cores, ub):
    p = tiling.plan_dynamic_quant((1000, 1024), "float16", soc=soc)
    e = p.explanation
    assert e["core_capacity"] == cores and e["ub_capacity"] == ub
    assert e["used_cores"] == min(cores, e["used_cores"]) and e["used_cores"] >= 1
    assert tiling.verify_explanation(e, soc_spec_=tiling.soc_spec(soc), expected_work=1000, core_limit=cores,
                                     ub_limit=ub) == []


@pytest.mark.parametrize("soc, cores", [("ascend910b", 24), ("ascend910b4", 20), ("ascend310p", 8),
                                        ("ascend910_95", 32)])
def test_qlinear_matmul_plan_uses_the_table(soc, cores):
    p = tiling.plan_qlinear_matmul((512, 256), (256, 512), soc=soc)
    assert p.explanation["core_capacity"] == cores
    assert p.explanation["used_cores"] <= cores


def test_plan_object_api():
    p = tiling.plan_dynamic_quant((4096, 7168), "bfloat16", soc="ascend910b", smooth=True)
    d = p.to_dict()
    assert set(d) == {"op", "request", "tiling", "explanation"}
    assert d["op"] == "dynamic_quant" and d["request"]["x_dtype"] == "bfloat16" and d["request"]["smooth"]
    json.dumps(d, default=list)  # serialisable
    assert p.tiling == d["tiling"] and all(isinstance(v, (int, float, list)) for v in p.tiling.values())
    assert p.soc == "ascend910b" and p.used_cores == p.explanation["used_cores"]
    text = str(p)
    assert "ascend910b" in text and "UB map" in text and "cores:" in text and "passes" in text
    for b in p.explanation["ub"]:  # every buffer with its offset
        assert any(b["name"] in line and str(b["offset"]) in line for line in text.splitlines())
    for n in p.explanation["notes"]:
        assert n in text
    assert "Plan dynamic_quant" in repr(p)


def test_qlinear_matmul_plan_text():
    p = tiling.plan_qlinear_matmul((4, 128, 256), (256, 512), soc="ascend910b", a_dtype="uint8",
                                   b_param="column")
    text = str(p)
    assert "qlinear_matmul plan on ascend910b" in text and "uint8" in text and "column" in text
    for b in p.explanation["ub"]:
        assert b["name"] in text


def test_core_override():
    p = tiling.plan_dynamic_quant((1000, 1024), "float16", soc="ascend910b", core_num=5)
    e = p.explanation
    assert e["core_capacity"] == 5 and e["used_cores"] == 5
    assert tiling.verify_explanation(e, expected_work=1000, core_limit=5) == []
    p = tiling.plan_qlinear_matmul((512, 256), (256, 512), soc="ascend910b", core_num=3)
    assert p.explanation["core_capacity"] == 3 and p.explanation["used_cores"] <= 3


def test_ub_override():
    p = tiling.plan_dynamic_quant((64, 4096), "float16", soc="ascend910b", ub_size=65536)
    e = p.explanation
    assert e["ub_capacity"] == 65536
    assert tiling.verify_explanation(e, expected_work=64, ub_limit=65536) == []
    # A small UB override gives a plan inside it (rows streamed in chunks), never an overflowing one; below the
    # smallest layout (about 1.2 KiB: one 64-element chunk and the row statistics) the request is refused by name.
    p = tiling.plan_dynamic_quant((64, 26624), "float16", soc="ascend910b", ub_size=2048)
    assert p.explanation["passes"] == 2
    assert tiling.verify_explanation(p.explanation, expected_work=64, ub_limit=2048) == []
    with pytest.raises(ConstraintError, match="smallest DynamicQuant layout does not fit") as info:
        tiling.plan_dynamic_quant((64, 26624), "float16", soc="ascend910b", ub_size=1024)
    assert info.value.limit == "<= 1024 B"


def test_ascend950_ub_ends_below_the_level0_scratch_whatever_the_device_reports():
    # asc-devkit's constants for this architecture: the level-0 forms keep 8 KiB at TMP_UB_OFFSET = 248 KiB, so a
    # device reporting 256 KiB still gives the kernel 248 KiB; smaller values are taken as they are; 910b is not
    # capped (its API scratch is the top 8 KiB of whatever UB it has; the emulator checks each API that uses it)
    assert tiling.soc_spec("ascend950", ub_size=262144)["ub_bytes"] == 248 * 1024
    assert tiling.soc_spec("ascend950", ub_size=131072)["ub_bytes"] == 131072
    assert tiling.soc_spec("ascend910b", ub_size=262144)["ub_bytes"] == 262144
    p = tiling.plan_dynamic_quant((64, 30000), "float16", soc="ascend950", ub_size=262144)
    assert p.explanation["ub_capacity"] == 248 * 1024
    assert tiling.verify_explanation(p.explanation, expected_work=64, ub_limit=248 * 1024) == []


@pytest.mark.parametrize("kw, arg", [({"core_num": 0}, "core_num"), ({"core_num": -4}, "core_num"),
                                     ({"ub_size": 1000}, "ub_size"), ({"ub_size": 2 ** 40}, "ub_size"),
                                     ({"core_num": 10 ** 6}, "core_num")])
def test_bad_overrides(kw, arg):
    for call in (lambda: tiling.plan_dynamic_quant((8, 64), "float16", soc="ascend910b", **kw),
                 lambda: tiling.plan_qlinear_matmul((8, 64), (64, 8), soc="ascend910b", **kw)):
        with pytest.raises(ConstraintError) as ei:
            call()
        assert ei.value.argument == arg


def test_error_fields_are_attributes():
    with pytest.raises(ConstraintError) as ei:
        tiling.plan_dynamic_quant((3, 7553), "bfloat16", soc="ascend910b")
    e = ei.value
    assert (e.op, e.argument, e.soc, e.limit, e.actual) == ("dynamic_quant", "x", "ascend910b", "<= 7552", "7553")
    assert "bfloat16" in e.constraint and "7552" in e.suggestion
    msg = str(e)
    for part in ("dynamic_quant", "'x'", "ascend910b", "7552", "7553"):
        assert part in msg
    d = e.to_dict()
    assert d["limit"] == "<= 7552" and d["soc"] == "ascend910b"


def run_check(*args):
    # the package this test imports (installed, or a developer build), for the script too
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(tiling.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([package_parent, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "ascend_quant_ops", "plan", *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_tiling_check_script():
    r = run_check("--soc", "ascend910b", "--shape", "4096,7168", "--dtype", "bfloat16")
    assert r.returncode == 0, r.stderr
    assert "UB map" in r.stdout and "x_in" in r.stdout
    r = run_check("--soc", "ascend310p", "--shape", "64,4001")
    assert r.returncode == 1 and "REFUSED" in r.stdout and "multiple of 32" in r.stdout
    r = run_check("--soc", "ascend910b", "--shape", "8,7553", "--dtype", "bfloat16", "--json")
    assert r.returncode == 1
    v = json.loads(r.stdout)["violation"]
    assert v["limit"] == "<= 7552" and v["soc"] == "ascend910b"
    r = run_check("--op", "qlinear_matmul", "--soc", "ascend950", "--a-shape", "2,16,32", "--b-shape", "32,8",
                  "--a-dtype", "float8_e4m3fn", "--b-dtype", "float8_e5m2", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["ok"] is True
    r = run_check("--soc", "ascend910b", "--shape", "8,x")
    assert r.returncode == 2
