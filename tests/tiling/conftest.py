import importlib.util
import os
import sys

import pytest

_SWEEP = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "tiling_sweep.py")


@pytest.fixture(scope="session")
def sweep_mod():
    """scripts/tiling_sweep.py as a module (scripts/ is not a package). Its sibling helper modules are found as
    they are when it runs as a script: from scripts/ on sys.path."""
    scripts_dir = os.path.dirname(os.path.abspath(_SWEEP))
    if scripts_dir not in sys.path:
        sys.path.append(scripts_dir)
    spec = importlib.util.spec_from_file_location("tiling_sweep", _SWEEP)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
