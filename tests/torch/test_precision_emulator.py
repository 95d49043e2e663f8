"""scripts/precision_test.py --backend emulator: every case of the suite, on every SoC, runs on the emulated
kernels and meets the Ascend criteria (refusal cases are refused), and the report is written."""
import json
import os
import subprocess
import sys

SCRIPT = ["-m", "ascend_quant_ops", "precision"]


def run_script(*args):
    env = dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    return subprocess.run([sys.executable, *SCRIPT, *args], capture_output=True, text=True, timeout=300, env=env)


def test_script_emulator_full_suite(tmp_path):
    from ascend_quant_ops import precision

    r = run_script("--backend", "emulator", "--out", str(tmp_path), "-q")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    data = json.loads((tmp_path / "precision_emulator.json").read_text())
    cases = precision.all_cases()
    assert data["summary"]["total"] == len(cases) == data["summary"]["pass"]
    assert {res["soc"] for res in data["results"]} == {"ascend910b", "ascend310p", "ascend910_95"}
    html = (tmp_path / "precision_emulator.html").read_text()
    assert "dynamic_quant-ascend310p-fp16-s8-3x4096-smooth" in html and html.count("<svg") > len(cases)


def test_random_cases_are_reproducible_and_cover_the_table():
    from ascend_quant_ops import precision, tiling

    a = precision.random_cases(300, seed=5)
    b = precision.random_cases(300, seed=5)
    assert [c.to_dict() for c in a] == [c.to_dict() for c in b]
    assert len({c.id for c in a}) == 300 and all(c.kind == "compare" and c.id.endswith(f"-r5.{i}")
                                                 for i, c in enumerate(a))
    assert [c.id for c in precision.random_cases(20, seed=6)] != [c.id for c in a[:20]]
    table = tiling.soc_table()
    assert {c.soc for c in a} == set(table)
    for c in a:
        spec = table[c.soc]
        if c.op == "dynamic_quant":
            dq = spec["dynamic_quant"]
            assert c.params["x_dtype"] in dq["x_dtypes"]
            types = dq["asymmetric_dst_types"] if c.params["asymmetric"] else dq["dst_types"]
            assert c.params["dst_type"] in types
            assert c.params["shape"][-1] % dq["tail_multiple"] == 0
        else:
            assert c.params["a_dtype"] in spec["qlinear_matmul"]["a_dtypes"]
    dq = [c for c in a if c.op == "dynamic_quant"]
    assert any(c.params["asymmetric"] for c in dq) and any(c.params["smooth"] for c in dq)
    # many rows a core: more than three scale gatherings (64 rows each) on some core
    cores = {s: table[s]["dynamic_quant_cores"] for s in table}
    assert any(c.params["shape"][0] > 3 * 64 * cores[c.soc] for c in dq)
    qmm = [c for c in a if c.op == "qlinear_matmul"]
    assert any(c.params["b_shape"][-1] % 16 not in (0,) and c.soc == "ascend310p" for c in qmm)
    assert precision.random_cases(10, seed=5, socs=["ascend310p"], ops=["qlinear_matmul"])[0].soc == "ascend310p"


def test_script_emulator_random_cases(tmp_path):
    # A sample of the random cases on the emulated kernels, through the command users run.
    r = run_script("--backend", "emulator", "--random", "24", "--seed", "1", "--only-random", "--out", str(tmp_path),
                   "-q")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    data = json.loads((tmp_path / "precision_emulator.json").read_text())
    assert data["summary"]["total"] == 24 == data["summary"]["pass"]
    r = run_script("--backend", "emulator", "--only-random", "--out", str(tmp_path))
    assert r.returncode == 2 and "--only-random needs --random N" in r.stderr
