import importlib

import pytest


@pytest.fixture(scope="session")
def sweep_mod():
    """The tiling sweep (`aqo sweep`, ascend_quant_ops/tools/sweep.py) as a module."""
    return importlib.import_module("ascend_quant_ops.tools.sweep")
