"""The emulator's verification fixtures (fault and demo kernels) are in their own module, ascend_quant_ops_testing,
which the wheel does not ship. A developer build (scripts/dev_build.sh) puts it in python/, beside the package.
Anywhere else (a pip-installed package, CI) it is built here from this checkout into build/testing-<python tag>/,
configured once and brought up to date at every test session (an incremental build: a no-op when nothing changed,
so fixtures edited since the last run are never tested stale); a file lock keeps parallel test workers from
building it at once.

The conftest of each test folder that uses it (tests/emulator, tests/perf) calls ensure_testing_module(), so that
its test modules simply `import ascend_quant_ops_testing`."""
from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODULE = "ascend_quant_ops_testing"


def _build(build_dir: Path) -> None:
    import fcntl

    build_dir.mkdir(parents=True, exist_ok=True)
    with open(build_dir / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be building it: wait, then find it up to date
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        configure = ["cmake", "-S", str(REPO), "-B", str(build_dir), *generator, "-DCMAKE_BUILD_TYPE=Release",
                     "-DAQO_BUILD_TESTING_MODULE=ON", f"-DPython_EXECUTABLE={sys.executable}"]
        build = ["cmake", "--build", str(build_dir), "--target", MODULE, "-j", str(min(2, os.cpu_count() or 1))]
        steps = [build] if (build_dir / "CMakeCache.txt").exists() else [configure, build]
        for cmd in steps:
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"building {MODULE} failed ({' '.join(cmd)}):\n{r.stdout[-4000:]}\n"
                                   f"{r.stderr[-4000:]}")


def ensure_testing_module() -> None:
    try:
        importlib.import_module(MODULE)
        return
    except ImportError:
        pass
    build_dir = REPO / "build" / f"testing-{sys.implementation.cache_tag}"
    _build(build_dir)
    sys.path.insert(0, str(build_dir))
    importlib.import_module(MODULE)

