import importlib.util
import os

import pytest

_SWEEP = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "tiling_sweep.py")


@pytest.fixture(scope="session")
def sweep_mod():
    """scripts/tiling_sweep.py as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("tiling_sweep", _SWEEP)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
