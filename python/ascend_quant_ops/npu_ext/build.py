"""How the NPU extension is compiled: one place for the flags, used by the JIT build (npu.load_extension) and by
the header type-check (scripts/check_npu_extension.py), so that what is checked here is what builds on a device.

Needs torch and torch_npu's *files* only (the include directory of an installed or unpacked torch_npu wheel);
nothing here imports torch_npu.
"""
from __future__ import annotations

import os
import re
import sys
import sysconfig
import time
from pathlib import Path
from typing import List, Optional

#: The C++ source of the PrivateUse1 kernels.
SOURCE = Path(__file__).with_name("aqo_npu_ops.cpp")
#: Name of the built library (torch.utils.cpp_extension appends the platform suffix).
LIBRARY_NAME = "aqo_npu_ops"


def current_version_macro(torch_version: str) -> str:
    """op-plugin's CURRENT_VERSION for a torch version: "2.13.0+cpu" -> "V2R13" (op_plugin/utils/Version.h)."""
    m = re.match(r"(\d+)\.(\d+)", torch_version)
    if not m or m.group(1) != "2":
        raise ValueError(f"unsupported torch version {torch_version!r}: op-plugin knows torch 2.x only")
    return f"V2R{int(m.group(2))}"


def torch_npu_include_dirs(torch_npu_root: os.PathLike) -> List[str]:
    """Include directories of a torch_npu package directory (the folder holding torch_npu/__init__.py)."""
    inc = Path(torch_npu_root) / "include"
    dirs = [inc, inc / "third_party" / "op-plugin", inc / "third_party" / "hccl" / "inc",
            inc / "third_party" / "acl" / "inc"]
    return [str(d) for d in dirs if d.is_dir()]


def compile_flags(torch_npu_root: os.PathLike, torch_version: Optional[str] = None) -> List[str]:
    """g++ flags (defines and include directories) for the extension, torch's and torch_npu's headers."""
    import torch
    from torch.utils import cpp_extension

    version = torch_version or torch.__version__
    # torch.utils.cpp_extension compiles with -std=c++20 since torch 2.10; the type-check must do the same.
    flags = ["-std=c++20", f"-DCURRENT_VERSION={current_version_macro(version)}",
             f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}"]
    flags += [f"-I{d}" for d in cpp_extension.include_paths()]
    flags += [f"-I{d}" for d in torch_npu_include_dirs(torch_npu_root)]
    flags.append(f"-I{sysconfig.get_paths()['include']}")
    return flags


#: torch.utils.cpp_extension waits, without end, for the `lock` file a build puts in its build directory; a build
#: that was killed (Ctrl-C, a test timeout) leaves it there, and every later build would hang. The extension builds
#: in a minute or two, so a lock this much older is such a leftover.
STALE_LOCK_SECONDS = 900


def clear_stale_lock(build_dir: os.PathLike, now: Optional[float] = None) -> bool:
    """Remove `build_dir`/lock when it is older than STALE_LOCK_SECONDS (a killed build's); True if removed."""
    lock = Path(build_dir) / "lock"
    try:
        age = (time.time() if now is None else now) - lock.stat().st_mtime
    except FileNotFoundError:
        return False
    if age <= STALE_LOCK_SECONDS:
        return False  # a build may be running now
    lock.unlink(missing_ok=True)
    sys.stderr.write(f"ascend_quant_ops: removed {lock}, left {age / 60:.0f} minutes ago by an interrupted build\n")
    return True


def jit_build(torch_npu_root: os.PathLike, build_dir: os.PathLike, verbose: bool = False) -> str:
    """Compile and load the extension with torch.utils.cpp_extension (needs torch_npu importable, i.e. CANN).

    Loading registers the PrivateUse1 kernels with the dispatcher. Returns the path of the built library.
    """
    import torch
    from torch.utils import cpp_extension

    root = Path(torch_npu_root)
    build_dir = Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    clear_stale_lock(build_dir)
    cpp_extension.load(
        name=LIBRARY_NAME,
        sources=[str(SOURCE)],
        extra_include_paths=torch_npu_include_dirs(root),
        extra_cflags=[f"-DCURRENT_VERSION={current_version_macro(torch.__version__)}"],
        extra_ldflags=[f"-L{root / 'lib'}", "-ltorch_npu", f"-Wl,-rpath,{root / 'lib'}"],
        build_directory=str(build_dir),
        is_python_module=False,
        verbose=verbose,
    )
    built = sorted(build_dir.glob(f"{LIBRARY_NAME}*.so"))
    return str(built[0]) if built else str(build_dir)
