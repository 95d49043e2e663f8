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
