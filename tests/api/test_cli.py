"""`python -m ascend_quant_ops info | demo`: the demo prints the spec results."""
import json
import subprocess
import sys

import numpy as np

from ascend_quant_ops import cli, examples as ex


def test_demo_prints_both_spec_results(capsys):
    assert cli.main(["demo", "--backend", "cpu"]) == 0
    out = capsys.readouterr().out
    assert np.array2string(ex.SEED_004_Y, separator=", ") in out
    assert np.array2string(ex.ONNX_2D_UINT8_Y, separator=", ") in out
    assert out.count("y matches the spec: True") == 2


def test_info_json(capsys):
    assert cli.main(["info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["backends"]["cpu"]["usable"] is True
    names = set(info["socs"])
    assert {"ascend910b", "ascend310p", "ascend910_95"} <= names


def test_module_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "ascend_quant_ops", "info"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert "backends:" in out.stdout


def test_cli_reports_constraint_errors_cleanly(capsys):
    assert cli.main(["demo", "--soc", "ascend999"]) == 2
    assert "ascend999" in capsys.readouterr().err
