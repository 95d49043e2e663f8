"""The NPU backend: is it usable here, and if not, why; which SoC is it; loading the extension.

Nothing here may break `import torch` or this package: torch_npu without CANN raises on import (docs/references.md#torch-npu), so it
is looked for with importlib.util.find_spec first and imported only inside try/except, and only when status()
or load_extension() is called.

    status() -> (usable, reason)      reason says what is missing and how to fix it ("" when usable)
    detect_soc() -> "ascend910b" | "ascend310p" | "ascend910_95" | None
    load_extension() -> path of the loaded library (registers the PrivateUse1 kernels); BackendUnavailableError

Checks, in order: torch importable; torch_npu installed; torch_npu imports; an NPU device is visible; the custom
operator package (vendor "aqo") is installed where CANN looks for it; the extension is built and loaded.
"""
from __future__ import annotations

import configparser
import importlib
import importlib.util
import os
import threading
from pathlib import Path
from typing import List, Optional, Tuple

from .errors import BackendUnavailableError

#: Vendor name of our custom operator package (build.sh --cann installs it under $ASCEND_OPP_PATH/vendors/aqo).
VENDOR = "aqo"
#: A header op_build generates for our operator: proves a vendor directory holds this package.
ACLNN_HEADER = "aclnn_aqo_dynamic_quant.h"
#: Environment variable naming a prebuilt extension library (skips the JIT build).
EXTENSION_ENV = "AQO_NPU_EXTENSION"

_lock = threading.Lock()
_loaded_extension: Optional[str] = None
def _import_torch():
    """(torch module or None, reason), through the package's one cached torch import (_torch.py): a second
    `import torch` after a failed first one fails differently and can crash the interpreter at exit."""
    from ._torch import import_torch

    torch, reason = import_torch()
    if torch is None and reason == "torch is not installed":
        reason = "torch is not installed (pip install torch, the version matching torch_npu)"
    return torch, reason


def _import_torch_npu():
    """(torch_npu module or None, reason). Never raises."""
    torch, reason = _import_torch()
    if torch is None:
        return None, reason
    try:
        spec = importlib.util.find_spec("torch_npu")
    except Exception as e:  # a broken parent package or finder
        return None, f"torch_npu could not be looked up: {type(e).__name__}: {e}"
    if spec is None:
        return None, (f"torch_npu is not installed (pip install torch-npu=={_base_version(torch.__version__)} on a "
                      "machine with CANN and an Ascend NPU)")
    try:
        torch_npu = importlib.import_module("torch_npu")
    except BaseException as e:  # torch_npu raises RuntimeError / ImportError / even SystemExit without CANN
        if isinstance(e, KeyboardInterrupt):
            raise
        return None, (f"torch_npu is installed but failed to import: {type(e).__name__}: {e}. It needs CANN: "
                      "source <CANN>/set_env.sh (e.g. /usr/local/Ascend/ascend-toolkit/set_env.sh)")
    return torch_npu, ""


def _base_version(v: str) -> str:
    return v.split("+")[0]


def _device_count(torch_npu) -> Tuple[int, str]:
    try:
        n = int(torch_npu.npu.device_count())
    except Exception as e:
        return 0, f"torch_npu could not count NPU devices: {type(e).__name__}: {e}"
    if n <= 0:
        return 0, "no NPU device is visible (torch_npu.npu.device_count() == 0; check the driver and ASCEND_RT_VISIBLE_DEVICES)"
    return n, ""


def vendor_dirs() -> List[Path]:
    """Candidate directories of installed custom operator packages, in CANN's search order.

    ASCEND_CUSTOM_OPP_PATH (colon-separated vendor directories, set by a package installed with --install-path)
    comes first, then the vendors listed by load_priority in $ASCEND_OPP_PATH/vendors/config.ini.
    """
    dirs: List[Path] = []
    for entry in os.environ.get("ASCEND_CUSTOM_OPP_PATH", "").split(":"):
        if entry.strip():
            dirs.append(Path(entry.strip()))
    opp = os.environ.get("ASCEND_OPP_PATH")
    if opp:
        vendors = Path(opp) / "vendors"
        config = vendors / "config.ini"
        if config.is_file():
            parser = configparser.ConfigParser()
            try:
                parser.read_string("[vendors]\n" + config.read_text(errors="replace"))
                priority = parser.get("vendors", "load_priority", fallback="")
            except configparser.Error:
                priority = ""
            dirs += [vendors / v.strip() for v in priority.split(",") if v.strip()]
    return dirs


def _is_our_package(d: Path) -> bool:
    """A vendor directory (<d>/op_api/lib/libcust_opapi.so) or, as ASCEND_CUSTOM_OPP_PATH also allows, an
    op_api/lib directory itself (<d>/libcust_opapi.so), holding our operators' library."""
    if (d / "op_api" / "lib" / "libcust_opapi.so").is_file():
        return (d / "op_api" / "include" / ACLNN_HEADER).is_file() or d.name == VENDOR
    if (d / "libcust_opapi.so").is_file():
        return (d.parent / "include" / ACLNN_HEADER).is_file()
    return False


def find_custom_opp() -> Tuple[Optional[Path], str]:
    """(our vendor directory, "") or (None, reason naming what was searched)."""
    searched = vendor_dirs()
    for d in searched:
        if _is_our_package(d):
            return d, ""
    where = ", ".join(str(d) for d in searched) or "nowhere (ASCEND_CUSTOM_OPP_PATH and ASCEND_OPP_PATH unset)"
    return None, (f"the custom operator package (vendor '{VENDOR}', op_api/lib/libcust_opapi.so with "
                  f"{ACLNN_HEADER}) is not installed: searched {where}. Build it with ./build.sh --cann and run "
                  "the .run it writes to build_out/, then source CANN's set_env.sh")


def canonical_soc_from_device_name(name: Optional[str]) -> Optional[str]:
    """torch_npu.npu.get_device_name() -> our SoC name, or None for a SoC the package is not built for.

    Ascend910B1..B4 -> ascend910b, Ascend310P1..P7 -> ascend310p, Ascend910_95xx / Ascend950xx -> ascend910_95.
    Atlas A3 (Ascend910_93xx) shares 910B's core but is a separate compute unit the package is not built for.
    """
    if not name:
        return None
    n = name.strip().lower().replace("-", "_")
    if n.startswith("ascend910b"):
        return "ascend910b"
    if n.startswith("ascend310p"):
        return "ascend310p"
    if n.startswith("ascend910_95") or n.startswith("ascend950"):
        return "ascend910_95"
    return None


def detect_soc() -> Optional[str]:
    """The SoC of NPU 0 (canonical name), or None when there is no usable NPU or its SoC is not supported."""
    torch_npu, _ = _import_torch_npu()
    if torch_npu is None or _device_count(torch_npu)[0] == 0:
        return None
    try:
        return canonical_soc_from_device_name(torch_npu.npu.get_device_name(0))
    except Exception:
        return None


def _extension_build_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ascend-quant-ops" / "npu_ext"


def load_extension(verbose: bool = False) -> str:
    """Load the NPU extension (registering its PrivateUse1 kernels) and return its path.

    Uses the library named by $AQO_NPU_EXTENSION if set, else a prebuilt aqo_npu_ops*.so next to npu_ext/, else
    JIT-builds it (once, into ~/.cache/ascend-quant-ops/npu_ext). Raises BackendUnavailableError("npu", reason)
    when torch_npu is unusable or the build / load fails.
    """
    global _loaded_extension
    with _lock:
        if _loaded_extension is not None:
            return _loaded_extension
        torch_npu, reason = _import_torch_npu()
        if torch_npu is None:
            raise BackendUnavailableError("npu", reason)
        import torch

        from . import torch_ops  # noqa: F401  (defines the schemas the extension adds kernels to)
        from .npu_ext import build

        prebuilt = os.environ.get(EXTENSION_ENV)
        candidates = [Path(prebuilt)] if prebuilt else sorted(Path(build.__file__).parent.glob(
            f"{build.LIBRARY_NAME}*.so"))
        try:
            if candidates:
                path = str(candidates[0])
                if not candidates[0].is_file():
                    raise FileNotFoundError(f"{EXTENSION_ENV}={path} does not exist")
                torch.ops.load_library(path)
            else:
                path = build.jit_build(Path(torch_npu.__file__).parent, _extension_build_dir(), verbose=verbose)
        except Exception as e:
            raise BackendUnavailableError(
                "npu", f"the NPU extension could not be built or loaded: {type(e).__name__}: {e}"
                       f"{_loader_reason(e)}") from e
        _loaded_extension = path
        return path


def _loader_reason(error: Exception) -> str:
    """torch's "Could not load this library: PATH" hides the dynamic loader's reason (usually a CANN library that
    is not on LD_LIBRARY_PATH): ask the loader again for it."""
    m = str(error)
    prefix = "Could not load this library: "
    if not isinstance(error, OSError) or prefix not in m:
        return ""
    path = m.split(prefix, 1)[1].strip()
    try:
        import ctypes

        ctypes.CDLL(path)
    except OSError as again:
        return f" (dynamic loader: {again}; source CANN's set_env.sh so that its libraries are found)"
    return ""


def status(load: bool = True) -> Tuple[bool, str]:
    """(True, "") when the npu backend can run here, else (False, the first missing piece and how to fix it).

    With load=False the extension is not built / loaded (a cheap check for listing backends).
    """
    torch_npu, reason = _import_torch_npu()
    if torch_npu is None:
        return False, reason
    n, reason = _device_count(torch_npu)
    if n == 0:
        return False, reason
    _, reason = find_custom_opp()
    if reason:
        return False, reason
    if load:
        try:
            load_extension()
        except BackendUnavailableError as e:
            return False, e.reason
    return True, ""
