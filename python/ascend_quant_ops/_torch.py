"""The one place that imports torch, once per process.

torch is optional. Worse, with torch_npu installed but no CANN, `import torch` itself raises (torch autoloads
device backends, docs/references.md#torch-npu), and a second attempt after such a failure re-runs torch's initialisation on top of
the half-loaded first one: it fails differently and can crash the interpreter at exit. So the first outcome is
remembered and every later caller gets the same answer.
"""
from __future__ import annotations

import importlib.util
import sys
import threading
from typing import Any, Optional, Tuple

_lock = threading.Lock()
_result: Optional[Tuple[Any, str]] = None


def import_torch() -> Tuple[Any, str]:
    """(torch, "") when torch is importable, else (None, why not). Never raises; tries at most once."""
    global _result
    with _lock:
        if _result is None:
            _result = _first_import()
        return _result


def _first_import() -> Tuple[Any, str]:
    already = sys.modules.get("torch", False)
    if already is None:  # explicitly blocked (sys.modules["torch"] = None)
        return None, "torch is not installed"
    if already is not False and hasattr(already, "Tensor"):
        return already, ""
    if importlib.util.find_spec("torch") is None:
        return None, "torch is not installed"
    try:
        import torch
    except Exception as exc:  # noqa: BLE001 - e.g. an autoloaded torch_npu failing without CANN
        return None, (f"torch is installed but failed to import ({type(exc).__name__}: {exc}). If torch_npu is "
                      "installed without CANN, set TORCH_DEVICE_BACKEND_AUTOLOAD=0 or source CANN's set_env.sh")
    return torch, ""


def torch_or_none() -> Any:
    return import_torch()[0]
