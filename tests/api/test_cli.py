"""`python -m ascend_quant_ops info | demo`: the demo prints the spec results."""
import json
import subprocess
import sys

import numpy as np
import pytest

from ascend_quant_ops import cli, examples as ex


def test_demo_prints_both_spec_results(capsys):
    assert cli.main(["demo", "--backend", "cpu"]) == 0
    out = capsys.readouterr().out
    assert np.array2string(ex.SEED_004_Y, separator=", ") in out
    assert np.array2string(ex.ONNX_2D_UINT8_Y, separator=", ") in out
    assert out.count("y matches the spec: True") == 2


@pytest.mark.parametrize("soc", ["ascend910b", "ascend310p", "ascend910_95"])
def test_demo_on_every_soc_with_the_emulator(capsys, soc):
    # ascend310p needs a tail that is a multiple of 32: the demo pads the example with zeros and still shows it
    assert cli.main(["demo", "--backend", "emulator", "--soc", soc]) == 0
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


def _declared_console_scripts():
    """[project.scripts] of pyproject.toml (read as text: tomllib needs Python >= 3.11)."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    section = text.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    return dict(re.findall(r'^\s*([\w-]+)\s*=\s*"([^"]+)"', section, re.M))


def test_console_script_aqo():
    import importlib
    import importlib.metadata
    import os
    import shutil

    target = _declared_console_scripts()["aqo"]
    module, func = target.split(":")
    assert getattr(importlib.import_module(module), func) is cli.main
    try:
        importlib.metadata.distribution("ascend-quant-ops")
    except importlib.metadata.PackageNotFoundError:
        return  # a developer build that was never pip-installed has no console script; the declaration is checked
    exe = shutil.which("aqo")
    assert exe, "ascend-quant-ops is installed but its console script aqo is not on PATH"
    env = dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    out = subprocess.run([exe, "demo", "--backend", "cpu"], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("y matches the spec: True") == 2
