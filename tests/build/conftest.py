import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# scripts/ holds the build tooling under test; this folder holds the fake toolkit helper.
for path in (REPO / "scripts", Path(__file__).resolve().parent):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def native():
    from ascend_quant_ops import _native

    return _native
