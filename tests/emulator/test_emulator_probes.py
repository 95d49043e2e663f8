"""The emulator's API probes (op_kernel/emulator/probes/*.cpp) compile against the emulator. `./build.sh check`
type-checks the same files against the CANN headers (where a toolkit is installed), so a call written as the device
API takes it is one the emulator takes too, with the same types."""
from __future__ import annotations

import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CXX = shutil.which("c++") or shutil.which("g++")
PROBES = sorted((ROOT / "op_kernel" / "emulator" / "probes").glob("*.cpp"))


def _kernel_options() -> list[str]:
    m = re.search(r"set\(AQO_KERNEL_COMPILE_OPTIONS ([^)]*)\)", (ROOT / "CMakeLists.txt").read_text(encoding="utf-8"))
    assert m, "CMakeLists.txt sets AQO_KERNEL_COMPILE_OPTIONS"
    return m.group(1).split()


def test_there_are_probes():
    assert PROBES


@pytest.mark.skipif(CXX is None, reason="no C++ compiler (the package build needs one)")
@pytest.mark.parametrize("probe", PROBES, ids=[p.stem for p in PROBES])
def test_a_probe_compiles_against_the_emulator(probe):
    text = probe.read_text(encoding="utf-8")
    assert re.search(r"^// check-socs: \S", text, re.MULTILINE), "a probe names the SoCs its calls are for"
    r = subprocess.run([CXX, "-std=c++17", "-fsyntax-only", *_kernel_options(),
                        f"-I{ROOT / 'op_kernel/emulator/include'}", f"-I{ROOT / 'op_kernel'}", str(probe)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
