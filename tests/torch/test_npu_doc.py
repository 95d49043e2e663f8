"""docs/npu.md: every command it shows is exercised here as far as a machine without an NPU allows. The PyTorch
example runs as written (on CPU); the `aqo precision` commands run (with --list or a small selection;
--backend npu must refuse with the reason); build.sh's documented options exist; the extension loader and the
package's info command say why the NPU is not usable."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ascend_quant_ops

PACKAGE_PARENT = str(Path(ascend_quant_ops.__file__).resolve().parents[1])  # the package under test
ROOT = Path(__file__).resolve().parents[2]
# The documented emulator command with a case selection (-k) runs for real; whole-list commands are parsed here
# (--list) and run in full by test_precision_suite (cpu) and test_precision_emulator (emulator).
RUN_EMULATOR_COMMANDS = True
DOC = (ROOT / "docs" / "npu.md").read_text()


def blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", DOC, flags=re.S)


def commands():
    out = []
    for block in blocks("bash"):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line:
                out.append(line)
    return out


def run(cmd, **kw):
    env = dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0",
               PYTHONPATH=os.pathsep.join([PACKAGE_PARENT, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300, **kw)


def test_pytorch_example_runs_on_cpu():
    (code,) = blocks("python")
    r = run([sys.executable, "-c", code])
    assert r.returncode == 0, r.stderr[-4000:]


def test_every_shell_command_is_known():
    known = {
        "source /usr/local/Ascend/ascend-toolkit/set_env.sh": "device only (CANN)",
        "./build.sh --cann": "device only (CANN); options checked below",
        "bash build_out/custom_opp_*.run": "device only (CANN)",
        "bash build_out/custom_opp_*.run --install-path=$HOME/aqo_opp": "device only (CANN)",
        "export ASCEND_CUSTOM_OPP_PATH=$HOME/aqo_opp/vendors/aqo:$ASCEND_CUSTOM_OPP_PATH": "test_npu_status",
        "python -m pip install torch==2.13.0 torch-npu==2.13.0": "device only (torch_npu breaks torch here)",
        "python -m pip install .": "the README's install command",
        "python scripts/check_npu_extension.py --jit --schema": "test_npu_extension (--jit, --schema-only)",
        "python -m pytest -m npu tests/npu -rs": "tests/npu, collected and skipped here",
    }
    for cmd in commands():
        if cmd.startswith("aqo precision") or cmd.startswith("python -c") \
                or cmd.startswith("python -m ascend_quant_ops"):
            continue  # run below
        assert cmd in known, f"docs/npu.md shows a command no test accounts for: {cmd}"


def test_build_sh_documents_the_options_used():
    r = run(["bash", "build.sh", "--help"])
    assert r.returncode == 0
    assert "--cann" in r.stdout and "--compute-units" in r.stdout and "custom_opp_" in r.stdout


@pytest.mark.parametrize("cmd", [c for c in commands() if c.startswith("aqo precision")])
def test_precision_commands(cmd, tmp_path):
    argv = ["-m", "ascend_quant_ops", *cmd.split()[1:]]  # `aqo` is the console script of `python -m ascend_quant_ops`
    if "--out" in argv:
        argv[argv.index("--out") + 1] = str(tmp_path)
    if "--backend" in argv and argv[argv.index("--backend") + 1] == "npu":
        r = run([sys.executable, *argv])
        assert r.returncode == 2 and "not usable here" in r.stderr
        return
    if "--list" not in argv and ("-k" not in argv or RUN_EMULATOR_COMMANDS is False and "emulator" in argv):
        argv.append("--list")  # full runs: test_precision_suite (cpu) and test_precision_emulator (emulator)
    r = run([sys.executable, *argv])
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    listed = [line for line in r.stdout.splitlines() if "\t" in line]
    if "--list" in argv:
        assert listed and all(line.split("\t")[1] in ("compare", "refuse") for line in listed)
    else:
        assert (tmp_path / "precision_emulator.html").is_file() or (tmp_path / "precision_cpu.html").is_file()


def test_info_commands_say_why_npu_is_unusable():
    for cmd in [c for c in commands() if c.startswith("python -c") or c.startswith("python -m ascend_quant_ops")]:
        parts = cmd.split(" ", 2)
        argv = [sys.executable, parts[1], parts[2].strip('"')] if parts[1] == "-c" else [sys.executable,
                                                                                         *cmd.split()[1:]]
        r = run(argv)
        text = r.stdout + r.stderr
        if "load_extension" in cmd:  # raises here: torch_npu is not installed
            assert r.returncode != 0 and "BackendUnavailableError" in text and "torch_npu is not installed" in text
        else:
            assert r.returncode == 0, text[-2000:]
            assert "torch_npu is not installed" in text
